/*
 * pmu_direct.c - the direct backend of the PMU layer (see pmu.h): the
 * daemon programs the uncore's registers itself, through hw (MSRs, PCI
 * configuration space, MMIO), owns the global control, freezes around
 * each read, and on release leaves every control register it wrote
 * cleared and the PMU idle.
 *
 * Register addresses come from the platform tables; this file holds the
 * protocol: which registers to look at to decide whether somebody else is
 * using the PMU, which to write and in what order, and how to leave the
 * hardware idle.  It is the only code that writes control registers.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu.h"
#include "sched.h"

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
static int direct_busy(struct pmu *p, char *msg, size_t len, bool skip_ours)
{
	int busy = 0, r;
	uint64_t v;

	msg[0] = '\0';
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

static int direct_clear_all(struct pmu *p)
{
	int first = 0, r;

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

static int direct_program(struct pmu *p, const struct pmu_slot *s,
			  unsigned n, bool force)
{
	int first = 0, r;
	char as[64];

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

static int direct_busy_all(struct pmu *p, char *msg, size_t len)
{
	return direct_busy(p, msg, len, false);
}

static int direct_foreign(struct pmu *p, char *msg, size_t len)
{
	return direct_busy(p, msg, len, true);
}

/* Freezes or unfreezes every socket the platform's way (skl: EN; hsx:
 * frz_all/unfrz_all; snbep: every box's frz).  *w: the hardware stopped
 * or started counting, unless the platform cannot freeze. */
static int direct_enable(struct pmu *p, bool on, enum pmu_window *w)
{
	int first = 0, r;

	for (unsigned s = 0; p->plat->ops->global_enable &&
	     s < p->topo->nsockets; s++) {
		r = p->plat->ops->global_enable(p->hw, p->topo, s, on);
		if (r < 0 && !first)
			first = r;
	}
	*w = p->plat->ops->global_enable ? PMU_WINDOW_EDGES : PMU_WINDOW_NONE;
	if (on)
		p->owns = true;
	return first;
}

static int direct_check_global(struct pmu *p, unsigned socket, bool expect_on,
			       uint64_t *seen)
{
	if (p->plat->ops->check)
		return p->plat->ops->check(p->hw, p->topo, socket, expect_on,
					   seen);
	if (plat_has_global_ctl(p->plat))	/* the default */
		return plat_global_check(p->hw, p->topo, socket, expect_on,
					 seen);
	return 0;	/* nothing readable (snbep) */
}

static int direct_reset_boxes(struct pmu *p)
{
	int first = 0, r;

	if (!p->plat->ops->reset_boxes)
		return 0;
	for (unsigned s = 0; s < p->topo->nsockets; s++)
		if ((r = p->plat->ops->reset_boxes(p->hw, p->topo, s)) < 0 &&
		    !first)
			first = r;
	return first;
}

static int direct_check_controls(struct pmu *p, bool all, char *msg,
				 size_t len, unsigned *unread)
{
	int bad = 0;
	uint64_t v;

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

static int direct_release(struct pmu *p)
{
	int first = 0, r;

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

/* A core-scope counter is the sum over the socket's cores, modulo 2^64
 * like each of them. */
static int direct_read(struct pmu *p, const struct pmu_slot *s, uint64_t *raw)
{
	const struct topo_socket *ts = &p->topo->sock[s->socket];
	uint64_t sum = 0, v;
	int r;

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

/* The registers of slot s (its position already set). */
static void direct_slot(const struct pmu *p, struct pmu_slot *s)
{
	const struct topo_socket *ts = &p->topo->sock[s->socket];
	const struct unit_type *u = p->plat->units[s->unit];

	s->live = !plat_unit_freezable(p->plat, s->unit);
	if (u->kind == UNIT_FREERUN) {
		s->freerun = true;
		s->width = u->freerun[s->idx].width;
		s->ctr = plat_freerun_addr(ts, u, s->inst, s->idx);
		s->core_scope = u->freerun[s->idx].core_scope && ts->ncores;
		return;
	}
	s->width = u->width;
	s->ctl = plat_ctl_addr(ts, u, s->inst, s->idx);
	s->ctr = plat_ctr_addr(ts, u, s->inst, s->idx);
	s->ctl_id = pmu_reg_id(p, s->socket, s->unit, s->inst, s->idx,
			       PMU_REG_CTL);
}

static void direct_filter(const struct pmu *p, struct pmu_slot *fs,
			  unsigned f)
{
	const struct unit_type *u = p->plat->units[fs->unit];

	fs->ctl = plat_filter_addr(&p->topo->sock[fs->socket], u, fs->inst, f);
	fs->ctl_id = fs->ctl.width ? pmu_reg_id(p, fs->socket, fs->unit,
						fs->inst, f, PMU_REG_FLT)
				   : PMU_NO_REG;
}

/* The control register's value: the fixed counter's enable bit, or the
 * event select through plat_encode_event(). */
static int direct_encode(const struct pmu *p, struct pmu_slot *sl,
			 const struct evspec *e, char *why, size_t whylen)
{
	const struct unit_type *u = p->plat->units[e->unit];

	if (u->kind == UNIT_FIXED) {
		sl->ctl_val = 1ull << u->fmt.en_bit;
		return 0;
	}
	return sched_encode(u, e, sl->idx, &sl->ctl_val, why, whylen) < 0
	       ? -EINVAL : 0;
}

const struct pmu_ops pmu_direct_ops = {
	.name = "direct",
	.slot = direct_slot,
	.filter = direct_filter,
	.encode = direct_encode,
	.read = direct_read,
	.busy = direct_busy_all,
	.foreign = direct_foreign,
	.clear_all = direct_clear_all,
	.apply = direct_program,
	.enable = direct_enable,
	.global_check = direct_check_global,
	.reset_boxes = direct_reset_boxes,
	.check_controls = direct_check_controls,
	.release = direct_release,
};

int pmu_init(struct pmu *p, struct hw *hw, const struct topology *t)
{
	int r = pmu_number(p, hw, t, true);

	if (r == 0)
		p->ops = &pmu_direct_ops;
	return r;
}
