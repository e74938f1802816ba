/*
 * metrics.h - the /metrics page: every uncore_* and uncored_* family of
 * doc/design.md section 7, rendered from a program's latest snapshot (never
 * from hardware), plus process_* metrics.
 */
#ifndef UNCORED_METRICS_H
#define UNCORED_METRICS_H

#include <stdint.h>

#include "base/buf.h"
#include "http/http_stats.h"
#include "base/prom.h"
#include "core/sampler.h"

/* What the page shows besides the snapshot. */
struct metrics_info {
	const char *version;
	const char *revision;		/* git revision of the build */
	const char *build_date;		/* ISO 8601, UTC */
	const char *backend;		/* "direct" or "perf" */
	bool simulated;			/* on the simulator */
	uint64_t scrapes;		/* scrapes of /metrics so far */
	unsigned interval_ms;
	double start_time_s;		/* CLOCK_REALTIME at start */
	const struct claims_pub *claims;	/* the sampler's claim totals;
					   NULL: no claim families */
	const struct http_stats *http;	/* the HTTP server's counters;
					   NULL: no uncored_http_* families */
	struct rdt_mon *resctrl;	/* NULL: no uncore_resctrl_* families */
	struct ufreq_mon *ufreq;	/* NULL: no uncore_clock_limit_* */
	struct energy_mon *energy;	/* NULL: no uncore_energy_* */
	struct throttle_mon *throttle;	/* NULL: no uncore_frequency_limited_*
					   from thermal_throttle/ */
};

/* Copies the newest snapshot of p into *st and, if totals/up are not
 * NULL, the per-series totals and up flags (arrays of p->ns).  Returns 0,
 * or -ENOENT before the first tick.  words is scratch space of
 * snap_words(p->ns, p->nvals) words. */
int metrics_snapshot(const struct program *p, uint64_t *words,
		     struct snap *st);

/* Renders the whole page into b.  0, or -ENOMEM / -EINVAL (a bug: an
 * invalid name). */
int metrics_render(struct buf *b, enum prom_fmt fmt, const struct program *p,
		   const struct metrics_info *info);

/* The derived values of a snapshot's words (as metrics_snapshot()
 * copied them) into vals[p->nvals], in the layout of p->dplan. */
void metrics_values(const struct program *p, const uint64_t *words,
		    double *vals);

/* One derived value of a snapshot's words: the metric called name (with
 * JSON key json, NULL: the first of that name) on socket s, instance
 * inst (0 for a per-socket metric).  NaN when there is none. */
double metrics_value(const struct program *p, const uint64_t *words,
		     const char *name, const char *json, unsigned s,
		     unsigned inst);

/* Label value of socket s ("0"), unit instance etc. in static storage
 * for small numbers. */
const char *metrics_num(unsigned n);

#endif
