/*
 * plat_snbep.c - the Xeon E5-2600/4600 v1 uncore ("snbep", Sandy
 * Bridge-EP, "Jaketown") as data.
 *
 * Sources (doc/hardware-notes.md, section "Xeon E5-2600/4600 v1 (snbep)",
 * cites each fact and records where they disagree):
 *  - 327043: Intel Xeon Processor E5-2600 Product Family Uncore
 *    Performance Monitoring Guide, 327043-001 (March 2012).  Its UBox
 *    pages (Tables 2-2, 2-3) are the E5-2600 v1 uncore guide (327043-001);
 *    other pages were read from public copies ("327043 p.N").
 *  - kernel: Linux arch/x86/events/intel/uncore_snbep.c (SNBEP_* defines,
 *    the snbep_uncore_* types, snbep_uncore_pci_ids).
 *  - likwid: RRZE-HPC/likwid, the sandybridgeEP PCI device table (the
 *    Dev:Fn of every PCI PMON box, which neither 327043's pages here nor
 *    the kernel give for the R3QPI links and the QPI match/mask devices).
 * Facts, not code: nothing here is copied.
 *
 * Per socket: the UBox (two 44-bit counters and the UCLK fixed counter;
 * no box control, no global control, no global status), up to 8 CBos (one
 * box filter each) and the PCU (band filter, two free-running C-state
 * counters) in MSR space; one HA, four iMC channels (each with a DCLK
 * fixed counter), two QPI ports (match/mask in a separate function), the
 * R2PCIe and two R3QPI links in the PCI configuration space of the
 * socket's uncore bus.
 *
 * There is no global control: the platform's global_ctl.layout is NULL,
 * and freezing is one write of frz | frz_en to every box control
 * (plat_freeze_boxes()); every other box-control write carries frz_en
 * (box_ctl_must1), because frz only acts while frz_en is set and 327043
 * prints frz_en write-only (notes: "Box control (every box but the
 * UBox)").  The UBox cannot be frozen at all: its counters are read while
 * counting, which 327043 allows ("software can continuously read the
 * data registers without disabling event collection", 2.2.3.2).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "plat/plat.h"
#include "plat/plat_snbep.h"
#include "plat/plat_sim.h"
#include "plat/kpmu.h"
#include "plat/events_snbep.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NONE 0xff
#define LAYOUT(var, nm, src, nbits, flds) \
	static const struct reg_layout var = { \
		.name = nm, .source = src, .bits = nbits, .fields = flds, \
		.nfields = ARRAY_SIZE(flds) }

/*
 * Upper bounds of event rates for the wrap and plausibility checks (the
 * same reasoning as hsx, notes "Wrap-time bounds (hsx)"): a 5 GHz clock
 * bound times the largest increment per cycle.  An event with a stated
 * increment (the catalog's max_inc, from 327043's event tables where
 * their pages were read: notes "Maximum increments (snbep)") gets its
 * own bound (plat_event_max_rate()); the others their box's, which is
 * the largest increment any event of the box's catalog can make
 * (test_sampler checks that no event's bound exceeds its box's).
 */
#define SNBEP_MAX_CLK_HZ 5.0e9
#define SNBEP_RATE(inc) ((inc) * SNBEP_MAX_CLK_HZ)

/* ---- box control ----------------------------------------------------- */

/*
 * 327043 Tables 2-9 (CBo), 2-60 (iMC), 2-74 (PCU), 2-85 (QPI); the kernel
 * uses the same bits in its HA, R2PCIe and R3QPI boxes: rst_ctrl 0,
 * rst_ctrs 1, frz 8, frz_en 16, all write-only; 17 "SW must write to 0".
 */
static const struct reg_field snbep_box_ctl_fields[] = {
	{ "rst_ctrl", 0, 0, ACC_WO },
	{ "rst_ctrs", 1, 1, ACC_WO },
	{ "rsv", 2, 7, ACC_RSV },
	{ "frz", 8, 8, ACC_WO },
	{ "rsv", 9, 15, ACC_RSV },
	{ "frz_en", 16, 16, ACC_WO },
	{ "rsv", 17, 31, ACC_RSV },
};
LAYOUT(snbep_cbo_box_ctl, "Cn_MSR_PMON_BOX_CTL", "327043 Table 2-9", 32,
       snbep_box_ctl_fields);
LAYOUT(snbep_pcu_box_ctl, "PCU_MSR_PMON_BOX_CTL", "327043 Table 2-74", 32,
       snbep_box_ctl_fields);
LAYOUT(snbep_ha_box_ctl, "HA_PCI_PMON_BOX_CTL", "327043 Table 2-33", 32,
       snbep_box_ctl_fields);
LAYOUT(snbep_imc_box_ctl, "MC_CHy_PCI_PMON_BOX_CTL", "327043 Table 2-60",
       32, snbep_box_ctl_fields);
LAYOUT(snbep_qpi_box_ctl, "Q_Py_PCI_PMON_BOX_CTL", "327043 Table 2-85", 32,
       snbep_box_ctl_fields);
LAYOUT(snbep_r2_box_ctl, "R2_PCI_PMON_BOX_CTL", "kernel SNBEP_PCI_PMON_BOX_CTL",
       32, snbep_box_ctl_fields);
LAYOUT(snbep_r3_box_ctl, "R3_Ly_PCI_PMON_BOX_CTL",
       "kernel SNBEP_PCI_PMON_BOX_CTL", 32, snbep_box_ctl_fields);

/* ---- counter control registers --------------------------------------- */

/* 327043 Table 2-2 (the manual fragment): U_MSR_PMON_CTL{1-0}. */
static const struct reg_field snbep_ubox_ctl_fields[] = {
	{ "ev_sel", 0, 7, ACC_RW },
	{ "umask", 8, 15, ACC_RW },
	{ "rsv", 16, 16, ACC_RSV },
	{ "rst", 17, 17, ACC_WO },
	{ "edge_det", 18, 18, ACC_RW },
	{ "rsv", 19, 19, ACC_RSV },
	{ "rsv", 20, 21, ACC_RSV },	/* "SW must write to 0" */
	{ "en", 22, 22, ACC_RW },
	{ "invert", 23, 23, ACC_RW },
	{ "thresh", 24, 28, ACC_RW },
	{ "rsv", 29, 31, ACC_RSV },
};
LAYOUT(snbep_ubox_ctl, "U_MSR_PMON_CTL{1-0}", "327043 Table 2-2", 32,
       snbep_ubox_ctl_fields);

