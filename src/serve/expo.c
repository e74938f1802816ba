/*
 * expo.c - the /metrics page rendered once per sample (see expo.h).
 *
 * Two locks: `lock` guards the current page pointer and is held only to
 * read or swap it (never while rendering), `render` lets one thread
 * render at a time and is only ever tried, except for the first page.
 * References are atomic, so a scrape releasing its page on one thread
 * and a render replacing it on another need no lock between them.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "expo.h"
#include "base/gz.h"

struct expo_page {
	atomic_uint refs;
	uint64_t gen, seq;	/* what it was rendered from */
	uint64_t born_ns;	/* CLOCK_MONOTONIC at the render */
	struct {
		char *p;	/* NULL: the variant is missing (gzip only) */
		size_t len;
	} v[2];			/* plain, gzip */
};

/* The page of one format: a format nobody asks for is never rendered. */
struct expo_slot {
	pthread_mutex_t lock;	/* cur */
	pthread_mutex_t render;	/* one render at a time */
	struct expo_page *cur;	/* holds one reference; NULL at first */
};

struct expo {
	struct expo_slot slot[2];	/* [enum prom_fmt] */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct expo *expo_new(void)
{
	struct expo *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	for (int f = 0; f < 2; f++) {
		pthread_mutex_init(&e->slot[f].lock, NULL);
		pthread_mutex_init(&e->slot[f].render, NULL);
	}
	return e;
}

void expo_free(struct expo *e)
{
	if (!e)
		return;
	for (int f = 0; f < 2; f++) {
		expo_put(e->slot[f].cur);
		pthread_mutex_destroy(&e->slot[f].lock);
		pthread_mutex_destroy(&e->slot[f].render);
	}
	free(e);
}

void expo_put(void *arg)
{
	struct expo_page *pg = arg;

	if (!pg || atomic_fetch_sub(&pg->refs, 1) != 1)
		return;
	free(pg->v[0].p);
	free(pg->v[1].p);
	free(pg);
}

static bool fresh(const struct expo_page *pg, uint64_t gen, uint64_t seq,
		  uint64_t max_age_ns)
{
	return pg->gen == gen && pg->seq == seq &&
	       now_ns() - pg->born_ns < max_age_ns;
}

/* A new page (one reference), plain and gzip, or NULL with *err. */
static struct expo_page *render(enum prom_fmt fmt, uint64_t gen,
				uint64_t seq, expo_render_fn fn, void *arg,
				int *err)
{
	struct expo_page *pg = calloc(1, sizeof(*pg));
	struct buf b = BUF_INIT;
	int r;

	if (!pg) {
		*err = -ENOMEM;
		return NULL;
	}
	atomic_init(&pg->refs, 1);
	pg->gen = gen;
	pg->seq = seq;
	pg->born_ns = now_ns();
	r = fn(arg, fmt, &b);
	if (r == 0 && b.oom)
		r = -ENOMEM;
	if (r == 0 && !(pg->v[0].p = buf_steal(&b, &pg->v[0].len)))
		r = -ENOMEM;
	buf_free(&b);
	if (r < 0) {
		*err = r;
		expo_put(pg);
		return NULL;
	}
	/* Without memory for the gzip variant, gzip clients get the plain
	   one: no reason to fail the page. */
	if (pg->v[0].len >= GZ_MIN_SIZE &&
	    gz_compress(pg->v[0].p, pg->v[0].len, &pg->v[1].p,
			&pg->v[1].len) < 0)
		pg->v[1].p = NULL;
	return pg;
}

struct expo_page *expo_get(struct expo *e, enum prom_fmt fmt, uint64_t gen,
			   uint64_t seq, uint64_t max_age_ns,
			   expo_render_fn fn, void *arg, int *err)
{
	struct expo_slot *sl = &e->slot[fmt == PROM_OPENMETRICS_100];
	struct expo_page *old, *pg, *prev;

	pthread_mutex_lock(&sl->lock);
	old = sl->cur;
	if (old)
		atomic_fetch_add(&old->refs, 1);
	pthread_mutex_unlock(&sl->lock);
	if (old && fresh(old, gen, seq, max_age_ns))
		return old;
	if (old) {
		if (pthread_mutex_trylock(&sl->render) != 0)
			return old;	/* being rendered: the previous page */
	} else {
		pthread_mutex_lock(&sl->render);
	}
	/* Another thread may have published a fresh page meanwhile. */
	pthread_mutex_lock(&sl->lock);
	pg = sl->cur;
	if (pg && pg != old && fresh(pg, gen, seq, max_age_ns)) {
		atomic_fetch_add(&pg->refs, 1);
		pthread_mutex_unlock(&sl->lock);
		pthread_mutex_unlock(&sl->render);
		expo_put(old);
		return pg;
	}
	pthread_mutex_unlock(&sl->lock);

	pg = render(fmt, gen, seq, fn, arg, err);
	if (!pg) {
		pthread_mutex_unlock(&sl->render);
		return old;	/* NULL before the first page */
	}
	atomic_fetch_add(&pg->refs, 1);		/* the caller's */
	pthread_mutex_lock(&sl->lock);
	prev = sl->cur;
	sl->cur = pg;
	pthread_mutex_unlock(&sl->lock);
	pthread_mutex_unlock(&sl->render);
	expo_put(prev);
	expo_put(old);
	return pg;
}

void expo_body(const struct expo_page *pg, bool gzip, const void **data,
	       size_t *len, bool *gzipped)
{
	*gzipped = gzip && pg->v[1].p;
	*data = pg->v[*gzipped].p;
	*len = pg->v[*gzipped].len;
}
