/*
 * test_prom.c - the exposition writer against hand-written expected text
 * in both formats (Prometheus text 0.0.4, OpenMetrics 1.0.0), refusal of
 * bad names, labels and histograms, number formatting, Accept-header
 * negotiation, and the growable buffer underneath.
 *
 * With PROM_DUMP_DIR set, the sample exposition is also written to
 * $PROM_DUMP_DIR/exposition-0.0.4.txt and exposition-om.txt, for
 * tests/scenario/promtool_check.sh to feed to real parsers.
 */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/jtext.h"
#include "base/prom.h"
#include "tests/tap.h"

#define L(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* ---- a representative exposition ----------------------------------------- */

static int render_sample(struct buf *b, enum prom_fmt fmt)
{
	static const double tick_bounds[] = { 0.0001, 0.001, 0.01, 0.1, 1 };
	static const uint64_t tick_cum[] = { 3, 90, 99, 100, 100 };
	static const double half[] = { 0.5 };
	static const uint64_t half_cum[] = { 1 };
	struct prom w;

	prom_begin(&w, b, fmt);
	prom_family(&w, "uncore_llc_lookups_total", PROM_COUNTER, NULL,
		    "LLC lookups, summed over all CBos.");
	prom_sample_u64(&w, NULL, L("socket", "0"), 123456789);
	prom_sample_f64(&w, "_created", L("socket", "0"), 1700000000.5);
	prom_sample_u64(&w, NULL, L("socket", "1"), UINT64_MAX);

	prom_family(&w, "uncore_dram_read_bytes_total", PROM_COUNTER, "bytes",
		    "Bytes read from DRAM.");
	prom_sample_u64(&w, NULL, L("socket", "0"), 64000);

	prom_family(&w, "uncore_llc_hit_ratio", PROM_GAUGE, NULL,
		    "1 - misses/lookups over the last interval.");
	prom_sample_f64(&w, NULL, L("socket", "0"), 0.9);
	prom_sample_f64(&w, NULL, L("socket", "1"), NAN);

	prom_family(&w, "uncore_clock_hertz", PROM_GAUGE, NULL,
		    "Uncore clock over the last interval.");
	prom_sample_f64(&w, NULL, L("socket", "0"), 8e8);

	prom_family(&w, "uncore_test_values", PROM_GAUGE, NULL,
		    "Help with a backslash \\, a \"quote\" and a\nnewline.");
	prom_sample_f64(&w, NULL, L("case", "pinf"), INFINITY);
	prom_sample_f64(&w, NULL, L("case", "ninf"), -INFINITY);
	prom_sample_f64(&w, NULL, L("case", "small"), 1e-5);
	prom_sample_f64(&w, NULL, L("case", "third"), 1.0 / 3);
	prom_sample_f64(&w, NULL, L("case", "sum"), 0.1 + 0.2);
	prom_sample_f64(&w, NULL, L("case", "neg"), -2.5);
	prom_sample_f64(&w, NULL, L("case", "int"), 42);
	prom_sample_u64(&w, NULL, L("case", "u64"), 42);

	prom_family(&w, "uncore_test_labels", PROM_GAUGE, NULL,
		    "Label escaping.");
	prom_sample_u64(&w, NULL,
			L("path", "C:\\dir\\", "quote", "say \"hi\"",
			  "nl", "a\nb", "utf8", "\xc2\xb5s", "empty", ""), 1);
	prom_sample_u64(&w, NULL, NULL, 2);

	prom_family(&w, "uncored_tick_duration_seconds", PROM_HISTOGRAM,
		    "seconds", "Time one sampler tick took.");
	prom_histogram(&w, NULL, tick_bounds, tick_cum, 5, 0.123, 101);
	prom_histogram(&w, L("socket", "0"), half, half_cum, 1, 0.25, 2);

	prom_family(&w, "uncored_build_info", PROM_INFO, NULL,
		    "Build information.");
	prom_sample_u64(&w, NULL, L("version", "0.1.0"), 1);

	prom_family(&w, "uncored_legacy", PROM_UNTYPED, NULL,
		    "An untyped metric.");
	prom_sample_u64(&w, NULL, NULL, 7);
	return prom_end(&w);
}

