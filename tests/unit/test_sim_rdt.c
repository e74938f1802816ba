/*
 * test_sim_rdt.c - the workload's "resctrl" object and the simulated
 * resctrl tree (src/sim/sim_wl_rdt.c, src/sim/sim_rdt.c): every refusal
 * with its JSON path; the DRAM bound per platform; values at known
 * simulated times, the same whatever the syncs in between; the RMID
 * limit, limbo, SNC, AMD domains and ABMC; a re-made group with a new
 * inode; directories made and removed by someone else; and the reader
 * (src/resctrl/resctrl.c) on the tree.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "resctrl/resctrl.h"
#include "sim/sim_rdt.h"
#include "sim/sim_workload.h"

static char tmp[256];

static struct workload *load(const char *json, char *err, size_t errlen)
{
	struct workload *w;

	if (wl_parse(json, strlen(json), "t.json", NULL, &w, err, errlen) < 0)
		return NULL;
	return w;
}

/* "must fail with a message containing want". */
static void refused(const char *json, const char *want, const char *what)
{
	char err[1024] = "";
	struct workload *w = load(json, err, sizeof(err));

	ok(!w, "refused: %s", what);
	like(err, want, "... saying \"%s\"", want);
	wl_free(w);
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return strcpy(buf, "(none)");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return buf;
}

static char *val(const char *dir, const char *rel)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/sys/fs/resctrl/%s", dir, rel);
	return slurp(p);
}

#define SKL_HEAD "{ \"platform\": \"skl\", \"phases\": [ " \
	"{ \"seconds\": 10, \"rates\": { \"imc:DRAM_DATA_READS\": 1.0e8, " \
	"\"imc:DRAM_DATA_WRITES\": 5.0e7 } }, " \
	"{ \"seconds\": 10, \"rates\": { \"imc:DRAM_DATA_READS\": 2.0e7 } } ], "

