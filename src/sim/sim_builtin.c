/*
 * sim_builtin.c - the simulator's built-in workloads (wl_builtin()): what
 * `uncored --simulate` counts without --workload.  Every catalog event of
 * the platform gets a plausible, slowly varying rate, generated from the
 * catalog (so new events get one too) by the platform's built-in workload
 * data (plat_sim.h, struct plat_sim_builtin: base quantities per phase
 * and each event's fraction of one), so the headline events stay
 * consistent with each other.  Nothing here is written for a platform.
 * Split out of sim_workload.c, which parses workload files; both fill the
 * same struct workload.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_workload.h"
#include "plat/plat_mod.h"	/* event modifiers, as the daemon reads them */
#include "plat/plat_sim.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The rule for an event or counter name: an exact name, else a
 * "*SUFFIX" one; NULL if none. */
static const struct plat_sim_rate *rule_of(const struct plat_sim_builtin *b,
					   const char *name)
{
	for (size_t i = 0; i < b->nrules; i++)
		if (strcmp(b->rules[i].name, name) == 0)
			return &b->rules[i];
	for (size_t i = 0; i < b->nrules; i++)
		if (b->rules[i].name[0] == '*' &&
		    ends_with(name, b->rules[i].name + 1))
			return &b->rules[i];
	return NULL;
}

/* The rate of a unit's events without a rule, or NULL (none). */
static const struct plat_sim_rate *unit_rate(const struct plat_sim_builtin *b,
					     const char *unit)
{
	const struct plat_sim_rate *any = NULL;

	for (size_t i = 0; i < b->nunits; i++) {
		if (!b->units[i].name)
			any = &b->units[i];
		else if (strcmp(b->units[i].name, unit) == 0)
			return &b->units[i];
	}
	return any;
}

/* The key as a workload file would write it. */
static void key_text(struct wl_key *k, const char *unit)
{
	size_t n, len = sizeof(k->text);

	n = (size_t)snprintf(k->text, len, "%s:0x%02x:0x%02" PRIx64, unit,
			     k->enc.code, k->enc.umask);
	if (k->enc.thresh && n < len)
		n += (size_t)snprintf(k->text + n, len - n, ":thresh=%u",
				      k->enc.thresh);
	if (k->enc.edge && n < len)
		n += (size_t)snprintf(k->text + n, len - n, ":edge");
	if (k->enc.inv && n < len)
		n += (size_t)snprintf(k->text + n, len - n, ":inv");
	if (k->ext && n < len)
		n += (size_t)snprintf(k->text + n, len - n, ":ext");
	if (k->has_filter0 && n < len)
		snprintf(k->text + n, len - n, ":filter0=0x%" PRIx64, k->filter0);
}

/* Adds k with per-phase rates base[q] x scale unless an equal key
 * exists; -ENOMEM when full. */
static int bi_add(struct workload *w, unsigned cap,
		  const struct plat_sim_builtin *b, const struct wl_key *k,
		  unsigned q, double scale)
{
	for (unsigned i = 0; i < w->nkeys; i++)
		if (wl_key_eq(&w->keys[i], k))
			return 0;
	if (w->nkeys >= cap)
		return -ENOMEM;
	w->keys[w->nkeys] = *k;
	for (unsigned p = 0; p < b->nphases; p++) {
		double base[PLAT_SIM_MAX_Q];

		b->quantities(p, b->nphases, base);
		w->rates[(size_t)w->nkeys * b->nphases + p] = base[q] * scale;
	}
	w->nkeys++;
	return 0;
}

/* Adds k at rule (or unit rate) r's rate: ninst instances. */
static int bi_add_rate(struct workload *w, unsigned cap,
		       const struct plat_sim_builtin *b, const struct wl_key *k,
		       const struct plat_sim_rate *r,
		       const struct plat_sim_rate *unit, unsigned ninst)
{
	unsigned q = r->q;

	if (q == PLAT_SIM_UNIT_Q) {
		if (!unit)
			return 0;
		q = unit->q;
	}
	if (q >= b->nq)
		return -EINVAL;
	return bi_add(w, cap, b, k, q, r->frac * (r->per_inst ? ninst : 1));
}

/*
 * An empty built-in workload of plat on b's machine with room for cap
 * rate keys.  NULL on ENOMEM; the caller frees it with wl_free().
 */
