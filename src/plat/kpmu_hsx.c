/*
 * kpmu_hsx.c - the kernel PMUs of the Xeon E5/E7 v3 uncore (hsx) as
 * facts: arch/x86/events/intel/uncore_snbep.c, the "Haswell-EP uncore
 * support" block (hswep_uncore_*), and cstate.c for the C-state
 * residencies (intel_cstates_match: INTEL_HASWELL_X -> snb_cstates).
 * Read at torvalds mainline; doc/hardware-notes.md ("PMU names and
 * formats per platform") lists them with the decisions below.
 *
 * Names (uncore.c uncore_get_pmu_name()): uncore_ubox, uncore_cbox_0..17,
 * uncore_sbox_0..3, uncore_ha_0/1, uncore_imc_0..7, uncore_irp,
 * uncore_pcu, uncore_qpi_0..2, uncore_r2pcie, uncore_r3qpi_0..2.  Box
 * numbers follow the kernel's PCI ID table (hswep_uncore_pci_ids: iMC
 * channel n is the n-th entry, MC0 0x2fb0/0x2fb1/0x2fb4/0x2fb5, then
 * MC1).  The kernel has no PMU for the QPI free-running link counters.
 */
#include "config.h"

#include "plat/kpmu.h"

#define END_FACT { NULL, NULL, NULL, NULL }

/* snbep_uncore_formats_attr (HA, iMC, IRP, R2PCIe, R3QPI) */
static const struct perf_fact hsx_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	END_FACT,
};

/* hswep_uncore_ubox_formats_attr */
static const struct perf_fact hsx_ubox_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-28", NULL, NULL },
	{ "filter_tid", "config1:0", NULL, NULL },
	{ "filter_cid", "config1:5", NULL, NULL },
	END_FACT,
};

/* hswep_uncore_ubox: 2 counters of 44 bits, the UCLK fixed counter of
 * 48 bits (config 0xff, UNCORE_FIXED_EVENT). */
const struct perf_unit hsx_kpmu_ubox = {
	.pmu = "uncore_ubox",
	.source = "arch/x86/events/intel/uncore_snbep.c: hswep_uncore_ubox",
	.format = hsx_ubox_fmt,
};

const struct perf_unit hsx_kpmu_ubox_fixed = {
	.pmu = "uncore_ubox",
	.source = "arch/x86/events/intel/uncore_snbep.c: hswep_uncore_ubox "
		  ".fixed_ctr; uncore.c: uncore_pmu_event_init",
	.format = hsx_ubox_fmt,
	.fixed = "event=0xff",
};

/*
 * hswep_uncore_cbox_formats_attr.  config1 is FILTER0 in its low and
 * FILTER1 in its high 32 bits (hswep_cbox_enable_event() writes the
 * halves to 0xE05 + 0x10n and the next MSR), which is why the fields sit
 * where the manual puts them plus 32 for FILTER1.  There is no "inv"
 * field.  The kernel applies the state filter only to the LLC_LOOKUP
 * unit masks in hswep_uncore_cbox_extra_regs (0x03, 0x05, 0x09, 0x11,
 * 0x21, 0x41): the headline LLC_LOOKUP.ANY (0x11) is among them.
 */
static const struct perf_fact hsx_cbox_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "tid_en", "config:19", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	{ "filter_tid", "config1:0-5", NULL, NULL },
	{ "filter_link", "config1:6-8", NULL, NULL },
	{ "filter_state", "config1:17-23", NULL, NULL },
	{ "filter_nid", "config1:32-47", NULL, NULL },
	{ "filter_opc", "config1:52-60", NULL, NULL },
	{ "filter_nc", "config1:62", NULL, NULL },
	{ "filter_c6", "config1:61", NULL, NULL },
	{ "filter_isoc", "config1:63", NULL, NULL },
	END_FACT,
};

/* hsx_cbo's filters[0] is FILTER0 (Table 2-18), [1] FILTER1 (2-19). */
static const struct perf_filter_map hsx_cbox_filters[] = {
	{ 0, "tid", "filter_tid" },
	{ 0, "state", "filter_state" },
	{ 1, "nid", "filter_nid" },
	{ 1, "opc", "filter_opc" },
	{ 1, "nc", "filter_nc" },
	{ 1, "isoc", "filter_isoc" },
	{ 0, NULL, NULL },
};

/* hswep_uncore_cbox: 18 boxes at most (fewer: the core count), 4
 * counters of 48 bits, constraints hswep_uncore_cbox_constraints. */
const struct perf_unit hsx_kpmu_cbo = {
	.pmu = "uncore_cbox_%u",
	.source = "arch/x86/events/intel/uncore_snbep.c: hswep_uncore_cbox, "
		  "hswep_uncore_cbox_formats_attr, hswep_cbox_enable_event",
	.format = hsx_cbox_fmt,
	.filters = hsx_cbox_filters,
};

