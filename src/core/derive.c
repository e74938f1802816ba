/*
 * derive.c - the derived-metric evaluator (see derive.h and the table
 * format in plat.h).
 *
 * Two flat layouts.  Source values: per source, per socket, a block of
 * 1 + ninst doubles (the socket sum, then each instance of the source's
 * unit).  Metric values: per metric, per socket, one double or ninst.
 * The plan keeps, per series, the source values it adds to ("terms"),
 * so evaluating is one pass over the terms plus one short postfix
 * formula per value.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "derive.h"
#include "plat/derived.h"
#include "pmu/sched.h"

struct term {
	unsigned series;
	unsigned sv;		/* source value it adds to */
	double k;		/* source scale x split scale */
	bool live;		/* its series counts while frozen */
};

struct dmet {
	bool present;		/* every source counted */
	unsigned base;		/* first value */
	unsigned ninst;		/* 0: per socket */
	int src[DM_MAX_STEPS];	/* source of each DF_SRC step */
};

struct derive_plan {
	const struct derived_table *tab;
	/* the platform's table with the families derive adds (total_table()),
	 * when it adds any: tab points here, own_m holds the metrics */
	struct derived_table own;
	struct derived_metric *own_m;
	/* per source entry: the entry whose values its group adds to (the
	 * first of the chosen alternative of its name), or -1 when its
	 * alternative was not chosen */
	int *rep;
	unsigned nsockets, ns;
	unsigned *sbase, *sninst;	/* source value layout */
	unsigned nsv;
	uint8_t *svseen;		/* some series adds to it */
	struct term *terms;
	unsigned nterms;
	struct dmet *m;
	unsigned nvals;
	uint8_t *live;
};

/* Source index by name (its first entry), or -1. */
static int src_index(const struct derived_table *tab, const char *name)
{
	for (size_t j = 0; j < tab->nsrc; j++)
		if (name && strcmp(tab->src[j].name, name) == 0)
			return (int)j;
	return -1;
}

static int event_unit(const struct platform *pl, const char *event);

/* Does some socket of t have an instance of every unit that the entries
 * of source name with alternative alt count on? */
static bool alt_present(const struct platform *pl, const struct topology *t,
			const char *name, unsigned alt)
{
	const struct derived_table *tab = pl->derived;

	for (size_t j = 0; j < tab->nsrc; j++) {
		bool any = false;
		int u;

		if (strcmp(tab->src[j].name, name) || tab->src[j].alt != alt)
			continue;
		u = event_unit(pl, tab->src[j].event);
		for (unsigned s = 0; u >= 0 && s < t->nsockets; s++)
			any |= t->sock[s].ninst[u] > 0;
		if (!any)
			return false;
	}
	return true;
}

/* rep[] of a plan: per name, the first alternative whose units t has
 * (else the first alternative); its entries add to its first entry. */
static void choose_alternatives(const struct platform *pl,
				const struct topology *t, int *rep)
{
	const struct derived_table *tab = pl->derived;

	for (size_t j = 0; j < tab->nsrc; j++) {
		int first = src_index(tab, tab->src[j].name), chosen = -1;

		rep[j] = -1;
		for (size_t k = (size_t)first; k < tab->nsrc && chosen < 0; k++)
			if (!strcmp(tab->src[k].name, tab->src[j].name) &&
			    alt_present(pl, t, tab->src[k].name,
					tab->src[k].alt))
				chosen = (int)k;
		if (chosen < 0)
			chosen = first;
		if (tab->src[j].alt == tab->src[chosen].alt)
			rep[j] = chosen;
	}
}

/* The source entry name's values live in: its chosen alternative's
 * first entry (its first entry when none was chosen), or -1. */
static int name_rep(const struct derive_plan *dp, const char *name)
{
	const struct derived_table *tab = dp->tab;
	int first = src_index(tab, name);

	for (size_t j = first < 0 ? tab->nsrc : (size_t)first;
	     j < tab->nsrc && !strcmp(tab->src[j].name, name); j++)
		if (dp->rep[j] >= 0)
			return dp->rep[j];
	return first;
}

/* Instances of unit u present on socket s (at least 1). */
static unsigned present(const struct topo_socket *s, int u)
{
	unsigned n = 0;

	for (unsigned i = 0; u >= 0 && i < s->ninst[u]; i++)
		n += topo_present(s, (unsigned)u, i);
	return n ? n : 1;
}

/* The platform unit index of an event as the baseline names it
 * ("EVENT:filter0=...": the catalog name ends at the first ':'), or -1. */
static int event_unit(const struct platform *pl, const char *event)
{
	char base[128];
	size_t n = strcspn(event, ":");
	const struct event *ev;
	int idx = -1;

	if (n >= sizeof(base))
		return -1;
	memcpy(base, event, n);
	base[n] = '\0';
	ev = plat_event(pl, base);
	if (!ev || !plat_unit(pl, ev->unit, &idx))
		return -1;
	return idx;
}

