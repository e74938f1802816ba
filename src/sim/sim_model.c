/*
 * sim_model.c - the simulator's register model: built from the platform
 * tables (every register of every present unit instance, box-level and
 * global registers, the platform's extra registers and PCI functions)
 * and indexed by address space and address for O(1) lookup.  See
 * hw_sim.c for what the model does with them.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "sim/sim_internal.h"

/* ---- building the register model ------------------------------------ */

/*
 * Appends one element of size sz to the growable array *arr (n used, *cap
 * allocated) and returns its index, or -ENOMEM.
 */
static int append(void **arr, unsigned *n, unsigned *cap, const void *el,
		  size_t sz)
{
	if (*n == *cap) {
		unsigned nc = *cap ? *cap * 2 : 32;
		void *na = realloc(*arr, nc * sz);

		if (!na)
			return -ENOMEM;
		*arr = na;
		*cap = nc;
	}
	memcpy((char *)*arr + (size_t)*n * sz, el, sz);
	return (int)(*n)++;
}

static int add_reg(struct sim *s, const struct sim_reg *r)
{
	return append((void **)&s->regs, &s->nregs, &s->cap_regs, r, sizeof(*r));
}

static int add_ctr(struct sim *s, const struct sim_ctr *c)
{
	return append((void **)&s->ctrs, &s->nctrs, &s->cap_ctrs, c, sizeof(*c));
}

static int add_box(struct sim *s, const struct sim_box *b)
{
	return append((void **)&s->boxes, &s->nboxes, &s->cap_boxes, b,
		      sizeof(*b));
}

/* Registers the PCI function dev:fn on socket sock's bus (once; a later
 * non-zero device ID replaces 0).  0 or -ENOMEM. */
static int add_fn(struct sim *s, unsigned sock, uint32_t devfn,
		  uint16_t device)
{
	struct sim_fn f = { .socket = (uint8_t)sock, .bus = s->bus[sock],
			    .dev = (uint8_t)((devfn >> 3) & 0x1f),
			    .fn = devfn & 7, .device = device, .idreg = -1 };

	for (unsigned i = 0; i < s->nfns; i++) {
		struct sim_fn *g = &s->fns[i];

		if (g->bus == f.bus && g->dev == f.dev && g->fn == f.fn) {
			if (!g->device)
				g->device = device;
			return 0;
		}
	}
	return append((void **)&s->fns, &s->nfns, &s->cap_fns, &f, sizeof(f)) < 0
	       ? -ENOMEM : 0;
}

/* A register described by a layout: masks from its field attributes. */
static struct sim_reg layout_reg(enum hw_space space, unsigned socket,
				 uint64_t addr, const struct reg_layout *l,
				 enum sim_kind kind)
{
	struct sim_reg r = {
		.space = space, .socket = (uint8_t)socket, .reg = addr,
		.kind = kind, .bits = l ? l->bits : 64, .ctr = -1,
		.ctl_ctr = -1, .box = -1,
	};

	if (l) {
		r.rw = reg_mask(l, ACC_RW);
		r.ro = reg_mask(l, ACC_RO);
		r.wo = reg_mask(l, ACC_WO);
		r.rw1c = reg_mask(l, ACC_RW1C);
	}
	return r;
}

/* A register with no address: model state. */
static int add_state(struct sim *s, unsigned sock)
{
	struct sim_reg r = { .space = HW_MMIO, .socket = (uint8_t)sock,
			     .kind = SR_STATE, .bits = 64, .ctr = -1,
			     .ctl_ctr = -1, .box = -1 };

	return add_reg(s, &r);
}

/* Places r at offset off of unit u's instance inst on socket sock (or of
 * the instance base `base` when given, for filters in other functions). */
static void place(const struct sim *s, unsigned sock, enum hw_space space,
		  uint32_t base, uint32_t off, struct sim_reg *r)
{
	r->space = space;
	r->socket = (uint8_t)sock;
	if (space == HW_PCI) {
		r->bus = s->bus[sock];
		r->dev = (uint8_t)((base >> 3) & 0x1f);
		r->fn = base & 7;
		r->reg = off;
	} else {
		r->reg = (uint64_t)base + off;
	}
}

/* Mask of the field called name of l (NULL-safe), or 0. */
static uint64_t named_mask(const struct reg_layout *l, const char *name)
{
	const struct reg_field *f = l ? reg_field(l, name) : NULL;

	return f ? field_mask(f) : 0;
}

