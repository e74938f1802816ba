/*
 * perf_sysfs.h - the kernel's perf PMUs as sysfs describes them: discovery,
 * format/ fields, events/ aliases and the encoding of event terms into
 * perf_event_attr config words.
 *
 * The perf backend (doc/design.md section 3, "perf") never assumes where a
 * field lives in config: every PMU says it in its own files under
 * ROOT/bus/event_source/devices/PMU/ (ROOT: --path.sysfs, default "/sys"):
 *
 *   type            the perf_event_attr.type to open it with ("9")
 *   cpumask, cpus   the CPUs to open its events on, a kernel cpulist
 *                   ("0", "0,28", "0-3,8-11"); uncore PMUs name one CPU
 *                   per box domain (socket or die).  Absent: any CPU.
 *   format/FIELD    where FIELD's value goes: "config:0-7",
 *                   "config1:0-31", "config:8-15,32-55", "config:21"
 *                   (Documentation/ABI/testing/
 *                   sysfs-bus-event_source-devices-format)
 *   events/ALIAS    a named event as terms "event=0x04,umask=0x3",
 *                   with optional ALIAS.scale and ALIAS.unit
 *                   (.../sysfs-bus-event_source-devices-events)
 *
 * This module is platform-free: which PMU a unit uses and which aliases or
 * encodings it counts are platform words (src/plat/, struct perf_unit);
 * the caller passes them in.  It depends on libc only, reads every file
 * with a size bound and reports a malformed one with its path and what is
 * wrong in the caller's why buffer.  Functions return 0 (or a count, or
 * 1/0 for a yes/no answer) or -errno; nothing here logs or exits.
 * doc/hardware-notes.md, "perf sysfs interface", gives the grammar and
 * its sources.
 */
#ifndef UNCORED_PERF_SYSFS_H
#define UNCORED_PERF_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Any one sysfs file is at most a page: longer is malformed. */
#define PFS_FILE_MAX 4096u
/* CPU numbers are below this (as hw_msr's cache bound). */
#define PFS_MAX_CPUS 65536u
/* The config words perf_event_attr has for format fields: config,
 * config1, config2. */
#define PFS_NWORDS 3u

/* A set of CPUs, ascending and without repeats.  cpu is owned by the
 * struct holding the set (pfs_cpus_free, pfs_pmu_free). */
struct pfs_cpus {
	unsigned *cpu;
	unsigned n;
};

/*
 * One format/ field: the bits of config word `word` it occupies.  A
 * value's bits fill the field's bits in ascending bit order, low value bit
 * first, as the perf tool does (tools/perf/util/pmu.c, pmu_format_value):
 * "config:8-15,32-55" takes value bits 0-7 to config bits 8-15 and value
 * bits 8-31 to config bits 32-55, whatever order the ranges are listed in.
 */
struct pfs_format {
	char *name;		/* the file's name, e.g. "umask"; owned by the
				   PMU (NULL from pfs_format_parse) */
	unsigned word;		/* 0: config, 1: config1, 2: config2 */
	uint64_t mask;		/* the field's bits in that word, never 0 */
	unsigned width;		/* bits in mask (1..64) */
};

/* One events/ alias.  All strings are owned by the PMU. */
struct pfs_alias {
	char *name;		/* "cas_count_read" */
	char *terms;		/* "event=0x04,umask=0x3", as in the file */
	double scale;		/* ALIAS.scale, or 1.0 when there is none */
	char *unit;		/* ALIAS.unit, or "" when there is none */
	bool has_scale;		/* the .scale file exists */
	char *scale_text;	/* its text as the kernel wrote it (no
				   newline), "" when there is none */
};

struct pfs_pmu {
	char *name;		/* "uncore_imc_0" */
	char *dir;		/* ROOT/bus/event_source/devices/NAME */
	uint32_t type;		/* perf_event_attr.type */
	/* cpumask, else cpus: the CPUs to open on.  cpus_file is "cpumask",
	 * "cpus" or NULL (neither exists: cpus.n == 0, any CPU). */
	const char *cpus_file;
	struct pfs_cpus cpus;
	struct pfs_format *format;	/* sorted by name */
	unsigned nformat;
	struct pfs_alias *alias;	/* sorted by name */
	unsigned nalias;
};

/*
 * Calls cb(ctx, name) for every PMU under ROOT/bus/event_source/devices/,
 * in name order.  Stops at the first non-zero return of cb and returns it;
 * otherwise 0.  -errno (why names the directory) if it cannot be read:
 * -ENOENT means this kernel (or the sysfs at ROOT) has no perf PMUs.
 */
int pfs_list(const char *root, int (*cb)(void *ctx, const char *pmu),
	     void *ctx, char *why, size_t whylen);

/*
 * Does kernel PMU name match a platform's pattern?  A pattern holds at most
 * one "%u" (the box number, in decimal without leading zeros, as the
 * kernel prints it): "uncore_cha_%u" matches "uncore_cha_12" (*box = 12),
 * not "uncore_cha_", "uncore_cha_01" nor "uncore_cha_free_running_0".  A
 * pattern without "%u" matches exactly (*box = 0).  box may be NULL.
 * Returns 1 (match), 0 (no match) or -EINVAL (pattern has another '%').
 */
