/*
 * sockhold.c - a listening Unix socket kept across daemon lifetimes, as
 * systemd keeps uncored.socket: each lifetime gets it as fd 3 with
 * LISTEN_FDS=1 and LISTEN_PID set to its own pid (sd_listen_fds(3)).
 * Clients connect to the same socket, and SO_PEERCRED shows them this
 * holder's pid (the process that listened), whichever daemon answers.
 *
 *   sockhold PATH MODE -- COMMAND [ARG...]
 *
 * Binds PATH (chmod MODE, octal) and listens, then reads lines on stdin:
 * "start" runs COMMAND with the socket and prints "started PID";
 * "stop" sends the running one SIGTERM, waits, and prints "stopped
 * STATUS".  At the end of stdin it stops the running one and exits.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t child;

static void start(int lfd, char **cmd)
{
	pid_t pid;

	if (child > 0) {
		printf("already running %d\n", (int)child);
		return;
	}
	if ((pid = fork()) < 0) {
		perror("sockhold: fork");
		exit(1);
	}
	if (pid == 0) {
		char n[24];

		if (lfd != 3) {
			if (dup2(lfd, 3) < 0)
				_exit(126);
			close(lfd);
		}
		fcntl(3, F_SETFD, 0);	/* kept across exec */
		snprintf(n, sizeof(n), "%d", (int)getpid());
		setenv("LISTEN_PID", n, 1);
		setenv("LISTEN_FDS", "1", 1);
		unsetenv("LISTEN_FDNAMES");
		execvp(cmd[0], cmd);
		perror("sockhold: exec");
		_exit(127);
	}
	child = pid;
	printf("started %d\n", (int)pid);
}

static void stop(void)
{
	int st = 0;

	if (child <= 0) {
		printf("not running\n");
		return;
	}
	kill(child, SIGTERM);
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	child = 0;
	printf("stopped %d\n", WIFEXITED(st) ? WEXITSTATUS(st)
					     : 128 + WTERMSIG(st));
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char line[64];
	int lfd;

	if (argc < 5 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "usage: sockhold PATH MODE -- COMMAND [ARG...]\n");
		return 2;
	}
	if (strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "sockhold: %s: path too long\n", argv[1]);
		return 1;
	}
	memcpy(sa.sun_path, argv[1], strlen(argv[1]) + 1);
	unlink(argv[1]);
	if ((lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(argv[1], (mode_t)strtoul(argv[2], NULL, 8)) < 0 ||
	    listen(lfd, 64) < 0) {
		perror("sockhold");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		if (strncmp(line, "start", 5) == 0)
			start(lfd, argv + 4);
		else if (strncmp(line, "stop", 4) == 0)
			stop();
	}
	if (child > 0)
		stop();
	close(lfd);
	unlink(argv[1]);
	return 0;
}
