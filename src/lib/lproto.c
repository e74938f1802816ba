/*
 * lproto.c - HTTP/1.1 responses and the claim routes' JSON, as libuncored
 * reads them (see lproto.h).  Everything that comes from the socket is
 * length-checked here before use: a daemon that sends garbage gets
 * -EPROTO with what was wrong, never a crash.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/lproto.h"

#define MAX_EVENTS 64
#define MAX_SOCKETS 256
#define JSON_DEPTH 16

static int proto(struct lproto_resp *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int proto(struct lproto_resp *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return -EPROTO;
}

/* ---- HTTP ---------------------------------------------------------------- */

/* What the headers say about the body. */
struct framing {
	bool chunked, have_len;
	size_t len;
};

/* "HTTP/1.x NNN reason": the status into r (and close for HTTP/1.0). */
static int status_line(const char *p, size_t n, struct lproto_resp *r)
{
	if (n < 12 || memcmp(p, "HTTP/1.", 7) != 0 ||
	    (p[7] != '0' && p[7] != '1') || p[8] != ' ' ||
	    !isdigit((unsigned char)p[9]) || !isdigit((unsigned char)p[10]) ||
	    !isdigit((unsigned char)p[11]) || (n > 12 && p[12] != ' '))
		return proto(r, "not an HTTP/1.x status line");
	r->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	if (r->status < 200 || r->status > 599)
		return proto(r, "status %d is not a final answer", r->status);
	r->close = p[7] == '0';
	return 0;
}

/* A decimal Content-Length; false if malformed or over the limit. */
static bool parse_len(const char *v, size_t n, size_t *len)
{
	size_t x = 0;

	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)v[i]))
			return false;
		x = x * 10 + (size_t)(v[i] - '0');
		if (x > LPROTO_MAX_BODY)
			return false;
	}
	*len = x;
	return true;
}

/* Does header value v (n bytes) hold token tok (case-insensitive, in a
 * comma-separated list)? */
static bool has_token(const char *v, size_t n, const char *tok)
{
	size_t tl = strlen(tok);

	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && v[j] != ',')
			j++;
		while (i < j && (v[i] == ' ' || v[i] == '\t'))
			i++;
		size_t e = j;
		while (e > i && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - i == tl && strncasecmp(v + i, tok, tl) == 0)
			return true;
		i = j + 1;
	}
	return false;
}

/* One "Name: value" line (n bytes, no CRLF) into f and r. */
static int header(const char *p, size_t n, struct framing *f,
		  struct lproto_resp *r)
{
	const char *colon = memchr(p, ':', n);
	size_t nl, vl;
	const char *v;

	if (!colon || colon == p)
		return proto(r, "a header line without a name");
	nl = (size_t)(colon - p);
	v = colon + 1;
	vl = n - nl - 1;
	while (vl && (*v == ' ' || *v == '\t'))
		v++, vl--;
	while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;
	if (nl == 14 && strncasecmp(p, "Content-Length", 14) == 0) {
		size_t len;

		if (!parse_len(v, vl, &len) || (f->have_len && len != f->len))
			return proto(r, "a bad Content-Length");
		f->have_len = true;
		f->len = len;
	} else if (nl == 17 && strncasecmp(p, "Transfer-Encoding", 17) == 0) {
		if (!has_token(v, vl, "chunked"))
			return proto(r, "transfer coding other than chunked");
		f->chunked = true;
	} else if (nl == 10 && strncasecmp(p, "Connection", 10) == 0) {
		if (has_token(v, vl, "close"))
			r->close = true;
	} else if (nl == 11 && strncasecmp(p, "Retry-After", 11) == 0) {
		r->retry_after = true;
	} else if (nl == 16 && strncasecmp(p, "Uncored-Instance", 16) == 0) {
		size_t ok = 0;

		while (ok < vl && isalnum((unsigned char)v[ok]))
			ok++;
		if (!vl || ok != vl || vl >= sizeof(r->instance) ||
		    (r->instance[0] && (strlen(r->instance) != vl ||
					memcmp(r->instance, v, vl) != 0)))
			return proto(r, "a bad Uncored-Instance header");
		memcpy(r->instance, v, vl);
		r->instance[vl] = '\0';
	}
	return 0;
}

