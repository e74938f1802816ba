/*
 * libcheck.c - libuncored against a running daemon on the simulator, for
 * tests/scenario/libuncored.sh (which starts the daemon with a known
 * workload and turns these lines into its TAP checks).
 *
 *   libcheck CHECK SOCKET [ARG]
 *
 * Prints one line per assertion, "ok DESCRIPTION" or "not ok
 * DESCRIPTION", and "# ..." diagnostics; exits 0 unless it could not run
 * at all.  The workload the script gives the daemon: HITM_XCORE
 * (cbo:0x22:0x48) at 1e7/s on socket 0, DRAM_DATA_READS at 1.5e8/s.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "uncored.h"

#define HITM "UNC_CBO_XSNP_RESPONSE.HITM_XCORE"
#define HITM_RATE 1.0e7

static int failed;

static void check(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void check(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok ", cond ? "" : "not ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	failed += !cond;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static struct uncored *must_connect(const char *sock)
{
	struct uncored *u = uncored_connect(sock);

	if (!u) {
		printf("Bail out! uncored_connect(%s): %s\n", sock,
		       uncored_error(NULL));
		exit(1);
	}
	return u;
}

/* Event 0 of claim id now, summed over sockets; NAN on failure. */
static double value_now(struct uncored *u, const char *id, int *rc,
			uint64_t *en, uint64_t *run)
{
	struct uncored_counts *c;
	double v;

	if ((*rc = uncored_read(u, id, &c)) < 0)
		return NAN;
	v = uncored_counts_value(c, 0, -1);
	if (en)
		*en = uncored_counts_enabled_ns(c, 0);
	if (run)
		*run = uncored_counts_running_ns(c, 0);
	uncored_counts_free(c);
	return v;
}

/* ---- basic: claim, read, renew, release, refusals ------------------------ */

static void check_basic(const char *sock)
{
	struct uncored *u = must_connect(sock), *bad;
	struct uncored_counts *c;
	char id[32];
	int rc;

	rc = uncored_claim(u, HITM ", DRAM_DATA_READS", 60, 0, id, sizeof(id));
	check(rc == 0, "uncored_claim of two events: %s (%s)", id,
	      uncored_error(u));
	rc = uncored_read(u, id, &c);
	check(rc == 0 && c, "uncored_read: 0");
	if (rc == 0) {
		check(uncored_counts_nevents(c) == 2 &&
		      strcmp(uncored_counts_event(c, 0), HITM) == 0 &&
		      strcmp(uncored_counts_event(c, 1), "DRAM_DATA_READS") == 0,
		      "two events, in the order claimed");
		check(uncored_counts_nsockets(c) == 1, "one socket");
		check(isnan(uncored_counts_value(c, 2, -1)) &&
		      isnan(uncored_counts_value(c, 0, 1)) &&
		      uncored_counts_event(c, 2) == NULL,
		      "out of range: NaN and NULL, no crash");
		uncored_counts_free(c);
	}
	check(uncored_renew(u, id, 30) == 0, "uncored_renew: 0");
	check(uncored_release(u, id) == 0, "uncored_release: 0");
	rc = uncored_read(u, id, &c);
	check(rc == -ENOENT, "read after release: -ENOENT (%d)", rc);
	check(strstr(uncored_error(u), "no claim \"") != NULL,
	      "with the daemon's message: %s", uncored_error(u));
	rc = uncored_claim(u, "UNC_CBO_NO_SUCH_EVENT", 0, 0, id, sizeof(id));
	check(rc == -EINVAL, "an event the platform lacks: -EINVAL (%d)", rc);
	check(strstr(uncored_error(u), "UNC_CBO_NO_SUCH_EVENT") != NULL,
	      "naming it: %s", uncored_error(u));
	rc = uncored_claim(u, "UNC_ARB_TRK_REQUESTS.ALL", 0, UNCORED_PINNED, id,
			   sizeof(id));
	check(rc == -EBUSY, "a pinned claim on the ARB, whose counters the "
	      "baseline holds: -EBUSY (%d)", rc);
	check(strstr(uncored_error(u), "arb counter 0: the baseline's") != NULL,
	      "naming what holds them: %s", uncored_error(u));
	check(uncored_read(u, "c1;rm", &c) == -EINVAL &&
	      uncored_claim(u, "", 0, 0, id, sizeof(id)) == -EINVAL &&
	      uncored_claim(u, HITM, 0, 0x80, id, sizeof(id)) == -EINVAL,
	      "bad arguments: -EINVAL before any request");
	uncored_disconnect(u);
	bad = uncored_connect("/nonexistent/uncored.sock");
	check(!bad && errno == ENOENT, "connect to no socket: NULL, errno "
	      "ENOENT");
	check(strstr(uncored_error(NULL), "/nonexistent/uncored.sock does not exist") != NULL,
	      "uncored_error(NULL) says where: %s", uncored_error(NULL));
}

