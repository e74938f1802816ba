/*
 * claims.c - the claims table: leases, limits, owners, and the JSON of
 * the claim routes (see claims.h).
 *
 * Every field of every claim is guarded by the table lock; the sampler
 * takes it for the part of a tick that expires, schedules and accounts
 * claims, and the HTTP handlers take it for a lookup and a JSON render.
 * A released or expired claim is marked gone and freed under the lock by
 * the next create or tick; the next tick stops programming its counters.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "claims.h"
#include "log.h"
#include "metrics.h"

#define CLAIMS_MAX 10000
#define JSON_DEPTH 8

struct claims {
	pthread_mutex_t lock;
	const struct pmu *pmu;
	struct claims_cfg cfg;
	struct claim **v;
	unsigned n, cap;
	uint64_t next_id;
	uint64_t created, expired, released;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double real_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

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

struct claims *claims_new(const struct pmu *pmu, const struct claims_cfg *cfg)
{
	struct claims *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	c->pmu = pmu;
	c->cfg = *cfg;
	c->next_id = 1;
	return c;
}

static void claim_free(struct claim *cl)
{
	if (!cl)
		return;
	free(cl->g.slot);
	free(cl->g.sev);
	free(cl->g.gs);
	free(cl);
}

void claims_free(struct claims *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->n; i++)
		claim_free(c->v[i]);
	free(c->v);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

void claims_set_cfg(struct claims *c, const struct claims_cfg *cfg)
{
	pthread_mutex_lock(&c->lock);
	c->cfg = *cfg;
	pthread_mutex_unlock(&c->lock);
}

/* The longest interval cl's counters allow, and its first such event. */
static unsigned claim_max_interval_ms(const struct claims *c,
				      const struct claim *cl, unsigned *ev)
{
	unsigned best = UINT_MAX;

	for (unsigned e = 0; e < cl->nev; e++) {
		unsigned m = evspec_max_interval_ms(c->pmu->plat, &cl->ev[e]);

		if (m < best) {
			best = m;
			*ev = e;
		}
	}
	return best;
}