/* The status line and headers in buf[0..hlen) (the last CRLF excluded). */
static int head(const char *buf, size_t hlen, struct framing *f,
		struct lproto_resp *r)
{
	const char *p = buf, *end = buf + hlen;
	bool first = true;
	int rc;

	while (p < end) {
		const char *eol = memmem(p, (size_t)(end - p), "\r\n", 2);
		size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);

		if (memchr(p, '\0', n))
			return proto(r, "a NUL in the headers");
		rc = first ? status_line(p, n, r) : header(p, n, f, r);
		if (rc < 0)
			return rc;
		first = false;
		p += n + 2;
	}
	return first ? proto(r, "no status line") : 0;
}

/* Appends n bytes to r->body (grown as needed). */
static int body_add(struct lproto_resp *r, size_t *cap, const char *p,
		    size_t n)
{
	if (r->len + n > LPROTO_MAX_BODY)
		return proto(r, "an answer over %u MiB", LPROTO_MAX_BODY >> 20);
	if (r->len + n + 1 > *cap) {
		size_t nc = (r->len + n + 1) * 2;
		char *b = realloc(r->body, nc);

		if (!b)
			return -ENOMEM;
		r->body = b;
		*cap = nc;
	}
	memcpy(r->body + r->len, p, n);
	r->len += n;
	r->body[r->len] = '\0';
	return 0;
}

/* Decodes a chunked body from p[0..n): 1 complete (*used set), 0 more
 * needed, -errno. */
static int chunked(const char *p, size_t n, struct lproto_resp *r,
		   size_t *used)
{
	size_t off = 0, cap = 0;
	int rc;

	for (;;) {
		const char *eol = memmem(p + off, n - off, "\r\n", 2);
		size_t size = 0, digits = 0;

		if (!eol)
			return n - off > 1024 ? proto(r, "a chunk size line "
						      "over 1 KiB") : 0;
		for (const char *q = p + off; q < eol && isxdigit((unsigned char)*q);
		     q++, digits++) {
			size = size * 16 + (size_t)(isdigit((unsigned char)*q)
				? *q - '0' : (tolower((unsigned char)*q) - 'a' + 10));
			if (size > LPROTO_MAX_BODY)
				return proto(r, "a chunk over %u MiB",
					     LPROTO_MAX_BODY >> 20);
		}
		if (!digits || (p + off + digits < eol && p[off + digits] != ';'))
			return proto(r, "a bad chunk size");
		off = (size_t)(eol - p) + 2;
		if (size == 0)
			break;
		if (n - off < size + 2)
			return 0;
		if (memcmp(p + off + size, "\r\n", 2) != 0)
			return proto(r, "a chunk not followed by CRLF");
		if ((rc = body_add(r, &cap, p + off, size)) < 0)
			return rc;
		off += size + 2;
	}
	/* trailers, up to the empty line */
	for (;;) {
		const char *eol = memmem(p + off, n - off, "\r\n", 2);

		if (!eol)
			return n - off > 1024 ? proto(r, "trailers over 1 KiB") : 0;
		if (eol == p + off) {
			*used = off + 2;
			break;
		}
		off = (size_t)(eol - p) + 2;
	}
	return r->body || !body_add(r, &cap, "", 0) ? 1 : -ENOMEM;
}

/* The body of p[0..n) as f frames it: 1, 0, or -errno. */
static int body(const char *p, size_t n, bool eof, const struct framing *f,
		struct lproto_resp *r, size_t *used)
{
	size_t cap = 0;
	int rc;

	if (f->chunked) {
		rc = chunked(p, n, r, used);
		if (rc == 0 && eof)
			return proto(r, "the connection closed inside a "
				     "chunked answer");
		return rc;
	}
	if (f->have_len) {
		if (n < f->len)
			return eof ? proto(r, "the connection closed after %zu "
					   "of %zu bytes", n, f->len) : 0;
		*used = f->len;
		return (rc = body_add(r, &cap, p, f->len)) < 0 ? rc : 1;
	}
	/* framed by the end of the connection */
	if (!eof)
		return n > LPROTO_MAX_BODY ? proto(r, "an answer over %u MiB",
						   LPROTO_MAX_BODY >> 20) : 0;
	r->close = true;
	*used = n;
	return (rc = body_add(r, &cap, p, n)) < 0 ? rc : 1;
}