/* 327043 Table 2-4: U_MSR_PMON_UCLK_FIXED_CTL, en 22 only. */
static const struct reg_field snbep_ubox_fixed_ctl_fields[] = {
	{ "rsv", 0, 21, ACC_RSV },
	{ "en", 22, 22, ACC_RW },
	{ "rsv", 23, 31, ACC_RSV },
};
LAYOUT(snbep_ubox_fixed_ctl, "U_MSR_PMON_UCLK_FIXED_CTL", "327043 Table 2-4",
       32, snbep_ubox_fixed_ctl_fields);

/* 327043 Table 2-10 (p.28): Cn_MSR_PMON_CTL{3-0}, tid_en 19. */
static const struct reg_field snbep_cbo_ctl_fields[] = {
	{ "ev_sel", 0, 7, ACC_RW },
	{ "umask", 8, 15, ACC_RW },
	{ "rsv", 16, 16, ACC_RSV },
	{ "rst", 17, 17, ACC_WO },
	{ "edge_det", 18, 18, ACC_RW },
	{ "tid_en", 19, 19, ACC_RW },
	{ "rsv", 20, 21, ACC_RSV },
	{ "en", 22, 22, ACC_RW },
	{ "invert", 23, 23, ACC_RW },
	{ "thresh", 24, 31, ACC_RW },
};
LAYOUT(snbep_cbo_ctl, "Cn_MSR_PMON_CTL{3-0}", "327043 Table 2-10", 32,
       snbep_cbo_ctl_fields);

/*
 * PCU_MSR_PMON_CTL{3-0} (kernel SNBEP_PCU_MSR_PMON_CTL_*; PCM
 * PCU_MSR_PMON_CTL_EXTRA_SEL): occ_sel 15:14 (the catalog's umask bits
 * 7:6, so the umask is placed at 8 and 13:8 stay reserved, as hsx),
 * ev_sel_ext 21, a 5-bit threshold, occ_invert 30, occ_edge_det 31.
 */
static const struct reg_field snbep_pcu_ctl_fields[] = {
	{ "ev_sel", 0, 7, ACC_RW },
	{ "rsv", 8, 13, ACC_RSV },
	{ "occ_sel", 14, 15, ACC_RW },
	{ "rsv", 16, 16, ACC_RSV },
	{ "rst", 17, 17, ACC_WO },
	{ "edge_det", 18, 18, ACC_RW },
	{ "rsv", 19, 20, ACC_RSV },
	{ "ev_sel_ext", 21, 21, ACC_RW },
	{ "en", 22, 22, ACC_RW },
	{ "invert", 23, 23, ACC_RW },
	{ "thresh", 24, 28, ACC_RW },
	{ "rsv", 29, 29, ACC_RSV },
	{ "occ_invert", 30, 30, ACC_RW },
	{ "occ_edge_det", 31, 31, ACC_RW },
};
LAYOUT(snbep_pcu_ctl, "PCU_MSR_PMON_CTL{3-0}", "kernel SNBEP_PCU_MSR_PMON_CTL",
       32, snbep_pcu_ctl_fields);

/* 327043 p.48 (Table 2-35): HA_PCI_PMON_CTL{3-0}; 17:16 reserved. */
static const struct reg_field snbep_ha_ctl_fields[] = {
	{ "ev_sel", 0, 7, ACC_RW },
	{ "umask", 8, 15, ACC_RW },
	{ "rsv", 16, 17, ACC_RSV },
	{ "edge_det", 18, 18, ACC_RW },
	{ "rsv", 19, 21, ACC_RSV },
	{ "en", 22, 22, ACC_RW },
	{ "invert", 23, 23, ACC_RW },
	{ "thresh", 24, 31, ACC_RW },
};
LAYOUT(snbep_ha_ctl, "HA_PCI_PMON_CTL{3-0}", "327043 Table 2-35", 32,
       snbep_ha_ctl_fields);

/* The common PCI layout (kernel SNBEP_PMON_RAW_EVENT_MASK): iMC, R3QPI;
 * R2PCIe (327043 Table 2-106) reserves 21:19 the same way. */
static const struct reg_field snbep_pci_ctl_fields[] = {
	{ "ev_sel", 0, 7, ACC_RW },
	{ "umask", 8, 15, ACC_RW },
	{ "rsv", 16, 16, ACC_RSV },
	{ "rst", 17, 17, ACC_WO },
	{ "edge_det", 18, 18, ACC_RW },
	{ "rsv", 19, 21, ACC_RSV },
	{ "en", 22, 22, ACC_RW },
	{ "invert", 23, 23, ACC_RW },
	{ "thresh", 24, 31, ACC_RW },
};
LAYOUT(snbep_imc_ctl, "MC_CHy_PCI_PMON_CTL{3-0}", "kernel SNBEP_PMON_CTL",
       32, snbep_pci_ctl_fields);
LAYOUT(snbep_r2_ctl, "R2_PCI_PMON_CTL{3-0}", "327043 Table 2-106", 32,
       snbep_pci_ctl_fields);
LAYOUT(snbep_r3_ctl, "R3_Ly_PCI_PMON_CTL{2-0}", "kernel SNBEP_PMON_CTL", 32,
       snbep_pci_ctl_fields);