/* Box status bit of counter idx: the ov field's bit idx, or -1. */
static int status_bit(const struct unit_type *u, unsigned idx)
{
	const struct reg_field *ov = u->box_status_layout
				     ? reg_field(u->box_status_layout, "ov")
				     : NULL;

	if (!ov || ov->lo + idx > ov->hi)
		return -1;
	return (int)(ov->lo + idx);
}

/*
 * The box of unit u's instance inst on socket sock: its box control,
 * status and filter registers.  Returns the box index, -1 if the unit
 * has none of them, or -ENOMEM (as a value < -1).
 */
static int build_box(struct sim *s, unsigned sock, int ui,
		     const struct unit_type *u, unsigned inst)
{
	struct sim_box b = { .socket = (uint8_t)sock, .unit = ui,
			     .inst = inst, .ctl = -1, .status = -1 };
	unsigned shift;
	uint32_t base;
	int bi, r, dst;

	if (!u->box_ctl_layout && !u->box_status_layout && !u->nfilters)
		return -1;
	if (!plat_inst_base(u, inst, &base))
		return -1;
	if ((b.state = add_state(s, sock)) < 0)
		return -ENOMEM;
	if (u->box_ctl_layout) {
		struct sim_reg c = layout_reg(u->space, sock, 0,
					      u->box_ctl_layout, SR_BOX_CTL);

		place(s, sock, u->space, base, u->box_ctl_off, &c);
		c.must1 = u->box_ctl_must1;
		b.frz = named_mask(u->box_ctl_layout, "frz");
		b.rst_ctrl = named_mask(u->box_ctl_layout, "rst_ctrl");
		b.rst_ctrs = named_mask(u->box_ctl_layout, "rst_ctrs");
		b.frz_en = named_mask(u->box_ctl_layout, "frz_en");
		b.must1 = u->box_ctl_must1;
		if ((b.ctl = add_reg(s, &c)) < 0)
			return -ENOMEM;
	}
	if (u->box_status_layout) {
		struct sim_reg st = layout_reg(u->space, sock, 0,
					       u->box_status_layout,
					       SR_BOX_STATUS);

		place(s, sock, u->space, base, u->box_status_off, &st);
		if ((b.status = add_reg(s, &st)) < 0)
			return -ENOMEM;
	}
	b.ctl_twice = (u->quirks & UNIT_Q_CTL_TWICE) != 0;
	for (unsigned f = 0; f < u->nfilters && f < SIM_MAX_BOX_FILTERS; f++) {
		const struct unit_filter *flt = &u->filters[f];
		struct sim_reg fr = layout_reg(u->space, sock, 0, flt->layout,
					       SR_FILTER);
		uint32_t fb = flt->inst_base ? flt->inst_base[inst] : base;

		place(s, sock, u->space, fb, flt->off, &fr);
		if ((r = add_reg(s, &fr)) < 0)
			return -ENOMEM;
		b.filt[b.nfilt] = r;
		wl_filter_slot(u, f, &dst, &shift);
		b.filt_dst[b.nfilt] = dst < 0 ? NONE8 : (uint8_t)dst;
		b.filt_shift[b.nfilt] = (uint8_t)shift;
		b.nfilt++;
		if (u->space == HW_PCI && flt->inst_base &&
		    add_fn(s, sock, fb, flt->pci_devid ? flt->pci_devid[inst]
						       : 0) < 0)
			return -ENOMEM;
	}
	bi = add_box(s, &b);
	if (bi < 0)
		return -ENOMEM;
	s->regs[b.state].box = bi;
	if (b.ctl >= 0)
		s->regs[b.ctl].box = bi;
	if (b.status >= 0)
		s->regs[b.status].box = bi;
	for (unsigned f = 0; f < b.nfilt; f++)
		s->regs[b.filt[f]].box = bi;
	return bi;
}

/* The free-running counters of one instance of u (a core-scope MSR
 * exists once per core, reached from that core's CPU: notes, PCU
 * C-state). */
