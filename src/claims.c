/*
 * claims.c - the claims table: leases, limits and owners (see claims.h).
 *
 * Every field of every claim is guarded by the table lock.  The HTTP
 * handlers take it for a lookup and a copy; the sampler takes it twice a
 * tick, briefly: to expire leases and take the live claims' events, and
 * to write their results back - never across hardware access.  A
 * released or expired claim is marked gone and freed under the lock by
 * the next create or tick; the next tick stops counting it.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "claims.h"
#include "log.h"
#include "mux.h"

#define CLAIMS_MAX 10000

struct claims {
	pthread_mutex_t lock;
	const struct clock_src *clk;	/* leases */
	const struct pmu *pmu;
	struct claims_cfg cfg;
	struct claim **v;	/* by ascending seq */
	unsigned n, cap;
	uint64_t next_id;
	uint64_t created, expired, released;
};

static int fail(struct claims_err *e, enum claims_status st,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct claims_err *e, enum claims_status st,
		const char *fmt, ...)
{
	va_list ap;

	e->st = st;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

struct claims *claims_new(const struct pmu *pmu, const struct claims_cfg *cfg)
{
	struct claims *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	c->pmu = pmu;
	c->clk = &clock_system;
	c->cfg = *cfg;
	c->next_id = 1;
	return c;
}

void claim_clear(struct claim *cl)
{
	free(cl->ser);
	cl->ser = NULL;
	cl->ns = 0;
}

static void claim_free(struct claim *cl)
{
	if (!cl)
		return;
	claim_clear(cl);
	free(cl);
}

void claims_free(struct claims *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->n; i++)
		claim_free(c->v[i]);
	free(c->v);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

void claims_set_clock(struct claims *c, const struct clock_src *clk)
{
	c->clk = clk;
}

void claims_set_cfg(struct claims *c, const struct claims_cfg *cfg)
{
	pthread_mutex_lock(&c->lock);
	c->cfg = *cfg;
	pthread_mutex_unlock(&c->lock);
}

struct claims_cfg claims_cfg(struct claims *c)
{
	struct claims_cfg cfg;

	pthread_mutex_lock(&c->lock);
	cfg = c->cfg;
	pthread_mutex_unlock(&c->lock);
	return cfg;
}

const struct pmu *claims_pmu(const struct claims *c)
{
	return c->pmu;
}

/* The longest interval cl's counters allow, and its first such event. */
static unsigned claim_max_interval_ms(const struct claims *c,
				      const struct claim *cl, unsigned *ev)
{
	unsigned best = UINT_MAX;

	for (unsigned e = 0; e < cl->nev; e++) {
		unsigned m = evspec_max_interval_ms(c->pmu->plat, &cl->ev[e]);

		if (m < best) {
			best = m;
			*ev = e;
		}
	}
	return best;
}

unsigned claims_max_interval_ms(struct claims *c, char *id)
{
	unsigned best = UINT_MAX, ev;

	id[0] = '\0';
	pthread_mutex_lock(&c->lock);
	for (unsigned i = 0; i < c->n; i++) {
		unsigned m;

		if (c->v[i]->gone)
			continue;
		m = claim_max_interval_ms(c, c->v[i], &ev);
		if (m < best) {
			best = m;
			snprintf(id, CLAIM_ID_MAX, "%s", c->v[i]->id);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return best;
}

void claims_lock(struct claims *c)
{
	pthread_mutex_lock(&c->lock);
}

void claims_unlock(struct claims *c)
{
	pthread_mutex_unlock(&c->lock);
}

/* Under the lock: frees the released and expired claims.  The sampler
 * keeps no pointer to a claim outside the lock (its groups are its own
 * copies, found again by seq), so a gone claim can go at once. */
static void reap(struct claims *c)
{
	unsigned k = 0;

	for (unsigned i = 0; i < c->n; i++) {
		if (c->v[i]->gone)
			claim_free(c->v[i]);
		else
			c->v[k++] = c->v[i];
	}
	c->n = k;
}

unsigned claims_live(struct claims *c, uint64_t now,
		     struct claim *const **v)
{
	for (unsigned i = 0; i < c->n; i++) {
		struct claim *cl = c->v[i];

		if (!cl->gone && now >= cl->expires_mono) {
			log_info("claim %s (uid %u, \"%s\") expired", cl->id,
				 (unsigned)cl->uid, cl->label);
			cl->gone = true;
			c->expired++;
		}
	}
	reap(c);
	*v = c->v;
	return c->n;
}

static int cmp_seq(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key;
	uint64_t e = (*(struct claim *const *)elem)->seq;

	return k < e ? -1 : k > e;
}

struct claim *claims_by_seq(struct claims *c, uint64_t seq)
{
	struct claim **f = c->n ? bsearch(&seq, c->v, c->n, sizeof(*c->v),
					  cmp_seq) : NULL;

	return f && !(*f)->gone ? *f : NULL;
}

static unsigned count_live(const struct claims *c);

void claims_totals(const struct claims *c, uint64_t *live,
		   uint64_t *created, uint64_t *expired)
{
	*live = count_live(c);
	*created = c->created;
	*expired = c->expired;
}

static struct claim *find(struct claims *c, const char *id)
{
	for (unsigned i = 0; i < c->n; i++)
		if (!c->v[i]->gone && strcmp(c->v[i]->id, id) == 0)
			return c->v[i];
	return NULL;
}

/* Under the lock: a copy of cl (its series duplicated) into out. */
static int copy_out(const struct claims *c, const struct claim *cl,
		    struct claim *out, struct claims_err *e)
{
	*out = *cl;
	out->ser = NULL;
	if (cl->ns) {
		out->ser = malloc(cl->ns * sizeof(*out->ser));
		if (!out->ser) {
			out->ns = 0;
			return fail(e, CLAIMS_NOMEM, "out of memory");
		}
		memcpy(out->ser, cl->ser, cl->ns * sizeof(*out->ser));
	}
	{
		double rem = (double)(int64_t)(cl->expires_mono -
					       clock_mono(c->clk)) / 1e9;

		out->expires_real = (double)clock_real(c->clk) / 1e9 +
				    (rem > 0 ? rem : 0);
	}
	return 0;
}

/* ---- requests ------------------------------------------------------- */

static unsigned count_uid(const struct claims *c, uid_t uid)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->n; i++)
		n += !c->v[i]->gone && c->v[i]->uid == uid;
	return n;
}

static unsigned count_live(const struct claims *c)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->n; i++)
		n += !c->v[i]->gone;
	return n;
}

