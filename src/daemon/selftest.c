/*
 * selftest.c - `uncored --self-test`: see selftest.h for the checks.
 *
 * The steps are windows between two readings of every baseline counter:
 * quiet, stream, chase, then a frozen window.  A load provides, for each
 * step, begin() (wait until the step may start: the simulator's phases
 * are fixed in time) and run() (generate or play the step; the stream
 * step returns the bytes it read).  Quantities are summed from the
 * baseline's series as the sampler does: the event of each quantity,
 * every instance, scaled by the quantity's scale and the split factor.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "selftest.h"

enum st_step { ST_QUIET, ST_STREAM, ST_CHASE, ST_FROZEN, ST_NSTEPS };

static const char *const st_names[ST_NSTEPS] = {
	[ST_QUIET] = "quiet", [ST_STREAM] = "stream", [ST_CHASE] = "chase",
	[ST_FROZEN] = "frozen",
};

/*
 * A load: begin() waits until the step may start (the simulator's phases
 * are fixed in time), run() generates or plays it (the stream step
 * returns the bytes it read).  Both give up at the deadline and set late.
 * inside() (NULL: always) says whether a window from t0 (before its first
 * reading began) to t1 (after its last ended) lay within its step's
 * load: a window that did not is measured again.
 */
struct st_load {
	void (*begin)(struct st_load *ld, enum st_step s);
	double (*run)(struct st_load *ld, enum st_step s);
	double (*now)(void *ctx);			/* seconds */
	bool (*inside)(struct st_load *ld, enum st_step s, double t0,
		       double t1);
	void *ctx;
	double deadline;	/* CLOCK_MONOTONIC seconds */
	bool late;		/* the deadline passed */
};

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleeps s seconds, or until the deadline if that comes first (late). */
static void sleep_until(struct st_load *ld, double s)
{
	double left = ld->deadline - mono_s();

	if (s > left) {
		sleep_s(left);
		ld->late = true;
		return;
	}
	sleep_s(s);
}

/* Has the deadline passed (and so late)? */
static bool past(struct st_load *ld)
{
	if (mono_s() >= ld->deadline)
		ld->late = true;
	return ld->late;
}

/* ---- the load on hardware -------------------------------------------- */

struct hw_load {
	uint64_t *buf;		/* nlines cache lines of 64 bytes */
	size_t nlines;
	volatile uint64_t sink;
};

#define LINE_WORDS 8

static void hw_begin(struct st_load *ld, enum st_step s)
{
	(void)ld;
	(void)s;
}

static double hw_now(void *ctx)
{
	(void)ctx;
	return mono_s();
}

static double hw_run(struct st_load *ld, enum st_step s)
{
	struct hw_load *l = ld->ctx;
	uint64_t sum = 0, at = 0;
	const int passes = 4;

	switch (s) {
	case ST_QUIET:
	case ST_FROZEN:
		sleep_until(ld, 0.3);
		return 0;
	case ST_STREAM:
		/* One load per cache line: each brings 64 bytes from DRAM,
		 * the buffer being 4x the LLC. */
		for (int p = 0; p < passes && !past(ld); p++)
			for (size_t i = 0; i < l->nlines; i++)
				sum += l->buf[i * LINE_WORDS + 1];
		l->sink = sum;
		return (double)passes * (double)l->nlines * 64.0;
	case ST_CHASE:
		/* One dependent load per line, in a random cycle (the
		 * deadline looked at every 2^20 lines). */
		for (size_t i = 0; i < l->nlines; i++) {
			at = l->buf[at * LINE_WORDS];
			if (!(i & 0xfffff) && past(ld))
				break;
		}
		l->sink = at;
		return 0;
	case ST_NSTEPS:
		break;
	}
	return 0;
}

/* Builds the buffer: 4x the LLC (sysconf), at least 64 MiB, at most
 * 1 GiB, with a random cyclic permutation of its lines (Sattolo). */
