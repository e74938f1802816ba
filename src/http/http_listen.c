/*
 * http_listen.c - the listening sockets of the HTTP server (http.c):
 * TCP addresses parsed and bound (dual-stack for every address), sockets
 * inherited from systemd checked and adopted, and the Unix control
 * socket created with its mode and group, never over a file that is not
 * a socket.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/errmsg.h"
#include "http_listen.h"

#define HTTP_BACKLOG	64
/*
 * TCP_DEFER_ACCEPT (tcp(7)): the kernel hands a connection over only
 * once its first bytes arrived, or after this many seconds.  A client
 * that connected, and whose request is late (a loaded machine can hold
 * curl for tens of milliseconds between connect() and send()), is then
 * never a connection with nothing received that the slow clients of
 * its address displace at max_per_ip (http_conn.c, conn_victim()): by
 * the time the daemon sees it, its request is in the receive queue.
 * A client that sends nothing costs the daemon no connection until
 * then.  10 s is [http] timeout_s's default.
 */
#define HTTP_DEFER_ACCEPT_S	10

/* Sets TCP_DEFER_ACCEPT on fd unless it has a value already (a systemd
 * socket's DeferAcceptSec=).  Not fatal: without it a late request is
 * only displaceable, as before. */
static void defer_accept(int fd)
{
	int secs = 0;
	socklen_t len = sizeof(secs);

	if (getsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &secs, &len) == 0 &&
	    secs > 0)
		return;
	secs = HTTP_DEFER_ACCEPT_S;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &secs,
			 sizeof(secs));
}

/*
 * Parses "A.B.C.D:PORT", "[V6]:PORT", "localhost:PORT" or ":PORT".  The
 * last is every address: [::] (dual-stack, see listen_tcp()).
 */
int listen_parse(const char *spec, struct sockaddr_storage *ss,
			socklen_t *sslen, char *err, size_t errlen)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *hs, *he, *ps;
	unsigned long port;
	char *end;
	bool v6 = false;

	if (spec[0] == '[') {
		hs = spec + 1;
		he = strchr(hs, ']');
		if (!he || he[1] != ':')
			goto syntax;
		ps = he + 2;
		v6 = true;
	} else {
		hs = spec;
		he = strrchr(spec, ':');
		if (!he)
			goto syntax;
		if (memchr(spec, ':', (size_t)(he - spec))) {
			errmsg(err, errlen, "cannot listen on %s: IPv6 "
			       "addresses need brackets, as in [::1]:9464",
			       spec);
			return -EINVAL;
		}
		ps = he + 1;
	}
	if ((size_t)(he - hs) >= sizeof(host) || (he == hs && v6))
		goto syntax;
	if (he == hs) {
		v6 = true;
		hs = he = "::";
		he += 2;
	}
	memcpy(host, hs, (size_t)(he - hs));
	host[he - hs] = '\0';

	errno = 0;
	port = strtoul(ps, &end, 10);
	if (*ps < '0' || *ps > '9' || *end != '\0' || errno || port > 65535) {
		errmsg(err, errlen, "cannot listen on %s: port must be a "
		       "number from 0 to 65535", spec);
		return -EINVAL;
	}

	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1) {
			errmsg(err, errlen, "cannot listen on %s: bad IPv6 "
			       "address '%s'", spec, host);
			return -EINVAL;
		}
		*sslen = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		if (strcmp(host, "localhost") == 0)
			s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		else if (inet_pton(AF_INET, host, &s4->sin_addr) != 1) {
			errmsg(err, errlen, "cannot listen on %s: bad IPv4 "
			       "address '%s' (IPv6 needs brackets)", spec,
			       host);
			return -EINVAL;
		}
		*sslen = sizeof(*s4);
	}
	return 0;
syntax:
	errmsg(err, errlen, "cannot listen on %s: expected ADDR:PORT, "
	       "[IPV6]:PORT, localhost:PORT or :PORT", spec);
	return -EINVAL;
}

/* Names a TCP listener "addr:port" / "[addr]:port" and records the port. */
static void name_tcp(struct listen_sock *l)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char a[INET6_ADDRSTRLEN];

	snprintf(l->name, sizeof(l->name), "fd %d", l->fd);
	if (getsockname(l->fd, (struct sockaddr *)&ss, &len) < 0)
		return;
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		l->port = ntohs(s4->sin_port);
		snprintf(l->name, sizeof(l->name), "%s:%u", a, l->port);
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		l->port = ntohs(s6->sin6_port);
		snprintf(l->name, sizeof(l->name), "[%s]:%u", a, l->port);
	}
}

int listen_tcp(struct listen_sock *l, const char *spec, char *err,
		    size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	int one = 1, v6only, fd, e;
	bool any;

	if (listen_parse(spec, &ss, &sslen, err, errlen) < 0)
		return -EINVAL;
	any = ss.ss_family == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(
				&((struct sockaddr_in6 *)&ss)->sin6_addr);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0 && errno == EAFNOSUPPORT && any && spec[0] == ':') {
		/* ":PORT" on a kernel without IPv6: every IPv4 address. */
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		uint16_t port = ((struct sockaddr_in6 *)&ss)->sin6_port;

		memset(&ss, 0, sizeof(ss));
		s4->sin_family = AF_INET;
		s4->sin_port = port;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		sslen = sizeof(*s4);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    0);
	}
	if (fd < 0)
		goto fail;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		goto fail;
	/* [::] (and ":PORT") take IPv4 too, whatever net.ipv6.bindv6only
	   says; any other IPv6 address is IPv6 only. */
	v6only = !any;
	if (ss.ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only,
		       sizeof(v6only)) < 0)
		goto fail;
	if (bind(fd, (struct sockaddr *)&ss, sslen) < 0 ||
	    listen(fd, HTTP_BACKLOG) < 0)
		goto fail;
	defer_accept(fd);
	l->fd = fd;
	name_tcp(l);
	return 0;
