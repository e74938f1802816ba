/*
 * api.h - the daemon's read-only HTTP routes (/, /metrics, /healthz and
 * the JSON API under /api/v1).  Handlers take the struct daemon as
 * their context.
 */
#ifndef UNCORED_API_H
#define UNCORED_API_H

#include <stddef.h>

#include "core/daemon.h"
#include "http/http.h"

extern const struct http_route api_routes[];
extern const size_t api_nroutes;

#endif
