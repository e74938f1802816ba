/*
 * test_nctr_cpuid.c - counter counts the machine gives (struct
 * nctr_cpuid, plat_unit_nctr(), plat_machine()) and the 16-bit counter
 * masks they need (issue 28 section 4).
 *
 * The AMD data fabric's count is CPUID 0x80000022 EBX[15:10] (NumDfPmc)
 * when PerfMonV2 (CPUID 0x80000022 EAX bit 0) is there, else 4
 * (arch/x86/events/amd/uncore.c amd_uncore_df_ctx_scan();
 * doc/hardware-notes.md).  The CPUIDs below are written out as raw
 * register values, with the neighbouring fields (core counters 3:0, LBR
 * stack 9:4, UMC counters 21:16) all different from NumDfPmc, so a
 * decoder reading the wrong bits or skipping the feature test gets
 * another number.  Then the simulated CPUID (the workload's
 * "df_counters") and the placement of up to 16 events on one unit:
 * masks past bit 7, 17 events refused quickly, the 48 zen4 DRAM events
 * in 3 groups of 16.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw/hw.h"
#include "plat/kpmu.h"
#include "plat/plat.h"
#include "pmu/sched.h"
#include "sim/hw_sim.h"
#include "sim/sim_workload.h"
#include "tests/tap.h"

/* A machine's CPUID: the highest extended leaf and leaf 0x80000022. */
struct fake {
	uint32_t max_ext;
	uint32_t l22[4];
	unsigned calls;
};

static int fake_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	struct fake *f = ctx;

	(void)sub;
	f->calls++;
	memset(r, 0, 4 * sizeof(*r));
	if (leaf == 0x80000000u)
		r[0] = f->max_ext;
	else if (leaf == 0x80000022u && f->max_ext >= leaf)
		memcpy(r, f->l22, sizeof(f->l22));
	return 0;
}

static int no_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	(void)ctx;
	(void)leaf;
	(void)sub;
	memset(r, 0, 4 * sizeof(*r));
	return -ENODEV;
}

/* EBX from its four fields (arch/x86/include/asm/perf_event.h union
 * cpuid_0x80000022_ebx), written by hand as the hardware would. */
#define EBX(core, lbr, df, umc) \
	((uint32_t)(core) | (uint32_t)(lbr) << 4 | (uint32_t)(df) << 10 | \
	 (uint32_t)(umc) << 16)

static const struct unit_type *df_of(const struct platform *p)
{
	return plat_unit(p, "df", NULL);
}

