/*
 * test_conf.c - the configuration parser (src/daemon/conf.c) against uncored.conf(5):
 * defaults, a file setting every key, the round trip through conf_dump(),
 * list syntax, line numbers, and a table of malformed files each of which
 * must be refused with the exact "file:line:" and the right message.  The
 * shipped conf/uncored.conf must load to the defaults, and its commented
 * values must be the real defaults.  Expected values are written out by
 * hand, never taken from the table under test.
 *
 * Files are written to a mkdtemp() directory; fixtures are read from
 * $top_srcdir/tests/fixtures/conf (top_srcdir defaults to ".").
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/conf.h"
#include "tests/tap.h"

static char tmpdir[PATH_MAX];
static const char *srcdir;

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Writes text (len bytes, or strlen if len is 0) to tmpdir/name. */
static const char *write_file_n(const char *name, const char *text,
				size_t len)
{
	static char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f)
		die(path);
	if (!len)
		len = strlen(text);
	if (fwrite(text, 1, len, f) != len || fclose(f) != 0)
		die(path);
	return path;
}

static const char *write_file(const char *name, const char *text)
{
	return write_file_n(name, text, 0);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		die(path);
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0)
		die(path);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		die(path);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void fixture(char *buf, size_t n, const char *rel)
{
	snprintf(buf, n, "%s/%s", srcdir, rel);
}

/* conf_dump() into a string (caller frees); NULL if it failed. */
static char *dump_str(const struct conf *c, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		die("open_memstream");
	*rc = conf_dump(c, f);
	fclose(f);
	return buf;
}

/* The name of the first field where a and b differ, or NULL. */
static const char *conf_diff(const struct conf *a, const struct conf *b)
{
	unsigned i, j;

#define NUM(f) if (a->f != b->f) return #f
#define STRF(f) if (strcmp(a->f, b->f) != 0) return #f
	NUM(interval_ms); NUM(ring_capacity); NUM(takeover);
	NUM(interference_policy); NUM(interference_check_ticks);
	STRF(log_level); STRF(unavailable);
	NUM(nlisten);
	for (i = 0; i < a->nlisten; i++)
		if (strcmp(a->listen[i], b->listen[i]) != 0)
			return "listen[]";
	STRF(control_socket); STRF(control_group);
	NUM(http_timeout_s); NUM(http_max_connections); NUM(http_max_per_ip);
	NUM(max_per_uid); NUM(max_total); NUM(default_ttl_s); NUM(max_ttl_s);
	NUM(allow_raw_events); NUM(max_pinned_per_box); NUM(max_pinned_s);
	NUM(baseline_given); NUM(nbaseline);
	for (i = 0; i < a->nbaseline; i++) {
		if (strcmp(a->baseline[i].unit, b->baseline[i].unit) != 0 ||
		    a->baseline[i].nevents != b->baseline[i].nevents)
			return "baseline[]";
		for (j = 0; j < a->baseline[i].nevents; j++)
			if (strcmp(a->baseline[i].events[j],
				   b->baseline[i].events[j]) != 0)
				return "baseline[].events[]";
	}
	STRF(memory_latency);
	STRF(frequency_limits);
	STRF(sim_platform); STRF(sim_workload);
#undef NUM
#undef STRF
	return NULL;
}

/* Checks every field against the documented defaults, written out here. */
static void check_defaults(const struct conf *c, const char *what)
{
	is_int(c->interval_ms, 1000, "%s: interval_ms", what);
	is_int(c->ring_capacity, 3600, "%s: ring_capacity", what);
	is_int(c->takeover, false, "%s: takeover", what);
	is_int(c->interference_policy, CONF_POLICY_RECLAIM,
	       "%s: interference_policy", what);
	is_int(c->interference_check_ticks, 10, "%s: interference_check_ticks",
	       what);
	is_str(c->log_level, "info", "%s: log_level", what);
	is_str(c->unavailable, "exit", "%s: unavailable", what);
	is_str(c->memory_latency, "auto", "%s: memory_latency", what);
	is_int(conf_memory_latency(c), CONF_LATENCY_AUTO,
	       "%s: conf_memory_latency() auto", what);
	is_str(c->frequency_limits, "auto", "%s: frequency_limits", what);
	is_int(conf_frequency_limits(c), CONF_LATENCY_AUTO,
	       "%s: conf_frequency_limits() auto", what);
	is_int(c->nlisten, 1, "%s: nlisten", what);
	is_str(c->listen[0], "0.0.0.0:9464", "%s: listen", what);
	is_str(c->control_socket, "/run/uncored/uncored.sock",
	       "%s: control_socket", what);
	is_str(c->control_group, "", "%s: control_group", what);
	is_int(c->http_timeout_s, 10, "%s: timeout_s", what);
	is_int(c->http_max_connections, 64, "%s: max_connections", what);
	is_int(c->http_max_per_ip, 16, "%s: max_per_ip", what);
	is_int(c->max_per_uid, 8, "%s: max_per_uid", what);
	is_int(c->max_total, 64, "%s: max_total", what);
	is_int(c->default_ttl_s, 60, "%s: default_ttl_s", what);
	is_int(c->max_ttl_s, 3600, "%s: max_ttl_s", what);
	is_int(c->allow_raw_events, false, "%s: allow_raw_events", what);
	is_int(c->max_pinned_per_box, 7, "%s: max_pinned_per_box", what);
	is_int(c->max_pinned_s, 600, "%s: max_pinned_s", what);
	is_int(c->nbaseline, 0, "%s: nbaseline", what);
	is_int(c->baseline_given, false, "%s: baseline_given", what);
	is_str(c->sim_platform, "", "%s: sim platform", what);
	is_str(c->sim_workload, "", "%s: sim workload", what);
}