unsigned claims_max_interval_ms(struct claims *c, char *id)
{
	unsigned best = UINT_MAX, ev;

	id[0] = '\0';
	pthread_mutex_lock(&c->lock);
	for (unsigned i = 0; i < c->n; i++) {
		unsigned m;

		if (c->v[i]->gone)
			continue;
		m = claim_max_interval_ms(c, c->v[i], &ev);
		if (m < best) {
			best = m;
			snprintf(id, CLAIM_ID_MAX, "%s", c->v[i]->id);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return best;
}

void claims_lock(struct claims *c)
{
	pthread_mutex_lock(&c->lock);
}

void claims_unlock(struct claims *c)
{
	pthread_mutex_unlock(&c->lock);
}

/* Under the lock: frees the released and expired claims.  The sampler
 * holds no claim between ticks (it takes the lock for the whole part of
 * a tick that uses them), so a gone claim can go at once: its counters
 * are cleared when the next tick programs the live groups. */
static void reap(struct claims *c)
{
	unsigned k = 0;

	for (unsigned i = 0; i < c->n; i++) {
		if (c->v[i]->gone)
			claim_free(c->v[i]);
		else
			c->v[k++] = c->v[i];
	}
	c->n = k;
}

unsigned claims_live(struct claims *c, uint64_t now, struct claim **v,
		     unsigned max)
{
	unsigned m = 0;

	for (unsigned i = 0; i < c->n; i++) {
		struct claim *cl = c->v[i];

		if (!cl->gone && now >= cl->expires_mono) {
			log_info("claim %s (uid %u, \"%s\") expired", cl->id,
				 (unsigned)cl->uid, cl->label);
			cl->gone = true;
			c->expired++;
		}
	}
	reap(c);
	for (unsigned i = 0; i < c->n && m < max; i++)
		v[m++] = c->v[i];
	return m;
}

static struct claim *find(struct claims *c, const char *id)
{
	for (unsigned i = 0; i < c->n; i++)
		if (!c->v[i]->gone && strcmp(c->v[i]->id, id) == 0)
			return c->v[i];
	return NULL;
}

/* ---- JSON of a claim --------------------------------------------------- */

static struct json_object *claim_json(const struct claims *c,
				      const struct claim *cl, const char *state)
{
	const struct platform *pl = c->pmu->plat;
	const struct topology *t = c->pmu->topo;
	struct json_object *o = json_object_new_object();
	struct json_object *evs = json_object_new_array();
	double en = (double)cl->g.enabled_ns / 1e9;
	double run = (double)cl->g.running_ns / 1e9;
	double rem = (double)(int64_t)(cl->expires_mono - mono_ns()) / 1e9;

	json_object_object_add(o, "id", json_object_new_string(cl->id));
	json_object_object_add(o, "state", json_object_new_string(
		state ? state : cl->g.sg.selected ? "running" : "waiting"));
	json_object_object_add(o, "uid", json_object_new_int((int)cl->uid));
	json_object_object_add(o, "pid", json_object_new_int((int)cl->pid));
	json_object_object_add(o, "label", json_object_new_string(cl->label));
	json_object_object_add(o, "export", json_object_new_boolean(cl->export));
	json_object_object_add(o, "ttl_s", json_object_new_int((int)cl->ttl_s));
	json_object_object_add(o, "created_at", iso_time(cl->created_real));
	json_object_object_add(o, "expires_at", iso_time(real_s() + (rem > 0 ? rem : 0)));
	json_object_object_add(o, "time_enabled_s", json_object_new_double(en));
	json_object_object_add(o, "time_running_s", json_object_new_double(run));
	for (unsigned e = 0; e < cl->nev; e++) {
		const struct evspec *ev = &cl->ev[e];
		const struct unit_type *u = pl->units[ev->unit];
		struct json_object *eo = json_object_new_object();
		struct json_object *socks = json_object_new_array();

		json_object_object_add(eo, "event", json_object_new_string(ev->name));
		json_object_object_add(eo, "unit", json_object_new_string(u->name));
		json_object_object_add(eo, "counter",
				       u->kind == UNIT_FREERUN ? NULL :
				       cl->g.sg.ctr[e] >= 0
				       ? json_object_new_int(cl->g.sg.ctr[e]) : NULL);
		for (unsigned s = 0; s < t->nsockets; s++) {
			struct json_object *so = json_object_new_object();
			struct json_object *insts = json_object_new_array();
			uint64_t raw = 0, est = 0;

			for (unsigned k = 0; k < cl->g.ns; k++) {
				const struct pmu_slot *sl = &cl->g.slot[k];
				struct json_object *io;

				if (cl->g.sev[k] != (int)e || sl->socket != s)
					continue;
				raw += cl->g.gs[k].raw;
				est += cl->g.gs[k].est;
				io = json_object_new_object();
				json_object_object_add(io, "instance",
						       json_object_new_int(sl->inst));
				json_object_object_add(io, "count",
						       json_object_new_uint64(cl->g.gs[k].raw));
				json_object_array_add(insts, io);
			}
			json_object_object_add(so, "socket", json_object_new_int((int)s));
			json_object_object_add(so, "count", json_object_new_uint64(raw));
			/* perf-style estimate: count x enabled / running; free-running
			 * counters always run */
			json_object_object_add(so, "scaled",
				u->kind == UNIT_FREERUN ? json_object_new_uint64(raw) :
				cl->g.running_ns
				? json_object_new_double((double)raw *
							 (double)cl->g.enabled_ns /
							 (double)cl->g.running_ns)
				: NULL);
			json_object_object_add(so, "estimate", json_object_new_uint64(est));
			json_object_object_add(so, "instances", insts);
			json_object_array_add(socks, so);
		}
		json_object_object_add(eo, "sockets", socks);
		json_object_array_add(evs, eo);
	}
	json_object_object_add(o, "events", evs);
	return o;
}

/* ---- requests ------------------------------------------------------- */

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

		while (off < len && strchr(" \t\r\n", body[off]))
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
	return o;
}

/* An integer TTL in 1..max; -1 after a 400. */
static long parse_ttl(struct json_object *v, unsigned max, struct claims_reply *r)
{
	int64_t t;

	if (!json_object_is_type(v, json_type_int)) {
		fail(r, 400, "bad_request", "ttl_s must be an integer number of "
		     "seconds in 1..%u", max);
		return -1;
	}
	errno = 0;
	t = json_object_get_int64(v);
	if (errno || t < 1 || t > (int64_t)max) {
		fail(r, 400, "bad_request", "ttl_s %" PRId64 " is out of range "
		     "(1..%u)", t, max);
		return -1;
	}
	return (long)t;
}

static unsigned count_uid(const struct claims *c, uid_t uid)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->n; i++)
		n += !c->v[i]->gone && c->v[i]->uid == uid;
	return n;
}

