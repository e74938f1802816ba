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
#include <string.h>

#include "hw/hw.h"

#define PLAT_MAX_SOCKETS 8
#define PLAT_MAX_UNITS 16	/* unit types per platform */
#define PLAT_MAX_INST 160	/* instances of one unit type per socket:
				   one CHA a core, up to 144 on Sierra
				   Forest SP (NEXT-PLATFORMS), rounded up
				   to a multiple of 32 */
#define PLAT_MAX_CTRS 16	/* programmable counters per instance: the
				   most uncored places, whatever a CPUID
				   count says (struct nctr_cpuid); masks of
				   counters are 16 bits wide (uint16_t) */
#define PLAT_MAX_FILTERS 8	/* box filter registers per unit (hsx QPI:
				   8 match/mask registers, Tables 2-172 ..
				   2-175); a unit table with more is refused
				   by plat_check() */
#define PLAT_MAX_CORES 64	/* physical cores per socket (hsx: 18) */

/*
 * A set of unit instances: bit i = instance i, for any i below
 * PLAT_MAX_INST.  Used by the topology (absent boxes), the scheduler
 * (instances holding a counter or a filter) and the daemon's checks.
 */
#define INST_SET_WORDS ((PLAT_MAX_INST + 63) / 64)
struct inst_set {
	uint64_t w[INST_SET_WORDS];
};

static inline bool iset_has(const struct inst_set *s, unsigned i)
{
	return i < PLAT_MAX_INST && (s->w[i / 64] >> (i % 64) & 1);
}
/* Adds instance i (ignored past PLAT_MAX_INST). */
static inline void iset_add(struct inst_set *s, unsigned i)
{
	if (i < PLAT_MAX_INST)
		s->w[i / 64] |= 1ull << (i % 64);
}
static inline void iset_or(struct inst_set *d, const struct inst_set *s)
{
	for (unsigned k = 0; k < INST_SET_WORDS; k++)
		d->w[k] |= s->w[k];
}
/* Does any instance lie in both a and b? */
static inline bool iset_meets(const struct inst_set *a,
			      const struct inst_set *b)
{
	for (unsigned k = 0; k < INST_SET_WORDS; k++)
		if (a->w[k] & b->w[k])
			return true;
	return false;
}
static inline bool iset_empty(const struct inst_set *s)
{
	for (unsigned k = 0; k < INST_SET_WORDS; k++)
		if (s->w[k])
			return false;
	return true;
}
/* Instances 0 .. n-1 (n capped at PLAT_MAX_INST). */
static inline struct inst_set iset_first(unsigned n)
{
	struct inst_set s = { { 0 } };

	for (unsigned i = 0; i < n && i < PLAT_MAX_INST; i++)
		iset_add(&s, i);
	return s;
}

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
/*
 * Checks a value a client asks for in a register of layout l (a box
 * filter): every set bit must lie in a writable field.  0, or -EINVAL
 * with why naming each offending field ("rsv 16:6") or the bits past the
 * register's size, and the manual's table.
 */
int reg_check_value(const struct reg_layout *l, uint64_t v, char *why,
		    size_t len);
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
	bool core_scope;	/* one MSR per physical core, read on every
				   core of the socket and summed (topo_socket
				   core_cpu); false: one per package */
	/* The perf backend: the kernel event that reads this counter, an
	 * alias under the PMU's events/ ("data_reads") or terms
	 * ("event=0xff,umask=0x20"), in PMU perf_pmu (NULL: the unit's
	 * perf.pmu; "cstate_core" for a core-scope counter the kernel
	 * exposes there).  NULL perf_event: not reachable through perf. */
	const char *perf_pmu;
	const char *perf_event;
};

/*
 * A box-level filter register: what an event with one of the EVF_*
 * filter flags needs programmed besides its event select (hsx: CBo
 * FILTER0/1 Tables 2-18/2-19, PCU band filter Table 2-160, HA match
 * Tables 2-65..2-67, QPI match/mask Tables 2-172..2-175).  One register
 * per entry; several entries may serve one flag (QPI: eight registers).
 */
struct unit_filter {
	const char *name;	/* manual's register name */
	uint32_t flag;		/* the EVF_* flag of the events it serves */
	uint32_t off;		/* offset from the filter's instance base */
	/* NULL: the unit's own instance base.  Else the base of each
	 * instance (a PCI filter in another function: QPI match/mask are
	 * in D8/D9/D10 F6, Table 1-3) and, if pci_devid is set, that
	 * function's PCI device ID per instance. */
	const uint32_t *inst_base;
	const uint16_t *pci_devid;
	const struct reg_layout *layout;
};

/* struct unit_type.quirks: errata the protocol code must honour. */
#define UNIT_Q_CTL_TWICE	0x1u	/* write each counter control twice,
					   first with the enable bit clear
					   (hsx SBo 2.4.1 / Table 2-47 note,
					   R2PCIe 2.10.2.2, R3QPI 2.11.1):
					   plat_write_ctl() */
#define UNIT_Q_BOX_BITWISE	0x2u	/* set box-control bits one write at
					   a time (hsx SBo; see
					   doc/hardware-notes.md):
					   plat_box_write() */

/*
 * The kernel's perf PMU of one unit type (struct unit_type.perf): what the
 * perf backend opens instead of programming registers (doc/design.md section
 * 3, "perf").  Platform words, cited to the kernel source that defines
 * them (.source; doc/hardware-notes.md).  The daemon finds the PMU under
 * SYSFS/bus/event_source/devices/ by this name and reads its format/ and
 * events/ files there; the format and event facts below are what the
 * kernel writes into those files, and only the simulated kernel uses
 * them (to build its sysfs tree): the daemon never encodes from them.
 */
