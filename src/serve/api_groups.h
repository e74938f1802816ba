/*
 * api_groups.h - GET /api/v1/groups: the named groups (src/plat/group.h)
 * as this machine counts them: each group's sources resolved to the
 * platform's events, with their scale, and the figures over them.
 */
#ifndef UNCORED_API_GROUPS_H
#define UNCORED_API_GROUPS_H

#include "core/daemon.h"
#include "http/http.h"

/* The route's handler (ctx: struct daemon); ?name=MEM gives one group
 * (404 for a name no group has). */
void api_groups(void *ctx, const struct http_req *req,
		struct http_resp *resp);

#endif
