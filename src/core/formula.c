/*
 * formula.c - the formula catalog's expressions compiled to a stack
 * program and evaluated (see formula.h), and names looked up.
 *
 * The compiler is a recursive descent over formula.h's grammar that emits
 * postfix operations; the depth of the stack is computed at compile time,
 * so evaluation needs only a fixed array on the caller's stack.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formula.h"

#define FX_MAX_OPS 256
#define FX_MAX_STACK 32

enum fx_op { OP_NUM, OP_EV, OP_BOXES, OP_T, OP_ADD, OP_SUB, OP_MUL, OP_DIV,
	     OP_NEG, OP_ROUND, OP_DRATIO };

struct fx_ins {
	enum fx_op op;
	double v;	/* OP_NUM */
	unsigned i;	/* OP_EV, OP_BOXES */
};

struct fexpr {
	unsigned n;
	struct fx_ins ins[FX_MAX_OPS];
};

struct fx_parse {
	const char *s, *p;
	unsigned nev;
	struct fexpr *x;
	int depth, maxdepth;
	char *why;
	size_t whylen;
};

__attribute__((format(printf, 2, 3)))
static int fx_fail(struct fx_parse *ps, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ps->why && ps->whylen)
		snprintf(ps->why, ps->whylen, "%s at offset %d of \"%.120s\"",
			 msg, (int)(ps->p - ps->s), ps->s);
	return -EINVAL;
}

static void fx_ws(struct fx_parse *ps)
{
	while (*ps->p == ' ')
		ps->p++;
}

/* Appends one operation; the stack grows by push (may be negative). */
static int fx_emit(struct fx_parse *ps, enum fx_op op, double v, unsigned i,
		   int push)
{
	if (ps->x->n >= FX_MAX_OPS)
		return fx_fail(ps, "expression longer than %d operations",
			       FX_MAX_OPS);
	ps->x->ins[ps->x->n++] = (struct fx_ins){ op, v, i };
	ps->depth += push;
	if (ps->depth > ps->maxdepth)
		ps->maxdepth = ps->depth;
	if (ps->maxdepth > FX_MAX_STACK)
		return fx_fail(ps, "expression nested deeper than %d",
			       FX_MAX_STACK);
	return 0;
}

static int fx_expr(struct fx_parse *ps);

static int fx_index(struct fx_parse *ps, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)*ps->p))
		return fx_fail(ps, "expected an event number after '%c'",
			       ps->p[-1]);
	errno = 0;
	v = strtoul(ps->p, &end, 10);
	if (errno || v >= ps->nev)
		return fx_fail(ps, "event %lu does not exist (the formula has "
			       "%u)", v, ps->nev);
	ps->p = end;
	*out = (unsigned)v;
	return 0;
}

static int fx_call2(struct fx_parse *ps, enum fx_op op)
{
	fx_ws(ps);
	if (*ps->p++ != '(')
		return fx_fail(ps, "expected '('");
	if (fx_expr(ps) < 0)
		return -EINVAL;
	fx_ws(ps);
	if (*ps->p++ != ',')
		return fx_fail(ps, "expected ','");
	if (fx_expr(ps) < 0)
		return -EINVAL;
	fx_ws(ps);
	if (*ps->p++ != ')')
		return fx_fail(ps, "expected ')'");
	return fx_emit(ps, op, 0, 0, -1);
}

