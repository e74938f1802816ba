/*
 * sim_workload.h - the simulator's workload: topology, event rates over
 * time, and injected faults (DESIGN.md section 3, "Workload file").
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
	char text[64];		/* the key as written, for messages */
};

enum wl_fault_kind {
	WL_FAULT_EIO,		/* next `count` accesses fail with EIO */
	WL_FAULT_FOREIGN_WRITE,	/* another agent writes `value` */
	WL_FAULT_DEVICE_MISSING,	/* a PCI function disappears */
	WL_FAULT_STUCK,		/* a counter stops advancing */
	WL_FAULT_DELAY,		/* next `count` accesses return `seconds`
				   late (a reader preempted mid-access) */
};

struct wl_fault {
	double at;		/* seconds since the simulation started */
	enum wl_fault_kind kind;
	int socket;		/* -1: every socket ("sN/" prefix absent) */
	struct hw_addr target;	/* register (or PCI function for
				   device_missing: reg ignored) */
	bool target_is_freerun;	/* stuck on a named free-running counter */
	int freerun_unit;
	unsigned freerun_idx;
	unsigned count;		/* eio, delay */
	uint64_t value;		/* foreign_write */
	double delay_s;		/* delay */
	char text[64];		/* target as written */
};

/* Topology values; 0 = not given (the simulator takes the maximum the
 * manual allows). */
struct wl_topology {
	unsigned sockets;
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
};

/* Cores per socket the simulator models at most: one per simulated CPU
 * (hw_sim.h SIM_CPUS_PER_SOCKET). */
#define WL_MAX_CORES 8

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
					   simulator's mapping: hw_sim.c) */
};

/*
 * Instances of unit index `unit` per socket as the workload configures
 * them: its count key (the platform's plat_sim.counts), else the count of
 * the unit whose PCI functions it shares (a fixed counter in a channel's
 * functions follows the channel count), else the unit's max_inst.
 */
unsigned wl_unit_ninst(const struct workload *w, int unit);

/* Physical cores per socket: the "cores" key, else WL_MAX_CORES.  A
 * core-scope free-running counter (freerun_ctr.core_scope) is one
 * counter per core: its rate key gives the socket total, split evenly
 * over the cores unless "@N" names one. */
unsigned wl_cores(const struct workload *w);

/* Fills rates[0..nphases-1] with the events per second the matched
 * counter counts in each phase (sum over every matching key). */
void wl_rates(const struct workload *w, const struct wl_match *m,
	      double *rates);
/* Events counted between t0 and t1 (seconds since start, t0 <= t1) at
 * the per-phase rates; phases repeat with period_s. */
double wl_integral(const struct workload *w, const double *rates,
		   double t0, double t1);

#endif
