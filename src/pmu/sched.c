/*
 * sched.c - event resolution and counter placement (see sched.h).
 *
 * Placement is a small bipartite matching per unit: at most sixteen
 * counters (PLAT_MAX_CTRS).  Events that need no filter and count on
 * every instance are matched by augmenting paths (place_matching()),
 * polynomial even when they do not fit; the others, whose filters and
 * splits make counters conflict per instance, by a depth-first search
 * that tries the most constrained event first (place_dfs()), exact and
 * cheap for the handful of them a unit holds.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "plat/plat_mod.h"
#include "sched.h"

_Static_assert(PLAT_MAX_FILTERS <= 32, "evspec.filt_set is 32 bits");

_Static_assert(PLAT_MAX_CTRS <= 16, "counter masks are 16 bits");

static int popcount16(uint16_t m)
{
	return __builtin_popcount(m);
}

/*
 * Splits the :filterN= and :split= modifiers (plat_mod.h) off text into
 * e; leaves the rest (the event, with any raw-encoding modifiers) in
 * base.  0 or -EINVAL.
 */
static int take_modifiers(const char *text, char *base, size_t blen,
			  struct evspec *e, char *why, size_t whylen)
{
	struct plat_mods m;
	char msg[200];

	if (plat_parse_modifiers(text, PLAT_MOD_FILTER | PLAT_MOD_SPLIT, base,
				 blen, &m, msg, sizeof(msg)) < 0) {
		snprintf(why, whylen, "%s: %s", text, msg);
		return -EINVAL;
	}
	_Static_assert(sizeof(e->filt) == sizeof(m.filt), "filters");
	e->filt_set = m.filt_set;
	memcpy(e->filt, m.filt, sizeof(e->filt));
	e->split_n = m.split_n;
	e->split_k = m.split_k;
	return 0;
}

/* A catalog event ev into out: its unit, encoding and valid counters
 * (a free-running one's index).  0 or -EINVAL with why; *u its unit. */
static int resolve_catalog(const struct platform *p, const char *text,
			   const struct event *ev, struct evspec *out,
			   const struct unit_type **u, char *why, size_t whylen)
{
	int ui;

	if (!(*u = plat_unit(p, ev->unit, &ui))) {
		snprintf(why, whylen, "%s: catalog names unknown unit %s", text,
			 ev->unit);
		return -EINVAL;
	}
	out->ev = ev;
	out->unit = ui;
	out->enc = event_enc_of(ev);
	if ((*u)->kind == UNIT_FREERUN) {
		for (unsigned i = 0; i < (*u)->nfreerun; i++)
			if (strcmp((*u)->freerun[i].name, ev->name) == 0)
				out->freerun = (int)i;
		if (out->freerun < 0) {
			snprintf(why, whylen, "%s: no free-running counter of "
				 "that name in %s", text, (*u)->name);
			return -EINVAL;
		}
		out->ctr_mask = 0;
	} else if ((*u)->kind == UNIT_FIXED) {
		out->ctr_mask = 1;
	} else {
		out->ctr_mask = ev->ctr_mask & (uint16_t)width_mask((*u)->nctr);
	}
	return plat_event_check(*u, ev, why, whylen) < 0 ? -EINVAL : 0;
}

/* A name that is no catalog event: a catalog name with an unknown
 * modifier, an unknown name, or a raw "unit:0xEV:0xUMASK" encoding
 * (only with allow_raw).  0, -EINVAL or -EPERM with why; *u its unit. */
