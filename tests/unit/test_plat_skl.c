/*
 * test_plat_skl.c - the skl platform description against the manual
 * (6th Gen Core uncore, 334060-001): every register address of Table 2-1
 * through the unit tables, widths, field masks, CPU matching, catalog
 * completeness, and discover()/global_enable() against an in-memory fake
 * of the hardware.  Expected values are written out by hand from the
 * manual, never computed from the tables under test.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "hw/hw.h"
#include "plat/plat.h"
#include "plat/plat_skl.h"
#include "tests/tap.h"

/* ---- a fake hardware backend: a small map of register values ---------- */

#define FAKE_MAX 32

static struct fake {
	struct { struct hw_addr a; uint64_t v; } reg[FAKE_MAX];
	unsigned nreg;
	struct hw_addr last_read, last_write;
	uint64_t last_write_val;
	unsigned nwrites;
} fk;

static bool same_reg(const struct hw_addr *x, const struct hw_addr *y)
{
	if (x->space != y->space || x->reg != y->reg)
		return false;
	switch (x->space) {
	case HW_MSR:
		return x->cpu == y->cpu;
	case HW_PCI:
		return x->domain == y->domain && x->bus == y->bus &&
		       x->dev == y->dev && x->fn == y->fn;
	case HW_MMIO:
		return true;
	}
	return false;
}

static void fake_reset(void)
{
	memset(&fk, 0, sizeof(fk));
}

static void fake_set(struct hw_addr a, uint64_t v)
{
	unsigned i;

	for (i = 0; i < fk.nreg; i++)
		if (same_reg(&fk.reg[i].a, &a)) {
			fk.reg[i].v = v;
			return;
		}
	if (fk.nreg == FAKE_MAX)
		abort();
	fk.reg[fk.nreg].a = a;
	fk.reg[fk.nreg++].v = v;
}

static int fake_open(struct hw *hw, const struct hw_opts *o)
{
	(void)hw;
	(void)o;
	return 0;
}

static int fake_read(struct hw *hw, const struct hw_addr *a, uint64_t *v)
{
	char s[64];
	unsigned i;

	(void)hw;
	fk.last_read = *a;
	for (i = 0; i < fk.nreg; i++)
		if (same_reg(&fk.reg[i].a, a)) {
			*v = fk.reg[i].v;
			return 0;
		}
	return hw_fail(EIO, "fake: %s: no such register",
		       hw_addr_str(a, s, sizeof(s)));
}

static int fake_write(struct hw *hw, const struct hw_addr *a, uint64_t v)
{
	(void)hw;
	fk.last_write = *a;
	fk.last_write_val = v;
	fk.nwrites++;
	fake_set(*a, v);
	return 0;
}

static const struct hw_ops fake_ops = {
	.name = "fake", .open = fake_open, .read = fake_read,
	.write = fake_write,
};

/* ---- helpers ------------------------------------------------------------ */

static const struct unit_type *unit(const char *name)
{
	const struct unit_type *u = plat_unit(&plat_skl, name, NULL);

	if (!u) {
		printf("Bail out! no unit %s\n", name);
		exit(1);
	}
	return u;
}

static void is_msr(struct hw_addr a, uint32_t cpu, uint32_t msr,
		   const char *what)
{
	ok(a.space == HW_MSR && a.width == 8 && a.cpu == cpu && a.reg == msr,
	   "%s = msr 0x%x on cpu %u (got space %d width %u cpu %u reg 0x%llx)",
	   what, msr, cpu, (int)a.space, a.width, a.cpu,
	   (unsigned long long)a.reg);
}

/* Fields lie inside the register, do not overlap, and (our convention for
 * skl) cover every bit, reserved ranges included. */
static void check_layout(const struct reg_layout *l)
{
	uint64_t seen = 0;
	bool inside = true, disjoint = true;
	size_t i;

	for (i = 0; i < l->nfields; i++) {
		const struct reg_field *f = &l->fields[i];

		if (f->lo > f->hi || f->hi >= l->bits) {
			inside = false;
			continue;
		}
		if (seen & field_mask(f))
			disjoint = false;
		seen |= field_mask(f);
	}
	ok(inside, "%s: every field inside %u bits", l->name, l->bits);
	ok(disjoint, "%s: fields do not overlap", l->name);
	is_u64(seen, width_mask(l->bits), "%s: fields cover every bit", l->name);
	ok(l->source && strncmp(l->source, "Table 2-", 8) == 0,
	   "%s cites its table (%s)", l->name, l->source ? l->source : "-");
}

/* ---- tests -------------------------------------------------------------- */

