/*
 * bench_perf_msr.c - uncored's perf backend on the real kernel: the real
 * sampler counting the kernel's msr PMU (tests/perf_msr.h: free-running
 * per-CPU counters, no cpumask, so one group per online CPU) through
 * perf_event_open(2) on /sys, for SECONDS at INTERVAL_MS, as the daemon
 * would on a machine whose uncore it supports.  This machine's CPU need
 * not be a supported platform: the platform table is the benchmark's.
 *
 *   bench_perf_msr [SECONDS [INTERVAL_MS [ALIAS ...]]]
 *
 * ALIAS are events/ names of the msr PMU (default: those of tsc, aperf,
 * mperf the kernel offers).  Prints the process's CPU time (getrusage:
 * set-up included, as a whole-process figure), the ticks, groups, group
 * reads and system calls per tick (pmu_perf_stats), and each counter's
 * rate per CPU (the TSC's is the TSC frequency).  Exits 77 with a message
 * where the kernel does not let this process count system-wide
 * (perf_event_paranoid, CAP_PERFMON) or has no msr PMU.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "hw/perf_event.h"
#include "base/log.h"
#include "pmu/pmu_perf.h"
#include "base/ring.h"
#include "core/sampler.h"
#include "tests/perf_msr.h"

#define SKIP 77

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s,
			       .tv_nsec = (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The catalog event of the msr counter whose kernel event is alias. */
static const char *event_of(const char *alias)
{
	for (unsigned i = 0; i < msr_unit.nfreerun; i++)
		if (strcmp(msr_ctrs[i].perf_event, alias) == 0)
			return msr_ctrs[i].name;
	return NULL;
}

/* The events to count: the aliases given, else tsc/aperf/mperf where the
 * kernel has them.  The count, or -1 with a message. */
static int events(const struct pmu *pmu, char **alias, int nalias,
		  struct evspec *ev)
{
	static const char *const dflt[] = { "tsc", "aperf", "mperf" };
	char why[256];
	int n = 0;

	for (int i = 0; i < (nalias ? nalias : 3); i++) {
		const char *a = nalias ? alias[i] : dflt[i];
		const char *name = event_of(a);

		if (!nalias && !msr_present("/sys", a)) {
			printf("# msr/%s/: not offered by this kernel/CPU\n", a);
			continue;
		}
		if (!name || sched_resolve(pmu->plat, name, false, &ev[n], why,
					   sizeof(why)) < 0 ||
		    pmu_reachable(pmu, &ev[n], why, sizeof(why)) < 0) {
			fprintf(stderr, "bench_perf_msr: msr/%s/: %s\n", a,
				name ? why : "not in the table");
			return -1;
		}
		n++;
	}
	return n;
}

/* The perf backend over the real kernel's msr PMU; 0, SKIP or 1. */
static int open_msr(struct pmu *pmu, struct topology *t, struct hw *hw)
{
	struct pmu_perf_opts po = { .sysfs = "/sys" };
	struct pmu_perf *pp;
	char why[1024];
	int r = pev_access("/proc", why, sizeof(why));

	if (r < 0) {
		printf("SKIP: the kernel does not let this process count "
		       "system-wide: %s\n", why);
		return SKIP;
	}
	r = pmu_perf_discover(&plat_msr_bench, &po, t, &pp, why, sizeof(why));
	if (r < 0) {
		printf("SKIP: no msr PMU: %s\n", why);
		return SKIP;
	}
	if (pmu_init_perf(pmu, hw, t, pp) < 0) {
		fprintf(stderr, "bench_perf_msr: %s\n", hw_last_error());
		return 1;
	}
	return 0;
}

/* Prints each series' rate over the last sample's interval; returns the
 * ticks the sampler made (from its last snapshot; 0 if none). */