static int resolve_raw(const struct platform *p, const char *text, char *base,
		       bool allow_raw, struct evspec *out,
		       const struct unit_type **u, char *why, size_t whylen)
{
	char *colon = strchr(base, ':');
	int ui;

	if (!colon) {
		snprintf(why, whylen, "unknown event \"%s\" (see "
			 "/api/v1/events or `uncorectl events`)", base);
		return -EINVAL;
	}
	*colon = '\0';
	if (plat_event(p, base)) {
		snprintf(why, whylen, "%s: unknown modifier \"%s\" (accepted: "
			 "filterN= for each filter register N of the unit, "
			 "split=K/N)", text, colon + 1);
		return -EINVAL;
	}
	*colon = ':';
	if (!allow_raw) {
		snprintf(why, whylen, "raw encoding \"%s\" refused: "
			 "allow_raw_events is off", text);
		return -EPERM;
	}
	if (plat_parse_raw(p, base, u, &out->enc, why, whylen) < 0)
		return -EINVAL;
	plat_unit(p, (*u)->name, &ui);
	if ((*u)->kind != UNIT_PROG) {
		snprintf(why, whylen, "%s: unit %s has no programmable "
			 "counters", text, (*u)->name);
		return -EINVAL;
	}
	out->unit = ui;
	/* A raw encoding that is a catalog event inherits its constraints. */
	out->ev = plat_event_by_enc(p, (*u)->name, &out->enc);
	out->ctr_mask = (out->ev ? out->ev->ctr_mask : 0xffff) &
			(uint16_t)width_mask((*u)->nctr);
	return 0;
}

/* The :filterN= and :split= modifiers of out against its unit u: filters
 * the unit has, values with no reserved bit (doc/design.md 5: nothing a
 * client sends may set one), programmable counters only.  0 or -EINVAL. */
static int check_modifiers(const char *text, const struct unit_type *u,
			   const struct evspec *out, char *why, size_t whylen)
{
	char msg[200];

	for (unsigned f = 0; f < PLAT_MAX_FILTERS; f++) {
		if (!(out->filt_set >> f & 1))
			continue;
		if (f >= u->nfilters) {
			snprintf(why, whylen, "%s: unit %s has no filter%u "
				 "register", text, u->name, f);
			return -EINVAL;
		}
		if (u->filters[f].layout &&
		    reg_check_value(u->filters[f].layout, out->filt[f], msg,
				    sizeof(msg)) < 0) {
			snprintf(why, whylen, "%s: filter%u=%s", text, f, msg);
			return -EINVAL;
		}
	}
	if ((out->filt_set || out->split_n) && u->kind != UNIT_PROG) {
		snprintf(why, whylen, "%s: filters and splits apply to "
			 "programmable counters only", text);
		return -EINVAL;
	}
	return 0;
}

int sched_resolve(const struct platform *p, const char *text, bool allow_raw,
		  struct evspec *out, char *why, size_t whylen)
{
	const struct event *ev;
	const struct unit_type *u = NULL;
	char base[SCHED_NAME_MAX];
	int r;

	memset(out, 0, sizeof(*out));
	out->freerun = -1;
	if (strlen(text) >= SCHED_NAME_MAX) {
		snprintf(why, whylen, "event name too long (at most %d "
			 "characters)", SCHED_NAME_MAX - 1);
		return -EINVAL;
	}
	snprintf(out->name, sizeof(out->name), "%s", text);
	if (take_modifiers(text, base, sizeof(base), out, why, whylen) < 0)
		return -EINVAL;
	ev = plat_event(p, base);
	r = ev ? resolve_catalog(p, text, ev, out, &u, why, whylen)
	       : resolve_raw(p, text, base, allow_raw, out, &u, why, whylen);
	if (r < 0)
		return r;
	return check_modifiers(text, u, out, why, whylen);
}

bool sched_same(const struct evspec *a, const struct evspec *b)
{
	if (a->unit != b->unit || a->ev != b->ev || a->freerun != b->freerun ||
	    a->enc.code != b->enc.code || a->enc.umask != b->enc.umask ||
	    a->enc.thresh != b->enc.thresh || a->enc.edge != b->enc.edge ||
	    a->enc.inv != b->enc.inv || a->filt_set != b->filt_set ||
	    a->split_n != b->split_n || a->split_k != b->split_k)
		return false;
	for (unsigned f = 0; f < PLAT_MAX_FILTERS; f++)
		if ((a->filt_set >> f & 1) && a->filt[f] != b->filt[f])
			return false;
	return true;
}

int sched_encode(const struct unit_type *u, const struct evspec *ev,
		 unsigned ctr, uint64_t *ctl, char *why, size_t whylen)
{
	if (ev->ev)
		return plat_encode_event(u, ev->ev, ctr, ctl, why, whylen);
	return plat_encode(u, &ev->enc, ctr, ev->ctr_mask, ctl, why, whylen);
}

