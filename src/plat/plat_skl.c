/*
 * plat_skl.c - the 6th-generation Core client uncore ("skl") as data.
 *
 * Everything here comes from the 6th Generation Intel Core Processor
 * Family Uncore Performance Monitoring Reference Manual (334060-001,
 * April 2016); each table cites the manual's table.  Where the manual
 * contradicts itself the choice is recorded in doc/hardware-notes.md and
 * referred to below as "notes: <heading>".
 *
 * The units are: up to four CBo slices (two programmable counters each),
 * the ARB (two programmable counters), the fixed UCLK counter, and the
 * IMC's five free-running DRAM counters behind MCHBAR.  Only topology
 * discovery and the global enable are code (skl_ops).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plat/plat.h"
#include "plat/plat_skl.h"
#include "plat/plat_sim.h"
#include "plat/kpmu.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NONE 0xff

/*
 * Upper bounds of event rates, for the wrap check (notes: wrap-time
 * bounds).  The manual states no maximum increments for these events, so
 * the bounds are deliberately generous: a UCLK of at most 5 GHz, at most
 * 64 increments per cycle for a programmable counter (ARB occupancy can
 * add several per cycle), and 1e9 DRAM transfers/s per IMC counter (64
 * GB/s, well above dual-channel DDR4's peak).  The 32-bit IMC counters
 * then wrap no sooner than 4.29 s, which limits the interval to 2147 ms.
 */
#define SKL_MAX_UCLK_HZ 5.0e9
#define SKL_MAX_PROG_RATE (64 * SKL_MAX_UCLK_HZ)
#define SKL_MAX_IMC_RATE 1.0e9

/* ---- register layouts ------------------------------------------------ */

/* Table 2-2. MSR_UNC_PERF_GLOBAL_CTRL (0xE01) */
static const struct reg_field skl_global_ctl_fields[] = {
	{ "PMI_SEL_CORE0", 0, 0, ACC_RW },
	{ "PMI_SEL_CORE1", 1, 1, ACC_RW },
	{ "PMI_SEL_CORE2", 2, 2, ACC_RW },
	{ "PMI_SEL_CORE3", 3, 3, ACC_RW },
	{ "Reserved", 4, 28, ACC_RSV },
	{ "EN", 29, 29, ACC_RW },
	{ "WAKE_ON_PMI", 30, 30, ACC_RW },
	{ "FRZ_ON_PMI", 31, 31, ACC_RW },
	{ "Reserved", 32, 63, ACC_RSV },
};

static const struct reg_layout skl_global_ctl = {
	.name = "MSR_UNC_PERF_GLOBAL_CTRL", .source = "Table 2-2",
	.bits = 64, .fields = skl_global_ctl_fields,
	.nfields = ARRAY_SIZE(skl_global_ctl_fields),
};

/*
 * Table 2-3. MSR_UNC_PERF_GLOBAL_STATUS (0xE02).  The table prints
 * CBO_CTR_OVF at bit 31 inside its own "Reserved 63:4" range, next to
 * "Reserved 2"; bit 3 is the only place consistent with both reserved
 * ranges (notes: GLOBAL_STATUS CBO_CTR_OVF).
 */
static const struct reg_field skl_global_status_fields[] = {
	{ "FIXED_CTR_OVF", 0, 0, ACC_RW1C },
	{ "ARB_CTR_OVF", 1, 1, ACC_RW1C },
	{ "Reserved", 2, 2, ACC_RSV },
	{ "CBO_CTR_OVF", 3, 3, ACC_RW1C },
	{ "Reserved", 4, 63, ACC_RSV },
};

static const struct reg_layout skl_global_status = {
	.name = "MSR_UNC_PERF_GLOBAL_STATUS", .source = "Table 2-3",
	.bits = 64, .fields = skl_global_status_fields,
	.nfields = ARRAY_SIZE(skl_global_status_fields),
};

