/*
 * api_groups.c - GET /api/v1/groups (see api_groups.h).
 *
 * A group's sources are names in the platform's derived table (struct
 * derived_src); a source may have alternatives (zen4 DRAM reads: the UMCs,
 * or 24 data-fabric events), of which the first whose every event
 * resolves on units this machine has is served, as the daemon's own
 * derived metrics choose.  A :split modifier is kept (hsx counts LLC
 * lookups and misses on alternate CBos: their filters differ, and a box
 * has one filter register), with the factor per socket that scales its
 * count up to every instance, as the daemon's own metrics scale it; a
 * source the platform marks mean (the CHAs' clock: the clock of one box)
 * gets 1 / the instances present instead, so that the boxes' sum is
 * their mean.  A group's optional sources (MEM's read latency) are
 * served as the required ones, with "available" and the reason where
 * this machine lacks them, and so is each figure: one over a source
 * missing here is absent with that reason, never 0.
 */
#include "config.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api_groups.h"
#include "jsend.h"
#include "plat/group.h"
#include "pmu/sched.h"

/* Does event text resolve here, on a unit some socket has? */
static bool counts_here(const struct daemon *d, const char *text)
{
	struct evspec es;
	char msg[300];

	if (sched_resolve(d->plat, text, true, &es, msg, sizeof(msg)) < 0)
		return false;
	for (unsigned s = 0; s < d->topo.nsockets; s++)
		if (d->topo.sock[s].ninst[es.unit])
			return true;
	return false;
}

/*
 * The entries of source name's chosen alternative: *first its index in
 * the platform's derived sources; returns how many (adjacent entries of
 * one alt), 0 when the platform has no such source or no alternative
 * counts here (why says which).
 */
static size_t source_entries(const struct daemon *d, const char *name,
			     size_t *first, char *why, size_t whylen)
{
	const struct derived_table *t = d->plat->derived;
	bool seen = false;

	for (size_t i = 0; t && i < t->nsrc;) {
		size_t j = i, k;
		bool ok = true;

		if (strcmp(t->src[i].name, name) != 0) {
			i++;
			continue;
		}
		seen = true;
		while (j < t->nsrc && strcmp(t->src[j].name, name) == 0 &&
		       t->src[j].alt == t->src[i].alt)
			j++;
		for (k = i; k < j && ok; k++)
			ok = counts_here(d, t->src[k].event);
		if (ok) {
			*first = i;
			return j - i;
		}
		i = j;
	}
	snprintf(why, whylen, seen ? "no event of source %s counts on this "
		 "machine" : "platform %s defines no source %s", seen ? name
		 : d->plat->id, name);
	return 0;
}

/* Per socket, the instances of text's unit present over those it counts
 * on (1 without :split; 0 where it counts on none); for a mean source,
 * 1 over the instances it counts on. */
static struct json_object *instance_scale(const struct daemon *d,
					  const char *text, bool mean)
{
	struct json_object *a = json_object_new_array();
	struct evspec es;
	char msg[300];

	if (sched_resolve(d->plat, text, true, &es, msg, sizeof(msg)) < 0)
		return a;
	for (unsigned s = 0; s < d->topo.nsockets; s++) {
		const struct topo_socket *ts = &d->topo.sock[s];
		unsigned present = 0, counted = 0;

		for (unsigned in = 0; in < ts->ninst[es.unit]; in++) {
			bool p = topo_present(ts, es.unit, in);

			present += p;
			counted += p && evspec_on(&es, in);
		}
		json_object_array_add(a, json_object_new_double(
			!counted ? 0 : mean ? 1.0 / counted
			: (double)present / counted));
	}
	return a;
}

static struct json_object *str_array(const char *const *v)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < GROUP_MAX_SRC && v[i]; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

/* Serves source name of group g (opt: one of its optional sources) into
 * srcs; returns whether it counts here, why saying why not. */
static bool source_json(const struct daemon *d, const char *name, bool opt,
			struct json_object *srcs, char *why, size_t whylen)
{
	const struct derived_table *t = d->plat->derived;
	struct json_object *so = json_object_new_object();
	struct json_object *evs = json_object_new_array();
	size_t first = 0, n = source_entries(d, name, &first, why, whylen);

	for (size_t k = first; k < first + n; k++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "event",
				       json_object_new_string(t->src[k].event));
		json_object_object_add(e, "scale",
				       json_object_new_double(t->src[k].scale));
		json_object_object_add(e, "instance_scale",
				       instance_scale(d, t->src[k].event,
						      t->src[k].mean));
		json_object_array_add(evs, e);
	}
	json_object_object_add(so, "name", json_object_new_string(name));
	json_object_object_add(so, "optional", json_object_new_boolean(opt));
	json_object_object_add(so, "available", json_object_new_boolean(n > 0));
	json_object_object_add(so, "reason", n ? NULL
			       : json_object_new_string(why));
	json_object_object_add(so, "events", evs);
	json_object_array_add(srcs, so);
	return n > 0;
}

/* The reason source name of srcs (served by source_json) does not count
 * here, or NULL when it does (or is not there). */
