/*
 * api.c - the HTTP routes of doc/design.md section 6 (except the claim
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
#include "resctrl/resctrl_mon.h"
#include "core/energy.h"
#include "core/throttle.h"
#include "core/ufreq.h"
#include "api_claims.h"
#include "api_formulas.h"
#include "api_groups.h"
#include "core/claims.h"
#include "expo.h"
#include "jsend.h"
#include "base/gz.h"
#include "base/jnum.h"
#include "base/jtext.h"
#include "metrics.h"
#include "plat/plat_generic.h"
#include "pmu/pmu_perf.h"
#include "ui/ui.h"

#define JSON_CTYPE "application/json"

uint64_t daemon_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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
	/* digits only: strtoull() would take " 5" (limit=%205, or limit=+5
	   with the '+' decoded to a space) and "+5" */
	if (*s < '0' || *s > '9' || *end || errno || x < min || x > max) {
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

struct page_src {
	struct daemon *d;
	const struct program *p;
	const struct http_stats *http;	/* of the server rendering it */
};

static int render_page(void *arg, enum prom_fmt fmt, struct buf *b)
{
	const struct page_src *src = arg;
	struct daemon *d = src->d;
	struct claims_pub *cp = d->claims ? sampler_claims(d->sampler) : NULL;
	struct metrics_info info = {
		.version = d->version, .revision = d->revision,
		.build_date = d->build_date, .backend = d->backend,
		.simulated = d->simulated,
		.scrapes = atomic_load(&d->scrapes),
		.interval_ms = sampler_cfg(d->sampler).interval_ms,
		.start_time_s = d->start_time_s,
		.claims = cp,
		.http = src->http,
		.resctrl = d->resctrl,
		.ufreq = d->ufreq,
		.energy = d->energy,
		.throttle = d->throttle,
	};
	int r = metrics_render(b, fmt, src->p, &info);

	claims_pub_put(cp);
	return r;
}

/*
 * Hands out the page rendered for the newest sample (expo.h): a new
 * sample, a new program or a page older than one interval makes the
 * scrape that notices render it.  uncored_scrapes_total on a page
 * counts the scrapes up to the one that rendered it.
 */
static void h_metrics(void *ctx, const struct http_req *req,
		      struct http_resp *resp)
{
	struct daemon *d = ctx;
	const char *ctype;
	enum prom_fmt fmt = prom_negotiate(http_header(req, "Accept"), &ctype);
	bool gzip = gz_accepted(http_header(req, "Accept-Encoding"));
	struct program *p = sampler_get(d->sampler);
	struct http_stats hs;
	struct page_src src = { d, p, &hs };
	struct expo_page *pg;
	int r = 0;

	if (!p) {
		http_error(resp, 503, "not_ready", "the sampler has not "
			   "started yet");
		return;
	}
	atomic_fetch_add(&d->scrapes, 1);
	http_get_stats(req, &hs);
	pg = expo_get(d->expo, fmt, p->gen, ring_head(p->snaps),
		      (uint64_t)sampler_cfg(d->sampler).interval_ms * 1000000ull,
		      render_page, &src, &r);
	program_put(p);
	if (!pg) {
		http_error(resp, 500, "internal", "rendering metrics failed: "
			   "%s", strerror(-r));
		return;
	}
	expo_body(pg, gzip, &resp->shared.data, &resp->shared.len,
		  &resp->shared.gzip);
	resp->shared.release = expo_put;
	resp->shared.arg = pg;
	resp->ctype = ctype;
}

/* ---- /healthz ------------------------------------------------------- */

static void h_healthz(void *ctx, const struct http_req *req,
		      struct http_resp *resp)
{
	struct daemon *d = ctx;
	uint64_t last = sampler_last_tick(d->sampler), now = daemon_mono_ns();
	uint64_t limit = sampler_stall_ns(d->sampler);
	struct json_object *o;

	(void)req;
	if (!last || now - last > limit) {
		http_error(resp, 503, "stalled", "the sampler has not ticked "
			   "within %.1f s (3 intervals, at least 1 s; last tick "
			   "%.1f s ago)", (double)limit / 1e9,
			   last ? (double)(now - last) / 1e9 : -1.0);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "status", json_object_new_string("ok"));
	json_object_object_add(o, "last_tick_age_s",
			       jnum_new((double)(now - last) / 1e9));
	send_json(resp, o);
}

/* The perf backend's part of /api/v1/status: where it looked, what it
 * did not find, what its groups cost and met. */
static void status_perf(json_object *o, const struct daemon *d,
			const struct snap *st)
{
	json_object *pf = json_object_new_object();
	char lost[1024], missing[sizeof(lost) + sizeof(d->perf_missing) + 2];

	/* missing at start-up, then lost since (pmu_perf.h) */
	pmu_perf_lost(d->pmu.perf, lost, sizeof(lost));
	snprintf(missing, sizeof(missing), "%s%s%s", d->perf_missing,
		 d->perf_missing[0] && lost[0] ? ", " : "", lost);
	json_object_object_add(pf, "sysfs", json_object_new_string(d->sysfs));
	json_object_object_add(pf, "missing_units",
			       json_object_new_string(missing));
	json_object_object_add(pf, "groups", ju64(st->perf_groups));
	json_object_object_add(pf, "group_reads", ju64(st->perf_reads));
	json_object_object_add(pf, "read_errors", ju64(st->perf_read_errors));
	json_object_object_add(pf, "open_errors", ju64(st->perf_open_errors));
	json_object_object_add(pf, "scaled_reads", ju64(st->perf_scaled));
	json_object_object_add(pf, "scaled_samples",
			       ju64(st->perf_scaled_samples));
	json_object_object_add(o, "perf", pf);
}

/* ---- /api/v1/status ------------------------------------------------- */

/* The baseline's groups, and where the DRAM families come from (zen4:
 * the UMCs, or the data fabric where the kernel has no amd_umc_N; zen3:
 * the data fabric's total, "total_event" instead of read and write). */
static void status_paths(json_object *o, const struct program *p)
{
	json_object *b = json_object_new_object(), *m;
	struct program_source rd, wr;

	json_object_object_add(b, "events", json_object_new_int((int)p->nev));
	json_object_object_add(b, "groups",
			       json_object_new_int((int)p->ngroups));
	json_object_object_add(b, "events_in_turns",
			       json_object_new_int((int)(p->nev - p->gev[1])));
	json_object_object_add(o, "baseline", b);
	if (!program_dram(p, &rd, &wr))
		return;
	m = json_object_new_object();
	json_object_object_add(m, "unit", json_object_new_string(rd.unit->name));
	json_object_object_add(m, "description",
			       json_object_new_string(rd.unit->desc));
	if (rd.kernel_pmu)
		json_object_object_add(m, "kernel_pmu",
				       json_object_new_string(rd.kernel_pmu));
	if (wr.event) {
		json_object_object_add(m, "read_event",
				       json_object_new_string(rd.event));
		json_object_object_add(m, "write_event",
				       json_object_new_string(wr.event));
	} else {	/* zen3: reads and writes together */
		json_object_object_add(m, "total_event",
				       json_object_new_string(rd.event));
	}
	json_object_object_add(m, "events",
			       json_object_new_int((int)(rd.nevents + wr.nevents)));
	json_object_object_add(m, "in_turns",
			       json_object_new_boolean(rd.turns || wr.turns));
	json_object_object_add(o, "dram", m);
}

/* Platform generic (plat_generic.h): each headline family, the kernel
 * events it is made of or why it is absent, and what was left out. */
static void status_generic(struct json_object *o, const struct platform *pl)
{
	const struct gen_family *f = plat_generic_families(pl);
	struct json_object *g, *a;

	if (!f)
		return;
	g = json_object_new_object();
	a = json_object_new_array();
	for (unsigned i = 0; i < PLAT_GENERIC_NFAMILIES; i++) {
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "family",
				       json_object_new_string(f[i].id));
		json_object_object_add(x, "metric",
				       json_object_new_string(f[i].metric));
		json_object_object_add(x, "present",
				       json_object_new_boolean(f[i].present));
		json_object_object_add(x, f[i].present ? "from" : "absent",
				       json_object_new_string(f[i].text));
		json_object_array_add(a, x);
	}
	json_object_object_add(g, "families", a);
	json_object_object_add(g, "events",
			       json_object_new_int64((int64_t)pl->nevents));
	json_object_object_add(g, "left_out",
			       json_object_new_string(plat_generic_notes(pl)));
	json_object_object_add(o, "generic", g);
}

