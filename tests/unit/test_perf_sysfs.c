/*
 * test_perf_sysfs.c - unit tests for the perf PMU sysfs layer
 * (src/hw/perf_sysfs.c): the format/ grammar and where a value's bits go,
 * term encoding, PMU name patterns, the cpulist grammar, loading a PMU
 * (type, cpumask, format/, events/ with .scale and .unit) and CPU
 * topology, on sysfs trees the test builds in a temporary directory.
 *
 * The kernel facts used as known answers are cited where they are used:
 * format strings from arch/x86/events/intel/uncore_snbep.c and
 * arch/x86/events/amd/uncore.c (via the AMD uncore PMU notes (amd-perf/UNCORE-PMUS.md of the project's reference data)),
 * the imc alias values from the same uncore_snbep.c.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw/perf_sysfs.h"
#include "tests/bounded.h"
#include "tests/tap.h"

static char root[64];
static char why[512];

/* mkdir -p of path's directory part. */
static void mkdirs(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST) {
			perror(buf);
			exit(2);
		}
		*s = '/';
	}
}

/* Writes len bytes of text to ROOT/rel (directories made). */
static void put_n(const char *rel, const char *text, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkdirs(path);
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static void put(const char *rel, const char *text)
{
	put_n(rel, text, strlen(text));
}

#define DEV "bus/event_source/devices/"

/* text with newlines, tabs and NULs shown as \n, \t, \0, for a TAP
 * line; four calls may be in use at once. */
static const char *esc(const char *text)
{
	static char buf[4][96];
	static unsigned k;
	char *b = buf[k++ % 4];
	size_t n = 0;

	for (; *text && n + 3 < sizeof(buf[0]); text++) {
		if (*text == '\n' || *text == '\t') {
			b[n++] = '\\';
			b[n++] = *text == '\n' ? 'n' : 't';
		} else {
			b[n++] = *text;
		}
	}
	b[n] = '\0';
	return b;
}

static void rm_rf(const char *rel)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", root, rel);
	if (system(cmd) != 0)
		exit(2);
}

/* ---- format/ grammar ----------------------------------------------------- */

static void format_ok(const char *text, unsigned word, uint64_t mask)
{
	struct pfs_format f = { 0 };
	int r = pfs_format_parse(text, &f, why, sizeof(why));

	is_int(r, 0, "format \"%s\" parses", esc(text));
	if (r)
		printf("#   %s\n", why);
	is_int(f.word, word, "format \"%s\": config word %u", esc(text), word);
	is_u64(f.mask, mask, "format \"%s\": bits", esc(text));
	is_int(f.width, __builtin_popcountll(mask), "format \"%s\": width",
	       esc(text));
}

static void format_bad(const char *text, const char *what)
{
	struct pfs_format f = { 0 };

	why[0] = '\0';
	is_int(pfs_format_parse(text, &f, why, sizeof(why)), -EINVAL,
	       "format \"%s\" refused", esc(text));
	like(why, what, "format \"%s\": says %s", esc(text), what);
	printf("#   %s\n", why);
}

static void test_format_grammar(void)
{
	format_ok("config:0-7", 0, 0xff);
	format_ok("config1:0-31", 1, 0xffffffffull);
	format_ok("config2:0-63", 2, ~0ull);
	format_ok("config:24-31,35", 0, 0xff000000ull | 1ull << 35);
	format_ok("config:21", 0, 1ull << 21);
	format_ok("config:63", 0, 1ull << 63);
	format_ok("config:0-7\n", 0, 0xff);
	/* ranges unordered: the kernel's strings need not ascend */
	format_ok("config:35,24-31", 0, 0xff000000ull | 1ull << 35);
	/* icx CHA umask: uncore_snbep.c umask_ext4 "config:8-15,32-55" */
	format_ok("config:8-15,32-55", 0, 0xff00ull | 0xffffffull << 32);
	/* amd_df event, Zen 2/3: "config:0-7,32-35,59-60" */
	format_ok("config:0-7,32-35,59-60", 0,
		  0xffull | 0xfull << 32 | 3ull << 59);

	format_bad("", "WORD:BITS");
	format_bad("config", "WORD:BITS");
	format_bad("config:", "not a bit number");
	format_bad("config3:0-7", "not a config word");
	format_bad("conf:0-7", "not a config word");
	format_bad("config:7-0", "LO <= HI <= 63");
	format_bad("config:0-64", "LO <= HI <= 63");
	format_bad("config:64", "LO <= HI <= 63");
	format_bad("config:0-7,4-9", "overlap");
	format_bad("config:3,3", "overlap");
	format_bad("config:0-7,", "not a bit number");
	format_bad("config:1,,2", "not a bit number");
	format_bad("config:a-b", "not a bit number");
	format_bad("config:-1", "not a bit number");
	format_bad("config:0--7", "not a bit number");
	format_bad("config: 0-7", "not a bit number");
	format_bad("config:0-7 ", "not a bit number");
	format_bad("config:0-7\n\n", "not a bit number");
	format_bad("config:0x3", "not a bit number");
	format_bad("config:99999999999999999999999", "not a bit number");
}

