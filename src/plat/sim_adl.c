/*
 * sim_adl.c - the simulator's data for the Core clients since Alder Lake
 * (adl, mtl; perf only): one socket, two memory controllers (one
 * free-running PMU each), two ARB boxes (and on mtl two HAC ARB and HAC
 * CBo boxes), the NCU's fixed clock.
 *
 * Built-in load: DRAM reads 4e8 lines/s x (1 + 0.25 sin) over twelve
 * 10-second phases (25.6 GB/s, a dual-channel DDR5 desktop under load),
 * writes 0.4 of the reads, split over the two controllers; data_total
 * their sum; ARB requests 1.1 x the reads; UCLK 3.0 GHz (adl) / 2.6 GHz
 * (mtl).  Simulated values, chosen to be plausible, not measurements.
 */
#include "config.h"

#include <math.h>

#include "plat/plat_sim.h"

enum cq { CQ_RD, CQ_WR, CQ_ALL, CQ_ARB, CQ_UCLK, CQ_N };

#define CLI_BI_READS 4.0e8
#define CLI_BI_WR 0.4
#define CLI_BI_ARB 1.1
#define ADL_UCLK 3000000000ull
#define MTL_UCLK 2600000000ull

static void cli_bi_base(unsigned p, unsigned nphases, double *q, double uclk)
{
	double a = 2.0 * 3.14159265358979323846 * p / nphases;

	q[CQ_RD] = CLI_BI_READS * (1.0 + 0.25 * sin(a));
	q[CQ_WR] = q[CQ_RD] * CLI_BI_WR;
	q[CQ_ALL] = q[CQ_RD] + q[CQ_WR];
	q[CQ_ARB] = q[CQ_RD] * CLI_BI_ARB;
	q[CQ_UCLK] = uclk;
}
static void adl_bi_base(unsigned p, unsigned n, double *q)
{
	cli_bi_base(p, n, q, (double)ADL_UCLK);
}
static void mtl_bi_base(unsigned p, unsigned n, double *q)
{
	cli_bi_base(p, n, q, (double)MTL_UCLK);
}

static const struct plat_sim_rate cli_bi_rules[] = {
	{ "UNC_M_FREE_RUNNING.DATA_READ", CQ_RD, 1.0, false },
	{ "UNC_M_FREE_RUNNING.DATA_WRITE", CQ_WR, 1.0, false },
	{ "UNC_M_FREE_RUNNING.DATA_TOTAL", CQ_ALL, 1.0, false },
	{ "UNC_M_CAS_COUNT_RD", CQ_RD, 1.0, false },
	{ "UNC_M_CAS_COUNT_WR", CQ_WR, 1.0, false },
	{ "UNC_ARB_TRK_REQUESTS.ALL", CQ_ARB, 1.0, false },
	{ "UNC_HAC_ARB_TRK_REQUESTS.ALL", CQ_ARB, 1.0, false },
	{ "UNC_M_CLOCKTICKS", CQ_UCLK, 0.8, true },
};

static const struct plat_sim_rate cli_bi_units[] = {
	{ NULL, CQ_ARB, 0.01, false },
};

static const struct plat_sim_ninst adl_bi_ninst[] = {
	{ "arb", 2 }, { "imc", 2 }, { "imc_free", 2 }, { "clock", 1 },
};
static const struct plat_sim_ninst mtl_bi_ninst[] = {
	{ "arb", 2 }, { "hac_arb", 2 }, { "hac_cbox", 2 }, { "imc", 2 },
	{ "imc_free", 2 }, { "clock", 1 },
};

#define CLI_BUILTIN(id, base, nin, clk)                                     \
	static const struct plat_sim_builtin id = {                          \
		.nphases = 12, .phase_s = 10.0, .nq = CQ_N,                  \
		.quantities = base, .rules = cli_bi_rules,                   \
		.nrules = sizeof(cli_bi_rules) / sizeof(cli_bi_rules[0]),    \
		.units = cli_bi_units,                                       \
		.nunits = sizeof(cli_bi_units) / sizeof(cli_bi_units[0]),    \
		.sockets = 1, .ninst = nin,                                  \
		.nninst = sizeof(nin) / sizeof(nin[0]), .uclk_hz = clk,      \
		.selftest_keys = { "arb:0x81:0x01", "arb:0x81:0x02",          \
				   "imc_free:UNC_M_FREE_RUNNING.DATA_READ" } }

CLI_BUILTIN(adl_builtin, adl_bi_base, adl_bi_ninst, ADL_UCLK);
CLI_BUILTIN(mtl_builtin, mtl_bi_base, mtl_bi_ninst, MTL_UCLK);

/* ufreq_msr: ALDERLAKE(_L), METEORLAKE(_L) are in the kernel's
 * intel_uncore_cpu_ids[] (uncore-frequency.c). */
const struct plat_sim plat_adl_sim = {
	.builtin = &adl_builtin, .max_sockets = 1, .uclk_hz = ADL_UCLK,
	.mmio_bar = -1, .ufreq_msr = true,
};
const struct plat_sim plat_mtl_sim = {
	.builtin = &mtl_builtin, .max_sockets = 1, .uclk_hz = MTL_UCLK,
	.mmio_bar = -1, .ufreq_msr = true,
};
