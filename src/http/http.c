/*
 * http.c - listeners, limits and routing on libmicrohttpd (see http.h).
 *
 * Every listener (TCP, inherited from systemd, or the Unix control socket)
 * is a socket this module opened and handed to its own MHD daemon with
 * MHD_OPTION_LISTEN_SOCKET, so TCP and Unix sockets are served alike.
 * The daemons run in MHD's external-polling epoll mode: each exposes one
 * epoll fd (MHD_DAEMON_INFO_EPOLL_FD).  Two loops serve them, each on a
 * thread of its own: uncored-http the TCP listeners, uncored-ctl the
 * control sockets (so a scrape never waits behind a batch of library
 * reads).  A loop polls its daemons' epoll fds and listening sockets
 * plus an eventfd (for http_stop) with the shortest MHD_get_timeout(),
 * at most a second (serve() says why), then calls MHD_run() on each of
 * its daemons.  MHD never starts a thread of its own, so the
 * daemon's thread budget holds: main, sampler, uncored-http, uncored-ctl
 * (and the bcrypt workers, started only for basic-auth users).
 *
 * Request flow in on_request(): the first call (headers complete) refuses
 * a Content-Length over HTTP_MAX_BODY at once with 413 when the client
 * waits for "100 Continue" or announces more than HTTP_DRAIN_MAX, so
 * nothing more is buffered; body pieces are copied into a per-request buf
 * (a body that outgrows the limit - chunked, or announced too large by a
 * client already sending it - is discarded as it arrives, the request
 * deadline bounding how long, and answered with 413); the last call routes
 * the request and queues the handler's response.  Requests whose meaning
 * is ambiguous are refused with 400 before their body is read: two
 * Content-Length headers, Content-Length with Transfer-Encoding, and an
 * encoded '/' or NUL in the path (MHD decodes the path before we see it,
 * so "/metrics%00x" would be served as /metrics and "c1%2frenew" routed
 * as two segments; the raw path comes from MHD_OPTION_URI_LOG_CALLBACK).
 * On a TCP listener with a web config the first call also passes the
 * gate (client certificate, basic auth) before anything else; a bcrypt
 * check it needs runs on a worker (authq.h) while MHD suspends the
 * connection, and the http thread resumes it with the verdict.
 *
 * Beside this file: http_listen.c opens the sockets, http_conn.c keeps
 * the limits on open connections (request deadlines, write rates, the
 * TCP connection limits, the control socket's budget and its busy
 * connections), http_tls.c the TLS options, client-certificate policy
 * and pushing of records.  This file ties them to MHD: listeners, the
 * two loops, the request flow, routing, responses and basic auth.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netinet/in.h>
#include <stddef.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include "authq.h"
#include "base/buf.h"
#include "base/errmsg.h"
#include "base/gz.h"
#include "http.h"
#include "http_conn.h"
#include "http_listen.h"
#include "http_tls.h"
#include "base/log.h"

/*
 * Per-connection memory pool: request line, headers, query parameters
 * and the read buffer.  Bodies are copied out of the read buffer as they
 * arrive, so they need not fit.  libmicrohttpd 0.9.75 parses every query
 * parameter into this pool (a header entry each, some 50 bytes, besides
 * the read buffer that holds the target) before any callback of ours but
 * the URI log can act, and when the pool fills it closes the connection
 * without an answer, or holds it to the timeout: at 64 KiB a GET with
 * 1,000 parameters (6.9 KB) got no 414 (issue 39 §11).  128 KiB gives
 * the 414 up to about 1,500 of them (14 KB, measured); more still fill
 * it.  on_uri cannot stop the parse (it sees the target before, but the
 * query is parsed after it returns, whatever it marks).  The pool is
 * allocated per connection but only touched as it is used.
 */
#define HTTP_CONN_MEMORY	(128 * 1024)
#define HTTP_MAX_SEGMENTS	16	/* deeper paths are 404 */
/* A body announced over HTTP_MAX_BODY without "Expect: 100-continue" is
 * drained (read, dropped) up to this size before its 413; a larger one
 * is refused at once. */
#define HTTP_DRAIN_MAX		(1024 * 1024)
/* The longest a loop sleeps, whatever it waits for: a wake-up the
 * kernel lost costs at most this long (see serve()). */
#define HTTP_MAX_WAIT_MS	1000
/*
 * A bcrypt check takes tens of milliseconds (50 ms at cost 10 here) and
 * doubles with each step of cost, so it runs on a worker (authq.h) while
 * its connection is suspended: the http thread, the control socket and
 * shutdown never wait for one.  Credentials seen recently are answered
 * from webcfg's cache without a check; new ones may use at most a
 * quarter of one CPU (with a burst of 250 ms), counted in the CPU time
 * the checks took (CLOCK_THREAD_CPUTIME_ID on the worker: on a loaded
 * machine a check's wall time is several times its CPU time, and the
 * load is not the client's doing).  Past the budget, or with the queue
 * full, a new password gets 503 at once, with Retry-After.
 */
#define HTTP_AUTH_SHARE		4
#define HTTP_AUTH_BURST_NS	(250ull * 1000000)
#define HTTP_AUTH_WORKERS	2	/* threads, started when needed */
#define HTTP_AUTH_DEPTH		4	/* checks waiting for one */
/*
 * A flood of wrong passwords keeps the budget used up, so that a user's
 * first check after a start (the cache empty) got 503 for tens of
 * seconds (issue 39 finding 9).  The addresses that asked for a check
 * in the last HTTP_AUTH_RECENT_NS are remembered (the last
 * HTTP_AUTH_SOURCES of them; an IPv6 address by its /64): one that has
 * not may go over the budget up to HTTP_AUTH_CAP_NS, and its check goes
 * ahead of the queue (authq_submit_first()).  The flood's addresses
 * share the budget; the headroom above it is for the others.
 */
#define HTTP_AUTH_SOURCES	64
#define HTTP_AUTH_RECENT_NS	(10ull * 1000000000)
#define HTTP_AUTH_CAP_NS	(2 * HTTP_AUTH_BURST_NS)
/* Connections MHD may accept past max_connections on one listener: room
 * for a new one while older ones are being shut down (each new one over
 * the limit shuts one down at once). */
#define HTTP_ACCEPT_SLACK	16

static const char json_type[] = "application/json";
/* The Uncored-Instance header (http_cfg.instance): one daemon, one
 * instance; set before the http thread starts, read only after. */
#define INSTANCE_HEADER "Uncored-Instance"
static char instance_id[40];
static const char text_type[] = "text/plain; charset=utf-8";
/* Sent when not even an error body can be allocated. */
static const char oom_body[] =
	"{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}\n";

struct http_loop;

struct http_listener {
	struct http_server *srv;
	struct http_loop *lp;	/* the thread that serves it */
	struct MHD_Daemon *mhd;
	struct listen_sock sk;	/* the socket (http_listen.h) */
	unsigned max_conn;	/* MHD_OPTION_CONNECTION_LIMIT */
	bool full;		/* at max_conn after the last MHD_run() */
	int epoll_fd;		/* MHD's (MHD_DAEMON_INFO_EPOLL_FD) */
};


/*
 * One thread and what it serves: the TCP listeners (with the bcrypt
 * workers' queue), or the control sockets.  Its connection list, its
 * counters and its log limits are its thread's alone; what handlers on
 * the other thread may read of them (http_get_stats()) is published at
 * the end of each round of the loop, under pub_lock.
 */
struct http_loop {
	struct http_server *srv;
	bool control;
	const char *tname;	/* the thread's name */
	struct conn_list conns;	/* http_conn.h */
	struct http_stats stats;
	pthread_mutex_t pub_lock;
	struct http_stats pub;	/* stats and the connection counts */
	int wakefd;
	pthread_t thread;
	bool running;
	bool used;		/* it has a listener */
};

/* An address that asked for a bcrypt check (HTTP_AUTH_SOURCES). */
struct auth_source {
	unsigned char key[16];	/* IPv4, or an IPv6 /64 */
	uint64_t last_ns;	/* its last check; 0 = a free slot */
};

