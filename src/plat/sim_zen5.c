/*
 * sim_zen5.c - the simulator's data for AMD Zen 5 (zen5; perf only).
 *
 * Default machine: 2 sockets, 16 L3 complexes and 12 UMCs per socket, one
 * data fabric PMU box per socket.  Load: L3 lookups 1.2e9/s per socket x
 * (1 + 0.25 sin) over the twelve 10-second phases, misses 15 % of them x
 * (1 + 0.2 cos); DRAM reads = misses, writes 0.4 x misses, 64 bytes each,
 * as UMC CAS commands (split over the UMCs) and as data fabric beats
 * (local or remote socket) spread evenly over DRAM channels 0-11, so both
 * DRAM paths give the same bytes.  Simulated values, not measurements.
 */
#include "config.h"

#include <math.h>

#include "plat/plat_sim.h"

enum zq { ZQ_LOOKUP, ZQ_MISS, ZQ_RD, ZQ_WR, ZQ_ALL, ZQ_MEMCLK, ZQ_N };

#define ZEN5_BI_LOOKUPS 1.2e9
#define ZEN5_BI_MISS 0.15
#define ZEN5_BI_WR 0.4
#define ZEN5_BI_CH 12
#define ZEN5_MEMCLK 3000000000ull	/* DDR5-6000 */

static void zen5_bi_base(unsigned p, unsigned nphases, double *q)
{
	double a = 2.0 * 3.14159265358979323846 * p / nphases;
	double lookups = ZEN5_BI_LOOKUPS * (1.0 + 0.25 * sin(a));
	double miss = lookups * ZEN5_BI_MISS * (1.0 + 0.2 * cos(a));

	q[ZQ_LOOKUP] = lookups;
	q[ZQ_MISS] = miss;
	q[ZQ_RD] = miss;
	q[ZQ_WR] = miss * ZEN5_BI_WR;
	q[ZQ_ALL] = q[ZQ_RD] + q[ZQ_WR];
	q[ZQ_MEMCLK] = (double)ZEN5_MEMCLK;
}

#define CH (1.0 / ZEN5_BI_CH)
#define DRAM(n)                                                               \
	{ "local_or_remote_socket_read_data_beats_dram_" #n, ZQ_RD, CH,       \
	  false },                                                            \
	{ "local_or_remote_socket_write_data_beats_dram_" #n, ZQ_WR, CH, false }

static const struct plat_sim_rate zen5_bi_rules[] = {
	{ "l3_lookup_state.all_coherent_accesses_to_l3", ZQ_LOOKUP, 1.0,
	  false },
	{ "l3_lookup_state.l3_miss", ZQ_MISS, 1.0, false },
	{ "l3_lookup_state.l3_hit", ZQ_LOOKUP, 0.85, false },
	{ "umc_cas_cmd.rd", ZQ_RD, 1.0, false },
	{ "umc_cas_cmd.wr", ZQ_WR, 1.0, false },
	{ "umc_cas_cmd.all", ZQ_ALL, 1.0, false },
	{ "umc_mem_clk", ZQ_MEMCLK, 1.0, true },
	DRAM(0), DRAM(1), DRAM(2), DRAM(3), DRAM(4), DRAM(5), DRAM(6),
	DRAM(7), DRAM(8), DRAM(9), DRAM(10), DRAM(11),
};

static const struct plat_sim_rate zen5_bi_units[] = {
	{ "umc", ZQ_MEMCLK, 0.01, true },
	{ NULL, ZQ_MISS, 0.01, false },
};

static const struct plat_sim_ninst zen5_bi_ninst[] = {
	{ "l3", 16 }, { "df", 1 }, { "umc", 12 },
};

static const struct plat_sim_builtin zen5_builtin = {
	.nphases = 12, .phase_s = 10.0, .nq = ZQ_N,
	.quantities = zen5_bi_base,
	.rules = zen5_bi_rules,
	.nrules = sizeof(zen5_bi_rules) / sizeof(zen5_bi_rules[0]),
	.units = zen5_bi_units,
	.nunits = sizeof(zen5_bi_units) / sizeof(zen5_bi_units[0]),
	.sockets = 2, .ninst = zen5_bi_ninst,
	.nninst = sizeof(zen5_bi_ninst) / sizeof(zen5_bi_ninst[0]),
	.selftest_keys = { "l3:0x04:0xff", "l3:0x04:0x01", "umc:0x0a:0x1" },
};

static const struct plat_sim_count zen5_counts[] = {
	{ "ccx_count", "l3", 32 }, { "umc_count", "umc", 12 },
};

/*
 * The simulated CPUID (wl_cpuid()): the extended range reaches 0x80000022
 * (Extended Performance Monitoring and Debug), whose EAX bit 0 says
 * PerfMonV2 and whose EBX says the counters: NumPerfCtrCore 6 (3:0),
 * LbrV2StackSize 16 (9:4), NumDfPmc 4 (15:10, the workload's
 * "df_counters"), NumUmcPmc 48 (21:16: 4 for each of the 12 UMCs); ECX
 * the 12 active UMCs.  Only NumDfPmc is read (amd_df_nctr, plat_amd.h);
 * the rest are there so a decoder reading the wrong field gets another
 * number.  Simulated values: NumDfPmc defaults to 4 (the count the
 * scenarios' known answers were first written for); "df_counters": 16
 * gives what Zen 4 servers' kernels report (doc/hardware-notes.md).
 */
static const struct plat_sim_cpuid zen5_cpuid[] = {
	{ 0x80000000, { 0x80000022, 0, 0, 0 } },
	{ 0x80000022, { 0x3, 6 | 16 << 4 | 4 << 10 | 48 << 16, 0xfff, 0 } },
};

static const struct plat_sim_cpuid_key zen5_cpuid_key = {
	.key = "df_counters", .leaf = 0x80000022, .reg = 1, .lo = 10, .hi = 15,
	.max = 63,
	.what = "data fabric counters (CPUID 0x80000022 EBX[15:10] NumDfPmc)",
};

/* The "memory_latency" curve's events.  Linux amdzen5 recommended.json
 * l3_read_miss_latency: 0xAC l3_xi_sampled_latency counts 10 ns a count
 * over 0xAD l3_xi_sampled_latency_requests; dram_near 0x01, dram_far
 * 0x02.  The simulated L3 samples every read. */
static const struct plat_sim_lat zen5_sim_lat = {
	.unit = "l3", .per_ns = 0.1,
	.ev = { { "l3:0xac:0x01", "l3:0xad:0x01", PSL_LOCAL },
		{ "l3:0xac:0x02", "l3:0xad:0x02", PSL_REMOTE } },
};

const struct plat_sim plat_zen5_sim = {
	.builtin = &zen5_builtin,
	.counts = zen5_counts,
	.ncounts = sizeof(zen5_counts) / sizeof(zen5_counts[0]),
	.max_sockets = 2,
	.mmio_bar = -1,
	.cpuid = zen5_cpuid,
	.ncpuid = sizeof(zen5_cpuid) / sizeof(zen5_cpuid[0]),
	.cpuid_key = &zen5_cpuid_key,
	.lat = &zen5_sim_lat,
};
