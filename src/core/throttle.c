/*
 * throttle.c - the package thermal-throttle counters of the kernel's
 * therm_throt.c (throttle.h), read on a thread of its own.
 *
 * The kernel's facts (docs.kernel.org admin-guide/thermal/
 * intel_thermal_throttle.rst, "Sysfs Interface"; drivers/thermal/intel/
 * therm_throt.c): thermal_throttle/ is made per CPU where the kernel
 * handles the thermal interrupt (Intel CPUs with thermal monitoring);
 * the package_* files only where the CPU has package thermal status
 * (CPUID.06H:EAX[6], PTS); every counter is 64-bit, read-only, never
 * reset, counted since boot, printed "%llu\n".  The milliseconds are
 * served as seconds (/ 1000), the counter as it is: a Prometheus counter
 * may start anywhere, and the kernel's since-boot value keeps its rate
 * across a restart of uncored.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/periodic.h"
#include "base/prom.h"
#include "base/sfile.h"
#include "hw/perf_sysfs.h"
#include "throttle.h"

#define CPU_DIR "/devices/system/cpu"
#define F_MS "package_throttle_total_time_ms"
#define F_COUNT "package_throttle_count"

struct throttle_mon {
	char sysfs[1024];
	char absent[1536];
	void (*refresh)(void *ctx);
	void *ctx;
	struct throttle_pkg p[THROTTLE_MAX_PKGS];	/* the thread's */
	unsigned n;
	struct periodic loop;
	pthread_mutex_t mu;	/* guards pub, hist, nhist */
	struct throttle_pkg pub[THROTTLE_MAX_PKGS];
	/* per package (as p[]), its last THROTTLE_HIST successful reads,
	 * a ring: read k at hist[i * THROTTLE_HIST + k % THROTTLE_HIST];
	 * nhist[i] reads so far.  NULL: no memory, no windows.  ns: the
	 * values' instant (read_ns); pub: when they were published. */
	struct throttle_read { uint64_t ns, pub, ms; } *hist;
	uint64_t nhist[THROTTLE_MAX_PKGS];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int throttle_parse_u64(const char *text, uint64_t *v)
{
	uint64_t x = 0;
	const char *s = text;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
	}
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*v = x;
	return 0;
}

static struct throttle_mon *mon_alloc(void)
{
	struct throttle_mon *m = calloc(1, sizeof(*m));

	if (m)
		pthread_mutex_init(&m->mu, NULL);
	return m;
}

struct throttle_mon *throttle_mon_new_absent(const char *why)
{
	struct throttle_mon *m = mon_alloc();

	if (m)
		snprintf(m->absent, sizeof(m->absent), "%s", why);
	return m;
}

/* Reads cpuN/thermal_throttle/name into *v: 0, or -errno with err. */
static int read_file(const struct throttle_mon *m, unsigned cpu,
		     const char *name, uint64_t *v, char *err, size_t len)
{
	char path[1200], buf[32];
	ssize_t r;

	snprintf(path, sizeof(path), "%s" CPU_DIR "/cpu%u/thermal_throttle/%s",
		 m->sysfs, cpu, name);
	r = sfile_read(AT_FDCWD, path, buf, sizeof(buf), err, len);
	if (r < 0)
		return (int)r;
	if (throttle_parse_u64(buf, v) < 0) {
		snprintf(err, len, "%.1200s: not a counter (\"%.20s\")", path,
			 buf);
		return -EINVAL;
	}
	return 0;
}

static int cmp_pkg(const void *a, const void *b)
{
	const struct throttle_pkg *x = a, *y = b;

	return x->socket < y->socket ? -1 : x->socket > y->socket;
}

