/*
 * periodic.c - a thread that calls one function every interval (see
 * periodic.h).
 */
#include "config.h"

#include <errno.h>
#include <time.h>

#include "periodic.h"

static void *periodic_main(void *arg)
{
	struct periodic *p = arg;
	struct timespec t;
	bool stop;

	clock_gettime(CLOCK_MONOTONIC, &t);
	if (p->at_once)
		p->fn(p->arg);
	for (;;) {
		t.tv_sec += p->interval_ms / 1000;
		t.tv_nsec += (long)(p->interval_ms % 1000) * 1000000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&p->mu);
		while (!p->stop &&
		       pthread_cond_timedwait(&p->cv, &p->mu, &t) != ETIMEDOUT)
			;
		stop = p->stop;
		pthread_mutex_unlock(&p->mu);
		if (stop)
			return NULL;
		p->fn(p->arg);
	}
}

int periodic_start(struct periodic *p, const char *name, unsigned interval_ms,
		   bool at_once, void (*fn)(void *arg), void *arg)
{
	pthread_condattr_t ca;
	int r;

	p->fn = fn;
	p->arg = arg;
	p->interval_ms = interval_ms ? interval_ms : 1;
	p->at_once = at_once;
	p->stop = false;
	p->started = false;
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	r = pthread_create(&p->thread, NULL, periodic_main, p);
	if (r) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		return -r;
	}
	pthread_setname_np(p->thread, name);
	p->started = true;
	return 0;
}

void periodic_stop(struct periodic *p)
{
	if (!p->started)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	p->started = false;
}
