/*
 * catalog_checks.h - checks every generated event catalog must pass
 * (test_events_hsx.c, test_events_snbep.c): unique names and encodings,
 * printable descriptions.  Include after tap.h and plat/plat.h.
 */
#ifndef UNCORED_TESTS_CATALOG_CHECKS_H
#define UNCORED_TESTS_CATALOG_CHECKS_H

#include <stdio.h>
#include <string.h>

/* No two entries share a name, nor (unit, code, umask, ev_sel_ext) among
 * programmable events: neither manual nor data has two unit masks with
 * one encoding. */
static inline void check_unique(const struct event *ev, size_t n)
{
	size_t dup_name = 0, dup_enc = 0;

	for (size_t i = 0; i < n; i++) {
		const struct event *a = &ev[i];

		for (size_t j = i + 1; j < n; j++) {
			const struct event *b = &ev[j];

			if (strcmp(a->name, b->name) == 0) {
				dup_name++;
				printf("# duplicate name %s\n", a->name);
			}
			if (a->ctr_mask && b->ctr_mask &&
			    strcmp(a->unit, b->unit) == 0 &&
			    a->code == b->code && a->umask == b->umask &&
			    a->ev_sel_ext == b->ev_sel_ext) {
				dup_enc++;
				printf("# %s and %s: same encoding\n", a->name,
				       b->name);
			}
		}
	}
	is_int(dup_name, 0, "no duplicate names");
	is_int(dup_enc, 0, "no duplicate (unit, code, umask, ev_sel_ext)");
}

/* A non-empty string of printable ASCII. */
static inline int ascii_text(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return 0;
	return 1;
}

#endif
