/*
 * ctl_groups.c - the named groups (GET /api/v1/groups): `uncorectl
 * groups` lists them with their events and figures, and a group read
 * into a struct plan is what `run -g` claims and whose figures it
 * computes from the counts (uncorectl.h has the plan).
 */
#include "config.h"

#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uncorectl.h"

#define RUN_MAXSRC 16

void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->nev; i++)
		free(p->ev[i]);
	free(p->ev);
	free(p->scale);
	free(p->src);
	free(p->isc);
	free(p->fig);
	json_object_put(p->gj);
	memset(p, 0, sizeof(*p));
}

/* Adds event name (len bytes) to p unless it is there already. */
void plan_add(struct plan *p, const char *name, size_t len,
	      double scale, int src, struct json_object *isc)
{
	size_t ni = json_object_is_type(isc, json_type_array)
		    ? json_object_array_length(isc) : 0;

	for (size_t i = 0; i < p->nev; i++)
		if (strlen(p->ev[i]) == len && strncmp(p->ev[i], name, len) == 0)
			return;
	p->ev = xrealloc(p->ev, (p->nev + 1) * sizeof(*p->ev));
	p->scale = xrealloc(p->scale, (p->nev + 1) * sizeof(*p->scale));
	p->src = xrealloc(p->src, (p->nev + 1) * sizeof(*p->src));
	p->ev[p->nev] = xrealloc(NULL, len + 1);
	memcpy(p->ev[p->nev], name, len);
	p->ev[p->nev][len] = '\0';
	p->isc = xrealloc(p->isc, (p->nev + 1) * RUN_MAXSOCK * sizeof(*p->isc));
	for (size_t s = 0; s < RUN_MAXSOCK; s++) {
		struct json_object *v = s < ni ? json_object_array_get_idx(isc, s)
				       : NULL;

		p->isc[p->nev * RUN_MAXSOCK + s] = v ? json_object_get_double(v) : 1;
	}
	p->scale[p->nev] = scale;
	p->src[p->nev++] = src;
}

/* The bitmap of the sources of group g named in array a. */
static unsigned src_bits(struct json_object *g, struct json_object *a)
{
	size_t ns, na;
	struct json_object *srcs = jarr(g, "sources", &ns);
	unsigned bits = 0;

	na = json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	for (size_t i = 0; i < na; i++) {
		const char *n = json_object_get_string(json_object_array_get_idx(a, i));

		for (size_t k = 0; n && k < ns && k < RUN_MAXSRC; k++)
			if (strcmp(n, jstr(json_object_array_get_idx(srcs, k),
					   "name", "")) == 0)
				bits |= 1u << k;
	}
	return bits;
}

/*
 * Fetches group name from the daemon into p: its events and figures.
 * Returns 0, or an exit status after saying why (no such group, or it
 * cannot count here).
 */
