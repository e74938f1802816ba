/*
 * pmu.h - ownership and programming of the uncore PMU.
 *
 * This is the only module that writes control registers.  It knows the
 * counter positions the daemon uses (slots), programs them, freezes and
 * unfreezes the sockets around a read, measures how long the counters
 * counted between an unfreeze and the next freeze (the counting window,
 * pmu_counted_ns()), checks for interference, and on release leaves
 * every control register it wrote cleared and the PMU idle.
 */
#ifndef UNCORED_PMU_H
#define UNCORED_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "hw/hw.h"
#include "plat/plat.h"

/*
 * Registers have dense ids: pmu_init() numbers every control, counter and
 * filter register of every unit instance of the topology, and a slot
 * carries the ids of its registers, so the tick and pmu_program() index
 * arrays (struct pmu.reg) instead of searching addresses.  Id 0 is no
 * register: a zeroed slot names none.
 */
#define PMU_NO_REG 0u

/* One counter position: a programmable counter, the fixed counter, or a
 * free-running counter of one unit instance on one socket. */
struct pmu_slot {
	uint8_t socket;
	int8_t unit;		/* platform unit index */
	uint8_t inst;
	uint8_t idx;		/* counter index, or free-running index */
	bool freerun;
	bool core_scope;	/* free-running, one MSR per core: ctr is
				   read on every core of the socket (the
				   topology's core_cpu) and summed */
	bool filter;		/* ctl is a box filter register, not a
				   counter control (written as is) */
	bool live;		/* counts while the PMU is frozen: free-running,
				   or a unit the freeze cannot stop (snbep
				   UBox; plat_unit_freezable()).  Read at the
				   start of the frozen window; its deltas stand
				   for the wall time between reads */
	uint8_t width;
	struct hw_addr ctl;	/* unused for free-running */
	struct hw_addr ctr;
	uint64_t ctl_val;	/* value to program (with the enable bit);
				   perf backend: perf_event_attr.config */
	uint64_t cfg1, cfg2;	/* perf backend: config1, config2 */
	uint32_t ctl_id, ctr_id;	/* register ids; PMU_NO_REG: none */
};

enum pmu_reg_kind { PMU_REG_CTL, PMU_REG_CTR, PMU_REG_FLT };

/* One register the daemon may read or write, at index = its id. */
struct pmu_reg {
	struct hw_addr a;
	const struct unit_type *u;
	uint8_t kind;		/* enum pmu_reg_kind */
	uint8_t socket, inst;
	int8_t unit;
	bool present;		/* its instance is there (topo_present) */
	bool written;		/* in the written set */
	bool unread;		/* the last check could not read it back */
	bool changed;		/* the last check read another value */
	uint64_t val;		/* last value written */
	uint64_t pass;		/* the pmu_program() call that wants it */
};

/* The first ids of one unit's registers on one socket; instance i's
 * counter c is ctl + i * nctr + c (free-running: ctr + i * nfreerun +
 * c), its filter f flt + i * nfilters + f. */
struct pmu_block {
	uint32_t ctl, ctr, flt;
	unsigned ninst;
};

struct pmu {
	struct hw *hw;
	const struct topology *topo;
	const struct platform *plat;
	/* each socket's global control; unused without one (snbep) */
	struct hw_addr gctl[PLAT_MAX_SOCKETS];
	struct pmu_reg *reg;	/* nreg entries; reg[0] unused */
	unsigned nreg;
	struct pmu_block blk[PLAT_MAX_SOCKETS][PLAT_MAX_UNITS];
	/* the written set: every register ever written (ids, in order),
	 * cleared at release.  Sized for every register at pmu_init(), so
	 * it can never run out. */
	uint32_t *written;
	unsigned nwritten;
	/* the last programmed list of (id, value), for pmu_program()'s
	 * nothing-changed check; nlast 0: none */
	uint32_t *last_id;
	uint64_t *last_val;
	unsigned nlast, caplast;
	uint64_t pass;
	bool owns;		/* the PMU is ours (enabled by us) */
	/* the counting window (pmu_enable()): the clock, the midpoint of
	 * the last unfreeze (0: none since the last freeze) and half its
	 * write's duration, the window that ended at the last freeze (0:
	 * unknown) and how far off it can be (pmu_counted_err_ns()) */
	const struct clock_src *clk;
	uint64_t unfrozen_at, unfrozen_err;
	uint64_t counted_ns, counted_err_ns;
	bool stops;		/* the last pmu_enable()'s window had edges:
				   the freeze stopped the counters */
	/* The backend every pmu_*() call below is handed to (struct
	 * pmu_ops): pmu_direct_ops (pmu_init()) or the perf backend's
	 * (pmu_init_perf(), pmu_perf.h). */
	const struct pmu_ops *ops;
	/* The perf backend's own state (pmu_perf.h), or NULL: the direct
	 * backend, whose state is the register tables above. */
	struct pmu_perf *perf;
};

