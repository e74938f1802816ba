/*
 * sim_hsx.c - the simulator's data for Xeon E5/E7 v3 (plat_sim.h).
 *
 * The UBox "socket ID" function (manual 1.6.1; device 0x2F1E, notes "Bus
 * to socket") on every socket's bus holds CPUNODEID (the socket's node
 * ID) and GIDNIDMAP (every package's), both read-only here; node IDs are
 * permuted, (3p + 2) mod 8, so discovery must use the mapping.
 * U_MSR_PMON_GLOBAL_CONFIG.num_c resets to the CBo count (notes "CBo
 * count").  Overflow reaches the global status only through ov_en
 * (2.1.1); UCLK 2.0 GHz, the iMC channels' fixed counter DCLK 1066.67 MHz.
 */
#include "config.h"

#include <math.h>

#include "plat/plat_hsx.h"
#include "plat/plat_sim.h"

static const struct plat_sim_reg hsx_sim_regs[] = {
	{ .space = HW_PCI, .devfn = HSX_DEVFN(16, 5), .device = HSX_UBOX_DID,
	  .addr = HSX_UBOX_CPUNODEID, .bits = 32, .ro = 0xffffffffull,
	  .reset_kind = PSR_NODE_ID },
	{ .space = HW_PCI, .devfn = HSX_DEVFN(16, 5), .device = HSX_UBOX_DID,
	  .addr = HSX_UBOX_GIDNIDMAP, .bits = 32, .ro = 0xffffffffull,
	  .reset_kind = PSR_NODE_MAP },
	{ .space = HW_MSR, .addr = HSX_MSR_GLOBAL_CONFIG, .bits = 64,
	  .reset_kind = PSR_NINST, .unit = "cbo" },
};

/*
 * The built-in hsx workload: a two-socket Xeon E5 v3 (18 CBos, 4 SBos, 2
 * HAs, 8 channels, 2 QPI ports and R3QPI links per socket; UCLK 2.0 GHz,
 * DCLK 1066.67 MHz) whose load follows the skl built-in's twelve 10-second
 * phases: LLC lookups 1e9/s per socket x (1 + 0.25 sin), misses 10% of
 * them x (1 + 0.2 cos).  Every rate is a fixed fraction of one of a few
 * per-phase quantities (hsx_bi_rules), which keeps the headline
 * events consistent:
 *
 *  - LLC_LOOKUP (every unit mask; an EVF_FILTER0 event) has one key per
 *    box-filter value the platform's headline quantities use (their
 *    events' :filter0= modifiers): with FILTER0.state = 0x3F it counts lookups,
 *    with state = I (0x01) misses; with any other FILTER0 value nothing;
 *  - CAS_COUNT.RD = misses, .WR = 0.4 x misses (per socket, split over the
 *    channels), .ALL their sum; HA REQUESTS.READS/WRITES equal them, 80%
 *    local and 20% remote; the remote 20% cross QPI as data flits (8 per
 *    64-byte line, 8 bytes each), sent and received, split over the ports;
 *  - every *CLOCKTICKS event counts its box's clock in every instance
 *    (UCLK; iMC DCLK; PCU 800 MHz, manual 2.8.7 CLOCKTICKS; QPI 2.4 GHz,
 *    a quarter of 9.6 GT/s), the PCU occupancy events count 12 / 1 / 5
 *    of 18 cores in C0 / C3 / C6 per PCU clock, the frequency-band
 *    events 90 / 60 / 30 / 5% of it (whatever the band filter holds),
 *    and the free-running C-state residency counters fractions of a
 *    2.3 GHz TSC;
 *  - any other event gets a small fraction of its box's clock (struct
 *    hsx_bi_units), below one per cycle.
 */
enum hq {
	HQ_LOOKUP, HQ_MISS, HQ_DRAM_RD, HQ_DRAM_WR, HQ_DRAM_ALL, HQ_QPI_DATA,
	HQ_UCLK, HQ_DCLK, HQ_PCLK, HQ_QCLK, HQ_TSC, HQ_N
};

#define HSX_BI_LOOKUPS 1.0e9	/* LLC lookups per second per socket */
#define HSX_BI_MISS 0.10	/* of lookups */
#define HSX_BI_WR 0.4		/* DRAM writes per read */
#define HSX_BI_REMOTE 0.2	/* of HA requests */
#define HSX_BI_FLITS 8.0	/* QPI data flits per 64-byte line */
#define HSX_BI_UCLK 2000000000ull
#define HSX_BI_DCLK 1066666667ull
#define HSX_BI_PCLK 8.0e8	/* manual 2.8.7 CLOCKTICKS: fixed 800 MHz */
#define HSX_BI_QCLK 2.4e9	/* 9.6 GT/s / 4 (2.9.6 CLOCKTICKS) */
#define HSX_BI_TSC 2.3e9

