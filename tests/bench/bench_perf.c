/*
 * bench_perf.c - the cost of one sampler tick in perf mode on the
 * simulated kernel: a platform's baseline on 1 to 8 sockets (issue 22:
 * the tick cost per counter must stay flat), and what a tick asks of the
 * kernel (issue 21: one read(2) per group and nothing else).
 *
 *   bench_perf PLATFORM SOCKETS [sim|null] [TICKS] [KEY=COUNT ...]
 *   bench_perf --workload PLATFORM SOCKETS [KEY=COUNT ...]
 *
 * KEY=COUNT are the workload's topology keys ("cha_count=60",
 * "imc_channels=8"); every other box count is the simulator's default
 * (the largest the platform table allows).  "sim" (default) runs the
 * simulated kernel behind every system call, as `--simulate=P
 * --backend=perf` does; "null" opens the groups on it and then answers
 * every read(2) with the group's first reading at once, so what is timed
 * is the daemon's own per-tick work (the reads' bookkeeping, the virtual
 * counters, extension, publication), not the simulated kernel's.  The
 * system calls are counted by a wrapper around the kernel's ops, outside
 * the code under test, and checked against pmu_perf_stats().  The
 * sampler ticks synchronously (sampler_tick()), no claims, no control
 * read-backs.  Prints one line: platform, sockets, counters, groups,
 * read(2) and system calls per tick, microseconds of CPU time per tick
 * and per counter (the median of three batches of TICKS).  With --workload it
 * prints the workload it would run instead (for the daemon: perf_scale.sh).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/hw_sim.h"
#include "hw/perf_event.h"
#include "base/log.h"
#include "pmu/pmu_perf.h"
#include "core/sampler.h"
#include "sim/sim_kernel.h"

#define MAX_FD 65536u

static struct {
	unsigned long open, read, ioctl, close;
} sc;
static bool null_mode;
/* null mode: each group's first reading, replayed */
static struct {
	uint64_t *buf;
	long len;
} cache[MAX_FD];

static int sc_open(void *ctx, struct perf_event_attr *a, int pid, int cpu,
		   int group, unsigned long flags)
{
	sc.open++;
	return skern_pev_ops.open(ctx, a, pid, cpu, group, flags);
}

static long sc_read(void *ctx, int fd, void *buf, size_t len)
{
	unsigned i = (unsigned)(fd - SKERN_FD_BASE) % MAX_FD;
	long r;

	sc.read++;
	if (null_mode && cache[i].buf && (size_t)cache[i].len <= len) {
		memcpy(buf, cache[i].buf, (size_t)cache[i].len);
		return cache[i].len;
	}
	r = skern_pev_ops.read(ctx, fd, buf, len);
	if (null_mode && r > 0 && (cache[i].buf = malloc((size_t)r))) {
		memcpy(cache[i].buf, buf, (size_t)r);
		cache[i].len = r;
	}
	return r;
}

static int sc_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
	sc.ioctl++;
	return skern_pev_ops.ioctl(ctx, fd, req, arg);
}

static int sc_close(void *ctx, int fd)
{
	sc.close++;
	return skern_pev_ops.close(ctx, fd);
}

static const struct pev_ops counted_ops = {
	"counted simulated kernel", sc_open, sc_read, sc_ioctl, sc_close,
};

static unsigned long sc_total(void)
{
	return sc.open + sc.read + sc.ioctl + sc.close;
}

/* This thread's CPU time: the ticks run synchronously here, and on a
 * shared machine the wall clock would count other processes' turns. */
static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Writes the workload: platform, sockets, the KEY=COUNT topology keys, a
 * rate for every baseline event (so the simulated kernel has work). */
static int write_workload(const char *path, const struct platform *p,
			  unsigned sockets, char **keys, int nkeys)
{
	FILE *f = fopen(path, "w");
	char why[256], keys_seen[4096] = "";
	bool first = true;

	if (!f)
		return -errno;
	fprintf(f, "{\"platform\":\"%s\",\"sockets\":%u", p->id, sockets);
	for (int i = 0; i < nkeys; i++) {
		char *eq = strchr(keys[i], '=');

		if (eq)
			fprintf(f, ",\"%.*s\":%s", (int)(eq - keys[i]), keys[i],
				eq + 1);
	}
	fprintf(f, ",\"phases\":[{\"seconds\":600,\"rates\":{");
	for (const char *const *b = p->baseline; *b; b++) {
		struct evspec e;
		const struct unit_type *u;
		char key[128];

		if (sched_resolve(p, *b, false, &e, why, sizeof(why)) < 0)
			continue;
		u = p->units[e.unit];
		if (u->kind == UNIT_FIXED)
			continue;
		if (u->kind == UNIT_FREERUN)
			snprintf(key, sizeof(key), "%s:%s", u->name,
				 u->freerun[e.freerun].name);
		else
			snprintf(key, sizeof(key), "%s:0x%x:0x%llx", u->name,
				 e.enc.code, (unsigned long long)e.enc.umask);
		if (strstr(keys_seen, key))	/* same encoding, other filter */
			continue;
		snprintf(keys_seen + strlen(keys_seen),
			 sizeof(keys_seen) - strlen(keys_seen), "\"%s\"", key);
		fprintf(f, "%s\"%s\":1e7", first ? "" : ",", key);
		first = false;
	}
	fprintf(f, "}}]}\n");
	return fclose(f) ? -errno : 0;
}

