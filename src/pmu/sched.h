/*
 * sched.h - resolving event names to encodings and placing events on
 * counters.
 *
 * An event is named from the platform catalog
 * ("UNC_CBO_CACHE_LOOKUP.ANY_MESI", "DRAM_DATA_READS") or, where allowed,
 * as a raw encoding ("cbo:0x34:0x8f").  Placement assigns each event of a
 * group a counter index of its unit, honouring the catalog's valid
 * counters, using the same index in every instance of the unit (so that
 * per-socket sums are consistent); fixed and free-running counters have
 * exactly one place each.
 */
#ifndef UNCORED_SCHED_H
#define UNCORED_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plat/plat.h"

#define SCHED_NAME_MAX 96

/*
 * A resolved event.  Modifiers after the name (catalog or raw):
 *   :filterN=V              the value the unit's box filter register N
 *                           (unit_type.filters[N], any N the unit has)
 *                           must hold (hsx CBo FILTER0/1, PCU filter...)
 *   :split=K/N              count only on instances i with i % N == K;
 *                           totals are scaled by instances/counted.
 * Two events in the same box conflict when they need different filter
 * values; the split lets both halves of the boxes hold different ones.
 */
struct evspec {
	char name[SCHED_NAME_MAX];	/* as written, modifiers included */
	int unit;			/* platform unit index */
	const struct event *ev;		/* catalog entry; NULL for raw */
	struct event_enc enc;
	uint16_t ctr_mask;		/* counters it may use */
	int freerun;			/* free-running counter index, or -1 */
	uint32_t filt_set;		/* bit f: filt[f] is required */
	uint64_t filt[PLAT_MAX_FILTERS];
	uint8_t split_n, split_k;	/* 0: every instance */
};

/* Does ev count on instance inst? */
static inline bool evspec_on(const struct evspec *ev, unsigned inst)
{
	return !ev->split_n || inst % ev->split_n == ev->split_k;
}

/*
 * What the groups already placed hold: per unit and counter, the
 * instances using it; per unit, instance and filter, the value required.
 */
struct sched_busy {
	struct inst_set ctr[PLAT_MAX_UNITS][PLAT_MAX_CTRS];
	struct inst_set filt_inst[PLAT_MAX_UNITS][PLAT_MAX_FILTERS];
	/* valid where filt_inst has the instance */
	uint64_t filt[PLAT_MAX_UNITS][PLAT_MAX_FILTERS][PLAT_MAX_INST];
};

/*
 * Resolves text to an event of platform p.  Catalog names match exactly;
 * "unit:0xEV:0xUMASK[...]" is accepted only with allow_raw and is still
 * checked against the unit's field widths.  Returns 0, or -EINVAL /
 * -EPERM (raw not allowed) with the reason in why.
 */
int sched_resolve(const struct platform *p, const char *text, bool allow_raw,
		  struct evspec *out, char *why, size_t whylen);

/* Do a and b count the same thing: one unit, encoding (catalog entry,
 * or raw fields), free-running counter, filter values and split, however
 * their names are written ("EV:filter0=1:split=0/2" and
 * "EV:split=0/2:filter0=1")? */
bool sched_same(const struct evspec *a, const struct evspec *b);

/*
 * The control value that counts ev on counter ctr of unit u, enable bit
 * set: catalog events through plat_encode_event() (which adds the unit's
 * event-select extension where the catalog asks for it), raw encodings
 * through plat_encode().  0 or -EINVAL with the reason in why.
 */
int sched_encode(const struct unit_type *u, const struct evspec *ev,
		 unsigned ctr, uint64_t *ctl, char *why, size_t whylen);

/* Places ev[0..n) at ctr[] into b if every event fits there (around b and
 * the group's own earlier events): true; else false with b as it was. */
bool sched_try_occupy(const struct platform *p, const struct evspec *ev,
		      unsigned n, const int *ctr, struct sched_busy *b);
/* Places ev[0..n) at ctr[] into b. */
void sched_occupy(const struct platform *p, const struct evspec *ev,
		  unsigned n, const int *ctr, struct sched_busy *b);
/* sched_place() around what b holds.  b is used as scratch and left
 * holding what it held (its filter values outside the instance sets
 * that make them valid may change). */
