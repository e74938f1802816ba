/*
 * derived_skl.c - the daemon's derived metrics on the 6th-gen Core client
 * uncore (doc/design.md section 7; the table format is described in plat.h).
 *
 * LLC lookups and misses from the CBo lookup events summed over CBos
 * (334060 Table 3-1), DRAM bytes from the IMC free-running data counters,
 * 64 bytes per transfer (Table 3-3), requests by source, the UCLK fixed
 * counter, ARB requests and occupancy (Table 3-2).
 */
#include "config.h"

#include "derived.h"

static const struct derived_src skl_src[] = {
	{ "lookups", "UNC_CBO_CACHE_LOOKUP.ANY_MESI", 1 },
	{ "misses", "UNC_CBO_CACHE_LOOKUP.ANY_I", 1 },
	{ "dram_rd", "DRAM_DATA_READS", 64 },
	{ "dram_wr", "DRAM_DATA_WRITES", 64 },
	{ "req_ia", "DRAM_IA_REQUESTS", 1 },
	{ "req_gt", "DRAM_GT_REQUESTS", 1 },
	{ "req_io", "DRAM_IO_REQUESTS", 1 },
	{ "clock", "UNC_CLOCK.SOCKET", 1 },
	{ "arb_req", "UNC_ARB_TRK_REQUESTS.ALL", 1 },
	{ "arb_occ", "UNC_ARB_TRK_OCCUPANCY.ALL", 1 },
};

#define REQ_HELP "Requests entering the memory controller, by source (IA " \
		 "cores, GT graphics, IO)."

static const struct derived_metric skl_m[] = {
	DM_LLC_LOOKUPS,
	DM_LLC_MISSES,
	DM_LLC_HIT_RATIO,
	DM_DRAM_BYTES("uncore_dram_read_bytes_total", NULL,
		      "Bytes read from DRAM (64 per transfer).", "read",
		      "dram_rd"),
	DM_DRAM_BYTES("uncore_dram_write_bytes_total", NULL,
		      "Bytes written to DRAM (64 per transfer).", "write",
		      "dram_wr"),
	DM_DRAM_BW("uncore_dram_bandwidth_bytes_per_second", NULL,
		   DM_DRAM_BW_HELP, "read", "dram_rd"),
	DM_DRAM_BW("uncore_dram_bandwidth_bytes_per_second", NULL,
		   DM_DRAM_BW_HELP, "write", "dram_wr"),
	{ "uncore_dram_requests_total", "dram_requests_ia_total", REQ_HELP,
	  NULL, DM_COUNTER, NULL, { "source", "ia", NULL },
	  { DF_SRC("req_ia") } },
	{ "uncore_dram_requests_total", "dram_requests_gt_total", REQ_HELP,
	  NULL, DM_COUNTER, NULL, { "source", "gt", NULL },
	  { DF_SRC("req_gt") } },
	{ "uncore_dram_requests_total", "dram_requests_io_total", REQ_HELP,
	  NULL, DM_COUNTER, NULL, { "source", "io", NULL },
	  { DF_SRC("req_io") } },
	DM_CLOCK_TICKS("Uncore clock (UCLK) cycles, from the fixed counter."),
	DM_CLOCK_HERTZ,
	{ "uncore_arb_requests_total", "arb_requests_total",
	  "Requests allocated in the ARB tracker (coherent and "
	  "non-coherent).", NULL, DM_COUNTER, NULL, { NULL },
	  { DF_SRC("arb_req") } },
	{ "uncore_arb_occupancy_cycles_total", "arb_occupancy_cycles_total",
	  "Sum over cycles of the ARB tracker entries outstanding.", NULL,
	  DM_COUNTER, NULL, { NULL }, { DF_SRC("arb_occ") } },
	{ "uncore_arb_occupancy_average", "arb_occupancy_average",
	  "Average outstanding ARB requests per uncore cycle over the last "
	  "sampling interval.", NULL, DM_GAUGE, NULL, { NULL },
	  { DF_SRC("arb_occ"), DF_SRC("clock"), DF_RATIO } },
};

const struct derived_table derived_skl = {
	.src = skl_src,
	.nsrc = sizeof(skl_src) / sizeof(skl_src[0]),
	.m = skl_m,
	.nm = sizeof(skl_m) / sizeof(skl_m[0]),
};
