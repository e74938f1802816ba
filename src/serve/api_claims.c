/*
 * api_claims.c - JSON bodies of the claim routes (see api_claims.h).
 *
 * Parsing and shape checks of a request happen here; the table decides
 * the rest (events, limits, owners) and says why it refused, which this
 * file maps to the status and code doc/design.md section 6 documents.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_claims.h"
#include "core/derive.h"
#include "core/formula.h"
#include "base/jnum.h"
#include "base/jtext.h"

#define JSON_DEPTH 8

static struct json_object *iso_time(double t)
{
	char buf[40];
	time_t s = (time_t)t;
	struct tm tm;

	gmtime_r(&s, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_object_new_string(buf);
}

static void fail(struct claims_reply *r, int status, const char *code,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void fail(struct claims_reply *r, int status, const char *code,
		 const char *fmt, ...)
{
	va_list ap;

	r->status = status;
	r->body = NULL;
	snprintf(r->code, sizeof(r->code), "%s", code);
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
}

/* A refusal of the table as a status and an error code. */
static void refused(struct claims_reply *r, const struct claims_err *e)
{
	static const struct { int status; const char *code; } map[] = {
		[CLAIMS_OK] = { 500, "internal" },
		[CLAIMS_BAD_REQUEST] = { 400, "bad_request" },
		[CLAIMS_UNKNOWN_EVENT] = { 400, "unknown_event" },
		[CLAIMS_UNKNOWN_FORMULA] = { 400, "unknown_formula" },
		[CLAIMS_FORMULA_UNAVAILABLE] = { 409, "formula_unavailable" },
		[CLAIMS_RAW_DISABLED] = { 403, "raw_events_disabled" },
		[CLAIMS_NOT_FOUND] = { 404, "not_found" },
		[CLAIMS_INTERVAL] = { 409, "interval_too_long" },
		[CLAIMS_UNSCHEDULABLE] = { 409, "cannot_schedule" },
		[CLAIMS_LIMIT] = { 429, "too_many_claims" },
		[CLAIMS_NOMEM] = { 500, "internal" },
		[CLAIMS_HELD] = { 409, "counters_held" },
		[CLAIMS_UNAVAILABLE] = { 503, "unavailable" },
	};

	fail(r, map[e->st].status, map[e->st].code, "%s", e->msg);
}

/*
 * What is wrong with a client's string of len bytes (a label or an event
 * name) that goes back out in JSON, logs and on terminals: NULL if it is
 * valid UTF-8 without NUL, C0/C1 controls, DEL or bidirectional
 * formatting characters (U+061C, U+200E/F, U+202A..E, U+2066..9), else
 * a description with the byte offset in buf.
 */
static const char *text_problem(const char *str, size_t len, char *buf,
				size_t blen)
{
	const unsigned char *p = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		unsigned c = p[i], n, cp;

		if (c == 0) {
			snprintf(buf, blen, "a NUL at byte %zu", i);
			return buf;
		}
		if (c < 0x20 || c == 0x7f) {
			snprintf(buf, blen, "control character 0x%02x at byte %zu",
				 c, i);
			return buf;
		}
		if (c < 0x80) {
			i++;
			continue;
		}
		/* lead byte: 2, 3 or 4 byte sequence (RFC 3629 section 4) */
		n = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : 0;
		if (n == 0 || c > 0xf4 || len - i <= n)
			goto bad;
		cp = c & (0x3fu >> n);
		for (unsigned k = 1; k <= n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				goto bad;
			cp = cp << 6 | (p[i + k] & 0x3fu);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			goto bad;	/* overlong, too large, surrogate */
		if (cp <= 0x9f || cp == 0x61c || cp == 0x200e || cp == 0x200f ||
		    (cp >= 0x202a && cp <= 0x202e) ||
		    (cp >= 0x2066 && cp <= 0x2069)) {
			snprintf(buf, blen, "%s character U+%04X at byte %zu",
				 cp <= 0x9f ? "control" : "bidirectional "
				 "formatting", cp, i);
			return buf;
		}
		i += n + 1;
	}
	return NULL;
bad:
	snprintf(buf, blen, "invalid UTF-8 at byte %zu", i);
	return buf;
}

/* A member name given twice in body: a 400 naming it; else 0. */
static int dup_key(const char *body, size_t len, struct claims_reply *r)
{
	char name[48], why[128];
	long at = jtext_dup_key(body, len, name, sizeof(name));

	if (at < 0)
		return 0;
	if (text_problem(name, strlen(name), why, sizeof(why)))
		fail(r, 400, "bad_json", "a key given twice, the second at byte "
		     "%ld (each key at most once)", at);
	else
		fail(r, 400, "bad_json", "duplicate key \"%s\" at byte %ld "
		     "(each key at most once)", name, at);
	return -1;
}