struct perf_fact {
	const char *name;	/* format field or event alias name */
	const char *value;	/* "config:0-7,32-35" / "event=0xff,umask=0x0" */
	/* events/NAME.scale as the kernel's table spells it, written
	 * verbatim ("6.103515625e-5", arch/x86/events/intel/uncore_snbep.c
	 * snbep_uncore_imc_events), NULL: no file */
	const char *scale;
	const char *unit;	/* events/NAME.unit (NULL: no file) */
};

/* How a box filter register's field is named among the PMU's format
 * fields (hsx CBo FILTER0 "state" -> "filter_state"). */
struct perf_filter_map {
	uint8_t filter;		/* index into unit_type.filters */
	const char *field;	/* the register layout's field name */
	const char *format;	/* the kernel's format field name */
};

struct perf_unit {
	/* "uncore_cha_%u": one PMU per box, %u the box number; any other
	 * name: one PMU whose cpumask names one CPU per box ("uncore_pcu":
	 * a box per socket; "amd_l3": a box per L3 complex; "amd_df": per
	 * socket, or per die on kernels before 6.10). */
	const char *pmu;
	const char *source;	/* "arch/x86/events/intel/uncore_snbep.c:
				   skx_uncore_chabox" */
	const char *since;	/* first kernel version with it, or NULL */
	const char *until;	/* first kernel version without it (a name
				   a later kernel replaced: .older), or
				   NULL */
	const struct perf_fact *format;	/* ended by a NULL name */
	const struct perf_fact *events;	/* ended by a NULL name; may be
					   NULL */
	/* Where the kernel changed the alias set (gnr imc: the 2026
	 * per-scheduler CAS events replaced cas_count_read/_write):
	 * events is the set from kernel events_since on, events_before the
	 * set before it.  NULL events_since: events on every kernel. */
	const char *events_since;
	const struct perf_fact *events_before;
	/* The format fields the encoding's parts go into, where the kernel
	 * names them otherwise than "event", "umask", "edge", "inv",
	 * "thresh" (NULL: that default). */
	const char *f_event, *f_umask, *f_edge, *f_inv, *f_thresh;
	const struct perf_filter_map *filters;	/* ended by a NULL field */
	/* UNIT_FIXED: the terms that select the fixed counter
	 * ("event=0xff"), or an alias name under events/. */
	const char *fixed;
	/* The format field that takes struct event.occ_sel (hsx/snbep PCU
	 * "occ_sel", config:14-15: the kernel has no umask field there, the
	 * unit's umask is occ_sel << 6); NULL: none. */
	const char *f_occ;
	/* Its events/ files end in a newline: the PMU's aliases are shown
	 * by perf_event_sysfs_show() (kernel/events/core.c, "%s\n"; the
	 * cstate PMUs' PMU_EVENT_ATTR_STRING), not by the uncore drivers'
	 * uncore_event_show() (arch/x86/events/intel/uncore.c, "%s"). */
	bool events_nl;
	/* A second PMU some of this unit's free-running counters are read
	 * through (freerun_ctr.perf_pmu names it): hsx/snbep pcu_cstate's
	 * core-scope residencies are in "cstate_core" beside the unit's
	 * "cstate_pkg".  Its own format/ and events/ facts; NULL: none. */
	const struct perf_unit *also;
	/* The same unit on kernels before .since, where the kernel names it
	 * otherwise (gnr before 6.8: the discovery code's generic
	 * "uncore_type_<type>_%u" with the generic format): the perf
	 * backend looks for older->pmu where it finds no .pmu, and the
	 * simulated kernel of a release before .since builds older (each
	 * with its own since; a chain).  NULL: none. */
	const struct perf_unit *older;
};

/*
 * How a catalog event becomes kernel terms (the perf backend's encoder;
 * facts above): event = code, plus ev_sel_ext << 8 where the PMU's
 * "event" format is 9 bits wide (hsx/snbep QPI "config:0-7,21": the
 * ninth bit is the control register's bit 21); umask = the event's
 * umask, Intel's UMaskExt included (the format places the bits above 7,
 * e.g. icx CHA "config:8-15,32-57"); edge, inv and thresh as the
 * unit's f_* name them; box-filter values through filters[]; then
 * perf_terms.  A value whose field the PMU lacks cannot be counted
 * through perf (hsx CBo has no "inv"; no Xeon PMU has the HA
 * address/opcode match or the PCU's ev_sel_ext): the encoder refuses
 * it, naming the PMU and the field.
 */

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
	/* counters (UNIT_PROG / UNIT_FIXED); a unit whose count the kernel
	 * reads from CPUID (nctr_cpuid, below) has this many where CPUID
	 * does not say: use the machine's platform (plat_machine()) */
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
	/* Upper bound of any event's rate on one counter (events/s): the
	 * largest increment per cycle of any event of the unit's catalog at
	 * the highest clock; 0 = no bound.  plat_event_max_rate() gives an
	 * event's own bound where the catalog states its increment. */
	double max_rate;
	/* The highest clock the unit's events count at (Hz): an event's
	 * bound is its max_inc (max_inc_wide) times this.  0: every event
	 * takes max_rate. */
	double max_clk_hz;
	/*
	 * ---- Box level (appended for hsx).  Zero / NULL = none, so a
	 * platform without these (skl) leaves them out. ----
	 *
	 * Box control and box status registers at instance base + off
	 * (PCI: config offset in the instance's function); present iff
	 * the layout is set.  The control's "frz", "rst_ctrs" and
	 * "rst_ctrl" fields are found by name (reg_field()).
	 */
	const struct reg_layout *box_ctl_layout;
	uint32_t box_ctl_off;
	const struct reg_layout *box_status_layout;
	uint32_t box_status_off;
	/* Bits every box-control write must set: the reserved field the
	 * manual says "SW must write to 1" (hsx bits 17:16, Table 2-14 and
	 * its copies).  They stay ACC_RSV in the layout (they read 0 and
	 * carry no function we use); plat_box_write() adds them. */
	uint64_t box_ctl_must1;
	/* Box filter registers (struct unit_filter). */
	const struct unit_filter *filters;
	unsigned nfilters;
	/* Control-register bit set for a catalog event with ev_sel_ext
	 * ("Extension bit to the Event Select field": hsx QPI Table 2-170,
	 * PCU Table 2-158, bit 21); 0 = none.  See plat_encode_event(). */
	uint8_t ev_ext_bit;
	/* Occupancy modifiers (hsx PCU Table 2-158: occ_edge_det 31,
	 * occ_invert 30), used instead of / besides edge_det and invert
	 * when the event code has bit 7 set (an occupancy event): an
	 * encoding's edge sets occ_edge_bit (not edge_bit), its inv sets
	 * both inv_bit and occ_inv_bit (Table 2-165 cases 4 and 6).
	 * 0 = none. */
	uint8_t occ_edge_bit, occ_inv_bit;
	/* Global-status overflow bit of each instance when they differ
	 * (hsx HA0/HA1 = ov_h0/ov_h1, Table 2-3); NULL = global_ovf_bit
	 * for every instance.  Read through plat_global_ovf_bit(). */
	const uint8_t *inst_global_ovf;
	/* PCI units: the device ID of each instance's function as the
	 * manual lists it (Table 1-3).  Discovery accepts, at an
	 * instance's device:function, any ID of this list (see
	 * doc/hardware-notes.md, "iMC device IDs").  NULL: not checked. */
	const uint16_t *pci_devid;
	uint32_t quirks;		/* UNIT_Q_* */
	/* The kernel's PMU for this unit (perf backend); NULL: none, the
	 * unit is not counted in perf mode. */
	const struct perf_unit *perf;
	/* Where the machine says how many counters the unit has, as the
	 * kernel reads it (AMD DF: CPUID 0x80000022 EBX NumDfPmc under
	 * PerfMonV2); NULL: nctr on every machine of the platform. */
	const struct nctr_cpuid *nctr_cpuid;
};