static void test_defaults(void)
{
	struct conf c;
	char *d1, *d2;
	int rc;

	conf_init(&c);
	ok(c.path == NULL, "conf_init: no path");
	check_defaults(&c, "conf_init");
	d1 = dump_str(&c, &rc);
	is_int(rc, 0, "conf_dump of the defaults succeeds");
	like(d1, "\n[baseline]\n;", "defaults dump an empty [baseline]");
	like(d1, "\nlisten = 0.0.0.0:9464\n", "defaults dump the listener");
	like(d1, "\ncontrol_group =\n", "empty strings dump as \"key =\"");
	conf_free(&c);                  /* frees nothing: all static */
	conf_free(&c);                  /* and may be repeated */
	check_defaults(&c, "after conf_free");

	/* The defaults read back as the defaults. */
	{
		char err[512] = "";
		struct conf r;

		rc = conf_load(&r, write_file("defaults.conf", d1), err,
			       sizeof(err));
		is_int(rc, 0, "dumped defaults load (%s)", err);
		check_defaults(&r, "dumped defaults");
		d2 = dump_str(&r, &rc);
		ok(strstr(d2, "\n[daemon]") &&
		   strcmp(strstr(d1, "\n[daemon]"),
			  strstr(d2, "\n[daemon]")) == 0,
		   "defaults: dump, load, dump gives the same text");
		free(d2);
		conf_free(&r);
	}
	free(d1);
}

static void test_full(void)
{
	char path[PATH_MAX], err[512] = "";
	struct conf c;
	int rc;

	fixture(path, sizeof(path), "tests/fixtures/conf/full.conf");
	rc = conf_load(&c, path, err, sizeof(err));
	is_int(rc, 0, "full.conf loads (%s)", err);
	is_str(err, "", "no error text on success");
	is_str(c.path, path, "path is remembered");
	is_int(c.interval_ms, 250, "interval_ms");
	is_int(c.ring_capacity, 7200, "ring_capacity");
	is_int(c.takeover, true, "takeover = yes");
	is_int(c.interference_policy, CONF_POLICY_YIELD, "policy yield");
	is_int(c.interference_check_ticks, 5, "interference_check_ticks");
	is_str(c.log_level, "debug", "log_level");
	is_int(c.nlisten, 3, "three listen keys");
	is_str(c.listen[0], "127.0.0.1:19464", "listen[0], default replaced");
	is_str(c.listen[1], "[::1]:19464", "listen[1] IPv6");
	is_str(c.listen[2], "localhost:19465", "listen[2] localhost");
	ok(c.listen[3] == NULL, "listen[3] unused");
	{
		struct conf a;

		is_int(conf_load(&a, write_file("any.conf", "[http]\nlisten = "
						":9464\nlisten = [::]:9465\n"),
				 err, sizeof(err)), 0,
		       ":PORT and [::]:PORT load (%s)", err);
		is_str(a.listen[0], ":9464", ":PORT kept as written");
		conf_free(&a);
	}
	is_str(c.control_socket, "/tmp/uncored-test/ctl.sock",
	       "control_socket");
	is_str(c.control_group, "uncored", "control_group");
	is_int(c.http_timeout_s, 30, "http timeout_s");
	is_int(c.http_max_connections, 128, "http max_connections");
	is_int(c.http_max_per_ip, 4, "http max_per_ip");
	is_int(c.max_per_uid, 2, "max_per_uid");
	is_int(c.max_total, 20, "max_total");
	is_int(c.default_ttl_s, 120, "default_ttl_s");
	is_int(c.max_ttl_s, 600, "max_ttl_s");
	is_int(c.allow_raw_events, true, "allow_raw_events = true");
	is_int(c.baseline_given, true, "baseline given");
	is_int(c.nbaseline, 2, "two baseline entries");
	is_str(c.baseline[0].unit, "cbo", "baseline[0] unit");
	is_int(c.baseline[0].nevents, 1, "baseline[0] one event");
	is_str(c.baseline[0].events[0], "UNC_CBO_CACHE_LOOKUP.ANY_MESI",
	       "baseline[0] event");
	is_int(c.baseline[0].line, 30, "baseline[0] line");
	is_str(c.baseline[1].unit, "arb", "baseline[1] unit");
	is_int(c.baseline[1].nevents, 0, "arb = none: no events");
	is_int(c.baseline[1].line, 31, "baseline[1] line");
	is_str(c.sim_platform, "skl", "sim platform");
	is_str(c.sim_workload, "/usr/share/uncored/workloads/skl-default.json",
	       "sim workload");

	/* Round trip: dump, load the dump, compare every field. */
	{
		struct conf r;
		char *d1, *d2;
		const char *diff;

		d1 = dump_str(&c, &rc);
		is_int(rc, 0, "conf_dump of full.conf succeeds");
		like(d1, "\nlisten = [::1]:19464\n", "dump: repeated listen");
		like(d1, "\narb = none\n", "dump: none");
		like(d1, "\ntakeover = yes\n", "dump: booleans as yes/no");
		like(d1, "\ninterference_policy = yield\n", "dump: policy");
		rc = conf_load(&r, write_file("full-dump.conf", d1), err,
			       sizeof(err));
		is_int(rc, 0, "dump of full.conf loads (%s)", err);
		diff = conf_diff(&c, &r);
		ok(diff == NULL, "round trip keeps every field (first "
		   "difference: %s)", diff ? diff : "none");
		d2 = dump_str(&r, &rc);
		ok(strcmp(strchr(d1, '\n'), strchr(d2, '\n')) == 0,
		   "dump of the reloaded file is the same text");
		free(d1);
		free(d2);
		conf_free(&r);
	}

	/* A caller may replace a loaded string with its own heap copy. */
	free(c.control_socket);
	c.control_socket = strdup("/run/other.sock");
	conf_free(&c);
	check_defaults(&c, "full.conf after conf_free");
	ok(c.path == NULL, "conf_free clears path");
}

/* [formulas] export: the list kept as written, with its line (checked
 * against the platform's catalog at start, uncored.c). */
