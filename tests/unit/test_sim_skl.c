/*
 * test_sim_skl.c - the simulator's Skylake-client register model against
 * the manual: attributes, reserved bits, widths and wrap, global/local
 * enable, RW1C status, CBO_CONFIG, MCHBAR and the IMC window, workload
 * phases, faults and the file-backed state.  Time is a fake clock, so
 * every expected count is exact (+-1 event of rounding).
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
#include "tests/tap.h"
#define SIM_TEST_NAME "test_sim"
#include "tests/sim_test.h"

static const char *wl_basic =
	"{ \"platform\": \"skl\", \"cbo_count\": 4, \"uclk_hz\": 800000000,\n"
	"  \"mchbar\": \"0xfed10001\",\n"
	"  \"phases\": [\n"
	"   { \"seconds\": 10, \"rates\": {\n"
	"      \"cbo:0x34:0x8f\": 2.0e8, \"cbo:0x34:0x88\": 2.0e7,\n"
	"      \"cbo:0x22:0x48@2\": 1000,\n"
	"      \"arb:0x81:0x01\": 5.0e7, \"arb:0x80:0x01\": 4.0e9,\n"
	"      \"arb:0x80:0x01:thresh=1\": 6.0e8,\n"
	"      \"imc:DRAM_DATA_READS\": 1.5e8, \"imc:DRAM_DATA_WRITES\": 5.0e7 } },\n"
	"   { \"seconds\": 5, \"rates\": { \"cbo:0x34:0x8f\": 4.0e8 } }\n"
	"  ],\n"
	"  \"faults\": [\n"
	"   { \"at\": 100, \"kind\": \"eio\", \"target\": \"msr:0x706\", \"count\": 2 },\n"
	"   { \"at\": 200, \"kind\": \"foreign_write\", \"target\": \"msr:0xe01\", \"value\": \"0x0\" },\n"
	"   { \"at\": 300, \"kind\": \"stuck\", \"target\": \"imc:DRAM_DATA_WRITES\" }\n"
	"  ] }\n";

#define EN_GLOBAL (1ull << 29)
#define EVSEL_EN (1ull << 22)

static void test_attributes(struct hw *hw)
{
	uint64_t v;
	struct hw_addr a;

	/* Table 2-6: CBO_CONFIG is RO and reads CBos + 1. */
	is_u64(rd(hw, hw_msr(0, 0x396)), 5, "CBO_CONFIG reads cbo_count + 1");
	is_int(wr(hw, hw_msr(0, 0x396), 3), -EIO, "CBO_CONFIG write faults");
	like(hw_last_error(), "0x396", "message names the register");

	/* Unimplemented MSRs #GP; absent CPUs have no msr device. */
	a = hw_msr(0, 0x740);	/* CBo 4 does not exist */
	is_int(hw_read(hw, &a, &v), -EIO, "CBo 4 evtsel is not implemented");
	a = hw_msr(0, 0x123);
	is_int(hw_read(hw, &a, &v), -EIO, "random MSR is not implemented");
	a = hw_msr(64, 0xe01);
	is_int(hw_read(hw, &a, &v), -ENXIO, "CPU 64 does not exist");

	/* Table 2-7: reserved bits 63:29, 21, 19, 17:16 fault on write. */
	is_int(wr(hw, hw_msr(0, 0x700), 1ull << 21), -EIO, "evtsel bit 21 reserved");
	is_int(wr(hw, hw_msr(0, 0x700), 1ull << 19), -EIO, "evtsel bit 19 reserved");
	is_int(wr(hw, hw_msr(0, 0x700), 1ull << 16), -EIO, "evtsel bit 16 reserved");
	is_int(wr(hw, hw_msr(0, 0x700), 1ull << 29), -EIO, "evtsel bit 29 reserved");
	like(hw_last_error(), "reserved", "message says reserved");
	is_int(wr(hw, hw_msr(0, 0x700), 0x1fd4ffffull), 0,
	       "every RW evtsel bit is writable");
	is_u64(rd(hw, hw_msr(0, 0x700)), 0x1fd4ffffull, "evtsel reads back");
	wr(hw, hw_msr(0, 0x700), 0);

	/* Table 2-8 / 2-5: counter widths. */
	is_int(wr(hw, hw_msr(0, 0x706), 1ull << 44), -EIO, "CBo counter bit 44 reserved");
	is_int(wr(hw, hw_msr(0, 0x706), (1ull << 44) - 1), 0, "CBo counter 44 bits");
	is_u64(rd(hw, hw_msr(0, 0x706)), (1ull << 44) - 1, "counter reads back");
	is_int(wr(hw, hw_msr(0, 0x395), (1ull << 48) - 1), 0, "fixed counter 48 bits");
	is_int(wr(hw, hw_msr(0, 0x395), 1ull << 48), -EIO, "fixed counter bit 48 reserved");
	wr(hw, hw_msr(0, 0x706), 0);
	wr(hw, hw_msr(0, 0x395), 0);

	/* Table 2-2: global control reserved 63:32 and 28:4. */
	is_int(wr(hw, hw_msr(0, 0xe01), 1ull << 4), -EIO, "global ctl bit 4 reserved");
	is_int(wr(hw, hw_msr(0, 0xe01), 1ull << 32), -EIO, "global ctl bit 32 reserved");
	/* Table 2-4: fixed ctl reserved 21 and 19:0. */
	is_int(wr(hw, hw_msr(0, 0x394), 1), -EIO, "fixed ctl bit 0 reserved");

	/* PCI host bridge and MCHBAR. */
	a = hw_pci(0, 0, 0, 0, 0x48, 8);
	is_int(hw_read(hw, &a, &v), 0, "MCHBAR readable as 64 bits");
	is_u64(v, 0xfed10001ull, "MCHBAR from the workload");
	a = hw_pci(0, 0, 0, 0, 0x4c, 4);
	is_int(hw_read(hw, &a, &v), 0, "MCHBAR upper dword");
	is_u64(v, 0, "MCHBAR upper dword is 0");
	a = hw_pci(0, 0, 0, 0, 0, 4);
	hw_read(hw, &a, &v);
	is_u64(v, 0x191f8086ull, "host bridge vendor/device");
	a = hw_pci(0, 0, 2, 0, 0, 4);
	is_int(hw_read(hw, &a, &v), -ENODEV, "absent PCI device");
}

