/*
 * resctrl_own.h - resctrl MON groups that uncored makes for cgroups
 * (issue 31 §2).
 *
 * With [resctrl] cgroups set, every pass of the resctrl thread walks the
 * cgroup v2 tree, and for each cgroup whose path matches a pattern
 * (resctrl_cg.h) keeps one MON group, mon_groups/uncored-<16 hex> under
 * the root (default) CTRL_MON group, whose tasks are the cgroup's
 * threads: threads that appeared since the last pass are written to its
 * tasks file, groups of cgroups that went away are removed.
 *
 * Rules (doc/resctrl.md "Groups per cgroup"):
 *  - only directories named uncored-<16 hex> in the root's mon_groups/
 *    are ever made, written or removed; everything else in the tree is
 *    read only (cAdvisor, goresctrl/NRI and pqos may share it);
 *  - RMIDs are scarce: at most max_groups groups; a cgroup left without
 *    one is counted by reason (limit, no_rmid, rmid_limbo, error) and
 *    logged when its reason changes, and the daemon goes on;
 *  - a thread in another CTRL_MON group cannot join a MON group of the
 *    root (the kernel answers EINVAL): counted, left where it is;
 *  - a thread another tool's MON group of the root holds (listed in its
 *    tasks) is not taken from it: counted, left where it is;
 *  - a group removed behind the daemon (another tool, a remount) is
 *    made again, its threads written again; each daemon holds a shared
 *    flock(2) on its groups' directories, and a leftover is removed
 *    only under an exclusive one: never a live daemon's group;
 *  - every write goes through a struct rdt_writer, so that after the
 *    privilege drop a separate process may do them (resctrl_priv.h).
 */
#ifndef UNCORED_RESCTRL_OWN_H
#define UNCORED_RESCTRL_OWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct prom;

/* The prefix of uncored's group names, and a whole name's length. */
#define RDT_OWN_PREFIX		"uncored-"
#define RDT_OWN_NAME_LEN	(sizeof(RDT_OWN_PREFIX) - 1 + 16)

/*
 * Is name one of uncored's (RDT_OWN_PREFIX and 16 lowercase hex digits,
 * nothing else)?  The only names a writer accepts.
 */
bool rdt_own_name_ok(const char *name);

/* uncored's group name of a cgroup path (relative to the cgroup root):
 * RDT_OWN_PREFIX and the 64-bit FNV-1a of the path in hex, into out. */
void rdt_own_name(const char *cgroup, char out[RDT_OWN_NAME_LEN + 1]);

/*
 * The writes to the resctrl tree, each on a group NAME in the root's
 * mon_groups/ (rdt_own_name_ok).  Each returns 0 or -errno as the
 * kernel gave it (mkdir: -ENOSPC no RMID, -EBUSY RMIDs in limbo,
 * -EEXIST; move: -ESRCH thread gone, -EINVAL in another CTRL_MON group,
 * -EPERM; -ENOENT: no such group or no tasks file yet), or as the writer
 * refused it (resctrl_priv.h: move -EBUSY, in another tool's MON group).
 * The writer is rdt_writer_open() or the helper's (resctrl_priv.h).
 */
struct rdt_writer {
	int (*mkgroup)(struct rdt_writer *w, const char *name);
	int (*rmgroup)(struct rdt_writer *w, const char *name);
	/* tid, a thread of cgroup (relative to the cgroup root), into
	 * name, its cgroup's group (rdt_own_name()) */
	int (*move)(struct rdt_writer *w, const char *name, const char *cgroup,
		    pid_t tid);
	/* ABMC: assigns a counter to event ev (0 mbm_total_bytes, 1
	 * mbm_local_bytes) of the group in every domain ("EV:*=e" to its
	 * mbm_L3_assignments); -ENOSPC when none is free */
	int (*assign)(struct rdt_writer *w, const char *name, unsigned ev);
	void (*free)(struct rdt_writer *w);
};

/*
 * Bounds on what a cgroup tree can cost (issue 39 §5; doc/resctrl.md
 * "Hostile trees").  A pass keeps state for at most RDT_OWN_TRACKED
 * matching cgroups, those it tracked before first, then in path order;
 * of them, those whose directory a uid other than 0 owns (a delegated
 * subtree: systemd's user@UID.service, rootless containers) at most
 * RDT_OWN_SHARE per uid, so one user cannot take every max_groups slot;
 * root's cgroups (systemd, the kubelet, the runtimes make them) have no
 * share.  A cgroup.threads file is read up to RDT_OWN_THREADS_MAX bytes
 * (131072 threads of 7 digits).  The walk stores at most
 * RDT_OWN_WALK_MAX matching paths.
 */
