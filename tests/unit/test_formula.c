/*
 * test_formula.c - the formula catalog (src/plat/formulas_*.c) and its
 * evaluator (src/core/formula.c).
 *
 * Every entry of every platform either says why it cannot count, or has an
 * expression that compiles against its events and events that resolve in
 * the platform's catalog with their modifiers (sched_resolve, as a claim
 * of them would).  Then known answers by hand, one or more per source,
 * with decoys (values of events the formula must not read), the manual's
 * corrected errors, name lookup and bad expressions.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fexport.h"
#include "core/formula.h"
#include "pmu/sched.h"
#include "tests/tap.h"

static const struct platform *plat_id(const char *id)
{
	for (int i = 0; plat_all[i]; i++)
		if (strcmp(plat_all[i]->id, id) == 0)
			return plat_all[i];
	return NULL;
}

/* Every entry of every table: served ones compile and resolve. */
static void test_tables(void)
{
	static const char *const ids[] = { "hsx", "skx", "icx", "spr", "gnr",
					   "zen3", "zen4", "zen5" };
	unsigned total = 0, served = 0;

	for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
		const struct platform *pl = plat_id(ids[k]);
		size_t n;
		const struct formula *t = formula_table(ids[k], &n);
		unsigned bad = 0, ok_here = 0;
		char why[300] = "", first[400] = "";

		ok(pl && t && n > 0, "%s has a platform and a formula table",
		   ids[k]);
		if (!pl || !t)
			continue;
		for (size_t i = 0; i < n; i++) {
			const struct formula *f = &t[i];
			unsigned ne = formula_nevents(f);
			struct fexpr *x = NULL;

			total++;
			if (f->unavailable) {
				if (f->expr || !*f->unavailable)
					bad++;
				continue;
			}
			if (!f->name[0] || !f->source[0] || !f->formula ||
			    !f->unit || !f->conversion ||
			    fexpr_compile(f->expr, ne, &x, why,
					  sizeof(why)) < 0) {
				if (!first[0])
					snprintf(first, sizeof(first), "%s: %s",
						 f->name, why);
				bad++;
				continue;
			}
			fexpr_free(x);
			for (unsigned e = 0; e < ne; e++) {
				struct evspec es;

				if (sched_resolve(pl, f->events[e].spec, true,
						  &es, why, sizeof(why)) < 0) {
					if (!first[0])
						snprintf(first, sizeof(first),
							 "%s: %s", f->name, why);
					bad++;
				}
			}
			ok_here++;
		}
		served += ok_here;
		ok(bad == 0, "%s: %zu formulas, %u served, each compiles and "
		   "its events resolve%s%s", ids[k], n, ok_here,
		   first[0] ? "; first failure: " : "", first);
	}
	ok(total == 329 && served == 284, "%u formulas in all, %u served",
	   total, served);
}

/* Compiles f's expression and evaluates it on ev, boxes, seconds. */
static double eval(const char *plat, const char *name, const double *ev,
		   const double *boxes, double seconds)
{
	const struct platform *pl = plat_id(plat);
	char why[200];
	const struct formula *f = formula_find(pl, name, why, sizeof(why));
	struct fexpr *x;
	double v;

	if (!f || !f->expr ||
	    fexpr_compile(f->expr, formula_nevents(f), &x, why,
			  sizeof(why)) < 0) {
		printf("# %s %s: %s\n", plat, name, f ? why : "not found");
		return -12345;
	}
	v = fexpr_eval(x, ev, boxes, seconds);
	fexpr_free(x);
	return v;
}

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b) + 1e-12;
}

static const struct formula *find(const char *plat, const char *name)
{
	char why[200];

	return formula_find(plat_id(plat), name, why, sizeof(why));
}

