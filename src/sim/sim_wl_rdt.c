/*
 * sim_wl_rdt.c - the workload's "resctrl" object (doc/design.md section 3,
 * doc/resctrl.md "The simulated tree"): what the simulated resctrl tree
 * (sim_rdt.c) lays out and how its counts grow, and the DRAM bound that
 * keeps it consistent with the rest of the workload.
 *
 *   "resctrl": {
 *     "num_rmids": 16, "limbo_s": 1,
 *     "snc": 2,                              Intel: SNC nodes per L3
 *     "l3_domains": 2,                       AMD: L3 domains (CCX) per socket
 *     "mbm_assign_mode": "mbm_event", "num_mbm_cntrs": 4,   AMD ABMC
 *     "groups": [
 *       { "name": "web", "mbm_total_bytes": 2e9, "mbm_local_bytes": 1.5e9,
 *         "llc_occupancy": 8388608 },
 *       { "name": "web/mon_groups/php", "mbm_total_bytes": [1e9, 2e8],
 *         "socket": 1, "from": 5, "until": 20,
 *         "unavailable": ["mbm_local_bytes"],
 *         "owner": "pqos", "tasks": [4242] } ] }
 *
 * Group names are the reader's labels (resctrl.h): "/" the root group,
 * "ctrl" a CTRL_MON group, "ctrl/mon_groups/mon" or "mon_groups/mon" a
 * MON group.  A rate is a number or one number per phase, bytes per
 * second per socket of the group's own RMID (a CTRL_MON group's files
 * add its MON groups', as the kernel's do).  The check that matters:
 * at no time may the groups alive on a socket move more bytes per second
 * than the socket's DRAM does in the same workload (wl_dram_bytes_per_s),
 * in any phase; a workload that says otherwise is refused naming the
 * group entry that tips it over.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_wl_parse.h"
#include "plat/plat_mod.h"

#define RDT_MAX_RMIDS 4096
#define RDT_MAX_LIMBO_S 3600.0
#define RDT_MAX_CNTRS 1024
#define RDT_PID_MAX 4194304	/* PID_MAX_LIMIT on 64-bit */

static const char *const ev_name[WL_RDT_NEV] = {
	[WL_RDT_TOTAL] = "mbm_total_bytes",
	[WL_RDT_LOCAL] = "mbm_local_bytes",
	[WL_RDT_OCC] = "llc_occupancy",
};

static bool is_amd(const struct platform *p)
{
	return p->vendor && strcmp(p->vendor, "AuthenticAMD") == 0;
}

/* ---- DRAM bandwidth of a socket ------------------------------------- */

/* Adds to out[0..nphases) the bytes/s of one derived source entry (an
 * event x scale) on sock in each phase, summed over its unit's
 * instances; -1 if the event cannot be found, else 0. */
static int src_rates(const struct workload *w, const struct derived_src *ds,
		     unsigned sock, double *r, double *out)
{
	const struct platform *pl = w->plat;
	struct plat_mods mods;
	char rest[128], why[128];
	const struct event *ev;
	const struct unit_type *u;
	int ui;

	if (plat_parse_modifiers(ds->event, PLAT_MOD_FILTER | PLAT_MOD_SPLIT,
				 rest, sizeof(rest), &mods, why,
				 sizeof(why)) < 0 ||
	    !(ev = plat_event(pl, rest)) || !(u = plat_unit(pl, ev->unit, &ui)))
		return -1;
	unsigned ninst = wl_unit_ninst(w, ui);
	for (unsigned i = 0; i < ninst; i++) {
		struct wl_match m = { .socket = sock, .unit = ui, .inst = i,
				      .ninst = ninst };
		bool fr = false;

		for (unsigned j = 0; j < u->nfreerun; j++)
			if (strcmp(u->freerun[j].name, ev->name) == 0) {
				m.freerun = fr = true;
				m.freerun_idx = j;
				if (u->freerun[j].core_scope)
					m.ninst = wl_cores(w);
			}
		if (!fr) {
			m.enc = event_enc_of(ev);
			m.ext = ev->ev_sel_ext;
			m.filter0 = mods.filt[0];
			m.filter1 = mods.filt[1];
		}
		wl_rates(w, &m, r);
		for (unsigned p = 0; p < w->nphases; p++)
			out[p] += r[p] * ds->scale;
	}
	return 0;
}

