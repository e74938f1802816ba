/*
 * test_perf_event.c - unit tests for perf event groups and the privilege
 * check (src/hw/perf_event.c) against a fake kernel behind struct pev_ops.
 *
 * The fake records every attr, fd and ioctl, and builds the group
 * record a read(2) returns (perf_event_open(2), "Reading results":
 * nr, time_enabled, time_running, {value, id}[nr]) from the events it
 * opened, in REVERSE order, so only a reader that maps values by id gets
 * them right.  Faults are switched on one at a time: a short read, a
 * wrong or repeated id, a count mismatch, EINTR, ENODEV, ENOSPC, end of
 * file, a refused open or ioctl.  pev_access() is checked on procfs trees
 * the test writes (perf_event_paranoid, cap_last_cap, self/status).
 */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw/hw.h"
#include "hw/perf_event.h"
#include "tests/tap.h"

#define NFAKE 16

struct fake_ev {
	struct perf_event_attr attr;
	int pid, cpu, group_fd, fd;
	unsigned long flags;
	uint64_t value;
	bool open;
};

struct fake {
	struct fake_ev ev[NFAKE];
	unsigned nev;
	/* faults */
	int open_fail_at, open_err;	/* the open_fail_at-th open (1-based) */
	unsigned long ioctl_fail_req;
	int ioctl_err;
	int eintr;			/* reads answered -EINTR first */
	long read_err;			/* read returns this (<= 0) */
	bool read_eof;
	size_t cut;			/* bytes cut off the record */
	bool wrong_id, dup_id, extra, run_gt_en;
	/* what happened */
	unsigned long ioctls[32][3];	/* fd, req, arg */
	unsigned nioctl, nread, nclose;
	int closed[NFAKE];
	uint64_t enabled, running;
};

static uint64_t fake_id(int fd)
{
	return 1000 + 7 * (uint64_t)fd;
}

static int f_open(void *ctx, struct perf_event_attr *attr, int pid, int cpu,
		  int group_fd, unsigned long flags)
{
	struct fake *f = ctx;
	struct fake_ev *e;

	if (f->open_fail_at && (int)f->nev + 1 == f->open_fail_at)
		return -f->open_err;
	e = &f->ev[f->nev];
	*e = (struct fake_ev){ .attr = *attr, .pid = pid, .cpu = cpu,
			       .group_fd = group_fd, .flags = flags,
			       .fd = 10 + (int)f->nev, .open = true,
			       .value = 100 * (f->nev + 1) };
	f->nev++;
	return e->fd;
}

static struct fake_ev *by_fd(struct fake *f, int fd)
{
	for (unsigned i = 0; i < f->nev; i++)
		if (f->ev[i].fd == fd)
			return &f->ev[i];
	return NULL;
}

static int f_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
	struct fake *f = ctx;

	if (f->nioctl < 32) {
		f->ioctls[f->nioctl][0] = (unsigned long)fd;
		f->ioctls[f->nioctl][1] = req;
		f->ioctls[f->nioctl][2] = arg;
	}
	f->nioctl++;
	if (f->ioctl_fail_req == req)
		return -f->ioctl_err;
	if (!by_fd(f, fd))
		return -EBADF;
	if (req == PERF_EVENT_IOC_ID)
		*(uint64_t *)arg = fake_id(fd);
	return 0;
}

/* The group record of the events in reverse order, with the faults. */
static long f_read(void *ctx, int fd, void *buf, size_t len)
{
	struct fake *f = ctx;
	uint64_t rec[3 + 2 * (NFAKE + 1)];
	unsigned n = f->nev, k = 3;
	size_t bytes;

	f->nread++;
	if (f->eintr > 0 && f->eintr--)
		return -EINTR;
	if (f->read_err)
		return f->read_err;
	if (f->read_eof || fd != f->ev[0].fd)
		return 0;
	rec[0] = n + f->extra;
	rec[1] = f->enabled;
	rec[2] = f->run_gt_en ? f->enabled + 1 : f->running;
	for (unsigned i = n; i-- > 0;) {
		rec[k++] = f->ev[i].value;
		rec[k++] = fake_id(f->ev[i].fd);
	}
	if (f->extra) {
		rec[k++] = 5;
		rec[k++] = 4242;
	}
	if (f->wrong_id)
		rec[4] = 999;
	if (f->dup_id)
		rec[4] = rec[6];
	bytes = k * sizeof(uint64_t) - f->cut;
	if (bytes > len)
		return -ENOSPC;
	memcpy(buf, rec, bytes);
	return (long)bytes;
}

