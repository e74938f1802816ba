/*
 * test_sim_hsx.c - the simulator's Xeon E5/E7 v3 ("hsx") register model
 * against the manual (331051-002): discovery through plat_discover() on 1
 * and 2 simulated sockets (buses, node-ID mapping, CBo count, absent
 * units), the global freeze (frz_all / unfrz_all, 2.1.2), box control
 * (frz, rst_ctrs, rst_ctrl, the must-be-one bits 17:16), counter widths
 * and wrap with box and global overflow status, PCI dword access to
 * 48-bit counters, box filters gating the workload's rates, faults,
 * free-running counters, fixed counters, several sockets, the built-in
 * workload and conf/workloads/hsx-default.json.  Time is a fake clock,
 * so every expected count is exact (+-1 event of rounding).
 *
 * Addresses are written out from the manual's tables where a test is
 * about the model (CBo 0 box control 0xE00, HA 0 at D18:F1 offset F4,
 * ...), and taken from the platform tables (plat_*_addr()) where it is
 * about the model agreeing with them.
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
#include "plat/plat_hsx.h"
#include "tests/tap.h"
#define SIM_TEST_NAME "test_sim_hsx"
#define SIM_TEST_PLATFORM (&plat_hsx)
#include "tests/sim_test.h"

/* Moves the fake clock to simulated time t (seconds). */
static void goto_time(struct hw *hw, double t)
{
	fake_ns += (int64_t)((t - hw_sim_time(hw)) * 1e9);
}

static int uidx(const char *name)
{
	int i;

	unit(name, &i);
	return i;
}

/* A core-scope MSR summed over the cores of the socket whose first CPU
 * is cpu0 (the simulator: CPUs cpu0 .. cpu0 + cores - 1). */
static uint64_t core_sum(struct hw *hw, uint32_t cpu0, uint32_t msr,
			 unsigned cores)
{
	uint64_t sum = 0;

	for (unsigned c = 0; c < cores; c++)
		sum += rd(hw, hw_msr(cpu0 + c, msr));
	return sum;
}

static int rd_err(struct hw *hw, struct hw_addr a)
{
	uint64_t v;

	return hw_read(hw, &a, &v);
}

static void discover(struct hw *hw, struct topology *t)
{
	int r = plat_discover(P, hw, t,
			      &(struct hw_cpu_map){ .cpus_per_package = 8 });

	if (r < 0) {
		printf("Bail out! discovery failed: %s\n", hw_last_error());
		exit(1);
	}
}

/* The control value that counts catalog event name on counter ctr. */
static uint64_t ctl_of(const char *name, unsigned ctr)
{
	const struct event *ev = plat_event(P, name);
	const struct unit_type *u = ev ? plat_unit(P, ev->unit, NULL) : NULL;
	char why[256];
	uint64_t v = 0;

	if (!u || plat_encode_event(u, ev, ctr, &v, why, sizeof(why)) < 0) {
		printf("Bail out! cannot encode %s: %s\n", name,
		       ev ? why : "no such event");
		exit(1);
	}
	return v;
}

/* The control value of a raw encoding "unit:ev:umask..." on ctr. */
static uint64_t ctl_raw(const char *raw, unsigned ctr)
{
	const struct unit_type *u;
	struct event_enc e;
	char why[256];
	uint64_t v = 0;

	if (plat_parse_raw(P, raw, &u, &e, why, sizeof(why)) < 0 ||
	    plat_encode(u, &e, ctr, 0xff, &v, why, sizeof(why)) < 0) {
		printf("Bail out! cannot encode %s: %s\n", raw, why);
		exit(1);
	}
	return v;
}

#define EN (1ull << 22)
#define OV_EN (1ull << 20)
#define MUST1 0x30000ull
#define BOX_RST_CTRL 0x1ull
#define BOX_RST_CTRS 0x2ull
#define BOX_FRZ 0x100ull
#define FRZ_ALL (1ull << 31)
#define UNFRZ_ALL (1ull << 29)
#define F0_ANY 0x7e0000ull	/* FILTER0.state 0x3F */
#define F0_MISS 0x20000ull	/* FILTER0.state I */
/* Table 2-3: every RW1C bit of U_MSR_PMON_GLOBAL_STATUS */
#define GSTAT_ALL (0x7ull | 0x1ffull << 21 | 0x3ull << 34)
#define P48 (1ull << 48)
#define P44 (1ull << 44)

/* Exact to one event of rounding. */
#define is_count(got, want, ...)                                        \
	do {                                                            \
		double g__ = (double)(got), w__ = (double)(want);       \
		if (!tap_ok(g__ >= w__ - 1 && g__ <= w__ + 1, __VA_ARGS__)) \
			printf("#   got %.0f, want %.0f +- 1\n#   at %s:%d\n", \
			       g__, w__, __FILE__, __LINE__);           \
	} while (0)

/* ---- workloads -------------------------------------------------------- */

/* One socket, a small part: 8 CBos, 2 SBos, 1 HA, 4 channels, 2 QPI
 * ports and R3QPI links. */
static const char *wl_1s =
	"{ \"platform\": \"hsx\", \"sockets\": 1, \"cbo_count\": 8,\n"
	"  \"sbox_count\": 2, \"ha_count\": 1, \"imc_channels\": 4,\n"
	"  \"qpi_ports\": 2, \"r3qpi_links\": 2,\n"
	"  \"uclk_hz\": 2000000000, \"dclk_hz\": 800000000,\n"
	"  \"phases\": [ { \"seconds\": 1000, \"rates\": {\n"
	"    \"cbo:0x34:0x11:filter0=0x7e0000\": 8.0e8,\n"
	"    \"cbo:0x34:0x11:filter0=0x20000\": 8.0e7,\n"
	"    \"cbo:0x35:0x01:filter1=0x18200000\": 1.6e7,\n"
	"    \"cbo:0x00:0x00\": 1.6e10,\n"
	"    \"sbox:0x00:0x00\": 4.0e9,\n"
	"    \"ubox:0x42:0x08\": 1.0e6,\n"
	"    \"ha:0x01:0x03\": 5.0e7,\n"
	"    \"ha:0x20:0x02:filter1=0x1\": 1.0e6,\n"
	"    \"imc:0x04:0x03\": 4.0e8,\n"
	"    \"imc:0x04:0x0c\": 2.0e8,\n"
	"    \"irp:0x00:0x00\": 2.0e9,\n"
	"    \"pcu:0x0b:0x00:filter0=0x1e\": 5.0e8,\n"
	"    \"pcu:0x00:0x00\": 8.0e8,\n"
	"    \"pcu_cstate:UNC_P_CORE_CC6_CTR\": 1.0e9,\n"
	"    \"pcu_cstate:UNC_P_CORE_PC3_CTR\": 2.5e7,\n"
	"    \"qpi:0x00:0x02\": 2.0e8,\n"
	"    \"qpi:0x00:0x02:ext\": 4.0e7,\n"
	"    \"qpi:0x38:0x00:ext:filter0=0x100000000\": 2.0e5,\n"
	"    \"qpi_link:UNC_Q_LINK_IDLE\": 2.0e9,\n"
	"    \"qpi_link:UNC_Q_LINK_LLR\": 2.0e3,\n"
	"    \"r2pcie:0x01:0x00\": 2.0e9,\n"
	"    \"r3qpi:0x01:0x00\": 2.0e9 } } ],\n"
	"  \"faults\": [\n"
	"    { \"at\": 500, \"kind\": \"device_missing\",\n"
	"      \"target\": \"pci:ff:14.1\" },\n"
	"    { \"at\": 600, \"kind\": \"stuck\",\n"
	"      \"target\": \"pci:ff:14.0+0xa0\" } ] }\n";

/* Two sockets with different loads (s0/ and s1/ keys), three QPI ports,
 * port 1 of socket 1 missing from the start. */
static const char *wl_2s =
	"{ \"platform\": \"hsx\", \"sockets\": 2, \"cbo_count\": 4,\n"
	"  \"qpi_ports\": 3, \"imc_channels\": 2,\n"
	"  \"phases\": [ { \"seconds\": 1000, \"rates\": {\n"
	"    \"s0/cbo:0x34:0x11:filter0=0x7e0000\": 4.0e8,\n"
	"    \"s1/cbo:0x34:0x11:filter0=0x7e0000\": 2.0e8,\n"
	"    \"cbo:0x34:0x11:filter0=0x20000\": 4.0e7,\n"
	"    \"s1/imc:0x04:0x03\": 1.0e8,\n"
	"    \"imc:0x04:0x03@1\": 3.0e7 } } ],\n"
	"  \"faults\": [ { \"at\": 0, \"kind\": \"device_missing\",\n"
	"                  \"target\": \"s1/pci:df:09.2\" } ] }\n";

/* ---- discovery -------------------------------------------------------- */

struct scan_acc {
	unsigned n;
	struct hw_pci_dev d[64];
};

static int scan_cb(void *ctx, const struct hw_pci_dev *d)
{
	struct scan_acc *a = ctx;

	if (a->n < 64)
		a->d[a->n] = *d;
	a->n++;
	return 0;
}

static const struct hw_pci_dev *scan_find(const struct scan_acc *a,
					  uint8_t bus, uint8_t dev,
					  uint8_t fn)
{
	for (unsigned i = 0; i < a->n && i < 64; i++)
		if (a->d[i].bus == bus && a->d[i].dev == dev &&
		    a->d[i].fn == fn)
			return &a->d[i];
	return NULL;
}

