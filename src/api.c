/*
 * api.c - the HTTP routes of DESIGN.md section 6 (except the claim
 * routes, which live with the arbiter): the index page, /metrics,
 * /healthz and the read-only JSON API.
 *
 * Handlers render from the sampler's current program and its rings; none
 * of them touches hardware.  Query parameters are checked strictly: a bad
 * value is a 400 that says which parameter and what is accepted.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api.h"
#include "api_claims.h"
#include "claims.h"
#include "metrics.h"
#include "ui.h"

#define JSON_CTYPE "application/json"

uint64_t daemon_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void send_json(struct http_resp *resp, struct json_object *o)
{
	resp->ctype = JSON_CTYPE;
	buf_puts(&resp->body, json_object_to_json_string_ext(
				      o, JSON_C_TO_STRING_PLAIN |
					 JSON_C_TO_STRING_NOSLASHESCAPE));
	buf_putc(&resp->body, '\n');
	json_object_put(o);
}

/* A double, or null when it is not a number. */
static struct json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static struct json_object *ju64(uint64_t v)
{
	return json_object_new_uint64(v);
}

/*
 * Parses an unsigned query parameter.  Returns 0 (absent: *v untouched),
 * 1 (set), or -1 after answering 400.
 */
static int query_u64(const struct http_req *req, struct http_resp *resp,
		     const char *name, uint64_t min, uint64_t max, uint64_t *v)
{
	const char *s = http_query(req, name);
	char *end;
	unsigned long long x;

	if (!s)
		return 0;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (!*s || *s == '-' || *s == '+' || *end || errno || x < min ||
	    x > max) {
		http_error(resp, 400, "bad_parameter",
			   "query parameter %s=\"%.64s\": expected an integer "
			   "in %" PRIu64 "..%" PRIu64, name, s, min, max);
		return -1;
	}
	*v = x;
	return 1;
}

/* ---- / and /ui/{file} ------------------------------------------------ */

/*
 * The page loads its script and style sheet from the daemon (ui/page.js,
 * ui/page.css, relative so a reverse proxy may mount it anywhere) rather
 * than inline, so the policy needs no hash to keep in step with the file:
 * nothing but the daemon's own files runs, and the script may talk to the
 * daemon only.
 */
static const char page_csp[] =
	"default-src 'none'; script-src 'self'; style-src 'self'; "
	"img-src 'self'; connect-src 'self'; base-uri 'none'; "
	"form-action 'none'; frame-ancestors 'none'";

static void send_asset(struct http_resp *resp, const char *name)
{
	static const struct { const char *ext, *ctype; } types[] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".svg", "image/svg+xml" },
	};

	for (const struct ui_asset *a = ui_assets; a->name; a++) {
		const char *dot = strrchr(a->name, '.');

		if (strcmp(a->name, name) != 0 || !dot)
			continue;
		for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
			if (strcmp(dot, types[k].ext) == 0)
				resp->ctype = types[k].ctype;
		resp->csp = page_csp;
		buf_put(&resp->body, a->data, a->len);
		return;
	}
	http_error(resp, 404, "not_found", "no page file named \"%.64s\"",
		   name);
}

static void h_index(void *ctx, const struct http_req *req,
		    struct http_resp *resp)
{
	(void)ctx;
	(void)req;
	send_asset(resp, "index.html");
}

static void h_ui(void *ctx, const struct http_req *req,
		 struct http_resp *resp)
{
	(void)ctx;
	send_asset(resp, req->params[0]);
}

/* ---- /metrics ------------------------------------------------------- */

static void h_metrics(void *ctx, const struct http_req *req,
		      struct http_resp *resp)
{
	struct daemon *d = ctx;
	const char *ctype;
	enum prom_fmt fmt = prom_negotiate(http_header(req, "Accept"), &ctype);
	struct program *p = sampler_get(d->sampler);
	struct claims_pub *cp = d->claims ? sampler_claims(d->sampler) : NULL;
	struct metrics_info info = {
		.version = d->version, .revision = d->revision,
		.build_date = d->build_date, .backend = d->backend,
		.scrapes = atomic_fetch_add(&d->scrapes, 1) + 1,
		.interval_ms = sampler_cfg(d->sampler).interval_ms,
		.start_time_s = d->start_time_s,
		.claims = cp,
	};
	int r;