int plan_group(struct ctl *c, struct plan *p, const char *name)
{
	static const char *const kinds[] = { "sum", "per_second", "ratio",
					     "one_minus_ratio", "in_flight",
					     "latency" };
	char path[200], q[150];
	struct json_object *g, *srcs, *figs;
	struct reply r;
	size_t ng, ns, nf;
	int rc;

	snprintf(path, sizeof(path), "/api/v1/groups?name=%s",
		 escape(name, q, sizeof(q)));
	if ((rc = api(c, "GET", path, NULL, &r, 0))) {
		reply_free(&r);
		return rc;
	}
	g = json_object_array_get_idx(jarr(r.json, "groups", &ng), 0);
	if (!g) {
		warnx_("the daemon has no group \"%s\"", name);
		reply_free(&r);
		return EXIT_DAEMON;
	}
	if (!jbool(g, "available")) {
		warnx_("group %s cannot count here: %s", jstr(g, "name", name),
		       jstr(g, "reason", "the daemon does not say why"));
		reply_free(&r);
		return EXIT_DAEMON;
	}
	p->gj = json_object_get(g);
	p->group = jstr(g, "name", name);
	srcs = jarr(g, "sources", &ns);
	for (size_t s = 0; s < ns && s < RUN_MAXSRC; s++) {
		size_t ne;
		struct json_object *evs = jarr(json_object_array_get_idx(srcs, s),
					       "events", &ne);

		for (size_t e = 0; e < ne; e++) {
			struct json_object *eo = json_object_array_get_idx(evs, e);
			const char *n = jstr(eo, "event", NULL);
			double k = 1;

			jnum(eo, "scale", &k);
			if (n)
				plan_add(p, n, strlen(n), k, (int)s,
					 jget(eo, "instance_scale"));
		}
	}
	figs = jarr(g, "figures", &nf);
	p->fig = xrealloc(NULL, (nf + 1) * sizeof(*p->fig));
	for (size_t i = 0; i < nf; i++) {
		struct json_object *fo = json_object_array_get_idx(figs, i);
		const char *kind = jstr(fo, "kind", "");
		size_t k;

		for (k = 0; k < GK_ABSENT && strcmp(kind, kinds[k]) != 0; k++)
			;
		if (k == GK_ABSENT)
			continue;	/* a form this uncorectl does not know */
		/* a daemon before optional sources serves no "available":
		 * every figure of an available group counts */
		if (jget(fo, "available") && !jbool(fo, "available"))
			k = GK_ABSENT;
		p->fig[p->nfig] = (struct gfig){
			.name = jstr(fo, "name", "?"), .unit = jstr(fo, "unit", ""),
			.kind = (enum gkind)k, .of = src_bits(g, jget(fo, "of")),
			.over = src_bits(g, jget(fo, "over")),
			.per = src_bits(g, jget(fo, "per")), .k = 1,
			.reason = jstr(fo, "reason", "not counted here"),
		};
		jnum(fo, "factor", &p->fig[p->nfig].k);
		p->nfig++;
	}
	reply_free(&r);
	return 0;
}

/* The sum of the sources in bits over the events' values w[] (scaled
 * counts) of socket k (w[k * nev + i]); over every socket for k < 0. */
static double src_sum(const struct plan *p, const double *w, unsigned ns,
		      int k, unsigned bits)
{
	double sum = 0;

	for (unsigned s = 0; s < ns; s++)
		for (size_t i = 0; (k < 0 || (unsigned)k == s) && i < p->nev; i++)
			if (p->src[i] >= 0 && (bits >> p->src[i]) & 1u)
				sum += w[s * p->nev + i] * p->scale[i];
	return sum;
}

/* The requests in flight of figure f on socket k (every socket summed,
 * each over its own clock, for k < 0): NaN when a clock has no count. */
static double in_flight(const struct plan *p, const struct gfig *f,
			const double *w, unsigned ns, int k)
{
	double sum = 0;

	for (unsigned s = 0; s < ns; s++) {
		double occ, clk;

		if (k >= 0 && (unsigned)k != s)
			continue;
		occ = src_sum(p, w, ns, (int)s, f->of);
		clk = src_sum(p, w, ns, (int)s, f->per);
		if (!(clk > 0))
			return NAN;
		sum += occ / clk;
	}
	return sum;
}

/* Figure f over the events' values w[] (per socket, as src_sum takes
 * them) of socket k (every socket for k < 0), counted over secs
 * seconds. */
double fig_value(const struct plan *p, const struct gfig *f,
		 const double *w, unsigned ns, int k, double secs)
{
	double a = src_sum(p, w, ns, k, f->of), b;

	switch (f->kind) {
	case GK_SUM:
		return a;
	case GK_PER_SECOND:
		return secs > 0 ? a / secs : NAN;
	case GK_RATIO:
	case GK_ONE_MINUS_RATIO:
		b = src_sum(p, w, ns, k, f->over);
		if (!(b > 0) || isnan(a))
			return NAN;
		return f->kind == GK_RATIO ? f->k * a / b : 1 - a / b;
	case GK_IN_FLIGHT:
		return in_flight(p, f, w, ns, k);
	case GK_LATENCY:
		b = src_sum(p, w, ns, k, f->over);
		if (!(b > 0) || !(secs > 0))
			return NAN;
		return in_flight(p, f, w, ns, k) * secs / b;
	case GK_ABSENT:
		break;
	}
	return NAN;
}