static void test_discovery_1s(struct hw *hw, struct topology *t)
{
	const struct topo_socket *s;
	struct scan_acc sc = { 0 };
	static const struct { const char *unit; unsigned n; } want[] = {
		{ "ubox", 1 }, { "ubox_fixed", 1 }, { "cbo", 8 }, { "sbox", 2 },
		{ "ha", 1 }, { "imc", 4 }, { "imc_fixed", 4 }, { "irp", 1 },
		{ "pcu", 1 }, { "pcu_cstate", 1 }, { "qpi", 2 },
		{ "qpi_link", 2 }, { "r2pcie", 1 }, { "r3qpi", 2 },
	};
	/* 14 functions: UBox, HA0, 4 channels, IRP, 2 QPI PMON + 2
	 * match/mask, R2PCIe, 2 R3QPI */
	static const struct { uint8_t dev, fn; uint16_t id; } fns[] = {
		{ 5, 6, 0x2F39 }, { 8, 2, 0x2F32 }, { 8, 6, 0x2F86 },
		{ 9, 2, 0x2F33 }, { 9, 6, 0x2F96 }, { 11, 1, 0x2F36 },
		{ 11, 2, 0x2F37 }, { 16, 1, 0x2F34 }, { 16, 5, 0x2F1E },
		{ 18, 1, 0x2F30 }, { 20, 0, 0x2FB4 }, { 20, 1, 0x2FB5 },
		{ 21, 0, 0x2FB0 }, { 21, 1, 0x2FB1 },
	};
	bool all = true, ids = true;
	uint64_t map;

	discover(hw, t);
	s = &t->sock[0];
	is_int(t->nsockets, 1, "1 socket discovered");
	is_int(s->pci_bus, 0xff, "socket 0 on bus 0xff");
	is_int(hw_sim_pci_bus(hw, 0), 0xff, "hw_sim_pci_bus agrees");
	is_int(s->node_id, hw_sim_node_id(hw, 0), "node ID from CPUNODEID");
	is_int(s->node_id, 2, "package 0 is node 2 (permuted mapping)");
	is_int(s->id, 0, "package 0");
	is_int(s->cpu, 0, "CPU 0 reaches it");
	ok(s->ubox_dev == 16 && s->ubox_fn == 5, "UBox function 16.5");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int ui = uidx(want[i].unit);

		if (s->ninst[ui] != want[i].n || !iset_empty(&s->absent[ui])) {
			printf("# %s: ninst %u absent 0x%llx, want %u\n",
			       want[i].unit, s->ninst[ui],
			       (unsigned long long)s->absent[ui].w[0],
			       want[i].n);
			all = false;
		}
	}
	ok(all, "instances per unit follow the workload's topology");
	is_int(s->ninst[uidx("qpi")], 2, "qpi_ports 2: QPI port 2 absent");
	is_u64(rd(hw, hw_msr(0, 0x702)), 8, "num_c (0x702) = cbo_count");

	is_int(hw_pci_scan(hw, scan_cb, &sc), 0, "PCI scan");
	is_int(sc.n, sizeof(fns) / sizeof(fns[0]),
	       "scan lists every present function and nothing else");
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		const struct hw_pci_dev *d = scan_find(&sc, 0xff, fns[i].dev,
						       fns[i].fn);

		if (!d || d->vendor != 0x8086 || d->device != fns[i].id ||
		    rd(hw, hw_pci(0, 0xff, fns[i].dev, fns[i].fn, 0, 4)) !=
		    ((uint64_t)fns[i].id << 16 | 0x8086)) {
			printf("# %02x.%x: want 8086:%04x\n", fns[i].dev,
			       fns[i].fn, fns[i].id);
			ids = false;
		}
	}
	ok(ids, "device IDs in the scan and at offset 0 (Table 1-3)");
	for (unsigned i = 1; i < sc.n && i < 64; i++)
		if ((sc.d[i].dev << 3 | sc.d[i].fn) <=
		    (sc.d[i - 1].dev << 3 | sc.d[i - 1].fn))
			ids = false;
	ok(ids, "scan in dev.fn order");
	is_int(rd_err(hw, hw_pci(0, 0xff, 18, 5, 0, 4)), -ENODEV,
	       "ha_count 1: HA 1 (18.5) absent");
	is_int(rd_err(hw, hw_pci(0, 0xff, 10, 2, 0, 4)), -ENODEV,
	       "qpi_ports 2: QPI port 2 (0a.2) absent");
	is_int(rd_err(hw, hw_pci(0, 0xff, 10, 6, 0, 4)), -ENODEV,
	       "and its match/mask function (0a.6)");
	is_int(rd_err(hw, hw_pci(0, 0xff, 11, 5, 0, 4)), -ENODEV,
	       "r3qpi_links 2: link 2 (0b.5) absent");
	is_int(rd_err(hw, hw_pci(0, 0xff, 23, 0, 0, 4)), -ENODEV,
	       "imc_channels 4: MC1 (17.0) absent");
	is_int(rd_err(hw, hw_pci(0, 0x7f, 18, 1, 0, 4)), -ENODEV,
	       "nothing on another bus");
	map = rd(hw, hw_pci(0, 0xff, 16, 5, 0x54, 4));
	ok(map != 0xfac688u, "GIDNIDMAP is not the identity mapping");
	for (unsigned p = 0; p < 8; p++)
		if (hsx_node_to_package((map >> (3 * p)) & 7, (uint32_t)map) !=
		    (int)p)
			all = false;
	ok(all, "GIDNIDMAP is a permutation of the 8 node IDs");
	is_int(wr(hw, hw_pci(0, 0xff, 16, 5, 0x40, 4), 7), 0,
	       "a write to CPUNODEID is dropped");
	is_u64(rd(hw, hw_pci(0, 0xff, 16, 5, 0x40, 4)), 2, "CPUNODEID read-only");
}

static void test_discovery_2s(void)
{
	struct hw hw;
	struct topology t;
	struct scan_acc sc = { 0 };
	int q = uidx("qpi"), ql = uidx("qpi_link");
	uint64_t m0, m1;

	open_sim(&hw, write_file("wl2s.json", wl_2s), NULL);
	discover(&hw, &t);
	is_int(t.nsockets, 2, "2 sockets discovered");
	hw_pci_scan(&hw, scan_cb, &sc);
	ok(sc.n > 0 && sc.d[0].bus == 0xdf,
	   "the scan meets socket 1's bus (0xdf) first");
	ok(t.sock[0].id == 0 && t.sock[0].pci_bus == 0xff &&
	   t.sock[0].cpu == 0 && t.sock[0].node_id == 2,
	   "socket 0: package 0, bus 0xff, CPU 0, node 2");
	ok(t.sock[1].id == 1 && t.sock[1].pci_bus == 0xdf &&
	   t.sock[1].cpu == 8 && t.sock[1].node_id == 5,
	   "socket 1: package 1, bus 0xdf, CPU 8, node 5");
	is_int(hw_sim_node_id(&hw, 1), 5, "hw_sim_node_id agrees");
	m0 = rd(&hw, hw_pci(0, 0xff, 16, 5, 0x54, 4));
	m1 = rd(&hw, hw_pci(0, 0xdf, 16, 5, 0x54, 4));
	ok(m0 == m1 && hsx_node_to_package(2, (uint32_t)m0) == 0 &&
	   hsx_node_to_package(5, (uint32_t)m0) == 1,
	   "GIDNIDMAP the same on both sockets and maps nodes 2, 5 to "
	   "packages 0, 1");
	is_int(t.sock[0].ninst[uidx("cbo")], 4, "4 CBos on socket 0");
	is_int(t.sock[1].ninst[uidx("cbo")], 4, "4 CBos on socket 1");
	is_u64(rd(&hw, hw_msr(8, 0x702)), 4, "num_c on socket 1's CPU 8");
	ok(t.sock[0].ninst[q] == 3 && iset_empty(&t.sock[0].absent[q]),
	   "socket 0: three QPI ports");
	ok(t.sock[1].ninst[q] == 3 && t.sock[1].absent[q].w[0] == 0x2,
	   "socket 1: QPI port 1 missing (device_missing at 0)");
	ok(t.sock[1].ninst[ql] == 3 && t.sock[1].absent[ql].w[0] == 0x2,
	   "and its link counters");
	ok(!scan_find(&sc, 0xdf, 9, 2) && scan_find(&sc, 0xff, 9, 2),
	   "the missing function is not listed; socket 0's is");
	is_int(rd_err(&hw, hw_msr(16, 0x700)), -ENXIO, "no CPU 16");
	hw_close(&hw);
}

/* ---- freeze, reset, must-be-one ---------------------------------------- */

