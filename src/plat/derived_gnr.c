/*
 * derived_gnr.c - the derived metrics on Xeon 6 (Granite Rapids, Sierra
 * Forest; perf backend).
 *
 * DRAM: each IMC box (one DDR5 channel) has two command schedulers, and
 * Intel's GNR metrics (GNR/metrics/perf/graniterapids_metrics_perf.json
 * memory_bandwidth_read / _write; the SRF file has the same formulas) sum
 * both: (UNC_M_CAS_COUNT_SCH0.RD + UNC_M_CAS_COUNT_SCH1.RD) x 64, reads
 * 0x05/0xcf + 0x06/0xcf, writes 0x05/0xf0 + 0x06/0xf0
 * (GNR/events/graniterapids_uncore.json).  Entries of one name and alt
 * are summed (struct derived_src), so a channel's bytes are its two
 * schedulers'.  The kernel's cas_count_read/_write aliases before 2026
 * count scheduler 0 only; uncored never uses alias names.  No
 * free-running IMC PMU on GNR.
 *
 * LLC: TOR inserts from IA cores, all (UNC_CHA_TOR_INSERTS.IA, GNR
 * experimental file) and missing (.IA_MISS, GNR main file), as on
 * icx/spr; doc/hardware-notes.md says why not UNC_CHA_LLC_LOOKUP.
 * Clock: UNC_CHA_CLOCKTICKS averaged over the CHAs (Intel's
 * uncore_frequency).  UPI: UNC_UPI_TxL_FLITS.ALL_DATA x 64/9 where the
 * kernel has uncore_upi_N (Linux 6.14+).  CXL (Linux 6.14+, where the
 * kernel has uncore_cxlcm_N / uncore_cxldp_N): reads per port from CXLCM
 * RxC MEM_DATA (0x41/0x10, counters 4-7), writes per port from CXLDP TxC
 * AGF M2S_DATA (0x02/0x20, counters 0-3), GNR main file; 64 bytes each,
 * as PCM's pcm-memory.cpp on "BHS" (GNR/SRF) parts, no 0.5 there
 * (doc/hardware-notes.md, "CXL memory bandwidth").
 */
#include "config.h"

#include "derived.h"
#include "plat_xsp.h"

static const struct derived_src gnr_src[] = {
	{ "lookups", "UNC_CHA_TOR_INSERTS.IA", 1, false, 0 },
	{ "misses", "UNC_CHA_TOR_INSERTS.IA_MISS", 1, false, 0 },
	{ "dram_rd", "UNC_M_CAS_COUNT_SCH0.RD", 64, false, 0 },
	{ "dram_rd", "UNC_M_CAS_COUNT_SCH1.RD", 64, false, 0 },
	{ "dram_wr", "UNC_M_CAS_COUNT_SCH0.WR", 64, false, 0 },
	{ "dram_wr", "UNC_M_CAS_COUNT_SCH1.WR", 64, false, 0 },
	{ "ch_rd", "UNC_M_CAS_COUNT_SCH0.RD", 64, false, 0 },
	{ "ch_rd", "UNC_M_CAS_COUNT_SCH1.RD", 64, false, 0 },
	{ "ch_wr", "UNC_M_CAS_COUNT_SCH0.WR", 64, false, 0 },
	{ "ch_wr", "UNC_M_CAS_COUNT_SCH1.WR", 64, false, 0 },
	{ "clock", "UNC_CHA_CLOCKTICKS", 1, true, 0 },
	{ "upi_data", "UNC_UPI_TxL_FLITS.ALL_DATA", XSP_UPI_BYTES_PER_FLIT,
	  false, 0 },
	{ "cxl_rd", "UNC_CXLCM_RxC_PACK_BUF_INSERTS.MEM_DATA", 64, false, 0 },
	{ "cxl_wr", "UNC_CXLDP_TxC_AGF_INSERTS.M2S_DATA", 64, false, 0 },
	/* memory read latency (derived.h DS_LAT_XSP): IA_MISS_DRD and its
	 * UMaskExt variants _LOCAL, _REMOTE, _DDR (PMM only in the
	 * experimental file: left out) (Intel's
	 * llc_demand_data_read_miss_latency{,_for_local_requests,
	 * _for_remote_requests}, _to_dram_latency) */
	DS_LAT_CLOCK_CHA,
	DS_LAT_XSP("all", ""), DS_LAT_XSP("local", "_LOCAL"),
	DS_LAT_XSP("remote", "_REMOTE"), DS_LAT_XSP("dram", "_DDR"),
};

static const struct derived_metric gnr_m[] = {
	DM_LLC_LOOKUPS_H("Requests from the cores looking up the LLC (CHA TOR "
			 "inserts from IA cores, UNC_CHA_TOR_INSERTS.IA), summed "
			 "over the CHAs."),
	DM_LLC_MISSES_H("Requests from the cores that missed the LLC "
			"(UNC_CHA_TOR_INSERTS.IA_MISS), summed over the CHAs."),
	DM_LLC_HIT_RATIO,
	DM_DRAM_SOCKET("Bytes read from DRAM: CAS reads of both schedulers "
		       "(SCH0 + SCH1) x 64, summed over the socket's memory "
		       "channels.",
		       "Bytes written to DRAM: CAS writes of both schedulers "
		       "(SCH0 + SCH1) x 64, summed over the socket's memory "
		       "channels."),
	DM_DRAM_CH("Bytes read from DRAM through one memory channel (CAS "
		   "reads of both schedulers x 64).",
		   "Bytes written to DRAM through one memory channel (CAS "
		   "writes of both schedulers x 64)."),
	DM_CLOCK_TICKS(XSP_CLOCK_HELP),
	DM_CLOCK_HERTZ,
	DM_UPI_LINKS,
	{ "uncore_cxl_write_bytes_total", "cxl_write_bytes_total",
	  "Bytes the socket wrote to CXL memory through one CXL port (the "
	  "port label: uncore_cxldp_N): CXLDP TxC AGF M2S_DATA inserts x 64 "
	  "(Intel PCM on GNR/SRF).  Linux 6.14+.", "bytes", DM_COUNTER,
	  "port", { NULL }, { DF_SRC("cxl_wr") } },
	{ "uncore_cxl_read_bytes_total", "cxl_read_bytes_total",
	  "Bytes the socket read from CXL memory: CXLCM RxC MEM_DATA "
	  "packing-buffer inserts x 64, summed over the socket's CXL ports. "
	  "Linux 6.14+.", "bytes", DM_COUNTER, NULL, { NULL },
	  { DF_SRC("cxl_rd") } },
	{ "uncore_cxl_port_read_bytes_total", "cxl_port_read_bytes_total",
	  "Bytes the socket read from CXL memory through one CXL port (the "
	  "port label: uncore_cxlcm_N): CXLCM RxC MEM_DATA packing-buffer "
	  "inserts x 64 (Intel PCM on GNR/SRF).  Linux 6.14+.", "bytes",
	  DM_COUNTER, "port", { NULL }, { DF_SRC("cxl_rd") } },
	/* local, remote, dram where a [baseline] counts them
	 * (counter 0 holds one occupancy event per CHA) */
	DM_LAT_TARGETS4,
};

const struct derived_table derived_gnr = {
	.src = gnr_src, .nsrc = sizeof(gnr_src) / sizeof(gnr_src[0]),
	.m = gnr_m, .nm = sizeof(gnr_m) / sizeof(gnr_m[0]),
};
