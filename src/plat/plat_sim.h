/*
 * plat_sim.h - what the simulator (src/sim/hw_sim.c) needs to know about a
 * platform beyond its unit tables, as data (struct platform.sim).
 *
 * The unit tables already give every PMON register, its attributes and
 * its PCI function; this adds the few registers and functions outside
 * them that discovery reads (skl's host bridge with MCHBAR and
 * CBO_CONFIG's count, hsx's UBox node-ID function and num_c), the clocks
 * fixed counters count when a workload gives none, and how overflow
 * reaches the global status.  Nothing here is code: the simulator
 * interprets it, so a new platform's simulator is a new table.
 */
#ifndef UNCORED_PLAT_SIM_H
#define UNCORED_PLAT_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/hw.h"
#include "plat/plat.h"

/* How a register outside the unit tables reads at reset. */
enum plat_sim_reset {
	PSR_CONST,	/* .reset */
	PSR_NINST,	/* instances of unit .unit on the socket + .reset */
	PSR_NODE_ID,	/* the socket's node ID (plat_sim.node_mul/add) */
	PSR_NODE_MAP,	/* every package's node ID, 3 bits each from bit 0
			   (GIDNIDMAP) */
};

/*
 * A register outside the unit tables, on every socket (or socket 0).  A
 * register the tables already hold (an extra_regs entry such as
 * CBO_CONFIG) keeps its attributes and takes only the reset value.
 */
struct plat_sim_reg {
	enum hw_space space;	/* HW_MSR or HW_PCI */
	uint32_t devfn;		/* PCI: (dev << 3) | fn on the socket's bus */
	uint16_t device;	/* PCI: the function's device ID */
	uint32_t addr;		/* MSR index or PCI config offset */
	uint8_t bits;
	uint64_t rw, ro;	/* attribute masks */
	enum plat_sim_reset reset_kind;
	uint64_t reset;
	const char *unit;	/* PSR_NINST */
	bool socket0_only;
};

/* A workload topology key that sets how many instances of a unit each
 * socket has (doc/design.md section 3: "cbo_count"). */
struct plat_sim_count {
	const char *key;
	const char *unit;
	unsigned max;		/* the largest part; 0: the unit's max_inst.
				   Above max_inst: the instances past it have
				   no registers (skl's CBos 8, 9 of a 10-core
				   Comet Lake), but the count is the part's
				   (MSR_UNC_CBO_CONFIG) and a rate key for the
				   unit is split over all of them */
};

/*
 * The built-in workload (doc/design.md section 3: what --simulate counts
 * without --workload): per-phase base quantities (quantities() fills
 * q[0..nq) for phase p), and each catalog event's or free-running
 * counter's rate a fraction of one of them, so that the headline events
 * stay consistent with each other.  A rate's name is an event or counter
 * name, or "*SUFFIX" for any name ending so (tried after exact names);
 * per_inst: frac x base in every instance, else per socket (split over
 * the instances).  An event without a rule takes its unit's rate (units[],
 * name = the unit, NULL = any other unit); a unit without one gets none.
 * A rule's q PLAT_SIM_UNIT_Q is its unit's quantity (its clock).
 */
#define PLAT_SIM_UNIT_Q 0xffu
#define PLAT_SIM_MAX_Q 16

struct plat_sim_rate {
	const char *name;
	unsigned q;
	double frac;
	bool per_inst;
};

/* A derived-metric source (plat.h struct derived_src, by name) whose
 * event carries a :filter0= value: box-filter events (EVF_FILTER0) get a
 * key at that value counting base q. */
struct plat_sim_filter_q {
	const char *src;	/* "lookups" */
	unsigned q;
};

struct plat_sim_ninst {
	const char *unit;
	unsigned n;
};

struct plat_sim_builtin {
	unsigned nphases;
	double phase_s;
	unsigned nq;		/* <= PLAT_SIM_MAX_Q */
	void (*quantities)(unsigned p, unsigned nphases, double *q);
	const struct plat_sim_rate *rules;
	size_t nrules;
	const struct plat_sim_rate *units;
	size_t nunits;
	const struct plat_sim_filter_q *filter_q;
	size_t nfilter_q;
	/* the machine */
	unsigned sockets;
	unsigned dies;		/* per socket; 0: one (plat_sim.max_dies) */
	const struct plat_sim_ninst *ninst;
	size_t nninst;
	uint64_t uclk_hz, dclk_hz;
	bool has_mmio_bar;
	uint64_t mmio_bar;
	/* The self-test workload's keys (selftest.c): LLC lookups, LLC
	 * misses, DRAM read lines. */
	const char *selftest_keys[3];
	/* The programmable event counting the uncore clock where it has no
	 * fixed counter (skx/icx/spr CHA clockticks): the self-test workload
	 * gives it uclk_hz on every instance of its unit.  NULL: none. */
	const char *selftest_clock;
};

/*
 * What `uncore-sim demo` programs on socket 0 by hand (no daemon): two
 * catalog events on one programmable unit (every instance, counters
 * ctr_a and ctr_b) whose ratio is a hit ratio, two free-running counters
 * of bytes_unit counting 64-byte reads and writes, and the clock of the
 * fixed unit clock_unit.
 */
struct plat_sim_demo {
	const char *unit;		/* programmable unit */
	const char *lookups, *misses;	/* catalog events */
	unsigned ctr_lookups, ctr_misses;
	const char *bytes_unit;		/* free-running unit */
	const char *reads, *writes;	/* its counters' names */
	const char *clock_unit;		/* fixed unit */
};

