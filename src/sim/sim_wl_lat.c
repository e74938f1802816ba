/*
 * sim_wl_lat.c - a phase's "memory_latency" (issue 41 section 3): how
 * long the simulated machine's memory reads take at the phase's DRAM
 * bandwidth, a loaded-latency curve, turned into the rates of the
 * platform's latency events by Little's law.
 *
 * The curve: with u = the socket's DRAM bytes per second (read and
 * write, the platform's "dram_rd" and "dram_wr" sources at the phase's
 * rates) over peak_bytes_per_second, a local read takes
 *
 *	latency(u) = idle_ns / (1 - u), at most max_ns (10 x idle_ns
 *	unless given)
 *
 * and a remote one remote_ns / (1 - u), at most max_ns x remote_ns /
 * idle_ns.  The socket's reads that missed the LLC are its DRAM read
 * bytes / 64 (a symmetric machine: each socket asks for as much as its
 * memory serves), remote_share of them remote.  For each target the
 * platform's events split (all, local, remote), the inserts are those
 * reads per second and the occupancy reads x latency x the box clock
 * (cycles of one box per second: the uncore clock, uclk_hz), so that
 * occupancy / inserts / clock is the latency and occupancy / clock the
 * reads in flight.  The boxes share a socket's events evenly, or as
 * box_reads (the reads each box takes) and box_latency (each box's
 * latency relative to the others) say: the socket's sum over its boxes
 * stays the curve's, while a mean of per-box ratios does not.
 *
 * The events and their encodings per platform, with their sources, are
 * the platform's data (plat_sim.h struct plat_sim_lat, in src/plat/sim_*.c);
 * a platform without them refuses the key.  The
 * curve's rates are ordinary rate keys added to the workload: a rate
 * key the phase gives itself that counts on the same counter (same
 * encoding and filters, an overlapping socket and box) wins over the
 * curve's there.  An occupancy event of the table counts on counter 0
 * of its box only (the manuals' constraint): programmed on another
 * counter it counts nothing.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_wl_parse.h"
#include "plat/plat_sim.h"

#define LAT_MAX_NS 1e7		/* the largest latency the curve may give */
#define LAT_MAX_BOXES 512
#define LINE_BYTES 64.0

/* One phase's curve, as the workload gives it. */
struct lat_curve {
	double idle_ns, peak, max_ns, remote_ns, remote_share;
	unsigned nbox;		/* 0: the boxes share evenly */
	double *box_reads, *box_lat;	/* nbox each (box_lat 1s if not
					   given, box_reads 1s likewise) */
};

/* What the curve adds: a rate of a key in a phase. */
struct lat_ent {
	unsigned key, phase;
	double rate;
};

struct lat_acc {
	struct lat_ent *ents;
	size_t n, cap;
	unsigned nraw;		/* keys [0, nraw) are the workload's own */
	const bool *given;	/* nraw x nphases: a phase gives that key */
	unsigned keycap;
	/* DRAM bytes/s read and written (bw) and read (rd) of socket s in
	 * phase p at [s * nphases + p], the workload's own rates; bw NULL
	 * until a curve needs them */
	double *bw, *rd;
};

static const struct plat_sim_lat *model_of(const struct platform *p)
{
	return p && p->sim ? p->sim->lat : NULL;
}

/* "hsx, skx, ...": the platforms with a model. */
static void model_list(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; plat_all[i] && n < len; i++)
		if (model_of(plat_all[i]))
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "", plat_all[i]->id);
}

/* The uncore clock the simulator runs (hw_sim.c: the workload's
 * uclk_hz, else the platform's, else 800 MHz). */
static double uclk_of(const struct workload *w)
{
	if (w->topo.uclk_hz)
		return (double)w->topo.uclk_hz;
	if (w->plat->sim && w->plat->sim->uclk_hz)
		return (double)w->plat->sim->uclk_hz;
	return 800e6;
}

/* A box array: nbox numbers, each within lo..hi (lo excluded with
 * lo_open). */
