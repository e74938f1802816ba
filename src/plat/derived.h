/*
 * derived.h - entries of the derived-metric tables (format in plat.h)
 * that every platform shares: the headline metrics of doc/design.md section 7
 * over sources each platform defines under the same names ("lookups",
 * "misses", "dram_rd", "dram_wr" in bytes, "clock" in uncore cycles).
 */
#ifndef UNCORED_PLAT_DERIVED_H
#define UNCORED_PLAT_DERIVED_H

#include "plat.h"

#define DM_LLC_LOOKUPS                                                    \
	{ "uncore_llc_lookups_total", "llc_lookups_total",                \
	  "LLC lookups, summed over the LLC slices.", NULL, DM_COUNTER,    \
	  NULL, { NULL }, { DF_SRC("lookups") } }
#define DM_LLC_MISSES                                                     \
	{ "uncore_llc_misses_total", "llc_misses_total",                  \
	  "LLC lookups that missed (found the line invalid).", NULL,       \
	  DM_COUNTER, NULL, { NULL }, { DF_SRC("misses") } }
#define DM_LLC_HIT_RATIO                                                  \
	{ "uncore_llc_hit_ratio", "llc_hit_ratio",                        \
	  "1 - misses/lookups over the last sampling interval.", "ratio",  \
	  DM_GAUGE, NULL, { NULL },                                        \
	  { DF_SRC("lookups"), DF_SRC("misses"), DF_SUB, DF_SRC("lookups"), \
	    DF_RATIO } }
/* DRAM bytes of direction dir ("read", "write") from source src, as a
 * counter family name (per socket, or per instance label per). */
#define DM_DRAM_BYTES(name, per, help, dir, src)                          \
	{ name, "dram_" dir "_bytes_total", help, "bytes", DM_COUNTER, per, \
	  { NULL }, { DF_SRC(src) } }
/* ... and as a gauge of the last interval, labelled direction. */
#define DM_DRAM_BW(name, per, help, dir, src)                             \
	{ name, "dram_" dir "_bytes_per_second", help, "bytes_per_second", \
	  DM_GAUGE, per, { "direction", dir, NULL },                        \
	  { DF_SRC(src), DF_RATE } }
#define DM_DRAM_BW_HELP "DRAM bandwidth over the last sampling interval."
#define DM_CLOCK_TICKS(help)                                              \
	{ "uncore_clock_ticks_total", "clock_ticks_total", help, NULL,     \
	  DM_COUNTER, NULL, { NULL }, { DF_SRC("clock") } }
#define DM_CLOCK_HERTZ                                                    \
	{ "uncore_clock_hertz", "clock_hertz",                            \
	  "Uncore clock frequency over the last sampling interval.",       \
	  "hertz", DM_GAUGE, NULL, { NULL }, { DF_SRC("clock"), DF_RATE } }


/* Server platforms (hsx, snbep): per memory channel and per QPI port
 * families (sources "dram_rd", "dram_wr" per iMC channel, "qpi_data",
 * "qpi_nondata" in bytes per port), home agent requests, PCU C-state
 * residency and frequency bands. */
#define DM_CH_BW_HELP "DRAM bandwidth of one memory channel over the last " \
		   "sampling interval."
#define DM_HA_HELP "Home agent requests by type and by locality (from this " \
		"socket or a remote one; \"any\" where the platform does " \
		"not tell them apart)."
#define DM_CS_HELP "Cycles the package (package_*) was in the C-state, or the " \
		"socket's cores (core_*) were, summed over its cores (PCU " \
		"free-running counters)."
#define DM_FB_HELP "Cycles the uncore frequency was at or above the band's " \
		"threshold (bands 1.2, 2.0, 2.8, 3.6 GHz in the default " \
		"baseline)."

#define DM_HA(json, type, loc, src)                                          \
	{ "uncore_ha_requests_total", json, DM_HA_HELP, NULL, DM_COUNTER, NULL, \
	  { "type", type, "locality", loc, NULL }, { DF_SRC(src) } }