static void test_refusals(void)
{
	refused(SKL_HEAD "\"resctrl\": { \"groups\": [ { \"name\": \"info\" } ] } }",
		"$.resctrl.groups[0].name: must be a group", "a name the tree uses");
	refused(SKL_HEAD "\"resctrl\": { \"groups\": [ { \"name\": \"a/b\" } ] } }",
		"$.resctrl.groups[0].name", "a path that is no group");
	refused(SKL_HEAD "\"resctrl\": { \"groups\": [ { \"name\": \"a\", "
		"\"mbm_total_bytes\": [1, 2, 3] } ] } }",
		"$.resctrl.groups[0].mbm_total_bytes: 3 values for 2 phases",
		"one rate per phase");
	refused(SKL_HEAD "\"resctrl\": { \"groups\": [ { \"name\": \"a\", "
		"\"mbm_total_bytes\": 1, \"mbm_local_bytes\": 2 } ] } }",
		"mbm_local_bytes 2 > mbm_total_bytes 1", "local above total");
	refused(SKL_HEAD "\"resctrl\": { \"groups\": [ { \"name\": \"a\" }, "
		"{ \"name\": \"a\", \"from\": 3 } ] } }",
		"$.resctrl.groups[1]: \"a\" is also $.resctrl.groups[0] at the same time",
		"two lives that overlap");
	refused(SKL_HEAD "\"resctrl\": { \"groups\": [ { \"name\": \"a\", \"until\": 5 }, "
		"{ \"name\": \"a/mon_groups/m\", \"from\": 3 } ] } }",
		"needs its CTRL_MON group \"a\"", "a MON group outliving its parent");
	refused(SKL_HEAD "\"resctrl\": { \"groups\": [ { \"name\": \"/\", \"from\": 1 } ] } }",
		"the root group \"/\" is there from mount", "a root group with a life");
	refused(SKL_HEAD "\"resctrl\": { \"snc\": 2, \"l3_domains\": 2 } }",
		"$.resctrl.l3_domains: an Intel socket has one L3 domain",
		"AMD's domains on Intel");
	refused(SKL_HEAD "\"resctrl\": { \"mbm_assign_mode\": \"mbm_event\" } }",
		"assignable counters (ABMC): not on skl", "ABMC on Intel");
	refused("{ \"platform\": \"zen4\", \"phases\": [ { \"seconds\": 1, "
		"\"rates\": {} } ], \"resctrl\": { \"snc\": 2 } }",
		"sub-NUMA clustering is Intel's", "SNC on AMD");
	refused(SKL_HEAD "\"resctrl\": { \"num_rmids\": 0 } }",
		"$.resctrl.num_rmids: 0 out of range", "no RMID");
	refused(SKL_HEAD "\"resctrl\": { \"groups\": [ { \"name\": \"a\", "
		"\"colour\": 1 } ] } }", "$.resctrl.groups[0].colour: unknown key",
		"an unknown key");
	refused(SKL_HEAD "\"resctrl\": { \"groups\": [ { \"name\": \"a\", "
		"\"unavailable\": [\"mbm_bytes\"] } ] } }",
		"$.resctrl.groups[0].unavailable[0]: not an event file",
		"an unknown event file");
	/* DRAM: phase 0 (1e8 + 5e7) x 64 = 9.6e9, phase 1 2e7 x 64 = 1.28e9 */
	refused(SKL_HEAD "\"resctrl\": { \"groups\": [ "
		"{ \"name\": \"a\", \"mbm_total_bytes\": [5e9, 1e9] }, "
		"{ \"name\": \"b\", \"mbm_total_bytes\": [4e9, 3e8] } ] } }",
		"$.resctrl.groups[1]: group \"b\": the groups alive at 0 s move "
		"1.3e+09 bytes/s on socket 0 in phase 1", "more than DRAM in phase 1");
	refused(SKL_HEAD "\"resctrl\": { \"groups\": [ "
		"{ \"name\": \"a\", \"mbm_total_bytes\": [5e9, 1e9] }, "
		"{ \"name\": \"b\", \"mbm_total_bytes\": [4e9, 3e8], \"from\": 2 } ] } }",
		"the groups alive at 2 s", "... from when b is made");

	char err[1024] = "";
	struct workload *w = load(SKL_HEAD "\"resctrl\": { \"groups\": [ "
		"{ \"name\": \"a\", \"mbm_total_bytes\": [5e9, 1e9] }, "
		"{ \"name\": \"b\", \"mbm_total_bytes\": [4e9, 2.8e8], \"from\": 2, "
		"\"socket\": 0 } ] } }",
		err, sizeof(err));
	ok(w != NULL, "the same at the bound is accepted (%s)", err);
	wl_free(w);
	w = load(SKL_HEAD "\"resctrl\": { \"groups\": [ "
		"{ \"name\": \"a\", \"mbm_total_bytes\": [9e9, 1e9], \"until\": 5 }, "
		"{ \"name\": \"b\", \"mbm_total_bytes\": [9e9, 1e9], \"from\": 5 } ] } }",
		err, sizeof(err));
	ok(w != NULL, "groups that never live together are not summed (%s)", err);
	wl_free(w);
}

/* wl_dram_bytes_per_s against hand arithmetic. */
static void test_dram(void)
{
	char err[1024] = "";
	struct workload *w;

	w = load(SKL_HEAD "\"resctrl\": {} }", err, sizeof(err));
	is_near(wl_dram_bytes_per_s(w, 0, 0), 9.6e9, 1e-12, "skl phase 0: (1e8 + 5e7) x 64");
	is_near(wl_dram_bytes_per_s(w, 0, 1), 1.28e9, 1e-12, "skl phase 1: 2e7 x 64");
	wl_free(w);
	/* hsx: CAS_COUNT.RD (0x04/0x03) and .WR (0x04/0x0c) per channel;
	 * a decoy encoding (0x04/0x0f, CAS_COUNT.ALL) is not DRAM bytes twice */
	w = load("{ \"platform\": \"hsx\", \"sockets\": 2, \"imc_channels\": 4, "
		 "\"phases\": [ { \"seconds\": 1, \"rates\": { "
		 "\"imc:0x04:0x03\": 4e8, \"s1/imc:0x04:0x0c\": 1e8, "
		 "\"imc:0x04:0x0f\": 7e9, \"imc:0x04:0x03@1\": 1e7 } } ] }",
		 err, sizeof(err));
	ok(w != NULL, "hsx workload (%s)", err);
	if (w) {
		is_near(wl_dram_bytes_per_s(w, 0, 0), (4e8 + 1e7) * 64, 1e-12,
			"hsx socket 0: reads over the channels, one channel's own");
		is_near(wl_dram_bytes_per_s(w, 1, 0), (4e8 + 1e7 + 1e8) * 64, 1e-12,
			"hsx socket 1: and its writes");
	}
	wl_free(w);
	w = load("{ \"platform\": \"zen4\", \"phases\": [ { \"seconds\": 1, "
		 "\"rates\": { \"umc:0x0a:0x01\": 3e8, \"umc:0x0a:0x02\": 1e8 } } ] }",
		 err, sizeof(err));
	ok(w != NULL, "zen4 workload (%s)", err);
	if (w)
		is_near(wl_dram_bytes_per_s(w, 0, 0), 4e8 * 64, 1e-12,
			"zen4: umc_cas_cmd.rd + .wr x 64");
	wl_free(w);
}