static int build_freerun(struct sim *s, unsigned sock, int ui,
			 const struct unit_type *u, unsigned inst,
			 uint32_t base)
{
	for (unsigned i = 0; i < u->nfreerun; i++) {
		const struct freerun_ctr *f = &u->freerun[i];
		unsigned ncopies = f->core_scope ? wl_cores(s->wl) : 1;

		for (unsigned k = 0; k < ncopies; k++) {
			struct sim_reg r = layout_reg(u->space, sock, 0, NULL,
						      SR_FREERUN);
			struct sim_ctr c = {
				.socket = (uint8_t)sock, .unit = ui,
				.inst = f->core_scope ? k : inst,
				.idx = i, .width = f->width, .ctl = -1,
				.freerun = (int)i, .box = -1,
				.st_bit = -1, .gbit = NONE8,
				.oven_bit = NONE8, .en_bit = NONE8,
				.rst_bit = NONE8, .core_scope = f->core_scope };
			int ri, ci;

			place(s, sock, u->space, base, f->off, &r);
			r.bits = (uint8_t)(f->access * 8);
			r.ro = width_mask(f->width);
			r.core1 = f->core_scope ? (uint8_t)(k + 1) : 0;
			if ((ri = add_reg(s, &r)) < 0)
				return ri;
			c.reg = ri;
			if ((ci = add_ctr(s, &c)) < 0)
				return ci;
			s->regs[ri].ctr = ci;
		}
	}
	return 0;
}

/* Counter i (control and counter registers) of one instance of u in
 * box box (-1: none). */
static int build_counter(struct sim *s, unsigned sock, int ui,
			 const struct unit_type *u, unsigned inst,
			 uint32_t base, int box, unsigned i)
{
	struct sim_reg ctl = layout_reg(u->space, sock, 0, u->ctl_layout,
					SR_CTL);
	struct sim_reg ctr = layout_reg(u->space, sock, 0, u->ctr_layout,
					SR_CTR);
	struct sim_ctr c = {
		.socket = (uint8_t)sock, .unit = ui, .inst = inst,
		.idx = i, .width = u->width, .freerun = -1, .box = box,
		.st_bit = box >= 0 ? status_bit(u, i) : -1,
		.gbit = plat_global_ovf_bit(u, inst), .oven_bit = NONE8,
		.en_bit = u->fmt.en_bit, .rst_bit = u->fmt.rst_bit,
		.clock = CLK_UCLK,
	};
	int cli, cri, ci;

	if (s->data->ovf_needs_en) {
		c.oven_bit = u->fmt.ovf_en_bit;
		if (c.oven_bit == NONE8)
			c.gbit = NONE8;
	}
	if (u->kind == UNIT_FIXED && s->data->dclk_unit &&
	    strcmp(u->name, s->data->dclk_unit) == 0)
		c.clock = CLK_DCLK;
	place(s, sock, u->space, base, u->ctl_off + i * u->ctl_stride, &ctl);
	place(s, sock, u->space, base, u->ctr_off + i * u->ctr_stride, &ctr);
	cli = add_reg(s, &ctl);
	cri = cli < 0 ? cli : add_reg(s, &ctr);
	if (cri < 0)
		return cri;
	c.reg = cri;
	c.ctl = cli;
	if ((ci = add_ctr(s, &c)) < 0)
		return ci;
	s->regs[cri].ctr = ci;
	s->regs[cli].ctl_ctr = ci;
	return 0;
}

static int build_unit(struct sim *s, unsigned sock, int ui,
		      const struct unit_type *u, unsigned inst)
{
	uint32_t base;
	int box, r;

	if (!plat_inst_base(u, inst, &base))
		return 0;
	if (u->space == HW_PCI &&
	    add_fn(s, sock, base, u->pci_devid ? u->pci_devid[inst] : 0) < 0)
		return -ENOMEM;
	if (u->kind == UNIT_FREERUN)
		return build_freerun(s, sock, ui, u, inst, base);
	box = build_box(s, sock, ui, u, inst);
	if (box < -1)
		return -ENOMEM;
	for (unsigned i = 0; i < u->nctr; i++)
		if ((r = build_counter(s, sock, ui, u, inst, base, box, i)) < 0)
			return r;
	return 0;
}

/* Does u have its instances in the same PCI functions as v? */
static bool same_functions(const struct unit_type *u,
			   const struct unit_type *v)
{
	return u != v && u->space == HW_PCI && v->space == HW_PCI &&
	       u->inst_base && v->inst_base && u->max_inst == v->max_inst &&
	       memcmp(u->inst_base, v->inst_base,
		      u->max_inst * sizeof(*u->inst_base)) == 0;
}