/* A figure's value for people: GB and GB/s (10^9), ratios to 4 places,
 * seconds in ns, a small mean count (reads in flight) to 3 places, other
 * counts whole. */
const char *fig_text(const char *unit, double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (strcmp(unit, "seconds") == 0)
		snprintf(buf, len, "%.1f ns", v * 1e9);
	else if (strcmp(unit, "bytes") == 0)
		snprintf(buf, len, "%.3f GB", v / 1e9);
	else if (strcmp(unit, "bytes_per_second") == 0)
		snprintf(buf, len, "%.3f GB/s", v / 1e9);
	else if (strcmp(unit, "ratio") == 0)
		snprintf(buf, len, "%.4f", v);
	else if (v != floor(v) && fabs(v) < 1e3)
		snprintf(buf, len, "%.3f", v);	/* a mean: reads in flight */
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}

int cmd_groups(struct ctl *c, int argc, char **argv)
{
	static const struct option lo[] = {
		COMMON_OPTS,
		{ "names", no_argument, NULL, 'n' },
		{ 0 }
	};
	const struct command *cmd = find_command("groups");
	struct json_object *gs;
	struct reply r;
	bool names = false;
	size_t ng;
	int opt, rc;

	getopt_reset();
	while ((opt = getopt_long(argc, argv, ":" COMMON_SHORT "n", lo, NULL)) != -1) {
		if (opt == 'n')
			names = true;
		else
			PARSE_COMMON(c, cmd, argc, argv, opt);
	}
	if ((rc = no_args(cmd, argc, argv)) || (rc = ctl_open(c)))
		return rc;
	if ((rc = api(c, "GET", "/api/v1/groups", NULL, &r, 0))) {
		reply_free(&r);
		return rc;
	}
	if (c->json) {
		print_raw(&r);
		reply_free(&r);
		return 0;
	}
	gs = jarr(r.json, "groups", &ng);
	for (size_t i = 0; i < ng; i++) {
		struct json_object *g = json_object_array_get_idx(gs, i), *srcs, *figs;
		size_t ns, nf;
		bool av = jbool(g, "available");

		if (names) {
			if (av)
				printf("%s\n", jstr(g, "name", "?"));
			continue;
		}
		printf("%s%s - %s\n", i ? "\n" : "", jstr(g, "name", "?"),
		       jstr(g, "description", ""));
		if (!av) {
			printf("  not here: %s\n", jstr(g, "reason", "?"));
			continue;
		}
		srcs = jarr(g, "sources", &ns);
		for (size_t s = 0; s < ns; s++) {
			struct json_object *so = json_object_array_get_idx(srcs, s), *evs;
			size_t ne;

			/* an optional source this machine lacks: its
			 * figures say so */
			if (jget(so, "available") && !jbool(so, "available"))
				continue;
			evs = jarr(so, "events", &ne);
			printf("  %-8s", jstr(so, "name", "?"));
			for (size_t e = 0; e < ne; e++) {
				struct json_object *eo = json_object_array_get_idx(evs, e);
				double k = 1;

				jnum(eo, "scale", &k);
				printf("%s%s", e ? " + " : " ", jstr(eo, "event", "?"));
				if (k != 1)
					printf(" x %g", k);
			}
			putchar('\n');
		}
		figs = jarr(g, "figures", &nf);
		for (size_t f = 0; f < nf; f++) {
			struct json_object *fo = json_object_array_get_idx(figs, f);

			printf("  %-22s %-17s %s%s\n", jstr(fo, "name", "?"),
			       jstr(fo, "unit", "")[0] ? jstr(fo, "unit", "") : "count",
			       jget(fo, "available") && !jbool(fo, "available")
			       ? "not here: " : "", jget(fo, "available") &&
			       !jbool(fo, "available") ? jstr(fo, "reason", "?")
			       : jstr(fo, "description", ""));
		}
	}
	reply_free(&r);
	return 0;
}
