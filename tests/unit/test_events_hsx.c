/*
 * test_events_hsx.c - the hsx event catalog (src/plat/events_hsx.c,
 * generated from the Xeon E5/E7 v3 uncore manual 331051-002).
 *
 * Whole-catalog invariants (counts per box, unique names and encodings,
 * counters within each box, filters and extension fields consistent) and
 * spot checks of encodings read off the manual by hand, several per box,
 * including every kind of correction the generator makes (see
 * doc/hardware-notes.md, "Event catalog corrections"); and every entry
 * against the facts the generator read from the manual
 * (tests/data/hsx-manual-facts.tsv), which a clone without the manual
 * has too.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plat/plat.h"
#include "plat/events_hsx.h"
#include "tests/tap.h"
#include "tests/catalog_checks.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct event *find(const char *name)
{
	for (size_t i = 0; i < hsx_nevents; i++)
		if (strcmp(hsx_events[i].name, name) == 0)
			return &hsx_events[i];
	return NULL;
}

/* One programmable box: its catalog unit name, name prefix, counters,
 * the number of events its event list has and the entries they make
 * (one per unit mask, or one for an event without unit masks). */
static const struct box {
	const char *unit, *prefix;
	uint8_t ctrs;			/* mask of the box's counters */
	unsigned events, entries;
} boxes[] = {
	{ "ubox",   "UNC_U_",  0x3,  3,   3 },	/* 2.2.5 */
	{ "cbo",    "UNC_C_",  0xf, 28, 144 },	/* 2.3.6 */
	{ "sbox",   "UNC_S_",  0xf, 14,  60 },	/* 2.4.6 */
	{ "ha",     "UNC_H_",  0xf, 50, 189 },	/* 2.5.5 */
	{ "imc",    "UNC_M_",  0xf, 43, 324 },	/* 2.6.7 */
	{ "irp",    "UNC_I_",  0xf, 22,  56 },	/* 2.7.5 */
	{ "pcu",    "UNC_P_",  0xf, 59,  61 },	/* 2.8.6 */
	{ "qpi",    "UNC_Q_",  0xf, 52, 118 },	/* 2.9.6 */
	{ "r2pcie", "UNC_R2_", 0xf, 13,  45 },	/* 2.10.6 */
	{ "r3qpi",  "UNC_R3_", 0x7, 28, 137 },	/* 2.11.6 */
};

static const struct box *box_of(const char *unit)
{
	for (size_t i = 0; i < ARRAY_SIZE(boxes); i++)
		if (strcmp(boxes[i].unit, unit) == 0)
			return &boxes[i];
	return NULL;
}

/* Length of the event part of a name (up to the '.' of the unit mask). */
static size_t stem(const char *name)
{
	const char *dot = strchr(name, '.');

	return dot ? (size_t)(dot - name) : strlen(name);
}

static void test_counts(void)
{
	unsigned total = 0;

	for (size_t b = 0; b < ARRAY_SIZE(boxes); b++) {
		unsigned entries = 0, events = 0;

		for (size_t i = 0; i < hsx_nevents; i++) {
			const struct event *e = &hsx_events[i];

			if (strcmp(e->unit, boxes[b].unit) != 0)
				continue;
			entries++;
			/* entries of one event are adjacent, in manual order */
			if (i == 0 || strcmp(hsx_events[i - 1].unit, e->unit) ||
			    stem(hsx_events[i - 1].name) != stem(e->name) ||
			    strncmp(hsx_events[i - 1].name, e->name,
				    stem(e->name)) != 0)
				events++;
		}
		is_int(events, boxes[b].events,
		       "%s: %u events in the event list", boxes[b].unit,
		       boxes[b].events);
		is_int(entries, boxes[b].entries, "%s: %u catalog entries",
		       boxes[b].unit, boxes[b].entries);
		total += entries;
	}
	is_int(total, 1137, "1137 entries from the ten event lists");
	is_int(hsx_nevents, HSX_NEVENTS, "hsx_nevents == HSX_NEVENTS");
	is_int(hsx_nevents, total + 9,
	       "plus 9 fixed / free-running counters (PC6 0x3F9 from Table "
	       "1-2 and Linux)");
}

