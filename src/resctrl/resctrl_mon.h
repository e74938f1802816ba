/*
 * resctrl_mon.h - the resctrl reader on its own thread (issue 31 §1).
 *
 * On real hardware every mbm_* read is an IPI to a CPU of the domain, so
 * resctrl is read on its own interval ([resctrl] interval, 5 s by
 * default) by its own thread, never by the sampler's tick.  Each pass
 * reads the whole tree into a private snapshot and then swaps it in under
 * a mutex; /metrics renders the last published pass.
 */
#ifndef UNCORED_RESCTRL_MON_H
#define UNCORED_RESCTRL_MON_H

#include <stdint.h>

struct prom;
struct rdt_mon;

/*
 * Makes a monitor of the tree at root (e.g. "/sys/fs/resctrl"), mapping
 * domains to sockets through sysfs_root (e.g. "/sys").  Both strings are
 * copied.  Does one pass at once, so the first page has the groups.
 * Returns the monitor (owned by the caller, free with rdt_mon_free()) or
 * NULL when out of memory.  A missing tree is not an error: it is logged
 * once and the monitor reports resctrl as unavailable.
 */
struct rdt_mon *rdt_mon_new(const char *root, const char *sysfs_root);

/* One pass now, on the caller's thread.  0, -ENOENT (no tree) or -ENOMEM. */
int rdt_mon_pass(struct rdt_mon *m);

/* Starts the thread: a pass every interval_ms.  0 or -errno. */
int rdt_mon_start(struct rdt_mon *m, unsigned interval_ms);

/* Stops the thread (if started) and frees m.  NULL is accepted. */
void rdt_mon_free(struct rdt_mon *m);

/*
 * Writes uncore_resctrl_available and, when the last pass found a tree,
 * the families of rdt_render() from the last pass.  Thread-safe.
 */
void rdt_mon_render(struct prom *w, struct rdt_mon *m);

struct rdt_own;

/*
 * One group on one socket at the last pass, its L3 domains summed: for
 * /api/v1/metrics and the live page.  A value is absent (have_* false)
 * when any of the socket's domains had no reading for it.  rate is the
 * total bytes per second between the last two passes (a re-made group
 * counts from 0, rdt_delta()).  workload: a group whose bytes no other
 * workload group's include - every CTRL_MON group but the root "/", and
 * the root's MON groups (doc/monitoring.md) - so that their sum per
 * socket counts nothing twice.
 */
struct rdt_row {
	char *group, *cgroup, *pod, *ctr;	/* cgroup..: NULL if not ours */
	int socket;
	bool workload;
	bool have_total, have_local, have_occ, have_rate;
	uint64_t total, local, occ;
	double rate;
};

/*
 * The rows of the last pass, sorted by socket, then rate (highest first),
 * then group; a deep copy for the caller (free with rdt_rows_free()).
 * Returns how many, 0 when there is no tree, or -ENOMEM.
 */
long rdt_mon_rows(struct rdt_mon *m, struct rdt_row **out);
void rdt_rows_free(struct rdt_row *rows, long n);

/*
 * Gives m a manager of uncored's own groups (resctrl_own.h; m owns it
 * from then on and frees it, removing its groups, in rdt_mon_free()).
 * Call before rdt_mon_start(): each pass then runs the manager first and
 * labels its groups' series with their cgroup; the thread's first pass
 * comes at once.
 */
void rdt_mon_set_own(struct rdt_mon *m, struct rdt_own *own);

/* Passes done so far (for tests). */
uint64_t rdt_mon_passes(struct rdt_mon *m);

#endif
