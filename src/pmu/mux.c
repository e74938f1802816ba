/*
 * mux.c - groups, their series, reading, accounting and placement (see
 * mux.h).  Runs on the sampling thread only.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "mux.h"


/* ---- series ------------------------------------------------------------ */

int mux_encode(const struct pmu *pmu, const struct evspec *ev,
	       const int *ctr, struct pmu_slot *slot, const int *sev,
	       unsigned ns, char *why, size_t whylen)
{
	const struct platform *pl = pmu->plat;

	for (unsigned k = 0; k < ns; k++) {
		struct pmu_slot *sl = &slot[k];
		const struct evspec *e = &ev[sev[k]];
		const struct unit_type *u = pl->units[e->unit];
		int c = ctr[sev[k]];

		if (u->kind == UNIT_FREERUN)
			c = e->freerun;
		else if (u->kind == UNIT_FIXED)
			c = 0;
		if (c < 0) {
			snprintf(why, whylen, "%s has no counter", e->name);
			return -EINVAL;
		}
		pmu_slot(pmu, sl, sl->socket, sl->unit, sl->inst, (unsigned)c);
		if (pmu_encode(pmu, sl, e, why, whylen) < 0)
			return -EINVAL;
	}
	return 0;
}

int mux_slots(const struct pmu *pmu, const struct evspec *ev, unsigned nev,
	      const int *ctr, struct pmu_slot **slot, int **sev, unsigned *ns,
	      char *why, size_t whylen)
{
	const struct topology *t = pmu->topo;
	unsigned cap = 0, n = 0;
	struct pmu_slot *sl;
	int *se;

	for (unsigned s = 0; s < t->nsockets; s++)
		for (unsigned i = 0; i < nev; i++)
			cap += t->sock[s].ninst[ev[i].unit];
	sl = calloc(cap ? cap : 1, sizeof(*sl));
	se = calloc(cap ? cap : 1, sizeof(*se));
	if (!sl || !se) {
		free(sl);
		free(se);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned s = 0; s < t->nsockets; s++)
		for (unsigned i = 0; i < nev; i++) {
			unsigned u = (unsigned)ev[i].unit;

			for (unsigned in = 0; in < t->sock[s].ninst[u]; in++) {
				if (!pmu_present(pmu, s, (int)u, in) ||
				    !evspec_on(&ev[i], in))
					continue;	/* absent or lost, or split */
				sl[n].socket = (uint8_t)s;
				sl[n].unit = (int8_t)u;
				sl[n].inst = (uint8_t)in;
				sl[n].freerun = pmu->plat->units[u]->kind ==
						UNIT_FREERUN;
				sl[n].live = !plat_unit_freezable(pmu->plat,
								  (int)u);
				se[n++] = (int)i;
			}
		}
	if (ctr && mux_encode(pmu, ev, ctr, sl, se, n, why, whylen) < 0) {
		free(sl);
		free(se);
		return -EINVAL;
	}
	*slot = sl;
	*sev = se;
	*ns = n;
	return 0;
}

/* ---- groups ------------------------------------------------------------ */

void mux_init(struct mux *m, struct pmu *pmu)
{
	*m = (struct mux){ .pmu = pmu };
}

int mux_set_base(struct mux *m, struct group *base, unsigned n)
{
	unsigned nclaims = m->ng - m->nbase;

	if (!buf_grow_array((void **)&m->g, &m->capg, n + nclaims + 1, sizeof(*m->g)))
		return -ENOMEM;
	memmove(m->g + n, m->g + m->nbase, nclaims * sizeof(*m->g));
	for (unsigned i = 0; i < n; i++)
		m->g[i] = &base[i];
	m->nbase = n;
	m->ng = n + nclaims;
	m->gen++;
	return 0;
}

static void group_free(struct group *g)
{
	if (!g)
		return;
	free(g->slot);
	free(g->sev);
	free(g->gs);
	free(g->own_ev);
	free(g);
}

void mux_free(struct mux *m)
{
	for (unsigned i = m->nbase; i < m->ng; i++)
		group_free(m->g[i]);
	free(m->g);
	free(m->tmp);
	free(m->sg);
	free(m->rd);
	free(m->want);
	sched_ws_free(&m->ws);
	*m = (struct mux){ 0 };
}

/* A claim's group, not placed yet (its counters come at a schedule). */
static struct group *group_new(const struct pmu *pmu, const struct mux_spec *sp)
{
	struct group *g = calloc(1, sizeof(*g));
	char why[128];

	if (!g)
		return NULL;
	g->key = sp->key;
	g->own_ev = malloc(sp->nev * sizeof(*g->own_ev));
	if (!g->own_ev || sp->nev > SCHED_MAX_EVENTS ||
	    mux_slots(pmu, sp->ev, sp->nev, NULL, &g->slot, &g->sev, &g->ns,
		      why, sizeof(why)) < 0 ||
	    !(g->gs = calloc(g->ns + 1, sizeof(*g->gs)))) {
		group_free(g);
		return NULL;
	}
	memcpy(g->own_ev, sp->ev, sp->nev * sizeof(*g->own_ev));
	g->ev = g->own_ev;
	g->nev = sp->nev;
	g->sg = (struct sched_group){ .ev = g->ev, .nev = g->nev,
				      .order = sp->key, .fixed = sp->pinned,
				      .pinned = sp->pinned };
	for (unsigned e = 0; e < SCHED_MAX_EVENTS; e++)
		g->sg.ctr[e] = sp->plan && e < sp->nev ? sp->plan[e] : -1;
	return g;
}

int mux_sync(struct mux *m, const struct mux_spec *sp, unsigned n)
{
	unsigned i = m->nbase, j = 0, k = m->nbase;
	int r = 0;

	if (!buf_grow_array((void **)&m->tmp, &m->captmp, n + m->nbase + 1,
		  sizeof(*m->tmp)))
		return -ENOMEM;
	memcpy(m->tmp, m->g, m->nbase * sizeof(*m->tmp));
	/* both sides ascend by key: one merge */
	while (i < m->ng || j < n) {
		if (j == n || (i < m->ng && m->g[i]->key < sp[j].key)) {
			group_free(m->g[i++]);		/* gone */
			m->gen++;
		} else if (i < m->ng && m->g[i]->key == sp[j].key) {
			struct group *g = m->g[i++];	/* stays */

			/* a pin that ended (max_pinned_s): its group
			 * takes turns from now on, from where it is */
			if (g->sg.pinned != sp[j].pinned ||
			    g->sg.fixed != sp[j].pinned)
				m->gen++;
			g->sg.pinned = g->sg.fixed = sp[j++].pinned;
			m->tmp[k++] = g;
		} else {
			struct group *g = group_new(m->pmu, &sp[j++]);

			m->gen++;	/* placed at the next schedule, or
					   retried there (ENOMEM) */
			if (g)
				m->tmp[k++] = g;
			else
				r = -ENOMEM;
		}
	}
	{
		struct group **t = m->g;
		unsigned c = m->capg;

		m->g = m->tmp;
		m->capg = m->captmp;
		m->tmp = t;
		m->captmp = c;
	}
	m->ng = k;
	return r;
}

