/*
 * test_groups.c - the named groups (src/plat/groups.c) against every
 * platform's derived table: each figure names only its group's sources,
 * MEM and LLC count on the platforms issue 40 names (hsx, skx, spr,
 * zen4, skl, and zen5, icx, gnr: every source defined, each of its
 * events in the platform's catalog with a positive scale), MEM_LATENCY
 * (and MEM's latency figure) where the daemon has its read latency
 * family (hsx, skx, icx, spr, gnr: the TOR; zen5: the L3's samples) and
 * nowhere else,
 * QPI on hsx and snbep, UPI on skx and later; a platform without a
 * source is one the route says so of (zen3: no dram_rd).
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
	for (size_t i = 0; i < GROUP_MAX_SRC && g->opt[i]; i++)
		if (strcmp(g->opt[i], src) == 0)
			return true;
	return false;
}

static const struct evgroup *group(const char *name)
{
	for (size_t g = 0; g < evgroup_count; g++)
		if (strcmp(evgroup_all[g].name, name) == 0)
			return &evgroup_all[g];
	return NULL;
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

/* Does figure f count on pl (every source of it defined)? */
static bool fig_counts(const struct platform *pl,
		       const struct evgroup_figure *f)
{
	const char *const *lists[] = { f->of, f->over, f->per };
	char why[400];

	for (size_t l = 0; l < 3; l++)
		for (size_t k = 0; k < GROUP_MAX_SRC && lists[l][k]; k++)
			if (!has_source(pl, lists[l][k], why, sizeof(why)))
				return false;
	return true;
}

/* Does some figure of g named name count on pl (one of its
 * alternatives)?  name NULL: any figure. */
static bool some_fig(const struct platform *pl, const struct evgroup *g,
		     const char *name)
{
	for (size_t f = 0; f < g->nfig; f++)
		if ((!name || !strcmp(g->fig[f].name, name)) &&
		    fig_counts(pl, &g->fig[f]))
			return true;
	return false;
}

/* Does pl define every source of list v? */
static bool has_all(const struct platform *pl, const char *const *v,
		    char *why, size_t whylen)
{
	snprintf(why, whylen, "no sources");
	for (size_t k = 0; k < GROUP_MAX_SRC && v[k]; k++)
		if (!has_source(pl, v[k], why, whylen))
			return false;
	return true;
}

int main(void)
{
	/* which groups count where (required sources), and where MEM has
	 * its optional latency sources: the platforms of issue 40 and the
	 * other servers */
	static const struct {
		const char *plat;
		const char *groups;	/* the groups that count */
		bool mem_latency;	/* MEM's optional sources too */
	} want[] = {
		{ "hsx", "MEM LLC MEM_LATENCY QPI", true },
		{ "snbep", "MEM LLC QPI", false },
		{ "skx", "MEM LLC MEM_LATENCY UPI", true },
		{ "icx", "MEM LLC MEM_LATENCY UPI", true },
		{ "spr", "MEM LLC MEM_LATENCY UPI", true },
		{ "gnr", "MEM LLC MEM_LATENCY UPI", true },
		{ "zen4", "MEM LLC", false },
		{ "zen5", "MEM LLC MEM_LATENCY", true },
		{ "skl", "MEM LLC", false },
	};
	char why[400];

	ok(evgroup_count >= 5, "MEM, LLC, MEM_LATENCY, QPI, UPI");
	is_str(evgroup_all[0].name, "MEM", "MEM first");
	is_str(evgroup_all[1].name, "LLC", "LLC second");
	ok(group("MEM_LATENCY") && group("QPI") && group("UPI"),
	   "MEM_LATENCY, QPI and UPI defined");
	for (size_t g = 0; g < evgroup_count; g++) {
		const struct evgroup *gr = &evgroup_all[g];
		bool fine = true;

		for (size_t f = 0; f < gr->nfig; f++) {
			const struct evgroup_figure *fg = &gr->fig[f];
			bool div = fg->kind == GF_RATIO ||
				   fg->kind == GF_ONE_MINUS_RATIO ||
				   fg->kind == GF_LATENCY;
			bool clk = fg->kind == GF_IN_FLIGHT ||
				   fg->kind == GF_LATENCY;

			fine &= fg->of[0] != NULL;
			for (size_t k = 0; k < GROUP_MAX_SRC && fg->of[k]; k++)
				fine &= in_group(gr, fg->of[k]);
			for (size_t k = 0; k < GROUP_MAX_SRC && fg->over[k]; k++)
				fine &= in_group(gr, fg->over[k]);
			for (size_t k = 0; k < GROUP_MAX_SRC && fg->per[k]; k++)
				fine &= in_group(gr, fg->per[k]);
			fine &= div == (fg->over[0] != NULL);
			fine &= clk == (fg->per[0] != NULL);
			fine &= fg->kind != GF_PER_SECOND ||
				strstr(fg->unit, "per_second") != NULL;
			/* a ratio of counts, or with a factor to seconds */
			fine &= (fg->kind == GF_RATIO ||
				 fg->kind == GF_ONE_MINUS_RATIO) ==
				(strcmp(fg->unit, "ratio") == 0 ||
				 (fg->kind == GF_RATIO && fg->k > 0));
			fine &= (fg->kind == GF_LATENCY ||
				 (fg->kind == GF_RATIO && fg->k > 0)) ==
				(strcmp(fg->unit, "seconds") == 0);
			fine &= !fg->k || fg->kind == GF_RATIO;
		}
		ok(fine, "%s: every figure over its group's sources, a divisor "
		   "exactly for the ratios and the latency, a clock exactly for "
		   "in-flight and latency, unit ratio for the ratios, seconds "
		   "for the latency, a rate's unit per second", gr->name);
	}
	for (size_t p = 0; p < sizeof(want) / sizeof(want[0]); p++) {
		const struct platform *pl = plat_by_id(want[p].plat);
		const struct evgroup *mem = group("MEM");

		if (!ok(pl != NULL, "platform %s exists", want[p].plat))
			continue;
		for (size_t g = 0; g < evgroup_count; g++) {
			const struct evgroup *gr = &evgroup_all[g];
			char w[64];
			bool expect;

			snprintf(w, sizeof(w), " %s ", gr->name);
			{
				char list[200];

				snprintf(list, sizeof(list), " %s ",
					 want[p].groups);
				expect = strstr(list, w) != NULL;
			}
			ok((has_all(pl, gr->src, why, sizeof(why)) &&
			    some_fig(pl, gr, NULL)) == expect,
			   "%s %s: %s (%s)", want[p].plat, gr->name,
			   expect ? "every source defined, its events in the "
			   "catalog" : "a source missing, the group refused with "
			   "the reason", why);
		}
		ok(mem && some_fig(pl, mem, "memory_read_latency") ==
		   want[p].mem_latency, "%s MEM: the read latency %s",
		   want[p].plat, want[p].mem_latency ? "too" : "absent with "
		   "the reason");
	}
	ok(!has_source(plat_by_id("zen3"), "dram_rd", why, sizeof(why)),
	   "zen3 has no dram_rd (reads and writes together): MEM is "
	   "refused there with the reason");
	is_str(evgroup_kind_name(GF_ONE_MINUS_RATIO), "one_minus_ratio",
	       "kind names as served");
	is_str(evgroup_kind_name(GF_LATENCY), "latency", "latency as served");
	is_str(evgroup_kind_name(GF_IN_FLIGHT), "in_flight",
	       "in_flight as served");
	return tap_done();
}
