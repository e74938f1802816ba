/*
 * bounded.h - runs a call that may block for ever (a FIFO where a file
 * should be, on code before the fix) in a child process with a deadline,
 * so that a regression fails one check instead of hanging the suite.
 *
 * fn(ctx, msg, len) runs in the child; its return value and the message
 * it wrote come back through a pipe.  bounded_call returns them, or
 * BOUNDED_HUNG (the child was killed at the deadline) or BOUNDED_DIED.
 */
#ifndef UNCORED_BOUNDED_H
#define UNCORED_BOUNDED_H

#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BOUNDED_HUNG INT_MIN
#define BOUNDED_DIED (INT_MIN + 1)

__attribute__((unused))
static int bounded_call(int (*fn)(const void *ctx, char *msg, size_t len),
			const void *ctx, char *msg, size_t len, int seconds)
{
	struct { int r; char m[1024]; } out = { 0, "" };
	int pfd[2], st;
	size_t got = 0;
	pid_t pid;

	msg[0] = '\0';
	fflush(stdout);
	if (pipe(pfd) < 0 || (pid = fork()) < 0)
		return BOUNDED_DIED;
	if (pid == 0) {
		close(pfd[0]);
		alarm((unsigned)seconds + 5);	/* the parent's kill, twice */
		out.r = fn(ctx, out.m, sizeof(out.m));
		if (write(pfd[1], &out, sizeof(out)) != (ssize_t)sizeof(out))
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, seconds * 1000) <= 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			close(pfd[0]);
			snprintf(msg, len, "(still blocked after %d s: killed)",
				 seconds);
			return BOUNDED_HUNG;
		}
		r = read(pfd[0], (char *)&out + got, sizeof(out) - got);
		if (r <= 0)
			break;
		got += (size_t)r;
		if (got == sizeof(out))
			break;
	}
	close(pfd[0]);
	waitpid(pid, &st, 0);
	if (got != sizeof(out))
		return BOUNDED_DIED;
	out.m[sizeof(out.m) - 1] = '\0';
	snprintf(msg, len, "%s", out.m);
	return out.r;
}

#endif