struct evspec;

/* What a backend's enable does to the counting window (pmu_enable()). */
enum pmu_window {
	PMU_WINDOW_NONE,	/* nothing stopped or started counting */
	PMU_WINDOW_EDGES,	/* a freeze stops, an unfreeze starts */
	PMU_WINDOW_READS,	/* counters never stop: a "freeze" reads
				   them, ending one window and starting the
				   next */
};

/*
 * A backend of the PMU layer: the direct one (pmu_direct.c) or the perf
 * one (pmu_perf.c).  The front (pmu.c) numbers the registers and keeps
 * the counting window; each entry does the backend's part of the pmu_*()
 * call of the same name (documented below).  NULL entries: the call has
 * nothing to do there (0, false).
 */
struct pmu_ops {
	const char *name;		/* "direct", "perf" */
	void (*free)(struct pmu *p);	/* the backend's state */
	/* a slot's width, addresses and control id (its position, ctr_id
	 * set); a filter slot's register */
	void (*slot)(const struct pmu *p, struct pmu_slot *s);
	void (*filter)(const struct pmu *p, struct pmu_slot *fs, unsigned f);
	int (*encode)(const struct pmu *p, struct pmu_slot *sl,
		      const struct evspec *e, char *why, size_t whylen);
	int (*read)(struct pmu *p, const struct pmu_slot *s, uint64_t *raw);
	int (*busy)(struct pmu *p, char *msg, size_t len);
	int (*foreign)(struct pmu *p, char *msg, size_t len);
	int (*clear_all)(struct pmu *p);
	int (*apply)(struct pmu *p, const struct pmu_slot *s, unsigned n,
		     bool force);		/* pmu_program() */
	int (*enable)(struct pmu *p, bool on, enum pmu_window *w);
	int (*global_check)(struct pmu *p, unsigned socket, bool expect_on,
			    uint64_t *seen);	/* pmu_check_global() */
	int (*reset_boxes)(struct pmu *p);
	int (*check_controls)(struct pmu *p, bool all, char *msg, size_t len,
			      unsigned *unread);
	int (*release)(struct pmu *p);
	bool (*scaled)(const struct pmu *p, const struct pmu_slot *s);
	uint64_t (*own_window)(const struct pmu *p, const struct pmu_slot *s,
			       bool so_far);	/* pmu_own_window_ns(),
						   pmu_own_so_far_ns() */
	int (*reachable)(const struct pmu *p, const struct evspec *e,
			 char *why, size_t whylen);
	int (*snapshot)(struct pmu *p);
	/* pmu_read_now()'s reading of s[0..n) now; NULL: pmu_read() each */
	int (*read_now)(struct pmu *p, const struct pmu_slot *s, unsigned n);
	/* pmu_lost() / pmu_changes() / pmu_reprobe(); NULL: nothing is
	 * ever lost at run time (the direct backend) */
	bool (*lost)(const struct pmu *p, unsigned socket, int unit,
		     unsigned inst);
	uint64_t (*changes)(const struct pmu *p);
	int (*reprobe)(struct pmu *p, char *msg, size_t len);
};

extern const struct pmu_ops pmu_direct_ops;

