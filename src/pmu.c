/*
 * pmu.c - ownership and programming of the uncore PMU (see pmu.h).
 *
 * Register addresses come from the platform tables; this file holds the
 * protocol: which registers to look at to decide whether somebody else is
 * using the PMU, which to write and in what order, and how to leave the
 * hardware idle.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu.h"
#include "pmu_perf.h"
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

/* Numbers the registers of t (see pmu_init); addrs: with their
 * addresses (the direct backend). */
static int number(struct pmu *p, struct hw *hw, const struct topology *t,
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

int pmu_init(struct pmu *p, struct hw *hw, const struct topology *t)
{
	return number(p, hw, t, true);
}

int pmu_init_perf(struct pmu *p, struct hw *hw, const struct topology *t,
		  struct pmu_perf *pp)
{
	int r = number(p, hw, t, false);

	if (r < 0) {
		pmu_perf_free(pp);
		return r;
	}
	p->perf = pp;
	if ((r = pmu_perf_attach(p)) < 0)
		pmu_free(p);
	return r;
}

void pmu_set_clock(struct pmu *p, const struct clock_src *clk)
{
	p->clk = clk;
}

void pmu_free(struct pmu *p)
{
	if (p->perf)
		pmu_perf_detach(p);
	free(p->reg);
	free(p->written);
	free(p->last_id);
	free(p->last_val);
	p->reg = NULL;
	p->written = p->last_id = NULL;
	p->last_val = NULL;
	p->nreg = p->nwritten = p->nlast = p->caplast = 0;
}

/* The id of register k of a kind of instance inst of a unit on a
 * socket, or PMU_NO_REG. */
static uint32_t reg_id(const struct pmu *p, unsigned socket, int unit,
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
	const struct topo_socket *ts = &p->topo->sock[socket];
	const struct unit_type *u = p->plat->units[unit];

	memset(s, 0, sizeof(*s));
	s->socket = (uint8_t)socket;
	s->unit = (int8_t)unit;
	s->inst = (uint8_t)inst;
	s->idx = (uint8_t)idx;
	s->ctr_id = reg_id(p, socket, unit, inst, idx, PMU_REG_CTR);
	if (p->perf) {
		/* the kernel extends every counter to 64 bits */
		s->freerun = u->kind == UNIT_FREERUN;
		s->width = 64;
		if (!s->freerun)
			s->ctl_id = reg_id(p, socket, unit, inst, idx,
					   PMU_REG_CTL);
		return;
	}
	s->live = !plat_unit_freezable(p->plat, unit);
	if (u->kind == UNIT_FREERUN) {
		s->freerun = true;
		s->width = u->freerun[idx].width;
		s->ctr = plat_freerun_addr(ts, u, inst, idx);
		s->core_scope = u->freerun[idx].core_scope && ts->ncores;
		return;
	}
	s->width = u->width;
	s->ctl = plat_ctl_addr(ts, u, inst, idx);
	s->ctr = plat_ctr_addr(ts, u, inst, idx);
	s->ctl_id = reg_id(p, socket, unit, inst, idx, PMU_REG_CTL);
}

void pmu_filter_slot(const struct pmu *p, struct pmu_slot *fs,
		     const struct pmu_slot *sl, unsigned f, uint64_t val)
{
	const struct unit_type *u = p->plat->units[sl->unit];

	*fs = *sl;
	fs->filter = true;
	fs->ctl_val = val;
	if (p->perf) {
		/* the kernel programs the filter from the event's config1 */
		fs->ctl_id = PMU_NO_REG;
		return;
	}
	fs->ctl = plat_filter_addr(&p->topo->sock[sl->socket], u, sl->inst, f);
	fs->ctl_id = fs->ctl.width ? reg_id(p, sl->socket, sl->unit, sl->inst,
					    f, PMU_REG_FLT)
				   : PMU_NO_REG;
}

int pmu_read(struct pmu *p, const struct pmu_slot *s, uint64_t *raw)
{
	const struct topo_socket *ts = &p->topo->sock[s->socket];
	uint64_t sum = 0, v;
	int r;

	if (p->perf)
		return pmu_perf_read(p, s, raw);
	if (!s->core_scope)
		return hw_read(p->hw, &s->ctr, raw);
	for (unsigned c = 0; c < ts->ncores; c++) {
		struct hw_addr a = s->ctr;

		a.cpu = ts->core_cpu[c];
		if ((r = hw_read(p->hw, &a, &v)) < 0)
			return r;
		sum += v;
	}
	*raw = sum;
	return 0;
}

static bool counting(const struct unit_type *u, uint64_t ctl)
{
	return u->fmt.en_bit != 0xff && ((ctl >> u->fmt.en_bit) & 1);
}

/* Appends "what = value" to msg. */
static void note(char *msg, size_t len, const struct hw_addr *a, uint64_t v)
{
	size_t used = strlen(msg);
	char s[64];

	if (used + 1 >= len)
		return;
	snprintf(msg + used, len - used, "%s%s = 0x%" PRIx64,
		 used ? ", " : "", hw_addr_str(a, s, sizeof(s)), v);
}

/* Counts (and lists) counting registers; skips ours if skip_ours. */
static int scan_busy(struct pmu *p, char *msg, size_t len, bool skip_ours)
{
	int busy = 0, r;
	uint64_t v;

	msg[0] = '\0';
	if (p->perf)
		return 0;	/* the kernel arbitrates its counters */
	/* no global control (snbep): the counter controls tell it all */
	for (unsigned s = 0; plat_has_global_ctl(p->plat) &&
	     s < p->topo->nsockets; s++) {
		if ((r = hw_read(p->hw, &p->gctl[s], &v)) < 0)
			return r;
		if (v & p->plat->global_enable) {
			note(msg, len, &p->gctl[s], v);
			busy++;
		}
	}
	for (unsigned k = 1; k < p->nreg; k++) {
		const struct pmu_reg *g = &p->reg[k];

		if (g->kind != PMU_REG_CTL || !g->present)
			continue;
		if ((r = hw_read(p->hw, &g->a, &v)) < 0)
			return r;
		/* ours: still holds exactly what this daemon wrote */
		if (counting(g->u, v) &&
		    !(skip_ours && g->written && g->val == v)) {
			note(msg, len, &g->a, v);
			busy++;
		}
	}
	return busy;
}

int pmu_busy(struct pmu *p, char *msg, size_t len)
{
	return scan_busy(p, msg, len, false);
}

int pmu_foreign(struct pmu *p, char *msg, size_t len)
{
	return scan_busy(p, msg, len, true);
}

/* Writes register id (a counter control as its unit requires: some must
 * be written twice, hsx 2.1.2) and remembers it for release. */
static int write_reg(struct pmu *p, uint32_t id, uint64_t v)
{
	struct pmu_reg *g = &p->reg[id];

	if (!g->written) {
		g->written = true;
		p->written[p->nwritten++] = id;	/* sized for every id */
	}
	g->val = v;
	return g->kind == PMU_REG_CTL ? plat_write_ctl(p->hw, g->u, &g->a, v)
				      : hw_write(p->hw, &g->a, v);
}

int pmu_clear_all(struct pmu *p)
{
	int first = 0, r;

	if (p->perf)
		return pmu_perf_release(p);
	for (unsigned s = 0; plat_has_global_ctl(p->plat) &&
	     s < p->topo->nsockets; s++)
		if ((r = hw_write(p->hw, &p->gctl[s], 0)) < 0 && !first)
			first = r;
	for (unsigned k = 1; k < p->nreg; k++) {
		const struct pmu_reg *g = &p->reg[k];

		if (g->kind == PMU_REG_CTR || !g->present || !g->a.width)
			continue;
		if ((r = hw_write(p->hw, &g->a, 0)) < 0 && !first)
			first = r;
	}
	p->nlast = 0;
	return first;
}

/* Is s[0..n) the list pmu_program() wrote last? */
static bool same_as_last(const struct pmu *p, const struct pmu_slot *s,
			 unsigned n)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		if (s[i].freerun)
			continue;
		if (k == p->nlast || p->last_id[k] != s[i].ctl_id ||
		    p->last_val[k] != s[i].ctl_val)
			return false;
		k++;
	}
	return k == p->nlast && k;
}

