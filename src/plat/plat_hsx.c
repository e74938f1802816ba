/*
 * plat_hsx.c - the Xeon E5/E7 v3 uncore ("hsx", Haswell-EP/EX) as data.
 *
 * Everything here comes from the Intel Xeon Processor E5 and E7 v3 Family
 * Uncore Performance Monitoring Reference Manual (331051-002, June 2015);
 * each table cites the manual's table.  Where the manual contradicts
 * itself or is silent, the choice is recorded in doc/hardware-notes.md
 * (section "Xeon E5/E7 v3") and referred to below as "notes: <heading>".
 *
 * Per socket: the UBox (two counters, the UCLK fixed counter, the global
 * control/status/config MSRs), up to 18 CBos, up to 4 SBos and the PCU in
 * MSR space; two HAs, two iMCs of four channels (each channel a PMON box
 * with a DCLK fixed counter), the IRP, up to three QPI ports (with
 * match/mask filters and two free-running link counters), the R2PCIe and
 * up to three R3QPI links in the PCI configuration space of the socket's
 * uncore bus.  Code: discovery (find each socket's bus through the UBox
 * device, map node IDs to packages, find the boxes present) and the
 * global freeze (hsx_ops).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "plat/plat.h"
#include "plat/plat_hsx.h"
#include "plat/plat_sim.h"
#include "plat/kpmu.h"
#include "plat/events_hsx.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NONE 0xff
#define LAYOUT(var, nm, src, nbits, flds) \
	static const struct reg_layout var = { \
		.name = nm, .source = src, .bits = nbits, .fields = flds, \
		.nfields = ARRAY_SIZE(flds) }

/*
 * Upper bounds of event rates for the wrap check (notes: wrap-time
 * bounds).  The clock bound is skl's generous 5 GHz (the hsx UCLK, PCU
 * clock and DCLK are all slower); a programmable counter's bound is the
 * largest increment per cycle its box can make (box overview or event
 * table, whichever is larger) times that clock.  The QPI link counters
 * count qfclk cycles: a quarter of at most 9.6 GT/s (Table 2-177, 2.9.6
 * CLOCKTICKS), 2.4e9/s, so their 32 bits wrap after 1.79 s.
 */
#define HSX_MAX_CLK_HZ 5.0e9
#define HSX_RATE(inc) ((inc) * HSX_MAX_CLK_HZ)
#define HSX_MAX_QFCLK_HZ 2.4e9

/* ---- global registers ------------------------------------------------ */

/* Table 2-2. U_MSR_PMON_GLOBAL_CTL (0x700), 32 bits (Table 2-1) */
static const struct reg_field hsx_global_ctl_fields[] = {
	{ "pmi_core_sel", 0, 17, ACC_RW },
	{ "rsv", 18, 26, ACC_RSV },
	{ "rsv", 27, 28, ACC_RSV },
	{ "unfrz_all", 29, 29, ACC_WO },
	{ "wk_on_pmi", 30, 30, ACC_RW },
	{ "frz_all", 31, 31, ACC_WO },
};
LAYOUT(hsx_global_ctl, "U_MSR_PMON_GLOBAL_CTL", "Table 2-2", 32,
       hsx_global_ctl_fields);

/*
 * Table 2-3. U_MSR_PMON_GLOBAL_STATUS (0x701).  Table 2-1 sizes it 32
 * bits but Table 2-3 defines bits up to 35 (ov_irp 34, ov_rq 35) and
 * reserves 63:36: a 64-bit layout (notes: GLOBAL_STATUS width).
 */
static const struct reg_field hsx_global_status_fields[] = {
	{ "ov_u_fixed", 0, 0, ACC_RW1C },
	{ "ov_u", 1, 1, ACC_RW1C },
	{ "ov_p", 2, 2, ACC_RW1C },
	{ "rsv", 3, 20, ACC_RSV },
	{ "ov_h0", 21, 21, ACC_RW1C },
	{ "ov_h1", 22, 22, ACC_RW1C },
	{ "ov_m0", 23, 23, ACC_RW1C },
	{ "ov_m1", 24, 24, ACC_RW1C },
	{ "ov_q0", 25, 25, ACC_RW1C },
	{ "ov_q1", 26, 26, ACC_RW1C },
	{ "ov_rq0", 27, 27, ACC_RW1C },
	{ "ov_rq1", 28, 28, ACC_RW1C },
	{ "ov_rp", 29, 29, ACC_RW1C },
	{ "rsv", 30, 33, ACC_RSV },
	{ "ov_irp", 34, 34, ACC_RW1C },
	{ "ov_rq", 35, 35, ACC_RW1C },
	{ "rsv", 36, 63, ACC_RSV },
};
LAYOUT(hsx_global_status, "U_MSR_PMON_GLOBAL_STATUS", "Table 2-3", 64,
       hsx_global_status_fields);

/* Table 2-4. U_MSR_PMON_GLOBAL_CONFIG (0x702), 32 bits: num_c, the
 * number of CBo counter sets, reset value 18 (notes: CBo count). */
static const struct reg_field hsx_global_config_fields[] = {
	{ "num_c", 0, 4, ACC_RW },
	{ "rsv", 5, 31, ACC_RSV },
};
LAYOUT(hsx_global_config, "U_MSR_PMON_GLOBAL_CONFIG", "Table 2-4", 32,
       hsx_global_config_fields);

/* ---- box control and status ------------------------------------------ */

/*
 * The box control of CBo, SBo, HA, iMC, IRP, PCU and QPI (Tables 2-14,
 * 2-45, 2-61, 2-112, 2-145, 2-156, 2-168 print the same fields): rst_ctrl
 * 0, rst_ctrs 1, frz 8, all write-only; bits 17:16 "Reserved; SW must
 * write to 1" are listed as reserved here and written 1 through
 * unit_type.box_ctl_must1 (notes: box control bits 17:16).
 */
static const struct reg_field hsx_box_ctl_fields[] = {
	{ "rst_ctrl", 0, 0, ACC_WO },
	{ "rst_ctrs", 1, 1, ACC_WO },
	{ "rsv", 2, 7, ACC_RSV },
	{ "frz", 8, 8, ACC_WO },
	{ "rsv", 9, 15, ACC_RSV },
	{ "rsv_must_write_1", 16, 17, ACC_RSV },
	{ "rsv", 18, 31, ACC_RSV },
};
#define HSX_BOX_MUST1 0x30000ull	/* bits 17:16 */
LAYOUT(hsx_cbo_box_ctl, "Cn_MSR_PMON_BOX_CTL", "Table 2-14", 32,
       hsx_box_ctl_fields);
LAYOUT(hsx_sbo_box_ctl, "Sn_MSR_PMON_BOX_CTL", "Table 2-45", 32,
       hsx_box_ctl_fields);
LAYOUT(hsx_ha_box_ctl, "HAn_PCI_PMON_BOX_CTL", "Table 2-61", 32,
       hsx_box_ctl_fields);
LAYOUT(hsx_imc_box_ctl, "MC_CHy_PCI_PMON_BOX_CTL", "Table 2-112", 32,
       hsx_box_ctl_fields);
LAYOUT(hsx_irp_box_ctl, "IRP_PCI_PMON_BOX_CTL", "Table 2-145", 32,
       hsx_box_ctl_fields);
LAYOUT(hsx_pcu_box_ctl, "PCU_MSR_PMON_BOX_CTL", "Table 2-156", 32,
       hsx_box_ctl_fields);
LAYOUT(hsx_qpi_box_ctl, "Q_Py_PCI_PMON_BOX_CTL", "Table 2-168", 32,
       hsx_box_ctl_fields);

/* Tables 2-213 (R2PCIe) and 2-230 (R3QPI): the same three bits, no
 * must-be-one field (31:9 "Ignored"). */
static const struct reg_field hsx_box_ctl_r_fields[] = {
	{ "rst_ctrl", 0, 0, ACC_WO },
	{ "rst_ctrs", 1, 1, ACC_WO },
	{ "ig", 2, 7, ACC_RSV },
	{ "frz", 8, 8, ACC_WO },
	{ "ig", 9, 31, ACC_RSV },
};
LAYOUT(hsx_r2_box_ctl, "R2_PCI_PMON_BOX_CTL", "Table 2-213", 32,
       hsx_box_ctl_r_fields);
LAYOUT(hsx_r3_box_ctl, "R3_Ly_PCI_PMON_BOX_CTL", "Table 2-230", 32,
       hsx_box_ctl_r_fields);

