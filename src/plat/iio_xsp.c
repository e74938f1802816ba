/*
 * iio_xsp.c - the IIO free-running bandwidth counters of the Xeon Scalable
 * perf platforms (skx, icx, spr): one kernel PMU per I/O stack,
 * uncore_iio_free_running_N, whose counters cost no programmable counter.
 * doc/hardware-notes.md, "I/O bandwidth: IIO free-running counters", has
 * the sources and the decisions; in short (Linux
 * arch/x86/events/intel/uncore_snbep.c):
 *
 *   skx  skx_iio_freerunning: BW { 0xb00, +1, box +0x10, 8 ctrs, 36 bits };
 *        skx_uncore_iio_freerunning_events: bw_in_port0-3 umask 0x20-0x23,
 *        bw_out_port0-3 0x24-0x27, scale 3.814697266e-6 MiB (4 bytes);
 *   icx  icx_iio_freerunning: BW_IN { 0xaa0, +1, box +0x10, 8, 48 bits },
 *        no BW_OUT; events snr_uncore_iio_freerunning_events since
 *        32c7f1150225 (2025): bw_in_port0-7 umask 0x20-0x27, scale
 *        3.0517578125e-5 MiB (32 bytes; before it 4 bytes, a spec error);
 *   spr  spr_iio_freerunning: BW_IN { 0x3800, +1, box +0x10, 8, 48 bits };
 *        the same snr events since 506f981ab40f (2025), which also removed
 *        bw_out_port*: "don't increment with a consistent size".
 *
 * The simulated kernel writes these facts as its events/ files; uncored
 * takes the bytes per count from the derived tables (derived_*.c), not
 * from a kernel's .scale, which kernels before the 2025 fixes give 8x too
 * small on icx and spr.
 */
#include "config.h"

#include "plat/plat.h"
#include "plat/plat_xsp.h"

#define SRC "arch/x86/events/intel/uncore_snbep.c: "
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* 4 and 32 bytes in MiB: the kernel's .scale of the bandwidth events */
#define IIO_4B "3.814697266e-6"
#define IIO_32B "3.0517578125e-5"

/* skx_uncore_iio_freerunning_format_group (icx and spr use it too) */
static const struct perf_fact iio_free_fmt[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	XSP_END_FACT,
};

/* skx_uncore_iio_freerunning_events, every alias the kernel writes */
static const struct perf_fact skx_iio_free_events[] = {
	{ "ioclk", "event=0xff,umask=0x10", NULL, NULL },
	{ "bw_in_port0", "event=0xff,umask=0x20", IIO_4B, "MiB" },
	{ "bw_in_port1", "event=0xff,umask=0x21", IIO_4B, "MiB" },
	{ "bw_in_port2", "event=0xff,umask=0x22", IIO_4B, "MiB" },
	{ "bw_in_port3", "event=0xff,umask=0x23", IIO_4B, "MiB" },
	{ "bw_out_port0", "event=0xff,umask=0x24", IIO_4B, "MiB" },
	{ "bw_out_port1", "event=0xff,umask=0x25", IIO_4B, "MiB" },
	{ "bw_out_port2", "event=0xff,umask=0x26", IIO_4B, "MiB" },
	{ "bw_out_port3", "event=0xff,umask=0x27", IIO_4B, "MiB" },
	{ "util_in_port0", "event=0xff,umask=0x30", NULL, NULL },
	{ "util_out_port0", "event=0xff,umask=0x31", NULL, NULL },
	{ "util_in_port1", "event=0xff,umask=0x32", NULL, NULL },
	{ "util_out_port1", "event=0xff,umask=0x33", NULL, NULL },
	{ "util_in_port2", "event=0xff,umask=0x34", NULL, NULL },
	{ "util_out_port2", "event=0xff,umask=0x35", NULL, NULL },
	{ "util_in_port3", "event=0xff,umask=0x36", NULL, NULL },
	{ "util_out_port3", "event=0xff,umask=0x37", NULL, NULL },
	XSP_END_FACT,
};

/* snr_uncore_iio_freerunning_events after 96a720db59ab (icx since
 * 32c7f1150225, spr since 506f981ab40f) */
static const struct perf_fact snr_iio_free_events[] = {
	{ "ioclk", "event=0xff,umask=0x10", NULL, NULL },
	{ "bw_in_port0", "event=0xff,umask=0x20", IIO_32B, "MiB" },
	{ "bw_in_port1", "event=0xff,umask=0x21", IIO_32B, "MiB" },
	{ "bw_in_port2", "event=0xff,umask=0x22", IIO_32B, "MiB" },
	{ "bw_in_port3", "event=0xff,umask=0x23", IIO_32B, "MiB" },
	{ "bw_in_port4", "event=0xff,umask=0x24", IIO_32B, "MiB" },
	{ "bw_in_port5", "event=0xff,umask=0x25", IIO_32B, "MiB" },
	{ "bw_in_port6", "event=0xff,umask=0x26", IIO_32B, "MiB" },
	{ "bw_in_port7", "event=0xff,umask=0x27", IIO_32B, "MiB" },
	XSP_END_FACT,
};

