/*
 * rapl.c - RAPL energy counters as data and their 32-bit arithmetic
 * (rapl.h; sources there and in doc/hardware-notes.md "RAPL energy
 * counters").
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "plat/plat.h"
#include "plat/rapl.h"

/*
 * Linux arch/x86/events/rapl.c (torvalds/linux 0b119045b79a):
 * model_snbep (SANDYBRIDGE_X, IVYBRIDGE_X): PKG, RAM;
 * model_hsx (HASWELL_X, BROADWELL_X, SKYLAKE_X, ICELAKE_X): PKG, RAM with
 *   RAPL_UNIT_QUIRK_INTEL_HSW: rapl_pkg_hw_unit[PERF_RAPL_RAM] = 16, "DRAM
 *   domain on HSW server and KNL has fixed energy unit which can be
 *   different than the unit from power unit MSR" (Xeon E5 v3 datasheet
 *   vol. 2, 330784-001);
 * model_skl (SKYLAKE, ALDERLAKE, METEORLAKE ...): PKG, RAM, PSYS (the
 *   kernel keeps the MSRs that read; so does uncored);
 * model_spr (SAPPHIRERAPIDS_X, EMERALDRAPIDS_X): PKG, RAM, PSYS with
 *   RAPL_UNIT_QUIRK_INTEL_SPR: rapl_pkg_hw_unit[PERF_RAPL_PSYS] = 0;
 * model_amd_hygon: PKG at MSR_AMD_PKG_ENERGY_STATUS with
 *   MSR_AMD_RAPL_POWER_UNIT.
 * Granite Rapids is not in that table: no facts, no energy on direct.
 */
#define M RAPL_UNIT_MSR
static const struct rapl_facts snbep = {
	RAPL_MSR_POWER_UNIT, { RAPL_MSR_PKG, RAPL_MSR_DRAM, 0 }, { M, M, M }, 16
};
static const struct rapl_facts hsx = {
	RAPL_MSR_POWER_UNIT, { RAPL_MSR_PKG, RAPL_MSR_DRAM, 0 }, { M, 16, M }, 14
};
static const struct rapl_facts client = {
	RAPL_MSR_POWER_UNIT, { RAPL_MSR_PKG, RAPL_MSR_DRAM, RAPL_MSR_PSYS },
	{ M, M, M }, 16
};
static const struct rapl_facts spr = {
	RAPL_MSR_POWER_UNIT, { RAPL_MSR_PKG, RAPL_MSR_DRAM, RAPL_MSR_PSYS },
	{ M, M, 0 }, 14
};
static const struct rapl_facts amd = {
	RAPL_MSR_AMD_POWER_UNIT, { RAPL_MSR_AMD_PKG, 0, 0 }, { M, M, M }, 16
};
#undef M

static const struct {
	const char *id;
	const struct rapl_facts *f;
} by_id[] = {
	{ "snbep", &snbep }, { "hsx", &hsx }, { "skx", &hsx }, { "icx", &hsx },
	{ "spr", &spr }, { "skl", &client }, { "adl", &client },
	{ "mtl", &client }, { "zen3", &amd }, { "zen4", &amd },
	{ "zen5", &amd },
};

const struct rapl_facts *rapl_facts_of(const struct platform *p)
{
	if (!p || !p->id)
		return NULL;
	for (size_t i = 0; i < sizeof(by_id) / sizeof(by_id[0]); i++)
		if (strcmp(by_id[i].id, p->id) == 0)
			return by_id[i].f;
	return NULL;
}

const char *rapl_dom_label(enum rapl_dom d)
{
	static const char *const l[RAPL_NDOM] = { "package", "dram", "psys" };

	return (unsigned)d < RAPL_NDOM ? l[d] : "?";
}

const char *rapl_perf_event(enum rapl_dom d)
{
	static const char *const e[RAPL_NDOM] = { "energy-pkg", "energy-ram",
						  "energy-psys" };

	return (unsigned)d < RAPL_NDOM ? e[d] : "?";
}

unsigned rapl_esu(uint64_t unit_msr_val)
{
	return (unsigned)(unit_msr_val >> 8) & 0x1fu;
}

double rapl_unit_j(const struct rapl_facts *f, enum rapl_dom d,
		   uint64_t unit_msr_val)
{
	int n = f && (unsigned)d < RAPL_NDOM && f->fixed[d] != RAPL_UNIT_MSR
		? f->fixed[d] : (int)rapl_esu(unit_msr_val);

	return ldexp(1.0, -n);
}

double rapl_wrap_s(double unit_j, double max_w)
{
	return ldexp(unit_j, 32) / max_w;
}

uint64_t rapl_acc_add(struct rapl_acc *a, uint64_t msr_val)
{
	uint32_t now = (uint32_t)msr_val, d;

	if (!a->have) {
		a->have = true;
		a->last = now;
		return 0;
	}
	d = now - a->last;	/* modulo 2^32: one wrap counted once */
	a->last = now;
	a->total += d;
	return d;
}