static int fx_primary(struct fx_parse *ps)
{
	unsigned i = 0;

	fx_ws(ps);
	if (*ps->p == '(') {
		ps->p++;
		if (fx_expr(ps) < 0)
			return -EINVAL;
		fx_ws(ps);
		if (*ps->p != ')')
			return fx_fail(ps, "expected ')'");
		ps->p++;
		return 0;
	}
	if (*ps->p == '$' || *ps->p == '#') {
		enum fx_op op = *ps->p++ == '$' ? OP_EV : OP_BOXES;

		if (fx_index(ps, &i) < 0)
			return -EINVAL;
		return fx_emit(ps, op, 0, i, 1);
	}
	if (*ps->p == 'T' && !isalnum((unsigned char)ps->p[1])) {
		ps->p++;
		return fx_emit(ps, OP_T, 0, 0, 1);
	}
	if (strncmp(ps->p, "round", 5) == 0) {
		ps->p += 5;
		return fx_call2(ps, OP_ROUND);
	}
	if (strncmp(ps->p, "dratio", 6) == 0) {
		ps->p += 6;
		return fx_call2(ps, OP_DRATIO);
	}
	if (isdigit((unsigned char)*ps->p) || *ps->p == '.') {
		char *end;
		double v;

		errno = 0;
		v = strtod(ps->p, &end);
		if (errno || end == ps->p || !isfinite(v))
			return fx_fail(ps, "bad number");
		ps->p = end;
		return fx_emit(ps, OP_NUM, v, 0, 1);
	}
	return fx_fail(ps, *ps->p ? "expected a number, $N, #N, T, round(), "
		       "dratio() or '('" : "unexpected end");
}

static int fx_unary(struct fx_parse *ps)
{
	fx_ws(ps);
	if (*ps->p == '-') {
		ps->p++;
		if (fx_unary(ps) < 0)
			return -EINVAL;
		return fx_emit(ps, OP_NEG, 0, 0, 0);
	}
	return fx_primary(ps);
}

static int fx_term(struct fx_parse *ps)
{
	if (fx_unary(ps) < 0)
		return -EINVAL;
	for (;;) {
		char c;

		fx_ws(ps);
		c = *ps->p;
		if (c != '*' && c != '/')
			return 0;
		ps->p++;
		if (fx_unary(ps) < 0 ||
		    fx_emit(ps, c == '*' ? OP_MUL : OP_DIV, 0, 0, -1) < 0)
			return -EINVAL;
	}
}

static int fx_expr(struct fx_parse *ps)
{
	if (fx_term(ps) < 0)
		return -EINVAL;
	for (;;) {
		char c;

		fx_ws(ps);
		c = *ps->p;
		if (c != '+' && c != '-')
			return 0;
		ps->p++;
		if (fx_term(ps) < 0 ||
		    fx_emit(ps, c == '+' ? OP_ADD : OP_SUB, 0, 0, -1) < 0)
			return -EINVAL;
	}
}

int fexpr_compile(const char *text, unsigned nevents, struct fexpr **out,
		  char *why, size_t whylen)
{
	struct fx_parse ps = { text, text, nevents, NULL, 0, 0, why, whylen };

	*out = NULL;
	if (!text)
		return fx_fail(&ps, "no expression");
	if (!(ps.x = calloc(1, sizeof(*ps.x))))
		return -ENOMEM;
	if (fx_expr(&ps) < 0) {
		free(ps.x);
		return -EINVAL;
	}
	fx_ws(&ps);
	if (*ps.p) {
		free(ps.x);
		return fx_fail(&ps, "unexpected '%c'", *ps.p);
	}
	*out = ps.x;
	return 0;
}

void fexpr_free(struct fexpr *x)
{
	free(x);
}

double fexpr_eval(const struct fexpr *x, const double *ev,
		  const double *boxes, double seconds)
{
	double st[FX_MAX_STACK + 1];
	int sp = 0;

	for (unsigned k = 0; k < x->n; k++) {
		const struct fx_ins *in = &x->ins[k];
		double a, b;

		switch (in->op) {
		case OP_NUM:
			st[sp++] = in->v;
			continue;
		case OP_EV:
			st[sp++] = ev[in->i];
			continue;
		case OP_BOXES:
			st[sp++] = boxes[in->i];
			continue;
		case OP_T:
			st[sp++] = seconds;
			continue;
		case OP_NEG:
			st[sp - 1] = -st[sp - 1];
			continue;
		default:
			break;
		}
		b = st[--sp];
		a = st[sp - 1];
		switch (in->op) {
		case OP_ADD:
			a += b;
			break;
		case OP_SUB:
			a -= b;
			break;
		case OP_MUL:
			a *= b;
			break;
		case OP_DIV:
			a = b == 0 ? NAN : a / b;
			break;
		case OP_DRATIO:
			a = b == 0 ? 0 : a / b;
			break;
		case OP_ROUND: {
			double m = pow(10, b);

			a = round(a * m) / m;
			break;
		}
		default:
			break;
		}
		st[sp - 1] = a;
	}
	return sp == 1 ? st[0] : NAN;
}

