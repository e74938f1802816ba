/*
 * perf_event.h - counting with perf_event_open(2): event groups opened on
 * one CPU, read with one read(2) each, and the privilege check before.
 *
 * The perf backend (doc/design.md section 3, "perf") opens one group per box
 * instance on the CPU its PMU's cpumask names, the way the kernel's uncore
 * drivers require: pid -1, no sampling, no exclude bits, read_format
 * GROUP | ID | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING.  A tick then costs
 * one read(2) per group; values come back in the order the events were
 * given, matched by the ids the kernel assigned (PERF_EVENT_IOC_ID), never
 * by position, and a read that is short, counts a different number of
 * events or names an id not asked for is an error, never a value.
 *
 * The system calls go through struct pev_ops so the simulated kernel can
 * stand in for the real one (pev_sys_ops).  Like the other backends under
 * src/hw/, functions return 0 or -errno and leave what failed, on which
 * PMU type/config/CPU, and what to do in hw_last_error() (hw.h); nothing
 * here logs or exits.  Encoding the events (config words) is
 * perf_sysfs.h's part; which events and PMUs is the platform's.
 */
#ifndef UNCORED_PERF_EVENT_H
#define UNCORED_PERF_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_event_attr;

/*
 * The kernel's perf system calls, or a stand-in.  Each returns >= 0 or
 * -errno and never leaves errno for the caller to read.
 */
struct pev_ops {
	const char *name;
	/* perf_event_open(2): a new fd */
	int (*open)(void *ctx, struct perf_event_attr *attr, int pid, int cpu,
		    int group_fd, unsigned long flags);
	/* read(2): bytes read */
	long (*read)(void *ctx, int fd, void *buf, size_t len);
	/* ioctl(2) with an integer or pointer argument (cast) */
	int (*ioctl)(void *ctx, int fd, unsigned long req, unsigned long arg);
	int (*close)(void *ctx, int fd);
};

/* The real system calls (ctx unused). */
extern const struct pev_ops pev_sys_ops;

/* The most events one group holds: far above any uncore box's counters
 * (the kernel refuses a group larger than the box with EINVAL). */
#define PEV_MAX_EVENTS 64u

struct pev_group;

/* System calls a group has made through its ops, for benchmarks
 * (syscalls per tick = groups: one read each). */
struct pev_stats {
	uint64_t syscalls;	/* every open, ioctl, read and close */
	uint64_t reads;		/* read(2) calls, EINTR retries included */
	uint64_t errors;	/* failed pev_group_read()s */
};

/*
 * Opens n events (1..PEV_MAX_EVENTS) of PMU type as one group on cpu,
 * system-wide (pid -1): cfg[i] = { config, config1, config2 } of event i
 * (pfs_encode), event 0 the leader.  No sampling, no exclude bits,
 * read_format GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING, fds
 * close-on-exec.  The leader is opened disabled, the others enabled (they
 * count when the leader does); each event's id is taken with
 * PERF_EVENT_IOC_ID, then the group is enabled at once
 * (PERF_EVENT_IOC_ENABLE with PERF_IOC_FLAG_GROUP): no member counts
 * before (the kernel schedules a group only with its leader), so every
 * member counts over the same interval from zero.  That is n opens,
 * n ioctls for the ids and one to enable.  Returns 0 and *out (the
 * caller's, pev_group_close), or -errno with hw_last_error() naming the
 * event (type, config, cpu, member i of n), the kernel's answer and what
 * to do (EACCES/EPERM: capability or perf_event_paranoid; EINVAL: group
 * larger than the box's counters or an encoding the PMU refuses;
 * ENOENT/ENODEV: PMU or CPU gone); nothing stays open then.
 */
int pev_group_open(const struct pev_ops *ops, void *ctx, uint32_t type,
		   int cpu, const uint64_t (*cfg)[3], unsigned n,
		   struct pev_group **out);

/*
 * Reads the group with exactly one read(2) (retried on EINTR, at most 16
 * times): values[i] = event i's count since the group was opened,
 * *enabled_ns / *running_ns = the group's total enabled and running time
 * (running < enabled: the kernel multiplexed the group; either pointer
 * may be NULL).  Returns 0, or with nothing written to the outputs:
 * -EIO (short read, or end of file: the event went to error state),
 * -EPROTO (the kernel reported another number of events, an id not
 * opened or twice, or running > enabled), -ENODEV (the PMU is gone,
 * e.g. module unloaded), -ENOSPC, -EINTR (still interrupted after the
 * retries) or another -errno, message in hw_last_error().
 */
int pev_group_read(struct pev_group *g, uint64_t *values,
		   uint64_t *enabled_ns, uint64_t *running_ns);

/* The group's event count, PMU type and CPU, as opened. */
unsigned pev_group_n(const struct pev_group *g);
uint32_t pev_group_type(const struct pev_group *g);
int pev_group_cpu(const struct pev_group *g);
/* Copies g's system-call counts into *st. */
void pev_group_stats(const struct pev_group *g, struct pev_stats *st);

/* Closes every fd of g (members first, then the leader) and frees it.
 * NULL is ignored. */
void pev_group_close(struct pev_group *g);

/*
 * What the kernel will let this process count, read before anything is
 * opened: PROCFS/sys/kernel/perf_event_paranoid, whether the kernel knows
 * CAP_PERFMON (PROCFS/sys/kernel/cap_last_cap >= 38, Linux >= 5.8; an
 * unreadable file counts as no) and the process's effective CAP_PERFMON
 * and CAP_SYS_ADMIN (the CapEff line of PROCFS/self/status, what
 * capget(2) returns: every input then comes from procfs_root, so tests
 * can give any state).
 */
struct pev_priv {
	int paranoid;		/* perf_event_paranoid */
	bool knows_perfmon;	/* the kernel has CAP_PERFMON */
	bool cap_perfmon;	/* effective set holds CAP_PERFMON (38) */
	bool cap_sys_admin;	/* effective set holds CAP_SYS_ADMIN */
};

/* Fills *st.  0, or -errno with why naming the file that could not be
 * read or is malformed (-ENOENT: a kernel without perf events). */
int pev_priv_read(const char *procfs_root, struct pev_priv *st, char *why,
		  size_t whylen);

/*
 * May this process open system-wide (per-CPU) events, as uncore counting
 * needs?  The kernel allows it where perf_event_paranoid <= 0, or to a
 * process with CAP_PERFMON (Linux >= 5.8) or CAP_SYS_ADMIN
 * (perf_event_open(2), "perf_event_paranoid"; kernel/events/core.c
 * perf_allow_cpu()).  At 3 or more, a level Debian's and Ubuntu's kernels
 * add ("disallow all unprivileged perf event use"), perf_event_open asks
 * for CAP_SYS_ADMIN alone; mainline has no such level and treats it as
 * 2, but which kernel this is cannot be told, so CAP_PERFMON is refused
 * there (doc/hardware-notes.md, "perf sysfs interface").  procfs_root is
 * "/proc" but for tests.  Returns 0 with why saying what allows it
 * ("CAP_PERFMON", "CAP_SYS_ADMIN", "kernel.perf_event_paranoid is -1
 * ..."), -EACCES with why saying precisely what is missing and what to do
 * (grant CAP_PERFMON, or CAP_SYS_ADMIN before Linux 5.8, or `sysctl
 * kernel.perf_event_paranoid=0`; at 3 or more, lower it to 2 first), or
 * another -errno from pev_priv_read.
 */
int pev_access(const char *procfs_root, char *why, size_t whylen);

#endif