/* The value of 4 hex digits at p, or -1. */
static long hex4(const char *p)
{
	long v = 0;

	for (int k = 0; k < 4; k++) {
		int c = (unsigned char)p[k], d;

		d = c >= '0' && c <= '9' ? c - '0'
		    : c >= 'a' && c <= 'f' ? c - 'a' + 10
		    : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/*
 * A lone UTF-16 surrogate escape in a string of body: a 400 naming the
 * member it is in; else 0.  json-c decodes "\ud800" without its pair
 * into U+FFFD, so a label given as one was stored as U+FFFD (issue 39
 * finding 12); the raw text is checked rather than U+FFFD refused in
 * labels, since U+FFFD is a character a client may send on purpose and
 * the lone escape is what is invalid (RFC 8259 section 8.2), in any
 * member.  Runs on a body json-c parsed: a backslash is in a string.
 */
static int lone_surrogate(const char *body, size_t len,
			  struct claims_reply *r)
{
	const char *key = NULL, *str = NULL;	/* the last member name */
	int keylen = 0;
	bool in = false;

	for (size_t i = 0; i < len; i++) {
		long cp, lo;
		size_t end;

		if (!in) {
			if (body[i] == '"') {
				in = true;
				str = body + i + 1;
			}
			continue;
		}
		if (body[i] == '"') {
			in = false;
			for (end = i + 1; end < len && strchr(" \t\r\n",
							      body[end]); end++)
				;
			if (end < len && body[end] == ':') {
				key = str;
				keylen = (int)(body + i - str);
			}
			continue;
		}
		if (body[i] != '\\')
			continue;
		if (i + 5 >= len || body[i + 1] != 'u' ||
		    (cp = hex4(body + i + 2)) < 0xd800 || cp > 0xdfff) {
			i++;		/* the escaped character */
			continue;
		}
		if (cp <= 0xdbff && i + 11 < len && body[i + 6] == '\\' &&
		    body[i + 7] == 'u' && (lo = hex4(body + i + 8)) >= 0xdc00 &&
		    lo <= 0xdfff) {
			i += 11;	/* a pair */
			continue;
		}
		/* a member name, or the value of the last one */
		for (end = i; end < len && body[end] != '"'; end++)
			if (body[end] == '\\')
				end++;
		while (++end < len && strchr(" \t\r\n", body[end]))
			;
		if (end < len && body[end] == ':')
			fail(r, 400, "bad_request", "a member name contains a "
			     "lone UTF-16 surrogate \\u%04lx at byte %zu "
			     "(text must be Unicode: a high surrogate is "
			     "followed by a low one)", cp, i);
		else
			fail(r, 400, "bad_request", "%.*s contains a lone "
			     "UTF-16 surrogate \\u%04lx at byte %zu (text must "
			     "be Unicode: a high surrogate is followed by a low "
			     "one)", key ? keylen : 5, key ? key : "value", cp,
			     i);
		return -1;
	}
	return 0;
}

/* Parses body as one JSON object; NULL after a 400. */
static struct json_object *parse_body(const char *body, size_t len,
				      struct claims_reply *r)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);
	struct json_object *o;
	enum json_tokener_error e;

	if (!tok) {
		fail(r, 500, "internal", "out of memory");
		return NULL;
	}
#ifdef JSON_TOKENER_VALIDATE_UTF8
	/* invalid UTF-8 anywhere (a key echoed in an error included) */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
			       JSON_TOKENER_VALIDATE_UTF8);