static void test_platform_lookup(void)
{
	ok(plat_all[0] == &plat_skl, "plat_all starts with skl");
	{
		unsigned i, n = 0;

		for (i = 0; plat_all[i]; i++)
			n += plat_all[i] == &plat_skl;
		is_int(n, 1, "skl listed once in the NULL-terminated plat_all");
	}
	ok(plat_by_id("skl") == &plat_skl, "plat_by_id(skl)");
	ok(plat_by_id("SKL") == NULL, "plat_by_id is exact");
	ok(plat_by_id("nope") == NULL, "unknown id: NULL");
	ok(plat_by_id("") == NULL, "plat_by_id(\"\")");

	ok(plat_by_cpu(6, 0x4E) == &plat_skl, "family 6 model 0x4E is skl");
	ok(plat_by_cpu(6, 0x5E) == &plat_skl, "family 6 model 0x5E is skl");
	ok(plat_by_cpu(6, 0x8E) == &plat_skl,
	   "model 0x8E (Kaby/Amber/Coffee/Whiskey Lake U/Y) is skl");
	ok(plat_by_cpu(6, 0x9E) == &plat_skl, "model 0x9E (Kaby/Coffee Lake H/S) is skl");
	ok(plat_by_cpu(6, 0xA5) == &plat_skl, "model 0xA5 (Comet Lake H/S) is skl");
	ok(plat_by_cpu(6, 0xA6) == &plat_skl, "model 0xA6 (Comet Lake U) is skl");
	ok(plat_by_cpu(6, 0x66) == NULL, "model 0x66 (Cannon Lake) is not supported");
	ok(plat_by_cpu(6, 0x7E) == NULL, "model 0x7E (Ice Lake, another uncore) is not supported");
	ok(plat_by_cpu(6, 0xA7) == NULL, "model 0xA7 (Rocket Lake) is not supported");
	ok(plat_by_cpu(6, 0x3F) != &plat_skl, "model 0x3F (Haswell-EP) is not skl");
	ok(plat_by_cpu(6, 0x55) != &plat_skl, "model 0x55 (Skylake-SP) is not skl");
	ok(plat_by_cpu(6, 0x4F) != &plat_skl, "model 0x4F is not skl");
	ok(plat_by_cpu(0xF, 0x4E) != &plat_skl, "family 15 model 0x4E is not skl");
	ok(plat_by_cpu(0, 0) == NULL, "family 0 model 0 matches nothing");
}

/* The kernel's view of CPU 0 (vendor, display family and model), if
 * /proc/cpuinfo is there; false otherwise. */
static bool cpuinfo(char *vendor, size_t vlen, unsigned *fam, unsigned *mod)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256], word[64];
	int have = 0;

	if (!f)
		return false;
	while (have != 7 && fgets(line, sizeof(line), f)) {
		if (!(have & 1) && sscanf(line, "vendor_id : %63s", word) == 1) {
			snprintf(vendor, vlen, "%s", word);
			have |= 1;
		} else if (!(have & 2) && sscanf(line, "cpu family : %u", fam) == 1) {
			have |= 2;
		} else if (!(have & 4) && sscanf(line, "model : %u", mod) == 1) {
			have |= 4;
		}
	}
	fclose(f);
	return have == 7;
}

static void test_cpuid(void)
{
	struct plat_cpu cpu = { .family = 12345, .model = 12345 };
	struct plat_cpu amd = { "AuthenticAMD", 6, 0x5E };
	unsigned kfam, kmod;
	char vendor[64], list[256];
	int r = plat_cpuid(&cpu);

	ok(r == 0 || r == -ENODEV, "plat_cpuid returns 0 or -ENODEV (%d)", r);
	if (r == 0)
		ok(cpu.family >= 3 && cpu.family != 12345 && cpu.model < 256,
		   "plat_cpuid: %s, plausible family %u model 0x%x",
		   cpu.vendor, cpu.family, cpu.model);
	ok(plat_for_cpu(&amd) == NULL,
	   "a non-Intel CPU matches no platform, whatever its model");
	memcpy(amd.vendor, "GenuineIntel", 13);
	ok(plat_for_cpu(&amd) == &plat_skl, "GenuineIntel 6/0x5E is skl");
	is_str(plat_list(list, sizeof(list), false),
	       "skl, hsx, snbep, skx, icx, spr, zen4, adl, mtl, zen5, zen3, gnr",
	       "plat_list names every platform");
	if (!cpuinfo(vendor, sizeof(vendor), &kfam, &kmod)) {
		ok(1, "# SKIP no /proc/cpuinfo to compare plat_cpuid with");
		return;
	}
	is_int(r, 0, "%s CPU: plat_cpuid succeeds", vendor);
	is_str(cpu.vendor, vendor, "vendor agrees with /proc/cpuinfo");
	is_int(cpu.family, kfam, "family agrees with /proc/cpuinfo");
	is_int(cpu.model, kmod, "model (with extended bits) agrees with /proc/cpuinfo");
}

static void test_units(void)
{
	int idx = 99;

	is_int(plat_nunits(&plat_skl), 4, "skl has 4 unit types");
	ok(plat_unit(&plat_skl, "cbo", &idx) && idx == 0, "cbo is unit 0");
	ok(plat_unit(&plat_skl, "arb", &idx) && idx == 1, "arb is unit 1");
	ok(plat_unit(&plat_skl, "fixed", &idx) && idx == 2, "fixed is unit 2");
	ok(plat_unit(&plat_skl, "imc", &idx) && idx == 3, "imc is unit 3");
	ok(plat_unit(&plat_skl, "cbox", &idx) == NULL && idx == -1,
	   "unknown unit: NULL, index -1");
	ok(plat_unit(&plat_skl, "imc", NULL) != NULL, "index pointer optional");

	/* Table 1-2 */
	is_int(unit("cbo")->kind, UNIT_PROG, "cbo programmable");
	is_int(unit("cbo")->space, HW_MSR, "cbo in MSR space");
	is_int(unit("cbo")->max_inst, 8, "cbo: 1 to 8 instances (4 in Table 1-2, 8 on Coffee Lake)");
	is_int(unit("cbo")->nctr, 2, "cbo: 2 counters");
	is_int(unit("cbo")->width, 44, "cbo: 44-bit");
	is_int(unit("arb")->kind, UNIT_PROG, "arb programmable");
	is_int(unit("arb")->max_inst, 1, "arb: 1 instance");
	is_int(unit("arb")->nctr, 2, "arb: 2 counters");
	is_int(unit("arb")->width, 44, "arb: 44-bit");
	is_int(unit("fixed")->kind, UNIT_FIXED, "fixed is UNIT_FIXED");
	is_int(unit("fixed")->nctr, 1, "fixed: 1 counter");
	is_int(unit("fixed")->width, 48, "fixed: 48-bit (Table 2-5)");
	is_int(unit("imc")->kind, UNIT_FREERUN, "imc free-running");
	is_int(unit("imc")->space, HW_MMIO, "imc in MMIO space");
	is_int(unit("imc")->nfreerun, 5, "imc: 5 counters");
}

