/*
 * test_plat_snbep.c - the snbep platform description (Xeon E5-2600 v1)
 * against its sources (doc/hardware-notes.md, "Xeon E5-2600/4600 v1"):
 * CPU model, no global control, the MSR and PCI register map, layouts
 * and encodings, every catalog event placeable or refused with a reason,
 * the headline events resolving, discovery from `lspci -xxx` dumps of 1
 * and 2 sockets and one with missing boxes (tests/fixtures/lspci-snbep-*,
 * contrib/snbep/make_lspci_fixtures.py), and the box-by-box freeze and
 * reset protocol.  MSRs come from a small fake backend that passes PCI
 * accesses to the real libpci one ("dump" method).
 *
 * Expected values are written out by hand from the sources, never
 * computed from the tables under test.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/hw.h"
#include "plat/plat.h"
#include "plat/plat_snbep.h"
#include "plat/events_snbep.h"
#include "pmu/sched.h"
#include "tests/tap.h"
#include "tests/unit/fake_dump.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct platform *P = &plat_snbep;

static const struct unit_type *unit(const char *name, unsigned *index)
{
	int i;
	const struct unit_type *u = plat_unit(P, name, &i);

	if (!u) {
		printf("Bail out! no unit %s\n", name);
		exit(1);
	}
	if (index)
		*index = (unsigned)i;
	return u;
}

/* ---- a fake backend: MSRs by rule, PCI through the real dump ---------- */

#define LOG_MAX 4096

static struct fake_cfg {
	unsigned npkg;
	unsigned cbo_count[PLAT_MAX_SOCKETS];	/* CBo box controls that answer */
	struct { struct hw_addr a; uint64_t v; } log[LOG_MAX];
	unsigned nlog;
} fc;

static void fake_reset(unsigned npkg)
{
	memset(&fc, 0, sizeof(fc));
	fc.npkg = npkg;
	for (unsigned p = 0; p < PLAT_MAX_SOCKETS; p++)
		fc.cbo_count[p] = 8;
}

/* The snbep MSRs: UBox 0xC08-0xC09, 0xC10-0xC17; PCU 0xC24-0xC39; CBo n
 * 0xD04 + 0x20n .. +0x15 for n < cbo_count; C3/C6 0x3FC/0x3FD.  Nothing
 * at the hsx global control 0x700 or the IvyTown one 0xC00. */
static int fake_msr(uint32_t cpu, uint32_t msr, uint64_t *v)
{
	unsigned pkg = cpu / 8;

	if (pkg >= fc.npkg)
		return hw_fail(ENXIO, "fake: no cpu %u", cpu);
	*v = 0;
	if (msr >= 0xD04 && msr < 0xD04 + 0x20 * 8)
		return (msr - 0xD04) / 0x20 < fc.cbo_count[pkg] &&
		       (msr - 0xD04) % 0x20 <= 0x15 ? 0 :
			hw_fail(EIO, "fake: #GP on msr 0x%x", msr);
	if ((msr >= 0xC08 && msr <= 0xC09) || (msr >= 0xC10 && msr <= 0xC17) ||
	    (msr >= 0xC24 && msr <= 0xC39) || msr == 0x3FC || msr == 0x3FD)
		return 0;
	return hw_fail(EIO, "fake: #GP on msr 0x%x", msr);
}

static int fake_read(struct hw *hw, const struct hw_addr *a, uint64_t *v)
{
	if (a->space == HW_MSR)
		return fake_msr(a->cpu, (uint32_t)a->reg, v);
	return hw_read(hw->priv, a, v);
}

static int fake_write(struct hw *hw, const struct hw_addr *a, uint64_t v)
{
	(void)hw;
	if (fc.nlog < LOG_MAX) {
		fc.log[fc.nlog].a = *a;
		fc.log[fc.nlog].v = v;
	}
	fc.nlog++;
	return 0;
}


static void is_msr(struct hw_addr a, uint32_t msr, const char *what)
{
	ok(a.space == HW_MSR && a.reg == msr && a.width == 8,
	   "%s = msr 0x%x (got space %d 0x%llx width %u)", what, msr, a.space,
	   (unsigned long long)a.reg, a.width);
}

