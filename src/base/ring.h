/*
 * ring.h - the sample ring: one writer, many lock-free readers.
 *
 * The sampler thread pushes one sample per tick; HTTP threads read samples
 * concurrently.  A sample is a fixed number of 64-bit words.  Capacity is
 * fixed at creation (doc/design.md: default 3600) and the oldest sample is
 * overwritten when the ring is full.  Readers never block the writer and
 * never see a torn sample: each slot is a small seqlock, so a copy that
 * raced with an overwrite is detected and reported, never returned.
 *
 * Samples are named by sequence numbers 1, 2, 3, ... in push order; 0
 * means "none".  The sequence space (2^63) does not wrap in practice.
 *
 * Memory: one allocation of capacity * S bytes plus a 128-byte header,
 * where S = 8 * (nwords + 1) rounded up to a multiple of 64, so every slot
 * (an 8-byte stamp followed by its words) starts on its own cache line and
 * the writer filling one slot never shares a line with readers of the
 * previous one.  Default-sized ring with 64 words: 3600 * 576 B = 2.0 MiB.
 *
 * Thread rules: ring_new/ring_free are not concurrent with anything;
 * ring_push is called by exactly one thread at a time; every other
 * function may be called from any number of threads at once, including
 * while ring_push runs.
 */
#ifndef UNCORED_RING_H
#define UNCORED_RING_H

#include <stdint.h>

struct ring;

/*
 * Returns a new, empty ring of `capacity` slots of `nwords` words each,
 * owned by the caller (release with ring_free()).  Returns NULL with errno
 * EINVAL if capacity or nwords is 0, or ENOMEM if the size overflows or
 * the allocation fails.
 */
struct ring *ring_new(unsigned capacity, unsigned nwords);

/* Frees r and every slot; r may be NULL.  No reader may still use it. */
void ring_free(struct ring *r);

/* Return the sizes given to ring_new(). */
unsigned ring_capacity(const struct ring *r);
unsigned ring_nwords(const struct ring *r);

/*
 * Before the first push only (the ring is not yet shared): makes the next
 * push get seq + 1, so that a ring replacing another goes on from its
 * head and sequence numbers never go back.  Until that push ring_head()
 * says seq and the ring holds nothing.  seq 0 changes nothing.
 */
void ring_start_after(struct ring *r, uint64_t seq);

/* The first sequence number r gives: 1, or seq + 1 after
 * ring_start_after(r, seq). */
uint64_t ring_first(const struct ring *r);

/*
 * Writer only (one thread).  Copies ring_nwords(r) words from `words` into
 * the next slot, overwriting the oldest sample once the ring is full, and
 * publishes it.  Returns the sequence number it was given (1, 2, 3, ...).
 * Never blocks, never allocates, never fails.  `words` stays the caller's.
 */
uint64_t ring_push(struct ring *r, const uint64_t *words);

/*
 * Readers.  Return the newest published sequence number (0 if nothing was
 * pushed yet, or the seq given to ring_start_after()) and the oldest one
 * still held (head - capacity + 1, at least ring_first(); 0 if nothing
 * was pushed; above head while a ring started after seq is empty).  Both are snapshots: the writer may move on at once, and
 * the slot of ring_tail() is the next one it overwrites, so reading it can
 * already fail with -ENOENT or -EAGAIN.
 */
uint64_t ring_head(const struct ring *r);
uint64_t ring_tail(const struct ring *r);

/*
 * Copies sample `seq` into words[0 .. ring_nwords(r) - 1] (caller's
 * buffer).  Returns 0 on success, with a consistent copy of exactly that
 * sample.  Returns -ENOENT if seq was never published (0, or newer than
 * the head) or was already overwritten, leaving `words` untouched.
 * Returns -EAGAIN if the writer overwrote the slot while it was being
 * copied; `words` then holds garbage that must be discarded.  Lock-free:
 * never blocks or slows the writer.
 */
int ring_read(const struct ring *r, uint64_t seq, uint64_t *words);

/*
 * Copies the newest sample into words (caller's buffer) and returns its
 * sequence number.  Returns 0 if the ring is empty, or if no consistent
 * copy could be made in a bounded number of attempts (only possible when
 * the writer overwrites the newest slot repeatedly during the copies,
 * i.e. a tiny ring pushed to in a tight loop); `words` is then garbage.
 */
uint64_t ring_latest(const struct ring *r, uint64_t *words);

#endif
