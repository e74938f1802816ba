/*
 * perf_event.c - event groups through perf_event_open(2), read with one
 * read(2) each, and the privilege check the daemon makes before.
 *
 * A group's read(2) returns, with read_format GROUP | ID |
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING (perf_event_open(2), "Reading
 * results"; include/uapi/linux/perf_event.h):
 *
 *	u64 nr;				events in the group
 *	u64 time_enabled, time_running;	ns
 *	{ u64 value, id; } cnt[nr];
 *
 * The ids are matched to the ids PERF_EVENT_IOC_ID returned at open, so
 * a value is never taken by position alone.  A group is used by one
 * thread at a time (the sampler's); its counters are plain.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hw/hw.h"
#include "hw/perf_event.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38		/* linux/capability.h, Linux 5.8 */
#endif
#define CAP_SYS_ADMIN_BIT 21	/* linux/capability.h */
/* read(2) retries on EINTR before the read is given up. */
#define PEV_EINTR_RETRIES 16
#define PEV_READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_ID | \
			 PERF_FORMAT_TOTAL_TIME_ENABLED | \
			 PERF_FORMAT_TOTAL_TIME_RUNNING)

struct pev_group {
	const struct pev_ops *ops;
	void *ctx;
	uint32_t type;
	int cpu;
	unsigned n;
	int fd[PEV_MAX_EVENTS];		/* -1: not open */
	uint64_t cfg[PEV_MAX_EVENTS][3];
	uint64_t id[PEV_MAX_EVENTS];
	/* nr, enabled, running, n x {value, id}, and room for one more
	 * pair so a group the kernel reports larger is told apart from a
	 * short read */
	uint64_t buf[3 + 2 * (PEV_MAX_EVENTS + 1)];
	struct pev_stats st;
};

/* ---- the real system calls ---------------------------------------------- */

static int sys_open(void *ctx, struct perf_event_attr *attr, int pid, int cpu,
		    int group_fd, unsigned long flags)
{
	long fd;

	(void)ctx;
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
	return fd < 0 ? -errno : (int)fd;
}

static long sys_read(void *ctx, int fd, void *buf, size_t len)
{
	ssize_t r;

	(void)ctx;
	r = read(fd, buf, len);
	return r < 0 ? -errno : (long)r;
}

static int sys_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
	(void)ctx;
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

static int sys_close(void *ctx, int fd)
{
	(void)ctx;
	return close(fd) < 0 ? -errno : 0;
}

const struct pev_ops pev_sys_ops = {
	.name = "perf_event_open",
	.open = sys_open,
	.read = sys_read,
	.ioctl = sys_ioctl,
	.close = sys_close,
};

/* ---- opening ------------------------------------------------------------ */

/* What to do about the kernel's refusal err of an open. */
static const char *open_hint(int err, unsigned i)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return "not allowed to count system-wide: grant CAP_PERFMON "
		       "(CAP_SYS_ADMIN before Linux 5.8, or where Debian's "
		       "and Ubuntu's perf_event_paranoid >= 3) or set "
		       "kernel.perf_event_paranoid=0";
	case EINVAL:
		return i ? "the kernel refused this member: a group larger "
			   "than the box's counters, or an encoding the PMU "
			   "rejects"
			 : "the PMU rejects the encoding, or the CPU is none "
			   "its cpumask names (or no CPU at all)";
	case ENOENT:
		return "no PMU of this type: is its driver loaded?";
	case ENODEV:
		return "the CPU is offline or the PMU is gone";
	case EBUSY:
		return "the counters are busy: another agent holds them";
	case EMFILE:
	case ENFILE:
		return "out of file descriptors: raise the open-files limit";
	case EOPNOTSUPP:
		return "the PMU does not support this kind of event";
	default:
		return "the kernel refused it";
	}
}

