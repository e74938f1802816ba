/*
 * http.h - the HTTP front end: listeners, limits, routing (libmicrohttpd).
 *
 * The daemon serves two kinds of listeners, each kind from a thread of
 * its own: TCP listeners (read-only routes: /metrics, the JSON API) on
 * uncored-http, and Unix control sockets (every route, including claims)
 * on uncored-ctl, so that scrapes never wait behind library reads.  Each
 * listener is its own libmicrohttpd daemon in "external polling" mode on
 * a socket this module opened (or systemd handed over), and its thread
 * polls it.  Handlers run on those threads, two at a time at most (one
 * per thread: what they share must be thread-safe, as the ring, the
 * claims table and the /metrics page are), and must never block or touch
 * hardware: they render
 * from the ring and the running totals into the response buffer, hand
 * out a body shared between responses (the /metrics page) or one that is
 * produced while it is sent (the samples), so that no request waits for
 * a large answer to another.
 *
 * Slow or abusive clients cannot starve scrapes: every request must be
 * complete timeout_s after it started, every answer must drain at least
 * HTTP_MIN_DRAIN_BPS (HTTP_CONTROL_MIN_DRAIN_BPS on the control socket;
 * averaged over HTTP_DRAIN_WINDOW_S), the connection limit (the TCP
 * listeners together) and the per-IP limit displace the oldest
 * incomplete request or stalled answer rather than refuse a new
 * connection, the control socket has a budget of its own with a share
 * per peer uid (a connection over it that finds none to displace gets
 * 503 "busy" with Retry-After, never a reset), and request bodies are
 * capped at HTTP_MAX_BODY (413).
 * Errors use one JSON shape, {"error":{"code":"...","message":"..."}}.
 *
 * With a web config (webcfg.h) the TCP listeners speak TLS and/or require
 * basic auth (401 with WWW-Authenticate); the control socket never does.
 * bcrypt checks run on worker threads (authq.h), never on the http
 * thread, within a CPU budget (503 with Retry-After past it).
 * Answers of GZ_MIN_SIZE bytes or more are gzip-compressed for clients
 * that accept it (gz.h), and every answer says "Vary: Accept-Encoding".
 */
#ifndef UNCORED_HTTP_H
#define UNCORED_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/buf.h"
#include "http_stats.h"
#include "webcfg.h"

#define HTTP_MAX_BODY	(64 * 1024)	/* larger request bodies get 413 */
#define HTTP_MAX_LISTEN	8		/* entries in http_cfg.listen[] */
#define HTTP_MAX_PARAMS	4		/* {placeholders} per route pattern */
/* Query parameters a request may carry; more get 414 at once (issue 39
 * §11: MHD keeps each in the connection's 64 KiB pool, and 1,000 of them
 * left a request unanswered until its timeout).  The API's routes take
 * a few. */
#define HTTP_MAX_QUERY_PARAMS	32

/* Defaults applied when the corresponding http_cfg field is 0. */
#define HTTP_DEFAULT_TIMEOUT_S		10
#define HTTP_DEFAULT_MAX_CONNECTIONS	64
#define HTTP_DEFAULT_MAX_PER_IP		8
#define HTTP_DEFAULT_CONTROL_MAX_CONNECTIONS 128

enum http_method {
	HTTP_GET = 1,
	HTTP_POST = 2,
	HTTP_DELETE = 4,
	HTTP_HEAD = 8,		/* implied by GET in route masks */
};

/*
 * One request as a handler sees it.  Everything it points to lives until
 * the handler returns, not longer.
 */
struct http_req {
	/*
	 * HTTP_GET, HTTP_POST or HTTP_DELETE.  A HEAD request reaches the
	 * handler as HTTP_GET (libmicrohttpd then sends only the headers),
	 * so handlers never need a HEAD case.
	 */
	enum http_method method;
	const char *path;	/* decoded, without the query string */
	const char *params[HTTP_MAX_PARAMS];	/* {placeholders}, in order */
	unsigned nparams;
	bool control;		/* arrived on a Unix control socket */
	bool have_peer;		/* uid/gid/pid are valid (SO_PEERCRED) */
	uid_t uid;
	gid_t gid;
	pid_t pid;
	const char *body;	/* request body, NUL-terminated; "" if none */
	size_t body_len;	/* <= HTTP_MAX_BODY */
	void *conn;		/* opaque, for http_query()/http_header() */
	struct http_server *server;	/* that serves it (http_get_stats()) */
};

