/*
 * uncored.h - uncore counts for a program's own code: the client library
 * of uncored, the daemon that owns the uncore performance-monitoring unit
 * (libuncored; pkg-config --cflags --libs uncored).
 *
 * The daemon programs and samples the uncore counters (LLC slices, memory
 * controllers, interconnect) for its own metrics and lends them to other
 * programs as claims: a set of events counted together, owned by the
 * caller's uid, with a renewable lease.  This library makes claims over
 * the daemon's control socket and reads them at the moment of the call,
 * and on top of that offers marker-style regions:
 *
 *	struct uncored *u = uncored_connect(NULL);
 *	char id[32];
 *	uncored_claim(u, "UNC_M_CAS_COUNT.RD,UNC_M_CAS_COUNT.WR", 0, 0,
 *		      id, sizeof(id));
 *	uncored_region_begin(u, "copy");
 *	copy(dst, src, n);
 *	uncored_region_end(u, "copy");
 *	uncored_region_report(u, stderr);
 *	uncored_disconnect(u);
 *
 * UNCORE COUNTS ARE PER SOCKET, NOT PER THREAD.  A reading counts
 * everything the socket's caches and memory controllers did meanwhile,
 * for every process on it, as with every uncore tool: measure a region on
 * an otherwise quiet socket, or compare against a run without it.
 *
 * Errors: every call that can fail returns 0 or a negative errno, and
 * uncored_error() gives the message (the daemon's, where it sent one):
 *   -ENOENT        no such claim (released, expired, or another uid's:
 *                  the daemon answers both alike), or no control socket
 *                  at the path
 *   -EINVAL        an event the platform lacks (the message names it), a
 *                  bad argument
 *   -EACCES        the control socket is not the caller's to use (the
 *                  message names its group: see uncored.conf(5)
 *                  control_group)
 *   -EPERM         raw encodings not allowed
 *   -EBUSY         the events can never count together, or a pinned
 *                  claim cannot have counters of its own (the message
 *                  names what holds them)
 *   -EUSERS        a claim limit of the daemon reached
 *   -EAGAIN        the daemon is busy (its control socket over its
 *                  connection budget, or the caller's uid over its
 *                  share: the request was not carried out, and was
 *                  sent again 8 times over about 1.3 s) or not ready;
 *                  try again later
 *   -ECONNRESET    the daemon restarted: its claims are gone;
 *                  uncored_connect() again (only a restart, never load).
 *                  A restart is told by the daemon's instance id, which
 *                  every answer carries, not by its pid (under socket
 *                  activation systemd's, which never changes)
 *   -ECONNABORTED  the daemon closed the connection without answering a
 *                  claim, release or renewal, and did not restart: it
 *                  may or may not have been carried out
 *   -ENOTCONN      the connection was lost earlier
 *   -ETIMEDOUT     no answer within 10 s
 *   -EPROTO        the daemon's answer made no sense, or was about
 *                  another claim or other events than asked for (every
 *                  answer about a claim is checked: never data)
 *   -ENOMEM
 * The library never aborts and never writes to stdout or stderr, unless
 * asked: UNCORED_DEBUG=1 in the environment logs every request and answer
 * to stderr, and the region report is printed where the program says (or
 * at exit with UNCORED_REPORT=1).
 *
 * Threads: every function may be called from any thread.  A connection's
 * calls are serialised by a lock of its own, so one connection may be
 * shared; a thread that reads often is better served by a connection of
 * its own (readings then never wait for each other).  The library's only
 * global state: uncored_error(NULL)'s message, which is per thread, and,
 * for regions without a connection (NULL) or with UNCORED_REPORT set, the
 * default connection and the list of connections to report at exit, both
 * behind a lock.
 *
 * fork(): a connection belongs to the process that made it.  In a child,
 * the first call on a connection inherited from the parent closes the
 * child's copy of the socket and connects anew, to the same daemon
 * instance (or fails with -ECONNRESET if it restarted); the parent's
 * answers are never read by the child.  The connection's lock is made
 * anew in the child, so a call another thread of the parent was in at
 * the fork does not block it.  Claims made before the fork are usable
 * from both processes (they share the uid).
 *
 * The ABI: opaque types and functions only (no structure layout); the
 * soname is libuncored.so.0.
 */
#ifndef UNCORED_H
#define UNCORED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define UNCORED_API __attribute__((visibility("default")))
#else
#define UNCORED_API
#endif

/* uncored_claim() flags */
#define UNCORED_PINNED 0x1u	/* counters of its own for its whole lease,
				   never multiplexed out, counting from the
				   call; refused (-EBUSY) if it cannot be */
#define UNCORED_EXPORT 0x2u	/* also on the daemon's /metrics */

struct uncored;			/* one connection to a daemon */
struct uncored_counts;		/* one reading of a claim */

/*
 * Connects to the daemon's control socket: socket_path, or NULL for
 * $UNCORED_SOCKET, else /run/uncored/uncored.sock.  "http://HOST:PORT"
 * talks to a TCP listener instead (read-only routes: no claims).  The
 * connection stays open between calls (and is opened again, unseen, when
 * the daemon closed it for being idle).  Returns the connection (free it
 * with uncored_disconnect()), or NULL with errno set and the reason in
 * uncored_error(NULL).
 */
