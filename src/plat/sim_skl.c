/*
 * sim_skl.c - the simulator's data for Skylake client (plat_sim.h).
 *
 * The host bridge at PCI 0:0.0 carries MCHBAR at offset 0x48 (bits 38:15
 * base, bit 0 enable; doc/hardware-notes.md) and the IMC counters sit in
 * its 32 KiB MMIO window; MSR_UNC_CBO_CONFIG (0x396) reads the number of
 * CBos plus one (manual 2.4.1).  Counters overflow into the global
 * status unconditionally; UCLK defaults to 800 MHz.
 */
#include "config.h"

#include <math.h>

#include "plat/plat_sim.h"
#include "plat/plat_skl.h"

#define SKL_SIM_HOST_BRIDGE_DID 0x191f	/* Skylake S quad core, one of
					   skl_host_bridges[] */

static const struct plat_sim_reg skl_sim_regs[] = {
	{ .space = HW_PCI, .devfn = 0, .device = SKL_SIM_HOST_BRIDGE_DID,
	  .addr = SKL_MCHBAR_PCI_OFF, .bits = 64,
	  .rw = SKL_MCHBAR_MASK | SKL_MCHBAR_EN, .reset = 0xfed10001ull,
	  .socket0_only = true },
	{ .space = HW_MSR, .addr = SKL_MSR_CBO_CONFIG, .bits = 64,
	  .reset_kind = PSR_NINST, .unit = "cbo", .reset = 1 },
};

/*
 * The built-in workload: twelve 10-second phases in which the load
 * follows 1 + 0.25 sin and the LLC miss fraction 10% x (1 + 0.2 cos), so
 * every counter moves and the derived metrics (hit ratio, bandwidth)
 * drift slowly.  Each catalog event's rate is a fixed fraction of one of
 * a few per-phase quantities, which keeps the headline events consistent
 * with each other (lookups = reads + writes, the states add up to at most
 * all lookups, misses drive ARB requests and DRAM traffic, ARB cycle
 * counts stay below the uncore clock).  An event this table does not
 * name still gets a small rate of its unit's base quantity.
 */
enum bq { BQ_LOOKUP, BQ_MISS, BQ_ARBREQ, BQ_ARBOCC, BQ_DRAM, BQ_N };

#define BI_LOOKUPS 1.0e8	/* LLC lookups per second per socket */
#define BI_MISS 0.10		/* of lookups */
#define BI_ARB_PER_MISS 1.2	/* ARB requests per LLC miss */
#define BI_ARB_LAT 30.0		/* UCLK cycles an ARB entry is valid */

static void skl_bi_base(unsigned p, unsigned nphases, double *q)
{
	double a = 2.0 * 3.14159265358979323846 * p / nphases;
	double lookups = BI_LOOKUPS * (1.0 + 0.25 * sin(a));
	double miss = lookups * BI_MISS * (1.0 + 0.2 * cos(a));

	q[BQ_LOOKUP] = lookups;
	q[BQ_MISS] = miss;
	q[BQ_ARBREQ] = miss * BI_ARB_PER_MISS;
	q[BQ_ARBOCC] = q[BQ_ARBREQ] * BI_ARB_LAT;
	q[BQ_DRAM] = miss * (1.2 + 0.4);	/* DRAM reads + writes */
}