/* Known answers, by hand from each source's own text. */
static void test_known(void)
{
	const struct formula *f;
	double boxes[8] = { 18, 18, 18, 18, 18, 18, 18, 18 };

	/* Manual 2.6.6: PCT_REQUESTS_PAGE_MISS = PRE_COUNT.PAGE_MISS /
	 * (CAS_COUNT.RD + CAS_COUNT.WR); PAGE_HIT = 1 - (EMPTY + MISS)
	 * with EMPTY = (ACT_COUNT - PAGE_MISS) / (RD + WR).  Events in the
	 * entry's order: ACT, PAGE_MISS, RD, WR. */
	f = find("hsx", "PCT_REQUESTS_PAGE_HIT");
	ok(f && f->events && strcmp(f->events[0].spec, "imc:0x01:0x0b") == 0 &&
	   strcmp(f->events[1].spec, "UNC_M_PRE_COUNT.PAGE_MISS") == 0,
	   "PCT_REQUESTS_PAGE_HIT counts every activate (umask 0x0b) and "
	   "PAGE_MISS");
	{
		double ev[4] = { 300, 100, 800, 200 };

		/* empty = 200/1000, miss = 100/1000: hit = 0.7 */
		ok(near(eval("hsx", "PCT_REQUESTS_PAGE_HIT", ev, boxes, 1), 0.7),
		   "PCT_REQUESTS_PAGE_HIT: 1 - (0.2 + 0.1) = 0.7");
		ok(near(eval("hsx", "PCT_REQUESTS_PAGE_EMPTY", ev, boxes, 1),
			0.2), "PCT_REQUESTS_PAGE_EMPTY 0.2");
	}
	/* The manual's error: PCT_CYC_FREQ_THERMAL_LTD names
	 * FREQ_MAX_CURRENT_CYCLES; uncored counts the thermal event. */
	f = find("hsx", "PCT_CYC_FREQ_THERMAL_LTD");
	ok(f && !f->unavailable && f->note &&
	   strcmp(f->events[0].spec, "UNC_P_FREQ_MAX_LIMIT_THERMAL_CYCLES") == 0,
	   "PCT_CYC_FREQ_THERMAL_LTD counts FREQ_MAX_LIMIT_THERMAL_CYCLES, "
	   "with the correction noted");
	{
		double ev[2] = { 250, 1000 };

		ok(near(eval("hsx", "PCT_CYC_FREQ_THERMAL_LTD", ev, boxes, 1),
			0.25), "PCT_CYC_FREQ_THERMAL_LTD 250 / 1000 = 0.25");
	}
	f = find("hsx", "PCT_CYC_FREQ_CURRENT_LTD");
	ok(f && f->unavailable && strstr(f->unavailable,
					 "FREQ_MAX_CURRENT_CYCLES"),
	   "PCT_CYC_FREQ_CURRENT_LTD refused: the hsx PCU has no "
	   "FREQ_MAX_CURRENT_CYCLES");
	/* RANKx: one formula per rank */
	f = find("hsx", "PCT_CYCLES_DRAM_RANK5_IN_THR");
	ok(f && strcmp(f->events[0].spec,
		       "UNC_M_POWER_THROTTLE_CYCLES.RANK5") == 0 &&
	   strcmp(f->events[1].spec, "UNC_M_CLOCKTICKS") == 0,
	   "RANKx expands: RANK5_IN_THR over the fixed DCLK counter");
	/* filters: opc 0x182 at FILTER1 bits 28:20 */
	f = find("hsx", "AVG_TOR_DRD_MISS_LATENCY");
	ok(f && strcmp(f->events[0].spec, "UNC_C_TOR_OCCUPANCY.MISS_OPCODE:"
		       "filter1=0x18200000") == 0,
	   "AVG_TOR_DRD_MISS_LATENCY: opc=0x182 in FILTER1");
	f = find("hsx", "AVG_INGRESS_LATENCY_WHEN_NE");
	ok(f && strcmp(f->events[1].spec, "cbo:0x1f:0x00:thresh=1:edge") == 0,
	   "COUNTER0_OCCUPANCY{edge_det,thresh=0x1} is a raw encoding");
	/* units: MB -> bytes */
	{
		double ev[2] = { 1000, 24 };

		ok(near(eval("hsx", "IO_READ_BW", ev, boxes, 1), 1024 * 64.0),
		   "IO_READ_BW (1000 + 24) x 64 bytes (MB x 1e6)");
	}
	/* Ambiguous and qualified names */
	ok(!find("hsx", "CYC_USED_DN"), "CYC_USED_DN alone is ambiguous");
	f = find("hsx", "r2pcie/CYC_USED_DN");
	ok(f && strcmp(f->events[0].spec, "UNC_R2_RING_BL_USED.CCW") == 0,
	   "r2pcie/CYC_USED_DN is the R2PCIe row");
	{
		char why[200];

		ok(!formula_find(plat_id("hsx"), "CYC_USED_DN", why,
				 sizeof(why)) && strstr(why, "cbo/CYC_USED_DN") &&
		   strstr(why, "r2pcie/CYC_USED_DN"),
		   "and the message names both: %s", why);
		ok(!formula_find(plat_id("hsx"), "NO_SUCH", why, sizeof(why)) &&
		   strstr(why, "unknown formula \"NO_SUCH\""),
		   "an unknown name: %s", why);
	}

	/* Intel's file: numa_reads_addressed_to_local_dram = 100 * a /
	 * (a + b), percent -> ratio. */
	{
		double ev[2] = { 300, 100 };

		ok(near(eval("hsx", "numa_reads_addressed_to_local_dram", ev,
			     boxes, 1), 0.75),
		   "hsx numa_reads_addressed_to_local_dram 0.75 (75 %%)");
	}
	/* latency: 1e9 * (occ / ins) / (clk / (cbos * 1)) * T ns -> s.
	 * occ 6e6, ins 3e4 (200 cycles each), clk 18 CBos x 2e9 over 1 s:
	 * 200 cycles at 2 GHz = 100 ns */
	{
		double ev[3] = { 6e6, 3e4, 18 * 2e9 };

		ok(near(eval("hsx", "llc_data_read_demand_plus_prefetch_miss_"
			     "latency", ev, boxes, 1), 100e-9),
		   "hsx miss latency 100 ns");
	}
	/* memory_bandwidth_read on gnr: (a + b) * 64 / 1e6 / T MB/s */
	{
		double ev[2] = { 1e8, 5e7 };

		ok(near(eval("gnr", "memory_bandwidth_read", ev, boxes, 2),
			1.5e8 * 64 / 2), "gnr memory_bandwidth_read 4.8e9 B/s");
	}
	/* AMD: umc_cas_cmd_read_ratio = d_ratio(rd, all), "100%" */
	{
		double ev[2] = { 30, 120 }, zero[2] = { 30, 0 };

		ok(near(eval("zen5", "umc_cas_cmd_read_ratio", ev, boxes, 1),
			0.25), "zen5 umc_cas_cmd_read_ratio 0.25");
		ok(eval("zen5", "umc_cas_cmd_read_ratio", zero, boxes, 1) == 0,
		   "d_ratio over zero is 0");
	}
	/* AMD: dram_read_data_for_local_processor: 12 beats x 64 B x
	 * 6.103515625e-5 MiB -> bytes: 64 per beat */
	{
		double ev[12];

		for (int i = 0; i < 12; i++)
			ev[i] = i == 3 ? 1000 : 1;
		ok(near(eval("zen4", "dram_read_data_for_local_processor", ev,
			     boxes, 1), 1011 * 64.0),
		   "zen4 dram_read_data_for_local_processor 64 bytes a beat");
	}
}

