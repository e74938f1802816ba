/*
 * lconn.c - the connection to the daemon (see lconn.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/lconn.h"

static int say(char *err, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int say(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return rc;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is ready for events or the deadline passes: 1, 0 (time
 * out) or -errno. */
static int wait_fd(int fd, short events, long long deadline)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		long long left = deadline - mono_ms();
		int r;

		if (left <= 0)
			return 0;
		r = poll(&p, 1, (int)(left > 60000 ? 60000 : left));
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

/* ---- connecting ----------------------------------------------------------- */

/* Why connecting to the socket at path failed with errno e. */
static int unix_refusal(const struct lconn *c, int e, char *err, size_t len)
{
	struct stat st;
	struct group *g;

	switch (e) {
	case ENOENT:
		return say(err, len, -ENOENT, "cannot connect to uncored: "
			   "control socket %s does not exist; is the daemon "
			   "running (systemctl status uncored)? $UNCORED_SOCKET, "
			   "uncorectl --socket or uncored_connect()'s argument "
			   "name another", c->where);
	case EACCES:
	case EPERM:
		g = stat(c->where, &st) == 0 ? getgrgid(st.st_gid) : NULL;
		if (g)
			return say(err, len, -EACCES, "permission denied on %s: "
				   "the control socket is for root and the "
				   "members of group \"%s\" (uncored.conf(5), "
				   "control_group), and uid %u is not one",
				   c->where, g->gr_name, (unsigned)getuid());
		return say(err, len, -EACCES, "permission denied on %s: the "
			   "control socket is for root and the members of the "
			   "daemon's control_group (uncored.conf(5))", c->where);
	case ECONNREFUSED:
		return say(err, len, -ECONNREFUSED, "nothing listens on %s: "
			   "uncored is not running (a stale socket)", c->where);
	case ENOTSOCK:
	case ENOTDIR:
		return say(err, len, -ENOTSOCK, "%s is not a socket", c->where);
	default:
		return say(err, len, -e, "cannot connect to uncored on %s: %s",
			   c->where, strerror(e));
	}
}

static int connect_unix(struct lconn *c, char *err, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(c->where) >= sizeof(sa.sun_path))
		return say(err, len, -ENAMETOOLONG, "control socket path %s is "
			   "too long", c->where);
	memcpy(sa.sun_path, c->where, strlen(c->where) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return say(err, len, -errno, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		return unix_refusal(c, e, err, len);
	}
	c->fd = fd;
	return 0;
}

/* Connects fd (non-blocking) to ai within the timeout: 0 or -errno. */
static int connect_one(const struct addrinfo *ai, int *out)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC |
			SOCK_NONBLOCK, ai->ai_protocol), e = 0;
	socklen_t el = sizeof(e);

	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS)
			e = errno;
		else if (wait_fd(fd, POLLOUT, mono_ms() + LCONN_TIMEOUT_MS) <= 0)
			e = ETIMEDOUT;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
			e = errno;
	}
	if (e) {
		close(fd);
		return -e;
	}
	*out = fd;
	return 0;
}

static int connect_tcp(struct lconn *c, char *err, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int r, rc = -EHOSTUNREACH;

	if ((r = getaddrinfo(c->host, c->port, &hints, &res)) != 0)
		return say(err, len, -EHOSTUNREACH, "%s: %s", c->where,
			   gai_strerror(r));
	for (ai = res; ai && rc < 0; ai = ai->ai_next)
		rc = connect_one(ai, &c->fd);
	freeaddrinfo(res);
	if (rc < 0)
		return say(err, len, rc, "cannot connect to uncored at %s: %s",
			   c->where, strerror(-rc));
	return 0;
}

/* (Re)connects, from this process. */
static int reconnect(struct lconn *c, char *err, size_t len)
{
	int rc = c->host[0] ? connect_tcp(c, err, len)
			    : connect_unix(c, err, len);

	if (rc == 0)
		c->owner = getpid();
	return rc;
}

