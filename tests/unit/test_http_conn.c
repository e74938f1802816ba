/*
 * test_http_conn.c - the connection list's limits (src/http/http_conn.c)
 * over real loopback TCP connections, without MHD: this test accepts
 * them and tells the list what the server would.
 *
 * Covered: which connection a new one displaces at max_per_ip and
 * max_connections - the oldest incomplete request, never one whose whole
 * request head waits unread in the receive queue (CI saw a scrape closed
 * with an empty reply while 300 slow loopback clients reconnected: a
 * burst of accepts displaced it before the server read its request), the
 * head's end alone in the queue after its other lines were read, a head
 * longer than the look ahead, the new one refused when nothing can go,
 * TLS listeners (ciphertext: judged by age as before), and the counters.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http/http_conn.h"
#include "tests/tap.h"

static int lfd;
static struct sockaddr_in laddr;

/* One connection: the client's end and the server's accepted end. */
struct pair {
	int c, s;
	struct http_conn *k;
};

static void listen_lo(void)
{
	socklen_t len = sizeof(laddr);

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&laddr, 0, sizeof(laddr));
	laddr.sin_family = AF_INET;
	laddr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&laddr, sizeof(laddr)) ||
	    listen(lfd, 64) ||
	    getsockname(lfd, (struct sockaddr *)&laddr, &len)) {
		perror("listen");
		exit(1);
	}
}

/* Connects from source address src (127.0.0.x), sends what (may be ""),
 * accepts, and lets the list know (tls: as on a TLS listener). */
static void join(struct conn_list *cl, struct pair *p, const char *src,
		 const char *what, bool tls)
{
	struct sockaddr_in a = { .sin_family = AF_INET }, peer;
	socklen_t len = sizeof(peer);

	p->c = socket(AF_INET, SOCK_STREAM, 0);
	inet_pton(AF_INET, src, &a.sin_addr);
	if (p->c < 0 || bind(p->c, (struct sockaddr *)&a, sizeof(a)) ||
	    connect(p->c, (struct sockaddr *)&laddr, sizeof(laddr))) {
		perror("connect");
		exit(1);
	}
	if (*what && write(p->c, what, strlen(what)) != (ssize_t)strlen(what))
		exit(1);
	p->s = accept(lfd, (struct sockaddr *)&peer, &len);
	if (p->s < 0) {
		perror("accept");
		exit(1);
	}
	if (*what) {	/* on loopback it is queued once write() returned;
			   wait for it all the same */
		struct pollfd pf = { .fd = p->s, .events = POLLIN };

		poll(&pf, 1, 1000);
	}
	p->k = conn_open(cl, p->s, false, tls, (struct sockaddr *)&peer);
}

/* Did the server shut p down (the client reads EOF)? */
static bool shut(const struct pair *p)
{
	struct pollfd pf = { .fd = p->c, .events = POLLIN };
	char b;

	return poll(&pf, 1, 0) == 1 && recv(p->c, &b, 1, MSG_PEEK) == 0;
}

static void drop(struct conn_list *cl, struct pair *p, int n)
{
	for (int i = 0; i < n; i++) {
		if (p[i].k)
			conn_close(cl, p[i].k);
		close(p[i].c);
		close(p[i].s);
	}
}

static const char *whole = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
static const char *partial = "GET /metrics HTTP/1.1\r\nX-a: b\r\n";

static struct conn_limits lim = {
	.max_conn = 64, .max_per_ip = 2, .deadline_ns = 10000000000ull,
};

static void test_per_ip(void)
{
	struct http_stats st = { 0 };
	struct conn_list cl = { .lim = &lim, .stats = &st };
	struct pair p[4];

	/* the oldest has sent its whole request, unread: a partial one goes */
	join(&cl, &p[0], "127.0.0.1", whole, false);
	join(&cl, &p[1], "127.0.0.1", partial, false);
	join(&cl, &p[2], "127.0.0.1", partial, false);
	ok(!shut(&p[0]) && !p[0].k->closing,
	   "a whole request head unread in the queue is not displaced");
	ok(shut(&p[1]) && p[1].k->closing,
	   "... the oldest incomplete request is, in its place");
	ok(!shut(&p[2]), "... and the new one stays");
	is_u64(st.evicted[HTTP_EVICT_DISPLACED], 1, "one displaced");

	/* one more: p[0] is still passed over, p[2] goes */
	join(&cl, &p[3], "127.0.0.1", "", false);
	ok(!shut(&p[0]) && shut(&p[2]) && !shut(&p[3]),
	   "a connection with nothing sent yet displaces the next incomplete "
	   "one, never the queued whole head");
	drop(&cl, p, 4);
}

static void test_head_end(void)
{
	struct http_stats st = { 0 };
	struct conn_list cl = { .lim = &lim, .stats = &st };
	struct pair p[3];
	char b[256];

	/* the server read the head's lines; only its blank line is queued */
	join(&cl, &p[0], "127.0.0.1", partial, false);
	if (read(p[0].s, b, sizeof(b)) <= 0)
		exit(1);
	if (write(p[0].c, "\r\n", 2) != 2)
		exit(1);
	join(&cl, &p[1], "127.0.0.1", partial, false);
	join(&cl, &p[2], "127.0.0.1", partial, false);
	ok(!shut(&p[0]) && shut(&p[1]),
	   "the head's end alone in the queue (its lines already read) "
	   "counts as whole");
	drop(&cl, p, 3);

	/* the server read everything: an incomplete request again */
	join(&cl, &p[0], "127.0.0.1", partial, false);
	if (read(p[0].s, b, sizeof(b)) <= 0)
		exit(1);
	join(&cl, &p[1], "127.0.0.1", partial, false);
	join(&cl, &p[2], "127.0.0.1", partial, false);
	ok(shut(&p[0]) && !shut(&p[1]),
	   "an incomplete request whose lines were read is displaced first");
	drop(&cl, p, 3);
}