int pfs_match(const char *pattern, const char *name, unsigned *box);

/*
 * Parses a kernel cpulist ("", "0", "0,28", "0-3,8-11"; a trailing newline
 * is allowed; ranges in any order, repeats merged) into *out (overwritten,
 * not freed; out->cpu is the caller's to free with pfs_cpus_free).  Returns 0, or
 * -EINVAL / -ERANGE (a CPU >= PFS_MAX_CPUS) with why, or -ENOMEM.
 */
int pfs_cpulist_parse(const char *text, struct pfs_cpus *out, char *why,
		      size_t whylen);
void pfs_cpus_free(struct pfs_cpus *c);

/*
 * Parses one format/ file's text: "config:0-7", "config1:0-31",
 * "config2:0-63", "config:24-31,35", "config:21" (trailing newline
 * allowed).  Ranges are "LO-HI" with LO <= HI <= 63 or a single bit; they
 * may come in any order but must not overlap.  Fills f's word, mask and
 * width (f->name untouched).  Returns 0 or -EINVAL with why.
 */
int pfs_format_parse(const char *text, struct pfs_format *f, char *why,
		     size_t whylen);

/*
 * Places value through field f into *word: the field's bits are cleared
 * and value's bits deposited (see struct pfs_format).  Returns 0, or
 * -ERANGE if value does not fit the field's width (nothing changed).
 */
int pfs_format_put(const struct pfs_format *f, uint64_t value,
		   uint64_t *word);
/* The value field f holds in word (the inverse of pfs_format_put). */
uint64_t pfs_format_get(const struct pfs_format *f, uint64_t word);

/*
 * Loads PMU name from ROOT: type, cpumask (or cpus), every format/ field
 * and every events/ alias with its .scale and .unit (.per-pkg and
 * .snapshot files, which only the perf tool uses, are skipped).  A PMU
 * without format/ or events/ (e.g. "software") has none.  Every file is
 * read with the PFS_FILE_MAX bound; a missing type, a malformed file, or
 * a .scale/.unit without its alias fails the whole load with why naming
 * the file and what is wrong.  An alias's terms are checked for syntax
 * here and against the format/ fields only when encoded (pfs_encode), so
 * an alias the caller never uses cannot make the PMU unusable.
 * Returns 0 and *out (free with pfs_pmu_free), or -ENOENT (no such PMU),
 * -EINVAL (malformed), -ENAMETOOLONG, -ENOMEM or another -errno from
 * reading; *out is NULL then.
 */
int pfs_pmu_load(const char *root, const char *name, struct pfs_pmu **out,
		 char *why, size_t whylen);
void pfs_pmu_free(struct pfs_pmu *p);

/* PMU p's format field or alias called name, or NULL.  The result is
 * p's, valid until pfs_pmu_free(p). */
const struct pfs_format *pfs_field(const struct pfs_pmu *p,
				   const char *name);
const struct pfs_alias *pfs_alias(const struct pfs_pmu *p, const char *name);

/*
 * Encodes terms in the kernel's alias syntax, "event=0x34,umask=0x11,
 * edge=1,inv" (a bare term means 1; values are hex with 0x or decimal;
 * blanks around a term are ignored), into cfg[0..2] = config, config1,
 * config2, which start from zero.  Every term is placed through the PMU's
 * format field of that name.  Errors, each naming the term and the PMU in
 * why, with cfg unchanged: a term no format field has (-ENOENT; a term
 * naming an alias says to encode the alias's terms instead), a value
 * wider than the field (-ERANGE), a term given twice or two terms setting
 * the same bit (-EINVAL), a parameter "term=?" (-EINVAL: the caller must
 * give it), a syntax error (-EINVAL).
 */
int pfs_encode(const struct pfs_pmu *p, const char *terms, uint64_t cfg[3],
	       char *why, size_t whylen);

/*
 * Sets one format field of p in cfg to value (its bits cleared first; the
 * rest of cfg kept): a filter field or a box-specific term after
 * pfs_encode.  Returns 0, -ENOENT (no such field) or -ERANGE (value too
 * wide), with why naming field and PMU; cfg unchanged on error.
 */
int pfs_set(const struct pfs_pmu *p, const char *field, uint64_t value,
	    uint64_t cfg[3], char *why, size_t whylen);

/*
 * Where CPU cpu is, from ROOT/devices/system/cpu/cpuN/: its package
 * (topology/physical_package_id) and die (topology/die_id; 0 where the
 * kernel predates die_id, which came with the multi-die topology in
 * 2019).  A CPU is offline when ROOT/devices/system/cpu/online does not
 * list it (or, without that file, when cpuN/online reads 0).  Returns 0, -ENOENT (no such CPU),
 * -ENODEV (the CPU is offline: an uncore PMU's cpumask must not name
 * one, so the caller reports it), -EINVAL (malformed file) or another
 * -errno, with why naming the file.
 */
int pfs_cpu_topology(const char *root, unsigned cpu, unsigned *package,
		     unsigned *die, char *why, size_t whylen);

#endif
