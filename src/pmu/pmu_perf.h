/*
 * pmu_perf.h - the perf backend of the PMU layer: the kernel's uncore PMU
 * drivers through perf_event_open(2), for machines where the daemon cannot
 * (kernel lockdown, containers) or should not program registers itself
 * (doc/design.md section 3, "perf").
 *
 * Discovery maps each unit of the platform to the kernel PMUs its table
 * names (struct perf_unit) and each box instance to one of them on one
 * CPU of its socket, reading everything from sysfs (pmu_perf_discover):
 * the topology it fills is the same struct topology the direct backend's
 * discovery fills, so the sampler, the arbiter and the renderers above do
 * not know which backend counts.  The PMU layer (pmu.h) then routes each of
 * its calls here when struct pmu.perf is set: one event group per kernel
 * box holding every event the daemon counts there, one read(2) per group
 * per tick, scaling (and flagging) what another perf user made the kernel
 * multiplex.
 */
#ifndef UNCORED_PMU_PERF_H
#define UNCORED_PMU_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plat/plat.h"

struct pev_ops;
struct pmu;
struct pmu_slot;
struct pmu_perf;
struct evspec;

/* How the sampling thread reads the groups of CPUs other than its own
 * (pmu_perf_read_local()): from where it is, each read an interrupt of
 * the group's CPU and a wait for it, or by moving to each CPU first. */
enum pp_how { PP_FROM_HERE, PP_VISIT };
#define PP_VISIT_TRIAL 8u	/* ticks each way is timed */
#define PP_VISIT_RUN 600u	/* ticks the cheaper one is kept */
struct pp_visit {
	enum pp_how how;	/* the one kept */
	unsigned phase;		/* this tick's: 0, 1: timing PP_FROM_HERE,
				   PP_VISIT; 2: keeping how */
	unsigned step;		/* ticks so far */
	uint64_t ns[2];		/* the phases' thread CPU time, by how */
};

/* Where the perf backend finds the kernel. */
struct pmu_perf_opts {
	const char *sysfs;		/* --path.sysfs; NULL: "/sys" */
	const struct pev_ops *ops;	/* NULL: the real system calls */
	void *ctx;			/* ops' context */
};

/* What a tick's reads cost and met (uncored_perf_* self-metrics). */
struct pmu_perf_stats {
	uint64_t groups;	/* event groups open now */
	uint64_t reads;		/* group reads, ever */
	uint64_t syscalls;	/* perf system calls, ever */
	uint64_t read_errors;	/* failed group reads, ever */
	uint64_t open_errors;	/* groups the kernel refused, ever */
	uint64_t scaled;	/* group reads the kernel had multiplexed
				   (time_running < time_enabled), ever */
	uint64_t reopens;	/* groups rebuilt for a new event set, ever */
	uint64_t moves;		/* moves of the reading thread to a group's
				   CPU, ever (pmu_perf_read_local()) */
	bool visiting;		/* it visits the CPUs now (else reads from
				   its home CPU) */
	uint64_t trial_ns[2];	/* the last trial's thread CPU time reading
				   the other CPUs' groups, by enum pp_how */
};

/*
 * Finds the kernel PMUs of platform p under SYSFS/bus/event_source/devices
 * and fills t (sockets from the CPUs' physical_package_id, instances from
 * the PMUs and their cpumasks).  A unit whose PMU the kernel lacks gets no
 * instance and is listed by pmu_perf_missing(); a cpumask naming an offline
 * CPU, a malformed file, or a box beyond the platform table's bounds is
 * reported and that unit or box left out.  Returns 0 and *out (the
 * caller's until pmu_init_perf() takes it), or -errno with why: no PMU of
 * the platform at all, no sysfs, no CPU topology.
 */
int pmu_perf_discover(const struct platform *p, const struct pmu_perf_opts *o,
		      struct topology *t, struct pmu_perf **out, char *why,
		      size_t whylen);
/* Frees a discovery that pmu_init_perf() did not take. */
void pmu_perf_free(struct pmu_perf *pp);

/* The units the platform expects and the kernel lacks, "imc (uncore_imc_%u),
 * ..." or "" (owned by pp). */
const char *pmu_perf_missing(const struct pmu_perf *pp);
/* The kernel PMUs that went away while the daemon ran (pmu_present() is
 * false for what they counted until pmu_reprobe() finds them), "uncore_imc_1
 * on CPU 0 (imc 1 on socket 0: went away at run time, ENODEV), ..." or ""
 * into buf.  Any thread. */
void pmu_perf_lost(const struct pmu_perf *pp, char *buf, size_t len);
/* The sysfs root searched. */
const char *pmu_perf_sysfs(const struct pmu_perf *pp);
/* Kernel PMU name behind unit u's instances ("uncore_cha_0", ...): the
 * first one found, or NULL. */
const char *pmu_perf_unit_pmu(const struct pmu_perf *pp, int unit);

/* Fills *st: the groups open now and the counts since discovery, the
 * system calls of the groups still open included (each one counted once,
 * whether its group is open or closed). */
void pmu_perf_stats(const struct pmu_perf *pp, struct pmu_perf_stats *st);

/*
 * on: the calling thread (the sampler's) reads each group of the real
 * kernel on the group's own CPU, moving itself there (sched_setaffinity)
 * within the CPUs it may run on now, and stays on the last one; a read
 * from another CPU costs an interrupt of that CPU and a wait for it.
 * off: groups are read from wherever the thread runs.  Per thread.
 */
void pmu_perf_read_local(bool on);

/* The choice behind it, a pure state machine (zeroed to start): the way
 * to read this tick; whether that tick is being timed; what it cost in
 * the thread's CPU time.  After a trial of each way the one that cost
 * less (ties: no moves) is kept for PP_VISIT_RUN ticks. */
enum pp_how pmu_perf_visit_next(struct pp_visit *v);
bool pmu_perf_visit_measuring(const struct pp_visit *v);
void pmu_perf_visit_cost(struct pp_visit *v, enum pp_how how, uint64_t ns);

/* What the perf backend opens for one event (pmu_perf_attr()). */
struct pmu_perf_attr {
	char pmu[64];		/* the kernel PMU: "uncore_cha_0" */
	uint32_t type;		/* its type file: perf_event_attr.type */
	char terms[512];	/* in perf's syntax: "event=0x35,umask=0x31,..."
				   or an alias of its events/ ("clockticks") */
	uint64_t config[3];	/* perf_event_attr config, config1, config2 */
};

/*
 * What the perf backend of p opens for event e in slot sl (pmu_slot()):
 * the same PMU, terms and encoding through its format/ files that
 * pmu_encode() programs (and, for a free-running counter, its first box's
 * alias), into *a.  For checking uncored's encodings against another
 * encoder's, such as perf(1)'s (tests/tools/perf-attrs.c).  0, or -errno
 * with why: not the perf backend, no kernel PMU, a field the kernel lacks.
 */
int pmu_perf_attr(const struct pmu *p, const struct pmu_slot *sl,
		  const struct evspec *e, struct pmu_perf_attr *a, char *why,
		  size_t whylen);

/*
 * Sets up the PMU layer over discovery pp (pmu_perf_discover(), which p
 * takes over: pmu_free() frees it): the same numbering of every counter of
 * every present unit instance as pmu_init() (no register addresses: the
 * kernel has them), and from then on every pmu_*() call goes to the perf
 * backend.  hw is only used for its clock where it is the simulator; it
 * may be a closed struct hw.  0 or -errno.
 */
int pmu_init_perf(struct pmu *p, struct hw *hw, const struct topology *t,
		  struct pmu_perf *pp);

#endif
