/*
 * bench_lib.c - libuncored's figures for doc/performance.md, against a
 * daemon tests/bench/bench_lib.sh starts on the simulator.
 *
 *   bench_lib read SOCKET N [EVENT]
 *	one pinned claim (EVENT, DRAM_DATA_READS by default) read N times:
 *	p50, p99, max us
 *   bench_lib first SOCKET EVENT RUNS [pinned]
 *	claim, then read until the reading has counts: ms from the claim
 *	to the first counts, per run
 *   bench_lib load SOCKET URL CLIENTS RATE SECONDS
 *	CLIENTS threads, each on its own connection with its own claim,
 *	reading RATE times a second (paced), while one more thread scrapes
 *	URL/metrics 20 times a second over TCP; CLIENTS 0: the scrapes alone.
 *	Prints the reads made per second and their p99, and the scrapes'
 *	p50 and p99.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uncored.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - (double)(time_t)t) * 1e9) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The p-th percentile (0..100) of v[0..n), sorted here. */
static double pct(double *v, size_t n, double p)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_d);
	return v[(size_t)((double)(n - 1) * p / 100)];
}

static struct uncored *conn(const char *where)
{
	struct uncored *u = uncored_connect(where);

	if (!u) {
		fprintf(stderr, "bench_lib: %s\n", uncored_error(NULL));
		exit(1);
	}
	return u;
}

/* One reading of id: 0, or -errno; *counted: it has counts. */
static int read_once(struct uncored *u, const char *id, bool *counted)
{
	struct uncored_counts *c;
	int rc = uncored_read(u, id, &c);

	if (rc == 0) {
		if (counted)
			*counted = uncored_counts_running_ns(c, 0) > 0 &&
				   uncored_counts_value(c, 0, -1) > 0;
		uncored_counts_free(c);
	}
	return rc;
}

static int bench_read(const char *sock, unsigned n, const char *ev)
{
	struct uncored *u = conn(sock);
	double *lat = calloc(n, sizeof(*lat));
	char id[32];

	if (!lat || uncored_claim(u, ev, 60, UNCORED_PINNED, id,
				  sizeof(id)) < 0) {
		fprintf(stderr, "bench_lib: %s\n", uncored_error(u));
		return 1;
	}
	for (unsigned i = 0; i < n; i++) {
		double t = now_s();

		if (read_once(u, id, NULL) < 0) {
			fprintf(stderr, "bench_lib: %s\n", uncored_error(u));
			return 1;
		}
		lat[i] = now_s() - t;
	}
	printf("uncored_read round trip, %u reads of a pinned claim: p50 %.1f us, "
	       "p99 %.1f us, max %.1f us\n", n, pct(lat, n, 50) * 1e6,
	       pct(lat, n, 99) * 1e6, pct(lat, n, 100) * 1e6);
	uncored_release(u, id);
	uncored_disconnect(u);
	free(lat);
	return 0;
}

static int bench_first(const char *sock, const char *ev, unsigned runs,
		       bool pinned)
{
	struct uncored *u = conn(sock);
	double *ms = calloc(runs, sizeof(*ms));
	char id[32];

	printf("claim -> first counts, %s%s (ms):", ev, pinned ? " pinned" : "");
	for (unsigned r = 0; ms && r < runs; r++) {
		double t0 = now_s();
		bool counted = false;

		if (uncored_claim(u, ev, 60, pinned ? UNCORED_PINNED : 0, id,
				  sizeof(id)) < 0) {
			fprintf(stderr, "bench_lib: %s\n", uncored_error(u));
			return 1;
		}
		while (!counted && now_s() - t0 < 10)
			if (read_once(u, id, &counted) < 0)
				return 1;
		ms[r] = (now_s() - t0) * 1e3;
		printf(" %.2f", ms[r]);
		uncored_release(u, id);
		/* the next claim somewhere else in the interval */
		sleep_until(now_s() + 0.137);
	}
	printf("; median %.2f, max %.2f\n", pct(ms, runs, 50), pct(ms, runs, 100));
	uncored_disconnect(u);
	free(ms);
	return 0;
}

/* ---- load ------------------------------------------------------------------ */

struct client {
	const char *where;
	double rate, start, end;
	char err[200];		/* the first failure */
	unsigned reads, errors;
	double *lat;		/* each read's latency */
	size_t nlat, cap;
	pthread_t t;
};

static atomic_int ready;

