/*
 * pmu.h - ownership and programming of the uncore PMU.
 *
 * This is the only module that writes control registers.  It knows the
 * counter positions the daemon uses (slots), programs them, freezes and
 * unfreezes the sockets around a read, checks for interference, and on
 * release leaves every control register it wrote cleared and the PMU
 * idle.
 */
#ifndef UNCORED_PMU_H
#define UNCORED_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/hw.h"
#include "plat/plat.h"

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
	uint8_t width;
	struct hw_addr ctl;	/* unused for free-running */
	struct hw_addr ctr;
	uint64_t ctl_val;	/* value to program (with the enable bit) */
};

#define PMU_MAX_WRITTEN 2048	/* hsx: 172 control registers a socket */

struct pmu {
	struct hw *hw;
	const struct topology *topo;
	const struct platform *plat;
	/* each socket's global control; unused without one (snbep) */
	struct hw_addr gctl[PLAT_MAX_SOCKETS];
	/* every control register of every present unit (ownership checks) */
	struct hw_addr ctl[PMU_MAX_WRITTEN];
	const struct unit_type *ctl_unit[PMU_MAX_WRITTEN];
	unsigned nctl;
	/* every box filter register of every present unit (cleared with
	 * the controls: a crashed daemon's claim may have left them set) */
	struct hw_addr flt[PMU_MAX_WRITTEN];
	unsigned nflt;
	/* every control register ever written, for release */
	struct hw_addr written[PMU_MAX_WRITTEN];
	uint64_t written_val[PMU_MAX_WRITTEN];	/* last value written */
	const struct unit_type *written_unit[PMU_MAX_WRITTEN];
	/* set by pmu_check_controls(): could not be read back */
	bool written_unread[PMU_MAX_WRITTEN];
	unsigned nwritten;
	bool owns;		/* the PMU is ours (enabled by us) */
};

void pmu_init(struct pmu *p, struct hw *hw, const struct topology *t);

/* Fills s with the addresses of a slot.  idx is a counter index or, for a
 * free-running unit, the free-running counter index. */
void pmu_slot(const struct pmu *p, struct pmu_slot *s, unsigned socket,
	      int unit, unsigned inst, unsigned idx);

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
 * 0 or the first -errno (continues past errors). */
int pmu_program(struct pmu *p, const struct pmu_slot *s, unsigned n,
		bool force);

/* Enable (unfreeze) or disable (freeze) every socket through the
 * platform's global_enable op: its global control, or each box's freeze
 * bit (snbep); a no-op where the platform has neither. */
int pmu_enable(struct pmu *p, bool on);

/* Resets and arms every present box where the platform has box-level
 * controls (hsx 2.1.2); a no-op elsewhere.  Call before the first
 * enable.  0 or the first -errno. */
int pmu_reset_boxes(struct pmu *p);

/* Reads a slot's raw counter value (a core-scope counter: the sum over
 * the socket's cores, modulo 2^64 like each of them).  0 or -errno. */
int pmu_read(struct pmu *p, const struct pmu_slot *s, uint64_t *raw);

/* Asks the platform's check op whether socket's PMU is still enabled
 * (expect_on) or frozen as the daemon left it: 1 if not (*seen: the
 * value read), 0 if it is or the platform has nothing readable to check
 * (no check op, snbep), -errno. */
int pmu_check_global(struct pmu *p, unsigned socket, bool expect_on,
		     uint64_t *seen);

/* Reads back every programmed control register; returns how many differ
 * from what was written (listed in msg).  A register that cannot be read
 * does not stop the check: it is marked in written_unread[] and counted
 * in *unread (the last error is in hw_last_error()). */
int pmu_check_controls(struct pmu *p, char *msg, size_t len,
		       unsigned *unread);

/* Leaves the PMU idle: global controls 0, every written control 0.
 * Returns 0 or the first -errno (continues past errors). */
int pmu_release(struct pmu *p);

#endif
