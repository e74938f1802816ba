/*
 * test_derive.c - the derived-metric evaluator (src/core/derive.c) and every
 * platform's metric table (src/plat/derived_*.c), with exact values.
 *
 * The plans are built on hand-made topologies and series, so each value
 * below is arithmetic on the deltas given, not a measurement.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/derive.h"
#include "plat/plat_hsx.h"
#include "tests/tap.h"

static int unit_of(const struct platform *pl, const char *name)
{
	int idx = -1;

	plat_unit(pl, name, &idx);
	return idx;
}

/* Value of metric name (JSON key json) on socket s, instance in. */
static double val(const struct derive_plan *dp, const double *v,
		  const char *name, const char *json, unsigned s, unsigned in)
{
	int m = derive_find(&plat_hsx, name, json);

	if (m < 0)
		return -12345;
	return v[derive_index(dp, (size_t)m, s, in)];
}

static void test_tables(void)
{
	char why[200];

	for (const struct platform *const *p = plat_all; *p; p++) {
		ok((*p)->derived != NULL, "%s has a derived-metric table",
		   (*p)->id);
		why[0] = '\0';
		is_int(derive_check(*p, why, sizeof(why)), 0.0,
		       "%s: the derived table follows the rules %s", (*p)->id,
		       why);
	}
}

/* A platform like hsx with the table replaced. */
static int check_table(const struct derived_src *src, size_t nsrc,
		       const struct derived_metric *m, size_t nm, char *why,
		       size_t whylen)
{
	struct derived_table tab = { src, nsrc, m, nm };
	struct platform pl = plat_hsx;

	pl.derived = &tab;
	why[0] = '\0';
	return derive_check(&pl, why, whylen);
}