#define TREE SKL_HEAD "\"resctrl\": { \"num_rmids\": 4, \"limbo_s\": 2, " \
	"\"groups\": [ " \
	"{ \"name\": \"/\", \"mbm_total_bytes\": 1000, \"llc_occupancy\": 512 }, " \
	"{ \"name\": \"web\", \"mbm_total_bytes\": [3e9, 1e8], " \
	"  \"mbm_local_bytes\": [1e9, 5e7], \"llc_occupancy\": [4096, 8192] }, " \
	"{ \"name\": \"web/mon_groups/m\", \"mbm_total_bytes\": [1e9, 2e8] }, " \
	"{ \"name\": \"mon_groups/r\", \"mbm_total_bytes\": 7e7, \"until\": 12 }, " \
	"{ \"name\": \"x\", \"mbm_total_bytes\": 1e6, \"from\": 13 }, " \
	"{ \"name\": \"y\", \"mbm_total_bytes\": 1e6, \"from\": 15 }, " \
	"{ \"name\": \"mon_groups/r\", \"mbm_total_bytes\": 5e7, \"from\": 16 } ] } }"

static void test_tree(void)
{
	char err[1024] = "", d1[300], d2[300], p[600], sys[400];
	struct workload *w = load(TREE, err, sizeof(err));
	struct srdt *a = NULL, *b = NULL;
	struct stat st1, st2;

	ok(w != NULL, "tree workload parses (%s)", err);
	if (!w)
		return;
	snprintf(d1, sizeof(d1), "%s/a", tmp);
	snprintf(d2, sizeof(d2), "%s/b", tmp);
	is_int(srdt_open(&a, w, d1, err, sizeof(err)), 0, "open a (%s)", err);
	is_int(srdt_open(&b, w, d2, err, sizeof(err)), 0, "open b (%s)", err);
	if (!a || !b)
		goto out;
	is_int(srdt_open(&(struct srdt *){ NULL }, w, d1, err, sizeof(err)),
	       -ENOTEMPTY, "a directory that is not empty is refused");
	/* a synced often, b once: the same values */
	for (double t = 0.5; t <= 11; t += 0.5)
		is_int(srdt_sync(a, t), 0, "sync a at %g", t);
	is_int(srdt_sync(b, 11), 0, "sync b at 11");
	/* web at 11 s: phase 0 for 10 s, phase 1 for 1 s */
	is_str(val(d1, "web/mon_data/mon_L3_00/mbm_total_bytes"),
	       "40300000000", "web: 3e9 x 10 + 1e8 x 1 + m's 1e9 x 10 + 2e8 x 1");
	is_str(val(d2, "web/mon_data/mon_L3_00/mbm_total_bytes"),
	       "40300000000", "... however often the tree was synced");
	is_str(val(d1, "web/mon_data/mon_L3_00/mbm_local_bytes"), "10050000000",
	       "web local: 1e9 x 10 + 5e7 x 1 (m has none)");
	is_str(val(d1, "web/mon_data/mon_L3_00/llc_occupancy"), "8192",
	       "web occupancy in phase 1");
	is_str(val(d1, "web/mon_groups/m/mon_data/mon_L3_00/mbm_total_bytes"),
	       "10200000000", "m: 1e9 x 10 + 2e8 x 1");
	is_str(val(d1, "mon_data/mon_L3_00/mbm_total_bytes"), "770011000",
	       "root: 1000 x 11 + its MON group r 7e7 x 11");
	is_str(val(d1, "mon_data/mon_L3_00/llc_occupancy"), "512", "root occupancy");
	is_str(val(d1, "mon_data/mon_L3_00/mbm_local_bytes"), "0",
	       "no local traffic: 0, a reading");
	is_str(val(d1, "info/L3_MON/num_rmids"), "4", "num_rmids");
	snprintf(p, sizeof(p), "%s/sys/fs/resctrl/mon_groups/r", d1);
	ok(stat(p, &st1) == 0, "r is there at 11 s");

	/* 12: r removed (RMID 3 in limbo until 14); 13: x gets no RMID
	 * (EBUSY); 15: y gets RMID 3; 16: r again gets none (ENOSPC) */
	is_int(srdt_sync(a, 12.5), 0, "sync at 12.5");
	ok(stat(p, &st2) < 0, "r removed at 12 s");
	is_int(srdt_sync(a, 17), 0, "sync at 17");
	ok(stat(p, &st2) < 0, "r is not re-made: no free RMID");
	like(slurp(strcat(strcpy(p, d1), "/resctrl.log")),
	     "13.000 mkdir x: EBUSY", "x refused while RMID 3 is in limbo");
	like(slurp(p), "15.000 mkdir y: rmid 3", "y gets it after the limbo");
	like(slurp(p), "16.000 mkdir mon_groups/r: ENOSPC", "r refused: none free");
	is_int((int)srdt_refused(a), 2, "two refusals");
	is_str(val(d1, "y/mon_data/mon_L3_00/mbm_total_bytes"), "2000000",
	       "y: 1e6 x 2 s since 15");
	is_str(val(d1, "mon_data/mon_L3_00/mbm_total_bytes"), "17000",
	       "root without r: 1000 x 17");

	/* someone else's rmdir and mkdir, on tree b */
	snprintf(p, sizeof(p), "rm -rf %s/sys/fs/resctrl/mon_groups/r", d2);
	ok(system(p) == 0, "another tool removes r at 11.5 s");
	is_int(srdt_sync(b, 11.5), 0, "sync at 11.5");
	like(slurp(strcat(strcpy(p, d2), "/resctrl.log")),
	     "mon_groups/r was removed by someone else", "noticed");
	snprintf(p, sizeof(p), "%s/sys/fs/resctrl/web/mon_groups/theirs", d2);
	ok(mkdir(p, 0755) == 0, "another tool makes web/mon_groups/theirs");
	is_int(srdt_sync(b, 14), 0, "sync at 14");
	like(slurp(strcat(strcpy(p, d2), "/resctrl.log")), "13.000 mkdir x: EBUSY",
	     "r's RMID went to limbo at 11.5 s");
	like(slurp(p), "14.000 mkdir web/mon_groups/theirs (someone else's): rmid 3",
	     "the other tool's directory gets it at 14 s");
	is_str(val(d2, "web/mon_groups/theirs/mon_data/mon_L3_00/mbm_total_bytes"),
	       "0", "it is taken in, counting 0");
	snprintf(p, sizeof(p), "%s/sys/fs/resctrl/web/mon_groups/theirs/tasks", d2);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs("777\n", f);
		fclose(f);
	}
	is_int(srdt_sync(b, 14.5), 0, "sync");
	is_str(val(d2, "web/mon_groups/theirs/tasks"), "777",
	       "a tasks file it writes stays as written");

	/* the reader on tree a */
	struct rdt_snap sn = { 0 };
	snprintf(p, sizeof(p), "%s/sys/fs/resctrl", d1);
	snprintf(sys, sizeof(sys), "%s/sys", d1);
	is_int(rdt_scan(p, sys, &sn), 0, "the reader scans the simulated tree");
	is_int((int)sn.n, 4, "root, web, web/mon_groups/m, y");
	for (size_t i = 0; i < sn.n; i++)
		if (!strcmp(sn.s[i].group, "web/mon_groups/m")) {
			is_int(sn.s[i].socket, 0, "m's domain is on socket 0");
			ok(sn.s[i].is_mon, "m is a MON group");
			is_u64(sn.s[i].ev[RDT_TOTAL].v, 11400000000ull,
			       "m at 17 s: 1e9 x 10 + 2e8 x 7");
		}
	rdt_snap_free(&sn);