/*
 * The simulated CPU's CPUID (wl_cpuid(), hw_sim's cpuid op): the leaves
 * the simulator answers, each with its registers EAX..EDX as the part
 * reports them; any other leaf reads as zeros.  A range's highest leaf
 * (0x00000000, 0x80000000 EAX) is a leaf here like any other.
 */
struct plat_sim_cpuid {
	uint32_t leaf;
	uint32_t r[4];
};

/*
 * A workload topology key that sets a CPUID field (struct nctr_cpuid
 * reads it): bits lo..hi of register reg of leaf, 1..max (default: the
 * leaf's own value).  zen4/zen5 "df_counters": CPUID 0x80000022 EBX
 * [15:10] NumDfPmc, the data fabric's counters.
 */
struct plat_sim_cpuid_key {
	const char *key;
	uint32_t leaf;
	uint8_t reg, lo, hi;
	unsigned max;
	const char *what;	/* for messages */
};

/*
 * The "memory_latency" curve's events (src/sim/sim_wl_lat.c): the
 * occupancy and inserts event of each target the platform splits, as
 * rate keys ("unit:event:umask[:filter...]"), with the box clock that
 * turns occupancy into time.  A platform without one refuses the key.
 */
enum plat_sim_lat_target {
	PSL_ALL, PSL_LOCAL, PSL_REMOTE,
	PSL_NTARGETS
};

struct plat_sim_lat_ev {
	const char *occ, *ins;
	enum plat_sim_lat_target tgt;
};

#define PLAT_SIM_LAT_MAX_EV 5

struct plat_sim_lat {
	const char *unit;	/* the boxes that hold the events */
	const char *clock;	/* one box's clock event (a rate key), or
				   NULL: the occupancy counts time */
	double per_ns;		/* clock NULL: occupancy counts per ns */
	bool occ_ctr0;		/* the occupancy counts on counter 0 only */
	struct plat_sim_lat_ev ev[PLAT_SIM_LAT_MAX_EV];
};

struct plat_sim {
	/* the built-in workload; NULL: none */
	const struct plat_sim_builtin *builtin;
	/* The workload's topology keys besides "sockets", "uclk_hz" (and
	 * "dclk_hz" with a dclk_unit): unit counts, the MMIO window's
	 * register (mmio_key, e.g. "mchbar"), "cores" where core-scope
	 * counters exist. */
	const struct plat_sim_count *counts;
	size_t ncounts;
	unsigned max_sockets;	/* 0: PLAT_MAX_SOCKETS */
	/* The workload key "dies" (dies per socket, 1..max_dies, default 1)
	 * where the platform's packages may hold several dies, each with
	 * its own boxes (gnr): 0, no such key. */
	unsigned max_dies;
	const char *mmio_key;
	bool cores;
	/* A unit with one instance per core (snbep "cbo"): its count
	 * defaults to the workload's "cores" and may not exceed it.  NULL:
	 * none. */
	const char *per_core_unit;
	/* Clocks when the workload gives none: what the UCLK fixed
	 * counters count, and the fixed unit counting DCLK (NULL none). */
	uint64_t uclk_hz, dclk_hz;
	const char *dclk_unit;
	/* A counter's overflow reaches the global status only while its
	 * control's ov_en bit is set (hsx 2.1.1); else always (skl). */
	bool ovf_needs_en;
	const struct plat_sim_reg *regs;
	size_t nregs;
	/* The MMIO window (skl MCHBAR): regs[mmio_bar] holds its base
	 * (mmio_mask) and enable (mmio_enable) bits; the workload's
	 * "mchbar" replaces its reset value.  mmio_bar < 0: none. */
	int mmio_bar;
	uint64_t mmio_mask, mmio_enable;
	uint32_t mmio_size;
	const char *mmio_name;	/* for messages: "MCHBAR" */
	/* The workload key that sets the device ID of the MMIO window
	 * register's PCI function (skl "host_bridge": a host bridge the
	 * platform does not know); NULL: none. */
	const char *mmio_dev_key;
	/* Package p's node ID is (node_mul * p + node_add) mod 8, a
	 * permutation so that discovery must map; node_mul 0: the
	 * platform has no node IDs. */
	unsigned node_mul, node_add;
	/* uncore-sim's demo; NULL: the platform has none */
	const struct plat_sim_demo *demo;
	/* The kernel's MSR uncore frequency driver matches the platform's
	 * CPUs (drivers/platform/x86/intel/uncore-frequency/
	 * uncore-frequency.c intel_uncore_cpu_ids[]): the simulated kernel
	 * writes intel_uncore_frequency/package_PP_die_DD by default
	 * (src/sim/sim_ufreq.c). */
	bool ufreq_msr;
	/* The simulated CPUID (NULL: every leaf reads zeros) and the
	 * workload key that sets one of its fields (NULL: none). */
	const struct plat_sim_cpuid *cpuid;
	size_t ncpuid;
	const struct plat_sim_cpuid_key *cpuid_key;
	/* the "memory_latency" curve's events; NULL: the key is refused */
	const struct plat_sim_lat *lat;
};

extern const struct plat_sim plat_skl_sim, plat_hsx_sim, plat_snbep_sim;
extern const struct plat_sim plat_skx_sim, plat_icx_sim, plat_spr_sim,
	plat_zen4_sim;
extern const struct plat_sim plat_adl_sim, plat_mtl_sim;
extern const struct plat_sim plat_zen5_sim;
extern const struct plat_sim plat_zen3_sim;
extern const struct plat_sim plat_gnr_sim;

/* The platform the simulator models when neither the command line nor
 * a workload names one (doc/design.md section 3). */
#define PLAT_SIM_DEFAULT (&plat_skl)

#endif