static void test_counting(struct hw *hw)
{
	uint64_t c0, c1;

	/* Program CBo 0 counter 0 = ANY_MESI, CBo 2 counter 1 = HITM. */
	wr(hw, hw_msr(0, 0x700), EVSEL_EN | 0x8f34);
	wr(hw, hw_msr(0, 0x721), EVSEL_EN | 0x4822);
	wr(hw, hw_msr(0, 0x711), EVSEL_EN | 0x4822);	/* CBo 1: no @1 key */
	advance(1);
	is_u64(rd(hw, hw_msr(0, 0x706)), 0, "global EN off: no counting");

	wr(hw, hw_msr(0, 0xe01), EN_GLOBAL);
	c0 = rd(hw, hw_msr(0, 0x706));
	advance(1);
	c1 = rd(hw, hw_msr(0, 0x706));
	is_near((double)(c1 - c0), 2.0e8 / 4, 1e-7,
		"rate split over 4 CBos: 5e7 events in 1 s");
	ok(c1 - c0 >= 49999999 && c1 - c0 <= 50000001, "exact to one event");
	is_u64(rd(hw, hw_msr(0, 0x727)), 1000, "@2 key counts in CBo 2 only");
	is_u64(rd(hw, hw_msr(0, 0x717)), 0, "other CBos get nothing of an @N key");

	/* Local enable off stops one counter. */
	wr(hw, hw_msr(0, 0x700), 0x8f34);
	c0 = rd(hw, hw_msr(0, 0x706));
	advance(1);
	is_u64(rd(hw, hw_msr(0, 0x706)), c0, "local EN off: counter holds");
	wr(hw, hw_msr(0, 0x700), EVSEL_EN | 0x8f34);

	/* Global EN off freezes everything, on resumes. */
	wr(hw, hw_msr(0, 0xe01), 0);
	c0 = rd(hw, hw_msr(0, 0x706));
	advance(2);
	is_u64(rd(hw, hw_msr(0, 0x706)), c0, "global freeze holds counters");
	wr(hw, hw_msr(0, 0xe01), EN_GLOBAL);

	/* ARB: occupancy with and without threshold are distinct keys. */
	wr(hw, hw_msr(0, 0x3b2), EVSEL_EN | 0x0180);
	wr(hw, hw_msr(0, 0x3b3), EVSEL_EN | (1ull << 24) | 0x0180);
	wr(hw, hw_msr(0, 0x3b0), 0);
	wr(hw, hw_msr(0, 0x3b1), 0);
	advance(0.5);
	is_near((double)rd(hw, hw_msr(0, 0x3b0)), 2.0e9, 1e-8, "ARB occupancy 4e9/s");
	is_near((double)rd(hw, hw_msr(0, 0x3b1)), 3.0e8, 1e-8,
		"ARB occupancy thresh=1 counts its own rate");

	/* Fixed counter: UCLK at uclk_hz when CNT_EN and global EN. */
	wr(hw, hw_msr(0, 0x395), 0);
	advance(1);
	is_u64(rd(hw, hw_msr(0, 0x395)), 0, "fixed counter off without CNT_EN");
	wr(hw, hw_msr(0, 0x394), 1ull << 22);
	advance(1);
	is_near((double)rd(hw, hw_msr(0, 0x395)), 8e8, 1e-8, "UCLK 8e8 per second");
}

