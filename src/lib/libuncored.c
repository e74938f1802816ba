/*
 * libuncored.c - the public calls of libuncored (include/uncored.h): a
 * connection with its lock, claims made, read, renewed and released over
 * the daemon's claim routes, readings and their accessors, and any route
 * (uncorectl).  Nothing here prints, unless UNCORED_DEBUG or
 * UNCORED_REPORT asks, and nothing aborts.
 */
#include "config.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/lib.h"

#ifndef RUNSTATEDIR
#define RUNSTATEDIR "/run"
#endif
#define DEFAULT_SOCKET RUNSTATEDIR "/uncored/uncored.sock"
#define MAX_CLAIM_EVENTS 64	/* the daemon takes 8: it says so */

extern char *program_invocation_short_name;

/* uncored_error(NULL)'s message, and each thread's copy of a message */
static _Thread_local char tls_err[LIB_ERR_MAX];
static _Thread_local char tls_copy[LIB_ERR_MAX];

/* the open connections: the claims made through them end at exit */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uncored *open_list;
static bool end_hooked;

/* the connections to report at exit (UNCORED_REPORT) */
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uncored *report_list;
static bool report_hooked;

void lib_set_tls_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tls_err, sizeof(tls_err), fmt, ap);
	va_end(ap);
}

int lib_fail(struct uncored *u, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->err, sizeof(u->err), fmt, ap);
	va_end(ap);
	return rc;
}

/* guards making a connection's lock anew in a fork()ed child */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

void lib_lock(struct uncored *u)
{
	pid_t me = getpid();

	if (atomic_load_explicit(&u->pid, memory_order_acquire) != me) {
		/* the child of a fork(): the lock is a copy of the parent's,
		 * held, maybe, by a thread the child does not have */
		pthread_mutex_lock(&fork_lock);
		if (atomic_load_explicit(&u->pid, memory_order_relaxed) != me) {
			pthread_mutex_init(&u->lock, NULL);
			atomic_store_explicit(&u->pid, me, memory_order_release);
		}
		pthread_mutex_unlock(&fork_lock);
	}
	pthread_mutex_lock(&u->lock);
}

void lib_unlock(struct uncored *u)
{
	pthread_mutex_unlock(&u->lock);
}

uint64_t lib_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int lib_counts_copy(struct lproto_counts *b, const struct lproto_counts *a)
{
	lproto_counts_clear(b);
	if (!a->nev)
		return 0;
	if (!(b->ev = calloc(a->nev, sizeof(*b->ev))))
		return -ENOMEM;
	b->nev = a->nev;
	b->nsockets = a->nsockets;
	for (size_t i = 0; i < a->nev; i++) {
		b->ev[i].enabled_ns = a->ev[i].enabled_ns;
		b->ev[i].running_ns = a->ev[i].running_ns;
		b->ev[i].running_err_ns = a->ev[i].running_err_ns;
		b->ev[i].read_err_ns = a->ev[i].read_err_ns;
		b->ev[i].name = strdup(a->ev[i].name);
		b->ev[i].count = malloc((a->nsockets ? a->nsockets : 1) *
					sizeof(*b->ev[i].count));
		b->ev[i].running = malloc((a->nsockets ? a->nsockets : 1) *
					  sizeof(*b->ev[i].running));
		b->ev[i].scale = a->ev[i].scale;
		if (a->ev[i].family &&
		    !(b->ev[i].family = strdup(a->ev[i].family))) {
			lproto_counts_clear(b);
			return -ENOMEM;
		}
		if (!b->ev[i].name || !b->ev[i].count || !b->ev[i].running) {
			lproto_counts_clear(b);
			return -ENOMEM;
		}
		memcpy(b->ev[i].count, a->ev[i].count,
		       a->nsockets * sizeof(*b->ev[i].count));
		memcpy(b->ev[i].running, a->ev[i].running,
		       a->nsockets * sizeof(*b->ev[i].running));
	}
	if (a->nform && !(b->form = calloc(a->nform, sizeof(*b->form)))) {
		lproto_counts_clear(b);
		return -ENOMEM;
	}
	for (size_t i = 0; i < a->nform; i++) {
		b->nform = i + 1;
		b->form[i].window_s = a->form[i].window_s;
		if (!(b->form[i].name = strdup(a->form[i].name)) ||
		    !(b->form[i].unit = strdup(a->form[i].unit)) ||
		    !(b->form[i].value = malloc((a->nsockets ? a->nsockets : 1)
						* sizeof(double)))) {
			lproto_counts_clear(b);
			return -ENOMEM;
		}
		memcpy(b->form[i].value, a->form[i].value,
		       a->nsockets * sizeof(double));
	}
	return 0;
}

bool lib_env_on(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] && strcmp(v, "0") != 0;
}

static void claim_clear(struct lib_claim *cl);
static void stop_renewer(struct uncored *u);

/* The name of errno e ("EBUSY"), for messages a person reads beside the
 * text: the codes include/uncored.h lists; NULL for another. */
static const char *errname(int e)
{
	switch (e) {
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ENOTSOCK: return "ENOTSOCK";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case EBUSY: return "EBUSY";
	case EUSERS: return "EUSERS";
	case EAGAIN: return "EAGAIN";
	case E2BIG: return "E2BIG";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EIO: return "EIO";
	case ECONNRESET: return "ECONNRESET";
	case ECONNABORTED: return "ECONNABORTED";
	case ENOTCONN: return "ENOTCONN";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EPROTO: return "EPROTO";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ERANGE: return "ERANGE";
	case ENOMEM: return "ENOMEM";
	default: return NULL;
	}
}