static const char want_004[] =
	"# HELP uncore_llc_lookups_total LLC lookups, summed over all CBos.\n"
	"# TYPE uncore_llc_lookups_total counter\n"
	"uncore_llc_lookups_total{socket=\"0\"} 123456789\n"
	"uncore_llc_lookups_total{socket=\"1\"} 18446744073709551615\n"
	"# HELP uncore_dram_read_bytes_total Bytes read from DRAM.\n"
	"# TYPE uncore_dram_read_bytes_total counter\n"
	"uncore_dram_read_bytes_total{socket=\"0\"} 64000\n"
	"# HELP uncore_llc_hit_ratio 1 - misses/lookups over the last interval.\n"
	"# TYPE uncore_llc_hit_ratio gauge\n"
	"uncore_llc_hit_ratio{socket=\"0\"} 0.9\n"
	"uncore_llc_hit_ratio{socket=\"1\"} NaN\n"
	"# HELP uncore_clock_hertz Uncore clock over the last interval.\n"
	"# TYPE uncore_clock_hertz gauge\n"
	"uncore_clock_hertz{socket=\"0\"} 8e+08\n"
	"# HELP uncore_test_values Help with a backslash \\\\, a \"quote\" and a\\nnewline.\n"
	"# TYPE uncore_test_values gauge\n"
	"uncore_test_values{case=\"pinf\"} +Inf\n"
	"uncore_test_values{case=\"ninf\"} -Inf\n"
	"uncore_test_values{case=\"small\"} 1e-05\n"
	"uncore_test_values{case=\"third\"} 0.3333333333333333\n"
	"uncore_test_values{case=\"sum\"} 0.30000000000000004\n"
	"uncore_test_values{case=\"neg\"} -2.5\n"
	"uncore_test_values{case=\"int\"} 42.0\n"
	"uncore_test_values{case=\"u64\"} 42\n"
	"# HELP uncore_test_labels Label escaping.\n"
	"# TYPE uncore_test_labels gauge\n"
	"uncore_test_labels{path=\"C:\\\\dir\\\\\",quote=\"say \\\"hi\\\"\","
	"nl=\"a\\nb\",utf8=\"\xc2\xb5s\",empty=\"\"} 1\n"
	"uncore_test_labels 2\n"
	"# HELP uncored_tick_duration_seconds Time one sampler tick took.\n"
	"# TYPE uncored_tick_duration_seconds histogram\n"
	"uncored_tick_duration_seconds_bucket{le=\"0.0001\"} 3\n"
	"uncored_tick_duration_seconds_bucket{le=\"0.001\"} 90\n"
	"uncored_tick_duration_seconds_bucket{le=\"0.01\"} 99\n"
	"uncored_tick_duration_seconds_bucket{le=\"0.1\"} 100\n"
	"uncored_tick_duration_seconds_bucket{le=\"1.0\"} 100\n"
	"uncored_tick_duration_seconds_bucket{le=\"+Inf\"} 101\n"
	"uncored_tick_duration_seconds_sum 0.123\n"
	"uncored_tick_duration_seconds_count 101\n"
	"uncored_tick_duration_seconds_bucket{socket=\"0\",le=\"0.5\"} 1\n"
	"uncored_tick_duration_seconds_bucket{socket=\"0\",le=\"+Inf\"} 2\n"
	"uncored_tick_duration_seconds_sum{socket=\"0\"} 0.25\n"
	"uncored_tick_duration_seconds_count{socket=\"0\"} 2\n"
	"# HELP uncored_build_info Build information.\n"
	"# TYPE uncored_build_info gauge\n"
	"uncored_build_info{version=\"0.1.0\"} 1\n"
	"# HELP uncored_legacy An untyped metric.\n"
	"# TYPE uncored_legacy untyped\n"
	"uncored_legacy 7\n";

