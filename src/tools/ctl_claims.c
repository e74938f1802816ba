/*
 * ctl_claims.c - claims from the command line: claim (and with --watch,
 * the live counts and rates, the lease renewed and the claim released on
 * a signal), claims and release, and a claim's counts and formulas as
 * tables.
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uncorectl.h"
#include "uncored.h"

/* ---- claims: rendering --------------------------------------------------- */

/* Previous readings of a watched claim, for rates. */
struct rates {
	double *scaled;		/* per (event, socket) row; NAN: unknown */
	size_t n;
	double enabled;		/* time_enabled_s at that reading */
	double *rate;		/* the last rate computed per row, or NAN */
	bool have;
};

/* A row's scaled count: the daemon's perf-style "scaled" (count x
 * enabled / running; for free-running counters the count), NAN while
 * the claim has not run yet. */
static double row_scaled(struct json_object *so)
{
	double v;

	return jnum(so, "scaled", &v) ? v : NAN;
}

/*
 * The formulas of a claim (if it has any) as a table: one row per formula
 * and socket, its value over the claim's window in its base unit ("-":
 * none yet).
 */
static void print_formulas(struct json_object *cl)
{
	size_t nf;
	struct json_object *fs = jarr(cl, "formulas", &nf);
	struct table t;

	if (!fs || !nf)
		return;
	putchar('\n');
	tbl_init(&t, "llrl");
	tbl_cell(&t, "SOCKET");
	tbl_cell(&t, "FORMULA");
	tbl_cell(&t, "VALUE");
	tbl_cell(&t, "UNIT");
	for (size_t i = 0; i < nf; i++) {
		struct json_object *f = json_object_array_get_idx(fs, i);
		size_t ns;
		struct json_object *socks = jarr(f, "sockets", &ns);

		for (size_t s = 0; s < ns; s++) {
			struct json_object *so = json_object_array_get_idx(socks, s);
			double v;

			tbl_cell(&t, "%" PRIu64, ju64(so, "socket"));
			tbl_cell(&t, "%s", jstr(f, "name", "?"));
			if (jnum(so, "value", &v))
				tbl_cell(&t, "%.6g", v);
			else
				tbl_cell(&t, "-");
			tbl_cell(&t, "%s", jstr(f, "unit", "")[0]
				 ? jstr(f, "unit", "") : "count");
		}
	}
	tbl_print(&t, 0, 0);
}

/*
 * The counts of a claim as a table: one row per event and socket.  With
 * rt, the rate column is the change of the scaled count over the change
 * of time_enabled since the last call.  At a steady rate r the scaled
 * count is r x time_enabled after every tick, whether the claim ran in
 * it or was multiplexed out, so the rate holds steady even over windows
 * in which the claim did not run (the monotonic "estimate" only moves
 * when it runs).  Without rt, the rate is the average over the claim's
 * life.
 */