/* 327043 Table 2-86 (p.89-90): Q_Py_PCI_PMON_CTL{3-0}, ev_sel_ext 21. */
static const struct reg_field snbep_qpi_ctl_fields[] = {
	{ "ev_sel", 0, 7, ACC_RW },
	{ "umask", 8, 15, ACC_RW },
	{ "rsv", 16, 16, ACC_RSV },
	{ "rst", 17, 17, ACC_WO },
	{ "edge_det", 18, 18, ACC_RW },
	{ "rsv", 19, 20, ACC_RSV },
	{ "ev_sel_ext", 21, 21, ACC_RW },
	{ "en", 22, 22, ACC_RW },
	{ "invert", 23, 23, ACC_RW },
	{ "thresh", 24, 31, ACC_RW },
};
LAYOUT(snbep_qpi_ctl, "Q_Py_PCI_PMON_CTL{3-0}", "327043 Table 2-86", 32,
       snbep_qpi_ctl_fields);

/* MC_CHy_PCI_PMON_FIXED_CTL (0xF0, 327043 Table 2-59): en 22, rst 19
 * (PCM MC_CH_PCI_PMON_FIXED_CTL_EN / _RST). */
static const struct reg_field snbep_imc_fixed_ctl_fields[] = {
	{ "rsv", 0, 18, ACC_RSV },
	{ "rst", 19, 19, ACC_WO },
	{ "rsv", 20, 21, ACC_RSV },
	{ "en", 22, 22, ACC_RW },
	{ "rsv", 23, 31, ACC_RSV },
};
LAYOUT(snbep_imc_fixed_ctl, "MC_CHy_PCI_PMON_FIXED_CTL", "327043 Table 2-59",
       32, snbep_imc_fixed_ctl_fields);

/* ---- counters -------------------------------------------------------- */

/* 44-bit counters: UBox 327043 Table 2-3, UBox fixed Table 2-5 (printed
 * 43:0; notes "Counter widths"), CBo p.28, R2PCIe p.113, R3QPI (kernel). */
static const struct reg_field snbep_ctr44_fields[] = {
	{ "event_count", 0, 43, ACC_RW },
	{ "rsv", 44, 63, ACC_RSV },
};
LAYOUT(snbep_ubox_ctr, "U_MSR_PMON_CTR{1-0}", "327043 Table 2-3", 64,
       snbep_ctr44_fields);
LAYOUT(snbep_ubox_fixed_ctr, "U_MSR_PMON_UCLK_FIXED_CTR", "327043 Table 2-5",
       64, snbep_ctr44_fields);
LAYOUT(snbep_cbo_ctr, "Cn_MSR_PMON_CTR{3-0}", "327043 p.28", 64,
       snbep_ctr44_fields);
LAYOUT(snbep_r2_ctr, "R2_PCI_PMON_CTR{3-0}", "327043 p.113", 64,
       snbep_ctr44_fields);
LAYOUT(snbep_r3_ctr, "R3_Ly_PCI_PMON_CTR{2-0}", "kernel perf_ctr_bits 44",
       64, snbep_ctr44_fields);

/* 48-bit counters: PCU (kernel), HA 327043 Table 2-36, iMC (kernel; the
 * fixed counter too), QPI p.90.  PCI counters are two dwords, low
 * first. */
static const struct reg_field snbep_ctr48_fields[] = {
	{ "event_count", 0, 47, ACC_RW },
	{ "rsv", 48, 63, ACC_RSV },
};
LAYOUT(snbep_pcu_ctr, "PCU_MSR_PMON_CTR{3-0}", "kernel perf_ctr_bits 48", 64,
       snbep_ctr48_fields);
LAYOUT(snbep_ha_ctr, "HA_PCI_PMON_CTR{3-0}", "327043 Table 2-36", 64,
       snbep_ctr48_fields);
LAYOUT(snbep_imc_ctr, "MC_CHy_PCI_PMON_CTR{FIXED,3-0}", "327043 Table 2-59",
       64, snbep_ctr48_fields);
LAYOUT(snbep_qpi_ctr, "Q_Py_PCI_PMON_CTR{3-0}", "327043 p.90", 64,
       snbep_ctr48_fields);

/* ---- filters --------------------------------------------------------- */

/* Cn_MSR_PMON_BOX_FILTER (327043 2.3.3.3; kernel
 * SNBEP_CB0_MSR_PMON_BOX_FILTER_*): tid 4:0, nid 17:10, state 22:18
 * (F M E S I, I = bit 18), opc 31:23. */
static const struct reg_field snbep_cbo_filter_fields[] = {
	{ "tid", 0, 4, ACC_RW },
	{ "rsv", 5, 9, ACC_RSV },
	{ "nid", 10, 17, ACC_RW },
	{ "state", 18, 22, ACC_RW },
	{ "opc", 23, 31, ACC_RW },
};
LAYOUT(snbep_cbo_filter, "Cn_MSR_PMON_BOX_FILTER", "327043 2.3.3.3", 32,
       snbep_cbo_filter_fields);

/* PCU_MSR_PMON_BOX_FILTER (0xC34, 327043 p.73): four 8-bit bands. */
static const struct reg_field snbep_pcu_filter_fields[] = {
	{ "band0", 0, 7, ACC_RW },
	{ "band1", 8, 15, ACC_RW },
	{ "band2", 16, 23, ACC_RW },
	{ "band3", 24, 31, ACC_RW },
};
LAYOUT(snbep_pcu_filter, "PCU_MSR_PMON_BOX_FILTER", "327043 p.73", 32,
       snbep_pcu_filter_fields);

/* HA match (327043 p.48: Table 2-37 OPCODEMATCH, Table 2-38 ADDRMATCH1;
 * ADDRMATCH0's table follows on a page not read: its fields as the kernel
 * SNBEP_HA_PCI_PMON_BOX_ADDRMATCH0 and the E5 v2 guide, 329468-002 2.4.2,
 * give them; notes "Citations"). */
static const struct reg_field snbep_ha_addr0_fields[] = {
	{ "rsv", 0, 5, ACC_RSV },
	{ "lo_addr", 6, 31, ACC_RW },
};
LAYOUT(snbep_ha_addrmatch0, "HA_PCI_PMON_BOX_ADDRMATCH0",
       "kernel SNBEP_HA_PCI_PMON_BOX_ADDRMATCH0; 329468-002 2.4.2", 32,
       snbep_ha_addr0_fields);
