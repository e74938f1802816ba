/*
 * http_stats.h - what the HTTP server counts and why it closes a
 * connection: the uncored_http_* families' numbers.  Shared by the server
 * (http.c), its connection list (http_conn.c), which counts evictions, and
 * the /metrics renderer, so that none of the lower files needs the
 * server's interface (http.h) for them.
 */
#ifndef UNCORED_HTTP_STATS_H
#define UNCORED_HTTP_STATS_H

#include <stdint.h>

/*
 * Why the server closed a connection itself (uncored_http_evictions_total
 * {reason}): a request not complete within timeout_s; the oldest
 * incomplete request, idle connection or answer that made no progress
 * for HTTP_STALL_S, closed at a connection limit for a new one; an
 * answer that drained less than HTTP_MIN_DRAIN_BPS over HTTP_DRAIN_WINDOW_S
 * (or timeout_s if shorter); a new
 * connection closed at a limit because none of the others could be.
 */
enum http_evict {
	HTTP_EVICT_REQUEST_DEADLINE,
	HTTP_EVICT_DISPLACED,
	HTTP_EVICT_WRITE_DEADLINE,
	HTTP_EVICT_REFUSED,
	HTTP_EVICT_N
};
#define HTTP_MIN_DRAIN_BPS	16384	/* bytes a second an answer must drain */
#define HTTP_DRAIN_WINDOW_S	2	/* ... on average over this window */
#define HTTP_STALL_S		1	/* an answer without progress this long
					   may be displaced */
/* The control socket's connections: a library client keeps one open and
 * reads often, so an idle one is displaced only after this grace; one
 * over the budget gets 503 "busy" (Retry-After), or waits to be accepted
 * while as many busy answers as the budget are pending; an answer must
 * drain this fast (local
 * readers read at memory speed: 64 KiB/s is a reader holding its
 * connection, not a slow network). */
#define HTTP_CONTROL_GRACE_MS	1000
#define HTTP_CONTROL_MIN_DRAIN_BPS (256 * 1024)

/* What the server counts, for the uncored_http_* families. */
struct http_stats {
	uint64_t evicted[HTTP_EVICT_N];	/* connections closed, by reason */
	/* open now, [0] TCP, [1] control socket, by what they do: reading
	 * a request (or idle between requests), writing an answer, or
	 * stalled (an answer without progress for HTTP_STALL_S) */
	unsigned reading[2], writing[2], stalled[2];
	/* bcrypt checks of credentials the cache did not know, by verdict,
	 * and the CPU time they took */
	uint64_t auth_accepted, auth_refused, auth_cpu_ns;
	uint64_t auth_busy;	/* new credentials answered 503 unchecked
				   (over the budget, or the queue full) */
	unsigned auth_pending;	/* checks waiting or running now */
	uint64_t busy;		/* control connections over the budget,
				   answered 503 "busy" unprocessed */
};

#endif