/* Remembers s[0..n) as the last programmed list (forgets on ENOMEM: the
 * next call then compares register by register). */
static void keep_last(struct pmu *p, const struct pmu_slot *s, unsigned n)
{
	p->nlast = 0;
	if (n > p->caplast) {
		uint32_t *id = realloc(p->last_id, n * sizeof(*id));
		uint64_t *val;

		if (id)
			p->last_id = id;
		val = id ? realloc(p->last_val, n * sizeof(*val)) : NULL;
		if (!val)
			return;
		p->last_val = val;
		p->caplast = n;
	}
	for (unsigned i = 0; i < n; i++)
		if (!s[i].freerun) {
			p->last_id[p->nlast] = s[i].ctl_id;
			p->last_val[p->nlast++] = s[i].ctl_val;
		}
}

int pmu_program(struct pmu *p, const struct pmu_slot *s, unsigned n,
		bool force)
{
	int first = 0, r;
	char as[64];

	if (p->perf)
		return pmu_perf_program(p, s, n, force);
	if (!force && same_as_last(p, s, n))
		return 0;
	p->pass++;
	for (unsigned i = 0; i < n; i++) {
		if (s[i].freerun)
			continue;
		if (s[i].ctl_id == PMU_NO_REG || s[i].ctl_id >= p->nreg) {
			if (!first)
				first = hw_fail(EINVAL, "%s is not a register "
						"of this PMU: not written",
						hw_addr_str(&s[i].ctl, as,
							    sizeof(as)));
			continue;
		}
		p->reg[s[i].ctl_id].pass = p->pass;
	}
	/* Clear what is no longer wanted first, so two slots never count
	 * the same position at once. */
	for (unsigned w = 0; w < p->nwritten; w++) {
		const struct pmu_reg *g = &p->reg[p->written[w]];

		if (g->val && g->pass != p->pass &&
		    (r = write_reg(p, p->written[w], 0)) < 0 && !first)
			first = r;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct pmu_reg *g;

		if (s[i].freerun || s[i].ctl_id == PMU_NO_REG ||
		    s[i].ctl_id >= p->nreg)
			continue;
		g = &p->reg[s[i].ctl_id];
		if (!force && g->written && g->val == s[i].ctl_val)
			continue;
		if ((r = write_reg(p, s[i].ctl_id, s[i].ctl_val)) < 0 && !first)
			first = r;
	}
	if (first)
		p->nlast = 0;	/* a failed write is retried next time */
	else
		keep_last(p, s, n);
	return first;
}

