/*
 * resctrl_mon.c - periodic resctrl passes on a thread (see resctrl_mon.h).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "prom.h"
#include "resctrl.h"
#include "resctrl_mon.h"
#include "resctrl_own.h"

struct rdt_mon {
	char *root, *sysfs;
	unsigned interval_ms;
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;	/* guards everything below */
	pthread_cond_t cv;
	bool stop;
	int state;		/* last pass: 0, -ENOENT, or 1 before any */
	struct rdt_snap pub;	/* last published pass */
	struct rdt_stats stats;
	uint64_t passes;
	struct rdt_own *own;	/* set before the thread starts; used by the
				   thread only, but for rendering (own mutex) */
	int own_err;		/* the last walk's error, logged on change */
};

struct rdt_mon *rdt_mon_new(const char *root, const char *sysfs_root)
{
	struct rdt_mon *m = calloc(1, sizeof *m);
	pthread_condattr_t ca;

	if (!m)
		return NULL;
	m->root = strdup(root);
	m->sysfs = strdup(sysfs_root);
	if (!m->root || !m->sysfs) {
		free(m->root);
		free(m->sysfs);
		free(m);
		return NULL;
	}
	m->state = 1;
	pthread_mutex_init(&m->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->cv, &ca);
	pthread_condattr_destroy(&ca);
	rdt_mon_pass(m);
	return m;
}

/* The cgroup labels of the groups the manager made. */
static int label_own(struct rdt_own *own, struct rdt_snap *sn)
{
	char cg[4096], pod[64], ctr[128];

	for (size_t i = 0; i < sn->n; i++) {
		struct rdt_sample *s = &sn->s[i];

		if (!s->is_mon ||
		    !rdt_own_labels(own, s->group, cg, sizeof cg, pod, ctr))
			continue;
		if (!(s->cgroup = strdup(cg)) || !(s->pod = strdup(pod)) ||
		    !(s->ctr = strdup(ctr)))
			return -ENOMEM;
	}
	return 0;
}

int rdt_mon_pass(struct rdt_mon *m)
{
	struct rdt_snap next = { 0 };
	int r;

	if (m->own) {
		int c = rdt_own_pass(m->own);

		if (c < 0 && c != m->own_err)
			log_warnx("resctrl: cannot walk the cgroups: %s; "
				  "uncored's groups are kept as they are",
				  strerror(-c));
		m->own_err = c < 0 ? c : 0;
	}
	r = rdt_scan(m->root, m->sysfs, &next);
	if (r == 0 && m->own && label_own(m->own, &next) < 0)
		r = -ENOMEM;

	pthread_mutex_lock(&m->mu);
	if (r != m->state) {
		/* Said once per change, not once per pass. */
		if (r == -ENOENT)
			log_info("resctrl: no resctrl tree at %s (not mounted, or "
				 "no RDT monitoring in this kernel or CPU): no "
				 "per-group memory bandwidth; everything else goes on",
				 m->root);
		else if (r == 0 && m->state == -ENOENT)
			log_info("resctrl: tree found at %s", m->root);
		else if (r < 0)
			log_warnx("resctrl: a pass over %s failed: %s", m->root,
				  strerror(-r));
	}
	if (r == 0 || r == -ENOENT) {
		if (r == 0)
			rdt_count(&m->stats, &next);
		else
			rdt_snap_free(&next);	/* nothing to show */
		struct rdt_snap old = m->pub;
		m->pub = next;
		next = old;
		m->state = r;
	}
	m->passes++;
	pthread_mutex_unlock(&m->mu);
	rdt_snap_free(&next);
	return r;
}

static void *thread_main(void *arg)
{
	struct rdt_mon *m = arg;
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	/* groups for the cgroups at once, not an interval after start-up */
	if (m->own)
		rdt_mon_pass(m);
	for (;;) {
		t.tv_sec += m->interval_ms / 1000;
		t.tv_nsec += (long)(m->interval_ms % 1000) * 1000000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&m->mu);
		while (!m->stop &&
		       pthread_cond_timedwait(&m->cv, &m->mu, &t) != ETIMEDOUT)
			;
		bool stop = m->stop;
		pthread_mutex_unlock(&m->mu);
		if (stop)
			return NULL;
		rdt_mon_pass(m);
	}
}

int rdt_mon_start(struct rdt_mon *m, unsigned interval_ms)
{
	m->interval_ms = interval_ms ? interval_ms : 1;
	int r = pthread_create(&m->thread, NULL, thread_main, m);
	if (r)
		return -r;
	pthread_setname_np(m->thread, "uncored-rdt");
	m->started = true;
	return 0;
}

void rdt_mon_free(struct rdt_mon *m)
{
	if (!m)
		return;
	if (m->started) {
		pthread_mutex_lock(&m->mu);
		m->stop = true;
		pthread_cond_signal(&m->cv);
		pthread_mutex_unlock(&m->mu);
		pthread_join(m->thread, NULL);
	}
	rdt_own_free(m->own);	/* removes uncored's groups */
	rdt_snap_free(&m->pub);
	pthread_cond_destroy(&m->cv);
	pthread_mutex_destroy(&m->mu);
	free(m->root);
	free(m->sysfs);
	free(m);
}

void rdt_mon_render(struct prom *w, struct rdt_mon *m)
{
	pthread_mutex_lock(&m->mu);
	prom_family(w, "uncore_resctrl_available", PROM_GAUGE, "",
		    "1 when the last resctrl pass found a monitoring tree, "
		    "0 when resctrl is not mounted or not supported");
	prom_sample_u64(w, NULL, NULL, m->state == 0);
	if (m->state == 0)
		rdt_render(w, &m->pub, &m->stats);
	pthread_mutex_unlock(&m->mu);
	if (m->own)
		rdt_own_render(w, m->own);
}

void rdt_mon_set_own(struct rdt_mon *m, struct rdt_own *own)
{
	m->own = own;
}

uint64_t rdt_mon_passes(struct rdt_mon *m)
{
	pthread_mutex_lock(&m->mu);
	uint64_t n = m->passes;
	pthread_mutex_unlock(&m->mu);
	return n;
}
