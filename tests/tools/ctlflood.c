/*
 * ctlflood.c - many libuncored clients on one control socket at once
 * (issue 27 item 3), for tests/scenario/control_budget.sh.
 *
 *   ctlflood SOCKET CLIENTS SECONDS RATE [CHURNERS]
 *
 * CLIENTS threads, each with a connection and a claim of its own
 * (DRAM_DATA_READS, made again after a busy answer), read their claim
 * RATE times a second for SECONDS; CHURNERS more threads claim and
 * release (a POST and a DELETE) as fast as they can meanwhile.  Every
 * call ends in one of: success, a busy answer (-EAGAIN or -EBUSY with a
 * message), or something else - which the daemon must never give under
 * mere load: -ECONNRESET means "the daemon restarted, your claims are
 * gone", and a client that believes it claims again and leaks the old
 * claims.  Prints one summary line per kind of call:
 *
 *   reads ok N busy N reset N other N silent N; clients served C of CLIENTS
 *   churn ok N busy N reset N other N silent N
 *
 * ("silent": a failure whose uncored_error() is empty) and, for the
 * first few failures that are neither, "# rc MESSAGE".  Exits 0 once it
 * ran, 1 if it could not.
 *
 *   ctlflood fake SOCKET
 *
 * The library's side of busy answers and hang-ups, against a fake daemon
 * on SOCKET that answers "busy" (503, Retry-After, Connection: close) or
 * closes the connection without an answer where the script below says:
 * a claim answered busy twice is made on the third try; a request the
 * daemon hangs up on is -ECONNABORTED when the daemon behind the socket
 * is still the same instance, -ECONNRESET (then -ENOTCONN) when it is
 * another.  Prints "ok ..." / "not ok ..." lines.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uncored.h"
#include "fakeud.h"

#define EVENT "DRAM_DATA_READS"
#define MAX_THREADS 512

struct tally {
	atomic_ulong ok, busy, reset, other, silent;
};

static struct tally reads, churn;
static atomic_uint served, shown;
static const char *sock;
static double end_s;
static unsigned rate;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	struct timespec ts = { (time_t)t,
			       (long)((t - (double)(time_t)t) * 1e9) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Counts the outcome rc of a call on u; returns rc. */
static int count(struct tally *t, struct uncored *u, int rc)
{
	const char *msg = uncored_error(u);

	if (rc >= 0) {
		atomic_fetch_add(&t->ok, 1);
		return rc;
	}
	if (!msg || !msg[0])
		atomic_fetch_add(&t->silent, 1);
	if (rc == -EAGAIN || rc == -EBUSY) {
		atomic_fetch_add(&t->busy, 1);
		return rc;
	}
	if (rc == -ECONNRESET)
		atomic_fetch_add(&t->reset, 1);
	else
		atomic_fetch_add(&t->other, 1);
	if (atomic_fetch_add(&shown, 1) < 10)
		printf("# %d %s\n", rc, msg ? msg : "");
	return rc;
}

static void *reader(void *arg)
{
	struct uncored *u = uncored_connect(sock);
	char id[64] = "";
	bool got = false;
	double t = now_s();

	(void)arg;
	if (!u) {
		printf("# uncored_connect: %s\n", uncored_error(NULL));
		atomic_fetch_add(&reads.other, 1);
		return NULL;
	}
	while (now_s() < end_s) {
		struct uncored_counts *c = NULL;

		if (!id[0]) {
			if (count(&reads, u, uncored_claim(u, EVENT, 0, 0, id,
							   sizeof(id))) < 0)
				id[0] = '\0';
		} else if (count(&reads, u, uncored_read(u, id, &c)) == 0) {
			uncored_counts_free(c);
			got = true;
		}
		t += 1.0 / rate;
		if (t < now_s())
			t = now_s();	/* late: no catching up */
		sleep_until(t);
	}
	if (got)
		atomic_fetch_add(&served, 1);
	if (id[0])
		uncored_release(u, id);
	uncored_disconnect(u);
	return NULL;
}

static void *churner(void *arg)
{
	struct uncored *u = uncored_connect(sock);

	(void)arg;
	if (!u) {
		printf("# uncored_connect: %s\n", uncored_error(NULL));
		atomic_fetch_add(&churn.other, 1);
		return NULL;
	}
	while (now_s() < end_s) {
		char id[64];

		if (count(&churn, u, uncored_claim(u, EVENT, 0, 0, id,
						   sizeof(id))) == 0)
			count(&churn, u, uncored_release(u, id));
	}
	uncored_disconnect(u);
	return NULL;
}