static void test_bad_tables(void)
{
	static const struct derived_src src[] = {
		{ "rd", "UNC_M_CAS_COUNT.RD", 64 },
		{ "wr", "UNC_M_CAS_COUNT.WR", 64 },
		{ "clk", "UNC_U_CLOCKTICKS", 1 },
	};
	static const struct derived_src badsrc[] = {
		{ "x", "UNC_NO_SUCH_EVENT", 1 },
	};
	static const struct derived_metric sub_counter[] = {
		{ "a_total", "a", "h", NULL, DM_COUNTER, NULL, { NULL },
		  { DF_SRC("rd"), DF_SRC("wr"), DF_SUB } },
	};
	static const struct derived_metric neg_scale[] = {
		{ "a_total", "a", "h", NULL, DM_COUNTER, NULL, { NULL },
		  { DF_SRC("rd"), DF_SCALE(-1) } },
	};
	static const struct derived_metric unknown[] = {
		{ "a_total", "a", "h", NULL, DM_COUNTER, NULL, { NULL },
		  { DF_SRC("nope") } },
	};
	static const struct derived_metric stack[] = {
		{ "a", "a", "h", NULL, DM_GAUGE, NULL, { NULL },
		  { DF_SRC("rd"), DF_SRC("wr") } },
	};
	static const struct derived_metric underflow[] = {
		{ "a", "a", "h", NULL, DM_GAUGE, NULL, { NULL },
		  { DF_SRC("rd"), DF_RATIO } },
	};
	static const struct derived_metric mixed_units[] = {
		{ "a", "a", "h", NULL, DM_GAUGE, "channel", { NULL },
		  { DF_SRC("rd"), DF_SRC("clk"), DF_RATIO } },
	};
	static const struct derived_metric apart[] = {
		{ "a_total", "a", "h", NULL, DM_COUNTER, NULL, { "d", "r", NULL },
		  { DF_SRC("rd") } },
		{ "b_total", "b", "h", NULL, DM_COUNTER, NULL, { NULL },
		  { DF_SRC("rd") } },
		{ "a_total", "c", "h", NULL, DM_COUNTER, NULL, { "d", "w", NULL },
		  { DF_SRC("wr") } },
	};
	static const struct derived_metric mixed_levels[] = {
		{ "a_total", "a", "h", NULL, DM_COUNTER, NULL, { "d", "r", NULL },
		  { DF_SRC("rd") } },
		{ "a_total", "b", "h", NULL, DM_COUNTER, "channel",
		  { "d", "w", NULL }, { DF_SRC("wr") } },
	};
	static const struct derived_metric same_json[] = {
		{ "a_total", "a", "h", NULL, DM_COUNTER, NULL, { NULL },
		  { DF_SRC("rd") } },
		{ "b_total", "a", "h", NULL, DM_COUNTER, NULL, { NULL },
		  { DF_SRC("wr") } },
	};
	static const struct derived_metric gauge_total[] = {
		{ "a_total", "a", "h", NULL, DM_GAUGE, NULL, { NULL },
		  { DF_SRC("rd"), DF_RATE } },
	};
	static const struct derived_metric lone_sum[] = {
		{ "a_seconds", "a", "h", "seconds", DM_SUM, NULL, { NULL },
		  { DF_SRC("rd"), DF_SRC("clk"), DF_RATE, DF_RATIO } },
	};
	static const struct derived_metric sub_sum[] = {
		{ "a_seconds", "a", "h", "seconds", DM_SUM, NULL, { NULL },
		  { DF_SRC("rd"), DF_SRC("wr"), DF_SUB } },
		{ "a_seconds", "b", "h", "seconds", DM_COUNT, NULL, { NULL },
		  { DF_SRC("wr") } },
	};
	static const struct derived_metric json_counter[] = {
		{ "a_total", "a", "h", NULL, DM_COUNTER, NULL, { NULL },
		  { DF_SRC("rd") }, true },
	};
	static const struct derived_metric good_summary[] = {
		{ "a_seconds", "a", "h", "seconds", DM_SUM, NULL, { "t", "x", NULL },
		  { DF_SRC("rd"), DF_SRC("clk"), DF_RATE, DF_RATIO } },
		{ "a_seconds", "b", "h", "seconds", DM_COUNT, NULL, { "t", "x", NULL },
		  { DF_SRC("wr") } },
		{ "a_seconds", "c", "h", "seconds", DM_SUM, NULL, { "t", "y", NULL },
		  { DF_SRC("rd"), DF_SRC("clk"), DF_RATE, DF_RATIO } },
		{ "a_seconds", "d", "h", "seconds", DM_COUNT, NULL, { "t", "y", NULL },
		  { DF_SRC("wr") } },
	};
	static const struct derived_metric good[] = {
		{ "a_total", "a", "h", NULL, DM_COUNTER, NULL, { NULL },
		  { DF_SRC("rd"), DF_SRC("wr"), DF_ADD, DF_SCALE(2) } },
	};
	char why[200];
#define BAD(m, what, needle)                                              \
	do {                                                              \
		int r_ = check_table(src, 3, m, sizeof(m) / sizeof(m[0]), why, \
				     sizeof(why));                        \
		ok(r_ < 0 && strstr(why, needle), "refused: %s (%s)", what, \
		   why);                                                  \
	} while (0)

	BAD(sub_counter, "a counter that subtracts", "a counter may only");
	BAD(neg_scale, "a counter scaled by -1", "a counter may only");
	BAD(unknown, "an unknown source", "unknown source \"nope\"");
	BAD(stack, "a formula leaving two values", "leaves 2 values");
	BAD(underflow, "a ratio of one operand", "needs more operands");
	BAD(mixed_units, "a per-channel metric over two units", "one unit");
	BAD(apart, "one family in two places", "adjacent");
	BAD(mixed_levels, "one family at two aggregation levels", "differ");
	BAD(same_json, "two metrics with one JSON key", "share the JSON key");
	BAD(gauge_total, "a gauge named _total", "end in _total");
	BAD(lone_sum, "a summary's _sum without its _count", "a summary is");
	BAD(sub_sum, "a summary's _sum that subtracts", "may not subtract");
	BAD(json_counter, "a JSON-only counter", "only a gauge");
	is_int(check_table(src, 3, good_summary, 4, why, sizeof(why)), 0.0,
	       "accepted: a summary of two targets %s", why);
#undef BAD
	ok(check_table(badsrc, 1, good, 0, why, sizeof(why)) < 0 &&
	   strstr(why, "UNC_NO_SUCH_EVENT"), "refused: a source not in the "
	   "catalog (%s)", why);
	is_int(check_table(src, 3, good, 1, why, sizeof(why)), 0.0,
	       "accepted: (rd + wr) x 2 as a counter %s", why);
}

/*
 * hsx, 2 sockets: socket 0 has 4 memory channels, socket 1 has 2; CAS
 * reads and writes on every channel, the LLC split over 4 CBos (lookups
 * on 0 and 2, misses on 1 and 3, each scaled x2), the UCLK; no QPI.
 */
enum { NS = 2 * 4 + 2 * 2 + 4 + 2 };

static unsigned build(struct topology *t, struct derive_series *ser)
{
	const struct platform *pl = &plat_hsx;
	unsigned n = 0;

	memset(t, 0, sizeof(*t));
	t->plat = pl;
	t->nsockets = 2;
	t->sock[0].ninst[unit_of(pl, "imc")] = 4;
	t->sock[1].ninst[unit_of(pl, "imc")] = 2;
	for (unsigned s = 0; s < 2; s++) {
		t->sock[s].ninst[unit_of(pl, "cbo")] = 4;
		t->sock[s].ninst[unit_of(pl, "ubox_fixed")] = 1;
		t->sock[s].ninst[unit_of(pl, "qpi")] = 2;
	}
	for (unsigned s = 0; s < 2; s++)
		for (unsigned c = 0; c < t->sock[s].ninst[unit_of(pl, "imc")]; c++) {
			ser[n++] = (struct derive_series){ s, c,
				"UNC_M_CAS_COUNT.RD", 1 };
			ser[n++] = (struct derive_series){ s, c,
				"UNC_M_CAS_COUNT.WR", 1 };
		}
	for (unsigned b = 0; b < 4; b++)	/* socket 0 only */
		ser[n++] = (struct derive_series){ 0, b, b % 2 ? HSX_LLC_MISSES
						   : HSX_LLC_LOOKUPS, 2 };
	for (unsigned s = 0; s < 2; s++)
		ser[n++] = (struct derive_series){ s, 0.0, "UNC_U_CLOCKTICKS", 1 };
	return n;
}