/* The DRAM bytes/s of sock in every phase into out[0..nphases), of the
 * sources dirs says (bit 0 "dram_rd", bit 1 "dram_wr"); -1 when the
 * platform has no such sources (or no memory), else 0. */
static int dram_phases(const struct workload *w, unsigned sock, double *out,
		       unsigned dirs)
{
	const struct derived_table *d = w->plat ? w->plat->derived : NULL;
	static const char *const dir[] = { "dram_rd", "dram_wr" };
	unsigned np = w->nphases;
	double *r = calloc(np + 1, sizeof(*r)), *alt = calloc(np + 1, sizeof(*alt));
	double *best = calloc(np + 1, sizeof(*best));
	int ret = 0;

	if (!d || !r || !alt || !best) {
		free(r);
		free(alt);
		free(best);
		return -1;
	}
	for (unsigned p = 0; p < np; p++)
		out[p] = 0;
	for (unsigned k = 0; k < 2 && ret == 0; k++) {
		bool found = false;

		if (!(dirs >> k & 1))
			continue;

		/* alternatives: entries of one name and alt are summed; of
		 * the alts, the largest (the daemon takes the one whose
		 * units exist, and a workload rates the one it means) */
		for (unsigned p = 0; p < np; p++)
			best[p] = 0;
		for (unsigned a = 0; a < 8; a++) {
			bool any = false;

			for (unsigned p = 0; p < np; p++)
				alt[p] = 0;
			for (size_t i = 0; i < d->nsrc; i++) {
				const struct derived_src *ds = &d->src[i];

				if (strcmp(ds->name, dir[k]) || ds->alt != a)
					continue;
				if (src_rates(w, ds, sock, r, alt) == 0)
					any = true;
			}
			for (unsigned p = 0; any && p < np; p++)
				if (alt[p] > best[p])
					best[p] = alt[p];
			found |= any;
		}
		if (!found)
			ret = -1;
		for (unsigned p = 0; p < np; p++)
			out[p] += best[p];
	}
	free(r);
	free(alt);
	free(best);
	return ret;
}

double wl_dram_bytes_per_s(const struct workload *w, unsigned sock, unsigned p)
{
	double *v = calloc(w->nphases + 1, sizeof(*v)), x;

	if (!v || p >= w->nphases || dram_phases(w, sock, v, 3) < 0)
		x = -1;
	else
		x = v[p];
	free(v);
	return x;
}

int wl_dram_bytes_phases(const struct workload *w, unsigned sock,
			 bool read_only, double *out)
{
	return dram_phases(w, sock, out, read_only ? 1 : 3);
}

/* ---- names ----------------------------------------------------------- */

/* A directory name resctrl would take for a group (kernfs: not "." or
 * "..", no '/'), kept to what a tool would use, and none of the names the
 * root group holds itself. */
static bool comp_ok(const char *s, size_t n)
{
	static const char *const taken[] = {
		"info", "mon_groups", "mon_data", "tasks", "cpus", "cpus_list",
		"schemata", "mode", "size", "owner", "mbm_L3_assignments",
	};

	if (n == 0 || n > 63 || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' ||
		      s[i] == '.'))
			return false;
	for (size_t i = 0; i < ARRAY_SIZE(taken); i++)
		if (strlen(taken[i]) == n && !strncmp(s, taken[i], n))
			return false;
	return true;
}

