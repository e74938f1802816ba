/*
 * uncorectl.c - the command-line client of uncored (doc/design.md section 8).
 *
 * Every command is one or a few requests to the daemon's control socket
 * (--url talks to a TCP listener instead, which serves only the
 * read-only routes) and a rendering of the JSON answer (json-c) as an
 * aligned table, or, with --json, the daemon's JSON as it came.  It is a
 * client of libuncored (include/uncored.h), so the command line and the
 * library cannot drift: the connection, its error messages and the
 * errno of every refusal are the library's, claims are made and renewed
 * with uncored_claim() and uncored_renew(), a watched claim is read as
 * uncored_read() reads it (GET /api/v1/claims/ID/now), and every other
 * route goes through uncored_request().  The two live commands, `claim
 * --watch` and `top`, poll on a timer; they block SIGINT/SIGTERM/SIGHUP
 * and take them only while waiting (ppoll), so a signal can never cut a
 * request in half and a watched claim is always released.  `run` claims,
 * runs a program and reports the whole run through the library's region
 * report (one region for the run), with the sums over sockets, a named
 * group's figures (GET /api/v1/groups) and a time line beside it.
 *
 * Exit status: 0 success, 1 the daemon refused or failed (its message is
 * printed), 2 usage, 3 the daemon cannot be reached; `run` exits with the
 * program's status, or 125/126/127 (as env(1)) when it could not run it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "build-info.h"
#include "uncored.h"

#ifndef RUNSTATEDIR
#define RUNSTATEDIR "/run"
#endif
#define DEFAULT_SOCKET RUNSTATEDIR "/uncored/uncored.sock"

enum {
	EXIT_DAEMON = 1,	/* the daemon answered with an error */
	EXIT_USAGE = 2,
	EXIT_CONNECT = 3,	/* no answer from the daemon */
};


static const char *prog = "uncorectl";

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

static void reply_free(struct reply *r)
{
	free(r->body);
	json_object_put(r->json);
	memset(r, 0, sizeof(*r));
}

static void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warnx_(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		warnx_("out of memory");
		exit(EXIT_DAEMON);
	}
	return q;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- JSON access ---------------------------------------------------- */

static struct json_object *jget(struct json_object *o, const char *k)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* The string k of o, or def when absent, null or not a string. */
static const char *jstr(struct json_object *o, const char *k, const char *def)
{
	struct json_object *v = jget(o, k);

	return json_object_is_type(v, json_type_string)
	       ? json_object_get_string(v) : def;
}

/* A number; false when absent or null. */
static bool jnum(struct json_object *o, const char *k, double *out)
{
	struct json_object *v = jget(o, k);

	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return false;
	*out = json_object_get_double(v);
	return true;
}

static uint64_t ju64(struct json_object *o, const char *k)
{
	struct json_object *v = jget(o, k);

	return json_object_is_type(v, json_type_int) ? json_object_get_uint64(v) : 0;
}

static bool jbool(struct json_object *o, const char *k)
{
	struct json_object *v = jget(o, k);

	return json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

/* The array k of o (length 0 when absent). */
static struct json_object *jarr(struct json_object *o, const char *k, size_t *n)
{
	struct json_object *v = jget(o, k);

	if (!json_object_is_type(v, json_type_array)) {
		*n = 0;
		return NULL;
	}
	*n = json_object_array_length(v);
	return v;
}

/* ---- formatting ----------------------------------------------------- */

/* 3 significant digits with an SI suffix: 2.99M, 150M, 12.3k, 0.500. */
static const char *fmt_si(double v, char *buf, size_t len)
{
	static const char sfx[] = " kMGTPE";
	double a = fabs(v);
	int k = 0;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	while (a >= 999.5 && k < 6) {
		a /= 1000;
		v /= 1000;
		k++;
	}
	snprintf(buf, len, a < 9.995 ? "%.2f%.*s" : a < 99.95 ? "%.1f%.*s"
		 : "%.0f%.*s", v, k ? 1 : 0, &sfx[k]);
	return buf;
}

/* A duration for people: 42 s, 3m 05s, 2h 10m, 4d 03h. */
static const char *fmt_dur(double s, char *buf, size_t len)
{
	long t = s > 0 ? (long)(s + 0.5) : 0;

	if (t < 60)
		snprintf(buf, len, "%ld s", t);
	else if (t < 3600)
		snprintf(buf, len, "%ldm %02lds", t / 60, t % 60);
	else if (t < 86400)
		snprintf(buf, len, "%ldh %02ldm", t / 3600, t % 3600 / 60);
	else
		snprintf(buf, len, "%ldd %02ldh", t / 86400, t % 86400 / 3600);
	return buf;
}

/* Seconds from now until an ISO 8601 UTC time ("2026-11-21T19:59:52Z"). */
static bool until_iso(const char *iso, double *secs)
{
	struct tm tm = { 0 };
	const char *end;

	if (!iso || !(end = strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm)) || *end)
		return false;
	*secs = difftime(timegm(&tm), time(NULL));
	return true;
}

/* Columns of the terminal on stdout, or 0 when it is not one. */
static unsigned term_cols(void)
{
	struct winsize ws;

	if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0)
		return 0;
	return ws.ws_col;
}

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

static void tbl_init(struct table *t, const char *align)
{
	memset(t, 0, sizeof(*t));
	t->align = align;
	t->ncol = (unsigned)strlen(align);
}

static void tbl_cell(struct table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tbl_cell(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->cell = xrealloc(t->cell, t->cap * sizeof(*t->cell));
	}
	t->cell[t->n++] = xstrdup(buf);
}

#define TBL_MAXCOL 64

/* Prints the table to f with indent spaces before each row; frees it.  A
 * last column wider than maxw (0: no limit) is cut with "...".  Columns
 * past TBL_MAXCOL are left out. */
static void tbl_fprint(struct table *t, FILE *f, unsigned indent,
		       unsigned maxw)
{
	size_t w[TBL_MAXCOL] = { 0 };
	unsigned nc = t->ncol < TBL_MAXCOL ? t->ncol : TBL_MAXCOL;

	for (size_t i = 0; i < t->n; i++)
		if (i % t->ncol < nc && strlen(t->cell[i]) > w[i % t->ncol])
			w[i % t->ncol] = strlen(t->cell[i]);
	for (size_t r = 0; r * t->ncol < t->n; r++) {
		size_t used = indent;

		fprintf(f, "%*s", (int)indent, "");
		for (unsigned c = 0; c < nc && r * t->ncol + c < t->n; c++) {
			const char *s = t->cell[r * t->ncol + c];
			bool last = c + 1 == nc;

			if (last && t->align[c] == 'r') {
				fprintf(f, "%*s", (int)w[c], s);
			} else if (last) {
				size_t l = strlen(s);

				if (maxw && used + l > maxw && maxw > used + 3)
					fprintf(f, "%.*s...", (int)(maxw - used - 3), s);
				else
					fputs(s, f);
			} else if (t->align[c] == 'r') {
				fprintf(f, "%*s  ", (int)w[c], s);
			} else {
				fprintf(f, "%-*s  ", (int)w[c], s);
			}
			used += w[c] + 2;
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < t->n; i++)
		free(t->cell[i]);
	free(t->cell);
	memset(t, 0, sizeof(*t));
}

static void tbl_print(struct table *t, unsigned indent, unsigned maxw)
{
	tbl_fprint(t, stdout, indent, maxw);
}

/* ---- HTTP (libuncored) ---------------------------------------------- */

static const char *where(const struct ctl *c)
{
	return c->url ? c->url : c->socket;
}

/* s with every byte outside [A-Za-z0-9-._~] percent-encoded, into buf. */
static const char *escape(const char *s, char *buf, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (; *s && n + 4 < len; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr("-._~", ch)) {
			buf[n++] = (char)ch;
		} else {
			buf[n++] = '%';
			buf[n++] = hex[ch >> 4];
			buf[n++] = hex[ch & 15];
		}
	}
	buf[n] = '\0';
	return buf;
}

