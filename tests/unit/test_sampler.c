/*
 * test_sampler.c - the sampler against the simulator: programs and
 * placement, the wrap-time interval limit, exact deltas and 64-bit
 * extension across wraps, read errors marking one series, interference
 * detection, release leaving the PMU idle, and - the part meant for
 * ThreadSanitizer - the sampler thread ticking at 10 ms while readers
 * render /metrics and read the rings and the main thread swaps programs.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/hw_sim.h"
#include "serve/metrics.h"
#include "serve/api_claims.h"
#include "core/sampler.h"
#include "tests/tap.h"

static char dir[] = "/tmp/test_sampler_XXXXXX";

/* One clock for the sampler, the claims and the simulator: it moves only
 * when the test says so (main() starts it). */
static struct clock_manual fake;
#define fake_clock (fake.src)

static const char *wl_path(const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/wl.json", dir);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

struct rig {
	struct hw hw;
	struct topology topo;
	struct pmu pmu;
	struct evspec ev[SAMPLER_MAX_EVENTS];
	unsigned nev;
};

static void rig_open(struct rig *r, const char *wl)
{
	struct hw_opts o = { .sim_workload = wl };
	char why[256];

	memset(r, 0, sizeof(*r));
	if (hw_open(&r->hw, &hw_sim_ops, &o) < 0) {
		printf("Bail out! %s\n", hw_last_error());
		exit(1);
	}
	r->topo.plat = hw_sim_platform(&r->hw);
	if (plat_discover(r->topo.plat, &r->hw, &r->topo, &(struct hw_cpu_map){
			  .cpus_per_package = SIM_CPUS_PER_SOCKET }) < 0) {
		printf("Bail out! discover: %s\n", hw_last_error());
		exit(1);
	}
	/* the simulator counts on the test's clock: time moves only when a
	 * test advances it */
	hw_sim_set_clock(&r->hw, fake_clock.mono_ns, fake_clock.ctx);
	if (pmu_init(&r->pmu, &r->hw, &r->topo) < 0) {
		printf("Bail out! pmu_init: %s\n", hw_last_error());
		exit(1);
	}
	for (const char *const *b = r->topo.plat->baseline; *b; b++)
		if (sched_resolve(r->topo.plat, *b, false, &r->ev[r->nev++], why,
				  sizeof(why)) < 0) {
			printf("Bail out! %s\n", why);
			exit(1);
		}
}

static struct program *prog(struct rig *r, unsigned cap)
{
	char why[256];
	struct program *p = program_new(&r->topo, &r->pmu, r->ev, r->nev, cap,
					100, why, sizeof(why));

	if (!p)
		printf("# program_new: %s\n", why);
	return p;
}

static int find(const struct program *p, const char *ev, unsigned inst)
{
	for (unsigned i = 0; i < p->ns; i++)
		if (strcmp(p->ev[p->sev[i]].name, ev) == 0 && p->slot[i].inst == inst)
			return (int)i;
	return -1;
}

/* Is value q of p's derived values a counter's? */
static bool is_counter(const struct program *p, unsigned q)
{
	const struct derived_table *tab = derive_table(p->dplan);

	for (size_t m = 0; m < tab->nm; m++)
		for (unsigned s = 0; s < p->topo->nsockets; s++)
			for (unsigned in = 0; in < derive_nper(p->dplan, m); in++)
				if (derive_index(p->dplan, m, s, in) == q)
					return tab->m[m].type == DM_COUNTER;
	return false;
}

/* Lets ms of (fake) time pass. */
static void advance_ms(unsigned ms)
{
	clock_manual_advance(&fake, (int64_t)ms * 1000000);
}

/* A sampler on the fake clock. */
static struct sampler *fake_sampler(struct rig *r, struct program *p,
				    const struct sampler_cfg *cfg,
				    struct claims *cl)
{
	struct sampler *s = sampler_new(&r->pmu, p, cfg, cl);

	if (s)
		sampler_set_clock(s, &fake_clock);
	if (cl)
		claims_set_clock(cl, &fake_clock);
	return s;
}

/* Waits (really) for ms: only for the threaded test. */
static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void test_program(void)
{
	struct rig r;
	struct program *p;

	rig_open(&r, wl_path("{\"platform\":\"skl\",\"cbo_count\":3,"
			     "\"phases\":[{\"seconds\":1,\"rates\":{}}]}"));
	p = prog(&r, 8);
	ok(p != NULL, "default baseline builds a program");
	/* 3 CBos x 2 + 2 ARB + 1 fixed + 5 IMC */
	is_int(p->ns, 14, "14 series on a 3-CBo part");
	is_int(program_max_interval_ms(p), 2147,
	       "32-bit IMC counters limit the interval to 2147 ms");
	{
		int i = find(p, "UNC_ARB_TRK_OCCUPANCY.ALL", 0);

		ok(i >= 0 && p->slot[i].idx == 0, "ARB occupancy placed on counter 0");
		is_u64(p->slot[i].ctl_val, 0x400180, "its control value");
		i = find(p, "UNC_CBO_CACHE_LOOKUP.ANY_I", 2);
		ok(i >= 0, "CBo 2 counts ANY_I");
		is_u64(p->slot[i].ctl.reg, 0x720 + p->slot[i].idx, "at its evtsel");
	}
	program_put(p);
	pmu_free(&r.pmu);
	hw_close(&r.hw);
}

static void test_ticks(void)
{
	struct rig r;
	struct program *p, *cur;
	struct sampler *s;
	struct sampler_cfg cfg = { .interval_ms = 100, .ring_capacity = 8,
				   .check_every = 2, .policy = POLICY_RECLAIM };
	uint64_t *w, v;
	struct snap st;
	struct hw_addr g;
	int i;

	rig_open(&r, wl_path(
		"{\"platform\":\"skl\",\"cbo_count\":4,\"uclk_hz\":1000000000,"
		"\"phases\":[{\"seconds\":100,\"rates\":{"
		"\"cbo:0x34:0x8f\":1.2e12,\"cbo:0x34:0x88\":1.0e8,"
		"\"imc:DRAM_DATA_READS\":9.0e8}}],"
		"\"faults\":[{\"at\":0.35,\"kind\":\"eio\",\"target\":\"msr:0x717\",\"count\":1}]}"));
	p = prog(&r, 8);
	s = fake_sampler(&r, p, &cfg, NULL);
	/* 3e11/s per CBo is within the tables' bound (64 per cycle at 5
	 * GHz); start the counters 6e10 short of 2^44 so that they wrap
	 * within the test (before the first reading: not a jump) */
	for (unsigned c = 0; c < 4; c++)
		for (unsigned k = 0; k < 2; k++) {
			struct hw_addr a = hw_msr(0, 0x706 + 0x10 * c + k);

			hw_write(&r.hw, &a, (1ull << 44) - 60000000000ull);
		}
	sampler_tick(s);	/* programs, first reading */
	g = hw_msr(0, 0xe01);
	hw_read(&r.hw, &g, &v);
	is_u64(v, 1ull << 29, "first tick enables the PMU");
	cur = sampler_get(s);
	w = calloc(snap_words(cur->ns, cur->nvals), sizeof(uint64_t));
	for (int k = 0; k < 5; k++) {
		advance_ms(100);
		sampler_tick(s);
	}
	metrics_snapshot(cur, w, &st);
	is_u64(st.ticks, 6, "six ticks");
	/* ANY_MESI at 3e11/s per CBo from 2^44 - 6e10 wraps within the
	 * second interval; ANY_I at 2.5e7/s does not */
	is_u64(st.wraps, 4, "each CBo's 44-bit ANY_MESI counter wrapped once");
	is_u64(st.interference, 0, "wraps at a possible rate are no interference");
	{
		/* 3e11/s per CBo over five 100 ms intervals: the total is
		 * exactly rate x time, wraps notwithstanding. */
		uint64_t tot = w[SNAP_WORDS + find(cur, "UNC_CBO_CACHE_LOOKUP.ANY_MESI", 0)];

		is_u64(tot, 150000000000ull,
		       "CBo 0 ANY_MESI total is 3e11/s x 0.5 s through a wrap");
	}
	i = find(cur, "UNC_CBO_CACHE_LOOKUP.ANY_I", 1);
	ok(i >= 0, "CBo 1 ANY_I series exists");
	is_u64(st.hw_errors, 1, "the injected EIO is counted");
	ok(!isnan(metrics_value(cur, w, "uncore_clock_hertz", NULL, 0, 0)),
	   "clock gauge present");
	is_near(metrics_value(cur, w, "uncore_clock_hertz", NULL, 0, 0), 1e9,
		1e-12, "clock exactly 1 GHz");

	/* Interference: another agent clears the global control. */
	hw_write(&r.hw, &g, 0);
	advance_ms(20);
	sampler_tick(s);
	metrics_snapshot(cur, w, &st);
	is_u64(st.interference, 1, "foreign write to 0xE01 detected next tick");
	ok(isnan(metrics_value(cur, w, "uncore_llc_hit_ratio", NULL, 0, 0)),
	   "no gauge from the disturbed tick");
	hw_read(&r.hw, &g, &v);
	is_u64(v, 1ull << 29, "reclaim: global control re-enabled");
	/* a control register changed behind the daemon's back */
	{
		struct hw_addr c = hw_msr(0, 0x700);

		hw_write(&r.hw, &c, 0x400122);
		sampler_tick(s);
		sampler_tick(s);
		metrics_snapshot(cur, w, &st);
		is_u64(st.interference, 2, "changed event select found by the "
		       "next tick's control read-back");
		hw_read(&r.hw, &c, &v);
		ok(v != 0x400122, "and reprogrammed");
	}
	free(w);
	program_put(cur);

	/* A stall (readiness, the watchdog) is 3 intervals without a tick,
	 * never under 1 s: 100 ms intervals give 1 s, 2 s ones 6 s. */
	is_u64(sampler_stall_ns(s), 1000000000ull,
	       "stall at 100 ms intervals: the 1 s floor, not 300 ms");
	cfg.interval_ms = 2000;
	sampler_swap(s, prog(&r, 8), &cfg);
	advance_ms(100);
	sampler_tick(s);
	is_u64(sampler_stall_ns(s), 6000000000ull,
	       "stall at 2 s intervals: 3 intervals, 6 s");

	/* Release leaves every control register zero. */
	sampler_free(s);
	is_int(pmu_release(&r.pmu), 0, "release");
	{
		int nz = 0;
		static const uint32_t regs[] = { 0xe01, 0x394, 0x700, 0x701, 0x710,
						 0x711, 0x720, 0x721, 0x730,
						 0x731, 0x3b2, 0x3b3 };

		for (size_t k = 0; k < sizeof(regs) / sizeof(regs[0]); k++) {
			struct hw_addr a = hw_msr(0, regs[k]);

			hw_read(&r.hw, &a, &v);
			nz += v != 0;
		}
		is_int(nz, 0, "every control register is zero after release");
	}
	pmu_free(&r.pmu);
	hw_close(&r.hw);
}

/* The validity bit of series i in the latest sample of p. */
static bool latest_invalid(struct program *p, int i)
{
	uint64_t *w = calloc(sample_words(p->ns), sizeof(uint64_t));
	bool bad;

	ring_read(p->samples, ring_head(p->samples), w);
	bad = (w + SW_HDR + p->ns)[i / 64] >> (i % 64) & 1;
	free(w);
	return bad;
}

static uint64_t latest_flags(struct program *p)
{
	uint64_t *w = calloc(sample_words(p->ns), sizeof(uint64_t)), f;

	ring_read(p->samples, ring_head(p->samples), w);
	f = w[SW_FLAGS];
	free(w);
	return f;
}

/*
 * Issue 15 items 4 and 5: a counter reset by another agent is not a wrap,
 * and one unreadable control register does not switch off the check of
 * the others.
 */
static void test_resets(void)
{
	struct rig r;
	struct program *p, *cur;
	struct sampler *s;
	struct sampler_cfg cfg = { .interval_ms = 100, .ring_capacity = 16,
				   .check_every = 1, .policy = POLICY_RECLAIM };
	struct snap st;
	uint64_t *w;
	int i0, i1;

	rig_open(&r, wl_path(
		"{\"platform\":\"skl\",\"cbo_count\":4,\"uclk_hz\":1000000000,"
		"\"phases\":[{\"seconds\":100,\"rates\":{"
		"\"cbo:0x34:0x8f\":4.0e9,\"imc:DRAM_DATA_READS\":1.0e8}}],"
		"\"faults\":[{\"at\":0,\"kind\":\"eio\",\"target\":\"msr:0x700\","
		"\"count\":1000000}]}"));
	p = prog(&r, 16);
	s = fake_sampler(&r, p, &cfg, NULL);
	for (int k = 0; k < 3; k++) {
		sampler_tick(s);
		advance_ms(30);
	}
	cur = sampler_get(s);
	w = calloc(snap_words(cur->ns, cur->nvals), sizeof(uint64_t));
	i0 = find(cur, "UNC_CBO_CACHE_LOOKUP.ANY_MESI", 0);
	i1 = find(cur, "UNC_CBO_CACHE_LOOKUP.ANY_MESI", 1);
	metrics_snapshot(cur, w, &st);
	is_u64(st.interference, 0, "no interference yet");
	ok(latest_invalid(cur, i0 >= 0 ? i0 : 0),
	   "CBo 0, whose control cannot be read back, is not exported as valid");
	ok(!latest_invalid(cur, i1 >= 0 ? i1 : 0), "CBo 1 is");
	/* another agent clears CBo 1's event select (CBo n's controls at
	 * 0x700 + 0x10n, counters at 0x706 + 0x10n: plat_skl.c) */
	{
		struct hw_addr c = hw_msr(0, 0x710 + cur->slot[i1].idx);

		hw_write(&r.hw, &c, 0);
	}
	sampler_tick(s);
	metrics_snapshot(cur, w, &st);
	is_u64(st.interference, 1, "a foreign write to CBo 1 is found although "
	       "CBo 0's control is unreadable");
	advance_ms(30);
	sampler_tick(s);
	advance_ms(30);
	sampler_tick(s);
	/* a reset of a counter by another agent: not a wrap */
	{
		uint64_t before, after;
		struct hw_addr c = hw_msr(0, 0x716 + cur->slot[i1].idx);

		metrics_snapshot(cur, w, &st);
		before = w[SNAP_WORDS + i1];
		hw_write(&r.hw, &c, 0);
		advance_ms(30);
		sampler_tick(s);
		metrics_snapshot(cur, w, &st);
		after = w[SNAP_WORDS + i1];
		is_u64(st.interference, 2, "a counter reset is interference");
		ok(latest_invalid(cur, i1), "its delta is invalid");
		ok(latest_flags(cur) & SF_INTERFERENCE, "the sample is flagged");
		ok(after - before < 1000000000ull,
		   "the total did not jump by ~2^44 (%.3g)",
		   (double)(after - before));
		advance_ms(30);
		sampler_tick(s);
		metrics_snapshot(cur, w, &st);
		ok(!latest_invalid(cur, i1), "the next delta is valid again");
		is_u64(st.interference, 2, "and counted once");
	}
	free(w);
	program_put(cur);
	sampler_free(s);
	pmu_free(&r.pmu);
	hw_close(&r.hw);
}

/*
 * Issue 15 item 12: can any path make a _total decrease?  A seeded random
 * walk of reloads (reordered, split, dropped and restored events: the
 * placement and the scaling change), claims that multiplex with the
 * baseline, counter resets, foreign writes to the global control and
 * read errors, with every quantity total checked after every tick: while
 * a family is exported it never goes down, and when it comes back it
 * does not restart below where it was.
 */
static struct program *variant(struct rig *r, unsigned v)
{
	static const char *const vs[][12] = {
		{ NULL },	/* the platform default */
		{ "UNC_CBO_CACHE_LOOKUP.ANY_I", "UNC_CBO_CACHE_LOOKUP.ANY_MESI",
		  "UNC_CLOCK.SOCKET", "DRAM_DATA_READS", "DRAM_DATA_WRITES", NULL },
		{ "UNC_CBO_CACHE_LOOKUP.ANY_MESI:split=0/2",
		  "UNC_CBO_CACHE_LOOKUP.ANY_I:split=1/2", "UNC_CLOCK.SOCKET",
		  "DRAM_DATA_READS", NULL },
		{ "UNC_CLOCK.SOCKET", "DRAM_DATA_WRITES", "UNC_ARB_TRK_REQUESTS.ALL",
		  NULL },
		{ "UNC_ARB_TRK_OCCUPANCY.ALL", "UNC_CBO_CACHE_LOOKUP.READ_I",
		  "UNC_CBO_CACHE_LOOKUP.ANY_MESI", "UNC_CLOCK.SOCKET",
		  "DRAM_DATA_READS", NULL },
	};
	struct evspec ev[SAMPLER_MAX_EVENTS];
	unsigned n = 0;
	char why[256];
	struct program *p;

	if (!vs[v][0])
		return prog(r, 8);
	for (; vs[v][n]; n++)
		if (sched_resolve(r->topo.plat, vs[v][n], false, &ev[n], why,
				  sizeof(why)) < 0) {
			printf("# %s\n", why);
			return NULL;
		}
	p = program_new(&r->topo, &r->pmu, ev, n, 8, 100, why, sizeof(why));
	if (!p)
		printf("# program_new: %s\n", why);
	return p;
}

static void test_monotonic(void)
{
	struct rig r;
	struct sampler *s;
	struct claims *cl;
	struct sampler_cfg cfg = { .interval_ms = 100, .ring_capacity = 8,
				   .check_every = 3, .policy = POLICY_RECLAIM };
	struct claims_cfg ccfg = { .max_per_uid = 8, .max_total = 8,
				   .default_ttl_s = 60, .max_ttl_s = 60,
				   .interval_ms = 100 };
	double last[256] = { 0 };	/* skl, one socket: a few dozen */
	unsigned seed = 15, steps = 0, decreases = 0, reloads = 0, faults = 0,
		 nclaims = 0, nticks = 0;
	char ids[8][CLAIM_ID_MAX];
	unsigned nids = 0;
	static const char *const claim_bodies[] = {
		"{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_MESI\",\"UNC_CBO_CACHE_LOOKUP.ANY_ES\"]}",
		"{\"events\":[\"UNC_CBO_CACHE_LOOKUP.READ_I\",\"UNC_CBO_CACHE_LOOKUP.WRITE_M\"]}",
		"{\"events\":[\"UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST\"]}",
	};

	rig_open(&r, wl_path(
		"{\"platform\":\"skl\",\"cbo_count\":4,\"uclk_hz\":1000000000,"
		"\"phases\":[{\"seconds\":600,\"rates\":{"
		"\"cbo:0x34:0x8f\":4.0e9,\"cbo:0x34:0x88\":1.0e9,"
		"\"cbo:0x34:0x21\":3.0e8,\"arb:0x81:0x01\":5.0e7,"
		"\"arb:0x80:0x01\":4.0e8,"
		"\"imc:DRAM_DATA_READS\":2.0e8,\"imc:DRAM_DATA_WRITES\":1.0e8}}],"
		"\"faults\":[{\"at\":0.3,\"kind\":\"eio\",\"target\":\"msr:0x706\",\"count\":3},"
		"{\"at\":0.9,\"kind\":\"eio\",\"target\":\"msr:0x717\",\"count\":2}]}"));
	cl = claims_new(&r.pmu, &ccfg);
	s = fake_sampler(&r, prog(&r, 8), &cfg, cl);
	for (steps = 0; steps < 240; steps++) {
		unsigned op = (unsigned)rand_r(&seed) % 20;
		struct program *cur;
		uint64_t *w;
		struct snap st;

		if (op == 0) {			/* SIGHUP with another baseline */
			struct program *np = variant(&r, (unsigned)rand_r(&seed) % 5);

			if (np) {
				sampler_swap(s, np, &cfg);
				reloads++;
			}
		} else if (op == 1 && nids < 8) {	/* a claim */
			struct claims_reply rep = { 0 };
			const char *b = claim_bodies[(unsigned)rand_r(&seed) % 3];
			struct json_object *v;

			api_claims_create(cl, 1000, 1, b, strlen(b), &rep);
			if (rep.body && json_object_object_get_ex(rep.body, "id", &v)) {
				snprintf(ids[nids++], CLAIM_ID_MAX, "%s",
					 json_object_get_string(v));
				nclaims++;
			}
			json_object_put(rep.body);
		} else if (op == 2 && nids) {	/* a release */
			struct claims_reply rep = { 0 };

			api_claims_release(cl, ids[--nids], 1000, &rep);
			json_object_put(rep.body);
		} else if (op == 3) {		/* another agent resets a counter */
			struct hw_addr a = hw_msr(0, 0x706 + 0x10 * ((unsigned)rand_r(&seed) % 4) +
						  (unsigned)rand_r(&seed) % 2);

			hw_write(&r.hw, &a, 0);
			faults++;
		} else if (op == 4) {		/* ... or clears the global enable */
			struct hw_addr a = hw_msr(0, 0xe01);

			hw_write(&r.hw, &a, 0);
			faults++;
		}
		advance_ms(3);
		sampler_tick(s);
		nticks++;
		cur = sampler_get(s);
		w = calloc(snap_words(cur->ns, cur->nvals), sizeof(uint64_t));
		if (metrics_snapshot(cur, w, &st) == 0)
			for (unsigned q = 0; q < cur->nvals && q < 256; q++) {
				double v;

				memcpy(&v, w + SNAP_WORDS + 2 * cur->ns + q,
				       sizeof(v));
				/* gauges move both ways: counters only */
				if (isnan(v) || !is_counter(cur, q))
					continue;
				if (v < last[q] && !decreases++)
					printf("# step %u: value %u went from "
					       "%.0f to %.0f\n", steps, q,
					       last[q], v);
				last[q] = v;
			}
		free(w);
		program_put(cur);
	}
	is_int((int)decreases, 0, "no total went down in %u ticks (%u reloads, "
	       "%u claims, %u foreign writes, 5 read errors)", nticks, reloads,
	       nclaims, faults);
	ok(reloads >= 5 && nclaims >= 5 && faults >= 10,
	   "the walk exercised reloads, claims and faults");
	sampler_free(s);
	claims_free(cl);
	pmu_free(&r.pmu);
	hw_close(&r.hw);
}

/* ---- concurrency (run under TSan) ------------------------------------ */

struct reader {
	struct sampler *s;
	atomic_int *stop;
	atomic_uint renders, reads, bad;	/* the main thread watches them */
};

static void *reader_main(void *arg)
{
	struct reader *rd = arg;

	while (!atomic_load(rd->stop)) {
		struct program *p = sampler_get(rd->s);
		struct metrics_info info = { .version = "t", .backend = "sim",
					     .interval_ms = 10 };
		struct buf b;
		uint64_t *w;

		if (!p)
			continue;
		buf_init(&b);
		if (metrics_render(&b, PROM_TEXT_004, p, &info) < 0 ||
		    !strstr(b.p, "uncored_ticks_total"))
			rd->bad++;
		rd->renders++;
		buf_free(&b);
		w = calloc(sample_words(p->ns), sizeof(uint64_t));
		for (uint64_t seq = ring_tail(p->samples);
		     seq && seq <= ring_head(p->samples); seq++)
			if (ring_read(p->samples, seq, w) == 0) {
				rd->reads++;
				if (w[SW_GEN] != p->gen)
					rd->bad++;
			}
		free(w);
		program_put(p);
	}
	return NULL;
}

/*
 * Waits (at most secs of real time) until the sampler runs program
 * generation gen with at least 5 samples in its ring and the readers have
 * rendered /metrics at least renders times and read at least reads ring
 * samples in all.  True if they did.
 */
static bool busy_until(struct sampler *s, struct reader *rd, uint64_t gen,
		       unsigned renders, unsigned reads, double secs)
{
	for (long ms = 0; ms < (long)(secs * 1000); ms++) {
		struct program *p = sampler_get(s);
		bool ran = p && p->gen >= gen && ring_head(p->samples) >= 5;
		unsigned n = 0, nr = 0;

		program_put(p);
		for (int i = 0; i < 3; i++) {
			n += atomic_load(&rd[i].renders);
			nr += atomic_load(&rd[i].reads);
		}
		if (ran && n >= renders && nr >= reads)
			return true;
		sleep_ms(1);
	}
	return false;
}

static void test_threads(void)
{
	struct rig r;
	struct sampler_cfg cfg = { .interval_ms = 10, .ring_capacity = 64,
				   .check_every = 5, .policy = POLICY_RECLAIM };
	struct sampler *s;
	struct reader rd[3];
	pthread_t th[3];
	atomic_int stop = 0;
	unsigned renders = 0, reads = 0, bad = 0;
	struct program *p;

	rig_open(&r, wl_path("{\"platform\":\"skl\",\"cbo_count\":4,\"phases\":[{\"seconds\":5,"
			     "\"rates\":{\"cbo:0x34:0x8f\":1e9}}]}"));
	/* a real thread on a real timer: real time */
	hw_sim_set_clock(&r.hw, clock_system.mono_ns, clock_system.ctx);
	s = sampler_new(&r.pmu, prog(&r, 64), &cfg, NULL);
	sampler_tick(s);
	is_int(sampler_start(s), 0, "sampler thread starts");
	for (int i = 0; i < 3; i++) {
		rd[i] = (struct reader){ .s = s, .stop = &stop };
		pthread_create(&th[i], NULL, reader_main, &rd[i]);
	}
	/* the readers at work on the sampler's samples */
	ok(busy_until(s, rd, 1, 5, 0, 30), "readers and the sampler thread at "
	   "work (5 renders, 5 samples)");
	/* swap in a program with a different ring while readers read */
	r.nev -= 5;	/* drop the IMC events */
	p = prog(&r, 32);
	sampler_swap(s, p, &cfg);
	ok(busy_until(s, rd, 2, 11, 101, 30), "... and on the swapped "
	   "program's (11 renders, 101 ring reads, 5 samples of its ring)");
	atomic_store(&stop, 1);
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		renders += atomic_load(&rd[i].renders);
		reads += atomic_load(&rd[i].reads);
		bad += atomic_load(&rd[i].bad);
	}
	sampler_stop(s);
	p = sampler_get(s);
	is_int(p->ns, 11, "the swapped program is current (11 series)");
	is_int(ring_capacity(p->samples), 32, "with its own ring");
	program_put(p);
	ok(renders > 10, "readers rendered /metrics concurrently (%u)", renders);
	ok(reads > 100, "readers read ring samples concurrently (%u)", reads);
	is_int(bad, 0, "no bad render or mismatched sample");
	ok(sampler_last_tick(s) > 0, "sampler ticked on its thread");
	sampler_free(s);
	pmu_release(&r.pmu);
	pmu_free(&r.pmu);
	hw_close(&r.hw);
}