static const struct perf_unit skx_kpmu_iio_free = {
	.pmu = "uncore_iio_free_running_%u",
	.source = SRC "skx_uncore_iio_free_running",
	.format = iio_free_fmt, .events = skx_iio_free_events,
};
static const struct perf_unit icx_kpmu_iio_free = {
	.pmu = "uncore_iio_free_running_%u",
	.source = SRC "icx_uncore_iio_free_running",
	.format = iio_free_fmt, .events = snr_iio_free_events,
};
static const struct perf_unit spr_kpmu_iio_free = {
	.pmu = "uncore_iio_free_running_%u",
	.source = SRC "spr_uncore_iio_free_running",
	.format = iio_free_fmt, .events = snr_iio_free_events,
};

/* One port's counter: its catalog name (extract_events.py KERNEL_EXTRA),
 * offset from the box's BW base, width, the kernel alias, the bound of
 * the wrap check in counts per second (twice a x16 link of the
 * generation: PCIe 3.0 ~16 GB/s at 4 bytes (skx), 4.0 ~32 GB/s and 5.0
 * ~64 GB/s at 32 bytes (icx, spr)). */
#define IIO_CTR(dir, n, off, w, alias, rate)                                \
	{ "UNC_IIO_BANDWIDTH_" dir ".PART" #n "_FREERUN", off, w, 8,        \
	  "IIO free-running bandwidth " dir ", port " #n, rate,            \
	  .perf_event = alias }

static const struct freerun_ctr skx_iio_free_ctrs[] = {
	IIO_CTR("IN", 0, 0, 36, "bw_in_port0", 8.0e9),
	IIO_CTR("IN", 1, 1, 36, "bw_in_port1", 8.0e9),
	IIO_CTR("IN", 2, 2, 36, "bw_in_port2", 8.0e9),
	IIO_CTR("IN", 3, 3, 36, "bw_in_port3", 8.0e9),
	IIO_CTR("OUT", 0, 4, 36, "bw_out_port0", 8.0e9),
	IIO_CTR("OUT", 1, 5, 36, "bw_out_port1", 8.0e9),
	IIO_CTR("OUT", 2, 6, 36, "bw_out_port2", 8.0e9),
	IIO_CTR("OUT", 3, 7, 36, "bw_out_port3", 8.0e9),
};
static const struct freerun_ctr icx_iio_free_ctrs[] = {
	IIO_CTR("IN", 0, 0, 48, "bw_in_port0", 2.0e9),
	IIO_CTR("IN", 1, 1, 48, "bw_in_port1", 2.0e9),
	IIO_CTR("IN", 2, 2, 48, "bw_in_port2", 2.0e9),
	IIO_CTR("IN", 3, 3, 48, "bw_in_port3", 2.0e9),
	IIO_CTR("IN", 4, 4, 48, "bw_in_port4", 2.0e9),
	IIO_CTR("IN", 5, 5, 48, "bw_in_port5", 2.0e9),
	IIO_CTR("IN", 6, 6, 48, "bw_in_port6", 2.0e9),
	IIO_CTR("IN", 7, 7, 48, "bw_in_port7", 2.0e9),
};
static const struct freerun_ctr spr_iio_free_ctrs[] = {
	IIO_CTR("IN", 0, 0, 48, "bw_in_port0", 4.0e9),
	IIO_CTR("IN", 1, 1, 48, "bw_in_port1", 4.0e9),
	IIO_CTR("IN", 2, 2, 48, "bw_in_port2", 4.0e9),
	IIO_CTR("IN", 3, 3, 48, "bw_in_port3", 4.0e9),
	IIO_CTR("IN", 4, 4, 48, "bw_in_port4", 4.0e9),
	IIO_CTR("IN", 5, 5, 48, "bw_in_port5", 4.0e9),
	IIO_CTR("IN", 6, 6, 48, "bw_in_port6", 4.0e9),
	IIO_CTR("IN", 7, 7, 48, "bw_in_port7", 4.0e9),
};

#define IIO_FREE_UNIT(var, src, ninst, w, ctrs, kpmu)                       \
	const struct unit_type var = {                                       \
		.name = "iio_free",                                          \
		.desc = "IIO free-running bandwidth counters of one I/O "    \
			"stack",                                             \
		.source = SRC src, .kind = UNIT_FREERUN,                     \
		.max_inst = ninst, .width = w,                               \
		.fmt = { .inv_bit = XSP_NONE, .edge_bit = XSP_NONE,          \
			 .en_bit = XSP_NONE, .ovf_en_bit = XSP_NONE,         \
			 .rst_bit = XSP_NONE },                              \
		.global_ovf_bit = XSP_NONE,                                  \
		.freerun = ctrs, .nfreerun = ARRAY_SIZE(ctrs),               \
		.perf = &(kpmu) }

/* Boxes: skx and icx num_boxes 6; spr takes the IIO count of the
 * discovery table (at most 16 here, as spr's "iio" unit). */
IIO_FREE_UNIT(xsp_skx_iio_free, "skx_uncore_iio_free_running", 6, 36,
	      skx_iio_free_ctrs, skx_kpmu_iio_free);
IIO_FREE_UNIT(xsp_icx_iio_free, "icx_uncore_iio_free_running", 6, 48,
	      icx_iio_free_ctrs, icx_kpmu_iio_free);
IIO_FREE_UNIT(xsp_spr_iio_free, "spr_uncore_iio_free_running", 16, 48,
	      spr_iio_free_ctrs, spr_kpmu_iio_free);
