/*
 * fexport.c - exported formulas (see fexport.h): resolved once per
 * configuration, evaluated per sample.
 *
 * A formula's $N is its event N summed over the socket's boxes (its first
 * box for scope first_box), each series' delta over the sample's interval
 * scaled as the baseline scales a :split event; T is the interval's
 * counting window (SW_COUNTED_NS, the wall time where it is not known).
 * A formula of one unit from the manual's box chapter (f->per_box), none
 * of whose events is first_box, is served per box instead: its events on
 * that box alone (the per-socket value is still computed: out[]).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fexport.h"
#include "sampler.h"

/*
 * Joins every '_'-separated token of s that promtool's lint reads as an
 * abbreviated unit (its unitAbbreviations: s ms us ns sec b kb mb gb tb
 * pb m h d) to the token before it, or, first, to the one after it: the
 * manual's DRS_DATAC_M_FROM_QPI is no metre ("drs_datacm_from_qpi").
 */
static void join_abbrev(char *s)
{
	static const char *const ab[] = { "s", "ms", "us", "ns", "sec", "b",
		"kb", "mb", "gb", "tb", "pb", "m", "h", "d", NULL };
	char *p = s;

	while (*p) {
		char *e = strchr(p, '_');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		bool is = false;

		for (int i = 0; ab[i]; i++)
			is |= strlen(ab[i]) == l && strncmp(p, ab[i], l) == 0;
		if (is && p > s) {	/* drop the '_' before it */
			memmove(p - 1, p, strlen(p) + 1);
			p += l - 1;
		} else if (is && e) {	/* first: drop the '_' after it, and
					   look at the joined token again */
			memmove(e, e + 1, strlen(e + 1) + 1);
			continue;
		} else {
			p += l;
		}
		if (*p == '_')
			p++;
	}
}

void fexport_family(const char *name, const char *unit, char *out,
		    size_t outlen)
{
	char low[FEXPORT_FAMILY_MAX];
	size_t n = 0, ul = strlen(unit);

	for (const char *p = name; *p && n + 1 < sizeof(low); p++) {
		char c = (char)tolower((unsigned char)*p);

		if (!isalnum((unsigned char)c) || (unsigned char)c > 0x7f)
			c = '_';
		if (c == '_' && (n == 0 || low[n - 1] == '_'))
			continue;
		low[n++] = c;
	}
	while (n && low[n - 1] == '_')
		n--;
	low[n] = '\0';
	join_abbrev(low);
	n = strlen(low);
	if (ul && !(n > ul && low[n - ul - 1] == '_' &&
		    strcmp(low + n - ul, unit) == 0))
		snprintf(out, outlen, "uncore_formula_%s_%s", low, unit);
	else
		snprintf(out, outlen, "uncore_formula_%s", low);
}

void fexport_free(struct fexport *fx)
{
	if (!fx)
		return;
	for (unsigned i = 0; i < fx->n; i++) {
		free(fx->it[i].help);
		fexpr_free(fx->it[i].x);
	}
	free(fx);
}

bool fexport_same(const struct fexport *a, const struct fexport *b)
{
	if (!a || !b)
		return !a == !b;
	if (a->n != b->n)
		return false;
	for (unsigned i = 0; i < a->n; i++)
		if (a->it[i].f != b->it[i].f)
			return false;
	return true;
}

/* The HELP of item it: the source's description, its name and source,
 * the formula as written, the unit's conversion and the built-in family
 * it overlaps.  Malloc'd, or NULL. */
static char *make_help(const struct fexport_item *it)
{
	const struct formula *f = it->f;
	size_t len = strlen(f->desc) + strlen(f->name) + strlen(f->source) +
		     strlen(f->formula) + (f->conversion ?
					   strlen(f->conversion) : 0) +
		     (f->overlaps ? strlen(f->overlaps) : 0) + 200;
	char *h = malloc(len);
	bool conv = f->conversion && f->conversion[0] &&
		    strncmp(f->conversion, "none", 4) != 0;

	if (!h)
		return NULL;
	snprintf(h, len, "%s%s %s in %s: %s%s%s%s.%s%s%s",
		 f->desc, f->desc[0] && f->desc[strlen(f->desc) - 1] == '.'
		 ? "" : ".", f->name, f->source, f->formula,
		 conv ? " (to base units: " : "", conv ? f->conversion : "",
		 conv ? ")" : "",
		 f->overlaps ? " Overlaps the built-in family " : "",
		 f->overlaps ? f->overlaps : "", f->overlaps ? "." : "");
	return h;
}

