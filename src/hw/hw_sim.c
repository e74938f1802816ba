/*
 * hw_sim.c - the register-accurate simulator backend (DESIGN.md section 3).
 *
 * The simulated machine is built from the same platform tables the
 * daemon programs (src/plat/): every control and counter register of
 * every present unit instance, the global registers, the platform's
 * read-only configuration registers and its PCI/MMIO plumbing.  Field
 * attributes come from the tables' reg_layouts, so the model enforces
 * what the manual says: reserved bits make an MSR write fault (#GP, which
 * the msr driver reports as EIO), read-only registers refuse writes,
 * RW1C status bits clear on a written 1, counters wrap at their width and
 * set their overflow status bit.
 *
 * Counters advance lazily: each keeps (raw value, fractional carry, time
 * of last update) and, when read or when anything that changes whether or
 * what it counts is written, is brought up to date by integrating the
 * workload's rate for its programmed encoding over the elapsed time.  A
 * counter read twice 1 s apart therefore differs by rate x 1 s, +-1.
 *
 * All mutable state lives in one flat block: private memory, or a
 * file-backed MAP_SHARED mapping (--sim-state) so that the registers
 * survive a restart or kill -9 of the daemon, and so that a second
 * process (a test playing "another agent") sees and changes the same
 * machine.  A process-shared robust mutex guards it.  Each process keeps
 * its own cache of per-counter rates, invalidated by a generation number
 * that every control-register write bumps.
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

#include "hw/hw_sim.h"
#include "plat/plat_skl.h"

#define SIM_MAGIC 0x554e43534d303031ull	/* "UNCSM001" */
#define SIM_VERSION 1

enum sim_kind {
	SR_PLAIN,	/* stored value, attributes only */
	SR_GLOBAL_CTL,	/* changes what every counter does */
	SR_GLOBAL_STATUS,	/* overflow bits, RW1C */
	SR_CTL,		/* a counter's control (event select / fixed ctl) */
	SR_CTR,		/* a counter (programmable or fixed) */
	SR_FREERUN,	/* free-running counter, read-only */
};

/* Static description of one register, rebuilt identically at each open. */
struct sim_reg {
	enum hw_space space;
	uint8_t bits;		/* register size */
	uint8_t socket;
	uint8_t bus, dev, fn;	/* PCI */
	uint64_t reg;		/* MSR index, PCI offset, MMIO offset from the
				   socket's MMIO window */
	enum sim_kind kind;
	uint64_t rw, ro, wo, rw1c;	/* attribute masks */
	uint64_t reset;
	int ctr;		/* SR_CTR/SR_FREERUN: counter index */
	int ctl_ctr;		/* SR_CTL: the counter it controls */
};

/* Static description of one counter. */
struct sim_ctr {
	uint8_t socket;
	int unit;		/* platform unit index */
	unsigned inst, idx;
	uint8_t width;
	int reg;		/* its counter register */
	int ctl;		/* its control register, -1 if free-running */
	int freerun;		/* freerun index, -1 if programmable/fixed */
};

/* Mutable per-counter state (shared). */
struct sim_ctr_state {
	uint64_t value;		/* raw value at t_ns, within width */
	double frac;		/* events counted but not yet whole */
	int64_t t_ns;		/* time value/frac refer to */
	uint32_t stuck;
	uint32_t pad;
};

/* The shared block's header; registers and counters follow it. */
struct sim_shared {
	uint64_t magic;
	uint32_t version;
	uint32_t nregs, nctrs;
	uint32_t pad0;
	uint64_t layout_hash;
	char plat[16];
	int64_t epoch_ns;
	pthread_mutex_t lock;
	uint64_t gen;		/* bumped by every control write */
	uint32_t next_fault;	/* faults before it have been triggered */
	uint32_t eio_left[SIM_MAX_FAULTS];
	uint8_t missing[SIM_MAX_FAULTS];	/* device_missing active */
	uint64_t pad1;
	/* uint64_t regval[nregs]; struct sim_ctr_state ctr[nctrs]; */
};

struct sim {
	const struct platform *plat;
	struct workload *wl;
	unsigned nsockets;
	unsigned ninst[PLAT_MAX_UNITS];
	uint64_t mchbar_mask;	/* SKL MCHBAR base bits */
	int mchbar_reg;		/* index of the MCHBAR register, -1 none */
	uint64_t uclk_hz;
	int gctl[PLAT_MAX_SOCKETS];	/* global control register per socket */
	int gstat[PLAT_MAX_SOCKETS];	/* global status register per socket */
	struct sim_reg *regs;
	unsigned nregs, cap_regs;
	struct sim_ctr *ctrs;
	unsigned nctrs, cap_ctrs;
	double *rates;		/* nctrs * nphases, private cache */
	uint64_t rates_gen;
	/* shared state */
	struct sim_shared *sh;
	size_t shsize;
	bool mapped;
	bool fresh;		/* the state was created by this open */
	uint64_t *regval;
	struct sim_ctr_state *cst;
	/* clock */
	int64_t (*now_ns)(void *ctx);
	void *now_ctx;
};

