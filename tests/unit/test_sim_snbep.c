/*
 * test_sim_snbep.c - the simulated Xeon E5-2600 v1 (snbep) and the
 * daemon's PMU layer on a platform without a global control (issue 10
 * item 3): discovery on the model (UBox device, node mapping, CBos =
 * cores), no global registers at all, counting gated by the box freeze
 * (frz only with frz_en in the same write: a read-modify-write of the
 * write-only bits unfreezes) and the local enable, the UBox counting
 * through a freeze, the box filter gating the workload's rates, and
 * pmu_busy / pmu_enable / pmu_check_global / pmu_clear_all /
 * pmu_release working box by box.  The built-in workload opens and
 * gives the headline events rates.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw/hw.h"
#include "sim/hw_sim.h"
#include "plat/plat.h"
#include "plat/plat_snbep.h"
#include "pmu/pmu.h"
#include "tests/tap.h"
#define SIM_TEST_NAME "test_sim_snbep"
#define SIM_TEST_PLATFORM (&plat_snbep)
#include "tests/sim_test.h"

static const char *WL =
	"{ \"platform\": \"snbep\", \"sockets\": 2, \"cores\": 6,"
	"  \"uclk_hz\": 2000000000, \"dclk_hz\": 800000000,"
	"  \"phases\": [ { \"seconds\": 1000, \"rates\": {"
	"    \"cbo:0x34:0x03:filter0=0x7c0000\": 6.0e8,"
	"    \"cbo:0x34:0x03:filter0=0x40000\": 6.0e7,"
	"    \"imc:0x04:0x03\": 4.0e8,"
	"    \"ubox:0x00:0x00\": 1.0e8 } } ] }";

static void test_model(void)
{
	const struct unit_type *cbo = unit("cbo", NULL);
	const struct unit_type *ub = unit("ubox", NULL);
	const struct unit_type *uf = unit("ubox_fixed", NULL);
	const struct unit_type *imc = unit("imc", NULL);
	struct hw_opts o = { .sim_workload = write_file("wl.json", WL) };
	struct hw_sim_box bs;
	struct topology t;
	struct hw_addr bc, ctl, ctr, flt, uctl, uctr;
	uint64_t a, b, v;
	struct hw hw;
	int cboi, r;

	unit("cbo", &cboi);
	if (hw_open(&hw, &hw_sim_ops, &o) < 0) {
		printf("Bail out! cannot open simulator: %s\n", hw_last_error());
		exit(1);
	}
	hw_sim_set_clock(&hw, fake_clock, NULL);
	r = plat_discover(P, &hw, &t, &(struct hw_cpu_map){
		.cpus_per_package = SIM_CPUS_PER_SOCKET,
		.cores_per_package = hw_sim_cores(&hw) });
	if (!ok(r == 0, "discover the simulated snbep (%s)", r ? hw_last_error() : "")) {
		hw_close(&hw);
		return;
	}
	is_int(t.nsockets, 2, "two sockets");
	ok(t.sock[1].pci_bus == 0xdf && t.sock[1].cpu == 8 && t.sock[1].id == 1,
	   "socket 1: bus 0xdf, cpu 8 (through the UBox device's node mapping)");
	is_int(hw_sim_node_id(&hw, 1), t.sock[1].node_id, "node ID from CPUNODEID");
	is_int(t.sock[0].ninst[cboi], 6, "6 cores: 6 CBos (min(8, cores))");
	/* no global registers: hsx's 0x700 and IvyTown's 0xC00 fault */
	{
		struct hw_addr g = hw_msr(0, 0x700), g2 = hw_msr(0, 0xC00);

		ok(hw_read(&hw, &g, &v) == -EIO, "no global control at 0x700");
		ok(hw_read(&hw, &g2, &v) == -EIO, "nor at 0xC00");
	}
	is_int(hw_sim_global_frozen(&hw, 0), -ENOENT, "no global freeze latch");

	bc = plat_box_ctl_addr(&t.sock[0], cbo, 0);
	ctl = plat_ctl_addr(&t.sock[0], cbo, 0, 0);
	ctr = plat_ctr_addr(&t.sock[0], cbo, 0, 0);
	flt = plat_filter_addr(&t.sock[0], cbo, 0, 0);
	uctl = plat_ctl_addr(&t.sock[0], ub, 0, 0);
	uctr = plat_ctr_addr(&t.sock[0], ub, 0, 0);
	wr(&hw, flt, 0x7C0000);
	wr(&hw, ctl, 0x400334);		/* LLC_LOOKUP.DATA_READ, en */
	wr(&hw, uctl, 0x400000);	/* UBox event 0, en */
	a = rd(&hw, ctr);
	advance(1.0);
	b = rd(&hw, ctr);
	is_near((double)(b - a), 1.0e8, 1e-6,
		"counts with no global enable at all: 6e8 / 6 CBos in 1 s");
	/* frz alone (frz_en missing): no freeze */
	wr(&hw, bc, SNBEP_BOX_FRZ);
	a = rd(&hw, ctr);
	advance(1.0);
	ok(rd(&hw, ctr) - a > 0, "frz without frz_en does not freeze (327043 Table 2-9)");
	/* frz | frz_en through plat_box_write (adds frz_en) */
	ok(plat_box_write(&hw, &t.sock[0], cbo, 0, SNBEP_BOX_FRZ) == 0,
	   "plat_box_write(frz)");
	ok(hw_sim_box_state(&hw, 0, cboi, 0, &bs) == 0 && bs.frozen, "CBo 0 frozen");
	is_u64(rd(&hw, bc), 0, "box control reads 0 (WO bits)");
	a = rd(&hw, ctr);
	b = rd(&hw, uctr);
	advance(1.0);
	is_u64(rd(&hw, ctr), a, "frozen CBo holds its count");
	is_near((double)(rd(&hw, uctr) - b), 1.0e8, 1e-6,
		"the UBox cannot be frozen: it keeps counting");
	/* a read-modify-write of the WO bits loses frz_en: unfreezes */
	v = rd(&hw, bc);
	wr(&hw, bc, v | SNBEP_BOX_FRZ);
	a = rd(&hw, ctr);
	advance(1.0);
	ok(rd(&hw, ctr) - a > 0, "a read-modify-write (frz_en reads 0) unfreezes the box");
	/* the filter gates the rate: state I = misses */
	wr(&hw, flt, 0x40000);
	a = rd(&hw, ctr);
	advance(1.0);
	is_near((double)(rd(&hw, ctr) - a), 1.0e7, 1e-6, "filter state I: misses 6e7 / 6");
	/* the UCLK fixed counter and an iMC channel */
	wr(&hw, plat_ctl_addr(&t.sock[0], uf, 0, 0), 0x400000);
	a = rd(&hw, plat_ctr_addr(&t.sock[0], uf, 0, 0));
	advance(0.5);
	is_near((double)(rd(&hw, plat_ctr_addr(&t.sock[0], uf, 0, 0)) - a), 1.0e9,
		1e-6, "UCLK fixed counter at 2 GHz");
	wr(&hw, plat_ctl_addr(&t.sock[1], imc, 3, 0), 0x400304);
	a = rd(&hw, plat_ctr_addr(&t.sock[1], imc, 3, 0));
	advance(1.0);
	is_near((double)(rd(&hw, plat_ctr_addr(&t.sock[1], imc, 3, 0)) - a), 1.0e8,
		1e-6, "socket 1 iMC channel 3 CAS.RD 4e8 / 4");
	/* 44-bit CBo counter */
	wr(&hw, flt, 0x7C0000);
	wr(&hw, ctr, (1ull << 44) - 1000);
	advance(1.0);
	ok(rd(&hw, ctr) < 1ull << 44, "CBo counter wraps at 2^44");
	hw_close(&hw);
}