/* "/", "C", "C/mon_groups/M" or "mon_groups/M": 0 and *is_mon, or -1. */
static int name_check(const char *s, bool *is_mon)
{
	const char *sl = strchr(s, '/');
	static const char mg[] = "mon_groups/";

	*is_mon = false;
	if (!strcmp(s, "/"))
		return 0;
	if (!sl)
		return comp_ok(s, strlen(s)) ? 0 : -1;
	*is_mon = true;
	if (!strncmp(s, mg, sizeof(mg) - 1))
		return comp_ok(s + sizeof(mg) - 1, strlen(s + sizeof(mg) - 1))
		       ? 0 : -1;
	if (!comp_ok(s, (size_t)(sl - s)) || strncmp(sl + 1, mg, sizeof(mg) - 1))
		return -1;
	return comp_ok(sl + sizeof(mg), strlen(sl + sizeof(mg))) ? 0 : -1;
}

/* The CTRL_MON parent's name of a MON group into out ("/" for the root). */
static void parent_of(const char *name, char *out, size_t len)
{
	const char *sl = strchr(name, '/');

	if (!strncmp(name, "mon_groups/", 11))
		snprintf(out, len, "/");
	else
		snprintf(out, len, "%.*s", (int)(sl - name), name);
}

/* ---- one group ------------------------------------------------------- */

/* A rate: a number, or an array of one number per phase. */
static int get_rates(struct pctx *c, json_object *v, double max,
		     const char *what, double *out)
{
	unsigned np = c->w->nphases;

	if (!json_object_is_type(v, json_type_array)) {
		double x;
		int r = wlp_get_number(c, v, 0, false, max, what, &x);

		if (r < 0)
			return r;
		for (unsigned p = 0; p < np; p++)
			out[p] = x;
		return 0;
	}
	if (json_object_array_length(v) != np)
		return wlp_fail(c, "%zu values for %u phase%s: give one number, "
			    "or one per phase", json_object_array_length(v), np,
			    np == 1 ? "" : "s");
	for (unsigned p = 0; p < np; p++) {
		size_t old = wlp_path_idx(c, p);
		int r = wlp_get_number(c, json_object_array_get_idx(v, p), 0,
				       false, max, what, &out[p]);

		if (r < 0)
			return r;
		wlp_path_pop(c, old);
	}
	return 0;
}

static int get_unavailable(struct pctx *c, json_object *v,
			   struct wl_rdt_group *g)
{
	if (!json_object_is_type(v, json_type_array))
		return wlp_fail(c, "must be an array of event files (%s, %s, %s), "
			    "not %s", ev_name[0], ev_name[1], ev_name[2],
			    wlp_type_name(v));
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		size_t old = wlp_path_idx(c, i);
		json_object *e = json_object_array_get_idx(v, i);
		const char *s = json_object_is_type(e, json_type_string)
				? json_object_get_string(e) : "";
		unsigned k;

		for (k = 0; k < WL_RDT_NEV && strcmp(s, ev_name[k]); k++)
			;
		if (k == WL_RDT_NEV)
			return wlp_fail(c, "not an event file (%s, %s, %s)",
				    ev_name[0], ev_name[1], ev_name[2]);
		g->unavail |= 1u << k;
		wlp_path_pop(c, old);
	}
	return 0;
}

static int get_tasks(struct pctx *c, json_object *v, struct wl_rdt_group *g)
{
	size_t n;

	if (!json_object_is_type(v, json_type_array))
		return wlp_fail(c, "must be an array of task ids, not %s",
			    wlp_type_name(v));
	if ((n = json_object_array_length(v)) > WL_RDT_MAX_TASKS)
		return wlp_fail(c, "%zu tasks: at most %d", n, WL_RDT_MAX_TASKS);
	for (size_t i = 0; i < n; i++) {
		size_t old = wlp_path_idx(c, i);
		uint64_t x;
		int r = wlp_get_uint(c, json_object_array_get_idx(v, i), 1,
				     RDT_PID_MAX, "a task id", &x);

		if (r < 0)
			return r;
		g->tasks[g->ntasks++] = (unsigned)x;
		wlp_path_pop(c, old);
	}
	return 0;
}

