/*
 * sim_xsp.c - the simulator's data for the perf-only Xeon Scalable
 * platforms skx, icx, spr and gnr (plat_sim.h): topology keys, clocks and a
 * built-in workload.  They have no registers of uncored's own: the
 * simulated kernel counts their events from these rates.
 *
 * Default machine: 2 sockets; skx 28 CHAs, 6 channels, 3 UPI links; icx
 * 40 CHAs, 12 IMC PMUs (the kernel's 4 controllers x 3 channel slots), 4
 * free-running controllers, 3 UPI links; spr 60 CHAs, 8 channels, 4 UPI
 * links; gnr 2 dies a socket, sharing 60 CHAs, 12 channels, 6 UPI links,
 * 6 B2CMI (each die the half).  The load follows the hsx built-in's twelve 10-second phases:
 * LLC lookups 2e9/s per socket x (1 + 0.25 sin), misses 10 % of them x
 * (1 + 0.2 cos); DRAM reads = misses, writes 0.4 x misses (64 bytes
 * each; CAS counts split over the channels, the free-running counters
 * over the controllers; gnr's two schedulers a channel take 55 % and
 * 45 % of it, so that twice scheduler 0 is not the total); 20 % of DRAM traffic crosses UPI as data flits,
 * 9 per 64-byte line (Intel: 64/9 bytes per flit); UCLK 2.4 GHz (skx,
 * icx) / 2.5 GHz (spr) / 2.2 GHz (gnr) on every CHA, DCLK 1.333 / 1.6 /
 * 2.4 / 1.6 GHz (gnr: DDR5-6400, DCLK a quarter of the data rate as
 * Intel's UNC_M_CLOCKTICKS says).  These
 * are simulated values, chosen to be plausible, not measurements.
 */
#include "config.h"

#include <math.h>

#include "plat/plat_sim.h"
#include "plat/plat_xsp.h"

enum xq {
	XQ_LOOKUP, XQ_MISS, XQ_DRAM_RD, XQ_DRAM_WR, XQ_DRAM_ALL, XQ_UPI,
	XQ_UCLK, XQ_DCLK, XQ_N
};

#define XSP_BI_LOOKUPS 2.0e9
#define XSP_BI_MISS 0.10
#define XSP_BI_WR 0.4
#define XSP_BI_REMOTE 0.2
#define XSP_BI_FLITS 9.0

static void xsp_bi_base(unsigned p, unsigned nphases, double *q, double uclk,
			double dclk)
{
	double a = 2.0 * 3.14159265358979323846 * p / nphases;
	double lookups = XSP_BI_LOOKUPS * (1.0 + 0.25 * sin(a));
	double miss = lookups * XSP_BI_MISS * (1.0 + 0.2 * cos(a));

	q[XQ_LOOKUP] = lookups;
	q[XQ_MISS] = miss;
	q[XQ_DRAM_RD] = miss;
	q[XQ_DRAM_WR] = miss * XSP_BI_WR;
	q[XQ_DRAM_ALL] = q[XQ_DRAM_RD] + q[XQ_DRAM_WR];
	q[XQ_UPI] = q[XQ_DRAM_ALL] * XSP_BI_REMOTE * XSP_BI_FLITS;
	q[XQ_UCLK] = uclk;
	q[XQ_DCLK] = dclk;
}

#define SKX_UCLK 2400000000ull
#define SKX_DCLK 1333333333ull
#define ICX_DCLK 1600000000ull
#define SPR_UCLK 2500000000ull
#define SPR_DCLK 2400000000ull

static void skx_bi_base(unsigned p, unsigned n, double *q)
{
	xsp_bi_base(p, n, q, (double)SKX_UCLK, (double)SKX_DCLK);
}
static void icx_bi_base(unsigned p, unsigned n, double *q)
{
	xsp_bi_base(p, n, q, (double)SKX_UCLK, (double)ICX_DCLK);
}
static void spr_bi_base(unsigned p, unsigned n, double *q)
{
	xsp_bi_base(p, n, q, (double)SPR_UCLK, (double)SPR_DCLK);
}
#define GNR_UCLK 2200000000ull
#define GNR_DCLK 1600000000ull
static void gnr_bi_base(unsigned p, unsigned n, double *q)
{
	xsp_bi_base(p, n, q, (double)GNR_UCLK, (double)GNR_DCLK);
}

