/*
 * sampler.h - the timer thread that samples every active counter into the
 * ring, and the program (what is counted where) it samples.
 *
 * A program is immutable once published: the series (counter position +
 * event), the ring of per-interval deltas and the small ring of snapshots
 * (running totals and derived metrics) that scrapes render from.  Readers
 * take a reference with sampler_get() and drop it with program_put(); the
 * sampler swaps programs (SIGHUP, claims) without waiting for them.
 *
 * Per tick: read back the global control (interference); freeze; read
 * back the controls of the counters that counted (every N ticks every
 * control ever programmed), so a foreign write is seen in the tick whose
 * delta it spoiled; read each active counter once - first those the
 * freeze does not stop (free-running, snbep's UBox), whose deltas stand
 * for the wall time between two ticks' reads, then the frozen ones,
 * whose deltas stand for the counting window the pmu layer measured
 * (pmu_counted_ns(), the sample's SW_COUNTED_NS); place and program the
 * next interval's groups; unfreeze; extend every raw value to 64 bits
 * with wrap detection at its width; publish the sample and the
 * snapshot.  Scrapes never touch hardware.
 */
#ifndef UNCORED_SAMPLER_H
#define UNCORED_SAMPLER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "claims.h"
#include "base/clock.h"
#include "derive.h"
#include "pmu/mux.h"
#include "pmu/pmu.h"
#include "base/ring.h"
#include "pmu/sched.h"

#define SAMPLER_MAX_EVENTS 64
#define TICK_BUCKETS 12

/*
 * Sample layout in the ring: words, then deltas[ns], then invalid bits
 * ((ns + 63) / 64 words: no value), then multiplexed bits (as many: the
 * series did not count in the interval; its delta is an estimate from
 * its last counted interval where its invalid bit is clear - a baseline
 * group taking turns - and no value where it is set).
 */
enum {
	SW_T_NS,	/* end of the interval, CLOCK_REALTIME ns */
	SW_INTERVAL_NS,	/* length of the interval (monotonic) */
	SW_FLAGS,	/* SF_* */
	SW_GEN,		/* program generation */
	SW_COUNTED_NS,	/* how long the counters the freeze stops counted
			   in the interval (pmu_counted_ns(); 0: unknown,
			   SW_INTERVAL_NS stands for every series) */
	SW_COUNTED_ERR_NS,	/* how far off SW_COUNTED_NS can be
				   (pmu_counted_err_ns(); 0 with it) */
	SW_HDR		/* deltas start here */
};
#define SF_VALID 1ull		/* no delta is invalid for an error or
				   interference (series multiplexed out do
				   not count: see SF_MUX) */
#define SF_INTERFERENCE 2ull	/* interference seen this tick */
#define SF_FIRST 4ull		/* first tick of a program: no deltas */
#define SF_MUX 8ull		/* some baseline series were multiplexed out
				   (for claims, or taking turns): see the
				   multiplexed bits */
#define SF_SCALED 16ull		/* perf backend: another perf user made the
				   kernel multiplex some of the baseline's
				   groups; their deltas are scaled
				   (enabled/running), not exact */
#define SF_UNCERTAIN 32ull	/* the counting window is uncertain beyond
				   1 % of itself (pmu_window_uncertain()):
				   its rates stand, as the best estimate */

/* The snapshot scrapes render from (followed by totals[ns], up[ns] and
 * the derived values, nvals doubles in the plan's layout (derive.h), in
 * the snapshot ring's words). */
struct snap {
	uint64_t sample_seq;	/* ring sample it follows */
	uint64_t t_ns;		/* CLOCK_REALTIME of the sample */
	uint64_t ticks, overruns, hw_reads, hw_writes, hw_errors;
	uint64_t interference, wraps, invalid_samples;
	uint64_t window_uncertain;	/* samples with SF_UNCERTAIN */
	uint64_t tick_hist[TICK_BUCKETS];	/* cumulative-ready counts */
	uint64_t tick_count, tick_sum_ns;
	uint64_t last_tick_mono_ns;
	uint64_t owned;		/* PMU held (not yielded) */
	uint64_t base_enabled_ns, base_running_ns;	/* baseline service */
	uint64_t switches;	/* multiplexing reprogrammings */
	/* perf backend (pmu_perf_stats); all 0 on the direct one */
	uint64_t perf_groups, perf_reads, perf_syscalls, perf_read_errors;
	uint64_t perf_open_errors, perf_scaled, perf_scaled_samples;
};
#define SNAP_WORDS ((sizeof(struct snap) + 7) / 8)

extern const double tick_bounds_s[TICK_BUCKETS];