	if (!p) {
		claims_pub_put(cp);
		http_error(resp, 503, "not_ready", "the sampler has not "
			   "started yet");
		return;
	}
	r = metrics_render(&resp->body, fmt, p, &info);
	program_put(p);
	claims_pub_put(cp);
	if (r < 0) {
		buf_reset(&resp->body);
		http_error(resp, 500, "internal", "rendering metrics failed: "
			   "%s", strerror(-r));
		return;
	}
	resp->ctype = ctype;
}

/* ---- /healthz ------------------------------------------------------- */

static void h_healthz(void *ctx, const struct http_req *req,
		      struct http_resp *resp)
{
	struct daemon *d = ctx;
	uint64_t last = sampler_last_tick(d->sampler), now = daemon_mono_ns();
	uint64_t limit = 3ull * sampler_cfg(d->sampler).interval_ms * 1000000ull;
	struct json_object *o;

	(void)req;
	if (!last || now - last > limit) {
		http_error(resp, 503, "stalled", "the sampler has not ticked "
			   "within 3 intervals (last tick %.1f s ago)",
			   last ? (double)(now - last) / 1e9 : -1.0);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "status", json_object_new_string("ok"));
	json_object_object_add(o, "last_tick_age_s",
			       json_object_new_double((double)(now - last) / 1e9));
	send_json(resp, o);
}

/* ---- /api/v1/status ------------------------------------------------- */

static void h_status(void *ctx, const struct http_req *req,
		     struct http_resp *resp)
{
	struct daemon *d = ctx;
	struct program *p = sampler_get(d->sampler);
	struct sampler_cfg cfg = sampler_cfg(d->sampler);
	struct json_object *o = json_object_new_object(), *own;
	struct snap st = { 0 };
	uint64_t *words;

	(void)req;
	if (p && (words = calloc(snap_words(p->ns, p->nvals), sizeof(uint64_t)))) {
		metrics_snapshot(p, words, &st);
		free(words);
	}
	json_object_object_add(o, "version", json_object_new_string(d->version));
	json_object_object_add(o, "revision", json_object_new_string(d->revision));
	json_object_object_add(o, "build_date",
			       json_object_new_string(d->build_date));
	json_object_object_add(o, "platform", json_object_new_string(d->plat->id));
	json_object_object_add(o, "platform_name",
			       json_object_new_string(d->plat->name));
	json_object_object_add(o, "backend", json_object_new_string(d->backend));
	json_object_object_add(o, "interval_ms", json_object_new_int((int)cfg.interval_ms));
	json_object_object_add(o, "uptime_s",
			       json_object_new_double((double)(daemon_mono_ns() -
							       d->start_mono_ns) / 1e9));
	json_object_object_add(o, "started_at", json_object_new_double(d->start_time_s));
	json_object_object_add(o, "ticks", ju64(st.ticks));
	json_object_object_add(o, "overruns", ju64(st.overruns));
	json_object_object_add(o, "interference", ju64(st.interference));
	json_object_object_add(o, "invalid_samples", ju64(st.invalid_samples));
	json_object_object_add(o, "hw_reads", ju64(st.hw_reads));
	json_object_object_add(o, "hw_writes", ju64(st.hw_writes));
	json_object_object_add(o, "hw_errors", ju64(st.hw_errors));
	json_object_object_add(o, "claims", json_object_new_int(
				       d->claims ? (int)claims_count(d->claims) : 0));
	own = json_object_new_object();
	json_object_object_add(own, "owned", json_object_new_boolean(p && st.owned));
	json_object_object_add(own, "pid", json_object_new_int((int)d->pid));
	json_object_object_add(own, "policy",
			       json_object_new_string(cfg.policy == POLICY_YIELD
						      ? "yield" : "reclaim"));
	json_object_object_add(own, "took_over", json_object_new_boolean(d->took_over));
	json_object_object_add(own, "recovered_stale",
			       json_object_new_boolean(d->recovered_stale));
	if (d->owner_path[0])
		json_object_object_add(own, "owner_file",
				       json_object_new_string(d->owner_path));
	json_object_object_add(o, "ownership", own);
	if (p) {
		json_object_object_add(o, "ring_capacity",
				       json_object_new_int((int)ring_capacity(p->samples)));
		json_object_object_add(o, "ring_head", ju64(ring_head(p->samples)));
		json_object_object_add(o, "counters_in_use",
				       json_object_new_int((int)p->ns));
	}
	program_put(p);
	send_json(resp, o);
}

