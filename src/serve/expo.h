/*
 * expo.h - the /metrics page, rendered once per sample and shared by
 * every scrape of it.
 *
 * Rendering the exposition (and compressing it) costs far more than
 * sending it, and it changes once per sampler tick.  expo keeps the
 * latest page of each format (text 0.0.4, OpenMetrics 1.0.0), plain and
 * gzip-encoded, in a reference-counted block.  A scrape
 * takes a reference, hands the bytes to the HTTP layer and drops the
 * reference when the response is gone: no formatting, no /proc read and
 * no allocation of ours per scrape.
 *
 * A format's page is rendered by the first scrape in that format that
 * sees new data (its key, the program generation and snapshot sequence,
 * changed) or finds the page older than max_age (a stalled sampler:
 * process_* stay current), on the thread serving that scrape.  A scrape
 * arriving while another thread renders gets the previous page and never
 * waits; only the very first page is waited for.  A format nobody asks
 * for is never rendered, so a daemon scraped once per interval renders
 * once per scrape, as it did before pages were shared.
 */
#ifndef UNCORED_EXPO_H
#define UNCORED_EXPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/prom.h"

struct expo;
struct expo_page;

/* Renders the whole page in fmt into b (empty on entry).  Returns 0 or
 * -errno (the page is not published then). */
typedef int (*expo_render_fn)(void *arg, enum prom_fmt fmt, struct buf *b);

/* A new, empty cache, or NULL when out of memory. */
struct expo *expo_new(void);

/* Frees e and its page (pages still referenced live on until put). */
void expo_free(struct expo *e);

/*
 * Returns a reference to the current page in fmt, first rendering a new
 * one with fn(arg, fmt, ...) if the current one was made for another (gen, seq)
 * or is older than max_age_ns (CLOCK_MONOTONIC) - unless another thread
 * is rendering right now, in which case the previous page is returned.
 * If rendering fails, the previous page is returned when there is one,
 * else NULL with -errno in *err.  The caller drops the reference with
 * expo_put().
 */
struct expo_page *expo_get(struct expo *e, enum prom_fmt fmt, uint64_t gen,
			   uint64_t seq, uint64_t max_age_ns,
			   expo_render_fn fn, void *arg, int *err);

/*
 * The bytes of pg, valid while the reference is held.  With gzip, the
 * gzip-encoded variant if there is one: *gzipped says whether the bytes
 * returned are gzip-encoded.
 */
void expo_body(const struct expo_page *pg, bool gzip, const void **data,
	       size_t *len, bool *gzipped);

/* Drops a reference (void * so it can be a release callback); the last
 * one frees the page.  NULL is a no-op. */
void expo_put(void *pg);

#endif
