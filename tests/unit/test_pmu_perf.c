/*
 * test_pmu_perf.c - the perf backend of the PMU layer (src/pmu/pmu_perf.c),
 * driven the way the sampler drives it: pmu_perf_discover(),
 * pmu_init_perf(), then pmu_slot() / pmu_encode() / pmu_program() /
 * pmu_enable(false) (the tick's one read per group) / pmu_read() /
 * pmu_release().
 *
 * Two kinds of kernel stand behind it:
 *
 *  - the simulated kernel (src/sim/sim_kernel.h) over the simulator with
 *    no register model and a fake clock, so every count is rate x
 *    seconds exactly (+-1 event): discovery on the real platforms' PMU
 *    names (skx, zen4, hsx, icx), encodings through the format/ files it
 *    writes, counting, group rebuilds, and the workload's perf faults
 *    (perf_contention, pmu_gone, perf_read_error, short_read).  Its
 *    system calls go through a counting wrapper, so the number of read(2)
 *    calls per tick is counted outside the code under test;
 *  - small sysfs trees written here, for what the simulated kernel cannot
 *    express (a cpumask naming an offline CPU, a malformed PMU, a PMU
 *    without cpumask, a format field moved), behind a fake perf_event_open
 *    of this file that records every event opened and answers reads with
 *    values computed from the event's config and CPU.
 *
 * Every known answer below is computed here from the workload, the
 * fixture's files or the kernel facts the comment cites, not read back
 * from the code under test.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw/hw.h"
#include "sim/hw_sim.h"
#include "hw/perf_event.h"
#include "hw/perf_sysfs.h"
#include "base/log.h"
#include "pmu/mux.h"
#include "pmu/pmu.h"
#include "pmu/pmu_perf.h"
#include "plat/plat_xsp.h"
#include "pmu/sched.h"
#include "sim/sim_kernel.h"
#include "tests/perf_msr.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/test_pmu_perf_XXXXXX";
static char why[2048];

/* ---- the simulated kernel, behind a counting wrapper ---------------------- */

static int64_t fake_ns = 1000000000000ll;

static int64_t fake_clock(void *ctx)
{
	(void)ctx;
	return fake_ns;
}

static void advance(double s)
{
	fake_ns += (int64_t)(s * 1e9 + 0.5);
}

/* System calls the backend made, counted outside it. */
static struct {
	unsigned long open, read, ioctl, close;
} sc;

static int sc_open(void *ctx, struct perf_event_attr *a, int pid, int cpu,
		   int group, unsigned long flags)
{
	sc.open++;
	return skern_pev_ops.open(ctx, a, pid, cpu, group, flags);
}

/* The sampling thread preempted: read number stall_at waits stall_s
 * first (the clock moves) before it reaches the kernel. */
static unsigned long stall_at;
static double stall_s;

static long sc_read(void *ctx, int fd, void *buf, size_t len)
{
	if (++sc.read == stall_at)
		advance(stall_s);
	return skern_pev_ops.read(ctx, fd, buf, len);
}

static int sc_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
	sc.ioctl++;
	return skern_pev_ops.ioctl(ctx, fd, req, arg);
}

static int sc_close(void *ctx, int fd)
{
	sc.close++;
	return skern_pev_ops.close(ctx, fd);
}

static const struct pev_ops counted_ops = {
	"counted simulated kernel", sc_open, sc_read, sc_ioctl, sc_close,
};

static unsigned long sc_total(void)
{
	return sc.open + sc.read + sc.ioctl + sc.close;
}

/* One machine under test: the simulator, its kernel, the PMU layer. */
struct world {
	struct hw hw;
	struct skern *k;
	struct topology t;
	struct pmu pmu;
	struct pmu_perf *pp;	/* the discovery, until pmu_init_perf() */
	bool sim, up;
};

static struct world W;

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

/* Opens platform id's simulated kernel on the workload members body and
 * discovers it (W.pp); 0 or -errno with why. */
static int sim_discover(const char *id, const char *body)
{
	char path[PATH_MAX], text[8192];
	struct hw_opts o = { .sim_no_registers = true };
	struct pmu_perf_opts po = { .ops = &counted_ops };
	int r;

	memset(&W, 0, sizeof(W));
	memset(&sc, 0, sizeof(sc));
	snprintf(path, sizeof(path), "%s/wl.json", tmpdir);
	snprintf(text, sizeof(text), "{ \"platform\": \"%s\", %s }\n", id,
		 body);
	write_file(path, text);
	o.sim_workload = path;
	if ((r = hw_open(&W.hw, &hw_sim_ops, &o)) < 0) {
		snprintf(why, sizeof(why), "%s", hw_last_error());
		return r;
	}
	W.sim = true;
	hw_sim_set_clock(&W.hw, fake_clock, NULL);
	if ((r = skern_open(&W.k, &W.hw, NULL, why, sizeof(why))) < 0)
		return r;
	po.sysfs = skern_sysfs(W.k);
	po.ctx = W.k;
	return pmu_perf_discover(hw_sim_platform(&W.hw), &po, &W.t, &W.pp,
				 why, sizeof(why));
}

/* sim_discover() and the PMU layer over it; bails out on failure. */
static void sim_up(const char *id, const char *body)
{
	int r = sim_discover(id, body);

	if (r == 0 && (r = pmu_init_perf(&W.pmu, &W.hw, &W.t, W.pp)) < 0)
		snprintf(why, sizeof(why), "%s", hw_last_error());
	W.pp = NULL;
	if (r < 0) {
		printf("Bail out! %s: %s\n", id, why);
		exit(1);
	}
	W.up = true;
}

static void down(void)
{
	if (W.up) {
		pmu_release(&W.pmu);
		pmu_free(&W.pmu);
	}
	pmu_perf_free(W.pp);
	skern_close(W.k);
	if (W.sim)
		hw_close(&W.hw);
	memset(&W, 0, sizeof(W));
}

/* Resolves name (raw encodings allowed) and fills sl for counter idx of
 * (socket, inst), encoded; 0 or -errno with why. */
static int slot_of(const char *name, unsigned socket, unsigned inst,
		   unsigned idx, struct pmu_slot *sl)
{
	struct evspec e;
	int r = sched_resolve(W.t.plat, name, true, &e, why, sizeof(why));

	memset(sl, 0, sizeof(*sl));
	if (r < 0)
		return r;
	pmu_slot(&W.pmu, sl, socket, e.unit, inst,
		 e.freerun >= 0 ? (unsigned)e.freerun : idx);
	return pmu_encode(&W.pmu, sl, &e, why, sizeof(why));
}

/* slot_of() that must succeed. */
static void slot(const char *name, unsigned socket, unsigned inst,
		 unsigned idx, struct pmu_slot *sl)
{
	if (slot_of(name, socket, inst, idx, sl) < 0) {
		printf("Bail out! %s: %s\n", name, why);
		exit(1);
	}
}

/* The value pmu_read() gives for sl, or ~0 with the error in why. */
static uint64_t val(const struct pmu_slot *sl)
{
	uint64_t v = 0;

	if (pmu_read(&W.pmu, sl, &v) < 0) {
		snprintf(why, sizeof(why), "%s", hw_last_error());
		return ~0ull;
	}
	return v;
}

/* Is got within one event of want (the simulator's rounding)? */
static bool near1(uint64_t got, double want)
{
	double d = (double)got - want;

	return got != ~0ull && d > -1.5 && d < 1.5;
}

#define is_near1(got, want, ...)                                        \
	do {                                                            \
		uint64_t g_ = (got);                                    \
		double w_ = (want);                                     \
		if (!ok(near1(g_, w_), __VA_ARGS__))                    \
			printf("#   got %" PRIu64 ", want %.0f +-1 (%s)\n" \
			       "#   at %s:%d\n", g_, w_, g_ == ~0ull ? why \
			       : "", __FILE__, __LINE__);               \
	} while (0)

/* One tick as the sampler makes it: the freeze (one read per group). */
static int tick(void)
{
	return pmu_enable(&W.pmu, false);
}