static bool same_labels(const char *const *a, const char *const *b)
{
	unsigned i = 0;

	for (; a[i] && b[i]; i += 2)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return !a[i] && !b[i];
}

/* The same fixed labels, names and values. */
static bool same_fixed(const char *const *a, const char *const *b)
{
	unsigned i = 0;

	for (; a[i] && b[i]; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return !a[i] && !b[i];
}

static bool is_summary(enum dm_type t)
{
	return t == DM_SUM || t == DM_COUNT;
}

static bool streq0(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Checks one metric's formula: known sources, counter rules, stack. */
static int check_formula(const struct platform *pl,
			 const struct derived_table *tab,
			 const struct derived_metric *dm, char *why,
			 size_t whylen)
{
	int depth = 0, unit = -2;
	unsigned k;

	for (k = 0; k < DM_MAX_STEPS && dm->f[k].op != DF_END_; k++) {
		const struct dm_step *st = &dm->f[k];
		bool lin = st->op == DF_SRC_ || st->op == DF_ADD_ ||
			   (st->op == DF_SCALE_ && st->k >= 0);

		if ((dm->type == DM_COUNTER || dm->type == DM_COUNT) && !lin) {
			snprintf(why, whylen, "%s: step %u: a counter may only "
				 "add sources and scale them by k >= 0",
				 dm->name, k + 1);
			return -EINVAL;
		}
		/* a summary's _sum adds what each interval gives: never
		 * less than nothing */
		if (dm->type == DM_SUM && (st->op == DF_SUB_ ||
		    (st->op == DF_SCALE_ && st->k < 0))) {
			snprintf(why, whylen, "%s: step %u: a summary's sum may "
				 "not subtract", dm->name, k + 1);
			return -EINVAL;
		}
		switch (st->op) {
		case DF_SRC_: {
			int j = src_index(tab, st->src), u;

			if (j < 0) {
				snprintf(why, whylen, "%s: unknown source \"%s\"",
					 dm->name, st->src ? st->src : "(null)");
				return -EINVAL;
			}
			u = event_unit(pl, tab->src[j].event);
			for (size_t a = (size_t)j + 1; dm->per && a < tab->nsrc &&
			     !strcmp(tab->src[a].name, st->src); a++)
				if (event_unit(pl, tab->src[a].event) != u)
					u = -1;
			if (dm->per && (u < 0 || (unit != -2 && u != unit))) {
				snprintf(why, whylen, "%s: per-%s sources must "
					 "be catalog events of one unit",
					 dm->name, dm->per);
				return -EINVAL;
			}
			unit = u;
			depth++;
			break;
		}
		case DF_SCALE_:
		case DF_RATE_:
			if (depth < 1)
				goto underflow;
			break;
		default:	/* binary */
			if (depth < 2)
				goto underflow;
			depth--;
		}
	}
	if (depth != 1 || k == 0) {
		snprintf(why, whylen, "%s: the formula leaves %d values, not 1",
			 dm->name, depth);
		return -EINVAL;
	}
	return 0;
underflow:
	snprintf(why, whylen, "%s: step %u needs more operands", dm->name,
		 k + 1);
	return -EINVAL;
}

/* derive_check() of table tab, pl's or the one a plan evaluates */
static int check_table(const struct platform *pl,
		       const struct derived_table *tab, char *why,
		       size_t whylen)
{
	for (size_t j = 0; j < tab->nsrc; j++) {
		int first = src_index(tab, tab->src[j].name);

		if (event_unit(pl, tab->src[j].event) < 0) {
			snprintf(why, whylen, "source %s: \"%s\" is not in the "
				 "%s catalog", tab->src[j].name,
				 tab->src[j].event, pl->id);
			return -EINVAL;
		}
		if ((size_t)first != j &&
		    (strcmp(tab->src[j - 1].name, tab->src[j].name) ||
		     tab->src[j].mean != tab->src[first].mean ||
		     tab->src[j].alt < tab->src[j - 1].alt)) {
			snprintf(why, whylen, "source %s: its entries must be "
				 "adjacent, in alternative order, and agree on "
				 "mean", tab->src[j].name);
			return -EINVAL;
		}
	}
	for (size_t m = 0; m < tab->nm; m++) {
		const struct derived_metric *dm = &tab->m[m];
		size_t len = strlen(dm->name);

		if (check_formula(pl, tab, dm, why, whylen) < 0)
			return -EINVAL;
		if ((dm->type == DM_COUNTER) !=
		    (len > 6 && strcmp(dm->name + len - 6, "_total") == 0)) {
			snprintf(why, whylen, "%s: counters, and only they, end "
				 "in _total", dm->name);
			return -EINVAL;
		}
		if (dm->json_only && dm->type != DM_GAUGE) {
			snprintf(why, whylen, "%s: only a gauge may be JSON only",
				 dm->name);
			return -EINVAL;
		}
		/* a summary: DM_SUM then DM_COUNT, the same family and labels */
		if ((dm->type == DM_SUM &&
		     (m + 1 >= tab->nm || tab->m[m + 1].type != DM_COUNT ||
		      strcmp(tab->m[m + 1].name, dm->name) ||
		      !same_fixed(tab->m[m + 1].fixed, dm->fixed))) ||
		    (dm->type == DM_COUNT &&
		     (m == 0 || tab->m[m - 1].type != DM_SUM ||
		      strcmp(tab->m[m - 1].name, dm->name)))) {
			snprintf(why, whylen, "%s: a summary is a DM_SUM entry "
				 "followed by a DM_COUNT entry of the same name "
				 "and labels", dm->name);
			return -EINVAL;
		}
		if (!dm->json || !dm->help || !*dm->help) {
			snprintf(why, whylen, "%s: no JSON key or help", dm->name);
			return -EINVAL;
		}
		for (size_t o = 0; o < m; o++) {
			const struct derived_metric *x = &tab->m[o];

			if (streq0(x->per, dm->per) &&
			    strcmp(x->json, dm->json) == 0) {
				snprintf(why, whylen, "%s and %s share the JSON "
					 "key %s", x->name, dm->name, dm->json);
				return -EINVAL;
			}
			if (strcmp(x->name, dm->name) != 0)
				continue;
			if (o != m - 1 && strcmp(tab->m[m - 1].name, dm->name)) {
				snprintf(why, whylen, "%s: entries of one family "
					 "must be adjacent", dm->name);
				return -EINVAL;
			}
			if ((x->type != dm->type &&
			     !(is_summary(x->type) && is_summary(dm->type))) ||
			    x->json_only != dm->json_only ||
			    !streq0(x->per, dm->per) ||
			    !streq0(x->unit, dm->unit) ||
			    strcmp(x->help, dm->help) != 0 ||
			    !same_labels(x->fixed, dm->fixed)) {
				snprintf(why, whylen, "%s: entries of one family "
					 "differ in type, labels, unit or help",
					 dm->name);
				return -EINVAL;
			}
			if (same_fixed(x->fixed, dm->fixed) &&
			    !(o == m - 1 && dm->type == DM_COUNT)) {
				snprintf(why, whylen, "%s: entries of one family "
					 "need fixed labels to tell them apart",
					 dm->name);
				return -EINVAL;
			}
		}
	}
	return 0;
}

int derive_check(const struct platform *pl, char *why, size_t whylen)
{
	if (!pl->derived)	/* a platform without derived metrics */
		return 0;
	return check_table(pl, pl->derived, why, whylen);
}

/* Socket metric with JSON key json and no fixed labels, or -1. */
static int socket_metric(const struct derived_table *tab, const char *json)
{
	for (size_t m = 0; m < tab->nm; m++)
		if (!tab->m[m].per && !tab->m[m].fixed[0] &&
		    strcmp(tab->m[m].json, json) == 0)
			return (int)m;
	return -1;
}

static unsigned nsteps(const struct dm_step *f)
{
	unsigned k = 0;

	while (k < DM_MAX_STEPS && f[k].op != DF_END_)
		k++;
	return k;
}

/*
 * The DRAM total families (derived.h DM_DRAM_TOTAL), for every platform
 * alike: where tab has the socket's read and write bytes but no total,
 * the total is their sum; where it has a total (its own, zen3's, or that
 * sum) but no total bandwidth gauge, the gauge is the total's rate.  So a
 * dashboard's or the live page's total works on every platform that has
 * DRAM figures, whichever way its data counts them.  Fills dp->own and
 * points dp->tab at it when it adds a family; 0 or -ENOMEM.
 */
static const char total_help[] = "Bytes read from and written to the "
	"socket's DRAM: uncore_dram_read_bytes_total + "
	"uncore_dram_write_bytes_total.";
static const char total_bw_help[] = "DRAM bandwidth, reads and writes "
	"together, over the last sampling interval.";

static int total_table(struct derive_plan *dp)
{
	const struct derived_table *tab = dp->tab;
	int r = socket_metric(tab, "dram_read_bytes_total");
	int w = socket_metric(tab, "dram_write_bytes_total");
	int t = socket_metric(tab, DM_DRAM_TOTAL_JSON);
	bool sum = t < 0 && r >= 0 && w >= 0 &&
		   tab->m[r].type == DM_COUNTER && tab->m[w].type == DM_COUNTER &&
		   nsteps(tab->m[r].f) + nsteps(tab->m[w].f) + 2 <= DM_MAX_STEPS;
	bool gauge = (sum || t >= 0) &&
		     socket_metric(tab, DM_DRAM_TOTAL_BW_JSON) < 0 &&
		     (sum || nsteps(tab->m[t].f) + 1 <= DM_MAX_STEPS);
	struct derived_metric *m, *x;
	unsigned k;

	if (!sum && !gauge)
		return 0;
	m = calloc(tab->nm + 2, sizeof(*m));
	if (!m)
		return -ENOMEM;
	if (tab->nm)
		memcpy(m, tab->m, tab->nm * sizeof(*m));
	dp->own = *tab;
	dp->own.m = m;
	if (sum) {
		x = &m[dp->own.nm++];
		*x = (struct derived_metric){ DM_DRAM_TOTAL_NAME,
			DM_DRAM_TOTAL_JSON, total_help, "bytes", DM_COUNTER,
			NULL, { NULL }, { DF_END } };
		k = nsteps(tab->m[r].f);
		memcpy(x->f, tab->m[r].f, k * sizeof(x->f[0]));
		memcpy(x->f + k, tab->m[w].f,
		       nsteps(tab->m[w].f) * sizeof(x->f[0]));
		k += nsteps(tab->m[w].f);
		x->f[k] = (struct dm_step)DF_ADD;
		t = (int)(x - m);
	}
	if (gauge) {
		x = &m[dp->own.nm++];
		*x = (struct derived_metric){ DM_DRAM_TOTAL_BW_NAME,
			DM_DRAM_TOTAL_BW_JSON, total_bw_help, "bytes_per_second",
			DM_GAUGE, NULL, { NULL }, { DF_END } };
		k = nsteps(m[t].f);
		memcpy(x->f, m[t].f, k * sizeof(x->f[0]));
		x->f[k] = (struct dm_step)DF_RATE;
	}
	dp->own_m = m;
	dp->tab = &dp->own;
	return 0;
}

void derive_plan_free(struct derive_plan *dp)
{
	if (!dp)
		return;
	free(dp->own_m);
	free(dp->rep);
	free(dp->sbase);
	free(dp->sninst);
	free(dp->svseen);
	free(dp->terms);
	free(dp->m);
	free(dp->live);
	free(dp);
}

/* Index of source j's value on socket s: the sum, or instance inst. */
static unsigned sv_index(const struct derive_plan *dp, int j, unsigned s,
			 int inst)
{
	return dp->sbase[j] + s * (1 + dp->sninst[j]) +
	       (inst < 0 ? 0 : 1 + (unsigned)inst);
}

/* Step 1: where each source's values live (the socket sum, then each
 * instance of its unit). */
static void plan_layout(struct derive_plan *dp, const struct topology *t)
{
	const struct derived_table *tab = dp->tab;

	for (size_t j = 0; j < tab->nsrc; j++) {
		int u = event_unit(t->plat, tab->src[j].event);

		for (unsigned s = 0; s < t->nsockets; s++)
			if (t->sock[s].ninst[u] > dp->sninst[j])
				dp->sninst[j] = t->sock[s].ninst[u];
		dp->sbase[j] = dp->nsv;
		dp->nsv += t->nsockets * (1 + dp->sninst[j]);
	}
}

/* Step 2: per series, what it adds to (each chosen source counting its
 * event: the socket sum, or mean, and its instance).  0 or -ENOMEM. */
static int plan_terms(struct derive_plan *dp, const struct topology *t,
		      const struct derive_series *ser, unsigned ns)
{
	const struct derived_table *tab = dp->tab;
	unsigned cap = 0;

	for (unsigned i = 0; i < ns; i++)
		for (size_t j = 0; j < tab->nsrc; j++)
			cap += 2 * (strcmp(ser[i].event, tab->src[j].event) == 0);
	dp->terms = calloc(cap + 1, sizeof(*dp->terms));
	dp->svseen = calloc(dp->nsv + 1, 1);
	if (!dp->terms || !dp->svseen)
		return -ENOMEM;
	for (unsigned i = 0; i < ns; i++)
		for (size_t j = 0; j < tab->nsrc; j++) {
			const struct derived_src *sr = &tab->src[j];
			unsigned s = ser[i].socket;
			int r = dp->rep[j];
			double mean;

			if (strcmp(ser[i].event, sr->event) != 0 ||
			    s >= t->nsockets || r < 0)
				continue;
			mean = sr->mean ? present(&t->sock[s], event_unit(
						  t->plat, sr->event)) : 1;
			dp->terms[dp->nterms++] = (struct term){
				i, sv_index(dp, r, s, -1),
				sr->scale * ser[i].scale / mean, ser[i].live };
			if (ser[i].inst < dp->sninst[r])
				dp->terms[dp->nterms++] = (struct term){
					i, sv_index(dp, r, s,
						    (int)ser[i].inst),
					sr->scale, ser[i].live };
		}
	for (unsigned k = 0; k < dp->nterms; k++)
		dp->svseen[dp->terms[k].sv] = 1;
	return 0;
}

/* Step 3: each metric's sources, values and whether the program counts
 * them at all. */
static void plan_metrics(struct derive_plan *dp, unsigned nsockets)
{
	const struct derived_table *tab = dp->tab;

	for (size_t m = 0; m < tab->nm; m++) {
		const struct derived_metric *dm = &tab->m[m];
		struct dmet *x = &dp->m[m];

		x->present = true;
		for (unsigned k = 0; k < DM_MAX_STEPS && dm->f[k].op; k++) {
			bool counted = false;

			x->src[k] = -1;
			if (dm->f[k].op != DF_SRC_)
				continue;
			x->src[k] = name_rep(dp, dm->f[k].src);
			if (dm->per)
				x->ninst = dp->sninst[x->src[k]];
			for (unsigned s = 0; s < nsockets; s++)
				counted |= dp->svseen[sv_index(dp, x->src[k],
							       s, -1)];
			x->present &= counted;
		}
		x->base = dp->nvals;
		dp->nvals += nsockets * (dm->per ? x->ninst : 1);
	}
}

/* Step 4: which values the program produces (every source counted
 * there).  0 or -ENOMEM. */
static int plan_live(struct derive_plan *dp, unsigned nsockets)
{
	const struct derived_table *tab = dp->tab;

	dp->live = calloc(dp->nvals + 1, 1);
	if (!dp->live)
		return -ENOMEM;
	for (size_t m = 0; m < tab->nm; m++) {
		const struct derived_metric *dm = &tab->m[m];
		const struct dmet *x = &dp->m[m];
		unsigned n = dm->per ? x->ninst : 1;

		for (unsigned s = 0; x->present && s < nsockets; s++)
			for (unsigned in = 0; in < n; in++) {
				bool ok = true;

				for (unsigned k = 0; k < DM_MAX_STEPS &&
				     dm->f[k].op; k++)
					if (x->src[k] >= 0)
						ok &= dp->svseen[sv_index(
							dp, x->src[k], s,
							dm->per ? (int)in : -1)];
				dp->live[derive_index(dp, m, s, in)] = ok;
			}
	}
	return 0;
}

struct derive_plan *derive_plan_new(const struct topology *t,
				    const struct derive_series *ser,
				    unsigned ns, char *why, size_t whylen)
{
	static const struct derived_table none = { NULL, 0, NULL, 0 };
	const struct platform *pl = t->plat;
	const struct derived_table *tab = pl->derived ? pl->derived : &none;
	struct derive_plan *dp;

	if (derive_check(pl, why, whylen) < 0)
		return NULL;
	dp = calloc(1, sizeof(*dp));
	if (!dp)
		goto oom;
	dp->tab = tab;
	if (total_table(dp) < 0)
		goto oom;
	if (dp->tab != tab && check_table(pl, dp->tab, why, whylen) < 0) {
		derive_plan_free(dp);
		return NULL;
	}
	tab = dp->tab;
	dp->nsockets = t->nsockets;
	dp->ns = ns;
	dp->sbase = calloc(tab->nsrc + 1, sizeof(unsigned));
	dp->sninst = calloc(tab->nsrc + 1, sizeof(unsigned));
	dp->m = calloc(tab->nm + 1, sizeof(*dp->m));
	dp->rep = calloc(tab->nsrc + 1, sizeof(int));
	if (!dp->sbase || !dp->sninst || !dp->m || !dp->rep)
		goto oom;
	if (tab->nsrc)
		choose_alternatives(pl, t, dp->rep);
	plan_layout(dp, t);
	if (plan_terms(dp, t, ser, ns) < 0)
		goto oom;
	plan_metrics(dp, t->nsockets);
	if (plan_live(dp, t->nsockets) < 0)
		goto oom;
	return dp;
oom:
	snprintf(why, whylen, "out of memory");
	derive_plan_free(dp);
	return NULL;
}

unsigned derive_nvals(const struct derive_plan *dp)
{
	return dp->nvals;
}

const struct derived_table *derive_table(const struct derive_plan *dp)
{
	return dp->tab;
}

unsigned derive_nper(const struct derive_plan *dp, size_t m)
{
	return dp->tab->m[m].per ? dp->m[m].ninst : 1;
}

unsigned derive_index(const struct derive_plan *dp, size_t m, unsigned s,
		      unsigned inst)
{
	const struct dmet *x = &dp->m[m];

	return dp->tab->m[m].per ? x->base + s * x->ninst + inst : x->base + s;
}

bool derive_live(const struct derive_plan *dp, unsigned idx)
{
	return idx < dp->nvals && dp->live[idx];
}

/* Source values from per-series values; bad[sv] where an invalid series
 * adds to it. */
static void sources(const struct derive_plan *dp, const uint64_t *val,
		    const uint64_t *invalid, double *sv, uint8_t *bad,
		    double frozen_k, double live_k)
{
	for (unsigned k = 0; k < dp->nterms; k++) {
		const struct term *tm = &dp->terms[k];
		unsigned i = tm->series;

		if (invalid && (invalid[i / 64] >> (i % 64) & 1))
			bad[tm->sv] = 1;
		else
			sv[tm->sv] += (double)val[i] * tm->k *
				      (tm->live ? live_k : frozen_k);
	}
}

/* Metric m on socket s (instance in) from the source values. */
static double eval(const struct derive_plan *dp, size_t m, unsigned s,
		   unsigned in, const double *sv, const uint8_t *bad,
		   double secs)
{
	const struct derived_metric *dm = &dp->tab->m[m];
	double st[DM_MAX_STEPS];
	unsigned n = 0;

	for (unsigned k = 0; k < DM_MAX_STEPS && dm->f[k].op; k++) {
		const struct dm_step *f = &dm->f[k];
		unsigned j;

		switch (f->op) {
		case DF_SRC_:
			j = sv_index(dp, dp->m[m].src[k], s,
				     dm->per ? (int)in : -1);
			if (bad && bad[j])
				return NAN;
			st[n++] = sv[j];
			break;
		case DF_SCALE_:
			st[n - 1] *= f->k;
			break;
		case DF_RATE_:
			st[n - 1] = secs > 0 ? st[n - 1] / secs : NAN;
			break;
		case DF_ADD_:
			n--;
			st[n - 1] += st[n];
			break;
		case DF_SUB_:
			n--;
			st[n - 1] -= st[n];
			break;
		case DF_RATIO_:
			n--;
			st[n - 1] = st[n] != 0 ? st[n - 1] / st[n] : NAN;
			break;
		default:
			return NAN;
		}
	}
	return n == 1 ? st[0] : NAN;
}

size_t derive_scratch_size(const struct derive_plan *dp)
{
	return (dp->nsv + 1) * 2 * (sizeof(double) + 1);
}

/* Source values (zeroed) and their bad flags in a scratch area: room
 * for two sets, the second at sv + nsv + 1 and *bad + nsv + 1 (sums()). */
static double *scratch_sv(const struct derive_plan *dp, void *scratch,
			  uint8_t **bad)
{
	double *sv = scratch;

	*bad = (uint8_t *)(sv + 2 * (dp->nsv + 1));
	memset(scratch, 0, derive_scratch_size(dp));
	return sv;
}

/* The live gauges from per-series deltas into out; keep: a gauge
 * without a value keeps the one in out. */
static void gauges(const struct derive_plan *dp, const uint64_t *delta,
		   const uint64_t *invalid, double secs, double counted,
		   bool keep, double *out, void *scratch)
{
	uint8_t *bad;
	double *sv = scratch_sv(dp, scratch, &bad);

	sources(dp, delta, invalid, sv, bad,
		counted > 0 && secs > 0 ? secs / counted : 1.0, 1.0);
	for (size_t m = 0; m < dp->tab->nm; m++) {
		if (dp->tab->m[m].type != DM_GAUGE)
			continue;
		for (unsigned s = 0; s < dp->nsockets; s++)
			for (unsigned in = 0; in < derive_nper(dp, m); in++) {
				unsigned i = derive_index(dp, m, s, in);
				double v = NAN;

				if (!dp->live[i])
					continue;
				if (secs > 0)
					v = eval(dp, m, s, in, sv, bad, secs);
				if (!isnan(v) || !keep)
					out[i] = v;
			}
	}
}

void derive_gauges(const struct derive_plan *dp, const uint64_t *delta,
		   const uint64_t *invalid, double secs, double counted,
		   double *out, void *scratch)
{
	for (unsigned i = 0; i < dp->nvals; i++)
		out[i] = NAN;
	gauges(dp, delta, invalid, secs, counted, false, out, scratch);
}

/*
 * The summaries' _sum (DM_SUM) of one tick: each adds its formula over
 * the interval's increments, every source taken over the counting
 * window (the live series' increments, over the wall time secs, scaled
 * to it), DF_RATE dividing by that window: occupancy / (clock cycles of
 * one box / counted seconds) is request-seconds.  An interval without a
 * value (no clock, first tick; the occupancy's group not counting with
 * the clock's when they take turns) adds nothing, to the _sum nor to its
 * _count: the mean latency is then that of the intervals with both.
 * A per-box mean source (derived_src.mean: the clock a DF_RATE turns
 * into Hz) is the interval's delta, not the increment: a group taking
 * turns with others has its increments scaled up for the intervals it
 * did not count, and an occupancy so scaled must stay so over the
 * clock's true rate (were the clock scaled alike, the ratio would lose
 * the factor); the delta of a series whose group did not count is its
 * latest rate over the interval (sampler.c tick_estimate()).  Without a
 * valid clock: nothing.
 */
static void sums(const struct derive_plan *dp, const uint64_t *inc,
		 const uint64_t *delta, const uint64_t *invalid, double secs,
		 double counted, double *acc, double *out, void *scratch)
{
	double win = counted > 0 ? counted : secs;
	double lk = counted > 0 && secs > 0 ? counted / secs : 1.0;
	const struct derived_table *tab = dp->tab;
	bool any = false;
	uint8_t *bad, *badd;
	double *sv, *svd;

	for (size_t m = 0; m < dp->tab->nm && !any; m++)
		any = dp->tab->m[m].type == DM_SUM;
	if (!any || !(win > 0))
		return;
	sv = scratch_sv(dp, scratch, &bad);
	svd = sv + dp->nsv + 1;
	badd = bad + dp->nsv + 1;
	sources(dp, inc, NULL, sv, NULL, 1.0, lk);
	sources(dp, delta, invalid, svd, badd, 1.0, lk);
	for (size_t j = 0; j < tab->nsrc; j++) {
		unsigned k0, k1;

		if (!tab->src[j].mean || dp->rep[j] != (int)j)
			continue;
		k0 = sv_index(dp, (int)j, 0, -1);
		k1 = k0 + dp->nsockets * (1 + dp->sninst[j]);
		for (unsigned k = k0; k < k1; k++) {
			sv[k] = svd[k];
			bad[k] = badd[k];
		}
	}
	for (size_t m = 0; m < dp->tab->nm; m++) {
		if (dp->tab->m[m].type != DM_SUM)
			continue;
		for (unsigned s = 0; s < dp->nsockets; s++)
			for (unsigned in = 0; in < derive_nper(dp, m); in++) {
				unsigned i = derive_index(dp, m, s, in), c;
				double v;

				if (!dp->live[i])
					continue;
				v = eval(dp, m, s, in, sv, bad, win);
				if (!isfinite(v) || !(v > 0))
					continue;
				out[i] = acc[i] += v;
				/* its _count (the next entry) adds this
				 * interval's reads, which derive_tick() left
				 * in out: only with its _sum */
				c = derive_index(dp, m + 1, s, in);
				if (dp->live[c] && isfinite(out[c]))
					acc[c] += out[c];
			}
	}
}

void derive_tick(const struct derive_plan *dp, const uint64_t *inc,
		 const uint64_t *delta, const uint64_t *invalid, double secs,
		 double counted, bool keep, double *acc, double *out,
		 void *scratch)
{
	uint8_t *bad;
	double *sv = scratch_sv(dp, scratch, &bad);

	sources(dp, inc, NULL, sv, NULL, 1.0, 1.0);
	for (size_t m = 0; m < dp->tab->nm; m++) {
		enum dm_type ty = dp->tab->m[m].type;
		bool counter = ty == DM_COUNTER || ty == DM_COUNT;

		for (unsigned s = 0; s < dp->nsockets; s++)
			for (unsigned in = 0; in < derive_nper(dp, m); in++) {
				unsigned i = derive_index(dp, m, s, in);

				if (!dp->live[i])
					out[i] = NAN;
				else if (ty == DM_COUNT)	/* sums() adds it */
					out[i] = eval(dp, m, s, in, sv, NULL, 0);
				else if (counter)
					out[i] = acc[i] +=
						eval(dp, m, s, in, sv, NULL, 0);
				else if (ty == DM_SUM)
					out[i] = acc[i];
				else if (!keep)
					out[i] = NAN;
			}
	}
	sums(dp, inc, delta, invalid, secs, counted, acc, out, scratch);
	for (size_t m = 0; m < dp->tab->nm; m++) {
		if (dp->tab->m[m].type != DM_COUNT)
			continue;
		for (unsigned s = 0; s < dp->nsockets; s++)
			for (unsigned in = 0; in < derive_nper(dp, m); in++) {
				unsigned i = derive_index(dp, m, s, in);

				if (dp->live[i])
					out[i] = acc[i];
			}
	}
	gauges(dp, delta, invalid, secs, counted, keep, out, scratch);
}

double derive_counter(const struct derive_plan *dp, size_t m, unsigned s,
		      const uint64_t *val)
{
	uint8_t *bad;
	void *scratch;
	double *sv, v;

	if ((dp->tab->m[m].type != DM_COUNTER &&
	     dp->tab->m[m].type != DM_COUNT) || dp->tab->m[m].per ||
	    !dp->live[derive_index(dp, m, s, 0)] ||
	    !(scratch = malloc(derive_scratch_size(dp))))
		return NAN;
	sv = scratch_sv(dp, scratch, &bad);
	sources(dp, val, NULL, sv, NULL, 1.0, 1.0);
	v = eval(dp, m, s, 0, sv, NULL, 0);
	free(scratch);
	return v;
}

/* The factor of formula f if it is one source, scaled or not
 * ({ DF_SRC(x) [, DF_SCALE(k)...] }), into *k and x into *src; false
 * for any other formula. */
static bool one_source(const struct dm_step *f, const char **src, double *k)
{
	size_t i = 1;

	if (f[0].op != DF_SRC_)
		return false;
	*src = f[0].src;
	*k = 1;
	for (; i < DM_MAX_STEPS && f[i].op == DF_SCALE_; i++)
		*k *= f[i].k;
	return i == DM_MAX_STEPS || f[i].op == DF_END_;
}

/*
 * Does claimed event ev (resolved in *e when have_e, else only its text)
 * count what source event src counts on all of its unit's instances?
 * The same encoding, filters included, however the names are written;
 * a source with a :split modifier (hsx's LLC misses: LLC_LOOKUP.ANY with
 * FILTER0.state I on the odd CBos) counts part of the instances and
 * scales up to all of them, which the event without the split counts as
 * it is.
 */
static bool same_event(const struct platform *pl, const char *event,
		       const struct evspec *e, bool have_e, const char *src)
{
	struct evspec s;
	char why[128];

	if (!strcmp(event, src))
		return true;
	if (!have_e || e->split_n ||
	    sched_resolve(pl, src, true, &s, why, sizeof(why)) < 0)
		return false;
	s.split_n = s.split_k = 0;
	return sched_same(e, &s);
}

int derive_event_metric(const struct platform *pl, const char *event,
			double *scale)
{
	const struct derived_table *tab = pl->derived;
	struct evspec ev;
	char why[128];
	bool have_e = event && sched_resolve(pl, event, true, &ev, why,
					     sizeof(why)) == 0;

	for (size_t m = 0; tab && event && m < tab->nm; m++) {
		const struct derived_metric *dm = &tab->m[m];
		const char *src;
		double k;
		int first;

		if (dm->type != DM_COUNTER || dm->per || dm->fixed[0] ||
		    !one_source(dm->f, &src, &k) ||
		    (first = src_index(tab, src)) < 0)
			continue;
		/* an alternative of src that is event alone, summed */
		for (size_t j = (size_t)first; j < tab->nsrc &&
		     !strcmp(tab->src[j].name, src); j++) {
			unsigned n = 0;

			if (tab->src[j].mean ||
			    !same_event(pl, event, &ev, have_e,
					tab->src[j].event))
				continue;
			for (size_t e = (size_t)first; e < tab->nsrc &&
			     !strcmp(tab->src[e].name, src); e++)
				n += tab->src[e].alt == tab->src[j].alt;
			if (n == 1) {
				*scale = tab->src[j].scale * k;
				return (int)m;
			}
		}
	}
	return -1;
}

int derive_find(const struct platform *pl, const char *name,
		const char *json)
{
	const struct derived_table *tab = pl->derived;

	for (size_t m = 0; tab && m < tab->nm; m++)
		if (strcmp(tab->m[m].name, name) == 0 &&
		    (!json || strcmp(tab->m[m].json, json) == 0))
			return (int)m;
	return -1;
}

const char *derive_source_event(const struct derive_plan *dp,
				const char *name)
{
	int j = name_rep(dp, name);

	return j < 0 ? NULL : dp->tab->src[j].event;
}

unsigned derive_source_count(const struct derive_plan *dp, const char *name)
{
	int j = name_rep(dp, name);
	unsigned n = 0;

	for (size_t k = 0; j >= 0 && k < dp->tab->nsrc; k++)
		n += dp->rep[k] == j;
	return n;
}

bool derive_alt_unchosen(const struct topology *t, const char *event)
{
	const struct derived_table *tab = t->plat->derived;
	bool named = false, chosen = false;
	int *rep;

	if (!tab || !tab->nsrc || !(rep = calloc(tab->nsrc, sizeof(*rep))))
		return false;
	choose_alternatives(t->plat, t, rep);
	for (size_t j = 0; j < tab->nsrc; j++)
		if (strcmp(tab->src[j].event, event) == 0) {
			named = true;
			chosen |= rep[j] >= 0;
		}
	free(rep);
	return named && !chosen;
}
