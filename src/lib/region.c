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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/lib.h"

#define NAME_MAX_LEN 128

/* What one region counted of one event of one claim on one socket. */
struct rser {
	char claim[LIB_ID_MAX];
	char *event;
	unsigned socket;
	double scaled;		/* sum of count x enabled / running */
	uint64_t raw;		/* sum of the counts */
	uint64_t en, run;	/* sums of the enabled and running ns */
	uint64_t blind;		/* calls in which it never ran */
};

struct region {
	char *name;
	uint64_t calls, ns;	/* wall time between begin and end */
	struct rser *s;
	size_t n, cap;
};

/* A region begun and not ended: the readings it began with. */
struct open_reg {
	char *name;
	uint64_t t0;
	size_t nclaims;
	char (*ids)[LIB_ID_MAX];
	struct lproto_counts *start;
};

struct regions {
	struct region *r;
	size_t n, cap;
	struct open_reg *open;
	size_t depth, capo;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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

static void open_clear(struct open_reg *o)
{
	for (size_t i = 0; i < o->nclaims; i++)
		lproto_counts_clear(&o->start[i]);
	free(o->start);
	free(o->ids);
	free(o->name);
	memset(o, 0, sizeof(*o));
}

static void region_free(struct uncored *u)
{
	struct regions *g = u->reg;

	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++) {
		for (size_t k = 0; k < g->r[i].n; k++)
			free(g->r[i].s[k].event);
		free(g->r[i].s);
		free(g->r[i].name);
	}
	for (size_t i = 0; i < g->depth; i++)
		open_clear(&g->open[i]);
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

/* Reads every claim of u into o (its ids copied). */
static int read_all(struct uncored *u, struct open_reg *o)
{
	int rc;

	o->ids = malloc((u->nids + 1) * sizeof(*o->ids));
	o->start = calloc(u->nids + 1, sizeof(*o->start));
	if (!o->ids || !o->start)
		return lib_fail(u, -ENOMEM, "out of memory");
	memcpy(o->ids, u->ids, u->nids * sizeof(*o->ids));
	for (size_t i = 0; i < u->nids; i++) {
		if ((rc = lib_read_locked(u, o->ids[i], &o->start[i])) < 0)
			return rc;
		o->nclaims = i + 1;
	}
	return 0;
}

static int begin_locked(struct uncored *u, const char *name)
{
	struct open_reg o = { 0 };
	struct regions *g;
	int rc;

	if ((rc = check_name(u, name)) < 0)
		return rc;
	if (!u->nids)
		return lib_fail(u, -EINVAL, "region \"%s\": no claim to read "
				"(uncored_claim() first)", name);
	if (!u->reg && (u->reg = calloc(1, sizeof(*u->reg))))
		u->reg_ops = &region_ops;
	if (!u->reg)
		return lib_fail(u, -ENOMEM, "out of memory");
	g = u->reg;
	if (!grow((void **)&g->open, &g->capo, g->depth, sizeof(*g->open)) ||
	    !(o.name = strdup(name)))
		return lib_fail(u, -ENOMEM, "out of memory");
	if ((rc = read_all(u, &o)) < 0) {
		open_clear(&o);
		return rc;
	}
	o.t0 = mono_ns();
	g->open[g->depth++] = o;
	return 0;
}

UNCORED_API int uncored_region_begin(struct uncored *u, const char *name)
{
	int rc = 0;

	if (!(u = conn(u, &rc)))
		return rc;
	lib_lock(u);
	rc = begin_locked(u, name);
	lib_unlock(u);
	return rc;
}

/* The region called name (made if new), or NULL. */
static struct region *region_of(struct regions *g, const char *name)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->r[i].name, name) == 0)
			return &g->r[i];
	if (!grow((void **)&g->r, &g->cap, g->n, sizeof(*g->r)))
		return NULL;
	memset(&g->r[g->n], 0, sizeof(g->r[g->n]));
	if (!(g->r[g->n].name = strdup(name)))
		return NULL;
	return &g->r[g->n++];
}

/* The series of r for claim id, event ev, socket s (made if new), or NULL. */
static struct rser *series_of(struct region *r, const char *id,
			      const char *ev, unsigned s)
{
	for (size_t k = 0; k < r->n; k++)
		if (r->s[k].socket == s && strcmp(r->s[k].claim, id) == 0 &&
		    strcmp(r->s[k].event, ev) == 0)
			return &r->s[k];
	if (!grow((void **)&r->s, &r->cap, r->n, sizeof(*r->s)))
		return NULL;
	memset(&r->s[r->n], 0, sizeof(r->s[r->n]));
	snprintf(r->s[r->n].claim, LIB_ID_MAX, "%s", id);
	r->s[r->n].socket = s;
	if (!(r->s[r->n].event = strdup(ev)))
		return NULL;
	return &r->s[r->n++];
}

/* Adds what claim id counted between readings a and b to r. */
static int add_claim(struct region *r, const char *id,
		     const struct lproto_counts *a, const struct lproto_counts *b)
{
	if (a->nev != b->nev || a->nsockets != b->nsockets)
		return -EPROTO;
	for (size_t i = 0; i < a->nev; i++) {
		const struct lproto_event *x = &a->ev[i], *y = &b->ev[i];
		uint64_t en = y->enabled_ns - x->enabled_ns;
		uint64_t run = y->running_ns - x->running_ns;

		if (strcmp(x->name, y->name) != 0 || y->enabled_ns < x->enabled_ns ||
		    y->running_ns < x->running_ns)
			return -EPROTO;
		for (unsigned s = 0; s < a->nsockets; s++) {
			struct rser *q = series_of(r, id, x->name, s);
			uint64_t d = y->count[s] - x->count[s];

			if (!q)
				return -ENOMEM;
			if (y->count[s] < x->count[s])
				return -EPROTO;
			q->raw += d;
			q->en += en;
			q->run += run;
			if (run)
				q->scaled += (double)d * (double)en / (double)run;
			else
				q->blind++;
		}
	}
	return 0;
}

