/*
 * derived_skx.c - the derived metrics on Skylake-SP / Cascade Lake (perf
 * backend).  Encodings from Intel's SKX/CLX perfmon data and its perf
 * metrics (SKX/metrics/perf/skylakex_metrics_perf.json):
 * memory_bandwidth_read = UNC_M_CAS_COUNT.RD (0x04/0x03) x 64,
 * memory_bandwidth_write = UNC_M_CAS_COUNT.WR (0x04/0x0c) x 64, summed
 * over the 6 channels; uncore_frequency = UNC_CHA_CLOCKTICKS / CHAs;
 * upi_data_transmit_bw = UNC_UPI_TxL_FLITS.ALL_DATA x 64 / 9.  LLC: the
 * cores' requests inserted in the CHAs' TOR, all and missing the LLC,
 * with FILTER1 set to every opcode (plat_xsp.h), counted in every CHA.
 * Memory read latency: TOR occupancy / inserts of IA_MISS under FILTER1
 * = demand data reads (SKX llc_data_read_demand_plus_prefetch_miss_
 * latency), local and remote by FILTER1's loc/rem bits.
 */
#include "config.h"

#include "derived.h"
#include "plat_xsp.h"

static const struct derived_src skx_src[] = {
	{ "lookups", SKX_LLC_LOOKUPS, 1, false, 0 },
	{ "misses", SKX_LLC_MISSES, 1, false, 0 },
	{ "dram_rd", "UNC_M_CAS_COUNT.RD", 64, false, 0 },
	{ "dram_wr", "UNC_M_CAS_COUNT.WR", 64, false, 0 },
	{ "ch_rd", "UNC_M_CAS_COUNT.RD", 64, false, 0 },
	{ "ch_wr", "UNC_M_CAS_COUNT.WR", 64, false, 0 },
	{ "clock", "UNC_CHA_CLOCKTICKS", 1, true, 0 },
	{ "upi_data", "UNC_UPI_TxL_FLITS.ALL_DATA", XSP_UPI_BYTES_PER_FLIT,
	  false, 0 },
	DS_IIO_PORTS4("in", "IN", XSP_IIO_BYTES_SKX),
	DS_IIO_PORTS4("out", "OUT", XSP_IIO_BYTES_SKX),
	/* memory read latency (plat_xsp.h SKX_LAT_*) */
	DS_LAT_CLOCK_CHA,
	DS_LAT("all", SKX_LAT_OCC(SKX_DRD_ALL), SKX_LAT_INS(SKX_DRD_ALL)),
	DS_LAT("local", SKX_LAT_OCC(SKX_DRD_LOCAL),
	       SKX_LAT_INS(SKX_DRD_LOCAL)),
	DS_LAT("remote", SKX_LAT_OCC(SKX_DRD_REMOTE),
	       SKX_LAT_INS(SKX_DRD_REMOTE)),
};

static const struct derived_metric skx_m[] = {
	DM_LLC_LOOKUPS_H("Requests from the cores looking up the LLC (CHA TOR "
			 "inserts from IA cores, UNC_CHA_TOR_INSERTS.IA, every "
			 "opcode), summed over the CHAs."),
	DM_LLC_MISSES_H("Requests from the cores that missed the LLC "
			"(UNC_CHA_TOR_INSERTS.IA_MISS, every opcode), summed over "
			"the CHAs."),
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
	DM_IO_BYTES("out"),
	DM_IO_BW("in"),
	DM_IO_BW("out"),
	/* local and remote where a [baseline] counts them (counter 0 holds
	 * one occupancy event per CHA) */
	DM_LAT_TARGETS3,
};

const struct derived_table derived_skx = {
	.src = skx_src, .nsrc = sizeof(skx_src) / sizeof(skx_src[0]),
	.m = skx_m, .nm = sizeof(skx_m) / sizeof(skx_m[0]),
};
