/*
 * derived_icx.c - the derived metrics on Ice Lake-SP (perf backend).
 * Intel's ICX perf metrics (ICX/metrics/perf/icelakex_metrics_perf.json):
 * memory_bandwidth_read = UNC_M_CAS_COUNT.RD x 64 with ICX's encoding
 * 0x04/0x0f, _write = UNC_M_CAS_COUNT.WR 0x04/0x30 (the kernel once
 * shipped Haswell's 0x03/0x0c here; doc/hardware-notes.md).  The socket's
 * DRAM bytes prefer the kernel's free-running counters
 * (uncore_imc_free_running_N "read"/"write", 64 bytes a count), which
 * cost no programmable counter, and fall back to the CAS counts where the
 * kernel lacks them; per-channel families are always the CAS counts (the
 * free-running counters are per controller).  LLC: requests from the
 * cores inserted in the CHAs' TOR, all (TOR_INSERTS.IA, UMaskExt
 * 0xC001FF) and missing the LLC (.IA_MISS, 0xC001FE).
 */
#include "config.h"

#include "derived.h"
#include "plat_xsp.h"

static const struct derived_src icx_src[] = {
	{ "lookups", "UNC_CHA_TOR_INSERTS.IA", 1, false, 0 },
	{ "misses", "UNC_CHA_TOR_INSERTS.IA_MISS", 1, false, 0 },
	{ "dram_rd", "UNC_M_FREE_RUNNING.DATA_READ", 64, false, 0 },
	{ "dram_rd", "UNC_M_CAS_COUNT.RD", 64, false, 1 },
	{ "dram_wr", "UNC_M_FREE_RUNNING.DATA_WRITE", 64, false, 0 },
	{ "dram_wr", "UNC_M_CAS_COUNT.WR", 64, false, 1 },
	{ "ch_rd", "UNC_M_CAS_COUNT.RD", 64, false, 0 },
	{ "ch_wr", "UNC_M_CAS_COUNT.WR", 64, false, 0 },
	{ "clock", "UNC_CHA_CLOCKTICKS", 1, true, 0 },
	{ "upi_data", "UNC_UPI_TxL_FLITS.ALL_DATA", XSP_UPI_BYTES_PER_FLIT,
	  false, 0 },
	DS_IIO_PORTS8("in", "IN", XSP_IIO_BYTES_ICX_SPR),
	/* memory read latency (derived.h DS_LAT_XSP): IA_MISS_DRD and its
	 * UMaskExt variants _LOCAL, _REMOTE, _DDR, _PMM (Intel's
	 * llc_demand_data_read_miss_latency{,_for_local_requests,
	 * _for_remote_requests}, _to_dram_latency, _to_pmem_latency) */
	DS_LAT_CLOCK_CHA,
	DS_LAT_XSP("all", ""), DS_LAT_XSP("local", "_LOCAL"),
	DS_LAT_XSP("remote", "_REMOTE"), DS_LAT_XSP("dram", "_DDR"),
	DS_LAT_XSP("pmem", "_PMM"),
	/* the RPQ (derived.h DM_RPQ), from a [baseline] imc list; the clock
	 * the free-running DCLK (no programmable counter), which a
	 * controller's channels share */
	DS_RPQ_PCH("UNC_M_FREE_RUNNING.DCLK"),
};

static const struct derived_metric icx_m[] = {
	DM_LLC_LOOKUPS_H("Requests from the cores looking up the LLC (CHA TOR "
			 "inserts from IA cores, UNC_CHA_TOR_INSERTS.IA), summed "
			 "over the CHAs."),
	DM_LLC_MISSES_H("Requests from the cores that missed the LLC "
			"(UNC_CHA_TOR_INSERTS.IA_MISS), summed over the CHAs."),
	DM_LLC_HIT_RATIO,
	DM_DRAM_SOCKET("Bytes read from DRAM: the memory controllers' "
		       "free-running read counters x 64 (else CAS reads x 64), "
		       "summed over the socket.",
		       "Bytes written to DRAM: the memory controllers' "
		       "free-running write counters x 64 (else CAS writes x "
		       "64), summed over the socket."),
	DM_DRAM_CH("Bytes read from DRAM through one memory channel (CAS "
		   "reads x 64).",
		   "Bytes written to DRAM through one memory channel (CAS "
		   "writes x 64)."),
	DM_CLOCK_TICKS(XSP_CLOCK_HELP),
	DM_CLOCK_HERTZ,
	DM_UPI_LINKS,
	DM_IO_BYTES("in"),
	DM_IO_BW("in"),
	/* local, remote, dram, pmem where a [baseline] counts them
	 * (counter 0 holds one occupancy event per CHA) */
	DM_LAT_TARGETS5,
	DM_RPQ,
};

const struct derived_table derived_icx = {
	.src = icx_src, .nsrc = sizeof(icx_src) / sizeof(icx_src[0]),
	.m = icx_m, .nm = sizeof(icx_m) / sizeof(icx_m[0]),
};
