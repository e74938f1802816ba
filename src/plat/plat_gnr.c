/*
 * plat_gnr.c - Xeon 6 ("gnr": Granite Rapids 06_AD/06_AE, Sierra Forest
 * 06_AF), reached through the perf backend only (see plat_spr.c).  The
 * kernel drives all of them with one table (arch/x86/events/intel/
 * uncore.c intel_uncore_match[] -> gnr_uncore_init, .use_discovery):
 * the boxes come from the uncore discovery tables the CPU publishes
 * (uncore_discovery.c), each type named after gnr_uncores[] in
 * uncore_snbep.c and each box "uncore_<type>_<box id from the table>"
 * (uncore.c uncore_get_pmu_name()), so box numbers may have gaps: the
 * perf backend places what sysfs lists (pmu_perf.c find_unit()) and names
 * a gap absent, it counts no range.  A type with one box a die (pcu,
 * ubox) is "uncore_<type>" (uncore_get_pmu_name(): num_boxes == 1), its
 * cpumask one CPU per die.  Kernel generations (the NEXT-PLATFORMS
 * facts sheet, section 1.1): Linux 6.8 has cha, iio, irp, pcu, ubox,
 * imc, b2cmi, b2cxl, mdf_sbo (commit 632c4bf6d007); UPI (type 8), B2UPI,
 * B2HOT, PCIe and CXL were in gnr_uncore_units_ignore until commit
 * 6d642735cdb6 ("Support more units on Granite Rapids", Linux 6.14,
 * inferred); in 2026 commit 6a8a48644c4b gave the IMC per-scheduler CAS
 * aliases (gnr_uncore_imc_events) in place of spr's cas_count_read/
 * _write, which count scheduler 0 only.  uncored encodes from Intel's data
 * through the format/ files, never from those alias names.  Catalog
 * events_gnr.c from Intel's GNR and SRF perfmon data (main and
 * experimental).  No free-running IMC PMU on GNR (gnr_uncore_mmio_init()
 * adds none): DRAM bytes are the CAS counts of both schedulers.
 * doc/hardware-notes.md, "Xeon 6 (gnr...)".
 */
#include "config.h"

#include "plat/plat.h"
#include "plat/plat_sim.h"
#include "plat/plat_xsp.h"
#include "plat/events_gnr.h"

#define END XSP_END_FACT
#define SRC "arch/x86/events/intel/uncore_snbep.c: "
/* NEXT-PLATFORMS.md 1.1: the first kernel with the unit */
#define GNR_K68 "6.8"
#define GNR_K614 "6.14"
/* the per-scheduler IMC aliases (commit 6a8a48644c4b, February 2026,
 * Cc: stable): the first mainline release after it, inferred */
#define GNR_K_SCH "7.0"

/* SPR_UNCORE_COMMON_FORMAT: umask_ext4 (irp, imc, b2cmi, upi, b2upi,
 * b2cxl, cxlcm, cxldp) */
static const struct perf_fact gnr_raw_fmt[] = {
	{ "event", "config:0-7", 0, NULL },
	{ "umask", "config:8-15,32-55", 0, NULL },
	{ "edge", "config:18", 0, NULL },
	{ "inv", "config:23", 0, NULL },
	{ "thresh", "config:24-31", 0, NULL },
	END,
};

/* spr_uncore_chabox (GNR's cha): umask_ext5, tid_en2, filter_tid5 */
static const struct perf_fact gnr_cha_fmt[] = {
	{ "event", "config:0-7", 0, NULL },
	{ "umask", "config:8-15,32-63", 0, NULL },
	{ "tid_en", "config:16", 0, NULL },
	{ "edge", "config:18", 0, NULL },
	{ "inv", "config:23", 0, NULL },
	{ "thresh", "config:24-31", 0, NULL },
	{ "filter_tid", "config1:0-9", 0, NULL },
	END,
};

/* snr_uncore_iio_format_group (spr_uncore_iio) */
static const struct perf_fact gnr_iio_fmt[] = {
	{ "event", "config:0-7", 0, NULL },
	{ "umask", "config:8-15", 0, NULL },
	{ "edge", "config:18", 0, NULL },
	{ "inv", "config:23", 0, NULL },
	{ "thresh", "config:24-35", 0, NULL },
	{ "ch_mask", "config:36-47", 0, NULL },
	{ "fc_mask", "config:48-50", 0, NULL },
	END,
};

/* pcu, ubox, b2hot, mdf_sbo set no format group: the discovery code's
 * generic one (uncore_discovery.c generic_uncore_formats_attr) */
static const struct perf_fact gnr_generic_fmt[] = {
	{ "event", "config:0-7", 0, NULL },
	{ "umask", "config:8-15", 0, NULL },
	{ "edge", "config:18", 0, NULL },
	{ "inv", "config:23", 0, NULL },
	{ "thresh", "config:24-31", 0, NULL },
	END,
};

