/*
 * sim_internal.h - the simulator's register model, shared by its two
 * halves: sim_model.c builds the registers, boxes, counters and PCI
 * functions from the platform tables and indexes them for O(1) lookup;
 * hw_sim.c counts, applies faults and serves the accesses.  Private to
 * src/hw/.
 */
#ifndef UNCORED_SIM_INTERNAL_H
#define UNCORED_SIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/hw_sim.h"
#include "plat/plat_sim.h"

#define SIM_MAGIC 0x554e43534d303031ull	/* "UNCSM001" */
#define SIM_VERSION 2
#define SIM_PCI_VENDOR 0x8086u
#define SIM_MAX_BOX_FILTERS 8
#define NONE8 0xff

enum sim_kind {
	SR_PLAIN,	/* stored value, attributes only */
	SR_GLOBAL_CTL,	/* changes what every counter does */
	SR_GLOBAL_STATUS,	/* overflow bits, RW1C */
	SR_CTL,		/* a counter's control (event select / fixed ctl) */
	SR_CTR,		/* a counter (programmable or fixed) */
	SR_FREERUN,	/* free-running counter, read-only */
	SR_BOX_CTL,	/* box control: write-only freeze and reset bits */
	SR_BOX_STATUS,	/* box overflow status, RW1C */
	SR_FILTER,	/* box filter: changes what the box's counters count */
	SR_STATE,	/* model state without an address (latches) */
};

/* Static description of one register, rebuilt identically at each open. */
struct sim_reg {
	enum hw_space space;
	uint8_t bits;		/* register size */
	uint8_t socket;
	uint8_t bus, dev, fn;	/* PCI */
	uint64_t reg;		/* MSR index, PCI offset, MMIO offset from the
				   socket's MMIO window */
	enum sim_kind kind;
	uint64_t rw, ro, wo, rw1c;	/* attribute masks */
	uint64_t must1;		/* SR_BOX_CTL: reserved bits writes must set
				   (accepted, read 0) */
	uint64_t reset;
	int ctr;		/* SR_CTR/SR_FREERUN: counter index */
	int ctl_ctr;		/* SR_CTL: the counter it controls */
	int box;		/* SR_BOX_*, SR_FILTER: box index */
	uint8_t core1;		/* MSR of one core: core + 1 (reached from
				   that core's CPU only); 0: any CPU of the
				   socket */
};

_Static_assert(WL_MAX_CORES <= SIM_CPUS_PER_SOCKET,
	       "one simulated CPU per core");

enum sim_clock { CLK_UCLK, CLK_DCLK };

/* Static description of one counter. */
struct sim_ctr {
	uint8_t socket;
	int unit;		/* platform unit index */
	unsigned inst, idx;
	uint8_t width;
	int reg;		/* its counter register */
	int ctl;		/* its control register, -1 if free-running */
	int freerun;		/* freerun index, -1 if programmable/fixed */
	int box;		/* its box, -1 none */
	int st_bit;		/* its bit in the box status, -1 none */
	uint8_t gbit;		/* its global status bit, NONE8 none */
	uint8_t oven_bit;	/* control bit gating gbit, NONE8 ungated */
	uint8_t en_bit;		/* local enable bit, NONE8 none */
	uint8_t rst_bit;	/* control bit that clears it, NONE8 none */
	enum sim_clock clock;	/* UNIT_FIXED: what it counts */
	bool core_scope;	/* one of a core-scope counter's per-core
				   copies: inst is the core */
};

/* A PMON box: the registers that act on a group of counters. */
struct sim_box {
	uint8_t socket;
	int unit;
	unsigned inst;
	int ctl, status;	/* registers, -1 none */
	int state;		/* its SR_STATE register */
	uint64_t frz, rst_ctrl, rst_ctrs, must1;	/* box control bits */
	uint64_t frz_en;	/* snbep: frz only acts with this bit in the
				   same write (0: frz acts alone) */
	bool ctl_twice;		/* UNIT_Q_CTL_TWICE: record violations */
	unsigned nfilt;
	int filt[SIM_MAX_BOX_FILTERS];
	uint8_t filt_dst[SIM_MAX_BOX_FILTERS];	/* 0/1: filter0/1, NONE8 */
	uint8_t filt_shift[SIM_MAX_BOX_FILTERS];
};

/* Box SR_STATE bits: frozen, last box-control write lacked the must-be-
 * one bits, and three saturating 16-bit counts. */
#define BOX_FROZEN 0x1ull
#define BOX_LACKED 0x2ull
#define BOX_SH_WRITES 16
#define BOX_SH_LACKING 32
#define BOX_SH_TWICE 48

/* A PCI function of the simulated machine. */
struct sim_fn {
	uint8_t socket, bus, dev, fn;
	uint16_t device;
	int idreg;		/* its vendor/device ID register */
};

/* Mutable per-counter state (shared). */
struct sim_ctr_state {
	uint64_t value;		/* raw value at t_ns, within width */
	double frac;		/* events counted but not yet whole */
	int64_t t_ns;		/* time value/frac refer to */
	uint32_t stuck;
	uint32_t pad;
};

