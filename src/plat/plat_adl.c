/*
 * plat_adl.c - the Core clients from Alder Lake on, reached through the
 * perf backend only: "adl" (Alder Lake, Raptor Lake: the kernel's
 * adl_uncore_init) and "mtl" (Meteor Lake, Arrow Lake: mtl_uncore_init,
 * which takes the MMIO units of adl_uncore_mmio_init), both in
 * arch/x86/events/intel/uncore_snb.c (Kingxukai/linux 9b44fff, which
 * tracks torvalds mainline; NEXT-PLATFORMS.md section 3).  One file for
 * both because they share the memory controller PMUs; each platform's
 * own units are below its CPU list.
 *
 * What they count: DRAM bytes from the two memory controllers'
 * free-running counters (uncore_imc_free_running_0/1, data_read and
 * data_write, 64 bytes a count), the uncore clock from the NCU's fixed
 * counter (uncore_clock on adl, uncore_cncu on mtl); ARB, programmable
 * IMC (and on mtl HAC ARB and HAC CBo) events are in the catalog for
 * claims.  LLC families are absent: Intel publishes no CBo event for
 * these parts and the kernel's uncore_cbox_N has no event list, so no
 * CBo unit is modelled (doc/hardware-notes.md, "Core clients since Alder
 * Lake").  Catalogs events_adl.c, events_mtl.c from Intel's ADL, MTL and
 * ARL perfmon data.
 */
#include "config.h"

#include "plat/plat.h"
#include "plat/plat_sim.h"
#include "plat/plat_xsp.h"
#include "plat/events_adl.h"
#include "plat/events_mtl.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define END XSP_END_FACT
#define SRC "arch/x86/events/intel/uncore_snb.c: "

/* snb_uncore_formats_attr (adl_uncore_arb): threshold "cmask" 24-28 */
static const struct perf_fact adl_snb_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "cmask", "config:24-28", NULL, NULL },
	END,
};

/* adl_uncore_formats_attr (mtl_uncore_arb, _hac_arb, _hac_cbox):
 * "threshold" 24-29 */
static const struct perf_fact mtl_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "threshold", "config:24-29", NULL, NULL },
	END,
};

/* icl_uncore_clock_formats_attr: event only; icl_uncore_events:
 * clockticks "event=0xff" */
static const struct perf_fact client_clock_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	END,
};
static const struct perf_fact client_clock_events[] = {
	{ "clockticks", "event=0xff", NULL, NULL },
	END,
};

/* adl_uncore_imc_formats_attr: no umask; chmask 8-11 */
static const struct perf_fact client_imc_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "chmask", "config:8-11", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	END,
};

/* tgl_uncore_imc_format_group and tgl_uncore_imc_events (the events of
 * adl_uncore_imc_free_running): 64 bytes a count (.scale MiB) */
static const struct perf_fact client_free_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	END,
};
static const struct perf_fact client_free_events[] = {
	{ "data_total", "event=0xff,umask=0x10", XSP_MIB, "MiB" },
	{ "data_read", "event=0xff,umask=0x20", XSP_MIB, "MiB" },
	{ "data_write", "event=0xff,umask=0x30", XSP_MIB, "MiB" },
	END,
};

static const struct perf_unit adl_kpmu_arb = {
	.pmu = "uncore_arb_%u", .source = SRC "adl_uncore_arb (2 boxes)",
	.since = "5.13", .format = adl_snb_fmt, .f_thresh = "cmask",
};
static const struct perf_unit adl_kpmu_clock = {
	.pmu = "uncore_clock", .source = SRC "adl_uncore_clockbox",
	.since = "5.13", .format = client_clock_fmt,
	.events = client_clock_events, .fixed = "event=0xff",
};
static const struct perf_unit client_kpmu_imc = {
	.pmu = "uncore_imc_%u", .source = SRC "adl_uncore_imc (2 boxes)",
	.since = "5.17", .format = client_imc_fmt,
};
static const struct perf_unit client_kpmu_imc_free = {
	.pmu = "uncore_imc_free_running_%u",
	.source = SRC "adl_uncore_imc_free_running, tgl_uncore_imc_events",
	.since = "5.17", .format = client_free_fmt,
	.events = client_free_events,
};
static const struct perf_unit mtl_kpmu_arb = {
	.pmu = "uncore_arb_%u", .source = SRC "mtl_uncore_arb (2 boxes)",
	.since = "6.3", .format = mtl_fmt, .f_thresh = "threshold",
};
static const struct perf_unit mtl_kpmu_hac_arb = {
	.pmu = "uncore_hac_arb_%u", .source = SRC "mtl_uncore_hac_arb",
	.since = "6.3", .format = mtl_fmt, .f_thresh = "threshold",
};
static const struct perf_unit mtl_kpmu_hac_cbox = {
	.pmu = "uncore_hac_cbox_%u", .source = SRC "mtl_uncore_hac_cbox",
	.since = "6.3", .format = mtl_fmt, .f_thresh = "threshold",
};
/* The uncore clock of mtl: the cNCU's fixed counter.  The kernel has a
 * second one, uncore_sncu (the SoC tile's NCU, another clock domain);
 * Intel's UNC_CLOCK.SOCKET is the cNCU's (the kernel's
 * tools/perf/pmu-events/arch/x86/meteorlake/uncore-other.json: Unit
 * "CNCU", EventCode 0xff), so the sNCU is not modelled. */
