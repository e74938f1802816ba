/*
 * fakeud.h - a fake uncored on a Unix socket, for the test tools that
 * check libuncored against a daemon that lies, hangs up or is busy
 * (libcheck.c, ctlflood.c): it answers the requests it reads in the
 * order of a script, whatever they ask.  Also the pieces a tool needs to
 * play a daemon of its own (listening, reading a request, answering),
 * and the "ok"/"not ok" lines the tools print.  Failures to set up end
 * the tool with "Bail out!".
 */
#ifndef UNCORED_TESTS_FAKEUD_H
#define UNCORED_TESTS_FAKEUD_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>

/* One scripted answer: status 0 hangs up (closes the connection without
 * an answer); a 503 says Retry-After and closes it after the answer. */
struct fakeud_answer {
	int status;
	const char *instance, *body;
};

struct fakeud {
	int lfd;
	const char *path;
	const struct fakeud_answer *answers;
	size_t n;
	pthread_t thread;
	pthread_mutex_t m;
	pthread_cond_t cv;
	size_t requests;	/* read whole (under m) */
	size_t served;		/* answered or hung up on (under m, cv) */
};

/* Listens on a new Unix socket at path (one there before is removed);
 * the listening fd, or Bail out!. */
int fakeud_listen(const char *path);
/* Starts a fake daemon at path playing answers[0..n) on whatever
 * connections come, one after another. */
void fakeud_start(struct fakeud *f, const char *path,
		  const struct fakeud_answer *answers, size_t n);
/* Waits until the fake daemon has served at least n requests. */
void fakeud_wait(struct fakeud *f, size_t n);
/* How many requests it has read whole so far. */
size_t fakeud_requests(struct fakeud *f);
/* Stops it (whether or not the script is played out) and removes its
 * socket. */
void fakeud_stop(struct fakeud *f);

/* The length of the first whole request in buf[0..n) (NUL-terminated),
 * headers and Content-Length body, or 0 if it is not whole yet. */
size_t fakeud_request_len(const char *buf, size_t n);
/* Sends a JSON answer as uncored instance id; extra: more header lines
 * ("Name: value\r\n"...), or "".  0, or -1 if it could not be sent. */
int fakeud_answer(int fd, int status, const char *instance,
		  const char *extra, const char *body);

/* Prints "ok DESCRIPTION" or "not ok DESCRIPTION" (and flushes it);
 * returns cond. */
int fakeud_say(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int fakeud_vsay(int cond, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
