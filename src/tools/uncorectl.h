/*
 * uncorectl.h - what the files of uncorectl share.  uncorectl.c has
 * main(), the command table and help; ctl_common.c the helpers below
 * (JSON, formatting, the table, requests, waiting, options); the
 * commands are one family per file: ctl_info.c (status, topology,
 * events, formulas), ctl_claims.c (claim, claims, release), ctl_top.c,
 * ctl_groups.c (groups, and the plan `run` counts) and ctl_run.c.
 */
#ifndef UNCORED_UNCORECTL_H
#define UNCORED_UNCORECTL_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;
struct uncored;

enum {
	EXIT_DAEMON = 1,	/* the daemon answered with an error */
	EXIT_USAGE = 2,
	EXIT_CONNECT = 3,	/* no answer from the daemon */
};

/* The program's name, for messages. */
extern const char *prog;

/* A connection to the daemon and the output mode. */
struct ctl {
	const char *socket;	/* control socket (unless url) */
	const char *url;	/* http://HOST:PORT, or NULL */
	bool json;
	struct uncored *u;	/* the connection (libuncored) */
};

/* One answer: status, raw body and, when it parses, its JSON. */
struct reply {
	long status;
	char *body;
	size_t len;
	struct json_object *json;
};

/* ---- ctl_common.c: memory, messages, JSON, formatting ---------------- */

/* Frees r's body and JSON and zeroes it. */
void reply_free(struct reply *r);
/* "uncorectl: " and the message on stderr. */
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* realloc() that ends uncorectl (EXIT_DAEMON) when out of memory. */
void *xrealloc(void *p, size_t n);
/* The monotonic clock, in seconds. */
double mono_s(void);
/* The member k of object o, or NULL. */
struct json_object *jget(struct json_object *o, const char *k);
/* The string k of o, or def when absent, null or not a string. */
const char *jstr(struct json_object *o, const char *k, const char *def);
/* The number k of o into *out; false when absent or null. */
bool jnum(struct json_object *o, const char *k, double *out);
/* The integer k of o, or 0. */
uint64_t ju64(struct json_object *o, const char *k);
/* The boolean k of o; false when absent. */
bool jbool(struct json_object *o, const char *k);
/* The array k of o with its length in *n (NULL and 0 when absent). */
struct json_object *jarr(struct json_object *o, const char *k, size_t *n);
/* v to 3 significant digits with an SI suffix, into buf. */
const char *fmt_si(double v, char *buf, size_t len);
/* A duration for people (42 s, 3m 05s, 2h 10m, 4d 03h), into buf. */
const char *fmt_dur(double s, char *buf, size_t len);
/* Seconds from now until an ISO 8601 UTC time; false if it is not one. */
bool until_iso(const char *iso, double *secs);
/* Columns of the terminal on stdout, or 0 when it is not one. */
unsigned term_cols(void);

/* ---- ctl_common.c: the aligned table ---------------------------------- */

/*
 * An aligned table: cells are added left to right, row by row; align
 * has one letter per column, 'l' or 'r'.  The last column is not padded.
 */
struct table {
	const char *align;
	unsigned ncol;
	size_t n, cap;
	char **cell;
};

#define TBL_MAXCOL 64