/* ---- a tick ------------------------------------------------------------ */

void mux_begin(struct mux *m)
{
	m->tick++;
	m->jumps = 0;
}

/* A failed reading that no later one covers (the group stopped counting,
 * or failed too long): the time pending since the last reading that
 * worked was enabled, but its counts are lost - not running.  The next
 * delta stands for it (since_ns), scaled as a multiplexed group's is. */
static void lose_pending(struct group *g)
{
	for (unsigned k = 0; k < g->ns; k++)
		g->gs[k].own_pend = 0;
	g->enabled_ns += g->pend_enabled_ns;
	g->pend_enabled_ns = g->pend_running_ns = 0;
	g->pend_live_ns = g->pend_err_ns = 0;
	g->deferred = false;
}

void mux_charge(struct mux *m, uint64_t run_ns, uint64_t counted_ns,
		uint64_t counted_err_ns, bool yielded)
{
	for (unsigned i = 0; i < m->ng; i++) {
		struct group *g = m->g[i];

		/* A group's clock starts at its first tick: the interval
		 * before it existed (or before its first readings) is not
		 * charged to it. */
		g->counted = g->was_running && !yielded;
		g->ran_ns = 0;
		g->tick_ns = g->tick_live_ns = g->tick_err_ns = 0;
		/* a reading that failed is covered by the next one only
		 * while the group goes on counting */
		if (g->deferred && !g->counted)
			lose_pending(g);
		if (!g->seen) {
			g->seen = true;
			continue;
		}
		/* a pinned group started within the interval: from then */
		uint64_t ns = run_ns > g->late_ns ? run_ns - g->late_ns : 0;
		/* its frozen counters: from then to the freeze */
		uint64_t ran = !counted_ns ? ns : counted_ns > g->late_run_ns
			       ? counted_ns - g->late_run_ns : 0;

		g->late_ns = 0;
		g->late_run_ns = 0;
		g->enabled_ns += ns;
		g->since_ns += ns;
		g->tick_ns = ns;
		if (g->counted) {
			g->ran_ns = ran;
			g->running_ns += ran;
			g->live_running_ns += ns;
			g->tick_live_ns = ns;
			g->tick_err_ns = counted_ns ? counted_err_ns : 0;
			g->running_err_ns += g->tick_err_ns;
		}
		/* the baseline's groups in turn are served by intervals
		 * (mux_schedule()) */
		uint64_t w = i > 0 && i < m->nbase ? MUX_SERVICE_TICK : ns;

		g->srv_enabled -= g->srv_enabled / MUX_SERVICE_DECAY;
		g->srv_enabled += w;
		g->srv_running -= g->srv_running / MUX_SERVICE_DECAY;
		if (g->counted)
			g->srv_running += w;
	}
}

/* Logs a failed read of sl (err) through the limit of its unit and
 * errno: one unit failing, or one errno, does not hide another. */
static void read_failed(struct mux *m, const struct pmu_slot *sl, int err)
{
	struct mux_read_limit *x = NULL;

	for (unsigned i = 0; i < m->nlim_read && !x; i++)
		if (m->lim_read[i].unit == sl->unit && m->lim_read[i].err == err)
			x = &m->lim_read[i];
	if (!x && m->nlim_read < MUX_READ_LIMITS) {
		x = &m->lim_read[m->nlim_read++];
		x->unit = sl->unit;
		x->err = err;
	}
	if (!x)
		x = &m->lim_read[MUX_READ_LIMITS - 1];
	log_warnx_limited(&x->lim, "%s", hw_last_error());
}

/* Reads a counter once per tick: later reads of the same register in the
 * same tick (a counter shared by groups) reuse the value, found by its
 * register id.  0 or -errno. */
static int read_once(struct mux *m, const struct pmu_slot *sl, uint64_t *v)
{
	struct mux_rd *r;

	if (sl->ctr_id == PMU_NO_REG || sl->ctr_id >= m->pmu->nreg) {
		int err = pmu_read(m->pmu, sl, v);	/* no id: uncached */

		if (err < 0)
			read_failed(m, sl, err);
		return err;
	}
	if (!m->rd && !(m->rd = calloc(m->pmu->nreg, sizeof(*m->rd))))
		return -ENOMEM;
	r = &m->rd[sl->ctr_id];
	if (r->tick == m->tick) {
		*v = r->v;
		return r->err;
	}
	r->tick = m->tick;
	r->v = 0;
	r->err = pmu_read(m->pmu, sl, &r->v);
	if (r->err < 0)
		read_failed(m, sl, r->err);
	*v = r->v;
	return r->err;
}

double mux_max_rate(const struct platform *pl, const struct pmu_slot *s,
		    const struct evspec *e)
{
	const struct unit_type *u = pl->units[s->unit];

	if (s->freerun)
		return u->freerun[s->idx].max_rate;
	return plat_event_max_rate(u, e ? e->ev : NULL);
}

unsigned mux_half_wrap_ms(unsigned width, double rate)
{
	double half = rate > 0 ? ldexp(1.0, (int)width) / rate / 2 : 3600.0;

	return (unsigned)((half < 3600.0 ? half : 3600.0) * 1000);
}

unsigned evspec_max_interval_ms(const struct pmu *p, const struct evspec *e)
{
	const struct unit_type *u = p->plat->units[e->unit];
	bool fr = u->kind == UNIT_FREERUN && e->freerun >= 0;
	unsigned width = fr ? u->freerun[e->freerun].width : u->width;

	if (p->perf)
		width = 64;	/* the kernel extends every count */
	return mux_half_wrap_ms(width, fr ? u->freerun[e->freerun].max_rate
					  : plat_event_max_rate(u, e->ev));
}

/*
 * Could the counter of sl, counting e, have counted delta in ns
 * nanoseconds?  The bound is the event's maximum rate from the platform
 * tables (its largest increment per cycle at the highest clock, else its
 * unit's; a free-running counter's own) over twice the interval plus 100
 * ms (the reads of one tick are not simultaneous, and a loaded machine
 * delays them).  A counter reset to 0 by another agent reads as a delta
 * near 2^width, far above it.  If not, the jump is counted for this tick
 * and described once.
 */
static bool plausible(struct mux *m, const struct pmu_slot *sl,
		      const struct evspec *e, uint64_t delta, uint64_t ns)
{
	double rate = mux_max_rate(m->pmu->plat, sl, e);
	double bound = rate * ((double)ns * 2 + 100e6) / 1e9;

	if (rate <= 0 || (double)delta <= bound)
		return true;
	if (!m->jumps++)
		snprintf(m->jump_what, sizeof(m->jump_what), "%s %u on socket "
			 "%u counter %u advanced by %" PRIu64 " in %.3f s, more "
			 "than its maximum rate (%.3g/s) allows",
			 m->pmu->plat->units[sl->unit]->name, sl->inst,
			 sl->socket, sl->idx, delta, (double)ns / 1e9, rate);
	return false;
}