#define PH(rates) "\"phases\": [ { \"seconds\": 1000, \"rates\": {" rates "} } ]"

/* ---- discovery on the simulated kernel ------------------------------------ */

/* skx: uncore_cha_N are box N of every socket (uncore.c
 * uncore_get_pmu_name()); each instance counts its own rate. */
static void test_discover_skx(void)
{
	struct pmu_slot a, b, c;

	sim_up("skx", "\"sockets\": 2, \"cha_count\": 6, \"imc_channels\": 4, "
	       PH("\"s0/cha:0x00:0x00@5\": 1.0e6, \"s1/cha:0x00:0x00@5\": 2.0e6, "
		  "\"s1/cha:0x00:0x00@0\": 3.0e6"));
	is_int(W.t.nsockets, 2, "skx: two sockets from physical_package_id");
	is_int(W.t.sock[1].id, 1, "socket 1 is package 1");
	is_int(W.t.sock[1].cpu, 8, "its CPU: the lowest online one of it");
	is_int(W.t.sock[0].ninst[0], 6, "skx: 6 CHAs on socket 0 "
	       "(uncore_cha_0..5)");
	is_int(W.t.sock[1].ninst[0], 6, "and 6 on socket 1, the same PMUs");
	is_int(W.t.sock[1].ninst[1], 4, "4 IMC channels per socket");
	is_str(pmu_perf_missing(W.pmu.perf), "", "nothing missing");
	is_str(pmu_perf_unit_pmu(W.pmu.perf, 0), "uncore_cha_0",
	       "the CHA unit's first PMU");
	slot("UNC_CHA_CLOCKTICKS", 0, 5, 0, &a);
	slot("UNC_CHA_CLOCKTICKS", 1, 5, 0, &b);
	slot("UNC_CHA_CLOCKTICKS", 1, 0, 0, &c);
	is_int(pmu_program(&W.pmu, (struct pmu_slot[]){ a, b, c }, 3, false), 0,
	       "three CHA boxes programmed");
	tick();
	advance(1);
	tick();
	is_near1(val(&a), 1e6, "socket 0 CHA 5 counts its own rate");
	is_near1(val(&b), 2e6, "socket 1 CHA 5: uncore_cha_5 on socket 1's "
		 "CPU");
	is_near1(val(&c), 3e6, "socket 1 CHA 0");
	down();
}

/* zen4: amd_umc_N are numbered on across the sockets (amd_umc_12 is
 * socket 1's first: arch/x86/events/amd/uncore.c
 * amd_uncore_umc_ctx_init()), and amd_l3 is one PMU whose cpumask names
 * one CPU per L3 complex. */
static void test_discover_zen4(void)
{
	struct pmu_slot s[6];

	sim_up("zen4", "\"sockets\": 2, \"umc_count\": 12, \"ccx_count\": 4, "
	       PH("\"s0/umc:0x0a:0x01@0\": 1.0e6, \"s1/umc:0x0a:0x01@0\": 2.0e6, "
		  "\"s1/umc:0x0a:0x01@11\": 3.0e6, \"s0/umc:0x0a:0x01@11\": 4.0e6, "
		  "\"s0/l3:0x04:0xff@3\": 5.0e6, \"s1/l3:0x04:0xff@2\": 6.0e6"));
	is_int(W.t.sock[0].ninst[2], 12, "zen4: 12 UMCs on socket 0 "
	       "(amd_umc_0..11)");
	is_int(W.t.sock[1].ninst[2], 12, "12 on socket 1 (amd_umc_12..23), "
	       "numbered 0..11 there");
	ok(iset_empty(&W.t.sock[1].absent[2]), "none of them absent");
	is_int(W.t.sock[0].ninst[0], 4, "amd_l3: one box per CCX (4)");
	is_int(W.t.sock[1].ninst[0], 4, "on each socket");
	is_int(W.t.sock[1].ninst[1], 1, "amd_df: one box per socket");
	slot("umc_cas_cmd.rd", 0, 0, 0, &s[0]);
	slot("umc_cas_cmd.rd", 1, 0, 0, &s[1]);
	slot("umc_cas_cmd.rd", 1, 11, 0, &s[2]);
	slot("umc_cas_cmd.rd", 0, 11, 0, &s[3]);
	slot("l3_lookup_state.all_coherent_accesses_to_l3", 0, 3, 0, &s[4]);
	slot("l3_lookup_state.all_coherent_accesses_to_l3", 1, 2, 0, &s[5]);
	is_int(pmu_program(&W.pmu, s, 6, false), 0, "programmed");
	tick();
	advance(1);
	tick();
	is_near1(val(&s[0]), 1e6, "socket 0 UMC 0 is amd_umc_0");
	is_near1(val(&s[1]), 2e6, "socket 1 UMC 0 is amd_umc_12");
	is_near1(val(&s[2]), 3e6, "socket 1 UMC 11 is amd_umc_23");
	is_near1(val(&s[3]), 4e6, "socket 0 UMC 11 is amd_umc_11");
	is_near1(val(&s[4]), 5e6, "socket 0 L3 complex 3");
	is_near1(val(&s[5]), 6e6, "socket 1 L3 complex 2");
	down();
}

/* A unit the platform expects and the kernel lacks: reported once and
 * absent (its events unreachable), the rest served. */
static void test_missing_unit(void)
{
	struct evspec e;
	struct pmu_slot sl;

	sim_up("zen4", "\"sockets\": 2, \"ccx_count\": 2, "
	       "\"perf\": { \"missing_pmus\": [ \"amd_umc_*\" ] }, "
	       PH("\"l3:0x04:0x01\": 2.0e6"));
	like(pmu_perf_missing(W.pmu.perf), "umc (amd_umc_%u)",
	     "zen4 without amd_umc_N: the unit and its PMU are named");
	is_int(W.t.sock[0].ninst[2] + W.t.sock[1].ninst[2], 0,
	       "no UMC instance on any socket");
	sched_resolve(W.t.plat, "umc_cas_cmd.rd", false, &e, why, sizeof(why));
	is_int(pmu_reachable(&W.pmu, &e, why, sizeof(why)), -ENODEV,
	       "its events are unreachable (-ENODEV)");
	like(why, "no PMU for unit umc (amd_umc_%u)", "saying why");
	sched_resolve(W.t.plat, "l3_lookup_state.l3_miss", false, &e, why,
		      sizeof(why));
	is_int(pmu_reachable(&W.pmu, &e, why, sizeof(why)), 0,
	       "the L3's are reachable");
	slot("l3_lookup_state.l3_miss", 1, 1, 0, &sl);
	pmu_program(&W.pmu, &sl, 1, false);
	tick();
	advance(1);
	tick();
	is_near1(val(&sl), 1e6, "and count (2e6 per socket over 2 CCX)");
	down();

	/* Debian 12's 6.1 kernel predates amd_umc_N (6.7) */
	sim_up("zen4", "\"sockets\": 1, \"perf\": { \"kernel\": \"6.1.0\" }, "
	       PH(""));
	like(pmu_perf_missing(W.pmu.perf), "umc (amd_umc_%u)",
	     "kernel 6.1: amd_umc_N missing");
	sched_resolve(W.t.plat, "umc_cas_cmd.wr", false, &e, why, sizeof(why));
	is_int(pmu_reachable(&W.pmu, &e, why, sizeof(why)), -ENODEV,
	       "UMC events unreachable on 6.1");
	down();

	is_int(sim_discover("zen4", "\"perf\": { \"missing_pmus\": "
			    "[ \"amd_*\" ] }, " PH("")), -ENODEV,
	       "no PMU of the platform at all: discovery fails -ENODEV");
	like(why, "/bus/event_source/devices", "naming where it searched");
	down();
}

/* ---- encoding through the kernel's format/ files ------------------------- */

/* The config words pmu_encode() gives name on (socket 0, inst 0, ctr 0),
 * or the error (config ~0) with why. */
struct cfgs {
	int r;
	uint64_t c0, c1, c2;
};

static struct cfgs enc(const char *name)
{
	struct pmu_slot sl;
	int r = slot_of(name, 0, 0, 0, &sl);