/* Connects; the library's message says why not (and what to do). */
static int ctl_open(struct ctl *c)
{
	if (!(c->u = uncored_connect(where(c)))) {
		warnx_("%s", uncored_error(NULL));
		return EXIT_CONNECT;
	}
	return 0;
}

static void ctl_close(struct ctl *c)
{
	uncored_disconnect(c->u);
	c->u = NULL;
}

/* The exit status of a library call's failure: the daemon refused, or
 * there was no (sensible) answer. */
static int exit_of(int rc)
{
	switch (-rc) {
	case ENOTCONN: case ECONNRESET: case ECONNABORTED: case ECONNREFUSED:
	case ETIMEDOUT:
	case EPROTO:
		return EXIT_CONNECT;
	default:
		return EXIT_DAEMON;
	}
}

#define Q_QUIET 1u	/* the caller reports failures itself */

/*
 * One request.  method is "GET", "POST" or "DELETE"; body (POST) may be
 * NULL for an empty one.  Returns 0 with r filled (any status), or
 * EXIT_CONNECT when no answer came (reported unless Q_QUIET).
 */
static int http(struct ctl *c, const char *method, const char *path,
		const char *body, struct reply *r, unsigned flags)
{
	int status = 0;
	size_t len = 0;
	char *resp = NULL;

	memset(r, 0, sizeof(*r));
	uncored_request(c->u, method, path, body, &status, &resp, &len);
	if (!resp) {
		if (!(flags & Q_QUIET))
			warnx_("%s", uncored_error(c->u));
		return EXIT_CONNECT;
	}
	r->status = status;
	r->body = resp;
	r->len = len;
	r->json = json_tokener_parse(resp);
	return 0;
}

/* Prints the daemon's error message for a non-2xx answer. */
static void report_error(const struct ctl *c, const char *method,
			 const char *path, const struct reply *r)
{
	struct json_object *err = jget(r->json, "error");
	const char *msg = jstr(err, "message", NULL);

	if (msg) {
		warnx_("%s", msg);
		return;
	}
	warnx_("%s %s on %s: HTTP %ld%s%.*s", method, path, where(c), r->status,
	       r->len ? ": " : "", r->body ? (int)strcspn(r->body, "\n") : 0,
	       r->body ? r->body : "");
}

/*
 * A request whose answer must be 2xx JSON.  Returns 0, or an exit status
 * after printing why (unless Q_QUIET).
 */
static int api(struct ctl *c, const char *method, const char *path,
	       const char *body, struct reply *r, unsigned flags)
{
	int rc = http(c, method, path, body, r, flags);

	if (rc)
		return rc;
	if (r->status < 200 || r->status > 299) {
		if (!(flags & Q_QUIET))
			report_error(c, method, path, r);
		return EXIT_DAEMON;
	}
	if (!json_object_is_type(r->json, json_type_object)) {
		if (!(flags & Q_QUIET))
			warnx_("%s %s on %s: the answer is not a JSON object",
			       method, path, where(c));
		return EXIT_DAEMON;
	}
	return 0;
}

/* --json: the daemon's JSON, exactly as sent, as one line. */
static void print_raw(const struct reply *r)
{
	size_t n = r->len;

	while (n && (r->body[n - 1] == '\n' || r->body[n - 1] == '\r'))
		n--;
	fwrite(r->body, 1, n, stdout);
	putchar('\n');
}

/* ---- signals and waiting (claim --watch, top) ------------------------- */

static volatile sig_atomic_t g_stop;
static sigset_t g_waitmask;	/* the mask to wait with: signals open */

static void on_signal(int sig)
{
	g_stop = sig;
}

/* From now on SIGINT/SIGTERM/SIGHUP only set g_stop, and only while
 * wait_until() waits; SIGPIPE turns into write errors. */
static void live_signals(void)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &g_waitmask);
	sigdelset(&g_waitmask, SIGINT);
	sigdelset(&g_waitmask, SIGTERM);
	sigdelset(&g_waitmask, SIGHUP);
}

/*
 * Waits until the monotonic time deadline, a signal, or (keyfd >= 0) a
 * key: returns the key read, or 0.
 */
static int wait_until(double deadline, int keyfd)
{
	/* at least one ppoll(), so pending signals are seen even when the
	 * caller is behind its schedule */
	do {
		double left = deadline - mono_s();
		struct pollfd pfd = { .fd = keyfd, .events = POLLIN };
		struct timespec ts;
		int n;

		if (left < 0)
			left = 0;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		n = ppoll(&pfd, keyfd >= 0 ? 1 : 0, &ts, &g_waitmask);
		if (n > 0 && (pfd.revents & POLLIN)) {
			unsigned char ch;

			if (read(keyfd, &ch, 1) == 1)
				return ch;
		} else if (n > 0) {
			keyfd = -1;	/* hang-up on the terminal: stop polling it */
		}
	} while (!g_stop && mono_s() < deadline);
	return 0;
}

/* Terminal keys for `top`: no line buffering, no echo; signals intact. */
struct keys {
	bool on;
	struct termios saved;
};

static void keys_on(struct keys *k)
{
	struct termios t;

	k->on = false;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) ||
	    tcgetattr(STDIN_FILENO, &k->saved) < 0)
		return;
	t = k->saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	k->on = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
}

static void keys_off(struct keys *k)
{
	if (k->on)
		tcsetattr(STDIN_FILENO, TCSANOW, &k->saved);
	k->on = false;
}

/* Flushes a frame; false when stdout is gone (a closed pipe). */
static bool flush_out(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return true;
	if (errno != EPIPE)
		warnx_("writing the output: %s", strerror(errno));
	return false;
}

/* ---- option parsing ---------------------------------------------------- */

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

static const struct command *find_command(const char *name);
static void main_help(FILE *f);

static int usage_error(const struct command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int usage_error(const struct command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s%s%s: ", prog, cmd ? " " : "", cmd ? cmd->name : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cmd)
		fprintf(stderr, "usage: %s %s %s\nTry '%s %s --help'.\n", prog,
			cmd->name, cmd->synopsis, prog, cmd->name);
	else
		fprintf(stderr, "Try '%s --help'.\n", prog);
	return EXIT_USAGE;
}

static const char common_help[] =
	"  -j, --json         print the daemon's JSON instead of a table\n"
	"  -s, --socket PATH  control socket (default $UNCORED_SOCKET, else\n"
	"                     " DEFAULT_SOCKET ")\n"
	"  -u, --url URL      talk to a TCP listener, http://HOST:PORT\n"
	"                     (read-only commands only)\n"
	"  -h, --help         this help\n";

static void command_help(const struct command *cmd)
{
	printf("usage: %s %s %s\n\n%s\n", prog, cmd->name, cmd->synopsis,
	       cmd->summary);
	if (cmd->details && cmd->details[0])
		printf("\n%s", cmd->details);
	printf("\nCommon options:\n%s", common_help);
}

static int set_url(struct ctl *c, const struct command *cmd, const char *u)
{
	size_t n = strlen(u);
	static char buf[512];

	if ((strncmp(u, "http://", 7) != 0 && strncmp(u, "https://", 8) != 0) ||
	    n >= sizeof(buf))
		return usage_error(cmd, "--url \"%s\": expected http://HOST:PORT", u);
	memcpy(buf, u, n + 1);
	while (n > 8 && buf[n - 1] == '/')
		buf[--n] = '\0';
	c->url = buf;
	return 0;
}

/* Handles a common option; 0, -1 (help printed: exit 0) or a usage
 * exit status. */
static int common_opt(struct ctl *c, const struct command *cmd, int opt,
		      char **argv)
{
	switch (opt) {
	case 'j':
		c->json = true;
		return 0;
	case 's':
		if (!optarg[0])
			return usage_error(cmd, "--socket needs a path");
		c->socket = optarg;
		c->url = NULL;
		return 0;
	case 'u':
		return set_url(c, cmd, optarg);
	case 'h':
		if (cmd)
			command_help(cmd);
		else
			main_help(stdout);
		return -1;
	case ':':
		return usage_error(cmd, "option '%s' needs an argument",
				   argv[optind - 1]);
	default:
		if (optopt)
			return usage_error(cmd, "unknown option '-%c'", optopt);
		return usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
	}
}

static int parse_secs(const struct command *cmd, const char *opt,
		      const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < min || v > max)
		return usage_error(cmd, "%s \"%s\": expected seconds in %g..%g",
				   opt, s, min, max);
	*out = v;
	return 0;
}

