/*
 * fuzz_perf_format.c - libFuzzer target: the perf sysfs parsers
 * (src/hw/perf_sysfs.c).  The first byte picks one, the rest is the text
 * a kernel file would hold:
 *   'f' a format/ field ("config:8-15,32-55"): on success the field is
 *       non-empty and a value put through it reads back, the word's
 *       other bits untouched;
 *   'c' a cpulist ("0-3,8-11"): on success strictly ascending CPUs below
 *       PFS_MAX_CPUS;
 *   anything else: event terms ("event=0x34,umask=0x11,inv") encoded
 *       against an icx-CHA-like PMU: on success only the PMU's field bits
 *       are set and a second encoding gives the same words.
 * On failure the message must be one non-empty line.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/perf_sysfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pfs_pmu pmu;
static uint64_t field_bits[3];

/* format/ of icx's CHA (arch/x86/events/intel/uncore_snbep.c), sorted */
static const char *const fields[][2] = {
	{ "edge", "config:18" }, { "event", "config:0-7,21" },
	{ "filter_tid", "config1:0-8" }, { "inv", "config:23" },
	{ "thresh", "config:24-31" }, { "umask", "config:8-15,32-55" },
};

static void setup(void)
{
	static struct pfs_format f[6];
	static struct pfs_alias a[1] = { { .name = (char *)"clockticks",
					   .terms = (char *)"event=0x0",
					   .scale = 1.0, .unit = (char *)"" } };
	char why[256];

	for (unsigned i = 0; i < 6; i++) {
		if (pfs_format_parse(fields[i][1], &f[i], why, sizeof(why)))
			abort();
		f[i].name = (char *)fields[i][0];
		field_bits[f[i].word] |= f[i].mask;
	}
	pmu = (struct pfs_pmu){ .name = (char *)"uncore_cha_0", .type = 40,
				.format = f, .nformat = 6, .alias = a,
				.nalias = 1 };
}

static void check_why(int r, const char *why)
{
	if (r >= 0)
		return;
	if (!why[0])
		abort();
	for (const char *c = why; *c; c++)
		if ((unsigned char)*c < 0x20)
			abort();
}

static void fuzz_format(const char *s, uint64_t seed)
{
	struct pfs_format f = { 0 };
	char why[256] = "";
	uint64_t w = ~seed, v;
	int r = pfs_format_parse(s, &f, why, sizeof(why));

	check_why(r, why);
	if (r)
		return;
	if (!f.mask || f.word > 2 || f.width != (unsigned)__builtin_popcountll(f.mask))
		abort();
	v = f.width == 64 ? seed : seed & ((1ull << f.width) - 1);
	if (pfs_format_put(&f, v, &w) || pfs_format_get(&f, w) != v ||
	    (w & ~f.mask) != (~seed & ~f.mask))
		abort();
	if (f.width < 64 && pfs_format_put(&f, 1ull << f.width, &w) == 0)
		abort();
}

static void fuzz_cpulist(const char *s)
{
	struct pfs_cpus c = { 0 };
	char why[256] = "";
	int r = pfs_cpulist_parse(s, &c, why, sizeof(why));

	check_why(r, why);
	for (unsigned i = 0; !r && i < c.n; i++)
		if (c.cpu[i] >= PFS_MAX_CPUS || (i && c.cpu[i] <= c.cpu[i - 1]))
			abort();
	pfs_cpus_free(&c);
}

static void fuzz_terms(const char *s)
{
	uint64_t a[3] = { 1, 2, 3 }, b[3];
	char why[512] = "";
	int r = pfs_encode(&pmu, s, a, why, sizeof(why));

	check_why(r, why);
	if (r) {
		if (a[0] != 1 || a[1] != 2 || a[2] != 3)
			abort();	/* cfg changed by a failed encoding */
		return;
	}
	/* raw config= terms may set any bit of config */
	if (!strstr(s, "config") && ((a[0] & ~field_bits[0]) ||
				     (a[1] & ~field_bits[1]) || a[2]))
		abort();
	if (pfs_encode(&pmu, s, b, why, sizeof(why)) || memcmp(a, b, sizeof(a)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	char *s;

	if (!ready) {
		setup();
		ready = 1;
	}
	if (size < 1 || size > 8192)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	for (size_t i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 0x100000001b3ull;
	if (data[0] == 'f')
		fuzz_format(s, seed);
	else if (data[0] == 'c')
		fuzz_cpulist(s);
	else
		fuzz_terms(s);
	free(s);
	return 0;
}
