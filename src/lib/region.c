/*
 * region.c - marker-style regions of libuncored (uncored_region_*() in
 * include/uncored.h).
 *
 * A region reads every live claim of its connection when it begins and
 * when it ends, and adds the difference to its name: per claim, event
 * and socket the count, scaled by the region's own share of running time
 * (count x enabled / running over the region, which is exact for a
 * pinned claim and an estimate for a multiplexed one), with the enabled
 * time the counts span, so that rates are counts over the time the
 * counters covered, not over the program's idea of the region.  Open
 * regions form a stack: they nest, and a name open twice is closed
 * innermost first.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lib.h"

#define NAME_MAX_LEN 128

/* What one region counted of one event of one claim on one socket. */
struct rser {
	char claim[LIB_ID_MAX];
	char *event;
	char *family;		/* what the daemon says the event gives as
				   it is (NULL: nothing), times scale */
	double scale;
	unsigned socket;
	double scaled;		/* sum of count x enabled / running */
	uint64_t raw;		/* sum of the counts */
	uint64_t en, run;	/* sums of the enabled and running ns */
	uint64_t run_err;	/* how far run can be off (the daemon's
				   time_running_err_ns) */
	uint64_t blind;		/* windows in which it never ran */
	uint64_t cut;		/* windows its claim's loss cut short */
};

/*
 * A region: what it counted, and its open window.  The window opens at
 * the first begin of the name that finds none open (in any thread) and
 * closes at the end that leaves none open: the counts are those of the
 * time during which any thread was inside, once per socket.
 */
struct region {
	char *name;
	uint64_t calls;		/* ends, over every thread */
	struct rthread *thr;	/* ... and per thread (LIKWID's count) */
	size_t nthr, capthr;
	uint64_t windows;	/* windows counted */
	uint64_t code_ns;	/* the windows' time in the code */
	unsigned maxin;		/* the most begins open at once */
	struct rser *s;
	size_t n, cap;
	/* the open window */
	unsigned in;		/* begins not yet ended */
	uint64_t t0;
	size_t nclaims;
	char (*ids)[LIB_ID_MAX];
	struct lproto_counts *start;
};

/* The ends of one region by one thread. */
struct rthread {
	pthread_t th;
	uint64_t calls;
};

/* A begin not yet ended: by which thread, of which region (an index:
 * the regions' array moves as it grows). */
struct opened {
	pthread_t th;
	size_t r;
};

struct regions {
	struct region *r;
	size_t n, cap;
	struct opened *open;
	size_t depth, capo;
};

/* Grows *v (of elements of sz bytes, *cap of them) to hold n + 1. */
static bool grow(void **v, size_t *cap, size_t n, size_t sz)
{
	void *p;

	if (n < *cap)
		return true;
	if (!(p = realloc(*v, (*cap ? *cap * 2 : 4) * sz)))
		return false;
	*v = p;
	*cap = *cap ? *cap * 2 : 4;
	return true;
}

static void window_clear(struct region *r)
{
	for (size_t i = 0; i < r->nclaims; i++)
		lproto_counts_clear(&r->start[i]);
	free(r->start);
	free(r->ids);
	r->start = NULL;
	r->ids = NULL;
	r->nclaims = 0;
}

static void region_free(struct uncored *u)
{
	struct regions *g = u->reg;

	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++) {
		for (size_t k = 0; k < g->r[i].n; k++) {
			free(g->r[i].s[k].event);
			free(g->r[i].s[k].family);
		}
		window_clear(&g->r[i]);
		free(g->r[i].thr);
		free(g->r[i].s);
		free(g->r[i].name);
	}
	free(g->r);
	free(g->open);
	free(g);
	u->reg = NULL;
}

/* u, or the default connection for NULL (its errors in the thread's
 * uncored_error(NULL)). */
static struct uncored *conn(struct uncored *u, int *rc)
{
	if (u)
		return u;
	if (!(u = lib_default()))
		*rc = errno ? -errno : -ENOTCONN;
	return u;
}