static int64_t mono_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

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

/* A register described by a layout: masks from its field attributes. */
static struct sim_reg layout_reg(enum hw_space space, unsigned socket,
				 uint64_t addr, const struct reg_layout *l,
				 enum sim_kind kind)
{
	struct sim_reg r = {
		.space = space, .socket = (uint8_t)socket, .reg = addr,
		.kind = kind, .bits = l ? l->bits : 64, .ctr = -1,
		.ctl_ctr = -1,
	};

	if (l) {
		r.rw = reg_mask(l, ACC_RW);
		r.ro = reg_mask(l, ACC_RO);
		r.wo = reg_mask(l, ACC_WO);
		r.rw1c = reg_mask(l, ACC_RW1C);
	}
	return r;
}

/* Location of a unit instance's register (as the platform addresses it). */
static void unit_loc(const struct unit_type *u, unsigned inst, uint32_t off,
		     struct sim_reg *r)
{
	uint32_t base = u->inst_base ? u->inst_base[inst]
				     : u->base + inst * u->inst_stride;

	if (u->space == HW_PCI) {
		r->dev = (uint8_t)(base >> 3);
		r->fn = base & 7;
		r->reg = off;
	} else {
		r->reg = (uint64_t)base + off;
	}
}

static int build_unit(struct sim *s, unsigned sock, int ui,
		      const struct unit_type *u, unsigned inst)
{
	if (u->kind == UNIT_FREERUN) {
		for (unsigned i = 0; i < u->nfreerun; i++) {
			const struct freerun_ctr *f = &u->freerun[i];
			struct sim_reg r = layout_reg(u->space, sock, 0, NULL,
						      SR_FREERUN);
			struct sim_ctr c = { .socket = (uint8_t)sock, .unit = ui,
					     .inst = inst, .idx = i,
					     .width = f->width, .ctl = -1,
					     .freerun = (int)i };
			int ri, ci;

			unit_loc(u, inst, f->off, &r);
			r.bits = (uint8_t)(f->access * 8);
			r.ro = width_mask(f->width);
			ri = add_reg(s, &r);
			if (ri < 0)
				return ri;
			c.reg = ri;
			ci = add_ctr(s, &c);
			if (ci < 0)
				return ci;
			s->regs[ri].ctr = ci;
		}
		return 0;
	}
	for (unsigned i = 0; i < u->nctr; i++) {
		struct sim_reg ctl = layout_reg(u->space, sock, 0, u->ctl_layout,
						SR_CTL);
		struct sim_reg ctr = layout_reg(u->space, sock, 0, u->ctr_layout,
						SR_CTR);
		struct sim_ctr c = { .socket = (uint8_t)sock, .unit = ui,
				     .inst = inst, .idx = i, .width = u->width,
				     .freerun = -1 };
		int cli, cri, ci;

		unit_loc(u, inst, u->ctl_off + i * u->ctl_stride, &ctl);
		unit_loc(u, inst, u->ctr_off + i * u->ctr_stride, &ctr);
		cli = add_reg(s, &ctl);
		cri = cli < 0 ? cli : add_reg(s, &ctr);
		if (cri < 0)
			return cri;
		c.reg = cri;
		c.ctl = cli;
		ci = add_ctr(s, &c);
		if (ci < 0)
			return ci;
		s->regs[cri].ctr = ci;
		s->regs[cli].ctl_ctr = ci;
	}
	return 0;
}

/*
 * Skylake client specifics that are not unit tables: CBO_CONFIG reads the
 * CBo count plus one (manual 2.4.1); the host bridge at PCI 0:0.0 carries
 * MCHBAR at offset 0x48 (bits 38:15 base, bit 0 enable; see
 * doc/hardware-notes.md), and the IMC counters sit in its MMIO window.
 */
#define SKL_HOST_BRIDGE_ID 0x191f8086ull	/* device 0x191f, Intel */
#define SKL_MCHBAR_DEFAULT 0xfed10001ull