static void print(const char *what, struct tally *t)
{
	printf("%s ok %lu busy %lu reset %lu other %lu silent %lu", what,
	       atomic_load(&t->ok), atomic_load(&t->busy),
	       atomic_load(&t->reset), atomic_load(&t->other),
	       atomic_load(&t->silent));
}

/* ---- fake: busy answers and hang-ups ---------------------------------- */

#define CLAIM_BODY "{\"id\":\"c1-aaaaaa\",\"events\":[{\"event\":" \
		   "\"DRAM_DATA_READS\"}]}"
#define BUSY_BODY "{\"error\":{\"code\":\"busy\",\"message\":\"the " \
		  "control socket is busy: fake\"}}"
/* What the fake daemon does with request i, in order, whatever it asks:
 * status 0 is a hang-up (closed, no answer). */
static const struct fakeud_answer script[] = {
	{ 200, "1111", "{}" },		/* GET /api/v1/status */
	{ 0, NULL, NULL },		/* POST: hung up on */
	{ 200, "1111", "{}" },		/* ... the library's GET /healthz */
	{ 503, "1111", BUSY_BODY },	/* a claim: busy */
	{ 503, "1111", BUSY_BODY },	/* ... busy again */
	{ 201, "1111", CLAIM_BODY },	/* ... made */
	{ 0, NULL, NULL },		/* a renewal: hung up on */
	{ 200, "2222", "{}" },		/* ... GET /healthz: a new instance */
};

static int run_fake(const char *path)
{
	struct fakeud f;
	int rc, status;
	struct uncored *u;
	char id[32] = "", *resp = NULL;
	size_t before;

	fakeud_start(&f, path, script, sizeof(script) / sizeof(script[0]));
	if (!(u = uncored_connect(path))) {
		printf("Bail out! uncored_connect: %s\n", uncored_error(NULL));
		return 1;
	}
	rc = uncored_request(u, "GET", "/api/v1/status", NULL, &status, &resp,
			     NULL);
	free(resp);
	fakeud_say(rc == 0, "a first answer, of instance 1111 (%d)", rc);
	rc = uncored_request(u, "POST", "/api/v1/claims", "{}", &status,
			     &resp, NULL);
	free(resp);
	fakeud_say(rc == -ECONNABORTED && uncored_error(u)[0], "a POST the "
		   "daemon hung up on, the same instance behind the socket: "
		   "-ECONNABORTED, not -ECONNRESET (%d: %s)", rc,
		   uncored_error(u));
	before = fakeud_requests(&f);
	rc = uncored_claim(u, "DRAM_DATA_READS", 0, 0, id, sizeof(id));
	fakeud_say(rc == 0 && strcmp(id, "c1-aaaaaa") == 0 &&
		   fakeud_requests(&f) - before == 3, "a claim answered busy "
		   "twice: sent again, made on the third try (%d %s, %zu "
		   "requests)", rc, id, fakeud_requests(&f) - before);
	rc = uncored_renew(u, "c1-aaaaaa", 0);
	fakeud_say(rc == -ECONNRESET, "a renewal hung up on, another instance "
		   "behind the socket: -ECONNRESET, a restart (%d: %s)", rc,
		   uncored_error(u));
	rc = uncored_renew(u, "c1-aaaaaa", 0);
	fakeud_say(rc == -ENOTCONN, "... and the connection stays failed (%d)",
		   rc);
	uncored_disconnect(u);
	fakeud_stop(&f);
	return 0;
}

int main(int argc, char **argv)
{
	static pthread_t th[MAX_THREADS];
	unsigned n, nchurn = 0, i;

	if (argc == 3 && strcmp(argv[1], "fake") == 0)
		return run_fake(argv[2]);
	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: ctlflood SOCKET CLIENTS SECONDS RATE "
			"[CHURNERS]\n");
		return 1;
	}
	sock = argv[1];
	n = (unsigned)atoi(argv[2]);
	end_s = now_s() + atof(argv[3]);
	rate = (unsigned)atoi(argv[4]);
	if (argc == 6)
		nchurn = (unsigned)atoi(argv[5]);
	if ((!n && !nchurn) || !rate || n + nchurn > MAX_THREADS) {
		fprintf(stderr, "ctlflood: 1..%d threads, a rate > 0\n",
			MAX_THREADS);
		return 1;
	}
	for (i = 0; i < n + nchurn; i++)
		if (pthread_create(&th[i], NULL, i < n ? reader : churner,
				   NULL) != 0) {
			fprintf(stderr, "ctlflood: pthread_create failed\n");
			return 1;
		}
	for (i = 0; i < n + nchurn; i++)
		pthread_join(th[i], NULL);
	print("reads", &reads);
	printf("; clients served %u of %u\n", atomic_load(&served), n);
	print("churn", &churn);
	putchar('\n');
	return 0;
}