fail:
	e = errno;
	errmsg(err, errlen, "cannot listen on %s: %s", spec, strerror(e));
	if (fd >= 0)
		close(fd);
	return -e;
}

/* Adopts a listening socket from systemd.  Returns 0 or -errno. */
int listen_adopt(struct listen_sock *l, int fd, char *err,
		    size_t errlen)
{
	int dom, type, acc, fl;
	socklen_t len = sizeof(int);

	l->fd = fd;
	l->inherited = true;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) < 0) {
		int e = errno;

		errmsg(err, errlen, "inherited fd %d is not a socket: %s", fd,
		       strerror(e));
		return -e;
	}
	len = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
		type = -1;
	len = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len) < 0)
		acc = 0;
	if (type != SOCK_STREAM || !acc ||
	    (dom != AF_UNIX && dom != AF_INET && dom != AF_INET6)) {
		errmsg(err, errlen, "inherited fd %d is not a listening TCP "
		       "or Unix stream socket (check the .socket unit)", fd);
		return -EINVAL;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		int e = errno;

		errmsg(err, errlen, "inherited fd %d: fcntl: %s", fd,
		       strerror(e));
		return -e;
	}
	if (dom == AF_UNIX) {
		struct sockaddr_un sa;

		len = sizeof(sa);
		memset(&sa, 0, sizeof(sa));
		l->control = true;
		if (getsockname(fd, (struct sockaddr *)&sa, &len) == 0 &&
		    sa.sun_path[0])
			snprintf(l->name, sizeof(l->name), "unix:%.*s",
				 (int)sizeof(sa.sun_path), sa.sun_path);
		else
			snprintf(l->name, sizeof(l->name), "unix fd %d", fd);
	} else {
		defer_accept(fd);
		name_tcp(l);
	}
	return 0;
}

int listen_lookup_group(const char *name, gid_t *gid)
{
	struct group gr, *res = NULL;
	size_t sz = 4096;
	char *b = NULL, *end;
	unsigned long n;
	int rc;

	for (;;) {
		char *nb = realloc(b, sz);

		if (!nb) {
			free(b);
			return -ENOMEM;
		}
		b = nb;
		rc = getgrnam_r(name, &gr, b, sz, &res);
		if (rc != ERANGE || sz >= (1u << 20))
			break;
		sz *= 2;
	}
	if (rc == 0 && res)
		*gid = res->gr_gid;
	free(b);
	if (rc == 0 && res)
		return 0;
	errno = 0;
	n = strtoul(name, &end, 10);
	if (name[0] >= '0' && name[0] <= '9' && *end == '\0' && !errno &&
	    n < (gid_t)-1) {
		*gid = (gid_t)n;
		return 0;
	}
	return rc ? -rc : -ENOENT;
}

/*
 * Creates the control socket at path: probes and removes a stale socket,
 * binds under umask 0177, then chmod/chgrp, then listens.
 */
int listen_control(struct listen_sock *l, const char *path, unsigned mode,
		   const char *group, struct stat *stp, char *err,
		   size_t errlen)
{
	struct sockaddr_un sa;
	struct stat st;
	gid_t gid = (gid_t)-1;
	mode_t old;
	int fd, rc, e;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		errmsg(err, errlen, "control socket path %s is too long "
		       "(at most %zu bytes)", path, sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, strlen(path));
	if (group && group[0]) {
		rc = listen_lookup_group(group, &gid);
		if (rc < 0) {
			errmsg(err, errlen, "control socket %s: unknown group "
			       "'%s'", path, group);
			return rc;
		}
	}

	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			errmsg(err, errlen, "control socket %s: the path "
			       "exists and is not a socket; refusing to "
			       "replace it", path);
			return -EEXIST;
		}
		/* A socket someone still answers on is not stale. */
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			goto fail_errno;
		rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		e = errno;
		close(fd);
		if (rc == 0 || (e != ECONNREFUSED && e != ENOENT)) {
			errmsg(err, errlen, "control socket %s is in use (%s); "
			       "is another uncored running?", path,
			       rc == 0 ? "a server answers" : strerror(e));
			return -EADDRINUSE;
		}
		if (unlink(path) < 0 && errno != ENOENT)
			goto fail_errno;
	} else if (errno != ENOENT) {
		goto fail_errno;
	}

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail_errno;
	old = umask(0177);
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	e = errno;
	umask(old);
	if (rc < 0) {
		close(fd);
		errno = e;
		goto fail_errno;
	}
	if (chmod(path, mode & 07777) < 0 ||
	    (gid != (gid_t)-1 && chown(path, (uid_t)-1, gid) < 0) ||
	    stat(path, &st) < 0 || listen(fd, HTTP_BACKLOG) < 0) {
		e = errno;
		close(fd);
		unlink(path);
		errno = e;
		goto fail_errno;
	}
	*stp = st;
	l->fd = fd;
	l->control = true;
	snprintf(l->name, sizeof(l->name), "unix:%s", path);
	return 0;
fail_errno:
	e = errno;
	errmsg(err, errlen, "cannot create control socket %s: %s", path,
	       strerror(e));
	return -e;
}