static int build_skl_extra(struct sim *s)
{
	struct sim_reg id = { .space = HW_PCI, .bits = 32, .reg = 0x00,
			      .kind = SR_PLAIN, .ctr = -1, .ctl_ctr = -1 };
	struct sim_reg bar = id;
	int ri;

	id.ro = 0xffffffffull;
	id.reset = SKL_HOST_BRIDGE_ID;
	if ((ri = add_reg(s, &id)) < 0)
		return ri;
	bar.reg = SKL_MCHBAR_PCI_OFF;
	bar.bits = 64;
	bar.rw = SKL_MCHBAR_MASK | SKL_MCHBAR_EN;
	bar.reset = s->wl->topo.has_mchbar ? s->wl->topo.mchbar
					   : SKL_MCHBAR_DEFAULT;
	if ((ri = add_reg(s, &bar)) < 0)
		return ri;
	s->mchbar_reg = ri;
	s->mchbar_mask = SKL_MCHBAR_MASK;
	return 0;
}

static int build(struct sim *s)
{
	const struct platform *p = s->plat;
	int r;

	s->mchbar_reg = -1;
	for (unsigned sock = 0; sock < s->nsockets; sock++) {
		struct sim_reg g = layout_reg(HW_MSR, sock, p->global_ctl.addr,
					      p->global_ctl.layout,
					      SR_GLOBAL_CTL);

		g.reset = p->global_ctl.reset;
		if ((r = add_reg(s, &g)) < 0)
			return r;
		s->gctl[sock] = r;
		g = layout_reg(HW_MSR, sock, p->global_status.addr,
			       p->global_status.layout, SR_GLOBAL_STATUS);
		g.reset = p->global_status.reset;
		if ((r = add_reg(s, &g)) < 0)
			return r;
		s->gstat[sock] = r;
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
	if (strcmp(p->id, "skl") == 0) {
		int cbo;

		if ((r = build_skl_extra(s)) < 0)
			return r;
		/* MSR_UNC_CBO_CONFIG (0x396): NO_CBO_BANKS = CBos + 1. */
		plat_unit(p, "cbo", &cbo);
		for (unsigned i = 0; i < s->nregs; i++)
			if (s->regs[i].space == HW_MSR &&
			    s->regs[i].reg == SKL_MSR_CBO_CONFIG)
				s->regs[i].reset = s->ninst[cbo] + 1;
	}
	return 0;
}

static uint64_t layout_hash(const struct sim *s)
{
	uint64_t h = 1469598103934665603ull;

	for (unsigned i = 0; i < s->nregs; i++) {
		const struct sim_reg *r = &s->regs[i];
		uint64_t parts[] = { r->space, r->socket, r->bus, r->dev, r->fn,
				     r->reg, r->kind, r->rw, r->ro, r->bits };

		for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++)
			h = (h ^ parts[k]) * 1099511628211ull;
	}
	return h;
}

/* ---- register lookup ------------------------------------------------ */

static uint64_t mmio_base(const struct sim *s)
{
	uint64_t bar;

	if (s->mchbar_reg < 0)
		return 0;
	bar = s->regval[s->mchbar_reg];
	return (bar & SKL_MCHBAR_EN) ? (bar & s->mchbar_mask) : 0;
}

/*
 * Finds the register a access hits.  *half is set to 32 when a 4-byte
 * access reaches the upper half of a 64-bit PCI/MMIO register, else 0.
 */
static int find_reg(const struct sim *s, const struct hw_addr *a,
		    unsigned *half)
{
	unsigned sock = 0;
	uint64_t off = a->reg;

	*half = 0;
	if (a->space == HW_MSR)
		sock = a->cpu / SIM_CPUS_PER_SOCKET;
	if (a->space == HW_MMIO) {
		uint64_t base = mmio_base(s);

		if (!base || a->reg < base || a->reg - base >= 0x8000)
			return -1;
		off = a->reg - base;
	}
	for (unsigned i = 0; i < s->nregs; i++) {
		const struct sim_reg *r = &s->regs[i];

		if (r->space != a->space || r->socket != sock)
			continue;
		if (a->space == HW_PCI &&
		    (r->bus != a->bus || r->dev != a->dev || r->fn != a->fn ||
		     a->domain != 0))
			continue;
		if (r->reg == off && a->width * 8 <= r->bits)
			return (int)i;
		if (a->space != HW_MSR && r->bits == 64 && a->width == 4 &&
		    r->reg + 4 == off) {
			*half = 32;
			return (int)i;
		}
	}
	return -1;
}

/* Is there a PCI function at a's bus/dev/fn? */
static bool pci_fn_exists(const struct sim *s, const struct hw_addr *a)
{
	for (unsigned i = 0; i < s->nregs; i++) {
		const struct sim_reg *r = &s->regs[i];

		if (r->space == HW_PCI && r->bus == a->bus && r->dev == a->dev &&
		    r->fn == a->fn && a->domain == 0)
			return true;
	}
	return false;
}

/* ---- counting ------------------------------------------------------- */

static double sim_secs(const struct sim *s, int64_t t_ns)
{
	return (double)(t_ns - s->sh->epoch_ns) / 1e9;
}