static void test_freeze(struct hw *hw, const struct topology *t)
{
	const struct topo_socket *s = &t->sock[0];
	const struct unit_type *cbo = unit("cbo", NULL);
	uint64_t c0, c1, ctl = ctl_of("UNC_C_LLC_LOOKUP.ANY", 0);
	struct hw_sim_box b;

	/* reset every box like the daemon does, then program CBo 0 and 1 */
	is_int(plat_reset_boxes(hw, t, 0), 0, "plat_reset_boxes on the model");
	is_int(hw_sim_box_state(hw, 0, uidx("cbo"), 0, &b), 0, "CBo 0 box");
	ok(b.has_ctl && !b.frozen && !b.last_lacked_must1 && b.ctl_writes == 1,
	   "reset wrote the box control once, with bits 17:16");
	is_int(wr(hw, hw_msr(0, 0xE05), F0_ANY), 0, "CBo 0 FILTER0 = any state");
	is_int(wr(hw, hw_msr(0, 0xE15), F0_ANY), 0, "CBo 1 FILTER0 = any state");
	is_int(wr(hw, hw_msr(0, 0xE01), ctl), 0, "CBo 0 CTL0 = LLC_LOOKUP.ANY");
	is_int(wr(hw, hw_msr(0, 0xE11), ctl), 0, "CBo 1 CTL0 = LLC_LOOKUP.ANY");
	ok(ctl & EN, "encoding sets the local enable");

	/* Reset state: not frozen (the manual's protocol starts with
	 * frz_all, but Linux counts without ever touching 0x700). */
	is_int(hw_sim_global_frozen(hw, 0), 0, "not globally frozen at reset");
	c0 = rd(hw, hw_msr(0, 0xE08));
	advance(1);
	c1 = rd(hw, hw_msr(0, 0xE08));
	is_count(c1 - c0, 8.0e8 / 8, "1e8 lookups/s in CBo 0 (8e8 over 8)");

	/* Table 2-2: frz_all and unfrz_all are write-only */
	is_int(wr(hw, hw_msr(0, 0x700), FRZ_ALL), 0, "frz_all");
	is_int(hw_sim_global_frozen(hw, 0), 1, "globally frozen");
	is_u64(rd(hw, hw_msr(0, 0x700)), 0, "GLOBAL_CTL reads 0 (WO bits)");
	c0 = rd(hw, hw_msr(0, 0xE08));
	advance(2);
	is_u64(rd(hw, hw_msr(0, 0xE08)), c0, "frz_all holds CBo counters");
	c0 = core_sum(hw, 0, 0x3FD, 8);
	advance(1);
	is_count(core_sum(hw, 0, 0x3FD, 8) - c0, 1e9,
		 "free-running C-state counter ignores the freeze");
	is_int(wr(hw, hw_msr(0, 0x700), 0x5), 0, "pmi_core_sel is RW");
	is_u64(rd(hw, hw_msr(0, 0x700)), 0x5, "and reads back");
	is_int(hw_sim_global_frozen(hw, 0), 1, "writing 0 to the WO bits does "
	       "not unfreeze");
	is_int(wr(hw, hw_msr(0, 0x700), 1ull << 27), -EIO,
	       "GLOBAL_CTL bit 27 reserved (#GP)");
	is_int(wr(hw, hw_msr(0, 0x700), 1ull << 32), -EIO,
	       "GLOBAL_CTL bit 32 beyond the 32-bit register (#GP)");
	c0 = rd(hw, hw_msr(0, 0xE08));
	is_int(wr(hw, hw_msr(0, 0x700), UNFRZ_ALL), 0, "unfrz_all");
	is_int(hw_sim_global_frozen(hw, 0), 0, "unfrozen");
	advance(1);
	is_count(rd(hw, hw_msr(0, 0xE08)) - c0, 1e8, "counting again");
	wr(hw, hw_msr(0, 0x700), FRZ_ALL | UNFRZ_ALL);
	is_int(hw_sim_global_frozen(hw, 0), 1, "both bits: frz_all wins");
	is_int(P->ops->global_enable(hw, t, 0, true), 0,
	       "plat global_enable(on) writes unfrz_all");
	is_int(hw_sim_global_frozen(hw, 0), 0, "and unfreezes");

	/* Box-level freeze (2.1.2 a/f): CBo 0 frozen, CBo 1 not */
	is_int(plat_box_write(hw, s, cbo, 0, BOX_FRZ), 0, "CBo 0 box frz");
	hw_sim_box_state(hw, 0, uidx("cbo"), 0, &b);
	ok(b.frozen, "CBo 0 box frozen");
	is_u64(rd(hw, hw_msr(0, 0xE00)), 0, "box control reads 0");
	c0 = rd(hw, hw_msr(0, 0xE08));
	c1 = rd(hw, hw_msr(0, 0xE18));
	advance(1);
	is_u64(rd(hw, hw_msr(0, 0xE08)), c0, "box frz holds CBo 0");
	is_count(rd(hw, hw_msr(0, 0xE18)) - c1, 1e8, "CBo 1 keeps counting");
	is_int(plat_box_write(hw, s, cbo, 0, 0), 0, "box control without frz");
	c0 = rd(hw, hw_msr(0, 0xE08));
	advance(1);
	is_count(rd(hw, hw_msr(0, 0xE08)) - c0, 1e8, "CBo 0 counts again");

	/* Local enable */
	wr(hw, hw_msr(0, 0xE01), ctl & ~EN);
	c0 = rd(hw, hw_msr(0, 0xE08));
	advance(1);
	is_u64(rd(hw, hw_msr(0, 0xE08)), c0, "local enable off holds it");
	wr(hw, hw_msr(0, 0xE01), ctl);
}

static void test_box_reset(struct hw *hw, const struct topology *t)
{
	const struct topo_socket *s = &t->sock[0];
	const struct unit_type *cbo = unit("cbo", NULL);
	const struct unit_type *sbo = unit("sbox", NULL);
	const struct unit_type *r2 = unit("r2pcie", NULL);
	uint64_t ctl = ctl_of("UNC_C_LLC_LOOKUP.ANY", 0);
	uint64_t c0;
	struct hw_sim_box b;

	/* rst_ctrs: counters to 0, controls kept */
	wr(hw, hw_msr(0, 0xE02), ctl_of("UNC_C_CLOCKTICKS", 1));
	advance(1);
	ok(rd(hw, hw_msr(0, 0xE08)) > 0 && rd(hw, hw_msr(0, 0xE09)) > 0,
	   "CBo 0 counters 0 and 1 count");
	is_int(plat_box_write(hw, s, cbo, 0, BOX_RST_CTRS), 0, "rst_ctrs");
	ok(rd(hw, hw_msr(0, 0xE08)) == 0 && rd(hw, hw_msr(0, 0xE09)) == 0,
	   "rst_ctrs clears the box's counters");
	is_u64(rd(hw, hw_msr(0, 0xE01)), ctl, "and keeps the controls");
	ok(rd(hw, hw_msr(0, 0xE18)) > 0, "other boxes untouched");
	advance(1);
	is_count(rd(hw, hw_msr(0, 0xE08)), 1e8, "counting from 0");
	is_count(rd(hw, hw_msr(0, 0xE09)), 2e9, "CLOCKTICKS: 1.6e10 over 8 "
		 "CBos = the 2 GHz UCLK");

	/* rst_ctrl: controls to 0, counters kept, filters kept */
	c0 = rd(hw, hw_msr(0, 0xE08));
	is_int(plat_box_write(hw, s, cbo, 0, BOX_RST_CTRL), 0, "rst_ctrl");
	ok(rd(hw, hw_msr(0, 0xE01)) == 0 && rd(hw, hw_msr(0, 0xE02)) == 0,
	   "rst_ctrl clears the box's controls");
	is_u64(rd(hw, hw_msr(0, 0xE08)), c0, "and keeps the counters");
	is_u64(rd(hw, hw_msr(0, 0xE05)), F0_ANY, "and the filter");
	advance(1);
	is_u64(rd(hw, hw_msr(0, 0xE08)), c0, "a cleared control counts nothing");
	wr(hw, hw_msr(0, 0xE01), ctl);

	/* the counter's own rst bit (Table 2-16 bit 17, WO) */
	advance(1);
	is_int(wr(hw, hw_msr(0, 0xE01), ctl | (1ull << 17)), 0,
	       "control write with rst");
	is_u64(rd(hw, hw_msr(0, 0xE01)), ctl, "rst reads 0");
	is_count(rd(hw, hw_msr(0, 0xE08)), 0, "rst clears the counter");

	/* bits 17:16: accepted, read 0, recorded */
	is_int(wr(hw, hw_msr(0, 0xE00), BOX_RST_CTRS), 0,
	       "box control write without bits 17:16 is accepted");
	hw_sim_box_state(hw, 0, uidx("cbo"), 0, &b);
	ok(b.last_lacked_must1 && b.writes_lacking_must1 == 1,
	   "and recorded as lacking them");
	is_int(wr(hw, hw_msr(0, 0xE00), MUST1 | BOX_RST_CTRS), 0,
	       "with bits 17:16: no #GP");
	is_u64(rd(hw, hw_msr(0, 0xE00)), 0, "bits 17:16 read 0");
	hw_sim_box_state(hw, 0, uidx("cbo"), 0, &b);
	ok(!b.last_lacked_must1 && b.writes_lacking_must1 == 1,
	   "the last write had them");
	is_int(wr(hw, hw_msr(0, 0xE00), MUST1 | 0x4), -EIO,
	   "box control bit 2 reserved (#GP)");
	is_int(wr(hw, hw_msr(0, 0xE00), 1ull << 18), -EIO,
	   "box control bit 18 reserved (#GP)");

	/* SBo: bit by bit (UNIT_Q_BOX_BITWISE) */
	hw_sim_box_state(hw, 0, uidx("sbox"), 1, &b);
	is_int(plat_box_write(hw, s, sbo, 1, BOX_RST_CTRL | BOX_RST_CTRS), 0,
	       "SBo 1 box reset, bit by bit");
	{
		struct hw_sim_box b2;

		hw_sim_box_state(hw, 0, uidx("sbox"), 1, &b2);
		ok(b2.ctl_writes == b.ctl_writes + 4 &&
		   b2.writes_lacking_must1 == b.writes_lacking_must1 + 3 &&
		   !b2.last_lacked_must1,
		   "four writes, the last with bits 17:16");
	}
	/* R2PCIe has no must-be-one bits (Table 2-213) */
	is_int(plat_box_write(hw, s, r2, 0, BOX_RST_CTRS), 0, "R2PCIe reset");
	hw_sim_box_state(hw, 0, uidx("r2pcie"), 0, &b);
	ok(!b.last_lacked_must1 && b.writes_lacking_must1 == 0,
	   "R2PCIe: nothing to lack");
	is_u64(rd(hw, hw_pci(0, 0xff, 16, 1, 0xF4, 4)), 0,
	       "R2PCIe box control reads 0");

	/* Control-twice erratum (SBo 2.4.1): plat_write_ctl() complies */
	{
		struct hw_addr a = plat_ctl_addr(s, sbo, 0, 0);
		uint64_t v = ctl_raw("sbox:0x02:0x01", 0);
		struct hw_sim_box b2;

		hw_sim_box_state(hw, 0, uidx("sbox"), 0, &b);
		is_int(plat_write_ctl(hw, sbo, &a, v), 0, "SBo control, twice");
		hw_sim_box_state(hw, 0, uidx("sbox"), 0, &b2);
		is_int(b2.ctl_twice_violations, b.ctl_twice_violations,
		       "plat_write_ctl: no violation recorded");
		wr(hw, a, 0);
		wr(hw, a, v);
		hw_sim_box_state(hw, 0, uidx("sbox"), 0, &b2);
		is_int(b2.ctl_twice_violations, b.ctl_twice_violations + 1,
		       "a single enabling write is recorded");
		wr(hw, a, 0);
	}
	is_int(hw_sim_box_state(hw, 0, uidx("pcu_cstate"), 0, &b), -ENOENT,
	       "free-running units have no box");
}

