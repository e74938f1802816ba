/*
 * test_plat_generic.c - platform "generic" (src/plat/plat_generic.c) built
 * from sysfs trees written here as the kernel writes them: alias files
 * without a newline (uncore.c uncore_event_show), format files with one.
 *
 *  - a Granite Rapids-like kernel: uncore_imc_0/1 with
 *    gnr_uncore_imc_events (uncore_snbep.c: clockticks, the _sch0/_sch1
 *    CAS halves, scale 6.103515625e-5 MiB), uncore_cha_0..2 with a
 *    clockticks alias, an alias with a parameter ("=?"), and a PMU whose
 *    format has no event field;
 *  - a kernel with no uncore PMU (only "cpu", "msr").
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plat/plat_generic.h"
#include "tests/tap.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s", root,
		 rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd) != 0)
		exit(2);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static void imc(unsigned box)
{
	static const char *const al[][2] = {
		{ "clockticks", "event=0x01,umask=0x00" },
		{ "cas_count_read_sch0", "event=0x05,umask=0xcf" },
		{ "cas_count_read_sch1", "event=0x06,umask=0xcf" },
		{ "cas_count_write_sch0", "event=0x05,umask=0xf0" },
		{ "cas_count_write_sch1", "event=0x06,umask=0xf0" },
	};
	char p[96];

	snprintf(p, sizeof(p), "uncore_imc_%u/type", box);
	put(p, box ? "21\n" : "20\n");
	snprintf(p, sizeof(p), "uncore_imc_%u/cpumask", box);
	put(p, "0,8\n");
	snprintf(p, sizeof(p), "uncore_imc_%u/format/event", box);
	put(p, "config:0-7\n");
	snprintf(p, sizeof(p), "uncore_imc_%u/format/umask", box);
	put(p, "config:8-15\n");
	for (size_t i = 0; i < sizeof(al) / sizeof(*al); i++) {
		snprintf(p, sizeof(p), "uncore_imc_%u/events/%s", box, al[i][0]);
		put(p, al[i][1]);
		if (i == 0)
			continue;
		snprintf(p, sizeof(p), "uncore_imc_%u/events/%s.scale", box,
			 al[i][0]);
		put(p, "6.103515625e-5");
		snprintf(p, sizeof(p), "uncore_imc_%u/events/%s.unit", box,
			 al[i][0]);
		put(p, "MiB");
	}
}

static const struct event *ev(const struct platform *p, const char *name)
{
	return plat_event(p, name);
}

static void test_gnr_like(void)
{
	const struct platform *p = NULL;
	const struct gen_family *f;
	const struct event *e;
	char why[1024] = "";
	int r;

	imc(0);
	imc(1);
	for (unsigned c = 0; c < 3; c++) {
		char q[64];

		snprintf(q, sizeof(q), "uncore_cha_%u/type", c);
		put(q, "30\n");
		snprintf(q, sizeof(q), "uncore_cha_%u/cpumask", c);
		put(q, "0,8\n");
		snprintf(q, sizeof(q), "uncore_cha_%u/format/event", c);
		put(q, "config:0-7\n");
		snprintf(q, sizeof(q), "uncore_cha_%u/format/umask", c);
		put(q, "config:8-15,32-55\n");
		snprintf(q, sizeof(q), "uncore_cha_%u/format/thresh", c);
		put(q, "config:24-31\n");
		snprintf(q, sizeof(q), "uncore_cha_%u/events/clockticks", c);
		put(q, "event=0x01,umask=0x00");
		snprintf(q, sizeof(q), "uncore_cha_%u/events/tor_param", c);
		put(q, "event=0x35,umask=?");
	}
	put("uncore_iio_free_running_0/type", "40\n");
	put("uncore_iio_free_running_0/format/event", "config:0-7\n");
	put("uncore_odd/type", "41\n");
	put("uncore_odd/format/opcode", "config:0-7\n");
	put("uncore_odd/events/x", "opcode=0x1");
	put("cpu/type", "4\n");

	r = plat_generic_build(root, "GenuineIntel", &p, why, sizeof(why));
	is_int(r, 0, "a kernel with uncore PMUs and no table: built (%s)", why);
	if (!p)
		return;
	ok(plat_is_generic(p), "it is platform generic");
	is_str(p->id, "generic", "id");
	ok(p->backends == PLAT_BE_PERF, "perf backend only");
	is_int(plat_nunits(p), 2, "units: cha, imc (iio_free_running has no "
	       "named counter, uncore_odd no event field)");
	like(plat_generic_notes(p), "uncore_odd is not served: its format/ "
	     "has no event field", "the left-out PMU is named, with why");
	like(plat_generic_notes(p), "uncore_iio_free_running_%u is not served",
	     "and the free-running PMU without events");
	like(plat_generic_notes(p), "uncore_cha/tor_param (\"event=0x35,umask=?\")"
	     " is not served", "and the alias with a parameter");
	ok(!plat_generic_pmu_name("cpu") && plat_generic_pmu_name("amd_umc_3")
	   && plat_generic_pmu_name("amd_df") && !plat_generic_pmu_name("amd_iommu_0"),
	   "which PMUs are uncore PMUs");

	e = ev(p, "uncore_imc/cas_count_read_sch1");
	ok(e && e->code == 0x06 && e->umask == 0xcf && !e->perf_terms &&
	   !strcmp(e->unit, "imc"), "cas_count_read_sch1: event 0x06 umask 0xcf "
	   "on unit imc");
	like(e ? e->desc : "", "scales a count by 6.103515625e-5 MiB",
	     "its description carries the kernel's scale text");
	e = ev(p, "uncore_cha/clockticks");
	ok(e && e->code == 0x01 && e->umask == 0 && e->ctr_mask == 0x3,
	   "uncore_cha/clockticks, two counters");
	ok(!ev(p, "uncore_cha/tor_param"), "no event for the parameter alias");
	is_int((int)p->nevents, 6, "six events: five iMC aliases, one CHA");

	f = plat_generic_families(p);
	ok(f && f[0].present, "DRAM reads present");
	is_str(f ? f[0].text : "", "uncore_imc_%u/cas_count_read_sch0 + "
	       "cas_count_read_sch1 (x 64 B, x 64 B: .scale 6.103515625e-5 MiB), "
	       "summed over the boxes", "from the two sub-channel halves");
	ok(f && f[1].present, "DRAM writes present");
	ok(f && f[2].present, "the clock present");
	is_str(f ? f[2].text : "", "uncore_cha_%u/clockticks, the mean over "
	       "the boxes", "from the CHAs' clockticks, not the iMC's");
	/* the derived table: both halves summed (same source name), 64 B each */
	is_int((int)p->derived->nsrc, 5, "five sources: 2 + 2 halves, clock");
	ok(!strcmp(p->derived->src[0].name, "dram_rd") &&
	   !strcmp(p->derived->src[1].name, "dram_rd") &&
	   p->derived->src[0].scale == 64 && p->derived->src[1].scale == 64 &&
	   !strcmp(p->derived->src[1].event, "uncore_imc/cas_count_read_sch1"),
	   "dram_rd = sch0 x 64 + sch1 x 64");
	ok(p->derived->src[4].mean && !strcmp(p->derived->src[4].event,
					      "uncore_cha/clockticks"),
	   "clock: the mean over the CHAs");
	is_str(p->baseline[0], "uncore_imc/cas_count_read_sch0", "baseline");
	ok(p->baseline[5] == NULL, "five baseline events");
	like(p->derived->m[0].help, "cas_count_read_sch0", "the family's HELP "
	     "names its kernel events");
	plat_generic_free(p);
	ok(!plat_is_generic(&plat_spr), "spr is not generic");
	ok(plat_generic_families(&plat_spr) == NULL, "and has no families");
}