/* "energy": where uncore_energy_joules_total comes from and each
 * domain's last read, or why the family is absent (doc/api.md). */
static void status_energy(struct json_object *o, struct energy_mon *m)
{
	struct json_object *e, *a;
	struct energy_dom *dom;
	struct timespec ts;
	uint64_t mono_ns, real_ns;
	int n;

	if (!m)
		return;
	e = json_object_new_object();
	json_object_object_add(e, "present",
			       json_object_new_boolean(!energy_mon_absent(m)[0]));
	json_object_object_add(e, "source",
			       json_object_new_string(energy_mon_source(m)));
	if (energy_mon_absent(m)[0]) {
		json_object_object_add(e, "absent",
			json_object_new_string(energy_mon_absent(m)));
		json_object_object_add(o, "energy", e);
		return;
	}
	json_object_object_add(e, "interval_ms",
			       ju64(energy_mon_interval_ms(m)));
	a = json_object_new_array();
	dom = calloc(ENERGY_MAX_DOMS, sizeof(*dom));
	n = dom ? energy_mon_snapshot(m, dom, ENERGY_MAX_DOMS) : 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	mono_ns = daemon_mono_ns();
	real_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	for (int i = 0; i < n; i++) {
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "socket",
				       json_object_new_int((int)dom[i].socket));
		json_object_object_add(x, "domain", json_object_new_string(
				       rapl_dom_label(dom[i].dom)));
		if (dom[i].have) {
			json_object_object_add(x, "joules",
					       jnum_new(dom[i].joules));
			json_object_object_add(x, "read_s", jnum_new(
				(double)dom[i].read_ns / 1e9));
			/* the same instant on the samples' clock (their
			 * "time"), so the page can take the DRAM bytes of
			 * the samples inside two reads */
			json_object_object_add(x, "read_time", jnum_new(
				((double)real_ns - ((double)mono_ns -
				 (double)dom[i].read_ns)) / 1e9));
		}
		json_object_object_add(x, "unit_joules",
				       jnum_new(dom[i].unit_j));
		json_object_object_add(x, "read_errors", ju64(dom[i].errors));
		json_object_array_add(a, x);
	}
	free(dom);
	json_object_object_add(e, "domains", a);
	json_object_object_add(o, "energy", e);
}

/* "thermal_throttle": the package thermal-throttle counters each
 * socket's last read, or why they are absent (doc/api.md). */
