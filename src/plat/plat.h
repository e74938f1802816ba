/*
 * plat.h - platform descriptions: every uncore register, unit and event of
 * a supported CPU, as data.
 *
 * A platform is a NULL-terminated list of unit types (in the manner of the
 * Linux kernel's uncore tables) plus its global registers, its event
 * catalog and a small ops table for what cannot be data (topology
 * discovery).  The simulator builds its register model from these same
 * tables, and the sampler, ring, arbiter and HTTP code only ever see these
 * structures: adding a platform is adding data.
 *
 * Every address, field and width cites the manual table it comes from.
 */
#ifndef UNCORED_PLAT_H
#define UNCORED_PLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/hw.h"

#define PLAT_MAX_SOCKETS 8
#define PLAT_MAX_UNITS 16	/* unit types per platform */
#define PLAT_MAX_INST 32	/* instances of one unit type per socket */
#define PLAT_MAX_CTRS 8		/* programmable counters per instance */

/* Access attribute of a register field, as the manuals print them. */
enum reg_acc {
	ACC_RSV,	/* reserved: must be written 0, reads 0 */
	ACC_RW,
	ACC_RO,
	ACC_WO,		/* write-only: reads 0 (e.g. reset bits) */
	ACC_RW1C,	/* write 1 to clear */
};

struct reg_field {
	const char *name;
	uint8_t lo, hi;		/* inclusive bit range */
	enum reg_acc acc;
};

/* The bit layout of one register kind. */
struct reg_layout {
	const char *name;	/* manual's register name */
	const char *source;	/* "Table 2-7" */
	uint8_t bits;		/* register size: 64 or 32 */
	const struct reg_field *fields;
	size_t nfields;
};

/*
 * Mask of the bits in l whose attribute is acc.  For ACC_RSV the answer
 * is every bit of the register (below l->bits) that no non-reserved
 * field covers: a layout may list its reserved ranges as ACC_RSV fields
 * or leave them out, with the same result.
 */
uint64_t reg_mask(const struct reg_layout *l, enum reg_acc acc);
/* Bits a write may set: RW | WO | RW1C. */
uint64_t reg_writable(const struct reg_layout *l);
/* The field called name, or NULL. */
const struct reg_field *reg_field(const struct reg_layout *l, const char *name);
static inline uint64_t field_mask(const struct reg_field *f)
{
	unsigned w = (unsigned)(f->hi - f->lo + 1);
	return (w >= 64 ? ~0ull : ((1ull << w) - 1)) << f->lo;
}

/* Event-select field positions of a unit's control registers (width 0 =
 * the unit has no such field). */
struct evsel_fmt {
	uint8_t ev_lo, ev_w;		/* event code */
	uint8_t umask_lo, umask_w;
	uint8_t thresh_lo, thresh_w;
	uint8_t inv_bit, edge_bit, en_bit;	/* 0xff = absent */
	uint8_t ovf_en_bit, rst_bit;		/* 0xff = absent */
};

enum unit_kind {
	UNIT_PROG,	/* programmable counters with event selects */
	UNIT_FIXED,	/* one fixed-function counter with a control reg */
	UNIT_FREERUN,	/* free-running, read-only counters */
};

/* A free-running counter (e.g. SKL IMC, Table 3-3). */
struct freerun_ctr {
	const char *name;	/* "DRAM_DATA_READS" */
	uint32_t off;		/* offset from the unit base */
	uint8_t width;		/* counter bits */
	uint8_t access;		/* access size in bytes */
	const char *desc;
	double max_rate;	/* events/s upper bound (wrap check) */
};