static const char want_om[] =
	"# TYPE uncore_llc_lookups counter\n"
	"# HELP uncore_llc_lookups LLC lookups, summed over all CBos.\n"
	"uncore_llc_lookups_total{socket=\"0\"} 123456789\n"
	"uncore_llc_lookups_created{socket=\"0\"} 1.7000000005e+09\n"
	"uncore_llc_lookups_total{socket=\"1\"} 18446744073709551615\n"
	"# TYPE uncore_dram_read_bytes counter\n"
	"# UNIT uncore_dram_read_bytes bytes\n"
	"# HELP uncore_dram_read_bytes Bytes read from DRAM.\n"
	"uncore_dram_read_bytes_total{socket=\"0\"} 64000\n"
	"# TYPE uncore_llc_hit_ratio gauge\n"
	"# UNIT uncore_llc_hit_ratio ratio\n"
	"# HELP uncore_llc_hit_ratio 1 - misses/lookups over the last interval.\n"
	"uncore_llc_hit_ratio{socket=\"0\"} 0.9\n"
	"uncore_llc_hit_ratio{socket=\"1\"} NaN\n"
	"# TYPE uncore_clock_hertz gauge\n"
	"# UNIT uncore_clock_hertz hertz\n"
	"# HELP uncore_clock_hertz Uncore clock over the last interval.\n"
	"uncore_clock_hertz{socket=\"0\"} 8e+08\n"
	"# TYPE uncore_test_values gauge\n"
	"# HELP uncore_test_values Help with a backslash \\\\, a \\\"quote\\\" and a\\nnewline.\n"
	"uncore_test_values{case=\"pinf\"} +Inf\n"
	"uncore_test_values{case=\"ninf\"} -Inf\n"
	"uncore_test_values{case=\"small\"} 1e-05\n"
	"uncore_test_values{case=\"third\"} 0.3333333333333333\n"
	"uncore_test_values{case=\"sum\"} 0.30000000000000004\n"
	"uncore_test_values{case=\"neg\"} -2.5\n"
	"uncore_test_values{case=\"int\"} 42.0\n"
	"uncore_test_values{case=\"u64\"} 42\n"
	"# TYPE uncore_test_labels gauge\n"
	"# HELP uncore_test_labels Label escaping.\n"
	"uncore_test_labels{path=\"C:\\\\dir\\\\\",quote=\"say \\\"hi\\\"\","
	"nl=\"a\\nb\",utf8=\"\xc2\xb5s\",empty=\"\"} 1\n"
	"uncore_test_labels 2\n"
	"# TYPE uncored_tick_duration_seconds histogram\n"
	"# UNIT uncored_tick_duration_seconds seconds\n"
	"# HELP uncored_tick_duration_seconds Time one sampler tick took.\n"
	"uncored_tick_duration_seconds_bucket{le=\"0.0001\"} 3\n"
	"uncored_tick_duration_seconds_bucket{le=\"0.001\"} 90\n"
	"uncored_tick_duration_seconds_bucket{le=\"0.01\"} 99\n"
	"uncored_tick_duration_seconds_bucket{le=\"0.1\"} 100\n"
	"uncored_tick_duration_seconds_bucket{le=\"1.0\"} 100\n"
	"uncored_tick_duration_seconds_bucket{le=\"+Inf\"} 101\n"
	"uncored_tick_duration_seconds_sum 0.123\n"
	"uncored_tick_duration_seconds_count 101\n"
	"uncored_tick_duration_seconds_bucket{socket=\"0\",le=\"0.5\"} 1\n"
	"uncored_tick_duration_seconds_bucket{socket=\"0\",le=\"+Inf\"} 2\n"
	"uncored_tick_duration_seconds_sum{socket=\"0\"} 0.25\n"
	"uncored_tick_duration_seconds_count{socket=\"0\"} 2\n"
	"# TYPE uncored_build info\n"
	"# HELP uncored_build Build information.\n"
	"uncored_build_info{version=\"0.1.0\"} 1\n"
	"# TYPE uncored_legacy unknown\n"
	"# HELP uncored_legacy An untyped metric.\n"
	"uncored_legacy 7\n"
	"# EOF\n";

/* Prints the first differing line, so a failure says where. */
static void diff_hint(const char *got, const char *want)
{
	size_t i = 0, line = 1, bol = 0;

	if (!got)
		return;
	while (got[i] && got[i] == want[i]) {
		if (got[i] == '\n') {
			line++;
			bol = i + 1;
		}
		i++;
	}
	if (!got[i] && !want[i])
		return;
	printf("#   first difference at line %zu:\n#   got:  %.*s\n"
	       "#   want: %.*s\n", line,
	       (int)strcspn(got + bol, "\n"), got + bol,
	       (int)strcspn(want + bol, "\n"), want + bol);
}

static void dump(const char *name, const struct buf *b)
{
	const char *dir = getenv("PROM_DUMP_DIR");
	char path[4096];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f) != 0) {
		printf("# cannot write %s\n", path);
		exit(99);
	}
}

static void test_exposition(void)
{
	struct buf b = BUF_INIT;
	int rc;

	rc = render_sample(&b, PROM_TEXT_004);
	is_int(rc, 0, "0.0.4: exposition renders without errors");
	ok(b.p && strcmp(b.p, want_004) == 0, "0.0.4: exact text");
	diff_hint(b.p, want_004);
	dump("exposition-0.0.4.txt", &b);

	buf_reset(&b);
	rc = render_sample(&b, PROM_OPENMETRICS_100);
	is_int(rc, 0, "OpenMetrics: exposition renders without errors");
	ok(b.p && strcmp(b.p, want_om) == 0, "OpenMetrics: exact text");
	diff_hint(b.p, want_om);
	dump("exposition-om.txt", &b);
	buf_free(&b);
}

/* ---- refusals ------------------------------------------------------------- */

