/*
 * resctrl_priv.c - the resctrl writer that outlives the privilege drop
 * (see resctrl_priv.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cap-ng.h>

#include "base/log.h"
#include "resctrl_priv.h"

/* How long the daemon waits for an answer: a mkdir under resctrl's
 * mutex takes microseconds, but a sanitizer build of the helper on a
 * loaded machine is slow, and once given up on, the helper is gone for
 * good; a hung helper must not stop the resctrl thread for longer. */
#define HELPER_TIMEOUT_MS	15000

/* One request; the answer is an int32_t, 0 or -errno. */
struct req {
	char op;			/* 'm', 'r', 't', 'a' */
	char name[RDT_OWN_NAME_LEN + 8];	/* NUL-terminated */
	int32_t tid;			/* 't': the thread; 'a': the event */
};

struct helper {
	struct rdt_writer w;
	int sk;
	pid_t pid;
	pthread_mutex_t mu;
};

/* ---- the helper process ----------------------------------------------- */

/* Everything but uid 0 goes; 0, or -1 when something could not be
 * dropped (the helper then exits: better no groups than a root one). */
static int helper_drop(void)
{
	capng_clear(CAPNG_SELECT_ALL);
	/* the bounding set needs CAP_SETPCAP, which a unit may not grant */
	if (capng_apply(CAPNG_SELECT_BOTH) < 0 &&
	    capng_apply(CAPNG_SELECT_CAPS) < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_get_caps_process() < 0 ||
	    capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE)
		return -1;
	return 0;
}

static int answer(struct rdt_writer *d, const struct req *q)
{
	if (memchr(q->name, '\0', sizeof q->name) == NULL ||
	    !rdt_own_name_ok(q->name))
		return -EINVAL;
	switch (q->op) {
	case 'm':
		return d->mkgroup(d, q->name);
	case 'r':
		return d->rmgroup(d, q->name);
	case 't':
		return q->tid > 0 ? d->move(d, q->name, q->tid) : -EINVAL;
	case 'a':
		return q->tid == 0 || q->tid == 1
		       ? d->assign(d, q->name, (unsigned)q->tid) : -EINVAL;
	default:
		return -EINVAL;
	}
}

static void helper_main(int sk, const char *root, pid_t parent)
{
	struct rdt_writer *d;
	struct req q;
	sigset_t all;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	prctl(PR_SET_NAME, "uncored-rdtpriv");
	/* signals: the daemon's handlers and mask are not ours; TERM from a
	 * service manager ends us as it ends the daemon */
	sigfillset(&all);
	sigprocmask(SIG_UNBLOCK, &all, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	/* nothing of the daemon's but the socket and stderr (the log) */
	if (sk > 3)
		close_range(3, (unsigned)sk - 1, 0);
	close_range((unsigned)sk + 1, ~0U, 0);
	if (helper_drop() < 0) {
		fprintf(stderr, "uncored: resctrl helper: cannot drop its "
			"capabilities: %s; per-cgroup groups are off\n",
			strerror(errno));
		_exit(1);
	}
	if (!(d = rdt_writer_direct(root)))
		_exit(1);
	for (;;) {
		ssize_t n = recv(sk, &q, sizeof q, 0);
		int32_t a;

		if (n == 0 || (n < 0 && errno != EINTR))
			break;
		if (n < 0)
			continue;
		a = n == (ssize_t)sizeof q ? answer(d, &q) : -EINVAL;
		if (send(sk, &a, sizeof a, MSG_NOSIGNAL) != (ssize_t)sizeof a)
			break;
	}
	d->free(d);
	_exit(0);
}

/* ---- the daemon's side ------------------------------------------------ */

int rdt_helper_request(struct rdt_writer *w, char op, const char *name,
		       pid_t tid)
{
	struct helper *h = (struct helper *)w;
	struct req q;
	struct pollfd p = { .fd = h->sk, .events = POLLIN };
	int32_t a;
	int r;

	memset(&q, 0, sizeof q);
	q.op = op;
	snprintf(q.name, sizeof q.name, "%s", name ? name : "");
	q.tid = (int32_t)tid;
	pthread_mutex_lock(&h->mu);
	if (h->sk < 0) {
		r = -EPIPE;
	} else if (send(h->sk, &q, sizeof q, MSG_NOSIGNAL) != (ssize_t)sizeof q) {
		r = -errno;
	} else if ((r = poll(&p, 1, HELPER_TIMEOUT_MS)) <= 0) {
		r = r == 0 ? -ETIMEDOUT : -errno;
	} else if (recv(h->sk, &a, sizeof a, 0) != (ssize_t)sizeof a) {
		r = -EPIPE;
	} else {
		r = a;
	}
	if (r == -EPIPE || r == -ETIMEDOUT || r == -ECONNRESET) {
		/* the helper is gone or stuck: every later write fails at
		 * once, counted as errors, and the daemon goes on */
		if (h->sk >= 0) {
			log_warnx("resctrl: the helper (pid %d) %s: uncored's "
				  "groups can no longer be made, changed or "
				  "removed until uncored restarts", (int)h->pid,
				  r == -ETIMEDOUT ? "gave no answer in 15 s"
						  : "has ended");
			close(h->sk);
			h->sk = -1;
		}
		r = -EPIPE;
	}
	pthread_mutex_unlock(&h->mu);
	return r;
}

static int h_mkgroup(struct rdt_writer *w, const char *name)
{
	return rdt_helper_request(w, 'm', name, 0);
}

static int h_rmgroup(struct rdt_writer *w, const char *name)
{
	return rdt_helper_request(w, 'r', name, 0);
}

static int h_move(struct rdt_writer *w, const char *name, pid_t tid)
{
	return rdt_helper_request(w, 't', name, tid);
}

static int h_assign(struct rdt_writer *w, const char *name, unsigned ev)
{
	return rdt_helper_request(w, 'a', name, (pid_t)ev);
}

static void h_free(struct rdt_writer *w)
{
	struct helper *h = (struct helper *)w;

	if (!h)
		return;
	if (h->sk >= 0)
		close(h->sk);	/* the helper sees EOF and exits */
	if (h->pid > 0)
		waitpid(h->pid, NULL, 0);
	pthread_mutex_destroy(&h->mu);
	free(h);
}

struct rdt_writer *rdt_helper_start(const char *root, pid_t *pid, char *why,
				    size_t len)
{
	struct helper *h = calloc(1, sizeof *h);
	pid_t parent = getpid();
	int sv[2];

	if (!h) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(why, len, "socketpair: %s", strerror(errno));
		free(h);
		return NULL;
	}
	fflush(NULL);
	h->pid = fork();
	if (h->pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		free(h);
		return NULL;
	}
	if (h->pid == 0) {
		close(sv[0]);
		helper_main(sv[1], root, parent);
	}
	close(sv[1]);
	h->sk = sv[0];
	pthread_mutex_init(&h->mu, NULL);
	h->w.mkgroup = h_mkgroup;
	h->w.rmgroup = h_rmgroup;
	h->w.move = h_move;
	h->w.assign = h_assign;
	h->w.free = h_free;
	*pid = h->pid;
	return &h->w;
}