/*
 * Accounts one series' reading.  run_ns: how long the counter counted,
 * since_ns: the time the reading stands for (>= run_ns when the group was
 * multiplexed out before).  Returns the delta, or -1 if it is not valid.
 */
static int64_t account_raw(struct mux *m, struct gseries *gs,
			   const struct pmu_slot *sl, const struct evspec *e,
			   bool disturbed, uint64_t run_ns, uint64_t since_ns,
			   uint64_t raw)
{
	uint64_t delta;

	gs->up = 1;
	if (!gs->have_last || disturbed) {
		gs->last_raw = raw;
		gs->have_last = 1;
		return -1;
	}
	delta = (raw - gs->last_raw) & width_mask(sl->width);
	if (!plausible(m, sl, e, delta, since_ns > run_ns ? since_ns : run_ns)) {
		/* a reset or a write by another agent, not a wrap: no data */
		gs->last_raw = raw;
		return -1;
	}
	if (raw < gs->last_raw)
		m->wraps++;
	gs->last_raw = raw;
	gs->raw += delta;
	gs->est += run_ns && since_ns > run_ns
		   ? (uint64_t)((unsigned __int128)delta * since_ns / run_ns)
		   : delta;
	return (int64_t)delta;
}

/* As account_raw(), the counter read now; a failed read leaves no
 * baseline (the baseline's series: the tick is invalid, the next
 * reading starts again). */
static int64_t account(struct mux *m, struct gseries *gs,
		       const struct pmu_slot *sl, const struct evspec *e,
		       bool disturbed, uint64_t run_ns, uint64_t since_ns)
{
	uint64_t raw;

	if (read_once(m, sl, &raw) < 0) {
		gs->up = 0;
		gs->have_last = 0;
		return -1;
	}
	return account_raw(m, gs, sl, e, disturbed, run_ns, since_ns, raw);
}

static bool unverified(const struct mux *m, const struct pmu_slot *sl)
{
	return !sl->freerun && sl->socket < PLAT_MAX_SOCKETS && sl->unit >= 0 &&
	       sl->unit < PLAT_MAX_UNITS &&
	       iset_has(&m->unverified[sl->socket][sl->unit], sl->inst);
}

/* Encodes g's free-running series k, which needs no counter placed (the
 * unit's own).  0, or -1 (said in the log) if it cannot be encoded. */
static int encode_freerun(struct mux *m, struct group *g, unsigned k)
{
	int none[SCHED_MAX_EVENTS];
	char why[160];

	for (unsigned e = 0; e < SCHED_MAX_EVENTS; e++)
		none[e] = -1;
	if (mux_encode(m->pmu, g->ev, none, &g->slot[k], &g->sev[k], 1, why,
		       sizeof(why)) < 0) {
		read_failed(m, &g->slot[k], hw_fail(EINVAL, "cannot encode a "
			    "claim's free-running event: %s", why));
		return -1;
	}
	return 0;
}

/* Reads every series of g of one kind (live: counting while frozen, or
 * stopped by the freeze) and accounts it; fills delta/invalid (the
 * baseline's; NULL for a claim's group).  A claim's group that counted
 * is only read here, and accounted by settle() once all its series are.
 */
/*
 * The time series k of g (a programmable counter the freeze stops)
 * counted in the interval just ended: its group's counting window, or,
 * for a group taking turns on a backend with its own clock (perf), the
 * counter's own counting time.  A turn rebuilds the kernel's groups
 * after the tick's reads, so a new group counts from its open, later
 * than the tick; its running total, scaled from that window to the
 * rotation (account_raw()), read low by the difference: the hsx/snbep
 * PCU's frequency limits 7 % low under a loaded CI run, 20 % with each
 * PCU read held 100 ms (issue 40; claims: settle()'s own_time()).
 */
static uint64_t turn_ran(const struct mux *m, const struct group *g,
			 unsigned k)
{
	uint64_t own;

	if (g->since_ns <= g->ran_ns)
		return g->ran_ns;	/* counting every interval */
	own = pmu_own_window_ns(m->pmu, &g->slot[k]);
	return own > g->gs[k].own_before ? own - g->gs[k].own_before
					  : g->ran_ns;
}

static void read_group(struct mux *m, struct group *g, bool live,
		       bool disturbed, bool yielded, uint64_t run_ns,
		       uint64_t *delta, uint64_t *invalid)
{
	for (unsigned k = 0; k < g->ns; k++) {
		const struct pmu_slot *sl = &g->slot[k];
		unsigned b = g->first + k;	/* in delta[], invalid[] */
		int64_t d;

		if (sl->live != live)
			continue;
		/* a claim this tick took (mux_sync()), not started now
		 * (mux_start_now() found it taken): its free-running series
		 * start here, at this reading, not at the next tick's */
		if (sl->freerun && !sl->width && encode_freerun(m, g, k) < 0) {
			g->gs[k].tick_err = -EINVAL;
			continue;
		}
		if (!delta && g->counted) {
			g->gs[k].tick_err = read_once(m, sl, &g->gs[k].tick_raw);
			continue;
		}
		if (!sl->freerun && (!g->was_running || yielded)) {
			if (invalid)
				invalid[b / 64] |= 1ull << (b % 64);
			continue;
		}
		/* the time the counter counted: a free-running one or one
		 * the freeze does not stop the wall time, the others their
		 * group's counting window (mux_charge()); the time its
		 * delta stands for: since the group last counted */
		d = account(m, &g->gs[k], sl, &g->ev[g->sev[k]],
			    !sl->freerun && (disturbed || unverified(m, sl)),
			    sl->freerun || sl->live ? run_ns : turn_ran(m, g, k),
			    sl->freerun ? run_ns : g->since_ns);
		if (delta) {
			delta[b] = d < 0 ? 0 : (uint64_t)d;
			if (d < 0)
				invalid[b / 64] |= 1ull << (b % 64);
		}
	}
}

void mux_read_live(struct mux *m, bool disturbed, bool yielded,
		   uint64_t run_ns, uint64_t *delta, uint64_t *invalid)
{
	for (unsigned i = 0; i < m->ng; i++)
		read_group(m, m->g[i], true, disturbed, yielded, run_ns,
			   i < m->nbase ? delta : NULL,
			   i < m->nbase ? invalid : NULL);
}

/* The longest a claim's reading that failed waits for one that works:
 * after that its counts are lost (lose_pending()), and the claim goes on
 * from its next reading. */
#define MUX_DEFER_MAX_NS (UINT64_C(10) * 1000000000)

/* The tick's reading of a claim's group failed: its counters count on,
 * and the next reading that works covers this tick too.  Until then,
 * what mux_charge() charged for it is pending (struct group). */