/* ---- exact multiplexing on a fake clock ---------------------------- */

/*
 * A hardware read hook: the first counter read of an armed tick asks
 * another thread to take the claims lock (claims_count()) and waits up
 * to 5 s for it.  With the lock held across the hardware section (as it
 * was) the thread cannot finish until the tick ends.
 */
static const struct hw_ops *real_ops;
static struct hw_ops hook_ops;
static struct claims *hook_claims;
static atomic_int hook_armed;
static int hook_result = -1;	/* 1: the lock was free during a read */

static void *count_claims(void *arg)
{
	(void)arg;
	claims_count(hook_claims);
	return NULL;
}

static int hook_read(struct hw *hw, const struct hw_addr *a, uint64_t *v)
{
	if (atomic_exchange(&hook_armed, 0)) {
		pthread_t t;
		struct timespec dl;

		pthread_create(&t, NULL, count_claims, NULL);
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += 5;
		hook_result = pthread_timedjoin_np(t, NULL, &dl) == 0;
		if (!hook_result)
			pthread_detach(t);	/* finishes when the tick does */
	}
	return real_ops->read(hw, a, v);
}

/*
 * 300 claims (above the old fixed 256) on one CBo event beside the
 * baseline, which holds both CBo counters: k = 301 groups share them.
 * The clock moves exactly 100 ms a tick, so enabled and running times
 * and the counts (1e7/s a socket, 5e6/s per CBo) are exact: each claim's time_enabled
 * is every interval since its first tick, its time_running the
 * intervals it ran, each counted interval is 5e5 events per instance,
 * and every group ran at least floor(intervals/k) of them.  No sleep.
 */