/* Splits "http://HOST:PORT" (HOST may be [IPv6]) into c. */
static int parse_url(struct lconn *c, const char *u, char *err, size_t len)
{
	const char *h = u + 7, *colon, *end;
	size_t hl;

	if (strncmp(u, "https://", 8) == 0)
		return say(err, len, -EPROTONOSUPPORT, "%s: libuncored speaks "
			   "plain HTTP only (use the control socket, or a "
			   "listener without TLS)", u);
	end = h + strcspn(h, "/");
	if (*h == '[') {
		const char *rb = memchr(h, ']', (size_t)(end - h));

		colon = rb && rb + 1 < end && rb[1] == ':' ? rb + 1 : NULL;
		h++;
		hl = rb ? (size_t)(rb - h) : 0;
	} else {
		colon = memchr(h, ':', (size_t)(end - h));
		hl = colon ? (size_t)(colon - h) : 0;
	}
	if (!colon || !hl || hl >= sizeof(c->host) ||
	    (size_t)(end - colon - 1) >= sizeof(c->port) || end == colon + 1 ||
	    strspn(colon + 1, "0123456789") != (size_t)(end - colon - 1))
		return say(err, len, -EINVAL, "\"%s\": expected http://HOST:PORT",
			   u);
	memcpy(c->host, h, hl);
	c->host[hl] = '\0';
	memcpy(c->port, colon + 1, (size_t)(end - colon - 1));
	c->port[end - colon - 1] = '\0';
	return 0;
}

int lconn_open(struct lconn *c, const char *where, char *err, size_t errlen)
{
	const char *dbg = getenv("UNCORED_DEBUG");
	int rc;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->debug = dbg && dbg[0] && strcmp(dbg, "0") != 0;
	if (strlen(where) >= sizeof(c->where))
		return say(err, errlen, -ENAMETOOLONG, "\"%.40s...\" is too long",
			   where);
	snprintf(c->where, sizeof(c->where), "%s", where);
	if ((strncmp(where, "http://", 7) == 0 ||
	     strncmp(where, "https://", 8) == 0) &&
	    (rc = parse_url(c, where, err, errlen)) < 0)
		return rc;
	return reconnect(c, err, errlen);
}

void lconn_close(struct lconn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->buf);
	c->buf = NULL;
	c->cap = 0;
}

/* ---- a request ------------------------------------------------------------ */

/* Has the daemon closed the idle connection (or sent what nobody asked
 * for)?  Then it is closed here too. */
static void drop_if_closed(struct lconn *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };

	if (poll(&p, 1, 0) > 0) {
		close(c->fd);
		c->fd = -1;
	}
}

static int send_all(struct lconn *c, const char *p, size_t n, long long dl)
{
	while (n) {
		ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int r = wait_fd(c->fd, POLLOUT, dl);

			if (r <= 0)
				return r < 0 ? r : -ETIMEDOUT;
			continue;
		}
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads until r holds a whole answer: 0, -ECONNRESET with nothing read
 * (*got 0), or -errno. */
static int receive(struct lconn *c, struct lproto_resp *r, size_t *got,
		   long long dl)
{
	size_t n = 0, used;
	bool eof = false;
	int rc;

	for (;;) {
		ssize_t k;

		if (n + 4096 > c->cap) {
			size_t nc = (n + 4096) * 2;
			char *b = realloc(c->buf, nc);

			if (!b)
				return -ENOMEM;
			c->buf = b;
			c->cap = nc;
		}
		if ((rc = lproto_response(c->buf, n, eof, r, &used)) != 0)
			return rc < 0 ? rc : 0;
		if (eof)
			return -EPROTO;		/* not reached: eof decides */
		if ((rc = wait_fd(c->fd, POLLIN, dl)) <= 0)
			return rc < 0 ? rc : -ETIMEDOUT;
		k = recv(c->fd, c->buf + n, c->cap - n, 0);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k < 0)
			return n ? -errno : -ECONNRESET;
		if (k == 0 && n == 0)
			return -ECONNRESET;
		eof = k == 0;
		n += (size_t)k;
		*got = n;
	}
}

/* The request's text (malloc'd) and its length: for the instance the
 * connection knows, if it knows one. */
