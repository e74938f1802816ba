/*
 * lproto.h - what libuncored reads from the daemon: HTTP/1.1 responses
 * and the JSON of the claim routes.  No I/O and no state: the parser
 * takes the bytes received so far and says whether they hold a whole
 * response, so it is fed whatever a daemon (or something posing as one)
 * sends, and tests/fuzz/fuzz_response.c feeds it everything else.
 */
#ifndef UNCORED_LPROTO_H
#define UNCORED_LPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LPROTO_MAX_HEAD (16u << 10)	/* status line and headers */
#define LPROTO_MAX_BODY (16u << 20)	/* no route answers near this */

#define LPROTO_INSTANCE_MAX 40	/* an instance id, NUL included */

/* A response parsed by lproto_response(). */
struct lproto_resp {
	int status;		/* 100..599 */
	bool close;		/* "Connection: close" (or HTTP/1.0) */
	bool retry_after;	/* a Retry-After header: with 503, the
				   daemon was busy and did not process the
				   request */
	/* the Uncored-Instance header: the daemon lifetime that answered
	   ([0-9a-zA-Z]); "" without one */
	char instance[LPROTO_INSTANCE_MAX];
	char *body;		/* malloc'd, NUL-terminated (the caller frees) */
	size_t len;
	char why[128];		/* what was wrong (-EPROTO) */
};

/*
 * Parses buf[0..n) as one HTTP/1.1 response to a request that was not
 * HEAD: a status line, headers, and a body framed by Content-Length or
 * chunked transfer coding (or, with neither, the end of the connection:
 * eof says it came).  Returns 1 with *r filled and *used the bytes it
 * took, 0 when more bytes are needed, -EPROTO (why says what) or -ENOMEM.
 */
int lproto_response(const char *buf, size_t n, bool eof,
		    struct lproto_resp *r, size_t *used);

#define LPROTO_FAMILY_MAX 128	/* a derived family's name, NUL included */

/* One event of a reading (the read-now route's JSON). */
struct lproto_event {
	char *name;
	uint64_t enabled_ns, running_ns;
	uint64_t running_err_ns;	/* how far running_ns can be off (0: a
					   daemon that does not say) */
	uint64_t read_err_ns;	/* how far the reading's own instant can be
				   off (0: a daemon that does not say) */
	uint64_t *count;		/* per socket */
	/* per socket: how long the socket's boxes counted (the daemon's
	 * sockets[].time_running_ns; running_ns from a daemon that does
	 * not say); count x enabled / this is the socket's estimate */
	uint64_t *running;
	/* the daemon's "derived": the metric family the event gives as it
	 * is (doc/metrics.md's name without "_total") and the factor from
	 * a count to it; NULL (and 0): none, or a daemon that does not say */
	char *family;
	double scale;
};

/* One formula of a reading (the claim answers' "formulas"). */
struct lproto_formula {
	char *name, *unit;
	double window_s;	/* the counting window it is computed over */
	double *value;		/* per socket; NAN: no value */
};

struct lproto_counts {
	size_t nev;
	unsigned nsockets;
	struct lproto_event *ev;
	size_t nform;		/* 0: none (or a daemon without formulas) */
	struct lproto_formula *form;
};

/* How long e's boxes on socket s counted (struct lproto_event's
 * running); the event's running time where the socket's is not known. */
uint64_t lproto_running(const struct lproto_event *e, unsigned s);

/* The read-now answer body into c (lproto_counts_clear() frees it).
 * 0, -EPROTO (why: what is missing) or -ENOMEM. */
int lproto_counts(const char *body, size_t len, struct lproto_counts *c,
		  char *why, size_t whylen);
void lproto_counts_clear(struct lproto_counts *c);

/* The "message" of a {"error":{...}} body into msg; false if there is
 * none. */
bool lproto_error_message(const char *body, size_t len, char *msg,
			  size_t msglen);
/* The "id" of a created claim into id; false if there is none or it is
 * not a claim id ([a-z0-9_-], at most idlen - 1 bytes). */
bool lproto_claim_id(const char *body, size_t len, char *id, size_t idlen);

/*
 * What a claim route's answer (create, read, read now, renew, release)
 * says it is about: the claim's "id" into id (idlen bytes) and the names
 * of its "events", in order, one per line, into *events (malloc'd; the
 * caller frees it).  0, -EPROTO (why: what is missing) or -ENOMEM.
 */
int lproto_claim_of(const char *body, size_t len, char *id, size_t idlen,
		    char **events, char *why, size_t whylen);

/* The negative errno that stands for an HTTP error status. */
int lproto_errno(int status);

#endif
