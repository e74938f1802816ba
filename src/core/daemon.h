/*
 * daemon.h - the running daemon's state, as the HTTP handlers see it.
 *
 * Owned and set up by uncored.c; the handlers in api.c only read it
 * (through the sampler's reference-counted programs for anything that
 * changes while running).
 */
#ifndef UNCORED_DAEMON_H
#define UNCORED_DAEMON_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hw/hw.h"
#include "plat/plat.h"
#include "pmu/pmu.h"
#include "sampler.h"

/* The daemon's exit statuses besides 0 and 1 (uncored(8), --help). */
#define EXIT_CPU 2		/* unsupported CPU */
#define EXIT_BUSY 3		/* the PMU is in use by another agent */
#define EXIT_KERNEL 4		/* the kernel forbids programming it */
#define EXIT_USAGE 64		/* command-line usage */

struct skern;

struct daemon {
	const char *version;
	const char *revision;		/* git revision of the build */
	const char *build_date;		/* ISO 8601, UTC (reproducible) */
	const char *backend;		/* "direct" or "perf" */
	bool simulated;			/* on the simulator */
	char backend_why[600];		/* why that backend was chosen */
	char perf_missing[512];		/* units whose kernel PMU is missing */
	const char *sysfs;		/* where perf looks: --path.sysfs */
	int perf_cap;			/* capability perf mode keeps, -1 none */
	struct skern *skern;		/* the simulated kernel, or NULL */
	/* The platform as this machine has it: the table's, or a copy with
	 * the counter counts the kernel reads from CPUID (plat_machine(),
	 * backend.c); plat_table is the table it was made from (NULL until
	 * then), cpuid_note what CPUID said ("" when nothing). */
	const struct platform *plat;
	const struct platform *plat_table;
	char cpuid_note[600];
	struct hw hw;
	struct topology topo;
	struct pmu pmu;
	struct sampler *sampler;
	struct claims *claims;
	struct rdt_mon *resctrl;	/* NULL unless [resctrl] enabled */
	struct ufreq_mon *ufreq;	/* NULL: no intel_uncore_frequency */
	struct energy_mon *energy;	/* energy.h; NULL: not started */
	struct throttle_mon *throttle;	/* throttle.h; NULL: not started */
	struct http_server *http;
	struct expo *expo;		/* the /metrics page (expo.h) */
	atomic_uint_fast64_t scrapes;
	double start_time_s;		/* CLOCK_REALTIME */
	uint64_t start_mono_ns;
	pid_t pid;
	char owner_path[PATH_MAX];	/* "" when there is none */
	bool took_over;			/* started with takeover */
	bool recovered_stale;		/* cleaned up a crashed run */
	bool allow_raw_events;
};

/* CLOCK_MONOTONIC in ns. */
uint64_t daemon_mono_ns(void);

#endif
