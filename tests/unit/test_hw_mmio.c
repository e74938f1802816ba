/*
 * test_hw_mmio.c - unit tests for the /dev/mem accessor (hw_mmio.c).
 *
 * A regular file stands in for /dev/mem: file offset = physical address.
 * Values put in the file must read back through hw_mem_read() at 32 and
 * 64 bits on every page, hw_mem_write() must land in the file at the right
 * offset with the right width, more pages than the mapping cache holds must
 * still read correctly, and misuse (unaligned, beyond the file, missing
 * file, no permission) must give the documented -errno, never a signal.
 *
 * Permission checks need an unprivileged process: as root they run in a
 * child that becomes uid/gid 65534, otherwise in this process.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw/hw.h"
#include "tests/tap.h"

#define NPAGES_BIG 40	/* more pages than hw_mmio.c keeps mapped */

static char dir[64];
static uint64_t ps;	/* page size */

/* Creates dir/name of len bytes (zero-filled, sparse) with mode. */
static void make_file(const char *name, uint64_t len, mode_t mode,
		      char *path, size_t pathlen)
{
	int fd;

	snprintf(path, pathlen, "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)len) || fchmod(fd, mode)) {
		perror(path);
		exit(2);
	}
	close(fd);
}

static void put(const char *path, uint64_t off, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || pwrite(fd, buf, len, (off_t)off) != (ssize_t)len) {
		perror(path);
		exit(2);
	}
	close(fd);
}

static void put64(const char *path, uint64_t off, uint64_t v)
{
	put(path, off, &v, sizeof(v));
}

static void put32(const char *path, uint64_t off, uint32_t v)
{
	put(path, off, &v, sizeof(v));
}

/* Reads n (4 or 8) bytes of path at off; all ones if that fails. */
static uint64_t get(const char *path, uint64_t off, size_t n)
{
	uint64_t v = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || pread(fd, &v, n, (off_t)off) != (ssize_t)n)
		v = ~0ull;
	if (fd >= 0)
		close(fd);
	return v;
}

static void test_read_write(void)
{
	char path[128];
	struct hw_mem *m;
	uint64_t v = 0;
	int r;

	make_file("mem3", 3 * ps, 0600, path, sizeof(path));
	put64(path, 0x0, 0x1122334455667788ull);
	put32(path, ps + 0x50, 0xcafef00d);		/* page 1 */
	put64(path, 2 * ps + 0x18, 0x8000000000000001ull);	/* page 2 */
	put64(path, 3 * ps - 8, 0xa5a5a5a5a5a5a5a5ull);	/* last qword */

	r = hw_mem_open(&m, path);
	is_int(r, 0, "open a 3-page regular file");
	if (r)
		return;

	r = hw_mem_read(m, 0x0, 8, &v);
	is_int(r, 0, "64-bit read at 0");
	is_u64(v, 0x1122334455667788ull, "64-bit value at 0");
	r = hw_mem_read(m, 0x0, 4, &v);
	is_u64(v, 0x55667788, "32-bit read at 0 is the low half (r=%d)", r);
	r = hw_mem_read(m, 0x4, 4, &v);
	is_u64(v, 0x11223344, "32-bit read at 4 is the high half (r=%d)", r);
	r = hw_mem_read(m, ps + 0x50, 4, &v);
	is_u64(v, 0xcafef00d, "32-bit read on page 1 (r=%d)", r);
	r = hw_mem_read(m, 2 * ps + 0x18, 8, &v);
	is_u64(v, 0x8000000000000001ull, "64-bit read on page 2 (r=%d)", r);
	r = hw_mem_read(m, 3 * ps - 8, 8, &v);
	is_u64(v, 0xa5a5a5a5a5a5a5a5ull, "last qword of the file (r=%d)", r);
	r = hw_mem_read(m, 3 * ps - 4, 4, &v);
	is_u64(v, 0xa5a5a5a5, "last dword of the file (r=%d)", r);

	/* Writes reach the file, with the access width. */
	r = hw_mem_write(m, ps + 0x50, 4, 0xffffffff12345678ull);
	is_int(r, 0, "32-bit write on page 1");
	is_u64(get(path, ps + 0x50, 4), 0x12345678,
	       "file holds the low 32 bits");
	is_u64(get(path, ps + 0x54, 4), 0, "the next dword is untouched");
	r = hw_mem_write(m, 2 * ps + 0x100, 8, 0x0102030405060708ull);
	is_int(r, 0, "64-bit write on page 2");
	is_u64(get(path, 2 * ps + 0x100, 8), 0x0102030405060708ull,
	       "file holds the 64-bit value");
	r = hw_mem_read(m, 2 * ps + 0x104, 4, &v);
	is_u64(v, 0x01020304, "high half reads back at +4 (r=%d)", r);
	/* Page 0 was mapped read-only by the reads above; now write it. */
	r = hw_mem_write(m, 0x8, 8, 0xdeadbeefdeadbeefull);
	is_int(r, 0, "write to a page first mapped for reading");
	is_u64(get(path, 0x8, 8), 0xdeadbeefdeadbeefull, "and it lands");
	is_u64(get(path, 0x0, 8), 0x1122334455667788ull,
	       "the qword before it is intact");

	/* The mapping is shared: changes to the file are seen at once. */
	put32(path, ps + 0x50, 0x0badcafe);
	r = hw_mem_read(m, ps + 0x50, 4, &v);
	is_u64(v, 0x0badcafe, "reads are not cached (r=%d)", r);

	/* Misuse. */
	r = hw_mem_read(m, ps + 0x52, 4, &v);
	is_int(r, -EINVAL, "unaligned 32-bit read is -EINVAL");
	like(hw_last_error(), "aligned", "message says why");
	r = hw_mem_read(m, 0x4, 8, &v);
	is_int(r, -EINVAL, "64-bit read at a 4-aligned address is -EINVAL");
	r = hw_mem_write(m, 0x2, 4, 0);
	is_int(r, -EINVAL, "unaligned write is -EINVAL");
	r = hw_mem_read(m, 0x0, 2, &v);
	is_int(r, -EINVAL, "width 2 is -EINVAL");
	r = hw_mem_read(m, 3 * ps, 4, &v);
	is_int(r, -EFAULT, "read just past EOF is -EFAULT, not SIGBUS");
	like(hw_last_error(), "beyond the end", "message says why");
	r = hw_mem_read(m, 0xfed10000, 8, &v);
	is_int(r, -EFAULT, "far beyond EOF is -EFAULT");
	r = hw_mem_write(m, 3 * ps, 8, 1);
	is_int(r, -EFAULT, "write past EOF is -EFAULT");
	r = hw_mem_read(m, 0xfffffffffffffff8ull, 8, &v);
	is_int(r, -EINVAL, "address above 2^63 is -EINVAL");
	is_u64(get(path, 0x8, 8), 0xdeadbeefdeadbeefull,
	       "failed accesses changed nothing");

	hw_mem_close(m);
}