static int hw_load_init(struct hw_load *l)
{
	long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
	size_t bytes = (llc > 0 ? (size_t)llc : 32u << 20) * 4;
	unsigned seed = 12345;

	if (bytes < (64u << 20))
		bytes = 64u << 20;
	if (bytes > (1u << 30))
		bytes = 1u << 30;
	l->nlines = bytes / 64;
	l->buf = aligned_alloc(64, l->nlines * 64);
	if (!l->buf)
		return -ENOMEM;
	for (size_t i = 0; i < l->nlines; i++)
		l->buf[i * LINE_WORDS] = i;
	for (size_t i = l->nlines - 1; i > 0; i--) {
		size_t j = (size_t)rand_r(&seed) % i;
		uint64_t t = l->buf[i * LINE_WORDS];

		l->buf[i * LINE_WORDS] = l->buf[j * LINE_WORDS];
		l->buf[j * LINE_WORDS] = t;
	}
	for (size_t i = 0; i < l->nlines; i++)
		l->buf[i * LINE_WORDS + 1] = i;
	return 0;
}

/* ---- the load on the simulator ----------------------------------------- */

/*
 * The built-in self-test workload (wl_builtin_selftest) repeats three
 * phases of WL_ST_PHASE_S seconds: quiet, stream, chase.  Each step waits
 * for its phase and measures inside it, WL_ST_MARGIN_S from its edges;
 * the frozen window uses the quiet phase.  The bytes streamed are what the
 * workload's stream phase reads (its DRAM-read rate over the window).
 */
struct sim_load {
	struct hw *hw;
	const struct program *prog;
	double t0;		/* sim time when the step began */
};

#define WL_ST_MARGIN_S 0.1

static double sim_now(void *ctx)
{
	struct sim_load *l = ctx;

	return hw_played_time(l->hw);
}

static unsigned sim_phase(enum st_step s)
{
	return s == ST_STREAM ? 1 : s == ST_CHASE ? 2 : 0;
}

static void sim_begin(struct st_load *ld, enum st_step s)
{
	struct sim_load *l = ld->ctx;
	struct hw_played_phase ph = { .period_s = 1 };
	double pos, wait;

	hw_played_phase(l->hw, sim_phase(s), &ph);
	pos = fmod(hw_played_time(l->hw), ph.period_s);
	wait = fmod(ph.start_s + WL_ST_MARGIN_S - pos + ph.period_s,
		    ph.period_s);
	sleep_until(ld, wait);
	l->t0 = hw_played_time(l->hw);
}

/* The headline metrics the checks use (doc/design.md section 7 names). */
#define LLC_LOOKUPS "uncore_llc_lookups_total"
#define LLC_MISSES "uncore_llc_misses_total"
#define DRAM_READ "uncore_dram_read_bytes_total"
#define CLOCK_TICKS "uncore_clock_ticks_total"

/* The program's event index of the first source of counter metric name,
 * and that source's scale; -1 when the program does not count it. */
static int head_event(const struct program *p, const char *name,
		      double *scale)
{
	const struct derived_table *tab = p->plat->derived;
	int m = derive_find(p->plat, name, NULL);

	if (m < 0)
		return -1;
	for (size_t j = 0; j < tab->nsrc; j++) {
		if (strcmp(tab->src[j].name, tab->m[m].f[0].src) != 0)
			continue;
		*scale = tab->src[j].scale;
		for (unsigned i = 0; i < p->nev; i++)
			if (strcmp(p->ev[i].name, tab->src[j].event) == 0)
				return (int)i;
	}
	return -1;
}

/*
 * Plays step s until WL_ST_MARGIN_S before its phase ends, however long
 * the window's first reading took: a fixed length from the end of that
 * reading would run into the next phase when the reading is slow (a
 * loaded machine; perf opens free-running counters on their first read,
 * the IIO ones 256 on a 2-socket spr).
 */
static double sim_run(struct st_load *ld, enum st_step s)
{
	struct sim_load *l = ld->ctx;
	struct hw_played_phase ph = { 0 };
	const struct evspec *e;
	double scale = 0, left;
	int q = head_event(l->prog, DRAM_READ, &scale);

	hw_played_phase(l->hw, sim_phase(s), &ph);
	left = ph.start_s + ph.len_s - WL_ST_MARGIN_S -
	       fmod(hw_played_time(l->hw), ph.period_s);
	/* past the phase already: inside() has the window measured again */
	if (left > 0 && left <= ph.len_s)
		sleep_until(ld, left);
	if (s != ST_STREAM || q < 0)
		return 0;
	e = &l->prog->ev[q];
	return hw_played_rate(l->hw, sim_phase(s), e->unit, e->freerun,
			      e->enc.code, e->enc.umask) *
	       scale * (hw_played_time(l->hw) - l->t0);
}

