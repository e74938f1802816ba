/*
 * throttle.h - the package thermal-throttle counters the kernel keeps in
 * sysfs (drivers/thermal/intel/therm_throt.c): served as
 * uncore_frequency_limited_seconds_total{socket,domain="package",
 * reason="thermal"} and uncore_frequency_limited_events_total (doc/
 * metrics.md "Why the frequency is held back", doc/hardware-notes.md
 * "Package thermal throttling").
 *
 * SYSFS/devices/system/cpu/cpuN/thermal_throttle/ holds, per CPU,
 * package_throttle_total_time_ms (the milliseconds the package's Thermal
 * Status flag was set since boot) and package_throttle_count (how often
 * it went from 0 to 1).  The package's status is broadcast to every CPU
 * of the package, so every CPU's files count the same package: one CPU
 * per package is read (the lowest online one), never a sum.  The core_*
 * files are per core; they are not served (a core's own thermal trip is
 * a finer thing than the socket's frequency limit, and would be a series
 * per core).  The files are 0444: opened at each read, on a thread of
 * its own (base/periodic.h, every second), rendered from the last read:
 * never read at scrape time.  Where there are none (AMD, a VM, a CPU
 * without package thermal status) the monitor holds only the reason: the
 * families are absent, the reason is in the start-up log and
 * /api/v1/status "thermal_throttle".
 */
#ifndef UNCORED_THROTTLE_H
#define UNCORED_THROTTLE_H

#include <stdbool.h>
#include <stdint.h>

struct prom;
struct throttle_mon;

#define THROTTLE_MAX_PKGS 64

/* One package as last read. */
struct throttle_pkg {
	unsigned socket;
	unsigned cpu;		/* whose files are read */
	bool have;		/* ms and count hold a read */
	uint64_t ms;		/* package_throttle_total_time_ms */
	uint64_t count;		/* package_throttle_count */
	bool have_count;	/* package_throttle_count read */
	uint64_t read_ns;	/* CLOCK_MONOTONIC of the last read */
	uint64_t errors;	/* failed reads */
};

/* Parses a sysfs counter: decimal digits, an optional newline, nothing
 * else, at most UINT64_MAX.  0, or -EINVAL. */
int throttle_parse_u64(const char *text, uint64_t *v);

/*
 * Finds one online CPU per package under SYSFS/devices/system/cpu and
 * its thermal_throttle/ files, and reads them once.  refresh, when not
 * NULL, is called with ctx before every read (the simulated kernel
 * brings its files to the simulated time there; a real kernel computes
 * them as they are read).  Returns the monitor (the caller's;
 * throttle_mon_free), never NULL but on no memory: with no package it
 * holds the reason (throttle_mon_absent()).
 */
struct throttle_mon *throttle_mon_new(const char *sysfs,
				      void (*refresh)(void *ctx), void *ctx);
/* A monitor with no package and the reason why (the daemon's: a backend
 * with no kernel).  NULL on no memory. */
struct throttle_mon *throttle_mon_new_absent(const char *why);

/* "" when packages are served, else why none is (static to m). */
const char *throttle_mon_absent(const struct throttle_mon *m);
/* Starts the thread: a read every interval_ms.  0, or -errno; nothing
 * to start (no package) is 0. */
int throttle_mon_start(struct throttle_mon *m, unsigned interval_ms);
/* Reads every package once (the thread's pass; tests). */
void throttle_mon_read(struct throttle_mon *m);
/* Stops the thread, frees m.  NULL is accepted. */
void throttle_mon_free(struct throttle_mon *m);
/* Copies the packages (by socket) into out, at most max; returns how
 * many.  Thread-safe. */
int throttle_mon_snapshot(struct throttle_mon *m, struct throttle_pkg *out,
			  int max);
/*
 * The kernel's reads as windows, for the samples of /api/v1/samples: the
 * monitor keeps its last THROTTLE_HIST successful reads per package (an
 * hour at one a second).  A window is two consecutive reads: from, to
 * (the values' instants, CLOCK_MONOTONIC ns) and the milliseconds the
 * package was throttled between them.  It ends, for the spans below,
 * when its second read was published (a moment after to).
 */
#define THROTTLE_HIST 4096
struct throttle_window {
	uint64_t from_ns, to_ns;
	uint64_t ms;
};
/* The windows of socket's package that end (are published) in (t0_ns,
 * t1_ns], oldest first, into out (at most max; those past max are left
 * out).  Each
 * window ends in exactly one such span, so the samples of a ring, asked
 * for in turn, hold every window once.  Returns how many; -ENOENT: no
 * such package; -ENODATA: the history kept does not reach back to t0_ns
 * (nothing is said of that span).  Thread-safe. */
int throttle_mon_windows(struct throttle_mon *m, unsigned socket,
			 uint64_t t0_ns, uint64_t t1_ns,
			 struct throttle_window *out, int max);
/* The family the seconds are served in (with the PCU's, where the
 * platform's derived metrics count those). */
#define THROTTLE_FAMILY "uncore_frequency_limited_seconds_total"
/* The two families from the last read; nothing where no package has a
 * value.  seconds_open: the caller has written THROTTLE_FAMILY's header
 * and samples already (the PCU's) and called throttle_mon_render_seconds
 * in it: only the events family is written.  Thread-safe. */
void throttle_mon_render(struct prom *w, struct throttle_mon *m,
			 bool seconds_open);
/* The seconds samples alone, into the family the caller has open.
 * Thread-safe. */
void throttle_mon_render_seconds(struct prom *w, struct throttle_mon *m);

#endif
