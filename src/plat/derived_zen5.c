/*
 * derived_zen5.c - the derived metrics on AMD Zen 5 (perf backend).
 *
 * LLC: l3_lookup_state all coherent accesses (event 0x04, umask 0xff)
 * and misses (umask 0x01), summed over the socket's L3 complexes
 * (amdzen5/l3-cache.json lines 3 and 17).  DRAM: through amd_umc_N where
 * the kernel has it (Linux 6.7): umc_cas_cmd.rd / .wr (event 0x0a,
 * rdwrmask 1 / 2; amdzen5/memory-controller.json), 64 bytes a CAS
 * (amdzen5/recommended.json umc_mem_read_bandwidth and
 * umc_mem_write_bandwidth: umc_cas_cmd.rd * 64 / 1e6 / duration_time);
 * else through amd_df: read and write data beats of 64 bytes ("Read data
 * beats (64 bytes)", amdzen5/data-fabric.json) at DRAM channels 0-11,
 * event 0x1f + 0x40 x N, umask 0xffe for reads and 0xfff for writes, each
 * from the local or the remote socket: every DRAM access of the socket's
 * memory, as the UMC's CAS counts are.  The choice is made from the
 * topology (struct derived_src.alt).  No uncore clock family, as on zen4.
 */
#include "config.h"

#include "derived.h"

static const struct derived_src zen5_src[] = {
	{ "lookups", "l3_lookup_state.all_coherent_accesses_to_l3", 1, false,
	  0 },
	{ "misses", "l3_lookup_state.l3_miss", 1, false, 0 },
	/* memory read latency (derived.h DM_LAT_AMD): fills from DRAM of
	 * this NUMA node (dram_near, umask 0x01) and of another (dram_far,
	 * 0x02); "all" is both summed (doc/hardware-notes.md) */
	{ "lat_amd_local", "l3_xi_sampled_latency.dram_near", 1, false, 0 },
	{ "lat_req_local", "l3_xi_sampled_latency_requests.dram_near", 1, false,
	  0 },
	{ "lat_amd_remote", "l3_xi_sampled_latency.dram_far", 1, false, 0 },
	{ "lat_req_remote", "l3_xi_sampled_latency_requests.dram_far", 1,
	  false, 0 },
	{ "dram_rd", "umc_cas_cmd.rd", 64, false, 0 },
	{ "dram_rd", "local_or_remote_socket_read_data_beats_dram_0", 64,
	  false, 1 },
	{ "dram_rd", "local_or_remote_socket_read_data_beats_dram_1", 64,
	  false, 1 },
	{ "dram_rd", "local_or_remote_socket_read_data_beats_dram_2", 64,
	  false, 1 },
	{ "dram_rd", "local_or_remote_socket_read_data_beats_dram_3", 64,
	  false, 1 },
	{ "dram_rd", "local_or_remote_socket_read_data_beats_dram_4", 64,
	  false, 1 },
	{ "dram_rd", "local_or_remote_socket_read_data_beats_dram_5", 64,
	  false, 1 },
	{ "dram_rd", "local_or_remote_socket_read_data_beats_dram_6", 64,
	  false, 1 },
	{ "dram_rd", "local_or_remote_socket_read_data_beats_dram_7", 64,
	  false, 1 },
	{ "dram_rd", "local_or_remote_socket_read_data_beats_dram_8", 64,
	  false, 1 },
	{ "dram_rd", "local_or_remote_socket_read_data_beats_dram_9", 64,
	  false, 1 },
	{ "dram_rd", "local_or_remote_socket_read_data_beats_dram_10", 64,
	  false, 1 },
	{ "dram_rd", "local_or_remote_socket_read_data_beats_dram_11", 64,
	  false, 1 },
	{ "dram_wr", "umc_cas_cmd.wr", 64, false, 0 },
	{ "dram_wr", "local_or_remote_socket_write_data_beats_dram_0", 64,
	  false, 1 },
	{ "dram_wr", "local_or_remote_socket_write_data_beats_dram_1", 64,
	  false, 1 },
	{ "dram_wr", "local_or_remote_socket_write_data_beats_dram_2", 64,
	  false, 1 },
	{ "dram_wr", "local_or_remote_socket_write_data_beats_dram_3", 64,
	  false, 1 },
	{ "dram_wr", "local_or_remote_socket_write_data_beats_dram_4", 64,
	  false, 1 },
	{ "dram_wr", "local_or_remote_socket_write_data_beats_dram_5", 64,
	  false, 1 },
	{ "dram_wr", "local_or_remote_socket_write_data_beats_dram_6", 64,
	  false, 1 },
	{ "dram_wr", "local_or_remote_socket_write_data_beats_dram_7", 64,
	  false, 1 },
	{ "dram_wr", "local_or_remote_socket_write_data_beats_dram_8", 64,
	  false, 1 },
	{ "dram_wr", "local_or_remote_socket_write_data_beats_dram_9", 64,
	  false, 1 },
	{ "dram_wr", "local_or_remote_socket_write_data_beats_dram_10", 64,
	  false, 1 },
	{ "dram_wr", "local_or_remote_socket_write_data_beats_dram_11", 64,
	  false, 1 },
	{ "ch_rd", "umc_cas_cmd.rd", 64, false, 0 },
	{ "ch_wr", "umc_cas_cmd.wr", 64, false, 0 },
};