/*
 * A counter count the kernel takes from CPUID: bits lo..hi of register
 * reg (0 EAX, 1 EBX, 2 ECX, 3 EDX) of leaf (subleaf 0), when bit
 * feat_bit of register feat_reg of leaf feat_leaf is set and both leaves
 * exist (the highest leaf of their range, CPUID 0x00000000 or
 * 0x80000000 EAX, reaches them); else the unit's nctr.  AMD DF
 * (arch/x86/events/amd/uncore.c amd_uncore_df_ctx_scan()): NumDfPmc,
 * CPUID 0x80000022 EBX[15:10], when PerfMonV2 (CPUID 0x80000022 EAX
 * bit 0) is there; else NUM_COUNTERS_NB, 4.  plat_unit_nctr() decodes it.
 */
struct nctr_cpuid {
	uint32_t feat_leaf;
	uint8_t feat_reg, feat_bit;
	uint32_t leaf;
	uint8_t reg, lo, hi;
	const char *what;	/* "NumDfPmc", for messages */
	const char *source;	/* the kernel function that reads it */
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
	uint16_t code;		/* event select; AMD data fabric: 14 bits */
	uint64_t umask;		/* unit mask; Intel's UMaskExt above bit 7
				   (icx/spr CHA), AMD DF: 12 bits */
	uint8_t thresh;		/* threshold (counter mask) the event needs */
	bool edge, inv;
	uint16_t ctr_mask;	/* valid counters, bit i = counter i; 0 for
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
	/* perf backend: further terms the kernel event needs besides
	 * event/umask/edge/inv/thresh, in the kernel's own alias syntax
	 * ("filter_state=0x1,filter_opc=0x202", "threadmask=0xff"), each
	 * encoded through the PMU's format/ files; NULL: none */
	const char *perf_terms;
	uint8_t occ_sel;	/* PCU occupancy sub-counter, control bits
				   15:14 (PCU_MSR_PMON_CTL Table 2-158):
				   1 = cores in C0, 2 = C3, 3 = C6.  The same
				   bits are umask bits 7:6 of the entry, so
				   the umask already encodes it */
	/* The kernel's events/NAME.scale and .unit of the alias this
	 * entry is (platform generic: a count times kernel_scale is
	 * kernel_unit, "MiB"); 0 / NULL: none (every table's events). */
	double kernel_scale;
	const char *kernel_unit;
};

/* An encoding to program: what a catalog event or a raw "unit:ev:umask"
 * string resolves to. */
struct event_enc {
	uint16_t code;
	uint64_t umask;
	uint8_t thresh;
	bool edge, inv;
};

/* The CPU models a platform runs on. */
struct cpu_match {
	unsigned family, model;
	/* stepping range (both 0: any): skx 06_55 steppings 0-4 Skylake-SP,
	 * 5-7 Cascade Lake, 10-11 Cooper Lake */
	uint8_t step_lo, step_hi;
};

/* Where discovery found one PCI unit instance's function. */
struct pci_loc {
	uint16_t domain;
	uint8_t bus, dev, fn;
	bool found;
};

/* The PCI locators of one unit type's instances on a socket. */
struct topo_pci {
	const struct unit_type *u;	/* NULL: unused entry */
	struct pci_loc inst[PLAT_MAX_INST];
};