/* ---- widths, wrap, overflow status ------------------------------------- */

static void test_wrap(struct hw *hw, const struct topology *t)
{
	const struct topo_socket *s = &t->sock[0];
	const struct unit_type *ha = unit("ha", NULL);
	const struct unit_type *r3 = unit("r3qpi", NULL);
	uint64_t v, st;
	struct hw_addr a;

	wr(hw, hw_msr(0, 0x701), GSTAT_ALL);	/* clear global status */
	is_u64(rd(hw, hw_msr(0, 0x701)), 0, "global status clear");
	is_int(wr(hw, hw_msr(0, 0x701), 1ull << 3), -EIO,
	       "global status bit 3 reserved (#GP)");

	/* CBo: 48 bits, box status, no global bit (no ov_en, Table 2-16) */
	is_int(wr(hw, hw_msr(0, 0xE08), P48), -EIO, "CBo counter bit 48 (#GP)");
	is_int(wr(hw, hw_msr(0, 0xE08), P48 - 50000000), 0, "CBo counter "
	       "preset to 2^48 - 5e7");
	is_u64(rd(hw, hw_msr(0, 0xE08)), P48 - 50000000, "reads back 48 bits");
	wr(hw, hw_msr(0, 0xE07), 0xf);
	advance(1);
	is_count(rd(hw, hw_msr(0, 0xE08)), 50000000, "48-bit wrap at 1e8/s");
	is_u64(rd(hw, hw_msr(0, 0xE07)) & 0xf, 0x1, "CBo box status ov[0] set");
	is_u64(rd(hw, hw_msr(0, 0x701)), 0, "CBo overflow reaches no global bit");
	is_int(wr(hw, hw_msr(0, 0xE07), 0), 0, "writing 0 to box status");
	is_u64(rd(hw, hw_msr(0, 0xE07)) & 1, 1, "does not clear it");
	wr(hw, hw_msr(0, 0xE07), 1);
	is_u64(rd(hw, hw_msr(0, 0xE07)), 0, "writing 1 clears it (RW1C)");
	is_int(wr(hw, hw_msr(0, 0xE07), 0x10), -EIO, "box status bit 4 reserved");

	/* SBo: 44 bits (notes: counter widths), no global bit */
	wr(hw, hw_msr(0, 0x721), ctl_of("UNC_S_CLOCKTICKS", 0) & ~EN);
	wr(hw, hw_msr(0, 0x721), ctl_of("UNC_S_CLOCKTICKS", 0));
	wr(hw, hw_msr(0, 0x726), P44 - 1000000000ull);
	advance(1);
	is_count(rd(hw, hw_msr(0, 0x726)), 1e9, "SBo wraps at 2^44 (2e9/s)");
	is_u64(rd(hw, hw_msr(0, 0x725)), 1, "SBo box status ov[0]");
	is_u64(rd(hw, hw_msr(0, 0x701)), 0, "no global bit for SBo");
	wr(hw, hw_msr(0, 0x721), 0);

	/* UBox: 44 bits, ov_en -> ov_u (bit 1) */
	wr(hw, hw_msr(0, 0x705), ctl_raw("ubox:0x42:0x08", 0) | OV_EN);
	is_int(wr(hw, hw_msr(0, 0x709), P48 - 1), 0,
	       "UBox counter takes 48 bits (Table 2-8 layout)");
	is_u64(rd(hw, hw_msr(0, 0x709)), P44 - 1, "but keeps 44 (width 44)");
	advance(1);
	is_count(rd(hw, hw_msr(0, 0x709)), 1e6 - 1, "UBox wraps at 2^44");
	is_u64(rd(hw, hw_msr(0, 0x708)), 1, "UBox box status ov[0]");
	is_u64(rd(hw, hw_msr(0, 0x701)), 1ull << 1, "global ov_u (bit 1) with "
	       "ov_en");
	wr(hw, hw_msr(0, 0x701), 2);
	wr(hw, hw_msr(0, 0x708), 3);
	wr(hw, hw_msr(0, 0x705), ctl_raw("ubox:0x42:0x08", 0));
	wr(hw, hw_msr(0, 0x709), P44 - 1);
	advance(1);
	is_u64(rd(hw, hw_msr(0, 0x708)), 1, "without ov_en: box status set");
	is_u64(rd(hw, hw_msr(0, 0x701)), 0, "but no global bit");
	wr(hw, hw_msr(0, 0x708), 3);
	wr(hw, hw_msr(0, 0x705), 0);

	/* UCLK fixed counter: 48 bits, ov_u_fixed (bit 0) with ov_en */
	wr(hw, hw_msr(0, 0x703), EN | OV_EN);
	wr(hw, hw_msr(0, 0x704), P48 - 1000000000ull);
	advance(1);
	is_count(rd(hw, hw_msr(0, 0x704)), 1e9, "UCLK at 2 GHz wraps at 2^48");
	is_u64(rd(hw, hw_msr(0, 0x701)), 1, "global ov_u_fixed");
	wr(hw, hw_msr(0, 0x701), 1);
	wr(hw, hw_msr(0, 0x703), EN);
	is_int(wr(hw, hw_msr(0, 0x703), 1), -EIO, "fixed ctl bit 0 reserved");

	/* HA 0 (PCI D18:F1): 48 bits, ov_h0 (21) with ov_en */
	a = hw_pci(0, 0xff, 18, 1, 0xD8, 4);
	is_int(wr(hw, a, ctl_raw("ha:0x01:0x03", 0) | OV_EN), 0,
	       "HA 0 CTL0 (PCI 0xD8)");
	is_int(wr(hw, hw_pci(0, 0xff, 18, 1, 0xA0, 8), P48 - 25000000), 0,
	       "HA 0 CTR0 preset with an 8-byte write");
	advance(1);
	is_count(rd(hw, hw_pci(0, 0xff, 18, 1, 0xA0, 8)), 25000000,
		 "HA wraps at 2^48 (5e7/s)");
	is_u64(rd(hw, hw_pci(0, 0xff, 18, 1, 0xF8, 4)), 1, "HA box status ov[0]");
	st = rd(hw, hw_msr(0, 0x701));
	is_u64(st, 1ull << 21, "global ov_h0 (bit 21)");
	is_int(wr(hw, hw_pci(0, 0xff, 18, 1, 0xF8, 4), 1), 0, "clear HA status");
	is_u64(rd(hw, hw_pci(0, 0xff, 18, 1, 0xF8, 4)), 0, "HA status RW1C");
	wr(hw, hw_msr(0, 0x701), st);
	is_u64(rd(hw, hw_msr(0, 0x701)), 0, "global RW1C");
	ok(plat_global_ovf_bit(ha, 1) == 22, "(HA 1 would be ov_h1, 22)");
	wr(hw, a, 0);

	/* R3QPI link 1 (D11:F2): 44 bits, ov_rq0 (27) with ov_en */
	a = plat_ctl_addr(s, r3, 1, 0);
	is_int(wr(hw, a, ctl_raw("r3qpi:0x01:0x00", 0) | OV_EN), 0,
	       "R3QPI link 1 CTL0");
	is_int(wr(hw, plat_ctr_addr(s, r3, 1, 0), ~0ull), 0,
	       "R3QPI CTR0 all ones (8-byte write)");
	is_u64(rd(hw, plat_ctr_addr(s, r3, 1, 0)), P44 - 1,
	       "keeps 44 bits (Table 2-233)");
	advance(0.5);
	is_count(rd(hw, plat_ctr_addr(s, r3, 1, 0)), 5e8 - 1,
		 "R3QPI wraps at 2^44 (1e9/s per link)");
	is_u64(rd(hw, hw_pci(0, 0xff, 11, 2, 0xF8, 4)), 1, "R3QPI box status");
	is_u64(rd(hw, hw_msr(0, 0x701)), 1ull << 27, "global ov_rq0 (bit 27)");
	wr(hw, hw_msr(0, 0x701), 1ull << 27);
	wr(hw, a, 0);

	/* PCI dwords: a 48-bit counter read as two 32-bit halves */
	a = hw_pci(0, 0xff, 20, 0, 0xA8, 8);	/* channel 0 CTR1 */
	is_int(wr(hw, a, 0x123456789abcull), 0, "iMC CTR1 8-byte write");
	is_u64(rd(hw, hw_pci(0, 0xff, 20, 0, 0xA8, 4)), 0x56789abc,
	       "low dword at 0xA8");
	is_u64(rd(hw, hw_pci(0, 0xff, 20, 0, 0xAC, 4)), 0x1234,
	       "high dword at 0xAC");
	is_u64(rd(hw, a), 0x123456789abcull, "8-byte read = high:low");
	is_int(wr(hw, hw_pci(0, 0xff, 20, 0, 0xAC, 4), 0xffffffff), 0,
	       "high dword write");
	is_u64(rd(hw, a), 0xffff56789abcull, "only bits 47:32 taken");
	is_int(wr(hw, hw_pci(0, 0xff, 20, 0, 0xA8, 4), 0), 0,
	       "low dword write");
	is_u64(rd(hw, a), 0xffff00000000ull, "the high half stays");
	wr(hw, a, 0);
	v = 1;
	is_int(rd_err(hw, hw_pci(0, 0xff, 20, 0, 0xA9, 4)), -EINVAL,
	       "unaligned offset: EINVAL");
	is_int(rd_err(hw, hw_pci(0, 0xff, 20, 0, 0xFFC, 8)), -EINVAL,
	       "beyond 4 KiB: EINVAL");
	is_int(hw_read(hw, &(struct hw_addr){ .space = HW_PCI, .width = 2,
					      .bus = 0xff, .dev = 20 }, &v),
	       -EINVAL, "2-byte access: EINVAL");
	is_u64(rd(hw, hw_pci(0, 0xff, 20, 0, 0x800, 4)), 0,
	       "unimplemented offset reads 0");
	is_int(wr(hw, hw_pci(0, 0xff, 20, 0, 0x800, 4), 5), 0,
	       "and drops writes");
	is_int(wr(hw, hw_pci(0, 0xff, 20, 0, 0xD8, 4), 1ull << 21), 0,
	       "a reserved PCI control bit is not #GP");
	is_u64(rd(hw, hw_pci(0, 0xff, 20, 0, 0xD8, 4)), 0, "and is dropped");
}

