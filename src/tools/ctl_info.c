/*
 * ctl_info.c - the commands that show the daemon and its catalogs:
 * status, topology (with the events the claims on its counters count),
 * events and formulas.  Each is a GET and a table, or the JSON as it came.
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uncorectl.h"

/* ---- status ------------------------------------------------------------ */

int cmd_status(struct ctl *c, int argc, char **argv)
{
	const struct command *cmd = find_command("status");
	struct json_object *o, *own;
	struct reply r;
	struct table t;
	char b1[64];
	double v;
	bool show;
	int rc;

	rc = simple_get(c, cmd, argc, argv, "/api/v1/status", &r, &show);
	if (!show)
		goto out;
	o = r.json;
	own = jget(o, "ownership");
	tbl_init(&t, "ll");
	tbl_cell(&t, "version");
	tbl_cell(&t, "%s (revision %s, built %s)", jstr(o, "version", "?"),
		 jstr(o, "revision", "?"), jstr(o, "build_date", "?"));
	tbl_cell(&t, "platform");
	tbl_cell(&t, "%s (%s)", jstr(o, "platform", "?"), jstr(o, "platform_name", "?"));
	tbl_cell(&t, "backend");
	tbl_cell(&t, "%s%s", jstr(o, "backend", "?"),
		 jbool(o, "simulated") ? ", simulator" : "");
	tbl_cell(&t, "interval");
	tbl_cell(&t, "%" PRIu64 " ms", ju64(o, "interval_ms"));
	tbl_cell(&t, "uptime");
	tbl_cell(&t, "%s", jnum(o, "uptime_s", &v) ? fmt_dur(v, b1, sizeof(b1)) : "?");
	tbl_cell(&t, "ticks");
	tbl_cell(&t, "%" PRIu64 " (%" PRIu64 " overruns, %" PRIu64
		 " invalid samples)", ju64(o, "ticks"), ju64(o, "overruns"),
		 ju64(o, "invalid_samples"));
	tbl_cell(&t, "interference");
	tbl_cell(&t, "%" PRIu64, ju64(o, "interference"));
	tbl_cell(&t, "register accesses");
	tbl_cell(&t, "%" PRIu64 " reads, %" PRIu64 " writes, %" PRIu64 " errors",
		 ju64(o, "hw_reads"), ju64(o, "hw_writes"), ju64(o, "hw_errors"));
	if (jget(o, "counters_in_use")) {
		tbl_cell(&t, "counters in use");
		tbl_cell(&t, "%" PRIu64, ju64(o, "counters_in_use"));
		tbl_cell(&t, "ring");
		tbl_cell(&t, "newest sample %" PRIu64 ", capacity %" PRIu64,
			 ju64(o, "ring_head"), ju64(o, "ring_capacity"));
	}
	tbl_cell(&t, "ownership");
	tbl_cell(&t, "%s by pid %" PRIu64 ", policy %s%s%s",
		 jbool(own, "owned") ? "owned" : "NOT owned (yielded)",
		 ju64(own, "pid"), jstr(own, "policy", "?"),
		 jbool(own, "took_over") ? ", took over" : "",
		 jbool(own, "recovered_stale") ? ", recovered a stale owner" : "");
	if (jstr(own, "owner_file", NULL)) {
		tbl_cell(&t, "owner file");
		tbl_cell(&t, "%s", jstr(own, "owner_file", ""));
	}
	tbl_print(&t, 0, 0);
out:
	reply_free(&r);
	return rc;
}

/* ---- topology ------------------------------------------------------------ */

/* The event a claim counts on (unit, counter), from GET /api/v1/claims. */
static const char *claim_event(struct json_object *claims, const char *id,
			       const char *unit, int idx)
{
	size_t n, ne;
	struct json_object *arr = jarr(claims, "claims", &n);

	for (size_t i = 0; i < n; i++) {
		struct json_object *cl = json_object_array_get_idx(arr, i);
		struct json_object *evs;

		if (strcmp(jstr(cl, "id", ""), id) != 0)
			continue;
		evs = jarr(cl, "events", &ne);
		for (size_t e = 0; e < ne; e++) {
			struct json_object *ev = json_object_array_get_idx(evs, e);
			double ctr;

			if (strcmp(jstr(ev, "unit", ""), unit) == 0 &&
			    jnum(ev, "counter", &ctr) && (int)ctr == idx)
				return jstr(ev, "event", NULL);
		}
	}
	return NULL;
}

