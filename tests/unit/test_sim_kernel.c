/*
 * test_sim_kernel.c - the simulated kernel (src/sim/sim_kernel.c,
 * sim_pmu.c): its sysfs tree byte for byte, every refusal it models
 * (each with the kernel rule it mirrors), group reads and ids, counting
 * against a fake clock (exact to +-1 event), the workload's perf faults,
 * and the decoding of split and wide format fields.
 *
 * A platform of the test's own ("tp") carries kernel PMU facts shaped
 * like the real ones: an icx-like CHA with a 32-bit umask in
 * "config:8-15,32-55" and a box filter in config1, an iMC with a fixed
 * counter on the same PMU and free-running byte counters on a PMU of
 * their own, an amd_df-like data fabric with a 14-bit event in
 * "config:0-7,32-37" and a 12-bit umask in "config:8-15,24-27", and an
 * amd_l3-like PMU with three boxes per socket.
 */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw/hw.h"
#include "sim/hw_sim.h"
#include "hw/perf_event.h"
#include "hw/perf_sysfs.h"
#include "plat/plat.h"
#include "sim/sim_kernel.h"
#include "sim/sim_pmu.h"
#include "tests/tap.h"

/* ---- the test platform ------------------------------------------------- */

static const struct reg_field tp_filt_fields[] = {
	{ "tid", 0, 8, ACC_RW },
	{ "state", 17, 26, ACC_RW },
};
static const struct reg_layout tp_filt_layout = {
	"TP_CHA_FILTER0", "test", 64, tp_filt_fields, 2,
};
static const struct unit_filter tp_cha_filters[] = {
	{ "TP_CHA_FILTER0", EVF_FILTER0, 0, NULL, NULL, &tp_filt_layout },
};
static const struct perf_fact tp_cha_format[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15,32-55", NULL, NULL },
	{ "edge", "config:18", NULL, NULL },
	{ "inv", "config:23", NULL, NULL },
	{ "thresh", "config:24-31", NULL, NULL },
	{ "filter_tid", "config1:0-8", NULL, NULL },
	{ "filter_state", "config1:17-26", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};
static const struct perf_fact tp_cha_events[] = {
	{ "clockticks", "event=0x00,umask=0x00", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};
static const struct perf_filter_map tp_cha_fmap[] = {
	{ 0, "tid", "filter_tid" },
	{ 0, "state", "filter_state" },
	{ 0, NULL, NULL },
};
static const struct perf_unit tp_cha_perf = {
	.pmu = "uncore_cha_%u", .source = "test: icx-like CHA",
	.format = tp_cha_format, .events = tp_cha_events,
	.filters = tp_cha_fmap,
};
static const struct unit_type tp_cha = {
	.name = "cha", .kind = UNIT_PROG, .max_inst = 4, .nctr = 4,
	.width = 48,
	.fmt = { .ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = 32,
		 .thresh_lo = 24, .thresh_w = 8, .inv_bit = 23, .edge_bit = 18,
		 .en_bit = 22, .ovf_en_bit = 0xff, .rst_bit = 0xff },
	.filters = tp_cha_filters, .nfilters = 1, .perf = &tp_cha_perf,
};

static const struct perf_fact tp_imc_format[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};
static const struct perf_fact tp_imc_events[] = {
	{ "cas_count_read", "event=0x04,umask=0x03", "6.103515625e-5", "MiB" },
	{ NULL, NULL, NULL, NULL },
};
static const struct perf_unit tp_imc_perf = {
	.pmu = "uncore_imc_%u", .source = "test: hsx-like iMC",
	.format = tp_imc_format, .events = tp_imc_events,
};
static const struct perf_unit tp_imc_fixed_perf = {
	.pmu = "uncore_imc_%u", .source = "test: its fixed counter",
	.format = tp_imc_format, .fixed = "event=0xff",
};
static const struct unit_type tp_imc = {
	.name = "imc", .kind = UNIT_PROG, .max_inst = 2, .nctr = 2,
	.width = 48,
	.fmt = { .ev_w = 8, .umask_lo = 8, .umask_w = 8, .inv_bit = 0xff,
		 .edge_bit = 0xff, .en_bit = 22, .ovf_en_bit = 0xff,
		 .rst_bit = 0xff },
	.perf = &tp_imc_perf,
};
static const struct unit_type tp_imc_fixed = {
	.name = "imc_fixed", .kind = UNIT_FIXED, .max_inst = 2, .nctr = 1,
	.width = 48, .perf = &tp_imc_fixed_perf,
};

static const struct perf_fact tp_free_events[] = {
	{ "data_read", "event=0xff,umask=0x20", "6.103515625e-5", "MiB" },
	{ "data_write", "event=0xff,umask=0x30", "6.103515625e-5", "MiB" },
	{ NULL, NULL, NULL, NULL },
};
static const struct perf_unit tp_free_perf = {
	.pmu = "uncore_imc_free_running_%u", .source = "test: icx-like",
	.format = tp_imc_format, .events = tp_free_events,
};
static const struct freerun_ctr tp_free_ctrs[] = {
	{ "DATA_READ", 0, 48, 8, "bytes read / 64", 1e10, false, NULL,
	  "data_read" },
	{ "DATA_WRITE", 0, 48, 8, "bytes written / 64", 1e10, false, NULL,
	  "data_write" },
};
static const struct unit_type tp_free = {
	.name = "imc_free", .kind = UNIT_FREERUN, .max_inst = 2,
	.freerun = tp_free_ctrs, .nfreerun = 2, .perf = &tp_free_perf,
};

static const struct perf_fact tp_df_format[] = {
	{ "event", "config:0-7,32-37", NULL, NULL },
	{ "umask", "config:8-15,24-27", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};
static const struct perf_unit tp_df_perf = {
	.pmu = "tp_df", .source = "test: amd_df-like", .since = "6.7",
	.format = tp_df_format,
};
static const struct unit_type tp_df = {
	.name = "df", .kind = UNIT_PROG, .max_inst = 1, .nctr = 4,
	.width = 48,
	.fmt = { .ev_w = 14, .umask_w = 12, .inv_bit = 0xff, .edge_bit = 0xff,
		 .en_bit = 22, .ovf_en_bit = 0xff, .rst_bit = 0xff },
	.perf = &tp_df_perf,
};

static const struct perf_fact tp_l3_format[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-15", NULL, NULL },
	{ "threadmask", "config:56-57", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};
static const struct perf_unit tp_l3_perf = {
	.pmu = "tp_l3", .source = "test: amd_l3-like", .format = tp_l3_format,
};
static const struct unit_type tp_l3 = {
	.name = "l3", .kind = UNIT_PROG, .max_inst = 3, .nctr = 2,
	.width = 48,
	.fmt = { .ev_w = 8, .umask_w = 8, .inv_bit = 0xff, .edge_bit = 0xff,
		 .en_bit = 22, .ovf_en_bit = 0xff, .rst_bit = 0xff },
	.perf = &tp_l3_perf,
};

/* skl-like: a fixed counter on the first box's PMU only */
static const struct perf_unit tp_clock_perf = {
	.pmu = "uncore_cha_0", .source = "test: skl-like UCLK on cbox 0",
	.format = tp_cha_format, .fixed = "event=0xff",
};
static const struct unit_type tp_clock = {
	.name = "clock", .kind = UNIT_FIXED, .max_inst = 1, .nctr = 1,
	.width = 48, .perf = &tp_clock_perf,
};

static const struct unit_type *const tp_units[] = {
	&tp_cha, &tp_imc, &tp_imc_fixed, &tp_free, &tp_df, &tp_l3, &tp_clock,
	NULL,
};
static const struct event tp_events[] = {
	/* counter 0 only, like skl's ARB occupancy events */
	{ .name = "TP_CHA_OCC", .unit = "cha", .code = 0x11, .umask = 0,
	  .ctr_mask = 0x1, .source = "test" },
};
static const struct cpu_match tp_cpus[] = { { 0, 0, 0, 0 } };
static const struct platform tp = {
	.id = "tp", .name = "test platform", .cpus = tp_cpus,
	.units = tp_units, .events = tp_events, .nevents = 1,
	.backends = PLAT_BE_PERF,
};
static struct platform tp_amd;

/* ---- the world: workload, simulator, simulated kernel ------------------ */

/* The fake clock; atomic, as the threads test reads it from several
 * threads while one advances it. */
static _Atomic int64_t fake_ns = 1000000000000ll;

static int64_t fake_clock(void *ctx)
{
	(void)ctx;
	return fake_ns;
}

static void advance(double s)
{
	fake_ns += (int64_t)(s * 1e9 + 0.5);
}

static char tmpdir[] = "/tmp/test_sim_kernel_XXXXXX";
static struct hw hw;
static struct skern *k;

/* Opens the simulated kernel of platform p on workload text (wrapped in
 * {"platform": "tp", ... }); 0 or -errno (message in why). */
static int world(const struct platform *p, const char *body, char *why,
		 size_t len)
{
	char path[300];
	struct hw_opts o = { .sim_no_registers = true, .sim_plat = p };
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "%s/wl.json", tmpdir);
	f = fopen(path, "w");
	fprintf(f, "{ \"platform\": \"tp\", %s }\n", body);
	fclose(f);
	o.sim_workload = path;
	r = hw_open(&hw, &hw_sim_ops, &o);
	if (r < 0) {
		snprintf(why, len, "%s", hw_last_error());
		return r;
	}
	hw_sim_set_clock(&hw, fake_clock, NULL);
	r = skern_open(&k, &hw, NULL, why, len);
	if (r < 0)
		hw_close(&hw);
	return r;
}

static void world_end(void)
{
	skern_close(k);
	k = NULL;
	hw_close(&hw);
}

#define PH(rates) "\"phases\": [ { \"seconds\": 1000, \"rates\": {" rates "} } ]"

static const char *basic_body =
	"\"sockets\": 2, \"uclk_hz\": 1000000000, "
	PH("\"cha:0x34:0x11\": 4.0e6, \"cha:0x34:0x11@3\": 5.0e5, "
	   "\"cha:0x35:0x1234567\": 3.0e6, "
	   "\"cha:0x36:0x01:filter0=0x60005\": 7.0e6, "
	   "\"s1/cha:0x37:0x01:edge:thresh=2\": 9.0e6, "
	   "\"imc:0x04:0x03\": 1.0e8, \"imc_free:DATA_READ\": 2.0e9, "
	   "\"df:0x1f3:0x7fe\": 6.4e7, \"l3:0x04:0xff@1\": 3.0e7");

/* The whole of a small file, or "(missing)". */
static const char *slurp_path(const char *path)
{
	static char buf[4096];
	FILE *f;
	size_t n;

	f = fopen(path, "r");
	if (!f)
		return "(missing)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* slurp_path() of fmt with the sysfs root and name. */
static const char *slurp(const char *fmt, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), fmt, skern_sysfs(k), name);
	return slurp_path(path);
}

/* slurp_path() of PROCFS/rel. */
static const char *proc_file(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", skern_procfs(k), rel);
	return slurp_path(path);
}

/* The type sysfs gives PMU name, or 0. */
static uint32_t type_of(const char *name)
{
	return (uint32_t)strtoul(slurp("%s/devices/%s/type", name), NULL, 10);
}

static int ev_open(uint32_t type, int cpu, uint64_t c0, uint64_t c1,
		   int group, bool disabled)
{
	struct perf_event_attr a = {
		.type = type, .size = sizeof(a), .config = c0, .config1 = c1,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			       PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
		.disabled = disabled,
	};

	return skern_pev_ops.open(k, &a, -1, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

static int ev_open_attr(struct perf_event_attr *a, int cpu, int group)
{
	return skern_pev_ops.open(k, a, -1, cpu, group, 0);
}

static uint64_t ev_id(int fd)
{
	uint64_t id = 0;

	skern_pev_ops.ioctl(k, fd, PERF_EVENT_IOC_ID, (unsigned long)&id);
	return id;
}

static int enable_group(int fd)
{
	return skern_pev_ops.ioctl(k, fd, PERF_EVENT_IOC_ENABLE,
				   PERF_IOC_FLAG_GROUP);
}

/* One group read into v[]: its length in bytes or -errno. */
static long rd(int fd, uint64_t *v, size_t n)
{
	return skern_pev_ops.read(k, fd, v, n * sizeof(*v));
}

/* A single event's count (its group read, member 0). */
static uint64_t count_of(int fd)
{
	uint64_t v[16] = { 0 };

	if (rd(fd, v, 16) < 0)
		return ~0ull;
	return v[3];
}

/* Places v into the bits of mask in ascending order (what perf does). */
static uint64_t spread(uint64_t mask, uint64_t v)
{
	uint64_t out = 0;

	for (unsigned b = 0, i = 0; b < 64; b++)
		if (mask >> b & 1)
			out |= ((v >> i++) & 1) << b;
	return out;
}

#define RF_ALL (PERF_FORMAT_GROUP | PERF_FORMAT_ID | \
		PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
#define CHA_UMASK_MASK 0x00ffffff0000ff00ull	/* config:8-15,32-55 */
#define T_CHA0 10u
#define T_IMC0 14u
#define T_FREE1 17u
#define T_DF 18u
#define T_L3 19u

/* ---- the tree ------------------------------------------------------------ */

static void test_tree(void)
{
	char path[512], link[256];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/uncore_cha_0",
		 skern_sysfs(k));
	n = readlink(path, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	is_str(link, "../../../devices/uncore_cha_0",
	       "bus/event_source/devices/NAME links to devices/NAME");
	is_str(slurp("%s/devices/%s/type", "uncore_cha_0"), "10\n",
	       "types count up from 10");
	is_str(slurp("%s/devices/%s/type", "uncore_cha_3"), "13\n",
	       "one PMU per CHA box");
	is_str(slurp("%s/devices/%s/cpumask", "uncore_cha_2"), "0,8\n",
	       "a per-box PMU's cpumask: one CPU per socket");
	is_str(slurp("%s/devices/%s/format/umask", "uncore_cha_1"),
	       "config:8-15,32-55\n", "format files end in a newline");
	is_str(slurp("%s/devices/%s/format/filter_state", "uncore_cha_1"),
	       "config1:17-26\n", "config1 fields");
	is_str(slurp("%s/devices/%s/events/clockticks", "uncore_cha_1"),
	       "event=0x00,umask=0x00", "event aliases have no newline");
	is_str(slurp("%s/devices/%s/perf_event_mux_interval_ms",
		     "uncore_cha_1"), "4\n", "perf_event_mux_interval_ms");
	is_str(slurp("%s/devices/%s/type", "uncore_imc_1"), "15\n",
	       "imc and imc_fixed make one PMU per channel");
	is_str(slurp("%s/devices/%s/events/cas_count_read.scale",
		     "uncore_imc_0"), "6.103515625e-5", ".scale as the kernel "
	       "writes it");
	is_str(slurp("%s/devices/%s/events/cas_count_read.unit",
		     "uncore_imc_0"), "MiB", ".unit");
	is_str(slurp("%s/devices/%s/events/data_write",
		     "uncore_imc_free_running_1"), "event=0xff,umask=0x30",
	       "free-running PMU's aliases");
	is_str(slurp("%s/devices/%s/type", "uncore_imc_free_running_1"),
	       "17\n", "free-running PMU");
	is_str(slurp("%s/devices/%s/format/event", "tp_df"),
	       "config:0-7,32-37\n", "split event field");
	is_str(slurp("%s/devices/%s/cpumask", "tp_df"), "0,8\n",
	       "one-box unit: one CPU per socket");
	is_str(slurp("%s/devices/%s/cpumask", "tp_l3"), "0,2,4,8,10,12\n",
	       "three boxes per socket: one CPU each");
	is_str(slurp("%s/devices/%s/events/x", "tp_l3"), "(missing)",
	       "no events/ without facts");
	is_str(slurp("%s/devices/system/cpu/%s", "online"), "0-15\n",
	       "two sockets of 8 CPUs");
	is_str(slurp("%s/devices/system/cpu/%s", "cpu0/online"), "(missing)",
	       "cpu0 has no online file (x86)");
	is_str(slurp("%s/devices/system/cpu/%s", "cpu9/online"), "1\n",
	       "cpuN/online");
	is_str(slurp("%s/devices/system/cpu/%s",
		     "cpu9/topology/physical_package_id"), "1\n", "package");
	is_str(slurp("%s/devices/system/cpu/%s", "cpu9/topology/core_id"),
	       "1\n", "core");
	is_str(slurp("%s/devices/system/cpu/%s", "cpu9/topology/die_id"),
	       "0\n", "die");
	is_str(proc_file("sys/kernel/perf_event_paranoid"), "2\n",
	       "perf_event_paranoid defaults to 2");
	is_str(proc_file("sys/kernel/osrelease"), "6.12.0\n",
	       "osrelease defaults to 6.12.0");
	is_str(proc_file("sys/kernel/cap_last_cap"), "40\n",
	       "cap_last_cap of a 6.12 kernel");
	like(proc_file("self/status"), "CapEff:\t0000004000000000",
	     "the caller holds CAP_PERFMON alone");
	ok(skern_capable(k), "capable by default");
}

/* ---- counting ---------------------------------------------------------- */

/* Opens a one-event group on type/cpu, enabled. */
static int single(uint32_t type, int cpu, uint64_t c0, uint64_t c1)
{
	int fd = ev_open(type, cpu, c0, c1, -1, false);

	if (fd < 0)
		printf("# open type %u cpu %d config 0x%llx: %s\n", type, cpu,
		       (unsigned long long)c0, hw_last_error());
	return fd;
}

static void test_group_read(void)
{
	uint64_t v[16], cfg_wide = 0x35 | spread(CHA_UMASK_MASK, 0x1234567);
	int lead, sib;
	long n;

	lead = ev_open(T_CHA0 + 3, 0, 0x34 | 0x11 << 8, 0, -1, true);
	sib = ev_open(T_CHA0 + 3, 5, cfg_wide, 0, lead, false);
	ok(lead >= SKERN_FD_BASE && sib > lead,
	   "descriptors above any real one (%d, %d)", lead, sib);
	is_int(skern_nevents(k), 2, "two events open");
	advance(5);
	n = rd(lead, v, 16);
	is_int(n, 7 * 8, "GROUP|ID|ENABLED|RUNNING of two: 7 u64");
	is_u64(v[0], 2, "nr");
	is_u64(v[1], 0, "the leader was opened disabled: no enabled time");
	is_u64(v[3], 0, "nothing counted before the group is enabled");
	is_int(enable_group(lead), 0, "ENABLE | FLAG_GROUP");
	advance(2);
	n = rd(sib, v, 16);
	is_int(n, 56, "a sibling's GROUP read reads the whole group");
	is_u64(v[1], 2000000000, "time_enabled 2 s");
	is_u64(v[2], 2000000000, "time_running 2 s");
	is_u64(v[4], ev_id(lead), "leader first, with its id");
	is_u64(v[6], ev_id(sib), "then the sibling, with its id");
	ok(ev_id(lead) != ev_id(sib), "ids differ");
	/* box 3: 4e6/4 split + 5e5 for @3 */
	ok(v[3] >= 2999999 && v[3] <= 3000001,
	   "split key + @3 key on box 3: 1.5e6/s x 2 s (%llu)",
	   (unsigned long long)v[3]);
	/* wide umask 0x1234567 in config:8-15,32-55 */
	ok(v[5] >= 1499999 && v[5] <= 1500001,
	   "umask 0x1234567 decoded from config:8-15,32-55 (%llu)",
	   (unsigned long long)v[5]);
	uint64_t first = v[3];
	advance(1);
	rd(lead, v, 16);
	ok(v[3] - first >= 1499999 && v[3] - first <= 1500001,
	   "two reads 1 s apart differ by rate x 1 s +- 1");
	is_int(rd(lead, v, 6), -ENOSPC, "a buffer below the record: ENOSPC");
	is_int(skern_pev_ops.ioctl(k, lead, PERF_EVENT_IOC_RESET,
				   PERF_IOC_FLAG_GROUP), 0, "RESET group");
	rd(lead, v, 16);
	ok(v[3] == 0 && v[5] == 0 && v[1] == 3000000000ull,
	   "RESET zeroes the counts and keeps the times");
	/* closing the leader makes the sibling a group of its own */
	is_int(skern_pev_ops.close(k, lead), 0, "close the leader");
	advance(1);
	n = rd(sib, v, 16);
	ok(n == 5 * 8 && v[0] == 1, "the sibling reads as a group of one");
	ok(v[3] >= 749999 && v[3] <= 750001,
	   "and keeps counting: 7.5e5/s x 1 s (%llu)",
	   (unsigned long long)v[3]);
	is_int(skern_pev_ops.close(k, sib), 0, "close");
	is_int(skern_pev_ops.close(k, sib), -EBADF, "close twice: EBADF");
	is_int(skern_nevents(k), 0, "nothing open");
}

/* Counts of one event per rate key over 4 s. */
static void test_counting(void)
{
	struct { uint32_t type; int cpu; uint64_t c0, c1; double rate;
		 const char *what; } t[] = {
		{ T_CHA0, 0, 0x36 | 1 << 8, 5 | 3 << 17, 7e6 / 4,
		  "filter fields of config1 -> FILTER0 0x60005" },
		{ T_CHA0, 0, 0x36 | 1 << 8, 6 | 3 << 17, 0,
		  "another filter value counts nothing" },
		{ T_CHA0 + 1, 8, 0x37 | 1 << 8 | 1 << 18 | 2u << 24, 0,
		  9e6 / 4, "edge and thresh, socket 1 key on a socket-1 CPU" },
		{ T_CHA0 + 1, 0, 0x37 | 1 << 8 | 1 << 18 | 2u << 24, 0, 0,
		  "the socket 1 key does not count on socket 0" },
		{ T_IMC0, 3, 0xff, 0, 1e9, "fixed counter: the uncore clock" },
		{ T_CHA0, 9, 0xff, 0, 1e9, "a plain-named fixed unit on the "
		  "first box's PMU (skl's uncore_cbox_0)" },
		{ T_CHA0 + 1, 9, 0xff, 0, 0, "other boxes: event 0xff" },
		{ T_IMC0 + 1, 3, 0x04 | 0x03 << 8, 0, 1e8 / 2,
		  "programmable iMC event, split over 2 channels" },
		{ T_FREE1, 9, 0xff | 0x20 << 8, 0, 2e9 / 2,
		  "free-running data_read by its alias's config" },
		{ T_DF, 0, 0xf3 | 1ull << 32 | 0xfe << 8 | 7u << 24, 0, 6.4e7,
		  "14-bit event and 12-bit umask of split fields" },
		{ T_L3, 3, 0x04 | 0xff << 8, 0, 3e7,
		  "l3: CPU 3 is in box 1 (moved to CPU 2)" },
		{ T_L3, 6, 0x04 | 0xff << 8, 0, 0, "l3: CPU 6 is box 2" },
		{ T_L3, 2, 0x04 | 0xff << 8 | 3ull << 56, 0, 3e7,
		  "fields that select nothing (threadmask) are accepted" },
	};
	int fd[sizeof(t) / sizeof(t[0])];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		fd[i] = single(t[i].type, t[i].cpu, t[i].c0, t[i].c1);
	advance(4);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t c = count_of(fd[i]), want = (uint64_t)(t[i].rate * 4);

		ok(c + 1 >= want && c <= want + 1, "%s: %llu, want %llu +- 1",
		   t[i].what, (unsigned long long)c, (unsigned long long)want);
		skern_pev_ops.close(k, fd[i]);
	}
}

/* ---- refusals ------------------------------------------------------------ */

static void test_refusals(void)
{
	struct perf_event_attr a = { .type = T_CHA0, .size = sizeof(a),
				     .config = 0x34 };
	int g, x[8];
	uint64_t v[16];

	is_int(ev_open(99, 0, 0x34, 0, -1, false), -ENOENT,
	       "unknown type: ENOENT (perf_init_event)");
	like(hw_last_error(), "no PMU of type 99", "message names the type");
	is_int(skern_pev_ops.open(k, &a, 1234, 0, -1, 0), -EINVAL,
	       "pid != -1: EINVAL (no task context)");
	is_int(ev_open(T_CHA0, -1, 0x34, 0, -1, false), -EINVAL, "cpu -1");
	is_int(ev_open(T_CHA0, 16, 0x34, 0, -1, false), -EINVAL,
	       "a CPU the machine lacks: EINVAL (perf_event_alloc)");
	a.exclude_kernel = 1;
	is_int(ev_open_attr(&a, 0, -1), -EINVAL,
	       "exclude_kernel: EINVAL (PERF_PMU_CAP_NO_EXCLUDE)");
	a.exclude_kernel = 0;
	a.exclude_hv = 1;
	is_int(ev_open_attr(&a, 0, -1), -EINVAL, "exclude_hv: EINVAL");
	a.exclude_hv = 0;
	a.sample_period = 100000;
	is_int(ev_open_attr(&a, 0, -1), -EINVAL,
	       "sampling: EINVAL (uncore_pmu_event_init)");
	a.sample_period = 0;
	a.freq = 1;
	a.sample_freq = 1000;
	is_int(ev_open_attr(&a, 0, -1), -EINVAL, "freq sampling: EINVAL");
	a.freq = 0;
	a.sample_freq = 0;
	a.config = 0x34 | 1 << 16;
	is_int(ev_open_attr(&a, 0, -1), -EINVAL,
	       "config bit 16 is in no format field: EINVAL");
	like(hw_last_error(), "0x10000", "the message names the bits");
	a.config = 0x34;
	a.config2 = 1;
	is_int(ev_open_attr(&a, 0, -1), -EINVAL, "config2 without fields");
	a.config2 = 0;
	a.size = 8;
	is_int(ev_open_attr(&a, 0, -1), -E2BIG, "attr.size below VER0: E2BIG");
	a.size = sizeof(a);
	a.read_format = 1u << 5;
	is_int(ev_open_attr(&a, 0, -1), -EINVAL, "unknown read_format bit");
	a.read_format = 1u << 4;
	g = ev_open_attr(&a, 0, -1);
	ok(g >= 0, "PERF_FORMAT_LOST on a 6.12 kernel");
	is_int(rd(g, v, 8), 16, "value and lost");
	skern_pev_ops.close(k, g);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	a.config = 0x34 | 0x11 << 8;
	g = ev_open_attr(&a, 0, -1);
	advance(1);
	is_int(rd(g, v, 8), 32, "one event without GROUP: 4 words");
	ok(v[0] >= 999999 && v[0] <= 1000001 && v[1] == 1000000000 &&
	   v[2] == 1000000000 && v[3] == ev_id(g),
	   "value, time_enabled, time_running, id");
	skern_pev_ops.close(k, g);
	a.read_format = 0;
	g = ev_open_attr(&a, 0, -1);
	advance(1);
	is_int(rd(g, v, 8), 8, "read_format 0: the value alone");
	ok(v[0] >= 999999 && v[0] <= 1000001, "1e6 on box 0 in 1 s");
	skern_pev_ops.close(k, g);
	a.config = 0x34;
	is_int(ev_open(T_FREE1, 0, 0x10ff, 0, -1, false), -EINVAL,
	       "a free-running PMU's config that is no counter: EINVAL");

	/* groups */
	g = ev_open(T_CHA0, 0, 0x01, 0, -1, true);
	for (int i = 0; i < 3; i++)
		x[i] = ev_open(T_CHA0, 0, 0x02 + i, 0, g, false);
	ok(g >= 0 && x[0] >= 0 && x[1] >= 0 && x[2] >= 0,
	   "a group of 4 on a 4-counter CHA");
	is_int(ev_open(T_CHA0, 0, 0x05, 0, g, true), -EINVAL,
	       "a fifth, even disabled: EINVAL (uncore_validate_group "
	       "counts the new event whatever its state)");
	like(hw_last_error(), "does not fit a uncore_cha_0 box (4 counters",
	     "the message names the box and its counters");
	skern_pev_ops.ioctl(k, x[2], PERF_EVENT_IOC_DISABLE, 0);
	x[3] = ev_open(T_CHA0, 0, 0x05, 0, g, false);
	ok(x[3] >= 0, "with a sibling disabled (state OFF: not collected) a "
	   "fifth opens");
	is_int(skern_pev_ops.ioctl(k, x[2], PERF_EVENT_IOC_ENABLE, 0), 0,
	       "and the disabled one can be enabled again");
	enable_group(g);
	advance(1);
	rd(g, v, 16);
	ok(v[0] == 5 && v[1] == 1000000000 && v[2] == 0,
	   "but a group that does not fit never runs (run %llu)",
	   (unsigned long long)v[2]);
	is_int(ev_open(T_CHA0 + 1, 0, 0x06, 0, g, false), -EINVAL,
	       "a member on another PMU: EINVAL");
	is_int(ev_open(T_CHA0, 8, 0x06, 0, g, false), -EINVAL,
	       "a member on another socket's CPU: EINVAL");
	is_int(ev_open(T_CHA0, 0, 0x06, 0, x[0], false), -EINVAL,
	       "a sibling as group_fd: EINVAL");
	is_int(ev_open(T_CHA0, 0, 0x06, 0, SKERN_FD_BASE + 999, false), -EBADF,
	       "group_fd that is no event: EBADF");
	skern_pev_ops.close(k, x[3]);
	rd(g, v, 16);
	is_int(v[0], 4, "closing a member shrinks the group");
	advance(1);
	rd(g, v, 16);
	is_u64(v[2], 1000000000, "and it fits and runs again");
	for (int i = 0; i < 3; i++)
		skern_pev_ops.close(k, x[i]);
	skern_pev_ops.close(k, g);

	g = ev_open(T_CHA0, 0, 0x11, 0, -1, true);
	is_int(ev_open(T_CHA0, 0, 0x11, 0, g, false), -EINVAL,
	       "two counter-0-only events: EINVAL (uncore_assign_events)");
	x[0] = ev_open(T_CHA0, 6, 0x12, 0, g, false);
	ok(x[0] >= 0, "a CPU of the same socket is moved to the box's CPU");
	skern_pev_ops.close(k, x[0]);
	skern_pev_ops.close(k, g);

	g = ev_open(T_IMC0, 0, 0x01, 0, -1, true);
	x[0] = ev_open(T_IMC0, 0, 0x02, 0, g, false);
	x[1] = ev_open(T_IMC0, 0, 0xff, 0, g, false);
	ok(x[0] >= 0 && x[1] >= 0, "2 generic + the fixed counter on an iMC");
	is_int(ev_open(T_IMC0, 0, 0xff, 0, g, false), -EINVAL,
	       "a second fixed event: EINVAL");
	is_int(ev_open(T_IMC0, 0, 0x03, 0, g, false), -EINVAL,
	       "a third generic event: EINVAL");
	skern_pev_ops.close(k, x[0]);
	skern_pev_ops.close(k, x[1]);
	skern_pev_ops.close(k, g);

	g = ev_open(T_FREE1, 0, 0x20ff, 0, -1, true);
	for (int i = 0; i < 6; i++)
		x[i] = ev_open(T_FREE1, 0, i % 2 ? 0x30ff : 0x20ff, 0, g, false);
	ok(x[0] >= 0 && x[5] >= 0, "free-running events take no counter");
	for (int i = 0; i < 6; i++)
		skern_pev_ops.close(k, x[i]);
	is_int(skern_pev_ops.close(k, g), 0, "close");

	is_int(skern_pev_ops.ioctl(k, SKERN_FD_BASE + 999, PERF_EVENT_IOC_ENABLE,
				   0), -EBADF, "ioctl on no event: EBADF");
	g = single(T_CHA0, 0, 0x34, 0);
	is_int(skern_pev_ops.ioctl(k, g, _IO('x', 1), 0), -ENOTTY,
	       "a non-perf ioctl: ENOTTY");
	is_int(skern_pev_ops.ioctl(k, g, PERF_EVENT_IOC_ID, 0), -EFAULT,
	       "IOC_ID without a pointer: EFAULT");
	is_int(rd(SKERN_FD_BASE + 999, v, 8), -EBADF, "read of no event");
	skern_pev_ops.close(k, g);
	is_int(skern_nevents(k), 0, "every event closed");
}

/* Two groups of 3 on one 4-counter box: the kernel rotates them. */
static void test_box_sharing(void)
{
	int g[2], m[4];
	uint64_t v[16];

	for (int j = 0; j < 2; j++) {
		g[j] = ev_open(T_CHA0 + 2, j ? 7 : 0, 0x34 | 0x11 << 8, 0, -1,
			       true);
		m[2 * j] = ev_open(T_CHA0 + 2, 0, 0x01, 0, g[j], false);
		m[2 * j + 1] = ev_open(T_CHA0 + 2, 0, 0x02, 0, g[j], false);
		enable_group(g[j]);
	}
	advance(3);
	rd(g[0], v, 16);
	is_u64(v[1], 3000000000ull, "enabled 3 s");
	is_u64(v[2], 2000000000, "6 events on 4 counters: each group runs "
	       "4/6 of the time");
	ok(v[3] >= 1999999 && v[3] <= 2000001,
	   "and counts that share of its events (%llu)",
	   (unsigned long long)v[3]);
	skern_pev_ops.close(k, g[1]);
	advance(3);
	rd(g[0], v, 16);
	is_u64(v[2], 2000000000 + 3000000000ull * 4 / 5,
	       "the closed leader's members go on as groups of one: 5 "
	       "events, 4/5");
	skern_pev_ops.close(k, m[2]);
	skern_pev_ops.close(k, m[3]);
	advance(3);
	rd(g[0], v, 16);
	is_u64(v[2], 2000000000 + 2400000000ull + 3000000000ull,
	       "alone on the box, it runs all the time");
	skern_pev_ops.close(k, m[0]);
	skern_pev_ops.close(k, m[1]);
	skern_pev_ops.close(k, g[0]);
}

/* ---- faults -------------------------------------------------------------- */

static const char *fault_body =
	"\"sockets\": 2, \"uclk_hz\": 1000000000, "
	PH("\"cha:0x34:0x11\": 4.0e6, \"l3:0x04:0xff\": 3.0e7") ", "
	"\"faults\": ["
	" { \"at\": 10, \"kind\": \"perf_contention\", "
	"   \"target\": \"uncore_imc_*\", \"running\": 0.25, \"seconds\": 10 },"
	" { \"at\": 50, \"kind\": \"pmu_gone\", \"target\": \"tp_l3\" },"
	" { \"at\": 60, \"kind\": \"perf_read_error\", "
	"   \"target\": \"uncore_cha_1\", \"errno\": \"EINTR\", \"count\": 2 },"
	" { \"at\": 60, \"kind\": \"short_read\", \"target\": \"uncore_cha_2\" },"
	" { \"at\": 70, \"kind\": \"perf_read_error\", "
	"   \"target\": \"uncore_cha_3\", \"errno\": \"ENOSPC\" },"
	" { \"at\": 80, \"kind\": \"perf_read_delay\", "
	"   \"target\": \"uncore_cha_2\", \"seconds\": 0.05, \"count\": 2 }"
	"]";

static void test_faults(void)
{
	uint64_t v[16];
	char path[512];
	struct stat st;
	int imc, fix, l3, c1, c2, c3;

	imc = ev_open(T_IMC0, 0, 0xff, 0, -1, false);
	fix = single(T_CHA0, 0, 0x34 | 0x11 << 8, 0);
	l3 = single(T_L3, 0, 0x04 | 0xff << 8, 0);
	c1 = single(T_CHA0 + 1, 0, 0x34 | 0x11 << 8, 0);
	c2 = single(T_CHA0 + 2, 0, 0x34 | 0x11 << 8, 0);
	c3 = single(T_CHA0 + 3, 0, 0x34 | 0x11 << 8, 0);
	advance(10);
	rd(imc, v, 16);
	ok(v[1] == 10000000000ull && v[2] == v[1], "no contention before 10 s");
	advance(10);
	rd(imc, v, 16);
	is_u64(v[1], 20000000000ull, "contention: enabled 20 s");
	is_u64(v[2], 12500000000ull, "running 10 s + 25%% of 10 s");
	ok(v[3] >= 12499999999ull && v[3] <= 12500000001ull,
	   "counting only while running (%llu)", (unsigned long long)v[3]);
	ok((double)v[3] * v[1] / v[2] > 2e10 - 2 &&
	   (double)v[3] * v[1] / v[2] < 2e10 + 2,
	   "scaled by enabled/running: the clock over 20 s");
	rd(fix, v, 16);
	is_u64(v[2], 20000000000ull, "the CHA PMUs are not contended");
	advance(10);
	rd(imc, v, 16);
	is_u64(v[2], 22500000000ull, "contention ends after its seconds");

	advance(19.5);	/* t = 49.5 */
	ok(count_of(l3) != ~0ull, "l3 reads before it is gone");
	snprintf(path, sizeof(path), "%s/devices/tp_l3", skern_sysfs(k));
	advance(1);
	is_int(rd(l3, v, 16), -ENODEV, "pmu_gone: reads fail ENODEV");
	ok(stat(path, &st) < 0 && errno == ENOENT, "its directory is gone");
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/tp_l3",
		 skern_sysfs(k));
	ok(lstat(path, &st) < 0, "and its bus link");
	is_int(ev_open(T_L3, 0, 0x04, 0, -1, false), -ENOENT,
	       "opening its type: ENOENT");
	is_int(skern_pev_ops.ioctl(k, l3, PERF_EVENT_IOC_ENABLE, 0), -ENODEV,
	       "ioctl: ENODEV");
	is_int(skern_pev_ops.close(k, l3), 0, "close still works");

	advance(10);	/* t = 60.5 */
	is_int(rd(c1, v, 16), -EINTR, "perf_read_error EINTR, first");
	is_int(rd(c1, v, 16), -EINTR, "second");
	is_int(rd(c1, v, 16), 40, "then reads again");
	is_int(rd(c2, v, 16), 32, "short_read: one u64 short");
	is_int(rd(c2, v, 16), 40, "once");
	is_int(rd(c3, v, 16), 40, "read errors start at their time");
	advance(10);
	is_int(rd(c3, v, 16), -ENOSPC, "perf_read_error ENOSPC");
	advance(10);	/* t = 80.5: two reads of uncore_cha_2 held 50 ms */
	for (int i = 0; i < 3; i++) {
		struct timespec t0, t1;
		double el;
		int n;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		n = rd(c2, v, 16);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		el = (double)(t1.tv_sec - t0.tv_sec) +
		     (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		is_int(n, 40, "perf_read_delay: read %d whole", i + 1);
		if (i < 2)
			ok(el >= 0.05, "perf_read_delay: read %d held 50 ms "
			   "(%.3f s)", i + 1, el);
	}
	skern_pev_ops.close(k, imc);
	skern_pev_ops.close(k, fix);
	skern_pev_ops.close(k, c1);
	skern_pev_ops.close(k, c2);
	skern_pev_ops.close(k, c3);
}

/* The simulator's stuck fault on a free-running counter stops the events
 * that read it, on the socket it names, from its time on; the kernel's
 * times go on. */
static const char *stuck_body =
	"\"sockets\": 2, \"uclk_hz\": 1000000000, "
	PH("\"imc_free:DATA_READ\": 2.0e9") ", "
	"\"faults\": [ { \"at\": 5, \"kind\": \"stuck\", "
	"\"target\": \"s1/imc_free:DATA_READ\" } ]";

static void test_stuck(void)
{
	uint64_t v[16];
	int s0 = single(T_FREE1, 0, 0xff | 0x20 << 8, 0);
	int s1 = single(T_FREE1, 9, 0xff | 0x20 << 8, 0);

	advance(4);
	is_u64(count_of(s1), 4000000000ull, "stuck: counts 1e9/s before 5 s");
	advance(2);
	is_u64(count_of(s1), 5000000000ull, "stuck at 5 s: socket 1 stops there");
	is_u64(count_of(s0), 6000000000ull, "socket 0 goes on");
	advance(10);
	rd(s1, v, 16);
	is_u64(v[3], 5000000000ull, "and stays stuck");
	is_u64(v[1], 16000000000ull, "while its time_enabled goes on");
	is_u64(v[2], v[1], "and it runs: the kernel sees nothing wrong");
	is_u64(count_of(s0), 16000000000ull, "socket 0 still counts");
	skern_pev_ops.close(k, s0);
	skern_pev_ops.close(k, s1);
}

/* ---- privilege, missing PMUs, kernel versions ------------------------- */

static void test_privilege(void)
{
	static const struct { const char *perf; int want, want_excl;
			      int unknown; const char *what; } t[] = {
		{ "\"paranoid\": 2, \"cap_perfmon\": false", -EACCES, -EINVAL,
		  -EACCES, "paranoid 2 without CAP_PERFMON: EACCES before "
		  "anything (perf_allow_kernel); with exclude_kernel the PMU "
		  "refuses first" },
		{ "\"paranoid\": 1, \"cap_perfmon\": false", -EACCES, -EINVAL,
		  -ENOENT, "paranoid 1: EACCES for a CPU-wide event, after the "
		  "PMU's checks (perf_allow_cpu)" },
		{ "\"paranoid\": 0, \"cap_perfmon\": false", 0, -EINVAL,
		  -ENOENT, "paranoid 0: anyone" },
		{ "\"paranoid\": -1, \"cap_perfmon\": false", 0, -EINVAL,
		  -ENOENT, "paranoid -1: anyone" },
		{ "\"paranoid\": 3", -EACCES, -EACCES, -EACCES,
		  "paranoid 3 (Debian): CAP_SYS_ADMIN only" },
		{ "\"paranoid\": 3, \"kernel\": \"5.4.0-150-generic\"", 0,
		  -EINVAL, -ENOENT, "before 5.8 the capability is "
		  "CAP_SYS_ADMIN" },
	};
	char why[512], body[512];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct perf_event_attr a = { .type = T_CHA0, .size = sizeof(a),
					     .config = 0x34,
					     .exclude_kernel = 1 };
		int fd;

		snprintf(body, sizeof(body), "%s, \"perf\": { %s }",
			 PH("\"cha:0x34:0x00\": 1"), t[i].perf);
		if (world(&tp, body, why, sizeof(why)) < 0) {
			ok(0, "world: %s", why);
			continue;
		}
		fd = ev_open(T_CHA0, 0, 0x34, 0, -1, false);
		is_int(fd < 0 ? fd : 0, t[i].want, "%s", t[i].what);
		if (fd >= 0)
			skern_pev_ops.close(k, fd);
		fd = ev_open_attr(&a, 0, -1);
		is_int(fd < 0 ? fd : 0, t[i].want_excl, "%s (exclude_kernel)",
		       t[i].what);
		is_int(ev_open(99, 0, 0x34, 0, -1, false), t[i].unknown,
		       "%s (unknown type)", t[i].what);
		world_end();
	}
	world(&tp, "\"perf\": { \"paranoid\": 1, \"cap_perfmon\": false, "
	      "\"kernel\": \"5.4\" }, " PH(""), why, sizeof(why));
	is_str(proc_file("sys/kernel/perf_event_paranoid"), "1\n",
	       "perf_event_paranoid as the workload says");
	is_str(proc_file("sys/kernel/cap_last_cap"), "37\n",
	       "cap_last_cap before 5.8");
	like(proc_file("self/status"), "CapEff:\t0000000000000000",
	     "no capability");
	ok(!skern_capable(k), "skern_capable()");
	is_str(slurp("%s/devices/%s/type", "tp_df"), "(missing)",
	       "a PMU newer than the kernel (since 6.7) is absent");
	world_end();
	world(&tp, "\"perf\": { \"kernel\": \"5.4\" }, " PH(""), why,
	      sizeof(why));
	like(proc_file("self/status"), "CapEff:\t0000000000200000",
	     "capable before 5.8: CAP_SYS_ADMIN");
	world_end();
}

static void test_missing(void)
{
	char why[512];
	int r = world(&tp, "\"perf\": { \"missing_pmus\": "
		      "[\"uncore_imc_1\", \"tp_l*\"] }, " PH(""), why,
		      sizeof(why));

	is_int(r, 0, "missing_pmus (%s)", r ? why : "");
	if (r < 0)
		return;
	is_str(slurp("%s/devices/%s/type", "uncore_imc_1"), "(missing)",
	       "a missing PMU is not in the tree");
	is_str(slurp("%s/devices/%s/type", "tp_l3"), "(missing)",
	       "globs name PMUs");
	is_str(slurp("%s/devices/%s/type", "uncore_imc_free_running_0"),
	       "15\n", "types count the PMUs that are there");
	is_int(ev_open(17, 0, 0xf3, 0, -1, false) >= 0, 1, "tp_df is 17");
	is_int(ev_open(18, 0, 0x04, 0, -1, false), -ENOENT,
	       "no type past the last PMU");
	world_end();

	/* missing_events: the alias files are not written; the hardware
	 * still counts the encoding */
	r = world(&tp, "\"perf\": { \"missing_events\": [\"cas_*\"] }, "
		  PH("\"imc:0x04:0x03\": 1000"), why, sizeof(why));
	is_int(r, 0, "missing_events (%s)", r ? why : "");
	if (r < 0)
		return;
	is_str(slurp("%s/devices/%s/events/cas_count_read", "uncore_imc_0"),
	       "(missing)", "a missing alias is not written");
	is_str(slurp("%s/devices/%s/events/cas_count_read.scale",
		     "uncore_imc_0"), "(missing)", "nor its .scale");
	is_str(slurp("%s/devices/%s/events/data_read", "uncore_imc_free_running_0"),
	       "event=0xff,umask=0x20", "other aliases are");
	world_end();
}

/* ---- AMD's rules ---------------------------------------------------------- */

static void test_amd(void)
{
	struct perf_event_attr a = { .size = sizeof(a),
				     .config = 0x04 | 0xff << 8,
				     .sample_period = 1000 };
	char why[512];
	uint64_t v[16];
	uint32_t l3, cha5;
	int g, m[3];

	if (world(&tp_amd, basic_body, why, sizeof(why)) < 0) {
		ok(0, "world: %s", why);
		return;
	}
	a.type = l3 = type_of("tp_l3");
	cha5 = type_of("uncore_cha_5");
	is_str(slurp("%s/devices/%s/cpumask", "uncore_cha_7"), "8\n",
	       "AMD numbers per-box PMUs across the sockets: uncore_cha_7 is "
	       "box 3 of socket 1 (amd_uncore_umc_ctx_init)");
	is_str(slurp("%s/devices/%s/type", "uncore_cha_8"), "(missing)",
	       "4 boxes x 2 sockets");
	is_int(ev_open(cha5, 0, 0x34 | 0x11 << 8, 0, -1, false), -ENODEV,
	       "a CPU of the other socket: ENODEV (no context there)");
	g = ev_open(cha5, 9, 0x34 | 0x11 << 8, 0, -1, false);
	ok(g >= 0, "a CPU of its socket");
	advance(1);
	is_u64(count_of(g), 1000000, "counts box 1 of socket 1: 4e6/4 per s");
	skern_pev_ops.close(k, g);
	is_int(ev_open_attr(&a, 0, -1), -EOPNOTSUPP,
	       "AMD sampling: EOPNOTSUPP (PERF_PMU_CAP_NO_INTERRUPT)");
	is_int(ev_open(l3, 48, 0x04, 0, -1, false), -EINVAL,
	       "a CPU past the machine's: EINVAL (perf_event_alloc)");
	g = ev_open(l3, 2, 0x04 | 0xff << 8, 0, -1, true);
	m[0] = ev_open(l3, 2, 0x01, 0, g, false);
	m[1] = ev_open(l3, 2, 0x02, 0, g, false);
	ok(g >= 0 && m[0] >= 0 && m[1] >= 0,
	   "AMD: a group of 3 on 2 counters opens (no check at open)");
	enable_group(g);
	advance(2);
	rd(g, v, 16);
	ok(v[1] == 2000000000 && v[2] == 0 && v[3] == 0,
	   "but never runs (amd_uncore_add: EBUSY)");
	skern_pev_ops.close(k, m[1]);
	advance(2);
	rd(g, v, 16);
	ok(v[2] == 2000000000 && v[3] >= 59999999 && v[3] <= 60000001,
	   "two events fit and count (%llu)", (unsigned long long)v[3]);
	skern_pev_ops.close(k, m[0]);
	skern_pev_ops.close(k, g);
	world_end();
}

/* ---- the workload's perf parts, parsed strictly -------------------------- */

static void test_workload_errors(void)
{
	static const struct { const char *body, *path, *msg; } t[] = {
		{ "\"perf\": { \"paranoid\": 7 }", "$.perf.paranoid",
		  "must be 0..4" },
		{ "\"perf\": { \"paranoid\": \"2\" }", "$.perf.paranoid",
		  "must be an integer" },
		{ "\"perf\": { \"cap_perfmon\": 1 }", "$.perf.cap_perfmon",
		  "must be true or false" },
		{ "\"perf\": { \"kernel\": \"six\" }", "$.perf.kernel",
		  "kernel release string" },
		{ "\"perf\": { \"kernel\": \"6\" }", "$.perf.kernel",
		  "MAJOR.MINOR first" },
		{ "\"perf\": { \"missing_pmus\": [\"uncore_nope\"] }",
		  "$.perf.missing_pmus[0]", "no PMU of tp matches \"uncore_nope\" "
		  "(uncore_cha_0, uncore_cha_1" },
		{ "\"perf\": { \"missing_pmus\": \"uncore_cha_0\" }",
		  "$.perf.missing_pmus", "must be an array" },
		{ "\"perf\": { \"missing_pmus\": [\"Uncore/x\"] }",
		  "$.perf.missing_pmus[0]", "bad PMU name" },
		{ "\"perf\": { \"paranoia\": 2 }", "$.perf.paranoia",
		  "unknown key (\"perf\" accepts: paranoid, cap_perfmon, "
		  "missing_pmus, missing_events, cpu_model, kernel)" },
		{ "\"perf\": { \"missing_events\": \"clockticks\" }",
		  "$.perf.missing_events", "must be an array" },
		{ "\"perf\": { \"missing_events\": [\"Cas/x\"] }",
		  "$.perf.missing_events[0]", "must be an event alias name" },
		{ "\"perf\": { \"cpu_model\": 0 }", "$.perf.cpu_model",
		  "a CPUID display model" },
		{ "\"perf\": { \"cpu_model\": 256 }", "$.perf.cpu_model",
		  "a CPUID display model" },
		{ "\"faults\": [ { \"at\": 1, \"kind\": \"perf_contention\", "
		  "\"target\": \"uncore_cha_0\" } ]", "$.faults[0]",
		  "missing \"running\"" },
		{ "\"faults\": [ { \"at\": 1, \"kind\": \"perf_contention\", "
		  "\"target\": \"uncore_cha_0\", \"running\": 1 } ]",
		  "$.faults[0].running", "out of range" },
		{ "\"faults\": [ { \"at\": 1, \"kind\": \"perf_contention\", "
		  "\"target\": \"uncore_cha_0\", \"running\": 0.5, "
		  "\"seconds\": 0 } ]", "$.faults[0].seconds", "must be > 0" },
		{ "\"faults\": [ { \"at\": 1, \"kind\": \"perf_read_error\", "
		  "\"target\": \"uncore_cha_0\", \"errno\": \"EAGAIN\" } ]",
		  "$.faults[0].errno", "must be \"EIO\", \"EINTR\" or \"ENOSPC\"" },
		{ "\"faults\": [ { \"at\": 1, \"kind\": \"perf_read_error\", "
		  "\"target\": \"uncore_cha_0\" } ]", "$.faults[0]",
		  "missing \"errno\"" },
		{ "\"faults\": [ { \"at\": 1, \"kind\": \"pmu_gone\", "
		  "\"target\": \"uncore_cha_9\" } ]", "$.faults[0].target",
		  "no PMU of tp matches \"uncore_cha_9\"" },
		{ "\"faults\": [ { \"at\": 1, \"kind\": \"pmu_gone\", "
		  "\"target\": \"msr:0x706\" } ]", "$.faults[0].target",
		  "bad PMU name \"msr:0x706\"" },
		{ "\"faults\": [ { \"at\": 1, \"kind\": \"pmu_gone\", "
		  "\"target\": \"tp_l3\", \"running\": 0.5 } ]",
		  "$.faults[0].running", "not allowed for kind \"pmu_gone\" (only "
		  "perf_contention takes a running)" },
		{ "\"faults\": [ { \"at\": 1, \"kind\": \"short_read\", "
		  "\"target\": \"tp_l3\", \"count\": 0 } ]", "$.faults[0].count",
		  "reads that fail" },
		{ "\"faults\": [ { \"at\": 1, \"kind\": \"eio\", "
		  "\"target\": \"msr:0x1\", \"errno\": \"EIO\" } ]",
		  "$.faults[0].errno", "only perf_read_error takes a errno" },
	};
	char text[1024], err[512], want[512];
	struct workload *w;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int n = snprintf(text, sizeof(text), "{ %s, %s }", PH(""),
				 t[i].body);

		err[0] = '\0';
		is_int(wl_parse(text, (size_t)n, "w.json", &tp, &w, err,
				sizeof(err)), -EINVAL, "refused: %s", t[i].msg);
		snprintf(want, sizeof(want), "w.json: %s: ", t[i].path);
		like(err, want, "at %s", t[i].path);
		like(err, t[i].msg, "case %zu says what is wrong", i);
	}
	{
		const char *good = "{ " PH("") ", \"perf\": { \"paranoid\": -1, "
			"\"cap_perfmon\": false, \"kernel\": \"6.8.0-45-generic\","
			" \"missing_pmus\": [\"uncore_imc_*\"] } }";

		is_int(wl_parse(good, strlen(good), "g.json", &tp, &w, err,
				sizeof(err)), 0, "a full perf object (%s)", err);
		is_int(wl_perf_paranoid(w), -1, "paranoid -1");
		ok(!wl_perf_capable(w), "cap_perfmon false");
		is_u64(wl_perf_version(w), 0x060800, "6.8.0-45-generic");
		is_int(w->perf.nmissing, 1, "one missing pattern");
		wl_free(w);
	}
}

/* ---- facts: malformed, absent; the field grammar ------------------------ */

static const struct perf_fact bad_format[] = {
	{ "event", "config:0-7", NULL, NULL },
	{ "umask", "config:8-", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};
static const struct perf_unit bad_perf = {
	.pmu = "uncore_bad", .source = "test: bad", .format = bad_format,
};
static const struct unit_type bad_unit = {
	.name = "bad", .kind = UNIT_PROG, .max_inst = 1, .nctr = 2,
	.fmt = { .ev_w = 8, .umask_w = 8, .inv_bit = 0xff, .edge_bit = 0xff,
		 .en_bit = 22, .ovf_en_bit = 0xff, .rst_bit = 0xff },
	.perf = &bad_perf,
};
static const struct unit_type *const bad_units[] = { &bad_unit, NULL };
static const struct unit_type bare_unit = {
	.name = "bare", .kind = UNIT_PROG, .max_inst = 1, .nctr = 2,
	.fmt = { .ev_w = 8, .umask_w = 8, .inv_bit = 0xff, .edge_bit = 0xff,
		 .en_bit = 22, .ovf_en_bit = 0xff, .rst_bit = 0xff },
};
static const struct unit_type *const bare_units[] = { &bare_unit, NULL };

static void test_facts(void)
{
	struct platform bad = tp, bare = tp;
	char why[512];

	bad.units = bad_units;
	bad.events = NULL;
	bad.nevents = 0;
	is_int(world(&bad, PH(""), why, sizeof(why)), -EINVAL,
	       "malformed format facts are refused");
	like(why, "PMU uncore_bad (test: bad): format \"umask\": "
	     "\"config:8-\": bad bit range", "naming PMU, source and field");
	bare.units = bare_units;
	bare.events = NULL;
	bare.nevents = 0;
	is_int(world(&bare, PH(""), why, sizeof(why)), -ENOENT,
	       "a platform without kernel PMU facts");
	like(why, "tp has no kernel PMU facts", "says so");
}

/* Fields whose ranges are written out of order still fill in ascending
 * bit order (perf's pmu_format_value()). */
static void test_fields(void)
{
	static const struct perf_fact fmt[] = {
		{ "event", "config:32-35,0-7", NULL, NULL },
		{ "wide", "config2:0-63", NULL, NULL },
		{ "bit", "config1:21", NULL, NULL },
		{ NULL, NULL, NULL, NULL },
	};
	static const struct perf_unit pu = { .pmu = "odd", .format = fmt,
					     .source = "test" };
	static const struct unit_type u = {
		.name = "odd", .kind = UNIT_PROG, .max_inst = 1, .nctr = 2,
		.fmt = { .ev_w = 12, .inv_bit = 0xff, .edge_bit = 0xff,
			 .en_bit = 22, .ovf_en_bit = 0xff, .rst_bit = 0xff },
		.perf = &pu,
	};
	static const struct unit_type *const units[] = { &u, NULL };
	struct platform p = tp;
	struct spmu_set set;
	struct workload *w;
	uint64_t cfg[3];
	char why[256];
	const char *text = "{ " PH("") " }";
	const struct spmu *o;

	p.units = units;
	p.events = NULL;
	p.nevents = 0;
	if (wl_parse(text, strlen(text), "f.json", &p, &w, why, sizeof(why)) ||
	    spmu_build(&set, w, 1, 4, why, sizeof(why))) {
		ok(0, "build: %s", why);
		return;
	}
	o = spmu_by_name(&set, "odd");
	ok(o != NULL, "PMU odd");
	is_int(spmu_encode(o, "event=0xabc,bit,wide=0xffffffffffffffff", cfg,
			   why, sizeof(why)), 0, "encode (%s)", why);
	is_u64(cfg[0], 0xbc | 0xaull << 32,
	       "\"config:32-35,0-7\": low bits to 0-7, high to 32-35");
	is_u64(cfg[1], 1u << 21, "a bare term is 1");
	is_u64(cfg[2], ~0ull, "a 64-bit field");
	is_u64(spmu_field_get(spmu_field(o, "event"), cfg), 0xabc,
	       "and back");
	is_int(spmu_encode(o, "event=0x1000", cfg, why, sizeof(why)), -EINVAL,
	       "a value wider than the field");
	like(why, "does not fit config:32-35,0-7", "names the field");
	is_int(spmu_encode(o, "umask=1", cfg, why, sizeof(why)), -EINVAL,
	       "an unknown field");
	is_int(spmu_encode(o, "event=x", cfg, why, sizeof(why)), -EINVAL,
	       "not a number");
	spmu_free(&set);
	wl_free(w);
}

/* ---- the daemon's lower layer (perf_sysfs, perf_event) on it ---------- */

static int count_pmus(void *ctx, const char *name)
{
	(void)name;
	(*(unsigned *)ctx)++;
	return 0;
}

/* Discovery and encoding by the daemon's sysfs reader, an independent
 * implementation of the same grammar. */
static void test_pfs(void)
{
	struct pfs_pmu *cha = NULL, *imc = NULL;
	const struct pfs_alias *al;
	uint64_t cfg[3];
	unsigned n = 0, pkg = 9, die = 9;
	char why[512];

	is_int(pfs_list(skern_sysfs(k), count_pmus, &n, why, sizeof(why)), 0,
	       "pfs_list reads the tree (%s)", why);
	is_int(n, 10, "ten PMUs: 4 CHA, 2 iMC, 2 free-running, df, l3");
	is_int(pfs_pmu_load(skern_sysfs(k), "uncore_cha_1", &cha, why,
			    sizeof(why)), 0, "pfs_pmu_load (%s)", why);
	is_int(pfs_pmu_load(skern_sysfs(k), "uncore_imc_0", &imc, why,
			    sizeof(why)), 0, "pfs_pmu_load iMC (%s)", why);
	if (!cha || !imc)
		return;
	ok(cha->type == 11 && cha->cpus.n == 2 && cha->cpus.cpu[1] == 8,
	   "type and cpumask as the kernel writes them");
	is_int(pfs_field(cha, "umask")->width, 32, "the split umask is 32 bits");
	is_int(pfs_encode(cha, "event=0x35,umask=0x1234567", cfg, why,
			  sizeof(why)), 0, "pfs_encode (%s)", why);
	is_u64(cfg[0], 0x35 | spread(CHA_UMASK_MASK, 0x1234567),
	       "both sides place a split field alike");
	al = pfs_alias(imc, "cas_count_read");
	ok(al && al->has_scale && al->scale == 6.103515625e-5 &&
	   strcmp(al->unit, "MiB") == 0, "alias, .scale and .unit read back");
	is_int(pfs_cpu_topology(skern_sysfs(k), 9, &pkg, &die, why,
				sizeof(why)), 0, "pfs_cpu_topology (%s)", why);
	ok(pkg == 1 && die == 0, "CPU 9 is on package 1, die 0");
	is_int(pfs_cpu_topology(skern_sysfs(k), 0, &pkg, &die, why,
				sizeof(why)), 0, "cpu0 without an online file "
	       "is online (%s)", why);
	is_int(pev_access(skern_procfs(k), why, sizeof(why)), 0,
	       "pev_access: the simulated caller may count");
	like(why, "CAP_PERFMON", "because of CAP_PERFMON");
	pfs_pmu_free(cha);
	pfs_pmu_free(imc);
}

/* Groups opened and read by the daemon's perf_event layer. */
static void test_pev(void)
{
	const uint64_t cfg[5][3] = {
		{ 0x34 | 0x11 << 8 }, { 0x35 | spread(CHA_UMASK_MASK, 0x1234567) },
		{ 0x01 }, { 0x02 }, { 0x03 },
	};
	struct pev_group *g = NULL;
	uint64_t val[5], en, run;

	is_int(skern_nevents(k), 0, "nothing open before");
	is_int(pev_group_open(&skern_pev_ops, k, T_CHA0 + 3, 0, cfg, 5, &g),
	       -EINVAL, "pev_group_open of 5 on a 4-counter box: EINVAL");
	like(hw_last_error(), "a group larger than the box's counters",
	     "its message");
	is_int(pev_group_open(&skern_pev_ops, k, T_CHA0 + 3, 0, cfg, 2, &g), 0,
	       "pev_group_open of 2 (%s)", hw_last_error());
	is_int(skern_nevents(k), 2, "the failed open left nothing open");
	advance(2);
	is_int(pev_group_read(g, val, &en, &run), 0, "pev_group_read (%s)",
	       hw_last_error());
	ok(en == 2000000000 && run == en, "enabled = running = 2 s");
	ok(val[0] >= 2999999 && val[0] <= 3000001 && val[1] >= 1499999 &&
	   val[1] <= 1500001, "values in event order (%llu, %llu)",
	   (unsigned long long)val[0], (unsigned long long)val[1]);
	pev_group_close(g);
	is_int(skern_nevents(k), 0, "pev_group_close closes every event");
}

/* The daemon's layer meets the perf faults. */
static void test_pev_faults(void)
{
	const uint64_t fixed[1][3] = { { 0xff } }, cha[1][3] = { { 0x34 } };
	struct pev_group *gi = NULL, *g1 = NULL, *g2 = NULL, *gl = NULL;
	uint64_t val[1], en, run;

	pev_group_open(&skern_pev_ops, k, T_IMC0, 0, fixed, 1, &gi);
	pev_group_open(&skern_pev_ops, k, T_CHA0 + 1, 0, cha, 1, &g1);
	pev_group_open(&skern_pev_ops, k, T_CHA0 + 2, 0, cha, 1, &g2);
	pev_group_open(&skern_pev_ops, k, T_L3, 0, cha, 1, &gl);
	ok(gi && g1 && g2 && gl, "four groups");
	if (!gi || !g1 || !g2 || !gl)
		return;
	advance(20);
	is_int(pev_group_read(gi, val, &en, &run), 0, "read under contention");
	ok(en == 20000000000ull && run == 12500000000ull,
	   "running < enabled: the kernel multiplexed us");
	advance(31);	/* t = 51 */
	is_int(pev_group_read(gl, val, &en, &run), -ENODEV,
	       "pmu_gone: -ENODEV");
	advance(10);	/* t = 61 */
	is_int(pev_group_read(g1, val, &en, &run), 0,
	       "EINTR twice is retried (%s)", hw_last_error());
	is_int(pev_group_read(g2, val, &en, &run), -EIO,
	       "a short read is an error, not a value");
	pev_group_close(gi);
	pev_group_close(g1);
	pev_group_close(g2);
	pev_group_close(gl);
}

/* ---- the real platforms' facts ------------------------------------------ */

/* Opens the simulated kernel of platform id (a platform of plat_all[]). */
static int world_of(const char *id, const char *json, char *why, size_t len)
{
	char path[300];
	struct hw_opts o = { .sim_no_registers = true, .sim_platform = id };
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "%s/wl.json", tmpdir);
	f = fopen(path, "w");
	fputs(json, f);
	fclose(f);
	o.sim_workload = path;
	r = hw_open(&hw, &hw_sim_ops, &o);
	if (r < 0) {
		snprintf(why, len, "%s", hw_last_error());
		return r;
	}
	hw_sim_set_clock(&hw, fake_clock, NULL);
	r = skern_open(&k, &hw, NULL, why, len);
	if (r < 0)
		hw_close(&hw);
	return r;
}

/* Events on one platform: PMU, CPU, config words, the rate they count. */
struct real_case {
	const char *pmu;
	int cpu;
	uint64_t c0, c1;
	double rate;
	const char *what;
};

static void count_cases(const struct real_case *t, size_t n)
{
	int fd[16];

	for (size_t i = 0; i < n; i++)
		fd[i] = single(type_of(t[i].pmu), t[i].cpu, t[i].c0, t[i].c1);
	advance(2);
	for (size_t i = 0; i < n; i++) {
		uint64_t c = count_of(fd[i]), want = (uint64_t)(t[i].rate * 2);

		ok(fd[i] >= 0 && c + 1 >= want && c <= want + 1,
		   "%s: %llu, want %llu +- 1", t[i].what, (unsigned long long)c,
		   (unsigned long long)want);
		skern_pev_ops.close(k, fd[i]);
	}
}

static void test_skl(void)
{
	static const struct real_case t[] = {
		{ "uncore_cbox_2", 0, 0x34 | 0x8f << 8, 0, 2e8 / 4,
		  "LLC lookups on cbox 2: a quarter of the socket's" },
		{ "uncore_cbox_0", 0, 0xff, 0, 8e8,
		  "UNCORE_FIXED_EVENT on uncore_cbox_0: the UCLK counter" },
		{ "uncore_imc", 0, 0x01, 0, 1.5e8,
		  "data_reads (event=0x01) of uncore_imc" },
		{ "uncore_arb", 0, 0x81 | 0x01 << 8, 0, 5e7, "ARB requests" },
	};
	char why[512];

	if (world_of("skl", "{ \"platform\": \"skl\", \"cbo_count\": 4, "
		     "\"uclk_hz\": 800000000, " PH("\"cbo:0x34:0x8f\": 2.0e8, "
		     "\"imc:DRAM_DATA_READS\": 1.5e8, \"arb:0x81:0x01\": 5e7")
		     " }", why, sizeof(why)) < 0) {
		ok(0, "skl: %s", why);
		return;
	}
	is_str(slurp("%s/devices/%s/type", "uncore_cbox_0"), "10\n",
	       "skl: uncore_cbox_0 is the first PMU");
	is_str(slurp("%s/devices/%s/cpumask", "uncore_cbox_3"), "0\n",
	       "skl: one socket, CPU 0");
	is_str(slurp("%s/devices/%s/format/cmask", "uncore_cbox_3"),
	       "config:24-28\n", "skl: the threshold field is cmask");
	is_str(slurp("%s/devices/%s/events/clockticks", "uncore_cbox_0"),
	       "event=0xff,umask=0x00", "skl: clockticks");
	is_str(slurp("%s/devices/%s/type", "uncore_arb"), "14\n",
	       "skl: uncore_arb after the four CBo PMUs");
	is_str(slurp("%s/devices/%s/events/data_writes.scale", "uncore_imc"),
	       "6.103515625e-5", "skl: data_writes.scale, verbatim");
	is_str(slurp("%s/devices/%s/events/data_writes.unit", "uncore_imc"),
	       "MiB", "skl: data_writes.unit");
	is_str(slurp("%s/devices/%s/type", "uncore_imc"), "15\n",
	       "skl: six PMUs in all (the UCLK counter shares cbox 0's)");
	count_cases(t, sizeof(t) / sizeof(t[0]));
	world_end();
}

static void test_hsx(void)
{
	static const struct real_case t[] = {
		{ "uncore_cbox_5", 9, 0x34 | 0x11 << 8, 0x3full << 17, 1.8e8 / 18,
		  "LLC lookups with filter_state 0x3f = FILTER0 0x7e0000" },
		{ "uncore_cbox_5", 9, 0x34 | 0x11 << 8, 0x01ull << 17, 0,
		  "another state filter counts nothing" },
		{ "uncore_qpi_1", 3, 0x00 | 1u << 21 | 0x02 << 8, 0, 2e7 / 2,
		  "event_ext \"config:0-7,21\": the ninth bit is :ext" },
		{ "uncore_pcu", 0, 0x80 | 1u << 14, 0, 3e9,
		  "occ_sel 1 is umask 0x40" },
		{ "uncore_imc_3", 8, 0xff, 0, 1066666667,
		  "the DCLK fixed counter of a channel" },
		{ "cstate_core", 9, 0x02, 0, 4e9 / 4,
		  "c6-residency of core 1 on socket 1 (a quarter)" },
		{ "cstate_pkg", 9, 0x02, 0, 5e8,
		  "c6-residency of the package" },
	};
	char why[512];

	if (world_of("hsx", "{ \"platform\": \"hsx\", \"sockets\": 2, "
		     "\"cbo_count\": 18, \"qpi_ports\": 2, \"cores\": 4, "
		     PH("\"cbo:0x34:0x11:filter0=0x7e0000\": 1.8e8, "
			"\"qpi:0x00:0x02:ext\": 2e7, \"pcu:0x80:0x40\": 3e9, "
			"\"pcu_cstate:UNC_P_CORE_CC6_CTR\": 4e9, "
			"\"pcu_cstate:UNC_P_CORE_PC6_CTR\": 5e8") " }",
		     why, sizeof(why)) < 0) {
		ok(0, "hsx: %s", why);
		return;
	}
	is_str(slurp("%s/devices/%s/format/event", "uncore_qpi_0"),
	       "config:0-7,21\n", "hsx: QPI event with bit 21");
	is_str(slurp("%s/devices/%s/format/occ_edge", "uncore_pcu"),
	       "config:14-51\n", "hsx: the kernel's occ_edge, as it is");
	is_str(slurp("%s/devices/%s/format/filter_state", "uncore_cbox_17"),
	       "config1:17-23\n", "hsx: CBo filter fields in config1");
	is_str(slurp("%s/devices/%s/type", "uncore_cbox_17"), "28\n",
	       "hsx: 18 CBo PMUs after the UBox's");
	is_str(slurp("%s/devices/%s/cpumask", "cstate_core"), "0-3,8-11\n",
	       "hsx: cstate_core names one CPU per core");
	is_str(slurp("%s/devices/%s/cpumask", "cstate_pkg"), "0,8\n",
	       "hsx: cstate_pkg one per package");
	is_str(slurp("%s/devices/%s/type", "uncore_qpi_2"), "(missing)",
	       "hsx: qpi_ports 2");
	count_cases(t, sizeof(t) / sizeof(t[0]));
	world_end();
}

/* The register model's device_missing as the kernel sees it
 * (sim_kernel.c header): a box the driver never probed or lost. */
static void test_box_faults(void)
{
	char why[512];
	uint64_t v[16];
	int q0, q8, ha, ha1;

	if (world_of("hsx", "{ \"platform\": \"hsx\", \"sockets\": 2, "
		     "\"qpi_ports\": 2, " PH("\"qpi:0x00:0x02:ext\": 2e7, "
		     "\"ha:0x01:0x03\": 1e8") ", \"faults\": ["
		     " { \"at\": 0, \"kind\": \"device_missing\", "
		     "   \"target\": \"pci:ff:08.2\" },"
		     " { \"at\": 10, \"kind\": \"device_missing\", "
		     "   \"target\": \"pci:ff:12.1\" } ] }",
		     why, sizeof(why)) < 0) {
		ok(0, "hsx device_missing: %s", why);
		return;
	}
	ok(slurp("%s/devices/%s/type", "uncore_qpi_0")[0] != '(',
	   "QPI port 0 missing on socket 0 only: uncore_qpi_0 registered");
	q0 = ev_open(type_of("uncore_qpi_0"), 0, 0x00 | 1u << 21 | 0x02 << 8,
		     0, -1, false);
	is_int(q0, -EINVAL, "an event on socket 0's missing box: EINVAL "
	       "(uncore_pmu_event_init: no box)");
	like(hw_last_error(), "device_missing", "the reason names the fault");
	q8 = single(type_of("uncore_qpi_0"), 8, 0x00 | 1u << 21 | 0x02 << 8, 0);
	ok(q8 >= 0, "socket 1's port 0 opens");
	ha = single(type_of("uncore_ha_0"), 0, 0x01 | 0x03 << 8, 0);
	ha1 = single(type_of("uncore_ha_0"), 8, 0x01 | 0x03 << 8, 0);
	advance(10.5);
	is_int(rd(ha, v, 16), -ENODEV, "HA 0 of socket 0 gone at 10 s: ENODEV");
	like(hw_last_error(), "device_missing", "naming the fault");
	ok(count_of(ha1) >= 10.5e8 / 2 - 1, "HA 0 of socket 1 still counts");
	ok(count_of(q8) >= 10.5 * 2e7 / 2 - 1, "and QPI port 0 of socket 1");
	skern_pev_ops.close(k, q8);
	skern_pev_ops.close(k, ha);
	skern_pev_ops.close(k, ha1);
	world_end();

	if (world_of("hsx", "{ \"platform\": \"hsx\", \"sockets\": 1, "
		     "\"qpi_ports\": 2, " PH("\"qpi:0x00:0x02:ext\": 2e7")
		     ", \"faults\": [ { \"at\": 0, \"kind\": \"device_missing\", "
		     "\"target\": \"pci:ff:08.2\" } ] }", why, sizeof(why)) < 0) {
		ok(0, "hsx 1 socket: %s", why);
		return;
	}
	is_str(slurp("%s/devices/%s/type", "uncore_qpi_0"), "(missing)",
	       "QPI port 0 missing on the only socket: no uncore_qpi_0");
	ok(slurp("%s/devices/%s/type", "uncore_qpi_1")[0] != '(',
	   "uncore_qpi_1 is there");
	world_end();
}

/* The kernel registers at most its driver's num_boxes: a 10-slice Comet
 * Lake gets uncore_cbox_0..7 (uncore_snb.c skl_uncore_cbox). */
static void test_num_boxes(void)
{
	char why[256];

	if (world_of("skl", "{ \"platform\": \"skl\", \"cbo_count\": 10, "
		     PH("\"cbo:0x34:0x8f\": 1e8") " }", why, sizeof(why)) < 0) {
		ok(0, "skl 10 CBos: %s", why);
		return;
	}
	ok(type_of("uncore_cbox_7") > 0, "10 CBos: uncore_cbox_7 is there");
	is_str(slurp("%s/devices/%s/type", "uncore_cbox_8"), "(missing)",
	       "but not uncore_cbox_8 (the kernel's num_boxes is 8)");
	world_end();
}

/* The simulator's way in for perf-only platforms. */
static void test_no_registers(void)
{
	struct hw h;
	struct hw_opts o = { .sim_platform = "skx" };
	struct hw_addr a = hw_msr(0, 0x700);
	uint64_t v;

	is_int(hw_open(&h, &hw_sim_ops, &o), -ENOTSUP,
	       "a perf-only platform's registers cannot be simulated");
	like(hw_last_error(), "--backend=perf", "the message says the way");
	o.sim_no_registers = true;
	is_int(hw_open(&h, &hw_sim_ops, &o), 0,
	       "without registers it opens (%s)", hw_last_error());
	is_int(hw_read(&h, &a, &v), -ENODEV, "a register access: ENODEV");
	like(hw_last_error(), "simulated for the perf backend only",
	     "saying why");
	is_int(hw_sim_nsockets(&h), 2, "its workload's topology is there");
	hw_close(&h);
	o.sim_platform = "skl";
	is_int(hw_open(&h, &hw_sim_ops, &o), 0, "skl without registers");
	is_int(hw_read(&h, &a, &v), -ENODEV, "has none either");
	hw_close(&h);
}

/* ---- threads: the daemon's sampler and claims call in at once -------- */

struct reader {
	uint32_t type;
	int errors;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;

	for (int round = 0; round < 200; round++) {
		int g = ev_open(r->type, round % 16, 0x34 | 0x11 << 8, 0, -1,
				true);
		int m = ev_open(r->type, round % 16, 0x01, 0, g, false);
		uint64_t v[16];

		if (g < 0 || m < 0 || enable_group(g) < 0 ||
		    rd(g, v, 16) != 56)
			r->errors++;
		skern_pev_ops.close(k, m);
		skern_pev_ops.close(k, g);
	}
	return NULL;
}

static void *ticker_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < 400; i++)
		advance(0.01);
	return NULL;
}

