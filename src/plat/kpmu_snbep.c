/*
 * kpmu_snbep.c - the kernel PMUs of the Xeon E5-2600/4600 v1 uncore
 * (snbep) as facts: arch/x86/events/intel/uncore_snbep.c, the "Sandy
 * Bridge-EP uncore support" block (snbep_uncore_*), and cstate.c
 * (intel_cstates_match: INTEL_SANDYBRIDGE_X -> snb_cstates).  Read at
 * torvalds mainline; doc/hardware-notes.md ("PMU names and formats per
 * platform") lists them.
 *
 * Names (uncore.c uncore_get_pmu_name()): uncore_ubox, uncore_cbox_0..7,
 * uncore_pcu, uncore_ha (one box: no number), uncore_imc_0..3,
 * uncore_qpi_0/1, uncore_r2pcie, uncore_r3qpi_0/1.
 */
#include "config.h"

#include "plat/kpmu.h"

#define END_FACT { NULL, NULL, NULL, NULL }

/* snbep_uncore_formats_attr (HA, iMC, R2PCIe, R3QPI) */
static const struct perf_fact snbep_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	END_FACT,
};

/* snbep_uncore_ubox_formats_attr; snbep_uncore_ubox: 2 counters of 44
 * bits, the UCLK fixed counter of 48 (config 0xff). */
static const struct perf_fact snbep_ubox_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-28", NULL, NULL },
	END_FACT,
};

const struct perf_unit snbep_kpmu_ubox = {
	.pmu = "uncore_ubox",
	.source = "arch/x86/events/intel/uncore_snbep.c: snbep_uncore_ubox",
	.format = snbep_ubox_fmt,
};

const struct perf_unit snbep_kpmu_ubox_fixed = {
	.pmu = "uncore_ubox",
	.source = "arch/x86/events/intel/uncore_snbep.c: snbep_uncore_ubox "
		  ".fixed_ctr; uncore.c: uncore_pmu_event_init",
	.format = snbep_ubox_fmt,
	.fixed = "event=0xff",
};

/* snbep_uncore_cbox_formats_attr: config1 is the one CBo filter
 * register, field for field (SNBEP_CB0_MSR_PMON_BOX_FILTER_*); the
 * state filter applies to the LLC_LOOKUP unit masks of
 * snbep_uncore_cbox_extra_regs (0x03 DATA_READ among them). */
static const struct perf_fact snbep_cbox_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "tid_en", "config:19", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	{ "filter_tid", "config1:0-4", NULL, NULL },
	{ "filter_nid", "config1:10-17", NULL, NULL },
	{ "filter_state", "config1:18-22", NULL, NULL },
	{ "filter_opc", "config1:23-31", NULL, NULL },
	END_FACT,
};

static const struct perf_filter_map snbep_cbox_filters[] = {
	{ 0, "tid", "filter_tid" },
	{ 0, "nid", "filter_nid" },
	{ 0, "state", "filter_state" },
	{ 0, "opc", "filter_opc" },
	{ 0, NULL, NULL },
};

/* snbep_uncore_cbox: 8 boxes at most (fewer: the core count), 4
 * counters of 44 bits, constraints snbep_uncore_cbox_constraints. */
const struct perf_unit snbep_kpmu_cbo = {
	.pmu = "uncore_cbox_%u",
	.source = "arch/x86/events/intel/uncore_snbep.c: snbep_uncore_cbox, "
		  "snbep_uncore_cbox_formats_attr, snbep_cbox_hw_config",
	.format = snbep_cbox_fmt,
	.filters = snbep_cbox_filters,
};

/* snbep_uncore_ha: one box (so "uncore_ha"), 4 counters of 48 bits; no
 * match fields in its format. */
const struct perf_unit snbep_kpmu_ha = {
	.pmu = "uncore_ha",
	.source = "arch/x86/events/intel/uncore_snbep.c: snbep_uncore_ha",
	.format = snbep_fmt,
};

/* snbep_uncore_imc_events: here "clockticks" is the fixed counter
 * (0xff), unlike hsx's programmable event 0x00. */
static const struct perf_fact snbep_imc_events[] = {
	{ "clockticks", "event=0xff,umask=0x00", NULL, NULL },
	{ "cas_count_read", "event=0x04,umask=0x03", "6.103515625e-5", "MiB" },
	{ "cas_count_write", "event=0x04,umask=0x0c", "6.103515625e-5", "MiB" },
	END_FACT,
};

/* snbep_uncore_imc: 4 boxes (channels), 4 counters and the DCLK fixed
 * counter, 48 bits. */
const struct perf_unit snbep_kpmu_imc = {
	.pmu = "uncore_imc_%u",
	.source = "arch/x86/events/intel/uncore_snbep.c: snbep_uncore_imc, "
		  "snbep_uncore_imc_events",
	.format = snbep_fmt, .events = snbep_imc_events,
};

