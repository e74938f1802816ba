/*
 * plat.c - the platform-independent half of the platform layer: register
 * masks, CPU matching, unit and catalog lookup, register address
 * arithmetic, and the one place event encodings are parsed, built and
 * validated against the control register's field table.
 *
 * The platforms themselves are data (plat_skl.c, ...); nothing here knows
 * a register address.  Every control value the daemon writes comes out of
 * plat_encode(), which refuses anything that would set a reserved bit.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "plat/plat.h"
#include "plat/plat_mod.h"
#include "plat/plat_xsp.h"

#define NONE 0xff

const struct platform *const plat_all[] = {
	&plat_skl,
	&plat_hsx,
	&plat_snbep,
	&plat_skx,
	&plat_icx,
	&plat_spr,
	&plat_zen4,
	&plat_adl,
	&plat_mtl,
	&plat_zen5,
	&plat_zen3,
	&plat_gnr,
	NULL,
};

/* ---- register layouts ------------------------------------------------ */

uint64_t reg_mask(const struct reg_layout *l, enum reg_acc acc)
{
	uint64_t m = 0, used = 0;
	size_t i;

	for (i = 0; i < l->nfields; i++) {
		uint64_t fm = field_mask(&l->fields[i]);

		if (l->fields[i].acc == acc)
			m |= fm;
		if (l->fields[i].acc != ACC_RSV)
			used |= fm;
	}
	if (acc == ACC_RSV)	/* every bit no defined field covers */
		m = width_mask(l->bits) & ~used;
	return m;
}

uint64_t reg_writable(const struct reg_layout *l)
{
	return reg_mask(l, ACC_RW) | reg_mask(l, ACC_WO) | reg_mask(l, ACC_RW1C);
}

int reg_check_value(const struct reg_layout *l, uint64_t v, char *why,
		    size_t len)
{
	uint64_t ok = reg_writable(l), covered = 0, bad = v & ~ok, rest;
	size_t used;
	unsigned lo, hi;

	if (!bad)
		return 0;
	used = (size_t)snprintf(why, len, "0x%" PRIx64 " sets bits that %s (%s) "
				"does not let a client write:", v, l->name,
				l->source);
	for (size_t i = 0; i < l->nfields; i++) {
		const struct reg_field *f = &l->fields[i];
		uint64_t fm = field_mask(f);

		covered |= fm;
		if (!(bad & fm) || (fm & ok) == fm)
			continue;
		used += (size_t)snprintf(why + (used < len ? used : len),
					 used < len ? len - used : 0,
					 " %s %u:%u (%s)", f->name, f->hi, f->lo,
					 f->acc == ACC_RSV ? "reserved" :
					 "read-only");
	}
	/* bits no field names: past the register, or gaps in the table */
	for (rest = bad & ~covered; rest; rest &= ~(width_mask(hi + 1) &
						    ~width_mask(lo))) {
		lo = (unsigned)__builtin_ctzll(rest);
		for (hi = lo; hi < 63 && (rest >> (hi + 1) & 1); hi++)
			;
		used += (size_t)snprintf(why + (used < len ? used : len),
					 used < len ? len - used : 0,
					 " bits %u:%u (%s)", hi, lo,
					 lo >= l->bits ? "past the register's "
					 "size" : "reserved");
	}
	return -EINVAL;
}

const struct reg_field *reg_field(const struct reg_layout *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->nfields; i++)
		if (strcmp(l->fields[i].name, name) == 0)
			return &l->fields[i];
	return NULL;
}

/* ---- platforms and CPUs ---------------------------------------------- */

const struct platform *plat_of_hw(const struct hw *hw)
{
	return hw->ops->models ? hw->ops->models(hw) : NULL;
}

const struct platform *plat_by_id(const char *id)
{
	unsigned i;

	for (i = 0; plat_all[i]; i++)
		if (strcmp(plat_all[i]->id, id) == 0)
			return plat_all[i];
	return NULL;
}

const struct platform *plat_by_cpu(unsigned family, unsigned model)
{
	const struct cpu_match *c;
	unsigned i;

	for (i = 0; plat_all[i]; i++)
		for (c = plat_all[i]->cpus; c->family || c->model; c++)
			if (c->family == family && c->model == model)
				return plat_all[i];
	return NULL;
}

int plat_cpuid(struct plat_cpu *cpu)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned eax, ebx, ecx, edx, base;
	bool intel;

	if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
		return -ENODEV;
	memcpy(cpu->vendor, &ebx, 4);
	memcpy(cpu->vendor + 4, &edx, 4);
	memcpy(cpu->vendor + 8, &ecx, 4);
	cpu->vendor[12] = '\0';
	cpu->family = cpu->model = 0;
	if (eax < 1 || !__get_cpuid(1, &eax, &ebx, &ecx, &edx))
		return 0;
	/* SDM vol. 2A, CPUID leaf 01H: display family and model (AMD's
	 * rule is the same except that only family 0xF extends the model,
	 * AMD CPUID Specification #25481, "Fn0000_0001_EAX"). */
	intel = strcmp(cpu->vendor, "GenuineIntel") == 0;
	base = (eax >> 8) & 0xF;
	cpu->family = base;
	cpu->model = (eax >> 4) & 0xF;
	cpu->stepping = eax & 0xF;
	if (base == 0xF)
		cpu->family += (eax >> 20) & 0xFF;
	if (base == 0xF || (intel && base == 0x6))
		cpu->model |= ((eax >> 16) & 0xF) << 4;
	return 0;
#else
	memset(cpu, 0, sizeof(*cpu));
	return -ENODEV;
#endif
}

const struct platform *plat_for_cpu(const struct plat_cpu *cpu)
{
	const struct cpu_match *c;

	for (unsigned i = 0; plat_all[i]; i++) {
		const char *v = plat_all[i]->vendor ? plat_all[i]->vendor
						    : "GenuineIntel";

		if (strcmp(cpu->vendor, v) != 0)
			continue;
		for (c = plat_all[i]->cpus; c->family || c->model; c++)
			if (c->family == cpu->family && c->model == cpu->model &&
			    ((!c->step_lo && !c->step_hi) ||
			     (cpu->stepping >= c->step_lo &&
			      cpu->stepping <= c->step_hi)))
				return plat_all[i];
	}
	return NULL;
}

/*
 * CPUs that are known and refused, with the reason the message of an
 * unsupported CPU gives (doc/hardware-notes.md says more).
 */
static const struct {
	const char *vendor;
	unsigned family, model_lo, model_hi;
	const char *why;
} refused[] = {
	{ "AuthenticAMD", 0x17, 0x00, 0xff,
	  "AMD family 17h (Zen, Zen+, Zen 2: EPYC 7001 Naples, 7002 Rome) is "
	  "not supported: its amd_l3 PMU has other format fields than family "
	  "19h's (slicemask config:48-51, threadmask config:56-63) and the "
	  "kernel's Zen 2 data fabric event file (amdzen2/data-fabric.json) "
	  "is not in the reference data the catalogs are generated from, so "
	  "no DRAM event can be cited for it (doc/hardware-notes.md, "
	  "\"AMD Zen 2 (refused)\")" },
};

const char *plat_refusal(const struct plat_cpu *cpu)
{
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (strcmp(cpu->vendor, refused[i].vendor) == 0 &&
		    cpu->family == refused[i].family &&
		    cpu->model >= refused[i].model_lo &&
		    cpu->model <= refused[i].model_hi)
			return refused[i].why;
	return NULL;
}

