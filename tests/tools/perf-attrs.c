/*
 * perf-attrs.c - the perf_event_attr words uncored's perf backend opens
 * for every event of a platform, encoded from a sysfs tree, for
 * tests/scenario/perf_tool_attrs.sh to compare with what perf(1)
 * computes from the same tree.
 *
 *   perf-attrs PLATFORM SYSFS
 *
 * Discovers PLATFORM's kernel PMUs under SYSFS (a tree `uncore-sim
 * sysfs` wrote, or /sys) as the daemon's --backend=perf does, then
 * resolves each event the daemon may open - the default baseline's and
 * the derived metrics' sources ("baseline"), and every catalog event
 * ("catalog") - and encodes it on instance 0 of its unit on socket 0
 * with pmu_perf_attr(), the same path pmu_encode() takes.  One line per
 * event, tab-separated:
 *
 *   KIND EVENT PMU TERMS TYPE CONFIG CONFIG1 CONFIG2 FILTER
 *   KIND EVENT - WHY                                   (not encodable)
 *
 * TYPE in decimal, the config words in hex; FILTER is the catalog's
 * filter dependency (struct event.filter, "CBoFilter0[23:17]": a value
 * the user gives with the event, unless its perf terms carry one), "-"
 * for none.
 *
 * Nothing is opened: no capability is needed.  Exit status 0, or 1 with
 * a message when the platform or the tree cannot be used.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/hw.h"
#include "pmu/pmu.h"
#include "pmu/pmu_perf.h"
#include "plat/plat.h"
#include "pmu/sched.h"

static bool listed(const char *const *names, const char *name)
{
	for (; names && *names; names++)
		if (strcmp(*names, name) == 0)
			return true;
	return false;
}

/* Prints event name's line (kind "baseline" or "catalog"). */
static void show(struct pmu *pmu, const struct topology *t, const char *kind,
		 const char *name)
{
	struct pmu_perf_attr a;
	struct pmu_slot sl;
	struct evspec e;
	char why[512];
	unsigned idx = 0;

	if (sched_resolve(t->plat, name, true, &e, why, sizeof(why)) < 0 ||
	    pmu_reachable(pmu, &e, why, sizeof(why)) < 0)
		goto no;
	if (e.freerun >= 0)
		idx = (unsigned)e.freerun;
	else
		while (idx < 7 && e.ctr_mask && !(e.ctr_mask >> idx & 1))
			idx++;
	pmu_slot(pmu, &sl, 0, e.unit, 0, idx);
	if (pmu_perf_attr(pmu, &sl, &e, &a, why, sizeof(why)) < 0)
		goto no;
	printf("%s\t%s\t%s\t%s\t%" PRIu32 "\t0x%" PRIx64 "\t0x%" PRIx64
	       "\t0x%" PRIx64 "\t%s\n", kind, name, a.pmu, a.terms, a.type,
	       a.config[0], a.config[1], a.config[2],
	       e.ev && e.ev->filter ? e.ev->filter : "-");
	return;
no:
	for (char *c = why; *c; c++)
		if (*c == '\t' || *c == '\n')
			*c = ' ';
	printf("%s\t%s\t-\t%s\n", kind, name, why);
}

int main(int argc, char **argv)
{
	const struct platform *p;
	struct pmu_perf_opts po = { 0 };
	struct pmu_perf *pp;
	struct topology t;
	struct pmu pmu;
	struct hw hw;
	char why[1024];

	if (argc != 3) {
		fprintf(stderr, "usage: perf-attrs PLATFORM SYSFS\n");
		return 1;
	}
	if (!(p = plat_by_id(argv[1]))) {
		fprintf(stderr, "perf-attrs: no platform %s\n", argv[1]);
		return 1;
	}
	memset(&t, 0, sizeof(t));
	memset(&pmu, 0, sizeof(pmu));
	memset(&hw, 0, sizeof(hw));
	t.plat = p;
	po.sysfs = argv[2];
	if (pmu_perf_discover(p, &po, &t, &pp, why, sizeof(why)) < 0) {
		fprintf(stderr, "perf-attrs: %s: %s\n", argv[2], why);
		return 1;
	}
	if (pmu_init_perf(&pmu, &hw, &t, pp) < 0) {
		fprintf(stderr, "perf-attrs: %s\n", hw_last_error());
		return 1;
	}
	for (size_t i = 0; p->baseline && p->baseline[i]; i++)
		show(&pmu, &t, "baseline", p->baseline[i]);
	for (size_t i = 0; p->derived && i < p->derived->nsrc; i++) {
		const char *ev = p->derived->src[i].event;

		if (!listed(p->baseline, ev))
			show(&pmu, &t, "baseline", ev);
	}
	for (size_t i = 0; i < p->nevents; i++)
		if (!listed(p->baseline, p->events[i].name))
			show(&pmu, &t, "catalog", p->events[i].name);
	pmu_free(&pmu);
	return 0;
}