int lproto_response(const char *buf, size_t n, bool eof,
		    struct lproto_resp *r, size_t *used)
{
	const char *hend = memmem(buf, n, "\r\n\r\n", 4);
	struct framing f = { 0 };
	size_t hlen, bused = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!hend) {
		if (n > LPROTO_MAX_HEAD)
			return proto(r, "headers over %u KiB", LPROTO_MAX_HEAD >> 10);
		return eof ? proto(r, "the connection closed %s",
				   n ? "inside the headers" : "without an answer")
			   : 0;
	}
	hlen = (size_t)(hend - buf);
	if ((rc = head(buf, hlen, &f, r)) < 0)
		return rc;
	if (r->status == 204 || r->status == 304) {
		*used = hlen + 4;
		return (r->body = calloc(1, 1)) ? 1 : -ENOMEM;
	}
	rc = body(hend + 4, n - hlen - 4, eof, &f, r, &bused);
	if (rc == 1)
		*used = hlen + 4 + bused;
	else {
		free(r->body);
		r->body = NULL;
		r->len = 0;
	}
	return rc;
}

int lproto_errno(int status)
{
	switch (status) {
	case 400: return -EINVAL;
	case 401:
	case 403: return -EPERM;
	case 404: return -ENOENT;
	case 405: return -EOPNOTSUPP;
	case 409: return -EBUSY;
	case 413: return -E2BIG;
	case 429: return -EUSERS;
	case 503: return -EAGAIN;
	case 500: return -EIO;
	default: return status >= 200 && status < 300 ? 0 : -EPROTO;
	}
}

/* ---- JSON ---------------------------------------------------------------- */

static struct json_object *parse_json(const char *body, size_t len)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);
	struct json_object *o;

	if (!tok || len > LPROTO_MAX_BODY) {
		json_tokener_free(tok);
		return NULL;
	}
	o = json_tokener_parse_ex(tok, body, (int)len);
	if (json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	if (o && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}

static struct json_object *jget(struct json_object *o, const char *k)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* A non-negative integer; false if absent or of another type. */
static bool ju64(struct json_object *o, const char *k, uint64_t *out)
{
	struct json_object *v = jget(o, k);

	if (!json_object_is_type(v, json_type_int))
		return false;
	errno = 0;
	if (json_object_get_int64(v) < 0)
		return false;
	*out = json_object_get_uint64(v);
	return errno == 0;
}

bool lproto_error_message(const char *body, size_t len, char *msg,
			  size_t msglen)
{
	struct json_object *o = parse_json(body, len);
	struct json_object *m = jget(jget(o, "error"), "message");
	bool ok = json_object_is_type(m, json_type_string);

	if (ok)
		snprintf(msg, msglen, "%s", json_object_get_string(m));
	json_object_put(o);
	return ok;
}

bool lproto_claim_id(const char *body, size_t len, char *id, size_t idlen)
{
	struct json_object *o = parse_json(body, len);
	struct json_object *v = jget(o, "id");
	const char *s = json_object_is_type(v, json_type_string)
			? json_object_get_string(v) : NULL;
	bool ok = s && s[0] && strlen(s) < idlen &&
		  strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(s);

	if (ok)
		snprintf(id, idlen, "%s", s);
	json_object_put(o);
	return ok;
}

int lproto_claim_of(const char *body, size_t len, char *id, size_t idlen,
		    char **events, char *why, size_t whylen)
{
	struct json_object *o = parse_json(body, len), *evs = jget(o, "events");
	struct json_object *v = jget(o, "id");
	size_t n = json_object_is_type(evs, json_type_array)
		   ? json_object_array_length(evs) : 0, total = 1, at = 0;
	char *out;

	*events = NULL;
	if (!json_object_is_type(v, json_type_string) ||
	    strlen(json_object_get_string(v)) >= idlen || !n ||
	    n > MAX_EVENTS) {
		snprintf(why, whylen, "no claim id or events in the answer");
		json_object_put(o);
		return -EPROTO;
	}
	snprintf(id, idlen, "%s", json_object_get_string(v));
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = jget(json_object_array_get_idx(evs, i),
					     "event");

		if (!json_object_is_type(e, json_type_string)) {
			snprintf(why, whylen, "event %zu of claim %s has no "
				 "name", i, id);
			json_object_put(o);
			return -EPROTO;
		}
		total += strlen(json_object_get_string(e)) + 1;
	}
	if (!(out = malloc(total))) {
		json_object_put(o);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = json_object_get_string(
			jget(json_object_array_get_idx(evs, i), "event"));

		at += (size_t)snprintf(out + at, total - at, "%s%s",
				       i ? "\n" : "", name);
	}
	out[at] = '\0';
	*events = out;
	json_object_put(o);
	return 0;
}

