/*
 * plat_icx.c - Xeon Scalable Ice Lake-SP ("icx"), reached through the
 * perf backend only (see plat_skx.c): arch/x86/events/intel/
 * uncore_snbep.c, "ICX uncore support"; catalog events_icx.c from Intel's
 * ICX perfmon data.  Beside the programmable IMC channels the kernel has
 * free-running DRAM byte counters per memory controller
 * (uncore_imc_free_running_N), which the DRAM families prefer.
 * doc/hardware-notes.md, "Xeon Scalable (skx, icx, spr)".
 */
#include "config.h"

#include "plat/plat.h"
#include "plat/plat_sim.h"
#include "plat/plat_xsp.h"
#include "plat/events_icx.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define END XSP_END_FACT
#define SRC "arch/x86/events/intel/uncore_snbep.c: "

/* skx_uncore_format_group (iMC, M3UPI) and ivbep_uncore_format_group
 * (IRP, M2PCIe): the same five fields */
static const struct perf_fact icx_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	END,
};

/* snr_uncore_cha_formats_attr (icx_uncore_chabox): umask_ext2 */
static const struct perf_fact icx_cha_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15,32-57", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "tid_en", "config:19", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	{ "filter_tid", "config1:0-9", NULL, NULL },
	END,
};

/* snr_uncore_imc_events, which icx_uncore_imc uses: the CAS encodings
 * 0x04/0x0f and 0x04/0x30 (Intel's ICX data agrees) */
static const struct perf_fact icx_imc_events[] = {
	{ "clockticks", "event=0x00,umask=0x00", NULL, NULL },
	{ "cas_count_read", "event=0x04,umask=0x0f", XSP_MIB, "MiB" },
	{ "cas_count_write", "event=0x04,umask=0x30", XSP_MIB, "MiB" },
	END,
};

/* skx_uncore_iio_freerunning_format_group */
static const struct perf_fact icx_free_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	END,
};
/* icx_uncore_imc_freerunning_events */
static const struct perf_fact icx_free_events[] = {
	{ "dclk", "event=0xff,umask=0x10", NULL, NULL },
	{ "read", "event=0xff,umask=0x20", XSP_MIB, "MiB" },
	{ "write", "event=0xff,umask=0x21", XSP_MIB, "MiB" },
	{ "ddrt_read", "event=0xff,umask=0x30", XSP_MIB, "MiB" },
	{ "ddrt_write", "event=0xff,umask=0x31", XSP_MIB, "MiB" },
	END,
};

/* icx_upi_uncore_formats_attr: umask_ext4 */
static const struct perf_fact icx_upi_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15,32-55", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	END,
};

/* snr_m2m_uncore_formats_attr (icx_uncore_m2m): umask_ext3 */
static const struct perf_fact icx_m2m_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15,32-39", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	END,
};

/* snr_uncore_iio_formats_attr (icx_uncore_iio) */
static const struct perf_fact icx_iio_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-35", NULL, NULL },
	{ "ch_mask", "config:36-47", NULL, NULL },
	{ "fc_mask", "config:48-50", NULL, NULL },
	END,
};

/* skx_uncore_pcu_formats_attr (skx_uncore_pcu, which icx uses) */
static const struct perf_fact icx_pcu_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	{ "occ_invert", "config:30", NULL, NULL },
	{ "occ_edge_det", "config:31", NULL, NULL },
	{ "filter_band0", "config1:0-7", NULL, NULL },
	{ "filter_band1", "config1:8-15", NULL, NULL },
	{ "filter_band2", "config1:16-23", NULL, NULL },
	{ "filter_band3", "config1:24-31", NULL, NULL },
	END,
};

/* ivbep_uncore_ubox_formats_attr (skx_uncore_ubox, which icx uses) */
static const struct perf_fact icx_ubox_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-28", NULL, NULL },
	END,
};