char *plat_list(char *buf, size_t len, bool names)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; plat_all[i] && n < len; i++) {
		int w = snprintf(buf + n, len - n, names ? "%s%s (%s)" : "%s%s",
				 i ? ", " : "", plat_all[i]->id,
				 plat_all[i]->name);

		if (w < 0)
			break;
		n += (size_t)w;
	}
	return buf;
}

/* ---- units ----------------------------------------------------------- */

const struct unit_type *plat_unit(const struct platform *p, const char *name,
				  int *index)
{
	int i;

	for (i = 0; p->units[i]; i++)
		if (strcmp(p->units[i]->name, name) == 0) {
			if (index)
				*index = i;
			return p->units[i];
		}
	if (index)
		*index = -1;
	return NULL;
}

unsigned plat_nunits(const struct platform *p)
{
	unsigned n = 0;

	while (p->units[n])
		n++;
	return n;
}

/* ---- addresses ------------------------------------------------------- */

/* An address every hw_read()/hw_write() refuses (width 0, EINVAL). */
static struct hw_addr bad_addr(const struct unit_type *u)
{
	return (struct hw_addr){ .space = u->space, .width = 0 };
}

static bool inst_base(const struct unit_type *u, unsigned inst, uint32_t *b)
{
	if (inst >= u->max_inst || inst >= PLAT_MAX_INST)
		return false;
	*b = u->inst_base ? u->inst_base[inst] : u->base + inst * u->inst_stride;
	return true;
}

/* Access width of a PCI/MMIO register described by l (MSRs are 8). */
static uint8_t reg_bytes(const struct reg_layout *l, uint8_t dflt)
{
	if (l && (l->bits == 32 || l->bits == 64))
		return (uint8_t)(l->bits / 8);
	return dflt;
}

const struct pci_loc *topo_pci_loc(const struct topo_socket *s,
				   const struct unit_type *u, unsigned inst)
{
	if (inst >= PLAT_MAX_INST)
		return NULL;
	for (unsigned k = 0; k < PLAT_MAX_UNITS && s->pci[k].u; k++)
		if (s->pci[k].u == u)
			return s->pci[k].inst[inst].found ? &s->pci[k].inst[inst]
							  : NULL;
	return NULL;
}

int topo_set_pci_loc(struct topo_socket *s, const struct unit_type *u,
		     unsigned inst, struct pci_loc loc)
{
	unsigned k;

	if (inst >= u->max_inst || inst >= PLAT_MAX_INST)
		return hw_fail(EINVAL, "%s %u: no such instance (%u at most)",
			       u->name, inst, u->max_inst);
	for (k = 0; k < PLAT_MAX_UNITS && s->pci[k].u && s->pci[k].u != u; k++)
		;
	if (k == PLAT_MAX_UNITS)
		return hw_fail(E2BIG, "%s: more than %d PCI unit types on socket "
			       "%u", u->name, PLAT_MAX_UNITS, s->id);
	s->pci[k].u = u;
	loc.found = true;
	s->pci[k].inst[inst] = loc;
	return 0;
}

int plat_pci_place(struct topo_socket *s, const struct unit_type *u,
		   unsigned inst, uint16_t domain, uint8_t bus)
{
	uint32_t b;

	if (!inst_base(u, inst, &b))
		return hw_fail(EINVAL, "%s %u: no such instance (%u at most)",
			       u->name, inst, u->max_inst);
	return topo_set_pci_loc(s, u, inst, (struct pci_loc){
		.domain = domain, .bus = bus, .dev = (uint8_t)((b >> 3) & 0x1F),
		.fn = (uint8_t)(b & 7) });
}

/* Register at offset off of instance inst of unit u on socket s: in the
 * instance's own function, or (PCI) in the function at base b when the
 * table puts the register elsewhere (other). */
static struct hw_addr unit_reg(const struct topo_socket *s,
			       const struct unit_type *u, unsigned inst,
			       uint32_t b, bool other, uint32_t off,
			       uint8_t bytes)
{
	const struct pci_loc *l;

	switch (u->space) {
	case HW_MSR:
		return hw_msr(s->cpu, b + off);
	case HW_PCI:
		l = topo_pci_loc(s, u, inst);
		if (off > 0xFFFF || !l)
			return bad_addr(u);
		if (other)
			return hw_pci(l->domain, l->bus, (uint8_t)((b >> 3) & 0x1F),
				      (uint8_t)(b & 7), (uint16_t)off, bytes);
		return hw_pci(l->domain, l->bus, l->dev, l->fn, (uint16_t)off,
			      bytes);
	case HW_MMIO:
		return hw_mmio(s->mmio_base + b + off, bytes);
	}
	return bad_addr(u);
}

struct hw_addr plat_ctl_addr(const struct topo_socket *s,
			     const struct unit_type *u, unsigned inst,
			     unsigned i)
{
	uint32_t b;

	if (u->kind == UNIT_FREERUN || i >= u->nctr || !inst_base(u, inst, &b))
		return bad_addr(u);
	return unit_reg(s, u, inst, b, false, u->ctl_off + i * u->ctl_stride,
			reg_bytes(u->ctl_layout, 4));
}

struct hw_addr plat_ctr_addr(const struct topo_socket *s,
			     const struct unit_type *u, unsigned inst,
			     unsigned i)
{
	uint32_t b;

	if (u->kind == UNIT_FREERUN || i >= u->nctr || !inst_base(u, inst, &b))
		return bad_addr(u);
	return unit_reg(s, u, inst, b, false, u->ctr_off + i * u->ctr_stride,
			reg_bytes(u->ctr_layout, 8));
}

struct hw_addr plat_freerun_addr(const struct topo_socket *s,
				 const struct unit_type *u, unsigned inst,
				 unsigned i)
{
	uint32_t b;

	if (u->kind != UNIT_FREERUN || !u->freerun || i >= u->nfreerun ||
	    !inst_base(u, inst, &b))
		return bad_addr(u);
	return unit_reg(s, u, inst, b, false, u->freerun[i].off,
			u->freerun[i].access);
}

bool plat_inst_base(const struct unit_type *u, unsigned inst, uint32_t *base)
{
	return inst_base(u, inst, base);
}

uint8_t plat_global_ovf_bit(const struct unit_type *u, unsigned inst)
{
	if (u->inst_global_ovf && inst < u->max_inst)
		return u->inst_global_ovf[inst];
	return u->global_ovf_bit;
}

struct hw_addr plat_box_ctl_addr(const struct topo_socket *s,
				 const struct unit_type *u, unsigned inst)
{
	uint32_t b;

	if (!u->box_ctl_layout || !inst_base(u, inst, &b))
		return bad_addr(u);
	return unit_reg(s, u, inst, b, false, u->box_ctl_off,
			reg_bytes(u->box_ctl_layout, 4));
}

struct hw_addr plat_box_status_addr(const struct topo_socket *s,
				    const struct unit_type *u, unsigned inst)
{
	uint32_t b;

	if (!u->box_status_layout || !inst_base(u, inst, &b))
		return bad_addr(u);
	return unit_reg(s, u, inst, b, false, u->box_status_off,
			reg_bytes(u->box_status_layout, 4));
}

struct hw_addr plat_filter_addr(const struct topo_socket *s,
				const struct unit_type *u, unsigned inst,
				unsigned f)
{
	const struct unit_filter *flt;
	uint32_t b;

	if (f >= u->nfilters || !u->filters || !inst_base(u, inst, &b))
		return bad_addr(u);
	flt = &u->filters[f];
	if (flt->inst_base)
		b = flt->inst_base[inst];
	return unit_reg(s, u, inst, b, flt->inst_base != NULL, flt->off,
			reg_bytes(flt->layout, 4));
}