uint64_t lproto_running(const struct lproto_event *e, unsigned s)
{
	return e->running && e->running[s] ? e->running[s] : e->running_ns;
}

void lproto_counts_clear(struct lproto_counts *c)
{
	for (size_t i = 0; c->ev && i < c->nev; i++) {
		free(c->ev[i].name);
		free(c->ev[i].count);
		free(c->ev[i].running);
		free(c->ev[i].family);
	}
	free(c->ev);
	for (size_t i = 0; c->form && i < c->nform; i++) {
		free(c->form[i].name);
		free(c->form[i].unit);
		free(c->form[i].value);
	}
	free(c->form);
	memset(c, 0, sizeof(*c));
}

/*
 * The optional "derived" of event eo into e: absent or null, none; else
 * {"family": a metric name ([a-z_:][a-z0-9_:]*, under
 * LPROTO_FAMILY_MAX bytes), "scale": a finite number > 0}, or -EPROTO.
 */
static int one_derived(struct json_object *eo, struct lproto_event *e,
		       char *why, size_t whylen)
{
	struct json_object *d = jget(eo, "derived"), *f = jget(d, "family");
	struct json_object *k = jget(d, "scale");
	const char *s = json_object_is_type(f, json_type_string)
			? json_object_get_string(f) : NULL;
	size_t n = s ? strlen(s) : 0;

	if (!d)
		return 0;
	if (!s || !n || n >= LPROTO_FAMILY_MAX || isdigit((unsigned char)s[0]) ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_:") != n ||
	    !(json_object_is_type(k, json_type_double) ||
	      json_object_is_type(k, json_type_int)) ||
	    !isfinite(json_object_get_double(k)) ||
	    !(json_object_get_double(k) > 0)) {
		snprintf(why, whylen, "event %s: a \"derived\" without a metric "
			 "name for family or a positive scale", e->name);
		return -EPROTO;
	}
	e->scale = json_object_get_double(k);
	return (e->family = strdup(s)) ? 0 : -ENOMEM;
}

/* Event eo into e, with nsockets sockets (the first event sets it). */
static int one_event(struct json_object *eo, struct lproto_event *e,
		     unsigned *nsockets, char *why, size_t whylen)
{
	struct json_object *name = jget(eo, "event"), *socks = jget(eo, "sockets");
	size_t ns;

	if (!json_object_is_type(name, json_type_string) ||
	    !json_object_is_type(socks, json_type_array) ||
	    !ju64(eo, "time_enabled_ns", &e->enabled_ns) ||
	    !ju64(eo, "time_running_ns", &e->running_ns)) {
		snprintf(why, whylen, "an event without its name, times or "
			 "sockets");
		return -EPROTO;
	}
	e->running_err_ns = 0;		/* optional: older daemons */
	if (jget(eo, "time_running_err_ns") &&
	    !ju64(eo, "time_running_err_ns", &e->running_err_ns)) {
		snprintf(why, whylen, "an event whose time_running_err_ns is "
			 "not a count of ns");
		return -EPROTO;
	}
	e->read_err_ns = 0;		/* optional: older daemons */
	if (jget(eo, "time_read_err_ns") &&
	    !ju64(eo, "time_read_err_ns", &e->read_err_ns)) {
		snprintf(why, whylen, "an event whose time_read_err_ns is not "
			 "a count of ns");
		return -EPROTO;
	}
	ns = json_object_array_length(socks);
	if (!ns || ns > MAX_SOCKETS || (*nsockets && ns != *nsockets)) {
		snprintf(why, whylen, "%zu sockets in an event", ns);
		return -EPROTO;
	}
	*nsockets = (unsigned)ns;
	if (!(e->name = strdup(json_object_get_string(name))) ||
	    !(e->count = calloc(ns, sizeof(*e->count))) ||
	    !(e->running = calloc(ns, sizeof(*e->running))))
		return -ENOMEM;
	for (size_t s = 0; s < ns; s++) {
		struct json_object *so = json_object_array_get_idx(socks, s);
		uint64_t idx;

		if (!ju64(so, "socket", &idx) || idx != s ||
		    !ju64(so, "count", &e->count[s])) {
			snprintf(why, whylen, "socket %zu of %s without its "
				 "index or count", s, e->name);
			return -EPROTO;
		}
		e->running[s] = e->running_ns;	/* optional: older daemons */
		if (jget(so, "time_running_ns") &&
		    !ju64(so, "time_running_ns", &e->running[s])) {
			snprintf(why, whylen, "socket %zu of %s: a "
				 "time_running_ns that is not a count of ns",
				 s, e->name);
			return -EPROTO;
		}
	}
	return one_derived(eo, e, why, whylen);
}