/*
 * Returns the decoded value of query-string parameter `name`, or NULL if
 * it is absent (or present without "=value").  Valid until the handler
 * returns.
 */
const char *http_query(const struct http_req *r, const char *name);

/*
 * Returns the value of request header `name` (case-insensitive), or NULL.
 * Valid until the handler returns.
 */
const char *http_header(const struct http_req *r, const char *name);

/*
 * What a handler fills in.  It arrives with status 200, ctype NULL, an
 * empty body and no location.  If the body ends up oom the client gets a
 * 500 JSON error instead of a truncated body.
 */
struct http_resp {
	int status;
	const char *ctype;	/* Content-Type; static string; NULL means
				   "text/plain; charset=utf-8" */
	struct buf body;	/* owned by the http module */
	char location[256];	/* Location header if non-empty */
	const char *www_authenticate;	/* WWW-Authenticate if non-NULL;
					   static string (401 answers) */
	const char *csp;	/* Content-Security-Policy header; static
				   string; NULL: none */
	unsigned retry_after_s;	/* Retry-After header if non-zero */
	bool close;		/* "Connection: close": closed once sent */
	/*
	 * Instead of body, a body the handler shares with other responses
	 * (the /metrics page rendered once per tick): data/len stay valid
	 * until release(arg) is called, once, when the response is gone (or
	 * at once if it could not be queued).  gzip: data is already
	 * gzip-encoded (Content-Encoding: gzip); such a body is never
	 * compressed again.  Unused while data is NULL.
	 */
	struct {
		const void *data;
		size_t len;
		bool gzip;
		void (*release)(void *arg);
		void *arg;
	} shared;
	/*
	 * Instead of body, a body produced while it is sent (chunked, so
	 * its length need not be known and its memory stays constant):
	 * read(arg, out, max) writes up to max (> 0) bytes to out and
	 * returns how many (> 0), HTTP_STREAM_END after the last byte, or
	 * HTTP_STREAM_ERROR (the connection is closed: the client sees a
	 * truncated chunked body, never a silently short one).  It is
	 * called on the thread that serves the connection, between other
	 * requests, and must not block.  release(arg) is called once when
	 * the response is gone (also when it was never read, as for HEAD).
	 * Compressed on the fly when the client accepts gzip.  Unused while
	 * read is NULL.
	 */
	struct {
		long (*read)(void *arg, char *out, size_t max);
		void (*release)(void *arg);
		void *arg;
	} stream;
};

#define HTTP_STREAM_END		(-1L)
#define HTTP_STREAM_ERROR	(-2L)

typedef void (*http_handler_fn)(void *ctx, const struct http_req *req,
				struct http_resp *resp);

/*
 * A route.  pattern is an absolute path whose segments are literals or
 * "{name}" (matches one non-empty segment; values land in req->params in
 * order).  "/" matches only "/"; a trailing slash is significant.
 */
struct http_route {
	const char *pattern;	/* "/api/v1/claims/{id}/renew" */
	unsigned methods;	/* mask of enum http_method; GET implies HEAD */
	bool control_only;	/* 403 on TCP listeners */
	http_handler_fn fn;
};

/*
 * Replaces resp with the JSON error {"error":{"code":CODE,"message":MSG}}
 * (MSG from fmt, escaped; truncated at 512 bytes) and the given status;
 * Content-Type becomes application/json.  For handlers too.
 */