struct unit_type {
	const char *name;	/* "cbo", "arb", "fixed", "imc" */
	const char *desc;
	const char *source;	/* manual table for the addresses */
	enum unit_kind kind;
	enum hw_space space;
	unsigned max_inst;	/* instances per socket at most */
	/* Instance i's base: inst_base[i] if set, else base + i*inst_stride.
	 * For MSR units the base is an MSR index; for MMIO units it is an
	 * offset added to the socket's MMIO base. */
	const uint32_t *inst_base;
	uint32_t base, inst_stride;
	/* counters (UNIT_PROG / UNIT_FIXED) */
	unsigned nctr;
	uint8_t width;			/* counter bits */
	uint32_t ctl_off, ctl_stride;	/* control i at base+ctl_off+i*stride */
	uint32_t ctr_off, ctr_stride;	/* counter i at base+ctr_off+i*stride */
	const struct reg_layout *ctl_layout;
	const struct reg_layout *ctr_layout;
	struct evsel_fmt fmt;
	/* overflow indication in the global status register (bit number,
	 * 0xff = none) */
	uint8_t global_ovf_bit;
	/* free-running counters (UNIT_FREERUN) */
	const struct freerun_ctr *freerun;
	unsigned nfreerun;
	/* Upper bound of any event's rate on one counter (events/s), for the
	 * "interval < half the shortest wrap time" check; 0 = no bound. */
	double max_rate;
};

/* A register that belongs to no unit (global control, status, config). */
struct plat_reg {
	uint32_t addr;			/* MSR index */
	const struct reg_layout *layout;
	uint64_t reset;
};

/*
 * struct event.flags: what an event needs besides its event select, and
 * what kind of counter it is.  A filter flag means the event (or this unit
 * mask) only counts what the named box-level filter register lets through,
 * so that register must be programmed for it; event.filter has the field
 * as the manual prints it.  References are to the Xeon E5/E7 v3 uncore
 * manual (331051-002).
 */
#define EVF_FILTER0	0x0001u	/* the unit's box filter 0: CBo
				   Cn_MSR_PMON_BOX_FILTER0 (state, tid),
				   Table 2-18 */
#define EVF_FILTER1	0x0002u	/* the unit's box filter 1: CBo
				   Cn_MSR_PMON_BOX_FILTER1 (opc, nid),
				   Table 2-19 */
#define EVF_HA_MATCH	0x0004u	/* HA address/opcode match:
				   HAn_PCI_PMON_BOX_ADDRMATCH0/1 and
				   _OPCODEMATCH, Tables 2-65 .. 2-67 */
#define EVF_PCU_BAND	0x0008u	/* a band of PCU_MSR_PMON_BOX_FILTER,
				   Table 2-160 */
#define EVF_QPI_MATCH	0x0010u	/* QPI packet match/mask
				   Q_Py_PCI_PMON_PKT_{RX,TX}_MATCH/MASK{0,1},
				   Tables 2-172 .. 2-175 */
#define EVF_IRP_FILTER	0x0020u	/* the IRP OrderingQ port filter
				   (IRP_PmonFilter.OrderingQ, 2.7.5) */
#define EVF_FIXED	0x0100u	/* a fixed counter, no event select */
#define EVF_FREERUN	0x0200u	/* a free-running counter outside PMON */

/* One catalog entry: an event and the encoding that selects it. */
struct event {
	const char *name;	/* "UNC_CBO_CACHE_LOOKUP.ANY_MESI" */
	const char *unit;	/* unit type name */
	uint8_t code, umask;
	uint8_t thresh;		/* threshold (counter mask) the event needs */
	bool edge, inv;
	uint8_t ctr_mask;	/* valid counters, bit i = counter i; 0 for
				   fixed and free-running counters */
	uint8_t max_inc;	/* max increment per cycle; 0 = not stated */
	const char *desc;
	const char *source;	/* "Table 3-1" */
	/*
	 * Fields below are zero / NULL for "none": a platform that needs
	 * none of them (skl) leaves them out of its initialisers.
	 */
	uint32_t flags;		/* EVF_* */
	const char *filter;	/* the filter dependency as the manual prints
				   it ("CBoFilter0[23:17]"), or NULL */
	uint16_t max_inc_wide;	/* max increment per cycle when it does not
				   fit max_inc (then 0): HA BT_OCCUPANCY,
				   512 (331051 2.5.5) */
	uint8_t ev_sel_ext;	/* 1: set the control register's event
				   select extension bit 21 ("Extra Select
				   Bit"; QPI Q_Py_PCI_PMON_CTL Table 2-170,
				   PCU_MSR_PMON_CTL Table 2-158) */
	uint8_t occ_sel;	/* PCU occupancy sub-counter, control bits
				   15:14 (PCU_MSR_PMON_CTL Table 2-158):
				   1 = cores in C0, 2 = C3, 3 = C6.  The same
				   bits are umask bits 7:6 of the entry, so
				   the umask already encodes it */
};