struct http_server {
	struct conn_limits lim;		/* http_conn.h */
	struct http_loop loop[2];	/* [0] TCP, [1] the control socket */
	const struct http_route *routes;
	size_t nroutes;
	void *ctx;
	struct webcfg *web;	/* TLS and basic auth; NULL = none */
	struct authq *authq;	/* bcrypt workers; NULL without users */
	struct http_state *suspended;	/* requests waiting for a check */
	uint64_t auth_debt_ns;	/* bcrypt CPU time not yet paid back */
	uint64_t auth_last_ns;	/* when auth_debt_ns was last reduced */
	uint64_t auth_est_ns;	/* CPU time of the last check */
	struct auth_source auth_src[HTTP_AUTH_SOURCES];
	struct http_listener *ls;
	unsigned nls;
	/* The control socket this server created (for unlinking). */
	char *ctl_path;
	dev_t ctl_dev;
	ino_t ctl_ino;
};


/* Where a request stands with its basic-auth check. */
enum http_auth {
	AUTH_NONE,		/* no check needed, or passed */
	AUTH_WAITING,		/* suspended until a worker's verdict */
	AUTH_DONE,		/* resumed with a verdict (auth_ok) */
	AUTH_GONE,		/* the server stops: close, do not answer */
};

/* Per-request state, MHD's con_cls. */
struct http_state {
	struct buf body;
	size_t discarded;	/* bytes dropped after the body got too big */
	bool too_big;
	bool started;		/* on_request has seen the headers */
	bool raw_ambiguous;	/* the raw path has %2F, the target %00 */
	enum http_auth auth;
	bool auth_ok;		/* the verdict (AUTH_DONE) */
	struct authq_job *job;	/* the check (AUTH_WAITING) */
	uint64_t charged_ns;	/* budget charged for it in advance */
	struct MHD_Connection *conn;	/* to resume (AUTH_WAITING) */
	struct http_state *sprev, *snext;	/* srv->suspended */
};

/* ---- responses ---------------------------------------------------- */

void http_error(struct http_resp *resp, int status, const char *code,
		const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	buf_reset(&resp->body);
	if (resp->shared.data)
		resp->shared.release(resp->shared.arg);
	if (resp->stream.read)
		resp->stream.release(resp->stream.arg);
	memset(&resp->shared, 0, sizeof(resp->shared));
	memset(&resp->stream, 0, sizeof(resp->stream));
	resp->status = status;
	resp->ctype = json_type;
	buf_puts(&resp->body, "{\"error\":{\"code\":\"");
	buf_json_escape(&resp->body, code);
	buf_puts(&resp->body, "\",\"message\":\"");
	buf_json_escape(&resp->body, msg);
	buf_puts(&resp->body, "\"}}\n");
}

/* "GET, HEAD, POST" for a method mask. */
static void allow_list(unsigned mask, char *out, size_t outlen)
{
	static const struct { unsigned bit; const char *name; } m[] = {
		{ HTTP_GET, "GET" }, { HTTP_HEAD, "HEAD" },
		{ HTTP_POST, "POST" }, { HTTP_DELETE, "DELETE" },
	};
	size_t i, off = 0;

	out[0] = '\0';
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		if (!(mask & m[i].bit))
			continue;
		off += (size_t)snprintf(out + off, outlen - off, "%s%s",
					off ? ", " : "", m[i].name);
		if (off >= outlen)
			break;
	}
}

static void add_header(struct MHD_Response *mr, const char *name,
		       const char *value)
{
	if (MHD_add_response_header(mr, name, value) != MHD_YES)
		log_warnx("http: cannot add header %s: %s", name, value);
}

/*
 * Replaces the body *p (*len bytes, malloc()ed) by its gzip compression
 * when the client accepts gzip and the body is worth compressing.
 * Returns true if it did; on any failure the body is left as it was.
 */
static bool maybe_gzip(struct MHD_Connection *c, char **p, size_t *len)
{
	char *z;
	size_t zlen;

	if (*len < GZ_MIN_SIZE ||
	    !gz_accepted(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_ACCEPT_ENCODING)) ||
	    gz_compress(*p, *len, &z, &zlen) < 0)
		return false;
	free(*p);
	*p = z;
	*len = zlen;
	return true;
}

/* A handler's streamed body as MHD reads it, compressed or not. */
struct http_stream {
	long (*read)(void *arg, char *out, size_t max);
	void (*release)(void *arg);
	void *arg;
	struct gz_stream *gz;	/* NULL: sent as produced */
	struct http_tally *tally;	/* control socket: counts what MHD
					   took; NULL on TCP */
};

static long stream_src(void *cls, char *out, size_t max)
{
	struct http_stream *hs = cls;
	long n = hs->read(hs->arg, out, max);

	return n == HTTP_STREAM_END ? GZ_STREAM_END
	       : n > 0 ? n : GZ_STREAM_ERROR;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct http_stream *hs = cls;
	long n;

	(void)pos;
	if (max == 0)
		return 0;
	n = hs->gz ? gz_stream_read(hs->gz, out, max)
		   : stream_src(hs, out, max);
	if (n > 0 && hs->tally)
		hs->tally->bytes += (uint64_t)n;
	if (n > 0)
		return (ssize_t)n;
	return n == GZ_STREAM_END ? MHD_CONTENT_READER_END_OF_STREAM
				  : MHD_CONTENT_READER_END_WITH_ERROR;
}

static void stream_free(void *cls)
{
	struct http_stream *hs = cls;

	gz_stream_free(hs->gz);
	hs->release(hs->arg);
	conn_tally_put(hs->tally);
	free(hs);
}

/* Block size asked of a streamed body (MHD's buffer may be smaller). */
#define HTTP_STREAM_BLOCK	(32 * 1024)

/*
 * The response for r's streamed body, or NULL (the stream is released).
 * *gzipped says whether it is compressed.
 */
static struct MHD_Response *stream_resp(struct MHD_Connection *c,
					struct http_resp *r,
					struct http_tally *tally,
					bool *gzipped)
{
	struct http_stream *hs = calloc(1, sizeof(*hs));
	struct MHD_Response *mr;

	if (!hs) {
		r->stream.release(r->stream.arg);
		return NULL;
	}
	hs->read = r->stream.read;
	hs->release = r->stream.release;
	hs->arg = r->stream.arg;
	hs->tally = tally;
	if (tally)
		tally->refs++;
	if (gz_accepted(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_ACCEPT_ENCODING)))
		hs->gz = gz_stream_new(stream_src, hs);
	*gzipped = hs->gz != NULL;
	mr = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN,
					       HTTP_STREAM_BLOCK, stream_read,
					       hs, stream_free);
	if (!mr)
		stream_free(hs);
	return mr;
}

/*
 * A body sent from memory on a control connection, handed to MHD piece
 * by piece so that the tally counts what it took (http_conn.c measures
 * the drain by it).  Owns the body: release(arg) frees it.
 */
struct http_counted {
	const char *p;
	size_t len;
	void (*release)(void *arg);
	void *arg;
	struct http_tally *tally;
};

static ssize_t counted_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct http_counted *hc = cls;
	size_t n;

	if (pos >= hc->len)
		return MHD_CONTENT_READER_END_OF_STREAM;
	n = hc->len - (size_t)pos < max ? hc->len - (size_t)pos : max;
	memcpy(out, hc->p + pos, n);
	hc->tally->bytes += n;
	return (ssize_t)n;
}

static void counted_free(void *cls)
{
	struct http_counted *hc = cls;

	hc->release(hc->arg);
	conn_tally_put(hc->tally);
	free(hc);
}

/* Bodies up to this size go to MHD whole and are counted at once (a
 * socket buffer holds them); larger ones piece by piece. */
#define HTTP_COUNT_WHOLE	(16 * 1024)

/*
 * The response for len bytes at p (release(arg) frees them) on a control
 * connection with tally, counted as MHD takes them; NULL if it cannot be
 * made (the body is released).
 */
static struct MHD_Response *counted_resp(const void *p, size_t len,
					 void (*release)(void *arg), void *arg,
					 struct http_tally *tally)
{
	struct http_counted *hc = calloc(1, sizeof(*hc));
	struct MHD_Response *mr;

	if (!hc) {
		release(arg);
		return NULL;
	}
	*hc = (struct http_counted){ p, len, release, arg, tally };
	tally->refs++;
	mr = MHD_create_response_from_callback(len, HTTP_STREAM_BLOCK,
					       counted_read, hc, counted_free);
	if (!mr)
		counted_free(hc);
	return mr;
}

/* The response for r's shared body, or NULL (the body is released). */
static struct MHD_Response *shared_resp(struct http_resp *r)
{
	struct MHD_Response *mr;

	mr = MHD_create_response_from_buffer_with_free_callback_cls(
		r->shared.len, (void *)(uintptr_t)r->shared.data,
		r->shared.release, r->shared.arg);
	if (!mr)
		r->shared.release(r->shared.arg);
	return mr;
}