/* A file whose size is not a page multiple: the last partial page works. */
static void test_partial_page(void)
{
	char path[128];
	struct hw_mem *m;
	uint64_t v = 0;
	int r;

	make_file("mem-odd", ps + 16, 0600, path, sizeof(path));
	put64(path, ps + 8, 0x77);
	if (hw_mem_open(&m, path)) {
		ok(0, "open %s: %s", path, hw_last_error());
		return;
	}
	r = hw_mem_read(m, ps + 8, 8, &v);
	is_u64(v, 0x77, "last qword of a partial page (r=%d)", r);
	r = hw_mem_read(m, ps + 16, 4, &v);
	is_int(r, -EFAULT, "first byte past a partial page is -EFAULT");
	hw_mem_close(m);
}

/* More pages than the cache holds, in several orders. */
static void test_many_pages(void)
{
	char path[128];
	struct hw_mem *m;
	uint64_t v;
	int i, round, bad = 0;

	make_file("mem-big", NPAGES_BIG * ps, 0600, path, sizeof(path));
	for (i = 0; i < NPAGES_BIG; i++)
		put64(path, (uint64_t)i * ps + 0x40, 0x1000 + (uint64_t)i);
	if (hw_mem_open(&m, path)) {
		ok(0, "open %s: %s", path, hw_last_error());
		return;
	}
	for (round = 0; round < 3; round++)
		for (i = 0; i < NPAGES_BIG; i++) {
			int pg = round == 1 ? NPAGES_BIG - 1 - i :
				 round == 2 ? (i * 7) % NPAGES_BIG : i;

			if (hw_mem_read(m, (uint64_t)pg * ps + 0x40, 8, &v) ||
			    v != 0x1000 + (uint64_t)pg)
				bad++;
		}
	is_int(bad, 0, "%d pages read in 3 orders through the mapping cache",
	       NPAGES_BIG);

	bad = 0;
	for (i = 0; i < NPAGES_BIG; i++)
		if (hw_mem_write(m, (uint64_t)i * ps + 0x80, 4, 0x2000 + i))
			bad++;
	for (i = 0; i < NPAGES_BIG; i++)
		if (get(path, (uint64_t)i * ps + 0x80, 4) !=
		    0x2000 + (uint64_t)i)
			bad++;
	is_int(bad, 0, "writes to %d pages all land", NPAGES_BIG);
	hw_mem_close(m);
}

struct thr_arg {
	struct hw_mem *m;
	int id, bad;
};