#else
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
#endif
	o = json_tokener_parse_ex(tok, body, (int)len);
	e = json_tokener_get_error(tok);
	if (e == json_tokener_success && tok->char_offset < (int)len) {
		size_t off = (size_t)tok->char_offset;

		/* (not strchr(): it finds the NUL that ends its string) */
		while (off < len && (body[off] == ' ' || body[off] == '\t' ||
				     body[off] == '\r' || body[off] == '\n'))
			off++;
		if (off < len) {
			json_object_put(o);
			fail(r, 400, "bad_json", "trailing data after the JSON "
			     "object at byte %zu", off);
			json_tokener_free(tok);
			return NULL;
		}
	}
	if (e != json_tokener_success || !o) {
		fail(r, 400, "bad_json", "malformed JSON at byte %d: %s",
		     tok->char_offset,
		     e == json_tokener_success ? "empty body"
		     : e == json_tokener_continue ? "unexpected end of input"
		     : json_tokener_error_desc(e));
		json_object_put(o);
		json_tokener_free(tok);
		return NULL;
	}
	json_tokener_free(tok);
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		fail(r, 400, "bad_json", "the body must be a JSON object");
		return NULL;
	}
	/* json-c keeps the last of two members of one name */
	if (dup_key(body, len, r) < 0 || lone_surrogate(body, len, r) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * An integer ttl_s in 1..max into *t; -1 after a 400.  body (len bytes)
 * is the request as sent: json-c clamps an integer past 64 bits as it
 * parses, so the range is checked, and a refusal worded, on the text.
 */
static int parse_ttl(struct json_object *v, const char *body, size_t len,
		     unsigned max, int64_t *t, struct claims_reply *r)
{
	const char *txt;
	size_t n;
	char num[32], *end;
	long long x;

	if (!json_object_is_type(v, json_type_int)) {
		fail(r, 400, "bad_request", "ttl_s must be an integer number of "
		     "seconds in 1..%u", max);
		return -1;
	}
	if (!jtext_member(body, len, "ttl_s", &txt, &n)) {
		txt = json_object_to_json_string(v);
		n = strlen(txt);
	}
	errno = 0;
	x = 0;
	if (n < sizeof(num)) {
		memcpy(num, txt, n);
		num[n] = '\0';
		x = strtoll(num, &end, 10);
	}
	if (n >= sizeof(num) || errno || *end || x < 1 || x > (long long)max) {
		fail(r, 400, "bad_request", "ttl_s %.*s%s is out of range (1..%u)",
		     n > 40 ? 40 : (int)n, txt, n > 40 ? "..." : "", max);
		return -1;
	}
	*t = x;
	return 0;
}

/*
 * What event ev of a claim gives as it is, from the platform's derived
 * table (derive_event_metric()): {"family": the counter's OpenMetrics
 * family, its /metrics name without "_total", "scale": the factor from a
 * count to that family's unit}, e.g. a DRAM read event {"family":
 * "uncore_dram_read_bytes", "scale": 64}; NULL (JSON null) for an event
 * that feeds no such family, and for one counted on part of its unit's
 * instances (:split), whose count is not the socket's.
 */
static struct json_object *derived_json(const struct platform *pl,
					const struct evspec *ev)
{
	struct json_object *o;
	const char *name;
	double scale;
	size_t n;
	int m;

	if (ev->split_n || (m = derive_event_metric(pl, ev->name, &scale)) < 0)
		return NULL;
	name = pl->derived->m[m].name;
	n = strlen(name);
	if (n > 6 && strcmp(name + n - 6, "_total") == 0)
		n -= 6;
	o = json_object_new_object();
	json_object_object_add(o, "family",
			       json_object_new_string_len(name, (int)n));
	json_object_object_add(o, "scale", jnum_new(scale));
	return o;
}

/*
 * How long event e of cl ran, and how far that can be off (*err): a
 * free-running counter whenever the claim was enabled, a counter the
 * freeze does not stop (snbep's UBox) the wall time it ran, the others
 * the counting windows they ran in, each tick's frozen time left out
 * (mux_charge()), to within the windows' errors.
 */
static uint64_t event_running_ns(const struct pmu *pmu, const struct claim *cl,
				 unsigned e, uint64_t *err)
{
	const struct evspec *ev = &cl->ev[e];

	*err = 0;
	if (pmu->plat->units[ev->unit]->kind == UNIT_FREERUN)
		return cl->enabled_ns;
	if (!plat_unit_freezable(pmu->plat, ev->unit))
		return cl->live_running_ns;
	*err = cl->running_err_ns;
	return cl->running_ns;
}

/*
 * How long event e of cl ran on socket s: event_running_ns() (run), and
 * on the perf backend the mean of how much longer the socket's boxes
 * counted than the claim's running time (claim_series' run_adj): each
 * box's kernel group is read at its own instant, and a sampler held up
 * among its reads leaves the boxes read after the hold counting longer:
 * one turn of a claim on skx's imc and CHA boxes counted 26 ms on the
 * imc's and 37 on the CHA's, and the imc's counts were scaled by the
 * CHA-dominated mean (issue 40: `uncorectl run` 1.6 % low under load).
 * A count x enabled / this is the socket's estimate.
 */
static uint64_t socket_running_ns(const struct pmu *pmu, const struct claim *cl,
				  unsigned e, unsigned s, uint64_t run)
{
	int64_t adj = 0, r;
	unsigned n = 0;

	if (pmu->plat->units[cl->ev[e].unit]->kind == UNIT_FREERUN || !run)
		return run;
	for (unsigned k = 0; k < cl->ns; k++)
		if (cl->ser[k].ev == e && cl->ser[k].socket == s) {
			adj += cl->ser[k].run_adj;
			n++;
		}
	r = (int64_t)run + (n ? adj / (int64_t)n : 0);
	return r > 0 ? (uint64_t)r : run;
}

/*
 * The formulas of cl (a copy) over its counting window, the time it has
 * been enabled since its creation (T): per socket, each formula event's
 * count summed over the socket's boxes (or its first box's: scope
 * first_box), scaled as the events' "scaled" are (count x enabled /
 * running: a claim multiplexed out part of the time is estimated over
 * all of T), and the number of boxes it counted on.  A value that does
 * not exist (an event not run yet, a division by zero) is null.
 */
static struct json_object *formulas_json(const struct pmu *pmu,
					 const struct claim *cl)
{
	struct json_object *arr = json_object_new_array();
	double T = (double)cl->enabled_ns / 1e9;

	for (unsigned i = 0; i < cl->nform; i++) {
		const struct claim_formula *cf = &cl->form[i];
		struct json_object *fo = json_object_new_object();
		struct json_object *socks = json_object_new_array();
		struct fexpr *x = NULL;
		char why[200];

		if (fexpr_compile(cf->f->expr, cf->nev, &x, why,
				  sizeof(why)) < 0)
			x = NULL;	/* generated and checked: never */
		json_object_object_add(fo, "name", json_object_new_string(cf->name));
		json_object_object_add(fo, "unit", json_object_new_string(cf->f->unit));
		json_object_object_add(fo, "source",
				       json_object_new_string(cf->f->source));
		json_object_object_add(fo, "window_s", jnum_new(T));
		for (unsigned s = 0; s < pmu->topo->nsockets; s++) {
			struct json_object *so = json_object_new_object();
			double ev[CLAIM_FORMULA_EVENTS], boxes[CLAIM_FORMULA_EVENTS];
			double v = NAN;

			bool ran = true;

			for (unsigned k = 0; k < cf->nev; k++) {
				bool first = cf->f->events[k].scope ==
					     FORMULA_FIRST_BOX;
				unsigned e = cf->ev[k];
				const struct unit_type *u =
					pmu->plat->units[cl->ev[e].unit];
				uint64_t err, run = event_running_ns(pmu, cl, e,
								     &err);
				int lo = -1;

				run = socket_running_ns(pmu, cl, e, s, run);
				ev[k] = boxes[k] = 0;
				for (unsigned j = 0; j < cl->ns; j++) {
					const struct claim_series *sr = &cl->ser[j];

					if (sr->ev != cf->ev[k] || sr->socket != s)
						continue;
					boxes[k]++;
					if (!first)
						ev[k] += (double)sr->raw;
					else if (lo < 0 || sr->inst < lo) {
						lo = sr->inst;
						ev[k] = (double)sr->raw;
					}
				}
				if (u->kind != UNIT_FREERUN) {
					if (run)
						ev[k] *= (double)cl->enabled_ns /
							 (double)run;
					else
						ran = false;
				}
			}
			if (x && ran)
				v = fexpr_eval(x, ev, boxes, T);
			json_object_object_add(so, "socket", json_object_new_int((int)s));
			json_object_object_add(so, "value",
					       isfinite(v) ? jnum_new(v) : NULL);
			json_object_array_add(socks, so);
		}
		fexpr_free(x);
		json_object_object_add(fo, "sockets", socks);
		json_object_array_add(arr, fo);
	}
	return arr;
}

/* A claim (a copy from the table) as JSON; state NULL: from the claim. */
static struct json_object *claim_json(const struct pmu *pmu,
				      const struct claim *cl, const char *state)
{
	const struct platform *pl = pmu->plat;
	const struct topology *t = pmu->topo;
	struct json_object *o = json_object_new_object();
	struct json_object *evs = json_object_new_array();
	double en_s = (double)cl->enabled_ns / 1e9;
	double run_s = (double)cl->running_ns / 1e9;

	json_object_object_add(o, "id", json_object_new_string(cl->id));
	json_object_object_add(o, "state", json_object_new_string(
		state ? state : cl->running ? "running" : "waiting"));
	json_object_object_add(o, "uid", json_object_new_int((int)cl->uid));
	json_object_object_add(o, "pid", json_object_new_int((int)cl->pid));
	json_object_object_add(o, "label", json_object_new_string(cl->label));
	json_object_object_add(o, "export", json_object_new_boolean(cl->export));
	json_object_object_add(o, "pinned", json_object_new_boolean(cl->pinned));
	if (cl->pinned && cl->pinned_until_real > 0)
		json_object_object_add(o, "pinned_until",
				       iso_time(cl->pinned_until_real));
	json_object_object_add(o, "end_with_process",
			       json_object_new_boolean(cl->end_with_process));
	json_object_object_add(o, "ttl_s", json_object_new_int((int)cl->ttl_s));
	json_object_object_add(o, "created_at", iso_time(cl->created_real));
	json_object_object_add(o, "expires_at", iso_time(cl->expires_real));
	json_object_object_add(o, "time_enabled_s", jnum_new(en_s));
	json_object_object_add(o, "time_running_s", jnum_new(run_s));
	for (unsigned e = 0; e < cl->nev; e++) {
		const struct evspec *ev = &cl->ev[e];
		const struct unit_type *u = pl->units[ev->unit];
		struct json_object *eo = json_object_new_object();
		struct json_object *socks = json_object_new_array();
		uint64_t err, run = event_running_ns(pmu, cl, e, &err);

		json_object_object_add(eo, "event", json_object_new_string(ev->name));
		json_object_object_add(eo, "unit", json_object_new_string(u->name));
		json_object_object_add(eo, "counter",
				       u->kind == UNIT_FREERUN ? NULL :
				       cl->ctr[e] >= 0
				       ? json_object_new_int(cl->ctr[e]) : NULL);
		json_object_object_add(eo, "derived", derived_json(pl, ev));
		/* the kernel's .scale and .unit (platform generic): each
		 * socket's "value" is its estimate in that unit */
		if (ev->ev && ev->ev->kernel_scale > 0) {
			struct json_object *ko = json_object_new_object();

			json_object_object_add(ko, "scale",
					       jnum_new(ev->ev->kernel_scale));
			json_object_object_add(ko, "unit", json_object_new_string(
				ev->ev->kernel_unit ? ev->ev->kernel_unit : ""));
			json_object_object_add(eo, "kernel", ko);
		}
		for (unsigned s = 0; s < t->nsockets; s++) {
			struct json_object *so = json_object_new_object();
			struct json_object *insts = json_object_new_array();
			uint64_t raw = 0, est = 0, srun;

			for (unsigned k = 0; k < cl->ns; k++) {
				const struct claim_series *sr = &cl->ser[k];
				struct json_object *io;

				if (sr->ev != e || sr->socket != s)
					continue;
				raw += sr->raw;
				est += sr->est;
				io = json_object_new_object();
				json_object_object_add(io, "box",
						       json_object_new_int(sr->inst));
				json_object_object_add(io, "count",
						       json_object_new_uint64(sr->raw));
				json_object_array_add(insts, io);
			}
			srun = socket_running_ns(pmu, cl, e, s, run);
			json_object_object_add(so, "socket", json_object_new_int((int)s));
			json_object_object_add(so, "count", json_object_new_uint64(raw));
			json_object_object_add(so, "time_running_ns",
					       json_object_new_uint64(srun));
			/* perf-style estimate: count x enabled / running, over
			 * the event's own running time on this socket;
			 * free-running counters always run */
			json_object_object_add(so, "scaled",
				u->kind == UNIT_FREERUN ? json_object_new_uint64(raw) :
				srun ? jnum_new((double)raw * (double)cl->enabled_ns /
						(double)srun)
				: NULL);
			json_object_object_add(so, "estimate", json_object_new_uint64(est));
			if (ev->ev && ev->ev->kernel_scale > 0)
				json_object_object_add(so, "value", jnum_new(
					(double)est * ev->ev->kernel_scale));
			json_object_object_add(so, "instances", insts);
			json_object_array_add(socks, so);
		}
		json_object_object_add(eo, "sockets", socks);
		json_object_array_add(evs, eo);
	}
	json_object_object_add(o, "events", evs);
	json_object_object_add(o, "formulas", formulas_json(pmu, cl));
	return o;
}

/* The reply for a request that returned copy cl (r < 0: refused). */
static void answer(struct claims *c, int rc, struct claim *cl,
		   const struct claims_err *e, int status, const char *state,
		   struct claims_reply *r)
{
	if (rc < 0) {
		refused(r, e);
		return;
	}
	r->status = status;
	r->body = claim_json(claims_pmu(c), cl, state);
	claim_clear(cl);
}

/* ---- requests ------------------------------------------------------- */

/* Refuses a key of o other than keys[0..n); -1 after a 400. */
static int known_keys(struct json_object *o, const char *const *keys,
		      size_t n, const char *list, struct claims_reply *r)
{
	json_object_object_foreach(o, key, val) {
		bool known = false;

		(void)val;
		for (size_t k = 0; k < n; k++)
			known |= strcmp(key, keys[k]) == 0;
		if (!known) {
			fail(r, 400, "bad_request", "unknown key \"%.40s\" "
			     "(accepted: %s)", key, list);
			return -1;
		}
	}
	return 0;
}

/* The n items of array arr (member key) into out[] (strings arr owns):
 * each a string of printable text; -1 after a 400 naming key[i]. */
static int string_items(struct json_object *arr, const char *key, size_t n,
			const char **out, struct claims_reply *r)
{
	char why[256];
	const char *bad;

	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);

		if (!json_object_is_type(v, json_type_string)) {
			fail(r, 400, "bad_request", "%s[%zu] must be a string",
			     key, i);
			return -1;
		}
		if ((bad = text_problem(json_object_get_string(v),
					(size_t)json_object_get_string_len(v),
					why, sizeof(why)))) {
			fail(r, 400, "bad_request", "%s[%zu] contains %s", key,
			     i, bad);
			return -1;
		}
		out[i] = json_object_get_string(v);
	}
	return 0;
}