/* Records the midpoint t of a freeze (on = false) or unfreeze: the
 * window from the last unfreeze to this freeze. */
static void stamp(struct pmu *p, bool on, uint64_t t)
{
	if (on) {
		p->unfrozen_at = t;
		return;
	}
	p->counted_ns = p->unfrozen_at && t > p->unfrozen_at
			? t - p->unfrozen_at : 0;
	p->unfrozen_at = 0;
}

int pmu_enable(struct pmu *p, bool on)
{
	int first = 0, r;
	uint64_t t0 = clock_mono(p->clk), t1;

	if (p->perf) {
		/* Nothing stops the kernel's counters: the "freeze" is the
		 * moment every group is read, once, and the window is the
		 * time from one such read to the next. */
		p->owns = true;
		if (on)
			return 0;
		first = pmu_perf_snapshot(p);
		t1 = clock_mono(p->clk);
		stamp(p, false, t0 + (t1 - t0) / 2);
		stamp(p, true, t0 + (t1 - t0) / 2);
		return first;
	}
	for (unsigned s = 0; p->plat->ops->global_enable &&
	     s < p->topo->nsockets; s++) {
		r = p->plat->ops->global_enable(p->hw, p->topo, s, on);
		if (r < 0 && !first)
			first = r;
	}
	t1 = clock_mono(p->clk);
	/* nothing stops counting where nothing freezes: no window */
	if (p->plat->ops->global_enable)
		stamp(p, on, t0 + (t1 - t0) / 2);
	if (on)
		p->owns = true;
	return first;
}