/* ---- fixed counters, filters, free-running, QPI ------------------------ */

static void test_fixed(struct hw *hw, const struct topology *t)
{
	const struct topo_socket *s = &t->sock[0];
	const struct unit_type *imc = unit("imc", NULL);
	struct hw_addr fctl = hw_pci(0, 0xff, 20, 1, 0xF0, 4);
	struct hw_addr fctr = hw_pci(0, 0xff, 20, 1, 0xD0, 8);
	uint64_t c0, st;

	wr(hw, hw_msr(0, 0x704), 0);
	advance(1);
	is_count(rd(hw, hw_msr(0, 0x704)), 2e9, "UCLK fixed counter: uclk_hz");

	is_u64(rd(hw, fctr), 0, "DCLK counter off at reset");
	is_int(wr(hw, fctl, EN), 0, "channel 1 FIXED_CTL en");
	advance(1);
	is_count(rd(hw, fctr), 8e8, "DCLK counter: dclk_hz 800 MHz");
	is_int(plat_box_write(hw, s, imc, 1, BOX_FRZ), 0, "iMC box frz");
	c0 = rd(hw, fctr);
	advance(1);
	is_u64(rd(hw, fctr), c0, "the iMC box freezes the DCLK counter");
	plat_box_write(hw, s, imc, 1, 0);
	is_int(plat_box_write(hw, s, imc, 1, BOX_RST_CTRS), 0, "iMC rst_ctrs");
	is_u64(rd(hw, fctr), 0, "resets the DCLK counter");
	is_int(wr(hw, fctl, EN | OV_EN | (1ull << 19)), 0, "FIXED_CTL rst bit 19");
	is_u64(rd(hw, fctl), EN | OV_EN, "rst reads 0");
	wr(hw, fctr, P48 - 400000000ull);
	advance(1);
	is_count(rd(hw, fctr), 4e8, "DCLK wraps at 2^48");
	st = rd(hw, hw_pci(0, 0xff, 20, 1, 0xF8, 4));
	is_u64(st, 1, "iMC box status: bit 0 = the fixed counter");
	is_u64(rd(hw, hw_msr(0, 0x701)) & (1ull << 23), 1ull << 23,
	       "global ov_m0 (bit 23)");
	wr(hw, hw_pci(0, 0xff, 20, 1, 0xF8, 4), 0x1f);
	wr(hw, hw_msr(0, 0x701), 1ull << 23);
	/* a programmable iMC counter overflows into ov bit 1 + index */
	wr(hw, hw_pci(0, 0xff, 20, 1, 0xDC, 4), ctl_raw("imc:0x04:0x03", 1));
	wr(hw, hw_pci(0, 0xff, 20, 1, 0xA8, 8), P48 - 1);
	advance(0.001);
	is_u64(rd(hw, hw_pci(0, 0xff, 20, 1, 0xF8, 4)), 1u << 2,
	       "iMC CTR1 overflow sets ov bit 2");
	wr(hw, hw_pci(0, 0xff, 20, 1, 0xF8, 4), 0x1f);
	wr(hw, hw_pci(0, 0xff, 20, 1, 0xDC, 4), 0);
	is_int(plat_box_write(hw, s, imc, 1, BOX_RST_CTRL), 0, "iMC rst_ctrl");
	is_u64(rd(hw, fctl), 0, "clears the fixed control too");
}

static void test_filters(struct hw *hw)
{
	uint64_t c0, c1;

	/* LLC_LOOKUP.ANY on CBo 2 counter 0 with the two headline FILTER0
	 * values (the :filter0= of plat_hsx's quantity events) */
	wr(hw, hw_msr(0, 0xE21), ctl_of("UNC_C_LLC_LOOKUP.ANY", 0));
	wr(hw, hw_msr(0, 0xE25), F0_ANY);
	c0 = rd(hw, hw_msr(0, 0xE28));
	advance(1);
	c1 = rd(hw, hw_msr(0, 0xE28));
	is_count(c1 - c0, 1e8, "filter0 0x7E0000: lookups (8e8 / 8)");
	is_int(wr(hw, hw_msr(0, 0xE25), F0_MISS), 0, "FILTER0 = state I");
	advance(1);
	c0 = rd(hw, hw_msr(0, 0xE28));
	is_count(c0 - c1, 1e7, "filter0 0x20000: misses (8e7 / 8)");
	advance(0.5);
	wr(hw, hw_msr(0, 0xE25), F0_ANY);
	advance(0.5);
	is_count(rd(hw, hw_msr(0, 0xE28)) - c0, 0.5e7 + 0.5e8,
		 "a filter change settles the counter at the old rate first");
	c0 = rd(hw, hw_msr(0, 0xE28));
	wr(hw, hw_msr(0, 0xE25), 0);
	advance(1);
	is_u64(rd(hw, hw_msr(0, 0xE28)), c0, "any other FILTER0: no rate");
	is_int(wr(hw, hw_msr(0, 0xE25), 1ull << 10), -EIO,
	       "FILTER0 bit 10 reserved (#GP, Table 2-18)");
	is_int(wr(hw, hw_msr(0, 0xE26), 1ull << 29), -EIO,
	       "FILTER1 bit 29 reserved (#GP, Table 2-19)");

	/* FILTER1 (opc 0x182 << 20 = 0x18200000) gates TOR_INSERTS */
	wr(hw, hw_msr(0, 0xE22), ctl_raw("cbo:0x35:0x01", 1));
	c0 = rd(hw, hw_msr(0, 0xE29));
	advance(1);
	is_u64(rd(hw, hw_msr(0, 0xE29)), c0, "filter1 key: FILTER1 0 counts 0");
	wr(hw, hw_msr(0, 0xE26), 0x18200000);
	advance(1);
	is_count(rd(hw, hw_msr(0, 0xE29)) - c0, 2e6, "FILTER1 0x18200000: 2e6/s");
	wr(hw, hw_msr(0, 0xE22), 0);
	wr(hw, hw_msr(0, 0xE26), 0);

	/* PCU band filter 0x715 is filter0 */
	wr(hw, hw_msr(0, 0x711), ctl_of("UNC_P_FREQ_BAND0_CYCLES", 0));
	wr(hw, hw_msr(0, 0x717), 0);
	advance(1);
	is_u64(rd(hw, hw_msr(0, 0x717)), 0, "PCU band 0 with filter 0: nothing");
	wr(hw, hw_msr(0, 0x715), 0x1e);
	advance(1);
	is_count(rd(hw, hw_msr(0, 0x717)), 5e8, "PCU FILTER = 0x1e: 5e8/s");
	wr(hw, hw_msr(0, 0x711), 0);

	/* HA OPCODEMATCH (0x48) is filter1 */
	wr(hw, hw_pci(0, 0xff, 18, 1, 0xDC, 4), ctl_raw("ha:0x20:0x02", 1));
	wr(hw, hw_pci(0, 0xff, 18, 1, 0xA8, 8), 0);
	wr(hw, hw_pci(0, 0xff, 18, 1, 0x48, 4), 1);
	advance(1);
	is_count(rd(hw, hw_pci(0, 0xff, 18, 1, 0xA8, 8)), 1e6,
		 "HA OPCODEMATCH 1 = filter1 1");
	wr(hw, hw_pci(0, 0xff, 18, 1, 0xDC, 4), 0);
}