static struct workload *bi_new(const struct platform *plat,
			       const struct plat_sim_builtin *b, unsigned cap)
{
	struct workload *w = calloc(1, sizeof(*w));
	int ui;

	if (!w)
		return NULL;
	w->source = strdup("(built-in)");
	w->plat = plat;
	w->topo = (struct wl_topology){ .sockets = b->sockets,
					.dies = b->dies,
					.uclk_hz = b->uclk_hz,
					.dclk_hz = b->dclk_hz,
					.has_mmio_bar = b->has_mmio_bar,
					.mmio_bar = b->mmio_bar };
	for (size_t i = 0; i < b->nninst; i++)
		if (plat_unit(plat, b->ninst[i].unit, &ui))
			w->topo.count[ui] = b->ninst[i].n;
	w->nphases = b->nphases;
	w->phase_s = calloc(b->nphases, sizeof(*w->phase_s));
	w->keys = calloc(cap + 1, sizeof(*w->keys));
	w->rates = calloc((size_t)(cap + 1) * b->nphases, sizeof(*w->rates));
	if (!w->source || !w->phase_s || !w->keys || !w->rates) {
		wl_free(w);
		return NULL;
	}
	for (unsigned p = 0; p < b->nphases; p++)
		w->phase_s[p] = b->phase_s;
	w->period_s = b->nphases * b->phase_s;
	return w;
}

/* The keys of one programmable catalog event. */
static int bi_event(struct workload *w, unsigned cap,
		    const struct plat_sim_builtin *b, const struct event *ev)
{
	const struct platform *p = w->plat;
	const struct plat_sim_rate *rule = rule_of(b, ev->name);
	const struct plat_sim_rate *unit = unit_rate(b, ev->unit);
	struct wl_key k = { .socket = -1, .inst = -1 };
	const struct unit_type *u = plat_unit(p, ev->unit, &k.unit);
	unsigned ninst;
	int r = 0;

	if (!u || u->kind != UNIT_PROG || (!unit && !rule))
		return 0;
	ninst = wl_unit_ninst(w, k.unit);
	k.enc = event_enc_of(ev);
	k.ext = ev->ev_sel_ext && u->ev_ext_bit;
	if (ev->flags & EVF_FILTER0) {
		/* One key per FILTER0 value a headline quantity uses: the
		 * value is read from the quantity's event as the daemon will
		 * count it (its :filter0= modifier), so the two cannot drift
		 * apart.  The quantities whose event is this one count here
		 * (skx: TOR_INSERTS.IA lookups, .IA_MISS misses, one filter
		 * value); an event no quantity names plays each quantity's
		 * value once (hsx: every LLC_LOOKUP umask at the lookups' and
		 * the misses' states). */
		const struct derived_table *dt = p->derived;
		uint64_t done[PLAT_SIM_MAX_Q];
		unsigned ndone = 0;
		bool named = false;

		for (int pass = 0; pass < 2 && r == 0; pass++) {
			for (size_t i = 0; dt && i < dt->nsrc && r == 0; i++) {
				const struct plat_sim_filter_q *fq = NULL;
				struct plat_mods qm;
				char rest[128], why[160];
				bool same, dup = false;

				for (size_t j = 0; j < b->nfilter_q; j++)
					if (strcmp(b->filter_q[j].src,
						   dt->src[i].name) == 0)
						fq = &b->filter_q[j];
				if (!fq || fq->q >= b->nq ||
				    plat_parse_modifiers(dt->src[i].event,
							 PLAT_MOD_FILTER |
							 PLAT_MOD_SPLIT, rest,
							 sizeof(rest), &qm, why,
							 sizeof(why)) < 0 ||
				    !(qm.filt_set & 1))
					continue;
				same = strcmp(rest, ev->name) == 0;
				if (pass == 0) {
					named |= same;
					continue;
				}
				if (named && !same)
					continue;
				for (unsigned d = 0; d < ndone; d++)
					dup |= done[d] == qm.filt[0];
				if (dup || ndone == PLAT_SIM_MAX_Q)
					continue;
				done[ndone++] = qm.filt[0];
				k.has_filter0 = true;
				k.filter0 = qm.filt[0];
				key_text(&k, ev->unit);
				r = bi_add(w, cap, b, &k, fq->q,
					   rule ? rule->frac : unit->frac);
			}
		}
		return r;
	}
	key_text(&k, ev->unit);
	return bi_add_rate(w, cap, b, &k, rule ? rule : unit, unit, ninst);
}

