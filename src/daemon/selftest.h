/*
 * selftest.h - `uncored --self-test` (doc/design.md section 4, "Self-test"):
 * checks a machine before it is trusted.  The baseline is programmed, a
 * known load runs (a quiet window, streaming reads over a buffer several
 * times the LLC, a pointer chase), and the counters must follow it:
 *
 *   counters advance     every headline quantity of every socket moves
 *   uncore clock         0.5 .. 5 GHz on every socket
 *   read-back            every control register reads what was written
 *   DRAM reads           >= 90 % of the bytes streamed, <= 10x more
 *   LLC misses           the pointer chase's miss rate >= 2x the quiet one
 *   freeze               no programmable counter moves while frozen
 *
 * The load is the only part that differs between a machine and the
 * simulator: on hardware it is generated, on the simulator a built-in
 * workload plays it (phases quiet, stream, chase; hw_opts.sim_selftest)
 * and the bytes "streamed" are what that workload's stream phase reads.
 */
#ifndef UNCORED_SELFTEST_H
#define UNCORED_SELFTEST_H

#include <stdio.h>

#include "core/sampler.h"

/* How long a self-test may take, load included (on the simulator about
 * 4 s; on hardware the buffer of up to 1 GiB is built and read in a few
 * seconds). */
#define SELFTEST_DEADLINE_S 60.0

/*
 * Runs every check on pmu with prog (the baseline, already built),
 * printing to out (flushed after each line) the table one check at a
 * time as its step completes, and returns 0 if every check passed, 1 if
 * one failed or the run was still going deadline_s seconds after it
 * started (it stops and names the phase it was in), -1 (with the reason
 * printed) if the test could not run: on the simulator, a workload whose
 * phases cannot play the load is refused before anything is measured.
 * Leaves the PMU idle (pmu_release).  sim: the backend plays a known
 * load (hw_played()).
 */
int selftest_run(struct pmu *pmu, const struct program *prog, bool sim,
		 double deadline_s, FILE *out);

#endif