static unsigned count_live(const struct claims *c)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->n; i++)
		n += !c->v[i]->gone;
	return n;
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

/* Builds the claim's series: every instance of every event's unit on
 * every socket. */
static int build_group(struct claims *c, struct claim *cl)
{
	const struct topology *t = c->pmu->topo;
	unsigned ns = 0;

	for (unsigned e = 0; e < cl->nev; e++)
		for (unsigned s = 0; s < t->nsockets; s++)
			ns += t->sock[s].ninst[cl->ev[e].unit];
	cl->g.slot = calloc(ns + 1, sizeof(*cl->g.slot));
	cl->g.sev = calloc(ns + 1, sizeof(*cl->g.sev));
	cl->g.gs = calloc(ns + 1, sizeof(*cl->g.gs));
	if (!cl->g.slot || !cl->g.sev || !cl->g.gs)
		return -ENOMEM;
	for (unsigned e = 0; e < cl->nev; e++)
		for (unsigned s = 0; s < t->nsockets; s++)
			for (unsigned i = 0; i < t->sock[s].ninst[cl->ev[e].unit]; i++) {
				struct pmu_slot *sl = &cl->g.slot[cl->g.ns];

				if (!topo_present(&t->sock[s],
						  (unsigned)cl->ev[e].unit, i) ||
				    !evspec_on(&cl->ev[e], i))
					continue;

				sl->socket = (uint8_t)s;
				sl->unit = (int8_t)cl->ev[e].unit;
				sl->inst = (uint8_t)i;
				sl->freerun = c->pmu->plat->units[cl->ev[e].unit]->kind
					      == UNIT_FREERUN;
				cl->g.sev[cl->g.ns++] = (int)e;
			}
	cl->g.ev = cl->ev;
	cl->g.nev = cl->nev;
	cl->g.sg = (struct sched_group){ .ev = cl->ev, .nev = cl->nev,
					 .fixed = false, .order = c->next_id };
	for (unsigned e = 0; e < SCHED_MAX_EVENTS; e++)
		cl->g.sg.ctr[e] = -1;
	return 0;
}

