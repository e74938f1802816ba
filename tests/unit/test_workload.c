/*
 * test_workload.c - the simulator's workload (src/sim/sim_workload.c):
 * parsing good files into exact values, rejecting malformed ones with the
 * file name and the JSON path (or LINE:COL) of the problem, the rate
 * matching rules of wl_rates(), the exactness of wl_integral(), the
 * built-in workload's consistency, and the shipped demo workload.
 *
 * Fixtures live in $top_srcdir/tests/fixtures/workloads (top_srcdir is
 * set by `make check`; "." when run by hand from the source tree).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_workload.h"
#include "plat/plat.h"
#include "plat/plat_sim.h"
#include "tests/tap.h"


/* The workload's count key value for unit (0: not given). */
static unsigned TC(const struct workload *w, const char *unit)
{
	int ui;

	return plat_unit(w->plat, unit, &ui) ? w->topo.count[ui] : 0;
}

static char err[1024];

static const char *srcdir(void)
{
	const char *top = getenv("top_srcdir");

	return top && *top ? top : ".";
}

static const char *fixture(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/workloads/%s",
		 srcdir(), name);
	return path;
}

static int parse_str(const char *name, const char *json,
		     const struct platform *p, struct workload **w)
{
	return wl_parse(json, strlen(json), name, p, w, err, sizeof(err));
}

/* Index of the key whose text is t, or -1. */
static int key_by_text(const struct workload *w, const char *t)
{
	for (unsigned i = 0; i < w->nkeys; i++)
		if (strcmp(w->keys[i].text, t) == 0)
			return (int)i;
	return -1;
}

static unsigned freerun_idx(const struct platform *p, const char *unit,
			    const char *name)
{
	const struct unit_type *u = plat_unit(p, unit, NULL);

	for (unsigned i = 0; u && i < u->nfreerun; i++)
		if (strcmp(u->freerun[i].name, name) == 0)
			return i;
	return ~0u;
}

static int unit_idx(const struct platform *p, const char *name)
{
	int i = -1;

	plat_unit(p, name, &i);
	return i;
}

/* The rate a counter counts in phase ph. */
static double rate_of(const struct workload *w, const struct wl_match *m,
		      unsigned ph)
{
	double r[64] = { 0 };

	if (w->nphases > 64)
		return -1;
	wl_rates(w, m, r);
	return r[ph];
}

static struct wl_match prog(const struct platform *p, const char *unit,
			    unsigned sock, unsigned inst, unsigned ninst,
			    uint8_t code, uint8_t umask, uint8_t thresh,
			    bool edge, bool inv)
{
	return (struct wl_match){
		.socket = sock, .unit = unit_idx(p, unit), .inst = inst,
		.ninst = ninst,
		.enc = { .code = code, .umask = umask, .thresh = thresh,
			 .edge = edge, .inv = inv } };
}

static struct wl_match freerun(const struct platform *p, const char *unit,
			       const char *name)
{
	return (struct wl_match){ .socket = 0, .unit = unit_idx(p, unit),
				  .inst = 0, .ninst = 1, .freerun = true,
				  .freerun_idx = freerun_idx(p, unit, name) };
}

/* ---- a good skl file ------------------------------------------------- */