/* Value of the plan's metric name (the families derive adds included,
 * which the platform's table does not have) on socket s. */
static double plan_val(const struct derive_plan *dp, const double *v,
		       const char *name, unsigned s)
{
	const struct derived_table *tab = derive_table(dp);

	for (size_t m = 0; m < tab->nm; m++)
		if (strcmp(tab->m[m].name, name) == 0)
			return v[derive_index(dp, m, s, 0)];
	return -12345;
}

static void test_values(void)
{
	struct topology t;
	struct derive_series ser[NS];
	struct derive_plan *dp;
	uint64_t d[NS], inv[1] = { 0 };
	double *acc, *v;
	void *scratch;
	unsigned n = build(&t, ser), nv, i;
	char why[200];

	is_int((int)n, NS, "%d series", NS);
	dp = derive_plan_new(&t, ser, n, why, sizeof(why));
	ok(dp != NULL, "plan built %s", dp ? "" : why);
	if (!dp)
		return;
	nv = derive_nvals(dp);
	acc = calloc(nv, sizeof(double));
	v = calloc(nv, sizeof(double));
	scratch = malloc(derive_scratch_size(dp));
	/* deltas: CAS reads 100 x (channel+1), writes 10 x (channel+1)
	 * (socket 1: x1000); lookups 400 per CBo, misses 100; UCLK 2e9 */
	i = 0;
	for (unsigned s = 0; s < 2; s++)
		for (unsigned c = 0; c < (s ? 2u : 4u); c++) {
			d[i++] = (s ? 1000 : 1) * 100 * (c + 1);
			d[i++] = (s ? 1000 : 1) * 10 * (c + 1);
		}
	for (unsigned b = 0; b < 4; b++)
		d[i++] = b % 2 ? 100 : 400;
	d[i++] = 2000000000;
	d[i++] = 1000000000;
	derive_tick(dp, d, d, inv, 2.0, 0, false, acc, v, scratch);
	/* socket 0 reads: 100 x (1+2+3+4) x 64 = 64000 */
	is_near(val(dp, v, "uncore_dram_read_bytes_total", NULL, 0, 0), 64000,
		0.0, "socket 0 DRAM read bytes: 64000");
	is_near(val(dp, v, "uncore_dram_write_bytes_total", NULL, 0, 0), 6400,
		0.0, "socket 0 DRAM write bytes: 6400");
	/* the total family every platform gets from the evaluator */
	is_near(plan_val(dp, v, "uncore_dram_bytes_total", 0), 70400, 0.0,
		"socket 0 DRAM bytes, read + write: 70400 (derive adds it)");
	is_near(plan_val(dp, v, "uncore_dram_total_bandwidth_bytes_per_second",
			 0), 35200, 0.0, "and its gauge: 70400 B / 2 s");
	ok(derive_find(&plat_hsx, "uncore_dram_bytes_total", NULL) < 0,
	   "the platform's own table does not name it");
	is_near(val(dp, v, "uncore_dram_read_bytes_total", NULL, 1, 0),
		100000.0 * 3 * 64, 0.0, "socket 1 DRAM read bytes: 19.2e6");
	is_near(val(dp, v, "uncore_dram_channel_read_bytes_total", NULL, 0, 2),
		300 * 64, 0.0, "socket 0 channel 2: 19200 bytes");
	is_near(val(dp, v, "uncore_dram_channel_read_bytes_total", NULL, 1, 1),
		200000 * 64, 0.0, "socket 1 channel 1: 12.8e6 bytes");
	ok(isnan(val(dp, v, "uncore_dram_channel_read_bytes_total", NULL, 1, 3)),
	   "socket 1 has no channel 3");
	{
		int m = derive_find(&plat_hsx, "uncore_dram_channel_read_bytes_total",
				    NULL);
		double sum = 0;

		for (unsigned c = 0; c < derive_nper(dp, (size_t)m); c++)
			if (!isnan(v[derive_index(dp, (size_t)m, 0, c)]))
				sum += v[derive_index(dp, (size_t)m, 0, c)];
		is_near(sum, val(dp, v, "uncore_dram_read_bytes_total", NULL, 0, 0),
			0.0, "the channel family sums to the socket family, once");
	}
	is_near(val(dp, v, "uncore_dram_bandwidth_bytes_per_second",
		    "dram_read_bytes_per_second", 0, 0), 32000, 0.0,
		"read bandwidth: 64000 B / 2 s");
	is_near(val(dp, v, "uncore_dram_bandwidth_bytes_per_second",
		    "dram_write_bytes_per_second", 1, 0), 1000.0 * 10 * 3 * 64 / 2,
		0.0, "socket 1 write bandwidth");
	is_near(val(dp, v, "uncore_dram_channel_bandwidth_bytes_per_second",
		    "dram_read_bytes_per_second", 0, 3), 400.0 * 64 / 2, 0.0,
		"channel 3 read bandwidth");
	/* split x2: lookups 2 x 800 = 1600, misses 2 x 200 = 400 */
	is_near(val(dp, v, "uncore_llc_lookups_total", NULL, 0, 0), 1600, 0.0,
		"lookups scaled up from the counting half of the CBos");
	is_near(val(dp, v, "uncore_llc_misses_total", NULL, 0, 0), 400, 0.0,
		"misses likewise");
	is_near(val(dp, v, "uncore_llc_hit_ratio", NULL, 0, 0), 0.75, 0.0,
		"hit ratio (1600 - 400) / 1600 = 0.75");
	ok(isnan(val(dp, v, "uncore_llc_hit_ratio", NULL, 1, 0)),
	   "socket 1 counts no LLC event: no hit ratio");
	is_near(val(dp, v, "uncore_clock_hertz", NULL, 0, 0), 1e9, 0.0,
		"UCLK 2e9 over 2 s = 1 GHz");
	ok(isnan(val(dp, v, "uncore_qpi_data_bytes_total", NULL, 0, 0)) &&
	   isnan(val(dp, v, "uncore_qpi_link_bandwidth_bytes_per_second", NULL,
		     0, 1)) &&
	   isnan(val(dp, v, "uncore_ha_requests_total", NULL, 0, 0)),
	   "no value for what the program does not count");
	{
		int m = derive_find(&plat_hsx, "uncore_qpi_data_bytes_total", NULL);

		ok(!derive_live(dp, derive_index(dp, (size_t)m, 0, 0)),
		   "QPI is not live without its events");
	}

	/* second tick: channel 0 of socket 0 invalid, zero lookups */
	for (i = 0; i < NS; i++)
		d[i] = i == 0 ? 7 : 0;
	d[NS - 2] = 500000000;
	inv[0] = 1;		/* series 0: socket 0 channel 0 reads */
	derive_tick(dp, d, d, inv, 0.5, 0, false, acc, v, scratch);
	is_near(val(dp, v, "uncore_dram_read_bytes_total", NULL, 0, 0),
		64000 + 7 * 64, 0.0, "the counter adds the increments it is given");
	ok(isnan(val(dp, v, "uncore_dram_bandwidth_bytes_per_second",
		     "dram_read_bytes_per_second", 0, 0)),
	   "an invalid channel leaves the socket's read bandwidth without "
	   "a value");
	ok(isnan(val(dp, v, "uncore_dram_channel_bandwidth_bytes_per_second",
		     "dram_read_bytes_per_second", 0, 0)) &&
	   val(dp, v, "uncore_dram_channel_bandwidth_bytes_per_second",
	       "dram_read_bytes_per_second", 0, 1) == 0,
	   "... and that channel's; channel 1 reads 0 B/s");
	is_near(val(dp, v, "uncore_dram_bandwidth_bytes_per_second",
		    "dram_write_bytes_per_second", 0, 0), 0, 0.0,
		"write bandwidth 0, still valid");
	ok(isnan(val(dp, v, "uncore_llc_hit_ratio", NULL, 0, 0)),
	   "no lookups: no hit ratio (not a division by zero)");
	is_near(val(dp, v, "uncore_clock_hertz", NULL, 0, 0), 1e9, 0.0,
		"5e8 cycles over 0.5 s");

	/* third tick, multiplexed out: gauges keep their values */
	for (i = 0; i < NS; i++)
		d[i] = 0;
	inv[0] = 0;
	derive_tick(dp, d, d, inv, 0, 0, true, acc, v, scratch);
	is_near(val(dp, v, "uncore_clock_hertz", NULL, 0, 0), 1e9, 0.0,
		"a multiplexed-out tick keeps the last gauge");
	ok(isnan(val(dp, v, "uncore_llc_hit_ratio", NULL, 0, 0)),
	   "... and keeps no value as no value");

	/* gauges alone (as /api/v1/samples computes them) */
	for (i = 0; i < NS; i++)
		d[i] = 64;
	derive_gauges(dp, d, NULL, 4.0, 0, v, scratch);
	ok(isnan(val(dp, v, "uncore_dram_read_bytes_total", NULL, 0, 0)),
	   "derive_gauges() leaves counters without a value");
	is_near(val(dp, v, "uncore_dram_bandwidth_bytes_per_second",
		    "dram_read_bytes_per_second", 1, 0), 2 * 64 * 64 / 4.0, 0.0,
		"socket 1: 2 channels x 64 x 64 B over 4 s");
	derive_gauges(dp, d, NULL, 0, 0, v, scratch);
	ok(isnan(val(dp, v, "uncore_llc_hit_ratio", NULL, 0, 0)),
	   "no interval (a first sample): no gauge");
	is_near(derive_counter(dp, (size_t)derive_find(&plat_hsx,
			"uncore_dram_write_bytes_total", NULL), 0, d),
		4 * 64 * 64, 0.0, "derive_counter() over arbitrary deltas");
	free(acc);
	free(v);
	free(scratch);
	derive_plan_free(dp);
}

