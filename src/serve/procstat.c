/*
 * procstat.c - process_* metrics from /proc/self (see procstat.h).
 *
 * Names, types and HELP texts follow the Prometheus client libraries'
 * process collectors (client_golang, client_python; process_threads as in
 * the Rust clients), so existing dashboards find them.  Field numbers of
 * /proc/[pid]/stat are those of proc(5).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procstat.h"

/* Reads a small file whole into buf (NUL-terminated); length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len == size - 1)
		return -EIO;	/* larger than any stat line can be */
	buf[len] = '\0';
	return (ssize_t)len;
}

/*
 * /proc/self/stat: "pid (comm) state ppid ...".  comm may hold spaces and
 * parentheses, so fields are counted from the last ')'; the next field is
 * number 3 (state).
 */
static int read_stat(struct procstat *ps, unsigned long long *starttime)
{
	enum { F_UTIME = 14, F_STIME = 15, F_THREADS = 20, F_START = 22,
	       F_VSIZE = 23, F_RSS = 24 };
	unsigned long long v[F_RSS + 1] = { 0 };
	char buf[4096], *p, *end;
	long tck, page;
	ssize_t n;

	n = read_small("/proc/self/stat", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] == '\0')
		return -EIO;
	p += 2;
	while (*p && *p != ' ')	/* field 3, the state */
		p++;
	for (int f = 4; f <= F_RSS; f++) {
		if (*p != ' ')
			return -EIO;
		p++;
		errno = 0;
		if (f == F_RSS && *p == '-') {	/* %ld in the kernel */
			(void)strtoll(p, &end, 10);
			v[f] = 0;
		} else {
			v[f] = strtoull(p, &end, 10);
		}
		if (end == p || errno)
			return -EIO;
		p = end;
	}
	tck = sysconf(_SC_CLK_TCK);
	page = sysconf(_SC_PAGESIZE);
	if (tck <= 0 || page <= 0)
		return -EINVAL;
	ps->cpu_seconds = (double)(v[F_UTIME] + v[F_STIME]) / (double)tck;
	ps->threads = (unsigned)v[F_THREADS];
	ps->virtual_bytes = v[F_VSIZE];
	ps->resident_bytes = v[F_RSS] * (uint64_t)page;
	*starttime = v[F_START];
	ps->have |= PS_HAVE_STAT;
	return 0;
}

/* btime from /proc/stat: the boot time, in seconds since the epoch. */
static int read_btime(unsigned long long *btime)
{
	char *line = NULL;
	size_t cap = 0;
	int rc = -EIO;
	FILE *f;

	f = fopen("/proc/stat", "re");
	if (!f)
		return -errno;
	/* Lines can be long (intr), so getline rather than a fixed buffer. */
	while (getline(&line, &cap, f) > 0) {
		char *end;

		if (strncmp(line, "btime ", 6) != 0)
			continue;
		errno = 0;
		*btime = strtoull(line + 6, &end, 10);
		if (end != line + 6 && !errno)
			rc = 0;
		break;
	}
	free(line);
	fclose(f);
	return rc;
}

/*
 * The boot time never changes: /proc/stat (long on a big machine) is
 * parsed once.  Racing first calls parse it twice and agree.
 */
static int boot_time(unsigned long long *btime)
{
	static _Atomic unsigned long long cached;
	unsigned long long v = atomic_load(&cached);
	int rc;

	if (v) {
		*btime = v;
		return 0;
	}
	rc = read_btime(&v);
	if (rc == 0) {
		atomic_store(&cached, v);
		*btime = v;
	}
	return rc;
}

/*
 * Open descriptors.  Since Linux 6.2 the size stat() reports for
 * /proc/self/fd is their number (fs/proc/fd.c, proc_fd_getattr): one
 * system call.  Older kernels report 0 there (and the process holds at
 * least stdin..stderr or the listener), so a size of 0 falls back to
 * counting the entries of the directory, without the one opendir()
 * itself holds.
 */
static int count_fds(unsigned *nfds)
{
	struct dirent *de;
	struct stat sb;
	unsigned n = 0;
	DIR *d;
	int self;

	if (stat("/proc/self/fd", &sb) == 0 && sb.st_size > 0 &&
	    (unsigned long long)sb.st_size <= UINT32_MAX) {
		*nfds = (unsigned)sb.st_size;
		return 0;
	}
	d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	self = dirfd(d);
	errno = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (atoi(de->d_name) != self)
			n++;
	}
	if (errno) {
		int err = -errno;

		closedir(d);
		return err;
	}
	closedir(d);
	*nfds = n;
	return 0;
}

int procstat_read(struct procstat *ps)
{
	unsigned long long starttime = 0, btime = 0;
	struct rlimit rl;
	int rc, first = 0;

	memset(ps, 0, sizeof(*ps));

	rc = read_stat(ps, &starttime);
	if (rc == 0) {
		rc = boot_time(&btime);
		if (rc == 0) {
			long tck = sysconf(_SC_CLK_TCK);

			ps->start_time_s = (double)btime +
					   (double)starttime / (double)tck;
			ps->have |= PS_HAVE_START;
		}
	}
	if (rc < 0)
		first = rc;

	rc = count_fds(&ps->open_fds);
	if (rc == 0)
		ps->have |= PS_HAVE_FDS;
	else if (!first)
		first = rc;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		ps->max_fds = rl.rlim_cur == RLIM_INFINITY
			? UINT64_MAX : (uint64_t)rl.rlim_cur;
		ps->have |= PS_HAVE_MAXFDS;
	} else if (!first) {
		first = -errno;
	}
	return first;
}

void procstat_render(struct prom *w, const struct procstat *ps)
{
	if (ps->have & PS_HAVE_STAT) {
		prom_family(w, "process_cpu_seconds_total", PROM_COUNTER,
			    "seconds",
			    "Total user and system CPU time spent in seconds.");
		prom_sample_f64(w, NULL, NULL, ps->cpu_seconds);
	}
	if (ps->have & PS_HAVE_FDS) {
		prom_family(w, "process_open_fds", PROM_GAUGE, NULL,
			    "Number of open file descriptors.");
		prom_sample_u64(w, NULL, NULL, ps->open_fds);
	}
	if (ps->have & PS_HAVE_MAXFDS) {
		prom_family(w, "process_max_fds", PROM_GAUGE, NULL,
			    "Maximum number of open file descriptors.");
		prom_sample_u64(w, NULL, NULL, ps->max_fds);
	}
	if (ps->have & PS_HAVE_STAT) {
		prom_family(w, "process_virtual_memory_bytes", PROM_GAUGE,
			    "bytes", "Virtual memory size in bytes.");
		prom_sample_u64(w, NULL, NULL, ps->virtual_bytes);
		prom_family(w, "process_resident_memory_bytes", PROM_GAUGE,
			    "bytes", "Resident memory size in bytes.");
		prom_sample_u64(w, NULL, NULL, ps->resident_bytes);
	}
	if (ps->have & PS_HAVE_START) {
		prom_family(w, "process_start_time_seconds", PROM_GAUGE,
			    "seconds",
			    "Start time of the process since unix epoch in seconds.");
		prom_sample_f64(w, NULL, NULL, ps->start_time_s);
	}
	if (ps->have & PS_HAVE_STAT) {
		prom_family(w, "process_threads", PROM_GAUGE, NULL,
			    "Number of OS threads in the process.");
		prom_sample_u64(w, NULL, NULL, ps->threads);
	}
}
