/*
 * fuzz_webcfg.c - libFuzzer target: the exporters' web config parser
 * (webcfg_load on an in-memory file).  A file it refuses names the file
 * and, for anything but an unreadable file, a line; a file it accepts
 * holds one YAML document only (issue 20: a second document was dropped
 * silently, and with it TLS and basic auth), and loads again to the same
 * settings.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <yaml.h>

#include "base/log.h"
#include "http/webcfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Documents in the stream as libyaml's event parser counts them; -1 on
 * a syntax error. */
static int documents(const uint8_t *data, size_t size)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int n = 0;
	bool end = false;

	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, data, size);
	while (!end) {
		if (!yaml_parser_parse(&p, &ev)) {
			n = -1;
			break;
		}
		n += ev.type == YAML_DOCUMENT_START_EVENT;
		end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return n;
}

/* "PATH:LINE: ..." or "web config: cannot ..." */
static bool located(const char *err, const char *path)
{
	size_t n = strlen(path);

	if (strncmp(err, "web config: ", 12) == 0)
		return true;
	if (strncmp(err, path, n) != 0)
		return false;
	if (strncmp(err + n, ": out of memory", 15) == 0)
		return true;
	return err[n] == ':' && err[n + 1] >= '1' && err[n + 1] <= '9';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct webcfg w, w2;
	char err[1024];

	if (fd < 0) {
		log_init("fuzz", LOG_LVL_ERR);
		fd = memfd_create("web.yml", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	err[0] = '\0';
	if (webcfg_load(&w, path, err, sizeof(err)) < 0) {
		if (!located(err, path)) {
			fprintf(stderr, "error without file and line: %s\n", err);
			abort();
		}
		return 0;
	}
	if (documents(data, size) > 1) {
		fprintf(stderr, "accepted %d documents\n", documents(data, size));
		abort();
	}
	if (webcfg_load(&w2, path, err, sizeof(err)) < 0 ||
	    !webcfg_same(&w, &w2)) {
		fprintf(stderr, "loads differently the second time: %s\n", err);
		abort();
	}
	webcfg_free(&w2);
	webcfg_free(&w);
	return 0;
}