	return (struct cfgs){ r, r ? ~0ull : sl.ctl_val, r ? ~0ull : sl.cfg1,
			      r ? ~0ull : sl.cfg2 };
}

#define is_cfg(name, w0, w1, ...)                                         \
	do {                                                              \
		struct cfgs c_ = enc(name);                               \
		if (!ok(c_.r == 0 && c_.c0 == (w0) && c_.c1 == (w1),      \
			__VA_ARGS__))                                     \
			printf("#   %s: r %d config 0x%" PRIx64 " config1 " \
			       "0x%" PRIx64 ", want 0x%" PRIx64 " 0x%"    \
			       PRIx64 " (%s)\n#   at %s:%d\n", name, c_.r, \
			       c_.c0, c_.c1, (uint64_t)(w0), (uint64_t)(w1), \
			       c_.r ? why : "", __FILE__, __LINE__);      \
	} while (0)

/*
 * hsx through hswep_uncore_cbox_formats_attr (config1 = FILTER0 low,
 * FILTER1 high: filter_opc config1:52-60, filter_nid 32-47,
 * filter_state 17-23), snbep_uncore_pcu_formats_attr (occ_sel
 * config:14-15, no umask), snbep_uncore_qpi_formats_attr ("event"
 * config:0-7,21), as the simulated kernel writes them (kpmu_hsx.c).
 */
static void test_encode_hsx(void)
{
	struct cfgs c;

	sim_up("hsx", "\"sockets\": 1, " PH(""));
	/* FILTER1 opc is bits 28:20 (Table 2-19): 0x191; nid 15:0: 3 */
	is_cfg("UNC_C_TOR_INSERTS.NID_OPCODE:filter1=0x19100003",
	       0x35 | 0x41 << 8, 0x191ull << 52 | 3ull << 32,
	       "hsx CBo FILTER1 opc/nid -> filter_opc config1:52-60, "
	       "filter_nid config1:32-47");
	/* FILTER0 state is bits 23:17, tid 5:0 (Table 2-18) */
	is_cfg("UNC_C_LLC_LOOKUP.ANY:filter0=0x7e0005", 0x34 | 0x11 << 8,
	       0x3full << 17 | 5, "hsx CBo FILTER0 state/tid -> "
	       "filter_state config1:17-23, filter_tid config1:0-5");
	is_cfg("UNC_P_POWER_STATE_OCCUPANCY.CORES_C6", 0x80 | 3 << 14, 0,
	       "hsx PCU occupancy C6 (umask 0xc0): occ_sel=3 at config:14-15");
	is_cfg("UNC_P_FREQ_BAND2_CYCLES:filter0=0x1f0000", 0x0d, 0x1full << 16,
	       "hsx PCU band 2 -> filter_band2 config1:16-23");
	is_cfg("UNC_Q_RxL_CREDITS_CONSUMED_VN0.DRS", 0x1e | 1 << 21 | 0x01 << 8,
	       0, "hsx QPI ev_sel_ext: event bit 8 -> config bit 21");
	is_cfg("UNC_M_CLOCKTICKS", 0xff, 0,
	       "hsx iMC fixed counter: the PMU's fixed event (0xff)");
	c = enc("pcu:0x80:0x41");
	is_int(c.r, -EOPNOTSUPP, "a PCU umask below bit 6: not countable "
	       "through perf");
	like(why, "no field for (only occ_sel", "saying which field is "
	     "missing");
	c = enc("UNC_H_ADDR_OPC_MATCH.OPC:filter2=0x3");
	is_int(c.r, -EOPNOTSUPP, "HA opcode match: the kernel has no field");
	like(why, "HAn_PCI_PMON_BOX_OPCODEMATCH.opc", "naming register and "
	     "field");
	c = enc("cbo:0x34:0x11:inv");
	is_int(c.r, -ENOENT, "hsx CBo inv: the kernel's cbox has no inv");
	like(why, "inv", "naming the term");
	down();
}

/* perf_terms and wide fields on the perf-only platforms. */
static void test_encode_terms(void)
{
	sim_up("zen4", "\"sockets\": 1, " PH(""));
	/* amd_f19h_uncore_is_visible(): enallslices 46, enallcores 47,
	 * threadmask 56-57; the catalog's perf_terms set them */
	is_cfg("l3_lookup_state.all_coherent_accesses_to_l3",
	       0x04 | 0xff << 8 | 1ull << 46 | 1ull << 47 | 3ull << 56, 0,
	       "zen4 L3: event, umask and the perf_terms fields");
	/* event14v2 "config:0-7,32-37", umask12 "config:8-15,24-27":
	 * 0x11f -> 0x1f | 1 << 32, 0x7fe -> 0xfe << 8 | 7 << 24 */
	is_cfg("local_processor_read_data_beats_cs4",
	       0x1f | 0xfeull << 8 | 7ull << 24 | 1ull << 32, 0,
	       "zen4 DF: a 14-bit event and 12-bit umask split as the "
	       "format says");
	is_cfg("umc_cas_cmd.wr", 0x0a | 2 << 8, 0,
	       "zen4 UMC: umask through the PMU's rdwrmask field");
	down();
	sim_up("skx", "\"sockets\": 1, " PH(""));
	/* skx LLC (plat_xsp.h): TOR_INSERTS.IA 0x35/0x31 and .IA_MISS
	 * 0x35/0x21 with FILTER1 0x3B - rem (bit 0), loc (1), all_opc (3),
	 * nm (4), not_nm (5) - in config1 63:32: skx_uncore_cha_formats_attr
	 * filter_rem 32, filter_loc 33, filter_all_op 35, filter_nm 36,
	 * filter_not_nm 37; nothing in FILTER0 (no state filter) */
	is_cfg(SKX_LLC_LOOKUPS, 0x35 | 0x31 << 8,
	       1ull << 32 | 1ull << 33 | 1ull << 35 | 1ull << 36 | 1ull << 37,
	       "skx LLC lookups: TOR_INSERTS.IA, every opcode in FILTER1");
	is_cfg(SKX_LLC_MISSES, 0x35 | 0x21 << 8,
	       1ull << 32 | 1ull << 33 | 1ull << 35 | 1ull << 36 | 1ull << 37,
	       "skx LLC misses: TOR_INSERTS.IA_MISS, the same FILTER1");
	down();
	sim_up("icx", "\"sockets\": 1, " PH(""));
	/* snr_uncore_cha_formats_attr umask "config:8-15,32-57" */
	is_cfg("UNC_CHA_TOR_INSERTS.IA_MISS", 0x35 | 0x01 << 8 |
	       0xc001feull << 32, 0, "icx CHA UMaskExt above bit 7 -> "
	       "config:32-57");
	/* snr_uncore_iio_formats_attr ch_mask 36-47, fc_mask 48-50 */
	is_cfg("UNC_IIO_DATA_REQ_OF_CPU.MEM_WRITE.PART1", 0x83 | 0x01 << 8 |
	       0x2ull << 36 | 0x7ull << 48, 0,
	       "icx IIO perf_terms ch_mask/fc_mask");
	down();
}

/* ---- one read(2) per group per tick --------------------------------------- */

/* skx, 2 sockets of 4 CHAs and 2 IMC channels: two events in every CHA,
 * one in every channel = 12 groups, 20 events. */
