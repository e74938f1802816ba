/*
 * test_resctrl_mon.c - the resctrl monitor: no tree is "unavailable" and
 * no error; a tree that appears is read on the next pass; the thread
 * keeps passing and stops when freed (run under TSan in CI).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/prom.h"
#include "resctrl/resctrl_mon.h"
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
	if (!(f = fopen(path, "w")))
		exit(99);
	fputs(text, f);
	fclose(f);
}

static const char *page(struct rdt_mon *m, struct buf *b)
{
	struct prom w;

	buf_reset(b);
	prom_begin(&w, b, PROM_TEXT_004);
	rdt_mon_render(&w, m);
	prom_end(&w);
	return b->p ? b->p : "";
}

int main(void)
{
	char root[128], sys[128];
	struct buf b = BUF_INIT;

	snprintf(top, sizeof top, "/tmp/test_resctrl_mon.XXXXXX");
	if (!mkdtemp(top))
		return 99;
	snprintf(root, sizeof root, "%s/rdt", top);
	snprintf(sys, sizeof sys, "%s/sys", top);

	struct rdt_mon *m = rdt_mon_new(root, sys);
	ok(m != NULL, "a monitor without a tree");
	ok(strstr(page(m, &b), "uncore_resctrl_available 0\n") != NULL,
	   "no tree: available 0");
	ok(!strstr(page(m, &b), "uncore_resctrl_memory_bytes_total"),
	   "no tree: no bytes family");

	put("rdt/info/L3_MON/num_rmids", "64\n");
	put("rdt/mon_data/mon_L3_00/mbm_total_bytes", "777\n");
	put("rdt/mon_data/mon_L3_00/mbm_local_bytes", "700\n");
	put("rdt/mon_data/mon_L3_00/llc_occupancy", "Unavailable\n");
	is_int(rdt_mon_pass(m), 0, "the tree appears: next pass reads it");
	ok(strstr(page(m, &b), "uncore_resctrl_available 1\n") != NULL,
	   "available 1");
	ok(strstr(page(m, &b), "uncore_resctrl_memory_bytes_total{group=\"/\","
		  "socket=\"\",domain=\"0\",scope=\"total\"} 777\n") != NULL,
	   "root bytes, socket empty without sysfs");
	ok(strstr(page(m, &b), "uncore_resctrl_unreadable_total{reason=\"unavailable\"} 1\n")
	   != NULL, "Unavailable occupancy counted");

	/* rows per socket (api/v1/metrics): a CTRL_MON group with SNC
	 * nodes (their sum, not the domain's own files too), a MON group
	 * of the root, a MON group inside the CTRL_MON group; rates between
	 * two passes */
	struct rdt_row *rows;
	long nr;
	put("sys/devices/system/cpu/cpu0/topology/physical_package_id", "0\n");
	put("sys/devices/system/cpu/cpu0/cache/index0/level", "3\n");
	put("sys/devices/system/cpu/cpu0/cache/index0/id", "0\n");
	put("rdt/web/mon_data/mon_L3_00/mbm_total_bytes", "3000\n");	/* the sum */
	put("rdt/web/mon_data/mon_L3_00/mon_sub_L3_00/mbm_total_bytes", "1000\n");
	put("rdt/web/mon_data/mon_L3_00/mon_sub_L3_01/mbm_total_bytes", "2000\n");
	put("rdt/web/mon_groups/php/mon_data/mon_L3_00/mbm_total_bytes", "500\n");
	put("rdt/mon_groups/db/mon_data/mon_L3_00/mbm_total_bytes", "100\n");
	rdt_mon_pass(m);
	nr = rdt_mon_rows(m, &rows);
	is_int(nr, 4, "four rows: /, web, web/mon_groups/php, mon_groups/db");
	for (long i = 0; i < nr; i++) {
		if (!strcmp(rows[i].group, "web")) {
			is_u64(rows[i].total, 3000, "web: its SNC nodes summed once");
			ok(rows[i].workload && !rows[i].have_rate, "web: a workload, no rate after one pass");
		}
		if (!strcmp(rows[i].group, "web/mon_groups/php"))
			ok(!rows[i].workload, "php: inside web, not a workload of its own");
		if (!strcmp(rows[i].group, "mon_groups/db"))
			ok(rows[i].workload, "db: a MON group of the root, a workload");
		if (!strcmp(rows[i].group, "/"))
			ok(!rows[i].workload && rows[i].socket == 0, "/: everything, not a workload; socket 0");
	}
	rdt_rows_free(rows, nr);
	put("rdt/web/mon_data/mon_L3_00/mon_sub_L3_00/mbm_total_bytes", "1000001000\n");
	usleep(200 * 1000);
	rdt_mon_pass(m);
	nr = rdt_mon_rows(m, &rows);
	ok(nr > 0 && !strcmp(rows[0].group, "web") && rows[0].have_rate &&
	   rows[0].rate > 1e9 && rows[0].rate < 1e9 / 0.2,
	   "web first, at 1e9 bytes over about 0.2 s (%g B/s)", nr > 0 ? rows[0].rate : 0);
	rdt_rows_free(rows, nr);

	is_int(rdt_mon_start(m, 5), 0, "thread started");
	put("rdt/mon_data/mon_L3_00/mbm_total_bytes", "999\n");
	/*
	 * Count passes from after the file is written: a pass already under
	 * way may have read it before or during the write (on a loaded CI
	 * machine the two passes after rdt_mon_start() both did), the one
	 * after it cannot.  No time limit asserted.
	 */
	uint64_t n0 = rdt_mon_passes(m);
	while (rdt_mon_passes(m) < n0 + 2)
		usleep(1000);
	ok(strstr(page(m, &b), "scope=\"total\"} 999\n") != NULL,
	   "the thread's passes publish new values");
	rdt_mon_free(m);
	ok(1, "stopped and freed");
	buf_free(&b);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", top);
	if (system(cmd) != 0)
		return 99;
	return tap_done();
}