/* The instances an event counts on, among max instances. */
static struct inst_set inst_mask(const struct evspec *e, unsigned max)
{
	struct inst_set m = { { 0 } };

	for (unsigned i = 0; i < max && i < PLAT_MAX_INST; i++)
		if (evspec_on(e, i))
			iset_add(&m, i);
	return m;
}

/* Can e go on counter c of its unit given b? */
static bool fits_one(const struct platform *p, const struct evspec *e, int c,
		     const struct sched_busy *b)
{
	const struct unit_type *u = p->units[e->unit];
	struct inst_set m = inst_mask(e, u->max_inst);

	if (c < 0 || c >= PLAT_MAX_CTRS || c >= (int)u->nctr ||
	    !(e->ctr_mask >> c & 1) ||
	    iset_meets(&b->ctr[e->unit][c], &m))
		return false;
	for (unsigned f = 0; f < PLAT_MAX_FILTERS; f++) {
		const struct inst_set *held = &b->filt_inst[e->unit][f];

		if (!(e->filt_set >> f & 1) || !iset_meets(held, &m))
			continue;
		for (unsigned i = 0; i < u->max_inst && i < PLAT_MAX_INST; i++)
			if (iset_has(held, i) && iset_has(&m, i) &&
			    b->filt[e->unit][f][i] != e->filt[f])
				return false;
	}
	return true;
}

/*
 * Marks e's counter c and filters as held.  Filter values are kept only
 * where filt_inst says so: undoing an occupy (place_dfs, try_occupy)
 * restores the instance sets and may leave stale values behind.
 */
static void occupy_one(const struct platform *p, const struct evspec *e,
		       int c, struct sched_busy *b)
{
	const struct unit_type *u = p->units[e->unit];
	struct inst_set m = inst_mask(e, u->max_inst);

	if (u->kind != UNIT_PROG || c < 0)
		return;
	iset_or(&b->ctr[e->unit][c], &m);
	for (unsigned f = 0; f < PLAT_MAX_FILTERS; f++) {
		if (!(e->filt_set >> f & 1))
			continue;
		iset_or(&b->filt_inst[e->unit][f], &m);
		for (unsigned i = 0; i < u->max_inst && i < PLAT_MAX_INST; i++)
			if (iset_has(&m, i))
				b->filt[e->unit][f][i] = e->filt[f];
	}
}

/* One unit's instance sets in a struct sched_busy: all an undo needs. */
struct busy_slice {
	struct inst_set ctr[PLAT_MAX_CTRS];
	struct inst_set filt_inst[PLAT_MAX_FILTERS];
};

static void slice_save(const struct sched_busy *b, int u, struct busy_slice *s)
{
	memcpy(s->ctr, b->ctr[u], sizeof(s->ctr));
	memcpy(s->filt_inst, b->filt_inst[u], sizeof(s->filt_inst));
}

static void slice_restore(struct sched_busy *b, int u,
			  const struct busy_slice *s)
{
	memcpy(b->ctr[u], s->ctr, sizeof(s->ctr));
	memcpy(b->filt_inst[u], s->filt_inst, sizeof(s->filt_inst));
}

void sched_occupy(const struct platform *p, const struct evspec *ev,
		  unsigned n, const int *ctr, struct sched_busy *b)
{
	for (unsigned i = 0; i < n; i++)
		occupy_one(p, &ev[i], ctr[i], b);
}

/* Depth-first assignment of events order[k..] of one unit. */
static bool place_dfs(const struct platform *p, const struct evspec *ev,
		      const unsigned *order, unsigned k, unsigned n,
		      struct sched_busy *b, int *ctr)
{
	if (k == n)
		return true;
	int u = ev[order[k]].unit;

	for (int c = 0; c < PLAT_MAX_CTRS; c++) {
		/* undo record: only this unit's slice changes */
		struct busy_slice save;

		if (!fits_one(p, &ev[order[k]], c, b))
			continue;
		slice_save(b, u, &save);
		occupy_one(p, &ev[order[k]], c, b);
		ctr[order[k]] = c;
		if (place_dfs(p, ev, order, k + 1, n, b, ctr))
			return true;
		slice_restore(b, u, &save);
	}
	return false;
}

