/*
 * steer.c - the steering bar of issue 23: a program written only against
 * doc/design.md 5a (include <uncored.h>, nothing of the tree), built with
 * pkg-config against an installed tree by tests/scenario/lib_install.sh.
 *
 *   steer EVENT RATE   (RATE: the simulated events/s of EVENT)
 *
 * Claims EVENT pinned, checks that over about 100 ms its counts follow
 * RATE within 30 % (over the counts' own enabled time), that 10,000 reads
 * have a p99 under 1 ms (or STEER_P99_LIMIT_US; "report": only print it,
 * as the test suite does - a latency is a benchmark figure, not a
 * check on a machine that runs other jobs), and that a read
 * after the release fails with -ENOENT and a message.  Prints "ok ..." /
 * "not ok ..." lines; exits 1 if any is not ok.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uncored.h>

#define READS 10000

static int bad;

/* The p99 bar: 1 ms, or STEER_P99_LIMIT_US microseconds; 0 for
 * "report" (the test suite: a latency cannot be asserted on a machine
 * running the suites side by side; tests/bench/bench_lib.sh measures it). */
static double p99_limit_s(void)
{
	const char *e = getenv("STEER_P99_LIMIT_US");

	if (e && strcmp(e, "report") == 0)
		return 0;
	return (e && atof(e) > 0 ? atof(e) : 1000.0) / 1e6;
}

static void check(int cond, const char *what, double v)
{
	printf("%sok %s (%g)\n", cond ? "" : "not ", what, v);
	bad += !cond;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Event 0's value now, and its enabled time (s) into *en if en; NAN
 * after a failure. */
static double value(struct uncored *u, const char *id, int *rc, double *en)
{
	struct uncored_counts *c;
	double v;

	if ((*rc = uncored_read(u, id, &c)) < 0)
		return NAN;
	v = uncored_counts_value(c, 0, -1);
	if (en)
		*en = (double)uncored_counts_enabled_ns(c, 0) / 1e9;
	uncored_counts_free(c);
	return v;
}

int main(int argc, char **argv)
{
	struct uncored *u = uncored_connect(NULL);
	static double lat[READS];
	struct timespec tenth = { 0, 100000000 };
	double v0, v1, t0, t1, e0 = 0, e1 = 0, rate;
	char id[32];
	int rc;

	if (argc != 3 || !u) {
		fprintf(stderr, "usage: steer EVENT RATE (%s)\n", uncored_error(NULL));
		return 2;
	}
	if ((rc = uncored_claim(u, argv[1], 60, UNCORED_PINNED, id, sizeof(id)))) {
		fprintf(stderr, "steer: %s\n", uncored_error(u));
		return 1;
	}
	/* the rate over the counts' own enabled time: the program's clock
	 * around the requests also times how long they waited for a CPU */
	t0 = now();
	v0 = value(u, id, &rc, &e0);
	nanosleep(&tenth, NULL);
	t1 = now();
	v1 = value(u, id, &rc, &e1);
	rate = e1 > e0 ? (v1 - v0) / (e1 - e0) : 0;
	check(fabs(rate / atof(argv[2]) - 1) < 0.3, "over about 100 ms the "
	      "counts follow the simulated rate within 30%: events/s", rate);
	printf("# %.1f ms enabled, %.1f ms by the program's clock\n",
	       (e1 - e0) * 1e3, (t1 - t0) * 1e3);
	for (int i = 0; i < READS; i++) {
		double t = now();

		value(u, id, &rc, NULL);
		lat[i] = now() - t;
		if (rc)
			break;
	}
	check(rc == 0, "10000 reads answered: last status", rc);
	qsort(lat, READS, sizeof(*lat), cmp);
	if (p99_limit_s() > 0)
		check(lat[READS * 99 / 100] < p99_limit_s(), "p99 read latency "
		      "under the limit (STEER_P99_LIMIT_US, default 1000): us",
		      lat[READS * 99 / 100] * 1e6);
	printf("# p50 %.1f us, p99 %.1f us\n", lat[READS / 2] * 1e6,
	       lat[READS * 99 / 100] * 1e6);
	check(uncored_release(u, id) == 0, "released: status", 0);
	value(u, id, &rc, NULL);
	check(rc == -ENOENT && strstr(uncored_error(u), id), "a read after the "
	      "release: -ENOENT, the message names the claim: status", rc);
	printf("# %s\n", uncored_error(u));
	uncored_disconnect(u);
	return bad ? 1 : 0;
}
