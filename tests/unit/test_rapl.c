/*
 * test_rapl.c - RAPL energy (issue 43): the units and the 32-bit wrap
 * arithmetic of src/plat/rapl.c, the simulator's energy counters
 * (src/sim/sim_rapl.c) and the energy monitor (src/core/energy.c) on
 * both sources, on a clock that moves only when told:
 *  - direct: hsx, 2 sockets, package 200 W with its counter 0.5 s of
 *    energy below 2^32 (a wrap in the window), DRAM 30 W (socket 1: 100
 *    W and 20 W: a socket mixed up shows), and a decoy
 *    energy status unit of 2^-14 J in MSR_RAPL_POWER_UNIT where the DRAM
 *    domain counts 2^-16 J (the kernel's RAPL_UNIT_QUIRK_INTEL_HSW): the
 *    MSR's unit for DRAM would read 120 W;
 *  - perf: the simulated kernel's power PMU, the same workload, with
 *    CAP_PERFMON and then without (refused: the reason says so);
 *  - no "energy" in the workload: no RAPL (#GP), no power PMU: absent,
 *    with the reason.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tap.h"
#define SIM_TEST_NAME "test_rapl"
#include "tests/sim_test.h"

#include "core/energy.h"
#include "hw/perf_event.h"
#include "plat/plat.h"
#include "plat/rapl.h"
#include "sim/sim_kernel.h"

static void units(void)
{
	const struct rapl_facts *hsx = rapl_facts_of(plat_by_id("hsx"));
	const struct rapl_facts *snbep = rapl_facts_of(plat_by_id("snbep"));
	const struct rapl_facts *spr = rapl_facts_of(plat_by_id("spr"));
	const struct rapl_facts *zen4 = rapl_facts_of(plat_by_id("zen4"));

	is_int(rapl_esu(0xa0e03), 14, "ESU of 0xA0E03 (bits 12:8) is 14");
	is_int(rapl_esu(0xffffffffffffe0ffull), 0, "ESU reads bits 12:8 only");
	ok(hsx && snbep && spr && zen4, "facts for hsx, snbep, spr, zen4");
	ok(!rapl_facts_of(plat_by_id("gnr")), "none for gnr (not in rapl.c)");
	ok(rapl_facts_of(plat_by_id("skx")) == hsx &&
	   rapl_facts_of(plat_by_id("icx")) == hsx,
	   "skx and icx are the kernel's model_hsx");
	is_near(rapl_unit_j(hsx, RAPL_PKG, 0xa0e03), ldexp(1, -14), 0.0,
		"hsx package: the MSR's 2^-14 J");
	is_near(rapl_unit_j(hsx, RAPL_DRAM, 0xa0e03), ldexp(1, -16), 0.0,
		"hsx DRAM: 2^-16 J whatever the MSR says");
	is_near(rapl_unit_j(hsx, RAPL_DRAM, 0xa1003), ldexp(1, -16), 0.0,
		"hsx DRAM: 2^-16 J with ESU 16 too");
	is_near(rapl_unit_j(snbep, RAPL_DRAM, 0xa0e03), ldexp(1, -14), 0.0,
		"snbep DRAM: the MSR's unit (model_snbep has no quirk)");
	is_near(rapl_unit_j(spr, RAPL_PSYS, 0xa0e03), 1.0, 0.0,
		"spr psys: 1 J (RAPL_UNIT_QUIRK_INTEL_SPR)");
	is_near(rapl_unit_j(spr, RAPL_DRAM, 0xa0e03), ldexp(1, -14), 0.0,
		"spr DRAM: the MSR's unit");
	is_u64(zen4->unit_msr, 0xc0010299u, "AMD: RAPL_PWR_UNIT C001_0299");
	is_u64(zen4->msr[RAPL_PKG], 0xc001029bu, "AMD: PKG_ENERGY_STAT C001_029B");
	is_u64(zen4->msr[RAPL_DRAM], 0, "AMD: no DRAM domain");
	is_near(rapl_wrap_s(ldexp(1, -14), 1000), 262.144, 1e-12,
		"2^-14 J wraps after 262.144 s at 1000 W");
	is_near(rapl_wrap_s(ldexp(1, -16), 1000), 65.536, 1e-12,
		"2^-16 J wraps after 65.536 s at 1000 W");
}

static void wraps(void)
{
	struct rapl_acc a = { 0 };

	is_u64(rapl_acc_add(&a, 0xfffffff0), 0, "the first read only starts");
	is_u64(rapl_acc_add(&a, 0xfffffff8), 8, "then the distance");
	is_u64(rapl_acc_add(&a, 0x10), 0x18, "across the wrap: once");
	is_u64(rapl_acc_add(&a, 0xabcd00000020ull), 0x10,
	       "bits 63:32 (reserved) are not the count");
	is_u64(rapl_acc_add(&a, 0x20), 0, "no change, no count");
	is_u64(rapl_acc_add(&a, 0x1f), 0xffffffffull,
	       "one count back is a whole wrap less one (never negative)");
	is_u64(a.total, 8 + 0x18 + 0x10 + 0xffffffffull, "the total");
}

/* The domain of socket s, d of a snapshot, or NULL. */
static const struct energy_dom *find(const struct energy_dom *x, int n,
				     unsigned s, enum rapl_dom d)
{
	for (int i = 0; i < n; i++)
		if (x[i].socket == s && x[i].dom == d)
			return &x[i];
	return NULL;
}

