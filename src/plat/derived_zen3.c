/*
 * derived_zen3.c - the derived metrics on AMD Zen 3 (perf backend).
 *
 * LLC: l3_cache_accesses (event 0x04, umask 0xff) and l3_misses (umask
 * 0x01), summed over the socket's L3 complexes (amdzen3/recommended.json
 * lines 88, 95).  DRAM: only the total.  The kernel's Zen 3 data has no
 * DRAM event that tells reads from writes: the data fabric's
 * dram_channel_data_controller_0..7 (amdzen3/data-fabric.json, event
 * 0x07 + 0x40 x N, umask 0x38) count "Requests with Data (64B)" of both
 * directions, and the kernel's own metric nps1_die_to_dram sums the 8
 * with ScaleUnit 6.1e-5 MiB, i.e. 64 bytes a request
 * (amdzen3/recommended.json line 207).  So uncore_dram_bytes_total is
 * their sum x 64, and uncore_dram_read/write_bytes_total are absent
 * (doc/metrics.md, doc/hardware-notes.md "AMD Zen 3 (zen3)").  No uncore
 * clock family, as on zen4.
 */
#include "config.h"

#include "derived.h"

#define CH(n) { "dram_all", "dram_channel_data_controller_" #n, 64, false, 0 }
static const struct derived_src zen3_src[] = {
	{ "lookups", "l3_cache_accesses", 1, false, 0 },
	{ "misses", "l3_misses", 1, false, 0 },
	CH(0), CH(1), CH(2), CH(3), CH(4), CH(5), CH(6), CH(7),
};

static const struct derived_metric zen3_m[] = {
	DM_LLC_LOOKUPS_H("L3 accesses (l3_cache_accesses, event 0x04 umask "
			 "0xff), summed over the socket's L3 complexes (CCX)."),
	DM_LLC_MISSES_H("L3 misses (l3_misses, event 0x04 umask 0x01; "
			"includes cache-line state change requests), summed "
			"over the socket's L3 complexes."),
	DM_LLC_HIT_RATIO,
	DM_DRAM_TOTAL("Bytes read from and written to the socket's DRAM: the "
		      "data fabric's requests with data x 64 at DRAM channels "
		      "0-7, both directions together (Zen 3 has no read/write "
		      "split in the kernel's data)."),
};

const struct derived_table derived_zen3 = {
	.src = zen3_src, .nsrc = sizeof(zen3_src) / sizeof(zen3_src[0]),
	.m = zen3_m, .nm = sizeof(zen3_m) / sizeof(zen3_m[0]),
};
