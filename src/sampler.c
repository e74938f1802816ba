/*
 * sampler.c - the sampling thread and its programs (see sampler.h).
 *
 * Everything in struct sampler below the "thread-private" line is touched
 * only by the sampling thread (or by a test calling sampler_tick() with
 * no thread running); readers see the sampler's work only through the two
 * lock-free rings of the current program, plus a few atomics.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "claims.h"
#include "sampler.h"

const double tick_bounds_s[TICK_BUCKETS] = {
	1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4,
	1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 1e-1,
};

struct sampler {
	struct pmu *pmu;
	struct claims *claims;		/* may be NULL */
	pthread_mutex_t lock;		/* guards cur, pending, cfg */
	struct program *cur;
	struct program *pending;
	struct sampler_cfg cfg, pending_cfg;
	bool have_pending_cfg;
	atomic_uint_fast64_t last_tick_mono;
	pthread_t thread;
	bool running;
	int tfd, efd;
	/* ---- thread-private ---- */
	struct program *prog;		/* the baseline being sampled */
	struct group base;		/* the baseline as a group */
	uint64_t *sample;		/* scratch sample */
	uint64_t *snapw;		/* scratch snapshot words */
	struct snap st;			/* running self-metrics */
	uint64_t last_mono;		/* time of the previous read */
	uint64_t tick_no;
	uint64_t gens;			/* programs installed so far */
	bool yielded;
	bool need_program;		/* (re)write the controls */
	unsigned interval_ms;		/* armed interval */
	/* per-tick scratch: raw values read, by counter register id (valid
	 * when tick is this tick's tick_no); pmu->nreg entries */
	struct rd { uint64_t tick, v; int err; } *rd;
	struct pmu_slot *want;		/* slots to program */
	unsigned nwant, capwant;
	/* unit instances whose control or filter registers the last check
	 * could not read back: their series are not trusted until a check
	 * reads them again */
	struct inst_set unverified[PLAT_MAX_SOCKETS][PLAT_MAX_UNITS];
	/* the derived counters' running totals (derive_tick(), in the
	 * plan's layout): sums of what each series added since it was last
	 * seen, so that no reload (a series moved to another counter and
	 * starting from 0, a changed split scale), claim or fault can make
	 * one go down; kept across programs (the layout depends on the
	 * platform and topology only) */
	double *acc;
	double *vals;			/* the values last published */
	uint64_t *inc;			/* per series: est - est_seen */
	void *dscratch;			/* derive_scratch_size() bytes */
	unsigned nacc;
	/* this tick: deltas above what the counter can count (a reset or a
	 * write by another agent), the first one described */
	unsigned jumps;
	char jump_what[200];
	struct log_limit lim_read, lim_unread, lim_global, lim_jump;
};

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- programs ------------------------------------------------------- */

void program_put(struct program *p)
{
	if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
		return;
	ring_free(p->samples);
	ring_free(p->snaps);
	derive_plan_free(p->dplan);
	free(p->slot);
	free(p->sev);
	free(p);
}

/* The derived-metric plan of p's series. */
static int program_plan(struct program *p, char *why, size_t whylen)
{
	struct derive_series *ser = calloc(p->ns + 1, sizeof(*ser));

	if (!ser) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < p->ns; i++)
		ser[i] = (struct derive_series){
			p->slot[i].socket, p->slot[i].inst,
			p->ev[p->sev[i]].name,
			p->evscale[p->sev[i]][p->slot[i].socket] };
	p->dplan = derive_plan_new(p->topo, ser, p->ns, why, whylen);
	free(ser);
	if (!p->dplan)
		return -EINVAL;
	p->nvals = derive_nvals(p->dplan);
	return 0;
}