static void test_formulas(void)
{
	char err[512] = "";
	const char *path = write_file("formulas.conf", "[daemon]\n"
				      "interval_ms = 500\n\n[formulas]\n"
				      "export = ha/PCT_RD_REQUESTS, "
				      "memory_bandwidth_total\n");
	struct conf c;

	is_int(conf_load(&c, path, err, sizeof(err)), 0, "[formulas] loads (%s)",
	       err);
	is_str(c.formulas_export, "ha/PCT_RD_REQUESTS, memory_bandwidth_total",
	       "export as written");
	is_int(c.formulas_export_line, 5, "and its line");
	conf_free(&c);
	is_str(c.formulas_export, "", "default: none");
	path = write_file("formulas2.conf", "[formulas]\nexport = a b\n"
			  "    cbo/c_d ; a comment\n    e\n");
	is_int(conf_load(&c, path, err, sizeof(err)), 0, "a list over "
	       "continuation lines (%s)", err);
	is_str(c.formulas_export, "a b, cbo/c_d, e", "joined, comments cut");
	is_int(c.formulas_export_line, 2, "its first line");
	conf_free(&c);
	path = write_file("formulas3.conf", "[formulas]\nexport = a\n"
			  "    b;c\n");
	is_int(conf_load(&c, path, err, sizeof(err)), -1, "a bad name on a "
	       "continuation line");
	ok(strstr(err, ":3: export: formula name \"b;c\""), "%s", err);
	conf_free(&c);
}

static void test_baseline(void)
{
	char path[PATH_MAX], err[512] = "";
	struct conf c, r;
	const char *diff;
	char *d;
	int rc;

	fixture(path, sizeof(path), "tests/fixtures/conf/baseline.conf");
	rc = conf_load(&c, path, err, sizeof(err));
	is_int(rc, 0, "baseline.conf loads (%s)", err);
	is_int(c.nbaseline, 5, "five entries");
	is_int(c.baseline_given, true, "baseline_given");

	is_str(c.baseline[0].unit, "cbo", "cbo");
	is_int(c.baseline[0].line, 6, "cbo line");
	is_int(c.baseline[0].nevents, 2, "cbo: comma without space");
	is_str(c.baseline[0].events[0], "UNC_CBO_CACHE_LOOKUP.ANY_MESI",
	       "cbo event 0");
	is_str(c.baseline[0].events[1], "UNC_CBO_CACHE_LOOKUP.ANY_I",
	       "cbo event 1");

	is_str(c.baseline[1].unit, "arb", "arb");
	is_int(c.baseline[1].line, 7, "arb line");
	is_int(c.baseline[1].nevents, 2, "arb: spaces only, inline comment");
	is_str(c.baseline[1].events[0], "UNC_ARB_TRK_REQUESTS.ALL",
	       "arb event 0");
	is_str(c.baseline[1].events[1], "UNC_ARB_TRK_OCCUPANCY.ALL",
	       "arb event 1 (the comment is not an event)");

	is_str(c.baseline[2].unit, "fixed", "fixed (no spaces around =)");
	is_int(c.baseline[2].line, 8, "fixed line");
	is_int(c.baseline[2].nevents, 1, "fixed: one event");
	is_str(c.baseline[2].events[0], "UNC_CLOCK.SOCKET", "fixed event");

	is_str(c.baseline[3].unit, "imc", "imc");
	is_int(c.baseline[3].line, 9, "imc: line of the key, not of the "
	       "continuation");
	is_int(c.baseline[3].nevents, 5, "imc: 5 events over 4 lines");
	is_str(c.baseline[3].events[0], "DRAM_DATA_READS", "imc event 0");
	is_str(c.baseline[3].events[1], "DRAM_DATA_WRITES", "imc event 1");
	is_str(c.baseline[3].events[2], "DRAM_GT_REQUESTS",
	       "imc event 2 (continuation line)");
	is_str(c.baseline[3].events[3], "DRAM_IA_REQUESTS",
	       "imc event 3 (after blank and comment lines, tab indent)");
	is_str(c.baseline[3].events[4], "DRAM_IO_REQUESTS",
	       "imc event 4 (\" ,\" separator)");

	is_str(c.baseline[4].unit, "raw", "raw");
	is_int(c.baseline[4].line, 14, "raw line (after the continuation)");
	is_int(c.baseline[4].nevents, 2, "raw encodings");
	is_str(c.baseline[4].events[1], "cbo:0x22:0x48", "raw event kept");

	d = dump_str(&c, &rc);
	is_int(rc, 0, "dump of baseline.conf");
	like(d, "\nimc = DRAM_DATA_READS, DRAM_DATA_WRITES, DRAM_GT_REQUESTS, "
	     "DRAM_IA_REQUESTS,\n\tDRAM_IO_REQUESTS\nraw = ",
	     "a long list is dumped with a continuation line");
	rc = conf_load(&r, write_file("baseline-dump.conf", d), err,
		       sizeof(err));
	is_int(rc, 0, "dump of baseline.conf loads (%s)", err);
	diff = conf_diff(&c, &r);
	ok(diff == NULL, "baseline round trip (first difference: %s)",
	   diff ? diff : "none");
	free(d);
	conf_free(&r);
	conf_free(&c);

	/* 16 events fit; an empty [baseline] is the platform default. */
	rc = conf_load(&c, write_file("b16.conf",
		"[baseline]\n"
		"cbo = E1 E2 E3 E4 E5 E6 E7 E8\n"
		"  E9, E10, E11, E12, E13, E14, E15, E16\n"), err,
		sizeof(err));
	is_int(rc, 0, "16 events load (%s)", err);
	is_int(c.baseline[0].nevents, 16, "16 events");
	is_str(c.baseline[0].events[15], "E16", "the 16th");
	conf_free(&c);
	rc = conf_load(&c, write_file("bempty.conf",
		"[baseline]\n; nothing\n[sim]\n[baseline]\n"), err,
		sizeof(err));
	is_int(rc, 0, "empty [baseline] loads (%s)", err);
	is_int(c.baseline_given, false, "empty [baseline]: not given");
	is_int(c.nbaseline, 0, "empty [baseline]: no entries");
	conf_free(&c);
}

