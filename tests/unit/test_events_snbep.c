/*
 * test_events_snbep.c - the snbep event catalog (src/plat/events_snbep.c,
 * generated from Intel's Jaketown uncore event data, version 24).
 *
 * Whole-catalog invariants (entries per box, unique names and encodings,
 * every unit one the snbep platform has, counters within each box and
 * within the Linux kernel's event constraints, filters and extension
 * fields consistent) and spot checks of encodings read off the JSON data
 * by hand, several per box, including every kind of correction the
 * generator makes (see doc/hardware-notes.md, "Xeon E5-2600/4600 v1
 * (snbep)", "Event catalog corrections").
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "plat/plat.h"
#include "plat/events_snbep.h"
#include "tests/tap.h"
#include "tests/catalog_checks.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct event *find(const char *name)
{
	for (size_t i = 0; i < snbep_nevents; i++)
		if (strcmp(snbep_events[i].name, name) == 0)
			return &snbep_events[i];
	return NULL;
}

/* One programmable box: its catalog unit name, name prefix, counters
 * (uncore_snbep.c .num_counters) and the entries the data has for it. */
static const struct box {
	const char *unit, *prefix;
	uint8_t ctrs;			/* mask of the box's counters */
	unsigned entries;
} boxes[] = {
	/* UBOX has 24 in the data; UNC_U_CLOCKTICKS is the fixed counter */
	{ "ubox",   "UNC_U_",  0x3,  23 },
	{ "cbo",    "UNC_C_",  0xf,  97 },
	{ "ha",     "UNC_H_",  0xf, 109 },
	/* iMC has 51; UNC_M_CLOCKTICKS is the fixed counter */
	{ "imc",    "UNC_M_",  0xf,  50 },
	{ "pcu",    "UNC_P_",  0xf,  39 },
	{ "qpi",    "UNC_Q_",  0xf,  84 },	/* "QPI LL" */
	{ "r2pcie", "UNC_R2_", 0xf,  36 },
	{ "r3qpi",  "UNC_R3_", 0x7,  63 },
};

/* Units without an event select, and how many entries each has. */
static const struct {
	const char *unit;
	uint32_t flag;
	unsigned entries;
} fixed_units[] = {
	{ "ubox_fixed", EVF_FIXED, 1 },
	{ "imc_fixed", EVF_FIXED, 1 },
	{ "pcu_cstate", EVF_FREERUN, 6 },
};

static const struct box *box_of(const char *unit)
{
	for (size_t i = 0; i < ARRAY_SIZE(boxes); i++)
		if (strcmp(boxes[i].unit, unit) == 0)
			return &boxes[i];
	return NULL;
}

static void test_counts(void)
{
	unsigned total = 0, unknown = 0;

	for (size_t b = 0; b < ARRAY_SIZE(boxes); b++) {
		unsigned n = 0;

		for (size_t i = 0; i < snbep_nevents; i++)
			n += strcmp(snbep_events[i].unit, boxes[b].unit) == 0;
		is_int(n, boxes[b].entries, "%s: %u entries", boxes[b].unit,
		       boxes[b].entries);
		total += n;
	}
	for (size_t f = 0; f < ARRAY_SIZE(fixed_units); f++) {
		unsigned n = 0;

		for (size_t i = 0; i < snbep_nevents; i++)
			n += strcmp(snbep_events[i].unit,
				    fixed_units[f].unit) == 0;
		is_int(n, fixed_units[f].entries, "%s: %u entries",
		       fixed_units[f].unit, fixed_units[f].entries);
		total += n;
	}
	/* every entry is in one of the units above */
	for (size_t i = 0; i < snbep_nevents; i++) {
		int known = box_of(snbep_events[i].unit) != NULL;

		for (size_t f = 0; f < ARRAY_SIZE(fixed_units); f++)
			known |= strcmp(snbep_events[i].unit,
					fixed_units[f].unit) == 0;
		if (!known) {
			unknown++;
			printf("# %s: unknown unit %s\n", snbep_events[i].name,
			       snbep_events[i].unit);
		}
	}
	is_int(unknown, 0, "every entry's unit is an snbep unit");
	is_int(total, snbep_nevents, "the units account for every entry");
	/* 540 data events - 37 IRP + 2 PCU C-state counters */
	is_int(snbep_nevents, 509, "509 entries");
	is_int(SNBEP_NEVENTS, 509, "SNBEP_NEVENTS matches");
}