static void test_expr(void)
{
	struct fexpr *x;
	char why[200];
	double ev[3] = { 6, 3, 0 }, boxes[3] = { 2, 2, 2 };

	is_int(fexpr_compile("($0 + $1) * 2 / T - #0", 2, &x, why,
			     sizeof(why)), 0, "compiles");
	ok(near(fexpr_eval(x, ev, boxes, 3), 4), "(6 + 3) * 2 / 3 - 2 = 4");
	fexpr_free(x);
	is_int(fexpr_compile("$0 / $2", 3, &x, why, sizeof(why)), 0,
	       "compiles");
	ok(isnan(fexpr_eval(x, ev, boxes, 1)), "x / 0 is NaN (no value)");
	fexpr_free(x);
	is_int(fexpr_compile("round($0 / 4, 0) - -1", 1, &x, why,
			   sizeof(why)), 0, "round and negation compile");
	ok(near(fexpr_eval(x, ev, boxes, 1), 3), "round(1.5) + 1 = 3");
	fexpr_free(x);
	is_int(fexpr_compile("$3", 3, &x, why, sizeof(why)), -EINVAL,
	       "an event the formula lacks");
	ok(strstr(why, "event 3 does not exist") && strstr(why, "offset 1"),
	   "named with its offset: %s", why);
	is_int(fexpr_compile("($0 + 1", 1, &x, why, sizeof(why)), -EINVAL,
	       "an unclosed parenthesis");
	ok(strstr(why, "expected ')'"), "%s", why);
	is_int(fexpr_compile("$0 ^ 2", 1, &x, why, sizeof(why)), -EINVAL,
	       "an unknown operator");
	ok(strstr(why, "unexpected '^'"), "%s", why);
	is_int(fexpr_compile("foo($0)", 1, &x, why, sizeof(why)), -EINVAL,
	       "an unknown function");
}