static void test_good_skl(void)
{
	const struct platform *p = &plat_skl;
	struct workload *w = NULL;
	struct wl_match m;
	int r, k;

	r = wl_load(fixture("good-skl.json"), NULL, &w, err, sizeof(err));
	is_int(r, 0, "good-skl.json parses (%s)", err);
	if (r)
		return;
	ok(w->plat == p, "platform is skl");
	like(w->source, "good-skl.json", "source is the file name");
	is_int(w->topo.sockets, 1, "sockets");
	is_int(TC(w, "cbo"), 4, "cbo_count");
	is_u64(w->topo.uclk_hz, 800000000, "uclk_hz from 8e8");
	ok(w->topo.has_mmio_bar, "mchbar given");
	is_u64(w->topo.mmio_bar, 0xfed10001, "mchbar value");
	{
		unsigned other = 0;

		for (unsigned u = 0; u < PLAT_MAX_UNITS; u++)
			other += w->topo.count[u];
		is_int(other, 4, "no other unit counts");
	}

	is_int(w->nphases, 2, "two phases");
	ok(w->phase_s[0] == 10 && w->phase_s[1] == 20.5, "phase lengths");
	ok(w->period_s == 30.5, "period 30.5 s");
	/* 9 keys in phase 0; phase 1 adds cbo:0x22:0x41 only, because
	 * cbo:0x34:0x8F is cbo:0x34:0x8f normalised */
	is_int(w->nkeys, 10, "ten distinct keys");

	k = key_by_text(w, "cbo:0x34:0x8f");
	ok(k >= 0, "cbo:0x34:0x8f is a key");
	if (k >= 0) {
		const struct wl_key *kk = &w->keys[k];

		is_int(kk->socket, -1, "no socket prefix: every socket");
		is_int(kk->inst, -1, "no @N: split over instances");
		is_int(kk->unit, unit_idx(p, "cbo"), "unit cbo");
		ok(!kk->freerun, "programmable");
		ok(kk->enc.code == 0x34 && kk->enc.umask == 0x8f &&
		   kk->enc.thresh == 0 && !kk->enc.edge && !kk->enc.inv,
		   "encoding 0x34/0x8f");
		ok(w->rates[k * 2] == 4.0e8 && w->rates[k * 2 + 1] == 1.0e8,
		   "both phases' rates land on one key (0x8F = 0x8f)");
	}
	k = key_by_text(w, "cbo:0x34:0x88@2");
	ok(k >= 0 && w->keys[k].inst == 2 && w->keys[k].socket == -1,
	   "@2 parsed");
	ok(k >= 0 && w->rates[k * 2] == 1000 && w->rates[k * 2 + 1] == 0,
	   "a key missing from a phase has rate 0 there");
	k = key_by_text(w, "s0/cbo:0x34:0x88");
	ok(k >= 0 && w->keys[k].socket == 0 && w->keys[k].inst == -1,
	   "s0/ parsed");
	k = key_by_text(w, "arb:0x80:0x01:thresh=1");
	ok(k >= 0 && w->keys[k].enc.thresh == 1, "thresh=1 parsed");
	k = key_by_text(w, "arb:0x81:0x01:thresh=2:inv");
	ok(k >= 0 && w->keys[k].enc.thresh == 2 && w->keys[k].enc.inv &&
	   !w->keys[k].enc.edge, "thresh=2:inv parsed");
	k = key_by_text(w, "arb:0x81:0x01:edge");
	ok(k >= 0 && w->keys[k].enc.edge && w->keys[k].enc.thresh == 0,
	   "edge parsed");
	k = key_by_text(w, "imc:DRAM_DATA_READS");
	ok(k >= 0 && w->keys[k].freerun &&
	   w->keys[k].freerun_idx == freerun_idx(p, "imc", "DRAM_DATA_READS") &&
	   w->keys[k].unit == unit_idx(p, "imc"), "free-running key parsed");
	ok(k >= 0 && w->rates[k * 2] == 1.5e8 && w->rates[k * 2 + 1] == 0,
	   "free-running rates, explicit 0 in phase 1");
	k = key_by_text(w, "cbo:0x22:0x41");
	ok(k >= 0 && w->rates[k * 2] == 0 && w->rates[k * 2 + 1] == 12345.5,
	   "a key only in phase 1");

	/* faults, sorted by time, ties in file order */
	is_int(w->nfaults, 7, "seven faults");
	if (w->nfaults == 7) {
		const struct wl_fault *f = w->faults;

		ok(f[0].at == 0 && f[0].kind == WL_FAULT_DEVICE_MISSING &&
		   f[0].target.space == HW_PCI && f[0].target.bus == 0 &&
		   f[0].target.dev == 0 && f[0].target.fn == 0 &&
		   f[0].socket == -1, "0: device_missing pci:00:00.0");
		ok(f[1].at == 12.5 && f[1].kind == WL_FAULT_EIO &&
		   f[1].target.space == HW_MSR && f[1].target.reg == 0x706 &&
		   f[1].target.cpu == 0 && f[1].target.width == 8 &&
		   f[1].count == 3, "1: eio msr:0x706 count 3");
		ok(f[2].at == 12.5 && f[2].kind == WL_FAULT_STUCK &&
		   f[2].target_is_freerun &&
		   f[2].freerun_unit == unit_idx(p, "imc") &&
		   f[2].freerun_idx == freerun_idx(p, "imc", "DRAM_DATA_READS"),
		   "2: stuck imc:DRAM_DATA_READS (tie keeps file order)");
		ok(f[3].at == 12.5 && f[3].kind == WL_FAULT_STUCK &&
		   !f[3].target_is_freerun && f[3].target.reg == 0x707,
		   "3: stuck msr:0x707 (written last, same time)");
		ok(f[4].at == 20 && f[4].kind == WL_FAULT_FOREIGN_WRITE &&
		   f[4].target.reg == 0xe01 && f[4].value == 0,
		   "4: foreign_write msr:0xe01 0x0");
		ok(f[5].at == 30 && f[5].kind == WL_FAULT_EIO &&
		   f[5].socket == 0 && f[5].target.space == HW_PCI &&
		   f[5].target.reg == 0x48 && f[5].target.width == 4 &&
		   f[5].count == 1, "5: eio s0/pci:00:00.0+0x48, count 1");
		ok(f[6].at == 40 && f[6].kind == WL_FAULT_FOREIGN_WRITE &&
		   f[6].target.space == HW_MMIO &&
		   f[6].target.reg == 0xfed15050 && f[6].target.width == 4 &&
		   f[6].value == 4096, "6: foreign_write mmio, value 4096");
		is_str(f[5].text, "s0/pci:00:00.0+0x48", "target text kept");
	}

	/* wl_rates: splitting, @N, socket prefix, exact modifiers */
	m = prog(p, "cbo", 0, 1, 4, 0x34, 0x8f, 0, false, false);
	ok(rate_of(w, &m, 0) == 1.0e8 && rate_of(w, &m, 1) == 2.5e7,
	   "cbo 1 of 4 counts a quarter of 0x34/0x8f");
	m = prog(p, "cbo", 0, 2, 4, 0x34, 0x88, 0, false, false);
	ok(rate_of(w, &m, 0) == 1000 + 750, "cbo 2: @2 in full + s0/ share");
	m.inst = 0;
	ok(rate_of(w, &m, 0) == 750, "cbo 0: only the s0/ share");
	m.socket = 1;
	ok(rate_of(w, &m, 0) == 0, "socket 1, cbo 0: s0/ does not apply");
	m.inst = 2;
	ok(rate_of(w, &m, 0) == 1000, "socket 1, cbo 2: the @2 key applies");
	m = prog(p, "arb", 0, 0, 1, 0x80, 0x01, 0, false, false);
	ok(rate_of(w, &m, 0) == 2.0e8, "arb occupancy, thresh 0");
	m.enc.thresh = 1;
	ok(rate_of(w, &m, 0) == 1.0e8, "arb occupancy, thresh 1");
	m.enc.thresh = 2;
	ok(rate_of(w, &m, 0) == 0, "thresh 2 has no key: 0");
	m.enc.thresh = 1;
	m.enc.edge = true;
	ok(rate_of(w, &m, 0) == 0, "thresh 1 + edge has no key: 0");
	m = prog(p, "arb", 0, 0, 1, 0x81, 0x01, 0, true, false);
	ok(rate_of(w, &m, 0) == 5, "edge must match: edge key");
	m.enc.edge = false;
	ok(rate_of(w, &m, 0) == 0, "no edge: no key");
	m = prog(p, "arb", 0, 0, 1, 0x81, 0x01, 2, false, true);
	ok(rate_of(w, &m, 0) == 7, "thresh 2 + inv key");
	m.enc.inv = false;
	ok(rate_of(w, &m, 0) == 0, "thresh 2 without inv: 0");
	m = prog(p, "cbo", 0, 0, 4, 0x99, 0x01, 0, false, false);
	ok(rate_of(w, &m, 0) == 0 && rate_of(w, &m, 1) == 0,
	   "unknown encoding counts 0");
	m = prog(p, "arb", 0, 0, 1, 0x34, 0x8f, 0, false, false);
	ok(rate_of(w, &m, 0) == 0, "a cbo encoding on the arb counts 0");
	m = freerun(p, "imc", "DRAM_DATA_READS");
	ok(rate_of(w, &m, 0) == 1.5e8 && rate_of(w, &m, 1) == 0,
	   "free-running DRAM_DATA_READS");
	m = freerun(p, "imc", "DRAM_GT_REQUESTS");
	ok(rate_of(w, &m, 0) == 0, "free-running counter without a key: 0");
	m = prog(p, "imc", 0, 0, 1, 0, 0, 0, false, false);
	ok(rate_of(w, &m, 0) == 0, "imc programmed (nonsense) counts 0");

	wl_free(w);
}

static void test_good_minimal(void)
{
	struct workload *w = NULL;
	int r;

	r = wl_load(fixture("good-minimal.json"), &plat_skl, &w, err,
		    sizeof(err));
	is_int(r, 0, "good-minimal.json parses with the platform given (%s)",
	       err);
	if (r == 0) {
		ok(w->plat == &plat_skl, "platform from the caller");
		ok(w->topo.sockets == 0 && TC(w, "cbo") == 0 &&
		   w->topo.uclk_hz == 0 && !w->topo.has_mmio_bar,
		   "missing topology keys are 0");
		ok(w->nkeys == 0 && w->nphases == 1 && w->nfaults == 0 &&
		   w->period_s == 1, "one empty phase, no faults");
		wl_free(w);
	}
	r = wl_load(fixture("good-minimal.json"), NULL, &w, err, sizeof(err));
	is_int(r, -EINVAL, "without a platform anywhere: rejected");
	like(err, "good-minimal.json: $: missing \"platform\"",
	     "message names the file and $");
	ok(w == NULL, "no workload on error");
}

/* ---- a fake hsx, for the hsx-only syntax -------------------------------- */

static const struct freerun_ctr fake_pcu_ctrs[] = {
	{ .name = "CORE_C6", .off = 0x3fd, .width = 48, .access = 8 },
	{ .name = "PKG_C6", .off = 0x3f9, .width = 48, .access = 8 },
};

/* An hsx-like event select (8-bit threshold): enough for plat_parse_raw. */
#define FAKE_HSX_FMT { .ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = 8, \
		       .thresh_lo = 24, .thresh_w = 8, .inv_bit = 23, \
		       .edge_bit = 18, .en_bit = 22, .ovf_en_bit = 20, \
		       .rst_bit = 17 }