/* ---- where a value's bits go --------------------------------------------- */

static struct pfs_format fmt(const char *text)
{
	struct pfs_format f = { 0 };

	if (pfs_format_parse(text, &f, why, sizeof(why))) {
		printf("Bail out! %s: %s\n", text, why);
		exit(2);
	}
	return f;
}

static void test_format_put(void)
{
	struct pfs_format umask = fmt("config:8-15,32-55");
	struct pfs_format uo = fmt("config:35,24-31");
	struct pfs_format df2 = fmt("config:0-7,32-35,59-60");
	struct pfs_format all = fmt("config:0-63");
	uint64_t w = 0xf0;

	/* low 8 value bits to 8-15, the next 24 to 32-55 */
	is_int(pfs_format_put(&umask, 0x12345678, &w), 0, "umask 0x12345678");
	is_u64(w, 0x0012345600007800ull | 0xf0,
	       "umask: 0x78 at bits 8-15, 0x123456 at 32-55, others kept");
	is_u64(pfs_format_get(&umask, w), 0x12345678, "umask reads back");
	/* unordered ranges fill ascending bit positions */
	w = 0;
	pfs_format_put(&uo, 0x1ff, &w);
	is_u64(w, 0xff000000ull | 1ull << 35, "config:35,24-31 <- 0x1ff");
	w = 0;
	pfs_format_put(&uo, 0x100, &w);
	is_u64(w, 1ull << 35, "config:35,24-31 <- 0x100: value bit 8 to 35");
	w = 0;
	pfs_format_put(&df2, 0x3fff, &w);
	is_u64(w, 0xffull | 0xfull << 32 | 3ull << 59,
	       "config:0-7,32-35,59-60 <- 0x3fff");
	w = 0;
	pfs_format_put(&df2, 0x2000, &w);
	is_u64(w, 1ull << 60, "value bit 13 lands in bit 60");
	w = 0x55;
	is_int(pfs_format_put(&umask, 1ull << 32, &w), -ERANGE,
	       "a 33-bit value into the 32-bit umask: -ERANGE");
	is_u64(w, 0x55, "and the word is unchanged");
	is_int(pfs_format_put(&all, ~0ull, &w), 0, "64-bit field takes ~0");
	is_u64(w, ~0ull, "all bits set");
	w = 0xffffffffffffffffull;
	pfs_format_put(&umask, 0, &w);
	is_u64(w, ~(0xff00ull | 0xffffffull << 32), "put 0 clears the field");
}

/* ---- PMU name patterns --------------------------------------------------- */

static void test_match(void)
{
	unsigned box = 99;

	is_int(pfs_match("uncore_cha_%u", "uncore_cha_12", &box), 1,
	       "uncore_cha_%%u matches uncore_cha_12");
	is_int(box, 12, "box 12");
	is_int(pfs_match("uncore_cha_%u", "uncore_cha_0", &box), 1,
	       "matches uncore_cha_0");
	is_int(box, 0, "box 0");
	is_int(pfs_match("uncore_cha_%u", "uncore_cha_free_running_0", &box),
	       0, "not uncore_cha_free_running_0");
	is_int(pfs_match("uncore_cha_%u", "uncore_cha_", NULL), 0,
	       "not uncore_cha_");
	is_int(pfs_match("uncore_cha_%u", "uncore_cha_01", NULL), 0,
	       "not uncore_cha_01 (the kernel prints no leading zero)");
	is_int(pfs_match("uncore_cha_%u", "uncore_cha_1x", NULL), 0,
	       "not uncore_cha_1x");
	is_int(pfs_match("uncore_cha_%u", "uncore_cha_4294967296", NULL), 0,
	       "not a box number beyond unsigned");
	is_int(pfs_match("uncore_cha_%u", "uncore_imc_1", NULL), 0,
	       "not uncore_imc_1");
	is_int(pfs_match("x_%u_y", "x_3_y", &box), 1, "x_%%u_y matches x_3_y");
	is_int(box, 3, "box 3");
	is_int(pfs_match("x_%u_y", "x_3_", NULL), 0, "not x_3_");
	is_int(pfs_match("amd_df", "amd_df", &box), 1, "exact name matches");
	is_int(box, 0, "box 0 for a name without %%u");
	is_int(pfs_match("amd_df", "amd_df0", NULL), 0, "exact: not amd_df0");
	is_int(pfs_match("uncore_%d", "uncore_1", NULL), -EINVAL,
	       "%%d is not a pattern");
	is_int(pfs_match("a%ub%u", "a1b2", NULL), -EINVAL,
	       "two %%u are not a pattern");
}