/* The shared block's header; registers and counters follow it. */
struct sim_shared {
	uint64_t magic;
	uint32_t version;
	uint32_t nregs, nctrs;
	uint32_t pad0;
	uint64_t layout_hash;
	char plat[16];
	int64_t epoch_ns;
	pthread_mutex_t lock;
	uint64_t gen;		/* bumped by every control write */
	uint32_t next_fault;	/* faults before it have been triggered */
	uint32_t hits_left[SIM_MAX_FAULTS];	/* eio, delay: accesses still hit */
	uint8_t missing[SIM_MAX_FAULTS];	/* device_missing active */
	uint64_t pad1;
	/* uint64_t regval[nregs]; struct sim_ctr_state ctr[nctrs]; */
};

/* One slot of the address index: register ri + 1 (0: empty), and 32 if
 * the key is the upper dword of a 64-bit PCI/MMIO register. */
struct sim_slot {
	uint64_t key;
	uint32_t ri1;
	uint32_t half;
};

struct sim;

struct sim {
	const struct platform *plat;
	const struct plat_sim *data;	/* plat->sim, or sim_defaults */
	struct workload *wl;
	unsigned nsockets;
	unsigned ninst[PLAT_MAX_UNITS];
	/* the part's count, which may exceed the unit's max_inst (skl:
	 * CBos 8, 9 of a 10-core part, without registers): configuration
	 * registers report it and rates are split over it */
	unsigned ninst_part[PLAT_MAX_UNITS];
	uint8_t bus[PLAT_MAX_SOCKETS];	/* PCI bus of each socket */
	int mmio_bar;		/* the register holding the MMIO window's
				   base (plat_sim.mmio_bar), -1 none */
	uint64_t uclk_hz, dclk_hz;
	int gctl[PLAT_MAX_SOCKETS];	/* global control register per socket */
	int gstat[PLAT_MAX_SOCKETS];	/* global status register per socket */
	int gfrz[PLAT_MAX_SOCKETS];	/* global freeze latch, -1 none */
	uint64_t gfrz_mask, gunfrz_mask;	/* frz_all / unfrz_all */
	struct sim_reg *regs;
	unsigned nregs, cap_regs;
	struct sim_ctr *ctrs;
	unsigned nctrs, cap_ctrs;
	struct sim_box *boxes;
	unsigned nboxes, cap_boxes;
	struct sim_fn *fns;	/* sorted by bus, dev, fn after build() */
	unsigned nfns, cap_fns;
	/* The address index (index_build()): an open-addressing hash table
	 * from an access's key (reg_key()) to a register, so that a lookup
	 * costs the same on a 1- and an 8-socket machine. */
	struct sim_slot *index;
	size_t index_mask;	/* size - 1, a power of two */
	bool has_core_msrs;	/* some MSR exists once per core */
	int16_t bus_socket[256];	/* socket of each PCI bus, -1 none */
	/* Counters of each socket, [sock_ctr0[s], sock_ctr0[s + 1]), and of
	 * each box (box_ctrs[box_ctr0[b] .. box_ctr0[b + 1]]): what a write
	 * settles and re-rates, rather than every counter. */
	unsigned sock_ctr0[PLAT_MAX_SOCKETS + 1];
	unsigned *box_ctr0, *box_ctrs;
	double *rates;		/* nctrs * nphases, private cache */
	uint64_t *sig;		/* nctrs * 3: control, filter0, filter1 the
				   cached rates were computed for */
	uint8_t *sig_ok;
	uint64_t rates_gen;
	/* shared state */
	struct sim_shared *sh;
	size_t shsize;
	bool mapped;
	bool fresh;		/* the state was created by this open */
	uint64_t *regval;
	struct sim_ctr_state *cst;
	/* clock */
	int64_t (*now_ns)(void *ctx);
	void *now_ctx;
	/* hw_opts.sim_no_registers: no register model was built */
	bool no_regs;
	/* The accesses' work, in steps: index slots probed and counters
	 * brought up to date (hw_sim_work()).  Per process, changed under
	 * the machine's lock. */
	uint64_t work;
};

/* ---- sim_model.c ---- */

/* Builds s's register model from its platform and workload topology and
 * the lookup index.  0 or -errno with a message. */
int sim_build(struct sim *s);
/* A hash of the model's layout, kept in --sim-state files so that a file
 * made for another layout is refused. */
uint64_t sim_layout_hash(const struct sim *s);
/* Package p's node ID (struct plat_sim node_mul/node_add). */
uint8_t sim_node_of(const struct sim *s, unsigned p);
/* The MMIO window's base as the platform's BAR register holds it now. */
uint64_t sim_mmio_base(const struct sim *s);
/* The socket an access is made on, or -1. */
int sim_access_socket(const struct sim *s, const struct hw_addr *a);
/* The register an access reaches (index into s->regs; *half for a 4-byte
 * access to one half of an 8-byte register), or -1. */
int sim_find_reg(struct sim *s, const struct hw_addr *a, unsigned *half);
/* The simulated PCI function an access is made to, or NULL. */
const struct sim_fn *sim_find_fn(const struct sim *s,
				    const struct hw_addr *a);

#endif