/* Discovered layout of one socket. */
struct topo_socket {
	unsigned id;
	uint32_t cpu;		/* a logical CPU of the socket, for MSRs */
	/* hsx: the bus of the socket's UBox, where discovery starts
	 * looking for its other PCI units; registers are addressed through
	 * the per-instance locators in pci[] (plat_pci_place()), which may
	 * name any domain, bus, device and function. */
	uint16_t pci_domain;
	uint8_t pci_bus;
	uint64_t mmio_base;	/* MMIO unit base (SKL: MCHBAR) */
	unsigned ninst[PLAT_MAX_UNITS];	/* present instances per unit */
	/* ---- appended for hsx; zero = none ---- */
	/* Instances below ninst[u] that are missing, e.g. a QPI port
	 * whose PCI function is not there: the unit is reported
	 * unavailable for that instance and everything else works.  Empty
	 * = instances 0 .. ninst-1 all present (skl).  Test with
	 * topo_present(). */
	struct inst_set absent[PLAT_MAX_UNITS];
	uint8_t node_id;	/* hsx: the UBox's node ID (CPUNODEID, PCI
				   offset 0x40, bits 2:0; manual 1.6.1) */
	uint8_t ubox_dev, ubox_fn;	/* hsx: where the UBox device was
					   found on pci_bus */
	/* hsx: one logical CPU of each physical core, for core-scope MSRs
	 * (freerun_ctr.core_scope); ncores 0 = none found. */
	uint32_t core_cpu[PLAT_MAX_CORES];
	unsigned ncores;
	/* The package's cores as the hardware enumerates them, offline ones
	 * included (hw_cpu_map.hw_cores); 0: unknown.  snbep's CBo count
	 * follows it (the kernel's min(8, cores per package)). */
	unsigned hw_cores;
	/* PCI units: where each instance's function is (one entry per
	 * unit type with a PCI instance found; see topo_pci_loc()) */
	struct topo_pci pci[PLAT_MAX_UNITS];
};

/* Where instance inst of PCI unit u is on socket s, or NULL (not found
 * at discovery: its registers have no address). */
const struct pci_loc *topo_pci_loc(const struct topo_socket *s,
				   const struct unit_type *u, unsigned inst);
/* Records that instance inst of u is the function dev.fn on
 * domain:bus.  0, or -EINVAL (inst past the unit or PLAT_MAX_INST) /
 * -E2BIG (more than PLAT_MAX_UNITS PCI unit types), with an hw_fail()
 * message. */
int topo_set_pci_loc(struct topo_socket *s, const struct unit_type *u,
		     unsigned inst, struct pci_loc loc);
/* topo_set_pci_loc() at the device and function the unit table gives
 * instance inst (its inst_base), on domain:bus. */
int plat_pci_place(struct topo_socket *s, const struct unit_type *u,
		   unsigned inst, uint16_t domain, uint8_t bus);

/* Is instance inst of unit index unit present on socket s? */
static inline bool topo_present(const struct topo_socket *s, unsigned unit,
				unsigned inst)
{
	return unit < PLAT_MAX_UNITS && inst < s->ninst[unit] &&
	       inst < PLAT_MAX_INST && !iset_has(&s->absent[unit], inst);
}

struct platform;
struct plat_sim;

struct topology {
	const struct platform *plat;
	unsigned nsockets;
	struct topo_socket sock[PLAT_MAX_SOCKETS];
	/* What discovery found but cannot count, and why, for the start-up
	 * log (plat_note()); "" when everything found is served.  Those
	 * instances are absent (topo_present() false). */
	char note[384];
};