/* ---- /api/v1/topology ----------------------------------------------- */

static const char *kind_name(enum unit_kind k)
{
	return k == UNIT_PROG ? "programmable" :
	       k == UNIT_FIXED ? "fixed" : "free-running";
}

/* The event held by counter idx of (socket, unit, inst), or NULL. */
static const char *holder_event(const struct program *p, unsigned sock,
				int unit, unsigned inst, unsigned idx)
{
	for (unsigned i = 0; p && i < p->ns; i++)
		if (p->slot[i].socket == sock && p->slot[i].unit == unit &&
		    p->slot[i].inst == inst && p->slot[i].idx == idx)
			return p->ev[p->sev[i]].name;
	return NULL;
}

/*
 * Is a box that discovery found failing now (a device_missing fault, a
 * function gone from PCI)?  True when the baseline counts on it and the
 * last read of every one of its series failed.
 */
static bool box_failing(const struct program *p, const uint64_t *words,
			unsigned s, int ui, unsigned in)
{
	bool any = false;

	if (!p || !words)
		return false;
	for (unsigned i = 0; i < p->ns; i++) {
		if (p->slot[i].socket != s || p->slot[i].unit != ui ||
		    p->slot[i].inst != in)
			continue;
		if (words[SNAP_WORDS + p->ns + i])
			return false;	/* up */
		any = true;
	}
	return any;
}

static void h_topology(void *ctx, const struct http_req *req,
		       struct http_resp *resp)
{
	struct daemon *d = ctx;
	struct program *p = sampler_get(d->sampler);
	struct json_object *o = json_object_new_object();
	struct json_object *socks = json_object_new_array();
	uint64_t *words = p ? calloc(snap_words(p->ns, p->nvals), sizeof(uint64_t)) : NULL;
	struct snap st;

	(void)req;
	if (words && metrics_snapshot(p, words, &st) < 0) {
		free(words);
		words = NULL;
	}
	json_object_object_add(o, "platform", json_object_new_string(d->plat->id));
	for (unsigned s = 0; s < d->topo.nsockets; s++) {
		const struct topo_socket *ts = &d->topo.sock[s];
		struct json_object *so = json_object_new_object();
		struct json_object *units = json_object_new_array();

		json_object_object_add(so, "socket", json_object_new_int((int)s));
		json_object_object_add(so, "cpu", json_object_new_int((int)ts->cpu));
		for (int ui = 0; d->plat->units[ui]; ui++) {
			const struct unit_type *u = d->plat->units[ui];
			struct json_object *uo = json_object_new_object();
			struct json_object *insts = json_object_new_array();
			unsigned nc = u->kind == UNIT_FREERUN ? u->nfreerun : u->nctr;

			json_object_object_add(uo, "unit", json_object_new_string(u->name));
			json_object_object_add(uo, "description", json_object_new_string(u->desc));
			json_object_object_add(uo, "kind", json_object_new_string(kind_name(u->kind)));
			json_object_object_add(uo, "instances", json_object_new_int((int)ts->ninst[ui]));
			for (unsigned in = 0; in < ts->ninst[ui]; in++) {
				struct json_object *io = json_object_new_object();
				struct json_object *ctrs = json_object_new_array();

				json_object_object_add(io, "instance", json_object_new_int((int)in));
				/* a box discovery did not find (hsx: its PCI
				 * function is missing), or one whose reads all
				 * fail now, is unavailable */
				json_object_object_add(io, "available",
						       json_object_new_boolean(
							       topo_present(ts, (unsigned)ui, in) &&
							       !box_failing(p, words, s, ui, in)));
				for (unsigned c = 0; c < nc; c++) {
					struct json_object *co = json_object_new_object();
					const char *ev = holder_event(p, s, ui, in, c);
					char idb[CLAIM_ID_MAX];
					const char *holder = u->kind == UNIT_PROG && d->claims
						? claims_holder(d->claims, s, ui, in, c, idb, sizeof(idb))
						: NULL;

					json_object_object_add(co, "index", json_object_new_int((int)c));
					if (u->kind == UNIT_FREERUN)
						json_object_object_add(co, "name",
								       json_object_new_string(u->freerun[c].name));
					json_object_object_add(co, "width",
							       json_object_new_int(u->kind == UNIT_FREERUN
										   ? u->freerun[c].width
										   : u->width));
					json_object_object_add(co, "holder",
							       holder ? json_object_new_string(holder)
							       : ev ? json_object_new_string("baseline") : NULL);
					json_object_object_add(co, "event",
							       !holder && ev ? json_object_new_string(ev) : NULL);
					json_object_array_add(ctrs, co);
				}
				json_object_object_add(io, "counters", ctrs);
				json_object_array_add(insts, io);
			}
			json_object_object_add(uo, "instance_list", insts);
			json_object_array_add(units, uo);
		}
		json_object_object_add(so, "units", units);
		json_object_array_add(socks, so);
	}
	json_object_object_add(o, "sockets", socks);
	free(words);
	program_put(p);
	send_json(resp, o);
}