#define DM_CSTATE(json, state, src)                                          \
	{ "uncore_pcu_cstate_residency_cycles_total", json, DM_CS_HELP, NULL,   \
	  DM_COUNTER, NULL, { "state", state, NULL }, { DF_SRC(src) } }
#define DM_BAND(json, n, src)                                                \
	{ "uncore_pcu_frequency_band_cycles_total", json, DM_FB_HELP, NULL,     \
	  DM_COUNTER, NULL, { "band", n, NULL }, { DF_SRC(src) } }

/* uncore_frequency_limited_seconds_total{domain="core",reason}: PCU
 * cycles while a limit capped the cores' frequency, over the PCU's fixed
 * 800 MHz clock (the scale of DM_FL_SRC; doc/hardware-notes.md "PCU
 * frequency limits") */
#define DM_PCLK_S (1.0 / 800e6)
#define DM_FL_SRC(name, event) { name, event, DM_PCLK_S }
#define DM_FLIMIT(json, reason, src)                                         \
	{ "uncore_frequency_limited_seconds_total", json, "Time each "        \
	  "socket's frequency was held back, by domain and reason (core: "   \
	  "the PCU's FREQ_MAX_*_CYCLES and PROCHOT_*_CYCLES over its fixed " \
	  "800 MHz clock; package, thermal: the kernel's thermal_throttle/"  \
	  "package_throttle_total_time_ms / 1000, since boot).", "seconds",  \
	  DM_COUNTER, NULL,                                                  \
	  { "domain", "core", "reason", reason, NULL }, { DF_SRC(src) } }
#define DM_FLIMITS                                                           \
	DM_FLIMIT("frequency_limited_thermal_seconds_total", "thermal",     \
		  "fl_thermal"),                                            \
	DM_FLIMIT("frequency_limited_power_seconds_total", "power",         \
		  "fl_power"),                                              \
	DM_FLIMIT("frequency_limited_os_seconds_total", "os", "fl_os"),     \
	DM_FLIMIT("frequency_limited_prochot_internal_seconds_total",       \
		  "prochot_internal", "fl_prochot_int"),                    \
	DM_FLIMIT("frequency_limited_prochot_external_seconds_total",       \
		  "prochot_external", "fl_prochot_ext")
#define DM_FL_SRCS                                                           \
	DM_FL_SRC("fl_thermal", "UNC_P_FREQ_MAX_LIMIT_THERMAL_CYCLES"),     \
	DM_FL_SRC("fl_power", "UNC_P_FREQ_MAX_POWER_CYCLES"),               \
	DM_FL_SRC("fl_os", "UNC_P_FREQ_MAX_OS_CYCLES"),                     \
	DM_FL_SRC("fl_prochot_int", "UNC_P_PROCHOT_INTERNAL_CYCLES"),       \
	DM_FL_SRC("fl_prochot_ext", "UNC_P_PROCHOT_EXTERNAL_CYCLES")

#define DM_DRAM_CHANNELS \
	DM_DRAM_BYTES("uncore_dram_channel_read_bytes_total", "channel", \
		      "Bytes read from DRAM through one memory channel (64 per " \
		      "transfer).", "read", "dram_rd"), \
	DM_DRAM_BYTES("uncore_dram_channel_write_bytes_total", "channel", \
		      "Bytes written to DRAM through one memory channel (64 " \
		      "per transfer).", "write", "dram_wr"), \
	DM_DRAM_BW("uncore_dram_channel_bandwidth_bytes_per_second", \
		   "channel", DM_CH_BW_HELP, "read", "dram_rd"), \
	DM_DRAM_BW("uncore_dram_channel_bandwidth_bytes_per_second", \
		   "channel", DM_CH_BW_HELP, "write", "dram_wr")
