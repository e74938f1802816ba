/*
 * sched.c - event resolution and counter placement (see sched.h).
 *
 * Placement is a small bipartite matching per unit: at most eight
 * counters and a handful of events, so a depth-first search that tries
 * the most constrained event first is exact and cheap.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sched.h"

static int popcount8(uint8_t m)
{
	return __builtin_popcount(m);
}

int sched_resolve(const struct platform *p, const char *text, bool allow_raw,
		  struct evspec *out, char *why, size_t whylen)
{
	const struct event *ev = plat_event(p, text);
	const struct unit_type *u;
	int ui;

	memset(out, 0, sizeof(*out));
	out->freerun = -1;
	if (strlen(text) >= SCHED_NAME_MAX) {
		snprintf(why, whylen, "event name too long (at most %d "
			 "characters)", SCHED_NAME_MAX - 1);
		return -EINVAL;
	}
	snprintf(out->name, sizeof(out->name), "%s", text);
	if (ev) {
		u = plat_unit(p, ev->unit, &ui);
		if (!u) {
			snprintf(why, whylen, "%s: catalog names unknown unit "
				 "%s", text, ev->unit);
			return -EINVAL;
		}
		out->ev = ev;
		out->unit = ui;
		out->enc = event_enc_of(ev);
		if (u->kind == UNIT_FREERUN) {
			for (unsigned i = 0; i < u->nfreerun; i++)
				if (strcmp(u->freerun[i].name, ev->name) == 0)
					out->freerun = (int)i;
			if (out->freerun < 0) {
				snprintf(why, whylen, "%s: no free-running "
					 "counter of that name in %s", text,
					 u->name);
				return -EINVAL;
			}
			out->ctr_mask = 0;
		} else if (u->kind == UNIT_FIXED) {
			out->ctr_mask = 1;
		} else {
			out->ctr_mask = ev->ctr_mask & (uint8_t)width_mask(u->nctr);
		}
		return 0;
	}
	if (!strchr(text, ':')) {
		snprintf(why, whylen, "unknown event \"%s\" (see "
			 "/api/v1/events or `uncorectl events`)", text);
		return -EINVAL;
	}
	if (!allow_raw) {
		snprintf(why, whylen, "raw encoding \"%s\" refused: "
			 "allow_raw_events is off", text);
		return -EPERM;
	}
	if (plat_parse_raw(p, text, &u, &out->enc, why, whylen) < 0)
		return -EINVAL;
	plat_unit(p, u->name, &ui);
	if (u->kind != UNIT_PROG) {
		snprintf(why, whylen, "%s: unit %s has no programmable "
			 "counters", text, u->name);
		return -EINVAL;
	}
	out->unit = ui;
	/* A raw encoding that is a catalog event inherits its constraints. */
	out->ev = plat_event_by_enc(p, u->name, &out->enc);
	out->ctr_mask = (out->ev ? out->ev->ctr_mask : 0xff) &
			(uint8_t)width_mask(u->nctr);
	return 0;
}

int sched_encode(const struct unit_type *u, const struct evspec *ev,
		 unsigned ctr, uint64_t *ctl, char *why, size_t whylen)
{
	if (ev->ev)
		return plat_encode_event(u, ev->ev, ctr, ctl, why, whylen);
	return plat_encode(u, &ev->enc, ctr, ev->ctr_mask, ctl, why, whylen);
}

/* Depth-first assignment of events order[k..] of one unit. */
static bool place_dfs(const struct evspec *ev, const unsigned *order,
		      unsigned k, unsigned n, uint8_t used, int *ctr)
{
	if (k == n)
		return true;
	for (unsigned c = 0; c < 8; c++) {
		uint8_t bit = (uint8_t)(1u << c);

		if (!(ev[order[k]].ctr_mask & bit) || (used & bit))
			continue;
		ctr[order[k]] = (int)c;
		if (place_dfs(ev, order, k + 1, n, used | bit, ctr))
			return true;
	}
	return false;
}

