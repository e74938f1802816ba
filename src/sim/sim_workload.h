/*
 * sim_workload.h - the simulator's workload: topology, event rates over
 * time, and injected faults (doc/design.md section 3, "Workload file").
 *
 * A workload is parsed once from JSON (or built in) into flat arrays; the
 * simulator then asks, for a programmed counter, what rate it counts in
 * each phase, and integrates that rate over time.  Parsing is strict:
 * unknown keys and malformed values are rejected with the file name and
 * the JSON path of the problem.
 */
#ifndef UNCORED_SIM_WORKLOAD_H
#define UNCORED_SIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/hw.h"
#include "plat/plat.h"

#define WL_NAME_MAX 48

/* The left-hand side of a rate: what a counter must be programmed with
 * to count it. */
struct wl_key {
	int socket;		/* -1: every socket */
	int inst;		/* -1: split over all instances */
	int unit;		/* index into the platform's units */
	bool freerun;		/* named free-running counter */
	unsigned freerun_idx;	/* index into the unit's freerun[] */
	struct event_enc enc;	/* programmable: the encoding */
	bool ext;		/* ":ext": the unit's event-select extension
				   bit (unit_type.ev_ext_bit) is set */
	bool has_filter0, has_filter1;	/* absent: any filter value */
	uint64_t filter0, filter1;
	/* counts on counter 0 of its box only (an occupancy event the
	 * "memory_latency" curve gives, sim_wl_lat.c): a counter other
	 * than 0 programmed with it counts nothing */
	bool ctr0_only;
	char text[64];		/* the key as written, for messages */
};

enum wl_fault_kind {
	WL_FAULT_EIO,		/* next `count` accesses fail with EIO */
	WL_FAULT_FOREIGN_WRITE,	/* another agent writes `value` */
	WL_FAULT_DEVICE_MISSING,	/* a PCI function disappears */
	WL_FAULT_STUCK,		/* a counter stops advancing */
	WL_FAULT_DELAY,		/* next `count` accesses return `seconds`
				   late (a reader preempted mid-access) */
	/* the simulated kernel's (src/sim/sim_kernel.c); target: a PMU */
	WL_FAULT_PERF_CONTENTION,	/* another perf user: the target's
					   events run `running` of the time */
	WL_FAULT_PMU_GONE,	/* the PMU is unregistered (module unload) */
	WL_FAULT_PERF_READ_ERROR,	/* next `count` reads fail with `err` */
	WL_FAULT_SHORT_READ,	/* next `count` reads return too few bytes */
	WL_FAULT_PERF_READ_DELAY,	/* next `count` reads return `seconds`
					   late, their values as of then (a
					   reader preempted before read(2)) */
};

/* Is k a fault of the simulated kernel (a PMU target, not a register)? */
static inline bool wl_fault_is_perf(int k)
{
	return k >= WL_FAULT_PERF_CONTENTION && k <= WL_FAULT_PERF_READ_DELAY;
}

struct wl_fault {
	double at;		/* seconds since the simulation started */
	enum wl_fault_kind kind;
	int socket;		/* -1: every socket ("sN/" prefix absent) */
	struct hw_addr target;	/* register (or PCI function for
				   device_missing: reg ignored) */
	bool target_is_freerun;	/* stuck on a named free-running counter */
	int freerun_unit;
	unsigned freerun_idx;
	unsigned count;		/* eio, delay, perf_read_error, short_read,
				   perf_read_delay */
	uint64_t value;		/* foreign_write */
	char text[64];		/* target as written; perf faults: a PMU
				   name or a glob ("uncore_imc_*") */
	double running;		/* perf_contention: fraction of the time
				   the target's events run, [0, 1) */
	double seconds;		/* perf_contention: how long; 0 = for ever */
	double delay_s;		/* delay, perf_read_delay: how much later
				   each access returns */
	int err;		/* perf_read_error: EIO, EINTR or ENOSPC */
};

/*
 * What the simulated kernel is like beyond the platform (the workload's
 * "perf" object).  Zero is the default: paranoid 2 (the kernel's own
 * default), the caller holds CAP_PERFMON (the daemon's unit grants it),
 * every PMU present, kernel WL_PERF_KERNEL.  Read through wl_perf_*().
 */
