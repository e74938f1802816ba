/*
 * ufreq.h - uncore frequency limits from the kernel's intel_uncore_frequency
 * driver (SYSFS/devices/system/cpu/intel_uncore_frequency/), both layouts:
 * package_%02d_die_%02d (MSR driver) and uncore%02d (TPMI driver, whose
 * package_id and die_id say where it is).  Files are opened once, before
 * the privilege drop (current_freq_khz and package_id are 0400), and
 * re-read with pread at offset 0 on the sampler's schedule, never at
 * scrape time.  doc/hardware-notes.md "Uncore frequency limits".
 */
#ifndef UNCORED_UFREQ_H
#define UNCORED_UFREQ_H

#include <stdbool.h>
#include <stdint.h>

enum ufreq_file {
	UFREQ_MIN, UFREQ_MAX, UFREQ_INITIAL_MIN, UFREQ_INITIAL_MAX,
	UFREQ_CURRENT, UFREQ_NFILES
};

#define UFREQ_MAX_DOMAINS 64

struct ufreq_dom {
	int socket, die;
	int fd[UFREQ_NFILES];		/* -1: not there or not readable */
	bool have[UFREQ_NFILES];	/* khz[] holds a good value */
	uint64_t khz[UFREQ_NFILES];
	bool said[UFREQ_NFILES];	/* bad contents logged */
};

struct ufreq {
	int n;
	struct ufreq_dom d[UFREQ_MAX_DOMAINS];
};

/* The file's name in a domain directory ("min_freq_khz", ...). */
const char *ufreq_file_name(enum ufreq_file f);
/* The limit label of a file ("min", "initial_max"); NULL for current. */
const char *ufreq_limit_label(enum ufreq_file f);

/* Parses a decimal kHz value with an optional trailing newline into *khz.
 * Returns 0, or -EINVAL for anything else (empty, signs, junk, overflow). */
int ufreq_parse_khz(const char *text, uint64_t *khz);

/* Opens every domain under SYSFS/devices/system/cpu/intel_uncore_frequency
 * (u is zeroed first; the caller owns u and closes it with ufreq_close).
 * Returns the number of domains (0 when the driver is absent: logged once
 * with the reason, not an error), or -errno.  Files that cannot be opened
 * are left out, said once in the log. */
int ufreq_open(struct ufreq *u, const char *sysfs);

/* Re-reads every open file (pread at offset 0); a file whose contents do
 * not parse loses its value and is named in the log once.  Returns the
 * number of values read. */
int ufreq_read(struct ufreq *u);

void ufreq_close(struct ufreq *u);

#endif

/* ---- the monitor: its own thread, read every interval, rendered from the
 * last pass (never read at scrape time) -------------------------------- */
struct prom;
struct ufreq_mon;

/* Opens the domains under sysfs (call before the privilege drop) and reads
 * them once.  Returns the monitor (the caller's; ufreq_mon_free), or NULL
 * when there is no domain (logged by ufreq_open) or no memory. */
struct ufreq_mon *ufreq_mon_new(const char *sysfs);
/* Starts the thread: a read every interval_ms.  0 or -errno. */
int ufreq_mon_start(struct ufreq_mon *m, unsigned interval_ms);
/* Stops the thread, closes the files, frees m.  NULL is accepted. */
void ufreq_mon_free(struct ufreq_mon *m);
/* Copies the last read's domains (socket, die, have[], khz[]) into out
 * (at most max, by socket then die); returns how many.  Thread-safe. */
int ufreq_mon_snapshot(struct ufreq_mon *m, struct ufreq_dom *out, int max);
/* uncore_clock_limit_hertz and uncore_clock_current_hertz from the last
 * read; a family with no value is left out.  Thread-safe. */
void ufreq_mon_render(struct prom *w, struct ufreq_mon *m);
