/*
 * sim_rapl.c - the simulated RAPL energy counters (sim_rapl.h) and the
 * workload's "energy" object that drives them:
 *
 *   "energy": {
 *     "watts": { "package": [120, 250], "dram": 30 },
 *     "initial": { "package": 4294000000 },
 *     "unit": 14
 *   }
 *
 * watts: per socket, a number for every phase or an array of one per
 * phase, for each domain the machine has ("package", "dram", "psys":
 * those of the platform's rapl_facts); a domain not named has no MSR.
 * "sN/package" then gives socket N its own.
 * initial: the 32-bit counters' value at start (default 0).  unit: the
 * energy status unit the power unit MSR reports (bits 12:8, 2^-unit J;
 * default the platform's rapl_facts.default_esu).  doc/simulator.md
 * "Energy".
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "sim/sim_rapl.h"
#include "sim/sim_wl_parse.h"

#define SR_MAX_WATTS 100000.0	/* per socket and domain */

static int dom_of(const char *name)
{
	for (int d = 0; d < RAPL_NDOM; d++)
		if (strcmp(name, rapl_dom_label((enum rapl_dom)d)) == 0)
			return d;
	return -1;
}

/* "package" etc. for a domain key, checked against the platform. */
static int dom_key(struct pctx *c, const char *key)
{
	const struct rapl_facts *f = rapl_facts_of(c->plat);
	int d = dom_of(key);

	if (d < 0)
		return wlp_fail(c, "unknown domain (package, dram or psys)");
	if (!f || !f->msr[d])
		return wlp_fail(c, "%s has no %s energy counter (rapl_facts, "
				"src/plat/rapl.c)", c->plat->id, key);
	return d;
}

/* One domain key's watts, into socket sock (-1: every socket). */
static int put_watts(struct pctx *c, json_object *val, int d, int sock)
{
	struct wl_energy *e = &c->w->energy;
	unsigned np = c->w->nphases;
	double x[WL_MAX_PHASES];
	int r;

	if ((r = wlp_get_per_phase(c, val, SR_MAX_WATTS,
				   "watts per socket, 0..100000", x)) < 0)
		return r;
	for (unsigned s = 0; s < PLAT_MAX_SOCKETS; s++)
		if (sock < 0 || (unsigned)sock == s)
			memcpy(&e->watts[((size_t)s * RAPL_NDOM + (size_t)d) * np],
			       x, np * sizeof(double));
	return 0;
}

/* "package": W (every socket), then "sN/package": W (socket N's), in
 * that order whatever the object's. */
static int parse_watts(struct pctx *c, json_object *o)
{
	struct wl_energy *e = &c->w->energy;
	int r, d, sock;

	if (!json_object_is_type(o, json_type_object))
		return wlp_fail(c, "must be an object {\"package\": W, ...}, "
				"not %s", wlp_type_name(o));
	for (int pass = 0; pass < 2; pass++) {
		json_object_object_foreach(o, key, val) {
			size_t old = wlp_path_key(c, key);
			const char *name = key;

			if ((r = wlp_parse_socket_prefix(c, &name, &sock)) < 0)
				return r;
			if ((sock >= 0) != (pass == 1)) {
				wlp_path_pop(c, old);
				continue;
			}
			if ((d = dom_key(c, name)) < 0)
				return d;
			if (sock >= 0 && !e->dom[d])
				return wlp_fail(c, "give \"%s\" for every "
						"socket first: a machine has a "
						"domain on every socket or none",
						name);
			e->dom[d] = true;
			if ((r = put_watts(c, val, d, sock)) < 0)
				return r;
			wlp_path_pop(c, old);
		}
	}
	return 0;
}

static int parse_initial(struct pctx *c, json_object *o)
{
	struct wl_energy *e = &c->w->energy;
	uint64_t x;
	int r, d;

	if (!json_object_is_type(o, json_type_object))
		return wlp_fail(c, "must be an object {\"package\": N, ...}, "
				"not %s", wlp_type_name(o));
	json_object_object_foreach(o, key, val) {
		size_t old = wlp_path_key(c, key);

		if ((d = dom_key(c, key)) < 0)
			return d;
		if (!e->dom[d])
			return wlp_fail(c, "\"watts\" does not name %s: the "
					"machine has no such counter", key);
		r = wlp_get_uint(c, val, 0, UINT32_MAX, "the 32-bit counter's "
				 "value at start, 0..4294967295", &x);
		if (r < 0)
			return r;
		e->initial[d] = x;
		wlp_path_pop(c, old);
	}
	return 0;
}