/* The daemon's PMU layer on a platform without a global control. */
static void test_pmu(void)
{
	const struct unit_type *cbo = unit("cbo", NULL);
	struct hw_opts o = { .sim_workload = write_file("wl.json", WL) };
	struct pmu *pmu = calloc(1, sizeof(*pmu));
	struct pmu_slot sl[2];
	struct topology t;
	struct hw hw;
	char msg[512];
	uint64_t a, seen = 7;
	int cboi, r;

	unit("cbo", &cboi);
	if (!pmu || hw_open(&hw, &hw_sim_ops, &o) < 0) {
		printf("Bail out! cannot open simulator: %s\n", hw_last_error());
		exit(1);
	}
	hw_sim_set_clock(&hw, fake_clock, NULL);
	r = plat_discover(P, &hw, &t, &(struct hw_cpu_map){
		.cpus_per_package = SIM_CPUS_PER_SOCKET,
		.cores_per_package = hw_sim_cores(&hw) });
	if (!ok(r == 0, "discover for the PMU layer")) {
		hw_close(&hw);
		free(pmu);
		return;
	}
	is_int(pmu_init(pmu, &hw, &t), 0, "pmu_init numbers every register");
	is_int(pmu_busy(pmu, msg, sizeof(msg)), 0,
	       "pmu_busy at reset: 0, without reading a global control");
	is_int(pmu_reset_boxes(pmu), 0, "pmu_reset_boxes");
	pmu_slot(pmu, &sl[0], 0, cboi, 0, 0);
	sl[0].ctl_val = 0x400334;
	pmu_slot(pmu, &sl[1], 1, cboi, 2, 1);
	sl[1].ctl_val = 0x400334;
	is_int(pmu_program(pmu, sl, 2, true), 0, "program two CBo counters");
	is_int(pmu_enable(pmu, true), 0, "pmu_enable(on): every box unfrozen");
	is_int(pmu_check_global(pmu, 0, true, &seen), 0,
	       "pmu_check_global: nothing to compare, not interference");
	is_u64(seen, 0, "and nothing seen");
	is_int(pmu_foreign(pmu, msg, sizeof(msg)), 0, "our own controls are not foreign");
	is_int(pmu_busy(pmu, msg, sizeof(msg)), 2, "pmu_busy sees the two enabled controls");
	like(msg, "msr 0xd10 on cpu 0", "and names them");
	/* filter state I on CBo 0 so that the rate is known */
	wr(&hw, plat_filter_addr(&t.sock[0], cbo, 0, 0), 0x7C0000);
	pmu_read(pmu, &sl[0], &a);
	advance(1.0);
	{
		uint64_t b;

		pmu_read(pmu, &sl[0], &b);
		is_near((double)(b - a), 1.0e8, 1e-6, "counting after pmu_enable");
		is_int(pmu_enable(pmu, false), 0, "pmu_enable(off): every box frozen");
		pmu_read(pmu, &sl[0], &a);
		advance(1.0);
		pmu_read(pmu, &sl[0], &b);
		is_u64(b, a, "frozen by pmu_enable(off)");
		is_int(pmu_enable(pmu, true), 0, "and on again");
		advance(1.0);
		pmu_read(pmu, &sl[0], &b);
		ok(b - a > 0, "counting again");
	}
	/* another agent's enabled control is foreign */
	wr(&hw, plat_ctl_addr(&t.sock[1], cbo, 5, 3), 0x400000);
	is_int(pmu_foreign(pmu, msg, sizeof(msg)), 1, "a foreign enabled control is seen");
	like(msg, "msr 0xdb3 on cpu 8", "and named (CBo 5 CTL3)");
	is_int(pmu_clear_all(pmu), 0, "pmu_clear_all with no global register to clear");
	is_int(pmu_busy(pmu, msg, sizeof(msg)), 0, "idle after clearing");
	is_int(pmu_release(pmu), 0, "pmu_release");
	pmu_free(pmu);
	hw_close(&hw);
	free(pmu);
}