static void status_throttle(struct json_object *o, struct throttle_mon *m)
{
	struct throttle_pkg p[THROTTLE_MAX_PKGS];
	struct json_object *e, *a;
	int n;

	if (!m)
		return;
	e = json_object_new_object();
	json_object_object_add(e, "present", json_object_new_boolean(
			       !throttle_mon_absent(m)[0]));
	if (throttle_mon_absent(m)[0]) {
		json_object_object_add(e, "absent", json_object_new_string(
				       throttle_mon_absent(m)));
		json_object_object_add(o, "thermal_throttle", e);
		return;
	}
	a = json_object_new_array();
	n = throttle_mon_snapshot(m, p, THROTTLE_MAX_PKGS);
	for (int i = 0; i < n; i++) {
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "socket",
				       json_object_new_int((int)p[i].socket));
		json_object_object_add(x, "cpu",
				       json_object_new_int((int)p[i].cpu));
		if (p[i].have) {
			json_object_object_add(x, "seconds", jnum_new(
					       (double)p[i].ms / 1000.0));
			json_object_object_add(x, "read_s", jnum_new(
					       (double)p[i].read_ns / 1e9));
		}
		if (p[i].have && p[i].have_count)
			json_object_object_add(x, "events", ju64(p[i].count));
		json_object_object_add(x, "read_errors", ju64(p[i].errors));
		json_object_array_add(a, x);
	}
	json_object_object_add(e, "sockets", a);
	json_object_object_add(o, "thermal_throttle", e);
}

/* "memory_latency", "frequency_limits": the [baseline] setting, and the
 * units whose latency or limit events auto left out with why (uncored.c,
 * fit_extra()). */
static void status_fit(struct json_object *o, const struct daemon *d,
		       const char *name, const char *setting,
		       const char (*left)[256])
{
	struct json_object *m = json_object_new_object(), *a;

	json_object_object_add(m, "setting", json_object_new_string(
		setting ? setting : "auto"));
	a = json_object_new_array();
	for (unsigned u = 0; u < PLAT_MAX_UNITS && d->plat->units[u]; u++) {
		struct json_object *x;

		if (!left[u][0])
			continue;
		x = json_object_new_object();
		json_object_object_add(x, "unit", json_object_new_string(
			d->plat->units[u]->name));
		json_object_object_add(x, "why", json_object_new_string(
			left[u]));
		json_object_array_add(a, x);
	}
	json_object_object_add(m, "left_out", a);
	json_object_object_add(o, name, m);
}

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
	status_generic(o, d->plat);
	status_energy(o, d->energy);
	status_throttle(o, d->throttle);
	json_object_object_add(o, "backend", json_object_new_string(d->backend));
	json_object_object_add(o, "simulated",
			       json_object_new_boolean(d->simulated));
	json_object_object_add(o, "backend_reason",
			       json_object_new_string(d->backend_why));
	if (d->pmu.perf)
		status_perf(o, d, &st);
	if (p)
		status_paths(o, p);
	json_object_object_add(o, "interval_ms", json_object_new_int((int)cfg.interval_ms));
	json_object_object_add(o, "uptime_s",
			       jnum_new((double)(daemon_mono_ns() -
						 d->start_mono_ns) / 1e9));
	json_object_object_add(o, "started_at", jnum_new(d->start_time_s));
	json_object_object_add(o, "instance", json_object_new_string(
				       claims_instance(d->claims)));
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
		json_object_object_add(o, "program_start",
				       ju64(ring_first(p->samples)));
		/* which program the ring belongs to: each reload that is
		 * applied runs a new one, with a new ring */
		json_object_object_add(o, "program", ju64(p->gen));
		json_object_object_add(o, "counters_in_use",
				       json_object_new_int((int)p->ns));
		status_fit(o, d, "memory_latency", p->lat_setting,
			   (const char (*)[256])p->lat_left_out);
		status_fit(o, d, "frequency_limits", p->freq_setting,
			   (const char (*)[256])p->freq_left_out);
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

/* What the topology tells of one box: the daemon's state, the running
 * program and its last snapshot's words (either may be NULL). */
struct topo_view {
	const struct daemon *d;
	const struct program *p;
	const uint64_t *words;
};

/* Counter c of box (s, ui, in): its width and who holds it for what. */
static struct json_object *counter_json(const struct topo_view *v, unsigned s,
					int ui, unsigned in, unsigned c)
{
	const struct unit_type *u = v->d->plat->units[ui];
	struct json_object *co = json_object_new_object();
	const char *ev = holder_event(v->p, s, ui, in, c);
	char idb[CLAIM_ID_MAX];
	const char *holder = u->kind == UNIT_PROG && v->d->claims
		? claims_holder(v->d->claims, s, ui, in, c, idb, sizeof(idb))
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
	return co;
}

/* Box in of unit ui on socket s: its number, whether it can be read,
 * its counters. */
static struct json_object *box_json(const struct topo_view *v, unsigned s,
				    int ui, unsigned in)
{
	const struct unit_type *u = v->d->plat->units[ui];
	unsigned nc = u->kind == UNIT_FREERUN ? u->nfreerun : u->nctr;
	struct json_object *io = json_object_new_object();
	struct json_object *ctrs = json_object_new_array();

	/* "box", as /metrics labels it ("instance" is Prometheus' target) */
	json_object_object_add(io, "box", json_object_new_int((int)in));
	/* a box discovery did not find (hsx: its PCI function is missing),
	 * one lost since (perf: its kernel PMU went away), or one whose
	 * reads all fail now, is unavailable */
	json_object_object_add(io, "available",
			       json_object_new_boolean(
				       pmu_present(&v->d->pmu, s, ui, in) &&
				       !box_failing(v->p, v->words, s, ui, in)));
	for (unsigned c = 0; c < nc; c++)
		json_object_array_add(ctrs, counter_json(v, s, ui, in, c));
	json_object_object_add(io, "counters", ctrs);
	return io;
}