/* Before 2026: spr_uncore_imc_events (GNR used spr_uncore_imc): CAS of
 * scheduler 0 only under the names that count a whole channel on SPR. */
static const struct perf_fact gnr_imc_events_spr[] = {
	{ "clockticks", "event=0x01,umask=0x00", 0, NULL },
	{ "cas_count_read", "event=0x05,umask=0xcf", XSP_MIB, "MiB" },
	{ "cas_count_write", "event=0x05,umask=0xf0", XSP_MIB, "MiB" },
	END,
};

/* From 2026: gnr_uncore_imc_events (commit 6a8a48644c4b) */
static const struct perf_fact gnr_imc_events_sch[] = {
	{ "clockticks", "event=0x01,umask=0x00", 0, NULL },
	{ "cas_count_read_sch0", "event=0x05,umask=0xcf", XSP_MIB, "MiB" },
	{ "cas_count_read_sch1", "event=0x06,umask=0xcf", XSP_MIB, "MiB" },
	{ "cas_count_write_sch0", "event=0x05,umask=0xf0", XSP_MIB, "MiB" },
	{ "cas_count_write_sch1", "event=0x06,umask=0xf0", XSP_MIB, "MiB" },
	END,
};

/*
 * Before 6.8 the kernel does not know GNR (intel_uncore_match[]), and
 * where the CPU publishes discovery tables the generic discovery code
 * (uncore_discovery.c, Linux 5.13) registers every type of the table
 * with no name: "uncore_type_<type id>_<box id>" (uncore.c
 * uncore_get_pmu_name() -> uncore_get_alias_name(), even for a type of
 * one box), the generic format (8-bit umask: the CHA TOR events' UMaskExt
 * does not fit, so no LLC family there), and no ignore list (UPI is
 * there).  From 6.8 on these names are gone (.until): a unit 6.8 ignores
 * (upi ...) has no PMU at all until 6.14.  The type ids are gnr_uncores[]' indexes (NEXT-PLATFORMS 1.3).
 */
#define GNR_K_GENERIC "5.13"
#define GNR_GENERIC(var, type)                                               \
	static const struct perf_unit var = {                              \
		.pmu = "uncore_type_" #type "_%u", .format = gnr_generic_fmt,\
		.since = GNR_K_GENERIC, .until = GNR_K68,                  \
		.source = "arch/x86/events/intel/uncore_discovery.c: "      \
			  "generic_uncore_init, type " #type }
GNR_GENERIC(gnr_gen_cha, 0);
GNR_GENERIC(gnr_gen_iio, 1);
GNR_GENERIC(gnr_gen_irp, 2);
GNR_GENERIC(gnr_gen_pcu, 4);
GNR_GENERIC(gnr_gen_ubox, 5);
GNR_GENERIC(gnr_gen_imc, 6);
GNR_GENERIC(gnr_gen_upi, 8);
GNR_GENERIC(gnr_gen_cxlcm, 12);
GNR_GENERIC(gnr_gen_cxldp, 13);
GNR_GENERIC(gnr_gen_b2hot, 15);
GNR_GENERIC(gnr_gen_b2cmi, 16);
GNR_GENERIC(gnr_gen_b2cxl, 17);
GNR_GENERIC(gnr_gen_b2upi, 18);
GNR_GENERIC(gnr_gen_mdf_sbo, 20);

#define GNR_KPMU(sfx, name, fmt, ver, what)                                 \
	static const struct perf_unit gnr_kpmu_##sfx = {                   \
		.pmu = name, .format = fmt, .since = ver,                  \
		.older = &gnr_gen_##sfx,                                   \
		.source = SRC what "; uncore_discovery.c" }
GNR_KPMU(cha, "uncore_cha_%u", gnr_cha_fmt, GNR_K68,
	 "gnr_uncores[0] spr_uncore_chabox");
GNR_KPMU(iio, "uncore_iio_%u", gnr_iio_fmt, GNR_K68,
	 "gnr_uncores[1] spr_uncore_iio");
GNR_KPMU(irp, "uncore_irp_%u", gnr_raw_fmt, GNR_K68,
	 "gnr_uncores[2] spr_uncore_irp");
GNR_KPMU(pcu, "uncore_pcu", gnr_generic_fmt, GNR_K68,
	 "gnr_uncores[4] spr_uncore_pcu");
GNR_KPMU(ubox, "uncore_ubox", gnr_generic_fmt, GNR_K68,
	 "gnr_uncores[5] gnr_uncore_ubox");
GNR_KPMU(upi, "uncore_upi_%u", gnr_raw_fmt, GNR_K614,
	 "gnr_uncores[8] gnr_uncore_upi (commit 6d642735cdb6)");