/* ---- /api/v1/events ------------------------------------------------- */

static void h_events(void *ctx, const struct http_req *req,
		     struct http_resp *resp)
{
	struct daemon *d = ctx;
	const char *unit = http_query(req, "unit"), *q = http_query(req, "q");
	struct json_object *arr, *o;

	if (unit && !plat_unit(d->plat, unit, NULL)) {
		char names[256] = "";

		for (int ui = 0; d->plat->units[ui]; ui++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names),
				 "%s%s", ui ? ", " : "", d->plat->units[ui]->name);
		http_error(resp, 400, "bad_parameter", "unknown unit \"%.32s\": "
			   "this platform has %s", unit, names);
		return;
	}
	if (q && strlen(q) > 128) {
		http_error(resp, 400, "bad_parameter", "q is longer than 128 "
			   "characters");
		return;
	}
	arr = json_object_new_array();
	for (size_t i = 0; i < d->plat->nevents; i++) {
		const struct event *ev = &d->plat->events[i];
		struct json_object *e, *ctrs;

		if (unit && strcmp(ev->unit, unit) != 0)
			continue;
		if (q && !strcasestr(ev->name, q) && !strcasestr(ev->desc, q))
			continue;
		e = json_object_new_object();
		json_object_object_add(e, "name", json_object_new_string(ev->name));
		json_object_object_add(e, "unit", json_object_new_string(ev->unit));
		json_object_object_add(e, "code", json_object_new_int(ev->code));
		json_object_object_add(e, "umask", json_object_new_int(ev->umask));
		if (ev->thresh)
			json_object_object_add(e, "thresh", json_object_new_int(ev->thresh));
		if (ev->edge)
			json_object_object_add(e, "edge", json_object_new_boolean(1));
		if (ev->inv)
			json_object_object_add(e, "inv", json_object_new_boolean(1));
		if (ev->ev_sel_ext)
			json_object_object_add(e, "ev_sel_ext", json_object_new_boolean(1));
		if (ev->filter)
			json_object_object_add(e, "filter", json_object_new_string(ev->filter));
		ctrs = json_object_new_array();
		for (unsigned c = 0; c < 8; c++)
			if (ev->ctr_mask >> c & 1)
				json_object_array_add(ctrs, json_object_new_int((int)c));
		json_object_object_add(e, "counters", ctrs);
		json_object_object_add(e, "description", json_object_new_string(ev->desc));
		json_object_object_add(e, "source", json_object_new_string(ev->source));
		json_object_array_add(arr, e);
	}
	o = json_object_new_object();
	json_object_object_add(o, "platform", json_object_new_string(d->plat->id));
	json_object_object_add(o, "events", arr);
	send_json(resp, o);
}