/* Table 2-4. MSR_UNC_PERF_FIXED_CTRL (0x394), sheets 1 and 2 */
static const struct reg_field skl_fixed_ctl_fields[] = {
	{ "Reserved", 0, 19, ACC_RSV },
	{ "OVF_EN", 20, 20, ACC_RW },
	{ "Reserved", 21, 21, ACC_RSV },
	{ "CNT_EN", 22, 22, ACC_RW },
	{ "Reserved", 23, 63, ACC_RSV },
};

static const struct reg_layout skl_fixed_ctl = {
	.name = "MSR_UNC_PERF_FIXED_CTRL", .source = "Table 2-4",
	.bits = 64, .fields = skl_fixed_ctl_fields,
	.nfields = ARRAY_SIZE(skl_fixed_ctl_fields),
};

/* Table 2-5. MSR_UNC_PERF_FIXED_CTR (0x395): 48-bit UCLK counter */
static const struct reg_field skl_fixed_ctr_fields[] = {
	{ "CTR_VAL", 0, 47, ACC_RW },
	{ "Reserved", 48, 63, ACC_RSV },
};

static const struct reg_layout skl_fixed_ctr = {
	.name = "MSR_UNC_PERF_FIXED_CTR", .source = "Table 2-5",
	.bits = 64, .fields = skl_fixed_ctr_fields,
	.nfields = ARRAY_SIZE(skl_fixed_ctr_fields),
};

/* Table 2-6. MSR_UNC_CBO_CONFIG (0x396): read-only; the CBo count is
 * NO_CBO_BANKS minus one (section 2.4.1). */
static const struct reg_field skl_cbo_config_fields[] = {
	{ "NO_CBO_BANKS", 0, 3, ACC_RO },
	{ "Reserved", 4, 63, ACC_RSV },
};

static const struct reg_layout skl_cbo_config = {
	.name = "MSR_UNC_CBO_CONFIG", .source = "Table 2-6",
	.bits = 64, .fields = skl_cbo_config_fields,
	.nfields = ARRAY_SIZE(skl_cbo_config_fields),
};

/*
 * Table 2-7. MSR_UNC_CBO_0_PERFEVTSEL0 (printed "PERFEVTSELO", an OCR
 * letter O for the digit 0).  Section 2.4.2: every CBo and ARB event
 * select shares this definition.
 */
static const struct reg_field skl_evtsel_fields[] = {
	{ "EVT_SEL", 0, 7, ACC_RW },
	{ "UMASK", 8, 15, ACC_RW },
	{ "Reserved", 16, 17, ACC_RSV },
	{ "E", 18, 18, ACC_RW },
	{ "Reserved", 19, 19, ACC_RSV },
	{ "OVF_EN", 20, 20, ACC_RW },
	{ "Reserved", 21, 21, ACC_RSV },
	{ "EN", 22, 22, ACC_RW },
	{ "INV", 23, 23, ACC_RW },
	{ "THR", 24, 28, ACC_RW },
	{ "Reserved", 29, 63, ACC_RSV },
};

static const struct reg_layout skl_evtsel = {
	.name = "MSR_UNC_CBO_0_PERFEVTSEL0", .source = "Table 2-7",
	.bits = 64, .fields = skl_evtsel_fields,
	.nfields = ARRAY_SIZE(skl_evtsel_fields),
};

/* Table 2-8. MSR_UNC_CBO_0_PERFCTR0: 44-bit, shared by CBo and ARB
 * (section 2.4.3). */
static const struct reg_field skl_perfctr_fields[] = {
	{ "CTR_VAL", 0, 43, ACC_RW },
	{ "Reserved", 44, 63, ACC_RSV },
};

static const struct reg_layout skl_perfctr = {
	.name = "MSR_UNC_CBO_0_PERFCTR0", .source = "Table 2-8",
	.bits = 64, .fields = skl_perfctr_fields,
	.nfields = ARRAY_SIZE(skl_perfctr_fields),
};