static void test_reads_per_tick(void)
{
	struct pmu_slot s[20];
	struct pmu_perf_stats st0, st1;
	unsigned n = 0;
	unsigned long r0, t0;

	sim_up("skx", "\"sockets\": 2, \"cha_count\": 4, \"imc_channels\": 2, "
	       PH("\"cha:0x00:0x00\": 4.0e6, \"cha:0x50:0x03\": 8.0e6, "
		  "\"imc:0x04:0x03\": 2.0e6"));
	for (unsigned so = 0; so < 2; so++) {
		for (unsigned i = 0; i < 4; i++) {
			slot("UNC_CHA_CLOCKTICKS", so, i, 0, &s[n++]);
			slot("UNC_CHA_REQUESTS.READS", so, i, 1, &s[n++]);
		}
		for (unsigned i = 0; i < 2; i++)
			slot("UNC_M_CAS_COUNT.RD", so, i, 0, &s[n++]);
	}
	is_int(pmu_program(&W.pmu, s, n, false), 0, "20 events programmed");
	pmu_perf_stats(W.pmu.perf, &st0);
	is_int(st0.groups, 12, "one group per kernel box: 12");
	is_int(sc.open, 20, "one perf_event_open per event");
	is_int(sc.ioctl, 20 + 12, "an id ioctl per event, an enable per group");
	is_int(st0.syscalls, sc_total(), "pmu_perf_stats counts every "
	       "system call so far (%lu)", sc_total());
	t0 = sc_total();
	is_int(pmu_program(&W.pmu, s, n, false), 0, "the same program again");
	is_int(sc_total(), t0, "costs no system call");
	r0 = sc.read;
	t0 = sc_total();
	for (unsigned k = 0; k < 10; k++) {
		advance(0.1);
		tick();
		for (unsigned i = 0; i < n; i++)
			val(&s[i]);
	}
	is_int(sc.read - r0, 120, "10 ticks: 120 read(2), one per group "
	       "per tick; the reads of the values cost none");
	is_int(sc_total() - t0, 120, "and nothing else");
	pmu_perf_stats(W.pmu.perf, &st1);
	is_int(st1.reads - st0.reads, 120, "pmu_perf_stats: 120 reads");
	is_int(st1.syscalls - st0.syscalls, 120, "pmu_perf_stats: 120 "
	       "system calls");
	is_int(st1.read_errors + st1.open_errors + st1.scaled + st1.reopens,
	       0, "no error, scaling or reopen");
	is_near1(val(&s[0]), 1e6, "a CHA's clock: 1e6/s per box over 1 s");
	is_near1(val(&s[11]), 2e6, "socket 1 CHA 0's reads");
	is_near1(val(&s[19]), 1e6, "socket 1 channel 1's CAS reads");
	pmu_release(&W.pmu);
	is_int(skern_nevents(W.k), 0, "pmu_release closes every event");
	is_int(sc.close, 20, "one close each");
	pmu_perf_stats(W.pmu.perf, &st1);
	is_int(st1.syscalls, sc_total(), "pmu_perf_stats still counts every "
	       "system call after the release (a counter never goes back)");
	is_int(st1.groups, 0, "no group open");
	down();
}

/* icx's free-running IMC counters: a group opened at the first read
 * (counting from zero), read once per tick after. */
/* The kernel extends every count to 64 bits: the perf backend has no
 * wrap bound on the interval where the direct backend's skl IMC (32 bits
 * at 1e9/s at most) allows 2147 ms. */
static void test_wrap_bound(void)
{
	struct evspec e;

	sim_up("skl", "\"cbo_count\": 2, " PH("\"cbo:0x34:0x8f\": 1.0e8"));
	if (sched_resolve(W.t.plat, "DRAM_DATA_READS", true, &e, why,
			  sizeof(why)) < 0)
		printf("Bail out! DRAM_DATA_READS: %s\n", why), exit(1);
	is_int((int)evspec_max_interval_ms(&W.pmu, &e), 3600000,
	       "perf: DRAM_DATA_READS allows the 3600 s cap");
	is_int((int)mux_half_wrap_ms(32, 1e9), 2147,
	       "(its 32-bit counter at 1e9/s would allow 2147 ms)");
	down();
}

static void test_freerun(void)
{
	struct pmu_slot a, b, c;
	struct pmu_perf_stats st;
	unsigned long r0;

	sim_up("icx", "\"sockets\": 1, \"cha_count\": 1, \"imc_free_count\": 2, "
	       PH("\"imc_free:UNC_M_FREE_RUNNING.DATA_READ\": 4.0e8, "
		  "\"cha:0x00:0x00\": 1.0e6"));
	slot("UNC_CHA_CLOCKTICKS", 0, 0, 0, &a);
	slot("UNC_M_FREE_RUNNING.DATA_READ", 0, 1, 0, &b);
	slot("UNC_M_FREE_RUNNING.DCLK", 0, 1, 0, &c);
	pmu_program(&W.pmu, &a, 1, false);
	tick();
	is_int(val(&b), 0, "a free-running counter's first read: 0 (its "
	       "group opens now)");
	pmu_perf_stats(W.pmu.perf, &st);
	is_int(st.groups, 2, "the CHA's group and the IMC's free-running one");
	advance(1);
	r0 = sc.read;
	tick();
	is_int(sc.read - r0, 2, "one read per group");
	is_near1(val(&b), 2e8, "DATA_READ: 4e8/s per socket over 2 boxes, 1 s");
	is_near1(val(&a), 1e6, "the CHA's clock");
	is_int(val(&c), 0, "a second free-running counter of the box: 0 "
	       "at its first read");
	pmu_program(&W.pmu, &a, 1, false);
	advance(1);
	tick();
	is_near1(val(&b), 4e8, "the free-running counters stay open over a "
		 "new program, nothing lost");
	down();
}

/* ---- group rebuilds: the virtual counters ---------------------------------- */

/* A claim multiplexed in and out of counter 1 of skx CHA 0, the clock
 * moving between each tick's read and the reprogramming: the old group
 * is read once more before it closes, so nothing is lost. */
static void test_rebuild(void)
{
	struct pmu_slot a, b, c;
	struct pmu_perf_stats st;
	uint64_t last = 0, v;

	sim_up("skx", "\"sockets\": 1, \"cha_count\": 1, "
	       PH("\"cha:0x00:0x00\": 1.0e6, \"cha:0x50:0x03\": 2.0e6, "
		  "\"cha:0x50:0x0c\": 4.0e6"));
	slot("UNC_CHA_CLOCKTICKS", 0, 0, 0, &a);
	slot("UNC_CHA_REQUESTS.READS", 0, 0, 1, &b);
	slot("UNC_CHA_REQUESTS.WRITES", 0, 0, 1, &c);
	pmu_program(&W.pmu, &a, 1, false);
	tick();
	advance(0.5);
	pmu_program(&W.pmu, (struct pmu_slot[]){ a, b }, 2, false);
	advance(0.5);
	tick();
	is_near1(val(&a), 1e6, "claim in: the baseline lost nothing over "
		 "the rebuild");
	is_near1(val(&b), 1e6, "the claim counts from its group's open");
	advance(0.5);
	pmu_program(&W.pmu, &a, 1, false);
	is_near1(val(&b), 2e6, "claim out: its last half second read "
		 "before the close");
	advance(0.5);
	tick();
	is_near1(val(&a), 2e6, "baseline still exact");
	is_near1(val(&b), 2e6, "the claim's counter keeps its value out");
	last = val(&b);
	advance(0.5);
	pmu_program(&W.pmu, (struct pmu_slot[]){ a, c }, 2, false);
	advance(0.5);
	tick();
	v = val(&c);
	ok(v >= last, "counter 1's virtual counter is monotonic over a new "
	   "event (%" PRIu64 " >= %" PRIu64 ")", v, last);
	is_near1(v - last, 2e6, "and adds the new event's 0.5 s");
	is_near1(val(&a), 3e6, "the baseline over three rebuilds: exact");
	pmu_perf_stats(W.pmu.perf, &st);
	is_int(st.reopens, 3, "three rebuilds counted");
	down();
}

/* ---- each group's own counting time --------------------------------------- */

/* The groups of one tick are read one after another: a sampler
 * preempted 20 ms between two of them makes the first count 20 ms less
 * than the second over the same tick, and the window midpoint to
 * midpoint (pmu_counted_ns()) is wrong for both by 10 ms, 2 % of a
 * 500 ms tick.  pmu_own_window_ns() is the time_enabled each event
 * gained over the tick, which its count is exact over; read-nows and a
 * rebuild of its group in between are part of it, a new event's starts
 * at its open. */
