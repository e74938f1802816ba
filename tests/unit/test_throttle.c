/*
 * test_throttle.c - the package thermal-throttle reader (src/core/
 * throttle.c) and the simulated kernel's thermal_throttle/ files (src/sim/
 * sim_throttle.c): counter parsing; one CPU per package, the lowest
 * online one (a decoy value on another CPU of the package, an offline
 * CPU below it); milliseconds served as seconds; the refresh hook before
 * every read; a file that turns bad (the value stays, the error counted);
 * the reasons where there is nothing (no thermal_throttle/, no package
 * files); the workload's "thermal_throttle" object (rates per phase and
 * socket, its errors) and the files it writes at a simulated time; the
 * reads as windows for the samples (each ends in one span, a failed read
 * adds none, a span older than the history says nothing).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/prom.h"
#include "core/throttle.h"
#include "plat/plat.h"
#include "sim/sim_throttle.h"
#include "sim/sim_workload.h"
#include "tests/tap.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char p[512], *s;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static void mkroot(void)
{
	snprintf(root, sizeof(root), "/tmp/test_throttle.XXXXXX");
	if (!mkdtemp(root))
		abort();
}

static void rmroot(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)
		abort();
}

/* cpu N on package P */
static void cpu(unsigned n, unsigned pkg)
{
	char rel[128], v[16];

	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/topology/"
		 "physical_package_id", n);
	snprintf(v, sizeof(v), "%u\n", pkg);
	put(rel, v);
}

static void tt(unsigned n, const char *file, const char *text)
{
	char rel[160];

	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/thermal_throttle/%s",
		 n, file);
	put(rel, text);
}

static int refreshes;
static void count_refresh(void *ctx)
{
	(void)ctx;
	refreshes++;
}

static void render(struct throttle_mon *m, struct buf *b)
{
	struct prom w;

	buf_reset(b);
	prom_begin(&w, b, PROM_TEXT_004);
	throttle_mon_render(&w, m, false);
	prom_end(&w);
	buf_reserve(b, 1);
	b->p[b->len] = '\0';
}

static void test_parse(void)
{
	uint64_t v = 7;

	ok(throttle_parse_u64("123\n", &v) == 0 && v == 123, "\"123\\n\" is 123");
	ok(throttle_parse_u64("0", &v) == 0 && v == 0, "\"0\" without a newline");
	ok(throttle_parse_u64("18446744073709551615\n", &v) == 0 &&
	   v == UINT64_MAX, "2^64 - 1 (the kernel's counters are 64-bit)");
	is_int(throttle_parse_u64("18446744073709551616", &v), -EINVAL,
	       "2^64 overflows");
	is_int(throttle_parse_u64("", &v), -EINVAL, "empty");
	is_int(throttle_parse_u64("-1\n", &v), -EINVAL, "a sign");
	is_int(throttle_parse_u64("12 ms\n", &v), -EINVAL, "junk after");
	is_int(throttle_parse_u64("1\n\n", &v), -EINVAL, "two newlines");
}