static void test_exact_mux(void)
{
	enum { K = 300, T = 700, IV = 100000000 };
	struct rig r;
	struct program *p;
	struct sampler *s;
	struct claims *cl;
	struct sampler_cfg cfg = { .interval_ms = 100, .ring_capacity = 8,
				   .check_every = 0, .policy = POLICY_RECLAIM };
	struct claims_cfg ccfg = { .max_per_uid = 1000, .max_total = 1000,
				   .default_ttl_s = 3600, .max_ttl_s = 3600,
				   .interval_ms = 100 };
	const char *body = "{\"events\":[\"UNC_CBO_XSNP_RESPONSE.HITM_XCORE\"]}";
	unsigned created = 0, lo = T, bad_en = 0, bad_count = 0;
	static char ids[K][CLAIM_ID_MAX];
	uint64_t claim_ivs = 0, base_ivs;
	struct program *cur;
	struct snap st;
	uint64_t *w;

	rig_open(&r, wl_path("{\"platform\":\"skl\",\"cbo_count\":2,"
			     "\"phases\":[{\"seconds\":1000,\"rates\":{"
			     "\"cbo:0x22:0x48\":1.0e7}}]}"));
	real_ops = r.hw.ops;
	hook_ops = *real_ops;
	hook_ops.read = hook_read;
	r.hw.ops = &hook_ops;
	p = prog(&r, 8);
	cl = claims_new(&r.pmu, &ccfg);
	claims_set_clock(cl, &fake_clock);
	hook_claims = cl;
	s = sampler_new(&r.pmu, p, &cfg, cl);
	sampler_set_clock(s, &fake_clock);
	for (unsigned i = 0; i < K; i++) {
		struct claims_reply rep = { 0 };

		struct json_object *v;

		api_claims_create(cl, 1000, 1, body, strlen(body), &rep);
		created += rep.status == 201;
		if (rep.body && json_object_object_get_ex(rep.body, "id", &v))
			snprintf(ids[i], CLAIM_ID_MAX, "%s",
				 json_object_get_string(v));
		json_object_put(rep.body);
	}
	is_int(created, K, "%d claims on one event admitted", K);
	for (unsigned t = 0; t < T; t++) {
		if (t == 5)
			atomic_store(&hook_armed, 1);
		sampler_tick(s);
		clock_manual_advance(&fake, IV);
	}
	is_int(hook_result, 1, "another thread took the claims lock while the "
	       "tick was reading counters");
	for (unsigned i = 0; i < K; i++) {
		struct claim c;
		struct claims_err e;
		const char *id = ids[i];
		uint64_t ivs;

		if (claims_get(cl, id, 0, &c, &e) < 0) {
			ok(0, "claim %s: %s", id, e.msg);
			continue;
		}
		/* the first tick starts the clock: T - 1 intervals */
		bad_en += c.enabled_ns != (uint64_t)(T - 1) * IV;
		ivs = c.running_ns / IV;
		bad_count += c.running_ns % IV != 0;
		for (unsigned k = 0; k < c.ns; k++)
			if (c.ser[k].raw != ivs * 500000 && !bad_count++)
				printf("# %s instance %u: %llu in %llu intervals\n",
				       id, c.ser[k].inst,
				       (unsigned long long)c.ser[k].raw,
				       (unsigned long long)ivs);
		claim_ivs += ivs;
		lo = ivs < lo ? (unsigned)ivs : lo;
		claim_clear(&c);
	}
	is_int(bad_en, 0, "every claim's time_enabled is exactly %d x 100 ms",
	       T - 1);
	/* the workload's rate is per socket, spread over its 2 CBos */
	is_int(bad_count, 0, "every claim counted exactly 5e5 per instance "
	       "in each 100 ms it ran");
	ok(lo >= (T - 1) / (K + 1), "every claim ran at least floor(%d/%d) = "
	   "%d intervals (least: %u)", T - 1, K + 1, (T - 1) / (K + 1), lo);
	cur = sampler_get(s);
	w = calloc(snap_words(cur->ns, cur->nvals), sizeof(uint64_t));
	metrics_snapshot(cur, w, &st);
	program_put(cur);
	is_u64(st.base_enabled_ns, (uint64_t)(T - 1) * IV,
	       "the baseline's time_enabled is exact too");
	base_ivs = st.base_running_ns / IV;
	/* the two CBo counters never idle: the baseline takes both, a
	 * claim one (the first tick only programs) */
	is_u64(claim_ivs + 2 * base_ivs, 2ull * (T - 1),
	       "the two CBo counters counted for someone every interval");
	{
		struct claims_pub *cp = sampler_claims(s);

		ok(cp && cp->live == K && cp->created == K && cp->n == 0,
		   "the sampler publishes the claim totals for scrapes");
		claims_pub_put(cp);
	}
	free(w);
	sampler_free(s);
	claims_free(cl);
	pmu_release(&r.pmu);
	pmu_free(&r.pmu);
	hw_close(&r.hw);
}