/* The default connection's failure (dflt_errno 0: none, or not tried),
 * for the report at exit; below. */
static char dflt_err[LIB_ERR_MAX];
static int dflt_errno;

/* ---- the report at exit ------------------------------------------------ */

static bool report_printed;	/* a connection's regions were */

/* Prints u's regions, if it has any, to stderr; u->lock held. */
static void report_one(struct uncored *u)
{
	if (!u->reg_ops)
		return;
	u->reg_ops->report_locked(u, stderr);
	pthread_mutex_lock(&report_lock);
	report_printed = true;
	pthread_mutex_unlock(&report_lock);
}

static void report_at_exit(void)
{
	bool printed;

	pthread_mutex_lock(&report_lock);
	for (struct uncored *u = report_list; u; u = u->next) {
		if (u->reg_ops) {
			lib_lock(u);
			u->reg_ops->report_locked(u, stderr);
			lib_unlock(u);
			report_printed = true;
		}
	}
	printed = report_printed;
	pthread_mutex_unlock(&report_lock);
	/* the regions without a connection had no claim to count: that
	 * is why nothing was measured, not that no region was marked */
	if (!printed && dflt_errno)
		fprintf(stderr, "uncored regions: nothing measured: the regions' "
			"claim failed (%s): %s\n", errname(dflt_errno) ?
			errname(dflt_errno) : strerror(dflt_errno), dflt_err);
	else if (!printed)
		fprintf(stderr, "uncored regions: nothing measured "
			"(UNCORED_REPORT is set, but no region was marked)\n");
}

/* With UNCORED_REPORT set, the report at exit is promised even to a
 * program that never marks a region: it then says so. */
__attribute__((constructor)) static void report_hook(void)
{
	if (!lib_env_on("UNCORED_REPORT"))
		return;
	pthread_mutex_lock(&report_lock);
	if (!report_hooked)
		report_hooked = atexit(report_at_exit) == 0;
	pthread_mutex_unlock(&report_lock);
}

static void report_add(struct uncored *u)
{
	pthread_mutex_lock(&report_lock);
	if (!report_hooked)
		report_hooked = atexit(report_at_exit) == 0;
	u->next = report_list;
	report_list = u;
	u->reported = true;
	pthread_mutex_unlock(&report_lock);
}

static void report_remove(struct uncored *u)
{
	pthread_mutex_lock(&report_lock);
	for (struct uncored **p = &report_list; *p; p = &(*p)->next)
		if (*p == u) {
			*p = u->next;
			break;
		}
	pthread_mutex_unlock(&report_lock);
}

/* ---- claims end with the process ----------------------------------------- */

static bool is_loss(int rc);
static int request(struct uncored *u, const char *method, const char *path,
		   const char *body, struct lproto_resp *r);

/*
 * Releases the live claims this process made through u, but UNCORED_KEEP
 * ones; u->lock held.  A claim left to its lease would hold its counters
 * (a pinned claim: refusing the next run of the same program, -EBUSY)
 * for a minute after the program that wanted it has ended.  Failures are
 * not said: the claim then ends at its lease, as before.  After the
 * daemon is found gone, nothing more is sent.
 */
static void release_own_locked(struct uncored *u)
{
	char keep[LIB_ERR_MAX], path[96];
	pid_t me = getpid();

	memcpy(keep, u->err, sizeof(keep));
	for (size_t i = 0; i < u->ncl; i++) {
		struct lib_claim *cl = &u->cl[i];
		struct lproto_resp r;
		int rc;

		if (cl->lost || cl->keep || cl->pid != me)
			continue;
		snprintf(path, sizeof(path), "/api/v1/claims/%s", cl->id);
		rc = request(u, "DELETE", path, NULL, &r);
		free(r.body);
		if (is_loss(rc) && rc != -ENOENT)
			break;
	}
	memcpy(u->err, keep, sizeof(keep));
}

/*
 * At exit: the claims made through every open connection end (the
 * default connection of the markers too), so that the next run of the
 * program finds the counters free.  The renewing threads are stopped
 * first: they would renew what is being released.
 */
static void end_at_exit(void)
{
	pthread_mutex_lock(&open_lock);
	for (struct uncored *u = open_list; u; u = u->next_open) {
		stop_renewer(u);
		lib_lock(u);
		release_own_locked(u);
		lib_unlock(u);
	}
	pthread_mutex_unlock(&open_lock);
}

static void open_add(struct uncored *u)
{
	pthread_mutex_lock(&open_lock);
	u->next_open = open_list;
	open_list = u;
	pthread_mutex_unlock(&open_lock);
}

static void open_remove(struct uncored *u)
{
	pthread_mutex_lock(&open_lock);
	for (struct uncored **p = &open_list; *p; p = &(*p)->next_open)
		if (*p == u) {
			*p = u->next_open;
			break;
		}
	pthread_mutex_unlock(&open_lock);
}

/* The exit handler, hooked at the first claim that ends with the
 * process (a library loaded with dlopen() has it run at dlclose(): glibc
 * ties a shared object's atexit() to it). */
static void hook_end(void)
{
	pthread_mutex_lock(&open_lock);
	if (!end_hooked)
		end_hooked = atexit(end_at_exit) == 0;
	pthread_mutex_unlock(&open_lock);
}

/* A call without a connection: -EINVAL, said in uncored_error(NULL). */
static int no_conn(const char *call)
{
	lib_set_tls_error("%s: no connection (u is NULL): uncored_connect() "
			  "first", call);
	return -EINVAL;
}

/* ---- connections --------------------------------------------------------- */