#define WL_PERF_KERNEL "6.12.0"
#define WL_PMU_NAME_MAX 48
struct wl_perf {
	bool has_paranoid;
	int paranoid;		/* perf_event_paranoid, -1..4 */
	bool no_cap;		/* "cap_perfmon": false */
	char kernel[32];	/* "6.8.0-45-generic"; "" = WL_PERF_KERNEL */
	unsigned nmissing;	/* PMUs the kernel does not have */
	char (*missing)[WL_PMU_NAME_MAX];	/* names or globs */
	/* "cpu_model": the model CPUID reports instead of the platform's
	 * first (a CPU no table knows, with the platform's PMUs: the
	 * daemon's "generic" platform); 0: the platform's own. */
	unsigned cpu_model;
	/* "missing_events": events/ aliases (names or globs) the kernel
	 * does not write, on every PMU; the simulated hardware still
	 * counts their encodings. */
	unsigned nmissing_ev;
	char (*missing_ev)[WL_PMU_NAME_MAX];
};

/*
 * The workload's simulated resctrl tree (its "resctrl" object; parsed by
 * sim_wl_rdt.c, laid out by sim_rdt.c).  Absent: no tree.  Rates are per
 * socket, as every rate of the workload, split evenly over the socket's
 * L3 domains and SNC nodes.
 */
enum { WL_RDT_TOTAL, WL_RDT_LOCAL, WL_RDT_OCC, WL_RDT_NEV };
#define WL_RDT_MAX_GROUPS 256
#define WL_RDT_NAME_MAX 128	/* "ctrl/mon_groups/mon", NUL included */
#define WL_RDT_MAX_TASKS 16
struct wl_rdt_group {
	char name[WL_RDT_NAME_MAX];	/* as the reader labels it: "/",
					   "ctrl", "ctrl/mon_groups/mon",
					   "mon_groups/mon" */
	bool is_mon;
	int socket;		/* -1: traffic on every socket */
	double from, until;	/* lifetime, seconds; until INFINITY: never
				   removed */
	unsigned unavail;	/* bit e (WL_RDT_*): that file reads
				   "Unavailable" */
	char owner[32];		/* "": the workload's own; else the tool
				   that made it (for the simulator's log;
				   resctrl has no owner file) */
	unsigned ntasks;
	unsigned tasks[WL_RDT_MAX_TASKS];	/* written to its tasks file */
};
/* A thread whose memory traffic counts to whichever group holds it
 * (resctrl "threads"): the one whose tasks file lists it, a MON group
 * before a CTRL_MON group, else the root group. */
struct wl_rdt_thread {
	unsigned tid;
	int socket;		/* -1: traffic on every socket */
};

#define WL_RDT_MAX_THREADS 4096

struct wl_rdt {
	bool present;
	unsigned num_rmids;	/* info/L3_MON/num_rmids, RMID 0 included */
	double limbo_s;		/* how long a freed RMID stays unusable */
	unsigned domains;	/* L3 domains per socket (AMD: one per CCX) */
	unsigned snc;		/* SNC nodes per L3 domain (1: no SNC) */
	bool assignable;	/* "mbm_assign_mode" given: the CPU has
				   assignable counters (AMD ABMC) */
	bool abmc;		/* "mbm_assign_mode": "mbm_event" */
	unsigned num_mbm_cntrs;	/* ABMC counters per domain */
	unsigned ngroups;
	struct wl_rdt_group *groups;
	double *rates;		/* ngroups * WL_RDT_NEV * nphases:
				   rates[(g * WL_RDT_NEV + e) * nphases + p],
				   bytes/s (occupancy: bytes) per socket */
	unsigned nthreads;
	struct wl_rdt_thread *threads;
	double *trates;		/* the threads', as rates */
};

/* Topology values; 0 = not given (the simulator takes the maximum the
 * manual allows). */
