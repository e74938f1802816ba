/*
 * catalog_checks.h - checks every generated event catalog must pass
 * (test_events_hsx.c, test_events_snbep.c): unique names and encodings,
 * printable descriptions, the facts its source gives.  Include after
 * tap.h and plat/plat.h.
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

/*
 * The catalog against a facts file (tests/data/hsx-manual-facts.tsv,
 * written by the catalog's generator from its source): one tab-separated
 * line per entry, in order, with name, unit, code, umask, ev_sel_ext,
 * occ_sel, ctr_mask, max_inc, max_inc_wide, flags, filter ("-": none)
 * and source; "#" lines and the column header are skipped.  A file that
 * cannot be read is a failure: the file is part of the repository.
 */
static inline void check_facts(const struct event *ev, size_t n,
			       const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t i = 0, bad = 0, lines = 0;

	if (!ok(f != NULL, "facts file %s readable", path))
		return;
	while (fgets(line, sizeof(line), f)) {
		char name[128], unit[32], filter[128], source[128];
		unsigned code, umask, ext, occ, ctr, inc, wide, flags;
		const struct event *e;

		if (line[0] == '#' || strncmp(line, "name\t", 5) == 0)
			continue;
		lines++;
		if (sscanf(line, "%127[^\t]\t%31[^\t]\t%x\t%x\t%u\t%u\t%x\t%u\t"
			   "%u\t%x\t%127[^\t]\t%127[^\n]", name, unit, &code,
			   &umask, &ext, &occ, &ctr, &inc, &wide, &flags, filter,
			   source) != 12) {
			printf("# %s: cannot read line %zu\n", path, lines);
			bad++;
			continue;
		}
		if (i >= n) {
			printf("# %s: %s is not in the catalog\n", path, name);
			bad++;
			continue;
		}
		e = &ev[i++];
		if (strcmp(e->name, name) || strcmp(e->unit, unit) ||
		    e->code != code || e->umask != umask ||
		    e->ev_sel_ext != ext || e->occ_sel != occ ||
		    e->ctr_mask != ctr || e->max_inc != inc ||
		    e->max_inc_wide != wide || e->flags != flags ||
		    strcmp(e->filter ? e->filter : "-", filter) ||
		    strcmp(e->source ? e->source : "", source)) {
			if (bad++ < 5)
				printf("# entry %zu: %s in the catalog, %s "
				       "(code 0x%02x umask 0x%02x ...) in %s\n",
				       i - 1, e->name, name, code, umask, path);
		}
	}
	fclose(f);
	is_int((int)bad, 0, "every entry has the facts %s gives", path);
	is_int((int)lines, (int)n, "%s has as many entries as the catalog",
	       path);
}

#endif