static void test_addresses(void)
{
	/* Table 2-1, row by row: evtsel0, evtsel1, ctr0, ctr1 of CBo n. */
	static const uint32_t cbo_tab[8][4] = {
		{ 0x700, 0x701, 0x706, 0x707 },
		{ 0x710, 0x711, 0x716, 0x717 },
		{ 0x720, 0x721, 0x726, 0x727 },
		{ 0x730, 0x731, 0x736, 0x737 },
		/* the later parts (Linux uncore_snb.c / uncore.h) */
		{ 0x740, 0x741, 0x746, 0x747 },
		{ 0x750, 0x751, 0x756, 0x757 },
		{ 0x760, 0x761, 0x766, 0x767 },
		{ 0xF70, 0xF71, 0xF76, 0xF77 },	/* CFL_UNC_CBO_7_* */
	};
	/* Table 3-3 */
	static const struct { const char *name; uint32_t off; } imc_tab[5] = {
		{ "DRAM_GT_REQUESTS", 0x5040 }, { "DRAM_IA_REQUESTS", 0x5044 },
		{ "DRAM_IO_REQUESTS", 0x5048 }, { "DRAM_DATA_READS", 0x5050 },
		{ "DRAM_DATA_WRITES", 0x5054 },
	};
	struct topo_socket s = { .id = 0, .cpu = 0, .mmio_base = 0xFED10000 };
	struct topo_socket s1 = { .id = 1, .cpu = 8, .mmio_base = 0x7FFED10000 };
	const struct unit_type *cbo = unit("cbo"), *arb = unit("arb"),
			       *fx = unit("fixed"), *imc = unit("imc");
	char what[64];
	unsigned n, i;

	for (n = 0; n < 8; n++)
		for (i = 0; i < 2; i++) {
			snprintf(what, sizeof(what), "CBo %u PERFEVTSEL%u", n, i);
			is_msr(plat_ctl_addr(&s, cbo, n, i), 0, cbo_tab[n][i], what);
			snprintf(what, sizeof(what), "CBo %u PERFCTR%u", n, i);
			is_msr(plat_ctr_addr(&s, cbo, n, i), 0, cbo_tab[n][2 + i], what);
		}
	is_msr(plat_ctl_addr(&s1, cbo, 3, 1), 8, 0x731, "cpu comes from the socket");
	is_msr(plat_ctl_addr(&s, arb, 0, 0), 0, 0x3B2, "ARB PERFEVTSEL0");
	is_msr(plat_ctl_addr(&s, arb, 0, 1), 0, 0x3B3, "ARB PERFEVTSEL1");
	is_msr(plat_ctr_addr(&s, arb, 0, 0), 0, 0x3B0, "ARB PERFCTR0");
	is_msr(plat_ctr_addr(&s, arb, 0, 1), 0, 0x3B1, "ARB PERFCTR1");
	is_msr(plat_ctl_addr(&s, fx, 0, 0), 0, 0x394, "PERF_FIXED_CTRL");
	is_msr(plat_ctr_addr(&s, fx, 0, 0), 0, 0x395, "PERF_FIXED_CTR");

	for (i = 0; i < 5; i++) {
		struct hw_addr a = plat_freerun_addr(&s, imc, 0, i);
		struct hw_addr b = plat_freerun_addr(&s1, imc, 0, i);

		is_str(imc->freerun[i].name, imc_tab[i].name, "imc counter %u name", i);
		is_int(imc->freerun[i].width, 32, "%s: 32-bit", imc_tab[i].name);
		ok(a.space == HW_MMIO && a.width == 4 &&
		   a.reg == 0xFED10000ull + imc_tab[i].off,
		   "%s at MCHBAR+0x%x, 4 bytes", imc_tab[i].name, imc_tab[i].off);
		is_u64(b.reg, 0x7FFED10000ull + imc_tab[i].off,
		       "%s follows the socket's MCHBAR", imc_tab[i].name);
	}

	/* global and extra registers: Table 2-1 */
	is_int(plat_skl.global_ctl.addr, 0xE01, "GLOBAL_CTRL at 0xE01");
	is_int(plat_skl.global_status.addr, 0xE02, "GLOBAL_STATUS at 0xE02");
	is_u64(plat_skl.global_enable, 0x20000000, "global enable = EN bit 29");
	ok(plat_skl.nextra_regs == 1 && plat_skl.extra_regs[0].addr == 0x396,
	   "extra register MSR_UNC_CBO_CONFIG at 0x396");

	/* out of range: an address no backend accepts */
	is_int(plat_ctl_addr(&s, cbo, 8, 0).width, 0, "cbo instance 8 invalid");
	is_int(plat_ctl_addr(&s, cbo, 0, 2).width, 0, "cbo counter 2 invalid");
	is_int(plat_ctr_addr(&s, cbo, 0, 2).width, 0, "cbo ctr 2 invalid");
	is_int(plat_ctl_addr(&s, arb, 1, 0).width, 0, "arb instance 1 invalid");
	is_int(plat_ctl_addr(&s, fx, 0, 1).width, 0, "fixed counter 1 invalid");
	is_int(plat_ctl_addr(&s, imc, 0, 0).width, 0, "imc has no control reg");
	is_int(plat_ctr_addr(&s, imc, 0, 0).width, 0, "imc ctr via freerun only");
	is_int(plat_freerun_addr(&s, imc, 0, 5).width, 0, "imc counter 5 invalid");
	is_int(plat_freerun_addr(&s, imc, 1, 0).width, 0, "imc instance 1 invalid");
	is_int(plat_freerun_addr(&s, cbo, 0, 0).width, 0, "cbo has no freerun");
}

