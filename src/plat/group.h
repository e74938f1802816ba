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
 * A figure is one of four forms over sums of sources (each source the
 * sum of its events' counts times their scale, over the run or an
 * interval, per socket or summed over sockets):
 *   GF_SUM              sum(of)                      bytes, a count
 *   GF_PER_SECOND       sum(of) / seconds            bytes_per_second
 *   GF_RATIO            sum(of) / sum(over)          ratio
 *   GF_ONE_MINUS_RATIO  1 - sum(of) / sum(over)      ratio
 * A division by zero has no value (null), never a made-up one.
 */
#ifndef UNCORED_PLAT_GROUP_H
#define UNCORED_PLAT_GROUP_H

#include <stddef.h>

#define GROUP_MAX_SRC 4

enum evgroup_kind { GF_SUM, GF_PER_SECOND, GF_RATIO, GF_ONE_MINUS_RATIO };

struct evgroup_figure {
	const char *name;	/* "dram_read_bytes" */
	const char *unit;	/* "bytes", "bytes_per_second", "ratio", "" */
	const char *desc;
	enum evgroup_kind kind;
	const char *of[GROUP_MAX_SRC];		/* sources, NULL-ended */
	const char *over[GROUP_MAX_SRC];	/* GF_*RATIO: the divisor */
};

struct evgroup {
	const char *name;	/* "MEM", as -g takes it (case-insensitive) */
	const char *desc;
	const char *src[GROUP_MAX_SRC];	/* the sources it claims, in order */
	const struct evgroup_figure *fig;
	size_t nfig;
};

/* Every group (static data) and their number. */
extern const struct evgroup evgroup_all[];
extern const size_t evgroup_count;

/* The name of kind k as served ("sum", "per_second", "ratio",
 * "one_minus_ratio"). */
const char *evgroup_kind_name(enum evgroup_kind k);

#endif