/* Yield: the foreign control is found with the PMU frozen, and the PMU
 * is handed back unfrozen. */
static void window_yield(struct rig *r, struct sampler_cfg *cfg)
{
	struct hw_addr c0 = hw_msr(0, 0x700), g = hw_msr(0, 0xe01);
	struct program *cur;
	struct sampler *s;
	uint64_t *sw, v;
	struct snap st;

	cfg->policy = POLICY_YIELD;
	s = fake_sampler(r, prog(r, 64), cfg, NULL);
	sampler_tick(s);
	advance_ms(100);
	sampler_tick(s);
	hw_write(&r->hw, &c0, 0x400122);
	advance_ms(100);
	sampler_tick(s);
	cur = sampler_get(s);
	sw = calloc(snap_words(cur->ns, cur->nvals), sizeof(uint64_t));
	metrics_snapshot(cur, sw, &st);
	ok(st.interference == 1 && st.owned == 0,
	   "yield: the changed control is found at the next tick");
	hw_read(&r->hw, &g, &v);
	is_u64(v, 1ull << 29, "yield: the PMU is left enabled, not frozen");
	hw_read(&r->hw, &c0, &v);
	is_u64(v, 0x400122, "yield: the other agent's control is left alone");
	free(sw);
	program_put(cur);
	sampler_free(s);
	pmu_release(&r->pmu);
}