UNCORED_API struct uncored *uncored_connect(const char *socket_path)
{
	const char *env = getenv("UNCORED_SOCKET");
	const char *where = socket_path ? socket_path
			    : env && env[0] ? env : DEFAULT_SOCKET;
	struct uncored *u = calloc(1, sizeof(*u));
	int rc;

	if (!u) {
		lib_set_tls_error("out of memory");
		errno = ENOMEM;
		return NULL;
	}
	if ((rc = lconn_open(&u->conn, where, u->err, sizeof(u->err))) < 0) {
		lib_set_tls_error("%s", u->err);
		lconn_close(&u->conn);
		free(u);
		errno = -rc;
		return NULL;
	}
	pthread_mutex_init(&u->lock, NULL);
	atomic_init(&u->pid, getpid());
	{
		pthread_condattr_t a;

		pthread_condattr_init(&a);
		pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
		pthread_cond_init(&u->wake, &a);
		pthread_condattr_destroy(&a);
	}
	snprintf(u->label, sizeof(u->label), "%s",
		 program_invocation_short_name ? program_invocation_short_name
		 : "libuncored");
	if (lib_env_on("UNCORED_REPORT"))
		report_add(u);
	open_add(u);
	return u;
}

UNCORED_API void uncored_disconnect(struct uncored *u)
{
	if (!u)
		return;
	open_remove(u);		/* exit no longer ends its claims: here */
	stop_renewer(u);
	if (u->reported) {
		report_remove(u);
		lib_lock(u);
		report_one(u);
		lib_unlock(u);
	}
	lib_lock(u);
	release_own_locked(u);
	lib_unlock(u);
	lconn_close(&u->conn);
	if (u->reg_ops)
		u->reg_ops->free(u);
	for (size_t i = 0; i < u->ncl; i++)
		claim_clear(&u->cl[i]);
	free(u->cl);
	/* a fork()ed child's copy may count the parent's thread as a
	 * waiter: destroying it could wait for that thread forever */
	if (!u->renewing || u->renew_pid == getpid())
		pthread_cond_destroy(&u->wake);
	pthread_mutex_destroy(&u->lock);
	free(u);
}

UNCORED_API const char *uncored_error(const struct uncored *u)
{
	struct uncored *w = (struct uncored *)u;

	if (!u)
		return tls_err;
	lib_lock(w);
	memcpy(tls_copy, w->err, sizeof(tls_copy));
	lib_unlock(w);
	return tls_copy;
}

/* ---- requests ---------------------------------------------------------------- */

/*
 * One request on u (lock held): 0 with *r for a 2xx answer; for another,
 * the matching -errno with the daemon's message in u->err (r filled); for
 * none, -errno (r->body NULL).
 */
static int request(struct uncored *u, const char *method, const char *path,
		   const char *body, struct lproto_resp *r)
{
	char msg[LIB_ERR_MAX];
	int rc = lconn_request(&u->conn, method, path, body, r, u->err,
			       sizeof(u->err));
	bool renewer = u->renewing && u->renew_pid == getpid() &&
		       pthread_equal(pthread_self(), u->renewer);

	/* The restart is said once (-ECONNRESET, then -ENOTCONN): when the
	 * renewing thread met it, the program has not been told yet. */
	if (rc == -ECONNRESET && renewer) {
		u->reset_unseen = true;
		memcpy(u->reset_msg, u->err, sizeof(u->reset_msg));
	} else if (rc == -ENOTCONN && u->reset_unseen && !renewer) {
		u->reset_unseen = false;
		rc = lib_fail(u, -ECONNRESET, "%s", u->reset_msg);
	} else if (rc == -ECONNRESET) {
		u->reset_unseen = false;
	}
	if (rc < 0)
		return rc;
	if (r->status >= 200 && r->status < 300)
		return 0;
	if (lproto_error_message(r->body, r->len, msg, sizeof(msg)))
		return lib_fail(u, lproto_errno(r->status), "%s", msg);
	return lib_fail(u, lproto_errno(r->status), "HTTP %d from uncored "
			"for %s %s", r->status, method, path);
}

