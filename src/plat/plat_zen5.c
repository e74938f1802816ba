/*
 * plat_zen5.c - AMD Zen 5 ("zen5": EPYC 9005 Turin and Turin dense,
 * Ryzen 9000), family 1Ah, reached through the perf backend only: the
 * same kernel driver and PMUs as zen4 (arch/x86/events/amd/uncore.c,
 * kpmu_amd.c) - amd_l3 per L3 complex with the family >= 19h fields,
 * amd_df with PerfMonV2, amd_umc_N from Linux 6.7.  Catalog events_zen5.c
 * from the kernel's amdzen5 tables.  doc/hardware-notes.md, "AMD Zen 5
 * (zen5)".
 */
#include "config.h"

#include "plat/plat_amd.h"
#include "plat/plat_sim.h"
#include "plat/events_zen5.h"

/*
 * Counters as on zen4 (the driver is the same): L3 6 (NUM_COUNTERS_L3);
 * DF as many as CPUID 0x80000022 EBX[15:10] says under PerfMonV2, as the
 * kernel reads it (amd_df_nctr; 4, NUM_COUNTERS_NB, where it does not
 * say); UMC 2 placed (CAS reads and writes).  Boxes: L3 complexes up to 32 (Turin: 16 CCDs of one CCX;
 * Turin dense: 12 CCDs, how many CCX each was not established, so the
 * bound is generous: the kernel's cpumask says how many there are),
 * 12 UMCs per socket (12 DDR5 channels, the DF's DRAM channels 0-11 of
 * amdzen5/data-fabric.json).
 */
static const struct unit_type zen5_l3 = {
	AMD_UNIT("l3", "L3 cache complex (CCX)",
		 AMD_SRC "amd_uncore_l3_ctx_scan", 32, 6, 8, 8,
		 amd_kpmu_l3_f19h),
};
static const struct unit_type zen5_df = {
	AMD_UNIT("df", "Data fabric", AMD_SRC "amd_uncore_df_ctx_scan", 1, 4,
		 14, 12, amd_kpmu_df_v2),
	.nctr_cpuid = &amd_df_nctr,
};
static const struct unit_type zen5_umc = {
	AMD_UNIT("umc", "Unified memory controller (one per DRAM channel)",
		 AMD_SRC "amd_uncore_umc_ctx_scan", 12, 2, 8, 2, amd_kpmu_umc),
};

static const struct unit_type *const zen5_units[] = {
	&zen5_l3, &zen5_df, &zen5_umc, NULL,
};

/*
 * Family 1Ah models the kernel calls Zen 5 (arch/x86/kernel/cpu/amd.c
 * bsp_init_amd(), X86_FEATURE_ZEN5: 0x00-0x2f, 0x40-0x4f, 0x60-0x7f).
 * Of them EPYC 9005 is 0x00-0x0f (Turin, "BRH") and 0x10-0x1f (Turin
 * dense, "BRHD"): illumos-gate usr/src/uts/intel/os/cpuid_subr.c
 * amd_revmap[] (BRH-A0..C1 models 0x00-0x02, BRHD-A0..B1 0x10-0x11, each
 * range to 0x0f / 0x1f for unknown steppings); the Ryzen 9000 and
 * laptop parts are among the other ranges.  The uncore driver keys on
 * the family only, so every Zen 5 model has these PMUs.
 */
static const struct cpu_match zen5_cpus[] = {
	AMD_M16(0x1a, 0x00), AMD_M16(0x1a, 0x10), AMD_M16(0x1a, 0x20),
	AMD_M16(0x1a, 0x40),
	AMD_M16(0x1a, 0x60), AMD_M16(0x1a, 0x70),
	{ 0, 0, 0, 0 },
};

/*
 * DRAM both ways (derived_zen5.c): the UMC CAS commands, and for kernels
 * without amd_umc_N the data fabric's beats per DRAM channel.  Zen 5's
 * DF read event already counts the local and the remote socket's reads
 * (umask 0xffe, "local or remote socket"; amdzen5/data-fabric.json has
 * no local-only or remote-only DRAM read event), and its writes have a
 * "local or remote" umask too (0xfff), so the DF path is 24 events (12
 * channels x read, write), not zen4's 48: 6 turns on 4 counters, 2 on
 * 16.
 */
#define DF_CH(n) "local_or_remote_socket_read_data_beats_dram_" #n,         \
	"local_or_remote_socket_write_data_beats_dram_" #n
/* memory read latency (derived_zen5.c): 4 more of the L3's 6;
 * [baseline] memory_latency = no leaves them out */
static const char *const zen5_baseline_latency[] = {
	"l3_xi_sampled_latency.dram_near",
	"l3_xi_sampled_latency_requests.dram_near",
	"l3_xi_sampled_latency.dram_far",
	"l3_xi_sampled_latency_requests.dram_far",
	NULL
};

static const char *const zen5_baseline[] = {
	"l3_lookup_state.all_coherent_accesses_to_l3",
	"l3_lookup_state.l3_miss",
	"umc_cas_cmd.rd", "umc_cas_cmd.wr",
	DF_CH(0), DF_CH(1), DF_CH(2), DF_CH(3), DF_CH(4), DF_CH(5),
	DF_CH(6), DF_CH(7), DF_CH(8), DF_CH(9), DF_CH(10), DF_CH(11),
	NULL,
};

const struct platform plat_zen5 = {
	.id = "zen5",
	.name = "AMD Zen 5 (EPYC 9005 Turin, Ryzen 9000)",
	.manual = "Linux tools/perf/pmu-events/arch/x86/amdzen5; "
		  "arch/x86/events/amd/uncore.c",
	.cpus = zen5_cpus,
	.units = zen5_units,
	.events = zen5_events,
	.nevents = ZEN5_NEVENTS,
	.ops = &plat_perf_only_ops,
	.derived = &derived_zen5,
	.baseline = zen5_baseline,
	.baseline_latency = zen5_baseline_latency,
	.sim = &plat_zen5_sim,
	.vendor = "AuthenticAMD",
	.backends = PLAT_BE_PERF,
};