/*
 * A counting unit without a box of its own in another unit's PCI
 * functions (hsx imc_fixed in the iMC channel) joins that unit's box:
 * the box control freezes and resets it, and its counters take the low
 * status bits (the iMC's ov 4:0: bit 0 the fixed counter, 1-4 counters
 * 0-3; notes "iMC box status bits").
 */
static void share_boxes(struct sim *s)
{
	const struct platform *p = s->plat;

	for (unsigned i = 0; i < s->nctrs; i++) {
		struct sim_ctr *c = &s->ctrs[i];
		const struct unit_type *u = p->units[c->unit];

		if (c->box >= 0 || c->freerun >= 0 || u->box_ctl_layout)
			continue;
		for (unsigned b = 0; b < s->nboxes; b++) {
			const struct sim_box *bx = &s->boxes[b];
			const struct unit_type *v = p->units[bx->unit];
			unsigned shift = u->nctr;

			if (bx->socket != c->socket || bx->inst != c->inst ||
			    !same_functions(u, v) || bx->ctl < 0)
				continue;
			c->box = (int)b;
			c->st_bit = status_bit(v, c->idx);
			/* the box's own counters move up, if the ov field
			 * has room for both */
			if (!v->box_status_layout ||
			    status_bit(v, v->nctr + shift - 1) < 0)
				break;
			for (unsigned j = 0; j < s->nctrs; j++) {
				struct sim_ctr *d = &s->ctrs[j];

				if (d->box == (int)b && d->unit == bx->unit &&
				    d->freerun < 0)
					d->st_bit = status_bit(v, d->idx + shift);
			}
			break;
		}
	}
}

/* Node ID of package p (plat_sim.node_mul/add). */
uint8_t sim_node_of(const struct sim *s, unsigned p)
{
	return (uint8_t)((s->data->node_mul * p + s->data->node_add) & 7);
}

/* The reset value of platform register x on socket sock. */
static uint64_t extra_reset(const struct sim *s, const struct plat_sim_reg *x,
			    unsigned sock)
{
	uint64_t map = 0;
	int ui;

	switch (x->reset_kind) {
	case PSR_NINST:
		return plat_unit(s->plat, x->unit, &ui)
		       ? s->ninst_part[ui] + x->reset : x->reset;
	case PSR_NODE_ID:
		return sim_node_of(s, sock);
	case PSR_NODE_MAP:
		for (unsigned p = 0; p < 8; p++)
			map |= (uint64_t)sim_node_of(s, p) << (3 * p);
		return map;
	default:
		return x->reset;
	}
}

/*
 * The registers and PCI functions outside the unit tables, from the
 * platform's simulator data (plat_sim.h): a register the tables already
 * hold takes only its reset value; the others are added, with their
 * function.  The workload's "mchbar" is the MMIO window register's reset.
 */
static int build_extra(struct sim *s)
{
	const struct plat_sim *d = s->data;
	int r;

	for (unsigned sock = 0; sock < s->nsockets; sock++) {
		for (size_t k = 0; k < d->nregs; k++) {
			const struct plat_sim_reg *x = &d->regs[k];
			struct sim_reg g = { .bits = x->bits, .kind = SR_PLAIN,
					     .rw = x->rw, .ro = x->ro,
					     .ctr = -1, .ctl_ctr = -1, .box = -1 };
			bool found = false;

			if (x->socket0_only && sock > 0)
				continue;
			g.reset = extra_reset(s, x, sock);
			if ((int)k == d->mmio_bar && s->wl->topo.has_mmio_bar)
				g.reset = s->wl->topo.mmio_bar;
			for (unsigned i = 0; i < s->nregs && x->space == HW_MSR; i++)
				if (s->regs[i].space == HW_MSR &&
				    s->regs[i].socket == sock &&
				    s->regs[i].reg == x->addr &&
				    s->regs[i].kind != SR_STATE) {
					s->regs[i].reset = g.reset;
					found = true;
				}
			if (found)
				continue;
			if (x->space == HW_PCI &&
			    add_fn(s, sock, x->devfn,
				   (int)k == d->mmio_bar && s->wl->topo.has_mmio_dev
				   ? s->wl->topo.mmio_dev : x->device) < 0)
				return -ENOMEM;
			place(s, sock, x->space, x->space == HW_PCI ? x->devfn : 0,
			      x->addr, &g);
			if ((r = add_reg(s, &g)) < 0)
				return r;
			if ((int)k == d->mmio_bar)
				s->mmio_bar = r;
		}
	}
	return 0;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct sim_fn *x = a, *y = b;
	unsigned kx = (unsigned)x->bus << 8 | (unsigned)x->dev << 3 | x->fn;
	unsigned ky = (unsigned)y->bus << 8 | (unsigned)y->dev << 3 | y->fn;

	return kx < ky ? -1 : kx > ky;
}