GNR_KPMU(cxlcm, "uncore_cxlcm_%u", gnr_raw_fmt, GNR_K614,
	 "gnr_uncores[12] spr_uncore_cxlcm (commit 6d642735cdb6)");
GNR_KPMU(cxldp, "uncore_cxldp_%u", gnr_raw_fmt, GNR_K614,
	 "gnr_uncores[13] spr_uncore_cxldp (commit 6d642735cdb6)");
GNR_KPMU(b2hot, "uncore_b2hot_%u", gnr_generic_fmt, GNR_K614,
	 "gnr_uncores[15] gnr_uncore_b2hot (commit 6d642735cdb6)");
GNR_KPMU(b2cmi, "uncore_b2cmi_%u", gnr_raw_fmt, GNR_K68,
	 "gnr_uncores[16] gnr_uncore_b2cmi");
GNR_KPMU(b2cxl, "uncore_b2cxl_%u", gnr_raw_fmt, GNR_K68,
	 "gnr_uncores[17] gnr_uncore_b2cxl");
GNR_KPMU(b2upi, "uncore_b2upi_%u", gnr_raw_fmt, GNR_K614,
	 "gnr_uncores[18] gnr_uncore_b2upi (commit 6d642735cdb6)");
GNR_KPMU(mdf_sbo, "uncore_mdf_sbo_%u", gnr_generic_fmt, GNR_K68,
	 "gnr_uncores[20] gnr_uncore_mdf_sbo");
static const struct perf_unit gnr_kpmu_imc = {
	.pmu = "uncore_imc_%u", .format = gnr_raw_fmt, .since = GNR_K68,
	.older = &gnr_gen_imc,
	.events = gnr_imc_events_sch, .events_since = GNR_K_SCH,
	.events_before = gnr_imc_events_spr,
	.source = SRC "gnr_uncores[6] spr_uncore_imc, spr_uncore_imc_events; "
		  "gnr_uncore_imc_events from commit 6a8a48644c4b; "
		  "uncore_discovery.c",
};

/*
 * Boxes per socket, as bounds (the discovery table has the count).  CHAs
 * one per core: up to 128 on GNR-AP and 144 on SRF-SP, all counted
 * (PLAT_MAX_INST 160, doc/hardware-notes.md).  IMC one per DDR5
 * channel (12 on GNR-AP: Intel's data gives each two schedulers, SCH0 and
 * SCH1); B2CMI one per controller; UPI up to 6 links; IIO/IRP one per I/O
 * stack.  Counters: Intel's Counter lists (4 a box, UBOX 2, CXLCM 8).
 */
static const struct unit_type gnr_cha = {
	XSP_PROG("cha", "CHA: caching and home agent (LLC slice, snoop filter)",
		 SRC "gnr_uncores[0] spr_uncore_chabox", 144, 4, 40,
		 gnr_kpmu_cha),
};
static const struct unit_type gnr_imc = {
	XSP_PROG("imc", "Integrated memory controller channel (two "
		 "schedulers)", SRC "gnr_uncores[6] spr_uncore_imc", 16, 4, 32,
		 gnr_kpmu_imc),
};
static const struct unit_type gnr_upi = {
	XSP_PROG("upi", "UPI link layer, per link (Linux 6.14+)",
		 SRC "gnr_uncores[8] gnr_uncore_upi", 8, 4, 32, gnr_kpmu_upi),
};
static const struct unit_type gnr_b2cmi = {
	XSP_PROG("b2cmi", "B2CMI: mesh to memory (the M2M successor)",
		 SRC "gnr_uncores[16] gnr_uncore_b2cmi", 16, 4, 32,
		 gnr_kpmu_b2cmi),
};
static const struct unit_type gnr_iio = {
	XSP_PROG("iio", "IIO: integrated I/O stack",
		 SRC "gnr_uncores[1] spr_uncore_iio", 16, 4, 8, gnr_kpmu_iio),
};
static const struct unit_type gnr_irp = {
	XSP_PROG("irp", "IRP: I/O coherency",
		 SRC "gnr_uncores[2] spr_uncore_irp", 16, 4, 32, gnr_kpmu_irp),
};
static const struct unit_type gnr_pcu = {
	XSP_PROG("pcu", "PCU: power control unit",
		 SRC "gnr_uncores[4] spr_uncore_pcu", 4, 4, 8, gnr_kpmu_pcu),
};
static const struct unit_type gnr_ubox = {
	XSP_PROG("ubox", "UBox: system configuration controller",
		 SRC "gnr_uncores[5] gnr_uncore_ubox", 4, 2, 8, gnr_kpmu_ubox),
};
static const struct unit_type gnr_b2upi = {
	XSP_PROG("b2upi", "B2UPI: mesh to UPI (Linux 6.14+)",
		 SRC "gnr_uncores[18] gnr_uncore_b2upi", 8, 4, 32,
		 gnr_kpmu_b2upi),
};
static const struct unit_type gnr_b2hot = {
	XSP_PROG("b2hot", "B2HOT (Linux 6.14+)",
		 SRC "gnr_uncores[15] gnr_uncore_b2hot", 16, 4, 8,
		 gnr_kpmu_b2hot),
};
static const struct unit_type gnr_b2cxl = {
	XSP_PROG("b2cxl", "B2CXL: mesh to CXL",
		 SRC "gnr_uncores[17] gnr_uncore_b2cxl", 16, 4, 32,
		 gnr_kpmu_b2cxl),
};
static const struct unit_type gnr_mdf_sbo = {
	XSP_PROG("mdf_sbo", "MDF SBO: mesh-to-die fabric",
		 SRC "gnr_uncores[20] gnr_uncore_mdf_sbo", 32, 4, 8,
		 gnr_kpmu_mdf_sbo),
};
static const struct unit_type gnr_cxlcm = {
	XSP_PROG("cxlcm", "CXL cache/memory unit (Linux 6.14+)",
		 SRC "gnr_uncores[12] spr_uncore_cxlcm", 4, 8, 32,
		 gnr_kpmu_cxlcm),
};
static const struct unit_type gnr_cxldp = {
	XSP_PROG("cxldp", "CXL data path unit (Linux 6.14+)",
		 SRC "gnr_uncores[13] spr_uncore_cxldp", 4, 4, 32,
		 gnr_kpmu_cxldp),
};

