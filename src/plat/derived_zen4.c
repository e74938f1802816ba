/*
 * derived_zen4.c - the derived metrics on AMD EPYC Zen 4 (perf backend).
 *
 * LLC: the L3 of each complex (CCX), l3_lookup_state all coherent
 * accesses (event 0x04, umask 0xff) and misses (umask 0x01), summed over
 * the socket's complexes (amdzen4/recommended.json l3_cache_accesses,
 * l3_misses).  DRAM: through amd_umc_N where the kernel has it (Linux
 * 6.7): umc_cas_cmd.rd / .wr (event 0x0a, rdwrmask 1 / 2), 64 bytes a
 * CAS (amdzen5/recommended.json's UMC bandwidth formula; the same events
 * on Zen 4, amdzen4/memory-controller.json); else through amd_df: read
 * and write data beats of 64 bytes at coherent stations cs0-cs11 for the
 * local and the remote processor (amdzen4/recommended.json
 * dram_read_data_for_local_processor and its three siblings, ScaleUnit
 * 6.103515625e-5 MiB = 64 bytes), which is every DRAM access of the
 * socket's memory, as the UMC's CAS counts are.  The choice is made from
 * the topology (struct derived_src.alt).  No uncore clock family: the
 * kernel's AMD PMUs have no fabric clock event in these tables.
 */
#include "config.h"

#include "derived.h"

static const struct derived_src zen4_src[] = {
	{ "lookups", "l3_lookup_state.all_coherent_accesses_to_l3", 1, false,
	  0 },
	{ "misses", "l3_lookup_state.l3_miss", 1, false, 0 },
	{ "dram_rd", "umc_cas_cmd.rd", 64, false, 0 },
	{ "dram_rd", "local_processor_read_data_beats_cs0", 64, false, 1 },
	{ "dram_rd", "local_processor_read_data_beats_cs1", 64, false, 1 },
	{ "dram_rd", "local_processor_read_data_beats_cs2", 64, false, 1 },
	{ "dram_rd", "local_processor_read_data_beats_cs3", 64, false, 1 },
	{ "dram_rd", "local_processor_read_data_beats_cs4", 64, false, 1 },
	{ "dram_rd", "local_processor_read_data_beats_cs5", 64, false, 1 },
	{ "dram_rd", "local_processor_read_data_beats_cs6", 64, false, 1 },
	{ "dram_rd", "local_processor_read_data_beats_cs7", 64, false, 1 },
	{ "dram_rd", "local_processor_read_data_beats_cs8", 64, false, 1 },
	{ "dram_rd", "local_processor_read_data_beats_cs9", 64, false, 1 },
	{ "dram_rd", "local_processor_read_data_beats_cs10", 64, false, 1 },
	{ "dram_rd", "local_processor_read_data_beats_cs11", 64, false, 1 },
	{ "dram_rd", "remote_processor_read_data_beats_cs0", 64, false, 1 },
	{ "dram_rd", "remote_processor_read_data_beats_cs1", 64, false, 1 },
	{ "dram_rd", "remote_processor_read_data_beats_cs2", 64, false, 1 },
	{ "dram_rd", "remote_processor_read_data_beats_cs3", 64, false, 1 },
	{ "dram_rd", "remote_processor_read_data_beats_cs4", 64, false, 1 },
	{ "dram_rd", "remote_processor_read_data_beats_cs5", 64, false, 1 },
	{ "dram_rd", "remote_processor_read_data_beats_cs6", 64, false, 1 },
	{ "dram_rd", "remote_processor_read_data_beats_cs7", 64, false, 1 },
	{ "dram_rd", "remote_processor_read_data_beats_cs8", 64, false, 1 },
	{ "dram_rd", "remote_processor_read_data_beats_cs9", 64, false, 1 },
	{ "dram_rd", "remote_processor_read_data_beats_cs10", 64, false, 1 },
	{ "dram_rd", "remote_processor_read_data_beats_cs11", 64, false, 1 },
	{ "dram_wr", "umc_cas_cmd.wr", 64, false, 0 },
	{ "dram_wr", "local_processor_write_data_beats_cs0", 64, false, 1 },
	{ "dram_wr", "local_processor_write_data_beats_cs1", 64, false, 1 },
	{ "dram_wr", "local_processor_write_data_beats_cs2", 64, false, 1 },
	{ "dram_wr", "local_processor_write_data_beats_cs3", 64, false, 1 },
	{ "dram_wr", "local_processor_write_data_beats_cs4", 64, false, 1 },
	{ "dram_wr", "local_processor_write_data_beats_cs5", 64, false, 1 },
	{ "dram_wr", "local_processor_write_data_beats_cs6", 64, false, 1 },
	{ "dram_wr", "local_processor_write_data_beats_cs7", 64, false, 1 },
	{ "dram_wr", "local_processor_write_data_beats_cs8", 64, false, 1 },
	{ "dram_wr", "local_processor_write_data_beats_cs9", 64, false, 1 },
	{ "dram_wr", "local_processor_write_data_beats_cs10", 64, false, 1 },
	{ "dram_wr", "local_processor_write_data_beats_cs11", 64, false, 1 },
	{ "dram_wr", "remote_processor_write_data_beats_cs0", 64, false, 1 },
	{ "dram_wr", "remote_processor_write_data_beats_cs1", 64, false, 1 },
	{ "dram_wr", "remote_processor_write_data_beats_cs2", 64, false, 1 },
	{ "dram_wr", "remote_processor_write_data_beats_cs3", 64, false, 1 },
	{ "dram_wr", "remote_processor_write_data_beats_cs4", 64, false, 1 },
	{ "dram_wr", "remote_processor_write_data_beats_cs5", 64, false, 1 },
	{ "dram_wr", "remote_processor_write_data_beats_cs6", 64, false, 1 },
	{ "dram_wr", "remote_processor_write_data_beats_cs7", 64, false, 1 },
	{ "dram_wr", "remote_processor_write_data_beats_cs8", 64, false, 1 },
	{ "dram_wr", "remote_processor_write_data_beats_cs9", 64, false, 1 },
	{ "dram_wr", "remote_processor_write_data_beats_cs10", 64, false, 1 },
	{ "dram_wr", "remote_processor_write_data_beats_cs11", 64, false, 1 },
	{ "ch_rd", "umc_cas_cmd.rd", 64, false, 0 },
	{ "ch_wr", "umc_cas_cmd.wr", 64, false, 0 },
};