/* ---- pinned: counts at once, the steering bar ----------------------------- */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void check_pinned(const char *sock, unsigned nreads)
{
	struct uncored *u = must_connect(sock);
	struct uncored_counts *c;
	double *lat, t, v0, v1, t0, t1, rate;
	uint64_t en = 0, run = 0;
	char id[32];
	int rc;

	rc = uncored_claim(u, HITM, 60, UNCORED_PINNED, id, sizeof(id));
	check(rc == 0, "a pinned claim: %s (%s)", id, uncored_error(u));
	rc = uncored_read(u, id, &c);
	check(rc == 0 && uncored_counts_running_ns(c, 0) > 0,
	      "its first read: running (%" PRIu64 " ns), no two-tick wait",
	      rc ? 0 : uncored_counts_running_ns(c, 0));
	if (!rc)
		uncored_counts_free(c);
	/* the counts are read now: any 100 ms will do, whatever the ticks */
	t0 = now_s();
	v0 = value_now(u, id, &rc, &en, &run);
	sleep_s(0.1);
	t1 = now_s();
	v1 = value_now(u, id, &rc, NULL, NULL);
	rate = (v1 - v0) / (t1 - t0);
	check(fabs(rate / HITM_RATE - 1) < 0.3, "over 100 ms its counts follow "
	      "the simulated 1e7/s within 30%%: %.4g/s", rate);
	check(en == run, "never multiplexed out (enabled %" PRIu64 " = running "
	      "%" PRIu64 " ns)", en, run);
	lat = calloc(nreads, sizeof(*lat));
	for (unsigned i = 0; lat && i < nreads; i++) {
		t = now_s();
		if (uncored_read(u, id, &c) == 0)
			uncored_counts_free(c);
		else
			rc = -1;
		lat[i] = now_s() - t;
	}
	if (lat) {
		qsort(lat, nreads, sizeof(*lat), cmp_d);
		printf("# %u reads: p50 %.1f us, p99 %.1f us, max %.1f us\n",
		       nreads, lat[nreads / 2] * 1e6, lat[nreads * 99 / 100] * 1e6,
		       lat[nreads - 1] * 1e6);
		/* the bound is the steering test's (lib_install.sh) */
		check(rc == 0, "%u reads, every one answered", nreads);
	}
	free(lat);
	check(uncored_release(u, id) == 0, "released");
	rc = uncored_read(u, id, &c);
	check(rc == -ENOENT && strstr(uncored_error(u), id),
	      "then a clear error: %d, %s", rc, uncored_error(u));
	uncored_disconnect(u);
}

/* ---- threads -------------------------------------------------------------- */

struct worker {
	struct uncored *u;	/* shared, or NULL: its own */
	const char *sock, *id;
	unsigned reads, bad, down;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct uncored *u = w->u ? w->u : uncored_connect(w->sock);
	double last = 0, v;
	int rc;

	for (unsigned i = 0; u && i < w->reads; i++) {
		v = value_now(u, w->id, &rc, NULL, NULL);
		w->bad += rc != 0;
		w->down += v < last;
		last = rc ? last : v;
	}
	w->bad += !u;
	if (!w->u)
		uncored_disconnect(u);
	return NULL;
}