/*
 * Events that count on every instance and need no filter (the AMD data
 * fabric's, most claims) conflict only by their counter: placing them is
 * a bipartite matching of events to counters, which augmenting paths
 * (Kuhn) solve in polynomial time, where place_dfs() would try every
 * permutation before refusing 17 events on 16 counters.  ok[k] is the
 * mask of counters event order[k] may take around b; match[c] the event
 * (index into order) holding counter c, -1 none.
 */
static bool augment(const uint32_t *ok, unsigned k, int *match,
		    uint32_t *seen)
{
	/* the lowest free counter first, as place_dfs() would take it;
	 * only then move an earlier event to make room */
	for (unsigned c = 0; c < PLAT_MAX_CTRS; c++)
		if ((ok[k] >> c & 1) && match[c] < 0) {
			match[c] = (int)k;
			return true;
		}
	for (unsigned c = 0; c < PLAT_MAX_CTRS; c++) {
		if (!(ok[k] >> c & 1) || (*seen >> c & 1))
			continue;
		*seen |= 1u << c;
		if (augment(ok, (unsigned)match[c], match, seen)) {
			match[c] = (int)k;
			return true;
		}
	}
	return false;
}

static bool place_matching(const struct platform *p, const struct evspec *ev,
			   const unsigned *order, unsigned n,
			   struct sched_busy *b, int *ctr)
{
	uint32_t ok[64];
	int match[PLAT_MAX_CTRS];

	for (unsigned c = 0; c < PLAT_MAX_CTRS; c++)
		match[c] = -1;
	for (unsigned k = 0; k < n; k++) {
		uint32_t seen = 0;

		ok[k] = 0;
		for (int c = 0; c < PLAT_MAX_CTRS; c++)
			if (fits_one(p, &ev[order[k]], c, b))
				ok[k] |= 1u << c;
		if (!augment(ok, k, match, &seen))
			return false;
	}
	for (unsigned c = 0; c < PLAT_MAX_CTRS; c++)
		if (match[c] >= 0) {
			ctr[order[match[c]]] = (int)c;
			occupy_one(p, &ev[order[match[c]]], (int)c, b);
		}
	return true;
}

/* sched_place_busy() on b itself: leaves the events' counters and
 * filters occupied in b where it succeeds. */
