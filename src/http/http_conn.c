/*
 * http_conn.c - the HTTP server's open connections and the limits kept
 * on them: deadlines, write rates, the TCP connection limits and the
 * control socket's budget (see http_conn.h).
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <linux/sockios.h>
#include <linux/tcp.h>

#include "base/clock.h"
#include "http_conn.h"

/* An answer in flight is looked at this often (conn_reap()). */
#define HTTP_SAMPLE_NS	(250ull * 1000000)
/* How much of a receive queue conn_head_queued() looks at: a request
 * head longer than this is judged by its age alone. */
#define HTTP_PEEK_BYTES	8192

uint64_t conn_now_ns(void)
{
	return clock_mono(&clock_system);
}

static bool same_ip(const struct http_conn *a, const struct http_conn *b)
{
	return a->has_ip && b->has_ip && memcmp(&a->ip, &b->ip, sizeof(a->ip)) == 0;
}

/* Shuts k down: MHD sees EOF, or its next write fails, and closes it. */
static void conn_shut(struct conn_list *cl, struct http_conn *k,
		      enum http_evict why)
{
	k->closing = true;
	cl->stats->evicted[why]++;
	shutdown(k->fd, SHUT_RDWR);
}

void conn_tally_put(struct http_tally *t)
{
	if (t && --t->refs == 0)
		free(t);
}
/*
 * Looks at how far the answer on k has drained: for TCP the bytes the
 * peer acknowledged (TCP_INFO), for a Unix socket the bytes of answers
 * handed to MHD less those still in the send queue (SIOCOUTQ: the peer
 * has not read them).  MHD's own buffer (a block of a streamed answer)
 * makes the latter up to HTTP_STREAM_BLOCK early.  Marks progress.
 */