static void check_threads(const char *sock)
{
	enum { N = 8, READS = 300 };
	struct uncored *shared = must_connect(sock);
	struct worker w[N];
	pthread_t t[N];
	unsigned bad = 0, down = 0;
	char id[32];

	if (uncored_claim(shared, "DRAM_DATA_READS", 60, 0, id, sizeof(id))) {
		check(0, "claim for the threads: %s", uncored_error(shared));
		return;
	}
	for (unsigned i = 0; i < N; i++) {
		w[i] = (struct worker){ i % 2 ? shared : NULL, sock, id, READS,
					0, 0 };
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (unsigned i = 0; i < N; i++) {
		pthread_join(t[i], NULL);
		bad += w[i].bad;
		down += w[i].down;
	}
	check(bad == 0, "%d threads, half on one shared connection and half "
	      "on their own, %d reads each: all answered", N, READS);
	check(down == 0, "and in each thread the counts never went down");
	uncored_release(shared, id);
	uncored_disconnect(shared);
}

/* ---- regions -------------------------------------------------------------- */

static void spin(double s)
{
	double t = now_s();

	while (now_s() - t < s)
		;
}

static void check_regions(const char *sock)
{
	struct uncored *u = must_connect(sock);
	char id[32], *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	rc = uncored_region_begin(u, "outer");
	check(rc == -EINVAL && strstr(uncored_error(u), "no claim"),
	      "a region without a claim: -EINVAL (%s)", uncored_error(u));
	if (uncored_claim(u, "DRAM_DATA_READS", 60, 0, id, sizeof(id))) {
		check(0, "claim: %s", uncored_error(u));
		return;
	}
	rc = uncored_region_begin(u, "outer");
	for (int i = 0; i < 3; i++) {
		rc |= uncored_region_begin(u, "inner");
		spin(0.02);
		rc |= uncored_region_end(u, "inner");
	}
	rc |= uncored_region_end(u, "outer");
	check(rc == 0, "nested and repeated regions: 0 (%s)", uncored_error(u));
	rc = uncored_region_end(u, "outer");
	check(rc == -EINVAL && strstr(uncored_error(u), "not open"),
	      "end without begin: -EINVAL (%s)", uncored_error(u));
	f = open_memstream(&buf, &len);
	rc = uncored_region_report(u, f);
	fclose(f);
	check(rc == 0 && buf, "uncored_region_report: 0");
	printf("%s", buf ? buf : "");
	check(buf && strstr(buf, "per socket"), "the report says counts are "
	      "per socket");
	check(buf && strstr(buf, "\ninner ") && strstr(buf, "\nouter "),
	      "and names both regions");
	if (buf) {
		char *l = strstr(buf, "\ninner ");
		unsigned calls = 0;
		double secs = 0, count = 0, rate = 0;

		if (l && sscanf(l, "\ninner %u %lf DRAM_DATA_READS 0 %lf %lf",
				&calls, &secs, &count, &rate) == 4) {
			check(calls == 3, "inner: 3 calls");
			check(secs >= 0.06 && secs < 1, "inner: %.3f s", secs);
			check(fabs(rate / 1.5e8 - 1) < 0.3, "inner: DRAM reads at "
			      "the simulated 1.5e8/s within 30%%: %.4g/s", rate);
		} else {
			check(0, "inner's row parses");
		}
	}
	free(buf);
	uncored_region_begin(u, "left-open");
	/* with UNCORED_REPORT=1 the report goes to stderr at disconnect */
	uncored_disconnect(u);
}

/* ---- the daemon restarts under a connected client -------------------------- */

static void check_restart(const char *sock)
{
	struct uncored *u = must_connect(sock);
	struct uncored_counts *c;
	char id[32], line[16];
	int rc;

	check(uncored_claim(u, "DRAM_DATA_READS", 60, 0, id, sizeof(id)) == 0,
	      "claim before the restart");
	printf("# ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))	/* the script restarts it */
		return;
	rc = uncored_read(u, id, &c);
	check(rc == -ECONNRESET || rc == -ENOTCONN, "the next call after the "
	      "restart: %d (%s)", rc, uncored_error(u));
	check(strstr(uncored_error(u), "restarted") ||
	      strstr(uncored_error(u), "connection"), "with a message");
	rc = uncored_read(u, id, &c);
	check(rc == -ENOTCONN, "and the connection stays failed: %d", rc);
	uncored_disconnect(u);
	u = uncored_connect(sock);
	check(u != NULL, "uncored_connect again works");
	if (u) {
		rc = uncored_read(u, id, &c);
		check(rc == -ENOENT, "the old claim is gone: -ENOENT (%s)",
		      uncored_error(u));
		uncored_disconnect(u);
	}
}

/* Markers only: no connection in the code, UNCORED_EVENTS and
 * UNCORED_REPORT=1 in the environment (the report comes at exit). */
static void check_default(void)
{
	int rc = 0;

	for (int i = 0; i < 2; i++) {
		rc |= uncored_region_begin(NULL, "markers-only");
		spin(0.01);
		rc |= uncored_region_end(NULL, "markers-only");
	}
	check(rc == 0, "regions on the default connection: 0 (%s)",
	      uncored_error(NULL));
}

static void check_eacces(const char *sock, const char *group)
{
	struct uncored *u = uncored_connect(sock);
	char want[64];

	check(!u && errno == EACCES, "outside the control group: NULL, "
	      "errno EACCES (%s)", strerror(errno));
	snprintf(want, sizeof(want), "group \"%s\"", group);
	check(strstr(uncored_error(NULL), want) != NULL,
	      "the message names the group: %s", uncored_error(NULL));
	uncored_disconnect(u);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: libcheck basic|pinned|threads|regions|"
			"restart|default|eacces SOCKET [ARG]\n");
		return 2;
	}
	if (!strcmp(argv[1], "basic"))
		check_basic(argv[2]);
	else if (!strcmp(argv[1], "pinned"))
		check_pinned(argv[2], argc > 3 ? (unsigned)atoi(argv[3]) : 10000);
	else if (!strcmp(argv[1], "threads"))
		check_threads(argv[2]);
	else if (!strcmp(argv[1], "regions"))
		check_regions(argv[2]);
	else if (!strcmp(argv[1], "restart"))
		check_restart(argv[2]);
	else if (!strcmp(argv[1], "default"))
		check_default();
	else if (!strcmp(argv[1], "eacces") && argc > 3)
		check_eacces(argv[2], argv[3]);
	else
		return 2;
	return 0;
}