static void test_bad_families(void)
{
	static const struct {
		const char *name, *unit, *help;
		enum prom_type type;
		const char *why;
	} bad[] = {
		{ "9lives", NULL, "h", PROM_GAUGE, "leading digit" },
		{ "a-b", NULL, "h", PROM_GAUGE, "dash" },
		{ "a b", NULL, "h", PROM_GAUGE, "space" },
		{ "", NULL, "h", PROM_GAUGE, "empty name" },
		{ "\xc2\xb5s", NULL, "h", PROM_GAUGE, "non-ASCII name" },
		{ "uncore_llc_lookups", NULL, "h", PROM_COUNTER,
		  "counter without _total" },
		{ "_total", NULL, "h", PROM_COUNTER, "counter named _total" },
		{ "uncored_build", NULL, "h", PROM_INFO, "info without _info" },
		{ "foo_bytes_total", "seconds", "h", PROM_COUNTER,
		  "unit not the name's suffix" },
		{ "foobytes", "bytes", "h", PROM_GAUGE,
		  "unit without underscore" },
		{ "bytes", "bytes", "h", PROM_GAUGE, "unit is the whole name" },
		{ "foo_bad_unit", "bad unit", "h", PROM_GAUGE, "bad unit" },
		{ "foo", NULL, "", PROM_GAUGE, "empty help" },
		{ "foo", NULL, NULL, PROM_GAUGE, "NULL help" },
		{ "foo", NULL, "bad \xff byte", PROM_GAUGE, "help not UTF-8" },
		{ "foo", NULL, "h", (enum prom_type)42, "unknown type" },
		{ NULL, NULL, "h", PROM_GAUGE, "NULL name" },
	};
	char longname[PROM_NAME_MAX + 2];
	struct buf b = BUF_INIT;
	struct prom w;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		buf_reset(&b);
		prom_begin(&w, &b, i % 2 ? PROM_OPENMETRICS_100 : PROM_TEXT_004);
		is_int(prom_family(&w, bad[i].name, bad[i].type, bad[i].unit,
				   bad[i].help), -EINVAL,
		       "family refused: %s", bad[i].why);
		is_int(prom_sample_u64(&w, NULL, NULL, 1), -EINVAL,
		       "  and its samples too (%s)", bad[i].why);
		is_u64(b.len, 0, "  nothing written (%s)", bad[i].why);
	}

	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	prom_begin(&w, &b, PROM_TEXT_004);
	is_int(prom_family(&w, longname, PROM_GAUGE, NULL, "h"), -EINVAL,
	       "family refused: name over PROM_NAME_MAX");
	longname[PROM_NAME_MAX - 8] = '\0';
	is_int(prom_family(&w, longname, PROM_GAUGE, NULL, "h"), 0,
	       "longest name accepted");

	/* Colons are fine in metric names (recording rules use them). */
	prom_begin(&w, &b, PROM_TEXT_004);
	is_int(prom_family(&w, "job:uncore_llc:ratio", PROM_GAUGE, NULL, "h"),
	       0, "colon accepted in a metric name");
	is_int(prom_family(&w, "foo_seconds", PROM_GAUGE, "", "h"), 0,
	       "empty unit means no unit");
	buf_free(&b);
}

/* unit NULL: the unit the name ends in, so every family with one has
   "# UNIT" (OpenMetrics: the unit is the name's suffix). */
static void test_units(void)
{
	static const struct {
		const char *name;
		enum prom_type type;
		const char *unit;
		const char *want;	/* the UNIT line, or NULL for none */
	} t[] = {
		{ "a_seconds", PROM_GAUGE, NULL, "# UNIT a_seconds seconds\n" },
		{ "a_bytes_total", PROM_COUNTER, NULL, "# UNIT a_bytes bytes\n" },
		{ "a_bytes_per_second", PROM_GAUGE, NULL,
		  "# UNIT a_bytes_per_second bytes_per_second\n" },
		{ "a_hit_ratio", PROM_GAUGE, NULL, "# UNIT a_hit_ratio ratio\n" },
		{ "a_clock_hertz", PROM_GAUGE, NULL,
		  "# UNIT a_clock_hertz hertz\n" },
		{ "a_start_time_seconds", PROM_GAUGE, NULL,
		  "# UNIT a_start_time_seconds seconds\n" },
		{ "a_duration_seconds", PROM_HISTOGRAM, NULL,
		  "# UNIT a_duration_seconds seconds\n" },
		{ "a_seconds", PROM_GAUGE, "", NULL },	/* opted out */
		{ "a_open_fds", PROM_GAUGE, NULL, NULL },
		{ "a_requests_total", PROM_COUNTER, NULL, NULL },
		{ "aseconds", PROM_GAUGE, NULL, NULL },	/* no underscore */
		{ "seconds", PROM_GAUGE, NULL, NULL },	/* nothing before */
		{ "a_seconds_info", PROM_INFO, NULL, NULL },	/* info: none */
		{ "b_seconds_info", PROM_INFO, "seconds", NULL },	/* refused */
	};
	struct prom w;
	struct buf b;

	buf_init(&b);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		buf_reset(&b);
		prom_begin(&w, &b, PROM_OPENMETRICS_100);
		is_int(prom_family(&w, t[i].name, t[i].type, t[i].unit, "h"),
		       t[i].type == PROM_INFO && t[i].unit ? -EINVAL : 0,
		       "%s: family %s", t[i].name, t[i].type == PROM_INFO &&
		       t[i].unit ? "refused (info has no unit)" : "accepted");
		buf_putc(&b, '\0');
		if (t[i].want)
			like(b.p, t[i].want, "%s: %s", t[i].name, t[i].want);
		else
			ok(!strstr(b.p, "# UNIT"), "%s: no UNIT line", t[i].name);
		prom_begin(&w, &b, PROM_TEXT_004);
	}
	buf_free(&b);
}