/* package 200 W: 3276800 counts/s at 2^-14 J; initial = 2^32 - 0.5 s;
 * socket 1 draws less (a socket mixed up shows) */
static const char *wl_energy =
	"{ \"platform\": \"hsx\", \"sockets\": 2, %s"
	"  \"phases\": [ { \"seconds\": 4, \"rates\": {} },"
	"                { \"seconds\": 6, \"rates\": {} } ],"
	"  \"energy\": { \"watts\": { \"s1/package\": [100, 50],"
	"    \"package\": [200, 150], \"dram\": 30, \"s1/dram\": 20 },"
	"    \"initial\": { \"package\": 4293328896 }, \"unit\": 14 } }";

static void check_window(struct energy_mon *m, const char *what)
{
	struct energy_dom x[ENERGY_MAX_DOMS];
	double j0[2][2];
	const double want_pkg[2] = { 4 * 200 + 6 * 150, 4 * 100 + 6 * 50 };
	const double want_dram[2] = { 10 * 30, 10 * 20 };
	int n;

	n = energy_mon_snapshot(m, x, ENERGY_MAX_DOMS);
	is_int(n, 4, "%s: 2 sockets x package, dram", what);
	for (unsigned s = 0; s < 2 && n == 4; s++)
		for (int d = 0; d < 2; d++)
			j0[s][d] = find(x, n, s, (enum rapl_dom)d)->joules;
	for (int i = 0; i < 20; i++) {	/* 10 s, a read every 0.5 s */
		advance(0.5);
		energy_mon_read(m);
	}
	n = energy_mon_snapshot(m, x, ENERGY_MAX_DOMS);
	for (unsigned s = 0; s < 2 && n == 4; s++) {
		const struct energy_dom *p = find(x, n, s, RAPL_PKG);
		const struct energy_dom *r = find(x, n, s, RAPL_DRAM);

		ok(p && r && p->have && r->have, "%s: socket %u read", what, s);
		if (!p || !r)
			continue;
		is_near(p->joules - j0[s][0], want_pkg[s], 1e-6, "%s: socket %u "
			"package, 10 s across a wrap: %s", what, s, s ?
			"100 W x 4 s + 50 W x 6 s" : "200 W x 4 s + 150 W x 6 s");
		is_near(r->joules - j0[s][1], want_dram[s], 1e-6, "%s: socket "
			"%u DRAM %s W x 10 s (not 4x: the fixed unit)", what, s,
			s ? "20" : "30");
		is_int(p->errors + r->errors, 0, "%s: socket %u no read errors",
		       what, s);
	}
}