static void test_wrap(struct hw *hw)
{
	uint64_t v, st;

	wr(hw, hw_msr(0, 0xe02), 0xb);	/* clear status */
	is_u64(rd(hw, hw_msr(0, 0xe02)) & 0xb, 0, "status clear");

	/* 44-bit CBo counter: 5e7/s from 2^44 - 1e7 wraps after 0.2 s. */
	wr(hw, hw_msr(0, 0x706), (1ull << 44) - 10000000);
	advance(1);
	v = rd(hw, hw_msr(0, 0x706));
	ok(v >= 39999999 && v <= 40000001, "44-bit wrap: %llu", (unsigned long long)v);
	st = rd(hw, hw_msr(0, 0xe02));
	ok(st & (1ull << 3), "CBO_CTR_OVF (bit 3) set on wrap");
	ok(!(st & 1), "fixed overflow not set yet");
	is_int(wr(hw, hw_msr(0, 0xe02), 0), 0, "writing 0 to status is allowed");
	ok(rd(hw, hw_msr(0, 0xe02)) & (1ull << 3), "writing 0 does not clear RW1C");
	wr(hw, hw_msr(0, 0xe02), 1ull << 3);
	ok(!(rd(hw, hw_msr(0, 0xe02)) & (1ull << 3)), "writing 1 clears RW1C");
	is_int(wr(hw, hw_msr(0, 0xe02), 1ull << 2), -EIO, "status bit 2 reserved");

	/* 48-bit fixed counter. */
	wr(hw, hw_msr(0, 0x395), (1ull << 48) - 400000000);
	advance(1);
	v = rd(hw, hw_msr(0, 0x395));
	ok(v >= 399999999 && v <= 400000001, "48-bit wrap of the fixed counter");
	ok(rd(hw, hw_msr(0, 0xe02)) & 1, "FIXED_CTR_OVF set");

	/* ARB 44-bit. */
	wr(hw, hw_msr(0, 0x3b0), (1ull << 44) - 1);
	advance(0.001);
	ok(rd(hw, hw_msr(0, 0xe02)) & 2, "ARB_CTR_OVF set");
	wr(hw, hw_msr(0, 0xe02), 0xb);
}

