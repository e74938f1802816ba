/*
 * notify-recv.c - a test-owned NOTIFY_SOCKET: binds an AF_UNIX datagram
 * socket at the given path and prints every sd_notify message it receives
 * (one line per assignment) until it gets SIGTERM or the timeout expires.
 * With -t, each message is preceded by a line "T=SECONDS", the time it
 * arrived (CLOCK_MONOTONIC), so a test can check how often it comes.
 *
 *   notify-recv PATH [TIMEOUT_S [-t]]
 */
#include "config.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	double timeout = argc > 2 ? atof(argv[2]) : 60;
	int stamp = argc > 3 && !strcmp(argv[3], "-t");
	time_t end = time(NULL) + (time_t)timeout;
	int fd;

	if (argc < 2 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: notify-recv PATH [TIMEOUT_S [-t]]\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	unlink(argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("notify-recv");
		return 1;
	}
	/* Like systemd's /run/systemd/notify: anybody may send, so a daemon
	 * that dropped to another user still reaches it. */
	chmod(argv[1], 0777);
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (time(NULL) < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char buf[4096];
		ssize_t n;

		if (poll(&p, 1, 200) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if (stamp) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			printf("T=%lld.%06ld\n", (long long)ts.tv_sec,
			       ts.tv_nsec / 1000);
		}
		fputs(buf, stdout);
		if (buf[n - 1] != '\n')
			putchar('\n');
	}
	unlink(argv[1]);
	return 0;
}