#define RDT_OWN_TRACKED(max_groups)	(2u * (max_groups))
#define RDT_OWN_SHARE(max_groups)	((max_groups) >= 4 ? (max_groups) / 4 : 1u)
#define RDT_OWN_THREADS_MAX		(1u << 20)
#define RDT_OWN_WALK_MAX		65536u

/* Why a matching cgroup has no group (RDT_OWN_GROUPED: it has one). */
enum rdt_own_state {
	RDT_OWN_GROUPED = 0,
	RDT_OWN_PENDING,	/* made, not yet seen whole (the tree's tasks
				 * file is not there yet) */
	RDT_OWN_LIMIT,		/* max_groups reached */
	RDT_OWN_NO_RMID,	/* mkdir: ENOSPC, every RMID in use */
	RDT_OWN_LIMBO,		/* mkdir: EBUSY, freed RMIDs still in limbo */
	RDT_OWN_ERROR,		/* any other mkdir failure */
	RDT_OWN_REFUSED,	/* its cgroup.threads is not a regular file,
				 * is a symbolic link, or is longer than
				 * RDT_OWN_THREADS_MAX (sfile.h) */
	RDT_OWN_SHARE,		/* its directory's owner, a uid other than 0,
				 * has RDT_OWN_SHARE(max_groups) tracked:
				 * not tracked */
	RDT_OWN_UNTRACKED,	/* RDT_OWN_TRACKED(max_groups) tracked
				 * already: not tracked */
	RDT_OWN_NSTATES
};

/* The state label of uncore_resctrl_cgroups. */
const char *rdt_own_state_name(enum rdt_own_state s);

/* The outcomes of writing a thread to a group's tasks. */
enum rdt_own_move {
	RDT_MOVE_OK = 0,
	RDT_MOVE_GONE,		/* ESRCH: the thread ended first */
	RDT_MOVE_OTHER_CTRL,	/* EINVAL: in another tool's CTRL_MON group */
	RDT_MOVE_OTHER_MON,	/* in another tool's MON group of the root:
				 * not asked for (EBUSY from the writer) */
	RDT_MOVE_DENIED,	/* EPERM/EACCES */
	RDT_MOVE_ERROR,
	RDT_MOVE_N
};

/* The outcomes of asking for an ABMC counter for one of uncored's
 * groups' events. */
enum rdt_own_assign {
	RDT_ASSIGN_OK = 0,
	RDT_ASSIGN_REFUSED,	/* ENOSPC: taken by someone else meanwhile */
	RDT_ASSIGN_ERROR,
	RDT_ASSIGN_N
};

struct rdt_own_cfg {
	const char *patterns;	/* the [resctrl] cgroups value: patterns
				 * separated by blanks or commas */
	const char *cgroup_root;	/* e.g. "/sys/fs/cgroup" */
	const char *resctrl_root;	/* e.g. "/sys/fs/resctrl" */
	unsigned max_groups;
};

struct rdt_own;

/*
 * A manager for cfg (strings copied) writing through w (owned by the
 * manager from then on, freed with it, even on failure).  NULL when out
 * of memory or a pattern is bad (the config parser has checked them).
 */
struct rdt_own *rdt_own_new(const struct rdt_own_cfg *cfg,
			    struct rdt_writer *w);

/*
 * One pass: walk the cgroups, make and remove groups, move new threads.
 * Returns the number of matching cgroups, or -errno when the cgroup
 * root cannot be read (groups are then left as they are).
 */
int rdt_own_pass(struct rdt_own *o);

/*
 * The labels of a group the manager made, by the reader's group label
 * ("mon_groups/uncored-..."): the cgroup path, and the Kubernetes pod
 * UID and container id ("" when not found).  False for any other group.
 * The strings are copied into the caller's buffers.
 */
bool rdt_own_labels(const struct rdt_own *o, const char *group,
		    char *cgroup, size_t ncg, char pod[64], char ctr[128]);

/* uncore_resctrl_cgroups{state}, uncore_resctrl_task_moves_total{result},
 * uncore_resctrl_groups_lost_total, and with ABMC uncore_resctrl_unassigned_events and
 * uncore_resctrl_counter_assignments_total{result}. */
void rdt_own_render(struct prom *w, const struct rdt_own *o);

/*
 * Removes every group made (their threads go back to the root group, as
 * rmdir does in the kernel) and frees o and its writer.  NULL is a no-op.
 */
void rdt_own_free(struct rdt_own *o);

#endif
