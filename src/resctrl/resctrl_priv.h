/*
 * resctrl_priv.h - the only code that writes the resctrl tree, and the
 * uid-0 helper that runs it after the privilege drop (issue 31 §2,
 * issue 39; doc/resctrl.md "Least privilege").
 *
 * Moving another user's thread into a resctrl group needs an effective
 * uid of 0: the kernel checks the uid, not a capability
 * (fs/resctrl/rdtgroup.c rdtgroup_task_write_permission(): euid root, or
 * the task's own uid or suid).  The daemon gives up uid 0 and every
 * capability after start-up, so before it does, it forks a helper that
 * keeps uid 0 and nothing else, and treats the daemon as compromised.
 *
 * The writer (rdt_writer_open(), used by the helper, and by a daemon
 * that writes itself) stays inside resctrl whatever the tree holds:
 *  - the root is opened without following a link and must be the
 *    kernel's resctrl (statfs f_type RDTGROUP_SUPER_MAGIC), unless the
 *    operator named a simulated tree ([resctrl] simulated);
 *  - every path below it is opened relative to that descriptor with
 *    openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV
 *    (one component at a time with O_NOFOLLOW where openat2 is missing);
 *    a file written must be a regular file with one link, opened
 *    O_NONBLOCK (a FIFO cannot stall it);
 *  - only names rdt_own_name_ok() accepts, in the root's mon_groups/;
 *  - at most max_groups groups made and not removed;
 *  - a thread is written only to the group of its own cgroup, which a
 *    pattern must match: the cgroup is read from /proc/<tid>/cgroup
 *    (the simulated tree: the cgroup tree's cgroup.threads), and the
 *    group name must be rdt_own_name() of it; never pid 1, never a
 *    thread another tool's MON group (mon_groups/<not uncored's>/tasks)
 *    holds (-EBUSY).
 * The helper in addition: no capability, no_new_privs, gid 65534 and no
 * supplementary group, working directory /, every descriptor but its
 * socket and stdin/stdout/stderr closed, dies with the daemon, and a
 * seccomp filter: only the system calls its requests need, any other
 * fails with EPERM (a wrong architecture or x32 call kills it).  A
 * message that is not exactly one request is answered EINVAL.
 */
#ifndef UNCORED_RESCTRL_PRIV_H
#define UNCORED_RESCTRL_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "resctrl_own.h"

/* Where the writer learns which cgroup a thread is in. */
enum rdt_threads {
	RDT_THREADS_AUTO = 0,	/* /proc, or the cgroup tree if simulated */
	RDT_THREADS_PROC,	/* /proc/<tid>/cgroup, "0::/<path>" */
	RDT_THREADS_TREE,	/* <cgroup_root>/<path>/cgroup.threads */
};

/* What the writer may do, fixed when it starts (strings copied). */
struct rdt_writer_cfg {
	const char *resctrl_root;	/* e.g. "/sys/fs/resctrl" */
	const char *cgroup_root;	/* e.g. "/sys/fs/cgroup" */
	const char *patterns;		/* [resctrl] cgroups */
	unsigned max_groups;
	bool simulated;			/* [resctrl] simulated: a plain tree */
	enum rdt_threads threads;
};

/* The group limit's answer to one mkdir too many. */
#define RDT_ERR_LIMIT		EDQUOT
/* The answer for a root that is not the kernel's resctrl. */
#define RDT_ERR_NOT_RESCTRL	EMEDIUMTYPE

/*
 * The writer, in this process.  NULL with the reason (naming the path)
 * in why when the root is a link, or exists and is not the kernel's
 * resctrl while cfg->simulated is false, or on a bad pattern or no
 * memory.  A root that does not exist yet is checked at each write.
 */
struct rdt_writer *rdt_writer_open(const struct rdt_writer_cfg *cfg,
				   char *why, size_t len);

/*
 * Forks the helper running rdt_writer_open(cfg).  Call it while still
 * root and before any thread starts.  Returns the writer (its free()
 * ends the helper) and the helper's pid in *pid, or NULL with the reason
 * in why (the helper's own when it refused to start).
 */
struct rdt_writer *rdt_helper_start(const struct rdt_writer_cfg *cfg,
				    pid_t *pid, char *why, size_t len);

/*
 * Sends one raw request, as the daemon's writer does, and returns the
 * helper's answer (0 or -errno): op 'm' make, 'r' remove, 't' move tid
 * of cgroup, 'a' assign a counter to event tid (0 total, 1 local).
 * For tests of the helper's checks.
 */
int rdt_helper_request(struct rdt_writer *w, char op, const char *name,
		       const char *cgroup, pid_t tid);

/* Tests only: resolve paths one component at a time, as where the
 * kernel has no openat2 (inherited by a helper started later). */
void rdt_writer_no_openat2(void);

#endif
