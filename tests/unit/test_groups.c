/*
 * test_groups.c - the named groups (src/plat/groups.c) against every
 * platform's derived table: each figure names only its group's sources,
 * the groups count on the platforms issue 40 names (hsx, skx, spr, zen4,
 * skl, and zen5, icx, gnr: every source defined, each of its events in
 * the platform's catalog with a positive scale), and a platform without
 * a source is one the route says so of (zen3: no dram_rd).
 */
#include "config.h"

#include <string.h>

#include "plat/group.h"
#include "plat/plat.h"
#include "pmu/sched.h"
#include "tests/tap.h"

static bool in_group(const struct evgroup *g, const char *src)
{
	for (size_t i = 0; i < GROUP_MAX_SRC && g->src[i]; i++)
		if (strcmp(g->src[i], src) == 0)
			return true;
	return false;
}

/* Does pl define source src, every entry an event of its catalog? */
static bool has_source(const struct platform *pl, const char *src,
		       char *why, size_t whylen)
{
	const struct derived_table *t = pl->derived;
	size_t n = 0;

	for (size_t i = 0; t && i < t->nsrc; i++) {
		struct evspec es;
		char msg[300];

		if (strcmp(t->src[i].name, src) != 0)
			continue;
		n++;
		if (sched_resolve(pl, t->src[i].event, true, &es, msg,
				  sizeof(msg)) < 0) {
			snprintf(why, whylen, "%s: %s", t->src[i].event, msg);
			return false;
		}
		if (!(t->src[i].scale > 0)) {
			snprintf(why, whylen, "%s: scale %g", t->src[i].event,
				 t->src[i].scale);
			return false;
		}
	}
	snprintf(why, whylen, "%zu entries", n);
	return n > 0;
}

int main(void)
{
	static const char *const named[] = { "hsx", "skx", "spr", "zen4",
					     "skl", "zen5", "icx", "gnr" };
	char why[400];

	ok(evgroup_count >= 2, "at least MEM and LLC");
	is_str(evgroup_all[0].name, "MEM", "MEM first");
	is_str(evgroup_all[1].name, "LLC", "LLC second");
	for (size_t g = 0; g < evgroup_count; g++) {
		const struct evgroup *gr = &evgroup_all[g];
		bool fine = true;

		for (size_t f = 0; f < gr->nfig; f++) {
			const struct evgroup_figure *fg = &gr->fig[f];

			fine &= fg->of[0] != NULL;
			for (size_t k = 0; k < GROUP_MAX_SRC && fg->of[k]; k++)
				fine &= in_group(gr, fg->of[k]);
			for (size_t k = 0; k < GROUP_MAX_SRC && fg->over[k]; k++)
				fine &= in_group(gr, fg->over[k]);
			fine &= (fg->kind == GF_RATIO ||
				 fg->kind == GF_ONE_MINUS_RATIO) ==
				(fg->over[0] != NULL);
			fine &= fg->kind != GF_PER_SECOND ||
				strstr(fg->unit, "per_second") != NULL;
			fine &= (fg->kind == GF_RATIO ||
				 fg->kind == GF_ONE_MINUS_RATIO) ==
				(strcmp(fg->unit, "ratio") == 0);
		}
		ok(fine, "%s: every figure over its group's sources, a divisor "
		   "and unit ratio exactly for the ratios, a rate's unit per "
		   "second", gr->name);
	}
	for (size_t p = 0; p < sizeof(named) / sizeof(named[0]); p++) {
		const struct platform *pl = plat_by_id(named[p]);

		if (!ok(pl != NULL, "platform %s exists", named[p]))
			continue;
		for (size_t g = 0; g < evgroup_count; g++)
			for (size_t k = 0; k < GROUP_MAX_SRC &&
			     evgroup_all[g].src[k]; k++)
				ok(has_source(pl, evgroup_all[g].src[k], why,
					      sizeof(why)), "%s %s: source %s "
				   "defined, its events in the catalog (%s)",
				   named[p], evgroup_all[g].name,
				   evgroup_all[g].src[k], why);
	}
	ok(!has_source(plat_by_id("zen3"), "dram_rd", why, sizeof(why)),
	   "zen3 has no dram_rd (reads and writes together): MEM is "
	   "refused there with the reason");
	is_str(evgroup_kind_name(GF_ONE_MINUS_RATIO), "one_minus_ratio",
	       "kind names as served");
	return tap_done();
}
