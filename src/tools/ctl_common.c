/*
 * ctl_common.c - what every command of uncorectl uses (uncorectl.h): the
 * JSON getters, numbers and durations for people, the aligned table, the
 * requests through libuncored and their error messages, the signals and
 * waits of the live commands, usage errors and the options every command
 * takes.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
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
#include <time.h>
#include <unistd.h>

#include "uncorectl.h"
#include "uncored.h"

const char *prog = "uncorectl";

void reply_free(struct reply *r)
{
	free(r->body);
	json_object_put(r->json);
	memset(r, 0, sizeof(*r));
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *xrealloc(void *p, size_t n)
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

double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- JSON access ---------------------------------------------------- */

struct json_object *jget(struct json_object *o, const char *k)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* The string k of o, or def when absent, null or not a string. */
const char *jstr(struct json_object *o, const char *k, const char *def)
{
	struct json_object *v = jget(o, k);

	return json_object_is_type(v, json_type_string)
	       ? json_object_get_string(v) : def;
}

/* A number; false when absent or null. */
bool jnum(struct json_object *o, const char *k, double *out)
{
	struct json_object *v = jget(o, k);

	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return false;
	*out = json_object_get_double(v);
	return true;
}

uint64_t ju64(struct json_object *o, const char *k)
{
	struct json_object *v = jget(o, k);

	return json_object_is_type(v, json_type_int) ? json_object_get_uint64(v) : 0;
}

bool jbool(struct json_object *o, const char *k)
{
	struct json_object *v = jget(o, k);

	return json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

/* The array k of o (length 0 when absent). */
struct json_object *jarr(struct json_object *o, const char *k, size_t *n)
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
const char *fmt_si(double v, char *buf, size_t len)
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
const char *fmt_dur(double s, char *buf, size_t len)
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
bool until_iso(const char *iso, double *secs)
{
	struct tm tm = { 0 };
	const char *end;

	if (!iso || !(end = strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm)) || *end)
		return false;
	*secs = difftime(timegm(&tm), time(NULL));
	return true;
}

/* Columns of the terminal on stdout, or 0 when it is not one. */
unsigned term_cols(void)
{
	struct winsize ws;

	if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0)
		return 0;
	return ws.ws_col;
}

void tbl_init(struct table *t, const char *align)
{
	memset(t, 0, sizeof(*t));
	t->align = align;
	t->ncol = (unsigned)strlen(align);
}

void tbl_cell(struct table *t, const char *fmt, ...)
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

/* Prints the table to f with indent spaces before each row; frees it.  A
 * last column wider than maxw (0: no limit) is cut with "...".  Columns
 * past TBL_MAXCOL are left out. */
void tbl_fprint(struct table *t, FILE *f, unsigned indent,
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

void tbl_print(struct table *t, unsigned indent, unsigned maxw)
{
	tbl_fprint(t, stdout, indent, maxw);
}

/* ---- HTTP (libuncored) ---------------------------------------------- */

static const char *where(const struct ctl *c)
{
	return c->url ? c->url : c->socket;
}

/* s with every byte outside [A-Za-z0-9-._~] percent-encoded, into buf. */
const char *escape(const char *s, char *buf, size_t len)
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
int ctl_open(struct ctl *c)
{
	if (!(c->u = uncored_connect(where(c)))) {
		warnx_("%s", uncored_error(NULL));
		return EXIT_CONNECT;
	}
	return 0;
}

void ctl_close(struct ctl *c)
{
	uncored_disconnect(c->u);
	c->u = NULL;
}

/* The exit status of a library call's failure: the daemon refused, or
 * there was no (sensible) answer. */
int exit_of(int rc)
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

/*
 * One request.  method is "GET", "POST" or "DELETE"; body (POST) may be
 * NULL for an empty one.  Returns 0 with r filled (any status), or
 * EXIT_CONNECT when no answer came (reported unless Q_QUIET).
 */
int http(struct ctl *c, const char *method, const char *path,
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
void report_error(const struct ctl *c, const char *method,
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
int api(struct ctl *c, const char *method, const char *path,
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
void print_raw(const struct reply *r)
{
	size_t n = r->len;

	while (n && (r->body[n - 1] == '\n' || r->body[n - 1] == '\r'))
		n--;
	fwrite(r->body, 1, n, stdout);
	putchar('\n');
}

/* ---- signals and waiting (claim --watch, top) ------------------------- */

volatile sig_atomic_t g_stop;
static sigset_t g_waitmask;	/* the mask to wait with: signals open */

static void on_signal(int sig)
{
	g_stop = sig;
}

/* From now on SIGINT/SIGTERM/SIGHUP only set g_stop, and only while
 * wait_until() waits; SIGPIPE turns into write errors. */
void live_signals(void)
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
int wait_until(double deadline, int keyfd)
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

/* Flushes a frame; false when stdout is gone (a closed pipe). */
bool flush_out(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return true;
	if (errno != EPIPE)
		warnx_("writing the output: %s", strerror(errno));
	return false;
}

/* ---- option parsing ---------------------------------------------------- */

int usage_error(const struct command *cmd, const char *fmt, ...)
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
int common_opt(struct ctl *c, const struct command *cmd, int opt,
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

int parse_secs(const struct command *cmd, const char *opt,
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

int parse_uint(const struct command *cmd, const char *opt,
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
int no_args(const struct command *cmd, int argc, char **argv)
{
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	return 0;
}

void getopt_reset(void)
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
int simple_get(struct ctl *c, const struct command *cmd, int argc,
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