static int place_units(const struct platform *p, const struct evspec *ev,
		       unsigned n, struct sched_busy *b, int *ctr, char *why,
		       size_t whylen)
{
	unsigned nunits = plat_nunits(p);

	/* Cheap refusal first (the scheduler asks this for every group that
	 * lost its counters, every tick): an event with no free counter at
	 * all cannot be placed, whatever the others do. */
	for (unsigned i = 0; i < n; i++) {
		bool any = p->units[ev[i].unit]->kind != UNIT_PROG;

		for (int c = 0; !any && c < PLAT_MAX_CTRS; c++)
			any = fits_one(p, &ev[i], c, b);
		if (!any) {
			snprintf(why, whylen, "%s: every counter it may use is "
				 "taken", ev[i].name);
			return -EBUSY;
		}
	}
	/* Units are independent: a unit that fails ends the search. */
	for (unsigned ui = 0; ui < nunits; ui++) {
		const struct unit_type *u = p->units[ui];
		unsigned order[64], m = 0;

		for (unsigned i = 0; i < n; i++) {
			if (ev[i].unit != (int)ui)
				continue;
			if (u->kind == UNIT_FREERUN) {
				ctr[i] = ev[i].freerun;
				continue;
			}
			if (u->kind == UNIT_FIXED) {
				ctr[i] = 0;
				continue;
			}
			if (m == sizeof(order) / sizeof(order[0])) {
				snprintf(why, whylen, "too many %s events",
					 u->name);
				return -EBUSY;
			}
			order[m++] = i;
		}
		if (u->kind != UNIT_PROG || m == 0)
			continue;
		/* most constrained first */
		for (unsigned a = 1; a < m; a++)
			for (unsigned c = a; c > 0 &&
			     popcount16(ev[order[c]].ctr_mask) <
			     popcount16(ev[order[c - 1]].ctr_mask); c--) {
				unsigned t = order[c];

				order[c] = order[c - 1];
				order[c - 1] = t;
			}
		for (unsigned k = 0; k < m; k++)
			if (!ev[order[k]].ctr_mask) {
				snprintf(why, whylen, "%s has no valid counter "
					 "on %s", ev[order[k]].name, u->name);
				return -EBUSY;
			}
		bool whole = true;

		for (unsigned k = 0; k < m; k++)
			whole &= !ev[order[k]].split_n && !ev[order[k]].filt_set;
		if (whole ? !place_matching(p, ev, order, m, b, ctr)
			  : !place_dfs(p, ev, order, 0, m, b, ctr)) {
			size_t len = 0;

			if (whole && m > (unsigned)u->nctr) {
				snprintf(why, whylen, "%u %s events but %s has %u "
					 "counters", m, u->name, u->name, u->nctr);
				return -EBUSY;
			}
			len += (size_t)snprintf(why, whylen, "cannot place "
						"together on %s:", u->name);
			/* event by event while whole ones fit, then how many
			 * more: never cut inside a name (a log line read
			 * "UNC_CHA_CLOCKTICKS (coun), and ...") */
			for (unsigned k = 0; k < m && len < whylen; k++) {
				char masks[3 * PLAT_MAX_CTRS + 1] = "", *q = masks;
				char one[SCHED_NAME_MAX + sizeof(masks) + 16];
				char more[32];
				size_t n1, nm;

				for (unsigned c = 0; c < u->nctr; c++)
					if (ev[order[k]].ctr_mask & (1u << c))
						q += sprintf(q, "%s%u",
							     q == masks ? "" : ",", c);
				n1 = (size_t)snprintf(one, sizeof(one),
						      " %s (counters %s)%s",
						      ev[order[k]].name, masks,
						      k + 1 < m ? "," : "");
				nm = k + 1 < m ? (size_t)snprintf(more,
					sizeof(more), " and %u more",
					m - k - 1) : 0;
				if (len + n1 + nm < whylen) {
					memcpy(why + len, one, n1 + 1);
					len += n1;
					continue;
				}
				snprintf(more, sizeof(more), " and %u more", m - k);
				if (len + strlen(more) < whylen)
					memcpy(why + len, more, strlen(more) + 1);
				break;
			}
			return -EBUSY;
		}
	}
	return 0;
}

int sched_place_busy(const struct platform *p, const struct evspec *ev,
		     unsigned n, struct sched_busy *b, int *ctr, char *why,
		     size_t whylen)
{
	struct busy_slice save[PLAT_MAX_UNITS];
	unsigned nunits = plat_nunits(p);
	int r;

	/* Works on b and puts its instance sets back: the filter values it
	 * wrote lie outside them (see occupy_one()), so b is as it was.
	 * No copy of b: this runs for every group that lost its counters,
	 * every tick. */
	for (unsigned u = 0; u < nunits && u < PLAT_MAX_UNITS; u++)
		slice_save(b, (int)u, &save[u]);
	r = place_units(p, ev, n, b, ctr, why, whylen);
	for (unsigned u = 0; u < nunits && u < PLAT_MAX_UNITS; u++)
		slice_restore(b, (int)u, &save[u]);
	return r;
}

/* A struct sched_busy holding nothing (its filter values are scratch
 * until an instance set says otherwise, so they are not cleared), or
 * NULL. */
static struct sched_busy *busy_new(void)
{
	struct sched_busy *b = malloc(sizeof(*b));

	if (b) {
		memset(b->ctr, 0, sizeof(b->ctr));
		memset(b->filt_inst, 0, sizeof(b->filt_inst));
	}
	return b;
}

int sched_place(const struct platform *p, const struct evspec *ev,
		unsigned n, const uint16_t *busy, int *ctr, char *why,
		size_t whylen)
{
	struct sched_busy *b = busy_new();
	int r;

	if (!b) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned ui = 0; busy && ui < plat_nunits(p); ui++)
		for (unsigned c = 0; c < PLAT_MAX_CTRS; c++)
			if (busy[ui] >> c & 1)
				b->ctr[ui][c] = iset_first(PLAT_MAX_INST);
	r = sched_place_busy(p, ev, n, b, ctr, why, whylen);
	free(b);
	return r;
}