static void test_long_head(void)
{
	struct http_stats st = { 0 };
	struct conn_list cl = { .lim = &lim, .stats = &st };
	struct pair p[3];
	size_t n = 20000;
	char *big = malloc(n + 64);
	size_t h;

	/* a head longer than the look ahead is judged by its age */
	h = strlen(strcpy(big, "GET / HTTP/1.1\r\nX-long: "));
	memset(big + h, 'a', n);
	strcpy(big + h + n, "\r\n\r\n");
	join(&cl, &p[0], "127.0.0.1", big, false);
	join(&cl, &p[1], "127.0.0.1", partial, false);
	join(&cl, &p[2], "127.0.0.1", partial, false);
	ok(shut(&p[0]) && !shut(&p[1]),
	   "a head longer than the look ahead goes by its age");
	drop(&cl, p, 3);
	free(big);
}

static void test_refused(void)
{
	struct http_stats st = { 0 };
	struct conn_list cl = { .lim = &lim, .stats = &st };
	struct pair p[3];

	join(&cl, &p[0], "127.0.0.1", whole, false);
	join(&cl, &p[1], "127.0.0.1", whole, false);
	join(&cl, &p[2], "127.0.0.1", partial, false);
	ok(!shut(&p[0]) && !shut(&p[1]) && shut(&p[2]),
	   "with only whole heads queued, the new connection is refused");
	is_u64(st.evicted[HTTP_EVICT_REFUSED], 1, "... and counted refused");
	is_u64(st.evicted[HTTP_EVICT_DISPLACED], 0, "... none displaced");
	drop(&cl, p, 3);
}

static void test_tls(void)
{
	struct http_stats st = { 0 };
	struct conn_list cl = { .lim = &lim, .stats = &st };
	struct pair p[3];

	join(&cl, &p[0], "127.0.0.1", whole, true);
	join(&cl, &p[1], "127.0.0.1", partial, true);
	join(&cl, &p[2], "127.0.0.1", partial, true);
	ok(shut(&p[0]) && !shut(&p[1]),
	   "on a TLS listener (ciphertext queued) the oldest goes, as before");
	drop(&cl, p, 3);
}

static void test_max_conn(void)
{
	struct conn_limits l = { .max_conn = 3, .max_per_ip = 16,
				 .deadline_ns = 10000000000ull };
	struct http_stats st = { 0 };
	struct conn_list cl = { .lim = &l, .stats = &st };
	struct pair p[4];

	join(&cl, &p[0], "127.0.0.2", whole, false);
	join(&cl, &p[1], "127.0.0.3", whole, false);
	join(&cl, &p[2], "127.0.0.4", partial, false);
	join(&cl, &p[3], "127.0.0.5", partial, false);
	ok(!shut(&p[0]) && !shut(&p[1]) && shut(&p[2]) && !shut(&p[3]),
	   "max_connections: the incomplete one goes, across addresses, "
	   "the queued whole heads stay");
	drop(&cl, p, 4);
}

/*
 * The control socket (Unix, never TLS): a connection idle past the grace
 * whose client has just written its whole request (the library's next
 * call, queued unread) is passed over for an idle one.  Before, only TCP
 * connections were looked at: CI's control_budget.sh saw 4 library calls
 * of 64 readers end "closed the connection without answering POST
 * /api/v1/claims" (-ECONNABORTED) under ASan.
 */
static void test_control_queued(void)
{
	static const struct conn_limits clim = {
		.max_conn = 64, .max_per_ip = 64, .ctl_max = 2,
		.ctl_per_uid = 2, .deadline_ns = 10000000000ull,
	};
	struct http_stats st = { 0 };
	struct conn_list cl = { .lim = &clim, .stats = &st };
	int sv[3][2];
	struct http_conn *k[3];
	const char *post = "POST /api/v1/claims HTTP/1.1\r\nHost: x\r\n"
			   "Content-Length: 0\r\n\r\n";

	for (int i = 0; i < 3; i++)
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]) < 0)
			exit(1);
	k[0] = conn_open(&cl, sv[0][0], true, false, NULL);
	k[1] = conn_open(&cl, sv[1][0], true, false, NULL);
	if (!k[0] || !k[1])
		exit(1);
	/* both idle past the grace; the oldest's client has just sent */
	k[0]->start_ns -= 3 * HTTP_CONTROL_GRACE_MS * 1000000ull;
	k[1]->start_ns -= 2 * HTTP_CONTROL_GRACE_MS * 1000000ull;
	if (write(sv[0][1], post, strlen(post)) != (ssize_t)strlen(post))
		exit(1);
	k[2] = conn_open(&cl, sv[2][0], true, false, NULL);
	ok(k[2] && !k[2]->busy, "a third control connection over a budget of "
	   "2 finds room");
	ok(!k[0]->closing, "the oldest, its whole request queued unread, is "
	   "not closed");
	ok(k[1]->closing, "the idle one is, in its place");
	for (int i = 0; i < 3; i++) {
		if (k[i])
			conn_close(&cl, k[i]);
		close(sv[i][0]);
		close(sv[i][1]);
	}
}

int main(void)
{
	listen_lo();
	test_per_ip();
	test_head_end();
	test_long_head();
	test_refused();
	test_tls();
	test_max_conn();
	test_control_queued();
	close(lfd);
	return tap_done();
}