static void print_counts(struct json_object *cl, struct rates *rt)
{
	double en = 0, run = 0, rem;
	size_t ne, row = 0;
	struct json_object *evs = jarr(cl, "events", &ne);
	struct table t;
	char b[64], d[64];

	jnum(cl, "time_enabled_s", &en);
	jnum(cl, "time_running_s", &run);
	printf("claim %s", jstr(cl, "id", "?"));
	if (jstr(cl, "label", "")[0])
		printf(" \"%s\"", jstr(cl, "label", ""));
	printf(" %s; enabled %.2f s, running %.2f s", jstr(cl, "state", "?"), en, run);
	if (en > 0)
		printf(" (%.1f%%)", 100.0 * run / en);
	if (strcmp(jstr(cl, "state", ""), "released") != 0 &&
	    until_iso(jstr(cl, "expires_at", NULL), &rem))
		printf("; expires in %s", fmt_dur(rem, d, sizeof(d)));
	putchar('\n');
	tbl_init(&t, "llrrrr");
	tbl_cell(&t, "SOCKET");
	tbl_cell(&t, "EVENT");
	tbl_cell(&t, "CTR");
	tbl_cell(&t, "COUNT");
	tbl_cell(&t, "SCALED");
	tbl_cell(&t, rt ? "RATE/s" : "AVG RATE/s");
	for (size_t e = 0; e < ne; e++) {
		struct json_object *ev = json_object_array_get_idx(evs, e);
		size_t ns;
		struct json_object *socks = jarr(ev, "sockets", &ns);
		double ctr;

		for (size_t s = 0; s < ns; s++, row++) {
			struct json_object *so = json_object_array_get_idx(socks, s);
			double sc = row_scaled(so), rate = NAN;

			if (rt) {
				if (row >= rt->n) {
					rt->scaled = xrealloc(rt->scaled, (row + 1) * sizeof(double));
					rt->rate = xrealloc(rt->rate, (row + 1) * sizeof(double));
					for (size_t k = rt->n; k <= row; k++)
						rt->rate[k] = rt->scaled[k] = NAN;
					rt->n = row + 1;
				}
				if (rt->have && en > rt->enabled && isfinite(rt->scaled[row]) &&
				    isfinite(sc))
					rt->rate[row] = (sc - rt->scaled[row]) / (en - rt->enabled);
				rate = rt->rate[row];
				rt->scaled[row] = sc;
			} else if (en > 0) {
				rate = sc / en;
			}
			tbl_cell(&t, "%" PRIu64, ju64(so, "socket"));
			tbl_cell(&t, "%s", jstr(ev, "event", "?"));
			if (jnum(ev, "counter", &ctr))
				tbl_cell(&t, "%d", (int)ctr);
			else
				tbl_cell(&t, "-");
			tbl_cell(&t, "%" PRIu64, ju64(so, "count"));
			if (isfinite(sc))
				tbl_cell(&t, "%.0f", sc);
			else
				tbl_cell(&t, "-");
			tbl_cell(&t, "%s", fmt_si(rate, b, sizeof(b)));
		}
	}
	if (rt && en > rt->enabled) {
		rt->enabled = en;
		rt->have = true;
	}
	tbl_print(&t, 0, 0);
	print_formulas(cl);
}

static void rates_free(struct rates *rt)
{
	free(rt->scaled);
	free(rt->rate);
	memset(rt, 0, sizeof(*rt));
}

/* ---- claim ---------------------------------------------------------------- */

/* Releases a claim: the final counts.  Returns an exit status. */
static int release(struct ctl *c, const char *id, bool final_title)
{
	char path[160], eid[120];
	struct reply r;
	int rc;

	snprintf(path, sizeof(path), "/api/v1/claims/%s",
		 escape(id, eid, sizeof(eid)));
	rc = api(c, "DELETE", path, NULL, &r, 0);
	if (!rc) {
		if (c->json) {
			print_raw(&r);
		} else {
			printf("%s %s: final counts\n", final_title ? "\nreleased"
			       : "released", jstr(r.json, "id", id));
			print_counts(r.json, NULL);
		}
		fflush(stdout);
	}
	reply_free(&r);
	return rc;
}

/* The events of a claim as uncored_claim() takes them: argv joined with
 * commas (an argument may hold several already); malloc'd, or NULL. */
char *join_events(int argc, char **argv)
{
	size_t n = 1;
	char *s;

	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	if (n > 8192 || !(s = calloc(1, n)))
		return NULL;
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, argv[i]);
	}
	return s;
}

/* "/api/v1/claims/ID" into buf. */
static const char *claim_path(const char *id, char *buf, size_t len)
{
	char eid[120];

	snprintf(buf, len, "/api/v1/claims/%s", escape(id, eid, sizeof(eid)));
	return buf;
}