/* Hand-written from Tables 2-2 .. 2-8. */
static void test_masks(void)
{
	const struct unit_type *cbo = unit("cbo"), *arb = unit("arb"),
			       *fx = unit("fixed");
	const struct reg_layout *gctl = plat_skl.global_ctl.layout,
				*gst = plat_skl.global_status.layout,
				*cfg = plat_skl.extra_regs[0].layout;
	const struct reg_field *f;

	check_layout(gctl);
	check_layout(gst);
	check_layout(fx->ctl_layout);
	check_layout(fx->ctr_layout);
	check_layout(cfg);
	check_layout(cbo->ctl_layout);
	check_layout(cbo->ctr_layout);
	ok(arb->ctl_layout == cbo->ctl_layout && arb->ctr_layout == cbo->ctr_layout,
	   "ARB shares the CBo event select and counter definitions (2.4.2, 2.4.3)");

	/* Table 2-7: 7:0, 15:8, 18, 20, 22, 23, 28:24 */
	is_u64(reg_writable(cbo->ctl_layout), 0x1FD4FFFF, "PERFEVTSEL writable");
	is_u64(reg_mask(cbo->ctl_layout, ACC_RSV), 0xFFFFFFFFE02B0000ull,
	       "PERFEVTSEL reserved: 63:29, 21, 19, 17:16");
	/* Table 2-8 */
	is_u64(reg_mask(cbo->ctr_layout, ACC_RW), 0x00000FFFFFFFFFFFull,
	       "PERFCTR CTR_VAL 43:0");
	is_u64(reg_mask(cbo->ctr_layout, ACC_RSV), 0xFFFFF00000000000ull,
	       "PERFCTR reserved 63:44");
	/* Table 2-2: 3:0, 29, 30, 31 */
	is_u64(reg_writable(gctl), 0xE000000F, "GLOBAL_CTRL writable");
	is_u64(reg_mask(gctl, ACC_RSV), 0xFFFFFFFF1FFFFFF0ull,
	       "GLOBAL_CTRL reserved 63:32, 28:4");
	/* Table 2-3 (CBO_CTR_OVF at bit 3, see hardware-notes.md) */
	is_u64(reg_mask(gst, ACC_RW1C), 0xB, "GLOBAL_STATUS RW1C bits 0, 1, 3");
	is_u64(reg_writable(gst), 0xB, "GLOBAL_STATUS writable = RW1C bits");
	is_u64(reg_mask(gst, ACC_RW), 0, "GLOBAL_STATUS has no RW bits");
	is_u64(reg_mask(gst, ACC_RSV), 0xFFFFFFFFFFFFFFF4ull,
	       "GLOBAL_STATUS reserved 63:4, 2");
	/* Table 2-4: CNT_EN 22, OVF_EN 20 */
	is_u64(reg_writable(fx->ctl_layout), 0x500000, "FIXED_CTRL writable");
	is_u64(reg_mask(fx->ctl_layout, ACC_RSV), 0xFFFFFFFFFFAFFFFFull,
	       "FIXED_CTRL reserved 63:23, 21, 19:0");
	/* Table 2-5 */
	is_u64(reg_mask(fx->ctr_layout, ACC_RW), 0x0000FFFFFFFFFFFFull,
	       "FIXED_CTR CTR_VAL 47:0");
	/* Table 2-6 */
	is_u64(reg_mask(cfg, ACC_RO), 0xF, "CBO_CONFIG NO_CBO_BANKS 3:0 RO");
	is_u64(reg_writable(cfg), 0, "CBO_CONFIG not writable");
	is_u64(reg_mask(cfg, ACC_RSV), 0xFFFFFFFFFFFFFFF0ull, "CBO_CONFIG reserved");

	/* counter widths agree with the counter register tables */
	is_u64(width_mask(cbo->width), reg_mask(cbo->ctr_layout, ACC_RW),
	       "cbo width = CTR_VAL field");
	is_u64(width_mask(fx->width), reg_mask(fx->ctr_layout, ACC_RW),
	       "fixed width = CTR_VAL field");

	f = reg_field(cbo->ctl_layout, "THR");
	ok(f && f->lo == 24 && f->hi == 28 && f->acc == ACC_RW, "THR is 28:24 RW");
	ok(reg_field(cbo->ctl_layout, "thr") == NULL, "reg_field is exact");
	f = reg_field(gst, "CBO_CTR_OVF");
	ok(f && f->lo == 3 && f->hi == 3 && f->acc == ACC_RW1C,
	   "CBO_CTR_OVF is bit 3 RW1C");
	f = reg_field(gctl, "EN");
	ok(f && field_mask(f) == plat_skl.global_enable,
	   "global_enable is the EN field of Table 2-2");

	/* the evsel format matches the layout it describes */
	ok(cbo->fmt.ev_lo == 0 && cbo->fmt.ev_w == 8, "fmt EVT_SEL 7:0");
	ok(cbo->fmt.umask_lo == 8 && cbo->fmt.umask_w == 8, "fmt UMASK 15:8");
	ok(cbo->fmt.thresh_lo == 24 && cbo->fmt.thresh_w == 5, "fmt THR 28:24");
	ok(cbo->fmt.edge_bit == 18 && cbo->fmt.ovf_en_bit == 20 &&
	   cbo->fmt.en_bit == 22 && cbo->fmt.inv_bit == 23 &&
	   cbo->fmt.rst_bit == 0xff, "fmt E 18, OVF_EN 20, EN 22, INV 23, no reset");
	ok(fx->fmt.en_bit == 22 && fx->fmt.ovf_en_bit == 20 &&
	   fx->fmt.ev_w == 0 && fx->fmt.edge_bit == 0xff,
	   "fixed fmt: CNT_EN 22, OVF_EN 20, no event select");

	/* overflow bits in GLOBAL_STATUS (Table 2-3) */
	is_int(fx->global_ovf_bit, 0, "fixed overflow: bit 0");
	is_int(arb->global_ovf_bit, 1, "arb overflow: bit 1");
	is_int(cbo->global_ovf_bit, 3, "cbo overflow: bit 3");
	is_int(unit("imc")->global_ovf_bit, 0xff, "imc: no overflow bit");

	/* the reserved convention: absent ranges count as reserved */
	{
		static const struct reg_field one[] = { { "X", 0, 7, ACC_RW } };
		static const struct reg_layout l32 = { "t32", "test", 32, one, 1 };
		static const struct reg_layout l64 = { "t64", "test", 64, one, 1 };

		is_u64(reg_mask(&l32, ACC_RSV), 0xFFFFFF00, "32-bit: rest reserved");
		is_u64(reg_mask(&l64, ACC_RSV), 0xFFFFFFFFFFFFFF00ull,
		       "64-bit: rest reserved");
		is_u64(reg_mask(&l64, ACC_WO), 0, "no WO fields");
	}
}

