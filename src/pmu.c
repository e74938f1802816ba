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
#include <string.h>

#include "pmu.h"

void pmu_init(struct pmu *p, struct hw *hw, const struct topology *t)
{
	memset(p, 0, sizeof(*p));
	p->hw = hw;
	p->topo = t;
	p->plat = t->plat;
	for (unsigned s = 0; s < t->nsockets; s++) {
		const struct topo_socket *ts = &t->sock[s];

		if (plat_has_global_ctl(t->plat))
			p->gctl[s] = hw_msr(ts->cpu, t->plat->global_ctl.addr);
		for (int ui = 0; t->plat->units[ui]; ui++) {
			const struct unit_type *u = t->plat->units[ui];

			if (u->kind == UNIT_FREERUN)
				continue;
			for (unsigned i = 0; i < ts->ninst[ui]; i++)
				for (unsigned c = 0; topo_present(ts, (unsigned)ui, i) &&
				     c < u->nctr && p->nctl < PMU_MAX_WRITTEN; c++) {
					p->ctl[p->nctl] = plat_ctl_addr(ts, u, i, c);
					p->ctl_unit[p->nctl++] = u;
				}
			for (unsigned i = 0; i < ts->ninst[ui]; i++)
				for (unsigned f = 0; topo_present(ts, (unsigned)ui, i) &&
				     f < u->nfilters && p->nflt < PMU_MAX_WRITTEN; f++) {
					struct hw_addr a = plat_filter_addr(ts, u, i, f);

					if (a.width)
						p->flt[p->nflt++] = a;
				}
		}
	}
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
}

int pmu_read(struct pmu *p, const struct pmu_slot *s, uint64_t *raw)
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

/* Did this daemon write v to a? */
static bool ours(const struct pmu *p, const struct hw_addr *a, uint64_t v)
{
	for (unsigned w = 0; w < p->nwritten; w++)
		if (memcmp(&p->written[w], a, sizeof(*a)) == 0)
			return p->written_val[w] == v;
	return false;
}

/* Counts (and lists) counting registers; skips ours if skip_ours. */
static int scan_busy(struct pmu *p, char *msg, size_t len, bool skip_ours)
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
	for (unsigned k = 0; k < p->nctl; k++) {
		if ((r = hw_read(p->hw, &p->ctl[k], &v)) < 0)
			return r;
		if (counting(p->ctl_unit[k], v) &&
		    !(skip_ours && ours(p, &p->ctl[k], v))) {
			note(msg, len, &p->ctl[k], v);
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

/* Writes a control register (as the unit requires: some must be written
 * twice, hsx 2.1.2) and remembers it for release. */
static int write_ctl(struct pmu *p, const struct unit_type *u,
		     const struct hw_addr *a, uint64_t v)
{
	unsigned i;

	for (i = 0; i < p->nwritten; i++)
		if (memcmp(&p->written[i], a, sizeof(*a)) == 0)
			break;
	if (i == p->nwritten && p->nwritten < PMU_MAX_WRITTEN) {
		p->written[p->nwritten] = *a;
		p->nwritten++;
	}
	if (i < PMU_MAX_WRITTEN) {
		p->written_val[i] = v;
		p->written_unit[i] = u;
	}
	return u ? plat_write_ctl(p->hw, u, a, v) : hw_write(p->hw, a, v);
}

int pmu_clear_all(struct pmu *p)
{
	int first = 0, r;

	for (unsigned s = 0; plat_has_global_ctl(p->plat) &&
	     s < p->topo->nsockets; s++)
		if ((r = hw_write(p->hw, &p->gctl[s], 0)) < 0 && !first)
			first = r;
	for (unsigned k = 0; k < p->nctl; k++)
		if ((r = hw_write(p->hw, &p->ctl[k], 0)) < 0 && !first)
			first = r;
	for (unsigned k = 0; k < p->nflt; k++)
		if ((r = hw_write(p->hw, &p->flt[k], 0)) < 0 && !first)
			first = r;
	return first;
}

int pmu_program(struct pmu *p, const struct pmu_slot *s, unsigned n,
		bool force)
{
	int first = 0, r;

	/* Clear what is no longer wanted first, so two slots never count
	 * the same position at once. */
	for (unsigned w = 0; w < p->nwritten; w++) {
		bool wanted = false;

		if (!p->written_val[w])
			continue;
		for (unsigned i = 0; i < n && !wanted; i++)
			wanted = !s[i].freerun &&
				 memcmp(&s[i].ctl, &p->written[w],
					sizeof(s[i].ctl)) == 0;
		if (!wanted && (r = write_ctl(p, p->written_unit[w],
					      &p->written[w], 0)) < 0 && !first)
			first = r;
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned w;

		if (s[i].freerun)
			continue;
		for (w = 0; w < p->nwritten; w++)
			if (memcmp(&p->written[w], &s[i].ctl,
				   sizeof(s[i].ctl)) == 0)
				break;
		if (!force && w < p->nwritten &&
		    p->written_val[w] == s[i].ctl_val)
			continue;
		if ((r = write_ctl(p, s[i].filter ? NULL
					       : p->plat->units[s[i].unit],
				   &s[i].ctl, s[i].ctl_val)) < 0 && !first)
			first = r;
	}
	return first;
}

int pmu_enable(struct pmu *p, bool on)
{
	int first = 0, r;

	for (unsigned s = 0; p->plat->ops->global_enable &&
	     s < p->topo->nsockets; s++) {
		r = p->plat->ops->global_enable(p->hw, p->topo, s, on);
		if (r < 0 && !first)
			first = r;
	}
	if (on)
		p->owns = true;
	return first;
}

int pmu_check_global(struct pmu *p, unsigned socket, bool expect_on,
		     uint64_t *seen)
{
	*seen = 0;
	if (!p->plat->ops->check)
		return 0;	/* nothing readable (snbep) */
	return p->plat->ops->check(p->hw, p->topo, socket, expect_on, seen);
}

int pmu_reset_boxes(struct pmu *p)
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

int pmu_check_controls(struct pmu *p, char *msg, size_t len,
		       unsigned *unread)
{
	int bad = 0;
	uint64_t v;

	msg[0] = '\0';
	*unread = 0;
	for (unsigned w = 0; w < p->nwritten; w++) {
		/* one unreadable register must not hide the others */
		p->written_unread[w] = hw_read(p->hw, &p->written[w], &v) < 0;
		if (p->written_unread[w]) {
			(*unread)++;
			continue;
		}
		if (v != p->written_val[w]) {
			note(msg, len, &p->written[w], v);
			bad++;
		}
	}
	return bad;
}

int pmu_release(struct pmu *p)
{
	int first = 0, r;

	/* stop counting the platform's way (skl: EN = 0; hsx: frz_all;
	 * snbep: every box's frz) */
	if ((r = pmu_enable(p, false)) < 0)
		first = r;
	for (unsigned w = 0; w < p->nwritten; w++) {
		if ((r = hw_write(p->hw, &p->written[w], 0)) < 0 && !first)
			first = r;
		p->written_val[w] = 0;
	}
	p->owns = false;
	return first;
}