static int index_build(struct sim *s);

int sim_build(struct sim *s)
{
	const struct platform *p = s->plat;
	const struct reg_layout *gl = p->global_ctl.layout;
	int r;

	s->mmio_bar = -1;
	s->gfrz_mask = named_mask(gl, "frz_all");
	s->gunfrz_mask = named_mask(gl, "unfrz_all");
	for (unsigned sock = 0; sock < s->nsockets; sock++) {
		struct sim_reg g;

		s->gctl[sock] = s->gstat[sock] = s->gfrz[sock] = -1;
		/* a platform without a global control (snbep) has no global
		 * registers at all: only its boxes freeze */
		if (gl) {
			g = layout_reg(HW_MSR, sock, p->global_ctl.addr, gl,
				       SR_GLOBAL_CTL);
			g.reset = p->global_ctl.reset;
			if ((r = add_reg(s, &g)) < 0)
				return r;
			s->gctl[sock] = r;
		}
		if (p->global_status.layout) {
			g = layout_reg(HW_MSR, sock, p->global_status.addr,
				       p->global_status.layout,
				       SR_GLOBAL_STATUS);
			g.reset = p->global_status.reset;
			if ((r = add_reg(s, &g)) < 0)
				return r;
			s->gstat[sock] = r;
		}
		if (s->gfrz_mask || s->gunfrz_mask) {
			if ((r = add_state(s, sock)) < 0)
				return r;
			s->gfrz[sock] = r;
		}
		for (size_t i = 0; i < p->nextra_regs; i++) {
			const struct plat_reg *x = &p->extra_regs[i];

			g = layout_reg(HW_MSR, sock, x->addr, x->layout,
				       SR_PLAIN);
			g.reset = x->reset;
			if ((r = add_reg(s, &g)) < 0)
				return r;
		}
		for (int ui = 0; p->units[ui]; ui++)
			for (unsigned inst = 0; inst < s->ninst[ui]; inst++)
				if ((r = build_unit(s, sock, ui, p->units[ui],
						    inst)) < 0)
					return r;
	}
	share_boxes(s);
	if ((r = build_extra(s)) < 0)
		return r;
	/* every function answers its IDs at offset 0 */
	for (unsigned i = 0; i < s->nfns; i++) {
		struct sim_fn *f = &s->fns[i];
		struct sim_reg id = { .space = HW_PCI, .bits = 32,
				      .socket = f->socket, .bus = f->bus,
				      .dev = f->dev, .fn = f->fn, .reg = 0,
				      .kind = SR_PLAIN, .ro = 0xffffffffull,
				      .reset = (uint64_t)f->device << 16 |
					       SIM_PCI_VENDOR,
				      .ctr = -1, .ctl_ctr = -1, .box = -1 };

		if ((r = add_reg(s, &id)) < 0)
			return r;
		f->idreg = r;
	}
	if (s->nfns)
		qsort(s->fns, s->nfns, sizeof(*s->fns), fn_cmp);
	return index_build(s);
}

uint64_t sim_layout_hash(const struct sim *s)
{
	uint64_t h = 1469598103934665603ull;

	for (unsigned i = 0; i < s->nregs; i++) {
		const struct sim_reg *r = &s->regs[i];
		uint64_t parts[] = { r->space, r->socket, r->bus, r->dev, r->fn,
				     r->reg, r->kind, r->rw, r->ro, r->bits,
				     r->wo, r->rw1c, r->must1,
				     (uint64_t)(int64_t)r->box };

		for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++)
			h = (h ^ parts[k]) * 1099511628211ull;
	}
	return h;
}

/* ---- register lookup ------------------------------------------------ */