/* ---- cpulists ------------------------------------------------------------ */

static void cpulist_ok(const char *text, const char *want)
{
	struct pfs_cpus c = { 0 };
	char got[256] = "";
	size_t n = 0;
	int r = pfs_cpulist_parse(text, &c, why, sizeof(why));

	for (unsigned i = 0; i < c.n && n < sizeof(got); i++)
		n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%u",
				      i ? " " : "", c.cpu[i]);
	is_int(r, 0, "cpulist \"%s\" parses", esc(text));
	is_str(got, want, "cpulist \"%s\"", esc(text));
	pfs_cpus_free(&c);
}

static void cpulist_bad(const char *text, int err, const char *what)
{
	struct pfs_cpus c = { 0 };

	why[0] = '\0';
	is_int(pfs_cpulist_parse(text, &c, why, sizeof(why)), -err,
	       "cpulist \"%s\" refused", esc(text));
	like(why, what, "cpulist \"%s\": says %s", esc(text), what);
	pfs_cpus_free(&c);
}

static void test_cpulist(void)
{
	cpulist_ok("0", "0");
	cpulist_ok("0,28", "0 28");
	cpulist_ok("0-3,8-11", "0 1 2 3 8 9 10 11");
	cpulist_ok("0-3,8-11\n", "0 1 2 3 8 9 10 11");
	cpulist_ok("", "");
	cpulist_ok("\n", "");
	cpulist_ok("3,1-2", "1 2 3");
	cpulist_ok("1,1,0-1", "0 1");
	cpulist_ok("65535", "65535");
	cpulist_bad("0-", EINVAL, "not a CPU number");
	cpulist_bad("-1", EINVAL, "not a CPU number");
	cpulist_bad("3-1", EINVAL, "backwards");
	cpulist_bad("a", EINVAL, "not a CPU number");
	cpulist_bad("0,", EINVAL, "ends with a comma");
	cpulist_bad(",0", EINVAL, "not a CPU number");
	cpulist_bad("0 1", EINVAL, "not a CPU number");
	cpulist_bad("0-31:4/8", EINVAL, "not a CPU number");
	cpulist_bad("65536", ERANGE, "beyond");
	cpulist_bad("0-99999999999999999999", EINVAL, "not a CPU number");
}

/* ---- loading PMUs -------------------------------------------------------- */

/* An skx-like iMC PMU: uncore_snbep.c snbep_uncore_formats_attr and
 * snbep_uncore_imc_events (cas_count_read "event=0x04,umask=0x03",
 * scale 6.103515625e-5, unit MiB).  The alias files are the kernel's
 * text: no newline (uncore.c uncore_event_show, "%s"); format/ files end
 * in one (DEFINE_UNCORE_FORMAT_ATTR, fmt "\n"). */
static void make_imc(void)
{
	put(DEV "uncore_imc_0/type", "15\n");
	put(DEV "uncore_imc_0/cpumask", "0,28\n");
	put(DEV "uncore_imc_0/format/event", "config:0-7\n");
	put(DEV "uncore_imc_0/format/umask", "config:8-15\n");
	put(DEV "uncore_imc_0/format/edge", "config:18\n");
	put(DEV "uncore_imc_0/format/inv", "config:23\n");
	put(DEV "uncore_imc_0/format/thresh", "config:24-31\n");
	put(DEV "uncore_imc_0/events/clockticks", "event=0xff,umask=0x00");
	put(DEV "uncore_imc_0/events/cas_count_read", "event=0x04,umask=0x03");
	put(DEV "uncore_imc_0/events/cas_count_read.scale", "6.103515625e-5");
	put(DEV "uncore_imc_0/events/cas_count_read.unit", "MiB");
	put(DEV "uncore_imc_0/events/cas_count_read.per-pkg", "1\n");
	put(DEV "uncore_imc_0/events/bad_alias", "event=0x01,nosuch=0x1\n");
}

static struct pfs_pmu *load(const char *name)
{
	struct pfs_pmu *p = NULL;
	int r = pfs_pmu_load(root, name, &p, why, sizeof(why));

	if (r)
		printf("#   load %s: %d %s\n", name, r, why);
	return p;
}