static void test_unique(void)
{
	check_unique(hsx_events, hsx_nevents);
}

static void test_fields(void)
{
	size_t bad_ctr = 0, bad_prefix = 0, bad_text = 0, bad_filter = 0,
	       bad_ext = 0, bad_occ = 0, bad_fixed = 0, bad_inc = 0;
	const uint32_t filters = EVF_FILTER0 | EVF_FILTER1 | EVF_HA_MATCH |
				 EVF_PCU_BAND | EVF_QPI_MATCH | EVF_IRP_FILTER;

	for (size_t i = 0; i < hsx_nevents; i++) {
		const struct event *e = &hsx_events[i];
		const struct box *b = box_of(e->unit);

		if (!ascii_text(e->desc) || !ascii_text(e->source) ||
		    strncmp(e->source, "2.", 2) != 0)
			bad_text++;
		if (!!e->filter != !!(e->flags & filters) ||
		    (e->filter && !ascii_text(e->filter)))
			bad_filter++;
		if (e->thresh || e->edge || e->inv)
			bad_text++;
		if (!b) {
			/* fixed and free-running counters */
			if (e->ctr_mask || e->code || e->umask ||
			    !(e->flags & (EVF_FIXED | EVF_FREERUN)) ||
			    (e->flags & filters))
				bad_fixed++;
			continue;
		}
		if (!e->ctr_mask || (e->ctr_mask & ~b->ctrs))
			bad_ctr++;
		if (strncmp(e->name, b->prefix, strlen(b->prefix)) != 0)
			bad_prefix++;
		if (e->flags & (EVF_FIXED | EVF_FREERUN))
			bad_fixed++;
		/* the event select extension exists in QPI (and PCU, where
		 * the manual uses no event with it) */
		if (e->ev_sel_ext > 1 ||
		    (e->ev_sel_ext && strcmp(e->unit, "qpi") != 0))
			bad_ext++;
		/* occ_sel: PCU events with ev_sel bit 7, = umask bits 7:6 */
		if (strcmp(e->unit, "pcu") == 0 && (e->code & 0x80)) {
			if (!e->occ_sel || e->occ_sel != e->umask >> 6 ||
			    (e->umask & 0x3f))
				bad_occ++;
		} else if (e->occ_sel) {
			bad_occ++;
		}
		if (e->max_inc_wide && (e->max_inc || e->max_inc_wide <= 255))
			bad_inc++;
	}
	is_int(bad_ctr, 0, "every ctr_mask non-zero and within its box "
	       "(UBox 2, R3QPI 3, others 4 counters)");
	is_int(bad_prefix, 0, "every name has its box's UNC_x_ prefix");
	is_int(bad_text, 0, "every desc and source is printable ASCII, "
	       "no thresh/edge/inv");
	is_int(bad_filter, 0, "filter text iff a filter flag");
	is_int(bad_ext, 0, "ev_sel_ext only on QPI events, 0 or 1");
	is_int(bad_occ, 0, "occ_sel exactly on PCU occupancy events, "
	       "= umask >> 6");
	is_int(bad_fixed, 0, "ctr_mask 0 exactly for EVF_FIXED / "
	       "EVF_FREERUN entries");
	is_int(bad_inc, 0, "max_inc_wide only beyond 255, max_inc then 0");
}

/* Expected values of one entry. */
struct want {
	const char *name, *unit;
	uint8_t code, umask, ctr_mask;
	unsigned max_inc;		/* max_inc, or max_inc_wide if > 255 */
	uint8_t ext, occ;
	uint32_t flags;
	const char *filter;		/* NULL: none */
};