#define DM_QPI_PORTS \
	{ "uncore_qpi_data_bytes_total", "qpi_data_bytes_total", \
	  "QPI data sent, per port: data flits x 8 bytes (manual 2.9.5 " \
	  "QPI_DATA_BW).", "bytes", DM_COUNTER, "port", { NULL }, \
	  { DF_SRC("qpi_data") } }, \
	{ "uncore_qpi_link_bytes_total", "qpi_link_bytes_total", \
	  "QPI link traffic sent, per port: data and non-data flits x 8 " \
	  "bytes (QPI_LINK_BW).", "bytes", DM_COUNTER, "port", { NULL }, \
	  { DF_SRC("qpi_data"), DF_SRC("qpi_nondata"), DF_ADD } }, \
	{ "uncore_qpi_data_bandwidth_bytes_per_second", \
	  "qpi_data_bytes_per_second", \
	  "QPI data sent per second on one port over the last sampling " \
	  "interval.", "bytes_per_second", DM_GAUGE, "port", { NULL }, \
	  { DF_SRC("qpi_data"), DF_RATE } }, \
	{ "uncore_qpi_link_bandwidth_bytes_per_second", \
	  "qpi_link_bytes_per_second", \
	  "QPI link traffic (data and non-data flits) sent per second on one " \
	  "port over the last sampling interval.", "bytes_per_second", \
	  DM_GAUGE, "port", { NULL }, \
	  { DF_SRC("qpi_data"), DF_SRC("qpi_nondata"), DF_ADD, DF_RATE } }


/*
 * The headline metrics every Xeon platform (hsx, snbep) derives alike,
 * from sources named lookups/misses, dram_rd/dram_wr (summed over the
 * channels), uclk and qpi_data/qpi_nondata: LLC, DRAM socket and channel
 * families, uncore clock, QPI ports.
 */
#define DM_XEON_HEADLINE \
	DM_LLC_LOOKUPS, \
	DM_LLC_MISSES, \
	DM_LLC_HIT_RATIO, \
	DM_DRAM_BYTES("uncore_dram_read_bytes_total", NULL, \
		      "Bytes read from DRAM (64 per transfer), summed over the " \
		      "socket's memory channels.", "read", "dram_rd"), \
	DM_DRAM_BYTES("uncore_dram_write_bytes_total", NULL, \
		      "Bytes written to DRAM (64 per transfer), summed over the " \
		      "socket's memory channels.", "write", "dram_wr"), \
	DM_DRAM_BW("uncore_dram_bandwidth_bytes_per_second", NULL, \
		   DM_DRAM_BW_HELP, "read", "dram_rd"), \
	DM_DRAM_BW("uncore_dram_bandwidth_bytes_per_second", NULL, \
		   DM_DRAM_BW_HELP, "write", "dram_wr"), \
	DM_DRAM_CHANNELS, \
	DM_CLOCK_TICKS("Uncore clock (UCLK) cycles, from the UBox fixed " \
		       "counter."), \
	DM_CLOCK_HERTZ, \
	DM_QPI_PORTS

/*
 * The perf-backed platforms (skx, icx, spr, zen4): the same headline
 * families, each with the HELP of what the platform counts (doc/metrics.md
 * has them side by side).  LLC from sources "lookups"/"misses", DRAM from
 * "dram_rd"/"dram_wr" (bytes), per channel from "ch_rd"/"ch_wr", the
 * uncore clock from "clock", UPI data per link from "upi_data" (bytes).
 */
#define DM_LLC_LOOKUPS_H(help)                                            \
	{ "uncore_llc_lookups_total", "llc_lookups_total", help, NULL,     \
	  DM_COUNTER, NULL, { NULL }, { DF_SRC("lookups") } }
#define DM_LLC_MISSES_H(help)                                             \
	{ "uncore_llc_misses_total", "llc_misses_total", help, NULL,       \
	  DM_COUNTER, NULL, { NULL }, { DF_SRC("misses") } }
#define DM_DRAM_SOCKET(rd_help, wr_help) \
	DM_DRAM_BYTES("uncore_dram_read_bytes_total", NULL, rd_help, "read", \
		      "dram_rd"), \
	DM_DRAM_BYTES("uncore_dram_write_bytes_total", NULL, wr_help, \
		      "write", "dram_wr"), \
	DM_DRAM_BW("uncore_dram_bandwidth_bytes_per_second", NULL, \
		   DM_DRAM_BW_HELP, "read", "dram_rd"), \
	DM_DRAM_BW("uncore_dram_bandwidth_bytes_per_second", NULL, \
		   DM_DRAM_BW_HELP, "write", "dram_wr")
