/*
 * test_periodic.c - the monitors' thread (src/base/periodic.c): a pass at
 * once when asked, passes an interval apart, none after the stop, a stop
 * that wakes the wait instead of sleeping out a long interval, a stop of
 * one never started, and a start after a stop.
 */
#include "config.h"

#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "base/periodic.h"
#include "tests/tap.h"

static atomic_int passes;

static void pass(void *arg)
{
	(void)arg;
	atomic_fetch_add(&passes, 1);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Waits (up to 30 s) until at least n passes were made. */
static int wait_passes(int n)
{
	for (int i = 0; i < 30000 && atomic_load(&passes) < n; i++)
		usleep(1000);
	return atomic_load(&passes);
}

int main(void)
{
	struct periodic p = { 0 };
	double t0, took;
	int n;

	periodic_stop(&p);
	ok(1, "stopping one never started returns");

	/* an hour's interval, a pass at once, then the stop wakes the wait */
	atomic_store(&passes, 0);
	is_int(periodic_start(&p, "test-periodic", 3600 * 1000, true, pass,
			      NULL), 0, "started");
	is_int(wait_passes(1), 1, "the pass at once");
	t0 = now_s();
	periodic_stop(&p);
	took = now_s() - t0;
	ok(took < 1800, "the stop woke the hour's wait (%.3f s)", took);
	is_int(atomic_load(&passes), 1, "no pass but the first");

	/* 1 ms apart, none at once: passes come; none after the stop */
	atomic_store(&passes, 0);
	is_int(periodic_start(&p, "test-periodic", 1, false, pass, NULL), 0,
	       "started again after a stop");
	ok(wait_passes(5) >= 5, "passes an interval apart");
	periodic_stop(&p);
	n = atomic_load(&passes);
	usleep(20000);
	is_int(atomic_load(&passes), n, "no pass after the stop");

	/* an interval of 0 is 1 ms, not a spin or no pass at all */
	atomic_store(&passes, 0);
	is_int(periodic_start(&p, "test-periodic", 0, false, pass, NULL), 0,
	       "an interval of 0 starts");
	is_int(p.interval_ms, 1, "... as 1 ms");
	ok(wait_passes(3) >= 3, "... and passes come");
	periodic_stop(&p);
	return tap_done();
}