/* The layout depends on the platform and topology only: a program
 * counting less keeps every value where it was. */
static void test_layout(void)
{
	struct topology t;
	struct derive_series ser[NS];
	struct derive_plan *a, *b;
	unsigned n = build(&t, ser);
	char why[200];
	bool same = true;

	a = derive_plan_new(&t, ser, n, why, sizeof(why));
	b = derive_plan_new(&t, ser + 12, n - 12, why, sizeof(why));
	ok(a && b, "two plans");
	if (!a || !b)
		return;
	is_int((int)derive_nvals(a), (int)derive_nvals(b), "same size");
	for (size_t m = 0; m < plat_hsx.derived->nm; m++)
		same &= derive_index(a, m, 1, 0) == derive_index(b, m, 1, 0);
	ok(same, "same indices");
	ok(!derive_live(b, derive_index(b, (size_t)derive_find(&plat_hsx,
			"uncore_dram_read_bytes_total", NULL), 0, 0)) &&
	   derive_live(b, derive_index(b, (size_t)derive_find(&plat_hsx,
			"uncore_llc_lookups_total", NULL), 0, 0)),
	   "without the CAS series DRAM is not live, the LLC is");
	derive_plan_free(a);
	derive_plan_free(b);
}


/*
 * Alternatives (struct derived_src.alt): source "d" is the SBo clock
 * (alt 0) where the topology has SBos, else CAS reads + writes summed
 * over the iMC channels (alt 1), as zen4 takes DRAM from amd_umc_N where
 * the kernel has it and from the data fabric otherwise.  Mean: "clk" is
 * the CBo clock averaged over the socket's CBos, not summed.
 */
