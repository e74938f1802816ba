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

/*
 * The memory read latency family's figures (doc/metrics.md "Memory read
 * latency"), over the whole window, sum then divide: the TOR (CBo/CHA)
 * occupancy of demand data reads that missed the LLC summed over the
 * socket's boxes, over the clock of one box, is the mean reads in
 * flight; that times the window's seconds over the reads inserted is
 * their mean latency.  Never the mean of per-box ratios.  On zen5 the
 * L3's sampled latency over its sampled requests gives the mean latency
 * (an alternative of the same name); its reads in flight and reads are
 * not the TOR's (the requests are sampled), so they are absent there.
 */
/* zen5: seconds a count of l3_xi_sampled_latency (derived.h DM_LAT_AMD:
 * units of 10 ns, Linux amdzen5 recommended.json l3_read_miss_latency) */
#define ZEN_LAT_S 1e-8
#define LAT_FIGS \
	{ "memory_read_latency", "seconds", "Mean latency of the demand " \
	  "data reads that missed the LLC (TOR occupancy / one box's clock " \
	  "x seconds / inserts, summed over the boxes before dividing).", \
	  GF_LATENCY, { "lat_occ_all", NULL }, { "lat_ins_all", NULL }, \
	  { "lat_clock", NULL }, 0 }, \
	{ "memory_read_latency", "seconds", "Mean latency of the L3's " \
	  "sampled fills from DRAM, near and far (sampled latency x 10 ns / " \
	  "sampled requests, summed over the CCXs before dividing).", \
	  GF_RATIO, { "lat_amd_local", "lat_amd_remote", NULL }, \
	  { "lat_req_local", "lat_req_remote", NULL }, { NULL }, \
	  ZEN_LAT_S }, \
	{ "memory_reads_in_flight", "", "Mean demand data reads that missed " \
	  "the LLC in flight (TOR occupancy / one box's clock).", \
	  GF_IN_FLIGHT, { "lat_occ_all", NULL }, { NULL }, \
	  { "lat_clock", NULL } }, \
	{ "memory_reads", "", "Demand data reads that missed the LLC " \
	  "(TOR inserts).", GF_SUM, { "lat_ins_all", NULL }, { NULL }, \
	  { NULL } }

static const struct evgroup_figure mem_fig[] = {
	{ "dram_read_bytes", "bytes", "Bytes read from DRAM.", GF_SUM,
	  { "dram_rd", NULL }, { NULL }, { NULL } },
	{ "dram_write_bytes", "bytes", "Bytes written to DRAM.", GF_SUM,
	  { "dram_wr", NULL }, { NULL }, { NULL } },
	{ "dram_bytes", "bytes", "Bytes read from and written to DRAM.",
	  GF_SUM, { "dram_rd", "dram_wr", NULL }, { NULL }, { NULL } },
	{ "dram_read_bandwidth", "bytes_per_second", "DRAM read bandwidth "
	  "over the time the counts cover.", GF_PER_SECOND,
	  { "dram_rd", NULL }, { NULL }, { NULL } },
	{ "dram_write_bandwidth", "bytes_per_second", "DRAM write bandwidth "
	  "over the time the counts cover.", GF_PER_SECOND,
	  { "dram_wr", NULL }, { NULL }, { NULL } },
	{ "dram_bandwidth", "bytes_per_second", "DRAM read and write "
	  "bandwidth over the time the counts cover.", GF_PER_SECOND,
	  { "dram_rd", "dram_wr", NULL }, { NULL }, { NULL } },
	LAT_FIGS,
};

static const struct evgroup_figure lat_fig[] = { LAT_FIGS };

/* QPI (hsx, snbep: flits x 8 bytes, manual 2.9.5 QPI_DATA_BW and
 * QPI_LINK_BW) and UPI (skx and later: data flits x 64/9, Intel's
 * upi_data_transmit_bw), summed over the socket's ports: what it sent. */
static const struct evgroup_figure qpi_fig[] = {
	{ "qpi_data_bytes", "bytes", "QPI data sent, over the socket's "
	  "ports.", GF_SUM, { "qpi_data", NULL }, { NULL }, { NULL } },
	{ "qpi_link_bytes", "bytes", "QPI data and non-data flits sent, "
	  "over the socket's ports.", GF_SUM,
	  { "qpi_data", "qpi_nondata", NULL }, { NULL }, { NULL } },
	{ "qpi_data_bandwidth", "bytes_per_second", "QPI data sent per "
	  "second over the time the counts cover.", GF_PER_SECOND,
	  { "qpi_data", NULL }, { NULL }, { NULL } },
	{ "qpi_link_bandwidth", "bytes_per_second", "QPI data and non-data "
	  "flits sent per second over the time the counts cover.",
	  GF_PER_SECOND, { "qpi_data", "qpi_nondata", NULL }, { NULL },
	  { NULL } },
};

static const struct evgroup_figure upi_fig[] = {
	{ "upi_data_bytes", "bytes", "UPI data sent, over the socket's "
	  "links.", GF_SUM, { "upi_data", NULL }, { NULL }, { NULL } },
	{ "upi_data_bandwidth", "bytes_per_second", "UPI data sent per "
	  "second over the time the counts cover.", GF_PER_SECOND,
	  { "upi_data", NULL }, { NULL }, { NULL } },
};

static const struct evgroup_figure llc_fig[] = {
	{ "llc_lookups", "", "LLC lookups.", GF_SUM, { "lookups", NULL },
	  { NULL }, { NULL } },
	{ "llc_misses", "", "LLC lookups that missed.", GF_SUM,
	  { "misses", NULL }, { NULL }, { NULL } },
	{ "llc_hit_ratio", "ratio", "1 - misses / lookups.",
	  GF_ONE_MINUS_RATIO, { "misses", NULL }, { "lookups", NULL },
	  { NULL } },
	{ "llc_miss_ratio", "ratio", "misses / lookups.", GF_RATIO,
	  { "misses", NULL }, { "lookups", NULL }, { NULL } },
};

#define NFIG(a) (sizeof(a) / sizeof((a)[0]))

#define LAT_SRC "lat_occ_all", "lat_ins_all", "lat_clock", "lat_amd_local", \
	"lat_amd_remote", "lat_req_local", "lat_req_remote"

const struct evgroup evgroup_all[] = {
	{ "MEM", "DRAM traffic: bytes read and written, bandwidth, and the "
	  "read latency where the platform counts it.",
	  { "dram_rd", "dram_wr", NULL }, { LAT_SRC, NULL }, mem_fig,
	  NFIG(mem_fig) },
	{ "LLC", "Last-level cache lookups, misses and hit ratio.",
	  { "lookups", "misses", NULL }, { NULL }, llc_fig, NFIG(llc_fig) },
	{ "MEM_LATENCY", "Memory read latency and reads in flight (demand "
	  "data reads that missed the LLC).", { NULL }, { LAT_SRC, NULL },
	  lat_fig, NFIG(lat_fig) },
	{ "QPI", "QPI traffic sent: data and link bytes, and bandwidth.",
	  { "qpi_data", "qpi_nondata", NULL }, { NULL }, qpi_fig,
	  NFIG(qpi_fig) },
	{ "UPI", "UPI data sent: bytes and bandwidth.", { "upi_data", NULL },
	  { NULL }, upi_fig, NFIG(upi_fig) },
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
	case GF_IN_FLIGHT:
		return "in_flight";
	case GF_LATENCY:
		return "latency";
	}
	return "?";
}