/* Box status: ov, one RW1C bit per counter. */
static const struct reg_field hsx_ubox_status_fields[] = {	/* 2-6 */
	{ "ov", 0, 1, ACC_RW1C },
	{ "rsv", 2, 31, ACC_RSV },
};
LAYOUT(hsx_ubox_status, "U_MSR_PMON_BOX_STATUS", "Table 2-6", 32,
       hsx_ubox_status_fields);

static const struct reg_field hsx_status4_fields[] = {	/* ov 3:0 */
	{ "ov", 0, 3, ACC_RW1C },
	{ "rsv", 4, 31, ACC_RSV },
};
LAYOUT(hsx_cbo_status, "Cn_MSR_PMON_BOX_STATUS", "Table 2-15", 32,
       hsx_status4_fields);
LAYOUT(hsx_sbo_status, "Sn_MSR_PMON_BOX_STATUS", "Table 2-46", 32,
       hsx_status4_fields);
LAYOUT(hsx_irp_status, "IRP_PCI_PMON_BOX_STATUS", "Table 2-146", 32,
       hsx_status4_fields);
LAYOUT(hsx_pcu_status, "PCU_MSR_PMON_BOX_STATUS", "Table 2-157", 32,
       hsx_status4_fields);
LAYOUT(hsx_r2_status, "R2_PCI_PMON_BOX_STATUS", "Table 2-214", 32,
       hsx_status4_fields);

/* Tables 2-62 (HA) and 2-169 (QPI): ov 3:0, bit 4 "SW must write to 0". */
static const struct reg_field hsx_status4r_fields[] = {
	{ "ov", 0, 3, ACC_RW1C },
	{ "rsv", 4, 4, ACC_RSV },
	{ "ig", 5, 31, ACC_RSV },
};
LAYOUT(hsx_ha_status, "HAn_PCI_PMON_BOX_STATUS", "Table 2-62", 32,
       hsx_status4r_fields);
LAYOUT(hsx_qpi_status, "Q_Py_PCI_PMON_BOX_STATUS", "Table 2-169", 32,
       hsx_status4r_fields);

/* Table 2-113 (iMC): ov 4:0, the four counters and the fixed counter
 * (notes: iMC box status bits). */
static const struct reg_field hsx_imc_status_fields[] = {
	{ "ov", 0, 4, ACC_RW1C },
	{ "rsv", 5, 5, ACC_RSV },
	{ "ig", 6, 31, ACC_RSV },
};
LAYOUT(hsx_imc_status, "MC_CHy_PCI_PMON_BOX_STATUS", "Table 2-113", 32,
       hsx_imc_status_fields);

/* Table 2-231 (R3QPI): ov 2:0 for its three counters. */
static const struct reg_field hsx_r3_status_fields[] = {
	{ "ov", 0, 2, ACC_RW1C },
	{ "rsv", 3, 3, ACC_RSV },
	{ "ig", 4, 31, ACC_RSV },
};
LAYOUT(hsx_r3_status, "R3_Ly_PCI_PMON_BOX_STATUS", "Table 2-231", 32,
       hsx_r3_status_fields);

/* ---- counter control registers --------------------------------------- */

/*
 * Table 2-7. U_MSR_PMON_CTL{1-0}.  Table 2-5 sizes CTL0 32 and CTL1 64
 * bits; the field table ends at 31, so both are 32-bit layouts.
 */
static const struct reg_field hsx_ubox_ctl_fields[] = {
	{ "ev_sel", 0, 7, ACC_RW },
	{ "umask", 8, 15, ACC_RW },
	{ "rsv", 16, 16, ACC_RSV },
	{ "rst", 17, 17, ACC_WO },
	{ "edge_det", 18, 18, ACC_RW },
	{ "rsv", 19, 19, ACC_RSV },
	{ "ov_en", 20, 20, ACC_RW },
	{ "rsv", 21, 21, ACC_RSV },
	{ "en", 22, 22, ACC_RW },
	{ "invert", 23, 23, ACC_RW },
	{ "thresh", 24, 28, ACC_RW },
	{ "rsv", 29, 31, ACC_RSV },
};
LAYOUT(hsx_ubox_ctl, "U_MSR_PMON_CTL{1-0}", "Table 2-7", 32,
       hsx_ubox_ctl_fields);

/*
 * Tables 2-16 (CBo) and 2-47 (SBo): an 8-bit threshold, tid_en at 19 and
 * no ov_en (21:20 reserved): CBo and SBo overflows reach no global status
 * bit (Table 2-3 has none for them).
 */
