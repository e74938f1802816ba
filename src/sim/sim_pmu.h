/*
 * sim_pmu.h - the simulated kernel's PMUs: what Linux's uncore drivers
 * would register for the simulated machine, built from the platform's
 * kernel PMU facts (struct perf_unit, plat.h) and the workload's topology
 * (sim_workload.h), and what the simulated kernel (sim_kernel.c) needs to
 * act on them: their sysfs tree, where an event opened on a CPU lands, and
 * what an event's config counts.
 *
 * A PMU is a kernel PMU name with the units behind it: a programmable
 * unit (event selects), a fixed counter (one config selects it: skl's
 * UCLK counter on uncore_cbox_0, hsx's DCLK on each uncore_imc_N), free-
 * running counters (each selected by its kernel event, an alias under
 * events/ or terms).  Two units with the same PMU name (hsx imc and
 * imc_fixed) make one PMU.  A "%u" name makes one PMU per box (instance
 * within a socket), whose cpumask has one CPU per socket; a plain name
 * makes one PMU for every box, whose cpumask has one CPU per box: one
 * per socket for a one-instance unit (uncore_pcu), one per instance for
 * more (amd_l3: one per L3 complex), one per core for a PMU of
 * core-scope free-running counters (cstate_core).  AMD's driver numbers
 * its "%u" PMUs across the sockets instead, each on one socket
 * (amd_umc_0..23 on two sockets of 12; wl_perf_pmus()).  A plain name
 * that is also one box's name of a "%u" unit (skl's UCLK counter on
 * uncore_cbox_0) is that box's PMU.
 *
 * Format fields are bit sets of config, config1 or config2, and a value
 * fills a field's bits in ascending bit order, which is how perf defines
 * it (tools/perf/util/pmu.c pmu_format_value()) whatever order the
 * ranges are written in.  This module decodes independently of the
 * daemon's encoder (src/hw/perf_sysfs.c), so that a mistake there shows
 * here instead of cancelling out.
 */
#ifndef UNCORED_SIM_PMU_H
#define UNCORED_SIM_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sim/sim_workload.h"
#include "plat/plat.h"

#define SPMU_TYPE_BASE 10	/* the first type number: above the kernel's
				   fixed types (PERF_TYPE_MAX 6) and the
				   early dynamic ones (cpu, msr, ...) */
#define SPMU_MAX_FIELDS 24	/* format fields of one PMU */
#define SPMU_MAX_UNITS 4	/* units behind one PMU */
#define SPMU_MAX_FREERUN 16	/* free-running counters of one PMU */

/* One format/ file: a set of bits of config[cfg]. */
struct spmu_field {
	const char *name;	/* platform data */
	const char *text;	/* "config:0-7,32-35" */
	uint8_t cfg;		/* 0: config, 1: config1, 2: config2 */
	uint64_t mask;
};

/* One events/ file (and its .scale / .unit). */
struct spmu_alias {
	const char *name, *value;	/* platform data */
	const char *scale;	/* NULL: no .scale file; else verbatim */
	const char *unit;	/* NULL: no .unit file */
	bool nl;		/* the files end in "\n" (perf_unit.events_nl) */
};

/* A free-running counter behind a PMU and the config that selects it. */
struct spmu_freerun {
	int unit;
	unsigned idx;		/* into the unit's freerun[] */
	uint64_t cfg[3];
};

struct spmu {
	char name[WL_PMU_NAME_MAX];
	uint32_t type;
	int inst;		/* "%u" PMU: its box; -1: every box */
	int socket;		/* the one socket it is on (AMD's "%u" PMUs,
				   wl_perf_pmus()), -1: every socket */
	unsigned nbox;		/* boxes per socket */
	bool core_scope;	/* one box per core (cstate_core) */
	bool present;		/* registered: not missing in the workload,
				   not newer than the kernel */
	const char *since;	/* first kernel version, or NULL */
	const char *until;	/* the facts' until (perf_unit) */
	int units[SPMU_MAX_UNITS];	/* every unit behind it */
	unsigned nunits;
	int prog;		/* programmable unit index, -1 none */
	unsigned nctr;		/* its counters per box */
	int fixed;		/* fixed-counter unit index, -1 none */
	uint64_t fixed_cfg[3];
	struct spmu_freerun fr[SPMU_MAX_FREERUN];
	unsigned nfr;
	const struct perf_unit *facts;	/* the programmable unit's (field
					   names), else the first unit's */
	struct spmu_field f[SPMU_MAX_FIELDS];
	unsigned nf;
	struct spmu_alias *a;
	unsigned na;
};

/* Every PMU of the simulated machine. */
struct spmu_set {
	const struct platform *plat;
	const struct workload *wl;
	unsigned nsockets;
	unsigned cpus_per_socket;	/* CPU c is on socket c / this */
	unsigned dies;		/* per socket (wl_dies()); CPU c is on die
				   (c % cpus_per_socket) / (cpus_per_socket /
				   dies) */
	unsigned cores;		/* physical cores per socket; CPU local
				   index l is core l % cores */
	bool amd;		/* AMD's uncore driver rules (vendor) */
	struct spmu *p;
	unsigned n;
};