static const struct perf_unit mtl_kpmu_clock = {
	.pmu = "uncore_cncu", .source = SRC "mtl_uncore_cncu",
	.since = "6.3", .format = client_clock_fmt,
	.events = client_clock_events, .fixed = "event=0xff",
};

/* A programmable client unit: width and threshold bits as the kernel's
 * perf_ctr_bits and format say. */
#define CLI_PROG(nm, dsc, src, ninst, ctrs, bits, umw, thw, kp)             \
	.name = nm, .desc = dsc, .source = src, .kind = UNIT_PROG,          \
	.max_inst = ninst, .nctr = ctrs, .width = bits,                     \
	.fmt = { .ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = umw,      \
		 .thresh_lo = 24, .thresh_w = thw, .inv_bit = 23,           \
		 .edge_bit = 18, .en_bit = XSP_NONE,                        \
		 .ovf_en_bit = XSP_NONE, .rst_bit = XSP_NONE },             \
	.global_ovf_bit = XSP_NONE, .max_rate = XSP_MAX_RATE, .perf = &(kp)

/* Bound 1e10 lines/s per controller: far above dual-channel DDR5-6400's
 * 102 GB/s (1.6e9 lines/s).  64-bit counters (adl_uncore_imc_
 * freerunning: width 64). */
static const struct freerun_ctr client_free_ctrs[] = {
	{ "UNC_M_FREE_RUNNING.DATA_READ", 0x58, 64, 8,
	  "Free-running 64-byte DRAM reads of the memory controller", 1.0e10,
	  .perf_event = "data_read" },
	{ "UNC_M_FREE_RUNNING.DATA_WRITE", 0xa0, 64, 8,
	  "Free-running 64-byte DRAM writes of the memory controller", 1.0e10,
	  .perf_event = "data_write" },
	{ "UNC_M_FREE_RUNNING.DATA_TOTAL", 0x40, 64, 8,
	  "Free-running 64-byte DRAM transfers of the memory controller",
	  2.0e10, .perf_event = "data_total" },
};

/* adl_uncore_imc: 5 counters of 64 bits, no umask, no inv or
 * threshold. */
static const struct unit_type client_imc = {
	.name = "imc", .desc = "Memory controller (programmable)",
	.source = SRC "adl_uncore_imc", .kind = UNIT_PROG, .max_inst = 2,
	.nctr = 5, .width = 64,
	.fmt = { .ev_lo = 0, .ev_w = 8, .inv_bit = XSP_NONE, .edge_bit = 18,
		 .en_bit = XSP_NONE, .ovf_en_bit = XSP_NONE,
		 .rst_bit = XSP_NONE },
	.global_ovf_bit = XSP_NONE, .max_rate = XSP_MAX_RATE,
	.perf = &client_kpmu_imc,
};
static const struct unit_type client_imc_free = {
	.name = "imc_free",
	.desc = "Memory controller free-running DRAM counters",
	.source = SRC "adl_uncore_imc_free_running", .kind = UNIT_FREERUN,
	.max_inst = 2, .width = 64,
	.fmt = { .inv_bit = XSP_NONE, .edge_bit = XSP_NONE,
		 .en_bit = XSP_NONE, .ovf_en_bit = XSP_NONE,
		 .rst_bit = XSP_NONE },
	.global_ovf_bit = XSP_NONE,
	.freerun = client_free_ctrs, .nfreerun = ARRAY_SIZE(client_free_ctrs),
	.perf = &client_kpmu_imc_free,
};

/* Baseline: DRAM bytes and the uncore clock (derived_adl.c). */
static const char *const client_baseline[] = {
	"UNC_M_FREE_RUNNING.DATA_READ", "UNC_M_FREE_RUNNING.DATA_WRITE",
	"UNC_CLOCK.SOCKET",
	NULL,
};

/* ---- adl ---------------------------------------------------------- */

/* Intel's mapfile.csv: GenuineIntel-6-97, -9A, -B7, -BA, -BF and -BE
 * (Alder Lake-N, Gracemont only) use the ADL uncore data; the kernel's
 * intel_uncore_match[] gives them adl_uncore_init (ALDERLAKE(_L),
 * RAPTORLAKE(_P/_S), ATOM_GRACEMONT). */