static const struct reg_field hsx_cbo_ctl_fields[] = {
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
LAYOUT(hsx_cbo_ctl, "Cn_MSR_PMON_CTL{3-0}", "Table 2-16", 32,
       hsx_cbo_ctl_fields);
LAYOUT(hsx_sbo_ctl, "Sn_MSR_PMON_CTL{3-0}", "Table 2-47", 32,
       hsx_cbo_ctl_fields);

/*
 * The PCI boxes' control register: HA Table 2-63, iMC 2-114, IRP 2-147,
 * R2PCIe 2-215, R3QPI 2-232 print the same fields.  IRP's table lists
 * "rsv 21:20" and "ov_en 20" both; ov_en 20 is kept as in every sibling
 * (notes: IRP registers).
 */
static const struct reg_field hsx_pci_ctl_fields[] = {
	{ "ev_sel", 0, 7, ACC_RW },
	{ "umask", 8, 15, ACC_RW },
	{ "rsv", 16, 16, ACC_RSV },
	{ "rst", 17, 17, ACC_WO },
	{ "edge_det", 18, 18, ACC_RW },
	{ "ig", 19, 19, ACC_RSV },
	{ "ov_en", 20, 20, ACC_RW },
	{ "rsv", 21, 21, ACC_RSV },
	{ "en", 22, 22, ACC_RW },
	{ "invert", 23, 23, ACC_RW },
	{ "thresh", 24, 31, ACC_RW },
};
LAYOUT(hsx_ha_ctl, "HAn_PCI_PMON_CTL{3-0}", "Table 2-63", 32,
       hsx_pci_ctl_fields);
LAYOUT(hsx_imc_ctl, "MC_CHy_PCI_PMON_CTL{3-0}", "Table 2-114", 32,
       hsx_pci_ctl_fields);
LAYOUT(hsx_irp_ctl, "IRP_PCI_PMON_CTL{3-0}", "Table 2-147", 32,
       hsx_pci_ctl_fields);
LAYOUT(hsx_r2_ctl, "R2_PCI_PMON_CTL{3-0}", "Table 2-215", 32,
       hsx_pci_ctl_fields);
LAYOUT(hsx_r3_ctl, "R3_Ly_PCI_PMON_CTL{2-0}", "Table 2-232", 32,
       hsx_pci_ctl_fields);

/* Table 2-170. Q_Py_PCI_PMON_CTL{3-0}: ev_sel_ext at 21. */
static const struct reg_field hsx_qpi_ctl_fields[] = {
	{ "ev_sel", 0, 7, ACC_RW },
	{ "umask", 8, 15, ACC_RW },
	{ "rsv", 16, 16, ACC_RSV },
	{ "rst", 17, 17, ACC_WO },
	{ "edge_det", 18, 18, ACC_RW },
	{ "ig", 19, 19, ACC_RSV },
	{ "ov_en", 20, 20, ACC_RW },
	{ "ev_sel_ext", 21, 21, ACC_RW },
	{ "en", 22, 22, ACC_RW },
	{ "invert", 23, 23, ACC_RW },
	{ "thresh", 24, 31, ACC_RW },
};
LAYOUT(hsx_qpi_ctl, "Q_Py_PCI_PMON_CTL{3-0}", "Table 2-170", 32,
       hsx_qpi_ctl_fields);

/*
 * Table 2-158. PCU_MSR_PMON_CTL{3-0}: no umask; occ_sel 15:14 selects the
 * occupancy sub-counter for ev_sel bit 7 events (the catalog's umask bits
 * 7:6, so the umask field is placed at 8 and bits 13:8 stay reserved);
 * a 5-bit threshold; occ_invert 30, occ_edge_det 31; ev_sel_ext 21.
 */
static const struct reg_field hsx_pcu_ctl_fields[] = {
	{ "ev_sel", 0, 7, ACC_RW },
	{ "rsv", 8, 13, ACC_RSV },
	{ "occ_sel", 14, 15, ACC_RW },
	{ "rsv", 16, 16, ACC_RSV },
	{ "rst", 17, 17, ACC_WO },
	{ "edge_det", 18, 18, ACC_RW },
	{ "rsv", 19, 19, ACC_RSV },
	{ "ov_en", 20, 20, ACC_RW },
	{ "ev_sel_ext", 21, 21, ACC_RW },
	{ "en", 22, 22, ACC_RW },
	{ "invert", 23, 23, ACC_RW },
	{ "thresh", 24, 28, ACC_RW },
	{ "rsv", 29, 29, ACC_RSV },
	{ "occ_invert", 30, 30, ACC_RW },
	{ "occ_edge_det", 31, 31, ACC_RW },
};
LAYOUT(hsx_pcu_ctl, "PCU_MSR_PMON_CTL{3-0}", "Table 2-158", 32,
       hsx_pcu_ctl_fields);

/* Table 2-9. U_MSR_PMON_FIXED_CTL (0x703): en 22, ov_en 20. */
static const struct reg_field hsx_ubox_fixed_ctl_fields[] = {
	{ "rsv", 0, 19, ACC_RSV },
	{ "ov_en", 20, 20, ACC_RW },
	{ "rsv", 21, 21, ACC_RSV },
	{ "en", 22, 22, ACC_RW },
	{ "rsv", 23, 31, ACC_RSV },
};
LAYOUT(hsx_ubox_fixed_ctl, "U_MSR_PMON_UCLK_FIXED_CTL", "Table 2-9", 32,
       hsx_ubox_fixed_ctl_fields);

/* Table 2-115. MC_CHy_PCI_PMON_FIXED_CTL (0xF0). */
static const struct reg_field hsx_imc_fixed_ctl_fields[] = {
	{ "ig", 0, 18, ACC_RSV },
	{ "rst", 19, 19, ACC_WO },
	{ "ov_en", 20, 20, ACC_RW },
	{ "rsv", 21, 21, ACC_RSV },
	{ "en", 22, 22, ACC_RW },
	{ "invert", 23, 23, ACC_RW },
	{ "ig", 24, 31, ACC_RSV },
};
LAYOUT(hsx_imc_fixed_ctl, "MC_CHy_PCI_PMON_FIXED_CTL", "Table 2-115", 32,
       hsx_imc_fixed_ctl_fields);

/* ---- counters -------------------------------------------------------- */

/*
 * 48-bit counters in 64-bit registers: UBox Tables 2-8/2-10, CBo 2-17, SBo
 * 2-48, HA 2-64, iMC 2-116, IRP 2-148, PCU 2-159, QPI 2-171, R2PCIe 2-216.
 * The PCI ones are "32x2": read as two dwords, low at the lower offset
 * (hw_pcicfg_read() does exactly that for an 8-byte access).
 */
static const struct reg_field hsx_ctr48_fields[] = {
	{ "event_count", 0, 47, ACC_RW },
	{ "rsv", 48, 63, ACC_RSV },
};
LAYOUT(hsx_ubox_ctr, "U_MSR_PMON_CTR{1-0}", "Table 2-8", 64,
       hsx_ctr48_fields);
LAYOUT(hsx_ubox_fixed_ctr, "U_MSR_PMON_UCLK_FIXED_CTR", "Table 2-10", 64,
       hsx_ctr48_fields);
LAYOUT(hsx_cbo_ctr, "Cn_MSR_PMON_CTR{3-0}", "Table 2-17", 64,
       hsx_ctr48_fields);
LAYOUT(hsx_sbo_ctr, "Sn_MSR_PMON_CTR{3-0}", "Table 2-48", 64,
       hsx_ctr48_fields);
LAYOUT(hsx_ha_ctr, "HAn_PCI_PMON_CTR{3-0}", "Table 2-64", 64,
       hsx_ctr48_fields);
LAYOUT(hsx_imc_ctr, "MC_CHy_PCI_PMON_CTR{FIXED,3-0}", "Table 2-116", 64,
       hsx_ctr48_fields);
LAYOUT(hsx_irp_ctr, "IRP{0,1}_PCI_PMON_CTR{1-0}", "Table 2-148", 64,
       hsx_ctr48_fields);
LAYOUT(hsx_pcu_ctr, "PCU_MSR_PMON_CTR{3-0}", "Table 2-159", 64,
       hsx_ctr48_fields);
LAYOUT(hsx_qpi_ctr, "Q_Py_PCI_PMON_CTR{3-0}", "Table 2-171", 64,
       hsx_ctr48_fields);
LAYOUT(hsx_r2_ctr, "R2_PCI_PMON_CTR{3-0}", "Table 2-216", 64,
       hsx_ctr48_fields);

/* Table 2-233. R3_Ly_PCI_PMON_CTR{2-0}: printed 43:0, "44-bit" (notes:
 * counter widths). */
static const struct reg_field hsx_r3_ctr_fields[] = {
	{ "event_count", 0, 43, ACC_RW },
	{ "ig", 44, 63, ACC_RSV },
};
LAYOUT(hsx_r3_ctr, "R3_Ly_PCI_PMON_CTR{2-0}", "Table 2-233", 64,
       hsx_r3_ctr_fields);

/* ---- filters --------------------------------------------------------- */

/* Table 2-18. Cn_MSR_PMON_BOX_FILTER0: tid 5:0 (attribute printed "0",
 * read as RW), state 23:17 (notes: CBo filter fields). */
static const struct reg_field hsx_cbo_filter0_fields[] = {
	{ "tid", 0, 5, ACC_RW },
	{ "rsv", 6, 16, ACC_RSV },
	{ "state", 17, 23, ACC_RW },
	{ "rsv", 24, 31, ACC_RSV },
};
LAYOUT(hsx_cbo_filter0, "Cn_MSR_PMON_BOX_FILTER0", "Table 2-18", 32,
       hsx_cbo_filter0_fields);

/* Table 2-19. Cn_MSR_PMON_BOX_FILTER1: nid 15:0 (the table's "rsv 19:15"
 * overlaps it; 19:16 reserved), opc 28:20, nc 30, isoc 31. */
static const struct reg_field hsx_cbo_filter1_fields[] = {
	{ "nid", 0, 15, ACC_RW },
	{ "rsv", 16, 19, ACC_RSV },
	{ "opc", 20, 28, ACC_RW },
	{ "rsv", 29, 29, ACC_RSV },
	{ "nc", 30, 30, ACC_RW },
	{ "isoc", 31, 31, ACC_RW },
};
LAYOUT(hsx_cbo_filter1, "Cn_MSR_PMON_BOX_FILTER1", "Table 2-19", 32,
       hsx_cbo_filter1_fields);

/* Table 2-160. PCU_MSR_PMON_BOX_FILTER (0x715): four 8-bit bands.  Table
 * 2-155 sizes it 32 bits (the field table's "rsv 63:48" leaves 47:32
 * undefined). */
static const struct reg_field hsx_pcu_filter_fields[] = {
	{ "filt7_0", 0, 7, ACC_RW },
	{ "filt15_8", 8, 15, ACC_RW },
	{ "filt23_16", 16, 23, ACC_RW },
	{ "filt31_24", 24, 31, ACC_RW },
};
LAYOUT(hsx_pcu_filter, "PCU_MSR_PMON_BOX_FILTER", "Table 2-160", 32,
       hsx_pcu_filter_fields);

/* Tables 2-65 .. 2-67: HA opcode and address match (PCI 0x48/0x44/0x40). */
static const struct reg_field hsx_ha_opc_fields[] = {
	{ "opc", 0, 5, ACC_RW },
	{ "ig", 6, 31, ACC_RSV },
};
LAYOUT(hsx_ha_opcodematch, "HAn_PCI_PMON_BOX_OPCODEMATCH", "Table 2-65", 32,
       hsx_ha_opc_fields);
static const struct reg_field hsx_ha_addr1_fields[] = {
	{ "hi_addr", 0, 13, ACC_RW },
	{ "ig", 14, 31, ACC_RSV },
};
LAYOUT(hsx_ha_addrmatch1, "HAn_PCI_PMON_BOX_ADDRMATCH1", "Table 2-66", 32,
       hsx_ha_addr1_fields);
static const struct reg_field hsx_ha_addr0_fields[] = {
	{ "ig", 0, 5, ACC_RSV },
	{ "lo_addr", 6, 31, ACC_RW },
};
LAYOUT(hsx_ha_addrmatch0, "HAn_PCI_PMON_BOX_ADDRMATCH0", "Table 2-67", 32,
       hsx_ha_addr0_fields);

/* Tables 2-173 / 2-175: QPI packet MATCH0 / MASK0 (same fields). */
static const struct reg_field hsx_qpi_m0_fields[] = {
	{ "rsv", 0, 2, ACC_RSV },
	{ "VNW", 3, 4, ACC_RW },
	{ "OPC", 5, 8, ACC_RW },
	{ "MC", 9, 12, ACC_RW },
	{ "DNID", 13, 17, ACC_RW },
	{ "rsv", 18, 30, ACC_RSV },
	{ "RNID_4", 31, 31, ACC_RW },
};
LAYOUT(hsx_qpi_match0, "Q_Py_PCI_PMON_PKT_{Rx,Tx}_MATCH0", "Table 2-173", 32,
       hsx_qpi_m0_fields);
LAYOUT(hsx_qpi_mask0, "Q_Py_PCI_PMON_PKT_{Rx,Tx}_MASK0", "Table 2-175", 32,
       hsx_qpi_m0_fields);

/* Tables 2-172 / 2-174: QPI packet MATCH1 / MASK1. */
static const struct reg_field hsx_qpi_m1_fields[] = {
	{ "RNID_3_0", 0, 3, ACC_RW },
	{ "rsv", 4, 15, ACC_RSV },
	{ "RDS", 16, 19, ACC_RW },
	{ "rsv", 20, 31, ACC_RSV },
};
LAYOUT(hsx_qpi_match1, "Q_Py_PCI_PMON_PKT_{Rx,Tx}_MATCH1", "Table 2-172", 32,
       hsx_qpi_m1_fields);
LAYOUT(hsx_qpi_mask1, "Q_Py_PCI_PMON_PKT_{Rx,Tx}_MASK1", "Table 2-174", 32,
       hsx_qpi_m1_fields);

/* ---- event-select formats -------------------------------------------- */

/* UBox, Table 2-7: 5-bit threshold. */
#define HSX_UBOX_FMT { \
	.ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = 8, \
	.thresh_lo = 24, .thresh_w = 5, .inv_bit = 23, .edge_bit = 18, \
	.en_bit = 22, .ovf_en_bit = 20, .rst_bit = 17 }
