/*
 * plat_spr.c - Xeon Scalable Sapphire Rapids and Emerald Rapids ("spr"),
 * reached through the perf backend only (see plat_skx.c).  The kernel
 * builds these PMUs from the uncore discovery tables the CPU publishes
 * (arch/x86/events/intel/uncore_discovery.c), naming each type after
 * spr_uncores[] in uncore_snbep.c (cha, iio, irp, m2pcie, pcu, imc, m2m,
 * mdf, cxlcm, cxldp, hbm) plus the predefined upi and m3upi, and each box
 * "uncore_<type>_<box id from the table>" (uncore.c uncore_get_pmu_name());
 * a type without a name would be "uncore_type_<id>_<box>".  Counters per
 * box and their width come from the table; Intel's data lists counters
 * 0-3 (IRP 0-1, CXLCM 0-7).  Catalog events_spr.c from Intel's SPR and
 * EMR perfmon data (and the CXL events of their experimental files).  The kernel's free-running IMC PMU on this part counts
 * DCLK and queue cycles only (spr_uncore_imc_freerunning_events): DRAM
 * bytes come from the CAS counts.  doc/hardware-notes.md, "Xeon Scalable
 * (skx, icx, spr)".
 */
#include "config.h"

#include "plat/plat.h"
#include "plat/plat_sim.h"
#include "plat/plat_xsp.h"
#include "plat/events_spr.h"

#define END XSP_END_FACT
#define SRC "arch/x86/events/intel/uncore_snbep.c: "

/* spr_uncore_raw_formats_attr: umask_ext4 (IRP, M2PCIe, iMC, M2M, UPI,
 * M3UPI, MDF, CXL, HBM) */
static const struct perf_fact spr_raw_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15,32-55", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	END,
};

/* spr_uncore_cha_formats_attr: umask_ext5, tid_en at bit 16 */
static const struct perf_fact spr_cha_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15,32-63", NULL, NULL },
	{ "tid_en", "config:16", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	{ "filter_tid", "config1:0-9", NULL, NULL },
	END,
};

/* snr_uncore_iio_formats_attr (spr_uncore_iio) */
static const struct perf_fact spr_iio_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-35", NULL, NULL },
	{ "ch_mask", "config:36-47", NULL, NULL },
	{ "fc_mask", "config:48-50", NULL, NULL },
	END,
};

/* spr_uncore_pcu sets no format group: the discovery code's generic one
 * (uncore_discovery.c generic_uncore_formats_attr) */
static const struct perf_fact spr_generic_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	END,
};

/* spr_uncore_imc_events: CAS 0x05/0xcf and 0x05/0xf0 (Intel's SPR and
 * EMR data agree), clockticks 0x01/0x00 */
static const struct perf_fact spr_imc_events[] = {
	{ "clockticks", "event=0x01,umask=0x00", NULL, NULL },
	{ "cas_count_read", "event=0x05,umask=0xcf", XSP_MIB, "MiB" },
	{ "cas_count_write", "event=0x05,umask=0xf0", XSP_MIB, "MiB" },
	END,
};

#define SPR_KPMU(var, name, fmt, what)                                      \
	static const struct perf_unit var = {                              \
		.pmu = name, .format = fmt,                                \
		.source = SRC what "; uncore_discovery.c" }
SPR_KPMU(spr_kpmu_cha, "uncore_cha_%u", spr_cha_fmt, "spr_uncore_chabox");
SPR_KPMU(spr_kpmu_iio, "uncore_iio_%u", spr_iio_fmt, "spr_uncore_iio");
SPR_KPMU(spr_kpmu_irp, "uncore_irp_%u", spr_raw_fmt, "spr_uncore_irp");
SPR_KPMU(spr_kpmu_m2pcie, "uncore_m2pcie_%u", spr_raw_fmt,
	 "spr_uncore_m2pcie");