static void test_tree(void)
{
	struct throttle_pkg p[THROTTLE_MAX_PKGS];
	struct throttle_mon *m;
	struct buf b;
	int n;

	mkroot();
	buf_init(&b);
	/* 2 packages: cpu0 offline (package 0 is read on cpu1), cpu2 and
	 * cpu3 on package 1 (read on cpu2; cpu3 holds a decoy) */
	put("devices/system/cpu/online", "1-3\n");
	cpu(0, 0); cpu(1, 0); cpu(2, 1); cpu(3, 1);
	tt(0, "package_throttle_total_time_ms", "999999\n");
	tt(1, "package_throttle_total_time_ms", "1500\n");
	tt(1, "package_throttle_count", "3\n");
	tt(1, "core_throttle_total_time_ms", "777777\n");
	tt(2, "package_throttle_total_time_ms", "250\n");
	tt(2, "package_throttle_count", "1\n");
	tt(3, "package_throttle_total_time_ms", "888888\n");
	refreshes = 0;
	m = throttle_mon_new(root, count_refresh, NULL);
	ok(m != NULL, "monitor made");
	is_str(throttle_mon_absent(m), "", "not absent");
	ok(refreshes >= 1, "refreshed before the first read");
	n = throttle_mon_snapshot(m, p, THROTTLE_MAX_PKGS);
	is_int(n, 2, "2 packages");
	is_int((int)p[0].cpu, 1, "package 0 on cpu1 (cpu0 offline)");
	is_int((int)p[1].cpu, 2, "package 1 on cpu2, its lowest CPU");
	is_u64(p[0].ms, 1500, "package 0: 1500 ms");
	is_u64(p[1].ms, 250, "package 1: 250 ms (not the decoy on cpu3)");
	is_u64(p[0].count, 3, "package 0: count 3");
	render(m, &b);
	like(b.p, "uncore_frequency_limited_seconds_total{socket=\"0\",domain=\"package\",reason=\"thermal\"} 1.5\n",
	     "socket 0: 1.5 s (ms / 1000)");
	like(b.p, "uncore_frequency_limited_seconds_total{socket=\"1\",domain=\"package\",reason=\"thermal\"} 0.25\n",
	     "socket 1: 0.25 s");
	like(b.p, "uncore_frequency_limited_events_total{socket=\"1\",domain=\"package\",reason=\"thermal\"} 1\n",
	     "socket 1: 1 event");
	ok(!strstr(b.p, "777.777") && !strstr(b.p, "888.888"),
	   "neither the core counter nor another CPU's value is served");

	/* the counters advance; then one turns bad: its value stays */
	tt(1, "package_throttle_total_time_ms", "2500\n");
	n = refreshes;
	throttle_mon_read(m);
	ok(refreshes == n + 1, "refreshed before each read");
	throttle_mon_snapshot(m, p, THROTTLE_MAX_PKGS);
	is_u64(p[0].ms, 2500, "re-read: 2500 ms");
	tt(1, "package_throttle_total_time_ms", "lots\n");
	throttle_mon_read(m);
	throttle_mon_snapshot(m, p, THROTTLE_MAX_PKGS);
	is_u64(p[0].ms, 2500, "bad contents: the last value stays");
	is_u64(p[0].errors, 1, "bad contents: one read error");
	throttle_mon_free(m);
	rmroot();

	/* no thermal_throttle/ (AMD, a VM) */
	mkroot();
	put("devices/system/cpu/online", "0-1\n");
	cpu(0, 0); cpu(1, 0);
	m = throttle_mon_new(root, NULL, NULL);
	like(throttle_mon_absent(m), "/cpu0/thermal_throttle: the kernel's therm_throt.c",
	     "no thermal_throttle/: absent, the reason names the directory");
	render(m, &b);
	is_int((int)b.len, 0, "absent: nothing rendered");
	is_int(throttle_mon_start(m, 1000), 0, "absent: nothing to start");
	throttle_mon_free(m);
	/* thermal_throttle/ with the core files only (no PTS) */
	tt(0, "core_throttle_count", "0\n");
	m = throttle_mon_new(root, NULL, NULL);
	like(throttle_mon_absent(m), "has no package_throttle_total_time_ms: the CPU has no package thermal status",
	     "core files only: absent, no package thermal status");
	throttle_mon_free(m);
	rmroot();

	/* no CPU at all */
	mkroot();
	m = throttle_mon_new(root, NULL, NULL);
	like(throttle_mon_absent(m), "devices/system/cpu", "no cpu directory: absent");
	throttle_mon_free(m);
	rmroot();
	m = throttle_mon_new_absent("no kernel here");
	is_str(throttle_mon_absent(m), "no kernel here", "an absent monitor says its reason");
	throttle_mon_free(m);
	buf_free(&b);
}

static int load(const char *json, struct workload **w, char *err, size_t len)
{
	return wl_parse(json, strlen(json), "t.json", NULL, w, err, len);
}

struct simctx {
	struct workload *w;
	double t;
};

static void sim_refresh(void *arg)
{
	struct simctx *c = arg;
	char why[256];
	char sys[300];

	snprintf(sys, sizeof(sys), "%s", root);
	if (sthr_write(c->w, 2, 4, sys, c->t, why, sizeof(why)) < 0)
		abort();
}

static void test_sim(void)
{
	struct throttle_pkg p[THROTTLE_MAX_PKGS];
	struct throttle_mon *m;
	struct workload *w = NULL;
	struct simctx c;
	char err[512];
	int r;

	r = load("{ \"platform\": \"hsx\", \"sockets\": 2, \"phases\": ["
		 "{ \"seconds\": 10, \"rates\": {} }, { \"seconds\": 10, \"rates\": {} } ],"
		 "\"thermal_throttle\": { \"ms_per_s\": [250, 0], \"s1/ms_per_s\": 100,"
		 " \"count_per_s\": 0.5 } }", &w, err, sizeof(err));
	is_int(r, 0, "workload with thermal_throttle parses");
	if (r < 0) {
		printf("# %s\n", err);
		return;
	}
	is_u64(sthr_ms(w, 0, 10), 2500, "socket 0: 250 ms/s for 10 s");
	is_u64(sthr_ms(w, 0, 20), 2500, "socket 0: nothing in the second phase");
	is_u64(sthr_ms(w, 0, 30), 5000, "socket 0: the phases repeat");
	is_u64(sthr_ms(w, 1, 20), 2000, "socket 1: its own 100 ms/s in both phases");
	is_u64(sthr_count(w, 1, 20), 10, "0.5 episodes a second");

	mkroot();
	put("devices/system/cpu/online", "0-7\n");
	for (unsigned i = 0; i < 8; i++)
		cpu(i, i / 4);
	c.w = w;
	c.t = 4;
	m = throttle_mon_new(root, sim_refresh, &c);
	is_str(throttle_mon_absent(m), "", "the simulated files are found");
	throttle_mon_snapshot(m, p, THROTTLE_MAX_PKGS);
	is_u64(p[0].ms, 1000, "t = 4 s: socket 0 1000 ms");
	is_u64(p[1].ms, 400, "t = 4 s: socket 1 400 ms");
	c.t = 12;
	throttle_mon_read(m);
	throttle_mon_snapshot(m, p, THROTTLE_MAX_PKGS);
	is_u64(p[0].ms, 2500, "t = 12 s: rewritten, socket 0 2500 ms");
	is_u64(p[1].count, 6, "t = 12 s: socket 1 6 episodes");
	throttle_mon_free(m);
	rmroot();
	wl_free(w);

	w = NULL;
	r = load("{ \"platform\": \"hsx\", \"phases\": [{ \"seconds\": 1, \"rates\": {} }],"
		 "\"thermal_throttle\": { \"ms_per_s\": 1001 } }", &w, err, sizeof(err));
	ok(r < 0, "1001 ms per second refused");
	like(err, "$.thermal_throttle.ms_per_s", "the message names the path");
	w = NULL;
	r = load("{ \"platform\": \"hsx\", \"phases\": [{ \"seconds\": 1, \"rates\": {} }],"
		 "\"thermal_throttle\": { \"ms\": 1 } }", &w, err, sizeof(err));
	ok(r < 0, "an unknown key refused");
	like(err, "accepts: ms_per_s, count_per_s", "the message says what is accepted");
	w = NULL;
	r = load("{ \"platform\": \"zen4\", \"phases\": [{ \"seconds\": 1, \"rates\": {} }],"
		 "\"thermal_throttle\": { \"ms_per_s\": 1 } }", &w, err, sizeof(err));
	ok(r < 0, "zen4 (AMD) has no thermal_throttle key");
}

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Reads m once between two instants: *before < the read's time < *after. */
static void timed_read(struct throttle_mon *m, uint64_t *before, uint64_t *after)
{
	usleep(2000);
	*before = mono();
	usleep(2000);
	throttle_mon_read(m);
	usleep(2000);
	*after = mono();
}