/* Does counter c count at all, given the current register values? */
static bool ctr_running(const struct sim *s, const struct sim_ctr *c)
{
	const struct unit_type *u = s->plat->units[c->unit];
	int g;
	uint64_t ctl;

	if (c->freerun >= 0)
		return true;
	g = s->gctl[c->socket];
	if (g < 0 || (s->regval[g] & s->plat->global_enable) !=
		     s->plat->global_enable)
		return false;
	ctl = s->regval[c->ctl];
	return u->fmt.en_bit != 0xff && (ctl >> u->fmt.en_bit) & 1;
}

/* Recomputes the private per-counter rate cache from the registers. */
static void refresh_rates(struct sim *s)
{
	unsigned np = s->wl->nphases;

	for (unsigned i = 0; i < s->nctrs; i++) {
		const struct sim_ctr *c = &s->ctrs[i];
		const struct unit_type *u = s->plat->units[c->unit];
		double *r = &s->rates[(size_t)i * np];
		struct wl_match m = { .socket = c->socket, .unit = c->unit,
				      .inst = c->inst,
				      .ninst = s->ninst[c->unit] };

		if (c->freerun >= 0) {
			m.freerun = true;
			m.freerun_idx = (unsigned)c->freerun;
			wl_rates(s->wl, &m, r);
		} else if (u->kind == UNIT_FIXED) {
			for (unsigned p = 0; p < np; p++)
				r[p] = (double)s->uclk_hz;
		} else {
			m.enc = plat_decode(u, s->regval[c->ctl]);
			wl_rates(s->wl, &m, r);
		}
	}
	s->rates_gen = s->sh->gen;
}

static void set_overflow(struct sim *s, const struct sim_ctr *c)
{
	const struct unit_type *u = s->plat->units[c->unit];
	int g;

	if (u->global_ovf_bit == 0xff)
		return;
	g = s->gstat[c->socket];
	if (g >= 0)
		s->regval[g] |= 1ull << u->global_ovf_bit;
}

/* Brings counter i up to time t (never backwards). */
static void sync_ctr(struct sim *s, unsigned i, int64_t t)
{
	const struct sim_ctr *c = &s->ctrs[i];
	struct sim_ctr_state *st = &s->cst[i];
	double ev, whole;
	uint64_t n, total, mask = width_mask(c->width);

	if (t <= st->t_ns)
		return;
	if (st->stuck || !ctr_running(s, c)) {
		st->t_ns = t;
		return;
	}
	ev = wl_integral(s->wl, &s->rates[(size_t)i * s->wl->nphases],
			 sim_secs(s, st->t_ns), sim_secs(s, t)) + st->frac;
	whole = floor(ev);
	st->frac = ev - whole;
	n = whole >= 1.8e19 ? UINT64_MAX : (uint64_t)whole;
	total = st->value + n;
	if (total > mask || total < st->value || n > mask)
		set_overflow(s, c);
	st->value = total & mask;
	st->t_ns = t;
}

static void sync_all(struct sim *s, int64_t t)
{
	for (unsigned i = 0; i < s->nctrs; i++)
		sync_ctr(s, i, t);
}

/* ---- faults --------------------------------------------------------- */

static bool fault_hits(const struct sim *s, const struct wl_fault *f,
		       const struct hw_addr *a)
{
	unsigned sock = a->space == HW_MSR ? a->cpu / SIM_CPUS_PER_SOCKET : 0;

	(void)s;
	if (f->target_is_freerun || f->target.space != a->space)
		return false;
	if (f->socket >= 0 && (unsigned)f->socket != sock)
		return false;
	if (a->space == HW_PCI) {
		if (f->target.bus != a->bus || f->target.dev != a->dev ||
		    f->target.fn != a->fn)
			return false;
		if (f->kind == WL_FAULT_DEVICE_MISSING)
			return true;
	}
	return f->target.reg == a->reg;
}

static int sim_store(struct sim *s, int ri, unsigned half, uint64_t v,
		     unsigned width, int64_t now);

