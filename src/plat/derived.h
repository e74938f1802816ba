/*
 * derived.h - entries of the derived-metric tables (format in plat.h)
 * that every platform shares: the headline metrics of DESIGN.md section 7
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

#endif