/*
 * Queues r (consuming its body) with the standard headers; allow, if
 * non-zero, adds an Allow header.  Returns MHD's verdict.
 */
static struct http_conn *conn_of(struct MHD_Connection *c);

static enum MHD_Result send_resp(struct MHD_Connection *c,
				 struct http_resp *r, unsigned allow)
{
	struct http_conn *k = conn_of(c);
	struct http_tally *tally = k ? k->tally : NULL;
	struct MHD_Response *mr;
	char *p;
	size_t len, body = 0;
	bool gzipped = false;
	enum MHD_Result ret;

	if (r->status < 100 || r->status > 599) {
		log_warnx("http: handler returned invalid status %d",
			  r->status);
		http_error(r, 500, "internal", "invalid response status");
	}
	if (r->body.oom)
		http_error(r, 500, "internal",
			   "out of memory while rendering the response");
	if (r->shared.data) {
		buf_free(&r->body);
		gzipped = r->shared.gzip;
		body = r->shared.len;
		if (tally && r->shared.len > HTTP_COUNT_WHOLE)
			mr = counted_resp(r->shared.data, r->shared.len,
					  r->shared.release, r->shared.arg,
					  tally);
		else
			mr = shared_resp(r);
		if (tally && r->shared.len <= HTTP_COUNT_WHOLE)
			tally->bytes += r->shared.len;
		goto headers;
	}
	if (r->stream.read) {
		buf_free(&r->body);
		mr = stream_resp(c, r, tally, &gzipped);
		goto headers;
	}
	p = buf_steal(&r->body, &len);
	gzipped = p && maybe_gzip(c, &p, &len);
	body = p ? len : 0;
	if (p && tally && len > HTTP_COUNT_WHOLE) {
		mr = counted_resp(p, len, free, p, tally);
	} else if (p) {
		if (tally)
			tally->bytes += len;
		mr = MHD_create_response_from_buffer(len, p,
						     MHD_RESPMEM_MUST_FREE);
		if (!mr)
			free(p);
	} else {
		r->status = 500;
		r->ctype = json_type;
		r->location[0] = '\0';
		body = strlen(oom_body);
		mr = MHD_create_response_from_buffer(body, (void *)oom_body,
						     MHD_RESPMEM_PERSISTENT);
	}
headers:
	if (!mr)
		return MHD_NO;
	add_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE,
		   r->ctype ? r->ctype : text_type);
	add_header(mr, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (instance_id[0])
		add_header(mr, INSTANCE_HEADER, instance_id);
	add_header(mr, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT_ENCODING);
	if (gzipped)
		add_header(mr, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	if (r->location[0])
		add_header(mr, MHD_HTTP_HEADER_LOCATION, r->location);
	if (r->www_authenticate)
		add_header(mr, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
			   r->www_authenticate);
	if (r->csp) {
		add_header(mr, "Content-Security-Policy", r->csp);
		add_header(mr, "X-Content-Type-Options", "nosniff");
	}
	if (r->retry_after_s) {
		char v[16];

		snprintf(v, sizeof(v), "%u", r->retry_after_s);
		add_header(mr, MHD_HTTP_HEADER_RETRY_AFTER, v);
	}
	if (allow) {
		char list[64];

		allow_list(allow, list, sizeof(list));
		add_header(mr, MHD_HTTP_HEADER_ALLOW, list);
	}
	if (r->close)
		add_header(mr, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(c, (unsigned)r->status, mr);
	MHD_destroy_response(mr);
	if (ret == MHD_YES)
		tls_more(c, body, (unsigned)r->status);
	return ret;
}

static void resp_init(struct http_resp *r)
{
	r->status = 200;
	r->ctype = NULL;
	buf_init(&r->body);
	r->location[0] = '\0';
	r->www_authenticate = NULL;
	r->csp = NULL;
	r->retry_after_s = 0;
	r->close = false;
	memset(&r->shared, 0, sizeof(r->shared));
	memset(&r->stream, 0, sizeof(r->stream));
}

/* Queues a JSON error (for answers the module gives itself). */
__attribute__((format(printf, 5, 6)))
static enum MHD_Result send_error(struct MHD_Connection *c, int status,
				  unsigned allow, const char *code,
				  const char *fmt, ...)
{
	struct http_resp r;
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	resp_init(&r);
	http_error(&r, status, code, "%s", msg);
	return send_resp(c, &r, allow);
}

/* ---- requests and routing ----------------------------------------- */

const char *http_query(const struct http_req *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND,
					   name);
}

const char *http_header(const struct http_req *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

static unsigned method_bit(const char *m)
{
	if (strcmp(m, MHD_HTTP_METHOD_GET) == 0)
		return HTTP_GET;
	if (strcmp(m, MHD_HTTP_METHOD_HEAD) == 0)
		return HTTP_HEAD;
	if (strcmp(m, MHD_HTTP_METHOD_POST) == 0)
		return HTTP_POST;
	if (strcmp(m, MHD_HTTP_METHOD_DELETE) == 0)
		return HTTP_DELETE;
	return 0;
}

/* A route's method mask with HEAD implied by GET. */
static unsigned route_methods(const struct http_route *rt)
{
	return rt->methods & HTTP_GET ? rt->methods | HTTP_HEAD : rt->methods;
}

/*
 * Splits an absolute path in place into segments.  "/" has none; "/a/"
 * has "a" and "".  Returns the count, or -1 if p is not absolute or has
 * more than max segments.
 */
static int split_path(char *p, char **seg, int max)
{
	int n = 0;

	if (*p++ != '/')
		return -1;
	if (*p == '\0')
		return 0;
	for (;;) {
		if (n == max)
			return -1;
		seg[n++] = p;
		p = strchr(p, '/');
		if (!p)
			return n;
		*p++ = '\0';
	}
}

/*
 * Matches a route pattern against split path segments, collecting the
 * {placeholder} values.  Returns true on a match.
 */
static bool route_match(const char *pat, char *const *seg, int nseg,
			const char **params, unsigned *nparams)
{
	unsigned n = 0;
	int i = 0;

	if (*pat++ != '/')
		return false;
	if (*pat == '\0')
		return nseg == 0;
	for (;;) {
		const char *end = strchrnul(pat, '/');
		size_t len = (size_t)(end - pat);

		if (i == nseg)
			return false;
		if (len >= 2 && pat[0] == '{' && pat[len - 1] == '}') {
			if (seg[i][0] == '\0' || n == HTTP_MAX_PARAMS)
				return false;
			params[n++] = seg[i];
		} else if (strlen(seg[i]) != len ||
			   memcmp(seg[i], pat, len) != 0) {
			return false;
		}
		i++;
		if (*end == '\0')
			break;
		pat = end + 1;
	}
	if (i != nseg)
		return false;
	*nparams = n;
	return true;
}

/* Checks a route table once at start-up.  Returns 0 or -EINVAL. */
static int check_routes(const struct http_route *routes, size_t n,
			char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct http_route *rt = &routes[i];
		const char *p;
		unsigned np = 0;

		if (!rt->pattern || rt->pattern[0] != '/' || !rt->fn ||
		    !(rt->methods & (HTTP_GET | HTTP_POST | HTTP_DELETE))) {
			errmsg(err, errlen, "bad http route %zu (%s)", i,
			       rt->pattern ? rt->pattern : "null");
			return -EINVAL;
		}
		for (p = rt->pattern; (p = strchr(p, '{')) != NULL; p++)
			np++;
		if (np > HTTP_MAX_PARAMS) {
			errmsg(err, errlen,
			       "http route %s has more than %d parameters",
			       rt->pattern, HTTP_MAX_PARAMS);
			return -EINVAL;
		}
	}
	return 0;
}

/* Fills the SO_PEERCRED fields for a control-socket request. */
static void peer_creds(struct MHD_Connection *c, struct http_req *req)
{
	const union MHD_ConnectionInfo *ci;
	struct ucred uc;
	socklen_t len = sizeof(uc);

	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci)
		return;
	if (getsockopt(ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &uc,
		       &len) < 0 || len != sizeof(uc))
		return;
	req->have_peer = true;
	req->uid = uc.uid;
	req->gid = uc.gid;
	req->pid = uc.pid;
}

/* ---- basic auth (TCP listeners with a web config) ----------------- */

/* Pays the bcrypt debt back at a quarter of the wall time passed. */
static void auth_repay(struct http_server *s)
{
	uint64_t now = conn_now_ns();
	uint64_t paid = (now - s->auth_last_ns) / HTTP_AUTH_SHARE;

	s->auth_debt_ns = s->auth_debt_ns > paid ? s->auth_debt_ns - paid : 0;
	s->auth_last_ns = now;
}

