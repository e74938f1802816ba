/*
 * lconn.h - libuncored's connection to the daemon: a Unix control socket
 * (or a TCP listener) that stays open between requests, HTTP/1.1 written
 * by hand and read with lproto.h.
 *
 * Why not libcurl (which uncorectl used): a read is a few hundred bytes
 * each way on a socket that stays open, and libcurl's per-request
 * machinery, its process-wide initialisation (curl_global_init(), not
 * thread-safe in the versions Debian 12 ships) and its dependencies cost
 * more than the request; the response parser here is small enough to
 * fuzz in CI.
 *
 * A daemon that closed an idle connection (its timeout_s) is reconnected
 * to without the caller noticing, and one that answered "busy" (503 with
 * Retry-After: over its control budget, the request not carried out) is
 * asked again, LCONN_BUSY_RETRIES times; one that restarted is not: its
 * claims are gone, so the connection fails from then on (-ECONNRESET
 * once, then -ENOTCONN).  A restart is told by the daemon's instance id
 * (the Uncored-Instance header of every answer), not by the pid behind
 * the socket, which under socket activation is systemd's: the first
 * answer's is kept, every request names it (a daemon of another lifetime
 * refuses the request before acting on it), and every success must
 * carry it.  -ECONNRESET means only a restart: a request the daemon
 * closed the connection on without an answer, that cannot be sent again,
 * fails with -ECONNABORTED when the daemon behind the socket is still the
 * same instance (a GET /healthz on the new connection tells).
 *
 * After fork() the child never reads the parent's connection: its first
 * request closes its copy of the socket and connects anew (to the same
 * daemon instance, or it fails as above).  Not thread-safe: libuncored
 * locks around it.
 */
#ifndef UNCORED_LCONN_H
#define UNCORED_LCONN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/lproto.h"

#define LCONN_TIMEOUT_MS 10000
/* A busy answer (503 with Retry-After: the daemon's control socket was
 * over its budget and did not process the request) is retried this many
 * times, after 5, 10, 20 ... ms (+/- a quarter, so that clients refused
 * together do not come back together): about 1.3 s in all. */
#define LCONN_BUSY_RETRIES 8
#define LCONN_BUSY_FIRST_MS 5

struct lconn {
	char where[256];	/* socket path or http://HOST:PORT, as given */
	char host[200], port[8];	/* TCP, or host "" */
	int fd;
	pid_t owner;		/* the process that opened fd */
	char instance[LPROTO_INSTANCE_MAX];	/* the daemon's; "" until the
						   first answer names it */
	bool broken;		/* it restarted: no more requests */
	bool debug;		/* UNCORED_DEBUG: requests to stderr */
	char *buf;		/* received bytes */
	size_t cap;
};

/* Connects to where (a socket path or "http://HOST:PORT").  0, or -errno
 * with the reason in err. */
int lconn_open(struct lconn *c, const char *where, char *err, size_t errlen);
void lconn_close(struct lconn *c);
/*
 * Sends one request (body: JSON for POST, or NULL) and reads its answer
 * into r (r->body is the caller's to free).  0, or -errno with the reason
 * in err (no answer: r->body NULL).
 */
int lconn_request(struct lconn *c, const char *method, const char *path,
		  const char *body, struct lproto_resp *r, char *err,
		  size_t errlen);

#endif