struct wl_topology {
	unsigned sockets;
	/* Dies per socket ("dies", plat_sim.max_dies; 0: one).  A per-box
	 * kernel PMU (uncore_imc_%u) is then one PMU per box number of a
	 * die, its cpumask one CPU per die; a unit's count is per socket,
	 * the dies sharing it die-major (die d has instances d x count /
	 * dies ...). */
	unsigned dies;
	/* Instances per socket of each unit (by index) its count key set
	 * (the platform's simulator data names the keys: "cbo_count"). */
	unsigned count[PLAT_MAX_UNITS];
	uint64_t mmio_bar;	/* the MMIO window register's value (the
				   platform's plat_sim.mmio_key) */
	bool has_mmio_bar;
	uint16_t mmio_dev;	/* its function's device ID (mmio_dev_key) */
	bool has_mmio_dev;
	uint64_t uclk_hz;
	uint64_t dclk_hz;	/* the plat_sim.dclk_unit counters' clock */
	unsigned cores;		/* physical cores per socket, each with its
				   own core-scope MSRs (plat_sim.cores) */
	uint64_t offline;	/* "offline_cpus": bit c = simulated CPU c
				   (socket c / 8, core c % 8) is offline */
	unsigned cpuid_val;	/* the platform's CPUID key
				   (plat_sim.cpuid_key: "df_counters");
				   0: not given, the part's own value */
};

/* Cores per socket the simulator models at most: one per simulated CPU
 * (hw_sim.h SIM_CPUS_PER_SOCKET). */
#define WL_MAX_CORES 8

/*
 * The kernel's intel_uncore_frequency tree the simulated kernel writes
 * (the workload's "uncore_freq" object; sim_ufreq.c).  Zero is the
 * platform's default: its layout (package_die where the kernel's MSR
 * driver matches the platform's CPUs, none elsewhere), one die, limits
 * from the uncore clock.  Values are kHz, one per domain in socket-major
 * order (socket 0 die 0, socket 0 die 1, ...); n == 1: every domain.
 */
enum wl_ufreq_layout {
	WL_UFREQ_DEFAULT,	/* the platform's */
	WL_UFREQ_NONE,		/* no driver: no tree */
	WL_UFREQ_PACKAGE_DIE,	/* package_PP_die_DD (MSR driver) */
	WL_UFREQ_UNCORE,	/* uncoreNN (TPMI, multi-die package) */
};
enum wl_ufreq_value { WL_UF_MIN, WL_UF_MAX, WL_UF_INITIAL_MIN,
		      WL_UF_INITIAL_MAX, WL_UF_CURRENT, WL_UF_NVALUES };
#define WL_UFREQ_MAX_DIES 4
#define WL_UFREQ_MAX_IO 4
#define WL_UFREQ_MAX_VALUES (PLAT_MAX_SOCKETS * WL_UFREQ_MAX_DIES)
struct wl_ufreq {
	bool given;		/* the workload has "uncore_freq" */
	enum wl_ufreq_layout layout;
	unsigned dies;		/* per socket; 0: 1 */
	unsigned io_domains;	/* uncore layout: domains with no die */
	bool no_current;	/* "current_khz": null: no current_freq_khz */
	unsigned n[WL_UF_NVALUES];	/* 0: the default */
	uint64_t khz[WL_UF_NVALUES][WL_UFREQ_MAX_VALUES];
};

/*
 * The simulated machine's RAPL energy counters (the workload's "energy"
 * object; sim_rapl.c).  Absent: no RAPL MSRs (#GP) and no power PMU, as
 * in a VM.  A domain is there when "watts" names it (and the platform's
 * rapl_facts have it).  Watts are per socket ("sN/" for one), one value
 * per phase.
 */
struct wl_energy {
	bool given;
	unsigned esu;		/* the power unit MSR's ESU (bits 12:8) */
	bool dom[3];		/* RAPL_NDOM: domain present */
	double *watts;		/* PLAT_MAX_SOCKETS * 3 * nphases:
				   watts[(sock * 3 + d) * nphases + p] */
	uint64_t initial[3];	/* the 32-bit counters' value at start */
};

/*
 * The simulated kernel's package thermal-throttle counters (the
 * workload's "thermal_throttle" object; sim_throttle.c).  Absent: no
 * thermal_throttle/ directories.  Per socket and phase:
 * ms[sock * nphases + p], count[sock * nphases + p].
 */
struct wl_throttle {
	bool given;
	double *ms;		/* throttled ms per second, 0..1000 */
	double *count;		/* episodes begun per second */
};

