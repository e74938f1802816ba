/*
 * plat_zen4.c - AMD EPYC Zen 4 ("zen4": Genoa, Bergamo, Siena), reached
 * through the perf backend only: the kernel's AMD uncore driver
 * (arch/x86/events/amd/uncore.c; facts in amd-perf/UNCORE-PMUS.md) owns
 * three PMUs - amd_l3 (one box per L3 complex: its cpumask names one CPU
 * per CCX), amd_df (the data fabric: one CPU per socket on current
 * kernels, per node before the June 2024 fix) and amd_umc_N (one PMU per
 * memory controller, Linux 6.7 and later, PerfMonV2), whose N counts up
 * across the sockets.  Catalog events_zen4.c from the kernel's amdzen4
 * tables.  doc/hardware-notes.md, "AMD EPYC Zen 4 (zen4)".
 */
#include "config.h"

#include "plat/plat.h"
#include "plat/plat_sim.h"
#include "plat/plat_xsp.h"
#include "plat/events_zen4.h"

#define END XSP_END_FACT
#define SRC "arch/x86/events/amd/uncore.c: "

/* amd_f19h_uncore_is_visible(): family >= 19h L3 fields */
static const struct perf_fact zen4_l3_fmt[] = {
	{ "event", "config:0-7", 0, NULL },
	{ "umask", "config:8-15", 0, NULL },
	{ "coreid", "config:42-44", 0, NULL },
	{ "enallslices", "config:46", 0, NULL },
	{ "enallcores", "config:47", 0, NULL },
	{ "sliceid", "config:48-50", 0, NULL },
	{ "threadmask", "config:56-57", 0, NULL },
	END,
};

/* PerfMonV2 DF formats (event14v2, umask12) */
static const struct perf_fact zen4_df_fmt[] = {
	{ "event", "config:0-7,32-37", 0, NULL },
	{ "umask", "config:8-15,24-27", 0, NULL },
	END,
};

static const struct perf_fact zen4_umc_fmt[] = {
	{ "event", "config:0-7", 0, NULL },
	{ "rdwrmask", "config:8-9", 0, NULL },
	END,
};

static const struct perf_unit zen4_kpmu_l3 = {
	.pmu = "amd_l3",
	.source = SRC "amd_uncore_l3_ctx_init, amd_uncore_l3_event_init",
	.format = zen4_l3_fmt,
};
static const struct perf_unit zen4_kpmu_df = {
	.pmu = "amd_df",
	.source = SRC "amd_uncore_df_ctx_init, amd_uncore_df_event_init",
	.format = zen4_df_fmt,
};
static const struct perf_unit zen4_kpmu_umc = {
	.pmu = "amd_umc_%u",
	.source = SRC "amd_uncore_umc_ctx_init (Linux 6.7)",
	.since = "6.7",
	.format = zen4_umc_fmt,
	.f_umask = "rdwrmask",
};

#define ZEN4_UNIT(nm, dsc, src, ninst, ctrs, evw, umw, kp)                  \
	.name = nm, .desc = dsc, .source = src, .kind = UNIT_PROG,          \
	.max_inst = ninst, .nctr = ctrs, .width = 48,                       \
	.fmt = { .ev_lo = 0, .ev_w = evw, .umask_lo = 8, .umask_w = umw,    \
		 .inv_bit = XSP_NONE, .edge_bit = XSP_NONE,                 \
		 .en_bit = XSP_NONE, .ovf_en_bit = XSP_NONE,                \
		 .rst_bit = XSP_NONE },                                     \
	.global_ovf_bit = XSP_NONE, .max_rate = XSP_MAX_RATE, .perf = &(kp)

/*
 * Counters: L3 6 (NUM_COUNTERS_L3); DF: the kernel takes PerfMonV2's
 * count from CPUID (num_df_pmc), uncored places at most 4, the count
 * without PerfMonV2 (NUM_COUNTERS_NB); UMC: the group's CPUID count
 * divided among the active UMCs, uncored places at most 2 (CAS reads and
 * writes).  Counters are 48 bits (COUNTER_SHIFT 16); UMC counters
 * saturate at bit 47 (amd_uncore_umc_read()).  Boxes: 16 L3 complexes
 * (Bergamo: 8 CCDs of 2 CCX), 12 UMCs per socket.
 */
static const struct unit_type zen4_l3 = {
	ZEN4_UNIT("l3", "L3 cache complex (CCX)", SRC "amd_uncore_l3_ctx_scan",
		  16, 6, 8, 8, zen4_kpmu_l3),
};
static const struct unit_type zen4_df = {
	ZEN4_UNIT("df", "Data fabric", SRC "amd_uncore_df_ctx_scan", 1, 4, 14,
		  12, zen4_kpmu_df),
};
static const struct unit_type zen4_umc = {
	ZEN4_UNIT("umc", "Unified memory controller (one per DRAM channel)",
		  SRC "amd_uncore_umc_ctx_scan", 12, 2, 8, 2, zen4_kpmu_umc),
};

static const struct unit_type *const zen4_units[] = {
	&zen4_l3, &zen4_df, &zen4_umc, NULL,
};

/* arch/x86/kernel/cpu/amd.c: family 0x19 models 0x10-0x1f and 0x60-0xaf
 * are Zen 4 (X86_FEATURE_ZEN4); the EPYC ones are 0x10-0x1f (Genoa) and
 * 0xa0-0xaf (Bergamo, Siena); 0x60-0x7f are Ryzen clients. */
#define M4(b) { 0x19, (b), 0, 0 }, { 0x19, (b) + 1, 0, 0 }, \
	{ 0x19, (b) + 2, 0, 0 }, { 0x19, (b) + 3, 0, 0 }
static const struct cpu_match zen4_cpus[] = {
	M4(0x10), M4(0x14), M4(0x18), M4(0x1c),
	M4(0xa0), M4(0xa4), M4(0xa8), M4(0xac),
	{ 0, 0, 0, 0 },
};

static const char *const zen4_baseline[] = {
	"l3_lookup_state.all_coherent_accesses_to_l3",
	"l3_lookup_state.l3_miss",
	"umc_cas_cmd.rd", "umc_cas_cmd.wr",
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