out:
	srdt_close(a);
	srdt_close(b);
	wl_free(w);
}

/* A group removed and re-made in one sync gets a new inode and starts
 * from 0; the reader sees a reset. */
static void test_remake(void)
{
	char err[1024] = "", d[300], p[600], s[400];
	struct workload *w = load(SKL_HEAD "\"resctrl\": { \"limbo_s\": 0, "
		"\"groups\": [ { \"name\": \"g\", \"mbm_total_bytes\": 1e6, \"until\": 4 }, "
		"{ \"name\": \"g\", \"mbm_total_bytes\": 1e6, \"from\": 4 } ] } }",
		err, sizeof(err));
	struct srdt *k = NULL;
	struct rdt_snap sn = { 0 };
	uint64_t gen0 = 0, v0 = 0;

	ok(w != NULL, "re-make workload (%s)", err);
	if (!w)
		return;
	snprintf(d, sizeof(d), "%s/remake", tmp);
	is_int(srdt_open(&k, w, d, err, sizeof(err)), 0, "open (%s)", err);
	if (!k)
		goto out;
	snprintf(p, sizeof(p), "%s/sys/fs/resctrl", d);
	snprintf(s, sizeof(s), "%s/sys", d);
	srdt_sync(k, 3.9);
	rdt_scan(p, s, &sn);
	for (size_t i = 0; i < sn.n; i++)
		if (!strcmp(sn.s[i].group, "g")) {
			gen0 = sn.s[i].gen;
			v0 = sn.s[i].ev[RDT_TOTAL].v;
		}
	is_u64(v0, 3900000ull, "g at 3.9 s");
	srdt_sync(k, 4.5);
	rdt_scan(p, s, &sn);
	for (size_t i = 0; i < sn.n; i++)
		if (!strcmp(sn.s[i].group, "g")) {
			int reset = 0;
			uint64_t dv = rdt_delta(gen0, v0, sn.s[i].gen,
						sn.s[i].ev[RDT_TOTAL].v, &reset);

			ok(sn.s[i].gen != gen0, "the re-made group has a new inode");
			is_u64(sn.s[i].ev[RDT_TOTAL].v, 500000ull, "it counts from 4 s");
			ok(reset, "the reader sees a reset");
			is_u64(dv, 500000ull, "the delta is the new count, not negative");
		}
	rdt_snap_free(&sn);
out:
	srdt_close(k);
	wl_free(w);
}