static void check(const struct want *w)
{
	const struct event *e = find(w->name);

	if (!ok(e != NULL, "%s is in the catalog", w->name))
		return;
	is_str(e->unit, w->unit, "%s: unit", w->name);
	is_u64(e->code, w->code, "%s: event code 0x%02x", w->name, w->code);
	is_u64(e->umask, w->umask, "%s: umask 0x%02x", w->name, w->umask);
	is_u64(e->ctr_mask, w->ctr_mask, "%s: counters 0x%x", w->name,
	       w->ctr_mask);
	if (w->max_inc > 255) {
		is_int(e->max_inc_wide, w->max_inc, "%s: max inc %u", w->name,
		       w->max_inc);
		is_int(e->max_inc, 0, "%s: max_inc 0 (does not fit)", w->name);
	} else {
		is_int(e->max_inc, w->max_inc, "%s: max inc %u", w->name,
		       w->max_inc);
	}
	is_int(e->ev_sel_ext, w->ext, "%s: ev_sel_ext %u", w->name, w->ext);
	is_int(e->occ_sel, w->occ, "%s: occ_sel %u", w->name, w->occ);
	is_u64(e->flags, w->flags, "%s: flags 0x%x", w->name,
	       (unsigned)w->flags);
	if (w->filter)
		is_str(e->filter, w->filter, "%s: filter %s", w->name,
		       w->filter);
	else
		ok(e->filter == NULL, "%s: no filter", w->name);
}

/* Values as printed in the manual's tables (section, table in comments). */
#define W(n, u, c, um, m, mi) \
	.name = n, .unit = u, .code = c, .umask = um, .ctr_mask = m, \
	.max_inc = mi