/* What counter idx of an instance shows: "holder\tevent". */
static void counter_desc(struct json_object *inst, int idx, char *buf,
			 size_t len, int *width, const char **name)
{
	size_t n;
	struct json_object *ctrs = jarr(inst, "counters", &n);

	*width = 0;
	*name = NULL;
	for (size_t i = 0; i < n; i++) {
		struct json_object *co = json_object_array_get_idx(ctrs, i);
		double x, w;

		if (!jnum(co, "index", &x) || (int)x != idx)
			continue;
		*width = jnum(co, "width", &w) ? (int)w : 0;
		*name = jstr(co, "name", NULL);
		snprintf(buf, len, "%s\t%s", jstr(co, "holder", "-"),
			 jstr(co, "event", "-"));
		return;
	}
	snprintf(buf, len, "-\t-");
}

/*
 * The rows of counter ci of one unit: one per run of instances that agree
 * on what the counter does (holder, event, width).  claims: the claims
 * listing, to name a claim's event (may be NULL).
 */
static void counter_rows(struct table *t, struct json_object *uo, size_t ci,
			 struct json_object *claims)
{
	size_t ni;
	struct json_object *insts = jarr(uo, "instance_list", &ni);
	const char *uname = jstr(uo, "unit", "?");

	for (size_t i = 0; i < ni;) {
		char d0[256], d1[256];
		const char *name, *n1, *ev;
		int w, w1;
		size_t j = i + 1;
		char *tab;

		counter_desc(json_object_array_get_idx(insts, i), (int)ci, d0,
			     sizeof(d0), &w, &name);
		while (j < ni) {
			counter_desc(json_object_array_get_idx(insts, j),
				     (int)ci, d1, sizeof(d1), &w1, &n1);
			if (strcmp(d0, d1) || w != w1)
				break;
			j++;
		}
		tab = strchr(d0, '\t');
		*tab = '\0';
		ev = tab + 1;
		if (!strcmp(ev, "-") && strcmp(d0, "-") && strcmp(d0, "baseline")) {
			const char *ce = claim_event(claims, d0, uname, (int)ci);

			ev = ce ? ce : "-";
		}
		if (!strcmp(ev, "-") && name)
			ev = name;
		tbl_cell(t, "%s", uname);
		tbl_cell(t, "%s", jstr(uo, "kind", "?"));
		if (j - i > 1)
			tbl_cell(t, "%zu-%zu", i, j - 1);
		else
			tbl_cell(t, "%zu", i);
		tbl_cell(t, "%zu", ci);
		tbl_cell(t, "%d", w);
		tbl_cell(t, "%s", !strcmp(d0, "-") ? "(free)" : d0);
		tbl_cell(t, "%s", ev);
		i = j;
	}
}

/* One socket's table: every counter of every unit. */
static void socket_table(struct json_object *so, struct json_object *claims)
{
	struct json_object *units;
	struct table t;
	size_t nu;

	printf("\nsocket %" PRIu64 " (cpu %" PRIu64 ")\n", ju64(so, "socket"),
	       ju64(so, "cpu"));
	tbl_init(&t, "lllrrll");
	tbl_cell(&t, "UNIT");
	tbl_cell(&t, "KIND");
	tbl_cell(&t, "INST");
	tbl_cell(&t, "CTR");
	tbl_cell(&t, "WIDTH");
	tbl_cell(&t, "HOLDER");
	tbl_cell(&t, "EVENT");
	units = jarr(so, "units", &nu);
	for (size_t u = 0; u < nu; u++) {
		struct json_object *uo = json_object_array_get_idx(units, u);
		size_t ni, nctr = 0;
		struct json_object *insts = jarr(uo, "instance_list", &ni);

		if (ni)
			jarr(json_object_array_get_idx(insts, 0), "counters", &nctr);
		for (size_t ci = 0; ci < nctr; ci++)
			counter_rows(&t, uo, ci, claims);
	}
	tbl_print(&t, 2, 0);
}

