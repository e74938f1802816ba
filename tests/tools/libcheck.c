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
 * "liar SOCKET" and "forkrace SOCKET" need no daemon: they play one at
 * SOCKET, that answers for other claims, or that answers two reads only
 * once both are in flight.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
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
	struct uncored_counts *c = NULL;
	char id[32], line[16];
	int rc;

	check(uncored_claim(u, "DRAM_DATA_READS", 60, 0, id, sizeof(id)) == 0,
	      "claim before the restart");
	printf("# ready %s\n", id);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))	/* the script restarts it */
		return;
	/* whatever the new daemon holds under this id, it is not this
	 * claim: an error, never its data */
	rc = uncored_read(u, id, &c);
	check(rc == -ECONNRESET, "the next call after the restart: "
	      "-ECONNRESET (%d: %s)", rc, uncored_error(u));
	check(c == NULL, "and no reading");
	uncored_counts_free(c);
	check(strstr(uncored_error(u), "restarted") != NULL,
	      "the message says the daemon restarted");
	rc = uncored_release(u, id);
	check(rc == -ENOTCONN, "and the connection stays failed: a release "
	      "is -ENOTCONN (%d)", rc);
	uncored_disconnect(u);
	u = uncored_connect(sock);
	check(u != NULL, "uncored_connect again works");
	if (u) {
		c = NULL;
		rc = uncored_read(u, id, &c);
		check(rc == -ENOENT && !c, "the old claim is gone: its read "
		      "is -ENOENT (%s)", uncored_error(u));
		uncored_counts_free(c);
		rc = uncored_release(u, id);
		check(rc == -ENOENT, "and its release -ENOENT, releasing "
		      "nothing (%s)", uncored_error(u));
		uncored_disconnect(u);
	}
}

/* ---- fork() with a connection open ------------------------------------- */

/* n reads of id on u, each of which must be a reading of event alone:
 * the number that were not. */
static int reads_of(struct uncored *u, const char *id, const char *event,
		    int n, char *why, size_t whylen)
{
	int bad = 0;

	for (int i = 0; i < n; i++) {
		struct uncored_counts *c = NULL;
		int rc = uncored_read(u, id, &c);

		if (rc < 0 || uncored_counts_nevents(c) != 1 ||
		    strcmp(uncored_counts_event(c, 0), event) != 0) {
			if (!bad++)
				snprintf(why, whylen, "read %d: %d %s (%s)", i,
					 rc, rc < 0 ? uncored_error(u) :
					 uncored_counts_event(c, 0), id);
		}
		uncored_counts_free(c);
	}
	return bad;
}

/*
 * A parent with a connection and two claims forks; parent and child then
 * read at once, each its own claim, through the connection the child
 * inherited.  Each must get its own claim's readings, every time: the
 * child's first call opens a connection of its own.
 */
