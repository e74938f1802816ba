/*
 * priv.c - the kernel's rules on raw PMU access, and dropping privilege.
 *
 * The drop uses libcap-ng rather than raw setresuid()/capset(): it handles
 * the order that keeps the process from ending half-dropped (groups, then
 * gid, then uid with keep-caps, then the empty capability sets, bounding
 * set and ambient set included) in one call that is maintained with the
 * kernel's capability ABI, and it lets us check the result afterwards.
 */
#include "config.h"

#include <cap-ng.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "priv.h"

/* Can this process (root) switch to another user: does it hold
 * CAP_SETUID and CAP_SETGID?  Unknown: yes (the switch reports it). */
static bool can_switch_user(void)
{
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_get_caps_process() < 0)
		return true;
	return capng_have_capability(CAPNG_EFFECTIVE, CAP_SETUID) &&
	       capng_have_capability(CAPNG_EFFECTIVE, CAP_SETGID);
}

int priv_resolve(const char *user, struct priv_target *t, char *why,
		 size_t len)
{
	struct passwd *pw;

	memset(t, 0, sizeof(*t));
	if (geteuid() != 0) {
		t->caps_only = priv_have_caps();
		return 0;	/* no user to switch to */
	}
	if (!can_switch_user()) {
		/* root in a container given only CAP_PERFMON: it cannot
		 * become another user, so it keeps uid 0 and drops every
		 * capability it can (all but the perf backend's one) */
		t->caps_only = true;
		t->root_stays = true;
		return 0;
	}
	if (!user || !*user)
		user = PRIV_DEFAULT_USER;
	errno = 0;
	pw = getpwnam(user);
	if (!pw) {
		snprintf(why, len, "user \"%s\" does not exist%s%s: uncored runs "
			 "as that user once its devices are open. Create it "
			 "(systemd-sysusers uncored.conf, as `make install` "
			 "does, or useradd --system --no-create-home --shell "
			 "/usr/sbin/nologin %s), or name an existing "
			 "unprivileged user with --user or [daemon] user",
			 user, errno ? ": " : "", errno ? strerror(errno) : "",
			 user);
		return -1;
	}
	if (pw->pw_uid == 0) {
		snprintf(why, len, "user \"%s\" is uid 0: uncored does not keep "
			 "running as root after start-up; name an unprivileged "
			 "user with --user or [daemon] user", user);
		return -1;
	}
	t->drop = true;
	t->uid = pw->pw_uid;
	t->gid = pw->pw_gid;
	snprintf(t->name, sizeof(t->name), "%s", user);
	return 0;
}

bool priv_have_caps(void)
{
	return priv_have_caps_but(-1);
}

bool priv_have_caps_but(int keep)
{
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_get_caps_process() < 0)
		return true;	/* cannot tell: assume the worst */
	if (keep >= 0)
		capng_update(CAPNG_DROP, CAPNG_EFFECTIVE | CAPNG_PERMITTED,
			     (unsigned)keep);
	return capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE;
}

/* Sets libcap-ng's state to nothing but keep (-1: nothing). */
static void only(int keep)
{
	capng_clear(CAPNG_SELECT_BOTH);
	if (keep >= 0)
		capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED,
			     (unsigned)keep);
}

int priv_drop(const struct priv_target *t, char *why, size_t len)
{
	capng_flags_t flags = CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_AMBIENT;
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	int r;

	if (t->caps_only) {
		/* Clearing permitted clears ambient too (it must stay a
		 * subset); the bounding set needs CAP_SETPCAP, which a unit
		 * does not grant. */
		only(t->keep_cap - 1);
		if (capng_apply(CAPNG_SELECT_CAPS) < 0 ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    priv_have_caps_but(t->keep_cap - 1)) {
			snprintf(why, len, "cannot drop capabilities: %s",
				 strerror(errno));
			return -1;
		}
		return 0;
	}
	if (!t->drop)
		return 0;
	/* Clearing the bounding set needs CAP_SETPCAP; under systemd the
	 * unit's bounding set already excludes it and everything else. */
	if (capng_get_caps_process() == 0 &&
	    capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP))
		flags |= CAPNG_CLEAR_BOUNDING;
	capng_clear(CAPNG_SELECT_ALL);
	only(t->keep_cap - 1);
	r = capng_change_id((int)t->uid, (int)t->gid, flags);
	if (r < 0) {
		snprintf(why, len, "cannot switch to user %s (uid %u gid %u): "
			 "libcap-ng capng_change_id failed (%d): %s", t->name,
			 (unsigned)t->uid, (unsigned)t->gid, r, strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		snprintf(why, len, "cannot set no_new_privs: %s", strerror(errno));
		return -1;
	}
	/* Trust, but verify: no uid or gid 0 left, no capability, and root
	 * cannot be taken back. */
	if (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0 ||
	    !ru || !eu || !su || (t->gid && (!rg || !eg || !sg)) ||
	    priv_have_caps_but(t->keep_cap - 1) || setuid(0) == 0) {
		snprintf(why, len, "dropping privileges to user %s did not take "
			 "effect (uids %u/%u/%u)", t->name, (unsigned)ru,
			 (unsigned)eu, (unsigned)su);
		return -1;
	}
	return 0;
}

/* Reads the first line of path into buf; 0, or -1 if it cannot be read. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int priv_kernel_rules(const char *lockdown_path, const char *allow_writes_path,
		      char *why, size_t len)
{
	char line[256], mode[64] = "";
	const char *l, *r;

	if (!lockdown_path)
		lockdown_path = PRIV_LOCKDOWN_PATH;
	if (!allow_writes_path)
		allow_writes_path = PRIV_ALLOW_WRITES_PATH;
	/* "none [integrity] confidentiality": the bracketed one is active. */
	if (read_line(lockdown_path, line, sizeof(line)) == 0 &&
	    (l = strchr(line, '[')) && (r = strchr(l, ']')) &&
	    (size_t)(r - l - 1) < sizeof(mode)) {
		memcpy(mode, l + 1, (size_t)(r - l - 1));
		mode[r - l - 1] = '\0';
		if (strcmp(mode, "none") != 0) {
			snprintf(why, len, "kernel lockdown is active (%s mode, "
				 "%s): it forbids writing MSRs, writing PCI "
				 "configuration space and opening /dev/mem from "
				 "user space, so uncored cannot program the "
				 "uncore PMU. Boot with lockdown=none (with "
				 "Secure Boot this means disabling it or using a "
				 "kernel that does not lock down), or use the "
				 "kernel's own perf uncore PMUs (perf list "
				 "uncore), which remain available under "
				 "lockdown", mode, lockdown_path);
			return 1;
		}
	}
	if (read_line(allow_writes_path, line, sizeof(line)) == 0 &&
	    strcmp(line, "off") == 0) {
		snprintf(why, len, "MSR writes are disabled (msr.allow_writes=off, "
			 "%s): the msr driver refuses every write, so uncored "
			 "cannot program the uncore PMU. Allow them with `echo on "
			 ">%s` or the kernel parameter msr.allow_writes=on, or use "
			 "the kernel's own perf uncore PMUs (perf list "
			 "uncore), which need no MSR writes",
			 allow_writes_path, allow_writes_path);
		return 1;
	}
	return 0;
}