static int f_close(void *ctx, int fd)
{
	struct fake *f = ctx;
	struct fake_ev *e = by_fd(f, fd);

	if (!e || !e->open)
		return -EBADF;
	e->open = false;
	if (f->nclose < NFAKE)
		f->closed[f->nclose] = fd;
	f->nclose++;
	return 0;
}

static const struct pev_ops fake_ops = {
	.name = "fake", .open = f_open, .read = f_read, .ioctl = f_ioctl,
	.close = f_close,
};

static const uint64_t cfg3[3][3] = {
	{ 0x0304, 0, 0 }, { 0x0c04, 0x11, 0 }, { 0xff, 0, 0x22 },
};

static struct pev_group *open3(struct fake *f)
{
	struct pev_group *g = NULL;
	int r = pev_group_open(&fake_ops, f, 15, 28, cfg3, 3, &g);

	if (r)
		printf("#   open: %d %s\n", r, hw_last_error());
	return g;
}

static void test_open(void)
{
	struct fake f = { .enabled = 5000, .running = 5000 };
	struct pev_group *g = open3(&f);
	struct pev_stats st;
	bool attrs_ok = true;

	if (!ok(g, "a group of 3 opens"))
		return;
	is_int(f.nev, 3, "three perf_event_open calls");
	for (unsigned i = 0; i < 3; i++) {
		const struct perf_event_attr *a = &f.ev[i].attr;

		attrs_ok &= a->size == sizeof(*a) && a->type == 15 &&
			    a->config == cfg3[i][0] && a->config1 == cfg3[i][1] &&
			    a->config2 == cfg3[i][2] && a->sample_period == 0 &&
			    a->sample_type == 0 && !a->exclude_kernel &&
			    !a->exclude_user && !a->exclude_hv &&
			    !a->exclude_idle && !a->inherit &&
			    a->read_format == (PERF_FORMAT_GROUP | PERF_FORMAT_ID |
					       PERF_FORMAT_TOTAL_TIME_ENABLED |
					       PERF_FORMAT_TOTAL_TIME_RUNNING) &&
			    a->disabled == (i == 0) && f.ev[i].pid == -1 &&
			    f.ev[i].cpu == 28 &&
			    f.ev[i].flags == PERF_FLAG_FD_CLOEXEC &&
			    f.ev[i].group_fd == (i ? f.ev[0].fd : -1);
	}
	ok(attrs_ok, "attrs: type, config words, read_format, leader alone "
	   "disabled, pid -1, the cpu, group fd, CLOEXEC, no sampling or "
	   "exclude bits");
	is_int(f.nioctl, 4, "four ioctls: an id per event, one enable");
	ok(f.ioctls[0][1] == PERF_EVENT_IOC_ID &&
	   f.ioctls[2][1] == PERF_EVENT_IOC_ID && f.ioctls[2][0] == 12,
	   "PERF_EVENT_IOC_ID on each event");
	ok(f.ioctls[3][0] == 10 && f.ioctls[3][1] == PERF_EVENT_IOC_ENABLE &&
	   f.ioctls[3][2] == PERF_IOC_FLAG_GROUP,
	   "then ENABLE with PERF_IOC_FLAG_GROUP on the leader, last");
	pev_group_stats(g, &st);
	is_int(st.syscalls, 7, "7 system calls to open a group of 3");
	is_int(pev_group_n(g), 3, "pev_group_n");
	is_int(pev_group_type(g), 15, "pev_group_type");
	is_int(pev_group_cpu(g), 28, "pev_group_cpu");
	pev_group_close(g);
	is_int(f.nclose, 3, "close closes all three");
	ok(f.closed[0] == 12 && f.closed[1] == 11 && f.closed[2] == 10,
	   "members first, the leader last");
}

static void test_read(void)
{
	struct fake f = { .enabled = 5000, .running = 4000 };
	struct pev_group *g = open3(&f);
	uint64_t v[3] = { 0 }, en = 0, run = 0;
	struct pev_stats st;

	if (!ok(g, "group for reading"))
		return;
	is_int(pev_group_read(g, v, &en, &run), 0, "read: 0");
	ok(v[0] == 100 && v[1] == 200 && v[2] == 300,
	   "values in event order though the record lists them reversed");
	ok(en == 5000 && run == 4000, "enabled and running times");
	pev_group_stats(g, &st);
	is_int(st.reads, 1, "exactly one read(2)");
	is_int(st.syscalls, 8, "7 to open + 1 per read");
	f.ev[1].value = 777;
	is_int(pev_group_read(g, v, NULL, NULL), 0, "read without times");
	is_int(v[1], 777, "the new value");
	f.eintr = 3;
	is_int(pev_group_read(g, v, &en, NULL), 0, "EINTR x3, then a read: 0");
	pev_group_stats(g, &st);
	is_int(st.reads, 6, "EINTR retried: 4 reads for that one");
	is_int(st.errors, 0, "no errors counted");
	pev_group_close(g);
}