static void is_pci(struct hw_addr a, uint8_t bus, uint8_t dev, uint8_t fn,
		   uint16_t off, uint8_t width, const char *what)
{
	ok(a.space == HW_PCI && a.bus == bus && a.dev == dev && a.fn == fn &&
	   a.reg == off && a.width == width,
	   "%s = pci %02x:%02x.%u+0x%x/%u (got %02x:%02x.%u+0x%llx/%u)",
	   what, bus, dev, fn, off, width, a.bus, a.dev, a.fn,
	   (unsigned long long)a.reg, a.width);
}

/* ---- the platform ----------------------------------------------------- */

static void test_platform(void)
{
	struct plat_cpu c = { .vendor = "GenuineIntel", .family = 6,
			      .model = 0x2D };
	char list[256];

	ok(plat_by_id("snbep") == P, "plat_by_id(\"snbep\")");
	ok(plat_by_cpu(6, 0x2D) == P, "family 6 model 0x2D is snbep");
	ok(plat_for_cpu(&c) == P, "GenuineIntel 6/0x2D resolves to snbep");
	c.model = 0x3E;		/* IvyTown: not this platform */
	ok(plat_for_cpu(&c) != P, "model 0x3E (IvyTown) is not snbep");
	like(plat_list(list, sizeof(list), false), "snbep",
	     "the supported list names snbep");
	ok(P->global_ctl.layout == NULL && P->global_status.layout == NULL,
	   "no global control or status register (notes: MSR boxes)");
	ok(P->ops->global_enable == plat_freeze_boxes,
	   "freeze and unfreeze are per box");
	ok(P->ops->check == NULL, "nothing readable to check (frz is WO)");
	ok(P->ops->reset_boxes == plat_reset_boxes, "generic box reset");
	is_int((int)P->nevents, SNBEP_NEVENTS, "the generated catalog");
	is_int((int)plat_nunits(P), 11, "11 unit types");
	{
		unsigned ub, cb, imf, cs;
		int hub;

		unit("ubox", &ub);
		unit("cbo", &cb);
		unit("imc_fixed", &imf);
		unit("pcu_cstate", &cs);
		plat_unit(&plat_hsx, "ubox", &hub);
		ok(!plat_unit_freezable(P, (int)ub) && plat_unit_freezable(P, (int)cb),
		   "the UBox cannot be frozen, the CBos can");
		ok(plat_unit_freezable(P, (int)imf),
		   "the DCLK counter freezes with its iMC channel's box");
		ok(!plat_unit_freezable(P, (int)cs), "free-running counters are not frozen");
		ok(plat_unit_freezable(&plat_hsx, hub), "hsx's UBox is (global freeze)");
	}
}