#define DM_DRAM_CH(help_rd, help_wr) \
	DM_DRAM_BYTES("uncore_dram_channel_read_bytes_total", "channel", \
		      help_rd, "read", "ch_rd"), \
	DM_DRAM_BYTES("uncore_dram_channel_write_bytes_total", "channel", \
		      help_wr, "write", "ch_wr"), \
	DM_DRAM_BW("uncore_dram_channel_bandwidth_bytes_per_second", \
		   "channel", DM_CH_BW_HELP, "read", "ch_rd"), \
	DM_DRAM_BW("uncore_dram_channel_bandwidth_bytes_per_second", \
		   "channel", DM_CH_BW_HELP, "write", "ch_wr")
/*
 * DRAM bytes both ways together, per socket: the family every platform
 * with DRAM figures exports.  A table with the read and write families
 * gets it from the evaluator (derive.c: their sum, and the bandwidth gauge
 * beside it); a platform whose data has only the total (zen3: the data
 * fabric's channel requests count reads and writes together) writes this
 * entry over its source "dram_all" (bytes) instead, and no read or write
 * family.
 */
#define DM_DRAM_TOTAL_NAME "uncore_dram_bytes_total"
#define DM_DRAM_TOTAL_JSON "dram_bytes_total"
#define DM_DRAM_TOTAL_BW_NAME "uncore_dram_total_bandwidth_bytes_per_second"
#define DM_DRAM_TOTAL_BW_JSON "dram_bytes_per_second"
#define DM_DRAM_TOTAL(help) \
	{ DM_DRAM_TOTAL_NAME, DM_DRAM_TOTAL_JSON, help, "bytes", DM_COUNTER, \
	  NULL, { NULL }, { DF_SRC("dram_all") } }
#define DM_UPI_LINKS \
	{ "uncore_upi_data_bytes_total", "upi_data_bytes_total", \
	  "UPI data sent, per link: data flits x 64/9 bytes (Intel's " \
	  "upi_data_transmit_bw metric).", "bytes", DM_COUNTER, "port", \
	  { NULL }, { DF_SRC("upi_data") } }, \
	{ "uncore_upi_data_bandwidth_bytes_per_second", \
	  "upi_data_bytes_per_second", \
	  "UPI data sent per second on one link over the last sampling " \
	  "interval.", "bytes_per_second", DM_GAUGE, "port", { NULL }, \
	  { DF_SRC("upi_data"), DF_RATE } }
/*
 * I/O traffic per I/O stack (the "stack" label: the kernel's
 * uncore_iio_free_running_N), from sources "io_in" / "io_out" in bytes:
 * the stack's port counters summed (DS_IIO_PORTS4/8).  direction "in" =
 * data the devices sent into the socket (their DMA writes to memory,
 * chiefly), "out" = data the socket sent them (their DMA reads); a
 * platform without outbound counters has only "in" (doc/metrics.md).
 */
#define DM_IO_HELP "Bytes of I/O traffic through one I/O stack (IIO " \
	"free-running counters): direction=\"in\" is data the devices sent " \
	"into the socket (their writes to memory), direction=\"out\" data " \
	"the socket sent them (their reads of memory), where the platform " \
	"counts it."
#define DM_IO_BW_HELP "I/O traffic through one I/O stack per second over " \
	"the last sampling interval (directions as uncore_io_bytes_total)."
#define DM_IO_BYTES(dir) \
	{ "uncore_io_bytes_total", "io_" dir "_bytes_total", DM_IO_HELP, \
	  "bytes", DM_COUNTER, "stack", { "direction", dir, NULL }, \
	  { DF_SRC("io_" dir) } }
