/*
 * authq.c - bcrypt checks off the serving thread (see authq.h).
 *
 * One mutex guards the two lists (waiting, finished) and the counters;
 * workers sleep on a condition variable with a deadline of AUTHQ_IDLE_S
 * (CLOCK_MONOTONIC) and end when it passes without work.  A job that is
 * running belongs to its worker until the check ends, which is what lets
 * authq_cancel() and authq_free() return at once.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "authq.h"

enum job_state { JOB_WAITING, JOB_RUNNING, JOB_DONE, JOB_ABANDONED };

struct authq_job {
	struct authq_job *next;		/* in the waiting or finished list */
	struct webcfg_check chk;
	void *cookie;
	enum job_state state;
	bool first;			/* authq_submit_first() */
};

struct authq {
	pthread_mutex_t lock;
	pthread_cond_t work;		/* a job is waiting, or stopping */
	struct authq_job *wait_head, *wait_tail;
	struct authq_job *done_head, *done_tail;
	unsigned nwait, nrunning;
	unsigned nfirst;		/* of nwait, from authq_submit_first() */
	unsigned nworkers, nidle, max_workers, depth;
	bool stopping;
	int efd;
};

static void job_free(struct authq_job *j)
{
	webcfg_check_free(&j->chk);
	free(j);
}

static void push(struct authq_job **head, struct authq_job **tail,
		 struct authq_job *j)
{
	j->next = NULL;
	*(*tail ? &(*tail)->next : head) = j;
	*tail = j;
}

static struct authq_job *pop(struct authq_job **head, struct authq_job **tail)
{
	struct authq_job *j = *head;

	if (j && !(*head = j->next))
		*tail = NULL;
	return j;
}

/* Takes j out of a list; false if it is not in it. */
static bool unlink_job(struct authq_job **head, struct authq_job **tail,
		       struct authq_job *j)
{
	struct authq_job *prev = NULL;

	for (struct authq_job *k = *head; k; prev = k, k = k->next) {
		if (k != j)
			continue;
		*(prev ? &prev->next : head) = k->next;
		if (*tail == k)
			*tail = prev;
		return true;
	}
	return false;
}

static void destroy(struct authq *q)
{
	struct authq_job *j;

	while ((j = pop(&q->wait_head, &q->wait_tail)))
		job_free(j);
	while ((j = pop(&q->done_head, &q->done_tail)))
		job_free(j);
	pthread_cond_destroy(&q->work);
	pthread_mutex_destroy(&q->lock);
	if (q->efd >= 0)
		close(q->efd);
	free(q);
}

/* Waits (lock held) for a job; NULL when stopping or idle too long. */
static struct authq_job *next_job(struct authq *q)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += AUTHQ_IDLE_S;
	while (!q->stopping && !q->wait_head) {
		int rc;

		q->nidle++;
		rc = pthread_cond_timedwait(&q->work, &q->lock, &until);
		q->nidle--;
		if (rc == ETIMEDOUT && !q->wait_head)
			return NULL;
	}
	if (q->stopping)
		return NULL;
	q->nwait--;
	if (q->wait_head->first)
		q->nfirst--;
	return pop(&q->wait_head, &q->wait_tail);
}

/* A finished check: to the finished list, or freed if nobody wants it. */
static void finish(struct authq *q, struct authq_job *j)
{
	uint64_t one = 1;

	if (j->state == JOB_ABANDONED || q->stopping) {
		job_free(j);
		return;
	}
	j->state = JOB_DONE;
	push(&q->done_head, &q->done_tail, j);
	if (write(q->efd, &one, sizeof(one)) != sizeof(one)) {
		/* the counter is already non-zero: the reader wakes anyway */
	}
}

static void *worker(void *arg)
{
	struct authq *q = arg;
	struct crypt_data cd;	/* ~32 KiB of bcrypt scratch, per worker */
	struct authq_job *j;
	bool last;

	memset(&cd, 0, sizeof(cd));
	pthread_mutex_lock(&q->lock);
	while ((j = next_job(q)) != NULL) {
		j->state = JOB_RUNNING;
		q->nrunning++;
		pthread_mutex_unlock(&q->lock);
		webcfg_check_run(&j->chk, &cd);
		pthread_mutex_lock(&q->lock);
		q->nrunning--;
		finish(q, j);
	}
	q->nworkers--;
	last = q->stopping && q->nworkers == 0;
	pthread_mutex_unlock(&q->lock);
	if (last)
		destroy(q);
	return NULL;
}