static void test_map(void)
{
	static struct topo_socket s = { .cpu = 8, .pci_bus = 0x7f };
	const struct unit_type *cbo = unit("cbo", NULL);
	const struct unit_type *pcu = unit("pcu", NULL);
	const struct unit_type *ub = unit("ubox", NULL);
	const struct unit_type *uf = unit("ubox_fixed", NULL);
	const struct unit_type *ha = unit("ha", NULL);
	const struct unit_type *imc = unit("imc", NULL);
	const struct unit_type *imf = unit("imc_fixed", NULL);
	const struct unit_type *qpi = unit("qpi", NULL);
	const struct unit_type *r2 = unit("r2pcie", NULL);
	const struct unit_type *r3 = unit("r3qpi", NULL);
	const struct unit_type *cs = unit("pcu_cstate", NULL);

	/* every PCI instance where the table puts it, on bus 0x7f */
	for (unsigned ui = 0; P->units[ui]; ui++)
		for (unsigned i = 0; P->units[ui]->space == HW_PCI &&
		     i < P->units[ui]->max_inst; i++)
			plat_pci_place(&s, P->units[ui], i, 0, 0x7f);

	/* kernel SNBEP_U_MSR_PMON_CTL0 0xc10, CTR0 0xc16, UCLK 0xc08/0xc09 */
	is_msr(plat_ctl_addr(&s, ub, 0, 1), 0xC11, "UBox CTL1");
	is_msr(plat_ctr_addr(&s, ub, 0, 0), 0xC16, "UBox CTR0");
	is_msr(plat_ctl_addr(&s, uf, 0, 0), 0xC08, "UBox UCLK fixed ctl");
	is_msr(plat_ctr_addr(&s, uf, 0, 0), 0xC09, "UBox UCLK fixed ctr");
	ok(plat_box_ctl_addr(&s, ub, 0).width == 0, "the UBox has no box control");
	/* 327043 p.27: C7 box control 0xDE4, CTL0-3 0xDF0-0xDF3; kernel:
	 * filter 0xD14 + 0x20n, CTR0 0xD16 + 0x20n */
	is_msr(plat_box_ctl_addr(&s, cbo, 7), 0xDE4, "CBo 7 box control");
	is_msr(plat_ctl_addr(&s, cbo, 7, 3), 0xDF3, "CBo 7 CTL3");
	is_msr(plat_filter_addr(&s, cbo, 7, 0), 0xDF4, "CBo 7 filter");
	is_msr(plat_ctr_addr(&s, cbo, 0, 0), 0xD16, "CBo 0 CTR0");
	is_msr(plat_ctr_addr(&s, cbo, 1, 3), 0xD39, "CBo 1 CTR3");
	ok(plat_ctl_addr(&s, cbo, 8, 0).width == 0, "no CBo 8");
	ok(plat_ctl_addr(&s, cbo, 0, 0).cpu == 8, "MSRs on the socket's CPU");
	/* 327043 p.73 */
	is_msr(plat_box_ctl_addr(&s, pcu, 0), 0xC24, "PCU box control");
	is_msr(plat_ctl_addr(&s, pcu, 0, 0), 0xC30, "PCU CTL0");
	is_msr(plat_filter_addr(&s, pcu, 0, 0), 0xC34, "PCU box filter");
	is_msr(plat_ctr_addr(&s, pcu, 0, 3), 0xC39, "PCU CTR3");
	is_msr(plat_freerun_addr(&s, cs, 0, 0), 0x3FC, "PCU core C3 counter");
	is_msr(plat_freerun_addr(&s, cs, 0, 1), 0x3FD, "PCU core C6 counter");
	/* PCI: box control 0xF4, CTL 0xD8 + 4i, CTR 0xA0 + 8i */
	is_pci(plat_box_ctl_addr(&s, ha, 0), 0x7f, 14, 1, 0xF4, 4, "HA box control");
	is_pci(plat_ctl_addr(&s, ha, 0, 3), 0x7f, 14, 1, 0xE4, 4, "HA CTL3");
	is_pci(plat_ctr_addr(&s, ha, 0, 1), 0x7f, 14, 1, 0xA8, 8, "HA CTR1");
	is_pci(plat_filter_addr(&s, ha, 0, 2), 0x7f, 14, 1, 0x48, 4, "HA OPCODEMATCH");
	is_pci(plat_ctl_addr(&s, imc, 2, 0), 0x7f, 16, 4, 0xD8, 4, "iMC channel 2 CTL0 (16:4)");
	is_pci(plat_ctl_addr(&s, imf, 3, 0), 0x7f, 16, 5, 0xF0, 4, "iMC channel 3 fixed ctl");
	is_pci(plat_ctr_addr(&s, imf, 3, 0), 0x7f, 16, 5, 0xD0, 8, "iMC channel 3 fixed ctr");
	is_pci(plat_ctl_addr(&s, qpi, 1, 0), 0x7f, 9, 2, 0xD8, 4, "QPI port 1 CTL0");
	is_pci(plat_filter_addr(&s, qpi, 1, 0), 0x7f, 9, 6, 0x228, 4, "QPI port 1 PKT_MATCH0");
	is_pci(plat_filter_addr(&s, qpi, 0, 3), 0x7f, 8, 6, 0x23C, 4, "QPI port 0 PKT_MASK1");
	is_pci(plat_ctl_addr(&s, r2, 0, 0), 0x7f, 19, 1, 0xD8, 4, "R2PCIe CTL0");
	is_pci(plat_ctr_addr(&s, r3, 1, 2), 0x7f, 19, 6, 0xB0, 8, "R3QPI link 1 CTR2");
	ok(plat_ctl_addr(&s, r3, 0, 3).width == 0, "R3QPI has 3 counters");
	is_int(cbo->width, 44, "CBo 44 bits");
	is_int(ub->width, 44, "UBox 44 bits (327043 Table 2-3)");
	is_int(uf->width, 44, "UBox fixed: extended at 44 (notes: Counter widths)");
	is_int(r2->width, 44, "R2PCIe 44");
	is_int(r3->width, 44, "R3QPI 44");
	is_int(ha->width, 48, "HA 48");
	is_int(imc->width, 48, "iMC 48");
	is_int(qpi->width, 48, "QPI 48");
	is_int(pcu->width, 48, "PCU 48");
}

