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
#include "gz.h"

struct expo_page {
	atomic_uint refs;
	uint64_t gen, seq;	/* what it was rendered from */
	uint64_t born_ns;	/* CLOCK_MONOTONIC at the render */
	struct {
		char *p;	/* NULL: the variant is missing (gzip only) */
		size_t len;
	} v[2][2];		/* [enum prom_fmt][gzip] */
};

struct expo {
	pthread_mutex_t lock;	/* cur */
	pthread_mutex_t render;	/* one render at a time */
	struct expo_page *cur;	/* holds one reference; NULL at first */
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
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_init(&e->render, NULL);
	return e;
}

void expo_free(struct expo *e)
{
	if (!e)
		return;
	expo_put(e->cur);
	pthread_mutex_destroy(&e->lock);
	pthread_mutex_destroy(&e->render);
	free(e);
}

void expo_put(void *arg)
{
	struct expo_page *pg = arg;

	if (!pg || atomic_fetch_sub(&pg->refs, 1) != 1)
		return;
	for (int f = 0; f < 2; f++)
		for (int z = 0; z < 2; z++)
			free(pg->v[f][z].p);
	free(pg);
}

static bool fresh(const struct expo_page *pg, uint64_t gen, uint64_t seq,
		  uint64_t max_age_ns)
{
	return pg->gen == gen && pg->seq == seq &&
	       now_ns() - pg->born_ns < max_age_ns;
}

/* A new page (one reference) with every variant, or NULL with *err. */
static struct expo_page *render(uint64_t gen, uint64_t seq,
				expo_render_fn fn, void *arg, int *err)
{
	struct expo_page *pg = calloc(1, sizeof(*pg));

	if (!pg) {
		*err = -ENOMEM;
		return NULL;
	}
	atomic_init(&pg->refs, 1);
	pg->gen = gen;
	pg->seq = seq;
	pg->born_ns = now_ns();
	for (int f = 0; f < 2; f++) {
		struct buf b = BUF_INIT;
		int r = fn(arg, (enum prom_fmt)f, &b);

		if (r == 0 && b.oom)
			r = -ENOMEM;
		if (r == 0 && !(pg->v[f][0].p = buf_steal(&b, &pg->v[f][0].len)))
			r = -ENOMEM;
		buf_free(&b);
		if (r < 0) {
			*err = r;
			expo_put(pg);
			return NULL;
		}
		/* Without memory for the gzip variant, gzip clients get
		   the plain one: no reason to fail the page. */
		if (pg->v[f][0].len >= GZ_MIN_SIZE &&
		    gz_compress(pg->v[f][0].p, pg->v[f][0].len,
				&pg->v[f][1].p, &pg->v[f][1].len) < 0)
			pg->v[f][1].p = NULL;
	}
	return pg;
}

struct expo_page *expo_get(struct expo *e, uint64_t gen, uint64_t seq,
			   uint64_t max_age_ns, expo_render_fn fn, void *arg,
			   int *err)
{
	struct expo_page *old, *pg, *prev;

	pthread_mutex_lock(&e->lock);
	old = e->cur;
	if (old)
		atomic_fetch_add(&old->refs, 1);
	pthread_mutex_unlock(&e->lock);
	if (old && fresh(old, gen, seq, max_age_ns))
		return old;
	if (old) {
		if (pthread_mutex_trylock(&e->render) != 0)
			return old;	/* being rendered: the previous page */
	} else {
		pthread_mutex_lock(&e->render);
	}
	/* Another thread may have published a fresh page meanwhile. */
	pthread_mutex_lock(&e->lock);
	pg = e->cur;
	if (pg && pg != old && fresh(pg, gen, seq, max_age_ns)) {
		atomic_fetch_add(&pg->refs, 1);
		pthread_mutex_unlock(&e->lock);
		pthread_mutex_unlock(&e->render);
		expo_put(old);
		return pg;
	}
	pthread_mutex_unlock(&e->lock);

	pg = render(gen, seq, fn, arg, err);
	if (!pg) {
		pthread_mutex_unlock(&e->render);
		return old;	/* NULL before the first page */
	}
	atomic_fetch_add(&pg->refs, 1);		/* the caller's */
	pthread_mutex_lock(&e->lock);
	prev = e->cur;
	e->cur = pg;
	pthread_mutex_unlock(&e->lock);
	pthread_mutex_unlock(&e->render);
	expo_put(prev);
	expo_put(old);
	return pg;
}

void expo_body(const struct expo_page *pg, enum prom_fmt fmt, bool gzip,
	       const void **data, size_t *len, bool *gzipped)
{
	int f = fmt == PROM_OPENMETRICS_100;

	*gzipped = gzip && pg->v[f][1].p;
	*data = pg->v[f][*gzipped].p;
	*len = pg->v[f][*gzipped].len;
}