/* The "events" array of o into rq (strings o owns); -1 after a 400. */
static int parse_events(struct json_object *o, struct claim_req *rq,
			struct claims_reply *r)
{
	struct json_object *evs;
	size_t n;

	if (!json_object_object_get_ex(o, "events", &evs)) {
		if (json_object_object_get_ex(o, "formulas", NULL))
			return 0;	/* formulas instead of events */
		fail(r, 400, "bad_request", "events must be an array of 1 to %d "
		     "event names (or formulas one of 1 to %d formula names)",
		     CLAIM_REQ_EVENTS, CLAIM_MAX_FORMULAS);
		return -1;
	}
	if (!json_object_is_type(evs, json_type_array) ||
	    (n = json_object_array_length(evs)) < 1 || n > CLAIM_REQ_EVENTS) {
		fail(r, 400, "bad_request", "events must be an array of 1 to %d "
		     "event names", CLAIM_REQ_EVENTS);
		return -1;
	}
	if (string_items(evs, "events", n, rq->events, r) < 0)
		return -1;
	rq->nev = (unsigned)n;
	return 0;
}

/* The optional "formulas" array of o into rq (strings o owns); -1 after a
 * 400. */
static int parse_formulas(struct json_object *o, struct claim_req *rq,
			  struct claims_reply *r)
{
	struct json_object *fs;
	size_t n;

