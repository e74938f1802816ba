/*
 * priv.h - least privilege: the kernel's rules on raw PMU access, and the
 * switch to an unprivileged user once every device handle is open.
 *
 * Linux checks privilege when a device file is opened, not when it is
 * used: CAP_SYS_RAWIO at open of /dev/cpu/N/msr and /dev/mem, and the
 * opener's CAP_SYS_ADMIN for PCI configuration space past byte 64
 * (drivers/pci/pci-sysfs.c).  So the daemon opens everything as root,
 * then becomes an ordinary user with no capability and keeps working
 * through the descriptors it holds (doc/design.md section 4).
 */
#ifndef UNCORED_PRIV_H
#define UNCORED_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PRIV_DEFAULT_USER "uncored"
#define PRIV_LOCKDOWN_PATH "/sys/kernel/security/lockdown"
#define PRIV_ALLOW_WRITES_PATH "/sys/module/msr/parameters/allow_writes"

/* Who the daemon becomes after start-up. */
struct priv_target {
	bool drop;		/* switch to uid/gid and drop every capability */
	bool caps_only;		/* not root, but holding capabilities (systemd's
				   User= with AmbientCapabilities=), or root
				   without CAP_SETUID/CAP_SETGID (a container
				   given only CAP_PERFMON): drop them, keep
				   the user */
	bool root_stays;	/* caps_only as uid 0: the user could not be
				   switched */
	uid_t uid;
	gid_t gid;
	char name[64];
	/* A capability to keep, effective and permitted, plus one; 0:
	 * none (every one dropped).  The perf backend keeps CAP_PERFMON
	 * (CAP_SYS_ADMIN before Linux 5.8) to open events for claims after
	 * start-up. */
	int keep_cap;
};

/*
 * Looks up user (the [daemon] user / --user value).  When the process is
 * not root there is no user to switch to: t->drop is false, t->caps_only
 * says whether it holds capabilities to drop, and 0 is returned whatever
 * user names.  Returns -1 with the reason and the fix in why when
 * the user does not exist or is root.
 */
int priv_resolve(const char *user, struct priv_target *t, char *why,
		 size_t len);

/*
 * With t->caps_only: clears every capability but t->keep_cap and sets
 * no_new_privs.  With t->drop: becomes t's user and group (no
 * supplementary groups) and drops every capability but t->keep_cap
 * (effective and permitted), inheritable, ambient and (when allowed)
 * bounding, with libcap-ng; sets no_new_privs.  Verifies the result.  Call it before any thread starts: capabilities are per thread.
 * Returns 0, or -1 with the reason in why.
 */
int priv_drop(const struct priv_target *t, char *why, size_t len);

/* Does the calling thread hold any capability (effective or permitted)
 * besides keep (-1: none to ignore)? */
bool priv_have_caps(void);
bool priv_have_caps_but(int keep);

/*
 * The kernel settings that forbid programming the PMU from user space:
 * lockdown (integrity or confidentiality) and msr.allow_writes=off.  The
 * paths are the files to read (NULL: the defaults above); a missing file
 * means the feature is absent.  Returns 0 when neither forbids it, or 1
 * with which one, what it forbids and what to do in why.
 */
int priv_kernel_rules(const char *lockdown_path, const char *allow_writes_path,
		      char *why, size_t len);

#endif
