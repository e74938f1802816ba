/*
 * sim_snbep.c - the simulator's data for Xeon E5-2600/4600 v1 (plat_sim.h).
 *
 * The UBox device 0x3CE0 on every socket's bus holds CPUNODEID and
 * GIDNIDMAP, read-only, with node IDs permuted ((3p + 2) mod 8) so that
 * discovery must use the mapping; no source here gives its Dev:Fn, so
 * 11:0 is the simulator's choice (discovery finds it by device ID).  No
 * CBo-count register: one CBo per core (per_core_unit).  No global
 * registers (the platform has none).  Clocks when the workload gives
 * none (a choice for the demo, doc/hardware-notes.md "The platform
 * table"): UCLK 2.6 GHz (the uncore runs at the core clock on this part;
 * E5-2670's base), DCLK 800 MHz (DDR3-1600).
 */
#include "config.h"

#include <math.h>

#include "plat/plat_snbep.h"
#include "plat/plat_sim.h"

static const struct plat_sim_reg snbep_sim_regs[] = {
	{ .space = HW_PCI, .devfn = SNBEP_DEVFN(11, 0), .device = SNBEP_UBOX_DID,
	  .addr = SNBEP_UBOX_CPUNODEID, .bits = 32, .ro = 0xffffffffull,
	  .reset_kind = PSR_NODE_ID },
	{ .space = HW_PCI, .devfn = SNBEP_DEVFN(11, 0), .device = SNBEP_UBOX_DID,
	  .addr = SNBEP_UBOX_GIDNIDMAP, .bits = 32, .ro = 0xffffffffull,
	  .reset_kind = PSR_NODE_MAP },
};

/*
 * The built-in snbep workload: a two-socket Xeon E5-2600 v1 (8 CBos, 1 HA,
 * 4 channels, 2 QPI ports and R3QPI links per socket; UCLK 2.6 GHz, DCLK
 * 800 MHz) with the hsx built-in's load (sim_hsx.c: LLC lookups 1e9/s per
 * socket x (1 + 0.25 sin), misses 10% of them x (1 + 0.2 cos), DRAM
 * reads = misses, writes 0.4 x, 20% of it crossing QPI as 8 data flits
 * per line) on snbep's events: the headline LLC event is
 * LLC_LOOKUP.DATA_READ (the data has no ANY sub-event), HA requests have
 * no local/remote split, the PCU sees 8 cores (5 / 1 / 2 in C0 / C3 /
 * C6) and the QPI clock is 1 GHz (327043 CLOCKTICKS: qfclk = 1/8 of
 * 8.0 GT/s).
 */
enum sq {
	SQ_LOOKUP, SQ_MISS, SQ_DRAM_RD, SQ_DRAM_WR, SQ_DRAM_ALL, SQ_QPI_DATA,
	SQ_UCLK, SQ_DCLK, SQ_PCLK, SQ_QCLK, SQ_TSC, SQ_N
};

#define SNBEP_BI_LOOKUPS 1.0e9
#define SNBEP_BI_MISS 0.10
#define SNBEP_BI_WR 0.4
#define SNBEP_BI_REMOTE 0.2
#define SNBEP_BI_FLITS 8.0
#define SNBEP_BI_UCLK 2600000000ull
#define SNBEP_BI_DCLK 800000000ull
#define SNBEP_BI_PCLK 8.0e8	/* hsx's fixed 800 MHz PCU clock */
#define SNBEP_BI_QCLK 1.0e9
#define SNBEP_BI_TSC 2.6e9

static void snbep_bi_base(unsigned p, unsigned nphases, double *q)
{
	double a = 2.0 * 3.14159265358979323846 * p / nphases;
	double lookups = SNBEP_BI_LOOKUPS * (1.0 + 0.25 * sin(a));
	double miss = lookups * SNBEP_BI_MISS * (1.0 + 0.2 * cos(a));

	q[SQ_LOOKUP] = lookups;
	q[SQ_MISS] = miss;
	q[SQ_DRAM_RD] = miss;
	q[SQ_DRAM_WR] = miss * SNBEP_BI_WR;
	q[SQ_DRAM_ALL] = q[SQ_DRAM_RD] + q[SQ_DRAM_WR];
	q[SQ_QPI_DATA] = q[SQ_DRAM_ALL] * SNBEP_BI_REMOTE * SNBEP_BI_FLITS;
	q[SQ_UCLK] = (double)SNBEP_BI_UCLK;
	q[SQ_DCLK] = (double)SNBEP_BI_DCLK;
	q[SQ_PCLK] = SNBEP_BI_PCLK;
	q[SQ_QCLK] = SNBEP_BI_QCLK;
	q[SQ_TSC] = SNBEP_BI_TSC;
}