static void conn_sample(struct http_conn *k, uint64_t now)
{
	uint64_t v;
	bool moved;

	k->sampled_ns = now;
	if (k->tcp) {
		struct tcp_info ti;
		socklen_t len = sizeof(ti);

		if (getsockopt(k->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
		    len < offsetof(struct tcp_info, tcpi_bytes_acked) +
			  sizeof(ti.tcpi_bytes_acked)) {
			k->progress_ns = now;	/* cannot tell: not stalled */
			return;
		}
		v = ti.tcpi_bytes_acked;
		moved = v != k->drained;
	} else {
		uint64_t out = k->tally ? k->tally->bytes : 0;
		int q = 0;

		if (ioctl(k->fd, SIOCOUTQ, &q) < 0) {
			k->progress_ns = now;	/* cannot tell: not stalled */
			return;
		}
		v = q > 0 && (uint64_t)q < out ? out - (uint64_t)q
		    : q > 0 ? 0 : out;
		moved = q == 0 || v != k->drained;
	}
	/* the first look at an answer starts its write-deadline window
	   (nothing is known of its progress before: not stalled) */
	if (!k->mark_ns) {
		k->mark_ns = now;
		k->mark_drained = v;
		moved = true;
	}
	if (moved)
		k->progress_ns = now;
	k->drained = v;
}

/* Has the answer on k made no progress for HTTP_STALL_S? */
static bool conn_stalled(const struct http_conn *k, uint64_t now)
{
	return !k->waiting &&
	       now - k->progress_ns >= HTTP_STALL_S * 1000000000ull;
}

/*
 * May k be closed to let a new connection in?  An incomplete request or
 * an idle keep-alive (on the control socket only once it has waited
 * HTTP_CONTROL_GRACE_MS: a library client between two reads is not
 * idle), or an answer without progress for HTTP_STALL_S.  *t: since
 * when (the oldest goes first).
 */
static bool conn_displaceable(const struct http_conn *k, uint64_t now,
			      uint64_t *t)
{
	if (k->closing || k->checking || k->busy)
		return false;
	if (k->waiting) {
		*t = k->start_ns;
		return !k->control ||
		       now - k->start_ns >= HTTP_CONTROL_GRACE_MS * 1000000ull;
	}
	*t = k->progress_ns;
	return conn_stalled(k, now);
}

/* How long k has waited (or made no progress), for logs. */
static const char *conn_why(const struct http_conn *k)
{
	return !k->waiting ? "whose answer made no progress for"
	       : k->idle ? "idle after its answer for"
	       : "whose request was incomplete after";
}
/*
 * Has k's peer sent the end of a request head that the server has not
 * read yet?  It waits in the socket's receive queue until MHD's next
 * pass reads it (a burst of accepts at a limit comes first): looked at
 * with MSG_PEEK, up to HTTP_PEEK_BYTES, a blank line in it, or at its
 * start (the head's other lines already read).  Such a request is not
 * slow, whatever its age: a slow client trickles lines and never ends
 * its head.  Plain HTTP only (TCP without TLS, and the control socket):
 * on a TLS listener the queue is ciphertext.
 */
static bool conn_head_queued(const struct http_conn *k)
{
	char b[HTTP_PEEK_BYTES];
	ssize_t n;

	if (!k->plain || !k->waiting)
		return false;
	n = recv(k->fd, b, sizeof(b), MSG_PEEK | MSG_DONTWAIT);
	if (n <= 0)
		return false;
	return b[0] == '\n' || (n >= 2 && b[0] == '\r' && b[1] == '\n') ||
	       memmem(b, (size_t)n, "\r\n\r\n", 4) ||
	       memmem(b, (size_t)n, "\n\n", 2);
}

/*
 * The connection of cl that a new one, n, displaces at a limit (from n's
 * IP when by_ip): the displaceable one (conn_displaceable()) that has
 * waited longest, passing over those whose request head is whole in the
 * receive queue (conn_head_queued(), looked at only for the candidate of
 * the moment: one or two system calls, not one per connection); NULL if
 * there is none.  *vt: since when it waited.
 */
static struct http_conn *conn_victim(struct conn_list *cl,
				     const struct http_conn *n, bool by_ip,
				     uint64_t now, uint64_t *vt)
{
	for (struct http_conn *k = cl->head; k; k = k->next)
		k->passed = false;
	for (;;) {
		struct http_conn *victim = NULL;

		for (struct http_conn *k = cl->head; k; k = k->next) {
			uint64_t t;

			if (k == n || k->closing || k->passed ||
			    (by_ip && !same_ip(k, n)) ||
			    !conn_displaceable(k, now, &t))
				continue;
			if (!victim || t < *vt) {
				victim = k;
				*vt = t;
			}
		}
		if (!victim || !conn_head_queued(victim))
			return victim;
		victim->passed = true;
	}
}

/*
 * Keeps a TCP limit after n joined: if more than max TCP connections
 * (from n's IP when by_ip) are open, shuts down the one that has waited
 * longest with an incomplete request, an idle keep-alive or an answer
 * that made no progress (conn_victim()); if there is none, n.
 */
static void conn_limit(struct conn_list *cl, struct http_conn *n,
		       unsigned max, bool by_ip)
{
	struct http_conn *victim;
	uint64_t now = conn_now_ns(), vt = 0;
	unsigned count = 0;

	for (struct http_conn *k = cl->head; k; k = k->next)
		count += !k->closing && (!by_ip || same_ip(k, n));
	if (count <= max)
		return;
	victim = conn_victim(cl, n, by_ip, now, &vt);
	conn_shut(cl, victim ? victim : n, victim ? HTTP_EVICT_DISPLACED
						   : HTTP_EVICT_REFUSED);
	if (!victim)
		log_warnx_limited(&cl->evict_log[HTTP_EVICT_REFUSED], "http: %u "
				  "connections%s%s, the limit, none of them "
				  "idle, incomplete or stalled: closed the new "
				  "one from %s", count, by_ip ? " from " : "",
				  by_ip ? n->peer : "", n->peer);
	else
		log_warnx_limited(&cl->evict_log[HTTP_EVICT_DISPLACED], "http: "
				  "%u connections%s%s, the limit: closed the "
				  "one from %s %s %.1f s", count,
				  by_ip ? " from " : "", by_ip ? n->peer : "",
				  victim->peer, conn_why(victim),
				  (double)(now - vt) / 1e9);
}

static bool same_uid(const struct http_conn *a, const struct http_conn *b)
{
	return a->has_uid == b->has_uid && (!a->has_uid || a->uid == b->uid);
}

/*
 * Admits n to the control socket's budget: at most ctl_max connections
 * in all and ctl_per_uid of one uid.  Over its uid's share, n displaces
 * that uid's oldest displaceable connection (conn_displaceable()); over
 * the whole budget, anyone's; one whose next request waits unread in its
 * queue (conn_head_queued()) is passed over.  With none to displace, n is
 * marked busy:
 * its request will be answered 503 with Retry-After, unprocessed, and
 * the connection closed (a client sees an answer it can act on, never a
 * reset).  Busy connections count in no budget: they are answered as soon
 * as their request is read, and one that sends none is closed after
 * HTTP_CONTROL_GRACE_MS; how many may wait at once is MHD's limit on the
 * listener (http.c, start_mhd()), past which new ones wait to be accepted.
 */
static void control_admit(struct conn_list *cl, struct http_conn *n)
{
	const struct conn_limits *lim = cl->lim;
	struct http_conn *victim, *own;
	uint64_t now = conn_now_ns(), vt, ot;
	unsigned total, mine;

	for (struct http_conn *k = cl->head; k; k = k->next)
		k->passed = false;
again:
	victim = own = NULL;
	vt = ot = 0;
	total = mine = 0;
	for (struct http_conn *k = cl->head; k; k = k->next) {
		bool same = same_uid(k, n);
		uint64_t t;

		if (k->closing || k->busy)
			continue;
		total++;
		mine += same;
		if (k == n || k->passed || !conn_displaceable(k, now, &t))
			continue;
		if (!victim || t < vt) {
			victim = k;
			vt = t;
		}
		if (same && (!own || t < ot)) {
			own = k;
			ot = t;
		}
	}
	if (mine > lim->ctl_per_uid) {
		victim = own;
		vt = ot;
	} else if (total <= lim->ctl_max) {
		return;
	}
	/* a client that has just written its next request (queued unread)
	   is not idle: passed over, as on a TCP listener (conn_victim()) */
	if (victim && conn_head_queued(victim)) {
		victim->passed = true;
		goto again;
	}
	if (victim) {
		conn_shut(cl, victim, HTTP_EVICT_DISPLACED);
		log_warnx_limited(&cl->evict_log[HTTP_EVICT_DISPLACED], "http: "
				  "%u control connections (%u of uid %u), the "
				  "limit: closed one of uid %u %s %.1f s",
				  total, mine, (unsigned)n->uid,
				  (unsigned)victim->uid, conn_why(victim),
				  (double)(now - vt) / 1e9);
		return;
	}
	n->busy = true;
	n->busy_own = mine > lim->ctl_per_uid;
	cl->stats->busy++;
}

/* Records k's peer address (TCP) for the per-IP limit and the logs. */
static void conn_peer(struct http_conn *k, const struct sockaddr *sa)
{
	if (sa && sa->sa_family == AF_INET) {
		struct sockaddr_in *v4 = (struct sockaddr_in *)&k->ip;

		v4->sin_family = AF_INET;
		v4->sin_addr = ((const struct sockaddr_in *)sa)->sin_addr;
		inet_ntop(AF_INET, &v4->sin_addr, k->peer, sizeof(k->peer));
		k->has_ip = true;
	} else if (sa && sa->sa_family == AF_INET6) {
		struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&k->ip;

		v6->sin6_family = AF_INET6;
		v6->sin6_addr = ((const struct sockaddr_in6 *)sa)->sin6_addr;
		inet_ntop(AF_INET6, &v6->sin6_addr, k->peer, sizeof(k->peer));
		k->has_ip = true;
	}
}

/* A control connection's peer (SO_PEERCRED) and its tally. */
static void conn_control(struct http_conn *k)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(k->fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) == 0 &&
	    len == sizeof(uc)) {
		k->has_uid = true;
		k->uid = uc.uid;
		snprintf(k->peer, sizeof(k->peer), "uid %u",
			 (unsigned)uc.uid);
	}
	k->tally = calloc(1, sizeof(*k->tally));
	if (k->tally)
		k->tally->refs = 1;
}