/* ---- box-level protocol ---------------------------------------------- */

int plat_box_write(struct hw *hw, const struct topo_socket *s,
		   const struct unit_type *u, unsigned inst, uint64_t bits)
{
	struct hw_addr a = plat_box_ctl_addr(s, u, inst);
	uint64_t acc, bad;
	unsigned i;
	int r;

	if (!u->box_ctl_layout)
		return hw_fail(EINVAL, "unit %s has no box control register",
			       u->name);
	if (a.width == 0)
		return hw_fail(EINVAL, "unit %s has no instance %u", u->name,
			       inst);
	bad = bits & ~reg_writable(u->box_ctl_layout);
	if (bad)
		return hw_fail(EINVAL, "box control 0x%" PRIx64 " for %s sets "
			       "bits 0x%" PRIx64 " that %s (%s) does not define "
			       "as writable", bits, u->name, bad,
			       u->box_ctl_layout->name,
			       u->box_ctl_layout->source);
	bits |= u->box_ctl_must1;
	if (!(u->quirks & UNIT_Q_BOX_BITWISE))
		return hw_write(hw, &a, bits);
	for (acc = 0, i = 0; i < 64; i++) {
		if (!((bits >> i) & 1))
			continue;
		acc |= 1ull << i;
		r = hw_write(hw, &a, acc);
		if (r < 0)
			return r;
	}
	return 0;
}

int plat_write_ctl(struct hw *hw, const struct unit_type *u,
		   const struct hw_addr *a, uint64_t val)
{
	int r;

	if ((u->quirks & UNIT_Q_CTL_TWICE) && u->fmt.en_bit < 64) {
		r = hw_write(hw, a, val & ~(1ull << u->fmt.en_bit));
		if (r < 0)
			return r;
	}
	return hw_write(hw, a, val);
}

/* Mask of the field called name of l, or 0. */
static uint64_t named_bits(const struct reg_layout *l, const char *name)
{
	const struct reg_field *f = reg_field(l, name);

	return f ? field_mask(f) : 0;
}

int plat_reset_boxes(struct hw *hw, const struct topology *t, unsigned sock)
{
	const struct topo_socket *s;
	int first = 0, r;

	if (sock >= t->nsockets)
		return hw_fail(EINVAL, "reset: no socket %u (have %u)", sock,
			       t->nsockets);
	s = &t->sock[sock];
	if (t->plat->global_status.layout) {
		/* section 2.1.4 b: overflow bits, global then per box */
		struct hw_addr g = hw_msr(s->cpu, t->plat->global_status.addr);
		uint64_t ov = reg_mask(t->plat->global_status.layout, ACC_RW1C);

		if (ov && (r = hw_write(hw, &g, ov)) < 0)
			first = r;
	}
	for (unsigned ui = 0; t->plat->units[ui]; ui++) {
		const struct unit_type *u = t->plat->units[ui];

		for (unsigned i = 0; i < s->ninst[ui]; i++) {
			struct hw_addr a;

			if (!topo_present(s, ui, i) || u->kind == UNIT_FREERUN)
				continue;
			if (u->box_ctl_layout) {
				r = plat_box_write(hw, s, u, i,
					named_bits(u->box_ctl_layout, "rst_ctrl") |
					named_bits(u->box_ctl_layout, "rst_ctrs"));
				if (r < 0 && !first)
					first = r;
			} else {
				/* no box control (hsx UBox, 2.1.2 d note):
				 * clear controls, then counters, by hand */
				for (unsigned c = 0; c < u->nctr; c++) {
					a = plat_ctl_addr(s, u, i, c);
					if ((r = hw_write(hw, &a, 0)) < 0 && !first)
						first = r;
					a = plat_ctr_addr(s, u, i, c);
					if ((r = hw_write(hw, &a, 0)) < 0 && !first)
						first = r;
				}
			}
			if (u->box_status_layout) {
				uint64_t ov = reg_mask(u->box_status_layout,
						       ACC_RW1C);

				a = plat_box_status_addr(s, u, i);
				if (ov && (r = hw_write(hw, &a, ov)) < 0 && !first)
					first = r;
			}
		}
	}
	return first;
}