/* Applies one fault at its own time. */
static void trigger_fault(struct sim *s, unsigned k)
{
	const struct wl_fault *f = &s->wl->faults[k];
	int64_t at = s->sh->epoch_ns + (int64_t)(f->at * 1e9);

	switch (f->kind) {
	case WL_FAULT_EIO:
		s->sh->eio_left[k] = f->count;
		break;
	case WL_FAULT_DEVICE_MISSING:
		s->sh->missing[k] = 1;
		break;
	case WL_FAULT_FOREIGN_WRITE:
		for (unsigned sock = 0; sock < s->nsockets; sock++) {
			struct hw_addr a = f->target;
			unsigned half;
			int ri;

			if (f->socket >= 0 && (unsigned)f->socket != sock)
				continue;
			if (a.space == HW_MSR)
				a.cpu = sock * SIM_CPUS_PER_SOCKET;
			ri = find_reg(s, &a, &half);
			if (ri >= 0)
				sim_store(s, ri, half, f->value, a.width, at);
		}
		break;
	case WL_FAULT_STUCK:
		for (unsigned i = 0; i < s->nctrs; i++) {
			const struct sim_ctr *c = &s->ctrs[i];
			const struct sim_reg *r = &s->regs[c->reg];
			bool hit;

			if (f->socket >= 0 && (unsigned)f->socket != c->socket)
				continue;
			if (f->target_is_freerun)
				hit = c->unit == f->freerun_unit &&
				      c->freerun == (int)f->freerun_idx;
			else
				hit = r->space == f->target.space &&
				      r->reg == (r->space == HW_MMIO
						 ? f->target.reg - mmio_base(s)
						 : f->target.reg);
			if (hit) {
				sync_ctr(s, i, at);
				s->cst[i].stuck = 1;
			}
		}
		break;
	}
}

/* Triggers every fault whose time has come, in order. */
static void run_faults(struct sim *s, int64_t now)
{
	double t = sim_secs(s, now);

	while (s->sh->next_fault < s->wl->nfaults &&
	       s->sh->next_fault < SIM_MAX_FAULTS &&
	       s->wl->faults[s->sh->next_fault].at <= t) {
		unsigned k = s->sh->next_fault;
		int64_t at = s->sh->epoch_ns +
			     (int64_t)(s->wl->faults[k].at * 1e9);

		if (s->rates_gen != s->sh->gen)
			refresh_rates(s);
		sync_all(s, at);
		trigger_fault(s, k);
		s->sh->next_fault++;
	}
}

/* Returns -EIO/-ENODEV if an active fault makes access a fail. */
static int fault_check(struct sim *s, const struct hw_addr *a)
{
	char buf[64];

	for (unsigned k = 0; k < s->sh->next_fault; k++) {
		const struct wl_fault *f = &s->wl->faults[k];

		if (!fault_hits(s, f, a))
			continue;
		if (f->kind == WL_FAULT_DEVICE_MISSING && s->sh->missing[k])
			return hw_fail(ENODEV, "%s: device not present "
				       "(simulated device_missing fault)",
				       hw_addr_str(a, buf, sizeof(buf)));
		if (f->kind == WL_FAULT_EIO && s->sh->eio_left[k] > 0) {
			s->sh->eio_left[k]--;
			return hw_fail(EIO, "%s: I/O error (simulated eio "
				       "fault)", hw_addr_str(a, buf,
							     sizeof(buf)));
		}
	}
	return 0;
}

/* ---- locking and time ----------------------------------------------- */

static void sim_lock(struct sim *s)
{
	int r = pthread_mutex_lock(&s->sh->lock);

	/* A process died holding the lock (kill -9): the state is a set of
	 * independent register values, each written whole, so it is still
	 * consistent enough to continue, as hardware would be. */
	if (r == EOWNERDEAD)
		pthread_mutex_consistent(&s->sh->lock);
}

static void sim_unlock(struct sim *s)
{
	pthread_mutex_unlock(&s->sh->lock);
}

/* Takes the lock and brings the model to now; returns now. */
static int64_t sim_enter(struct sim *s)
{
	int64_t now;

	sim_lock(s);
	now = s->now_ns(s->now_ctx);
	if (s->rates_gen != s->sh->gen)
		refresh_rates(s);
	run_faults(s, now);
	if (s->rates_gen != s->sh->gen)
		refresh_rates(s);
	return now;
}

/* ---- access --------------------------------------------------------- */

static uint64_t reg_read_value(struct sim *s, int ri, int64_t now)
{
	const struct sim_reg *r = &s->regs[ri];

	switch (r->kind) {
	case SR_CTR:
	case SR_FREERUN:
		sync_ctr(s, (unsigned)r->ctr, now);
		return s->cst[r->ctr].value;
	case SR_GLOBAL_STATUS:
		sync_all(s, now);
		return s->regval[ri];
	default:
		/* write-only bits read as zero */
		return s->regval[ri] & ~r->wo;
	}
}

/*
 * Stores v into register ri at time now, with the register's attribute
 * semantics.  half/width select part of a 64-bit PCI/MMIO register.
 * Returns 0 or -errno.
 */
