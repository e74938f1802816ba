/*
 * slowclient.c - hostile HTTP clients for the slow-client scenarios:
 * N connections to 127.0.0.1:PORT from source addresses taken in turn
 * from a list (all on loopback: 127.0.0.2, 127.0.0.3, ...), each sending
 * the start of a request and then one more header line every INTERVAL
 * seconds, never finishing it.  With -r a connection the server closes
 * is opened again at once.  Runs for DURATION seconds, then prints
 * "opened O closed C" (C: connections the server closed) and exits 0.
 *
 *   slowclient -p PORT -n N [-a ADDR,ADDR,...] [-i INTERVAL] [-t DURATION] [-r]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONN 4096
#define MAX_ADDR 64

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_one(const char *src, unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	const char *start = "GET /metrics HTTP/1.1\r\nHost: x\r\n";

	if (fd < 0)
		return -1;
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
	    send(fd, start, strlen(start), MSG_NOSIGNAL) < 0) {
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

int main(int argc, char **argv)
{
	static struct pollfd pf[MAX_CONN];
	static const char *src[MAX_CONN];
	char *addrs[MAX_ADDR], *list = NULL;
	unsigned port = 0, n = 0, naddr = 0, opened = 0, closed = 0;
	double interval = 5, duration = 10, t0, next;
	int reopen = 0, c;

	while ((c = getopt(argc, argv, "p:n:a:i:t:r")) != -1) {
		switch (c) {
		case 'p': port = (unsigned)atoi(optarg); break;
		case 'n': n = (unsigned)atoi(optarg); break;
		case 'a': list = optarg; break;
		case 'i': interval = atof(optarg); break;
		case 't': duration = atof(optarg); break;
		case 'r': reopen = 1; break;
		default:
			fprintf(stderr, "usage: slowclient -p PORT -n N [-a ADDR,...] "
				"[-i S] [-t S] [-r]\n");
			return 2;
		}
	}
	if (!port || !n || n > MAX_CONN)
		return 2;
	for (char *tok = list ? strtok(list, ",") : NULL; tok && naddr < MAX_ADDR;
	     tok = strtok(NULL, ","))
		addrs[naddr++] = tok;
	for (unsigned i = 0; i < n; i++) {
		src[i] = naddr ? addrs[i % naddr] : NULL;
		pf[i].fd = open_one(src[i], port);
		pf[i].events = POLLIN;
		opened += pf[i].fd >= 0;
	}
	t0 = now_s();
	next = t0 + interval;
	while (now_s() < t0 + duration) {
		int wait = (int)((next - now_s()) * 1000);

		if (poll(pf, n, wait < 0 ? 0 : wait > 200 ? 200 : wait) > 0)
			for (unsigned i = 0; i < n; i++) {
				char b[512];

				if (pf[i].fd < 0 || !pf[i].revents)
					continue;
				if (read(pf[i].fd, b, sizeof(b)) > 0)
					continue;	/* an answer: ignore */
				close(pf[i].fd);
				closed++;
				pf[i].fd = reopen ? open_one(src[i], port) : -1;
				opened += pf[i].fd >= 0;
			}
		if (now_s() >= next) {
			for (unsigned i = 0; i < n; i++)
				if (pf[i].fd >= 0 &&
				    send(pf[i].fd, "X-Slow: 1\r\n", 11, MSG_NOSIGNAL) < 0 &&
				    errno != EAGAIN) {
					close(pf[i].fd);
					closed++;
					pf[i].fd = reopen ? open_one(src[i], port) : -1;
					opened += pf[i].fd >= 0;
				}
			next += interval;
		}
	}
	printf("opened %u closed %u\n", opened, closed);
	return 0;
}
