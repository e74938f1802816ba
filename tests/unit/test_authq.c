/*
 * test_authq.c - bcrypt checks on worker threads (src/http/authq.c): verdicts
 * and the CPU time they took come back through the eventfd; a full queue
 * says -EBUSY at once; a cancelled check never comes back; and
 * authq_free() returns at once while a check runs (issue 20 item 2:
 * SIGTERM waited for a bcrypt on the serving thread).  Also run under
 * TSan (contrib/quickstart.sh).
 */
#include "config.h"

#include <crypt.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "http/authq.h"
#include "http/webcfg.h"
#include "tests/tap.h"

static char tmpdir[PATH_MAX];
static struct webcfg w;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A web config with users a (cost 4) and b (cost 12), password "pw". */
static void load(void)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE], path[PATH_MAX + 16], err[512];
	struct crypt_data cd;
	FILE *f;

	snprintf(path, sizeof(path), "%s/web.yml", tmpdir);
	f = fopen(path, "w");
	memset(&cd, 0, sizeof(cd));
	if (!f || !crypt_gensalt_rn("$2y$", 4, NULL, 0, salt, sizeof(salt)))
		exit(1);
	fprintf(f, "basic_auth_users:\n  a: %s\n",
		crypt_rn("pw", salt, &cd, (int)sizeof(cd)));
	if (!crypt_gensalt_rn("$2y$", 12, NULL, 0, salt, sizeof(salt)))
		exit(1);
	fprintf(f, "  b: %s\n", crypt_rn("pw", salt, &cd, (int)sizeof(cd)));
	fclose(f);
	if (webcfg_load(&w, path, err, sizeof(err)) < 0) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
}

/* Submits a check of user:pass; the job, or NULL with the error in *r. */
static struct authq_job *submit(struct authq *q, const char *user,
				const char *pass, void *cookie, int *r)
{
	struct webcfg_check chk;
	struct authq_job *j = NULL;

	*r = webcfg_auth_begin(&w, user, pass, &chk);
	if (*r != WEBCFG_NEEDS_CHECK)
		return NULL;
	*r = authq_submit(q, &chk, cookie, &j);
	if (*r < 0)
		webcfg_check_free(&chk);
	return j;
}

/* The next finished job, waiting at most ms for it. */
static struct authq_job *wait_done(struct authq *q, int ms)
{
	struct pollfd p = { authq_fd(q), POLLIN, 0 };
	double end = now_ms() + ms;
	struct authq_job *j;

	while (!(j = authq_done(q)) && now_ms() < end)
		poll(&p, 1, (int)(end - now_ms()) + 1);
	return j;
}

static void test_verdicts(void)
{
	struct authq *q = authq_new(2, 4);
	struct authq_job *j;
	int r, cookie1, cookie2, seen = 0;

	ok(q != NULL, "queue made");
	submit(q, "a", "pw", &cookie1, &r);
	is_int(r, 0, "right password submitted");
	submit(q, "a", "nope", &cookie2, &r);
	is_int(r, 0, "wrong password submitted");
	for (int k = 0; k < 2; k++) {
		j = wait_done(q, 10000);
		if (!ok(j != NULL, "check %d finished", k))
			break;
		if (authq_cookie(j) == &cookie1) {
			ok(authq_check(j)->ok, "right password: accepted");
			seen |= 1;
		} else {
			ok(!authq_check(j)->ok, "wrong password: refused");
			seen |= 2;
		}
		ok(authq_check(j)->cpu_ns > 0, "... its CPU time is measured "
		   "(%llu ns)", (unsigned long long)authq_check(j)->cpu_ns);
		webcfg_auth_end(&w, authq_check(j));
		authq_job_free(j);
	}
	is_int(seen, 3, "both came back, with their cookies");
	is_int(webcfg_auth_begin(&w, "a", "pw", &(struct webcfg_check){ 0 }),
	       WEBCFG_ACCEPTED, "the verdict is remembered");
	is_int((int)authq_pending(q), 0, "nothing pending");
	authq_free(q);
}

/* How long one check at cost 12 took on this machine just now, from its
 * submission to its answer (ms): what a call that waited for a running
 * check would take at least.  "At once" is held to half of it, not to a
 * fixed time, so that a loaded machine, which slows both, does not
 * fail it. */