/* An empty table with one column per letter of align. */
void tbl_init(struct table *t, const char *align);
/* Adds the next cell, printf-style. */
void tbl_cell(struct table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints t to f, indented, its last column cut at maxw (0: not); frees t. */
void tbl_fprint(struct table *t, FILE *f, unsigned indent, unsigned maxw);
/* tbl_fprint() to stdout. */
void tbl_print(struct table *t, unsigned indent, unsigned maxw);

/* ---- ctl_common.c: requests (libuncored) ------------------------------ */

#define Q_QUIET 1u	/* the caller reports failures itself */

/* s percent-encoded for a path or a query, into buf. */
const char *escape(const char *s, char *buf, size_t len);
/* Connects c; 0, or EXIT_CONNECT after saying why. */
int ctl_open(struct ctl *c);
/* Disconnects c (none: nothing). */
void ctl_close(struct ctl *c);
/* The exit status of a library call's failure rc (-errno). */
int exit_of(int rc);
/* One request, any status into r; 0, or EXIT_CONNECT when no answer. */
int http(struct ctl *c, const char *method, const char *path,
	 const char *body, struct reply *r, unsigned flags);
/* Prints the daemon's error message for a non-2xx answer. */
void report_error(const struct ctl *c, const char *method, const char *path,
		  const struct reply *r);
/* A request whose answer must be 2xx JSON; 0, or an exit status. */
int api(struct ctl *c, const char *method, const char *path,
	const char *body, struct reply *r, unsigned flags);
/* --json: the daemon's JSON, exactly as sent, as one line. */
void print_raw(const struct reply *r);

/* ---- ctl_common.c: signals and waiting (claim --watch, top) ----------- */

/* The signal that asks a live command to stop, or 0. */
extern volatile sig_atomic_t g_stop;

/* SIGINT/SIGTERM/SIGHUP set g_stop, and only within wait_until(). */
void live_signals(void);
/* Waits until deadline, a signal or a key on keyfd; the key, or 0. */
int wait_until(double deadline, int keyfd);
/* Flushes a frame; false when stdout is gone (a closed pipe). */
bool flush_out(void);

/* ---- ctl_common.c: option parsing ------------------------------------- */

/* Options every command takes, also accepted before the command. */
#define COMMON_OPTS \
	{ "json", no_argument, NULL, 'j' }, \
	{ "socket", required_argument, NULL, 's' }, \
	{ "url", required_argument, NULL, 'u' }, \
	{ "help", no_argument, NULL, 'h' }
#define COMMON_SHORT "js:u:h"

struct command {
	const char *name;
	int (*run)(struct ctl *, int, char **);
	const char *synopsis;
	const char *brief;	/* one line for the command list */
	const char *summary;
	const char *details;	/* options */
};

/* A usage mistake on stderr (cmd: NULL before the command); EXIT_USAGE. */
int usage_error(const struct command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A common option: 0, -1 (help printed: exit 0) or a usage exit status. */
int common_opt(struct ctl *c, const struct command *cmd, int opt,
	       char **argv);
/* Seconds in min..max from s, option opt; 0, or a usage exit status. */
int parse_secs(const struct command *cmd, const char *opt, const char *s,
	       double min, double max, double *out);
/* An integer in min..max from s, option opt; 0, or a usage exit status. */
int parse_uint(const struct command *cmd, const char *opt, const char *s,
	       unsigned long min, unsigned long max, unsigned long *out);
/* Rejects positional arguments from argv[optind] on. */
int no_args(const struct command *cmd, int argc, char **argv);
/* getopt_long() from the start of a command's arguments. */
void getopt_reset(void);
/* A read-only command without arguments: options, connect, GET path. */
int simple_get(struct ctl *c, const struct command *cmd, int argc,
	       char **argv, const char *path, struct reply *r, bool *show);

/* In a command's getopt loop: handles a common option, returning on help
 * (0) or a usage error. */
#define PARSE_COMMON(c, cmd, argc, argv, opt) do { \
		int r_ = common_opt(c, cmd, opt, argv); \
		if (r_) \
			return r_ < 0 ? 0 : r_; \
	} while (0)

/* ---- ctl_claims.c: shared with run ------------------------------------ */

/* argv joined with commas, as uncored_claim() takes events; malloc'd. */
char *join_events(int argc, char **argv);

/* ---- ctl_groups.c: the plan, shared with run -------------------------- */

/*
 * A named group as the daemon resolves it (GET /api/v1/groups): its
 * sources, each the sum of some of the claim's events times their scale,
 * and its figures over them (src/plat/group.h has the forms).
 */
enum gkind { GK_SUM, GK_PER_SECOND, GK_RATIO, GK_ONE_MINUS_RATIO,
	     GK_IN_FLIGHT, GK_LATENCY, GK_ABSENT };

#define RUN_MAXSOCK 64

struct gfig {
	const char *name, *unit;	/* into the group's JSON */
	enum gkind kind;	/* GK_ABSENT: not counted here */
	const char *reason;	/* GK_ABSENT: why (into the JSON) */
	unsigned of, over, per;	/* bitmaps of source indices */
	double k;		/* the factor on sum(of) (GK_RATIO) */
};

/* What `run` counts: the claim's events in order, and the group's
 * figures over them (none without -g). */
struct plan {
	char **ev;
	size_t nev;
	double *scale;		/* per event: the source's scale */
	int *src;		/* per event: its source, or -1 (-e) */
	double *isc;		/* [event * RUN_MAXSOCK + socket]: instances
				   present / counted (a :split event) */
	struct gfig *fig;
	size_t nfig;
	const char *group;	/* the group's name as the daemon spells it */
	struct json_object *gj;	/* the group's JSON (owns the names) */
};

/* Frees what p holds and zeroes it. */
void plan_free(struct plan *p);
/* Adds event name (len bytes) to p unless it is there already. */
void plan_add(struct plan *p, const char *name, size_t len, double scale,
	      int src, struct json_object *isc);
/* Group name from the daemon into p; 0, or an exit status after saying why. */
int plan_group(struct ctl *c, struct plan *p, const char *name);
/* Figure f over the events' values w[] of socket k (< 0: all) in secs. */
double fig_value(const struct plan *p, const struct gfig *f, const double *w,
		 unsigned ns, int k, double secs);
/* A figure's value in unit for people, into buf. */
const char *fig_text(const char *unit, double v, char *buf, size_t len);

/* ---- the commands: each returns uncorectl's exit status --------------- */

int cmd_status(struct ctl *c, int argc, char **argv);	/* ctl_info.c */
int cmd_topology(struct ctl *c, int argc, char **argv);
int cmd_events(struct ctl *c, int argc, char **argv);
int cmd_formulas(struct ctl *c, int argc, char **argv);
int cmd_claim(struct ctl *c, int argc, char **argv);	/* ctl_claims.c */
int cmd_claims(struct ctl *c, int argc, char **argv);
int cmd_release(struct ctl *c, int argc, char **argv);
int cmd_top(struct ctl *c, int argc, char **argv);	/* ctl_top.c */
int cmd_groups(struct ctl *c, int argc, char **argv);	/* ctl_groups.c */
int cmd_run(struct ctl *c, int argc, char **argv);	/* ctl_run.c */

/* ---- uncorectl.c: the command table and help -------------------------- */

/* The command called name, or NULL. */
const struct command *find_command(const char *name);
/* The usage of uncorectl: on stdout for --help, stderr for a mistake. */
void main_help(FILE *f);
/* A command's --help, on stdout. */
void command_help(const struct command *cmd);

#endif