static void test_own_window(void)
{
	struct pmu_slot a, b, c;
	uint64_t va, vb, wa, wb, raw;
	int err;

	sim_up("skx", "\"sockets\": 1, \"cha_count\": 2, "
	       PH("\"cha:0x00:0x00\": 2.0e6, \"cha:0x50:0x03\": 4.0e6"));
	slot("UNC_CHA_CLOCKTICKS", 0, 0, 0, &a);
	slot("UNC_CHA_CLOCKTICKS", 0, 1, 0, &b);
	slot("UNC_CHA_REQUESTS.READS", 0, 1, 1, &c);
	pmu_program(&W.pmu, (struct pmu_slot[]){ a, b }, 2, false);
	is_u64(pmu_own_window_ns(&W.pmu, &a), 0, "no window before a read");
	tick();
	is_u64(pmu_own_window_ns(&W.pmu, &a), 0, "nor at the first");
	advance(0.5);
	tick();
	is_u64(pmu_own_window_ns(&W.pmu, &a), 500000000,
	       "a tick later: 500 ms, the group's time_enabled");
	is_u64(pmu_own_window_ns(&W.pmu, &b), 500000000, "the other's too");
	va = val(&a);
	vb = val(&b);
	advance(0.5);
	stall_at = sc.read + 2;		/* the second group's read */
	stall_s = 0.02;
	tick();
	va = val(&a) - va;
	vb = val(&b) - vb;
	wa = pmu_own_window_ns(&W.pmu, &a);
	wb = pmu_own_window_ns(&W.pmu, &b);
	is_near1(va, 5e5, "preempted 20 ms between the two reads: the first "
		 "group counted 500 ms");
	is_near1(vb, 5.2e5, "the second 520 ms (over the 510 ms midpoint to "
		 "midpoint: 2 %% high, the first 2 %% low)");
	is_u64(wa, 500000000, "the first group's own time: 500 ms");
	is_u64(wb, 520000000, "the second's: 520 ms");
	is_near1(va * 1000000000ull / wa, 1e6, "each count over its own "
		 "time: the rate, 1e6/s");
	is_near1(vb * 1000000000ull / wb, 1e6, "both");
	/* a read-now between ticks and a rebuild of b's box: the next
	 * tick's window is still the whole tick */
	advance(0.2);
	is_int(pmu_read_now(&W.pmu, &a, 1, &raw, &err), 0, "a read-now of a's group");
	advance(0.1);
	pmu_program(&W.pmu, (struct pmu_slot[]){ a, b, c }, 3, false);
	advance(0.2);
	tick();
	is_u64(pmu_own_window_ns(&W.pmu, &a), 520000000, "a read-now in "
	       "between: still read to read, 520 ms (the stall came after "
	       "a's read last tick)");
	is_u64(pmu_own_window_ns(&W.pmu, &b), 500000000, "a rebuilt group: "
	       "the old group's time and the new one's, 500 ms");
	is_u64(pmu_own_window_ns(&W.pmu, &c), 200000000,
	       "its new event's: its own 200 ms since the open");
	/* so far: a claim's series starting after a rebuild (mux.c
	 * start_values()) learns how much of the window has passed */
	advance(0.3);
	pmu_program(&W.pmu, (struct pmu_slot[]){ a, b }, 2, false);
	is_u64(pmu_own_so_far_ns(&W.pmu, &b), 300000000, "so far: b's "
	       "counter carried over the rebuild, 300 ms since the tick");
	is_u64(pmu_own_so_far_ns(&W.pmu, &c), 0, "c's left the group: none");
	advance(0.2);
	tick();
	is_u64(pmu_own_window_ns(&W.pmu, &b), 500000000, "the whole tick's "
	       "window is still 500 ms (the claim takes 500 - 300)");
	is_u64(pmu_own_so_far_ns(&W.pmu, &b), 0, "so far, right after the "
	       "tick's read: nothing");
	stall_at = 0;
	down();
}

/* A counter several groups read (a claim sharing the baseline's event,
 * the iMC's one fixed DCLK counter many claims take) is one event of the
 * box's kernel group: programmed twice, the simulated kernel refused the
 * second fixed event ("a group larger than the box's counters") and
 * every claim on the box read 0 (formulas_sweep.sh, hsx on perf). */
static void test_shared_counter(void)
{
	struct pmu_slot d, c, e;
	struct pmu_perf_stats st;

	sim_up("hsx", "\"sockets\": 1, \"imc_channels\": 1, "
	       PH("\"imc:0x04:0x03\": 1.0e6"));
	slot("UNC_M_CLOCKTICKS", 0, 0, 0, &d);
	slot("UNC_M_CAS_COUNT.RD", 0, 0, 0, &c);
	slot("UNC_M_CAS_COUNT.WR", 0, 0, 0, &e);
	is_int(pmu_program(&W.pmu, (struct pmu_slot[]){ d, c, d, c }, 4,
			   false), 0, "the fixed counter and counter 0 twice "
	       "each: programmed");
	tick();
	advance(0.5);
	tick();
	is_near1(val(&c), 5e5, "counter 0 counts, once");
	ok(val(&d) != ~0ull && val(&d) > 0, "the fixed DCLK counts (%s)", why);
	pmu_perf_stats(W.pmu.perf, &st);
	is_int((int)st.open_errors, 0, "no group refused");
	ok(pmu_program(&W.pmu, (struct pmu_slot[]){ c, e }, 2, false) < 0,
	   "one counter for two events: refused (%s)", hw_last_error());
	down();
}

/* ---- another perf user: scaling, and a group that never ran --------------- */

static void test_contention(void)
{
	struct pmu_slot a, b;
	struct pmu_perf_stats st;

	sim_up("skx", "\"sockets\": 1, \"cha_count\": 2, "
	       PH("\"cha:0x00:0x00\": 2.0e6") ", \"faults\": ["
	       " { \"at\": 10, \"kind\": \"perf_contention\", \"target\": "
	       "   \"uncore_cha_1\", \"running\": 0.25, \"seconds\": 1 },"
	       " { \"at\": 20, \"kind\": \"perf_contention\", \"target\": "
	       "   \"uncore_cha_0\", \"running\": 0, \"seconds\": 1 } ]");
	slot("UNC_CHA_CLOCKTICKS", 0, 0, 0, &a);
	slot("UNC_CHA_CLOCKTICKS", 0, 1, 0, &b);
	pmu_program(&W.pmu, (struct pmu_slot[]){ a, b }, 2, false);
	tick();
	advance(10);
	tick();
	ok(!pmu_scaled(&W.pmu, &b), "not scaled before the contention");
	advance(1);
	tick();
	is_near1(val(&b), 1.1e7, "contended (running 25%%): the interval "
		 "scaled by enabled/running");
	ok(pmu_scaled(&W.pmu, &b), "and flagged scaled");
	ok(!pmu_scaled(&W.pmu, &a), "the other box is not");
	is_near1(val(&a), 1.1e7, "and exact");
	pmu_perf_stats(W.pmu.perf, &st);
	is_int(st.scaled, 1, "one scaled group read counted");
	advance(1);
	tick();
	ok(!pmu_scaled(&W.pmu, &b), "after it: exact again");
	is_near1(val(&b), 1.2e7, "and counting on");
	advance(8);
	tick();
	advance(1);
	tick();
	is_int(val(&a), ~0ull, "a group that did not run at all this "
	       "interval: an error, not a value");
	like(why, "did not schedule the group", "saying why");
	is_near1(val(&b), 2.1e7, "the other box reads on");
	advance(1);
	tick();
	is_near1(val(&a), 2.1e7, "after: its counter moves on from where "
		 "it was (the unscheduled second is lost, not guessed)");
	down();
}

/* ---- faults: a PMU gone, read errors --------------------------------------- */