static const struct perf_unit icx_kpmu_cha = {
	.pmu = "uncore_cha_%u", .source = SRC "icx_uncore_chabox",
	.format = icx_cha_fmt,
};
static const struct perf_unit icx_kpmu_imc = {
	.pmu = "uncore_imc_%u", .source = SRC "icx_uncore_imc",
	.format = icx_fmt, .events = icx_imc_events,
};
static const struct perf_unit icx_kpmu_imc_fixed = {
	.pmu = "uncore_imc_%u", .source = SRC "icx_uncore_imc .fixed_ctr",
	.format = icx_fmt, .events = icx_imc_events, .fixed = "event=0xff",
};
static const struct perf_unit icx_kpmu_imc_free = {
	.pmu = "uncore_imc_free_running_%u",
	.source = SRC "icx_uncore_imc_free_running",
	.format = icx_free_fmt, .events = icx_free_events,
};
static const struct perf_unit icx_kpmu_upi = {
	.pmu = "uncore_upi_%u", .source = SRC "icx_uncore_upi",
	.format = icx_upi_fmt,
};
static const struct perf_unit icx_kpmu_m2m = {
	.pmu = "uncore_m2m_%u", .source = SRC "icx_uncore_m2m",
	.format = icx_m2m_fmt,
};
static const struct perf_unit icx_kpmu_iio = {
	.pmu = "uncore_iio_%u", .source = SRC "icx_uncore_iio",
	.format = icx_iio_fmt,
};
static const struct perf_unit icx_kpmu_irp = {
	.pmu = "uncore_irp_%u", .source = SRC "icx_uncore_irp",
	.format = icx_fmt,
};
static const struct perf_unit icx_kpmu_m2pcie = {
	.pmu = "uncore_m2pcie_%u", .source = SRC "icx_uncore_m2pcie",
	.format = icx_fmt,
};
static const struct perf_unit icx_kpmu_m3upi = {
	.pmu = "uncore_m3upi_%u", .source = SRC "icx_uncore_m3upi",
	.format = icx_fmt,
};
static const struct perf_unit icx_kpmu_pcu = {
	.pmu = "uncore_pcu", .source = SRC "skx_uncore_pcu",
	.format = icx_pcu_fmt,
};
static const struct perf_unit icx_kpmu_ubox_fixed = {
	.pmu = "uncore_ubox", .source = SRC "skx_uncore_ubox .fixed_ctr",
	.format = icx_ubox_fmt, .fixed = "event=0xff",
};

/* icx_uncore_imc_freerunning: 48-bit counters; 64 bytes per count.
 * Bound: 1e10 lines/s per controller, far above DDR4-3200's 25.6 GB/s
 * per channel. */
static const struct freerun_ctr icx_imc_free_ctrs[] = {
	{ "UNC_M_FREE_RUNNING.DCLK", 0, 48, 8,
	  "Free-running DRAM clock cycles of the memory controller", 5.0e9,
	  .perf_event = "dclk" },
	{ "UNC_M_FREE_RUNNING.DATA_READ", 0, 48, 8,
	  "Free-running 64-byte DRAM reads of the memory controller", 1.0e10,
	  .perf_event = "read" },
	{ "UNC_M_FREE_RUNNING.DATA_WRITE", 0, 48, 8,
	  "Free-running 64-byte DRAM writes of the memory controller",
	  1.0e10, .perf_event = "write" },
};

/* Boxes: CHAs as many as cores, at most 40 (icx_cha_msr_offsets[]); 12
 * IMC PMUs (icx_uncore_imc.num_boxes: 4 controllers x 3 channel slots,
 * ICX_NUMBER_IMC_CHN); 4 free-running (one per controller). */
