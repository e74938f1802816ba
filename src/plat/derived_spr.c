/*
 * derived_spr.c - the derived metrics on Sapphire / Emerald Rapids (perf
 * backend).  Intel's SPR perf metrics
 * (SPR/metrics/perf/sapphirerapids_metrics_perf.json) and the kernel's
 * spr_uncore_imc_events agree: CAS_COUNT.RD = 0x05/0xcf,
 * CAS_COUNT.WR = 0x05/0xf0, 64 bytes each.  The kernel's free-running IMC
 * PMU on SPR has no byte counters (spr_uncore_imc_freerunning_events:
 * dclk, rpq_cycles, wpq_cycles), so DRAM is the CAS counts.  LLC as icx
 * (TOR inserts from IA cores, all / missing).
 */
#include "config.h"

#include "derived.h"
#include "plat_xsp.h"

static const struct derived_src spr_src[] = {
	{ "lookups", "UNC_CHA_TOR_INSERTS.IA", 1, false, 0 },
	{ "misses", "UNC_CHA_TOR_INSERTS.IA_MISS", 1, false, 0 },
	{ "dram_rd", "UNC_M_CAS_COUNT.RD", 64, false, 0 },
	{ "dram_wr", "UNC_M_CAS_COUNT.WR", 64, false, 0 },
	{ "ch_rd", "UNC_M_CAS_COUNT.RD", 64, false, 0 },
	{ "ch_wr", "UNC_M_CAS_COUNT.WR", 64, false, 0 },
	{ "clock", "UNC_CHA_CLOCKTICKS", 1, true, 0 },
	{ "upi_data", "UNC_UPI_TxL_FLITS.ALL_DATA", XSP_UPI_BYTES_PER_FLIT,
	  false, 0 },
	DS_IIO_PORTS8("in", "IN", XSP_IIO_BYTES_ICX_SPR),
};

static const struct derived_metric spr_m[] = {
	DM_LLC_LOOKUPS_H("Requests from the cores looking up the LLC (CHA TOR "
			 "inserts from IA cores, UNC_CHA_TOR_INSERTS.IA), summed "
			 "over the CHAs."),
	DM_LLC_MISSES_H("Requests from the cores that missed the LLC "
			"(UNC_CHA_TOR_INSERTS.IA_MISS), summed over the CHAs."),
	DM_LLC_HIT_RATIO,
	DM_DRAM_SOCKET("Bytes read from DRAM: CAS reads x 64, summed over the "
		       "socket's memory channels.",
		       "Bytes written to DRAM: CAS writes x 64, summed over the "
		       "socket's memory channels."),
	DM_DRAM_CH("Bytes read from DRAM through one memory channel (CAS "
		   "reads x 64).",
		   "Bytes written to DRAM through one memory channel (CAS "
		   "writes x 64)."),
	DM_CLOCK_TICKS(XSP_CLOCK_HELP),
	DM_CLOCK_HERTZ,
	DM_UPI_LINKS,
	DM_IO_BYTES("in"),
	DM_IO_BW("in"),
};

const struct derived_table derived_spr = {
	.src = spr_src, .nsrc = sizeof(spr_src) / sizeof(spr_src[0]),
	.m = spr_m, .nm = sizeof(spr_m) / sizeof(spr_m[0]),
};
