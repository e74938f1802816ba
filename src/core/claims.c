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
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "claims.h"
#include "formula.h"
#include "base/log.h"
#include "pmu/mux.h"

#define CLAIMS_MAX 10000

/* How often the processes of end_with_process claims are looked at. */
#define CLAIMS_ALIVE_EVERY_NS UINT64_C(1000000000)

struct claims {
	pthread_mutex_t lock;
	const struct clock_src *clk;	/* leases */
	const struct pmu *pmu;
	struct claims_cfg cfg;
	struct claim **v;	/* by ascending seq */
	unsigned n, cap;
	uint64_t next_id;
	char tag[CLAIM_TAG_LEN + 1];	/* of the ids (claims.h) */
	char instance[CLAIMS_INSTANCE_MAX];
	uint64_t tag_base;	/* the seq before the tag's first claim */
	uint64_t created, expired, released;
	uint64_t alive_next;	/* when claims_live() next asks whether the
				   end_with_process claims' processes live */
	const struct claims_hooks *hooks;	/* the sampler's side */
	void *hook_arg;
};

static int fail(struct claims_err *e, enum claims_status st,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Cuts text s (of a buffer of len bytes, which it filled to the brim)
 * after its last whole word, ending it with "..." (U+2026): a message
 * that does not fit is never cut inside a word. */
static void cut_at_word(char *s, size_t len)
{
	static const char ell[] = "\xe2\x80\xa6";	/* U+2026 */
	size_t n = strlen(s);

	if (len < sizeof(ell) + 1)
		return;
	if (n > len - sizeof(ell))
		n = len - sizeof(ell);
	while (n > 0 && s[n] != ' ')
		n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == ';' ||
			 s[n - 1] == ',' || s[n - 1] == ':'))
		n--;
	memcpy(s + n, ell, sizeof(ell));
}

static int fail(struct claims_err *e, enum claims_status st,
		const char *fmt, ...)
{
	va_list ap;
	int w;

	e->st = st;
	va_start(ap, fmt);
	w = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	if (w >= (int)sizeof(e->msg))
		cut_at_word(e->msg, sizeof(e->msg));
	return -1;
}

/* 64 random bits: from getrandom(), or, should the kernel have none to
 * give, from the clock and the pid (a start's ids still differ from the
 * last start's: that is all they need). */
static uint64_t random64(void)
{
	struct timespec ts;
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == sizeof(r))
		return r;
	clock_gettime(CLOCK_REALTIME, &ts);
	r = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
	    ((uint64_t)getpid() << 40);
	return r * 0x9e3779b97f4a7c15ull;
}

/* A tag unlike old (NULL: any) into tag: CLAIM_TAG_LEN characters of
 * [0-9a-z]. */
static void draw_tag(char *tag, const char *old)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";

	do {
		uint64_t r = random64();

		for (unsigned i = 0; i < CLAIM_TAG_LEN; i++, r /= 36)
			tag[i] = digits[r % 36];
		tag[CLAIM_TAG_LEN] = '\0';
	} while (old && strcmp(tag, old) == 0);
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
	draw_tag(c->tag, NULL);
	snprintf(c->instance, sizeof(c->instance), "%016" PRIx64, random64());
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