/* A TTL in 1..max; -1 after a refusal. */
static long check_ttl(int64_t t, unsigned max, struct claims_err *e)
{
	if (t < 1 || t > (int64_t)max)
		return fail(e, CLAIMS_BAD_REQUEST, "ttl_s %" PRId64 " is out of "
			    "range (1..%u)", t, max);
	return (long)t;
}

/* The claim's series, laid out as the sampler's group will be (the same
 * routine builds both), with no counts yet. */
static int build_series(const struct claims *c, struct claim *cl)
{
	struct pmu_slot *slot;
	int *sev;
	char why[64];

	if (mux_slots(c->pmu, cl->ev, cl->nev, NULL, &slot, &sev, &cl->ns,
		      why, sizeof(why)) < 0)
		return -ENOMEM;
	cl->ser = calloc(cl->ns + 1, sizeof(*cl->ser));
	for (unsigned k = 0; cl->ser && k < cl->ns; k++)
		cl->ser[k] = (struct claim_series){
			.socket = slot[k].socket, .inst = slot[k].inst,
			.unit = slot[k].unit, .ev = (uint8_t)sev[k],
			.freerun = slot[k].freerun,
		};
	free(slot);
	free(sev);
	return cl->ser ? 0 : -ENOMEM;
}

int claims_create(struct claims *c, uid_t uid, pid_t pid,
		  const struct claim_req *rq, struct claim *out,
		  struct claims_err *e)
{
	struct claim *cl = calloc(1, sizeof(*cl));
	char why[256];
	long ttl;
	int err, r = -1;

