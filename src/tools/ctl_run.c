/*
 * ctl_run.c - `uncorectl run`: claims the events, runs the program, and
 * reports what the claim counted over the program's run.  The report is
 * the library's region report (one region named after the program),
 * followed by the sums over sockets, the group's figures and the time
 * line, in the same format.  Exit status: the program's (128 + N when
 * signal N killed it); 125 when uncorectl failed before the program ran
 * (nothing was run), 126 the program could not be executed, 127 it was
 * not found (as env(1)).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uncorectl.h"
#include "uncored.h"

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
 * Waits until claim id counts now: every event's running time grows
 * from one look to the next, 10 ms apart (a claim is enabled from its
 * creation, but a shared one may wait for the daemon's next tick to
 * join the counters, later on a loaded machine, or for its turn; a
 * pinned one runs at once).  Having run once is not enough: a claim
 * that started at once and lost its turn at the next tick stays out for
 * an interval, and a 0.5 s program under a 4 s interval then counted
 * nothing (CI, loaded).  So the program's start is measured, and a
 * program shorter than an interval is measured at all, as likwid-perfctr
 * sets up its counters before it starts the program.  After
 * RUN_COUNTING_WAIT_S it goes on, saying so.  0, or the library's
 * negative errno.
 */
static int run_wait_counting(struct ctl *c, const char *id)
{
	double t0 = mono_s();
	struct uncored_counts *prev = NULL;

	for (;;) {
		struct uncored_counts *k;
		bool on = prev != NULL;
		int rc = uncored_read(c->u, id, &k);

		if (rc < 0) {
			uncored_counts_free(prev);
			return rc;
		}
		for (size_t i = 0; i < uncored_counts_nevents(k) && prev; i++)
			on &= uncored_counts_running_ns(k, i) >
			      uncored_counts_running_ns(prev, i);
		uncored_counts_free(prev);
		prev = k;
		if (on) {
			uncored_counts_free(prev);
			return 0;
		}
		if (mono_s() - t0 >= RUN_COUNTING_WAIT_S) {
			warnx_("claim %s was not counting yet after %.0f s "
			       "(it waits for the daemon's next tick, or for "
			       "its turn on counters other groups share): "
			       "the start of the program is not measured",
			       id, RUN_COUNTING_WAIT_S);
			uncored_counts_free(prev);
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
		for (size_t i = 0; i < R->p.nev; i++)
			if (uncored_counts_running_ns(*c1, i) <=
			    uncored_counts_running_ns(c0, i)) {
				/* no figure: said, not left blank */
				warnx_("%s did not count during the run (the "
				       "daemon gave its counters to other "
				       "groups meanwhile; --pinned gives the "
				       "claim counters of its own)",
				       uncored_counts_event(*c1, i));
				break;
			}
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

/* events: the -e list, which the caller frees (an option or usage error
 * returns from the middle of the parse: under ASan a leak report turned
 * run's 125 into 1). */
static int cmd_run_(struct ctl *c, int argc, char **argv, char ***events_)
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
			*events_ = events;
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
	plan_free(&R.p);
	return rc;
}

/* uncorectl's own failures are 125, never a status the program could
 * have given; help is 0. */
int cmd_run(struct ctl *c, int argc, char **argv)
{
	char **events = NULL;
	int rc;

	g_ran = false;
	rc = cmd_run_(c, argc, argv, &events);
	free(events);
	if (!g_ran && rc)
		rc = RUN_FAILED;
	return rc;
}
