/*
 * bench_sched.c - the cost of multiplexing claims.
 *
 *   bench_sched N           placement only: sched_select() over the
 *                           baseline and N claims drawn from the skl
 *                           catalog, as the sampler runs it once a tick
 *   bench_sched --claims N...  for each N: placement, and the whole
 *                           sampler tick (freeze, read, place, program,
 *                           unfreeze, publish) with N live claims on the
 *                           simulator (skl, built-in workload), its clock
 *                           moved 100 ms a tick
 *
 * Prints microseconds per call (wall time, CLOCK_MONOTONIC).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/claims.h"
#include "sim/hw_sim.h"
#include "base/log.h"
#include "plat/plat.h"
#include "core/sampler.h"
#include "pmu/sched.h"

static double us_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((double)(b.tv_sec - a->tv_sec) * 1e9 +
		(double)(b.tv_nsec - a->tv_nsec)) / 1e3;
}

/* The programmable catalog event k (round robin), as a name. */
static const char *prog_event(const struct platform *p, unsigned *k,
			      int unit)
{
	for (;;) {
		const struct event *c = &p->events[(*k)++ % p->nevents];

		if (c->ctr_mask &&
		    (unit < 0 || strcmp(c->unit, p->units[unit]->name) == 0))
			return c->name;
	}
}

/* Mean wall time (us) of a sampler tick with n live claims. */
static double tick_us(unsigned n, unsigned *admitted)
{
	struct clock_manual fake;
	struct hw_opts o = { .sim_platform = "skl" };
	struct claims_cfg ccfg = { .max_per_uid = 10000, .max_total = 10000,
				   .default_ttl_s = 3600, .max_ttl_s = 3600,
				   .interval_ms = 100 };
	struct sampler_cfg cfg = { .interval_ms = 100, .ring_capacity = 64,
				   .check_every = 10, .policy = POLICY_RECLAIM };
	struct evspec ev[SAMPLER_MAX_EVENTS];
	struct topology topo = { 0 };
	struct program *prog;
	struct sampler *s;
	struct claims *cl;
	struct timespec a;
	struct pmu pmu;
	struct hw hw;
	unsigned nev = 0, k = 0, iters = n >= 1000 ? 200 : 1000;
	char why[256];
	double us;

	*admitted = 0;
	clock_manual_init(&fake, 1000000000000);
	if (hw_open(&hw, &hw_sim_ops, &o) < 0)
		return -1;
	hw_sim_set_clock(&hw, fake.src.mono_ns, fake.src.ctx);
	topo.plat = hw_sim_platform(&hw);
	if (plat_discover(topo.plat, &hw, &topo, &(struct hw_cpu_map){
				  .cpus_per_package = SIM_CPUS_PER_SOCKET }) < 0)
		return -1;
	if (pmu_init(&pmu, &hw, &topo) < 0)
		return -1;
	for (const char *const *b = topo.plat->baseline; *b; b++)
		if (sched_resolve(topo.plat, *b, false, &ev[nev], why,
				  sizeof(why)) == 0)
			nev++;
	prog = program_new(&topo, &pmu, ev, nev, 64, 100, why, sizeof(why));
	cl = claims_new(&pmu, &ccfg);
	s = prog && cl ? sampler_new(&pmu, prog, &cfg, cl) : NULL;
	if (!s)
		return -1;
	claims_set_clock(cl, &fake.src);
	sampler_set_clock(s, &fake.src);
	for (unsigned i = 0; i < n; i++) {
		struct claim_req rq = { .nev = 1 + i % 2 };
		struct claims_err e;
		struct claim c;

		rq.events[0] = prog_event(topo.plat, &k, -1);
		if (rq.nev == 2) {
			struct evspec first;

			sched_resolve(topo.plat, rq.events[0], false, &first,
				      why, sizeof(why));
			rq.events[1] = prog_event(topo.plat, &k, first.unit);
			if (strcmp(rq.events[1], rq.events[0]) == 0)
				rq.nev = 1;
		}
		if (claims_create(cl, 0, 1, &rq, &c, &e) == 0) {
			(*admitted)++;
			claim_clear(&c);
		}
	}
	for (unsigned t = 0; t < 20; t++) {	/* warm up: place everyone */
		sampler_tick(s);
		clock_manual_advance(&fake, 100000000);
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned t = 0; t < iters; t++) {
		sampler_tick(s);
		clock_manual_advance(&fake, 100000000);
	}
	us = us_since(&a) / iters;
	sampler_free(s);
	claims_free(cl);
	pmu_release(&pmu);
	pmu_free(&pmu);
	hw_close(&hw);
	return us;
}

