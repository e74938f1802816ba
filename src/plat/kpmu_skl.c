/*
 * kpmu_skl.c - the kernel PMUs of the 6th-10th gen Core client uncore
 * (skl) as facts: arch/x86/events/intel/uncore_snb.c, read at torvalds
 * mainline (doc/hardware-notes.md, "PMU names and formats per platform").
 *
 * uncore.c names a type's PMUs "uncore_<name>" when it has one box and
 * "uncore_<name>_<n>" otherwise (uncore_get_pmu_name()): skl_uncore_cbox
 * (8 boxes at most, fewer on parts with fewer cores) gives
 * uncore_cbox_0.., snb_uncore_arb uncore_arb, snb_uncore_imc uncore_imc.
 */
#include "config.h"

#include "plat/kpmu.h"

/* snb_uncore_formats_attr: the threshold field is called "cmask". */
static const struct perf_fact skl_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "cmask", "config:24-28", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

/* snb_uncore_events (the cbox PMUs only) */
static const struct perf_fact skl_cbox_events[] = {
	{ "clockticks", "event=0xff,umask=0x00", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

/* skl_uncore_cbox: .num_counters 4 (the manual's summary table says 2;
 * uncored places at most its own nctr, 2, which the kernel accepts),
 * .perf_ctr_bits 44. */
const struct perf_unit skl_kpmu_cbo = {
	.pmu = "uncore_cbox_%u",
	.source = "arch/x86/events/intel/uncore_snb.c: skl_uncore_cbox, "
		  "snb_uncore_formats_attr",
	.format = skl_fmt, .events = skl_cbox_events,
	.f_thresh = "cmask",
};

/* snb_uncore_arb: 2 counters, 44 bits, events 0x80/0x83 counter 0 only
 * (snb_uncore_arb_constraints), no event aliases. */
const struct perf_unit skl_kpmu_arb = {
	.pmu = "uncore_arb",
	.source = "arch/x86/events/intel/uncore_snb.c: snb_uncore_arb",
	.format = skl_fmt,
	.f_thresh = "cmask",
};

/* The UCLK fixed counter belongs to skl_uncore_cbox (.fixed_ctl,
 * .single_fixed = 1): config 0xff (UNCORE_FIXED_EVENT) selects it, and
 * only the first cbox PMU accepts it (uncore.c uncore_pmu_event_init(),
 * "only the first pmu can access it"). */
const struct perf_unit skl_kpmu_fixed = {
	.pmu = "uncore_cbox_0",
	.source = "arch/x86/events/intel/uncore_snb.c: skl_uncore_cbox "
		  ".fixed_ctr; uncore.c: uncore_pmu_event_init",
	.format = skl_fmt, .events = skl_cbox_events,
	.f_thresh = "cmask",
	.fixed = "event=0xff",
};

/* snb_uncore_imc_format_group: event only.  snb_uncore_imc_events: each
 * counter with .scale 6.103515625e-5 and .unit MiB (64 bytes per count;
 * the kernel scales the request counters the same way). */
static const struct perf_fact skl_imc_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

#define SKL_MIB "6.103515625e-5"	/* as uncore_snb.c writes it */
static const struct perf_fact skl_imc_events[] = {
	{ "data_reads", "event=0x01", SKL_MIB, "MiB" },
	{ "data_writes", "event=0x02", SKL_MIB, "MiB" },
	{ "gt_requests", "event=0x03", SKL_MIB, "MiB" },
	{ "ia_requests", "event=0x04", SKL_MIB, "MiB" },
	{ "io_requests", "event=0x05", SKL_MIB, "MiB" },
	{ NULL, NULL, NULL, NULL },
};

/* snb_uncore_imc: one box, five free-running 32-bit counters
 * (snb_uncore_imc_freerunning), which the kernel reads from an hrtimer
 * against wrap (snb_uncore_imc_init_box, UNCORE_SNB_IMC_HRTIMER_INTERVAL). */
const struct perf_unit skl_kpmu_imc = {
	.pmu = "uncore_imc",
	.source = "arch/x86/events/intel/uncore_snb.c: snb_uncore_imc, "
		  "snb_uncore_imc_events, snb_uncore_imc_event_init",
	.format = skl_imc_fmt, .events = skl_imc_events,
};