/* For the backends: numbers the registers of t (pmu_init(); addrs: with
 * their addresses, the direct backend) into p, which it zeroes first.
 * 0 or -errno. */
int pmu_number(struct pmu *p, struct hw *hw, const struct topology *t,
	       bool addrs);
/* For the backends: the id of register k of a kind of instance inst of a
 * unit on a socket, or PMU_NO_REG. */
uint32_t pmu_reg_id(const struct pmu *p, unsigned socket, int unit,
		    unsigned inst, unsigned k, enum pmu_reg_kind kind);

/*
 * Numbers every register of every present unit of t (see PMU_NO_REG).
 * 0, or -ENOMEM (or -E2BIG past 2^32 registers) with a message in
 * hw_last_error(): start-up fails rather than track fewer registers than
 * it may write.  pmu_free() releases the tables.
 */
int pmu_init(struct pmu *p, struct hw *hw, const struct topology *t);
void pmu_free(struct pmu *p);

/*
 * Sets the value that counts event e in slot sl (after pmu_slot() with
 * the counter index placement chose): the control register's value on
 * the direct backend (the fixed counter's enable bit, or the event select
 * through plat_encode_event()), perf_event_attr's config words through
 * the kernel PMU's own format/ files on the perf backend.  0 or -errno
 * with the reason in why.
 */
int pmu_encode(const struct pmu *p, struct pmu_slot *sl,
	       const struct evspec *e, char *why, size_t whylen);
/* Can event e be counted at all through this backend?  Always 0 on the
 * direct backend; perf: -EOPNOTSUPP / -ENODEV with why when the build
 * has no kernel event for it or the kernel no PMU for its unit (its
 * metrics are then absent, not zero). */
int pmu_reachable(const struct pmu *p, const struct evspec *e, char *why,
		  size_t whylen);
/*
 * Is instance inst of unit on socket there to be counted: present at
 * discovery (topo_present()) and not lost since (perf: its kernel PMU
 * went away at run time, pmu_perf.h)?  Any thread may ask.  Programs
 * and claims are built over the instances this answers true for, so a
 * unit lost at run time goes the way one missing at start-up does: its
 * series absent, the rest counted.
 */
bool pmu_present(const struct pmu *p, unsigned socket, int unit,
		 unsigned inst);
/* How many times what pmu_present() answers has changed: a program
 * built before the count moved may count what is gone.  Any thread. */
uint64_t pmu_changes(const struct pmu *p);
/* Looks again for what was lost at run time (perf: the kernel PMUs that
 * went away; SIGHUP).  The sampling thread only (sampler_reprobe()).
 * Returns how many came back, or -errno; what it found in msg ("" when
 * nothing was lost). */
int pmu_reprobe(struct pmu *p, char *msg, size_t len);
/* Was the last value pmu_read() returned for s scaled, because another
 * perf user made the kernel multiplex its group?  Always false on the
 * direct backend. */
bool pmu_scaled(const struct pmu *p, const struct pmu_slot *s);

/* The clock pmu_enable() stamps the freezes with (pmu_init(): the
 * system's; clk must outlive p).  The sampler sets its own, so windows
 * and intervals are measured on one clock. */
void pmu_set_clock(struct pmu *p, const struct clock_src *clk);

/* Fills s with the addresses and register ids of a slot.  idx is a
 * counter index or, for a free-running unit, the free-running counter
 * index. */
void pmu_slot(const struct pmu *p, struct pmu_slot *s, unsigned socket,
	      int unit, unsigned inst, unsigned idx);
/* Fills fs with the box filter register f of sl's unit instance, to be
 * programmed with val (fs->filter set). */
void pmu_filter_slot(const struct pmu *p, struct pmu_slot *fs,
		     const struct pmu_slot *sl, unsigned f, uint64_t val);

/*
 * Reads the global control of every socket (where the platform has one)
 * and the control register of
 * every programmable and fixed counter of every present unit.  Returns
 * the number of registers found counting (enable bits set) and lists
 * them in msg ("msr 0xe01 on cpu 0 = 0x20000000, ..."); -errno if a
 * register cannot be read (message in hw_last_error()).
 */