enum formula_here formula_here(const struct platform *pl,
			       const struct topology *t,
			       const struct formula *f, struct evspec *fev,
			       unsigned nfev, char *why, size_t whylen)
{
	unsigned ne = formula_nevents(f);
	int plan[SCHED_MAX_EVENTS];
	char msg[300];

	if (f->unavailable) {
		snprintf(why, whylen, "%s", f->unavailable);
		return FORMULA_UNAVAILABLE;
	}
	if (ne > nfev || ne > SCHED_MAX_EVENTS) {
		snprintf(why, whylen, "it needs %u events", ne);
		return FORMULA_TOO_MANY;
	}
	for (unsigned k = 0; k < ne; k++) {
		unsigned boxes = 0;

		if (sched_resolve(pl, f->events[k].spec, true, &fev[k], msg,
				  sizeof(msg)) < 0) {
			snprintf(why, whylen, "event %s: %s", f->events[k].spec,
				 msg);
			return FORMULA_NO_EVENT;
		}
		for (unsigned s = 0; s < t->nsockets; s++)
			boxes += t->sock[s].ninst[fev[k].unit];
		if (!boxes) {
			snprintf(why, whylen, "event %s: unit %s has no box "
				 "counted here", f->events[k].spec,
				 pl->units[fev[k].unit]->name);
			return FORMULA_NO_BOX;
		}
	}
	if (sched_place(pl, fev, ne, NULL, plan, msg, sizeof(msg)) < 0) {
		snprintf(why, whylen, "%s", msg);
		return FORMULA_APART;
	}
	return FORMULA_HERE;
}

unsigned formula_nevents(const struct formula *f)
{
	unsigned n = 0;

	while (f->events && f->events[n].spec)
		n++;
	return n;
}

/* How many entries of the table are named name (plain). */
static unsigned name_count(const struct formula *t, size_t n, const char *name)
{
	unsigned c = 0;

	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0 && !t[i].cpu)
			c++;
	return c;
}

void formula_qualified(const struct platform *pl, const struct formula *f,
		       char *out, size_t outlen)
{
	size_t n;
	const struct formula *t = formula_table(pl->id, &n);

	if (f->per_box && name_count(t, n, f->name) > 1)
		snprintf(out, outlen, "%s/%s", f->per_box, f->name);
	else
		snprintf(out, outlen, "%s", f->name);
}

const struct formula *formula_find(const struct platform *pl,
				   const char *name, char *why, size_t whylen)
{
	size_t n;
	const struct formula *t = formula_table(pl->id, &n), *hit = NULL;
	const char *slash = strchr(name, '/');
	char alts[256] = "";
	unsigned c = 0;

	for (size_t i = 0; t && i < n; i++) {
		if (slash) {
			size_t bl = (size_t)(slash - name);

			if (!t[i].per_box || strlen(t[i].per_box) != bl ||
			    strncmp(t[i].per_box, name, bl) != 0 ||
			    strcmp(t[i].name, slash + 1) != 0)
				continue;
		} else if (strcmp(t[i].name, name) != 0) {
			continue;
		}
		if (t[i].cpu && hit)	/* another CPU's entry of that name */
			continue;
		if (hit && !slash && !t[i].cpu) {
			c++;
			snprintf(alts + strlen(alts), sizeof(alts) - strlen(alts),
				 ", %s/%s", t[i].per_box ? t[i].per_box : "?",
				 t[i].name);
			continue;
		}
		if (!hit) {
			hit = &t[i];
			snprintf(alts, sizeof(alts), "%s/%s",
				 t[i].per_box ? t[i].per_box : "?", t[i].name);
		}
	}
	if (!hit) {
		snprintf(why, whylen, "unknown formula \"%.80s\" on %s (see "
			 "/api/v1/formulas or `uncorectl formulas`)", name,
			 pl->id);
		return NULL;
	}
	if (c) {
		snprintf(why, whylen, "formula \"%.80s\" is ambiguous on %s: "
			 "name one of %s", name, pl->id, alts);
		return NULL;
	}
	return hit;
}