/* CBo / SBo, Tables 2-16 / 2-47: 8-bit threshold, no ov_en. */
#define HSX_CBO_FMT { \
	.ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = 8, \
	.thresh_lo = 24, .thresh_w = 8, .inv_bit = 23, .edge_bit = 18, \
	.en_bit = 22, .ovf_en_bit = NONE, .rst_bit = 17 }
/* PCI boxes, Tables 2-63, 2-114, 2-147, 2-215, 2-232. */
#define HSX_PCI_FMT { \
	.ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = 8, \
	.thresh_lo = 24, .thresh_w = 8, .inv_bit = 23, .edge_bit = 18, \
	.en_bit = 22, .ovf_en_bit = 20, .rst_bit = 17 }
/* QPI, Table 2-170: the rst bit does not self-clear (an erratum noted in
 * the table); it is declared absent so that nothing uses it. */
#define HSX_QPI_FMT { \
	.ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = 8, \
	.thresh_lo = 24, .thresh_w = 8, .inv_bit = 23, .edge_bit = 18, \
	.en_bit = 22, .ovf_en_bit = 20, .rst_bit = NONE }
/* PCU, Table 2-158: the "umask" is occ_sel (bits 15:14 = umask bits
 * 7:6); 5-bit threshold. */
#define HSX_PCU_FMT { \
	.ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = 8, \
	.thresh_lo = 24, .thresh_w = 5, .inv_bit = 23, .edge_bit = 18, \
	.en_bit = 22, .ovf_en_bit = 20, .rst_bit = 17 }
/* Fixed counters: enable and overflow enable only. */
#define HSX_FIXED_FMT(rst) { \
	.ev_lo = 0, .ev_w = 0, .umask_lo = 0, .umask_w = 0, \
	.thresh_lo = 0, .thresh_w = 0, .inv_bit = NONE, .edge_bit = NONE, \
	.en_bit = 22, .ovf_en_bit = 20, .rst_bit = (rst) }
#define HSX_NO_FMT { .inv_bit = NONE, .edge_bit = NONE, .en_bit = NONE, \
	.ovf_en_bit = NONE, .rst_bit = NONE }

/* ---- unit types: MSR space ------------------------------------------- */

/*
 * UBox, Table 2-5 / Table 1-2: U_MSR_PMON_CTL0/1 at 0x705/0x706,
 * U_MSR_PMON_CTR0/1 at 0x709/0x70A, U_MSR_PMON_BOX_STATUS at 0x708.  No
 * box control (2.1.2 d).  Counter width 44 for the wrap extension, not
 * the manual's 48 (notes: UBox counter width).
 */
static const struct unit_type hsx_ubox = {
	.name = "ubox",
	.desc = "UBox: system configuration controller (message channel, interrupts, locks)",
	.source = "Table 2-5, Table 1-2",
	.kind = UNIT_PROG,
	.space = HW_MSR,
	.max_inst = 1,
	.base = 0x705, .inst_stride = 0,
	.nctr = 2, .width = 44,
	.ctl_off = 0x0, .ctl_stride = 1,
	.ctr_off = 0x4, .ctr_stride = 1,
	.ctl_layout = &hsx_ubox_ctl,
	.ctr_layout = &hsx_ubox_ctr,
	.fmt = HSX_UBOX_FMT,
	.global_ovf_bit = 1,		/* Table 2-3 ov_u */
	.max_rate = HSX_RATE(1),	/* 2.2.4: every event 1 per cycle */
	.max_clk_hz = HSX_MAX_CLK_HZ,
	.box_status_layout = &hsx_ubox_status, .box_status_off = 0x3,
	.perf = &hsx_kpmu_ubox,
};

/* UBox UCLK fixed counter, Table 2-5: U_MSR_PMON_UCLK_FIXED_CTL 0x703,
 * U_MSR_PMON_UCLK_FIXED_CTR 0x704, 48 bits (Tables 2-9, 2-10). */
static const struct unit_type hsx_ubox_fixed = {
	.name = "ubox_fixed",
	.desc = "UBox fixed counter: uncore clock (UCLK) cycles",
	.source = "Table 2-5, Table 2-9, Table 2-10",
	.kind = UNIT_FIXED,
	.space = HW_MSR,
	.max_inst = 1,
	.base = 0x703, .inst_stride = 0,
	.nctr = 1, .width = 48,
	.ctl_off = 0x0, .ctl_stride = 0,
	.ctr_off = 0x1, .ctr_stride = 0,
	.ctl_layout = &hsx_ubox_fixed_ctl,
	.ctr_layout = &hsx_ubox_fixed_ctr,
	.fmt = HSX_FIXED_FMT(NONE),
	.global_ovf_bit = 0,		/* Table 2-3 ov_u_fixed */
	.max_rate = HSX_MAX_CLK_HZ,
	.perf = &hsx_kpmu_ubox_fixed,
};

/* Filters of CBo n: FILTER0 at 0xE05 + 0x10n, FILTER1 at 0xE06 + 0x10n
 * (Table 2-13). */
static const struct unit_filter hsx_cbo_filters[] = {
	{ "Cn_MSR_PMON_BOX_FILTER0", EVF_FILTER0, 0x5, NULL, NULL,
	  &hsx_cbo_filter0 },
	{ "Cn_MSR_PMON_BOX_FILTER1", EVF_FILTER1, 0x6, NULL, NULL,
	  &hsx_cbo_filter1 },
};

/*
 * CBo n, Table 2-13 / Table 1-2: base 0xE00 + 0x10n; BOX_CTL +0,
 * CTL0-3 +1..+4, FILTER0/1 +5/+6, BOX_STATUS +7, CTR0-3 +8..+B.  18 at
 * most (Table 1-1); discovery counts them (notes: CBo count).  Counter 0
 * adds up to 20 per cycle (2.3.1).
 */
