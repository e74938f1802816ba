/*
 * http_listen.h - the listening sockets of the HTTP server (http.c): TCP
 * addresses parsed and bound (dual-stack for every address), sockets
 * inherited from systemd checked and adopted, and the Unix control
 * socket created with its mode and group.  No MHD here: http.c hands the
 * sockets to its daemons.  Errors come back as -errno with the message
 * in err; nothing is logged.
 */
#ifndef UNCORED_HTTP_LISTEN_H
#define UNCORED_HTTP_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

/* One listening socket. */
struct listen_sock {
	int fd;			/* -1 once closed */
	bool control;		/* Unix socket: all routes, SO_PEERCRED */
	bool inherited;		/* from systemd: left open if start fails */
	unsigned port;		/* bound TCP port, 0 for Unix */
	char name[160];		/* "127.0.0.1:9464", "unix:/run/..." */
};

/*
 * Parses "A.B.C.D:PORT", "[V6]:PORT", "localhost:PORT" or ":PORT" (every
 * address: [::], dual-stack) into *ss, *sslen.  0, or -EINVAL with the
 * reason in err.
 */
int listen_parse(const char *spec, struct sockaddr_storage *ss,
		 socklen_t *sslen, char *err, size_t errlen);
/* Binds and listens on spec into l (named "addr:port", its port
 * recorded).  0 or -errno with err. */
int listen_tcp(struct listen_sock *l, const char *spec, char *err,
	       size_t errlen);
/* Takes over a listening socket inherited from systemd into l
 * (inherited; a Unix one is a control socket).  0 or -errno with err. */
int listen_adopt(struct listen_sock *l, int fd, char *err, size_t errlen);
/*
 * Creates the Unix control socket at path into l: a stale socket (no
 * server answers) is replaced, anything else at path refused; bound
 * under umask 0177, then given mode and group (NULL or "": none), then
 * listening.  *st: the socket file's stat (to recognise it at removal).
 * 0 or -errno with err.
 */
int listen_control(struct listen_sock *l, const char *path, unsigned mode,
		   const char *group, struct stat *st, char *err,
		   size_t errlen);
/* A group name or number to its gid.  0 or -errno (-ENOENT: none). */
int listen_lookup_group(const char *name, gid_t *gid);

#endif