static void test_imc(struct hw *hw)
{
	uint64_t r0, r1, v;
	struct hw_addr a = hw_mmio(0xfed10000ull + 0x5050, 4);

	r0 = rd(hw, a);
	advance(20);	/* 3e9 events: more than 2^32 in the counter? */
	r1 = rd(hw, a);
	v = (r1 - r0) & 0xffffffffull;
	/* time spent in phase 0 vs 1 depends on where we are; compute it */
	ok(r1 <= 0xffffffffull, "IMC counter is 32 bits wide");
	ok(v > 0, "IMC DRAM_DATA_READS advances (free-running, no enable)");
	is_int(wr(hw, a, 0), 0, "IMC counter write is ignored");
	ok(rd(hw, a) >= r1, "IMC counter unchanged by the write");

	a = hw_mmio(0xfed10000ull + 0x5058, 4);
	is_int(hw_read(hw, &a, &v), 0, "unimplemented offset inside MCHBAR reads");
	a = hw_mmio(0xfed18000ull + 0x5050, 4);
	is_int(hw_read(hw, &a, &v), -EFAULT, "outside the MCHBAR window faults");

	/* Disabling MCHBAR removes the window. */
	wr(hw, hw_pci(0, 0, 0, 0, 0x48, 8), 0xfed10000ull);
	a = hw_mmio(0xfed10000ull + 0x5050, 4);
	is_int(hw_read(hw, &a, &v), -EFAULT, "MCHBAR disabled: no IMC window");
	like(hw_last_error(), "MCHBAR disabled", "message explains why");
	wr(hw, hw_pci(0, 0, 0, 0, 0x48, 8), 0xfed10001ull);
	is_int(hw_read(hw, &a, &v), 0, "MCHBAR re-enabled");
}

static void test_phases_and_faults(void)
{
	struct hw hw;
	uint64_t c0, c1, v;
	struct hw_addr a;
	int i, fails = 0;

	open_sim(&hw, write_file("wl.json", wl_basic), NULL);
	/* t = 0 */
	wr(&hw, hw_msr(0, 0xe01), EN_GLOBAL);
	wr(&hw, hw_msr(0, 0x700), EVSEL_EN | 0x8f34);
	c0 = rd(&hw, hw_msr(0, 0x706));
	advance(15);	/* one period: 10 s at 2e8 + 5 s at 4e8, /4 CBos */
	c1 = rd(&hw, hw_msr(0, 0x706));
	is_near((double)(c1 - c0), (10 * 2e8 + 5 * 4e8) / 4, 1e-9,
		"phase integral over one period");
	advance(15 * 4 + 7.5);	/* 4 periods + 7.5 s */
	c0 = rd(&hw, hw_msr(0, 0x706));
	is_near((double)(c0 - c1), (4 * 4e9 + 7.5 * 2e8) / 4, 1e-9,
		"phases repeat");

	/* eio fault at t=100: two failing accesses, then fine. */
	fake_ns += (int64_t)((100.5 - hw_sim_time(&hw)) * 1e9);
	a = hw_msr(0, 0x706);
	for (i = 0; i < 4; i++)
		if (hw_read(&hw, &a, &v) == -EIO)
			fails++;
	is_int(fails, 2, "eio fault fails exactly count accesses");
	a = hw_msr(0, 0x707);
	is_int(hw_read(&hw, &a, &v), 0, "other registers unaffected");

	/* foreign write of 0xe01 = 0 at t=200 stops counting exactly then. */
	fake_ns += (int64_t)((199 - hw_sim_time(&hw)) * 1e9);
	c0 = rd(&hw, hw_msr(0, 0x706));
	advance(30);
	c1 = rd(&hw, hw_msr(0, 0x706));
	is_u64(rd(&hw, hw_msr(0, 0xe01)), 0, "foreign write applied");
	/* t 199..200 lies at 199 mod 15 = 4 -> phase 0 (2e8/4 per s) */
	is_near((double)(c1 - c0), 2e8 / 4, 1e-6, "counting stopped at t=200");

	/* stuck at t=300 on DRAM_DATA_WRITES; reads keep advancing. */
	a = hw_mmio(0xfed10000ull + 0x5054, 4);
	fake_ns += (int64_t)((301 - hw_sim_time(&hw)) * 1e9);
	c0 = rd(&hw, a);
	advance(5);
	is_u64(rd(&hw, a), c0, "stuck counter no longer advances");
	a = hw_mmio(0xfed10000ull + 0x5050, 4);
	c0 = rd(&hw, a);
	advance(1);
	ok(rd(&hw, a) != c0, "other IMC counters keep running");
	hw_close(&hw);
}