static const struct derived_src alt_src[] = {
	{ "d", "UNC_S_CLOCKTICKS", 1, false, 0 },
	{ "d", "UNC_M_CAS_COUNT.RD", 64, false, 1 },
	{ "d", "UNC_M_CAS_COUNT.WR", 64, false, 1 },
	{ "clk", "UNC_C_CLOCKTICKS", 1, true, 0 },
};
static const struct derived_metric alt_m[] = {
	{ "d_total", "d", "h", NULL, DM_COUNTER, NULL, { NULL },
	  { DF_SRC("d") } },
	{ "clk_hertz", "clk", "h", "hertz", DM_GAUGE, NULL, { NULL },
	  { DF_SRC("clk"), DF_RATE } },
};

/* d_total and clk_hertz of one tick on socket 0 with or without SBos:
 * 3 CBos with clocks 100, 200, 300 (of which 1 absent: the 4th), 2
 * channels reading 10 and writing 1 each, 2 SBos counting 7 each. */
static void alt_values(bool sbox, double *d, double *clk, const char **ev)
{
	static const struct derived_table tab = { alt_src, 4, alt_m, 2 };
	struct platform pl = plat_hsx;
	struct topology t;
	struct derive_series ser[16];
	uint64_t inc[16];
	double acc[8] = { 0 }, out[8];
	struct derive_plan *dp;
	unsigned n = 0;
	void *scratch;
	char why[200] = "";

	pl.derived = &tab;
	memset(&t, 0, sizeof(t));
	t.plat = &pl;
	t.nsockets = 1;
	t.sock[0].ninst[unit_of(&pl, "cbo")] = 4;
	iset_add(&t.sock[0].absent[unit_of(&pl, "cbo")], 3);
	t.sock[0].ninst[unit_of(&pl, "imc")] = 2;
	t.sock[0].ninst[unit_of(&pl, "sbox")] = sbox ? 2 : 0;
	for (unsigned b = 0; b < 3; b++, n++) {
		ser[n] = (struct derive_series){ 0, b, "UNC_C_CLOCKTICKS", 1 };
		inc[n] = 100 * (b + 1);
	}
	for (unsigned c = 0; c < 2; c++) {
		ser[n] = (struct derive_series){ 0, c, "UNC_M_CAS_COUNT.RD", 1 };
		inc[n++] = 10;
		ser[n] = (struct derive_series){ 0, c, "UNC_M_CAS_COUNT.WR", 1 };
		inc[n++] = 1;
	}
	for (unsigned b = 0; sbox && b < 2; b++, n++) {
		ser[n] = (struct derive_series){ 0, b, "UNC_S_CLOCKTICKS", 1 };
		inc[n] = 7;
	}
	dp = derive_plan_new(&t, ser, n, why, sizeof(why));
	ok(dp != NULL, "plan with alternatives built %s", why);
	if (!dp)
		return;
	scratch = malloc(derive_scratch_size(dp));
	derive_tick(dp, inc, inc, NULL, 1.0, 0, false, acc, out, scratch);
	*d = out[derive_index(dp, 0, 0, 0)];
	*clk = out[derive_index(dp, 1, 0, 0)];
	*ev = derive_source_event(dp, "d");
	free(scratch);
	derive_plan_free(dp);
}