static int group_call_ioctl(struct pev_group *g, int fd, unsigned long req,
			    unsigned long arg)
{
	g->st.syscalls++;
	return g->ops->ioctl(g->ctx, fd, req, arg);
}

/* Opens event i of g; the leader (i = 0) disabled. */
static int open_one(struct pev_group *g, unsigned i)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = g->type;
	attr.config = g->cfg[i][0];
	attr.config1 = g->cfg[i][1];
	attr.config2 = g->cfg[i][2];
	attr.read_format = PEV_READ_FORMAT;
	attr.disabled = i == 0;
	g->st.syscalls++;
	fd = g->ops->open(g->ctx, &attr, -1, g->cpu, i ? g->fd[0] : -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return hw_fail(-fd, "%s: perf type %" PRIu32 " config 0x%"
			       PRIx64 " config1 0x%" PRIx64 " config2 0x%"
			       PRIx64 " on cpu %d (event %u of %u): %s: %s",
			       g->ops->name, g->type, g->cfg[i][0],
			       g->cfg[i][1], g->cfg[i][2], g->cpu, i + 1,
			       g->n, strerror(-fd), open_hint(-fd, i));
	g->fd[i] = fd;
	return 0;
}

/* The id the kernel gave event i (PERF_EVENT_IOC_ID), distinct from
 * every earlier one. */
static int take_id(struct pev_group *g, unsigned i)
{
	int r = group_call_ioctl(g, g->fd[i], PERF_EVENT_IOC_ID,
				 (unsigned long)&g->id[i]);

	if (r < 0)
		return hw_fail(-r, "%s: PERF_EVENT_IOC_ID of event %u of %u "
			       "(perf type %" PRIu32 ", cpu %d): %s",
			       g->ops->name, i + 1, g->n, g->type, g->cpu,
			       strerror(-r));
	for (unsigned k = 0; k < i; k++)
		if (g->id[k] == g->id[i])
			return hw_fail(EPROTO, "%s: events %u and %u of a group "
				       "got the same id %" PRIu64,
				       g->ops->name, k + 1, i + 1, g->id[i]);
	return 0;
}

static int group_start(struct pev_group *g)
{
	int r;

	for (unsigned i = 0; i < g->n; i++) {
		r = open_one(g, i);
		if (r)
			return r;
	}
	for (unsigned i = 0; i < g->n; i++) {
		r = take_id(g, i);
		if (r)
			return r;
	}
	r = group_call_ioctl(g, g->fd[0], PERF_EVENT_IOC_ENABLE,
			     PERF_IOC_FLAG_GROUP);
	if (r < 0)
		return hw_fail(-r, "%s: enabling the group (perf type %" PRIu32
			       ", cpu %d, %u events): %s", g->ops->name,
			       g->type, g->cpu, g->n, strerror(-r));
	return 0;
}

int pev_group_open(const struct pev_ops *ops, void *ctx, uint32_t type,
		   int cpu, const uint64_t (*cfg)[3], unsigned n,
		   struct pev_group **out)
{
	struct pev_group *g;
	int r;

	*out = NULL;
	if (n < 1 || n > PEV_MAX_EVENTS || cpu < 0)
		return hw_fail(EINVAL, "a perf group is 1 to %u events on one "
			       "CPU, not %u on cpu %d", PEV_MAX_EVENTS, n, cpu);
	g = calloc(1, sizeof(*g));
	if (!g)
		return hw_fail(ENOMEM, "out of memory");
	*g = (struct pev_group){ .ops = ops, .ctx = ctx, .type = type,
				 .cpu = cpu, .n = n };
	for (unsigned i = 0; i < PEV_MAX_EVENTS; i++)
		g->fd[i] = -1;
	memcpy(g->cfg, cfg, n * sizeof(*cfg));
	r = group_start(g);
	if (r) {
		char msg[512];

		/* closing must not replace the message */
		snprintf(msg, sizeof(msg), "%s", hw_last_error());
		pev_group_close(g);
		return hw_fail(-r, "%s", msg);
	}
	*out = g;
	return 0;
}

