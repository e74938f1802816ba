/*
 * energy.h - energy per socket and RAPL domain (package, dram, psys):
 * uncore_energy_joules_total (doc/metrics.md "Energy").
 *
 * Two sources, one per backend.  Direct: the RAPL energy status MSRs
 * (plat/rapl.h) on one CPU of each socket, 32-bit counters extended here
 * (rapl_acc), in the unit of MSR_RAPL_POWER_UNIT or the domain's fixed
 * unit.  Perf: the kernel's power PMU (arch/x86/events/rapl.c), one
 * group of its energy-* events per CPU of its cpumask, each count times
 * the events/<name>.scale the kernel writes, in its .unit (Joules):
 * the kernel extends the counters itself.  Everything privileged (the
 * MSR device, perf_event_open) happens in energy_mon_new*, before the
 * privilege drop; a thread of its own reads every interval
 * (energy_mon_start), often enough to see every wrap of a 32-bit
 * counter, and the page renders the last read: never read at scrape
 * time.  Where there is nothing to read (a VM, a kernel without the
 * power PMU, a platform uncored has no RAPL facts for) the monitor holds
 * only the reason: the family is absent, the reason is in the start-up
 * log and /api/v1/status "energy".
 */
#ifndef UNCORED_ENERGY_H
#define UNCORED_ENERGY_H

#include <stdbool.h>
#include <stdint.h>

#include "plat/rapl.h"

struct hw;
struct topology;
struct pev_ops;
struct prom;
struct energy_mon;

/* Reads no further apart than this (ms), whatever the wrap time. */
#define ENERGY_INTERVAL_MAX_MS 1000u

/* One socket's domain as last read. */
struct energy_dom {
	unsigned socket;
	enum rapl_dom dom;
	bool have;		/* joules holds a read */
	double joules;		/* since the monitor started */
	double unit_j;		/* direct: joules per count; perf: the
				   .scale */
	uint64_t read_ns;	/* CLOCK_MONOTONIC of the last read */
	uint64_t errors;	/* failed reads */
};

/*
 * The direct backend's monitor: the platform's rapl_facts, the unit MSR
 * and each domain's energy status MSR probed on t's socket CPUs through
 * hw.  Returns the monitor (the caller's; energy_mon_free), never NULL
 * but on no memory: with no domain, it holds the reason
 * (energy_mon_absent()).  hw and t must outlive it.
 */
struct energy_mon *energy_mon_new_direct(struct hw *hw,
					 const struct topology *t);

/*
 * The perf backend's monitor: SYSFS/bus/event_source/devices/power (its
 * type, cpumask, events/energy-{pkg,ram,psys} with .scale and .unit),
 * one group per cpumask CPU opened through ops/ctx (NULL: the real
 * system calls), its package from SYSFS/devices/system/cpu.  As
 * energy_mon_new_direct otherwise.
 */
struct energy_mon *energy_mon_new_perf(const char *sysfs,
				       const struct pev_ops *ops, void *ctx);

/* "" when domains are served, else why none is (static to m). */
const char *energy_mon_absent(const struct energy_mon *m);
/* The source, for messages: "RAPL MSRs" or "the kernel's power PMU". */
const char *energy_mon_source(const struct energy_mon *m);
/* The read interval energy_mon_start() uses, ms. */
unsigned energy_mon_interval_ms(const struct energy_mon *m);

/* Starts the thread (after the privilege drop): a read every
 * energy_mon_interval_ms().  0, or -errno; nothing to start (no
 * domain) is 0. */
int energy_mon_start(struct energy_mon *m);
/* Reads every domain once (the thread's pass; tests). */
void energy_mon_read(struct energy_mon *m);
/* Stops the thread, closes everything, frees m.  NULL is accepted. */
void energy_mon_free(struct energy_mon *m);

/* Copies the domains (by socket, then domain) into out, at most max;
 * returns how many.  Thread-safe. */
int energy_mon_snapshot(struct energy_mon *m, struct energy_dom *out,
			int max);
/* uncore_energy_joules_total from the last read; nothing where no
 * domain has a value.  Thread-safe. */
void energy_mon_render(struct prom *w, struct energy_mon *m);

#define ENERGY_MAX_DOMS (64 * RAPL_NDOM)

#endif