	if (!json_object_object_get_ex(o, "formulas", &fs))
		return 0;
	if (!json_object_is_type(fs, json_type_array) ||
	    (n = json_object_array_length(fs)) < 1 || n > CLAIM_MAX_FORMULAS) {
		fail(r, 400, "bad_request", "formulas must be an array of 1 to "
		     "%d formula names (GET /api/v1/formulas lists them)",
		     CLAIM_MAX_FORMULAS);
		return -1;
	}
	if (string_items(fs, "formulas", n, rq->formulas, r) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (strlen(rq->formulas[i]) >= CLAIM_FORMULA_NAME_MAX) {
			fail(r, 400, "unknown_formula", "formulas[%zu] is longer "
			     "than any formula name (%d bytes)", i,
			     CLAIM_FORMULA_NAME_MAX - 1);
			return -1;
		}
	rq->nform = (unsigned)n;
	return 0;
}

/* The optional "label" of o into rq; -1 after a 400. */
static int parse_label(struct json_object *o, struct claim_req *rq,
		       struct claims_reply *r)
{
	struct json_object *v;
	char why[256];
	const char *bad, *l;

	if (!json_object_object_get_ex(o, "label", &v))
		return 0;
	l = json_object_get_string(v);
	if (!json_object_is_type(v, json_type_string) ||
	    json_object_get_string_len(v) >= CLAIM_LABEL_MAX) {
		fail(r, 400, "bad_request", "label must be a string of at most "
		     "%d bytes", CLAIM_LABEL_MAX - 1);
		return -1;
	}
	if ((bad = text_problem(l, (size_t)json_object_get_string_len(v), why,
				sizeof(why)))) {
		fail(r, 400, "bad_request", "label contains %s (labels are "
		     "printable UTF-8 text)", bad);
		return -1;
	}
	rq->label = l;
	return 0;
}

/* The optional boolean key of o into *out; -1 after a 400. */
static int parse_bool(struct json_object *o, const char *key, bool *out,
		      struct claims_reply *r)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_boolean)) {
		fail(r, 400, "bad_request", "%s must be true or false", key);
		return -1;
	}
	*out = json_object_get_boolean(v);
	return 0;
}