/* Appends a sentence to t->note (truncated to fit). */
void plat_note(struct topology *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Where each package's CPUs are: struct hw_cpu_map (hw/hw.h). */

struct plat_ops {
	/* Fills t from the hardware.  Returns 0 or -errno with a message
	 * (hw_last_error() style, via hw_fail()). */
	int (*discover)(struct hw *hw, struct topology *t);
	/* Enable (unfreeze) or disable (freeze) all counters of a socket:
	 * the global control where the platform has one (skl EN, hsx
	 * frz_all/unfrz_all), every box's freeze bit where it has none
	 * (snbep).  NULL: the platform cannot freeze (counters are read
	 * while counting).  Call through pmu_enable(). */
	int (*global_enable)(struct hw *hw, const struct topology *t,
			     unsigned sock, bool on);
	/* ---- appended for hsx; NULL = not needed ---- */
	/* discover() with a CPU map: which logical CPU reaches each
	 * package's MSRs.  NULL: the platform needs none (skl: one
	 * socket, CPU 0).  Call through plat_discover(). */
	int (*discover_map)(struct hw *hw, struct topology *t,
			    const struct hw_cpu_map *m);
	/* Resets every present box of a socket and arms it for the global
	 * freeze (hsx 2.1.2 step d, 2.1.4 b): global overflow status
	 * cleared, box control rst_ctrl|rst_ctrs with its must-be-one
	 * bits, box overflow status cleared, and the control and counter
	 * registers of boxes without a box control (UBox) written 0.
	 * Free-running counters are not touched.  Call it once before the
	 * first global enable; 0 or the first -errno (continues past
	 * errors). */
	int (*reset_boxes)(struct hw *hw, const struct topology *t,
			   unsigned sock);
	/* ---- appended for platforms without a global control ---- */
	/* Is socket sock's PMU frozen / enabled as the daemon left it
	 * (expect_on: enabled)?  1 if not (*seen: what was read), 0 if it
	 * is, -errno if it cannot be read.  NULL: plat_global_check() if
	 * the platform has a global control register, else nothing readable
	 * says so (snbep: the box freeze bits are write-only) and only the
	 * counter controls are checked (pmu_check_controls()). */
	int (*check)(struct hw *hw, const struct topology *t, unsigned sock,
		     bool expect_on, uint64_t *seen);
};

/*
 * Derived metrics as data (doc/design.md section 7).  Each platform has one
 * table, struct derived_table: named sources and the metrics computed
 * from them.  The evaluator (src/core/derive.c) and every renderer (/metrics,
 * /api/v1/metrics, the rates in /api/v1/samples and the live page)
 * iterate this table; nothing above src/plat/ names a metric.
 *
 * A source is one baseline event, as the baseline names it (with any
 * :filterN=/:split= modifiers), summed over the instances of its unit in
 * a socket (or taken on one instance, for a per-instance metric) and
 * multiplied by scale: { "dram_rd", "UNC_M_CAS_COUNT.RD", 64 } is bytes
 * read from DRAM.  A :split event is scaled up to every instance.
 *
 * A metric is:
 *   name   the Prometheus family, "uncore_dram_read_bytes_total".
 *          Entries of one family (same name, different fixed labels)
 *          are adjacent and agree on help, type, unit and labels.
 *   json   its key in /api/v1/metrics and /api/v1/samples
 *          ("dram_read_bytes_total"), unique among the metrics of the
 *          same per (a socket object and a "channels" entry are
 *          different scopes).
 *   help   the # HELP text; unit: the unit the name ends in ("bytes",
 *          "ratio", "hertz", "bytes_per_second") or NULL.
 *   type   DM_COUNTER: a running total (monotonic, base units, name
 *          ending in _total), whose formula may only use DF_SRC, DF_ADD
 *          and DF_SCALE with k >= 0 (so it never goes down); DM_GAUGE:
 *          a value over the last sampling interval.  A Prometheus summary
 *          without quantiles is a pair of adjacent entries with the same
 *          name (not ending in _total) and fixed labels: DM_SUM, the
 *          _sum, a running total of what its formula gives each interval
 *          over that interval's increments (it may divide: DF_RATIO, and
 *          DF_RATE divides by the time the counters counted; no DF_SUB,
 *          so it never goes down), then DM_COUNT, the _count, a counter
 *          as DM_COUNTER.  Request-seconds are occupancy / (clock /
 *          seconds): { DF_SRC("occ"), DF_SRC("clk"), DF_RATE, DF_RATIO }
 *          with clk the mean of one box (derived_src.mean).
 *   per    NULL: one series per socket {socket}; or a label name
 *          ("channel", "port"): one series per instance of the sources'
 *          unit {socket, channel}, whose sources all belong to one unit.
 *          A family has one aggregation level: per-socket and
 *          per-instance values never share a name (sum() of a family is
 *          meaningful).  In JSON, per-instance values go in an array
 *          named after the label plus "s" ("channels").
 *   fixed  up to DM_MAX_FIXED name/value label pairs after socket (and
 *          per), NULL-terminated: { "direction", "read", NULL }.
 *   f      the formula, postfix, at most DM_MAX_STEPS steps, ended by
 *          the first zero step (DF_END):
 *            DF_SRC("x")   push source x
 *            DF_ADD        a + b          DF_SUB    a - b
 *            DF_SCALE(k)   a * k          DF_RATIO  a / b (NaN if b = 0)
 *            DF_RATE       a / interval seconds (gauges only)
 *          e.g. the LLC hit ratio (lookups - misses) / lookups:
 *            { DF_SRC("lookups"), DF_SRC("misses"), DF_SUB,
 *              DF_SRC("lookups"), DF_RATIO }
 *   json_only  (optional, last) a gauge served in /api/v1/metrics and
 *          the samples only, never a /metrics family (a summary's mean
 *          over the last interval: Prometheus takes rate(_sum)/rate(_count)).
 * A metric is exported when the program counts every source it names; a
 * gauge whose inputs were invalid this interval has no value (NaN).
 * Sources with alternatives and means: see struct derived_src.
 * Adding a metric is one entry here (plus its test); a new platform
 * writes its derived_<id>.c, may start from the shared headline entries
 * of src/plat/derived.h (sources named "lookups", "misses", "dram_rd",
 * "dram_wr", "clock"), and sets platform.derived.
 * tests/unit/test_derive.c checks these rules on every platform's table.
 */
enum dm_type { DM_COUNTER, DM_GAUGE, DM_SUM, DM_COUNT };
enum dm_op { DF_END_, DF_SRC_, DF_ADD_, DF_SUB_, DF_SCALE_, DF_RATIO_,
	     DF_RATE_ };

struct dm_step {
	enum dm_op op;
	const char *src;	/* DF_SRC: source name */
	double k;		/* DF_SCALE: factor */
};

#define DF_END { DF_END_, NULL, 0 }
#define DF_SRC(name) { DF_SRC_, name, 0 }
#define DF_ADD { DF_ADD_, NULL, 0 }
#define DF_SUB { DF_SUB_, NULL, 0 }
#define DF_SCALE(f) { DF_SCALE_, NULL, f }
#define DF_RATIO { DF_RATIO_, NULL, 0 }
#define DF_RATE { DF_RATE_, NULL, 0 }

#define DM_MAX_STEPS 12
#define DM_MAX_FIXED 2

struct derived_src {
	const char *name;	/* referenced by DF_SRC */
	const char *event;	/* baseline event, modifiers included */
	double scale;		/* e.g. 64 bytes per DRAM transfer */
	/* The socket's value is the mean over the unit's present instances,
	 * not their sum: a clock every instance counts (icx/spr
	 * UNC_CHA_CLOCKTICKS, Intel's uncore_frequency metric divides by
	 * the CHA count).  Per-instance values are unchanged. */
	bool mean;
	/* Alternatives.  Several entries may share a name (adjacent): those
	 * with the same alt are summed into the one source (zen4 DRAM reads
	 * over the data fabric: 24 coherent-station events), and of the alt
	 * groups the first whose every unit the topology has (some socket
	 * has an instance) is used, the others are not: "UMC where the
	 * kernel has amd_umc_N, else the data fabric" is alt 0 = UMC, alt 1
	 * = DF.  derive_source_event() says which was chosen. */
	unsigned alt;
};

struct derived_metric {
	const char *name;
	const char *json;
	const char *help;
	const char *unit;
	enum dm_type type;
	const char *per;
	const char *fixed[2 * DM_MAX_FIXED + 1];
	struct dm_step f[DM_MAX_STEPS];
	bool json_only;
};

/* Is dm's value a whole number (served rounded)?  Counts and bytes are;
 * a counter of seconds (PCU cycles over its clock) keeps its fractions. */
static inline bool dm_whole(const struct derived_metric *dm)
{
	return dm->type == DM_COUNT ||
	       (dm->type == DM_COUNTER &&
		!(dm->unit && strcmp(dm->unit, "seconds") == 0));
}

struct derived_table {
	const struct derived_src *src;
	size_t nsrc;
	const struct derived_metric *m;
	size_t nm;
};

struct platform {
	const char *id;		/* "skl" */
	const char *name;	/* human name */
	const char *manual;	/* document the data comes from */
	const struct cpu_match *cpus;	/* ended by {0, 0} */
	const struct unit_type *const *units;	/* NULL-terminated */
	/* global registers; global_ctl.layout NULL = the platform has no
	 * global control (nor global status): freeze and check are ops */
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
	/* the daemon's own metrics (derived_<id>.c); NULL: none (only
	 * uncore_event_total and the self-metrics) */
	const struct derived_table *derived;
	const char *const *baseline;	/* default events, NULL-terminated */
	/* default events of the memory read latency families (issue 41),
	 * after the others, unless [baseline] memory_latency = no: they
	 * hold counter 0 of every CBo/CHA (occupancy counts there only);
	 * NULL or NULL-terminated */
	const char *const *baseline_latency;
	/* the frequency limit events (uncore_frequency_limited_seconds_
	 * total{domain="core"}), counted after the latency events as
	 * [baseline] frequency_limits says (auto: where they fit beside
	 * the unit's other defaults); NULL or NULL-terminated */
	const char *const *baseline_freq;
	/* the simulator's data beyond the unit tables (plat_sim.h); NULL:
	 * the simulator's defaults, no registers outside the tables */
	const struct plat_sim *sim;
	/* ---- appended for the perf backend ---- */
	const char *vendor;	/* CPUID vendor; NULL: "GenuineIntel" */
	unsigned backends;	/* PLAT_BE_*; 0: direct only (the seeds
				   before their perf data) */
	/* Where the platform's support was checked on real hardware, by
	 * whom and when (--list-platforms, README); NULL: on the simulator
	 * only. */
	const char *checked;
};
#define PLAT_BE_DIRECT 0x1u	/* registers: MSR, PCI config, MMIO */
#define PLAT_BE_PERF 0x2u	/* the kernel's uncore PMUs */

/* All supported platforms, NULL-terminated. */
extern const struct platform *const plat_all[];
extern const struct platform plat_skl;
extern const struct platform plat_hsx;
extern const struct derived_table derived_skl;
extern const struct derived_table derived_hsx;
extern const struct derived_table derived_snbep;
extern const struct platform plat_snbep;
/* Reached through the perf backend only (backends PLAT_BE_PERF). */
extern const struct platform plat_skx, plat_icx, plat_spr, plat_zen4;
extern const struct platform plat_zen5;
extern const struct platform plat_zen3;
extern const struct derived_table derived_skx, derived_icx, derived_spr,
	derived_zen4;
/* The Core clients since Alder Lake (plat_adl.c; perf only). */
extern const struct platform plat_adl, plat_mtl;
extern const struct derived_table derived_adl;
extern const struct derived_table derived_zen5;
/* Xeon 6 Granite Rapids / Sierra Forest (plat_gnr.c; perf only). */
extern const struct platform plat_gnr;
extern const struct derived_table derived_gnr;
extern const struct derived_table derived_zen3;

/* The platform an open hw backend models (the simulator's), or NULL when
 * it is the CPU's (the real machine: plat_cpuid()). */
const struct platform *plat_of_hw(const struct hw *hw);

/*
 * One CPUID reading of leaf, subleaf sub into r[0..3] = EAX, EBX, ECX,
 * EDX, on the machine ctx stands for (the real CPU: hw_cpuid(); the
 * simulated one: wl_cpuid()).  0, or -errno (no CPUID).
 */
typedef int (*plat_cpuid_fn)(void *ctx, uint32_t leaf, uint32_t sub,
			     uint32_t r[4]);
/*
 * The count the kernel takes for a unit described by c: CPUID's field
 * where the feature bit is set and both leaves exist, else dflt (its
 * fixed count); uncapped, 0 where CPUID says 0.  *from_cpuid (may be
 * NULL): whether the field was used.
 */
unsigned plat_kernel_nctr(const struct nctr_cpuid *c, unsigned dflt,
			  plat_cpuid_fn cpuid, void *ctx, bool *from_cpuid);
/*
 * The number of counters unit u has on the machine cpuid reads: its
 * nctr_cpuid's as the kernel decodes it (struct nctr_cpuid), capped at
 * PLAT_MAX_CTRS; u->nctr for a unit without one, where the feature is
 * absent, where CPUID cannot be read or says 0 (the kernel registers no
 * PMU then).  note (may be NULL) receives a sentence saying where the
 * count came from, or "" for u->nctr without a word from CPUID.
 */
unsigned plat_unit_nctr(const struct unit_type *u, plat_cpuid_fn cpuid,
			void *ctx, char *note, size_t len);
/* The most counters u may have on any machine: PLAT_MAX_CTRS for a unit
 * with nctr_cpuid, else nctr (catalog masks may name them all). */
unsigned plat_unit_nctr_max(const struct unit_type *u);
/*
 * The platform as this machine has it: p itself when no unit's counter
 * count comes from CPUID or every such count is the table's, else a copy
 * of p whose units with a CPUID count carry this machine's
 * (plat_unit_nctr()).  The copy shares everything else with p; release
 * it with plat_machine_free().  note (may be NULL) receives what CPUID
 * said, "" when nothing.  0 and *out, or -ENOMEM.
 */
int plat_machine(const struct platform *p, plat_cpuid_fn cpuid, void *ctx,
		 const struct platform **out, char *note, size_t len);
/* Frees m if it is a copy made by plat_machine() from p. */
void plat_machine_free(const struct platform *m, const struct platform *p);

/* Platform by id ("skl"), or NULL. */
const struct platform *plat_by_id(const char *id);
/* Platform for an Intel CPU's family and model, or NULL. */
const struct platform *plat_by_cpu(unsigned family, unsigned model);

/* What CPUID says about this CPU. */
struct plat_cpu {
	char vendor[13];		/* "GenuineIntel", "AuthenticAMD", ... */
	unsigned family, model;		/* display family and model */
	unsigned stepping;
};
/* Reads this CPU's vendor, family and model with CPUID (any vendor).
 * Returns 0, or -ENODEV where there is no CPUID. */
int plat_cpuid(struct plat_cpu *cpu);
/* The platform for cpu: a supported vendor, family, model and stepping
 * (struct cpu_match), else NULL. */
const struct platform *plat_for_cpu(const struct plat_cpu *cpu);
/* Why a CPU that matches no platform is refused where that is known
 * (AMD family 17h, Zen 2), else NULL.  A constant string. */
const char *plat_refusal(const struct plat_cpu *cpu);
/* Writes the supported platforms to buf, ", "-separated: the ids, each
 * followed by " (name)" when names is set.  Returns buf. */
char *plat_list(char *buf, size_t len, bool names);

/* Unit type by name and its index in p->units, or NULL / -1. */
const struct unit_type *plat_unit(const struct platform *p, const char *name,
				  int *index);
/* Number of unit types of p. */
unsigned plat_nunits(const struct platform *p);

/*
 * Register addresses of unit u, instance inst, counter i on socket s.
 * MSR units: hw_msr(s->cpu, base + off + i * stride).  MMIO units:
 * s->mmio_base + base + off.  PCI units: the instance's function is
 * where discovery located it (topo_pci_loc(); an instance without a
 * locator has no address), off is the config offset; a register the
 * table puts in another function (a filter's inst_base) is that
 * function on the instance's domain and bus.
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

/*
 * Box-level addresses (same conventions as plat_ctl_addr()): unit u's box
 * control and box status of instance inst, and its filter register f
 * (index into u->filters).  Width 0 (refused by hw_read/hw_write) when
 * the unit has no such register or inst / f is out of range.  Access
 * size: the layout's bits / 8 for PCI (box and filter registers are 32
 * bits on hsx), 8 for MSRs.
 */
struct hw_addr plat_box_ctl_addr(const struct topo_socket *s,
				 const struct unit_type *u, unsigned inst);
struct hw_addr plat_box_status_addr(const struct topo_socket *s,
				    const struct unit_type *u, unsigned inst);
struct hw_addr plat_filter_addr(const struct topo_socket *s,
				const struct unit_type *u, unsigned inst,
				unsigned f);
/* Instance inst's base (MSR index, MMIO offset or PCI (dev << 3) | fn);
 * false if inst >= max_inst. */
bool plat_inst_base(const struct unit_type *u, unsigned inst, uint32_t *base);
/* Global-status overflow bit of instance inst (0xff = none). */
uint8_t plat_global_ovf_bit(const struct unit_type *u, unsigned inst);

/*
 * Writes bits (e.g. rst_ctrl | rst_ctrs, or frz) to the box control of
 * instance inst, adding u->box_ctl_must1; with UNIT_Q_BOX_BITWISE the
 * bits are set one write at a time, lowest first, each write keeping the
 * bits before it.  Refuses (-EINVAL, hw_fail message) a unit without box
 * control or bits outside the control's writable fields.  0 or -errno.
 */
int plat_box_write(struct hw *hw, const struct topo_socket *s,
		   const struct unit_type *u, unsigned inst, uint64_t bits);
/* Writes a counter control register of unit u at a: once, or for
 * UNIT_Q_CTL_TWICE first with the enable bit clear and then val.
 * 0 or -errno. */
int plat_write_ctl(struct hw *hw, const struct unit_type *u,
		   const struct hw_addr *a, uint64_t val);
/* The generic reset_boxes op (struct plat_ops): see there. */
int plat_reset_boxes(struct hw *hw, const struct topology *t, unsigned sock);
/* The global_enable op of a platform without a global control (snbep):
 * every present box with a box control of socket sock gets frz (off) or
 * not (on), plus its must-be-one bits (snbep frz_en), as one whole write
 * each (never read-modify-write: the bits are write-only).  Boxes without
 * a box control (snbep UBox) cannot be frozen.  0 or the first -errno
 * (continues past errors). */
int plat_freeze_boxes(struct hw *hw, const struct topology *t, unsigned sock,
		      bool on);
/* The check op (struct plat_ops) of a platform with a global control:
 * compares the register with global_enable (expect_on) or 0, ignoring
 * its write-only bits (hsx frz_all/unfrz_all read 0). */
int plat_global_check(struct hw *hw, const struct topology *t, unsigned sock,
		      bool expect_on, uint64_t *seen);
/* Can the platform's freeze (its global_enable op) stop unit index ui's
 * counters?  With a global control every unit's can; without one, only
 * those of units with a box control (snbep: not the UBox's).
 * Free-running counters are not frozen on any platform. */
bool plat_unit_freezable(const struct platform *p, int ui);
/* Does p have a global control register? */
static inline bool plat_has_global_ctl(const struct platform *p)
{
	return p->global_ctl.layout != NULL;
}
/*
 * Can the direct backend (registers) serve p?  0, or -ENOTSUP with a
 * message in hw_last_error() naming the platform and the perf backend
 * for one that lists PLAT_BE_PERF only (skx, icx, spr, zen4: no register
 * of theirs is in uncored's tables).  plat_discover() calls it first.
 */
int plat_direct_check(const struct platform *p);
/*
 * Does p fit this build's fixed bounds (PLAT_MAX_UNITS unit types, each
 * with at most PLAT_MAX_INST instances, PLAT_MAX_CTRS counters and
 * PLAT_MAX_FILTERS filter registers)?  0, or -E2BIG naming the unit and
 * the bound in hw_last_error().  plat_discover() calls it first.
 */
int plat_check(const struct platform *p);
/*
 * Discovery: plat_check(p), then p->ops->discover_map(hw, t, m) if the
 * platform has it, else
 * p->ops->discover(hw, t).  m may be NULL (sysfs).  0 or -errno with a
 * message in hw_last_error().
 */
int plat_discover(const struct platform *p, struct hw *hw, struct topology *t,
		  const struct hw_cpu_map *m);
/*
 * Discovery on the Xeon servers (hsx 1.6.1; snbep: the kernel's
 * snbep_pci2phy_map_init): each package's uncore PCI bus holds one UBox
 * device (vendor:device), whose CPUNODEID (nodeid_off, bits 2:0) and
 * GIDNIDMAP (map_off, 3 bits per package) say which package the bus
 * belongs to.
 */
struct plat_ubox_bus {
	uint16_t vendor, device;
	uint16_t nodeid_off, map_off;
	const char *part;	/* "Xeon E5/E7 v3", for messages */
};
/* The package whose GIDNIDMAP triplet equals the node ID in CPUNODEID
 * (first match), or -1. */
int plat_node_to_package(uint32_t cpunodeid, uint32_t gidnidmap);
/*
 * Fills t for platform p: one socket per UBox device found by a PCI
 * scan, in package order, each with its bus, node ID, CPU and cores (m:
 * plat_cpu_of_package()), then find_units(hw, socket).  0 or -errno with
 * an hw_fail() message (no UBox, more than PLAT_MAX_SOCKETS, a node ID
 * in no triplet, two buses for one package).
 */
int plat_discover_ubox_buses(struct hw *hw, struct topology *t,
			     const struct platform *p,
			     const struct plat_ubox_bus *ub,
			     const struct hw_cpu_map *m,
			     int (*find_units)(struct hw *hw,
					       struct topo_socket *s));
/*
 * Is instance inst of unit u on socket s?  PCI: its function answers
 * vendor 8086 and one of u->pci_devid (a missing function or another
 * device: absent).  MSR: its box control (else first control, else first
 * free-running counter) reads (EIO: absent).  Other errors fail.
 */
int plat_probe_unit(struct hw *hw, const struct topo_socket *s,
		    const struct unit_type *u, unsigned inst, bool *present);
/* Probes every instance of every unit of units (NULL-terminated, the
 * platform's order) on s and sets s->ninst / s->absent; unit `limited`
 * is probed up to `limit` instances only.  0 or -errno. */
int plat_find_units(struct hw *hw, struct topo_socket *s,
		    const struct unit_type *const *units,
		    const struct unit_type *limited, unsigned limit);
/* The lowest logical CPU of package pkg according to m (NULL = sysfs).
 * 0, or -ENOENT (no such CPU) / -errno with an hw_fail() message. */
/* One logical CPU (the lowest) of each physical core of package pkg
 * (sysfs core_id), in core order, at most max; *n gets the count.  0 or
 * -errno with an hw_fail() message. */
int plat_cores_of_package(const struct hw_cpu_map *m, unsigned pkg,
			  uint32_t *cpus, unsigned max, unsigned *n);
int plat_cpu_of_package(const struct hw_cpu_map *m, unsigned pkg,
			uint32_t *cpu);

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
		unsigned ctr, uint16_t valid_mask, uint64_t *ctl,
		char *why, size_t whylen);