/* Seconds until new credentials fit the budget again (Retry-After). */
static unsigned auth_retry_s(const struct http_server *s)
{
	uint64_t over = s->auth_debt_ns > HTTP_AUTH_BURST_NS
			? s->auth_debt_ns - HTTP_AUTH_BURST_NS : 0;

	return (unsigned)(over * HTTP_AUTH_SHARE / 1000000000ull) + 1;
}

static void suspended_add(struct http_server *s, struct http_state *st)
{
	st->sprev = NULL;
	st->snext = s->suspended;
	if (s->suspended)
		s->suspended->sprev = st;
	s->suspended = st;
}

static void suspended_del(struct http_server *s, struct http_state *st)
{
	*(st->sprev ? &st->sprev->snext : &s->suspended) = st->snext;
	if (st->snext)
		st->snext->sprev = st->sprev;
	st->sprev = st->snext = NULL;
}

/*
 * Queues the check of credentials the cache does not know and suspends
 * the request's connection until the verdict (auth_collect()).  The
 * check is charged to the budget now at the CPU time of the last one,
 * and corrected when it is done.  Returns 0, or -EBUSY (over the budget
 * or the queue full), -EAGAIN, -ENOMEM: then nothing is queued.
 */
/* The key of c's client address in auth_src: an IPv4 address (also
 * v4-mapped), or an IPv6 address's /64; all zero when unknown. */
static void source_key(struct MHD_Connection *c, unsigned char key[16])
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	memset(key, 0, 16);
	if (sa && sa->sa_family == AF_INET) {
		memcpy(key, &((const struct sockaddr_in *)(const void *)sa)
			    ->sin_addr, 4);
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct in6_addr *a =
			&((const struct sockaddr_in6 *)(const void *)sa)
			->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a))
			memcpy(key, a->s6_addr + 12, 4);
		else
			memcpy(key, a->s6_addr, 8);
		key[15] = 6;	/* not an IPv4 address */
	}
}

/*
 * Did the source key asked for a check in the last HTTP_AUTH_RECENT_NS?
 * Returns its slot (to note the check in), or the slot to take for it
 * (a free one, else the least recently used) in *slot.
 */
static bool source_recent(struct http_server *s, const unsigned char *key,
			  uint64_t now, struct auth_source **slot)
{
	struct auth_source *old = &s->auth_src[0];

	for (unsigned i = 0; i < HTTP_AUTH_SOURCES; i++) {
		struct auth_source *a = &s->auth_src[i];

		if (a->last_ns && memcmp(a->key, key, 16) == 0) {
			*slot = a;
			return now - a->last_ns < HTTP_AUTH_RECENT_NS;
		}
		if (a->last_ns < old->last_ns)
			old = a;
	}
	*slot = old;
	return false;
}

static int auth_submit(struct http_server *s, struct MHD_Connection *c,
		       struct http_state *st, struct webcfg_check *chk)
{
	struct auth_source *src;
	struct authq_job *job;
	unsigned char key[16];
	bool recent;
	int r;

	auth_repay(s);
	source_key(c, key);
	recent = source_recent(s, key, s->auth_last_ns, &src);
	if (s->auth_debt_ns >= (recent ? HTTP_AUTH_BURST_NS : HTTP_AUTH_CAP_NS))
		return -EBUSY;
	r = recent ? authq_submit(s->authq, chk, st, &job)
		   : authq_submit_first(s->authq, chk, st, &job);
	if (r < 0)
		return r;
	memcpy(src->key, key, 16);
	src->last_ns = s->auth_last_ns;
	st->job = job;
	st->auth = AUTH_WAITING;
	st->conn = c;
	conn_checking(conn_of(c), true);
	st->charged_ns = s->auth_est_ns;
	s->auth_debt_ns += st->charged_ns;
	suspended_add(s, st);
	MHD_suspend_connection(c);
	return 0;
}

/*
 * Takes the finished checks: charges the CPU time each took (less what
 * was charged in advance), remembers the verdict and resumes the
 * connection, whose request on_request() then answers.
 */
static void auth_collect(struct http_server *s)
{
	struct authq_job *job;

	while ((job = authq_done(s->authq)) != NULL) {
		struct http_state *st = authq_cookie(job);
		struct webcfg_check *chk = authq_check(job);
		uint64_t d = s->auth_debt_ns + chk->cpu_ns;

		s->auth_debt_ns = d > st->charged_ns ? d - st->charged_ns : 0;
		s->auth_est_ns = chk->cpu_ns;
		s->loop[0].stats.auth_cpu_ns += chk->cpu_ns;
		if (chk->ok)
			s->loop[0].stats.auth_accepted++;
		else
			s->loop[0].stats.auth_refused++;
		st->auth_ok = chk->ok;
		webcfg_auth_end(s->web, chk);
		authq_job_free(job);
		st->job = NULL;
		st->auth = AUTH_DONE;
		suspended_del(s, st);
		conn_checking(conn_of(st->conn), false);
		MHD_resume_connection(st->conn);
	}
}

/* 401 with WWW-Authenticate. */
static enum MHD_Result send_unauthorized(struct MHD_Connection *c)
{
	struct http_resp r;

	resp_init(&r);
	http_error(&r, 401, "unauthorized", "this listener needs HTTP basic "
		   "auth with a user of the web config");
	r.www_authenticate = "Basic realm=\"uncored\", charset=\"UTF-8\"";
	return send_resp(c, &r, 0);
}

/* 503 with Retry-After: new credentials cannot be checked now. */
static enum MHD_Result send_busy(struct MHD_Connection *c, unsigned retry_s)
{
	struct http_resp r;

	resp_init(&r);
	http_error(&r, 503, "busy", "too many new credentials to check; retry "
		   "in %u s", retry_s);
	r.retry_after_s = retry_s;
	return send_resp(c, &r, 0);
}

/*
 * 503 with Retry-After and "Connection: close" for a request on a
 * control connection over the budget (http_conn.c, conn_open()): not processed,
 * so any request may be sent again.
 */
static enum MHD_Result send_control_busy(struct http_listener *l,
					 struct MHD_Connection *c,
					 const struct http_conn *k)
{
	const struct http_server *s = l->srv;
	struct http_resp r;

	resp_init(&r);
	if (k->busy_own)
		http_error(&r, 503, "busy", "the control socket is busy: uid %u "
			   "has %u connections open, its share of the budget "
			   "(control_max_per_uid), none of them idle for %u ms; "
			   "retry, or use fewer connections", (unsigned)k->uid,
			   s->lim.ctl_per_uid, HTTP_CONTROL_GRACE_MS);
	else
		http_error(&r, 503, "busy", "the control socket is busy: all "
			   "%u connections of its budget (control_max_"
			   "connections) are in use, none of them idle for %u "
			   "ms; retry", s->lim.ctl_max, HTTP_CONTROL_GRACE_MS);
	r.retry_after_s = 1;
	r.close = true;
	log_debug("http: busy answer to uid %u on %s", (unsigned)k->uid,
		  l->sk.name);
	return send_resp(c, &r, 0);
}

/* What gate() did with a request. */
enum gate { GATE_PASSED, GATE_ANSWERED, GATE_SUSPENDED };

/*
 * The basic-auth part of gate(): credentials the cache knows are
 * answered at once; others are queued for a check (GATE_SUSPENDED), or
 * get 503 when the budget or the queue has no room.
 */
static enum gate gate_auth(struct http_listener *l, struct MHD_Connection *c,
			   struct http_state *st, enum MHD_Result *ret)
{
	struct http_server *s = l->srv;
	struct webcfg_check chk;
	char *user, *pass;
	int v;

	/* Not MHD_basic_auth_get_username_password(): it wants "Basic"
	   in that case only, and its C strings end a password at a NUL. */
	v = webcfg_parse_basic(MHD_lookup_connection_value(c,
				MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION),
			       &user, &pass) < 0 ? WEBCFG_REFUSED
	    : webcfg_auth_begin(s->web, user, pass, &chk);
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		free(pass);
	}
	free(user);
	if (v == WEBCFG_NEEDS_CHECK) {
		v = auth_submit(s, c, st, &chk);
		if (v == 0)
			return GATE_SUSPENDED;
		webcfg_check_free(&chk);
	}
	if (v == WEBCFG_ACCEPTED)
		return GATE_PASSED;
	if (v < 0) {
		s->loop[0].stats.auth_busy++;
		log_debug("http %s: new credentials over the bcrypt budget or "
			  "queue", l->sk.name);
		*ret = send_busy(c, auth_retry_s(s));
		return GATE_ANSWERED;
	}
	log_debug("http %s: basic auth failed", l->sk.name);
	*ret = send_unauthorized(c);
	return GATE_ANSWERED;
}