/* Only cas_count_read, without .scale: DRAM reads absent (no bytes). */
static void test_partial(void)
{
	const struct platform *p = NULL;
	const struct gen_family *f;
	char why[1024] = "", cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/bus'", root);
	if (system(cmd) != 0)
		exit(2);
	put("uncore_imc_0/type", "20\n");
	put("uncore_imc_0/format/event", "config:0-7\n");
	put("uncore_imc_0/format/umask", "config:8-15\n");
	put("uncore_imc_0/events/cas_count_read", "event=0x04,umask=0x03");
	put("uncore_imc_0/events/cas_count_write", "event=0x04,umask=0x0c");
	put("uncore_imc_0/events/cas_count_write.scale", "6.103515625e-5");
	put("uncore_imc_0/events/cas_count_write.unit", "MiB");
	is_int(plat_generic_build(root, NULL, &p, why, sizeof(why)), 0,
	       "a partial kernel: built");
	if (!p)
		return;
	f = plat_generic_families(p);
	ok(!f[0].present, "DRAM reads absent: cas_count_read has no .scale");
	like(f[0].text, "the kernel names none of cas_count_read, "
	     "cas_count_read_sch0 + cas_count_read_sch1 on uncore_imc_N, nor "
	     "data_read", "the reason names what was looked for");
	ok(f[1].present, "DRAM writes present");
	ok(!f[2].present, "no clock");
	like(f[2].text, "no clockticks on uncore_clock", "with the reason");
	is_int((int)p->derived->nm, 2, "two metrics: write bytes and its "
	       "bandwidth direction");
	ok(plat_event(p, "uncore_imc/cas_count_read") != NULL,
	   "cas_count_read is still claimable by name");
	plat_generic_free(p);
}

/* More PMU types than PLAT_MAX_UNITS (a Granite Rapids kernel has about
 * twenty: uncore_b2cmi, _b2cxl, _b2hot, _b2upi, ...), the ones with
 * named events late in sysfs order: those are kept, format-only ones
 * left out and named. */