struct workload {
	char *source;		/* file name, or "(built-in)" */
	const struct platform *plat;
	struct wl_topology topo;
	unsigned nphases;
	double *phase_s;	/* duration of each phase, > 0 */
	double period_s;	/* sum of phase_s */
	unsigned nkeys;
	struct wl_key *keys;
	double *rates;		/* nkeys * nphases: rates[k * nphases + p],
				   events per second per socket */
	unsigned nfaults;
	struct wl_fault *faults;	/* sorted by `at` */
	struct wl_perf perf;
	struct wl_ufreq ufreq;
	struct wl_rdt rdt;
	struct wl_energy energy;
	struct wl_throttle throttle;
	bool distinct;		/* "distinct_rates": an event no key names
				   counts at a rate of its own (wl_rates()) */
};

/*
 * Parses the JSON text (name is used in messages).  If plat is non-NULL
 * the workload's "platform" must match it (or be absent).  Returns 0 and
 * a workload the caller frees with wl_free(), or -EINVAL with
 * "NAME: $.json.path: what is wrong" (or "NAME:LINE:COL: ..." for JSON
 * syntax errors) in err.
 */
int wl_parse(const char *text, size_t len, const char *name,
	     const struct platform *plat, struct workload **out,
	     char *err, size_t errlen);
/* wl_parse on a file's contents; -errno with the file name in err if it
 * cannot be read. */
int wl_load(const char *path, const struct platform *plat,
	    struct workload **out, char *err, size_t errlen);
/* The built-in workload for plat: every catalog event gets a plausible,
 * slowly varying rate; headline events are consistent with each other. */
int wl_builtin(const struct platform *plat, struct workload **out);
/* The self-test workload for plat (`uncored --self-test --simulate`,
 * sim_builtin.c): phases quiet, stream, pointer chase of WL_ST_PHASE_S
 * seconds each, repeating.  -ENOENT for a platform without one. */
#define WL_ST_PHASE_S 1.0
int wl_builtin_selftest(const struct platform *plat, struct workload **out);
void wl_free(struct workload *w);

/* The simulated kernel's settings with their defaults (struct wl_perf):
 * perf_event_paranoid; whether the caller holds CAP_PERFMON; the kernel
 * release string and its version as major << 16 | minor << 8 | patch
 * (patch capped at 255). */
int wl_perf_paranoid(const struct workload *w);
bool wl_perf_capable(const struct workload *w);
const char *wl_perf_release(const struct workload *w);
/* Does the simulated kernel leave events/ alias name out ("missing_events")? */
bool wl_perf_event_missing(const struct workload *w, const char *name);
unsigned wl_perf_version(const struct workload *w);
/* "6.8" -> 0x060800 (see above); 0, or -EINVAL for anything that does
 * not start with MAJOR.MINOR. */
int wl_kernel_version(const char *release, unsigned *v);

/* One kernel PMU of a platform's unit, as wl_perf_pmus() reports it. */
struct wl_pmu {
	const char *name;	/* "uncore_cha_3" (a buffer of the call) */
	int unit;		/* platform unit index */
	int inst;		/* the box the name stands for ("%u"), or -1:
				   one PMU for every box of the unit */
	int socket;		/* the one socket it is on, or -1: on every
				   socket (see wl_perf_pmus()) */
	const struct perf_unit *facts;	/* format/ and events/ (the unit's
					   perf, or its perf->also) */
};
/*
 * Calls cb for every kernel PMU of the workload's platform and topology:
 * each unit's perf->pmu and perf->also->pmu (hsx pcu_cstate's
 * cstate_core beside its cstate_pkg), a "%u" pattern once per instance
 * (wl_unit_ninst()) - Intel's drivers name box N of every socket
 * uncore_x_N, one PMU over the sockets (arch/x86/events/intel/uncore.c
 * uncore_get_pmu_name()), while AMD's number their PMUs on across the
 * sockets, each PMU on one (arch/x86/events/amd/uncore.c
 * amd_uncore_umc_ctx_init(): amd_umc_0..23 on two sockets of 12), which
 * a platform whose vendor is AuthenticAMD gets.  A name may come more
 * than once (two units of one PMU: hsx imc and imc_fixed).  Stops at and
 * returns cb's first non-zero value; 0 otherwise.
 */
