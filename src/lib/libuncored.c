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

bool lib_env_on(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] && strcmp(v, "0") != 0;
}

/* ---- the report at exit ------------------------------------------------ */

static void report_at_exit(void)
{
	pthread_mutex_lock(&report_lock);
	for (struct uncored *u = report_list; u; u = u->next) {
		lib_lock(u);
		if (u->reg_ops)
			u->reg_ops->report_locked(u, stderr);
		lib_unlock(u);
	}
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
	snprintf(u->label, sizeof(u->label), "%s",
		 program_invocation_short_name ? program_invocation_short_name
		 : "libuncored");
	if (lib_env_on("UNCORED_REPORT"))
		report_add(u);
	return u;
}

UNCORED_API void uncored_disconnect(struct uncored *u)
{
	if (!u)
		return;
	if (u->reported) {
		report_remove(u);
		lib_lock(u);
		if (u->reg_ops)
			u->reg_ops->report_locked(u, stderr);
		lib_unlock(u);
	}
	lconn_close(&u->conn);
	if (u->reg_ops)
		u->reg_ops->free(u);
	for (size_t i = 0; i < u->nids; i++)
		free(u->evs[i]);
	free(u->evs);
	free(u->ids);
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

static void forget_id(struct uncored *u, const char *id)
{
	for (size_t i = 0; i < u->nids; i++)
		if (strcmp(u->ids[i], id) == 0) {
			free(u->evs[i]);
			memmove(&u->ids[i], &u->ids[i + 1],
				(u->nids - i - 1) * sizeof(*u->ids));
			memmove(&u->evs[i], &u->evs[i + 1],
				(u->nids - i - 1) * sizeof(*u->evs));
			u->nids--;
			return;
		}
}

/* Keeps id and its events (events is u's then, whatever the result). */
static int remember_id(struct uncored *u, const char *id, char *events)
{
	if (u->nids == u->capids) {
		size_t nc = u->capids ? u->capids * 2 : 4;
		char (*v)[LIB_ID_MAX] = realloc(u->ids, nc * sizeof(*v));
		char **e = v ? realloc(u->evs, nc * sizeof(*e)) : NULL;

		if (v)
			u->ids = v;
		if (!v || !e) {
			free(events);
			return lib_fail(u, -ENOMEM, "out of memory");
		}
		u->evs = e;
		u->capids = nc;
	}
	u->evs[u->nids] = events;
	snprintf(u->ids[u->nids++], LIB_ID_MAX, "%s", id);
	return 0;
}

/* The events claim id was made with through u, or NULL if it was not. */
static const char *events_of(const struct uncored *u, const char *id)
{
	for (size_t i = 0; i < u->nids; i++)
		if (strcmp(u->ids[i], id) == 0)
			return u->evs[i];
	return NULL;
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

/* The POST body of a claim: events split at commas, or NULL (u->err
 * says why). */
static char *claim_body(struct uncored *u, const char *events, unsigned ttl_s,
			unsigned flags, unsigned *nev, int *rc)
{
	struct json_object *o = json_object_new_object();
	struct json_object *evs = json_object_new_array();
	char *copy = strdup(events), *save = NULL, *body = NULL;
	unsigned n = 0;

	*rc = -ENOMEM;
	if (!o || !evs || !copy)
		goto out;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		t += strspn(t, " \t");
		for (size_t l = strlen(t); l && (t[l - 1] == ' ' || t[l - 1] == '\t');)
			t[--l] = '\0';
		if (!*t)
			continue;
		if (++n > MAX_CLAIM_EVENTS) {
			*rc = lib_fail(u, -EINVAL, "more than %d events",
				       MAX_CLAIM_EVENTS);
			goto out;
		}
		json_object_array_add(evs, json_object_new_string(t));
	}
	if (!n) {
		*rc = lib_fail(u, -EINVAL, "no event named in \"%.60s\"", events);
		goto out;
	}
	json_object_object_add(o, "events", evs);
	evs = NULL;
	if (ttl_s)
		json_object_object_add(o, "ttl_s", json_object_new_int64(ttl_s));
	json_object_object_add(o, "label", json_object_new_string(u->label));
	json_object_object_add(o, "export",
			       json_object_new_boolean(flags & UNCORED_EXPORT));
	json_object_object_add(o, "pinned",
			       json_object_new_boolean(flags & UNCORED_PINNED));
	body = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	*rc = body ? 0 : -ENOMEM;
	*nev = n;
out:
	json_object_put(evs);
	json_object_put(o);
	free(copy);
	if (*rc == -ENOMEM)
		lib_fail(u, -ENOMEM, "out of memory");
	return body;
}

int lib_claim_locked(struct uncored *u, const char *events, unsigned ttl_s,
		     unsigned flags, char *id, size_t idlen)
{
	struct lproto_resp r;
	char got[LIB_ID_MAX], why[128], *names = NULL;
	char *body;
	unsigned nev = 0, n = 1;
	int rc;

	if (!events || !id || idlen < 2)
		return lib_fail(u, -EINVAL, "uncored_claim: events and an id "
				"buffer are required");
	if (flags & ~(UNCORED_PINNED | UNCORED_EXPORT))
		return lib_fail(u, -EINVAL, "uncored_claim: unknown flags 0x%x",
				flags & ~(UNCORED_PINNED | UNCORED_EXPORT));
	if (!(body = claim_body(u, events, ttl_s, flags, &nev, &rc)))
		return rc;
	rc = request(u, "POST", "/api/v1/claims", body, &r);
	free(body);
	if (rc == 0 && (!lproto_claim_id(r.body, r.len, got, sizeof(got)) ||
			lproto_claim_of(r.body, r.len, got, sizeof(got), &names,
					why, sizeof(why)) < 0))
		rc = lib_fail(u, -EPROTO, "uncored created a claim but its "
			      "answer holds no claim id or events");
	for (const char *p = names; rc == 0 && *p; p++)
		n += *p == '\n';
	if (rc == 0 && n != nev)
		rc = lib_fail(u, -EPROTO, "uncored created claim %s with %u "
			      "events for the %u asked for (it is made; release "
			      "it)", got, n, nev);
	if (rc == 0 && strlen(got) >= idlen)
		rc = lib_fail(u, -ERANGE, "the claim id %s does not fit in %zu "
			      "bytes (it is made; release it)", got, idlen);
	if (rc == 0) {
		snprintf(id, idlen, "%s", got);
		rc = remember_id(u, got, names);
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
		return -EINVAL;
	lib_lock(u);
	rc = lib_claim_locked(u, events, ttl_s, flags, id, idlen);
	lib_unlock(u);
	return rc;
}

UNCORED_API int uncored_set_label(struct uncored *u, const char *label)
{
	int rc = 0;

	if (!u)
		return -EINVAL;
	lib_lock(u);
	if (!label || strlen(label) >= sizeof(u->label))
		rc = lib_fail(u, -EINVAL, "a label is at most %zu bytes",
			      sizeof(u->label) - 1);
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

	if ((rc = check_id(u, id)) < 0)
		return rc;
	snprintf(path, sizeof(path), "/api/v1/claims/%s/now", id);
	if ((rc = request(u, "GET", path, NULL, &r)) == 0 &&
	    (rc = check_answer(u, "read", id, &r)) == 0 &&
	    (rc = lproto_counts(r.body, r.len, c, why, sizeof(why))) < 0)
		lib_fail(u, rc, "uncored's reading of claim %s: %s", id,
			 rc == -ENOMEM ? "out of memory" : why);
	free(r.body);
	return rc;
}

UNCORED_API int uncored_read(struct uncored *u, const char *id,
			     struct uncored_counts **out)
{
	struct uncored_counts *c;
	int rc;

	if (!u || !out)
		return -EINVAL;
	*out = NULL;
	if (!(c = calloc(1, sizeof(*c))))
		return -ENOMEM;
	lib_lock(u);
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
		return -EINVAL;
	lib_lock(u);
	if ((rc = check_id(u, id)) == 0) {
		snprintf(path, sizeof(path), "/api/v1/claims/%s/renew", id);
		snprintf(body, sizeof(body), "{\"ttl_s\":%u}", ttl_s);
		rc = request(u, "POST", path, ttl_s ? body : NULL, &r);
		if (rc == 0)
			rc = check_answer(u, "renewal", id, &r);
		free(r.body);
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
		return -EINVAL;
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
	int rc;

	if (!u || !method || !path || path[0] != '/' || !status || !response)
		return -EINVAL;
	if (strcmp(method, "GET") && strcmp(method, "POST") &&
	    strcmp(method, "DELETE"))
		return -EINVAL;
	if (strcspn(path, " \r\n") != strlen(path) || strlen(path) > 4096)
		return -EINVAL;
	lib_lock(u);
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
			sum += (double)e->count[s];
	return sum * (double)e->enabled_ns / (double)e->running_ns;
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
static char dflt_err[LIB_ERR_MAX];
static int dflt_errno;

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
		dflt_errno = errno;
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