/* The platform's baseline that this kernel can count; the count. */
static unsigned baseline(const struct pmu *pmu, struct evspec *ev)
{
	unsigned n = 0;
	char why[256];

	for (const char *const *b = pmu->plat->baseline; *b; b++)
		if (sched_resolve(pmu->plat, *b, false, &ev[n], why,
				  sizeof(why)) == 0 &&
		    pmu_reachable(pmu, &ev[n], why, sizeof(why)) == 0)
			n++;
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Times TICKS ticks three times; the median microseconds per tick, and
 * the system calls, reads and stats of the whole. */
static double run(struct sampler *s, struct pmu *pmu, unsigned ticks,
		  unsigned long *syscalls, unsigned long *reads,
		  struct pmu_perf_stats *d)
{
	struct pmu_perf_stats st0, st1;
	unsigned long c0 = sc_total(), r0 = sc.read;
	double t[3];

	pmu_perf_stats(pmu->perf, &st0);
	for (unsigned k = 0; k < 3; k++) {
		double t0 = now_us();

		for (unsigned i = 0; i < ticks; i++)
			sampler_tick(s);
		t[k] = (now_us() - t0) / ticks;
	}
	pmu_perf_stats(pmu->perf, &st1);
	*syscalls = sc_total() - c0;
	*reads = sc.read - r0;
	d->reads = st1.reads - st0.reads;
	d->syscalls = st1.syscalls - st0.syscalls;
	d->groups = st1.groups;
	qsort(t, 3, sizeof(t[0]), cmp_double);
	return t[1];
}

/* Opens the simulated machine of platform p and the perf backend over
 * it; 0 or 1 with a message. */
static int open_world(const struct platform *p, unsigned sockets,
		      char **keys, int nkeys, struct hw *hw,
		      struct skern **k, struct topology *t, struct pmu *pmu)
{
	char path[] = "/tmp/bench_perf_XXXXXX", why[1024];
	struct hw_opts o = { .sim_no_registers = true };
	struct pmu_perf_opts po = { .ops = &counted_ops };
	struct pmu_perf *pp;
	int fd = mkstemp(path);

	if (fd < 0 || (close(fd), write_workload(path, p, sockets, keys,
						 nkeys)) < 0) {
		fprintf(stderr, "bench_perf: cannot write %s\n", path);
		return 1;
	}
	o.sim_workload = path;
	if (hw_open(hw, &hw_sim_ops, &o) < 0) {
		fprintf(stderr, "bench_perf: %s\n", hw_last_error());
		unlink(path);
		return 1;
	}
	unlink(path);
	if (skern_open(k, hw, NULL, why, sizeof(why)) < 0)
		goto fail;
	po.sysfs = skern_sysfs(*k);
	po.ctx = *k;
	if (pmu_perf_discover(p, &po, t, &pp, why, sizeof(why)) < 0)
		goto fail;
	if (pmu_init_perf(pmu, hw, t, pp) < 0) {
		snprintf(why, sizeof(why), "%s", hw_last_error());
		goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "bench_perf: %s\n", why);
	return 1;
}

int main(int argc, char **argv)
{
	const struct platform *plat = argc > 1 ? plat_by_id(argv[1]) : NULL;
	unsigned sockets = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
	unsigned ticks = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
	struct sampler_cfg cfg = { .interval_ms = 1000, .ring_capacity = 64,
				   .check_every = 0 };
	struct evspec ev[SAMPLER_MAX_EVENTS];
	struct pmu_perf_stats d;
	unsigned long calls, reads;
	struct hw hw;
	struct skern *k = NULL;
	struct topology t;
	struct pmu pmu;
	struct program *p;
	struct sampler *s;
	char why[256];
	unsigned nev;
	double us;

	if (argc > 3 && strcmp(argv[1], "--workload") == 0)
		return (plat = plat_by_id(argv[2])) &&
		       write_workload("/dev/stdout", plat,
				      (unsigned)atoi(argv[3]), argv + 4,
				      argc - 4) == 0 ? 0 : 2;
	null_mode = argc > 3 && strcmp(argv[3], "null") == 0;
	if (!plat || sockets < 1 || sockets > PLAT_MAX_SOCKETS) {
		fprintf(stderr, "usage: bench_perf PLATFORM SOCKETS [sim|null] "
			"[TICKS] [KEY=COUNT ...]\n");
		return 2;
	}
	log_init("bench_perf", LOG_LVL_ERR);
	if (open_world(plat, sockets, argv + 5, argc > 5 ? argc - 5 : 0, &hw,
		       &k, &t, &pmu))
		return 1;
	nev = baseline(&pmu, ev);
	p = program_new(&t, &pmu, ev, nev, cfg.ring_capacity, cfg.interval_ms,
			why, sizeof(why));
	if (!p || !(s = sampler_new(&pmu, p, &cfg, NULL))) {
		fprintf(stderr, "bench_perf: %s\n", p ? "out of memory" : why);
		return 1;
	}
	for (unsigned i = 0; i < 3; i++)	/* program, first reads */
		sampler_tick(s);
	p = sampler_get(s);
	if (!ticks)
		ticks = 20000 / p->ns + 1;
	us = run(s, &pmu, ticks, &calls, &reads, &d);
	printf("%s %u socket%s (perf, %s): %u counters in %lu groups; per "
	       "tick %.2f read(2), %.2f system calls (pmu_perf_stats: %.2f "
	       "reads, %.2f calls); tick %.1f us, %.3f us per counter\n",
	       plat->id, sockets, sockets == 1 ? "" : "s", null_mode ?
	       "daemon only" : "simulated kernel", p->ns,
	       (unsigned long)d.groups, (double)reads / (3 * ticks),
	       (double)calls / (3 * ticks), (double)d.reads / (3 * ticks),
	       (double)d.syscalls / (3 * ticks), us, us / p->ns);
	program_put(p);
	sampler_free(s);
	pmu_release(&pmu);
	pmu_free(&pmu);
	skern_close(k);
	hw_close(&hw);
	return 0;
}
