/*
 * hw_mmio.c - memory-mapped registers through /dev/mem.
 *
 * Uncore registers behind a BAR (MCHBAR's free-running DRAM counters on
 * client parts) are read by mapping the page that holds them from
 * /dev/mem and loading through a volatile pointer of the register's width,
 * so each access is exactly one 4- or 8-byte load or store, as the
 * hardware requires.  /dev/mem is opened with O_SYNC so the kernel maps
 * the pages uncached.
 *
 * Mappings are one page each (an aligned 4- or 8-byte register never
 * crosses a page) and made on first use; a few are kept, least recently
 * used first out.  Pages are mapped read-only and made writable only when
 * something is written, so a stray pointer cannot corrupt device state.
 * One mutex guards the cache and the access itself: a mapping is only ever
 * dereferenced under the lock, so evicting it cannot pull the page from
 * under another thread.
 *
 * Tests point the path at a regular file.  Touching a mapped page beyond
 * the end of a file raises SIGBUS, so for regular files the size is taken
 * at open and accesses beyond it fail with -EFAULT instead.
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw/hw.h"

#define MEM_DEFAULT_PATH "/dev/mem"
#define MEM_NMAPS 16		/* pages kept mapped */

struct mem_map {
	uint64_t base;		/* physical address of the page */
	void *ptr;		/* NULL: slot free */
	bool writable;		/* PROT_WRITE set */
	uint64_t used;		/* m->clock at last use */
};

struct hw_mem {
	int fd;
	char *path;
	bool rdonly;		/* O_RDWR was refused */
	int rw_errno;		/* why */
	bool regular;		/* a regular file: size bounds accesses */
	uint64_t size;
	uint64_t pagesz;
	pthread_mutex_t lock;	/* guards maps, clock, and every access */
	uint64_t clock;
	struct mem_map maps[MEM_NMAPS];
};

/* Turns a failed open() of path into an actionable message. */
static int open_fail(int err, const char *path)
{
	switch (err) {
	case ENOENT:
		return hw_fail(err, "cannot open %s: %s%s", path,
			       strerror(err), strcmp(path, MEM_DEFAULT_PATH) ?
			       "" : " (kernel built without CONFIG_DEVMEM?)");
	case EACCES:
	case EPERM:
		return hw_fail(err, "cannot open %s: %s; MMIO access needs "
			       "root or CAP_SYS_RAWIO, and under kernel "
			       "lockdown (/sys/kernel/security/lockdown) "
			       "/dev/mem cannot be opened at all", path,
			       strerror(err));
	default:
		return hw_fail(err, "cannot open %s: %s", path, strerror(err));
	}
}

/*
 * Opens path (NULL means "/dev/mem") for physical memory access, read-
 * write if allowed, else read-only (then writes fail with -EPERM).
 * Returns 0 and sets *out (free with hw_mem_close()), or -errno with the
 * reason in hw_last_error(): -ENOENT, -EACCES/-EPERM (not privileged, or
 * kernel lockdown), other open() errors.
 */
int hw_mem_open(struct hw_mem **out, const char *path)
{
	struct hw_mem *m;
	struct stat st;
	long pagesz;
	int fd, err, rw_errno = 0;

	*out = NULL;
	if (!path)
		path = MEM_DEFAULT_PATH;
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
		rw_errno = errno;
		fd = open(path, O_RDONLY | O_SYNC | O_CLOEXEC);
		if (fd < 0 && errno != EACCES && errno != EPERM)
			rw_errno = 0;	/* report the read-only error */
	}
	if (fd < 0)
		return open_fail(rw_errno ? rw_errno : errno, path);
	if (fstat(fd, &st)) {
		err = errno;
		close(fd);
		return hw_fail(err, "cannot stat %s: %s", path, strerror(err));
	}

	m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(path))) {
		free(m);
		close(fd);
		return hw_fail(ENOMEM, "out of memory");
	}
	pagesz = sysconf(_SC_PAGESIZE);
	m->pagesz = pagesz > 0 ? (uint64_t)pagesz : 4096;
	m->fd = fd;
	m->rdonly = rw_errno != 0;
	m->rw_errno = rw_errno;
	m->regular = S_ISREG(st.st_mode);
	m->size = m->regular ? (uint64_t)st.st_size : 0;
	pthread_mutex_init(&m->lock, NULL);
	*out = m;
	return 0;
}

/* Unmaps every page, closes the file and frees m.  NULL is ignored. */
void hw_mem_close(struct hw_mem *m)
{
	int i;

	if (!m)
		return;
	for (i = 0; i < MEM_NMAPS; i++)
		if (m->maps[i].ptr)
			munmap(m->maps[i].ptr, m->pagesz);
	close(m->fd);
	pthread_mutex_destroy(&m->lock);
	free(m->path);
	free(m);
}

/*
 * Checks that a width-byte access at phys is possible.  Returns 0 or
 * -errno with a message.
 */
