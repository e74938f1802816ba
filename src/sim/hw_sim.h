/*
 * hw_sim.h - the simulator backend (hw_sim_ops) and its extras for the
 * daemon's backend choice, tests and tools: an injectable clock, and
 * access to the simulated machine's platform, topology and workload.
 */
#ifndef UNCORED_HW_SIM_H
#define UNCORED_HW_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/hw.h"
#include "sim/sim_workload.h"
#include "plat/plat.h"

/* The simulator as a hardware backend (doc/design.md section 3, "sim"). */
extern const struct hw_ops hw_sim_ops;

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
/* Physical cores per socket the workload models (hsx "cores"): CPUs
 * s * SIM_CPUS_PER_SOCKET + 0 .. cores-1, one per core. */
unsigned hw_sim_cores(const struct hw *hw);
/* What fixed-counter unit index `unit` counts, in Hz: the DRAM clock for
 * the platform's plat_sim.dclk_unit, else the uncore clock (the
 * workload's dclk_hz / uclk_hz, else the platform's defaults), as the
 * register model counts it; 0 for an index out of range. */
uint64_t hw_sim_clock_hz(const struct hw *hw, int unit);
/* Seconds since the simulated machine was reset (its workload clock). */
double hw_sim_time(struct hw *hw);

/* The work this process's accesses have done, in steps: slots of the
 * address index looked at and counters brought up to date.  What an
 * access costs in steps does not depend on the machine's size (the
 * index is a hash, a write settles only the counters it acts on):
 * test_sim_scale.c holds it to that, where a timed check would time the
 * machine it runs on. */
uint64_t hw_sim_work(struct hw *hw);

/* The PCI bus of socket sock's uncore functions (0xff - 0x20 x sock on a
 * platform with PCI units, else 0), or -ENOENT. */
int hw_sim_pci_bus(const struct hw *hw, unsigned sock);
/* hsx, snbep: the node ID the UBox of socket sock reports (CPUNODEID), or
 * -ENOENT. */
int hw_sim_node_id(const struct hw *hw, unsigned sock);
/* The socket's global freeze latch (hsx frz_all / unfrz_all): 1 frozen,
 * 0 not, -ENOENT on a platform without one (skl: the EN bit). */
int hw_sim_global_frozen(struct hw *hw, unsigned sock);

/* What the model knows about one PMON box (hsx box control/status). */
struct hw_sim_box {
	bool has_ctl;		/* the box has a box control register */
	bool frozen;		/* the last box-control write set frz (and
				   frz_en, where the box has it: snbep) */
	bool last_lacked_must1;	/* the last box-control write did not set
				   every unit_type.box_ctl_must1 bit */
	unsigned ctl_writes;	/* box-control writes (saturate at 65535) */
	unsigned writes_lacking_must1;	/* of them without the must-be-one
					   bits (plat_box_write() on a
					   UNIT_Q_BOX_BITWISE box makes a
					   few on the way) */
	unsigned ctl_twice_violations;	/* UNIT_Q_CTL_TWICE boxes: enabling
					   control writes not preceded by
					   the same value with the enable
					   clear */
};

/* The box of unit index unit, instance inst, on socket sock: 0, or
 * -ENOENT if the unit has no box there (no box control, status or
 * filter). */
int hw_sim_box_state(struct hw *hw, unsigned sock, int unit, unsigned inst,
		     struct hw_sim_box *out);

#endif