/* Two box filters, as the CBo has (their layouts do not matter here). */
static const struct unit_filter fake_cbo_filters[] = {
	{ .off = 0x5, .flag = EVF_FILTER0 }, { .off = 0x6, .flag = EVF_FILTER1 },
};

static const struct unit_type fake_hsx_cbo = {
	.name = "cbo", .kind = UNIT_PROG, .space = HW_MSR, .max_inst = 18,
	.base = 0xe00, .inst_stride = 0x10, .nctr = 4, .width = 48,
	.fmt = FAKE_HSX_FMT, .filters = fake_cbo_filters, .nfilters = 2,
};

static const struct unit_type fake_hsx_sbox = {
	.name = "sbox", .kind = UNIT_PROG, .space = HW_MSR, .max_inst = 4,
	.base = 0x720, .inst_stride = 0xa, .nctr = 4, .width = 48,
	.fmt = FAKE_HSX_FMT,
};

static const struct unit_type fake_hsx_pcu = {
	.name = "pcu", .kind = UNIT_PROG, .space = HW_MSR, .max_inst = 1,
	.base = 0x710, .nctr = 4, .width = 48, .fmt = FAKE_HSX_FMT,
	.freerun = fake_pcu_ctrs, .nfreerun = 2,
};

static const struct unit_type *const fake_hsx_units[] = {
	&fake_hsx_cbo, &fake_hsx_sbox, &fake_hsx_pcu, NULL,
};

/* Its simulator data: the topology keys come from here, not from the
 * id (a count key names a unit the platform has). */
static const struct plat_sim_count fake_hsx_counts[] = {
	{ "cbo_count", "cbo", 18 }, { "sbox_count", "sbox", 4 },
	{ "ha_count", "ha", 2 },	/* no such unit: not a key */
};

static const struct plat_sim fake_hsx_sim = {
	.counts = fake_hsx_counts, .ncounts = 3, .max_sockets = 8,
	.cores = true, .mmio_bar = -1, .uclk_hz = 2000000000ull,
};

static const struct platform fake_hsx = {
	.id = "hsx", .name = "fake Haswell-EP for tests",
	.units = fake_hsx_units, .sim = &fake_hsx_sim,
};

static void test_hsx_syntax(void)
{
	const struct platform *p = &fake_hsx;
	struct workload *w = NULL;
	struct wl_match m;
	int r, k;

	r = parse_str("hsx.json",
		"{ \"platform\": \"hsx\", \"sockets\": 2, \"cbo_count\": 18,\n"
		"  \"sbox_count\": 2, \"uclk_hz\": 2500000000,\n"
		"  \"phases\": [ { \"seconds\": 5, \"rates\": {\n"
		"    \"s1/cbo:0x34:0x11:filter0=0x7c0000:filter1=0x3b@17\": 100,\n"
		"    \"cbo:0x34:0x11:filter0=0x7c0000\": 180,\n"
		"    \"cbo:0x34:0x11\": 36,\n"
		"    \"pcu:CORE_C6\": 1e9,\n"
		"    \"sbox:0x01:0x03@1\": 4 } } ],\n"
		"  \"faults\": [ { \"at\": 1, \"kind\": \"eio\",\n"
		"                \"target\": \"s1/pci:7f:10.1+0xa0\" } ] }\n",
		p, &w);
	is_int(r, 0, "hsx syntax parses on an hsx platform (%s)", err);
	if (r)
		return;
	ok(w->topo.sockets == 2 && TC(w, "cbo") == 18 &&
	   TC(w, "sbox") == 2 && w->topo.uclk_hz == 2500000000ull,
	   "hsx topology");
	k = key_by_text(w, "s1/cbo:0x34:0x11:filter0=0x7c0000:filter1=0x3b@17");
	ok(k >= 0 && w->keys[k].socket == 1 && w->keys[k].inst == 17 &&
	   w->keys[k].has_filter0 && w->keys[k].filter0 == 0x7c0000 &&
	   w->keys[k].has_filter1 && w->keys[k].filter1 == 0x3b,
	   "socket, instance and both filters");
	ok(w->nfaults == 1 && w->faults[0].socket == 1 &&
	   w->faults[0].target.bus == 0x7f && w->faults[0].target.dev == 0x10 &&
	   w->faults[0].target.fn == 1 && w->faults[0].target.reg == 0xa0,
	   "s1/pci:7f:10.1+0xa0");

	m = prog(p, "cbo", 1, 17, 18, 0x34, 0x11, 0, false, false);
	m.filter0 = 0x7c0000;
	m.filter1 = 0x3b;
	ok(rate_of(w, &m, 0) == 100 + 10 + 2, "s1 cbo 17, both filters match");
	m.filter1 = 0;
	ok(rate_of(w, &m, 0) == 10 + 2, "filter1 differs: the @17 key drops");
	m.filter0 = 0;
	ok(rate_of(w, &m, 0) == 2, "filter0 differs: only the filterless key");
	m = prog(p, "cbo", 0, 17, 18, 0x34, 0x11, 0, false, false);
	m.filter0 = 0x7c0000;
	m.filter1 = 0x3b;
	ok(rate_of(w, &m, 0) == 10 + 2, "socket 0: the s1/ key drops");
	m = prog(p, "sbox", 0, 1, 2, 0x01, 0x03, 0, false, false);
	ok(rate_of(w, &m, 0) == 4, "sbox@1");
	m = freerun(p, "pcu", "CORE_C6");
	ok(rate_of(w, &m, 0) == 1e9, "free-running counter of a PROG unit");
	wl_free(w);

	r = parse_str("hsx2.json",
		"{\"platform\":\"hsx\",\"sbox_count\":2,\"phases\":[{\"seconds\":1,"
		"\"rates\":{\"sbox:0x01:0x03@2\":1}}]}", p, &w);
	is_str(err, "hsx2.json: $.phases[0].rates[\"sbox:0x01:0x03@2\"]: "
	       "instance 2 out of range (sbox_count is 2: 0..1)",
	       "sbox@2 with sbox_count 2");
	r = parse_str("hsx3.json",
		"{\"platform\":\"hsx\",\"mchbar\":\"0xfed10001\",\"phases\":[]}",
		p, &w);
	like(err, "hsx3.json: $.mchbar: \"mchbar\" is not a hsx key",
	     "mchbar on hsx");
	r = parse_str("hsx4.json",
		"{\"platform\":\"skl\",\"phases\":[]}", p, &w);
	like(err, "hsx4.json: $.platform: workload is for platform \"skl\" "
	     "but the simulator runs \"hsx\"", "platform mismatch");
	ok(r == -EINVAL && w == NULL, "mismatch rejected");
	ok(wl_builtin(p, &w) == -ENOTSUP && w == NULL,
	   "no built-in workload for an hsx without a catalog");
}

/* ---- malformed workloads --------------------------------------------- */

#define PH(rates) "\"phases\":[{\"seconds\":1,\"rates\":{" rates "}}]"
#define SKL "{\"platform\":\"skl\","