/*
 * Formula fo into f, with nsockets sockets: {"name", "unit", "window_s",
 * "sockets": [{"socket": S, "value": V or null}, ...]}, or -EPROTO.
 */
static int one_formula(struct json_object *fo, struct lproto_formula *f,
		       unsigned nsockets, char *why, size_t whylen)
{
	struct json_object *name = jget(fo, "name"), *unit = jget(fo, "unit");
	struct json_object *socks = jget(fo, "sockets"), *w = jget(fo, "window_s");

	if (!json_object_is_type(name, json_type_string) ||
	    !json_object_is_type(unit, json_type_string) ||
	    !json_object_is_type(socks, json_type_array)) {
		snprintf(why, whylen, "a formula without its name, unit or "
			 "sockets");
		return -EPROTO;
	}
	if (!(f->name = strdup(json_object_get_string(name))) ||
	    !(f->unit = strdup(json_object_get_string(unit))) ||
	    !(f->value = malloc((nsockets ? nsockets : 1) * sizeof(double))))
		return -ENOMEM;
	f->window_s = w ? json_object_get_double(w) : NAN;
	for (unsigned s = 0; s < nsockets; s++)
		f->value[s] = NAN;
	for (size_t k = 0; k < json_object_array_length(socks); k++) {
		struct json_object *so = json_object_array_get_idx(socks, k);
		struct json_object *sk = jget(so, "socket"), *v = jget(so, "value");
		int64_t s = json_object_is_type(sk, json_type_int)
			    ? json_object_get_int64(sk) : -1;

		if (s < 0 || s >= (int64_t)nsockets) {
			snprintf(why, whylen, "formula %s: a socket out of "
				 "range", f->name);
			return -EPROTO;
		}
		if (json_object_is_type(v, json_type_double) ||
		    json_object_is_type(v, json_type_int))
			f->value[s] = json_object_get_double(v);
	}
	return 0;
}

int lproto_counts(const char *body, size_t len, struct lproto_counts *c,
		  char *why, size_t whylen)
{
	struct json_object *o = parse_json(body, len), *evs = jget(o, "events");
	size_t n;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	if (!json_object_is_type(evs, json_type_array) ||
	    (n = json_object_array_length(evs)) == 0 || n > MAX_EVENTS) {
		snprintf(why, whylen, "not a claim's reading (no events)");
		json_object_put(o);
		return -EPROTO;
	}
	if (!(c->ev = calloc(n, sizeof(*c->ev))))
		rc = -ENOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		c->nev = i + 1;
		rc = one_event(json_object_array_get_idx(evs, i), &c->ev[i],
			       &c->nsockets, why, whylen);
	}
	evs = jget(o, "formulas");
	if (rc == 0 && json_object_is_type(evs, json_type_array) &&
	    (n = json_object_array_length(evs)) > 0) {
		if (n > MAX_EVENTS) {
			snprintf(why, whylen, "%zu formulas in a reading (at "
				 "most %d)", n, MAX_EVENTS);
			rc = -EPROTO;
		} else if (!(c->form = calloc(n, sizeof(*c->form)))) {
			rc = -ENOMEM;
		}
		for (size_t i = 0; rc == 0 && i < n; i++) {
			c->nform = i + 1;
			rc = one_formula(json_object_array_get_idx(evs, i),
					 &c->form[i], c->nsockets, why, whylen);
		}
	}
	json_object_put(o);
	if (rc < 0)
		lproto_counts_clear(c);
	return rc;
}