struct program {
	atomic_int refs;
	uint64_t gen;
	const struct platform *plat;
	const struct topology *topo;
	const struct pmu *pmu;		/* whose register ids the slots use */
	struct evspec ev[SAMPLER_MAX_EVENTS];
	unsigned nev;
	/* the series: counter i is slot[i] counting event ev[sev[i]] */
	struct pmu_slot *slot;
	int *sev;
	unsigned ns;
	int ctr[SAMPLER_MAX_EVENTS];	/* the baseline's placement */
	/* the baseline's groups (sched_partition()): group g counts events
	 * ev[gev[g] .. gev[g+1]) on series gser[g] .. gser[g+1); group 0
	 * counts all the time, groups 1 .. ngroups-1 take turns on the
	 * counters they share, one interval each (ngroups 1: no turns) */
	unsigned ngroups;
	unsigned gev[SAMPLER_MAX_EVENTS + 1], gser[SAMPLER_MAX_EVENTS + 1];
	/* per event and socket: instances present / instances counting
	 * (a :split event counts on some of them and is scaled up) */
	double evscale[SAMPLER_MAX_EVENTS][PLAT_MAX_SOCKETS];
	struct derive_plan *dplan;	/* the derived metrics */
	unsigned nvals;			/* derive_nvals(dplan) */
	struct ring *samples;		/* sample_words(ns) words */
	struct ring *snaps;		/* snap_words(ns, nvals) words */
	unsigned interval_ms;
	struct fexport *fx;		/* the formulas exported on /metrics
					   (fexport.h), whose events the
					   baseline counts; NULL: none.  The
					   program owns it (set once, before
					   the program is shared) */
	/* [baseline] memory_latency ("auto", "yes", "no"), and per unit
	 * why auto left its latency events out ("": counted, or none);
	 * set before the program is shared */
	const char *lat_setting;
	char lat_left_out[PLAT_MAX_UNITS][256];
	/* [baseline] frequency_limits, the same way */
	const char *freq_setting;
	char freq_left_out[PLAT_MAX_UNITS][256];
};

/* Words per sample / snapshot of a program with ns series. */
static inline unsigned sample_words(unsigned ns)
{
	return SW_HDR + ns + 2 * ((ns + 63) / 64);
}
static inline unsigned snap_words(unsigned ns, unsigned nvals)
{
	return (unsigned)SNAP_WORDS + 2 * ns + nvals;
}

enum interference_policy { POLICY_RECLAIM, POLICY_YIELD };

struct sampler_cfg {
	unsigned interval_ms;
	unsigned ring_capacity;
	unsigned check_every;		/* ticks between full control checks */
	enum interference_policy policy;
};

struct sampler;
struct claims;

/*
 * What /metrics shows of the claims, published by the sampler after each
 * tick so that a scrape never takes the claims lock: the uncored_claims*
 * gauges and counters, and per exported claim, event and socket the
 * scaled count (uncore_claim_events_total).  Immutable once published;
 * readers hold a reference.
 */
struct claim_total {
	char claim[CLAIM_ID_MAX];
	char event[SCHED_NAME_MAX];
	uint64_t socket;
	uint64_t est;
};
struct claims_pub {
	atomic_int refs;
	uint64_t live, created, expired;
	unsigned n;
	struct claim_total row[];
};

/*
 * Builds a program counting the given events (already resolved) on every
 * instance of their units on every socket.  Events that do not fit their
 * unit's counters together are split into groups that take turns
 * (sched_partition(); the program's events are reordered group by
 * group).  Returns NULL with the reason in why (an event that cannot be
 * placed, out of memory).  The caller owns the program (refs = 1).
 */
struct program *program_new(const struct topology *t, const struct pmu *pmu,
			    const struct evspec *ev, unsigned nev,
			    unsigned ring_capacity, unsigned interval_ms,
			    char *why, size_t whylen);
void program_put(struct program *p);

/*
 * The control writes that program p's counters need: each programmable
 * or fixed series' control, followed by the box filter values its event
 * requires (slots with .filter set).  want must hold
 * CONTROLS_PER_SERIES * p->ns entries.
 * Returns how many were filled.
 */
unsigned program_controls(const struct program *p, struct pmu_slot *want);

/*
 * True when a and b count the same events on the same counters, with the
 * same ring capacity and interval: a reload that builds such a program
 * keeps the running one, and with it the ring.
 */
bool program_same(const struct program *a, const struct program *b);

/*
 * Longest interval (ms) the program may use: half the shortest wrap time
 * of any counter in it at the platform's maximum event rates.
 */