/*
 * Lets a request on a guarded TCP listener through, answers it (403
 * for a client certificate the policy refuses, 401, 503), or suspends
 * it for a bcrypt check.
 */
static enum gate gate(struct http_listener *l, struct MHD_Connection *c,
		      struct http_state *st, enum MHD_Result *ret)
{
	struct http_server *s = l->srv;
	const char *why = tls_cert_problem(s->web, c);

	if (why) {
		*ret = send_error(c, 403, 0, "forbidden", "%s", why);
		return GATE_ANSWERED;
	}
	if (s->web->nusers == 0)
		return GATE_PASSED;
	return gate_auth(l, c, st, ret);
}

/* Routes a complete request and queues the answer. */
static enum MHD_Result dispatch(struct http_listener *l,
				struct MHD_Connection *c, const char *url,
				const char *method, struct http_state *st)
{
	const struct http_server *s = l->srv;
	const struct http_route *found = NULL;
	struct http_req req;
	struct http_resp resp;
	char *seg[HTTP_MAX_SEGMENTS];
	unsigned m = method_bit(method), allow = 0;
	bool matched = false, hidden = false;
	enum MHD_Result ret;
	char *path;
	size_t i;
	int nseg;

	memset(&req, 0, sizeof(req));
	path = strdup(url);
	if (!path)
		return send_error(c, 500, 0, "internal", "out of memory");
	nseg = split_path(path, seg, HTTP_MAX_SEGMENTS);
	for (i = 0; nseg >= 0 && i < s->nroutes; i++) {
		const struct http_route *rt = &s->routes[i];
		const char *params[HTTP_MAX_PARAMS] = { NULL };
		unsigned np = 0;

		if (!route_match(rt->pattern, seg, nseg, params, &np))
			continue;
		matched = true;
		if (rt->control_only && !l->sk.control) {
			hidden = true;
			continue;
		}
		allow |= route_methods(rt);
		if (!found && (route_methods(rt) & m)) {
			found = rt;
			memcpy(req.params, params, sizeof(params));
			req.nparams = np;
		}
	}
	if (!matched) {
		ret = send_error(c, 404, 0, "not_found", "no such resource: %s",
				 url);
		goto out;
	}
	if (!found && !allow && hidden) {
		ret = send_error(c, 403, 0, "forbidden", "claim routes are "
				 "only served on the control socket");
		goto out;
	}
	if (!found) {
		ret = send_error(c, 405, allow, "method_not_allowed",
				 "method %s is not allowed on %s", method, url);
		goto out;
	}

	{
		const char *want = MHD_lookup_connection_value(c,
					MHD_HEADER_KIND, INSTANCE_HEADER);

		/* a request for the claims of another lifetime: the ids it
		 * names may be this one's, for other claims */
		if (want && instance_id[0] && strcmp(want, instance_id) != 0) {
			ret = send_error(c, 412, 0, "instance_mismatch",
					 "this is uncored instance %s, not the "
					 "one the request names: the daemon "
					 "restarted, and the claims made before "
					 "are gone", instance_id);
			goto out;
		}
	}
	req.method = m == HTTP_HEAD ? HTTP_GET : (enum http_method)m;
	req.path = url;
	req.control = l->sk.control;
	if (l->sk.control)
		peer_creds(c, &req);
	req.body = st->body.p ? st->body.p : "";
	req.body_len = st->body.len;
	req.conn = c;
	req.server = l->srv;
	resp_init(&resp);
	found->fn(s->ctx, &req, &resp);
	/* The route pattern, not the decoded path: no client bytes in logs. */
	if (req.have_peer)
		log_debug("http: %s %s from uid %u -> %d", method,
			  found->pattern, (unsigned)req.uid, resp.status);
	else
		log_debug("http: %s %s on %s -> %d", method, found->pattern,
			  l->sk.name, resp.status);
	ret = send_resp(c, &resp, 0);
out:
	free(path);
	return ret;
}

/* ---- connection accounting ----------------------------------------- */

static struct http_conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

static void on_connection(void *cls, struct MHD_Connection *c,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct http_listener *l = cls;
	struct http_server *s = l->srv;
	struct http_loop *lp = l->lp;
	struct http_conn *k = *socket_context;
	const union MHD_ConnectionInfo *ci, *ca;

	if (code == MHD_CONNECTION_NOTIFY_STARTED && !l->sk.control && s->web &&
	    s->web->tls)
		tls_started(s->web, c);
	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (!k)
			return;
		conn_close(&lp->conns, k);
		*socket_context = NULL;
		return;
	}
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci)
		return;		/* not accounted: MHD's own limits still hold */
	ca = l->sk.control ? NULL
	     : MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	*socket_context = conn_open(&lp->conns, ci->connect_fd, l->sk.control,
				    !l->sk.control && s->web && s->web->tls,
				    ca ? ca->client_addr : NULL);
}

/* What the loop counts, for http_get_stats() on the other thread. */
static void loop_publish(struct http_loop *lp)
{
	struct http_stats p = lp->stats;

	conn_count(&lp->conns, &p);
	pthread_mutex_lock(&lp->pub_lock);
	lp->pub = p;
	pthread_mutex_unlock(&lp->pub_lock);
}

/* What on_uri saw, until on_request makes the request's state: no
 * memory of ours, since MHD calls neither on_request nor on_completed
 * for a request it refuses itself (1,000 query parameters overflow its
 * connection pool: 96 bytes leaked a request, issue 39 §11). */
static char uri_plain, uri_ambiguous;

/*
 * MHD_OPTION_URI_LOG_CALLBACK: the request target as sent, before MHD
 * decodes it.  Returns &uri_ambiguous or &uri_plain (on_request turns it
 * into a struct http_state).
 */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	(void)cls;
	conn_begun(conn_of(c));
	/* %2F in the path; %00 anywhere, the query included ("limit=5%00x"
	   would reach a handler as "5"). */
	for (const char *p = uri, *q = NULL; p && *p; p++) {
		if (*p == '?' && !q)
			q = p;
		if (p[0] == '%' && p[1] &&
		    ((!q && p[1] == '2' && (p[2] == 'f' || p[2] == 'F')) ||
		     (p[1] == '0' && p[2] == '0')))
			return &uri_ambiguous;
	}
	return &uri_plain;
}

/* The query parameters counted, and the first name given twice. */
struct query_seen {
	unsigned n;
	const char *dup;
	const char *name[HTTP_MAX_QUERY_PARAMS];
};

static enum MHD_Result count_query(void *cls, enum MHD_ValueKind kind,
				   const char *key, const char *value)
{
	struct query_seen *q = cls;

	(void)kind;
	(void)value;
	if (q->n < HTTP_MAX_QUERY_PARAMS) {
		for (unsigned i = 0; i < q->n && !q->dup; i++)
			if (strcmp(q->name[i], key) == 0)
				q->dup = q->name[i];
		q->name[q->n] = key;
	}
	q->n++;
	return MHD_YES;
}

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind,
				    const char *key, const char *value)
{
	unsigned *n = cls;

	(void)kind;
	(void)value;
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0)
		n[0]++;
	else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0)
		n[1]++;
	return MHD_YES;
}

/* Why the request is ambiguous, or NULL. */
static const char *ambiguous(struct MHD_Connection *c,
			     const struct http_state *st)
{
	unsigned n[2] = { 0, 0 };

	if (st->raw_ambiguous)
		return "the path contains an encoded '/' (%2F) or the target an "
		       "encoded NUL (%00)";
	MHD_get_connection_values(c, MHD_HEADER_KIND, count_header, n);
	if (n[0] > 1)
		return "more than one Content-Length header";
	if (n[0] && n[1])
		return "both Content-Length and Transfer-Encoding";
	return NULL;
}

/* Content-Length as announced, or 0 if absent (MHD vets its syntax). */
static unsigned long long content_length(struct MHD_Connection *c)
{
	const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_CONTENT_LENGTH);

	return v ? strtoull(v, NULL, 10) : 0;
}

/* Does the client wait for "100 Continue" before it sends the body? */
static bool expects_continue(struct MHD_Connection *c)
{
	const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_EXPECT);

	return v && strcasecmp(v, "100-continue") == 0;
}