static void check_fork(const char *sock)
{
	enum { N = 1000 };
	struct uncored *u = must_connect(sock);
	char ida[32], idb[32], why[300] = "", cwhy[300] = "", go;
	int pfd[2], gfd[2], st = 0, bad, cbad = -1;
	pid_t pid;

	check(uncored_claim(u, "DRAM_DATA_READS", 60, 0, ida, sizeof(ida)) == 0
	      && uncored_claim(u, HITM, 60, 0, idb, sizeof(idb)) == 0,
	      "the parent's two claims (%s, %s)", ida, idb);
	if (pipe(pfd) < 0 || pipe(gfd) < 0 || (pid = fork()) < 0) {
		check(0, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		close(pfd[0]);
		close(gfd[0]);
		/* both start reading together */
		if (write(gfd[1], "g", 1) != 1)
			_exit(1);
		bad = reads_of(u, idb, HITM, N, cwhy, sizeof(cwhy));
		dprintf(pfd[1], "%d %s", bad, cwhy);
		_exit(0);
	}
	close(pfd[1]);
	close(gfd[1]);
	if (read(gfd[0], &go, 1) != 1)
		check(0, "the child did not start");
	bad = reads_of(u, ida, "DRAM_DATA_READS", N, why, sizeof(why));
	{
		char buf[400] = "";
		ssize_t k = read(pfd[0], buf, sizeof(buf) - 1);

		if (k > 0) {
			buf[k] = '\0';
			cbad = atoi(buf);
			snprintf(cwhy, sizeof(cwhy), "%s", strchr(buf, ' ')
				 ? strchr(buf, ' ') + 1 : "");
		}
	}
	close(pfd[0]);
	close(gfd[0]);
	waitpid(pid, &st, 0);
	check(cbad == 0, "the child's %d reads of its claim through the "
	      "inherited connection: all its own (%d not: %s)", N, cbad, cwhy);
	check(bad == 0, "the parent's %d reads meanwhile: all its own (%d "
	      "not: %s)", N, bad, why);
	check(uncored_release(u, ida) == 0 && uncored_release(u, idb) == 0,
	      "the parent releases both afterwards (%s)", uncored_error(u));
	uncored_disconnect(u);
}

/* ---- answers that are not about what was asked ------------------------ */

/*
 * A daemon that lies: it serves the Unix socket at path, one connection,
 * and answers the requests in order with liar_answers[] (an instance id
 * and a JSON body each), whatever they ask.
 */
static const struct {
	int status;
	const char *instance, *body;
} liar_answers[] = {
#define READING(id, ev) "{\"id\":\"" id "\",\"events\":[{\"event\":\"" ev \
	"\",\"time_enabled_ns\":1000,\"time_running_ns\":1000,\"sockets\":" \
	"[{\"socket\":0,\"count\":42}]}]}"
	/* 0: a claim of one event */
	{ 201, "1111", "{\"id\":\"c1-aaaaaa\",\"events\":[{\"event\":"
		       "\"DRAM_DATA_READS\"}]}" },
	/* 1-3: its reading: another claim's, other events, its own */
	{ 200, "1111", READING("c2-aaaaaa", "DRAM_DATA_READS") },
	{ 200, "1111", READING("c1-aaaaaa", "UNC_CBO_CACHE_LOOKUP.ANY_I") },
	{ 200, "1111", READING("c1-aaaaaa", "DRAM_DATA_READS") },
	/* 4-5: a renewal and a release answered for another claim */
	{ 200, "1111", READING("c2-aaaaaa", "DRAM_DATA_READS") },
	{ 200, "1111", READING("c2-aaaaaa", "DRAM_DATA_READS") },
	/* 6: a claim of two events answered with one */
	{ 201, "1111", "{\"id\":\"c3-aaaaaa\",\"events\":[{\"event\":"
		       "\"DRAM_DATA_READS\"}]}" },
	/* 7: its own reading, from another daemon instance */
	{ 200, "2222", READING("c1-aaaaaa", "DRAM_DATA_READS") },
#undef READING
};

static void *liar(void *arg)
{
	int lfd = *(int *)arg, fd = accept(lfd, NULL, NULL);
	char buf[8192];
	size_t n = 0;

	for (size_t i = 0; fd >= 0 && i < sizeof(liar_answers) /
	     sizeof(liar_answers[0]);) {
		char *end = memmem(buf, n, "\r\n\r\n", 4), *cl, out[1024];
		size_t need;
		ssize_t k;
		int len;

		if (!end) {
			if ((k = read(fd, buf + n, sizeof(buf) - n - 1)) <= 0)
				break;
			n += (size_t)k;
			buf[n] = '\0';
			continue;
		}
		cl = strcasestr(buf, "Content-Length: ");
		need = (size_t)(end + 4 - buf) + (cl && cl < end
				? strtoul(cl + 16, NULL, 10) : 0);
		if (n < need) {
			if ((k = read(fd, buf + n, sizeof(buf) - n - 1)) <= 0)
				break;
			n += (size_t)k;
			buf[n] = '\0';
			continue;
		}
		len = snprintf(out, sizeof(out), "HTTP/1.1 %d X\r\n"
			       "Uncored-Instance: %s\r\nContent-Type: "
			       "application/json\r\nContent-Length: %zu\r\n\r\n%s",
			       liar_answers[i].status, liar_answers[i].instance,
			       strlen(liar_answers[i].body), liar_answers[i].body);
		if (send(fd, out, (size_t)len, MSG_NOSIGNAL) != len)
			break;
		memmove(buf, buf + need, n - need);
		n -= need;
		buf[n] = '\0';
		i++;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void check_liar(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct uncored *u;
	struct uncored_counts *c;
	char id[32];
	pthread_t t;
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0), rc;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 4) < 0 || pthread_create(&t, NULL, liar, &lfd)) {
		printf("Bail out! the lying daemon: %s\n", strerror(errno));
		exit(1);
	}
	u = must_connect(path);
	rc = uncored_claim(u, "DRAM_DATA_READS", 0, 0, id, sizeof(id));
	check(rc == 0 && !strcmp(id, "c1-aaaaaa"), "a claim (%d %s)", rc, id);
	c = NULL;
	rc = uncored_read(u, "c1-aaaaaa", &c);
	check(rc == -EPROTO && !c, "a reading of another claim: -EPROTO, no "
	      "data (%d: %s)", rc, uncored_error(u));
	uncored_counts_free(c);
	c = NULL;
	rc = uncored_read(u, "c1-aaaaaa", &c);
	check(rc == -EPROTO && !c, "a reading of other events than the claim "
	      "was made with: -EPROTO, no data (%d: %s)", rc, uncored_error(u));
	uncored_counts_free(c);
	c = NULL;
	rc = uncored_read(u, "c1-aaaaaa", &c);
	check(rc == 0 && c && uncored_counts_value(c, 0, -1) == 42,
	      "the claim's own reading: its data (%d)", rc);
	uncored_counts_free(c);
	rc = uncored_renew(u, "c1-aaaaaa", 0);
	check(rc == -EPROTO, "a renewal answered for another claim: -EPROTO "
	      "(%s)", uncored_error(u));
	rc = uncored_release(u, "c1-aaaaaa");
	check(rc == -EPROTO, "a release answered for another claim: -EPROTO "
	      "(%s)", uncored_error(u));
	rc = uncored_claim(u, "DRAM_DATA_READS,UNC_CBO_CACHE_LOOKUP.ANY_I", 0,
			   0, id, sizeof(id));
	check(rc == -EPROTO, "a claim of two events made with one: -EPROTO "
	      "(%s)", uncored_error(u));
	c = NULL;
	rc = uncored_read(u, "c1-aaaaaa", &c);
	check(rc == -ECONNRESET && !c, "an answer of another daemon instance: "
	      "-ECONNRESET, no data (%d: %s)", rc, uncored_error(u));
	uncored_counts_free(c);
	rc = uncored_read(u, "c1-aaaaaa", &c);
	check(rc == -ENOTCONN, "and the connection stays failed (%d)", rc);
	uncored_disconnect(u);
	pthread_join(t, NULL);
	close(lfd);
	unlink(path);
}

