/*
 * plat_xsp.h - what the perf-only Xeon Scalable platform tables (skx, icx,
 * spr) share: the shape of a unit that has no registers of uncored's own
 * (the kernel's uncore driver programs it; struct perf_unit names its PMU)
 * and the kernel format fields most of their PMUs have.
 *
 * Such a unit keeps addresses and register layouts zero; kind, counters
 * per box (Intel's data lists counters 0-3 for nearly every unit, the
 * kernel's num_counters agrees where the driver states one), the 48-bit
 * width (the kernel's perf_ctr_bits), and event-select widths equal to
 * the kernel's format fields (a raw encoding a client sends is checked
 * against them: umask_w is the number of bits of the kernel's "umask"
 * field, UMaskExt included).
 */
#ifndef UNCORED_PLAT_XSP_H
#define UNCORED_PLAT_XSP_H

#include "plat/plat.h"

#define XSP_NONE 0xff
/* Wrap-check bound: 64 increments per cycle at 5 GHz (hsx's generous
 * bound); 48-bit counters then wrap after 880 s at the earliest. */
#define XSP_MAX_RATE (64 * 5.0e9)

/* The fields of a perf-only programmable unit (add filters after). */
#define XSP_PROG(nm, dsc, src, ninst, ctrs, umask_bits, kpmu)               \
	.name = nm, .desc = dsc, .source = src, .kind = UNIT_PROG,          \
	.max_inst = ninst, .nctr = ctrs, .width = 48,                       \
	.fmt = { .ev_lo = 0, .ev_w = 8, .umask_lo = 8,                      \
		 .umask_w = umask_bits, .thresh_lo = 24, .thresh_w = 8,     \
		 .inv_bit = 23, .edge_bit = 18, .en_bit = XSP_NONE,         \
		 .ovf_en_bit = XSP_NONE, .rst_bit = XSP_NONE },             \
	.global_ovf_bit = XSP_NONE, .max_rate = XSP_MAX_RATE,               \
	.perf = &(kpmu)

/* A fixed counter the kernel selects with config 0xff on the PMU. */
#define XSP_FIXED(nm, dsc, src, ninst, kpmu)                                \
	.name = nm, .desc = dsc, .source = src, .kind = UNIT_FIXED,         \
	.max_inst = ninst, .nctr = 1, .width = 48,                          \
	.fmt = { .inv_bit = XSP_NONE, .edge_bit = XSP_NONE,                 \
		 .en_bit = XSP_NONE, .ovf_en_bit = XSP_NONE,                \
		 .rst_bit = XSP_NONE },                                     \
	.global_ovf_bit = XSP_NONE, .max_rate = 5.0e9, .perf = &(kpmu)

#define XSP_END_FACT { NULL, NULL, NULL, NULL }
/* 64 bytes in MiB: the kernel's .scale of its DRAM byte events, the
 * string as its tables write it (uncore_snbep.c, e.g.
 * spr_uncore_imc_events "cas_count_read.scale"). */
#define XSP_MIB "6.103515625e-5"
/* The IIO free-running bandwidth unit "iio_free" of each (iio_xsp.c). */
extern const struct unit_type xsp_skx_iio_free, xsp_icx_iio_free,
	xsp_spr_iio_free;
/* Its baseline events: every port's counter of a stack (skx: 4 ports each
 * way; icx, spr: 8 ports inbound). */
#define XSP_IIO_PORTS4(dir)                                                 \
	"UNC_IIO_BANDWIDTH_" dir ".PART0_FREERUN",                          \
	"UNC_IIO_BANDWIDTH_" dir ".PART1_FREERUN",                          \
	"UNC_IIO_BANDWIDTH_" dir ".PART2_FREERUN",                          \
	"UNC_IIO_BANDWIDTH_" dir ".PART3_FREERUN"
#define XSP_IIO_PORTS8(dir)                                                 \
	XSP_IIO_PORTS4(dir),                                                \
	"UNC_IIO_BANDWIDTH_" dir ".PART4_FREERUN",                          \
	"UNC_IIO_BANDWIDTH_" dir ".PART5_FREERUN",                          \
	"UNC_IIO_BANDWIDTH_" dir ".PART6_FREERUN",                          \
	"UNC_IIO_BANDWIDTH_" dir ".PART7_FREERUN"

/*
 * skx LLC lookups and misses (doc/hardware-notes.md, "LLC on skx"): the
 * requests of the cores entering each CHA's TOR, all of them
 * (UNC_CHA_TOR_INSERTS.IA, 0x35/0x31) and those that missed the LLC
 * (.IA_MISS, 0x35/0x21), as on icx/spr.  Intel's SKX/CLX data gives both
 * the filter "CHAFilter1[31:0]" (the opcode/locality filter, config1 bits
 * 63:32 in the kernel's format), not the state filter of FILTER0, and its
 * opcode-restricted variants (IA_MISS_DRD...) carry FILTER1 = 0x33 |
 * opcode << 9: rem, loc, nm, not_nm set.  "Every opcode" is the same with
 * filter_all_op (FILTER1 bit 3, the kernel's config1:35) in place of an
 * opcode: FILTER1 0x3B, config1 0x3B << 32.  Both events take that one
 * value, so one CHA counts both and every CHA counts: no :split.
 */
#define SKX_LLC_FILTER1 "0x3b00000000"
#define SKX_LLC_LOOKUPS "UNC_CHA_TOR_INSERTS.IA:filter0=" SKX_LLC_FILTER1
#define SKX_LLC_MISSES "UNC_CHA_TOR_INSERTS.IA_MISS:filter0=" SKX_LLC_FILTER1

/*
 * skx memory read latency (derived_skx.c; doc/hardware-notes.md "Memory
 * read latency"): the TOR occupancy (0x36/0x21, counter 0 only) and
 * inserts (0x35/0x21) of the cores' requests that missed the LLC
 * (IA_MISS), FILTER1 restricted to demand data reads: Intel's SKX/CLX
 * llc_data_read_demand_plus_prefetch_miss_latency{,_for_local_requests,
 * _for_remote_requests} give "UNC_CHA_TOR_OCCUPANCY.IA_MISS:filter1=
 * 0x40433" (0x33 | opc 0x202 << 9: rem, loc, nm, not_nm and the DRd
 * opcode; the catalog's IA_MISS_DRD carries the same as perf terms),
 * 0x40432 (loc without rem: local) and 0x40431 (rem: remote).  FILTER1
 * is config1 bits 63:32, so :filter0= is that value << 32.  It is not
 * the LLC events' value (0x3b, every opcode): the CHA's one filter
 * register makes the latency events take turns with them.
 */
#define SKX_LAT_F(f1) ":filter0=" f1 "00000000"
#define SKX_LAT_OCC(f1) "UNC_CHA_TOR_OCCUPANCY.IA_MISS" SKX_LAT_F(f1)
#define SKX_LAT_INS(f1) "UNC_CHA_TOR_INSERTS.IA_MISS" SKX_LAT_F(f1)
#define SKX_DRD_ALL "0x40433"
#define SKX_DRD_LOCAL "0x40432"
#define SKX_DRD_REMOTE "0x40431"

/* The operations of a platform uncored never discovers or freezes itself
 * (plat.c): discovery refuses it, naming the perf backend. */
extern const struct plat_ops plat_perf_only_ops;

#endif
