/*
 * test_selftest.c - the self-test's own limits (issue 19 section 3): a
 * run that is still measuring when its deadline passes stops at once,
 * fails and names the phase it was in, having printed every check that
 * was done by then.  The built-in self-test workload on the simulator
 * takes about 4 s; deadlines of 0.5 and 2.5 s end it in the middle.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/hw_sim.h"
#include "base/log.h"
#include "daemon/selftest.h"
#include "tests/tap.h"

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One self-test on a fresh simulated skl with the given deadline; the
 * output in *text (malloc'd), the wall time it took in *took. */
static int run(double deadline, char **text, double *took)
{
	struct hw_opts o = { .sim_platform = "skl", .sim_selftest = true };
	struct hw hw;
	struct topology topo = { 0 };
	struct pmu pmu;
	struct evspec ev[SAMPLER_MAX_EVENTS];
	struct program *p;
	unsigned nev = 0;
	char why[256];
	size_t len;
	FILE *f;
	double t0;
	int rc;

	if (hw_open(&hw, &hw_sim_ops, &o) < 0 ||
	    !(topo.plat = hw_sim_platform(&hw)) ||
	    topo.plat->ops->discover(&hw, &topo) < 0 ||
	    pmu_init(&pmu, &hw, &topo) < 0) {
		printf("Bail out! %s\n", hw_last_error());
		exit(1);
	}
	for (const char *const *b = topo.plat->baseline; *b; b++)
		if (sched_resolve(topo.plat, *b, false, &ev[nev++], why,
				  sizeof(why)) < 0) {
			printf("Bail out! %s\n", why);
			exit(1);
		}
	p = program_new(&topo, &pmu, ev, nev, 8, 100, why, sizeof(why));
	f = open_memstream(text, &len);
	if (!p || !f) {
		printf("Bail out! %s\n", p ? "open_memstream" : why);
		exit(1);
	}
	t0 = mono_s();
	rc = selftest_run(&pmu, p, true, deadline, f);
	*took = mono_s() - t0;
	fclose(f);
	program_put(p);
	pmu_free(&pmu);
	hw_close(&hw);
	return rc;
}

/* Does out say the run stopped at deadline d in one of the phases? */
static bool names_phase(const char *out, const char *d)
{
	static const char *const ph[] = { "quiet", "stream", "chase",
					  "frozen" };
	char want[160];

	for (unsigned i = 0; i < 4; i++) {
		snprintf(want, sizeof(want), "FAIL: no result within the "
			 "self-test's deadline of %s s: stopped in the %s phase",
			 d, ph[i]);
		if (strstr(out, want))
			return true;
	}
	return false;
}

/* The output as TAP comments. */
static void show(const char *out)
{
	for (const char *l = out; *l;) {
		const char *e = strchr(l, '\n');
		int n = e ? (int)(e - l) : (int)strlen(l);

		printf("# %.*s\n", n, l);
		l += n + (e != NULL);
	}
}

int main(void)
{
	char *out;
	double took;
	int rc;

	log_init("test_selftest", LOG_LVL_ERR);
	rc = run(0.5, &out, &took);
	is_int(rc, 1, "deadline 0.5 s: the self-test fails");
	ok(took < 1.0, "deadline 0.5 s: it stops at the deadline (%.2f s)",
	   took);
	ok(names_phase(out, "0.5"), "deadline 0.5 s: naming the phase it "
	   "was in");
	ok(strstr(out, "freeze stops counting") == NULL &&
	   strstr(out, "PASS: ") == NULL, "deadline 0.5 s: no verdict");
	show(out);
	free(out);

	rc = run(2.5, &out, &took);
	is_int(rc, 1, "deadline 2.5 s: the self-test fails");
	ok(took < 3.0, "deadline 2.5 s: it stops at the deadline (%.2f s)",
	   took);
	ok(names_phase(out, "2.5"), "deadline 2.5 s: naming the phase it "
	   "was in");
	/* what was done by then was printed then: a check whose step ended
	 * comes before the failure */
	ok(!strstr(out, "DRAM reads while streaming") ||
	   strstr(out, "DRAM reads while streaming") <
	   strstr(out, "FAIL: no result"),
	   "deadline 2.5 s: checks printed as their steps completed");
	show(out);
	free(out);

	rc = run(SELFTEST_DEADLINE_S, &out, &took);
	is_int(rc, 0, "the default deadline: the self-test passes (%.1f s)",
	       took);
	free(out);
	return tap_done();
}