/* Starts a worker (lock held).  0 or -errno. */
static int spawn(struct authq *q)
{
	pthread_attr_t at;
	pthread_t t;
	int rc;

	if (pthread_attr_init(&at) != 0)
		return -ENOMEM;
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &at, worker, q);
	pthread_attr_destroy(&at);
	if (rc != 0)
		return -rc;
	pthread_setname_np(t, "uncored-auth");
	q->nworkers++;
	return 0;
}

struct authq *authq_new(unsigned workers, unsigned depth)
{
	struct authq *q = calloc(1, sizeof(*q));
	pthread_condattr_t ca;

	if (!q || workers == 0 || depth == 0) {
		free(q);
		errno = q ? EINVAL : ENOMEM;
		return NULL;
	}
	q->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (q->efd < 0) {
		int e = errno;

		free(q);
		errno = e;
		return NULL;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->work, &ca);
	pthread_condattr_destroy(&ca);
	q->max_workers = workers;
	q->depth = depth;
	return q;
}

int authq_fd(const struct authq *q)
{
	return q->efd;
}

/* Both submits: first puts the job ahead of the waiting ones. */
static int submit(struct authq *q, struct webcfg_check *chk, void *cookie,
		  struct authq_job **job, bool first)
{
	struct authq_job *j = calloc(1, sizeof(*j));
	int r = 0;

	if (!j)
		return -ENOMEM;
	pthread_mutex_lock(&q->lock);
	if (first ? q->nfirst >= q->depth : q->nwait - q->nfirst >= q->depth) {
		pthread_mutex_unlock(&q->lock);
		free(j);
		return -EBUSY;
	}
	/* one more worker while jobs outnumber the idle ones */
	if (q->nwait + 1 > q->nidle && q->nworkers < q->max_workers)
		r = spawn(q);
	if (r < 0 && q->nworkers == 0) {
		pthread_mutex_unlock(&q->lock);
		free(j);
		return -EAGAIN;
	}
	j->chk = *chk;
	memset(chk, 0, sizeof(*chk));
	j->cookie = cookie;
	j->state = JOB_WAITING;
	j->first = first;
	if (first) {
		/* behind the other first ones, ahead of the rest */
		struct authq_job **pp = &q->wait_head;

		while (*pp && (*pp)->first)
			pp = &(*pp)->next;
		j->next = *pp;
		*pp = j;
		if (!j->next)
			q->wait_tail = j;
		q->nfirst++;
	} else {
		push(&q->wait_head, &q->wait_tail, j);
	}
	q->nwait++;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
	*job = j;
	return 0;
}

int authq_submit(struct authq *q, struct webcfg_check *chk, void *cookie,
		 struct authq_job **job)
{
	return submit(q, chk, cookie, job, false);
}

int authq_submit_first(struct authq *q, struct webcfg_check *chk,
		       void *cookie, struct authq_job **job)
{
	return submit(q, chk, cookie, job, true);
}

struct authq_job *authq_done(struct authq *q)
{
	struct authq_job *j;
	uint64_t n;

	if (read(q->efd, &n, sizeof(n)) < 0) {
		/* EAGAIN: nothing signalled since the last drain */
	}
	pthread_mutex_lock(&q->lock);
	j = pop(&q->done_head, &q->done_tail);
	pthread_mutex_unlock(&q->lock);
	return j;
}

struct webcfg_check *authq_check(struct authq_job *j)
{
	return &j->chk;
}

void *authq_cookie(const struct authq_job *j)
{
	return j->cookie;
}

void authq_job_free(struct authq_job *j)
{
	if (j)
		job_free(j);
}

void authq_cancel(struct authq *q, struct authq_job *j)
{
	bool mine;

	pthread_mutex_lock(&q->lock);
	mine = j->state != JOB_RUNNING;
	if (j->state == JOB_WAITING &&
	    unlink_job(&q->wait_head, &q->wait_tail, j)) {
		q->nwait--;
		if (j->first)
			q->nfirst--;
	}
	else if (j->state == JOB_DONE)
		unlink_job(&q->done_head, &q->done_tail, j);
	else
		j->state = JOB_ABANDONED;	/* its worker frees it */
	pthread_mutex_unlock(&q->lock);
	if (mine)
		job_free(j);
}

unsigned authq_pending(struct authq *q)
{
	unsigned n;

	pthread_mutex_lock(&q->lock);
	n = q->nwait + q->nrunning;
	pthread_mutex_unlock(&q->lock);
	return n;
}

void authq_free(struct authq *q)
{
	bool last;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stopping = true;
	pthread_cond_broadcast(&q->work);
	last = q->nworkers == 0;
	pthread_mutex_unlock(&q->lock);
	if (last)
		destroy(q);
	/* else the last worker out destroys it (and the waiting jobs) */
}