/* Can the events ev[idx[0..m)] be placed together?  sched_place()'s
 * answer, with its reason in why. */
static int place_subset(const struct platform *p, const struct evspec *ev,
			const unsigned *idx, unsigned m, char *why,
			size_t whylen)
{
	struct evspec sub[SCHED_MAX_EVENTS];
	int ctr[SCHED_MAX_EVENTS];

	for (unsigned k = 0; k < m; k++)
		sub[k] = ev[idx[k]];
	return sched_place(p, sub, m, NULL, ctr, why, whylen);
}

/* Cuts the events idx[0..m) of one unit that do not fit together into
 * chunks that do, in order: chunk k into group k (from 1).  An event
 * that starts a chunk takes with it the events of the chunk before that
 * are bound to it (bind[], nonzero and equal), unless they are that whole
 * chunk: bound events then count in one group.  The number of chunks,
 * or -EBUSY (an event that does not fit alone). */
static int chunk_unit(const struct platform *p, const struct evspec *ev,
		      const unsigned *bind, const unsigned *idx, unsigned m,
		      unsigned *grp, char *why, size_t whylen)
{
	unsigned cur[SCHED_MAX_EVENTS], nc = 0, chunk = 1;

	for (unsigned k = 0; k < m; k++) {
		unsigned b = bind ? bind[idx[k]] : 0, nb = 0, keep = 0;

		cur[nc] = idx[k];
		if (place_subset(p, ev, cur, nc + 1, why, whylen) == 0) {
			grp[idx[k]] = chunk;
			nc++;
			continue;
		}
		if (nc == 0)	/* alone, and still no place: why says why */
			return -EBUSY;
		for (unsigned j = 0; b && j < nc; j++)
			nb += bind[cur[j]] == b;
		chunk++;
		if (nb == 0 || nb == nc) {
			nc = 0;
		} else {
			/* its bound events move on with it, in order */
			unsigned moved[SCHED_MAX_EVENTS];

			for (unsigned j = 0; j < nc; j++)
				if (bind[cur[j]] == b) {
					grp[cur[j]] = chunk;
					moved[keep++] = cur[j];
				}
			memcpy(cur, moved, keep * sizeof(*cur));
			nc = keep;
		}
		k--;		/* the event joins the next chunk */
	}
	return (int)chunk;
}

int sched_partition(const struct platform *p, const struct evspec *ev,
		    unsigned n, unsigned *grp, unsigned *ngroups, char *why,
		    size_t whylen)
{
	return sched_partition_bound(p, ev, n, NULL, grp, ngroups, why,
				     whylen);
}

int sched_partition_bound(const struct platform *p, const struct evspec *ev,
			  unsigned n, const unsigned *bind, unsigned *grp,
			  unsigned *ngroups, char *why, size_t whylen)
{
	unsigned idx[SCHED_MAX_EVENTS];
	int ctr[SCHED_MAX_EVENTS], r;

	if (n > SCHED_MAX_EVENTS) {
		snprintf(why, whylen, "too many events (%u, at most %d)", n,
			 SCHED_MAX_EVENTS);
		return -EINVAL;
	}
	memset(grp, 0, n * sizeof(*grp));
	*ngroups = 1;
	if (n == 0 || sched_place(p, ev, n, NULL, ctr, why, whylen) == 0)
		return 0;
	for (unsigned u = 0; u < plat_nunits(p); u++) {
		unsigned m = 0;

		for (unsigned i = 0; i < n; i++)
			if (ev[i].unit == (int)u)
				idx[m++] = i;
		if (m == 0 || place_subset(p, ev, idx, m, why, whylen) == 0)
			continue;
		if ((r = chunk_unit(p, ev, bind, idx, m, grp, why,
				    whylen)) < 0)
			return r;
		if ((unsigned)r + 1 > *ngroups)
			*ngroups = (unsigned)r + 1;
	}
	/* units are independent: every group fits; checked all the same */
	for (unsigned g = 0; g < *ngroups; g++) {
		unsigned m = 0;

		for (unsigned i = 0; i < n; i++)
			if (grp[i] == g)
				idx[m++] = i;
		if ((r = place_subset(p, ev, idx, m, why, whylen)) < 0)
			return r;
	}
	return 0;
}

