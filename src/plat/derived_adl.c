/*
 * derived_adl.c - the derived metrics of the Core clients since Alder
 * Lake (adl, mtl; perf backend), one table for both: their DRAM and
 * clock PMUs are the same kernel types (uncore_snb.c).
 *
 * DRAM: the memory controllers' free-running data_read / data_write
 * counters (uncore_imc_free_running_0/1; Intel's
 * UNC_MC0_RDCAS_COUNT_FREERUN and siblings, "every 64B read request
 * entering the Memory Controller"), 64 bytes a count as the kernel's
 * .scale (6.103515625e-5 MiB) says, summed over both controllers.  The
 * uncore clock: UNC_CLOCK.SOCKET, the NCU's fixed counter.  No LLC
 * family: no public CBo event for these parts (doc/hardware-notes.md).
 * One socket, no channel or interconnect families.
 */
#include "config.h"

#include "derived.h"

static const struct derived_src adl_src[] = {
	{ "dram_rd", "UNC_M_FREE_RUNNING.DATA_READ", 64, false, 0 },
	{ "dram_wr", "UNC_M_FREE_RUNNING.DATA_WRITE", 64, false, 0 },
	{ "clock", "UNC_CLOCK.SOCKET", 1, false, 0 },
};

static const struct derived_metric adl_m[] = {
	DM_DRAM_SOCKET("Bytes read from DRAM: the memory controllers' "
		       "free-running read counters x 64, summed over the "
		       "controllers.",
		       "Bytes written to DRAM: the memory controllers' "
		       "free-running write counters x 64, summed over the "
		       "controllers."),
	DM_CLOCK_TICKS("Uncore clock (UCLK) cycles, from the NCU's fixed "
		       "counter (UNC_CLOCK.SOCKET)."),
	DM_CLOCK_HERTZ,
};

const struct derived_table derived_adl = {
	.src = adl_src, .nsrc = sizeof(adl_src) / sizeof(adl_src[0]),
	.m = adl_m, .nm = sizeof(adl_m) / sizeof(adl_m[0]),
};
