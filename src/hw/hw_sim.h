/*
 * hw_sim.h - extras of the simulator backend (hw_sim_ops) for tests and
 * tools: an injectable clock, and access to the simulated machine's
 * platform, topology and workload.
 */
#ifndef UNCORED_HW_SIM_H
#define UNCORED_HW_SIM_H

#include <stdint.h>

#include "hw/hw.h"
#include "hw/sim_workload.h"
#include "plat/plat.h"

/* Logical CPUs the simulator gives each socket: CPU c is on socket
 * c / SIM_CPUS_PER_SOCKET. */
#define SIM_CPUS_PER_SOCKET 8
/* Faults a workload may carry (their progress lives in the sim state). */
#define SIM_MAX_FAULTS 64

/* Replaces CLOCK_MONOTONIC as the simulator's time source (nanoseconds).
 * For unit tests; call right after hw_open().  If the open created the
 * simulated machine its workload clock restarts at the new time; an
 * existing --sim-state keeps its epoch, so all its openers must use the
 * same clock. */
void hw_sim_set_clock(struct hw *hw, int64_t (*now_ns)(void *ctx), void *ctx);

/* The simulated machine (valid while hw is open; owned by the backend). */
const struct platform *hw_sim_platform(const struct hw *hw);
const struct workload *hw_sim_workload(const struct hw *hw);
/* Instances of unit index u per socket, and the socket count. */
unsigned hw_sim_ninst(const struct hw *hw, int unit);
unsigned hw_sim_nsockets(const struct hw *hw);
/* Seconds since the simulated machine was reset (its workload clock). */
double hw_sim_time(struct hw *hw);

#endif