/*
 * Issue 19 section 2: a foreign write that stops a counter whose value is
 * exported is seen in the tick whose delta it spoiled, even when the
 * counter's control is rewritten at that tick's group switch (a claim
 * multiplexed with the baseline) and the full check is 10 ticks away.
 * In two ticks of three another agent writes 0 to CBo 0's first control
 * (0x700) in the middle of the interval: every write is counted, and no
 * sample exports a CBo 0 delta below the workload's rate.  Then yield: the
 * detection happens with the PMU frozen, and the PMU is handed back
 * unfrozen.
 */
static void test_window(void)
{
	enum { N = 40, IV = 100000000 };
	struct rig r;
	struct program *p, *cur;
	struct sampler *s;
	struct claims *cl;
	struct sampler_cfg cfg = { .interval_ms = 100, .ring_capacity = 64,
				   .check_every = 10, .policy = POLICY_RECLAIM };
	struct claims_cfg ccfg = { .max_per_uid = 4, .max_total = 4,
				   .default_ttl_s = 3600, .max_ttl_s = 3600,
				   .interval_ms = 100 };
	const char *body = "{\"events\":[\"UNC_CBO_XSNP_RESPONSE.HITM_XCORE\"]}";
	struct claims_reply rep = { 0 };
	struct hw_addr c0 = hw_msr(0, 0x700);
	unsigned low = 0, valid = 0;
	uint64_t *sw;
	struct snap st;
	int i0;

	rig_open(&r, wl_path("{\"platform\":\"skl\",\"cbo_count\":2,"
			     "\"phases\":[{\"seconds\":1000,\"rates\":{"
			     "\"cbo:0x34:0x8f\":2.0e8,\"cbo:0x22:0x48\":1.0e7}}]}"));
	p = prog(&r, 64);
	cl = claims_new(&r.pmu, &ccfg);
	s = fake_sampler(&r, p, &cfg, cl);
	api_claims_create(cl, 0, 1, body, strlen(body), &rep);
	json_object_put(rep.body);
	for (unsigned t = 0; t < 4; t++) {
		sampler_tick(s);
		advance_ms(100);
	}
	cur = sampler_get(s);
	i0 = find(cur, "UNC_CBO_CACHE_LOOKUP.ANY_MESI", 0);
	sw = calloc(snap_words(cur->ns, cur->nvals), sizeof(uint64_t));
	metrics_snapshot(cur, sw, &st);
	is_u64(st.interference, 0, "window: no interference before the writes");
	for (unsigned t = 0; t < 2 * N; t++) {
		uint64_t *w = calloc(sample_words(cur->ns), sizeof(uint64_t));

		advance_ms(50);
		if (t % 3 != 2)		/* another agent, 2 ticks in 3 */
			hw_write(&r.hw, &c0, 0);
		advance_ms(50);
		sampler_tick(s);
		ring_read(cur->samples, ring_head(cur->samples), w);
		if (!((w + SW_HDR + cur->ns)[i0 / 64] >> (i0 % 64) & 1)) {
			valid++;
			/* 2e8/s over 2 CBos for 100 ms */
			low += w[SW_HDR + i0] != 10000000;
		}
		free(w);
	}
	metrics_snapshot(cur, sw, &st);
	/* 0x700 holds the baseline's or the claim's event at every write */
	is_u64(st.interference, 2 * N - 2 * N / 3, "window: each of the %d "
	       "foreign writes counted in its own tick", 2 * N - 2 * N / 3);
	ok(low == 0 && valid > 0, "window: no valid CBo 0 delta from an "
	   "interval it stopped in (%u of %u valid ones)", low, valid);
	free(sw);
	program_put(cur);
	sampler_free(s);
	claims_free(cl);
	pmu_release(&r.pmu);
	window_yield(&r, &cfg);
	pmu_free(&r.pmu);
	hw_close(&r.hw);
}