int wlp_parse_energy(struct pctx *c, json_object *o)
{
	struct wl_energy *e = &c->w->energy;
	const struct rapl_facts *f = rapl_facts_of(c->plat);
	json_object *watts = NULL, *initial = NULL;
	size_t old;
	uint64_t x;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return wlp_fail(c, "must be an object {\"watts\": {...}, "
				"\"initial\": {...}, \"unit\": N}, not %s",
				wlp_type_name(o));
	e->given = true;
	e->esu = f ? f->default_esu : 16;
	e->watts = calloc((size_t)PLAT_MAX_SOCKETS * RAPL_NDOM *
			  (c->w->nphases ? c->w->nphases : 1), sizeof(double));
	if (!e->watts)
		return wlp_fail_nomem(c);
	json_object_object_foreach(o, key, val) {
		size_t k_old = wlp_path_key(c, key);

		r = 0;
		if (strcmp(key, "watts") == 0) {
			watts = val;
		} else if (strcmp(key, "initial") == 0) {
			initial = val;
		} else if (strcmp(key, "unit") == 0) {
			r = wlp_get_uint(c, val, 0, 31, "the energy status "
					 "unit, bits 12:8 of the power unit "
					 "MSR: 0..31", &x);
			e->esu = (unsigned)x;
		} else {
			r = wlp_fail(c, "unknown key (\"energy\" accepts: "
				     "watts, initial, unit)");
		}
		if (r < 0)
			return r;
		wlp_path_pop(c, k_old);
	}
	if (!watts)
		return wlp_fail(c, "missing \"watts\" (the domains the machine "
				"has: {\"package\": W, \"dram\": W})");
	old = wlp_path_key(c, "watts");
	if ((r = parse_watts(c, watts)) < 0)
		return r;
	wlp_path_pop(c, old);
	if (initial) {
		old = wlp_path_key(c, "initial");
		if ((r = parse_initial(c, initial)) < 0)
			return r;
		wlp_path_pop(c, old);
	}
	return 0;
}

bool srapl_has(const struct workload *w, enum rapl_dom d)
{
	return w->energy.given && (unsigned)d < RAPL_NDOM && w->energy.dom[d];
}

unsigned srapl_unit_bits(const struct workload *w, enum rapl_dom d)
{
	const struct rapl_facts *f = rapl_facts_of(w->plat);

	if (f && f->fixed[d] != RAPL_UNIT_MSR)
		return (unsigned)f->fixed[d];
	return w->energy.esu;
}

uint64_t srapl_count(const struct workload *w, unsigned sock,
		     enum rapl_dom d, double t)
{
	double j;

	if (!srapl_has(w, d) || t <= 0 || sock >= PLAT_MAX_SOCKETS)
		return srapl_has(w, d) ? w->energy.initial[d] : 0;
	j = wl_integral(w, &w->energy.watts[((size_t)sock * RAPL_NDOM +
					     (size_t)d) * w->nphases], 0, t);
	return w->energy.initial[d] +
	       (uint64_t)floor(ldexp(j, (int)srapl_unit_bits(w, d)));
}

int srapl_msr(const struct workload *w, unsigned sock, uint32_t msr,
	      double t, uint64_t *val)
{
	const struct rapl_facts *f = rapl_facts_of(w->plat);

	if (!w->energy.given || !f)
		return 0;
	if (msr == f->unit_msr) {
		/* power units 3:0 = 3 (1/8 W), ESU 12:8, time units
		 * 19:16 = 0xA, as a Xeon reads (0xA0E03 for ESU 14) */
		*val = 0xa0003ull | (uint64_t)(w->energy.esu & 0x1f) << 8;
		return 1;
	}
	for (int d = 0; d < RAPL_NDOM; d++)
		if (f->msr[d] && msr == f->msr[d]) {
			if (!srapl_has(w, (enum rapl_dom)d))
				return 0;
			*val = srapl_count(w, sock, (enum rapl_dom)d, t) &
			       0xffffffffull;
			return 1;
		}
	return 0;
}