static const struct plat_sim_rate snbep_bi_rules[] = {
	/* CBo: DATA_READ is the headline lookup event (filtered by state) */
	{ "UNC_C_LLC_LOOKUP.DATA_READ", SQ_LOOKUP, 1.0, false },
	{ "UNC_C_LLC_LOOKUP.WRITE", SQ_LOOKUP, 0.25, false },
	{ "UNC_C_LLC_LOOKUP.REMOTE_SNOOP", SQ_LOOKUP, 0.1, false },
	{ "UNC_C_LLC_LOOKUP.NID", SQ_LOOKUP, 0.05, false },
	{ "UNC_C_LLC_VICTIMS.M_STATE", SQ_MISS, 0.25, false },
	{ "UNC_C_LLC_VICTIMS.E_STATE", SQ_MISS, 0.4, false },
	{ "UNC_C_LLC_VICTIMS.S_STATE", SQ_MISS, 0.2, false },
	{ "UNC_C_LLC_VICTIMS.MISS", SQ_MISS, 0.05, false },
	/* HA: requests = DRAM traffic */
	{ "UNC_H_REQUESTS.READS", SQ_DRAM_RD, 1.0, false },
	{ "UNC_H_REQUESTS.WRITES", SQ_DRAM_WR, 1.0, false },
	{ "UNC_H_IMC_WRITES.ALL", SQ_DRAM_WR, 1.0, false },
	{ "UNC_H_IMC_WRITES.FULL", SQ_DRAM_WR, 0.95, false },
	{ "UNC_H_IMC_WRITES.PARTIAL", SQ_DRAM_WR, 0.05, false },
	/* iMC: CAS commands = DRAM lines */
	{ "UNC_M_CAS_COUNT.RD", SQ_DRAM_RD, 1.0, false },
	{ "UNC_M_CAS_COUNT.WR", SQ_DRAM_WR, 1.0, false },
	{ "UNC_M_CAS_COUNT.ALL", SQ_DRAM_ALL, 1.0, false },
	{ "UNC_M_CAS_COUNT.RD_REG", SQ_DRAM_RD, 0.95, false },
	{ "UNC_M_CAS_COUNT.RD_UNDERFILL", SQ_DRAM_RD, 0.05, false },
	{ "UNC_M_CAS_COUNT.WR_WMM", SQ_DRAM_WR, 0.9, false },
	{ "UNC_M_CAS_COUNT.WR_RMM", SQ_DRAM_WR, 0.1, false },
	{ "UNC_M_ACT_COUNT", SQ_DRAM_ALL, 0.3, false },
	{ "UNC_M_PRE_COUNT.PAGE_MISS", SQ_DRAM_ALL, 0.25, false },
	{ "UNC_M_PRE_COUNT.PAGE_CLOSE", SQ_DRAM_ALL, 0.05, false },
	/* QPI: data flits of the remote traffic, both directions */
	{ "UNC_Q_TxL_FLITS_G0.DATA", SQ_QPI_DATA, 1.0, false },
	{ "UNC_Q_TxL_FLITS_G0.NON_DATA", SQ_QPI_DATA, 0.6, false },
	{ "UNC_Q_RxL_FLITS_G0.DATA", SQ_QPI_DATA, 1.0, false },
	{ "UNC_Q_RxL_FLITS_G0.NON_DATA", SQ_QPI_DATA, 0.6, false },
	{ "UNC_Q_TxL_FLITS_G1.DRS_DATA", SQ_QPI_DATA, 1.0, false },
	{ "UNC_Q_TxL_FLITS_G1.DRS_NONDATA", SQ_QPI_DATA, 0.125, false },
	{ "UNC_Q_TxL_FLITS_G1.DRS", SQ_QPI_DATA, 1.125, false },
	/* PCU: 8 cores, 5 / 1 / 2 in C0 / C3 / C6; bands */
	{ "UNC_P_POWER_STATE_OCCUPANCY.CORES_C0", SQ_PCLK, 5.0, true },
	{ "UNC_P_POWER_STATE_OCCUPANCY.CORES_C3", SQ_PCLK, 1.0, true },
	{ "UNC_P_POWER_STATE_OCCUPANCY.CORES_C6", SQ_PCLK, 2.0, true },
	{ "UNC_P_FREQ_BAND0_CYCLES", SQ_PCLK, 0.9, true },
	{ "UNC_P_FREQ_BAND1_CYCLES", SQ_PCLK, 0.6, true },
	{ "UNC_P_FREQ_BAND2_CYCLES", SQ_PCLK, 0.3, true },
	{ "UNC_P_FREQ_BAND3_CYCLES", SQ_PCLK, 0.05, true },
	{ "UNC_P_CORE_CC6_CTR", SQ_TSC, 0.25, true },
	{ "UNC_P_CORE_CC3_CTR", SQ_TSC, 0.125, true },
	{ "UNC_P_CORE_PC2_CTR", SQ_TSC, 0.10, true },
	{ "UNC_P_CORE_PC3_CTR", SQ_TSC, 0.02, true },
	{ "UNC_P_CORE_PC6_CTR", SQ_TSC, 0.05, true },
	/* every *CLOCKTICKS event counts its box's clock in every instance */
	{ "*CLOCKTICKS", PLAT_SIM_UNIT_Q, 1.0, true },
};

