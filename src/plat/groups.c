/*
 * groups.c - the named groups (group.h): what each measures, over the
 * derived table's headline sources (derived.h: "dram_rd" and "dram_wr"
 * in bytes, 64 a transfer; "lookups" and "misses" of the LLC), so that
 * a figure means the same whatever the platform calls its events.  The
 * events behind each source and their scale are the platform's
 * derived_<id>.c, with the manual's table cited there.
 *
 * Adding a group is an entry here (and its test in
 * tests/scenario/uncorectl_run.sh); a platform gets it by defining the
 * sources.
 */
#include "config.h"

#include "plat/group.h"

static const struct evgroup_figure mem_fig[] = {
	{ "dram_read_bytes", "bytes", "Bytes read from DRAM.", GF_SUM,
	  { "dram_rd", NULL }, { NULL } },
	{ "dram_write_bytes", "bytes", "Bytes written to DRAM.", GF_SUM,
	  { "dram_wr", NULL }, { NULL } },
	{ "dram_bytes", "bytes", "Bytes read from and written to DRAM.",
	  GF_SUM, { "dram_rd", "dram_wr", NULL }, { NULL } },
	{ "dram_read_bandwidth", "bytes_per_second", "DRAM read bandwidth "
	  "over the time the counts cover.", GF_PER_SECOND,
	  { "dram_rd", NULL }, { NULL } },
	{ "dram_write_bandwidth", "bytes_per_second", "DRAM write bandwidth "
	  "over the time the counts cover.", GF_PER_SECOND,
	  { "dram_wr", NULL }, { NULL } },
	{ "dram_bandwidth", "bytes_per_second", "DRAM read and write "
	  "bandwidth over the time the counts cover.", GF_PER_SECOND,
	  { "dram_rd", "dram_wr", NULL }, { NULL } },
};

static const struct evgroup_figure llc_fig[] = {
	{ "llc_lookups", "", "LLC lookups.", GF_SUM, { "lookups", NULL },
	  { NULL } },
	{ "llc_misses", "", "LLC lookups that missed.", GF_SUM,
	  { "misses", NULL }, { NULL } },
	{ "llc_hit_ratio", "ratio", "1 - misses / lookups.",
	  GF_ONE_MINUS_RATIO, { "misses", NULL }, { "lookups", NULL } },
	{ "llc_miss_ratio", "ratio", "misses / lookups.", GF_RATIO,
	  { "misses", NULL }, { "lookups", NULL } },
};

const struct evgroup evgroup_all[] = {
	{ "MEM", "DRAM traffic: bytes read and written, and bandwidth.",
	  { "dram_rd", "dram_wr", NULL }, mem_fig,
	  sizeof(mem_fig) / sizeof(mem_fig[0]) },
	{ "LLC", "Last-level cache lookups, misses and hit ratio.",
	  { "lookups", "misses", NULL }, llc_fig,
	  sizeof(llc_fig) / sizeof(llc_fig[0]) },
};
const size_t evgroup_count = sizeof(evgroup_all) / sizeof(evgroup_all[0]);

const char *evgroup_kind_name(enum evgroup_kind k)
{
	switch (k) {
	case GF_SUM:
		return "sum";
	case GF_PER_SECOND:
		return "per_second";
	case GF_RATIO:
		return "ratio";
	case GF_ONE_MINUS_RATIO:
		return "one_minus_ratio";
	}
	return "?";
}
