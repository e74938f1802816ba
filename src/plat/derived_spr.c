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

/*
 * CXL writes: PCM scales SPR/EMR's CXLCM TxC MEM_DATA inserts by 0.5
 * (pcm-memory.cpp CXLBWWrScalingFactor, since commit d2a8e58b "add CXL
 * metric support", 2023, which gives no reason); uncored follows it
 * (doc/hardware-notes.md, "CXL memory bandwidth": the decision).
 */
#define SPR_CXL_WR_SCALE 0.5

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
	{ "cxl_wr", "UNC_CXLCM_TxC_PACK_BUF_INSERTS.MEM_DATA",
	  64.0 * SPR_CXL_WR_SCALE, false, 0 },
	{ "cxl_rd", "UNC_CHA_TOR_INSERTS.IA_MISS_CXL_ACC", 64, false, 0 },
	/* memory read latency (derived.h DS_LAT_XSP): IA_MISS_DRD and its
	 * UMaskExt variants _LOCAL, _REMOTE, _DDR, _PMM (Intel's
	 * llc_demand_data_read_miss_latency{,_for_local_requests,
	 * _for_remote_requests}, _to_dram_latency, _to_pmem_latency) */
	DS_LAT_CLOCK_CHA,
	DS_LAT_XSP("all", ""), DS_LAT_XSP("local", "_LOCAL"),
	DS_LAT_XSP("remote", "_REMOTE"), DS_LAT_XSP("dram", "_DDR"),
	DS_LAT_XSP("pmem", "_PMM"),
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
	{ "uncore_cxl_write_bytes_total", "cxl_write_bytes_total",
	  "Bytes the socket wrote to CXL memory through one CXL port (the "
	  "port label: uncore_cxlcm_N): CXLCM TxC MEM_DATA packing-buffer "
	  "inserts x 64 x 0.5 (Intel PCM's CXLBWWrScalingFactor; "
	  "doc/hardware-notes.md).  Linux 6.11+.", "bytes", DM_COUNTER,
	  "port", { NULL }, { DF_SRC("cxl_wr") } },
	{ "uncore_cxl_read_bytes_total", "cxl_read_bytes_total",
	  "Bytes the socket's cores read from CXL memory: CHA TOR inserts of "
	  "core requests that missed the LLC and target CXL memory "
	  "(UNC_CHA_TOR_INSERTS.IA_MISS_CXL_ACC) x 64, summed over the CHAs. "
	  "Per socket, not per port (SPR/EMR cannot tell ports apart, "
	  "intel/pcm #572).", "bytes", DM_COUNTER, NULL, { NULL },
	  { DF_SRC("cxl_rd") } },
	/* local, remote, dram, pmem where a [baseline] counts them
	 * (counter 0 holds one occupancy event per CHA) */
	DM_LAT_TARGETS5,
};

const struct derived_table derived_spr = {
	.src = spr_src, .nsrc = sizeof(spr_src) / sizeof(spr_src[0]),
	.m = spr_m, .nm = sizeof(spr_m) / sizeof(spr_m[0]),
};