/* Headline events of all three (an event a catalog lacks matches none). */
static const struct plat_sim_rate xsp_bi_rules[] = {
	{ "UNC_CHA_TOR_INSERTS.IA", XQ_LOOKUP, 1.0, false },
	{ "UNC_CHA_TOR_INSERTS.IA_HIT", XQ_LOOKUP, 0.9, false },
	{ "UNC_CHA_TOR_INSERTS.IA_MISS", XQ_MISS, 1.0, false },
	{ "UNC_M_CAS_COUNT.RD", XQ_DRAM_RD, 1.0, false },
	{ "UNC_M_CAS_COUNT.WR", XQ_DRAM_WR, 1.0, false },
	{ "UNC_M_CAS_COUNT.ALL", XQ_DRAM_ALL, 1.0, false },
	{ "UNC_M_FREE_RUNNING.DATA_READ", XQ_DRAM_RD, 1.0, false },
	{ "UNC_M_FREE_RUNNING.DATA_WRITE", XQ_DRAM_WR, 1.0, false },
	{ "UNC_M_FREE_RUNNING.DCLK", XQ_DCLK, 1.0, true },
	{ "UNC_M_HCLOCKTICKS", XQ_DCLK, 1.0, true },
	{ "UNC_UPI_TxL_FLITS.ALL_DATA", XQ_UPI, 1.0, false },
	{ "UNC_UPI_RxL_FLITS.ALL_DATA", XQ_UPI, 1.0, false },
	{ "UNC_U_CLOCKTICKS", XQ_UCLK, 1.0, true },
	{ "UNC_M_CLOCKTICKS", XQ_DCLK, 1.0, true },
	{ "*CLOCKTICKS", PLAT_SIM_UNIT_Q, 1.0, true },
};

/* gnr: the same headline quantities; DRAM as the CAS counts of the two
 * schedulers of each channel (SCH0 55 %, SCH1 45 %), no free-running
 * IMC. */
#define GNR_SCH0 0.55
#define GNR_SCH1 0.45
static const struct plat_sim_rate gnr_bi_rules[] = {
	{ "UNC_CHA_TOR_INSERTS.IA", XQ_LOOKUP, 1.0, false },
	{ "UNC_CHA_TOR_INSERTS.IA_HIT", XQ_LOOKUP, 0.9, false },
	{ "UNC_CHA_TOR_INSERTS.IA_MISS", XQ_MISS, 1.0, false },
	{ "UNC_M_CAS_COUNT_SCH0.RD", XQ_DRAM_RD, GNR_SCH0, false },
	{ "UNC_M_CAS_COUNT_SCH1.RD", XQ_DRAM_RD, GNR_SCH1, false },
	{ "UNC_M_CAS_COUNT_SCH0.WR", XQ_DRAM_WR, GNR_SCH0, false },
	{ "UNC_M_CAS_COUNT_SCH1.WR", XQ_DRAM_WR, GNR_SCH1, false },
	{ "UNC_M_CAS_COUNT_SCH0.ALL", XQ_DRAM_ALL, GNR_SCH0, false },
	{ "UNC_M_CAS_COUNT_SCH1.ALL", XQ_DRAM_ALL, GNR_SCH1, false },
	{ "UNC_UPI_TxL_FLITS.ALL_DATA", XQ_UPI, 1.0, false },
	{ "UNC_UPI_RxL_FLITS.ALL_DATA", XQ_UPI, 1.0, false },
	{ "UNC_M_CLOCKTICKS", XQ_DCLK, 1.0, true },
	{ "UNC_M_HCLOCKTICKS", XQ_DCLK, 1.0, true },
	{ "*CLOCKTICKS", PLAT_SIM_UNIT_Q, 1.0, true },
};

static const struct plat_sim_rate xsp_bi_units[] = {
	{ "imc", XQ_DCLK, 0.01, true },
	{ "imc_free", XQ_DCLK, 0.01, true },
	{ NULL, XQ_UCLK, 0.01, true },
};

/* skx: TOR_INSERTS.IA and .IA_MISS (EVF_FILTER0 events: FILTER1 holds
 * their opcode filter) count lookups and misses at the every-opcode
 * value of derived_skx.c; the built-in keys take the value from there. */
static const struct plat_sim_filter_q skx_bi_filter_q[] = {
	{ "lookups", XQ_LOOKUP }, { "misses", XQ_MISS },
};

