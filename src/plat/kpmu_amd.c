/*
 * kpmu_amd.c - the kernel perf PMU facts of AMD's uncore units, shared by
 * the AMD platforms (zen3, zen4, zen5) as the kernel shares them: one
 * driver, arch/x86/events/amd/uncore.c, whose format fields depend on the
 * family (17h/18h or >= 19h, for amd_l3) and on PerfMonV2 (CPUID
 * 0x80000022, Zen 4 and later, for amd_df and amd_umc_N).  Data only;
 * the facts are summarised with their functions in
 * amd-perf/UNCORE-PMUS.md and doc/hardware-notes.md ("AMD EPYC").
 */
#include "config.h"

#include "plat/kpmu.h"
#include "plat/plat_xsp.h"

#define END XSP_END_FACT
#define SRC "arch/x86/events/amd/uncore.c: "

/* amd_f19h_uncore_is_visible(): the L3 fields of family >= 19h (Zen 3,
 * Zen 4, Zen 5 alike); event8, umask8 (amd_uncore_l3_ctx_init) */
static const struct perf_fact amd_l3_f19h_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "coreid", "config:42-44", NULL, NULL },
	{ "enallslices", "config:46", NULL, NULL },
	{ "enallcores", "config:47", NULL, NULL },
	{ "sliceid", "config:48-50", NULL, NULL },
	{ "threadmask", "config:56-57", NULL, NULL },
	END,
};

/* PerfMonV2 DF formats (event14v2, umask12): Zen 4, Zen 5 */
static const struct perf_fact amd_df_v2_fmt[] = {
	{ "event", "config:0-7,32-37", NULL, NULL },
	{ "umask", "config:8-15,24-27", NULL, NULL },
	END,
};

/* DF formats without PerfMonV2 (event14, umask8): family 17h and 19h
 * before Zen 4, so Zen 2 and Zen 3 */
static const struct perf_fact amd_df_v1_fmt[] = {
	{ "event", "config:0-7,32-35,59-60", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	END,
};

static const struct perf_fact amd_umc_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "rdwrmask", "config:8-9", NULL, NULL },
	END,
};

/*
 * The DF's counter count (amd_uncore_df_ctx_scan()): NUM_COUNTERS_NB (4)
 * unless pmu_version >= 2, which amd_uncore_init() sets when
 * boot_cpu_has(X86_FEATURE_PERFMON_V2) - CPUID 0x80000022 EAX bit 0
 * (arch/x86/kernel/cpu/scattered.c cpuid_bits[]); then
 * cpuid_ebx(EXT_PERFMON_DEBUG_FEATURES = 0x80000022).num_df_pmc, bits
 * 15:10 of EBX (arch/x86/include/asm/perf_event.h union
 * cpuid_0x80000022_ebx: num_core_pmc:4, lbr_v2_stack_sz:6,
 * num_df_pmc:6, num_umc_pmc:6).  Zen 3 has no PerfMonV2: 4 there.
 */
const struct nctr_cpuid amd_df_nctr = {
	.feat_leaf = 0x80000022, .feat_reg = 0, .feat_bit = 0,
	.leaf = 0x80000022, .reg = 1, .lo = 10, .hi = 15,
	.what = "NumDfPmc",
	.source = SRC "amd_uncore_df_ctx_scan",
};

const struct perf_unit amd_kpmu_l3_f19h = {
	.pmu = "amd_l3",
	.source = SRC "amd_uncore_l3_ctx_init, amd_uncore_l3_event_init",
	.format = amd_l3_f19h_fmt,
};
const struct perf_unit amd_kpmu_df_v2 = {
	.pmu = "amd_df",
	.source = SRC "amd_uncore_df_ctx_init, amd_uncore_df_event_init",
	.format = amd_df_v2_fmt,
};
const struct perf_unit amd_kpmu_df_v1 = {
	.pmu = "amd_df",
	.source = SRC "amd_uncore_df_ctx_init (no PerfMonV2: event14, "
		  "umask8), amd_uncore_df_event_init",
	.format = amd_df_v1_fmt,
};
const struct perf_unit amd_kpmu_umc = {
	.pmu = "amd_umc_%u",
	.source = SRC "amd_uncore_umc_ctx_init (Linux 6.7)",
	.since = "6.7",
	.format = amd_umc_fmt,
	.f_umask = "rdwrmask",
};