/* An encoding to program: what a catalog event or a raw "unit:ev:umask"
 * string resolves to. */
struct event_enc {
	uint8_t code, umask, thresh;
	bool edge, inv;
};

/* The CPU models a platform runs on. */
struct cpu_match {
	unsigned family, model;
};

/* Discovered layout of one socket. */
struct topo_socket {
	unsigned id;
	uint32_t cpu;		/* a logical CPU of the socket, for MSRs */
	uint16_t pci_domain;
	uint8_t pci_bus;	/* uncore PCI bus (HSX) */
	uint64_t mmio_base;	/* MMIO unit base (SKL: MCHBAR) */
	unsigned ninst[PLAT_MAX_UNITS];	/* present instances per unit */
};

struct platform;

struct topology {
	const struct platform *plat;
	unsigned nsockets;
	struct topo_socket sock[PLAT_MAX_SOCKETS];
};

struct plat_ops {
	/* Fills t from the hardware.  Returns 0 or -errno with a message
	 * (hw_last_error() style, via hw_fail()). */
	int (*discover)(struct hw *hw, struct topology *t);
	/* Global enable/disable (freeze) of all counters of a socket. */
	int (*global_enable)(struct hw *hw, const struct topology *t,
			     unsigned sock, bool on);
};

/*
 * Headline quantities the daemon derives its metrics from (DESIGN.md
 * section 7).  A platform says which catalog event counts each one and
 * with what scale; a quantity whose event is not counted is not exported.
 */
enum plat_qty {
	Q_LLC_LOOKUPS,
	Q_LLC_MISSES,
	Q_DRAM_READ_BYTES,
	Q_DRAM_WRITE_BYTES,
	Q_DRAM_REQ_IA,
	Q_DRAM_REQ_GT,
	Q_DRAM_REQ_IO,
	Q_CLOCK_TICKS,
	Q_ARB_REQUESTS,
	Q_ARB_OCCUPANCY,
	Q_COUNT
};

struct plat_qty_src {
	enum plat_qty q;
	const char *event;	/* catalog name, summed over instances */
	uint64_t scale;		/* e.g. 64 bytes per DRAM transfer */
};

struct platform {
	const char *id;		/* "skl" */
	const char *name;	/* human name */
	const char *manual;	/* document the data comes from */
	const struct cpu_match *cpus;	/* ended by {0, 0} */
	const struct unit_type *const *units;	/* NULL-terminated */
	/* global registers */
	struct plat_reg global_ctl;
	uint64_t global_enable;		/* value that enables counting */
	struct plat_reg global_status;
	const struct plat_reg *extra_regs;	/* RO config regs etc. */
	size_t nextra_regs;
	/* catalog */
	const struct event *events;
	size_t nevents;
	const struct plat_ops *ops;
	/* the daemon's own metrics */
	const struct plat_qty_src *qty;
	size_t nqty;
	const char *const *baseline;	/* default events, NULL-terminated */
};

/* All supported platforms, NULL-terminated. */
extern const struct platform *const plat_all[];
extern const struct platform plat_skl;