	if (!cl)
		return fail(e, CLAIMS_NOMEM, "out of memory");
	pthread_mutex_lock(&c->lock);
	ttl = c->cfg.default_ttl_s;
	if (rq->have_ttl && (ttl = check_ttl(rq->ttl_s, c->cfg.max_ttl_s, e)) < 0)
		goto unlock;
	for (unsigned i = 0; i < rq->nev; i++) {
		err = sched_resolve(c->pmu->plat, rq->events[i],
				    c->cfg.allow_raw_events, &cl->ev[i], why,
				    sizeof(why));
		if (err == -EPERM) {
			fail(e, CLAIMS_RAW_DISABLED, "events[%u]: %s", i, why);
			goto unlock;
		}
		if (err < 0) {
			fail(e, CLAIMS_UNKNOWN_EVENT, "events[%u]: %s", i, why);
			goto unlock;
		}
		for (unsigned k = 0; k < i; k++)
			if (strcmp(cl->ev[k].name, cl->ev[i].name) == 0) {
				fail(e, CLAIMS_BAD_REQUEST, "events[%u]: %s is "
				     "listed twice", i, cl->ev[i].name);
				goto unlock;
			}
	}
	cl->nev = rq->nev;
	snprintf(cl->label, sizeof(cl->label), "%s", rq->label ? rq->label : "");
	cl->export = rq->export;
	{
		unsigned ev = 0, max = claim_max_interval_ms(c, cl, &ev);

		if (c->cfg.interval_ms > max) {
			fail(e, CLAIMS_INTERVAL, "events[%u]: %s counts "
			     "on a counter that can wrap twice within the "
			     "sampling interval (%u ms; at most %u ms for this "
			     "event): its counts would be lost", ev,
			     cl->ev[ev].name, c->cfg.interval_ms, max);
			goto unlock;
		}
	}
	if (sched_place(c->pmu->plat, cl->ev, cl->nev, NULL, cl->plan, why,
			sizeof(why)) < 0) {
		fail(e, CLAIMS_UNSCHEDULABLE, "these events can never count "
		     "together: %s", why);
		goto unlock;
	}
	if (count_uid(c, uid) >= c->cfg.max_per_uid) {
		fail(e, CLAIMS_LIMIT, "uid %u holds %u claims, the limit "
		     "(max_per_uid)", (unsigned)uid, count_uid(c, uid));
		goto unlock;
	}
	/* only live claims count: released ones go now, not at the next
	 * tick (a long interval would let churn fill the table) */
	reap(c);
	if (count_live(c) >= c->cfg.max_total || c->n >= CLAIMS_MAX) {
		fail(e, CLAIMS_LIMIT, "the daemon holds %u claims, the limit "
		     "(max_total)", count_live(c));
		goto unlock;
	}
	if (c->n == c->cap) {
		unsigned nc = c->cap ? c->cap * 2 : 16;
		struct claim **nv = realloc(c->v, nc * sizeof(*nv));

		if (!nv) {
			fail(e, CLAIMS_NOMEM, "out of memory");
			goto unlock;
		}
		c->v = nv;
		c->cap = nc;
	}
	if (build_series(c, cl) < 0) {
		fail(e, CLAIMS_NOMEM, "out of memory");
		goto unlock;
	}
	for (unsigned i = 0; i < CLAIM_MAX_EVENTS; i++)
		cl->ctr[i] = -1;
	cl->seq = c->next_id++;
	snprintf(cl->id, sizeof(cl->id), "c%" PRIu64, cl->seq);
	cl->uid = uid;
	cl->pid = pid;
	cl->ttl_s = (unsigned)ttl;
	cl->created_mono = clock_mono(c->clk);
	cl->expires_mono = cl->created_mono + (uint64_t)ttl * 1000000000ull;
	cl->created_real = (double)clock_real(c->clk) / 1e9;
	if (copy_out(c, cl, out, e) < 0)
		goto unlock;
	c->v[c->n++] = cl;
	c->created++;
	log_info("claim %s created by uid %u pid %d (\"%s\"): %u event%s, ttl "
		 "%ld s", cl->id, (unsigned)uid, (int)pid, cl->label, cl->nev,
		 cl->nev == 1 ? "" : "s", ttl);
	cl = NULL;
	r = 0;
unlock:
	pthread_mutex_unlock(&c->lock);
	claim_free(cl);
	return r;
}