static void test_alternatives(void)
{
	const char *ev = NULL;
	double d = -1, clk = -1;
	char why[200];

	alt_values(false, &d, &clk, &ev);
	is_near(d, (2 * 10 + 2 * 1) * 64.0, 0.0,
		"no SBo: d is the second alternative, CAS reads + writes x 64");
	is_str(ev, "UNC_M_CAS_COUNT.RD", "and the plan says which");
	is_near(clk, 200, 0.0, "clk: the mean of the 3 present CBos, 200");
	alt_values(true, &d, &clk, &ev);
	is_near(d, 14, 0.0, "with SBos: the first alternative, 2 x 7");
	is_str(ev, "UNC_S_CLOCKTICKS", "and the plan says so");
	{
		static const struct derived_src apart[] = {
			{ "d", "UNC_M_CAS_COUNT.RD", 64, false, 0 },
			{ "x", "UNC_M_CAS_COUNT.WR", 64, false, 0 },
			{ "d", "UNC_M_CAS_COUNT.WR", 64, false, 1 },
		};
		static const struct derived_metric m1[] = {
			{ "d_total", "d", "h", NULL, DM_COUNTER, NULL, { NULL },
			  { DF_SRC("d") } },
		};

		ok(check_table(apart, 3, m1, 1, why, sizeof(why)) < 0 &&
		   strstr(why, "adjacent"), "refused: entries of one source "
		   "apart (%s)", why);
	}
}

/*
 * What a claimed event gives as it is (derive_event_metric(), the
 * "derived" of the claim answers) on every platform: DRAM bytes from
 * the event each platform's table names, either alternative where there
 * are two (icx: free-running or CAS), none from one of several summed
 * (zen4's data fabric beats), from a mean (the CHA clock), from a
 * per-channel family only or from an event no table names.
 */