static void hsx_bi_base(unsigned p, unsigned nphases, double *q)
{
	double a = 2.0 * 3.14159265358979323846 * p / nphases;
	double lookups = HSX_BI_LOOKUPS * (1.0 + 0.25 * sin(a));
	double miss = lookups * HSX_BI_MISS * (1.0 + 0.2 * cos(a));

	q[HQ_LOOKUP] = lookups;
	q[HQ_MISS] = miss;
	q[HQ_DRAM_RD] = miss;
	q[HQ_DRAM_WR] = miss * HSX_BI_WR;
	q[HQ_DRAM_ALL] = q[HQ_DRAM_RD] + q[HQ_DRAM_WR];
	q[HQ_QPI_DATA] = q[HQ_DRAM_ALL] * HSX_BI_REMOTE * HSX_BI_FLITS;
	q[HQ_UCLK] = (double)HSX_BI_UCLK;
	q[HQ_DCLK] = (double)HSX_BI_DCLK;
	q[HQ_PCLK] = HSX_BI_PCLK;
	q[HQ_QCLK] = HSX_BI_QCLK;
	q[HQ_TSC] = HSX_BI_TSC;
}

static const struct plat_sim_rate hsx_bi_rules[] = {
	/* CBo (2.3.6): LLC_LOOKUP by request type, of lookups / misses
	 * according to FILTER0 (see above); victims follow misses */
	{ "UNC_C_LLC_LOOKUP.ANY", HQ_LOOKUP, 1.0, false },
	{ "UNC_C_LLC_LOOKUP.DATA_READ", HQ_LOOKUP, 0.6, false },
	{ "UNC_C_LLC_LOOKUP.WRITE", HQ_LOOKUP, 0.25, false },
	{ "UNC_C_LLC_LOOKUP.REMOTE_SNOOP", HQ_LOOKUP, 0.1, false },
	{ "UNC_C_LLC_LOOKUP.READ", HQ_LOOKUP, 0.65, false },
	{ "UNC_C_LLC_LOOKUP.NID", HQ_LOOKUP, 0.05, false },
	{ "UNC_C_LLC_VICTIMS.M_STATE", HQ_MISS, 0.25, false },
	{ "UNC_C_LLC_VICTIMS.E_STATE", HQ_MISS, 0.4, false },
	{ "UNC_C_LLC_VICTIMS.I_STATE", HQ_MISS, 0.1, false },
	{ "UNC_C_LLC_VICTIMS.F_STATE", HQ_MISS, 0.2, false },
	{ "UNC_C_LLC_VICTIMS.MISS", HQ_MISS, 0.05, false },
	/* HA (2.5.6): requests = DRAM traffic, local and remote */
	{ "UNC_H_REQUESTS.READS", HQ_DRAM_RD, 1.0, false },
	{ "UNC_H_REQUESTS.READS_LOCAL", HQ_DRAM_RD, 1.0 - HSX_BI_REMOTE, false },
	{ "UNC_H_REQUESTS.READS_REMOTE", HQ_DRAM_RD, HSX_BI_REMOTE, false },
	{ "UNC_H_REQUESTS.WRITES", HQ_DRAM_WR, 1.0, false },
	{ "UNC_H_REQUESTS.WRITES_LOCAL", HQ_DRAM_WR, 1.0 - HSX_BI_REMOTE, false },
	{ "UNC_H_REQUESTS.WRITES_REMOTE", HQ_DRAM_WR, HSX_BI_REMOTE, false },
	{ "UNC_H_IMC_READS.NORMAL", HQ_DRAM_RD, 1.0, false },
	{ "UNC_H_IMC_WRITES.ALL", HQ_DRAM_WR, 1.0, false },
	{ "UNC_H_IMC_WRITES.FULL", HQ_DRAM_WR, 0.95, false },
	{ "UNC_H_IMC_WRITES.PARTIAL", HQ_DRAM_WR, 0.05, false },
	/* iMC (2.6.7): CAS commands = DRAM lines */
	{ "UNC_M_CAS_COUNT.RD", HQ_DRAM_RD, 1.0, false },
	{ "UNC_M_CAS_COUNT.WR", HQ_DRAM_WR, 1.0, false },
	{ "UNC_M_CAS_COUNT.ALL", HQ_DRAM_ALL, 1.0, false },
	{ "UNC_M_CAS_COUNT.RD_REG", HQ_DRAM_RD, 0.95, false },
	{ "UNC_M_CAS_COUNT.RD_UNDERFILL", HQ_DRAM_RD, 0.05, false },
	{ "UNC_M_CAS_COUNT.RD_RMM", HQ_DRAM_RD, 0.95, false },
	{ "UNC_M_CAS_COUNT.RD_WMM", HQ_DRAM_RD, 0.05, false },
	{ "UNC_M_CAS_COUNT.WR_WMM", HQ_DRAM_WR, 0.9, false },
	{ "UNC_M_CAS_COUNT.WR_RMM", HQ_DRAM_WR, 0.1, false },
	{ "UNC_M_ACT_COUNT.RD", HQ_DRAM_RD, 0.3, false },
	{ "UNC_M_ACT_COUNT.WR", HQ_DRAM_WR, 0.3, false },
	{ "UNC_M_ACT_COUNT.BYP", HQ_DRAM_RD, 0.01, false },
	{ "UNC_M_PRE_COUNT.PAGE_MISS", HQ_DRAM_ALL, 0.25, false },
	{ "UNC_M_PRE_COUNT.PAGE_CLOSE", HQ_DRAM_ALL, 0.05, false },
	{ "UNC_M_PRE_COUNT.RD", HQ_DRAM_RD, 0.3, false },
	{ "UNC_M_PRE_COUNT.WR", HQ_DRAM_WR, 0.3, false },
	/* QPI (2.9.6): data flits of the remote traffic, both directions */
	{ "UNC_Q_TxL_FLITS_G0.DATA", HQ_QPI_DATA, 1.0, false },
	{ "UNC_Q_TxL_FLITS_G0.NON_DATA", HQ_QPI_DATA, 0.6, false },
	{ "UNC_Q_TxL_FLITS_G1.DRS_DATA", HQ_QPI_DATA, 1.0, false },
	{ "UNC_Q_TxL_FLITS_G1.DRS_NONDATA", HQ_QPI_DATA, 0.125, false },
	{ "UNC_Q_TxL_FLITS_G1.DRS", HQ_QPI_DATA, 1.125, false },
	{ "UNC_Q_RxL_FLITS_G1.DRS_DATA", HQ_QPI_DATA, 1.0, false },
	{ "UNC_Q_RxL_FLITS_G1.DRS_NONDATA", HQ_QPI_DATA, 0.125, false },
	{ "UNC_Q_RxL_FLITS_G1.DRS", HQ_QPI_DATA, 1.125, false },
	{ "UNC_Q_LINK_IDLE", HQ_QCLK, 0.6, true },
	{ "UNC_Q_LINK_LLR", HQ_QCLK, 1e-6, true },
	/* PCU (2.8.7): cores per C-state (12 + 1 + 5 = 18), bands */
	{ "UNC_P_POWER_STATE_OCCUPANCY.CORES_C0", HQ_PCLK, 12.0, true },
	{ "UNC_P_POWER_STATE_OCCUPANCY.CORES_C3", HQ_PCLK, 1.0, true },
	{ "UNC_P_POWER_STATE_OCCUPANCY.CORES_C6", HQ_PCLK, 5.0, true },
	/* cycles above each band (whatever the PCU filter holds) */
	{ "UNC_P_FREQ_BAND0_CYCLES", HQ_PCLK, 0.9, true },
	{ "UNC_P_FREQ_BAND1_CYCLES", HQ_PCLK, 0.6, true },
	{ "UNC_P_FREQ_BAND2_CYCLES", HQ_PCLK, 0.3, true },
	{ "UNC_P_FREQ_BAND3_CYCLES", HQ_PCLK, 0.05, true },
	{ "UNC_P_CORE_CC6_CTR", HQ_TSC, 0.30, true },
	{ "UNC_P_CORE_CC3_CTR", HQ_TSC, 0.05, true },
	{ "UNC_P_CORE_PC2_CTR", HQ_TSC, 0.10, true },
	{ "UNC_P_CORE_PC3_CTR", HQ_TSC, 0.02, true },
	/* every *CLOCKTICKS event counts its box's clock in every instance */
	{ "*CLOCKTICKS", PLAT_SIM_UNIT_Q, 1.0, true },
};

