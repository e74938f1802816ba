/*
 * bench_resctrl.c - what a resctrl pass costs uncored per group (issue 31
 * §2, `make bench`; figures in doc/performance.md).
 *
 * For 10, 100 and 1,000 groups (MON groups of the root, two L3 domains
 * each, as on a 2-socket Intel server) on a plain directory tree in /tmp
 * (tmpfs on this VM):
 *  - the reader's pass (rdt_scan: walk, open and parse every value file,
 *    map domains to sockets) and its /metrics rendering (rdt_render);
 *  - the per-cgroup manager (rdt_own_pass): the pass that makes the
 *    groups, the one that moves two threads per cgroup, and a steady pass
 *    with nothing to do (walk the cgroups, read cgroup.threads).
 * Median of the passes, in microseconds per pass and per group.
 *
 * What this does not measure: on hardware every mbm_* read is an IPI to a
 * CPU of the domain (and each llc_occupancy read too), which the kernel
 * spends, not uncored; multiply the files read per pass (3 per group and
 * domain) by that cost for the machine's share.
 * Usage: bench_resctrl [N...]   (default 10 100 1000)
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
#include "base/prom.h"
#include "resctrl/resctrl.h"
#include "resctrl/resctrl_own.h"
#include "resctrl/resctrl_priv.h"

#define PASSES 21

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void put(const char *path, const char *text)
{
	char p[4096];
	FILE *f;

	snprintf(p, sizeof p, "%s", path);
	for (char *s = p + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	if (!(f = fopen(p, "w"))) {
		perror(p);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_d);
	return v[n / 2];
}

/* The files a kernel would give group dir g: mon_data for 2 domains. */
static void group_files(const char *g, unsigned i)
{
	char p[4096], v[32];

	snprintf(p, sizeof p, "%s/tasks", g);
	put(p, "");
	for (unsigned d = 0; d < 2; d++) {
		snprintf(v, sizeof v, "%u\n", 1000000u * (i + 1) + d);
		snprintf(p, sizeof p, "%s/mon_data/mon_L3_%02u/mbm_total_bytes", g, d);
		put(p, v);
		snprintf(p, sizeof p, "%s/mon_data/mon_L3_%02u/mbm_local_bytes", g, d);
		put(p, v);
		snprintf(p, sizeof p, "%s/mon_data/mon_L3_%02u/llc_occupancy", g, d);
		put(p, "65536\n");
	}
}

/* sysfs: 2 CPUs, one per socket, each with its L3 id. */
static void cpus(const char *sys)
{
	char p[4096];

	for (unsigned c = 0; c < 2; c++) {
		snprintf(p, sizeof p, "%s/devices/system/cpu/cpu%u/topology/physical_package_id", sys, c);
		put(p, c ? "1\n" : "0\n");
		snprintf(p, sizeof p, "%s/devices/system/cpu/cpu%u/cache/index0/level", sys, c);
		put(p, "3\n");
		snprintf(p, sizeof p, "%s/devices/system/cpu/cpu%u/cache/index0/id", sys, c);
		put(p, c ? "1\n" : "0\n");
	}
}

static void reader(const char *top, unsigned n)
{
	char root[1024], sys[1024], g[4096];
	double scan[PASSES], render[PASSES];
	struct buf b = BUF_INIT;
	size_t bytes = 0;

	snprintf(root, sizeof root, "%s/r%u/resctrl", top, n);
	snprintf(sys, sizeof sys, "%s/r%u/sys", top, n);
	cpus(sys);
	snprintf(g, sizeof g, "%s/info/L3_MON/num_rmids", root);
	put(g, "4096\n");
	group_files(root, 0);	/* the root group */
	for (unsigned i = 0; i < n; i++) {
		snprintf(g, sizeof g, "%s/mon_groups/g%u", root, i);
		group_files(g, i + 1);
	}
	for (int k = 0; k < PASSES; k++) {
		struct rdt_snap sn = { 0 };
		struct rdt_stats st = { 0 };
		struct prom w;
		double t0 = now_us(), t1, t2;

		int r = rdt_scan(root, sys, &sn);

		if (r < 0) {
			fprintf(stderr, "rdt_scan: %s\n", strerror(-r));
			exit(1);
		}
		t1 = now_us();
		buf_reset(&b);
		prom_begin(&w, &b, PROM_TEXT_004);
		rdt_count(&st, &sn);
		rdt_render(&w, &sn, &st);
		prom_end(&w);
		t2 = now_us();
		bytes = b.len;
		scan[k] = t1 - t0;
		render[k] = t2 - t1;
		rdt_snap_free(&sn);
	}
	double ms = median(scan, PASSES), mr = median(render, PASSES);
	printf("reader   %5u groups (+ root) x 2 domains: pass %9.0f us (%6.2f us/group, "
	       "%5.2f us/file), render %7.0f us (%5.2f us/group, %zu bytes)\n",
	       n, ms, ms / (n + 1), ms / ((n + 1) * 6.0), mr, mr / (n + 1), bytes);
	buf_free(&b);
}