static const struct derived_metric zen5_m[] = {
	DM_LLC_LOOKUPS_H("L3 lookups of all coherent accesses "
			 "(l3_lookup_state, umask 0xff), summed over the "
			 "socket's L3 complexes (CCX; one L3 per CCX, shared "
			 "by its cores)."),
	DM_LLC_MISSES_H("L3 lookups that missed (l3_lookup_state.l3_miss), "
			"summed over the socket's L3 complexes."),
	DM_LLC_HIT_RATIO,
	DM_DRAM_SOCKET("Bytes read from the socket's DRAM: UMC CAS reads x 64 "
		       "(Linux 6.7+), else data fabric read beats x 64 at DRAM "
		       "channels 0-11 (local or remote socket).",
		       "Bytes written to the socket's DRAM: UMC CAS writes x 64 "
		       "(Linux 6.7+), else data fabric write beats x 64 at DRAM "
		       "channels 0-11 (local or remote socket)."),
	DM_DRAM_CH("Bytes read from DRAM through one memory controller "
		   "(UMC CAS reads x 64; Linux 6.7+).",
		   "Bytes written to DRAM through one memory controller "
		   "(UMC CAS writes x 64; Linux 6.7+)."),
	/* memory read latency: "all" = both DRAM targets summed */
	{ DM_LAT_NAME, "memory_read_latency_all_seconds_sum", DM_LAT_HELP,
	  "seconds", DM_SUM, NULL, { "target", "all", NULL },
	  { DF_SRC("lat_amd_local"), DF_SRC("lat_amd_remote"), DF_ADD,
	    DF_SCALE(1e-8) } },
	{ DM_LAT_NAME, "memory_read_latency_all_seconds_count", DM_LAT_HELP,
	  "seconds", DM_COUNT, NULL, { "target", "all", NULL },
	  { DF_SRC("lat_req_local"), DF_SRC("lat_req_remote"), DF_ADD } },
	DM_LAT_AMD("local"), DM_LAT_AMD("remote"),
	DM_LAT_AMD_MEAN("local"), DM_LAT_AMD_MEAN("remote"),
};

const struct derived_table derived_zen5 = {
	.src = zen5_src, .nsrc = sizeof(zen5_src) / sizeof(zen5_src[0]),
	.m = zen5_m, .nm = sizeof(zen5_m) / sizeof(zen5_m[0]),
};