/*
 * The checks of a request's headers that come after the gate: an
 * ambiguous request (400), a body announced too large (413).  Returns
 * true when it answered (*ret).  A client that announced a body too
 * large without "Expect: 100-continue" is sending it already: answering
 * and closing now would reset the connection under its writes, and it
 * would see no answer at all (curl sends 70 KB that way), so a body up
 * to HTTP_DRAIN_MAX is read and dropped (the request deadline bounds how
 * long) and answered with 413 at its end.
 */
static bool refuse_early(struct MHD_Connection *c, struct http_state *st,
			 enum MHD_Result *ret)
{
	const char *why = ambiguous(c, st);
	struct query_seen q = { 0 };

	if (why) {
		conn_answered(conn_of(c));
		*ret = send_error(c, 400, 0, "bad_request",
				  "ambiguous request: %s", why);
		return true;
	}
	/* issue 39 §11, §12: a bound on query parameters, and none twice
	 * (as a JSON body's keys: which of two would a handler take?) */
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, count_query, &q);
	if (q.n > HTTP_MAX_QUERY_PARAMS) {
		conn_answered(conn_of(c));
		*ret = send_error(c, 414, 0, "uri_too_long", "%u query "
				  "parameters: at most %d", q.n,
				  HTTP_MAX_QUERY_PARAMS);
		return true;
	}
	if (q.dup) {
		conn_answered(conn_of(c));
		*ret = send_error(c, 400, 0, "bad_request", "query parameter "
				  "\"%s\" is given twice", q.dup);
		return true;
	}
	if (content_length(c) > HTTP_MAX_BODY) {
		if (!expects_continue(c) &&
		    content_length(c) <= HTTP_DRAIN_MAX) {
			/* the body is on its way: read and drop it, then 413 */
			st->too_big = true;
			return false;
		}
		conn_answered(conn_of(c));
		*ret = send_error(c, 413, 0, "too_large",
				  "request body over %d bytes", HTTP_MAX_BODY);
		return true;
	}
	return false;
}

/*
 * The first call (headers complete, body not read): the gate on a
 * guarded TCP listener, then refuse_early().  A request suspended for a
 * bcrypt check comes back through after_check().
 */
static enum MHD_Result first_call(struct http_listener *l,
				  struct MHD_Connection *c,
				  struct http_state *st)
{
	enum MHD_Result r = MHD_YES;
	struct http_conn *k = conn_of(c);

	st->started = true;
	if (k && k->busy) {
		conn_answered(conn_of(c));
		return send_control_busy(l, c, k);
	}
	if (!l->sk.control && l->srv->web) {
		switch (gate(l, c, st, &r)) {
		case GATE_SUSPENDED:
			return MHD_YES;
		case GATE_ANSWERED:
			conn_answered(conn_of(c));
			return r;
		case GATE_PASSED:
			break;
		}
	}
	return refuse_early(c, st, &r) ? r : MHD_YES;
}

/* A request resumed with its check's verdict: 401, or on its way (the
 * call goes on as any other).  Returns true when it answered. */
static bool after_check(struct MHD_Connection *c, struct http_state *st,
			enum MHD_Result *ret)
{
	st->auth = AUTH_NONE;
	if (!st->auth_ok) {
		conn_answered(conn_of(c));
		*ret = send_unauthorized(c);
		return true;
	}
	return refuse_early(c, st, ret);
}