/* Unit ui on socket s: what it is and its boxes. */
static struct json_object *unit_json(const struct topo_view *v, unsigned s,
				     int ui)
{
	const struct unit_type *u = v->d->plat->units[ui];
	const struct topo_socket *ts = &v->d->topo.sock[s];
	struct json_object *uo = json_object_new_object();
	struct json_object *insts = json_object_new_array();

	json_object_object_add(uo, "unit", json_object_new_string(u->name));
	json_object_object_add(uo, "description", json_object_new_string(u->desc));
	json_object_object_add(uo, "kind", json_object_new_string(kind_name(u->kind)));
	json_object_object_add(uo, "instances", json_object_new_int((int)ts->ninst[ui]));
	for (unsigned in = 0; in < ts->ninst[ui]; in++)
		json_object_array_add(insts, box_json(v, s, ui, in));
	json_object_object_add(uo, "instance_list", insts);
	return uo;
}

static void h_topology(void *ctx, const struct http_req *req,
		       struct http_resp *resp)
{
	struct daemon *d = ctx;
	struct program *p = sampler_get(d->sampler);
	struct json_object *o = json_object_new_object();
	struct json_object *socks = json_object_new_array();
	uint64_t *words = p ? calloc(snap_words(p->ns, p->nvals), sizeof(uint64_t)) : NULL;
	struct topo_view v = { .d = d, .p = p };
	struct snap st;

	(void)req;
	if (words && metrics_snapshot(p, words, &st) < 0) {
		free(words);
		words = NULL;
	}
	v.words = words;
	json_object_object_add(o, "platform", json_object_new_string(d->plat->id));
	for (unsigned s = 0; s < d->topo.nsockets; s++) {
		struct json_object *so = json_object_new_object();
		struct json_object *units = json_object_new_array();

		json_object_object_add(so, "socket", json_object_new_int((int)s));
		json_object_object_add(so, "cpu",
				       json_object_new_int((int)d->topo.sock[s].cpu));
		for (int ui = 0; d->plat->units[ui]; ui++)
			json_object_array_add(units, unit_json(&v, s, ui));
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
		const struct unit_type *eu;
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
		/* the counters this machine has (the unit's count may come
		 * from CPUID: plat_machine()) that the catalog allows */
		eu = plat_unit(d->plat, ev->unit, NULL);
		for (unsigned c = 0; eu && c < eu->nctr && c < PLAT_MAX_CTRS;
		     c++)
			if (ev->ctr_mask >> c & 1)
				json_object_array_add(ctrs, json_object_new_int((int)c));
		json_object_object_add(e, "counters", ctrs);
		json_object_object_add(e, "description", json_object_new_string(ev->desc));
		json_object_object_add(e, "source", json_object_new_string(ev->source));
		if (ev->kernel_scale > 0) {
			json_object_object_add(e, "kernel_scale",
					       jnum_new(ev->kernel_scale));
			json_object_object_add(e, "kernel_unit",
					       json_object_new_string(ev->kernel_unit ?
								      ev->kernel_unit : ""));
		}
		json_object_array_add(arr, e);
	}
	o = json_object_new_object();
	json_object_object_add(o, "platform", json_object_new_string(d->plat->id));
	json_object_object_add(o, "events", arr);
	send_json(resp, o);
}

/* ---- /api/v1/samples ------------------------------------------------ */

/*
 * The samples can be large (3600 samples of 528 series on 8 hsx sockets
 * are about 230 MB), so they are written while they are sent, a few
 * samples at a time (http_resp.stream), never as a whole: memory per
 * request is one sample's JSON and the series names, and other requests
 * are served between the pieces.  The bytes are those json-c wrote when
 * the answer was built as a json-c tree (JSON_C_TO_STRING_PLAIN |
 * NOSLASHESCAPE; doubles as jnum.h writes them), which
 * tests/scenario/samples_stream.sh checks with json-c itself.
 */

/* json-c's string escaping (json_escape_str without slash escaping),
 * and bytes that are not well-formed UTF-8 as \ufffd (jtext_put_valid). */
static void jw_str(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[7] = "\\u00";
		size_t n;

		if (c >= 0x80) {
			if ((n = buf_utf8_len(s))) {
				s += n - 1;
				continue;
			}
			buf_put(b, run, (size_t)(s - run));
			buf_put(b, "\\ufffd", 6);
			run = s + 1;
			continue;
		}
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		buf_put(b, run, (size_t)(s - run));
		run = s + 1;
		switch (c) {
		case '\b': buf_puts(b, "\\b"); break;
		case '\n': buf_puts(b, "\\n"); break;
		case '\r': buf_puts(b, "\\r"); break;
		case '\t': buf_puts(b, "\\t"); break;
		case '\f': buf_puts(b, "\\f"); break;
		case '"': buf_puts(b, "\\\""); break;
		case '\\': buf_puts(b, "\\\\"); break;
		default:
			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			buf_put(b, e, 6);
		}
	}
	buf_put(b, run, (size_t)(s - run));
	buf_putc(b, '"');
}

static void jw_u64(struct buf *b, uint64_t v)
{
	char t[20];
	size_t n = sizeof(t);

	do
		t[--n] = (char)('0' + v % 10);
	while ((v /= 10));
	buf_put(b, t + n, sizeof(t) - n);
}

/* A double as jnum_new() has json-c write it (null when not finite). */
static void jw_f64(struct buf *b, double v)
{
	char t[JNUM_MAX];

	buf_put(b, t, jnum_format(t, v));
}

/* "name": ahead of a value; comma first unless it opens the object. */
static void jw_key(struct buf *b, const char *name, bool first)
{
	if (!first)
		buf_putc(b, ',');
	buf_putc(b, '"');
	buf_puts(b, name);
	buf_puts(b, "\":");
}