/*
 * Places the group at ctr[] into b if every event fits (around b and
 * around the group's own earlier events); returns false and leaves b as
 * it was otherwise.  Only the units the group touches are saved for the
 * undo: this runs for every group on every tick.
 */
bool sched_try_occupy(const struct platform *p, const struct evspec *ev,
		      unsigned n, const int *ctr, struct sched_busy *b)
{
	struct busy_slice save[PLAT_MAX_UNITS];
	uint32_t saved = 0;
	bool ok = true;

	for (unsigned i = 0; i < n && ok; i++) {
		int u = ev[i].unit;

		if (p->units[u]->kind != UNIT_PROG)
			continue;
		if (!(saved >> u & 1)) {
			slice_save(b, u, &save[u]);
			saved |= 1u << u;
		}
		ok = fits_one(p, &ev[i], ctr[i], b);
		if (ok)
			occupy_one(p, &ev[i], ctr[i], b);
	}
	for (unsigned u = 0; !ok && u < PLAT_MAX_UNITS; u++)
		if (saved >> u & 1)
			slice_restore(b, u, &save[u]);
	return ok;
}

static bool try_occupy(const struct platform *p, const struct sched_group *g,
		       const int *ctr, struct sched_busy *b)
{
	return sched_try_occupy(p, g->ev, g->nev, ctr, b);
}

/* Is a less served than b?  A pinned group before any other. */
static bool less_served(const struct sched_group *a, const struct sched_group *b)
{
	if (a->pinned != b->pinned)
		return a->pinned;
	/* running/enabled compared without division: ra*eb < rb*ea */
	unsigned __int128 x = (unsigned __int128)a->running * (b->enabled ? b->enabled : 1);
	unsigned __int128 y = (unsigned __int128)b->running * (a->enabled ? a->enabled : 1);

	if (x != y)
		return x < y;
	return a->order < b->order;
}

static int cmp_served(const void *a, const void *b)
{
	const struct sched_group *x = *(struct sched_group *const *)a;
	const struct sched_group *y = *(struct sched_group *const *)b;

	return less_served(x, y) ? -1 : less_served(y, x) ? 1 : 0;
}

void sched_ws_free(struct sched_ws *ws)
{
	free(ws->ord);
	ws->ord = NULL;
	ws->cap = 0;
}

unsigned sched_select(const struct platform *p, struct sched_group *const *g,
		      unsigned n, struct sched_ws *ws)
{
	unsigned chosen = 0;
	char why[128];

	if (n > ws->cap) {
		struct sched_group **o = realloc(ws->ord, n * sizeof(*o));

		if (!o)
			return 0;
		ws->ord = o;
		ws->cap = n;
	}
	/* nothing held (filter values are scratch until an instance set
	 * says otherwise: see busy_new()) */
	memset(ws->busy.ctr, 0, sizeof(ws->busy.ctr));
	memset(ws->busy.filt_inst, 0, sizeof(ws->busy.filt_inst));
	for (unsigned i = 0; i < n; i++) {
		ws->ord[i] = g[i];
		g[i]->selected = false;
		g[i]->moved = false;
	}
	qsort(ws->ord, n, sizeof(*ws->ord), cmp_served);
	for (unsigned k = 0; k < n; k++) {
		struct sched_group *x = ws->ord[k];
		int ctr[SCHED_MAX_EVENTS];

		/* its previous (or fixed) placement, else a new one */
		if (!try_occupy(p, x, x->ctr, &ws->busy)) {
			if (x->fixed ||
			    sched_place_busy(p, x->ev, x->nev, &ws->busy, ctr,
					     why, sizeof(why)) < 0)
				continue;
			x->moved = memcmp(x->ctr, ctr, x->nev * sizeof(int)) != 0;
			memcpy(x->ctr, ctr, x->nev * sizeof(int));
			sched_occupy(p, x->ev, x->nev, x->ctr, &ws->busy);
		}
		x->selected = true;
		chosen++;
	}
	return chosen;
}