/* Hand copy of Tables 3-1, 3-2, 3-3. */
static const struct {
	const char *name, *unit;
	uint8_t code, umask, thresh, ctr_mask;
	const char *source;
} want_events[] = {
	{ "UNC_CBO_XSNP_RESPONSE.MISS_XCORE", "cbo", 0x22, 0x41, 0, 3, "Table 3-1" },
	{ "UNC_CBO_XSNP_RESPONSE.MISS_EVICTION", "cbo", 0x22, 0x81, 0, 3, "Table 3-1" },
	{ "UNC_CBO_XSNP_RESPONSE.HIT_XCORE", "cbo", 0x22, 0x44, 0, 3, "Table 3-1" },
	{ "UNC_CBO_XSNP_RESPONSE.HITM_XCORE", "cbo", 0x22, 0x48, 0, 3, "Table 3-1" },
	{ "UNC_CBO_CACHE_LOOKUP.WRITE_M", "cbo", 0x34, 0x21, 0, 3, "Table 3-1" },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_M", "cbo", 0x34, 0x81, 0, 3, "Table 3-1" },
	{ "UNC_CBO_CACHE_LOOKUP.READ_I", "cbo", 0x34, 0x18, 0, 3, "Table 3-1" },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_I", "cbo", 0x34, 0x88, 0, 3, "Table 3-1" },
	{ "UNC_CBO_CACHE_LOOKUP.READ_MESI", "cbo", 0x34, 0x1F, 0, 3, "Table 3-1" },
	{ "UNC_CBO_CACHE_LOOKUP.WRITE_MESI", "cbo", 0x34, 0x2F, 0, 3, "Table 3-1" },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_MESI", "cbo", 0x34, 0x8F, 0, 3, "Table 3-1" },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_ES", "cbo", 0x34, 0x86, 0, 3, "Table 3-1" },
	{ "UNC_CBO_CACHE_LOOKUP.READ_ES", "cbo", 0x34, 0x16, 0, 3, "Table 3-1" },
	{ "UNC_CBO_CACHE_LOOKUP.WRITE_ES", "cbo", 0x34, 0x26, 0, 3, "Table 3-1" },
	{ "UNC_ARB_TRK_OCCUPANCY.ALL", "arb", 0x80, 0x01, 0, 1, "Table 3-2" },
	{ "UNC_ARB_TRK_REQUESTS.ALL", "arb", 0x81, 0x01, 0, 3, "Table 3-2" },
	{ "UNC_ARB_TRK_REQUESTS.WRITES", "arb", 0x81, 0x20, 0, 3, "Table 3-2" },
	{ "UNC_ARB_COH_TRK_REQUESTS.ALL", "arb", 0x84, 0x01, 0, 3, "Table 3-2" },
	{ "UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST", "arb", 0x80, 0x01, 1, 1,
	  "Table 3-2" },
	{ "UNC_CLOCK.SOCKET", "fixed", 0x00, 0x01, 0, 0, "Table 3-2" },
	{ "DRAM_GT_REQUESTS", "imc", 0, 0, 0, 0, "Table 3-3" },
	{ "DRAM_IA_REQUESTS", "imc", 0, 0, 0, 0, "Table 3-3" },
	{ "DRAM_IO_REQUESTS", "imc", 0, 0, 0, 0, "Table 3-3" },
	{ "DRAM_DATA_READS", "imc", 0, 0, 0, 0, "Table 3-3" },
	{ "DRAM_DATA_WRITES", "imc", 0, 0, 0, 0, "Table 3-3" },
};

