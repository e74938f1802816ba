/*
 * formula.h - compiling and evaluating the formula catalog's expressions
 * (src/plat/formula.h has the grammar), and finding a formula by name.
 *
 * A compiled expression is a small stack program; evaluating it takes the
 * events' values over one counting window (summed as each event's scope
 * says), the number of boxes each counted on and the window's length, and
 * allocates nothing, so the sampler's thread and the routes may call it
 * freely.
 */
#ifndef UNCORED_CORE_FORMULA_H
#define UNCORED_CORE_FORMULA_H

#include <stdbool.h>
#include <stddef.h>

#include "plat/formula.h"
#include "plat/plat.h"
#include "pmu/sched.h"

struct fexpr;

/*
 * Compiles text (formula.h's grammar) whose $N and #N may name events 0 ..
 * nevents-1.  Returns 0 and *out (the caller frees it with fexpr_free()),
 * or -EINVAL with why naming the offset and what was expected, or -ENOMEM.
 */
int fexpr_compile(const char *text, unsigned nevents, struct fexpr **out,
		  char *why, size_t whylen);
void fexpr_free(struct fexpr *x);

/*
 * The value of x for events' values ev[] (nevents of them), their box
 * counts boxes[] and a window of seconds.  NaN where the expression
 * divides by zero (or a value is NaN): no value, never a made-up one.
 */
double fexpr_eval(const struct fexpr *x, const double *ev,
		  const double *boxes, double seconds);

/* Number of events of f (its events[] up to the NULL). */
unsigned formula_nevents(const struct formula *f);

/*
 * The formula of platform pl named name: the name as its source writes it
 * (case-sensitive), or "box/NAME" for a row of the manual's box chapter
 * (two chapters may name a formula alike: "cbo/CYC_USED_DN").  When a
 * plain name matches several entries that can count, it is ambiguous.
 * Entries that cannot count are found too (the caller says why not).
 * Returns the entry, or NULL with why ("unknown formula ...", or the
 * qualified names to choose from).
 */
const struct formula *formula_find(const struct platform *pl,
				   const char *name, char *why, size_t whylen);

/* Why a formula cannot count here (formula_here()). */
enum formula_here {
	FORMULA_HERE = 0,
	FORMULA_UNAVAILABLE,	/* the catalog's reason */
	FORMULA_TOO_MANY,	/* more events than the caller has room for */
	FORMULA_NO_EVENT,	/* an event does not resolve here */
	FORMULA_NO_BOX,		/* an event's unit has no box here */
	FORMULA_APART,		/* its events can never count together */
};

/*
 * Whether f can count on platform pl with topology t, as a claim, the
 * catalog route and [formulas] export all judge it: not unavailable in
 * the catalog, each event resolved as a claim resolves it (into fev[],
 * room for nfev), on a unit with a box here, and all of them placeable
 * on their boxes' counters at once (sched_place(): two events that both
 * need counter 0, or two values of one box's filter register, never
 * are).  Returns FORMULA_HERE, or what fails with why: the catalog's
 * reason, "event SPEC: ...", "event SPEC: unit U has no box counted
 * here", "it needs N events" or (FORMULA_APART) the placement's reason,
 * for the caller to word.
 */
enum formula_here formula_here(const struct platform *pl,
			       const struct topology *t,
			       const struct formula *f, struct evspec *fev,
			       unsigned nfev, char *why, size_t whylen);

/* The name a client uses for f: "box/NAME" when its plain name is shared
 * within its platform's table, else NAME.  Written to out. */
void formula_qualified(const struct platform *pl, const struct formula *f,
		       char *out, size_t outlen);

#endif
