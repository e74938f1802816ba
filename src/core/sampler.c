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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "claims.h"
#include "sampler.h"
#include "fexport.h"
#include "pmu/pmu_perf.h"

const double tick_bounds_s[TICK_BUCKETS] = {
	1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4,
	1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 1e-1,
};

struct sampler {
	struct pmu *pmu;
	const struct clock_src *clk;	/* time of the ticks */
	struct claims *claims;		/* may be NULL */
	pthread_mutex_t lock;		/* guards cur, pending, cfg */
	/* Claims read now (sampler_hook_claims(), HTTP thread): the
	 * snapshot of the claims' groups the last tick published (under
	 * lock), and hwseq, odd while a tick or a call changes the
	 * counters, so that a reader knows whether its reading is of the
	 * snapshot's program.  Readers never hold anything a tick waits
	 * for. */
	atomic_uint_fast64_t hwseq;
	struct mux_snap *snap;
	struct mux_snap *spare;	/* the last snap, unpublished and held by
				   no reader: the next tick's buffer */
	/* calls run on the sampling thread between ticks (sampler_call()) */
	pthread_mutex_t call_lock;
	pthread_cond_t call_cond;
	struct sampler_call *calls;	/* queued, oldest first */
	atomic_bool threaded;		/* calls go to the thread */
	int cfd;			/* eventfd: a call is queued */
	atomic_uint_fast64_t claims_deferred;	/* claims syncs skipped: the
					   lock was not free within
					   CLAIMS_WAIT_NS */
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
	/* the baseline as groups (struct program.ngroups), their series'
	 * running state gs[ns] (group g's from gs + gser[g]) and, per
	 * series, the rate (events per ns) of the last interval it counted,
	 * NaN before that: what a series of a group taking turns stands at
	 * while the others count (tick_estimate()) */
	struct group *base;
	unsigned nbase;
	struct gseries *gs;
	int *lsev;		/* per series: its event within its group
				   (struct group.ev is the group's events) */
	double *rate;
	uint64_t *sample;		/* scratch sample */
	uint64_t *snapw;		/* scratch snapshot words */
	struct snap st;			/* running self-metrics */
	uint64_t last_mono;		/* time of the previous read */
	uint64_t tick_no;
	uint64_t gens;			/* programs installed so far */
	bool yielded;
	bool counting;			/* our counters counted since the
					   last tick (programmed, unfrozen) */
	bool need_program;		/* (re)write the controls */
	unsigned interval_ms;		/* armed interval */
	struct mux mux;			/* the groups: baseline and claims */
	struct mux_spec *spec;		/* the live claims of this tick */
	unsigned capspec;
	struct claims_pub *pub;		/* published claim totals (lock) */
	struct claim_total *rows;	/* their rows, built under the
					   claims lock */
	unsigned caprows;
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
	uint64_t pmu_changes;		/* pmu_changes() the program is of */
	struct log_limit lim_global, lim_jump, lim_ctl, lim_rebuild;
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
	fexport_free(p->fx);
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
			p->evscale[p->sev[i]][p->slot[i].socket],
			p->slot[i].live };
	p->dplan = derive_plan_new(p->topo, ser, p->ns, why, whylen);
	free(ser);
	if (!p->dplan)
		return -EINVAL;
	p->nvals = derive_nvals(p->dplan);
	return 0;
}