int wl_builtin(const struct platform *plat, struct workload **out)
{
	const struct plat_sim_builtin *b = plat && plat->sim ? plat->sim->builtin
							    : NULL;
	struct workload *w;
	unsigned cap = 16;
	int r = 0;

	*out = NULL;
	if (!b || b->nq > PLAT_SIM_MAX_Q)
		return -ENOTSUP;
	for (size_t i = 0; i < plat->nevents; i++)
		cap += 1 + (plat->events[i].flags & EVF_FILTER0 ?
			    (unsigned)b->nfilter_q : 0);
	for (unsigned ui = 0; plat->units[ui]; ui++)
		cap += plat->units[ui]->nfreerun;
	w = bi_new(plat, b, cap);
	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < plat->nevents && r == 0; i++)
		r = bi_event(w, cap, b, &plat->events[i]);
	for (int ui = 0; plat->units[ui] && r == 0; ui++) {
		const struct unit_type *u = plat->units[ui];
		const struct plat_sim_rate *unit = unit_rate(b, u->name);
		unsigned ninst = wl_unit_ninst(w, ui);

		for (unsigned i = 0; i < u->nfreerun && r == 0; i++) {
			const struct plat_sim_rate *rule =
				rule_of(b, u->freerun[i].name);
			struct wl_key k = { .socket = -1, .inst = -1, .unit = ui,
					    .freerun = true, .freerun_idx = i };

			if (!rule && !unit)
				continue;
			snprintf(k.text, sizeof(k.text), "%s:%s", u->name,
				 u->freerun[i].name);
			r = bi_add_rate(w, cap, b, &k, rule ? rule : unit, unit,
					ninst);
		}
	}
	if (r < 0) {
		wl_free(w);
		return r;
	}
	*out = w;
	return 0;
}

/* ---- the self-test workload ----------------------------------------------- */

/*
 * What `uncored --self-test --simulate` runs against (selftest.c): three
 * phases of WL_ST_PHASE_S seconds, repeating - quiet, stream (8 GB/s of
 * DRAM reads, most lookups missing), pointer chase (misses 400x the quiet
 * rate) - on the headline events of the platform's baseline, on the
 * machine of the default built-in workload.  Per socket: LLC lookups, LLC
 * misses, DRAM read lines (64 bytes each).
 */
static const double st_rates[3][3] = {
	{ 1.0e7, 1.0e5, 1.0e6 },	/* quiet */
	{ 2.0e8, 1.25e8, 1.25e8 },	/* stream */
	{ 5.0e7, 4.0e7, 4.0e7 },	/* chase */
};

/*
 * Adds the uncore clock's programmable event to every phase of the
 * self-test workload text[0..n): uclk_hz on each instance of its unit
 * (a key without "@" splits over the instances, so the socket's rate is
 * uclk_hz times the built-in machine's count).  Returns the new length.
 */
static size_t add_clock(const struct plat_sim_builtin *b, char *text, size_t n,
			size_t len)
{
	size_t ulen = strcspn(b->selftest_clock, ":");
	unsigned ninst = 1;
	char *at;

	for (size_t i = 0; i < b->nninst; i++)
		if (strlen(b->ninst[i].unit) == ulen &&
		    !strncmp(b->ninst[i].unit, b->selftest_clock, ulen))
			ninst = b->ninst[i].n;
	/* each phase's rates object ends in " } }": insert before it */
	for (at = strstr(text, " } }"); at && n + 64 < len;
	     at = strstr(at + 4, " } }")) {
		char add[64];
		int w = snprintf(add, sizeof(add), ", \"%s\": %.6g",
				 b->selftest_clock, (double)b->uclk_hz * ninst);

		memmove(at + w, at, n - (size_t)(at - text) + 1);
		memcpy(at, add, (size_t)w);
		n += (size_t)w;
		at += w;
	}
	return n;
}

int wl_builtin_selftest(const struct platform *plat, struct workload **out)
{
	const struct plat_sim_builtin *b = plat && plat->sim ? plat->sim->builtin
							    : NULL;
	const char *const *keys;
	char text[2048], err[512], head[64];
	struct workload *def;
	size_t n;
	int r;

	if (!b)
		return -ENOENT;
	keys = b->selftest_keys;
	snprintf(head, sizeof(head), "\"platform\": \"%s\"", plat->id);
	n = (size_t)snprintf(text, sizeof(text), "{ %s, \"phases\": [", head);
	for (unsigned p = 0; p < 3; p++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "%s { \"seconds\": %g, \"rates\": { "
				      "\"%s\": %g, \"%s\": %g, \"%s\": %g } }",
				      p ? "," : "", WL_ST_PHASE_S, keys[0],
				      st_rates[p][0], keys[1], st_rates[p][1],
				      keys[2], st_rates[p][2]);
	if (b->selftest_clock)	/* re-opened: the clock in every phase */
		n = add_clock(b, text, n, sizeof(text));
	n += (size_t)snprintf(text + n, sizeof(text) - n, " ] }");
	r = wl_parse(text, n, "(built-in self-test)", plat, out, err,
		     sizeof(err));
	/* The default built-in's machine, so that a state file shared with
	 * a daemon on the default workload has the same layout. */
	if (r == 0 && wl_builtin(plat, &def) == 0) {
		(*out)->topo = def->topo;
		wl_free(def);
	}
	return r;
}
