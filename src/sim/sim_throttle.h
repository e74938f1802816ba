/*
 * sim_throttle.h - the simulated kernel's thermal_throttle/ files
 * (SYSFS/devices/system/cpu/cpuN/thermal_throttle/, as the kernel's
 * therm_throt.c makes them) and the workload's "thermal_throttle" object
 * that drives them:
 *
 *   "thermal_throttle": { "ms_per_s": [0, 250], "s1/ms_per_s": 100,
 *                         "count_per_s": 0.5 }
 *
 * ms_per_s: the milliseconds per second each socket's package is
 * thermally throttled, a number for every phase or an array of one per
 * phase (0..1000); count_per_s: how many throttle episodes begin per
 * second (default 0); "sN/" gives socket N its own.  Without the object
 * the tree has no thermal_throttle/ (AMD, a VM).  Intel platforms only.
 * doc/simulator.md "Thermal throttling".
 */
#ifndef UNCORED_SIM_THROTTLE_H
#define UNCORED_SIM_THROTTLE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim_workload.h"

/* Socket sock's package_throttle_total_time_ms and package_throttle_count
 * at simulated time t (seconds since reset): the rates integrated over
 * the phases, rounded down.  0 without the object. */
uint64_t sthr_ms(const struct workload *w, unsigned sock, double t);
uint64_t sthr_count(const struct workload *w, unsigned sock, double t);

/*
 * Writes (or rewrites) SYSFS/devices/system/cpu/cpuN/thermal_throttle/
 * for CPUs 0..nsockets * cpus_per_socket - 1 (CPU c on socket c /
 * cpus_per_socket) with the values at time t: package_throttle_count
 * and package_throttle_total_time_ms (the socket's, the same in every
 * CPU of it, as the kernel broadcasts the package's status: a reader
 * that adds CPUs up counts the package many times), core_throttle_count
 * and core_throttle_total_time_ms (0: the simulated cores never trip on
 * their own; the *_max_time_ms files are not simulated).  Each file is replaced whole (a new file renamed over
 * the old): a reader opens it anew and never sees half a value.
 * Nothing without the workload's object.  0, or -errno with why.
 */
int sthr_write(const struct workload *w, unsigned nsockets,
	       unsigned cpus_per_socket, const char *sysfs, double t,
	       char *why, size_t len);

#endif
