/*
 * sim_ufreq.h - the simulated kernel's intel_uncore_frequency tree
 * (SYSFS/devices/system/cpu/intel_uncore_frequency/), which the daemon's
 * ufreq.c reads: the workload's "uncore_freq" object (sim_workload.h
 * struct wl_ufreq) or the platform's default, in either of the kernel's
 * layouts, with the kernel's file modes (current_freq_khz and the
 * uncoreNN id files 0400).  doc/hardware-notes.md "Uncore frequency
 * limits" and "The simulated kernel".
 */
#ifndef UNCORED_SIM_UFREQ_H
#define UNCORED_SIM_UFREQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sim/sim_workload.h"

/* The layout the simulated kernel writes for w: the workload's, else the
 * platform's default (never WL_UFREQ_DEFAULT). */
enum wl_ufreq_layout sufreq_layout(const struct workload *w);

/*
 * Writes SYSFS/devices/system/cpu/intel_uncore_frequency for w's
 * platform and nsockets sockets (nothing for WL_UFREQ_NONE); clock_hz is
 * the uncore clock the simulator counts, from which the defaults come.
 * SYSFS/devices/system/cpu must exist.  0, or -errno with why.
 */
int sufreq_write(const struct workload *w, unsigned nsockets,
		 uint64_t clock_hz, const char *sysfs, char *why, size_t len);

/*
 * Gives the tree's 0400 files back to uid:gid (root) after the whole
 * simulated tree was given to the daemon's user (skern_give()): as on
 * Linux, only the opener before the privilege drop can read them.
 * 0 (also when there is no tree) or -errno.
 */
int sufreq_keep_private(const char *sysfs, uid_t uid, gid_t gid);

#endif