/*
 * Builds the PMUs of workload w's platform for nsockets sockets of
 * cores cores (hw_sim_nsockets / hw_sim_cores): names, types from
 * SPMU_TYPE_BASE in order (present PMUs only), format fields, aliases,
 * fixed and free-running configs, and the CPU numbering (the simulator's
 * SIM_CPUS_PER_SOCKET per socket, more where a unit has more boxes per
 * socket: one CPU per box at least).  0, or -EINVAL with why naming the
 * platform, unit and fact that is malformed or contradicts another
 * (-ENOENT: the platform has no kernel PMU facts), -ENOMEM.  Free with
 * spmu_free().
 */
int spmu_build(struct spmu_set *s, const struct workload *w,
	       unsigned nsockets, unsigned cores, char *why, size_t whylen);
/* Frees what spmu_build() allocated in s (not s itself). */
void spmu_free(struct spmu_set *s);

/* The present PMU of type t / called name, or NULL; owned by s. */
struct spmu *spmu_by_type(const struct spmu_set *s, uint32_t t);
struct spmu *spmu_by_name(const struct spmu_set *s, const char *name);

/* The box an event on a CPU counts: its socket, its instance (a core for
 * a core-scope PMU), and the CPU the kernel moves the event to (the
 * PMU's cpumask CPU for that box). */
struct spmu_box {
	unsigned socket, inst, cpu;
};
/* The box of CPU cpu on PMU p: 0, or -EINVAL for a CPU the machine does
 * not have, -ENODEV for a CPU of another socket than a one-socket PMU's
 * (AMD: no context there, amd_uncore_event_init()). */
int spmu_box(const struct spmu_set *s, const struct spmu *p, unsigned cpu,
	     struct spmu_box *b);

/* What an event's config counts. */
enum spmu_role { SPMU_PROG, SPMU_FIXED, SPMU_FREERUN };
struct spmu_event {
	enum spmu_role role;
	int unit;		/* platform unit index */
	unsigned fr_idx;	/* SPMU_FREERUN: the unit's counter */
	struct event_enc enc;	/* SPMU_PROG */
	bool ext;		/* event-select extension (hsx QPI) */
	uint64_t filter0, filter1;	/* wl_match's view of the box
					   filters the config sets */
	bool nomatch;		/* a value no workload key can name (wider
				   than struct event_enc holds) */
	uint16_t ctr_mask;	/* counters it may use (catalog), 0: any */
};
/*
 * Decodes config[3] on PMU p: the fixed counter if it is the fixed
 * config, a free-running counter if it is one's config, else the
 * programmable unit's event with its fields read through the format:
 * event (the unit's f_event or "event"; bits above the unit's event
 * width are the event-select extension, hsx QPI "config:0-7,21"), umask,
 * edge, inv, thresh (f_* overrides; f_occ holds umask bits 7:6, hsx
 * PCU "occ_sel"), filters through perf->filters into
 * the unit's box filter registers and then wl_filter_slot().  Other
 * fields (AMD's threadmask, ...) are accepted and do not change what is
 * counted.  0, or -EINVAL with why: a bit outside every format field, or
 * a config that is no counter of a PMU without a programmable unit.
 */
int spmu_decode(const struct spmu_set *s, const struct spmu *p,
		const uint64_t cfg[3], struct spmu_event *e, char *why,
		size_t whylen);

/*
 * Encodes terms "event=0x34,umask=0x11,edge" (a bare name is 1, numbers
 * 0x-hex or decimal) through p's format fields into cfg[3] (zeroed
 * first), each value filling its field's bits in ascending order.  0, or
 * -EINVAL with why (unknown field, value too wide, bad syntax).
 */
int spmu_encode(const struct spmu *p, const char *terms, uint64_t cfg[3],
		char *why, size_t whylen);
/* The value field f of p holds in cfg (its bits gathered in ascending
 * order). */
uint64_t spmu_field_get(const struct spmu_field *f, const uint64_t cfg[3]);
/* The field called name, or NULL; owned by p. */
const struct spmu_field *spmu_field(const struct spmu *p, const char *name);

/*
 * Writes the tree (sim_kernel.h) of every present PMU and the CPUs under
 * sysfs, which must exist.  0 or -errno with why naming the file.
 */
int spmu_write_tree(const struct spmu_set *s, const char *sysfs, char *why,
		    size_t whylen);
/* Writes PMU p's directory and its bus link into the tree under sysfs
 * (its module was loaded again).  0 or -errno with why. */
int spmu_add(const struct spmu_set *s, const struct spmu *p,
	     const char *sysfs, char *why, size_t len);
/* Removes PMU p's directory and its bus link from the tree under sysfs
 * (its module was unloaded).  0 or -errno. */
int spmu_remove(const struct spmu *p, const char *sysfs);
/* Removes path and everything under it, without following links (a
 * tree spmu_write_tree() wrote).  0 (also if it is not there) or
 * -errno. */
int spmu_rmtree(const char *path);
/* Gives path and everything under it to uid:gid, without following
 * links (lchown).  0 or -errno. */
int spmu_chowntree(const char *path, uid_t uid, gid_t gid);

/* Writes p's cpumask into buf as a CPU list ("0,8", "0-3") and returns
 * buf. */
char *spmu_cpumask(const struct spmu_set *s, const struct spmu *p, char *buf,
		   size_t len);

#endif