UNCORED_API struct uncored *uncored_connect(const char *socket_path);
/* Closes u (NULL: nothing) and frees it; claims made through it stay
 * until released or their lease ends.  With UNCORED_REPORT set, prints
 * u's region report to stderr first. */
UNCORED_API void uncored_disconnect(struct uncored *u);
/*
 * The message of the last failed call on u (whichever thread made it),
 * or of the calling thread's last failed uncored_connect() when u is
 * NULL; "" if none.  The text is the caller's thread's copy: valid until
 * that thread calls uncored_error() again.
 */
UNCORED_API const char *uncored_error(const struct uncored *u);

/*
 * Claims events (comma-separated catalog names, as uncorectl takes them,
 * modifiers such as ":split=0/2" included) for ttl_s seconds (0: the
 * daemon's default lease), with flags UNCORED_PINNED, UNCORED_EXPORT.
 * The claim's id (as "c12-k7q2zx": a number and a tag drawn at each start
 * of the daemon, so that it never names a claim of another lifetime) is
 * written to id (idlen bytes, at least 16).
 * A claim that is not pinned may share counters with the daemon's own
 * metrics and other claims, time-multiplexed: its readings then say how
 * long it ran (uncored_counts_running_ns()) and are scaled.
 */
UNCORED_API int uncored_claim(struct uncored *u, const char *events,
			      unsigned ttl_s, unsigned flags, char *id,
			      size_t idlen);
/* The claim's label as the daemon shows it (uncorectl claims), for the
 * claims u makes from now on; default: the program's name.  At most 63
 * bytes of printable UTF-8. */
UNCORED_API int uncored_set_label(struct uncored *u, const char *label);
/*
 * The counts of claim id at the moment of the call, not at the daemon's
 * last tick, into a new *out (free it with uncored_counts_free()).
 */
UNCORED_API int uncored_read(struct uncored *u, const char *id,
			     struct uncored_counts **out);
/* Extends the lease by ttl_s seconds from now (0: the claim's lease). */
UNCORED_API int uncored_renew(struct uncored *u, const char *id,
			      unsigned ttl_s);
/* Ends the claim; reading it afterwards gives -ENOENT. */
UNCORED_API int uncored_release(struct uncored *u, const char *id);

/* ---- a reading ---- */
/* The number of events, and event i's name as claimed (NULL past the
 * end; the text belongs to c and lives until uncored_counts_free()). */
UNCORED_API size_t uncored_counts_nevents(const struct uncored_counts *c);
UNCORED_API const char *uncored_counts_event(const struct uncored_counts *c,
					     size_t i);
/* The number of sockets the counts are per. */
UNCORED_API unsigned uncored_counts_nsockets(const struct uncored_counts *c);
/*
 * Event i's count since the claim began on socket (-1: all sockets),
 * scaled for the time it was multiplexed out: count x enabled / running.
 * NaN before the event first ran, or for an i or socket out of range.
 */
UNCORED_API double uncored_counts_value(const struct uncored_counts *c,
					size_t i, int socket);
/* How long event i has been enabled (claimed) and running (counting on a
 * counter) until the reading, in ns; equal unless it was multiplexed. */
UNCORED_API uint64_t uncored_counts_enabled_ns(const struct uncored_counts *c,
					       size_t i);
UNCORED_API uint64_t uncored_counts_running_ns(const struct uncored_counts *c,
					       size_t i);
UNCORED_API void uncored_counts_free(struct uncored_counts *c);

/* ---- regions ---- */
/*
 * Marks the beginning and the end of a region of code.  A region reads
 * every live claim made through u at its beginning and its end and adds
 * what each event counted meanwhile (scaled by the region's own enabled
 * and running time) to the region's name: repeats accumulate, regions
 * nest, and a name may be open several times at once (end closes the one
 * opened last).  With u NULL, the default connection: $UNCORED_SOCKET and
 * one claim of $UNCORED_EVENTS (comma-separated; pinned when
 * UNCORED_PINNED=1 is set), made at the first begin.  A region with no
 * claim to read is -EINVAL; end without begin is -EINVAL.  Each begin and
 * end costs one reading per claim (tens of microseconds).
 */
UNCORED_API int uncored_region_begin(struct uncored *u, const char *name);
UNCORED_API int uncored_region_end(struct uncored *u, const char *name);
/*
 * Writes u's regions (NULL: the default connection's) to f as a table:
 * name, calls, seconds, and per event and socket the count and the rate
 * per second (and the share of the time it ran, if multiplexed).  With
 * UNCORED_REPORT=1 in the environment it is also printed to stderr at
 * uncored_disconnect() and, for connections still open, at exit.
 */
UNCORED_API int uncored_region_report(struct uncored *u, FILE *f);

/* ---- any route ---- */
/*
 * One request to the daemon (what uncorectl builds on): method "GET",
 * "POST" or "DELETE", path such as "/api/v1/status", body (POST, JSON)
 * or NULL.  *status gets the HTTP status and *response a NUL-terminated
 * copy of the body (free it with free(); its length in *len if len is
 * not NULL).  Returns 0 for a 2xx answer; for another, the errno that
 * matches it with the daemon's message in uncored_error() (status and
 * response filled too); for no answer, -errno (*response NULL).
 */
UNCORED_API int uncored_request(struct uncored *u, const char *method,
				const char *path, const char *body,
				int *status, char **response, size_t *len);

#ifdef __cplusplus
}
#endif

#endif