void plat_note(struct topology *t, const char *fmt, ...)
{
	size_t used = strlen(t->note);
	va_list ap;

	if (used && used + 2 < sizeof(t->note)) {
		memcpy(t->note + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(t->note + used, sizeof(t->note) - used, fmt, ap);
	va_end(ap);
}

double plat_event_max_rate(const struct unit_type *u, const struct event *ev)
{
	unsigned inc = ev ? (ev->max_inc_wide ? ev->max_inc_wide : ev->max_inc)
			  : 0;

	return inc && u->max_clk_hz > 0 ? inc * u->max_clk_hz : u->max_rate;
}

bool plat_unit_freezable(const struct platform *p, int ui)
{
	const struct unit_type *u;

	if (ui < 0 || ui >= (int)plat_nunits(p))
		return false;
	u = p->units[ui];
	if (u->kind == UNIT_FREERUN || !p->ops->global_enable)
		return false;
	if (plat_has_global_ctl(p) || u->box_ctl_layout)
		return true;
	/* a unit sharing another's PCI functions is frozen with its box
	 * (snbep imc_fixed in the iMC channel, 327043 Table 2-59) */
	for (unsigned i = 0; p->units[i]; i++)
		if (p->units[i] != u && p->units[i]->box_ctl_layout &&
		    u->space == HW_PCI && p->units[i]->space == HW_PCI &&
		    u->inst_base && u->inst_base == p->units[i]->inst_base)
			return true;
	return false;
}

int plat_freeze_boxes(struct hw *hw, const struct topology *t, unsigned sock,
		      bool on)
{
	const struct topo_socket *s;
	int first = 0, r;

	if (sock >= t->nsockets)
		return hw_fail(EINVAL, "freeze: no socket %u (have %u)", sock,
			       t->nsockets);
	s = &t->sock[sock];
	for (unsigned ui = 0; t->plat->units[ui]; ui++) {
		const struct unit_type *u = t->plat->units[ui];
		uint64_t frz;

		if (!u->box_ctl_layout ||
		    !(frz = named_bits(u->box_ctl_layout, "frz")))
			continue;
		for (unsigned i = 0; i < s->ninst[ui]; i++)
			if (topo_present(s, ui, i) &&
			    (r = plat_box_write(hw, s, u, i, on ? 0 : frz)) < 0 &&
			    !first)
				first = r;
	}
	return first;
}

int plat_global_check(struct hw *hw, const struct topology *t, unsigned sock,
		      bool expect_on, uint64_t *seen)
{
	const struct platform *p = t->plat;
	uint64_t wo, v, want;
	struct hw_addr a;
	int r;

	if (sock >= t->nsockets || !plat_has_global_ctl(p))
		return hw_fail(EINVAL, "global check: no socket %u or no global "
			       "control", sock);
	/* write-only bits (hsx frz_all/unfrz_all) read as zero */
	wo = reg_mask(p->global_ctl.layout, ACC_WO);
	want = (expect_on ? p->global_enable : 0) & ~wo;
	a = hw_msr(t->sock[sock].cpu, p->global_ctl.addr);
	if ((r = hw_read(hw, &a, &v)) < 0)
		return r;
	*seen = v;
	return (v & ~wo) != want;
}

/* ---- discovery ------------------------------------------------------- */

/* ---- discovery through the UBox bus device (hsx, snbep) ---------------- */

int plat_node_to_package(uint32_t cpunodeid, uint32_t gidnidmap)
{
	uint32_t nid = cpunodeid & 0x7;
	int p;

	for (p = 0; p < 8; p++)
		if (((gidnidmap >> (3 * p)) & 0x7) == nid)
			return p;
	return -1;
}

/* A UBox "socket ID" function found by the PCI scan. */
struct ubox_fn {
	uint16_t domain;
	uint8_t bus, dev, fn;
	unsigned pkg;
	uint32_t nodeid, map;
};

struct ubox_scan {
	const struct plat_ubox_bus *ub;
	struct ubox_fn u[PLAT_MAX_SOCKETS];
	unsigned n;		/* found, may exceed PLAT_MAX_SOCKETS */
};

static int ubox_scan_cb(void *ctx, const struct hw_pci_dev *d)
{
	struct ubox_scan *sc = ctx;

	if (d->vendor != sc->ub->vendor || d->device != sc->ub->device)
		return 0;
	if (sc->n < PLAT_MAX_SOCKETS)
		sc->u[sc->n] = (struct ubox_fn){ .domain = d->domain,
			.bus = d->bus, .dev = d->dev, .fn = d->fn };
	sc->n++;
	return 0;
}

/* Reads a 32-bit config register of the UBox function f. */
static int ubox_read(struct hw *hw, const struct plat_ubox_bus *ub,
		     const struct ubox_fn *f, uint16_t off, uint32_t *v)
{
	struct hw_addr a = hw_pci(f->domain, f->bus, f->dev, f->fn, off, 4);
	char cause[256];
	uint64_t x;
	int r;

	r = hw_read(hw, &a, &x);
	if (r < 0) {
		snprintf(cause, sizeof(cause), "%s", hw_last_error());
		return hw_fail(-r, "cannot read the UBox %s register (pci "
			       "%04x:%02x:%02x.%x+0x%x): %s",
			       off == ub->nodeid_off ? "CPUNODEID" : "GIDNIDMAP",
			       f->domain, f->bus, f->dev, f->fn, off, cause);
	}
	*v = (uint32_t)x;
	return 0;
}

/* Is d one of the device IDs the manual lists for u (any instance)? */
static bool devid_ok(const struct unit_type *u, uint16_t d)
{
	unsigned i;

	if (!u->pci_devid)
		return true;
	for (i = 0; i < u->max_inst; i++)
		if (u->pci_devid[i] == d)
			return true;
	return false;
}

/*
 * Is instance inst of PCI unit u on socket s?  Its function must answer
 * with vendor 8086 and one of u's device IDs; a missing function (ENODEV)
 * or another device there means absent.  Other errors fail.
 */
static int probe_pci(struct hw *hw, const struct topo_socket *s,
			 const struct unit_type *u, unsigned inst,
			 bool *present)
{
	struct hw_addr a;
	uint32_t b;
	uint64_t v;
	char cause[256];
	int r;

	*present = false;
	if (!plat_inst_base(u, inst, &b))
		return 0;
	a = hw_pci(s->pci_domain, s->pci_bus, (uint8_t)(b >> 3),
		   (uint8_t)(b & 7), 0, 4);
	r = hw_probe(hw, &a, &v);	/* absent boxes are expected */
	if (r == -ENODEV)
		return 0;
	if (r < 0) {
		snprintf(cause, sizeof(cause), "%s", hw_last_error());
		return hw_fail(-r, "cannot read the IDs of %s %u (pci "
			       "%04x:%02x:%02x.%x): %s", u->name, inst,
			       s->pci_domain, s->pci_bus, a.dev, a.fn, cause);
	}
	*present = (v & 0xffff) == 0x8086 &&
		   devid_ok(u, (uint16_t)(v >> 16));
	return 0;
}

/*
 * Is instance inst of MSR unit u on socket s?  Reads its box control (or
 * its first control register, or its first free-running counter): a
 * read the CPU refuses (#GP, EIO from the msr driver) means absent;
 * other errors (no msr driver, no permission) fail discovery.
 */
static int probe_msr(struct hw *hw, const struct topo_socket *s,
			 const struct unit_type *u, unsigned inst,
			 bool *present)
{
	struct hw_addr a;
	uint64_t v;
	char cause[256], as[64];
	int r;

	if (u->box_ctl_layout)
		a = plat_box_ctl_addr(s, u, inst);
	else if (u->kind == UNIT_FREERUN)
		a = plat_freerun_addr(s, u, inst, 0);
	else
		a = plat_ctl_addr(s, u, inst, 0);
	r = hw_probe(hw, &a, &v);
	*present = r == 0;
	if (r == 0 || r == -EIO)
		return 0;
	snprintf(cause, sizeof(cause), "%s", hw_last_error());
	return hw_fail(-r, "cannot probe %s %u (%s): %s", u->name, inst,
		       hw_addr_str(&a, as, sizeof(as)), cause);
}

/* Probes instance inst of unit u on socket s: PCI or MSR. */
int plat_probe_unit(struct hw *hw, const struct topo_socket *s,
		    const struct unit_type *u, unsigned inst, bool *present)
{
	if (u->space == HW_PCI)
		return probe_pci(hw, s, u, inst, present);
	return probe_msr(hw, s, u, inst, present);
}

int plat_find_units(struct hw *hw, struct topo_socket *s,
		    const struct unit_type *const *units,
		    const struct unit_type *limited, unsigned limit)
{
	unsigned ui, i, n;
	int r;

	for (ui = 0; units[ui]; ui++) {
		const struct unit_type *u = units[ui];
		struct inst_set present = { { 0 } };

		s->ninst[ui] = 0;
		n = u == limited && limit < u->max_inst ? limit : u->max_inst;
		for (i = 0; i < n; i++) {
			bool here;

			if ((r = plat_probe_unit(hw, s, u, i, &here)) < 0)
				return r;
			/* a PCI box found on the socket's bus is located there */
			if (here && u->space == HW_PCI &&
			    (r = plat_pci_place(s, u, i, s->pci_domain,
						s->pci_bus)) < 0)
				return r;
			if (here) {
				iset_add(&present, i);
				s->ninst[ui] = i + 1;
			}
		}
		memset(&s->absent[ui], 0, sizeof(s->absent[ui]));
		for (i = 0; i < s->ninst[ui]; i++)
			if (!iset_has(&present, i))
				iset_add(&s->absent[ui], i);
	}
	return 0;
}

/* Node ID -> package through each UBox's mapping register; two buses of
 * one package are refused. */
static int ubox_packages(struct hw *hw, const struct plat_ubox_bus *ub,
			 struct ubox_scan *sc)
{
	int r, pkg;

	for (unsigned i = 0; i < sc->n; i++) {
		struct ubox_fn *f = &sc->u[i];

		r = ubox_read(hw, ub, f, ub->nodeid_off, &f->nodeid);
		if (r == 0)
			r = ubox_read(hw, ub, f, ub->map_off, &f->map);
		if (r < 0)
			return r;
		pkg = plat_node_to_package(f->nodeid, f->map);
		if (pkg < 0)
			return hw_fail(ENODEV, "UBox on bus %04x:%02x: node ID %u "
				       "(CPUNODEID 0x%08" PRIx32 ") is in no "
				       "triplet of GIDNIDMAP 0x%08" PRIx32,
				       f->domain, f->bus, f->nodeid & 7,
				       f->nodeid, f->map);
		f->pkg = (unsigned)pkg;
		for (unsigned j = 0; j < i; j++)
			if (sc->u[j].pkg == f->pkg)
				return hw_fail(EEXIST, "buses %04x:%02x and "
					       "%04x:%02x both map to package %u "
					       "(node IDs %u, %u; GIDNIDMAP "
					       "0x%08" PRIx32 ")", sc->u[j].domain,
					       sc->u[j].bus, f->domain, f->bus,
					       f->pkg, sc->u[j].nodeid & 7,
					       f->nodeid & 7, f->map);
	}
	/* sockets in package order */
	for (unsigned i = 1; i < sc->n; i++)
		for (unsigned j = i; j > 0 && sc->u[j].pkg < sc->u[j - 1].pkg;
		     j--) {
			struct ubox_fn x = sc->u[j];

			sc->u[j] = sc->u[j - 1];
			sc->u[j - 1] = x;
		}
	return 0;
}

/* Socket s from its UBox: bus, node, CPUs and cores, then its units. */
static int ubox_socket(struct hw *hw, struct topo_socket *s,
		       const struct ubox_fn *f, const struct hw_cpu_map *m,
		       int (*find_units)(struct hw *hw, struct topo_socket *s))
{
	int r;

	s->id = f->pkg;
	s->pci_domain = f->domain;
	s->pci_bus = f->bus;
	s->node_id = (uint8_t)(f->nodeid & 7);
	s->ubox_dev = f->dev;
	s->ubox_fn = f->fn;
	if ((r = plat_cpu_of_package(m, s->id, &s->cpu)) < 0)
		return r;
	if ((r = plat_cores_of_package(m, s->id, s->core_cpu, PLAT_MAX_CORES,
				       &s->ncores)) < 0)
		return r;
	s->hw_cores = m ? m->hw_cores : 0;
	return find_units(hw, s);
}

int plat_discover_ubox_buses(struct hw *hw, struct topology *t,
			     const struct platform *p,
			     const struct plat_ubox_bus *ub,
			     const struct hw_cpu_map *m,
			     int (*find_units)(struct hw *hw,
					       struct topo_socket *s))
{
	struct ubox_scan sc;
	int r;

	memset(t, 0, sizeof(*t));
	t->plat = p;
	memset(&sc, 0, sizeof(sc));
	sc.ub = ub;
	/* 1.6.1: every bus, device and function; the UBox socket-ID device
	 * marks each package's uncore bus. */
	r = hw_pci_scan(hw, ubox_scan_cb, &sc);
	if (r < 0)
		return r;
	if (sc.n == 0)
		return hw_fail(ENODEV, "no UBox device %04x:%04x on any PCI bus: "
			       "not a %s, or the uncore devices are hidden (BIOS) "
			       "or not visible to this PCI access method",
			       ub->vendor, ub->device, ub->part);
	if (sc.n > PLAT_MAX_SOCKETS)
		return hw_fail(E2BIG, "%u UBox devices %04x:%04x found; at most "
			       "%d sockets are supported", sc.n,
			       ub->vendor, ub->device, PLAT_MAX_SOCKETS);
	if ((r = ubox_packages(hw, ub, &sc)) < 0)
		return r;
	t->nsockets = sc.n;
	for (unsigned i = 0; i < sc.n; i++)
		if ((r = ubox_socket(hw, &t->sock[i], &sc.u[i], m,
				     find_units)) < 0)
			return r;
	return 0;
}

/* ---- counter counts the machine gives (struct nctr_cpuid) ---------- */

static const char *const reg_names[4] = { "EAX", "EBX", "ECX", "EDX" };

/* Does leaf exist on the machine: is it at most the highest leaf of its
 * range (CPUID 0x00000000 or 0x80000000, EAX)? */
static bool leaf_there(plat_cpuid_fn cpuid, void *ctx, uint32_t leaf)
{
	uint32_t r[4] = { 0, 0, 0, 0 };

	if (cpuid(ctx, leaf & 0x80000000u, 0, r) < 0)
		return false;
	return r[0] >= leaf && (r[0] & 0x80000000u) == (leaf & 0x80000000u);
}

static void put_note(char *note, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put_note(char *note, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!note || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(note, len, fmt, ap);
	va_end(ap);
}

unsigned plat_kernel_nctr(const struct nctr_cpuid *c, unsigned dflt,
			  plat_cpuid_fn cpuid, void *ctx, bool *from_cpuid)
{
	uint32_t f[4] = { 0, 0, 0, 0 }, r[4] = { 0, 0, 0, 0 };
	unsigned w;

	if (from_cpuid)
		*from_cpuid = false;
	if (!c || !cpuid || c->reg > 3 || c->feat_reg > 3 || c->hi < c->lo ||
	    c->hi > 31 || c->feat_bit > 31)
		return dflt;
	/* the kernel's feature test (boot_cpu_has(X86_FEATURE_PERFMON_V2),
	 * arch/x86/kernel/cpu/scattered.c): the leaf exists and the bit is
	 * set; else its fixed count */
	if (!leaf_there(cpuid, ctx, c->feat_leaf) ||
	    cpuid(ctx, c->feat_leaf, 0, f) < 0 ||
	    !(f[c->feat_reg] >> c->feat_bit & 1) ||
	    !leaf_there(cpuid, ctx, c->leaf) || cpuid(ctx, c->leaf, 0, r) < 0)
		return dflt;
	if (from_cpuid)
		*from_cpuid = true;
	w = (unsigned)(c->hi - c->lo + 1);
	return (unsigned)((r[c->reg] >> c->lo) & (w >= 32 ? ~0u : (1u << w) - 1));
}

unsigned plat_unit_nctr(const struct unit_type *u, plat_cpuid_fn cpuid,
			void *ctx, char *note, size_t len)
{
	const struct nctr_cpuid *c = u->nctr_cpuid;
	bool used;
	unsigned n;

	put_note(note, len, "%s", "");
	if (!c)
		return u->nctr;
	n = plat_kernel_nctr(c, u->nctr, cpuid, ctx, &used);
	if (!used) {
		put_note(note, len, "%s: %u counters (CPUID 0x%08x %s bit %u "
			 "clear or absent: the kernel's fixed count, %s)",
			 u->name, u->nctr, c->feat_leaf,
			 reg_names[c->feat_reg & 3], c->feat_bit, c->source);
		return u->nctr;
	}
	if (n == 0) {
		put_note(note, len, "%s: CPUID 0x%08x %s[%u:%u] (%s) says 0 "
			 "counters, with which the kernel registers no PMU; "
			 "taking %u", u->name, c->leaf, reg_names[c->reg],
			 c->hi, c->lo, c->what, u->nctr);
		return u->nctr;
	}
	if (n > PLAT_MAX_CTRS) {
		put_note(note, len, "%s: CPUID 0x%08x %s[%u:%u] (%s) says %u "
			 "counters; uncored places events on %u of them (the "
			 "kernel has the others for other perf users)",
			 u->name, c->leaf, reg_names[c->reg], c->hi, c->lo,
			 c->what, n, PLAT_MAX_CTRS);
		return PLAT_MAX_CTRS;
	}
	put_note(note, len, "%s: %u counters (CPUID 0x%08x %s[%u:%u] %s, as "
		 "%s reads it)", u->name, n, c->leaf, reg_names[c->reg], c->hi,
		 c->lo, c->what, c->source);
	return n;
}

unsigned plat_unit_nctr_max(const struct unit_type *u)
{
	return u->nctr_cpuid ? PLAT_MAX_CTRS : u->nctr;
}

/* plat_machine()'s copy: the platform, its unit list and every unit,
 * in one allocation (freed at once). */
struct plat_copy {
	struct platform p;
	const struct unit_type *list[PLAT_MAX_UNITS + 1];
	struct unit_type u[PLAT_MAX_UNITS];
};

int plat_machine(const struct platform *p, plat_cpuid_fn cpuid, void *ctx,
		 const struct platform **out, char *note, size_t len)
{
	unsigned n = plat_nunits(p), nc[PLAT_MAX_UNITS];
	struct plat_copy *c;
	bool differs = false;
	size_t used = 0;

	*out = p;
	put_note(note, len, "%s", "");
	if (n > PLAT_MAX_UNITS)
		return 0;	/* plat_check() refuses it with its reason */
	for (unsigned i = 0; i < n; i++) {
		char one[320];

		nc[i] = plat_unit_nctr(p->units[i], cpuid, ctx, one,
				       sizeof(one));
		differs |= nc[i] != p->units[i]->nctr;
		if (one[0] && note && used + 2 < len) {
			int w = snprintf(note + used, len - used, "%s%s",
					 used ? "; " : "", one);

			used += w > 0 ? (size_t)w : 0;
		}
	}
	if (!differs)
		return 0;
	if (!(c = calloc(1, sizeof(*c))))
		return -ENOMEM;
	c->p = *p;
	for (unsigned i = 0; i < n; i++) {
		c->u[i] = *p->units[i];
		c->u[i].nctr = nc[i];
		c->list[i] = &c->u[i];
	}
	c->list[n] = NULL;
	c->p.units = c->list;
	*out = &c->p;
	return 0;
}

void plat_machine_free(const struct platform *m, const struct platform *p)
{
	if (m && m != p)
		free((void *)((const char *)m - offsetof(struct plat_copy, p)));
}

int plat_check(const struct platform *p)
{
	unsigned n = plat_nunits(p);

	if (n > PLAT_MAX_UNITS)
		return hw_fail(E2BIG, "platform %s: %u unit types, at most %d",
			       p->id, n, PLAT_MAX_UNITS);
	for (unsigned i = 0; i < n; i++) {
		const struct unit_type *u = p->units[i];
		const struct { const char *what; unsigned have, max; } b[] = {
			{ "instances", u->max_inst, PLAT_MAX_INST },
			{ "counters", u->kind == UNIT_FREERUN ? 0 : u->nctr,
			  PLAT_MAX_CTRS },
			{ "filter registers", u->nfilters, PLAT_MAX_FILTERS },
		};
		const char *what = NULL;
		unsigned have = 0, max = 0;

		for (size_t k = 0; k < sizeof(b) / sizeof(b[0]) && !what; k++)
			if (b[k].have > b[k].max) {
				what = b[k].what;
				have = b[k].have;
				max = b[k].max;
			}
		if (what)
			return hw_fail(E2BIG, "platform %s: unit %s has %u %s, "
				       "this build handles at most %u (raise "
				       "PLAT_MAX_* in plat.h)", p->id, u->name,
				       have, what, max);
	}
	return 0;
}

int plat_direct_check(const struct platform *p)
{
	if (!p->backends || (p->backends & PLAT_BE_DIRECT))
		return 0;
	return hw_fail(ENOTSUP, "platform %s (%s) is reached through the perf "
		       "backend only: its uncore has no registers in uncored's "
		       "tables, the kernel's uncore driver programs it; run "
		       "with --backend=perf", p->id, p->name);
}

/* The ops of a perf-only platform: nothing to discover or freeze. */
static int perf_only_discover(struct hw *hw, struct topology *t)
{
	(void)hw;
	(void)t;
	return hw_fail(ENOTSUP, "this platform is reached through the perf "
		       "backend only; run with --backend=perf");
}

const struct plat_ops plat_perf_only_ops = {
	.discover = perf_only_discover,
};

int plat_discover(const struct platform *p, struct hw *hw, struct topology *t,
		  const struct hw_cpu_map *m)
{
	int r = plat_direct_check(p);

	if (r == 0)
		r = plat_check(p);
	if (r < 0)
		return r;
	if (p->ops->discover_map)
		return p->ops->discover_map(hw, t, m);
	return p->ops->discover(hw, t);
}

#define SYSFS_CPU_ROOT "/sys/devices/system/cpu"

/* Reads a small unsigned decimal file; false if absent or malformed. */
static bool read_uint_file(const char *path, unsigned long *v)
{
	char buf[32], *end;
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	errno = 0;
	*v = strtoul(buf, &end, 10);
	return end != buf && !errno && (*end == '\n' || *end == '\0');
}

/*
 * Calls cb(ctx, cpu, name) for every CPU directory under root whose
 * topology/physical_package_id is pkg (offline CPUs have none).  0, or
 * -errno with a message naming why (what the CPUs are needed for).
 */
static int each_cpu_of_package(const char *root, unsigned pkg,
			       const char *why,
			       void (*cb)(void *ctx, unsigned long cpu,
					  const char *name),
			       void *ctx)
{
	unsigned long n, id;
	struct dirent *de;
	char path[4096], *end;
	DIR *d = opendir(root);

	if (!d)
		return hw_fail(errno, "cannot list %s: %s (needed to find %s "
			       "of package %u)", root, strerror(errno), why, pkg);
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "cpu", 3) != 0 ||
		    de->d_name[3] < '0' || de->d_name[3] > '9')
			continue;
		errno = 0;
		n = strtoul(de->d_name + 3, &end, 10);
		if (*end || errno || n > UINT32_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/%s/topology/physical_package_id",
			 root, de->d_name);
		if (read_uint_file(path, &id) && id == pkg)
			cb(ctx, n, de->d_name);
	}
	closedir(d);
	return 0;
}