/* Mean wall time (us) of sched_select() over the baseline and n claims;
 * the groups run per tick in *ran. */
static double placement_us(unsigned n, double *ran)
{
	const struct platform *p = plat_by_id("skl");
	unsigned iters = n >= 1000 ? 2000 : 20000;
	struct sched_group *g = calloc(n + 1, sizeof(*g)), **v = calloc(n + 1, sizeof(*v));
	struct evspec *ev = calloc((n + 1) * 2, sizeof(*ev));
	const char *base[] = { "UNC_CBO_CACHE_LOOKUP.ANY_MESI", "UNC_CBO_CACHE_LOOKUP.ANY_I" };
	struct sched_ws ws = { 0 };
	struct timespec a;
	char why[128];
	unsigned k = 0, picked = 0;
	double us;

	if (!p || !g || !v || !ev)
		return -1;
	for (unsigned i = 0; i <= n; i++) {
		unsigned ne = i == 0 ? 2 : 1 + i % 2;

		for (unsigned e = 0; e < ne; e++) {
			const char *name = i == 0 ? base[e] : NULL;

			/* claims: programmable catalog events, round
			 * robin; a second event on the first one's unit */
			if (!name)
				name = prog_event(p, &k, e ? ev[i * 2].unit : -1);
			sched_resolve(p, name, false, &ev[i * 2 + e], why, sizeof(why));
		}
		g[i] = (struct sched_group){ .ev = &ev[i * 2], .nev = ne,
					     .fixed = i == 0, .order = i };
		for (unsigned e = 0; e < SCHED_MAX_EVENTS; e++)
			g[i].ctr[e] = i == 0 && e < 2 ? (int)e : -1;
		v[i] = &g[i];
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned t = 0; t < iters; t++) {
		picked += sched_select(p, v, n + 1, &ws);
		for (unsigned i = 0; i <= n; i++) {
			g[i].enabled++;
			g[i].running += g[i].selected;
		}
	}
	us = us_since(&a) / iters;
	*ran = (double)picked / iters;
	free(g);
	free(v);
	free(ev);
	sched_ws_free(&ws);
	return us;
}

int main(int argc, char **argv)
{
	double ran, us;

	if (argc > 1 && strcmp(argv[1], "--claims") == 0) {
		log_set_level(LOG_LVL_WARN);	/* not a line per claim */
		printf("claims  placement us  groups run  tick us  (skl sim, "
		       "100 ms ticks)\n");
		for (int i = 2; i < argc; i++) {
			unsigned n = (unsigned)atoi(argv[i]), adm;
			double t;

			us = placement_us(n, &ran);
			t = tick_us(n, &adm);
			printf("%6u  %12.2f  %10.1f  %7.1f%s\n", n, us, ran, t,
			       adm == n ? "" : "  (claims refused)");
		}
		return 0;
	}
	us = placement_us(argc > 1 ? (unsigned)atoi(argv[1]) : 50, &ran);
	if (us < 0)
		return 1;
	printf("placement (sched_select) with the baseline + %u claims: %.2f "
	       "us per tick, %.1f groups run per tick\n",
	       argc > 1 ? (unsigned)atoi(argv[1]) : 50, us, ran);
	return 0;
}
