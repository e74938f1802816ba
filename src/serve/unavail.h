/*
 * unavail.h - what the daemon serves where nothing can be counted.
 *
 * With [daemon] unavailable = serve (--unavailable=serve), a start-up that
 * finds no way to any uncore counter (an unsupported CPU, a kernel or VM
 * without uncore PMUs, a missing capability: the cases that otherwise end
 * the daemon with status 2 or 4) does not exit: the daemon serves these
 * few routes, saying why, so that a DaemonSet pod on such a node stays up
 * and one alert says what is wrong instead of a crash loop.
 */
#ifndef UNCORED_UNAVAIL_H
#define UNCORED_UNAVAIL_H

#include <stdatomic.h>
#include <stddef.h>

#include "base/buf.h"
#include "http/http.h"
#include "base/prom.h"

/* The routes' context: what the start-up found, borrowed for the
 * server's life. */
struct unavail {
	const char *version;
	const char *revision;
	const char *build_date;
	const char *reason;	/* the message the daemon would exit with */
	int exit_status;	/* ... and its status (2 or 4) */
	double start_time_s;	/* CLOCK_REALTIME */
	atomic_uint_fast64_t scrapes;
};

/*
 * /metrics: uncored_build_info (platform and backend "none"),
 * uncored_counting_available 0, uncored_counting_unavailable_info{reason}
 * 1, uncored_scrapes_total and the process_* families.  /healthz: 503
 * with the reason (readiness: nothing is counted), but 200 with
 * ?live=1 (liveness: the daemon is up and answering).
 * /api/v1/status: 200, the version and the reason.  Any other route: 404.
 */
extern const struct http_route unavail_routes[];
extern const size_t unavail_nroutes;

/* Renders the /metrics page of u into b in fmt.  0 or -ENOMEM. */
int unavail_render(struct buf *b, enum prom_fmt fmt, const struct unavail *u);

#endif