static void test_windows(void)
{
	struct throttle_window w[8];
	struct throttle_mon *m;
	uint64_t b0 = mono(), a0, b1, a1, b2, a2, b3, a3;
	int n;

	mkroot();
	put("devices/system/cpu/online", "0\n");
	cpu(0, 0);
	tt(0, "package_throttle_total_time_ms", "100\n");
	m = throttle_mon_new(root, NULL, NULL);	/* read 0: 100 ms */
	a0 = mono();
	is_int(throttle_mon_windows(m, 0, b0 - 1, a0, w, 8), -ENODATA,
	       "a span before the first read: nothing said (not 0)");
	is_int(throttle_mon_windows(m, 0, a0, a0 + 1000000000, w, 8), 0,
	       "one read: no window yet");
	tt(0, "package_throttle_total_time_ms", "400\n");
	timed_read(m, &b1, &a1);		/* read 1: 400 */
	tt(0, "package_throttle_total_time_ms", "lots\n");
	throttle_mon_read(m);			/* fails: no read kept */
	tt(0, "package_throttle_total_time_ms", "400\n");
	timed_read(m, &b2, &a2);		/* read 2: 400 */
	tt(0, "package_throttle_total_time_ms", "1000\n");
	timed_read(m, &b3, &a3);		/* read 3: 1000 */
	n = throttle_mon_windows(m, 0, a0, a3, w, 8);
	is_int(n, 3, "three windows after read 0 (the failed read is none)");
	if (n == 3) {
		is_u64(w[0].ms, 300, "window 0->1: 300 ms");
		ok(w[0].from_ns < a0 && w[0].to_ns > b1 && w[0].to_ns < a1,
		   "window 0->1: from read 0 to read 1");
		is_u64(w[1].ms, 0, "window 1->2: 0 ms (across the failed read)");
		ok(w[1].from_ns == w[0].to_ns && w[1].to_ns > b2 && w[1].to_ns < a2,
		   "window 1->2: from read 1 to read 2");
		is_u64(w[2].ms, 600, "window 2->3: 600 ms");
	}
	/* two spans split between reads 1 and 2: each window in one */
	is_int(throttle_mon_windows(m, 0, a0, a1, w, 8), 1, "span to after read 1: one window");
	is_u64(w[0].ms, 300, "... the 300 ms one");
	n = throttle_mon_windows(m, 0, a1, a3, w, 8);
	is_int(n, 2, "span from there: the other two");
	is_u64(w[0].ms + w[1].ms, 600, "... 0 and 600 ms");
	is_int(throttle_mon_windows(m, 0, a0, a3, w, 1), 1, "max 1: one window");
	is_u64(w[0].ms, 300, "... the oldest");
	is_int(throttle_mon_windows(m, 0, a3, a3 + 1000000000, w, 8), 0,
	       "after the newest read: no window");
	is_int(throttle_mon_windows(m, 7, a0, a3, w, 8), -ENOENT, "no socket 7");
	throttle_mon_free(m);
	rmroot();
	m = throttle_mon_new_absent("none");
	is_int(throttle_mon_windows(m, 0, 0, a3, w, 8), -ENOENT, "absent: no package");
	throttle_mon_free(m);
}

int main(void)
{
	log_set_level(LOG_LVL_ERR);
	test_parse();
	test_tree();
	test_windows();
	test_sim();
	return tap_done();
}