/* The kernel's side after a pass made directories: their files. */
static void kernel_sync(const char *root)
{
	char cmd[8192];

	snprintf(cmd, sizeof cmd, "for d in %s/mon_groups/uncored-*; do "
		 "[ -e \"$d/tasks\" ] || { : >\"$d/tasks\"; mkdir -p \"$d/mon_data/mon_L3_00\"; }; done",
		 root);
	if (system(cmd) != 0)
		exit(1);
}

static void manager(const char *top, unsigned n)
{
	char cg[1024], root[1024], p[4096];
	double steady[PASSES], t0, make_us, move_us;

	snprintf(cg, sizeof cg, "%s/m%u/cgroup", top, n);
	snprintf(root, sizeof root, "%s/m%u/resctrl", top, n);
	snprintf(p, sizeof p, "%s/mon_groups/.keep", root);
	put(p, "");
	for (unsigned i = 0; i < n; i++) {
		char t[64];

		snprintf(p, sizeof p, "%s/system.slice/s%u.service/cgroup.threads", cg, i);
		snprintf(t, sizeof t, "%u\n%u\n", 10000 + 2 * i, 10001 + 2 * i);
		put(p, t);
		/* a sibling no pattern matches: walked, not grouped */
		snprintf(p, sizeof p, "%s/user.slice/u%u.scope/cgroup.threads", cg, i);
		put(p, "1\n");
	}
	struct rdt_own_cfg c = { .patterns = "system.slice/*.service",
		.cgroup_root = cg, .resctrl_root = root, .max_groups = 4096 };
	/* the writer every daemon uses, with its checks (a plain tree:
	 * simulated, threads from the cgroup tree) */
	struct rdt_writer_cfg wc = { .resctrl_root = root, .cgroup_root = cg,
		.patterns = c.patterns, .max_groups = 4096, .simulated = true };
	char why[512];
	struct rdt_own *o = rdt_own_new(&c, rdt_writer_open(&wc, why, sizeof why));

	if (!o)
		exit(1);
	t0 = now_us();
	if (rdt_own_pass(o) != (int)n)
		exit(1);
	make_us = now_us() - t0;
	kernel_sync(root);
	t0 = now_us();
	rdt_own_pass(o);	/* grouped: two threads each moved */
	move_us = now_us() - t0;
	for (int k = 0; k < PASSES; k++) {
		t0 = now_us();
		rdt_own_pass(o);
		steady[k] = now_us() - t0;
	}
	double ms = median(steady, PASSES);
	printf("manager  %5u cgroups (+ %u unmatched): mkdir pass %9.0f us (%6.2f us/group), "
	       "move pass %9.0f us (%6.2f us/group, 2 threads), steady %9.0f us (%6.2f us/group)\n",
	       n, n, make_us, make_us / n, move_us, move_us / n, ms, ms / n);
	rdt_own_free(o);
}

int main(int argc, char **argv)
{
	unsigned def[] = { 10, 100, 1000 }, *ns = def, nn = 3;
	char top[] = "/tmp/bench_resctrl.XXXXXX", cmd[256];

	if (argc > 1) {
		ns = calloc((size_t)argc, sizeof *ns);
		nn = 0;
		for (int i = 1; i < argc; i++)
			ns[nn++] = (unsigned)strtoul(argv[i], NULL, 10);
	}
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		return 1;
	}
	printf("# resctrl per pass, median of %d, on a plain tree in /tmp (no IPI: "
	       "see doc/performance.md)\n", PASSES);
	for (unsigned i = 0; i < nn; i++)
		reader(top, ns[i]);
	for (unsigned i = 0; i < nn; i++)
		manager(top, ns[i]);
	snprintf(cmd, sizeof cmd, "rm -rf %s", top);
	return system(cmd) == 0 ? 0 : 1;
}
