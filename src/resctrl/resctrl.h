/*
 * resctrl.h - reading the kernel's resctrl monitoring groups (issue 31 §1).
 *
 * A pass over a mounted resctrl tree (normally /sys/fs/resctrl) finds every
 * CTRL_MON group (the root, i.e. default, group and each top-level
 * directory) and every MON group under a CTRL_MON group's mon_groups/, and
 * reads, per L3 monitoring domain (mon_data/mon_L3_XX, and mon_sub_L3_YY
 * below it under sub-NUMA clustering), mbm_total_bytes, mbm_local_bytes and
 * llc_occupancy.  Facts and citations: doc/resctrl.md.
 *
 * A file may hold something other than a number ("Unavailable", "Error",
 * "Unassigned"); such a value is an absent sample with a reason, never 0.
 * This module only reads: it never writes to the tree.
 */
#ifndef UNCORED_RESCTRL_H
#define UNCORED_RESCTRL_H

#include <stddef.h>
#include <stdint.h>

/* What a resctrl value file held. */
enum rdt_status {
	RDT_OK = 0,
	RDT_UNAVAILABLE,	/* "Unavailable": no reading (RMID_VAL_UNAVAIL) */
	RDT_ERROR,		/* "Error": the hardware said so (RMID_VAL_ERROR) */
	RDT_UNASSIGNED,		/* "Unassigned": no ABMC counter (6.18+) */
	RDT_MALFORMED,		/* anything else: not a number we accept */
	RDT_UNREADABLE,		/* open or read failed; v holds the errno, and
				 * ENOENT means the event is not monitored */
	RDT_NSTATUS
};

/* The reason label of uncore_resctrl_unreadable_total for a status. */
const char *rdt_status_name(enum rdt_status s);

/* One value: v only meaningful when st == RDT_OK. */
struct rdt_val {
	enum rdt_status st;
	uint64_t v;
};

enum { RDT_TOTAL, RDT_LOCAL, RDT_OCC, RDT_NEVENTS };

/* One group in one domain. */
struct rdt_sample {
	char *group;		/* "/" for the root group, "ctrl" for a CTRL_MON
				 * group, "ctrl/mon_groups/mon" (or
				 * "mon_groups/mon" under the root) for a MON group */
	int is_mon;		/* 1 for a MON group */
	unsigned domain;	/* L3 cache id XX of mon_L3_XX */
	int sub;		/* YY of mon_sub_L3_YY, or -1 */
	int socket;		/* physical_package_id, or -1 when not found */
	uint64_t gen;		/* the group directory's inode (kernfs numbers
				 * them cyclically, see doc/resctrl.md):
				 * changes when a group is removed and re-made */
	struct rdt_val ev[RDT_NEVENTS];
	/* For a group uncored made for a cgroup (resctrl_own.h), its labels
	 * cgroup, pod_uid, container_id (NULL, or "" when not known); owned
	 * by the snapshot.  NULL for every other group. */
	char *cgroup, *pod, *ctr;
};

struct rdt_snap {
	struct rdt_sample *s;
	size_t n, cap;
};

/*
 * Parses the text of one value file (up to its newline) into *out.
 * Returns out->st.
 */
enum rdt_status rdt_parse_value(const char *text, struct rdt_val *out);

/*
 * Maps L3 cache ids to sockets by reading, under sysfs_root (e.g. "/sys"),
 * devices/system/cpu/cpuN/cache/indexK/{level,id} for the level-3 cache and
 * devices/system/cpu/cpuN/topology/physical_package_id.  Returns the
 * package of cache id l3, or -1 when no CPU has it.
 */
int rdt_l3_socket(const char *sysfs_root, unsigned l3);

/*
 * Reads one pass of the tree at root into snap (emptied first), mapping
 * domains to sockets via sysfs_root.  Returns 0, -ENOENT when root holds
 * no resctrl tree (no "info" directory), or -ENOMEM.  Files that cannot
 * be read give RDT_UNREADABLE samples, not an error of the pass.  The
 * strings belong to snap; free with rdt_snap_free().
 */
int rdt_scan(const char *root, const char *sysfs_root, struct rdt_snap *snap);

void rdt_snap_free(struct rdt_snap *snap);

/*
 * The bytes counted between two readings of the same group, domain and
 * event.  A group removed and re-created restarts from 0: when the
 * generation changed, or the value went down, the new value itself is the
 * increase (a counter reset, never a negative delta).  *reset is set to 1
 * then, else 0.
 */
uint64_t rdt_delta(uint64_t prev_gen, uint64_t prev, uint64_t gen,
		   uint64_t cur, int *reset);

struct prom;

/* Absent samples seen so far, by reason (index: enum rdt_status; the
 * RDT_OK slot stays 0).  Cumulative over the daemon's life. */
struct rdt_stats {
	uint64_t unreadable[RDT_NSTATUS];
};

/*
 * Adds the absent samples of snap to st: every event whose status is not
 * RDT_OK, except RDT_UNREADABLE with ENOENT (an event the kernel does not
 * monitor there is not a failed read).
 */
void rdt_count(struct rdt_stats *st, const struct rdt_snap *snap);

/*
 * Writes, into w, the families
 *   uncore_resctrl_memory_bytes_total{group,socket,domain,scope}  counter
 *   uncore_resctrl_llc_occupancy_bytes{group,socket,domain}       gauge
 *   uncore_resctrl_unreadable_total{reason}                       counter
 * from snap and st; an absent sample writes no series.  domain is the L3
 * id "XX", or "XX.YY" for SNC node YY of it; socket is "" when unknown.
 * Returns 0, or the writer's first error.
 */
int rdt_render(struct prom *w, const struct rdt_snap *snap,
	       const struct rdt_stats *st);

#endif