/* ---- reading ------------------------------------------------------------ */

/* One read(2) of the group into g->buf, EINTR retried.  Bytes or -errno
 * (message set). */
static long read_once(struct pev_group *g)
{
	size_t want = (3 + 2 * ((size_t)g->n + 1)) * sizeof(uint64_t);
	unsigned tries = 0;
	long r;

	do {
		g->st.syscalls++;
		g->st.reads++;
		r = g->ops->read(g->ctx, g->fd[0], g->buf, want);
	} while (r == -EINTR && ++tries <= PEV_EINTR_RETRIES);
	if (r >= 0)
		return r;
	if (r == -ENODEV)
		return hw_fail(ENODEV, "%s: reading perf type %" PRIu32 " on "
			       "cpu %d: the PMU is gone (driver unloaded?)",
			       g->ops->name, g->type, g->cpu);
	if (r == -EINTR)
		return hw_fail(EINTR, "%s: reading perf type %" PRIu32 " on cpu "
			       "%d: interrupted %u times in a row",
			       g->ops->name, g->type, g->cpu, tries);
	return hw_fail((int)-r, "%s: reading perf type %" PRIu32 " on cpu "
		       "%d (%u events): %s", g->ops->name, g->type, g->cpu,
		       g->n, strerror((int)-r));
}

/* Checks g->buf's r bytes: size, event count, times.  0 or -errno. */
static int check_read(struct pev_group *g, long r)
{
	size_t want = (3 + 2 * (size_t)g->n) * sizeof(uint64_t);

	if (r == 0)
		return hw_fail(EIO, "%s: perf type %" PRIu32 " on cpu %d: end of "
			       "file: the kernel put the group in error state "
			       "(it could not be scheduled, or its CPU went "
			       "offline)", g->ops->name, g->type, g->cpu);
	if ((size_t)r >= sizeof(uint64_t) && g->buf[0] != g->n)
		return hw_fail(EPROTO, "%s: perf type %" PRIu32 " on cpu %d: the "
			       "kernel reports %" PRIu64 " events in a group of "
			       "%u", g->ops->name, g->type, g->cpu, g->buf[0],
			       g->n);
	if ((size_t)r != want)
		return hw_fail(EIO, "%s: perf type %" PRIu32 " on cpu %d: read "
			       "%ld bytes of a %zu-byte group record",
			       g->ops->name, g->type, g->cpu, r, want);
	if (g->buf[2] > g->buf[1])
		return hw_fail(EPROTO, "%s: perf type %" PRIu32 " on cpu %d: "
			       "running time %" PRIu64 " ns exceeds enabled "
			       "time %" PRIu64 " ns", g->ops->name, g->type,
			       g->cpu, g->buf[2], g->buf[1]);
	return 0;
}

/* g->buf's values into v[] in event order, by id.  0 or -EPROTO. */
static int map_values(struct pev_group *g, uint64_t *v)
{
	uint64_t seen = 0;
	unsigned i, k;

	for (i = 0; i < g->n; i++) {
		uint64_t id = g->buf[3 + 2 * i + 1];

		for (k = 0; k < g->n && g->id[k] != id; k++)
			;
		if (k == g->n || (seen >> k) & 1)
			return hw_fail(EPROTO, "%s: perf type %" PRIu32 " on cpu "
				       "%d: the kernel returned id %" PRIu64
				       " %s", g->ops->name, g->type, g->cpu,
				       id, k == g->n ? "that no event of the "
				       "group has" : "twice");
		seen |= 1ull << k;
		v[k] = g->buf[3 + 2 * i];
	}
	return 0;
}

