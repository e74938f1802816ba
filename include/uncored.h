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
 * ON THE SIMULATOR (uncored --simulate, the daemon's demo and test mode)
 * THE COUNTS ARE THE WORKLOAD FILE'S RATES, not the program's traffic:
 * everything works as on hardware, but the numbers say nothing about the
 * code measured.
 *
 * Errors: every call that can fail returns 0 or a negative errno, and
 * uncored_error() gives the message (the daemon's, where it sent one;
 * every failure sets its own):
 *   -ENOENT        no such claim (released, expired, or another uid's:
 *                  the daemon answers both alike), or no control socket
 *                  at the path (connect); never a daemon that went
 *                  away (-ECONNRESET, -ENOTCONN)
 *   -EACCES        the control socket is not the caller's to use (the
 *                  message names its group: see uncored.conf(5)
 *                  control_group)
 *   -ECONNREFUSED  nothing listens on the socket: no daemon
 *   -ENOTSOCK      the path is not a socket
 *   -ENAMETOOLONG  the socket path is too long for a socket address
 *   -EHOSTUNREACH  an http:// address that cannot be found or reached
 *   -EINVAL        an event the platform lacks (the message names it), a
 *                  bad argument (u NULL: the message in
 *                  uncored_error(NULL))
 *   -EPERM         raw encodings not allowed, a claim route on a TCP
 *                  listener
 *   -EBUSY         the events can never count together, or a pinned
 *                  claim cannot have counters of its own (the message
 *                  names what holds them)
 *   -EUSERS        a claim limit of the daemon reached
 *   -EAGAIN        the daemon is busy (its control socket over its
 *                  connection budget, or the caller's uid over its
 *                  share: the request was not carried out, and was
 *                  sent again 8 times over about 1.3 s) or not ready;
 *                  try again later
 *   -E2BIG         a request body over the daemon's limit
 *   -EOPNOTSUPP    a method the route does not take
 *   -EIO           the daemon failed, or the report could not be written
 *   -ECONNRESET    the daemon restarted: its claims are gone;
 *                  uncored_connect() again (only a restart, never load).
 *                  A restart is told by the daemon's instance id, which
 *                  every answer carries, not by its pid (under socket
 *                  activation systemd's, which never changes).  Said
 *                  once: the connection's later calls are -ENOTCONN
 *   -ECONNABORTED  the daemon closed the connection without answering a
 *                  claim, release or renewal, and did not restart: it
 *                  may or may not have been carried out
 *   -ENOTCONN      the daemon is gone (killed or stopped: the
 *                  connection broke and connecting again failed, the
 *                  message says why), or the connection was lost to a
 *                  restart earlier: its claims are lost
 *   -ETIMEDOUT     no answer within 10 s
 *   -EPROTO        the daemon's answer made no sense, or was about
 *                  another claim or other events than asked for (every
 *                  answer about a claim is checked: never data)
 *   -EPROTONOSUPPORT  an https:// address (plain HTTP only)
 *   -ERANGE        the buffer for a claim id is too small
 *   -ENOMEM
 * uncored_connect(3) says the same.  The library never aborts and never
 * writes to stdout or stderr, unless asked or a claim is lost:
 * UNCORED_DEBUG=1 in the environment logs every request and answer to
 * stderr, the region report is printed where the program says (or at exit
 * with UNCORED_REPORT=1), a claim the library keeps alive that is lost
 * anyway is said in one line on stderr, and so is a claim of
 * UNCORED_EVENTS (the regions' default connection) that fails.
 *
 * Claims end with the process: uncored_disconnect() releases the claims
 * made through the connection, and at exit the library releases those of
 * every connection still open (the default connection's too), so that
 * the same program run again finds their counters free; UNCORED_KEEP
 * makes a claim that outlives both, for its lease.  A process killed by
 * a signal runs no exit handler: the library makes its claims with
 * "end_with_process", and the daemon ends them at its next tick after
 * the process is gone (a daemon without it: at their lease).
 *
 * Threads: every function may be called from any thread.  A connection's
 * calls are serialised by a lock of its own, so one connection may be
 * shared; a thread that reads often is better served by a connection of
 * its own (readings then never wait for each other).  A connection that
 * made a claim has a thread of its own that renews its claims, until
 * uncored_disconnect() (a child of fork() has none).  The library's only
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
 * from both processes (they share the uid), but only the process that
 * made a claim renews it: a child's renewing thread (started by its first
 * claim) renews the child's own claims, never those it inherited, so the
 * parent's claims end when the parent stops renewing them.
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
#define UNCORED_PINNED 0x1u	/* counters of its own, never multiplexed
				   out, counting from the call, for at most
				   the daemon's max_pinned_s (then shared);
				   refused (-EBUSY) if it cannot be, or if
				   it would leave another claim no counters */
#define UNCORED_EXPORT 0x2u	/* also on the daemon's /metrics */
#define UNCORED_KEEP 0x4u	/* outlives the connection and the
				   process: not released at
				   uncored_disconnect() or exit, it lasts
				   its lease (uncorectl claim's, for the
				   commands that follow it) */

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
/* Releases the claims this process made through u (but UNCORED_KEEP
 * ones, which last their lease), closes u (NULL: nothing) and frees it.
 * With UNCORED_REPORT set, prints u's region report to stderr first. */
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
 * long it ran (uncored_counts_running_ns()) and are scaled.  One that
 * could never count beside the pinned claims' counters is refused
 * (-EBUSY, the message naming them), never accepted to wait unrun.
 * The library keeps the claim alive: u's thread renews it at a third of
 * its lease (reading it as it does) until it is released or u is closed;
 * one lost anyway is said on stderr, and regions keep what it counted
 * until its last reading.  u's closing, or the process's exit, releases
 * it (UNCORED_KEEP: not).
 */
UNCORED_API int uncored_claim(struct uncored *u, const char *events,
			      unsigned ttl_s, unsigned flags, char *id,
			      size_t idlen);
/* The claim's label as the daemon shows it (uncorectl claims), for the
 * claims u makes from now on; default: the program's name.  1 to 63
 * bytes of printable UTF-8 (no control character, no invalid sequence);
 * another is -EINVAL and the label stays as it was. */
UNCORED_API int uncored_set_label(struct uncored *u, const char *label);
/*
 * uncored_claim() with formulas of the daemon's catalog (comma-separated
 * names as GET /api/v1/formulas and `uncorectl formulas` list them, e.g.
 * "PCT_RD_REQUESTS,numa_reads_addressed_to_local_dram") beside the events
 * (events NULL or "": the formulas alone).  The daemon claims each
 * formula's events, counted together with the events named as one
 * group, and its readings carry each formula's value per socket
 * (uncored_counts_formula_value()).  An unknown name is -EINVAL, a
 * formula that cannot count on this machine or whose events can never
 * count together -EBUSY, with uncored_error() saying which and why.
 * The readings' events are those named, then the formulas' not already
 * named.  (Since libuncored 0.2: LIBUNCORED_0.2.)
 */
UNCORED_API int uncored_claim_formulas(struct uncored *u, const char *events,
				       const char *formulas, unsigned ttl_s,
				       unsigned flags, char *id, size_t idlen);
/*
 * The counts of claim id at the moment of the call, not at the daemon's
 * last tick, into a new *out (free it with uncored_counts_free()); out
 * NULL is -EINVAL.
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
 * scaled for the time it was multiplexed out: count x enabled / running,
 * each socket's over the running time of its boxes.
 * NaN before the event first ran, or for an i or socket out of range.
 */
UNCORED_API double uncored_counts_value(const struct uncored_counts *c,
					size_t i, int socket);
/*
 * How long event i has been enabled (claimed) and running (counting on a
 * counter) until the reading, in ns.  Running is the time its counters
 * counted: multiplexed out it is not, and on the direct backend neither
 * are the moments each daemon tick holds the counters frozen to read
 * them (microseconds; milliseconds on a loaded machine), so even a
 * pinned claim's running falls a little short of enabled, and
 * uncored_counts_value() estimates that time too.  Equal for an event of
 * a free-running counter, which never stops.
 */
UNCORED_API uint64_t uncored_counts_enabled_ns(const struct uncored_counts *c,
					       size_t i);
UNCORED_API uint64_t uncored_counts_running_ns(const struct uncored_counts *c,
					       size_t i);
/*
 * Event i's count since the claim began on socket (-1: all sockets) as
 * the counters counted it, not scaled; 0 for an i or socket out of
 * range.  Never goes down from one reading of a claim to the next.
 */
UNCORED_API uint64_t uncored_counts_raw(const struct uncored_counts *c,
					size_t i, int socket);
/*
 * What event i counted on socket (-1: all sockets) between readings a
 * and b of one claim (a taken first), scaled for that interval alone:
 * (raw b - raw a) x (enabled b - enabled a) / (running b - running a),
 * socket by socket over the running time of that socket's boxes (the
 * daemon's sockets[].time_running_ns: on the perf backend each box is
 * read at its own instant).  Never negative.  NaN if the event did not run in between, or a and b
 * are not readings of one claim in that order.
 *
 * Why not uncored_counts_value(b) - uncored_counts_value(a): each of
 * those is scaled by its own whole history, and a multiplexed claim's
 * scale moves between readings, so their difference can be off by far
 * more than the interval counted, even negative.
 */
UNCORED_API double uncored_counts_delta(const struct uncored_counts *a,
					const struct uncored_counts *b,
					size_t i, int socket);

/*
 * The formulas of a reading of a claim made with uncored_claim_formulas():
 * their number (0 for a claim of events alone), formula i's name as the
 * daemon's catalog writes it and its unit (a base unit: "ratio",
 * "seconds", "bytes", "bytes_per_second", "hertz", "per_second", ...; ""
 * for a count), NULL past the end; the text belongs to c.  Its value on
 * socket over the claim's life so far (from its creation to the
 * reading): NaN where it has none (a division by zero, nothing counted
 * yet), for an i or a socket out of range, and for socket -1 (a formula
 * is not summed over sockets).  (Since libuncored 0.2.)
 */
UNCORED_API size_t uncored_counts_nformulas(const struct uncored_counts *c);
UNCORED_API const char *uncored_counts_formula(const struct uncored_counts *c,
					       size_t i);
UNCORED_API const char *uncored_counts_formula_unit(
	const struct uncored_counts *c, size_t i);
UNCORED_API double uncored_counts_formula_value(const struct uncored_counts *c,
						size_t i, int socket);
UNCORED_API void uncored_counts_free(struct uncored_counts *c);

/* ---- regions ---- */
/*
 * Marks the beginning and the end of a region of code.  A region counts
 * over windows: a window opens at a begin that finds no begin of the
 * name open (in any thread) and closes at the end that leaves none open;
 * its begin and end read every live claim made through u, and what each
 * event counted in between (scaled by the window's own enabled and
 * running time) is added to the region's name.  So a region that
 * several threads are in at once (an OpenMP team marking it) counts the
 * socket once, not once per thread, as LIKWID's markers count socket
 * counters; a begin inside an open window only extends it.  Repeats
 * accumulate and names nest.  Each thread ends its own begins.  With u
 * NULL, the default connection: $UNCORED_SOCKET and one claim of
 * $UNCORED_EVENTS (comma-separated; pinned when UNCORED_PINNED=1 is
 * set), made at the first begin; when that claim fails (-EBUSY, an
 * event the platform lacks, no daemon), the begin returns its error and
 * the library says it on stderr, and the report at exit names it.  A
 * region with no claim to read is -EINVAL; end without begin (in this
 * thread) is -EINVAL; a claim lost inside the window makes the end fail
 * with what lost it, what it counted until its last reading kept:
 * -ENOENT (released, expired), -ECONNRESET (the daemon restarted),
 * -ENOTCONN (the daemon gone, or lost to a restart earlier).  Each
 * window costs one reading per claim at each end (tens of
 * microseconds): its counts cover the code's time plus about one
 * reading.
 */
UNCORED_API int uncored_region_begin(struct uncored *u, const char *name);
UNCORED_API int uncored_region_end(struct uncored *u, const char *name);
/*
 * Writes u's regions (NULL: the default connection's) to f as a table:
 * name, calls, the time in the code, and per event and socket the time
 * the counts cover, the count, the rate per second and the share of the
 * time it ran, marked "?" (window_uncertain) where the time its counters
 * counted is known to no better than 1 % (the daemon's ticks held up
 * inside the writes that stop and start them: the rate is good to that
 * much, said under the table); derived metrics (DRAM bytes, LLC lookups and misses) by
 * their family names in doc/metrics.md; what a reading costs and the
 * shortest region worth measuring.  UNCORED_REPORT_FORMAT=csv or json
 * gives it for programs (uncored_read(3) has the fields).  With
 * UNCORED_REPORT=1 in the environment it is also printed to stderr at
 * uncored_disconnect() and, for connections still open, at exit (one
 * line when no region was marked, or, for the default connection, one
 * naming the error its claim failed with).
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