void claims_create(struct claims *c, uid_t uid, pid_t pid, const char *body,
		   size_t len, struct claims_reply *r)
{
	static const char *const keys[] = { "events", "ttl_s", "label", "export" };
	struct json_object *o = parse_body(body, len, r), *v, *evs;
	struct claim *cl = NULL;
	int ctr[CLAIM_MAX_EVENTS];
	char why[256];
	const char *bad;
	long ttl;
	size_t n;
	int err;

	if (!o)
		return;
	cl = calloc(1, sizeof(*cl));
	if (!cl) {
		fail(r, 500, "internal", "out of memory");
		goto out;
	}
	json_object_object_foreach(o, key, val) {
		bool known = false;

		(void)val;
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			known |= strcmp(key, keys[k]) == 0;
		if (!known) {
			fail(r, 400, "bad_request", "unknown key \"%.40s\" (accepted: "
			     "events, ttl_s, label, export)", key);
			goto out;
		}
	}
	if (!json_object_object_get_ex(o, "events", &evs) ||
	    !json_object_is_type(evs, json_type_array) ||
	    (n = json_object_array_length(evs)) < 1 || n > CLAIM_MAX_EVENTS) {
		fail(r, 400, "bad_request", "events must be an array of 1 to %d "
		     "event names", CLAIM_MAX_EVENTS);
		goto out;
	}
	pthread_mutex_lock(&c->lock);
	ttl = c->cfg.default_ttl_s;
	if (json_object_object_get_ex(o, "ttl_s", &v) &&
	    (ttl = parse_ttl(v, c->cfg.max_ttl_s, r)) < 0)
		goto unlock;
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(evs, i);

		if (!json_object_is_type(e, json_type_string)) {
			fail(r, 400, "bad_request", "events[%zu] must be a string", i);
			goto unlock;
		}
		if ((bad = text_problem(json_object_get_string(e),
					(size_t)json_object_get_string_len(e),
					why, sizeof(why)))) {
			fail(r, 400, "bad_request", "events[%zu] contains %s", i,
			     bad);
			goto unlock;
		}
		err = sched_resolve(c->pmu->plat, json_object_get_string(e),
				    c->cfg.allow_raw_events, &cl->ev[i], why,
				    sizeof(why));
		if (err == -EPERM) {
			fail(r, 403, "raw_events_disabled", "events[%zu]: %s", i, why);
			goto unlock;
		}
		if (err < 0) {
			fail(r, 400, "unknown_event", "events[%zu]: %s", i, why);
			goto unlock;
		}
		for (size_t k = 0; k < i; k++)
			if (strcmp(cl->ev[k].name, cl->ev[i].name) == 0) {
				fail(r, 400, "bad_request", "events[%zu]: %s is "
				     "listed twice", i, cl->ev[i].name);
				goto unlock;
			}
	}
	cl->nev = (unsigned)n;
	if (json_object_object_get_ex(o, "label", &v)) {
		const char *l = json_object_get_string(v);

		if (!json_object_is_type(v, json_type_string) ||
		    json_object_get_string_len(v) >= CLAIM_LABEL_MAX) {
			fail(r, 400, "bad_request", "label must be a string of at "
			     "most %d bytes", CLAIM_LABEL_MAX - 1);
			goto unlock;
		}
		if ((bad = text_problem(l, (size_t)json_object_get_string_len(v),
					why, sizeof(why)))) {
			fail(r, 400, "bad_request", "label contains %s (labels "
			     "are printable UTF-8 text)", bad);
			goto unlock;
		}
		snprintf(cl->label, sizeof(cl->label), "%s", l);
	}
	if (json_object_object_get_ex(o, "export", &v)) {
		if (!json_object_is_type(v, json_type_boolean)) {
			fail(r, 400, "bad_request", "export must be true or false");
			goto unlock;
		}
		cl->export = json_object_get_boolean(v);
	}
	{
		unsigned ev = 0, max = claim_max_interval_ms(c, cl, &ev);

		if (c->cfg.interval_ms > max) {
			fail(r, 409, "interval_too_long", "events[%u]: %s counts "
			     "on a counter that can wrap twice within the "
			     "sampling interval (%u ms; at most %u ms for this "
			     "event): its counts would be lost", ev,
			     cl->ev[ev].name, c->cfg.interval_ms, max);
			goto unlock;
		}
	}
	if (sched_place(c->pmu->plat, cl->ev, cl->nev, NULL, ctr, why,
			sizeof(why)) < 0) {
		fail(r, 409, "cannot_schedule", "these events can never count "
		     "together: %s", why);
		goto unlock;
	}
	if (count_uid(c, uid) >= c->cfg.max_per_uid) {
		fail(r, 429, "too_many_claims", "uid %u holds %u claims, the "
		     "limit (max_per_uid)", (unsigned)uid, count_uid(c, uid));
		goto unlock;
	}
	/* only live claims count: released ones go now, not at the next
	 * tick (a long interval would let churn fill the table) */
	reap(c);
	if (count_live(c) >= c->cfg.max_total || c->n >= CLAIMS_MAX) {
		fail(r, 429, "too_many_claims", "the daemon holds %u claims, the "
		     "limit (max_total)", count_live(c));
		goto unlock;
	}
	if (c->n == c->cap) {
		unsigned nc = c->cap ? c->cap * 2 : 16;
		struct claim **nv = realloc(c->v, nc * sizeof(*nv));

		if (!nv) {
			fail(r, 500, "internal", "out of memory");
			goto unlock;
		}
		c->v = nv;
		c->cap = nc;
	}
	if (build_group(c, cl) < 0) {
		fail(r, 500, "internal", "out of memory");
		goto unlock;
	}
	snprintf(cl->id, sizeof(cl->id), "c%" PRIu64, c->next_id++);
	cl->uid = uid;
	cl->pid = pid;
	cl->ttl_s = (unsigned)ttl;
	cl->created_mono = mono_ns();
	cl->expires_mono = cl->created_mono + (uint64_t)ttl * 1000000000ull;
	cl->created_real = real_s();
	c->v[c->n++] = cl;
	c->created++;
	r->status = 201;
	r->body = claim_json(c, cl, NULL);
	{
		struct json_object *plan = json_object_new_array();

		for (unsigned e = 0; e < cl->nev; e++) {
			struct json_object *po = json_object_new_object();

			json_object_object_add(po, "event", json_object_new_string(cl->ev[e].name));
			json_object_object_add(po, "unit", json_object_new_string(
				c->pmu->plat->units[cl->ev[e].unit]->name));
			json_object_object_add(po, "counter", json_object_new_int(ctr[e]));
			json_object_array_add(plan, po);
		}
		json_object_object_add(r->body, "counters", plan);
	}
	log_info("claim %s created by uid %u pid %d (\"%s\"): %u event%s, ttl "
		 "%ld s", cl->id, (unsigned)uid, (int)pid, cl->label, cl->nev,
		 cl->nev == 1 ? "" : "s", ttl);
	cl = NULL;
