/*
 * test_hw_msr.c - unit tests for the msr-driver accessor (hw_msr.c).
 *
 * The kernel's msr device is an 8-byte window at offset = MSR index, so a
 * sparse regular file per CPU stands in for it: values written at MSR
 * offsets must come back through hw_msr_read(), hw_msr_write() must land
 * at the right offset in the right CPU's file, and the driver's failure
 * modes (no file, no permission, short read) must become the right -errno
 * with a message that says what to do.
 *
 * Permission checks need an unprivileged process.  When run as root the
 * check forks a child that drops to uid/gid 65534 ("nobody"); otherwise it
 * runs in this process, which is unprivileged already.
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

static char dir[64];
static char fmt[128];

/* Creates <dir>/cpu<cpu>/msr with the given mode, empty. */
static void make_cpu(unsigned cpu, mode_t mode)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/cpu%u", dir, cpu);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		exit(2);
	}
	snprintf(path, sizeof(path), "%s/cpu%u/msr", dir, cpu);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || fchmod(fd, mode)) {
		perror(path);
		exit(2);
	}
	close(fd);
}

/* Stores v at offset msr of cpu's file, as the driver would return it. */
static void poke(unsigned cpu, uint32_t msr, uint64_t v)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/cpu%u/msr", dir, cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0 || pwrite(fd, &v, sizeof(v), msr) != (ssize_t)sizeof(v)) {
		perror(path);
		exit(2);
	}
	close(fd);
}

/* Reads the 8 bytes at offset msr of cpu's file; all ones if short. */
static uint64_t peek(unsigned cpu, uint32_t msr)
{
	char path[256];
	uint64_t v = ~0ull;
	int fd;

	snprintf(path, sizeof(path), "%s/cpu%u/msr", dir, cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, &v, sizeof(v), msr) != (ssize_t)sizeof(v))
		v = ~0ull;
	if (fd >= 0)
		close(fd);
	return v;
}

/* Changes the mode of cpu's file (after poke(), which needs write). */
static void set_mode(unsigned cpu, mode_t mode)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/cpu%u/msr", dir, cpu);
	if (chmod(path, mode)) {
		perror(path);
		exit(2);
	}
}

/* Truncates cpu's file to len bytes. */
static void set_size(unsigned cpu, off_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/cpu%u/msr", dir, cpu);
	if (truncate(path, len)) {
		perror(path);
		exit(2);
	}
}