static void test_bad_samples(void)
{
	const struct {
		const char *const *labels;
		const char *why;
	} bad[] = {
		{ L("0x", "v"), "label name with leading digit" },
		{ L("a:b", "v"), "colon in a label name" },
		{ L("a-b", "v"), "dash in a label name" },
		{ L("", "v"), "empty label name" },
		{ L("__name__", "v"), "reserved __ label name" },
		{ L("socket", "0", "socket", "1"), "duplicate label name" },
		{ (const char *const[]){ "socket", NULL }, "label without value" },
		{ L("v", "\xc0\xaf"), "overlong UTF-8 value" },
		{ L("v", "\xed\xa0\x80"), "surrogate in value" },
		{ L("v", "\xf4\x90\x80\x80"), "value above U+10FFFF" },
		{ L("v", "trunc\xe2\x82"), "truncated UTF-8 value" },
	};
	static const double b_ok[] = { 1, 2 }, b_unsorted[] = { 2, 1 },
		b_same[] = { 1, 1 }, b_nan[] = { 1, NAN }, b_inf[] = { 1, INFINITY };
	static const uint64_t c_ok[] = { 1, 2 }, c_down[] = { 2, 1 };
	struct buf b = BUF_INIT;
	struct prom w;
	size_t len;

	prom_begin(&w, &b, PROM_OPENMETRICS_100);
	is_int(prom_sample_u64(&w, NULL, NULL, 1), -EINVAL,
	       "sample before any family refused");
	prom_family(&w, "foo", PROM_GAUGE, NULL, "h");
	len = b.len;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(prom_sample_u64(&w, NULL, bad[i].labels, 1), -EINVAL,
		       "sample refused: %s", bad[i].why);
	is_int(prom_sample_u64(&w, "_total", NULL, 1), -EINVAL,
	       "gauge with a _total sample refused");
	is_int(prom_sample_u64(&w, "_created", NULL, 1), -EINVAL,
	       "gauge with a _created sample refused");
	is_u64(b.len, len, "refused samples wrote nothing");
	is_int(prom_sample_f64(&w, NULL, L("a", "b", "le", "1"), -1), 0,
	       "negative gauge and an le label on a gauge are fine");

	prom_family(&w, "bar_total", PROM_COUNTER, NULL, "h");
	len = b.len;
	is_int(prom_sample_f64(&w, NULL, NULL, -1), -EINVAL,
	       "negative counter refused");
	is_int(prom_sample_f64(&w, NULL, NULL, NAN), -EINVAL,
	       "NaN counter refused");
	is_int(prom_sample_u64(&w, "_sum", NULL, 1), -EINVAL,
	       "counter with a _sum sample refused");
	is_u64(b.len, len, "refused counter samples wrote nothing");

	is_int(prom_family(&w, "foo", PROM_GAUGE, NULL, "h"), -EINVAL,
	       "second family of the same name refused");
	is_int(prom_family(&w, "bar", PROM_GAUGE, NULL, "h"), -EINVAL,
	       "gauge bar refused after counter bar_total (same OM family)");

	prom_family(&w, "hist_seconds", PROM_HISTOGRAM, "seconds", "h");
	len = b.len;
	is_int(prom_sample_u64(&w, NULL, NULL, 1), -EINVAL,
	       "histogram sample without suffix refused");
	is_int(prom_histogram(&w, L("le", "1"), b_ok, c_ok, 2, 1, 2), -EINVAL,
	       "histogram with an le label refused");
	is_int(prom_histogram(&w, NULL, b_unsorted, c_ok, 2, 1, 2), -EINVAL,
	       "histogram with unsorted bounds refused");
	is_int(prom_histogram(&w, NULL, b_same, c_ok, 2, 1, 2), -EINVAL,
	       "histogram with a repeated bound refused");
	is_int(prom_histogram(&w, NULL, b_nan, c_ok, 2, 1, 2), -EINVAL,
	       "histogram with a NaN bound refused");
	is_int(prom_histogram(&w, NULL, b_inf, c_ok, 2, 1, 2), -EINVAL,
	       "histogram with an explicit +Inf bound refused");
	is_int(prom_histogram(&w, NULL, b_ok, c_down, 2, 1, 2), -EINVAL,
	       "histogram with decreasing counts refused");
	is_int(prom_histogram(&w, NULL, b_ok, c_ok, 2, 1, 1), -EINVAL,
	       "histogram with count below a bucket refused");
	is_u64(b.len, len, "refused histograms wrote nothing");
	is_int(prom_histogram(&w, NULL, NULL, NULL, 0, 0, 0), 0,
	       "histogram with only the +Inf bucket accepted");
	like(b.p, "hist_seconds_bucket{le=\"+Inf\"} 0\nhist_seconds_sum 0.0\n"
	     "hist_seconds_count 0\n", "  and written");

	prom_family(&w, "g", PROM_GAUGE, NULL, "h");
	is_int(prom_histogram(&w, NULL, b_ok, c_ok, 2, 1, 2), -EINVAL,
	       "prom_histogram on a gauge refused");

	is_int(prom_end(&w), -EINVAL, "prom_end reports the first error");
	ok(b.len >= 6 && strcmp(b.p + b.len - 6, "# EOF\n") == 0,
	   "and still ends the exposition with # EOF");

	/* _created is OpenMetrics-only: skipped in 0.0.4, not an error. */
	buf_reset(&b);
	prom_begin(&w, &b, PROM_TEXT_004);
	prom_family(&w, "c_total", PROM_COUNTER, NULL, "h");
	len = b.len;
	is_int(prom_sample_f64(&w, "_created", NULL, 1), 0,
	       "0.0.4: _created accepted");
	is_u64(b.len, len, "0.0.4: _created not written");
	is_int(prom_end(&w), 0, "0.0.4: clean exposition ends with 0");
	ok(strstr(b.p, "EOF") == NULL, "0.0.4: no # EOF");
	buf_free(&b);
}