static void defer(struct mux *m, struct group *g)
{
	uint64_t max = MUX_DEFER_MAX_NS;

	g->enabled_ns -= g->tick_ns;
	g->pend_enabled_ns += g->tick_ns;
	g->running_ns -= g->ran_ns;
	g->pend_running_ns += g->ran_ns;
	g->live_running_ns -= g->tick_live_ns;
	g->pend_live_ns += g->tick_live_ns;
	g->running_err_ns -= g->tick_err_ns;
	g->pend_err_ns += g->tick_err_ns;
	g->deferred = true;
	for (unsigned k = 0; k < g->ns; k++) {
		/* a counter may not wrap twice unseen */
		uint64_t w = (uint64_t)evspec_max_interval_ms(m->pmu,
					&g->ev[g->sev[k]]) * 1000000;

		g->gs[k].up = g->gs[k].tick_err >= 0;
		max = w < max ? w : max;
		/* a box read this tick: its own time, which the next
		 * reading's delta covers too (a box whose read failed goes
		 * on adding to the next one's) */
		if (!g->slot[k].freerun)
			g->gs[k].own_pend += pmu_own_window_ns(m->pmu,
							       &g->slot[k]);
	}
	if (g->pend_enabled_ns <= max)
		return;
	lose_pending(g);
	for (unsigned k = 0; k < g->ns; k++)
		g->gs[k].have_last = 0;
}

/* What series k of g counted its delta over by the backend's own clock
 * (pmu_own_window_ns()), less the part before its starting value was
 * read; 0: unknown. */
static uint64_t own_of(const struct mux *m, const struct group *g,
		       unsigned k)
{
	uint64_t w = pmu_own_window_ns(m->pmu, &g->slot[k]);
	uint64_t b = g->gs[k].own_before;

	if (!w)
		return 0;	/* not known for this tick */
	w += g->gs[k].own_pend;

	return w > b ? w - b : 0;
}

/*
 * The time g's counters counted in the interval just ended by the
 * backend's own clock: the mean of its counters' own times (the boxes of
 * one tick are read one after another), or 0 where that is not known for
 * every one (the direct backend, whose freeze stops them all at once).
 * On the perf backend a turn that starts rebuilds the kernel's groups
 * after the tick's reads, so the new group counts from its open to its
 * box's read at the next tick, not the time between ticks (issue 40: a
 * claim taking turns read 1.5 % low under load, 16 % with a box's reads
 * held 20 ms).
 */
static uint64_t own_time(const struct mux *m, const struct group *g)
{
	uint64_t sum = 0, o;
	unsigned n = 0;

	for (unsigned k = 0; k < g->ns; k++) {
		if (g->slot[k].freerun)
			continue;
		if (!(o = own_of(m, g, k)))
			return 0;
		sum += o;
		n++;
	}
	return n ? sum / n : 0;
}

/*
 * Accounts a claim's group that counted in the interval just ended,
 * every series of it read (read_group()): all its deltas and its times
 * stand for the same interval, or none does.  A series whose read failed
 * defers the whole group (defer()); a series with no starting value (its
 * read when the group started failed) makes the reading everyone's new
 * start, the interval enabled but not running.  Returns whether the
 * reading was taken (the time the next one stands for starts again).
 */
static bool settle(struct mux *m, struct group *g, bool disturbed,
		   uint64_t run_ns)
{
	bool fresh = false;
	uint64_t own;

	for (unsigned k = 0; k < g->ns; k++) {
		if (g->gs[k].tick_err < 0) {
			defer(m, g);
			return false;
		}
		fresh |= !g->gs[k].have_last;
	}
	if (fresh) {
		lose_pending(g);
		g->running_ns -= g->ran_ns;
		g->live_running_ns -= g->tick_live_ns;
		g->running_err_ns -= g->tick_err_ns;
		for (unsigned k = 0; k < g->ns; k++) {
			g->gs[k].last_raw = g->gs[k].tick_raw;
			g->gs[k].have_last = 1;
			g->gs[k].own_before = 0;  /* from the tick's read on */
			g->gs[k].own_pend = 0;
			g->gs[k].up = 1;
		}
		return false;
	}
	own = own_time(m, g);
	for (unsigned k = 0; k < g->ns; k++) {
		const struct pmu_slot *sl = &g->slot[k];
		uint64_t wall = run_ns + g->pend_live_ns;
		uint64_t ran = sl->freerun || sl->live ? wall
			       : g->ran_ns + g->pend_running_ns;

		if (own && !sl->freerun) {
			ran = own_of(m, g, k);
			/* the group's running time grows by the mean */
			g->gs[k].run_adj += (int64_t)ran - (int64_t)own;
		}
		account_raw(m, &g->gs[k], sl, &g->ev[g->sev[k]],
			    !sl->freerun && (disturbed || unverified(m, sl)),
			    ran, sl->freerun ? wall : g->since_ns,
			    g->gs[k].tick_raw);
		g->gs[k].own_before = g->gs[k].own_pend = 0;
	}
	g->enabled_ns += g->pend_enabled_ns;
	g->running_ns += g->pend_running_ns;
	g->live_running_ns += g->pend_live_ns;
	g->running_err_ns += g->pend_err_ns;
	if (own) {
		/* what its counters counted, not the time between ticks */
		g->running_ns += own - (g->ran_ns + g->pend_running_ns);
		g->live_running_ns += own - (g->tick_live_ns + g->pend_live_ns);
		g->running_ns = g->running_ns < g->enabled_ns ? g->running_ns
							      : g->enabled_ns;
		g->live_running_ns = g->live_running_ns < g->enabled_ns
				     ? g->live_running_ns : g->enabled_ns;
		g->ran_ns = own;
	}
	g->pend_enabled_ns = g->pend_running_ns = 0;
	g->pend_live_ns = g->pend_err_ns = 0;
	g->deferred = false;
	return true;
}

void mux_read_counters(struct mux *m, bool disturbed, bool yielded,
		       uint64_t run_ns, uint64_t *delta, uint64_t *invalid)
{
	for (unsigned i = 0; i < m->ng; i++)
		read_group(m, m->g[i], false, disturbed, yielded, run_ns,
			   i < m->nbase ? delta : NULL,
			   i < m->nbase ? invalid : NULL);
	/* the readings just taken stand for the time since each group last
	 * counted: start that time again */
	for (unsigned i = 0; i < m->ng; i++) {
		struct group *g = m->g[i];

		if (i >= m->nbase && g->counted &&
		    !settle(m, g, disturbed, run_ns))
			continue;
		if (g->was_running && !yielded)
			g->since_ns = 0;
	}
}

void mux_own_windows(struct mux *m, uint64_t run_ns, uint64_t counted_ns,
		     uint64_t *delta, const uint64_t *invalid)
{
	for (unsigned i = 0; i < m->nbase; i++) {
		const struct group *g = m->g[i];

		for (unsigned k = 0; k < g->ns; k++) {
			const struct pmu_slot *sl = &g->slot[k];
			unsigned b = g->first + k;
			uint64_t own, win = sl->live || !counted_ns ? run_ns
								   : counted_ns;

			if (invalid[b / 64] >> (b % 64) & 1 || !win ||
			    !(own = pmu_own_window_ns(m->pmu, sl)))
				continue;
			delta[b] = (uint64_t)(((unsigned __int128)delta[b] * win +
					       own / 2) / own);
		}
	}
}

