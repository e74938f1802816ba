/*
 * test_plat_hsx.c - the hsx platform description against the Xeon E5/E7
 * v3 uncore manual (331051-002): every register of Table 1-2 (MSR) and
 * Table 1-3 (PCI configuration space) reachable through the unit tables
 * and nothing else, field masks of every layout, widths and overflow
 * bits, the encodings of catalog events, and discovery: the bus-to-socket
 * mapping (1.6.1) and the boxes present, against `lspci -xxx` dumps of 1,
 * 2 and 4 sockets and one with a missing QPI port, read through the real
 * libpci backend ("dump" method).  MSRs come from a small fake backend
 * that passes PCI accesses to the real one; the CPU topology from a
 * sysfs-like tree made in a temporary directory.
 *
 * Expected values are written out by hand from the manual's tables, never
 * computed from the tables under test.  The fixture directory is
 * $top_srcdir/tests/fixtures (set by `make check`), else FIXTURE_DIR.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw/hw.h"
#include "plat/plat.h"
#include "plat/plat_hsx.h"
#include "plat/events_hsx.h"
#include "pmu/sched.h"
#include "tests/tap.h"
#include "tests/unit/fake_dump.h"

#define NONE 0xff
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct platform *P = &plat_hsx;

static const struct unit_type *unit(const char *name, unsigned *index)
{
	int i;
	const struct unit_type *u = plat_unit(P, name, &i);

	if (!u) {
		printf("# no unit %s\n", name);
		exit(1);
	}
	if (index)
		*index = (unsigned)i;
	return u;
}

/* ---- a fake backend: MSRs by rule, PCI through the real dump ---------- */

struct fake_pkg {
	unsigned cbo_count;	/* CBo box controls that answer */
	unsigned num_c;		/* U_MSR_PMON_GLOBAL_CONFIG.num_c */
	uint32_t sbox_present;	/* bit n: SBo n answers */
};

#define LOG_MAX 4096

static struct fake_cfg {
	unsigned npkg;
	bool blocked;		/* pkg = cpu / 8, else cpu % npkg */
	struct fake_pkg pkg[PLAT_MAX_SOCKETS];
	int msr_err;		/* non-zero: every MSR read fails so */
	int64_t nodeid_override, map_override;	/* -1: the dump's */
	struct { struct hw_addr a; uint64_t v; } log[LOG_MAX];
	unsigned nlog;
	unsigned msr_reads;
} fc;

static void fake_reset(unsigned npkg)
{
	memset(&fc, 0, sizeof(fc));
	fc.npkg = npkg;
	fc.nodeid_override = fc.map_override = -1;
	for (unsigned p = 0; p < PLAT_MAX_SOCKETS; p++)
		fc.pkg[p] = (struct fake_pkg){ .cbo_count = 18, .num_c = 18,
					       .sbox_present = 0xf };
}

static int fake_msr(uint32_t cpu, uint32_t msr, uint64_t *v)
{
	unsigned pkg = fc.blocked ? cpu / 8 : cpu % fc.npkg;
	const struct fake_pkg *p = &fc.pkg[pkg % PLAT_MAX_SOCKETS];

	fc.msr_reads++;
	if (fc.msr_err)
		return hw_fail(fc.msr_err, "fake: msr 0x%x on cpu %u: error %d",
			       msr, cpu, fc.msr_err);
	if (pkg >= fc.npkg)
		return hw_fail(ENXIO, "fake: no cpu %u", cpu);
	*v = 0;
	if (msr == 0x702) {
		*v = p->num_c;
		return 0;
	}
	if (msr >= 0xE00 && msr < 0xE00 + 0x10 * 18)
		return (msr - 0xE00) / 0x10 < p->cbo_count ? 0 :
			hw_fail(EIO, "fake: #GP on msr 0x%x", msr);
	if (msr >= 0x720 && msr < 0x748)
		return (p->sbox_present >> ((msr - 0x720) / 0xA)) & 1 ? 0 :
			hw_fail(EIO, "fake: #GP on msr 0x%x", msr);
	if ((msr >= 0x700 && msr <= 0x70A) || (msr >= 0x710 && msr <= 0x71A) ||
	    msr == 0x3FD || msr == 0x3FC || msr == 0x60D || msr == 0x3F8)
		return 0;
	return hw_fail(EIO, "fake: #GP on msr 0x%x", msr);
}