static const struct unit_type icx_cha = {
	XSP_PROG("cha", "CHA: caching and home agent (LLC slice, snoop filter)",
		 SRC "icx_uncore_chabox", 40, 4, 34, icx_kpmu_cha),
};
static const struct unit_type icx_imc = {
	XSP_PROG("imc", "Integrated memory controller channel",
		 SRC "icx_uncore_imc (12 PMUs)", 12, 4, 8, icx_kpmu_imc),
};
static const struct unit_type icx_imc_fixed = {
	XSP_FIXED("imc_fixed", "iMC channel fixed counter: DRAM clock cycles",
		  SRC "icx_uncore_imc .fixed_ctr", 12, icx_kpmu_imc_fixed),
};
static const struct unit_type icx_imc_free = {
	.name = "imc_free",
	.desc = "Memory controller free-running DRAM counters",
	.source = SRC "icx_uncore_imc_free_running",
	.kind = UNIT_FREERUN, .max_inst = 4, .width = 48,
	.fmt = { .inv_bit = XSP_NONE, .edge_bit = XSP_NONE,
		 .en_bit = XSP_NONE, .ovf_en_bit = XSP_NONE,
		 .rst_bit = XSP_NONE },
	.global_ovf_bit = XSP_NONE,
	.freerun = icx_imc_free_ctrs, .nfreerun = ARRAY_SIZE(icx_imc_free_ctrs),
	.perf = &icx_kpmu_imc_free,
};
static const struct unit_type icx_upi = {
	XSP_PROG("upi", "UPI link layer, per link", SRC "icx_uncore_upi", 3,
		 4, 32, icx_kpmu_upi),
};
static const struct unit_type icx_m2m = {
	XSP_PROG("m2m", "M2M: mesh to memory", SRC "icx_uncore_m2m", 4, 4, 16,
		 icx_kpmu_m2m),
};
static const struct unit_type icx_iio = {
	XSP_PROG("iio", "IIO: integrated I/O stack", SRC "icx_uncore_iio", 6,
		 4, 8, icx_kpmu_iio),
};
static const struct unit_type icx_irp = {
	XSP_PROG("irp", "IRP: I/O coherency", SRC "icx_uncore_irp", 6, 2, 8,
		 icx_kpmu_irp),
};
static const struct unit_type icx_m2pcie = {
	XSP_PROG("m2pcie", "M2PCIe: mesh to PCIe", SRC "icx_uncore_m2pcie", 6,
		 4, 8, icx_kpmu_m2pcie),
};
static const struct unit_type icx_m3upi = {
	XSP_PROG("m3upi", "M3UPI: mesh to UPI", SRC "icx_uncore_m3upi", 3, 4,
		 8, icx_kpmu_m3upi),
};
static const struct unit_type icx_pcu = {
	XSP_PROG("pcu", "PCU: power control unit", SRC "skx_uncore_pcu", 1, 4,
		 8, icx_kpmu_pcu),
};
static const struct unit_type icx_ubox_fixed = {
	XSP_FIXED("ubox_fixed", "UBox fixed counter: uncore clock cycles",
		  SRC "skx_uncore_ubox .fixed_ctr", 1, icx_kpmu_ubox_fixed),
};

static const struct unit_type *const icx_units[] = {
	&icx_cha, &icx_imc, &icx_imc_fixed, &icx_imc_free, &icx_upi,
	&icx_m2m, &icx_iio, &icx_irp, &icx_m2pcie, &icx_m3upi, &icx_pcu,
	&icx_ubox_fixed,
	&xsp_icx_iio_free,
	NULL,
};

/* Intel's mapfile.csv: GenuineIntel-6-6A and -6C use the ICX data. */
static const struct cpu_match icx_cpus[] = {
	{ 6, 0x6A, 0, 0 },
	{ 6, 0x6C, 0, 0 },
	{ 0, 0, 0, 0 },
};

/* memory read latency, "all" (derived.h DS_LAT_XSP): counter 0 of every
 * CHA and one more; [baseline] memory_latency = no leaves them out */
static const char *const icx_baseline_latency[] = {
	"UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD", "UNC_CHA_TOR_INSERTS.IA_MISS_DRD",
	NULL
};

static const char *const icx_baseline[] = {
	"UNC_CHA_TOR_INSERTS.IA", "UNC_CHA_TOR_INSERTS.IA_MISS",
	"UNC_M_CAS_COUNT.RD", "UNC_M_CAS_COUNT.WR",
	"UNC_M_FREE_RUNNING.DATA_READ", "UNC_M_FREE_RUNNING.DATA_WRITE",
	"UNC_CHA_CLOCKTICKS", "UNC_UPI_TxL_FLITS.ALL_DATA",
	XSP_IIO_PORTS8("IN"),
	NULL,
};

const struct platform plat_icx = {
	.id = "icx",
	.name = "Intel Xeon Scalable 3rd gen (Ice Lake-SP)",
	.manual = "Intel perfmon ICX V1.30; Linux "
		  "arch/x86/events/intel/uncore_snbep.c",
	.cpus = icx_cpus,
	.units = icx_units,
	.events = icx_events,
	.nevents = ICX_NEVENTS,
	.ops = &plat_perf_only_ops,
	.derived = &derived_icx,
	.baseline = icx_baseline,
	.baseline_latency = icx_baseline_latency,
	.sim = &plat_icx_sim,
	.backends = PLAT_BE_PERF,
};