static const struct reg_field snbep_ha_addr1_fields[] = {
	{ "hi_addr", 0, 13, ACC_RW },
	{ "rsv", 14, 31, ACC_RSV },
};
LAYOUT(snbep_ha_addrmatch1, "HA_PCI_PMON_BOX_ADDRMATCH1", "327043 Table 2-38",
       32, snbep_ha_addr1_fields);
static const struct reg_field snbep_ha_opc_fields[] = {
	{ "opc", 0, 5, ACC_RW },
	{ "rsv", 6, 31, ACC_RSV },
};
LAYOUT(snbep_ha_opcodematch, "HA_PCI_PMON_BOX_OPCODEMATCH",
       "327043 Table 2-37", 32, snbep_ha_opc_fields);

/* QPI packet match/mask (327043 Tables 2-88..2-91, p.92). */
static const struct reg_field snbep_qpi_m0_fields[] = {
	{ "rsv", 0, 2, ACC_RSV },
	{ "vnw", 3, 4, ACC_RW },
	{ "opc", 5, 8, ACC_RW },
	{ "mc", 9, 12, ACC_RW },
	{ "dnid", 13, 17, ACC_RW },
	{ "rsv", 18, 30, ACC_RSV },
	{ "rnid_4", 31, 31, ACC_RW },
};
LAYOUT(snbep_qpi_match0, "Q_Py_PCI_PMON_PKT_MATCH0", "327043 Table 2-88", 32,
       snbep_qpi_m0_fields);
LAYOUT(snbep_qpi_mask0, "Q_Py_PCI_PMON_PKT_MASK0", "327043 Table 2-91", 32,
       snbep_qpi_m0_fields);
static const struct reg_field snbep_qpi_m1_fields[] = {
	{ "rnid_3_0", 0, 3, ACC_RW },
	{ "rsv", 4, 15, ACC_RSV },
	{ "rds", 16, 19, ACC_RW },
	{ "rsv", 20, 31, ACC_RSV },
};
LAYOUT(snbep_qpi_match1, "Q_Py_PCI_PMON_PKT_MATCH1", "327043 Table 2-89", 32,
       snbep_qpi_m1_fields);
LAYOUT(snbep_qpi_mask1, "Q_Py_PCI_PMON_PKT_MASK1", "327043 Table 2-90", 32,
       snbep_qpi_m1_fields);

/* ---- event-select formats -------------------------------------------- */

/* UBox (Table 2-2): 5-bit threshold, no ov_en. */
#define SNBEP_UBOX_FMT { \
	.ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = 8, \
	.thresh_lo = 24, .thresh_w = 5, .inv_bit = 23, .edge_bit = 18, \
	.en_bit = 22, .ovf_en_bit = NONE, .rst_bit = 17 }
/* CBo, iMC, QPI, R2PCIe, R3QPI: 8-bit threshold, no ov_en in use. */
#define SNBEP_FMT { \
	.ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = 8, \
	.thresh_lo = 24, .thresh_w = 8, .inv_bit = 23, .edge_bit = 18, \
	.en_bit = 22, .ovf_en_bit = NONE, .rst_bit = 17 }
/* HA: no rst bit (17:16 reserved, Table 2-35). */
#define SNBEP_HA_FMT { \
	.ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = 8, \
	.thresh_lo = 24, .thresh_w = 8, .inv_bit = 23, .edge_bit = 18, \
	.en_bit = 22, .ovf_en_bit = NONE, .rst_bit = NONE }
/* PCU: the "umask" is occ_sel (umask bits 7:6 at 15:14); 5-bit thresh. */
#define SNBEP_PCU_FMT { \
	.ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = 8, \
	.thresh_lo = 24, .thresh_w = 5, .inv_bit = 23, .edge_bit = 18, \
	.en_bit = 22, .ovf_en_bit = NONE, .rst_bit = 17 }
#define SNBEP_FIXED_FMT(rst) { \
	.inv_bit = NONE, .edge_bit = NONE, .en_bit = 22, \
	.ovf_en_bit = NONE, .rst_bit = (rst) }
#define SNBEP_NO_FMT { .inv_bit = NONE, .edge_bit = NONE, .en_bit = NONE, \
	.ovf_en_bit = NONE, .rst_bit = NONE }

/* ---- unit types: MSR space ------------------------------------------- */

/* UBox: U_MSR_PMON_CTL0/1 0xC10/0xC11, CTR0/1 0xC16/0xC17 (kernel
 * SNBEP_U_MSR_PMON_*); no box control, no box status, no global bit. */
static const struct unit_type snbep_ubox = {
	.name = "ubox",
	.desc = "UBox: system configuration controller (message channel, interrupts, locks)",
	.source = "327043 Tables 2-2, 2-3; kernel SNBEP_U_MSR_PMON_CTL0/CTR0",
	.kind = UNIT_PROG,
	.space = HW_MSR,
	.max_inst = 1,
	.base = 0xC10, .inst_stride = 0,
	.nctr = 2, .width = 44,
	.ctl_off = 0x0, .ctl_stride = 1,
	.ctr_off = 0x6, .ctr_stride = 1,
	.ctl_layout = &snbep_ubox_ctl,
	.ctr_layout = &snbep_ubox_ctr,
	.fmt = SNBEP_UBOX_FMT,
	.global_ovf_bit = NONE,
	.max_rate = SNBEP_RATE(1),	/* Table 2-2 note: 1 per cycle */
	.max_clk_hz = SNBEP_MAX_CLK_HZ,
	.perf = &snbep_kpmu_ubox,
};

/* UBox UCLK fixed counter: control 0xC08, counter 0xC09 (kernel
 * SNBEP_U_MSR_PMON_UCLK_FIXED_*; layouts 327043 Tables 2-4/2-5). */