static void test_catalog(void)
{
	const size_t nwant = sizeof(want_events) / sizeof(want_events[0]);
	unsigned per[3] = { 0, 0, 0 }, dups = 0, encdups = 0, bad_enc = 0;
	size_t i, j;
	char why[256];

	is_int(plat_skl.nevents, 25, "25 catalog events");
	is_int(skl_nevents, 25, "skl_nevents");
	ok(plat_skl.events == skl_events, "plat_skl points at skl_events");

	for (i = 0; i < plat_skl.nevents; i++) {
		const struct event *ev = &plat_skl.events[i];

		if (strcmp(ev->source, "Table 3-1") == 0)
			per[0]++;
		else if (strcmp(ev->source, "Table 3-2") == 0)
			per[1]++;
		else if (strcmp(ev->source, "Table 3-3") == 0)
			per[2]++;
		for (j = i + 1; j < plat_skl.nevents; j++) {
			const struct event *o = &plat_skl.events[j];

			if (strcmp(ev->name, o->name) == 0)
				dups++;
			if (ev->ctr_mask && strcmp(ev->unit, o->unit) == 0 &&
			    ev->code == o->code && ev->umask == o->umask &&
			    ev->thresh == o->thresh && ev->edge == o->edge &&
			    ev->inv == o->inv)
				encdups++;
		}
	}
	is_int(per[0], 14, "Table 3-1: 14 CBo events");
	is_int(per[1], 6, "Table 3-2: 6 ARB/fixed events");
	is_int(per[2], 5, "Table 3-3: 5 IMC counters");
	is_int(dups, 0, "no duplicate names");
	is_int(encdups, 0, "no two programmable events share an encoding");

	is_int(nwant, plat_skl.nevents, "hand table has every event");
	for (i = 0; i < nwant; i++) {
		const struct event *ev = plat_event(&plat_skl, want_events[i].name);

		if (!ok(ev != NULL, "catalog has %s", want_events[i].name))
			continue;
		ok(strcmp(ev->unit, want_events[i].unit) == 0 &&
		   ev->code == want_events[i].code &&
		   ev->umask == want_events[i].umask &&
		   ev->thresh == want_events[i].thresh && !ev->edge && !ev->inv &&
		   ev->ctr_mask == want_events[i].ctr_mask &&
		   strcmp(ev->source, want_events[i].source) == 0 &&
		   ev->desc && strlen(ev->desc) > 20,
		   "%s: %s 0x%02x/0x%02x thresh %u ctrs 0x%x, %s, described",
		   want_events[i].name, want_events[i].unit, want_events[i].code,
		   want_events[i].umask, want_events[i].thresh,
		   want_events[i].ctr_mask, want_events[i].source);
	}
	ok(plat_event(&plat_skl, "unc_cbo_cache_lookup.any_mesi") == NULL,
	   "plat_event is exact");
	ok(plat_event(&plat_skl, "UNC_CBO_CACHE_LOOKUP") == NULL,
	   "plat_event needs the full name");

	/* every programmable event encodes on exactly its valid counters */
	for (i = 0; i < plat_skl.nevents; i++) {
		const struct event *ev = &plat_skl.events[i];
		const struct unit_type *u = plat_unit(&plat_skl, ev->unit, NULL);
		struct event_enc e = event_enc_of(ev);
		unsigned c;

		if (!u) {
			bad_enc++;
			continue;
		}
		for (c = 0; c < PLAT_MAX_CTRS; c++) {
			uint64_t ctl = 0;
			bool valid = u->kind == UNIT_PROG && c < u->nctr &&
				     (ev->ctr_mask >> c) & 1;
			int r = plat_encode(u, &e, c, ev->ctr_mask, &ctl, why,
					    sizeof(why));

			if ((r == 0) != valid) {
				bad_enc++;
				printf("# %s counter %u: encode %d (%s)\n", ev->name,
				       c, r, r ? why : "accepted");
			}
		}
		if (u->kind == UNIT_PROG) {
			ok(ev->ctr_mask != 0 && ev->ctr_mask < (1u << u->nctr),
			   "%s: counters within the unit's %u", ev->name, u->nctr);
			ok(plat_event_by_enc(&plat_skl, ev->unit, &e) == ev,
			   "%s found again by its encoding", ev->name);
		} else {
			ok(ev->ctr_mask == 0 &&
			   plat_event_by_enc(&plat_skl, ev->unit, &e) == NULL,
			   "%s: no counter mask, not found by encoding", ev->name);
		}
	}
	is_int(bad_enc, 0, "every event encodes on its valid counters only");

	/* the IMC catalog names are the imc unit's counters */
	{
		const struct unit_type *imc = unit("imc");
		unsigned k, found = 0;

		for (k = 0; k < imc->nfreerun; k++) {
			const struct event *ev = plat_event(&plat_skl, imc->freerun[k].name);

			if (ev && strcmp(ev->unit, "imc") == 0)
				found++;
		}
		is_int(found, 5, "every imc counter has a catalog entry");
	}
	{
		const struct event *a = plat_event(&plat_skl, "UNC_ARB_TRK_OCCUPANCY.ALL");
		const struct event *b = plat_event(&plat_skl,
			"UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST");

		ok(a && b && a->ctr_mask == 1 && b->ctr_mask == 1,
		   "ARB occupancy events: counter 0 only");
		ok(a && b && a->thresh == 0 && b->thresh == 1,
		   "occupancy ALL vs CYCLES_WITH_ANY_REQUEST differ by THR");
	}
}

static int discover(struct hw *hw, struct topology *t)
{
	return plat_skl.ops->discover(hw, t);
}

static void setup(uint64_t cbo_config, bool have_cfg, uint64_t mchbar,
		  bool have_bar)
{
	fake_reset();
	fake_set(hw_pci(0, 0, 0, 0, 0, 4), 0x191f8086);	/* Skylake S quad */
	if (have_cfg)
		fake_set(hw_msr(0, 0x396), cbo_config);
	if (have_bar)
		fake_set(hw_pci(0, 0, 0, 0, 0x48, 8), mchbar);
}

/* Is the IMC (unit 3) there after discovery? */
static bool imc_present(const struct topology *t)
{
	return topo_present(&t->sock[0], 3, 0);
}

