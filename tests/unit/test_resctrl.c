/*
 * test_resctrl.c - the resctrl reader against trees the test lays out
 * itself in a temporary directory, shaped as the kernel's
 * (Documentation/filesystems/resctrl.rst): the root group, a CTRL_MON
 * group, MON groups under both, two L3 domains on two sockets, SNC
 * sub-domains, files reading "Unavailable"/"Error"/"Unassigned" or junk,
 * a missing event file, and a group removed and re-made.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/prom.h"
#include "resctrl/resctrl.h"
#include "tests/tap.h"

static char top[64];

static void put(const char *rel, const char *text)
{
	char path[512], *p;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", top, rel);
	for (p = path + strlen(top) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if (!(f = fopen(path, "w"))) {
		perror(path);
		exit(99);
	}
	fputs(text, f);
	fclose(f);
}

static void rm_rf(const char *rel)
{
	char cmd[600];

	snprintf(cmd, sizeof cmd, "rm -rf '%s/%s'", top, rel);
	if (system(cmd) != 0)
		exit(99);
}

/* cpu0 has L3 id 0 on package 0, cpu1 L3 id 1 on package 1. */
static void put_cpus(void)
{
	for (int c = 0; c < 2; c++) {
		char rel[256], v[16];
		static const int level[4] = { 1, 1, 2, 3 };
		for (int k = 0; k < 4; k++) {
			snprintf(rel, sizeof rel,
				 "sys/devices/system/cpu/cpu%d/cache/index%d/level", c, k);
			snprintf(v, sizeof v, "%d\n", level[k]);
			put(rel, v);
			snprintf(rel, sizeof rel,
				 "sys/devices/system/cpu/cpu%d/cache/index%d/id", c, k);
			snprintf(v, sizeof v, "%d\n", k == 3 ? c : c * 4 + k);
			put(rel, v);
		}
		snprintf(rel, sizeof rel,
			 "sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
		snprintf(v, sizeof v, "%d\n", c);
		put(rel, v);
	}
}

static void put_domain(const char *gdir, const char *dom, const char *total,
		       const char *local, const char *occ)
{
	char rel[512];

	snprintf(rel, sizeof rel, "rdt/%s%smon_data/%s/mbm_total_bytes",
		 gdir, *gdir ? "/" : "", dom);
	put(rel, total);
	if (local) {
		snprintf(rel, sizeof rel, "rdt/%s%smon_data/%s/mbm_local_bytes",
			 gdir, *gdir ? "/" : "", dom);
		put(rel, local);
	}
	snprintf(rel, sizeof rel, "rdt/%s%smon_data/%s/llc_occupancy",
		 gdir, *gdir ? "/" : "", dom);
	put(rel, occ);
}

static const struct rdt_sample *find(const struct rdt_snap *sn,
				     const char *group, unsigned dom, int sub)
{
	for (size_t i = 0; i < sn->n; i++)
		if (!strcmp(sn->s[i].group, group) && sn->s[i].domain == dom &&
		    sn->s[i].sub == sub)
			return &sn->s[i];
	return NULL;
}

static void test_parse(void)
{
	struct rdt_val v;

	is_int(rdt_parse_value("123456\n", &v), RDT_OK, "a number");
	is_u64(v.v, 123456, "... its value");
	is_int(rdt_parse_value("18446744073709551615\n", &v), RDT_OK, "UINT64_MAX");
	is_u64(v.v, UINT64_MAX, "... its value");
	is_int(rdt_parse_value("18446744073709551616\n", &v), RDT_MALFORMED,
	       "UINT64_MAX + 1 is malformed, not wrapped");
	is_int(rdt_parse_value("Unavailable\n", &v), RDT_UNAVAILABLE, "Unavailable");
	is_int(rdt_parse_value("Error\n", &v), RDT_ERROR, "Error");
	is_int(rdt_parse_value("Unassigned\n", &v), RDT_UNASSIGNED, "Unassigned");
	is_int(rdt_parse_value("", &v), RDT_MALFORMED, "empty");
	is_int(rdt_parse_value("-5\n", &v), RDT_MALFORMED, "negative");
	is_int(rdt_parse_value("12 34\n", &v), RDT_MALFORMED, "two numbers");
	is_int(rdt_parse_value("Unavailablex\n", &v), RDT_MALFORMED,
	       "a word with a tail");
	is_str(rdt_status_name(RDT_UNASSIGNED), "unassigned", "reason label");
}

/* The page: values as read, absent samples left out and counted. */
static void test_render(const struct rdt_snap *sn)
{
	struct rdt_stats st = { 0 };
	struct buf b = BUF_INIT;
	struct prom w;

	rdt_count(&st, sn);
	is_u64(st.unreadable[RDT_UNAVAILABLE], 1, "one Unavailable counted");
	is_u64(st.unreadable[RDT_ERROR], 1, "one Error counted");
	is_u64(st.unreadable[RDT_UNASSIGNED], 1, "one Unassigned counted");
	is_u64(st.unreadable[RDT_MALFORMED], 1, "one malformed counted");
	is_u64(st.unreadable[RDT_UNREADABLE], 0,
	       "a file the kernel does not have is not a failed read");
	prom_begin(&w, &b, PROM_TEXT_004);
	is_int(rdt_render(&w, sn, &st), 0, "render");
	is_int(prom_end(&w), 0, "exposition complete");
	ok(b.p && strstr(b.p, "uncore_resctrl_memory_bytes_total{group=\"/\","
			 "socket=\"1\",domain=\"1\",scope=\"total\"} 2000\n"),
	   "root total bytes on socket 1");
	ok(b.p && strstr(b.p, "uncore_resctrl_memory_bytes_total{group=\"batch/"
			 "mon_groups/job1\",socket=\"0\",domain=\"0\","
			 "scope=\"local\"} 50\n"), "job1 local bytes");
	ok(b.p && strstr(b.p, "uncore_resctrl_llc_occupancy_bytes{group=\"batch\","
			 "socket=\"1\",domain=\"1\"} 8192\n"), "batch occupancy");
	ok(b.p && !strstr(b.p, "group=\"batch\",socket=\"1\",domain=\"1\",scope"),
	   "Unavailable/Error give no series, not 0");
	ok(b.p && !strstr(b.p, "group=\"mon_groups/uncored-a\",socket=\"0\","
			  "domain=\"0\"}"), "malformed occupancy gives no series");
	ok(b.p && strstr(b.p, "uncore_resctrl_unreadable_total{reason=\"unassigned\"} 1\n"),
	   "unreadable by reason");
	ok(b.p && strstr(b.p, "# TYPE uncore_resctrl_memory_bytes_total counter\n"),
	   "bytes are a counter");
	ok(b.p && strstr(b.p, "# TYPE uncore_resctrl_llc_occupancy_bytes gauge\n"),
	   "occupancy is a gauge");
	buf_free(&b);
}

static void test_scan(void)
{
	char root[128], sys[128];
	struct rdt_snap sn = { 0 };
	const struct rdt_sample *s;

	snprintf(root, sizeof root, "%s/rdt", top);
	snprintf(sys, sizeof sys, "%s/sys", top);
	is_int(rdt_scan(root, sys, &sn), -ENOENT, "no tree: -ENOENT");

	put("rdt/info/L3_MON/num_rmids", "256\n");
	put("rdt/tasks", "");
	put_domain("", "mon_L3_00", "1000\n", "600\n", "65536\n");
	put_domain("", "mon_L3_01", "2000\n", "1500\n", "131072\n");
	put_domain("batch", "mon_L3_00", "300\n", "100\n", "4096\n");
	put_domain("batch", "mon_L3_01", "Unavailable\n", "Error\n", "8192\n");
	put_domain("batch/mon_groups/job1", "mon_L3_00", "200\n", "50\n", "2048\n");
	put_domain("batch/mon_groups/job1", "mon_L3_01", "Unassigned\n", "7\n", "0\n");
	put_domain("mon_groups/uncored-a", "mon_L3_00", "42\n", NULL, "banana\n");
	put_domain("mon_groups/uncored-a", "mon_L3_01", "43\n", "44\n", "45\n");

	is_int(rdt_scan(root, sys, &sn), 0, "scan");
	is_int(sn.n, 8, "4 groups x 2 domains");

	s = find(&sn, "/", 1, -1);
	ok(s && !s->is_mon, "root group, domain 1");
	if (s) {
		is_int(s->socket, 1, "L3 id 1 -> package 1");
		is_u64(s->ev[RDT_TOTAL].v, 2000, "root total bytes");
		is_u64(s->ev[RDT_LOCAL].v, 1500, "root local bytes");
		is_u64(s->ev[RDT_OCC].v, 131072, "root occupancy");
	}
	s = find(&sn, "batch", 1, -1);
	ok(s && !s->is_mon, "CTRL_MON group batch");
	if (s) {
		is_int(s->ev[RDT_TOTAL].st, RDT_UNAVAILABLE, "Unavailable kept as such");
		is_u64(s->ev[RDT_TOTAL].v, 0, "... with no value");
		is_int(s->ev[RDT_LOCAL].st, RDT_ERROR, "Error kept as such");
		is_int(s->ev[RDT_OCC].st, RDT_OK, "the other event still read");
	}
	s = find(&sn, "batch/mon_groups/job1", 0, -1);
	ok(s && s->is_mon, "MON group under batch");
	if (s) {
		is_int(s->socket, 0, "L3 id 0 -> package 0");
		is_u64(s->ev[RDT_TOTAL].v, 200, "job1 total bytes");
	}
	s = find(&sn, "batch/mon_groups/job1", 1, -1);
	ok(s && s->ev[RDT_TOTAL].st == RDT_UNASSIGNED, "Unassigned kept as such");
	s = find(&sn, "mon_groups/uncored-a", 0, -1);
	ok(s && s->is_mon, "MON group under the root group");
	if (s) {
		is_int(s->ev[RDT_LOCAL].st, RDT_UNREADABLE, "missing file");
		is_u64(s->ev[RDT_LOCAL].v, ENOENT, "... ENOENT: not monitored");
		is_int(s->ev[RDT_OCC].st, RDT_MALFORMED, "junk is malformed");
	}
	ok(!find(&sn, "info", 0, -1), "info/ is not a group");
	test_render(&sn);

	/* Removed and re-made between passes, now counting from 0 again. */
	s = find(&sn, "mon_groups/uncored-a", 1, -1);
	uint64_t gen0 = s ? s->gen : 0, v0 = s ? s->ev[RDT_TOTAL].v : 0;
	/* kernfs does not hand a freed inode number out again (cyclic
	 * allocation); this file system might, so the old directory is moved
	 * aside until the new one exists. */
	char from[256], to[256];
	snprintf(from, sizeof from, "%s/rdt/mon_groups/uncored-a", top);
	snprintf(to, sizeof to, "%s/gone", top);
	ok(rename(from, to) == 0, "group removed");
	put_domain("mon_groups/uncored-a", "mon_L3_01", "50\n", "1\n", "1\n");
	rm_rf("gone");
	is_int(rdt_scan(root, sys, &sn), 0, "scan after re-creation");
	s = find(&sn, "mon_groups/uncored-a", 1, -1);
	ok(s && s->gen != gen0, "a re-made group has a new generation");
	if (s) {
		int reset;
		uint64_t d = rdt_delta(gen0, v0, s->gen, s->ev[RDT_TOTAL].v, &reset);
		is_int(reset, 1, "re-creation is a counter reset, though 50 > 43");
		is_u64(d, 50, "... and the increase is the new count");
	}
	int reset;
	is_u64(rdt_delta(7, 1000, 7, 1500, &reset), 500, "same group: difference");
	is_int(reset, 0, "... no reset");
	is_u64(rdt_delta(7, 1000, 7, 300, &reset), 300, "went down: new value, never negative");
	is_int(reset, 1, "... a reset");
	rdt_snap_free(&sn);
}

static void test_snc(void)
{
	char root[128], sys[128];
	struct rdt_snap sn = { 0 };
	const struct rdt_sample *s;

	rm_rf("rdt");
	snprintf(root, sizeof root, "%s/rdt", top);
	snprintf(sys, sizeof sys, "%s/sys", top);
	put("rdt/info/L3_MON/num_rmids", "128\n");
	put_domain("", "mon_L3_01", "300\n", "200\n", "30\n");
	put_domain("", "mon_L3_01/mon_sub_L3_02", "100\n", "80\n", "10\n");
	put_domain("", "mon_L3_01/mon_sub_L3_03", "200\n", "120\n", "20\n");
	is_int(rdt_scan(root, sys, &sn), 0, "SNC scan");
	is_int(sn.n, 2, "one sample per SNC node, not the domain sum as well");
	s = find(&sn, "/", 1, 3);
	ok(s != NULL, "sub-domain 3 of domain 1");
	if (s) {
		is_int(s->socket, 1, "a sub-domain is on its parent's socket");
		is_u64(s->ev[RDT_TOTAL].v, 200, "its own bytes");
	}
	rdt_snap_free(&sn);
}

int main(void)
{
	snprintf(top, sizeof top, "/tmp/test_resctrl.XXXXXX");
	if (!mkdtemp(top))
		return 99;
	put_cpus();
	test_parse();
	test_scan();
	test_snc();
	rm_rf("");
	return tap_done();
}