static void direct(void)
{
	char text[1024];
	struct hw hw = { 0 };
	struct topology t = { .plat = plat_by_id("hsx"), .nsockets = 2 };
	struct energy_mon *m;

	t.sock[0] = (struct topo_socket){ .id = 0, .cpu = 0 };
	t.sock[1] = (struct topo_socket){ .id = 1, .cpu = 8 };
	snprintf(text, sizeof(text), wl_energy, "");
	open_sim(&hw, write_file("e.json", text), NULL);
	is_u64(rd(&hw, hw_msr(0, 0x606)), 0xa0e03, "simulated power unit MSR");
	is_u64(rd(&hw, hw_msr(8, 0x611)), 4293328896u,
	       "simulated PKG_ENERGY_STATUS starts at the initial value");
	m = energy_mon_new_direct(&hw, &t);
	ok(m && !energy_mon_absent(m)[0], "direct: present");
	is_int(energy_mon_interval_ms(m), 1000,
	       "read every second (the shortest wrap is 65.5 s)");
	check_window(m, "direct");
	ok(rd(&hw, hw_msr(0, 0x611)) < 4293328896u,
	   "the MSR did wrap in the window");
	energy_mon_free(m);
	hw_close(&hw);
}

static void perf(bool cap)
{
	char text[1024], why[512];
	struct hw hw = { 0 };
	struct skern *k;
	struct energy_mon *m;

	snprintf(text, sizeof(text), wl_energy, cap ? "" :
		 "\"perf\": { \"cap_perfmon\": false },");
	open_sim(&hw, write_file("p.json", text), NULL);
	if (skern_open(&k, &hw, NULL, why, sizeof(why)) < 0) {
		printf("Bail out! simulated kernel: %s\n", why);
		exit(1);
	}
	m = energy_mon_new_perf(skern_sysfs(k), &skern_pev_ops, k);
	if (cap) {
		ok(m && !energy_mon_absent(m)[0], "perf, CAP_PERFMON: present");
		check_window(m, "perf");
	} else {
		ok(m && energy_mon_absent(m)[0], "perf, no CAP_PERFMON: absent");
		like(energy_mon_absent(m), "refused", "the reason: refused");
		like(energy_mon_absent(m), "CAP_PERFMON",
		     "and what is missing");
	}
	energy_mon_free(m);
	is_int(skern_nevents(k), 0, "every event closed");
	skern_close(k);
	hw_close(&hw);
}

static void absent(void)
{
	struct hw hw = { 0 };
	struct topology t = { .plat = plat_by_id("hsx"), .nsockets = 1 };
	struct energy_mon *m;
	char why[512];
	struct skern *k;
	const char *wl = "{ \"platform\": \"hsx\", \"phases\": "
			 "[ { \"seconds\": 1, \"rates\": {} } ] }";

	t.sock[0] = (struct topo_socket){ .id = 0, .cpu = 0 };
	open_sim(&hw, write_file("n.json", wl), NULL);
	m = energy_mon_new_direct(&hw, &t);
	like(energy_mon_absent(m), "0x606 does not read",
	     "no RAPL MSRs: absent, the unit MSR named");
	energy_mon_free(m);
	if (skern_open(&k, &hw, NULL, why, sizeof(why)) == 0) {
		m = energy_mon_new_perf(skern_sysfs(k), &skern_pev_ops, k);
		like(energy_mon_absent(m), "no power PMU",
		     "no power PMU: absent, said so");
		energy_mon_free(m);
		skern_close(k);
	}
	hw_close(&hw);
	t.plat = plat_by_id("gnr");
	m = energy_mon_new_direct(NULL, &t);
	like(energy_mon_absent(m), "knows no RAPL",
	     "gnr on direct: absent, uncored has no facts");
	energy_mon_free(m);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	units();
	wraps();
	direct();
	perf(true);
	perf(false);
	absent();
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
	}
	return tap_done();
}