static void test_syntax(void)
{
	char err[512] = "", real[PATH_MAX], want[PATH_MAX + 32], line[256];
	struct conf c;
	int rc;

	/* Inline comments need white space before ';'; '#' is not one. */
	rc = conf_load(&c, write_file("inline.conf",
		"[daemon] ; the daemon\n"
		"interval_ms = 250 ; a quarter second\n"
		"log_level = debug;\n"
		"[sim]\n"
		"workload = /tmp/a;b ;comment\n"), err, sizeof(err));
	ok(rc == -1, "\"debug;\" is not debug");
	like(err, "inline.conf:3: log_level: \"debug;\" is not valid",
	     "';' without white space is part of the value");
	rc = conf_load(&c, write_file("inline2.conf",
		"[daemon] ; the daemon\n"
		"interval_ms = 250 ; a quarter second\n"
		"[sim]\n"
		"workload = /tmp/a;b ;comment\n"), err, sizeof(err));
	is_int(rc, 0, "inline comments (%s)", err);
	is_int(c.interval_ms, 250, "value before an inline comment");
	is_str(c.sim_workload, "/tmp/a;b", "';' inside a value is kept");
	conf_free(&c);

	/* CRLF line ends, a UTF-8 BOM, an indented key right after a
	 * section header (not a continuation), spaces around '='. */
	rc = conf_load(&c, write_file("crlf.conf",
		"\xEF\xBB\xBF[daemon]\r\n  interval_ms=20\r\n"
		"ring_capacity   =   99   \r\n"), err, sizeof(err));
	is_int(rc, 0, "CRLF, BOM and an indented first key (%s)", err);
	is_int(c.interval_ms, 20, "CRLF: interval_ms");
	is_int(c.ring_capacity, 99, "CRLF: ring_capacity, spaces trimmed");
	conf_free(&c);

	/* Repeated section headers; leading zeros are decimal. */
	rc = conf_load(&c, write_file("repeat.conf",
		"[daemon]\ninterval_ms = 0100\n[http]\n[daemon]\n"
		"ring_capacity = 10\n"), err, sizeof(err));
	is_int(rc, 0, "a section may be opened twice (%s)", err);
	is_int(c.interval_ms, 100, "0100 is decimal 100");
	conf_free(&c);

	/* listen = none, and boolean spellings. */
	rc = conf_load(&c, write_file("none.conf",
		"[http]\nlisten = none\n[daemon]\ntakeover = on\n"
		"[claims]\nallow_raw_events = 1\n"), err, sizeof(err));
	is_int(rc, 0, "listen = none (%s)", err);
	is_int(c.nlisten, 0, "none: no TCP listener");
	ok(c.listen[0] == NULL, "none: listen[0] NULL");
	is_int(c.takeover, true, "on is true");
	is_int(c.allow_raw_events, true, "1 is true");
	{
		char *d = dump_str(&c, &rc);

		like(d, "\nlisten = none\n", "none is dumped as none");
		free(d);
	}
	conf_free(&c);
	rc = conf_load(&c, write_file("off.conf",
		"[daemon]\ntakeover = off\n[claims]\nallow_raw_events = false\n"
		"[http]\nlisten = [::]:1\nlisten = 10.0.0.1:65535\n"),
		err, sizeof(err));
	is_int(rc, 0, "off/false, ports 1 and 65535 (%s)", err);
	is_int(c.takeover, false, "off is false");
	is_int(c.nlisten, 2, "two listeners");
	conf_free(&c);

	/* Range edges are inclusive. */
	rc = conf_load(&c, write_file("edges.conf",
		"[daemon]\ninterval_ms = 10\nring_capacity = 1000000\n"
		"[claims]\nmax_per_uid = 1000\nmax_total = 1000\n"
		"default_ttl_s = 86400\nmax_ttl_s = 86400\n"), err,
		sizeof(err));
	is_int(rc, 0, "range edges and equal pairs load (%s)", err);
	is_int(c.interval_ms, 10, "interval_ms 10");
	is_int(c.ring_capacity, 1000000, "ring_capacity 1000000");
	conf_free(&c);

	/* A relative workload is taken from the file's directory. */
	rc = conf_load(&c, write_file("rel.conf",
		"[sim]\nplatform = skl\nworkload = wl/x.json\n"), err,
		sizeof(err));
	is_int(rc, 0, "relative workload (%s)", err);
	if (!realpath(tmpdir, real))
		die("realpath");
	snprintf(want, sizeof(want), "%s/wl/x.json", real);
	is_str(c.sim_workload, want, "relative workload resolved");
	conf_free(&c);

	/* The longest line inih can take: 199 characters. */
	memset(line, 'a', sizeof(line));
	memcpy(line, "workload = /", 12);
	line[199] = '\0';
	snprintf(want, sizeof(want), "[sim]\n%s\n", line);
	rc = conf_load(&c, write_file("long199.conf", want), err, sizeof(err));
	is_int(rc, 0, "a 199-character line loads (%s)", err);
	is_int(strlen(c.sim_workload), 188, "and is not truncated");
	conf_free(&c);
	line[199] = 'a';
	line[200] = '\0';
	snprintf(want, sizeof(want), "[sim]\n%s\n", line);
	rc = conf_load(&c, write_file("long200.conf", want), err, sizeof(err));
	ok(rc == -1, "a 200-character line is refused");
	like(err, "long200.conf:2: line is too long (200 characters, at "
	     "most 199)", "and says so");

	/* Long comment lines are fine and keep the line count right. */
	{
		char big[1200];

		memset(big, '#', sizeof(big));
		memcpy(big + 1000, "\n[daemon]\nbogus = 1\n", 21);
		rc = conf_load(&c, write_file("longcomment.conf", big), err,
			       sizeof(err));
		like(err, "longcomment.conf:3: unknown key \"bogus\"",
		     "a 1000-character comment is one line");
	}
}

/* What is written, where, and what must be said. */
struct bad {
	const char *text;
	unsigned line;                  /* 0: "PATH: " without a line */
	const char *msg;                /* must follow "PATH:LINE: " */
};