/* Where a created claim would count on an idle PMU (its placement). */
static struct json_object *plan_json(const struct pmu *pmu,
				     const struct claim *cl)
{
	struct json_object *plan = json_object_new_array();

	for (unsigned i = 0; i < cl->nev; i++) {
		struct json_object *po = json_object_new_object();

		json_object_object_add(po, "event", json_object_new_string(cl->ev[i].name));
		json_object_object_add(po, "unit", json_object_new_string(
			pmu->plat->units[cl->ev[i].unit]->name));
		json_object_object_add(po, "counter", json_object_new_int(cl->plan[i]));
		json_object_array_add(plan, po);
	}
	return plan;
}

void api_claims_create(struct claims *c, uid_t uid, pid_t pid,
		       const char *body, size_t len, struct claims_reply *r)
{
	static const char *const keys[] = { "events", "formulas", "ttl_s",
					    "label", "export", "pinned",
					    "end_with_process" };
	struct json_object *o = parse_body(body, len, r), *v;
	struct claim_req rq = { 0 };
	struct claims_err e;
	struct claim cl;
	int rc;

	if (!o)
		return;
	if (known_keys(o, keys, sizeof(keys) / sizeof(keys[0]), "events, "
		       "formulas, ttl_s, label, export, pinned, "
		       "end_with_process", r) < 0 ||
	    parse_events(o, &rq, r) < 0 || parse_formulas(o, &rq, r) < 0)
		goto out;
	if (json_object_object_get_ex(o, "ttl_s", &v)) {
		if (parse_ttl(v, body, len, claims_cfg(c).max_ttl_s, &rq.ttl_s,
			      r) < 0)
			goto out;
		rq.have_ttl = true;
	}
	if (parse_label(o, &rq, r) < 0 || parse_bool(o, "export", &rq.export, r) < 0 ||
	    parse_bool(o, "pinned", &rq.pinned, r) < 0 ||
	    parse_bool(o, "end_with_process", &rq.end_with_process, r) < 0)
		goto out;
	rc = claims_create(c, uid, pid, &rq, &cl, &e);
	if (rc == 0) {
		struct json_object *plan = plan_json(claims_pmu(c), &cl);

		answer(c, rc, &cl, &e, 201, NULL, r);
		json_object_object_add(r->body, "counters", plan);
	} else {
		answer(c, rc, &cl, &e, 201, NULL, r);
	}
out:
	json_object_put(o);
}

