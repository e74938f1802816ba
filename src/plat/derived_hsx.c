/*
 * derived_hsx.c - the daemon's derived metrics on Xeon E5/E7 v3 (doc/design.md
 * section 7; the table format is described in plat.h).
 *
 * Manual 331051: LLC lookups and misses (2.3.5 LLC_DRD_MISS_PCT: the
 * LLC_LOOKUP.ANY encodings with FILTER0.state, see plat_hsx.h), DRAM
 * bytes from CAS_COUNT.RD / .WR x 64 (2.6.6 MEM_BW_READS / MEM_BW_WRITES),
 * per socket and per channel in separate families, the UBox UCLK fixed
 * counter, QPI data and link bytes per port (2.9.5 QPI_DATA_BW,
 * QPI_LINK_BW: flits x 8 bytes), home agent requests (2.5.6 REQUESTS),
 * PCU C-state residency (free-running, 2.8.2) and frequency bands (2.8.5),
 * memory read latency (2.3.5 AVG_TOR_DRD_MISS_LATENCY: TOR occupancy /
 * inserts of demand data reads that missed, FILTER1.opc = 0x182).
 */
#include "config.h"

#include "derived.h"
#include "plat_hsx.h"

static const struct derived_src hsx_src[] = {
	{ "lookups", HSX_LLC_LOOKUPS, 1 },
	{ "misses", HSX_LLC_MISSES, 1 },
	{ "dram_rd", "UNC_M_CAS_COUNT.RD", 64 },
	{ "dram_wr", "UNC_M_CAS_COUNT.WR", 64 },
	{ "clock", "UNC_U_CLOCKTICKS", 1 },
	{ "qpi_data", "UNC_Q_TxL_FLITS_G0.DATA", 8 },
	{ "qpi_nondata", "UNC_Q_TxL_FLITS_G0.NON_DATA", 8 },
	{ "ha_rd_local", "UNC_H_REQUESTS.READS_LOCAL", 1 },
	{ "ha_rd_remote", "UNC_H_REQUESTS.READS_REMOTE", 1 },
	{ "ha_wr_local", "UNC_H_REQUESTS.WRITES_LOCAL", 1 },
	{ "ha_wr_remote", "UNC_H_REQUESTS.WRITES_REMOTE", 1 },
	{ "core_c3", "UNC_P_CORE_CC3_CTR", 1 },
	{ "core_c6", "UNC_P_CORE_CC6_CTR", 1 },
	{ "pkg_c3", "UNC_P_CORE_PC3_CTR", 1 },
	{ "pkg_c2", "UNC_P_CORE_PC2_CTR", 1 },
	{ "pkg_c6", "UNC_P_CORE_PC6_CTR", 1 },
	{ "band0", HSX_BAND(0), 1 },
	{ "band1", HSX_BAND(1), 1 },
	{ "band2", HSX_BAND(2), 1 },
	{ "band3", HSX_BAND(3), 1 },
	/* 2.8.6 FREQ_MAX_LIMIT_THERMAL_CYCLES ... PROCHOT_EXTERNAL_CYCLES
	 * in seconds: 2.8.6 CLOCKTICKS "The PCU runs off a fixed 800 MHz
	 * clock" */
	DM_FL_SRCS,
	/* memory read latency (plat_hsx.h HSX_LAT_*): the clock of one CBo
	 * is UCLK, which the UBox fixed counter counts (2.2.2; the CBo's
	 * own UNC_C_CLOCKTICKS would take a CBo counter for the same clock) */
	{ "lat_clock", "UNC_U_CLOCKTICKS", 1 },
	{ "lat_occ_all", HSX_LAT_OCC("MISS_OPCODE"), 1 },
	{ "lat_ins_all", HSX_LAT_INS("MISS_OPCODE"), 1 },
	{ "lat_occ_local", HSX_LAT_OCC("MISS_LOCAL_OPCODE"), 1 },
	{ "lat_ins_local", HSX_LAT_INS("MISS_LOCAL_OPCODE"), 1 },
	{ "lat_occ_remote", HSX_LAT_OCC("MISS_REMOTE_OPCODE"), 1 },
	{ "lat_ins_remote", HSX_LAT_INS("MISS_REMOTE_OPCODE"), 1 },
};

static const struct derived_metric hsx_m[] = {
	DM_XEON_HEADLINE,
	DM_HA("ha_requests_read_local_total", "read", "local", "ha_rd_local"),
	DM_HA("ha_requests_read_remote_total", "read", "remote", "ha_rd_remote"),
	DM_HA("ha_requests_write_local_total", "write", "local", "ha_wr_local"),
	DM_HA("ha_requests_write_remote_total", "write", "remote",
	   "ha_wr_remote"),
	/* 2.5.4 PCT_RD_REQUESTS: REQUESTS.READS / (REQUESTS.READS +
	 * REQUESTS.WRITES), each the sum of its local and remote events */
	{ "uncore_ha_read_requests_ratio", "ha_read_requests_ratio",
	  "Share of the home agent requests that were reads over the last "
	  "sampling interval (manual 2.5.4 PCT_RD_REQUESTS).", "ratio",
	  DM_GAUGE, NULL, { NULL },
	  { DF_SRC("ha_rd_local"), DF_SRC("ha_rd_remote"), DF_ADD,
	    DF_SRC("ha_rd_local"), DF_SRC("ha_rd_remote"), DF_ADD,
	    DF_SRC("ha_wr_local"), DF_ADD, DF_SRC("ha_wr_remote"), DF_ADD,
	    DF_RATIO } },
	DM_CSTATE("pcu_core_c3_cycles_total", "core_c3", "core_c3"),
	DM_CSTATE("pcu_core_c6_cycles_total", "core_c6", "core_c6"),
	DM_CSTATE("pcu_package_c3_cycles_total", "package_c3", "pkg_c3"),
	DM_CSTATE("pcu_package_c2_cycles_total", "package_c2", "pkg_c2"),
	DM_CSTATE("pcu_package_c6_cycles_total", "package_c6", "pkg_c6"),
	DM_BAND("pcu_frequency_band0_cycles_total", "0", "band0"),
	DM_BAND("pcu_frequency_band1_cycles_total", "1", "band1"),
	DM_BAND("pcu_frequency_band2_cycles_total", "2", "band2"),
	DM_BAND("pcu_frequency_band3_cycles_total", "3", "band3"),
	DM_FLIMITS,
	/* 2.3.5 AVG_TOR_DRD_MISS_LATENCY, AVG_TOR_DRD_LOC_MISS_LATENCY,
	 * AVG_TOR_DRD_REM_MISS_LATENCY as summaries; local and remote are
	 * there when a [baseline] counts them (the default counts "all":
	 * counter 0 holds one occupancy event per box) */
	DM_LAT("all"), DM_LAT("local"), DM_LAT("remote"),
	DM_LAT_MEAN("all"), DM_LAT_MEAN("local"), DM_LAT_MEAN("remote"),
	DM_LAT_INFLIGHT("all"), DM_LAT_INFLIGHT("local"),
	DM_LAT_INFLIGHT("remote"),
};

const struct derived_table derived_hsx = {
	.src = hsx_src,
	.nsrc = sizeof(hsx_src) / sizeof(hsx_src[0]),
	.m = hsx_m,
	.nm = sizeof(hsx_m) / sizeof(hsx_m[0]),
};
