/*
 * test_ring_threads.c - the sample ring under one writer and many readers.
 *
 * A writer thread pushes samples as fast as it can; every word of sample
 * seq is a function of seq and the word index, so a sample made of words
 * from two different pushes (a torn read) or a sample that is not the one
 * asked for is recognisable.  Three reader threads meanwhile call
 * ring_latest() and ring_read() on random sequence numbers in
 * [tail, head] and verify every copy that the ring reports as good.
 * -EAGAIN and -ENOENT are expected (the writer laps small rings quickly);
 * a good copy that fails verification is a bug.
 *
 * Small rings make the writer overwrite slots while readers copy them,
 * which is the race the seqlock must catch.  Each run stops after a fixed
 * number of pushes or a time limit, whichever comes first, so the test
 * stays short under ThreadSanitizer - but not before every reader has
 * had a good copy from both calls (or 10 s more have passed): on a busy
 * machine the unsanitized writer once made its 200,000 pushes in 20 ms
 * while no reader got a CPU.  Build it with -fsanitize=thread
 * too: all shared data is atomic, so any report there is a real bug.
 *
 * The verifier itself is checked first against deliberately corrupted
 * samples, so a verifier that accepts anything cannot make this pass.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/ring.h"
#include "tests/tap.h"

#define NREADERS	3
#define MAXW		64

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

/* Returns 1 if every word of w is sample seq's. */
static int sample_ok(const uint64_t *w, unsigned nwords, uint64_t seq)
{
	unsigned i;

	for (i = 0; i < nwords; i++)
		if (w[i] != pat(seq, i))
			return 0;
	return 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct run {
	struct ring *ring;
	unsigned nwords;
	uint64_t max_pushes;
	unsigned pace_ns;		/* writer pauses 0..pace_ns after a push */
	double deadline;
	atomic_int started;		/* readers running */
	atomic_int satisfied;		/* readers with a good copy of each */
	atomic_bool done;
	/* writer results */
	uint64_t pushed;
	uint64_t bad_seq;		/* ring_push returned the wrong seq */
};

struct reader {
	pthread_t tid;
	struct run *run;
	uint64_t rng;
	/* ring_latest() */
	uint64_t latest_ok, latest_none, latest_torn, latest_backwards;
	/* ring_read() */
	uint64_t read_ok, read_enoent, read_eagain, read_torn, read_other;
	uint64_t bad_window;		/* tail > head */
	bool counted;			/* in run->satisfied */
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *writer_main(void *arg)
{
	struct run *run = arg;
	uint64_t w[MAXW];
	uint64_t n, rng = 88172645463325252u;
	double until;

	/* Start only once every reader is reading, so pushes and reads
	   overlap even when thread start-up is slow. */
	while (atomic_load(&run->started) < NREADERS)
		sched_yield();
	for (n = 1;; n++) {
		if ((n & 1023) == 0 || n > run->max_pushes) {
			double t = now();
			bool enough = n > run->max_pushes || t > run->deadline;

			if ((enough && atomic_load(&run->satisfied) ==
				       NREADERS) || t > run->deadline + 10)
				break;
		}
		fill(w, run->nwords, n);
		if (ring_push(run->ring, w) != n)
			run->bad_seq++;
		if (run->pace_ns) {
			until = now() + xorshift(&rng) % run->pace_ns / 1e9;
			while (now() < until)
				;
		}
	}
	run->pushed = n - 1;
	atomic_store(&run->done, 1);
	return NULL;
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	struct run *run = rd->run;
	struct ring *r = run->ring;
	uint64_t w[MAXW];
	uint64_t last = 0, seq, head, tail;
	int rc;

	atomic_fetch_add(&run->started, 1);
	while (ring_head(r) == 0 && !atomic_load(&run->done))
		;
	while (!atomic_load(&run->done)) {
		seq = ring_latest(r, w);
		if (seq == 0) {
			rd->latest_none++;
		} else {
			if (sample_ok(w, run->nwords, seq))
				rd->latest_ok++;
			else
				rd->latest_torn++;
			if (seq < last)
				rd->latest_backwards++;
			last = seq;
		}

		/* tail first: it is computed from a head no newer than the
		   one loaded after it. */
		tail = ring_tail(r);
		head = ring_head(r);
		if (tail > head)
			rd->bad_window++;
		if (head == 0 || tail > head)
			continue;
		seq = tail + xorshift(&rd->rng) % (head - tail + 1);
		rc = ring_read(r, seq, w);
		if (rc == 0) {
			if (sample_ok(w, run->nwords, seq))
				rd->read_ok++;
			else
				rd->read_torn++;
		} else if (rc == -ENOENT) {
			rd->read_enoent++;
		} else if (rc == -EAGAIN) {
			rd->read_eagain++;
		} else {
			rd->read_other++;
		}
		if (!rd->counted && rd->latest_ok && rd->read_ok) {
			rd->counted = true;
			atomic_fetch_add(&run->satisfied, 1);
		}
	}
	return NULL;
}

static void stress(unsigned capacity, unsigned nwords, uint64_t pushes,
		   unsigned pace_ns, double seconds)
{
	struct run run = { .nwords = nwords, .max_pushes = pushes,
			   .pace_ns = pace_ns };
	struct reader rd[NREADERS] = { { 0 } }, sum = { 0 };
	pthread_t wtid;
	uint64_t w[MAXW], seq, head, tail;
	int i, final_ok = 1;
	double t0;

	run.ring = ring_new(capacity, nwords);
	if (!run.ring) {
		printf("Bail out! ring_new(%u, %u) failed\n", capacity, nwords);
		exit(1);
	}
	atomic_init(&run.started, 0);
	atomic_init(&run.satisfied, 0);
	atomic_init(&run.done, 0);
	t0 = now();
	run.deadline = t0 + seconds;

	for (i = 0; i < NREADERS; i++) {
		rd[i].run = &run;
		rd[i].rng = UINT64_C(0x2545F4914F6CDD1D) * (uint64_t)(i + 1);
		if (pthread_create(&rd[i].tid, NULL, reader_main, &rd[i])) {
			printf("Bail out! pthread_create failed\n");
			exit(1);
		}
	}
	if (pthread_create(&wtid, NULL, writer_main, &run)) {
		printf("Bail out! pthread_create failed\n");
		exit(1);
	}
	pthread_join(wtid, NULL);
	for (i = 0; i < NREADERS; i++) {
		pthread_join(rd[i].tid, NULL);
		sum.latest_ok += rd[i].latest_ok;
		sum.latest_none += rd[i].latest_none;
		sum.latest_torn += rd[i].latest_torn;
		sum.latest_backwards += rd[i].latest_backwards;
		sum.read_ok += rd[i].read_ok;
		sum.read_enoent += rd[i].read_enoent;
		sum.read_eagain += rd[i].read_eagain;
		sum.read_torn += rd[i].read_torn;
		sum.read_other += rd[i].read_other;
		sum.bad_window += rd[i].bad_window;
	}

	printf("# cap %u nwords %u: %" PRIu64 " pushes in %.2f s\n",
	       capacity, nwords, run.pushed, now() - t0);
	printf("#   latest: %" PRIu64 " ok, %" PRIu64 " gave up (16 tries)\n",
	       sum.latest_ok, sum.latest_none);
	printf("#   read:   %" PRIu64 " ok, %" PRIu64 " EAGAIN, %" PRIu64
	       " ENOENT\n", sum.read_ok, sum.read_eagain, sum.read_enoent);

	ok(run.pushed > 0, "cap %u: writer pushed", capacity);
	is_u64(run.bad_seq, 0, "cap %u: push returned 1, 2, 3, ...", capacity);
	is_u64(sum.latest_torn, 0, "cap %u: no torn sample from ring_latest",
	       capacity);
	is_u64(sum.read_torn, 0, "cap %u: no torn sample from ring_read",
	       capacity);
	ok(sum.latest_ok > 0, "cap %u: ring_latest succeeded (%" PRIu64 ")",
	   capacity, sum.latest_ok);
	ok(sum.read_ok > 0, "cap %u: ring_read succeeded (%" PRIu64 ")",
	   capacity, sum.read_ok);
	is_u64(sum.latest_backwards, 0, "cap %u: ring_latest never went back",
	       capacity);
	is_u64(sum.read_other, 0, "cap %u: ring_read returned only 0, "
	       "-ENOENT, -EAGAIN", capacity);
	is_u64(sum.bad_window, 0, "cap %u: tail never ahead of head",
	       capacity);

	/* Quiescent again: the window is exact and every sample in it good. */
	head = ring_head(run.ring);
	tail = ring_tail(run.ring);
	is_u64(head, run.pushed, "cap %u: head is the last push", capacity);
	is_u64(tail, head >= capacity ? head - capacity + 1 : 1,
	       "cap %u: tail is head - capacity + 1", capacity);
	for (seq = tail; seq <= head; seq++)
		final_ok &= ring_read(run.ring, seq, w) == 0 &&
			    sample_ok(w, nwords, seq);
	ok(final_ok, "cap %u: afterwards every held sample reads back intact",
	   capacity);
	ring_free(run.ring);
}

/* The verifier must reject what a broken ring would return. */
static void test_verifier(void)
{
	enum { N = 32 };
	uint64_t w[N];
	unsigned i;

	fill(w, N, 1000);
	ok(sample_ok(w, N, 1000), "verifier: accepts an intact sample");
	ok(!sample_ok(w, N, 1001), "verifier: rejects the wrong seq");
	ok(!sample_ok(w, N, 1000 + 8), "verifier: rejects a sample one lap "
	   "(capacity 8) later");

	/* Torn: the first half from one push, the rest from the next write
	   to the same slot (8 pushes later in a ring of 8). */
	for (i = N / 2; i < N; i++)
		w[i] = pat(1008, i);
	ok(!sample_ok(w, N, 1000), "verifier: rejects a torn sample (old "
	   "head, new tail)");
	ok(!sample_ok(w, N, 1008), "verifier: rejects a torn sample (new "
	   "tail, as the new seq)");

	/* Only the last word stale. */
	fill(w, N, 1000);
	w[N - 1] = pat(992, N - 1);
	ok(!sample_ok(w, N, 1000), "verifier: rejects one stale last word");

	/* Only the first word new. */
	fill(w, N, 1000);
	w[0] = pat(1008, 0);
	ok(!sample_ok(w, N, 1000), "verifier: rejects one new first word");
}

int main(void)
{
	test_verifier();
	/* Writer flat out on a small ring: overwrites race with reads. */
	stress(8, 32, 200000, 0, 1.5);
	/* Default-sized ring, full-sized samples: mostly clean reads. */
	stress(3600, 64, 200000, 0, 1.0);
	/* Every push overwrites the only slot.  Flat out, the writer would
	   starve ring_latest(); random pauses of up to 2 us let copies
	   start at every phase of a push. */
	stress(1, 16, 100000, 2000, 0.5);
	return tap_done();
}