uint64_t sim_mmio_base(const struct sim *s)
{
	uint64_t bar;

	if (s->mmio_bar < 0)
		return 0;
	bar = s->regval[s->mmio_bar];
	return (bar & s->data->mmio_enable) ? (bar & s->data->mmio_mask) : 0;
}

/*
 * The address index.  A register's key is its space and address as an
 * access names it: an MSR by socket, core (core-scope copies; 0 for the
 * socket's) and index; a PCI register by bus, device, function and
 * offset; an MMIO register by its offset in the MCHBAR window.  A 64-bit
 * PCI/MMIO register has a second key for its upper dword (4-byte
 * accesses).  Where two registers share a key the first built wins.
 */
static uint64_t key_msr(unsigned sock, unsigned core1, uint64_t msr)
{
	return 1ull << 62 | (uint64_t)sock << 48 | (uint64_t)core1 << 40 |
	       (msr & 0xffffffffffull);
}

static uint64_t key_pci(unsigned bus, unsigned dev, unsigned fn, uint64_t off)
{
	return 2ull << 62 | (uint64_t)bus << 32 | (uint64_t)dev << 27 |
	       (uint64_t)fn << 24 | (off & 0xffffffull);
}

static uint64_t key_mmio(uint64_t off)
{
	return 3ull << 62 | (off & ((1ull << 62) - 1));
}

/* The key of register r at offset delta from its address. */
static uint64_t reg_key(const struct sim_reg *r, uint64_t delta)
{
	switch (r->space) {
	case HW_MSR:
		return key_msr(r->socket, r->core1, r->reg + delta);
	case HW_PCI:
		return key_pci(r->bus, r->dev, r->fn, r->reg + delta);
	default:
		return key_mmio(r->reg + delta);
	}
}

/* splitmix64's finaliser: the keys differ in few bits. */
static size_t key_hash(uint64_t k)
{
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebull;
	k ^= k >> 31;
	return (size_t)k;
}

/* The slot of key k: where it is, or the empty slot it would go in.
 * Each slot looked at is a step of s->work. */
static struct sim_slot *index_slot(struct sim *s, uint64_t k)
{
	size_t i = key_hash(k) & s->index_mask;

	s->work++;
	while (s->index[i].ri1 && s->index[i].key != k) {
		i = (i + 1) & s->index_mask;
		s->work++;
	}
	return &s->index[i];
}

static void index_put(struct sim *s, uint64_t k, unsigned ri, unsigned half)
{
	struct sim_slot *sl = index_slot(s, k);

	if (!sl->ri1)
		*sl = (struct sim_slot){ .key = k, .ri1 = ri + 1,
					 .half = half };
}

/* Counts the unique keys of regs[]: how many entries the index needs. */
static size_t index_entries(const struct sim *s)
{
	size_t n = 0;

	for (unsigned i = 0; i < s->nregs; i++) {
		const struct sim_reg *r = &s->regs[i];

		if (r->kind == SR_STATE)
			continue;
		n += (r->space != HW_MSR && r->bits == 64) ? 2 : 1;
	}
	return n;
}

/*
 * Builds the address index, the bus-to-socket map and the counter lists
 * of sockets and boxes once the model is complete.  0 or -ENOMEM.
 */
static int index_build(struct sim *s)
{
	size_t size = 64;
	unsigned *fill;

	while (size < 2 * index_entries(s))
		size *= 2;
	s->index = calloc(size, sizeof(*s->index));
	s->box_ctr0 = calloc((size_t)s->nboxes + 1, sizeof(*s->box_ctr0));
	s->box_ctrs = calloc((size_t)s->nctrs + 1, sizeof(*s->box_ctrs));
	if (!s->index || !s->box_ctr0 || !s->box_ctrs)
		return -ENOMEM;
	s->index_mask = size - 1;
	for (unsigned i = 0; i < s->nregs; i++) {
		const struct sim_reg *r = &s->regs[i];

		if (r->kind == SR_STATE)
			continue;
		index_put(s, reg_key(r, 0), i, 0);
		if (r->space != HW_MSR && r->bits == 64)
			index_put(s, reg_key(r, 4), i, 32);
		s->has_core_msrs |= r->core1 != 0;
	}
	for (unsigned b = 0; b < 256; b++)
		s->bus_socket[b] = -1;
	for (unsigned i = 0; i < s->nfns; i++)
		if (s->bus_socket[s->fns[i].bus] < 0)
			s->bus_socket[s->fns[i].bus] = s->fns[i].socket;
	/* counters are built socket by socket */
	for (unsigned sock = 0, i = 0; sock <= PLAT_MAX_SOCKETS; sock++) {
		while (i < s->nctrs && s->ctrs[i].socket < sock)
			i++;
		s->sock_ctr0[sock] = i;
	}
	for (unsigned i = 0; i < s->nctrs; i++)
		if (s->ctrs[i].box >= 0)
			s->box_ctr0[s->ctrs[i].box + 1]++;
	for (unsigned b = 0; b < s->nboxes; b++)
		s->box_ctr0[b + 1] += s->box_ctr0[b];
	fill = calloc((size_t)s->nboxes + 1, sizeof(*fill));
	if (!fill)
		return -ENOMEM;
	memcpy(fill, s->box_ctr0, s->nboxes * sizeof(*fill));
	for (unsigned i = 0; i < s->nctrs; i++)
		if (s->ctrs[i].box >= 0)
			s->box_ctrs[fill[s->ctrs[i].box]++] = i;
	free(fill);
	return 0;
}