static const struct plat_sim_rate snbep_bi_units[] = {
	{ "ubox", SQ_UCLK, 0.001, true },
	{ "cbo", SQ_UCLK, 0.01, true },
	{ "ha", SQ_UCLK, 0.01, true },
	{ "imc", SQ_DCLK, 0.01, true },
	{ "pcu", SQ_PCLK, 0.01, true },
	{ "pcu_cstate", SQ_TSC, 0.01, true },
	{ "qpi", SQ_QCLK, 0.01, true },
	{ "r2pcie", SQ_UCLK, 0.01, true },
	{ "r3qpi", SQ_UCLK, 0.01, true },
	{ NULL, SQ_UCLK, 0.01, true },
};

/* LLC_LOOKUP gets one key per box-filter value the headline quantities
 * use: lookups (state 0x1F) and misses (state I). */
static const struct plat_sim_filter_q snbep_bi_filter_q[] = {
	{ "lookups", SQ_LOOKUP }, { "misses", SQ_MISS },
};

static const struct plat_sim_ninst snbep_bi_ninst[] = {
	{ "cbo", 8 }, { "ha", 1 }, { "imc", 4 }, { "qpi", 2 }, { "r3qpi", 2 },
};

static const struct plat_sim_builtin snbep_builtin = {
	.nphases = 12, .phase_s = 10.0, .nq = SQ_N,
	.quantities = snbep_bi_base,
	.rules = snbep_bi_rules,
	.nrules = sizeof(snbep_bi_rules) / sizeof(snbep_bi_rules[0]),
	.units = snbep_bi_units,
	.nunits = sizeof(snbep_bi_units) / sizeof(snbep_bi_units[0]),
	.filter_q = snbep_bi_filter_q,
	.nfilter_q = sizeof(snbep_bi_filter_q) / sizeof(snbep_bi_filter_q[0]),
	.sockets = 2, .ninst = snbep_bi_ninst,
	.nninst = sizeof(snbep_bi_ninst) / sizeof(snbep_bi_ninst[0]),
	.uclk_hz = SNBEP_BI_UCLK, .dclk_hz = SNBEP_BI_DCLK,
	/* LLC_LOOKUP.DATA_READ with the filter's state 22:18 at every
	 * state / I (plat_snbep.c, the headline events) */
	.selftest_keys = { "cbo:0x34:0x03:filter0=0x7c0000",
			   "cbo:0x34:0x03:filter0=0x40000", "imc:0x04:0x03" },
};

/* Topology keys and their largest values (the unit tables'). */
static const struct plat_sim_count snbep_sim_counts[] = {
	{ "cbo_count", "cbo", 8 },
	{ "ha_count", "ha", 1 },
	{ "imc_channels", "imc", 4 },
	{ "qpi_ports", "qpi", 2 },
	{ "r3qpi_links", "r3qpi", 2 },
};

const struct plat_sim plat_snbep_sim = {
	.builtin = &snbep_builtin,
	.counts = snbep_sim_counts,
	.ncounts = sizeof(snbep_sim_counts) / sizeof(snbep_sim_counts[0]),
	.max_sockets = 8,
	.cores = true,
	.per_core_unit = "cbo",
	.uclk_hz = 2600000000ull,
	.dclk_hz = 800000000ull,
	.dclk_unit = "imc_fixed",
	.ovf_needs_en = false,
	.regs = snbep_sim_regs,
	.nregs = sizeof(snbep_sim_regs) / sizeof(snbep_sim_regs[0]),
	.mmio_bar = -1,
	.node_mul = 3,
	.node_add = 2,
};
