/*
 * hw_msr.c - model-specific registers through the kernel's msr driver.
 *
 * The driver exposes one character device per logical CPU
 * (/dev/cpu/N/msr); an 8-byte pread() at offset M executes rdmsr(M) on
 * CPU N and an 8-byte pwrite() executes wrmsr.  A file is opened the first
 * time its CPU is used and kept open until hw_msr_close(), so a sampler
 * touching the same few CPUs every tick pays one system call per access.
 *
 * Opening is lazy and guarded by a mutex; the accesses themselves are not,
 * because pread() and pwrite() carry their own offset and are safe to issue
 * on one descriptor from many threads at once.  Descriptors are only closed
 * by hw_msr_close(), so a descriptor copied out of the cache stays valid.
 *
 * The path is a format with one "%u" so tests (and chroots) can point it at
 * ordinary files: a sparse file with 8-byte values at MSR offsets behaves
 * like the driver, including a short read for an MSR that "does not exist".
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw/hw.h"

#define MSR_DEFAULT_PATH "/dev/cpu/%u/msr"
/* Bounds the fd cache; far above any CPU count Linux supports today. */
#define MSR_MAX_CPUS 65536u

struct msr_file {
	int fd;			/* -1 until opened */
	bool rdonly;		/* O_RDWR was refused; writes fail */
	int rw_errno;		/* why O_RDWR was refused */
};

struct hw_msr {
	char *prefix;		/* path_fmt split at its "%u" */
	char *suffix;
	pthread_mutex_t lock;	/* guards files and nfiles */
	struct msr_file *files;	/* indexed by CPU */
	uint32_t nfiles;
	char *sealed;		/* NULL, or why no file may be opened */
};

/*
 * Copies fmt[0..len) to a new string, turning "%%" into "%".  Returns the
 * string (caller frees) or NULL if out of memory.
 */
static char *unescape(const char *fmt, size_t len)
{
	char *s = malloc(len + 1), *d = s;
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < len; i++) {
		*d++ = fmt[i];
		if (fmt[i] == '%')
			i++;	/* validated: the next character is '%' */
	}
	*d = '\0';
	return s;
}

/*
 * The path format comes from the configuration file, so it is not handed
 * to printf: it must contain exactly one "%u" and no conversions other
 * than "%%".  It is split into the text before and after the "%u".
 */
static int split_format(struct hw_msr *m, const char *fmt)
{
	const char *conv = NULL, *p;

	for (p = fmt; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
		} else if (p[1] == 'u' && !conv) {
			conv = p++;
		} else {
			return hw_fail(EINVAL, "msr path format \"%s\" must "
				       "contain exactly one %%u and no other "
				       "conversions (e.g. \"%s\")", fmt,
				       MSR_DEFAULT_PATH);
		}
	}
	if (!conv)
		return hw_fail(EINVAL, "msr path format \"%s\" has no %%u for "
			       "the CPU number (e.g. \"%s\")", fmt,
			       MSR_DEFAULT_PATH);
	m->prefix = unescape(fmt, (size_t)(conv - fmt));
	m->suffix = unescape(conv + 2, strlen(conv + 2));
	if (!m->prefix || !m->suffix)
		return hw_fail(ENOMEM, "out of memory");
	return 0;
}

/*
 * Opens the msr accessor.  No file is opened until a CPU is first used, so
 * this fails only for a malformed path_fmt (NULL means "/dev/cpu/%u/msr")
 * or lack of memory.  Returns 0 and sets *out (free with hw_msr_close()),
 * or -errno with the reason in hw_last_error().
 */
int hw_msr_open(struct hw_msr **out, const char *path_fmt)
{
	struct hw_msr *m;
	int err;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return hw_fail(ENOMEM, "out of memory");
	err = split_format(m, path_fmt ? path_fmt : MSR_DEFAULT_PATH);
	if (err) {
		free(m->prefix);
		free(m->suffix);
		free(m);
		return err;
	}
	pthread_mutex_init(&m->lock, NULL);
	*out = m;
	return 0;
}