struct http_conn *conn_open(struct conn_list *cl, int fd, bool control,
			    bool tls, const struct sockaddr *peer)
{
	struct http_conn *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->fd = fd;
	k->start_ns = conn_now_ns();
	k->waiting = true;
	k->control = control;
	snprintf(k->peer, sizeof(k->peer), "the control socket");
	if (k->control)
		conn_control(k);
	if (!control)
		conn_peer(k, peer);
	k->tcp = k->has_ip;
	/* the control socket (Unix) is never TLS: its queue is the
	   request's text, as on a plain TCP listener */
	k->plain = !k->tcp || !tls;
	k->prev = cl->tail;
	*(cl->tail ? &cl->tail->next : &cl->head) = k;
	cl->tail = k;
	if (k->control) {
		control_admit(cl, k);
		return k;
	}
	conn_limit(cl, k, cl->lim->max_conn, false);
	if (k->has_ip && !k->closing)
		conn_limit(cl, k, cl->lim->max_per_ip, true);
	return k;
}

void conn_close(struct conn_list *cl, struct http_conn *k)
{
	*(k->prev ? &k->prev->next : &cl->head) = k->next;
	*(k->next ? &k->next->prev : &cl->tail) = k->prev;
	conn_tally_put(k->tally);
	free(k);
}

void conn_begun(struct http_conn *k)
{
	if (k)
		k->idle = false;
}

