/*
 * metrics.h - the /metrics page: every uncore_* and uncored_* family of
 * DESIGN.md section 7, rendered from a program's latest snapshot (never
 * from hardware), plus process_* metrics.
 */
#ifndef UNCORED_METRICS_H
#define UNCORED_METRICS_H

#include <stdint.h>

#include "buf.h"
#include "prom.h"
#include "sampler.h"

/* What the page shows besides the snapshot. */
struct metrics_info {
	const char *version;
	const char *revision;		/* git revision of the build */
	const char *build_date;		/* ISO 8601, UTC */
	const char *backend;		/* "hw" or "sim" */
	uint64_t scrapes;		/* including this one */
	unsigned interval_ms;
	double start_time_s;		/* CLOCK_REALTIME at start */
	const struct claims_pub *claims;	/* the sampler's claim totals;
					   NULL: no claim families */
};

/* Copies the newest snapshot of p into *st and, if totals/up are not
 * NULL, the per-series totals and up flags (arrays of p->ns).  Returns 0,
 * or -ENOENT before the first tick.  words is scratch space of
 * snap_words(p->ns) words. */
int metrics_snapshot(const struct program *p, uint64_t *words,
		     struct snap *st);

/* Renders the whole page into b.  0, or -ENOMEM / -EINVAL (a bug: an
 * invalid name). */
int metrics_render(struct buf *b, enum prom_fmt fmt, const struct program *p,
		   const struct metrics_info *info);

/*
 * Adds, per (socket, instance), quantity q's per-series values val[ns]
 * (totals or one sample's deltas) times its scale to out, and marks in
 * seen[socket] (bit = instance) the instances that count q.  With an
 * invalid bitmap, invalid series are left out and marked in bad[socket].
 * Returns false when the program does not count q.
 */
bool metrics_per_inst(const struct program *p, const uint64_t *val,
		      const uint64_t *invalid, enum plat_qty q,
		      uint64_t out[PLAT_MAX_SOCKETS][PLAT_MAX_INST],
		      struct inst_set seen[PLAT_MAX_SOCKETS],
		      struct inst_set bad[PLAT_MAX_SOCKETS]);

/* Label value of socket s ("0"), unit instance etc. in static storage
 * for small numbers. */
const char *metrics_num(unsigned n);

#endif
