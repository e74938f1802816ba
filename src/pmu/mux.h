/*
 * mux.h - time-multiplexing groups of events onto the counters: the
 * groups (the daemon's baseline and one per claim), their series (one
 * routine builds them for both), one tick's reading and accounting
 * (time_enabled, time_running, the scaled estimate) and the placement of
 * the next interval.
 *
 * The sampler owns a struct mux and drives it once per tick with the PMU
 * frozen: mux_read_live() (the counters the freeze does not stop, first,
 * so that the wall time between two of their reads is the time between
 * two ticks' starts), mux_read_counters(), mux_schedule(), then it
 * unfreezes.  Everything here is touched by the sampling thread
 * only: the claims table hands over what its live claims count
 * (mux_sync()) and gets their results back, but no lock is held while
 * mux touches hardware.
 *
 * A claim is read now (between ticks, on another thread) from a snapshot
 * the sampler publishes after each tick (struct mux_snap, immutable):
 * mux_snap_read() reads the group's counters and adds their change since
 * the tick to what the tick accounted, touching nothing a tick uses.  The
 * sampler tells a reader whether a tick ran meanwhile (sampler.c).
 * mux_start_now() and mux_held_now() run on the sampling thread,
 * between ticks.
 */
#ifndef UNCORED_MUX_H
#define UNCORED_MUX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/log.h"
#include "pmu.h"
#include "sched.h"

/* Running state of one series (an event on one unit instance). */
struct gseries {
	uint64_t last_raw;	/* counter value at the last read */
	uint64_t raw;		/* sum of the measured deltas */
	uint64_t est;		/* monotonic estimate: each measured delta
				   scaled by the time it stands for */
	uint64_t est_seen;	/* est already added to the quantity totals */
	uint8_t have_last;	/* last_raw is a valid baseline */
	uint8_t up;		/* the last read succeeded */
	/* a claim's reading this tick, accounted once every series of
	 * its group is read (mux_read_counters()) */
	uint64_t tick_raw;
	int tick_err;
	/* of the next reading's own time (pmu_own_window_ns()), the part
	 * before last_raw was read: pmu_own_so_far_ns() when the series
	 * started (a claim's, on the perf backend); own_pend: the own time
	 * of the ticks whose reading the group deferred (struct group) */
	uint64_t own_before, own_pend;
	/* a claim's series: how much longer it has counted than its
	 * group's running time says, by the backend's own clock.  The
	 * group's is the mean of its boxes' (own_time()); each box's
	 * kernel group opens and is read at its own instant, so a turn
	 * of a claim on imc and CHA boxes counted 26 ms on the imc's and
	 * 37 on the CHA's (issue 40).  0 on the direct backend, whose
	 * freeze stops every box at once. */
	int64_t run_adj;
};

/*
 * A group of events counted together: one of the baseline's groups (the
 * one that counts all the time, or one of those that take turns), or one
 * claim.  The
 * series are laid out as slot[k] (position; its counter index follows
 * the current placement) counting ev[sev[k]], in the order mux_slots()
 * builds them.
 */
/* The service window of least-served-first (struct group): each older
 * interval weighs 1/MUX_SERVICE_DECAY less; a baseline group in turn is
 * served MUX_SERVICE_TICK per interval it counted. */
#define MUX_SERVICE_DECAY 16
#define MUX_SERVICE_TICK (UINT64_C(1) << 20)

