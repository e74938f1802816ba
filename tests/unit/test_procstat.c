/*
 * test_procstat.c - process_* metrics: each figure is checked against
 * something the test itself does (opens descriptors, lowers the fd limit,
 * starts a thread, touches memory, burns CPU) rather than against the
 * same /proc file read again; and the rendering is compared byte for byte
 * in both exposition formats.
 *
 * With PROM_DUMP_DIR set, the live rendering is also written to
 * $PROM_DUMP_DIR/process-0.0.4.txt and process-om.txt.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "serve/procstat.h"
#include "base/prom.h"
#include "tests/tap.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Descriptors open below the soft limit, found without /proc. */
static unsigned probe_fds(void)
{
	struct rlimit rl;
	unsigned n = 0;

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 65536)
		rl.rlim_cur = 65536;
	for (int fd = 0; fd < (int)rl.rlim_cur; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			n++;
	return n;
}

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

static void *parked(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&gate);	/* held by main until it has counted */
	pthread_mutex_unlock(&gate);
	return NULL;
}

static void test_read(time_t t0)
{
	struct procstat ps, ps2;
	int fds[3], rc;
	struct rlimit rl, lower;
	pthread_t th;
	double c0;
	char *mem;
	time_t now;

	rc = procstat_read(&ps);
	is_int(rc, 0, "procstat_read succeeds");
	is_int(ps.have, PS_HAVE_STAT | PS_HAVE_START | PS_HAVE_FDS |
	       PS_HAVE_MAXFDS, "every field read");
	ok(ps.resident_bytes > 0, "resident memory > 0 (%llu)",
	   (unsigned long long)ps.resident_bytes);
	ok(ps.virtual_bytes >= ps.resident_bytes,
	   "virtual >= resident (%llu)", (unsigned long long)ps.virtual_bytes);
	ok(ps.open_fds >= 1, "at least stdout open (%u)", ps.open_fds);
	ok(ps.cpu_seconds >= 0, "cpu seconds >= 0 (%g)", ps.cpu_seconds);
	is_int(ps.threads, 1, "one thread");
	now = time(NULL);
	ok(ps.start_time_s <= (double)now + 1,
	   "start time not in the future (%.2f, now %lld)", ps.start_time_s,
	   (long long)now);
	ok(ps.start_time_s >= (double)now - 3600, "start time within the hour");
	/* btime is whole seconds, and the test was exec'd just before t0. */
	ok(ps.start_time_s >= (double)t0 - 5 && ps.start_time_s <= (double)t0 + 1,
	   "start time is when this process started (%.2f vs %lld)",
	   ps.start_time_s, (long long)t0);

	/* The same count as probing every descriptor with fcntl(). */
	procstat_read(&ps);
	is_int(ps.open_fds, probe_fds(), "open fds match what fcntl() finds");

	/* Three more descriptors are counted as exactly three more. */
	for (int i = 0; i < 3; i++)
		fds[i] = dup(1);
	procstat_read(&ps2);
	is_int(ps2.open_fds, ps.open_fds + 3, "three dup()s add three fds");
	ok(ps2.open_fds >= 4, "so at least 4 are open (%u)", ps2.open_fds);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	procstat_read(&ps2);
	is_int(ps2.open_fds, ps.open_fds, "and closing them removes them");

	/* The soft limit, not the hard one. */
	getrlimit(RLIMIT_NOFILE, &rl);
	lower = rl;
	lower.rlim_cur = 100;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 100)
		lower.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &lower) == 0) {
		procstat_read(&ps2);
		is_u64(ps2.max_fds, lower.rlim_cur, "max fds is the soft limit");
		setrlimit(RLIMIT_NOFILE, &rl);
	} else {
		ok(1, "# SKIP setrlimit failed: %d", errno);
	}

	/* A second thread. */
	pthread_mutex_lock(&gate);
	if (pthread_create(&th, NULL, parked, NULL) == 0) {
		procstat_read(&ps2);
		is_int(ps2.threads, 2, "a second thread is counted");
		pthread_mutex_unlock(&gate);
		pthread_join(th, NULL);
	} else {
		pthread_mutex_unlock(&gate);
		ok(0, "pthread_create");
	}

	/* 64 MiB touched shows up as resident. */
	procstat_read(&ps);
	mem = malloc(64 << 20);
	if (mem) {
		for (size_t i = 0; i < (64u << 20); i += 4096)
			((volatile char *)mem)[i] = 1;
		procstat_read(&ps2);
		ok(ps2.resident_bytes >= ps.resident_bytes + (60ull << 20),
		   "64 MiB touched raises resident memory (%llu -> %llu)",
		   (unsigned long long)ps.resident_bytes,
		   (unsigned long long)ps2.resident_bytes);
		free(mem);
	} else {
		ok(0, "malloc 64 MiB");
	}

	/* 0.3 s of CPU, within a scheduler tick or two. */
	procstat_read(&ps);
	c0 = cpu_now();
	while (cpu_now() - c0 < 0.3)
		;
	procstat_read(&ps2);
	is_near(ps2.cpu_seconds - ps.cpu_seconds, 0.3, 0.15,
		"burning 0.3 s of CPU adds 0.3 cpu seconds");
}