/* [formulas] export: family names, the set's checks, its events. */
static void test_fexport(void)
{
	const struct platform *hsx = plat_id("hsx");
	struct topology t;
	struct fexport *fx;
	struct evspec ev[64];
	char fam[FEXPORT_FAMILY_MAX], why[600];
	int n;

	fexport_family("ha/PCT_RD_REQUESTS", "ratio", fam, sizeof(fam));
	is_str(fam, "uncore_formula_ha_pct_rd_requests_ratio", "qualified name, unit");
	fexport_family("memory_bandwidth_total", "bytes_per_second", fam,
		       sizeof(fam));
	is_str(fam, "uncore_formula_memory_bandwidth_total_bytes_per_second",
	       "bytes_per_second");
	fexport_family("Info_System_Socket_CLKS", "", fam, sizeof(fam));
	is_str(fam, "uncore_formula_info_system_socket_clks", "a count: no unit");
	fexport_family("LLC_DRD_MISS_RATIO", "ratio", fam, sizeof(fam));
	is_str(fam, "uncore_formula_llc_drd_miss_ratio", "the unit not twice");
	fexport_family("x--y..z_", "seconds", fam, sizeof(fam));
	is_str(fam, "uncore_formula_x_y_z_seconds", "runs of others as one '_'");
	fexport_family("DRS_DATAC_M_FROM_QPI", "bytes", fam, sizeof(fam));
	is_str(fam, "uncore_formula_drs_datacm_from_qpi_bytes",
	       "a token promtool reads as a unit (m) joined to the one before");
	fexport_family("MB_s_x", "", fam, sizeof(fam));
	is_str(fam, "uncore_formula_mbs_x", "first ones to the one after, in turn");

	memset(&t, 0, sizeof(t));
	t.plat = hsx;
	t.nsockets = 2;
	for (unsigned s = 0; s < 2; s++)
		for (unsigned u = 0; u < PLAT_MAX_UNITS; u++)
			t.sock[s].ninst[u] = 2;
	is_int(fexport_new(hsx, &t, " , ", "f:1", &fx, why, sizeof(why)), 0,
	       "an empty list");
	ok(!fx, "is no set");
	is_int(fexport_new(hsx, &t, "memory_bandwidth_total nope", "f:3", &fx,
			   why, sizeof(why)), -EINVAL, "an unknown name");
	ok(strstr(why, "f:3: [formulas] export: unknown formula \"nope\" on hsx"),
	   "%s", why);
	is_int(fexport_new(hsx, &t, "PCT_RD_REQUESTS", "f:3", &fx, why,
			   sizeof(why)), -EINVAL, "an ambiguous name");
	ok(strstr(why, "name one of ha/PCT_RD_REQUESTS, imc/PCT_RD_REQUESTS"),
	   "%s", why);
	is_int(fexport_new(hsx, &t, "imc/PCT_RD_REQUESTS", "f:3", &fx, why,
			   sizeof(why)), -EINVAL, "a formula unavailable here");
	ok(strstr(why, "cannot count on hsx: it names WPQ_INSERTS"), "%s", why);
	is_int(fexport_new(hsx, &t, "MEM_BW_TOTAL,MEM_BW_TOTAL", "f:3", &fx,
			   why, sizeof(why)), -EINVAL, "a name twice");
	ok(strstr(why, "MEM_BW_TOTAL is listed twice"), "%s", why);
	is_int(fexport_new(hsx, &t, "ha/PCT_RD_REQUESTS, memory_bandwidth_total,"
			   "ha/PCT_WR_REQUESTS Info_System_MEM_Read_Latency",
			   "f:3", &fx, why, sizeof(why)), 0, "four formulas");
	if (!fx)
		return;
	is_int((int)fx->n, 4, "in the set");
	ok(fx->it[0].unit_of_boxes >= 0, "ha/PCT_RD_REQUESTS: per box");
	ok(fx->it[1].unit_of_boxes < 0, "memory_bandwidth_total: per socket");
	ok(fx->it[3].unit_of_boxes < 0, "a first_box event: per socket");
	ok(fx->it[0].unit && strcmp(fx->it[0].unit, "ratio") == 0,
	   "the OpenMetrics unit of a family ending with it");
	ok(strstr(fx->it[0].help, "Overlaps the built-in family "
		  "uncore_ha_read_requests_ratio"), "%s", fx->it[0].help);
	/* READS and WRITES shared by the two HA formulas; CAS RD named */
	if (sched_resolve(hsx, "UNC_M_CAS_COUNT.RD", true, &ev[0], why,
			  sizeof(why)) == 0) {
		n = fexport_add_events(fx, ev, 1, 64, why, sizeof(why));
		/* ha 2, imc WR 1, the latency formula 3 */
		is_int(n, 7, "events added once each (CAS RD not again)");
		is_int(fexport_add_events(fx, ev, 1, 3, why, sizeof(why)), -1,
		       "past max");
	}
	fexport_free(fx);
}

