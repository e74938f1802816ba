/*
 * pmu.c - the PMU layer's front (see pmu.h): the numbering of every
 * counter, control and filter register of the topology, the slots that
 * name them, and the calls the sampler, the arbiter and the self-test
 * make, each handed to the backend's ops: pmu_direct.c (the daemon
 * programs the registers) or pmu_perf.c (the kernel's perf PMUs).  The
 * counting window of a freeze is kept here, on one clock for both.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu.h"
#include "sched.h"

/* Appends n registers of one (socket, unit) block to p->reg, built by
 * addr(ts, u, inst, k) for inst < ninst, k < per; the block's first id
 * in *first. */
static void add_block(struct pmu *p, unsigned sock, int ui, unsigned ninst,
		      unsigned per, enum pmu_reg_kind kind, uint32_t *first,
		      struct hw_addr (*addr)(const struct topo_socket *,
					     const struct unit_type *,
					     unsigned, unsigned))
{
	const struct topo_socket *ts = &p->topo->sock[sock];
	const struct unit_type *u = p->plat->units[ui];

	*first = p->nreg;
	for (unsigned i = 0; i < ninst; i++)
		for (unsigned k = 0; k < per; k++)
			p->reg[p->nreg++] = (struct pmu_reg){
				.a = addr ? addr(ts, u, i, k)
					  : (struct hw_addr){ 0 },
				.u = u,
				.kind = (uint8_t)kind, .socket = (uint8_t)sock,
				.inst = (uint8_t)i, .unit = (int8_t)ui,
				.present = topo_present(ts, (unsigned)ui, i),
			};
}

/* Registers per instance of unit u: controls, counters, filters. */
static unsigned nctl_of(const struct unit_type *u)
{
	return u->kind == UNIT_FREERUN ? 0 : u->nctr;
}

static unsigned nctr_of(const struct unit_type *u)
{
	return u->kind == UNIT_FREERUN ? u->nfreerun : u->nctr;
}

int pmu_number(struct pmu *p, struct hw *hw, const struct topology *t,
	       bool addrs)
{
	uint64_t total = 1;	/* id 0: no register */

	memset(p, 0, sizeof(*p));
	p->clk = &clock_system;
	p->hw = hw;
	p->topo = t;
	p->plat = t->plat;
	for (unsigned s = 0; s < t->nsockets; s++)
		for (int ui = 0; t->plat->units[ui] && ui < PLAT_MAX_UNITS; ui++) {
			const struct unit_type *u = t->plat->units[ui];
			unsigned n = t->sock[s].ninst[ui];

			if (n > u->max_inst)
				n = u->max_inst;
			total += (uint64_t)n * (nctl_of(u) + nctr_of(u) +
						u->nfilters);
		}
	if (total > UINT32_MAX)
		return hw_fail(E2BIG, "%" PRIu64 " uncore registers: too many "
			       "to number", total);
	p->reg = calloc((size_t)total, sizeof(*p->reg));
	p->written = calloc((size_t)total, sizeof(*p->written));
	if (!p->reg || !p->written) {
		pmu_free(p);
		return hw_fail(ENOMEM, "out of memory for the table of %" PRIu64
			       " uncore registers", total);
	}
	p->nreg = 1;
	for (unsigned s = 0; s < t->nsockets; s++) {
		if (addrs && plat_has_global_ctl(t->plat))
			p->gctl[s] = hw_msr(t->sock[s].cpu,
					    t->plat->global_ctl.addr);
		for (int ui = 0; t->plat->units[ui] && ui < PLAT_MAX_UNITS; ui++) {
			const struct unit_type *u = t->plat->units[ui];
			struct pmu_block *b = &p->blk[s][ui];

			b->ninst = t->sock[s].ninst[ui] < u->max_inst
				   ? t->sock[s].ninst[ui] : u->max_inst;
			add_block(p, s, ui, b->ninst, nctl_of(u), PMU_REG_CTL,
				  &b->ctl, addrs ? plat_ctl_addr : NULL);
			add_block(p, s, ui, b->ninst, nctr_of(u), PMU_REG_CTR,
				  &b->ctr, !addrs ? NULL
					   : u->kind == UNIT_FREERUN
					   ? plat_freerun_addr : plat_ctr_addr);
			add_block(p, s, ui, b->ninst, u->nfilters, PMU_REG_FLT,
				  &b->flt, addrs ? plat_filter_addr : NULL);
		}
	}
	return 0;
}

void pmu_set_clock(struct pmu *p, const struct clock_src *clk)
{
	p->clk = clk;
}