/* ---- numbers -------------------------------------------------------------- */

/* Significant digits of a rendering: no sign, point, exponent, or zeros
 * leading or trailing ("100000.0" has 1, "0.00012" has 2). */
static int sig_digits(const char *s)
{
	char d[40];
	int n = 0, first = 0;

	for (; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9')
			d[n++] = *s;
	while (n > 0 && d[n - 1] == '0')
		n--;
	while (first < n && d[first] == '0')
		first++;
	return n - first > 0 ? n - first : 1;
}

static void test_numbers(void)
{
	static const struct { double v; const char *s; } cases[] = {
		/* OpenMetrics 1.0 "Canonical Numbers" examples */
		{ 0.0, "0.0" }, { 0.001, "0.001" }, { 0.002, "0.002" },
		{ 0.01, "0.01" }, { 0.1, "0.1" }, { 0.9, "0.9" },
		{ 0.95, "0.95" }, { 0.99, "0.99" }, { 0.999, "0.999" },
		{ 1.0, "1.0" }, { 1.7, "1.7" }, { 10.0, "10.0" },
		{ 1e-10, "1e-10" }, { 1e-09, "1e-09" }, { 1e-05, "1e-05" },
		{ 0.0001, "0.0001" }, { 100000.0, "100000.0" },
		{ 1e+06, "1e+06" }, { 1e+10, "1e+10" }, { 1e+23, "1e+23" },
		{ 1.1e+23, "1.1e+23" }, { 4.20072246e+06, "4.20072246e+06" },
		/* the rest */
		{ -0.0, "0.0" }, { -2.5, "-2.5" }, { 123456.7, "123456.7" },
		{ 999999.0, "999999.0" }, { 0.00012, "0.00012" },
		{ 1.0 / 3, "0.3333333333333333" },
		{ 0.1 + 0.2, "0.30000000000000004" },
		{ 18446744073709551615.0, "1.8446744073709552e+19" },
		{ DBL_MAX, "1.7976931348623157e+308" },
		{ 5e-324, "5e-324" }, { 2.2250738585072014e-308,
					"2.2250738585072014e-308" },
		{ 9007199254740993.0, "9.007199254740992e+15" },
		{ NAN, "NaN" }, { INFINITY, "+Inf" }, { -INFINITY, "-Inf" },
	};
	char out[PROM_F64_MAX];
	unsigned bad_rt = 0, not_short = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *want = cases[i].s;
		size_t n = prom_format_f64(out, cases[i].v);

		ok(strcmp(out, want) == 0 && n == strlen(want),
		   "format %s (got %s, length %zu)", want, out, n);
	}

	/*
	 * Random bit patterns: every finite double reads back exactly, and
	 * no shorter %.*e rendering would have (checked by brute force).
	 */
	for (int i = 0; i < 20000; i++) {
		double v, r;
		int sig = 0, p;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(&v, &x, sizeof(v));
		if (!isfinite(v))
			continue;
		prom_format_f64(out, v);
		r = strtod(out, NULL);
		if (r != v && bad_rt++ < 3)
			printf("# %a -> %s -> %a\n", v, out, r);
		sig = sig_digits(out);
		for (p = 1; p <= 17; p++) {
			char tmp[40];

			snprintf(tmp, sizeof(tmp), "%.*e", p - 1, v);
			if (strtod(tmp, NULL) == v)
				break;
		}
		if (sig != p && not_short++ < 3)
			printf("# %a -> %s: %d digits, shortest is %d\n",
			       v, out, sig, p);
	}
	is_int(bad_rt, 0, "20000 random doubles round-trip");
	is_int(not_short, 0, "and use the fewest significant digits");
}

/* ---- negotiation ---------------------------------------------------------- */