static void test_state_file(void)
{
	struct hw hw, hw2;
	char state[256];
	const char *wl;
	uint64_t v0, v1;
	struct hw_opts o;
	int r;

	snprintf(state, sizeof(state), "%s/state", tmpdir);
	wl = write_file("wl2.json", wl_basic);
	open_sim(&hw, wl, state);
	wr(&hw, hw_msr(0, 0xe01), EN_GLOBAL);
	wr(&hw, hw_msr(0, 0x700), EVSEL_EN | 0x8f34);
	advance(1);
	v0 = rd(&hw, hw_msr(0, 0x706));
	ok(v0 > 0, "counting with a state file");

	/* A second process-like opener shares the same machine. */
	o = (struct hw_opts){ .sim_workload = wl, .sim_state = state };
	r = hw_open(&hw2, &hw_sim_ops, &o);
	is_int(r, 0, "second opener of the same state");
	hw_sim_set_clock(&hw2, fake_clock, NULL);
	is_u64(rd(&hw2, hw_msr(0, 0x700)), EVSEL_EN | 0x8f34,
	       "registers are shared");
	wr(&hw2, hw_msr(0, 0x700), 0x8f34);	/* the other agent disables */
	is_u64(rd(&hw, hw_msr(0, 0x700)), 0x8f34, "first sees the other's write");
	hw_close(&hw2);
	hw_close(&hw);

	/* Survives close/reopen like hardware survives a daemon restart. */
	open_sim(&hw, wl, state);
	v1 = rd(&hw, hw_msr(0, 0x706));
	ok(v1 >= v0, "counter value survives reopen");
	is_u64(rd(&hw, hw_msr(0, 0xe01)), EN_GLOBAL, "global control survives");
	hw_close(&hw);

	/* A different topology refuses the state. */
	wl = write_file("wl3.json",
			"{\"platform\":\"skl\",\"cbo_count\":2,\"phases\":"
			"[{\"seconds\":1,\"rates\":{}}]}");
	o = (struct hw_opts){ .sim_workload = wl, .sim_state = state };
	r = hw_open(&hw, &hw_sim_ops, &o);
	is_int(r, -EINVAL, "state of another topology is refused");
	like(hw_last_error(), "remove it", "message says what to do");
}

static void test_small_topology(void)
{
	struct hw hw;
	struct hw_addr a = hw_msr(0, 0x720);
	uint64_t v;

	open_sim(&hw, write_file("wl4.json",
				 "{\"platform\":\"skl\",\"cbo_count\":2,"
				 "\"phases\":[{\"seconds\":1,\"rates\":{}}]}"),
		 NULL);
	is_u64(rd(&hw, hw_msr(0, 0x396)), 3, "2 CBos: CBO_CONFIG reads 3");
	is_int(hw_read(&hw, &a, &v), -EIO, "CBo 2 absent on a 2-CBo part");
	hw_close(&hw);
}