/*
 * Issue 19 section 2b: rates over the time the counters counted.  The
 * reading thread is held up for 20 ms inside the freeze of each 200 ms
 * tick (a read of CBo 0's counter advances the clock the sampler, the
 * pmu and the simulator share: a preemption).  The frozen counters
 * (the uncore clock, the CBo lookups) counted 180 ms of the 200 and the
 * free-running IMC counters 200: every gauge must still be the
 * workload's rate, exactly, and the sample must carry the counting
 * window.  Before, the clock read 0.9 GHz.
 */
static int64_t delay_per_read_ns;

static int delay_read(struct hw *hw, const struct hw_addr *a, uint64_t *v)
{
	if (a->space == HW_MSR && a->reg == 0x706)
		clock_manual_advance(&fake, delay_per_read_ns);
	return real_ops->read(hw, a, v);
}

static void test_counting_window(void)
{
	struct rig r;
	struct program *p;
	struct sampler *s;
	struct sampler_cfg cfg = { .interval_ms = 200, .ring_capacity = 16,
				   .check_every = 10, .policy = POLICY_RECLAIM };
	uint64_t *w, *sw;
	struct snap st;

	rig_open(&r, wl_path("{\"platform\":\"skl\",\"cbo_count\":4,"
			     "\"uclk_hz\":1000000000,"
			     "\"phases\":[{\"seconds\":1000,\"rates\":{"
			     "\"cbo:0x34:0x8f\":4.0e8,\"cbo:0x34:0x88\":1.0e8,"
			     "\"imc:DRAM_DATA_READS\":1.0e8}}]}"));
	real_ops = r.hw.ops;
	hook_ops = *real_ops;
	hook_ops.read = delay_read;
	r.hw.ops = &hook_ops;
	delay_per_read_ns = 20000000;
	p = prog(&r, 16);
	s = fake_sampler(&r, p, &cfg, NULL);
	for (unsigned t = 0; t < 5; t++) {
		sampler_tick(s);
		advance_ms(180);	/* + 20 in the freeze: 200 ms ticks */
	}
	p = sampler_get(s);
	w = calloc(sample_words(p->ns), sizeof(uint64_t));
	sw = calloc(snap_words(p->ns, p->nvals), sizeof(uint64_t));
	ring_read(p->samples, ring_head(p->samples), w);
	metrics_snapshot(p, sw, &st);
	is_u64(w[SW_INTERVAL_NS], 200000000, "window: a tick every 200 ms");
	is_u64(w[SW_COUNTED_NS], 180000000, "window: the frozen counters "
	       "counted 180 ms of it");
	is_near(metrics_value(p, sw, "uncore_clock_hertz", NULL, 0, 0), 1e9,
		1e-9, "window: the uncore clock is 1 GHz, not 0.9");
	is_near(metrics_value(p, sw, "uncore_dram_bandwidth_bytes_per_second",
			      "dram_read_bytes_per_second", 0, 0), 6.4e9, 1e-9,
		"window: DRAM reads (free-running) 6.4 GB/s over 200 ms");
	is_near(metrics_value(p, sw, "uncore_llc_hit_ratio", NULL, 0, 0), 0.75,
		1e-9, "window: the hit ratio is unchanged");
	free(w);
	free(sw);
	program_put(p);
	sampler_free(s);
	r.hw.ops = real_ops;
	pmu_release(&r.pmu);
	pmu_free(&r.pmu);
	hw_close(&r.hw);
}

/*
 * Issue 19 section 4: the plausibility bound is the event's, not one
 * figure per box.  snbep's QPI RxQ occupancy (UNC_Q_RxL_OCCUPANCY,
 * up to 128 a cycle) at 100 a cycle of a 1 GHz qfclk, 1e11/s a port: its
 * box's old bound (4 a cycle at 5 GHz, 2e10/s) threw every interval away
 * as a counter reset.  Every delta must be exact and no tick interference.
 * And the audit: on every platform no catalog event's bound exceeds its
 * box's, which the interval limit of a raw encoding relies on.
 */
static void test_occupancy_bound(void)
{
	struct rig r;
	struct program *p;
	struct sampler *s;
	struct sampler_cfg cfg = { .interval_ms = 100, .ring_capacity = 16,
				   .check_every = 10, .policy = POLICY_RECLAIM };
	uint64_t *w;
	struct snap st;
	unsigned bad = 0, over = 0;
	char why[256];

	rig_open(&r, wl_path("{\"platform\":\"snbep\",\"sockets\":1,"
			     "\"phases\":[{\"seconds\":1000,\"rates\":{"
			     "\"qpi:0x0b:0x00\":2.0e11}}]}"));
	r.nev = 0;
	if (sched_resolve(r.topo.plat, "UNC_Q_RxL_OCCUPANCY", false, &r.ev[0],
			  why, sizeof(why)) < 0) {
		ok(0, "UNC_Q_RxL_OCCUPANCY: %s", why);
		return;
	}
	r.nev = 1;
	p = prog(&r, 16);
	s = fake_sampler(&r, p, &cfg, NULL);
	for (unsigned t = 0; t < 6; t++) {
		sampler_tick(s);
		advance_ms(100);
	}
	p = sampler_get(s);
	w = calloc(snap_words(p->ns, p->nvals) + sample_words(p->ns),
		   sizeof(uint64_t));
	metrics_snapshot(p, w, &st);
	is_u64(st.interference, 0, "occupancy: 128-a-cycle QPI occupancy at "
	       "1e11/s is no counter reset");
	ring_read(p->samples, ring_head(p->samples), w);
	for (unsigned k = 0; k < p->ns; k++)
		bad += (w + SW_HDR + p->ns)[k / 64] >> (k % 64) & 1 ||
		       w[SW_HDR + k] != 10000000000ull;
	is_int(bad, 0, "occupancy: each port's delta is exactly 1e10 in 100 ms "
	       "(%u series)", p->ns);
	free(w);
	program_put(p);
	sampler_free(s);
	pmu_release(&r.pmu);
	pmu_free(&r.pmu);
	hw_close(&r.hw);

	for (unsigned i = 0; plat_all[i]; i++)
		for (size_t e = 0; e < plat_all[i]->nevents; e++) {
			const struct event *ev = &plat_all[i]->events[e];
			const struct unit_type *u = plat_unit(plat_all[i],
							      ev->unit, NULL);

			if (!u || u->kind != UNIT_PROG)
				continue;
			if (plat_event_max_rate(u, ev) > u->max_rate) {
				if (!over++)
					printf("# %s %s: %g/s above its box's "
					       "%g/s\n", plat_all[i]->id,
					       ev->name,
					       plat_event_max_rate(u, ev),
					       u->max_rate);
			}
		}
	is_int(over, 0, "every box's bound covers every event of its catalog");
}

/* Checks the turns' samples from the ring: every rotated series' delta
 * (measured, or estimated while its group is out) is its exact count per
 * interval; the multiplexed bits alternate between the two groups.
 * How many samples disagree. */
static unsigned turns_samples(const struct program *p, const int *idx,
			      const uint64_t *want, unsigned n)
{
	uint64_t *w = calloc(sample_words(p->ns), sizeof(uint64_t));
	uint64_t head = ring_head(p->samples), bad = 0;
	unsigned nw = (p->ns + 63) / 64;

	for (uint64_t q = head - 5; w && q <= head; q++) {
		unsigned out = 0;

		if (ring_read(p->samples, q, w) < 0) {
			bad++;
			continue;
		}
		bad += (w[SW_FLAGS] & (SF_VALID | SF_MUX)) != (SF_VALID | SF_MUX);
		for (unsigned k = 0; k < n; k++) {
			unsigned i = (unsigned)idx[k];
			const uint64_t *inv = w + SW_HDR + p->ns, *mux = inv + nw;

			/* the simulator counts rate x time +- 1 */
			bad += (inv[i / 64] >> (i % 64) & 1) ||
			       w[SW_HDR + i] + 2 < want[k] ||
			       w[SW_HDR + i] > want[k] + 2;
			out += mux[i / 64] >> (i % 64) & 1;
		}
		/* the pair (group 1) or the third (group 2) was out */
		bad += out != 1 && out != 2;
	}
	free(w);
	return (unsigned)bad;
}