static const struct unit_type snbep_ubox_fixed = {
	.name = "ubox_fixed",
	.desc = "UBox fixed counter: uncore clock (UCLK) cycles",
	.source = "327043 Tables 2-4, 2-5; kernel SNBEP_U_MSR_PMON_UCLK_FIXED_CTL",
	.kind = UNIT_FIXED,
	.space = HW_MSR,
	.max_inst = 1,
	.base = 0xC08, .inst_stride = 0,
	.nctr = 1, .width = 44,
	.ctl_off = 0x0, .ctl_stride = 0,
	.ctr_off = 0x1, .ctr_stride = 0,
	.ctl_layout = &snbep_ubox_fixed_ctl,
	.ctr_layout = &snbep_ubox_fixed_ctr,
	.fmt = SNBEP_FIXED_FMT(NONE),
	.global_ovf_bit = NONE,
	.max_rate = SNBEP_MAX_CLK_HZ,
	.perf = &snbep_kpmu_ubox_fixed,
};

static const struct unit_filter snbep_cbo_filters[] = {
	{ "Cn_MSR_PMON_BOX_FILTER", EVF_FILTER0, 0x10, NULL, NULL,
	  &snbep_cbo_filter },
};

/*
 * CBo n: base 0xD04 + 0x20n (kernel SNBEP_C0_MSR_PMON_BOX_CTL,
 * SNBEP_CBO_MSR_OFFSET; 327043 p.27): BOX_CTL +0, CTL0-3 +0xC..+0xF,
 * BOX_FILTER +0x10, CTR0-3 +0x12..+0x15.  The occupancy events add up
 * to 20 a cycle (327043 Table 2-14: RxR_OCCUPANCY, COUNTER0_OCCUPANCY,
 * ISMQ_DRD_MISS_OCC), the others 1.
 */
static const struct unit_type snbep_cbo = {
	.name = "cbo",
	.desc = "C-Box: LLC slice and coherency engine",
	.source = "327043 p.27-28; kernel SNBEP_C0_MSR_PMON_*",
	.kind = UNIT_PROG,
	.space = HW_MSR,
	.max_inst = SNBEP_MAX_CBO,
	.base = 0xD04, .inst_stride = 0x20,
	.nctr = 4, .width = 44,
	.ctl_off = 0xC, .ctl_stride = 1,
	.ctr_off = 0x12, .ctr_stride = 1,
	.ctl_layout = &snbep_cbo_ctl,
	.ctr_layout = &snbep_cbo_ctr,
	.fmt = SNBEP_FMT,
	.global_ovf_bit = NONE,
	.max_rate = SNBEP_RATE(20),
	.max_clk_hz = SNBEP_MAX_CLK_HZ,
	.box_ctl_layout = &snbep_cbo_box_ctl, .box_ctl_off = 0x0,
	.box_ctl_must1 = SNBEP_BOX_FRZ_EN,
	.filters = snbep_cbo_filters, .nfilters = ARRAY_SIZE(snbep_cbo_filters),
	.perf = &snbep_kpmu_cbo,
};

static const struct unit_filter snbep_pcu_filters[] = {
	{ "PCU_MSR_PMON_BOX_FILTER", EVF_PCU_BAND, 0x10, NULL, NULL,
	  &snbep_pcu_filter },
};

/* PCU (327043 2.6.3.1, p.73): BOX_CTL 0xC24, CTL0-3 0xC30..0xC33,
 * BOX_FILTER 0xC34, CTR0-3 0xC36..0xC39.  Occupancy events count up to
 * one per core (8). */
static const struct unit_type snbep_pcu = {
	.name = "pcu",
	.desc = "PCU: power control unit (C-states, frequency limits, transitions)",
	.source = "327043 p.73; kernel SNBEP_PCU_MSR_PMON_*",
	.kind = UNIT_PROG,
	.space = HW_MSR,
	.max_inst = 1,
	.base = 0xC24, .inst_stride = 0,
	.nctr = 4, .width = 48,
	.ctl_off = 0xC, .ctl_stride = 1,
	.ctr_off = 0x12, .ctr_stride = 1,
	.ctl_layout = &snbep_pcu_ctl,
	.ctr_layout = &snbep_pcu_ctr,
	.fmt = SNBEP_PCU_FMT,
	.global_ovf_bit = NONE,
	.max_rate = SNBEP_RATE(8),
	.max_clk_hz = SNBEP_MAX_CLK_HZ,
	.box_ctl_layout = &snbep_pcu_box_ctl, .box_ctl_off = 0x0,
	.box_ctl_must1 = SNBEP_BOX_FRZ_EN,
	.filters = snbep_pcu_filters, .nfilters = ARRAY_SIZE(snbep_pcu_filters),
	.ev_ext_bit = 21,
	.occ_edge_bit = 31, .occ_inv_bit = 30,
	.perf = &snbep_kpmu_pcu,
};

/*
 * PCU_MSR_CORE_C3_CTR 0x3FC, PCU_MSR_CORE_C6_CTR 0x3FD (327043 p.73):
 * 64-bit, outside PMON (not frozen, not reset); one per core, read on
 * every core and summed, as hsx (notes "PCU C-state counters").  Package
 * C2/C3/C6/C7 residency, one per package: Linux
 * arch/x86/events/intel/cstate.c reads MSR_PKG_C2_RESIDENCY 0x60D,
 * MSR_PKG_C3_RESIDENCY 0x3F8, MSR_PKG_C6_RESIDENCY 0x3F9 and
 * MSR_PKG_C7_RESIDENCY 0x3FA on SANDYBRIDGE_X (snb_cstates.pkg_events);
 * they count at the TSC's rate at most (notes "Package C-states (snbep)").
 */