int pmu_busy(struct pmu *p, char *msg, size_t len);

/*
 * Like pmu_busy(), but a control register that still holds exactly what
 * this daemon wrote there is not counted: is anybody else using the PMU?
 * Returns the number of foreign registers counting, or -errno.
 */
int pmu_foreign(struct pmu *p, char *msg, size_t len);

/* Clears every control and box filter register of every present unit
 * and the global controls (takeover, stale-ownership cleanup).  0 or the
 * first -errno; continues past errors. */
int pmu_clear_all(struct pmu *p);

/* Writes each slot's control value (only where it changed, unless force)
 * and clears previously programmed control registers not among them.
 * Without force, the same list as last time writes nothing and costs one
 * comparison per slot.  A slot without a register id is refused
 * (-EINVAL): nothing is written that release could not clear.  0 or the
 * first -errno (continues past errors). */
int pmu_program(struct pmu *p, const struct pmu_slot *s, unsigned n,
		bool force);

/*
 * Enable (unfreeze) or disable (freeze) every socket through the
 * platform's global_enable op: its global control, or each box's freeze
 * bit (snbep); a no-op where the platform has neither.  Each call is
 * stamped with the clock before and after its writes; the midpoint
 * stands for the moment the hardware stopped or started counting (within
 * half the writes' duration: on snbep the 19 box writes of a socket, in
 * the same order each time, so every box's window is as long as the
 * midpoints'; how far off the window can be: pmu_counted_err_ns()).
 * 0 or the first -errno.
 */
int pmu_enable(struct pmu *p, bool on);
/*
 * How long the counters the freeze stops counted in the interval that
 * the last pmu_enable(false) ended: from the midpoint of the
 * pmu_enable(true) before it to the midpoint of that freeze, in ns of
 * the pmu's clock.  Rates of those counters are their deltas over this
 * window, not over the wall time between two reads (the frozen time,
 * stretched when the reading thread is preempted, counts nothing).
 * 0: unknown (no unfreeze before the freeze, or a platform that cannot
 * freeze: its counters count between reads).  The perf backend stops
 * nothing: its window is the time from one group read (its "freeze") to
 * the next, midpoint to midpoint.
 */
uint64_t pmu_counted_ns(const struct pmu *p);
/*
 * How far pmu_counted_ns() can be from the time the counters really
 * counted, in ns: the hardware started and stopped somewhere inside the
 * writes of the unfreeze and the freeze, not at their midpoints, so the
 * window is known to within half the duration of each: half the
 * unfreeze's plus half the freeze's (on the perf backend half of each
 * group read's).  A write held up (the thread preempted around the
 * simulator's lock, or in the pwrite to /dev/cpu/N/msr) makes it large.
 * 0 when the window is unknown.
 */
uint64_t pmu_counted_err_ns(const struct pmu *p);
/* Is the last window uncertain beyond 1 % of itself (pmu_counted_err_ns()
 * more than pmu_counted_ns() / 100)?  False when it is unknown. */
bool pmu_window_uncertain(const struct pmu *p);
/*
 * The time the counters that the freeze stops did not count: where they
 * really stop (the direct backend), pmu_counted_ns() and
 * pmu_counted_err_ns() of the window the last freeze ended, and the
 * midpoint of the unfreeze that opened the window now counting, on the
 * pmu's clock, and half its write (its error); 0 where nothing stops
 * them (the perf backend: a time between two reads is no time they
 * missed) or the window is unknown.  A claim's time_running is the sum
 * of these windows, not the wall time between ticks (mux_charge()).
 */
uint64_t pmu_stopped_counted_ns(const struct pmu *p);
uint64_t pmu_stopped_counted_err_ns(const struct pmu *p);
uint64_t pmu_window_start(const struct pmu *p);
uint64_t pmu_window_start_err(const struct pmu *p);

