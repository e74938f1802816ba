/*
 * sim_rapl.h - the simulated machine's RAPL energy counters: the energy
 * status MSRs the register model answers (hw_sim.c) and the kernel's
 * power PMU the simulated kernel registers (sim_kernel.c), both from the
 * workload's "energy" object (struct wl_energy) and the platform's
 * rapl_facts (plat/rapl.h): watts per socket and phase, integrated over
 * the simulator's clock.  Counters start at "initial" (so a test can put
 * a 32-bit wrap where it wants it) and count in the unit the hardware
 * would: 2^-ESU J of the power unit MSR, or the domain's fixed unit (hsx
 * DRAM 2^-16 J whatever the MSR says).
 */
#ifndef UNCORED_SIM_RAPL_H
#define UNCORED_SIM_RAPL_H

#include <stdint.h>

#include "sim/sim_workload.h"
#include "plat/rapl.h"

/* Does the simulated machine have domain d (any socket)? */
bool srapl_has(const struct workload *w, enum rapl_dom d);

/* The domain's counter, unwrapped (the 32-bit MSR is its low bits), at
 * t seconds on socket sock: initial + floor(joules / unit). */
uint64_t srapl_count(const struct workload *w, unsigned sock,
		     enum rapl_dom d, double t);

/* log2 of 1 / the domain's unit in joules (ESU or the fixed unit). */
unsigned srapl_unit_bits(const struct workload *w, enum rapl_dom d);

/*
 * An MSR read on socket sock at t seconds: 1 with *val set where msr is
 * a RAPL MSR the machine has (the unit MSR, a present domain's energy
 * status); 0 where it is not the simulator's RAPL (the caller goes on:
 * #GP).
 */
int srapl_msr(const struct workload *w, unsigned sock, uint32_t msr,
	      double t, uint64_t *val);

#endif