void api_claims_list(struct claims *c, uid_t uid, struct claims_reply *r)
{
	struct json_object *arr;
	struct claim *v;
	int n = claims_list(c, uid, &v);

	if (n < 0) {
		fail(r, 500, "internal", "out of memory");
		return;
	}
	arr = json_object_new_array();
	for (int i = 0; i < n; i++)
		json_object_array_add(arr, claim_json(claims_pmu(c), &v[i], NULL));
	claims_list_free(v, n);
	r->status = 200;
	r->body = json_object_new_object();
	json_object_object_add(r->body, "claims", arr);
}

void api_claims_get(struct claims *c, const char *id, uid_t uid,
		    struct claims_reply *r)
{
	struct claims_err e;
	struct claim cl;

	answer(c, claims_get(c, id, uid, &cl, &e), &cl, &e, 200, NULL, r);
}

void api_claims_renew(struct claims *c, const char *id, uid_t uid,
		      const char *body, size_t len, struct claims_reply *r)
{
	struct json_object *o = NULL, *v;
	struct claims_err e;
	struct claim cl;
	int64_t ttl = 0;
	bool have = false;

	if (len > 0) {
		if (!(o = parse_body(body, len, r)))
			return;
		json_object_object_foreach(o, key, val) {
			(void)val;
			if (strcmp(key, "ttl_s") != 0) {
				fail(r, 400, "bad_request", "unknown key \"%.40s\" "
				     "(accepted: ttl_s)", key);
				json_object_put(o);
				return;
			}
		}
		if (json_object_object_get_ex(o, "ttl_s", &v)) {
			if (parse_ttl(v, body, len, claims_cfg(c).max_ttl_s,
				      &ttl, r) < 0) {
				json_object_put(o);
				return;
			}
			have = true;
		}
	}
	answer(c, claims_renew(c, id, uid, have, ttl, &cl, &e), &cl, &e, 200,
	       NULL, r);
	json_object_put(o);
}

