/*
 * test_pmu_window.c - the counting window (pmu_counted_ns()) on the perf
 * backend (issue 19 section 2b).  Nothing stops the kernel's counters:
 * the "freeze" is the moment every group is read, so the window is the
 * time from one such read to the next, whatever the unfreeze in between
 * does, and no window spans a release.  The skl IMC's free-running
 * DRAM_DATA_READS counter, on the simulated kernel against a manual
 * clock, counts exactly the workload's rate over that window.  (The
 * direct backend's window: test_sampler's test_counting_window.)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "hw/hw.h"
#include "sim/hw_sim.h"
#include "pmu.h"
#include "pmu_perf.h"
#include "sim/sim_kernel.h"
#include "tests/tap.h"

#define MS 1000000ull

static char tmpdir[] = "/tmp/test_pmu_window_XXXXXX";
static char wl[300];

static const char *workload(void)
{
	FILE *f;

	snprintf(wl, sizeof(wl), "%s/wl.json", tmpdir);
	f = fopen(wl, "w");
	fputs("{\"platform\":\"skl\",\"phases\":[{\"seconds\":1000,\"rates\":"
	      "{\"imc:DRAM_DATA_READS\":1.0e8}}]}\n", f);
	fclose(f);
	return wl;
}

/* The DRAM_DATA_READS delta of the interval the last freeze ended. */
static uint64_t reads(struct pmu *p, const struct pmu_slot *sl,
		      uint64_t *last)
{
	uint64_t v = 0, d;

	ok(pmu_read(p, sl, &v) == 0, "the free-running counter reads");
	d = v - *last;
	*last = v;
	return d;
}

/* The simulator without registers, its kernel and the perf PMU layer
 * on skl, all on clk.  0, or bails out. */
static void world(struct hw *hw, struct skern **k, struct topology *t,
		  struct pmu *p, struct clock_manual *clk)
{
	struct hw_opts o = { .sim_no_registers = true };
	struct pmu_perf_opts po = { 0 };
	struct pmu_perf *pp = NULL;
	char why[512];

	o.sim_workload = workload();
	if (hw_open(hw, &hw_sim_ops, &o) < 0) {
		printf("Bail out! simulator: %s\n", hw_last_error());
		exit(1);
	}
	hw_sim_set_clock(hw, clk->src.mono_ns, clk->src.ctx);
	if (skern_open(k, hw, NULL, why, sizeof(why)) < 0) {
		printf("Bail out! simulated kernel: %s\n", why);
		exit(1);
	}
	po.sysfs = skern_sysfs(*k);
	po.ops = &skern_pev_ops;
	po.ctx = *k;
	t->plat = &plat_skl;
	if (pmu_perf_discover(&plat_skl, &po, t, &pp, why, sizeof(why)) < 0 ||
	    pmu_init_perf(p, hw, t, pp) < 0) {
		printf("Bail out! perf discovery: %s %s\n", why,
		       hw_last_error());
		exit(1);
	}
	pmu_set_clock(p, &clk->src);
}

int main(void)
{
	struct clock_manual clk;
	struct topology t = { 0 };
	struct skern *k = NULL;
	struct hw hw;
	struct pmu p;
	struct pmu_slot sl;
	const struct unit_type *u;
	uint64_t last = 0, d;
	unsigned idx = 0;
	int imc = -1;

	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	clock_manual_init(&clk, 1000 * 1000 * MS);
	world(&hw, &k, &t, &p, &clk);
	u = plat_unit(&plat_skl, "imc", &imc);
	for (idx = 0; u && idx < u->nfreerun; idx++)
		if (strcmp(u->freerun[idx].name, "DRAM_DATA_READS") == 0)
			break;
	ok(u && idx < u->nfreerun, "skl's imc has DRAM_DATA_READS");
	pmu_slot(&p, &sl, 0, imc, 0, idx);

	/* the first group read: no window before it */
	is_int(pmu_enable(&p, false), 0, "the first freeze (a group read)");
	(void)reads(&p, &sl, &last);
	is_u64(pmu_counted_ns(&p), 0, "no window before the first read");

	/* an unfreeze in the middle does not start the window: the
	 * kernel's counters never stopped (before: 0, unknown) */
	clock_manual_advance(&clk, 100 * MS);
	is_int(pmu_enable(&p, true), 0, "unfreeze");
	clock_manual_advance(&clk, 100 * MS);
	is_int(pmu_enable(&p, false), 0, "the next group read");
	d = reads(&p, &sl, &last);
	is_u64(pmu_counted_ns(&p), 200 * MS,
	       "the window: read to read, 200 ms");
	is_u64(d, 20000000, "DRAM_DATA_READS counted 1e8/s over that window");

	/* a release ends the window: the next read has none */
	pmu_release(&p);
	clock_manual_advance(&clk, 50 * MS);
	pmu_enable(&p, false);
	is_u64(pmu_counted_ns(&p), 0, "no window spans a release");
	clock_manual_advance(&clk, 30 * MS);
	pmu_enable(&p, false);
	is_u64(pmu_counted_ns(&p), 30 * MS, "and the next one is 30 ms");

	pmu_release(&p);
	pmu_free(&p);
	skern_close(k);
	hw_close(&hw);
	unlink(wl);
	rmdir(tmpdir);
	return tap_done();
}