static const struct bad {
	const char *json;
	const char *where;	/* "$.path" or "LINE:COL" */
	const char *what;	/* part of the message */
} bad[] = {
	/* types and ranges */
	{ SKL PH("\"cbo:0x34:0x8f\":-1") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8f\"]",
	  "-1 out of range: must be >= 0 (events per second per socket)" },
	{ SKL PH("\"cbo:0x34:0x8f\":\"NaN\"") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8f\"]", "not a string" },
	{ SKL PH("\"cbo:0x34:0x8f\":NaN") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8f\"]", "finite" },
	{ SKL PH("\"cbo:0x34:0x8f\":-Infinity") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8f\"]", "finite" },
	{ SKL PH("\"cbo:0x34:0x8f\":true") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8f\"]", "not a boolean" },
	{ SKL PH("\"cbo:0x34:0x8f\":1e16") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8f\"]", "at most 1e+15" },
	{ SKL "\"sockets\":\"1\"," PH("") "}", "$.sockets",
	  "must be an integer 1..1 (skl allows at most 1)" },
	{ SKL "\"sockets\":2," PH("") "}", "$.sockets",
	  "out of range: must be 1..1" },
	{ SKL "\"cbo_count\":11," PH("") "}", "$.cbo_count", "1..10" },
	{ SKL "\"cbo_count\":2.0," PH("") "}", "$.cbo_count",
	  "not a fractional number" },
	{ SKL "\"uclk_hz\":800000000.5," PH("") "}", "$.uclk_hz",
	  "not a whole number" },
	{ SKL "\"uclk_hz\":0," PH("") "}", "$.uclk_hz", "must be > 0" },
	{ SKL "\"mchbar\":\"0xfed10003\"," PH("") "}", "$.mchbar",
	  "reserved bits 0x2" },
	{ SKL "\"mchbar\":\"fed10001\"," PH("") "}", "$.mchbar",
	  "bad hex value" },
	{ SKL "\"mchbar\":4275109889," PH("") "}", "$.mchbar",
	  "must be a hex string" },
	{ SKL "\"phases\":{}}", "$.phases", "must be an array" },
	{ SKL "\"phases\":[]}", "$.phases", "empty" },
	{ SKL "\"phases\":[3]}", "$.phases[0]", "must be an object" },
	{ SKL "\"phases\":[{\"seconds\":0,\"rates\":{}}]}",
	  "$.phases[0].seconds", "must be > 0" },
	{ SKL "\"phases\":[{\"seconds\":\"10\",\"rates\":{}}]}",
	  "$.phases[0].seconds", "not a string" },
	{ SKL "\"phases\":[{\"seconds\":1,\"rates\":{}},{\"rates\":{}}]}",
	  "$.phases[1]", "missing \"seconds\"" },
	{ SKL "\"phases\":[{\"seconds\":1,\"rates\":[]}]}",
	  "$.phases[0].rates", "must be an object" },
	{ SKL "\"phases\":[{\"seconds\":1,\"secs\":1,\"rates\":{}}]}",
	  "$.phases[0].secs", "unknown key (a phase accepts: seconds, rates, memory_latency)" },
	/* keys */
	{ SKL "\"colour\":\"red\"," PH("") "}", "$.colour",
	  "unknown key (skl accepts: platform, sockets, cbo_count, uclk_hz, "
	  "mchbar, host_bridge, phases, distinct_rates, faults, perf, "
	  "uncore_freq, resctrl, energy, thermal_throttle)" },
	{ SKL "\"distinct_rates\":1," PH("") "}", "$.distinct_rates",
	  "must be true or false, not an integer" },
	/* energy (sim_rapl.c) */
	{ SKL "\"energy\":{\"watts\":{\"gpu\":5}}," PH("") "}",
	  "$.energy.watts.gpu", "unknown domain (package, dram or psys)" },
	{ SKL "\"energy\":{\"watts\":{\"package\":[1,2]}}," PH("") "}",
	  "$.energy.watts.package", "2 values: one per phase is 1" },
	{ SKL "\"energy\":{\"watts\":{\"package\":-1}}," PH("") "}",
	  "$.energy.watts.package", "watts per socket, 0..100000" },
	{ SKL "\"energy\":{\"unit\":14}," PH("") "}",
	  "$.energy", "missing \"watts\"" },
	{ SKL "\"energy\":{\"watts\":{\"package\":1},\"unit\":32}," PH("") "}",
	  "$.energy.unit", "0..31" },
	{ SKL "\"energy\":{\"watts\":{\"package\":1},\"initial\":"
	  "{\"dram\":5}}," PH("") "}",
	  "$.energy.initial.dram", "\"watts\" does not name dram" },
	{ SKL "\"energy\":{\"watts\":{\"package\":1},\"initial\":"
	  "{\"package\":4294967296}}," PH("") "}",
	  "$.energy.initial.package", "0..4294967295" },
	{ SKL "\"energy\":{\"watts\":{\"s0/dram\":1}}," PH("") "}",
	  "$.energy.watts[\"s0/dram\"]", "give \"dram\" for every socket first" },
	{ SKL "\"energy\":{\"watts\":{\"package\":1,\"s1/package\":2}},"
	  PH("") "}", "$.energy.watts[\"s1/package\"]", "socket 1 out of range" },
	{ SKL "\"energy\":{\"watts\":{\"package\":1},\"volts\":1}," PH("")
	  "}", "$.energy.volts", "unknown key (\"energy\" accepts: watts" },
	/* uncore_freq (sim_ufreq.c) */
	{ SKL "\"uncore_freq\":{\"layout\":\"tpmi\"}," PH("") "}",
	  "$.uncore_freq.layout", "must be \"package_die\"" },
	{ SKL "\"uncore_freq\":{\"io_domains\":1}," PH("") "}",
	  "$.uncore_freq.io_domains", "only the \"uncore\" layout" },
	{ SKL "\"uncore_freq\":{\"min_khz\":[800000,900000]}," PH("") "}",
	  "$.uncore_freq.min_khz", "2 values: one per domain is 1" },
	{ SKL "\"uncore_freq\":{\"min_khz\":0}," PH("") "}",
	  "$.uncore_freq.min_khz", "1..10000000" },
	{ SKL "\"uncore_freq\":{\"min_khz\":2000000,\"max_khz\":1000000},"
	  PH("") "}", "$.uncore_freq",
	  "domain 0 (socket 0 die 0): a minimum above its maximum" },
	{ SKL "\"uncore_freq\":{\"dies\":5}," PH("") "}",
	  "$.uncore_freq.dies", "1..4" },
	{ SKL "\"uncore_freq\":{\"max\":1}," PH("") "}",
	  "$.uncore_freq.max", "unknown key (\"uncore_freq\" accepts: layout" },
	{ SKL "\"host_bridge\":\"0x1a2b3\"," PH("") "}", "$.host_bridge",
	  "must be a hex string \"0x...\" of 1 to 4 digits (the PCI device ID "
	  "of the function holding MCHBAR)" },
	{ SKL "\"sbox_count\":2," PH("") "}", "$.sbox_count",
	  "\"sbox_count\" is not a skl key" },
	{ SKL "\"a b\":1," PH("") "}", "$[\"a b\"]", "unknown key" },
	{ "{" PH("") "}", "$", "missing \"platform\"" },
	{ "{\"platform\":\"k8\"," PH("") "}", "$.platform",
	  "unknown platform \"k8\" (supported by this build: skl, hsx, snbep, skx, icx, spr, zen4, adl, mtl, zen5, zen3, gnr)" },
	{ "{\"platform\":7," PH("") "}", "$.platform", "must be a string" },
	{ SKL "\"faults\":[]}", "$", "missing \"phases\"" },
	/* rate keys */
	{ SKL PH("\"foo:0x1:0x1\":1") "}",
	  "$.phases[0].rates[\"foo:0x1:0x1\"]",
	  "unknown unit \"foo\" (skl units: cbo, arb, fixed, imc)" },
	{ SKL PH("\"cbo:0xzz:0x8f\":1") "}",
	  "$.phases[0].rates[\"cbo:0xzz:0x8f\"]", "is not a number" },
	{ SKL PH("\"cbo:0x34:0x1ff\":1") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x1ff\"]", "does not fit" },
	{ SKL PH("\"cbo:0x34:0x8f:thresh=32\":1") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8f:thresh=32\"]",
	  "threshold field" },
	{ SKL PH("\"cbo:0x34:0x8f:bogus\":1") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8f:bogus\"]", "unknown modifier" },
	{ SKL PH("\"cbo::0x8f\":1") "}", "$.phases[0].rates[\"cbo::0x8f\"]",
	  "empty field 2" },
	{ SKL PH("\"cbo:0x34:0x8f:\":1") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8f:\"]", "empty field 4" },
	{ SKL PH("\"\":1") "}", "$.phases[0].rates[\"\"]", "empty field 1" },
	{ SKL PH("\"cbo:0x34\":1") "}", "$.phases[0].rates[\"cbo:0x34\"]",
	  "missing umask" },
	{ SKL PH("\"cbo\":1") "}", "$.phases[0].rates.cbo",
	  "incomplete rate key" },
	{ SKL PH("\"cbo:0x34:0x8f@x\":1") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8f@x\"]", "bad instance \"@x\"" },
	{ SKL PH("\"s1/cbo:0x34:0x8f\":1") "}",
	  "$.phases[0].rates[\"s1/cbo:0x34:0x8f\"]",
	  "socket 1 out of range (the platform has at most 1: s0..s0)" },
	{ SKL "\"sockets\":1," PH("\"s1/cbo:0x34:0x8f\":1") "}",
	  "$.phases[0].rates[\"s1/cbo:0x34:0x8f\"]",
	  "socket 1 out of range (sockets is 1: s0..s0)" },
	{ SKL PH("\"x1/cbo:0x34:0x8f\":1") "}",
	  "$.phases[0].rates[\"x1/cbo:0x34:0x8f\"]", "bad socket prefix" },
	{ SKL PH("\"arb:0x81:0x01@1\":1") "}",
	  "$.phases[0].rates[\"arb:0x81:0x01@1\"]",
	  "instance 1 out of range (arb has 1 instance: 0..0)" },
	{ SKL PH("\"cbo:0x34:0x8f@8\":1") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8f@8\"]",
	  "instance 8 out of range (cbo has 8 instances: 0..7)" },
	{ SKL "\"cbo_count\":2," PH("\"cbo:0x34:0x8f@2\":1") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8f@2\"]",
	  "instance 2 out of range (cbo_count is 2: 0..1)" },
	{ SKL PH("\"cbo:0x34:0x8f:filter0=0x1\":1") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8f:filter0=0x1\"]",
	  "\"filter0\": cbo has no box filter registers" },
	{ "{\"platform\":\"snbep\"," PH("\"ubox:0x41:0x01:filter0=0x1\":1") "}",
	  "$.phases[0].rates[\"ubox:0x41:0x01:filter0=0x1\"]",
	  "\"filter0\": ubox has no box filter registers" },
	{ "{\"platform\":\"snbep\",\"cores\":4,\"cbo_count\":6," PH("") "}",
	  "$", "cbo_count 6 > cores 4: snbep has one cbo per core" },
	{ "{\"platform\":\"snbep\",\"cores\":4,\"offline_cpus\":[5]," PH("") "}",
	  "$", "offline_cpus: CPU 5 is no core of the simulated machine (1 "
	  "socket of 4 cores: CPUs 8*s .. 8*s+3)" },
	{ "{\"platform\":\"snbep\",\"cores\":2,\"offline_cpus\":[0,1]," PH("") "}",
	  "$", "offline_cpus: every core of socket 0 is offline" },
	{ "{\"platform\":\"snbep\",\"offline_cpus\":[64]," PH("") "}",
	  "$.offline_cpus[0]", "out of range" },
	{ "{\"platform\":\"snbep\",\"offline_cpus\":3," PH("") "}",
	  "$.offline_cpus", "must be an array of CPU numbers" },
	{ "{\"platform\":\"skl\",\"offline_cpus\":[1]," PH("") "}",
	  "$.offline_cpus", "\"offline_cpus\" is not a skl key" },
	{ "{\"platform\":\"snbep\",\"imc_channels\":5," PH("") "}",
	  "$.imc_channels", "imc_channels" },
	{ SKL PH("\"fixed:0x00:0x01\":1") "}",
	  "$.phases[0].rates[\"fixed:0x00:0x01\"]", "uclk_hz" },
	{ SKL PH("\"imc:DRAM_FOO\":1") "}", "$.phases[0].rates[\"imc:DRAM_FOO\"]",
	  "unknown free-running counter \"DRAM_FOO\" of imc (accepted: "
	  "DRAM_GT_REQUESTS, DRAM_IA_REQUESTS, DRAM_IO_REQUESTS, "
	  "DRAM_DATA_READS, DRAM_DATA_WRITES)" },
	{ SKL PH("\"imc:0x01:0x01\":1") "}",
	  "$.phases[0].rates[\"imc:0x01:0x01\"]",
	  "imc has only free-running counters" },
	{ SKL PH("\"cbo:DRAM_DATA_READS\":1") "}",
	  "$.phases[0].rates[\"cbo:DRAM_DATA_READS\"]",
	  "cbo has no free-running counters" },
	{ SKL PH("\"cbo:0x34:0x8f\":1,\"cbo:0x34:0x8F\":2") "}",
	  "$.phases[0].rates[\"cbo:0x34:0x8F\"]",
	  "counts the same as \"cbo:0x34:0x8f\" in this phase" },
	{ SKL PH("\"cbo:0x34:0x8f:thresh=0\":1,\"cbo:52:143\":2") "}",
	  "$.phases[0].rates[\"cbo:52:143\"]",
	  "counts the same as \"cbo:0x34:0x8f:thresh=0\"" },
	/* faults */
	{ SKL PH("") ",\"faults\":{}}", "$.faults", "must be an array" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"explode\","
	  "\"target\":\"msr:0x706\"}]}", "$.faults[0].kind",
	  "unknown fault kind \"explode\" (accepted: eio, foreign_write, "
	  "device_missing, stuck, delay, perf_contention, pmu_gone, "
	  "perf_read_error, short_read, perf_read_delay)" },
	{ "{\"platform\":\"spr\"," PH("") ",\"faults\":[{\"at\":1,"
	  "\"kind\":\"perf_read_delay\",\"target\":\"uncore_cha_*\"}]}",
	  "$.faults[0]",
	  "missing \"seconds\" (how much later each delayed access returns" },
	{ "{\"platform\":\"spr\"," PH("") ",\"faults\":[{\"at\":1,"
	  "\"kind\":\"perf_read_delay\",\"target\":\"msr:0x706\","
	  "\"seconds\":0.02}]}", "$.faults[0].target",
	  "a kernel PMU name" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"delay\","
	  "\"target\":\"msr:0x706\"}]}", "$.faults[0]",
	  "missing \"seconds\" (how much later each delayed access returns" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"delay\","
	  "\"target\":\"msr:0x706\",\"seconds\":0}]}", "$.faults[0].seconds",
	  "must be > 0" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"delay\","
	  "\"target\":\"msr:0x706\",\"seconds\":11}]}", "$.faults[0].seconds",
	  "out of range: at most 10" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"eio\","
	  "\"target\":\"msr:0x706\",\"seconds\":1}]}", "$.faults[0].seconds",
	  "not allowed for kind \"eio\" (only perf_contention, pmu_gone, delay, "
	  "perf_read_delay take a seconds)" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"eio\","
	  "\"target\":\"msr:0x706\",\"value\":\"0x1\"}]}", "$.faults[0].value",
	  "not allowed for kind \"eio\"" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"stuck\","
	  "\"target\":\"msr:0x706\",\"count\":2}]}", "$.faults[0].count",
	  "not allowed for kind \"stuck\"" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"eio\","
	  "\"target\":\"msr:0x706\",\"count\":0}]}", "$.faults[0].count",
	  "must be 1..1000000000" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"eio\"}]}",
	  "$.faults[0]", "missing \"target\"" },
	{ SKL PH("") ",\"faults\":[{\"kind\":\"eio\",\"target\":\"msr:0x1\"}]}",
	  "$.faults[0]", "missing \"at\"" },
	{ SKL PH("") ",\"faults\":[{\"at\":-1,\"kind\":\"eio\","
	  "\"target\":\"msr:0x1\"}]}", "$.faults[0].at", "must be >= 0" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"eio\","
	  "\"target\":\"msr:706\"}]}", "$.faults[0].target",
	  "bad MSR address \"706\"" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"eio\","
	  "\"target\":\"port:0x80\"}]}", "$.faults[0].target",
	  "bad target \"port:0x80\" (kind eio accepts" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"eio\","
	  "\"target\":\"pci:00:00.0\"}]}", "$.faults[0].target",
	  "kind eio needs a register: pci:BB:DD.F+0xOFF" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"device_missing\","
	  "\"target\":\"pci:00:00.0+0x48\"}]}", "$.faults[0].target",
	  "without +0xOFF" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"eio\","
	  "\"target\":\"pci:00:20.0+0x48\"}]}", "$.faults[0].target",
	  "device is 00..1f" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"eio\","
	  "\"target\":\"s0/mmio:0xfed15050\"}]}", "$.faults[0].target",
	  "no socket prefix" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"foreign_write\","
	  "\"target\":\"msr:0xe01\"}]}", "$.faults[0]", "missing \"value\"" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"foreign_write\","
	  "\"target\":\"mmio:0xfed15050\",\"value\":\"0x100000000\"}]}",
	  "$.faults[0].value", "too large (a 32-bit register" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"foreign_write\","
	  "\"target\":\"msr:0xe01\",\"value\":-1}]}", "$.faults[0].value",
	  "is negative" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"stuck\","
	  "\"target\":\"imc:DRAM_FOO\"}]}", "$.faults[0].target",
	  "unknown free-running counter \"DRAM_FOO\"" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"eio\","
	  "\"target\":\"msr:0x706\",\"when\":3}]}", "$.faults[0].when",
	  "unknown key" },
	{ SKL PH("") ",\"faults\":[{\"at\":1,\"kind\":\"eio\","
	  "\"target\":\"s1/msr:0x706\"}]}", "$.faults[0].target",
	  "socket 1 out of range" },
	/* not an object, syntax */
	{ "[1, 2]", "$", "must be a JSON object {...}, not an array" },
	{ "42", "$", "must be a JSON object {...}, not a number" },
	{ "\"skl\"", "$", "must be a JSON object {...}, not a string" },
	{ "", "1:1", "empty input" },
	{ "\n  \n", "3:1", "empty input" },
	{ "{\"platform\":\"skl\",\n\"phases\":[", "2:11",
	  "unexpected end of input" },
	{ "{\"platform\":\"skl\",\n \"phases\":[],}", "2:14",
	  "JSON syntax error at '}'" },
	{ "{\"platform\":'skl'}", "1:13", "JSON syntax error at '''" },
	{ "{'platform':\"skl\"}", "1:2", "single-quoted strings are not "
	  "JSON" },
	{ SKL PH("") "} {}", "1:56", "trailing characters" },
	{ "{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
	  "1:13", "nesting too deep (at most 8 levels)" },
	{ SKL PH("") ",\"platform\":\"skl\"}", "1:55: $.platform",
	  "duplicate key" },
	{ SKL "\"\\u0070latform\":\"skl\"," PH("") "}", "1:19: $.platform",
	  "duplicate key" },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct workload *w = (struct workload *)1;
		char name[32], want[256];
		int r;

		snprintf(name, sizeof(name), "bad-%zu.json", i);
		r = parse_str(name, bad[i].json, NULL, &w);
		if (bad[i].where[0] == '$')
			snprintf(want, sizeof(want), "%s: %s: ", name,
				 bad[i].where);
		else
			snprintf(want, sizeof(want), "%s:%s: ", name,
				 bad[i].where);
		ok(r == -EINVAL && w == NULL, "%s rejected (%s)", name,
		   bad[i].what);
		ok(strncmp(err, want, strlen(want)) == 0 &&
		   strstr(err, bad[i].what) != NULL, "%s: message \"%s\"",
		   name, err);
		if (strncmp(err, want, strlen(want)) != 0 ||
		    !strstr(err, bad[i].what))
			printf("#   want \"%s...%s\"\n", want, bad[i].what);
	}
}