static void test_load_imc(void)
{
	struct pfs_pmu *p = load("uncore_imc_0");
	const struct pfs_alias *a;
	const struct pfs_format *f;

	ok(p, "uncore_imc_0 loads");
	if (!p)
		return;
	is_str(p->name, "uncore_imc_0", "its name");
	is_int(p->type, 15, "type 15");
	is_str(p->cpus_file, "cpumask", "CPUs from cpumask");
	is_int(p->cpus.n, 2, "two CPUs");
	is_int(p->cpus.n == 2 ? p->cpus.cpu[1] : 0, 28, "the second is 28");
	is_int(p->nformat, 5, "five format fields");
	is_str(p->format[0].name, "edge", "fields sorted by name");
	f = pfs_field(p, "thresh");
	ok(f && f->mask == 0xff000000ull && f->word == 0, "thresh: config:24-31");
	ok(!pfs_field(p, "filter_tid"), "no filter_tid field");
	is_int(p->nalias, 3, "three aliases (.scale, .unit, .per-pkg are not)");
	a = pfs_alias(p, "cas_count_read");
	ok(a, "alias cas_count_read");
	if (a) {
		is_str(a->terms, "event=0x04,umask=0x03", "its terms");
		ok(a->has_scale && a->scale == 6.103515625e-5, "its scale");
		is_str(a->unit, "MiB", "its unit");
	}
	a = pfs_alias(p, "clockticks");
	ok(a && !a->has_scale && a->scale == 1.0 && !strcmp(a->unit, ""),
	   "clockticks: scale 1, no unit");
	ok(!pfs_alias(p, "cas_count_read.scale"), "a .scale is no alias");
	pfs_pmu_free(p);
}

/*
 * .scale texts: the kernel prints its table's string verbatim, so the
 * parser meets whatever the driver's author wrote.  Real ones:
 * "6.103515625e-5" (uncore_snbep.c, uncore_snb.c: 64 B in MiB),
 * "3.814697265625e-6" (uncore_snbep.c icx_uncore_iio_freerun_events:
 * 4 B in MiB), "2.3283064365386962890625e-10" (intel/rapl.c, with a
 * newline: perf_event_sysfs_show); and any other strtod text
 * ("6.103515625e-05", "64", "0.5E1", ".25") is read as the number it is.
 */
static void test_scale_texts(void)
{
	static const struct { const char *text; double v; } good[] = {
		{ "6.103515625e-5", 6.103515625e-5 },
		{ "6.103515625e-05", 6.103515625e-5 },
		{ "3.814697265625e-6", 3.814697265625e-6 },
		{ "2.3283064365386962890625e-10\n", 0x1p-32 },
		{ "64", 64.0 }, { "0.5E1", 5.0 }, { ".25", 0.25 },
		{ "1e0\n", 1.0 },
	};

	for (unsigned i = 0; i < sizeof(good) / sizeof(*good); i++) {
		struct pfs_pmu *p;
		const struct pfs_alias *a;

		rm_rf(DEV "sc");
		put(DEV "sc/type", "20\n");
		put(DEV "sc/format/event", "config:0-7\n");
		put(DEV "sc/events/x", "event=0x01");
		put(DEV "sc/events/x.scale", good[i].text);
		p = load("sc");
		a = p ? pfs_alias(p, "x") : NULL;
		ok(a && a->has_scale && a->scale == good[i].v,
		   "scale text \"%.*s\" reads as %g",
		   (int)strcspn(good[i].text, "\n"), good[i].text, good[i].v);
		pfs_pmu_free(p);
	}
	rm_rf(DEV "sc");
}

static void encode_is(struct pfs_pmu *p, const char *terms, uint64_t c0,
		      uint64_t c1, uint64_t c2)
{
	uint64_t cfg[3] = { 7, 7, 7 };
	int r = pfs_encode(p, terms, cfg, why, sizeof(why));

	is_int(r, 0, "%s/%s/ encodes", p->name, terms);
	if (r)
		printf("#   %s\n", why);
	ok(cfg[0] == c0 && cfg[1] == c1 && cfg[2] == c2,
	   "%s/%s/ = 0x%llx 0x%llx 0x%llx", p->name, terms,
	   (unsigned long long)c0, (unsigned long long)c1,
	   (unsigned long long)c2);
	if (cfg[0] != c0 || cfg[1] != c1 || cfg[2] != c2)
		printf("#   got 0x%llx 0x%llx 0x%llx\n",
		       (unsigned long long)cfg[0], (unsigned long long)cfg[1],
		       (unsigned long long)cfg[2]);
}