#define DM_IO_BW(dir) \
	{ "uncore_io_bandwidth_bytes_per_second", "io_" dir \
	  "_bytes_per_second", DM_IO_BW_HELP, "bytes_per_second", DM_GAUGE, \
	  "stack", { "direction", dir, NULL }, \
	  { DF_SRC("io_" dir), DF_RATE } }
/* The sources: each port's counter x bytes per count b. */
#define DS_IIO(dir, DIR, n, b) \
	{ "io_" dir, "UNC_IIO_BANDWIDTH_" DIR ".PART" #n "_FREERUN", b, false, \
	  0 }
#define DS_IIO_PORTS4(dir, DIR, b) \
	DS_IIO(dir, DIR, 0, b), DS_IIO(dir, DIR, 1, b), \
	DS_IIO(dir, DIR, 2, b), DS_IIO(dir, DIR, 3, b)
#define DS_IIO_PORTS8(dir, DIR, b) \
	DS_IIO_PORTS4(dir, DIR, b), DS_IIO(dir, DIR, 4, b), \
	DS_IIO(dir, DIR, 5, b), DS_IIO(dir, DIR, 6, b), DS_IIO(dir, DIR, 7, b)
/* Bytes per count (doc/hardware-notes.md, "I/O bandwidth"): skx 4
 * (skx_uncore_iio_freerunning_events scale 3.814697266e-6 MiB); icx and
 * spr 32 (Intel's SPR/EMR UNC_IIO_BANDWIDTH_IN.PARTn_FREERUN "every 32
 * bytes"; the kernel's fixes 32c7f1150225 and 506f981ab40f, 2025). */
#define XSP_IIO_BYTES_SKX 4.0
#define XSP_IIO_BYTES_ICX_SPR 32.0

/* Intel: UPI data bytes per data flit (upi_data_transmit_bw: 64 / 9.0) */
#define XSP_UPI_BYTES_PER_FLIT (64.0 / 9.0)
#define XSP_CLOCK_HELP "Uncore clock (UCLK) cycles: the CHA clock, " \
	"averaged over the socket's CHAs (Intel's uncore_frequency metric)."

/*
 * Memory read latency (issue 41; doc/metrics.md "Memory read latency"):
 * a Prometheus summary without quantiles per socket and target.  _sum is
 * request-seconds: each interval the occupancy summed over the socket's
 * boxes (source "lat_occ_<t>", cycles x entries) divided by the clock of
 * one box in that interval (source "lat_clock", cycles, the mean of the
 * boxes or the socket's one uncore clock, over the seconds it counted);
 * _count the reads inserted ("lat_ins_<t>").  rate(_sum) / rate(_count)
 * is the mean latency over any window (Little's law, sum then divide:
 * the facts sheet "Memory latency, queueing and the vendors' metric
 * formulas", section 1), rate(_sum) the mean reads in flight.  JSON also
 * carries the last interval's mean latency and reads in flight.
 */
#define DM_LAT_NAME "uncore_memory_read_latency_seconds"
#define DM_LAT_HELP "Demand data reads that missed the LLC, in the LLC's " \
	"request tracker (TOR/ARB/L3): _sum request-seconds (occupancy " \
	"summed over the socket's boxes / one box's clock), _count the " \
	"reads; rate(_sum)/rate(_count) is the mean latency, rate(_sum) " \
	"the mean reads in flight (doc/metrics.md)."
#define DM_LAT(t) \
	{ DM_LAT_NAME, "memory_read_latency_" t "_seconds_sum", DM_LAT_HELP, \
	  "seconds", DM_SUM, NULL, { "target", t, NULL }, \
	  { DF_SRC("lat_occ_" t), DF_SRC("lat_clock"), DF_RATE, DF_RATIO } }, \
	{ DM_LAT_NAME, "memory_read_latency_" t "_seconds_count", DM_LAT_HELP, \
	  "seconds", DM_COUNT, NULL, { "target", t, NULL }, \
	  { DF_SRC("lat_ins_" t) } }
/* ... and the last interval's mean latency and reads in flight, in JSON
 * only (Prometheus takes them from the summary over its own window);
 * each a family of its own, so its entries are adjacent. */