static void lowest_cpu(void *ctx, unsigned long cpu, const char *name)
{
	unsigned long *best = ctx;

	(void)name;
	if (cpu < *best)
		*best = cpu;
}

int plat_cpu_of_package(const struct hw_cpu_map *m, unsigned pkg,
			uint32_t *cpu)
{
	const char *root = m && m->sysfs_cpu_root ? m->sysfs_cpu_root
						  : SYSFS_CPU_ROOT;
	unsigned long best = ULONG_MAX;
	int r;

	if (m && m->cpus_per_package) {
		for (unsigned c = 0; c < m->cpus_per_package; c++) {
			uint32_t cpu_n = pkg * m->cpus_per_package + c;

			if (cpu_n >= 64 || !(m->offline >> cpu_n & 1)) {
				*cpu = cpu_n;
				return 0;
			}
		}
		return hw_fail(ENOENT, "every CPU of package %u is offline: its "
			       "MSRs cannot be reached", pkg);
	}
	r = each_cpu_of_package(root, pkg, "a CPU for its MSRs", lowest_cpu,
				&best);
	if (r < 0)
		return r;
	if (best == ULONG_MAX)
		return hw_fail(ENOENT, "no online CPU of package %u under %s "
			       "(cpu*/topology/physical_package_id): its MSRs "
			       "cannot be reached", pkg, root);
	*cpu = (uint32_t)best;
	return 0;
}