/* Is id a claim id the daemon could have made? */
static int check_id(struct uncored *u, const char *id)
{
	size_t n = id ? strlen(id) : 0;

	if (!n || n >= LIB_ID_MAX ||
	    strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789_-") != n)
		return lib_fail(u, -EINVAL, "\"%.40s\" is not a claim id",
				id ? id : "(null)");
	return 0;
}

/* ---- the claims a connection keeps alive ----------------------------------- */

struct lib_claim *lib_claim_of(struct uncored *u, const char *id)
{
	for (size_t i = 0; i < u->ncl; i++)
		if (strcmp(u->cl[i].id, id) == 0)
			return &u->cl[i];
	return NULL;
}

static void claim_clear(struct lib_claim *cl)
{
	free(cl->events);
	free(cl->evs);
	lproto_counts_clear(&cl->last);
}

static void forget_id(struct uncored *u, const char *id)
{
	struct lib_claim *cl = lib_claim_of(u, id);
	size_t i;

	if (!cl)
		return;
	i = (size_t)(cl - u->cl);
	claim_clear(cl);
	memmove(&u->cl[i], &u->cl[i + 1], (u->ncl - i - 1) * sizeof(*u->cl));
	u->ncl--;
}

/* The time from now until a claim of ttl_s is renewed: a third of its
 * lease, so that two renewals may fail (or be late) before it ends. */
static uint64_t renew_period_ns(unsigned ttl_s)
{
	return (ttl_s ? ttl_s : 60) * 1000000000ull / 3;
}

static void *renew_main(void *arg);

/* Starts u's renewing thread if it has none; u->lock held.  Its failure
 * leaves the claims to their leases, which the caller is told. */
static int start_renewer(struct uncored *u)
{
	pthread_condattr_t a;
	int e;

	if (u->renewing && u->renew_pid == getpid())
		return 0;
	if (u->renewing) {	/* a child of fork(): the parent's is not here */
		pthread_condattr_init(&a);
		pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
		pthread_cond_init(&u->wake, &a);
		pthread_condattr_destroy(&a);
	}
	u->stop = false;
	if ((e = pthread_create(&u->renewer, NULL, renew_main, u)) != 0) {
		u->renewing = false;
		return lib_fail(u, -e, "cannot start the thread that renews "
				"the claims: %s; renew them with "
				"uncored_renew()", strerror(e));
	}
	u->renewing = true;
	u->renew_pid = getpid();
	return 0;
}

/* Keeps claim id, made of events, which the daemon named names (names
 * is u's then, whatever the result), with its lease ttl_s; keep: it
 * outlives u and the process (UNCORED_KEEP). */
static int remember_id(struct uncored *u, const char *id, const char *events,
		       char *names, unsigned ttl_s, bool keep)
{
	struct lib_claim *cl;

	if (u->ncl == u->capcl) {
		size_t nc = u->capcl ? u->capcl * 2 : 4;
		struct lib_claim *v = realloc(u->cl, nc * sizeof(*v));

		if (!v) {
			free(names);
			return lib_fail(u, -ENOMEM, "out of memory");
		}
		u->cl = v;
		u->capcl = nc;
	}
	cl = &u->cl[u->ncl];
	memset(cl, 0, sizeof(*cl));
	snprintf(cl->id, sizeof(cl->id), "%s", id);
	cl->evs = names;
	if (!(cl->events = strdup(events))) {
		claim_clear(cl);
		return lib_fail(u, -ENOMEM, "out of memory");
	}
	cl->ttl_s = ttl_s;
	cl->due_ns = lib_mono_ns() + renew_period_ns(ttl_s);
	cl->pid = getpid();
	cl->keep = keep;
	u->ncl++;
	if (!keep)
		hook_end();
	if (start_renewer(u) < 0)
		return 0;	/* the claim is made: the message stays */
	pthread_cond_signal(&u->wake);
	return 0;
}

/* The events claim id was made with through u, or NULL if it was not. */
static const char *events_of(struct uncored *u, const char *id)
{
	const struct lib_claim *cl = lib_claim_of(u, id);

	return cl ? cl->evs : NULL;
}

/*
 * Is r's body the answer about claim id that what (a verb) asked for:
 * its id, and, for a claim made through u, its events?  0, or -EPROTO
 * (-ENOMEM) with u->err saying what came instead: another claim's
 * answer is never returned as data.
 */
static int check_answer(struct uncored *u, const char *what, const char *id,
			const struct lproto_resp *r)
{
	char got[LIB_ID_MAX], why[128], *events;
	const char *want;
	int rc = lproto_claim_of(r->body, r->len, got, sizeof(got), &events,
				 why, sizeof(why));

	if (rc == -ENOMEM)
		return lib_fail(u, rc, "out of memory");
	if (rc < 0)
		return lib_fail(u, rc, "uncored's answer to the %s of claim %s: "
				"%s", what, id, why);
	if (strcmp(got, id) != 0)
		rc = lib_fail(u, -EPROTO, "uncored answered the %s of claim %s "
			      "with claim %s: not this claim's answer", what, id,
			      got);
	else if ((want = events_of(u, id)) && strcmp(want, events) != 0)
		rc = lib_fail(u, -EPROTO, "uncored answered the %s of claim %s "
			      "with other events than it was made with: not "
			      "this claim's answer", what, id);
	free(events);
	return rc;
}

/* Is rc what a claim that is gone gives? */
static bool is_loss(int rc)
{
	return rc == -ENOENT || rc == -ECONNRESET || rc == -ENOTCONN;
}

/*
 * Claim cl of u is gone (rc; u->err says why): no more reading or
 * renewing it, and said on stderr whatever the environment, once: a
 * program whose counts stop is told, even one that checks no return
 * value (the markers).
 */
static void claim_lost(struct uncored *u, struct lib_claim *cl, int rc,
		       const char *doing)
{
	if (cl->lost)
		return;
	cl->lost = true;
	snprintf(cl->why, sizeof(cl->why), "%s %s: %.150s", doing,
		 rc == -ENOENT ? "found it gone" : "lost the daemon",
		 u->err[0] ? u->err : strerror(-rc));
	fprintf(stderr, "libuncored: claim %s (%s) is lost: %s. Regions keep "
		"what it counted until its last reading; claim again to go "
		"on counting.\n", cl->id, cl->events, cl->why);
}

/* One renewal of cl (u->lock held), and a reading to keep its counts. */
static void renew_one(struct uncored *u, struct lib_claim *cl)
{
	struct lproto_resp r;
	struct lproto_counts c = { 0 };
	char path[96], keep[LIB_ERR_MAX];
	uint64_t now;
	int rc;

	memcpy(keep, u->err, sizeof(keep));	/* the caller's last failure */
	u->err[0] = '\0';
	snprintf(path, sizeof(path), "/api/v1/claims/%s/renew", cl->id);
	rc = request(u, "POST", path, NULL, &r);
	if (rc == 0)
		rc = check_answer(u, "renewal", cl->id, &r);
	free(r.body);
	now = lib_mono_ns();
	if (rc == 0) {
		cl->due_ns = now + renew_period_ns(cl->ttl_s);
		if (lib_read_locked(u, cl->id, &c) == 0)
			lproto_counts_clear(&c);
	} else if (is_loss(rc)) {
		claim_lost(u, cl, rc, "renewing it");
	} else {
		/* busy, or no answer in time: again soon, within the lease */
		uint64_t p = renew_period_ns(cl->ttl_s) / 4;

		cl->due_ns = now + (p < 1000000000ull ? p : 1000000000ull);
	}
	memcpy(u->err, keep, sizeof(keep));
}

/* u's renewing thread: each claim at its due time, until u->stop. */
static void *renew_main(void *arg)
{
	struct uncored *u = arg;
	pid_t me = getpid();

	lib_lock(u);
	while (!u->stop) {
		uint64_t now = lib_mono_ns(), next = UINT64_MAX;
		struct timespec ts;

		for (size_t i = 0; i < u->ncl && !u->stop; i++) {
			/* a claim a fork()ed child inherited is the parent's
			 * to renew (or to let lapse), never the child's */
			if (u->cl[i].lost || u->cl[i].pid != me)
				continue;
			if (u->cl[i].due_ns <= now)
				renew_one(u, &u->cl[i]);
			if (!u->cl[i].lost && u->cl[i].due_ns < next)
				next = u->cl[i].due_ns;
		}
		if (u->stop)
			break;
		if (next == UINT64_MAX) {
			pthread_cond_wait(&u->wake, &u->lock);
			continue;
		}
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		pthread_cond_timedwait(&u->wake, &u->lock, &ts);
	}
	lib_unlock(u);
	return NULL;
}

/* Stops u's renewing thread, if this process has one. */
static void stop_renewer(struct uncored *u)
{
	if (!u->renewing || u->renew_pid != getpid())
		return;
	lib_lock(u);
	u->stop = true;
	pthread_cond_signal(&u->wake);
	lib_unlock(u);
	pthread_join(u->renewer, NULL);
	u->renewing = false;
}

/* The names of list (split at commas, blanks trimmed) into arr; their
 * number, or -EINVAL past max (u->err says so), or -ENOMEM. */
static int split_names(struct uncored *u, const char *list, unsigned max,
		       const char *what, struct json_object *arr)
{
	char *copy = strdup(list ? list : ""), *save = NULL;
	int n = 0;

	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		t += strspn(t, " \t");
		for (size_t l = strlen(t); l && (t[l - 1] == ' ' || t[l - 1] == '\t');)
			t[--l] = '\0';
		if (!*t)
			continue;
		if ((unsigned)++n > max) {
			free(copy);
			return lib_fail(u, -EINVAL, "more than %u %s", max, what);
		}
		json_object_array_add(arr, json_object_new_string(t));
	}
	free(copy);
	return n;
}