static void test_faults(void)
{
	struct pmu_slot s[4];
	struct pmu_perf_stats st;

	sim_up("skx", "\"sockets\": 1, \"cha_count\": 4, "
	       PH("\"cha:0x00:0x00\": 4.0e6") ", \"faults\": ["
	       " { \"at\": 5, \"kind\": \"perf_read_error\", \"target\": "
	       "   \"uncore_cha_0\", \"errno\": \"EINTR\", \"count\": 2 },"
	       " { \"at\": 5, \"kind\": \"perf_read_error\", \"target\": "
	       "   \"uncore_cha_1\", \"errno\": \"EIO\" },"
	       " { \"at\": 5, \"kind\": \"pmu_gone\", \"target\": "
	       "   \"uncore_cha_2\" },"
	       " { \"at\": 5, \"kind\": \"short_read\", \"target\": "
	       "   \"uncore_cha_3\" } ]");
	for (unsigned i = 0; i < 4; i++)
		slot("UNC_CHA_CLOCKTICKS", 0, i, 0, &s[i]);
	pmu_program(&W.pmu, s, 4, false);
	tick();
	advance(4);
	is_int(tick(), 0, "before the faults: the tick reads");
	advance(2);
	ok(tick() < 0, "a tick with failed reads says so");
	is_near1(val(&s[0]), 6e6, "EINTR twice: retried, read");
	is_int(val(&s[1]), ~0ull, "EIO: the series is down");
	like(why, "reading cha", "naming the unit");
	like(why, "uncore_cha_1 on CPU 0", "its PMU and CPU");
	like(why, "Input/output error", "and the errno");
	is_int(val(&s[2]), ~0ull, "PMU gone: down");
	is_int(val(&s[3]), ~0ull, "a short read: down, never a value");
	pmu_perf_stats(W.pmu.perf, &st);
	is_int(st.read_errors, 3, "three failed group reads counted");
	advance(1);
	tick();
	is_near1(val(&s[1]), 7e6, "after the EIO: back, nothing lost");
	is_near1(val(&s[3]), 7e6, "after the short read: back");
	is_int(val(&s[2]), ~0ull, "the gone PMU stays down");
	is_near1(val(&s[0]), 7e6, "the other boxes were fine throughout");
	pmu_perf_stats(W.pmu.perf, &st);
	is_int(st.read_errors, 3, "the gone PMU is not read again: lost at "
	       "its first ENODEV");
	ok(!pmu_present(&W.pmu, 0, s[2].unit, 2) &&
	   pmu_present(&W.pmu, 0, s[2].unit, 1),
	   "CHA 2 is no longer present, CHA 1 is");
	is_int((int)pmu_changes(&W.pmu), 1, "one change to what is present");
	{
		char lost[512], msg[512];

		pmu_perf_lost(W.pmu.perf, lost, sizeof(lost));
		like(lost, "uncore_cha_2 on CPU 0 (cha 2 on socket 0: went away "
		     "at run time, ENODEV)", "listed as lost, with its unit");
		is_int(pmu_reprobe(&W.pmu, msg, sizeof(msg)), 0,
		       "a reprobe finds nothing back");
		like(msg, "uncore_cha_2 is still gone", "and says so");
		is_int((int)pmu_changes(&W.pmu), 1, "nothing changed");
	}
	down();
}

/* A "%u" PMU the kernel lacks keeps its box number unused: without
 * uncore_qpi_0 (a missing PCI function), uncore_qpi_1 is still port 1 on
 * both sockets and port 0 is absent, not renumbered. */
static void test_missing_box_zero(void)
{
	int ui = -1;

	sim_up("hsx", "\"sockets\": 2, \"qpi_ports\": 2, \"perf\": { "
	       "\"missing_pmus\": [ \"uncore_qpi_0\" ] }, " PH(""));
	plat_unit(W.t.plat, "qpi", &ui);
	for (unsigned s = 0; s < 2 && ui >= 0; s++) {
		is_int(W.t.sock[s].ninst[ui], 2, "socket %u: 2 QPI ports", s);
		ok(iset_has(&W.t.sock[s].absent[ui], 0) &&
		   !iset_has(&W.t.sock[s].absent[ui], 1),
		   "socket %u: port 0 absent, uncore_qpi_1 is port 1", s);
	}
	down();
}

/* ---- reachability ------------------------------------------------------------ */

static void test_reachable(void)
{
	struct evspec e;

	sim_up("hsx", "\"sockets\": 1, \"perf\": { \"missing_pmus\": "
	       "[ \"uncore_qpi_*\", \"cstate_core\" ] }, " PH(""));
	like(pmu_perf_missing(W.pmu.perf), "qpi (uncore_qpi_%u)",
	     "hsx without uncore_qpi_N: reported");
	sched_resolve(W.t.plat, "UNC_Q_TxL_FLITS_G0.DATA", false, &e, why,
		      sizeof(why));
	is_int(pmu_reachable(&W.pmu, &e, why, sizeof(why)), -ENODEV,
	       "a QPI event: unreachable");
	sched_resolve(W.t.plat, "UNC_C_CLOCKTICKS", false, &e, why,
		      sizeof(why));
	is_int(pmu_reachable(&W.pmu, &e, why, sizeof(why)), 0,
	       "a CBo event: reachable");
	sched_resolve(W.t.plat, "UNC_P_CORE_CC6_CTR", false, &e, why,
		      sizeof(why));
	is_int(pmu_reachable(&W.pmu, &e, why, sizeof(why)), -ENODEV,
	       "a core C-state residency without cstate_core: unreachable");
	sched_resolve(W.t.plat, "UNC_P_CORE_PC6_CTR", false, &e, why,
		      sizeof(why));
	is_int(pmu_reachable(&W.pmu, &e, why, sizeof(why)), 0,
	       "a package one (cstate_pkg): reachable");
	down();
}

/* ---- fixture sysfs trees and a fake perf_event_open ----------------------- */

#define FK_MAX 128
#define FK_FD0 1000

/* Every event opened, in order. */
static struct fk_ev {
	bool open;
	uint32_t type;
	int cpu;
	uint64_t cfg[3];
	unsigned leader;	/* index of its group's leader */
	uint64_t t0;		/* fk_t when it was opened */
} fk[FK_MAX];
static unsigned fk_n, fk_reads;
static uint64_t fk_t;		/* the fake kernel's time, in ticks */
/* Faults: reads of groups on this CPU fail with -EIO, opens on this CPU
 * with -ENODEV (-1: none); the groups on fk_lost_cpu did not run for
 * fk_lost ticks (another perf user had the counters). */
static int fk_fail_read_cpu = -1, fk_refuse_cpu = -1, fk_lost_cpu = -1;
static uint64_t fk_lost;

/* Ticks event e ran since it was opened. */
static uint64_t fk_ran(const struct fk_ev *e)
{
	return fk_t - e->t0 - (e->cpu == fk_lost_cpu ? fk_lost : 0);
}

/* What an event has counted since it was opened: (config & 0xffff) + 1
 * a tick, times its CPU + 1, so a sum over CPUs says which were read. */
static uint64_t fk_value(const struct fk_ev *e)
{
	return ((e->cfg[0] & 0xffff) + 1) * (uint64_t)(e->cpu + 1) *
	       fk_ran(e);
}

static int fk_open(void *ctx, struct perf_event_attr *a, int pid, int cpu,
		   int group, unsigned long flags)
{
	(void)ctx;
	(void)flags;
	if (cpu == fk_refuse_cpu)
		return -ENODEV;
	if (pid != -1 || cpu < 0 || fk_n == FK_MAX ||
	    a->read_format != (PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			       PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING))
		return -EINVAL;
	fk[fk_n] = (struct fk_ev){ true, a->type, cpu,
				   { a->config, a->config1, a->config2 },
				   group < 0 ? fk_n : (unsigned)(group - FK_FD0),
				   fk_t };
	return FK_FD0 + (int)fk_n++;
}

static long fk_read(void *ctx, int fd, void *buf, size_t len)
{
	uint64_t v[3 + 2 * FK_MAX];
	unsigned n = 0, i = (unsigned)(fd - FK_FD0);

	(void)ctx;
	fk_reads++;
	if (fk[i].cpu == fk_fail_read_cpu)
		return -EIO;
	for (unsigned j = 0; j < fk_n; j++)
		if (fk[j].open && fk[j].leader == i) {
			v[3 + 2 * n] = fk_value(&fk[j]);
			v[4 + 2 * n++] = 5000 + j;
		}
	v[0] = n;
	v[1] = (fk_t - fk[i].t0) * 100000000ull;
	v[2] = fk_ran(&fk[i]) * 100000000ull;
	if (len < (3 + 2 * n) * sizeof(*v))
		return -ENOSPC;
	memcpy(buf, v, (3 + 2 * n) * sizeof(*v));
	return (long)((3 + 2 * n) * sizeof(*v));
}