static void test_layouts(void)
{
	const struct unit_type *cbo = unit("cbo", NULL);
	const struct unit_type *ub = unit("ubox", NULL);
	const struct unit_type *ha = unit("ha", NULL);
	char why[200];
	uint64_t v;

	/* box control: rst_ctrl 0, rst_ctrs 1, frz 8, frz_en 16, all WO */
	is_u64(reg_mask(cbo->box_ctl_layout, ACC_WO), 0x10103ull,
	       "box control WO bits 0, 1, 8, 16");
	is_u64(cbo->box_ctl_must1, 0x10000ull, "frz_en in every box-control write");
	/* UBox Table 2-2: en 22, thresh 28:24, 21:19 and 16 reserved */
	is_u64(reg_writable(ub->ctl_layout), 0x1FC6FFFFull, "UBox CTL writable bits");
	is_u64(reg_mask(ub->ctl_layout, ACC_RSV), 0xE0390000ull, "UBox CTL reserved bits");
	ok(reg_check_value(cbo->filters[0].layout, 0x7C0000, why, sizeof(why)) == 0,
	   "CBo filter: every state (22:18) is valid");
	ok(reg_check_value(cbo->filters[0].layout, 0x20, why, sizeof(why)) < 0,
	   "CBo filter bit 5 reserved");
	like(why, "rsv", "and says so");
	/* LLC_LOOKUP.DATA_READ: 0x34 / 0x03, en 22 */
	ok(plat_encode_event(cbo, plat_event(P, "UNC_C_LLC_LOOKUP.DATA_READ"), 1,
			     &v, why, sizeof(why)) == 0 && v == 0x400334,
	   "LLC_LOOKUP.DATA_READ on counter 1 = 0x400334 (0x%llx)",
	   (unsigned long long)v);
	ok(plat_encode_event(cbo, plat_event(P, "UNC_C_LLC_LOOKUP.DATA_READ"), 2,
			     &v, why, sizeof(why)) < 0, "but not on counter 2");
	/* PCU ExtSel events set bit 21 */
	ok(plat_encode_event(unit("pcu", NULL),
			     plat_event(P, "UNC_P_FREQ_TRANS_CYCLES"), 0, &v, why,
			     sizeof(why)) == 0 && v == 0x600000,
	   "PCU FREQ_TRANS_CYCLES: ev_sel_ext (bit 21) | en (0x%llx)",
	   (unsigned long long)v);
	/* HA: no rst bit (17:16 reserved) */
	ok(!(reg_writable(ha->ctl_layout) & 0x30000), "HA control 17:16 reserved");
}

/* Every catalog event resolves and encodes on its valid counters, or is
 * refused because its filter register does not exist (UBox). */
static void test_catalog(void)
{
	unsigned bad = 0, refused = 0, progs = 0;
	char why[256];

	for (size_t i = 0; i < P->nevents; i++) {
		const struct event *ev = &P->events[i];
		const struct unit_type *u = plat_unit(P, ev->unit, NULL);
		struct evspec es;
		uint64_t v;

		if (!u) {
			bad++;
			continue;
		}
		if (sched_resolve(P, ev->name, false, &es, why, sizeof(why)) < 0) {
			if (strcmp(ev->unit, "ubox") == 0 &&
			    (ev->flags & EVF_FILTER0) && strstr(why, "filter register"))
				refused++;
			else {
				printf("# %s: %s\n", ev->name, why);
				bad++;
			}
			continue;
		}
		if (u->kind != UNIT_PROG)
			continue;
		progs++;
		for (unsigned c = 0; c < u->nctr; c++) {
			int r = plat_encode_event(u, ev, c, &v, why, sizeof(why));

			if ((r == 0) != ((ev->ctr_mask >> c) & 1)) {
				printf("# %s counter %u: %s\n", ev->name, c, why);
				bad++;
			}
		}
	}
	is_int(bad, 0, "every catalog event resolves and encodes on exactly its counters");
	is_int(refused, 2, "the two UBox FILTER_MATCH events needing UBoxFilter are refused");
	/* less 2 fixed and 6 free-running counters, and the 2 refused */
	is_int(progs, SNBEP_NEVENTS - 8 - 2, "every programmable event checked");
}