void conn_answered(struct http_conn *k)
{
	uint64_t now = conn_now_ns();

	if (!k)
		return;
	k->waiting = false;
	/* looked at HTTP_SAMPLE_NS from now, if it is still being sent:
	   the answers that go at once cost no system call */
	k->progress_ns = k->sampled_ns = now;
	k->mark_ns = 0;
}

void conn_done(struct http_conn *k)
{
	if (k) {
		k->waiting = true;
		k->idle = true;
		k->start_ns = conn_now_ns();
	}
}

void conn_checking(struct http_conn *k, bool on)
{
	if (k) {
		k->checking = on;
		if (!on)
			k->start_ns = conn_now_ns();	/* a deadline anew */
	}
}

/*
 * The write deadline of an answer in flight on k (sampled now): over each
 * window of HTTP_DRAIN_WINDOW_S (timeout_s if that is shorter) it must
 * drain HTTP_MIN_DRAIN_BPS on average (HTTP_CONTROL_MIN_DRAIN_BPS on the
 * control socket, whose readers are local), or it is closed.  The window
 * is short on purpose: libmicrohttpd's idle timer counts from its last
 * write, and with a large send buffer a slow reader lets it write often
 * enough, or not at all for timeout_s - either way not a rate.
 */
static void conn_write_deadline(struct conn_list *cl, struct http_conn *k,
				uint64_t now)
{
	uint64_t win = HTTP_DRAIN_WINDOW_S * 1000000000ull;
	uint64_t got = k->drained - k->mark_drained, want;
	unsigned bps = k->tcp ? HTTP_MIN_DRAIN_BPS : HTTP_CONTROL_MIN_DRAIN_BPS;

	if (win > cl->lim->deadline_ns)
		win = cl->lim->deadline_ns;
	want = bps * win / 1000000000ull;
	if ((!k->tcp && !k->tally) || now - k->mark_ns < win)
		return;
	if (k->drained >= k->mark_drained && got >= want) {
		k->mark_ns = now;
		k->mark_drained = k->drained;
		return;
	}
	if (k->drained < k->mark_drained)
		got = 0;
	conn_shut(cl, k, HTTP_EVICT_WRITE_DEADLINE);
	log_warnx_limited(&cl->evict_log[HTTP_EVICT_WRITE_DEADLINE], "http: "
			  "closed the connection from %s: its answer drained "
			  "%llu bytes in %.1f s, under the minimum of %u bytes "
			  "a second", k->peer, (unsigned long long)got,
			  (double)(now - k->mark_ns) / 1e9, bps);
}

/*
 * Shuts down the connections whose request missed its deadline (a busy
 * one: HTTP_CONTROL_GRACE_MS), and those whose answer drains too slowly
 * (looked at every HTTP_SAMPLE_NS); returns the ms until the next
 * deadline or look, or -1 if there is none.
 */
int conn_reap(struct conn_list *cl)
{
	uint64_t now = conn_now_ns(), next = UINT64_MAX;

	for (struct http_conn *k = cl->head; k; k = k->next) {
		uint64_t dl = k->busy ? HTTP_CONTROL_GRACE_MS * 1000000ull
				      : cl->lim->deadline_ns;
		uint64_t due = k->waiting ? k->start_ns + dl
					  : k->sampled_ns + HTTP_SAMPLE_NS;

		if (k->closing || k->checking)
			continue;
		if (due > now) {
			next = due < next ? due : next;
			continue;
		}
		if (!k->waiting) {
			conn_sample(k, now);
			conn_write_deadline(cl, k, now);
			next = now + HTTP_SAMPLE_NS < next ? now + HTTP_SAMPLE_NS
							   : next;
			continue;
		}
		conn_shut(cl, k, HTTP_EVICT_REQUEST_DEADLINE);
		log_warnx_limited(&cl->evict_log[HTTP_EVICT_REQUEST_DEADLINE],
				  "http: closed the connection from %s: %s "
				  "within %.1f s", k->peer, k->idle
				  ? "no new request after its answer"
				  : "its request was not complete",
				  (double)dl / 1e9);
	}
	if (next == UINT64_MAX)
		return -1;
	return (int)((next - now) / 1000000 + 1);
}

void conn_count(const struct conn_list *cl, struct http_stats *p)
{
	uint64_t now = conn_now_ns();

	for (const struct http_conn *k = cl->head; k; k = k->next) {
		if (k->closing)
			continue;
		if (k->waiting)
			p->reading[k->control]++;
		else if (conn_stalled(k, now))
			p->stalled[k->control]++;
		else
			p->writing[k->control]++;
	}
}