/* Ends open region o: reads its claims again and adds the differences. */
static int end_one(struct uncored *u, struct open_reg *o)
{
	uint64_t t1 = mono_ns();
	struct region *r = region_of(u->reg, o->name);
	int rc = 0;

	if (!r)
		return lib_fail(u, -ENOMEM, "out of memory");
	r->calls++;
	r->ns += t1 - o->t0;
	for (size_t i = 0; i < o->nclaims; i++) {
		struct lproto_counts now;
		int e = lib_read_locked(u, o->ids[i], &now);

		if (e == 0) {
			e = add_claim(r, o->ids[i], &o->start[i], &now);
			lproto_counts_clear(&now);
			if (e < 0)
				lib_fail(u, e, "region \"%s\": claim %s: %s",
					 o->name, o->ids[i], e == -ENOMEM
					 ? "out of memory" : "its readings "
					 "do not follow each other");
		}
		if (e < 0 && !rc)
			rc = e;		/* the others still count */
	}
	return rc;
}

static int end_locked(struct uncored *u, const char *name)
{
	struct regions *g = u->reg;
	size_t k;
	int rc;

	if ((rc = check_name(u, name)) < 0)
		return rc;
	for (k = g ? g->depth : 0; k > 0; k--)
		if (strcmp(g->open[k - 1].name, name) == 0)
			break;
	if (!k)
		return lib_fail(u, -EINVAL, "region \"%s\" is not open", name);
	rc = end_one(u, &g->open[k - 1]);
	open_clear(&g->open[k - 1]);
	memmove(&g->open[k - 1], &g->open[k],
		(g->depth - k) * sizeof(*g->open));
	g->depth--;
	return rc;
}

UNCORED_API int uncored_region_end(struct uncored *u, const char *name)
{
	int rc = 0;

	if (!(u = conn(u, &rc)))
		return rc;
	lib_lock(u);
	rc = end_locked(u, name);
	lib_unlock(u);
	return rc;
}

/* ---- the report ---------------------------------------------------------- */

/* One row: the region's columns only on its first row. */
static void report_row(FILE *f, const struct region *r, const struct rser *q,
		       bool first, int wn, int we, unsigned nclaims)
{
	char name[LIB_ID_MAX + 140], count[32], rate[32], ran[16];

	snprintf(name, sizeof(name), nclaims > 1 ? "%s/%s" : "%.0s%s",
		 q->claim, q->event);
	if (q->blind == r->calls) {
		snprintf(count, sizeof(count), "-");
		snprintf(rate, sizeof(rate), "-");
	} else {
		snprintf(count, sizeof(count), "%.0f", q->scaled);
		snprintf(rate, sizeof(rate), "%.4g", q->en ? q->scaled * 1e9 /
			 (double)q->en : NAN);
	}
	if (q->en && q->run + q->en / 1000 < q->en)
		snprintf(ran, sizeof(ran), "%.0f%%", 100.0 * (double)q->run /
			 (double)q->en);
	else
		snprintf(ran, sizeof(ran), "100%%");
	if (first)
		fprintf(f, "%-*s %8" PRIu64 " %10.6f", wn, r->name, r->calls,
			(double)r->ns / 1e9);
	else
		fprintf(f, "%-*s %8s %10s", wn, "", "", "");
	fprintf(f, "  %-*s %6u %16s %12s %5s\n", we, name, q->socket, count,
		rate, ran);
}

static int region_report_locked(struct uncored *u, FILE *f)
{
	const struct regions *g = u->reg;
	int wn = 6, we = 5;

	if (!f)
		return lib_fail(u, -EINVAL, "no stream to report to");
	if (!g || !g->n)
		return 0;
	for (size_t i = 0; i < g->n; i++) {
		wn = (int)strlen(g->r[i].name) > wn ? (int)strlen(g->r[i].name) : wn;
		for (size_t k = 0; k < g->r[i].n; k++) {
			int l = (int)strlen(g->r[i].s[k].event) +
				(u->nids > 1 ? (int)strlen(g->r[i].s[k].claim) + 1 : 0);

			we = l > we ? l : we;
		}
	}
	fprintf(f, "uncored regions (uncore counts are per socket: they include "
		"everything else that ran on the socket meanwhile)\n");
	fprintf(f, "%-*s %8s %10s  %-*s %6s %16s %12s %5s\n", wn, "REGION",
		"CALLS", "SECONDS", we, "EVENT", "SOCKET", "COUNT", "RATE/s",
		"RAN");
	for (size_t i = 0; i < g->n; i++)
		for (size_t k = 0; k < g->r[i].n; k++)
			report_row(f, &g->r[i], &g->r[i].s[k], k == 0, wn, we,
				   (unsigned)u->nids);
	fflush(f);
	return ferror(f) ? lib_fail(u, -EIO, "writing the region report "
				    "failed") : 0;
}

UNCORED_API int uncored_region_report(struct uncored *u, FILE *f)
{
	int rc = 0;

	if (!(u = conn(u, &rc)))
		return rc;
	lib_lock(u);
	rc = region_report_locked(u, f);
	lib_unlock(u);
	return rc;
}
