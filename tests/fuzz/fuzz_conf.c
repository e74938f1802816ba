/*
 * fuzz_conf.c - libFuzzer target: the configuration parser (conf_load on
 * an in-memory file).  A file it accepts must dump and load again to the
 * same dump.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "daemon/conf.h"
#include "base/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The dump of c into a malloc'ed string; NULL if conf_dump() refuses
 * (a value it cannot write so that it reads back). */
static char *dump(const struct conf *c)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	int r;

	if (!f)
		abort();
	r = conf_dump(c, f);
	fclose(f);
	if (r < 0) {
		free(p);
		return NULL;
	}
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct conf c;
	char err[512];

	if (fd < 0) {
		log_init("fuzz", LOG_LVL_ERR);
		fd = memfd_create("uncored.conf", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	conf_init(&c);
	if (conf_load(&c, path, err, sizeof(err)) == 0) {
		char *a = dump(&c), *b;
		FILE *f;
		struct conf c2;

		if (!a) {
			conf_free(&c);
			return 0;
		}
		/* what it accepted, written back, reads the same */
		f = fopen(path, "w");
		if (!f)
			abort();
		fputs(a, f);
		fclose(f);
		conf_init(&c2);
		if (conf_load(&c2, path, err, sizeof(err)) < 0) {
			fprintf(stderr, "its own dump refused: %s\n%s", err, a);
			abort();
		}
		b = dump(&c2);
		if (!b || strcmp(a, b) != 0) {
			fprintf(stderr, "dump changed:\n%s---\n%s", a,
				b ? b : "(refused)");
			abort();
		}
		free(a);
		free(b);
		conf_free(&c2);
	} else if (!memchr(err, ':', strlen(err))) {
		fprintf(stderr, "error without a location: %s\n", err);
		abort();
	}
	conf_free(&c);
	return 0;
}