/* The watch loop of `claim --watch`; always ends by releasing. */
static int watch(struct ctl *c, const char *id, double every,
		 unsigned long count, double ttl)
{
	bool tty = isatty(STDOUT_FILENO);
	double now = mono_s(), next = now + every;
	double renew_at = now + ttl / 2;
	char path[128];
	struct rates rt = { 0 };
	unsigned long n = 0;
	int rc = 0;

	/* the counts at each refresh, read now (as uncored_read() does) */
	snprintf(path, sizeof(path), "/api/v1/claims/%s/now", id);
	while (!g_stop) {
		wait_until(next < renew_at ? next : renew_at, -1);
		if (g_stop)
			break;
		now = mono_s();
		if (now >= renew_at) {
			/* renew with the lease the claim has */
			if ((rc = uncored_renew(c->u, id, 0)) < 0) {
				warnx_("could not renew claim %s: %s", id,
				       uncored_error(c->u));
				rc = exit_of(rc);
				goto out;
			}
			renew_at = mono_s() + ttl / 2;
		}
		if (now >= next) {
			struct reply r;

			if ((rc = api(c, "GET", path, NULL, &r, 0))) {
				reply_free(&r);
				goto out;
			}
			if (c->json) {
				print_raw(&r);
			} else {
				if (tty)
					fputs("\033[H\033[2J", stdout);
				else if (n)
					putchar('\n');
				print_counts(r.json, &rt);
				if (tty)
					printf("\nevery %g s; Ctrl-C releases the claim\n", every);
			}
			reply_free(&r);
			if (!flush_out())
				break;
			if (++n == count)
				break;
			next += every;
			if (next < now)
				next = now + every;
		}
	}
	rc = release(c, id, !c->json);
out:
	rates_free(&rt);
	return rc;
}

int cmd_claim(struct ctl *c, int argc, char **argv)
{
	static const struct option lo[] = {
		COMMON_OPTS,
		{ "ttl", required_argument, NULL, 't' },
		{ "label", required_argument, NULL, 'l' },
		{ "export", no_argument, NULL, 'e' },
		{ "pinned", no_argument, NULL, 'p' },
		{ "watch", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'c' },
		{ "formula", required_argument, NULL, 'f' },
		{ 0 }
	};
	const struct command *cmd = find_command("claim");
	char formulas[2048] = "";
	unsigned long ttl = 0, count = 0;
	const char *label = "uncorectl";
	double every = 0;
	unsigned flags = 0;
	struct reply r;
	char id[64], path[96], *events;
	int opt, rc;

	getopt_reset();
	while ((opt = getopt_long(argc, argv, ":" COMMON_SHORT "t:l:epw:c:f:", lo,
				  NULL)) != -1) {
		switch (opt) {
		case 't':
			if ((rc = parse_uint(cmd, "--ttl", optarg, 1, 86400, &ttl)))
				return rc;
			break;
		case 'l':
			label = optarg;
			break;
		case 'e':
			flags |= UNCORED_EXPORT;
			break;
		case 'p':
			flags |= UNCORED_PINNED;
			break;
		case 'w':
			if ((rc = parse_secs(cmd, "--watch", optarg, 0.01, 3600, &every)))
				return rc;
			break;
		case 'c':
			if ((rc = parse_uint(cmd, "--count", optarg, 1, 1000000000, &count)))
				return rc;
			break;
		case 'f':
			if (!*optarg || strchr(optarg, ','))
				return usage_error(cmd, "--formula takes one formula "
						   "name (see '%s formulas')", prog);
			if (strlen(formulas) + strlen(optarg) + 2 > sizeof(formulas))
				return usage_error(cmd, "too many --formula");
			if (formulas[0])
				strcat(formulas, ",");
			strcat(formulas, optarg);
			break;
		default:
			PARSE_COMMON(c, cmd, argc, argv, opt);
		}
	}
	if (optind >= argc && !formulas[0])
		return usage_error(cmd, "name at least one event (see '%s events') "
				   "or --formula (see '%s formulas')", prog, prog);
	if (count && !every)
		return usage_error(cmd, "--count needs --watch");
	if ((rc = ctl_open(c)))
		return rc;
	if (!(events = join_events(argc - optind, argv + optind)))
		return usage_error(cmd, "the event names are too long");
	/* from here a signal cannot lose the claim: it only ends the watch */
	if (every)
		live_signals();
	/* without --watch the claim is for the commands that follow (its
	 * id is printed): it outlives uncorectl, for its lease */
	if (!every)
		flags |= UNCORED_KEEP;
	if ((rc = uncored_set_label(c->u, label)) < 0 ||
	    (rc = formulas[0]
	     ? uncored_claim_formulas(c->u, events, formulas, (unsigned)ttl,
				      flags, id, sizeof(id))
	     : uncored_claim(c->u, events, (unsigned)ttl, flags, id,
			     sizeof(id))) < 0) {
		warnx_("%s", uncored_error(c->u));
		free(events);
		return exit_of(rc);
	}
	free(events);
	/* the claim as the daemon shows it: --json, and its lease */
	if ((rc = api(c, "GET", claim_path(id, path, sizeof(path)), NULL, &r, 0)))
		goto out;
	if (c->json)
		print_raw(&r);
	else if (!every)
		printf("%s\n", id);
	else
		printf("claim %s created, %" PRIu64 " s lease renewed while "
		       "watching; Ctrl-C releases it\n", id, ju64(r.json, "ttl_s"));
	if (!flush_out() && !every)
		rc = EXIT_DAEMON;
	if (every) {
		double t = (double)ju64(r.json, "ttl_s");

		rc = watch(c, id, every, count, t >= 1 ? t : 1);
	}
out:
	reply_free(&r);
	return rc;
}

