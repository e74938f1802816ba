/*
 * plat_zen4.c - AMD EPYC Zen 4 ("zen4": Genoa, Bergamo, Siena), reached
 * through the perf backend only: the kernel's AMD uncore driver
 * (arch/x86/events/amd/uncore.c; facts in amd-perf/UNCORE-PMUS.md) owns
 * three PMUs - amd_l3 (one box per L3 complex: its cpumask names one CPU
 * per CCX), amd_df (the data fabric: one CPU per socket on current
 * kernels, per node before the June 2024 fix) and amd_umc_N (one PMU per
 * memory controller, Linux 6.7 and later, PerfMonV2), whose N counts up
 * across the sockets.  Catalog events_zen4.c from the kernel's amdzen4
 * tables; the kernel PMU facts are kpmu_amd.c's.
 * doc/hardware-notes.md, "AMD EPYC Zen 4 (zen4)".
 */
#include "config.h"

#include "plat/plat_amd.h"
#include "plat/plat_sim.h"
#include "plat/events_zen4.h"

/*
 * Counters: L3 6 (NUM_COUNTERS_L3); DF: the kernel takes PerfMonV2's
 * count from CPUID 0x80000022 EBX[15:10] (num_df_pmc; 16 on the Zen 4
 * servers whose boot log was seen), and so does uncored (amd_df_nctr,
 * plat_machine(): the 48 DRAM events then take 3 turns, not 12); 4, the
 * count without PerfMonV2 (NUM_COUNTERS_NB), where CPUID does not say;
 * UMC: the group's CPUID count
 * divided among the active UMCs, uncored places at most 2 (CAS reads and
 * writes).  Counters are 48 bits (COUNTER_SHIFT 16); UMC counters
 * saturate at bit 47 (amd_uncore_umc_read()).  Boxes: 16 L3 complexes
 * (Bergamo: 8 CCDs of 2 CCX), 12 UMCs per socket.
 */
static const struct unit_type zen4_l3 = {
	AMD_UNIT("l3", "L3 cache complex (CCX)",
		 AMD_SRC "amd_uncore_l3_ctx_scan", 16, 6, 8, 8,
		 amd_kpmu_l3_f19h),
};
static const struct unit_type zen4_df = {
	AMD_UNIT("df", "Data fabric", AMD_SRC "amd_uncore_df_ctx_scan", 1, 4,
		 14, 12, amd_kpmu_df_v2),
	.nctr_cpuid = &amd_df_nctr,
};
static const struct unit_type zen4_umc = {
	AMD_UNIT("umc", "Unified memory controller (one per DRAM channel)",
		 AMD_SRC "amd_uncore_umc_ctx_scan", 12, 2, 8, 2, amd_kpmu_umc),
};

static const struct unit_type *const zen4_units[] = {
	&zen4_l3, &zen4_df, &zen4_umc, NULL,
};

/* arch/x86/kernel/cpu/amd.c: family 0x19 models 0x10-0x1f and 0x60-0xaf
 * are Zen 4 (X86_FEATURE_ZEN4); the EPYC ones are 0x10-0x1f (Genoa) and
 * 0xa0-0xaf (Bergamo, Siena); 0x60-0x7f are Ryzen clients. */
#define M4(b) AMD_M4(0x19, b)
static const struct cpu_match zen4_cpus[] = {
	M4(0x10), M4(0x14), M4(0x18), M4(0x1c),
	M4(0xa0), M4(0xa4), M4(0xa8), M4(0xac),
	{ 0, 0, 0, 0 },
};

/* DRAM both ways (derived_zen4.c): the UMC CAS commands, and the data
 * fabric's beats for kernels without amd_umc_N.  The daemon counts the
 * path the topology has and leaves the other out (derive_alt_unchosen());
 * the 48 DF events take turns on the DF box's counters: 12 turns on 4,
 * 3 on 16. */
#define DF_CS(n) "local_processor_read_data_beats_cs" #n,                  \
	"remote_processor_read_data_beats_cs" #n,                           \
	"local_processor_write_data_beats_cs" #n,                           \
	"remote_processor_write_data_beats_cs" #n
static const char *const zen4_baseline[] = {
	"l3_lookup_state.all_coherent_accesses_to_l3",
	"l3_lookup_state.l3_miss",
	"umc_cas_cmd.rd", "umc_cas_cmd.wr",
	DF_CS(0), DF_CS(1), DF_CS(2), DF_CS(3), DF_CS(4), DF_CS(5),
	DF_CS(6), DF_CS(7), DF_CS(8), DF_CS(9), DF_CS(10), DF_CS(11),
	NULL,
};

const struct platform plat_zen4 = {
	.id = "zen4",
	.name = "AMD EPYC Zen 4 (Genoa, Bergamo, Siena)",
	.manual = "Linux tools/perf/pmu-events/arch/x86/amdzen4; "
		  "arch/x86/events/amd/uncore.c",
	.cpus = zen4_cpus,
	.units = zen4_units,
	.events = zen4_events,
	.nevents = ZEN4_NEVENTS,
	.ops = &plat_perf_only_ops,
	.derived = &derived_zen4,
	.baseline = zen4_baseline,
	.sim = &plat_zen4_sim,
	.vendor = "AuthenticAMD",
	.backends = PLAT_BE_PERF,
};