static const struct want wants[] = {
	/* UBox, 2.2.4 / 2.2.5 */
	{ W("UNC_U_EVENT_MSG.DOORBELL_RCVD", "ubox", 0x42, 0x08, 0x3, 1) },
	{ W("UNC_U_PHOLD_CYCLES.ASSERT_TO_ACK", "ubox", 0x45, 0x01, 0x3, 1) },
	{ W("UNC_U_RACU_REQUESTS", "ubox", 0x46, 0x00, 0x3, 1) },

	/* CBo, 2.3.4 / 2.3.6 */
	{ W("UNC_C_LLC_LOOKUP.ANY", "cbo", 0x34, 0x11, 0xf, 1),	/* 2-21 */
	  .flags = EVF_FILTER0, .filter = "CBoFilter0[23:17]" },
	{ W("UNC_C_LLC_LOOKUP.DATA_READ", "cbo", 0x34, 0x03, 0xf, 1),
	  .flags = EVF_FILTER0, .filter = "CBoFilter0[23:17]" },
	/* printed CBoFilter0[22:18]; Table 2-18's state field is 23:17 */
	{ W("UNC_C_LLC_LOOKUP.READ", "cbo", 0x34, 0x21, 0xf, 1),
	  .flags = EVF_FILTER0, .filter = "CBoFilter0[23:17]" },
	/* printed CBoFilter1[17:10]; Table 2-19's nid field is 15:0 */
	{ W("UNC_C_LLC_VICTIMS.NID", "cbo", 0x37, 0x40, 0xf, 1),
	  .flags = EVF_FILTER1, .filter = "CBoFilter1[15:0]" },
	{ W("UNC_C_TOR_OCCUPANCY.ALL", "cbo", 0x36, 0x08, 0x1, 20) }, /* 2-41 */
	{ W("UNC_C_TOR_OCCUPANCY.MISS_OPCODE", "cbo", 0x36, 0x03, 0x1, 20),
	  .flags = EVF_FILTER1, .filter = "CBoFilter1[28:20]" },
	/* sheet 2 of Table 2-41, transcribed from the scrambled text */
	{ W("UNC_C_TOR_OCCUPANCY.MISS_REMOTE", "cbo", 0x36, 0x8a, 0x1, 20) },
	{ W("UNC_C_TOR_OCCUPANCY.NID_MISS_OPCODE", "cbo", 0x36, 0x43, 0x1, 20),
	  .flags = EVF_FILTER1,
	  .filter = "CBoFilter1[28:20], CBoFilter1[15:0]" },
	{ W("UNC_C_TOR_INSERTS.NID_OPCODE", "cbo", 0x35, 0x41, 0xf, 1),
	  .flags = EVF_FILTER1,				/* 2-40 */
	  .filter = "CBoFilter1[28:20], CBoFilter1[15:0]" },
	{ W("UNC_C_TOR_INSERTS.EVICTION", "cbo", 0x35, 0x04, 0xf, 1) },
	/* printed bx1xxxxx (7 bits) */
	{ W("UNC_C_RxR_IRQ_RETRY2.TARGET", "cbo", 0x29, 0x40, 0xf, 1),
	  .flags = EVF_FILTER1, .filter = "CBoFilter1[15:0]" },
	{ W("UNC_C_RxR_IPQ_RETRY.FULL", "cbo", 0x31, 0x02, 0xf, 1) },
	{ W("UNC_C_RING_IV_USED.DOWN", "cbo", 0x1e, 0xcc, 0xf, 1) },
	{ W("UNC_C_COUNTER0_OCCUPANCY", "cbo", 0x1f, 0x00, 0xf, 20) },
	{ W("UNC_C_FAST_ASSERTED", "cbo", 0x09, 0x00, 0x3, 1) },
	{ W("UNC_C_SBO_CREDIT_OCCUPANCY.BL", "cbo", 0x3e, 0x02, 0x1, 7) },

	/* SBo, 2.4.4 / 2.4.6 */
	{ W("UNC_S_TxR_OCCUPANCY.AD_CRD", "sbox", 0x01, 0x01, 0xf, 12) },
	{ W("UNC_S_RING_BOUNCES.AK_CORE", "sbox", 0x05, 0x02, 0xf, 2) },
	{ W("UNC_S_RxR_BYPASS.IV", "sbox", 0x12, 0x20, 0xf, 12) },
	{ W("UNC_S_RING_IV_USED.DN", "sbox", 0x1e, 0x0c, 0xf, 1) },

	/* HA, 2.5.3 / 2.5.5 */
	{ W("UNC_H_REQUESTS.READS", "ha", 0x01, 0x03, 0xf, 1) },
	{ W("UNC_H_REQUESTS.WRITES", "ha", 0x01, 0x0c, 0xf, 1) },
	{ W("UNC_H_ADDR_OPC_MATCH.FILT", "ha", 0x20, 0x03, 0xf, 1),
	  .flags = EVF_HA_MATCH,
	  .filter = "HA_AddrMatch0[31:6], HA_AddrMatch1[13:0], "
		    "HA_OpcodeMatch[5:0]" },
	{ W("UNC_H_ADDR_OPC_MATCH.OPC", "ha", 0x20, 0x02, 0xf, 1),
	  .flags = EVF_HA_MATCH, .filter = "HA_OpcodeMatch[5:0]" },
	{ W("UNC_H_BT_OCCUPANCY", "ha", 0x43, 0x00, 0xf, 512) },
	/* counters "1", max inc "0" in both tables */
	{ W("UNC_H_CONFLICT_CYCLES", "ha", 0x0b, 0x00, 0x2, 0) },
	/* name printed in Cyrillic letters */
	{ W("UNC_H_HITME_HIT.HOM", "ha", 0x71, 0x0f, 0xf, 1) },
	/* printed bx1xxxxx (7 bits) */
	{ W("UNC_H_SNP_RESP_RECV_LOCAL.RSPCNFLCT", "ha", 0x60, 0x40, 0xf, 1) },
	{ W("UNC_H_TRACKER_OCCUPANCY.READS_LOCAL", "ha", 0x04, 0x04, 0xf,
	    128) },
	{ W("UNC_H_SBO0_CREDITS_ACQUIRED.BL", "ha", 0x68, 0x02, 0xf, 1) },
	{ W("UNC_H_TAD_REQUESTS_G1.REGION9", "ha", 0x1c, 0x02, 0xf, 2) },

	/* iMC, 2.6.5 / 2.6.7 */
	{ W("UNC_M_CAS_COUNT.RD", "imc", 0x04, 0x03, 0xf, 1) },	/* 2-119 */
	{ W("UNC_M_CAS_COUNT.WR", "imc", 0x04, 0x0c, 0xf, 1) },
	{ W("UNC_M_CAS_COUNT.RD_REG", "imc", 0x04, 0x01, 0xf, 1) },
	{ W("UNC_M_ACT_COUNT.BYP", "imc", 0x01, 0x08, 0xf, 1) },
	{ W("UNC_M_RD_CAS_RANK0.BANK0", "imc", 0xb0, 0x00, 0xf, 1) },
	{ W("UNC_M_RD_CAS_RANK6.BANK2", "imc", 0xb6, 0x02, 0xf, 1) },
	{ W("UNC_M_WR_CAS_RANK7.BANKG3", "imc", 0xbf, 0x14, 0xf, 1) },
	/* no unit-mask table in the manual */
	{ W("UNC_M_WR_CAS_RANK2", "imc", 0xba, 0x00, 0xf, 1) },
	{ W("UNC_M_POWER_CKE_CYCLES.RANK7", "imc", 0x83, 0x80, 0xf, 16) },
	{ W("UNC_M_POWER_THROTTLE_CYCLES.RANK0", "imc", 0x41, 0x01, 0xf, 1) },
	{ W("UNC_M_DCLOCKTICKS", "imc", 0x00, 0x00, 0xf, 1) },

	/* IRP, 2.7.4 / 2.7.5 */
	{ W("UNC_I_TRANSACTIONS.ORDERINGQ", "irp", 0x16, 0x40, 0x3, 1),
	  .flags = EVF_IRP_FILTER, .filter = "IRPFilter[4:0]" },
	{ W("UNC_I_CACHE_TOTAL_OCCUPANCY.SOURCE", "irp", 0x12, 0x02, 0x3, 128),
	  .flags = EVF_IRP_FILTER, .filter = "IRPFilter[4:0]" },
	{ W("UNC_I_MISC0.2ND_RD_INSERT", "irp", 0x14, 0x04, 0x3, 1) },
	{ W("UNC_I_MISC1.DATA_THROTTLE", "irp", 0x15, 0x80, 0x3, 1) },
	{ W("UNC_I_COHERENT_OPS.CLFLUSH", "irp", 0x13, 0x80, 0x3, 1) },
	{ W("UNC_I_RxR_BL_DRS_OCCUPANCY", "irp", 0x07, 0x00, 0x3, 24) },

	/* PCU, 2.8.4 / 2.8.6: occ_sel is control bits 15:14 */
	{ W("UNC_P_POWER_STATE_OCCUPANCY.CORES_C0", "pcu", 0x80, 0x40, 0xf, 8),
	  .occ = 1 },
	{ W("UNC_P_POWER_STATE_OCCUPANCY.CORES_C6", "pcu", 0x80, 0xc0, 0xf, 8),
	  .occ = 3 },
	{ W("UNC_P_FREQ_BAND2_CYCLES", "pcu", 0x0d, 0x00, 0xf, 1),
	  .flags = EVF_PCU_BAND, .filter = "PCUFilter[23:16]" },
	{ W("UNC_P_UFS_TRANSITIONS_RING_GV", "pcu", 0x79, 0x00, 0xf, 1) },
	{ W("UNC_P_CORE0_TRANSITION_CYCLES", "pcu", 0x60, 0x00, 0xf, 1) },
	{ W("UNC_P_DEMOTIONS_CORE17", "pcu", 0x41, 0x00, 0xf, 1) },
	{ W("UNC_P_PKG_RESIDENCY_C0_CYCLES", "pcu", 0x2a, 0x00, 0xf, 1) },

	/* QPI, 2.9.4 / 2.9.6: "Extra Select Bit" is ev_sel_ext */
	{ W("UNC_Q_TxL_FLITS_G0.DATA", "qpi", 0x00, 0x02, 0xf, 2) },
	{ W("UNC_Q_TxL_FLITS_G1.DRS", "qpi", 0x00, 0x18, 0xf, 2), .ext = 1 },
	{ W("UNC_Q_RxL_FLITS_G1.HOM_REQ", "qpi", 0x02, 0x02, 0xf, 2),
	  .ext = 1 },
	{ W("UNC_Q_RxL_FLITS_G2.NCB", "qpi", 0x03, 0x0c, 0xf, 2), .ext = 1 },
	{ W("UNC_Q_CTO_COUNT", "qpi", 0x38, 0x00, 0xf, 2), .ext = 1,
	  .flags = EVF_QPI_MATCH,
	  .filter = "QPIMask0[17:0], QPIMask1[19:16], QPIMatch1[19:16]" },
	{ W("UNC_Q_RxL_OCCUPANCY", "qpi", 0x0b, 0x00, 0xf, 128) },
	{ W("UNC_Q_RxL_INSERTS_NCS.VN1", "qpi", 0x0b, 0x02, 0xf, 1), .ext = 1 },
	{ W("UNC_Q_DIRECT2CORE.FAILURE_CREDITS_RBT_MISS", "qpi", 0x13, 0x80,
	    0xf, 1) },
	{ W("UNC_Q_TxR_AD_HOM_CREDIT_OCCUPANCY.VN0", "qpi", 0x22, 0x01, 0xf,
	    28), .ext = 1 },

	/* R2PCIe, 2.10.4 / 2.10.6 */
	{ W("UNC_R2_RxR_OCCUPANCY.DRS", "r2pcie", 0x13, 0x08, 0x1, 24) },
	{ W("UNC_R2_RING_AD_USED.CCW", "r2pcie", 0x07, 0x0c, 0xf, 1) },
	{ W("UNC_R2_IIO_CREDIT.ISOCH_QPI1", "r2pcie", 0x2d, 0x08, 0x3, 4) },
	{ W("UNC_R2_CLOCKTICKS", "r2pcie", 0x01, 0x00, 0xf, 1) },
	{ W("UNC_R2_SBO0_CREDITS_ACQUIRED.AD", "r2pcie", 0x28, 0x01, 0x3, 2) },

	/* R3QPI, 2.11.4 / 2.11.6 */
	{ W("UNC_R3_RxR_OCCUPANCY_VN1.NCS", "r3qpi", 0x13, 0x20, 0x1, 32) },
	{ W("UNC_R3_C_HI_AD_CREDITS_EMPTY.CBO8", "r3qpi", 0x1f, 0x01, 0x3, 1) },
	{ W("UNC_R3_VNA_CREDITS_ACQUIRED.BL", "r3qpi", 0x33, 0x04, 0x3, 4) },
	{ W("UNC_R3_RING_AK_USED.CW", "r3qpi", 0x08, 0x03, 0x7, 1) },
	{ W("UNC_R3_QPI0_AD_CREDITS_EMPTY.VN1_NDR", "r3qpi", 0x20, 0x40, 0x3,
	    1) },
	{ W("UNC_R3_CLOCKTICKS", "r3qpi", 0x01, 0x00, 0x7, 0) },

	/* fixed and free-running counters (register tables) */
	{ W("UNC_U_CLOCKTICKS", "ubox_fixed", 0, 0, 0, 0), .flags = EVF_FIXED },
	{ W("UNC_M_CLOCKTICKS", "imc_fixed", 0, 0, 0, 0), .flags = EVF_FIXED },
	{ W("UNC_P_CORE_CC6_CTR", "pcu_cstate", 0, 0, 0, 0),
	  .flags = EVF_FREERUN },
	{ W("UNC_Q_LINK_IDLE", "qpi_link", 0, 0, 0, 0), .flags = EVF_FREERUN },
};