static int parse_group(struct pctx *c, json_object *o, unsigned gi)
{
	struct wl_rdt *rd = &c->w->rdt;
	struct wl_rdt_group *g = &rd->groups[gi];
	unsigned np = c->w->nphases;
	double *rates = &rd->rates[(size_t)gi * WL_RDT_NEV * np];
	bool has_name = false, has_from = false, has_until = false;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return wlp_fail(c, "a group must be an object {\"name\": \"...\", "
			    "\"mbm_total_bytes\": ...}, not %s", wlp_type_name(o));
	g->socket = -1;
	g->until = INFINITY;
	json_object_object_foreach(o, key, v) {
		size_t old = wlp_path_key(c, key);
		unsigned k;
		uint64_t x;

		for (k = 0; k < WL_RDT_NEV && strcmp(key, ev_name[k]); k++)
			;
		if (k < WL_RDT_NEV) {
			r = get_rates(c, v, k == WL_RDT_OCC ? 1e12 : WL_MAX_RATE,
				      k == WL_RDT_OCC ? "bytes of L3 held, per "
				      "socket" : "bytes per second per socket",
				      &rates[(size_t)k * np]);
		} else if (!strcmp(key, "name")) {
			const char *s = json_object_is_type(v, json_type_string)
					? json_object_get_string(v) : NULL;

			if (!s || strlen(s) >= WL_RDT_NAME_MAX ||
			    name_check(s, &g->is_mon) < 0)
				return wlp_fail(c, "must be a group as uncored labels "
					    "it: \"/\" (the root group), \"NAME\" (a "
					    "CTRL_MON group), \"NAME/mon_groups/NAME\" "
					    "or \"mon_groups/NAME\" (a MON group); a "
					    "NAME is 1 to 63 of [A-Za-z0-9_.-], not "
					    "starting with '.', and not one of the "
					    "tree's own names (info, mon_data, tasks, "
					    "...)");
			snprintf(g->name, sizeof(g->name), "%s", s);
			has_name = true;
			r = 0;
		} else if (!strcmp(key, "socket")) {
			r = wlp_get_uint(c, v, 0, wl_sockets(c->w) - 1,
					 "the socket its traffic is on", &x);
			g->socket = (int)x;
		} else if (!strcmp(key, "from")) {
			r = wlp_get_number(c, v, 0, false, WL_MAX_AT, "seconds "
					   "when the group is made", &g->from);
			has_from = true;
		} else if (!strcmp(key, "until")) {
			r = wlp_get_number(c, v, 0, true, WL_MAX_AT, "seconds "
					   "when the group is removed", &g->until);
			has_until = true;
		} else if (!strcmp(key, "unavailable")) {
			r = get_unavailable(c, v, g);
		} else if (!strcmp(key, "tasks")) {
			r = get_tasks(c, v, g);
		} else if (!strcmp(key, "owner")) {
			const char *s = json_object_is_type(v, json_type_string)
					? json_object_get_string(v) : NULL;

			if (!s || !*s || strlen(s) >= sizeof(g->owner) ||
			    strpbrk(s, "\n\r\t"))
				return wlp_fail(c, "must be the name of the tool "
					    "that made the group, 1 to %zu "
					    "characters on one line",
					    sizeof(g->owner) - 1);
			snprintf(g->owner, sizeof(g->owner), "%s", s);
			r = 0;
		} else {
			return wlp_fail(c, "unknown key (a group accepts: name, "
				    "mbm_total_bytes, mbm_local_bytes, "
				    "llc_occupancy, socket, from, until, "
				    "unavailable, owner, tasks)");
		}
		if (r < 0)
			return r;
		wlp_path_pop(c, old);
	}
	if (!has_name)
		return wlp_fail(c, "missing \"name\" (the group, e.g. \"web\" or "
			    "\"web/mon_groups/job1\")");
	if (!strcmp(g->name, "/") && (has_from || has_until))
		return wlp_fail(c, "the root group \"/\" is there from mount to "
			    "unmount: no \"from\" or \"until\"");
	if (!(g->until > g->from))
		return wlp_fail(c, "\"until\" %g is not after \"from\" %g",
			    g->until, g->from);
	for (unsigned p = 0; p < np; p++)
		if (rates[WL_RDT_LOCAL * np + p] > rates[WL_RDT_TOTAL * np + p])
			return wlp_fail(c, "mbm_local_bytes %g > mbm_total_bytes "
				    "%g in phase %u: local traffic is part of "
				    "the total", rates[WL_RDT_LOCAL * np + p],
				    rates[WL_RDT_TOTAL * np + p], p);
	return 0;
}