static void encode_bad(struct pfs_pmu *p, const char *terms, int err,
		       const char *what)
{
	uint64_t cfg[3] = { 7, 8, 9 };

	why[0] = '\0';
	is_int(pfs_encode(p, terms, cfg, why, sizeof(why)), err,
	       "%s/%s/ refused", p->name, esc(terms));
	like(why, what, "%s/%s/: says %s", p->name, esc(terms), what);
	printf("#   %s\n", why);
	ok(cfg[0] == 7 && cfg[1] == 8 && cfg[2] == 9, "and cfg is unchanged");
}

static void test_encode_imc(void)
{
	struct pfs_pmu *p = load("uncore_imc_0");
	uint64_t cfg[3];

	if (!ok(p, "uncore_imc_0 loads for encoding"))
		return;
	encode_is(p, pfs_alias(p, "cas_count_read")->terms, 0x0304, 0, 0);
	encode_is(p, "event=0x34,umask=0x11,edge=1,inv",
		  0x34 | 0x11 << 8 | 1 << 18 | 1ull << 23, 0, 0);
	encode_is(p, "event=52,umask=17", 0x1134, 0, 0);
	encode_is(p, " event=0x34 , umask = 0x11 ", 0x1134, 0, 0);
	encode_is(p, "thresh=0xff", 0xff000000ull, 0, 0);
	encode_is(p, "config=0x1234", 0x1234, 0, 0);
	encode_is(p, "config2=0x5", 0, 0, 5);
	encode_bad(p, "nosuch=1", -ENOENT, "no format field \"nosuch\"");
	encode_bad(p, "nosuch=1", -ENOENT, "uncore_imc_0");
	encode_bad(p, "nosuch=1", -ENOENT, "edge, event, inv, thresh, umask");
	encode_bad(p, "event=0x100", -ERANGE, "event=0x100");
	encode_bad(p, "event=0x100", -ERANGE, "8-bit field config:0-7 of PMU "
		   "uncore_imc_0");
	encode_bad(p, "edge=2", -ERANGE, "1-bit");
	encode_bad(p, "event=1,event=2", -EINVAL, "\"event\" is given twice");
	encode_bad(p, "config=1,event=2", -EINVAL, "sets config:0-7 bits an "
		   "earlier term set");
	encode_bad(p, "cas_count_read", -ENOENT, "names an event alias");
	encode_bad(p, "event=?", -EINVAL, "parameter");
	encode_bad(p, "event=0xzz", -EINVAL, "not a number");
	encode_bad(p, "event=", -EINVAL, "not a number");
	encode_bad(p, "event=-1", -EINVAL, "not a number");
	encode_bad(p, "event=0x10000000000000000", -EINVAL, "not a number");
	encode_bad(p, "", -EINVAL, "empty term");
	encode_bad(p, ",event=1", -EINVAL, "empty term");
	encode_bad(p, "event=1,", -EINVAL, "empty term");
	encode_bad(p, "=1", -EINVAL, "no name");
	encode_bad(p, "event 1", -EINVAL, "expected '='");
	/* an alias whose terms name no field loads, but does not encode */
	encode_bad(p, pfs_alias(p, "bad_alias")->terms, -ENOENT, "nosuch");

	cfg[0] = 0x1134;
	cfg[1] = cfg[2] = 0;
	is_int(pfs_set(p, "thresh", 5, cfg, why, sizeof(why)), 0, "set thresh");
	is_u64(cfg[0], 0x05001134, "thresh=5 added, the rest kept");
	is_int(pfs_set(p, "umask", 0, cfg, why, sizeof(why)), 0, "set umask 0");
	is_u64(cfg[0], 0x05000034, "umask cleared");
	is_int(pfs_set(p, "filter_tid", 1, cfg, why, sizeof(why)), -ENOENT,
	       "set of a field the PMU lacks: -ENOENT");
	like(why, "filter_tid", "naming the field");
	is_int(pfs_set(p, "edge", 2, cfg, why, sizeof(why)), -ERANGE,
	       "edge=2: -ERANGE");
	is_u64(cfg[0], 0x05000034, "cfg unchanged");
	pfs_pmu_free(p);
}

/* icx CHA (uncore_snbep.c icx_uncore_cha_formats_attr: event
 * "config:0-7", umask_ext4 "config:8-15,32-55") and amd_df on Zen 4
 * (UNCORE-PMUS.md: event "config:0-7,32-37", umask "config:8-15,24-27";
 * its example event=0x11f,umask=0x7fe). */