/* ---- /api/v1/samples ------------------------------------------------ */

/*
 * The derived values vals (a plan's layout) of socket sk that the program
 * produces, as members of so under their JSON keys: gauges (null when the
 * interval has no value) and, unless gauges_only, counters.  Per-instance
 * values go in an array per label, "channels": [{"channel": 0, ...}].
 * The same table /metrics renders (plat.h).
 */
static void add_derived(struct json_object *so, const struct program *p,
			unsigned sk, const double *vals, bool gauges_only)
{
	const struct derive_plan *dp = p->dplan;
	const struct derived_table *tab = derive_table(dp);

	for (size_t m = 0; m < tab->nm; m++) {
		const struct derived_metric *dm = &tab->m[m];
		unsigned i = derive_index(dp, m, sk, 0);
		bool first = true;
		struct json_object *arr;
		char an[64];

		if (gauges_only && dm->type != DM_GAUGE)
			continue;
		if (!dm->per) {
			if (derive_live(dp, i))
				json_object_object_add(so, dm->json,
					dm->type == DM_COUNTER
					? ju64((uint64_t)(vals[i] + 0.5))
					: jnum(vals[i]));
			continue;
		}
		/* per-instance: the first metric of a label builds its array */
		for (size_t o = 0; o < m && first; o++)
			first = !tab->m[o].per || strcmp(tab->m[o].per, dm->per) ||
				(gauges_only && tab->m[o].type != DM_GAUGE);
		if (!first)
			continue;
		arr = json_object_new_array();
		for (unsigned in = 0; in < derive_nper(dp, m); in++) {
			struct json_object *io = NULL;

			for (size_t k = m; k < tab->nm; k++) {
				const struct derived_metric *x = &tab->m[k];
				unsigned j;

				if (!x->per || strcmp(x->per, dm->per) ||
				    (gauges_only && x->type != DM_GAUGE) ||
				    in >= derive_nper(dp, k) ||
				    !derive_live(dp, j = derive_index(dp, k, sk, in)))
					continue;
				if (!io) {
					io = json_object_new_object();
					json_object_object_add(io, dm->per,
						json_object_new_int((int)in));
				}
				json_object_object_add(io, x->json,
					x->type == DM_COUNTER
					? ju64((uint64_t)(vals[j] + 0.5))
					: jnum(vals[j]));
			}
			if (io)
				json_object_array_add(arr, io);
		}
		snprintf(an, sizeof(an), "%ss", dm->per);
		if (json_object_array_length(arr))
			json_object_object_add(so, an, arr);
		else
			json_object_put(arr);
	}
}

/* The derived gauges of one sample, per socket; g: nvals doubles and
 * scratch derive_scratch_size() bytes, for the caller to reuse. */
static struct json_object *sample_sockets(const struct program *p,
					  const uint64_t *w, double *g,
					  void *scratch)
{
	const uint64_t *delta = w + SW_HDR, *inv = delta + p->ns;
	double secs = (double)w[SW_INTERVAL_NS] / 1e9;
	struct json_object *arr = json_object_new_array();

	derive_gauges(p->dplan, delta, inv, w[SW_FLAGS] & SF_FIRST ? 0 : secs,
		      g, scratch);
	for (unsigned sk = 0; sk < p->topo->nsockets; sk++) {
		struct json_object *so = json_object_new_object();

		json_object_object_add(so, "socket", json_object_new_int((int)sk));
		add_derived(so, p, sk, g, true);
		json_object_array_add(arr, so);
	}
	return arr;
}

