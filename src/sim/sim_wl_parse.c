/*
 * sim_wl_parse.c - the workload parser's common ground (sim_wl_parse.h):
 * the parse context's JSON path and first error, and the parsers of
 * numbers, register values, hex digits and "sN:" socket prefixes that
 * the top-level keys, the rate keys, the faults and the simulated
 * kernel's section all use.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_wl_parse.h"
#include "plat/plat_mod.h"

/* ---- parse context and messages -------------------------------------- */

__attribute__((format(printf, 2, 3)))
int wlp_fail(struct pctx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->err && c->errlen)
		snprintf(c->err, c->errlen, "%s: %s: %s", c->name, c->path, msg);
	return -EINVAL;
}

/* A message for a position in the text: "NAME:LINE:COL: msg". */
__attribute__((format(printf, 5, 6)))
int wlp_fail_at(struct pctx *c, const char *text, size_t len, size_t off,
		   const char *fmt, ...)
{
	unsigned line = 1, col = 1;
	char msg[512];
	va_list ap;

	if (off > len)
		off = len;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->err && c->errlen)
		snprintf(c->err, c->errlen, "%s:%u:%u: %s", c->name, line, col,
			 msg);
	return -EINVAL;
}

int wlp_fail_nomem(struct pctx *c)
{
	if (c->err && c->errlen)
		snprintf(c->err, c->errlen, "%s: out of memory", c->name);
	return -ENOMEM;
}

/* Appends s to the path, truncating politely if the path is full. */
void wlp_path_add(struct pctx *c, const char *s)
{
	size_t n = strlen(s), room = sizeof(c->path) - c->plen - 1;

	if (n > room)
		n = room;
	memcpy(c->path + c->plen, s, n);
	c->plen += n;
	c->path[c->plen] = '\0';
}

static bool is_ident(const char *s)
{
	if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* Enters object member key: ".key", or ["key"] when key is not a plain
 * identifier.  Returns the previous path length for wlp_path_pop(). */
size_t wlp_path_key(struct pctx *c, const char *key)
{
	size_t old = c->plen;
	char buf[200];
	size_t n = 0;

	if (is_ident(key) && strlen(key) < 100) {
		wlp_path_add(c, ".");
		wlp_path_add(c, key);
		return old;
	}
	buf[n++] = '[';
	buf[n++] = '"';
	for (const unsigned char *p = (const unsigned char *)key;
	     *p && n < sizeof(buf) - 12; p++) {
		if (p - (const unsigned char *)key >= 120) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "...");
			break;
		}
		if (*p == '"' || *p == '\\') {
			buf[n++] = '\\';
			buf[n++] = (char)*p;
		} else if (*p < 0x20 || *p == 0x7f) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      "\\u%04x", *p);
		} else {
			buf[n++] = (char)*p;
		}
	}
	buf[n++] = '"';
	buf[n++] = ']';
	buf[n] = '\0';
	wlp_path_add(c, buf);
	return old;
}

size_t wlp_path_idx(struct pctx *c, size_t i)
{
	size_t old = c->plen;
	char buf[32];

	snprintf(buf, sizeof(buf), "[%zu]", i);
	wlp_path_add(c, buf);
	return old;
}

void wlp_path_pop(struct pctx *c, size_t old)
{
	c->plen = old;
	c->path[old] = '\0';
}

const char *wlp_type_name(const json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a fractional number";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "something else";
}

/* ---- small number parsers -------------------------------------------- */

/* "0x" followed by 1..16 hex digits, nothing else.  0, -1 (syntax) or
 * -2 (above max). */
int wlp_parse_hex(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	unsigned nd = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	for (s += 2; *s; s++, nd++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -1;
		if (x >> 60)
			return -2;
		x = x << 4 | d;
	}
	if (nd == 0)
		return -1;
	if (x > max)
		return -2;
	*v = x;
	return 0;
}

/* Plain hex digits (lspci style, no 0x), 1..maxd digits. */
int wlp_parse_xdigits(const char *s, size_t n, unsigned maxd, unsigned *v)
{
	unsigned x = 0;

	if (n == 0 || n > maxd)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		unsigned d;

		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			d = (unsigned)(ch - 'A' + 10);
		else
			return -1;
		x = x << 4 | d;
	}
	*v = x;
	return 0;
}

/* 1..4 decimal digits. */
int wlp_parse_dec(const char *s, size_t n, unsigned *v)
{
	unsigned x = 0;

	if (n == 0 || n > 4)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (unsigned)(s[i] - '0');
	}
	*v = x;
	return 0;
}

void wlp_unit_list(const struct platform *p, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; p->units[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      p->units[i]->name);
}

void wlp_freerun_list(const struct unit_type *u, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < u->nfreerun && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      u->freerun[i].name);
}

/* ---- number values --------------------------------------------------- */