static const struct freerun_ctr snbep_pcu_cstate_ctrs[] = {
	{ "UNC_P_CORE_CC3_CTR", 0x3FC, 64, 8,
	  "Cycles the socket's cores spent in C3, summed over its cores "
	  "(PCU_MSR_CORE_C3_CTR, core scope)",
	  SNBEP_MAX_CLK_HZ * PLAT_MAX_CORES, true,
	  .perf_pmu = "cstate_core", .perf_event = "c3-residency" },
	{ "UNC_P_CORE_CC6_CTR", 0x3FD, 64, 8,
	  "Cycles the socket's cores spent in C6, summed over its cores "
	  "(PCU_MSR_CORE_C6_CTR, core scope)",
	  SNBEP_MAX_CLK_HZ * PLAT_MAX_CORES, true,
	  .perf_pmu = "cstate_core", .perf_event = "c6-residency" },
	{ "UNC_P_CORE_PC2_CTR", 0x60D, 64, 8,
	  "Cycles the package is in C2 (MSR_PKG_C2_RESIDENCY)",
	  SNBEP_MAX_CLK_HZ, false,
	  .perf_event = "c2-residency" },
	{ "UNC_P_CORE_PC3_CTR", 0x3F8, 64, 8,
	  "Cycles the package is in C3 (MSR_PKG_C3_RESIDENCY)",
	  SNBEP_MAX_CLK_HZ, false,
	  .perf_event = "c3-residency" },
	{ "UNC_P_CORE_PC6_CTR", 0x3F9, 64, 8,
	  "Cycles the package is in C6 (MSR_PKG_C6_RESIDENCY)",
	  SNBEP_MAX_CLK_HZ, false,
	  .perf_event = "c6-residency" },
	{ "UNC_P_CORE_PC7_CTR", 0x3FA, 64, 8,
	  "Cycles the package is in C7 (MSR_PKG_C7_RESIDENCY)",
	  SNBEP_MAX_CLK_HZ, false,
	  .perf_event = "c7-residency" },
};

static const struct unit_type snbep_pcu_cstate = {
	.name = "pcu_cstate",
	.desc = "PCU free-running C-state residency counters (non-PMON)",
	.source = "327043 2.6.3.1; kernel cstate.c snb_cstates",
	.kind = UNIT_FREERUN,
	.space = HW_MSR,
	.max_inst = 1,
	.nctr = 0, .width = 64,
	.fmt = SNBEP_NO_FMT,
	.global_ovf_bit = NONE,
	.freerun = snbep_pcu_cstate_ctrs,
	.nfreerun = ARRAY_SIZE(snbep_pcu_cstate_ctrs),
	.perf = &kpmu_snb_cstate_pkg,
};

/* ---- unit types: PCI space ------------------------------------------- */

/*
 * Every PCI box (327043 Tables 2-33, 2-59; kernel SNBEP_PCI_PMON_*):
 * box control 0xF4, control i at 0xD8 + 4i, counter i at 0xA0 + 8i.  No
 * box status is used (notes "Overflow").
 */
#define SNBEP_PCI_BOX                                                   \
	.kind = UNIT_PROG, .space = HW_PCI,                             \
	.ctl_off = 0xD8, .ctl_stride = 4,                               \
	.ctr_off = 0xA0, .ctr_stride = 8,                               \
	.box_ctl_off = 0xF4, .box_ctl_must1 = SNBEP_BOX_FRZ_EN,         \
	.global_ovf_bit = NONE

/* HA: 14:1 (327043 Table 2-33, likwid "0e.1"), device 0x3C46 (kernel). */
static const uint32_t snbep_ha_devfn[] = { SNBEP_DEVFN(14, 1) };
static const uint16_t snbep_ha_did[] = { 0x3C46 };

static const struct unit_filter snbep_ha_filters[] = {
	{ "HA_PCI_PMON_BOX_ADDRMATCH0", EVF_HA_MATCH, 0x40, NULL, NULL,
	  &snbep_ha_addrmatch0 },
	{ "HA_PCI_PMON_BOX_ADDRMATCH1", EVF_HA_MATCH, 0x44, NULL, NULL,
	  &snbep_ha_addrmatch1 },
	{ "HA_PCI_PMON_BOX_OPCODEMATCH", EVF_HA_MATCH, 0x48, NULL, NULL,
	  &snbep_ha_opcodematch },
};

static const struct unit_type snbep_ha = {
	.name = "ha",
	.desc = "Home agent: memory-side coherency and ordering",
	.source = "327043 Tables 2-33..2-38",
	SNBEP_PCI_BOX,
	.max_inst = 1,
	.inst_base = snbep_ha_devfn,
	.nctr = 4, .width = 48,
	.ctl_layout = &snbep_ha_ctl,
	.ctr_layout = &snbep_ha_ctr,
	.fmt = SNBEP_HA_FMT,
	.max_rate = SNBEP_RATE(128),
	.max_clk_hz = SNBEP_MAX_CLK_HZ,
	.box_ctl_layout = &snbep_ha_box_ctl,
	.filters = snbep_ha_filters, .nfilters = ARRAY_SIZE(snbep_ha_filters),
	.pci_devid = snbep_ha_did,
	.perf = &snbep_kpmu_ha,
};

/* iMC channels 0-3: 16:0, 16:1, 16:4, 16:5 (327043 Table 2-59, likwid),
 * devices 0x3CB0, 0x3CB1, 0x3CB4, 0x3CB5 (kernel); notes "iMC channel
 * numbering". */
static const uint32_t snbep_imc_devfn[] = {
	SNBEP_DEVFN(16, 0), SNBEP_DEVFN(16, 1), SNBEP_DEVFN(16, 4),
	SNBEP_DEVFN(16, 5),
};
static const uint16_t snbep_imc_did[] = { 0x3CB0, 0x3CB1, 0x3CB4, 0x3CB5 };

static const struct unit_type snbep_imc = {
	.name = "imc",
	.desc = "Integrated memory controller channel",
	.source = "327043 Table 2-59",
	SNBEP_PCI_BOX,
	.max_inst = 4,
	.inst_base = snbep_imc_devfn,
	.nctr = 4, .width = 48,
	.ctl_layout = &snbep_imc_ctl,
	.ctr_layout = &snbep_imc_ctr,
	.fmt = SNBEP_FMT,
	.max_rate = SNBEP_RATE(32),
	.max_clk_hz = SNBEP_MAX_CLK_HZ,
	.box_ctl_layout = &snbep_imc_box_ctl,
	.pci_devid = snbep_imc_did,
	.perf = &snbep_kpmu_imc,
};

/* The DCLK fixed counter of each channel: control 0xF0, counter 0xD0
 * (327043 Table 2-59), in the channel's function (frozen and reset with
 * its box). */