static int parse_uint(const struct command *cmd, const char *opt,
		      const char *s, unsigned long min, unsigned long max,
		      unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *s == '-' || *s == '+' || *end || errno || v < min || v > max)
		return usage_error(cmd, "%s \"%s\": expected an integer in %lu..%lu",
				   opt, s, min, max);
	*out = v;
	return 0;
}

/* Rejects positional arguments from first on (argv[optind...]). */
static int no_args(const struct command *cmd, int argc, char **argv)
{
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	return 0;
}

#define PARSE_COMMON(c, cmd, argc, argv, opt) do { \
		int r_ = common_opt(c, cmd, opt, argv); \
		if (r_) \
			return r_ < 0 ? 0 : r_; \
	} while (0)

static void getopt_reset(void)
{
	optind = 0;	/* GNU: full reinitialisation */
	opterr = 0;
}

/*
 * The start of a read-only command that takes no arguments: parses the
 * common options, connects, GETs path into *r and, with --json, prints it
 * as it came.  *show is true when the caller still has to render r.
 * Returns the command's exit status so far; the caller frees r.
 */
static int simple_get(struct ctl *c, const struct command *cmd, int argc,
		      char **argv, const char *path, struct reply *r,
		      bool *show)
{
	static const struct option lo[] = { COMMON_OPTS, { 0 } };
	int opt, rc;

	memset(r, 0, sizeof(*r));
	*show = false;
	getopt_reset();
	while ((opt = getopt_long(argc, argv, ":" COMMON_SHORT, lo, NULL)) != -1)
		PARSE_COMMON(c, cmd, argc, argv, opt);
	if ((rc = no_args(cmd, argc, argv)) || (rc = ctl_open(c)))
		return rc;
	if ((rc = api(c, "GET", path, NULL, r, 0)))
		return rc;
	if (c->json)
		print_raw(r);
	else
		*show = true;
	return 0;
}

/* ---- status ------------------------------------------------------------ */

static int cmd_status(struct ctl *c, int argc, char **argv)
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

static int cmd_topology(struct ctl *c, int argc, char **argv)
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

static int cmd_events(struct ctl *c, int argc, char **argv)
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
static int cmd_formulas(struct ctl *c, int argc, char **argv)
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
static char *join_events(int argc, char **argv)
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

static int cmd_claim(struct ctl *c, int argc, char **argv)
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

static int cmd_claims(struct ctl *c, int argc, char **argv)
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

static int cmd_release(struct ctl *c, int argc, char **argv)
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

/* ---- top -------------------------------------------------------------------- */

#define TOP_LAT "memory_read_latency_all_seconds"

static void top_frame(struct json_object *m, const char *platform, bool tty,
		      double every)
{
	size_t ns;
	struct json_object *socks = jarr(m, "sockets", &ns);
	struct table t;
	char ts[32] = "?";
	double tm;
	bool lat = false;

	if (jnum(m, "time", &tm)) {
		time_t s = (time_t)tm;
		struct tm lt;

		localtime_r(&s, &lt);
		strftime(ts, sizeof(ts), "%H:%M:%S", &lt);
	}
	/* the read latency column where the daemon serves the family
	 * (doc/metrics.md "Memory read latency"): the last interval's
	 * mean over all the socket's reads, "-" for a socket without one */
	for (size_t s = 0; s < ns; s++)
		if (json_object_object_get_ex(json_object_array_get_idx(socks, s),
					      TOP_LAT, NULL))
			lat = true;
	printf("uncored on %s, sample %" PRIu64 " at %s", platform,
	       ju64(m, "seq"), ts);
	if (tty)
		printf("  (every %g s; q quits)", every);
	putchar('\n');
	tbl_init(&t, lat ? "rrrrrr" : "rrrrr");
	tbl_cell(&t, "SOCKET");
	tbl_cell(&t, "DRAM READ GB/s");
	tbl_cell(&t, "DRAM WRITE GB/s");
	if (lat)
		tbl_cell(&t, "READ LATENCY ns");
	tbl_cell(&t, "LLC HIT %%");
	tbl_cell(&t, "UNCORE GHz");
	for (size_t s = 0; s < ns; s++) {
		struct json_object *so = json_object_array_get_idx(socks, s);
		double v;

		tbl_cell(&t, "%" PRIu64, ju64(so, "socket"));
		if (jnum(so, "dram_read_bytes_per_second", &v))
			tbl_cell(&t, "%.2f", v / 1e9);
		else
			tbl_cell(&t, "-");
		if (jnum(so, "dram_write_bytes_per_second", &v))
			tbl_cell(&t, "%.2f", v / 1e9);
		else
			tbl_cell(&t, "-");
		if (lat && jnum(so, TOP_LAT, &v))
			tbl_cell(&t, "%.1f", v * 1e9);
		else if (lat)
			tbl_cell(&t, "-");
		if (jnum(so, "llc_hit_ratio", &v))
			tbl_cell(&t, "%.2f", v * 100);
		else
			tbl_cell(&t, "-");
		if (jnum(so, "clock_hertz", &v))
			tbl_cell(&t, "%.3f", v / 1e9);
		else
			tbl_cell(&t, "-");
	}
	tbl_print(&t, 0, 0);
}

static int cmd_top(struct ctl *c, int argc, char **argv)
{
	static const struct option lo[] = {
		COMMON_OPTS,
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ 0 }
	};
	const struct command *cmd = find_command("top");
	bool tty = isatty(STDOUT_FILENO);
	unsigned long count = 0, n = 0;
	double every = 1, next;
	char platform[64];
	struct keys keys = { 0 };
	struct reply r;
	int opt, rc;

	getopt_reset();
	while ((opt = getopt_long(argc, argv, ":" COMMON_SHORT "i:c:", lo, NULL)) != -1) {
		if (opt == 'i') {
			if ((rc = parse_secs(cmd, "--interval", optarg, 0.01, 3600, &every)))
				return rc;
		} else if (opt == 'c') {
			if ((rc = parse_uint(cmd, "--count", optarg, 1, 1000000000, &count)))
				return rc;
		} else {
			PARSE_COMMON(c, cmd, argc, argv, opt);
		}
	}
	if ((rc = no_args(cmd, argc, argv)) || (rc = ctl_open(c)))
		return rc;
	if ((rc = api(c, "GET", "/api/v1/status", NULL, &r, 0))) {
		reply_free(&r);
		return rc;
	}
	snprintf(platform, sizeof(platform), "%s", jstr(r.json, "platform", "?"));
	reply_free(&r);
	live_signals();
	if (!c->json)
		keys_on(&keys);
	next = mono_s();
	while (!g_stop) {
		int k = wait_until(next, keys.on ? STDIN_FILENO : -1);

		if (k == 'q' || k == 'Q' || g_stop)
			break;
		if (k)	/* any other key: refresh now */
			next = mono_s();
		if (mono_s() < next)
			continue;
		if ((rc = http(c, "GET", "/api/v1/metrics", NULL, &r, 0)))
			break;
		if (r.status == 503 && !c->json) {
			/* no sample yet: say so and keep waiting */
			if (tty)
				fputs("\033[H\033[2J", stdout);
			printf("uncored on %s: %s\n", platform,
			       jstr(jget(r.json, "error"), "message", "not ready"));
		} else if (r.status < 200 || r.status > 299 ||
			   !json_object_is_type(r.json, json_type_object)) {
			report_error(c, "GET", "/api/v1/metrics", &r);
			reply_free(&r);
			rc = EXIT_DAEMON;
			break;
		} else if (c->json) {
			print_raw(&r);
		} else {
			if (tty)
				fputs("\033[H\033[2J", stdout);
			else if (n)
				putchar('\n');
			top_frame(r.json, platform, tty, every);
		}
		reply_free(&r);
		if (!flush_out())
			break;
		if (++n == count)
			break;
		next += every;
		if (next < mono_s())
			next = mono_s() + every;
	}
	keys_off(&keys);
	return rc;
}

