/*
 * api_formulas.h - GET /api/v1/formulas: the formula catalog of the
 * running platform (doc/formulas.md), with each entry's availability on
 * this machine and backend.
 */
#ifndef UNCORED_API_FORMULAS_H
#define UNCORED_API_FORMULAS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/daemon.h"
#include "http/http.h"
#include "plat/formula.h"

/* The route's handler (ctx: struct daemon). */
void api_formulas(void *ctx, const struct http_req *req,
		  struct http_resp *resp);

/*
 * Can f count on d's machine and backend?  true, or false with why: the
 * catalog's reason, an event that does not resolve here, or a unit with
 * no box on any socket (a kernel PMU that is missing).
 */
bool api_formula_available(const struct daemon *d, const struct formula *f,
			   char *why, size_t whylen);

#endif