/* Each box's clock, and the fraction of it an event without a rule
 * counts in every instance; any other box: a UCLK box. */
static const struct plat_sim_rate hsx_bi_units[] = {
	{ "ubox", HQ_UCLK, 0.001, true },
	{ "cbo", HQ_UCLK, 0.01, true },
	{ "sbox", HQ_UCLK, 0.01, true },
	{ "ha", HQ_UCLK, 0.01, true },
	{ "imc", HQ_DCLK, 0.01, true },
	{ "irp", HQ_UCLK, 0.005, true },
	{ "pcu", HQ_PCLK, 0.01, true },
	{ "pcu_cstate", HQ_TSC, 0.01, true },
	{ "qpi", HQ_QCLK, 0.01, true },
	{ "qpi_link", HQ_QCLK, 0.001, true },
	{ "r2pcie", HQ_UCLK, 0.01, true },
	{ "r3qpi", HQ_UCLK, 0.01, true },
	{ NULL, HQ_UCLK, 0.01, true },
};

/* LLC_LOOKUP (an EVF_FILTER0 event) gets one key per box-filter value the
 * derived metrics' sources use (derived_hsx.c): lookups (state 0x3F) and
 * misses (state I). */
static const struct plat_sim_filter_q hsx_bi_filter_q[] = {
	{ "lookups", HQ_LOOKUP }, { "misses", HQ_MISS },
};