/* ---- fork() while both processes have a request in flight -------------- */

#define RACE_ROUNDS 3
#define RACE_READING(id, ev) "{\"id\":\"" id "\",\"events\":[{\"event\":\"" \
	ev "\",\"time_enabled_ns\":1000,\"time_running_ns\":1000,\"sockets\":" \
	"[{\"socket\":0,\"count\":42}]}]}"

/* A request read on a connection of the racing daemon. */
struct race_conn {
	int fd;
	char buf[4096];
	size_t n;
};

static void race_answer(int fd, int status, const char *body)
{
	char out[1024];
	int len = snprintf(out, sizeof(out), "HTTP/1.1 %d X\r\nUncored-Instance: "
			   "1111\r\nContent-Type: application/json\r\n"
			   "Content-Length: %zu\r\n\r\n%s", status,
			   strlen(body), body);

	if (send(fd, out, (size_t)len, MSG_NOSIGNAL) != len)
		return;
}

/* The next whole request in k (its request line into line), or 0. */
static int race_request(struct race_conn *k, char *line, size_t len)
{
	char *end = memmem(k->buf, k->n, "\r\n\r\n", 4), *cl;
	size_t need;

	if (!end)
		return 0;
	cl = strcasestr(k->buf, "Content-Length: ");
	need = (size_t)(end + 4 - k->buf) + (cl && cl < end
		? strtoul(cl + 16, NULL, 10) : 0);
	if (k->n < need)
		return 0;
	snprintf(line, len, "%.*s", (int)strcspn(k->buf, "\r"), k->buf);
	memmove(k->buf, k->buf + need, k->n - need);
	k->n -= need;
	k->buf[k->n] = '\0';
	return 1;
}

/*
 * A daemon that answers the two claims' reads only once two are waiting
 * (on whatever connections they came), RACE_ROUNDS times: so a parent
 * and a child that share one connection both have a request in flight
 * on it when the answers come.
 */
