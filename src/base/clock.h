/*
 * clock.h - where the daemon's time comes from.
 *
 * The sampler (interval lengths, time_enabled/time_running, sample
 * stamps), the claims table (leases) and the simulator's workload clock
 * read time through one struct clock_src, so a test can drive them all
 * from one fake clock and assert exact values instead of sleeping.  The
 * mono_ns function has the simulator's clock signature
 * (hw_sim_set_clock()), so the same function serves both.
 */
#ifndef UNCORED_CLOCK_H
#define UNCORED_CLOCK_H

#include <stdint.h>

struct clock_src {
	int64_t (*mono_ns)(void *ctx);	/* like CLOCK_MONOTONIC, ns */
	int64_t (*real_ns)(void *ctx);	/* like CLOCK_REALTIME, ns */
	void *ctx;
};

/* The system's clocks (CLOCK_MONOTONIC, CLOCK_REALTIME). */
extern const struct clock_src clock_system;

/*
 * A clock that moves only when told to (tests and benchmarks): mono from
 * start_ns, real a fixed epoch ahead of it.  Point everything at &f->src
 * (and the simulator at f->src.mono_ns, f->src.ctx).
 */
struct clock_manual {
	struct clock_src src;
	int64_t now_ns;
};
void clock_manual_init(struct clock_manual *f, int64_t start_ns);
static inline void clock_manual_advance(struct clock_manual *f, int64_t ns)
{
	f->now_ns += ns;
}

static inline uint64_t clock_mono(const struct clock_src *c)
{
	return (uint64_t)c->mono_ns(c->ctx);
}

static inline uint64_t clock_real(const struct clock_src *c)
{
	return (uint64_t)c->real_ns(c->ctx);
}

#endif