/* Closes every per-CPU file and frees m.  NULL is ignored. */
void hw_msr_close(struct hw_msr *m)
{
	uint32_t i;

	if (!m)
		return;
	for (i = 0; i < m->nfiles; i++)
		if (m->files[i].fd >= 0)
			close(m->files[i].fd);
	pthread_mutex_destroy(&m->lock);
	free(m->sealed);
	free(m->files);
	free(m->prefix);
	free(m->suffix);
	free(m);
}

static void msr_path(const struct hw_msr *m, uint32_t cpu, char *buf,
		     size_t len)
{
	snprintf(buf, len, "%s%" PRIu32 "%s", m->prefix, cpu, m->suffix);
}

/* Turns a failed open() of the file for cpu into an actionable message. */
static int open_fail(int err, const char *path, uint32_t cpu, uint32_t msr)
{
	switch (err) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		return hw_fail(err, "msr 0x%" PRIx32 " on cpu %" PRIu32
			       ": cannot open %s: %s; load the msr driver "
			       "(modprobe msr) and check that cpu %" PRIu32
			       " exists and is online", msr, cpu, path,
			       strerror(err), cpu);
	case EACCES:
	case EPERM:
		return hw_fail(err, "msr 0x%" PRIx32 " on cpu %" PRIu32
			       ": cannot open %s: %s; MSR access needs root "
			       "or CAP_SYS_RAWIO", msr, cpu, path,
			       strerror(err));
	case EIO:
		return hw_fail(err, "msr 0x%" PRIx32 " on cpu %" PRIu32
			       ": cannot open %s: %s; the CPU does not "
			       "support MSRs", msr, cpu, path, strerror(err));
	default:
		return hw_fail(err, "msr 0x%" PRIx32 " on cpu %" PRIu32
			       ": cannot open %s: %s", msr, cpu, path,
			       strerror(err));
	}
}

/*
 * Returns the cached file of cpu in *f, opening it on first use.  Read-
 * write is preferred; if that is refused the file is opened read-only so
 * reads still work.  Called with m->lock held.  Returns 0 or -errno.
 */
static int get_file_locked(struct hw_msr *m, uint32_t cpu, uint32_t msr,
			   struct msr_file *f)
{
	char path[4096];
	struct msr_file *nf;
	uint32_t i, n;
	int fd, rw_errno = 0;

	if (cpu < m->nfiles && m->files[cpu].fd >= 0) {
		*f = m->files[cpu];
		return 0;
	}
	if (m->sealed)
		return hw_fail(EPERM, "msr 0x%" PRIx32 " on cpu %" PRIu32
			       ": %s", msr, cpu, m->sealed);
	if (cpu >= MSR_MAX_CPUS)
		return hw_fail(EINVAL, "msr 0x%" PRIx32 " on cpu %" PRIu32
			       ": cpu number out of range (max %u)", msr, cpu,
			       MSR_MAX_CPUS - 1);
	if (cpu >= m->nfiles) {
		n = m->nfiles ? m->nfiles : 8;
		while (n <= cpu)
			n *= 2;
		nf = realloc(m->files, n * sizeof(*nf));
		if (!nf)
			return hw_fail(ENOMEM, "out of memory");
		for (i = m->nfiles; i < n; i++)
			nf[i] = (struct msr_file){ .fd = -1 };
		m->files = nf;
		m->nfiles = n;
	}

	msr_path(m, cpu, path, sizeof(path));
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
		rw_errno = errno;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno != EACCES && errno != EPERM)
			rw_errno = 0;	/* report the read-only error */
	}
	if (fd < 0)
		return open_fail(rw_errno ? rw_errno : errno, path, cpu, msr);
	m->files[cpu] = (struct msr_file){ .fd = fd, .rdonly = rw_errno != 0,
					   .rw_errno = rw_errno };
	*f = m->files[cpu];
	return 0;
}

/* After this no new CPU's file is opened: accesses to it fail with why. */
int hw_msr_seal(struct hw_msr *m, const char *why)
{
	return hw_set_str(&m->lock, &m->sealed, why);
}

