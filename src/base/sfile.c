/*
 * sfile.c - small kernel files, opened and read defensively (sfile.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "sfile.h"

/* What a non-regular file is, for the message. */
static const char *kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
	       : S_ISBLK(m) ? "a block device" : S_ISDIR(m) ? "a directory"
	       : S_ISSOCK(m) ? "a socket" : "of another type";
}

int sfile_open(int dirfd, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, e;

	fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == ELOOP)
			errmsg(err, errlen, "%s: a symbolic link, not followed",
			       path);
		else
			errmsg(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		errmsg(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errmsg(err, errlen, "%s: not a regular file (%s), refused",
		       path, kind(st.st_mode));
		return -EINVAL;
	}
	return fd;
}

ssize_t sfile_read(int dirfd, const char *path, char *buf, size_t cap,
		   char *err, size_t errlen)
{
	char extra;
	size_t len = 0;
	ssize_t r;
	int fd = sfile_open(dirfd, path, err, errlen), e;

	buf[0] = '\0';
	if (fd < 0)
		return fd;
	for (;;) {
		r = len < cap - 1 ? read(fd, buf + len, cap - 1 - len)
				  : read(fd, &extra, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || len == cap - 1)
			break;
		len += (size_t)r;
	}
	e = r < 0 ? errno : 0;
	close(fd);
	buf[len] = '\0';
	if (e) {
		errmsg(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (r > 0) {
		errmsg(err, errlen, "%s: longer than %zu bytes", path, cap - 1);
		return -EFBIG;
	}
	return (ssize_t)len;
}