static const struct unit_type snbep_imc_fixed = {
	.name = "imc_fixed",
	.desc = "iMC channel fixed counter: DRAM clock (DCLK) cycles",
	.source = "327043 Table 2-59",
	.kind = UNIT_FIXED,
	.space = HW_PCI,
	.max_inst = 4,
	.inst_base = snbep_imc_devfn,
	.nctr = 1, .width = 48,
	.ctl_off = 0xF0, .ctl_stride = 0,
	.ctr_off = 0xD0, .ctr_stride = 0,
	.ctl_layout = &snbep_imc_fixed_ctl,
	.ctr_layout = &snbep_imc_ctr,
	.fmt = SNBEP_FIXED_FMT(19),
	.global_ovf_bit = NONE,
	.max_rate = SNBEP_MAX_CLK_HZ,
	.pci_devid = snbep_imc_did,
	.perf = &snbep_kpmu_imc_fixed,
};

/* QPI ports 0, 1: 8:2, 9:2 (DS2, PCM, likwid), devices 0x3C41, 0x3C42;
 * their match/mask registers in 8:6, 9:6 (likwid), devices 0x3C86,
 * 0x3C96 (kernel UNCORE_EXTRA_PCI_DEV): PKT_MATCH0 0x228, MATCH1 0x22C,
 * MASK0 0x238, MASK1 0x23C (kernel SNBEP_Q_Py_PCI_PMON_PKT_*). */
static const uint32_t snbep_qpi_devfn[] = {
	SNBEP_DEVFN(8, 2), SNBEP_DEVFN(9, 2),
};
static const uint16_t snbep_qpi_did[] = { 0x3C41, 0x3C42 };
static const uint32_t snbep_qpi_filt_devfn[] = {
	SNBEP_DEVFN(8, 6), SNBEP_DEVFN(9, 6),
};
static const uint16_t snbep_qpi_filt_did[] = { 0x3C86, 0x3C96 };

static const struct unit_filter snbep_qpi_filters[] = {
	{ "Q_Py_PCI_PMON_PKT_MATCH0", EVF_QPI_MATCH, 0x228,
	  snbep_qpi_filt_devfn, snbep_qpi_filt_did, &snbep_qpi_match0 },
	{ "Q_Py_PCI_PMON_PKT_MATCH1", EVF_QPI_MATCH, 0x22C,
	  snbep_qpi_filt_devfn, snbep_qpi_filt_did, &snbep_qpi_match1 },
	{ "Q_Py_PCI_PMON_PKT_MASK0", EVF_QPI_MATCH, 0x238,
	  snbep_qpi_filt_devfn, snbep_qpi_filt_did, &snbep_qpi_mask0 },
	{ "Q_Py_PCI_PMON_PKT_MASK1", EVF_QPI_MATCH, 0x23C,
	  snbep_qpi_filt_devfn, snbep_qpi_filt_did, &snbep_qpi_mask1 },
};

static const struct unit_type snbep_qpi = {
	.name = "qpi",
	.desc = "QPI link layer, per port",
	.source = "327043 Tables 2-85, 2-86, 2-88..2-91",
	SNBEP_PCI_BOX,
	.max_inst = 2,
	.inst_base = snbep_qpi_devfn,
	.nctr = 4, .width = 48,
	.ctl_layout = &snbep_qpi_ctl,
	.ctr_layout = &snbep_qpi_ctr,
	.fmt = SNBEP_FMT,
	/* the RxQ occupancy events, 128 a cycle (329468-002 2.8.5; flits
	 * and CTO_COUNT 2, 327043 2.7.1, 2.7.7); was 4, which threw their
	 * intervals away as counter resets */
	.max_rate = SNBEP_RATE(128),
	.max_clk_hz = SNBEP_MAX_CLK_HZ,
	.box_ctl_layout = &snbep_qpi_box_ctl,
	.filters = snbep_qpi_filters, .nfilters = ARRAY_SIZE(snbep_qpi_filters),
	.ev_ext_bit = 21,
	.pci_devid = snbep_qpi_did,
	.perf = &snbep_kpmu_qpi,
};

/* R2PCIe: 19:1 (DS2, likwid "13.1"), device 0x3C43. */
static const uint32_t snbep_r2_devfn[] = { SNBEP_DEVFN(19, 1) };
static const uint16_t snbep_r2_did[] = { 0x3C43 };

static const struct unit_type snbep_r2pcie = {
	.name = "r2pcie",
	.desc = "R2PCIe: ring to PCI Express interface",
	.source = "327043 p.113, Table 2-106",
	SNBEP_PCI_BOX,
	.max_inst = 1,
	.inst_base = snbep_r2_devfn,
	.nctr = 4, .width = 44,
	.ctl_layout = &snbep_r2_ctl,
	.ctr_layout = &snbep_r2_ctr,
	.fmt = SNBEP_FMT,
	.max_rate = SNBEP_RATE(24),
	.max_clk_hz = SNBEP_MAX_CLK_HZ,
	.box_ctl_layout = &snbep_r2_box_ctl,
	.pci_devid = snbep_r2_did,
	.perf = &snbep_kpmu_r2pcie,
};

/* R3QPI links 0, 1: 19:5, 19:6 (likwid "13.5", "13.6"), devices 0x3C44,
 * 0x3C45 (kernel); three 44-bit counters (kernel snbep_uncore_r3qpi). */
static const uint32_t snbep_r3_devfn[] = {
	SNBEP_DEVFN(19, 5), SNBEP_DEVFN(19, 6),
};
static const uint16_t snbep_r3_did[] = { 0x3C44, 0x3C45 };

static const struct unit_type snbep_r3qpi = {
	.name = "r3qpi",
	.desc = "R3QPI: ring to QPI interface, per link",
	.source = "kernel snbep_uncore_r3qpi",
	SNBEP_PCI_BOX,
	.max_inst = 2,
	.inst_base = snbep_r3_devfn,
	.nctr = 3, .width = 44,
	.ctl_layout = &snbep_r3_ctl,
	.ctr_layout = &snbep_r3_ctr,
	.fmt = SNBEP_FMT,
	.max_rate = SNBEP_RATE(32),
	.max_clk_hz = SNBEP_MAX_CLK_HZ,
	.box_ctl_layout = &snbep_r3_box_ctl,
	.pci_devid = snbep_r3_did,
	.perf = &snbep_kpmu_r3qpi,
};