static void test_decode(void)
{
	const struct unit_type *df = df_of(&plat_zen4);
	const struct unit_type *l3 = plat_unit(&plat_zen4, "l3", NULL);
	char note[400];
	struct fake f;

	ok(df && df->nctr_cpuid == &amd_df_nctr && df->nctr == 4,
	   "zen4 df: the kernel's rule, 4 without it");
	ok(df_of(&plat_zen5)->nctr_cpuid == &amd_df_nctr &&
	   df_of(&plat_zen3)->nctr_cpuid == &amd_df_nctr,
	   "zen5 and zen3 df carry the same rule");
	/* a Zen 4 server as its boot log says: 16 DF counters */
	f = (struct fake){ 0x80000028, { 0x7, EBX(6, 16, 16, 48), 0xfff, 0 } };
	is_int(EBX(6, 16, 16, 48), 0x304106, "EBX written by hand: 0x304106");
	is_int(plat_unit_nctr(df, fake_cpuid, &f, note, sizeof(note)), 16,
	   "PerfMonV2, EBX 0x304106: 16 counters");
	like(note, "16 counters (CPUID 0x80000022 EBX[15:10] NumDfPmc",
	     "the note says where the count came from");
	/* neighbours set to other values: only bits 15:10 count */
	f.l22[1] = 0x3f17bf;	/* umc 0x3f, df 5, lbr 0x3b, core 0xf */
	is_int(EBX(0xf, 0x3b, 5, 0x3f), 0x3f17bf, "EBX 0x3f17bf: df 5");
	is_int(plat_unit_nctr(df, fake_cpuid, &f, NULL, 0), 5,
	       "EBX 0x3f17bf: 5, not a neighbour's field");
	f.l22[1] = EBX(0xf, 0x3f, 4, 0x3f);
	is_int(plat_unit_nctr(df, fake_cpuid, &f, NULL, 0), 4,
	       "NumDfPmc 4 with every neighbour all ones: 4");
	/* no PerfMonV2: the kernel's 4, whatever EBX says */
	f = (struct fake){ 0x80000028, { 0x6, EBX(6, 16, 16, 48), 0, 0 } };
	is_int(plat_unit_nctr(df, fake_cpuid, &f, note, sizeof(note)), 4,
	       "EAX bit 0 clear (PerfMonV2 absent), NumDfPmc 16: 4");
	like(note, "bit 0 clear or absent", "the note says why");
	/* the leaf beyond the machine's range: 4 */
	f = (struct fake){ 0x80000021, { 0x1, EBX(6, 16, 16, 48), 0, 0 } };
	is_int(plat_unit_nctr(df, fake_cpuid, &f, NULL, 0), 4,
	       "highest extended leaf 0x80000021: leaf 0x80000022 absent, 4");
	/* no CPUID at all */
	is_int(plat_unit_nctr(df, no_cpuid, NULL, NULL, 0), 4,
	       "no CPUID: the table's 4");
	/* more than uncored places: cut to PLAT_MAX_CTRS, kernel's uncut */
	f = (struct fake){ 0x80000022, { 0x1, EBX(6, 16, 32, 48), 0, 0 } };
	is_int(plat_unit_nctr(df, fake_cpuid, &f, note, sizeof(note)),
	       PLAT_MAX_CTRS, "NumDfPmc 32: uncored places 16");
	like(note, "says 32 counters; uncored places events on 16",
	     "and says so");
	is_int(plat_kernel_nctr(&amd_df_nctr, 4, fake_cpuid, &f, NULL), 32,
	       "the kernel's count stays 32");
	/* 0: the kernel registers no amd_df; the table's count stays */
	f.l22[1] = EBX(6, 16, 0, 48);
	is_int(plat_unit_nctr(df, fake_cpuid, &f, note, sizeof(note)), 4,
	       "NumDfPmc 0: 4");
	like(note, "says 0 counters", "and says so");
	/* a unit without the rule never asks */
	f = (struct fake){ 0x80000022, { 0x1, EBX(6, 16, 16, 48), 0, 0 } };
	is_int(plat_unit_nctr(l3, fake_cpuid, &f, note, sizeof(note)), 6,
	       "l3: 6, its table's");
	ok(f.calls == 0 && note[0] == '\0', "without reading CPUID");
	is_int(plat_unit_nctr_max(df), PLAT_MAX_CTRS, "df may have up to 16");
	is_int(plat_unit_nctr_max(l3), 6, "l3 6");
}

static void test_machine(void)
{
	struct fake f = { 0x80000022, { 0x1, EBX(6, 16, 16, 48), 0, 0 } };
	const struct platform *m;
	char note[600];

	is_int(plat_machine(&plat_zen4, fake_cpuid, &f, &m, note,
			    sizeof(note)), 0, "plat_machine(zen4, 16)");
	ok(m != &plat_zen4, "a copy");
	is_int(df_of(m)->nctr, 16, "whose df has 16 counters");
	is_int(df_of(&plat_zen4)->nctr, 4, "the table keeps 4");
	is_int(plat_unit(m, "l3", NULL)->nctr, 6, "l3 unchanged");
	ok(plat_unit(m, "umc", NULL)->perf == &amd_kpmu_umc &&
	   plat_unit(m, "umc", NULL)->nctr == 2,
	   "the other units' facts are the table's");
	ok(m->events == plat_zen4.events && m->sim == plat_zen4.sim &&
	   strcmp(m->id, "zen4") == 0, "catalog, simulator data, id: the table's");
	is_int(plat_nunits(m), plat_nunits(&plat_zen4), "every unit");
	like(note, "df: 16 counters", "the note");
	plat_machine_free(m, &plat_zen4);

	f.l22[1] = EBX(6, 16, 4, 48);
	is_int(plat_machine(&plat_zen4, fake_cpuid, &f, &m, NULL, 0), 0,
	       "plat_machine(zen4, 4)");
	ok(m == &plat_zen4, "the table itself: nothing differs");
	plat_machine_free(m, &plat_zen4);
	is_int(plat_machine(&plat_skl, fake_cpuid, &f, &m, note, sizeof(note)),
	       0, "plat_machine(skl)");
	ok(m == &plat_skl && note[0] == '\0', "skl: the table, no note");
}