/* Event-select field positions, Table 2-7. */
#define SKL_EVSEL_FMT { \
	.ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = 8, \
	.thresh_lo = 24, .thresh_w = 5, .inv_bit = 23, .edge_bit = 18, \
	.en_bit = 22, .ovf_en_bit = 20, .rst_bit = NONE }

/* ---- unit types ------------------------------------------------------ */

/*
 * CBo slices, Table 2-1: MSR_UNC_CBO_n_PERFEVTSEL0/1 at 0x700 + 0x10n
 * (+0, +1), MSR_UNC_CBO_n_PERFCTR0/1 at +6, +7.  Table 1-2: 2 counters,
 * 1 to 4 instances, 44 bits (notes: CBo counters per box).
 *
 * The later client parts on this uncore have up to 8 slices (8-core
 * Coffee Lake); the eighth does not follow the stride: its event selects
 * are at 0xF70/0xF71 and its counters at 0xF76/0xF77 (Linux
 * arch/x86/events/intel/uncore.h, CFL_UNC_CBO_7_PERFEVTSEL0 /
 * CFL_UNC_CBO_7_PER_CTR0; notes: later client parts).
 */
static const uint32_t skl_cbo_base[] = {
	0x700, 0x710, 0x720, 0x730, 0x740, 0x750, 0x760, 0xF70,
};

static const struct unit_type skl_cbo = {
	.name = "cbo",
	.desc = "C-Box: LLC slice and coherency engine",
	.max_rate = SKL_MAX_PROG_RATE,
	.max_clk_hz = SKL_MAX_UCLK_HZ,
	.source = "Table 2-1, Table 1-2",
	.kind = UNIT_PROG,
	.space = HW_MSR,
	.max_inst = ARRAY_SIZE(skl_cbo_base),
	.inst_base = skl_cbo_base,
	.base = 0x700, .inst_stride = 0x10,
	.nctr = 2, .width = 44,
	.ctl_off = 0x0, .ctl_stride = 1,
	.ctr_off = 0x6, .ctr_stride = 1,
	.ctl_layout = &skl_evtsel,
	.ctr_layout = &skl_perfctr,
	.fmt = SKL_EVSEL_FMT,
	.global_ovf_bit = 3,	/* Table 2-3 CBO_CTR_OVF, see above */
	.perf = &skl_kpmu_cbo,
};

/*
 * ARB, Table 2-1: MSR_UNC_ARB_PERFCTR0/1 at 0x3B0/0x3B1,
 * MSR_UNC_ARB_PERFEVTSEL0/1 at 0x3B2/0x3B3.  Table 1-2: 2 counters,
 * 1 instance, 44 bits.
 */
static const struct unit_type skl_arb = {
	.name = "arb",
	.desc = "ARB: arbitration unit between the cores, graphics and the memory controller",
	.max_rate = SKL_MAX_PROG_RATE,
	.max_clk_hz = SKL_MAX_UCLK_HZ,
	.source = "Table 2-1, Table 1-2",
	.kind = UNIT_PROG,
	.space = HW_MSR,
	.max_inst = 1,
	.base = 0x3B0, .inst_stride = 0,
	.nctr = 2, .width = 44,
	.ctl_off = 0x2, .ctl_stride = 1,
	.ctr_off = 0x0, .ctr_stride = 1,
	.ctl_layout = &skl_evtsel,
	.ctr_layout = &skl_perfctr,
	.fmt = SKL_EVSEL_FMT,
	.global_ovf_bit = 1,	/* Table 2-3 ARB_CTR_OVF */
	.perf = &skl_kpmu_arb,
};

/*
 * Fixed UCLK counter, Table 2-1: MSR_UNC_PERF_FIXED_CTRL 0x394,
 * MSR_UNC_PERF_FIXED_CTR 0x395; Table 2-4 (CNT_EN 22, OVF_EN 20),
 * Table 2-5 (48 bits).
 */