/* Is cpu's file open already? */
bool hw_msr_is_open(struct hw_msr *m, uint32_t cpu)
{
	bool open_;

	pthread_mutex_lock(&m->lock);
	open_ = cpu < m->nfiles && m->files[cpu].fd >= 0;
	pthread_mutex_unlock(&m->lock);
	return open_;
}

static int get_file(struct hw_msr *m, uint32_t cpu, uint32_t msr,
		    struct msr_file *f)
{
	int err;

	pthread_mutex_lock(&m->lock);
	err = get_file_locked(m, cpu, msr, f);
	pthread_mutex_unlock(&m->lock);
	return err;
}

/*
 * Reads MSR msr on CPU cpu into *val.  Returns 0, or -errno with an
 * explanation in hw_last_error(): -ENOENT/-ENXIO (no msr driver or no such
 * CPU), -EACCES/-EPERM (not privileged), -EIO (the CPU does not implement
 * the MSR: rdmsr raised #GP, which the driver reports as EIO).
 */
int hw_msr_read(struct hw_msr *m, uint32_t cpu, uint32_t msr, uint64_t *val)
{
	struct msr_file f;
	uint64_t v;
	ssize_t n;
	int err;

	err = get_file(m, cpu, msr, &f);
	if (err)
		return err;
	do
		n = pread(f.fd, &v, sizeof(v), (off_t)msr);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(v)) {
		*val = v;
		return 0;
	}
	err = n < 0 ? errno : EIO;
	if (err == EIO)
		return hw_fail(EIO, "msr 0x%" PRIx32 " on cpu %" PRIu32
			       ": read failed: cpu does not implement this "
			       "MSR (rdmsr raised #GP); check the platform "
			       "tables against the CPU model", msr, cpu);
	if (err == ENXIO)
		return hw_fail(err, "msr 0x%" PRIx32 " on cpu %" PRIu32
			       ": read failed: %s; is cpu %" PRIu32
			       " offline?", msr, cpu, strerror(err), cpu);
	return hw_fail(err, "msr 0x%" PRIx32 " on cpu %" PRIu32
		       ": read failed: %s", msr, cpu, strerror(err));
}

/*
 * Writes val to MSR msr on CPU cpu.  Returns 0, or -errno with an
 * explanation in hw_last_error(): the open errors of hw_msr_read(), -EPERM
 * when the file could only be opened read-only or the kernel refused the
 * write (lockdown, msr.allow_writes=off), -EIO when wrmsr raised #GP (no
 * such MSR, or reserved bits set in val).
 */
int hw_msr_write(struct hw_msr *m, uint32_t cpu, uint32_t msr, uint64_t val)
{
	struct msr_file f;
	ssize_t n;
	int err;

	err = get_file(m, cpu, msr, &f);
	if (err)
		return err;
	if (f.rdonly) {
		char path[4096];

		msr_path(m, cpu, path, sizeof(path));
		return hw_fail(EPERM, "msr 0x%" PRIx32 " on cpu %" PRIu32
			       ": cannot write: %s is open read-only (read-"
			       "write open failed: %s); writing MSRs needs "
			       "root or CAP_SYS_RAWIO", msr, cpu, path,
			       strerror(f.rw_errno));
	}
	do
		n = pwrite(f.fd, &val, sizeof(val), (off_t)msr);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(val))
		return 0;
	err = n < 0 ? errno : EIO;
	switch (err) {
	case EPERM:
		return hw_fail(err, "msr 0x%" PRIx32 " on cpu %" PRIu32
			       ": the kernel refused the write: kernel "
			       "lockdown is active (see /sys/kernel/security/"
			       "lockdown) or MSR writes are disabled "
			       "(/sys/module/msr/parameters/allow_writes is "
			       "off)", msr, cpu);
	case EIO:
		return hw_fail(err, "msr 0x%" PRIx32 " on cpu %" PRIu32
			       ": write of 0x%" PRIx64 " failed: cpu does "
			       "not implement this MSR or rejects the value "
			       "(wrmsr raised #GP; reserved bits set?)", msr,
			       cpu, val);
	default:
		return hw_fail(err, "msr 0x%" PRIx32 " on cpu %" PRIu32
			       ": write failed: %s", msr, cpu, strerror(err));
	}
}
