/*
 * sim_rdt.h - the simulated resctrl tree (issue 31 §3): the workload's
 * "resctrl" object (sim_workload.h struct wl_rdt) laid out as the
 * kernel's resctrl file system lays it out, and brought up to a
 * simulated time on demand, so that uncored's reader (src/resctrl/resctrl.c) is
 * tested against it through --path.resctrl as it would be against
 * /sys/fs/resctrl.  Facts and decisions: doc/resctrl.md.
 *
 * Under DIR (new or empty):
 *   DIR/sys/fs/resctrl/                the resctrl root (--path.resctrl)
 *     info/L3_MON/{num_rmids,mon_features,max_threshold_occupancy}
 *     info/L3_MON/{mbm_assign_mode,num_mbm_cntrs,available_mbm_cntrs}
 *                                      (AMD with assignable counters)
 *     info/last_cmd_status
 *     tasks cpus cpus_list mon_groups/ mon_data/   the root group
 *     CTRL/{tasks,cpus,cpus_list,mon_groups/,mon_data/}
 *     [CTRL/]mon_groups/MON/{tasks,cpus,cpus_list,mon_data/}
 *     .../mon_data/mon_L3_XX/{mbm_total_bytes,mbm_local_bytes,llc_occupancy}
 *     .../mon_data/mon_L3_XX/mon_sub_L3_YY/...     under SNC
 *     .../mbm_L3_assignments           (mbm_event mode)
 *   DIR/sys/devices/system/cpu/cpuN/{online,topology/physical_package_id,
 *                          cache/index0..3/{level,id}}   (--path.sysfs:
 *                                      the reader maps L3 ids to sockets)
 *   DIR/resctrl.log                    what the simulated kernel did:
 *                                      groups made, removed, refused
 *   DIR/removed/                       removed groups' directories (kept
 *                                      so that a re-made group never gets
 *                                      the old one's inode, as kernfs's
 *                                      cyclic numbering guarantees)
 *
 * It is a plain directory tree: a directory someone else makes (mkdir,
 * as uncored will for its own groups) is given the group files and an
 * RMID at the next sync if one is free, and counts no traffic (the
 * workload names none for it); a file it writes (tasks) is left as
 * written.  What a plain tree cannot do is refuse the mkdir itself: a
 * directory made without a free RMID stays bare and is logged.
 */
#ifndef UNCORED_SIM_RDT_H
#define UNCORED_SIM_RDT_H

#include <stddef.h>

#include "sim/sim_workload.h"

struct srdt;

/*
 * Lays out w's tree (w->rdt.present) under dir at simulated time 0: the
 * info files, the CPU map, the root group and the groups made at 0.
 * w must outlive the tree.  Returns 0 and *out (free with srdt_close(),
 * which keeps the files), or -errno with the reason in why: no
 * "resctrl" object, a directory that cannot be made or is not empty.
 */
int srdt_open(struct srdt **out, const struct workload *w, const char *dir,
	      char *why, size_t whylen);

/* The resctrl root (DIR/sys/fs/resctrl) and the sysfs root (DIR/sys).
 * Owned by k. */
const char *srdt_root(const struct srdt *k);
const char *srdt_sysfs(const struct srdt *k);

/*
 * Brings the tree to simulated time t (seconds since the simulated
 * machine's reset; a t before the last one is taken as the last): makes
 * and removes the workload's groups whose time has come, in time order
 * (RMIDs, limbo and ABMC counters as the kernel hands them out), takes
 * in directories others made, and rewrites every value file: a group's
 * bytes are its rates integrated from when it was made, split evenly
 * over the socket's domains and SNC nodes, plus its MON groups' for a
 * CTRL_MON group.  Returns 0 or -errno (a file that cannot be written).
 */
int srdt_sync(struct srdt *k, double t);

/* Groups refused so far for want of an RMID (or of their parent). */
unsigned srdt_refused(const struct srdt *k);

/* Frees k; the tree stays.  NULL is a no-op. */
void srdt_close(struct srdt *k);

#endif