static const struct unit_type hsx_cbo = {
	.name = "cbo",
	.desc = "C-Box: LLC slice and coherency engine",
	.source = "Table 2-13, Table 1-2",
	.kind = UNIT_PROG,
	.space = HW_MSR,
	.max_inst = HSX_MAX_CBO,
	.base = 0xE00, .inst_stride = 0x10,
	.nctr = 4, .width = 48,
	.ctl_off = 0x1, .ctl_stride = 1,
	.ctr_off = 0x8, .ctr_stride = 1,
	.ctl_layout = &hsx_cbo_ctl,
	.ctr_layout = &hsx_cbo_ctr,
	.fmt = HSX_CBO_FMT,
	.global_ovf_bit = NONE,		/* Table 2-3 has no CBo bit */
	.max_rate = HSX_RATE(20),
	.max_clk_hz = HSX_MAX_CLK_HZ,
	.box_ctl_layout = &hsx_cbo_box_ctl, .box_ctl_off = 0x0,
	.box_status_layout = &hsx_cbo_status, .box_status_off = 0x7,
	.box_ctl_must1 = HSX_BOX_MUST1,
	.filters = hsx_cbo_filters, .nfilters = ARRAY_SIZE(hsx_cbo_filters),
	.perf = &hsx_kpmu_cbo,
};

/*
 * SBo n, Table 2-44 / Table 1-2: base 0x720 + 0xAn (0x720, 0x72A, 0x734,
 * 0x73E); BOX_CTL +0, CTL0-3 +1..+4, BOX_STATUS +5, CTR0-3 +6..+9.  The
 * table's register names for SBo 1-3 repeat digits (S1_..._CTR1 at 0x730
 * "Counter 0", ...); the addresses are regular and Table 1-2 agrees.
 * Controls must be written twice (2.4.1, Table 2-47 note); width 44
 * (notes: counter widths); box-control bits set one at a time (notes:
 * SBo, R2PCIe and R3QPI errata).
 */
static const struct unit_type hsx_sbox = {
	.name = "sbox",
	.desc = "S-Box: ring-to-ring transfer stop",
	.source = "Table 2-44, Table 1-2",
	.kind = UNIT_PROG,
	.space = HW_MSR,
	.max_inst = 4,
	.base = 0x720, .inst_stride = 0xA,
	.nctr = 4, .width = 44,
	.ctl_off = 0x1, .ctl_stride = 1,
	.ctr_off = 0x6, .ctr_stride = 1,
	.ctl_layout = &hsx_sbo_ctl,
	.ctr_layout = &hsx_sbo_ctr,
	.fmt = HSX_CBO_FMT,
	.global_ovf_bit = NONE,		/* Table 2-3 has no SBo bit */
	.max_rate = HSX_RATE(12),	/* 2.4.1: counter 0 up to 12 */
	.max_clk_hz = HSX_MAX_CLK_HZ,
	.box_ctl_layout = &hsx_sbo_box_ctl, .box_ctl_off = 0x0,
	.box_status_layout = &hsx_sbo_status, .box_status_off = 0x5,
	.box_ctl_must1 = HSX_BOX_MUST1,
	.quirks = UNIT_Q_CTL_TWICE | UNIT_Q_BOX_BITWISE,
	.perf = &hsx_kpmu_sbox,
};

static const struct unit_filter hsx_pcu_filters[] = {
	{ "PCU_MSR_PMON_BOX_FILTER", EVF_PCU_BAND, 0x5, NULL, NULL,
	  &hsx_pcu_filter },
};

/*
 * PCU, Table 2-155 / Table 1-2: BOX_CTL 0x710, CTL0-3 0x711-0x714,
 * BOX_FILTER 0x715, BOX_STATUS 0x716, CTR0-3 0x717-0x71A.  "5b per
 * cycle" (2.8.1) and POWER_STATE_OCCUPANCY (cores in a C-state, at most
 * one per core, 18 cores) bound the increment at 18.
 */
static const struct unit_type hsx_pcu = {
	.name = "pcu",
	.desc = "PCU: power control unit (C-states, frequency limits, transitions)",
	.source = "Table 2-155, Table 1-2",
	.kind = UNIT_PROG,
	.space = HW_MSR,
	.max_inst = 1,
	.base = 0x710, .inst_stride = 0,
	.nctr = 4, .width = 48,
	.ctl_off = 0x1, .ctl_stride = 1,
	.ctr_off = 0x7, .ctr_stride = 1,
	.ctl_layout = &hsx_pcu_ctl,
	.ctr_layout = &hsx_pcu_ctr,
	.fmt = HSX_PCU_FMT,
	.global_ovf_bit = 2,		/* Table 2-3 ov_p */
	.max_rate = HSX_RATE(18),
	.max_clk_hz = HSX_MAX_CLK_HZ,
	.box_ctl_layout = &hsx_pcu_box_ctl, .box_ctl_off = 0x0,
	.box_status_layout = &hsx_pcu_status, .box_status_off = 0x6,
	.box_ctl_must1 = HSX_BOX_MUST1,
	.filters = hsx_pcu_filters, .nfilters = ARRAY_SIZE(hsx_pcu_filters),
	.ev_ext_bit = 21,
	.occ_edge_bit = 31, .occ_inv_bit = 30,
	.perf = &hsx_kpmu_pcu,
};

/*
 * PCU free-running C-state residency counters, Table 2-155 and Tables
 * 2-161 .. 2-164: 64-bit RO MSRs outside PMON (not frozen, not reset).
 * Table 1-2 also lists 0x3F9, which no table of the manual defines: Linux
 * (arch/x86/events/intel/cstate.c, MSR_PKG_C6_RESIDENCY, HASWELL_X) reads
 * it as package C6.  Scopes (cstate.c "Scope: Core" / "Scope: Package"):
 * CC3/CC6 have one MSR per physical core, so they are read on every core
 * of the socket and summed; PC2/PC3/PC6 one per package (notes: PCU
 * C-state counters).  The offsets are the MSR indices (base 0).  Names
 * are the catalog's.
 */
static const struct freerun_ctr hsx_pcu_cstate_ctrs[] = {
	{ "UNC_P_CORE_CC6_CTR", 0x3FD, 64, 8,
	  "Cycles the socket's cores spent in C6, summed over its cores "
	  "(PCU_MSR_CORE_CC6_CTR, core scope)",
	  HSX_MAX_CLK_HZ * PLAT_MAX_CORES, true,
	  .perf_pmu = "cstate_core", .perf_event = "c6-residency" },
	{ "UNC_P_CORE_CC3_CTR", 0x3FC, 64, 8,
	  "Cycles the socket's cores spent in C3, summed over its cores "
	  "(PCU_MSR_CORE_CC3_CTR, core scope)",
	  HSX_MAX_CLK_HZ * PLAT_MAX_CORES, true,
	  .perf_pmu = "cstate_core", .perf_event = "c3-residency" },
	{ "UNC_P_CORE_PC2_CTR", 0x60D, 64, 8,
	  "Cycles the package is in C2 (PCU_MSR_CORE_PC2_CTR)",
	  HSX_MAX_CLK_HZ, false,
	  .perf_event = "c2-residency" },
	{ "UNC_P_CORE_PC3_CTR", 0x3F8, 64, 8,
	  "Cycles the package is in C3 (PCU_MSR_CORE_PC3_CTR)",
	  HSX_MAX_CLK_HZ, false,
	  .perf_event = "c3-residency" },
	{ "UNC_P_CORE_PC6_CTR", 0x3F9, 64, 8,
	  "Cycles the package is in C6 (MSR_PKG_C6_RESIDENCY)",
	  HSX_MAX_CLK_HZ, false,
	  .perf_event = "c6-residency" },
};

static const struct unit_type hsx_pcu_cstate = {
	.name = "pcu_cstate",
	.desc = "PCU free-running C-state residency counters (non-PMON)",
	.source = "Table 2-155, Tables 2-161 to 2-164",
	.kind = UNIT_FREERUN,
	.space = HW_MSR,
	.max_inst = 1,
	.base = 0, .inst_stride = 0,
	.nctr = 0, .width = 64,
	.fmt = HSX_NO_FMT,
	.global_ovf_bit = NONE,
	.freerun = hsx_pcu_cstate_ctrs,
	.nfreerun = ARRAY_SIZE(hsx_pcu_cstate_ctrs),
	.perf = &kpmu_snb_cstate_pkg,
};

/* ---- unit types: PCI space ------------------------------------------- */

/* HA0 D18:F1, HA1 D18:F5 (Tables 1-3, 2-60). */
static const uint32_t hsx_ha_devfn[] = { HSX_DEVFN(18, 1), HSX_DEVFN(18, 5) };
static const uint16_t hsx_ha_did[] = { 0x2F30, 0x2F38 };
static const uint8_t hsx_ha_ovf[] = { 21, 22 };	/* ov_h0, ov_h1 */

