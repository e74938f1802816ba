/*
 * claims.h - counter claims: groups of events other tools ask the daemon
 * to count, with leases, limits and owners (DESIGN.md section 5).
 *
 * The table is shared between the HTTP thread (create, read, renew,
 * release) and the sampler (expiry, scheduling, accounting) under one
 * mutex that neither holds for long.  A claim is a struct group like the
 * baseline; the sampler time-multiplexes all groups across ticks.
 */
#ifndef UNCORED_CLAIMS_H
#define UNCORED_CLAIMS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "prom.h"
#include "sampler.h"

#define CLAIM_MAX_EVENTS 8
#define CLAIM_ID_MAX 16
#define CLAIM_LABEL_MAX 64

struct claims_cfg {
	unsigned max_per_uid, max_total;
	unsigned default_ttl_s, max_ttl_s;
	bool allow_raw_events;
	unsigned interval_ms;	/* the sampling interval: a claim whose
				   counters could wrap twice within it is
				   refused */
};

struct claim {
	char id[CLAIM_ID_MAX];
	uid_t uid;
	pid_t pid;
	char label[CLAIM_LABEL_MAX];
	bool export;
	unsigned ttl_s;
	struct evspec ev[CLAIM_MAX_EVENTS];
	unsigned nev;
	uint64_t created_mono, expires_mono;	/* CLOCK_MONOTONIC ns */
	double created_real;			/* CLOCK_REALTIME s */
	struct group g;
	bool gone;		/* released or expired; freed when unused */
	unsigned refs;		/* under the table lock */
};

/* The result of an HTTP-side call: a status and a JSON body or error. */
struct claims_reply {
	int status;		/* HTTP status */
	struct json_object *body;	/* success body (caller frees) */
	char code[32];		/* error code */
	char msg[256];		/* error message */
};

struct claims *claims_new(const struct pmu *pmu, const struct claims_cfg *cfg);
void claims_free(struct claims *c);
/* New limits (SIGHUP); live claims are kept. */
void claims_set_cfg(struct claims *c, const struct claims_cfg *cfg);
/* The longest interval (ms) the live claims' counters allow, and the id
 * of the claim that sets it in id (CLAIM_ID_MAX bytes; "" if none). */
unsigned claims_max_interval_ms(struct claims *c, char *id);

/* POST /api/v1/claims from peer uid/pid with a JSON body. */
void claims_create(struct claims *c, uid_t uid, pid_t pid, const char *body,
		   size_t len, struct claims_reply *r);
/* GET /api/v1/claims: the caller's claims (root: all). */
void claims_list(struct claims *c, uid_t uid, struct claims_reply *r);
/* GET /api/v1/claims/{id} */
void claims_get(struct claims *c, const char *id, uid_t uid,
		struct claims_reply *r);
/* POST /api/v1/claims/{id}/renew with an optional {"ttl_s": N}. */
void claims_renew(struct claims *c, const char *id, uid_t uid,
		  const char *body, size_t len, struct claims_reply *r);
/* DELETE /api/v1/claims/{id}: the final counts in the body. */
void claims_release(struct claims *c, const char *id, uid_t uid,
		    struct claims_reply *r);

/* /metrics: uncore_claim_events_total for claims with "export": true,
 * and uncored_claims / uncored_claims_total. */
void claims_render(struct claims *c, struct prom *w);
/* The number of live claims (the uncored_claims gauge). */
unsigned claims_count(struct claims *c);
/* The id of the claim holding a counter in the next interval, copied
 * into buf; NULL if none. */
const char *claims_holder(struct claims *c, unsigned socket, int unit,
			  unsigned inst, unsigned idx, char *buf, size_t len);

/* ---- sampler side ---- */
void claims_lock(struct claims *c);
void claims_unlock(struct claims *c);
/* Under the lock: expires leases due by now and fills v with the live
 * claims (at most max).  Returns their number. */
unsigned claims_live(struct claims *c, uint64_t now_mono, struct claim **v,
		     unsigned max);

#endif