/* Lifetimes: one group of a name at a time; a MON group within a
 * lifetime of its CTRL_MON parent. */
static int check_lifetimes(struct pctx *c, unsigned gi)
{
	const struct wl_rdt *rd = &c->w->rdt;
	const struct wl_rdt_group *g = &rd->groups[gi];
	char parent[WL_RDT_NAME_MAX];
	bool covered;

	for (unsigned j = 0; j < gi; j++) {
		const struct wl_rdt_group *h = &rd->groups[j];

		if (!strcmp(h->name, g->name) && g->from < h->until &&
		    h->from < g->until)
			return wlp_fail(c, "\"%s\" is also $.resctrl.groups[%u] "
				    "at the same time: give a re-made group a "
				    "\"from\" at or after the other's \"until\"",
				    g->name, j);
	}
	if (!g->is_mon)
		return 0;
	parent_of(g->name, parent, sizeof(parent));
	covered = !strcmp(parent, "/");
	for (unsigned j = 0; j < rd->ngroups && !covered; j++) {
		const struct wl_rdt_group *h = &rd->groups[j];

		covered = !strcmp(h->name, parent) && h->from <= g->from &&
			  g->until <= h->until;
	}
	if (!covered)
		return wlp_fail(c, "MON group \"%s\" needs its CTRL_MON group "
			    "\"%s\" as a group of this list for its whole "
			    "lifetime (resctrl makes a MON group inside one)",
			    g->name, parent);
	return 0;
}

/* threads[ti]: {"tid": N, "socket": S, "mbm_total_bytes": R, ...} */
static int parse_thread(struct pctx *c, json_object *o, unsigned ti)
{
	struct wl_rdt *rd = &c->w->rdt;
	struct wl_rdt_thread *t = &rd->threads[ti];
	unsigned np = c->w->nphases;
	double *rates = &rd->trates[(size_t)ti * WL_RDT_NEV * np];
	bool has_tid = false;
	uint64_t x;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return wlp_fail(c, "a thread must be an object {\"tid\": N, "
			    "\"mbm_total_bytes\": ...}, not %s", wlp_type_name(o));
	t->socket = -1;
	json_object_object_foreach(o, key, v) {
		size_t old = wlp_path_key(c, key);
		unsigned e;

		for (e = 0; e < WL_RDT_NEV && strcmp(key, ev_name[e]); e++)
			;
		if (e < WL_RDT_NEV) {
			r = get_rates(c, v, 1e15, e == WL_RDT_OCC ? "bytes of L3"
				      : "bytes per second", &rates[(size_t)e * np]);
		} else if (!strcmp(key, "tid")) {
			r = wlp_get_uint(c, v, 1, RDT_PID_MAX, "a thread id", &x);
			t->tid = (unsigned)x;
			has_tid = true;
		} else if (!strcmp(key, "socket")) {
			r = wlp_get_uint(c, v, 0, wl_sockets(c->w) - 1,
					 "a socket of the workload", &x);
			t->socket = (int)x;
		} else {
			r = wlp_fail(c, "unknown key (a thread has: tid, socket, "
				     "mbm_total_bytes, mbm_local_bytes, "
				     "llc_occupancy)");
		}
		if (r < 0)
			return r;
		wlp_path_pop(c, old);
	}
	if (!has_tid)
		return wlp_fail(c, "a thread needs its \"tid\"");
	for (unsigned j = 0; j < ti; j++)
		if (rd->threads[j].tid == t->tid)
			return wlp_fail(c, "tid %u is also threads[%u]", t->tid, j);
	for (unsigned p = 0; p < np; p++)
		if (rates[(size_t)WL_RDT_LOCAL * np + p] >
		    rates[(size_t)WL_RDT_TOTAL * np + p])
			return wlp_fail(c, "tid %u: mbm_local_bytes above "
				    "mbm_total_bytes in phase %u (local is a part "
				    "of the total)", t->tid, p);
	return 0;
}