static void test_unique(void)
{
	check_unique(snbep_events, snbep_nevents);
}

/* The Linux kernel's counter constraints for an event code
 * (uncore_snbep.c snbep_uncore_{cbox,r2pcie,r3qpi}_constraints), a
 * subset, typed in independently of the generator's table. */
static uint8_t kernel_mask(const char *unit, uint8_t code, uint8_t all)
{
	static const struct {
		const char *unit;
		uint8_t code, mask;
	} c[] = {
		{ "cbo", 0x11, 0x1 }, { "cbo", 0x1b, 0xc }, { "cbo", 0x1c, 0xc },
		{ "cbo", 0x1d, 0xc }, { "cbo", 0x1e, 0xc }, { "cbo", 0x1f, 0xe },
		{ "cbo", 0x34, 0x3 }, { "cbo", 0x35, 0x3 }, { "cbo", 0x36, 0x1 },
		{ "cbo", 0x37, 0x3 },
		{ "r2pcie", 0x10, 0x3 }, { "r2pcie", 0x12, 0x1 },
		{ "r2pcie", 0x26, 0x3 }, { "r2pcie", 0x33, 0x3 },
		{ "r3qpi", 0x13, 0x1 }, { "r3qpi", 0x20, 0x3 },
		{ "r3qpi", 0x37, 0x3 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(c); i++)
		if (strcmp(c[i].unit, unit) == 0 && c[i].code == code)
			return c[i].mask;
	return all;
}

static void test_fields(void)
{
	size_t bad_ctr = 0, bad_prefix = 0, bad_text = 0, bad_filter = 0,
	       bad_ext = 0, bad_occ = 0, bad_fixed = 0, bad_kernel = 0;
	const uint32_t filters = EVF_FILTER0 | EVF_FILTER1 | EVF_HA_MATCH |
				 EVF_PCU_BAND | EVF_QPI_MATCH | EVF_IRP_FILTER;

	for (size_t i = 0; i < snbep_nevents; i++) {
		const struct event *e = &snbep_events[i];
		const struct box *b = box_of(e->unit);

		if (!ascii_text(e->desc) || !ascii_text(e->source))
			bad_text++;
		if (!!e->filter != !!(e->flags & filters) ||
		    (e->filter && !ascii_text(e->filter)))
			bad_filter++;
		/* the data has no threshold, edge, invert or max increment;
		 * an increment comes from the source the entry names */
		if (e->thresh || e->edge || e->inv || e->max_inc_wide ||
		    !!e->max_inc != !!strstr(e->source, "; max inc "))
			bad_text++;
		if (!b) {
			if (e->ctr_mask || e->code || e->umask ||
			    !(e->flags & (EVF_FIXED | EVF_FREERUN)) ||
			    (e->flags & filters))
				bad_fixed++;
			continue;
		}
		if (strncmp(e->source, "jaketown-uncore V24",
			    strlen("jaketown-uncore V24")) != 0)
			bad_text++;
		if (!e->ctr_mask || (e->ctr_mask & ~b->ctrs))
			bad_ctr++;
		if (e->ctr_mask & ~kernel_mask(e->unit, e->code, b->ctrs)) {
			bad_kernel++;
			printf("# %s: counters 0x%x beyond the kernel's\n",
			       e->name, e->ctr_mask);
		}
		if (strncmp(e->name, b->prefix, strlen(b->prefix)) != 0)
			bad_prefix++;
		if (e->flags & (EVF_FIXED | EVF_FREERUN))
			bad_fixed++;
		/* bit 21: QPI (uncore_snbep.c event_ext) and PCU only */
		if (e->ev_sel_ext > 1 ||
		    (e->ev_sel_ext && strcmp(e->unit, "qpi") != 0 &&
		     strcmp(e->unit, "pcu") != 0))
			bad_ext++;
		if (strcmp(e->unit, "pcu") == 0 && (e->code & 0x80)) {
			if (!e->occ_sel || e->occ_sel != e->umask >> 6 ||
			    (e->umask & 0x3f))
				bad_occ++;
		} else if (e->occ_sel) {
			bad_occ++;
		}
	}
	is_int(bad_ctr, 0, "every ctr_mask non-zero and within its box "
	       "(UBox 2, R3QPI 3, others 4 counters)");
	is_int(bad_kernel, 0, "every ctr_mask within the kernel's event "
	       "constraints");
	is_int(bad_prefix, 0, "every name has its box's UNC_x_ prefix");
	is_int(bad_text, 0, "every desc and source is printable ASCII, no "
	       "thresh/edge/inv, max_inc only with its source");
	is_int(bad_filter, 0, "filter text iff a filter flag");
	is_int(bad_ext, 0, "ev_sel_ext only on QPI and PCU events, 0 or 1");
	is_int(bad_occ, 0, "occ_sel exactly on PCU occupancy events, "
	       "= umask >> 6");
	is_int(bad_fixed, 0, "ctr_mask 0 exactly for EVF_FIXED / "
	       "EVF_FREERUN entries");
}

/* Every filter text names registers of its flag only: CBoFilter and
 * UBoxFilter the box's filter 0, PCUFilter the band filter, HA_* the HA
 * match, Q_Py_PCI_PMON_PKT_* the QPI match/mask. */
static void test_filter_flags(void)
{
	static const struct {
		const char *unit, *reg;
		uint32_t flag;
	} map[] = {
		{ "cbo", "CBoFilter[", EVF_FILTER0 },
		{ "ubox", "UBoxFilter[", EVF_FILTER0 },
		{ "pcu", "PCUFilter[", EVF_PCU_BAND },
		{ "ha", "HA_", EVF_HA_MATCH },
		{ "qpi", "Q_Py_PCI_PMON_PKT_", EVF_QPI_MATCH },
	};
	size_t bad = 0, filtered = 0;

	for (size_t i = 0; i < snbep_nevents; i++) {
		const struct event *e = &snbep_events[i];
		int hit = 0;

		if (!e->filter)
			continue;
		filtered++;
		for (size_t m = 0; m < ARRAY_SIZE(map); m++)
			if (strcmp(e->unit, map[m].unit) == 0 &&
			    strncmp(e->filter, map[m].reg,
				    strlen(map[m].reg)) == 0 &&
			    e->flags == map[m].flag)
				hit = 1;
		if (!hit) {
			bad++;
			printf("# %s: filter \"%s\" with flags 0x%x\n", e->name,
			       e->filter, (unsigned)e->flags);
		}
	}
	/* CBo 20, UBox 2, PCU 12 (one inferred), HA 1, QPI 1 (inferred) */
	is_int(filtered, 36, "36 entries need a filter");
	is_int(bad, 0, "each filter text matches its unit's flag");
}

/* Expected values of one entry. */
struct want {
	const char *name, *unit;
	uint8_t code, umask, ctr_mask;
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

/* Values as the JSON data gives them ("EventCode", "UMask", "Counter",
 * "ExtSel", "Filter"), except where a comment names a correction. */
#define W(n, u, c, um, m) \
	.name = n, .unit = u, .code = c, .umask = um, .ctr_mask = m
static const struct want wants[] = {
	/* UBox */
	{ W("UNC_U_EVENT_MSG.DOORBELL_RCVD", "ubox", 0x42, 0x08, 0x3) },
	{ W("UNC_U_U2C_EVENTS.UMC", "ubox", 0x43, 0x20, 0x3) },
	{ W("UNC_U_LOCK_CYCLES", "ubox", 0x44, 0x00, 0x3) },
	{ W("UNC_U_FILTER_MATCH.U2C_ENABLE", "ubox", 0x41, 0x04, 0x3),
	  .flags = EVF_FILTER0, .filter = "UBoxFilter[3:0]" },
	/* data ExtSel 1; the UBox control has no bit 21 (327043 T. 2-2) */
	{ W("UNC_U_PHOLD_CYCLES.ASSERT_TO_ACK", "ubox", 0x45, 0x01, 0x3) },
	{ W("UNC_U_MSG_CHNL_SIZE_COUNT.8B", "ubox", 0x47, 0x02, 0x3) },

	/* CBo */
	{ W("UNC_C_CLOCKTICKS", "cbo", 0x00, 0x00, 0xf) },
	{ W("UNC_C_COUNTER0_OCCUPANCY", "cbo", 0x1f, 0x00, 0xe) },
	{ W("UNC_C_LLC_LOOKUP.DATA_READ", "cbo", 0x34, 0x03, 0x3),
	  .flags = EVF_FILTER0, .filter = "CBoFilter[22:18]" },
	{ W("UNC_C_LLC_LOOKUP.NID", "cbo", 0x34, 0x41, 0x3),
	  .flags = EVF_FILTER0,
	  .filter = "CBoFilter[22:18], CBoFilter[17:10]" },
	{ W("UNC_C_LLC_VICTIMS.M_STATE", "cbo", 0x37, 0x01, 0x3) },
	{ W("UNC_C_RING_AD_USED.DOWN_ODD", "cbo", 0x1b, 0x08, 0xc) },
	{ W("UNC_C_RING_IV_USED.ANY", "cbo", 0x1e, 0x0f, 0xc) },
	{ W("UNC_C_RxR_OCCUPANCY.IRQ", "cbo", 0x11, 0x01, 0x1) },
	{ W("UNC_C_TOR_INSERTS.MISS_OPCODE", "cbo", 0x35, 0x03, 0x3),
	  .flags = EVF_FILTER0, .filter = "CBoFilter[31:23]" },
	{ W("UNC_C_TOR_OCCUPANCY.NID_MISS_OPCODE", "cbo", 0x36, 0x43, 0x1),
	  .flags = EVF_FILTER0,
	  .filter = "CBoFilter[31:23], CBoFilter[17:10]" },
	{ W("UNC_C_TxR_INSERTS.BL_CORE", "cbo", 0x02, 0x40, 0x3) },
	/* data "0,1"; the kernel allows all four (no constraint) */
	{ W("UNC_C_TxR_STARVED.AK", "cbo", 0x03, 0x02, 0x3) },

	/* HA */
	{ W("UNC_H_WPQ_CYCLES_NO_REG_CREDITS.CHN1", "ha", 0x18, 0x02, 0xf) },
	{ W("UNC_H_WPQ_CYCLES_NO_SPEC_CREDITS.CHN3", "ha", 0x19, 0x08, 0xf) },

	/* iMC */
	{ W("UNC_M_CAS_COUNT.RD", "imc", 0x04, 0x03, 0xf) },
	{ W("UNC_M_CAS_COUNT.WR", "imc", 0x04, 0x0c, 0xf) },
	{ W("UNC_M_CAS_COUNT.ALL", "imc", 0x04, 0x0f, 0xf) },
	{ W("UNC_M_ACT_COUNT", "imc", 0x01, 0x00, 0xf) },
	{ W("UNC_M_POWER_CKE_CYCLES.RANK7", "imc", 0x83, 0x80, 0xf) },
	{ W("UNC_M_RPQ_OCCUPANCY", "imc", 0x80, 0x00, 0xf) },
	{ W("UNC_M_WPQ_WRITE_HIT", "imc", 0x24, 0x00, 0xf) },

	/* PCU: ExtSel (bit 21) tells 0x03 .. 0x0b apart */
	{ W("UNC_P_CORE0_TRANSITION_CYCLES", "pcu", 0x03, 0x00, 0xf),
	  .ext = 1 },
	{ W("UNC_P_VOLT_TRANS_CYCLES_CHANGE", "pcu", 0x03, 0x00, 0xf) },
	{ W("UNC_P_TOTAL_TRANSITION_CYCLES", "pcu", 0x0b, 0x00, 0xf),
	  .ext = 1 },
	{ W("UNC_P_FREQ_BAND0_CYCLES", "pcu", 0x0b, 0x00, 0xf),
	  .flags = EVF_PCU_BAND, .filter = "PCUFilter[7:0]" },
	{ W("UNC_P_FREQ_BAND3_CYCLES", "pcu", 0x0e, 0x00, 0xf),
	  .flags = EVF_PCU_BAND, .filter = "PCUFilter[31:24]" },
	{ W("UNC_P_DEMOTIONS_CORE1", "pcu", 0x1f, 0x00, 0xf),
	  .flags = EVF_PCU_BAND, .filter = "PCUFilter[7:0]" },
	/* data Filter "null"; its seven siblings have PCUFilter[7:0] */
	{ W("UNC_P_DEMOTIONS_CORE2", "pcu", 0x20, 0x00, 0xf),
	  .flags = EVF_PCU_BAND, .filter = "PCUFilter[7:0]" },
	{ W("UNC_P_POWER_STATE_OCCUPANCY.CORES_C0", "pcu", 0x80, 0x40, 0xf),
	  .occ = 1 },
	{ W("UNC_P_POWER_STATE_OCCUPANCY.CORES_C6", "pcu", 0x80, 0xc0, 0xf),
	  .occ = 3 },

	/* QPI */
	{ W("UNC_Q_CLOCKTICKS", "qpi", 0x14, 0x00, 0xf) },
	{ W("UNC_Q_TxL_FLITS_G0.DATA", "qpi", 0x00, 0x02, 0xf) },
	{ W("UNC_Q_RxL_FLITS_G1.DRS_DATA", "qpi", 0x02, 0x08, 0xf),
	  .ext = 1 },
	{ W("UNC_Q_TxL_FLITS_G2.NCB", "qpi", 0x01, 0x0c, 0xf), .ext = 1 },
	/* data Filter "null"; CTO is the packet match/mask's output */
	{ W("UNC_Q_CTO_COUNT", "qpi", 0x38, 0x00, 0xf), .ext = 1,
	  .flags = EVF_QPI_MATCH,
	  .filter = "Q_Py_PCI_PMON_PKT_MATCH0/1, Q_Py_PCI_PMON_PKT_MASK0/1" },
	{ W("UNC_Q_RxL_STALLS.GV", "qpi", 0x35, 0x80, 0xf) },

	/* R2PCIe */
	{ W("UNC_R2_CLOCKTICKS", "r2pcie", 0x01, 0x00, 0xf) },
	{ W("UNC_R2_RxR_AK_BOUNCES", "r2pcie", 0x12, 0x00, 0x1) },
	/* data "0"; the kernel allows 0-1 */
	{ W("UNC_R2_TxR_CYCLES_NE.BL", "r2pcie", 0x23, 0x04, 0x1) },
	{ W("UNC_R2_IIO_CREDITS_USED.NCS", "r2pcie", 0x32, 0x20, 0x3) },

	/* R3QPI */
	{ W("UNC_R3_CLOCKTICKS", "r3qpi", 0x01, 0x00, 0x7) },
	{ W("UNC_R3_RxR_OCCUPANCY.SNP", "r3qpi", 0x13, 0x02, 0x1) },
	{ W("UNC_R3_RING_BL_USED.CCW_ODD", "r3qpi", 0x09, 0x08, 0x7) },
	{ W("UNC_R3_VN0_CREDITS_REJECT.NCS", "r3qpi", 0x37, 0x20, 0x3) },

	/* fixed and free-running counters */
	{ W("UNC_U_CLOCKTICKS", "ubox_fixed", 0, 0, 0), .flags = EVF_FIXED },
	{ W("UNC_M_CLOCKTICKS", "imc_fixed", 0, 0, 0), .flags = EVF_FIXED },
	{ W("UNC_P_CORE_CC3_CTR", "pcu_cstate", 0, 0, 0),
	  .flags = EVF_FREERUN },
	{ W("UNC_P_CORE_CC6_CTR", "pcu_cstate", 0, 0, 0),
	  .flags = EVF_FREERUN },
	{ W("UNC_P_CORE_PC2_CTR", "pcu_cstate", 0, 0, 0),
	  .flags = EVF_FREERUN },
	{ W("UNC_P_CORE_PC7_CTR", "pcu_cstate", 0, 0, 0),
	  .flags = EVF_FREERUN },
};

static void test_corrections(void)
{
	const struct event *e;
	unsigned irp = 0;

	/* the IRP's events are left out: E5-2600 v1 has no IRP box */
	for (size_t i = 0; i < snbep_nevents; i++)
		irp += strncmp(snbep_events[i].name, "UNC_I_", 6) == 0;
	is_int(irp, 0, "no UNC_I_ (IRP) events");
	ok(find("UNC_I_TRANSACTIONS.ORDERINGQ") == NULL,
	   "UNC_I_TRANSACTIONS.ORDERINGQ is not catalogued");

	/* descriptions copied from a sibling are fixed, the others kept */
	e = find("UNC_P_POWER_STATE_OCCUPANCY.CORES_C3");
	if (ok(e != NULL, "CORES_C3 is in the catalog")) {
		like(e->desc, "cores in C3", "CORES_C3 describes C3");
		ok(strstr(e->desc, "C0") == NULL, "and not C0");
	}
	e = find("UNC_Q_RxL_STALLS.BGF_DRS");
	if (ok(e != NULL, "RxL_STALLS.BGF_DRS is in the catalog"))
		like(e->desc, "BGF Stall - DRS.", "BGF_DRS describes DRS");
	e = find("UNC_C_RxR_EXT_STARVED.IPQ");
	if (ok(e != NULL, "RxR_EXT_STARVED.IPQ is in the catalog"))
		like(e->desc, "Cycles; IPQ.", "EXT_STARVED.IPQ describes IPQ");
	e = find("UNC_C_RING_SRC_THRTL");
	if (ok(e != NULL, "RING_SRC_THRTL is in the catalog"))
		is_str(e->desc, "No description in Intel's event data (\"tbd\").",
		       "\"tbd\" is said, not copied");
	e = find("UNC_U_CLOCKTICKS");
	if (ok(e != NULL, "UNC_U_CLOCKTICKS is in the catalog"))
		like(e->desc, "UCLK", "UNC_U_CLOCKTICKS counts UCLK");
	/* maximum increments with a source (MAX_INC in the generator) */
	e = plat_event(&plat_snbep, "UNC_Q_RxL_OCCUPANCY");
	ok(e && e->max_inc == 128, "QPI RxL_OCCUPANCY: 128 a cycle");
	e = plat_event(&plat_snbep, "UNC_C_TOR_OCCUPANCY.ALL");
	ok(e && e->max_inc == 0, "TOR_OCCUPANCY: not stated (its box's bound)");
	e = plat_event(&plat_snbep, "UNC_R3_RxR_OCCUPANCY.HOM");
	ok(e && e->max_inc == 32, "R3QPI RxR_OCCUPANCY: 32 a cycle");
}

int main(void)
{
	test_counts();
	test_unique();
	test_fields();
	test_filter_flags();
	for (size_t i = 0; i < ARRAY_SIZE(wants); i++)
		check(&wants[i]);
	test_corrections();
	return tap_done();
}