SPR_KPMU(spr_kpmu_pcu, "uncore_pcu", spr_generic_fmt, "spr_uncore_pcu");
SPR_KPMU(spr_kpmu_m2m, "uncore_m2m_%u", spr_raw_fmt, "spr_uncore_m2m");
SPR_KPMU(spr_kpmu_upi, "uncore_upi_%u", spr_raw_fmt, "spr_uncore_upi");
SPR_KPMU(spr_kpmu_m3upi, "uncore_m3upi_%u", spr_raw_fmt,
	 "spr_uncore_m3upi");
/*
 * CXLCM and CXLDP: named and given their formats by commit f8a86a9bb5f7
 * ("perf/x86/intel/uncore: Support HBM and CXL PMON counters", June 2024,
 * tip perf/core: Linux 6.11, inferred from the merge; the NEXT-PLATFORMS
 * facts sheet, 4.1).  Before it the discovery code registers them
 * as uncore_type_12_N / uncore_type_13_N with the generic format, which
 * uncored does not program by guess: no unit there, absent with the
 * reason.  spr_uncore_cxlcm_constraints: events 0x02 and 0x05 on
 * counters 0-3, 0x40-0x43, 0x4b, 0x52 on 4-7 (Intel's Counter lists say
 * the same, so the catalog's ctr_mask carries it).
 */
#define SPR_K_CXL "6.11"
static const struct perf_unit spr_kpmu_cxlcm = {
	.pmu = "uncore_cxlcm_%u", .format = spr_raw_fmt, .since = SPR_K_CXL,
	.source = SRC "spr_uncore_cxlcm, spr_uncore_cxlcm_constraints "
		  "(commit f8a86a9bb5f7); uncore_discovery.c",
};
static const struct perf_unit spr_kpmu_cxldp = {
	.pmu = "uncore_cxldp_%u", .format = spr_raw_fmt, .since = SPR_K_CXL,
	.source = SRC "spr_uncore_cxldp (commit f8a86a9bb5f7); "
		  "uncore_discovery.c",
};
static const struct perf_unit spr_kpmu_imc = {
	.pmu = "uncore_imc_%u", .format = spr_raw_fmt,
	.events = spr_imc_events,
	.source = SRC "spr_uncore_imc, spr_uncore_imc_events; "
		  "uncore_discovery.c",
};

/*
 * Boxes per socket, as bounds (the discovery table has the count): CHAs
 * as many as cores, up to 60 on SPR XCC and 64 on EMR;
 * 8 DDR5 channels (IMC boxes; the kernel makes one free-running PMU per
 * two: spr_uncore_mmio_init()); 4 UPI and M3UPI links
 * (SPR_UNCORE_UPI_NUM_BOXES); M2M 4; IIO, IRP, M2PCIe one per I/O stack.
 */
static const struct unit_type spr_cha = {
	XSP_PROG("cha", "CHA: caching and home agent (LLC slice, snoop filter)",
		 SRC "spr_uncore_chabox", 64, 4, 40, spr_kpmu_cha),
};
static const struct unit_type spr_imc = {
	XSP_PROG("imc", "Integrated memory controller channel",
		 SRC "spr_uncore_imc", 8, 4, 32, spr_kpmu_imc),
};
static const struct unit_type spr_upi = {
	XSP_PROG("upi", "UPI link layer, per link", SRC "spr_uncore_upi", 4,
		 4, 32, spr_kpmu_upi),
};
static const struct unit_type spr_m2m = {
	XSP_PROG("m2m", "M2M: mesh to memory", SRC "spr_uncore_m2m", 4, 4, 32,
		 spr_kpmu_m2m),
};
static const struct unit_type spr_iio = {
	XSP_PROG("iio", "IIO: integrated I/O stack", SRC "spr_uncore_iio", 16,
		 4, 8, spr_kpmu_iio),
};
static const struct unit_type spr_irp = {
	XSP_PROG("irp", "IRP: I/O coherency", SRC "spr_uncore_irp", 16, 2, 32,
		 spr_kpmu_irp),
};
static const struct unit_type spr_m2pcie = {
	XSP_PROG("m2pcie", "M2PCIe: mesh to PCIe", SRC "spr_uncore_m2pcie", 16,
		 4, 32, spr_kpmu_m2pcie),
};
static const struct unit_type spr_m3upi = {
	XSP_PROG("m3upi", "M3UPI: mesh to UPI", SRC "spr_uncore_m3upi", 4, 4,
		 32, spr_kpmu_m3upi),
};
static const struct unit_type spr_pcu = {
	XSP_PROG("pcu", "PCU: power control unit", SRC "spr_uncore_pcu", 1, 4,
		 8, spr_kpmu_pcu),
};
static const struct unit_type spr_cxlcm = {
	XSP_PROG("cxlcm", "CXL cache/memory unit, per CXL port (Linux 6.11+)",
		 SRC "spr_uncore_cxlcm", 4, 8, 32, spr_kpmu_cxlcm),
};
static const struct unit_type spr_cxldp = {
	XSP_PROG("cxldp", "CXL data path unit, per CXL port (Linux 6.11+)",
		 SRC "spr_uncore_cxldp", 4, 4, 32, spr_kpmu_cxldp),
};