static void test_negotiate(void)
{
	static const struct {
		const char *accept;
		enum prom_fmt want;
	} cases[] = {
		{ NULL, PROM_TEXT_004 },
		{ "", PROM_TEXT_004 },
		{ "*/*", PROM_TEXT_004 },
		{ "text/plain", PROM_TEXT_004 },
		{ "text/plain;version=0.0.4", PROM_TEXT_004 },
		{ "application/json", PROM_TEXT_004 },
		{ "application/openmetrics-text", PROM_OPENMETRICS_100 },
		{ "application/openmetrics-text; version=1.0.0",
		  PROM_OPENMETRICS_100 },
		{ "Application/OpenMetrics-Text; Version=\"1.0.0\"",
		  PROM_OPENMETRICS_100 },
		/* versions not served fall back to 1.0.0 (OpenMetrics 1.0,
		   "Protocol Negotiation"), not to 0.0.4 */
		{ "application/openmetrics-text;version=0.0.1",
		  PROM_OPENMETRICS_100 },
		{ "application/openmetrics-text; version=2.0.0",
		  PROM_OPENMETRICS_100 },
		{ "application/openmetrics-text;version=2.0.0;q=0.9,"
		  "text/plain;version=0.0.4;q=0.5", PROM_OPENMETRICS_100 },
		{ "application/openmetrics-text;version=2.0.0;q=0.4,"
		  "text/plain;version=0.0.4;q=0.5", PROM_TEXT_004 },
		{ "application/openmetrics-text;version=1.0.0;q=0",
		  PROM_TEXT_004 },
		{ "application/openmetrics-text;q=0.1,text/plain;q=0.9",
		  PROM_TEXT_004 },
		{ "application/openmetrics-text;q=0.9,text/plain;q=0.1",
		  PROM_OPENMETRICS_100 },
		{ "text/plain;q=0.5, application/openmetrics-text;q=0.5",
		  PROM_OPENMETRICS_100 },
		{ "application/openmetrics-text;version=1.0.0;q=0.5,*/*",
		  PROM_TEXT_004 },
		{ "application/openmetrics-text;q=2", PROM_TEXT_004 },
		{ "application/openmetrics-text;q=0.1234", PROM_TEXT_004 },
		{ "application/openmetrics-text;q=", PROM_TEXT_004 },
		{ "application/openmetrics-text junk", PROM_TEXT_004 },
		{ "garbage\x01;;,=,,\"", PROM_TEXT_004 },
		{ ",,;q=1,/,application/,\"unterminated", PROM_TEXT_004 },
		{ "text/html;a=\"x,application/openmetrics-text\"",
		  PROM_TEXT_004 },
		/* what Prometheus 2.x sends */
		{ "application/openmetrics-text;version=1.0.0,"
		  "application/openmetrics-text;version=0.0.1;q=0.75,"
		  "text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		  PROM_OPENMETRICS_100 },
		/* what Prometheus 3.x sends */
		{ "application/openmetrics-text;version=1.0.0;"
		  "escaping=allow-utf-8;q=0.6,application/openmetrics-text;"
		  "version=0.0.1;q=0.5,text/plain;version=1.0.0;"
		  "escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,"
		  "*/*;q=0.2", PROM_OPENMETRICS_100 },
		/* Prometheus with scrape_protocols: [PrometheusText0.0.4] */
		{ "text/plain;version=0.0.4;q=0.9,*/*;q=0.1", PROM_TEXT_004 },
	};
	const char *ctype = NULL;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum prom_fmt f = prom_negotiate(cases[i].accept, &ctype);

		is_int(f, cases[i].want, "negotiate %s -> %s",
		       cases[i].accept ? cases[i].accept : "(null)",
		       cases[i].want == PROM_TEXT_004 ? "0.0.4" : "OM");
		is_str(ctype, prom_content_type(f), "  content type matches");
	}
	is_str(prom_content_type(PROM_TEXT_004),
	       "text/plain; version=0.0.4; charset=utf-8", "0.0.4 content type");
	is_str(prom_content_type(PROM_OPENMETRICS_100),
	       "application/openmetrics-text; version=1.0.0; charset=utf-8",
	       "OpenMetrics content type");
	is_int(prom_negotiate("text/plain", NULL), PROM_TEXT_004,
	       "ctype may be NULL");
}

/* ---- buf ------------------------------------------------------------------ */

static void test_buf(void)
{
	struct buf b;
	char big[1000];
	size_t cap, len;
	char *s;

	buf_init(&b);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	is_int(buf_printf(&b, "%d-%s", 42, big), 0, "printf grows the buffer");
	is_u64(b.len, 3 + sizeof(big) - 1, "  length");
	ok(strncmp(b.p, "42-xxx", 6) == 0 && b.p[b.len] == '\0' &&
	   b.p[b.len - 1] == 'x', "  contents and NUL");
	buf_putc(&b, '!');
	buf_puts(&b, "ok");
	is_str(b.p + b.len - 3, "!ok", "putc and puts append");
	for (int i = 0; i < 2000; i++)
		buf_printf(&b, "%d,", i % 10);
	is_u64(b.len, 3 + 999 + 3 + 4000, "many small printfs");
	ok(!b.oom, "no oom");
	cap = b.cap;
	buf_reset(&b);
	ok(b.len == 0 && b.cap == cap && b.p[0] == '\0',
	   "reset keeps the allocation");
	buf_puts(&b, "abc");
	s = buf_steal(&b, &len);
	ok(s && strcmp(s, "abc") == 0 && len == 3, "steal hands over contents");
	ok(b.p == NULL && b.len == 0 && b.cap == 0, "  and leaves b empty");
	free(s);
	s = buf_steal(&b, &len);
	ok(s && *s == '\0' && len == 0, "steal of an empty buffer gives \"\"");
	free(s);
	buf_free(&b);
}