/* Platform by id ("skl"), or NULL. */
const struct platform *plat_by_id(const char *id);
/* Platform for a CPU, or NULL. */
const struct platform *plat_by_cpu(unsigned family, unsigned model);
/* Reads this CPU's family and model with CPUID.  Returns 0 or -ENODEV on
 * a non-Intel CPU. */
int plat_cpuid(unsigned *family, unsigned *model);

/* Unit type by name and its index in p->units, or NULL / -1. */
const struct unit_type *plat_unit(const struct platform *p, const char *name,
				  int *index);
/* Number of unit types of p. */
unsigned plat_nunits(const struct platform *p);

/*
 * Register addresses of unit u, instance inst, counter i on socket s.
 * MSR units: hw_msr(s->cpu, base + off + i * stride).  MMIO units:
 * s->mmio_base + base + off.  PCI units: the instance base is
 * (dev << 3) | fn on s->pci_domain:s->pci_bus, off is the config offset.
 * PCI/MMIO access width: the register layout's bits / 8, else 4 bytes
 * for control and 8 for counter registers; a free-running counter uses
 * its own access size.  An instance >= max_inst, a counter index out of
 * range, or the wrong kind of unit (plat_freerun_addr on a programmable
 * unit and vice versa) gives an address of width 0, which hw_read() and
 * hw_write() refuse with -EINVAL.
 */
struct hw_addr plat_ctl_addr(const struct topo_socket *s,
			     const struct unit_type *u, unsigned inst,
			     unsigned i);
struct hw_addr plat_ctr_addr(const struct topo_socket *s,
			     const struct unit_type *u, unsigned inst,
			     unsigned i);
struct hw_addr plat_freerun_addr(const struct topo_socket *s,
				 const struct unit_type *u, unsigned inst,
				 unsigned i);

/* Catalog lookup by exact event name, or NULL. */
const struct event *plat_event(const struct platform *p, const char *name);
/* Catalog entry matching an encoding (code, umask, thresh, edge, inv all
 * equal) in programmable unit `unit`, or NULL.  Fixed and free-running
 * counters have no encoding: find them with plat_event(). */
const struct event *plat_event_by_enc(const struct platform *p,
				      const char *unit,
				      const struct event_enc *e);
static inline struct event_enc event_enc_of(const struct event *ev)
{
	return (struct event_enc){ .code = ev->code, .umask = ev->umask,
				   .thresh = ev->thresh, .edge = ev->edge,
				   .inv = ev->inv };
}

/*
 * Parses a raw encoding "unit:0xEV:0xUMASK[:thresh=N][:edge][:inv]" into
 * *unit (pointer into p's data) and *e.  Numbers are 0x-prefixed hex or
 * decimal, nothing else; every value must fit its field of the unit's
 * event select; the unit must be programmable; unknown or repeated
 * modifiers are refused.  Returns 0, or -EINVAL with a message in why
 * (*unit and *e untouched).
 */
int plat_parse_raw(const struct platform *p, const char *s,
		   const struct unit_type **unit, struct event_enc *e,
		   char *why, size_t whylen);

/*
 * Builds the control-register value that counts e on counter ctr of unit
 * u, with the local enable bit set.  Refuses (-EINVAL, reason in why) a
 * value that does not fit its field, a counter the unit does not have, a
 * counter outside valid_mask (pass 0xff when no catalog restriction
 * applies), or any result with a bit outside the register's writable
 * fields.  Returns 0 and stores the value in *ctl.
 */
int plat_encode(const struct unit_type *u, const struct event_enc *e,
		unsigned ctr, uint8_t valid_mask, uint64_t *ctl,
		char *why, size_t whylen);
/* Inverse of plat_encode's field placement (ignores the enable bit). */
struct event_enc plat_decode(const struct unit_type *u, uint64_t ctl);

/* Counter value mask for a width. */
static inline uint64_t width_mask(unsigned bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

#endif