/* One event of a claim read now: its times and per-socket counts. */
static struct json_object *event_now_json(const struct pmu *pmu,
					  const struct claim *cl, unsigned e)
{
	const struct evspec *ev = &cl->ev[e];
	const struct unit_type *u = pmu->plat->units[ev->unit];
	bool fr = u->kind == UNIT_FREERUN;
	uint64_t err, run = event_running_ns(pmu, cl, e, &err);
	struct json_object *eo = json_object_new_object();
	struct json_object *socks = json_object_new_array();

	json_object_object_add(eo, "event", json_object_new_string(ev->name));
	json_object_object_add(eo, "unit", json_object_new_string(u->name));
	json_object_object_add(eo, "counter", !fr && cl->ctr[e] >= 0
			       ? json_object_new_int(cl->ctr[e]) : NULL);
	json_object_object_add(eo, "derived", derived_json(pmu->plat, ev));
	json_object_object_add(eo, "time_enabled_ns",
			       json_object_new_uint64(cl->enabled_ns));
	json_object_object_add(eo, "time_running_ns", json_object_new_uint64(run));
	json_object_object_add(eo, "time_running_err_ns",
			       json_object_new_uint64(err));
	json_object_object_add(eo, "time_read_err_ns",
			       json_object_new_uint64(cl->read_err_ns));
	for (unsigned s = 0; s < pmu->topo->nsockets; s++) {
		struct json_object *so = json_object_new_object();
		uint64_t raw = 0, est = 0, srun;
		unsigned boxes = 0;

		for (unsigned k = 0; k < cl->ns; k++)
			if (cl->ser[k].ev == e && cl->ser[k].socket == s) {
				raw += cl->ser[k].raw;
				est += cl->ser[k].est;
				boxes++;
			}
		srun = socket_running_ns(pmu, cl, e, s, run);
		json_object_object_add(so, "socket", json_object_new_int((int)s));
		/* the boxes counted (a formula's #N) */
		json_object_object_add(so, "boxes", json_object_new_int((int)boxes));
		json_object_object_add(so, "count", json_object_new_uint64(raw));
		json_object_object_add(so, "time_running_ns",
				       json_object_new_uint64(srun));
		json_object_object_add(so, "scaled", srun ? json_object_new_double(
			(double)raw * (double)cl->enabled_ns / (double)srun) : NULL);
		json_object_object_add(so, "estimate", json_object_new_uint64(est));
		json_object_array_add(socks, so);
	}
	json_object_object_add(eo, "sockets", socks);
	return eo;
}

void api_claims_now(struct claims *c, const char *id, uid_t uid,
		    struct claims_reply *r)
{
	const struct pmu *pmu = claims_pmu(c);
	struct claims_err e;
	struct claim cl;
	struct json_object *o, *evs;

	if (claims_read_now(c, id, uid, &cl, &e) < 0) {
		refused(r, &e);
		return;
	}
	o = json_object_new_object();
	evs = json_object_new_array();
	json_object_object_add(o, "id", json_object_new_string(cl.id));
	json_object_object_add(o, "state", json_object_new_string(
		cl.running ? "running" : "waiting"));
	json_object_object_add(o, "label", json_object_new_string(cl.label));
	json_object_object_add(o, "pinned", json_object_new_boolean(cl.pinned));
	json_object_object_add(o, "expires_at", iso_time(cl.expires_real));
	json_object_object_add(o, "time_enabled_s",
			       json_object_new_double((double)cl.enabled_ns / 1e9));
	json_object_object_add(o, "time_running_s",
			       json_object_new_double((double)cl.running_ns / 1e9));
	json_object_object_add(o, "time_enabled_ns",
			       json_object_new_uint64(cl.enabled_ns));
	json_object_object_add(o, "time_running_ns",
			       json_object_new_uint64(cl.running_ns));
	json_object_object_add(o, "time_running_err_ns",
			       json_object_new_uint64(cl.running_err_ns));
	json_object_object_add(o, "time_read_err_ns",
			       json_object_new_uint64(cl.read_err_ns));
	for (unsigned e2 = 0; e2 < cl.nev; e2++)
		json_object_array_add(evs, event_now_json(pmu, &cl, e2));
	json_object_object_add(o, "events", evs);
	json_object_object_add(o, "formulas", formulas_json(pmu, &cl));
	claim_clear(&cl);
	r->status = 200;
	r->body = o;
}

void api_claims_release(struct claims *c, const char *id, uid_t uid,
			struct claims_reply *r)
{
	struct claims_err e;
	struct claim cl;

	answer(c, claims_release(c, id, uid, &cl, &e), &cl, &e, 200,
	       "released", r);
}