static uint64_t report_series(const struct program *p)
{
	uint64_t *w = calloc(snap_words(p->ns, p->nvals), sizeof(*w));
	uint64_t *smp = calloc(sample_words(p->ns), sizeof(*smp));
	struct snap sn = { 0 };

	if (w && ring_latest(p->snaps, w))
		memcpy(&sn, w, sizeof(sn));
	if (smp && ring_latest(p->samples, smp) && smp[SW_INTERVAL_NS])
		for (unsigned i = 0; i < p->ns; i++)
			printf("# socket %u %s: %.6g per second over the last "
			       "interval (the sum over its CPUs)\n",
			       p->slot[i].socket, p->ev[p->sev[i]].name,
			       (double)smp[SW_HDR + i] * 1e9 /
			       (double)smp[SW_INTERVAL_NS]);
	free(w);
	free(smp);
	return sn.ticks;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 60;
	unsigned ms = argc > 2 ? (unsigned)atoi(argv[2]) : 100;
	struct sampler_cfg cfg = { .interval_ms = ms, .ring_capacity = 64,
				   .check_every = 0 };
	struct evspec ev[SAMPLER_MAX_EVENTS];
	struct pmu_perf_stats st;
	struct hw hw = { 0 };
	struct topology t;
	struct pmu pmu;
	struct program *p;
	struct sampler *s;
	struct rusage ru;
	char why[256];
	double t0, t1, cpu;
	uint64_t ticks;
	unsigned ns;
	int n, r;

	log_init("bench_perf_msr", LOG_LVL_ERR);
	if ((r = open_msr(&pmu, &t, &hw)))
		return r;
	if ((n = events(&pmu, argv + 3, argc > 3 ? argc - 3 : 0, ev)) <= 0)
		return n < 0 ? 1 : SKIP;
	p = program_new(&t, &pmu, ev, (unsigned)n, cfg.ring_capacity, ms, why,
			sizeof(why));
	if (!p || !(s = sampler_new(&pmu, p, &cfg, NULL))) {
		fprintf(stderr, "bench_perf_msr: %s\n", p ? "no memory" : why);
		return 1;
	}
	ns = p->ns;
	t0 = now_s();
	if ((r = sampler_start(s)) < 0) {
		fprintf(stderr, "bench_perf_msr: sampler: %s\n", strerror(-r));
		return 1;
	}
	nap(secs);
	sampler_stop(s);
	t1 = now_s();
	pmu_perf_stats(pmu.perf, &st);
	p = sampler_get(s);	/* NULL before the first tick */
	ticks = p ? report_series(p) : 0;
	getrusage(RUSAGE_SELF, &ru);
	cpu = tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
	printf("uncored perf backend, msr PMU: %u series, %lu groups, %.1f s "
	       "at %u ms: %" PRIu64 " ticks, %lu group reads (%.2f a tick), "
	       "%lu perf system calls in all, %.2f moves to a group's CPU a "
	       "tick; CPU %.3f s (user %.3f, system %.3f), %.1f us a tick\n",
	       ns, (unsigned long)st.groups,
	       t1 - t0, ms, ticks, (unsigned long)st.reads,
	       ticks ? (double)st.reads / (double)ticks : 0.0,
	       (unsigned long)st.syscalls,
	       ticks ? (double)st.moves / (double)ticks : 0.0,
	       cpu, tv_s(ru.ru_utime),
	       tv_s(ru.ru_stime), ticks ? cpu * 1e6 / (double)ticks : 0.0);
	printf("other CPUs' groups read %s; last trial: %.1f us a tick "
	       "reading them from the home CPU, %.1f us visiting them "
	       "(the sampling thread's CPU time)\n",
	       st.visiting ? "by visiting their CPUs" : "from the home CPU",
	       (double)st.trial_ns[PP_FROM_HERE] / 1e3 / PP_VISIT_TRIAL,
	       (double)st.trial_ns[PP_VISIT] / 1e3 / PP_VISIT_TRIAL);
	if (p)
		program_put(p);
	sampler_free(s);
	pmu_release(&pmu);
	pmu_free(&pmu);
	return 0;
}