static int parse_threads(struct pctx *c, json_object *v)
{
	struct wl_rdt *rd = &c->w->rdt;
	unsigned np = c->w->nphases;
	size_t n;
	int r;

	if (!json_object_is_type(v, json_type_array))
		return wlp_fail(c, "must be an array of threads, not %s",
			    wlp_type_name(v));
	n = json_object_array_length(v);
	if (n > WL_RDT_MAX_THREADS)
		return wlp_fail(c, "%zu threads: at most %d", n, WL_RDT_MAX_THREADS);
	rd->threads = calloc(n ? n : 1, sizeof(*rd->threads));
	rd->trates = calloc((n ? n : 1) * WL_RDT_NEV * (np ? np : 1),
			    sizeof(*rd->trates));
	if (!rd->threads || !rd->trates)
		return wlp_fail_nomem(c);
	rd->nthreads = (unsigned)n;
	for (size_t i = 0; i < n; i++) {
		size_t old = wlp_path_idx(c, i);

		if ((r = parse_thread(c, json_object_array_get_idx(v, i),
				      (unsigned)i)) < 0)
			return r;
		wlp_path_pop(c, old);
	}
	return 0;
}

/*
 * The DRAM bound: at each time a group is made, the groups alive then on
 * each socket, in every phase, move at most the socket's DRAM bytes/s.
 * The group named is the first, in list order, whose rate takes the sum
 * past the bound.
 */