struct group {
	const struct evspec *ev;
	unsigned nev;
	struct pmu_slot *slot;
	int *sev;
	unsigned ns;
	struct gseries *gs;
	struct sched_group sg;	/* placement and service */
	bool was_running;	/* counted during the interval just ended */
	bool counted;		/* ... and the PMU was not yielded (set by
				   mux_charge(), for the tick's reads) */
	unsigned first;		/* a baseline group: the index of its first
				   series in the baseline's delta and invalid
				   arrays */
	bool seen;		/* has been through a tick (its clock runs) */
	uint64_t since_ns;	/* enabled time since it last counted */
	uint64_t late_ns;	/* started this long after the last tick
				   (mux_start_now()): not charged */
	uint64_t late_run_ns;	/* ... and after the counting window opened
				   (pmu_window_start()) */
	uint64_t ran_ns;	/* how long its counters that the freeze
				   stops counted in the interval just ended
				   (mux_charge()) */
	/* enabled: the wall time it was wanted; running: the time its
	 * counters that the freeze stops counted (the sum of the counting
	 * windows it ran in, the frozen time of every tick left out);
	 * live_running: the wall time it ran, which the counters the
	 * freeze does not stop counted; running_err: how far running can
	 * be off (the windows' pmu_counted_err_ns()) */
	uint64_t enabled_ns, running_ns, live_running_ns, running_err_ns;
	/* A claim's group whose reading failed at a tick (a counter's
	 * read error): its counters go on counting, and the next reading
	 * that works covers that tick too.  Until then the time since the
	 * last reading that worked is pending, not in the times above, so
	 * a claim's counts and times always stand for the same instant
	 * (issue 40: a perf read's EIO left the claim 15 % low).  tick_*:
	 * what mux_charge() charged at this tick. */
	bool deferred;
	uint64_t pend_enabled_ns, pend_running_ns, pend_live_ns, pend_err_ns;
	uint64_t tick_ns, tick_live_ns, tick_err_ns;
	/* Its service, for least-served-first (mux_schedule()): the
	 * enabled and running time of the recent intervals, each older
	 * interval weighing 1/MUX_SERVICE_DECAY less (an exponential window
	 * of about that many intervals).  In ns for most groups; in units of
	 * MUX_SERVICE_TICK per interval for the baseline's groups in turn.
	 * A lifetime total would let a group that joins a long-running
	 * daemon take the counters for as long as the others had them. */
	uint64_t srv_enabled, srv_running;
	/* a claim's group (mux-owned): its key, and its own copy of ev */
	uint64_t key;
	struct evspec *own_ev;
};

/* What a claim asks mux to count (mux_sync()). */
struct mux_spec {
	uint64_t key;			/* unique, ascending in the array */
	const struct evspec *ev;	/* copied */
	unsigned nev;
	bool pinned;			/* on plan[] for good, before the
					   others (sched_group.pinned) */
	const int *plan;		/* the placement (copied): a pinned
					   one's for good, mux_start_now()'s */
};

/* Events of a group a snapshot holds (a claim's: at most 16, its own
 * and its formulas', CLAIM_MAX_EVENTS). */
#define MUX_SNAP_MAX_EVENTS 16

/* A claim's group in a snapshot, as the last tick left it. */
struct mux_snap_grp {
	uint64_t key;
	uint64_t enabled_ns, running_ns, since_ns, late_ns;
	uint64_t late_run_ns, live_running_ns, running_err_ns;
	uint64_t pend_enabled_ns, pend_running_ns;	/* struct group */
	bool running, seen;
	unsigned first, ns, nev;	/* its series: [first, first + ns) */
	int ctr[MUX_SNAP_MAX_EVENTS];
};

struct mux_snap_ser {
	uint64_t last_raw, raw, est, own_before, own_pend;
	int64_t run_adj;	/* struct gseries */
	bool have_last;
};

/* The claims' groups after a tick (mux_snapshot()); immutable, shared by
 * reference. */
struct mux_snap {
	atomic_int refs;
	uint64_t gen;		/* the sampler's: which tick it follows */
	uint64_t t_read;	/* when that tick read the counters */
	uint64_t t_run;		/* when the counters the freeze stops
				   started counting again, and give or
				   take (pmu_window_start()); 0: nothing
				   stops them, or unknown */
	uint64_t t_run_err;
	unsigned ng;
	size_t size;		/* bytes allocated (mux_snapshot()'s reuse) */
	struct mux_snap_grp *g;	/* ascending key */
	struct pmu_slot *slot;	/* all series' slots */
	struct mux_snap_ser *ser;
};