static char *format(const struct lconn *c, const char *method,
		    const char *path, const char *body, size_t *len)
{
	size_t bl = body ? strlen(body) : 0;
	char inst[LPROTO_INSTANCE_MAX + 24] = "";
	char *s = NULL;
	int n;

	if (c->instance[0])
		snprintf(inst, sizeof(inst), "Uncored-Instance: %s\r\n",
			 c->instance);
	n = body ? asprintf(&s, "%s %s HTTP/1.1\r\nHost: localhost\r\n"
			    "User-Agent: libuncored/" PACKAGE_VERSION "\r\n%s"
			    "Accept: application/json\r\nContent-Type: "
			    "application/json\r\nContent-Length: %zu\r\n\r\n%s",
			    method, path, inst, bl, body)
		 : asprintf(&s, "%s %s HTTP/1.1\r\nHost: localhost\r\n"
			    "User-Agent: libuncored/" PACKAGE_VERSION "\r\n%s"
			    "Accept: application/json\r\n%s\r\n", method, path,
			    inst,
			    strcmp(method, "GET") ? "Content-Length: 0\r\n" : "");
	if (n < 0)
		return NULL;
	*len = (size_t)n;
	return s;
}

/* One attempt on the open connection: 0, -ECONNRESET when the daemon
 * closed it before a byte of the answer (*fresh: nothing read), -errno. */
static int attempt(struct lconn *c, const char *req, size_t rl,
		   struct lproto_resp *r, bool *fresh)
{
	long long dl = mono_ms() + LCONN_TIMEOUT_MS;
	size_t got = 0;
	int rc = send_all(c, req, rl, dl);

	if (rc == -EPIPE)
		rc = -ECONNRESET;
	if (rc == 0)
		rc = receive(c, r, &got, dl);
	*fresh = got == 0;
	if (rc < 0 || r->close) {
		close(c->fd);
		c->fd = -1;
	}
	return rc;
}

/* Sleeps before busy retry i (0, 1, ...): LCONN_BUSY_FIRST_MS << i, give
 * or take a quarter. */