static int fk_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
	(void)ctx;
	if (req == PERF_EVENT_IOC_ID)
		*(uint64_t *)arg = 5000 + (uint64_t)(fd - FK_FD0);
	return 0;
}

static int fk_close(void *ctx, int fd)
{
	(void)ctx;
	fk[fd - FK_FD0].open = false;
	return 0;
}

static const struct pev_ops fake_ops = {
	"fake kernel", fk_open, fk_read, fk_ioctl, fk_close,
};

/* Writes ROOT/rel (making its directories). */
static void fx_put(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	write_file(path, text);
}

/* ROOT/bus/event_source/devices/PMU/rel. */
static void fx_pmu(const char *root, const char *pmu, const char *rel,
		   const char *text)
{
	char r[256];

	snprintf(r, sizeof(r), "bus/event_source/devices/%s/%s", pmu, rel);
	fx_put(root, r, text);
}

/* CPUs 0-3 online, 0-1 in package 0, 2-3 in package 1; CPU 4 (package
 * 1) present but offline. */
static void fx_cpus(const char *root)
{
	char rel[128];

	fx_put(root, "devices/system/cpu/online", "0-3\n");
	for (unsigned c = 0; c < 5; c++) {
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/topology/"
			 "physical_package_id", c);
		fx_put(root, rel, c < 2 ? "0\n" : "1\n");
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/topology/"
			 "die_id", c);
		fx_put(root, rel, "0\n");
	}
}

/* An icx-like CHA PMU: type, cpumask, format with umask as given. */
static void fx_cha(const char *root, unsigned box, unsigned type,
		   const char *cpumask, const char *umask)
{
	char name[32], t[16];

	snprintf(name, sizeof(name), "uncore_cha_%u", box);
	snprintf(t, sizeof(t), "%u\n", type);
	fx_pmu(root, name, "type", t);
	fx_pmu(root, name, "cpumask", cpumask);
	fx_pmu(root, name, "format/event", "config:0-7\n");
	fx_pmu(root, name, "format/umask", umask);
	fx_pmu(root, name, "format/edge", "config:18\n");
	fx_pmu(root, name, "format/inv", "config:23\n");
	fx_pmu(root, name, "format/thresh", "config:24-31\n");
}

/* Discovers platform p on the fixture tree at root behind fake_ops and
 * sets up the PMU layer; bails out on failure. */
static void fx_up(const struct platform *p, const char *root)
{
	struct pmu_perf_opts po = { .sysfs = root, .ops = &fake_ops };
	int r;

	memset(&W, 0, sizeof(W));
	memset(fk, 0, sizeof(fk));
	fk_n = fk_reads = 0;
	fk_t = 0;
	fk_fail_read_cpu = fk_refuse_cpu = fk_lost_cpu = -1;
	fk_lost = 0;
	r = pmu_perf_discover(p, &po, &W.t, &W.pp, why, sizeof(why));
	if (r == 0 && (r = pmu_init_perf(&W.pmu, &W.hw, &W.t, W.pp)) < 0)
		snprintf(why, sizeof(why), "%s", hw_last_error());
	W.pp = NULL;
	if (r < 0) {
		printf("Bail out! fixture %s: %s\n", root, why);
		exit(1);
	}
	W.up = true;
}

/* The events of fk opened with PMU type and CPU, as a count. */
static unsigned fk_count(uint32_t type, int cpu)
{
	unsigned n = 0;

	for (unsigned i = 0; i < fk_n; i++)
		n += fk[i].open && fk[i].type == type && fk[i].cpu == cpu;
	return n;
}

/* The config of the open event of PMU type on CPU cpu, or ~0. */
static uint64_t fk_config(uint32_t type, int cpu)
{
	for (unsigned i = 0; i < fk_n; i++)
		if (fk[i].open && fk[i].type == type && fk[i].cpu == cpu)
			return fk[i].cfg[0];
	return ~0ull;
}

/*
 * icx on a tree the kernel might write on a broken or future machine:
 * uncore_cha_0 with its umask moved ("config:8-15,24-31,40-55"),
 * uncore_cha_1 whose cpumask names the offline CPU 4, uncore_cha_2 with
 * a malformed format file, uncore_cha_3 as the kernel writes it
 * (snr_uncore_cha_formats_attr "config:8-15,32-57"), and no other PMU.
 */
static void fx_icx_tree(const char *root)
{
	fx_cpus(root);
	fx_cha(root, 0, 20, "0,2\n", "config:8-15,24-31,40-55\n");
	fx_cha(root, 1, 21, "0,4\n", "config:8-15,32-57\n");
	fx_cha(root, 2, 22, "0,2\n", "config:8-15,32-70\n");
	fx_cha(root, 3, 23, "0,2\n", "config:8-15,32-57\n");
}

static void test_fixture_discovery(void)
{
	char root[PATH_MAX];
	const char *m;

	snprintf(root, sizeof(root), "%s/fx_icx", tmpdir);
	fx_icx_tree(root);
	fx_up(&plat_icx, root);
	m = pmu_perf_missing(W.pmu.perf);
	is_int(W.t.nsockets, 2, "fixture: two packages among the online CPUs");
	is_int(W.t.sock[1].cpu, 2, "socket 1's CPU: 2");
	is_int(W.t.sock[0].ninst[0], 4, "socket 0: CHAs 0-3");
	ok(iset_has(&W.t.sock[0].absent[0], 2) &&
	   !iset_has(&W.t.sock[0].absent[0], 1) &&
	   !iset_has(&W.t.sock[0].absent[0], 3),
	   "socket 0: the malformed uncore_cha_2 absent, the rest present");
	ok(iset_has(&W.t.sock[1].absent[0], 1) &&
	   iset_has(&W.t.sock[1].absent[0], 2) &&
	   !iset_has(&W.t.sock[1].absent[0], 0) &&
	   !iset_has(&W.t.sock[1].absent[0], 3),
	   "socket 1: CHA 1 (offline CPU) and 2 absent, 0 and 3 present");
	like(m, "uncore_cha_2 (", "the malformed PMU is reported");
	like(m, "format/umask", "naming its file");
	like(m, "uncore_cha_1 on CPU 4 (its cpumask names an offline CPU)",
	     "the offline CPU is reported");
	like(m, "imc (uncore_imc_%u)", "the units the kernel lacks are "
	     "reported");
	like(m, "imc_free (uncore_imc_free_running_%u)", "each of them");
	is_int(W.t.sock[0].ninst[1], 0, "and have no instance");
	down();
}

static void test_fixture_encoding(void)
{
	char root[PATH_MAX];
	struct pmu_slot s[3], absent;
	uint64_t v;

	snprintf(root, sizeof(root), "%s/fx_icx", tmpdir);
	fx_up(&plat_icx, root);
	slot("UNC_CHA_TOR_INSERTS.IA_MISS", 1, 0, 0, &s[0]);
	slot("UNC_CHA_TOR_INSERTS.IA_MISS", 0, 3, 0, &s[1]);
	slot("UNC_CHA_CLOCKTICKS", 0, 1, 1, &s[2]);
	/* umask 0xc001fe01: its bytes in the order of the file's bits */
	is_u64(s[0].ctl_val, 0x35 | 0x01 << 8 | 0xfeull << 24 |
	       0xc001ull << 40, "a umask field moved in format/umask lands "
	       "where the file says (8-15, 24-31, 40-55)");
	is_u64(s[1].ctl_val, 0x35 | 0x01 << 8 | 0xc001feull << 32,
	       "the same event on a box with the kernel's layout: 8-15, "
	       "32-57");
	is_int(slot_of("UNC_CHA_CLOCKTICKS", 1, 1, 0, &absent), -ENODEV,
	       "an absent box cannot be encoded");
	like(why, "cha 1 on socket 1 has no kernel PMU", "saying so");
	is_int(pmu_program(&W.pmu, s, 3, false), 0, "programmed");
	is_u64(fk_config(20, 2), s[0].ctl_val, "socket 1's CHA 0: "
	       "uncore_cha_0 (type 20) on CPU 2, its cpumask CPU there");
	is_u64(fk_config(23, 0), s[1].ctl_val, "socket 0's CHA 3: type 23 "
	       "on CPU 0");
	is_int(fk_count(21, 0), 1, "socket 0's CHA 1: type 21 on CPU 0");
	is_int(fk_n, 3, "three groups of one event, nothing else opened");
	fk_t = 10;
	tick();
	is_int(fk_reads, 3, "a tick reads each group once");
	v = val(&s[0]);
	is_u64(v, (0x0135 + 1) * 3 * 10ull, "the value the kernel gave "
	       "(config 0x135 on CPU 2 over 10 ticks)");
	is_u64(val(&s[2]), 1 * 1 * 10ull, "counter 1 of socket 0's CHA 1");
	down();
}