static const struct derived_metric zen4_m[] = {
	DM_LLC_LOOKUPS_H("L3 lookups of all coherent accesses "
			 "(l3_lookup_state, umask 0xff), summed over the "
			 "socket's L3 complexes (CCX; one L3 per CCX, shared "
			 "by its cores)."),
	DM_LLC_MISSES_H("L3 lookups that missed (l3_lookup_state.l3_miss), "
			"summed over the socket's L3 complexes."),
	DM_LLC_HIT_RATIO,
	DM_DRAM_SOCKET("Bytes read from the socket's DRAM: UMC CAS reads x 64 "
		       "(Linux 6.7+), else data fabric read beats x 64 at "
		       "coherent stations 0-11, local and remote requesters.",
		       "Bytes written to the socket's DRAM: UMC CAS writes x 64 "
		       "(Linux 6.7+), else data fabric write beats x 64 at "
		       "coherent stations 0-11, local and remote requesters."),
	DM_DRAM_CH("Bytes read from DRAM through one memory controller "
		   "(UMC CAS reads x 64; Linux 6.7+).",
		   "Bytes written to DRAM through one memory controller "
		   "(UMC CAS writes x 64; Linux 6.7+)."),
};

const struct derived_table derived_zen4 = {
	.src = zen4_src, .nsrc = sizeof(zen4_src) / sizeof(zen4_src[0]),
	.m = zen4_m, .nm = sizeof(zen4_m) / sizeof(zen4_m[0]),
};