/* The POST body of a claim: events and formulas split at commas, or NULL
 * (u->err says why); end: asks the daemon to end it when this process
 * ends. */
static char *claim_body(struct uncored *u, const char *events,
			const char *formulas, unsigned ttl_s, unsigned flags,
			bool end, unsigned *nev, int *rc)
{
	struct json_object *o = json_object_new_object();
	struct json_object *evs = json_object_new_array();
	struct json_object *fs = json_object_new_array();
	char *body = NULL;
	int n = 0, nf = 0;

	*rc = -ENOMEM;
	if (!o || !evs || !fs)
		goto out;
	if ((n = split_names(u, events, MAX_CLAIM_EVENTS, "events", evs)) < 0 ||
	    (formulas && (nf = split_names(u, formulas, MAX_CLAIM_EVENTS,
					   "formulas", fs)) < 0)) {
		*rc = n < 0 ? n : nf;
		goto out;
	}
	if (!n && !nf) {
		*rc = lib_fail(u, -EINVAL, "no event named in \"%.60s\"%s",
			       events ? events : "", formulas ? " and no formula"
			       : "");
		goto out;
	}
	if (n) {
		json_object_object_add(o, "events", evs);
		evs = NULL;
	}
	if (nf) {
		json_object_object_add(o, "formulas", fs);
		fs = NULL;
	}
	if (ttl_s)
		json_object_object_add(o, "ttl_s", json_object_new_int64(ttl_s));
	json_object_object_add(o, "label", json_object_new_string(u->label));
	json_object_object_add(o, "export",
			       json_object_new_boolean(flags & UNCORED_EXPORT));
	json_object_object_add(o, "pinned",
			       json_object_new_boolean(flags & UNCORED_PINNED));
	if (end)
		json_object_object_add(o, "end_with_process",
				       json_object_new_boolean(true));
	body = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	*rc = body ? 0 : -ENOMEM;
	*nev = (unsigned)n;
out:
	json_object_put(evs);
	json_object_put(fs);
	json_object_put(o);
	if (*rc == -ENOMEM)
		lib_fail(u, -ENOMEM, "out of memory");
	return body;
}

/* The lease the daemon gave a claim (its answer's ttl_s), else asked. */
static unsigned granted_ttl(const char *body, unsigned asked)
{
	struct json_object *o = body ? json_tokener_parse(body) : NULL, *v;
	int64_t t = 0;

	if (o && json_object_object_get_ex(o, "ttl_s", &v) &&
	    json_object_is_type(v, json_type_int))
		t = json_object_get_int64(v);
	json_object_put(o);
	return t > 0 && t <= 0x7fffffff ? (unsigned)t : asked;
}

int lib_claim_locked(struct uncored *u, const char *events, unsigned ttl_s,
		     unsigned flags, char *id, size_t idlen)
{
	return lib_claim_f_locked(u, events, NULL, ttl_s, flags, id, idlen);
}