/* Item it for f (found as name): events resolved, expression compiled,
 * family and help made.  0 or -errno with why. */
static int make_item(const struct platform *pl, const struct topology *t,
		     const struct formula *f, struct fexport_item *it,
		     const char *where, char *why, size_t whylen)
{
	char msg[600];
	unsigned ne = formula_nevents(f);
	int unit = -2;

	it->f = f;
	formula_qualified(pl, f, it->name, sizeof(it->name));
	switch (formula_here(pl, t, f, it->ev, FEXPORT_EVENTS, msg,
			     sizeof(msg))) {
	case FORMULA_HERE:
		break;
	case FORMULA_TOO_MANY:
		snprintf(why, whylen, "%s: [formulas] export: %s needs %u "
			 "events, more than an exported formula may (%d)",
			 where, it->name, ne, FEXPORT_EVENTS);
		return -EINVAL;
	case FORMULA_APART:
		/* events a claim could not hold at once: the baseline
		 * counts them in turns (sched_partition()), as any unit
		 * whose events do not fit its counters */
		break;
	default:
		snprintf(why, whylen, "%s: [formulas] export: %s cannot count "
			 "on %s: %s", where, it->name, pl->id, msg);
		return -EINVAL;
	}
	for (unsigned k = 0; k < ne; k++) {
		if (f->events[k].scope == FORMULA_FIRST_BOX)
			unit = -1;
		else if (unit == -2)
			unit = it->ev[k].unit;
		else if (unit != it->ev[k].unit)
			unit = -1;
	}
	it->nev = ne;
	it->unit_of_boxes = f->per_box && unit >= 0 ? unit : -1;
	if (fexpr_compile(f->expr, ne, &it->x, msg, sizeof(msg)) < 0) {
		snprintf(why, whylen, "%s: [formulas] export: %s: %s", where,
			 it->name, msg);
		return -EINVAL;
	}
	fexport_family(it->name, f->unit, it->family, sizeof(it->family));
	/* OpenMetrics units are the families' suffixes */
	it->unit = f->unit[0] && strlen(it->family) > strlen(f->unit) &&
		   strcmp(it->family + strlen(it->family) - strlen(f->unit),
			  f->unit) == 0 ? f->unit : NULL;
	if (!(it->help = make_help(it)))
		return -ENOMEM;
	return 0;
}

int fexport_new(const struct platform *pl, const struct topology *t,
		const char *list, const char *where, struct fexport **out,
		char *why, size_t whylen)
{
	struct fexport *fx;
	const char *p = list ? list : "";
	int r;

	*out = NULL;
	p += strspn(p, " \t,");
	if (!*p)
		return 0;
	if (!(fx = calloc(1, sizeof(*fx)))) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	while (*p) {
		char name[96], msg[300];
		size_t l = strcspn(p, " \t,");
		const struct formula *f;

		if (fx->n == FEXPORT_MAX || l >= sizeof(name)) {
			snprintf(why, whylen, "%s: [formulas] export: %s", where,
				 l >= sizeof(name) ? "a name too long"
				 : "too many formulas");
			fexport_free(fx);
			return -EINVAL;
		}
		memcpy(name, p, l);
		name[l] = '\0';
		p += l;
		p += strspn(p, " \t,");
		if (!(f = formula_find(pl, name, msg, sizeof(msg)))) {
			snprintf(why, whylen, "%s: [formulas] export: %s", where,
				 msg);
			fexport_free(fx);
			return -EINVAL;
		}
		for (unsigned i = 0; i < fx->n; i++)
			if (fx->it[i].f == f) {
				snprintf(why, whylen, "%s: [formulas] export: "
					 "%s is listed twice", where, name);
				fexport_free(fx);
				return -EINVAL;
			}
		if ((r = make_item(pl, t, f, &fx->it[fx->n], where, why,
				   whylen)) < 0) {
			fx->n++;	/* freed with the rest */
			fexport_free(fx);
			return r;
		}
		for (unsigned i = 0; i < fx->n; i++)
			if (strcmp(fx->it[i].family, fx->it[fx->n].family) == 0) {
				snprintf(why, whylen, "%s: [formulas] export: "
					 "%s and %s would both be served as %s",
					 where, fx->it[i].name,
					 fx->it[fx->n].name,
					 fx->it[i].family);
				fx->n++;
				fexport_free(fx);
				return -EINVAL;
			}
		fx->n++;
	}
	*out = fx;
	return 0;
}