#define DM_LAT_MEAN(t) \
	{ "uncore_memory_read_latency_mean_seconds", \
	  "memory_read_latency_" t "_seconds", \
	  "Mean read latency over the last interval.", "seconds", DM_GAUGE, \
	  NULL, { "target", t, NULL }, \
	  { DF_SRC("lat_occ_" t), DF_SRC("lat_clock"), DF_RATE, DF_RATIO, \
	    DF_SRC("lat_ins_" t), DF_RATIO }, true }
#define DM_LAT_INFLIGHT(t) \
	{ "uncore_memory_reads_in_flight", "memory_reads_in_flight_" t, \
	  "Mean reads in flight over the last interval.", NULL, DM_GAUGE, \
	  NULL, { "target", t, NULL }, \
	  { DF_SRC("lat_occ_" t), DF_SRC("lat_clock"), DF_RATIO }, true }

/* The families of a platform whose targets are "all", "local" and
 * "remote" (each there when the program counts its sources), those with
 * "dram", and "dram" and "pmem" too: entries of one family adjacent. */
#define DM_LAT_TARGETS3 \
	DM_LAT("all"), DM_LAT("local"), DM_LAT("remote"), \
	DM_LAT_MEAN("all"), DM_LAT_MEAN("local"), DM_LAT_MEAN("remote"), \
	DM_LAT_INFLIGHT("all"), DM_LAT_INFLIGHT("local"), \
	DM_LAT_INFLIGHT("remote")
#define DM_LAT_TARGETS4 \
	DM_LAT("all"), DM_LAT("local"), DM_LAT("remote"), DM_LAT("dram"), \
	DM_LAT_MEAN("all"), DM_LAT_MEAN("local"), DM_LAT_MEAN("remote"), \
	DM_LAT_MEAN("dram"), \
	DM_LAT_INFLIGHT("all"), DM_LAT_INFLIGHT("local"), \
	DM_LAT_INFLIGHT("remote"), DM_LAT_INFLIGHT("dram")
#define DM_LAT_TARGETS5 \
	DM_LAT("all"), DM_LAT("local"), DM_LAT("remote"), DM_LAT("dram"), \
	DM_LAT("pmem"), \
	DM_LAT_MEAN("all"), DM_LAT_MEAN("local"), DM_LAT_MEAN("remote"), \
	DM_LAT_MEAN("dram"), DM_LAT_MEAN("pmem"), \
	DM_LAT_INFLIGHT("all"), DM_LAT_INFLIGHT("local"), \
	DM_LAT_INFLIGHT("remote"), DM_LAT_INFLIGHT("dram"), \
	DM_LAT_INFLIGHT("pmem")

/*
 * Xeon Scalable CHAs (skx, icx, spr, gnr): the sources of target t, the
 * TOR occupancy (0x36, counter 0 only: the "Counter" field of Intel's
 * data is "0" for every TOR_OCCUPANCY event, the catalogs' ctr_mask 0x1)
 * and inserts (0x35) of one encoding, counted in every CHA; the clock of
 * one CHA is the mean of the CHAs' UNC_CHA_CLOCKTICKS (Intel's
 * llc_demand_data_read_miss_latency divides the summed clockticks by
 * CHAS_PER_SOCKET).  Occupancy and inserts of a target are always in
 * one group of each CHA (the scheduler keeps a unit's events that share
 * a derived source's family together), so a multiplexed interval scales
 * both alike.
 */
#define DS_LAT_CLOCK_CHA { "lat_clock", "UNC_CHA_CLOCKTICKS", 1, true, 0 }
#define DS_LAT(t, occ, ins) \
	{ "lat_occ_" t, occ, 1, false, 0 }, { "lat_ins_" t, ins, 1, false, 0 }