/*
 * Instances of label per in the table from metric m on: the most any of
 * them has.  Families of different units may share a label (spr's UPI
 * links and CXL ports are both "port"), with different counts; each
 * instance's object holds the families that have it.
 */
static unsigned per_count(const struct derive_plan *dp,
			  const struct derived_table *tab, size_t m,
			  bool gauges_only)
{
	unsigned n = 0;

	for (size_t k = m; k < tab->nm; k++)
		if (tab->m[k].per && !strcmp(tab->m[k].per, tab->m[m].per) &&
		    (!gauges_only || tab->m[k].type == DM_GAUGE) &&
		    derive_nper(dp, k) > n)
			n = derive_nper(dp, k);
	return n;
}

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
					dm_whole(dm)
					? ju64((uint64_t)(vals[i] + 0.5))
					: jnum_new(vals[i]));
			continue;
		}
		/* per-instance: the first metric of a label builds its array */
		for (size_t o = 0; o < m && first; o++)
			first = !tab->m[o].per || strcmp(tab->m[o].per, dm->per) ||
				(gauges_only && tab->m[o].type != DM_GAUGE);
		if (!first)
			continue;
		arr = json_object_new_array();
		for (unsigned in = 0; in < per_count(dp, tab, m, gauges_only);
		     in++) {
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
					dm_whole(x)
					? ju64((uint64_t)(vals[j] + 0.5))
					: jnum_new(vals[j]));
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

/*
 * The derived gauges vals of socket sk, written as add_derived(...,
 * gauges_only) would have json-c write them: the same members in the
 * same order.
 */
static void jw_derived(struct buf *b, const struct program *p, unsigned sk,
		       const double *vals)
{
	const struct derive_plan *dp = p->dplan;
	const struct derived_table *tab = derive_table(dp);

	for (size_t m = 0; m < tab->nm; m++) {
		const struct derived_metric *dm = &tab->m[m];
		unsigned i = derive_index(dp, m, sk, 0);
		bool first = true, any = false;

		if (dm->type != DM_GAUGE)
			continue;
		if (!dm->per) {
			if (derive_live(dp, i)) {
				jw_key(b, dm->json, false);
				jw_f64(b, vals[i]);
			}
			continue;
		}
		/* per-instance: the first gauge of a label writes its array */
		for (size_t o = 0; o < m && first; o++)
			first = !tab->m[o].per || strcmp(tab->m[o].per, dm->per) ||
				tab->m[o].type != DM_GAUGE;
		if (!first)
			continue;
		for (unsigned in = 0; in < per_count(dp, tab, m, true); in++) {
			bool open = false;

			for (size_t k = m; k < tab->nm; k++) {
				const struct derived_metric *x = &tab->m[k];
				unsigned j;

				if (!x->per || strcmp(x->per, dm->per) ||
				    x->type != DM_GAUGE ||
				    in >= derive_nper(dp, k) ||
				    !derive_live(dp, j = derive_index(dp, k, sk, in)))
					continue;
				if (!open) {
					if (any) {
						buf_putc(b, ',');
					} else {	/* ,"channels":[ */
						buf_puts(b, ",\"");
						buf_puts(b, dm->per);
						buf_puts(b, "s\":[");
					}
					buf_putc(b, '{');
					any = open = true;
					jw_key(b, dm->per, true);
					jw_u64(b, in);
				}
				jw_key(b, x->json, false);
				jw_f64(b, vals[j]);
			}
			if (open)
				buf_putc(b, '}');
		}
		if (any)
			buf_putc(b, ']');
	}
}

/* Per-request state of a streamed /api/v1/samples answer. */
struct samples_stream {
	struct program *p;
	uint64_t head, tail, missed;
	bool has_missed;
	bool deltas;
	uint64_t seq, end;	/* samples [seq, end) still to write */
	unsigned nwritten;	/* samples written */
	int part;		/* 0 header, 1 samples, 2 trailer, 3 done */
	uint64_t *w;		/* one sample's words */
	/* per series: {"socket":S,"unit":"U","box":B,"event":"E" */
	struct buf prefix;
	size_t *pre_off;	/* ns + 1 offsets into prefix */
	double *g;		/* the derived values of one sample */
	void *scratch;		/* derive_gauges()' */
	/* the kernel's package throttle reads (NULL: none), and the
	 * samples' clock (CLOCK_REALTIME) less theirs (CLOCK_MONOTONIC) */
	struct throttle_mon *th;
	int64_t real_less_mono;
	struct buf out;		/* pending bytes */
	size_t off;		/* of out, already sent */
};

/* One entry of a sample's "frequency_limited"; from/to < 0: none. */
static void jw_limit(struct buf *b, bool *any, const char *domain,
		     const char *reason, double secs, double from, double to)
{
	buf_puts(b, *any ? ",{" : ",\"frequency_limited\":[{");
	*any = true;
	jw_key(b, "domain", true);
	jw_str(b, domain);
	jw_key(b, "reason", false);
	jw_str(b, reason);
	jw_key(b, "seconds", false);
	jw_f64(b, secs);
	if (from >= 0) {
		jw_key(b, "from", false);
		jw_f64(b, from);
		jw_key(b, "to", false);
		jw_f64(b, to);
	}
	buf_putc(b, '}');
}

/*
 * Socket sk's "frequency_limited" of the sample ending at t_ns
 * (CLOCK_REALTIME) after secs (doc/api.md): the time a limit was active.
 * domain="core": the PCU's seconds of uncore_frequency_limited_seconds_
 * total in this interval (a valid sample's deltas); domain="package": the
 * kernel's thermal_throttle/ windows (two reads, a second apart) that
 * ended in this interval, with their own from and to.  Nothing written
 * where no source says anything of the interval.
 */