unsigned program_max_interval_ms(const struct program *p);
/* The group of p's baseline that counts event name (0: all the time;
 * 1 ..: taking turns), or -1 when p does not count it. */
int program_event_group(const struct program *p, const char *name);

/* Where derived source name's values come from in program p: the first
 * event of its chosen alternative, that event's unit, how many events
 * the alternative sums, and whether they take turns on the counters. */
struct program_source {
	const char *event;		/* the platform table's */
	const struct unit_type *unit;
	const char *kernel_pmu;		/* perf backend: its kernel PMU
					   ("amd_df"), else NULL */
	unsigned nevents;
	bool turns;
};
/* true and *out, or false when p does not count that source. */
bool program_source(const struct program *p, const char *name,
		    struct program_source *out);
/* Where p's DRAM families come from: the sources "dram_rd" into *rd and
 * "dram_wr" into *wr (2), or where the platform counts only the total
 * (zen3), source "dram_all" into *rd and *wr zeroed (1); 0 when p counts
 * no DRAM. */
int program_dram(const struct program *p, struct program_source *rd,
		 struct program_source *wr);

/* Creates the sampler over pmu with prog (takes the caller's reference)
 * and the claims table (may be NULL).  Does not start the thread.  NULL
 * on ENOMEM. */
struct sampler *sampler_new(struct pmu *pmu, struct program *prog,
			    const struct sampler_cfg *cfg, struct claims *cl);

/* The clock the ticks measure time with (default clock_system; clk
 * must outlive s).  Before sampler_start(): the timer that wakes the
 * thread stays on CLOCK_MONOTONIC. */
void sampler_set_clock(struct sampler *s, const struct clock_src *clk);
/* Starts the timer thread; 0 or -errno. */
int sampler_start(struct sampler *s);
/* Stops and joins the thread (idempotent). */
void sampler_stop(struct sampler *s);
void sampler_free(struct sampler *s);

/* Runs one tick synchronously (tests, and the thread's body). */
void sampler_tick(struct sampler *s);
/* Ticks (or calls) that left the claims table alone because its lock was
 * not free within 200 us: their claim changes waited for the next. */
uint64_t sampler_claims_deferred(const struct sampler *s);
/* Ticks that left the placement as it was (nothing changed since the
 * last, nothing takes turns: mux_schedule()); for tests and benchmarks,
 * read with the sampler stopped or ticked by the caller. */
uint64_t sampler_placements_skipped(const struct sampler *s);
/*
 * Gives the claims table (sampler_new()'s) the sampler's side of claims
 * (claims.h, struct claims_hooks), called on the HTTP thread:
 *   - counts read now: from the snapshot of the claims' groups the last
 *     tick published and the claim's counters read at once (any thread;
 *     a reading that a tick overlapped is taken again), so a reader
 *     never holds anything a tick waits for;
 *   - where a pinned claim may go and starting it at once: run on the
 *     sampling thread between ticks (the thread waits for no caller),
 *     or on the caller's while there is no thread.
 */
void sampler_hook_claims(struct sampler *s);

/* Looks again, on the sampling thread, for the units lost at run time
 * (pmu_reprobe(): perf, the kernel PMUs that went away); those found
 * are counted again from the program the next tick builds.  Returns how
 * many came back or -errno; what it found in msg. */
int sampler_reprobe(struct sampler *s, char *msg, size_t len);
/* The current program, with a reference the caller drops with
 * program_put(). */
struct program *sampler_get(struct sampler *s);
/* Hands a new program (and its reference) to the sampler, which programs
 * and publishes it at its next tick, carrying running totals over for
 * series that stay.  cfg changes apply at the same time; a shorter
 * interval makes that tick come at once. */
void sampler_swap(struct sampler *s, struct program *p,
		  const struct sampler_cfg *cfg);
/* The claim totals of the last tick with a reference (drop it with
 * claims_pub_put()); NULL when the sampler has no claims table. */
struct claims_pub *sampler_claims(struct sampler *s);
void claims_pub_put(struct claims_pub *p);
/* CLOCK_MONOTONIC ns of the last completed tick (0 before the first). */
uint64_t sampler_last_tick(const struct sampler *s);
/* How long without a tick is a stall (readiness, the watchdog): 3
 * intervals, never less than SAMPLER_STALL_MIN_NS, since a loaded
 * machine delays a 25 ms timer by more than 75 ms without anything being
 * wrong (measured: 15 of 3000 /healthz at -i 25 beside stress-ng). */
#define SAMPLER_STALL_MIN_NS 1000000000ull
uint64_t sampler_stall_ns(struct sampler *s);
/* The active configuration (interval etc.). */
struct sampler_cfg sampler_cfg(struct sampler *s);

#endif
