/*
 * http_conn.h - the HTTP server's open connections (http.c), for the
 * limits libmicrohttpd cannot express: a deadline for each request's
 * headers and body (MHD's timeout is an idle timeout that every byte
 * resets), a minimum rate at which an answer must drain (a reader that
 * takes a byte now and then keeps an idle timer alive forever), and
 * max_connections / max_per_ip that neither slow partial requests nor
 * readers that stopped reading can use up - a new connection over a
 * limit displaces the oldest connection whose request is incomplete or
 * idle, or whose answer made no progress for HTTP_STALL_S (a request whose
 * whole head waits unread in the socket's receive queue is not
 * incomplete: the server has not read it yet).  The control
 * socket's connections have a budget of their own, so no TCP client can
 * shut it out, with a share per peer uid and a grace before an idle one
 * is displaced (conn_open()); one over it is marked busy, to be answered
 * 503.  An evicted connection is shut down; MHD then sees EOF (or its
 * writes fail) and closes it.
 *
 * No MHD here: http.c keeps each struct http_conn as its connection's
 * socket context and tells this module what happens to it.  A list is
 * touched by its loop's thread alone.
 */
#ifndef UNCORED_HTTP_CONN_H
#define UNCORED_HTTP_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include "http_stats.h"
#include "base/log.h"

/* How many of an answer's bytes a control connection handed to MHD,
 * shared by the connection and the answer's reader, which may outlive
 * each other (freed by the last; only the control thread touches it). */
struct http_tally {
	unsigned refs;
	uint64_t bytes;
};

/* One open connection (a list of them: struct conn_list). */
struct http_conn {
	struct http_conn *prev, *next;	/* oldest first */
	int fd;
	uint64_t start_ns;	/* accept, or the end of the last response */
	bool waiting;		/* the request is not complete yet */
	bool idle;		/* ... nor begun: keep-alive after an answer */
	bool checking;		/* complete, suspended for a bcrypt check: no
				   deadline, never displaced (the queue
				   bounds how many) */
	bool closing;		/* shut down by us */
	bool control;		/* on a control socket (its own budget) */
	bool busy;		/* over the control budget: its request is
				   answered 503 "busy" and the connection
				   closed; counts in no budget */
	bool busy_own;		/* ... because of its uid's share */
	bool has_uid;
	uid_t uid;		/* control socket: the peer (SO_PEERCRED) */
	struct http_tally *tally;	/* control socket: bytes of answers
					   handed to MHD */
	bool tcp;		/* progress is bytes the peer acknowledged */
	bool plain;		/* not TLS (plain TCP, the control socket): the
				   receive queue is HTTP */
	bool passed;		/* conn_victim()'s own: its head is queued */
	bool has_ip;
	struct sockaddr_storage ip;	/* address only, port zeroed */
	char peer[INET6_ADDRSTRLEN + 2];	/* for logs */
	/* while an answer is being sent (!waiting): */
	uint64_t progress_ns;	/* when it last made progress */
	uint64_t sampled_ns;	/* when progress was last looked at */
	uint64_t drained;	/* TCP: bytes acknowledged; Unix: bytes
				   handed to MHD less the send queue */
	uint64_t mark_ns, mark_drained;	/* TCP: this write-deadline window */
};

/* The limits, set before the threads start and only read after. */
struct conn_limits {
	unsigned max_conn, max_per_ip;	/* TCP listeners together; per IP */
	unsigned ctl_max, ctl_per_uid;	/* the control budget; per uid */
	uint64_t deadline_ns;		/* to complete a request; the write
					   deadline's window */
};

/* One loop's connections, with its eviction counts and log limits. */
struct conn_list {
	const struct conn_limits *lim;
	struct http_stats *stats;	/* evicted[] and busy counted here */
	struct http_conn *head, *tail;	/* oldest first */
	struct log_limit evict_log[HTTP_EVICT_N];
};

/* CLOCK_MONOTONIC in ns (the clock every deadline here is on). */
uint64_t conn_now_ns(void);

/*
 * A new connection on fd joins cl (control: on a control socket; tls: on
 * a TLS listener; peer: a TCP peer's address, or NULL) and the limits are kept: a TCP one may
 * displace an older one or be shut down itself, a control one may
 * displace an idle one or be marked busy.  Returns the connection (the
 * list owns it until conn_close()), or NULL without memory: then it is
 * not accounted, and MHD's own limits still hold.
 */
struct http_conn *conn_open(struct conn_list *cl, int fd, bool control,
			    bool tls, const struct sockaddr *peer);
/* MHD closed k: it leaves cl and is freed (its tally when the last
 * answer reading it is done). */
void conn_close(struct conn_list *cl, struct http_conn *k);

/* A request begins on k (it is no longer an idle keep-alive). */
void conn_begun(struct http_conn *k);
/* The request on k is complete (answered): its deadline no longer runs;
 * its answer's write deadline starts at its first look. */
void conn_answered(struct http_conn *k);
/* k's answer is done: keep-alive, the next request's deadline starts. */
void conn_done(struct http_conn *k);
/* k waits for a bcrypt check, or no longer: the client has sent its
 * request, so its deadline no longer runs (the check may wait for a
 * worker on a loaded machine), and it is not displaced. */
void conn_checking(struct http_conn *k, bool on);
/* Every function above accepts NULL for k (an unaccounted connection). */

/*
 * Shuts down the connections whose request missed its deadline (a busy
 * one: HTTP_CONTROL_GRACE_MS), and those whose answer drains too slowly;
 * returns the ms until the next deadline or look, or -1 if there is none.
 */
int conn_reap(struct conn_list *cl);

/* Adds cl's connections that are reading, writing and stalled to *p. */
void conn_count(const struct conn_list *cl, struct http_stats *p);

/* Drops a reference to t (NULL: none); the last frees it. */
void conn_tally_put(struct http_tally *t);

#endif