/* ---- groups -------------------------------------------------------------- */

/*
 * A named group as the daemon resolves it (GET /api/v1/groups): its
 * sources, each the sum of some of the claim's events times their scale,
 * and its figures over them (src/plat/group.h has the forms).
 */
enum gkind { GK_SUM, GK_PER_SECOND, GK_RATIO, GK_ONE_MINUS_RATIO,
	     GK_IN_FLIGHT, GK_LATENCY, GK_ABSENT };

#define RUN_MAXSRC 16
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

static void plan_free(struct plan *p)
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
static void plan_add(struct plan *p, const char *name, size_t len,
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
static int plan_group(struct ctl *c, struct plan *p, const char *name)
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
static double fig_value(const struct plan *p, const struct gfig *f,
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
static const char *fig_text(const char *unit, double v, char *buf, size_t len)
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

static int cmd_groups(struct ctl *c, int argc, char **argv)
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

/* ---- run ----------------------------------------------------------------- */

/*
 * `run`: claims the events, runs the program, and reports what the
 * claim counted over the program's run.  The report is the library's
 * region report (one region named after the program), followed by the
 * sums over sockets, the group's figures and the time line, in the same
 * format.  Exit status: the program's (128 + N when signal N killed it);
 * 125 when uncorectl failed before the program ran (nothing was run),
 * 126 the program could not be executed, 127 it was not found (as env(1)).
 */
enum { RUN_FAILED = 125, RUN_NOEXEC = 126, RUN_NOTFOUND = 127 };

extern char **environ;

static volatile sig_atomic_t g_child;	/* the program's pid, once forked */
static volatile sig_atomic_t g_chld;	/* SIGCHLD seen */

/* Forwards a signal a process sent (kill(1), a service manager) to the
 * program; one the terminal sent (Ctrl-C) went to the program too, as
 * to every process of the foreground group, and is not sent twice. */
static void run_forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGCHLD) {
		g_chld = 1;
		return;
	}
	if (g_child > 0 && si && si->si_code != SI_KERNEL && si->si_code <= 0)
		kill((pid_t)g_child, sig);
}

static const int run_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
				SIGUSR2, SIGCHLD };
#define NRUN_SIGS (sizeof(run_sigs) / sizeof(run_sigs[0]))

static sigset_t g_runmask;	/* the mask uncorectl started with */
static bool g_ran;		/* the program was started */

/* Before anything else: run_sigs blocked (in every thread, which the
 * library's renewing thread inherits, so that they all come to this
 * one), taken only while run_child() waits, and forwarded. */
static void run_signals(void)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = run_forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (size_t i = 0; i < NRUN_SIGS; i++)
		sigaddset(&block, run_sigs[i]);
	sigprocmask(SIG_BLOCK, &block, &g_runmask);
	for (size_t i = 0; i < NRUN_SIGS; i++)
		sigaction(run_sigs[i], &sa, NULL);
}

/* One row of the time line: an interval and the events' values in it
 * (summed over sockets), then the figures'. */
struct trow {
	double t, dt;
	double *v;
};

struct run {
	struct plan p;
	FILE *out;
	const char *format;	/* "table", "csv", "json" */
	const char *name;	/* the region: the program's file name */
	char **argv;
	int status;		/* waitpid()'s */
	double elapsed;		/* fork to exit, s */
	unsigned nsockets;
	double window;		/* the time the counts cover, s */
	double *sock;		/* [socket * nev + i]: scaled counts */
	double *all;		/* [i] summed over sockets */
	struct trow *tl;
	size_t ntl;
};

/* The values of every event between readings a and b on socket s (-1:
 * all) into v[nev], as counted, then the figures' into v[nev...], over
 * the counts scaled up to every instance of a :split event's unit;
 * returns the seconds they cover (event 0's enabled time). */
static double run_values(const struct plan *p, const struct uncored_counts *a,
			 const struct uncored_counts *b, int s, double *v)
{
	unsigned ns = uncored_counts_nsockets(b);
	double secs = 0, *w;

	if (ns > RUN_MAXSOCK)
		ns = RUN_MAXSOCK;
	w = xrealloc(NULL, (ns * p->nev + 1) * sizeof(double));
	if (p->nev)
		secs = (double)(uncored_counts_enabled_ns(b, 0) -
				uncored_counts_enabled_ns(a, 0)) / 1e9;
	for (size_t i = 0; i < p->nev; i++) {
		v[i] = uncored_counts_delta(a, b, i, s);
		for (unsigned k = 0; k < ns; k++)
			w[k * p->nev + i] = uncored_counts_delta(a, b, i, (int)k) *
					    p->isc[i * RUN_MAXSOCK + k];
	}
	for (size_t f = 0; f < p->nfig; f++)
		v[p->nev + f] = fig_value(p, &p->fig[f], w, ns, s, secs);
	free(w);
	return secs;
}

/* Adds a time line row for readings a, b; t: b's time since the start. */
static void run_row(struct run *R, const struct uncored_counts *a,
		    const struct uncored_counts *b, double t)
{
	struct trow *row;

	R->tl = xrealloc(R->tl, (R->ntl + 1) * sizeof(*R->tl));
	row = &R->tl[R->ntl++];
	row->v = xrealloc(NULL, (R->p.nev + R->p.nfig + 1) * sizeof(double));
	row->dt = run_values(&R->p, a, b, -1, row->v);
	row->t = t;
}