static void test_qpi(struct hw *hw, const struct topology *t)
{
	const struct topo_socket *s = &t->sock[0];
	const struct unit_type *qpi = unit("qpi", NULL);
	const struct event *g0 = plat_event(P, "UNC_Q_TxL_FLITS_G0.DATA");
	const struct event *g1 = plat_event(P, "UNC_Q_TxL_FLITS_G1.HOM_REQ");
	struct hw_addr idle = hw_pci(0, 0xff, 9, 2, 0xC8, 4);
	uint64_t c0, c1;

	ok(g0 && g1 && g0->code == g1->code && g0->umask == g1->umask &&
	   !g0->ev_sel_ext && g1->ev_sel_ext,
	   "G0.DATA and G1.HOM_REQ differ only in ev_sel_ext");
	wr(hw, plat_ctl_addr(s, qpi, 0, 0), ctl_of("UNC_Q_TxL_FLITS_G0.DATA", 0));
	wr(hw, plat_ctl_addr(s, qpi, 0, 1),
	   ctl_of("UNC_Q_TxL_FLITS_G1.HOM_REQ", 1));
	wr(hw, plat_ctr_addr(s, qpi, 0, 0), 0);
	wr(hw, plat_ctr_addr(s, qpi, 0, 1), 0);
	advance(1);
	is_count(rd(hw, plat_ctr_addr(s, qpi, 0, 0)), 1e8,
		 "QPI port 0 TxL data flits (2e8 over 2 ports)");
	is_count(rd(hw, plat_ctr_addr(s, qpi, 0, 1)), 2e7,
		 "the :ext key counts for the extended event only");

	/* CTO_COUNT: filter0 = RX_MATCH1 << 32 | RX_MATCH0, in D8:F6 */
	wr(hw, plat_ctl_addr(s, qpi, 0, 2), ctl_of("UNC_Q_CTO_COUNT", 2));
	wr(hw, plat_ctr_addr(s, qpi, 0, 2), 0);
	is_int(wr(hw, hw_pci(0, 0xff, 8, 6, 0x22C, 4), 1), 0,
	       "RX_MATCH1 (D8:F6 0x22C)");
	advance(1);
	is_count(rd(hw, plat_ctr_addr(s, qpi, 0, 2)), 1e5,
		 "CTO_COUNT with RX_MATCH1 = 1: filter0 0x100000000");
	wr(hw, hw_pci(0, 0xff, 8, 6, 0x210, 4), 0x8);	/* TX_MASK0 */
	c0 = rd(hw, plat_ctr_addr(s, qpi, 0, 2));
	advance(1);
	is_count(rd(hw, plat_ctr_addr(s, qpi, 0, 2)) - c0, 1e5,
		 "TX registers gate nothing");
	for (unsigned i = 0; i < 3; i++)
		wr(hw, plat_ctl_addr(s, qpi, 0, i), 0);

	/* link counters: 32 bits at 0xC8 / 0xD0 of function 2 */
	is_int(plat_freerun_addr(s, unit("qpi_link", NULL), 1, 0).reg, 0xC8,
	       "LINK_IDLE at 0xC8");
	c0 = rd(hw, idle);
	advance(1);
	c1 = rd(hw, idle);
	is_count((c1 - c0) & 0xffffffffull, 1e9, "QPI port 1 LINK_IDLE 1e9/s");
	ok(c1 <= 0xffffffffull, "32 bits wide");
	advance(4);
	ok(rd(hw, idle) <= 0xffffffffull, "still 32 bits 4e9 events later");
	is_count((rd(hw, idle) - c1) & 0xffffffffull, 4e9,
		 "it counts modulo 2^32");
	c0 = rd(hw, hw_pci(0, 0xff, 9, 2, 0xD0, 4));
	advance(1);
	is_count(rd(hw, hw_pci(0, 0xff, 9, 2, 0xD0, 4)) - c0, 1e3, "LINK_LLR");
	is_int(wr(hw, idle, 0), 0, "a write to LINK_IDLE is dropped");
	ok(rd(hw, idle) != 0, "and changes nothing");
	is_u64(rd(hw, hw_pci(0, 0xff, 9, 2, 0xCC, 4)), 0,
	       "0xCC (between the two) reads 0");
}

static void test_pcu_cstate(struct hw *hw)
{
	uint64_t c0;

	c0 = rd(hw, hw_msr(0, 0x3F8));
	advance(2);
	is_count(rd(hw, hw_msr(0, 0x3F8)) - c0, 5e7, "PC3 (0x3F8) 2.5e7/s");
	c0 = rd(hw, hw_msr(0, 0x3FC));
	advance(1);
	is_u64(rd(hw, hw_msr(0, 0x3FC)), c0, "CC3 (0x3FC): no rate, no count");
	is_u64(rd_err(hw, hw_msr(0, 0x60D)), 0, "PC2 (0x60D) readable");
	is_int(wr(hw, hw_msr(0, 0x3FD), 0), -EIO, "C-state MSRs are read-only");
	is_u64(rd_err(hw, hw_msr(0, 0x3F9)), 0, "PC6 (0x3F9) readable");
	is_int(rd_err(hw, hw_msr(0, 0x3FA)), -EIO, "0x3FA (PC7) not modelled");
	/* Core scope: each core's own MSR; the socket's rate is split. */
	c0 = rd(hw, hw_msr(3, 0x3FD));
	advance(1);
	is_count(rd(hw, hw_msr(3, 0x3FD)) - c0, 1e9 / 8,
		 "CC6 on core 3 alone: its share 1e9/8 of the socket's 1e9/s");
	c0 = rd(hw, hw_msr(0, 0x3F8));
	advance(1);
	is_count(rd(hw, hw_msr(5, 0x3F8)) - c0, 2.5e7,
		 "PC3 (package scope): the same counter from any CPU");
}

static void parse_err(const char *json, const char *want, const char *what);

/* "cores" and per-core rates ("@N"): each core counts its own. */
static void test_core_scope(void)
{
	struct hw hw;
	uint64_t c[4];

	open_sim(&hw, write_file("cores.json",
		"{ \"platform\": \"hsx\", \"cores\": 4,\n"
		"  \"phases\": [ { \"seconds\": 600, \"rates\": {\n"
		"    \"pcu_cstate:UNC_P_CORE_CC6_CTR@2\": 3.0e9,\n"
		"    \"pcu_cstate:UNC_P_CORE_CC3_CTR\": 4.0e8 } } ] }\n"), NULL);
	is_int(hw_sim_cores(&hw), 4, "cores = 4");
	for (unsigned k = 0; k < 4; k++)
		c[k] = rd(&hw, hw_msr(k, 0x3FD));
	advance(1);
	for (unsigned k = 0; k < 4; k++)
		is_count(rd(&hw, hw_msr(k, 0x3FD)) - c[k], k == 2 ? 3e9 : 0,
			 "CC6@2: core %u counts %s", k, k == 2 ? "3e9/s" : "0");
	c[0] = core_sum(&hw, 0, 0x3FC, 4);
	advance(1);
	is_count(core_sum(&hw, 0, 0x3FC, 4) - c[0], 4e8,
		 "CC3 without @: 4e8/s over the 4 cores");
	is_int(rd_err(&hw, hw_msr(4, 0x3FC)), -EIO,
	       "CPU 4: no fifth core, no core-scope MSR");
	hw_close(&hw);
	parse_err("{ \"platform\": \"hsx\", \"cores\": 2, \"phases\": [ { "
		  "\"seconds\": 1, \"rates\": { \"pcu_cstate:"
		  "UNC_P_CORE_CC6_CTR@2\": 1 } } ] }",
		  "instance 2 out of range (cores is 2: 0..1)",
		  "CC6@2 with 2 cores");
	parse_err("{ \"platform\": \"hsx\", \"cores\": 9, \"phases\": [ { "
		  "\"seconds\": 1, \"rates\": {} } ] }", "at most 8",
		  "9 cores");
}

static void test_absent_msrs(struct hw *hw)
{
	is_int(rd_err(hw, hw_msr(0, 0xE70)), 0, "CBo 7 box control");
	is_int(rd_err(hw, hw_msr(0, 0xE80)), -EIO, "CBo 8 (cbo_count 8): EIO");
	is_int(wr(hw, hw_msr(0, 0xE81), 0), -EIO, "CBo 8 write: EIO");
	is_int(rd_err(hw, hw_msr(0, 0x734)), -EIO, "SBo 2 (sbox_count 2): EIO");
	is_int(rd_err(hw, hw_msr(7, 0x72A)), 0, "SBo 1 on CPU 7 (socket 0)");
	is_int(rd_err(hw, hw_msr(8, 0x700)), -ENXIO, "CPU 8: no socket 1");
}

static void test_faults(struct hw *hw)
{
	struct scan_acc sc = { 0 };
	struct hw_addr ch1 = hw_pci(0, 0xff, 20, 1, 0, 4);
	struct hw_addr ch0ctr = hw_pci(0, 0xff, 20, 0, 0xA0, 8);
	uint64_t c0;

	wr(hw, hw_pci(0, 0xff, 20, 0, 0xD8, 4), ctl_raw("imc:0x04:0x03", 0));
	goto_time(hw, 499);
	is_int(rd_err(hw, ch1), 0, "channel 1 there at t=499");
	hw_pci_scan(hw, scan_cb, &sc);
	ok(scan_find(&sc, 0xff, 20, 1) != NULL, "and listed");
	goto_time(hw, 500.5);
	is_int(rd_err(hw, ch1), -ENODEV, "device_missing at t=500: ENODEV");
	like(hw_last_error(), "device_missing", "message names the fault");
	is_int(wr(hw, hw_pci(0, 0xff, 20, 1, 0xD8, 4), 0), -ENODEV,
	       "writes too");
	sc.n = 0;
	hw_pci_scan(hw, scan_cb, &sc);
	ok(!scan_find(&sc, 0xff, 20, 1) && scan_find(&sc, 0xff, 20, 0),
	   "no longer listed; channel 0 is");
	is_int(rd_err(hw, hw_pci(0, 0xff, 20, 0, 0, 4)), 0, "channel 0 fine");

	/* stuck at t=600 on channel 0 CTR0 */
	c0 = rd(hw, ch0ctr);
	advance(1);
	is_count(rd(hw, ch0ctr) - c0, 1e8, "channel 0 CAS.RD 1e8/s (4e8 / 4)");
	goto_time(hw, 601);
	c0 = rd(hw, ch0ctr);
	advance(2);
	is_u64(rd(hw, ch0ctr), c0, "stuck from t=600");
	wr(hw, hw_pci(0, 0xff, 20, 0, 0xD8, 4), 0);
}

