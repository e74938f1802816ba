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
 * request in half and a watched claim is always released.
 *
 * Exit status: 0 success, 1 the daemon refused or failed (its message is
 * printed), 2 usage, 3 the daemon cannot be reached.
 */
#include "config.h"

#include <errno.h>
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

/* Prints the table with indent spaces before each row; frees it.  A
 * last column wider than maxw (0: no limit) is cut with "...". */
static void tbl_print(struct table *t, unsigned indent, unsigned maxw)
{
	size_t w[16] = { 0 };
	unsigned nc = t->ncol < 16 ? t->ncol : 16;

	for (size_t i = 0; i < t->n; i++)
		if (strlen(t->cell[i]) > w[i % t->ncol] && i % t->ncol < nc)
			w[i % t->ncol] = strlen(t->cell[i]);
	for (size_t r = 0; r * t->ncol < t->n; r++) {
		size_t used = indent;

		printf("%*s", (int)indent, "");
		for (unsigned c = 0; c < nc && r * t->ncol + c < t->n; c++) {
			const char *s = t->cell[r * t->ncol + c];
			bool last = c + 1 == nc;

			if (last && t->align[c] == 'r') {
				printf("%*s", (int)w[c], s);
			} else if (last) {
				size_t l = strlen(s);

				if (maxw && used + l > maxw && maxw > used + 3)
					printf("%.*s...", (int)(maxw - used - 3), s);
				else
					fputs(s, stdout);
			} else if (t->align[c] == 'r') {
				printf("%*s  ", (int)w[c], s);
			} else {
				printf("%-*s  ", (int)w[c], s);
			}
			used += w[c] + 2;
		}
		putchar('\n');
	}
	for (size_t i = 0; i < t->n; i++)
		free(t->cell[i]);
	free(t->cell);
	memset(t, 0, sizeof(*t));
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

static void top_frame(struct json_object *m, const char *platform, bool tty,
		      double every)
{
	size_t ns;
	struct json_object *socks = jarr(m, "sockets", &ns);
	struct table t;
	char ts[32] = "?";
	double tm;

	if (jnum(m, "time", &tm)) {
		time_t s = (time_t)tm;
		struct tm lt;

		localtime_r(&s, &lt);
		strftime(ts, sizeof(ts), "%H:%M:%S", &lt);
	}
	printf("uncored on %s, sample %" PRIu64 " at %s", platform,
	       ju64(m, "seq"), ts);
	if (tty)
		printf("  (every %g s; q quits)", every);
	putchar('\n');
	tbl_init(&t, "rrrrr");
	tbl_cell(&t, "SOCKET");
	tbl_cell(&t, "DRAM READ GB/s");
	tbl_cell(&t, "DRAM WRITE GB/s");
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
	  "live DRAM GB/s, LLC hit % and uncore GHz per socket",
	  "Live per-socket DRAM read and write GB/s, LLC hit % and uncore GHz,\n"
	  "refreshed in place on a terminal.  q or Ctrl-C quits.",
	  "Options:\n"
	  "  -i, --interval S   refresh every S seconds (default 1)\n"
	  "  -c, --count N      stop after N refreshes\n"
	  "  -f, --formula NAME also count formula NAME (repeatable) and show\n"
	  "                     its value per socket over the claim's life\n" },
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
	       "daemon.  See uncorectl(1).\n", common_help, prog);
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