/* An 8-core Coffee Lake: eight CBos, the eighth at 0xF70 (not 0x770). */
static void test_eight_cbos(void)
{
	struct hw hw;
	struct hw_addr a = hw_msr(0, 0x770);
	uint64_t v, c0;

	open_sim(&hw, write_file("wl8.json",
				 "{\"platform\":\"skl\",\"cbo_count\":8,"
				 "\"phases\":[{\"seconds\":10,\"rates\":"
				 "{\"cbo:0x34:0x8f@7\":1000,"
				 "\"cbo:0x34:0x88\":8000}}]}"),
		 NULL);
	is_u64(rd(&hw, hw_msr(0, 0x396)), 9, "8 CBos: CBO_CONFIG reads 9");
	is_int(hw_read(&hw, &a, &v), -EIO, "no CBo at the stride's 0x770");
	wr(&hw, hw_msr(0, 0xF70), EVSEL_EN | 0x8f34);
	wr(&hw, hw_msr(0, 0xF71), EVSEL_EN | 0x8834);
	wr(&hw, hw_msr(0, 0xe01), EN_GLOBAL);
	c0 = rd(&hw, hw_msr(0, 0xF77));
	advance(2);
	is_u64(rd(&hw, hw_msr(0, 0xF76)), 2000, "CBo 7 counter 0 at 0xF76 counts its @7 rate");
	is_u64(rd(&hw, hw_msr(0, 0xF77)) - c0, 2000,
	       "CBo 7 counter 1 at 0xF77: 8000/s over 8 CBos");
	hw_close(&hw);
}

static void test_builtin(void)
{
	struct hw hw;
	struct hw_opts o = { 0 };

	is_int(hw_open(&hw, &hw_sim_ops, &o), 0, "built-in workload opens");
	is_str(hw_sim_platform(&hw)->id, "skl", "built-in platform is skl");
	is_u64(rd(&hw, hw_msr(0, 0x396)), 5, "built-in: 4 CBos");
	hw_close(&hw);
}

/* The daemon chooses the simulator by its ops (backend.c) and then
 * reaches it only through them. */
static void test_ops(void)
{
	struct hw_opts o = { .sim_platform = "hsx" };
	struct hw_cpu_map m;
	struct hw hw;

	ok(strcmp(hw_sim_ops.name, "sim") == 0, "the simulator's ops: \"sim\"");
	ok(strcmp(hw_real_ops.name, "hw") == 0, "the machine's: \"hw\"");
	if (!ok(hw_open(&hw, &hw_sim_ops, &o) == 0, "open hsx: %s",
		hw_last_error()))
		return;
	ok(plat_of_hw(&hw) == &plat_hsx, "the simulator's platform");
	hw_cpu_map_of(&hw, &m);
	is_u64(m.cpus_per_package, SIM_CPUS_PER_SOCKET, "its CPU numbering");
	is_u64(m.cores_per_package, hw_sim_cores(&hw), "and cores");
	ok(!m.sysfs_cpu_root, "no sysfs");
	hw_close(&hw);
	/* the real backend models nothing: the CPU says */
	hw.ops = &hw_real_ops;
	ok(plat_of_hw(&hw) == NULL, "the machine's platform comes from CPUID");
	hw_cpu_map_of(&hw, &m);
	ok(!m.cpus_per_package && !m.cores_per_package, "and its CPUs from sysfs");
}

int main(void)
{
	struct hw hw;

	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	open_sim(&hw, write_file("wl.json", wl_basic), NULL);
	test_attributes(&hw);
	test_counting(&hw);
	test_wrap(&hw);
	test_imc(&hw);
	is_u64(hw.nreads + hw.nwrites > 0, 1, "accesses are counted");
	hw_close(&hw);
	test_phases_and_faults();
	test_state_file();
	test_small_topology();
	test_eight_cbos();
	test_builtin();
	test_ops();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
	}
	return tap_done();
}