static unsigned uf_root(unsigned *up, unsigned i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

/*
 * The events bound together (issue 41 section 2: "events summed into
 * one figure are counted in one group per box"): the sources of
 * each summary of the platform's derived table (its _sum's and _count's
 * formulas: occupancy, clock and inserts), joined across summaries that
 * share one (the clock of every target).  A set too large for one
 * group's counters (every target at once) is cut as before: a target
 * whose group has no clock divides by the clock's latest rate
 * (tick_estimate(), derive.c sums()).  bind[i] is 0 for an event bound
 * to none, else one number per set.
 */
static void summary_binds(const struct platform *pl, const struct evspec *ev,
			  unsigned nev, unsigned *bind)
{
	const struct derived_table *tab = pl->derived;
	unsigned up[SAMPLER_MAX_EVENTS], cnt[SAMPLER_MAX_EVENTS] = { 0 };

	for (unsigned i = 0; i < nev; i++)
		up[i] = i;
	for (size_t m = 0; tab && m + 1 < tab->nm; m++) {
		int first = -1;

		if (tab->m[m].type != DM_SUM || tab->m[m + 1].type != DM_COUNT)
			continue;
		for (unsigned h = 0; h < 2; h++)
			for (unsigned k = 0; k < DM_MAX_STEPS; k++) {
				const struct dm_step *st = &tab->m[m + h].f[k];

				if (st->op == DF_END_)
					break;
				if (st->op != DF_SRC_)
					continue;
				for (size_t j = 0; j < tab->nsrc; j++) {
					if (strcmp(tab->src[j].name, st->src))
						continue;
					for (unsigned i = 0; i < nev; i++) {
						if (strcmp(ev[i].name,
							   tab->src[j].event))
							continue;
						if (first < 0)
							first = (int)i;
						else
							up[uf_root(up, i)] =
							uf_root(up,
							(unsigned)first);
					}
				}
			}
	}
	for (unsigned i = 0; i < nev; i++)
		cnt[uf_root(up, i)]++;
	for (unsigned i = 0; i < nev; i++) {
		unsigned r = uf_root(up, i);

		bind[i] = cnt[r] > 1 ? r + 1 : 0;
	}
}

/* Step 1: p's events, group by group (sched_partition_bound(): the
 * sources of a summary together), and each group's placement.  0, or -1
 * with why. */
static int program_groups(struct program *p, const struct evspec *ev,
			  unsigned nev, char *why, size_t whylen)
{
	unsigned grp[SAMPLER_MAX_EVENTS], bind[SAMPLER_MAX_EVENTS], k = 0;

	summary_binds(p->plat, ev, nev, bind);
	if (sched_partition_bound(p->plat, ev, nev, bind, grp, &p->ngroups,
				  why, whylen) < 0)
		return -1;
	for (unsigned g = 0; g < p->ngroups; g++) {
		p->gev[g] = k;
		for (unsigned i = 0; i < nev; i++)
			if (grp[i] == g)
				p->ev[k++] = ev[i];
	}
	p->gev[p->ngroups] = k;
	p->nev = k;
	for (unsigned g = 0; g < p->ngroups; g++)
		if (sched_place(p->plat, p->ev + p->gev[g],
				p->gev[g + 1] - p->gev[g], NULL,
				p->ctr + p->gev[g], why, whylen) < 0)
			return -1;
	return 0;
}

/* Step 2: the series, group by group (each group's socket by socket,
 * event by event, as mux_slots() builds them).  0, or -1 with why. */
static int program_slots(struct program *p, char *why, size_t whylen)
{
	unsigned cap = 0;

	for (unsigned s = 0; s < p->topo->nsockets; s++)
		for (unsigned i = 0; i < p->nev; i++)
			cap += p->topo->sock[s].ninst[p->ev[i].unit];
	p->slot = calloc(cap + 1, sizeof(*p->slot));
	p->sev = calloc(cap + 1, sizeof(*p->sev));
	if (!p->slot || !p->sev) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (unsigned g = 0; g < p->ngroups; g++) {
		unsigned e0 = p->gev[g], n;
		struct pmu_slot *sl;
		int *se;

		p->gser[g] = p->ns;
		if (mux_slots(p->pmu, p->ev + e0, p->gev[g + 1] - e0,
			      p->ctr + e0, &sl, &se, &n, why, whylen) < 0)
			return -1;
		memcpy(p->slot + p->ns, sl, n * sizeof(*sl));
		for (unsigned k = 0; k < n; k++)
			p->sev[p->ns + k] = se[k] + (int)e0;
		p->ns += n;
		free(sl);
		free(se);
	}
	p->gser[p->ngroups] = p->ns;
	return 0;
}

/* Step 3: per event and socket, instances present / instances counting
 * (a :split event counts on some of them); an instance lost at run time
 * is not present (pmu_present()). */
static void program_scales(struct program *p)
{
	const struct topology *t = p->topo;

	for (unsigned s = 0; s < t->nsockets; s++)
		for (unsigned i = 0; i < p->nev; i++)
			for (unsigned in = 0; in < t->sock[s].ninst[p->ev[i].unit];
			     in++)
				p->evscale[i][s] += pmu_present(p->pmu, s,
					p->ev[i].unit, in);
	for (unsigned s = 0; s < t->nsockets; s++)
		for (unsigned i = 0; i < p->nev; i++) {
			unsigned counted = 0;

			for (unsigned k = 0; k < p->ns; k++)
				counted += p->sev[k] == (int)i &&
					   p->slot[k].socket == s;
			p->evscale[i][s] = counted ? p->evscale[i][s] / counted : 0;
		}
}

struct program *program_new(const struct topology *t, const struct pmu *pmu,
			    const struct evspec *ev, unsigned nev,
			    unsigned ring_capacity, unsigned interval_ms,
			    char *why, size_t whylen)
{
	struct program *p;

	if (nev > SAMPLER_MAX_EVENTS) {
		snprintf(why, whylen, "too many events (%u, at most %d)", nev,
			 SAMPLER_MAX_EVENTS);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	atomic_init(&p->refs, 1);
	p->plat = t->plat;
	p->topo = t;
	p->pmu = pmu;
	p->interval_ms = interval_ms;
	if (program_groups(p, ev, nev, why, whylen) < 0 ||
	    program_slots(p, why, whylen) < 0)
		goto fail;
	program_scales(p);
	if (program_plan(p, why, whylen) < 0)
		goto fail;
	p->samples = ring_new(ring_capacity, sample_words(p->ns));
	p->snaps = ring_new(4, snap_words(p->ns, p->nvals));
	if (!p->samples || !p->snaps) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	return p;
fail:
	program_put(p);
	return NULL;
}

unsigned program_max_interval_ms(const struct program *p)
{
	unsigned best = 3600000;

	for (unsigned i = 0; i < p->ns; i++) {
		unsigned h = mux_half_wrap_ms(p->slot[i].width,
					      mux_max_rate(p->plat, &p->slot[i],
							   &p->ev[p->sev[i]]));

		if (h < best)
			best = h;
	}
	return best;
}

int program_event_group(const struct program *p, const char *name)
{
	for (unsigned g = 0; g < p->ngroups; g++)
		for (unsigned i = p->gev[g]; i < p->gev[g + 1]; i++)
			if (strcmp(p->ev[i].name, name) == 0)
				return (int)g;
	return -1;
}

bool program_source(const struct program *p, const char *name,
		    struct program_source *out)
{
	const char *ev = derive_source_event(p->dplan, name);
	const struct event *e = ev ? plat_event(p->plat, ev) : NULL;
	int g = ev ? program_event_group(p, ev) : -1, u = -1;

	if (!e || g < 0)
		return false;
	*out = (struct program_source){
		.event = ev, .unit = plat_unit(p->plat, e->unit, &u),
		.nevents = derive_source_count(p->dplan, name), .turns = g > 0,
	};
	if (p->pmu && p->pmu->perf)
		out->kernel_pmu = pmu_perf_unit_pmu(p->pmu->perf, u);
	return out->unit != NULL;
}

int program_dram(const struct program *p, struct program_source *rd,
		 struct program_source *wr)
{
	if (program_source(p, "dram_rd", rd) &&
	    program_source(p, "dram_wr", wr))
		return 2;
	*wr = (struct program_source){ 0 };
	return program_source(p, "dram_all", rd) ? 1 : 0;
}

/* ---- sampler -------------------------------------------------------- */

struct sampler *sampler_new(struct pmu *pmu, struct program *prog,
			    const struct sampler_cfg *cfg, struct claims *cl)
{
	struct sampler *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->pmu = pmu;
	s->clk = &clock_system;
	s->claims = cl;
	s->cfg = *cfg;
	s->interval_ms = cfg->interval_ms;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->call_lock, NULL);
	pthread_cond_init(&s->call_cond, NULL);
	s->pending = prog;	/* programmed at the first tick */
	s->tfd = s->efd = s->cfd = -1;
	s->st.owned = 1;
	mux_init(&s->mux, pmu);
	if (cl) {
		/* scrapes before the first tick see no claims yet */
		s->pub = calloc(1, sizeof(*s->pub));
		if (!s->pub) {
			sampler_free(s);
			return NULL;
		}
		atomic_init(&s->pub->refs, 1);
	}
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

static void run_calls(struct sampler *s);

/* The longest a tick waits for the claims lock (a request holds it for a
 * copy, a few microseconds, unless it is preempted meanwhile). */
#define CLAIMS_WAIT_NS 200000ull

uint64_t sampler_placements_skipped(const struct sampler *s)
{
	return s->mux.skipped;
}

uint64_t sampler_claims_deferred(const struct sampler *s)
{
	return atomic_load(&((struct sampler *)s)->claims_deferred);
}

/* Waits for the timer, a stop or a call: their three fds in an epoll
 * set made once, so that a wake-up does not register on every fd again
 * as poll(2) does (about a tenth of a perf-mode tick's CPU time). */
static void *thread_main(void *arg)
{
	struct sampler *s = arg;
	const int fd[3] = { s->tfd, s->efd, s->cfd };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	for (unsigned i = 0; ep >= 0 && i < 3; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u32 = i };

		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd[i], &e) < 0) {
			close(ep);
			ep = -1;
		}
	}
	if (ep < 0) {
		log_warn("sampler: epoll");
		return NULL;
	}
	if (s->pmu->perf)
		pmu_perf_read_local(true);
	for (;;) {
		struct epoll_event ev[3];
		bool ready[3] = { false, false, false };
		uint64_t n;
		int k = epoll_wait(ep, ev, 3, -1);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			log_warn("sampler: epoll_wait");
			break;
		}
		for (int i = 0; i < k; i++)
			ready[ev[i].data.u32 % 3] = true;
		if (ready[1])
			break;
		/* the tick first: a call waits for it, never the reverse */
		if (ready[0] && read(s->tfd, &n, sizeof(n)) == sizeof(n)) {
			if (n > 1)
				s->st.overruns += n - 1;
			sampler_tick(s);
		}
		if (ready[2] && read(s->cfd, &n, sizeof(n)) == sizeof(n))
			run_calls(s);
	}
	close(ep);
	return NULL;
}