/* hswep_uncore_sbox_formats_attr; hswep_uncore_sbox: 4 boxes (2 on 6-8
 * core parts, hswep_has_limit_sbox()), 4 counters of 44 bits. */
static const struct perf_fact hsx_sbox_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "tid_en", "config:19", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	END_FACT,
};

const struct perf_unit hsx_kpmu_sbox = {
	.pmu = "uncore_sbox_%u",
	.source = "arch/x86/events/intel/uncore_snbep.c: hswep_uncore_sbox",
	.format = hsx_sbox_fmt,
};

/* hswep_uncore_ha: 2 boxes, 4 counters of 48 bits; its format has no
 * address/opcode match fields, so EVF_HA_MATCH events cannot be
 * filtered through perf. */
const struct perf_unit hsx_kpmu_ha = {
	.pmu = "uncore_ha_%u",
	.source = "arch/x86/events/intel/uncore_snbep.c: hswep_uncore_ha",
	.format = hsx_fmt,
};

/* hswep_uncore_imc_events; the CAS counts scaled to MiB (64 bytes). */
static const struct perf_fact hsx_imc_events[] = {
	{ "clockticks", "event=0x00,umask=0x00", NULL, NULL },
	{ "cas_count_read", "event=0x04,umask=0x03", "6.103515625e-5", "MiB" },
	{ "cas_count_write", "event=0x04,umask=0x0c", "6.103515625e-5", "MiB" },
	END_FACT,
};

/* hswep_uncore_imc: 8 boxes (channels), 4 counters and the DCLK fixed
 * counter, all 48 bits. */
const struct perf_unit hsx_kpmu_imc = {
	.pmu = "uncore_imc_%u",
	.source = "arch/x86/events/intel/uncore_snbep.c: hswep_uncore_imc, "
		  "hswep_uncore_imc_events",
	.format = hsx_fmt, .events = hsx_imc_events,
};

const struct perf_unit hsx_kpmu_imc_fixed = {
	.pmu = "uncore_imc_%u",
	.source = "arch/x86/events/intel/uncore_snbep.c: hswep_uncore_imc "
		  ".fixed_ctr; uncore.c: uncore_pmu_event_init",
	.format = hsx_fmt, .events = hsx_imc_events,
	.fixed = "event=0xff",
};

/* hswep_uncore_irp: 1 box, 4 counters of 48 bits. */
const struct perf_unit hsx_kpmu_irp = {
	.pmu = "uncore_irp",
	.source = "arch/x86/events/intel/uncore_snbep.c: hswep_uncore_irp",
	.format = hsx_fmt,
};

/*
 * snbep_uncore_pcu_formats_attr, which hswep_uncore_pcu uses: no umask
 * (occ_sel carries umask bits 7:6) and an "event" without bit 21, so
 * the ev_sel_ext PCU events cannot be counted through perf.  The
 * kernel's "occ_edge" reads "config:14-51" (sic).  Note: for the band
 * events (0xb..0xe) hswep_pcu_hw_config() keeps config1 & (0xff << idx)
 * where snbep_pcu_hw_config() shifts by 8 * idx: bands 1-3 get a wrong
 * filter value on hsx (doc/hardware-notes.md, "hsx PCU band filter
 * through perf").
 */