/* CSV field: quoted when it needs to be. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++)
		fprintf(f, *s == '"' ? "\"\"" : "%c", *s);
	fputc('"', f);
}

static const char *unit_of(const struct plan *p, size_t k)
{
	return k < p->nev ? "count" : p->fig[k - p->nev].unit[0]
	       ? p->fig[k - p->nev].unit : "count";
}

static const char *name_of(const struct plan *p, size_t k)
{
	return k < p->nev ? p->ev[k] : p->fig[k - p->nev].name;
}

static const char *exit_text(int st, char *buf, size_t len)
{
	if (WIFSIGNALED(st))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
	return buf;
}

static void run_table(struct run *R)
{
	struct plan *p = &R->p;
	size_t nk = p->nev + p->nfig;
	struct table t;
	char b[64], e[96];

	fprintf(R->out, "\nuncorectl run: %s %s after %.3f s", R->name,
		exit_text(R->status, e, sizeof(e)), R->elapsed);
	if (!isnan(R->window))
		fprintf(R->out, "; the counts cover %.3f s", R->window);
	fputc('\n', R->out);
	if (!R->nsockets)
		return;		/* no reading at the end: said on stderr */
	fprintf(R->out, "summed over %u socket%s:\n", R->nsockets,
		R->nsockets == 1 ? "" : "s");
	tbl_init(&t, "lrr");
	tbl_cell(&t, "EVENT");
	tbl_cell(&t, "COUNT");
	tbl_cell(&t, "RATE/s");
	for (size_t i = 0; i < p->nev; i++) {
		tbl_cell(&t, "%s", p->ev[i]);
		tbl_cell(&t, isnan(R->all[i]) ? "-" : "%.0f", R->all[i]);
		tbl_cell(&t, "%s", fmt_si(R->window > 0 ? R->all[i] / R->window
					  : NAN, b, sizeof(b)));
	}
	tbl_fprint(&t, R->out, 2, 0);
	if (p->nfig) {
		fprintf(R->out, "group %s, per socket and summed:\n", p->group);
		tbl_init(&t, "llr");
		tbl_cell(&t, "FIGURE");
		tbl_cell(&t, "SOCKET");
		tbl_cell(&t, "VALUE");
		for (size_t f = 0; f < p->nfig; f++)
			for (unsigned s = 0; p->fig[f].kind != GK_ABSENT &&
			     s <= R->nsockets; s++) {
				double v = s < R->nsockets
					   ? R->sock[s * nk + p->nev + f]
					   : R->all[p->nev + f];

				if (s == 1 && R->nsockets == 1)
					break;	/* one socket: its value is the sum */
				tbl_cell(&t, "%s", p->fig[f].name);
				if (s < R->nsockets)
					tbl_cell(&t, "%u", s);
				else
					tbl_cell(&t, "all");
				tbl_cell(&t, "%s", fig_text(p->fig[f].unit, v, b, sizeof(b)));
			}
		tbl_fprint(&t, R->out, 2, 0);
		for (size_t f = 0; f < p->nfig; f++)
			if (p->fig[f].kind == GK_ABSENT)
				fprintf(R->out, "  %s: not counted here (%s)\n",
					p->fig[f].name, p->fig[f].reason);
	}
	if (!R->ntl)
		return;
	fprintf(R->out, "time line, summed over sockets (counts in each "
		"interval):\n");
	{
		char align[TBL_MAXCOL + 1];
		size_t nc = 2 + nk < TBL_MAXCOL ? 2 + nk : TBL_MAXCOL;

		memset(align, 'r', nc);
		align[nc] = '\0';
		tbl_init(&t, align);
		tbl_cell(&t, "T_S");
		tbl_cell(&t, "INTERVAL_S");
		for (size_t k = 0; k + 2 < nc; k++)
			tbl_cell(&t, "%s", name_of(p, k));
		for (size_t r = 0; r < R->ntl; r++) {
			tbl_cell(&t, "%.3f", R->tl[r].t);
			tbl_cell(&t, "%.3f", R->tl[r].dt);
			for (size_t k = 0; k + 2 < nc; k++) {
				if (k < p->nev)
					tbl_cell(&t, isnan(R->tl[r].v[k]) ? "-" : "%.0f",
						 R->tl[r].v[k]);
				else
					tbl_cell(&t, "%s", fig_text(unit_of(p, k),
								    R->tl[r].v[k], b, sizeof(b)));
			}
		}
		tbl_fprint(&t, R->out, 2, 0);
	}
}

static void run_csv(struct run *R)
{
	struct plan *p = &R->p;
	size_t nk = p->nev + p->nfig;

	fprintf(R->out, "\nprogram,exit_status,signal,elapsed_s,window_s\n");
	csv_field(R->out, R->name);
	fprintf(R->out, ",%d,%d,%.6f,%.9f\n", WIFEXITED(R->status) ?
		WEXITSTATUS(R->status) : 128 + WTERMSIG(R->status),
		WIFSIGNALED(R->status) ? WTERMSIG(R->status) : 0, R->elapsed,
		R->window);
	if (!R->nsockets)
		return;
	fprintf(R->out, "\nname,unit,socket,value\n");
	for (size_t k = 0; k < nk; k++)
		for (unsigned s = 0; s <= R->nsockets; s++) {
			double v = s < R->nsockets ? R->sock[s * nk + k] : R->all[k];

			csv_field(R->out, name_of(p, k));
			fprintf(R->out, ",%s,", unit_of(p, k));
			if (s < R->nsockets)
				fprintf(R->out, "%u", s);
			else
				fputs("all", R->out);
			fprintf(R->out, isnan(v) ? ",\n" : ",%.9g\n", v);
		}
	if (!R->ntl)
		return;
	fprintf(R->out, "\nt_s,interval_s");
	for (size_t k = 0; k < nk; k++) {
		fputc(',', R->out);
		csv_field(R->out, name_of(p, k));
	}
	fputc('\n', R->out);
	for (size_t r = 0; r < R->ntl; r++) {
		fprintf(R->out, "%.6f,%.6f", R->tl[r].t, R->tl[r].dt);
		for (size_t k = 0; k < nk; k++)
			fprintf(R->out, isnan(R->tl[r].v[k]) ? "," : ",%.9g",
				R->tl[r].v[k]);
		fputc('\n', R->out);
	}
}