int lib_claim_f_locked(struct uncored *u, const char *events,
		       const char *formulas, unsigned ttl_s, unsigned flags,
		       char *id, size_t idlen)
{
	struct lproto_resp r;
	char got[LIB_ID_MAX], why[128], *names = NULL;
	char *body;
	unsigned nev = 0, n = 1;
	int rc;

	if ((!events && !formulas) || !id || idlen < 2)
		return lib_fail(u, -EINVAL, "uncored_claim: events (or formulas)"
				" and an id buffer are required");
	if (flags & ~(UNCORED_PINNED | UNCORED_EXPORT | UNCORED_KEEP))
		return lib_fail(u, -EINVAL, "uncored_claim: unknown flags 0x%x",
				flags & ~(UNCORED_PINNED | UNCORED_EXPORT |
					  UNCORED_KEEP));
	/* A process killed by a signal runs no exit handler: the daemon
	 * ends the claim when it finds the process gone.  A daemon older
	 * than that member refuses it (400, naming it): asked again
	 * without, the claim then ends at exit or at its lease. */
	if (!(body = claim_body(u, events, formulas, ttl_s, flags,
				!(flags & UNCORED_KEEP), &nev, &rc)))
		return rc;
	rc = request(u, "POST", "/api/v1/claims", body, &r);
	free(body);
	if (rc == -EINVAL && !(flags & UNCORED_KEEP) &&
	    strstr(u->err, "end_with_process")) {
		free(r.body);
		if (!(body = claim_body(u, events, formulas, ttl_s, flags,
					false, &nev, &rc)))
			return rc;
		rc = request(u, "POST", "/api/v1/claims", body, &r);
		free(body);
	}
	if (rc == 0 && (!lproto_claim_id(r.body, r.len, got, sizeof(got)) ||
			lproto_claim_of(r.body, r.len, got, sizeof(got), &names,
					why, sizeof(why)) < 0))
		rc = lib_fail(u, -EPROTO, "uncored created a claim but its "
			      "answer holds no claim id or events");
	for (const char *p = names; rc == 0 && *p; p++)
		n += *p == '\n';
	/* the formulas' events follow those asked for */
	if (rc == 0 && (formulas ? n < nev : n != nev))
		rc = lib_fail(u, -EPROTO, "uncored created claim %s with %u "
			      "events for the %u asked for (it is made; release "
			      "it)", got, n, nev);
	if (rc == 0 && strlen(got) >= idlen)
		rc = lib_fail(u, -ERANGE, "the claim id %s does not fit in %zu "
			      "bytes (it is made; release it)", got, idlen);
	if (rc == 0) {
		snprintf(id, idlen, "%s", got);
		rc = remember_id(u, got, events && *events ? events
				 : formulas, names,
				 granted_ttl(r.body, ttl_s),
				 flags & UNCORED_KEEP);
		names = NULL;
	}
	free(names);
	free(r.body);
	return rc;
}

UNCORED_API int uncored_claim(struct uncored *u, const char *events,
			      unsigned ttl_s, unsigned flags, char *id,
			      size_t idlen)
{
	int rc;

	if (!u)
		return no_conn("uncored_claim");
	lib_lock(u);
	rc = lib_claim_locked(u, events, ttl_s, flags, id, idlen);
	lib_unlock(u);
	return rc;
}

UNCORED_API int uncored_claim_formulas(struct uncored *u, const char *events,
				       const char *formulas, unsigned ttl_s,
				       unsigned flags, char *id, size_t idlen)
{
	int rc;

	if (!u)
		return no_conn("uncored_claim_formulas");
	lib_lock(u);
	if (!formulas || !*formulas)
		rc = lib_fail(u, -EINVAL, "uncored_claim_formulas: no formula "
			      "named (uncored_claim() claims events alone)");
	else
		rc = lib_claim_f_locked(u, events, formulas, ttl_s, flags, id,
					idlen);
	lib_unlock(u);
	return rc;
}

/*
 * Where label stops being printable UTF-8 (no control character, no
 * overlong form, no surrogate, nothing past U+10FFFF): its length if it
 * never does.  The daemon refuses such a label, and with it every claim
 * that carries it.
 */
static size_t utf8_bad_at(const char *label)
{
	const unsigned char *p = (const unsigned char *)label;
	size_t i = 0;

	while (p[i]) {
		unsigned c = p[i], n, cp;

		if (c < 0x20 || c == 0x7f)
			return i;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		else
			return i;
		for (unsigned k = 1; k <= n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
		    (cp >= 0x80 && cp < 0xa0))
			return i;
		i += n + 1;
	}
	return i;
}

UNCORED_API int uncored_set_label(struct uncored *u, const char *label)
{
	size_t bad;
	int rc = 0;

	if (!u)
		return no_conn("uncored_set_label");
	lib_lock(u);
	if (!label || !label[0] || strlen(label) >= sizeof(u->label))
		rc = lib_fail(u, -EINVAL, "a label is 1 to %zu bytes",
			      sizeof(u->label) - 1);
	else if ((bad = utf8_bad_at(label)) < strlen(label))
		rc = lib_fail(u, -EINVAL, "a label is printable UTF-8: byte "
			      "%zu (0x%02x) is not; the label stays \"%s\"",
			      bad, (unsigned char)label[bad], u->label);
	else
		snprintf(u->label, sizeof(u->label), "%s", label);
	lib_unlock(u);
	return rc;
}