/*
 * Baseline events that do not fit a unit's counters together take turns
 * (zen4's data fabric DRAM path; here three CBo events on skl's two CBo
 * counters): two groups, one interval each.  Their series are scaled by
 * the time they were out, so the totals are exact at a constant rate,
 * and every sample carries an estimate (the rate of the last interval
 * counted) for the series that were out, flagged multiplexed, the sample
 * valid.  A claim on the CBo counters takes its turn too.
 */
/* Ticks s 40 times at intervals of 60 and 140 ms, then counts the last
 * 20 samples in which series i (of group 2 of two groups in turn) was
 * out as in the sample before: 0 when the groups alternate strictly.
 * (Served by time, a group that counted in 60 ms would go again before
 * the one that counted in 140.) */
static unsigned turns_alternate(struct sampler *s, int i)
{
	struct program *p;
	uint64_t *w, head;
	unsigned nw, same = 0;
	int last = -1;

	for (unsigned t = 0; t < 40; t++) {
		advance_ms(t % 2 ? 140 : 60);
		sampler_tick(s);
	}
	p = sampler_get(s);
	nw = (p->ns + 63) / 64;
	w = calloc(sample_words(p->ns), sizeof(uint64_t));
	head = ring_head(p->samples);
	for (uint64_t q = head - 19; w && q <= head; q++) {
		int out;

		if (ring_read(p->samples, q, w) < 0) {
			same++;
			continue;
		}
		out = (int)((w + SW_HDR + p->ns + nw)[i / 64] >> (i % 64) & 1);
		same += out == last;
		last = out;
	}
	free(w);
	program_put(p);
	return same;
}

/* The rotated series' totals in the last snapshot against want[] per
 * interval over n or n - 1 intervals (each group's clock starts at its
 * first tick); how many are off by more than the simulator's rounding
 * (+- 1 per reading, scaled). */
static unsigned turns_totals(struct sampler *s, const int *idx,
			     const uint64_t *want, unsigned n)
{
	struct program *p = sampler_get(s);
	uint64_t *w = calloc(snap_words(p->ns, p->nvals), sizeof(uint64_t));
	unsigned off = 0;
	struct snap st;

	metrics_snapshot(p, w, &st);
	for (unsigned k = 0; k < 3; k++) {
		uint64_t est = w[SNAP_WORDS + idx[k]];
		bool near = false;

		for (unsigned m = n - 1; m <= n; m++)
			near |= est + 2 * n >= want[k] * m &&
				est <= want[k] * m + 2 * n;
		off += !near;
		if (!near)
			printf("# series %d: %llu, want %llu x %u or %u\n",
			       idx[k], (unsigned long long)est,
			       (unsigned long long)want[k], n - 1, n);
	}
	free(w);
	program_put(p);
	return off;
}

/*
 * Baseline events that do not fit a unit's counters together take turns
 * (zen4's data fabric DRAM path; here three CBo events on skl's two CBo
 * counters): two groups, one interval each.  Their series are scaled by
 * the time they were out, so the totals are exact at a constant rate,
 * and every sample carries an estimate (the rate of the last interval
 * counted) for the series that were out, flagged multiplexed, the sample
 * valid.  A claim on the CBo counters takes its turn with them, and the
 * totals stay exact.
 */
static void test_turns(void)
{
	enum { T = 41, IV = 100000000 };
	static const char *const names[] = {
		"UNC_CBO_CACHE_LOOKUP.ANY_MESI", "UNC_CBO_CACHE_LOOKUP.ANY_I",
		"UNC_CBO_XSNP_RESPONSE.HITM_XCORE" };
	/* per CBo and interval: half the per-socket rate for 100 ms */
	static const uint64_t want[] = { 1000000, 200000, 500000 };
	struct sampler_cfg cfg = { .interval_ms = 100, .ring_capacity = 64,
				   .check_every = 0, .policy = POLICY_RECLAIM };
	struct claims_cfg ccfg = { .max_per_uid = 8, .max_total = 8,
				   .default_ttl_s = 3600, .max_ttl_s = 3600,
				   .interval_ms = 100 };
	const char *body = "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_ES\"]}";
	struct claims_reply rep = { 0 };
	struct rig r;
	struct program *p;
	struct sampler *s;
	struct claims *cl;
	struct claim c;
	struct json_object *idv;
	char id[CLAIM_ID_MAX] = "";
	struct claims_err e;
	int idx[3];
	char why[256];

	rig_open(&r, wl_path("{\"platform\":\"skl\",\"cbo_count\":2,"
			     "\"phases\":[{\"seconds\":1000,\"rates\":{"
			     "\"cbo:0x34:0x8f\":2.0e7,\"cbo:0x34:0x88\":4.0e6,"
			     "\"cbo:0x22:0x48\":1.0e7}}]}"));
	sched_resolve(r.topo.plat, names[2], false, &r.ev[r.nev++], why,
		      sizeof(why));
	p = prog(&r, 64);
	ok(p && p->ngroups == 3 && p->gev[1] == p->nev - 3,
	   "3 CBo events on 2 counters: two groups take turns (%u groups)",
	   p ? p->ngroups : 0);
	if (!p)
		goto out;
	for (unsigned k = 0; k < 3; k++)
		idx[k] = find(p, names[k], 0);
	ok(idx[0] >= 0 && idx[1] >= 0 && idx[2] >= 0 &&
	   program_event_group(p, names[0]) == 1 &&
	   program_event_group(p, names[2]) == 2 &&
	   program_event_group(p, "UNC_CLOCK.SOCKET") == 0,
	   "the pair in group 1, the third in group 2, the rest in group 0");
	cl = claims_new(&r.pmu, &ccfg);
	s = fake_sampler(&r, p, &cfg, cl);
	for (unsigned t = 0; t < T; t++) {
		sampler_tick(s);
		advance_ms(100);
	}
	sampler_tick(s);
	is_int(turns_totals(s, idx, want, T), 0, "scaled totals are the "
	       "counts of the time counted and out (to the simulator's "
	       "rounding)");
	p = sampler_get(s);
	is_int(turns_samples(p, idx, want, 3), 0, "the last samples: valid, "
	       "multiplexed, every turn's delta the count of its interval "
	       "(measured or estimated)");
	program_put(p);
	api_claims_create(cl, 1000, 1, body, strlen(body), &rep);
	is_int(rep.status, 201, "a claim on a CBo counter");
	if (rep.body && json_object_object_get_ex(rep.body, "id", &idv))
		snprintf(id, sizeof(id), "%s", json_object_get_string(idv));
	json_object_put(rep.body);
	for (unsigned t = 0; t < 3 * T; t++) {
		advance_ms(100);
		sampler_tick(s);
	}
	is_int(turns_totals(s, idx, want, 4 * T), 0, "with the claim taking "
	       "its turn, the totals stay exact");
	/* three groups want the CBo counters: each counts at least a third
	 * of the intervals (the claim fits beside the single event) */
	memset(&c, 0, sizeof(c));
	if (claims_get(cl, id, 0, &c, &e) < 0)
		printf("# claims_get: %s\n", e.msg);
	ok(c.enabled_ns > 0 && c.running_ns * 3 + IV >= c.enabled_ns,
	   "the claim counted at least a third of the time (%.2f)",
	   c.enabled_ns ? (double)c.running_ns / (double)c.enabled_ns : 0.0);
	claim_clear(&c);
	api_claims_release(cl, id, 1000, &rep);
	json_object_put(rep.body);
	is_int(turns_alternate(s, idx[2]), 0, "with intervals of 60 and 140 "
	       "ms, the two groups still alternate strictly");
	is_int((long long)sampler_placements_skipped(s), 0, "groups taking "
	       "turns: every tick places them");
	sampler_free(s);
	claims_free(cl);
	pmu_release(&r.pmu);
out:
	pmu_free(&r.pmu);
	hw_close(&r.hw);
}