/* A piece of the body: kept, or counted and dropped past the limit. */
static void take_body(struct http_state *st, const char *data, size_t n)
{
	if (st->too_big) {
		st->discarded += n;	/* until its end or its deadline */
		return;
	}
	if (n > HTTP_MAX_BODY - st->body.len) {
		st->too_big = true;
		st->discarded = st->body.len + n;
		buf_free(&st->body);
		return;
	}
	buf_put(&st->body, data, n);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct http_listener *l = cls;
	struct http_state *st = *con_cls;
	enum MHD_Result r;

	(void)version;
	tls_request(strcmp(method, MHD_HTTP_METHOD_HEAD) == 0);
	if (!st || (void *)st == &uri_plain || (void *)st == &uri_ambiguous) {
		bool amb = (void *)st == &uri_ambiguous;

		*con_cls = NULL;
		st = calloc(1, sizeof(*st));
		if (!st)
			return MHD_NO;
		st->raw_ambiguous = amb;
		*con_cls = st;
	}
	if (!st->started)
		return first_call(l, c, st);
	if (st->auth == AUTH_GONE)
		return MHD_NO;		/* the server stops */
	if (st->auth == AUTH_DONE && after_check(c, st, &r))
		return r;
	if (*upload_data_size) {
		take_body(st, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	conn_answered(conn_of(c));
	if (st->too_big)
		return send_error(c, 413, 0, "too_large",
				  "request body over %d bytes", HTTP_MAX_BODY);
	if (st->body.oom)
		return send_error(c, 500, 0, "internal",
				  "out of memory reading the request body");
	return dispatch(l, c, url, method, st);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_listener *l = cls;
	struct http_state *st = *con_cls;
	(void)toe;
	if ((void *)st == &uri_plain || (void *)st == &uri_ambiguous)
		st = NULL;	/* on_request never ran */
	if (st && st->job) {	/* closed while its check was pending */
		authq_cancel(l->srv->authq, st->job);
		suspended_del(l->srv, st);
		st->job = NULL;
	}
	conn_done(conn_of(c));	/* keep-alive: a new request deadline */
	if (!st)
		return;
	buf_free(&st->body);
	free(st);
	*con_cls = NULL;
}

/* MHD's own messages (malformed requests, limits) are for debugging. */
__attribute__((format(printf, 2, 0)))
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct http_listener *l = cls;
	char msg[512];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
		msg[--n] = '\0';
	log_debug("http %s: %s", l->sk.name, msg);
}

/* ---- listeners (their sockets: http_listen.c) --------------------- */

/* Is an inherited control socket already bound to path? */
static bool have_inherited(const struct http_server *s, const char *path)
{
	char want[sizeof(s->ls[0].sk.name)];
	unsigned i;

	snprintf(want, sizeof(want), "unix:%s", path);
	for (i = 0; i < s->nls; i++)
		if (s->ls[i].sk.inherited && s->ls[i].sk.control &&
		    strcmp(s->ls[i].sk.name, want) == 0)
			return true;
	return false;
}

/* The control socket cfg names, into l; s remembers it for removal
 * (the file it made, not one put there later). */
static int open_control(struct http_server *s, struct http_listener *l,
			const struct http_cfg *cfg, char *err, size_t errlen)
{
	const char *path = cfg->control_socket;
	struct stat st;
	int r = listen_control(&l->sk, path, cfg->control_mode ?
			       cfg->control_mode : 0660, cfg->control_group,
			       &st, err, errlen);

	if (r < 0)
		return r;
	s->ctl_path = strdup(path);
	if (!s->ctl_path) {
		close(l->sk.fd);
		l->sk.fd = -1;
		unlink(path);
		errmsg(err, errlen, "cannot create control socket %s: %s",
		       path, strerror(ENOMEM));
		return -ENOMEM;
	}
	s->ctl_dev = st.st_dev;
	s->ctl_ino = st.st_ino;
	return 0;
}

int http_lookup_group(const char *name, gid_t *gid)
{
	return listen_lookup_group(name, gid);
}

static int start_mhd(struct http_server *s, struct http_listener *l,
		     const struct http_cfg *cfg, char *err, size_t errlen)
{
	unsigned timeout = cfg->timeout_s ? cfg->timeout_s
					  : HTTP_DEFAULT_TIMEOUT_S;
	unsigned maxc = cfg->max_connections ? cfg->max_connections
					     : HTTP_DEFAULT_MAX_CONNECTIONS;
	unsigned per_ip = cfg->max_per_ip ? cfg->max_per_ip
					  : HTTP_DEFAULT_MAX_PER_IP;
	const union MHD_DaemonInfo *di;
	struct MHD_OptionItem tls[TLS_OPTIONS + 1];
	bool use_tls;

	/* max_connections (the TCP listeners together), max_per_ip and the
	 * control socket's budget are kept by on_connection() (http_conn.c,
	 * which displaces slow partial requests and stalled answers); MHD's
	 * own limit only bounds what it accepts before we can look: the
	 * limit plus the connections being shut down.  Per-IP accounting
	 * needs an IP: none on Unix sockets (conn_open() skips them). */
	s->lim.max_conn = maxc;
	s->lim.max_per_ip = per_ip;
	s->lim.deadline_ns = (uint64_t)timeout * 1000000000ull;
	/* the control socket: room for as many busy answers as the budget
	   (http_conn.c), at least HTTP_ACCEPT_SLACK */
	l->max_conn = l->sk.control
		      ? s->lim.ctl_max + (s->lim.ctl_max > HTTP_ACCEPT_SLACK
					  ? s->lim.ctl_max : HTTP_ACCEPT_SLACK)
		      : maxc + HTTP_ACCEPT_SLACK;
	use_tls = tls_options(s->web, l->sk.control, tls);
	if (use_tls)
		snprintf(l->sk.name + strlen(l->sk.name),
			 sizeof(l->sk.name) - strlen(l->sk.name), " (TLS)");
	l->mhd = MHD_start_daemon(MHD_USE_ERROR_LOG | MHD_USE_EPOLL |
				  (use_tls ? MHD_USE_TLS : 0) |
				  (!l->sk.control && s->authq
				   ? MHD_ALLOW_SUSPEND_RESUME : 0), 0,
			NULL, NULL, on_request, l,
			MHD_OPTION_EXTERNAL_LOGGER, mhd_log, l,
			MHD_OPTION_LISTEN_SOCKET, (MHD_socket)l->sk.fd,
			MHD_OPTION_CONNECTION_TIMEOUT, timeout,
			MHD_OPTION_CONNECTION_LIMIT, l->max_conn,
			MHD_OPTION_CONNECTION_MEMORY_LIMIT,
			(size_t)HTTP_CONN_MEMORY,
			MHD_OPTION_NOTIFY_COMPLETED, on_completed, l,
			MHD_OPTION_ARRAY, tls,
			MHD_OPTION_NOTIFY_CONNECTION, on_connection, l,
			MHD_OPTION_URI_LOG_CALLBACK, on_uri, l,
			MHD_OPTION_END);
	if (!l->mhd) {
		errmsg(err, errlen, "cannot start the HTTP server on %s "
		       "(libmicrohttpd refused; see debug log)", l->sk.name);
		return -EIO;
	}
	di = MHD_get_daemon_info(l->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	if (!di) {
		errmsg(err, errlen, "cannot poll the HTTP server on %s: "
		       "libmicrohttpd has no epoll fd", l->sk.name);
		return -EIO;
	}
	l->epoll_fd = di->epoll_fd;
	return 0;
}

/* ---- the threads ------------------------------------------------- */

static unsigned connections(struct http_listener *l)
{
	const union MHD_DaemonInfo *di;

	di = MHD_get_daemon_info(l->mhd, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	return di ? di->num_connections : 0;
}

/*
 * Runs one daemon.  At its connection limit MHD takes the listen socket
 * out of its epoll set and puts it back only at the start of a later
 * MHD_run(); nothing would wake us for that (no timeout, no readable
 * fd), so connections waiting in the backlog would wait forever.  When a
 * full daemon has dropped below the limit, run it once more at once.
 */
static void run_one(struct http_listener *l)
{
	unsigned n;

	MHD_run(l->mhd);
	/* A connection MHD gives up on in a run (a request it refuses
	 * itself: 1,000 query parameters overflow its pool, issue 39 §11)
	 * is closed only by the next run, which nothing would wake until
	 * the request deadline: run it now.  (MHD_get_timeout() does not
	 * say 0 for it.) */
	MHD_run(l->mhd);
	n = connections(l);
	if (l->full && n < l->max_conn) {
		MHD_run(l->mhd);
		n = connections(l);
	}
	l->full = n >= l->max_conn;
}

/*
 * A loop: poll() on the wake-up eventfd, the bcrypt queue, each daemon's
 * epoll fd and, while the daemon accepts, its listening socket itself,
 * for the shortest timeout MHD and the connection limits ask, at most
 * HTTP_MAX_WAIT_MS; then MHD_run() on each daemon.
 *
 * Why not one epoll set holding MHD's: under heavy load (tests/fuzz/
 * fuzz_http.c beside stress-ng, load average 15-30 on 2 cores, Linux
 * 6.18) the thread slept in epoll_wait(), and then in poll(), on an
 * epoll fd that poll() from another thread found readable, with a
 * connection queued on the listening socket that MHD's set held, for
 * over 15 s, until another connection arrived: a wake-up lost on the way
 * from the socket through the nested epoll sets.  The listening socket
 * is polled directly now (a new connection wakes this thread with no
 * epoll between), and no sleep lasts longer than HTTP_MAX_WAIT_MS, so a
 * wake-up lost for a connection MHD already holds (its events go
 * through MHD's set) costs at most that.
 */
static void *serve(void *arg)
{
	struct http_loop *lp = arg;
	struct http_server *s = lp->srv;
	struct pollfd *pf = calloc(2 * s->nls + 2, sizeof(*pf));
	unsigned i, nfd;
	int n;

	if (!pf) {
		log_err("http: %s: out of memory", lp->tname);
		return NULL;
	}
	for (;;) {
		int timeout = conn_reap(&lp->conns);
		bool auth;

		nfd = 0;
		pf[nfd++] = (struct pollfd){ .fd = lp->wakefd, .events = POLLIN };
		auth = !lp->control && s->authq;
		if (auth)
			pf[nfd++] = (struct pollfd){ .fd = authq_fd(s->authq),
						     .events = POLLIN };
		for (i = 0; i < s->nls; i++) {
			MHD_UNSIGNED_LONG_LONG t;

			if (s->ls[i].lp != lp)
				continue;
			pf[nfd++] = (struct pollfd){ .fd = s->ls[i].epoll_fd,
						     .events = POLLIN };
			/* a full daemon accepts nothing: its socket would
			   wake us at once, again and again */
			if (!s->ls[i].full)
				pf[nfd++] = (struct pollfd){ .fd = s->ls[i].sk.fd,
							     .events = POLLIN };
			if (MHD_get_timeout(s->ls[i].mhd, &t) != MHD_YES)
				continue;
			if (t > INT_MAX)
				t = INT_MAX;
			if (timeout < 0 || (int)t < timeout)
				timeout = (int)t;
		}
		if (timeout < 0 || timeout > HTTP_MAX_WAIT_MS)
			timeout = HTTP_MAX_WAIT_MS;
		n = poll(pf, nfd, timeout);
		if (n < 0 && errno != EINTR) {
			log_warn("http: poll");
			usleep(100 * 1000);
		}
		if (n > 0 && pf[0].revents)
			break;
		if (n > 0 && auth && pf[1].revents)
			auth_collect(s);
		for (i = 0; i < s->nls; i++)
			if (s->ls[i].lp == lp)
				run_one(&s->ls[i]);
		loop_publish(lp);
	}
	free(pf);
	return NULL;
}

/*
 * Tears everything down.  With keep_inherited, sockets from systemd are
 * taken back from MHD and left open (the failure path of http_start).
 */
/*
 * With the http thread gone: requests still waiting for a bcrypt check
 * are resumed to be closed (MHD must not stop with suspended
 * connections), the checks are dropped, and the workers are left to end
 * on their own - a bcrypt cannot be interrupted, and shutdown must not
 * wait for one.
 */
static void drop_suspended(struct http_server *s)
{
	struct http_state *st;

	if (!s->authq)
		return;
	while ((st = s->suspended) != NULL) {
		authq_cancel(s->authq, st->job);
		st->job = NULL;
		st->auth = AUTH_GONE;
		suspended_del(s, st);
		MHD_resume_connection(st->conn);
	}
	for (unsigned i = 0; i < s->nls; i++)
		if (s->ls[i].mhd)
			MHD_run(s->ls[i].mhd);	/* on_request closes them */
	authq_free(s->authq);
	s->authq = NULL;
}

static void destroy(struct http_server *s, bool keep_inherited)
{
	unsigned i;

	for (i = 0; i < 2; i++) {
		struct http_loop *lp = &s->loop[i];
		uint64_t one = 1;

		if (!lp->running)
			continue;
		if (write(lp->wakefd, &one, sizeof(one)) != sizeof(one))
			log_warn("http: cannot wake the %s thread", lp->tname);
		pthread_join(lp->thread, NULL);
	}
	drop_suspended(s);
	for (i = 0; i < s->nls; i++) {
		struct http_listener *l = &s->ls[i];

		if (l->mhd) {
			/* Take the listen socket back so closing is ours. */
			int fd = MHD_quiesce_daemon(l->mhd);

			MHD_stop_daemon(l->mhd);
			if (fd != l->sk.fd)
				l->sk.fd = -1;	/* MHD closed it */
		}
		if (l->sk.fd >= 0 && !(keep_inherited && l->sk.inherited))
			close(l->sk.fd);
	}
	if (s->ctl_path) {
		struct stat st;

		/* Only unlink our own socket, not a successor's. */
		if (lstat(s->ctl_path, &st) == 0 && S_ISSOCK(st.st_mode) &&
		    st.st_dev == s->ctl_dev && st.st_ino == s->ctl_ino)
			unlink(s->ctl_path);
		free(s->ctl_path);
	}
	for (i = 0; i < 2; i++) {
		if (s->loop[i].wakefd >= 0)
			close(s->loop[i].wakefd);
		pthread_mutex_destroy(&s->loop[i].pub_lock);
	}
	free(s->ls);
	free(s);
}

/*
 * What a loop waits on besides its daemons: the wake-up eventfd and, for
 * the TCP loop with basic-auth users, the bcrypt workers' queue (its
 * eventfd).  0, or -1 with err.
 */
static int setup_polling(struct http_server *s, struct http_loop *lp,
			 char *err, size_t errlen)
{
	lp->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (lp->wakefd < 0)
		goto fail;
	if (lp->control || !s->web || s->web->nusers == 0)
		return 0;
	s->authq = authq_new(HTTP_AUTH_WORKERS, HTTP_AUTH_DEPTH);
	if (!s->authq)
		goto fail;
	return 0;
fail:
	errmsg(err, errlen, "cannot set up HTTP polling: %s", strerror(errno));
	return -1;
}

/* What http_start() needs of libmicrohttpd and the config.  0 or -1. */
static int check_start(const struct http_cfg *cfg,
		       const struct http_route *routes, size_t nroutes,
		       char *err, size_t errlen)
{
	if (cfg->nlisten > HTTP_MAX_LISTEN) {
		errmsg(err, errlen, "too many listen addresses (at most %d)",
		       HTTP_MAX_LISTEN);
		return -1;
	}
	if (MHD_is_feature_supported(MHD_FEATURE_EPOLL) != MHD_YES) {
		errmsg(err, errlen, "libmicrohttpd was built without epoll "
		       "support, which the http thread needs");
		return -1;
	}
	if (check_routes(routes, nroutes, err, errlen) < 0)
		return -1;
	if (cfg->web && cfg->web->tls &&
	    MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		errmsg(err, errlen, "%s: libmicrohttpd was built without TLS "
		       "support", cfg->web->path);
		return -1;
	}
	return 0;
}

/*
 * Opens every listener of cfg into s->ls (TCP, inherited, the control
 * socket), after checking every address first.  0 or -1 with err.
 */
static int open_listeners(struct http_server *s, const struct http_cfg *cfg,
			  char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < cfg->nlisten; i++) {
		struct sockaddr_storage ss;
		socklen_t len;

		if (!cfg->listen[i]) {
			errmsg(err, errlen, "listen address %u is missing", i);
			return -1;
		}
		if (listen_parse(cfg->listen[i], &ss, &len, err, errlen) < 0)
			return -1;
	}
	for (i = 0; i < cfg->nlisten; i++)
		if (listen_tcp(&s->ls[s->nls++].sk, cfg->listen[i], err,
			       errlen) < 0)
			return -1;
	for (i = 0; i < cfg->ninherited; i++)
		if (listen_adopt(&s->ls[s->nls++].sk, cfg->inherited_fds[i],
				 err, errlen) < 0)
			return -1;
	if (cfg->control_socket && cfg->control_socket[0] &&
	    !have_inherited(s, cfg->control_socket) &&
	    open_control(s, &s->ls[s->nls++], cfg, err, errlen) < 0)
		return -1;
	if (s->nls == 0) {
		errmsg(err, errlen, "no HTTP listener configured");
		return -1;
	}
	return 0;
}

/* Starts a loop's thread with every signal blocked (signals belong to
 * the main thread).  0 or -1 with err. */
static int start_thread(struct http_loop *lp, char *err, size_t errlen)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&lp->thread, NULL, serve, lp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		errmsg(err, errlen, "cannot start the %s thread: %s", lp->tname,
		       strerror(rc));
		return -1;
	}
	pthread_setname_np(lp->thread, lp->tname);
	lp->running = true;
	return 0;
}

