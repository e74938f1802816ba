/*
 * api_claims.h - the claim routes' side of the claims table: request
 * bodies parsed from JSON, claims rendered as JSON, and the mapping of
 * the table's refusals to HTTP statuses and error codes (doc/design.md
 * sections 5 and 6).  The table itself (claims.h) knows neither.
 */
#ifndef UNCORED_API_CLAIMS_H
#define UNCORED_API_CLAIMS_H

#include <json-c/json.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/claims.h"

/* The result of a claim route: a status and a JSON body or an error. */
struct claims_reply {
	int status;		/* HTTP status */
	struct json_object *body;	/* success body (caller frees) */
	char code[32];		/* error code */
	char msg[512];		/* error message */
};

/* POST /api/v1/claims from peer uid/pid with a JSON body. */
void api_claims_create(struct claims *c, uid_t uid, pid_t pid,
		       const char *body, size_t len, struct claims_reply *r);
/* GET /api/v1/claims: the caller's claims (root: all). */
void api_claims_list(struct claims *c, uid_t uid, struct claims_reply *r);
/* GET /api/v1/claims/{id} */
void api_claims_get(struct claims *c, const char *id, uid_t uid,
		    struct claims_reply *r);
/* POST /api/v1/claims/{id}/renew with an optional {"ttl_s": N}. */
void api_claims_renew(struct claims *c, const char *id, uid_t uid,
		      const char *body, size_t len, struct claims_reply *r);
/* GET /api/v1/claims/{id}/now: the counts at this moment (uncored_read()):
 * per event its times in ns (a free-running counter runs whenever its
 * claim is enabled) and per socket the count, the scaled count and the
 * estimate. */
void api_claims_now(struct claims *c, const char *id, uid_t uid,
		    struct claims_reply *r);
/* DELETE /api/v1/claims/{id}: the final counts in the body. */
void api_claims_release(struct claims *c, const char *id, uid_t uid,
			struct claims_reply *r);

#endif