static int box_array(struct pctx *c, json_object *o, unsigned nbox,
		     const char *unit, double lo, bool lo_open,
		     const char *what, double **out)
{
	size_t n;

	if (!json_object_is_type(o, json_type_array))
		return wlp_fail(c, "must be an array of one number per %s (%u "
			    "here), not %s", unit, nbox, wlp_type_name(o));
	n = json_object_array_length(o);
	if (n != nbox)
		return wlp_fail(c, "%zu values: the socket has %u %s boxes, one "
			    "value each", n, nbox, unit);
	*out = calloc(nbox, sizeof(**out));
	if (!*out)
		return wlp_fail_nomem(c);
	for (size_t i = 0; i < n; i++) {
		size_t old = wlp_path_idx(c, i);
		int r = wlp_get_number(c, json_object_array_get_idx(o, i), lo,
				       lo_open, 1e6, what, &(*out)[i]);

		if (r < 0)
			return r;
		wlp_path_pop(c, old);
	}
	return 0;
}

/* One member of "memory_latency" into cv (key checked by the caller's
 * table of names). */
static int curve_member(struct pctx *c, const char *key, json_object *v,
			struct lat_curve *cv, unsigned nbox, const char *unit)
{
	if (strcmp(key, "idle_ns") == 0)
		return wlp_get_number(c, v, 0, true, LAT_MAX_NS, "the latency "
				      "of a local read on an idle machine, ns",
				      &cv->idle_ns);
	if (strcmp(key, "peak_bytes_per_second") == 0)
		return wlp_get_number(c, v, 0, true, 1e15, "the DRAM bandwidth "
				      "at which the latency would grow without "
				      "bound, bytes per second per socket",
				      &cv->peak);
	if (strcmp(key, "max_ns") == 0)
		return wlp_get_number(c, v, 0, true, LAT_MAX_NS, "the local "
				      "latency at and beyond saturation, ns",
				      &cv->max_ns);
	if (strcmp(key, "remote_ns") == 0)
		return wlp_get_number(c, v, 0, true, LAT_MAX_NS, "the latency "
				      "of a remote read on an idle machine, ns",
				      &cv->remote_ns);
	if (strcmp(key, "remote_share") == 0)
		return wlp_get_number(c, v, 0, false, 1, "the share of the "
				      "reads that go to another socket's "
				      "memory, 0..1", &cv->remote_share);
	if (strcmp(key, "box_reads") == 0)
		return box_array(c, v, nbox, unit, 0, false, "the share of the "
				 "socket's reads this box takes, relative to "
				 "the others (>= 0)", &cv->box_reads);
	if (strcmp(key, "box_latency") == 0)
		return box_array(c, v, nbox, unit, 0, true, "this box's "
				 "latency relative to the others (> 0)",
				 &cv->box_lat);
	return wlp_fail(c, "unknown key (\"memory_latency\" accepts: idle_ns, "
		    "peak_bytes_per_second, max_ns, remote_ns, remote_share, "
		    "box_reads, box_latency)");
}

/* The phase's "memory_latency" object into cv; the path is at it. */
static int curve_parse(struct pctx *c, json_object *o,
		       const struct plat_sim_lat *m, unsigned nbox,
		       struct lat_curve *cv)
{
	bool has_share = false;
	double sum = 0;