static int sim_store(struct sim *s, int ri, unsigned half, uint64_t v,
		     unsigned width, int64_t now)
{
	const struct sim_reg *r = &s->regs[ri];
	uint64_t old = r->kind == SR_CTR ? s->cst[r->ctr].value : s->regval[ri];
	uint64_t part = width == 8 ? ~0ull : 0xffffffffull << half;
	uint64_t nv;
	char buf[64];

	v = width == 8 ? v : (v & 0xffffffffull) << half;
	if (r->space == HW_MSR) {
		/* wrmsr faults (#GP) on reserved bits and read-only MSRs;
		 * the msr driver turns that into EIO. */
		uint64_t settable = r->rw | r->wo | r->rw1c;

		if (v & ~settable & ~r->ro) {
			struct hw_addr a = hw_msr(r->socket * SIM_CPUS_PER_SOCKET,
						  (uint32_t)r->reg);
			return hw_fail(EIO, "%s: write of 0x%" PRIx64 " sets "
				       "reserved bits 0x%" PRIx64 " (#GP)",
				       hw_addr_str(&a, buf, sizeof(buf)), v,
				       v & ~settable & ~r->ro);
		}
		if (!settable) {
			struct hw_addr a = hw_msr(r->socket * SIM_CPUS_PER_SOCKET,
						  (uint32_t)r->reg);
			return hw_fail(EIO, "%s: register is read-only (#GP)",
				       hw_addr_str(&a, buf, sizeof(buf)));
		}
	}
	switch (r->kind) {
	case SR_CTR:
		sync_ctr(s, (unsigned)r->ctr, now);
		nv = (old & ~(r->rw & part)) | (v & r->rw & part);
		s->cst[r->ctr].value = nv & width_mask(s->ctrs[r->ctr].width);
		s->cst[r->ctr].frac = 0;
		return 0;
	case SR_FREERUN:
		return 0;	/* read-only: the write is ignored */
	case SR_GLOBAL_CTL:
	case SR_CTL:
		/* what counts changes: settle every counter first */
		sync_all(s, now);
		s->sh->gen++;
		break;
	default:
		break;
	}
	nv = (old & ~(r->rw & part)) | (v & r->rw & part);
	nv &= ~(v & r->rw1c & part);
	s->regval[ri] = nv;
	return 0;
}

static int unimplemented(const struct sim *s, const struct hw_addr *a,
			 bool write)
{
	char buf[64];

	hw_addr_str(a, buf, sizeof(buf));
	switch (a->space) {
	case HW_MSR:
		if (a->cpu >= s->nsockets * SIM_CPUS_PER_SOCKET)
			return hw_fail(ENXIO, "%s: no such CPU (the simulated "
				       "machine has %u)", buf,
				       s->nsockets * SIM_CPUS_PER_SOCKET);
		return hw_fail(EIO, "%s: MSR not implemented (#GP on %s)", buf,
			       write ? "wrmsr" : "rdmsr");
	case HW_PCI:
		if (!pci_fn_exists(s, a))
			return hw_fail(ENODEV, "%s: no such PCI device", buf);
		return 1;	/* unimplemented config offset: reads 0 */
	case HW_MMIO:
		/* Inside the MCHBAR window but no counter: reads 0, writes
		 * are dropped; outside any window nothing answers. */
		if (mmio_base(s) && a->reg >= mmio_base(s) &&
		    a->reg - mmio_base(s) < 0x8000)
			return 1;
		return hw_fail(EFAULT, "%s: no device decodes this address%s",
			       buf, mmio_base(s) ? "" : " (MCHBAR disabled)");
	}
	return hw_fail(EINVAL, "%s: bad space", buf);
}

static int sim_read(struct hw *hw, const struct hw_addr *a, uint64_t *val)
{
	struct sim *s = hw->priv;
	unsigned half;
	int64_t now = sim_enter(s);
	int ri, err;

	err = fault_check(s, a);
	if (!err) {
		ri = find_reg(s, a, &half);
		if (ri < 0) {
			err = unimplemented(s, a, false);
			if (err == 1) {
				*val = 0;
				err = 0;
			}
		} else {
			uint64_t v = reg_read_value(s, ri, now) >> half;

			*val = a->width == 8 ? v : v & 0xffffffffull;
		}
	}
	sim_unlock(s);
	return err;
}

static int sim_write(struct hw *hw, const struct hw_addr *a, uint64_t val)
{
	struct sim *s = hw->priv;
	unsigned half;
	int64_t now = sim_enter(s);
	int ri, err;

	err = fault_check(s, a);
	if (!err) {
		ri = find_reg(s, a, &half);
		if (ri < 0) {
			err = unimplemented(s, a, true);
			if (err == 1)
				err = 0;	/* unimplemented: dropped */
		} else {
			err = sim_store(s, ri, half, val, a->width, now);
		}
	}
	sim_unlock(s);
	return err;
}