void pmu_free(struct pmu *p)
{
	if (p->ops && p->ops->free)
		p->ops->free(p);
	free(p->reg);
	free(p->written);
	free(p->last_id);
	free(p->last_val);
	p->reg = NULL;
	p->written = p->last_id = NULL;
	p->last_val = NULL;
	p->nreg = p->nwritten = p->nlast = p->caplast = 0;
}

uint32_t pmu_reg_id(const struct pmu *p, unsigned socket, int unit,
		    unsigned inst, unsigned k, enum pmu_reg_kind kind)
{
	const struct unit_type *u;
	const struct pmu_block *b;
	unsigned per;

	if (socket >= p->topo->nsockets || unit < 0 ||
	    unit >= PLAT_MAX_UNITS || !p->reg)
		return PMU_NO_REG;
	u = p->plat->units[unit];
	b = &p->blk[socket][unit];
	per = kind == PMU_REG_CTL ? nctl_of(u) : kind == PMU_REG_CTR
	      ? nctr_of(u) : u->nfilters;
	if (inst >= b->ninst || k >= per)
		return PMU_NO_REG;
	return (kind == PMU_REG_CTL ? b->ctl : kind == PMU_REG_CTR ? b->ctr
					       : b->flt) + inst * per + k;
}

void pmu_slot(const struct pmu *p, struct pmu_slot *s, unsigned socket,
	      int unit, unsigned inst, unsigned idx)
{
	memset(s, 0, sizeof(*s));
	s->socket = (uint8_t)socket;
	s->unit = (int8_t)unit;
	s->inst = (uint8_t)inst;
	s->idx = (uint8_t)idx;
	s->ctr_id = pmu_reg_id(p, socket, unit, inst, idx, PMU_REG_CTR);
	p->ops->slot(p, s);
}

void pmu_filter_slot(const struct pmu *p, struct pmu_slot *fs,
		     const struct pmu_slot *sl, unsigned f, uint64_t val)
{
	*fs = *sl;
	fs->filter = true;
	fs->ctl_val = val;
	p->ops->filter(p, fs, f);
}

int pmu_encode(const struct pmu *p, struct pmu_slot *sl,
	       const struct evspec *e, char *why, size_t whylen)
{
	if (p->plat->units[e->unit]->kind == UNIT_FREERUN)
		return 0;	/* read, never programmed */
	return p->ops->encode(p, sl, e, why, whylen);
}

int pmu_read(struct pmu *p, const struct pmu_slot *s, uint64_t *raw)
{
	return p->ops->read(p, s, raw);
}

int pmu_read_now(struct pmu *p, const struct pmu_slot *s, unsigned n,
		 uint64_t *raw, int *err)
{
	int first = 0;

	/* perf: what the slots' groups count at this moment, one read(2) a
	 * group (the reads below then take the groups' values) */
	if (p->ops->read_now)
		(void)p->ops->read_now(p, s, n);
	for (unsigned k = 0; k < n; k++) {
		raw[k] = 0;
		err[k] = pmu_read(p, &s[k], &raw[k]);
		if (err[k] < 0 && !first)
			first = err[k];
	}
	return first;
}

bool pmu_read_anywhere(const struct pmu *p)
{
	/* a backend with a snapshot accounts what its reads found */
	return !p->ops->snapshot;
}

int pmu_busy(struct pmu *p, char *msg, size_t len)
{
	msg[0] = '\0';
	return p->ops->busy ? p->ops->busy(p, msg, len) : 0;
}

int pmu_foreign(struct pmu *p, char *msg, size_t len)
{
	msg[0] = '\0';
	return p->ops->foreign ? p->ops->foreign(p, msg, len) : 0;
}

int pmu_clear_all(struct pmu *p)
{
	return p->ops->clear_all(p);
}

int pmu_program(struct pmu *p, const struct pmu_slot *s, unsigned n,
		bool force)
{
	return p->ops->apply(p, s, n, force);
}

/* Records the midpoint t of a freeze (on = false) or unfreeze, which
 * took 2 * half ns: the window from the last unfreeze to this freeze,
 * and how far off it can be - the hardware switched somewhere inside
 * each write, so each edge is known to within half its write. */
static void stamp(struct pmu *p, bool on, uint64_t t, uint64_t half)
{
	if (on) {
		p->unfrozen_at = t;
		p->unfrozen_err = half;
		return;
	}
	if (p->unfrozen_at && t > p->unfrozen_at) {
		p->counted_ns = t - p->unfrozen_at;
		p->counted_err_ns = p->unfrozen_err + half;
	} else {
		p->counted_ns = 0;
		p->counted_err_ns = 0;
	}
	p->unfrozen_at = 0;
	p->unfrozen_err = 0;
}