/* A counter summed over several boxes (one per CPU) is down while any
 * of them cannot be read or opened, never the sum of the others. */
static void test_fixture_partial(const struct pmu_slot *tsc)
{
	fk_t = 400;
	fk_fail_read_cpu = 2;
	ok(tick() < 0, "CPU 2's group read fails");
	is_u64(val(tsc), ~0ull, "the socket's TSC sum is down (CPU 3 read "
	       "fine: a partial sum is not a value)");
	fk_fail_read_cpu = -1;
	fk_t = 500;
	tick();
	is_u64(val(tsc), (3 + 4) * 400ull, "back at the next tick, with "
	       "nothing lost");
	fk_lost_cpu = 2;
	fk_lost = 100;
	fk_t = 600;
	tick();
	is_u64(val(tsc), ~0ull, "CPU 2's group did not run at all this "
	       "interval: the sum is down, not CPU 3's part of it");
	fk_t = 700;
	tick();
	is_u64(val(tsc), 7 * 400 + 4 * 100 + 7 * 100ull, "then counts on; "
	       "CPU 2's unscheduled interval is lost, not guessed");
	fk_lost_cpu = -1;
	/* rebuild every group: CPU 3 refuses the new one */
	pmu_release(&W.pmu);
	fk_refuse_cpu = 3;
	pmu_program(&W.pmu, NULL, 0, false);
	tick();
	ok(pmu_read(&W.pmu, tsc, &(uint64_t){ 0 }) < 0,
	   "after release, CPU 3 refuses the group: the first read fails");
	fk_t = 600;
	tick();
	is_u64(val(tsc), ~0ull, "and the sum stays down while CPU 3 has no "
	       "group (CPU 2's is read)");
}

/* The bench's msr platform on a tree whose msr PMU has no cpumask (as
 * the kernel's): every online CPU of a socket is a box, summed. */
static void test_fixture_no_cpumask(void)
{
	char root[PATH_MAX];
	struct pmu_slot tsc, aperf;
	struct pmu_perf_stats st;

	snprintf(root, sizeof(root), "%s/fx_msr", tmpdir);
	fx_cpus(root);
	fx_pmu(root, "msr", "type", "9\n");
	fx_pmu(root, "msr", "format/event", "config:0-63\n");
	fx_pmu(root, "msr", "events/tsc", "event=0x00\n");
	fx_pmu(root, "msr", "events/aperf", "event=0x01\n");
	fx_up(&plat_msr_bench, root);
	is_str(pmu_perf_missing(W.pmu.perf), "", "msr: nothing missing");
	is_int(W.t.sock[0].ninst[0] + W.t.sock[1].ninst[0], 2,
	       "one msr instance per socket");
	slot("MSR_TSC", 1, 0, 0, &tsc);
	slot("MSR_APERF", 1, 0, 0, &aperf);
	pmu_program(&W.pmu, NULL, 0, false);
	tick();
	fk_t = 100;
	is_int(val(&tsc), 0, "first read opens the free-running groups");
	ok(fk_count(9, 2) == 1 && fk_count(9, 3) == 1,
	   "msr/tsc/ opened on each online CPU of socket 1 (2, 3)");
	is_int(fk_count(9, 4), 0, "not on the offline CPU 4");
	is_int(fk_count(9, 0) + fk_count(9, 1), 0, "nor on socket 0's");
	fk_t = 200;
	tick();
	/* tsc counts 1 a tick times CPU + 1: CPUs 2 and 3 give 3 + 4 */
	is_u64(val(&tsc), (3 + 4) * 100ull, "TSC: the sum over the socket's "
	       "CPUs since its group opened");
	is_u64(val(&aperf), 0, "APERF's first read (tick 200): 0");
	pmu_perf_stats(W.pmu.perf, &st);
	is_int(st.groups, 2, "one group per CPU, both counters in it");
	fk_t = 300;
	tick();
	is_u64(val(&aperf), 2 * (3 + 4) * 100ull, "APERF (event 1): 2 a "
	       "tick per CPU + 1 over 100 ticks");
	is_u64(val(&tsc), (3 + 4) * 200ull, "TSC lost nothing when APERF "
	       "joined its groups");
	test_fixture_partial(&tsc);
	down();
}

/* Runs one trial of v (PP_VISIT_TRIAL ticks each way, each tick costing
 * here_ns or visit_ns); true if every tick was the expected way. */
static bool visit_trial(struct pp_visit *v, uint64_t here_ns,
			uint64_t visit_ns)
{
	bool good = true;

	for (unsigned i = 0; i < 2 * PP_VISIT_TRIAL; i++) {
		enum pp_how want = i < PP_VISIT_TRIAL ? PP_FROM_HERE : PP_VISIT;
		enum pp_how how = pmu_perf_visit_next(v);

		good = good && how == want && pmu_perf_visit_measuring(v);
		pmu_perf_visit_cost(v, how, how == PP_VISIT ? visit_ns
							  : here_ns);
	}
	return good;
}

/* The way kept for PP_VISIT_RUN ticks: it, or -1 if it changed or a tick
 * was timed. */
static int visit_kept(struct pp_visit *v)
{
	enum pp_how first = pmu_perf_visit_next(v);

	for (unsigned i = 1; i < PP_VISIT_RUN; i++)
		if (pmu_perf_visit_next(v) != first ||
		    pmu_perf_visit_measuring(v))
			return -1;
	return (int)first;
}

/* Reading other CPUs' groups: the thread keeps whichever way cost it
 * less CPU time in the last trial, and tries both again after a run. */
static void test_visit(void)
{
	struct pp_visit v = { 0 };

	ok(visit_trial(&v, 20000, 45000), "visit: a trial times reading from "
	   "here, then visiting, %u ticks each", PP_VISIT_TRIAL);
	ok(visit_kept(&v) == PP_FROM_HERE, "visit: IPI reads cheaper (20 us "
	   "against 45 us a tick): read from here for %u ticks",
	   PP_VISIT_RUN);
	ok(visit_trial(&v, 150000, 30000), "visit: then a new trial");
	ok(visit_kept(&v) == PP_VISIT, "visit: IPIs dearer (150 us against "
	   "30 us, a sleeping vCPU): visit each CPU");
	ok(visit_trial(&v, 5000, 5000) && visit_kept(&v) == PP_FROM_HERE,
	   "visit: a tie makes no moves");
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	log_init("test_pmu_perf", LOG_LVL_ERR);
	test_discover_skx();
	test_discover_zen4();
	test_missing_unit();
	test_encode_hsx();
	test_encode_terms();
	test_reads_per_tick();
	test_freerun();
	test_wrap_bound();
	test_rebuild();
	test_shared_counter();
	test_contention();
	test_own_window();
	test_faults();
	test_missing_box_zero();
	test_reachable();
	test_fixture_discovery();
	test_fixture_encoding();
	test_fixture_no_cpumask();
	test_visit();
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
	}
	return tap_done();
}