/* The workload's threads: their bytes go where their tids are listed. */
static void test_threads(void)
{
	char err[1024] = "", d[300], p[700];
	struct workload *w = load(SKL_HEAD "\"resctrl\": { "
		"\"threads\": [ { \"tid\": 7, \"mbm_total_bytes\": 1e6, "
		"\"mbm_local_bytes\": 4e5, \"llc_occupancy\": 65536 }, "
		"{ \"tid\": 8, \"mbm_total_bytes\": 3e5 } ], "
		"\"groups\": [ { \"name\": \"web\" } ] } }", err, sizeof(err));
	struct srdt *k = NULL;
	FILE *f;

	ok(w != NULL, "threads workload (%s)", err);
	if (!w)
		return;
	snprintf(d, sizeof(d), "%s/threads", tmp);
	is_int(srdt_open(&k, w, d, err, sizeof(err)), 0, "open (%s)", err);
	if (!k)
		goto out;
	srdt_sync(k, 2);
	is_str(val(d, "mon_data/mon_L3_00/mbm_total_bytes"), "2600000",
	       "in no group: both threads' bytes are the root's (1.3e6 x 2 s)");
	is_str(val(d, "web/mon_data/mon_L3_00/mbm_total_bytes"), "0", "web: none yet");
	/* tid 7 into web's MON group "m" (made by someone, as uncored does) */
	snprintf(p, sizeof(p), "%s/sys/fs/resctrl/web/mon_groups/m", d);
	mkdir(p, 0755);
	srdt_sync(k, 3);	/* taken in: its tasks file */
	snprintf(p, sizeof(p), "%s/sys/fs/resctrl/web/mon_groups/m/tasks", d);
	if ((f = fopen(p, "a"))) {
		fputs("7\n", f);
		fclose(f);
	}
	srdt_sync(k, 5);
	is_str(val(d, "web/mon_groups/m/mon_data/mon_L3_00/mbm_total_bytes"), "2000000",
	       "m holds tid 7 from 3 s to 5 s: 1e6 x 2 s");
	is_str(val(d, "web/mon_groups/m/mon_data/mon_L3_00/mbm_local_bytes"), "800000",
	       "its local bytes: 4e5 x 2 s");
	is_str(val(d, "web/mon_groups/m/mon_data/mon_L3_00/llc_occupancy"), "65536",
	       "its occupancy now");
	is_str(val(d, "web/mon_data/mon_L3_00/mbm_total_bytes"), "2000000",
	       "web adds its MON group's");
	is_str(val(d, "mon_data/mon_L3_00/mbm_total_bytes"), "4500000",
	       "the root: both threads to 3 s (3.9e6), then tid 8 alone (6e5): "
	       "tid 7 is web's, and the root adds no other CTRL_MON group");
out:
	srdt_close(k);
	wl_free(w);
	refused(SKL_HEAD "\"resctrl\": { \"threads\": [ { \"mbm_total_bytes\": 1 } ] } }",
		"needs its \"tid\"", "a thread without tid");
	refused(SKL_HEAD "\"resctrl\": { \"threads\": [ { \"tid\": 3 }, { \"tid\": 3 } ] } }",
		"tid 3 is also threads[0]", "a tid twice");
	refused(SKL_HEAD "\"resctrl\": { \"threads\": [ { \"tid\": 3, "
		"\"mbm_total_bytes\": 2e10 } ] } }", "more than the socket's DRAM",
		"threads moving more than DRAM");
}

