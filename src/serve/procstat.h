/*
 * procstat.h - the daemon's own process_* metrics.
 *
 * The standard process metrics every Prometheus client library exports
 * (CPU seconds, resident and virtual memory, open and maximum file
 * descriptors, start time, threads), read from /proc/self on Linux, under
 * the same names and HELP texts, so the usual dashboards and alerts work.
 */
#ifndef UNCORED_PROCSTAT_H
#define UNCORED_PROCSTAT_H

#include <stdint.h>

#include "base/prom.h"

/* Which fields of struct procstat hold a value. */
enum {
	PS_HAVE_STAT = 1 << 0,	/* cpu_seconds, virtual/resident_bytes, threads */
	PS_HAVE_START = 1 << 1,	/* start_time_s */
	PS_HAVE_FDS = 1 << 2,	/* open_fds */
	PS_HAVE_MAXFDS = 1 << 3, /* max_fds */
};

struct procstat {
	unsigned have;		/* PS_HAVE_* */
	double cpu_seconds;	/* user + system, since the process started */
	uint64_t resident_bytes;
	uint64_t virtual_bytes;
	unsigned open_fds;
	uint64_t max_fds;	/* RLIMIT_NOFILE soft limit; UINT64_MAX if none */
	double start_time_s;	/* Unix time the process started */
	unsigned threads;
};

/*
 * Reads the calling process's figures: /proc/self/stat (CPU, memory,
 * threads, start in ticks after boot), /proc/stat (btime: read once per
 * process), the size of /proc/self/fd (its entries on kernels before 6.2)
 * and getrlimit(RLIMIT_NOFILE).  Fills every field it can and marks it in
 * ps->have, so one unreadable source does not hide the others.  Returns 0
 * when everything was read, else the first failure as -errno (-EIO for
 * contents it could not parse).  Never exits, never logs.
 */
int procstat_read(struct procstat *ps);

/*
 * Writes one family per field present in ps->have: process_cpu_seconds_total,
 * process_resident_memory_bytes, process_virtual_memory_bytes,
 * process_open_fds, process_max_fds, process_start_time_seconds,
 * process_threads.  Errors are recorded in w (see prom_end()).
 */
void procstat_render(struct prom *w, const struct procstat *ps);

#endif