/* One fault: the read fails with err, message like what, and neither
 * values nor times are written. */
static void read_fault(struct fake *f, int err, const char *what,
		       const char *desc)
{
	struct pev_group *g = open3(f);
	uint64_t v[3] = { 1, 2, 3 }, en = 9, run = 9;
	struct pev_stats st;

	if (!ok(g, "%s: group opens", desc))
		return;
	is_int(pev_group_read(g, v, &en, &run), err, "%s: %d", desc, err);
	like(hw_last_error(), what, "%s: says %s", desc, what);
	printf("#   %s\n", hw_last_error());
	ok(v[0] == 1 && v[1] == 2 && v[2] == 3 && en == 9 && run == 9,
	   "%s: no value written", desc);
	pev_group_stats(g, &st);
	is_int(st.errors, 1, "%s: counted as an error", desc);
	pev_group_close(g);
}

static void test_read_faults(void)
{
	struct fake f;

	f = (struct fake){ .enabled = 10, .cut = 8 };
	read_fault(&f, -EIO, "read 64 bytes of a 72-byte group record",
		   "short read");
	f = (struct fake){ .enabled = 10, .wrong_id = true };
	read_fault(&f, -EPROTO, "id 999 that no event of the group has",
		   "unknown id");
	f = (struct fake){ .enabled = 10, .dup_id = true };
	read_fault(&f, -EPROTO, "twice", "repeated id");
	f = (struct fake){ .enabled = 10, .extra = true };
	read_fault(&f, -EPROTO, "reports 4 events in a group of 3",
		   "count mismatch");
	f = (struct fake){ .enabled = 10, .run_gt_en = true };
	read_fault(&f, -EPROTO, "exceeds enabled", "running > enabled");
	f = (struct fake){ .read_eof = true };
	read_fault(&f, -EIO, "error state", "end of file");
	f = (struct fake){ .read_err = -ENODEV };
	read_fault(&f, -ENODEV, "the PMU is gone", "ENODEV");
	f = (struct fake){ .read_err = -ENOSPC };
	read_fault(&f, -ENOSPC, "No space", "ENOSPC");
	f = (struct fake){ .eintr = 1000 };
	read_fault(&f, -EINTR, "interrupted 17 times", "EINTR forever");
	is_int(f.nread, 17, "EINTR: 1 read + 16 retries, then it gives up");
}

/* Opening fails: err returned, message like what, every fd closed. */
static void open_fault(struct fake *f, int err, const char *what,
		       const char *desc)
{
	struct pev_group *g = (struct pev_group *)1;
	unsigned still = 0;

	is_int(pev_group_open(&fake_ops, f, 15, 28, cfg3, 3, &g), err,
	       "%s: %d", desc, err);
	ok(!g, "%s: no group", desc);
	like(hw_last_error(), what, "%s: says %s", desc, what);
	printf("#   %s\n", hw_last_error());
	for (unsigned i = 0; i < f->nev; i++)
		still += f->ev[i].open;
	is_int(still, 0, "%s: every opened fd closed again", desc);
}

static void test_open_faults(void)
{
	struct fake f;
	struct pev_group *g = NULL;

	f = (struct fake){ .open_fail_at = 3, .open_err = EINVAL };
	open_fault(&f, -EINVAL, "event 3 of 3", "member refused");
	like(hw_last_error(), "larger than the box's counters",
	     "member refused: says why a member is refused");
	like(hw_last_error(), "config 0xff config1 0x0 config2 0x22 on cpu 28",
	     "member refused: names the encoding and cpu");
	f = (struct fake){ .open_fail_at = 1, .open_err = EACCES };
	open_fault(&f, -EACCES, "CAP_PERFMON", "leader EACCES");
	like(hw_last_error(), "kernel.perf_event_paranoid=0",
	     "leader EACCES: says what to do");
	f = (struct fake){ .open_fail_at = 1, .open_err = ENOENT };
	open_fault(&f, -ENOENT, "driver loaded", "no such PMU type");
	f = (struct fake){ .ioctl_fail_req = PERF_EVENT_IOC_ID,
			   .ioctl_err = ENOTTY };
	open_fault(&f, -ENOTTY, "PERF_EVENT_IOC_ID", "id ioctl refused");
	f = (struct fake){ .ioctl_fail_req = PERF_EVENT_IOC_ENABLE,
			   .ioctl_err = EIO };
	open_fault(&f, -EIO, "enabling the group", "enable refused");

	f = (struct fake){ 0 };
	is_int(pev_group_open(&fake_ops, &f, 15, 0, cfg3, 0, &g), -EINVAL,
	       "a group of 0 events: -EINVAL");
	is_int(pev_group_open(&fake_ops, &f, 15, 0, cfg3, PEV_MAX_EVENTS + 1,
			      &g), -EINVAL, "a group beyond PEV_MAX_EVENTS");
	is_int(pev_group_open(&fake_ops, &f, 15, -1, cfg3, 1, &g), -EINVAL,
	       "cpu -1 (a per-task event): -EINVAL");
	is_int(f.nev, 0, "nothing opened for those");
}