static void test_builtin(void)
{
	struct hw_opts o = { .sim_platform = "snbep" };
	const struct workload *w;
	struct hw hw;

	if (!ok(hw_open(&hw, &hw_sim_ops, &o) == 0, "snbep built-in workload opens (%s)",
		hw_last_error()))
		return;
	w = hw_sim_workload(&hw);
	is_int(hw_sim_nsockets(&hw), 2, "two sockets");
	{
		int cbo;

		unit("cbo", &cbo);
		is_int((int)hw_sim_ninst(&hw, cbo), 8, "8 CBos");
	}
	ok(w->nkeys > 400, "a rate for every event (%u keys)", w->nkeys);
	hw_close(&hw);
}

/*
 * Issue 19 section 4: the CBo count is the package's core count as the
 * hardware gives it (the kernel's min(8, cores per package), from
 * CPUID), not the online CPUs.  Socket 0 has 6 cores with core 2
 * offlined, socket 1 its first core (CPU 8): 6 CBos each, 5 cores read
 * for the core-scope MSRs, socket 1's MSRs through CPU 9, and an MSR of
 * an offline CPU does not answer.  Then hsx: its CBo count is its own
 * register's (num_c), whatever is offline.
 */
static void test_offline(void)
{
	const char *wl = write_file("off.json",
		"{\"platform\":\"snbep\",\"sockets\":2,\"cores\":6,"
		"\"offline_cpus\":[2,8],"
		"\"phases\":[{\"seconds\":1,\"rates\":{}}]}");
	struct hw_opts o = { .sim_workload = wl };
	struct hw_cpu_map m;
	struct topology t;
	struct hw hw;
	uint64_t v;
	int cboi;

	unit("cbo", &cboi);
	if (!ok(hw_open(&hw, &hw_sim_ops, &o) == 0, "offline: opens (%s)",
		hw_last_error()))
		return;
	hw_cpu_map_of(&hw, &m);
	memset(&t, 0, sizeof(t));
	if (!ok(plat_discover(P, &hw, &t, &m) == 0, "offline: discovers (%s)",
		hw_last_error())) {
		hw_close(&hw);
		return;
	}
	ok(t.sock[0].ninst[cboi] == 6 && t.sock[1].ninst[cboi] == 6,
	   "offline: 6 CBos on each socket, an offlined core's slice "
	   "included (%u, %u)", t.sock[0].ninst[cboi], t.sock[1].ninst[cboi]);
	ok(t.sock[0].ncores == 5 && t.sock[1].ncores == 5 &&
	   t.sock[0].hw_cores == 6, "offline: 5 online cores read, 6 in the "
	   "package");
	is_int((int)t.sock[1].cpu, 9, "offline: socket 1's MSRs through CPU 9");
	{
		struct hw_addr a = hw_msr(2, 0xD04);

		is_int(hw_read(&hw, &a, &v), -ENXIO, "offline: an offline CPU's "
		       "MSR does not answer");
	}
	hw_close(&hw);

	wl = write_file("off.json",
		"{\"platform\":\"hsx\",\"sockets\":1,\"cores\":6,"
		"\"cbo_count\":6,\"offline_cpus\":[1],"
		"\"phases\":[{\"seconds\":1,\"rates\":{}}]}");
	o = (struct hw_opts){ .sim_workload = wl };
	if (!ok(hw_open(&hw, &hw_sim_ops, &o) == 0, "offline hsx: opens (%s)",
		hw_last_error()))
		return;
	hw_cpu_map_of(&hw, &m);
	memset(&t, 0, sizeof(t));
	ok(plat_discover(&plat_hsx, &hw, &t, &m) == 0 &&
	   t.sock[0].ninst[2] == 6 && t.sock[0].ncores == 5,
	   "offline hsx: 6 CBos (num_c), 5 cores read");
	hw_close(&hw);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	test_model();
	test_pmu();
	test_builtin();
	test_offline();
	unlink(write_file("off.json", ""));
	unlink(write_file("wl.json", ""));
	rmdir(tmpdir);
	return tap_done();
}
