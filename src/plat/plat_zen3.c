/*
 * plat_zen3.c - AMD Zen 3 ("zen3": EPYC 7003 Milan, Ryzen 5000), family
 * 19h, reached through the perf backend only: the kernel's AMD uncore
 * driver (arch/x86/events/amd/uncore.c, kpmu_amd.c) gives it amd_l3 (the
 * family >= 19h fields, as on zen4) and amd_df without PerfMonV2 (its
 * 8-bit umask); no amd_umc_N, which needs PerfMonV2
 * (amd_uncore_umc_ctx_init: pmu_version >= 2).  Catalog events_zen3.c
 * from the kernel's amdzen3 tables.  doc/hardware-notes.md, "AMD Zen 3
 * (zen3)".
 */
#include "config.h"

#include "plat/plat_amd.h"
#include "plat/plat_sim.h"
#include "plat/events_zen3.h"

/*
 * Counters: L3 6 (NUM_COUNTERS_L3), DF 4 (NUM_COUNTERS_NB: without
 * PerfMonV2 the kernel's count is that constant, not CPUID's; the DF
 * carries the kernel's rule all the same, amd_df_nctr, whose feature
 * bit Zen 3 does not set).  Boxes:
 * up to 8 L3 complexes per socket (Milan: 8 CCDs of one 8-core CCX),
 * one data fabric box per socket.
 */
static const struct unit_type zen3_l3 = {
	AMD_UNIT("l3", "L3 cache complex (CCX)",
		 AMD_SRC "amd_uncore_l3_ctx_scan", 8, 6, 8, 8,
		 amd_kpmu_l3_f19h),
};
static const struct unit_type zen3_df = {
	AMD_UNIT("df", "Data fabric", AMD_SRC "amd_uncore_df_ctx_scan", 1, 4,
		 14, 8, amd_kpmu_df_v1),
	.nctr_cpuid = &amd_df_nctr,
};

static const struct unit_type *const zen3_units[] = {
	&zen3_l3, &zen3_df, NULL,
};

/*
 * arch/x86/kernel/cpu/amd.c bsp_init_amd(): family 19h models 0x00-0x0f
 * and 0x20-0x5f are Zen 3 (X86_FEATURE_ZEN3; NEXT-PLATFORMS.md 2.1).
 * EPYC 7003 Milan is 0x00-0x0f (model 0x01), Ryzen 5000 Vermeer 0x20-0x2f,
 * Rembrandt 0x40-0x4f, Cezanne 0x50-0x5f (illumos-gate
 * usr/src/uts/intel/os/cpuid_subr.c amd_revmap[]).
 */
static const struct cpu_match zen3_cpus[] = {
	AMD_M16(0x19, 0x00),
	AMD_M16(0x19, 0x20), AMD_M16(0x19, 0x30), AMD_M16(0x19, 0x40),
	AMD_M16(0x19, 0x50),
	{ 0, 0, 0, 0 },
};

/*
 * DRAM: the data fabric's 8 channel events dram_channel_data_controller_N
 * (amdzen3/data-fabric.json; event 0x07 + 0x40 x N, umask 0x38,
 * "Requests with Data (64B)"), reads and writes together: 8 events on 4
 * counters, 2 turns.  derived_zen3.c makes the total of them; there is no
 * read or write family (doc/metrics.md).
 */
static const char *const zen3_baseline[] = {
	"l3_cache_accesses",
	"l3_misses",
	"dram_channel_data_controller_0", "dram_channel_data_controller_1",
	"dram_channel_data_controller_2", "dram_channel_data_controller_3",
	"dram_channel_data_controller_4", "dram_channel_data_controller_5",
	"dram_channel_data_controller_6", "dram_channel_data_controller_7",
	NULL,
};

const struct platform plat_zen3 = {
	.id = "zen3",
	.name = "AMD Zen 3 (EPYC 7003 Milan, Ryzen 5000)",
	.manual = "Linux tools/perf/pmu-events/arch/x86/amdzen3; "
		  "arch/x86/events/amd/uncore.c",
	.cpus = zen3_cpus,
	.units = zen3_units,
	.events = zen3_events,
	.nevents = ZEN3_NEVENTS,
	.ops = &plat_perf_only_ops,
	.derived = &derived_zen3,
	.baseline = zen3_baseline,
	.sim = &plat_zen3_sim,
	.vendor = "AuthenticAMD",
	.backends = PLAT_BE_PERF,
};