/* A NUL byte inside the text (not expressible as a C string literal). */
static void test_nul(void)
{
	static const char text[] = "{\"platform\":\n\"sk\0l\"}";
	struct workload *w = NULL;
	int r;

	r = wl_parse(text, sizeof(text) - 1, "nul.json", NULL, &w, err,
		     sizeof(err));
	is_int(r, -EINVAL, "NUL byte rejected");
	like(err, "nul.json:2:4: NUL byte", "at its line and column");

	/* wl_parse takes a length: nothing may read past it (ASan checks) */
	static const char *const unterminated[] = { "  42", "{\"a\"", "[1" };
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(unterminated[i]);
		char *b = malloc(n);

		memcpy(b, unterminated[i], n);
		r = wl_parse(b, n, "unterminated.json", NULL, &w, err,
			     sizeof(err));
		ok(r == -EINVAL && strstr(err, "unterminated.json"),
		   "unterminated buffer %zu: %s", i, err);
		free(b);
	}
}

static void test_bad_files(void)
{
	static const struct {
		const char *file, *msg;
	} files[] = {
		{ "bad-syntax.json", ":4:21: JSON syntax error at '\"'" },
		{ "bad-trailing.json", ":2:1: trailing characters after the "
		  "JSON object" },
		{ "bad-duplicate.json", ":8:9: $.phases[1].rates"
		  "[\"cbo:0x34:0x8f\"]: duplicate key" },
		{ "bad-instance.json", ": $.phases[1].rates[\"cbo:0x34:0x8f@7\"]: "
		  "instance 7 out of range (cbo_count is 4: 0..3)" },
	};
	struct workload *w = NULL;
	char want[4096 + 512];
	int r;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *path = fixture(files[i].file);

		r = wl_load(path, NULL, &w, err, sizeof(err));
		snprintf(want, sizeof(want), "%s%s", path, files[i].msg);
		is_int(r, -EINVAL, "%s rejected", files[i].file);
		ok(strncmp(err, want, strlen(want)) == 0, "%s: message \"%s\"",
		   files[i].file, err);
	}

	r = wl_load(fixture("no-such-file.json"), NULL, &w, err, sizeof(err));
	is_int(r, -ENOENT, "missing file: -ENOENT");
	snprintf(want, sizeof(want), "%s: cannot open workload: %s",
		 fixture("no-such-file.json"), strerror(ENOENT));
	is_str(err, want, "missing file: path and strerror");
	ok(w == NULL, "no workload");

	r = wl_load(fixture(""), NULL, &w, err, sizeof(err));
	ok(r < 0 && strstr(err, strerror(EISDIR)), "a directory: %s", err);
}

