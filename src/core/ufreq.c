/*
 * ufreq.c - uncore frequency limits from intel_uncore_frequency (ufreq.h).
 *
 * Directory names are the kernel's (uncore-frequency-common.c,
 * uncore_freq_add_entry()): package_PP_die_DD carries its place in the
 * name; uncoreNN is an instance number, so its place comes from the
 * 0400 files package_id and die_id (die_id only on multi-die packages:
 * die 0 without it).  Everything privileged is opened here, at start-up.
 */
#include "config.h"

#include <dirent.h>
#include <pthread.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/periodic.h"
#include "base/prom.h"
#include "base/sfile.h"
#include "ufreq.h"

#define UFREQ_DIR "/devices/system/cpu/intel_uncore_frequency"

static const char *const names[UFREQ_NFILES] = {
	[UFREQ_MIN] = "min_freq_khz",
	[UFREQ_MAX] = "max_freq_khz",
	[UFREQ_INITIAL_MIN] = "initial_min_freq_khz",
	[UFREQ_INITIAL_MAX] = "initial_max_freq_khz",
	[UFREQ_CURRENT] = "current_freq_khz",
};

static const char *const labels[UFREQ_NFILES] = {
	[UFREQ_MIN] = "min",
	[UFREQ_MAX] = "max",
	[UFREQ_INITIAL_MIN] = "initial_min",
	[UFREQ_INITIAL_MAX] = "initial_max",
};

const char *ufreq_file_name(enum ufreq_file f) { return names[f]; }
const char *ufreq_limit_label(enum ufreq_file f) { return labels[f]; }