static const struct unit_type *const spr_units[] = {
	&spr_cha, &spr_imc, &spr_upi, &spr_m2m, &spr_iio, &spr_irp,
	&spr_m2pcie, &spr_m3upi, &spr_pcu, &spr_cxlcm, &spr_cxldp,
	&xsp_spr_iio_free,
	NULL,
};

/* Intel's mapfile.csv: GenuineIntel-6-8F SPR, -CF EMR. */
static const struct cpu_match spr_cpus[] = {
	{ 6, 0x8F, 0, 0 },
	{ 6, 0xCF, 0, 0 },
	{ 0, 0, 0, 0 },
};

/* memory read latency, "all" (derived.h DS_LAT_XSP): counter 0 of every
 * CHA and one more; [baseline] memory_latency = no leaves them out */
static const char *const spr_baseline_latency[] = {
	"UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD", "UNC_CHA_TOR_INSERTS.IA_MISS_DRD",
	NULL
};

/*
 * CXL (doc/hardware-notes.md, "CXL memory bandwidth"): writes per port
 * from each CXLCM's TxC MEM_DATA packing-buffer inserts (Intel's SPR/EMR
 * experimental files, 0x02/0x10, counters 0-3); reads per socket from
 * the one CHA counter the three CHA events above leave: the TOR inserts
 * of every core request that missed the LLC and targets CXL memory
 * (UNC_CHA_TOR_INSERTS.IA_MISS_CXL_ACC 0x35/0x01, UMaskExt 0x10C00182,
 * the same experimental files), which holds the 8 request types PCM sums
 * in one event.
 */
static const char *const spr_baseline[] = {
	"UNC_CHA_TOR_INSERTS.IA", "UNC_CHA_TOR_INSERTS.IA_MISS",
	"UNC_M_CAS_COUNT.RD", "UNC_M_CAS_COUNT.WR", "UNC_CHA_CLOCKTICKS",
	"UNC_UPI_TxL_FLITS.ALL_DATA",
	XSP_IIO_PORTS8("IN"),
	"UNC_CXLCM_TxC_PACK_BUF_INSERTS.MEM_DATA",
	"UNC_CHA_TOR_INSERTS.IA_MISS_CXL_ACC",
	NULL,
};

const struct platform plat_spr = {
	.id = "spr",
	.name = "Intel Xeon Scalable 4th/5th gen (Sapphire Rapids, Emerald "
		"Rapids)",
	.manual = "Intel perfmon SPR V1.39 / EMR V1.24; Linux "
		  "arch/x86/events/intel/uncore_snbep.c, uncore_discovery.c",
	.cpus = spr_cpus,
	.units = spr_units,
	.events = spr_events,
	.nevents = SPR_NEVENTS,
	.ops = &plat_perf_only_ops,
	.derived = &derived_spr,
	.baseline = spr_baseline,
	.baseline_latency = spr_baseline_latency,
	.sim = &plat_spr_sim,
	.backends = PLAT_BE_PERF,
};