static void test_big_file(void)
{
	char path[] = "/tmp/test_workload_XXXXXX";
	struct workload *w = NULL;
	FILE *f;
	int fd, r;

	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		ok(0, "temporary file");
		return;
	}
	/* valid JSON, but over 4 MiB */
	fputs("{\"platform\":\"skl\",\"phases\":[{\"seconds\":1,\"rates\":{}}]", f);
	for (int i = 0; i < (4 << 20) / 64 + 1; i++)
		fprintf(f, "%64s", "");
	fputs("}", f);
	fclose(f);
	r = wl_load(path, NULL, &w, err, sizeof(err));
	ok(r == -EFBIG && w == NULL, "a file over 4 MiB is refused");
	wl_free(w);
	like(err, path, "message names the file");
	like(err, "too large", "and says why");
	remove(path);
}

/* ---- wl_integral ----------------------------------------------------- */

static void test_integral(void)
{
	struct workload *w = NULL;
	double r[2];
	struct wl_match m;
	int rc;

	/* phases: 10 s at 100/s, 20 s at 7/s; period 30 s, 1140 per period */
	rc = parse_str("int.json", SKL "\"phases\":["
		       "{\"seconds\":10,\"rates\":{\"arb:0x81:0x01\":100}},"
		       "{\"seconds\":20,\"rates\":{\"arb:0x81:0x01\":7}}]}",
		       NULL, &w);
	is_int(rc, 0, "integral workload parses (%s)", err);
	if (rc)
		return;
	m = prog(&plat_skl, "arb", 0, 0, 1, 0x81, 0x01, 0, false, false);
	wl_rates(w, &m, r);
	ok(r[0] == 100 && r[1] == 7, "rates 100, 7");
	ok(wl_integral(w, r, 0, 30) == 1140, "one period: 1140");
	ok(wl_integral(w, r, 5, 15) == 535, "across the 10 s boundary: 535");
	ok(wl_integral(w, r, 25, 35) == 535, "across the period boundary: 535");
	ok(wl_integral(w, r, 9.5, 10.5) == 53.5, "half a second each side");
	ok(wl_integral(w, r, 12, 12) == 0, "empty interval");
	ok(wl_integral(w, r, 12, 29) == 119, "inside phase 1");
	/* [5, 1000012]: 640 to the end of period 0, 33332 whole periods,
	 * then 10 s at 100 and 12 s at 7 = 1084 */
	ok(wl_integral(w, r, 5, 1000012) == 38000204.0,
	   "a million seconds: 38000204 exactly (got %.3f)",
	   wl_integral(w, r, 5, 1000012));
	ok(wl_integral(w, r, 999990, 1000020) == 1140,
	   "a period a million seconds in");
	ok(wl_integral(w, r, 1e6, 1e6 + 1) == 7,
	   "1e6 s is 10 s into period 33333: phase 1");
	/* 1e9 s: 33333333 whole periods, then 10 s at 100 */
	ok(wl_integral(w, r, 0, 1e9) == 38000000620.0,
	   "1e9 s: 38000000620 exactly (got %.3f)", wl_integral(w, r, 0, 1e9));
	wl_free(w);

	/* fractional phases */
	rc = parse_str("int2.json", SKL "\"phases\":["
		       "{\"seconds\":0.1,\"rates\":{\"arb:0x81:0x01\":1e9}},"
		       "{\"seconds\":0.3,\"rates\":{}}]}", NULL, &w);
	is_int(rc, 0, "fractional workload parses");
	if (rc)
		return;
	wl_rates(w, &m, r);
	is_near(wl_integral(w, r, 0, 1e6), 2.5e14, 1e-12,
		"2.5e6 periods of 1e8 events");
	is_near(wl_integral(w, r, 0.05, 0.45), 0.05e9 + 0.05e9, 1e-12,
		"half of phase 0 twice");
	wl_free(w);
}