struct program *program_new(const struct topology *t, const struct pmu *pmu,
			    const struct evspec *ev, unsigned nev,
			    unsigned ring_capacity, unsigned interval_ms,
			    char *why, size_t whylen)
{
	const struct platform *pl = t->plat;
	struct program *p;
	int ctr[SAMPLER_MAX_EVENTS];
	unsigned cap = 0;

	if (nev > SAMPLER_MAX_EVENTS) {
		snprintf(why, whylen, "too many events (%u, at most %d)", nev,
			 SAMPLER_MAX_EVENTS);
		return NULL;
	}
	if (sched_place(pl, ev, nev, NULL, ctr, why, whylen) < 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		goto oom;
	atomic_init(&p->refs, 1);
	p->plat = pl;
	p->topo = t;
	p->pmu = pmu;
	p->interval_ms = interval_ms;
	memcpy(p->ev, ev, nev * sizeof(*ev));
	p->nev = nev;
	memcpy(p->ctr, ctr, nev * sizeof(int));
	for (unsigned s = 0; s < t->nsockets; s++)
		for (unsigned i = 0; i < nev; i++)
			cap += t->sock[s].ninst[ev[i].unit];
	p->slot = calloc(cap ? cap : 1, sizeof(*p->slot));
	p->sev = calloc(cap ? cap : 1, sizeof(*p->sev));
	if (!p->slot || !p->sev)
		goto oom;
	for (unsigned s = 0; s < t->nsockets; s++)
		for (unsigned i = 0; i < nev; i++) {
			const struct unit_type *u = pl->units[ev[i].unit];

			for (unsigned in = 0; in < t->sock[s].ninst[ev[i].unit];
			     in++) {
				struct pmu_slot *se = &p->slot[p->ns];

				if (!topo_present(&t->sock[s],
						  (unsigned)ev[i].unit, in))
					continue;	/* that box is absent */
				p->evscale[i][s] += 1;	/* present */
				if (!evspec_on(&ev[i], in))
					continue;	/* split: not here */

				p->sev[p->ns++] = (int)i;
				pmu_slot(pmu, se, s, ev[i].unit, in,
					 (unsigned)ctr[i]);
				if (u->kind == UNIT_FIXED)
					se->ctl_val = 1ull << u->fmt.en_bit;
				else if (u->kind == UNIT_PROG &&
					 sched_encode(u, &ev[i], (unsigned)ctr[i],
						      &se->ctl_val, why,
						      whylen) < 0) {
					program_put(p);
					return NULL;
				}
			}
		}
	for (unsigned s = 0; s < t->nsockets; s++)
		for (unsigned i = 0; i < nev; i++) {
			unsigned counted = 0;

			for (unsigned k = 0; k < p->ns; k++)
				counted += p->sev[k] == (int)i &&
					   p->slot[k].socket == s;
			p->evscale[i][s] = counted ? p->evscale[i][s] / counted : 0;
		}
	if (program_plan(p, why, whylen) < 0) {
		program_put(p);
		return NULL;
	}
	p->samples = ring_new(ring_capacity, sample_words(p->ns));
	p->snaps = ring_new(4, snap_words(p->ns, p->nvals));
	if (!p->samples || !p->snaps)
		goto oom;
	return p;
oom:
	snprintf(why, whylen, "out of memory");
	program_put(p);
	return NULL;
}

/* Highest rate (events/s) a series' counter can see. */
static double series_max_rate(const struct platform *pl,
			      const struct pmu_slot *s)
{
	const struct unit_type *u = pl->units[s->unit];

	if (s->freerun)
		return u->freerun[s->idx].max_rate;
	return u->max_rate;
}

/* Half the wrap time (ms) of a width-bit counter at rate, capped. */
static unsigned half_wrap_ms(unsigned width, double rate)
{
	double half = rate > 0 ? ldexp(1.0, (int)width) / rate / 2 : 3600.0;

	return (unsigned)((half < 3600.0 ? half : 3600.0) * 1000);
}

unsigned program_max_interval_ms(const struct program *p)
{
	unsigned best = 3600000;

	for (unsigned i = 0; i < p->ns; i++) {
		unsigned h = half_wrap_ms(p->slot[i].width,
					  series_max_rate(p->plat, &p->slot[i]));

		if (h < best)
			best = h;
	}
	return best;
}

unsigned evspec_max_interval_ms(const struct platform *pl,
				const struct evspec *e)
{
	const struct unit_type *u = pl->units[e->unit];

	if (u->kind == UNIT_FREERUN && e->freerun >= 0)
		return half_wrap_ms(u->freerun[e->freerun].width,
				    u->freerun[e->freerun].max_rate);
	return half_wrap_ms(u->width, u->max_rate);
}

/* ---- sampler -------------------------------------------------------- */

struct sampler *sampler_new(struct pmu *pmu, struct program *prog,
			    const struct sampler_cfg *cfg, struct claims *cl)
{
	struct sampler *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->pmu = pmu;
	s->claims = cl;
	s->cfg = *cfg;
	s->interval_ms = cfg->interval_ms;
	pthread_mutex_init(&s->lock, NULL);
	s->pending = prog;	/* programmed at the first tick */
	s->tfd = s->efd = -1;
	s->st.owned = 1;
	return s;
}

static int arm(struct sampler *s)
{
	struct itimerspec its;
	uint64_t first = now_ns(CLOCK_MONOTONIC) +
			 (uint64_t)s->interval_ms * 1000000ull;

	its.it_value.tv_sec = (time_t)(first / 1000000000ull);
	its.it_value.tv_nsec = (long)(first % 1000000000ull);
	its.it_interval.tv_sec = s->interval_ms / 1000;
	its.it_interval.tv_nsec = (long)(s->interval_ms % 1000) * 1000000;
	return timerfd_settime(s->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0
	       ? -errno : 0;
}

static void *thread_main(void *arg)
{
	struct sampler *s = arg;
	struct pollfd pfd[2] = { { .fd = s->tfd, .events = POLLIN },
				 { .fd = s->efd, .events = POLLIN } };

	for (;;) {
		uint64_t n;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_warn("sampler: poll");
			break;
		}
		if (pfd[1].revents)
			break;
		if (read(s->tfd, &n, sizeof(n)) != sizeof(n))
			continue;
		if (n > 1)
			s->st.overruns += n - 1;
		sampler_tick(s);
	}
	return NULL;
}

int sampler_start(struct sampler *s)
{
	int r;

	s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	s->efd = eventfd(0, EFD_CLOEXEC);
	if (s->tfd < 0 || s->efd < 0)
		return -errno;
	if ((r = arm(s)) < 0)
		return r;
	r = pthread_create(&s->thread, NULL, thread_main, s);
	if (r)
		return -r;
	/* named for top -H, and so tests can find (and stop) this thread */
	pthread_setname_np(s->thread, "uncored-sample");
	s->running = true;
	return 0;
}

void sampler_stop(struct sampler *s)
{
	uint64_t one = 1;

	if (!s->running)
		return;
	if (write(s->efd, &one, sizeof(one)) < 0)
		log_warn("sampler: cannot wake the thread");
	pthread_join(s->thread, NULL);
	s->running = false;
}

void sampler_free(struct sampler *s)
{
	if (!s)
		return;
	sampler_stop(s);
	if (s->tfd >= 0)
		close(s->tfd);
	if (s->efd >= 0)
		close(s->efd);
	program_put(s->cur);
	program_put(s->pending);
	program_put(s->prog);
	free(s->base.gs);
	free(s->sample);
	free(s->snapw);
	free(s->acc);
	free(s->vals);
	free(s->inc);
	free(s->dscratch);
	free(s->rd);
	free(s->want);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

struct program *sampler_get(struct sampler *s)
{
	struct program *p;

	pthread_mutex_lock(&s->lock);
	p = s->cur;
	if (p)
		atomic_fetch_add(&p->refs, 1);
	pthread_mutex_unlock(&s->lock);
	return p;
}

void sampler_swap(struct sampler *s, struct program *p,
		  const struct sampler_cfg *cfg)
{
	struct program *old;

	pthread_mutex_lock(&s->lock);
	old = s->pending;
	s->pending = p;
	if (cfg) {
		s->pending_cfg = *cfg;
		s->have_pending_cfg = true;
	}
	pthread_mutex_unlock(&s->lock);
	program_put(old);
}

uint64_t sampler_last_tick(const struct sampler *s)
{
	return atomic_load(&((struct sampler *)s)->last_tick_mono);
}

struct sampler_cfg sampler_cfg(struct sampler *s)
{
	struct sampler_cfg c;

	pthread_mutex_lock(&s->lock);
	c = s->cfg;
	pthread_mutex_unlock(&s->lock);
	return c;
}

static bool same_series(const struct program *a, unsigned i,
			const struct program *b, unsigned j)
{
	return a->slot[i].ctr_id == b->slot[j].ctr_id &&
	       a->slot[i].ctl_val == b->slot[j].ctl_val &&
	       strcmp(a->ev[a->sev[i]].name, b->ev[b->sev[j]].name) == 0;
}

/* Installs a pending program: per-series state carried over where the
 * same counter keeps counting the same event. */
static int install(struct sampler *s, struct program *np)
{
	struct program *op = s->prog;
	struct gseries *gs = calloc(np->ns + 1, sizeof(*gs));
	uint64_t *sample = calloc(sample_words(np->ns), sizeof(uint64_t));
	uint64_t *snapw = calloc(snap_words(np->ns, np->nvals),
				 sizeof(uint64_t));
	uint64_t *inc = calloc(np->ns + 1, sizeof(*inc));
	void *dscratch = malloc(derive_scratch_size(np->dplan));
	double *vals = calloc(np->nvals + 1, sizeof(*vals));
	double *acc = s->acc && s->nacc == np->nvals ? s->acc
		    : calloc(np->nvals + 1, sizeof(*acc));
	struct group *b = &s->base;

	if (!gs || !sample || !snapw || !inc || !dscratch || !vals || !acc) {
		free(gs); free(sample); free(snapw); free(inc); free(vals);
		free(dscratch);
		if (acc != s->acc)
			free(acc);
		return -ENOMEM;
	}
	/* the last values stay (gauges of a multiplexed-out tick) */
	for (unsigned i = 0; i < np->nvals; i++)
		vals[i] = s->vals && s->nacc == np->nvals ? s->vals[i] : NAN;
	if (acc != s->acc)
		free(s->acc);
	free(s->vals);
	free(s->inc);
	free(s->dscratch);
	s->dscratch = dscratch;
	s->acc = acc;
	s->vals = vals;
	s->inc = inc;
	s->nacc = np->nvals;
	for (unsigned i = 0; i < np->ns; i++)
		for (unsigned j = 0; op && j < op->ns; j++)
			if (same_series(np, i, op, j)) {
				gs[i] = b->gs[j];
				break;
			}
	free(b->gs);
	free(s->sample);
	free(s->snapw);
	s->sample = sample;
	s->snapw = snapw;
	*b = (struct group){
		.ev = np->ev, .nev = np->nev, .slot = np->slot, .sev = np->sev,
		.ns = np->ns, .gs = gs,
		.enabled_ns = b->enabled_ns, .running_ns = b->running_ns,
		.seen = b->seen,
	};
	b->sg = (struct sched_group){ .ev = np->ev, .nev = np->nev,
				      .fixed = true, .order = 0 };
	memcpy(b->sg.ctr, np->ctr, np->nev * sizeof(int));
	s->prog = np;
	np->gen = ++s->gens;	/* before it is published */
	s->need_program = true;
	return 0;
}

/* Picks up a program/config handed over by sampler_swap(). */
static void take_pending(struct sampler *s)
{
	struct program *np, *old = NULL;
	struct sampler_cfg cfg;
	bool newcfg;

	pthread_mutex_lock(&s->lock);
	np = s->pending;
	s->pending = NULL;
	newcfg = s->have_pending_cfg;
	cfg = s->pending_cfg;
	s->have_pending_cfg = false;
	pthread_mutex_unlock(&s->lock);
	if (np) {
		if (install(s, np) < 0) {
			log_err("sampler: out of memory installing a program; "
				"keeping the old one");
			program_put(np);
			np = NULL;
		} else {
			pthread_mutex_lock(&s->lock);
			old = s->cur;
			s->cur = np;
			atomic_fetch_add(&np->refs, 1);	/* s->prog's */
			pthread_mutex_unlock(&s->lock);
		}
	}
	if (old) {
		program_put(old);	/* s->cur's reference */
		program_put(old);	/* s->prog's reference */
	}
	if (newcfg) {
		pthread_mutex_lock(&s->lock);
		s->cfg = cfg;
		pthread_mutex_unlock(&s->lock);
		if (cfg.interval_ms != s->interval_ms) {
			s->interval_ms = cfg.interval_ms;
			if (s->tfd >= 0 && arm(s) < 0)
				log_warn("sampler: cannot re-arm the timer");
		}
	}
}

/* Interference: something else wrote our registers. */
/*
 * After a check of the control registers: the unit instances whose
 * programmed control or filter registers could not be read back (each
 * register wanted by the last pmu_program() names its instance).  Their
 * series are marked invalid until a check reads them.
 */
static void mark_unverified(struct sampler *s, unsigned unread)
{
	const struct pmu *pmu = s->pmu;

	memset(s->unverified, 0, sizeof(s->unverified));
	if (!unread)
		return;
	for (unsigned w = 0; w < pmu->nwritten; w++) {
		const struct pmu_reg *g = &pmu->reg[pmu->written[w]];

		/* wanted by the last programming and not read back */
		if (g->unread && g->pass == pmu->pass &&
		    g->socket < PLAT_MAX_SOCKETS &&
		    g->unit >= 0 && g->unit < PLAT_MAX_UNITS)
			iset_add(&s->unverified[g->socket][g->unit], g->inst);
	}
	log_warnx_limited(&s->lim_unread, "interference check: %u control "
			  "register%s cannot be read back (%s); the series of "
			  "%s unit%s are marked invalid until they can", unread,
			  unread == 1 ? "" : "s", hw_last_error(),
			  unread == 1 ? "its" : "their", unread == 1 ? "" : "s");
}

static bool unverified(const struct sampler *s, const struct pmu_slot *sl)
{
	return !sl->freerun && sl->socket < PLAT_MAX_SOCKETS && sl->unit >= 0 &&
	       sl->unit < PLAT_MAX_UNITS &&
	       iset_has(&s->unverified[sl->socket][sl->unit], sl->inst);
}

static bool check_interference(struct sampler *s, struct program *p)
{
	struct pmu *pmu = s->pmu;
	bool hit = false;
	char msg[512];
	uint64_t seen;
	int r;

	for (unsigned sock = 0; sock < p->topo->nsockets; sock++) {
		r = pmu_check_global(pmu, sock, true, &seen);
		if (r == 1) {
			log_warnx("interference: global control of socket %u "
				  "is 0x%" PRIx64 ", expected 0x%" PRIx64
				  " (another agent is using the uncore PMU)",
				  sock, seen, p->plat->global_enable);
			hit = true;
		} else if (r < 0) {
			log_warnx_limited(&s->lim_global, "cannot read the global "
					  "control of socket %u: %s", sock,
					  hw_last_error());
		}
	}
	if (s->cfg.check_every && s->tick_no % s->cfg.check_every == 0) {
		unsigned unread;

		r = pmu_check_controls(pmu, msg, sizeof(msg), &unread);
		if (r > 0) {
			log_warnx("interference: %d control register%s "
				  "changed behind our back: %s", r,
				  r == 1 ? "" : "s", msg);
			hit = true;
		}
		mark_unverified(s, unread);
	}
	return hit;
}

static unsigned tick_bucket(double secs)
{
	unsigned b = 0;

	while (b < TICK_BUCKETS && secs > tick_bounds_s[b])
		b++;
	return b;	/* TICK_BUCKETS = +Inf only */
}

/* Derived values of this tick (counters' running totals, gauges of the
 * interval) into s->vals.  mux_out: the baseline's programmable counters
 * did not count this interval (its gauges keep their last values). */
static void derive(struct sampler *s, struct program *p, const uint64_t *delta,
		   const uint64_t *invalid, double secs, bool mux_out)
{
	for (unsigned i = 0; i < p->ns; i++) {
		s->inc[i] = s->base.gs[i].est - s->base.gs[i].est_seen;
		s->base.gs[i].est_seen = s->base.gs[i].est;
	}
	derive_tick(p->dplan, s->inc, delta, invalid, secs, mux_out, s->acc,
		    s->vals, s->dscratch);
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

unsigned program_controls(const struct program *p, struct pmu_slot *want)
{
	unsigned n = 0;

	for (unsigned k = 0; k < p->ns; k++) {
		if (p->slot[k].freerun)
			continue;
		want[n++] = p->slot[k];
		n += filter_slots(p->pmu, &p->ev[p->sev[k]], &p->slot[k],
				  want + n);
	}
	return n;
}

int group_place(const struct pmu *pmu, struct group *g)
{
	const struct platform *pl = pmu->plat;
	char why[160];

	for (unsigned k = 0; k < g->ns; k++) {
		struct pmu_slot *sl = &g->slot[k];
		const struct evspec *e = &g->ev[g->sev[k]];
		const struct unit_type *u = pl->units[e->unit];
		int c = g->sg.ctr[g->sev[k]];

		if (u->kind == UNIT_FREERUN)
			c = e->freerun;
		else if (u->kind == UNIT_FIXED)
			c = 0;
		if (c < 0)
			return -EINVAL;
		pmu_slot(pmu, sl, sl->socket, sl->unit, sl->inst, (unsigned)c);
		if (u->kind == UNIT_FIXED)
			sl->ctl_val = 1ull << u->fmt.en_bit;
		else if (u->kind == UNIT_PROG &&
			 sched_encode(u, e, (unsigned)c, &sl->ctl_val, why,
				      sizeof(why)) < 0) {
			log_warnx("cannot encode %s: %s", e->name, why);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- the tick ---------------------------------------------------------- */

static bool grow(void **p, unsigned *cap, unsigned need, size_t sz)
{
	void *n;

	if (need <= *cap)
		return true;
	n = realloc(*p, (size_t)need * 2 * sz);
	if (!n)
		return false;
	*p = n;
	*cap = need * 2;
	return true;
}

/* Reads a counter once per tick: later reads of the same register in the
 * same tick (a counter shared by groups) reuse the value, found by its
 * register id.  0 or -errno. */
static int read_once(struct sampler *s, const struct pmu_slot *sl, uint64_t *v)
{
	struct rd *r;

	if (sl->ctr_id == PMU_NO_REG || sl->ctr_id >= s->pmu->nreg) {
		int err = pmu_read(s->pmu, sl, v);	/* no id: uncached */

		if (err < 0)
			log_warnx_limited(&s->lim_read, "%s", hw_last_error());
		return err;
	}
	if (!s->rd && !(s->rd = calloc(s->pmu->nreg, sizeof(*s->rd))))
		return -ENOMEM;
	r = &s->rd[sl->ctr_id];
	if (r->tick == s->tick_no) {
		*v = r->v;
		return r->err;
	}
	r->tick = s->tick_no;
	r->v = 0;
	r->err = pmu_read(s->pmu, sl, &r->v);
	if (r->err < 0)
		log_warnx_limited(&s->lim_read, "%s", hw_last_error());
	*v = r->v;
	return r->err;
}

/*
 * Could the counter of sl have counted delta in ns nanoseconds?  The
 * bound is the unit's (or free-running counter's) maximum rate from the
 * platform tables - the largest increment per cycle at the highest clock
 * - over twice the interval plus 100 ms (the reads of one tick are not
 * simultaneous, and a loaded machine delays them).  A counter reset to
 * 0 by another agent reads as a delta near 2^width, far above it.  If
 * not, the jump is counted for this tick and described once.
 */
static bool plausible(struct sampler *s, const struct pmu_slot *sl,
		      uint64_t delta, uint64_t ns)
{
	double rate = series_max_rate(s->pmu->plat, sl);
	double bound = rate * ((double)ns * 2 + 100e6) / 1e9;

	if (rate <= 0 || (double)delta <= bound)
		return true;
	if (!s->jumps++)
		snprintf(s->jump_what, sizeof(s->jump_what), "%s %u on socket "
			 "%u counter %u advanced by %" PRIu64 " in %.3f s, more "
			 "than its maximum rate (%.3g/s) allows",
			 s->pmu->plat->units[sl->unit]->name, sl->inst,
			 sl->socket, sl->idx, delta, (double)ns / 1e9, rate);
	return false;
}

/*
 * Accounts one series' reading.  run_ns: how long the counter counted,
 * since_ns: the time the reading stands for (>= run_ns when the group was
 * multiplexed out before).  Returns the delta, or -1 if it is not valid.
 */
static int64_t account(struct sampler *s, struct gseries *gs,
		       const struct pmu_slot *sl, bool disturbed,
		       uint64_t run_ns, uint64_t since_ns)
{
	uint64_t raw, delta;

	if (read_once(s, sl, &raw) < 0) {
		gs->up = 0;
		gs->have_last = 0;
		return -1;
	}
	gs->up = 1;
	if (!gs->have_last || disturbed) {
		gs->last_raw = raw;
		gs->have_last = 1;
		return -1;
	}
	delta = (raw - gs->last_raw) & width_mask(sl->width);
	if (!plausible(s, sl, delta, since_ns > run_ns ? since_ns : run_ns)) {
		/* a reset or a write by another agent, not a wrap: no data */
		gs->last_raw = raw;
		return -1;
	}
	if (raw < gs->last_raw)
		s->st.wraps++;
	gs->last_raw = raw;
	gs->raw += delta;
	gs->est += run_ns && since_ns > run_ns
		   ? (uint64_t)((unsigned __int128)delta * since_ns / run_ns)
		   : delta;
	return (int64_t)delta;
}

/* Reads every series of g of one kind (programmable/fixed or free-running)
 * and accounts it; fills delta/invalid for the baseline. */
static void read_group(struct sampler *s, struct group *g, bool freerun,
		       bool disturbed, uint64_t run_ns, uint64_t *delta,
		       uint64_t *invalid)
{
	for (unsigned k = 0; k < g->ns; k++) {
		int64_t d;

		if (g->slot[k].freerun != freerun)
			continue;
		if (!freerun && (!g->was_running || s->yielded)) {
			if (invalid)
				invalid[k / 64] |= 1ull << (k % 64);
			continue;
		}
		d = account(s, &g->gs[k], &g->slot[k],
			    !freerun && (disturbed || unverified(s, &g->slot[k])),
			    run_ns, freerun ? run_ns : g->since_ns);
		if (delta) {
			delta[k] = d < 0 ? 0 : (uint64_t)d;
			if (d < 0)
				invalid[k / 64] |= 1ull << (k % 64);
		}
	}
}

/* Chooses and programs the groups of the next interval (PMU frozen). */
static void schedule(struct sampler *s, struct group **g, unsigned n,
		     bool force)
{
	struct sched_group *sg[257] = { 0 };
	int old[257][SCHED_MAX_EVENTS];
	bool was[257];

	for (unsigned i = 0; i < n; i++) {
		sg[i] = &g[i]->sg;
		g[i]->sg.running = g[i]->running_ns;
		g[i]->sg.enabled = g[i]->enabled_ns + 1;
		memcpy(old[i], g[i]->sg.ctr, sizeof(old[i]));
		was[i] = g[i]->was_running;
	}
	sched_select(s->pmu->plat, sg, n);
	s->nwant = 0;
	for (unsigned i = 0; i < n; i++) {
		struct group *x = g[i];
		bool moved = memcmp(old[i], x->sg.ctr, sizeof(old[i])) != 0;

		if (!x->sg.selected)
			continue;
		/* A fixed group (the baseline) was placed when its program
		 * was built and its slots belong to the published program,
		 * which readers render from: never rewrite them. */
		if (!x->sg.fixed &&
		    (moved || (x->ns && !x->slot[0].width) || force) &&
		    group_place(s->pmu, x) < 0) {
			x->sg.selected = false;
			continue;
		}
		if (!was[i] || moved)
			for (unsigned k = 0; k < x->ns; k++)
				if (!x->slot[k].freerun)
					x->gs[k].have_last = 0;	/* new baseline */
		if (!was[i] && i > 0)
			s->st.switches++;
		for (unsigned k = 0; k < x->ns; k++) {
			const struct evspec *e = &x->ev[x->sev[k]];

			if (x->slot[k].freerun)
				continue;
			if (!grow((void **)&s->want, &s->capwant,
				  s->nwant + CONTROLS_PER_SERIES,
				  sizeof(*s->want)))
				break;
			s->want[s->nwant++] = x->slot[k];
			/* the box filter values the event needs */
			s->nwant += filter_slots(s->pmu, e, &x->slot[k],
						 s->want + s->nwant);
		}
	}
	if (pmu_program(s->pmu, s->want, s->nwant, force) < 0)
		log_warnx("programming the counters: %s", hw_last_error());
	/* Counters that start counting now: their current value is the
	 * baseline for the next delta (read while frozen). */
	for (unsigned i = 0; i < n; i++) {
		struct group *x = g[i];

		x->was_running = x->sg.selected;
		if (!x->sg.selected)
			continue;
		for (unsigned k = 0; k < x->ns; k++) {
			uint64_t raw;

			if (x->slot[k].freerun || x->gs[k].have_last)
				continue;
			if (pmu_read(s->pmu, &x->slot[k], &raw) == 0) {
				x->gs[k].last_raw = raw;
				x->gs[k].have_last = 1;
			}
		}
	}
}

void sampler_tick(struct sampler *s)
{
	struct program *p;
	struct pmu *pmu = s->pmu;
	uint64_t t0 = now_ns(CLOCK_MONOTONIC), t_read, flags = SF_VALID;
	uint64_t *delta, *invalid, run_ns;
	struct group *g[257];
	struct claim *cv[256];
	unsigned ng = 0, ncl = 0, nw;
	bool interference = false, first, force = false, base_ran, read_err;
	double secs;

	take_pending(s);
	p = s->prog;
	if (!p)
		return;
	s->tick_no++;
	delta = s->sample + SW_HDR;
	invalid = delta + p->ns;
	nw = (p->ns + 63) / 64;
	memset(invalid, 0, nw * sizeof(uint64_t));
	memset(delta, 0, p->ns * sizeof(uint64_t));
	s->jumps = 0;

	if (s->need_program) {
		force = true;
		s->need_program = false;
	} else if (!s->yielded) {
		interference = check_interference(s, p);
	} else if (s->cfg.check_every &&
		   s->tick_no % s->cfg.check_every == 0) {
		char msg[256];

		/* Yielded: take the PMU back once nobody else has counters
		 * enabled (registers still as we left them do not count). */
		if (pmu_foreign(pmu, msg, sizeof(msg)) == 0) {
			log_info("the uncore PMU is idle again: reclaiming it");
			s->yielded = false;
			s->st.owned = 1;
			force = true;
		}
	}
	if (interference) {
		s->st.interference++;
		flags |= SF_INTERFERENCE;
		flags &= ~SF_VALID;
		if (s->cfg.policy == POLICY_YIELD) {
			log_warnx("interference policy is yield: leaving the "
				  "programmable counters to the other agent");
			s->yielded = true;
			s->st.owned = 0;
		} else {
			force = true;	/* reclaim: rewrite our controls */
		}
	}

	t_read = now_ns(CLOCK_MONOTONIC);
	first = s->last_mono == 0;
	run_ns = first ? 0 : t_read - s->last_mono;
	secs = (double)run_ns / 1e9;
	s->last_mono = t_read;

	g[ng++] = &s->base;
	if (s->claims) {
		claims_lock(s->claims);
		ncl = claims_live(s->claims, t0, cv, 256);
		for (unsigned i = 0; i < ncl; i++)
			g[ng++] = &cv[i]->g;
	}
	for (unsigned i = 0; i < ng; i++) {
		/* A group's clock starts at its first tick: the interval
		 * before it existed (or before its first readings) is not
		 * charged to it. */
		if (!g[i]->seen) {
			g[i]->seen = true;
			continue;
		}
		g[i]->enabled_ns += run_ns;
		g[i]->since_ns += run_ns;
		if (g[i]->was_running && !s->yielded)
			g[i]->running_ns += run_ns;
	}
	s->st.base_enabled_ns = s->base.enabled_ns;
	s->st.base_running_ns = s->base.running_ns;

	/* freeze; read each active counter once; reschedule; unfreeze */
	base_ran = s->base.was_running && !s->yielded;
	if (!s->yielded)
		pmu_enable(pmu, false);
	read_group(s, &s->base, false, interference, run_ns, delta, invalid);
	for (unsigned i = 1; i < ng; i++)
		read_group(s, g[i], false, interference, run_ns, NULL, NULL);
	/* the readings just taken stand for the time since each group last
	 * counted: start that time again */
	for (unsigned i = 0; i < ng; i++)
		if (g[i]->was_running && !s->yielded)
			g[i]->since_ns = 0;
	if (!s->yielded) {
		schedule(s, g, ng, force);
		pmu_enable(pmu, true);
	} else {
		for (unsigned i = 0; i < ng; i++)
			g[i]->was_running = false;
	}
	for (unsigned i = 0; i < ng; i++)
		read_group(s, g[i], true, false, run_ns, i ? NULL : delta,
			   i ? NULL : invalid);
	if (s->claims)
		claims_unlock(s->claims);
	if (s->jumps) {
		/* DESIGN.md 4: counted, logged, the deltas invalid */
		if (!interference) {
			s->st.interference++;
			interference = true;
		}
		flags |= SF_INTERFERENCE;
		flags &= ~SF_VALID;
		log_warnx_limited(&s->lim_jump, "interference: %s (reset or "
				  "written by another agent?)%s", s->jump_what,
				  s->jumps > 1 ? "; and other counters" : "");
	}

	for (unsigned w = 0; w < nw; w++)
		if (invalid[w])
			flags &= ~SF_VALID;
	if (first)
		flags |= SF_FIRST;
	if (!base_ran && !first)
		flags |= SF_MUX;
	/* Invalid samples are the ones with errors or interference; being
	 * multiplexed out is not an error. */
	read_err = false;
	for (unsigned i = 0; i < p->ns; i++)
		read_err |= !s->base.gs[i].up &&
			    (p->slot[i].freerun || base_ran);
	if (first || interference || read_err)
		s->st.invalid_samples++;

	s->sample[SW_T_NS] = now_ns(CLOCK_REALTIME);
	s->sample[SW_INTERVAL_NS] = run_ns;
	s->sample[SW_FLAGS] = flags;
	s->sample[SW_GEN] = p->gen;
	derive(s, p, delta, invalid, secs, !interference && !base_ran);

	/* self-metrics and the snapshot */
	{
		uint64_t t1 = now_ns(CLOCK_MONOTONIC);
		double dur = (double)(t1 - t0) / 1e9;
		unsigned b = tick_bucket(dur);

		s->st.ticks++;
		if (b < TICK_BUCKETS)
			s->st.tick_hist[b]++;
		s->st.tick_count++;
		s->st.tick_sum_ns += t1 - t0;
		s->st.hw_reads = atomic_load(&pmu->hw->nreads);
		s->st.hw_writes = atomic_load(&pmu->hw->nwrites);
		s->st.hw_errors = atomic_load(&pmu->hw->nerrors);
		s->st.sample_seq = ring_push(p->samples, s->sample);
		s->st.t_ns = s->sample[SW_T_NS];
		s->st.last_tick_mono_ns = t1;
		memcpy(s->snapw, &s->st, sizeof(s->st));
		for (unsigned i = 0; i < p->ns; i++) {
			s->snapw[SNAP_WORDS + i] = s->base.gs[i].est;
			s->snapw[SNAP_WORDS + p->ns + i] = s->base.gs[i].up;
		}
		memcpy(s->snapw + SNAP_WORDS + 2 * p->ns, s->vals,
		       p->nvals * sizeof(double));
		ring_push(p->snaps, s->snapw);
		atomic_store(&s->last_tick_mono, t1);
	}
}