/* The filter slots of series sl counting e (into want); how many. */
static unsigned filter_slots(const struct pmu *pmu, const struct evspec *e,
			     const struct pmu_slot *sl, struct pmu_slot *want)
{
	unsigned n = 0;

	for (unsigned f = 0; f < PLAT_MAX_FILTERS; f++)
		if (e->filt_set >> f & 1)
			pmu_filter_slot(pmu, &want[n++], sl, f, e->filt[f]);
	return n;
}

unsigned mux_controls(const struct pmu *pmu, const struct evspec *ev,
		      const struct pmu_slot *slot, const int *sev, unsigned ns,
		      struct pmu_slot *want)
{
	unsigned n = 0;

	for (unsigned k = 0; k < ns; k++) {
		if (slot[k].freerun)
			continue;
		want[n++] = slot[k];
		/* the box filter values the event needs */
		n += filter_slots(pmu, &ev[sev[k]], &slot[k], want + n);
	}
	return n;
}

/* Has a series of x no counter yet (a group never placed, or one that
 * mux_start_now() started with its free-running series only)? */
static bool unencoded(const struct group *x)
{
	for (unsigned k = 0; k < x->ns; k++)
		if (!x->slot[k].width)
			return true;
	return false;
}

/*
 * The starting values of claim group x's counters (live ones, or the
 * frozen ones) that have none, on a backend whose reads take what its
 * snapshot found (perf): the counters' groups are read now, once each,
 * so that every counter of the claim starts at this moment - a counter
 * whose kernel group was not rebuilt (one the baseline counts too) would
 * otherwise start at the tick's read, earlier than those rebuilt, and
 * the claim's one running time could not be theirs (issue 40).  What
 * each has counted since the tick's read is noted (own_before).
 * Whether a read failed is logged as start_values() does.
 */
static void claim_start(struct mux *m, struct group *x, bool live)
{
	uint64_t *raw;
	int *err;
	bool need = false;

	for (unsigned k = 0; k < x->ns && !need; k++)
		need = !x->slot[k].freerun && x->slot[k].live == live &&
		       !x->gs[k].have_last;
	if (!need)
		return;
	raw = calloc(x->ns, sizeof(*raw));
	err = calloc(x->ns, sizeof(*err));
	if (raw && err)
		(void)pmu_read_now(m->pmu, x->slot, x->ns, raw, err);
	for (unsigned k = 0; raw && err && k < x->ns; k++) {
		if (x->slot[k].freerun || x->slot[k].live != live ||
		    x->gs[k].have_last)
			continue;
		if (err[k] == 0) {
			x->gs[k].last_raw = raw[k];
			x->gs[k].have_last = 1;
			x->gs[k].own_before =
				pmu_own_so_far_ns(m->pmu, &x->slot[k]);
		} else if (err[k] != -ENODEV && err[k] != -ENOENT) {
			read_failed(m, &x->slot[k], err[k]);
		}
	}
	free(raw);
	free(err);
}

/*
 * Claim group x's reading failed (it is deferred: the next reading that
 * works was to cover the ticks since its last one) and a series of it
 * (live ones, or the frozen ones) is about to get its first starting
 * value now (its read when the group started failed too).  That series
 * has no count for the time pending, so the group starts again from now:
 * what was pending is lost (enabled, not running, lose_pending()) and
 * every series takes a starting value now, free-running ones too.
 * Before, the pending time was charged as running over a delta that
 * began now (issue 40: a fault over a claim's own start read 0.976 of
 * the rate on hsx direct, its first region 24 % low, unflagged).
 */
static void claim_restart(struct mux *m, struct group *x, bool live)
{
	bool need = false;

	if (!x->deferred)
		return;
	for (unsigned k = 0; k < x->ns && !need; k++)
		need = !x->slot[k].freerun && x->slot[k].live == live &&
		       !x->gs[k].have_last;
	if (!need)
		return;
	lose_pending(x);
	for (unsigned k = 0; k < x->ns; k++) {
		uint64_t raw;

		x->gs[k].have_last = 0;
		x->gs[k].own_before = 0;
		if (x->slot[k].freerun && pmu_read(m->pmu, &x->slot[k],
						   &raw) == 0) {
			x->gs[k].last_raw = raw;
			x->gs[k].have_last = 1;
		}
	}
}

/* Counters (live ones, or the frozen ones) of the groups that start
 * counting now: their current value is the baseline for the next
 * delta.  A failed read is logged as a tick's is: on the perf backend it
 * is the tick's group read, which read_group() does not look at for a
 * group that was not counting (the first tick), so nothing else would
 * say it failed.  A PMU that went away (ENODEV, ENOENT) is logged where
 * it was found gone. */
static void start_values(struct mux *m, bool live)
{
	for (unsigned i = 0; i < m->ng; i++) {
		struct group *x = m->g[i];

		if (!x->sg.selected)
			continue;
		if (i >= m->nbase)
			claim_restart(m, x, live);
		if (i >= m->nbase && !pmu_read_anywhere(m->pmu)) {
			claim_start(m, x, live);
			continue;
		}
		for (unsigned k = 0; k < x->ns; k++) {
			uint64_t raw;
			int err;

			if (x->slot[k].freerun || x->slot[k].live != live ||
			    x->gs[k].have_last)
				continue;
			err = pmu_read(m->pmu, &x->slot[k], &raw);
			if (err == 0) {
				x->gs[k].last_raw = raw;
				x->gs[k].have_last = 1;
				x->gs[k].own_before =
					pmu_own_so_far_ns(m->pmu, &x->slot[k]);
			} else if (err != -ENODEV && err != -ENOENT) {
				read_failed(m, &x->slot[k], err);
			}
		}
	}
}