static const struct bad bad[] = {
	{ "[formulas]\nexport = memory_bandwidth_total, a;b\n", 2,
	  "export: formula name \"a;b\" has a ';'" },
	{ "[formulas]\nexports = x\n", 2, "unknown key \"exports\" in "
	  "[formulas]" },
	/* sections and keys */
	{ "[daemon]\ninterval_ms = 100\n\n[deamon]\n", 4,
	  "unknown section [deamon] (expected [daemon], [http], [claims], "
	  "[baseline], [sim], [resctrl] or [formulas])" },
	{ "[daemon]\n\nintervall_ms = 100\n", 3,
	  "unknown key \"intervall_ms\" in [daemon]; did you mean "
	  "\"interval_ms\"?" },
	{ "[daemon]\nfrobnicate = 1\n", 2,
	  "unknown key \"frobnicate\" in [daemon]" },
	{ "[daemon]\nlisten = 127.0.0.1:1\n", 2,
	  "unknown key \"listen\" in [daemon] (it belongs in [http])" },
	{ "[daemon]\nTakeover = yes\n", 2, "unknown key \"Takeover\"" },
	{ "; leading comment\ninterval_ms = 100\n[daemon]\n", 2,
	  "key \"interval_ms\" is outside any section (it belongs in "
	  "[daemon])" },
	{ "[daemon]\ninterval_ms 100\n", 2,
	  "expected \"key = value\" or a [section] header" },
	{ "[daemon]\ninterval_ms: 100\n", 2,
	  "expected \"key = value\" (':' is not accepted as a separator)" },
	{ "[daemon\ninterval_ms = 100\n", 1,
	  "section header without a closing ']'" },
	{ "[daemon] extra\n", 1,
	  "unexpected \"extra\" after the section header" },
	{ "[daemon]\n= 100\n", 2, "missing key name before '='" },
	{ "[daemon]\ninterval_ms = 100\nring_capacity = 10\n"
	  "interval_ms = 200\n", 4,
	  "duplicate key interval_ms (first given on line 2)" },
	{ "[http]\ncontrol_socket = /a\n[daemon]\n[http]\n"
	  "control_socket = /b\n", 5,
	  "duplicate key control_socket (first given on line 2)" },
	{ "[daemon]\ninterval_ms = 100\n  ring_capacity = 5\n", 3,
	  "this indented line continues the value of interval_ms, which "
	  "takes a single value" },
	{ "[http]\nlisten = 127.0.0.1:1\n  127.0.0.1:2\n", 3,
	  "this indented line continues the value of listen, which takes a "
	  "single value (remove "
	  "the indentation, and repeat \"listen =\" for another address)" },
	/* numbers */
	{ "[daemon]\ninterval_ms = 5\n", 2,
	  "interval_ms: 5 is out of range (10..60000)" },
	{ "[daemon]\ninterval_ms = 60001\n", 2,
	  "interval_ms: 60001 is out of range (10..60000)" },
	{ "[daemon]\nring_capacity = 1\n", 2,
	  "ring_capacity: 1 is out of range (2..1000000)" },
	{ "[daemon]\ninterval_ms = 1e3\n", 2,
	  "interval_ms: \"1e3\" is not a decimal integer (expected "
	  "10..60000)" },
	{ "[daemon]\ninterval_ms = 0x10\n", 2,
	  "interval_ms: \"0x10\" is not a decimal integer (hexadecimal is "
	  "not accepted; expected 10..60000)" },
	{ "[daemon]\ninterval_ms = 10ms\n", 2,
	  "interval_ms: \"10ms\" is not a decimal integer (expected "
	  "10..60000)" },
	{ "[daemon]\ninterval_ms = -5\n", 2,
	  "interval_ms: -5 is out of range (10..60000)" },
	{ "[daemon]\ninterval_ms = +50\n", 2,
	  "interval_ms: \"+50\" is not a decimal integer" },
	{ "[daemon]\ninterval_ms = 1 000\n", 2,
	  "interval_ms: \"1 000\" is not a decimal integer" },
	{ "[daemon]\ninterval_ms = 100 # ms\n", 2,
	  "interval_ms: \"100 # ms\" is not a decimal integer" },
	{ "[daemon]\ninterval_ms = 100.5\n", 2,
	  "interval_ms: \"100.5\" is not a decimal integer" },
	{ "[daemon]\nring_capacity = 99999999999999999999\n", 2,
	  "ring_capacity: 99999999999999999999 is out of range (2..1000000)" },
	{ "[daemon]\nring_capacity = 4294967297\n", 2,
	  "ring_capacity: 4294967297 is out of range (2..1000000)" },
	{ "[daemon]\ninterval_ms =\n", 2,
	  "interval_ms: empty value (expected an integer in 10..60000)" },
	{ "[daemon]\ninterval_ms = ; nothing\n", 2,
	  "interval_ms: empty value" },
	{ "[http]\ntimeout_s = 0\n", 2,
	  "timeout_s: 0 is out of range (1..3600)" },
	{ "[http]\nmax_per_ip = 10001\n", 2,
	  "max_per_ip: 10001 is out of range (1..10000)" },
	{ "[claims]\nmax_ttl_s = 86401\n", 2,
	  "max_ttl_s: 86401 is out of range (1..86400)" },
	{ "[claims]\nmax_pinned_s = 0\n", 2,
	  "max_pinned_s: 0 is out of range (1..86400)" },
	{ "[claims]\nmax_pinned_s = 86401\n", 2,
	  "max_pinned_s: 86401 is out of range (1..86400)" },
	{ "[daemon]\ninterference_check_ticks = 3601\n", 2,
	  "interference_check_ticks: 3601 is out of range (1..3600)" },
	/* booleans and words */
	{ "[daemon]\ntakeover = maybe\n", 2,
	  "takeover: \"maybe\" is not a boolean (expected yes, no, true, "
	  "false, on, off, 1 or 0)" },
	{ "[daemon]\ntakeover = Yes\n", 2,
	  "takeover: \"Yes\" is not a boolean" },
	{ "[claims]\nallow_raw_events =\n", 2,
	  "allow_raw_events: empty value (expected yes, no" },
	{ "[daemon]\ninterference_policy = kill\n", 2,
	  "interference_policy: \"kill\" is not valid (expected reclaim or "
	  "yield)" },
	{ "[daemon]\nlog_level = verbose\n", 2,
	  "log_level: \"verbose\" is not valid (expected error, warning, "
	  "notice, info or debug)" },
	{ "[daemon]\nlog_level =\n", 2, "log_level: empty value (expected " },
	{ "[daemon]\nunavailable = wait\n", 2,
	  "unavailable: \"wait\" is not valid (expected exit or serve)" },
	{ "[baseline]\nmemory_latency = maybe\n", 2,
	  "memory_latency: \"maybe\" is not valid (expected auto, yes, no, "
	  "true, false, on, off, 1 or 0)" },
	{ "[baseline]\nfrequency_limits = always\n", 2,
	  "frequency_limits: \"always\" is not valid (expected auto, yes, no, "
	  "true, false, on, off, 1 or 0)" },
	/* listen */
	{ "[http]\nlisten = 1:1\nlisten = 2:2\n", 2,
	  "listen: \"1:1\": \"1\" is not an IPv4 address, [IPv6] address or "
	  "localhost" },
	{ "[http]\nlisten = 10.0.0.1:1\nlisten = 10.0.0.2:1\n"
	  "listen = 10.0.0.3:1\nlisten = 10.0.0.4:1\nlisten = 10.0.0.5:1\n"
	  "listen = 10.0.0.6:1\nlisten = 10.0.0.7:1\nlisten = 10.0.0.8:1\n"
	  "listen = 10.0.0.9:1\n", 10,
	  "listen: too many addresses (at most 8)" },
	{ "[http]\nlisten = 1.2.3.4\n", 2,
	  "listen: \"1.2.3.4\" has no port (expected ADDR:PORT, e.g. "
	  "127.0.0.1:9464)" },
	{ "[http]\nlisten = 1.2.3.4:\n", 2,
	  "listen: \"1.2.3.4:\" has no port" },
	{ "[http]\nlisten = 127.0.0.1:0\n", 2,
	  "listen: \"127.0.0.1:0\": port 0 is out of range (1..65535)" },
	{ "[http]\nlisten = 127.0.0.1:70000\n", 2,
	  "listen: \"127.0.0.1:70000\": port 70000 is out of range "
	  "(1..65535)" },
	{ "[http]\nlisten = 127.0.0.1:http\n", 2,
	  "listen: \"127.0.0.1:http\": \"http\" is not a port number" },
	{ "[http]\nlisten = 256.0.0.1:80\n", 2,
	  "listen: \"256.0.0.1:80\": \"256.0.0.1\" is not an IPv4 address" },
	{ "[http]\nlisten = example.com:80\n", 2,
	  "listen: \"example.com:80\": \"example.com\" is not an IPv4 "
	  "address, [IPv6] address or localhost" },
	{ "[http]\nlisten = ::1:9464\n", 2,
	  "listen: \"::1:9464\": an IPv6 address must be in brackets, e.g. "
	  "[::1]:9464" },
	{ "[http]\nlisten = [::1]9464\n", 2,
	  "listen: \"[::1]9464\" has no port" },
	{ "[http]\nlisten = [::g]:9464\n", 2,
	  "listen: \"[::g]:9464\": \"::g\" is not an IPv6 address" },
	{ "[http]\nlisten = []:9464\n", 2,
	  "listen: \"[]:9464\": \"\" is not an IPv6 address" },
	{ "[http]\nlisten =\n", 2,
	  "listen: empty value (expected ADDR:PORT or none)" },
	{ "[http]\nlisten = 127.0.0.1:9\nlisten = 127.0.0.1:9\n", 3,
	  "listen: 127.0.0.1:9 given twice (first on line 2)" },
	{ "[http]\nlisten = 127.0.0.1:9\nlisten = none\n", 3,
	  "listen: \"none\" cannot be combined with other addresses (line 2)" },
	{ "[http]\nlisten = none\nlisten = 127.0.0.1:9\n", 3,
	  "listen: \"127.0.0.1:9\" cannot be combined with \"none\" (line 2)" },
	/* paths and names */
	{ "[http]\ncontrol_socket = run/uncored.sock\n", 2,
	  "control_socket: \"run/uncored.sock\" is not an absolute path" },
	{ "[http]\ncontrol_socket =\n", 2, "control_socket: empty value" },
	{ "[http]\ncontrol_socket = /run/uncored/\n", 2,
	  "control_socket: \"/run/uncored/\" names a directory" },
	{ "[http]\ncontrol_socket = /run/uncored/aaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaa.sock\n", 2,
	  "control_socket: path is too long for a Unix socket (123 bytes, at "
	  "most 107)" },
	{ "[http]\ncontrol_group = -wheel\n", 2,
	  "control_group: \"-wheel\" is not a valid group name" },
	{ "[http]\ncontrol_group = a b\n", 2,
	  "control_group: \"a b\" is not a valid group name" },
	{ "[sim]\nplatform = SKL\n", 2,
	  "platform: unknown platform \"SKL\" (supported: skl, hsx, snbep, skx, icx, spr, zen4, adl, mtl, zen5, zen3, gnr)" },
	{ "[sim]\n\nplatform = hsw\n", 3,
	  "platform: unknown platform \"hsw\" (supported: skl, hsx, snbep, skx, icx, spr, zen4, adl, mtl, zen5, zen3, gnr)" },
	/* cross-checks name both lines */
	{ "[claims]\nmax_total = 4\nmax_per_uid = 8\n", 3,
	  "max_per_uid = 8 (line 3) must not be greater than max_total = 4 "
	  "(line 2)" },
	{ "[claims]\nmax_per_uid = 100\n", 2,
	  "max_per_uid = 100 (line 2) must not be greater than max_total = "
	  "64 (the default)" },
	{ "[claims]\ndefault_ttl_s = 600\n\nmax_ttl_s = 300 ; five minutes\n",
	  4, "default_ttl_s = 600 (line 2) must not be greater than "
	  "max_ttl_s = 300 (line 4)" },
	{ "[claims]\ndefault_ttl_s = 7200\n", 2,
	  "default_ttl_s = 7200 (line 2) must not be greater than max_ttl_s "
	  "= 3600 (the default)" },
	/* [baseline] */
	{ "[baseline]\ncbo = A\narb = B\ncbo = C\n", 4,
	  "cbo given twice in [baseline] (first on line 2)" },
	{ "[baseline]\ncbo =\n", 2,
	  "cbo: empty value (list event names, or write \"none\" to count "
	  "nothing on this unit)" },
	{ "[baseline]\ncbo = ; nothing\n", 2, "cbo: empty value" },
	{ "[baseline]\ncbo = A,,B\n", 2,
	  "cbo: empty event name between commas" },
	{ "[baseline]\ncbo = , A\n", 2,
	  "cbo: empty event name between commas" },
	{ "[baseline]\ncbo = A,\n\n   , B\n", 4,
	  "cbo: empty event name between commas" },
	{ "[baseline]\ncbo = none A\n", 2,
	  "cbo: \"none\" cannot be combined with events" },
	{ "[baseline]\ncbo = A\n  none\n", 3,
	  "cbo: \"none\" cannot be combined with events" },
	{ "[baseline]\ncbo = A A\n", 2, "cbo: event A listed twice" },
	{ "[baseline]\ncbo = UNC-CBO\n", 2,
	  "cbo: \"UNC-CBO\" is not an event name" },
	{ "[baseline]\nCBo = A\n", 2, "\"CBo\" is not a unit name" },
	{ "[baseline]\nunit_name_too_long = A\n", 2,
	  "\"unit_name_too_long\" is not a unit name (at most 15 characters" },
	{ "[baseline]\ncbo = E1 E2 E3 E4 E5 E6 E7 E8\n"
	  "  E9 E10 E11 E12 E13 E14 E15 E16\n"
	  "; comment\n"
	  "  E17\n", 5, "cbo: too many events (at most 16)" },
	{ "[baseline]\nu1=a\nu2=a\nu3=a\nu4=a\nu5=a\nu6=a\nu7=a\nu8=a\n"
	  "u9=a\nu10=a\nu11=a\nu12=a\nu13=a\nu14=a\nu15=a\nu16=a\nu17=a\n"
	  "u18=a\nu19=a\nu20=a\nu21=a\nu22=a\nu23=a\nu24=a\nu25=a\nu26=a\n"
	  "u27=a\nu28=a\nu29=a\nu30=a\nu31=a\nu32=a\nu33=a\n", 34,
	  "too many [baseline] entries (at most 32)" },
	/* the first error wins, at its own line */
	{ "[daemon]\ninterval_ms = 20\n\n; comment\n\ntakeover = perhaps\n"
	  "[nope]\n", 6, "takeover: \"perhaps\" is not a boolean" },
	{ "[baseline]\nimc = A,\n  B\n\n  C\n[daemon]\ninterval_ms = 1\n", 7,
	  "interval_ms: 1 is out of range (10..60000)" },
};