int lib_read_locked(struct uncored *u, const char *id, struct lproto_counts *c)
{
	struct lproto_resp r;
	char path[96], why[128];
	int rc;

	struct lib_claim *cl;
	uint64_t t0;

	if ((rc = check_id(u, id)) < 0)
		return rc;
	snprintf(path, sizeof(path), "/api/v1/claims/%s/now", id);
	t0 = lib_mono_ns();
	if ((rc = request(u, "GET", path, NULL, &r)) == 0 &&
	    (rc = check_answer(u, "read", id, &r)) == 0 &&
	    (rc = lproto_counts(r.body, r.len, c, why, sizeof(why))) < 0)
		lib_fail(u, rc, "uncored's reading of claim %s: %s", id,
			 rc == -ENOMEM ? "out of memory" : why);
	free(r.body);
	cl = lib_claim_of(u, id);
	if (rc == 0) {
		u->lat[u->nreads++ % LIB_NLAT] = lib_mono_ns() - t0;
		if (cl && lib_counts_copy(&cl->last, c) < 0)
			lproto_counts_clear(&cl->last);
	} else if (cl && is_loss(rc)) {
		claim_lost(u, cl, rc, "reading it");
	}
	return rc;
}

UNCORED_API int uncored_read(struct uncored *u, const char *id,
			     struct uncored_counts **out)
{
	struct uncored_counts *c;
	int rc;

	if (!u)
		return no_conn("uncored_read");
	lib_lock(u);
	if (!out) {
		rc = lib_fail(u, -EINVAL, "uncored_read: no place for the "
			      "reading (out is NULL)");
		lib_unlock(u);
		return rc;
	}
	*out = NULL;
	if (!(c = calloc(1, sizeof(*c)))) {
		rc = lib_fail(u, -ENOMEM, "out of memory");
		lib_unlock(u);
		return rc;
	}
	rc = lib_read_locked(u, id, &c->c);
	lib_unlock(u);
	if (rc < 0) {
		free(c);
		return rc;
	}
	*out = c;
	return 0;
}

UNCORED_API int uncored_renew(struct uncored *u, const char *id, unsigned ttl_s)
{
	struct lproto_resp r;
	char path[96], body[48];
	int rc;

	if (!u)
		return no_conn("uncored_renew");
	lib_lock(u);
	if ((rc = check_id(u, id)) == 0) {
		snprintf(path, sizeof(path), "/api/v1/claims/%s/renew", id);
		snprintf(body, sizeof(body), "{\"ttl_s\":%u}", ttl_s);
		rc = request(u, "POST", path, ttl_s ? body : NULL, &r);
		if (rc == 0)
			rc = check_answer(u, "renewal", id, &r);
		free(r.body);
		if (rc == 0 && ttl_s && lib_claim_of(u, id))
			lib_claim_of(u, id)->ttl_s = ttl_s;
	}
	lib_unlock(u);
	return rc;
}

UNCORED_API int uncored_release(struct uncored *u, const char *id)
{
	struct lproto_resp r;
	char path[96];
	int rc;

	if (!u)
		return no_conn("uncored_release");
	lib_lock(u);
	if ((rc = check_id(u, id)) == 0) {
		snprintf(path, sizeof(path), "/api/v1/claims/%s", id);
		rc = request(u, "DELETE", path, NULL, &r);
		if (rc == 0)
			rc = check_answer(u, "release", id, &r);
		free(r.body);
		if (rc == 0 || rc == -ENOENT)
			forget_id(u, id);
	}
	lib_unlock(u);
	return rc;
}

UNCORED_API int uncored_request(struct uncored *u, const char *method,
				const char *path, const char *body,
				int *status, char **response, size_t *len)
{
	struct lproto_resp r;
	bool bad_method;
	int rc;

	if (!u)
		return no_conn("uncored_request");
	lib_lock(u);
	if (!method || !path || !status || !response) {
		rc = lib_fail(u, -EINVAL, "uncored_request: method, path, status "
			      "and response are required");
		lib_unlock(u);
		return rc;
	}
	bad_method = strcmp(method, "GET") && strcmp(method, "POST") &&
		     strcmp(method, "DELETE");
	if (bad_method || path[0] != '/' || strlen(path) > 4096 ||
	    strcspn(path, " \r\n") != strlen(path)) {
		rc = lib_fail(u, -EINVAL, "uncored_request: the %s \"%.40s\" "
			      "is not allowed (a method is GET, POST or "
			      "DELETE; a path begins with /, has no space or "
			      "line break and is at most 4096 bytes)",
			      bad_method ? "method" : "path",
			      bad_method ? method : path);
		lib_unlock(u);
		return rc;
	}
	rc = request(u, method, path, body, &r);
	lib_unlock(u);
	*status = r.status;
	*response = r.body;
	if (len)
		*len = r.len;
	return rc;
}

/* ---- readings ---------------------------------------------------------------- */

UNCORED_API size_t uncored_counts_nevents(const struct uncored_counts *c)
{
	return c ? c->c.nev : 0;
}

UNCORED_API const char *uncored_counts_event(const struct uncored_counts *c,
					     size_t i)
{
	return c && i < c->c.nev ? c->c.ev[i].name : NULL;
}

UNCORED_API unsigned uncored_counts_nsockets(const struct uncored_counts *c)
{
	return c ? c->c.nsockets : 0;
}

UNCORED_API double uncored_counts_value(const struct uncored_counts *c,
					size_t i, int socket)
{
	const struct lproto_event *e;
	double sum = 0;

	if (!c || i >= c->c.nev || socket < -1 ||
	    (socket >= 0 && (unsigned)socket >= c->c.nsockets))
		return NAN;
	e = &c->c.ev[i];
	if (!e->running_ns)
		return NAN;
	for (unsigned s = 0; s < c->c.nsockets; s++)
		if (socket < 0 || (unsigned)socket == s)
			sum += (double)e->count[s] * (double)e->enabled_ns /
			       (double)lproto_running(e, s);
	return sum;
}

UNCORED_API size_t uncored_counts_nformulas(const struct uncored_counts *c)
{
	return c ? c->c.nform : 0;
}