static void test_state_file(void)
{
	struct hw hw, hw2;
	char state[256];
	const char *wl = write_file("wl1s-state.json", wl_1s);
	struct hw_sim_box b;
	struct hw_opts o;

	snprintf(state, sizeof(state), "%s/state", tmpdir);
	open_sim(&hw, wl, state);
	wr(&hw, hw_msr(0, 0x700), FRZ_ALL);
	wr(&hw, hw_msr(0, 0xE10), MUST1 | BOX_FRZ);
	o = (struct hw_opts){ .sim_workload = wl, .sim_state = state };
	is_int(hw_open(&hw2, &hw_sim_ops, &o), 0, "second opener");
	hw_sim_set_clock(&hw2, fake_clock, NULL);
	is_int(hw_sim_global_frozen(&hw2, 0), 1,
	       "the freeze latch is shared state");
	hw_sim_box_state(&hw2, 0, uidx("cbo"), 1, &b);
	ok(b.frozen, "so is the box freeze");
	hw_close(&hw2);
	hw_close(&hw);
	open_sim(&hw, wl, state);
	is_int(hw_sim_global_frozen(&hw, 0), 1, "and survives a reopen");
	hw_close(&hw);
}

/* ---- several sockets ---------------------------------------------------- */

static void test_sockets(void)
{
	struct hw hw;
	struct topology t;
	const struct unit_type *imc = unit("imc", NULL);
	uint64_t ctl = ctl_of("UNC_C_LLC_LOOKUP.ANY", 0);
	uint64_t a0, a1;

	open_sim(&hw, write_file("wl2s.json", wl_2s), NULL);
	discover(&hw, &t);
	for (unsigned s = 0; s < 2; s++) {
		uint32_t cpu = t.sock[s].cpu;

		wr(&hw, hw_msr(cpu, 0xE05), F0_ANY);
		wr(&hw, hw_msr(cpu, 0xE01), ctl);
		wr(&hw, hw_msr(cpu, 0xE15), F0_MISS);
		wr(&hw, hw_msr(cpu, 0xE11), ctl);
		wr(&hw, plat_ctl_addr(&t.sock[s], imc, 0, 0),
		   ctl_raw("imc:0x04:0x03", 0));
		wr(&hw, plat_ctl_addr(&t.sock[s], imc, 1, 0),
		   ctl_raw("imc:0x04:0x03", 0));
	}
	advance(1);
	is_count(rd(&hw, hw_msr(0, 0xE08)), 1e8, "s0 lookups: 4e8 / 4 CBos");
	is_count(rd(&hw, hw_msr(8, 0xE08)), 5e7, "s1 lookups: 2e8 / 4 CBos");
	is_count(rd(&hw, hw_msr(0, 0xE18)), 1e7, "s0 misses (unprefixed key)");
	is_count(rd(&hw, hw_msr(8, 0xE18)), 1e7, "s1 misses (unprefixed key)");
	is_count(rd(&hw, plat_ctr_addr(&t.sock[0], imc, 0, 0)), 0,
		 "s0 channel 0: no s0 key, @1 key elsewhere");
	is_count(rd(&hw, plat_ctr_addr(&t.sock[0], imc, 1, 0)), 3e7,
		 "s0 channel 1: the @1 key");
	is_count(rd(&hw, plat_ctr_addr(&t.sock[1], imc, 0, 0)), 5e7,
		 "s1 channel 0: 1e8 over 2 channels");
	is_count(rd(&hw, plat_ctr_addr(&t.sock[1], imc, 1, 0)), 5e7 + 3e7,
		 "s1 channel 1: both keys");
	ok(plat_ctr_addr(&t.sock[1], imc, 0, 0).bus == 0xdf,
	   "socket 1's channels on bus 0xdf");

	/* freezing socket 0 leaves socket 1 counting */
	wr(&hw, hw_msr(0, 0x700), FRZ_ALL);
	a0 = rd(&hw, hw_msr(0, 0xE08));
	a1 = rd(&hw, hw_msr(8, 0xE08));
	advance(1);
	is_u64(rd(&hw, hw_msr(0, 0xE08)), a0, "socket 0 frozen");
	is_count(rd(&hw, hw_msr(8, 0xE08)) - a1, 5e7, "socket 1 not");
	is_int(hw_sim_global_frozen(&hw, 1), 0, "socket 1's latch is its own");
	/* box state and registers per socket */
	wr(&hw, hw_msr(8, 0xE00), BOX_RST_CTRS);
	{
		struct hw_sim_box b0, b1;

		hw_sim_box_state(&hw, 0, uidx("cbo"), 0, &b0);
		hw_sim_box_state(&hw, 1, uidx("cbo"), 0, &b1);
		ok(!b0.last_lacked_must1 && b1.last_lacked_must1,
		   "box bookkeeping per socket");
	}
	is_u64(rd(&hw, hw_msr(0, 0xE08)), a0, "socket 1's box reset leaves "
	       "socket 0's counter");
	is_count(rd(&hw, hw_msr(8, 0xE08)), 0, "and clears socket 1's");
	is_int(rd_err(&hw, hw_pci(0, 0xdf, 9, 2, 0, 4)), -ENODEV,
	       "s1/ device_missing: socket 1's QPI port 1 gone");
	is_int(rd_err(&hw, hw_pci(0, 0xff, 9, 2, 0, 4)), 0,
	       "socket 0's still there");
	is_int(rd_err(&hw, hw_msr(15, 0x700)), 0, "CPU 15 reaches socket 1");
	hw_close(&hw);
}

/* ---- the built-in workload and hsx-default.json ------------------------- */

static void test_builtin(void)
{
	struct hw hw;
	struct hw_opts o = { .sim_platform = "hsx" };
	struct topology t;
	const struct workload *w;
	uint64_t ctl = ctl_of("UNC_C_LLC_LOOKUP.ANY", 0);
	const struct unit_type *imc = unit("imc", NULL);
	double look = 0, miss = 0, rdc = 0, wrc = 0;
	unsigned nk = 0, nev = 0;

	is_int(hw_open(&hw, &hw_sim_ops, &o), 0, "hsx built-in workload opens");
	hw_sim_set_clock(&hw, fake_clock, NULL);
	is_str(hw_sim_platform(&hw)->id, "hsx", "platform hsx");
	w = hw_sim_workload(&hw);
	discover(&hw, &t);
	is_int(t.nsockets, 2, "built-in: 2 sockets");
	is_int(t.sock[0].ninst[uidx("cbo")], 18, "18 CBos");
	is_int(t.sock[0].ninst[uidx("imc")], 8, "8 channels");
	is_int(t.sock[1].ninst[uidx("qpi")], 2, "2 QPI ports");
	/* every programmable catalog event has a key */
	for (size_t i = 0; i < P->nevents; i++) {
		const struct event *ev = &P->events[i];
		const struct unit_type *u = plat_unit(P, ev->unit, NULL);
		bool found = false;

		if (u->kind != UNIT_PROG)
			continue;
		nev++;
		for (unsigned k = 0; k < w->nkeys && !found; k++) {
			const struct wl_key *key = &w->keys[k];

			found = !key->freerun && u == P->units[key->unit] &&
				key->enc.code == ev->code &&
				key->enc.umask == ev->umask &&
				key->enc.thresh == ev->thresh &&
				key->enc.edge == ev->edge &&
				key->enc.inv == ev->inv &&
				key->ext == (ev->ev_sel_ext != 0);
		}
		if (found)
			nk++;
		else
			printf("# no key for %s\n", ev->name);
	}
	is_int(nk, nev, "every programmable catalog event has a rate (%u)",
	       nev);

	wr(&hw, hw_msr(0, 0xE05), F0_ANY);
	wr(&hw, hw_msr(0, 0xE01), ctl);
	wr(&hw, hw_msr(0, 0xE15), F0_MISS);
	wr(&hw, hw_msr(0, 0xE11), ctl);
	for (unsigned c = 0; c < 8; c++) {
		wr(&hw, plat_ctl_addr(&t.sock[0], imc, c, 0),
		   ctl_of("UNC_M_CAS_COUNT.RD", 0));
		wr(&hw, plat_ctl_addr(&t.sock[0], imc, c, 1),
		   ctl_of("UNC_M_CAS_COUNT.WR", 1));
	}
	advance(10);
	look = (double)rd(&hw, hw_msr(0, 0xE08));
	miss = (double)rd(&hw, hw_msr(0, 0xE18));
	for (unsigned c = 0; c < 8; c++) {
		rdc += (double)rd(&hw, plat_ctr_addr(&t.sock[0], imc, c, 0));
		wrc += (double)rd(&hw, plat_ctr_addr(&t.sock[0], imc, c, 1));
	}
	ok(look > 1e8 / 18 * 10 && miss > 0, "lookups and misses count");
	ok(miss / look > 0.07 && miss / look < 0.13,
	   "misses about 10%% of lookups (%.3f)", miss / look);
	is_near(rdc, miss * 18, 1e-6, "CAS_COUNT.RD over 8 channels = misses "
		"over 18 CBos");
	is_near(wrc, rdc * 0.4, 1e-6, "CAS_COUNT.WR = 0.4 x reads");
	hw_close(&hw);
}

static char conf_path[4096];

