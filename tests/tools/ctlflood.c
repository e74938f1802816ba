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

int main(int argc, char **argv)
{
	static pthread_t th[MAX_THREADS];
	unsigned n, nchurn = 0, i;

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