static const struct plat_sim_rate skl_bi_rules[] = {
	/* Table 3-1: lookups by request type and state (of all lookups) */
	{ "UNC_CBO_CACHE_LOOKUP.ANY_MESI", BQ_LOOKUP, 1.0, false },
	{ "UNC_CBO_CACHE_LOOKUP.READ_MESI", BQ_LOOKUP, 0.7, false },
	{ "UNC_CBO_CACHE_LOOKUP.WRITE_MESI", BQ_LOOKUP, 0.3, false },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_ES", BQ_LOOKUP, 0.7, false },
	{ "UNC_CBO_CACHE_LOOKUP.READ_ES", BQ_LOOKUP, 0.55, false },
	{ "UNC_CBO_CACHE_LOOKUP.WRITE_ES", BQ_LOOKUP, 0.15, false },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_M", BQ_LOOKUP, 0.15, false },
	{ "UNC_CBO_CACHE_LOOKUP.WRITE_M", BQ_LOOKUP, 0.10, false },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_I", BQ_MISS, 1.0, false },
	{ "UNC_CBO_CACHE_LOOKUP.READ_I", BQ_MISS, 0.7, false },
	{ "UNC_CBO_XSNP_RESPONSE.MISS_XCORE", BQ_LOOKUP, 0.02, false },
	{ "UNC_CBO_XSNP_RESPONSE.MISS_EVICTION", BQ_MISS, 0.3, false },
	{ "UNC_CBO_XSNP_RESPONSE.HIT_XCORE", BQ_LOOKUP, 0.01, false },
	{ "UNC_CBO_XSNP_RESPONSE.HITM_XCORE", BQ_LOOKUP, 0.004, false },
	/* Table 3-2: requests follow misses; cycle counts use occupancy */
	{ "UNC_ARB_TRK_REQUESTS.ALL", BQ_ARBREQ, 1.0, false },
	{ "UNC_ARB_TRK_REQUESTS.WRITES", BQ_ARBREQ, 0.3, false },
	{ "UNC_ARB_COH_TRK_REQUESTS.ALL", BQ_ARBREQ, 0.9, false },
	{ "UNC_ARB_TRK_OCCUPANCY.ALL", BQ_ARBOCC, 1.0, false },
	{ "UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST", BQ_ARBOCC, 0.6, false },
	/* Table 3-3: DRAM reads and writes; requests split by source */
	{ "DRAM_DATA_READS", BQ_MISS, 1.2, false },
	{ "DRAM_DATA_WRITES", BQ_MISS, 0.4, false },
	{ "DRAM_IA_REQUESTS", BQ_DRAM, 0.92, false },
	{ "DRAM_GT_REQUESTS", BQ_DRAM, 0.05, false },
	{ "DRAM_IO_REQUESTS", BQ_DRAM, 0.03, false },
};

/* Events without a rule; the free-running IMC counters likewise. */
static const struct plat_sim_rate skl_bi_units[] = {
	{ "cbo", BQ_LOOKUP, 0.01, false },
	{ "arb", BQ_ARBREQ, 0.1, false },
	{ "imc", BQ_MISS, 0.01, false },
};

static const struct plat_sim_ninst skl_bi_ninst[] = { { "cbo", 4 } };

static const struct plat_sim_builtin skl_builtin = {
	.nphases = 12, .phase_s = 10.0, .nq = BQ_N,
	.quantities = skl_bi_base,
	.rules = skl_bi_rules,
	.nrules = sizeof(skl_bi_rules) / sizeof(skl_bi_rules[0]),
	.units = skl_bi_units,
	.nunits = sizeof(skl_bi_units) / sizeof(skl_bi_units[0]),
	.sockets = 1, .ninst = skl_bi_ninst, .nninst = 1,
	.uclk_hz = 800000000ull,
	.has_mmio_bar = true, .mmio_bar = 0xfed10001ull,
	.selftest_keys = { "cbo:0x34:0x8f", "cbo:0x34:0x88",
			   "imc:DRAM_DATA_READS" },
};

/* Topology keys (doc/design.md section 3): one socket, at most 10 CBos
 * (Comet Lake S: 10 cores; the MSRs of the first 8 only, notes: later
 * client parts). */
static const struct plat_sim_count skl_sim_counts[] = {
	{ "cbo_count", "cbo", 10 },
};

/* LLC lookups and misses (Table 3-1), the IMC's free-running DRAM
 * counters (Table 3-3) and the UCLK fixed counter (Table 2-2). */
static const struct plat_sim_demo skl_demo = {
	.unit = "cbo",
	.lookups = "UNC_CBO_CACHE_LOOKUP.ANY_MESI", .ctr_lookups = 0,
	.misses = "UNC_CBO_CACHE_LOOKUP.ANY_I", .ctr_misses = 1,
	.bytes_unit = "imc",
	.reads = "DRAM_DATA_READS", .writes = "DRAM_DATA_WRITES",
	.clock_unit = "fixed",
};

/* ufreq_msr: KABYLAKE(_L) and COMETLAKE(_L), the later parts on this
 * uncore, are in the kernel's intel_uncore_cpu_ids[] (uncore-frequency.c;
 * SKYLAKE itself is not). */
const struct plat_sim plat_skl_sim = {
	.ufreq_msr = true,
	.demo = &skl_demo,
	.builtin = &skl_builtin,
	.counts = skl_sim_counts,
	.ncounts = sizeof(skl_sim_counts) / sizeof(skl_sim_counts[0]),
	.max_sockets = 1,
	.mmio_key = "mchbar",
	.mmio_dev_key = "host_bridge",
	.uclk_hz = 800000000ull,
	.regs = skl_sim_regs,
	.nregs = sizeof(skl_sim_regs) / sizeof(skl_sim_regs[0]),
	.mmio_bar = 0,
	.mmio_mask = SKL_MCHBAR_MASK,
	.mmio_enable = SKL_MCHBAR_EN,
	.mmio_size = 0x8000,
	.mmio_name = "MCHBAR",
};
