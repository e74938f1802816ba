/*
 * authq.h - bcrypt checks off the serving thread: a bounded queue served
 * by a small pool of worker threads.
 *
 * A bcrypt check takes tens of milliseconds at cost 10 and doubles with
 * every step of cost; run on the http thread it held up every other
 * connection, the control socket and shutdown with it (issue 20 item 2).
 * The http thread submits a check (webcfg_auth_begin()) and suspends the
 * connection; a worker runs it (webcfg_check_run(), timing the CPU it
 * used) and signals an eventfd; the http thread takes the finished
 * check, remembers its verdict and resumes the connection.
 *
 * Workers are started when checks arrive (up to the pool size) and end
 * after AUTHQ_IDLE_S without one, so an idle daemon has none.  A worker
 * owns what it works on: authq_free() returns at once even when a check
 * is running (a bcrypt cannot be interrupted), and that worker frees the
 * check and, last out, the queue.  Nothing here prints or exits.
 */
#ifndef UNCORED_AUTHQ_H
#define UNCORED_AUTHQ_H

#include <stdint.h>

#include "webcfg.h"

#define AUTHQ_IDLE_S	30	/* a worker without work ends after this */

struct authq;
struct authq_job;

/*
 * Returns a new queue for at most depth waiting checks, run by up to
 * workers threads (both at least 1), owned by the caller (authq_free()),
 * or NULL with errno set (ENOMEM, or what eventfd() failed with).
 * Threads started by the queue inherit the caller's signal mask.
 */
struct authq *authq_new(unsigned workers, unsigned depth);

/* The eventfd that becomes readable when a check has finished
 * (authq_done() drains it). */
int authq_fd(const struct authq *q);

/*
 * Queues *chk (the queue takes what it owns; *chk is left empty) with an
 * opaque cookie for the caller.  Returns 0 with *job set, -EBUSY when
 * depth checks are already waiting, -EAGAIN when no worker could be
 * started and none runs, -ENOMEM.  On an error *chk is left as it was.
 */
int authq_submit(struct authq *q, struct webcfg_check *chk, void *cookie,
		 struct authq_job **job);

/*
 * As authq_submit(), but the check goes ahead of those waiting, and
 * has room of its own: up to depth such checks may wait besides the
 * depth others (-EBUSY past that).  For credentials from a source that
 * has not asked for a check lately, so that the first check of a user
 * does not wait behind a flood of wrong passwords (http.c).
 */
int authq_submit_first(struct authq *q, struct webcfg_check *chk,
		       void *cookie, struct authq_job **job);

/*
 * The next finished check, oldest first, or NULL.  The caller owns the
 * job: read it with authq_check()/authq_cookie(), then authq_job_free().
 */
struct authq_job *authq_done(struct authq *q);

/* The check of a job (its verdict and CPU time once finished). */
struct webcfg_check *authq_check(struct authq_job *j);

/* The cookie given to authq_submit(). */
void *authq_cookie(const struct authq_job *j);

/* Frees a job returned by authq_done() (and the check it holds). */
void authq_job_free(struct authq_job *j);

/*
 * The submitter no longer wants the verdict of a job it has not taken
 * from authq_done() yet: a waiting or finished job is freed now, a
 * running one by its worker when the check ends.
 */
void authq_cancel(struct authq *q, struct authq_job *j);

/* Checks waiting or running now. */
unsigned authq_pending(struct authq *q);

/*
 * Stops the queue and frees it: waiting and finished jobs are freed,
 * idle workers end, and a worker in the middle of a check ends when the
 * check does, freeing it and (if last) the queue.  Returns at once.
 * NULL is a no-op.  No job of q may be used afterwards.
 */
void authq_free(struct authq *q);

#endif