static void test_threads(void)
{
	struct reader r[4];
	pthread_t t[5];
	char why[512];

	if (world(&tp, basic_body, why, sizeof(why)) < 0) {
		ok(0, "world: %s", why);
		return;
	}
	for (int i = 0; i < 4; i++) {
		r[i] = (struct reader){ .type = T_CHA0 + (uint32_t)i };
		pthread_create(&t[i], NULL, reader_main, &r[i]);
	}
	pthread_create(&t[4], NULL, ticker_main, NULL);
	for (int i = 0; i < 5; i++)
		pthread_join(t[i], NULL);
	ok(!r[0].errors && !r[1].errors && !r[2].errors && !r[3].errors,
	   "four threads open, read and close groups at once");
	is_int(skern_nevents(k), 0, "and leave nothing open");
	world_end();
}

int main(void)
{
	char why[512];

	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	tp_amd = tp;
	tp_amd.vendor = "AuthenticAMD";
	if (world(&tp, basic_body, why, sizeof(why)) < 0) {
		printf("Bail out! %s\n", why);
		return 1;
	}
	test_tree();
	test_group_read();
	test_counting();
	test_refusals();
	test_box_sharing();
	test_pfs();
	test_pev();
	world_end();
	if (world(&tp, fault_body, why, sizeof(why)) < 0) {
		printf("Bail out! %s\n", why);
		return 1;
	}
	test_faults();
	world_end();
	if (world(&tp, fault_body, why, sizeof(why)) < 0) {
		printf("Bail out! %s\n", why);
		return 1;
	}
	test_pev_faults();
	world_end();
	if (world(&tp, stuck_body, why, sizeof(why)) < 0) {
		printf("Bail out! %s\n", why);
		return 1;
	}
	test_stuck();
	world_end();
	test_privilege();
	test_missing();
	test_amd();
	test_workload_errors();
	test_facts();
	test_fields();
	test_skl();
	test_hsx();
	test_box_faults();
	test_num_boxes();
	test_no_registers();
	test_threads();
	{
		char path[300];

		snprintf(path, sizeof(path), "%s/wl.json", tmpdir);
		unlink(path);
		rmdir(tmpdir);
	}
	return tap_done();
}