/*
 * formula_here() on every platform's catalog with two boxes of every
 * unit: the entries whose events can never count at once (two values of
 * one box's filter register, counter 0 twice, more events than counters
 * that take them: zen4's data fabric has 4 unless CPUID says more) are
 * exactly these; the catalog route and a claim call them unavailable, an
 * export counts them in turns.  A scheduler or catalog change that
 * moves one shows here.
 */
static void test_here(void)
{
	static const char *const ids[] = { "hsx", "skx", "icx", "spr", "gnr",
					   "zen3", "zen4", "zen5" };
	static const char *const apart[][2] = {
		{ "hsx", " AVG_TOR_DRD_HIT_LATENCY IO_READ_BW IO_WRITE_BW "
			 "LLC_DRD_MISS_PCT DRS_WB_FROM_QPI " },
		{ "skx", " numa_reads_addressed_to_local_dram "
			 "numa_reads_addressed_to_remote_dram io_bandwidth_read "
			 "io_bandwidth_write Info_System_IO_Read_BW "
			 "Info_System_IO_Write_BW " },
		{ "zen3", " nps1_die_to_dram " },
		{ "zen4", " dram_read_data_for_local_processor "
			  "dram_write_data_for_local_processor "
			  "dram_read_data_for_remote_processor "
			  "dram_write_data_for_remote_processor "
			  "local_socket_inbound_data_to_cpu "
			  "local_socket_outbound_data_from_cpu "
			  "remote_socket_inbound_data_to_cpu "
			  "remote_socket_outbound_data_from_cpu "
			  "local_socket_outbound_data_from_all_links " },
	};
	const struct platform *hsx = plat_id("hsx");
	struct evspec ev[SCHED_MAX_EVENTS];
	struct topology t;
	struct fexport *fx = NULL;
	char why[600];

	for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
		const struct platform *pl = plat_id(ids[k]);
		size_t n;
		const struct formula *tab = formula_table(ids[k], &n);
		char got[600] = " ", want[600];
		unsigned here = 0;

		if (!pl || !tab)
			continue;
		memset(&t, 0, sizeof(t));
		t.plat = pl;
		t.nsockets = 2;
		for (unsigned s = 0; s < 2; s++)
			for (unsigned u = 0; u < PLAT_MAX_UNITS; u++)
				t.sock[s].ninst[u] = 2;
		for (size_t i = 0; i < n; i++) {
			enum formula_here h = formula_here(pl, &t, &tab[i], ev,
							   SCHED_MAX_EVENTS,
							   why, sizeof(why));

			if (h == FORMULA_HERE)
				here++;
			if (h == FORMULA_APART && strlen(got) + strlen(tab[i].name) +
			    2 < sizeof(got)) {
				strcat(got, tab[i].name);
				strcat(got, " ");
			}
		}
		snprintf(want, sizeof(want), " ");
		for (size_t a = 0; a < sizeof(apart) / sizeof(apart[0]); a++)
			if (strcmp(apart[a][0], ids[k]) == 0)
				snprintf(want, sizeof(want), "%s", apart[a][1]);
		is_str(got, want, "%s: %u formulas count here; those whose events "
		       "can never count together", ids[k], here);
	}
	/* the reason a claim and the catalog give */
	memset(&t, 0, sizeof(t));
	t.plat = hsx;
	t.nsockets = 1;
	for (unsigned u = 0; u < PLAT_MAX_UNITS; u++)
		t.sock[0].ninst[u] = 2;
	{
		char w[100];
		const struct formula *f = formula_find(hsx, "LLC_DRD_MISS_PCT", w,
						       sizeof(w));

		ok(f && formula_here(hsx, &t, f, ev, SCHED_MAX_EVENTS, why,
				     sizeof(why)) == FORMULA_APART &&
		   strstr(why, "cannot place together on cbo"), "%s", why);
		ok(f && formula_here(hsx, &t, f, ev, 1, why, sizeof(why)) ==
		   FORMULA_TOO_MANY, "room for fewer events than it has: %s",
		   why);
	}
	/* an export counts them in the baseline's turns */
	is_int(fexport_new(hsx, &t, "IO_READ_BW", "f:2", &fx, why, sizeof(why)),
	       0, "an export of a formula whose events never count together "
	       "at once: taken (the baseline's turns)");
	fexport_free(fx);
}

int main(void)
{
	test_tables();
	test_known();
	test_expr();
	test_fexport();
	test_here();
	return tap_done();
}