	memset(cv, 0, sizeof(*cv));
	if (!json_object_is_type(o, json_type_object))
		return wlp_fail(c, "must be an object {\"idle_ns\": N, "
			    "\"peak_bytes_per_second\": N, ...}, not %s",
			    wlp_type_name(o));
	json_object_object_foreach(o, key, val) {
		size_t old = wlp_path_key(c, key);
		int r = curve_member(c, key, val, cv, nbox, m->unit);

		if (r < 0)
			return r;
		has_share |= strcmp(key, "remote_share") == 0;
		wlp_path_pop(c, old);
	}
	if (!cv->idle_ns)
		return wlp_fail(c, "missing \"idle_ns\" (a local read's latency "
			    "on an idle machine, ns)");
	if (!cv->peak)
		return wlp_fail(c, "missing \"peak_bytes_per_second\" (the DRAM "
			    "bandwidth per socket where the latency would grow "
			    "without bound)");
	if (!cv->max_ns)
		cv->max_ns = 10 * cv->idle_ns;
	if (cv->max_ns < cv->idle_ns)
		return wlp_fail(c, "max_ns %g < idle_ns %g (the cap is the "
			    "latency at saturation)", cv->max_ns, cv->idle_ns);
	if (has_share && cv->remote_share > 0 && !cv->remote_ns)
		return wlp_fail(c, "remote_share %g without \"remote_ns\" (how "
			    "long a remote read takes when idle)",
			    cv->remote_share);
	if (cv->remote_ns && !has_share)
		return wlp_fail(c, "remote_ns without \"remote_share\" (the share "
			    "of the reads, 0..1, that go remote)");
	if (cv->box_reads) {
		for (unsigned i = 0; i < nbox; i++)
			sum += cv->box_reads[i];
		if (!(sum > 0))
			return wlp_fail(c, "box_reads: every box takes 0 reads "
				    "(at least one must be > 0)");
	}
	if (cv->box_reads || cv->box_lat)
		cv->nbox = nbox;
	return 0;
}

/* The curve's latency, ns, of a read whose idle latency is idle, at
 * utilisation u. */
static double curve_ns(const struct lat_curve *cv, double idle, double u)
{
	double cap = cv->max_ns * idle / cv->idle_ns;

	if (u >= 1)
		return cap;
	return fmin(idle / (1 - u), cap);
}

/* Do keys a and b count on one counter somewhere (a raw key without a
 * socket, box or filter counts on all of them)? */
static bool overlap(const struct wl_key *a, const struct wl_key *b)
{
	if (a->unit != b->unit || a->freerun || b->freerun)
		return false;
	if (a->socket >= 0 && b->socket >= 0 && a->socket != b->socket)
		return false;
	if (a->inst >= 0 && b->inst >= 0 && a->inst != b->inst)
		return false;
	if (a->enc.code != b->enc.code || a->enc.umask != b->enc.umask ||
	    a->enc.thresh != b->enc.thresh || a->enc.edge != b->enc.edge ||
	    a->enc.inv != b->enc.inv || a->ext != b->ext)
		return false;
	if (a->has_filter0 && b->has_filter0 && a->filter0 != b->filter0)
		return false;
	return !(a->has_filter1 && b->has_filter1 && a->filter1 != b->filter1);
}

/* The curve's rate of the key text in phase p, unless one of the
 * phase's own keys counts on its counter. */
static int emit(struct pctx *c, struct lat_acc *a, const char *text,
		bool ctr0, unsigned p, double rate)
{
	struct workload *w = c->w;
	unsigned np = w->nphases, idx;
	struct wl_key k;
	int r;

	if ((r = wlp_parse_rate_key(c, text, &k)) < 0)
		return r;
	k.ctr0_only = ctr0;
	for (unsigned i = 0; i < a->nraw; i++)
		if (a->given[(size_t)i * np + p] && overlap(&w->keys[i], &k))
			return 0;	/* the phase's own key wins */
	for (idx = 0; idx < w->nkeys; idx++)
		if (wl_key_eq(&w->keys[idx], &k))
			break;
	if (idx == w->nkeys) {
		if (w->nkeys >= WL_MAX_KEYS)
			return wlp_fail(c, "too many distinct rate keys with the "
				    "curve's (at most %d over all phases; one "
				    "pair per box and socket with box_reads or "
				    "box_latency)", WL_MAX_KEYS);
		if (w->nkeys == a->keycap) {
			unsigned cap = a->keycap * 2 + 16;
			struct wl_key *nk = realloc(w->keys, cap * sizeof(*nk));

			if (!nk)
				return wlp_fail_nomem(c);
			w->keys = nk;
			a->keycap = cap;
		}
		w->keys[w->nkeys++] = k;
	}
	if (a->n == a->cap) {
		size_t cap = a->cap * 2 + 64;
		struct lat_ent *ne = realloc(a->ents, cap * sizeof(*ne));

		if (!ne)
			return wlp_fail_nomem(c);
		a->ents = ne;
		a->cap = cap;
	}
	a->ents[a->n++] = (struct lat_ent){ idx, p, rate };
	return 0;
}