void http_error(struct http_resp *resp, int status, const char *code,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

struct http_cfg {
	/* TCP listeners to open: "A.B.C.D:PORT", "[V6]:PORT",
	   "localhost:PORT" (= 127.0.0.1), ":PORT" (every address, = [::]).
	   [::] is dual-stack (IPv4 too); other IPv6 addresses are IPv6
	   only.  Port 0 = ephemeral. */
	const char *listen[HTTP_MAX_LISTEN];
	unsigned nlisten;
	/* Already-listening sockets from systemd (sd_listen_fds): AF_UNIX
	   ones become control sockets, AF_INET/AF_INET6 ones TCP
	   listeners.  The server owns them once http_start() succeeds
	   (http_stop() closes them); after a failure they stay open. */
	const int *inherited_fds;
	unsigned ninherited;
	/* Control socket to create; NULL or "" = none.  Skipped when an
	   inherited AF_UNIX socket is already bound to this path. */
	const char *control_socket;
	const char *control_group;	/* chgrp to it; NULL or "" = leave */
	unsigned control_mode;		/* e.g. 0660; 0 = 0660 */
	/* 0 = the HTTP_DEFAULT_* value.  max_connections counts the TCP
	   listeners together (the control socket has its own budget,
	   control_max_connections); max_per_ip applies to TCP listeners
	   only, control_max_per_uid (0: half the control budget, rounded
	   up) to the control socket's peers (SO_PEERCRED). */
	unsigned timeout_s;		/* request deadline, idle timeout */
	unsigned max_connections;
	unsigned max_per_ip;
	unsigned control_max_connections;
	unsigned control_max_per_uid;
	/* Called once every listener is open and before the http thread
	   starts (the daemon drops its privileges there: capabilities are
	   per thread); NULL = none. */
	void (*before_thread)(void *arg);
	void *before_thread_arg;
	/* TLS and basic auth for the TCP listeners (never the control
	   socket, whose callers SO_PEERCRED identifies); NULL = plain HTTP
	   for everyone.  Borrowed: must outlive the server, and only the
	   http thread uses it (webcfg_auth() keeps a cache). */
	struct webcfg *web;
	/* This daemon's instance id (claims.h), sent with every answer as
	   the Uncored-Instance header; a request that names another in
	   that header is refused with 412 before any handler runs (its
	   claims are of another lifetime).  NULL or "": none.  Copied. */
	const char *instance;
};

struct http_server;

/*
 * Copies the counters of the server that serves req into *out: each
 * thread's as it published them at the end of its last round (the
 * connection counts at most HTTP_SAMPLE_NS old while answers are in
 * flight).  For handlers, on either thread.
 */
void http_get_stats(const struct http_req *req, struct http_stats *out);

/*
 * Opens every listener (the privileged part: call it before dropping
 * privileges), then starts the threads that serve them: uncored-http for
 * the TCP listeners, uncored-ctl for the control sockets (each only if
 * there is such a listener).  The route table and ctx must outlive the
 * server; handlers are called on those threads with ctx.
 *
 * The control socket is created under umask 0177 (never accessible to
 * others, even briefly), then chmod'ed to control_mode and chgrp'ed to
 * control_group.  A stale socket at the path is replaced; a live one (a
 * daemon answers on it) or a non-socket is refused.  Its directory must
 * exist.  Because umask is process-wide, call this while no other thread
 * creates files.
 *
 * Returns the server, or NULL with the reason in err (e.g. "cannot listen
 * on 0.0.0.0:9464: Address already in use").  Never exits.
 */
struct http_server *http_start(const struct http_cfg *cfg,
			       const struct http_route *routes, size_t nroutes,
			       void *ctx, char *err, size_t errlen);

/* Resolves a group name (or number) to a gid, as http_start() does for
 * control_group.  Returns 0 or -errno (-ENOENT: no such group). */
int http_lookup_group(const char *name, gid_t *gid);

/*
 * Returns the bound TCP port of listener i, or 0 if there is no such
 * listener or it is a Unix socket.  Listeners are numbered in this
 * order: cfg->listen[] entries, then cfg->inherited_fds[], then the
 * created control socket.  Useful with port 0 in tests.
 */
unsigned http_port(const struct http_server *s, unsigned i);

/*
 * Stops the threads (in-flight connections are dropped), closes every
 * listener and unlinks the control socket if it created it and it is
 * still the same file.  Frees s; NULL is a no-op.
 */
void http_stop(struct http_server *s);

#endif
