/*
 * group.h - named groups of events (uncorectl run -g MEM, uncorectl
 * groups), as data: what a group measures and the figures it gives, the
 * same on every platform.
 *
 * A group names the sources of the platform's derived table (plat.h,
 * struct derived_src: "dram_rd", "dram_wr", "lookups", "misses", the
 * headline sources every platform defines under those names, each the
 * platform's own event with its scale, e.g. 64 bytes a CAS), never an
 * event: the events are the platform's, the figures the group's.  So a
 * group counts on every platform whose derived table has its sources,
 * and the next platform gets the groups by defining its sources, which
 * its derived metrics need anyway.  GET /api/v1/groups serves each
 * group with the events of its sources' chosen alternatives on this
 * machine; the client claims them and computes the figures.
 *
 * A figure is one of six forms over sums of sources (each source the
 * sum of its events' counts times their scale, over the run or an
 * interval, per socket or summed over sockets):
 *   GF_SUM              sum(of)                      bytes, a count
 *   GF_PER_SECOND       sum(of) / seconds            bytes_per_second
 *   GF_RATIO            k x sum(of) / sum(over)      ratio, or the
 *                                                    unit of k x of / over
 *   GF_ONE_MINUS_RATIO  1 - sum(of) / sum(over)      ratio
 *   GF_IN_FLIGHT        sum(of) / sum(per)           "" (a mean count)
 *   GF_LATENCY          sum(of) / sum(per) x seconds / sum(over)
 *                                                    seconds
 * GF_IN_FLIGHT and GF_LATENCY are Little's law, sum then divide
 * (doc/metrics.md "Memory read latency"): of is an occupancy summed over
 * the socket's boxes (cycles x entries), per the clock of one box (a
 * source the platform marks mean, or a socket's one clock: the route
 * serves the factor that makes the boxes' sum their mean), over the
 * requests inserted; occupancy over clock is the mean requests in
 * flight, and that times the seconds over the requests their mean
 * latency.  Both divide per socket (each socket its own clock): summed
 * over sockets, the requests in flight are the sockets' sum and the
 * latency that sum times the seconds over every socket's requests.
 * (k is the figure's factor, 1 unless given: zen5's sampled latency
 * counts 10 ns a count.)  A division by zero has no value (null), never
 * a made-up one.
 *
 * Figures of one name are alternatives: of those the route serves the
 * first whose sources this machine counts (or, where none does, the
 * first, absent with its reason), so that one figure name is the TOR's
 * Little's law on Intel and the L3's sampled latency on zen5.
 *
 * A group's sources are required (the group counts only where the
 * platform has every one) or optional (opt: the group counts without
 * them, and a figure over an optional source the platform lacks is
 * absent with the reason, never 0): MEM carries the read latency where
 * the platform has its events.
 */
#ifndef UNCORED_PLAT_GROUP_H
#define UNCORED_PLAT_GROUP_H

#include <stddef.h>

#define GROUP_MAX_SRC 8

enum evgroup_kind { GF_SUM, GF_PER_SECOND, GF_RATIO, GF_ONE_MINUS_RATIO,
		   GF_IN_FLIGHT, GF_LATENCY };

struct evgroup_figure {
	const char *name;	/* "dram_read_bytes" */
	const char *unit;	/* "bytes", "bytes_per_second", "ratio", "" */
	const char *desc;
	enum evgroup_kind kind;
	const char *of[GROUP_MAX_SRC];		/* sources, NULL-ended */
	const char *over[GROUP_MAX_SRC];	/* GF_*RATIO, GF_LATENCY: the
						   divisor */
	const char *per[GROUP_MAX_SRC];		/* GF_IN_FLIGHT, GF_LATENCY:
						   the clock of one box */
	double k;	/* GF_RATIO: factor on sum(of); 0 is 1 */
};

struct evgroup {
	const char *name;	/* "MEM", as -g takes it (case-insensitive) */
	const char *desc;
	const char *src[GROUP_MAX_SRC];	/* the sources it claims, in order */
	const char *opt[GROUP_MAX_SRC];	/* ... and those it claims where the
					   platform has them */
	const struct evgroup_figure *fig;
	size_t nfig;
};

/* Every group (static data) and their number. */
extern const struct evgroup evgroup_all[];
extern const size_t evgroup_count;

/* The name of kind k as served ("sum", "per_second", "ratio",
 * "one_minus_ratio", "in_flight", "latency"). */
const char *evgroup_kind_name(enum evgroup_kind k);

#endif