static const struct unit_type *const gnr_units[] = {
	&gnr_cha, &gnr_imc, &gnr_upi, &gnr_b2cmi, &gnr_iio, &gnr_irp,
	&gnr_pcu, &gnr_ubox, &gnr_b2upi, &gnr_b2hot, &gnr_b2cxl, &gnr_mdf_sbo,
	&gnr_cxlcm, &gnr_cxldp, NULL,
};

/* Intel's mapfile.csv: GenuineIntel-6-AD and -AE GNR, -AF SRF; the
 * kernel's intel_uncore_match[] gives all three gnr_uncore_init. */
static const struct cpu_match gnr_cpus[] = {
	{ 6, 0xAD, 0, 0 },
	{ 6, 0xAE, 0, 0 },
	{ 6, 0xAF, 0, 0 },
	{ 0, 0, 0, 0 },
};

/* memory read latency, "all" (derived.h DS_LAT_XSP): counter 0 of every
 * CHA and one more; [baseline] memory_latency = no leaves them out */
static const char *const gnr_baseline_latency[] = {
	"UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD", "UNC_CHA_TOR_INSERTS.IA_MISS_DRD",
	NULL
};

/* derived_gnr.c: LLC as icx/spr (doc/hardware-notes.md says why not
 * LLC_LOOKUP), DRAM the two schedulers' CAS counts, CHA clock, UPI. */
static const char *const gnr_baseline[] = {
	"UNC_CHA_TOR_INSERTS.IA", "UNC_CHA_TOR_INSERTS.IA_MISS",
	"UNC_M_CAS_COUNT_SCH0.RD", "UNC_M_CAS_COUNT_SCH1.RD",
	"UNC_M_CAS_COUNT_SCH0.WR", "UNC_M_CAS_COUNT_SCH1.WR",
	"UNC_CHA_CLOCKTICKS", "UNC_UPI_TxL_FLITS.ALL_DATA",
	/* CXL per port (Linux 6.14+): reads CXLCM RxC MEM_DATA 0x41/0x10
	 * (counters 4-7), writes CXLDP TxC_AGF_INSERTS.M2S_DATA 0x02/0x20
	 * (counters 0-3); Intel's GNR main file, PCM's choice on GNR/SRF
	 * (NEXT-PLATFORMS.md 4.1) */
	"UNC_CXLCM_RxC_PACK_BUF_INSERTS.MEM_DATA",
	"UNC_CXLDP_TxC_AGF_INSERTS.M2S_DATA",
	NULL,
};

const struct platform plat_gnr = {
	.id = "gnr",
	.name = "Intel Xeon 6 (Granite Rapids, Sierra Forest)",
	.manual = "Intel perfmon GNR V1.20 / SRF V1.18; Linux "
		  "arch/x86/events/intel/uncore_snbep.c, uncore_discovery.c",
	.cpus = gnr_cpus,
	.units = gnr_units,
	.events = gnr_events,
	.nevents = GNR_NEVENTS,
	.ops = &plat_perf_only_ops,
	.derived = &derived_gnr,
	.baseline = gnr_baseline,
	.baseline_latency = gnr_baseline_latency,
	.sim = &plat_gnr_sim,
	.backends = PLAT_BE_PERF,
};