const char *claims_instance(const struct claims *c)
{
	return c->instance;
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

void claims_set_hooks(struct claims *c, const struct claims_hooks *h,
		      void *arg)
{
	c->hooks = h;
	c->hook_arg = arg;
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
		unsigned m = evspec_max_interval_ms(c->pmu, &cl->ev[e]);

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

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool claims_lock_within(struct claims *c, uint64_t ns)
{
	uint64_t end = 0;

	while (pthread_mutex_trylock(&c->lock) != 0) {
		uint64_t now = mono_now();

		if (!end)
			end = now + ns;
		else if (now >= end)
			return false;
		sched_yield();	/* the holder may need this CPU */
	}
	return true;
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

/* When pinned claim cl's pin ends (CLOCK_MONOTONIC ns): max_pinned_s
 * after its creation, however often it was renewed; UINT64_MAX: with
 * its lease. */
static uint64_t pin_end(const struct claims *c, const struct claim *cl)
{
	if (!c->cfg.max_pinned_s)
		return UINT64_MAX;
	return cl->created_mono + (uint64_t)c->cfg.max_pinned_s * 1000000000ull;
}

/* Under the lock: the pins due by now end; their claims share their
 * counters from now on (the next tick, or a claim started now, sees
 * them unpinned). */
static void unpin_due(struct claims *c, uint64_t now)
{
	for (unsigned i = 0; i < c->n; i++) {
		struct claim *cl = c->v[i];

		if (cl->gone || !cl->pinned || now < pin_end(c, cl))
			continue;
		cl->pinned = false;
		log_info("claim %s (uid %u, \"%s\") was pinned for %u s, the "
			 "limit (max_pinned_s): it shares its counters from now "
			 "on", cl->id, (unsigned)cl->uid, cl->label,
			 c->cfg.max_pinned_s);
	}
}

unsigned claims_live(struct claims *c, uint64_t now,
		     struct claim *const **v)
{
	/* kill(pid, 0) per claim at most once a second, not at every tick
	 * of the sampler thread (10 ms ticks, hundreds of claims) */
	bool look = now >= c->alive_next;

	if (look)
		c->alive_next = now + CLAIMS_ALIVE_EVERY_NS;
	unpin_due(c, now);
	for (unsigned i = 0; i < c->n; i++) {
		struct claim *cl = c->v[i];

		if (!cl->gone && now >= cl->expires_mono) {
			log_info("claim %s (uid %u, \"%s\") expired", cl->id,
				 (unsigned)cl->uid, cl->label);
			cl->gone = true;
			c->expired++;
		} else if (look && !cl->gone && cl->end_with_process &&
			   kill(cl->pid, 0) < 0 && errno == ESRCH) {
			/* killed, or ended without releasing it: its
			 * counters are free now, not at the lease's end
			 * (EPERM: alive, another uid's; a pid reused
			 * meanwhile leaves the claim to its lease) */
			log_info("claim %s (uid %u, \"%s\") ended: its process "
				 "%d has ended", cl->id, (unsigned)cl->uid,
				 cl->label, (int)cl->pid);
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
		out->pinned_until_real = 0;
		if (cl->pinned && pin_end(c, cl) != UINT64_MAX) {
			rem = (double)(int64_t)(pin_end(c, cl) -
						clock_mono(c->clk)) / 1e9;
			out->pinned_until_real = (double)clock_real(c->clk) /
						 1e9 + (rem > 0 ? rem : 0);
		}
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

/*
 * Formula i of rq into cl->form[] (its catalog entry, and its events
 * added to cl's where no event of cl is the same): refused if the name
 * is unknown or ambiguous here, the entry cannot count here (the
 * catalog's reason, or an event this machine lacks), its events can
 * never count together on their own, or they would take cl past
 * CLAIM_MAX_EVENTS.  0 or -1.
 */
static int add_formula(struct claims *c, const struct claim_req *rq,
		       unsigned i, struct claim *cl, struct claims_err *e)
{
	const struct platform *pl = c->pmu->plat;
	const struct topology *t = c->pmu->topo;
	struct claim_formula *cf = &cl->form[cl->nform];
	struct evspec fev[CLAIM_FORMULA_EVENTS];
	char why[300];
	unsigned ne;

	if (!(cf->f = formula_find(pl, rq->formulas[i], why, sizeof(why))))
		return fail(e, CLAIMS_UNKNOWN_FORMULA, "formulas[%u]: %s", i,
			    why);
	formula_qualified(pl, cf->f, cf->name, sizeof(cf->name));
	for (unsigned k = 0; k < cl->nform; k++)
		if (cl->form[k].f == cf->f)
			return fail(e, CLAIMS_BAD_REQUEST, "formulas[%u]: %s is "
				    "listed twice (as formulas[%u])", i,
				    cf->name, k);
	switch (formula_here(pl, t, cf->f, fev, CLAIM_FORMULA_EVENTS, why,
			     sizeof(why))) {
	case FORMULA_HERE:
		break;
	case FORMULA_TOO_MANY:
		return fail(e, CLAIMS_FORMULA_UNAVAILABLE, "formulas[%u]: %s "
			    "needs %u events, more than a claim counts (%d)",
			    i, cf->name, formula_nevents(cf->f),
			    CLAIM_FORMULA_EVENTS);
	case FORMULA_APART:
		return fail(e, CLAIMS_UNSCHEDULABLE, "formulas[%u]: the events "
			    "of %s can never count together: %s", i, cf->name,
			    why);
	default:
		return fail(e, CLAIMS_FORMULA_UNAVAILABLE, "formulas[%u]: %s "
			    "cannot count here: %s", i, cf->name, why);
	}
	ne = formula_nevents(cf->f);
	for (unsigned k = 0; k < ne; k++) {
		unsigned j = 0;

		while (j < cl->nev && !sched_same(&cl->ev[j], &fev[k]))
			j++;
		if (j == cl->nev) {
			if (cl->nev == CLAIM_MAX_EVENTS)
				return fail(e, CLAIMS_BAD_REQUEST, "formulas[%u]:"
					    " %s takes the claim past %d "
					    "events (its own and its formulas'"
					    "): ask for it in a claim of its "
					    "own", i, cf->name,
					    CLAIM_MAX_EVENTS);
			cl->ev[cl->nev++] = fev[k];
		}
		cf->ev[k] = (uint8_t)j;
	}
	cf->nev = ne;
	cl->nform++;
	return 0;
}

/* Under the lock: rq's formulas into cl.  0 or -1. */
static int add_formulas(struct claims *c, const struct claim_req *rq,
			struct claim *cl, struct claims_err *e)
{
	for (unsigned i = 0; i < rq->nform; i++)
		if (add_formula(c, rq, i, cl, e) < 0)
			return -1;
	return 0;
}

/* Under the lock: the events, label and lease of a new claim from rq, and
 * the placement it would have on an idle PMU (cl->plan).  0 or -1. */
static int make_claim(struct claims *c, const struct claim_req *rq,
		      struct claim *cl, struct claims_err *e)
{
	char why[256];
	long ttl = c->cfg.default_ttl_s;
	unsigned ev = 0, max;
	int err;

	if (rq->have_ttl && (ttl = check_ttl(rq->ttl_s, c->cfg.max_ttl_s, e)) < 0)
		return -1;
	for (unsigned i = 0; i < rq->nev; i++) {
		err = sched_resolve(c->pmu->plat, rq->events[i],
				    c->cfg.allow_raw_events, &cl->ev[i], why,
				    sizeof(why));
		if (err < 0)
			return fail(e, err == -EPERM ? CLAIMS_RAW_DISABLED
				    : CLAIMS_UNKNOWN_EVENT, "events[%u]: %s", i,
				    why);
		for (unsigned k = 0; k < i; k++)
			if (sched_same(&cl->ev[k], &cl->ev[i]))
				return fail(e, CLAIMS_BAD_REQUEST, "events[%u]: "
					    "%s is listed twice (as events[%u]: "
					    "%s)", i, cl->ev[i].name, k,
					    cl->ev[k].name);
	}
	cl->nev = cl->nreq = rq->nev;
	if (add_formulas(c, rq, cl, e) < 0)
		return -1;
	cl->ttl_s = (unsigned)ttl;
	snprintf(cl->label, sizeof(cl->label), "%s", rq->label ? rq->label : "");
	cl->export = rq->export;
	cl->pinned = rq->pinned;
	cl->end_with_process = rq->end_with_process;
	max = claim_max_interval_ms(c, cl, &ev);
	if (c->cfg.interval_ms > max)
		return fail(e, CLAIMS_INTERVAL, "events[%u]: %s counts on a "
			    "counter that can wrap twice within the sampling "
			    "interval (%u ms; at most %u ms for this event): "
			    "its counts would be lost", ev, cl->ev[ev].name,
			    c->cfg.interval_ms, max);
	if (sched_place(c->pmu->plat, cl->ev, cl->nev, NULL, cl->plan, why,
			sizeof(why)) < 0)
		return fail(e, CLAIMS_UNSCHEDULABLE, "these events can never "
			    "count together%s: %s", cl->nform ? " (the events "
			    "named and those of the formulas, one group: ask "
			    "for the formulas in claims of their own)" : "",
			    why);
	return 0;
}

/* Under the lock: room for one more claim of uid in the table.  0 or -1. */
static int admit(struct claims *c, uid_t uid, struct claims_err *e)
{
	if (count_uid(c, uid) >= c->cfg.max_per_uid)
		return fail(e, CLAIMS_LIMIT, "uid %u holds %u claims, the limit "
			    "(max_per_uid)", (unsigned)uid, count_uid(c, uid));
	/* only live claims count: released ones go now, not at the next
	 * tick (a long interval would let churn fill the table) */
	reap(c);
	if (count_live(c) >= c->cfg.max_total || c->n >= CLAIMS_MAX)
		return fail(e, CLAIMS_LIMIT, "the daemon holds %u claims, the "
			    "limit (max_total)", count_live(c));
	if (c->n == c->cap) {
		unsigned nc = c->cap ? c->cap * 2 : 16;
		struct claim **nv = realloc(c->v, nc * sizeof(*nv));

		if (!nv)
			return fail(e, CLAIMS_NOMEM, "out of memory");
		c->v = nv;
		c->cap = nc;
	}
	return 0;
}

/* ---- pinned claims ---------------------------------------------------- */

static struct sched_busy *busy_alloc(void)
{
	struct sched_busy *b = malloc(sizeof(*b));

	if (b) {
		memset(b->ctr, 0, sizeof(b->ctr));
		memset(b->filt_inst, 0, sizeof(b->filt_inst));
	}
	return b;
}

/* Under the lock: the counters the live pinned claims hold, into b. */
static void pinned_held(const struct claims *c, struct sched_busy *b)
{
	for (unsigned i = 0; i < c->n; i++)
		if (!c->v[i]->gone && c->v[i]->pinned)
			sched_occupy(c->pmu->plat, c->v[i]->ev, c->v[i]->nev,
				     c->v[i]->plan, b);
}

/* The counters of one box of u pinned claims may hold. */
static unsigned pin_cap(const struct claims *c, const struct unit_type *u)
{
	unsigned all_but_one = u->nctr ? u->nctr - 1 : 0;

	return c->cfg.max_pinned_per_box < all_but_one
	       ? c->cfg.max_pinned_per_box : all_but_one;
}

/* Under the lock: would cl take more than max_pinned_per_box counters of
 * a box, beside what pin holds?  -1 after the refusal, else 0. */
static int over_cap(const struct claims *c, const struct claim *cl,
		    const struct sched_busy *pin, struct claims_err *e)
{
	const struct platform *pl = c->pmu->plat;

	for (unsigned k = 0; k < cl->nev; k++) {
		int ui = cl->ev[k].unit;
		const struct unit_type *u = pl->units[ui];

		if (u->kind != UNIT_PROG)
			continue;
		for (unsigned i = 0; i < u->max_inst && i < PLAT_MAX_INST; i++) {
			unsigned held = 0, add = 0;

			for (unsigned x = 0; x < u->nctr; x++)
				held += iset_has(&pin->ctr[ui][x], i);
			for (unsigned j = 0; j < cl->nev; j++)
				add += cl->ev[j].unit == ui &&
				       evspec_on(&cl->ev[j], i);
			if (held + add > pin_cap(c, u))
				return fail(e, CLAIMS_HELD, "pinned claims may "
					    "hold at most %u of the %u counters "
					    "of a %s box ([claims] "
					    "max_pinned_per_box = %u, and one "
					    "is always left to the baseline): "
					    "%u held by pinned claims, this "
					    "claim needs %u more", pin_cap(c, u),
					    u->nctr, u->name,
					    c->cfg.max_pinned_per_box, held, add);
		}
	}
	return 0;
}

/* Under the lock: the live pinned claim on counter x of unit ui, or NULL. */
static const struct claim *pinned_on(const struct claims *c, int ui,
				     unsigned x)
{
	for (unsigned i = 0; i < c->n; i++) {
		const struct claim *o = c->v[i];

		for (unsigned k = 0; !o->gone && o->pinned && k < o->nev; k++)
			if (o->ev[k].unit == ui && o->plan[k] == (int)x)
				return o;
	}
	return NULL;
}

/* Appends to msg (of len bytes, *n used) as printf would. */
static void add(char *msg, size_t len, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add(char *msg, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*n >= len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(msg + *n, len - *n, fmt, ap);
	va_end(ap);
	if (w > 0)	/* past len: truncated, and nothing more fits */
		*n = (size_t)w < len - *n ? *n + (size_t)w : len;
}

/* The programmable units cl counts on, as a mask of unit indices. */
static uint32_t prog_units(const struct claims *c, const struct claim *cl)
{
	uint32_t m = 0;

	for (unsigned k = 0; k < cl->nev; k++)
		if (c->pmu->plat->units[cl->ev[k].unit]->kind == UNIT_PROG)
			m |= 1u << cl->ev[k].unit;
	return m;
}

/* Who holds counter x of unit ui, into h: "the baseline's EV", "pinned
 * claim ID" (its id, never its owner: another uid's claim is none of the
 * asker's business) or "" when free. */
static void holder_of(const struct claims *c, const struct claims_around *a,
		      int ui, unsigned x, char *h, size_t len)
{
	const struct claim *o = pinned_on(c, ui, x);
	const char *b = a ? a->holder[ui][x] : "";

	if (b[0])
		snprintf(h, len, "the baseline's %s", b);
	else if (o)
		snprintf(h, len, "pinned claim %s", o->id);
	else
		h[0] = '\0';
}

/* Appends to msg what holds each counter of unit ui and which are free,
 * a run of counters with one kind of holder said once, a baseline
 * event's name shortened after the first to what differs from the one
 * before it: "ha counters 0-1: the baseline's UNC_H_REQUESTS.READS_LOCAL,
 * .READS_REMOTE; ha counters 2-3: free". */
static void say_unit(const struct claims *c, const struct claims_around *a,
		     int ui, char *msg, size_t len, size_t *n)
{
	const struct unit_type *u = c->pmu->plat->units[ui];
	unsigned nctr = u->nctr < PLAT_MAX_CTRS ? u->nctr : PLAT_MAX_CTRS;
	char h[SCHED_NAME_MAX + 32], next[SCHED_NAME_MAX + 32];

	for (unsigned x = 0, y; x < nctr; x = y + 1) {
		bool base = a && a->holder[ui][x][0];

		holder_of(c, a, ui, x, h, sizeof(h));
		for (y = x; y + 1 < nctr; y++) {
			holder_of(c, a, ui, y + 1, next, sizeof(next));
			if (base ? !a->holder[ui][y + 1][0] : strcmp(h, next) != 0)
				break;
		}
		if (y == x)
			add(msg, len, n, "%s %s counter %u: ", *n ? ";" : "",
			    u->name, x);
		else
			add(msg, len, n, "%s %s counters %u-%u: ", *n ? ";" : "",
			    u->name, x, y);
		if (!base) {
			add(msg, len, n, "%s", h[0] ? h : "free");
			continue;
		}
		add(msg, len, n, "the baseline's %s", a->holder[ui][x]);
		for (unsigned z = x + 1; z <= y; z++) {
			const char *prev = a->holder[ui][z - 1];
			const char *cur = a->holder[ui][z], *dot = strchr(cur, '.');
			size_t stem = dot ? (size_t)(dot - cur) : 0;

			if (stem && !strncmp(prev, cur, stem) && prev[stem] == '.')
				cur = dot;
			add(msg, len, n, ", %s", cur);
		}
	}
}

/* Does the holder of a filter on instances held count on one of ev's? */
static bool meets(const struct evspec *ev, const struct evspec *o,
		  unsigned ninst)
{
	for (unsigned i = 0; i < ninst && i < PLAT_MAX_INST; i++)
		if (evspec_on(ev, i) && evspec_on(o, i))
			return true;
	return false;
}

/*
 * Appends to msg each box filter register one of cl's events needs at
 * a value another holder (the baseline, a pinned claim) programs
 * differently on a box the event counts on: a counter may be free while
 * its box's filter is not.  Whether any was said.
 */
static bool say_filters(const struct claims *c, const struct claim *cl,
			const struct claims_around *a, char *msg, size_t len,
			size_t *n)
{
	const struct platform *pl = c->pmu->plat;
	bool said = false;

	for (unsigned k = 0; k < cl->nev; k++) {
		const struct evspec *ev = &cl->ev[k];
		const struct unit_type *u = pl->units[ev->unit];

		if (u->kind != UNIT_PROG)
			continue;
		for (unsigned f = 0; f < PLAT_MAX_FILTERS; f++) {
			const char *reg = f < u->nfilters && u->filters ?
					  u->filters[f].name : "filter";
			char who[SCHED_NAME_MAX + 32] = "";
			uint64_t val = 0;

			if (!(ev->filt_set >> f & 1))
				continue;
			/* the baseline's value on a box the event counts on
			 * (a split baseline holds several on one counter,
			 * so the value is taken from the boxes, the name
			 * from a holder that sets it) */
			for (unsigned i = 0; a && !who[0] && i < u->max_inst &&
			     i < PLAT_MAX_INST; i++)
				if (evspec_on(ev, i) &&
				    iset_has(&a->base.filt_inst[ev->unit][f], i) &&
				    a->base.filt[ev->unit][f][i] != ev->filt[f]) {
					val = a->base.filt[ev->unit][f][i];
					snprintf(who, sizeof(who), "the baseline");
				}
			for (unsigned x = 0; who[0] && !strcmp(who, "the baseline")
			     && x < u->nctr && x < PLAT_MAX_CTRS; x++) {
				struct evspec o;
				char why[128];

				if (a->holder[ev->unit][x][0] &&
				    sched_resolve(pl, a->holder[ev->unit][x],
						  true, &o, why, sizeof(why)) == 0 &&
				    o.unit == ev->unit && (o.filt_set >> f & 1) &&
				    o.filt[f] == val)
					snprintf(who, sizeof(who), "the "
						 "baseline's %s", o.name);
			}
			/* the pinned claims' */
			for (unsigned i = 0; !who[0] && i < c->n; i++) {
				const struct claim *o = c->v[i];

				for (unsigned j = 0; !o->gone && o->pinned &&
				     !who[0] && j < o->nev; j++)
					if (o->ev[j].unit == ev->unit &&
					    (o->ev[j].filt_set >> f & 1) &&
					    o->ev[j].filt[f] != ev->filt[f] &&
					    meets(ev, &o->ev[j], u->max_inst)) {
						snprintf(who, sizeof(who),
							 "pinned claim %s",
							 o->id);
						val = o->ev[j].filt[f];
					}
			}
			if (!who[0])
				continue;
			add(msg, len, n, "%s %s needs %s register %s at "
			    "0x%" PRIx64 ", where %s has 0x%" PRIx64,
			    said ? ";" : "", ev->name, u->name, reg,
			    ev->filt[f], who, val);
			said = true;
		}
	}
	return said;
}

/* Under the lock: the refusal of a pinned claim that found no counters,
 * naming what holds each counter of its units and what is free, and,
 * where counters are free, the box filter register that keeps it out. */
static int held_refusal(const struct claims *c, const struct claim *cl,
			const struct claims_around *a, struct claims_err *e)
{
	const struct platform *pl = c->pmu->plat;
	char msg[sizeof(e->msg)], filt[sizeof(e->msg)];	/* cut by fail() */
	size_t n = 0, fn = 0;
	uint32_t units = prog_units(c, cl);

	msg[0] = filt[0] = '\0';
	for (unsigned ui = 0; ui < PLAT_MAX_UNITS && ui < plat_nunits(pl); ui++)
		if (units >> ui & 1)
			say_unit(c, a, (int)ui, msg, sizeof(msg), &n);
	if (say_filters(c, cl, a, filt, sizeof(filt), &fn))
		return fail(e, CLAIMS_HELD, "no place for this pinned claim: "
			    "a box filter register is held:%s (a pin never "
			    "reprograms it; unpinned, a claim shares it).  "
			    "Counters:%s", filt, msg);
	return fail(e, CLAIMS_HELD, "no counters of its own for this pinned "
		    "claim:%s.  A pinned claim never takes the baseline's "
		    "counters or another pinned claim's (without pinned, a "
		    "claim shares them, multiplexed)", msg);
}

/* Appends to msg how long pinned claim o may keep its counters. */
static void say_pin_end(const struct claims *c, const struct claim *o,
			uint64_t now, char *msg, size_t len, size_t *n)
{
	uint64_t end = pin_end(c, o);

	if (end == UINT64_MAX)
		add(msg, len, n, " for as long as its lease is renewed");
	else
		add(msg, len, n, " for at most %" PRIu64 " s more",
		    end > now ? (end - now + 999999999) / 1000000000 : 0);
}

/* Under the lock: the refusal of shared claim cl that does not fit
 * beside the pins, naming each pinned claim on counters of its units,
 * those counters, and when its pin ends. */
static int pins_refusal(const struct claims *c, const struct claim *cl,
			struct claims_err *e)
{
	const struct platform *pl = c->pmu->plat;
	uint32_t units = prog_units(c, cl);
	uint64_t now = clock_mono(c->clk);
	char msg[360];
	size_t n = 0;

	msg[0] = '\0';
	for (unsigned i = 0; i < c->n; i++) {
		const struct claim *o = c->v[i];
		bool named = false;

		if (o->gone || !o->pinned || !(prog_units(c, o) & units))
			continue;
		for (unsigned ui = 0; ui < PLAT_MAX_UNITS; ui++) {
			char list[3 * PLAT_MAX_CTRS + 1] = "";
			size_t ln = 0;
			unsigned cnt = 0;

			for (unsigned k = 0; units >> ui & 1 && k < o->nev; k++)
				if (o->ev[k].unit == (int)ui && o->plan[k] >= 0 &&
				    cnt < PLAT_MAX_CTRS) {
					add(list, sizeof(list), &ln, "%s%d",
					    cnt ? "," : "", o->plan[k]);
					cnt++;
				}
			if (!cnt)
				continue;
			if (!named)
				add(msg, sizeof(msg), &n, "%s pinned claim %s on",
				    n ? ";" : "", o->id);
			add(msg, sizeof(msg), &n, "%s %s counter%s %s",
			    named ? "," : "", pl->units[ui]->name,
			    cnt == 1 ? "" : "s", list);
			named = true;
		}
		if (named)
			say_pin_end(c, o, now, msg, sizeof(msg), &n);
	}
	if (!c->cfg.max_pinned_s)
		return fail(e, CLAIMS_HELD, "these events can never count "
			    "beside the counters (and box filter values) "
			    "pinned claims hold:%s; try again when they are "
			    "released, or with fewer events", msg);
	return fail(e, CLAIMS_HELD, "these events can never count beside the "
		    "counters (and box filter values) pinned claims hold:%s.  "
		    "A pin ends %u s after its claim's creation ([claims] "
		    "max_pinned_s), then its claim shares its counters: try "
		    "again then, or with fewer events", msg,
		    c->cfg.max_pinned_s);
}

/* Under the lock: does shared claim cl fit beside the counters and box
 * filter values the pinned claims hold?  Else it could never count while
 * they live: 0, or -1 after the refusal. */
static int beside_pins(struct claims *c, const struct claim *cl,
		       struct claims_err *e)
{
	struct sched_busy *pin = busy_alloc();
	int ctr[CLAIM_MAX_EVENTS], r;
	char why[256];

	if (!pin)
		return fail(e, CLAIMS_NOMEM, "out of memory");
	pinned_held(c, pin);
	r = sched_place_busy(c->pmu->plat, cl->ev, cl->nev, pin, ctr, why,
			     sizeof(why));
	free(pin);
	return r == 0 ? 0 : pins_refusal(c, cl, e);
}

/*
 * Where the admitted shared claims can count beside the pins: each one
 * on the units in mask, on the counters it counted on at the last tick,
 * else placed around pin, occupied into b (so that a pin placed around
 * b leaves them all a place, and takes no counter from one that
 * counts).  A shared claim that does not fit beside the pins (none,
 * while beside_pins() admits them) is left out.
 */
static void shared_spots(const struct claims *c, struct sched_busy *pin,
			 uint32_t mask, struct sched_busy *b)
{
	int ctr[CLAIM_MAX_EVENTS];
	char why[64];

	for (unsigned i = 0; i < c->n; i++) {
		const struct claim *o = c->v[i];

		if (o->gone || o->pinned || !(prog_units(c, o) & mask))
			continue;
		if (o->running)
			sched_occupy(c->pmu->plat, o->ev, o->nev, o->ctr, b);
		else if (sched_place_busy(c->pmu->plat, o->ev, o->nev, pin, ctr,
					  why, sizeof(why)) == 0)
			sched_occupy(c->pmu->plat, o->ev, o->nev, ctr, b);
	}
}

/* Under the lock: the first admitted shared claim on the units in mask
 * that does not fit beside what pin holds; NULL if every one fits. */
static const struct claim *starved(const struct claims *c,
				   struct sched_busy *pin, uint32_t mask)
{
	int ctr[CLAIM_MAX_EVENTS];
	char why[64];

	for (unsigned i = 0; i < c->n; i++) {
		const struct claim *o = c->v[i];

		if (!o->gone && !o->pinned && (prog_units(c, o) & mask) &&
		    sched_place_busy(c->pmu->plat, o->ev, o->nev, pin, ctr,
				     why, sizeof(why)) < 0)
			return o;
	}
	return NULL;
}

/* The scratch place_pinned() works in (each struct sched_busy is large). */
struct pin_ws {
	struct sched_busy pin;		/* the pinned claims' counters */
	struct sched_busy cand;		/* what a placement goes around */
	struct sched_busy test;		/* the pins with cl placed */
};

/*
 * Under the lock: places pinned claim cl around from (plus the shared
 * claims' spots when with_spots) into cl->plan if every admitted shared
 * claim still fits beside the pins with cl there.  1: placed; 0: no
 * place; -1: a place, but it would starve *victim.
 */
static int try_pin(struct claims *c, struct claim *cl,
		   const struct sched_busy *from, bool with_spots,
		   struct pin_ws *w, const struct claim **victim)
{
	const struct platform *pl = c->pmu->plat;
	int plan[CLAIM_MAX_EVENTS];
	char why[256];

	w->cand = *from;
	if (with_spots)
		shared_spots(c, &w->pin, prog_units(c, cl), &w->cand);
	if (sched_place_busy(pl, cl->ev, cl->nev, &w->cand, plan, why,
			     sizeof(why)) < 0)
		return 0;
	w->test = w->pin;
	sched_occupy(pl, cl->ev, cl->nev, plan, &w->test);
	if ((*victim = starved(c, &w->test, prog_units(c, cl))))
		return -1;
	memcpy(cl->plan, plan, sizeof(plan));
	return 1;
}

/*
 * Under the lock: places pinned claim cl on counters of its own (around
 * the baseline and the other pinned claims, preferring counters idle in
 * the current interval and those the shared claims can do without)
 * into cl->plan, never where an admitted shared claim would be left no
 * place to count.  a may be NULL (no sampler).  0, or -1 with e filled.
 */
static int place_pinned(struct claims *c, struct claim *cl,
			struct claims_around *a, struct claims_err *e)
{
	struct pin_ws *w = malloc(sizeof(*w));
	const struct claim *victim = NULL;
	int r = -1, got = 0;

	if (!w)
		return fail(e, CLAIMS_NOMEM, "out of memory");
	memset(w->pin.ctr, 0, sizeof(w->pin.ctr));
	memset(w->pin.filt_inst, 0, sizeof(w->pin.filt_inst));
	pinned_held(c, &w->pin);
	if (over_cap(c, cl, &w->pin, e) < 0)
		goto out;
	if (a) {
		pinned_held(c, &a->now);
		pinned_held(c, &a->base);
	}
	/* idle now and spared by the shared claims, idle now, spared,
	 * anywhere but the baseline's and the pins' */
	for (unsigned k = 0; k < 4 && got <= 0; k++) {
		const struct sched_busy *from = !a ? &w->pin
						: k < 2 ? &a->now : &a->base;
		const struct claim *v = NULL;

		if (!a && k >= 2)
			break;
		got = try_pin(c, cl, from, k % 2 == 0, w, &v);
		if (got < 0 && !victim)
			victim = v;
	}
	if (got > 0)
		r = 0;
	else if (victim)
		fail(e, CLAIMS_HELD, "this pinned claim would leave shared "
		     "claim %s no counters to count on: a pinned claim never "
		     "keeps an admitted claim from counting at all: try with "
		     "fewer events, or once that claim is released",
		     victim->id);
	else
		held_refusal(c, cl, a, e);
out:
	free(w);
	return r;
}

/* The sampler's view for a pinned claim: NULL without hooks; -1 after a
 * refusal. */
static int get_around(struct claims *c, struct claims_around **a,
		      struct claims_err *e)
{
	int r;

	*a = NULL;
	if (!c->hooks || !c->hooks->around)
		return 0;
	if (!(*a = malloc(sizeof(**a))))
		return fail(e, CLAIMS_NOMEM, "out of memory");
	if ((r = c->hooks->around(c->hook_arg, *a)) < 0) {
		free(*a);
		*a = NULL;
		return fail(e, CLAIMS_UNAVAILABLE, "the daemon cannot place a "
			    "pinned claim yet (%s): try again after its first "
			    "tick", strerror(-r));
	}
	return 0;
}

/* Under the lock: cl, made and admitted, into the table as uid's. */
static int insert(struct claims *c, struct claim *cl, uid_t uid, pid_t pid,
		  struct claim *out, struct claims_err *e)
{
	if (build_series(c, cl) < 0)
		return fail(e, CLAIMS_NOMEM, "out of memory");
	for (unsigned i = 0; i < CLAIM_MAX_EVENTS; i++)
		cl->ctr[i] = -1;
	cl->seq = c->next_id++;
	if (cl->seq - c->tag_base > CLAIM_N_MAX) {
		char old[CLAIM_TAG_LEN + 1];

		memcpy(old, c->tag, sizeof(old));
		draw_tag(c->tag, old);
		c->tag_base = cl->seq - 1;
	}
	snprintf(cl->id, sizeof(cl->id), "c%" PRIu64 "-%s",
		 cl->seq - c->tag_base, c->tag);
	cl->uid = uid;
	cl->pid = pid;
	/* a peer in a pid namespace the daemon cannot see has pid 0: its
	 * claim has only its lease */
	cl->end_with_process = cl->end_with_process && pid > 0;
	cl->created_mono = clock_mono(c->clk);
	cl->expires_mono = cl->created_mono + (uint64_t)cl->ttl_s * 1000000000ull;
	cl->created_real = (double)clock_real(c->clk) / 1e9;
	if (copy_out(c, cl, out, e) < 0)
		return -1;
	c->v[c->n++] = cl;
	c->created++;
	log_info("claim %s created by uid %u pid %d (\"%s\"): %u event%s, ttl "
		 "%u s%s", cl->id, (unsigned)uid, (int)pid, cl->label, cl->nev,
		 cl->nev == 1 ? "" : "s", cl->ttl_s, cl->pinned ? ", pinned" : "");
	return 0;
}

int claims_create(struct claims *c, uid_t uid, pid_t pid,
		  const struct claim_req *rq, struct claim *out,
		  struct claims_err *e)
{
	struct claim *cl = calloc(1, sizeof(*cl));
	struct claims_around *a = NULL;
	uint64_t seq = 0;
	int r = -1;

	if (!cl)
		return fail(e, CLAIMS_NOMEM, "out of memory");
	if (rq->pinned && get_around(c, &a, e) < 0)
		goto out;
	pthread_mutex_lock(&c->lock);
	unpin_due(c, clock_mono(c->clk));
	if (make_claim(c, rq, cl, e) == 0 &&
	    (cl->pinned ? place_pinned(c, cl, a, e) : beside_pins(c, cl, e))
	    == 0 &&
	    admit(c, uid, e) == 0 && insert(c, cl, uid, pid, out, e) == 0) {
		seq = cl->seq;
		cl = NULL;	/* the table's now */
		r = 0;
	}
	pthread_mutex_unlock(&c->lock);
	if (r == 0 && c->hooks && c->hooks->start_now) {
		/* counting now, not at the next tick: the answer says so */
		c->hooks->start_now(c->hook_arg, seq);
		claim_clear(out);
		r = claims_get(c, out->id, uid, out, e);
	}
out:
	free(a);
	claim_free(cl);
	return r;
}

/* The claim for id if uid may touch it; NULL after a refusal (lock held). */
static struct claim *owned(struct claims *c, const char *id, uid_t uid,
			   struct claims_err *e)
{
	struct claim *cl;

	unpin_due(c, clock_mono(c->clk));
	if (!(cl = find(c, id))) {
		fail(e, CLAIMS_NOT_FOUND, "no claim \"%.32s\"", id);
		return NULL;
	}
	if (uid != 0 && uid != cl->uid) {
		/* as if it did not exist: who holds which id is not for
		 * every member of the control group to learn */
		log_debug("claim %s: uid %u is not its owner (uid %u)", cl->id,
			  (unsigned)uid, (unsigned)cl->uid);
		fail(e, CLAIMS_NOT_FOUND, "no claim \"%.32s\"", id);
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

/* The counts of copy cl read now, where a sampler can; 0 or -1.  A
 * reading newer than the claim's is kept in the table, so that a later
 * answer that cannot read a counter now (the claim as of its last
 * reading) never goes back behind it (a region's two readings must
 * follow each other: the tick's state is older than a read now). */
static int read_now(struct claims *c, struct claim *cl, struct claims_err *e)
{
	struct claim *t;
	int r;

	if (!c->hooks || !c->hooks->read_now)
		return 0;
	if ((r = c->hooks->read_now(c->hook_arg, cl)) < 0) {
		claim_clear(cl);
		return fail(e, r == -ENOMEM ? CLAIMS_NOMEM : CLAIMS_UNAVAILABLE,
			    "claim %s: reading its counters: %s", cl->id,
			    strerror(-r));
	}
	pthread_mutex_lock(&c->lock);
	if ((t = find(c, cl->id)) && t->created_mono == cl->created_mono &&
	    t->ns == cl->ns && cl->enabled_ns > t->enabled_ns) {
		t->enabled_ns = cl->enabled_ns;
		t->running_ns = cl->running_ns;
		t->live_running_ns = cl->live_running_ns;
		t->running_err_ns = cl->running_err_ns;
		t->read_err_ns = cl->read_err_ns;
		for (unsigned k = 0; k < t->ns; k++) {
			t->ser[k].raw = cl->ser[k].raw;
			t->ser[k].est = cl->ser[k].est;
			t->ser[k].run_adj = cl->ser[k].run_adj;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return 0;
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
	/* its group counts until the next tick: the final counts are now's */
	if (r == 0 && read_now(c, out, e) < 0)
		r = -1;
	return r;
}

int claims_read_now(struct claims *c, const char *id, uid_t uid,
		    struct claim *out, struct claims_err *e)
{
	if (claims_get(c, id, uid, out, e) < 0)
		return -1;
	return read_now(c, out, e);
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