static void test_event_metric(void)
{
	static const struct {
		const char *plat, *ev, *want;
		double scale;
	} cases[] = {
		{ "skl", "DRAM_DATA_READS", "uncore_dram_read_bytes_total", 64 },
		{ "skl", "UNC_CBO_CACHE_LOOKUP.ANY_I", "uncore_llc_misses_total", 1 },
		{ "skl", "UNC_CLOCK.SOCKET", "uncore_clock_ticks_total", 1 },
		{ "skl", "UNC_CBO_XSNP_RESPONSE.HITM_XCORE", NULL, 0 },
		{ "skl", "DRAM_IA_REQUESTS", NULL, 0 },	/* a fixed label */
		{ "hsx", "UNC_M_CAS_COUNT.WR", "uncore_dram_write_bytes_total", 64 },
		{ "hsx", "UNC_Q_TxL_FLITS_G0.DATA", NULL, 0 },	/* per port */
		/* (the table's spelling, :split included: the claim
		 * routes do not ask for a split event) */
		{ "hsx", HSX_LLC_LOOKUPS, "uncore_llc_lookups_total", 1 },
		/* issue 40: the family's event without its split counts
		 * every CBo: the family itself, however it is spelt */
		{ "hsx", "UNC_C_LLC_LOOKUP.ANY:filter0=0x20000",
		  "uncore_llc_misses_total", 1 },
		{ "hsx", "UNC_C_LLC_LOOKUP.ANY:filter0=0x7e0000",
		  "uncore_llc_lookups_total", 1 },
		{ "hsx", "UNC_C_LLC_LOOKUP.ANY:filter0=0x40000", NULL, 0 },
		{ "hsx", "UNC_C_LLC_LOOKUP.ANY", NULL, 0 },
		{ "skx", "UNC_M_CAS_COUNT.RD", "uncore_dram_read_bytes_total", 64 },
		{ "skx", "UNC_CHA_CLOCKTICKS", NULL, 0 },	/* a mean */
		{ "icx", "UNC_M_FREE_RUNNING.DATA_READ",
		  "uncore_dram_read_bytes_total", 64 },
		{ "icx", "UNC_M_CAS_COUNT.RD", "uncore_dram_read_bytes_total", 64 },
		{ "icx", "UNC_CHA_TOR_INSERTS.IA_MISS", "uncore_llc_misses_total", 1 },
		{ "spr", "UNC_CHA_TOR_INSERTS.IA", "uncore_llc_lookups_total", 1 },
		{ "zen4", "umc_cas_cmd.rd", "uncore_dram_read_bytes_total", 64 },
		{ "zen4", "local_processor_read_data_beats_cs0", NULL, 0 },
		{ "zen4", "l3_lookup_state.l3_miss", "uncore_llc_misses_total", 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct platform *pl = NULL;
		double k = -1;
		int m;

		for (const struct platform *const *p = plat_all; *p; p++)
			if (strcmp((*p)->id, cases[i].plat) == 0)
				pl = *p;
		if (!pl) {
			ok(0, "platform %s", cases[i].plat);
			continue;
		}
		m = derive_event_metric(pl, cases[i].ev, &k);
		is_str(m < 0 ? "none" : pl->derived->m[m].name,
		       cases[i].want ? cases[i].want : "none", "%s: %s gives",
		       cases[i].plat, cases[i].ev);
		if (cases[i].want)
			is_near(k, cases[i].scale, 0.0, "%s: %s times %g",
				cases[i].plat, cases[i].ev, cases[i].scale);
	}
}


/*
 * Memory read latency on hsx (issue 41): 1 socket, 4 CBos with uneven
 * rates, so the mean of per-box ratios (250 cycles) differs from the
 * sum-then-divide answer (300 cycles); the clock of each interval, not
 * of the whole window; a live clock (counting over the wall time) beside
 * frozen TOR counters (over the counting window).
 */
static void test_latency(void)
{
	static const double ins[4] = { 1e6, 2e6, 3e6, 4e6 };
	static const double lat[4] = { 100, 200, 300, 400 };	/* cycles */
	const struct platform *pl = &plat_hsx;
	struct topology t;
	struct derive_series ser[9];
	struct derive_plan *dp;
	uint64_t d[9], inv[1] = { 0 };
	double *acc, *v;
	void *scratch;
	unsigned n = 0, nv;
	char why[200];
	int ms, mc, mm, mf;

	memset(&t, 0, sizeof(t));
	t.plat = pl;
	t.nsockets = 1;
	t.sock[0].ninst[unit_of(pl, "cbo")] = 4;
	t.sock[0].ninst[unit_of(pl, "ubox_fixed")] = 1;
	for (unsigned b = 0; b < 4; b++) {
		ser[n++] = (struct derive_series){ 0, b,
			HSX_LAT_OCC("MISS_OPCODE"), 1, false };
		ser[n++] = (struct derive_series){ 0, b,
			HSX_LAT_INS("MISS_OPCODE"), 1, false };
	}
	ser[n++] = (struct derive_series){ 0, 0, "UNC_U_CLOCKTICKS", 1, true };
	dp = derive_plan_new(&t, ser, n, why, sizeof(why));
	ok(dp != NULL, "latency plan built %s", dp ? "" : why);
	if (!dp)
		return;
	ms = derive_find(pl, "uncore_memory_read_latency_seconds",
			 "memory_read_latency_all_seconds_sum");
	mc = derive_find(pl, "uncore_memory_read_latency_seconds",
			 "memory_read_latency_all_seconds_count");
	mm = derive_find(pl, "uncore_memory_read_latency_mean_seconds",
			 "memory_read_latency_all_seconds");
	mf = derive_find(pl, "uncore_memory_reads_in_flight",
			 "memory_reads_in_flight_all");
	ok(ms >= 0 && mc == ms + 1 && mm >= 0 && mf >= 0,
	   "hsx has the latency summary (_sum, _count) and its JSON gauges");
	if (ms < 0 || mc < 0 || mm < 0 || mf < 0)
		goto out;
	ok(!derive_live(dp, derive_index(dp, (size_t)derive_find(pl,
		"uncore_memory_read_latency_seconds",
		"memory_read_latency_local_seconds_sum"), 0, 0)),
	   "local: not counted by this program, so absent");
	nv = derive_nvals(dp);
	acc = calloc(nv, sizeof(double));
	v = calloc(nv, sizeof(double));
	scratch = malloc(derive_scratch_size(dp));
	/* interval 1: 1 s of wall time, the TOR counted 0.5 s of it; the
	 * live clock 2e9 cycles over the 1 s (2 GHz) */
	for (unsigned b = 0; b < 4; b++) {
		d[2 * b] = (uint64_t)(ins[b] * lat[b]);
		d[2 * b + 1] = (uint64_t)ins[b];
	}
	d[8] = 2000000000;
	derive_tick(dp, d, d, inv, 1.0, 0.5, false, acc, v, scratch);
	/* sum 3e9 entry-cycles / 2e9 Hz = 1.5 request-seconds */
	is_near(v[derive_index(dp, (size_t)ms, 0, 0)], 1.5, 1e-12,
		"_sum: occupancy summed over the CBos / one CBo's clock "
		"(counted window) = 1.5 request-seconds");
	is_near(v[derive_index(dp, (size_t)mc, 0, 0)], 1e7, 0.0,
		"_count: the reads inserted, 1e7");
	/* 300 cycles at 2 GHz: 150 ns (the mean of per-box ratios, 250
	 * cycles, would say 125 ns) */
	is_near(v[derive_index(dp, (size_t)mm, 0, 0)], 150e-9, 1e-9,
		"interval mean: sum then divide, 150 ns (not 125 ns)");
	/* 3e9 entry-cycles over the 1e9 cycles the window had: 3 in flight */
	is_near(v[derive_index(dp, (size_t)mf, 0, 0)], 3.0, 1e-9,
		"reads in flight: 3");
	/* interval 2: the same TOR counts, the clock halved (1 GHz) */
	d[8] = 1000000000;
	derive_tick(dp, d, d, inv, 1.0, 0.5, false, acc, v, scratch);
	is_near(v[derive_index(dp, (size_t)ms, 0, 0)], 4.5, 1e-12,
		"_sum adds 3.0 at 1 GHz: the clock of each interval");
	is_near(v[derive_index(dp, (size_t)ms, 0, 0)] /
		v[derive_index(dp, (size_t)mc, 0, 0)], 225e-9, 1e-9,
		"rate(_sum)/rate(_count) over both: 225 ns (one clock for the "
		"whole window would say 200 ns)");
	/* a tick without a clock adds nothing to _sum */
	d[8] = 0;
	derive_tick(dp, d, d, inv, 1.0, 0.5, false, acc, v, scratch);
	is_near(v[derive_index(dp, (size_t)ms, 0, 0)], 4.5, 1e-12,
		"an interval without clock cycles adds nothing to _sum");
	is_near(v[derive_index(dp, (size_t)mc, 0, 0)], 2e7, 0.0,
		"... nor to _count: the mean stays that of the intervals "
		"with both");
	free(acc);
	free(v);
	free(scratch);
out:
	derive_plan_free(dp);
}

/*
 * A latency pair that takes turns with its clock (icx CHAs, issue 41):
 * on its turn the increments are scaled up (x2, the intervals it did
 * not count), the clock's too; the interval's deltas are the true
 * counts.  _sum divides the scaled occupancy by the clock's delta: 2
 * CHAs, occupancy 1e9 + 3e9, inserts 2e7, 2 GHz: 200 cycles = 100 ns
 * (dividing by the scaled clock would say 50 ns).
 */
static void test_latency_turns(void)
{
	const struct platform *pl = &plat_icx;
	struct topology t;
	struct derive_series ser[6];
	struct derive_plan *dp;
	uint64_t inc[6], d[6], inv[1] = { 0 };
	double *acc, *v;
	void *scratch;
	char why[200];
	int ms, mc;

	memset(&t, 0, sizeof(t));
	t.plat = pl;
	t.nsockets = 1;
	t.sock[0].ninst[unit_of(pl, "cha")] = 2;
	for (unsigned b = 0; b < 2; b++) {
		ser[3 * b] = (struct derive_series){ 0, b,
			"UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD", 1, false };
		ser[3 * b + 1] = (struct derive_series){ 0, b,
			"UNC_CHA_TOR_INSERTS.IA_MISS_DRD", 1, false };
		ser[3 * b + 2] = (struct derive_series){ 0, b,
			"UNC_CHA_CLOCKTICKS", 1, false };
		d[3 * b] = b ? 3000000000u : 1000000000u;
		d[3 * b + 1] = 10000000;
		d[3 * b + 2] = 2000000000u;
		for (unsigned k = 0; k < 3; k++)
			inc[3 * b + k] = 2 * d[3 * b + k];
	}
	dp = derive_plan_new(&t, ser, 6, why, sizeof(why));
	ok(dp != NULL, "icx latency plan built %s", dp ? "" : why);
	if (!dp)
		return;
	ms = derive_find(pl, "uncore_memory_read_latency_seconds",
			 "memory_read_latency_all_seconds_sum");
	mc = derive_find(pl, "uncore_memory_read_latency_seconds",
			 "memory_read_latency_all_seconds_count");
	acc = calloc(derive_nvals(dp), sizeof(double));
	v = calloc(derive_nvals(dp), sizeof(double));
	scratch = malloc(derive_scratch_size(dp));
	derive_tick(dp, inc, d, inv, 1.0, 0.0, false, acc, v, scratch);
	is_near(v[derive_index(dp, (size_t)ms, 0, 0)], 4.0, 1e-9,
		"_sum: scaled occupancy 8e9 over the clock's true 2 GHz");
	is_near(v[derive_index(dp, (size_t)mc, 0, 0)], 4e7, 0.0,
		"_count: the scaled inserts, 4e7");
	is_near(v[derive_index(dp, (size_t)ms, 0, 0)] /
		v[derive_index(dp, (size_t)mc, 0, 0)], 100e-9, 1e-12,
		"their ratio: 100 ns, the turn's scale kept (not 50 ns)");
	free(acc);
	free(v);
	free(scratch);
	derive_plan_free(dp);
}

int main(void)
{
	test_tables();
	test_bad_tables();
	test_values();
	test_layout();
	test_alternatives();
	test_event_metric();
	test_latency();
	test_latency_turns();
	return tap_done();
}