UNCORED_API const char *uncored_counts_formula(const struct uncored_counts *c,
					       size_t i)
{
	return c && i < c->c.nform ? c->c.form[i].name : NULL;
}

UNCORED_API const char *uncored_counts_formula_unit(
	const struct uncored_counts *c, size_t i)
{
	return c && i < c->c.nform ? c->c.form[i].unit : NULL;
}

UNCORED_API double uncored_counts_formula_value(const struct uncored_counts *c,
						size_t i, int socket)
{
	if (!c || i >= c->c.nform || socket < 0 ||
	    (unsigned)socket >= c->c.nsockets)
		return NAN;
	return c->c.form[i].value[socket];
}

UNCORED_API uint64_t uncored_counts_enabled_ns(const struct uncored_counts *c,
					       size_t i)
{
	return c && i < c->c.nev ? c->c.ev[i].enabled_ns : 0;
}

UNCORED_API uint64_t uncored_counts_running_ns(const struct uncored_counts *c,
					       size_t i)
{
	return c && i < c->c.nev ? c->c.ev[i].running_ns : 0;
}

UNCORED_API uint64_t uncored_counts_raw(const struct uncored_counts *c,
					size_t i, int socket)
{
	uint64_t sum = 0;

	if (!c || i >= c->c.nev || socket < -1 ||
	    (socket >= 0 && (unsigned)socket >= c->c.nsockets))
		return 0;
	for (unsigned s = 0; s < c->c.nsockets; s++)
		if (socket < 0 || (unsigned)socket == s)
			sum += c->c.ev[i].count[s];
	return sum;
}

UNCORED_API double uncored_counts_delta(const struct uncored_counts *a,
					const struct uncored_counts *b,
					size_t i, int socket)
{
	const struct lproto_event *x, *y;
	uint64_t ra, rb;
	double sum = 0;

	if (!a || !b || i >= a->c.nev || i >= b->c.nev ||
	    a->c.nsockets != b->c.nsockets || socket < -1 ||
	    (socket >= 0 && (unsigned)socket >= a->c.nsockets))
		return NAN;
	x = &a->c.ev[i];
	y = &b->c.ev[i];
	ra = uncored_counts_raw(a, i, socket);
	rb = uncored_counts_raw(b, i, socket);
	if (strcmp(x->name, y->name) != 0 || rb < ra ||
	    y->enabled_ns < x->enabled_ns || y->running_ns <= x->running_ns)
		return NAN;
	/* each socket's count over the time its boxes counted */
	for (unsigned s = 0; s < a->c.nsockets; s++) {
		uint64_t rx = lproto_running(x, s), ry = lproto_running(y, s);

		if (socket >= 0 && (unsigned)socket != s)
			continue;
		if (y->count[s] < x->count[s])
			return NAN;
		if (ry <= rx)	/* its boxes' times do not follow: the event's */
			rx = x->running_ns, ry = y->running_ns;
		sum += (double)(y->count[s] - x->count[s]) *
		       (double)(y->enabled_ns - x->enabled_ns) /
		       (double)(ry - rx);
	}
	return sum;
}

UNCORED_API void uncored_counts_free(struct uncored_counts *c)
{
	if (!c)
		return;
	lproto_counts_clear(&c->c);
	free(c);
}

/* ---- the default connection (regions without one) ------------------------- */

static pthread_once_t dflt_once = PTHREAD_ONCE_INIT;
static struct uncored *dflt;

/*
 * The default connection's claim failed: the program's markers count
 * nothing from here on, and a program with markers only checks no
 * return value.  Said on stderr at once, as a lost claim is, when
 * UNCORED_EVENTS asked for counts (unset, the markers are asleep: a
 * program built with them and run without measuring stays quiet), and
 * again by the report at exit with UNCORED_REPORT.
 */
static void dflt_failed(void)
{
	const char *events = getenv("UNCORED_EVENTS");

	if (events && events[0])
		fprintf(stderr, "libuncored: the regions count nothing: the "
			"claim of UNCORED_EVENTS failed (%s): %s\n",
			errname(dflt_errno) ? errname(dflt_errno)
			: strerror(dflt_errno), dflt_err);
}

static void dflt_init(void)
{
	const char *events = getenv("UNCORED_EVENTS");
	char id[LIB_ID_MAX];
	struct uncored *u;
	int rc;

	if (!events || !events[0]) {
		snprintf(dflt_err, sizeof(dflt_err), "a region without a "
			 "connection counts the events of UNCORED_EVENTS, "
			 "which is not set");
		dflt_errno = EINVAL;
		return;
	}
	if (!(u = uncored_connect(NULL))) {
		snprintf(dflt_err, sizeof(dflt_err), "%s", tls_err);
		dflt_errno = errno ? errno : EIO;
		dflt_failed();
		return;
	}
	lib_lock(u);
	rc = lib_claim_locked(u, events, 0, lib_env_on("UNCORED_PINNED")
			      ? UNCORED_PINNED : 0, id, sizeof(id));
	if (rc < 0)
		snprintf(dflt_err, sizeof(dflt_err), "UNCORED_EVENTS: %.480s",
			 u->err);
	lib_unlock(u);
	if (rc < 0) {
		dflt_errno = -rc;
		uncored_disconnect(u);
		dflt_failed();
		return;
	}
	dflt = u;	/* reported at exit with UNCORED_REPORT, as any */
}

struct uncored *lib_default(void)
{
	pthread_once(&dflt_once, dflt_init);
	if (!dflt) {
		lib_set_tls_error("%s", dflt_err);
		errno = dflt_errno;
	}
	return dflt;
}