struct core_walk {
	const char *root;
	unsigned long core[PLAT_MAX_CORES];
	uint32_t *cpus;
	unsigned n, max;
};

/* Keeps the lowest CPU (the first thread) of each core. */
static void add_core(void *ctx, unsigned long cpu, const char *name)
{
	struct core_walk *w = ctx;
	char path[4096];
	unsigned long cid;
	unsigned i;

	snprintf(path, sizeof(path), "%s/%s/topology/core_id", w->root, name);
	if (!read_uint_file(path, &cid))
		return;
	for (i = 0; i < w->n && w->core[i] != cid; i++)
		;
	if (i < w->n) {
		if (cpu < w->cpus[i])
			w->cpus[i] = (uint32_t)cpu;
	} else if (w->n < w->max) {
		w->core[w->n] = cid;
		w->cpus[w->n++] = (uint32_t)cpu;
	}
}

int plat_cores_of_package(const struct hw_cpu_map *m, unsigned pkg,
			  uint32_t *cpus, unsigned max, unsigned *n)
{
	struct core_walk w = {
		.root = m && m->sysfs_cpu_root ? m->sysfs_cpu_root
					       : SYSFS_CPU_ROOT,
		.cpus = cpus, .max = max > PLAT_MAX_CORES ? PLAT_MAX_CORES : max };
	int r;

	*n = 0;
	if (m && m->cpus_per_package) {
		unsigned c = m->cores_per_package ? m->cores_per_package
						  : m->cpus_per_package;

		for (unsigned k = 0; k < c && *n < w.max; k++) {
			uint32_t cpu = pkg * m->cpus_per_package + k;

			if (cpu < 64 && (m->offline >> cpu & 1))
				continue;	/* offline: not read */
			cpus[(*n)++] = cpu;
		}
		return 0;
	}
	r = each_cpu_of_package(w.root, pkg, "the cores", add_core, &w);
	if (r < 0)
		return r;
	/* Core order, for stable output. */
	for (unsigned i = 1; i < w.n; i++)
		for (unsigned j = i; j > 0 && w.core[j - 1] > w.core[j]; j--) {
			unsigned long tc = w.core[j];
			uint32_t tp = cpus[j];

			w.core[j] = w.core[j - 1];
			cpus[j] = cpus[j - 1];
			w.core[j - 1] = tc;
			cpus[j - 1] = tp;
		}
	*n = w.n;
	return 0;
}