int sampler_start(struct sampler *s)
{
	int r;

	s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	s->efd = eventfd(0, EFD_CLOEXEC);
	s->cfd = eventfd(0, EFD_CLOEXEC);
	if (s->tfd < 0 || s->efd < 0 || s->cfd < 0)
		return -errno;
	if ((r = arm(s)) < 0)
		return r;
	/* an inline call (sampler_call()) ends before the thread starts */
	pthread_mutex_lock(&s->call_lock);
	atomic_store(&s->threaded, true);
	r = pthread_create(&s->thread, NULL, thread_main, s);
	if (r)
		atomic_store(&s->threaded, false);
	pthread_mutex_unlock(&s->call_lock);
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
	pthread_mutex_lock(&s->call_lock);
	atomic_store(&s->threaded, false);
	pthread_mutex_unlock(&s->call_lock);
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
	free(s->base);
	free(s->gs);
	free(s->lsev);
	free(s->rate);
	free(s->sample);
	free(s->snapw);
	free(s->acc);
	free(s->vals);
	free(s->inc);
	free(s->dscratch);
	mux_free(&s->mux);
	free(s->spec);
	free(s->rows);
	claims_pub_put(s->pub);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->call_lock);
	pthread_cond_destroy(&s->call_cond);
	if (s->cfd >= 0)
		close(s->cfd);
	mux_snap_put(s->snap);
	mux_snap_put(s->spare);
	free(s);
}