int cmd_topology(struct ctl *c, int argc, char **argv)
{
	const struct command *cmd = find_command("topology");
	struct reply r, rc_claims = { 0 };
	struct json_object *socks;
	size_t ns;
	bool show;
	int rc;

	rc = simple_get(c, cmd, argc, argv, "/api/v1/topology", &r, &show);
	if (!show)
		goto out;
	/* Counters held by claims show the claim id; name their events too
	 * (only the control socket lists claims: quietly skip elsewhere). */
	if (strstr(r.body, "\"holder\":\"c") &&
	    api(c, "GET", "/api/v1/claims", NULL, &rc_claims, Q_QUIET))
		reply_free(&rc_claims);
	printf("platform %s\n", jstr(r.json, "platform", "?"));
	socks = jarr(r.json, "sockets", &ns);
	for (size_t s = 0; s < ns; s++)
		socket_table(json_object_array_get_idx(socks, s), rc_claims.json);
out:
	reply_free(&rc_claims);
	reply_free(&r);
	return rc;
}

/* ---- events ------------------------------------------------------------- */

/* /api/v1/events?unit=U&q=PATTERN, each part escaped, into path. */
static void events_path(const char *unit, const char *pattern, char *path,
			size_t len)
{
	char bu[200], bq[400];
	const char *eu = unit ? escape(unit, bu, sizeof(bu)) : NULL;
	const char *eq = pattern ? escape(pattern, bq, sizeof(bq)) : NULL;

	snprintf(path, len, "/api/v1/events%s%s%s%s%s%s",
		 eu || eq ? "?" : "", eu ? "unit=" : "", eu ? eu : "",
		 eu && eq ? "&" : "", eq ? "q=" : "", eq ? eq : "");
}

/* One event's row: name, unit, code, umask with its modifiers, valid
 * counters ("-" for fixed and free-running counters), description. */
static void event_row(struct table *t, struct json_object *e)
{
	size_t nc;
	struct json_object *ctrs = jarr(e, "counters", &nc);
	char cs[64] = "", mods[64] = "";
	double x;

	for (size_t k = 0; k < nc && strlen(cs) < sizeof(cs) - 8; k++)
		snprintf(cs + strlen(cs), sizeof(cs) - strlen(cs), "%s%d",
			 k ? "," : "", json_object_get_int(
				 json_object_array_get_idx(ctrs, k)));
	if (jnum(e, "thresh", &x))
		snprintf(mods, sizeof(mods), " thresh=%d", (int)x);
	if (jbool(e, "edge"))
		snprintf(mods + strlen(mods), sizeof(mods) - strlen(mods), " edge");
	if (jbool(e, "inv"))
		snprintf(mods + strlen(mods), sizeof(mods) - strlen(mods), " inv");
	tbl_cell(t, "%s", jstr(e, "name", "?"));
	tbl_cell(t, "%s", jstr(e, "unit", "?"));
	if (nc) {
		tbl_cell(t, "0x%02" PRIx64, ju64(e, "code"));
		tbl_cell(t, "0x%02" PRIx64 "%s", ju64(e, "umask"), mods);
	} else {	/* fixed and free-running counters */
		tbl_cell(t, "-");
		tbl_cell(t, "-");
	}
	tbl_cell(t, "%s", nc ? cs : "-");
	tbl_cell(t, "%s", jstr(e, "description", ""));
}

/* The events of the reply: names only, or the table. */
static void events_print(struct json_object *evs, size_t n, bool names)
{
	struct table t;

	if (names) {
		for (size_t i = 0; i < n; i++)
			puts(jstr(json_object_array_get_idx(evs, i), "name", "?"));
		return;
	}
	tbl_init(&t, "llllll");
	tbl_cell(&t, "NAME");
	tbl_cell(&t, "UNIT");
	tbl_cell(&t, "CODE");
	tbl_cell(&t, "UMASK");
	tbl_cell(&t, "CTRS");
	tbl_cell(&t, "DESCRIPTION");
	for (size_t i = 0; i < n; i++)
		event_row(&t, json_object_array_get_idx(evs, i));
	tbl_print(&t, 0, term_cols());
}