/* ---- catalog --------------------------------------------------------- */

const struct event *plat_event(const struct platform *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nevents; i++)
		if (strcmp(p->events[i].name, name) == 0)
			return &p->events[i];
	return NULL;
}

const struct event *plat_event_by_enc(const struct platform *p,
				      const char *unit,
				      const struct event_enc *e)
{
	const struct unit_type *u = plat_unit(p, unit, NULL);
	size_t i;

	/* fixed and free-running counters have no encoding to match */
	if (!u || u->kind != UNIT_PROG)
		return NULL;
	for (i = 0; i < p->nevents; i++) {
		const struct event *ev = &p->events[i];

		if (strcmp(ev->unit, unit) == 0 && ev->code == e->code &&
		    ev->umask == e->umask && ev->thresh == e->thresh &&
		    ev->edge == e->edge && ev->inv == e->inv)
			return ev;
	}
	return NULL;
}

/* ---- encodings ------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static int fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

#define RAW_SYNTAX "unit:EVENT:UMASK[:thresh=N][:edge][:inv]"
#define RAW_MAX 128
#define RAW_MAXTOK 8

/* A raw encoding's unit: a programmable one with an event select. */
static const struct unit_type *raw_unit(const struct platform *p,
					const char *s, const char *name,
					char *why, size_t whylen)
{
	const struct unit_type *u = plat_unit(p, name, NULL);
	char names[128] = "";
	size_t len = 0;

	if (u && u->kind == UNIT_PROG && u->fmt.ev_w)
		return u;
	if (u) {
		fail(why, whylen, "\"%s\": unit %s has no event select; its "
		     "counters are named in the catalog, not encoded", s,
		     u->name);
		return NULL;
	}
	for (unsigned i = 0; p->units[i] && len < sizeof(names); i++)
		if (p->units[i]->kind == UNIT_PROG)
			len += (size_t)snprintf(names + len, sizeof(names) - len,
						"%s%s", len ? ", " : "",
						p->units[i]->name);
	fail(why, whylen, "\"%s\": unknown unit \"%s\" on %s (programmable "
	     "units: %s)", s, name, p->id, names);
	return NULL;
}

/* The event code or umask field (what: "event code", bits: its width). */
static int raw_field(const char *s, const char *tok, const char *what,
		     const char *field, unsigned bits,
		     const struct unit_type *u, uint64_t *v, char *why,
		     size_t whylen)
{
	if (!plat_parse_num(tok, v))
		return fail(why, whylen, "\"%s\": %s \"%s\" is not a number "
			    "(0x-prefixed hex or decimal)", s, what, tok);
	if (*v > width_mask(bits))
		return fail(why, whylen, "\"%s\": %s 0x%llx does not fit the "
			    "%u-bit %s field of %s (max 0x%llx)", s, what,
			    (unsigned long long)*v, bits, field, u->name,
			    (unsigned long long)width_mask(bits));
	return 0;
}

/* One modifier: thresh=N, edge or inv, each at most once and only where
 * the unit has the field. */
static int raw_modifier(const char *s, const char *m,
			const struct unit_type *u, struct event_enc *r,
			bool *have_thresh, char *why, size_t whylen)
{
	uint64_t v;

	if (strncmp(m, "thresh=", 7) == 0) {
		if (*have_thresh)
			return fail(why, whylen, "\"%s\": thresh given twice", s);
		*have_thresh = true;
		if (u->fmt.thresh_w == 0)
			return fail(why, whylen, "\"%s\": unit %s has no "
				    "threshold field", s, u->name);
		if (!plat_parse_num(m + 7, &v))
			return fail(why, whylen, "\"%s\": thresh \"%s\" is not a "
				    "number", s, m + 7);
		if (v > width_mask(u->fmt.thresh_w))
			return fail(why, whylen, "\"%s\": thresh %llu does not fit "
				    "the %u-bit threshold field of %s (0 to %llu)",
				    s, (unsigned long long)v, u->fmt.thresh_w,
				    u->name,
				    (unsigned long long)width_mask(u->fmt.thresh_w));
		r->thresh = (uint8_t)v;
	} else if (strcmp(m, "edge") == 0) {
		if (r->edge)
			return fail(why, whylen, "\"%s\": edge given twice", s);
		if (u->fmt.edge_bit == NONE)
			return fail(why, whylen, "\"%s\": unit %s has no "
				    "edge-detect bit", s, u->name);
		r->edge = true;
	} else if (strcmp(m, "inv") == 0) {
		if (r->inv)
			return fail(why, whylen, "\"%s\": inv given twice", s);
		if (u->fmt.inv_bit == NONE)
			return fail(why, whylen, "\"%s\": unit %s has no invert "
				    "bit", s, u->name);
		r->inv = true;
	} else {
		return fail(why, whylen, "\"%s\": unknown modifier \"%s\" "
			    "(expected thresh=N, edge or inv)", s, m);
	}
	return 0;
}

int plat_parse_raw(const struct platform *p, const char *s,
		   const struct unit_type **unit, struct event_enc *e,
		   char *why, size_t whylen)
{
	char buf[RAW_MAX];
	char *tok[RAW_MAXTOK], *c;
	const struct unit_type *u;
	struct event_enc r = { 0 };
	bool have_thresh = false;
	uint64_t v;
	unsigned n = 0;

	if (strlen(s) >= sizeof(buf))
		return fail(why, whylen, "raw event is longer than %zu characters",
			    sizeof(buf) - 1);
	memcpy(buf, s, strlen(s) + 1);
	tok[n++] = buf;
	for (c = buf; (c = strchr(c, ':')) != NULL; ) {
		*c++ = '\0';
		if (n == RAW_MAXTOK)
			return fail(why, whylen, "\"%s\": too many ':' fields "
				    "(expected %s)", s, RAW_SYNTAX);
		tok[n++] = c;
	}
	if (n < 3)
		return fail(why, whylen, "\"%s\": expected %s", s, RAW_SYNTAX);
	if (!(u = raw_unit(p, s, tok[0], why, whylen)))
		return -EINVAL;
	if (raw_field(s, tok[1], "event code", "event", u->fmt.ev_w, u, &v,
		      why, whylen) < 0)
		return -EINVAL;
	r.code = (uint16_t)v;
	if (raw_field(s, tok[2], "umask", "umask", u->fmt.umask_w, u, &v, why,
		      whylen) < 0)
		return -EINVAL;
	r.umask = v;
	for (unsigned i = 3; i < n; i++)
		if (raw_modifier(s, tok[i], u, &r, &have_thresh, why,
				 whylen) < 0)
			return -EINVAL;
	*unit = u;
	*e = r;
	return 0;
}