/* One online CPU per package, the lowest: into m->p[] (cpu, socket). */
static int find_cpus(struct throttle_mon *m)
{
	char path[1100], why[1300];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s" CPU_DIR, m->sysfs);
	if (!(d = opendir(path))) {
		snprintf(m->absent, sizeof(m->absent), "%.1100s: %s", path,
			 strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		unsigned cpu, pkg, die, i;
		char c;

		if (sscanf(e->d_name, "cpu%u%c", &cpu, &c) != 1 ||
		    pfs_cpu_topology(m->sysfs, cpu, &pkg, &die, why,
				     sizeof(why)) < 0)
			continue;	/* offline, or no topology: not one */
		for (i = 0; i < m->n && m->p[i].socket != pkg; i++)
			;
		if (i == m->n) {
			if (m->n == THROTTLE_MAX_PKGS)
				continue;
			m->p[m->n++] = (struct throttle_pkg){ .socket = pkg,
							      .cpu = cpu };
		} else if (cpu < m->p[i].cpu) {
			m->p[i].cpu = cpu;
		}
	}
	closedir(d);
	if (!m->n) {
		snprintf(m->absent, sizeof(m->absent), "%.1100s lists no online "
			 "CPU with a topology/physical_package_id", path);
		return -1;
	}
	qsort(m->p, m->n, sizeof(m->p[0]), cmp_pkg);
	return 0;
}

/* Keeps the packages whose CPU has package_throttle_total_time_ms;
 * the reason when none has. */
static void probe(struct throttle_mon *m)
{
	char err[1300], path[1100], why[sizeof(m->absent)];
	unsigned k = 0, n = m->n;
	uint64_t v;

	for (unsigned i = 0; i < n; i++) {
		struct throttle_pkg *p = &m->p[i];
		int r = read_file(m, p->cpu, F_MS, &v, err, sizeof(err));

		if (r == 0) {
			m->p[k++] = *p;
			continue;
		}
		snprintf(path, sizeof(path), "%s" CPU_DIR "/cpu%u/"
			 "thermal_throttle", m->sysfs, p->cpu);
		if (r == -ENOENT && access(path, F_OK) < 0)
			snprintf(why, sizeof(why), "no %.1100s: the kernel's "
				 "therm_throt.c makes it only on an Intel CPU "
				 "with thermal monitoring (not on AMD, nor in "
				 "most virtual machines)", path);
		else if (r == -ENOENT)
			snprintf(why, sizeof(why), "%.1100s has no " F_MS ": "
				 "the CPU has no package thermal status "
				 "(CPUID.06H:EAX[6] PTS), or the kernel predates "
				 "the *_time_ms counters", path);
		else
			snprintf(why, sizeof(why), "%.1300s", err);
		/* the first package's reason is the family's */
		if (!m->absent[0])
			memcpy(m->absent, why, sizeof(why));
		log_info("thermal_throttle: socket %u: %s", p->socket, why);
	}
	m->n = k;
	if (k)
		m->absent[0] = '\0';
	if (k && k < n)
		log_warnx("thermal_throttle: %u of %u packages left out (above)",
			  n - k, n);
}

struct throttle_mon *throttle_mon_new(const char *sysfs,
				      void (*refresh)(void *ctx), void *ctx)
{
	struct throttle_mon *m = mon_alloc();

	if (!m)
		return NULL;
	snprintf(m->sysfs, sizeof(m->sysfs), "%s", sysfs ? sysfs : "/sys");
	m->refresh = refresh;
	m->ctx = ctx;
	if (refresh)
		refresh(ctx);
	if (find_cpus(m) < 0)
		return m;
	probe(m);
	if (!m->n)
		return m;
	m->hist = calloc((size_t)m->n * THROTTLE_HIST, sizeof(*m->hist));
	throttle_mon_read(m);
	log_info("thermal_throttle: package throttle counters of %u "
		 "package%s (one CPU each, cpu%u first)", m->n,
		 m->n == 1 ? "" : "s", m->p[0].cpu);
	return m;
}

void throttle_mon_read(struct throttle_mon *m)
{
	char err[1300];

	/* the time of the values: before the refresh, which brings the
	 * simulated files to its clock (a real kernel's are computed at the
	 * read, a moment later) */
	uint64_t now = mono_ns(), pub;

	if (m->refresh)
		m->refresh(m->ctx);
	for (unsigned i = 0; i < m->n; i++) {
		struct throttle_pkg *p = &m->p[i];
		uint64_t v;

		if (read_file(m, p->cpu, F_MS, &v, err, sizeof(err)) < 0) {
			if (p->errors++ == 0)
				log_warnx("thermal_throttle: socket %u: %s (the "
					  "value stays; said once)", p->socket,
					  err);
			continue;
		}
		p->ms = v;
		p->have = true;
		p->read_ns = now;
		/* the count is a second family; it never holds back the
		 * seconds */
		p->have_count = read_file(m, p->cpu, F_COUNT, &v, err,
					  sizeof(err)) == 0;
		if (p->have_count)
			p->count = v;
	}
	pthread_mutex_lock(&m->mu);
	memcpy(m->pub, m->p, m->n * sizeof(m->p[0]));
	/* A window belongs to the span in which its read was published,
	 * not to that of the values' instant (now, a few microseconds
	 * earlier on a real kernel, more on a loaded simulator): a sample
	 * whose interval ends after pub is served after this lock is let
	 * go, so it never misses the window that ended in it
	 * (throttle_mon_windows() takes the lock). */
	pub = mono_ns();
	for (unsigned i = 0; m->hist && i < m->n; i++) {
		const struct throttle_pkg *p = &m->p[i];
		struct throttle_read *h = m->hist + (size_t)i * THROTTLE_HIST;

		/* a failed read adds none: the window runs on to the next
		 * good one */
		if (!p->have || p->read_ns != now)
			continue;
		h[m->nhist[i]++ % THROTTLE_HIST] =
			(struct throttle_read){ p->read_ns, pub, p->ms };
	}
	pthread_mutex_unlock(&m->mu);
}

static void mon_pass(void *arg)
{
	throttle_mon_read(arg);
}

const char *throttle_mon_absent(const struct throttle_mon *m)
{
	return m->absent;
}

int throttle_mon_start(struct throttle_mon *m, unsigned interval_ms)
{
	if (!m->n)
		return 0;
	return periodic_start(&m->loop, "uncored-thermal", interval_ms, false,
			      mon_pass, m);
}

int throttle_mon_windows(struct throttle_mon *m, unsigned socket,
			 uint64_t t0_ns, uint64_t t1_ns,
			 struct throttle_window *out, int max)
{
	const struct throttle_read *h, *a, *b;
	uint64_t k, lo;
	unsigned i;
	int n = 0;

	for (i = 0; i < m->n && m->p[i].socket != socket; i++)
		;	/* p[].socket is fixed after new */
	if (i == m->n || !m->hist)
		return -ENOENT;
	h = m->hist + (size_t)i * THROTTLE_HIST;
	pthread_mutex_lock(&m->mu);
	lo = m->nhist[i] > THROTTLE_HIST ? m->nhist[i] - THROTTLE_HIST : 0;
	/* the oldest read kept must be at or before t0: else a window
	 * ending in the span may be forgotten */
	if (!m->nhist[i] || h[lo % THROTTLE_HIST].pub > t0_ns) {
		pthread_mutex_unlock(&m->mu);
		return -ENODATA;
	}
	/* newest first to the first window ending at or before t0 */
	for (k = m->nhist[i] - 1; k > lo; k--) {
		a = &h[(k - 1) % THROTTLE_HIST];
		b = &h[k % THROTTLE_HIST];
		if (b->pub <= t0_ns)
			break;
		if (b->pub <= t1_ns)
			n++;
	}
	n = n < max ? n : max;
	/* k: the read before the first window in the span */
	for (int j = 0; j < n; k++) {
		a = &h[k % THROTTLE_HIST];
		b = &h[(k + 1) % THROTTLE_HIST];
		if (b->pub <= t0_ns || b->pub > t1_ns)
			continue;
		out[j++] = (struct throttle_window){ a->ns, b->ns,
			b->ms >= a->ms ? b->ms - a->ms : 0 };
	}
	pthread_mutex_unlock(&m->mu);
	return n;
}

void throttle_mon_free(struct throttle_mon *m)
{
	if (!m)
		return;
	periodic_stop(&m->loop);
	free(m->hist);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

int throttle_mon_snapshot(struct throttle_mon *m, struct throttle_pkg *out,
			  int max)
{
	int n = (int)m->n < max ? (int)m->n : max;	/* fixed after new */

	pthread_mutex_lock(&m->mu);
	memcpy(out, m->pub, (size_t)n * sizeof(*out));
	pthread_mutex_unlock(&m->mu);
	return n;
}

/* The seconds samples; m->mu held. */
static void seconds_samples(struct prom *w, const struct throttle_mon *m)
{
	char s[12];

	for (unsigned i = 0; i < m->n; i++) {
		const struct throttle_pkg *x = &m->pub[i];
		const char *l[] = { "socket", s, "domain", "package",
				    "reason", "thermal", NULL };

		if (!x->have)
			continue;
		snprintf(s, sizeof(s), "%u", x->socket);
		prom_sample_f64(w, NULL, l, (double)x->ms / 1000.0);
	}
}

void throttle_mon_render_seconds(struct prom *w, struct throttle_mon *m)
{
	pthread_mutex_lock(&m->mu);
	seconds_samples(w, m);
	pthread_mutex_unlock(&m->mu);
}

void throttle_mon_render(struct prom *w, struct throttle_mon *m,
			 bool seconds_open)
{
	bool any = false, anyc = false;
	char s[12];

	pthread_mutex_lock(&m->mu);
	for (unsigned i = 0; i < m->n; i++) {
		any |= m->pub[i].have;
		anyc |= m->pub[i].have && m->pub[i].have_count;
	}
	if (any && !seconds_open) {
		prom_family(w, THROTTLE_FAMILY, PROM_COUNTER, "seconds",
			    "Time each socket's frequency was held back, by "
			    "domain and reason (thermal, package: the kernel's "
			    "thermal_throttle/" F_MS " / 1000, since boot)");
		seconds_samples(w, m);
	}
	if (anyc)
		prom_family(w, "uncore_frequency_limited_events_total",
			    PROM_COUNTER, NULL, "Times a limit on each "
			    "socket's frequency began, by domain and reason "
			    "(thermal, package: the kernel's thermal_throttle/"
			    F_COUNT ", since boot)");
	for (unsigned i = 0; anyc && i < m->n; i++) {
		const struct throttle_pkg *x = &m->pub[i];
		const char *l[] = { "socket", s, "domain", "package",
				    "reason", "thermal", NULL };

		if (!x->have || !x->have_count)
			continue;
		snprintf(s, sizeof(s), "%u", x->socket);
		prom_sample_u64(w, NULL, l, x->count);
	}
	pthread_mutex_unlock(&m->mu);
}
