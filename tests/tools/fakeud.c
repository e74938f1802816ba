/*
 * fakeud.c - a fake uncored on a Unix socket (see fakeud.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "fakeud.h"

int fakeud_listen(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 8) < 0) {
		printf("Bail out! the fake daemon on %s: %s\n", path,
		       strerror(errno));
		exit(1);
	}
	return lfd;
}

size_t fakeud_request_len(const char *buf, size_t n)
{
	const char *end = memmem(buf, n, "\r\n\r\n", 4), *cl;
	size_t need;

	if (!end)
		return 0;
	cl = strcasestr(buf, "Content-Length: ");
	need = (size_t)(end + 4 - buf) + (cl && cl < end
		? strtoul(cl + 16, NULL, 10) : 0);
	return n < need ? 0 : need;
}

int fakeud_answer(int fd, int status, const char *instance,
		  const char *extra, const char *body)
{
	char out[1024];
	int len = snprintf(out, sizeof(out), "HTTP/1.1 %d X\r\n"
			   "Uncored-Instance: %s\r\n%sContent-Type: "
			   "application/json\r\nContent-Length: %zu\r\n\r\n%s",
			   status, instance, extra, strlen(body), body);

	return send(fd, out, (size_t)len, MSG_NOSIGNAL) == len ? 0 : -1;
}

static void count(struct fakeud *f, size_t *what)
{
	pthread_mutex_lock(&f->m);
	(*what)++;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->m);
}

static void *fake_main(void *arg)
{
	struct fakeud *f = arg;
	char buf[8192];
	size_t n = 0;
	int fd = -1;

	for (size_t i = 0; i < f->n;) {
		const struct fakeud_answer *a = &f->answers[i];
		size_t need;
		ssize_t k;

		if (fd < 0) {
			struct timeval tv = { 10, 0 };	/* never hang a test */

			if ((fd = accept(f->lfd, NULL, NULL)) < 0)
				break;
			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		}
		if (!(need = fakeud_request_len(buf, n))) {
			if ((k = read(fd, buf + n, sizeof(buf) - n - 1)) < 0)
				break;
			if (k == 0) {
				close(fd);	/* the client closed it */
				fd = -1;
				n = 0;
				continue;
			}
			n += (size_t)k;
			buf[n] = '\0';
			continue;
		}
		memmove(buf, buf + need, n - need);
		n -= need;
		buf[n] = '\0';
		count(f, &f->requests);
		if (!a->status || (fakeud_answer(fd, a->status, a->instance,
				   a->status == 503 ? "Retry-After: 1\r\n"
				   "Connection: close\r\n" : "", a->body) < 0))
			a = NULL;	/* hung up, or it could not be sent */
		if (!a || a->status == 503) {
			close(fd);
			fd = -1;
			n = 0;
		}
		i++;
		count(f, &f->served);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

void fakeud_start(struct fakeud *f, const char *path,
		  const struct fakeud_answer *answers, size_t n)
{
	*f = (struct fakeud){ .lfd = fakeud_listen(path), .path = path,
			      .answers = answers, .n = n,
			      .m = PTHREAD_MUTEX_INITIALIZER,
			      .cv = PTHREAD_COND_INITIALIZER };
	if (pthread_create(&f->thread, NULL, fake_main, f)) {
		printf("Bail out! the fake daemon's thread\n");
		exit(1);
	}
}

void fakeud_wait(struct fakeud *f, size_t n)
{
	pthread_mutex_lock(&f->m);
	while (f->served < n)
		pthread_cond_wait(&f->cv, &f->m);
	pthread_mutex_unlock(&f->m);
}

size_t fakeud_requests(struct fakeud *f)
{
	size_t n;

	pthread_mutex_lock(&f->m);
	n = f->requests;
	pthread_mutex_unlock(&f->m);
	return n;
}

void fakeud_stop(struct fakeud *f)
{
	shutdown(f->lfd, SHUT_RDWR);	/* an accept() waiting ends */
	pthread_join(f->thread, NULL);
	close(f->lfd);
	unlink(f->path);
}

int fakeud_vsay(int cond, const char *fmt, va_list ap)
{
	printf("%sok ", cond ? "" : "not ");
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

int fakeud_say(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fakeud_vsay(cond, fmt, ap);
	va_end(ap);
	return cond;
}