static void test_encode_wide(void)
{
	struct pfs_pmu *p;

	put(DEV "uncore_cha_12/type", "40\n");
	put(DEV "uncore_cha_12/cpumask", "0,56\n");
	put(DEV "uncore_cha_12/format/event", "config:0-7\n");
	put(DEV "uncore_cha_12/format/umask", "config:8-15,32-55\n");
	put(DEV "uncore_cha_12/format/filter_tid", "config1:0-8\n");
	put(DEV "amd_df/type", "11\n");
	put(DEV "amd_df/cpumask", "0,96\n");
	put(DEV "amd_df/format/event", "config:0-7,32-37\n");
	put(DEV "amd_df/format/umask", "config:8-15,24-27\n");

	p = load("uncore_cha_12");
	if (ok(p, "uncore_cha_12 loads")) {
		encode_is(p, "event=0x35,umask=0xc817fe", 0x35 | 0xfe00 |
			  0xc817ull << 32, 0, 0);
		encode_is(p, "event=0x35,umask=0x1,filter_tid=0x1ff", 0x135,
			  0x1ff, 0);
		encode_bad(p, "umask=0x100000000", -ERANGE, "32-bit");
		pfs_pmu_free(p);
	}
	p = load("amd_df");
	if (ok(p, "amd_df loads")) {
		encode_is(p, "event=0x11f,umask=0x7fe", 0x1f | 0xfe << 8 |
			  0x7 << 24 | 0x1ull << 32, 0, 0);
		encode_bad(p, "event=0x4000", -ERANGE, "14-bit");
		pfs_pmu_free(p);
	}
}

static void test_load_variants(void)
{
	struct pfs_pmu *p;

	/* a hybrid core PMU names its CPUs in cpus, not cpumask */
	put(DEV "cpu_core/type", "4\n");
	put(DEV "cpu_core/cpus", "0-15\n");
	put(DEV "software/type", "1\n");
	p = load("cpu_core");
	ok(p && p->cpus_file && !strcmp(p->cpus_file, "cpus") &&
	   p->cpus.n == 16, "cpu_core: 16 CPUs from cpus");
	pfs_pmu_free(p);
	p = load("software");
	ok(p && p->type == 1 && !p->cpus_file && !p->cpus.n && !p->nformat &&
	   !p->nalias, "software: type only, any CPU, no fields or aliases");
	if (p) {
		uint64_t cfg[3];

		is_int(pfs_encode(p, "event=1", cfg, why, sizeof(why)), -ENOENT,
		       "software has no event field");
		like(why, "(its fields: none)", "says it has none");
	}
	pfs_pmu_free(p);
}

/* A PMU "bad" with only a type file. */
static void reset_bad(void)
{
	rm_rf(DEV "bad");
	put(DEV "bad/type", "7\n");
}

/* Writes len bytes of text to rel, then loading PMU "bad" must fail with
 * err, why naming rel's file and what. */
static void load_bad_n(const char *rel, const char *text, size_t len,
		       int err, const char *what)
{
	struct pfs_pmu *p = (struct pfs_pmu *)1;
	const char *name = rel + strlen(DEV);

	put_n(rel, text, len);
	why[0] = '\0';
	is_int(pfs_pmu_load(root, "bad", &p, why, sizeof(why)), err,
	       "%s = \"%s\": refused", name, esc(text));
	printf("#   %s\n", why);
	ok(!p, "no PMU returned");
	like(why, name, "names %s", name);
	like(why, what, "says %s", what);
	reset_bad();
}

static void load_bad(const char *rel, const char *text, int err,
		     const char *what)
{
	load_bad_n(rel, text, strlen(text), err, what);
}