static struct json_object *jdouble(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

/* JSON: one object, the library's report under "regions" and the rest
 * beside it.  lib: the library's report text. */
static void run_json(struct run *R, const char *lib)
{
	struct plan *p = &R->p;
	size_t nk = p->nev + p->nfig;
	struct json_object *o = json_tokener_parse(lib), *a, *tl;

	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = json_object_new_object();
	}
	a = json_object_new_array();
	for (int i = 0; R->argv[i]; i++)
		json_object_array_add(a, json_object_new_string(R->argv[i]));
	json_object_object_add(o, "argv", a);
	json_object_object_add(o, "exit_status", json_object_new_int(
		WIFEXITED(R->status) ? WEXITSTATUS(R->status)
		: 128 + WTERMSIG(R->status)));
	json_object_object_add(o, "signal", WIFSIGNALED(R->status) ?
			       json_object_new_int(WTERMSIG(R->status)) : NULL);
	json_object_object_add(o, "elapsed_s", json_object_new_double(R->elapsed));
	json_object_object_add(o, "window_s", jdouble(R->window));
	json_object_object_add(o, "group", p->group ?
			       json_object_new_string(p->group) : NULL);
	for (int pass = 0; pass < 2; pass++) {
		a = json_object_new_array();
		for (size_t k = pass ? p->nev : 0; k < (pass ? nk : p->nev); k++) {
			struct json_object *e = json_object_new_object();
			struct json_object *ss = json_object_new_array();

			json_object_object_add(e, "name", json_object_new_string(name_of(p, k)));
			json_object_object_add(e, "unit", json_object_new_string(unit_of(p, k)));
			for (unsigned s = 0; s < R->nsockets; s++)
				json_object_array_add(ss, jdouble(R->sock[s * nk + k]));
			json_object_object_add(e, "sockets", ss);
			json_object_object_add(e, "all", jdouble(R->all[k]));
			if (pass && p->fig[k - p->nev].kind == GK_ABSENT)
				json_object_object_add(e, "reason",
					json_object_new_string(p->fig[k - p->nev].reason));
			json_object_array_add(a, e);
		}
		json_object_object_add(o, pass ? "figures" : "totals", a);
	}
	tl = json_object_new_array();
	for (size_t r = 0; r < R->ntl; r++) {
		struct json_object *e = json_object_new_object();
		struct json_object *v = json_object_new_object();

		json_object_object_add(e, "t_s", json_object_new_double(R->tl[r].t));
		json_object_object_add(e, "interval_s", json_object_new_double(R->tl[r].dt));
		for (size_t k = 0; k < nk; k++)
			json_object_object_add(v, name_of(p, k), jdouble(R->tl[r].v[k]));
		json_object_object_add(e, "values", v);
		json_object_array_add(tl, e);
	}
	json_object_object_add(o, "timeline", tl);
	fprintf(R->out, "%s\n", json_object_to_json_string_ext(
			o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* The environment the program gets: ours, with UNCORED_SOCKET set to the
 * daemon uncorectl talks to (so its own marker-mode library finds it)
 * and, with --markers, UNCORED_EVENTS (unless set), UNCORED_REPORT=1 and
 * UNCORED_REPORT_FORMAT; malloc'd array of borrowed strings and of those
 * in own[] (NULL-terminated), which the caller frees with env_free(). */
static char **child_env(const char *socket, const char *events, bool markers,
			const char *format, char *own[4])
{
	size_t n = 0, k = 0, o = 0;
	char **env, *s;

	while (environ[n])
		n++;
	env = xrealloc(NULL, (n + 5) * sizeof(*env));
	for (size_t i = 0; i < n; i++) {
		if (strncmp(environ[i], "UNCORED_SOCKET=", 15) == 0 ||
		    (markers && strncmp(environ[i], "UNCORED_REPORT=", 15) == 0))
			continue;
		env[k++] = environ[i];
	}
	s = xrealloc(NULL, strlen(socket) + 16);
	sprintf(s, "UNCORED_SOCKET=%s", socket);
	env[k++] = own[o++] = s;
	if (markers) {
		env[k++] = (char *)"UNCORED_REPORT=1";
		if (!getenv("UNCORED_EVENTS")) {
			s = xrealloc(NULL, strlen(events) + 16);
			sprintf(s, "UNCORED_EVENTS=%s", events);
			env[k++] = own[o++] = s;
		}
		if (!getenv("UNCORED_REPORT_FORMAT")) {
			s = xrealloc(NULL, strlen(format) + 24);
			sprintf(s, "UNCORED_REPORT_FORMAT=%s", format);
			env[k++] = own[o++] = s;
		}
	}
	env[k] = NULL;
	own[o] = NULL;
	return env;
}

static void env_free(char **env, char *own[4])
{
	for (size_t i = 0; own[i]; i++)
		free(own[i]);
	free(env);
}

/* The region's name: the program's file name, printable, at most 128
 * bytes (the library's limit). */
static void region_name(const char *prog_path, char *buf, size_t len)
{
	const char *b = strrchr(prog_path, '/');

	snprintf(buf, len < 129 ? len : 129, "%s", b && b[1] ? b + 1 : prog_path);
	for (char *s = buf; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
	if (!buf[0])
		snprintf(buf, len, "run");
}

/*
 * Forks and execs argv with env; waits for it while taking a reading
 * of the claim every `every` seconds (0: none) for the time line.
 * Returns 0 with R->status set, or the exit status when it could not be
 * run (said).
 */
static int run_child(struct ctl *c, struct run *R, const char *id,
		     char **env, double every, struct uncored_counts *first)
{
	struct uncored_counts *prev = first, *cur;
	struct sigaction sa;
	sigset_t waitm = g_runmask, pend;
	int pfd[2], err = 0;
	double t0, next;
	pid_t pid;

	for (size_t i = 0; i < NRUN_SIGS; i++)
		sigdelset(&waitm, run_sigs[i]);
	/* a signal that came while claiming: the program is not run */
	sigpending(&pend);
	for (size_t i = 0; i + 1 < NRUN_SIGS; i++) {
		if (run_sigs[i] == SIGUSR1 || run_sigs[i] == SIGUSR2 ||
		    !sigismember(&pend, run_sigs[i]))
			continue;
		warnx_("%s before %s ran: not run", strsignal(run_sigs[i]),
		       R->argv[0]);
		return RUN_FAILED;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		warnx_("cannot run %s: pipe: %s", R->argv[0], strerror(errno));
		return RUN_FAILED;
	}
	fflush(NULL);
	t0 = mono_s();
	if ((pid = fork()) < 0) {
		warnx_("cannot run %s: fork: %s", R->argv[0], strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return RUN_FAILED;
	}
	if (pid == 0) {
		/* the program's signals as they were before uncorectl */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < NRUN_SIGS; i++)
			sigaction(run_sigs[i], &sa, NULL);
		sigprocmask(SIG_SETMASK, &g_runmask, NULL);
		environ = env;
		execvp(R->argv[0], R->argv);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(RUN_NOEXEC);
		_exit(err == ENOENT ? RUN_NOTFOUND : RUN_NOEXEC);
	}
	g_child = pid;
	g_ran = true;
	close(pfd[1]);
	if (read(pfd[0], &err, sizeof(err)) == (ssize_t)sizeof(err)) {
		close(pfd[0]);
		waitpid(pid, &R->status, 0);
		g_child = 0;
		warnx_("cannot run %s: %s", R->argv[0], strerror(err));
		return err == ENOENT ? RUN_NOTFOUND : RUN_NOEXEC;
	}
	close(pfd[0]);
	next = t0 + every;
	for (;;) {
		pid_t w = waitpid(pid, &R->status, WNOHANG);
		double now = mono_s();

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (every && now >= next) {
			if (uncored_read(c->u, id, &cur) == 0) {
				run_row(R, prev, cur, mono_s() - t0);
				if (prev != first)
					uncored_counts_free(prev);
				prev = cur;
			} else {
				warnx_("time line: %s", uncored_error(c->u));
			}
			next += every;
			if (next < now)
				next = now + every;
			continue;
		}
		{
			struct timespec ts, *tp = NULL;
			double left = next - now;

			if (every) {
				ts.tv_sec = (time_t)left;
				ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
				tp = &ts;
			}
			g_chld = 0;
			/* SIGCHLD is blocked until here: no exit is missed */
			ppoll(NULL, 0, tp, &waitm);
		}
	}
	R->elapsed = mono_s() - t0;
	g_child = 0;
	/* the last, partial interval */
	if (every && uncored_read(c->u, id, &cur) == 0) {
		run_row(R, prev, cur, mono_s() - t0);
		uncored_counts_free(cur);
	}
	if (prev != first)
		uncored_counts_free(prev);
	return 0;
}

/* run's events: the group's and -e's, planned; their names joined for
 * the claim in *joined.  0, or an exit status. */
static int run_plan(struct ctl *c, const struct command *cmd, struct run *R,
		    const char *group, char **events, size_t nevents,
		    char **joined)
{
	int rc;

	if (group && (rc = plan_group(c, &R->p, group)))
		return rc;
	for (size_t i = 0; i < nevents; i++) {
		for (const char *s = events[i]; *s;) {
			size_t n = strcspn(s, ",");

			if (n)
				plan_add(&R->p, s, n, 1, -1, NULL);
			s += n + (s[n] == ',');
		}
	}
	if (!R->p.nev)
		return usage_error(cmd, "no event to claim");
	if (!(*joined = join_events((int)R->p.nev, R->p.ev)))
		return usage_error(cmd, "the event names are too long");
	return 0;
}

/* Where run's report goes: output, or stderr.  0, or an exit status. */
static int run_output(struct run *R, const char *output)
{
	int fd;

	if (!output) {
		R->out = stderr;
		return 0;
	}
	fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0 || !(R->out = fdopen(fd, "w"))) {
		warnx_("cannot write the report to %s: %s", output,
		       strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_DAEMON;
	}
	return 0;
}

/* How long run waits for its claim to join the counters. */
#define RUN_COUNTING_WAIT_S 10.0

/*
 * Waits until claim id counts: every event has run (a claim is enabled
 * from its creation, but a shared one may wait for the daemon's next
 * tick to join the counters, later on a loaded machine, or for its first
 * turn; a pinned one runs at once).  So the program's start is measured, and a program
 * shorter than an interval is measured at all, as likwid-perfctr sets
 * up its counters before it starts the program.  After
 * RUN_COUNTING_WAIT_S it goes on, saying so.  0, or the library's
 * negative errno.
 */
static int run_wait_counting(struct ctl *c, const char *id)
{
	double t0 = mono_s();

	for (;;) {
		struct uncored_counts *k;
		bool on = true;
		int rc = uncored_read(c->u, id, &k);

		if (rc < 0)
			return rc;
		for (size_t i = 0; i < uncored_counts_nevents(k); i++)
			on &= uncored_counts_running_ns(k, i) > 0;
		uncored_counts_free(k);
		if (on)
			return 0;
		if (mono_s() - t0 >= RUN_COUNTING_WAIT_S) {
			warnx_("claim %s was not counting yet after %.0f s "
			       "(the daemon's ticks are late): the start of "
			       "the program is not measured", id,
			       RUN_COUNTING_WAIT_S);
			return 0;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
}

/* Labels and makes the claim (id), waits until it counts
 * (run_wait_counting()), opens the region and reads the counts
 * at its start (*c0), and runs the program to its end (R->status);
 * *region says whether the region is open.  0, or an exit status (the
 * program then was not run, or could not be waited for). */
static int run_program(struct ctl *c, struct run *R, const char *joined,
		       bool markers, const char *label, unsigned flags,
		       double every, char *id, size_t idlen,
		       struct uncored_counts **c0, bool *region)
{
	char *own[4], lab[64];
	char **env = child_env(c->socket, joined, markers, R->format, own);
	int rc;

	/* the library's report in our format; set before the library has a
	 * thread (the claim starts its renewing thread) */
	setenv("UNCORED_REPORT_FORMAT", R->format, 1);
	snprintf(lab, sizeof(lab), "run %.58s", R->name);
	if ((rc = uncored_set_label(c->u, label ? label : lab)) < 0 &&
	    (label || (rc = uncored_set_label(c->u, "uncorectl run")) < 0)) {
		warnx_("%s", uncored_error(c->u));
		env_free(env, own);
		return label ? EXIT_USAGE : exit_of(rc);
	}
	if ((rc = uncored_claim(c->u, joined, 0, flags, id, idlen)) < 0 ||
	    (rc = run_wait_counting(c, id)) < 0 ||
	    (rc = uncored_region_begin(c->u, R->name)) < 0 ||
	    (rc = uncored_read(c->u, id, c0)) < 0) {
		warnx_("%s; %s not run", uncored_error(c->u), R->argv[0]);
		env_free(env, own);
		return exit_of(rc);
	}
	*region = true;
	rc = run_child(c, R, id, env, every, *c0);
	env_free(env, own);
	return rc;
}

/* The counts at the end (*c1), the claim released, and R's sums over
 * sockets (R->all) and per socket (R->sock) since c0. */
static void run_totals(struct ctl *c, struct run *R, const char *id,
		       const struct uncored_counts *c0,
		       struct uncored_counts **c1)
{
	size_t nk = R->p.nev + R->p.nfig;

	R->all = xrealloc(NULL, (nk + 1) * sizeof(double));
	if (uncored_read(c->u, id, c1) < 0) {
		/* the claim lost (a daemon restart): the region report still
		 * has what it counted until its last reading */
		warnx_("the counts at the end: %s; no sums or figures",
		       uncored_error(c->u));
		*c1 = NULL;
		R->window = NAN;
		for (size_t k = 0; k < nk; k++)
			R->all[k] = NAN;
	} else {
		if (uncored_release(c->u, id) < 0)
			warnx_("releasing claim %s: %s", id, uncored_error(c->u));
		R->nsockets = uncored_counts_nsockets(*c1);
		R->window = run_values(&R->p, c0, *c1, -1, R->all);
	}
	R->sock = xrealloc(NULL, (R->nsockets * nk + 1) * sizeof(double));
	for (unsigned s = 0; s < R->nsockets; s++)
		run_values(&R->p, c0, *c1, (int)s, R->sock + s * nk);
}

/* The report: the library's region report, then run's own sections, in
 * R->format, to R->out. */
static void run_report(struct ctl *c, struct run *R, const char *output)
{
	char *lib = NULL;
	size_t liblen = 0;
	FILE *mem;

	if (strcmp(R->format, "json") == 0) {
		if (!(mem = open_memstream(&lib, &liblen))) {
			warnx_("out of memory");
			return;
		}
		if (uncored_region_report(c->u, mem) < 0)
			warnx_("%s", uncored_error(c->u));
		fclose(mem);
		run_json(R, lib ? lib : "{}");
		free(lib);
	} else {
		if (uncored_region_report(c->u, R->out) < 0)
			warnx_("%s", uncored_error(c->u));
		if (strcmp(R->format, "csv") == 0)
			run_csv(R);
		else
			run_table(R);
	}
	if (fflush(R->out) != 0 || ferror(R->out))
		warnx_("writing the report%s%s: %s", output ? " to " : "",
		       output ? output : "", strerror(errno));
}

static int cmd_run_(struct ctl *c, int argc, char **argv)
{
	static const struct option lo[] = {
		COMMON_OPTS,
		{ "events", required_argument, NULL, 'e' },
		{ "group", required_argument, NULL, 'g' },
		{ "interval", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "pinned", no_argument, NULL, 'p' },
		{ "markers", no_argument, NULL, 'm' },
		{ "label", required_argument, NULL, 'l' },
		{ 0 }
	};
	const struct command *cmd = find_command("run");
	struct run R = { .format = "table" };
	const char *group = NULL, *output = NULL, *label = NULL;
	char **events = NULL, *joined = NULL, id[64], name[130];
	size_t nevents = 0;
	struct uncored_counts *c0 = NULL, *c1 = NULL;
	bool markers = false, region = false;
	unsigned flags = 0;
	double every = 0;
	int opt, rc;

	getopt_reset();
	while ((opt = getopt_long(argc, argv, "+:" COMMON_SHORT "e:g:i:F:o:pml:",
				  lo, NULL)) != -1) {
		switch (opt) {
		case 'e':
			events = xrealloc(events, (nevents + 1) * sizeof(*events));
			events[nevents++] = optarg;
			break;
		case 'g':
			group = optarg;
			break;
		case 'i':
			if ((rc = parse_secs(cmd, "--interval", optarg, 0.01, 86400,
					     &every)))
				return rc;
			break;
		case 'F':
			if (strcmp(optarg, "table") && strcmp(optarg, "csv") &&
			    strcmp(optarg, "json"))
				return usage_error(cmd, "--format \"%s\": the formats "
						   "are table, csv and json", optarg);
			R.format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'p':
			flags |= UNCORED_PINNED;
			break;
		case 'm':
			markers = true;
			break;
		case 'l':
			label = optarg;
			break;
		default:
			PARSE_COMMON(c, cmd, argc, argv, opt);
		}
	}
	if (c->json)
		R.format = "json";
	if (optind >= argc)
		return usage_error(cmd, "name the program to run (after --)");
	if (!group && !nevents)
		return usage_error(cmd, "name the events (-e) or a group (-g; "
				   "'%s groups' lists them)", prog);
	if (c->url)
		return usage_error(cmd, "claims need the control socket, not --url");
	R.argv = argv + optind;
	region_name(R.argv[0], name, sizeof(name));
	R.name = name;
	run_signals();
	if ((rc = ctl_open(c)))
		return rc;
	if ((rc = run_plan(c, cmd, &R, group, events, nevents, &joined)))
		goto out;
	if ((rc = run_output(&R, output)))
		goto out;
	if ((rc = run_program(c, &R, joined, markers, label, flags, every, id,
			       sizeof(id), &c0, &region)))
		goto out;
	/* from here the exit status is the program's */
	rc = WIFEXITED(R.status) ? WEXITSTATUS(R.status)
	     : 128 + WTERMSIG(R.status);
	if (uncored_region_end(c->u, name) < 0)
		warnx_("%s", uncored_error(c->u));
	region = false;
	run_totals(c, &R, id, c0, &c1);
	run_report(c, &R, output);
out:
	if (region)
		uncored_region_end(c->u, name);
	if (R.out && R.out != stderr)
		fclose(R.out);
	uncored_counts_free(c0);
	uncored_counts_free(c1);
	for (size_t r = 0; r < R.ntl; r++)
		free(R.tl[r].v);
	free(R.tl);
	free(R.sock);
	free(R.all);
	free(joined);
	free(events);
	plan_free(&R.p);
	return rc;
}

/* uncorectl's own failures are 125, never a status the program could
 * have given; help is 0. */
static int cmd_run(struct ctl *c, int argc, char **argv)
{
	int rc;

	g_ran = false;
	rc = cmd_run_(c, argc, argv);
	if (!g_ran && rc)
		rc = RUN_FAILED;
	return rc;
}

/* ---- commands, main ------------------------------------------------------- */

static int cmd_help(struct ctl *c, int argc, char **argv);

static const struct command commands[] = {
	{ "status", cmd_status, "[--json]", "daemon version, platform, ticks, ownership",
	  "Show the daemon's version, platform, interval, uptime, ticks and "
	  "PMU ownership.", NULL },
	{ "topology", cmd_topology, "[--json]", "units, counters and who holds them",
	  "Show sockets, units, instances and counters, with what each counter\n"
	  "counts and who holds it (baseline, a claim id, or free).", NULL },
	{ "events", cmd_events, "[PATTERN] [--unit UNIT] [--names] [--json]",
	  "the event catalog",
	  "List the event catalog; PATTERN matches names and descriptions\n"
	  "(case-insensitive substring).",
	  "Options:\n"
	  "  -U, --unit UNIT    only the events of UNIT (a unit name as\n"
	  "                     `uncorectl topology` lists them)\n"
	  "  -n, --names        only the names, one per line\n" },
	{ "formulas", cmd_formulas, "[PATTERN] [--available] [--names] [--json]",
	  "the formula catalog: every metric the manuals and vendors define",
	  "List the formulas of this platform (the uncore manuals' Common Metrics,\n"
	  "Intel's metric files, AMD's recommended metrics) with their unit and\n"
	  "whether each counts here, or why not.  PATTERN matches names and\n"
	  "descriptions (case-insensitive substring).",
	  "Options:\n"
	  "  -a, --available    only the formulas that count here\n"
	  "  -n, --names        only the names, one per line\n" },
	{ "claim", cmd_claim,
	  "[EVENT...] [--formula NAME]... [--ttl S] [--label L] [--export] [--pinned] [--watch S [--count N]]",
	  "claim counters; with --watch, live counts and rates",
	  "Claim counters for EVENTs, and for the events of each formula NAME\n"
	  "of the catalog (see `formulas`), whose values are shown beside the\n"
	  "counts.  Without --watch, print the claim id and\n"
	  "exit: the claim lives until its lease ends or `release`.  With\n"
	  "--watch, show the counts and rates every S seconds, renew the lease\n"
	  "while watching, and release the claim on Ctrl-C, SIGTERM or after N\n"
	  "refreshes, printing the final counts.",
	  "Options:\n"
	  "  -t, --ttl S        lease in seconds (default: the daemon's)\n"
	  "  -l, --label L      label shown in `claims` (default uncorectl)\n"
	  "  -e, --export       also export the counts on /metrics\n"
	  "  -p, --pinned       on counters of its own for its lease, never\n"
	  "                     multiplexed out, counting at once; refused if\n"
	  "                     it cannot have them\n"
	  "  -w, --watch S      refresh every S seconds (decimals allowed)\n"
	  "  -c, --count N      stop after N refreshes\n"
	  "  -f, --formula NAME also count formula NAME (repeatable) and show\n"
	  "                     its value per socket over the claim's life\n" },
	{ "claims", cmd_claims, "[--json]", "list the live claims",
	  "List the live claims (yours; all of them for root).", NULL },
	{ "release", cmd_release, "ID [--json]", "release a claim, print its final counts",
	  "Release a claim and print its final counts.", NULL },
	{ "top", cmd_top, "[--interval S] [--count N] [--json]",
	  "live DRAM GB/s, read latency, LLC hit % and uncore GHz per socket",
	  "Live per-socket DRAM read and write GB/s, the memory read latency\n"
	  "(where the daemon serves it), LLC hit % and uncore GHz, refreshed in\n"
	  "place on a terminal.  q or Ctrl-C quits.",
	  "Options:\n"
	  "  -i, --interval S   refresh every S seconds (default 1)\n"
	  "  -c, --count N      stop after N refreshes\n" },
	{ "groups", cmd_groups, "[--names] [--json]",
	  "named event groups (memory, LLC, latency, links) and their events",
	  "List the named groups (MEM: DRAM bytes and GB/s, and the read latency\n"
	  "where the platform counts it; LLC: lookups, misses and hit ratio;\n"
	  "MEM_LATENCY: mean read latency and reads in flight; one group per\n"
	  "interconnect, named as the platform's links are, for the bytes sent)\n"
	  "with the events they take on this machine\n"
	  "and the figures they give, the same on every platform; a group or a\n"
	  "figure that cannot count here says why.",
	  "Options:\n"
	  "  -n, --names        only the names of the groups that count here\n" },
	{ "run", cmd_run,
	  "(-e EVENTS | -g GROUP)... [--interval S] [--format F] [-o FILE] "
	  "[--pinned] [--markers] [--label L] -- PROGRAM [ARGS...]",
	  "measure a program: claim, run it, report the whole run",
	  "Claim EVENTS (or a group's events), run PROGRAM, release the claim and\n"
	  "report what it counted over the run: the region report of\n"
	  "libuncored (per socket), the counts summed over sockets, the group's\n"
	  "figures per socket and summed, and with --interval a time line.  The\n"
	  "report goes to stderr (or FILE): the program's stdout stays its own.\n"
	  "Signals that other processes send uncorectl are passed on to the\n"
	  "program; the claim ends however the run ends.  Exit status: the\n"
	  "program's (128+N if signal N killed it); 125 if uncorectl failed and\n"
	  "the program was not run; 126 not executable; 127 not found.",
	  "Options:\n"
	  "  -e, --events LIST  events to claim, comma-separated (repeatable)\n"
	  "  -g, --group NAME   a named group ('uncorectl groups')\n"
	  "  -i, --interval S   also a time line, one row every S seconds\n"
	  "  -F, --format F     table (default), csv or json (--json: json)\n"
	  "  -o, --output FILE  write the report to FILE, not stderr\n"
	  "  -p, --pinned       a pinned claim (counters of its own)\n"
	  "  -m, --markers      the program's own libuncored regions count the\n"
	  "                     same events: UNCORED_EVENTS (unless set) and\n"
	  "                     UNCORED_REPORT=1 in its environment\n"
	  "  -l, --label L      the claim's label (default \"run PROGRAM\")\n" },
	{ "help", cmd_help, "[COMMAND]", "help on a command",
	  "Show help for a command.", NULL },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* The usage of uncorectl: on stdout for --help, stderr for a mistake. */
static void main_help(FILE *f)
{
	fprintf(f, "usage: %s [--socket PATH | --url URL] [--json] COMMAND [ARGS]\n\n"
	       "Client of uncored, the uncore performance-monitoring daemon.\n\n"
	       "Commands:\n", prog);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].brief);
	fprintf(f, "\nOptions (before or after the command):\n%s"
	       "  -V, --version      print the version\n\n"
	       "'%s COMMAND --help' describes a command.  Exit status: 0 ok, "
	       "1 the daemon\nrefused or failed, 2 usage, 3 cannot reach the "
	       "daemon\n(run: the program's status, 125 when it did not run it).  "
	       "See uncorectl(1).\n", common_help, prog);
}

static int cmd_help(struct ctl *c, int argc, char **argv)
{
	const struct command *cmd;

	(void)c;
	if (argc < 2) {
		main_help(stdout);
		return 0;
	}
	if (!(cmd = find_command(argv[1])))
		return usage_error(NULL, "unknown command '%s'", argv[1]);
	command_help(cmd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		COMMON_OPTS,
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct ctl c = { .socket = DEFAULT_SOCKET };
	const struct command *cmd;
	const char *env = getenv("UNCORED_SOCKET");
	int opt, rc;

	if (env && *env)		/* --socket still overrides it */
		c.socket = env;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:" COMMON_SHORT "V", lo, NULL)) != -1) {
		switch (opt) {
		case 'V':
			printf("uncorectl (%s) %s (revision %s, built %s)\n",
			       PACKAGE_NAME, PACKAGE_VERSION, UNCORED_REVISION,
			       UNCORED_BUILD_DATE);
			return 0;
		default:
			if ((rc = common_opt(&c, NULL, opt, argv)))
				return rc < 0 ? 0 : rc;
			break;
		}
	}
	if (optind >= argc) {
		main_help(stderr);
		return EXIT_USAGE;
	}
	if (!(cmd = find_command(argv[optind])))
		return usage_error(NULL, "unknown command '%s'", argv[optind]);
	rc = cmd->run(&c, argc - optind, argv + optind);
	ctl_close(&c);
	if (fflush(stdout) != 0 && errno != EPIPE && !rc) {
		warnx_("writing the output: %s", strerror(errno));
		rc = EXIT_DAEMON;
	}
	return rc;
}