/* The simulated CPUID: the workload's df_counters, the platform's data. */
static void test_sim_cpuid(void)
{
	static const char *const wl16 = "{ \"platform\": \"zen4\", "
		"\"df_counters\": 16, \"phases\": [ { \"seconds\": 1, "
		"\"rates\": {} } ] }";
	static const char *const wl0 = "{ \"platform\": \"zen5\", "
		"\"phases\": [ { \"seconds\": 1, \"rates\": {} } ] }";
	static const char *const zen3 = "{ \"platform\": \"zen3\", "
		"\"df_counters\": 16, \"phases\": [ { \"seconds\": 1, "
		"\"rates\": {} } ] }";
	static const char *const big = "{ \"platform\": \"zen4\", "
		"\"df_counters\": 64, \"phases\": [ { \"seconds\": 1, "
		"\"rates\": {} } ] }";
	struct workload *w = NULL;
	uint32_t r[4];
	char err[512];

	is_int(wl_parse(wl16, strlen(wl16), "wl16", NULL, &w, err,
			sizeof(err)), 0, "a zen4 workload with df_counters 16");
	if (w) {
		wl_cpuid(w, 0x80000022, 0, r);
		is_int((r[1] >> 10) & 0x3f, 16, "simulated EBX[15:10] 16");
		is_int(r[1] & ~(0x3fu << 10), EBX(6, 16, 0, 48),
		       "the other EBX fields the part's");
		is_int(r[0] & 1, 1, "PerfMonV2");
		is_int(plat_unit_nctr(df_of(&plat_zen4), wl_cpuid, w, NULL, 0),
		       16, "decoded: 16");
		wl_free(w);
	}
	w = NULL;
	is_int(wl_parse(wl0, strlen(wl0), "wl0", NULL, &w, err, sizeof(err)),
	       0, "a zen5 workload without it");
	if (w) {
		is_int(plat_unit_nctr(df_of(&plat_zen5), wl_cpuid, w, NULL, 0),
		       4, "the simulated part's default: 4");
		wl_cpuid(w, 0x12345678, 0, r);
		ok(!r[0] && !r[1] && !r[2] && !r[3], "another leaf: zeros");
		wl_free(w);
	}
	w = NULL;
	is_int(wl_parse(zen3, strlen(zen3), "zen3", NULL, &w, err,
			sizeof(err)), -EINVAL, "zen3 has no df_counters");
	like(err, "\"df_counters\" is not a zen3 key", "named: %s", err);
	wl_free(w);
	w = NULL;
	is_int(wl_parse(big, strlen(big), "big", NULL, &w, err, sizeof(err)),
	       -EINVAL, "df_counters 64 refused");
	like(err, "NumDfPmc", "the message names the field: %s", err);
	wl_free(w);
}

/* Resolves every name of zen4's baseline on unit df into ev[]. */
static unsigned df_baseline(const struct platform *p, struct evspec *ev,
			    unsigned max)
{
	unsigned n = 0;
	char why[256];

	for (unsigned i = 0; p->baseline[i] && n < max; i++) {
		struct evspec e;

		if (sched_resolve(p, p->baseline[i], false, &e, why,
				  sizeof(why)) == 0 &&
		    strcmp(p->units[e.unit]->name, "df") == 0)
			ev[n++] = e;
	}
	return n;
}