static struct json_object *sample_json(const struct program *p,
				       uint64_t seq, const uint64_t *w,
				       bool with_deltas, double *g,
				       void *scratch)
{
	struct json_object *o = json_object_new_object();
	struct json_object *arr;
	const uint64_t *delta = w + SW_HDR, *inv = delta + p->ns;
	uint64_t f = w[SW_FLAGS];

	json_object_object_add(o, "seq", ju64(seq));
	json_object_object_add(o, "time", json_object_new_double((double)w[SW_T_NS] / 1e9));
	json_object_object_add(o, "interval_s",
			       json_object_new_double((double)w[SW_INTERVAL_NS] / 1e9));
	json_object_object_add(o, "valid", json_object_new_boolean(f & SF_VALID));
	if (f & SF_INTERFERENCE)
		json_object_object_add(o, "interference", json_object_new_boolean(1));
	if (f & SF_FIRST)
		json_object_object_add(o, "first", json_object_new_boolean(1));
	if (f & SF_MUX)
		json_object_object_add(o, "multiplexed", json_object_new_boolean(1));
	json_object_object_add(o, "sockets", sample_sockets(p, w, g, scratch));
	if (!with_deltas)
		return o;
	arr = json_object_new_array();
	for (unsigned i = 0; i < p->ns; i++) {
		const struct pmu_slot *s = &p->slot[i];
		struct json_object *e = json_object_new_object();
		bool ok = !(inv[i / 64] >> (i % 64) & 1);

		json_object_object_add(e, "socket", json_object_new_int(s->socket));
		json_object_object_add(e, "unit",
				       json_object_new_string(p->plat->units[s->unit]->name));
		json_object_object_add(e, "instance", json_object_new_int(s->inst));
		json_object_object_add(e, "event",
				       json_object_new_string(p->ev[p->sev[i]].name));
		json_object_object_add(e, "delta", ok ? ju64(delta[i]) : NULL);
		json_object_object_add(e, "valid", json_object_new_boolean(ok));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "deltas", arr);
	return o;
}

static void h_samples(void *ctx, const struct http_req *req,
		      struct http_resp *resp)
{
	struct daemon *d = ctx;
	struct program *p = sampler_get(d->sampler);
	uint64_t since = 0, limit = 60, deltas = 1, head, tail, *w;
	struct json_object *o, *arr;
	double *g;
	void *scratch;
	unsigned cap;

	if (!p) {
		http_error(resp, 503, "not_ready", "the sampler has not started");
		return;
	}
	cap = ring_capacity(p->samples);
	if (query_u64(req, resp, "since", 0, UINT64_MAX / 2, &since) < 0 ||
	    query_u64(req, resp, "limit", 1, cap, &limit) < 0 ||
	    query_u64(req, resp, "deltas", 0, 1, &deltas) < 0) {
		program_put(p);
		return;
	}
	w = calloc(sample_words(p->ns), sizeof(uint64_t));
	g = calloc(p->nvals + 1, sizeof(double));
	scratch = malloc(derive_scratch_size(p->dplan));
	if (!w || !g || !scratch) {
		free(w);
		free(g);
		free(scratch);
		program_put(p);
		http_error(resp, 500, "internal", "out of memory");
		return;
	}
	head = ring_head(p->samples);
	tail = ring_tail(p->samples);
	o = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(o, "head", ju64(head));
	json_object_object_add(o, "tail", ju64(tail));
	/* Oldest first: the `limit` samples after `since` (or the newest
	 * `limit` without since). */
	{
		uint64_t first = http_query(req, "since") ? since + 1
			       : (head >= limit ? head - limit + 1 : 1);

		if (tail && first < tail) {
			if (http_query(req, "since"))
				json_object_object_add(o, "missed", ju64(tail - first));
			first = tail;
		}
		for (uint64_t seq = first; head && seq <= head &&
		     seq < first + limit; seq++) {
			int r = ring_read(p->samples, seq, w);

			if (r == -EAGAIN)
				r = ring_read(p->samples, seq, w);
			if (r == 0)
				json_object_array_add(arr, sample_json(p, seq, w,
								       deltas, g,
								       scratch));
		}
	}
	json_object_object_add(o, "samples", arr);
	free(w);
	free(g);
	free(scratch);
	program_put(p);
	send_json(resp, o);
}

/* ---- /api/v1/metrics ------------------------------------------------ */

