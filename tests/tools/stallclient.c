/*
 * stallclient.c - clients that ask for a large answer and do not read
 * it (issue 20 item 3): N connections to 127.0.0.1:PORT from source
 * addresses taken in turn from a list (127.0.0.2, ...), each with a
 * receive buffer of 1024 bytes (SO_RCVBUF, set before connect so the
 * window stays small), sending one complete "GET PATH" and then reading
 * nothing; with -d it reads BYTES a second instead, a quarter every
 * 250 ms, with a receive buffer of BYTES (a reader that keeps an idle
 * timer alive but drains slowly).  With -r a connection the
 * server closed (reset, or a FIN once read) is opened again at once.
 * Runs for DURATION seconds, then prints "opened O closed C" and exits 0.
 *
 *   stallclient -p PORT -n N -g PATH [-a ADDR,...] [-d BYTES] [-t S] [-r]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONN 1024
#define MAX_ADDR 64

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_one(const char *src, unsigned port, const char *path, int rcv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	char req[512];

	if (fd < 0)
		return -1;
	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (src) {
		a.sin_addr.s_addr = inet_addr(src);
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
			close(fd);
			return -1;
		}
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((unsigned short)port);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    send(fd, req, strlen(req), MSG_NOSIGNAL) < 0) {
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

/* Has the server ended the connection (reset, or closed it)? */
static int ended(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return 1;
	return ti.tcpi_state != TCP_ESTABLISHED;
}

int main(int argc, char **argv)
{
	static int fd[MAX_CONN];
	static const char *src[MAX_CONN];
	char *addrs[MAX_ADDR], *list = NULL, buf[65536];
	const char *path = NULL;
	unsigned port = 0, n = 0, naddr = 0, opened = 0, closed = 0;
	double duration = 10, t0, next, step;
	long drain = 0;
	int reopen = 0, c, rcv;

	while ((c = getopt(argc, argv, "p:n:a:g:d:t:r")) != -1) {
		switch (c) {
		case 'p': port = (unsigned)atoi(optarg); break;
		case 'n': n = (unsigned)atoi(optarg); break;
		case 'a': list = optarg; break;
		case 'g': path = optarg; break;
		case 'd': drain = atol(optarg); break;
		case 't': duration = atof(optarg); break;
		case 'r': reopen = 1; break;
		default:
			fprintf(stderr, "usage: stallclient -p PORT -n N -g PATH "
				"[-a ADDR,...] [-d BYTES] [-t S] [-r]\n");
			return 2;
		}
	}
	if (!port || !n || n > MAX_CONN || !path || drain < 0 ||
	    drain > (long)sizeof(buf))
		return 2;
	rcv = drain ? (int)drain : 1024;
	step = drain ? 0.25 : 1;
	for (char *tok = list ? strtok(list, ",") : NULL; tok && naddr < MAX_ADDR;
	     tok = strtok(NULL, ","))
		addrs[naddr++] = tok;
	for (unsigned i = 0; i < n; i++) {
		src[i] = naddr ? addrs[i % naddr] : NULL;
		fd[i] = open_one(src[i], port, path, rcv);
		opened += fd[i] >= 0;
	}
	t0 = now_s();
	for (next = t0 + step; now_s() < t0 + duration; next += step) {
		double wait = next - now_s();

		if (wait > 0)
			poll(NULL, 0, (int)(wait * 1000));
		for (unsigned i = 0; i < n; i++) {
			if (fd[i] < 0)
				continue;
			if (drain > 0 && read(fd[i], buf, (size_t)drain / 4) == 0) {
				close(fd[i]);	/* the server's FIN, read */
				fd[i] = -1;
			} else if (ended(fd[i])) {
				close(fd[i]);
				fd[i] = -1;
			}
			if (fd[i] >= 0)
				continue;
			closed++;
			if (reopen) {
				fd[i] = open_one(src[i], port, path, rcv);
				opened += fd[i] >= 0;
			}
		}
	}
	printf("opened %u closed %u\n", opened, closed);
	return 0;
}