static const struct plat_sim_ninst hsx_bi_ninst[] = {
	{ "cbo", 18 }, { "sbox", 4 }, { "ha", 2 }, { "imc", 8 }, { "qpi", 2 },
	{ "r3qpi", 2 },
};

static const struct plat_sim_builtin hsx_builtin = {
	.nphases = 12, .phase_s = 10.0, .nq = HQ_N,
	.quantities = hsx_bi_base,
	.rules = hsx_bi_rules,
	.nrules = sizeof(hsx_bi_rules) / sizeof(hsx_bi_rules[0]),
	.units = hsx_bi_units,
	.nunits = sizeof(hsx_bi_units) / sizeof(hsx_bi_units[0]),
	.filter_q = hsx_bi_filter_q,
	.nfilter_q = sizeof(hsx_bi_filter_q) / sizeof(hsx_bi_filter_q[0]),
	.sockets = 2, .ninst = hsx_bi_ninst,
	.nninst = sizeof(hsx_bi_ninst) / sizeof(hsx_bi_ninst[0]),
	.uclk_hz = HSX_BI_UCLK, .dclk_hz = HSX_BI_DCLK,
	.selftest_keys = { "cbo:0x34:0x11:filter0=0x7e0000",
			   "cbo:0x34:0x11:filter0=0x20000", "imc:0x04:0x03" },
};

/* Topology keys and their largest values (doc/design.md section 3). */
static const struct plat_sim_count hsx_sim_counts[] = {
	{ "cbo_count", "cbo", 18 },
	{ "sbox_count", "sbox", 4 },
	{ "ha_count", "ha", 2 },
	{ "imc_channels", "imc", 8 },
	{ "qpi_ports", "qpi", 3 },
	{ "r3qpi_links", "r3qpi", 3 },
};

/* The "memory_latency" curve's events.  Manual 331051 (Xeon E5 v3
 * uncore) 2.3.5 AVG_TOR_DRD_MISS_LATENCY and its _LOC_ / _REM_ forms:
 * TOR_OCCUPANCY (0x36, counter 0 only: Table 2-41's note) / TOR_INSERTS
 * (0x35) of MISS_OPCODE 0x03, MISS_LOCAL_OPCODE 0x23, MISS_REMOTE_OPCODE
 * 0x83 (Tables 2-40, 2-41) with Cn_MSR_PMON_BOX_FILTER1.opc (bits 28:20,
 * Table 2-19) = 0x182, DRd (Table 2-20); UNC_C_CLOCKTICKS 0x00. */
static const struct plat_sim_lat hsx_sim_lat = {
	.unit = "cbo", .clock = "cbo:0x00:0x00", .occ_ctr0 = true,
	.ev = { { "cbo:0x36:0x03:filter1=0x18200000",
		  "cbo:0x35:0x03:filter1=0x18200000", PSL_ALL },
		{ "cbo:0x36:0x23:filter1=0x18200000",
		  "cbo:0x35:0x23:filter1=0x18200000", PSL_LOCAL },
		{ "cbo:0x36:0x83:filter1=0x18200000",
		  "cbo:0x35:0x83:filter1=0x18200000", PSL_REMOTE } },
};

const struct plat_sim plat_hsx_sim = {
	.builtin = &hsx_builtin,
	.counts = hsx_sim_counts,
	.ncounts = sizeof(hsx_sim_counts) / sizeof(hsx_sim_counts[0]),
	.max_sockets = 8,
	.cores = true,
	.uclk_hz = 2000000000ull,
	.dclk_hz = 1066666667ull,
	.dclk_unit = "imc_fixed",
	.ovf_needs_en = true,
	.regs = hsx_sim_regs,
	.nregs = sizeof(hsx_sim_regs) / sizeof(hsx_sim_regs[0]),
	.mmio_bar = -1,
	.node_mul = 3,
	.node_add = 2,
	.lat = &hsx_sim_lat,
};