int pmu_enable(struct pmu *p, bool on)
{
	enum pmu_window w = PMU_WINDOW_NONE;
	uint64_t t0 = clock_mono(p->clk), t1, half;
	int r = p->ops->enable(p, on, &w);

	t1 = clock_mono(p->clk);
	/* rounded up: an odd ns of the write is not lost */
	half = t1 > t0 ? (t1 - t0 + 1) / 2 : 0;
	p->stops = w == PMU_WINDOW_EDGES;
	if (w == PMU_WINDOW_EDGES) {
		stamp(p, on, t0 + (t1 - t0) / 2, half);
	} else if (w == PMU_WINDOW_READS) {
		/* a "freeze" is a read of counters that never stop: the
		 * window ends and the next starts at once */
		stamp(p, false, t0 + (t1 - t0) / 2, half);
		stamp(p, true, t0 + (t1 - t0) / 2, half);
	}
	return r;
}

uint64_t pmu_counted_ns(const struct pmu *p)
{
	return p->counted_ns;
}

uint64_t pmu_counted_err_ns(const struct pmu *p)
{
	return p->counted_err_ns;
}

bool pmu_window_uncertain(const struct pmu *p)
{
	/* err / counted > 1 %, in integers */
	return p->counted_ns && p->counted_err_ns > p->counted_ns / 100;
}

uint64_t pmu_stopped_counted_ns(const struct pmu *p)
{
	return p->stops ? p->counted_ns : 0;
}

uint64_t pmu_stopped_counted_err_ns(const struct pmu *p)
{
	return p->stops && p->counted_ns ? p->counted_err_ns : 0;
}

uint64_t pmu_window_start(const struct pmu *p)
{
	return p->stops ? p->unfrozen_at : 0;
}

uint64_t pmu_window_start_err(const struct pmu *p)
{
	return p->stops && p->unfrozen_at ? p->unfrozen_err : 0;
}

int pmu_check_global(struct pmu *p, unsigned socket, bool expect_on,
		     uint64_t *seen)
{
	*seen = 0;
	return p->ops->global_check ? p->ops->global_check(p, socket,
							   expect_on, seen)
				    : 0;
}

int pmu_reset_boxes(struct pmu *p)
{
	return p->ops->reset_boxes ? p->ops->reset_boxes(p) : 0;
}

int pmu_check_controls(struct pmu *p, bool all, char *msg, size_t len,
		       unsigned *unread)
{
	msg[0] = '\0';
	*unread = 0;
	return p->ops->check_controls ? p->ops->check_controls(p, all, msg,
							       len, unread)
				      : 0;
}

int pmu_release(struct pmu *p)
{
	int r = p->ops->release(p);

	p->owns = false;
	p->unfrozen_at = 0;	/* no window spans a release */
	p->unfrozen_err = 0;
	return r;
}

bool pmu_scaled(const struct pmu *p, const struct pmu_slot *s)
{
	return p->ops->scaled && p->ops->scaled(p, s);
}

uint64_t pmu_own_window_ns(const struct pmu *p, const struct pmu_slot *s)
{
	return p->ops->own_window ? p->ops->own_window(p, s, false) : 0;
}

uint64_t pmu_own_so_far_ns(const struct pmu *p, const struct pmu_slot *s)
{
	return p->ops->own_window ? p->ops->own_window(p, s, true) : 0;
}

int pmu_reachable(const struct pmu *p, const struct evspec *e, char *why,
		  size_t whylen)
{
	return p->ops->reachable ? p->ops->reachable(p, e, why, whylen) : 0;
}

bool pmu_present(const struct pmu *p, unsigned socket, int unit,
		 unsigned inst)
{
	return socket < p->topo->nsockets && unit >= 0 &&
	       topo_present(&p->topo->sock[socket], (unsigned)unit, inst) &&
	       !(p->ops->lost && p->ops->lost(p, socket, unit, inst));
}

uint64_t pmu_changes(const struct pmu *p)
{
	return p->ops->changes ? p->ops->changes(p) : 0;
}

int pmu_reprobe(struct pmu *p, char *msg, size_t len)
{
	if (len)
		msg[0] = '\0';
	return p->ops->reprobe ? p->ops->reprobe(p, msg, len) : 0;
}

int pmu_snapshot(struct pmu *p)
{
	return p->ops->snapshot ? p->ops->snapshot(p) : 0;
}