/* One series of a group read now (mux_snap_read()). */
struct mux_now {
	uint64_t raw;		/* counts since the group began */
	uint64_t est;		/* est (struct gseries) brought to now */
	int64_t run_adj;	/* run_adj (struct gseries) brought to now */
	bool up;		/* read now (false: the last tick's value) */
};

/* A group read now: its times, and its series in slot order. */
struct mux_reading {
	uint64_t enabled_ns, running_ns;	/* to now (struct group) */
	uint64_t live_running_ns, running_err_ns;
	uint64_t read_err_ns;	/* the reading's own instant, give or take
				   this much (half the time the read took;
				   not part of running_err_ns, which adds up
				   the windows' errors) */
	bool running;		/* counting in the current interval */
	int ctr[MUX_SNAP_MAX_EVENTS];	/* its last placement per event (as
					   struct claim.ctr), -1: none */
	unsigned ns;		/* series filled (at most the caller's) */
	unsigned nerr;		/* series not read now (read errors) */
};

/* Control writes one series needs at most: its control and a value for
 * each box filter register. */
#define CONTROLS_PER_SERIES (1 + PLAT_MAX_FILTERS)

/* A counter's value read this tick, by register id. */
struct mux_rd {
	uint64_t tick, v;
	int err;
};

#define MUX_READ_LIMITS 32	/* (unit, errno) pairs logged apart */

struct mux {
	struct pmu *pmu;
	/* g[0..nbase): the baseline's groups (the sampler's: g[0] counts
	 * all the time, the others take turns); g[nbase..ng): the claims'
	 * groups, owned, by ascending key */
	struct group **g;
	unsigned ng, capg, nbase;
	struct group **tmp;		/* mux_sync()'s merge */
	unsigned captmp;
	struct sched_group **sg;	/* sched_select()'s view of g */
	unsigned capsg;
	struct sched_ws ws;
	uint64_t tick;			/* mux_begin() calls */
	/* Placement that need not be made again: gen counts every change
	 * of the groups (added, removed, pinned or not, idled, a new
	 * baseline); the last mux_schedule() that placed every group,
	 * encoded and programmed them all records gen and the PMU's
	 * pmu_changes() in steady_*: while both stay and no rewrite is
	 * forced, the next placement would be the same (nothing takes
	 * turns), so it is skipped (skipped counts those). */
	uint64_t gen;
	bool steady;
	uint64_t steady_gen, steady_changes;
	uint64_t skipped;
	struct mux_rd *rd;		/* reads by counter register id (valid
					   when rd->tick is this tick):
					   pmu->nreg entries */
	struct pmu_slot *want;		/* controls of the next interval */
	unsigned nwant, capwant;
	/* unit instances whose control or filter registers the last check
	 * could not read back: their series are not trusted until a check
	 * reads them again */
	struct inst_set unverified[PLAT_MAX_SOCKETS][PLAT_MAX_UNITS];
	bool any_unverified;		/* some set above is not empty */
	/* this tick: deltas above what the counter can count (a reset or a
	 * write by another agent), the first one described */
	unsigned jumps;
	char jump_what[200];
	uint64_t wraps;			/* wrap-arounds seen, ever */
	uint64_t switches;		/* claims scheduled back on, ever */
	/* failed reads are logged at most once a minute per unit and
	 * errno (the last entry serves every pair past MUX_READ_LIMITS) */
	struct mux_read_limit {
		int unit, err;
		struct log_limit lim;
	} lim_read[MUX_READ_LIMITS];
	unsigned nlim_read;
	struct log_limit lim_unread;
};

/*
 * The series of events ev[0..nev): every present instance of each
 * event's unit on every socket where the event counts (:split), socket
 * by socket, event by event.  With ctr (a placement, per event) the
 * slots get their counters and control values (mux_encode()); without,
 * only their socket, unit and instance.  *slot and *sev are malloc'd
 * (the caller frees them; at least one element each).  0, -ENOMEM, or
 * -EINVAL with the reason in why.
 */