int pev_group_read(struct pev_group *g, uint64_t *values,
		   uint64_t *enabled_ns, uint64_t *running_ns)
{
	uint64_t v[PEV_MAX_EVENTS];
	long r = read_once(g);

	if (r >= 0)
		r = check_read(g, r);
	if (!r)
		r = map_values(g, v);
	if (r) {
		g->st.errors++;
		return (int)r;
	}
	memcpy(values, v, g->n * sizeof(*v));
	if (enabled_ns)
		*enabled_ns = g->buf[1];
	if (running_ns)
		*running_ns = g->buf[2];
	return 0;
}

unsigned pev_group_n(const struct pev_group *g)
{
	return g->n;
}

uint32_t pev_group_type(const struct pev_group *g)
{
	return g->type;
}

int pev_group_cpu(const struct pev_group *g)
{
	return g->cpu;
}

void pev_group_stats(const struct pev_group *g, struct pev_stats *st)
{
	*st = g->st;
}

void pev_group_close(struct pev_group *g)
{
	if (!g)
		return;
	for (unsigned i = g->n; i-- > 0;)
		if (g->fd[i] >= 0) {
			g->st.syscalls++;
			g->ops->close(g->ctx, g->fd[i]);
		}
	free(g);
}

/* ---- privilege ---------------------------------------------------------- */

__attribute__((format(printf, 4, 5)))
static int fail(int err, char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
		/* one log line: no control character of a file's text */
		for (char *c = why; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
	}
	return -err;
}

/* PROCFS/NAME into buf (len bytes, NUL-terminated).  0 or -errno with
 * why. */
static int read_proc(const char *procfs, const char *name, char *buf,
		     size_t len, char *why, size_t whylen)
{
	char path[4096];
	size_t got = 0;
	ssize_t r;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", procfs, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		return fail(err, why, whylen, "%s: %s", path, strerror(err));
	}
	do {
		r = read(fd, buf + got, len - 1 - got);
		if (r > 0)
			got += (size_t)r;
	} while ((r > 0 && got < len - 1) || (r < 0 && errno == EINTR));
	err = r < 0 ? errno : 0;
	close(fd);
	buf[got] = '\0';
	if (err)
		return fail(err, why, whylen, "%s: %s", path, strerror(err));
	if (got == len - 1)
		return fail(EFBIG, why, whylen, "%s: longer than %zu bytes", path,
			    len - 2);
	return 0;
}

/* PROCFS/NAME: one decimal integer (a sign allowed) and a newline. */
static int read_int(const char *procfs, const char *name, long *v, char *why,
		    size_t whylen)
{
	char buf[64], *end;
	int r = read_proc(procfs, name, buf, sizeof(buf), why, whylen);

	if (r)
		return r;
	errno = 0;
	*v = strtol(buf, &end, 10);
	if (end == buf || errno || (*end && strcmp(end, "\n")) ||
	    buf[0] == ' ' || buf[0] == '\t' || *v < INT_MIN || *v > INT_MAX)
		return fail(EINVAL, why, whylen, "%s/%s: \"%.20s\" is not an "
			    "integer", procfs, name, buf);
	return 0;
}

/* The CapEff line of PROCFS/self/status: the effective capabilities, as
 * capget(2) returns them. */
static int read_capeff(const char *procfs, uint64_t *caps, char *why,
		       size_t whylen)
{
	char *buf = malloc(16384), *line, *end;
	int r;

	if (!buf)
		return fail(ENOMEM, why, whylen, "out of memory");
	r = read_proc(procfs, "self/status", buf, 16384, why, whylen);
	line = r ? NULL : strstr(buf, "\nCapEff:\t");
	if (!r && !line)
		r = fail(EINVAL, why, whylen, "%s/self/status: no CapEff line",
			 procfs);
	if (!r) {
		errno = 0;
		*caps = strtoull(line + 9, &end, 16);
		if (end == line + 9 || errno || (*end != '\n' && *end))
			r = fail(EINVAL, why, whylen, "%s/self/status: CapEff is "
				 "not a hex mask", procfs);
	}
	free(buf);
	return r;
}