/* One event pair of socket s in phase p: ins reads/s with occ
 * (occupancy counts)/s, over the boxes. */
static int emit_pair(struct pctx *c, struct lat_acc *a,
		     const struct plat_sim_lat *m, const struct plat_sim_lat_ev *e,
		     const struct lat_curve *cv, unsigned s, unsigned p,
		     double ins, double occ)
{
	char text[WL_MAX_KEYLEN + 1];
	double wr = 0, wl = 0;
	int r;

	if (!cv->nbox) {
		snprintf(text, sizeof(text), "s%u/%s", s, e->ins);
		if ((r = emit(c, a, text, false, p, ins)) < 0)
			return r;
		snprintf(text, sizeof(text), "s%u/%s", s, e->occ);
		return emit(c, a, text, m->occ_ctr0, p, occ);
	}
	for (unsigned i = 0; i < cv->nbox; i++) {
		double rd = cv->box_reads ? cv->box_reads[i] : 1;

		wr += rd;
		wl += rd * (cv->box_lat ? cv->box_lat[i] : 1);
	}
	for (unsigned i = 0; i < cv->nbox; i++) {
		double rd = cv->box_reads ? cv->box_reads[i] : 1;
		double f = cv->box_lat ? cv->box_lat[i] : 1;

		snprintf(text, sizeof(text), "s%u/%s@%u", s, e->ins, i);
		if ((r = emit(c, a, text, false, p, ins * rd / wr)) < 0)
			return r;
		snprintf(text, sizeof(text), "s%u/%s@%u", s, e->occ, i);
		if ((r = emit(c, a, text, m->occ_ctr0, p,
			      occ * rd * f / wl)) < 0)
			return r;
	}
	return 0;
}

/* Socket s in phase p under the curve: every event pair of the model. */
static int expand_socket(struct pctx *c, struct lat_acc *a,
			 const struct plat_sim_lat *m,
			 const struct lat_curve *cv, unsigned s, unsigned p)
{
	const struct workload *w = c->w;
	size_t i = (size_t)s * w->nphases + p;
	double bw = a->bw[i], rd = a->rd[i];
	double ins[PSL_NTARGETS], ns[PSL_NTARGETS], conv, u;
	int r;

	u = bw / cv->peak;
	ins[PSL_ALL] = rd / LINE_BYTES;
	ins[PSL_REMOTE] = ins[PSL_ALL] * cv->remote_share;
	ins[PSL_LOCAL] = ins[PSL_ALL] - ins[PSL_REMOTE];
	/* request-ns per second of each target */
	ns[PSL_LOCAL] = ins[PSL_LOCAL] * curve_ns(cv, cv->idle_ns, u);
	ns[PSL_REMOTE] = cv->remote_ns
			? ins[PSL_REMOTE] * curve_ns(cv, cv->remote_ns, u) : 0;
	ns[PSL_ALL] = ns[PSL_LOCAL] + ns[PSL_REMOTE];
	conv = m->clock ? uclk_of(w) * 1e-9 : m->per_ns;
	for (size_t j = 0; j < ARRAY_SIZE(m->ev) && m->ev[j].occ; j++) {
		const struct plat_sim_lat_ev *e = &m->ev[j];

		if ((r = emit_pair(c, a, m, e, cv, s, p, ins[e->tgt],
				   ns[e->tgt] * conv)) < 0)
			return r;
	}
	return 0;
}