static void jw_limited(struct samples_stream *ss, unsigned sk,
		       const uint64_t *delta, uint64_t f, uint64_t t_ns,
		       double secs)
{
	const struct program *p = ss->p;
	const struct derived_table *tab = derive_table(p->dplan);
	struct buf *b = &ss->out;
	struct throttle_window win[8];
	bool any = false;
	int n;

	for (size_t m = 0; (f & SF_VALID) && !(f & SF_FIRST) && m < tab->nm;
	     m++) {
		const struct derived_metric *dm = &tab->m[m];
		double v;

		if (dm->type != DM_COUNTER || strcmp(dm->name, THROTTLE_FAMILY) ||
		    !dm->fixed[0] || !dm->fixed[2] ||
		    isnan(v = derive_counter(p->dplan, m, sk, delta)))
			continue;
		jw_limit(b, &any, dm->fixed[1], dm->fixed[3], v, -1, -1);
	}
	if (ss->th && secs > 0) {
		int64_t t1 = (int64_t)t_ns - ss->real_less_mono;
		int64_t t0 = t1 - (int64_t)(secs * 1e9);

		n = t0 > 0 ? throttle_mon_windows(ss->th, sk, (uint64_t)t0,
						   (uint64_t)t1, win, 8) : 0;
		for (int i = 0; i < n; i++)
			jw_limit(b, &any, "package", "thermal",
				 (double)win[i].ms / 1000.0,
				 (double)((int64_t)win[i].from_ns +
					  ss->real_less_mono) / 1e9,
				 (double)((int64_t)win[i].to_ns +
					  ss->real_less_mono) / 1e9);
	}
	if (any)
		buf_putc(b, ']');
}

static void sample_json(struct samples_stream *ss, uint64_t seq)
{
	const struct program *p = ss->p;
	struct buf *b = &ss->out;
	const uint64_t *w = ss->w;
	const uint64_t *delta = w + SW_HDR, *inv = delta + p->ns;
	const uint64_t *mux = inv + (p->ns + 63) / 64;
	uint64_t f = w[SW_FLAGS];
	double secs = (double)w[SW_INTERVAL_NS] / 1e9;
	double counted = (double)w[SW_COUNTED_NS] / 1e9;
	double counted_err = (double)w[SW_COUNTED_ERR_NS] / 1e9;

	if (ss->nwritten++)
		buf_putc(b, ',');
	buf_putc(b, '{');
	jw_key(b, "seq", true);
	jw_u64(b, seq);
	jw_key(b, "time", false);
	jw_f64(b, (double)w[SW_T_NS] / 1e9);
	jw_key(b, "interval_s", false);
	jw_f64(b, secs);
	/* the time the frozen counters counted: what their deltas are over
	 * (pmu_counted_ns(); the interval when it is not known) */
	jw_key(b, "counted_s", false);
	jw_f64(b, counted > 0 ? counted : secs);
	/* how far off counted_s can be: half of each of the two writes
	 * that bound the window (pmu_counted_err_ns(); 0 when counted_s is
	 * the interval) */
	jw_key(b, "counted_err_s", false);
	jw_f64(b, counted > 0 ? counted_err : 0);
	jw_key(b, "valid", false);
	buf_puts(b, f & SF_VALID ? "true" : "false");
	if (f & SF_INTERFERENCE)
		buf_puts(b, ",\"interference\":true");
	if (f & SF_FIRST)
		buf_puts(b, ",\"first\":true");
	if (f & SF_MUX)
		buf_puts(b, ",\"multiplexed\":true");
	if (f & SF_SCALED)
		buf_puts(b, ",\"scaled\":true");
	if (f & SF_UNCERTAIN)
		buf_puts(b, ",\"window_uncertain\":true");
	jw_key(b, "sockets", false);
	derive_gauges(p->dplan, delta, inv, f & SF_FIRST ? 0 : secs, counted,
		      ss->g, ss->scratch);
	buf_putc(b, '[');
	for (unsigned sk = 0; sk < p->topo->nsockets; sk++) {
		buf_puts(b, sk ? ",{" : "{");
		jw_key(b, "socket", true);
		jw_u64(b, sk);
		jw_derived(b, p, sk, ss->g);
		jw_limited(ss, sk, delta, f, w[SW_T_NS], secs);
		buf_putc(b, '}');
	}
	buf_putc(b, ']');
	if (ss->deltas) {
		jw_key(b, "deltas", false);
		buf_putc(b, '[');
		for (unsigned i = 0; i < p->ns; i++) {
			bool ok = !(inv[i / 64] >> (i % 64) & 1);

			if (i)
				buf_putc(b, ',');
			buf_put(b, ss->prefix.p + ss->pre_off[i],
				ss->pre_off[i + 1] - ss->pre_off[i]);
			buf_puts(b, ",\"delta\":");
			if (ok)
				jw_u64(b, delta[i]);
			else
				buf_puts(b, "null");
			/* multiplexed out: an estimate (taking turns), or
			 * null */
			if (mux[i / 64] >> (i % 64) & 1)
				buf_puts(b, ",\"multiplexed\":true");
			buf_puts(b, ok ? ",\"valid\":true}" : ",\"valid\":false}");
		}
		buf_putc(b, ']');
	}
	buf_putc(b, '}');
}

/* Pieces are made this large before they are handed out. */
#define SAMPLES_PIECE	(16 * 1024)

