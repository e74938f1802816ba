/*
 * plat_generic.h - platform "generic": a CPU no table knows whose kernel
 * has uncore PMUs (issue 30 section 2).  The platform is built at start-up
 * from what the running kernel writes under SYSFS/bus/event_source/
 * devices/ (through perf_sysfs.h), not from a table: one unit per kernel
 * PMU type, a catalog of the kernel's own named events (events/ of each
 * PMU), and the headline families from kernel names that mean one thing
 * across generations (doc/hardware-notes.md, "Platform generic").
 *
 * Everything returned is owned by the platform and lives until
 * plat_generic_free().  Nothing here logs or exits.
 */
#ifndef UNCORED_PLAT_GENERIC_H
#define UNCORED_PLAT_GENERIC_H

#include <stdbool.h>
#include <stddef.h>

#include "plat/plat.h"

#define PLAT_GENERIC_ID "generic"

/* One headline family and where its numbers come from. */
struct gen_family {
	const char *id;		/* "dram_read", "dram_write", "clock" */
	const char *metric;	/* "uncore_dram_read_bytes_total" */
	bool present;
	/* present: the kernel events it is made of, "uncore_imc_%u/
	 * cas_count_read (x 64 B: .scale 6.103515625e-5 MiB)"; absent: why
	 * not (the kernel names that were looked for). */
	char text[320];
};

/*
 * Is name a kernel uncore PMU the perf backend could use ("uncore_*",
 * "amd_df", "amd_l3", "amd_umc_*")?
 */
bool plat_generic_pmu_name(const char *name);

/*
 * Builds the generic platform from the PMUs under sysfs (NULL: "/sys")
 * for a CPU of vendor (NULL: "GenuineIntel").  Returns 0 and *out (free
 * with plat_generic_free()), -ENOENT with why when the kernel has no
 * uncore PMU with a usable format/ (the caller then refuses the CPU as
 * unknown), or -ENOMEM.  PMUs or events that cannot be served (a format
 * without "event", a "term=?" parameter, more unit types than
 * PLAT_MAX_UNITS) are left out and named in plat_generic_notes().
 */
int plat_generic_build(const char *sysfs, const char *vendor,
		       const struct platform **out, char *why, size_t whylen);
void plat_generic_free(const struct platform *p);

/* Its --list-platforms paragraph (the platform tables' format). */
extern const char plat_generic_listing[];

/* Is p a platform plat_generic_build() made? */
bool plat_is_generic(const struct platform *p);

/* Its families (PLAT_GENERIC_NFAMILIES of them, present or not); NULL
 * for another platform. */
#define PLAT_GENERIC_NFAMILIES 3u
const struct gen_family *plat_generic_families(const struct platform *p);

/* What was left out and why ("" when nothing was). */
const char *plat_generic_notes(const struct platform *p);

/* The kernel PMU type (pattern) behind each unit: "uncore_imc_%u". */
const char *plat_generic_unit_pmu(const struct platform *p, unsigned unit);

#endif