static const char *source_missing(struct json_object *srcs, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(srcs); i++) {
		struct json_object *so = json_object_array_get_idx(srcs, i), *v;

		if (!json_object_object_get_ex(so, "name", &v) ||
		    strcmp(json_object_get_string(v), name) != 0)
			continue;
		if (json_object_object_get_ex(so, "available", &v) &&
		    json_object_get_boolean(v))
			return NULL;
		return json_object_object_get_ex(so, "reason", &v)
		       ? json_object_get_string(v) : "not counted here";
	}
	return NULL;
}

/* Why figure i of g does not count here (the first of its sources in
 * srcs that does not), or NULL when it does. */
static const char *figure_missing(const struct evgroup *g, size_t i,
				  struct json_object *srcs)
{
	const struct evgroup_figure *f = &g->fig[i];
	const char *const *lists[] = { f->of, f->over, f->per };
	const char *miss = NULL;

	for (size_t l = 0; l < 3 && !miss; l++)
		for (size_t k = 0; k < GROUP_MAX_SRC && lists[l][k] && !miss; k++)
			miss = source_missing(srcs, lists[l][k]);
	return miss;
}

/* Of the figures of g named as figure i (alternatives, group.h), the one
 * served: the first that counts here, else the first. */
static size_t chosen_alt(const struct evgroup *g, size_t i,
			 struct json_object *srcs)
{
	size_t first = g->nfig;

	for (size_t j = 0; j < g->nfig; j++) {
		if (strcmp(g->fig[j].name, g->fig[i].name) != 0)
			continue;
		if (first == g->nfig)
			first = j;
		if (!figure_missing(g, j, srcs))
			return j;
	}
	return first;
}

static struct json_object *group_json(const struct daemon *d,
				      const struct evgroup *g)
{
	struct json_object *o = json_object_new_object();
	struct json_object *srcs = json_object_new_array();
	struct json_object *figs = json_object_new_array();
	char why[300] = "";
	const char *firstwhy = NULL;
	bool av = true, anyfig = false;

	json_object_object_add(o, "name", json_object_new_string(g->name));
	json_object_object_add(o, "description", json_object_new_string(g->desc));
	for (size_t i = 0; i < GROUP_MAX_SRC && g->src[i]; i++) {
		char w[300];

		if (!source_json(d, g->src[i], false, srcs, w, sizeof(w)) && av) {
			av = false;
			snprintf(why, sizeof(why), "%s", w);
		}
	}
	for (size_t i = 0; i < GROUP_MAX_SRC && g->opt[i]; i++) {
		char w[300];

		source_json(d, g->opt[i], true, srcs, w, sizeof(w));
	}
	for (size_t i = 0; i < g->nfig; i++) {
		const struct evgroup_figure *f = &g->fig[i];
		struct json_object *fo;
		const char *miss = figure_missing(g, i, srcs);
		size_t alt = chosen_alt(g, i, srcs);

		if (alt != i)
			continue;	/* another figure of its name is served */
		fo = json_object_new_object();
		anyfig |= !miss;
		if (miss && !firstwhy)
			firstwhy = miss;
		json_object_object_add(fo, "name", json_object_new_string(f->name));
		json_object_object_add(fo, "unit", json_object_new_string(f->unit));
		json_object_object_add(fo, "description",
				       json_object_new_string(f->desc));
		json_object_object_add(fo, "kind", json_object_new_string(
					       evgroup_kind_name(f->kind)));
		json_object_object_add(fo, "of", str_array(f->of));
		json_object_object_add(fo, "over", str_array(f->over));
		json_object_object_add(fo, "per", str_array(f->per));
		json_object_object_add(fo, "factor",
				       json_object_new_double(f->k ? f->k : 1));
		json_object_object_add(fo, "available",
				       json_object_new_boolean(!miss));
		json_object_object_add(fo, "reason", miss
				       ? json_object_new_string(miss) : NULL);
		json_object_array_add(figs, fo);
	}
	if (av && !anyfig) {
		av = false;
		snprintf(why, sizeof(why), "%s (none of its figures counts "
			 "here)", firstwhy ? firstwhy : "no figures");
	}
	json_object_object_add(o, "available", json_object_new_boolean(av));
	json_object_object_add(o, "reason", av ? NULL : json_object_new_string(why));
	json_object_object_add(o, "sources", srcs);
	json_object_object_add(o, "figures", figs);
	return o;
}

void api_groups(void *ctx, const struct http_req *req,
		struct http_resp *resp)
{
	struct daemon *d = ctx;
	const char *name = http_query(req, "name");
	struct json_object *arr = json_object_new_array(), *o;
	bool found = false;

	for (size_t i = 0; i < evgroup_count; i++) {
		if (name && strcasecmp(name, evgroup_all[i].name) != 0)
			continue;
		found = true;
		json_object_array_add(arr, group_json(d, &evgroup_all[i]));
	}
	if (name && !found) {
		char list[200] = "";

		for (size_t i = 0; i < evgroup_count; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s", i ? ", " : "", evgroup_all[i].name);
		json_object_put(arr);
		http_error(resp, 404, "not_found", "no group named \"%.40s\" "
			   "(the groups: %s; uncorectl groups lists what this "
			   "machine counts)", name, list);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "platform", json_object_new_string(d->plat->id));
	json_object_object_add(o, "backend", json_object_new_string(d->backend));
	json_object_object_add(o, "groups", arr);
	send_json(resp, o);
}