/* [baseline] memory_latency: auto, and the yes/no words bool keys take */
static void test_latency(void)
{
	static const struct {
		const char *word;
		enum conf_latency want;
	} w[] = {
		{ "auto", CONF_LATENCY_AUTO }, { "yes", CONF_LATENCY_YES },
		{ "true", CONF_LATENCY_YES }, { "on", CONF_LATENCY_YES },
		{ "1", CONF_LATENCY_YES }, { "no", CONF_LATENCY_NO },
		{ "false", CONF_LATENCY_NO }, { "off", CONF_LATENCY_NO },
		{ "0", CONF_LATENCY_NO },
	};
	char text[64], err[512];
	struct conf c;

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		snprintf(text, sizeof(text), "[baseline]\nmemory_latency = %s\n",
			 w[i].word);
		is_int(conf_load(&c, write_file("lat.conf", text), err,
				 sizeof(err)), 0, "memory_latency = %s loads",
		       w[i].word);
		is_int(conf_memory_latency(&c), w[i].want,
		       "memory_latency = %s: %s", w[i].word,
		       w[i].want == CONF_LATENCY_AUTO ? "auto"
		       : w[i].want == CONF_LATENCY_YES ? "yes" : "no");
		conf_free(&c);
	}
}

static void test_bad(void)
{
	char err[512], want[PATH_MAX + 64], name[32];
	const char *path;
	struct conf c;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "bad%02zu.conf", i);
		path = write_file(name, bad[i].text);
		snprintf(want, sizeof(want), "%s:%u: %s", path, bad[i].line,
			 bad[i].msg);
		strcpy(err, "(untouched)");
		rc = conf_load(&c, path, err, sizeof(err));
		is_int(rc, -1, "%s is refused", name);
		if (!ok(strncmp(err, want, strlen(want)) == 0,
			"%s: line %u: %s", name, bad[i].line, bad[i].msg))
			printf("#   got  \"%s\"\n#   want \"%s...\"\n", err,
			       want);
		/* A failed load leaves the defaults and owns nothing. */
		if (c.path != NULL || c.interval_ms != 1000 ||
		    c.nbaseline != 0 || c.nlisten != 1)
			ok(0, "%s: a failed load leaves the defaults", name);
		conf_free(&c);
	}
}