unlock:
	pthread_mutex_unlock(&c->lock);
out:
	claim_free(cl);
	json_object_put(o);
}

/* The claim for id if uid may touch it; NULL after a 404/403 (lock held). */
static struct claim *owned(struct claims *c, const char *id, uid_t uid,
			   struct claims_reply *r)
{
	struct claim *cl = find(c, id);

	if (!cl) {
		fail(r, 404, "not_found", "no claim \"%.32s\"", id);
		return NULL;
	}
	if (uid != 0 && uid != cl->uid) {
		fail(r, 403, "forbidden", "claim %s belongs to uid %u", cl->id,
		     (unsigned)cl->uid);
		return NULL;
	}
	return cl;
}

void claims_list(struct claims *c, uid_t uid, struct claims_reply *r)
{
	struct json_object *arr = json_object_new_array();

	pthread_mutex_lock(&c->lock);
	for (unsigned i = 0; i < c->n; i++)
		if (!c->v[i]->gone && (uid == 0 || c->v[i]->uid == uid))
			json_object_array_add(arr, claim_json(c, c->v[i], NULL));
	pthread_mutex_unlock(&c->lock);
	r->status = 200;
	r->body = json_object_new_object();
	json_object_object_add(r->body, "claims", arr);
}

void claims_get(struct claims *c, const char *id, uid_t uid,
		struct claims_reply *r)
{
	struct claim *cl;

	pthread_mutex_lock(&c->lock);
	if ((cl = owned(c, id, uid, r))) {
		r->status = 200;
		r->body = claim_json(c, cl, NULL);
	}
	pthread_mutex_unlock(&c->lock);
}