/* Places v in the w-bit field at lo; false if it does not fit. */
static bool put_field(uint64_t *ctl, uint64_t v, uint8_t lo, uint8_t w)
{
	if (v == 0)
		return true;
	if (w == 0 || lo >= 64 || v > width_mask(w))
		return false;
	*ctl |= v << lo;
	return true;
}

static bool put_bit(uint64_t *ctl, bool on, uint8_t bit)
{
	if (!on)
		return true;
	if (bit >= 64)	/* NONE */
		return false;
	*ctl |= 1ull << bit;
	return true;
}

/* Does code select an occupancy event of a unit with occupancy
 * modifiers (hsx PCU: ev_sel bit 7, Table 2-158)? */
static bool occupancy(const struct unit_type *u, uint8_t code)
{
	return (u->occ_edge_bit || u->occ_inv_bit) && (code & 0x80);
}

int plat_encode(const struct unit_type *u, const struct event_enc *e,
		unsigned ctr, uint16_t valid_mask, uint64_t *ctl,
		char *why, size_t whylen)
{
	const struct evsel_fmt *f = &u->fmt;
	uint64_t v = 0, bad;

	if (u->kind != UNIT_PROG)
		return fail(why, whylen, "unit %s has no programmable counters "
			    "(%s)", u->name, u->kind == UNIT_FIXED ?
			    "fixed counter: enable it through its control bit" :
			    "free-running counters are only read");
	if (!u->ctl_layout)
		return fail(why, whylen, "unit %s has no control register layout "
			    "to check the encoding against", u->name);
	if (ctr >= u->nctr)
		return fail(why, whylen, "unit %s has counters 0 to %u, not %u",
			    u->name, u->nctr - 1, ctr);
	if (ctr >= PLAT_MAX_CTRS || !(valid_mask >> ctr & 1))
		return fail(why, whylen, "event 0x%02x/0x%02" PRIx64 " cannot "
			    "count on %s counter %u (valid counter mask 0x%x)",
			    e->code, e->umask, u->name, ctr, valid_mask);
	if (!put_field(&v, e->code, f->ev_lo, f->ev_w))
		return fail(why, whylen, "event code 0x%x does not fit the %u-bit "
			    "event field of %s", e->code, f->ev_w, u->name);
	if (!put_field(&v, e->umask, f->umask_lo, f->umask_w))
		return fail(why, whylen, "umask 0x%" PRIx64 " does not fit the "
			    "%u-bit umask field of %s", e->umask, f->umask_w,
			    u->name);
	if (!put_field(&v, e->thresh, f->thresh_lo, f->thresh_w))
		return fail(why, whylen, "threshold %u does not fit the %u-bit "
			    "threshold field of %s (0 to %llu)", e->thresh,
			    f->thresh_w, u->name,
			    (unsigned long long)width_mask(f->thresh_w));
	if (occupancy(u, e->code)) {
		/* PCU occupancy event (Table 2-158, Table 2-165): edge is
		 * occ_edge_det; invert is applied as invert and occ_invert */
		if (!put_bit(&v, e->edge, u->occ_edge_bit ? u->occ_edge_bit : NONE))
			return fail(why, whylen, "unit %s has no occupancy "
				    "edge-detect bit", u->name);
		if (!put_bit(&v, e->inv, f->inv_bit) ||
		    !put_bit(&v, e->inv, u->occ_inv_bit ? u->occ_inv_bit : NONE))
			return fail(why, whylen, "unit %s has no occupancy "
				    "invert bit", u->name);
	} else {
		if (!put_bit(&v, e->edge, f->edge_bit))
			return fail(why, whylen, "unit %s has no edge-detect bit",
				    u->name);
		if (!put_bit(&v, e->inv, f->inv_bit))
			return fail(why, whylen, "unit %s has no invert bit",
				    u->name);
	}
	if (!put_bit(&v, true, f->en_bit))
		return fail(why, whylen, "unit %s has no local enable bit", u->name);

	/* The last word: nothing outside the writable fields of the
	 * register's table may be set (a reserved bit, or a read-only one). */
	bad = v & ~reg_writable(u->ctl_layout);
	if (bad)
		return fail(why, whylen, "encoding 0x%llx for %s sets bits 0x%llx "
			    "that %s (%s) does not define as writable",
			    (unsigned long long)v, u->name,
			    (unsigned long long)bad, u->ctl_layout->name,
			    u->ctl_layout->source);
	*ctl = v;
	return 0;
}

static uint64_t get_field(uint64_t ctl, uint8_t lo, uint8_t w)
{
	if (w == 0 || lo >= 64)
		return 0;
	return (ctl >> lo) & width_mask(w);
}

static bool get_bit(uint64_t ctl, uint8_t bit)
{
	return bit < 64 && (ctl >> bit) & 1;
}

struct event_enc plat_decode(const struct unit_type *u, uint64_t ctl)
{
	const struct evsel_fmt *f = &u->fmt;
	struct event_enc e = {
		.code = (uint16_t)get_field(ctl, f->ev_lo, f->ev_w),
		.umask = get_field(ctl, f->umask_lo, f->umask_w),
		.thresh = (uint8_t)get_field(ctl, f->thresh_lo, f->thresh_w),
		.edge = get_bit(ctl, f->edge_bit),
		.inv = get_bit(ctl, f->inv_bit),
	};

	if (occupancy(u, e.code) && u->occ_edge_bit)
		e.edge = get_bit(ctl, u->occ_edge_bit);
	return e;
}

int plat_event_check(const struct unit_type *u, const struct event *ev,
		     char *why, size_t whylen)
{
	/* An event that counts only what a box filter lets through, on a
	 * unit that has no such register (snbep UBox FILTER_MATCH: no
	 * source gives its UBox filter): refused, not counted unfiltered. */
	if ((ev->flags & (EVF_FILTER0 | EVF_FILTER1)) && !u->nfilters)
		return fail(why, whylen, "%s needs a filter register (%s) that "
			    "this platform's %s unit does not have", ev->name,
			    ev->filter ? ev->filter : "?", u->name);
	return 0;
}

int plat_encode_event(const struct unit_type *u, const struct event *ev,
		      unsigned ctr, uint64_t *ctl, char *why, size_t whylen)
{
	struct event_enc e = event_enc_of(ev);
	uint64_t v;
	int r;

	if ((r = plat_event_check(u, ev, why, whylen)) < 0)
		return r;
	r = plat_encode(u, &e, ctr, ev->ctr_mask, &v, why, whylen);
	if (r < 0)
		return r;
	if (ev->ev_sel_ext) {
		if (!u->ev_ext_bit || u->ev_ext_bit >= 64)
			return fail(why, whylen, "%s needs the event-select "
				    "extension bit, which unit %s does not have",
				    ev->name, u->name);
		v |= 1ull << u->ev_ext_bit;
		if (v & ~reg_writable(u->ctl_layout))
			return fail(why, whylen, "%s: extension bit %u is not "
				    "writable in %s (%s)", ev->name,
				    u->ev_ext_bit, u->ctl_layout->name,
				    u->ctl_layout->source);
	}
	*ctl = v;
	return 0;
}