static void test_amd(void)
{
	char err[1024] = "", d[300];
	struct workload *w = load("{ \"platform\": \"zen4\", \"sockets\": 2, "
		"\"phases\": [ { \"seconds\": 10, \"rates\": { \"umc:0x0a:0x01\": 1e9 } } ], "
		"\"resctrl\": { \"l3_domains\": 4, \"mbm_assign_mode\": \"mbm_event\", "
		"\"num_mbm_cntrs\": 3, \"groups\": [ "
		"{ \"name\": \"a\", \"mbm_total_bytes\": 8e9, \"mbm_local_bytes\": 4e9, "
		"  \"llc_occupancy\": 4000 } ] } }", err, sizeof(err));
	struct srdt *k = NULL;

	ok(w != NULL, "AMD workload (%s)", err);
	if (!w)
		return;
	snprintf(d, sizeof(d), "%s/amd", tmp);
	is_int(srdt_open(&k, w, d, err, sizeof(err)), 0, "open (%s)", err);
	if (k) {
		srdt_sync(k, 2);
		is_str(val(d, "a/mon_data/mon_L3_05/mbm_total_bytes"), "4000000000",
		       "L3 5 (socket 1, CCX 1): 8e9 x 2 s / 4");
		is_str(val(d, "a/mon_data/mon_L3_05/mbm_local_bytes"), "Unassigned",
		       "3 counters: the root takes 2, a's total 1, its local none");
		is_str(val(d, "a/mon_data/mon_L3_05/llc_occupancy"), "1000",
		       "occupancy 4000 / 4 domains");
		is_str(val(d, "info/L3_MON/available_mbm_cntrs"),
		       "0=0;1=0;2=0;3=0;4=0;5=0;6=0;7=0", "no counter left");
		is_str(val(d, "a/mbm_L3_assignments"),
		       "mbm_total_bytes:0=e;1=e;2=e;3=e;4=e;5=e;6=e;7=e\n"
		       "mbm_local_bytes:0=_;1=_;2=_;3=_;4=_;5=_;6=_;7=_",
		       "a's assignments");
		/* two requests appended after the state before a sync (as the
		 * uid-0 helper appends them: resctrl_priv.c g_assign()): both
		 * taken, in order */
		char p[600];
		FILE *f;

		snprintf(p, sizeof(p), "%s/sys/fs/resctrl/a/mbm_L3_assignments", d);
		if ((f = fopen(p, "a"))) {
			fputs("mbm_total_bytes:*=_\nmbm_local_bytes:*=e\n", f);
			fclose(f);
		}
		srdt_sync(k, 3);
		is_str(val(d, "a/mbm_L3_assignments"),
		       "mbm_total_bytes:0=_;1=_;2=_;3=_;4=_;5=_;6=_;7=_\n"
		       "mbm_local_bytes:0=e;1=e;2=e;3=e;4=e;5=e;6=e;7=e",
		       "two requests between syncs: both taken (total freed, "
		       "then local assigned)");
		snprintf(p, sizeof(p), "%s/sys/devices/system/cpu/cpu10/cache/index3/id", d);
		is_str(slurp(p), "5", "CPU 10 (socket 1, core 2) is in L3 5");
		is_int(rdt_l3_socket(strcat(strcpy(p, d), "/sys"), 5), 1,
		       "the reader maps L3 5 to socket 1");
	}
	srdt_close(k);
	wl_free(w);
}

int main(void)
{
	snprintf(tmp, sizeof(tmp), "%s/test_sim_rdt.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	test_refusals();
	test_dram();
	test_tree();
	test_remake();
	test_threads();
	test_amd();
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", tmp);
	return tap_done();
}