static void busy_backoff(unsigned i)
{
	static _Thread_local unsigned seed;
	long long ms = (long long)LCONN_BUSY_FIRST_MS << i;
	struct timespec ts;

	if (!seed)
		seed = (unsigned)getpid() ^ (unsigned)mono_ms() ^
		       (unsigned)(uintptr_t)&ts;
	ms += (long long)(rand_r(&seed) % (unsigned)(ms / 2 + 1)) - ms / 4;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Is r the daemon's "busy, not processed" answer? */
static bool busy_answer(const struct lproto_resp *r)
{
	return r->status == 503 && r->retry_after;
}

/*
 * Is r from the daemon instance the connection knows (the first answer
 * that names one sets it)?  0, or -ECONNRESET with the connection broken
 * for good and r's body dropped: an answer of another lifetime, or a
 * success without an instance, is never data.
 */
static int same_instance(struct lconn *c, struct lproto_resp *r, char *err,
			 size_t errlen)
{
	if (!c->instance[0] || strcmp(r->instance, c->instance) == 0) {
		snprintf(c->instance, sizeof(c->instance), "%s", r->instance);
		return 0;
	}
	/* an error libmicrohttpd answered itself carries none, and no
	 * data either: the caller gets the error */
	if (!r->instance[0] && (r->status < 200 || r->status > 299))
		return 0;
	free(r->body);
	r->body = NULL;
	r->len = 0;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->broken = true;
	if (!r->instance[0])
		return say(err, errlen, -ECONNRESET, "uncored on %s answered "
			   "without its instance id (instance %s made the "
			   "claims of this connection): another daemon; "
			   "uncored_connect() again", c->where, c->instance);
	return say(err, errlen, -ECONNRESET, "uncored on %s restarted "
		   "(instance %s, now %s): the claims made before are gone; "
		   "uncored_connect() again", c->where, c->instance,
		   r->instance);
}

/*
 * The daemon closed the connection without answering a request that
 * could not be sent again: a restart (-ECONNRESET, its claims are gone)
 * or not (-ECONNABORTED: the request may or may not have been carried
 * out).  A GET /healthz on a new connection tells: it names the instance
 * the connection knows, and its answer carries the daemon's
 * (same_instance()).  The new connection stays for the next request.
 */
static int no_answer(struct lconn *c, const char *method, const char *path,
		     char *err, size_t errlen)
{
	struct lproto_resp pr;
	char why[256];
	size_t rl;
	bool fresh;
	char *req;
	int rc = reconnect(c, why, sizeof(why));

	if (rc < 0)
		return say(err, errlen, -ENOTCONN, "uncored on %s closed the "
			   "connection without answering %s %s, and connecting "
			   "again failed: %s", c->where, method, path, why);
	if (!(req = format(c, "GET", "/healthz", NULL, &rl)))
		return say(err, errlen, -ENOMEM, "out of memory");
	memset(&pr, 0, sizeof(pr));
	rc = attempt(c, req, rl, &pr, &fresh);
	free(req);
	if (rc == 0)
		rc = same_instance(c, &pr, why, sizeof(why));
	free(pr.body);
	if (rc == -ECONNRESET && c->broken)
		return say(err, errlen, rc, "%s", why);
	return say(err, errlen, -ECONNABORTED, "uncored on %s closed the "
		   "connection without answering %s %s (it may or may not "
		   "have been carried out; the daemon's log says why it "
		   "closed it)", c->where, method, path);
}

int lconn_request(struct lconn *c, const char *method, const char *path,
		  const char *body, struct lproto_resp *r, char *err,
		  size_t errlen)
{
	unsigned busy = 0;
	size_t rl;
	char *req;
	bool fresh;
	int rc;

	memset(r, 0, sizeof(*r));
	if (c->broken)
		return say(err, errlen, -ENOTCONN, "the connection to uncored "
			   "on %s was lost (the daemon restarted): "
			   "uncored_connect() again", c->where);
	if (c->fd >= 0 && c->owner != getpid()) {
		/* a fork()ed child: the socket is the parent's too, and so
		 * would be the answers read from it; a connection of its own
		 * (closing the copy leaves the parent's open) */
		close(c->fd);
		c->fd = -1;
	}
	if (!(req = format(c, method, path, body, &rl)))
		return say(err, errlen, -ENOMEM, "out of memory");
	if (c->debug)
		fprintf(stderr, "libuncored: > %s %s%s%s\n", method, path,
			body ? " " : "", body ? body : "");
	for (int tries = 0; tries < 2; tries++) {
		if (c->fd >= 0)
			drop_if_closed(c);
		if (c->fd < 0 && (rc = reconnect(c, err, errlen)) < 0) {
			char why[200];

			/* not "no such claim": the daemon went away */
			snprintf(why, sizeof(why), "%s", err);
			if (rc != -ECONNRESET)
				rc = say(err, errlen, -ENOTCONN, "lost the "
					 "connection to uncored, and connecting "
					 "again failed: %s", why);
			break;
		}
		rc = attempt(c, req, rl, r, &fresh);
		/* busy: the daemon did not process it, so any request is
		 * sent again, a few times, further and further apart */
		if (rc == 0 && busy_answer(r) && busy < LCONN_BUSY_RETRIES &&
		    (!c->instance[0] || strcmp(r->instance, c->instance) == 0)) {
			free(r->body);
			memset(r, 0, sizeof(*r));
			busy_backoff(busy++);
			tries--;
			continue;
		}
		/* a connection the daemon closed as we sent: once more, for
		 * a request that may be repeated */
		if (!(rc == -ECONNRESET && fresh && strcmp(method, "GET") == 0))
			break;
	}
	free(req);
	if (rc == 0)
		rc = same_instance(c, r, err, errlen);
	if (rc == -ECONNRESET && !c->broken)
		rc = no_answer(c, method, path, err, errlen);
	else if (rc == -EPROTO)
		say(err, errlen, rc, "uncored on %s answered %s %s with "
		    "something else than HTTP: %s", c->where, method, path,
		    r->why);
	else if (rc == -ETIMEDOUT)
		say(err, errlen, rc, "uncored on %s did not answer %s %s within "
		    "%d s", c->where, method, path, LCONN_TIMEOUT_MS / 1000);
	else if (rc < 0 && rc != -ECONNRESET && c->fd >= 0)
		say(err, errlen, rc, "%s %s on %s: %s", method, path, c->where,
		    strerror(-rc));
	if (c->debug && rc < 0)
		fprintf(stderr, "libuncored: < %s\n", err);
	else if (c->debug)
		fprintf(stderr, "libuncored: < %d %.*s\n", r->status,
			(int)(r->len < 300 ? r->len : 300), r->body);
	return rc;
}