int sched_place_busy(const struct platform *p, const struct evspec *ev,
		     unsigned n, struct sched_busy *b, int *ctr,
		     char *why, size_t whylen);

/*
 * Places n events (all of one group) on counters.  busy[u] is a mask of
 * counters of unit u already taken in every instance (may be NULL).  On success returns 0
 * and sets ctr[i] for every event: the counter index (the same in every
 * instance), the free-running index for free-running events, 0 for the
 * fixed counter.  Returns -EBUSY when the events cannot all be placed
 * together, with the reason in why (e.g. two events that both need
 * counter 0).
 */
int sched_place(const struct platform *p, const struct evspec *ev,
		unsigned n, const uint16_t *busy, int *ctr, char *why,
		size_t whylen);

/*
 * Splits n events (a baseline) into groups that each fit the counters:
 * group 0 holds every event of the units whose events fit together (they
 * count all the time); a unit whose events do not (zen4's 48 data fabric
 * events on 4 counters) is cut, in the events' order, into chunks that
 * each fit, and chunk k of every such unit goes into group k (1, 2, ...):
 * those groups take turns on the counters.  grp[i] receives event i's
 * group, *ngroups their number (1: everything fits at once).  Returns 0,
 * or -EBUSY with the reason in why when an event cannot be placed even
 * alone, or -EINVAL for more than SCHED_MAX_EVENTS events.
 */
int sched_partition(const struct platform *p, const struct evspec *ev,
		    unsigned n, unsigned *grp, unsigned *ngroups, char *why,
		    size_t whylen);
/* ... with events bound together: bind[i] (NULL: none) nonzero and
 * equal for events that must count in one group (the occupancy and
 * inserts of one latency summary, whose ratio a multiplexed interval
 * must scale alike); where a unit is cut into chunks, a bound event
 * that starts a chunk takes its bound events of the chunk before with
 * it (when they are not that whole chunk, which cannot be helped). */
int sched_partition_bound(const struct platform *p, const struct evspec *ev,
			  unsigned n, const unsigned *bind, unsigned *grp,
			  unsigned *ngroups, char *why, size_t whylen);

/*
 * Time-multiplexing: a group of events that must count together (the
 * daemon's baseline, or one claim) as the scheduler sees it.
 */
#define SCHED_MAX_EVENTS 64

struct sched_group {
	const struct evspec *ev;
	unsigned nev;
	bool fixed;		/* placement may not move (the baseline) */
	bool pinned;		/* a pinned claim (fixed too): placed before
				   every other group, so it is never
				   multiplexed out */
	int ctr[SCHED_MAX_EVENTS];	/* in: current (or fixed) placement,
					   -1 = none; out: placement */
	uint64_t running;	/* service received so far (ns or ticks) */
	uint64_t enabled;	/* time it has wanted to run */
	uint64_t order;		/* tie-break: smaller (older) first */
	bool selected;		/* out: runs in the next interval */
	bool moved;		/* out: selected on other counters than
				   ctr held on the way in */
};

/*
 * The scratch space sched_select() works in, kept by the caller from one
 * call to the next so that a tick allocates nothing: the order of the
 * groups (grown to the largest n seen) and the counters taken.
 * Zero-initialise it; sched_ws_free() releases it.
 */
struct sched_ws {
	struct sched_group **ord;
	unsigned cap;
	struct sched_busy busy;		/* what the chosen groups hold */
};
void sched_ws_free(struct sched_ws *ws);

/*
 * Chooses the groups that run in the next interval.  Pinned groups come
 * first, on their own placement (which never overlaps another pinned
 * group's or the baseline's: claims.c sees to it); the others are sorted
 * (qsort) by least service (running/enabled, then order) and each is placed
 * around the counters already taken: a fixed group on its own counters, a
 * movable one on its previous counters if they are free, else wherever
 * sched_place() fits it.  Fixed and free-running counters are shared and
 * never conflict.  The least-served group always runs, so k groups that
 * compete for the same counters each get at least floor(ticks/k) ticks,
 * whatever k.  Works in ws (no allocation once ws has grown to n).
 * Returns the number of groups selected, or 0 when ws cannot grow.
 */
unsigned sched_select(const struct platform *p, struct sched_group *const *g,
		      unsigned n, struct sched_ws *ws);

#endif