int fexport_add_events(const struct fexport *fx, struct evspec *ev,
		       unsigned n, unsigned max, char *why, size_t whylen)
{
	for (unsigned i = 0; fx && i < fx->n; i++)
		for (unsigned k = 0; k < fx->it[i].nev; k++) {
			unsigned j = 0;

			while (j < n && !sched_same(&ev[j], &fx->it[i].ev[k]))
				j++;
			if (j < n)
				continue;
			if (n == max) {
				snprintf(why, whylen, "[formulas] export: the "
					 "baseline cannot count more than %u "
					 "events (%s's %s)", max,
					 fx->it[i].name, fx->it[i].ev[k].name);
				return -1;
			}
			ev[n++] = fx->it[i].ev[k];
		}
	return (int)n;
}

void fexport_values(const struct fexport *fx, unsigned i,
		    const struct program *p, const uint64_t *sample,
		    double *out, double *box)
{
	const struct fexport_item *it = &fx->it[i];
	const uint64_t *delta = sample + SW_HDR, *inv = delta + p->ns;
	double T = (double)(sample[SW_COUNTED_NS] ? sample[SW_COUNTED_NS]
			    : sample[SW_INTERVAL_NS]) / 1e9;
	int pe[FEXPORT_EVENTS];
	bool ok = !(sample[SW_FLAGS] & SF_FIRST) && T > 0;

	for (unsigned k = 0; k < it->nev; k++) {
		pe[k] = -1;
		for (unsigned j = 0; j < p->nev && pe[k] < 0; j++)
			if (sched_same(&p->ev[j], &it->ev[k]))
				pe[k] = (int)j;
		ok &= pe[k] >= 0;
	}
	for (unsigned s = 0; s < p->topo->nsockets; s++) {
		double ev[FEXPORT_EVENTS], bx[FEXPORT_EVENTS];
		bool sok = ok;

		out[s] = NAN;
		if (box)
			for (unsigned b = 0; b < PLAT_MAX_INST; b++)
				box[s * PLAT_MAX_INST + b] = NAN;
		for (unsigned k = 0; sok && k < it->nev; k++) {
			int lo = -1;

			ev[k] = bx[k] = 0;
			for (unsigned j = 0; j < p->ns; j++) {
				const struct pmu_slot *sl = &p->slot[j];
				double d;

				if (p->sev[j] != pe[k] || sl->socket != s)
					continue;
				if (inv[j / 64] >> (j % 64) & 1) {
					sok = false;
					break;
				}
				d = (double)delta[j] * p->evscale[pe[k]][s];
				bx[k]++;
				if (it->f->events[k].scope != FORMULA_FIRST_BOX)
					ev[k] += d;
				else if (lo < 0 || sl->inst < lo) {
					lo = sl->inst;
					ev[k] = d;
				}
			}
			sok &= bx[k] > 0;
		}
		if (!sok)
			continue;
		out[s] = fexpr_eval(it->x, ev, bx, T);
		if (!box || it->unit_of_boxes < 0)
			continue;
		for (unsigned b = 0; b < PLAT_MAX_INST; b++) {
			bool any = false, bok = true;

			for (unsigned k = 0; k < it->nev; k++) {
				ev[k] = 0;
				bx[k] = 0;
				for (unsigned j = 0; j < p->ns; j++)
					if (p->sev[j] == pe[k] &&
					    p->slot[j].socket == s &&
					    p->slot[j].inst == b) {
						ev[k] = (double)delta[j];
						bx[k] = 1;
					}
				any |= bx[k] > 0;
				bok &= bx[k] > 0;
			}
			if (any && bok)
				box[s * PLAT_MAX_INST + b] =
					fexpr_eval(it->x, ev, bx, T);
		}
	}
}