/* buf_json_escape(): JSON string escapes, and U+FFFD for each byte that
 * is not well-formed UTF-8 (overlong, surrogate, over U+10FFFF, cut). */
static void test_json_escape(void)
{
	static const struct { const char *in, *out, *what; } c[] = {
		{ "a\"b\\c", "a\\\"b\\\\c", "quote and backslash" },
		{ "\n\t\x01\x7f", "\\n\\t\\u0001\\u007f", "controls" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "well-formed UTF-8 kept" },
		{ "/x\xff", "/x\\ufffd", "a stray byte" },
		{ "\xc0\xaf", "\\ufffd\\ufffd", "an overlong '/'" },
		{ "\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd", "a surrogate" },
		{ "\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd",
		  "above U+10FFFF" },
		{ "\xe2\x82", "\\ufffd\\ufffd", "a cut sequence" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct buf b;
		char *got;

		buf_init(&b);
		buf_json_escape(&b, c[i].in);
		got = buf_steal(&b, NULL);
		is_str(got, c[i].out, "buf_json_escape: %s", c[i].what);
		free(got);
	}
}

/* buf_grow_array(): grows by doubling, keeps what it held, refuses a
 * size that would overflow without touching the array. */
static void test_grow_array(void)
{
	unsigned *a = NULL, cap = 0;

	ok(buf_grow_array((void **)&a, &cap, 3, sizeof(*a)) && cap == 6 && a,
	   "grow to 3: room for 6");
	for (unsigned i = 0; i < 3; i++)
		a[i] = i + 7;
	ok(buf_grow_array((void **)&a, &cap, 5, sizeof(*a)) && cap == 6,
	   "5 fits: nothing reallocated");
	ok(buf_grow_array((void **)&a, &cap, 7, sizeof(*a)) && cap == 14 &&
	   a[0] == 7 && a[2] == 9, "grow to 7: 14, contents kept");
	ok(!buf_grow_array((void **)&a, &cap, UINT_MAX, sizeof(*a)) &&
	   cap == 14 && a[1] == 8, "an overflowing size is refused, the "
	   "array unchanged");
	free(a);
}

/*
 * Issue 39 §6: a cgroup named with ESC and 0x01 put them raw in /metrics
 * labels (neither format can escape them: U+FFFD now), and one named
 * with the bytes FF FE made /api/v1/metrics invalid JSON (json-c copies
 * a string's bytes: jtext_put_valid writes \ufffd for them).
 */
static void test_hostile_text(void)
{
	const int fmts[] = { PROM_TEXT_004, PROM_OPENMETRICS_100 };
	struct buf b = BUF_INIT;
	struct prom w;
	char *got;

	for (size_t i = 0; i < 2; i++) {
		buf_reset(&b);
		prom_begin(&w, &b, fmts[i]);
		prom_family(&w, "x_bytes", PROM_GAUGE, "", "help");
		prom_sample_u64(&w, NULL, L("cgroup", "a\x1b[31m\x01\x7f\tz"), 1);
		is_int(prom_end(&w), 0, "fmt %d: a label with ESC, 0x01, DEL and "
		       "TAB renders", fmts[i]);
		like(b.p, "cgroup=\"a\xef\xbf\xbd[31m\xef\xbf\xbd\xef\xbf\xbd"
		     "\xef\xbf\xbdz\"", "fmt %d: each control character as "
		     "U+FFFD", fmts[i]);
		ok(b.p && !strpbrk(b.p, "\x1b\x01\x7f\t"), "fmt %d: none raw",
		   fmts[i]);
	}
	buf_reset(&b);
	jtext_put_valid(&b, "{\"cgroup\":\"x/\xff\xfe/\xc3\xa9\\u001b\"}");
	got = buf_steal(&b, NULL);
	is_str(got, "{\"cgroup\":\"x/\\ufffd\\ufffd/\xc3\xa9\\u001b\"}",
	       "JSON: FF FE as \\ufffd, UTF-8 and escapes kept");
	free(got);
	buf_free(&b);
}

int main(void)
{
	test_exposition();
	test_bad_families();
	test_bad_samples();
	test_numbers();
	test_negotiate();
	test_units();
	test_buf();
	test_grow_array();
	test_json_escape();
	test_hostile_text();
	return tap_done();
}