static void test_read_write(void)
{
	struct hw_msr *m;
	uint64_t v = 0;
	int r;

	make_cpu(0, 0600);
	make_cpu(1, 0600);
	poke(0, 0x10, 0x0123456789abcdefull);	/* IA32_TIME_STAMP_COUNTER */
	poke(0, 0x611, 0xdeadbeef);		/* MSR_PKG_ENERGY_STATUS */
	poke(0, 0xe01, 1ull << 61);		/* MSR_UNC_PERF_GLOBAL_CTRL */
	poke(1, 0xe01, 1);
	poke(0, 0xc0000080, 0xd01);		/* IA32_EFER, at 3 GiB */

	r = hw_msr_open(&m, fmt);
	is_int(r, 0, "open %s", fmt);
	if (r)
		return;

	r = hw_msr_read(m, 0, 0x10, &v);
	is_int(r, 0, "read 0x10 on cpu 0");
	is_u64(v, 0x0123456789abcdefull, "0x10 on cpu 0 has its value");
	r = hw_msr_read(m, 0, 0x611, &v);
	is_u64(v, 0xdeadbeefull, "0x611 on cpu 0 (r=%d)", r);
	r = hw_msr_read(m, 0, 0xc0000080, &v);
	is_u64(v, 0xd01, "0xc0000080 (offset above 2^31) (r=%d)", r);

	/* One index, two CPUs, two files. */
	r = hw_msr_read(m, 0, 0xe01, &v);
	is_u64(v, 0x2000000000000000ull, "0xe01 on cpu 0 (r=%d)", r);
	r = hw_msr_read(m, 1, 0xe01, &v);
	is_u64(v, 1, "0xe01 on cpu 1 is cpu 1's value (r=%d)", r);

	/* Unwritten hole inside the file reads as zero, like a cleared MSR. */
	r = hw_msr_read(m, 0, 0x700, &v);
	is_int(r, 0, "read of a hole succeeds");
	is_u64(v, 0, "hole reads 0");

	/* Writes land at offset = index, in the right CPU's file only. */
	r = hw_msr_write(m, 1, 0x700, 0x8877665544332211ull);
	is_int(r, 0, "write 0x700 on cpu 1");
	is_u64(peek(1, 0x700), 0x8877665544332211ull,
	       "cpu 1 file holds the value at offset 0x700");
	is_u64(peek(0, 0x700), 0, "cpu 0 file is untouched");
	r = hw_msr_write(m, 0, 0x10, 42);
	is_int(r, 0, "overwrite 0x10 on cpu 0");
	is_u64(peek(0, 0x10), 42, "cpu 0 file holds the new 0x10");
	is_u64(peek(0, 0x611), 0xdeadbeefull, "neighbouring MSR unchanged");
	r = hw_msr_read(m, 1, 0x700, &v);
	is_u64(v, 0x8877665544332211ull, "written value reads back (r=%d)", r);

	/* Changes to the file after it was opened are seen (no caching). */
	poke(1, 0xe01, 0x5a5a);
	r = hw_msr_read(m, 1, 0xe01, &v);
	is_u64(v, 0x5a5a, "reads go to the file every time (r=%d)", r);

	/* A CPU without a file: no msr driver, or no such CPU. */
	r = hw_msr_read(m, 7, 0xe01, &v);
	is_int(r, -ENOENT, "missing cpu 7 file is -ENOENT");
	like(hw_last_error(), "modprobe msr", "message: load the driver");
	like(hw_last_error(), "cpu 7", "message names the cpu");
	like(hw_last_error(), "0xe01", "message names the register");
	r = hw_msr_write(m, 7, 0xe01, 1);
	is_int(r, -ENOENT, "write to missing cpu 7 is -ENOENT");

	/* A file that appears later is picked up (open failures not cached). */
	make_cpu(7, 0600);
	poke(7, 0xe01, 77);
	r = hw_msr_read(m, 7, 0xe01, &v);
	is_int(r, 0, "cpu 7 readable once its file exists");
	is_u64(v, 77, "cpu 7 value");

	/* Past EOF: the driver's answer for an unimplemented MSR is EIO. */
	set_size(1, 0x1000);
	r = hw_msr_read(m, 1, 0x2000, &v);
	is_int(r, -EIO, "read past EOF is -EIO");
	like(hw_last_error(), "does not implement", "message: not implemented");
	like(hw_last_error(), "0x2000 on cpu 1", "message names msr and cpu");
	/* A short (4 of 8 bytes) read is also EIO, not a half value. */
	r = hw_msr_read(m, 1, 0xffc, &v);
	is_int(r, -EIO, "short read is -EIO");

	r = hw_msr_read(m, 1000000, 0x10, &v);
	is_int(r, -EINVAL, "absurd cpu number is -EINVAL");

	hw_msr_close(m);
}

/* Checks the path format is validated rather than passed to printf. */
static void test_formats(void)
{
	struct hw_msr *m = (struct hw_msr *)1;
	uint64_t v = 0;
	char pct[160];
	int r;

	r = hw_msr_open(&m, "/dev/cpu/msr");
	is_int(r, -EINVAL, "format without %%u is -EINVAL");
	ok(m == NULL, "*out is NULL on failure");
	like(hw_last_error(), "%u", "message shows the expected %%u");
	r = hw_msr_open(&m, "/dev/cpu/%s/msr");
	is_int(r, -EINVAL, "format with %%s is -EINVAL");
	r = hw_msr_open(&m, "/dev/cpu/%u/%u");
	is_int(r, -EINVAL, "format with two %%u is -EINVAL");
	r = hw_msr_open(&m, "/dev/cpu/%u/msr%");
	is_int(r, -EINVAL, "format with a trailing %% is -EINVAL");

	r = hw_msr_open(&m, NULL);
	is_int(r, 0, "NULL format means the default and opens lazily");
	hw_msr_close(m);

	/* "%%" is a literal percent sign, as in printf. */
	snprintf(pct, sizeof(pct), "%s/pct%%", dir);
	if (mkdir(pct, 0755) == 0 || errno == EEXIST) {
		char file[200];
		int fd;

		snprintf(file, sizeof(file), "%s/pct%%/3", dir);
		fd = open(file, O_RDWR | O_CREAT, 0600);
		v = 0x33;
		if (fd >= 0 && pwrite(fd, &v, 8, 0x18) != 8)
			perror(file);
		if (fd >= 0)
			close(fd);
	}
	snprintf(pct, sizeof(pct), "%s/pct%%%%/%%u", dir);
	r = hw_msr_open(&m, pct);
	is_int(r, 0, "format with %%%% opens");
	if (r == 0) {
		v = 0;
		r = hw_msr_read(m, 3, 0x18, &v);
		is_u64(v, 0x33, "%%%% maps to a literal %% (r=%d)", r);
		hw_msr_close(m);
	}
}