static double check_ms;

static void test_full_and_cancel(void)
{
	struct authq *q = authq_new(1, 2);
	struct authq_job *running, *w1, *w2, *j;
	double t0, t_run, busy_ms;
	int r;

	t_run = now_ms();
	running = submit(q, "b", "x1", NULL, &r);	/* cost 12: ~0.2 s */
	w1 = submit(q, "b", "x2", NULL, &r);
	/* the third fits once the worker has taken the first */
	t0 = now_ms();
	while (!(w2 = submit(q, "b", "x3", NULL, &r)) && r == -EBUSY &&
	       now_ms() - t0 < 5000)
		usleep(1000);
	ok(running && w1 && w2, "three checks submitted to 1 worker, depth 2");
	t0 = now_ms();
	ok(!submit(q, "b", "x4", NULL, &r) && r == -EBUSY,
	   "a fourth: -EBUSY while two wait");
	busy_ms = now_ms() - t0;
	authq_cancel(q, w1);
	authq_cancel(q, w2);
	ok(authq_pending(q) <= 1, "two waiting checks cancelled");
	j = wait_done(q, 20000);
	check_ms = now_ms() - t_run;
	ok(j == running, "only the running check comes back (%.0f ms)",
	   check_ms);
	ok(busy_ms < check_ms / 2, "the -EBUSY came at once (%.2f ms; the "
	   "running check took %.0f)", busy_ms, check_ms);
	authq_job_free(j);
	ok(!wait_done(q, 100), "the cancelled ones never do");
	authq_free(q);
}

/* authq_submit_first(): past the depth, and ahead of the waiting ones
 * (issue 39 finding 9: a user's first check behind a flood's). */
static void test_first(void)
{
	struct authq *q = authq_new(1, 1);
	struct authq_job *running, *w1, *first = NULL, *j;
	struct webcfg_check chk;
	double t0;
	int r;

	running = submit(q, "b", "f1", NULL, &r);
	t0 = now_ms();
	while (!(w1 = submit(q, "b", "f2", NULL, &r)) && r == -EBUSY &&
	       now_ms() - t0 < 5000)
		usleep(1000);
	ok(!submit(q, "b", "f3", NULL, &r) && r == -EBUSY,
	   "depth 1: a second waiting check is -EBUSY");
	is_int(webcfg_auth_begin(&w, "a", "pw-first", &chk),
	       WEBCFG_NEEDS_CHECK, "new credentials need a check");
	r = authq_submit_first(q, &chk, NULL, &first);
	if (r < 0)
		webcfg_check_free(&chk);
	ok(running && w1 && r == 0, "authq_submit_first(): room past the "
	   "depth (%d)", r);
	j = wait_done(q, 20000);
	ok(j == running, "the running check ends first");
	authq_job_free(j);
	j = wait_done(q, 20000);
	ok(j && j == first, "then the one submitted first-class, ahead of "
	   "the one that waited before it");
	authq_job_free(j);
	j = wait_done(q, 20000);
	ok(j && j == w1, "then the other");
	authq_job_free(j);
	authq_free(q);
}

static void test_free_while_running(void)
{
	struct authq *q = authq_new(2, 4);
	double t0, t1;
	int r;

	submit(q, "b", "y1", NULL, &r);
	submit(q, "b", "y2", NULL, &r);
	submit(q, "b", "y3", NULL, &r);
	t0 = now_ms();
	authq_free(q);
	t1 = now_ms();
	ok(t1 - t0 < check_ms / 2, "authq_free() returns at once with checks "
	   "running and waiting (%.2f ms; one check at cost 12 took %.0f)",
	   t1 - t0, check_ms);
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	char cmd[PATH_MAX + 16];

	snprintf(tmpdir, sizeof(tmpdir), "%s/test_authq.XXXXXX",
		 t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	load();
	test_verdicts();
	test_full_and_cancel();
	test_first();
	test_free_while_running();
	webcfg_free(&w);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
	/* the workers still in a check end with the process; what they
	   hold stays reachable from their stacks (no leak report) */
	return tap_done();
}