static int fake_read(struct hw *hw, const struct hw_addr *a, uint64_t *v)
{
	struct hw *inner = hw->priv;
	int r;

	if (a->space == HW_MSR)
		return fake_msr(a->cpu, (uint32_t)a->reg, v);
	r = hw_read(inner, a, v);
	if (r == 0 && a->space == HW_PCI && a->reg == HSX_UBOX_CPUNODEID &&
	    fc.nodeid_override >= 0)
		*v = (uint64_t)fc.nodeid_override;
	if (r == 0 && a->space == HW_PCI && a->reg == HSX_UBOX_GIDNIDMAP &&
	    fc.map_override >= 0)
		*v = (uint64_t)fc.map_override;
	return r;
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


/* ---- a sysfs-like CPU tree -------------------------------------------- */

static char sysroot[64];

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		printf("# cannot write %s\n", path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

/* cpu0 .. cpu(n-1), cpuN in package N % npkg; cpu3 offline (no
 * topology directory), plus "cpufreq" and "online" to be ignored. */
static void make_sysfs(unsigned ncpu, unsigned npkg)
{
	char path[256], text[16];

	snprintf(sysroot, sizeof(sysroot), "/tmp/test_plat_hsx.XXXXXX");
	if (!mkdtemp(sysroot)) {
		printf("# mkdtemp failed\n");
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/cpufreq", sysroot);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/online", sysroot);
	put_file(path, "0-2,4-15\n");
	for (unsigned c = 0; c < ncpu; c++) {
		snprintf(path, sizeof(path), "%s/cpu%u", sysroot, c);
		mkdir(path, 0755);
		if (c == 3)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%u/topology", sysroot, c);
		mkdir(path, 0755);
		snprintf(path, sizeof(path),
			 "%s/cpu%u/topology/physical_package_id", sysroot, c);
		snprintf(text, sizeof(text), "%u\n", c % npkg);
		put_file(path, text);
		/* Two cores per package, two threads each: CPUs p, p+npkg
		 * are cores 0, 1 and p+2npkg, p+3npkg their siblings. */
		snprintf(path, sizeof(path), "%s/cpu%u/topology/core_id",
			 sysroot, c);
		snprintf(text, sizeof(text), "%u\n", (c / npkg) % 2);
		put_file(path, text);
	}
}

static void remove_sysfs(unsigned ncpu)
{
	char path[256];

	for (unsigned c = 0; c < ncpu; c++) {
		snprintf(path, sizeof(path),
			 "%s/cpu%u/topology/physical_package_id", sysroot, c);
		unlink(path);
		snprintf(path, sizeof(path), "%s/cpu%u/topology/core_id",
			 sysroot, c);
		unlink(path);
		snprintf(path, sizeof(path), "%s/cpu%u/topology", sysroot, c);
		rmdir(path);
		snprintf(path, sizeof(path), "%s/cpu%u", sysroot, c);
		rmdir(path);
	}
	snprintf(path, sizeof(path), "%s/cpufreq", sysroot);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/online", sysroot);
	unlink(path);
	rmdir(sysroot);
}

/* ---- helpers ---------------------------------------------------------- */

static void is_msr(struct hw_addr a, uint32_t cpu, uint32_t msr,
		   const char *what)
{
	ok(a.space == HW_MSR && a.width == 8 && a.cpu == cpu && a.reg == msr,
	   "%s = msr 0x%x on cpu %u (got space %d width %u cpu %u reg 0x%llx)",
	   what, msr, cpu, (int)a.space, a.width, a.cpu,
	   (unsigned long long)a.reg);
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

/* Layout sanity: fields inside the register, non-reserved fields do not
 * overlap. */
static void check_layout(const struct reg_layout *l)
{
	uint64_t seen = 0;
	bool good = true;

	for (size_t i = 0; i < l->nfields; i++) {
		const struct reg_field *f = &l->fields[i];

		if (f->lo > f->hi || f->hi >= l->bits)
			good = false;
		if (f->acc != ACC_RSV) {
			if (seen & field_mask(f))
				good = false;
			seen |= field_mask(f);
		}
	}
	ok(good && l->source && strncmp(l->source, "Table ", 6) == 0,
	   "%s (%s): fields inside %u bits, no overlaps, cites a table",
	   l->name, l->source, l->bits);
}

static void masks(const struct reg_layout *l, uint64_t writable, uint64_t rsv)
{
	is_u64(reg_writable(l), writable, "%s (%s): writable mask", l->name,
	       l->source);
	is_u64(reg_mask(l, ACC_RSV), rsv, "%s (%s): reserved mask", l->name,
	       l->source);
}

/* ---- platform and units ----------------------------------------------- */

static void test_platform(void)
{
	static const char *const names[] = {
		"ubox", "ubox_fixed", "cbo", "sbox", "ha", "imc", "imc_fixed",
		"irp", "pcu", "pcu_cstate", "qpi", "qpi_link", "r2pcie", "r3qpi",
	};
	const struct cpu_match *c;
	bool model = false;

	is_str(P->id, "hsx", "platform id");
	for (c = P->cpus; c->family || c->model; c++)
		if (c->family == 6 && c->model == 0x3F)
			model = true;
	ok(model, "matches CPUID family 6 model 0x3F");
	is_int(plat_nunits(P), 14, "14 unit types");
	ok(plat_nunits(P) <= PLAT_MAX_UNITS, "fits PLAT_MAX_UNITS");
	for (unsigned i = 0; i < ARRAY_SIZE(names); i++)
		ok(plat_unit(P, names[i], NULL) != NULL, "unit %s exists",
		   names[i]);
	ok(P->events == hsx_events && P->nevents == HSX_NEVENTS,
	   "catalog is hsx_events (%zu entries)", P->nevents);
	is_u64(P->global_ctl.addr, 0x700, "global control 0x700 (Table 2-1)");
	is_u64(P->global_status.addr, 0x701, "global status 0x701 (Table 2-1)");
	is_u64(P->global_enable, 1u << 29, "enable = unfrz_all (Table 2-2)");
	ok(P->nextra_regs == 1 && P->extra_regs[0].addr == 0x702 &&
	   P->extra_regs[0].reset == 18,
	   "U_MSR_PMON_GLOBAL_CONFIG 0x702, num_c resets to 18 (Table 2-4)");
	ok(P->ops->discover && P->ops->discover_map && P->ops->global_enable &&
	   P->ops->reset_boxes, "ops: discover, discover_map, global_enable, "
	   "reset_boxes");
	ok(plat_by_id("hsx") == NULL || plat_by_id("hsx") == P,
	   "plat_by_id(\"hsx\") is plat_hsx once listed in plat_all");
}

/* Widths: the manual's 48 except where notes: UBox counter width. */
static void test_widths(void)
{
	static const struct { const char *u; unsigned nctr, width, inst; } w[] = {
		{ "ubox", 2, 44, 1 }, { "ubox_fixed", 1, 48, 1 },
		{ "cbo", 4, 48, 18 }, { "sbox", 4, 44, 4 }, { "ha", 4, 48, 2 },
		{ "imc", 4, 48, 8 }, { "imc_fixed", 1, 48, 8 },
		{ "irp", 4, 48, 1 }, { "pcu", 4, 48, 1 }, { "qpi", 4, 48, 3 },
		{ "r2pcie", 4, 48, 1 }, { "r3qpi", 3, 44, 3 },
	};
	const struct unit_type *u;

	for (unsigned i = 0; i < ARRAY_SIZE(w); i++) {
		u = unit(w[i].u, NULL);
		ok(u->nctr == w[i].nctr && u->width == w[i].width &&
		   u->max_inst == w[i].inst,
		   "%s: %u counters of %u bits, %u instances (got %u, %u, %u)",
		   w[i].u, w[i].nctr, w[i].width, w[i].inst, u->nctr, u->width,
		   u->max_inst);
		ok(u->max_rate > 0, "%s: a rate bound for the wrap check", w[i].u);
	}
	u = unit("pcu_cstate", NULL);
	ok(u->kind == UNIT_FREERUN && u->nfreerun == 5 &&
	   u->freerun[0].width == 64 && u->freerun[0].access == 8,
	   "pcu_cstate: five 64-bit free-running MSRs (Tables 2-161..2-164, "
	   "0x3F9)");
	{
		unsigned core = 0, pkg = 0;

		for (unsigned i = 0; i < u->nfreerun; i++) {
			bool want = u->freerun[i].off == 0x3FC ||
				    u->freerun[i].off == 0x3FD;

			if (u->freerun[i].core_scope != want)
				continue;
			if (want)
				core++;
			else
				pkg++;
		}
		ok(core == 2 && pkg == 3, "CC3/CC6 core scope, PC2/PC3/PC6 "
		   "package scope (Linux cstate.c)");
	}
	u = unit("qpi_link", NULL);
	ok(u->kind == UNIT_FREERUN && u->nfreerun == 2 &&
	   u->freerun[0].width == 32 && u->freerun[0].access == 4 &&
	   u->freerun[1].width == 32, "qpi_link: two 32-bit counters "
	   "(Tables 2-178, 2-179)");
	/* 2^32 / 2.4e9 = 1.79 s: the interval bound with these in use */
	is_near(u->freerun[0].max_rate, 2.4e9, 1e-9,
		"qpi_link bound: qfclk = 9.6 GT/s / 4");
	ok(unit("ubox_fixed", NULL)->kind == UNIT_FIXED &&
	   unit("imc_fixed", NULL)->kind == UNIT_FIXED, "fixed units");
}

/* Global-status overflow bits, Table 2-3. */
static void test_ovf_bits(void)
{
	static const struct { const char *u; unsigned inst; uint8_t bit; } o[] = {
		{ "ubox_fixed", 0, 0 }, { "ubox", 0, 1 }, { "pcu", 0, 2 },
		{ "ha", 0, 21 }, { "ha", 1, 22 },
		{ "imc", 0, 23 }, { "imc", 3, 23 }, { "imc", 4, 24 },
		{ "imc", 7, 24 }, { "imc_fixed", 5, 24 },
		{ "qpi", 0, 25 }, { "qpi", 1, 25 }, { "qpi", 2, 26 },
		{ "r3qpi", 0, 27 }, { "r3qpi", 1, 27 }, { "r3qpi", 2, 28 },
		{ "r2pcie", 0, 29 }, { "irp", 0, 34 },
		{ "cbo", 5, NONE }, { "sbox", 2, NONE }, { "qpi_link", 0, NONE },
		{ "pcu_cstate", 0, NONE },
	};

	for (unsigned i = 0; i < ARRAY_SIZE(o); i++)
		is_int(plat_global_ovf_bit(unit(o[i].u, NULL), o[i].inst),
		       o[i].bit, "%s %u overflow -> global status bit %d",
		       o[i].u, o[i].inst, o[i].bit == NONE ? -1 : o[i].bit);
}

/* ---- addresses: Table 1-2 --------------------------------------------- */

struct addr_set {
	uint32_t v[2048];
	unsigned n;
};

static void set_add(struct addr_set *s, uint32_t v)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return;
	if (s->n < ARRAY_SIZE(s->v))
		s->v[s->n++] = v;
}

static void set_range(struct addr_set *s, uint32_t lo, uint32_t hi)
{
	for (uint32_t v = lo; v <= hi; v++)
		set_add(s, v);
}

static bool set_has(const struct addr_set *s, uint32_t v)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return true;
	return false;
}

/* Every address register a of width w covers, as dword offsets (PCI) or
 * the address itself (MSR), tagged with the PCI function. */
static void add_addr(struct addr_set *s, struct hw_addr a)
{
	if (a.width == 0)
		return;
	if (a.space == HW_MSR) {
		set_add(s, (uint32_t)a.reg);
		return;
	}
	for (unsigned k = 0; k < a.width; k += 4)
		set_add(s, ((uint32_t)a.dev << 19) | ((uint32_t)a.fn << 16) |
			   (uint32_t)(a.reg + k));
}

/* Every register the unit tables reach in one space, all instances. */
static void reachable(enum hw_space sp, const struct topo_socket *s,
		      struct addr_set *out)
{
	out->n = 0;
	for (unsigned ui = 0; P->units[ui]; ui++) {
		const struct unit_type *u = P->units[ui];

		if (u->space != sp)
			continue;
		for (unsigned i = 0; i < u->max_inst; i++) {
			for (unsigned c = 0; c < u->nctr; c++) {
				add_addr(out, plat_ctl_addr(s, u, i, c));
				add_addr(out, plat_ctr_addr(s, u, i, c));
			}
			for (unsigned f = 0; f < u->nfreerun; f++)
				add_addr(out, plat_freerun_addr(s, u, i, f));
			add_addr(out, plat_box_ctl_addr(s, u, i));
			add_addr(out, plat_box_status_addr(s, u, i));
			for (unsigned f = 0; f < u->nfilters; f++)
				add_addr(out, plat_filter_addr(s, u, i, f));
		}
	}
	if (sp == HW_MSR) {
		set_add(out, P->global_ctl.addr);
		set_add(out, P->global_status.addr);
		for (size_t k = 0; k < P->nextra_regs; k++)
			set_add(out, P->extra_regs[k].addr);
	}
}

static void compare_sets(const struct addr_set *got,
			 const struct addr_set *want, const char *what)
{
	unsigned missing = 0, extra = 0;

	for (unsigned i = 0; i < want->n; i++)
		if (!set_has(got, want->v[i])) {
			if (missing++ < 8)
				printf("# %s: 0x%x not reached\n", what, want->v[i]);
		}
	for (unsigned i = 0; i < got->n; i++)
		if (!set_has(want, got->v[i])) {
			if (extra++ < 8)
				printf("# %s: 0x%x reached, not in the table\n",
				       what, got->v[i]);
		}
	ok(missing == 0 && extra == 0, "%s: %u registers, %u not reached, %u "
	   "not in the table", what, want->n, missing, extra);
}

static struct addr_set want_set, got_set;

static void test_msr_map(void)
{
	struct topo_socket s = { .cpu = 7 };
	const struct unit_type *cbo = unit("cbo", NULL), *sbo = unit("sbox", NULL);
	const struct unit_type *pcu = unit("pcu", NULL), *ubox = unit("ubox", NULL);
	const struct unit_type *uf = unit("ubox_fixed", NULL);
	const struct unit_type *cst = unit("pcu_cstate", NULL);
	struct addr_set *w = &want_set;

	/* Table 1-2, sheets 1-3, as printed (CBo n: ctr 0xEnB-0xEn8, filters
	 * 0xEn5/6, config 0xEn4-0xEn1, box 0xEn0/0xEn7; n = 0 .. 17). */
	w->n = 0;
	for (uint32_t n = 0; n < 18; n++) {
		uint32_t b = 0xE00 + 0x10 * n;

		set_range(w, b + 0x8, b + 0xB);
		set_range(w, b + 0x5, b + 0x6);
		set_range(w, b + 0x1, b + 0x4);
		set_add(w, b);
		set_add(w, b + 0x7);
	}
	set_range(w, 0x744, 0x747); set_range(w, 0x73F, 0x742);	/* SBox 3 */
	set_add(w, 0x743); set_add(w, 0x73E);
	set_range(w, 0x73A, 0x73D); set_range(w, 0x735, 0x738);	/* SBox 2 */
	set_add(w, 0x734); set_add(w, 0x739);
	set_range(w, 0x730, 0x733); set_range(w, 0x72B, 0x72E);	/* SBox 1 */
	set_add(w, 0x72A); set_add(w, 0x72F);
	set_range(w, 0x726, 0x729); set_range(w, 0x721, 0x724);	/* SBox 0 */
	set_add(w, 0x720); set_add(w, 0x725);
	set_range(w, 0x717, 0x71A); set_add(w, 0x715);		/* PCU */
	set_range(w, 0x711, 0x714); set_add(w, 0x710); set_add(w, 0x716);
	set_add(w, 0x60D); set_add(w, 0x3F8); set_add(w, 0x3FC);
	set_add(w, 0x3FD); set_add(w, 0x3F9);	/* PC6: notes */
	set_range(w, 0x709, 0x70A); set_add(w, 0x708);		/* U-Box */
	set_range(w, 0x705, 0x706); set_add(w, 0x704); set_add(w, 0x703);
	set_add(w, 0x700); set_add(w, 0x701);			/* global */
	set_add(w, 0x702);	/* Table 2-1: GLOBAL_CONFIG, not in Table 1-2 */

	reachable(HW_MSR, &s, &got_set);
	compare_sets(&got_set, w, "MSR space (Table 1-2 + 0x702)");
	ok(!set_has(&got_set, 0x707), "0x707 (between U-Box control and status, "
	   "not in Table 1-2) is not reached");

	/* spot checks, as the manual prints them */
	is_msr(plat_ctr_addr(&s, cbo, 17, 0), 7, 0xF18, "CBo 17 CTR0");
	is_msr(plat_ctr_addr(&s, cbo, 17, 3), 7, 0xF1B, "CBo 17 CTR3");
	is_msr(plat_ctl_addr(&s, cbo, 17, 0), 7, 0xF11, "CBo 17 CTL0");
	is_msr(plat_ctl_addr(&s, cbo, 17, 3), 7, 0xF14, "CBo 17 CTL3");
	is_msr(plat_filter_addr(&s, cbo, 17, 0), 7, 0xF15, "CBo 17 FILTER0");
	is_msr(plat_filter_addr(&s, cbo, 17, 1), 7, 0xF16, "CBo 17 FILTER1");
	is_msr(plat_box_ctl_addr(&s, cbo, 17), 7, 0xF10, "CBo 17 BOX_CTL");
	is_msr(plat_box_status_addr(&s, cbo, 17), 7, 0xF17, "CBo 17 BOX_STATUS");
	is_msr(plat_ctr_addr(&s, cbo, 0, 0), 7, 0xE08, "CBo 0 CTR0");
	ok(plat_ctr_addr(&s, cbo, 18, 0).width == 0, "no CBo 18");
	ok(plat_ctr_addr(&s, cbo, 0, 4).width == 0, "no CBo counter 4");
	is_msr(plat_box_ctl_addr(&s, sbo, 3), 7, 0x73E, "SBo 3 BOX_CTL");
	is_msr(plat_ctl_addr(&s, sbo, 3, 0), 7, 0x73F, "SBo 3 CTL0");
	is_msr(plat_box_status_addr(&s, sbo, 3), 7, 0x743, "SBo 3 BOX_STATUS");
	is_msr(plat_ctr_addr(&s, sbo, 3, 0), 7, 0x744, "SBo 3 CTR0");
	is_msr(plat_ctr_addr(&s, sbo, 3, 3), 7, 0x747, "SBo 3 CTR3");
	is_msr(plat_box_ctl_addr(&s, sbo, 1), 7, 0x72A, "SBo 1 BOX_CTL");
	is_msr(plat_box_ctl_addr(&s, sbo, 2), 7, 0x734, "SBo 2 BOX_CTL");
	is_msr(plat_box_ctl_addr(&s, pcu, 0), 7, 0x710, "PCU BOX_CTL");
	is_msr(plat_ctl_addr(&s, pcu, 0, 0), 7, 0x711, "PCU CTL0");
	is_msr(plat_filter_addr(&s, pcu, 0, 0), 7, 0x715, "PCU BOX_FILTER");
	is_msr(plat_box_status_addr(&s, pcu, 0), 7, 0x716, "PCU BOX_STATUS");
	is_msr(plat_ctr_addr(&s, pcu, 0, 3), 7, 0x71A, "PCU CTR3");
	is_msr(plat_freerun_addr(&s, cst, 0, 0), 7, 0x3FD, "CORE_CC6_CTR");
	is_msr(plat_freerun_addr(&s, cst, 0, 1), 7, 0x3FC, "CORE_CC3_CTR");
	is_msr(plat_freerun_addr(&s, cst, 0, 2), 7, 0x60D, "CORE_PC2_CTR");
	is_msr(plat_freerun_addr(&s, cst, 0, 3), 7, 0x3F8, "CORE_PC3_CTR");
	is_msr(plat_ctl_addr(&s, ubox, 0, 0), 7, 0x705, "U CTL0");
	is_msr(plat_ctl_addr(&s, ubox, 0, 1), 7, 0x706, "U CTL1");
	is_msr(plat_ctr_addr(&s, ubox, 0, 0), 7, 0x709, "U CTR0");
	is_msr(plat_ctr_addr(&s, ubox, 0, 1), 7, 0x70A, "U CTR1");
	is_msr(plat_box_status_addr(&s, ubox, 0), 7, 0x708, "U BOX_STATUS");
	ok(plat_box_ctl_addr(&s, ubox, 0).width == 0,
	   "the UBox has no box control (2.1.2 d)");
	is_msr(plat_ctl_addr(&s, uf, 0, 0), 7, 0x703, "UCLK FIXED_CTL");
	is_msr(plat_ctr_addr(&s, uf, 0, 0), 7, 0x704, "UCLK FIXED_CTR");
}

/* ---- addresses: Table 1-3 --------------------------------------------- */

#define TAG(d, f, off) (((uint32_t)(d) << 19) | ((uint32_t)(f) << 16) | (off))

static void want_dwords(struct addr_set *w, unsigned d, unsigned f,
			uint32_t lo, uint32_t hi)
{
	for (uint32_t o = lo; o <= hi; o += 4)
		set_add(w, TAG(d, f, o));
}

static void test_pci_map(void)
{
	static struct topo_socket s;
	struct addr_set *w = &want_set;
	const struct unit_type *ha = unit("ha", NULL), *imc = unit("imc", NULL);
	const struct unit_type *imf = unit("imc_fixed", NULL);
	const struct unit_type *irp = unit("irp", NULL), *qpi = unit("qpi", NULL);
	const struct unit_type *ql = unit("qpi_link", NULL);
	const struct unit_type *r2 = unit("r2pcie", NULL);
	const struct unit_type *r3 = unit("r3qpi", NULL);
	static const unsigned imc_df[8][2] = {
		{ 20, 0 }, { 20, 1 }, { 21, 0 }, { 21, 1 },
		{ 23, 0 }, { 23, 1 }, { 24, 0 }, { 24, 1 },
	};

	/* every PCI instance where Table 1-3 puts it, on bus 0x7f */
	for (unsigned ui = 0; P->units[ui]; ui++)
		for (unsigned i = 0; P->units[ui]->space == HW_PCI &&
		     i < P->units[ui]->max_inst; i++)
			plat_pci_place(&s, P->units[ui], i, 0, 0x7f);
	/* Table 1-3 as printed, ranges of dwords. */
	w->n = 0;
	for (unsigned f = 1; f <= 5; f += 4) {		/* HA0 D18:F1, HA1 F5 */
		want_dwords(w, 18, f, 0xF4, 0xF8);
		want_dwords(w, 18, f, 0xD8, 0xE4);
		want_dwords(w, 18, f, 0xA0, 0xBC);
		want_dwords(w, 18, f, 0x40, 0x48);
	}
	for (unsigned c = 0; c < 8; c++) {		/* iMC0/1 channels */
		want_dwords(w, imc_df[c][0], imc_df[c][1], 0xF4, 0xF8);
		want_dwords(w, imc_df[c][0], imc_df[c][1], 0xF0, 0xF0);
		want_dwords(w, imc_df[c][0], imc_df[c][1], 0xD8, 0xE4);
		want_dwords(w, imc_df[c][0], imc_df[c][1], 0xD0, 0xD4);
		want_dwords(w, imc_df[c][0], imc_df[c][1], 0xA0, 0xBC);
	}
	/* IRP D5:F6: "E4-E0 & DC-D8", counters "B8-B0 & A8-A0": four 8-byte
	 * counters at A0, A8, B0, B8 (notes: IRP registers) */
	want_dwords(w, 5, 6, 0xF4, 0xF8);
	want_dwords(w, 5, 6, 0xE0, 0xE4);
	want_dwords(w, 5, 6, 0xD8, 0xDC);
	want_dwords(w, 5, 6, 0xB0, 0xBC);
	want_dwords(w, 5, 6, 0xA0, 0xAC);
	for (unsigned d = 8; d <= 10; d++) {		/* QPI ports 0-2 */
		want_dwords(w, d, 2, 0xF4, 0xF8);
		want_dwords(w, d, 2, 0xD8, 0xE4);
		want_dwords(w, d, 2, 0xA0, 0xBC);
		want_dwords(w, d, 2, 0xD0, 0xD0);
		want_dwords(w, d, 2, 0xC8, 0xC8);
		want_dwords(w, d, 6, 0x238, 0x23C);	/* Mask 1,0 - Rx */
		want_dwords(w, d, 6, 0x228, 0x22C);	/* Match 1,0 - Rx */
		want_dwords(w, d, 6, 0x210, 0x214);	/* Mask 1,0 - Tx */
		want_dwords(w, d, 6, 0x200, 0x204);	/* Match 1,0 - Tx */
	}
	want_dwords(w, 16, 1, 0xF4, 0xF8);		/* R2PCIe D16:F1 */
	want_dwords(w, 16, 1, 0xD8, 0xE4);
	want_dwords(w, 16, 1, 0xA0, 0xBC);
	for (unsigned f = 1; f <= 5; f++) {		/* R3QPI D11:F1,2,5 */
		if (f == 3 || f == 4)
			continue;
		want_dwords(w, 11, f, 0xF4, 0xF8);
		want_dwords(w, 11, f, 0xD8, 0xE0);
		want_dwords(w, 11, f, 0xA0, 0xB4);
	}
	reachable(HW_PCI, &s, &got_set);
	compare_sets(&got_set, w, "PCI config space (Table 1-3)");

	/* access widths and functions */
	is_pci(plat_ctl_addr(&s, ha, 1, 0), 0x7f, 18, 5, 0xD8, 4, "HA1 CTL0");
	is_pci(plat_ctr_addr(&s, ha, 1, 3), 0x7f, 18, 5, 0xB8, 8, "HA1 CTR3 (BC+B8)");
	is_pci(plat_box_ctl_addr(&s, ha, 0), 0x7f, 18, 1, 0xF4, 4, "HA0 BOX_CTL");
	is_pci(plat_box_status_addr(&s, ha, 0), 0x7f, 18, 1, 0xF8, 4,
	       "HA0 BOX_STATUS");
	is_pci(plat_filter_addr(&s, ha, 0, 0), 0x7f, 18, 1, 0x40, 4,
	       "HA0 ADDRMATCH0");
	is_pci(plat_filter_addr(&s, ha, 0, 2), 0x7f, 18, 1, 0x48, 4,
	       "HA0 OPCODEMATCH");
	is_pci(plat_ctr_addr(&s, imc, 2, 0), 0x7f, 21, 0, 0xA0, 8,
	       "MC0 channel 2 CTR0");
	is_pci(plat_ctl_addr(&s, imc, 7, 3), 0x7f, 24, 1, 0xE4, 4,
	       "MC1 channel 3 CTL3");
	is_pci(plat_ctl_addr(&s, imf, 4, 0), 0x7f, 23, 0, 0xF0, 4,
	       "MC1 channel 0 FIXED_CTL");
	is_pci(plat_ctr_addr(&s, imf, 4, 0), 0x7f, 23, 0, 0xD0, 8,
	       "MC1 channel 0 FIXED_CTR (D4+D0)");
	is_pci(plat_ctr_addr(&s, irp, 0, 0), 0x7f, 5, 6, 0xA0, 8, "IRP CTR0");
	is_pci(plat_ctr_addr(&s, irp, 0, 1), 0x7f, 5, 6, 0xA8, 8, "IRP CTR1");
	is_pci(plat_ctr_addr(&s, irp, 0, 2), 0x7f, 5, 6, 0xB0, 8, "IRP CTR2");
	is_pci(plat_ctr_addr(&s, irp, 0, 3), 0x7f, 5, 6, 0xB8, 8, "IRP CTR3");
	is_pci(plat_ctl_addr(&s, irp, 0, 3), 0x7f, 5, 6, 0xE4, 4, "IRP CTL3");
	is_pci(plat_ctl_addr(&s, qpi, 2, 0), 0x7f, 10, 2, 0xD8, 4, "QPI port 2 CTL0");
	is_pci(plat_filter_addr(&s, qpi, 1, 0), 0x7f, 9, 6, 0x228, 4,
	       "QPI port 1 RX_MATCH0 in F6");
	is_pci(plat_filter_addr(&s, qpi, 2, 7), 0x7f, 10, 6, 0x214, 4,
	       "QPI port 2 TX_MASK1 in F6");
	is_pci(plat_freerun_addr(&s, ql, 0, 0), 0x7f, 8, 2, 0xC8, 4,
	       "QPI port 0 LINK_IDLE");
	is_pci(plat_freerun_addr(&s, ql, 1, 1), 0x7f, 9, 2, 0xD0, 4,
	       "QPI port 1 LINK_LLR");
	is_pci(plat_ctl_addr(&s, r2, 0, 0), 0x7f, 16, 1, 0xD8, 4, "R2PCIe CTL0");
	is_pci(plat_ctl_addr(&s, r3, 2, 2), 0x7f, 11, 5, 0xE0, 4, "R3QPI link 2 CTL2");
	is_pci(plat_ctr_addr(&s, r3, 1, 2), 0x7f, 11, 2, 0xB0, 8, "R3QPI link 1 CTR2");
	ok(plat_ctl_addr(&s, r3, 0, 3).width == 0, "no R3QPI counter 3");
	ok(plat_ctl_addr(&s, qpi, 3, 0).width == 0, "no QPI port 3");

	/* A locator per instance: one found elsewhere (another domain and
	 * bus, another function) is addressed there, its filters in another
	 * function follow its bus; one never located has no address. */
	is_int(topo_set_pci_loc(&s, qpi, 1, (struct pci_loc){ .domain = 1,
		.bus = 0x3a, .dev = 3, .fn = 2 }), 0, "QPI port 1 relocated");
	{
		struct hw_addr a = plat_ctl_addr(&s, qpi, 1, 0);

		ok(a.domain == 1 && a.bus == 0x3a && a.dev == 3 && a.fn == 2 &&
		   a.reg == 0xD8, "QPI port 1 CTL0 at 0001:3a:03.2+0xd8");
		a = plat_filter_addr(&s, qpi, 1, 0);
		ok(a.domain == 1 && a.bus == 0x3a && a.dev == 9 && a.fn == 6 &&
		   a.reg == 0x228, "its RX_MATCH0 in F6 on the same bus");
	}
	is_pci(plat_ctl_addr(&s, qpi, 0, 0), 0x7f, 8, 2, 0xD8, 4,
	       "QPI port 0 stays");
	{
		static struct topo_socket none;

		ok(plat_ctl_addr(&none, ha, 0, 0).width == 0 &&
		   plat_filter_addr(&none, qpi, 0, 0).width == 0,
		   "an instance without a locator has no address");
	}
	is_int(topo_set_pci_loc(&s, qpi, 3, (struct pci_loc){ 0 }), -EINVAL,
	       "no locator past the unit's instances");
}

/* ---- layouts ---------------------------------------------------------- */

static void test_masks(void)
{
	for (unsigned ui = 0; P->units[ui]; ui++) {
		const struct unit_type *u = P->units[ui];

		if (u->ctl_layout)
			check_layout(u->ctl_layout);
		if (u->ctr_layout)
			check_layout(u->ctr_layout);
		if (u->box_ctl_layout)
			check_layout(u->box_ctl_layout);
		if (u->box_status_layout)
			check_layout(u->box_status_layout);
		for (unsigned f = 0; f < u->nfilters; f++)
			check_layout(u->filters[f].layout);
	}
	check_layout(P->global_ctl.layout);
	check_layout(P->global_status.layout);
	check_layout(P->extra_regs[0].layout);

	/* Table 2-2: pmi_core_sel 17:0, unfrz_all 29 (WO), wk_on_pmi 30,
	 * frz_all 31 (WO) */
	masks(P->global_ctl.layout, 0xE003FFFF, 0x1FFC0000);
	is_u64(reg_mask(P->global_ctl.layout, ACC_WO), 0xA0000000,
	       "frz_all and unfrz_all are write-only (read back 0)");
	/* Table 2-3: ov 0-2, 21-29, 34, 35 RW1C */
	masks(P->global_status.layout, 0xC3FE00007ull, ~0xC3FE00007ull);
	/* Table 2-4 */
	masks(P->extra_regs[0].layout, 0x1F, 0xFFFFFFE0);
	/* Table 2-7 UBox: thresh 28:24 */
	masks(unit("ubox", NULL)->ctl_layout, 0x1FD6FFFF, 0xE0290000);
	/* Tables 2-16/2-47: tid_en 19, 8-bit thresh, no ov_en */
	masks(unit("cbo", NULL)->ctl_layout, 0xFFCEFFFF, 0x00310000);
	masks(unit("sbox", NULL)->ctl_layout, 0xFFCEFFFF, 0x00310000);
	/* Tables 2-63, 2-114, 2-147, 2-215, 2-232 */
	masks(unit("ha", NULL)->ctl_layout, 0xFFD6FFFF, 0x00290000);
	masks(unit("imc", NULL)->ctl_layout, 0xFFD6FFFF, 0x00290000);
	masks(unit("irp", NULL)->ctl_layout, 0xFFD6FFFF, 0x00290000);
	masks(unit("r2pcie", NULL)->ctl_layout, 0xFFD6FFFF, 0x00290000);
	masks(unit("r3qpi", NULL)->ctl_layout, 0xFFD6FFFF, 0x00290000);
	/* Table 2-170: + ev_sel_ext 21 */
	masks(unit("qpi", NULL)->ctl_layout, 0xFFF6FFFF, 0x00090000);
	/* Table 2-158: ev_sel, occ_sel 15:14, rst, edge, ov_en, ext, en,
	 * invert, thresh 28:24, occ_invert 30, occ_edge_det 31 */
	masks(unit("pcu", NULL)->ctl_layout, 0xDFF6C0FF, 0x20093F00);
	/* Tables 2-9, 2-115 */
	masks(unit("ubox_fixed", NULL)->ctl_layout, 0x00500000, 0xFFAFFFFF);
	masks(unit("imc_fixed", NULL)->ctl_layout, 0x00D80000, 0xFF27FFFF);
	/* counters: 47:0, R3QPI 43:0 (Table 2-233) */
	masks(unit("cbo", NULL)->ctr_layout, 0xFFFFFFFFFFFFull,
	      0xFFFF000000000000ull);
	masks(unit("ubox", NULL)->ctr_layout, 0xFFFFFFFFFFFFull,
	      0xFFFF000000000000ull);
	masks(unit("r3qpi", NULL)->ctr_layout, 0xFFFFFFFFFFFull,
	      0xFFFFF00000000000ull);
	/* box controls: rst_ctrl 0, rst_ctrs 1, frz 8; 17:16 reserved but
	 * written 1 on all but R2PCIe/R3QPI */
	masks(unit("cbo", NULL)->box_ctl_layout, 0x103, 0xFFFFFEFC);
	masks(unit("r3qpi", NULL)->box_ctl_layout, 0x103, 0xFFFFFEFC);
	is_u64(reg_mask(unit("cbo", NULL)->box_ctl_layout, ACC_WO), 0x103,
	       "box control bits are write-only");
	{
		static const char *const must1[] = { "cbo", "sbox", "ha", "imc",
						     "irp", "pcu", "qpi" };
		for (unsigned i = 0; i < ARRAY_SIZE(must1); i++)
			is_u64(unit(must1[i], NULL)->box_ctl_must1, 0x30000,
			       "%s box control: bits 17:16 written 1", must1[i]);
		is_u64(unit("r2pcie", NULL)->box_ctl_must1, 0,
		       "R2PCIe box control: no must-be-one bits (Table 2-213)");
		is_u64(unit("r3qpi", NULL)->box_ctl_must1, 0,
		       "R3QPI box control: no must-be-one bits (Table 2-230)");
	}
	/* box status */
	masks(unit("ubox", NULL)->box_status_layout, 0x3, 0xFFFFFFFC);
	masks(unit("cbo", NULL)->box_status_layout, 0xF, 0xFFFFFFF0);
	masks(unit("ha", NULL)->box_status_layout, 0xF, 0xFFFFFFF0);
	masks(unit("imc", NULL)->box_status_layout, 0x1F, 0xFFFFFFE0);
	masks(unit("r3qpi", NULL)->box_status_layout, 0x7, 0xFFFFFFF8);
	/* filters */
	masks(unit("cbo", NULL)->filters[0].layout, 0x00FE003F, 0xFF01FFC0);
	masks(unit("cbo", NULL)->filters[1].layout, 0xDFF0FFFF, 0x200F0000);
	masks(unit("pcu", NULL)->filters[0].layout, 0xFFFFFFFF, 0);
	masks(unit("ha", NULL)->filters[0].layout, 0xFFFFFFC0, 0x3F);
	masks(unit("ha", NULL)->filters[1].layout, 0x3FFF, 0xFFFFC000);
	masks(unit("ha", NULL)->filters[2].layout, 0x3F, 0xFFFFFFC0);
	masks(unit("qpi", NULL)->filters[0].layout, 0x8003FFF8, 0x7FFC0007);
	masks(unit("qpi", NULL)->filters[1].layout, 0x000F000F, 0xFFF0FFF0);
	/* the filter each flagged event needs is there */
	is_u64(unit("cbo", NULL)->filters[0].flag, EVF_FILTER0, "FILTER0 flag");
	is_u64(unit("cbo", NULL)->filters[1].flag, EVF_FILTER1, "FILTER1 flag");
	is_int(unit("qpi", NULL)->nfilters, 8, "QPI: 8 match/mask registers");
	is_int(unit("irp", NULL)->nfilters, 0,
	       "IRP: no filter register in the manual (EVF_IRP_FILTER unmet)");
}

/* ---- encodings -------------------------------------------------------- */

static void enc_event(const char *name, unsigned ctr, uint64_t want)
{
	const struct event *ev = plat_event(P, name);
	char why[256] = "";
	uint64_t v = 0;
	int r;

	if (!ok(ev != NULL, "catalog has %s", name))
		return;
	r = plat_encode_event(plat_unit(P, ev->unit, NULL), ev, ctr, &v, why,
			      sizeof(why));
	if (!ok(r == 0 && v == want, "%s on counter %u = 0x%llx (got r=%d "
		"0x%llx %s)", name, ctr, (unsigned long long)want, r,
		(unsigned long long)v, why))
		return;
}

static void enc_raw(const char *raw, int want_r, uint64_t want)
{
	const struct unit_type *u = NULL;
	struct event_enc e;
	char why[256] = "";
	uint64_t v = 0;
	int r;

	r = plat_parse_raw(P, raw, &u, &e, why, sizeof(why));
	if (r == 0)
		r = plat_encode(u, &e, 0, 0xff, &v, why, sizeof(why));
	if (want_r)
		ok(r == want_r, "raw %s refused (%s)", raw, why);
	else
		ok(r == 0 && v == want, "raw %s = 0x%llx (got r=%d 0x%llx %s)",
		   raw, (unsigned long long)want, r, (unsigned long long)v, why);
}

static void test_encode(void)
{
	const struct unit_type *pcu = unit("pcu", NULL);
	const struct event *ev;
	struct event_enc d;
	char why[256];
	uint64_t v;
	int r;

	/* doc/design.md section 7 headline encodings */
	enc_event("UNC_C_LLC_LOOKUP.ANY", 0, 0x00401134);
	enc_event("UNC_M_CAS_COUNT.RD", 3, 0x00400304);
	enc_event("UNC_M_CAS_COUNT.WR", 1, 0x00400C04);
	enc_event("UNC_U_EVENT_MSG.DOORBELL_RCVD", 1, 0x00400842);
	/* QPI CTO_COUNT: 0x38 with the extra select bit 21 (2.9.4) */
	enc_event("UNC_Q_CTO_COUNT", 2, 0x00600038);
	/* PCU occupancy: occ_sel 1 = umask bit 6 = control bit 14 */
	enc_event("UNC_P_POWER_STATE_OCCUPANCY.CORES_C0", 0, 0x00404080);
	enc_event("UNC_P_POWER_STATE_OCCUPANCY.CORES_C6", 0, 0x0040C080);

	/* counter constraints */
	ev = plat_event(P, "UNC_C_TOR_OCCUPANCY.ALL");
	if (ok(ev && ev->ctr_mask == 0x1, "TOR_OCCUPANCY: counter 0 only")) {
		r = plat_encode_event(unit("cbo", NULL), ev, 1, &v, why, sizeof(why));
		ok(r == -EINVAL, "TOR_OCCUPANCY refused on counter 1 (%s)", why);
		r = plat_encode_event(unit("cbo", NULL), ev, 0, &v, why, sizeof(why));
		ok(r == 0, "TOR_OCCUPANCY on counter 0");
	}
	ev = plat_event(P, "UNC_U_EVENT_MSG.DOORBELL_RCVD");
	r = plat_encode_event(unit("ubox", NULL), ev, 2, &v, why, sizeof(why));
	ok(r == -EINVAL, "UBox has no counter 2 (%s)", why);

	/* raw encodings and the PCU occupancy modifiers (Table 2-165) */
	enc_raw("pcu:0x80:0x40:thresh=5:edge", 0, 0x85404080);	/* case 4 */
	enc_raw("pcu:0x80:0x40:thresh=4:inv", 0, 0x44C04080);	/* case 6 */
	enc_raw("pcu:0x03:0x00:thresh=1:edge", 0, 0x01440003);
	enc_raw("pcu:0x80:0x01", -EINVAL, 0);	/* 13:8 reserved */
	enc_raw("pcu:0x80:0x40:thresh=32", -EINVAL, 0);	/* 5-bit thresh */
	enc_raw("cbo:0x34:0x11:thresh=255", 0, 0xFF401134);
	enc_raw("ubox:0x42:0x08:thresh=32", -EINVAL, 0);
	enc_raw("qpi:0x38:0x00", 0, 0x00400038);	/* no room for ext */
	enc_raw("r3qpi:0x01:0x00:inv:thresh=1", 0, 0x01C00001);
	enc_raw("ubox_fixed:0x00:0x00", -EINVAL, 0);
	enc_raw("qpi_link:0x00:0x00", -EINVAL, 0);

	d = plat_decode(pcu, 0x85404080);
	ok(d.code == 0x80 && d.umask == 0x40 && d.thresh == 5 && d.edge &&
	   !d.inv, "decode PCU occupancy: occ_edge_det read back as edge");
	d = plat_decode(pcu, 0x00440003);
	ok(d.code == 0x03 && d.edge, "decode PCU non-occupancy edge_det");

	/* ev_sel_ext on a unit without one */
	{
		struct event x = *plat_event(P, "UNC_C_LLC_LOOKUP.ANY");

		x.ev_sel_ext = 1;
		r = plat_encode_event(unit("cbo", NULL), &x, 0, &v, why,
				      sizeof(why));
		ok(r == -EINVAL, "ev_sel_ext refused on the CBo (%s)", why);
		x = *plat_event(P, "UNC_P_POWER_STATE_OCCUPANCY.CORES_C0");
		x.ev_sel_ext = 1;
		r = plat_encode_event(pcu, &x, 0, &v, why, sizeof(why));
		ok(r == 0 && v == 0x00604080, "PCU ev_sel_ext is bit 21 "
		   "(Table 2-158): 0x%llx", (unsigned long long)v);
	}
}

/* Every catalog entry resolves on its unit, and every programmable one
 * encodes on each of its valid counters within the control's fields. */
/* Does an event as the baseline names it (catalog name plus :filter/
 * :split modifiers) resolve on hsx? */
static bool resolves(const char *name)
{
	struct evspec e;
	char why[256];
	int r = sched_resolve(P, name, false, &e, why, sizeof(why));

	if (r < 0)
		printf("# %s: %s\n", name, why);
	return r == 0;
}

static void test_catalog(void)
{
	unsigned bad_unit = 0, bad_enc = 0, bad_kind = 0, bad_filter = 0, nprog = 0;
	char why[256];

	for (size_t i = 0; i < P->nevents; i++) {
		const struct event *ev = &P->events[i];
		const struct unit_type *u = plat_unit(P, ev->unit, NULL);
		uint32_t fl = ev->flags & (EVF_FILTER0 | EVF_FILTER1 |
					   EVF_HA_MATCH | EVF_PCU_BAND |
					   EVF_QPI_MATCH);

		if (!u) {
			if (bad_unit++ < 5)
				printf("# %s: unit %s unknown\n", ev->name, ev->unit);
			continue;
		}
		if (ev->flags & EVF_FREERUN) {
			bool found = false;

			for (unsigned k = 0; k < u->nfreerun; k++)
				found |= strcmp(u->freerun[k].name, ev->name) == 0;
			if (u->kind != UNIT_FREERUN || !found)
				if (bad_kind++ < 5)
					printf("# %s: not a free-running counter "
					       "of %s\n", ev->name, u->name);
			continue;
		}
		if (ev->flags & EVF_FIXED) {
			if (u->kind != UNIT_FIXED && bad_kind++ < 5)
				printf("# %s: %s is not fixed\n", ev->name, u->name);
			continue;
		}
		if (u->kind != UNIT_PROG || !ev->ctr_mask ||
		    (ev->ctr_mask & ~width_mask(u->nctr))) {
			if (bad_kind++ < 5)
				printf("# %s: counters 0x%x on %s (%u)\n", ev->name,
				       ev->ctr_mask, u->name, u->nctr);
			continue;
		}
		nprog++;
		for (unsigned c = 0; c < u->nctr; c++) {
			uint64_t v;

			if (!(ev->ctr_mask & (1u << c)))
				continue;
			if (plat_encode_event(u, ev, c, &v, why, sizeof(why)) < 0 &&
			    bad_enc++ < 5)
				printf("# %s counter %u: %s\n", ev->name, c, why);
		}
		if (fl) {
			bool have = false;

			for (unsigned k = 0; k < u->nfilters; k++)
				have |= (u->filters[k].flag & fl) != 0;
			if (!have && bad_filter++ < 5)
				printf("# %s: no filter register for 0x%x on %s\n",
				       ev->name, fl, u->name);
		}
	}
	is_int(bad_unit, 0, "every catalog unit is a unit of plat_hsx");
	is_int(bad_kind, 0, "fixed / free-running / programmable kinds agree");
	is_int(bad_enc, 0, "all %u programmable entries encode on every valid "
	       "counter", nprog);
	is_int(bad_filter, 0, "every filter dependency has its register");
	ok(plat_event(P, "UNC_C_LLC_LOOKUP.ANY") && plat_event(P, "UNC_M_CAS_COUNT.RD") &&
	   plat_event(P, "UNC_U_CLOCKTICKS"), "headline events in the catalog");
	for (size_t i = 0; i < P->derived->nsrc; i++)
		ok(resolves(P->derived->src[i].event), "metric source %s: %s",
		   P->derived->src[i].name, P->derived->src[i].event);
	for (unsigned i = 0; P->baseline[i]; i++)
		ok(resolves(P->baseline[i]), "baseline %s", P->baseline[i]);
	for (unsigned i = 0; P->baseline_latency[i]; i++)
		ok(resolves(P->baseline_latency[i]), "latency baseline %s",
		   P->baseline_latency[i]);
	{
		struct evspec lk, ms;
		bool got = false;

		for (size_t i = 0; i < P->derived->nsrc; i++) {
			const struct derived_src *sr = &P->derived->src[i];

			if (strcmp(sr->name, "lookups") == 0)
				got |= sched_resolve(P, sr->event, false, &lk,
						     why, sizeof(why)) == 0;
			if (strcmp(sr->name, "misses") == 0)
				got &= sched_resolve(P, sr->event, false, &ms,
						     why, sizeof(why)) == 0;
		}
		ok(got && lk.ev == ms.ev && strcmp(lk.ev->name, "UNC_C_LLC_LOOKUP.ANY") == 0 &&
		   lk.filt[0] == 0x7E0000 && ms.filt[0] == 0x20000 &&
		   (lk.filt_set & 1) && (ms.filt_set & 1),
		   "LLC lookups: FILTER0.state 0x3F (0x7E0000), misses 0x01 (0x20000)");
		ok(got && lk.split_n == 2 && ms.split_n == 2 && lk.split_k != ms.split_k,
		   "lookups and misses on complementary halves of the CBos");
	}
}

/* ---- node ID -> package ----------------------------------------------- */

static void test_node_map(void)
{
	is_int(hsx_node_to_package(0, 0), 0, "1S: node 0, map 0 -> package 0");
	is_int(hsx_node_to_package(1, 0x11), 0, "node 1, map 0x11 -> package 0");
	is_int(hsx_node_to_package(2, 0x11), 1, "node 2, map 0x11 -> package 1 "
	       "(the manual's unshifted compare finds none)");
	is_int(hsx_node_to_package(0xFFFFFFF3, 0x419), 1,
	       "CPUNODEID bits above 2:0 ignored; node 3 -> package 1");
	is_int(hsx_node_to_package(0, 0x419), 2, "node 0 in 0x419: first match, "
	       "package 2 (packages 4-7 read 0 too)");
	is_int(hsx_node_to_package(7, 7u << 21), 7, "node 7 in bits 23:21 -> 7");
	is_int(hsx_node_to_package(5, 0x419), -1, "node in no triplet -> -1");
}

/* ---- discovery -------------------------------------------------------- */

static void test_discover_1s(void)
{
	struct hw_cpu_map m = { .sysfs_cpu_root = sysroot };
	struct topology t;
	struct hw hw;
	int r;
	static const struct want_unit w[] = {
		{ "ubox", 1, 0 }, { "ubox_fixed", 1, 0 }, { "cbo", 8, 0 },
		{ "sbox", 2, 0 }, { "ha", 1, 0 }, { "imc", 4, 0 },
		{ "imc_fixed", 4, 0 }, { "irp", 1, 0 }, { "pcu", 1, 0 },
		{ "pcu_cstate", 1, 0 }, { "qpi", 2, 0 }, { "qpi_link", 2, 0 },
		{ "r2pcie", 1, 0 }, { "r3qpi", 2, 0 },
	};

	fake_reset(1);
	fc.pkg[0].cbo_count = 8;
	fc.pkg[0].num_c = 18;
	fc.pkg[0].sbox_present = 0x3;
	make_sysfs(4, 1);
	r = open_fixture(&hw, "lspci-hsx-1s.txt");
	if (!ok(r == 0, "open 1S fixture (%s)", hw_last_error()))
		return;
	r = plat_discover(P, &hw, &t, &m);
	if (ok(r == 0, "1S: discover (%s)", r ? hw_last_error() : "")) {
		is_int(t.nsockets, 1, "1S: one socket");
		ok(t.plat == P, "topology platform");
		ok(t.sock[0].id == 0 && t.sock[0].pci_bus == 0xff &&
		   t.sock[0].node_id == 0 && t.sock[0].cpu == 0 &&
		   t.sock[0].ubox_dev == 16 && t.sock[0].ubox_fn == 5,
		   "1S: package 0 on bus 0xff (UBox at 10.5), node 0, cpu 0");
		check_units(&t, 0, w, ARRAY_SIZE(w));
		ok(!topo_present(&t.sock[0], 4, 1),
		   "1S: HA1 absent (ff:12.5 is another device)");
		{
			const struct pci_loc *l = topo_pci_loc(&t.sock[0],
							       unit("ha", NULL), 0);

			ok(l && l->bus == 0xff && l->dev == 18 && l->fn == 1,
			   "1S: HA0 located at ff:12.1");
			ok(!topo_pci_loc(&t.sock[0], unit("ha", NULL), 1),
			   "1S: the absent HA1 has no locator");
		}
	}
	hw_close(&hw);
	remove_sysfs(4);
}

static void test_discover_2s(const char *fixture, bool noqpi1)
{
	struct hw_cpu_map m = { .sysfs_cpu_root = sysroot };
	struct topology t;
	struct hw hw;
	unsigned qi, qli;
	uint64_t v = 1;
	int r;
	static const struct want_unit w2[] = {
		{ "ubox", 1, 0 }, { "cbo", 12, 0 }, { "sbox", 4, 0 },
		{ "ha", 2, 0 }, { "imc", 8, 0 }, { "imc_fixed", 8, 0 },
		{ "irp", 1, 0 }, { "pcu", 1, 0 }, { "pcu_cstate", 1, 0 },
		{ "qpi", 2, 0 }, { "qpi_link", 2, 0 }, { "r2pcie", 1, 0 },
		{ "r3qpi", 2, 0 },
	};
	static const struct want_unit w3[] = {
		{ "ubox", 1, 0 }, { "cbo", 12, 0 }, { "sbox", 4, 0 },
		{ "ha", 2, 0 }, { "imc", 8, 0 }, { "imc_fixed", 8, 0 },
		{ "irp", 1, 0 }, { "pcu", 1, 0 }, { "pcu_cstate", 1, 0 },
		{ "qpi", 3, 0 }, { "qpi_link", 3, 0 }, { "r2pcie", 1, 0 },
		{ "r3qpi", 3, 0 },
	};
	static const struct want_unit w3_s1[] = {
		{ "qpi", 3, 0x2 }, { "qpi_link", 3, 0x2 }, { "r3qpi", 3, 0 },
		{ "ha", 2, 0 }, { "imc", 8, 0 }, { "irp", 1, 0 },
		{ "r2pcie", 1, 0 },
	};

	fake_reset(2);
	fc.pkg[0].cbo_count = 12;
	fc.pkg[0].num_c = 12;
	fc.pkg[1].cbo_count = 18;
	fc.pkg[1].num_c = 12;	/* num_c bounds the probe */
	make_sysfs(8, 2);
	r = open_fixture(&hw, fixture);
	if (!ok(r == 0, "open %s (%s)", fixture, hw_last_error()))
		return;
	r = plat_discover(P, &hw, &t, &m);
	if (!ok(r == 0, "%s: discover (%s)", fixture, r ? hw_last_error() : ""))
		goto out;
	is_int(t.nsockets, 2, "%s: two sockets", fixture);
	ok(t.sock[0].id == 0 && t.sock[0].pci_bus == 0xff &&
	   t.sock[0].node_id == 1 && t.sock[0].cpu == 0,
	   "%s: socket 0 = bus 0xff (node 1 = GIDNIDMAP[2:0]), cpu 0", fixture);
	ok(t.sock[1].id == 1 && t.sock[1].pci_bus == 0x7f &&
	   t.sock[1].node_id == 2 && t.sock[1].cpu == 1,
	   "%s: socket 1 = bus 0x7f (node 2 = GIDNIDMAP[5:3]), cpu 1 (CPUs "
	   "interleaved)", fixture);
	unit("qpi", &qi);
	unit("qpi_link", &qli);
	if (!noqpi1) {
		check_units(&t, 0, w2, ARRAY_SIZE(w2));
		check_units(&t, 1, w2, ARRAY_SIZE(w2));
	} else {
		check_units(&t, 0, w3, ARRAY_SIZE(w3));
		check_units(&t, 1, w3_s1, ARRAY_SIZE(w3_s1));
		ok(topo_present(&t.sock[1], qi, 0) && !topo_present(&t.sock[1], qi, 1) &&
		   topo_present(&t.sock[1], qi, 2), "socket 1: QPI port 1 "
		   "absent, ports 0 and 2 present");
		ok(!topo_present(&t.sock[1], qli, 1) && topo_present(&t.sock[0], qi, 1),
		   "socket 1: port 1 link counters absent; socket 0 port 1 present");
	}
	/* a PMON register of the discovered socket through the dump:
	 * HA1 counter 3 of socket 1, 8 bytes = two dwords */
	{
		struct hw_addr a = plat_ctr_addr(&t.sock[1], unit("ha", NULL), 1, 3);

		is_pci(a, 0x7f, 18, 5, 0xB8, 8, "socket 1 HA1 CTR3");
		r = hw_read(&hw, &a, &v);
		ok(r == 0 && v == 0, "read it from the dump (r=%d)", r);
	}
out:
	hw_close(&hw);
	remove_sysfs(8);
}

static void test_discover_4s(void)
{
	struct hw_cpu_map m = { .sysfs_cpu_root = sysroot };
	static const uint8_t bus[4] = { 0xff, 0xbf, 0x7f, 0x3f };
	static const uint8_t node[4] = { 1, 3, 0, 2 };
	static const uint32_t cpu[4] = { 0, 1, 2, 7 };	/* cpu3 offline */
	static const struct want_unit full[] = {
		{ "ubox", 1, 0 }, { "ubox_fixed", 1, 0 }, { "ha", 2, 0 },
		{ "imc", 8, 0 }, { "imc_fixed", 8, 0 }, { "irp", 1, 0 },
		{ "pcu", 1, 0 }, { "pcu_cstate", 1, 0 }, { "qpi", 3, 0 },
		{ "qpi_link", 3, 0 }, { "r2pcie", 1, 0 }, { "r3qpi", 3, 0 },
	};
	struct topology t;
	struct hw hw;
	int r;

	fake_reset(4);
	fc.pkg[0].cbo_count = 18;
	fc.pkg[1].cbo_count = 16;		/* num_c 18: probing stops */
	fc.pkg[2].cbo_count = 18;
	fc.pkg[2].num_c = 12;			/* num_c stops */
	fc.pkg[3].cbo_count = 14;
	fc.pkg[3].num_c = 0;			/* out of range: probe 18 */
	fc.pkg[1].sbox_present = 0x3;
	fc.pkg[2].sbox_present = 0xB;		/* SBo 2 missing */
	make_sysfs(16, 4);
	r = open_fixture(&hw, "lspci-hsx-4s.txt");
	if (!ok(r == 0, "open 4S fixture (%s)", hw_last_error()))
		return;
	r = plat_discover(P, &hw, &t, &m);
	if (!ok(r == 0, "4S: discover (%s)", r ? hw_last_error() : ""))
		goto out;
	is_int(t.nsockets, 4, "4S: four sockets");
	for (unsigned s = 0; s < 4 && s < t.nsockets; s++) {
		ok(t.sock[s].id == s && t.sock[s].pci_bus == bus[s] &&
		   t.sock[s].node_id == node[s] && t.sock[s].cpu == cpu[s],
		   "4S: package %u on bus 0x%02x, node %u, cpu %u (got id %u "
		   "bus 0x%02x node %u cpu %u)", s, bus[s], node[s], cpu[s],
		   t.sock[s].id, t.sock[s].pci_bus, t.sock[s].node_id,
		   t.sock[s].cpu);
		check_units(&t, s, full, ARRAY_SIZE(full));
	}
	{
		static const struct want_unit s0[] = { { "cbo", 18, 0 }, { "sbox", 4, 0 } };
		static const struct want_unit s1[] = { { "cbo", 16, 0 }, { "sbox", 2, 0 } };
		static const struct want_unit s2[] = { { "cbo", 12, 0 }, { "sbox", 4, 0x4 } };
		static const struct want_unit s3[] = { { "cbo", 14, 0 }, { "sbox", 4, 0 } };

		check_units(&t, 0, s0, 2);
		check_units(&t, 1, s1, 2);
		check_units(&t, 2, s2, 2);
		check_units(&t, 3, s3, 2);
	}
	is_pci(plat_box_ctl_addr(&t.sock[3], unit("imc", NULL), 7), 0x3f, 24, 1,
	       0xF4, 4, "socket 3 (bus 0x3f) MC1 channel 3 BOX_CTL");
	is_msr(plat_box_ctl_addr(&t.sock[3], unit("cbo", NULL), 13), 7, 0xED0,
	       "socket 3 CBo 13 BOX_CTL on cpu 7");
out:
	hw_close(&hw);
	remove_sysfs(16);
}

static void test_discover_errors(void)
{
	struct hw_cpu_map sim = { .cpus_per_package = 8 };
	struct hw_cpu_map m;
	struct topology t;
	struct hw hw;
	int r;

	/* a Skylake desktop: no UBox device */
	fake_reset(1);
	if (ok(open_fixture(&hw, "lspci-skl.txt") == 0, "open skl fixture")) {
		r = plat_discover(P, &hw, &t, &sim);
		ok(r == -ENODEV, "no UBox device: -ENODEV (r=%d)", r);
		like(hw_last_error(), "2f1e", "message names the UBox device");
		hw_close(&hw);
	}

	/* the simulator's CPU numbering: package p is cpu 8p */
	fake_reset(2);
	fc.blocked = true;
	if (ok(open_fixture(&hw, "lspci-hsx-2s.txt") == 0, "open 2S fixture")) {
		r = plat_discover(P, &hw, &t, &sim);
		ok(r == 0 && t.sock[0].cpu == 0 && t.sock[1].cpu == 8,
		   "cpus_per_package 8: sockets on cpu 0 and 8 (r=%d %s)", r,
		   r ? hw_last_error() : "");

		/* no msr driver: not "no CBo" but the driver's error */
		fc.msr_err = ENOENT;
		r = plat_discover(P, &hw, &t, &sim);
		ok(r == -ENOENT, "MSR access failing: -ENOENT (r=%d)", r);
		like(hw_last_error(), "U_MSR_PMON_GLOBAL_CONFIG",
		     "message names the register");
		fc.msr_err = 0;

		/* no CBo answers */
		fc.pkg[1].cbo_count = 0;
		r = plat_discover(P, &hw, &t, &sim);
		ok(r == -ENODEV, "socket without CBos: -ENODEV (r=%d)", r);
		like(hw_last_error(), "CBo", "message: %s", hw_last_error());
		fc.pkg[1].cbo_count = 18;

		/* node ID in no triplet */
		fc.map_override = 0x3F;
		r = plat_discover(P, &hw, &t, &sim);
		ok(r == -ENODEV, "node ID outside GIDNIDMAP: -ENODEV (r=%d)", r);
		like(hw_last_error(), "GIDNIDMAP", "message: %s", hw_last_error());
		fc.map_override = -1;

		/* two buses, one package */
		fc.nodeid_override = 1;
		r = plat_discover(P, &hw, &t, &sim);
		ok(r == -EEXIST, "two buses on one package: -EEXIST (r=%d)", r);
		like(hw_last_error(), "package 0", "message: %s", hw_last_error());
		fc.nodeid_override = -1;

		/* sysfs without package 1 */
		make_sysfs(4, 1);
		m = (struct hw_cpu_map){ .sysfs_cpu_root = sysroot };
		fc.blocked = false;
		r = plat_discover(P, &hw, &t, &m);
		ok(r == -ENOENT, "no CPU of package 1: -ENOENT (r=%d)", r);
		like(hw_last_error(), "package 1", "message: %s", hw_last_error());
		remove_sysfs(4);
		hw_close(&hw);
	}
}

static void test_cpu_map(void)
{
	struct hw_cpu_map m = { .sysfs_cpu_root = sysroot };
	uint32_t cpu = 99;

	make_sysfs(16, 4);
	ok(plat_cpu_of_package(&m, 0, &cpu) == 0 && cpu == 0, "package 0: cpu 0");
	ok(plat_cpu_of_package(&m, 3, &cpu) == 0 && cpu == 7,
	   "package 3: cpu 7 (cpu3 has no topology: offline)");
	ok(plat_cpu_of_package(&m, 4, &cpu) == -ENOENT, "no package 4");
	{
		uint32_t cores[PLAT_MAX_CORES];
		unsigned n = 0;

		ok(plat_cores_of_package(&m, 1, cores, PLAT_MAX_CORES, &n) == 0 &&
		   n == 2 && cores[0] == 1 && cores[1] == 5,
		   "package 1: cores 0 and 1 read on cpus 1 and 5, not on "
		   "their siblings 9 and 13 (n=%u)", n);
		ok(plat_cores_of_package(&m, 3, cores, PLAT_MAX_CORES, &n) == 0 &&
		   n == 2 && cores[0] == 11 && cores[1] == 7,
		   "package 3: core 0 on cpu 11 (cpu 3 offline), core 1 on cpu 7");
		ok(plat_cores_of_package(&m, 4, cores, PLAT_MAX_CORES, &n) == 0 &&
		   n == 0, "package 4: no cores");
		m = (struct hw_cpu_map){ .cpus_per_package = 8,
					   .cores_per_package = 3 };
		ok(plat_cores_of_package(&m, 1, cores, PLAT_MAX_CORES, &n) == 0 &&
		   n == 3 && cores[0] == 8 && cores[2] == 10,
		   "simulator map: package 1's 3 cores are cpus 8..10");
		m = (struct hw_cpu_map){ .sysfs_cpu_root = sysroot };
	}
	remove_sysfs(16);
	m.sysfs_cpu_root = "/nonexistent/cpu";
	ok(plat_cpu_of_package(&m, 0, &cpu) == -ENOENT,
	   "missing sysfs root: -ENOENT");
	m = (struct hw_cpu_map){ .cpus_per_package = 8 };
	ok(plat_cpu_of_package(&m, 3, &cpu) == 0 && cpu == 24,
	   "cpus_per_package 8: package 3 is cpu 24");
}

/* ---- the box-level protocol ------------------------------------------- */

static bool logged(unsigned i, enum hw_space sp, uint64_t reg, uint64_t v)
{
	return i < fc.nlog && fc.log[i].a.space == sp && fc.log[i].a.reg == reg &&
	       fc.log[i].v == v;
}

/* Was v written to register reg of PCI function dev.fn, or to MSR reg? */
static bool wrote(enum hw_space sp, uint8_t dev, uint8_t fn, uint64_t reg,
		  uint64_t v)
{
	for (unsigned i = 0; i < fc.nlog && i < LOG_MAX; i++)
		if (fc.log[i].a.space == sp && fc.log[i].a.reg == reg &&
		    fc.log[i].v == v &&
		    (sp != HW_PCI || (fc.log[i].a.dev == dev && fc.log[i].a.fn == fn)))
			return true;
	return false;
}

static void test_protocol(void)
{
	struct hw_cpu_map sim = { .cpus_per_package = 8 };
	const struct unit_type *cbo = unit("cbo", NULL), *sbo = unit("sbox", NULL);
	const struct unit_type *r2 = unit("r2pcie", NULL);
	struct topology t;
	struct hw_addr a;
	struct hw hw;
	int r;

	fake_reset(2);
	fc.blocked = true;
	fc.pkg[0].cbo_count = 2;
	fc.pkg[0].num_c = 2;
	fc.pkg[0].sbox_present = 0x1;
	if (!ok(open_fixture(&hw, "lspci-hsx-2s.txt") == 0, "open 2S fixture"))
		return;
	r = plat_discover(P, &hw, &t, &sim);
	if (!ok(r == 0, "discover for the protocol tests (%s)",
		r ? hw_last_error() : ""))
		goto out;

	fc.nlog = 0;
	r = plat_box_write(&hw, &t.sock[1], cbo, 3, 0x3);
	ok(r == 0 && fc.nlog == 1 && logged(0, HW_MSR, 0xE30, 0x30003) &&
	   fc.log[0].a.cpu == 8, "CBo 3 reset: one write 0x30003 to 0xE30 on "
	   "cpu 8 (bits 17:16 added)");
	fc.nlog = 0;
	r = plat_box_write(&hw, &t.sock[0], cbo, 0, 0x100);
	ok(r == 0 && fc.nlog == 1 && logged(0, HW_MSR, 0xE00, 0x30100),
	   "CBo 0 freeze: 0x30100");
	fc.nlog = 0;
	r = plat_box_write(&hw, &t.sock[0], sbo, 0, 0x3);
	ok(r == 0 && fc.nlog == 4 && logged(0, HW_MSR, 0x720, 0x1) &&
	   logged(1, HW_MSR, 0x720, 0x3) && logged(2, HW_MSR, 0x720, 0x10003) &&
	   logged(3, HW_MSR, 0x720, 0x30003),
	   "SBo 0 reset: bit by bit, 0x1, 0x3, 0x10003, 0x30003");
	fc.nlog = 0;
	r = plat_box_write(&hw, &t.sock[0], r2, 0, 0x3);
	ok(r == 0 && fc.nlog == 1 && fc.log[0].a.space == HW_PCI &&
	   fc.log[0].a.bus == 0xff && fc.log[0].a.dev == 16 &&
	   fc.log[0].a.fn == 1 && fc.log[0].a.reg == 0xF4 &&
	   fc.log[0].a.width == 4 && fc.log[0].v == 0x3,
	   "R2PCIe reset: 0x3 to ff:10.1+0xf4, no must-be-one bits");
	fc.nlog = 0;
	r = plat_box_write(&hw, &t.sock[0], cbo, 0, 0x10000);
	ok(r == -EINVAL && fc.nlog == 0, "asking for bit 16 is refused "
	   "(reserved; must1 is added, not requested)");
	r = plat_box_write(&hw, &t.sock[0], cbo, 0, 0x4);
	ok(r == -EINVAL && fc.nlog == 0, "reserved bit 2 refused");
	r = plat_box_write(&hw, &t.sock[0], unit("ubox", NULL), 0, 0x3);
	ok(r == -EINVAL && fc.nlog == 0, "UBox: no box control");

	/* control write-twice quirk */
	fc.nlog = 0;
	a = plat_ctl_addr(&t.sock[0], sbo, 0, 0);
	r = plat_write_ctl(&hw, sbo, &a, 0x00400034);
	ok(r == 0 && fc.nlog == 2 && logged(0, HW_MSR, 0x721, 0x34) &&
	   logged(1, HW_MSR, 0x721, 0x00400034),
	   "SBo control written twice, first without en");
	fc.nlog = 0;
	a = plat_ctl_addr(&t.sock[0], cbo, 0, 0);
	r = plat_write_ctl(&hw, cbo, &a, 0x00401134);
	ok(r == 0 && fc.nlog == 1 && logged(0, HW_MSR, 0xE01, 0x00401134),
	   "CBo control written once");
	fc.nlog = 0;
	a = plat_ctl_addr(&t.sock[0], unit("r3qpi", NULL), 1, 2);
	r = plat_write_ctl(&hw, unit("r3qpi", NULL), &a, 0x00400001);
	ok(r == 0 && fc.nlog == 2 && fc.log[0].v == 0x1 &&
	   fc.log[1].v == 0x00400001 && fc.log[1].a.reg == 0xE0,
	   "R3QPI control written twice");

	/* reset of a whole socket (2.1.2 d) */
	fc.nlog = 0;
	r = P->ops->reset_boxes(&hw, &t, 0);
	ok(r == 0, "reset_boxes socket 0");
	ok(wrote(HW_MSR, 0, 0, 0xE00, 0x30003) && wrote(HW_MSR, 0, 0, 0xE10, 0x30003) &&
	   !wrote(HW_MSR, 0, 0, 0xE20, 0x30003),
	   "CBo 0 and 1 reset (2 present), not CBo 2");
	ok(wrote(HW_MSR, 0, 0, 0xE07, 0xF) && wrote(HW_MSR, 0, 0, 0x720, 0x30003) &&
	   wrote(HW_MSR, 0, 0, 0x725, 0xF), "CBo status cleared; SBo 0 reset "
	   "and status cleared");
	ok(wrote(HW_MSR, 0, 0, 0x705, 0) && wrote(HW_MSR, 0, 0, 0x706, 0) &&
	   wrote(HW_MSR, 0, 0, 0x709, 0) && wrote(HW_MSR, 0, 0, 0x70A, 0) &&
	   wrote(HW_MSR, 0, 0, 0x708, 0x3),
	   "UBox: controls and counters written 0, status cleared");
	ok(wrote(HW_MSR, 0, 0, 0x710, 0x30003) && wrote(HW_MSR, 0, 0, 0x716, 0xF),
	   "PCU reset");
	ok(wrote(HW_PCI, 20, 0, 0xF4, 0x30003) && wrote(HW_PCI, 20, 0, 0xF8, 0x1F) &&
	   wrote(HW_PCI, 24, 1, 0xF4, 0x30003), "iMC channels reset, 5 status bits");
	ok(wrote(HW_PCI, 11, 2, 0xF4, 0x3) && wrote(HW_PCI, 11, 2, 0xF8, 0x7) &&
	   wrote(HW_PCI, 16, 1, 0xF4, 0x3), "R3QPI/R2PCIe reset without 17:16");
	ok(wrote(HW_PCI, 9, 2, 0xF4, 0x30003) && wrote(HW_PCI, 18, 5, 0xF4, 0x30003) &&
	   wrote(HW_PCI, 5, 6, 0xF4, 0x30003), "QPI, HA, IRP reset");
	ok(wrote(HW_MSR, 0, 0, 0x701, 0xC3FE00007ull) && fc.log[0].a.cpu == 0,
	   "global status: every ov bit written 1 (2.1.4 b)");
	ok(!wrote(HW_MSR, 0, 0, 0x3FD, 0) && !wrote(HW_PCI, 8, 2, 0xC8, 0),
	   "free-running counters untouched");
	ok(P->ops->reset_boxes(&hw, &t, 2) == -EINVAL, "no socket 2");

	/* global freeze (Table 2-2) */
	fc.nlog = 0;
	r = P->ops->global_enable(&hw, &t, 1, true);
	ok(r == 0 && fc.nlog == 1 && logged(0, HW_MSR, 0x700, 0x20000000) &&
	   fc.log[0].a.cpu == 8, "unfreeze socket 1: unfrz_all on cpu 8");
	fc.nlog = 0;
	r = P->ops->global_enable(&hw, &t, 0, false);
	ok(r == 0 && fc.nlog == 1 && logged(0, HW_MSR, 0x700, 0x80000000) &&
	   fc.log[0].a.cpu == 0, "freeze socket 0: frz_all on cpu 0");
	ok(P->ops->global_enable(&hw, &t, 2, true) == -EINVAL, "no socket 2");
out:
	hw_close(&hw);
}

int main(void)
{
	fixture_dir_init();

	test_platform();
	test_widths();
	test_ovf_bits();
	test_msr_map();
	test_pci_map();
	test_masks();
	test_encode();
	test_catalog();
	test_node_map();
	test_cpu_map();
	test_discover_1s();
	test_discover_2s("lspci-hsx-2s.txt", false);
	test_discover_2s("lspci-hsx-2s-noqpi1.txt", true);
	test_discover_4s();
	test_discover_errors();
	test_protocol();
	return tap_done();
}
