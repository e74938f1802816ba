/*
 * sim_zen3.c - the simulator's data for AMD Zen 3 (zen3; perf only).
 *
 * Default machine: 2 sockets, 8 L3 complexes per socket, one data fabric
 * PMU box per socket.  Load: L3 lookups 8e8/s per socket x (1 + 0.25 sin)
 * over the twelve 10-second phases, misses 15 % of them x (1 + 0.2 cos);
 * DRAM requests with data = misses x 1.4 (reads = misses, writes 0.4 x
 * misses, which the data fabric counts together), spread evenly over
 * DRAM channels 0-7.  Simulated values, not measurements.
 */
#include "config.h"

#include <math.h>

#include "plat/plat_sim.h"

enum zq { ZQ_LOOKUP, ZQ_MISS, ZQ_ALL, ZQ_N };

#define ZEN3_BI_LOOKUPS 8.0e8
#define ZEN3_BI_MISS 0.15
#define ZEN3_BI_WR 0.4
#define ZEN3_BI_CH 8

static void zen3_bi_base(unsigned p, unsigned nphases, double *q)
{
	double a = 2.0 * 3.14159265358979323846 * p / nphases;
	double lookups = ZEN3_BI_LOOKUPS * (1.0 + 0.25 * sin(a));
	double miss = lookups * ZEN3_BI_MISS * (1.0 + 0.2 * cos(a));

	q[ZQ_LOOKUP] = lookups;
	q[ZQ_MISS] = miss;
	q[ZQ_ALL] = miss * (1.0 + ZEN3_BI_WR);
}

#define CH(n) { "dram_channel_data_controller_" #n, ZQ_ALL,                  \
		1.0 / ZEN3_BI_CH, false }

static const struct plat_sim_rate zen3_bi_rules[] = {
	{ "l3_cache_accesses", ZQ_LOOKUP, 1.0, false },
	{ "l3_lookup_state.all_l3_req_typs", ZQ_LOOKUP, 1.0, false },
	{ "l3_misses", ZQ_MISS, 1.0, false },
	CH(0), CH(1), CH(2), CH(3), CH(4), CH(5), CH(6), CH(7),
};

static const struct plat_sim_rate zen3_bi_units[] = {
	{ NULL, ZQ_MISS, 0.01, false },
};

static const struct plat_sim_ninst zen3_bi_ninst[] = {
	{ "l3", 8 }, { "df", 1 },
};

static const struct plat_sim_builtin zen3_builtin = {
	.nphases = 12, .phase_s = 10.0, .nq = ZQ_N,
	.quantities = zen3_bi_base,
	.rules = zen3_bi_rules,
	.nrules = sizeof(zen3_bi_rules) / sizeof(zen3_bi_rules[0]),
	.units = zen3_bi_units,
	.nunits = sizeof(zen3_bi_units) / sizeof(zen3_bi_units[0]),
	.sockets = 2, .ninst = zen3_bi_ninst,
	.nninst = sizeof(zen3_bi_ninst) / sizeof(zen3_bi_ninst[0]),
	.selftest_keys = { "l3:0x04:0xff", "l3:0x04:0x01", "df:0x07:0x38" },
};

static const struct plat_sim_count zen3_counts[] = {
	{ "ccx_count", "l3", 8 },
};

/* The simulated CPUID: Zen 3 has no PerfMonV2, and its extended range
 * stops below 0x80000022 (simulated value 0x80000020), so the kernel's
 * DF count is NUM_COUNTERS_NB, 4, and the workload has no
 * "df_counters". */
static const struct plat_sim_cpuid zen3_cpuid[] = {
	{ 0x80000000, { 0x80000020, 0, 0, 0 } },
};

const struct plat_sim plat_zen3_sim = {
	.builtin = &zen3_builtin,
	.counts = zen3_counts,
	.ncounts = sizeof(zen3_counts) / sizeof(zen3_counts[0]),
	.max_sockets = 2,
	.mmio_bar = -1,
	.cpuid = zen3_cpuid,
	.ncpuid = sizeof(zen3_cpuid) / sizeof(zen3_cpuid[0]),
};