/* Order matters: topo_socket.ninst[] / absent[] and struct wl_key.unit
 * index it.  The order of hsx's table, without the boxes snbep lacks. */
static const struct unit_type *const snbep_units[] = {
	&snbep_ubox, &snbep_ubox_fixed, &snbep_cbo, &snbep_ha, &snbep_imc,
	&snbep_imc_fixed, &snbep_pcu, &snbep_pcu_cstate, &snbep_qpi,
	&snbep_r2pcie, &snbep_r3qpi, NULL,
};

/* ---- discovery ------------------------------------------------------- */

/*
 * The units present on socket s.  No register says how many CBos there
 * are: the kernel takes min(8, cores per package) (uncore_snbep.c
 * snbep_uncore_cpu_init: boot_cpu_data.x86_max_cores, now
 * topology_num_cores_per_package(), both from CPUID), the cores the
 * package has whether online or not; the same here (s->hw_cores; the
 * online cores only where CPUID is not known), each CBo also probed
 * through its box control.  Counting online CPUs instead dropped an
 * offlined core's LLC slice from every LLC total.
 */
static int snbep_find_units(struct hw *hw, struct topo_socket *s)
{
	unsigned cores = s->hw_cores ? s->hw_cores : s->ncores;
	unsigned ncbo = cores && cores < SNBEP_MAX_CBO ? cores : SNBEP_MAX_CBO;
	int r;

	if ((r = plat_find_units(hw, s, snbep_units, &snbep_cbo, ncbo)) < 0)
		return r;
	if (!s->ninst[0])
		return hw_fail(ENODEV, "socket %u: the UBox MSRs (0xC10..0xC17) "
			       "do not answer on cpu %" PRIu32 "; not a Xeon "
			       "E5-2600 v1 uncore?", s->id, s->cpu);
	if (!s->ninst[2])
		return hw_fail(ENODEV, "socket %u: no CBo answers (box controls "
			       "0xD04 + 0x20n on cpu %" PRIu32 ", %u cores)", s->id,
			       s->cpu, cores);
	return 0;
}

static const struct plat_ubox_bus snbep_ubox_bus = {
	.vendor = SNBEP_PCI_VENDOR_INTEL, .device = SNBEP_UBOX_DID,
	.nodeid_off = SNBEP_UBOX_CPUNODEID, .map_off = SNBEP_UBOX_GIDNIDMAP,
	.part = "Xeon E5-2600/4600 v1",
};

static int snbep_discover_map(struct hw *hw, struct topology *t,
			      const struct hw_cpu_map *m)
{
	return plat_discover_ubox_buses(hw, t, &plat_snbep, &snbep_ubox_bus, m,
					snbep_find_units);
}

static int snbep_discover(struct hw *hw, struct topology *t)
{
	return snbep_discover_map(hw, t, NULL);
}

/* No global control: freeze is per box (plat_freeze_boxes()), and nothing
 * readable says whether the boxes are frozen (frz and frz_en are
 * write-only), so there is no check op; the counter controls are checked
 * (pmu_check_controls()). */
static const struct plat_ops snbep_ops = {
	.discover = snbep_discover,
	.global_enable = plat_freeze_boxes,
	.discover_map = snbep_discover_map,
	.reset_boxes = plat_reset_boxes,
};

/* doc/design.md section 2: CPUID family 6, model 0x2D (kernel
 * SANDYBRIDGE_X -> snbep_uncore_init). */
static const struct cpu_match snbep_cpus[] = {
	{ 6, 0x2D },
	{ 0, 0 },
};

/* What the daemon counts without a [baseline]: every headline event and
 * the DCLK. */
/* frequency limits (the PCU's FREQ_MAX_* and PROCHOT_* cycles); [baseline]
 * frequency_limits decides whether they count */
static const char *const snbep_baseline_freq[] = {
	"UNC_P_FREQ_MAX_LIMIT_THERMAL_CYCLES", "UNC_P_FREQ_MAX_POWER_CYCLES",
	"UNC_P_FREQ_MAX_OS_CYCLES", "UNC_P_PROCHOT_INTERNAL_CYCLES",
	"UNC_P_PROCHOT_EXTERNAL_CYCLES", NULL
};

static const char *const snbep_baseline[] = {
	SNBEP_LLC_LOOKUPS, SNBEP_LLC_MISSES,
	"UNC_M_CAS_COUNT.RD", "UNC_M_CAS_COUNT.WR", "UNC_M_CLOCKTICKS",
	"UNC_U_CLOCKTICKS",
	"UNC_Q_TxL_FLITS_G0.DATA", "UNC_Q_TxL_FLITS_G0.NON_DATA",
	"UNC_H_REQUESTS.READS", "UNC_H_REQUESTS.WRITES",
	"UNC_P_CORE_CC3_CTR", "UNC_P_CORE_CC6_CTR", "UNC_P_CORE_PC2_CTR",
	"UNC_P_CORE_PC3_CTR", "UNC_P_CORE_PC6_CTR",
	SNBEP_BAND(0), SNBEP_BAND(1), SNBEP_BAND(2), SNBEP_BAND(3),
	NULL,
};

const struct platform plat_snbep = {
	.id = "snbep",
	.name = "Intel Xeon E5-2600/4600 v1 (Sandy Bridge-EP)",
	.manual = "Intel Xeon Processor E5-2600 Product Family Uncore "
		  "Performance Monitoring Guide, 327043-001, March 2012 (UBox); "
		  "Linux uncore_snbep.c and likwid for the other boxes",
	.cpus = snbep_cpus,
	.units = snbep_units,
	/* no global control or status (notes: "MSR boxes") */
	.events = snbep_events,
	.nevents = SNBEP_NEVENTS,
	.ops = &snbep_ops,
	.derived = &derived_snbep,
	.baseline = snbep_baseline,
	.baseline_freq = snbep_baseline_freq,
	.sim = &plat_snbep_sim,
	.backends = PLAT_BE_DIRECT | PLAT_BE_PERF,
};
