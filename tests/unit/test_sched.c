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
#include "sched.h"
#include "tests/tap.h"

static const struct platform *p;

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

static int place(const char *const *names, unsigned n, const uint8_t *busy,
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
	uint8_t busy[PLAT_MAX_UNITS] = { 0 };
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

		is_int(place(g, 2, NULL, ctr, why), -EBUSY,
		       "two counter-0-only events cannot be placed together");
		like(why, "counters 0", "reason names the constraint");
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

		is_int(place(g, 2, NULL, ctr, why), -EBUSY,
		       "the fixed counter holds one event");
	}
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
	return tap_done();
}