static const struct perf_fact hsx_pcu_fmt[] = {
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

static const struct perf_filter_map hsx_pcu_filters[] = {
	{ 0, "filt7_0", "filter_band0" },
	{ 0, "filt15_8", "filter_band1" },
	{ 0, "filt23_16", "filter_band2" },
	{ 0, "filt31_24", "filter_band3" },
	{ 0, NULL, NULL },
};

const struct perf_unit hsx_kpmu_pcu = {
	.pmu = "uncore_pcu",
	.source = "arch/x86/events/intel/uncore_snbep.c: hswep_uncore_pcu, "
		  "snbep_uncore_pcu_formats_attr, hswep_pcu_hw_config",
	.format = hsx_pcu_fmt,
	.filters = hsx_pcu_filters,
	.f_occ = "occ_sel",
};

/* cstate.c: one format field for all cstate PMUs. */
const struct perf_fact kpmu_cstate_format[] = {
	{ "event", "config:0-63", NULL, NULL },
	END_FACT,
};

/* snb_cstates (INTEL_HASWELL_X and INTEL_SANDYBRIDGE_X alike, so hsx
 * and snbep share these): core C3, C6, C7; package C2, C3, C6,
 * C7.  The kernel writes an events/ alias only for the MSRs its probe
 * finds (perf_msr_probe()); these are the ones this model offers. */
static const struct perf_fact snb_cstate_core_events[] = {
	{ "c3-residency", "event=0x01", NULL, NULL },
	{ "c6-residency", "event=0x02", NULL, NULL },
	{ "c7-residency", "event=0x03", NULL, NULL },
	END_FACT,
};

static const struct perf_fact snb_cstate_pkg_events[] = {
	{ "c2-residency", "event=0x00", NULL, NULL },
	{ "c3-residency", "event=0x01", NULL, NULL },
	{ "c6-residency", "event=0x02", NULL, NULL },
	{ "c7-residency", "event=0x03", NULL, NULL },
	END_FACT,
};

/* cstate_core: PERF_PMU_SCOPE_CORE, one counter per physical core. */
static const struct perf_unit hsx_kpmu_cstate_core = {
	.pmu = "cstate_core",
	.source = "arch/x86/events/intel/cstate.c: cstate_core_pmu, "
		  "snb_cstates",
	.format = kpmu_cstate_format, .events = snb_cstate_core_events,
	.events_nl = true,
};

/* cstate_pkg: PERF_PMU_SCOPE_PKG ("cstate_die" on multi-die packages). */
const struct perf_unit kpmu_snb_cstate_pkg = {
	.pmu = "cstate_pkg",
	.source = "arch/x86/events/intel/cstate.c: cstate_pkg_pmu, "
		  "snb_cstates, intel_cstates_match",
	.format = kpmu_cstate_format, .events = snb_cstate_pkg_events,
	.events_nl = true,
	.also = &hsx_kpmu_cstate_core,
};

/* snbep_uncore_qpi_formats_attr: "event" includes the ev_sel_ext bit 21
 * as its ninth bit.  config1 is RX MATCH0 (low) / MATCH1 (high), config2
 * RX MASK0 / MASK1 (snbep_qpi_enable_event() writes them, for event 0x38
 * only: snbep_qpi_hw_config()); the TX registers are not reachable. */
const struct perf_fact kpmu_snbep_qpi_format[] = {
	{ "event", "config:0-7,21", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	{ "match_rds", "config1:48-51", NULL, NULL },
	{ "match_rnid30", "config1:32-35", NULL, NULL },
	{ "match_rnid4", "config1:31", NULL, NULL },
	{ "match_dnid", "config1:13-17", NULL, NULL },
	{ "match_mc", "config1:9-12", NULL, NULL },
	{ "match_opc", "config1:5-8", NULL, NULL },
	{ "match_vnw", "config1:3-4", NULL, NULL },
	{ "match0", "config1:0-31", NULL, NULL },
	{ "match1", "config1:32-63", NULL, NULL },
	{ "mask_rds", "config2:48-51", NULL, NULL },
	{ "mask_rnid30", "config2:32-35", NULL, NULL },
	{ "mask_rnid4", "config2:31", NULL, NULL },
	{ "mask_dnid", "config2:13-17", NULL, NULL },
	{ "mask_mc", "config2:9-12", NULL, NULL },
	{ "mask_opc", "config2:5-8", NULL, NULL },
	{ "mask_vnw", "config2:3-4", NULL, NULL },
	{ "mask0", "config2:0-31", NULL, NULL },
	{ "mask1", "config2:32-63", NULL, NULL },
	END_FACT,
};

/* hsx_qpi filters: [0] RX_MATCH0, [1] RX_MATCH1, [2] RX_MASK0,
 * [3] RX_MASK1 (Table 2-167; TX [4..7] have no kernel field). */
static const struct perf_filter_map hsx_qpi_filters[] = {
	{ 0, "VNW", "match_vnw" }, { 0, "OPC", "match_opc" },
	{ 0, "MC", "match_mc" }, { 0, "DNID", "match_dnid" },
	{ 0, "RNID_4", "match_rnid4" },
	{ 1, "RNID_3_0", "match_rnid30" }, { 1, "RDS", "match_rds" },
	{ 2, "VNW", "mask_vnw" }, { 2, "OPC", "mask_opc" },
	{ 2, "MC", "mask_mc" }, { 2, "DNID", "mask_dnid" },
	{ 2, "RNID_4", "mask_rnid4" },
	{ 3, "RNID_3_0", "mask_rnid30" }, { 3, "RDS", "mask_rds" },
	{ 0, NULL, NULL },
};

/* hswep_uncore_qpi: 3 boxes, 4 counters of 48 bits, no event aliases. */
const struct perf_unit hsx_kpmu_qpi = {
	.pmu = "uncore_qpi_%u",
	.source = "arch/x86/events/intel/uncore_snbep.c: hswep_uncore_qpi, "
		  "snbep_uncore_qpi_formats_attr",
	.format = kpmu_snbep_qpi_format,
	.filters = hsx_qpi_filters,
};

/* hswep_uncore_r2pcie: 1 box, 4 counters of 48 bits. */
const struct perf_unit hsx_kpmu_r2pcie = {
	.pmu = "uncore_r2pcie",
	.source = "arch/x86/events/intel/uncore_snbep.c: hswep_uncore_r2pcie",
	.format = hsx_fmt,
};

/* hswep_uncore_r3qpi: 3 boxes, 3 counters of 44 bits. */
const struct perf_unit hsx_kpmu_r3qpi = {
	.pmu = "uncore_r3qpi_%u",
	.source = "arch/x86/events/intel/uncore_snbep.c: hswep_uncore_r3qpi",
	.format = hsx_fmt,
};