static const struct unit_filter hsx_ha_filters[] = {
	{ "HAn_PCI_PMON_BOX_ADDRMATCH0", EVF_HA_MATCH, 0x40, NULL, NULL,
	  &hsx_ha_addrmatch0 },
	{ "HAn_PCI_PMON_BOX_ADDRMATCH1", EVF_HA_MATCH, 0x44, NULL, NULL,
	  &hsx_ha_addrmatch1 },
	{ "HAn_PCI_PMON_BOX_OPCODEMATCH", EVF_HA_MATCH, 0x48, NULL, NULL,
	  &hsx_ha_opcodematch },
};


/*
 * The PMON register geometry every PCI box shares (Table 1-3: "F8-F4 Box
 * Control/Status, E4-D8 Counter Config Registers, BC-A0 Counter
 * Registers"; the IRP's "E4-E0 & DC-D8" / "B8-B0 & A8-A0" and the R3QPI's
 * three counters are the same layout): box control at 0xF4, box status at
 * 0xF8, control i at 0xD8 + 4i, counter i (48 bits in two dwords) at
 * 0xA0 + 8i.
 */
#define HSX_PCI_BOX                                                     \
	.kind = UNIT_PROG, .space = HW_PCI,                             \
	.ctl_off = 0xD8, .ctl_stride = 4,                               \
	.ctr_off = 0xA0, .ctr_stride = 8,                               \
	.box_ctl_off = 0xF4, .box_status_off = 0xF8
/*
 * HA, Table 2-60: BOX_STATUS F8, BOX_CTL F4, CTL0-3 D8..E4, CTR0-3
 * A0..B8 (32x2), match filters 40/44/48.  BT_OCCUPANCY adds up to 512
 * per cycle (2.5.6; the overview says 128).
 */
static const struct unit_type hsx_ha = {
	.name = "ha",
	.desc = "Home agent: memory-side coherency and ordering",
	.source = "Table 2-60, Table 1-3",
	HSX_PCI_BOX,
	.max_inst = 2,
	.inst_base = hsx_ha_devfn,
	.nctr = 4, .width = 48,
	.ctl_layout = &hsx_ha_ctl,
	.ctr_layout = &hsx_ha_ctr,
	.fmt = HSX_PCI_FMT,
	.global_ovf_bit = 21,
	.max_rate = HSX_RATE(512),
	.max_clk_hz = HSX_MAX_CLK_HZ,
	.box_ctl_layout = &hsx_ha_box_ctl,
	.box_status_layout = &hsx_ha_status,
	.box_ctl_must1 = HSX_BOX_MUST1,
	.filters = hsx_ha_filters, .nfilters = ARRAY_SIZE(hsx_ha_filters),
	.inst_global_ovf = hsx_ha_ovf,
	.pci_devid = hsx_ha_did,
	.perf = &hsx_kpmu_ha,
};

/*
 * iMC channels, Table 2-111 / Table 1-3: instance 4m + c is iMC m channel
 * c: MC0 D20:F0, D20:F1, D21:F0, D21:F1; MC1 D23:F0, D23:F1, D24:F0,
 * D24:F1.  Device IDs as Table 2-111 prints them (Table 1-3's "0x2B1" is
 * 0x2FB1); discovery accepts any of them at any channel (notes: iMC
 * device IDs).
 */
static const uint32_t hsx_imc_devfn[] = {
	HSX_DEVFN(20, 0), HSX_DEVFN(20, 1), HSX_DEVFN(21, 0), HSX_DEVFN(21, 1),
	HSX_DEVFN(23, 0), HSX_DEVFN(23, 1), HSX_DEVFN(24, 0), HSX_DEVFN(24, 1),
};
static const uint16_t hsx_imc_did[] = {
	0x2FB4, 0x2FB5, 0x2FB0, 0x2FB1, 0x2FD4, 0x2FD5, 0x2FD0, 0x2FD1,
};
static const uint8_t hsx_imc_ovf[] = { 23, 23, 23, 23, 24, 24, 24, 24 };

/* iMC channel PMON, Table 2-111: BOX_STATUS F8, BOX_CTL F4, CTL0-3
 * D8..E4, CTR0-3 A0..B8.  Largest increment 32 (VMSE_MXB_WR_OCCUPANCY). */
static const struct unit_type hsx_imc = {
	.name = "imc",
	.desc = "Integrated memory controller channel",
	.source = "Table 2-111, Table 1-3",
	HSX_PCI_BOX,
	.max_inst = 8,
	.inst_base = hsx_imc_devfn,
	.nctr = 4, .width = 48,
	.ctl_layout = &hsx_imc_ctl,
	.ctr_layout = &hsx_imc_ctr,
	.fmt = HSX_PCI_FMT,
	.global_ovf_bit = 23,
	.max_rate = HSX_RATE(32),
	.max_clk_hz = HSX_MAX_CLK_HZ,
	.box_ctl_layout = &hsx_imc_box_ctl,
	.box_status_layout = &hsx_imc_status,
	.box_ctl_must1 = HSX_BOX_MUST1,
	.inst_global_ovf = hsx_imc_ovf,
	.pci_devid = hsx_imc_did,
	.perf = &hsx_kpmu_imc,
};

/*
 * iMC channel fixed DCLK counter, Table 2-111: FIXED_CTL F0, FIXED_CTR
 * D0 (D4+D0), Tables 2-115/2-116.  Same PCI functions as imc; it has no
 * box control of its own: the channel's (unit imc) freezes and resets it
 * too (notes: iMC box status bits).
 */
static const struct unit_type hsx_imc_fixed = {
	.name = "imc_fixed",
	.desc = "iMC channel fixed counter: DRAM clock (DCLK) cycles",
	.source = "Table 2-111, Table 2-115, Table 2-116",
	.kind = UNIT_FIXED,
	.space = HW_PCI,
	.max_inst = 8,
	.inst_base = hsx_imc_devfn,
	.nctr = 1, .width = 48,
	.ctl_off = 0xF0, .ctl_stride = 0,
	.ctr_off = 0xD0, .ctr_stride = 0,
	.ctl_layout = &hsx_imc_fixed_ctl,
	.ctr_layout = &hsx_imc_ctr,
	.fmt = HSX_FIXED_FMT(19),
	.global_ovf_bit = 23,
	.max_rate = HSX_MAX_CLK_HZ,
	.inst_global_ovf = hsx_imc_ovf,
	.pci_devid = hsx_imc_did,
	.perf = &hsx_kpmu_imc_fixed,
};

/* IRP D5:F6, 0x2F39 (Tables 1-3, 2-144). */
static const uint32_t hsx_irp_devfn[] = { HSX_DEVFN(5, 6) };
static const uint16_t hsx_irp_did[] = { 0x2F39 };

/*
 * IRP, Table 1-3: CTL "E4-E0 & DC-D8" = D8, DC, E0, E4; counters "B8-B0 &
 * A8-A0" = A0, A8, B0, B8.  Table 2-144 instead prints counters at A0,
 * B0, B8, C0 (notes: IRP registers).  Four counters, one box (2.7.1: "two
 * sets of two", one box status).  No IRP filter register is listed
 * anywhere: EVF_IRP_FILTER events count unfiltered.
 */
static const struct unit_type hsx_irp = {
	.name = "irp",
	.desc = "IRP: coherency for IIO traffic",
	.source = "Table 1-3, Table 2-144",
	HSX_PCI_BOX,
	.max_inst = 1,
	.inst_base = hsx_irp_devfn,
	.nctr = 4, .width = 48,
	.ctl_layout = &hsx_irp_ctl,
	.ctr_layout = &hsx_irp_ctr,
	.fmt = HSX_PCI_FMT,
	.global_ovf_bit = 34,		/* Table 2-3 ov_irp */
	.max_rate = HSX_RATE(128),
	.max_clk_hz = HSX_MAX_CLK_HZ,
	.box_ctl_layout = &hsx_irp_box_ctl,
	.box_status_layout = &hsx_irp_status,
	.box_ctl_must1 = HSX_BOX_MUST1,
	.pci_devid = hsx_irp_did,
	.perf = &hsx_kpmu_irp,
};

/* QPI port p: PMON D8:F2, D9:F2, D10:F2; match/mask D8:F6, D9:F6,
 * D10:F6 (Tables 1-3, 2-167). */
