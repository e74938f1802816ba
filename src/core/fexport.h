/*
 * fexport.h - the formulas of the catalog an operator exports on /metrics
 * ([formulas] export, doc/formulas.md): each resolved on the platform,
 * its family named (fexport_family()), and its values computed from one
 * sample of the baseline, which counts its events.
 *
 * A set is made from the configuration's list (fexport_new()) and hangs
 * off the program whose baseline counts its events (struct program.fx):
 * it is immutable and lives as long as that program.
 */
#ifndef UNCORED_FEXPORT_H
#define UNCORED_FEXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formula.h"
#include "pmu/sched.h"

#define FEXPORT_MAX 32
#define FEXPORT_EVENTS 16
#define FEXPORT_FAMILY_MAX 160

struct fexpr;
struct program;

struct fexport_item {
	const struct formula *f;
	char name[96];			/* as a client names it */
	char family[FEXPORT_FAMILY_MAX];	/* fexport_family() */
	const char *unit;		/* the family's OpenMetrics unit, or
					   NULL (f->unit is not one) */
	char *help;			/* malloc'd */
	struct fexpr *x;
	struct evspec ev[FEXPORT_EVENTS];
	unsigned nev;
	int unit_of_boxes;		/* the unit of its per-box values, or
					   -1: per socket only */
};

struct fexport {
	unsigned n;
	struct fexport_item it[FEXPORT_MAX];
};

/*
 * The family of formula name (as a client names it) with base unit unit:
 * "uncore_formula_" + the name in lower case, every character but
 * [a-z0-9] as '_' (runs of them as one, none at the ends), + "_" + unit
 * unless unit is "" or the name already ends with it.  Into out.
 */
void fexport_family(const char *name, const char *unit, char *out,
		    size_t outlen);

/*
 * The set for list (names separated by blanks or commas) on platform pl
 * and topology t; where ("file:line") starts each error.  A name that is
 * unknown, ambiguous, that cannot count here (the catalog's reason, an
 * event this machine has no box for) or given twice is an error.
 * Returns 0 and *out (NULL for an empty list; free with fexport_free()),
 * or -EINVAL / -ENOMEM with why.
 */
int fexport_new(const struct platform *pl, const struct topology *t,
		const char *list, const char *where, struct fexport **out,
		char *why, size_t whylen);
void fexport_free(struct fexport *fx);
/* Same formulas in the same order (a reload that changes none). */
bool fexport_same(const struct fexport *a, const struct fexport *b);

/*
 * Adds to ev[0..n) the events of fx that no event there is the same as
 * (sched_same()).  The new count, or -1 past max (why says so).
 */
int fexport_add_events(const struct fexport *fx, struct evspec *ev,
		       unsigned n, unsigned max, char *why, size_t whylen);

/*
 * Item i's values over the interval of sample (a program sample's words,
 * sampler.h) of program p: out[s] per socket, and, for an item with
 * per-box values, box[s * PLAT_MAX_INST + inst] (box may be NULL).  NaN
 * where there is none (an event the baseline does not count, a series
 * without a value, a division by zero).
 */
void fexport_values(const struct fexport *fx, unsigned i,
		    const struct program *p, const uint64_t *sample,
		    double *out, double *box);

#endif
