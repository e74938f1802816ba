/*
 * test_expo.c - the /metrics page cache: one render per (generation,
 * sequence) in each format asked for, a new one for new data or an old page, the
 * previous page (without waiting) while another thread renders, pages
 * that outlive their replacement while referenced, gzip variants that
 * inflate to the plain bytes, and render failures.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "serve/expo.h"
#include "tests/tap.h"

static atomic_int renders;
static int fail_with;		/* render returns this when non-zero */
static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static bool gated;		/* render waits on gate */
static atomic_int entered;	/* renders that reached the gate */
static _Thread_local int last_err;	/* of this thread's last get() */

/* Renders "<tag> fmt=<fmt>" and 300 bytes of filler (above GZ_MIN_SIZE). */
static int render(void *arg, enum prom_fmt fmt, struct buf *b)
{
	if (gated) {
		atomic_fetch_add(&entered, 1);
		pthread_mutex_lock(&gate);
		pthread_mutex_unlock(&gate);
	}
	atomic_fetch_add(&renders, 1);
	if (fail_with)
		return fail_with;
	buf_printf(b, "%s fmt=%d\n", (const char *)arg, (int)fmt);
	for (int i = 0; i < 30; i++)
		buf_puts(b, "# filler\n");
	return 0;
}

static const char *text_of(struct expo_page *pg, bool gz, bool *gzipped)
{
	static char out[4096];
	const void *d;
	size_t len;

	expo_body(pg, gz, &d, &len, gzipped);
	if (!*gzipped) {
		snprintf(out, sizeof(out), "%.*s", (int)len, (const char *)d);
	} else {
		uLongf n = sizeof(out) - 1;
		z_stream z = { 0 };

		inflateInit2(&z, 16 + 15);
		z.next_in = (Bytef *)(uintptr_t)d;
		z.avail_in = (uInt)len;
		z.next_out = (Bytef *)out;
		z.avail_out = (uInt)n;
		inflate(&z, Z_FINISH);
		out[z.total_out] = '\0';
		inflateEnd(&z);
	}
	return out;
}

static struct expo_page *get(struct expo *e, enum prom_fmt f, uint64_t gen,
			     uint64_t seq, uint64_t age, const char *tag)
{
	last_err = 0;
	return expo_get(e, f, gen, seq, age, render, (void *)(uintptr_t)tag,
			&last_err);
}

struct getter {
	struct expo *e;
	uint64_t seq;
	struct expo_page *pg;
};

static void *get_thread(void *arg)
{
	struct getter *g = arg;

	g->pg = get(g->e, PROM_TEXT_004, 1, g->seq, UINT64_MAX, "B");
	return NULL;
}

int main(void)
{
	struct expo *e = expo_new();
	struct expo_page *p1, *p2, *p3, *p4;
	struct getter g;
	pthread_t th;
	bool gz;

	ok(e != NULL, "expo_new");

	p1 = get(e, PROM_TEXT_004, 1, 10, UINT64_MAX, "A");
	ok(p1 != NULL, "first page rendered");
	is_int(atomic_load(&renders), 1, "... once, in the format asked for");
	like(text_of(p1, false, &gz), "A fmt=0\n", "text 0.0.4 page");
	ok(!gz, "... plain");
	like(text_of(p1, true, &gz), "A fmt=0\n",
	     "its gzip variant inflates to the plain one");
	ok(gz, "... and is gzip-encoded");
	p2 = get(e, PROM_OPENMETRICS_100, 1, 10, UINT64_MAX, "A");
	like(text_of(p2, false, &gz), "A fmt=1\n", "OpenMetrics page");
	is_int(atomic_load(&renders), 2, "... rendered on demand");
	expo_put(p2);
	atomic_store(&renders, 2);

	p2 = get(e, PROM_TEXT_004, 1, 10, UINT64_MAX, "A");
	ok(p2 == p1, "same key: the same page");
	is_int(atomic_load(&renders), 2, "... without rendering");
	expo_put(p2);

	p2 = get(e, PROM_TEXT_004, 1, 11, UINT64_MAX, "C");
	ok(p2 && p2 != p1, "new sequence: a new page");
	is_int(atomic_load(&renders), 3, "... rendered");
	like(text_of(p1, false, &gz), "A fmt=0",
	     "the replaced page is intact while referenced");
	expo_put(p1);
	p3 = get(e, PROM_TEXT_004, 2, 11, UINT64_MAX, "D");
	ok(p3 && p3 != p2, "new generation: a new page");
	expo_put(p2);
	expo_put(p3);
	p3 = get(e, PROM_TEXT_004, 2, 11, 0, "E");
	like(text_of(p3, false, &gz), "E fmt=0",
	     "a page older than max_age is rendered again");
	expo_put(p3);

	/* another thread renders: the previous page at once */
	atomic_store(&renders, 0);
	gated = true;
	pthread_mutex_lock(&gate);
	g = (struct getter){ .e = e, .seq = 20 };
	pthread_create(&th, NULL, get_thread, &g);
	/* wait (10 s at most) until it is inside render(), holding the
	   render lock */
	for (int i = 0; i < 10000 && atomic_load(&entered) == 0; i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	ok(atomic_load(&entered) == 1, "the other thread is rendering");
	p4 = get(e, PROM_TEXT_004, 1, 21, UINT64_MAX, "F");
	like(text_of(p4, false, &gz), "E fmt=0",
	     "while another thread renders: the previous page");
	pthread_mutex_unlock(&gate);
	pthread_join(th, NULL);
	gated = false;
	is_int(atomic_load(&renders), 1, "... and only that thread rendered");
	like(text_of(g.pg, false, &gz), "B fmt=0",
	     "the rendering thread got its new page");
	expo_put(p4);
	expo_put(g.pg);

	/* failures */
	fail_with = -ENOMEM;
	p1 = get(e, PROM_TEXT_004, 9, 9, UINT64_MAX, "G");
	like(text_of(p1, false, &gz), "B fmt=0",
	     "a failed render keeps the previous page");
	expo_put(p1);
	expo_free(e);
	e = expo_new();
	p1 = get(e, PROM_TEXT_004, 1, 1, UINT64_MAX, "H");
	ok(p1 == NULL && last_err == -ENOMEM,
	   "no page yet and the render fails: NULL and the error");
	fail_with = 0;
	expo_free(e);
	return tap_done();
}