static const uint32_t hsx_qpi_devfn[] = {
	HSX_DEVFN(8, 2), HSX_DEVFN(9, 2), HSX_DEVFN(10, 2),
};
static const uint16_t hsx_qpi_did[] = { 0x2F32, 0x2F33, 0x2F3A };
static const uint32_t hsx_qpi_mm_devfn[] = {
	HSX_DEVFN(8, 6), HSX_DEVFN(9, 6), HSX_DEVFN(10, 6),
};
static const uint16_t hsx_qpi_mm_did[] = { 0x2F86, 0x2F96, 0x2F46 };
/* ov_q0 for QPI0 (ports 0, 1), ov_q1 for QPI1 (port 2) */
static const uint8_t hsx_qpi_ovf[] = { 25, 25, 26 };

/* Table 2-167: packet match/mask, receive and transmit, in function 6. */
static const struct unit_filter hsx_qpi_filters[] = {
	{ "Q_Py_PCI_PMON_PKT_RX_MATCH0", EVF_QPI_MATCH, 0x228,
	  hsx_qpi_mm_devfn, hsx_qpi_mm_did, &hsx_qpi_match0 },
	{ "Q_Py_PCI_PMON_PKT_RX_MATCH1", EVF_QPI_MATCH, 0x22C,
	  hsx_qpi_mm_devfn, hsx_qpi_mm_did, &hsx_qpi_match1 },
	{ "Q_Py_PCI_PMON_PKT_RX_MASK0", EVF_QPI_MATCH, 0x238,
	  hsx_qpi_mm_devfn, hsx_qpi_mm_did, &hsx_qpi_mask0 },
	{ "Q_Py_PCI_PMON_PKT_RX_MASK1", EVF_QPI_MATCH, 0x23C,
	  hsx_qpi_mm_devfn, hsx_qpi_mm_did, &hsx_qpi_mask1 },
	{ "Q_Py_PCI_PMON_PKT_TX_MATCH0", EVF_QPI_MATCH, 0x200,
	  hsx_qpi_mm_devfn, hsx_qpi_mm_did, &hsx_qpi_match0 },
	{ "Q_Py_PCI_PMON_PKT_TX_MATCH1", EVF_QPI_MATCH, 0x204,
	  hsx_qpi_mm_devfn, hsx_qpi_mm_did, &hsx_qpi_match1 },
	{ "Q_Py_PCI_PMON_PKT_TX_MASK0", EVF_QPI_MATCH, 0x210,
	  hsx_qpi_mm_devfn, hsx_qpi_mm_did, &hsx_qpi_mask0 },
	{ "Q_Py_PCI_PMON_PKT_TX_MASK1", EVF_QPI_MATCH, 0x214,
	  hsx_qpi_mm_devfn, hsx_qpi_mm_did, &hsx_qpi_mask1 },
};

/* QPI port, Table 2-167: BOX_STATUS F8, BOX_CTL F4, CTL0-3 D8..E4,
 * CTR0-3 A0..B8; largest increment 128 (RxL_OCCUPANCY; "9b" in 2.9.1). */
static const struct unit_type hsx_qpi = {
	.name = "qpi",
	.desc = "QPI link layer port",
	.source = "Table 2-167, Table 1-3",
	HSX_PCI_BOX,
	.max_inst = 3,
	.inst_base = hsx_qpi_devfn,
	.nctr = 4, .width = 48,
	.ctl_layout = &hsx_qpi_ctl,
	.ctr_layout = &hsx_qpi_ctr,
	.fmt = HSX_QPI_FMT,
	.global_ovf_bit = 25,
	.max_rate = HSX_RATE(128),
	.max_clk_hz = HSX_MAX_CLK_HZ,
	.box_ctl_layout = &hsx_qpi_box_ctl,
	.box_status_layout = &hsx_qpi_status,
	.box_ctl_must1 = HSX_BOX_MUST1,
	.filters = hsx_qpi_filters, .nfilters = ARRAY_SIZE(hsx_qpi_filters),
	.ev_ext_bit = 21,
	.inst_global_ovf = hsx_qpi_ovf,
	.pci_devid = hsx_qpi_did,
	.perf = &hsx_kpmu_qpi,
};

/*
 * QPI free-running link counters, Tables 2-178/2-179: LINK_IDLE C8,
 * LINK_LLR D0, 32 bits, in the port's PMON function (Table 1-3 lists
 * them under D8,9:F2 / D10:F2; notes: QPI link counters).  At most one
 * per qfclk: they wrap after 1.79 s.
 */
static const struct freerun_ctr hsx_qpi_link_ctrs[] = {
	{ "UNC_Q_LINK_IDLE", 0xC8, 32, 4,
	  "Cycles the receive side of the link is idle, including null cycles and L1",
	  HSX_MAX_QFCLK_HZ },
	{ "UNC_Q_LINK_LLR", 0xD0, 32, 4,
	  "Cycles the receive side of the link is in link-level retry",
	  HSX_MAX_QFCLK_HZ },
};

static const struct unit_type hsx_qpi_link = {
	.name = "qpi_link",
	.desc = "QPI port free-running link counters (idle, LLR)",
	.source = "Table 1-3, Table 2-167, Tables 2-178, 2-179",
	.kind = UNIT_FREERUN,
	.space = HW_PCI,
	.max_inst = 3,
	.inst_base = hsx_qpi_devfn,
	.nctr = 0, .width = 32,
	.fmt = HSX_NO_FMT,
	.global_ovf_bit = NONE,
	.freerun = hsx_qpi_link_ctrs,
	.nfreerun = ARRAY_SIZE(hsx_qpi_link_ctrs),
	.pci_devid = hsx_qpi_did,
};

/* R2PCIe D16:F1, 0x2F34 (Tables 1-3, 2-212). */
static const uint32_t hsx_r2_devfn[] = { HSX_DEVFN(16, 1) };
static const uint16_t hsx_r2_did[] = { 0x2F34 };

/* R2PCIe, Table 2-212: BOX_STATUS F8, BOX_CTL F4, CTL0-3 D8..E4, CTR0-3
 * A0..B8; controls written twice (2.10.2.2; notes: SBo, R2PCIe and R3QPI
 * errata); largest increment 24. */
static const struct unit_type hsx_r2pcie = {
	.name = "r2pcie",
	.desc = "R2PCIe: ring to PCIe interface",
	.source = "Table 2-212, Table 1-3",
	HSX_PCI_BOX,
	.max_inst = 1,
	.inst_base = hsx_r2_devfn,
	.nctr = 4, .width = 48,
	.ctl_layout = &hsx_r2_ctl,
	.ctr_layout = &hsx_r2_ctr,
	.fmt = HSX_PCI_FMT,
	.global_ovf_bit = 29,		/* Table 2-3 ov_rp */
	.max_rate = HSX_RATE(24),
	.max_clk_hz = HSX_MAX_CLK_HZ,
	.box_ctl_layout = &hsx_r2_box_ctl,
	.box_status_layout = &hsx_r2_status,
	.pci_devid = hsx_r2_did,
	.quirks = UNIT_Q_CTL_TWICE,
	.perf = &hsx_kpmu_r2pcie,
};

/* R3QPI link l: D11:F1, D11:F2 (R3QPI0), D11:F5 (R3QPI1), Table 1-3
 * (Table 2-229 lists links 0 and 1 only). */
static const uint32_t hsx_r3_devfn[] = {
	HSX_DEVFN(11, 1), HSX_DEVFN(11, 2), HSX_DEVFN(11, 5),
};
static const uint16_t hsx_r3_did[] = { 0x2F36, 0x2F37, 0x2F3E };
static const uint8_t hsx_r3_ovf[] = { 27, 27, 28 };	/* ov_rq0, ov_rq1 */

/* R3QPI link, Table 2-229: BOX_STATUS F8, BOX_CTL F4, CTL0-2 D8..E0,
 * CTR0-2 A0..B0; controls written twice (2.11.1); width 44 (notes:
 * counter widths); largest increment 32. */
static const struct unit_type hsx_r3qpi = {
	.name = "r3qpi",
	.desc = "R3QPI: ring to QPI interface, per link",
	.source = "Table 2-229, Table 1-3",
	HSX_PCI_BOX,
	.max_inst = 3,
	.inst_base = hsx_r3_devfn,
	.nctr = 3, .width = 44,
	.ctl_layout = &hsx_r3_ctl,
	.ctr_layout = &hsx_r3_ctr,
	.fmt = HSX_PCI_FMT,
	.global_ovf_bit = 27,
	.max_rate = HSX_RATE(32),
	.max_clk_hz = HSX_MAX_CLK_HZ,
	.box_ctl_layout = &hsx_r3_box_ctl,
	.box_status_layout = &hsx_r3_status,
	.inst_global_ovf = hsx_r3_ovf,
	.pci_devid = hsx_r3_did,
	.quirks = UNIT_Q_CTL_TWICE,
	.perf = &hsx_kpmu_r3qpi,
};