/* Every socket's DRAM traffic in every phase into a->bw and a->rd, once
 * (the derived sources' rates over every phase at a time: a curve in
 * each of many phases costs no more). */
static int dram_traffic(struct pctx *c, struct lat_acc *a)
{
	const struct workload *w = c->w;
	unsigned np = w->nphases, ns = wl_sockets(w);

	if (a->bw)
		return 0;
	a->bw = calloc((size_t)ns * np, sizeof(*a->bw));
	a->rd = calloc((size_t)ns * np, sizeof(*a->rd));
	if (!a->bw || !a->rd)
		return wlp_fail_nomem(c);
	for (unsigned s = 0; s < ns; s++)
		if (wl_dram_bytes_phases(w, s, false, a->bw + (size_t)s * np) < 0 ||
		    wl_dram_bytes_phases(w, s, true, a->rd + (size_t)s * np) < 0)
			return wlp_fail(c, "the simulator knows no DRAM traffic of "
				    "%s (its \"dram_rd\" source) to put on the "
				    "curve", w->plat->id);
	return 0;
}

/* Phase p's curve, from its object o; the path is at the phase. */
static int expand_phase(struct pctx *c, struct lat_acc *a, json_object *o,
			unsigned p)
{
	const struct plat_sim_lat *m = model_of(c->plat);
	struct lat_curve cv;
	char list[128];
	unsigned nbox = 0;
	size_t old = wlp_path_key(c, "memory_latency");
	int ui = -1, r = 0;

	if (!m) {
		model_list(list, sizeof(list));
		return wlp_fail(c, "the simulator has no memory latency events "
			    "of %s (it has them of %s; give the rates of the "
			    "events themselves)", c->plat->id, list);
	}
	if (plat_unit(c->plat, m->unit, &ui))
		nbox = wl_unit_ninst(c->w, ui);
	if (nbox == 0 || nbox > LAT_MAX_BOXES)
		return wlp_fail(c, "%s has %u %s boxes (the curve needs 1..%d)",
			    c->plat->id, nbox, m->unit, LAT_MAX_BOXES);
	r = curve_parse(c, o, m, nbox, &cv);
	if (r == 0)
		r = dram_traffic(c, a);
	for (unsigned s = 0; r == 0 && s < wl_sockets(c->w); s++)
		r = expand_socket(c, a, m, &cv, s, p);
	if (r == 0 && m->clock)	/* one box's clock: the uncore clock */
		r = emit(c, a, m->clock, false, p, uclk_of(c->w) * nbox);
	free(cv.box_reads);
	free(cv.box_lat);
	if (r == 0)
		wlp_path_pop(c, old);
	return r;
}

int wlp_lat_expand(struct pctx *c, json_object *const *lat,
		   const bool *given)
{
	struct workload *w = c->w;
	struct lat_acc a = { .nraw = w->nkeys, .given = given,
			     .keycap = w->nkeys };
	unsigned np = w->nphases, nraw = w->nkeys;
	int r = 0;

	for (unsigned p = 0; p < np && r == 0; p++) {
		size_t old;

		if (!lat[p])
			continue;
		old = wlp_path_idx(c, p);
		r = expand_phase(c, &a, lat[p], p);
		if (r == 0)
			wlp_path_pop(c, old);
	}
	if (r == 0 && w->nkeys > nraw) {
		double *nr = realloc(w->rates, ((size_t)w->nkeys * np + 1) *
					       sizeof(*nr));

		if (!nr) {
			r = wlp_fail_nomem(c);
		} else {
			w->rates = nr;
			memset(nr + (size_t)nraw * np, 0,
			       (size_t)(w->nkeys - nraw) * np * sizeof(*nr));
			for (size_t i = 0; i < a.n; i++)
				nr[(size_t)a.ents[i].key * np +
				   a.ents[i].phase] = a.ents[i].rate;
		}
	}
	free(a.ents);
	free(a.bw);
	free(a.rd);
	return r;
}