int mux_slots(const struct pmu *pmu, const struct evspec *ev, unsigned nev,
	      const int *ctr, struct pmu_slot **slot, int **sev, unsigned *ns,
	      char *why, size_t whylen);
/*
 * Sets the counter positions of slot[0..ns) (counting ev[sev[k]]) from
 * the placement ctr[] and the control values that count their events.
 * 0, or -EINVAL (an encoding the catalog or the register refuses).
 */
int mux_encode(const struct pmu *pmu, const struct evspec *ev,
	       const int *ctr, struct pmu_slot *slot, const int *sev,
	       unsigned ns, char *why, size_t whylen);

/*
 * The control writes slot[0..ns) (counting ev[sev[k]]) need: each
 * programmable or fixed series' control, followed by the box filter
 * values its event requires (slots with .filter set).  want must hold
 * CONTROLS_PER_SERIES * ns entries.  Returns how many were filled.
 */
unsigned mux_controls(const struct pmu *pmu, const struct evspec *ev,
		      const struct pmu_slot *slot, const int *sev, unsigned ns,
		      struct pmu_slot *want);
/* The highest rate (events/s) the counter of slot s can see counting e
 * (plat_event_max_rate(); NULL e: its unit's bound). */
double mux_max_rate(const struct platform *pl, const struct pmu_slot *s,
		    const struct evspec *e);

/* Half the wrap time (ms) of a width-bit counter at rate, at most
 * 3600 s. */
unsigned mux_half_wrap_ms(unsigned width, double rate);
/* The longest interval (ms) an event may be sampled at on p: half its
 * counter's wrap time at the event's maximum rate (at most 3600 s; the
 * perf backend's counts are the kernel's 64-bit ones). */
unsigned evspec_max_interval_ms(const struct pmu *p, const struct evspec *e);

/* An empty mux over pmu: no baseline, no claims. */
void mux_init(struct mux *m, struct pmu *pmu);
/*
 * Makes base[0..n) (the sampler's, which keeps owning them) the
 * baseline's groups, g[0..n) from now on; the claims' groups stay.
 * 0, or -ENOMEM (nothing changed).
 */
int mux_set_base(struct mux *m, struct group *base, unsigned n);
/* Frees the claims' groups and the scratch space (not the baseline). */
void mux_free(struct mux *m);

/*
 * Makes the claims' groups exactly sp[0..n) (ascending keys): groups
 * whose key is gone are dropped (their counters are cleared by the next
 * mux_schedule()), new keys get a group with its clock not yet running,
 * and a group that stays takes its spec's pinned (a pin that ended).
 * No hardware access.  0, or -ENOMEM (a new group is left out this tick
 * and tried again at the next).
 */
int mux_sync(struct mux *m, const struct mux_spec *sp, unsigned n);

/* Starts a tick: forgets the last tick's reads and jumps. */
void mux_begin(struct mux *m);
/*
 * Advances every group's clock by run_ns, the wall time between two
 * ticks' reads (not a group's first tick): enabled always; if it counted
 * and the PMU was not yielded (struct group.counted), running by the
 * time the counters that the freeze stops counted, counted_ns (give or
 * take counted_err_ns; 0: they count all the time, as on the perf
 * backend, or it is unknown: run_ns), and live_running by run_ns.  A
 * freeze held up 20 ms in a 100 ms tick leaves 80 ms of counts: time
 * running is those 80 ms, so that count x enabled / running is the
 * estimate over the whole interval.
 */
void mux_charge(struct mux *m, uint64_t run_ns, uint64_t counted_ns,
		uint64_t counted_err_ns, bool yielded);
/*
 * Reads and accounts every group's counters that the freeze does not
 * stop (pmu_slot.live: free-running counters, snbep's UBox), right after
 * the freeze.  disturbed: interference on the global control this tick
 * (no deltas from programmable counters).  The baseline groups' deltas
 * go into delta[] and their invalid bits into invalid[] (at each
 * group's first series on); a series of a group that did not count has
 * its invalid bit set.
 */