/* ---- claims, release ----------------------------------------------------- */

int cmd_claims(struct ctl *c, int argc, char **argv)
{
	const struct command *cmd = find_command("claims");
	struct json_object *arr;
	struct reply r;
	struct table t;
	size_t n;
	bool show;
	int rc;

	rc = simple_get(c, cmd, argc, argv, "/api/v1/claims", &r, &show);
	if (!show)
		goto out;
	arr = jarr(r.json, "claims", &n);
	if (!n) {
		printf("no claims\n");
		goto out;
	}
	tbl_init(&t, "llrrlrrrl");
	tbl_cell(&t, "ID");
	tbl_cell(&t, "STATE");
	tbl_cell(&t, "UID");
	tbl_cell(&t, "PID");
	tbl_cell(&t, "LABEL");
	tbl_cell(&t, "TTL");
	tbl_cell(&t, "EXPIRES");
	tbl_cell(&t, "RUNNING");
	tbl_cell(&t, "EVENTS");
	for (size_t i = 0; i < n; i++) {
		struct json_object *cl = json_object_array_get_idx(arr, i), *evs;
		char names[400] = "", b[64];
		double en = 0, run = 0, rem;
		size_t ne;

		evs = jarr(cl, "events", &ne);
		for (size_t e = 0; e < ne; e++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names),
				 "%s%s", e ? "," : "",
				 jstr(json_object_array_get_idx(evs, e), "event", "?"));
		jnum(cl, "time_enabled_s", &en);
		jnum(cl, "time_running_s", &run);
		tbl_cell(&t, "%s", jstr(cl, "id", "?"));
		tbl_cell(&t, "%s", jstr(cl, "state", "?"));
		tbl_cell(&t, "%" PRIu64, ju64(cl, "uid"));
		tbl_cell(&t, "%" PRIu64, ju64(cl, "pid"));
		tbl_cell(&t, "%s", jstr(cl, "label", "")[0] ? jstr(cl, "label", "") : "-");
		tbl_cell(&t, "%" PRIu64 " s", ju64(cl, "ttl_s"));
		tbl_cell(&t, "%s", until_iso(jstr(cl, "expires_at", NULL), &rem)
			 ? fmt_dur(rem, b, sizeof(b)) : "?");
		if (en > 0)
			tbl_cell(&t, "%.0f%%", 100.0 * run / en);
		else
			tbl_cell(&t, "-");
		tbl_cell(&t, "%s", names);
	}
	tbl_print(&t, 0, term_cols());
out:
	reply_free(&r);
	return rc;
}

int cmd_release(struct ctl *c, int argc, char **argv)
{
	static const struct option lo[] = { COMMON_OPTS, { 0 } };
	const struct command *cmd = find_command("release");
	const char *id;
	int opt, rc;

	getopt_reset();
	while ((opt = getopt_long(argc, argv, ":" COMMON_SHORT, lo, NULL)) != -1)
		PARSE_COMMON(c, cmd, argc, argv, opt);
	if (optind >= argc)
		return usage_error(cmd, "which claim? (see '%s claims')", prog);
	id = argv[optind++];
	if ((rc = no_args(cmd, argc, argv)))
		return rc;
	if (!id[0] || strlen(id) > 32)
		return usage_error(cmd, "\"%s\" is not a claim id", id);
	if ((rc = ctl_open(c)))
		return rc;
	return release(c, id, false);
}