/* ---- privilege ----------------------------------------------------------- */

static char proc[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", proc, rel);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static void procfs(const char *paranoid, const char *last, uint64_t capeff)
{
	char status[256];

	snprintf(status, sizeof(status), "Name:\tuncored\nUmask:\t0022\n"
		 "CapInh:\t0000000000000000\nCapPrm:\t%016llx\n"
		 "CapEff:\t%016llx\nCapBnd:\t000001ffffffffff\n",
		 (unsigned long long)capeff, (unsigned long long)capeff);
	put("self/status", status);
	put("sys/kernel/perf_event_paranoid", paranoid);
	put("sys/kernel/cap_last_cap", last);
}

static void access_is(int want, const char *what, const char *desc)
{
	char why[1024] = "";

	is_int(pev_access(proc, why, sizeof(why)), want, "%s: %d", desc, want);
	like(why, what, "%s: says %s", desc, what);
	printf("#   %s\n", why);
}

static void test_access(void)
{
	char path[128];
	struct pev_priv st;
	char why[512];

	snprintf(proc, sizeof(proc), "/tmp/test_perf_event.XXXXXX");
	if (!mkdtemp(proc))
		exit(2);
	snprintf(path, sizeof(path), "%s/self", proc);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys", proc);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/kernel", proc);
	mkdir(path, 0755);

	procfs("2\n", "40\n", 0);
	access_is(-EACCES, "kernel.perf_event_paranoid is 2", "paranoid 2, no caps");
	access_is(-EACCES, "neither CAP_PERFMON nor CAP_SYS_ADMIN",
		  "paranoid 2, no caps");
	access_is(-EACCES, "sysctl kernel.perf_event_paranoid=0",
		  "paranoid 2, no caps");
	procfs("0\n", "40\n", 0);
	access_is(0, "is 0 (<= 0", "paranoid 0, no caps");
	procfs("-1\n", "40\n", 0);
	access_is(0, "is -1 (<= 0", "paranoid -1, no caps");
	procfs("2\n", "40\n", 1ull << 38);
	access_is(0, "CAP_PERFMON", "paranoid 2, CAP_PERFMON");
	procfs("2\n", "37\n", 1ull << 38);
	access_is(-EACCES, "predates it", "CAP_PERFMON on a kernel before 5.8");
	procfs("1\n", "40\n", 1ull << 38);
	access_is(0, "CAP_PERFMON", "paranoid 1, CAP_PERFMON");
	/* Debian's and Ubuntu's level 3 and more: CAP_SYS_ADMIN alone */
	procfs("3\n", "40\n", 1ull << 38);
	access_is(-EACCES, "only CAP_SYS_ADMIN", "paranoid 3, CAP_PERFMON");
	access_is(-EACCES, "kernel.perf_event_paranoid=2` and grant "
		  "CAP_PERFMON", "paranoid 3, CAP_PERFMON");
	procfs("4\n", "40\n", 0);
	access_is(-EACCES, "is 4", "paranoid 4, no caps");
	procfs("4\n", "37\n", 1ull << 21);
	access_is(0, "CAP_SYS_ADMIN", "paranoid 4, CAP_SYS_ADMIN");
	is_int(pev_priv_read(proc, &st, why, sizeof(why)), 0, "pev_priv_read");
	ok(st.paranoid == 4 && !st.knows_perfmon && !st.cap_perfmon &&
	   st.cap_sys_admin, "its fields");
	procfs("x\n", "40\n", 0);
	access_is(-EINVAL, "perf_event_paranoid: \"x", "malformed paranoid");
	put("self/status", "Name:\tuncored\n");
	put("sys/kernel/perf_event_paranoid", "1\n");
	access_is(-EINVAL, "no CapEff line", "status without CapEff");
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid", proc);
	unlink(path);
	access_is(-ENOENT, "no perf events", "no perf_event_paranoid");
	snprintf(path, sizeof(path), "rm -rf '%s'", proc);
	if (system(path) != 0)
		exit(2);
}

int main(void)
{
	test_open();
	test_read();
	test_read_faults();
	test_open_faults();
	test_access();
	return tap_done();
}