/* The claim for id if uid may touch it; NULL after a refusal (lock held). */
static struct claim *owned(struct claims *c, const char *id, uid_t uid,
			   struct claims_err *e)
{
	struct claim *cl = find(c, id);

	if (!cl) {
		fail(e, CLAIMS_NOT_FOUND, "no claim \"%.32s\"", id);
		return NULL;
	}
	if (uid != 0 && uid != cl->uid) {
		fail(e, CLAIMS_FORBIDDEN, "claim %s belongs to uid %u", cl->id,
		     (unsigned)cl->uid);
		return NULL;
	}
	return cl;
}

int claims_list(struct claims *c, uid_t uid, struct claim **v)
{
	struct claims_err e;
	int n = 0;

	pthread_mutex_lock(&c->lock);
	*v = calloc(c->n + 1, sizeof(**v));
	for (unsigned i = 0; *v && i < c->n; i++)
		if (!c->v[i]->gone && (uid == 0 || c->v[i]->uid == uid) &&
		    copy_out(c, c->v[i], &(*v)[n], &e) == 0)
			n++;
	pthread_mutex_unlock(&c->lock);
	return *v ? n : -1;
}

void claims_list_free(struct claim *v, int n)
{
	for (int i = 0; i < n; i++)
		claim_clear(&v[i]);
	free(v);
}

int claims_get(struct claims *c, const char *id, uid_t uid,
	       struct claim *out, struct claims_err *e)
{
	struct claim *cl;
	int r = -1;

	pthread_mutex_lock(&c->lock);
	if ((cl = owned(c, id, uid, e)))
		r = copy_out(c, cl, out, e);
	pthread_mutex_unlock(&c->lock);
	return r;
}

int claims_renew(struct claims *c, const char *id, uid_t uid, bool have_ttl,
		 int64_t ttl_s, struct claim *out, struct claims_err *e)
{
	struct claim *cl;
	long ttl;
	int r = -1;

	pthread_mutex_lock(&c->lock);
	if (!(cl = owned(c, id, uid, e)))
		goto out;
	ttl = cl->ttl_s;
	if (have_ttl && (ttl = check_ttl(ttl_s, c->cfg.max_ttl_s, e)) < 0)
		goto out;
	cl->ttl_s = (unsigned)ttl;
	cl->expires_mono = clock_mono(c->clk) + (uint64_t)ttl * 1000000000ull;
	r = copy_out(c, cl, out, e);
out:
	pthread_mutex_unlock(&c->lock);
	return r;
}

int claims_release(struct claims *c, const char *id, uid_t uid,
		   struct claim *out, struct claims_err *e)
{
	struct claim *cl;
	int r = -1;

	pthread_mutex_lock(&c->lock);
	if ((cl = owned(c, id, uid, e)) && (r = copy_out(c, cl, out, e)) == 0) {
		cl->gone = true;
		c->released++;
		log_info("claim %s released by uid %u", cl->id, (unsigned)uid);
	}
	pthread_mutex_unlock(&c->lock);
	return r;
}

unsigned claims_count(struct claims *c)
{
	unsigned n;

	pthread_mutex_lock(&c->lock);
	n = count_live(c);
	pthread_mutex_unlock(&c->lock);
	return n;
}

const char *claims_holder(struct claims *c, unsigned socket, int unit,
			  unsigned inst, unsigned idx, char *buf, size_t len)
{
	const char *id = NULL;

	pthread_mutex_lock(&c->lock);
	for (unsigned i = 0; i < c->n && !id; i++) {
		const struct claim *cl = c->v[i];

		if (cl->gone || !cl->running)
			continue;
		for (unsigned k = 0; k < cl->ns && !id; k++) {
			const struct claim_series *sr = &cl->ser[k];

			if (!sr->freerun && sr->socket == socket &&
			    sr->unit == unit && sr->inst == inst &&
			    sr->idx == idx)
				id = cl->id;
		}
	}
	if (id)
		snprintf(buf, len, "%s", id);
	pthread_mutex_unlock(&c->lock);
	return id ? buf : NULL;
}