void mux_read_live(struct mux *m, bool disturbed, bool yielded,
		   uint64_t run_ns, uint64_t *delta, uint64_t *invalid);
/* The same for the counters the freeze stops (PMU frozen); then every
 * group that counted starts its time since it last counted again. */
void mux_read_counters(struct mux *m, bool disturbed, bool yielded,
		       uint64_t run_ns, uint64_t *delta, uint64_t *invalid);
/*
 * Puts each valid baseline delta just read over the time the sample
 * divides it by (run_ns for the live series, counted_ns for the others,
 * or run_ns when that is 0, as derive_gauges() does), where the backend
 * knows the time the series itself counted (pmu_own_window_ns(): the
 * perf backend's group times): delta x that time / its own.  A rate is
 * then the counter's count over its own counting time, whichever order
 * and however late the groups of one tick were read.  The running totals
 * (struct gseries) keep the counts as counted.
 */
void mux_own_windows(struct mux *m, uint64_t run_ns, uint64_t counted_ns,
		     uint64_t *delta, const uint64_t *invalid);
/*
 * Chooses the groups of the next interval, programs their controls
 * (every control when force) and reads the starting values of counters
 * that start counting now.  PMU frozen.
 */
void mux_schedule(struct mux *m, bool force);
/* The claims' groups as they are now (refs = 1), t_read: when this tick
 * read the counters (and, from the pmu, when they started counting
 * again: pmu_window_start()).  reuse: a snapshot nobody else holds or can take
 * (unpublished, refs 1) or NULL; it is consumed - filled again and
 * returned when large enough, else freed - so a tick need not allocate.
 * NULL on ENOMEM. */
struct mux_snap *mux_snapshot(const struct mux *m, uint64_t t_read,
			      struct mux_snap *reuse);
void mux_snap_put(struct mux_snap *sn);
/*
 * The counts of the group with key now: each series' counter is read
 * (pmu_read_now()) and its change since the snapshot's tick added to
 * what the ticks accounted, scaled as the next tick will scale it.  The
 * reading's instant is the middle of the times clk (the clock of t_read)
 * gave before and after the read, out->read_err_ns half their span.  v has room for nv series.  Any thread; the caller
 * checks that no tick ran meanwhile.  0, -ENOENT (no such group: a
 * claim no tick has taken yet) or -ENOMEM.
 */
int mux_snap_read(struct pmu *pmu, const struct mux_snap *sn, uint64_t key,
		  const struct clock_src *clk, struct mux_now *v, unsigned nv,
		  struct mux_reading *out);
/* Into b: the counters that groups count on in the current interval. */
void mux_held_now(const struct mux *m, struct sched_busy *b);
/*
 * A new claim's group, its clock running from now (since_ns after the last
 * tick).  If the counters of a placement (a pinned claim's sp->plan, else
 * any) are free in this interval, it counts at once: its controls are
 * programmed (nothing else changes) and it runs, and placed (sp->nev
 * entries, may be NULL) gets the placement: 0.  Else it waits for the next
 * tick to place it, its free-running series counting meanwhile: -EBUSY.
 * -EEXIST (a group the ticks know), -ENOMEM, -EINVAL.
 */
int mux_start_now(struct mux *m, const struct mux_spec *sp,
		  uint64_t since_ns, int *placed);
/* Yielded: no group counts in the next interval. */
void mux_idle(struct mux *m);
/* After a control check (pmu_check_controls(), changed registers
 * differed, unread could not be read): the unit instances whose
 * controls, wanted by the last programming, differ or could not be read
 * back are not trusted until the next check - their series' deltas of
 * this tick are discarded and their counts start again from the values
 * read now.  Unreadable registers are logged (rate-limited). */
void mux_mark_unverified(struct mux *m, unsigned changed, unsigned unread);

#endif