/* icx and later: one UMaskExt variant of IA_MISS_DRD a target */
#define DS_LAT_XSP(t, sfx) \
	DS_LAT(t, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD" sfx, \
	       "UNC_CHA_TOR_INSERTS.IA_MISS_DRD" sfx)

/*
 * The memory controllers' read queue (issue 41): RPQ occupancy (source
 * "rpq_occ", both pseudo-channels' events summed, over every channel of
 * the socket) over one channel's DRAM clock ("rpq_clock", a per-box
 * mean), and the reads inserted ("rpq_ins"), a summary as DM_LAT.  The
 * time a read waits in the controller until its CAS, shorter than the
 * TOR's (facts sheet section 2; Intel's CLX Info_System_MEM_DRAM_Read_
 * Latency = UNC_M_RPQ_OCCUPANCY / UNC_M_RPQ_INSERTS / UNC_M_CLOCKTICKS).
 */
#define DM_RPQ_NAME "uncore_dram_read_queue_latency_seconds"
#define DM_RPQ_HELP "Reads in the memory controllers' read pending " \
	"queues (RPQ), every channel and pseudo-channel: the time in the " \
	"controller only, shorter than uncore_memory_read_latency_seconds; " \
	"_sum request-seconds (occupancy / one channel's DRAM clock), " \
	"_count the reads (doc/metrics.md)."
#define DM_RPQ \
	{ DM_RPQ_NAME, "dram_read_queue_latency_seconds_sum", DM_RPQ_HELP, \
	  "seconds", DM_SUM, NULL, { NULL }, \
	  { DF_SRC("rpq_occ"), DF_SRC("rpq_clock"), DF_RATE, DF_RATIO } }, \
	{ DM_RPQ_NAME, "dram_read_queue_latency_seconds_count", DM_RPQ_HELP, \
	  "seconds", DM_COUNT, NULL, { NULL }, { DF_SRC("rpq_ins") } }
/* icx: both pseudo-channels (spr's four RPQ events and its clock need
 * five of the channel's four counters: doc/hardware-notes.md) */
#define DS_RPQ_PCH(clock) \
	{ "rpq_occ", "UNC_M_RPQ_OCCUPANCY_PCH0", 1, false, 0 }, \
	{ "rpq_occ", "UNC_M_RPQ_OCCUPANCY_PCH1", 1, false, 0 }, \
	{ "rpq_ins", "UNC_M_RPQ_INSERTS.PCH0", 1, false, 0 }, \
	{ "rpq_ins", "UNC_M_RPQ_INSERTS.PCH1", 1, false, 0 }, \
	{ "rpq_clock", clock, 1, true, 0 }

/*
 * AMD (zen4, zen5): the L3's sampled latency (amd_l3 event 0xAC
 * l3_xi_sampled_latency, in units of 10 ns: Linux amdzen5
 * recommended.json l3_read_miss_latency = latency x 10 / requests, scale
 * 1 ns) over its sampled requests (0xAD).  Sources "lat_amd_<t>" (the
 * latency count) and "lat_req_<t>" (requests).  Both are sampled: the
 * mean latency is right, but _count counts the sampled fills, not every
 * read, so rate(_sum) is not the reads in flight there (doc/metrics.md).
 */
#define DM_LAT_AMD(t) \
	{ DM_LAT_NAME, "memory_read_latency_" t "_seconds_sum", DM_LAT_HELP, \
	  "seconds", DM_SUM, NULL, { "target", t, NULL }, \
	  { DF_SRC("lat_amd_" t), DF_SCALE(1e-8) } }, \
	{ DM_LAT_NAME, "memory_read_latency_" t "_seconds_count", DM_LAT_HELP, \
	  "seconds", DM_COUNT, NULL, { "target", t, NULL }, \
	  { DF_SRC("lat_req_" t) } }
#define DM_LAT_AMD_MEAN(t) \
	{ "uncore_memory_read_latency_mean_seconds", \
	  "memory_read_latency_" t "_seconds", \
	  "Mean read latency over the last interval.", "seconds", DM_GAUGE, \
	  NULL, { "target", t, NULL }, \
	  { DF_SRC("lat_amd_" t), DF_SCALE(1e-8), DF_SRC("lat_req_" t), \
	    DF_RATIO }, true }

#endif