static int check_dram(struct pctx *c)
{
	const struct workload *w = c->w;
	const struct wl_rdt *rd = &w->rdt;
	unsigned np = w->nphases, ns = wl_sockets(w);
	double *dram = calloc((size_t)ns * np + 1, sizeof(*dram));
	double *sum = calloc((size_t)np + 1, sizeof(*sum));
	double *tsum = calloc((size_t)ns * np + 1, sizeof(*tsum));
	int r = 0;

	if (!dram || !sum || !tsum) {
		free(dram);
		free(sum);
		free(tsum);
		return wlp_fail_nomem(c);
	}
	/* the bound once per socket, -1 where there is none */
	for (unsigned s = 0; s < ns; s++)
		if (dram_phases(w, s, &dram[(size_t)s * np], 3) < 0)
			for (unsigned p = 0; p < np; p++)
				dram[(size_t)s * np + p] = -1;
	/* the threads move bytes all the time, in whichever group */
	for (unsigned s = 0; s < ns && r == 0; s++)
		for (unsigned p = 0; p < np && r == 0; p++) {
			double ts = 0;

			for (unsigned i = 0; i < rd->nthreads; i++)
				if (rd->threads[i].socket < 0 ||
				    (unsigned)rd->threads[i].socket == s)
					ts += rd->trates[((size_t)i * WL_RDT_NEV +
							  WL_RDT_TOTAL) * np + p];
			tsum[(size_t)s * np + p] = ts;
			if (ts > 0 && dram[(size_t)s * np + p] < 0)
				r = wlp_fail(c, "threads: %s has no DRAM events to "
					 "bound their traffic by", w->plat->id);
			else if (ts > 0 && ts > dram[(size_t)s * np + p] * (1 + 1e-9))
				r = wlp_fail(c, "threads: they move %.6g bytes/s on "
					 "socket %u in phase %u, more than the "
					 "socket's DRAM bandwidth, %.6g bytes/s",
					 ts, s, p, dram[(size_t)s * np + p]);
		}
	for (unsigned t = 0; t < rd->ngroups && r == 0; t++) {
		double at = rd->groups[t].from;
		bool seen = false;

		/* each distinct time once */
		for (unsigned u = 0; u < t && !seen; u++)
			seen = rd->groups[u].from == at;
		for (unsigned s = 0; s < ns && r == 0 && !seen; s++) {
			const double *bound = &dram[(size_t)s * np];

			memcpy(sum, &tsum[(size_t)s * np], np * sizeof(*sum));
			for (unsigned g = 0; g < rd->ngroups && r == 0; g++) {
				const struct wl_rdt_group *x = &rd->groups[g];
				const double *v = &rd->rates[((size_t)g * WL_RDT_NEV +
							      WL_RDT_TOTAL) * np];

				if (x->from > at || x->until <= at ||
				    (x->socket >= 0 && (unsigned)x->socket != s))
					continue;
				for (unsigned p = 0; p < np && r == 0; p++) {
					sum[p] += v[p];
					if (v[p] > 0 && bound[p] < 0) {
						r = wlp_fail(c, "groups[%u] (\"%s\"): %s "
							 "has no DRAM events to bound "
							 "the groups' traffic by", g,
							 x->name, w->plat->id);
					} else if (sum[p] > bound[p] * (1 + 1e-9)) {
						/* a relative margin for the sum's
						 * rounding */
						size_t old = wlp_path_idx(c, g);

						r = wlp_fail(c, "group \"%s\": the groups "
							 "alive at %g s move %.6g bytes/s "
							 "on socket %u in phase %u "
							 "($.phases[%u]), more than the "
							 "socket's DRAM bandwidth in that "
							 "phase, %.6g bytes/s (the "
							 "workload's dram_rd + dram_wr "
							 "rates x 64): give the DRAM "
							 "events more, or the groups less",
							 x->name, at, sum[p], s, p, p,
							 bound[p]);
						wlp_path_pop(c, old);
					}
				}
			}
		}
	}
	free(dram);
	free(sum);
	free(tsum);
	return r;
}

static int parse_top(struct pctx *c, const char *key, json_object *v)
{
	struct wl_rdt *rd = &c->w->rdt;
	bool amd = is_amd(c->plat);
	uint64_t x;
	int r;

	if (!strcmp(key, "num_rmids")) {
		r = wlp_get_uint(c, v, 1, RDT_MAX_RMIDS, "RMIDs, the root group's "
				 "included", &x);
		rd->num_rmids = (unsigned)x;
		return r;
	}
	if (!strcmp(key, "limbo_s"))
		return wlp_get_number(c, v, 0, false, RDT_MAX_LIMBO_S, "seconds a "
				      "freed RMID stays in limbo", &rd->limbo_s);
	if (!strcmp(key, "snc")) {
		if (amd)
			return wlp_fail(c, "sub-NUMA clustering is Intel's: %s "
				    "has an L3 domain per CCX (\"l3_domains\")",
				    c->plat->id);
		r = wlp_get_uint(c, v, 1, 4, "SNC nodes per socket", &x);
		rd->snc = (unsigned)x;
		return r;
	}
	if (!strcmp(key, "l3_domains")) {
		if (!amd)
			return wlp_fail(c, "an Intel socket has one L3 domain; "
				    "use \"snc\" for sub-NUMA nodes");
		r = wlp_get_uint(c, v, 1, wl_cores(c->w), "L3 domains (CCX) per "
				 "socket, each with at least one simulated CPU", &x);
		rd->domains = (unsigned)x;
		return r;
	}
	if (!strcmp(key, "mbm_assign_mode")) {
		const char *s = json_object_is_type(v, json_type_string)
				? json_object_get_string(v) : "";

		if (strcmp(s, "default") && strcmp(s, "mbm_event"))
			return wlp_fail(c, "must be \"default\" or \"mbm_event\"");
		if (!amd)
			return wlp_fail(c, "assign modes come with AMD's "
				    "assignable counters (ABMC): not on %s",
				    c->plat->id);
		rd->abmc = !strcmp(s, "mbm_event");
		rd->assignable = true;
		return 0;
	}
	if (!strcmp(key, "num_mbm_cntrs")) {
		r = wlp_get_uint(c, v, 1, RDT_MAX_CNTRS, "ABMC counters per "
				 "domain", &x);
		rd->num_mbm_cntrs = (unsigned)x;
		return r;
	}
	return wlp_fail(c, "unknown key (\"resctrl\" accepts: num_rmids, "
		    "limbo_s, snc, l3_domains, mbm_assign_mode, num_mbm_cntrs, "
		    "groups, threads)");
}