static void test_headline(void)
{
	unsigned bad = 0;
	char why[256];
	struct evspec es;

	for (size_t i = 0; i < P->derived->nsrc; i++)
		if (sched_resolve(P, P->derived->src[i].event, false, &es, why,
				  sizeof(why)) < 0) {
			printf("# %s: %s\n", P->derived->src[i].event, why);
			bad++;
		}
	for (size_t i = 0; P->baseline[i]; i++)
		if (sched_resolve(P, P->baseline[i], false, &es, why,
				  sizeof(why)) < 0) {
			printf("# %s: %s\n", P->baseline[i], why);
			bad++;
		}
	is_int(bad, 0, "every headline quantity and baseline event resolves");
	ok(sched_resolve(P, "UNC_C_LLC_LOOKUP.DATA_READ:filter0=0x40000:split=1/2",
			 false, &es, why, sizeof(why)) == 0 &&
	   es.filt[0] == 0x40000 && es.split_n == 2 && es.split_k == 1,
	   "misses: state I (bit 18) on the odd CBos");
}

/* ---- discovery -------------------------------------------------------- */

static const struct want_unit full[] = {
	{ "ubox", 1, 0 }, { "ubox_fixed", 1, 0 }, { "cbo", 8, 0 },
	{ "ha", 1, 0 }, { "imc", 4, 0 }, { "imc_fixed", 4, 0 },
	{ "pcu", 1, 0 }, { "pcu_cstate", 1, 0 }, { "qpi", 2, 0 },
	{ "r2pcie", 1, 0 }, { "r3qpi", 2, 0 },
};

static void test_discover(void)
{
	struct topology t;
	struct hw hw;
	int r;
	static const struct want_unit six[] = { { "cbo", 6, 0 } };
	static const struct want_unit missing[] = {
		{ "qpi", 1, 0 }, { "r3qpi", 1, 0 }, { "imc", 3, 0 },
		{ "imc_fixed", 3, 0 }, { "ha", 1, 0 }, { "r2pcie", 1, 0 },
		{ "cbo", 8, 0 },
	};

	/* 1 socket, 6 cores: min(8, cores) CBos */
	fake_reset(1);
	if (!ok(open_fixture(&hw, "lspci-snbep-1s.txt") == 0, "open 1S fixture (%s)",
		hw_last_error()))
		return;
	r = plat_discover(P, &hw, &t, &(struct hw_cpu_map){
		.cpus_per_package = 8, .cores_per_package = 6 });
	if (ok(r == 0, "1S: discover (%s)", r ? hw_last_error() : "")) {
		is_int(t.nsockets, 1, "1S: one socket");
		ok(t.sock[0].pci_bus == 0xff && t.sock[0].ubox_dev == 11 &&
		   t.sock[0].ubox_fn == 0 && t.sock[0].cpu == 0,
		   "1S: bus 0xff, UBox 8086:3ce0 at 0b.0, cpu 0");
		check_units(&t, 0, full + 3, ARRAY_SIZE(full) - 3);
		check_units(&t, 0, six, 1);
	}
	hw_close(&hw);

	/* 2 sockets: node IDs map bus 0xff to package 0 */
	fake_reset(2);
	if (!ok(open_fixture(&hw, "lspci-snbep-2s.txt") == 0, "open 2S fixture"))
		return;
	r = plat_discover(P, &hw, &t, &(struct hw_cpu_map){ .cpus_per_package = 8 });
	if (ok(r == 0, "2S: discover (%s)", r ? hw_last_error() : "")) {
		is_int(t.nsockets, 2, "2S: two sockets");
		ok(t.sock[0].id == 0 && t.sock[0].pci_bus == 0xff &&
		   t.sock[0].node_id == 0 && t.sock[0].cpu == 0,
		   "2S: package 0 = bus 0xff (node 0), cpu 0");
		ok(t.sock[1].id == 1 && t.sock[1].pci_bus == 0x7f &&
		   t.sock[1].node_id == 1 && t.sock[1].cpu == 8,
		   "2S: package 1 = bus 0x7f (node 1), cpu 8");
		check_units(&t, 0, full, ARRAY_SIZE(full));
		check_units(&t, 1, full, ARRAY_SIZE(full));
		is_pci(plat_ctr_addr(&t.sock[1], unit("r3qpi", NULL), 1, 0), 0x7f,
		       19, 6, 0xA0, 8, "socket 1 R3QPI link 1 CTR0");
	}
	hw_close(&hw);

	/* 2 sockets, package 1 missing QPI port 1, R3QPI link 1 and the
	 * iMC channel 3 PMON (another device at 10.5) */
	fake_reset(2);
	fc.cbo_count[1] = 8;
	if (!ok(open_fixture(&hw, "lspci-snbep-2s-missing.txt") == 0,
		"open 2S fixture with missing boxes"))
		return;
	r = plat_discover(P, &hw, &t, &(struct hw_cpu_map){ .cpus_per_package = 8 });
	if (ok(r == 0, "2S missing: discover (%s)", r ? hw_last_error() : "")) {
		check_units(&t, 0, full, ARRAY_SIZE(full));
		check_units(&t, 1, missing, ARRAY_SIZE(missing));
	}
	hw_close(&hw);

	/* no CBo answers: refused with what was probed */
	fake_reset(1);
	fc.cbo_count[0] = 0;
	if (ok(open_fixture(&hw, "lspci-snbep-1s.txt") == 0, "open 1S fixture")) {
		r = plat_discover(P, &hw, &t, &(struct hw_cpu_map){ .cpus_per_package = 8 });
		ok(r == -ENODEV, "no CBo: ENODEV");
		like(hw_last_error(), "0xD04 + 0x20n", "message names the CBo box controls");
		hw_close(&hw);
	}
	/* a hsx dump has no 0x3ce0 UBox */
	fake_reset(1);
	if (ok(open_fixture(&hw, "lspci-hsx-1s.txt") == 0, "open an hsx fixture")) {
		r = plat_discover(P, &hw, &t, NULL);
		ok(r == -ENODEV, "no snbep UBox: ENODEV");
		like(hw_last_error(), "8086:3ce0", "message names the device");
		like(hw_last_error(), "E5-2600", "and the part");
		hw_close(&hw);
	}
}