/* Did the window [t0, t1] (played time) lie within one round of step s's
 * phase? */
static bool sim_inside(struct st_load *ld, enum st_step s, double t0,
		       double t1)
{
	struct sim_load *l = ld->ctx;
	struct hw_played_phase ph = { .period_s = 1 };
	double round;

	hw_played_phase(l->hw, sim_phase(s), &ph);
	round = floor((t0 - ph.start_s) / ph.period_s) * ph.period_s +
		ph.start_s;
	return t0 >= round && t1 <= round + ph.len_s;
}

/*
 * Can the played load serve the self-test?  Its first three phases must
 * be quiet, stream and chase, each long enough to measure inside its
 * margins and short enough for the deadline, and the cycle must come
 * round again soon (the frozen window waits for the next quiet phase).
 * 0, or -1 with why (the JSON path and what is wrong).
 */
#define ST_PHASE_MIN_S 0.5
#define ST_PHASE_MAX_S 5.0
#define ST_PERIOD_MAX_S 20.0

static int sim_fit(struct hw *hw, char *why, size_t len)
{
	struct hw_played_phase ph;

	for (unsigned i = 0; i < 3; i++) {
		if (hw_played_phase(hw, i, &ph) < 0) {
			snprintf(why, len, "$.phases has %u phase%s", i,
				 i == 1 ? "" : "s");
			return -1;
		}
		if (ph.len_s < ST_PHASE_MIN_S || ph.len_s > ST_PHASE_MAX_S) {
			snprintf(why, len, "$.phases[%u].seconds is %g (the %s "
				 "phase)", i, ph.len_s, st_names[i]);
			return -1;
		}
	}
	if (ph.period_s > ST_PERIOD_MAX_S) {
		snprintf(why, len, "its phases repeat every %g s", ph.period_s);
		return -1;
	}
	return 0;
}

/* ---- measuring ------------------------------------------------------------ */

struct reading {
	uint64_t *raw;		/* per series */
	double t0;		/* load time before the first read */
	double t;		/* after the last */
};

static int read_all(struct pmu *pmu, const struct program *p,
		    const struct st_load *ld, struct reading *r)
{
	r->t0 = ld->now(ld->ctx);
	if (pmu_snapshot(pmu) < 0)
		return -1;
	for (unsigned k = 0; k < p->ns; k++)
		if (pmu_read(pmu, &p->slot[k], &r->raw[k]) < 0)
			return -1;
	r->t = ld->now(ld->ctx);
	return 0;
}

static uint64_t delta(const struct program *p, unsigned k,
		      const struct reading *a, const struct reading *b)
{
	unsigned w = p->slot[k].width;
	uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1;

	return (b->raw[k] - a->raw[k]) & m;
}

/* Counter metric name on socket sk between two readings (NAN: not
 * counted), evaluated from the platform's table. */
static double qty(const struct program *p, const char *name, unsigned sk,
		  const struct reading *a, const struct reading *b)
{
	int m = derive_find(p->plat, name, NULL);
	uint64_t *d;
	double v;

	if (m < 0 || !(d = calloc(p->ns + 1, sizeof(*d))))
		return NAN;
	for (unsigned k = 0; k < p->ns; k++)
		d[k] = delta(p, k, a, b);
	v = derive_counter(p->dplan, (size_t)m, sk, d);
	free(d);
	return v;
}

static double qty_all(const struct program *p, const char *q,
		      const struct reading *a, const struct reading *b)
{
	double sum = 0;

	for (unsigned s = 0; s < p->topo->nsockets; s++)
		sum += qty(p, q, s, a, b);
	return sum;
}

/* Programs every counter of p, with the box filter values its events
 * need, and enables the PMU. */
static int program_all(struct pmu *pmu, const struct program *p)
{
	struct pmu_slot *want = calloc(CONTROLS_PER_SERIES * (size_t)p->ns + 1,
					 sizeof(*want));
	unsigned n;
	int r;

	if (!want)
		return -ENOMEM;
	n = program_controls(p, want);
	r = pmu_reset_boxes(pmu);
	if (r == 0)
		r = pmu_program(pmu, want, n, true);
	if (r == 0)
		r = pmu_enable(pmu, true);
	free(want);
	return r;
}

