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
#include "sampler.h"

const double tick_bounds_s[TICK_BUCKETS] = {
	1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4,
	1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 1e-1,
};

struct sampler {
	struct pmu *pmu;
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
	struct program *prog;		/* what is programmed */
	uint64_t *last_raw;
	uint8_t *have_last;
	uint64_t *total;
	uint8_t *up;
	uint64_t *sample;		/* scratch sample */
	uint64_t *snapw;		/* scratch snapshot words */
	struct snap st;			/* running self-metrics */
	uint64_t last_mono;		/* time of the previous read */
	uint64_t tick_no;
	uint64_t gens;			/* programs installed so far */
	bool yielded;
	bool need_program;		/* (re)write the controls */
	unsigned interval_ms;		/* armed interval */
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
	free(p->slot);
	free(p->sev);
	free(p);
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
	p->interval_ms = interval_ms;
	memcpy(p->ev, ev, nev * sizeof(*ev));
	p->nev = nev;
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

				p->sev[p->ns++] = (int)i;
				pmu_slot(pmu, se, s, ev[i].unit, in,
					 (unsigned)ctr[i]);
				if (u->kind == UNIT_FIXED)
					se->ctl_val = 1ull << u->fmt.en_bit;
				else if (u->kind == UNIT_PROG &&
					 plat_encode(u, &ev[i].enc,
						     (unsigned)ctr[i],
						     ev[i].ctr_mask,
						     &se->ctl_val, why,
						     whylen) < 0) {
					program_put(p);
					return NULL;
				}
			}
		}
	for (unsigned q = 0; q < Q_COUNT; q++)
		p->qty_ev[q] = -1;
	for (size_t k = 0; k < pl->nqty; k++)
		for (unsigned i = 0; i < nev; i++)
			if (strcmp(pl->qty[k].event, ev[i].name) == 0) {
				p->qty_ev[pl->qty[k].q] = (int)i;
				p->qty_scale[pl->qty[k].q] = pl->qty[k].scale;
			}
	p->samples = ring_new(ring_capacity, sample_words(p->ns));
	p->snaps = ring_new(4, snap_words(p->ns));
	if (!p->samples || !p->snaps)
		goto oom;
	return p;
oom:
	snprintf(why, whylen, "out of memory");
	program_put(p);
	return NULL;
}

/* Highest rate (events/s) a series' counter can see. */
static double series_max_rate(const struct program *p,
			      const struct pmu_slot *s)
{
	const struct unit_type *u = p->plat->units[s->unit];

	if (s->freerun)
		return u->freerun[s->idx].max_rate;
	return u->max_rate;
}

unsigned program_max_interval_ms(const struct program *p)
{
	double best = 3600.0;

	for (unsigned i = 0; i < p->ns; i++) {
		double r = series_max_rate(p, &p->slot[i]);
		double wrap;

		if (r <= 0)
			continue;
		wrap = ldexp(1.0, p->slot[i].width) / r;
		if (wrap / 2 < best)
			best = wrap / 2;
	}
	return (unsigned)(best * 1000);
}

/* ---- sampler -------------------------------------------------------- */

struct sampler *sampler_new(struct pmu *pmu, struct program *prog,
			    const struct sampler_cfg *cfg)
{
	struct sampler *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->pmu = pmu;
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
	free(s->last_raw);
	free(s->have_last);
	free(s->total);
	free(s->up);
	free(s->sample);
	free(s->snapw);
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
	return memcmp(&a->slot[i].ctr, &b->slot[j].ctr,
		      sizeof(a->slot[i].ctr)) == 0 &&
	       a->slot[i].ctl_val == b->slot[j].ctl_val &&
	       strcmp(a->ev[a->sev[i]].name, b->ev[b->sev[j]].name) == 0;
}

/* Installs a pending program: per-series state carried over where the
 * same counter keeps counting the same event. */