int sched_place(const struct platform *p, const struct evspec *ev,
		unsigned n, const uint8_t *busy, int *ctr, char *why,
		size_t whylen)
{
	unsigned nunits = plat_nunits(p);

	for (unsigned ui = 0; ui < nunits; ui++) {
		const struct unit_type *u = p->units[ui];
		unsigned order[64], m = 0;
		uint8_t used = busy ? busy[ui] : 0;

		for (unsigned i = 0; i < n; i++) {
			if (ev[i].unit != (int)ui)
				continue;
			if (u->kind == UNIT_FREERUN) {
				ctr[i] = ev[i].freerun;
				continue;
			}
			if (m == sizeof(order) / sizeof(order[0])) {
				snprintf(why, whylen, "too many %s events",
					 u->name);
				return -EBUSY;
			}
			order[m++] = i;
		}
		if (u->kind == UNIT_FREERUN || m == 0)
			continue;
		if (m > (unsigned)popcount8((uint8_t)(~used & width_mask(u->nctr)))) {
			snprintf(why, whylen, "%u %s events but %s has %u "
				 "counters%s", m, u->name, u->name, u->nctr,
				 used ? " free" : "");
			return -EBUSY;
		}
		/* most constrained first */
		for (unsigned a = 1; a < m; a++)
			for (unsigned b = a; b > 0 &&
			     popcount8(ev[order[b]].ctr_mask) <
			     popcount8(ev[order[b - 1]].ctr_mask); b--) {
				unsigned t = order[b];

				order[b] = order[b - 1];
				order[b - 1] = t;
			}
		for (unsigned k = 0; k < m; k++)
			if (!ev[order[k]].ctr_mask) {
				snprintf(why, whylen, "%s has no valid counter "
					 "on %s", ev[order[k]].name, u->name);
				return -EBUSY;
			}
		if (!place_dfs(ev, order, 0, m, used, ctr)) {
			size_t len = 0;

			len += (size_t)snprintf(why, whylen, "cannot place "
						"together on %s:", u->name);
			for (unsigned k = 0; k < m && len < whylen; k++) {
				char masks[32] = "", *q = masks;

				for (unsigned c = 0; c < u->nctr; c++)
					if (ev[order[k]].ctr_mask & (1u << c))
						q += sprintf(q, "%s%u",
							     q == masks ? "" : ",", c);
				len += (size_t)snprintf(why + len, whylen - len,
							" %s (counters %s)%s",
							ev[order[k]].name, masks,
							k + 1 < m ? "," : "");
			}
			return -EBUSY;
		}
	}
	return 0;
}

/* Counters of each unit that events ev[] occupy at placement ctr[]. */
static void occupy(const struct platform *p, const struct evspec *ev,
		   unsigned n, const int *ctr, uint8_t *busy)
{
	for (unsigned i = 0; i < n; i++)
		if (p->units[ev[i].unit]->kind == UNIT_PROG && ctr[i] >= 0)
			busy[ev[i].unit] |= (uint8_t)(1u << ctr[i]);
}

/* Does placement ctr[] of the group's programmable events avoid busy? */
static bool fits_at(const struct platform *p, const struct sched_group *g,
		    const int *ctr, const uint8_t *busy)
{
	uint8_t mine[PLAT_MAX_UNITS] = { 0 };

	for (unsigned i = 0; i < g->nev; i++) {
		unsigned u = (unsigned)g->ev[i].unit;
		uint8_t bit;

		if (p->units[u]->kind != UNIT_PROG)
			continue;
		if (ctr[i] < 0)
			return false;
		bit = (uint8_t)(1u << ctr[i]);
		if ((busy[u] | mine[u]) & bit || !(g->ev[i].ctr_mask & bit))
			return false;
		mine[u] |= bit;
	}
	return true;
}

/* Is a less served than b? */
static bool less_served(const struct sched_group *a, const struct sched_group *b)
{
	/* running/enabled compared without division: ra*eb < rb*ea */
	unsigned __int128 x = (unsigned __int128)a->running * (b->enabled ? b->enabled : 1);
	unsigned __int128 y = (unsigned __int128)b->running * (a->enabled ? a->enabled : 1);

	if (x != y)
		return x < y;
	return a->order < b->order;
}

unsigned sched_select(const struct platform *p, struct sched_group *const *g,
		      unsigned n)
{
	struct sched_group *ord[256];
	uint8_t busy[PLAT_MAX_UNITS] = { 0 };
	unsigned m = n < 256 ? n : 256, chosen = 0;
	char why[128];

	for (unsigned i = 0; i < m; i++) {
		ord[i] = g[i];
		g[i]->selected = false;
	}
	for (unsigned a = 1; a < m; a++)	/* insertion sort: n is small */
		for (unsigned b = a; b > 0 && less_served(ord[b], ord[b - 1]); b--) {
			struct sched_group *t = ord[b];

			ord[b] = ord[b - 1];
			ord[b - 1] = t;
		}
	for (unsigned k = 0; k < m; k++) {
		struct sched_group *x = ord[k];
		int ctr[SCHED_MAX_EVENTS];

		if (fits_at(p, x, x->ctr, busy)) {
			memcpy(ctr, x->ctr, sizeof(ctr));
		} else if (x->fixed ||
			   sched_place(p, x->ev, x->nev, busy, ctr, why,
				       sizeof(why)) < 0) {
			continue;
		}
		memcpy(x->ctr, ctr, x->nev * sizeof(int));
		occupy(p, x->ev, x->nev, x->ctr, busy);
		x->selected = true;
		chosen++;
	}
	return chosen;
}
