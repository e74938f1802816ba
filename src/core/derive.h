/*
 * derive.h - the one evaluator of the derived metrics (the platform's
 * struct derived_table, plat.h): counters as running totals, gauges over
 * the last interval, from a program's per-series values.
 *
 * A plan binds a platform's table to a program's series (socket,
 * instance, event, split scale) and the topology.  It fixes where each
 * value lives in a flat array of doubles (the layout depends only on the
 * platform and the topology, so running totals carry over from one
 * program to the next) and which values the program can produce.  Plans
 * are immutable after derive_plan_new() and may be read from any thread.
 * NaN in a value array means "no value" (not counted, an invalid input,
 * a zero denominator): it is never exported as data.
 */
#ifndef UNCORED_DERIVE_H
#define UNCORED_DERIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plat/plat.h"

/* One series of a program, as the plan sees it. */
struct derive_series {
	unsigned socket, inst;
	const char *event;	/* the event name, modifiers included */
	double scale;		/* instances present / counting (split) */
	bool live;		/* counts while the PMU is frozen (free-running,
				   or a unit the freeze cannot stop): its delta
				   stands for the wall time between reads, not
				   for the counting window */
};

struct derive_plan;

/*
 * Checks platform pl's derived table against the rules in plat.h (known
 * sources, catalog events, counters that cannot go down, well-formed
 * formulas, consistent families, one unit per per-instance metric,
 * unique JSON keys).  0, or -EINVAL with the first problem in why.
 */
int derive_check(const struct platform *pl, char *why, size_t whylen);

/*
 * A plan for the ns series ser[] on topology t (platform t->plat).
 * NULL with the reason in why (an invalid table, out of memory).  The
 * caller owns the plan; ser is not kept.
 */
struct derive_plan *derive_plan_new(const struct topology *t,
				    const struct derive_series *ser,
				    unsigned ns, char *why, size_t whylen);
void derive_plan_free(struct derive_plan *dp);

/* Values in the plan's layout. */
unsigned derive_nvals(const struct derive_plan *dp);
/* The table the plan evaluates. */
const struct derived_table *derive_table(const struct derive_plan *dp);
/* Values per socket of metric m: 1, or its unit's instances for a
 * per-instance metric. */
unsigned derive_nper(const struct derive_plan *dp, size_t m);
/* Index of metric m's value on socket s (instance inst if per-instance)
 * in a value array. */
unsigned derive_index(const struct derive_plan *dp, size_t m, unsigned s,
		      unsigned inst);
/* Does the program produce that value (every source counted there)? */
bool derive_live(const struct derive_plan *dp, unsigned idx);

/* Bytes of scratch space derive_gauges() and derive_tick() need (the
 * caller allocates it once, so that a tick allocates nothing). */
size_t derive_scratch_size(const struct derive_plan *dp);

/*
 * The gauges of one interval of secs seconds (the wall time between two
 * reads) from per-series deltas delta[ns] and an invalid bitmap (NULL:
 * all valid) into out[nvals]; every other value is NaN, and every gauge
 * with secs <= 0.  counted: how long the series that the freeze stops
 * counted in that interval (the counting window, pmu_counted_ns()); their
 * deltas are taken over it, the live series' over secs, so a rate is
 * events per second of counting and a ratio of two sources compares
 * like with like.  counted <= 0: secs for every series.  scratch:
 * derive_scratch_size() bytes, suitably aligned for doubles (malloc).
 */
void derive_gauges(const struct derive_plan *dp, const uint64_t *delta,
		   const uint64_t *invalid, double secs, double counted,
		   double *out, void *scratch);

/*
 * One sampler tick: adds to the running totals acc[nvals] what each
 * counter gained from the per-series increments inc[ns], then writes
 * into out[nvals] the totals of the counters the program produces and
 * the gauges of the interval (as derive_gauges()).  keep: where a gauge
 * the program produces has no value, the value already in out stays
 * (the baseline was multiplexed out, not wrong).  scratch as for
 * derive_gauges().
 */
void derive_tick(const struct derive_plan *dp, const uint64_t *inc,
		 const uint64_t *delta, const uint64_t *invalid, double secs,
		 double counted, bool keep, double *acc, double *out,
		 void *scratch);

/*
 * Counter metric m of socket s evaluated over arbitrary per-series values
 * val[ns] (e.g. the deltas between two readings).  NaN when the program
 * does not produce it.
 */
double derive_counter(const struct derive_plan *dp, size_t m, unsigned s,
		      const uint64_t *val);

/*
 * The event of source name's chosen alternative (its first entry; struct
 * derived_src.alt), for the status to say which path a metric takes
 * (zen4 "dram_rd": "umc_cas_cmd.rd" or the data fabric's).  Points into
 * the platform's table; NULL for an unknown name.
 */
const char *derive_source_event(const struct derive_plan *dp,
				const char *name);

/* How many entries (events) source name's chosen alternative sums
 * (zen4 "dram_rd": 1 through the UMCs, 24 through the data fabric); 0
 * for an unknown name. */
unsigned derive_source_count(const struct derive_plan *dp, const char *name);

/*
 * Is event (as the baseline names it) a source of t's platform's derived
 * metrics only in alternatives that topology t does not choose (zen4's
 * data fabric beats where the kernel has amd_umc_N)?  A default baseline
 * event for which this holds feeds nothing and is left out.  false for
 * an event the table does not name, or out of memory.
 */
bool derive_alt_unchosen(const struct topology *t, const char *event);

/*
 * The metric that event (as a claim names it, modifiers included) gives
 * as it is on platform pl: a per-socket counter of pl's table without
 * fixed labels whose formula is one source, scaled or not, of which one
 * alternative (struct derived_src.alt) is that event alone, summed over
 * the unit's instances (not a mean).  A claim's per-socket count of
 * event times *scale is then that metric's increase
 * (uncore_dram_read_bytes_total: a DRAM read event x 64), whichever
 * alternative the daemon's own baseline takes: alternatives count the
 * same thing.  Events compare by what they count (encoding and
 * filters), not by how their names are written, and a source counted
 * on part of the instances (:split, which the plan scales up) is met by
 * its event without the split, which counts them all.  (An event with a
 * :split modifier counts on part of the instances, which the plan
 * scales up and a claim's count is not: the claim routes ask only for
 * events without one.)  Returns the metric's
 * index in pl's table, or -1.
 */
int derive_event_metric(const struct platform *pl, const char *event,
			double *scale);

/* Index of the metric named name with JSON key json (NULL: the first of
 * that name) in pl's table, or -1. */
int derive_find(const struct platform *pl, const char *name,
		const char *json);

#endif