#define XSP_BUILTIN(id, base, fq, nfq, nin, clk, dclk, k1, k2, k3, kc)      \
	static const struct plat_sim_builtin id = {                          \
		.nphases = 12, .phase_s = 10.0, .nq = XQ_N,                  \
		.quantities = base, .rules = xsp_bi_rules,                   \
		.nrules = sizeof(xsp_bi_rules) / sizeof(xsp_bi_rules[0]),    \
		.units = xsp_bi_units,                                       \
		.nunits = sizeof(xsp_bi_units) / sizeof(xsp_bi_units[0]),    \
		.filter_q = fq, .nfilter_q = nfq,                            \
		.sockets = 2, .ninst = nin,                                  \
		.nninst = sizeof(nin) / sizeof(nin[0]),                      \
		.uclk_hz = clk, .dclk_hz = dclk,                             \
		.selftest_keys = { k1, k2, k3 }, .selftest_clock = kc }

static const struct plat_sim_ninst skx_bi_ninst[] = {
	{ "cha", 28 }, { "imc", 6 }, { "upi", 3 }, { "m2m", 2 },
};
static const struct plat_sim_ninst icx_bi_ninst[] = {
	{ "cha", 40 }, { "imc", 12 }, { "imc_fixed", 12 }, { "imc_free", 4 },
	{ "upi", 3 }, { "m2m", 4 },
};
static const struct plat_sim_ninst spr_bi_ninst[] = {
	{ "cha", 60 }, { "imc", 8 }, { "upi", 4 }, { "m2m", 4 },
};

XSP_BUILTIN(skx_builtin, skx_bi_base, skx_bi_filter_q, 2, skx_bi_ninst,
	    SKX_UCLK, SKX_DCLK,
	    "cha:0x35:0x31:filter0=" SKX_LLC_FILTER1,
	    "cha:0x35:0x21:filter0=" SKX_LLC_FILTER1, "imc:0x04:0x03",
	    "cha:0x00:0x00");
XSP_BUILTIN(icx_builtin, icx_bi_base, NULL, 0, icx_bi_ninst, SKX_UCLK,
	    ICX_DCLK,
	    "cha:0x35:0xc001ff01", "cha:0x35:0xc001fe01",
	    "imc_free:UNC_M_FREE_RUNNING.DATA_READ",
	    "cha:0x00:0x00");
XSP_BUILTIN(spr_builtin, spr_bi_base, NULL, 0, spr_bi_ninst, SPR_UCLK,
	    SPR_DCLK,
	    "cha:0x35:0xc001ff01", "cha:0x35:0xc001fe01", "imc:0x05:0xcf",
	    "cha:0x01:0x00");

static const struct plat_sim_ninst gnr_bi_ninst[] = {
	{ "cha", 60 }, { "imc", 12 }, { "upi", 6 }, { "b2cmi", 6 },
	{ "pcu", 2 }, { "ubox", 2 },
};

static const struct plat_sim_builtin gnr_builtin = {
	.nphases = 12, .phase_s = 10.0, .nq = XQ_N,
	.quantities = gnr_bi_base, .rules = gnr_bi_rules,
	.nrules = sizeof(gnr_bi_rules) / sizeof(gnr_bi_rules[0]),
	.units = xsp_bi_units,
	.nunits = sizeof(xsp_bi_units) / sizeof(xsp_bi_units[0]),
	.sockets = 2, .dies = 2, .ninst = gnr_bi_ninst,
	.nninst = sizeof(gnr_bi_ninst) / sizeof(gnr_bi_ninst[0]),
	.uclk_hz = GNR_UCLK, .dclk_hz = GNR_DCLK,
	.selftest_keys = { "cha:0x35:0xc001ff01", "cha:0x35:0xc001fe01",
			   "imc:0x05:0xcf" },
	.selftest_clock = "cha:0x01:0x00",
};

static const struct plat_sim_count skx_counts[] = {
	{ "cha_count", "cha", 28 }, { "imc_channels", "imc", 6 },
	{ "upi_links", "upi", 3 },
	{ "iio_stacks", "iio_free", 6 },
};
static const struct plat_sim_count icx_counts[] = {
	{ "cha_count", "cha", 40 }, { "imc_channels", "imc", 12 },
	{ "imc_free_count", "imc_free", 4 }, { "upi_links", "upi", 3 },
	{ "iio_stacks", "iio_free", 6 },
};
static const struct plat_sim_count spr_counts[] = {
	{ "cha_count", "cha", 64 }, { "imc_channels", "imc", 8 },
	{ "upi_links", "upi", 4 },
	{ "iio_stacks", "iio_free", 16 },
};

static const struct plat_sim_count gnr_counts[] = {
	{ "cha_count", "cha", 144 }, { "imc_channels", "imc", 16 },
	{ "upi_links", "upi", 8 }, { "b2cmi_count", "b2cmi", 16 },
	{ "pcu_count", "pcu", 4 }, { "ubox_count", "ubox", 4 },
};