static void test_bad_files(void)
{
	char err[512], want[PATH_MAX + 64];
	const char *path;
	struct conf c;

	path = write_file("x", "");
	snprintf(want, sizeof(want), "%s/missing.conf", tmpdir);
	is_int(conf_load(&c, want, err, sizeof(err)), -1, "missing file");
	strcat(want, ": cannot open: No such file or directory");
	is_str(err, want, "missing file: PATH: cannot open: reason");
	ok(c.path == NULL && c.interval_ms == 1000, "missing file: defaults");

	is_int(conf_load(&c, tmpdir, err, sizeof(err)), -1, "a directory");
	snprintf(want, sizeof(want), "%s: cannot read: Is a directory",
		 tmpdir);
	is_str(err, want, "a directory cannot be read");

	path = write_file_n("nul.conf", "[daemon]\ninterval_ms = 1\0" "00\n",
			    27);
	is_int(conf_load(&c, path, err, sizeof(err)), -1, "NUL byte");
	like(err, "nul.conf:2: line contains a NUL byte", "NUL byte line");

	/* No file at all: the defaults as heap copies a caller may free. */
	is_int(conf_load(&c, NULL, err, sizeof(err)), 0, "NULL path loads");
	check_defaults(&c, "NULL path");
	ok(c.path == NULL, "NULL path: path stays NULL");
	free(c.listen[0]);              /* what a command-line override does */
	c.listen[0] = strdup("127.0.0.1:1");
	free(c.control_socket);
	c.control_socket = strdup("/tmp/x.sock");
	free(c.log_level);
	c.log_level = strdup("debug");
	free(c.control_group);
	c.control_group = strdup("adm");
	conf_free(&c);
	is_int(conf_load(&c, "", err, sizeof(err)), -1, "empty path refused");
	is_str(err, "(empty path): no configuration file given",
	       "empty path message");

	/* An empty file is the defaults. */
	path = write_file("empty.conf", "");
	is_int(conf_load(&c, path, err, sizeof(err)), 0, "empty file loads");
	check_defaults(&c, "empty file");
	conf_free(&c);

	/* The message is cut to errlen and stays a string; no err at all. */
	path = write_file("trunc.conf", "[daemon]\ninterval_ms = 5\n");
	memset(err, 'x', sizeof(err));
	is_int(conf_load(&c, path, err, 8), -1, "short error buffer");
	is_int(strlen(err), 7, "message cut to errlen - 1");
	is_int(conf_load(&c, path, NULL, 0), -1, "no error buffer");

	/* conf_dump refuses what would not read back. */
	conf_init(&c);
	c.control_socket = strdup("relative.sock");
	{
		int rc;
		char *d = dump_str(&c, &rc);

		is_int(rc, -EINVAL, "dump refuses a relative socket path");
		free(d);
		free(c.control_socket);
		c.control_socket = strdup("/tmp/a ;b");
		d = dump_str(&c, &rc);
		is_int(rc, -EINVAL, "dump refuses \" ;\" in a value");
		free(d);
		free(c.control_socket);
		c.control_socket = strdup("/tmp/ok.sock");
		c.max_per_uid = 100;
		d = dump_str(&c, &rc);
		is_int(rc, -EINVAL, "dump refuses max_per_uid > max_total");
		is_str(d, "", "and writes nothing");
		free(d);
		c.max_per_uid = 8;
		c.interval_ms = 5;
		d = dump_str(&c, &rc);
		is_int(rc, -EINVAL, "dump refuses an out-of-range number");
		free(d);
		c.interval_ms = 10;
		d = dump_str(&c, &rc);
		is_int(rc, 0, "and takes the edge of the range");
		like(d, "\ncontrol_socket = /tmp/ok.sock\n",
		     "a caller-set string is dumped");
		free(d);
	}
	conf_free(&c);
}

