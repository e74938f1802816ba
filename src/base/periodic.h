/*
 * periodic.h - a thread that calls one function every interval until it
 * is stopped: the resctrl and uncore-frequency monitors' loop.
 *
 * The passes are spaced on CLOCK_MONOTONIC from the thread's start (a
 * slow pass shortens the next wait, it does not shift the schedule), and
 * periodic_stop() wakes the wait at once: a monitor never delays the
 * daemon's exit by an interval.  A pass in progress is not interrupted.
 */
#ifndef UNCORED_PERIODIC_H
#define UNCORED_PERIODIC_H

#include <pthread.h>
#include <stdbool.h>

struct periodic {
	void (*fn)(void *arg);
	void *arg;
	unsigned interval_ms;
	bool at_once;			/* a pass as the thread starts */
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;		/* guards stop */
	pthread_cond_t cv;
	bool stop;
};

/*
 * Starts a thread named name (at most 15 characters) that calls fn(arg)
 * every interval_ms (0 is taken as 1), first at once if at_once.  p is
 * the caller's, zeroed or stopped before; it must not move while the
 * thread runs.  0, or -errno (no thread, nothing to stop).
 */
int periodic_start(struct periodic *p, const char *name, unsigned interval_ms,
		   bool at_once, void (*fn)(void *arg), void *arg);

/* Stops and joins the thread; nothing when none was started.  Call from
 * another thread than the periodic one. */
void periodic_stop(struct periodic *p);

#endif
