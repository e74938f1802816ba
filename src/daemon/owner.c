/*
 * owner.c - the owner file (see owner.h): which uncored holds the uncore
 * PMU on this machine, written at start and removed at a clean stop, so
 * that a second daemon refuses to start and a crashed one's successor
 * knows to clean up.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "owner.h"

static void read_boot_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

/* Is pid a running uncored? */
bool owner_alive(pid_t pid)
{
	char path[64], comm[64] = "";
	FILE *f;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return strncmp(comm, "uncored", 7) == 0;
}

/* The owner file, kept open so the unprivileged daemon can release it
 * (truncate) where it may not remove it. */
static int owner_fd = -1;

/*
 * Writes the owner file at path through a temporary file made with
 * mkstemp() in the same directory (O_EXCL: a name another user put there
 * is never opened, unlike a fixed "path.tmp" that a symbolic link could
 * point at a file of root's), renamed over path; the descriptor stays
 * open as owner_fd.  Returns 0 or -errno.
 */
static int write_owner(const char *path)
{
	char tmp[PATH_MAX + 8], boot[64], text[256];
	int fd, n, e;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	read_boot_id(boot, sizeof(boot));
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(text, sizeof(text), "pid=%d\nboot_id=%s\nstarted=%lld\n",
		     (int)getpid(), boot, (long long)time(NULL));
	errno = 0;
	if (fchmod(fd, 0644) < 0 || write(fd, text, (size_t)n) != n ||
	    rename(tmp, path) < 0) {
		e = errno ? errno : EIO;
		close(fd);
		unlink(tmp);
		return -e;
	}
	owner_fd = fd;
	return 0;
}

/* The owner file for reading, never through a symbolic link; NULL if
 * there is none (or it is a link). */
static FILE *open_owner(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (fd >= 0 && !f)
		close(fd);
	return f;
}

/* Removes the owner file; where the directory is not ours to write in
 * (a root-owned directory after the drop), empties it: an owner file
 * without a pid means no owner. */
void owner_release(const char *path)
{
	if (!path[0])
		return;
	if (unlink(path) < 0 && errno != ENOENT) {
		if ((errno != EACCES && errno != EPERM) || owner_fd < 0 ||
		    ftruncate(owner_fd, 0) < 0)
			log_warn("cannot remove %s", path);
		else
			log_info("%s emptied (its directory is not writable by "
				 "uid %u)", path, (unsigned)getuid());
	}
	if (owner_fd >= 0)
		close(owner_fd);
	owner_fd = -1;
}

/* The pid the owner file at path names, if the file was written in this
 * boot: 0 when there is no file (or path is ""), no pid, or another
 * boot's. */
long owner_pid(const char *path)
{
	char boot[64], line[128], fboot[64] = "";
	long opid = 0;
	FILE *f;

	if (!path[0] || !(f = open_owner(path)))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "pid=%ld", &opid) != 1)
			sscanf(line, "boot_id=%63s", fboot);
	fclose(f);
	read_boot_id(boot, sizeof(boot));
	return strcmp(fboot, boot) == 0 ? opid : 0;
}

/*
 * Decides whether the daemon may take the PMU, cleaning up after its own
 * crashed predecessor.  Exits with EXIT_BUSY when another agent holds it
 * and takeover is off.
 */
void owner_take(struct daemon *d, bool takeover)
{
	char msg[2048];
	long opid = owner_pid(d->owner_path);
	int busy;

	if (opid > 0 && opid != getpid()) {
		if (owner_alive((pid_t)opid)) {
			if (!takeover)
				log_fatalx(EXIT_BUSY, "the uncore PMU is owned by "
					   "uncored pid %ld (%s): stop it first, "
					   "or set takeover = yes", opid,
					   d->owner_path);
			log_warnx("taking the uncore PMU over from running "
				  "uncored pid %ld (takeover = yes)", opid);
			d->took_over = true;
		} else {
			log_warnx("uncored pid %ld did not exit cleanly: "
				  "cleaning up the PMU state it left", opid);
			d->recovered_stale = true;
		}
	}
	busy = pmu_busy(&d->pmu, msg, sizeof(msg));
	if (busy < 0)
		log_fatalx(1, "cannot read the uncore PMU: %s", hw_last_error());
	if (busy > 0) {
		if (!d->recovered_stale && !takeover)
			log_fatalx(EXIT_BUSY, "the uncore PMU is in use by another "
				   "agent: %d register%s counting: %s. Stop that "
				   "agent, or set takeover = yes in [daemon]",
				   busy, busy == 1 ? "" : "s", msg);
		if (!d->recovered_stale) {
			log_warnx("taking over the uncore PMU (takeover = yes): %s",
				  msg);
			d->took_over = true;
		}
	}
	if ((busy > 0 || d->recovered_stale) && pmu_clear_all(&d->pmu) < 0)
		log_warnx("clearing the PMU: %s", hw_last_error());
	if (d->owner_path[0]) {
		int r = write_owner(d->owner_path);

		if (r < 0)
			log_fatalx(1, "cannot write %s: %s", d->owner_path,
				   strerror(-r));
	}
}