static const struct unit_type skl_fixed = {
	.name = "fixed",
	.desc = "Fixed counter: uncore clock (UCLK) cycles",
	.max_rate = SKL_MAX_UCLK_HZ,
	.source = "Table 2-1, Table 2-4, Table 2-5",
	.kind = UNIT_FIXED,
	.space = HW_MSR,
	.max_inst = 1,
	.base = 0x394, .inst_stride = 0,
	.nctr = 1, .width = 48,
	.ctl_off = 0x0, .ctl_stride = 0,
	.ctr_off = 0x1, .ctr_stride = 0,
	.ctl_layout = &skl_fixed_ctl,
	.ctr_layout = &skl_fixed_ctr,
	.fmt = { .ev_lo = 0, .ev_w = 0, .umask_lo = 0, .umask_w = 0,
		 .thresh_lo = 0, .thresh_w = 0, .inv_bit = NONE,
		 .edge_bit = NONE, .en_bit = 22, .ovf_en_bit = 20,
		 .rst_bit = NONE },
	.global_ovf_bit = 0,	/* Table 2-3 FIXED_CTR_OVF */
	.perf = &skl_kpmu_fixed,
};

/* Table 3-3. IMC free-running counters, offsets from MCHBAR, 32 bits. */
static const struct freerun_ctr skl_imc_ctrs[] = {
	{ "DRAM_GT_REQUESTS", 0x5040, 32, 4,
	  "DRAM read/write requests from the GT engine (sum of all channels)",
	  SKL_MAX_IMC_RATE,
	  .perf_event = "gt_requests" },
	{ "DRAM_IA_REQUESTS", 0x5044, 32, 4,
	  "DRAM read/write requests (demand and HW prefetch) from IA (sum of all channels)",
	  SKL_MAX_IMC_RATE,
	  .perf_event = "ia_requests" },
	{ "DRAM_IO_REQUESTS", 0x5048, 32, 4,
	  "DRAM read/write requests from all IO sources (sum of all channels)",
	  SKL_MAX_IMC_RATE,
	  .perf_event = "io_requests" },
	{ "DRAM_DATA_READS", 0x5050, 32, 4,
	  "Reads (RdCAS) issued to DRAM, 64 bytes each (sum of all channels)",
	  SKL_MAX_IMC_RATE,
	  .perf_event = "data_reads" },
	{ "DRAM_DATA_WRITES", 0x5054, 32, 4,
	  "Writes (WrCAS) issued to DRAM, 64 bytes each (sum of all channels)",
	  SKL_MAX_IMC_RATE,
	  .perf_event = "data_writes" },
};

/*
 * IMC, section 3.3 and Table 3-3: five free-running, always-running
 * 32-bit counters read by MMIO at MCHBAR + offset (Table 1-2: "IMC Fixed,
 * 5 counters, 1 instance, 32 bits").  The base is the socket's mmio_base.
 */
static const struct unit_type skl_imc = {
	.name = "imc",
	.desc = "Integrated memory controller: free-running DRAM request counters",
	.source = "Table 3-3, Table 1-2",
	.kind = UNIT_FREERUN,
	.space = HW_MMIO,
	.max_inst = 1,
	.base = 0, .inst_stride = 0,
	.nctr = 0, .width = 32,
	.fmt = { .inv_bit = NONE, .edge_bit = NONE, .en_bit = NONE,
		 .ovf_en_bit = NONE, .rst_bit = NONE },
	.global_ovf_bit = NONE,
	.freerun = skl_imc_ctrs,
	.nfreerun = ARRAY_SIZE(skl_imc_ctrs),
	.perf = &skl_kpmu_imc,
};

/* Order matters: topo_socket.ninst[] and struct wl_key.unit index it. */
static const struct unit_type *const skl_units[] = {
	&skl_cbo, &skl_arb, &skl_fixed, &skl_imc, NULL,
};

/* Read-only configuration registers.  The reset value of CBO_CONFIG is the
 * machine's (CBo count + 1); the simulator fills it from its topology. */