static void h_api_metrics(void *ctx, const struct http_req *req,
			  struct http_resp *resp)
{
	struct daemon *d = ctx;
	struct program *p = sampler_get(d->sampler);
	struct json_object *o, *socks;
	struct snap st;
	uint64_t *words = NULL;
	double *vals = NULL;

	(void)req;
	if (!p || !(words = calloc(snap_words(p->ns, p->nvals),
				   sizeof(uint64_t))) ||
	    !(vals = calloc(p->nvals + 1, sizeof(double))) ||
	    metrics_snapshot(p, words, &st) < 0) {
		free(words);
		free(vals);
		program_put(p);
		http_error(resp, 503, "not_ready", "no sample yet");
		return;
	}
	metrics_values(p, words, vals);
	o = json_object_new_object();
	json_object_object_add(o, "seq", ju64(st.sample_seq));
	json_object_object_add(o, "time", json_object_new_double((double)st.t_ns / 1e9));
	socks = json_object_new_array();
	for (unsigned s = 0; s < p->topo->nsockets; s++) {
		struct json_object *so = json_object_new_object();

		json_object_object_add(so, "socket", json_object_new_int((int)s));
		add_derived(so, p, s, vals, false);
		json_object_array_add(socks, so);
	}
	json_object_object_add(o, "sockets", socks);
	free(words);
	free(vals);
	program_put(p);
	send_json(resp, o);
}

/* ---- /api/v1/claims ------------------------------------------------- */

static void reply(struct http_resp *resp, struct claims_reply *r)
{
	if (r->body) {
		resp->status = r->status;
		send_json(resp, r->body);
	} else {
		http_error(resp, r->status, r->code, "%s", r->msg);
	}
}

static uid_t peer_uid(const struct http_req *req)
{
	/* Claim routes are control-socket only, where SO_PEERCRED is known;
	 * without it nobody is root. */
	return req->have_peer ? req->uid : (uid_t)-1;
}

static void h_claims(void *ctx, const struct http_req *req,
		     struct http_resp *resp)
{
	struct daemon *d = ctx;
	struct claims_reply r = { 0 };

	if (req->method == HTTP_POST)
		api_claims_create(d->claims, peer_uid(req), req->pid, req->body,
			      req->body_len, &r);
	else
		api_claims_list(d->claims, peer_uid(req), &r);
	reply(resp, &r);
}

static void h_claim(void *ctx, const struct http_req *req,
		    struct http_resp *resp)
{
	struct daemon *d = ctx;
	struct claims_reply r = { 0 };

	if (req->method == HTTP_DELETE)
		api_claims_release(d->claims, req->params[0], peer_uid(req), &r);
	else
		api_claims_get(d->claims, req->params[0], peer_uid(req), &r);
	reply(resp, &r);
}

static void h_claim_renew(void *ctx, const struct http_req *req,
			  struct http_resp *resp)
{
	struct daemon *d = ctx;
	struct claims_reply r = { 0 };

	api_claims_renew(d->claims, req->params[0], peer_uid(req), req->body,
			 req->body_len, &r);
	reply(resp, &r);
}

const struct http_route api_routes[] = {
	{ "/", HTTP_GET, false, h_index },
	{ "/ui/{file}", HTTP_GET, false, h_ui },
	{ "/metrics", HTTP_GET, false, h_metrics },
	{ "/healthz", HTTP_GET, false, h_healthz },
	{ "/api/v1/status", HTTP_GET, false, h_status },
	{ "/api/v1/topology", HTTP_GET, false, h_topology },
	{ "/api/v1/events", HTTP_GET, false, h_events },
	{ "/api/v1/samples", HTTP_GET, false, h_samples },
	{ "/api/v1/metrics", HTTP_GET, false, h_api_metrics },
	{ "/api/v1/claims", HTTP_GET | HTTP_POST, true, h_claims },
	{ "/api/v1/claims/{id}", HTTP_GET | HTTP_DELETE, true, h_claim },
	{ "/api/v1/claims/{id}/renew", HTTP_POST, true, h_claim_renew },
};
const size_t api_nroutes = sizeof(api_routes) / sizeof(api_routes[0]);