void mux_schedule(struct mux *m, bool force)
{
	uint64_t changes = pmu_changes(m->pmu);
	bool steady = true;
	char why[160];

	if (!force && m->steady && m->steady_gen == m->gen &&
	    m->steady_changes == changes) {
		/* the groups, their placement and the PMU are as the last
		 * schedule left them, every group counting: nothing to place
		 * or program; counters whose read failed start again */
		m->skipped++;
		start_values(m, true);
		start_values(m, false);
		return;
	}
	m->steady = false;
	if (!buf_grow_array((void **)&m->sg, &m->capsg, m->ng, sizeof(*m->sg)))
		return;
	for (unsigned i = 0; i < m->ng; i++) {
		struct group *g = m->g[i];
		/* Service is recent (mux_charge()): a group that joins
		 * shares the counters at once, as if the others had just
		 * started too.  The baseline's groups in turn are served by
		 * intervals: the one served longest ago is the least served,
		 * ties go by order, so they run strictly one after the other
		 * and every group counts once in any k consecutive intervals
		 * (k groups), whatever the intervals' jitter - the counters'
		 * estimates are right over whole rotations.  Service in ns
		 * would let a group that counted in a short interval go again
		 * before one that counted in a long one. */
		m->sg[i] = &g->sg;
		g->sg.running = g->srv_running;
		g->sg.enabled = g->srv_enabled + 1;
	}
	sched_select(m->pmu->plat, m->sg, m->ng, &m->ws);
	m->nwant = 0;
	for (unsigned i = 0; i < m->ng; i++) {
		struct group *x = m->g[i];
		bool moved = x->sg.moved;

		if (!x->sg.selected) {
			steady = false;		/* taking turns */
			continue;
		}
		/* The baseline's groups (g[0..nbase)) were placed when
		 * their program was built and their slots belong to the
		 * published program, which readers render from: never
		 * rewrite them. */
		if (i >= m->nbase && (moved || unencoded(x) || force) &&
		    mux_encode(m->pmu, x->ev, x->sg.ctr, x->slot, x->sev, x->ns,
			       why, sizeof(why)) < 0) {
			log_warnx("cannot encode a claim's events: %s", why);
			x->sg.selected = false;
			steady = false;
			continue;
		}
		if (moved && x->deferred)
			lose_pending(x);	/* its counters are others now */
		if (!x->was_running || moved)
			for (unsigned k = 0; k < x->ns; k++)
				if (!x->slot[k].freerun)
					x->gs[k].have_last = 0;	/* new baseline */
		if (!x->was_running && i >= m->nbase)
			m->switches++;
		if (!buf_grow_array((void **)&m->want, &m->capwant,
			  m->nwant + CONTROLS_PER_SERIES * x->ns,
			  sizeof(*m->want))) {
			x->sg.selected = false;
			steady = false;
			continue;
		}
		m->nwant += mux_controls(m->pmu, x->ev, x->slot, x->sev,
					 x->ns, m->want + m->nwant);
	}
	if (pmu_program(m->pmu, m->want, m->nwant, force) < 0) {
		log_warnx("programming the counters: %s", hw_last_error());
		steady = false;		/* retried at the next tick */
	}
	for (unsigned i = 0; i < m->ng; i++)
		m->g[i]->was_running = m->g[i]->sg.selected;
	/* what programming found (a PMU lost) is the next tick's change */
	m->steady = steady;
	m->steady_gen = m->gen;
	m->steady_changes = changes;
	/* the counters the freeze does not stop count from their control
	 * write on: their starting values first, nearest the tick's read
	 * time their next delta is taken over */
	start_values(m, true);
	start_values(m, false);
}

void mux_idle(struct mux *m)
{
	m->gen++;
	for (unsigned i = 0; i < m->ng; i++)
		m->g[i]->was_running = false;
}

void mux_mark_unverified(struct mux *m, unsigned changed, unsigned unread)
{
	const struct pmu *pmu = m->pmu;

	/* cleared only when set: the sets are a few kB, and a tick with
	 * nothing unverified (nearly all) need not touch them */
	if (m->any_unverified)
		memset(m->unverified, 0, sizeof(m->unverified));
	m->any_unverified = false;
	if (!unread && !changed)
		return;
	for (unsigned w = 0; w < pmu->nwritten; w++) {
		const struct pmu_reg *g = &pmu->reg[pmu->written[w]];

		/* wanted by the last programming and not read back, or read
		 * back with another value */
		if ((g->unread || g->changed) && g->pass == pmu->pass &&
		    g->socket < PLAT_MAX_SOCKETS &&
		    g->unit >= 0 && g->unit < PLAT_MAX_UNITS) {
			iset_add(&m->unverified[g->socket][g->unit], g->inst);
			m->any_unverified = true;
		}
	}
	if (!unread)
		return;
	log_warnx_limited(&m->lim_unread, "interference check: %u control "
			  "register%s cannot be read back (%s); the series of "
			  "%s unit%s are marked invalid until they can", unread,
			  unread == 1 ? "" : "s", hw_last_error(),
			  unread == 1 ? "its" : "their", unread == 1 ? "" : "s");
}

/* ---- between ticks: read now, start a pinned claim ------------------- */

static int cmp_key(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key;
	uint64_t e = (*(struct group *const *)elem)->key;

	return k < e ? -1 : k > e;
}

/* The claim group with key, or NULL (g[nbase..ng) ascend by key). */
static struct group *find_group(struct mux *m, uint64_t key)
{
	struct group **f;

	if (m->ng <= m->nbase)
		return NULL;
	f = bsearch(&key, m->g + m->nbase, m->ng - m->nbase, sizeof(*m->g),
		    cmp_key);
	return f ? *f : NULL;
}

/* ---- the read-now snapshot --------------------------------------------- */

void mux_snap_put(struct mux_snap *sn)
{
	if (sn && atomic_fetch_sub(&sn->refs, 1) == 1)
		free(sn);
}

struct mux_snap *mux_snapshot(const struct mux *m, uint64_t t_read,
			      struct mux_snap *reuse)
{
	unsigned ng = 0, nser = 0, k = 0;
	struct mux_snap *sn;
	size_t size;
	char *p;

	for (unsigned i = m->nbase; i < m->ng; i++)
		if (m->g[i]->nev <= MUX_SNAP_MAX_EVENTS) {
			ng++;
			nser += m->g[i]->ns;
		}
	size = sizeof(*sn) + ng * sizeof(*sn->g) +
	       nser * (sizeof(*sn->ser) + sizeof(*sn->slot));
	if (reuse && reuse->size >= size) {
		sn = reuse;
		size = reuse->size;
	} else {
		free(reuse);
		if (!(sn = malloc(size)))
			return NULL;
	}
	atomic_init(&sn->refs, 1);
	sn->size = size;
	sn->gen = 0;
	sn->t_read = t_read;
	sn->t_run = pmu_window_start(m->pmu);
	sn->t_run_err = pmu_window_start_err(m->pmu);
	sn->ng = ng;
	p = (char *)(sn + 1);
	sn->g = (struct mux_snap_grp *)p;
	sn->slot = (struct pmu_slot *)(p + ng * sizeof(*sn->g));
	sn->ser = (struct mux_snap_ser *)((char *)sn->slot +
					  nser * sizeof(*sn->slot));
	ng = 0;
	for (unsigned i = m->nbase; i < m->ng; i++) {
		const struct group *g = m->g[i];
		struct mux_snap_grp *sg = &sn->g[ng];

		if (g->nev > MUX_SNAP_MAX_EVENTS)
			continue;
		*sg = (struct mux_snap_grp){
			.key = g->key, .enabled_ns = g->enabled_ns,
			.running_ns = g->running_ns, .since_ns = g->since_ns,
			.late_ns = g->late_ns, .late_run_ns = g->late_run_ns,
			.live_running_ns = g->live_running_ns,
			.running_err_ns = g->running_err_ns,
			.pend_enabled_ns = g->pend_enabled_ns,
			.pend_running_ns = g->pend_running_ns,
			.running = g->was_running,
			.seen = g->seen, .first = k, .ns = g->ns, .nev = g->nev,
		};
		for (unsigned e = 0; e < g->nev; e++)
			sg->ctr[e] = g->sg.ctr[e];
		for (unsigned j = 0; j < g->ns; j++, k++) {
			sn->slot[k] = g->slot[j];
			sn->ser[k] = (struct mux_snap_ser){
				.last_raw = g->gs[j].last_raw,
				.raw = g->gs[j].raw, .est = g->gs[j].est,
				.own_before = g->gs[j].own_before,
				.own_pend = g->gs[j].own_pend,
				.run_adj = g->gs[j].run_adj,
				.have_last = g->gs[j].have_last,
			};
		}
		ng++;
	}
	return sn;
}