/* ---- protocol: freeze box by box, reset ------------------------------ */

static bool logged(unsigned i, enum hw_space sp, uint32_t reg, uint64_t v)
{
	return i < fc.nlog && fc.log[i].a.space == sp && fc.log[i].a.reg == reg &&
	       fc.log[i].v == v;
}

static unsigned count_logged(uint64_t v)
{
	unsigned n = 0;

	for (unsigned i = 0; i < fc.nlog && i < LOG_MAX; i++)
		n += fc.log[i].v == v;
	return n;
}

static void test_protocol(void)
{
	struct topology t;
	struct hw hw;
	int r;

	fake_reset(2);
	if (!ok(open_fixture(&hw, "lspci-snbep-2s.txt") == 0, "open 2S fixture"))
		return;
	r = plat_discover(P, &hw, &t, &(struct hw_cpu_map){ .cpus_per_package = 8 });
	if (!ok(r == 0, "discover for the protocol (%s)", r ? hw_last_error() : ""))
		goto out;
	/* freeze socket 1: frz | frz_en to 8 CBos, PCU, HA, 4 iMC channels,
	 * 2 QPI ports, R2PCIe, 2 R3QPI links = 19 box controls, nothing
	 * else (no global register, the UBox cannot be frozen) */
	fc.nlog = 0;
	r = P->ops->global_enable(&hw, &t, 1, false);
	ok(r == 0 && fc.nlog == 19 && count_logged(0x10100) == 19,
	   "freeze socket 1: 19 box controls get frz | frz_en (%u writes)", fc.nlog);
	ok(logged(0, HW_MSR, 0xD04, 0x10100) && fc.log[0].a.cpu == 8,
	   "CBo 0 box control first, on cpu 8");
	ok(logged(8, HW_PCI, 0xF4, 0x10100) && fc.log[8].a.bus == 0x7f &&
	   fc.log[8].a.dev == 14, "the HA box control on socket 1's bus");
	fc.nlog = 0;
	r = P->ops->global_enable(&hw, &t, 0, true);
	ok(r == 0 && fc.nlog == 19 && count_logged(0x10000) == 19,
	   "unfreeze socket 0: 19 box controls get frz_en alone");
	ok(P->ops->global_enable(&hw, &t, 2, true) == -EINVAL, "no socket 2");
	/* reset: rst_ctrl | rst_ctrs | frz_en per box; UBox and the iMC
	 * fixed counters (no box control of their own) cleared by hand */
	fc.nlog = 0;
	r = plat_reset_boxes(&hw, &t, 0);
	ok(r == 0 && count_logged(0x10003) == 19,
	   "reset socket 0: 19 box controls get rst_ctrl | rst_ctrs | frz_en");
	ok(fc.nlog == 19 + 2 * 2 + 2 + 4 * 2,
	   "and the UBox counters, UCLK and 4 DCLK counters cleared by hand (%u writes)",
	   fc.nlog);
out:
	hw_close(&hw);
}