/* Appends the next piece of the answer to ss->out; false at the end. */
static bool samples_next(struct samples_stream *ss)
{
	struct buf *b = &ss->out;

	switch (ss->part) {
	case 0:
		buf_putc(b, '{');
		jw_key(b, "head", true);
		jw_u64(b, ss->head);
		jw_key(b, "tail", false);
		jw_u64(b, ss->tail);
		jw_key(b, "program_start", false);
		jw_u64(b, ring_first(ss->p->samples));
		if (ss->has_missed) {
			jw_key(b, "missed", false);
			jw_u64(b, ss->missed);
		}
		jw_key(b, "samples", false);
		buf_putc(b, '[');
		ss->part = 1;
		return true;
	case 1:
		while (ss->seq < ss->end && b->len < SAMPLES_PIECE) {
			uint64_t seq = ss->seq++;
			int r = ring_read(ss->p->samples, seq, ss->w);

			if (r == -EAGAIN)
				r = ring_read(ss->p->samples, seq, ss->w);
			/* overwritten since the answer began: left out,
			   as one the ring no longer holds */
			if (r == 0)
				sample_json(ss, seq);
		}
		if (ss->seq >= ss->end)
			ss->part = 2;
		return true;
	case 2:
		buf_puts(b, "]}\n");
		ss->part = 3;
		return true;
	}
	return false;
}

static long samples_read(void *arg, char *out, size_t max)
{
	struct samples_stream *ss = arg;
	size_t n;

	while (ss->off == ss->out.len) {
		buf_reset(&ss->out);
		ss->off = 0;
		if (!samples_next(ss))
			return HTTP_STREAM_END;
		if (ss->out.oom)
			return HTTP_STREAM_ERROR;
	}
	n = ss->out.len - ss->off;
	if (n > max)
		n = max;
	memcpy(out, ss->out.p + ss->off, n);
	ss->off += n;
	return (long)n;
}

static void samples_free(void *arg)
{
	struct samples_stream *ss = arg;

	program_put(ss->p);
	free(ss->w);
	free(ss->g);
	free(ss->scratch);
	free(ss->pre_off);
	buf_free(&ss->prefix);
	buf_free(&ss->out);
	free(ss);
}

/* The per-series prefixes of the deltas; false when out of memory. */
static bool series_prefixes(struct samples_stream *ss)
{
	const struct program *p = ss->p;

	ss->pre_off = calloc(p->ns + 1, sizeof(size_t));
	if (!ss->pre_off)
		return false;
	for (unsigned i = 0; i < p->ns; i++) {
		const struct pmu_slot *sl = &p->slot[i];
		struct buf *b = &ss->prefix;

		ss->pre_off[i] = b->len;
		buf_putc(b, '{');
		jw_key(b, "socket", true);
		jw_u64(b, sl->socket);
		jw_key(b, "unit", false);
		jw_str(b, p->plat->units[sl->unit]->name);
		jw_key(b, "box", false);	/* /metrics' label */
		jw_u64(b, sl->inst);
		jw_key(b, "event", false);
		jw_str(b, p->ev[p->sev[i]].name);
	}
	ss->pre_off[p->ns] = ss->prefix.len;
	return !ss->prefix.oom;
}

static void h_samples(void *ctx, const struct http_req *req,
		      struct http_resp *resp)
{
	struct daemon *d = ctx;
	struct program *p = sampler_get(d->sampler);
	uint64_t since = 0, limit = 60, deltas = 1, first;
	struct samples_stream *ss;
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
	ss = calloc(1, sizeof(*ss));
	if (!ss || !(ss->w = calloc(sample_words(p->ns), sizeof(uint64_t))) ||
	    !(ss->g = calloc(p->nvals + 1, sizeof(double))) ||
	    !(ss->scratch = malloc(derive_scratch_size(p->dplan)))) {
		if (ss) {
			free(ss->w);
			free(ss->g);
		}
		free(ss);
		program_put(p);
		http_error(resp, 500, "internal", "out of memory");
		return;
	}
	ss->p = p;
	ss->deltas = deltas;
	if (d->throttle && !throttle_mon_absent(d->throttle)[0]) {
		struct timespec ts;
		uint64_t mono = daemon_mono_ns();

		clock_gettime(CLOCK_REALTIME, &ts);
		ss->th = d->throttle;
		ss->real_less_mono = ((int64_t)ts.tv_sec * 1000000000 +
				      ts.tv_nsec) - (int64_t)mono;
	}
	if (deltas && !series_prefixes(ss)) {
		samples_free(ss);
		http_error(resp, 500, "internal", "out of memory");
		return;
	}
	ss->head = ring_head(p->samples);
	ss->tail = ring_tail(p->samples);
	/* Oldest first: the `limit` samples after `since` (or the newest
	 * `limit` without since). */
	first = http_query(req, "since") ? since + 1
		: (ss->head >= limit ? ss->head - limit + 1 : 1);
	if (ss->tail && first < ss->tail) {
		if (http_query(req, "since")) {
			ss->has_missed = true;
			ss->missed = ss->tail - first;
		}
		first = ss->tail;
	}
	ss->seq = first;
	ss->end = first + limit;
	if (ss->end > ss->head + 1)
		ss->end = ss->head + 1;	/* none while head is 0 */
	if (ss->end < first)
		ss->end = first;
	resp->ctype = JSON_CTYPE;
	resp->stream.read = samples_read;
	resp->stream.release = samples_free;
	resp->stream.arg = ss;
}

/* ---- /api/v1/metrics ------------------------------------------------ */

/* so["clock_limits"]: socket s's intel_uncore_frequency domains, as
 * uncore_clock_limit_hertz and uncore_clock_current_hertz have them
 * (absent without the driver; a value that was not read is absent). */