int wlp_parse_rdt(struct pctx *c, json_object *o)
{
	struct wl_rdt *rd = &c->w->rdt;
	json_object *groups = NULL;
	unsigned np = c->w->nphases;
	size_t n;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return wlp_fail(c, "must be an object {\"num_rmids\": N, "
			    "\"groups\": [...]}, not %s", wlp_type_name(o));
	rd->present = true;
	rd->num_rmids = 64;
	rd->limbo_s = 1.0;
	rd->snc = 1;
	rd->domains = is_amd(c->plat) ? (wl_cores(c->w) >= 2 ? 2 : 1) : 1;
	json_object_object_foreach(o, key, v) {
		size_t old = wlp_path_key(c, key);

		if (!strcmp(key, "groups")) {
			groups = v;
		} else if (!strcmp(key, "threads")) {
			if ((r = parse_threads(c, v)) < 0)
				return r;
		} else if ((r = parse_top(c, key, v)) < 0) {
			return r;
		}
		wlp_path_pop(c, old);
	}
	if (rd->num_mbm_cntrs && !rd->assignable)
		return wlp_fail(c, "num_mbm_cntrs without \"mbm_assign_mode\" "
			    "(the CPU's assignable counters)");
	if (rd->assignable && !rd->num_mbm_cntrs)
		rd->num_mbm_cntrs = 32;
	if (rd->snc > 1 && rd->snc > wl_cores(c->w))
		return wlp_fail(c, "snc %u > cores %u: each node needs a CPU",
			    rd->snc, wl_cores(c->w));
	if (!groups)
		return check_dram(c);
	wlp_path_key(c, "groups");
	if (!json_object_is_type(groups, json_type_array))
		return wlp_fail(c, "must be an array of groups, not %s",
			    wlp_type_name(groups));
	n = json_object_array_length(groups);
	if (n > WL_RDT_MAX_GROUPS)
		return wlp_fail(c, "%zu groups: at most %d", n, WL_RDT_MAX_GROUPS);
	rd->groups = calloc(n ? n : 1, sizeof(*rd->groups));
	rd->rates = calloc((n ? n : 1) * WL_RDT_NEV * (np ? np : 1),
			   sizeof(*rd->rates));
	if (!rd->groups || !rd->rates)
		return wlp_fail_nomem(c);
	rd->ngroups = (unsigned)n;
	for (size_t i = 0; i < n; i++) {
		size_t old = wlp_path_idx(c, i);

		if ((r = parse_group(c, json_object_array_get_idx(groups, i),
				     (unsigned)i)) < 0)
			return r;
		wlp_path_pop(c, old);
	}
	for (unsigned i = 0; i < rd->ngroups; i++) {
		size_t old = wlp_path_idx(c, i);

		if (!strcmp(rd->groups[i].name, "/"))
			for (unsigned j = 0; j < i; j++)
				if (!strcmp(rd->groups[j].name, "/"))
					return wlp_fail(c, "the root group \"/\" "
						    "is also groups[%u]", j);
		if ((r = check_lifetimes(c, i)) < 0)
			return r;
		wlp_path_pop(c, old);
	}
	return check_dram(c);
}