/*
 * A claim that joins a daemon which has counted for a long time shares the
 * counters from its first ticks: least-served-first weighs recent service,
 * not a lifetime total.  (With lifetime totals the baseline's 300 s at 1.0
 * against the claim's fresh 0 gave the claim every interval until its own
 * ratio passed the baseline's slowly falling one: minutes in which the
 * baseline's LLC series were estimated from nothing; daemon_hsx.sh read
 * 0.92-1.00 for the claim under load.)
 */
static void test_join(void)
{
	enum { H = 3000, SETTLE = 5, N = 40 };
	struct sampler_cfg cfg = { .interval_ms = 100, .ring_capacity = 64,
				   .check_every = 0, .policy = POLICY_RECLAIM };
	struct claims_cfg ccfg = { .max_per_uid = 8, .max_total = 8,
				   .default_ttl_s = 3600, .max_ttl_s = 3600,
				   .interval_ms = 100 };
	const char *body = "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_ES\"]}";
	struct claims_reply rep = { 0 };
	struct rig r;
	struct program *p;
	struct sampler *s;
	struct claims *cl;
	struct claim c;
	struct json_object *idv;
	char id[CLAIM_ID_MAX] = "";
	struct claims_err e;
	uint64_t en0 = 0, run0 = 0;
	double share = -1;

	rig_open(&r, wl_path("{\"platform\":\"skl\",\"cbo_count\":2,"
			     "\"phases\":[{\"seconds\":1000,\"rates\":{"
			     "\"cbo:0x34:0x8f\":2.0e7,\"cbo:0x34:0x88\":4.0e6}}]}"));
	p = prog(&r, 64);
	if (!p)
		goto out;
	cl = claims_new(&r.pmu, &ccfg);
	s = fake_sampler(&r, p, &cfg, cl);
	for (unsigned t = 0; t < H; t++) {
		sampler_tick(s);
		advance_ms(100);
	}
	api_claims_create(cl, 1000, 1, body, strlen(body), &rep);
	is_int(rep.status, 201, "after 300 s of the baseline alone, a claim "
	       "on the CBo counters it fills");
	if (rep.body && json_object_object_get_ex(rep.body, "id", &idv))
		snprintf(id, sizeof(id), "%s", json_object_get_string(idv));
	json_object_put(rep.body);
	for (unsigned t = 0; t < SETTLE + N; t++) {
		sampler_tick(s);
		if (t + 1 == SETTLE) {
			memset(&c, 0, sizeof(c));
			if (claims_get(cl, id, 0, &c, &e) == 0) {
				en0 = c.enabled_ns;
				run0 = c.running_ns;
			}
			claim_clear(&c);
		}
		advance_ms(100);
	}
	memset(&c, 0, sizeof(c));
	if (claims_get(cl, id, 0, &c, &e) < 0)
		printf("# claims_get: %s\n", e.msg);
	else if (c.enabled_ns > en0)
		share = (double)(c.running_ns - run0) /
			(double)(c.enabled_ns - en0);
	claim_clear(&c);
	ok(share > 0.4 && share < 0.6, "over its next %d intervals the claim "
	   "and the baseline take turns: the claim ran %.3f of the time", N,
	   share);
	api_claims_release(cl, id, 1000, &rep);
	json_object_put(rep.body);
	sampler_free(s);
	claims_free(cl);
	pmu_release(&r.pmu);
out:
	pmu_free(&r.pmu);
	hw_close(&r.hw);
}

/* Is claim id running, placed on a counter, after the last tick? */
static bool claim_running(struct claims *cl, const char *id)
{
	struct claims_err e;
	struct claim c;
	bool r;

	memset(&c, 0, sizeof(c));
	if (claims_get(cl, id, 0, &c, &e) < 0) {
		printf("# claims_get: %s\n", e.msg);
		return false;
	}
	r = c.running && c.ctr[0] >= 0;
	claim_clear(&c);
	return r;
}

/*
 * A placement that nothing changed is not made again (the tick's hot
 * path, issue 27 7c), and a claim made or released between two ticks
 * still takes effect at the next one.
 */
static void test_steady(void)
{
	struct sampler_cfg cfg = { .interval_ms = 100, .ring_capacity = 64,
				   .check_every = 0, .policy = POLICY_RECLAIM };
	struct claims_cfg ccfg = { .max_per_uid = 8, .max_total = 8,
				   .default_ttl_s = 3600, .max_ttl_s = 3600,
				   .interval_ms = 100 };
	const char *body = "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_ES\"]}";
	struct claims_reply rep = { 0 };
	struct json_object *idv;
	char id[CLAIM_ID_MAX] = "";
	struct claims *cl;
	struct program *p;
	struct sampler *s;
	uint64_t k0, k1;
	struct rig r;

	rig_open(&r, wl_path("{\"platform\":\"skl\",\"cbo_count\":2,"
			     "\"phases\":[{\"seconds\":1000,\"rates\":{"
			     "\"cbo:0x34:0x8f\":2.0e7}}]}"));
	r.nev = 1;	/* one CBo counter: a claim fits on the other */
	p = prog(&r, 64);
	ok(p && p->ngroups == 1 && !strcmp(p->ev[0].name,
					   "UNC_CBO_CACHE_LOOKUP.ANY_MESI"),
	   "a baseline of one CBo event (%u groups)", p ? p->ngroups : 0);
	if (!p)
		goto out;
	cl = claims_new(&r.pmu, &ccfg);
	s = fake_sampler(&r, p, &cfg, cl);
	for (unsigned t = 0; t < 5; t++) {
		sampler_tick(s);
		advance_ms(100);
	}
	is_int((long long)sampler_placements_skipped(s), 4, "nothing "
	       "changed: only the first of 5 ticks placed the groups");
	api_claims_create(cl, 1000, 1, body, strlen(body), &rep);
	is_int(rep.status, 201, "a claim between two ticks");
	if (rep.body && json_object_object_get_ex(rep.body, "id", &idv))
		snprintf(id, sizeof(id), "%s", json_object_get_string(idv));
	json_object_put(rep.body);
	k0 = sampler_placements_skipped(s);
	sampler_tick(s);
	k1 = sampler_placements_skipped(s);
	ok(k1 == k0 && claim_running(cl, id), "the next tick places it: "
	   "it counts on a counter");
	/* (the claim's first placement leaves the baseline's group out for
	 * that tick; the next one places both) */
	for (unsigned t = 0; t < 3; t++) {
		advance_ms(100);
		sampler_tick(s);
	}
	ok(sampler_placements_skipped(s) - k1 >= 2 && claim_running(cl, id),
	   "then its placement stands (%llu of 3 ticks left it), the claim "
	   "counting", (unsigned long long)(sampler_placements_skipped(s) -
					   k1));
	api_claims_release(cl, id, 1000, &rep);
	json_object_put(rep.body);
	k0 = sampler_placements_skipped(s);
	advance_ms(100);
	sampler_tick(s);
	is_int((long long)(sampler_placements_skipped(s) - k0), 0,
	       "a release is placed at the next tick");
	sampler_free(s);
	claims_free(cl);
	pmu_release(&r.pmu);
out:
	pmu_free(&r.pmu);
	hw_close(&r.hw);
}

int main(void)
{
	char cmd[300];

	clock_manual_init(&fake, 1000000000000);
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	test_program();
	test_ticks();
	test_resets();
	test_monotonic();
	test_threads();
	test_exact_mux();
	test_window();
	test_counting_window();
	test_occupancy_bound();
	test_turns();
	test_join();
	test_steady();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", dir);
	return tap_done();
}