static void test_load_malformed(void)
{
	struct pfs_pmu *p = (struct pfs_pmu *)1;
	char big[5000];

	is_int(pfs_pmu_load(root, "nosuch", &p, why, sizeof(why)), -ENOENT,
	       "a missing PMU: -ENOENT");
	like(why, "no perf PMU nosuch under", "says so");
	ok(!p, "no PMU returned");
	is_int(pfs_pmu_load(root, "../x", &p, why, sizeof(why)), -EINVAL,
	       "\"../x\" is no PMU name");
	rm_rf(DEV "bad");
	put(DEV "bad/cpumask", "0\n");
	is_int(pfs_pmu_load(root, "bad", &p, why, sizeof(why)), -EINVAL,
	       "a PMU without type: -EINVAL");
	like(why, "bad/type: missing", "says the type file is missing");
	reset_bad();
	load_bad(DEV "bad/type", "abc\n", -EINVAL, "not a perf type number");
	load_bad(DEV "bad/type", "4294967296\n", -EINVAL, "not a perf type");
	load_bad(DEV "bad/type", "-1\n", -EINVAL, "not a perf type");
	load_bad(DEV "bad/cpumask", "0-\n", -EINVAL, "not a CPU number");
	load_bad(DEV "bad/cpus", "1-0\n", -EINVAL, "backwards");
	load_bad(DEV "bad/format/umask", "config:0-7,4-9\n", -EINVAL,
		 "overlap");
	load_bad(DEV "bad/format/event", "config5:0-7\n", -EINVAL,
		 "not a config word");
	memset(big, '1', sizeof(big));
	load_bad_n(DEV "bad/format/event", big, sizeof(big), -EFBIG,
		   "longer than 4096");
	load_bad_n(DEV "bad/format/event", "config:0\0-7", 11, -EINVAL,
		   "NUL byte");
	load_bad(DEV "bad/events/x", "event=0x04,,umask=1\n", -EINVAL,
		 "empty term");
	load_bad(DEV "bad/events/x", "event=0xq\n", -EINVAL, "not a number");
	/* the position of the bad term in the kernel's text, counted from
	 * byte 0 (spr_uncore_imc_events' cas_count_read, broken) */
	load_bad(DEV "bad/events/cas", "event=0x05,umask=0xcg", -EINVAL,
		 "term 2 at byte 11: term \"umask=0xcg\"");
	load_bad(DEV "bad/events/cas", "event=0x05,,umask=0xcf", -EINVAL,
		 "term 2 at byte 11: an empty term");
	load_bad(DEV "bad/events/cas", "event=0x05, umask 0xcf", -EINVAL,
		 "term 2 at byte 12: term \"umask 0xcf\": expected '='");
	load_bad(DEV "bad/events/cas", "=0x05", -EINVAL,
		 "term 1 at byte 0: term \"=0x05\" has no name");
	/* issue 39 §8: octal to strtoull(, 0), decimal here: neither */
	load_bad(DEV "bad/events/cas", "event=0x05,umask=0360", -EINVAL,
		 "\"0360\" has a leading zero");
	static const char *const scales[] = { "abc\n", "-1\n", "nan\n", "inf\n",
					      "0\n", "1e-3 \n", " 1\n", "" };
	for (unsigned i = 0; i < sizeof(scales) / sizeof(*scales); i++) {
		put(DEV "bad/events/x", "event=1\n");
		load_bad(DEV "bad/events/x.scale", scales[i], -EINVAL,
			 "not a positive finite number");
	}
	load_bad(DEV "bad/events/y.unit", "MiB\n", -EINVAL,
		 "no event \"y\" it belongs to");
	put(DEV "bad/events/x", "event=1\n");
	load_bad(DEV "bad/events/x.unit", "Mi\tB\n", -EINVAL, "non-printable");
	put(DEV "bad/events/x", "event=1\n");
	load_bad(DEV "bad/events/x.unit", "\n", -EINVAL, "a unit of 1 to");
	rm_rf(DEV "bad");
}

/* pfs_pmu_load(root, "bad") in a child (tests/bounded.h). */
static int load_child(const void *ctx, char *msg, size_t len)
{
	struct pfs_pmu *p = NULL;
	int r = pfs_pmu_load(root, ctx, &p, msg, len);

	pfs_pmu_free(p);
	return r;
}

/*
 * Issue 39 §7: a FIFO in place of type, cpumask, a format/ file, an
 * events/ alias or its .scale blocked the load (and the daemon, before
 * it served /healthz) for ever; a link to /dev/zero was read.  Each is
 * refused at once, named.
 */
static void test_load_hostile(void)
{
	static const char *const fifos[] = {
		"bad/type", "bad/cpumask", "bad/format/event", "bad/events/x",
		"bad/events/x.scale",
	};
	char path[512], msg[1024];
	int r;

	for (unsigned i = 0; i < sizeof(fifos) / sizeof(*fifos); i++) {
		rm_rf(DEV "bad");
		put(DEV "bad/type", "7\n");
		put(DEV "bad/format/event", "config:0-7\n");
		put(DEV "bad/events/x", "event=1\n");
		snprintf(path, sizeof(path), "%s/" DEV "%s", root, fifos[i]);
		unlink(path);
		if (mkfifo(path, 0644) < 0) {
			perror(path);
			exit(2);
		}
		r = bounded_call(load_child, "bad", msg, sizeof(msg), 5);
		is_int(r, -EINVAL, "a FIFO as %s: refused at once", fifos[i]);
		like(msg, fifos[i], "named (%s)", msg);
		like(msg, "not a regular file (a FIFO)", "says what it is");
	}
	rm_rf(DEV "bad");
	put(DEV "bad/type", "7\n");
	put(DEV "bad/format/event", "config:0-7\n");
	put(DEV "bad/events/x", "event=1\n");
	snprintf(path, sizeof(path), "%s/" DEV "bad/events/x", root);
	unlink(path);
	if (symlink("/dev/zero", path) < 0) {
		perror(path);
		exit(2);
	}
	r = bounded_call(load_child, "bad", msg, sizeof(msg), 5);
	is_int(r, -ELOOP, "events/x a link to /dev/zero: refused");
	like(msg, "bad/events/x: a symbolic link, not followed", "named (%s)",
	     msg);
	rm_rf(DEV "bad");
}