/*
 * The time slot s itself counted between the last two freezes, by the
 * clock that counted it, in ns: on the perf backend the time_enabled its
 * group gained from the group read of one freeze to that of the next
 * (read-nows and rebuilt groups in between included; a counter summed
 * over several groups: their mean).  The groups of one freeze are read
 * one after another, so a sampler preempted among them makes each
 * group's own time differ from the window pmu_counted_ns() (or the wall
 * time) the sample divides by; a delta over this time is the counter's
 * rate whatever the preemption (mux_own_windows()).  0: unknown (no such
 * clock: the direct backend, whose freeze stops every counter at once;
 * a group opened or failed since the last freeze).
 */
uint64_t pmu_own_window_ns(const struct pmu *p, const struct pmu_slot *s);
/*
 * The time the same clock has counted for s since the last freeze's read
 * of its group, read-nows and a group rebuilt since included (0: none,
 * or unknown).  A claim's counters whose starting value is read after
 * the freeze (a turn that starts: the perf backend rebuilt the groups
 * after the tick's reads) count only what follows: their next delta's
 * own time is pmu_own_window_ns() less this (mux.c settle()); and a
 * read now's delta's own time is this less the same (mux_snap_read()).
 */
uint64_t pmu_own_so_far_ns(const struct pmu *p, const struct pmu_slot *s);

/* Resets and arms every present box where the platform has box-level
 * controls (hsx 2.1.2); a no-op elsewhere.  Call before the first
 * enable.  0 or the first -errno. */
int pmu_reset_boxes(struct pmu *p);

/* Brings every value pmu_read() returns up to now: the perf backend
 * reads each of its groups once (its reads are otherwise those of the
 * last freeze); nothing on the direct backend, whose counters are read
 * live.  0 or the first -errno. */
int pmu_snapshot(struct pmu *p);

/* Reads a slot's raw counter value (a core-scope counter: the sum over
 * the socket's cores, modulo 2^64 like each of them).  0 or -errno. */
int pmu_read(struct pmu *p, const struct pmu_slot *s, uint64_t *raw);

/*
 * Reads the raw counters of s[0..n) now, while they count (no freeze): a
 * claim's read-now, between ticks.  raw[k] gets slot k's value and err[k]
 * 0 or its -errno.  The direct backend reads each register (pmu_read()),
 * from any thread: reading a counter changes nothing.  The perf backend
 * reads the event groups (one read(2) each) and accounts what they
 * counted, so it must run where the tick runs, between ticks (the
 * sampler sees to both, sampler.h).  Returns
 * 0 when every slot was read, else the first -errno (the others are
 * still read).
 */
int pmu_read_now(struct pmu *p, const struct pmu_slot *s, unsigned n,
		 uint64_t *raw, int *err);
/* May pmu_read_now() run on another thread than the tick's, beside it?
 * True on the direct backend; false on one whose reads account what they
 * found (perf: it has a snapshot). */
bool pmu_read_anywhere(const struct pmu *p);

/* Asks the platform's check op whether socket's PMU is still enabled
 * (expect_on) or frozen as the daemon left it: 1 if not (*seen: the
 * value read), 0 if it is or the platform has nothing readable to check
 * (no check op, snbep), -errno. */
int pmu_check_global(struct pmu *p, unsigned socket, bool expect_on,
		     uint64_t *seen);

/*
 * Reads back control and filter registers and compares them with what
 * was written: all, every register this daemon ever wrote (cleared ones
 * included: another agent counting on a counter we do not use); else
 * only those the last pmu_program() wanted, i.e. the controls of the
 * counters that counted since (one read each; a foreign write that
 * stopped or changed one of them and is still there is seen at the next
 * freeze, before any rewrite can hide it).  Returns how many differ
 * (listed in msg; each marked changed in p->reg).  A register that
 * cannot be read does not stop the check: it is marked unread and
 * counted in *unread (the last error is in hw_last_error()).
 */
int pmu_check_controls(struct pmu *p, bool all, char *msg, size_t len,
		       unsigned *unread);

/* Leaves the PMU idle: global controls 0, every written control 0.
 * Returns 0 or the first -errno (continues past errors). */
int pmu_release(struct pmu *p);

#endif