void sampler_set_clock(struct sampler *s, const struct clock_src *clk)
{
	s->clk = clk;
	pmu_set_clock(s->pmu, clk);	/* windows on the ticks' clock */
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

/* A new interval takes effect now, not at the end of the old one (a
 * reload from 60 s to 1 s would otherwise wait up to a minute): the
 * timer fires at once, at the new interval from then on, and that tick
 * picks up the new configuration (take_pending() re-arms it from there). */
static void rearm_now(struct sampler *s, unsigned interval_ms)
{
	struct itimerspec its = {
		.it_value = { .tv_nsec = 1 },
		.it_interval = { .tv_sec = interval_ms / 1000,
				 .tv_nsec = (long)(interval_ms % 1000) * 1000000 },
	};

	if (s->running && s->tfd >= 0 &&
	    timerfd_settime(s->tfd, 0, &its, NULL) < 0)
		log_warn("sampler: cannot re-arm the timer");
}

void sampler_swap(struct sampler *s, struct program *p,
		  const struct sampler_cfg *cfg)
{
	struct program *old;
	bool faster;

	pthread_mutex_lock(&s->lock);
	old = s->pending;
	s->pending = p;
	faster = cfg && cfg->interval_ms < s->cfg.interval_ms;
	if (cfg) {
		s->pending_cfg = *cfg;
		s->have_pending_cfg = true;
	}
	pthread_mutex_unlock(&s->lock);
	program_put(old);
	if (faster)
		rearm_now(s, cfg->interval_ms);
}

uint64_t sampler_last_tick(const struct sampler *s)
{
	return atomic_load(&((struct sampler *)s)->last_tick_mono);
}

uint64_t sampler_stall_ns(struct sampler *s)
{
	uint64_t ns = 3ull * sampler_cfg(s).interval_ms * 1000000ull;

	return ns > SAMPLER_STALL_MIN_NS ? ns : SAMPLER_STALL_MIN_NS;
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

bool program_same(const struct program *a, const struct program *b)
{
	if (a->nev != b->nev || a->ns != b->ns || a->ngroups != b->ngroups ||
	    a->interval_ms != b->interval_ms ||
	    ring_capacity(a->samples) != ring_capacity(b->samples) ||
	    !fexport_same(a->fx, b->fx))
		return false;
	for (unsigned i = 0; i < a->nev; i++)
		if (strcmp(a->ev[i].name, b->ev[i].name) != 0 ||
		    a->ctr[i] != b->ctr[i])
			return false;
	for (unsigned i = 0; i < a->ns; i++)
		if (a->sev[i] != b->sev[i] || !same_series(a, i, b, i) ||
		    a->slot[i].socket != b->slot[i].socket ||
		    a->slot[i].inst != b->slot[i].inst ||
		    a->slot[i].ctl_id != b->slot[i].ctl_id)
			return false;
	return true;
}

/* What install() swaps in for a new program. */
struct inst_bufs {
	struct group *base;
	struct gseries *gs;
	int *lsev;
	double *rate, *vals, *acc;
	uint64_t *sample, *snapw, *inc;
	void *dscratch;
};

static void bufs_free(struct sampler *s, struct inst_bufs *b)
{
	free(b->base);
	free(b->gs);
	free(b->lsev);
	free(b->rate);
	free(b->vals);
	free(b->sample);
	free(b->snapw);
	free(b->inc);
	free(b->dscratch);
	if (b->acc != s->acc)
		free(b->acc);
}

/* Allocates them for np (the running totals stay where the layout does).
 * 0 or -ENOMEM. */
static int bufs_alloc(struct sampler *s, const struct program *np,
		      struct inst_bufs *b)
{
	*b = (struct inst_bufs){
		.base = calloc(np->ngroups + 1, sizeof(*b->base)),
		.gs = calloc(np->ns + 1, sizeof(*b->gs)),
		.lsev = calloc(np->ns + 1, sizeof(*b->lsev)),
		.rate = calloc(np->ns + 1, sizeof(*b->rate)),
		.vals = calloc(np->nvals + 1, sizeof(*b->vals)),
		.acc = s->acc && s->nacc == np->nvals ? s->acc
		       : calloc(np->nvals + 1, sizeof(*b->acc)),
		.sample = calloc(sample_words(np->ns), sizeof(uint64_t)),
		.snapw = calloc(snap_words(np->ns, np->nvals),
				sizeof(uint64_t)),
		.inc = calloc(np->ns + 1, sizeof(uint64_t)),
		.dscratch = malloc(derive_scratch_size(np->dplan)),
	};
	if (b->base && b->gs && b->lsev && b->rate && b->vals && b->acc &&
	    b->sample &&
	    b->snapw && b->inc && b->dscratch)
		return 0;
	bufs_free(s, b);
	return -ENOMEM;
}

/* The groups of np over b: group g's events (its own, as a claim's
 * group has them: ev[sev[k]] is series k's), series and their state;
 * group 0 keeps the clock the baseline had (its service so far), the
 * groups that take turns start theirs at their first tick. */
static void make_groups(const struct sampler *s, const struct program *np,
			struct inst_bufs *b)
{
	for (unsigned g = 0; g < np->ngroups; g++) {
		struct group *x = &b->base[g];
		unsigned e0 = np->gev[g], s0 = np->gser[g];

		for (unsigned i = s0; i < np->gser[g + 1]; i++)
			b->lsev[i] = np->sev[i] - (int)e0;
		*x = (struct group){
			.ev = np->ev + e0, .nev = np->gev[g + 1] - e0,
			.slot = np->slot + s0, .sev = b->lsev + s0,
			.ns = np->gser[g + 1] - s0, .gs = b->gs + s0,
			.first = s0,
		};
		if (g == 0 && s->nbase) {
			x->enabled_ns = s->base[0].enabled_ns;
			x->running_ns = s->base[0].running_ns;
			x->live_running_ns = s->base[0].live_running_ns;
			x->running_err_ns = s->base[0].running_err_ns;
			x->seen = s->base[0].seen;
		}
		x->sg = (struct sched_group){ .ev = np->ev + e0, .nev = x->nev,
					      .fixed = true, .order = g };
		memcpy(x->sg.ctr, np->ctr + e0, x->nev * sizeof(int));
	}
}

/* Installs a pending program: per-series state carried over where the
 * same counter keeps counting the same event. */
static int install(struct sampler *s, struct program *np)
{
	struct program *op = s->prog;
	struct inst_bufs b;

	if (bufs_alloc(s, np, &b) < 0)
		return -ENOMEM;
	make_groups(s, np, &b);
	if (mux_set_base(&s->mux, b.base, np->ngroups) < 0) {
		bufs_free(s, &b);
		return -ENOMEM;
	}
	/* the last values stay (gauges of a multiplexed-out tick) */
	for (unsigned i = 0; i < np->nvals; i++)
		b.vals[i] = s->vals && s->nacc == np->nvals ? s->vals[i] : NAN;
	for (unsigned i = 0; i < np->ns; i++) {
		b.rate[i] = NAN;
		for (unsigned j = 0; op && j < op->ns; j++)
			if (same_series(np, i, op, j)) {
				b.gs[i] = s->gs[j];
				b.rate[i] = s->rate[j];
				break;
			}
	}
	if (b.acc != s->acc)
		free(s->acc);
	free(s->base); free(s->gs); free(s->lsev); free(s->rate); free(s->vals);
	free(s->sample); free(s->snapw); free(s->inc); free(s->dscratch);
	s->base = b.base;
	s->nbase = np->ngroups;
	s->gs = b.gs;
	s->lsev = b.lsev;
	s->rate = b.rate;
	s->vals = b.vals;
	s->acc = b.acc;
	s->sample = b.sample;
	s->snapw = b.snapw;
	s->inc = b.inc;
	s->dscratch = b.dscratch;
	s->nacc = np->nvals;
	s->prog = np;
	np->gen = ++s->gens;	/* before it is published */
	/* its samples are numbered on from the program it replaces */
	if (op)
		ring_start_after(np->samples, ring_head(op->samples));
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

static unsigned tick_bucket(double secs)
{
	unsigned b = 0;

	while (b < TICK_BUCKETS && secs > tick_bounds_s[b])
		b++;
	return b;	/* TICK_BUCKETS = +Inf only */
}

/* Derived values of this tick (counters' running totals, gauges of the
 * interval: secs between reads, counted by the frozen counters) into
 * s->vals.  mux_out: a baseline series was multiplexed out with no
 * estimate this interval (the gauges it leaves without a value keep
 * their last values). */
static void derive(struct sampler *s, struct program *p, const uint64_t *delta,
		   const uint64_t *invalid, double secs, double counted,
		   bool mux_out)
{
	for (unsigned i = 0; i < p->ns; i++) {
		s->inc[i] = s->gs[i].est - s->gs[i].est_seen;
		s->gs[i].est_seen = s->gs[i].est;
	}
	derive_tick(p->dplan, s->inc, delta, invalid, secs, counted, mux_out,
		    s->acc, s->vals, s->dscratch);
}

unsigned program_controls(const struct program *p, struct pmu_slot *want)
{
	return mux_controls(p->pmu, p->ev, p->slot, p->sev, p->ns, want);
}

/* ---- the tick ---------------------------------------------------------- */

/*
 * The claims' part of a tick, before the hardware: under the claims lock,
 * expire leases and make mux's groups the live claims (a new claim's
 * events are copied).  Nothing is held afterwards.
 */
static void take_claims(struct sampler *s, uint64_t now)
{
	struct claim *const *cv;
	unsigned n;

	/* a request thread preempted while holding the lock must not hold
	 * up the tick: the claims' changes then wait for the next one */
	if (!claims_lock_within(s->claims, CLAIMS_WAIT_NS)) {
		s->claims_deferred++;
		return;
	}
	n = claims_live(s->claims, now, &cv);
	if (n > s->capspec) {
		struct mux_spec *v = realloc(s->spec, n * 2 * sizeof(*v));

		if (!v) {
			claims_unlock(s->claims);
			log_warnx("sampler: out of memory taking %u claims", n);
			return;		/* the groups of the last tick stay */
		}
		s->spec = v;
		s->capspec = n * 2;
	}
	for (unsigned i = 0; i < n; i++)
		s->spec[i] = (struct mux_spec){ .key = cv[i]->seq,
						.ev = cv[i]->ev,
						.nev = cv[i]->nev,
						.pinned = cv[i]->pinned,
						.plan = cv[i]->plan };
	if (mux_sync(&s->mux, s->spec, n) < 0)
		log_warnx("sampler: out of memory counting a new claim; "
			  "trying again at the next tick");
	claims_unlock(s->claims);
}

void claims_pub_put(struct claims_pub *p)
{
	if (p && atomic_fetch_sub(&p->refs, 1) == 1)
		free(p);
}

struct claims_pub *sampler_claims(struct sampler *s)
{
	struct claims_pub *p;

	pthread_mutex_lock(&s->lock);
	p = s->pub;
	if (p)
		atomic_fetch_add(&p->refs, 1);
	pthread_mutex_unlock(&s->lock);
	return p;
}

/*
 * After the hardware: each claim's results go back to the table (under
 * its lock, a copy per claim), and the totals /metrics shows are
 * published for scrapes (a new struct claims_pub when anything changed).
 */
static void give_claims(struct sampler *s)
{
	const struct topology *t = s->pmu->topo;
	struct claims_pub *np, *old = s->pub;
	uint64_t created, expired, live;
	unsigned n = 0;

	if (!claims_lock_within(s->claims, CLAIMS_WAIT_NS)) {
		s->claims_deferred++;	/* the table shows the last tick's */
		return;
	}
	for (unsigned i = s->mux.nbase; i < s->mux.ng; i++) {
		const struct group *g = s->mux.g[i];
		struct claim *cl = claims_by_seq(s->claims, g->key);
		unsigned base = n;

		if (!cl)
			continue;	/* released during the tick */
		cl->running = g->sg.selected;
		for (unsigned e = 0; e < cl->nev; e++)
			cl->ctr[e] = g->sg.ctr[e];
		/* A group whose reading failed stays as of its last one that
		 * worked (mux.c settle()), which a read now since may have
		 * passed: a claim's readings never go back (a region's two
		 * readings must follow each other). */
		if (g->enabled_ns >= cl->enabled_ns) {
			cl->enabled_ns = g->enabled_ns;
			cl->running_ns = g->running_ns;
			cl->live_running_ns = g->live_running_ns;
			cl->running_err_ns = g->running_err_ns;
			cl->read_err_ns = 0;	/* read frozen, at the tick's time */
			for (unsigned k = 0; k < cl->ns && k < g->ns; k++) {
				cl->ser[k].raw = g->gs[k].raw;
				cl->ser[k].est = g->gs[k].est;
				cl->ser[k].run_adj = g->gs[k].run_adj;
			}
		}
		for (unsigned k = 0; k < cl->ns && k < g->ns; k++)
			cl->ser[k].idx = g->slot[k].idx;
		if (!cl->export)
			continue;
		n += cl->nev * t->nsockets;
		if (n > s->caprows) {
			struct claim_total *r = realloc(s->rows,
							n * 2 * sizeof(*r));

			if (!r) {
				n = base;
				continue;
			}
			s->rows = r;
			s->caprows = n * 2;
		}
		for (unsigned e = 0; e < cl->nev; e++)
			for (unsigned sk = 0; sk < t->nsockets; sk++) {
				struct claim_total *r =
					&s->rows[base + e * t->nsockets + sk];

				memcpy(r->claim, cl->id, sizeof(r->claim));
				memcpy(r->event, cl->ev[e].name,
				       sizeof(r->event));
				r->socket = sk;
				r->est = 0;
			}
		for (unsigned k = 0; k < g->ns; k++)
			s->rows[base + (unsigned)g->sev[k] * t->nsockets +
				g->slot[k].socket].est += g->gs[k].est;
	}
	claims_totals(s->claims, &live, &created, &expired);
	claims_unlock(s->claims);

	if (old && old->live == live && old->created == created &&
	    old->expired == expired && old->n == n &&
	    (!n || memcmp(old->row, s->rows, n * sizeof(*s->rows)) == 0))
		return;		/* nothing new for /metrics */
	np = malloc(sizeof(*np) + n * sizeof(np->row[0]));
	if (!np)
		return;		/* scrapes keep the last totals */
	atomic_init(&np->refs, 1);
	np->live = live;
	np->created = created;
	np->expired = expired;
	np->n = n;
	if (n)
		memcpy(np->row, s->rows, n * sizeof(*s->rows));
	pthread_mutex_lock(&s->lock);
	s->pub = np;
	pthread_mutex_unlock(&s->lock);
	claims_pub_put(old);
}

/* Did the kernel multiplex (and this tick scale) any baseline series? */
static bool perf_scaled(const struct sampler *s, const struct program *p)
{
	for (unsigned i = 0; i < p->ns; i++)
		if (pmu_scaled(s->pmu, &p->slot[i]))
			return true;
	return false;
}

/* The perf backend's counts into the snapshot (scrapes read them). */
static void perf_stats(struct sampler *s)
{
	struct pmu_perf_stats ps;

	pmu_perf_stats(s->pmu->perf, &ps);
	s->st.perf_groups = ps.groups;
	s->st.perf_reads = ps.reads;
	s->st.perf_syscalls = ps.syscalls;
	s->st.perf_read_errors = ps.read_errors;
	s->st.perf_open_errors = ps.open_errors;
	s->st.perf_scaled = ps.scaled;
}

/* ---- the tick, step by step ------------------------------------------- */

/* What one tick found and decided, handed from step to step. */
struct tick {
	struct program *p;
	uint64_t t0;		/* start of the tick (monotonic) */
	uint64_t run_ns;	/* wall time since the last tick's read */
	uint64_t counted_ns;	/* how long the frozen counters counted
				   (pmu_counted_ns(); 0: unknown) */
	uint64_t counted_err_ns;	/* ... give or take this much */
	bool uncertain;		/* beyond 1 % (pmu_window_uncertain()) */
	uint64_t flags;		/* SF_* */
	uint64_t *delta, *invalid;	/* the baseline's, in s->sample */
	uint64_t *muxed;	/* ... and its multiplexed bits */
	unsigned nw;		/* words of invalid, of muxed */
	bool first;		/* no read before this one */
	bool force;		/* rewrite every control at the schedule */
	bool interference;	/* seen (and counted) this tick */
	bool global_hit;	/* on a global control: every series */
	bool froze;		/* this tick froze the PMU */
	bool mux_gap;		/* a series multiplexed out has no value */
};

/*
 * Units lost since the running program was built (perf: a kernel PMU
 * went away), or found again: a program of the same events over what is
 * there now (pmu_present()) is handed over as a reload's would be, so a
 * lost unit goes the way one missing at start-up goes - its series and
 * metrics absent, the rest counted and every sample valid.  Not while a
 * reload's program waits: the next tick looks again.
 */
static void rebuild_if_changed(struct sampler *s)
{
	uint64_t c = pmu_changes(s->pmu);
	struct program *p = s->prog, *np;
	bool pending;
	char why[256];

	if (!p || c == s->pmu_changes)
		return;
	pthread_mutex_lock(&s->lock);
	pending = s->pending != NULL;
	pthread_mutex_unlock(&s->lock);
	if (pending)
		return;
	np = program_new(p->topo, p->pmu, p->ev, p->nev,
			 (unsigned)ring_capacity(p->samples), p->interval_ms,
			 why, sizeof(why));
	if (!np) {
		log_warnx_limited(&s->lim_rebuild, "sampler: cannot rebuild "
				  "the baseline over the units there now: %s; "
				  "the next tick tries again", why);
		return;
	}
	if (program_same(p, np)) {
		s->pmu_changes = c;
		program_put(np);
		return;
	}
	pthread_mutex_lock(&s->lock);
	pending = s->pending != NULL;	/* a reload's, handed over meanwhile */
	if (!pending)
		s->pending = np;
	pthread_mutex_unlock(&s->lock);
	if (pending) {
		program_put(np);	/* it goes first; then look again */
		return;
	}
	s->pmu_changes = c;
	log_info("the baseline counts %u series now (%u before) over the "
		 "units there; its samples start after sequence number %llu",
		 np->ns, p->ns, (unsigned long long)ring_head(p->samples));
}

/* Picks up a new program and clears the sample; false: nothing to
 * sample yet. */
static bool tick_begin(struct sampler *s, struct tick *tk)
{
	struct program *p;

	rebuild_if_changed(s);
	take_pending(s);
	p = tk->p = s->prog;
	if (!p)
		return false;
	s->tick_no++;
	tk->delta = s->sample + SW_HDR;
	tk->invalid = tk->delta + p->ns;
	tk->nw = (p->ns + 63) / 64;
	tk->muxed = tk->invalid + tk->nw;
	memset(tk->invalid, 0, 2 * tk->nw * sizeof(uint64_t));
	memset(tk->delta, 0, p->ns * sizeof(uint64_t));
	mux_begin(&s->mux);
	return true;
}

/*
 * Interference this tick: counted once, the sample marked.  act: the
 * policy applies - reclaim rewrites every control at this tick's
 * schedule, yield leaves the programmable counters to the other agent
 * (doc/design.md section 4).
 */
static void interfered(struct sampler *s, struct tick *tk, bool act)
{
	if (!tk->interference) {
		s->st.interference++;
		tk->interference = true;
	}
	tk->flags |= SF_INTERFERENCE;
	tk->flags &= ~SF_VALID;
	if (!act)
		return;
	if (s->cfg.policy == POLICY_RECLAIM) {
		tk->force = true;
		return;
	}
	if (!s->yielded)
		log_warnx("interference policy is yield: leaving the "
			  "programmable counters to the other agent");
	s->yielded = true;
	s->st.owned = 0;
}

/* Is each socket's global control still what we left (the freeze
 * overwrites it, so it is read just before)?  true if not. */
static bool check_global(struct sampler *s, const struct program *p)
{
	bool hit = false;
	uint64_t seen;
	int r;

	for (unsigned sock = 0; sock < p->topo->nsockets; sock++) {
		r = pmu_check_global(s->pmu, sock, true, &seen);
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
	return hit;
}

/* Before the freeze: a new program is written whole; else the global
 * control is checked, or, yielded, every check_every ticks whether the
 * PMU is idle again (registers still as we left them do not count). */
static void tick_decide(struct sampler *s, struct tick *tk)
{
	char msg[256];

	if (s->need_program) {
		tk->force = true;
		s->need_program = false;
	} else if (!s->yielded) {
		if (check_global(s, tk->p)) {
			tk->global_hit = true;
			interfered(s, tk, true);
		}
	} else if (s->cfg.check_every &&
		   s->tick_no % s->cfg.check_every == 0 &&
		   pmu_foreign(s->pmu, msg, sizeof(msg)) == 0) {
		log_info("the uncore PMU is idle again: reclaiming it");
		s->yielded = false;
		s->st.owned = 1;
		tk->force = true;
	}
}

/*
 * Freezes the PMU (unless yielded) and reads back the controls and
 * filters of the counters that counted in the interval that just ended
 * (every register this daemon wrote, every check_every ticks).  A foreign
 * write that stopped or changed one of them and is still there is seen
 * in the tick whose deltas it spoiled, before a rewrite at a group switch
 * can hide it: the series of that unit instance lose this tick's delta
 * (mux_mark_unverified()), and the policy applies.  Yield unfreezes
 * again: the other agent keeps the PMU as it had it.
 */
static void tick_freeze(struct sampler *s, struct tick *tk)
{
	char msg[512];
	unsigned unread = 0;
	bool all;
	int r;

	if (s->yielded)
		return;
	pmu_enable(s->pmu, false);
	tk->froze = true;
	if (!s->counting) {		/* nothing of ours counted */
		mux_mark_unverified(&s->mux, 0, 0);
		return;
	}
	all = s->cfg.check_every && s->tick_no % s->cfg.check_every == 0;
	r = pmu_check_controls(s->pmu, all, msg, sizeof(msg), &unread);
	mux_mark_unverified(&s->mux, r > 0 ? (unsigned)r : 0, unread);
	if (r <= 0)
		return;
	log_warnx_limited(&s->lim_ctl, "interference: %d control register%s "
			  "changed behind our back: %s", r, r == 1 ? "" : "s",
			  msg);
	interfered(s, tk, true);
	if (s->yielded) {
		pmu_enable(s->pmu, true);
		tk->froze = false;
	}
}

/*
 * Reads the counters - first those the freeze does not stop, so the
 * wall time between two reads is their interval, then the frozen ones,
 * whose interval is the counting window the pmu measured - places the
 * groups of the next interval and unfreezes.
 */
static void tick_read(struct sampler *s, struct tick *tk)
{
	uint64_t t_read = clock_mono(s->clk);

	tk->first = s->last_mono == 0;
	tk->run_ns = tk->first ? 0 : t_read - s->last_mono;
	s->last_mono = t_read;
	tk->counted_ns = tk->froze ? pmu_counted_ns(s->pmu) : 0;
	tk->counted_err_ns = tk->froze ? pmu_counted_err_ns(s->pmu) : 0;
	tk->uncertain = tk->froze && pmu_window_uncertain(s->pmu);
	/* the groups' running time: the window the frozen counters
	 * counted, not the wall time between reads (pmu_stopped_*()) */
	mux_charge(&s->mux, tk->run_ns,
		   tk->froze ? pmu_stopped_counted_ns(s->pmu) : 0,
		   tk->froze ? pmu_stopped_counted_err_ns(s->pmu) : 0,
		   s->yielded);
	s->st.base_enabled_ns = s->base[0].enabled_ns;
	/* the wall time it ran: uncored_baseline_running_ratio says how
	 * much claims multiplexed it out, not how long ticks froze it */
	s->st.base_running_ns = s->base[0].live_running_ns;
	mux_read_live(&s->mux, tk->global_hit, s->yielded, tk->run_ns,
		      tk->delta, tk->invalid);
	mux_read_counters(&s->mux, tk->global_hit, s->yielded, tk->run_ns,
			  tk->delta, tk->invalid);
	mux_own_windows(&s->mux, tk->run_ns, tk->counted_ns, tk->delta,
			tk->invalid);
	if (s->yielded) {
		mux_idle(&s->mux);
		s->counting = false;
		return;
	}
	mux_schedule(&s->mux, tk->force);
	pmu_enable(s->pmu, true);
	s->counting = true;
}

/* A counter that advanced more than it can (reset or written by another
 * agent): counted and logged, the sample invalid (doc/design.md 4). */
static void tick_jumps(struct sampler *s, struct tick *tk)
{
	if (!s->mux.jumps)
		return;
	interfered(s, tk, false);
	log_warnx_limited(&s->lim_jump, "interference: %s (reset or "
			  "written by another agent?)%s", s->mux.jump_what,
			  s->mux.jumps > 1 ? "; and other counters" : "");
}

/*
 * The series of the baseline's groups that did not count in the interval
 * (multiplexed out: taking turns, or for claims) get their multiplexed
 * bit.  Those of a group taking turns (1 ..) stand at the rate of the
 * last interval they counted: their delta is that rate over this
 * interval's window, an estimate instead of no value, so that the
 * gauges of every sample sum every series, each at its latest rate
 * (doc/metrics.md, "Baseline events counted in turn").  Series of those
 * groups that counted record their rate.  Not on a first or yielded
 * tick (nothing is multiplexed then).
 */
static void tick_estimate(struct sampler *s, struct tick *tk)
{
	if (tk->first || s->yielded)
		return;
	for (unsigned g = 0; g < s->nbase; g++) {
		const struct group *x = &s->base[g];

		for (unsigned k = 0; k < x->ns; k++) {
			const struct pmu_slot *sl = &x->slot[k];
			unsigned i = x->first + k;
			uint64_t bit = 1ull << (i % 64);
			double win = (double)(sl->live || !tk->counted_ns
					      ? tk->run_ns : tk->counted_ns);

			if (sl->freerun)
				continue;	/* never multiplexed */
			if (x->counted) {
				if (g && win > 0 && !(tk->invalid[i / 64] & bit))
					s->rate[i] = (double)tk->delta[i] / win;
				continue;
			}
			tk->muxed[i / 64] |= bit;
			if (!g || isnan(s->rate[i]) || !(win > 0))
				continue;
			tk->delta[i] = (uint64_t)llround(s->rate[i] * win);
			tk->invalid[i / 64] &= ~bit;
		}
	}
}

/* The sample's flags; invalid samples are the ones with errors or
 * interference (being multiplexed out is not an error). */
static void tick_flags(struct sampler *s, struct tick *tk)
{
	const struct program *p = tk->p;
	bool read_err = false, muxed = false;

	for (unsigned w = 0; w < tk->nw; w++) {
		if (tk->invalid[w] & ~tk->muxed[w])
			tk->flags &= ~SF_VALID;
		tk->mux_gap |= (tk->invalid[w] & tk->muxed[w]) != 0;
		muxed |= tk->muxed[w] != 0;
	}
	if (s->pmu->perf && perf_scaled(s, p)) {
		tk->flags |= SF_SCALED;
		s->st.perf_scaled_samples++;
	}
	if (tk->first)
		tk->flags |= SF_FIRST;
	if (muxed)
		tk->flags |= SF_MUX;
	if (tk->uncertain && !tk->first) {
		tk->flags |= SF_UNCERTAIN;
		s->st.window_uncertain++;
	}
	for (unsigned g = 0; g < s->nbase; g++)
		for (unsigned k = 0; k < s->base[g].ns; k++)
			read_err |= !s->base[g].gs[k].up &&
				    (s->base[g].slot[k].freerun ||
				     s->base[g].counted);
	if (tk->first || tk->interference || read_err)
		s->st.invalid_samples++;
	s->sample[SW_T_NS] = clock_real(s->clk);
	s->sample[SW_INTERVAL_NS] = tk->run_ns;
	s->sample[SW_FLAGS] = tk->flags;
	s->sample[SW_GEN] = p->gen;
	s->sample[SW_COUNTED_NS] = tk->counted_ns;
	s->sample[SW_COUNTED_ERR_NS] = tk->counted_err_ns;
}

/* Self-metrics, then the sample and the snapshot into the rings. */
static void tick_publish(struct sampler *s, struct tick *tk)
{
	struct program *p = tk->p;
	struct pmu *pmu = s->pmu;
	uint64_t t1 = clock_mono(s->clk);
	unsigned b = tick_bucket((double)(t1 - tk->t0) / 1e9);

	s->st.ticks++;
	if (b < TICK_BUCKETS)
		s->st.tick_hist[b]++;
	s->st.tick_count++;
	s->st.tick_sum_ns += t1 - tk->t0;
	s->st.hw_reads = atomic_load(&pmu->hw->nreads);
	s->st.hw_writes = atomic_load(&pmu->hw->nwrites);
	s->st.hw_errors = atomic_load(&pmu->hw->nerrors);
	if (pmu->perf)
		perf_stats(s);
	s->st.sample_seq = ring_push(p->samples, s->sample);
	s->st.t_ns = s->sample[SW_T_NS];
	s->st.last_tick_mono_ns = t1;
	memcpy(s->snapw, &s->st, sizeof(s->st));
	for (unsigned i = 0; i < p->ns; i++) {
		s->snapw[SNAP_WORDS + i] = s->gs[i].est;
		s->snapw[SNAP_WORDS + p->ns + i] = s->gs[i].up;
	}
	memcpy(s->snapw + SNAP_WORDS + 2 * p->ns, s->vals,
	       p->nvals * sizeof(double));
	ring_push(p->snaps, s->snapw);
	atomic_store(&s->last_tick_mono, t1);
}

static void tick(struct sampler *s)
{
	struct tick tk = { .t0 = clock_mono(s->clk), .flags = SF_VALID };

	if (!tick_begin(s, &tk))
		return;
	if (s->claims)
		take_claims(s, tk.t0);
	tick_decide(s, &tk);
	tick_freeze(s, &tk);
	tick_read(s, &tk);
	if (s->claims)
		give_claims(s);
	s->st.wraps = s->mux.wraps;
	s->st.switches = s->mux.switches;
	tick_jumps(s, &tk);
	tick_estimate(s, &tk);
	tick_flags(s, &tk);
	derive(s, tk.p, tk.delta, tk.invalid, (double)tk.run_ns / 1e9,
	       (double)tk.counted_ns / 1e9, !tk.interference && tk.mux_gap);
	tick_publish(s, &tk);
}

/* A tick or a call is about to change the counters: readers retry. */
static void hw_begin(struct sampler *s)
{
	atomic_fetch_add(&s->hwseq, 1);
}

/* ... it has: the claims' groups for readers, then hwseq even again. */
static void hw_end(struct sampler *s)
{
	struct mux_snap *sn = NULL, *old;

	if (s->claims &&
	    (sn = mux_snapshot(&s->mux, s->last_mono, s->spare)))
		sn->gen = atomic_load(&s->hwseq) + 1;
	s->spare = NULL;	/* consumed */
	pthread_mutex_lock(&s->lock);
	old = s->snap;
	s->snap = sn;	/* NULL (ENOMEM): readers answer 503 until a tick */
	pthread_mutex_unlock(&s->lock);
	/* no reader can take old now; if none holds it, it is the next
	 * tick's buffer instead of a free and a malloc a tick (a reader's
	 * put that made refs 1 is ordered before this load) */
	if (old && atomic_load(&old->refs) == 1)
		s->spare = old;
	else
		mux_snap_put(old);
	atomic_fetch_add(&s->hwseq, 1);
}

void sampler_tick(struct sampler *s)
{
	hw_begin(s);
	tick(s);
	hw_end(s);
}

/* ---- calls on the sampling thread --------------------------------------- */

struct sampler_call {
	void (*fn)(struct sampler *s, void *arg);
	void *arg;
	enum { CALL_QUEUED, CALL_RUNNING, CALL_DONE } st;
	struct sampler_call *next;
};

#define CALL_TIMEOUT_MS 2000

static void run_calls(struct sampler *s)
{
	struct sampler_call *c;

	pthread_mutex_lock(&s->call_lock);
	while ((c = s->calls)) {
		s->calls = c->next;
		c->st = CALL_RUNNING;
		pthread_mutex_unlock(&s->call_lock);
		c->fn(s, c->arg);
		pthread_mutex_lock(&s->call_lock);
		c->st = CALL_DONE;
		pthread_cond_broadcast(&s->call_cond);
	}
	pthread_mutex_unlock(&s->call_lock);
}

/* Takes c out of the queue (the lock held). */
static void unqueue(struct sampler *s, struct sampler_call *c)
{
	for (struct sampler_call **p = &s->calls; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			return;
		}
}

/*
 * Runs fn(s, arg) where it may touch mux and the PMU: on the sampling
 * thread between two ticks, or here while there is no thread.  Waits for
 * it.  0, or -ETIMEDOUT if the thread did not take it within
 * CALL_TIMEOUT_MS (fn then never runs), -errno if it cannot be woken.
 */
static int sampler_call(struct sampler *s, void (*fn)(struct sampler *, void *),
			void *arg)
{
	struct sampler_call c = { fn, arg, CALL_QUEUED, NULL };
	uint64_t one = 1;
	struct timespec dl;
	int r = 0;

	pthread_mutex_lock(&s->call_lock);
	if (!atomic_load(&s->threaded)) {
		fn(s, arg);
		pthread_mutex_unlock(&s->call_lock);
		return 0;
	}
	c.next = NULL;
	{
		struct sampler_call **p = &s->calls;

		while (*p)
			p = &(*p)->next;
		*p = &c;
	}
	if (write(s->cfd, &one, sizeof(one)) < 0)
		r = -errno;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += CALL_TIMEOUT_MS / 1000;
	while (r == 0 && c.st != CALL_DONE) {
		if (c.st == CALL_RUNNING)	/* taken: it ends soon */
			pthread_cond_wait(&s->call_cond, &s->call_lock);
		else if (pthread_cond_timedwait(&s->call_cond, &s->call_lock,
						&dl) == ETIMEDOUT &&
			 c.st == CALL_QUEUED)
			r = -ETIMEDOUT;
	}
	if (r < 0)
		unqueue(s, &c);
	pthread_mutex_unlock(&s->call_lock);
	return r;
}

struct reprobe_arg {
	char *msg;
	size_t len;
	int r;
};

static void call_reprobe(struct sampler *s, void *arg)
{
	struct reprobe_arg *a = arg;

	a->r = pmu_reprobe(s->pmu, a->msg, a->len);
}

int sampler_reprobe(struct sampler *s, char *msg, size_t len)
{
	struct reprobe_arg a = { msg, len, 0 };
	int r;

	if (len)
		msg[0] = '\0';
	r = sampler_call(s, call_reprobe, &a);
	return r < 0 ? r : a.r;
}

/* ---- the claims table's hooks (HTTP thread) ---------------------------- */

/* On the sampling thread: the counters counting in this interval. */
static void call_held_now(struct sampler *s, void *arg)
{
	mux_held_now(&s->mux, arg);
}

/* Fills a for a pinned claim: the baseline's counters, and those counting
 * now. */
static int hook_around(void *arg, struct claims_around *a)
{
	struct sampler *s = arg;
	struct program *p = sampler_get(s);
	int r;

	if (!p)
		return -EAGAIN;		/* no tick yet */
	memset(a->base.ctr, 0, sizeof(a->base.ctr));
	memset(a->base.filt_inst, 0, sizeof(a->base.filt_inst));
	memset(a->holder, 0, sizeof(a->holder));
	sched_occupy(p->plat, p->ev, p->nev, p->ctr, &a->base);
	for (unsigned e = 0; e < p->nev; e++)
		if (p->plat->units[p->ev[e].unit]->kind == UNIT_PROG &&
		    p->ctr[e] >= 0 && p->ctr[e] < PLAT_MAX_CTRS)
			snprintf(a->holder[p->ev[e].unit][p->ctr[e]],
				 SCHED_NAME_MAX, "%s", p->ev[e].name);
	r = sampler_call(s, call_held_now, &a->now);
	if (r == 0)
		sched_occupy(p->plat, p->ev, p->nev, p->ctr, &a->now);
	program_put(p);
	return r;
}

/* ns since the last tick's reading, or 0 before it (sampling thread). */
static uint64_t since_tick(const struct sampler *s)
{
	uint64_t now = clock_mono(s->clk);

	return s->last_mono && now > s->last_mono ? now - s->last_mono : 0;
}

/* On the sampling thread: new claim *(uint64_t *)arg counting now if the
 * counters of its placement are free in this interval (else the next
 * tick places it). */
static void call_start_now(struct sampler *s, void *arg)
{
	uint64_t seq = *(uint64_t *)arg;
	struct evspec ev[CLAIM_MAX_EVENTS];
	int plan[CLAIM_MAX_EVENTS];
	struct mux_spec sp = { .key = seq, .ev = ev, .plan = plan };
	struct claim *cl;
	int r;

	/* yielded, or before the first tick: the next tick starts it */
	if (s->yielded || !s->last_mono || !s->claims)
		return;
	/* the groups of claims released since the tick give their
	 * counters back now (mux_start_now() clears their controls) */
	take_claims(s, clock_mono(s->clk));
	/* a copy: the claims lock is never held across hardware access */
	claims_lock(s->claims);
	if ((cl = claims_by_seq(s->claims, seq))) {
		memcpy(ev, cl->ev, sizeof(ev));
		memcpy(plan, cl->plan, sizeof(plan));
		sp.nev = cl->nev;
		sp.pinned = cl->pinned;
	}
	claims_unlock(s->claims);
	if (!sp.nev)
		return;
	hw_begin(s);
	r = mux_start_now(&s->mux, &sp, since_tick(s), plan);
	hw_end(s);
	claims_lock(s->claims);
	if (r == 0 && (cl = claims_by_seq(s->claims, seq))) {
		cl->running = true;
		memcpy(cl->ctr, plan, sizeof(cl->ctr));
	}
	claims_unlock(s->claims);
	if (r < 0 && r != -EBUSY && r != -EEXIST)
		log_warnx("claim c%" PRIu64 ": cannot start it now (%s); the "
			  "next tick will", seq, strerror(-r));
}

static void hook_start_now(void *arg, uint64_t seq)
{
	struct sampler *s = arg;

	if (sampler_call(s, call_start_now, &seq) < 0)
		log_warnx("claim c%" PRIu64 ": the sampler did not take it "
			  "within %d ms; it starts at the next tick", seq,
			  CALL_TIMEOUT_MS);
}

/* How long a reader retries while ticks keep changing the counters. */
#define READ_RETRY_NS 200000000ull
/* A read-now that took longer than READ_SPAN_NS was held up (preempted)
 * somewhere between its two looks at the clock: it is tried again, up to
 * READ_WIDE_TRIES in all, the last kept with its span as its error (a
 * read of many sockets' counters may simply take that long). */
#define READ_SPAN_NS 1000000ull
#define READ_WIDE_TRIES 3

/* One try at reading cl now: -EAGAIN if a tick ran meanwhile (or runs:
 * then after a short pause), -ENOENT if no tick has taken it yet. */
static int read_try(struct sampler *s, struct claim *cl, struct mux_now *v,
		    struct mux_reading *rd)
{
	uint64_t seq = atomic_load(&s->hwseq);
	struct mux_snap *sn;
	int r;

	if (seq & 1) {
		struct timespec ts = { 0, 20000 };

		nanosleep(&ts, NULL);	/* a tick takes tens of us */
		return -EAGAIN;
	}
	pthread_mutex_lock(&s->lock);
	if ((sn = s->snap))
		atomic_fetch_add(&sn->refs, 1);
	pthread_mutex_unlock(&s->lock);
	if (!sn)
		return seq ? -ENOMEM : -ENOENT;	/* no tick yet: not taken */
	r = sn->gen == seq ? mux_snap_read(s->pmu, sn, cl->seq, s->clk, v,
					   cl->ns, rd)
			   : -EAGAIN;
	mux_snap_put(sn);
	return atomic_load(&s->hwseq) == seq ? r : -EAGAIN;
}

/* A read-now the perf backend's reads make a call on the sampling
 * thread (they account what the groups counted, as the tick does). */
struct read_call {
	struct claim *cl;
	struct mux_now *v;
	struct mux_reading *rd;
	int r;
};

static void call_read_now(struct sampler *s, void *arg)
{
	struct read_call *c = arg;

	c->r = read_try(s, c->cl, c->v, c->rd);	/* no tick meanwhile */
}

/* cl's counts and times read now; a claim no tick has taken yet keeps
 * its zeros (not running). */
static int hook_read_now(void *arg, struct claim *cl)
{
	struct sampler *s = arg;
	struct mux_now *v = calloc(cl->ns + 1, sizeof(*v));
	uint64_t end = now_ns(CLOCK_MONOTONIC) + READ_RETRY_NS;
	struct mux_reading rd;
	struct read_call c = { cl, v, &rd, -EAGAIN };
	int r;

	if (!v)
		return -ENOMEM;
	if (!pmu_read_anywhere(s->pmu)) {
		r = sampler_call(s, call_read_now, &c) < 0 ? -EAGAIN : c.r;
	} else {
		unsigned wide = 0;

		for (;;) {
			bool more = now_ns(CLOCK_MONOTONIC) < end;

			r = read_try(s, cl, v, &rd);
			if (r == 0 && 2 * rd.read_err_ns > READ_SPAN_NS &&
			    ++wide < READ_WIDE_TRIES && more)
				continue;
			if (r != -EAGAIN || !more)
				break;
		}
		/* ticks kept coming between a try's two looks (a loaded
		 * machine: TSan's CI run lost 200 ms of tries to them): read
		 * on the sampling thread, between two ticks, as the perf
		 * backend always does */
		if (r == -EAGAIN)
			r = sampler_call(s, call_read_now, &c) < 0 ? -EAGAIN
								   : c.r;
	}
	/* a reading older than the one the claim shows (a counter that
	 * could not be read now answers its last reading that worked,
	 * mux_snap_read()): the claim's newer one stands */
	if (r == 0 && rd.enabled_ns >= cl->enabled_ns) {
		cl->enabled_ns = rd.enabled_ns;
		cl->running_ns = rd.running_ns;
		cl->live_running_ns = rd.live_running_ns;
		cl->running_err_ns = rd.running_err_ns;
		cl->read_err_ns = rd.read_err_ns;
		cl->running = rd.running;
		for (unsigned e = 0; e < cl->nev && e < MUX_SNAP_MAX_EVENTS; e++)
			cl->ctr[e] = rd.ctr[e];
		for (unsigned k = 0; k < rd.ns; k++) {
			cl->ser[k].raw = v[k].raw;
			cl->ser[k].est = v[k].est;
			cl->ser[k].run_adj = v[k].run_adj;
		}
	}
	free(v);
	return r == -ENOENT ? 0 : r;
}

static const struct claims_hooks hooks = {
	.around = hook_around,
	.start_now = hook_start_now,
	.read_now = hook_read_now,
};

void sampler_hook_claims(struct sampler *s)
{
	if (s->claims)
		claims_set_hooks(s->claims, &hooks, s);
}