/* One CBO_CONFIG 5 / MCHBAR 0xfed10001 part: what discovery finds. */
static void discover_known(struct hw *hw)
{
	struct topology t;
	int r;

	setup(5, true, 0xFED10001, true);
	memset(&t, 0xAA, sizeof(t));
	r = discover(hw, &t);
	is_int(r, 0, "discover: CBO_CONFIG 5, MCHBAR 0xfed10001");
	ok(t.plat == &plat_skl && t.nsockets == 1, "one skl socket");
	ok(t.sock[0].id == 0 && t.sock[0].cpu == 0, "socket 0 on cpu 0");
	is_int(t.sock[0].ninst[0], 4, "CBO_CONFIG 5 -> 4 CBos");
	is_int(t.sock[0].ninst[1], 1, "1 ARB");
	is_int(t.sock[0].ninst[2], 1, "1 fixed counter");
	is_int(t.sock[0].ninst[3], 1, "1 IMC");
	is_int(t.sock[0].ninst[4], 0, "no fifth unit");
	is_u64(t.sock[0].mmio_base, 0xFED10000, "MCHBAR base 0xfed10000");
	ok(fk.last_read.space == HW_PCI && fk.last_read.width == 8 &&
	   fk.last_read.reg == 0x48 && fk.last_read.bus == 0 &&
	   fk.last_read.dev == 0 && fk.last_read.fn == 0,
	   "MCHBAR read as 8 bytes at 0000:00:00.0+0x48");
	is_int(fk.nwrites, 0, "discover writes nothing");
	is_str(t.note, "", "nothing to note on a known part");
}

/* MSR_UNC_CBO_CONFIG: the CBo count, refused values, the 10-core parts
 * and a read error. */
static void discover_cbo_config(struct hw *hw)
{
	static const struct { uint64_t cfg; unsigned ncbo; } good[] = {
		{ 5, 4 }, { 4, 3 }, { 3, 2 }, { 2, 1 },
		{ 0x15, 4 },	/* reserved bits 63:4 ignored */
		{ 7, 6 }, { 9, 8 },	/* Coffee Lake 6 and 8 cores */
	};
	/* no CBo: not a client uncore */
	static const uint64_t bad[] = { 0, 1 };
	/* 9 and more CBos (10-core Comet Lake): CBo 8 and up have no
	 * published MSRs (notes: later client parts); served: 8 */
	static const uint64_t many[] = { 0xA, 0xB, 0xF };
	struct topology t;
	unsigned i;
	int r;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		setup(good[i].cfg, true, 0xFED10001, true);
		r = discover(hw, &t);
		ok(r == 0 && t.sock[0].ninst[0] == good[i].ncbo,
		   "CBO_CONFIG 0x%llx -> %u CBos (r=%d, got %u)",
		   (unsigned long long)good[i].cfg, good[i].ncbo, r,
		   t.sock[0].ninst[0]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setup(bad[i], true, 0xFED10001, true);
		r = discover(hw, &t);
		ok(r < 0, "CBO_CONFIG 0x%llx refused (%d)",
		   (unsigned long long)bad[i], r);
		like(hw_last_error(), "MSR_UNC_CBO_CONFIG", "message names the register");
	}
	for (i = 0; i < sizeof(many) / sizeof(many[0]); i++) {
		unsigned n = (unsigned)many[i] - 1, absent = 0;
		char want[64];

		setup(many[i], true, 0xFED10001, true);
		r = discover(hw, &t);
		for (unsigned c = 0; c < n; c++)
			absent += !topo_present(&t.sock[0], 0, c);
		snprintf(want, sizeof(want), "CBos 8-%u of %u", n - 1, n);
		ok(r == 0 && t.sock[0].ninst[0] == n && absent == n - 8 &&
		   topo_present(&t.sock[0], 0, 7) && topo_present(&t.sock[0], 3, 0),
		   "CBO_CONFIG 0x%llx: %u CBos, the 8 the MSR map covers served, "
		   "the IMC too (r=%d, %u absent)", (unsigned long long)many[i],
		   n, r, absent);
		like(t.note, want, "the note says which CBos are not counted");
	}
	setup(0, false, 0xFED10001, true);
	r = discover(hw, &t);
	is_int(r, -EIO, "unreadable CBO_CONFIG: the read error");
	like(hw_last_error(), "cannot read MSR_UNC_CBO_CONFIG", "says what failed");
	like(hw_last_error(), "no such register", "keeps the backend's reason");
}

/* MCHBAR: enable bit 0, base bits 38:15.  What the IMC needs but does
 * not find leaves it absent, the rest served (issue 19). */
static void discover_mchbar(struct hw *hw)
{
	struct topology t;
	int r;

	setup(5, true, 0xFED10000, true);
	r = discover(hw, &t);
	ok(r == 0 && !imc_present(&t) && t.sock[0].ninst[0] == 4,
	   "MCHBAR with bit 0 clear: the IMC absent, 4 CBos served (%d)", r);
	like(t.note, "the IMC's DRAM counters are not counted: MCHBAR is disabled",
	     "the note: MCHBAR disabled");

	setup(5, true, 0xFFFFFFFFFED10001ull, true);
	is_int(discover(hw, &t), 0, "MCHBAR with high garbage accepted");
	is_u64(t.sock[0].mmio_base, 0x7FFED10000ull,
	       "0xffffffff_fed10001 & bits 38:15 = 0x7f_fed10000");

	setup(5, true, 0x4000007FFFull, true);
	is_int(discover(hw, &t), 0, "MCHBAR bit 38 + low bits");
	is_u64(t.sock[0].mmio_base, 0x4000000000ull,
	       "bit 38 kept, bits 14:1 dropped (the 0x7FFFF8000 mask would lose it)");

	setup(5, true, 0x7FFFFFFFFFull, true);
	is_int(discover(hw, &t), 0, "MCHBAR all ones below bit 39");
	is_u64(t.sock[0].mmio_base, 0x7FFFFF8000ull, "mask is exactly 38:15");

	setup(5, true, 0x8000000001ull, true);
	ok(discover(hw, &t) == 0 && !imc_present(&t),
	   "MCHBAR base only in bit 39 -> base 0: the IMC absent");
	like(t.note, "is zero", "the note says the base is zero");

	setup(5, true, 0, false);
	ok(discover(hw, &t) == 0 && !imc_present(&t),
	   "unreadable MCHBAR: the IMC absent");
	like(t.note, "MCHBAR cannot be read", "says what failed");
}

