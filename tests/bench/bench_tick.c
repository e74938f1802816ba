/*
 * bench_tick.c - the cost of one sampler tick on the simulated hsx with
 * 1 to 8 sockets and every box present: the baseline program, ticked
 * synchronously (sampler_tick()), no claims.
 *
 *   bench_tick SOCKETS [sim|null] [TICKS]
 *
 * "sim" (default) runs the register-accurate simulator behind every
 * access, as the daemon does with --simulate; "null" discovers on the
 * simulator and then answers every access with 0 at once, so what is
 * timed is the daemon's own per-tick work (freeze, reads, placement,
 * programming, accounting, publication), not the simulator's.  Control
 * read-backs (check_every) are off in both modes: on "null" every one
 * would look like interference.  Prints
 * one line: sockets, counters, accesses per tick, microseconds per tick
 * and per counter.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hw/hw_sim.h"
#include "log.h"
#include "sampler.h"

static int null_read(struct hw *hw, const struct hw_addr *a, uint64_t *v)
{
	(void)hw;
	(void)a;
	*v = 0;
	return 0;
}

static int null_write(struct hw *hw, const struct hw_addr *a, uint64_t v)
{
	(void)hw;
	(void)a;
	(void)v;
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
	if (plat_discover(topo.plat, &hw, &topo, &(struct plat_cpu_map){
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