static int cmp_snap_key(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key;
	uint64_t e = ((const struct mux_snap_grp *)elem)->key;

	return k < e ? -1 : k > e;
}

/* Series k of group g brought to now, el ns after its last reading that
 * worked (of which its frozen counters counted el_run; both count what a
 * failed tick left pending, which since_ns holds too), from the counter
 * value raw. */
static void snap_series_now(const struct mux_snap *sn,
			    const struct mux_snap_grp *g, unsigned k,
			    uint64_t el, uint64_t el_run, uint64_t raw,
			    struct mux_now *v)
{
	const struct mux_snap_ser *ss = &sn->ser[g->first + k];
	const struct pmu_slot *sl = &sn->slot[g->first + k];
	uint64_t d, stands, ran = sl->freerun || sl->live ? el : el_run;

	*v = (struct mux_now){ .raw = ss->raw, .est = ss->est };
	if ((!sl->freerun && !g->running) || !ss->have_last || !sl->width)
		return;		/* not counting now: the ticks' counts */
	d = (raw - ss->last_raw) & width_mask(sl->width);
	/* as account() will: the delta stands for the time since the
	 * group last counted (free-running: only the time it ran) */
	stands = sl->freerun ? el : g->since_ns + el - g->pend_enabled_ns;
	v->raw += d;
	v->est += ran && stands > ran
		  ? (uint64_t)((unsigned __int128)d * stands / ran) : d;
	v->up = true;
}

/* The time g's counters have counted since its last reading that worked,
 * by the backend's own clock (as own_time() at a tick; the counters read
 * just now): their mean, 0 unknown; each series' into per[k] (0 for a
 * free-running one), so that a series' own time less the mean is what
 * its run_adj grows by (struct gseries). */
static uint64_t own_now(const struct pmu *pmu, const struct mux_snap *sn,
			const struct mux_snap_grp *g, uint64_t *per)
{
	uint64_t sum = 0;
	unsigned n = 0;

	for (unsigned k = 0; k < g->ns; k++) {
		const struct pmu_slot *sl = &sn->slot[g->first + k];
		uint64_t a, b = sn->ser[g->first + k].own_before;

		per[k] = 0;
		if (sl->freerun)
			continue;
		if (!(a = pmu_own_so_far_ns(pmu, sl)))
			return 0;
		a += sn->ser[g->first + k].own_pend;
		if (a <= b)
			return 0;
		per[k] = a - b;
		sum += per[k];
		n++;
	}
	return n ? sum / n : 0;
}

int mux_snap_read(struct pmu *pmu, const struct mux_snap *sn, uint64_t key,
		  const struct clock_src *clk, struct mux_now *v, unsigned nv,
		  struct mux_reading *out)
{
	const struct mux_snap_grp *g = sn->ng ? bsearch(&key, sn->g, sn->ng,
						  sizeof(*sn->g), cmp_snap_key)
					      : NULL;
	uint64_t t0, t1, now, since, el, el_run, el_live, own = 0;
	bool stale = false;
	uint64_t *raw, *per;
	int *err;

	if (!g)
		return -ENOENT;
	raw = calloc(2 * (g->ns + 1), sizeof(*raw));
	err = calloc(g->ns + 1, sizeof(*err));
	if (!raw || !err) {
		free(raw);
		free(err);
		return -ENOMEM;
	}
	per = raw + g->ns + 1;	/* each series' own time (own_now()) */
	/* The counters are read somewhere between t0 and t1: a thread
	 * preempted between a time taken before the read and the read
	 * itself counted later than it said (issue 40: a 0.1 s region read
	 * 1.3 % high under load).  The reading's instant is the middle,
	 * give or take half the span. */
	t0 = clock_mono(clk);
	if (g->running) {
		/* one call for the group (a perf backend: one group read) */
		pmu_read_now(pmu, &sn->slot[g->first], g->ns, raw, err);
	} else {
		/* multiplexed out: only its free-running counters count */
		for (unsigned k = 0; k < g->ns; k++)
			if (sn->slot[g->first + k].freerun &&
			    sn->slot[g->first + k].width)
				pmu_read_now(pmu, &sn->slot[g->first + k], 1,
					     &raw[k], &err[k]);
	}
	t1 = clock_mono(clk);
	t1 = t1 > t0 ? t1 : t0;
	now = t0 + (t1 - t0) / 2;
	out->read_err_ns = t1 - now;
	out->nerr = 0;
	for (unsigned k = 0; k < g->ns; k++) {
		const struct pmu_slot *sl = &sn->slot[g->first + k];

		out->nerr += err[k] < 0;
		/* counting, but with no starting value: as a failed read */
		stale |= (sl->freerun || g->running) && sl->width &&
			 !sn->ser[g->first + k].have_last;
	}
	since = now > sn->t_read ? now - sn->t_read : 0;
	el = g->seen && since > g->late_ns ? since - g->late_ns : 0;
	el_run = el;
	if (g->seen && sn->t_run) {
		/* its frozen counters count from the unfreeze on */
		uint64_t w = now > sn->t_run ? now - sn->t_run : 0;

		el_run = w > g->late_run_ns ? w - g->late_run_ns : 0;
	}
	if (out->nerr || stale) {
		/* a counter not read now: the whole group as of its last
		 * reading that worked, counts and times of one instant
		 * (issue 40: now's times over a tick's counts read low) */
		el = el_run = el_live = 0;
		out->read_err_ns = 0;
	} else {
		/* what a failed tick left pending: counted, not yet read;
		 * on the perf backend the kernel's own clock says how long
		 * each counter counted since its last reading (own_time()) */
		own = g->running ? own_now(pmu, sn, g, per) : 0;
		el += g->pend_enabled_ns;
		el_run = own ? own : el_run + g->pend_running_ns;
		el_live = own ? own : el;
	}
	out->enabled_ns = g->enabled_ns + el;
	out->running = g->running;
	out->running_ns = g->running_ns + (g->running ? el_run : 0);
	out->live_running_ns = g->live_running_ns + (g->running ? el_live : 0);
	/* the window's start, if the group ran since it opened */
	out->running_err_ns = g->running_err_ns +
		(g->running && sn->t_run && !g->late_run_ns && el_run
		 ? sn->t_run_err : 0);
	for (unsigned e = 0; e < MUX_SNAP_MAX_EVENTS; e++)
		out->ctr[e] = e < g->nev ? g->ctr[e] : -1;
	out->ns = g->ns < nv ? g->ns : nv;
	for (unsigned k = 0; k < out->ns; k++) {
		if (out->nerr || stale)
			v[k] = (struct mux_now){ .raw = sn->ser[g->first + k].raw,
						 .est = sn->ser[g->first + k].est };
		else
			snap_series_now(sn, g, k, el, el_run, raw[k], &v[k]);
		/* how much longer than the group's own time series k
		 * counted since the tick (0 where that is not known) */
		v[k].run_adj = sn->ser[g->first + k].run_adj +
			       (own && per[k] ? (int64_t)per[k] - (int64_t)own
					      : 0);
	}
	free(raw);
	free(err);
	return 0;
}

