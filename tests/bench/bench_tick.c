/*
 * bench_tick.c - the cost of one sampler tick on the simulated hsx with
 * 1 to 8 sockets and every box present: the baseline program, ticked
 * synchronously (sampler_tick()), no claims.
 *
 *   bench_tick SOCKETS [sim|null] [TICKS]
 *
 * "sim" (default) runs the register-accurate simulator behind every
 * access, as the daemon does with --simulate; "null" discovers on the
 * simulator and then answers every access at once (a register reads
 * what was last written to it, else 0), so what is timed is the
 * daemon's own per-tick work (freeze, read-back of the counting
 * controls, reads, placement, programming, accounting, publication), not
 * the simulator's.  The periodic full read-back (check_every) is off in
 * both modes.  Prints
 * one line: sockets, counters, accesses per tick, microseconds per tick
 * and per counter.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/hw_sim.h"
#include "base/log.h"
#include "core/sampler.h"

/* "null": what was written reads back (the sampler reads back the
 * controls of its counters every tick), everything else reads 0.  An
 * open-addressing table of the addresses written. */
#define NULL_SLOTS (1u << 16)
static struct { struct hw_addr a; uint64_t v; bool used; } null_mem[NULL_SLOTS];

static bool same_addr(const struct hw_addr *x, const struct hw_addr *y)
{
	return x->space == y->space && x->cpu == y->cpu && x->bus == y->bus &&
	       x->dev == y->dev && x->fn == y->fn && x->reg == y->reg &&
	       x->domain == y->domain;
}

static unsigned null_slot(const struct hw_addr *a)
{
	uint64_t h = a->reg * 0x9e3779b97f4a7c15ull ^
		     ((uint64_t)a->cpu << 32 | (uint64_t)a->bus << 16 |
		      (uint64_t)a->dev << 8 | a->fn) * 0xff51afd7ed558ccdull;
	unsigned i = (unsigned)(h >> 48) % NULL_SLOTS;

	while (null_mem[i].used && !same_addr(&null_mem[i].a, a))
		i = (i + 1) % NULL_SLOTS;
	return i;
}

static int null_read(struct hw *hw, const struct hw_addr *a, uint64_t *v)
{
	unsigned i = null_slot(a);

	(void)hw;
	*v = null_mem[i].used ? null_mem[i].v : 0;
	return 0;
}

static int null_write(struct hw *hw, const struct hw_addr *a, uint64_t v)
{
	unsigned i = null_slot(a);

	(void)hw;
	null_mem[i].a = *a;
	null_mem[i].v = v;
	null_mem[i].used = true;
	return 0;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	unsigned sockets = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
	bool null = argc > 2 && strcmp(argv[2], "null") == 0;
	unsigned ticks = argc > 3 ? (unsigned)atoi(argv[3]) : 2000 / sockets;
	char path[] = "/tmp/bench_tick_XXXXXX", why[256];
	struct sampler_cfg cfg = { .interval_ms = 1000, .ring_capacity = 64,
				   .check_every = 0 };
	struct hw_ops ops;
	struct hw_opts o = { 0 };
	struct hw hw;
	struct topology topo;
	struct pmu pmu;
	struct evspec ev[SAMPLER_MAX_EVENTS];
	struct program *p;
	struct sampler *s;
	unsigned nev = 0;
	uint64_t r0, w0;
	double t0, t1;
	FILE *f;
	int fd;

	if (sockets < 1 || sockets > PLAT_MAX_SOCKETS || ticks < 1 ||
	    (fd = mkstemp(path)) < 0 || !(f = fdopen(fd, "w")))
		return 2;
	/* every box at the largest configuration the manual allows */
	fprintf(f, "{\"platform\":\"hsx\",\"sockets\":%u,\"phases\":[{"
		"\"seconds\":60,\"rates\":{\"cbo:0x34:0x11\":1e8}}]}\n", sockets);
	fclose(f);
	log_init("bench_tick", LOG_LVL_ERR);
	o.sim_workload = path;
	memset(&topo, 0, sizeof(topo));
	if (hw_open(&hw, &hw_sim_ops, &o) < 0) {
		fprintf(stderr, "bench_tick: %s\n", hw_last_error());
		return 1;
	}
	unlink(path);
	topo.plat = hw_sim_platform(&hw);
	if (plat_discover(topo.plat, &hw, &topo, &(struct hw_cpu_map){
			  .cpus_per_package = SIM_CPUS_PER_SOCKET }) < 0) {
		fprintf(stderr, "bench_tick: %s\n", hw_last_error());
		return 1;
	}
	(void)pmu_init(&pmu, &hw, &topo);
	for (const char *const *b = topo.plat->baseline; *b; b++)
		if (sched_resolve(topo.plat, *b, false, &ev[nev++], why,
				  sizeof(why)) < 0) {
			fprintf(stderr, "bench_tick: %s\n", why);
			return 1;
		}
	p = program_new(&topo, &pmu, ev, nev, cfg.ring_capacity,
			cfg.interval_ms, why, sizeof(why));
	if (!p) {
		fprintf(stderr, "bench_tick: %s\n", why);
		return 1;
	}
	if (null) {
		ops = *hw.ops;
		ops.read = null_read;
		ops.write = null_write;
		hw.ops = &ops;
	}
	s = sampler_new(&pmu, p, &cfg, NULL);
	if (!s)
		return 1;
	pmu_reset_boxes(&pmu);
	for (unsigned i = 0; i < 3; i++)	/* program, first reads */
		sampler_tick(s);
	r0 = atomic_load(&hw.nreads);
	w0 = atomic_load(&hw.nwrites);
	t0 = now_us();
	for (unsigned i = 0; i < ticks; i++)
		sampler_tick(s);
	t1 = now_us();
	p = sampler_get(s);
	printf("hsx %u socket%s (%s): %u counters; per tick %.1f reads, "
	       "%.1f writes; tick %.1f us, %.3f us per counter\n", sockets,
	       sockets == 1 ? "" : "s", null ? "daemon only" : "sim backend",
	       p->ns, (double)(atomic_load(&hw.nreads) - r0) / ticks,
	       (double)(atomic_load(&hw.nwrites) - w0) / ticks,
	       (t1 - t0) / ticks, (t1 - t0) / ticks / p->ns);
	program_put(p);
	sampler_free(s);
	if (null)
		hw.ops = &hw_sim_ops;
	pmu_release(&pmu);
#ifdef PMU_NO_REG
	pmu_free(&pmu);
#endif
	hw_close(&hw);
	return 0;
}
