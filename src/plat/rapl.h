/*
 * rapl.h - RAPL energy counters as data: which energy status MSRs each
 * platform has, where their unit comes from, and the 32-bit counter
 * arithmetic (units, wraps) both backends and the simulator share.
 *
 * Sources (doc/hardware-notes.md "RAPL energy counters"): Intel SDM
 * vol. 3B section 15.10 (MSR_RAPL_POWER_UNIT 0x606, energy status unit
 * bits 12:8 = 2^-ESU J; MSR_PKG_ENERGY_STATUS 0x611,
 * MSR_DRAM_ENERGY_STATUS 0x619, MSR_PLATFORM_ENERGY_STATUS 0x64D, each a
 * 32-bit count in bits 31:0); AMD's PPR (C001_0299 RAPL_PWR_UNIT, the
 * same ESU field; C001_029B PKG_ENERGY_STAT); which platform has which
 * domain, and the fixed units, as Linux's arch/x86/events/rapl.c has them
 * (torvalds/linux 0b119045b79a: model_snbep, model_hsx with
 * RAPL_UNIT_QUIRK_INTEL_HSW, model_skl, model_spr with
 * RAPL_UNIT_QUIRK_INTEL_SPR, model_amd_hygon).  None of the repository's
 * uncore manuals describes RAPL.
 */
#ifndef UNCORED_RAPL_H
#define UNCORED_RAPL_H

#include <stdbool.h>
#include <stdint.h>

struct platform;

/* The domains served, in label order. */
enum rapl_dom { RAPL_PKG, RAPL_DRAM, RAPL_PSYS, RAPL_NDOM };

#define RAPL_MSR_POWER_UNIT 0x606u
#define RAPL_MSR_PKG 0x611u
#define RAPL_MSR_DRAM 0x619u
#define RAPL_MSR_PSYS 0x64du
#define RAPL_MSR_AMD_POWER_UNIT 0xc0010299u
#define RAPL_MSR_AMD_PKG 0xc001029bu

/* RAPL_UNIT_MSR: the domain counts in the power unit MSR's ESU. */
#define RAPL_UNIT_MSR (-1)

/* One platform's energy counters for the direct backend. */
struct rapl_facts {
	uint32_t unit_msr;		/* MSR_RAPL_POWER_UNIT or C001_0299 */
	uint32_t msr[RAPL_NDOM];	/* energy status MSR; 0: none */
	/* RAPL_UNIT_MSR, or n: the domain counts 2^-n J whatever the unit
	 * MSR says (hsx/skx/icx DRAM: 16; spr psys: 0) */
	int8_t fixed[RAPL_NDOM];
	/* the simulator's unit MSR ESU: the SDM's default 16, 14 on the
	 * Xeons whose DRAM unit differs from it (hsx, skx, icx; spr) */
	uint8_t default_esu;
};

/* The facts of platform p (by its id), or NULL where uncored knows none
 * (gnr, the generic platform): the direct backend then serves no
 * energy.  Static data. */
const struct rapl_facts *rapl_facts_of(const struct platform *p);

/* "package", "dram", "psys": the domain label. */
const char *rapl_dom_label(enum rapl_dom d);
/* The kernel's power PMU event of the domain: "energy-pkg",
 * "energy-ram", "energy-psys". */
const char *rapl_perf_event(enum rapl_dom d);

/* The energy status unit, bits 12:8 of the power unit MSR's value. */
unsigned rapl_esu(uint64_t unit_msr_val);
/* Joules per count of domain d: 2^-fixed, or 2^-ESU of unit_msr_val. */
double rapl_unit_j(const struct rapl_facts *f, enum rapl_dom d,
		   uint64_t unit_msr_val);

/*
 * Seconds a 32-bit counter of unit_j joules per count takes to wrap at
 * max_w watts: 2^32 x unit_j / max_w.
 */
double rapl_wrap_s(double unit_j, double max_w);

/*
 * The 32-bit energy status counter extended to 64 bits: each read's low
 * 32 bits are taken as the counter, the distance from the last read
 * modulo 2^32 is added (one wrap counted once: a reader must read at
 * least once per wrap time, rapl_wrap_s()).  The first read only sets
 * the start: total counts from there.
 */
struct rapl_acc {
	bool have;
	uint32_t last;
	uint64_t total;		/* counts since the first read */
};
/* Adds a read; returns the counts it added (0 for the first). */
uint64_t rapl_acc_add(struct rapl_acc *a, uint64_t msr_val);

/* The most power a domain is assumed to draw when bounding the read
 * interval (a 2-socket server's package stays far below it). */
#define RAPL_MAX_WATTS 1000.0

#endif
