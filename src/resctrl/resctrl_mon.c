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

#include "base/log.h"
#include "base/periodic.h"
#include "base/prom.h"
#include "resctrl.h"
#include "resctrl_mon.h"
#include "resctrl_own.h"

struct rdt_mon {
	char *root, *sysfs;
	struct periodic loop;	/* the thread: a pass an interval */
	pthread_mutex_t mu;	/* guards everything below */
	int state;		/* last pass: 0, -ENOENT, or 1 before any */
	struct rdt_snap pub;	/* last published pass */
	struct rdt_stats stats;
	uint64_t passes;
	struct rdt_row *rows;	/* of pub, per group and socket */
	long nrows;
	uint64_t t_ns;		/* when pub was read (CLOCK_MONOTONIC) */
	struct rdt_own *own;	/* set before the thread starts; used by the
				   thread only, but for rendering (own mutex) */
	int own_err;		/* the last walk's error, logged on change */
};

struct rdt_mon *rdt_mon_new(const char *root, const char *sysfs_root)
{
	struct rdt_mon *m = calloc(1, sizeof *m);

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

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void rdt_rows_free(struct rdt_row *rows, long n)
{
	for (long i = 0; i < n; i++) {
		free(rows[i].group);
		free(rows[i].cgroup);
		free(rows[i].pod);
		free(rows[i].ctr);
	}
	free(rows);
}

static const struct rdt_sample *same_place(const struct rdt_snap *sn,
					   const struct rdt_sample *s)
{
	for (size_t i = 0; i < sn->n; i++)
		if (sn->s[i].domain == s->domain && sn->s[i].sub == s->sub &&
		    !strcmp(sn->s[i].group, s->group))
			return &sn->s[i];
	return NULL;
}

static int cmp_row(const void *a, const void *b)
{
	const struct rdt_row *x = a, *y = b;

	if (x->socket != y->socket)
		return x->socket < y->socket ? -1 : 1;
	if (x->have_rate != y->have_rate)
		return x->have_rate ? -1 : 1;
	if (x->rate != y->rate)
		return x->rate > y->rate ? -1 : 1;
	return strcmp(x->group, y->group);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/*
 * The rows of cur, with rates against prev read dt_s earlier (dt_s 0:
 * none).  Under SNC the reader keeps a domain's nodes (mon_sub_L3_YY)
 * and not the domain's own sums (resctrl.c scan_group()), so every
 * sample is summed: nothing twice.
 */
static long make_rows(const struct rdt_snap *cur, const struct rdt_snap *prev,
		      double dt_s, struct rdt_row **out)
{
	struct rdt_row *rows = NULL;
	long n = 0;

	*out = NULL;
	for (size_t i = 0; i < cur->n; i++) {
		const struct rdt_sample *s = &cur->s[i];
		const struct rdt_sample *o;
		struct rdt_row *r = NULL;

		for (long j = 0; j < n && !r; j++)
			if (rows[j].socket == s->socket &&
			    !strcmp(rows[j].group, s->group))
				r = &rows[j];
		if (!r) {
			struct rdt_row *nr = realloc(rows, (size_t)(n + 1) * sizeof *nr);

			if (!nr)
				goto nomem;
			rows = nr;
			r = &rows[n++];
			memset(r, 0, sizeof *r);
			r->socket = s->socket;
			r->workload = s->is_mon ? !strncmp(s->group, "mon_groups/", 11)
						: strcmp(s->group, "/") != 0;
			r->have_total = r->have_local = r->have_occ = true;
			r->have_rate = dt_s > 0;
			if (!(r->group = strdup(s->group)) ||
			    (s->cgroup && !(r->cgroup = strdup(s->cgroup))) ||
			    (s->pod && !(r->pod = dup_or_null(s->pod))) ||
			    (s->ctr && !(r->ctr = dup_or_null(s->ctr))))
				goto nomem;
		}
		r->have_total &= s->ev[RDT_TOTAL].st == RDT_OK;
		r->have_local &= s->ev[RDT_LOCAL].st == RDT_OK;
		r->have_occ &= s->ev[RDT_OCC].st == RDT_OK;
		r->total += s->ev[RDT_TOTAL].v;
		r->local += s->ev[RDT_LOCAL].v;
		r->occ += s->ev[RDT_OCC].v;
		o = prev ? same_place(prev, s) : NULL;
		if (r->have_rate && o && o->ev[RDT_TOTAL].st == RDT_OK &&
		    s->ev[RDT_TOTAL].st == RDT_OK) {
			int reset;

			r->rate += (double)rdt_delta(o->gen, o->ev[RDT_TOTAL].v,
						     s->gen, s->ev[RDT_TOTAL].v,
						     &reset) / dt_s;
		} else {
			r->have_rate = false;
		}
	}
	if (n)
		qsort(rows, (size_t)n, sizeof *rows, cmp_row);
	*out = rows;
	return n;
nomem:
	rdt_rows_free(rows, n);
	return -ENOMEM;
}

long rdt_mon_rows(struct rdt_mon *m, struct rdt_row **out)
{
	struct rdt_row *c;
	long n;

	*out = NULL;
	pthread_mutex_lock(&m->mu);
	n = m->nrows;
	c = n ? calloc((size_t)n, sizeof *c) : NULL;
	if (n && !c) {
		pthread_mutex_unlock(&m->mu);
		return -ENOMEM;
	}
	for (long i = 0; i < n; i++) {
		const struct rdt_row *r = &m->rows[i];

		c[i] = *r;
		c[i].group = strdup(r->group);
		c[i].cgroup = dup_or_null(r->cgroup);
		c[i].pod = dup_or_null(r->pod);
		c[i].ctr = dup_or_null(r->ctr);
		if (!c[i].group || (r->cgroup && !c[i].cgroup) ||
		    (r->pod && !c[i].pod) || (r->ctr && !c[i].ctr)) {
			pthread_mutex_unlock(&m->mu);
			rdt_rows_free(c, i + 1);
			return -ENOMEM;
		}
	}
	pthread_mutex_unlock(&m->mu);
	*out = c;
	return n;
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
		uint64_t now = mono_ns();
		struct rdt_row *rows = NULL;
		long nrows = 0;

		if (r == 0) {
			rdt_count(&m->stats, &next);
			nrows = make_rows(&next, m->state == 0 ? &m->pub : NULL,
					  m->state == 0 && now > m->t_ns
					  ? (double)(now - m->t_ns) / 1e9 : 0,
					  &rows);
			if (nrows < 0)
				nrows = 0;	/* no rows this pass */
		} else {
			rdt_snap_free(&next);	/* nothing to show */
		}
		struct rdt_snap old = m->pub;
		m->pub = next;
		next = old;
		m->state = r;
		m->t_ns = now;
		rdt_rows_free(m->rows, m->nrows);
		m->rows = rows;
		m->nrows = nrows;
	}
	m->passes++;
	pthread_mutex_unlock(&m->mu);
	rdt_snap_free(&next);
	return r;
}

static void thread_pass(void *arg)
{
	rdt_mon_pass(arg);
}

int rdt_mon_start(struct rdt_mon *m, unsigned interval_ms)
{
	/* groups for the cgroups at once, not an interval after start-up */
	return periodic_start(&m->loop, "uncored-rdt", interval_ms,
			      m->own != NULL, thread_pass, m);
}

void rdt_mon_free(struct rdt_mon *m)
{
	if (!m)
		return;
	periodic_stop(&m->loop);
	rdt_own_free(m->own);	/* removes uncored's groups */
	rdt_rows_free(m->rows, m->nrows);
	rdt_snap_free(&m->pub);
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