/* A finite number in [lo, hi] (either JSON integer or fraction). */
int wlp_get_number(struct pctx *c, json_object *o, double lo, bool lo_open,
		      double hi, const char *what, double *v)
{
	double x;

	if (!json_object_is_type(o, json_type_int) &&
	    !json_object_is_type(o, json_type_double))
		return wlp_fail(c, "must be a number (%s), not %s", what,
			    wlp_type_name(o));
	x = json_object_get_double(o);
	if (!isfinite(x))
		return wlp_fail(c, "must be a finite number (%s), not %s", what,
			    json_object_get_string(o));
	if (lo_open ? !(x > lo) : !(x >= lo))
		return wlp_fail(c, "%s out of range: must be %s %g (%s)",
			    json_object_get_string(o), lo_open ? ">" : ">=",
			    lo, what);
	if (x > hi)
		return wlp_fail(c, "%s out of range: at most %g (%s)",
			    json_object_get_string(o), hi, what);
	*v = x;
	return 0;
}

int wlp_get_per_phase(struct pctx *c, json_object *o, double hi,
		      const char *what, double *x)
{
	unsigned np = c->w->nphases;
	size_t n;
	int r;

	if (!json_object_is_type(o, json_type_array)) {
		if ((r = wlp_get_number(c, o, 0, false, hi, what, &x[0])) < 0)
			return r;
		for (unsigned p = 1; p < np; p++)
			x[p] = x[0];
		return 0;
	}
	n = json_object_array_length(o);
	if (n != np)
		return wlp_fail(c, "%zu values: one per phase is %u, or give "
				"one number for all", n, np);
	for (size_t p = 0; p < n; p++) {
		size_t old = wlp_path_idx(c, p);

		r = wlp_get_number(c, json_object_array_get_idx(o, p), 0,
				   false, hi, what, &x[p]);
		if (r < 0)
			return r;
		wlp_path_pop(c, old);
	}
	return 0;
}

/* A JSON integer in [lo, hi]. */
int wlp_get_uint(struct pctx *c, json_object *o, uint64_t lo, uint64_t hi,
		    const char *what, uint64_t *v)
{
	int64_t s;

	if (!json_object_is_type(o, json_type_int))
		return wlp_fail(c, "must be an integer %" PRIu64 "..%" PRIu64
			    " (%s), not %s", lo, hi, what, wlp_type_name(o));
	s = json_object_get_int64(o);
	if (s < 0 || (uint64_t)s < lo || (uint64_t)s > hi)
		return wlp_fail(c, "%s out of range: must be %" PRIu64 "..%" PRIu64
			    " (%s)", json_object_get_string(o), lo, hi, what);
	*v = (uint64_t)s;
	return 0;
}

/* A hex string "0x..." or a non-negative JSON integer, at most max. */
int wlp_get_value(struct pctx *c, json_object *o, uint64_t max,
		     const char *what, uint64_t *v)
{
	if (json_object_is_type(o, json_type_string)) {
		int r = wlp_parse_hex(json_object_get_string(o), max, v);

		if (r == -1)
			return wlp_fail(c, "bad hex value \"%s\" (%s: \"0x\" "
				    "followed by 1 to 16 hex digits)",
				    json_object_get_string(o), what);
		if (r == -2)
			return wlp_fail(c, "%s too large (%s: at most 0x%" PRIx64 ")",
				    json_object_get_string(o), what, max);
		return 0;
	}
	if (json_object_is_type(o, json_type_int)) {
		if (json_object_get_int64(o) < 0)
			return wlp_fail(c, "%s is negative (%s: a hex string or an "
				    "integer 0..0x%" PRIx64 ")",
				    json_object_get_string(o), what, max);
		*v = json_object_get_uint64(o);
		if (*v > max)
			return wlp_fail(c, "%s too large (%s: at most 0x%" PRIx64 ")",
				    json_object_get_string(o), what, max);
		return 0;
	}
	return wlp_fail(c, "must be a hex string like \"0x1f\" or an integer "
		    "(%s), not %s", what, wlp_type_name(o));
}

/* Key name in keys[0..n), or NULL. */
const struct top_key *wlp_key_in(const struct top_key *keys, unsigned n,
				    const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* The sockets a "sN:" prefix may name: the workload's, or the most the
 * platform takes. */
static unsigned max_sockets(const struct pctx *c)
{
	const struct top_key *k = wlp_key_in(c->keys, c->nkeys, "sockets");

	return c->w->topo.sockets ? c->w->topo.sockets : k->max;
}

/* ---- socket prefixes ------------------------------------------------- */

/*
 * Strips an "sN/" prefix from *s: *sock = N, or -1 if there is none.
 * A '/' anywhere makes the text before it a prefix that must be sN.
 */
int wlp_parse_socket_prefix(struct pctx *c, const char **s, int *sock)
{
	const char *slash = strchr(*s, '/');
	unsigned n, max = max_sockets(c);

	*sock = -1;
	if (!slash)
		return 0;
	if ((*s)[0] != 's' ||
	    wlp_parse_dec(*s + 1, (size_t)(slash - *s - 1), &n) < 0)
		return wlp_fail(c, "bad socket prefix \"%.*s/\" (expected sN/ with "
			    "N a socket number 0..%u, or no prefix for every "
			    "socket)", (int)(slash - *s), *s, max - 1);
	if (n >= max)
		return wlp_fail(c, "socket %u out of range (%s %u: s0..s%u)", n,
			    c->w->topo.sockets ? "sockets is"
					       : "the platform has at most",
			    max, max - 1);
	*sock = (int)n;
	*s = slash + 1;
	return 0;
}