static int count_cb(void *ctx, const char *name)
{
	char *seen = ctx;

	strcat(seen, name);
	strcat(seen, " ");
	return strcmp(name, "stop") ? 0 : 42;
}

static void test_list(void)
{
	char seen[512] = "", path[300], target[300];
	int r;

	/* real sysfs links each PMU to its device directory */
	snprintf(target, sizeof(target), "%s/devices/msr", root);
	put("devices/msr/type", "9\n");
	put("devices/msr/format/event", "config:0-63\n");
	put("devices/msr/events/tsc", "event=0x00\n");
	snprintf(path, sizeof(path), "%s/" DEV "msr", root);
	if (symlink(target, path))
		perror(path);
	r = pfs_list(root, count_cb, seen, why, sizeof(why));
	is_int(r, 0, "pfs_list: 0");
	is_str(seen, "amd_df cpu_core msr software uncore_cha_12 uncore_imc_0 ",
	       "every PMU, linked ones too, in name order");
	{
		struct pfs_pmu *p = load("msr");

		ok(p && p->type == 9 && pfs_alias(p, "tsc"),
		   "a linked PMU loads");
		pfs_pmu_free(p);
	}
	put(DEV "stop/type", "3\n");
	seen[0] = '\0';
	is_int(pfs_list(root, count_cb, seen, why, sizeof(why)), 42,
	       "a callback's non-zero return stops the walk and is returned");
	is_str(seen, "amd_df cpu_core msr software stop ", "stopped there");
	is_int(pfs_list("/nonexistent-uncored", count_cb, seen, why,
			sizeof(why)), -ENOENT, "no devices directory: -ENOENT");
	like(why, "/nonexistent-uncored/bus/event_source/devices",
	     "naming the directory");
}

/* ---- CPU topology -------------------------------------------------------- */

static void topo_is(unsigned cpu, int err, unsigned pkg, unsigned die,
		    const char *what)
{
	unsigned p = 77, d = 77;
	int r = pfs_cpu_topology(root, cpu, &p, &d, why, sizeof(why));

	is_int(r, err, "cpu %u: %d", cpu, err);
	if (!err)
		ok(p == pkg && d == die, "cpu %u: package %u die %u", cpu, pkg,
		   die);
	else
		like(why, what, "cpu %u: says %s", cpu, what);
}

static void test_topology(void)
{
	put("devices/system/cpu/online", "0-2,4\n");
	put("devices/system/cpu/cpu0/topology/physical_package_id", "0\n");
	put("devices/system/cpu/cpu0/topology/die_id", "0\n");
	put("devices/system/cpu/cpu1/topology/physical_package_id", "1\n");
	put("devices/system/cpu/cpu2/topology/physical_package_id", "1\n");
	put("devices/system/cpu/cpu2/topology/die_id", "1\n");
	put("devices/system/cpu/cpu3/topology/physical_package_id", "0\n");
	put("devices/system/cpu/cpu4/topology/physical_package_id", "-1\n");
	topo_is(0, 0, 0, 0, "");
	topo_is(1, 0, 1, 0, "");	/* no die_id: die 0 */
	topo_is(2, 0, 1, 1, "");
	topo_is(3, -ENODEV, 0, 0, "CPU 3 is offline");
	topo_is(4, -EINVAL, 0, 0, "physical_package_id");
	topo_is(9, -ENOENT, 0, 0, "no CPU 9");
	/* without the system-wide list, cpuN/online says */
	rm_rf("devices/system/cpu/online");
	put("devices/system/cpu/cpu3/online", "0\n");
	put("devices/system/cpu/cpu1/online", "1\n");
	put("devices/system/cpu/cpu2/online", "2\n");
	topo_is(3, -ENODEV, 0, 0, "offline");
	topo_is(1, 0, 1, 0, "");
	topo_is(2, -EINVAL, 0, 0, "neither 0 nor 1");
	topo_is(0, 0, 0, 0, "");	/* no online file: cannot go offline */
	put("devices/system/cpu/online", "0-\n");
	topo_is(0, -EINVAL, 0, 0, "devices/system/cpu/online");
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/test_perf_sysfs.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 2;
	}
	test_format_grammar();
	test_format_put();
	test_match();
	test_cpulist();
	make_imc();
	test_load_imc();
	test_scale_texts();
	test_encode_imc();
	test_encode_wide();
	test_load_variants();
	test_load_malformed();
	test_load_hostile();
	test_list();
	test_topology();
	rm_rf("");
	return tap_done();
}