/*
 * Issue 19 section 4: what the daemon programs for the events whose
 * encoding the sources leave open (doc/hardware-notes.md, "UBox ExtSel
 * and DEMOTIONS_CORE: what is programmed").  The UBox events Intel's data
 * marks ExtSel get the event select and umask only (bit 21 is "SW must
 * write to 0" in the UBox control, 327043 Table 2-2); DEMOTIONS_COREn
 * claims need no PCU filter value (none is written for them) unless a
 * claim gives one, which is checked like any filter value.
 */
static void test_open_encodings(void)
{
	static const char *const ubox_ext[] = {
		"UNC_U_MSG_CHNL_SIZE_COUNT.4B", "UNC_U_MSG_CHNL_SIZE_COUNT.8B",
		"UNC_U_PHOLD_CYCLES.ASSERT_TO_ACK",
		"UNC_U_PHOLD_CYCLES.ACK_TO_DEASSERT", "UNC_U_RACU_REQUESTS.COUNT",
	};
	const struct unit_type *ub = unit("ubox", NULL), *pcu = unit("pcu", NULL);
	unsigned bad = 0;
	struct evspec es;
	char why[256];
	uint64_t v;

	for (size_t i = 0; i < sizeof(ubox_ext) / sizeof(ubox_ext[0]); i++) {
		const struct event *e = plat_event(P, ubox_ext[i]);

		if (!e || e->ev_sel_ext ||
		    plat_encode_event(ub, e, 0, &v, why, sizeof(why)) < 0 ||
		    v != (0x400000ull | (uint64_t)e->umask << 8 | e->code))
			bad++;
	}
	is_int(bad, 0, "the 5 UBox ExtSel events: event select, umask and en "
	       "only, bit 21 clear");
	v = 0;
	plat_encode_event(ub, plat_event(P, "UNC_U_PHOLD_CYCLES.ASSERT_TO_ACK"),
			  0, &v, why, sizeof(why));
	is_u64(v, 0x400145, "PHOLD_CYCLES.ASSERT_TO_ACK on counter 0");
	ok(sched_resolve(P, "UNC_P_DEMOTIONS_CORE0", false, &es, why,
			 sizeof(why)) == 0 && es.filt_set == 0,
	   "DEMOTIONS_CORE0: no PCU filter value required");
	v = 0;
	sched_encode(pcu, &es, 1, &v, why, sizeof(why));
	is_u64(v, 0x40001e, "DEMOTIONS_CORE0 on counter 1");
	/* the match registers' citations (issue 19: they were swapped) */
	{
		const struct unit_type *ha = unit("ha", NULL), *q = unit("qpi", NULL);

		ok(strcmp(ha->filters[1].layout->source, "327043 Table 2-38") == 0 &&
		   strcmp(ha->filters[2].layout->source, "327043 Table 2-37") == 0 &&
		   strstr(ha->filters[0].layout->source, "kernel") != NULL,
		   "HA ADDRMATCH1 Table 2-38, OPCODEMATCH Table 2-37, ADDRMATCH0 "
		   "from the kernel");
		ok(strcmp(q->filters[2].layout->source, "327043 Table 2-91") == 0 &&
		   strcmp(q->filters[3].layout->source, "327043 Table 2-90") == 0,
		   "QPI PKT_MASK0 Table 2-91, PKT_MASK1 Table 2-90");
	}
	ok(sched_resolve(P, "UNC_P_DEMOTIONS_CORE3:filter0=0x08", false, &es,
			 why, sizeof(why)) == 0 && es.filt_set == 1 &&
	   es.filt[0] == 0x08, "DEMOTIONS_CORE3:filter0=0x08: the claim's value");
}

int main(void)
{
	fixture_dir_init();
	test_platform();
	test_map();
	test_layouts();
	test_catalog();
	test_headline();
	test_discover();
	test_protocol();
	test_open_encodings();
	return tap_done();
}
