/*
 * resctrl_priv.h - the resctrl writer that outlives the privilege drop
 * (issue 31 §2, least privilege; doc/resctrl.md "Least privilege").
 *
 * Moving another user's thread into a resctrl group needs an effective
 * uid of 0: the kernel checks the uid, not a capability
 * (fs/resctrl/rdtgroup.c rdtgroup_task_write_permission(): euid root, or
 * the task's own uid or suid).  The daemon gives up uid 0 and every
 * capability after start-up, so before it does, it forks a helper that
 * keeps uid 0 and nothing else:
 *  - every capability cleared (effective, permitted, inheritable,
 *    ambient, and the bounding set where it may), no_new_privs, dies with
 *    the daemon (PR_SET_PDEATHSIG), every other descriptor closed;
 *  - as uid 0 without CAP_DAC_OVERRIDE it can write only what root owns
 *    and may write by mode: the resctrl files are root's 0644/0755;
 *  - it answers four requests on a socket pair and nothing else: make,
 *    remove, write one thread id to the tasks of, or assign an ABMC
 *    counter to an event of, a group in the
 *    resctrl root's mon_groups/ whose name is uncored's
 *    (rdt_own_name_ok()); any other name is refused with EINVAL before
 *    the file system is touched.
 * The daemon's side is a struct rdt_writer, used by one thread at a time.
 */
#ifndef UNCORED_RESCTRL_PRIV_H
#define UNCORED_RESCTRL_PRIV_H

#include <stddef.h>
#include <sys/types.h>

#include "resctrl_own.h"

/*
 * Forks the helper for the resctrl tree at root.  Call it while still
 * root and before any thread starts.  Returns the writer (its free()
 * ends the helper) and the helper's pid in *pid, or NULL with the reason
 * in why.
 */
struct rdt_writer *rdt_helper_start(const char *root, pid_t *pid, char *why,
				    size_t len);

/*
 * Sends one raw request, as the daemon's writer does, and returns the
 * helper's answer (0 or -errno): op 'm' make, 'r' remove, 't' move tid,
 * 'a' assign a counter to event tid (0 total, 1 local).
 * For tests of the helper's checks (a name that is not uncored's).
 */
int rdt_helper_request(struct rdt_writer *w, char op, const char *name,
		       pid_t tid);

#endif