static const struct cpu_match adl_cpus[] = {
	{ 6, 0x97, 0, 0 }, { 6, 0x9A, 0, 0 }, { 6, 0xB7, 0, 0 },
	{ 6, 0xBA, 0, 0 }, { 6, 0xBF, 0, 0 }, { 6, 0xBE, 0, 0 },
	{ 0, 0, 0, 0 },
};

/* adl_uncore_arb: 2 boxes, 2 counters of 44 bits, events 0x80 and 0x83
 * on counter 0 only (snb_uncore_arb_constraints; Intel's data agrees) */
static const struct unit_type adl_arb = {
	CLI_PROG("arb", "ARB: the system agent's request arbiter",
		 SRC "adl_uncore_arb", 2, 2, 44, 8, 5, adl_kpmu_arb),
};
static const struct unit_type adl_clock = {
	XSP_FIXED("clock", "NCU fixed counter: uncore clock (UCLK) cycles",
		  SRC "adl_uncore_clockbox", 1, adl_kpmu_clock),
};

static const struct unit_type *const adl_units[] = {
	&adl_arb, &client_imc, &client_imc_free, &adl_clock, NULL,
};

const struct platform plat_adl = {
	.id = "adl",
	.name = "Intel Core 12th-14th gen (Alder Lake, Raptor Lake)",
	.manual = "Intel perfmon ADL V1.40; Linux "
		  "arch/x86/events/intel/uncore_snb.c",
	.cpus = adl_cpus,
	.units = adl_units,
	.events = adl_events,
	.nevents = ADL_NEVENTS,
	.ops = &plat_perf_only_ops,
	.derived = &derived_adl,
	.baseline = client_baseline,
	.sim = &plat_adl_sim,
	.backends = PLAT_BE_PERF,
};

/* ---- mtl ---------------------------------------------------------- */

/* Intel's mapfile.csv: GenuineIntel-6-AA, -AC, -B5 use the MTL data,
 * -C5, -C6 the ARL data (whose uncore events are MTL's); the kernel's
 * intel_uncore_match[] gives them mtl_uncore_init (METEORLAKE(_L),
 * ARROWLAKE, ARROWLAKE_U, ARROWLAKE_H). */
static const struct cpu_match mtl_cpus[] = {
	{ 6, 0xAA, 0, 0 }, { 6, 0xAC, 0, 0 }, { 6, 0xB5, 0, 0 },
	{ 6, 0xC5, 0, 0 }, { 6, 0xC6, 0, 0 },
	{ 0, 0, 0, 0 },
};

/* mtl_uncore_arb, _hac_arb, _hac_cbox: 2 boxes, 2 counters of 48 bits */
static const struct unit_type mtl_arb = {
	CLI_PROG("arb", "ARB: the system agent's request arbiter",
		 SRC "mtl_uncore_arb", 2, 2, 48, 8, 6, mtl_kpmu_arb),
};
static const struct unit_type mtl_hac_arb = {
	CLI_PROG("hac_arb", "HAC ARB: the arbiter of the memory-side cache",
		 SRC "mtl_uncore_hac_arb", 2, 2, 48, 8, 6, mtl_kpmu_hac_arb),
};
static const struct unit_type mtl_hac_cbox = {
	CLI_PROG("hac_cbox", "HAC CBo: the memory-side cache's CBo (not the "
		 "LLC)", SRC "mtl_uncore_hac_cbox", 2, 2, 48, 8, 6,
		 mtl_kpmu_hac_cbox),
};
static const struct unit_type mtl_clock = {
	XSP_FIXED("clock", "cNCU fixed counter: uncore clock (UCLK) cycles",
		  SRC "mtl_uncore_cncu", 1, mtl_kpmu_clock),
};

static const struct unit_type *const mtl_units[] = {
	&mtl_arb, &mtl_hac_arb, &mtl_hac_cbox, &client_imc, &client_imc_free,
	&mtl_clock, NULL,
};

const struct platform plat_mtl = {
	.id = "mtl",
	.name = "Intel Core Ultra 1st/2nd gen (Meteor Lake, Arrow Lake)",
	.manual = "Intel perfmon MTL V1.22 / ARL V1.20; Linux "
		  "arch/x86/events/intel/uncore_snb.c",
	.cpus = mtl_cpus,
	.units = mtl_units,
	.events = mtl_events,
	.nevents = MTL_NEVENTS,
	.ops = &plat_perf_only_ops,
	.derived = &derived_adl,
	.baseline = client_baseline,
	.sim = &plat_mtl_sim,
	.backends = PLAT_BE_PERF,
};
