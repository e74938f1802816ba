/*
 * fuzz_response.c - libFuzzer target: what libuncored reads from a daemon
 * (src/lib/lproto.c), as a daemon that sends garbage would send it.  The
 * bytes are parsed as an HTTP response whole and cut at every point a
 * read could end (eof or not), and the body found, or the bytes
 * themselves, as the JSON of a reading, an error and a created claim.
 * Whatever is accepted must hold together: a reading's events have
 * names and as many counts as sockets, its formulas a name, a unit and a
 * value per socket; a reading refused says why; a body is NUL-terminated
 * at its length.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lproto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void json_parts(const char *p, size_t n)
{
	struct lproto_counts c;
	char why[128], msg[256], id[33];
	int rc;

	why[0] = '\0';
	rc = lproto_counts(p, n, &c, why, sizeof(why));
	if (rc == 0) {
		if (!c.nev || !c.nsockets || (c.nform && !c.form))
			abort();
		for (size_t i = 0; i < c.nev; i++)
			if (!c.ev[i].name || !c.ev[i].count)
				abort();
		/* a formula: its name, unit and a value per socket (NAN
		 * where it has none) */
		for (size_t i = 0; i < c.nform; i++) {
			if (!c.form[i].name || !c.form[i].unit ||
			    !c.form[i].value)
				abort();
			for (unsigned s = 0; s < c.nsockets; s++)
				(void)c.form[i].value[s];
		}
		lproto_counts_clear(&c);
	} else if (rc == -EPROTO && (!why[0] || !memchr(why, '\0', sizeof(why)))) {
		abort();	/* a refusal always says what is missing */
	}
	if (lproto_error_message(p, n, msg, sizeof(msg)) &&
	    strlen(msg) >= sizeof(msg))
		abort();
	if (lproto_claim_id(p, n, id, sizeof(id)) && !id[0])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	struct lproto_resp r;
	size_t used;

	/* a read may end anywhere: every prefix, without and with eof */
	for (size_t cut = 0; cut <= size; cut += 1 + cut / 8) {
		for (int eof = 0; eof < 2; eof++) {
			if (lproto_response(p, cut, eof, &r, &used) != 1)
				continue;
			if (used > cut || !r.body || r.body[r.len] != '\0' ||
			    r.status < 200 || r.status > 599)
				abort();
			json_parts(r.body, r.len);
			free(r.body);
		}
	}
	json_parts(p, size);
	(void)lproto_errno((int)size);
	return 0;
}
