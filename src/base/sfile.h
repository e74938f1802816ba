/*
 * sfile.h - opening and reading the small files a kernel file system
 * shows (sysfs, cgroupfs, resctrl) without trusting what is at the path.
 *
 * Those trees are not always the kernel's: --path.sysfs, [resctrl]
 * cgroup_path and the simulator point at plain directories, and a
 * delegated cgroup subtree is its user's.  There a FIFO would block the
 * reader for ever (open(2) waits for a writer), a link to /dev/zero
 * feed it without end, a link elsewhere read what it should not.  Every
 * file the kernel makes in these trees is a regular file (kernfs gives
 * each attribute S_IFREG), so: opened with O_NONBLOCK (a FIFO's open
 * returns at once), O_NOFOLLOW (the last component must not be a
 * symbolic link; the directories above may be, as the PMU directories
 * under /sys/bus/event_source/devices are), then anything but a regular
 * file refused, and every read bounded by the caller's buffer.
 *
 * Functions return -errno and put a message naming the path in the
 * caller's buffer (errmsg.h); nothing here logs.
 */
#ifndef UNCORED_SFILE_H
#define UNCORED_SFILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Opens path (relative to dirfd, or AT_FDCWD) read-only as above.
 * Returns the descriptor (O_CLOEXEC; the caller closes it), or -errno
 * with err set to "PATH: what": -ELOOP (a symbolic link), -EINVAL (not
 * a regular file: "not a regular file (a FIFO)"), or open's error.
 */
int sfile_open(int dirfd, const char *path, char *err, size_t errlen);

/*
 * Reads the whole of path (sfile_open) into buf[0..cap), NUL-terminated:
 * at most cap - 1 bytes.  Returns the length, or -EFBIG (it holds more
 * than cap - 1 bytes: "longer than N bytes"), sfile_open's error, or
 * read's, with err.  cap must be at least 1.
 */
ssize_t sfile_read(int dirfd, const char *path, char *buf, size_t cap,
		   char *err, size_t errlen);

#endif