uint64_t pmu_counted_ns(const struct pmu *p)
{
	return p->counted_ns;
}

int pmu_check_global(struct pmu *p, unsigned socket, bool expect_on,
		     uint64_t *seen)
{
	*seen = 0;
	if (p->perf)
		return 0;	/* no global control in perf mode */
	if (p->plat->ops->check)
		return p->plat->ops->check(p->hw, p->topo, socket, expect_on,
					   seen);
	if (plat_has_global_ctl(p->plat))	/* the default */
		return plat_global_check(p->hw, p->topo, socket, expect_on,
					 seen);
	return 0;	/* nothing readable (snbep) */
}

int pmu_reset_boxes(struct pmu *p)
{
	int first = 0, r;

	if (p->perf || !p->plat->ops->reset_boxes)
		return 0;
	for (unsigned s = 0; s < p->topo->nsockets; s++)
		if ((r = p->plat->ops->reset_boxes(p->hw, p->topo, s)) < 0 &&
		    !first)
			first = r;
	return first;
}

int pmu_check_controls(struct pmu *p, bool all, char *msg, size_t len,
		       unsigned *unread)
{
	int bad = 0;
	uint64_t v;

	msg[0] = '\0';
	*unread = 0;
	if (p->perf)
		return 0;	/* the kernel holds the controls */
	for (unsigned w = 0; w < p->nwritten; w++) {
		struct pmu_reg *g = &p->reg[p->written[w]];

		g->changed = g->unread = false;
		if (!all && g->pass != p->pass)
			continue;	/* not counting for us */
		/* one unreadable register must not hide the others */
		g->unread = hw_read(p->hw, &g->a, &v) < 0;
		if (g->unread) {
			(*unread)++;
			continue;
		}
		if (v != g->val) {
			g->changed = true;
			note(msg, len, &g->a, v);
			bad++;
		}
	}
	return bad;
}

int pmu_release(struct pmu *p)
{
	int first = 0, r;

	if (p->perf) {
		p->owns = false;
		p->unfrozen_at = 0;	/* no window spans a release */
		return pmu_perf_release(p);
	}
	/* stop counting the platform's way (skl: EN = 0; hsx: frz_all;
	 * snbep: every box's frz) */
	if ((r = pmu_enable(p, false)) < 0)
		first = r;
	for (unsigned w = 0; w < p->nwritten; w++) {
		struct pmu_reg *g = &p->reg[p->written[w]];

		if ((r = hw_write(p->hw, &g->a, 0)) < 0 && !first)
			first = r;
		g->val = 0;
	}
	p->nlast = 0;
	p->owns = false;
	return first;
}

int pmu_encode(const struct pmu *p, struct pmu_slot *sl,
	       const struct evspec *e, char *why, size_t whylen)
{
	const struct unit_type *u = p->plat->units[e->unit];

	if (u->kind == UNIT_FREERUN)
		return 0;	/* read, never programmed */
	if (p->perf)
		return pmu_perf_encode(p, sl, e, why, whylen);
	if (u->kind == UNIT_FIXED) {
		sl->ctl_val = 1ull << u->fmt.en_bit;
		return 0;
	}
	return sched_encode(u, e, sl->idx, &sl->ctl_val, why, whylen) < 0
	       ? -EINVAL : 0;
}

bool pmu_scaled(const struct pmu *p, const struct pmu_slot *s)
{
	return p->perf && pmu_perf_scaled(p, s);
}

int pmu_reachable(const struct pmu *p, const struct evspec *e, char *why,
		  size_t whylen)
{
	return p->perf ? pmu_perf_reachable(p, e, why, whylen) : 0;
}

int pmu_snapshot(struct pmu *p)
{
	return p->perf ? pmu_perf_snapshot(p) : 0;
}
