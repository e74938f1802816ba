/*
 * api_formulas.c - GET /api/v1/formulas (see api_formulas.h).
 *
 * The catalog is static data (src/plat/formulas_<id>.c); what this route
 * adds is whether each entry counts here, as a claim of it would
 * (formula_here()): its events resolved, on units this machine has, and
 * placeable on their boxes' counters at once.
 */
#include "config.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api_formulas.h"
#include "jsend.h"
#include "core/formula.h"
#include "pmu/sched.h"

bool api_formula_available(const struct daemon *d, const struct formula *f,
			   char *why, size_t whylen)
{
	struct evspec fev[SCHED_MAX_EVENTS];
	char msg[500];

	switch (formula_here(d->plat, &d->topo, f, fev, SCHED_MAX_EVENTS, msg,
			     sizeof(msg))) {
	case FORMULA_HERE:
		return true;
	case FORMULA_NO_BOX:
		snprintf(why, whylen, "%s%s%s%s", msg,
			 d->perf_missing[0] ? " (missing kernel PMUs: " : "",
			 d->perf_missing, d->perf_missing[0] ? ")" : "");
		return false;
	case FORMULA_APART:
		snprintf(why, whylen, "its events can never count together, "
			 "so a claim of it is refused (claim its events in "
			 "claims of their own; [formulas] export counts them in "
			 "turns): %s", msg);
		return false;
	default:
		snprintf(why, whylen, "%s", msg);
		return false;
	}
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

void api_formulas(void *ctx, const struct http_req *req,
		  struct http_resp *resp)
{
	struct daemon *d = ctx;
	const char *q = http_query(req, "q");
	size_t n;
	const struct formula *t = formula_table(d->plat->id, &n);
	struct json_object *arr = json_object_new_array(), *o;
	unsigned served = 0, refused = 0;

	if (q && strlen(q) > 128) {
		json_object_put(arr);
		http_error(resp, 400, "bad_parameter", "q is longer than 128 "
			   "characters");
		return;
	}
	for (size_t i = 0; t && i < n; i++) {
		const struct formula *f = &t[i];
		struct json_object *e, *evs;
		char why[600], qn[160];
		bool av = api_formula_available(d, f, why, sizeof(why));

		av ? served++ : refused++;
		if (q && !strcasestr(f->name, q) && !strcasestr(f->desc, q))
			continue;
		formula_qualified(d->plat, f, qn, sizeof(qn));
		e = json_object_new_object();
		add_str(e, "name", qn);
		add_str(e, "source", f->source);
		add_str(e, "description", f->desc);
		add_str(e, "unit", f->unit);
		add_str(e, "source_unit", f->src_unit);
		add_str(e, "conversion", f->conversion);
		add_str(e, "formula", f->formula);
		add_str(e, "expression", f->expr);
		evs = json_object_new_array();
		for (unsigned k = 0; f->events && f->events[k].spec; k++) {
			struct json_object *ev = json_object_new_object();

			add_str(ev, "event", f->events[k].spec);
			add_str(ev, "scope", f->events[k].scope ==
				FORMULA_FIRST_BOX ? "first_box" : "socket");
			json_object_array_add(evs, ev);
		}
		json_object_object_add(e, "events", evs);
		if (f->per_box)
			add_str(e, "per_box", f->per_box);
		if (f->note)
			add_str(e, "note", f->note);
		if (f->overlaps)
			add_str(e, "overlaps", f->overlaps);
		json_object_object_add(e, "available",
				       json_object_new_boolean(av));
		add_str(e, "reason", av ? NULL : why);
		json_object_array_add(arr, e);
	}
	o = json_object_new_object();
	add_str(o, "platform", d->plat->id);
	add_str(o, "backend", d->backend);
	json_object_object_add(o, "available", json_object_new_int((int)served));
	json_object_object_add(o, "unavailable",
			       json_object_new_int((int)refused));
	json_object_object_add(o, "formulas", arr);
	send_json(resp, o);
}
