/*
 * sim_kernel.h - the simulated kernel: what the perf backend sees of Linux
 * (its uncore PMU drivers, sysfs and perf_event_open(2)), built from the
 * simulator (doc/design.md section 3, "--simulate=P --backend=perf").
 *
 * skern_open() writes a sysfs tree for the simulated machine's platform
 * and workload topology, laid out as the kernel lays it out:
 *
 *   SYSFS/devices/<pmu>/{type,cpumask,perf_event_mux_interval_ms,
 *                        format/<field>,events/<alias>[.scale,.unit]}
 *   SYSFS/bus/event_source/devices/<pmu> -> ../../../devices/<pmu>
 *   SYSFS/devices/system/cpu/{online,cpuN/online,
 *                        cpuN/topology/{physical_package_id,die_id,core_id}}
 *   SYSFS/devices/system/cpu/intel_uncore_frequency/ (sim_ufreq.h; Intel)
 *   SYSFS/devices/system/cpu/cpuN/thermal_throttle/ (sim_throttle.h;
 *                        the workload's "thermal_throttle")
 *   PROCFS/sys/kernel/{perf_event_paranoid,osrelease,cap_last_cap}
 *   PROCFS/self/status (the caller's CapEff: CAP_PERFMON, or
 *                       CAP_SYS_ADMIN before 5.8, when it is capable)
 *
 * for every unit with kernel PMU facts (struct perf_unit, plat.h) and
 * every free-running counter with a kernel event, under the real kernel's
 * PMU names ("uncore_cha_0".."uncore_cha_N-1", one per box; "amd_l3",
 * one PMU whose cpumask names one CPU per L3 complex).  File contents
 * are the kernel's, byte for byte where it matters to a parser: format
 * files end in a newline, Intel event aliases do not
 * (arch/x86/events/intel/uncore.c uncore_event_show(): "%s"), cpumask is
 * a CPU list ("0,8").  SYSFS and PROCFS are separate roots because Linux
 * keeps them apart (/sys, /proc): the daemon takes them as --path.sysfs
 * and its procfs root, and a privilege check (pev_access()) reads the
 * simulated caller's state from PROCFS as it reads the real one's.
 *
 * skern_pev_ops (hw/perf_event.h's struct pev_ops, ctx = the struct
 * skern) is perf_event_open/read/ioctl/close against that tree, counting
 * from the simulator's workload and clock the way hw_sim counts its
 * registers: an event enabled and running for 1 s reads rate x 1 s +- 1.
 * It refuses what the kernel refuses, each rule citing the kernel code it
 * mirrors (sim_kernel.c), so that code which works here has met the real
 * kernel's rules: unknown type, pid != -1, cpu < 0, sampling, exclude
 * bits, a CPU outside the PMU's boxes, config bits outside the PMU's
 * format, too many events for a box's counters, missing privilege
 * (perf_event_paranoid and the capability), a PMU gone or never there.
 * The workload's perf faults (sim_workload.h) add contention by another
 * perf user (time_running < time_enabled), a PMU unloaded under open
 * events, read errors and short reads; its stuck fault on a free-running
 * counter stops the events that read it.
 *
 * What it does not model: sampling, mmap, signals, inheritance, per-task
 * events, PMUs other than the platform's uncore ones (no "cpu", "msr",
 * "software"), CPU hotplug, other processes' events (each process has
 * its own simulated kernel; --sim-state shares the workload's clock, not
 * open events, so "another perf user" is the perf_contention fault), the
 * simulator's register faults (eio, foreign_write, device_missing, delay,
 * and stuck on a programmable counter register: which event the kernel
 * puts on which counter is not modelled), and
 * the real kernel's silent masking of
 * config bits outside a PMU's event mask (refused here instead: see
 * sim_kernel.c, "config").  Multiplexing is a fluid model: a group that
 * runs a fraction f of the time counts exactly f of the events, so a
 * scaled value is exact (the real kernel's rotation adds sampling error).
 *
 * Descriptors are numbers from SKERN_FD_BASE up, above any real file
 * descriptor (fs.nr_open is at most 2^30 - 64), so a simulated fd given
 * to a real system call fails with EBADF instead of touching a file.
 * All calls are thread-safe.
 */
#ifndef UNCORED_SIM_KERNEL_H
#define UNCORED_SIM_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "hw/hw.h"

#define SKERN_FD_BASE (1 << 30)

struct skern;
struct pev_ops;

/*
 * Builds the simulated kernel over the open simulator sim (hw_sim_ops;
 * opened with hw_opts.sim_no_registers for a perf-only platform): its
 * platform, topology, workload and clock.  dir: where to write the tree
 * (created if absent, must be empty; kept by skern_close()), or NULL for
 * a fresh directory under $TMPDIR (default /tmp) that skern_close()
 * removes.  SYSFS is dir/sys, PROCFS dir/proc.  Returns 0 and *out
 * (owned by the caller, freed by skern_close(); sim must stay open until
 * then), or -errno with the reason in why: a platform without kernel PMU
 * facts, malformed facts (naming the unit and field), a directory that
 * cannot be made or is not empty.
 */
int skern_open(struct skern **out, struct hw *sim, const char *dir,
	       char *why, size_t whylen);
/* Removes the tree if skern_open() made its directory, closes every
 * simulated event and frees k.  NULL is a no-op. */
void skern_close(struct skern *k);

/* Removes the tree now if skern_open() made its directory (k stays
 * open; skern_close() later finds it gone).  Safe from an atexit()
 * handler while other threads run: it frees nothing. */
void skern_remove_tree(struct skern *k);

/* Gives the tree to uid:gid (the daemon's user after its privilege
 * drop), so that a PMU the workload unloads can still be removed from
 * it and skern_close() can remove the tree.  0 or -errno. */
int skern_give(struct skern *k, uid_t uid, gid_t gid);

/* The sysfs root ("--path.sysfs"), and the procfs root holding
 * sys/kernel/perf_event_paranoid.  Owned by k. */
const char *skern_sysfs(const struct skern *k);
const char *skern_procfs(const struct skern *k);

/* Does the simulated caller hold the capability the kernel checks for
 * system-wide events (CAP_PERFMON; CAP_SYS_ADMIN before 5.8)?  The
 * workload's "perf": {"cap_perfmon": ...}, default true. */
bool skern_capable(const struct skern *k);

/* Events open now (leaders and siblings). */
unsigned skern_nevents(struct skern *k);

/*
 * Makes the simulated kernel catch up with its clock: faults whose time
 * has come take effect (a gone PMU's directory is removed from the
 * tree).  Every skern_pev_ops call does this first; a caller that only
 * reads the tree (the daemon rescanning sysfs) may call it before.
 */
void skern_sync(struct skern *k);

/*
 * Brings the tree's counter files to the simulated clock: the
 * workload's thermal_throttle/ files (sim_throttle.h), which a real
 * kernel computes as they are read.  A reader calls it before reading
 * them.  0, or -errno with why.
 */
int skern_sync_files(struct skern *k, char *why, size_t len);

/* perf_event_open/read/ioctl/close of the simulated kernel; ctx is the
 * struct skern *.  Each returns >= 0 or -errno, like pev_sys_ops. */
extern const struct pev_ops skern_pev_ops;

#endif