/* Inverse of plat_encode's field placement (ignores the enable bit). */
struct event_enc plat_decode(const struct unit_type *u, uint64_t ctl);
/*
 * plat_encode() for catalog event ev (its encoding and ctr_mask), plus the
 * unit's event-select extension bit when ev->ev_sel_ext (hsx QPI: 36 of
 * 52 events).  struct event_enc has no room for the extension, so a
 * catalog event must be encoded with this, not with plat_encode() on
 * event_enc_of(ev).  Same errors as plat_encode(), and -EINVAL for an
 * extension the unit does not have.
 */
int plat_encode_event(const struct unit_type *u, const struct event *ev,
		      unsigned ctr, uint64_t *ctl, char *why, size_t whylen);
/* Can catalog event ev of unit u be counted at all on this platform?
 * -EINVAL with the reason in why for an event that needs a box filter
 * register the unit does not have (snbep UBox FILTER_MATCH). */
int plat_event_check(const struct unit_type *u, const struct event *ev,
		     char *why, size_t whylen);

/*
 * The highest rate (events/s) a counter of unit u counting catalog event
 * ev (NULL: a raw encoding) can see: ev's maximum increment per cycle
 * (max_inc_wide, else max_inc) times u->max_clk_hz where both are stated,
 * else the unit's bound u->max_rate.  Free-running counters have their
 * own (freerun_ctr.max_rate).  The plausibility check of every delta and
 * the interval limit use it: an occupancy event may increment by 128 a
 * cycle where its box's other events make 1 or 2.
 */
double plat_event_max_rate(const struct unit_type *u, const struct event *ev);

/* Counter value mask for a width. */
static inline uint64_t width_mask(unsigned bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

#endif