static void *reader(void *arg)
{
	struct client *c = arg;
	struct uncored *u = conn(c->where);
	char id[32];
	double next;

	if (uncored_claim(u, "DRAM_DATA_READS", 120, 0, id, sizeof(id)) < 0) {
		fprintf(stderr, "bench_lib: %s\n", uncored_error(u));
		exit(1);
	}
	atomic_fetch_add(&ready, 1);
	next = c->start;
	while ((next += 1 / c->rate) < c->end) {
		double t;

		sleep_until(next);
		t = now_s();
		if (t >= c->end)
			break;
		if (t > next + 0.1)	/* behind: no catching up */
			next = t;
		if (read_once(u, id, NULL) < 0 && !c->errors++)
			snprintf(c->err, sizeof(c->err), "%s", uncored_error(u));
		c->reads++;
		if (c->nlat < c->cap)
			c->lat[c->nlat++] = now_s() - t;
	}
	uncored_release(u, id);
	uncored_disconnect(u);
	return NULL;
}

static void *scraper(void *arg)
{
	struct client *c = arg;
	struct uncored *u = conn(c->where);
	double next = c->start;

	while ((next += 1 / c->rate) < c->end) {
		char *body = NULL;
		int status;
		double t;

		sleep_until(next);
		t = now_s();
		if (t >= c->end)
			break;
		if (t > next + 0.1)
			next = t;
		c->errors += uncored_request(u, "GET", "/metrics", NULL, &status,
					     &body, NULL) < 0;
		c->reads++;
		if (c->nlat < c->cap)
			c->lat[c->nlat++] = now_s() - t;
		free(body);
	}
	uncored_disconnect(u);
	return NULL;
}

static int bench_load(const char *sock, const char *url, unsigned nc,
		      double rate, double secs)
{
	struct client *c = calloc(nc + 1, sizeof(*c));
	double *all, t0;
	size_t na = 0;
	unsigned reads = 0, errors = 0;

	for (unsigned i = 0; i <= nc; i++) {
		bool scr = i == nc;

		c[i].where = scr ? url : sock;
		c[i].rate = scr ? 20 : rate;
		c[i].cap = (size_t)(c[i].rate * secs) + 16;
		c[i].lat = calloc(c[i].cap, sizeof(double));
	}
	/* the clients first, with their claims, then everyone for secs */
	t0 = now_s() + 2 + nc * 0.02;
	for (unsigned i = 0; i <= nc; i++) {
		c[i].start = t0;
		c[i].end = t0 + secs;
		pthread_create(&c[i].t, NULL, i == nc ? scraper : reader, &c[i]);
	}
	for (unsigned i = 0; i <= nc; i++)
		pthread_join(c[i].t, NULL);
	for (unsigned i = 0; i < nc; i++)
		na += c[i].nlat;
	all = calloc(na + 1, sizeof(*all));
	na = 0;
	for (unsigned i = 0; i < nc; i++) {
		reads += c[i].reads;
		if (c[i].errors && !errors)
			printf("(a failed read: %s) ", c[i].err);
		errors += c[i].errors;
		for (size_t k = 0; k < c[i].nlat; k++)
			all[na++] = c[i].lat[k];
	}
	if (nc)
		printf("%u clients at %.0f reads/s each: %.0f reads/s made, %u "
		       "failed, read p50 %.1f us, p99 %.1f us; ", nc, rate,
		       reads / secs, errors, pct(all, na, 50) * 1e6,
		       pct(all, na, 99) * 1e6);
	printf("/metrics over TCP, %u scrapes at 20/s: p50 %.2f ms, p99 %.2f ms, "
	       "max %.2f ms, %u failed\n", c[nc].reads,
	       pct(c[nc].lat, c[nc].nlat, 50) * 1e3,
	       pct(c[nc].lat, c[nc].nlat, 99) * 1e3,
	       pct(c[nc].lat, c[nc].nlat, 100) * 1e3, c[nc].errors);
	for (unsigned i = 0; i <= nc; i++)
		free(c[i].lat);
	free(c);
	free(all);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "read"))
		return bench_read(argv[2], (unsigned)atoi(argv[3]),
				  argc > 4 ? argv[4] : "DRAM_DATA_READS");
	if (argc >= 5 && !strcmp(argv[1], "first"))
		return bench_first(argv[2], argv[3], (unsigned)atoi(argv[4]),
				   argc > 5 && !strcmp(argv[5], "pinned"));
	if (argc >= 7 && !strcmp(argv[1], "load"))
		return bench_load(argv[2], argv[3], (unsigned)atoi(argv[4]),
				  atof(argv[5]), atof(argv[6]));
	fprintf(stderr, "usage: bench_lib read SOCKET N | first SOCKET EVENT "
		"RUNS [pinned] | load SOCKET URL CLIENTS RATE SECONDS\n");
	return 2;
}