static void test_many_types(void)
{
	const struct platform *p = NULL;
	char why[1024] = "", cmd[200], q[96];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/bus'", root);
	if (system(cmd) != 0)
		exit(2);
	for (unsigned t = 0; t < 20; t++) {
		snprintf(q, sizeof(q), "uncore_a%02u_0/type", t);
		put(q, "50\n");
		snprintf(q, sizeof(q), "uncore_a%02u_0/format/event", t);
		put(q, "config:0-7\n");
	}
	imc(0);
	put("uncore_ubox/type", "60\n");
	put("uncore_ubox/format/event", "config:0-7\n");
	put("uncore_ubox/events/clockticks", "event=0xff");
	is_int(plat_generic_build(root, NULL, &p, why, sizeof(why)), 0,
	       "22 PMU types: built");
	if (!p)
		return;
	is_int(plat_nunits(p), PLAT_MAX_UNITS, "PLAT_MAX_UNITS units");
	ok(plat_unit(p, "imc", NULL) && plat_unit(p, "ubox", NULL),
	   "the types with named events are among them");
	ok(plat_generic_families(p)[0].present &&
	   plat_generic_families(p)[2].present, "DRAM and the clock present");
	like(plat_generic_notes(p), "uncore_a14_%u is not served: more than 16 "
	     "PMU types (it names no event)", "a format-only type is left out, "
	     "named");
	is_str(plat_generic_unit_pmu(p, 0), "uncore_a00_%u",
	       "units keep sysfs order");
	plat_generic_free(p);
}

static void test_none(void)
{
	const struct platform *p = (const struct platform *)1;
	char why[1024] = "", cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/bus'", root);
	if (system(cmd) != 0)
		exit(2);
	put("cpu/type", "4\n");
	put("msr/type", "9\n");
	is_int(plat_generic_build(root, NULL, &p, why, sizeof(why)), -ENOENT,
	       "no uncore PMU: -ENOENT");
	ok(p == NULL, "nothing returned");
	like(why, "no uncore PMU the generic platform can serve", "says so");
}

/*
 * Issue 39 §8: an alias with a term given twice, or a value with a
 * leading zero, was taken by the first (or last) value or as octal:
 * "event=0x05,umask=0xcf,event=0x06" counted event 0x06 (DRAM read 0
 * B/s), a duplicate umask made writes read reads, "umask=0360" was
 * 0xf0.  Each is refused, the file named, the family absent.
 */
static void test_bad_terms(void)
{
	const struct platform *p = NULL;
	const struct gen_family *f;
	char why[1024] = "", cmd[200];
	const char *n;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/bus'", root);
	if (system(cmd) != 0)
		exit(2);
	put("uncore_imc_0/type", "20\n");
	put("uncore_imc_0/format/event", "config:0-7\n");
	put("uncore_imc_0/format/umask", "config:8-15\n");
	put("uncore_imc_0/events/cas_count_read", "event=0x05,umask=0xcf,event=0x06");
	put("uncore_imc_0/events/cas_count_read.scale", "6.103515625e-5");
	put("uncore_imc_0/events/cas_count_read.unit", "MiB");
	put("uncore_imc_0/events/cas_count_write", "event=0x05,umask=0xf0,umask=0xcf");
	put("uncore_imc_0/events/cas_count_write.scale", "6.103515625e-5");
	put("uncore_imc_0/events/cas_count_write.unit", "MiB");
	put("uncore_imc_0/events/good", "event=0x05,umask=240");
	/* a leading zero breaks the kernel's grammar: the PMU is refused */
	put("uncore_m2m_0/type", "22\n");
	put("uncore_m2m_0/format/event", "config:0-7\n");
	put("uncore_m2m_0/format/umask", "config:8-15\n");
	put("uncore_m2m_0/events/octal", "event=0x05,umask=0360");
	is_int(plat_generic_build(root, NULL, &p, why, sizeof(why)), 0,
	       "an iMC with malformed aliases: built (%s)", why);
	if (!p)
		return;
	n = plat_generic_notes(p);
	printf("#   %s\n", n);
	ok(!plat_event(p, "uncore_imc/cas_count_read"), "a duplicate event "
	   "term: not an event");
	like(n, "uncore_imc_0/events/cas_count_read: term \"event\" is given "
	     "twice", "the note names the file and the term");
	ok(!plat_event(p, "uncore_imc/cas_count_write"), "a duplicate umask: "
	   "not an event");
	like(n, "uncore_imc_0/events/cas_count_write: term \"umask\" is given "
	     "twice", "named");
	ok(!plat_unit(p, "m2m", NULL), "umask=0360: its PMU is not served");
	like(n, "uncore_m2m_0/events/octal: term 2 at byte 11: term "
	     "\"umask=0360\": \"0360\" has a leading zero", "named");
	ok(plat_event(p, "uncore_imc/good") &&
	   plat_event(p, "uncore_imc/good")->umask == 240, "umask=240 is "
	   "decimal 240");
	f = plat_generic_families(p);
	ok(!f[0].present && !f[1].present, "no DRAM family from them");
	plat_generic_free(p);
}

int main(void)
{
	char cmd[128];

	snprintf(root, sizeof(root), "/tmp/test_plat_generic.XXXXXX");
	if (!mkdtemp(root))
		return 2;
	test_gnr_like();
	test_partial();
	test_many_types();
	test_none();
	test_bad_terms();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		return 2;
	return tap_done();
}
