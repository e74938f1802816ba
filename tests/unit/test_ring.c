/*
 * test_ring.c - single-threaded tests of the sample ring (ring.c).
 *
 * Sequence bookkeeping: an empty ring, the first pushes, wrap-around
 * (the oldest samples must become -ENOENT and the tail must follow the
 * head), capacity 1, and out-of-range sequence numbers.  Contents: every
 * word of every held sample reads back as pushed, for slot sizes on both
 * sides of a cache line, and ring_read() writes exactly nwords words.
 * Construction: zero and overflowing sizes are refused with the right
 * errno.  Concurrency is tested in test_ring_threads.c.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/ring.h"
#include "tests/tap.h"

#define CANARY	UINT64_C(0xdeadbeefcafef00d)
#define MAXW	130

/* The pattern sample `seq` carries in word i. */
static uint64_t pat(uint64_t seq, unsigned i)
{
	return seq * UINT64_C(0x9E3779B97F4A7C15) + i;
}

static void fill(uint64_t *w, unsigned nwords, uint64_t seq)
{
	unsigned i;

	for (i = 0; i < nwords; i++)
		w[i] = pat(seq, i);
}

/* Returns 1 if w[0..nwords-1] is sample seq and w[nwords] the canary. */
static int holds(const uint64_t *w, unsigned nwords, uint64_t seq)
{
	unsigned i;

	for (i = 0; i < nwords; i++)
		if (w[i] != pat(seq, i))
			return 0;
	return w[nwords] == CANARY;
}

static struct ring *new_or_die(unsigned capacity, unsigned nwords)
{
	struct ring *r = ring_new(capacity, nwords);

	if (!r) {
		printf("Bail out! ring_new(%u, %u) failed\n", capacity, nwords);
		exit(1);
	}
	return r;
}

static void test_empty(void)
{
	struct ring *r = new_or_die(4, 3);
	uint64_t w[4] = { CANARY, CANARY, CANARY, CANARY };

	is_int(ring_capacity(r), 4, "capacity is kept");
	is_int(ring_nwords(r), 3, "nwords is kept");
	is_u64(ring_head(r), 0, "empty: head 0");
	is_u64(ring_tail(r), 0, "empty: tail 0");
	is_int(ring_read(r, 0, w), -ENOENT, "empty: read seq 0 -> ENOENT");
	is_int(ring_read(r, 1, w), -ENOENT, "empty: read seq 1 -> ENOENT");
	is_u64(ring_latest(r, w), 0, "empty: latest -> 0");
	ok(w[0] == CANARY && w[1] == CANARY && w[2] == CANARY &&
	   w[3] == CANARY, "empty: buffer untouched");
	ring_free(r);
}

static void test_push_read(void)
{
	struct ring *r = new_or_die(4, 3);
	uint64_t in[3], w[4];
	uint64_t seq;
	int good;

	fill(in, 3, 1);
	is_u64(ring_push(r, in), 1, "first push gets seq 1");
	is_u64(ring_head(r), 1, "head 1");
	is_u64(ring_tail(r), 1, "tail 1");
	w[3] = CANARY;
	is_int(ring_read(r, 1, w), 0, "read seq 1");
	ok(holds(w, 3, 1), "seq 1 reads back, no word past nwords written");
	is_int(ring_read(r, 2, w), -ENOENT, "seq 2 > head -> ENOENT");
	is_int(ring_read(r, 0, w), -ENOENT, "seq 0 -> ENOENT");
	is_int(ring_read(r, UINT64_MAX, w), -ENOENT,
	       "seq UINT64_MAX -> ENOENT");

	fill(in, 3, 2);
	is_u64(ring_push(r, in), 2, "second push gets seq 2");
	fill(in, 3, 3);
	is_u64(ring_push(r, in), 3, "third push gets seq 3");
	fill(in, 3, 4);
	is_u64(ring_push(r, in), 4, "fourth push gets seq 4 (ring full)");
	is_u64(ring_head(r), 4, "full: head 4");
	is_u64(ring_tail(r), 1, "full: tail still 1");
	good = 1;
	for (seq = 1; seq <= 4; seq++) {
		w[3] = CANARY;
		good &= ring_read(r, seq, w) == 0 && holds(w, 3, seq);
	}
	ok(good, "full: seqs 1..4 all read back");
	w[3] = CANARY;
	is_u64(ring_latest(r, w), 4, "full: latest is seq 4");
	ok(holds(w, 3, 4), "full: latest holds sample 4");

	/* One more overwrites seq 1. */
	fill(in, 3, 5);
	is_u64(ring_push(r, in), 5, "fifth push gets seq 5");
	is_u64(ring_head(r), 5, "wrapped: head 5");
	is_u64(ring_tail(r), 2, "wrapped: tail 2");
	w[0] = CANARY;
	is_int(ring_read(r, 1, w), -ENOENT, "wrapped: seq 1 overwritten");
	is_u64(w[0], CANARY, "wrapped: ENOENT leaves buffer untouched");
	good = 1;
	for (seq = 2; seq <= 5; seq++) {
		w[3] = CANARY;
		good &= ring_read(r, seq, w) == 0 && holds(w, 3, seq);
	}
	ok(good, "wrapped: seqs 2..5 all read back");
	is_u64(ring_latest(r, w), 5, "wrapped: latest is seq 5");
	ok(holds(w, 3, 5), "wrapped: latest holds sample 5");
	ring_free(r);
}

/* Many laps: after every push the held window is exactly
   [head - capacity + 1, head] and everything older is gone. */