static const char want_004[] =
	"# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
	"# TYPE process_cpu_seconds_total counter\n"
	"process_cpu_seconds_total 12.34\n"
	"# HELP process_open_fds Number of open file descriptors.\n"
	"# TYPE process_open_fds gauge\n"
	"process_open_fds 7\n"
	"# HELP process_max_fds Maximum number of open file descriptors.\n"
	"# TYPE process_max_fds gauge\n"
	"process_max_fds 1024\n"
	"# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
	"# TYPE process_virtual_memory_bytes gauge\n"
	"process_virtual_memory_bytes 8589934592\n"
	"# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
	"# TYPE process_resident_memory_bytes gauge\n"
	"process_resident_memory_bytes 1048576\n"
	"# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n"
	"# TYPE process_start_time_seconds gauge\n"
	"process_start_time_seconds 1.70000000025e+09\n"
	"# HELP process_threads Number of OS threads in the process.\n"
	"# TYPE process_threads gauge\n"
	"process_threads 3\n";

static const char want_om[] =
	"# TYPE process_cpu_seconds counter\n"
	"# UNIT process_cpu_seconds seconds\n"
	"# HELP process_cpu_seconds Total user and system CPU time spent in seconds.\n"
	"process_cpu_seconds_total 12.34\n"
	"# TYPE process_open_fds gauge\n"
	"# HELP process_open_fds Number of open file descriptors.\n"
	"process_open_fds 7\n"
	"# TYPE process_max_fds gauge\n"
	"# HELP process_max_fds Maximum number of open file descriptors.\n"
	"process_max_fds 1024\n"
	"# TYPE process_virtual_memory_bytes gauge\n"
	"# UNIT process_virtual_memory_bytes bytes\n"
	"# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
	"process_virtual_memory_bytes 8589934592\n"
	"# TYPE process_resident_memory_bytes gauge\n"
	"# UNIT process_resident_memory_bytes bytes\n"
	"# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
	"process_resident_memory_bytes 1048576\n"
	"# TYPE process_start_time_seconds gauge\n"
	"# UNIT process_start_time_seconds seconds\n"
	"# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n"
	"process_start_time_seconds 1.70000000025e+09\n"
	"# TYPE process_threads gauge\n"
	"# HELP process_threads Number of OS threads in the process.\n"
	"process_threads 3\n"
	"# EOF\n";

static void dump(const char *name, const struct buf *b)
{
	const char *dir = getenv("PROM_DUMP_DIR");
	char path[4096];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f) != 0) {
		printf("# cannot write %s\n", path);
		exit(99);
	}
}

static void test_render(void)
{
	const struct procstat fixed = {
		.have = PS_HAVE_STAT | PS_HAVE_START | PS_HAVE_FDS |
			PS_HAVE_MAXFDS,
		.cpu_seconds = 12.34, .resident_bytes = 1 << 20,
		.virtual_bytes = 1ull << 33, .open_fds = 7, .max_fds = 1024,
		.start_time_s = 1700000000.25, .threads = 3,
	};
	static const char *const families[] = {
		"process_cpu_seconds_total", "process_open_fds",
		"process_max_fds", "process_virtual_memory_bytes",
		"process_resident_memory_bytes", "process_start_time_seconds",
		"process_threads",
	};
	struct procstat ps = fixed;
	struct buf b = BUF_INIT;
	struct prom w;
	char want[200];

	prom_begin(&w, &b, PROM_TEXT_004);
	procstat_render(&w, &ps);
	is_int(prom_end(&w), 0, "0.0.4 rendering without errors");
	is_str(b.p, want_004, "0.0.4 rendering, exact");

	buf_reset(&b);
	prom_begin(&w, &b, PROM_OPENMETRICS_100);
	procstat_render(&w, &ps);
	is_int(prom_end(&w), 0, "OpenMetrics rendering without errors");
	is_str(b.p, want_om, "OpenMetrics rendering, exact");

	/* Only what was read is rendered. */
	buf_reset(&b);
	ps.have = PS_HAVE_FDS;
	prom_begin(&w, &b, PROM_TEXT_004);
	procstat_render(&w, &ps);
	prom_end(&w);
	is_str(b.p, "# HELP process_open_fds Number of open file descriptors.\n"
	       "# TYPE process_open_fds gauge\nprocess_open_fds 7\n",
	       "a partial read renders only its fields");

	/* The live figures, in both formats. */
	for (int f = 0; f < 2; f++) {
		enum prom_fmt fmt = f ? PROM_OPENMETRICS_100 : PROM_TEXT_004;

		buf_reset(&b);
		procstat_read(&ps);
		prom_begin(&w, &b, fmt);
		procstat_render(&w, &ps);
		is_int(prom_end(&w), 0, "%s: live rendering without errors",
		       f ? "OM" : "0.0.4");
		for (size_t i = 0; i < sizeof(families) / sizeof(*families); i++) {
			size_t n = strlen(families[i]);

			/* OpenMetrics metadata drops a counter's _total. */
			if (f && n > 6 && !strcmp(families[i] + n - 6, "_total"))
				n -= 6;
			snprintf(want, sizeof(want), "# HELP %.*s ", (int)n,
				 families[i]);
			like(b.p, want, "%s: HELP of %s", f ? "OM" : "0.0.4",
			     families[i]);
			snprintf(want, sizeof(want), "# TYPE %.*s ", (int)n,
				 families[i]);
			like(b.p, want, "%s: TYPE of %s", f ? "OM" : "0.0.4",
			     families[i]);
			snprintf(want, sizeof(want), "\n%s ", families[i]);
			like(b.p, want, "%s: sample of %s", f ? "OM" : "0.0.4",
			     families[i]);
		}
		dump(f ? "process-om.txt" : "process-0.0.4.txt", &b);
	}
	buf_free(&b);
}

int main(void)
{
	time_t t0 = time(NULL);

	test_read(t0);
	test_render();
	return tap_done();
}
