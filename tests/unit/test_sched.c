/*
 * test_sched.c - event resolution and counter placement: catalog names,
 * raw encodings with and without allow_raw, counter constraints (ARB
 * occupancy on counter 0 only), infeasible groups with their reasons,
 * busy counters, fixed and free-running events.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "plat/plat.h"
#include "pmu/sched.h"

#define SAMPLER_MAX 64
#include "tests/tap.h"

static const struct platform *p;
static struct sched_ws ws;	/* kept across calls, as the sampler does */

static int resolve(const char *name, bool raw, struct evspec *e)
{
	char why[256];
	int r = sched_resolve(p, name, raw, e, why, sizeof(why));

	if (r < 0)
		printf("# %s: %s\n", name, why);
	return r;
}

static void test_resolve(void)
{
	struct evspec e;
	char why[256];
	int cbo, arb, fixed, imc;

	plat_unit(p, "cbo", &cbo);
	plat_unit(p, "arb", &arb);
	plat_unit(p, "fixed", &fixed);
	plat_unit(p, "imc", &imc);

	is_int(resolve("UNC_CBO_CACHE_LOOKUP.ANY_MESI", false, &e), 0, "catalog name");
	is_int(e.unit, cbo, "unit is cbo");
	is_int(e.enc.code, 0x34, "code");
	is_int(e.enc.umask, 0x8f, "umask");
	is_int(e.ctr_mask, 3, "cbo event on counters 0,1");
	ok(e.ev != NULL, "catalog entry kept");

	is_int(resolve("UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST", false, &e),
	       0, "ARB cycles-with-any");
	is_int(e.enc.thresh, 1, "needs threshold 1");
	is_int(e.ctr_mask, 1, "counter 0 only");

	is_int(resolve("DRAM_DATA_READS", false, &e), 0, "IMC free-running");
	is_int(e.unit, imc, "unit imc");
	is_int(e.freerun, 3, "free-running index 3 (0x5050)");

	is_int(resolve("UNC_CLOCK.SOCKET", false, &e), 0, "fixed counter");
	is_int(e.unit, fixed, "unit fixed");

	is_int(sched_resolve(p, "UNC_NOPE", false, &e, why, sizeof(why)), -EINVAL,
	       "unknown event");
	like(why, "unknown event", "says unknown");
	is_int(sched_resolve(p, "cbo:0x22:0x48", false, &e, why, sizeof(why)),
	       -EPERM, "raw refused without allow_raw_events");
	like(why, "allow_raw_events", "names the setting");
	is_int(resolve("cbo:0x22:0x48", true, &e), 0, "raw allowed");
	ok(e.ev && strcmp(e.ev->name, "UNC_CBO_XSNP_RESPONSE.HITM_XCORE") == 0,
	   "raw encoding recognised as a catalog event");
	is_int(resolve("arb:0x80:0x01", true, &e), 0, "raw ARB occupancy");
	is_int(e.ctr_mask, 1, "raw inherits the catalog's counter 0 only");
	is_int(resolve("cbo:0x99:0x01", true, &e), 0, "raw non-catalog");
	is_int(e.ctr_mask, 3, "raw non-catalog may use any counter");
	is_int(sched_resolve(p, "cbo:0x34:0x1ff", true, &e, why, sizeof(why)),
	       -EINVAL, "umask too wide");
	is_int(sched_resolve(p, "imc:0x1:0x1", true, &e, why, sizeof(why)),
	       -EINVAL, "raw on a free-running unit");
	{
		char longname[200];

		memset(longname, 'A', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		is_int(sched_resolve(p, longname, true, &e, why, sizeof(why)),
		       -EINVAL, "over-long name");
	}
}

static int place(const char *const *names, unsigned n, const uint16_t *busy,
		 int *ctr, char *why)
{
	struct evspec ev[16];

	for (unsigned i = 0; i < n; i++)
		if (resolve(names[i], true, &ev[i]) < 0)
			return -100;
	return sched_place(p, ev, n, busy, ctr, why, 256);
}

static void test_place(void)
{
	int ctr[16];
	char why[256];
	uint16_t busy[PLAT_MAX_UNITS] = { 0 };
	int arb;

	plat_unit(p, "arb", &arb);
	{
		const char *g[] = { "UNC_ARB_TRK_REQUESTS.ALL",
				    "UNC_ARB_TRK_OCCUPANCY.ALL" };

		is_int(place(g, 2, NULL, ctr, why), 0, "requests + occupancy fit");
		is_int(ctr[1], 0, "occupancy on counter 0");
		is_int(ctr[0], 1, "requests moved to counter 1");
	}
	{
		const char *g[] = { "UNC_ARB_TRK_OCCUPANCY.ALL",
				    "UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST" };

		struct evspec ev[2];
		char small[96];

		is_int(place(g, 2, NULL, ctr, why), -EBUSY,
		       "two counter-0-only events cannot be placed together");
		like(why, "counters 0", "reason names the constraint");
		/* a reason longer than its buffer: whole events, then how
		 * many more, never a name cut (a log line once read
		 * "UNC_CHA_CLOCKTICKS (coun), and ...") */
		resolve(g[0], true, &ev[0]);
		resolve(g[1], true, &ev[1]);
		is_int(sched_place(p, ev, 2, NULL, ctr, small, sizeof(small)),
		       -EBUSY, "the same in a 96-byte buffer");
		is_str(small, "cannot place together on arb: "
		       "UNC_ARB_TRK_OCCUPANCY.ALL (counters 0), and 1 more",
		       "its reason: the event that fits whole, and 1 more");
	}
	{
		const char *g[] = { "UNC_CBO_CACHE_LOOKUP.ANY_MESI",
				    "UNC_CBO_CACHE_LOOKUP.ANY_I",
				    "UNC_CBO_CACHE_LOOKUP.READ_I" };

		is_int(place(g, 3, NULL, ctr, why), -EBUSY, "three CBo events on two counters");
		like(why, "3 cbo events but cbo has 2 counters", "reason counts them");
	}
	{
		const char *g[] = { "UNC_CBO_CACHE_LOOKUP.ANY_MESI",
				    "UNC_CBO_CACHE_LOOKUP.ANY_I",
				    "UNC_CLOCK.SOCKET", "DRAM_DATA_READS",
				    "DRAM_DATA_WRITES", "UNC_ARB_TRK_REQUESTS.ALL" };

		is_int(place(g, 6, NULL, ctr, why), 0, "a mixed baseline fits");
		ok(ctr[0] != ctr[1], "the two CBo events differ in counter");
		is_int(ctr[2], 0, "fixed counter index 0");
		is_int(ctr[3], 3, "DRAM_DATA_READS free-running index");
		is_int(ctr[4], 4, "DRAM_DATA_WRITES free-running index");
	}
	{
		const char *g[] = { "UNC_ARB_TRK_OCCUPANCY.ALL" };

		busy[arb] = 1;
		is_int(place(g, 1, busy, ctr, why), -EBUSY,
		       "occupancy cannot go when counter 0 is busy");
		busy[arb] = 2;
		is_int(place(g, 1, busy, ctr, why), 0, "fits when counter 1 is busy");
		is_int(ctr[0], 0, "on counter 0");
	}
	{
		const char *g[] = { "UNC_CLOCK.SOCKET", "UNC_CLOCK.SOCKET" };

		is_int(place(g, 2, NULL, ctr, why), 0,
		       "the fixed counter is shared, never a conflict");
	}
}

/* Runs `ticks` scheduling rounds over groups g (1 tick of service each
 * time a group is selected) and stores the ticks each ran in ran[]. */
static void run_ticks(struct sched_group *g, unsigned n, unsigned ticks,
		      unsigned *ran)
{
	struct sched_group *v[8];

	for (unsigned i = 0; i < n; i++) {
		v[i] = &g[i];
		ran[i] = 0;
	}
	for (unsigned t = 0; t < ticks; t++) {
		sched_select(p, v, n, &ws);
		for (unsigned i = 0; i < n; i++) {
			g[i].enabled++;
			if (g[i].selected) {
				g[i].running++;
				ran[i]++;
			}
		}
	}
}

static void test_fairness(void)
{
	struct evspec base_ev[2], one_cbo[5][1], arb_occ[1], imc[1];
	struct sched_group g[8];
	unsigned ran[8];
	const char *cbo_ev[5] = {
		"UNC_CBO_XSNP_RESPONSE.HITM_XCORE", "UNC_CBO_CACHE_LOOKUP.READ_I",
		"UNC_CBO_CACHE_LOOKUP.WRITE_M", "UNC_CBO_CACHE_LOOKUP.ANY_ES",
		"UNC_CBO_XSNP_RESPONSE.MISS_XCORE",
	};

	resolve("UNC_CBO_CACHE_LOOKUP.ANY_MESI", false, &base_ev[0]);
	resolve("UNC_CBO_CACHE_LOOKUP.ANY_I", false, &base_ev[1]);
	for (int i = 0; i < 5; i++)
		resolve(cbo_ev[i], false, &one_cbo[i][0]);
	resolve("UNC_ARB_TRK_OCCUPANCY.ALL", false, &arb_occ[0]);
	resolve("DRAM_DATA_READS", false, &imc[0]);

	/* k groups that each need both CBo counters: exactly round robin. */
	for (unsigned k = 1; k <= 5; k++) {
		const unsigned T = 1000;
		unsigned min = T;

		memset(g, 0, sizeof(g));
		for (unsigned i = 0; i < k; i++) {
			g[i] = (struct sched_group){ .ev = base_ev, .nev = 2,
						     .order = i, .fixed = i == 0 };
			g[i].ctr[0] = i == 0 ? 0 : -1;
			g[i].ctr[1] = i == 0 ? 1 : -1;
		}
		run_ticks(g, k, T, ran);
		for (unsigned i = 0; i < k; i++)
			if (ran[i] < min)
				min = ran[i];
		ok(min >= T / k, "%u groups competing for both CBo counters: "
		   "each runs >= %u of %u ticks (min %u)", k, T / k, T, min);
	}
	/* 5 single-event CBo claims on 2 counters: two run per tick. */
	{
		const unsigned T = 1000;
		unsigned min = T, sum = 0;

		memset(g, 0, sizeof(g));
		for (unsigned i = 0; i < 5; i++) {
			g[i] = (struct sched_group){ .ev = one_cbo[i], .nev = 1,
						     .order = i };
			g[i].ctr[0] = -1;
		}
		run_ticks(g, 5, T, ran);
		for (unsigned i = 0; i < 5; i++) {
			min = ran[i] < min ? ran[i] : min;
			sum += ran[i];
		}
		is_int(sum, 2 * T, "5 one-counter groups use both counters every tick");
		ok(min >= 2 * T / 5, "each runs >= %u ticks (min %u)", 2 * T / 5, min);
	}
	/* A group that fits beside the others always runs; one that can use
	 * only counter 0 competes with everything on counter 0. */
	{
		const unsigned T = 600;

		memset(g, 0, sizeof(g));
		g[0] = (struct sched_group){ .ev = base_ev, .nev = 2, .fixed = true };
		g[0].ctr[0] = 0;
		g[0].ctr[1] = 1;
		g[1] = (struct sched_group){ .ev = arb_occ, .nev = 1, .order = 1 };
		g[1].ctr[0] = -1;
		g[2] = (struct sched_group){ .ev = imc, .nev = 1, .order = 2 };
		g[2].ctr[0] = -1;
		g[3] = (struct sched_group){ .ev = one_cbo[0], .nev = 1, .order = 3 };
		g[3].ctr[0] = -1;
		run_ticks(g, 4, T, ran);
		is_int(ran[1], T, "an ARB claim beside a CBo baseline always runs");
		is_int(ran[2], T, "a free-running claim always runs");
		ok(ran[0] >= T / 2 && ran[3] >= T / 2,
		   "baseline and a CBo claim share the CBo counters (%u/%u)",
		   ran[0], ran[3]);
	}
	/* The fixed baseline keeps its placement; a movable group moves. */
	{
		struct sched_group *v[2];

		memset(g, 0, sizeof(g));
		g[0] = (struct sched_group){ .ev = one_cbo[0], .nev = 1, .fixed = true };
		g[0].ctr[0] = 1;
		g[1] = (struct sched_group){ .ev = one_cbo[1], .nev = 1, .order = 1 };
		g[1].ctr[0] = 1;
		v[0] = &g[0];
		v[1] = &g[1];
		is_int(sched_select(p, v, 2, &ws), 2, "both fit");
		is_int(g[0].ctr[0], 1, "fixed group stays on counter 1");
		is_int(g[1].ctr[0], 0, "movable group moves to counter 0");
	}
}

/* Filters, splits and the hsx baseline (the LLC filter conflict). */
static void test_filters(void)
{
	extern const struct platform plat_hsx;
	const struct platform *h = &plat_hsx;
	struct evspec ev[SAMPLER_MAX];
	char why[256];
	int ctr[SAMPLER_MAX], n = 0;

	is_int(sched_resolve(h, "UNC_C_LLC_LOOKUP.ANY:filter0=0x7e0000:split=0/2",
			     false, &ev[0], why, sizeof(why)), 0, "modifiers parse");
	is_u64(ev[0].filt[0], 0x7e0000, "filter0 value");
	is_int(ev[0].filt_set, 1, "filter0 set");
	is_int(ev[0].split_n * 10 + ev[0].split_k, 20, "split 0/2");
	ok(evspec_on(&ev[0], 4) && !evspec_on(&ev[0], 5), "even CBos only");
	is_int(sched_resolve(h, "UNC_C_LLC_LOOKUP.ANY:filter0=0x20000:split=1/2",
			     false, &ev[1], why, sizeof(why)), 0, "second half");
	is_int(sched_place(h, ev, 2, NULL, ctr, why, sizeof(why)), 0,
	       "different filters on disjoint CBo halves fit together");
	is_int(ctr[0], ctr[1], "and share one counter index");
	is_int(sched_resolve(h, "UNC_C_LLC_LOOKUP.ANY:filter0=0x20000", false,
			     &ev[1], why, sizeof(why)), 0, "unsplit misses");
	is_int(sched_place(h, ev, 2, NULL, ctr, why, sizeof(why)), -EBUSY,
	       "different FILTER0 values in the same CBos: refused");
	is_int(sched_resolve(h, "UNC_C_LLC_LOOKUP.ANY:filter7=1", false, &ev[1],
			     why, sizeof(why)), -EINVAL, "CBo has no filter7");
	like(why, "unit cbo has no filter7 register", "says so");
	/* QPI has eight match/mask registers (Tables 2-172 .. 2-175):
	 * filter7 is PKT_TX_MASK1 */
	is_int(sched_resolve(h, "UNC_Q_RxL_FLITS_G1.DRS:filter7=0x1", false,
			     &ev[1], why, sizeof(why)), 0, "QPI filter7: %s", why);
	is_int(ev[1].filt_set, 1 << 7, "filter7 set");
	is_int(sched_resolve(h, "UNC_Q_RxL_FLITS_G1.DRS:filter8=0x1", false,
			     &ev[1], why, sizeof(why)), -EINVAL, "no filter8");
	is_int(sched_resolve(h, "UNC_C_LLC_LOOKUP.ANY:filterx=1", false, &ev[1],
			     why, sizeof(why)), -EINVAL, "unknown modifier");
	like(why, "unknown modifier", "says so");
	is_int(sched_resolve(h, "UNC_C_LLC_LOOKUP.ANY:split=2/2", false, &ev[1],
			     why, sizeof(why)), -EINVAL, "split K >= N refused");
	is_int(sched_resolve(h, "UNC_M_CAS_COUNT.RD:filter0=1", false, &ev[1],
			     why, sizeof(why)), -EINVAL, "filter on a unit without one");
	like(why, "no filter0", "says so");
	is_int(sched_resolve(p, "UNC_CBO_CACHE_LOOKUP.ANY_MESI:filter0=1", false,
			     &ev[1], why, sizeof(why)), -EINVAL, "skl CBos have no filters");

	/* the shipped hsx baseline places as one group */
	for (const char *const *b = h->baseline; *b; b++)
		if (sched_resolve(h, *b, false, &ev[n++], why, sizeof(why)) < 0)
			printf("# %s: %s\n", *b, why);
	is_int(sched_place(h, ev, (unsigned)n, NULL, ctr, why, sizeof(why)), 0,
	       "the hsx baseline places as one group (%d events)", n);
}

/*
 * Many claims: no cap below the configured limits (max_total goes to
 * 10000).  1000 groups that all need counter 0 of the ARB (one runs per
 * tick) over T ticks: each runs floor(T/k) or ceil(T/k) times - before,
 * only the first 256 were ever looked at and the rest starved.
 */
static void test_many(void)
{
	enum { K = 1000, T = 2500 };
	static struct sched_group g[K];
	static struct sched_group *v[K];
	struct evspec occ[1];
	unsigned lo = T, hi = 0, moves = 0, bad = 0;

	resolve("UNC_ARB_TRK_OCCUPANCY.ALL", false, &occ[0]);
	for (unsigned i = 0; i < K; i++) {
		g[i] = (struct sched_group){ .ev = occ, .nev = 1, .order = i };
		for (unsigned e = 0; e < SCHED_MAX_EVENTS; e++)
			g[i].ctr[e] = -1;
		v[i] = &g[i];
	}
	for (unsigned t = 0; t < T; t++) {
		bad += sched_select(p, v, K, &ws) != 1;
		for (unsigned i = 0; i < K; i++) {
			g[i].enabled++;
			g[i].running += g[i].selected;
			moves += g[i].moved;
		}
	}
	is_int(bad, 0, "exactly one group ran on every tick");
	for (unsigned i = 0; i < K; i++) {
		lo = g[i].running < lo ? (unsigned)g[i].running : lo;
		hi = g[i].running > hi ? (unsigned)g[i].running : hi;
	}
	is_int(lo, T / K, "every one of %d groups ran at least floor(%d/%d) "
	       "ticks", K, T, K);
	is_int(hi, (T + K - 1) / K, "and none more than ceil(T/k)");
	is_int(moves, K, "each group is placed once and never moves after");
}

/* sched_partition() over names: 0 or its error, grp[] and *ng. */
static int partition(const char *const *names, unsigned n, unsigned *grp,
		     unsigned *ng, char *why)
{
	struct evspec ev[16];

	for (unsigned i = 0; i < n; i++)
		if (resolve(names[i], true, &ev[i]) < 0)
			return -100;
	return sched_partition(p, ev, n, grp, ng, why, 256);
}

/* A baseline whose events do not fit a unit's counters together is cut
 * into groups that take turns; the other units count all the time. */
static void test_partition(void)
{
	unsigned grp[16], ng = 0;
	char why[256];

	{
		const char *g[] = { "UNC_CBO_CACHE_LOOKUP.ANY_MESI",
				    "UNC_CBO_CACHE_LOOKUP.ANY_I",
				    "UNC_CLOCK.SOCKET", "DRAM_DATA_READS",
				    "UNC_ARB_TRK_REQUESTS.ALL" };

		is_int(partition(g, 5, grp, &ng, why), 0, "a baseline that fits");
		ok(ng == 1 && !grp[0] && !grp[1] && !grp[2] && !grp[3] &&
		   !grp[4], "one group: everything counts all the time");
	}
	{
		const char *g[] = { "UNC_CBO_CACHE_LOOKUP.ANY_MESI",
				    "UNC_CLOCK.SOCKET",
				    "UNC_CBO_CACHE_LOOKUP.ANY_I",
				    "UNC_ARB_TRK_OCCUPANCY.ALL",
				    "UNC_CBO_CACHE_LOOKUP.READ_I",
				    "UNC_CBO_CACHE_LOOKUP.ANY_ES",
				    "UNC_CBO_XSNP_RESPONSE.HITM_XCORE",
				    "UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST" };

		is_int(partition(g, 8, grp, &ng, why), 0,
		       "5 CBo events on 2 counters, 2 counter-0-only ARB events");
		is_int(ng, 4, "four groups: all the time, and 3 CBo turns");
		ok(grp[1] == 0, "the clock counts all the time");
		ok(grp[0] == 1 && grp[2] == 1 && grp[4] == 2 && grp[5] == 2 &&
		   grp[6] == 3, "CBo events two by two, in order");
		ok(grp[3] == 1 && grp[7] == 2,
		   "the ARB events that clash take turns too, beside the CBo");
	}
	{
		const char *g[] = { "UNC_CBO_CACHE_LOOKUP.ANY_MESI",
				    "UNC_ARB_TRK_OCCUPANCY.ALL" };
		struct evspec ev[2];

		resolve(g[0], true, &ev[0]);
		resolve(g[1], true, &ev[1]);
		ev[1].ctr_mask = 0;	/* no counter at all */
		is_int(sched_partition(p, ev, 2, grp, &ng, why, sizeof(why)),
		       -EBUSY, "an event with no counter cannot take a turn");
		like(why, "UNC_ARB_TRK_OCCUPANCY.ALL", "and names it");
	}
}

/* Bound events (sched_partition_bound()): an occupancy and its inserts,
 * with the clock, stay in one group where a unit is cut into turns. */
static void test_partition_bound(void)
{
	const struct platform *icx = plat_by_id("icx");
	const char *g[] = { "UNC_CHA_TOR_INSERTS.IA",
			    "UNC_CHA_TOR_INSERTS.IA_MISS",
			    "UNC_CHA_CLOCKTICKS",
			    "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD",
			    "UNC_CHA_TOR_INSERTS.IA_MISS_DRD" };
	const unsigned bind[] = { 0, 0, 7, 7, 7 }, whole[] = { 7, 7, 7, 0, 0 };
	struct evspec ev[5];
	unsigned grp[5], ng = 0;
	char why[256];
	bool okr = icx != NULL;

	for (unsigned i = 0; okr && i < 5; i++)
		okr = sched_resolve(icx, g[i], false, &ev[i], why,
				    sizeof(why)) == 0;
	ok(okr, "icx: the CHA events resolve");
	if (!okr)
		return;
	is_int(sched_partition(icx, ev, 5, grp, &ng, why, sizeof(why)), 0,
	       "5 CHA events on 4 counters, unbound");
	ok(ng == 3 && grp[3] == 1 && grp[4] == 2,
	   "unbound: the occupancy and its inserts in different turns");
	is_int(sched_partition_bound(icx, ev, 5, bind, grp, &ng, why,
				     sizeof(why)), 0, "bound");
	ok(ng == 3 && grp[0] == 1 && grp[1] == 1 && grp[2] == 2 &&
	   grp[3] == 2 && grp[4] == 2,
	   "bound: clock, occupancy and inserts take one turn together");
	is_int(sched_partition_bound(icx, ev, 5, whole, grp, &ng, why,
				     sizeof(why)), 0,
	       "a bound set that is the whole chunk");
	ok(ng == 3 && grp[0] == 1 && grp[3] == 1 && grp[4] == 2,
	   "is cut as before (it cannot move on alone)");
}

int main(void)
{
	p = plat_by_id("skl");
	if (!p) {
		printf("Bail out! no skl platform\n");
		return 1;
	}
	test_resolve();
	test_place();
	test_fairness();
	test_filters();
	test_many();
	test_partition();
	test_partition_bound();
	sched_ws_free(&ws);
	return tap_done();
}