/* What an unprivileged attempt produced; sent from the child. */
struct unpriv_result {
	int skip;		/* could not drop privileges */
	int r_read, r_write;
	uint64_t v;
	char msg_read[256], msg_write[256];
};

/* Opens fmt, reads and writes msr on cpu, recording the results. */
static void try_access(unsigned cpu, uint32_t msr, struct unpriv_result *res)
{
	struct hw_msr *m;

	res->r_read = hw_msr_open(&m, fmt);
	if (res->r_read)
		return;
	res->r_read = hw_msr_read(m, cpu, msr, &res->v);
	snprintf(res->msg_read, sizeof(res->msg_read), "%s", hw_last_error());
	res->r_write = hw_msr_write(m, cpu, msr, 0x1234);
	snprintf(res->msg_write, sizeof(res->msg_write), "%s",
		 hw_last_error());
	hw_msr_close(m);
}

/*
 * Runs try_access() without privileges: in a child that becomes nobody if
 * we are root, else right here.
 */
static void unpriv_access(unsigned cpu, uint32_t msr,
			  struct unpriv_result *res)
{
	int pfd[2], status;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (geteuid() != 0) {
		try_access(cpu, msr, res);
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
			try_access(cpu, msr, res);
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

	/* Directories must be searchable by the unprivileged child. */
	if (chmod(dir, 0755)) {
		perror(dir);
		exit(2);
	}

	/* Mode 0000: neither read-write nor read-only open is allowed. */
	make_cpu(4, 0000);
	unpriv_access(4, 0x10, &res);
	if (res.skip) {
		for (int i = 0; i < 2; i++)
			ok(1, "EACCES check # SKIP cannot drop privileges");
	} else {
		is_int(res.r_read, -EACCES, "unprivileged open of a 0000 file "
		       "is -EACCES");
		like(res.msg_read, "CAP_SYS_RAWIO", "message says what "
		     "privilege is needed");
	}

	/* Mode 0444: read-write is refused, read-only works: reads succeed
	 * and writes are -EPERM with an explanation. */
	make_cpu(5, 0644);
	poke(5, 0x10, 0xabcdef);
	set_mode(5, 0444);
	unpriv_access(5, 0x10, &res);
	if (res.skip) {
		for (int i = 0; i < 4; i++)
			ok(1, "read-only fallback # SKIP cannot drop "
			   "privileges");
	} else {
		is_int(res.r_read, 0, "read-only fallback: read works");
		is_u64(res.v, 0xabcdef, "read-only fallback: value");
		is_int(res.r_write, -EPERM, "write through read-only file is "
		       "-EPERM");
		like(res.msg_write, "read-only", "message says it is open "
		     "read-only");
	}
	is_u64(peek(5, 0x10), 0xabcdef, "the file was not written");
}

/* Several threads opening and reading CPUs at once (for ASan/TSan). */
struct thr_arg {
	struct hw_msr *m;
	int bad;
};

static void *reader(void *p)
{
	struct thr_arg *a = p;
	uint64_t v;
	int i;

	for (i = 0; i < 2000; i++) {
		unsigned cpu = 10 + (unsigned)(i % 4);

		if (hw_msr_read(a->m, cpu, 0x10, &v) || v != 0x1000 + cpu)
			a->bad++;
	}
	return NULL;
}

static void test_threads(void)
{
	struct thr_arg a[4];
	pthread_t t[4];
	struct hw_msr *m;
	unsigned i;
	int bad = 0;

	for (i = 10; i < 14; i++) {
		make_cpu(i, 0600);
		poke(i, 0x10, 0x1000 + i);
	}
	if (hw_msr_open(&m, fmt)) {
		ok(0, "open for thread test: %s", hw_last_error());
		return;
	}
	for (i = 0; i < 4; i++) {
		a[i] = (struct thr_arg){ .m = m };
		pthread_create(&t[i], NULL, reader, &a[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		bad += a[i].bad;
	}
	is_int(bad, 0, "4 threads x 2000 reads over 4 lazily opened cpus");
	hw_msr_close(m);
}

/* Removes everything test files created under dir. */
static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", dir);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_hw_msr.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(fmt, sizeof(fmt), "%s/cpu%%u/msr", dir);

	test_read_write();
	test_formats();
	test_permissions();
	test_threads();
	cleanup();
	return tap_done();
}