static int install(struct sampler *s, struct program *np)
{
	struct program *op = s->prog;
	uint64_t *lr = calloc(np->ns + 1, sizeof(*lr));
	uint64_t *tot = calloc(np->ns + 1, sizeof(*tot));
	uint8_t *hl = calloc(np->ns + 1, 1), *up = calloc(np->ns + 1, 1);
	uint64_t *sample = calloc(sample_words(np->ns), sizeof(uint64_t));
	uint64_t *snapw = calloc(snap_words(np->ns), sizeof(uint64_t));

	if (!lr || !tot || !hl || !up || !sample || !snapw) {
		free(lr); free(tot); free(hl); free(up); free(sample);
		free(snapw);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < np->ns; i++)
		for (unsigned j = 0; op && j < op->ns; j++)
			if (same_series(np, i, op, j)) {
				lr[i] = s->last_raw[j];
				tot[i] = s->total[j];
				hl[i] = s->have_last[j];
				up[i] = s->up[j];
				break;
			}
	free(s->last_raw); free(s->total); free(s->have_last); free(s->up);
	free(s->sample); free(s->snapw);
	s->last_raw = lr;
	s->total = tot;
	s->have_last = hl;
	s->up = up;
	s->sample = sample;
	s->snapw = snapw;
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
			log_warnx("cannot read the global control of socket "
				  "%u: %s", sock, hw_last_error());
		}
	}
	if (s->cfg.check_every && s->tick_no % s->cfg.check_every == 0) {
		r = pmu_check_controls(pmu, msg, sizeof(msg));
		if (r > 0) {
			log_warnx("interference: %d control register%s "
				  "changed behind our back: %s", r,
				  r == 1 ? "" : "s", msg);
			hit = true;
		}
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

/* Derived values of this tick and the running totals into st. */
static void derive(struct sampler *s, struct program *p, const uint64_t *delta,
		   const uint64_t *invalid, double secs)
{
	struct snap *st = &s->st;
	double d[PLAT_MAX_SOCKETS][Q_COUNT];
	bool ok[PLAT_MAX_SOCKETS][Q_COUNT];

	st->qty_present = 0;
	memset(st->qty, 0, sizeof(st->qty));
	for (unsigned sk = 0; sk < PLAT_MAX_SOCKETS; sk++)
		for (unsigned q = 0; q < Q_COUNT; q++) {
			d[sk][q] = 0;
			ok[sk][q] = true;
		}
	for (unsigned q = 0; q < Q_COUNT; q++)
		if (p->qty_ev[q] >= 0)
			st->qty_present |= 1ull << q;
	for (unsigned i = 0; i < p->ns; i++) {
		const struct pmu_slot *se = &p->slot[i];
		unsigned sk = se->socket;

		for (unsigned q = 0; q < Q_COUNT; q++) {
			if (p->qty_ev[q] != p->sev[i])
				continue;
			st->qty[sk][q] += s->total[i] * p->qty_scale[q];
			if (invalid[i / 64] >> (i % 64) & 1)
				ok[sk][q] = false;
			else
				d[sk][q] += (double)delta[i] *
					    (double)p->qty_scale[q];
		}
	}
	for (unsigned sk = 0; sk < PLAT_MAX_SOCKETS; sk++) {
		double *g = st->gauge[sk];
		bool have_l = (st->qty_present >> Q_LLC_LOOKUPS & 1) &&
			      ok[sk][Q_LLC_LOOKUPS];
		bool have_m = (st->qty_present >> Q_LLC_MISSES & 1) &&
			      ok[sk][Q_LLC_MISSES];

		for (unsigned k = 0; k < G_COUNT; k++)
			g[k] = NAN;
		if (sk >= p->topo->nsockets || secs <= 0)
			continue;
		if (have_l && have_m && d[sk][Q_LLC_LOOKUPS] > 0)
			g[G_LLC_HIT_RATIO] = 1.0 - d[sk][Q_LLC_MISSES] /
						   d[sk][Q_LLC_LOOKUPS];
#define RATE(G, Q)                                                        \
	if ((st->qty_present >> (Q) & 1) && ok[sk][Q])                    \
		g[G] = d[sk][Q] / secs;
		RATE(G_DRAM_READ_BPS, Q_DRAM_READ_BYTES)
		RATE(G_DRAM_WRITE_BPS, Q_DRAM_WRITE_BYTES)
		RATE(G_CLOCK_HZ, Q_CLOCK_TICKS)
#undef RATE
		if ((st->qty_present >> Q_ARB_OCCUPANCY & 1) &&
		    (st->qty_present >> Q_CLOCK_TICKS & 1) &&
		    ok[sk][Q_ARB_OCCUPANCY] && ok[sk][Q_CLOCK_TICKS] &&
		    d[sk][Q_CLOCK_TICKS] > 0)
			g[G_ARB_OCCUPANCY_AVG] = d[sk][Q_ARB_OCCUPANCY] /
						 d[sk][Q_CLOCK_TICKS];
	}
}

void sampler_tick(struct sampler *s)
{
	struct program *p;
	struct pmu *pmu = s->pmu;
	uint64_t t0 = now_ns(CLOCK_MONOTONIC), t_read, flags = SF_VALID;
	uint64_t *delta, *invalid;
	bool interference = false, first;
	double secs;
	unsigned nw;

	take_pending(s);
	p = s->prog;
	if (!p)
		return;
	s->tick_no++;
	delta = s->sample + SW_HDR;
	invalid = delta + p->ns;
	nw = (p->ns + 63) / 64;
	memset(invalid, 0, nw * sizeof(uint64_t));

	if (s->need_program) {
		if (!s->yielded && pmu_program(pmu, p->slot, p->ns, true) < 0)
			log_warnx("programming the counters: %s",
				  hw_last_error());
		if (!s->yielded)
			pmu_enable(pmu, true);
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
			pmu_program(pmu, p->slot, p->ns, true);
			pmu_enable(pmu, true);
			memset(s->have_last, 0, p->ns);
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
			/* reclaim: rewrite our controls, unfreeze below */
			pmu_program(pmu, p->slot, p->ns, true);
		}
	}

	/* freeze, read each active counter once, unfreeze */
	if (!s->yielded)
		pmu_enable(pmu, false);
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < p->ns; i++) {
			const struct pmu_slot *se = &p->slot[i];
			bool prog = !se->freerun;
			uint64_t raw;

			if (prog != (pass == 0))
				continue;
			if ((prog && s->yielded) || pmu_read(pmu, se, &raw) < 0) {
				if (s->up[i] && !(prog && s->yielded))
					log_warnx("%s", hw_last_error());
				s->up[i] = 0;
				s->have_last[i] = 0;
				invalid[i / 64] |= 1ull << (i % 64);
				delta[i] = 0;
				continue;
			}
			s->up[i] = 1;
			if (!s->have_last[i] || (prog && interference)) {
				invalid[i / 64] |= 1ull << (i % 64);
				delta[i] = 0;
			} else {
				if (raw < s->last_raw[i])
					s->st.wraps++;
				delta[i] = (raw - s->last_raw[i]) &
					   width_mask(se->width);
				s->total[i] += delta[i];
			}
			s->last_raw[i] = raw;
			s->have_last[i] = 1;
		}
		if (pass == 0 && !s->yielded)
			pmu_enable(pmu, true);
	}
	t_read = now_ns(CLOCK_MONOTONIC);
	first = s->last_mono == 0;
	secs = first ? 0 : (double)(t_read - s->last_mono) / 1e9;
	s->last_mono = t_read;
	for (unsigned w = 0; w < nw; w++)
		if (invalid[w])
			flags &= ~SF_VALID;
	if (first)
		flags |= SF_FIRST;
	if (!(flags & SF_VALID))
		s->st.invalid_samples++;

	s->sample[SW_T_NS] = now_ns(CLOCK_REALTIME);
	s->sample[SW_INTERVAL_NS] = first ? 0 : (uint64_t)(secs * 1e9);
	s->sample[SW_FLAGS] = flags;
	s->sample[SW_GEN] = p->gen;
	derive(s, p, delta, invalid, secs);

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
		memcpy(s->snapw + SNAP_WORDS, s->total, p->ns * sizeof(uint64_t));
		for (unsigned i = 0; i < p->ns; i++)
			s->snapw[SNAP_WORDS + p->ns + i] = s->up[i];
		ring_push(p->snaps, s->snapw);
		atomic_store(&s->last_tick_mono, t1);
	}
}