static void test_laps(unsigned capacity, unsigned nwords)
{
	struct ring *r = new_or_die(capacity, nwords);
	uint64_t in[MAXW], w[MAXW + 1];
	uint64_t n, seq, head, tail;
	int seqs_ok = 1, window_ok = 1, data_ok = 1, gone_ok = 1;

	for (n = 1; n <= 5 * (uint64_t)capacity + 3; n++) {
		fill(in, nwords, n);
		seqs_ok &= ring_push(r, in) == n;
		head = ring_head(r);
		tail = ring_tail(r);
		window_ok &= head == n &&
			     tail == (n > capacity ? n - capacity + 1 : 1);
		for (seq = tail; seq <= head; seq++) {
			w[nwords] = CANARY;
			data_ok &= ring_read(r, seq, w) == 0 &&
				   holds(w, nwords, seq);
		}
		for (seq = tail > 3 ? tail - 3 : 1; seq < tail; seq++)
			gone_ok &= ring_read(r, seq, w) == -ENOENT;
		gone_ok &= ring_read(r, head + 1, w) == -ENOENT;
	}
	ok(seqs_ok, "cap %u nwords %u: push returns 1, 2, 3, ...",
	   capacity, nwords);
	ok(window_ok, "cap %u nwords %u: head and tail follow every push",
	   capacity, nwords);
	ok(data_ok, "cap %u nwords %u: every held sample reads back intact",
	   capacity, nwords);
	ok(gone_ok, "cap %u nwords %u: overwritten and future seqs ENOENT",
	   capacity, nwords);
	ring_free(r);
}

static void test_capacity_one(void)
{
	struct ring *r = new_or_die(1, 2);
	uint64_t in[2], w[3];

	fill(in, 2, 1);
	is_u64(ring_push(r, in), 1, "cap 1: first push seq 1");
	is_u64(ring_tail(r), 1, "cap 1: tail 1");
	fill(in, 2, 2);
	is_u64(ring_push(r, in), 2, "cap 1: second push seq 2");
	is_u64(ring_head(r), 2, "cap 1: head 2");
	is_u64(ring_tail(r), 2, "cap 1: tail 2");
	is_int(ring_read(r, 1, w), -ENOENT, "cap 1: seq 1 overwritten");
	w[2] = CANARY;
	is_int(ring_read(r, 2, w), 0, "cap 1: seq 2 readable");
	ok(holds(w, 2, 2), "cap 1: seq 2 intact");
	w[2] = CANARY;
	is_u64(ring_latest(r, w), 2, "cap 1: latest seq 2");
	ok(holds(w, 2, 2), "cap 1: latest intact");
	ring_free(r);
}

static void test_bad_sizes(void)
{
	struct ring *r;

	errno = 0;
	r = ring_new(0, 4);
	ok(r == NULL && errno == EINVAL, "capacity 0 -> NULL, EINVAL");
	errno = 0;
	r = ring_new(4, 0);
	ok(r == NULL && errno == EINVAL, "nwords 0 -> NULL, EINVAL");
	errno = 0;
	r = ring_new(0, 0);
	ok(r == NULL && errno == EINVAL, "both 0 -> NULL, EINVAL");
	/* capacity * (nwords + 1) * 8 exceeds any 64-bit size_t. */
	errno = 0;
	r = ring_new(UINT_MAX, UINT_MAX);
	ok(r == NULL && errno == ENOMEM, "UINT_MAX x UINT_MAX -> NULL, ENOMEM");
	errno = 0;
	r = ring_new(UINT_MAX, 1u << 29);
	ok(r == NULL && errno == ENOMEM, "2^32 x 2^29 words -> NULL, ENOMEM");
	errno = 0;
	r = ring_new(1u << 31, UINT_MAX - 2);
	ok(r == NULL && errno == ENOMEM, "2^31 x ~2^32 words -> NULL, ENOMEM");
	ring_free(NULL);
	ok(1, "ring_free(NULL) is a no-op");
}

/*
 * A ring that replaces another (a reload that changes the program, issue
 * 20 item 10) goes on from the old head, so that sequence numbers never
 * go back and a client's since=N stays meaningful.
 */
static void test_start_after(void)
{
	struct ring *r = new_or_die(4, 3);
	uint64_t w[4] = { CANARY, CANARY, CANARY, CANARY };

	ring_start_after(r, 413);
	is_u64(ring_first(r), 414, "started after 413: first is 414");
	is_u64(ring_head(r), 413, "... head 413 before a push");
	ok(ring_tail(r) > ring_head(r), "... and it holds nothing");
	is_int(ring_read(r, 413, w), -ENOENT, "... 413 is not in it");
	is_u64(ring_latest(r, w), 0, "... latest: none");
	for (uint64_t seq = 414; seq <= 419; seq++) {
		fill(w, 3, seq);
		if (ring_push(r, w) != seq)
			break;
	}
	is_u64(ring_head(r), 419, "six pushes: 414..419");
	is_u64(ring_tail(r), 416, "... the ring of 4 holds 416..419");
	w[3] = CANARY;
	is_int(ring_read(r, 415, w), -ENOENT, "... 415 is gone");
	is_int(ring_read(r, 417, w), 0, "... 417 is read");
	ok(holds(w, 3, 417), "... intact");
	ring_free(r);

	r = new_or_die(8, 1);
	ring_start_after(r, 100);
	fill(w, 1, 101);
	ring_push(r, w);
	is_u64(ring_tail(r), 101, "a bigger ring: the tail is the first, 101, "
	       "not 94");
	ring_free(r);
}

int main(void)
{
	test_empty();
	test_start_after();
	test_push_read();
	test_capacity_one();
	/* Slot sizes below, at and above one cache line (stamp + words). */
	test_laps(1, 1);
	test_laps(3, 1);
	test_laps(5, 7);
	test_laps(7, 8);
	test_laps(16, 64);
	test_laps(3, MAXW);
	test_bad_sizes();
	return tap_done();
}