/* ---- built-in workload ----------------------------------------------- */

static double bi_rate(const struct workload *w, const struct platform *p,
		      const char *name, unsigned ph)
{
	const struct event *ev = plat_event(p, name);
	struct wl_match m;
	double sum = 0;

	if (!ev)
		return -1;
	m = prog(p, ev->unit, 0, 0, 0, 0, 0, 0, false, false);
	m.enc = event_enc_of(ev);
	m.ninst = strcmp(ev->unit, "cbo") == 0 ? 4 : 1;
	for (m.inst = 0; m.inst < m.ninst; m.inst++)
		sum += rate_of(w, &m, ph);
	return sum;
}

static double bi_free(const struct workload *w, const struct platform *p,
		      const char *name, unsigned ph)
{
	struct wl_match m = freerun(p, "imc", name);

	return rate_of(w, &m, ph);
}

static void test_builtin(void)
{
	const struct platform *p = &plat_skl;
	const struct unit_type *imc = plat_unit(p, "imc", NULL);
	struct workload *w = NULL;
	unsigned bad_ev = 0, bad_rel = 0, nev = 0;

	is_int(wl_builtin(p, &w), 0, "built-in skl workload");
	if (!w)
		return;
	is_str(w->source, "(built-in)", "source");
	ok(w->topo.sockets == 1 && TC(w, "cbo") == 4 &&
	   w->topo.uclk_hz == 800000000 && w->topo.has_mmio_bar &&
	   w->topo.mmio_bar == 0xfed10001, "topology");
	ok(w->nphases == 12 && w->period_s == 120, "12 phases of 10 s");
	ok(w->nfaults == 0, "no faults");

	for (size_t i = 0; i < p->nevents; i++) {
		const struct event *ev = &p->events[i];

		if (strcmp(ev->unit, "cbo") && strcmp(ev->unit, "arb"))
			continue;
		nev++;
		for (unsigned ph = 0; ph < w->nphases; ph++) {
			if (!(bi_rate(w, p, ev->name, ph) > 0)) {
				printf("# %s phase %u: %g\n", ev->name, ph,
				       bi_rate(w, p, ev->name, ph));
				bad_ev++;
			}
		}
	}
	ok(nev >= 19, "catalog has the 14 CBo + 5 ARB events (%u)", nev);
	is_int(bad_ev, 0, "every cbo/arb catalog event counts in every phase");
	for (unsigned i = 0; imc && i < imc->nfreerun; i++)
		for (unsigned ph = 0; ph < w->nphases; ph++)
			if (!(bi_free(w, p, imc->freerun[i].name, ph) > 0))
				bad_ev++;
	is_int(bad_ev, 0, "every imc free-running counter counts");

	for (unsigned ph = 0; ph < w->nphases; ph++) {
#define EV(n) bi_rate(w, p, "UNC_" n, ph)
#define FR(n) bi_free(w, p, n, ph)
		double any = EV("CBO_CACHE_LOOKUP.ANY_MESI");
		double rd = EV("CBO_CACHE_LOOKUP.READ_MESI");
		double wr = EV("CBO_CACHE_LOOKUP.WRITE_MESI");
		double es = EV("CBO_CACHE_LOOKUP.ANY_ES");
		double mm = EV("CBO_CACHE_LOOKUP.ANY_M");
		double ii = EV("CBO_CACHE_LOOKUP.ANY_I");
		double ri = EV("CBO_CACHE_LOOKUP.READ_I");
		double res = EV("CBO_CACHE_LOOKUP.READ_ES");
		double wes = EV("CBO_CACHE_LOOKUP.WRITE_ES");
		double wm = EV("CBO_CACHE_LOOKUP.WRITE_M");
		double occ = EV("ARB_TRK_OCCUPANCY.ALL");
		double cyc = EV("ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST");
		double req = EV("ARB_TRK_REQUESTS.ALL");
		double wreq = EV("ARB_TRK_REQUESTS.WRITES");
		double drd = FR("DRAM_DATA_READS"), dwr = FR("DRAM_DATA_WRITES");
		double dreq = FR("DRAM_IA_REQUESTS") + FR("DRAM_GT_REQUESTS") +
			      FR("DRAM_IO_REQUESTS");
		double uclk = (double)w->topo.uclk_hz;
		int okp = fabs(any - (rd + wr)) <= 1e-9 * any &&
			  ii / any >= 0.05 && ii / any <= 0.15 &&
			  any >= es + mm + ii && ri <= ii && res <= es &&
			  wes <= es && wm <= mm && rd >= res + ri &&
			  drd >= ii && drd <= 2 * ii &&
			  fabs(dreq - (drd + dwr)) <= 1e-9 * dreq &&
			  occ <= uclk && cyc <= occ && cyc <= uclk &&
			  cyc != occ && req >= ii && wreq < req;
#undef EV
#undef FR
		if (!okp) {
			printf("# phase %u: any %g rd %g wr %g es %g m %g i %g "
			       "occ %g cyc %g drd %g dwr %g dreq %g\n", ph, any,
			       rd, wr, es, mm, ii, occ, cyc, drd, dwr, dreq);
			bad_rel++;
		}
	}
	is_int(bad_rel, 0, "headline events consistent in every phase");
	ok(bi_rate(w, p, "UNC_CBO_CACHE_LOOKUP.ANY_MESI", 0) !=
	   bi_rate(w, p, "UNC_CBO_CACHE_LOOKUP.ANY_MESI", 3),
	   "rates vary between phases");
	ok(fabs(bi_rate(w, p, "UNC_CBO_CACHE_LOOKUP.ANY_MESI", 3) /
		bi_rate(w, p, "UNC_CBO_CACHE_LOOKUP.ANY_MESI", 0) - 1.25) < 1e-9,
	   "load peaks at 1.25x a quarter period in");
	wl_free(w);
}