/* The "memory_latency" curve's events.  skx: intel-perfmon SKX/metrics
 * skylakex_metrics.json llc_data_read_demand_plus_prefetch_miss_latency
 * (_local/_remote): TOR_OCCUPANCY (0x36) / TOR_INSERTS (0x35) .IA_MISS
 * (umask 0x21) under FILTER1 0x40433 / 0x40432 / 0x40431 (the
 * simulator's filter0 bits 63:32); UNC_CHA_CLOCKTICKS 0x00. */
static const struct plat_sim_lat skx_sim_lat = {
	.unit = "cha", .clock = "cha:0x00:0x00", .occ_ctr0 = true,
	.ev = { { "cha:0x36:0x21:filter0=0x4043300000000",
		  "cha:0x35:0x21:filter0=0x4043300000000", PSL_ALL },
		{ "cha:0x36:0x21:filter0=0x4043200000000",
		  "cha:0x35:0x21:filter0=0x4043200000000", PSL_LOCAL },
		{ "cha:0x36:0x21:filter0=0x4043100000000",
		  "cha:0x35:0x21:filter0=0x4043100000000", PSL_REMOTE } },
};

/* The CHAs of Ice Lake-SP and later: UMaskExt in the kernel's umask
 * bits 63:32 over umask 0x01 (IA_MISS_DRD 0xC817FE, _LOCAL 0xC816FE,
 * _REMOTE 0xC8177E, _DDR 0xC81786: intel-perfmon ICX/SPR/GNR
 * *_uncore.json; UNC_CHA_TOR_OCCUPANCY.* "Counter": "0").  Every read
 * the curve makes goes to DRAM, so _DDR counts them all; _PMM nothing.
 * UNC_CHA_CLOCKTICKS: 0x00 on icx, 0x01 from spr (the same files). */
#define XSP_LAT_EVS							\
	{ { "cha:0x36:0xc817fe01", "cha:0x35:0xc817fe01", PSL_ALL },	\
	  { "cha:0x36:0xc816fe01", "cha:0x35:0xc816fe01", PSL_LOCAL },	\
	  { "cha:0x36:0xc8177e01", "cha:0x35:0xc8177e01", PSL_REMOTE },	\
	  { "cha:0x36:0xc8178601", "cha:0x35:0xc8178601", PSL_ALL } }
static const struct plat_sim_lat icx_sim_lat = {
	.unit = "cha", .clock = "cha:0x00:0x00", .occ_ctr0 = true,
	.ev = XSP_LAT_EVS,
};
static const struct plat_sim_lat spr_sim_lat = {
	.unit = "cha", .clock = "cha:0x01:0x00", .occ_ctr0 = true,
	.ev = XSP_LAT_EVS,
};

/* ufreq_msr: SKYLAKE_X, ICELAKE_X, SAPPHIRERAPIDS_X are in the kernel's
 * intel_uncore_cpu_ids[] (uncore-frequency.c). */
#define XSP_SIM(var, bi, cnt, clk, dclk, lt)                                \
	const struct plat_sim var = {                                        \
		.builtin = &bi, .counts = cnt,                               \
		.ncounts = sizeof(cnt) / sizeof(cnt[0]), .max_sockets = 8,   \
		.uclk_hz = clk, .dclk_hz = dclk, .mmio_bar = -1,            \
		.ufreq_msr = true, .lat = &lt }

XSP_SIM(plat_skx_sim, skx_builtin, skx_counts, SKX_UCLK, SKX_DCLK, skx_sim_lat);
XSP_SIM(plat_icx_sim, icx_builtin, icx_counts, SKX_UCLK, ICX_DCLK, icx_sim_lat);
XSP_SIM(plat_spr_sim, spr_builtin, spr_counts, SPR_UCLK, SPR_DCLK, spr_sim_lat);
/* gnr: packages of several dies (GNR-AP 3 compute dies; whether CPUID
 * enumerates them is Unsure, NEXT-PLATFORMS 1.3): the "dies" key, up to
 * 4, the built-in machine 2 a socket. */
const struct plat_sim plat_gnr_sim = {
	.builtin = &gnr_builtin, .counts = gnr_counts,
	.ncounts = sizeof(gnr_counts) / sizeof(gnr_counts[0]),
	.max_sockets = 8, .max_dies = 4,
	.uclk_hz = GNR_UCLK, .dclk_hz = GNR_DCLK, .mmio_bar = -1,
	.lat = &spr_sim_lat };