static void test_absent(void)
{
	/* Not in either table of the manual (2.6.5 jumps from RD_CAS_RANK2
	 * to RD_CAS_RANK4; Table 2-129 has only BANK0 for rank 2). */
	ok(find("UNC_M_RD_CAS_RANK3.BANK0") == NULL &&
	   find("UNC_M_RD_CAS_RANK3") == NULL, "no RD_CAS_RANK3");
	ok(find("UNC_M_RD_CAS_RANK2.BANK0") != NULL &&
	   find("UNC_M_RD_CAS_RANK2.BANK1") == NULL,
	   "RD_CAS_RANK2 has BANK0 only");
	/* the OCR's spellings are not catalogued */
	ok(find("UNC_C_COUNTERO_OCCUPANCY") == NULL &&
	   find("UNC_R3_QPIO_AD_CREDITS_EMPTY.VNA") == NULL &&
	   find("UNC_R3_C_LO_AD_CREDITS_EMPTY.CB04") == NULL,
	   "no letter-O names");
}

int main(void)
{
	test_counts();
	test_unique();
	test_fields();
	for (size_t i = 0; i < ARRAY_SIZE(wants); i++)
		check(&wants[i]);
	test_absent();
	/* the facts the manual gives, carried in the repository: the
	 * manual's text is not ours to carry (tests/data/README) */
	{
		char path[512];
		const char *top = getenv("top_srcdir");

		snprintf(path, sizeof(path), "%s/tests/data/hsx-manual-facts.tsv",
			 top ? top : ".");
		check_facts(hsx_events, hsx_nevents, path);
	}
	return tap_done();
}