static void *reader(void *p)
{
	struct thr_arg *a = p;
	uint64_t v;
	int i;

	for (i = 0; i < 3000; i++) {
		int pg = (i * 3 + a->id * 11) % NPAGES_BIG;

		if (hw_mem_read(a->m, (uint64_t)pg * ps + 0x40, 8, &v) ||
		    v != 0x1000 + (uint64_t)pg)
			a->bad++;
	}
	return NULL;
}

/* Threads evicting each other's mappings must still read right values. */
static void test_threads(void)
{
	char path[128];
	struct thr_arg a[4];
	pthread_t t[4];
	struct hw_mem *m;
	int i, bad = 0;

	snprintf(path, sizeof(path), "%s/mem-big", dir);
	if (hw_mem_open(&m, path)) {
		ok(0, "open %s: %s", path, hw_last_error());
		return;
	}
	for (i = 0; i < 4; i++) {
		a[i] = (struct thr_arg){ .m = m, .id = i };
		pthread_create(&t[i], NULL, reader, &a[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		bad += a[i].bad;
	}
	is_int(bad, 0, "4 threads x 3000 reads over %d pages", NPAGES_BIG);
	hw_mem_close(m);
}

static void test_open_errors(void)
{
	struct hw_mem *m = (struct hw_mem *)1;
	char path[128];
	int r;

	snprintf(path, sizeof(path), "%s/no-such-mem", dir);
	r = hw_mem_open(&m, path);
	is_int(r, -ENOENT, "missing path is -ENOENT");
	ok(m == NULL, "*out is NULL on failure");
	like(hw_last_error(), path, "message names the path");
}

/* What an unprivileged attempt produced; sent from the child. */
struct unpriv_result {
	int skip;
	int r_open, r_read, r_write;
	uint64_t v;
	char msg_open[256], msg_write[256];
};

static void try_access(const char *path, struct unpriv_result *res)
{
	struct hw_mem *m;

	res->r_open = hw_mem_open(&m, path);
	snprintf(res->msg_open, sizeof(res->msg_open), "%s", hw_last_error());
	if (res->r_open)
		return;
	res->r_read = hw_mem_read(m, 0x10, 8, &res->v);
	res->r_write = hw_mem_write(m, 0x10, 8, 0);
	snprintf(res->msg_write, sizeof(res->msg_write), "%s",
		 hw_last_error());
	hw_mem_close(m);
}

/* Runs try_access() as nobody (in a child) if root, else here. */
static void unpriv_access(const char *path, struct unpriv_result *res)
{
	int pfd[2], status;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (geteuid() != 0) {
		try_access(path, res);
		return;
	}
	if (pipe(pfd)) {
		res->skip = 1;
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534) ||
		    geteuid() == 0)
			res->skip = 1;
		else
			try_access(path, res);
		if (write(pfd[1], res, sizeof(*res)) != (ssize_t)sizeof(*res))
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	if (pid < 0 || read(pfd[0], res, sizeof(*res)) != (ssize_t)sizeof(*res))
		res->skip = 1;
	close(pfd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
}

static void test_permissions(void)
{
	struct unpriv_result res;
	char path[128];
	int i;

	if (chmod(dir, 0755)) {
		perror(dir);
		exit(2);
	}

	make_file("mem-none", ps, 0000, path, sizeof(path));
	unpriv_access(path, &res);
	if (res.skip) {
		for (i = 0; i < 2; i++)
			ok(1, "EACCES check # SKIP cannot drop privileges");
	} else {
		is_int(res.r_open, -EACCES, "unprivileged open of a 0000 file "
		       "is -EACCES");
		like(res.msg_open, "CAP_SYS_RAWIO", "message says what "
		     "privilege is needed");
	}

	make_file("mem-ro", ps, 0644, path, sizeof(path));
	put64(path, 0x10, 0x5150);
	if (chmod(path, 0444)) {
		perror(path);
		exit(2);
	}
	unpriv_access(path, &res);
	if (res.skip) {
		for (i = 0; i < 5; i++)
			ok(1, "read-only fallback # SKIP cannot drop "
			   "privileges");
	} else {
		if (!ok(res.r_open == 0, "read-only fallback: open succeeds"))
			printf("#   %d: %s\n", res.r_open, res.msg_open);
		is_int(res.r_read, 0, "read-only fallback: read works");
		is_u64(res.v, 0x5150, "read-only fallback: value");
		is_int(res.r_write, -EPERM, "write through read-only file is "
		       "-EPERM");
		like(res.msg_write, "read-only", "message says why");
	}
	is_u64(get(path, 0x10, 8), 0x5150, "the file was not written");
}

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", dir);
}

int main(void)
{
	long p = sysconf(_SC_PAGESIZE);

	ps = p > 0 ? (uint64_t)p : 4096;
	snprintf(dir, sizeof(dir), "/tmp/test_hw_mmio.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	test_read_write();
	test_partial_page();
	test_many_pages();
	test_threads();
	test_open_errors();
	test_permissions();
	cleanup();
	return tap_done();
}