/* Order matters: topo_socket.ninst[] / absent[] and struct wl_key.unit
 * index it.  Manual section order. */
static const struct unit_type *const hsx_units[] = {
	&hsx_ubox, &hsx_ubox_fixed, &hsx_cbo, &hsx_sbox, &hsx_ha, &hsx_imc,
	&hsx_imc_fixed, &hsx_irp, &hsx_pcu, &hsx_pcu_cstate, &hsx_qpi,
	&hsx_qpi_link, &hsx_r2pcie, &hsx_r3qpi, NULL,
};

/* U_MSR_PMON_GLOBAL_CONFIG: num_c resets to 18 (Table 2-4); the simulator
 * sets it to its CBo count. */
static const struct plat_reg hsx_extra_regs[] = {
	{ .addr = HSX_MSR_GLOBAL_CONFIG, .layout = &hsx_global_config,
	  .reset = HSX_MAX_CBO },
};

/* ---- discovery ------------------------------------------------------- */

int hsx_node_to_package(uint32_t cpunodeid, uint32_t gidnidmap)
{
	return plat_node_to_package(cpunodeid, gidnidmap);
}

/* Finds the units present on socket s (notes: discovery). */
static int hsx_find_units(struct hw *hw, struct topo_socket *s)
{
	struct hw_addr a = hw_msr(s->cpu, HSX_MSR_GLOBAL_CONFIG);
	unsigned num_c;
	char cause[256];
	uint64_t v;
	int r;

	/* Table 2-4: num_c, the number of CBo counter sets. */
	r = hw_read(hw, &a, &v);
	if (r < 0) {
		snprintf(cause, sizeof(cause), "%s", hw_last_error());
		return hw_fail(-r, "cannot read U_MSR_PMON_GLOBAL_CONFIG (msr "
			       "0x%x on cpu %" PRIu32 ", socket %u): %s",
			       HSX_MSR_GLOBAL_CONFIG, s->cpu, s->id, cause);
	}
	num_c = (unsigned)(v & HSX_GLOBAL_CONFIG_NUM_C);
	if ((r = plat_find_units(hw, s, hsx_units, &hsx_cbo,
				 num_c >= 1 && num_c <= HSX_MAX_CBO
				 ? num_c : HSX_MAX_CBO)) < 0)
		return r;
	if (!s->ninst[0])
		return hw_fail(ENODEV, "socket %u: the UBox MSRs (0x705..0x70A) "
			       "do not answer on cpu %" PRIu32 "; not a Xeon E5/E7 "
			       "v3 uncore?", s->id, s->cpu);
	if (!s->ninst[2])
		return hw_fail(ENODEV, "socket %u: no CBo answers (box controls "
			       "0xE00 + 0x10n on cpu %" PRIu32 ", num_c %u)", s->id,
			       s->cpu, num_c);
	return 0;
}

/* Manual 1.6.1: the UBox "socket ID" device marks each package's bus. */
static const struct plat_ubox_bus hsx_ubox_bus = {
	.vendor = HSX_PCI_VENDOR_INTEL, .device = HSX_UBOX_DID,
	.nodeid_off = HSX_UBOX_CPUNODEID, .map_off = HSX_UBOX_GIDNIDMAP,
	.part = "Xeon E5/E7 v3",
};

static int hsx_discover_map(struct hw *hw, struct topology *t,
			    const struct hw_cpu_map *m)
{
	return plat_discover_ubox_buses(hw, t, &plat_hsx, &hsx_ubox_bus, m,
					hsx_find_units);
}

static int hsx_discover(struct hw *hw, struct topology *t)
{
	return hsx_discover_map(hw, t, NULL);
}

/*
 * Section 2.1.2 f / 2.1.3: U_MSR_PMON_GLOBAL_CTL unfrz_all starts every
 * box of the socket counting, frz_all freezes them.  Both bits are
 * write-only: the register reads 0 either way (notes: global freeze).
 */
static int hsx_global_enable(struct hw *hw, const struct topology *t,
			     unsigned sock, bool on)
{
	struct hw_addr a;

	if (sock >= t->nsockets)
		return hw_fail(EINVAL, "global enable: no socket %u (have %u)",
			       sock, t->nsockets);
	a = hw_msr(t->sock[sock].cpu, HSX_MSR_GLOBAL_CTL);
	return hw_write(hw, &a, on ? HSX_GLOBAL_UNFRZ_ALL : HSX_GLOBAL_FRZ_ALL);
}

static const struct plat_ops hsx_ops = {
	.discover = hsx_discover,
	.global_enable = hsx_global_enable,
	.discover_map = hsx_discover_map,
	.reset_boxes = plat_reset_boxes,
	.check = plat_global_check,
};

/* doc/design.md section 2: CPUID family 6, model 0x3F (Haswell-EP/EX). */
static const struct cpu_match hsx_cpus[] = {
	{ 6, 0x3F },
	{ 0, 0 },
};

/* What the daemon counts without a [baseline]: every headline event. */
/* memory read latency, "all" (plat_hsx.h): counter 0 of every CBo and
 * one more; [baseline] memory_latency = no leaves them out */
static const char *const hsx_baseline_latency[] = {
	HSX_LAT_OCC("MISS_OPCODE"), HSX_LAT_INS("MISS_OPCODE"), NULL
};

/* frequency limits (2.8.6): what capped the cores' frequency, in PCU
 * cycles; [baseline] frequency_limits decides whether they count */
static const char *const hsx_baseline_freq[] = {
	"UNC_P_FREQ_MAX_LIMIT_THERMAL_CYCLES", "UNC_P_FREQ_MAX_POWER_CYCLES",
	"UNC_P_FREQ_MAX_OS_CYCLES", "UNC_P_PROCHOT_INTERNAL_CYCLES",
	"UNC_P_PROCHOT_EXTERNAL_CYCLES", NULL
};

static const char *const hsx_baseline[] = {
	HSX_LLC_LOOKUPS, HSX_LLC_MISSES,
	"UNC_M_CAS_COUNT.RD", "UNC_M_CAS_COUNT.WR", "UNC_M_CLOCKTICKS",
	"UNC_U_CLOCKTICKS",
	"UNC_Q_TxL_FLITS_G0.DATA", "UNC_Q_TxL_FLITS_G0.NON_DATA",
	"UNC_H_REQUESTS.READS_LOCAL", "UNC_H_REQUESTS.READS_REMOTE",
	"UNC_H_REQUESTS.WRITES_LOCAL", "UNC_H_REQUESTS.WRITES_REMOTE",
	"UNC_P_CORE_CC3_CTR", "UNC_P_CORE_CC6_CTR", "UNC_P_CORE_PC2_CTR",
	"UNC_P_CORE_PC3_CTR", "UNC_P_CORE_PC6_CTR",
	HSX_BAND(0), HSX_BAND(1), HSX_BAND(2), HSX_BAND(3),
	NULL,
};

const struct platform plat_hsx = {
	.id = "hsx",
	.name = "Intel Xeon E5/E7 v3 (Haswell-EP/EX)",
	.manual = "Intel Xeon Processor E5 and E7 v3 Family Uncore Performance "
		  "Monitoring Reference Manual, 331051-002, June 2015",
	.cpus = hsx_cpus,
	.units = hsx_units,
	/* Table 2-1: U_MSR_PMON_GLOBAL_CTL 0x700, _STATUS 0x701. */
	.global_ctl = { .addr = HSX_MSR_GLOBAL_CTL, .layout = &hsx_global_ctl,
			.reset = 0 },
	.global_enable = HSX_GLOBAL_UNFRZ_ALL,
	.global_status = { .addr = HSX_MSR_GLOBAL_STATUS,
			   .layout = &hsx_global_status, .reset = 0 },
	.extra_regs = hsx_extra_regs,
	.nextra_regs = ARRAY_SIZE(hsx_extra_regs),
	.events = hsx_events,
	.nevents = HSX_NEVENTS,
	.ops = &hsx_ops,
	.derived = &derived_hsx,
	.baseline = hsx_baseline,
	.baseline_latency = hsx_baseline_latency,
	.baseline_freq = hsx_baseline_freq,
	.sim = &plat_hsx_sim,
	.backends = PLAT_BE_DIRECT | PLAT_BE_PERF,
};