int cmd_events(struct ctl *c, int argc, char **argv)
{
	static const struct option lo[] = {
		COMMON_OPTS,
		{ "unit", required_argument, NULL, 'U' },
		{ "names", no_argument, NULL, 'n' },
		{ 0 }
	};
	const struct command *cmd = find_command("events");
	const char *unit = NULL, *pattern = NULL;
	bool names = false;
	char path[512];
	struct reply r;
	struct json_object *evs;
	size_t n;
	int opt, rc;

	getopt_reset();
	while ((opt = getopt_long(argc, argv, ":" COMMON_SHORT "U:n", lo, NULL)) != -1) {
		if (opt == 'U')
			unit = optarg;
		else if (opt == 'n')
			names = true;
		else
			PARSE_COMMON(c, cmd, argc, argv, opt);
	}
	if (optind < argc)
		pattern = argv[optind++];
	if ((rc = no_args(cmd, argc, argv)))
		return rc;
	if (unit && (!unit[0] || strlen(unit) > 32))
		return usage_error(cmd, "--unit needs a unit name (as `uncorectl topology` lists them)");
	if (pattern && strlen(pattern) > 128)
		return usage_error(cmd, "the pattern is longer than 128 characters");
	if ((rc = ctl_open(c)))
		return rc;
	events_path(unit, pattern, path, sizeof(path));
	if ((rc = api(c, "GET", path, NULL, &r, 0)))
		goto out;
	if (c->json) {
		print_raw(&r);
		goto out;
	}
	evs = jarr(r.json, "events", &n);
	if (!n && !names)
		fprintf(stderr, "%s: no event matches%s%s%s%s%s\n", prog,
			pattern ? " \"" : "", pattern ? pattern : "", pattern ? "\"" : "",
			unit ? " in unit " : "", unit ? unit : "");
	else
		events_print(evs, n, names);
out:
	reply_free(&r);
	return rc;
}

/* ---- formulas ---------------------------------------------------------- */

/* uncorectl formulas [PATTERN] [--names] [--available]: the formula
 * catalog (GET /api/v1/formulas, doc/formulas.md). */
int cmd_formulas(struct ctl *c, int argc, char **argv)
{
	static const struct option lo[] = {
		COMMON_OPTS,
		{ "names", no_argument, NULL, 'n' },
		{ "available", no_argument, NULL, 'a' },
		{ 0 }
	};
	const struct command *cmd = find_command("formulas");
	const char *pattern = NULL;
	bool names = false, only_av = false;
	char path[512], bq[400];
	struct reply r;
	struct json_object *fs;
	struct table t;
	size_t n, shown = 0;
	int opt, rc;

	getopt_reset();
	while ((opt = getopt_long(argc, argv, ":" COMMON_SHORT "na", lo, NULL)) != -1) {
		if (opt == 'n')
			names = true;
		else if (opt == 'a')
			only_av = true;
		else
			PARSE_COMMON(c, cmd, argc, argv, opt);
	}
	if (optind < argc)
		pattern = argv[optind++];
	if ((rc = no_args(cmd, argc, argv)))
		return rc;
	if (pattern && strlen(pattern) > 128)
		return usage_error(cmd, "the pattern is longer than 128 characters");
	if ((rc = ctl_open(c)))
		return rc;
	snprintf(path, sizeof(path), "/api/v1/formulas%s%s",
		 pattern ? "?q=" : "", pattern ? escape(pattern, bq, sizeof(bq)) : "");
	if ((rc = api(c, "GET", path, NULL, &r, 0)))
		goto out;
	if (c->json) {
		print_raw(&r);
		goto out;
	}
	fs = jarr(r.json, "formulas", &n);
	tbl_init(&t, "llll");
	tbl_cell(&t, "NAME");
	tbl_cell(&t, "UNIT");
	tbl_cell(&t, "HERE");
	tbl_cell(&t, "DESCRIPTION OR WHY NOT");
	for (size_t i = 0; i < n; i++) {
		struct json_object *f = json_object_array_get_idx(fs, i), *av;
		bool ok_here = json_object_object_get_ex(f, "available", &av) &&
			       json_object_get_boolean(av);
		const char *u = jstr(f, "unit", "");

		if (only_av && !ok_here)
			continue;
		shown++;
		if (names) {
			puts(jstr(f, "name", "?"));
			continue;
		}
		tbl_cell(&t, "%s", jstr(f, "name", "?"));
		tbl_cell(&t, "%s", u[0] ? u : "-");
		tbl_cell(&t, "%s", ok_here ? "yes" : "no");
		tbl_cell(&t, "%s", ok_here ? jstr(f, "description", "") :
			 jstr(f, "reason", ""));
	}
	if (!shown)
		fprintf(stderr, "%s: no formula matches%s%s%s\n", prog,
			pattern ? " \"" : "", pattern ? pattern : "",
			pattern ? "\"" : "");
	if (names || !shown) {
		for (size_t i = 0; i < t.n; i++)
			free(t.cell[i]);
		free(t.cell);
	} else {
		tbl_print(&t, 0, term_cols());
	}
out:
	reply_free(&r);
	return rc;
}