static void test_default_file(void)
{
	struct hw hw;
	struct topology t;
	const char *top = getenv("top_srcdir");
	const struct unit_type *imc = unit("imc", NULL);
	const struct unit_type *qpi = unit("qpi", NULL);
	const struct unit_type *ha = unit("ha", NULL);
	uint64_t look = ctl_of("UNC_C_LLC_LOOKUP.ANY", 0);
	/* known answers per socket (see conf/workloads/hsx-default.json) */
	static const struct {
		double hit, rd_gbs, wr_gbs, qpi_gbs, remote, cc6;
	} want[2] = {
		{ 0.90, 8.0, 4.0, 2.0, 0.25, 5.0e8 },
		{ 0.75, 4.0, 2.0, 1.0, 0.25, 2.0e9 },
	};

	snprintf(conf_path, sizeof(conf_path),
		 "%s/conf/workloads/hsx-default.json", top ? top : "..");
	if (access(conf_path, R_OK) != 0) {
		ok(0, "cannot read %s (set top_srcdir)", conf_path);
		return;
	}
	open_sim(&hw, conf_path, NULL);
	discover(&hw, &t);
	is_int(t.nsockets, 2, "hsx-default: 2 sockets");
	for (unsigned s = 0; s < 2; s++) {
		const struct topo_socket *so = &t.sock[s];
		unsigned ncbo = so->ninst[uidx("cbo")];
		unsigned nch = so->ninst[uidx("imc")];
		unsigned nq = so->ninst[uidx("qpi")];
		double l = 0, m = 0, r = 0, w = 0, q = 0, loc = 0, rem = 0;
		double uclk, dclk, ch0, band1;
		uint64_t cc6;

		is_int(plat_reset_boxes(&hw, &t, s), 0, "reset socket %u", s);
		for (unsigned i = 0; i < ncbo; i++) {
			uint32_t base = 0xE00 + 0x10 * i;

			wr(&hw, hw_msr(so->cpu, base + 5), F0_ANY);
			wr(&hw, hw_msr(so->cpu, base + 1), look);
		}
		for (unsigned c = 0; c < nch; c++) {
			wr(&hw, plat_ctl_addr(so, imc, c, 0),
			   ctl_of("UNC_M_CAS_COUNT.RD", 0));
			wr(&hw, plat_ctl_addr(so, imc, c, 1),
			   ctl_of("UNC_M_CAS_COUNT.WR", 1));
		}
		for (unsigned p = 0; p < nq; p++)
			wr(&hw, plat_ctl_addr(so, qpi, p, 0),
			   ctl_of("UNC_Q_TxL_FLITS_G0.DATA", 0));
		for (unsigned h = 0; h < so->ninst[uidx("ha")]; h++) {
			wr(&hw, plat_ctl_addr(so, ha, h, 0),
			   ctl_of("UNC_H_REQUESTS.READS_LOCAL", 0));
			wr(&hw, plat_ctl_addr(so, ha, h, 1),
			   ctl_of("UNC_H_REQUESTS.READS_REMOTE", 1));
		}
		wr(&hw, hw_msr(so->cpu, 0x703), EN);
		wr(&hw, hw_msr(so->cpu, 0x715), 0x241c140c);
		wr(&hw, hw_msr(so->cpu, 0x711),
		   ctl_of("UNC_P_FREQ_BAND1_CYCLES", 0));
		cc6 = core_sum(&hw, so->cpu, 0x3FD, 8);
		wr(&hw, hw_pci(0, so->pci_bus, 20, 0, 0xF0, 4), EN);
		P->ops->global_enable(&hw, &t, s, true);
		advance(1);
		for (unsigned i = 0; i < ncbo; i++)
			l += (double)rd(&hw, hw_msr(so->cpu, 0xE08 + 0x10 * i));
		for (unsigned i = 0; i < ncbo; i++)
			wr(&hw, hw_msr(so->cpu, 0xE05 + 0x10 * i), F0_MISS);
		for (unsigned c = 0; c < nch; c++) {
			r += (double)rd(&hw, plat_ctr_addr(so, imc, c, 0));
			w += (double)rd(&hw, plat_ctr_addr(so, imc, c, 1));
		}
		ch0 = (double)rd(&hw, plat_ctr_addr(so, imc, 0, 0)) +
		      (double)rd(&hw, plat_ctr_addr(so, imc, 0, 1));
		for (unsigned p = 0; p < nq; p++)
			q += (double)rd(&hw, plat_ctr_addr(so, qpi, p, 0));
		for (unsigned h = 0; h < so->ninst[uidx("ha")]; h++) {
			loc += (double)rd(&hw, plat_ctr_addr(so, ha, h, 0));
			rem += (double)rd(&hw, plat_ctr_addr(so, ha, h, 1));
		}
		uclk = (double)rd(&hw, hw_msr(so->cpu, 0x704));
		band1 = (double)rd(&hw, hw_msr(so->cpu, 0x717));
		dclk = (double)rd(&hw, hw_pci(0, so->pci_bus, 20, 0, 0xD0, 8));
		for (unsigned i = 0; i < ncbo; i++)
			m -= (double)rd(&hw, hw_msr(so->cpu, 0xE08 + 0x10 * i));
		advance(1);
		for (unsigned i = 0; i < ncbo; i++)
			m += (double)rd(&hw, hw_msr(so->cpu, 0xE08 + 0x10 * i));
		is_near(1 - m / l, want[s].hit, 1e-6,
			"s%u: LLC hit ratio %.2f", s, want[s].hit);
		is_near(r * 64 / 1e9, want[s].rd_gbs, 1e-6,
			"s%u: DRAM read %.1f GB/s", s, want[s].rd_gbs);
		is_near(w * 64 / 1e9, want[s].wr_gbs, 1e-6,
			"s%u: DRAM write %.1f GB/s", s, want[s].wr_gbs);
		is_near(ch0 * 64 / 1e9, (want[s].rd_gbs + want[s].wr_gbs) / nch,
			1e-6, "s%u: channel 0 %.2f GB/s", s,
			(want[s].rd_gbs + want[s].wr_gbs) / nch);
		is_near(q * 8 / 1e9, want[s].qpi_gbs, 1e-6,
			"s%u: QPI data sent %.1f GB/s", s, want[s].qpi_gbs);
		is_near(rem / (loc + rem), want[s].remote, 1e-6,
			"s%u: remote share of HA reads %.2f", s,
			want[s].remote);
		is_near((double)(core_sum(&hw, so->cpu, 0x3FD, 8) - cc6) / 2,
			want[s].cc6, 1e-8, "s%u: CC6 counter %.2g/s", s,
			want[s].cc6);
		is_near(band1, 0.75 * 8e8, 1e-8,
			"s%u: 75%% of PCU cycles above 2.0 GHz", s);
		is_near(uclk, 2.0e9, 1e-8, "s%u: uncore clock 2.0 GHz", s);
		is_near(dclk, 8.0e8, 1e-8, "s%u: DRAM clock 800 MHz", s);
		P->ops->global_enable(&hw, &t, s, false);
	}
	hw_close(&hw);
}

/* ---- workload syntax added for hsx ---------------------------------- */

static void parse_err(const char *json, const char *want, const char *what)
{
	struct workload *w = NULL;
	char err[512] = "";
	int r = wl_parse(json, strlen(json), "x.json", NULL, &w, err,
			 sizeof(err));

	ok(r == -EINVAL && w == NULL, "%s: rejected", what);
	like(err, want, "%s: message", what);
	wl_free(w);
}

#define HSX "{\"platform\":\"hsx\","
#define PH1(r) "\"phases\":[{\"seconds\":1,\"rates\":{" r "}}]}"

static void test_syntax(void)
{
	struct workload *w = NULL;
	char err[512] = "";
	const char *j = HSX "\"dclk_hz\":933333333,\"qpi_ports\":2,"
			"\"imc_channels\":3,"
			PH1("\"qpi:0x00:0x02:ext\":1,\"qpi:0x00:0x02\":2,"
			    "\"qpi_link:UNC_Q_LINK_IDLE@1\":3,"
			    "\"pcu:0x0b:0x00:ext:filter0=0x1\":4");
	int r = wl_parse(j, strlen(j), "ok.json", NULL, &w, err, sizeof(err));

	is_int(r, 0, "dclk_hz, :ext and follower instances parse (%s)", err);
	if (r == 0) {
		ok(w->topo.dclk_hz == 933333333ull, "dclk_hz");
		ok(w->nkeys == 4 && w->keys[0].ext && !w->keys[1].ext,
		   ":ext makes a key of its own");
		ok(w->keys[3].ext && w->keys[3].has_filter0,
		   ":ext combines with filters");
		is_int(wl_unit_ninst(w, uidx("qpi_link")), 2,
		       "qpi_link follows qpi_ports");
		is_int(wl_unit_ninst(w, uidx("imc_fixed")), 3,
		       "imc_fixed follows imc_channels");
		is_int(wl_unit_ninst(w, uidx("cbo")), 18,
		       "cbo_count missing: 18");
	}
	wl_free(w);
	parse_err(HSX "\"qpi_ports\":2," PH1("\"qpi_link:UNC_Q_LINK_IDLE@2\":1"),
		  "instance 2 out of range (qpi_ports is 2: 0..1)",
		  "qpi_link@2 with 2 ports");
	parse_err(HSX PH1("\"imc:0x04:0x03:ext\":1"),
		  "\"ext\": imc has no event-select extension bit",
		  ":ext on the iMC");
	parse_err(HSX PH1("\"qpi:0x00:0x02:ext:ext\":1"), "ext given twice",
		  ":ext twice");
	parse_err("{\"platform\":\"skl\",\"dclk_hz\":1," PH1(""),
		  "\"dclk_hz\" is not a skl key", "dclk_hz on skl");
	parse_err(HSX "\"dclk_hz\":0.5," PH1(""), "dclk_hz: 0.5 is not a whole "
		  "number of Hz", "fractional dclk_hz");
	parse_err(HSX "\"imc_channels\":9," PH1(""), "hsx allows at most 8",
		  "9 channels");
}

int main(void)
{
	struct hw hw;
	struct topology t;

	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	open_sim(&hw, write_file("wl1s.json", wl_1s), NULL);
	test_discovery_1s(&hw, &t);
	test_freeze(&hw, &t);
	test_box_reset(&hw, &t);
	test_wrap(&hw, &t);
	test_fixed(&hw, &t);
	test_filters(&hw);
	test_qpi(&hw, &t);
	test_pcu_cstate(&hw);
	test_absent_msrs(&hw);
	test_faults(&hw);
	hw_close(&hw);
	test_discovery_2s();
	test_sockets();
	test_state_file();
	test_builtin();
	test_core_scope();
	test_default_file();
	test_syntax();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
	}
	return tap_done();
}