/* The host bridge: every listed ID passes; an unknown, foreign or
 * unreadable one leaves only the IMC absent. */
static void discover_host_bridge(struct hw *hw)
{
	unsigned nknown = 0, nfail = 0;
	struct topology t;

	for (const uint16_t *d = skl_host_bridges; *d; d++) {
		setup(5, true, 0xFED10001, true);
		fake_set(hw_pci(0, 0, 0, 0, 0, 4), (uint64_t)*d << 16 | 0x8086);
		nknown++;
		nfail += discover(hw, &t) != 0;
	}
	is_int(nknown, 42, "42 host-bridge IDs (skl_uncore_pci_ids: 44 entries, 2 shared)");
	is_int(nfail, 0, "discovery accepts every listed host bridge");
	ok(skl_host_bridge_known(0x191f) && skl_host_bridge_known(0x3e30) &&
	   skl_host_bridge_known(0x9b73) && !skl_host_bridge_known(0x8a12),
	   "SKL S quad, CFL 8-core, CML S5 known; Ice Lake U2 not");

	setup(5, true, 0xFED10001, true);
	fake_set(hw_pci(0, 0, 0, 0, 0, 4), 0x8a128086);	/* Ice Lake U */
	ok(discover(hw, &t) == 0 && !imc_present(&t) &&
	   t.sock[0].ninst[0] == 4 && t.sock[0].ninst[1] == 1 &&
	   t.sock[0].ninst[2] == 1, "unknown host bridge: CBo, ARB and clock "
	   "served, the IMC absent");
	like(t.note, "host bridge 0000:00:00.0 is 8086:8a12",
	     "the note names the host bridge and its ID");
	setup(5, true, 0xFED10001, true);
	fake_set(hw_pci(0, 0, 0, 0, 0, 4), 0x191f1022);	/* not Intel */
	ok(discover(hw, &t) == 0 && !imc_present(&t),
	   "a non-Intel host bridge: the IMC absent");
	setup(5, true, 0xFED10001, true);
	fk.reg[0].a = hw_msr(7, 7);	/* hide the ID register */
	ok(discover(hw, &t) == 0 && !imc_present(&t),
	   "unreadable host-bridge ID: the IMC absent");
	like(t.note, "the host bridge's ID cannot be read", "says what failed");
}

static void test_discover(void)
{
	struct hw hw;

	ok(hw_open(&hw, &fake_ops, NULL) == 0, "fake backend opens");
	ok(plat_skl.ops && plat_skl.ops->discover && plat_skl.ops->global_enable,
	   "skl has discover and global_enable");
	discover_known(&hw);
	discover_cbo_config(&hw);
	discover_mchbar(&hw);
	discover_host_bridge(&hw);

	/* an invalid address never reaches the backend */
	{
		struct topo_socket s = { 0 };
		struct hw_addr a = plat_ctl_addr(&s, unit("cbo"), 8, 0);
		uint64_t v;

		fake_reset();
		is_int(hw_read(&hw, &a, &v), -EINVAL, "width-0 address refused by hw_read");
		is_int(hw_write(&hw, &a, 1), -EINVAL, "and by hw_write");
		is_int(fk.nwrites, 0, "backend not called");
	}
	hw_close(&hw);
}

static void test_global_enable(void)
{
	struct hw hw;
	struct topology t;

	hw_open(&hw, &fake_ops, NULL);
	setup(5, true, 0xFED10001, true);
	ok(discover(&hw, &t) == 0, "discover for global_enable");

	is_int(plat_skl.ops->global_enable(&hw, &t, 0, true), 0, "enable");
	ok(fk.last_write.space == HW_MSR && fk.last_write.reg == 0xE01 &&
	   fk.last_write.cpu == 0, "wrote MSR_UNC_PERF_GLOBAL_CTRL on cpu 0");
	is_u64(fk.last_write_val, 0x20000000, "EN (bit 29) set");
	is_int(plat_skl.ops->global_enable(&hw, &t, 0, false), 0, "disable");
	is_u64(fk.last_write_val, 0, "all clear");
	fk.nwrites = 0;
	ok(plat_skl.ops->global_enable(&hw, &t, 1, true) == -EINVAL,
	   "no socket 1");
	like(hw_last_error(), "socket 1", "message names the socket");
	is_int(fk.nwrites, 0, "nothing written for a bad socket");

	t.sock[0].cpu = 3;
	plat_skl.ops->global_enable(&hw, &t, 0, true);
	is_int(fk.last_write.cpu, 3, "written on the socket's cpu");
	hw_close(&hw);
}

int main(void)
{
	test_platform_lookup();
	test_cpuid();
	test_units();
	test_addresses();
	test_masks();
	test_catalog();
	test_discover();
	test_global_enable();
	return tap_done();
}