/* skx: the LLC headline events, TOR_INSERTS.IA and .IA_MISS, take one
 * FILTER1 value (config1 0x3b << 32, plat_xsp.h), so the built-in keys
 * each by the quantity whose event it is: phase 0 plays 2e9 lookups and
 * 2e9 x 0.1 x 1.2 = 2.4e8 misses a second per socket (sim_xsp.c), spread
 * evenly over the 28 CHAs, and nothing at another filter value. */
static void test_builtin_skx(void)
{
	const struct platform *p = &plat_skx;
	struct workload *w = NULL;
	double r[12], look = 0, miss = 0, nofilt = 0, cha5 = 0;

	is_int(wl_builtin(p, &w), 0, "built-in skx workload");
	if (!w)
		return;
	ok(w->nphases == 12 && TC(w, "cha") == 28, "12 phases, 28 CHAs");
	for (unsigned i = 0; i < 28; i++) {
		struct wl_match m = prog(p, "cha", 0, i, 28, 0x35, 0x31, 0, 0, 0);

		m.filter0 = 0x3b00000000ull;
		wl_rates(w, &m, r);
		look += r[0];
		if (i == 5)
			cha5 = r[0];
		m.enc.umask = 0x21;
		wl_rates(w, &m, r);
		miss += r[0];
		m.filter0 = 0;
		wl_rates(w, &m, r);
		nofilt += r[0];
	}
	is_near(look, 2.0e9, 1e-9, "TOR_INSERTS.IA: the lookups, 2e9/s");
	is_near(miss, 2.4e8, 1e-9, "TOR_INSERTS.IA_MISS: the misses, 2.4e8/s");
	is_near(cha5, 2.0e9 / 28, 1e-9, "a CHA's share: 1/28 of them");
	ok(nofilt == 0, "IA_MISS with FILTER1 0 counts nothing (%g)", nofilt);
	wl_free(w);
}

/* ---- the shipped demo ------------------------------------------------- */

static void test_demo(void)
{
	static const struct {
		double hit, rd_gbs, wr_gbs, lat, busy;
	} want[3] = {
		{ 0.90, 0.2, 0.1, 40, 0.15 },
		{ 0.95, 0.8, 0.4, 40, 0.50 },
		{ 0.60, 10.0, 4.0, 80, 0.95 },
	};
	const struct platform *p = &plat_skl;
	struct workload *w = NULL;
	char path[4096];
	int r;

	snprintf(path, sizeof(path), "%s/conf/workloads/skl-default.json",
		 srcdir());
	r = wl_load(path, p, &w, err, sizeof(err));
	is_int(r, 0, "conf/workloads/skl-default.json parses (%s)", err);
	if (r)
		return;
	ok(w->nphases == 3 && w->period_s == 90, "three 30 s phases");
	for (unsigned ph = 0; ph < 3; ph++) {
		double any = bi_rate(w, p, "UNC_CBO_CACHE_LOOKUP.ANY_MESI", ph);
		double miss = bi_rate(w, p, "UNC_CBO_CACHE_LOOKUP.ANY_I", ph);
		double rd = bi_free(w, p, "DRAM_DATA_READS", ph) * 64 / 1e9;
		double wr = bi_free(w, p, "DRAM_DATA_WRITES", ph) * 64 / 1e9;
		double occ = bi_rate(w, p, "UNC_ARB_TRK_OCCUPANCY.ALL", ph);
		double req = bi_rate(w, p, "UNC_ARB_TRK_REQUESTS.ALL", ph);
		double cyc = bi_rate(w, p,
			"UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST", ph);

		is_near(1 - miss / any, want[ph].hit, 1e-12,
			"phase %u: LLC hit ratio", ph);
		is_near(rd, want[ph].rd_gbs, 1e-12, "phase %u: DRAM read GB/s", ph);
		is_near(wr, want[ph].wr_gbs, 1e-12, "phase %u: DRAM write GB/s",
			ph);
		is_near(occ / req, want[ph].lat, 1e-12,
			"phase %u: ARB occupancy per request (UCLK cycles)", ph);
		is_near(cyc / 8e8, want[ph].busy, 1e-12,
			"phase %u: ARB busy fraction", ph);
	}
	wl_free(w);
}

int main(void)
{
	test_good_skl();
	test_good_minimal();
	test_hsx_syntax();
	test_bad();
	test_nul();
	test_bad_files();
	test_big_file();
	test_integral();
	test_builtin();
	test_builtin_skx();
	test_demo();
	return tap_done();
}