static const struct plat_reg skl_extra_regs[] = {
	{ .addr = SKL_MSR_CBO_CONFIG, .layout = &skl_cbo_config, .reset = 0 },
};

/* ---- ops ------------------------------------------------------------- */

/*
 * Host-bridge device IDs of the parts whose IMC counters sit behind
 * MCHBAR at 0x5040..0x5054: Linux arch/x86/events/intel/uncore_snb.c,
 * skl_uncore_pci_ids (PCI_DEVICE_ID_INTEL_*_IMC).  Amber Lake YD (0x590c)
 * and Whiskey Lake UQ (0x3ed0) share IDs with Kaby Lake Y and Coffee
 * Lake 4U.  Notes: later client parts.
 */
const uint16_t skl_host_bridges[] = {
	/* 6th gen (Skylake): U, Y, H dual, H quad, S dual, S quad, Xeon E3 v5 */
	0x1904, 0x190c, 0x1900, 0x1910, 0x190f, 0x191f, 0x1918,
	/* 7th gen (Kaby Lake): Y, U, U quad, S dual, S quad, H quad, S WS */
	0x590c, 0x5904, 0x5914, 0x590f, 0x591f, 0x5910, 0x5918,
	/* 8th/9th gen (Coffee Lake): 2U, 4U, 4H, 6H, S dual .. 8 cores
	 * desktop (D), workstation (W) and server (S) */
	0x3ecc, 0x3ed0, 0x3e10, 0x3ec4, 0x3e0f, 0x3e1f, 0x3ec2, 0x3e30,
	0x3e18, 0x3ec6, 0x3e31, 0x3e33, 0x3eca, 0x3e32,
	/* Amber Lake YQ; Whiskey Lake 4 UQ, UD */
	0x590d, 0x3e34, 0x3e35,
	/* 10th gen (Comet Lake): H1-H3, U1-U3, S1-S5 */
	0x9b44, 0x9b54, 0x9b64, 0x9b51, 0x9b61, 0x9b71,
	0x9b33, 0x9b43, 0x9b53, 0x9b63, 0x9b73,
	0,
};

bool skl_host_bridge_known(uint16_t device)
{
	for (const uint16_t *d = skl_host_bridges; *d; d++)
		if (*d == device)
			return true;
	return false;
}

/* Index of u in skl_units. */
static unsigned skl_unit_index(const struct unit_type *u)
{
	unsigned i = 0;

	while (skl_units[i] && skl_units[i] != u)
		i++;
	return i;
}

/*
 * The CBos: section 2.4.1, NO_CBO_BANKS (Table 2-6, bits 3:0) minus one.
 * The MSR map covers eight (skl_cbo_base, as the kernel's skl_uncore_cbox):
 * a part with more (Comet Lake S, 10 cores and LLC slices) gets the eight
 * served and the others present in the count but absent, and said so
 * (notes: later client parts).  A register that does not read as a
 * client uncore's refuses the platform.
 */
static int skl_cbos(struct hw *hw, struct topology *t, struct topo_socket *s)
{
	unsigned ci = skl_unit_index(&skl_cbo), n;
	struct hw_addr a = hw_msr(s->cpu, SKL_MSR_CBO_CONFIG);
	char cause[256];
	uint64_t v;
	int r;

	if ((r = hw_read(hw, &a, &v)) < 0) {
		/* hw_fail() overwrites the message we quote: copy it first. */
		snprintf(cause, sizeof(cause), "%s", hw_last_error());
		return hw_fail(-r, "cannot read MSR_UNC_CBO_CONFIG (msr 0x%x on cpu %"
			       PRIu32 "): %s", SKL_MSR_CBO_CONFIG, s->cpu, cause);
	}
	if ((v & 0xF) < 2)
		return hw_fail(ENODEV, "MSR_UNC_CBO_CONFIG (msr 0x%x) reads 0x%" PRIx64
			       ": NO_CBO_BANKS %" PRIu64 " minus one is no CBo "
			       "(manual 2.4.1, Table 1-2); not a 6th-gen Core uncore?",
			       SKL_MSR_CBO_CONFIG, v, v & 0xF);
	n = (unsigned)(v & 0xF) - 1;
	s->ninst[ci] = n;
	if (n <= skl_cbo.max_inst)
		return 0;
	for (unsigned i = skl_cbo.max_inst; i < n; i++)
		iset_add(&s->absent[ci], i);
	plat_note(t, "CBos %u-%u of %u (MSR_UNC_CBO_CONFIG) are not counted: no "
		  "source gives their MSRs (the kernel stops at %u), so every LLC "
		  "total covers %u of the %u slices", skl_cbo.max_inst, n - 1, n,
		  skl_cbo.max_inst, skl_cbo.max_inst, n);
	return 0;
}