/* The socket whose PCI bus is bus, or -1. */
static int socket_of_bus(const struct sim *s, uint8_t bus)
{
	return s->bus_socket[bus];
}

/* The socket an access goes to (-1: a PCI bus of no socket). */
int sim_access_socket(const struct sim *s, const struct hw_addr *a)
{
	if (a->space == HW_MSR)
		return (int)(a->cpu / SIM_CPUS_PER_SOCKET);
	if (a->space == HW_PCI)
		return socket_of_bus(s, a->bus);
	return 0;
}

/*
 * Finds the register a access hits, in O(1) (the address index).  MSRs
 * match whatever the register's size (an MSR access is always 8 bytes; a
 * 32-bit register has reserved upper bits); a core-scope MSR only from
 * its core's CPUs.  PCI accesses arrive here as dwords.  *half is set to
 * 32 when a 4-byte access reaches the upper half of a 64-bit PCI/MMIO
 * register, else 0.
 */
int sim_find_reg(struct sim *s, const struct hw_addr *a, unsigned *half)
{
	const struct sim_slot *sl;
	const struct sim_reg *r;
	unsigned sock;

	*half = 0;
	switch (a->space) {
	case HW_MSR:
		sock = a->cpu / SIM_CPUS_PER_SOCKET;
		if (sock > 0xff)
			return -1;
		sl = index_slot(s, key_msr(sock, 0, a->reg));
		if (!sl->ri1 && s->has_core_msrs)
			sl = index_slot(s, key_msr(sock, a->cpu %
						   SIM_CPUS_PER_SOCKET + 1,
						   a->reg));
		break;
	case HW_PCI:
		if (a->domain != 0)
			return -1;
		sl = index_slot(s, key_pci(a->bus, a->dev, a->fn, a->reg));
		break;
	case HW_MMIO: {
		uint64_t base = sim_mmio_base(s);

		if (!base || a->reg < base || a->reg - base >= s->data->mmio_size)
			return -1;
		sl = index_slot(s, key_mmio(a->reg - base));
		break;
	}
	default:
		return -1;
	}
	if (!sl->ri1)
		return -1;
	r = &s->regs[sl->ri1 - 1];
	if (sl->half) {
		if (a->width != 4)
			return -1;
		*half = 32;
	} else if (a->space != HW_MSR && a->width * 8 > r->bits) {
		return -1;
	}
	return (int)sl->ri1 - 1;
}

static int fn_key_cmp(const void *key, const void *el)
{
	const struct hw_addr *a = key;
	const struct sim_fn *f = el;
	unsigned ka = (unsigned)a->bus << 8 | (unsigned)a->dev << 3 | a->fn;
	unsigned kf = (unsigned)f->bus << 8 | (unsigned)f->dev << 3 | f->fn;

	return ka < kf ? -1 : ka > kf;
}

/* The function at a's bus/dev/fn, or NULL (fns[] is sorted). */
const struct sim_fn *sim_find_fn(const struct sim *s,
				    const struct hw_addr *a)
{
	if (a->domain != 0 || !s->nfns)
		return NULL;
	return bsearch(a, s->fns, s->nfns, sizeof(*s->fns), fn_key_cmp);
}

