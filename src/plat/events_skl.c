/*
 * events_skl.c - the skl event catalog: every event of the manual's
 * Tables 3-1 (CBo), 3-2 (ARB and the fixed UCLK counter) and 3-3 (IMC
 * free-running counters), with the manual's description text.
 *
 * Source: 6th Generation Intel Core Processor Family Uncore Performance
 * Monitoring Reference Manual, 334060-001, April 2016, chapter 3.
 * Fixed and free-running counters have no event select: their entries
 * carry ctr_mask 0 and are found by name (unit "fixed" / "imc"; the IMC
 * names are those of Table 3-3 and of the imc unit's freerun[]).
 * No table states a maximum increment per cycle, so max_inc is 0.
 */
#include "config.h"

#include "plat/plat.h"
#include "plat/plat_skl.h"

#define CBO(n, c, u, d) \
	{ .name = n, .unit = "cbo", .code = c, .umask = u, .ctr_mask = 0x3, \
	  .desc = d, .source = "Table 3-1" }

const struct event skl_events[] = {
	/*
	 * Table 3-1 (titled "Uncore PMU MSR List" in the manual, a copy of
	 * Table 2-1's title; it is the CBo event table of section 3.1).
	 * Valid counters "0, 1" for every entry.  Section 3.1: work with the
	 * sum over all CBos.
	 */
	CBO("UNC_CBO_XSNP_RESPONSE.MISS_XCORE", 0x22, 0x41,
	    "A cross-core snoop initiated by this CBo due to processor core memory request which misses in some processor core."),
	CBO("UNC_CBO_XSNP_RESPONSE.MISS_EVICTION", 0x22, 0x81,
	    "A cross-core snoop resulted from LLC Eviction which misses in some processor core."),
	CBO("UNC_CBO_XSNP_RESPONSE.HIT_XCORE", 0x22, 0x44,
	    "A cross-core snoop initiated by this CBo due to processor core memory request which hits a non-modified line in some processor core."),
	CBO("UNC_CBO_XSNP_RESPONSE.HITM_XCORE", 0x22, 0x48,
	    "A cross-core snoop initiated by this CBo due to processor core memory request which hits a modified line in some processor core."),
	CBO("UNC_CBO_CACHE_LOOKUP.WRITE_M", 0x34, 0x21,
	    "LLC lookup write request that accesses cache and found line in M-state."),
	CBO("UNC_CBO_CACHE_LOOKUP.ANY_M", 0x34, 0x81,
	    "LLC lookup any request that accesses cache and found line in M-state."),
	CBO("UNC_CBO_CACHE_LOOKUP.READ_I", 0x34, 0x18,
	    "LLC lookup read request that accesses cache and found line in I-state."),
	CBO("UNC_CBO_CACHE_LOOKUP.ANY_I", 0x34, 0x88,
	    "LLC lookup any request that accesses cache and found line in I-state."),
	CBO("UNC_CBO_CACHE_LOOKUP.READ_MESI", 0x34, 0x1F,
	    "LLC lookup read request that accesses cache and found line in any MESI-state."),
	CBO("UNC_CBO_CACHE_LOOKUP.WRITE_MESI", 0x34, 0x2F,
	    "LLC lookup write request that accesses cache and found line in MESI-state."),
	CBO("UNC_CBO_CACHE_LOOKUP.ANY_MESI", 0x34, 0x8F,
	    "LLC lookup any request that accesses cache and found line in MESI-state."),
	CBO("UNC_CBO_CACHE_LOOKUP.ANY_ES", 0x34, 0x86,
	    "LLC lookup any request that accesses cache and found line in E or S-state."),
	CBO("UNC_CBO_CACHE_LOOKUP.READ_ES", 0x34, 0x16,
	    "LLC lookup read request that accesses cache and found line in E or S-state."),
	CBO("UNC_CBO_CACHE_LOOKUP.WRITE_ES", 0x34, 0x26,
	    "LLC lookup write request that accesses cache and found line in E or S-state."),

	/*
	 * Table 3-2. ARB PerfMon Events, in the manual's order.  The two
	 * TRK_OCCUPANCY events share event 0x80 umask 0x01; the table does
	 * not print what tells them apart.  CYCLES_WITH_ANY_REQUEST counts
	 * cycles in which the occupancy is at least one, i.e. THR = 1 with
	 * INV = 0 (Table 2-7 THR/INV semantics); notes: "ARB occupancy".
	 */
	{ .name = "UNC_ARB_TRK_OCCUPANCY.ALL", .unit = "arb",
	  .code = 0x80, .umask = 0x01, .ctr_mask = 0x1,
	  .desc = "Count cycles of outgoing, valid entries from cores.",
	  .source = "Table 3-2" },
	{ .name = "UNC_ARB_TRK_REQUESTS.ALL", .unit = "arb",
	  .code = 0x81, .umask = 0x01, .ctr_mask = 0x3,
	  .desc = "Total number of core outgoing entries allocated. Accounts for coherent and non-coherent traffic.",
	  .source = "Table 3-2" },
	{ .name = "UNC_ARB_TRK_REQUESTS.WRITES", .unit = "arb",
	  .code = 0x81, .umask = 0x20, .ctr_mask = 0x3,
	  .desc = "Number of writes allocated including any write transaction including full, partials and evictions.",
	  .source = "Table 3-2" },
	{ .name = "UNC_ARB_COH_TRK_REQUESTS.ALL", .unit = "arb",
	  .code = 0x84, .umask = 0x01, .ctr_mask = 0x3,
	  .desc = "Number of entries allocated for any type.",
	  .source = "Table 3-2" },
	{ .name = "UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST", .unit = "arb",
	  .code = 0x80, .umask = 0x01, .thresh = 1, .ctr_mask = 0x1,
	  .desc = "Cycles with at least one request outstanding, waiting for data to return from memory controller. Accounts for coherent and non-coherent requests initiated by IA cores, processor graphics unit, or LLC.",
	  .source = "Table 3-2" },
	/* Valid counters "Fixed": the 48-bit MSR_UNC_PERF_FIXED_CTR.  The
	 * code/umask are the table's and are never written anywhere. */
	{ .name = "UNC_CLOCK.SOCKET", .unit = "fixed",
	  .code = 0x00, .umask = 0x01, .ctr_mask = 0,
	  .desc = "This 48-bit fixed counter counts the UCLK cycles.",
	  .source = "Table 3-2" },

	/* Table 3-3. IMC Counters: free-running, 32-bit, MCHBAR + offset. */
	{ .name = "DRAM_GT_REQUESTS", .unit = "imc", .ctr_mask = 0,
	  .desc = "Counts every read/write request entering the Memory Controller to DRAM (sum of all channels) from the GT engine. Each partial write request counts as a request incrementing this counter. However same-cache-line partial write requests are combined to a single 64-byte data transfers from DRAM. Therefore multiplying the number of requests by 64-bytes will lead to inaccurate GT memory bandwidth. The inaccuracy is proportional to the number of same-cache-line partial writes combined.",
	  .source = "Table 3-3" },
	{ .name = "DRAM_IA_REQUESTS", .unit = "imc", .ctr_mask = 0,
	  .desc = "Counts every read/write request (demand and HW prefetch) entering the Memory Controller to DRAM (sum of all channels) from IA. Each partial write request counts as a request incrementing this counter. However same-cache-line partial write requests are combined to a single 64-byte data transfers from DRAM. Therefore multiplying the number of requests by 64-bytes will lead to inaccurate IA memory bandwidth. The inaccuracy is proportional to the number of same-cache-line partial writes combined.",
	  .source = "Table 3-3" },
	{ .name = "DRAM_IO_REQUESTS", .unit = "imc", .ctr_mask = 0,
	  .desc = "Counts every read/write request entering the Memory Controller to DRAM (sum of all channels) from all IO sources (e.g. PCIe, Display Engine, USB audio, etc.). Each partial write request counts as a request incrementing this counter. However same-cache-line partial write requests are combined to a single 64-byte data transfers from DRAM. Therefore multiplying the number of requests by 64-bytes will lead to inaccurate IO memory bandwidth. The inaccuracy is proportional to the number of same-cache-line partial writes combined.",
	  .source = "Table 3-3" },
	{ .name = "DRAM_DATA_READS", .unit = "imc", .ctr_mask = 0,
	  .desc = "Counts every read (RdCAS) issued by the Memory Controller to DRAM (sum of all channels). All requests result in 64-byte data transfers from DRAM. Use for accurate memory bandwidth calculations.",
	  .source = "Table 3-3" },
	{ .name = "DRAM_DATA_WRITES", .unit = "imc", .ctr_mask = 0,
	  .desc = "Counts every write (WrCAS) issued by the Memory Controller to DRAM (sum of all channels). All requests result in 64-byte data transfers from DRAM. Use for accurate memory bandwidth calculations.",
	  .source = "Table 3-3" },
};

_Static_assert(sizeof(skl_events) / sizeof(skl_events[0]) == SKL_NEVENTS,
	       "SKL_NEVENTS in plat_skl.h does not match skl_events[]");

const size_t skl_nevents = SKL_NEVENTS;