static int sim_scan(struct hw *hw, int (*cb)(void *, const struct hw_pci_dev *),
		    void *ctx)
{
	struct sim *s = hw->priv;
	int r = 0;

	sim_enter(s);
	for (unsigned i = 0; i < s->nregs && r == 0; i++) {
		const struct sim_reg *reg = &s->regs[i];
		struct hw_addr a = hw_pci(0, reg->bus, reg->dev, reg->fn, 0, 4);
		struct hw_pci_dev d;
		bool seen = false;
		unsigned half;
		int idr;

		if (reg->space != HW_PCI)
			continue;
		for (unsigned j = 0; j < i && !seen; j++)
			seen = s->regs[j].space == HW_PCI &&
			       s->regs[j].bus == reg->bus &&
			       s->regs[j].dev == reg->dev &&
			       s->regs[j].fn == reg->fn;
		if (seen || fault_check(s, &a) < 0)
			continue;
		idr = find_reg(s, &a, &half);
		d = (struct hw_pci_dev){ .bus = reg->bus, .dev = reg->dev,
					 .fn = reg->fn };
		if (idr >= 0) {
			d.vendor = (uint16_t)s->regval[idr];
			d.device = (uint16_t)(s->regval[idr] >> 16);
		}
		sim_unlock(s);
		r = cb(ctx, &d);
		sim_lock(s);
	}
	sim_unlock(s);
	return r;
}

/* ---- open/close ----------------------------------------------------- */

static int init_lock(pthread_mutex_t *m)
{
	pthread_mutexattr_t at;
	int r;

	pthread_mutexattr_init(&at);
	pthread_mutexattr_setpshared(&at, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&at, PTHREAD_MUTEX_ROBUST);
	r = pthread_mutex_init(m, &at);
	pthread_mutexattr_destroy(&at);
	return -r;
}

static void reset_state(struct sim *s, int64_t now)
{
	for (unsigned i = 0; i < s->nregs; i++)
		s->regval[i] = s->regs[i].reset;
	for (unsigned i = 0; i < s->nctrs; i++)
		s->cst[i] = (struct sim_ctr_state){ .t_ns = now };
	s->sh->epoch_ns = now;
	s->sh->next_fault = 0;
	s->sh->gen = 1;
}

