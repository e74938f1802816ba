/*
 * derived_hsx.c - the daemon's derived metrics on Xeon E5/E7 v3 (DESIGN.md
 * section 7; the table format is described in plat.h).
 *
 * Manual 331051: LLC lookups and misses (2.3.5 LLC_DRD_MISS_PCT: the
 * LLC_LOOKUP.ANY encodings with FILTER0.state, see plat_hsx.h), DRAM
 * bytes from CAS_COUNT.RD / .WR x 64 (2.6.6 MEM_BW_READS / MEM_BW_WRITES),
 * per socket and per channel in separate families, the UBox UCLK fixed
 * counter, QPI data and link bytes per port (2.9.5 QPI_DATA_BW,
 * QPI_LINK_BW: flits x 8 bytes), home agent requests (2.5.6 REQUESTS),
 * PCU C-state residency (free-running, 2.8.2) and frequency bands (2.8.5).
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
};

#define CH_BW_HELP "DRAM bandwidth of one memory channel over the last " \
		   "sampling interval."
#define HA_HELP "Home agent requests by type and by locality (from this " \
		"socket or a remote one)."
#define CS_HELP "Cycles the package (package_*) was in the C-state, or the " \
		"socket's cores (core_*) were, summed over its cores (PCU " \
		"free-running counters)."
#define FB_HELP "Cycles the uncore frequency was at or above the band's " \
		"threshold (bands 1.2, 2.0, 2.8, 3.6 GHz in the default " \
		"baseline)."

#define HA(json, type, loc, src)                                          \
	{ "uncore_ha_requests_total", json, HA_HELP, NULL, DM_COUNTER, NULL, \
	  { "type", type, "locality", loc, NULL }, { DF_SRC(src) } }
#define CSTATE(json, state, src)                                          \
	{ "uncore_pcu_cstate_residency_cycles_total", json, CS_HELP, NULL,   \
	  DM_COUNTER, NULL, { "state", state, NULL }, { DF_SRC(src) } }
#define BAND(json, n, src)                                                \
	{ "uncore_pcu_frequency_band_cycles_total", json, FB_HELP, NULL,     \
	  DM_COUNTER, NULL, { "band", n, NULL }, { DF_SRC(src) } }

static const struct derived_metric hsx_m[] = {
	DM_LLC_LOOKUPS,
	DM_LLC_MISSES,
	DM_LLC_HIT_RATIO,
	DM_DRAM_BYTES("uncore_dram_read_bytes_total", NULL,
		      "Bytes read from DRAM (64 per transfer), summed over the "
		      "socket's memory channels.", "read", "dram_rd"),
	DM_DRAM_BYTES("uncore_dram_write_bytes_total", NULL,
		      "Bytes written to DRAM (64 per transfer), summed over the "
		      "socket's memory channels.", "write", "dram_wr"),
	DM_DRAM_BW("uncore_dram_bandwidth_bytes_per_second", NULL,
		   DM_DRAM_BW_HELP, "read", "dram_rd"),
	DM_DRAM_BW("uncore_dram_bandwidth_bytes_per_second", NULL,
		   DM_DRAM_BW_HELP, "write", "dram_wr"),
	DM_DRAM_BYTES("uncore_dram_channel_read_bytes_total", "channel",
		      "Bytes read from DRAM through one memory channel (64 per "
		      "transfer).", "read", "dram_rd"),
	DM_DRAM_BYTES("uncore_dram_channel_write_bytes_total", "channel",
		      "Bytes written to DRAM through one memory channel (64 "
		      "per transfer).", "write", "dram_wr"),
	DM_DRAM_BW("uncore_dram_channel_bandwidth_bytes_per_second",
		   "channel", CH_BW_HELP, "read", "dram_rd"),
	DM_DRAM_BW("uncore_dram_channel_bandwidth_bytes_per_second",
		   "channel", CH_BW_HELP, "write", "dram_wr"),
	DM_CLOCK_TICKS("Uncore clock (UCLK) cycles, from the UBox fixed "
		       "counter."),
	DM_CLOCK_HERTZ,
	{ "uncore_qpi_data_bytes_total", "qpi_data_bytes_total",
	  "QPI data sent, per port: data flits x 8 bytes (manual 2.9.5 "
	  "QPI_DATA_BW).", "bytes", DM_COUNTER, "port", { NULL },
	  { DF_SRC("qpi_data") } },
	{ "uncore_qpi_link_bytes_total", "qpi_link_bytes_total",
	  "QPI link traffic sent, per port: data and non-data flits x 8 "
	  "bytes (QPI_LINK_BW).", "bytes", DM_COUNTER, "port", { NULL },
	  { DF_SRC("qpi_data"), DF_SRC("qpi_nondata"), DF_ADD } },
	{ "uncore_qpi_data_bandwidth_bytes_per_second",
	  "qpi_data_bytes_per_second",
	  "QPI data sent per second on one port over the last sampling "
	  "interval.", "bytes_per_second", DM_GAUGE, "port", { NULL },
	  { DF_SRC("qpi_data"), DF_RATE } },
	{ "uncore_qpi_link_bandwidth_bytes_per_second",
	  "qpi_link_bytes_per_second",
	  "QPI link traffic (data and non-data flits) sent per second on one "
	  "port over the last sampling interval.", "bytes_per_second",
	  DM_GAUGE, "port", { NULL },
	  { DF_SRC("qpi_data"), DF_SRC("qpi_nondata"), DF_ADD, DF_RATE } },
	HA("ha_requests_read_local_total", "read", "local", "ha_rd_local"),
	HA("ha_requests_read_remote_total", "read", "remote", "ha_rd_remote"),
	HA("ha_requests_write_local_total", "write", "local", "ha_wr_local"),
	HA("ha_requests_write_remote_total", "write", "remote",
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
	CSTATE("pcu_core_c3_cycles_total", "core_c3", "core_c3"),
	CSTATE("pcu_core_c6_cycles_total", "core_c6", "core_c6"),
	CSTATE("pcu_package_c3_cycles_total", "package_c3", "pkg_c3"),
	CSTATE("pcu_package_c2_cycles_total", "package_c2", "pkg_c2"),
	CSTATE("pcu_package_c6_cycles_total", "package_c6", "pkg_c6"),
	BAND("pcu_frequency_band0_cycles_total", "0", "band0"),
	BAND("pcu_frequency_band1_cycles_total", "1", "band1"),
	BAND("pcu_frequency_band2_cycles_total", "2", "band2"),
	BAND("pcu_frequency_band3_cycles_total", "3", "band3"),
};

const struct derived_table derived_hsx = {
	.src = hsx_src,
	.nsrc = sizeof(hsx_src) / sizeof(hsx_src[0]),
	.m = hsx_m,
	.nm = sizeof(hsx_m) / sizeof(hsx_m[0]),
};