/* ---- the table ------------------------------------------------------------- */

/* One run: the load, the readings, the table as it is printed. */
struct st_run {
	struct pmu *pmu;
	const struct program *p;
	struct st_load ld;
	FILE *out;
	unsigned failed;
	struct reading r[2 * ST_NSTEPS];
	double streamed;	/* bytes the stream step read */
	double t_start;		/* CLOCK_MONOTONIC seconds */
};

static void row(struct st_run *t, bool pass, const char *check,
		const char *expected, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Prints one check as soon as it is known. */
static void row(struct st_run *t, bool pass, const char *check,
		const char *expected, const char *fmt, ...)
{
	char measured[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(measured, sizeof(measured), fmt, ap);
	va_end(ap);
	fprintf(t->out, "%-26s %-26s %-34s %s\n", check, expected, measured,
		pass ? "PASS" : "FAIL");
	fflush(t->out);
	t->failed += !pass;
}

/* A check that does not apply to this backend: printed, never failed. */
static void row_na(struct st_run *t, const char *check, const char *why)
{
	fprintf(t->out, "%-26s %-26s %-34s %s\n", check, "-", why, "n/a");
	fflush(t->out);
}

/* Why counter metric q has no value: the platform has no such family,
 * or the program tested does not count it all the time (zen4's data
 * fabric DRAM events take turns: uncored.c self_test_program()). */
static const char *none_why(const struct program *p, const char *q)
{
	return derive_find(p->plat, q, NULL) < 0 ? "the platform has none"
	       : "not counted here (events in turn)";
}

/* Average rate of counter metric q over step s (all sockets). */
static double rate_of(const struct st_run *t, const char *q, enum st_step s)
{
	const struct reading *a = &t->r[2 * s], *b = &t->r[2 * s + 1];

	return qty_all(t->p, q, a, b) / (b->t - a->t);
}

/* After the stream: DRAM reads against the bytes streamed. */
static void rows_stream(struct st_run *t)
{
	const struct reading *a = &t->r[2 * ST_STREAM], *b = a + 1;
	double v = qty_all(t->p, DRAM_READ, a, b), streamed = t->streamed;
	/* what the machine reads anyway, at the quiet window's rate */
	double lo = rate_of(t, DRAM_READ, ST_QUIET) * (b->t - a->t);
	char exp[64];

	if (isnan(v)) {
		row_na(t, "DRAM reads while streaming", none_why(t->p, DRAM_READ));
		return;
	}
	snprintf(exp, sizeof(exp), "%.3g .. %.3g B", 0.9 * streamed,
		 10 * streamed + lo);
	row(t, streamed > 0 && v >= 0.9 * streamed && v <= 10 * streamed + lo,
	    "DRAM reads while streaming", exp, "%.3g B (%.0f%%)", v,
	    streamed > 0 ? 100 * v / streamed : 0);
}

/* After the chase: misses, every headline advancing, the clock, and the
 * read-back of the controls. */
static void rows_chase(struct st_run *t)
{
	static const char *const heads[] = {
		LLC_LOOKUPS, LLC_MISSES, DRAM_READ, CLOCK_TICKS };
	static const char *const head_names[] = {
		"LLC lookups", "LLC misses", "DRAM read bytes", "uncore clock" };
	const struct reading *a = &t->r[2 * ST_QUIET],
			     *b = &t->r[2 * ST_CHASE + 1];
	double quiet = rate_of(t, LLC_MISSES, ST_QUIET);
	double chase = rate_of(t, LLC_MISSES, ST_CHASE), v;
	char what[64], exp[64], msg[1024];
	unsigned unread = 0;
	int bad;

	/* a platform without an LLC family (the clients since Alder Lake:
	 * no public CBo event) has nothing to check here */
	if (derive_find(t->p->plat, LLC_MISSES, NULL) < 0) {
		row_na(t, "LLC misses, pointer chase",
		       none_why(t->p, LLC_MISSES));
	} else {
		snprintf(exp, sizeof(exp), ">= 2x quiet (%.3g/s)", quiet);
		row(t, chase > 0 && chase >= 2 * quiet,
		    "LLC misses, pointer chase", exp, "%.3g/s", chase);
	}
	for (unsigned h = 0; h < sizeof(heads) / sizeof(heads[0]); h++)
		for (unsigned s = 0; s < t->p->topo->nsockets; s++) {
			v = qty(t->p, heads[h], s, a, b);
			snprintf(what, sizeof(what), "%s advance s%u",
				 head_names[h], s);
			if (isnan(v)) {
				row_na(t, what, none_why(t->p, heads[h]));
				continue;
			}
			row(t, v > 0, what, "> 0", "%.4g", v);
		}
	for (unsigned s = 0; s < t->p->topo->nsockets; s++) {
		v = qty(t->p, CLOCK_TICKS, s, a, b) / (b->t - a->t);
		if (isnan(v)) {
			/* zen4: no uncore clock family (doc/metrics.md) */
			row_na(t, "uncore clock", "the platform has none");
			break;
		}
		snprintf(what, sizeof(what), "uncore clock s%u", s);
		row(t, v >= 0.5e9 && v <= 5e9, what, "0.5 .. 5 GHz",
		    "%.3f GHz", v / 1e9);
	}
	if (t->pmu->perf) {
		row_na(t, "read-back of controls", "perf: the kernel holds them");
		return;
	}
	bad = pmu_check_controls(t->pmu, true, msg, sizeof(msg), &unread);
	row(t, bad == 0 && unread == 0, "read-back of controls",
	    "0 differ, all readable", "%d differ, %u unreadable%s%s", bad,
	    unread, bad > 0 ? ": " : "", bad > 0 ? msg : "");
}

/* After the frozen window: no programmable counter moved. */
static void rows_frozen(struct st_run *t)
{
	const struct program *p = t->p;
	unsigned moved = 0, n = 0;

	for (unsigned k = 0; k < p->ns; k++) {
		if (p->slot[k].freerun ||
		    !plat_unit_freezable(p->plat, p->slot[k].unit))
			continue;	/* not frozen by design (snbep UBox: no
					   box control, no global control) */
		n++;
		moved += delta(p, k, &t->r[2 * ST_FROZEN],
			       &t->r[2 * ST_FROZEN + 1]) != 0;
	}
	row(t, moved == 0 && n > 0, "freeze stops counting",
	    "0 counters move", "%u of %u moved", moved, n);
}

/* ---- the run ------------------------------------------------------------- */

/* The deadline passed in step s: says so, naming the phase.  1. */
static int overdue(struct st_run *t, enum st_step s)
{
	fprintf(t->out, "FAIL: no result within the self-test's deadline of "
		"%g s: stopped in the %s phase after %.1f s\n",
		t->ld.deadline - t->t_start, st_names[s],
		mono_s() - t->t_start);
	fflush(t->out);
	return 1;
}

/* Measures step s between two readings of every baseline counter, again
 * (the load's next round) while the window strays out of its step's load
 * (the deadline bounds it).  0, 1 past the deadline, -1 on a read error
 * (printed). */
static int measure(struct st_run *t, enum st_step s)
{
	struct st_load *ld = &t->ld;
	struct reading *a = &t->r[2 * s], *b = a + 1;
	double got;

	for (;;) {
		ld->begin(ld, s);
		if (ld->late)
			return overdue(t, s);
		if (read_all(t->pmu, t->p, ld, a) < 0)
			goto hwfail;
		got = ld->run(ld, s);
		if (ld->late)
			return overdue(t, s);
		if (read_all(t->pmu, t->p, ld, b) < 0)
			goto hwfail;
		if (!ld->inside || ld->inside(ld, s, a->t0, b->t))
			break;
		fprintf(t->out, "... %s window ran out of its phase (%.2f .. "
			"%.2f s): measured again\n", st_names[s], a->t0, b->t);
		fflush(t->out);
	}
	if (s == ST_STREAM)
		t->streamed = got;
	fprintf(t->out, "... %s window measured (%.2f s)\n", st_names[s],
		t->r[2 * s + 1].t - t->r[2 * s].t);
	fflush(t->out);
	return 0;
hwfail:
	fprintf(t->out, "self-test: reading the counters in the %s phase: %s\n",
		st_names[s], hw_last_error());
	return -1;
}

/* The steps, each check printed as soon as its step is done; 0 if every
 * check passed, 1 if not (or past the deadline), -1. */
static int run_steps(struct st_run *t)
{
	int r;

	fprintf(t->out, "%-26s %-26s %-34s %s\n", "CHECK", "EXPECTED",
		"MEASURED", "VERDICT");
	fflush(t->out);
	for (int s = ST_QUIET; s <= ST_CHASE; s++) {
		if ((r = measure(t, (enum st_step)s)) != 0)
			return r;
		if (s == ST_STREAM)
			rows_stream(t);
	}
	rows_chase(t);
	if (t->pmu->perf) {
		/* the kernel's counters never stop: nothing to freeze */
		row_na(t, "freeze stops counting", "perf: no freeze");
	} else {
		/* Frozen: no programmable counter may move. */
		pmu_enable(t->pmu, false);
		if ((r = measure(t, ST_FROZEN)) != 0)
			return r;
		rows_frozen(t);
	}
	fprintf(t->out, "%s: %u check%s failed\n", t->failed ? "FAIL" : "PASS",
		t->failed, t->failed == 1 ? "" : "s");
	return t->failed ? 1 : 0;
}

/* The load: played by the simulator's workload (refused unless it fits),
 * or generated here.  0, or -1 with the reason printed. */
static int load_init(struct st_run *t, bool sim, struct hw_load *hl,
		     struct sim_load *sl)
{
	char why[160];

	if (!sim) {
		t->ld = (struct st_load){ hw_begin, hw_run, hw_now, NULL, hl };
		if (hw_load_init(hl) == 0)
			return 0;
		fprintf(t->out, "self-test: cannot allocate the load buffer\n");
		return -1;
	}
	t->ld = (struct st_load){ sim_begin, sim_run, sim_now, sim_inside,
				  sl };
	if (sim_fit(t->pmu->hw, why, sizeof(why)) == 0)
		return 0;
	fprintf(t->out, "self-test: the workload cannot play the self-test's "
		"load: %s.  It needs its first three phases to be quiet, "
		"stream (DRAM reads) and pointer chase (LLC misses), %.1f to "
		"%.0f s each, in a cycle of at most %.0f s, as the built-in "
		"self-test workload (used without --workload) does\n", why,
		ST_PHASE_MIN_S, ST_PHASE_MAX_S, ST_PERIOD_MAX_S);
	return -1;
}

int selftest_run(struct pmu *pmu, const struct program *p, bool sim,
		 double deadline_s, FILE *out)
{
	struct st_run t = { .pmu = pmu, .p = p, .out = out,
			    .t_start = mono_s() };
	struct hw_load hl = { 0 };
	struct sim_load sl = { .hw = pmu->hw, .prog = p };
	int rc = -1;

	for (unsigned i = 0; i < 2 * ST_NSTEPS; i++)
		t.r[i].raw = calloc(p->ns ? p->ns : 1, sizeof(uint64_t));
	fprintf(out, "uncored self-test on %s (%s): load %s\n", p->plat->id,
		sim ? "simulator" : "hardware",
		sim ? "played by the simulator's workload" : "generated here");
	fflush(out);
	if (load_init(&t, sim, &hl, &sl) < 0)
		goto out;
	t.ld.deadline = t.t_start + deadline_s;
	if (program_all(pmu, p) < 0) {
		fprintf(out, "self-test: cannot program the baseline: %s\n",
			hw_last_error());
		goto out;
	}
	/* One reading before the windows: the perf backend opens the
	 * free-running counters at their first read, which takes long with
	 * hundreds of them (spr's IIO ports): not in the quiet window. */
	if (read_all(pmu, p, &t.ld, &t.r[0]) < 0) {
		fprintf(out, "self-test: reading the baseline: %s\n",
			hw_last_error());
		goto out;
	}
	rc = run_steps(&t);
out:
	if (pmu_release(pmu) < 0)
		fprintf(out, "self-test: leaving the PMU idle: %s\n",
			hw_last_error());
	fflush(out);
	for (unsigned i = 0; i < 2 * ST_NSTEPS; i++)
		free(t.r[i].raw);
	free(hl.buf);
	return rc;
}