static void add_clock_limits(struct json_object *so, struct ufreq_mon *m,
			     unsigned s)
{
	static const char *const key[UFREQ_NFILES] = {
		[UFREQ_MIN] = "min_hz", [UFREQ_MAX] = "max_hz",
		[UFREQ_INITIAL_MIN] = "initial_min_hz",
		[UFREQ_INITIAL_MAX] = "initial_max_hz",
		[UFREQ_CURRENT] = "current_hz",
	};
	struct ufreq_dom *dom;
	struct json_object *a = NULL;
	int n;

	if (!m || !(dom = calloc(UFREQ_MAX_DOMAINS, sizeof(*dom))))
		return;
	n = ufreq_mon_snapshot(m, dom, UFREQ_MAX_DOMAINS);
	for (int i = 0; i < n; i++) {
		struct json_object *o;
		bool any = false;

		for (int f = 0; f < UFREQ_NFILES; f++)
			any |= dom[i].have[f];
		if (dom[i].socket != (int)s || !any)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "die", json_object_new_int(dom[i].die));
		for (int f = 0; f < UFREQ_NFILES; f++)
			if (dom[i].have[f])
				json_object_object_add(o, key[f],
						       ju64(dom[i].khz[f] * 1000));
		if (!a)
			a = json_object_new_array();
		json_object_array_add(a, o);
	}
	if (a)
		json_object_object_add(so, "clock_limits", a);
	free(dom);
}

/*
 * resctrl per socket (doc/api.md): the groups with their socket's
 * domains summed, highest rate first, and what the workload groups move
 * together.  Nothing when resctrl is off or has no tree.
 */
static void add_resctrl(struct json_object *so, const struct rdt_row *rows,
			long n, unsigned s)
{
	struct json_object *a = NULL;
	double sum = 0;
	bool any_rate = false, all_rate = true;

	for (long i = 0; i < n; i++) {
		const struct rdt_row *r = &rows[i];
		struct json_object *g;

		if (r->socket != (int)s)
			continue;
		g = json_object_new_object();
		json_object_object_add(g, "group", json_object_new_string(r->group));
		if (r->cgroup)
			json_object_object_add(g, "cgroup",
					       json_object_new_string(r->cgroup));
		if (r->pod && *r->pod)
			json_object_object_add(g, "pod_uid",
					       json_object_new_string(r->pod));
		if (r->ctr && *r->ctr)
			json_object_object_add(g, "container_id",
					       json_object_new_string(r->ctr));
		json_object_object_add(g, "workload",
				       json_object_new_boolean(r->workload));
		if (r->have_total)
			json_object_object_add(g, "bytes_total", ju64(r->total));
		if (r->have_local)
			json_object_object_add(g, "bytes_local", ju64(r->local));
		if (r->have_occ)
			json_object_object_add(g, "llc_occupancy_bytes",
					       ju64(r->occ));
		json_object_object_add(g, "bytes_per_second", r->have_rate
				       ? jnum_new(r->rate) : NULL);
		if (r->workload) {
			if (r->have_rate) {
				sum += r->rate;
				any_rate = true;
			} else {
				all_rate = false;
			}
		}
		if (!a)
			a = json_object_new_array();
		json_object_array_add(a, g);
	}
	if (!a)
		return;
	json_object_object_add(so, "resctrl_groups", a);
	json_object_object_add(so, "resctrl_workload_bytes_per_second",
			       any_rate && all_rate ? jnum_new(sum) : NULL);
}

static void h_api_metrics(void *ctx, const struct http_req *req,
			  struct http_resp *resp)
{
	struct daemon *d = ctx;
	struct program *p = sampler_get(d->sampler);
	struct json_object *o, *socks;
	struct snap st;
	uint64_t *words = NULL;
	double *vals = NULL;
	struct rdt_row *rows = NULL;
	long nrows = 0;

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
	if (d->resctrl && (nrows = rdt_mon_rows(d->resctrl, &rows)) < 0)
		nrows = 0;
	o = json_object_new_object();
	json_object_object_add(o, "seq", ju64(st.sample_seq));
	json_object_object_add(o, "time", jnum_new((double)st.t_ns / 1e9));
	socks = json_object_new_array();
	for (unsigned s = 0; s < p->topo->nsockets; s++) {
		struct json_object *so = json_object_new_object();

		json_object_object_add(so, "socket", json_object_new_int((int)s));
		add_derived(so, p, s, vals, false);
		add_clock_limits(so, d->ufreq, s);
		add_resctrl(so, rows, nrows, s);
		json_object_array_add(socks, so);
	}
	json_object_object_add(o, "sockets", socks);
	rdt_rows_free(rows, nrows);
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

static void h_claim_now(void *ctx, const struct http_req *req,
			struct http_resp *resp)
{
	struct daemon *d = ctx;
	struct claims_reply r = { 0 };

	api_claims_now(d->claims, req->params[0], peer_uid(req), &r);
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
	{ "/api/v1/formulas", HTTP_GET, false, api_formulas },
	{ "/api/v1/groups", HTTP_GET, false, api_groups },
	{ "/api/v1/samples", HTTP_GET, false, h_samples },
	{ "/api/v1/metrics", HTTP_GET, false, h_api_metrics },
	{ "/api/v1/claims", HTTP_GET | HTTP_POST, true, h_claims },
	{ "/api/v1/claims/{id}", HTTP_GET | HTTP_DELETE, true, h_claim },
	{ "/api/v1/claims/{id}/renew", HTTP_POST, true, h_claim_renew },
	{ "/api/v1/claims/{id}/now", HTTP_GET, true, h_claim_now },
};
const size_t api_nroutes = sizeof(api_routes) / sizeof(api_routes[0]);