void claims_renew(struct claims *c, const char *id, uid_t uid,
		  const char *body, size_t len, struct claims_reply *r)
{
	struct json_object *o = NULL, *v;
	struct claim *cl;
	long ttl;

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
	}
	pthread_mutex_lock(&c->lock);
	if (!(cl = owned(c, id, uid, r)))
		goto out;
	ttl = cl->ttl_s;
	if (o && json_object_object_get_ex(o, "ttl_s", &v) &&
	    (ttl = parse_ttl(v, c->cfg.max_ttl_s, r)) < 0)
		goto out;
	cl->ttl_s = (unsigned)ttl;
	cl->expires_mono = mono_ns() + (uint64_t)ttl * 1000000000ull;
	r->status = 200;
	r->body = claim_json(c, cl, NULL);
out:
	pthread_mutex_unlock(&c->lock);
	json_object_put(o);
}

void claims_release(struct claims *c, const char *id, uid_t uid,
		    struct claims_reply *r)
{
	struct claim *cl;

	pthread_mutex_lock(&c->lock);
	if ((cl = owned(c, id, uid, r))) {
		r->status = 200;
		r->body = claim_json(c, cl, "released");
		cl->gone = true;
		c->released++;
		log_info("claim %s released by uid %u", cl->id, (unsigned)uid);
	}
	pthread_mutex_unlock(&c->lock);
}

unsigned claims_count(struct claims *c)
{
	unsigned n;

	pthread_mutex_lock(&c->lock);
	n = count_live(c);
	pthread_mutex_unlock(&c->lock);
	return n;
}

void claims_render(struct claims *c, struct prom *w)
{
	bool any = false;

	pthread_mutex_lock(&c->lock);
	prom_family(w, "uncored_claims", PROM_GAUGE, NULL,
		    "Live counter claims.");
	prom_sample_u64(w, NULL, NULL, count_live(c));
	prom_family(w, "uncored_claims_created_total", PROM_COUNTER, NULL,
		    "Counter claims created.");
	prom_sample_u64(w, NULL, NULL, c->created);
	prom_family(w, "uncored_claims_expired_total", PROM_COUNTER, NULL,
		    "Counter claims whose lease ran out.");
	prom_sample_u64(w, NULL, NULL, c->expired);
	for (unsigned i = 0; i < c->n; i++) {
		const struct claim *cl = c->v[i];

		if (cl->gone || !cl->export)
			continue;
		if (!any) {
			prom_family(w, "uncore_claim_events_total", PROM_COUNTER,
				    NULL, "Events counted for claims with export: "
				    "true, summed per socket (scaled for the time "
				    "the claim was multiplexed out).");
			any = true;
		}
		for (unsigned e = 0; e < cl->nev; e++)
			for (unsigned s = 0; s < c->pmu->topo->nsockets; s++) {
				const char *l[] = { "claim", cl->id, "event",
						    cl->ev[e].name, "socket",
						    metrics_num(s), NULL };
				uint64_t est = 0;

				for (unsigned k = 0; k < cl->g.ns; k++)
					if (cl->g.sev[k] == (int)e &&
					    cl->g.slot[k].socket == s)
						est += cl->g.gs[k].est;
				prom_sample_u64(w, NULL, l, est);
			}
	}
	pthread_mutex_unlock(&c->lock);
}

const char *claims_holder(struct claims *c, unsigned socket, int unit,
			  unsigned inst, unsigned idx, char *buf, size_t len)
{
	const char *id = NULL;

	pthread_mutex_lock(&c->lock);
	for (unsigned i = 0; i < c->n && !id; i++) {
		const struct claim *cl = c->v[i];

		if (cl->gone || !cl->g.sg.selected)
			continue;
		for (unsigned k = 0; k < cl->g.ns && !id; k++) {
			const struct pmu_slot *sl = &cl->g.slot[k];

			if (!sl->freerun && sl->socket == socket &&
			    sl->unit == unit && sl->inst == inst && sl->idx == idx)
				id = cl->id;
		}
	}
	if (id)
		snprintf(buf, len, "%s", id);
	pthread_mutex_unlock(&c->lock);
	return id ? buf : NULL;
}
