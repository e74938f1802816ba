/*
 * test_plat_mod.c - the event modifiers' grammar (plat_mod.h) and its two
 * readers agreeing: the daemon's event resolution (sched_resolve) and the
 * simulator's workload keys read a modifier the same way, and each still
 * says where a bad one is (the event; the file and JSON path).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_workload.h"
#include "plat/plat.h"
#include "plat/plat_mod.h"
#include "pmu/sched.h"
#include "tests/tap.h"

static void test_grammar(void)
{
	const unsigned all = PLAT_MOD_FILTER | PLAT_MOD_SPLIT | PLAT_MOD_EXT;
	struct plat_mods m;
	char rest[64], why[200];

	is_int(plat_parse_modifiers("cbo:0x34:0x11:thresh=1:filter0=0x7e0000"
				    ":split=1/2:filter1=59:ext", all, rest,
				    sizeof(rest), &m, why, sizeof(why)), 0,
	       "every modifier kind");
	like(rest, "cbo:0x34:0x11:thresh=1", "the rest keeps the encoding's own fields");
	ok(!strcmp(rest, "cbo:0x34:0x11:thresh=1"), "and only them (%s)", rest);
	is_int(m.filt_set, 3, "filters 0 and 1 set");
	is_u64(m.filt[0], 0x7e0000, "filter0 hex");
	is_u64(m.filt[1], 59, "filter1 decimal");
	is_int(m.split_n * 10 + m.split_k, 21, "split 1/2");
	ok(m.ext, "ext");
	is_int(plat_parse_modifiers("X:filter0=0xffffffffffffffff", all, rest,
				    sizeof(rest), &m, why, sizeof(why)), 0,
	       "64-bit filter value");
	is_u64(m.filt[0], UINT64_MAX, "all ones");

	static const struct { const char *text, *why; } bad[] = {
		{ "X:filter0=0x10000000000000000", "bad filter0 value" },
		{ "X:filter0=", "bad filter0 value" },
		{ "X:filter1=-1", "bad filter1 value" },
		{ "X:filter0= 1", "bad filter0 value" },
		{ "X:filter0=1:filter0=1", "filter0 given twice" },
		{ "X:split=2/2", "bad split \"2/2\"" },
		{ "X:split=0/1", "bad split" },
		{ "X:split=1/2junk", "bad split \"1/2junk\"" },
		{ "X:split=+1/2", "bad split" },
		{ "X:split=0x1/2", "bad split" },
		{ "X:split=0/2:split=1/2", "given once" },
		{ "X:ext:ext", "ext given twice" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = plat_parse_modifiers(bad[i].text, all, rest,
					     sizeof(rest), &m, why, sizeof(why));

		is_int(r, -EINVAL, "refused: %s", bad[i].text);
		like(why, bad[i].why, "says why");
	}
	/* what a caller does not accept is the event's field */
	is_int(plat_parse_modifiers("X:ext:split=0/2", PLAT_MOD_FILTER, rest,
				    sizeof(rest), &m, why, sizeof(why)), 0,
	       "unaccepted kinds are left alone");
	ok(!strcmp(rest, "X:ext:split=0/2") && !m.ext && !m.split_n,
	   "in the rest (%s)", rest);
	is_int(plat_parse_modifiers("X:filter7=0x10:filter2=3", all, rest,
				    sizeof(rest), &m, why, sizeof(why)), 0,
	       "any filter a unit can have (N < %d)", PLAT_MOD_FILTERS);
	ok(m.filt_set == (1u << 7 | 1u << 2) && m.filt[7] == 0x10 &&
	   m.filt[2] == 3, "filter7 and filter2");
	is_int(plat_parse_modifiers("X:filter8=1", all, rest, sizeof(rest), &m,
				    why, sizeof(why)), -EINVAL,
	       "filter%d: beyond any unit", PLAT_MOD_FILTERS);
	like(why, "no unit has a filter8 register", "says so");
	is_int(plat_parse_modifiers("X:filter1x=1", all, rest, sizeof(rest),
				    &m, why, sizeof(why)), 0,
	       "filter1x= is no modifier");
	ok(!strcmp(rest, "X:filter1x=1"), "left to the caller");
}

/* A workload with the one rate key key is refused, naming the file, the
 * key's JSON path and why. */
static void wl_refuses(const struct platform *h, const char *key,
		       const char *why_part)
{
	char text[512], path[160], why[300];
	struct workload *w = NULL;

	snprintf(text, sizeof(text), "{\"platform\": \"%s\", \"phases\": "
		 "[{\"seconds\": 1, \"rates\": {\"%s\": 5}}]}", h->id, key);
	snprintf(path, sizeof(path), "$.phases[0].rates[\"%s\"]", key);
	is_int(wl_parse(text, strlen(text), "bad.json", h, &w, why,
			sizeof(why)), -EINVAL, "workload refuses %s", key);
	like(why, "bad.json", "naming the file");
	like(why, path, "and the JSON path");
	like(why, why_part, "and why");
}

/* The daemon and the simulator read the same text the same way. */
static void test_readers_agree(void)
{
	const struct platform *h = plat_by_id("hsx");
	static const char *const mods[] = {
		":filter0=0x7e0000", ":filter0=0x20000:filter1=0x3b",
		":filter1=12", ":filter0=0",
	};
	struct evspec ev;
	char why[300], text[512];

	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		struct workload *w = NULL;
		char evname[96], key[96];
		int r;

		snprintf(evname, sizeof(evname), "UNC_C_LLC_LOOKUP.ANY%s", mods[i]);
		snprintf(key, sizeof(key), "cbo:0x34:0x11%s", mods[i]);
		is_int(sched_resolve(h, evname, false, &ev, why, sizeof(why)), 0,
		       "daemon reads %s", evname);
		snprintf(text, sizeof(text), "{\"platform\": \"hsx\", \"phases\": "
			 "[{\"seconds\": 1, \"rates\": {\"%s\": 5}}]}", key);
		r = wl_parse(text, strlen(text), "agree.json", h, &w, why,
			     sizeof(why));
		if (!ok(r == 0, "workload reads %s: %s", key, r ? why : ""))
			continue;
		ok(w->keys[0].has_filter0 == (ev.filt_set & 1) &&
		   w->keys[0].has_filter1 == ((ev.filt_set >> 1) & 1) &&
		   (!w->keys[0].has_filter0 || w->keys[0].filter0 == ev.filt[0]) &&
		   (!w->keys[0].has_filter1 || w->keys[0].filter1 == ev.filt[1]),
		   "same filters");
		wl_free(w);
	}
	/* the simulator derives two filter values from a box */
	wl_refuses(h, "cbo:0x34:0x11:filter2=1", "takes filter0 and filter1");
	/* where a bad modifier is */
	is_int(sched_resolve(h, "UNC_C_LLC_LOOKUP.ANY:filter0=0xzz", false, &ev,
			     why, sizeof(why)), -EINVAL, "daemon refuses 0xzz");
	like(why, "UNC_C_LLC_LOOKUP.ANY:filter0=0xzz: bad filter0 value \"0xzz\"",
	     "naming the event");
	wl_refuses(h, "cbo:0x34:0x11:filter0=0xzz", "bad filter0 value \"0xzz\"");
}

int main(void)
{
	test_grammar();
	test_readers_agree();
	return tap_done();
}