/* Writes why the IMC is not counted; -1. */
static int no_imc(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int no_imc(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Where the IMC counters are (section 3.3: MCHBAR in PCI 0:0.0 offset
 * 48H; notes: MCHBAR mask), only on a host bridge whose window is known
 * to hold them (notes: later client parts).  0 and *base, or -1 with why.
 */
static int skl_mchbar(struct hw *hw, uint64_t *base, char *why, size_t len)
{
	struct hw_addr a = hw_pci(0, 0, 0, 0, 0, 4);
	uint64_t v;

	if (hw_read(hw, &a, &v) < 0)
		return no_imc(why, len, "the host bridge's ID cannot be read "
				"(pci 0000:00:00.0+0x0: %s)", hw_last_error());
	if ((v & 0xffff) != SKL_PCI_VENDOR_INTEL ||
	    !skl_host_bridge_known((uint16_t)(v >> 16)))
		return no_imc(why, len, "host bridge 0000:00:00.0 is %04" PRIx64
				":%04" PRIx64 ", not one of the 6th-10th gen Core "
				"host bridges whose IMC counters are known (list in "
				"doc/hardware-notes.md, \"Later client parts\")",
				v & 0xffff, (v >> 16) & 0xffff);
	a = hw_pci(0, 0, 0, 0, SKL_MCHBAR_PCI_OFF, 8);
	if (hw_read(hw, &a, &v) < 0)
		return no_imc(why, len, "MCHBAR cannot be read (pci "
				"0000:00:00.0+0x%x: %s)", SKL_MCHBAR_PCI_OFF,
				hw_last_error());
	if (!(v & SKL_MCHBAR_EN))
		return no_imc(why, len, "MCHBAR is disabled (pci 0000:00:00.0+"
				"0x%x reads 0x%" PRIx64 ", enable bit 0 clear: the "
				"firmware left the BAR off)", SKL_MCHBAR_PCI_OFF,
				v);
	*base = v & SKL_MCHBAR_MASK;
	if (!*base)
		return no_imc(why, len, "MCHBAR is enabled but its base (bits "
				"38:15 of pci 0000:00:00.0+0x%x = 0x%" PRIx64 ") "
				"is zero", SKL_MCHBAR_PCI_OFF, v);
	return 0;
}

/*
 * One socket, CPU 0: the CBos, the ARB and the clock need only MSRs and
 * are served whatever the host bridge; the IMC needs a known host bridge
 * with MCHBAR enabled, and is absent (said why, in t->note) otherwise.
 */
static int skl_discover(struct hw *hw, struct topology *t)
{
	struct topo_socket *s;
	unsigned mi = skl_unit_index(&skl_imc);
	char why[256];
	int r;

	memset(t, 0, sizeof(*t));
	t->plat = &plat_skl;
	t->nsockets = 1;
	s = &t->sock[0];
	for (unsigned i = 0; skl_units[i]; i++)
		s->ninst[i] = skl_units[i]->max_inst;
	if ((r = skl_cbos(hw, t, s)) < 0)
		return r;
	if (skl_mchbar(hw, &s->mmio_base, why, sizeof(why)) < 0) {
		s->mmio_base = 0;
		iset_add(&s->absent[mi], 0);
		plat_note(t, "the IMC's DRAM counters are not counted: %s", why);
	}
	return 0;
}

/* MSR_UNC_PERF_GLOBAL_CTRL EN (Table 2-2, bit 29), or all clear. */
static int skl_global_enable(struct hw *hw, const struct topology *t,
			     unsigned sock, bool on)
{
	struct hw_addr a;

	if (sock >= t->nsockets)
		return hw_fail(EINVAL, "global enable: no socket %u (have %u)",
			       sock, t->nsockets);
	a = hw_msr(t->sock[sock].cpu, plat_skl.global_ctl.addr);
	return hw_write(hw, &a, on ? plat_skl.global_enable : 0);
}

static const struct plat_ops skl_ops = {
	.discover = skl_discover,
	.global_enable = skl_global_enable,
	.check = plat_global_check,
};

/*
 * CPUID family 6 models on this uncore: the manual's 6th generation
 * (0x4E, 0x5E), and the 7th to 10th generation client parts that the
 * Linux kernel drives with its Skylake uncore support (uncore.c,
 * intel_uncore_match: KABYLAKE_L, KABYLAKE, COMETLAKE_L, COMETLAKE ->
 * skl_uncore_init; model numbers from asm/intel-family.h, where Amber,
 * Coffee and Whiskey Lake share 0x8E/0x9E by stepping).  Notes: later
 * client parts.
 */
static const struct cpu_match skl_cpus[] = {
	{ 6, 0x4E },	/* Skylake U/Y (SKYLAKE_L) */
	{ 6, 0x5E },	/* Skylake H/S (SKYLAKE) */
	{ 6, 0x8E },	/* Kaby, Amber, Coffee, Whiskey Lake U/Y (KABYLAKE_L) */
	{ 6, 0x9E },	/* Kaby Lake H/S, Coffee Lake H/S (KABYLAKE) */
	{ 6, 0xA5 },	/* Comet Lake H/S (COMETLAKE) */
	{ 6, 0xA6 },	/* Comet Lake U (COMETLAKE_L) */
	{ 0, 0 },
};

/* What the daemon counts when the config has no [baseline]: both CBo
 * counters, both ARB counters, the clock and every IMC counter. */
static const char *const skl_baseline[] = {
	"UNC_CBO_CACHE_LOOKUP.ANY_MESI", "UNC_CBO_CACHE_LOOKUP.ANY_I",
	"UNC_ARB_TRK_REQUESTS.ALL", "UNC_ARB_TRK_OCCUPANCY.ALL",
	"UNC_CLOCK.SOCKET",
	"DRAM_DATA_READS", "DRAM_DATA_WRITES", "DRAM_IA_REQUESTS",
	"DRAM_GT_REQUESTS", "DRAM_IO_REQUESTS",
	NULL,
};

const struct platform plat_skl = {
	.id = "skl",
	.name = "6th Generation Intel Core (Skylake client)",
	.manual = "6th Generation Intel Core Processor Family Uncore Performance "
		  "Monitoring Reference Manual, 334060-001, April 2016",
	.cpus = skl_cpus,
	.units = skl_units,
	/* Table 1-1 and Table 2-1: 0xE01 / 0xE02 (were 0x391 / 0x392). */
	.global_ctl = { .addr = 0xE01, .layout = &skl_global_ctl, .reset = 0 },
	.global_enable = 1ull << 29,	/* Table 2-2 EN */
	.global_status = { .addr = 0xE02, .layout = &skl_global_status,
			   .reset = 0 },
	.extra_regs = skl_extra_regs,
	.nextra_regs = ARRAY_SIZE(skl_extra_regs),
	.events = skl_events,
	.nevents = SKL_NEVENTS,
	.ops = &skl_ops,
	.derived = &derived_skl,
	.baseline = skl_baseline,
	.sim = &plat_skl_sim,
	.backends = PLAT_BE_DIRECT | PLAT_BE_PERF,
};