void mux_held_now(const struct mux *m, struct sched_busy *b)
{
	memset(b->ctr, 0, sizeof(b->ctr));
	memset(b->filt_inst, 0, sizeof(b->filt_inst));
	for (unsigned i = 0; i < m->ng; i++) {
		const struct group *g = m->g[i];

		if (g->was_running)
			sched_occupy(m->pmu->plat, g->ev, g->nev, g->sg.ctr, b);
	}
}

/* A placement of sp on counters free in the current interval into ctr: a
 * pinned claim's own, else any.  0, -EBUSY or -ENOMEM. */
static int fits_now(const struct mux *m, const struct mux_spec *sp, int *ctr)
{
	struct sched_busy *b = malloc(sizeof(*b));
	char why[128];
	int r = 0;

	if (!b)
		return -ENOMEM;
	mux_held_now(m, b);
	memcpy(ctr, sp->plan, sp->nev * sizeof(*ctr));
	if (sp->pinned) {
		if (!sched_try_occupy(m->pmu->plat, sp->ev, sp->nev, ctr, b))
			r = -EBUSY;
	} else if (sched_place_busy(m->pmu->plat, sp->ev, sp->nev, b, ctr,
				    why, sizeof(why)) < 0) {
		r = -EBUSY;
	}
	free(b);
	return r;
}

/* Programs g's controls beside those of the groups counting in this
 * interval (pmu_program() writes only what changed, and clears the
 * controls of groups dropped since the tick) and takes its counters'
 * starting values. */
static int program_now(struct mux *m, struct group *g)
{
	unsigned n;
	int r;

	m->nwant = 0;
	for (unsigned i = 0; i < m->ng; i++) {
		const struct group *x = m->g[i];

		if (!x->was_running)
			continue;
		if (!buf_grow_array((void **)&m->want, &m->capwant,
			  m->nwant + CONTROLS_PER_SERIES * x->ns,
			  sizeof(*m->want)))
			return -ENOMEM;
		m->nwant += mux_controls(m->pmu, x->ev, x->slot, x->sev, x->ns,
					 m->want + m->nwant);
	}
	if (!buf_grow_array((void **)&m->want, &m->capwant,
		  m->nwant + CONTROLS_PER_SERIES * g->ns, sizeof(*m->want)))
		return -ENOMEM;
	n = mux_controls(m->pmu, g->ev, g->slot, g->sev, g->ns,
			 m->want + m->nwant);
	if ((r = pmu_program(m->pmu, m->want, m->nwant + n, false)) < 0)
		return r;
	m->nwant += n;
	/* free-running ones too: its counts start now, not at a tick */
	if (!pmu_read_anywhere(m->pmu)) {
		claim_start(m, g, false);	/* perf: every group read now */
		claim_start(m, g, true);
		for (unsigned k = 0; k < g->ns; k++) {
			uint64_t raw;

			if (g->slot[k].freerun &&
			    pmu_read(m->pmu, &g->slot[k], &raw) == 0) {
				g->gs[k].last_raw = raw;
				g->gs[k].have_last = 1;
			}
		}
		return 0;
	}
	for (unsigned k = 0; k < g->ns; k++) {
		uint64_t raw;

		if (pmu_read(m->pmu, &g->slot[k], &raw) == 0) {
			g->gs[k].last_raw = raw;
			g->gs[k].have_last = 1;
		}
	}
	return 0;
}

/* Takes g out of the claims' groups and frees it. */
static void remove_group(struct mux *m, struct group *g)
{
	for (unsigned i = m->nbase; i < m->ng; i++)
		if (m->g[i] == g) {
			memmove(&m->g[i], &m->g[i + 1],
				(m->ng - i - 1) * sizeof(*m->g));
			m->ng--;
			break;
		}
	group_free(g);
	m->gen++;
}

/* Puts g among the claims' groups, keys ascending. */
static int insert_group(struct mux *m, struct group *g)
{
	unsigned i = m->ng;

	if (!buf_grow_array((void **)&m->g, &m->capg, m->ng + 1, sizeof(*m->g)))
		return -ENOMEM;
	while (i > m->nbase && m->g[i - 1]->key > g->key) {
		m->g[i] = m->g[i - 1];
		i--;
	}
	m->g[i] = g;
	m->ng++;
	m->gen++;
	return 0;
}

/* Encodes g's free-running series only, and takes their starting values:
 * a group that waits for counters counts those from now. */
static void start_freerun(struct mux *m, struct group *g)
{
	for (unsigned k = 0; k < g->ns; k++) {
		uint64_t raw;

		if (!g->slot[k].freerun || encode_freerun(m, g, k) < 0 ||
		    pmu_read(m->pmu, &g->slot[k], &raw) < 0)
			continue;
		g->gs[k].last_raw = raw;
		g->gs[k].have_last = 1;
	}
}

int mux_start_now(struct mux *m, const struct mux_spec *sp,
		  uint64_t since_ns, int *placed)
{
	int ctr[SCHED_MAX_EVENTS];
	struct mux_spec now = *sp;
	struct group *g;
	uint64_t ws, now_ns;
	char why[160];
	int r, fits;

	if ((g = find_group(m, sp->key))) {
		/* a group mux_sync() made that no tick has seen: replaced */
		if (g->seen || g->was_running)
			return -EEXIST;
		remove_group(m, g);
	}
	if (sp->nev > SCHED_MAX_EVENTS)
		return -EINVAL;
	if ((fits = fits_now(m, sp, ctr)) < 0 && fits != -EBUSY)
		return fits;
	now.plan = fits == 0 ? ctr : sp->pinned ? sp->plan : NULL;
	if (!(g = group_new(m->pmu, &now)))
		return -ENOMEM;
	if (fits == 0 && mux_encode(m->pmu, g->ev, g->sg.ctr, g->slot, g->sev,
				    g->ns, why, sizeof(why)) < 0) {
		log_warnx("cannot encode a claim's events: %s", why);
		group_free(g);
		return -EINVAL;
	}
	r = fits == 0 ? program_now(m, g) : 0;
	if (fits != 0)
		start_freerun(m, g);
	if (r < 0 || (r = insert_group(m, g)) < 0) {
		group_free(g);
		return r;
	}
	/* its clock runs from now: the rest of the interval is its first
	 * (counting, or waiting for counters while its free-running
	 * series count); a placement made here is its own: moved stays
	 * false at the next tick */
	g->seen = true;
	g->late_ns = since_ns;
	ws = pmu_window_start(m->pmu);
	now_ns = clock_mono(m->pmu->clk);
	g->late_run_ns = ws && now_ns > ws ? now_ns - ws : since_ns;
	g->was_running = fits == 0;
	g->sg.selected = fits == 0;
	if (placed && fits == 0)
		memcpy(placed, ctr, sp->nev * sizeof(*placed));
	return fits;
}
