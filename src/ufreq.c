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
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
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

/* An id file of an uncoreNN directory: its value, or -1 (logged). */
static int read_id(int dfd, const char *dir, const char *file, bool quiet)
{
	uint64_t v;
	int fd = openat(dfd, file, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0) {
		if (!quiet)
			log_warn("intel_uncore_frequency %s/%s: left out", dir, file);
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

int ufreq_open(struct ufreq *u, const char *sysfs)
{
	char path[4096];
	DIR *d;
	struct dirent *e;

	memset(u, 0, sizeof(*u));
	snprintf(path, sizeof(path), "%s" UFREQ_DIR, sysfs);
	d = opendir(path);
	if (!d) {
		if (errno == ENOENT)
			log_info("no intel_uncore_frequency in %s: the kernel lacks "
			    "the driver or this is not an Intel CPU; uncore clock "
			    "limits are not exported", path);
		else
			log_warn("%s: uncore clock limits are not exported", path);
		return 0;
	}
	while ((e = readdir(d)) && u->n < UFREQ_MAX_DOMAINS) {
		struct ufreq_dom *m = &u->d[u->n];
		unsigned pk, di, inst;
		int dfd, f;
		char c;

		if (sscanf(e->d_name, "package_%u_die_%u%c", &pk, &di, &c) == 2) {
			m->socket = (int)pk;
			m->die = (int)di;
			dfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		} else if (sscanf(e->d_name, "uncore%u%c", &inst, &c) == 1) {
			dfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (dfd < 0)
				continue;
			m->socket = read_id(dfd, e->d_name, "package_id", false);
			m->die = read_id(dfd, e->d_name, "die_id", true);
			if (m->die < 0 && faccessat(dfd, "die_id", F_OK, 0) != 0)
				m->die = 0;	/* single-die package */
			if (m->socket < 0 || m->die < 0) {
				close(dfd);
				continue;
			}
		} else
			continue;
		if (dfd < 0) {
			log_warn("%s/%s: left out", path, e->d_name);
			continue;
		}
		for (f = 0; f < UFREQ_NFILES; f++) {
			m->fd[f] = openat(dfd, names[f], O_RDONLY | O_CLOEXEC);
			if (m->fd[f] < 0 && errno != ENOENT)
				log_warn("%s/%s/%s: left out", path, e->d_name, names[f]);
		}
		close(dfd);
		u->n++;
	}
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