const struct perf_unit snbep_kpmu_imc_fixed = {
	.pmu = "uncore_imc_%u",
	.source = "arch/x86/events/intel/uncore_snbep.c: snbep_uncore_imc "
		  ".fixed_ctr; uncore.c: uncore_pmu_event_init",
	.format = snbep_fmt, .events = snbep_imc_events,
	.fixed = "event=0xff",
};

/* snbep_uncore_pcu_formats_attr (see kpmu_hsx.c); snbep_pcu_hw_config()
 * places band n's filter byte at 8n, as the register has it. */
static const struct perf_fact snbep_pcu_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "occ_sel", "config:14-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-28", NULL, NULL },
	{ "occ_invert", "config:30", NULL, NULL },
	{ "occ_edge", "config:14-51", NULL, NULL },
	{ "filter_band0", "config1:0-7", NULL, NULL },
	{ "filter_band1", "config1:8-15", NULL, NULL },
	{ "filter_band2", "config1:16-23", NULL, NULL },
	{ "filter_band3", "config1:24-31", NULL, NULL },
	END_FACT,
};

static const struct perf_filter_map snbep_pcu_filters[] = {
	{ 0, "band0", "filter_band0" },
	{ 0, "band1", "filter_band1" },
	{ 0, "band2", "filter_band2" },
	{ 0, "band3", "filter_band3" },
	{ 0, NULL, NULL },
};

/* snbep_uncore_pcu: 1 box, 4 counters of 48 bits. */
const struct perf_unit snbep_kpmu_pcu = {
	.pmu = "uncore_pcu",
	.source = "arch/x86/events/intel/uncore_snbep.c: snbep_uncore_pcu, "
		  "snbep_uncore_pcu_formats_attr, snbep_pcu_hw_config",
	.format = snbep_pcu_fmt,
	.filters = snbep_pcu_filters,
	.f_occ = "occ_sel",
};

/* The PCU's C-state residencies are cstate.c's snb_cstates for
 * INTEL_SANDYBRIDGE_X as for INTEL_HASWELL_X: kpmu_snb_cstate_pkg; the
 * QPI format is snbep_uncore_qpi_formats_attr, which hsx shares:
 * kpmu_snbep_qpi_format (kpmu_hsx.c). */
static const struct perf_fact snbep_qpi_events[] = {
	{ "clockticks", "event=0x14", NULL, NULL },
	{ "txl_flits_active", "event=0x00,umask=0x06", NULL, NULL },
	{ "drs_data", "event=0x102,umask=0x08", NULL, NULL },
	{ "ncb_data", "event=0x103,umask=0x04", NULL, NULL },
	END_FACT,
};

/* snbep_qpi filters: [0] MATCH0, [1] MATCH1, [2] MASK0, [3] MASK1. */
static const struct perf_filter_map snbep_qpi_filters[] = {
	{ 0, "vnw", "match_vnw" }, { 0, "opc", "match_opc" },
	{ 0, "mc", "match_mc" }, { 0, "dnid", "match_dnid" },
	{ 0, "rnid_4", "match_rnid4" },
	{ 1, "rnid_3_0", "match_rnid30" }, { 1, "rds", "match_rds" },
	{ 2, "vnw", "mask_vnw" }, { 2, "opc", "mask_opc" },
	{ 2, "mc", "mask_mc" }, { 2, "dnid", "mask_dnid" },
	{ 2, "rnid_4", "mask_rnid4" },
	{ 3, "rnid_3_0", "mask_rnid30" }, { 3, "rds", "mask_rds" },
	{ 0, NULL, NULL },
};

/* snbep_uncore_qpi: 2 boxes, 4 counters of 48 bits. */
const struct perf_unit snbep_kpmu_qpi = {
	.pmu = "uncore_qpi_%u",
	.source = "arch/x86/events/intel/uncore_snbep.c: snbep_uncore_qpi, "
		  "snbep_uncore_qpi_events",
	.format = kpmu_snbep_qpi_format, .events = snbep_qpi_events,
	.filters = snbep_qpi_filters,
};

/* snbep_uncore_r2pcie: 1 box, 4 counters of 44 bits. */
const struct perf_unit snbep_kpmu_r2pcie = {
	.pmu = "uncore_r2pcie",
	.source = "arch/x86/events/intel/uncore_snbep.c: snbep_uncore_r2pcie",
	.format = snbep_fmt,
};

/* snbep_uncore_r3qpi: 2 boxes, 3 counters of 44 bits. */
const struct perf_unit snbep_kpmu_r3qpi = {
	.pmu = "uncore_r3qpi_%u",
	.source = "arch/x86/events/intel/uncore_snbep.c: snbep_uncore_r3qpi",
	.format = snbep_fmt,
};
