/*
 * sim_scale.h - a simulated machine of 1 to 8 sockets with every box at its
 * maximum, every programmable counter given an event, and the reads of
 * one sampler-like tick: every counter (programmable, fixed and
 * free-running) and each socket's global status.  Shared by the
 * simulator's benchmark (tests/bench/bench_sim.c) and the test that its
 * register lookup does not grow with the machine (test_sim_scale.c).
 */
#ifndef UNCORED_SIM_SCALE_H
#define UNCORED_SIM_SCALE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hw/hw.h"
#include "plat/plat.h"
#include "sim/hw_sim.h"

/* The workload's one rate: what every CBo counter counts (setup()
 * programs event 0x01, unit mask 0, everywhere). */
#define SIM_SCALE_KEY "cbo:0x01:0x00"

struct sim_scale {
	struct hw_addr *reads;
	unsigned nreads, cap;
	unsigned ncounters;
};

static int add_read(struct sim_scale *b, struct hw_addr a)
{
	if (b->nreads == b->cap) {
		unsigned nc = b->cap ? 2 * b->cap : 256;
		struct hw_addr *n = realloc(b->reads, nc * sizeof(*n));

		if (!n)
			return -1;
		b->reads = n;
		b->cap = nc;
	}
	b->reads[b->nreads++] = a;
	return 0;
}

/* Programs every programmable counter with the unit's first catalog
 * event (or event 0x00, which counts nothing) and lists every counter. */
static int setup(struct hw *hw, const struct topology *t, struct sim_scale *b)
{
	const struct platform *p = t->plat;

	for (unsigned s = 0; s < t->nsockets; s++) {
		const struct topo_socket *ts = &t->sock[s];

		if (add_read(b, hw_msr(ts->cpu, (uint32_t)p->global_status.addr)))
			return -1;
		for (unsigned ui = 0; p->units[ui]; ui++) {
			const struct unit_type *u = p->units[ui];

			for (unsigned i = 0; i < ts->ninst[ui]; i++) {
				if (!topo_present(ts, ui, i))
					continue;
				if (u->kind == UNIT_FREERUN) {
					for (unsigned k = 0; k < u->nfreerun; k++) {
						b->ncounters++;
						if (add_read(b, plat_freerun_addr(ts, u, i, k)))
							return -1;
					}
					continue;
				}
				for (unsigned k = 0; k < u->nctr; k++) {
					struct hw_addr ctl = plat_ctl_addr(ts, u, i, k);
					uint64_t v = 0;

					if (u->kind == UNIT_PROG) {
						struct event_enc e = { .code = 1 };
						char why[128];

						if (plat_encode(u, &e, k, 0xff, &v,
								why, sizeof(why)) < 0)
							v = 0;
					}
					if (ctl.width && v)
						hw_write(hw, &ctl, v);
					b->ncounters++;
					if (add_read(b, plat_ctr_addr(ts, u, i, k)))
						return -1;
				}
			}
		}
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Opens the simulator of platform plat with the given sockets, discovers
 * it and programs it (setup()).  0, or -1 with the reason in
 * hw_last_error() (hw is closed then).
 */
static int sim_scale_open(const char *plat, unsigned sockets, struct hw *hw,
			  struct sim_scale *b)
{
	char path[] = "/tmp/sim_scale_XXXXXX";
	struct hw_opts o = { .sim_platform = plat, .sim_workload = path };
	struct topology t = { 0 };
	struct hw_cpu_map map = { .cpus_per_package = 8 };
	FILE *f;
	int fd = mkstemp(path), r;

	memset(b, 0, sizeof(*b));
	if (fd < 0 || !(f = fdopen(fd, "w")))
		return hw_fail(EIO, "cannot write a workload in /tmp"), -1;
	fprintf(f, "{\"platform\": \"%s\", \"sockets\": %u, \"phases\": "
		"[{\"seconds\": 10, \"rates\": {\"%s\": 1e9}}]}\n", plat, sockets,
		SIM_SCALE_KEY);
	fclose(f);
	r = hw_open(hw, &hw_sim_ops, &o);
	unlink(path);
	if (r < 0)
		return -1;
	t.plat = plat_by_id(plat);
	if (plat_discover(t.plat, hw, &t, &map) < 0 || setup(hw, &t, b) < 0) {
		hw_close(hw);
		free(b->reads);
		b->reads = NULL;
		return -1;
	}
	return 0;
}

/* Runs ticks ticks; returns the seconds they took. */
static double sim_scale_ticks(struct hw *hw, const struct sim_scale *b,
			      unsigned ticks)
{
	static volatile uint64_t sink;
	double t0 = now_s();
	uint64_t v;

	for (unsigned k = 0; k < ticks; k++)
		for (unsigned i = 0; i < b->nreads; i++)
			if (hw_read(hw, &b->reads[i], &v) == 0)
				sink += v;
	return now_s() - t0;
}

static void sim_scale_close(struct hw *hw, struct sim_scale *b)
{
	hw_close(hw);
	free(b->reads);
	b->reads = NULL;
}

#endif