int ufreq_parse_khz(const char *text, uint64_t *khz)
{
	char *end;
	unsigned long long v;

	if (text[0] < '0' || text[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text)
		return -EINVAL;
	if (*end == '\n')
		end++;
	if (*end != '\0' || v > UINT64_MAX / 1000)	/* fits in Hz */
		return -EINVAL;
	*khz = v;
	return 0;
}

/* Reads fd from offset 0 into a value; -errno or -EINVAL. */
static int read_fd(int fd, uint64_t *v)
{
	char buf[32];
	ssize_t r = pread(fd, buf, sizeof(buf) - 1, 0);

	if (r < 0)
		return -errno;
	buf[r] = '\0';
	return ufreq_parse_khz(buf, v);
}

/* An id file of an uncoreNN directory: its value, or -1 (logged; a
 * missing file only when !quiet).  Opened with sfile_open: a FIFO in a
 * file's place is refused, not waited on. */
static int read_id(int dfd, const char *dir, const char *file, bool quiet)
{
	char msg[PATH_MAX + 64];
	uint64_t v;
	int fd = sfile_open(dfd, file, msg, sizeof(msg)), rc;

	if (fd < 0) {
		if (!quiet || fd != -ENOENT)
			log_warnx("intel_uncore_frequency %s/%s: left out", dir,
				  msg);
		return -1;
	}
	rc = read_fd(fd, &v);
	close(fd);
	if (rc < 0 || v > 4095) {
		log_warnx("intel_uncore_frequency %s/%s: not an id, skipped", dir, file);
		return -1;
	}
	return (int)v;
}

static int cmp_dom(const void *a, const void *b)
{
	const struct ufreq_dom *x = a, *y = b;

	if (x->socket != y->socket)
		return x->socket < y->socket ? -1 : 1;
	return x->die < y->die ? -1 : x->die > y->die;
}

/* The uncoreNN entries seen while scanning (their place is only known
 * once all are read: see ufreq_open()). */
struct tpmi_ent {
	char name[32];
	int pkg, die, domain, cluster;	/* die -1: no die_id file */
};

/* Opens the frequency files of directory dfd into m (closes dfd); a
 * FIFO or link in a file's place is refused (sfile_open), said, left
 * out. */
static void open_files(struct ufreq_dom *m, int dfd, const char *path,
		       const char *name)
{
	char msg[PATH_MAX + 64];
	int f;

	for (f = 0; f < UFREQ_NFILES; f++) {
		m->fd[f] = sfile_open(dfd, names[f], msg, sizeof(msg));
		if (m->fd[f] == -ENOENT)
			continue;
		if (m->fd[f] < 0)
			log_warnx("%s/%s/%s: left out", path, name, msg);
	}
	close(dfd);
}

/* uncoreNN entries by package, domain, cluster (qsort). */
static int tpmi_cmp(const void *a, const void *b)
{
	const struct tpmi_ent *x = a, *y = b;

	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	return x->cluster < y->cluster ? -1 : x->cluster > y->cluster;
}

/*
 * The uncoreNN entries (TPMI) when there is no package_PP_die_DD entry:
 * one domain per socket and die.  Sorted by package, domain and cluster,
 * the first entry of a socket and die is kept; an entry with no die_id in
 * a package whose other entries have one is a power domain with no
 * compute die (I/O), left out: the family's labels have no place for it.
 * Each choice is said once in the log.
 */
static void open_tpmi(struct ufreq *u, DIR *d, const char *path,
		      struct tpmi_ent *t, int nt)
{
	int i, j;

	qsort(t, (size_t)nt, sizeof(*t), tpmi_cmp);
	for (i = 0; i < nt && u->n < UFREQ_MAX_DOMAINS; i++) {
		struct ufreq_dom *m = &u->d[u->n];
		bool multi = false, dup = false;
		int dfd;

		for (j = 0; j < nt; j++)
			multi |= t[j].pkg == t[i].pkg && t[j].die >= 0;
		if (multi && t[i].die < 0) {
			log_info("intel_uncore_frequency %s: package %d power "
			    "domain %d has no die (an I/O die): left out, the "
			    "limits are exported per compute die", t[i].name,
			    t[i].pkg, t[i].domain);
			continue;
		}
		m->socket = t[i].pkg;
		m->die = t[i].die < 0 ? 0 : t[i].die;
		for (j = 0; j < u->n; j++)
			dup |= u->d[j].socket == m->socket && u->d[j].die == m->die;
		if (dup) {
			log_info("intel_uncore_frequency %s: package %d die %d "
			    "domain %d cluster %d: left out, the die's first "
			    "domain and cluster stand for it", t[i].name,
			    m->socket, m->die, t[i].domain, t[i].cluster);
			continue;
		}
		dfd = openat(dirfd(d), t[i].name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0) {
			log_warn("%s/%s: left out", path, t[i].name);
			continue;
		}
		open_files(m, dfd, path, t[i].name);
		u->n++;
	}
}

int ufreq_open(struct ufreq *u, const char *sysfs)
{
	char path[4096];
	DIR *d;
	struct dirent *e;
	struct tpmi_ent t[UFREQ_MAX_DOMAINS];
	int nt = 0;

	memset(u, 0, sizeof(*u));
	snprintf(path, sizeof(path), "%s" UFREQ_DIR, sysfs);
	d = opendir(path);
	if (!d) {
		if (errno == ENOENT)
			log_info("no intel_uncore_frequency in %s: the kernel lacks "
			    "the driver, this is not an Intel CPU the driver "
			    "knows, or a hypervisor hides it; uncore clock "
			    "limits are not exported", path);
		else
			log_warn("%s: uncore clock limits are not exported", path);
		return 0;
	}
	while ((e = readdir(d))) {
		struct ufreq_dom *m = &u->d[u->n];
		unsigned pk, di, inst;
		int dfd;
		char c;

		if (sscanf(e->d_name, "package_%u_die_%u%c", &pk, &di, &c) == 2) {
			if (u->n >= UFREQ_MAX_DOMAINS)
				continue;
			m->socket = (int)pk;
			m->die = (int)di;
			dfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (dfd < 0) {
				log_warn("%s/%s: left out", path, e->d_name);
				continue;
			}
			open_files(m, dfd, path, e->d_name);
			u->n++;
		} else if (sscanf(e->d_name, "uncore%u%c", &inst, &c) == 1 &&
		    nt < UFREQ_MAX_DOMAINS && strlen(e->d_name) < sizeof(t[0].name)) {
			struct tpmi_ent *x = &t[nt];

			dfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (dfd < 0)
				continue;
			snprintf(x->name, sizeof(x->name), "%s", e->d_name);
			x->pkg = read_id(dfd, e->d_name, "package_id", false);
			x->die = read_id(dfd, e->d_name, "die_id", true);
			x->domain = read_id(dfd, e->d_name, "domain_id", true);
			x->cluster = read_id(dfd, e->d_name, "fabric_cluster_id", true);
			if (x->die < 0 && faccessat(dfd, "die_id", F_OK, 0) == 0)
				x->pkg = -1;	/* there but unreadable: said */
			close(dfd);
			if (x->pkg >= 0)
				nt++;
		}
	}
	/* The package entries, where there are any, are the package-wide
	 * limits (the MSR driver's, or the TPMI driver's root domain, which
	 * it adds on single-die packages); uncoreNN are finer. */
	if (u->n == 0)
		open_tpmi(u, d, path, t, nt);
	else if (nt)
		log_info("intel_uncore_frequency: %d uncoreNN power-domain "
		    "entr%s beside the package entries: the package entries are "
		    "exported", nt, nt == 1 ? "y" : "ies");
	closedir(d);
	qsort(u->d, (size_t)u->n, sizeof(u->d[0]), cmp_dom);
	return u->n;
}

int ufreq_read(struct ufreq *u)
{
	int i, f, n = 0;

	for (i = 0; i < u->n; i++)
		for (f = 0; f < UFREQ_NFILES; f++) {
			struct ufreq_dom *m = &u->d[i];
			if (m->fd[f] < 0)
				continue;
			m->have[f] = read_fd(m->fd[f], &m->khz[f]) == 0;
			if (m->have[f]) {
				n++;
				m->said[f] = false;
			} else if (!m->said[f]) {
				log_warnx("intel_uncore_frequency socket %d die %d %s: "
				    "bad contents, skipped", m->socket, m->die, names[f]);
				m->said[f] = true;
			}
		}
	return n;
}

void ufreq_close(struct ufreq *u)
{
	int i, f;

	for (i = 0; i < u->n; i++)
		for (f = 0; f < UFREQ_NFILES; f++)
			if (u->d[i].fd[f] >= 0)
				close(u->d[i].fd[f]);
	u->n = 0;
}

struct ufreq_mon {
	struct ufreq u;		/* the thread's: files and last read */
	struct periodic loop;	/* the thread: a pass an interval */
	pthread_mutex_t mu;	/* guards below */
	struct ufreq_dom pub[UFREQ_MAX_DOMAINS];	/* last pass */
};

static void mon_pass(void *arg)
{
	struct ufreq_mon *m = arg;

	ufreq_read(&m->u);
	pthread_mutex_lock(&m->mu);
	memcpy(m->pub, m->u.d, sizeof(m->pub));
	pthread_mutex_unlock(&m->mu);
}

struct ufreq_mon *ufreq_mon_new(const char *sysfs)
{
	struct ufreq_mon *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	if (ufreq_open(&m->u, sysfs) <= 0) {
		free(m);
		return NULL;
	}
	pthread_mutex_init(&m->mu, NULL);
	mon_pass(m);
	log_info("intel_uncore_frequency: %d domain%s, uncore clock limits "
	    "exported", m->u.n, m->u.n == 1 ? "" : "s");
	return m;
}

int ufreq_mon_start(struct ufreq_mon *m, unsigned interval_ms)
{
	return periodic_start(&m->loop, "uncored-ufreq", interval_ms, false,
			      mon_pass, m);
}

void ufreq_mon_free(struct ufreq_mon *m)
{
	if (!m)
		return;
	periodic_stop(&m->loop);
	ufreq_close(&m->u);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

int ufreq_mon_snapshot(struct ufreq_mon *m, struct ufreq_dom *out, int max)
{
	int n = m->u.n < max ? m->u.n : max;	/* fixed after ufreq_mon_new */

	pthread_mutex_lock(&m->mu);
	memcpy(out, m->pub, (size_t)n * sizeof(*out));
	pthread_mutex_unlock(&m->mu);
	return n;
}

void ufreq_mon_render(struct prom *w, struct ufreq_mon *m)
{
	static const enum ufreq_file lim[] = { UFREQ_MIN, UFREQ_MAX,
		UFREQ_INITIAL_MIN, UFREQ_INITIAL_MAX };
	bool any = false;
	int i, n = m->u.n;	/* fixed after ufreq_mon_new */
	size_t k;
	char s[12], d[12];

	pthread_mutex_lock(&m->mu);
	for (i = 0; i < n; i++)
		for (k = 0; k < 4; k++)
			any |= m->pub[i].have[lim[k]];
	if (any)
		prom_family(w, "uncore_clock_limit_hertz", PROM_GAUGE, "hertz",
		    "Uncore clock limits set in the kernel's "
		    "intel_uncore_frequency driver (min, max) and those it "
		    "found at boot (initial_min, initial_max)");
	for (i = 0; any && i < n; i++)
		for (k = 0; k < 4; k++) {
			const struct ufreq_dom *x = &m->pub[i];
			const char *l[] = { "socket", s, "die", d, "limit",
				labels[lim[k]], NULL };

			if (!x->have[lim[k]])
				continue;
			snprintf(s, sizeof(s), "%d", x->socket);
			snprintf(d, sizeof(d), "%d", x->die);
			prom_sample_u64(w, NULL, l, x->khz[lim[k]] * 1000);
		}
	any = false;
	for (i = 0; i < n; i++)
		any |= m->pub[i].have[UFREQ_CURRENT];
	if (any)
		prom_family(w, "uncore_clock_current_hertz", PROM_GAUGE, "hertz",
		    "Uncore clock as intel_uncore_frequency reads it "
		    "(current_freq_khz), where readable");
	for (i = 0; any && i < n; i++) {
		const struct ufreq_dom *x = &m->pub[i];
		const char *l[] = { "socket", s, "die", d, NULL };

		if (!x->have[UFREQ_CURRENT])
			continue;
		snprintf(s, sizeof(s), "%d", x->socket);
		snprintf(d, sizeof(d), "%d", x->die);
		prom_sample_u64(w, NULL, l, x->khz[UFREQ_CURRENT] * 1000);
	}
	pthread_mutex_unlock(&m->mu);
}