int pev_priv_read(const char *procfs_root, struct pev_priv *st, char *why,
		  size_t whylen)
{
	long paranoid, last = -1;
	uint64_t caps = 0;
	int r;

	r = read_int(procfs_root, "sys/kernel/perf_event_paranoid", &paranoid,
		     why, whylen);
	if (r == -ENOENT)
		return fail(ENOENT, why, whylen, "%s/sys/kernel/"
			    "perf_event_paranoid does not exist: this kernel "
			    "has no perf events (CONFIG_PERF_EVENTS)",
			    procfs_root);
	if (r)
		return r;
	r = read_capeff(procfs_root, &caps, why, whylen);
	if (r)
		return r;
	/* unreadable: the kernel is not known to have CAP_PERFMON */
	if (read_int(procfs_root, "sys/kernel/cap_last_cap", &last, NULL, 0))
		last = -1;
	*st = (struct pev_priv){
		.paranoid = (int)paranoid,
		.knows_perfmon = last >= CAP_PERFMON,
		.cap_perfmon = (caps >> CAP_PERFMON) & 1,
		.cap_sys_admin = (caps >> CAP_SYS_ADMIN_BIT) & 1,
	};
	return 0;
}

/* The refusal: what is missing and what to do. */
static int refuse(const struct pev_priv *st, char *why, size_t whylen)
{
	const char *has = st->cap_perfmon
		? "has CAP_PERFMON, but this kernel predates it (cap_last_cap "
		  "< 38, Linux before 5.8) and asks for CAP_SYS_ADMIN, which "
		  "it lacks"
		: "has neither CAP_PERFMON nor CAP_SYS_ADMIN in its effective "
		  "set";

	return fail(EACCES, why, whylen, "counting uncore events system-wide "
		    "is not allowed: kernel.perf_event_paranoid is %d (must be "
		    "<= 0 without a capability) and this process %s. Grant "
		    "CAP_PERFMON (systemd: AmbientCapabilities=CAP_PERFMON; "
		    "containers: --cap-add PERFMON), or CAP_SYS_ADMIN on "
		    "kernels before 5.8, or run `sysctl "
		    "kernel.perf_event_paranoid=0`", st->paranoid, has);
}

/* paranoid >= 3: a level only Debian's and Ubuntu's kernels define, where
 * perf_event_open asks for CAP_SYS_ADMIN alone. */
static int refuse_restricted(const struct pev_priv *st, char *why,
			     size_t whylen)
{
	return fail(EACCES, why, whylen, "perf events are restricted: "
		    "kernel.perf_event_paranoid is %d, and at 3 or more "
		    "Debian's and Ubuntu's kernels let only CAP_SYS_ADMIN use "
		    "perf_event_open (CAP_PERFMON%s is not enough). Run "
		    "`sysctl kernel.perf_event_paranoid=2` and grant "
		    "CAP_PERFMON, or set it to 0 (no capability needed), or "
		    "grant CAP_SYS_ADMIN", st->paranoid,
		    st->cap_perfmon ? ", which this process has," : "");
}

int pev_access(const char *procfs_root, char *why, size_t whylen)
{
	struct pev_priv st;
	int r = pev_priv_read(procfs_root, &st, why, whylen);

	if (r)
		return r;
	if (st.paranoid <= 0)
		return fail(0, why, whylen, "kernel.perf_event_paranoid is %d "
			    "(<= 0: any process may count system-wide)",
			    st.paranoid);
	if (st.cap_sys_admin)
		return fail(0, why, whylen, "CAP_SYS_ADMIN");
	if (st.paranoid >= 3)
		return refuse_restricted(&st, why, whylen);
	if (st.cap_perfmon && st.knows_perfmon)
		return fail(0, why, whylen, "CAP_PERFMON");
	return refuse(&st, why, whylen);
}