int wl_perf_pmus(const struct workload *w,
		 int (*cb)(void *ctx, const struct wl_pmu *p), void *ctx);

/*
 * DRAM bytes per second the workload gives socket sock in phase p: the
 * platform's derived sources "dram_rd" and "dram_wr" (what
 * uncore_dram_*_bytes_total shows) at the workload's rates; of a source
 * with alternatives (zen4 UMC or data fabric), the largest.  -1 when the
 * platform has no such sources.
 */
double wl_dram_bytes_per_s(const struct workload *w, unsigned sock,
			   unsigned p);
/* The same in every phase at once, into out[0..nphases): of "dram_rd"
 * alone (the bytes read) if read_only.  0, or -1 when the platform has
 * no such sources. */
int wl_dram_bytes_phases(const struct workload *w, unsigned sock,
			 bool read_only, double *out);

/* Do two rate keys name the same counter (same encoding, filters,
 * socket and instance)?  Used by the parser and the built-in workloads. */
bool wl_key_eq(const struct wl_key *a, const struct wl_key *b);

/* What a counter is programmed to count, for wl_rates(). */
struct wl_match {
	unsigned socket;
	int unit;		/* platform unit index */
	unsigned inst, ninst;	/* instance and instance count */
	bool freerun;
	unsigned freerun_idx;
	struct event_enc enc;
	bool ext;		/* event-select extension bit set */
	uint64_t filter0, filter1;	/* box filter register values (the
					   simulator's mapping: hw_sim.c,
					   wl_filter_slot()) */
	unsigned ctr;		/* the counter's index in its box; 0 where
				   the simulated kernel places the event
				   (it keeps the catalog's counter mask) */
};

/*
 * Where box filter register f of unit u goes in wl_match's filter0 /
 * filter1 (hw_sim.c, "Filters"): *dst 0 or 1 (filter0 / filter1) or -1
 * (gates nothing), shifted left by *shift.  EVF_FILTER0 / EVF_FILTER1
 * registers are filter0 / filter1 whole; the unit's other filter
 * registers, in table order, fill filter0 bits 31:0, filter0 63:32,
 * filter1 31:0, filter1 63:32.  The register model and the simulated
 * kernel both map through this.
 */
void wl_filter_slot(const struct unit_type *u, unsigned f, int *dst,
		    unsigned *shift);

/*
 * Instances of unit index `unit` per socket as the workload configures
 * them: its count key (the platform's plat_sim.counts), else the count of
 * the unit whose PCI functions it shares (a fixed counter in a channel's
 * functions follows the channel count), else the unit's max_inst.
 */
unsigned wl_unit_ninst(const struct workload *w, int unit);

/* Sockets: the "sockets" key, else 1 (at most PLAT_MAX_SOCKETS), as the
 * simulator builds them. */
unsigned wl_sockets(const struct workload *w);
/* Dies per socket: the "dies" key, else 1. */
unsigned wl_dies(const struct workload *w);

/* Physical cores per socket: the "cores" key, else WL_MAX_CORES.  A
 * core-scope free-running counter (freerun_ctr.core_scope) is one
 * counter per core: its rate key gives the socket total, split evenly
 * over the cores unless "@N" names one. */
unsigned wl_cores(const struct workload *w);

/*
 * The simulated CPU's CPUID (a plat_cpuid_fn, plat.h; ctx is the struct
 * workload): leaf's registers from the platform's simulator data
 * (plat_sim.cpuid), with the workload's CPUID key (plat_sim.cpuid_key,
 * "df_counters") written into its field; zeros for any other leaf.
 * Always 0.
 */
int wl_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4]);

/* Fills rates[0..nphases-1] with the events per second the matched
 * counter counts in each phase (sum over every matching key). */
void wl_rates(const struct workload *w, const struct wl_match *m,
	      double *rates);
/* Events counted between t0 and t1 (seconds since start, t0 <= t1) at
 * the per-phase rates; phases repeat with period_s. */
double wl_integral(const struct workload *w, const double *rates,
		   double t0, double t1);

#endif