static void test_masks(void)
{
	struct fake f = { 0x80000022, { 0x1, EBX(6, 16, 16, 48), 0, 0 } };
	const struct platform *m;
	struct evspec ev[SCHED_MAX_EVENTS];
	unsigned grp[SCHED_MAX_EVENTS], ng, n, used = 0;
	int ctr[SCHED_MAX_EVENTS], dfi;
	uint16_t busy[PLAT_MAX_UNITS] = { 0 };
	char why[512];
	clock_t t0;
	bool distinct = true;

	if (plat_machine(&plat_zen4, fake_cpuid, &f, &m, NULL, 0) < 0 ||
	    m == &plat_zen4) {
		printf("Bail out! plat_machine made no copy\n");
		exit(1);
	}
	plat_unit(m, "df", &dfi);
	is_int(sched_resolve(m, "local_processor_read_data_beats_cs3", false,
			     &ev[0], why, sizeof(why)), 0, "a DF event");
	is_int(ev[0].ctr_mask, 0xffff, "16 counters: mask 0xffff");
	is_int(sched_resolve(&plat_zen4, "local_processor_read_data_beats_cs3",
			     false, &ev[0], why, sizeof(why)), 0, "on the table");
	is_int(ev[0].ctr_mask, 0xf, "4 counters: mask 0xf");

	n = df_baseline(m, ev, SCHED_MAX_EVENTS);
	is_int(n, 48, "zen4's baseline: 48 DF events");
	is_int(sched_place(m, ev, 16, NULL, ctr, why, sizeof(why)), 0,
	       "16 of them placed together");
	for (unsigned i = 0; i < 16; i++) {
		distinct &= ctr[i] >= 0 && ctr[i] < 16 && !(used >> ctr[i] & 1);
		used |= 1u << (ctr[i] & 15);
	}
	ok(distinct && used == 0xffff, "on counters 0-15, one each");
	t0 = clock();
	is_int(sched_place(m, ev, 17, NULL, ctr, why, sizeof(why)), -EBUSY,
	       "17 do not fit");
	ok((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0,
	   "refused at once (%.3f s of CPU)",
	   (double)(clock() - t0) / CLOCKS_PER_SEC);
	like(why, "17 df events but df has 16 counters", "why: %s", why);
	/* a busy counter past bit 7 */
	busy[dfi] = 1u << 12;
	is_int(sched_place(m, ev, 16, busy, ctr, why, sizeof(why)), -EBUSY,
	       "16 around a busy counter 12 do not fit");
	is_int(sched_place(m, ev, 15, busy, ctr, why, sizeof(why)), 0,
	       "15 do");
	used = 0;
	for (unsigned i = 0; i < 15; i++)
		used |= 1u << (ctr[i] & 15);
	is_int(used, 0xffff & ~(1u << 12), "on every counter but 12");

	is_int(sched_partition(m, ev, n, grp, &ng, why, sizeof(why)), 0,
	       "48 DF events partitioned on 16 counters");
	is_int(ng, 4, "the group that counts all the time and 3 in turn");
	is_int(sched_partition(&plat_zen4, ev, n, grp, &ng, why, sizeof(why)),
	       0, "the same evspecs (masks 0xffff) on the 4-counter table");
	is_int(ng, 13, "13 groups: placement stops at the unit's count, "
	       "whatever the mask");
	n = df_baseline(&plat_zen4, ev, SCHED_MAX_EVENTS);
	is_int(sched_partition(&plat_zen4, ev, n, grp, &ng, why, sizeof(why)),
	       0, "resolved on the table");
	is_int(ng, 13, "12 in turn on 4 counters");
	plat_machine_free(m, &plat_zen4);
}

/* plat_encode()'s valid-counter mask past bit 7 (it refused every
 * counter from 8 on). */
static void test_encode_wide(void)
{
	struct unit_type u = *plat_unit(&plat_skl, "cbo", NULL);
	struct event_enc e = { .code = 0x34, .umask = 0x8f };
	uint64_t ctl;
	char why[256];

	u.nctr = 12;
	is_int(plat_encode(&u, &e, 10, 1u << 10, &ctl, why, sizeof(why)), 0,
	       "counter 10 of 12, mask bit 10: encoded");
	is_int(plat_encode(&u, &e, 9, 1u << 10, &ctl, why, sizeof(why)),
	       -EINVAL, "counter 9 with mask bit 10 only: refused");
	like(why, "valid counter mask 0x400", "why: %s", why);
	is_int(plat_encode(&u, &e, 12, 0xffff, &ctl, why, sizeof(why)),
	       -EINVAL, "counter 12 of 12: refused");
}

/* hw_cpuid() without a backend's op is this CPU's own: leaf 0's vendor
 * is the one plat_cpuid() reads, and a leaf past its range reads 0. */
static void test_real_cpuid(void)
{
	struct plat_cpu cpu;
	uint32_t r[4];
	char v[13];

	if (plat_cpuid(&cpu) < 0) {
		ok(hw_cpuid(NULL, 0, 0, r) == -ENODEV, "no CPUID: -ENODEV");
		return;
	}
	is_int(hw_cpuid(NULL, 0, 0, r), 0, "this CPU's CPUID leaf 0");
	memcpy(v, &r[1], 4);
	memcpy(v + 4, &r[3], 4);
	memcpy(v + 8, &r[2], 4);
	v[12] = '\0';
	is_str(v, cpu.vendor, "its vendor (EBX, EDX, ECX) as plat_cpuid()'s");
	is_int(hw_cpuid(NULL, 0x7fffffff, 0, r), 0, "a leaf past the range");
	ok(!r[0] && !r[1] && !r[2] && !r[3], "reads zeros");
}

int main(void)
{
	test_real_cpuid();
	test_decode();
	test_machine();
	test_sim_cpuid();
	test_masks();
	test_encode_wide();
	return tap_done();
}