static void *racer(void *arg)
{
	int lfd = *(int *)arg, answered = 0;
	struct race_conn k[8];
	unsigned nk = 0;
	struct { int fd; bool b; } wait[2];
	unsigned nw = 0;

	while (answered < 2 * RACE_ROUNDS) {
		struct pollfd p[9];
		char line[256];

		p[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (unsigned i = 0; i < nk; i++)
			p[i + 1] = (struct pollfd){ .fd = k[i].fd, .events = POLLIN };
		if (poll(p, nk + 1, 20000) <= 0)
			break;
		if ((p[0].revents & POLLIN) && nk < 8) {
			k[nk].fd = accept(lfd, NULL, NULL);
			k[nk].n = 0;
			nk += k[nk].fd >= 0;
		}
		for (unsigned i = 0; i < nk; i++) {
			ssize_t r;

			if (!(p[i + 1].revents & (POLLIN | POLLHUP)))
				continue;
			r = read(k[i].fd, k[i].buf + k[i].n,
				 sizeof(k[i].buf) - k[i].n - 1);
			if (r <= 0)
				continue;
			k[i].n += (size_t)r;
			k[i].buf[k[i].n] = '\0';
			while (race_request(&k[i], line, sizeof(line))) {
				if (strstr(line, "POST /api/v1/claims ")) {
					static int made;

					race_answer(k[i].fd, 201, made++ ?
						"{\"id\":\"c2-aaaaaa\",\"events\":"
						"[{\"event\":\"" HITM "\"}]}" :
						"{\"id\":\"c1-aaaaaa\",\"events\":"
						"[{\"event\":\"DRAM_DATA_READS\"}]}");
				} else if (nw < 2) {
					wait[nw].fd = k[i].fd;
					wait[nw++].b = strstr(line, "c2-aaaaaa");
				}
			}
		}
		if (nw == 2) {
			for (unsigned w = 0; w < 2; w++)
				race_answer(wait[w].fd, 200, wait[w].b
					? RACE_READING("c2-aaaaaa", HITM)
					: RACE_READING("c1-aaaaaa",
						       "DRAM_DATA_READS"));
			answered += 2;
			nw = 0;
		}
	}
	for (unsigned i = 0; i < nk; i++)
		close(k[i].fd);
	return NULL;
}

/*
 * The parent claims two claims and forks; then, RACE_ROUNDS times, the
 * parent reads one and the child the other through the connection it
 * inherited, both requests in flight together.  Each must get its own
 * claim's reading every time, or an error: never the other's.
 */
static void check_forkrace(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct uncored *u;
	char ida[32], idb[32], why[300] = "", cwhy[300] = "";
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0), pfd[2], st = 0, bad;
	int cbad = -1;
	pthread_t t;
	pid_t pid;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 4) < 0 || pthread_create(&t, NULL, racer, &lfd)) {
		printf("Bail out! the racing daemon: %s\n", strerror(errno));
		exit(1);
	}
	u = must_connect(path);
	check(uncored_claim(u, "DRAM_DATA_READS", 0, 0, ida, sizeof(ida)) == 0
	      && uncored_claim(u, HITM, 0, 0, idb, sizeof(idb)) == 0,
	      "the parent's two claims (%s, %s)", ida, idb);
	fflush(stdout);
	if (pipe(pfd) < 0 || (pid = fork()) < 0) {
		check(0, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		close(pfd[0]);
		bad = reads_of(u, idb, HITM, RACE_ROUNDS, cwhy, sizeof(cwhy));
		dprintf(pfd[1], "%d %s", bad, cwhy);
		_exit(0);
	}
	close(pfd[1]);
	bad = reads_of(u, ida, "DRAM_DATA_READS", RACE_ROUNDS, why, sizeof(why));
	{
		char buf[400] = "";
		ssize_t k = read(pfd[0], buf, sizeof(buf) - 1);

		if (k > 0) {
			buf[k] = '\0';
			cbad = atoi(buf);
			snprintf(cwhy, sizeof(cwhy), "%s", strchr(buf, ' ')
				 ? strchr(buf, ' ') + 1 : "");
		}
	}
	close(pfd[0]);
	waitpid(pid, &st, 0);
	check(cbad == 0, "the child's %d reads through the inherited "
	      "connection, each beside one of the parent's: all its own claim's "
	      "(%d not: %s)", RACE_ROUNDS, cbad, cwhy);
	check(bad == 0, "the parent's %d reads: all its own claim's (%d not: "
	      "%s)", RACE_ROUNDS, bad, why);
	uncored_disconnect(u);
	pthread_join(t, NULL);
	close(lfd);
	unlink(path);
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
			"restart|fork|liar|forkrace|default|eacces SOCKET [ARG]\n");
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
	else if (!strcmp(argv[1], "fork"))
		check_fork(argv[2]);
	else if (!strcmp(argv[1], "liar"))
		check_liar(argv[2]);
	else if (!strcmp(argv[1], "forkrace"))
		check_forkrace(argv[2]);
	else if (!strcmp(argv[1], "default"))
		check_default();
	else if (!strcmp(argv[1], "eacces") && argc > 3)
		check_eacces(argv[2], argv[3]);
	else
		return 2;
	return 0;
}