static int check_access(const struct hw_mem *m, uint64_t phys, uint8_t width,
			bool write)
{
	if (width != 4 && width != 8)
		return hw_fail(EINVAL, "mmio 0x%" PRIx64 ": unsupported access "
			       "width %u (4 or 8 bytes)", phys, width);
	if (phys % width)
		return hw_fail(EINVAL, "mmio 0x%" PRIx64 ": address is not "
			       "aligned to the %u-byte access width", phys,
			       width);
	if (phys > (uint64_t)INT64_MAX - width)
		return hw_fail(EINVAL, "mmio 0x%" PRIx64 ": address out of "
			       "range", phys);
	if (m->regular && phys + width > m->size)
		return hw_fail(EFAULT, "mmio 0x%" PRIx64 ": beyond the end "
			       "of %s (%" PRIu64 " bytes)", phys, m->path,
			       m->size);
	if (write && m->rdonly)
		return hw_fail(EPERM, "mmio 0x%" PRIx64 ": cannot write: %s "
			       "is open read-only (read-write open failed: "
			       "%s); writing MMIO needs root or "
			       "CAP_SYS_RAWIO", phys, m->path,
			       strerror(m->rw_errno));
	return 0;
}

/* Explains a failed mmap()/mprotect() of the page at base. */
static int map_fail(const struct hw_mem *m, int err, uint64_t phys,
		    uint64_t base)
{
	if (err == EPERM || err == EACCES)
		return hw_fail(err, "mmio 0x%" PRIx64 ": the kernel refused "
			       "to map page 0x%" PRIx64 " of %s: %s; "
			       "CONFIG_STRICT_DEVMEM forbids RAM, "
			       "CONFIG_IO_STRICT_DEVMEM also regions a driver "
			       "has claimed (boot with iomem=relaxed), and "
			       "kernel lockdown forbids everything", phys,
			       base, m->path, strerror(err));
	return hw_fail(err, "mmio 0x%" PRIx64 ": cannot map page 0x%" PRIx64
		       " of %s: %s", phys, base, m->path, strerror(err));
}

/*
 * Returns in *p a pointer to phys in a cached mapping of its page, made
 * writable if write is set.  Called with m->lock held.  Returns 0 or
 * -errno.
 */
static int map_locked(struct hw_mem *m, uint64_t phys, bool write,
		      volatile void **p)
{
	uint64_t base = phys & ~(m->pagesz - 1);
	struct mem_map *s = NULL, *victim = &m->maps[0];
	void *ptr;
	int i;

	for (i = 0; i < MEM_NMAPS; i++) {
		struct mem_map *c = &m->maps[i];

		if (c->ptr && c->base == base) {
			s = c;
			break;
		}
		if (!c->ptr)
			victim = c;	/* a free slot beats any used one */
		else if (victim->ptr && c->used < victim->used)
			victim = c;
	}

	if (!s) {
		int prot = PROT_READ | (write ? PROT_WRITE : 0);

		ptr = mmap(NULL, m->pagesz, prot, MAP_SHARED, m->fd,
			   (off_t)base);
		if (ptr == MAP_FAILED)
			return map_fail(m, errno, phys, base);
		if (victim->ptr)
			munmap(victim->ptr, m->pagesz);
		s = victim;
		*s = (struct mem_map){ .base = base, .ptr = ptr,
				       .writable = write };
	} else if (write && !s->writable) {
		if (mprotect(s->ptr, m->pagesz, PROT_READ | PROT_WRITE))
			return map_fail(m, errno, phys, base);
		s->writable = true;
	}
	s->used = ++m->clock;
	*p = (volatile uint8_t *)s->ptr + (phys - base);
	return 0;
}

/*
 * Reads the width-byte (4 or 8) register at physical address phys into
 * *v with a single load.  Returns 0, or -errno with a message: -EINVAL
 * (width, alignment), -EFAULT (beyond the end of a regular file), or the
 * mmap() error (-EPERM when the kernel forbids mapping that address).
 */
int hw_mem_read(struct hw_mem *m, uint64_t phys, uint8_t width, uint64_t *v)
{
	volatile void *p;
	int err;

	err = check_access(m, phys, width, false);
	if (err)
		return err;
	pthread_mutex_lock(&m->lock);
	err = map_locked(m, phys, false, &p);
	if (!err) {
		if (width == 8)
			*v = *(volatile uint64_t *)p;
		else
			*v = *(volatile uint32_t *)p;
	}
	pthread_mutex_unlock(&m->lock);
	return err;
}

/*
 * Writes the low width (4 or 8) bytes of v to the register at physical
 * address phys with a single store.  Returns 0, or -errno with a message:
 * the errors of hw_mem_read(), and -EPERM if the file is open read-only.
 */
int hw_mem_write(struct hw_mem *m, uint64_t phys, uint8_t width, uint64_t v)
{
	volatile void *p;
	int err;

	err = check_access(m, phys, width, true);
	if (err)
		return err;
	pthread_mutex_lock(&m->lock);
	err = map_locked(m, phys, true, &p);
	if (!err) {
		if (width == 8)
			*(volatile uint64_t *)p = v;
		else
			*(volatile uint32_t *)p = (uint32_t)v;
	}
	pthread_mutex_unlock(&m->lock);
	return err;
}
