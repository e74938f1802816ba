/*
 * ring.c - the sample ring: a per-slot seqlock (see ring.h).
 *
 * Every slot starts with a stamp that says what the slot holds: 0 for
 * never written, 2*seq - 1 while sample `seq` is being written, 2*seq once
 * it is published.  Stamps only grow, so a reader that finds the same
 * published stamp before and after its copy knows no write touched the
 * slot in between.
 *
 * Payload words are _Atomic and accessed relaxed, with fences giving the
 * seqlock its ordering (Boehm, "Can seqlocks get along with programming
 * language memory models?", MSPC 2012):
 *
 *   writer                           reader
 *     stamp = 2s-1          (relaxed)  s1 = stamp               (acquire)
 *     fence(release)                   if s1 != 2*seq: -ENOENT
 *     words[i] = v[i]       (relaxed)  v[i] = words[i]          (relaxed)
 *     stamp = 2s            (release)  fence(acquire)
 *     head = s              (release)  s2 = stamp               (relaxed)
 *                                      s2 != s1: -EAGAIN
 *
 * Seeing s1 == 2*seq (acquire, paired with the writer's release) makes
 * sample seq's words visible, so each load returns them or a later
 * writer's.  If any load returned a later writer's word, that writer's
 * release fence synchronizes with the reader's acquire fence, so its busy
 * stamp happens before the reload of the stamp, and s2 != s1.  Hence
 * s2 == s1 proves the copy is exactly sample seq.  Because no plain
 * memory is shared, ThreadSanitizer sees no data race either.  On x86 all
 * of this compiles to plain moves; the fences only restrain the compiler.
 */
#include "config.h"

#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ring.h"

#define RING_LINE	64				/* bytes per cache line */
#define RING_LINE_WORDS	(RING_LINE / sizeof(uint64_t))

/* Attempts ring_latest() makes before giving up. */
#define RING_LATEST_TRIES	16

struct ring {
	unsigned capacity;
	unsigned nwords;
	uint64_t base;			/* sequence numbers start after it */
	size_t stride;			/* words per slot: stamp + payload,
					   rounded up to whole cache lines */
	/* Written by the writer on every push and read by every reader:
	   a line of its own keeps it away from the read-only fields. */
	alignas(RING_LINE) _Atomic uint64_t head;
	/* capacity slots of `stride` words; slot[0] of each is its stamp */
	alignas(RING_LINE) _Atomic uint64_t slot[];
};

/* aligned_alloc() wants a size that is a multiple of the alignment. */
_Static_assert(sizeof(struct ring) % RING_LINE == 0, "ring header size");

static inline _Atomic uint64_t *ring_slot(const struct ring *r, uint64_t seq)
{
	/* The cast drops const only for the writer's benefit; readers use
	   the result for loads alone. */
	return (_Atomic uint64_t *)&r->slot[(seq - 1) % r->capacity *
					     r->stride];
}

struct ring *ring_new(unsigned capacity, unsigned nwords)
{
	struct ring *r;
	size_t slot_lines, lines, bytes, stride, nslotw, i;

	if (capacity == 0 || nwords == 0) {
		errno = EINVAL;
		return NULL;
	}
	/* A slot is the stamp and nwords words rounded up to whole lines:
	   nwords / 8 + 1 lines.  Every count below must fit a size_t. */
	slot_lines = (size_t)(nwords / RING_LINE_WORDS) + 1;
	if (__builtin_mul_overflow(slot_lines, (size_t)capacity, &lines) ||
	    __builtin_mul_overflow(lines, (size_t)RING_LINE, &bytes) ||
	    __builtin_add_overflow(bytes, sizeof(struct ring), &bytes))
		goto nomem;
	stride = slot_lines * RING_LINE_WORDS;
	nslotw = lines * RING_LINE_WORDS;

	/* sizeof(struct ring) and the slot bytes are multiples of RING_LINE,
	   as aligned_alloc() requires. */
	r = aligned_alloc(RING_LINE, bytes);
	if (!r)
		goto nomem;
	r->capacity = capacity;
	r->nwords = nwords;
	r->base = 0;
	r->stride = stride;
	atomic_init(&r->head, 0);
	/* Stamp 0 = never written.  Touching every page here also keeps
	   first-use page faults out of the sampler's ticks. */
	for (i = 0; i < nslotw; i++)
		atomic_init(&r->slot[i], 0);
	return r;

nomem:
	errno = ENOMEM;
	return NULL;
}

void ring_free(struct ring *r)
{
	free(r);
}

void ring_start_after(struct ring *r, uint64_t seq)
{
	r->base = seq;
	atomic_store_explicit(&r->head, seq, memory_order_relaxed);
}

uint64_t ring_first(const struct ring *r)
{
	return r->base + 1;
}

unsigned ring_capacity(const struct ring *r)
{
	return r->capacity;
}

unsigned ring_nwords(const struct ring *r)
{
	return r->nwords;
}

uint64_t ring_push(struct ring *r, const uint64_t *words)
{
	/* Only this thread writes head, so a relaxed load is exact. */
	uint64_t seq = atomic_load_explicit(&r->head, memory_order_relaxed) + 1;
	_Atomic uint64_t *s = ring_slot(r, seq);
	unsigned i;

	atomic_store_explicit(&s[0], 2 * seq - 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	for (i = 0; i < r->nwords; i++)
		atomic_store_explicit(&s[1 + i], words[i],
				      memory_order_relaxed);
	atomic_store_explicit(&s[0], 2 * seq, memory_order_release);
	atomic_store_explicit(&r->head, seq, memory_order_release);
	return seq;
}

uint64_t ring_head(const struct ring *r)
{
	return atomic_load_explicit(&r->head, memory_order_acquire);
}

uint64_t ring_tail(const struct ring *r)
{
	uint64_t head = ring_head(r);

	if (head == 0)
		return 0;
	return head - r->base >= r->capacity ? head - r->capacity + 1
					      : r->base + 1;
}

int ring_read(const struct ring *r, uint64_t seq, uint64_t *words)
{
	uint64_t head = ring_head(r), stamp;
	const _Atomic uint64_t *s;
	unsigned i;

	/* Also keeps 2 * seq below from overflowing. */
	if (seq <= r->base || seq > head || head - seq >= r->capacity)
		return -ENOENT;
	s = ring_slot(r, seq);
	/* head >= seq was stored after stamp 2*seq, so the stamp is 2*seq,
	   or larger if a later sample is (being) written over it. */
	stamp = atomic_load_explicit(&s[0], memory_order_acquire);
	if (stamp != 2 * seq)
		return -ENOENT;
	for (i = 0; i < r->nwords; i++)
		words[i] = atomic_load_explicit(&s[1 + i],
						memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&s[0], memory_order_relaxed) != stamp)
		return -EAGAIN;
	return 0;
}

uint64_t ring_latest(const struct ring *r, uint64_t *words)
{
	uint64_t head;
	int tries;

	/* Each failure means the writer published something newer, so the
	   next attempt reads a new head. */
	for (tries = 0; tries < RING_LATEST_TRIES; tries++) {
		head = ring_head(r);
		if (head == r->base)
			return 0;	/* nothing pushed yet */
		if (ring_read(r, head, words) == 0)
			return head;
	}
	return 0;
}