struct http_server *http_start(const struct http_cfg *cfg,
			       const struct http_route *routes, size_t nroutes,
			       void *ctx, char *err, size_t errlen)
{
	struct http_server *s;
	unsigned i, max;

	errmsg(err, errlen, "unknown error");
	if (check_start(cfg, routes, nroutes, err, errlen) < 0)
		return NULL;
	snprintf(instance_id, sizeof(instance_id), "%s",
		 cfg->instance ? cfg->instance : "");
	s = calloc(1, sizeof(*s));
	max = cfg->nlisten + cfg->ninherited + 1;
	if (!s || !(s->ls = calloc(max, sizeof(*s->ls)))) {
		free(s);
		errmsg(err, errlen, "out of memory");
		return NULL;
	}
	s->routes = routes;
	s->nroutes = nroutes;
	s->web = cfg->web;
	s->auth_last_ns = conn_now_ns();
	s->ctx = ctx;
	s->lim.ctl_max = cfg->control_max_connections
			 ? cfg->control_max_connections
			 : HTTP_DEFAULT_CONTROL_MAX_CONNECTIONS;
	s->lim.ctl_per_uid = cfg->control_max_per_uid
			     ? cfg->control_max_per_uid
			     : (s->lim.ctl_max + 1) / 2;
	if (s->lim.ctl_per_uid > s->lim.ctl_max)
		s->lim.ctl_per_uid = s->lim.ctl_max;
	for (i = 0; i < 2; i++) {
		struct http_loop *lp = &s->loop[i];

		lp->srv = s;
		lp->control = i == 1;
		lp->tname = i ? "uncored-ctl" : "uncored-http";
		lp->wakefd = -1;
		lp->conns.lim = &s->lim;
		lp->conns.stats = &lp->stats;
		pthread_mutex_init(&lp->pub_lock, NULL);
	}
	for (i = 0; i < max; i++) {
		s->ls[i].sk.fd = -1;
		s->ls[i].srv = s;
	}
	if (open_listeners(s, cfg, err, errlen) < 0)
		goto fail;
	for (i = 0; i < s->nls; i++) {
		s->ls[i].lp = &s->loop[s->ls[i].sk.control];
		s->ls[i].lp->used = true;
	}
	for (i = 0; i < 2; i++)
		if (s->loop[i].used &&
		    setup_polling(s, &s->loop[i], err, errlen) < 0)
			goto fail;
	for (i = 0; i < s->nls; i++)
		if (start_mhd(s, &s->ls[i], cfg, err, errlen) < 0)
			goto fail;
	if (cfg->before_thread)
		cfg->before_thread(cfg->before_thread_arg);
	for (i = 0; i < 2; i++)
		if (s->loop[i].used &&
		    start_thread(&s->loop[i], err, errlen) < 0)
			goto fail;
	for (i = 0; i < s->nls; i++)
		log_info("http: serving %s%s", s->ls[i].sk.name,
			 s->ls[i].sk.control ? " (control)" : "");
	return s;
fail:
	destroy(s, true);
	return NULL;
}

void http_get_stats(const struct http_req *req, struct http_stats *out)
{
	struct http_server *s = req->server;

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < 2; i++) {
		struct http_loop *lp = &s->loop[i];
		struct http_stats p;

		pthread_mutex_lock(&lp->pub_lock);
		p = lp->pub;
		pthread_mutex_unlock(&lp->pub_lock);
		for (unsigned r = 0; r < HTTP_EVICT_N; r++)
			out->evicted[r] += p.evicted[r];
		for (unsigned c = 0; c < 2; c++) {
			out->reading[c] += p.reading[c];
			out->writing[c] += p.writing[c];
			out->stalled[c] += p.stalled[c];
		}
		out->auth_accepted += p.auth_accepted;
		out->auth_refused += p.auth_refused;
		out->auth_cpu_ns += p.auth_cpu_ns;
		out->auth_busy += p.auth_busy;
		out->busy += p.busy;
	}
	/* authq_pending() takes the queue's own lock */
	out->auth_pending = s->authq ? authq_pending(s->authq) : 0;
}

unsigned http_port(const struct http_server *s, unsigned i)
{
	if (!s || i >= s->nls || s->ls[i].sk.control)
		return 0;
	return s->ls[i].sk.port;
}

void http_stop(struct http_server *s)
{
	if (s)
		destroy(s, false);
}