/* The shipped file: clean, the defaults, and its comments are true. */
static void test_shipped(void)
{
	char path[PATH_MAX], err[512] = "", *text, *out, *p, *d1, *d2;
	struct conf c, r;
	size_t n;
	int rc, nkeys = 0;

	fixture(path, sizeof(path), "conf/uncored.conf");
	rc = conf_load(&c, path, err, sizeof(err));
	is_int(rc, 0, "shipped conf/uncored.conf loads (%s)", err);
	check_defaults(&c, "shipped file");

	/* Uncomment every "#key = value" line: the values shown must be
	 * the defaults, and the [baseline] ones the skl defaults. */
	text = read_all(path);
	out = malloc(strlen(text) + 1);
	if (!out)
		die("malloc");
	for (p = text, n = 0; *p; ) {
		bool key = p[0] == '#' && p[1] >= 'a' && p[1] <= 'z';

		if (key)
			p++, nkeys++;
		while (*p && *p != '\n')
			out[n++] = *p++;
		if (*p)
			out[n++] = *p++;
	}
	out[n] = '\0';
	is_int(nkeys, 42, "shipped file shows 38 keys and 4 baseline lines");
	rc = conf_load(&r, write_file("uncommented.conf", out), err,
		       sizeof(err));
	is_int(rc, 0, "shipped file with every key uncommented loads (%s)",
	       err);
	is_int(r.baseline_given, true, "uncommented: baseline given");
	is_int(r.nbaseline, 4, "skl baseline: 4 units");
	is_str(r.baseline[0].unit, "cbo", "skl baseline cbo");
	is_str(r.baseline[0].events[1], "UNC_CBO_CACHE_LOOKUP.ANY_I",
	       "cbo: ANY_I");
	is_str(r.baseline[1].events[1], "UNC_ARB_TRK_OCCUPANCY.ALL",
	       "arb: TRK_OCCUPANCY.ALL");
	is_str(r.baseline[2].events[0], "UNC_CLOCK.SOCKET", "fixed");
	is_int(r.baseline[3].nevents, 5, "imc: 5 free-running counters");
	is_str(r.baseline[3].events[4], "DRAM_IO_REQUESTS", "imc: IO");
	{
		/* everything else must be the defaults */
		unsigned nb = r.nbaseline;

		r.nbaseline = 0;
		r.baseline_given = false;
		check_defaults(&r, "uncommented shipped file");
		r.nbaseline = nb;
	}

	/* Every key conf_dump writes is in the shipped file and the man
	 * page (as ".B key" at the start of a line). */
	d1 = dump_str(&c, &rc);
	fixture(path, sizeof(path), "doc/uncored.conf.5.in");
	d2 = read_all(path);
	for (p = d1; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char k[64], pat[80];

		if (sscanf(p, "%63[a-z_] =", k) != 1)
			continue;
		snprintf(pat, sizeof(pat), "\n#%s =", k);
		like(text, pat, "shipped file shows %s", k);
		snprintf(pat, sizeof(pat), "\n.B %s\n", k);
		like(d2, pat, "man page documents %s", k);
	}
	free(d1);
	free(d2);
	free(text);
	free(out);
	conf_free(&r);
	conf_free(&c);
}

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	if (!getenv("KEEP_TMP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
	}
}

int main(void)
{
	const char *t = getenv("TMPDIR");

	srcdir = getenv("top_srcdir");
	if (!srcdir || !*srcdir)
		srcdir = ".";
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_conf.XXXXXX",
		 t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir))
		die("mkdtemp");

	test_defaults();
	test_full();
	test_formulas();
	test_baseline();
	test_syntax();
	test_latency();
	test_bad();
	test_bad_files();
	test_shipped();
	cleanup();
	return tap_done();
}