static int map_state(struct sim *s, const char *path)
{
	size_t need = sizeof(struct sim_shared) + s->nregs * sizeof(uint64_t) +
		      s->nctrs * sizeof(struct sim_ctr_state);
	uint64_t hash = layout_hash(s);
	bool fresh = true;
	int64_t now = s->now_ns(s->now_ctx);
	int fd = -1, r;
	struct stat st;

	s->shsize = need;
	if (!path) {
		s->sh = calloc(1, need);
		if (!s->sh)
			return hw_fail(ENOMEM, "simulator: out of memory");
	} else {
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0 || fstat(fd, &st) < 0) {
			r = errno;
			if (fd >= 0)
				close(fd);
			return hw_fail(r, "cannot open simulator state %s: %s",
				       path, strerror(r));
		}
		fresh = st.st_size == 0;
		if (!fresh && (size_t)st.st_size != need) {
			close(fd);
			return hw_fail(EINVAL, "simulator state %s was made "
				       "for another machine (size %lld, want "
				       "%zu): remove it to start from reset",
				       path, (long long)st.st_size, need);
		}
		if (fresh && ftruncate(fd, (off_t)need) < 0) {
			r = errno;
			close(fd);
			return hw_fail(r, "cannot size simulator state %s: %s",
				       path, strerror(r));
		}
		s->sh = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_SHARED,
			     fd, 0);
		r = errno;
		close(fd);
		if (s->sh == MAP_FAILED) {
			s->sh = NULL;
			return hw_fail(r, "cannot map simulator state %s: %s",
				       path, strerror(r));
		}
		s->mapped = true;
	}
	s->regval = (uint64_t *)(s->sh + 1);
	s->cst = (struct sim_ctr_state *)(s->regval + s->nregs);
	s->fresh = fresh;
	if (!fresh) {
		if (s->sh->magic != SIM_MAGIC || s->sh->version != SIM_VERSION ||
		    s->sh->layout_hash != hash ||
		    strcmp(s->sh->plat, s->plat->id) != 0)
			return hw_fail(EINVAL, "simulator state %s was made "
				       "for another platform or topology: "
				       "remove it to start from reset", path);
		return 0;
	}
	/* A new file is zero-filled: initialise it, lock first.  (Two
	 * processes creating the same state at the same instant is not a
	 * supported use.) */
	if ((r = init_lock(&s->sh->lock)) < 0)
		return hw_fail(-r, "simulator: cannot create lock");
	s->sh->version = SIM_VERSION;
	s->sh->nregs = s->nregs;
	s->sh->nctrs = s->nctrs;
	s->sh->layout_hash = hash;
	snprintf(s->sh->plat, sizeof(s->sh->plat), "%s", s->plat->id);
	reset_state(s, now);
	__atomic_store_n(&s->sh->magic, SIM_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

static void sim_free(struct sim *s)
{
	if (!s)
		return;
	if (s->sh) {
		if (s->mapped)
			munmap(s->sh, s->shsize);
		else
			free(s->sh);
	}
	wl_free(s->wl);
	free(s->regs);
	free(s->ctrs);
	free(s->rates);
	free(s);
}

/* Instances per unit: the workload's topology or the largest the
 * platform allows. */
static void resolve_topology(struct sim *s)
{
	const struct wl_topology *t = &s->wl->topo;

	s->nsockets = t->sockets ? t->sockets : 1;
	for (int ui = 0; s->plat->units[ui]; ui++) {
		const struct unit_type *u = s->plat->units[ui];

		s->ninst[ui] = u->max_inst;
		if (strcmp(u->name, "cbo") == 0 && t->cbo_count)
			s->ninst[ui] = t->cbo_count;
	}
	s->uclk_hz = t->uclk_hz ? t->uclk_hz : 800000000ull;
}

static int sim_open(struct hw *hw, const struct hw_opts *o)
{
	struct sim *s = calloc(1, sizeof(*s));
	const struct platform *p = NULL;
	char err[512];
	int r;

	if (!s)
		return hw_fail(ENOMEM, "simulator: out of memory");
	s->now_ns = mono_ns;
	if (o->sim_platform) {
		p = plat_by_id(o->sim_platform);
		if (!p) {
			free(s);
			return hw_fail(EINVAL, "simulator: unknown platform "
				       "\"%s\"", o->sim_platform);
		}
	}
	if (o->sim_workload)
		r = wl_load(o->sim_workload, p, &s->wl, err, sizeof(err));
	else
		r = wl_builtin(p ? p : &plat_skl, &s->wl);
	if (r < 0) {
		free(s);
		if (o->sim_workload)
			return hw_fail(-r, "%s", err);
		return hw_fail(-r, "simulator: no built-in workload for %s",
			       p ? p->id : "skl");
	}
	s->plat = s->wl->plat;
	if (s->wl->nfaults > SIM_MAX_FAULTS) {
		r = hw_fail(EINVAL, "%s: $.faults: at most %d faults are "
			    "supported", s->wl->source, SIM_MAX_FAULTS);
		sim_free(s);
		return r;
	}
	resolve_topology(s);
	r = build(s);
	if (r == 0) {
		s->rates = calloc((size_t)s->nctrs * s->wl->nphases + 1,
				  sizeof(double));
		if (!s->rates)
			r = -ENOMEM;
	}
	if (r < 0) {
		sim_free(s);
		return hw_fail(-r, "simulator: out of memory");
	}
	r = map_state(s, o->sim_state);
	if (r < 0) {
		sim_free(s);
		return r;
	}
	hw->priv = s;
	sim_lock(s);
	refresh_rates(s);
	sim_unlock(s);
	return 0;
}

static void sim_close(struct hw *hw)
{
	sim_free(hw->priv);
}

void hw_sim_set_clock(struct hw *hw, int64_t (*now_ns)(void *), void *ctx)
{
	struct sim *s = hw->priv;
	int64_t now = now_ns(ctx);

	sim_lock(s);
	s->now_ns = now_ns;
	s->now_ctx = ctx;
	/* A machine this open created restarts its workload clock on the new
	 * time base; an existing shared state keeps its epoch, so every
	 * opener must use the same clock. */
	if (s->fresh) {
		s->sh->epoch_ns = now;
		for (unsigned i = 0; i < s->nctrs; i++)
			s->cst[i].t_ns = now;
	}
	sim_unlock(s);
}

const struct platform *hw_sim_platform(const struct hw *hw)
{
	return ((const struct sim *)hw->priv)->plat;
}

const struct workload *hw_sim_workload(const struct hw *hw)
{
	return ((const struct sim *)hw->priv)->wl;
}

unsigned hw_sim_ninst(const struct hw *hw, int unit)
{
	return ((const struct sim *)hw->priv)->ninst[unit];
}

unsigned hw_sim_nsockets(const struct hw *hw)
{
	return ((const struct sim *)hw->priv)->nsockets;
}

double hw_sim_time(struct hw *hw)
{
	struct sim *s = hw->priv;

	return sim_secs(s, s->now_ns(s->now_ctx));
}

const struct hw_ops hw_sim_ops = {
	.name = "sim",
	.open = sim_open,
	.close = sim_close,
	.read = sim_read,
	.write = sim_write,
	.pci_scan = sim_scan,
};
