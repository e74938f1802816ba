/*
 * perf_msr.h - a platform whose one unit is the kernel's "msr" PMU, for
 * the perf backend's real-kernel benchmark (tests/bench/bench_perf_msr.c)
 * and its unit test against a fixture tree (tests/unit/test_pmu_perf.c).
 * Not a supported platform: no CPU matches it and the daemon never sees
 * it; it lets the real sampler count through the real kernel on a
 * machine (a VM) that has no uncore PMU.
 *
 * arch/x86/events/msr.c registers "msr" (a dynamic type), one format
 * field "event" = config:0-63 (PMU_FORMAT_ATTR(event, "config:0-63")),
 * and an events/ alias per counter its probe finds (perf_msr_probe()):
 * tsc "event=0x00" (PERF_MSR_TSC), aperf 0x01, mperf 0x02, smi 0x04, ...
 * The counters are free-running and per CPU (the PMU's event_init
 * refuses sampling; msr_event_update() reads the MSR on the event's CPU)
 * and the PMU has no cpumask file, which the perf backend takes as "count
 * on every online CPU" (pmu_perf.c boxes_on_socket()): each counter here
 * is core-scope, one box per CPU, summed per socket.  Which of the four
 * the kernel offers depends on the CPU (a VM often has only tsc and
 * smi); msr_present() says.
 */
#ifndef UNCORED_TESTS_PERF_MSR_H
#define UNCORED_TESTS_PERF_MSR_H

#include <stdio.h>

#include "plat/plat.h"
#include "plat/plat_xsp.h"

static const struct perf_fact msr_fmt[] = {
	{ "event", "config:0-63", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

static const struct perf_fact msr_aliases[] = {
	{ "tsc", "event=0x00", NULL, NULL },
	{ "aperf", "event=0x01", NULL, NULL },
	{ "mperf", "event=0x02", NULL, NULL },
	{ "smi", "event=0x04", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

static const struct perf_unit msr_kpmu = {
	.pmu = "msr",
	.source = "arch/x86/events/msr.c: pmu_msr, msr[], perf_msr_probe",
	.format = msr_fmt, .events = msr_aliases,
};

/* name, offset (none: no registers), width (the kernel extends them to
 * 64 bits), access, description, max rate per CPU (10 GHz: a bound for
 * the wrap check only), core scope, PMU (the unit's), kernel event */
static const struct freerun_ctr msr_ctrs[] = {
	{ "MSR_TSC", 0, 64, 8, "time-stamp counter ticks", 1e10, true, NULL,
	  "tsc" },
	{ "MSR_APERF", 0, 64, 8, "actual performance clock ticks", 1e10,
	  true, NULL, "aperf" },
	{ "MSR_MPERF", 0, 64, 8, "maximum performance clock ticks", 1e10,
	  true, NULL, "mperf" },
	{ "MSR_SMI_COUNT", 0, 64, 8, "system management interrupts", 1e10,
	  true, NULL, "smi" },
};

static const struct unit_type msr_unit = {
	.name = "msr", .desc = "the kernel's msr PMU (per-CPU MSRs)",
	.source = "arch/x86/events/msr.c", .kind = UNIT_FREERUN,
	.max_inst = 1, .width = 64,
	.fmt = { .inv_bit = 0xff, .edge_bit = 0xff, .en_bit = 0xff,
		 .ovf_en_bit = 0xff, .rst_bit = 0xff },
	.global_ovf_bit = 0xff,
	.freerun = msr_ctrs, .nfreerun = 4,
	.perf = &msr_kpmu,
};

static const struct unit_type *const msr_units[] = { &msr_unit, NULL };

static const struct event msr_events[] = {
	{ .name = "MSR_TSC", .unit = "msr", .desc = "TSC ticks",
	  .source = "msr.c PERF_MSR_TSC" },
	{ .name = "MSR_APERF", .unit = "msr", .desc = "APERF ticks",
	  .source = "msr.c PERF_MSR_APERF" },
	{ .name = "MSR_MPERF", .unit = "msr", .desc = "MPERF ticks",
	  .source = "msr.c PERF_MSR_MPERF" },
	{ .name = "MSR_SMI_COUNT", .unit = "msr", .desc = "SMIs",
	  .source = "msr.c PERF_MSR_SMI" },
};

static const struct cpu_match msr_no_cpus[] = { { 0, 0, 0, 0 } };

static const char *const msr_baseline[] = {
	"MSR_TSC", "MSR_APERF", "MSR_MPERF", NULL,
};

static const struct platform plat_msr_bench = {
	.id = "msr", .name = "the kernel's msr PMU (benchmark only)",
	.manual = "arch/x86/events/msr.c",
	.cpus = msr_no_cpus, .units = msr_units,
	.events = msr_events, .nevents = 4,
	.ops = &plat_perf_only_ops,
	.baseline = msr_baseline,
	.backends = PLAT_BE_PERF,
};

/* Does SYSFS's msr PMU offer alias (events/ALIAS)? */
static inline int msr_present(const char *sysfs, const char *alias)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/msr/events/%s",
		 sysfs, alias);
	if (!(f = fopen(path, "r")))
		return 0;
	fclose(f);
	return 1;
}

#endif