/* After a region call on the default connection (given was NULL) that
 * failed: its message goes to the thread's uncored_error(NULL), where a
 * program with only markers looks; u->lock held. */
static int said(const struct uncored *given, const struct uncored *u, int rc)
{
	if (!given && rc < 0)
		lib_set_tls_error("%s", u->err);
	return rc;
}

static int check_name(struct uncored *u, const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (!n || n > NAME_MAX_LEN)
		return lib_fail(u, -EINVAL, "a region name is 1 to %d bytes",
				NAME_MAX_LEN);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return lib_fail(u, -EINVAL, "region name with a control "
					"character at byte %zu", i);
	return 0;
}

static int region_report_locked(struct uncored *u, FILE *f);
static const struct lib_region_ops region_ops = {
	.report_locked = region_report_locked,
	.free = region_free,
};

/* The number of u's claims that are not lost. */
static size_t live_claims(const struct uncored *u)
{
	size_t n = 0;

	for (size_t i = 0; i < u->ncl; i++)
		n += !u->cl[i].lost;
	return n;
}

/*
 * Opens r's window: reads every live claim of u.  A claim lost on the
 * way is left out (the loss is said); another failure fails the begin.
 */
static int window_open(struct uncored *u, struct region *r)
{
	size_t n = u->ncl;
	int rc = 0, lost = 0;

	r->ids = malloc((n + 1) * sizeof(*r->ids));
	r->start = calloc(n + 1, sizeof(*r->start));
	if (!r->ids || !r->start) {
		window_clear(r);
		return lib_fail(u, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		char id[LIB_ID_MAX];
		struct lib_claim *cl = &u->cl[i];

		if (cl->lost)
			continue;
		memcpy(id, cl->id, sizeof(id));
		rc = lib_read_locked(u, id, &r->start[r->nclaims]);
		cl = lib_claim_of(u, id);
		if (rc < 0 && cl && cl->lost) {
			lost = rc;
			continue;
		}
		if (rc < 0) {
			window_clear(r);
			return rc;
		}
		memcpy(r->ids[r->nclaims++], id, LIB_ID_MAX);
	}
	if (!r->nclaims) {
		window_clear(r);
		return lib_fail(u, lost ? lost : -ENOENT, "region \"%s\": every "
				"claim of the connection is lost (%s)", r->name,
				u->err);
	}
	r->t0 = lib_mono_ns();
	return 0;
}

static int begin_locked(struct uncored *u, const char *name)
{
	struct regions *g;
	struct region *r = NULL;
	size_t ri;
	int rc;

	if ((rc = check_name(u, name)) < 0)
		return rc;
	if (!live_claims(u))
		return lib_fail(u, u->ncl ? -ENOENT : -EINVAL, "region \"%s\": "
				"no claim to read (%s)", name, u->ncl ?
				"every claim of the connection is lost: claim "
				"again" : "uncored_claim() first");
	if (!u->reg && (u->reg = calloc(1, sizeof(*u->reg))))
		u->reg_ops = &region_ops;
	if (!u->reg)
		return lib_fail(u, -ENOMEM, "out of memory");
	g = u->reg;
	for (ri = 0; ri < g->n; ri++)
		if (strcmp(g->r[ri].name, name) == 0)
			break;
	if (ri == g->n) {
		if (!grow((void **)&g->r, &g->cap, g->n, sizeof(*g->r)))
			return lib_fail(u, -ENOMEM, "out of memory");
		memset(&g->r[g->n], 0, sizeof(g->r[g->n]));
		if (!(g->r[g->n].name = strdup(name)))
			return lib_fail(u, -ENOMEM, "out of memory");
		g->n++;
	}
	r = &g->r[ri];
	if (!grow((void **)&g->open, &g->capo, g->depth, sizeof(*g->open)))
		return lib_fail(u, -ENOMEM, "out of memory");
	if (!r->in && (rc = window_open(u, r)) < 0)
		return rc;
	r->in++;
	if (r->in > r->maxin)
		r->maxin = r->in;
	g->open[g->depth++] = (struct opened){ pthread_self(), ri };
	return 0;
}

UNCORED_API int uncored_region_begin(struct uncored *u, const char *name)
{
	struct uncored *w;
	int rc = 0;

	if (!(w = conn(u, &rc)))
		return rc;
	lib_lock(w);
	rc = said(u, w, begin_locked(w, name));
	lib_unlock(w);
	return rc;
}

/* The series of r for claim id, event ev (as a reading names it, with
 * the family it feeds), socket s (made if new), or NULL. */
static struct rser *series_of(struct region *r, const char *id,
			      const struct lproto_event *ev, unsigned s)
{
	struct rser *q;

	for (size_t k = 0; k < r->n; k++)
		if (r->s[k].socket == s && strcmp(r->s[k].claim, id) == 0 &&
		    strcmp(r->s[k].event, ev->name) == 0)
			return &r->s[k];
	if (!grow((void **)&r->s, &r->cap, r->n, sizeof(*r->s)))
		return NULL;
	q = &r->s[r->n];
	memset(q, 0, sizeof(*q));
	snprintf(q->claim, LIB_ID_MAX, "%s", id);
	q->socket = s;
	q->scale = ev->scale;
	if (!(q->event = strdup(ev->name)) ||
	    (ev->family && !(q->family = strdup(ev->family)))) {
		free(q->event);
		free(q->family);
		return NULL;
	}
	r->n++;
	return q;
}

/* Do readings a and b of one claim follow each other (b no earlier)? */
static bool follows(const struct lproto_counts *a, const struct lproto_counts *b)
{
	if (a->nev != b->nev || a->nsockets != b->nsockets)
		return false;
	for (size_t i = 0; i < a->nev; i++) {
		if (strcmp(a->ev[i].name, b->ev[i].name) != 0 ||
		    b->ev[i].enabled_ns < a->ev[i].enabled_ns ||
		    b->ev[i].running_ns < a->ev[i].running_ns)
			return false;
		for (unsigned s = 0; s < a->nsockets; s++)
			if (b->ev[i].count[s] < a->ev[i].count[s])
				return false;
	}
	return true;
}

/* Adds what claim id counted between readings a and b to r (cut: the
 * claim was lost after b). */
static int add_claim(struct region *r, const char *id,
		     const struct lproto_counts *a, const struct lproto_counts *b,
		     bool cut)
{
	if (!follows(a, b))
		return -EPROTO;
	for (size_t i = 0; i < a->nev; i++) {
		const struct lproto_event *x = &a->ev[i], *y = &b->ev[i];
		uint64_t en = y->enabled_ns - x->enabled_ns;
		uint64_t run = y->running_ns - x->running_ns;
		/* the error of the windows between the readings, the one
		 * each reading fell in counted once (mux_snap_read()), and
		 * each reading's own instant (a read held up between its
		 * looks at the clock) */
		uint64_t err = (y->running_err_ns > x->running_err_ns
				? y->running_err_ns - x->running_err_ns : 0) +
			       x->read_err_ns + y->read_err_ns;

		for (unsigned s = 0; s < a->nsockets; s++) {
			struct rser *q = series_of(r, id, y, s);
			uint64_t d = y->count[s] - x->count[s];
			/* the time the socket's boxes counted
			 * (lproto_running()), the event's if that does not
			 * follow */
			uint64_t rx = lproto_running(x, s);
			uint64_t ry = lproto_running(y, s);
			uint64_t srun = ry >= rx ? ry - rx : run;

			if (!q)
				return -ENOMEM;
			q->raw += d;
			q->en += en;
			q->run += run;
			q->run_err += err;
			q->cut += cut;
			if (run && srun)
				q->scaled += (double)d * (double)en / (double)srun;
			else
				q->blind++;
		}
	}
	return 0;
}

/* Closes r's window: reads its claims again and adds the differences; a
 * claim lost meanwhile adds what it counted until its last reading. */
static int window_close(struct uncored *u, struct region *r, uint64_t t1)
{
	int rc = 0;

	r->windows++;
	r->code_ns += t1 - r->t0;
	for (size_t i = 0; i < r->nclaims; i++) {
		struct lproto_counts now = { 0 };
		struct lib_claim *cl;
		int e = lib_read_locked(u, r->ids[i], &now);

		if (e == 0) {
			e = add_claim(r, r->ids[i], &r->start[i], &now, false);
			lproto_counts_clear(&now);
			if (e < 0)
				lib_fail(u, e, "region \"%s\": claim %s: %s",
					 r->name, r->ids[i], e == -ENOMEM
					 ? "out of memory" : "its readings "
					 "do not follow each other");
		} else if ((cl = lib_claim_of(u, r->ids[i])) && cl->lost) {
			bool later = follows(&r->start[i], &cl->last) &&
				     cl->last.nev && cl->last.ev[0].enabled_ns >
				     r->start[i].ev[0].enabled_ns;

			if (add_claim(r, r->ids[i], &r->start[i], later ?
				      &cl->last : &r->start[i], true) < 0)
				e = lib_fail(u, -ENOMEM, "out of memory");
			else
				lib_fail(u, e, "region \"%s\": claim %s is lost "
					 "(%s): the region keeps what it "
					 "counted until %s", r->name, cl->id,
					 cl->why, later ? "its last reading" :
					 "its beginning (no reading since)");
		} else if (!lib_claim_of(u, r->ids[i])) {
			lib_fail(u, e, "region \"%s\": claim %s was released "
				 "inside the region: %s", r->name, r->ids[i],
				 u->err);
		}
		if (e < 0 && !rc)
			rc = e;		/* the others still count */
	}
	window_clear(r);
	return rc;
}

/* Adds an end of r by thread th to its per-thread calls (where memory
 * runs out, only the total counts it). */
static void count_thread(struct region *r, pthread_t th)
{
	for (size_t i = 0; i < r->nthr; i++)
		if (pthread_equal(r->thr[i].th, th)) {
			r->thr[i].calls++;
			return;
		}
	if (!grow((void **)&r->thr, &r->capthr, r->nthr, sizeof(*r->thr)))
		return;
	r->thr[r->nthr++] = (struct rthread){ th, 1 };
}

/* The calls of r as LIKWID counts them: the most ends of any one thread
 * (20 calls by each of 4 threads is 20). */
static uint64_t calls_per_thread(const struct region *r)
{
	uint64_t m = 0;

	for (size_t i = 0; i < r->nthr; i++)
		if (r->thr[i].calls > m)
			m = r->thr[i].calls;
	return r->nthr ? m : r->calls;
}

static int end_locked(struct uncored *u, const char *name)
{
	struct regions *g = u->reg;
	pthread_t self = pthread_self();
	uint64_t t1 = lib_mono_ns();
	struct region *r;
	bool elsewhere = false;
	size_t k;
	int rc;

	if ((rc = check_name(u, name)) < 0)
		return rc;
	for (k = g ? g->depth : 0; k > 0; k--) {
		if (strcmp(g->r[g->open[k - 1].r].name, name) != 0)
			continue;
		if (pthread_equal(g->open[k - 1].th, self))
			break;
		elsewhere = true;
	}
	if (!k)
		return lib_fail(u, -EINVAL, "region \"%s\" is not open%s", name,
				elsewhere ? " in this thread (another thread's "
				"begin is ended by that thread)" : "");
	r = &g->r[g->open[k - 1].r];
	memmove(&g->open[k - 1], &g->open[k],
		(g->depth - k) * sizeof(*g->open));
	g->depth--;
	r->calls++;
	count_thread(r, self);
	if (--r->in)
		return 0;	/* another begin keeps the window open */
	return window_close(u, r, t1);
}

UNCORED_API int uncored_region_end(struct uncored *u, const char *name)
{
	struct uncored *w;
	int rc = 0;

	if (!(w = conn(u, &rc)))
		return rc;
	lib_lock(w);
	rc = said(u, w, end_locked(w, name));
	lib_unlock(w);
	return rc;
}

/* ---- the report ---------------------------------------------------------- */

/*
 * Beside each event, the report gives the derived metric it feeds as
 * the daemon says in its answers (the platform's table is the daemon's:
 * struct rser.family and scale), by the family names of doc/metrics.md,
 * without "_total": a region's count is not a running total.
 */

/* What the report says of one series: NaN where it never ran.
 * uncertain: the time it counted is known to no better than 1 % (the
 * daemon's ticks held up inside the writes that freeze and unfreeze the
 * counters), err its relative error then. */
struct rowv {
	double count, rate, window_s, ran, err;
	bool uncertain;
};

static struct rowv row_values(const struct region *r, const struct rser *q)
{
	struct rowv v;

	v.window_s = r->windows ? (double)q->en / 1e9 : 0;
	v.count = q->blind == r->windows ? NAN : q->scaled;
	v.rate = q->en && !isnan(v.count) ? q->scaled * 1e9 / (double)q->en
		 : NAN;
	v.ran = q->en ? (double)q->run / (double)q->en : NAN;
	v.err = q->run ? (double)q->run_err / (double)q->run : 0;
	v.uncertain = q->run && q->run_err > q->run / 100;
	return v;
}

/* Do u's regions hold series of more than one claim (then each row names
 * its claim, released or not)? */
static bool several_claims(const struct regions *g)
{
	const char *first = NULL;

	for (size_t i = 0; i < g->n; i++)
		for (size_t k = 0; k < g->r[i].n; k++) {
			if (!first)
				first = g->r[i].s[k].claim;
			else if (strcmp(first, g->r[i].s[k].claim) != 0)
				return true;
		}
	return false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median round trip of u's last readings, in us (NaN: none): the
 * typical cost, which the first reading of a claim (and a reading that
 * met a busy daemon) does not move. */
static double read_us(const struct uncored *u)
{
	uint64_t v[LIB_NLAT];
	size_t n = u->nreads < LIB_NLAT ? (size_t)u->nreads : LIB_NLAT;

	if (!n)
		return NAN;
	memcpy(v, u->lat, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_u64);
	return (double)v[n / 2] / 1e3;
}

/*
 * How much longer than the code the counts' windows were, per window, in
 * us (NaN: no window): the readings' share of the windows.  A window
 * starts when the daemon takes the begin's reading, before the begin
 * returns, and ends with the end's reading, after the end is called.
 */
static double extra_us(const struct regions *g)
{
	uint64_t extra = 0, windows = 0;

	for (size_t i = 0; i < g->n; i++) {
		const struct region *r = &g->r[i];

		if (!r->windows || !r->n || r->s[0].en < r->code_ns)
			continue;
		extra += r->s[0].en - r->code_ns;
		windows += r->windows;
	}
	return windows ? (double)extra / (double)windows / 1e3 : NAN;
}

/* Does family name count bytes (uncore_dram_read_bytes, ...)? */
static bool bytes_family(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && strcmp(name + n - 6, "_bytes") == 0;
}

/* One row; gb: the row's counts are bytes, written in GB and GB/s. */
static void table_row(FILE *f, const struct region *r, bool first, int wn,
		      int we, const char *name, unsigned socket,
		      const struct rowv *v, const char *mark, bool gb)
{
	char count[32], rate[32], ran[16];

	if (gb) {
		snprintf(count, sizeof(count), isnan(v->count) ? "-"
			 : "%.3f GB", v->count / 1e9);
		snprintf(rate, sizeof(rate), isnan(v->rate) ? "-"
			 : "%.3f GB/s", v->rate / 1e9);
	} else {
		snprintf(count, sizeof(count), isnan(v->count) ? "-" : "%.0f",
			 v->count);
		snprintf(rate, sizeof(rate), isnan(v->rate) ? "-" : "%.4g",
			 v->rate);
	}
	/* blank where nothing was counted: no share to speak of */
	if (isnan(v->ran) || isnan(v->count))
		snprintf(ran, sizeof(ran), " ");
	else if (v->ran > 0.999)
		snprintf(ran, sizeof(ran), "100%%");
	else
		snprintf(ran, sizeof(ran), "%.0f%%", 100.0 * v->ran);
	if (first)
		fprintf(f, "%-*s %8" PRIu64 " %7zu %10.6f", wn, r->name,
			calls_per_thread(r), r->nthr, (double)r->code_ns / 1e9);
	else
		fprintf(f, "%-*s %8s %7s %10s", wn, "", "", "", "");
	fprintf(f, "  %-*s %6u %10.6f %16s %12s %5s%s\n", we, name, socket,
		v->window_s, count, rate, ran, mark);
}

static void report_table(FILE *f, const struct uncored *u,
			 const struct regions *g, bool prefix)
{
	int wn = 6, we = 5;
	char name[LIB_ID_MAX + 140];
	bool anycut = false;
	double worst = 0;	/* the largest error of a row marked ? */

	for (size_t i = 0; i < g->n; i++) {
		if (!g->r[i].windows)
			continue;	/* not in the table */
		wn = (int)strlen(g->r[i].name) > wn ? (int)strlen(g->r[i].name) : wn;
		for (size_t k = 0; k < g->r[i].n; k++) {
			const struct rser *q = &g->r[i].s[k];
			int l = (int)strlen(q->event);

			if (q->family && (int)strlen(q->family) > l)
				l = (int)strlen(q->family);
			l += prefix ? (int)strlen(q->claim) + 1 : 0;
			we = l > we ? l : we;
		}
	}
	fprintf(f, "uncored regions (uncore counts are per socket: they include "
		"everything else that ran on the socket meanwhile; a region "
		"that several threads are in at once is counted once)\n");
	fprintf(f, "%-*s %8s %7s %10s  %-*s %6s %10s %16s %12s %5s\n", wn,
		"REGION", "CALLS", "THREADS", "CODE_S", we, "EVENT", "SOCKET",
		"WINDOW_S", "COUNT", "RATE/s", "RAN");
	for (size_t i = 0; i < g->n; i++) {
		const struct region *r = &g->r[i];
		bool first = true;

		if (!r->windows)
			continue;
		for (size_t k = 0; k < r->n; k++) {
			const struct rser *q = &r->s[k];
			struct rowv v = row_values(r, q);
			const char *mark = q->cut && v.uncertain ? " * ?"
					   : q->cut ? " *" : v.uncertain ? " ?"
					   : "";

			anycut |= q->cut > 0;
			if (v.uncertain && v.err > worst)
				worst = v.err;
			snprintf(name, sizeof(name), "%s%s%s", prefix ? q->claim
				 : "", prefix ? "/" : "", q->event);
			table_row(f, r, first, wn, we, name, q->socket, &v, mark,
				  false);
			first = false;
			if (!q->family)
				continue;
			v.count *= q->scale;
			v.rate *= q->scale;
			snprintf(name, sizeof(name), "%s%s%s", prefix ? q->claim
				 : "", prefix ? "/" : "", q->family);
			table_row(f, r, false, wn, we, name, q->socket, &v, mark,
				  bytes_family(q->family));
		}
	}
	if (!isnan(extra_us(g)))
		fprintf(f, "CODE_S is the time in the code, WINDOW_S the time the "
			"counts cover: the code's plus part of the readings at "
			"each end, %.0f us a window here (a reading's round trip: "
			"%.0f us); regions shorter than %.2g ms are counted over "
			"a window more than 1%% longer than the code\n",
			extra_us(g), read_us(u), extra_us(g) * 100 / 1e3);
	if (worst > 0)
		fprintf(f, "? the time these counts cover is known to within "
			"more than 1%% (up to %.1f%% here): the daemon's ticks "
			"were held up inside the writes that stop and start the "
			"counters, and the rates are good to that much\n",
			100.0 * worst);
	for (size_t i = 0; anycut && i < u->ncl; i++)
		if (u->cl[i].lost)
			fprintf(f, "* claim %s (%s) was lost (%s): its rows count "
				"until its last reading\n", u->cl[i].id,
				u->cl[i].events, u->cl[i].why);
}

/* CSV, one line per row (derived metrics with no raw count). */
static void report_csv(FILE *f, const struct regions *g)
{
	fprintf(f, "region,calls,code_s,claim,event,socket,window_s,count,raw,"
		"rate_per_s,running_share,lost,window_uncertain,threads,"
		"calls_per_thread\n");
	for (size_t i = 0; i < g->n; i++) {
		const struct region *r = &g->r[i];

		for (size_t k = 0; r->windows && k < r->n; k++) {
			const struct rser *q = &r->s[k];
			struct rowv v = row_values(r, q);

			/* names are printable: quote them, doubling quotes */
			fputc('"', f);
			for (const char *c = r->name; *c; c++)
				fprintf(f, *c == '"' ? "\"\"" : "%c", *c);
			fprintf(f, "\",%" PRIu64 ",%.9f,%s,%s,%u,%.9f,%.0f,%" PRIu64
				",%.6g,%.4f,%s,%s,%zu,%" PRIu64 "\n", r->calls,
				(double)r->code_ns / 1e9, q->claim, q->event,
				q->socket, v.window_s, v.count, q->raw, v.rate, v.ran,
				q->cut ? "yes" : "no", v.uncertain ? "yes" : "no",
				r->nthr, calls_per_thread(r));
			if (!q->family)
				continue;
			fputc('"', f);
			for (const char *c = r->name; *c; c++)
				fprintf(f, *c == '"' ? "\"\"" : "%c", *c);
			fprintf(f, "\",%" PRIu64 ",%.9f,%s,%s,%u,%.9f,%.0f,,%.6g,"
				"%.4f,%s,%s,%zu,%" PRIu64 "\n", r->calls,
				(double)r->code_ns / 1e9, q->claim, q->family,
				q->socket, v.window_s, v.count * q->scale,
				v.rate * q->scale, v.ran, q->cut ? "yes" : "no",
				v.uncertain ? "yes" : "no", r->nthr,
				calls_per_thread(r));
		}
	}
}

static struct json_object *jnum(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

/* JSON: {"read_us":..., "regions":[{..., "events":[...], "metrics":[...]}],
 * "lost":[...]}; a count that never ran is null. */
static int report_json(FILE *f, const struct uncored *u,
		       const struct regions *g)
{
	struct json_object *o = json_object_new_object();
	struct json_object *rs = json_object_new_array();
	struct json_object *lost = json_object_new_array();
	const char *text;

	if (!o || !rs || !lost) {
		json_object_put(o);
		json_object_put(rs);
		json_object_put(lost);
		return -ENOMEM;
	}
	json_object_object_add(o, "read_us", jnum(read_us(u)));
	json_object_object_add(o, "window_extra_us", jnum(extra_us(g)));
	json_object_object_add(o, "regions", rs);
	json_object_object_add(o, "lost", lost);
	for (size_t i = 0; i < g->n; i++) {
		const struct region *r = &g->r[i];
		struct json_object *x = json_object_new_object();
		struct json_object *evs = json_object_new_array();
		struct json_object *ms = json_object_new_array();

		if (!r->windows) {
			json_object_put(x);
			json_object_put(evs);
			json_object_put(ms);
			continue;
		}
		json_object_object_add(x, "name", json_object_new_string(r->name));
		json_object_object_add(x, "calls", json_object_new_int64((int64_t)r->calls));
		json_object_object_add(x, "windows", json_object_new_int64((int64_t)r->windows));
		json_object_object_add(x, "threads_at_once", json_object_new_int64(r->maxin));
		json_object_object_add(x, "threads", json_object_new_int64((int64_t)r->nthr));
		json_object_object_add(x, "calls_per_thread",
				       json_object_new_int64((int64_t)calls_per_thread(r)));
		json_object_object_add(x, "code_s", json_object_new_double((double)r->code_ns / 1e9));
		json_object_object_add(x, "events", evs);
		json_object_object_add(x, "metrics", ms);
		json_object_array_add(rs, x);
		for (size_t k = 0; k < r->n; k++) {
			const struct rser *q = &r->s[k];
			struct rowv v = row_values(r, q);
			struct json_object *e = json_object_new_object();

			json_object_object_add(e, "claim", json_object_new_string(q->claim));
			json_object_object_add(e, "event", json_object_new_string(q->event));
			json_object_object_add(e, "socket", json_object_new_int64(q->socket));
			json_object_object_add(e, "window_s", json_object_new_double(v.window_s));
			json_object_object_add(e, "count", jnum(v.count));
			json_object_object_add(e, "raw", json_object_new_int64((int64_t)q->raw));
			json_object_object_add(e, "rate_per_s", jnum(v.rate));
			json_object_object_add(e, "running_share", jnum(v.ran));
			json_object_object_add(e, "lost", json_object_new_boolean(q->cut > 0));
			json_object_object_add(e, "running_err_s",
					       json_object_new_double((double)q->run_err / 1e9));
			json_object_object_add(e, "window_uncertain",
					       json_object_new_boolean(v.uncertain));
			json_object_array_add(evs, e);
			if (!q->family)
				continue;
			e = json_object_new_object();
			json_object_object_add(e, "claim", json_object_new_string(q->claim));
			json_object_object_add(e, "name", json_object_new_string(q->family));
			json_object_object_add(e, "socket", json_object_new_int64(q->socket));
			json_object_object_add(e, "value", jnum(v.count * q->scale));
			json_object_object_add(e, "rate_per_s", jnum(v.rate * q->scale));
			json_object_array_add(ms, e);
		}
	}
	for (size_t i = 0; i < u->ncl; i++) {
		struct json_object *e;

		if (!u->cl[i].lost)
			continue;
		e = json_object_new_object();
		json_object_object_add(e, "claim", json_object_new_string(u->cl[i].id));
		json_object_object_add(e, "events", json_object_new_string(u->cl[i].events));
		json_object_object_add(e, "why", json_object_new_string(u->cl[i].why));
		json_object_array_add(lost, e);
	}
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	fprintf(f, "%s\n", text ? text : "{}");
	json_object_put(o);
	return text ? 0 : -ENOMEM;
}

static int region_report_locked(struct uncored *u, FILE *f)
{
	static const struct regions none;
	const struct regions *g = u->reg ? u->reg : &none;
	const char *fmt = getenv("UNCORED_REPORT_FORMAT");
	bool measured = false;
	int rc = 0;

	if (!f)
		return lib_fail(u, -EINVAL, "no stream to report to");
	for (size_t i = 0; i < g->n; i++)
		measured |= g->r[i].windows > 0;
	if (fmt && fmt[0] && strcmp(fmt, "table") && strcmp(fmt, "csv") &&
	    strcmp(fmt, "json")) {
		rc = lib_fail(u, -EINVAL, "UNCORED_REPORT_FORMAT=%.40s: the "
			      "formats are table, csv and json; writing a "
			      "table", fmt);
		fmt = NULL;
	}
	if (fmt && strcmp(fmt, "csv") == 0)
		report_csv(f, g);
	else if (fmt && strcmp(fmt, "json") == 0) {
		if (report_json(f, u, g) < 0)
			rc = lib_fail(u, -ENOMEM, "out of memory");
	} else if (!measured)
		fprintf(f, "uncored regions: nothing measured (no region was "
			"ended on this connection)\n");
	else
		report_table(f, u, g, several_claims(g));
	fflush(f);
	if (ferror(f))
		return lib_fail(u, -EIO, "writing the region report failed");
	return rc;
}

UNCORED_API int uncored_region_report(struct uncored *u, FILE *f)
{
	struct uncored *w;
	int rc = 0;

	if (!(w = conn(u, &rc)))
		return rc;
	lib_lock(w);
	rc = said(u, w, region_report_locked(w, f));
	lib_unlock(w);
	return rc;
}
