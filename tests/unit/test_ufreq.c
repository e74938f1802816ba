/*
 * test_ufreq.c - the intel_uncore_frequency reader (src/core/ufreq.c): kHz
 * parsing, both directory layouts (package_PP_die_DD and uncoreNN with
 * package_id and, on a 2-die package, die_id), a file missing, a file
 * with bad contents (skipped), re-reading through the kept fds, both
 * layouts at once (the package entries win), I/O domains and extra
 * clusters of a multi-die package, and the missing driver (no domains,
 * not an error).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "core/ufreq.h"
#include "tests/bounded.h"
#include "tests/tap.h"

static char root[256];

static void put(const char *dir, const char *file, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/devices/system/cpu/intel_uncore_frequency/%s",
	    root, dir);
	mkdir(p, 0755);
	snprintf(p + strlen(p), sizeof(p) - strlen(p), "/%s", file);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

static void mkroot(void)
{
	char p[512];

	snprintf(root, sizeof(root), "/tmp/test_ufreq.XXXXXX");
	if (!mkdtemp(root))
		abort();
	snprintf(p, sizeof(p), "%s/devices", root); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/devices/system", root); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/devices/system/cpu", root); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/devices/system/cpu/intel_uncore_frequency", root);
	mkdir(p, 0755);
}

static void rmroot(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)
		abort();
}

static void parse(void)
{
	uint64_t v = 7;

	ok(ufreq_parse_khz("2400000\n", &v) == 0 && v == 2400000, "2400000\\n");
	ok(ufreq_parse_khz("800000", &v) == 0 && v == 800000, "no newline");
	ok(ufreq_parse_khz("", &v) == -EINVAL, "empty refused");
	ok(ufreq_parse_khz("-1\n", &v) == -EINVAL, "sign refused");
	ok(ufreq_parse_khz(" 5\n", &v) == -EINVAL, "space refused");
	ok(ufreq_parse_khz("12x\n", &v) == -EINVAL, "junk refused");
	ok(ufreq_parse_khz("5\n\n", &v) == -EINVAL, "two lines refused");
	ok(ufreq_parse_khz("99999999999999999999\n", &v) == -EINVAL, "overflow refused");
	ok(ufreq_parse_khz("18446744073709552\n", &v) == -EINVAL, "Hz overflow refused");
}

static void msr_layout(void)
{
	struct ufreq u;
	int s;

	mkroot();
	for (s = 1; s >= 0; s--) {	/* readdir order is no order */
		char d[32];

		snprintf(d, sizeof(d), "package_%02d_die_00", s);
		put(d, "min_freq_khz", s ? "1000000\n" : "800000\n");
		put(d, "max_freq_khz", "2400000\n");
		put(d, "initial_min_freq_khz", "800000\n");
		put(d, "initial_max_freq_khz", "2500000\n");
		if (s == 0)
			put(d, "current_freq_khz", "1800000\n");
	}
	put("package_00_die_00", "junk", "x");
	is_int(ufreq_open(&u, root), 2, "package_PP_die_DD: 2 domains");
	is_int(ufreq_read(&u), 9, "9 values (no current on socket 1)");
	is_int(u.d[0].socket, 0, "sorted: socket 0 first");
	is_int(u.d[1].socket, 1, "then socket 1");
	is_int(u.d[1].die, 0, "die 0");
	ok(u.d[0].have[UFREQ_CURRENT] && u.d[0].khz[UFREQ_CURRENT] == 1800000,
	    "socket 0 current 1800000 kHz");
	ok(!u.d[1].have[UFREQ_CURRENT], "socket 1 has no current");
	ok(u.d[1].khz[UFREQ_MIN] == 1000000 && u.d[0].khz[UFREQ_MIN] == 800000,
	    "min per socket");
	ok(u.d[1].khz[UFREQ_INITIAL_MAX] == 2500000, "initial_max");

	/* the kept fd sees a new value; bad contents are skipped */
	put("package_01_die_00", "max_freq_khz", "2000000\n");
	put("package_00_die_00", "min_freq_khz", "fast\n");
	is_int(ufreq_read(&u), 8, "re-read: one value skipped");
	ok(u.d[1].khz[UFREQ_MAX] == 2000000, "re-read through the kept fd");
	ok(!u.d[0].have[UFREQ_MIN] && u.d[0].said[UFREQ_MIN], "bad min skipped, said");
	ufreq_close(&u);
	rmroot();
}

static void tpmi_layout(void)
{
	struct ufreq u;

	mkroot();
	/* uncore00/01: package 1's two dies; uncore02: package 0, one die
	 * (no die_id); uncore03: package_id unreadable contents */
	put("uncore00", "package_id", "1\n");
	put("uncore00", "die_id", "1\n");
	put("uncore01", "package_id", "1\n");
	put("uncore01", "die_id", "0\n");
	put("uncore02", "package_id", "0\n");
	put("uncore03", "package_id", "zero\n");
	put("uncore00", "max_freq_khz", "2200000\n");
	put("uncore01", "max_freq_khz", "2100000\n");
	put("uncore02", "max_freq_khz", "2000000\n");
	put("uncore02", "current_freq_khz", "1500000\n");
	put("uncore03", "max_freq_khz", "2000000\n");
	is_int(ufreq_open(&u, root), 3, "uncoreNN: 3 domains (bad package_id left out)");
	is_int(ufreq_read(&u), 4, "4 values");
	ok(u.d[0].socket == 0 && u.d[0].die == 0 && u.d[0].khz[UFREQ_MAX] == 2000000,
	    "package 0 without die_id: die 0");
	ok(u.d[0].have[UFREQ_CURRENT] && u.d[0].khz[UFREQ_CURRENT] == 1500000,
	    "current 1500000");
	ok(u.d[1].socket == 1 && u.d[1].die == 0 && u.d[1].khz[UFREQ_MAX] == 2100000,
	    "package 1 die 0 from uncore01");
	ok(u.d[2].socket == 1 && u.d[2].die == 1 && u.d[2].khz[UFREQ_MAX] == 2200000,
	    "package 1 die 1 from uncore00");
	ok(!u.d[2].have[UFREQ_MIN], "a missing file has no value");
	ufreq_close(&u);
	rmroot();
}

/* TPMI on a single-die package: the root package entry beside the
 * per-domain ones; the package entry is the one exported. */
static void both_layouts(void)
{
	struct ufreq u;

	mkroot();
	put("package_00_die_00", "max_freq_khz", "2400000\n");
	put("uncore00", "package_id", "0\n");
	put("uncore00", "domain_id", "0\n");
	put("uncore00", "max_freq_khz", "1900000\n");
	put("uncore01", "package_id", "0\n");
	put("uncore01", "domain_id", "1\n");
	put("uncore01", "max_freq_khz", "1800000\n");
	is_int(ufreq_open(&u, root), 1, "both layouts: the package entry alone");
	ufreq_read(&u);
	ok(u.d[0].socket == 0 && u.d[0].die == 0 && u.d[0].khz[UFREQ_MAX] == 2400000,
	    "its max, not a domain's");
	ufreq_close(&u);
	rmroot();
}

/* uncoreNN of a 2-die package with an I/O domain (no die_id) and a
 * second fabric cluster on die 1: one domain per die, the I/O domain
 * left out, the die's first domain and cluster kept. */
static void tpmi_domains(void)
{
	struct ufreq u;

	mkroot();
	/* readdir order is not creation order: the ids decide */
	put("uncore05", "package_id", "0\n");	/* I/O: no die_id */
	put("uncore05", "domain_id", "2\n");
	put("uncore05", "max_freq_khz", "1600000\n");
	put("uncore03", "package_id", "0\n");	/* die 1, cluster 1 */
	put("uncore03", "domain_id", "1\n");
	put("uncore03", "fabric_cluster_id", "1\n");
	put("uncore03", "die_id", "1\n");
	put("uncore03", "max_freq_khz", "1700000\n");
	put("uncore02", "package_id", "0\n");	/* die 1, cluster 0 */
	put("uncore02", "domain_id", "1\n");
	put("uncore02", "fabric_cluster_id", "0\n");
	put("uncore02", "die_id", "1\n");
	put("uncore02", "max_freq_khz", "2300000\n");
	put("uncore00", "package_id", "0\n");	/* die 0 */
	put("uncore00", "domain_id", "0\n");
	put("uncore00", "fabric_cluster_id", "0\n");
	put("uncore00", "die_id", "0\n");
	put("uncore00", "max_freq_khz", "2200000\n");
	is_int(ufreq_open(&u, root), 2, "2 dies: the I/O domain and the second cluster left out");
	ufreq_read(&u);
	ok(u.d[0].die == 0 && u.d[0].khz[UFREQ_MAX] == 2200000, "die 0");
	ok(u.d[1].die == 1 && u.d[1].khz[UFREQ_MAX] == 2300000,
	    "die 1 from its cluster 0 (uncore02), not cluster 1 or the I/O domain");
	ufreq_close(&u);
	rmroot();
}

static void absent(void)
{
	struct ufreq u;

	is_int(ufreq_open(&u, "/nonexistent-sysfs"), 0, "no driver: 0 domains, no error");
	is_int(ufreq_read(&u), 0, "nothing to read");
	ufreq_close(&u);
}

static void fifo(const char *dir, const char *file)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/devices/system/cpu/intel_uncore_frequency/%s",
	    root, dir);
	mkdir(p, 0755);
	snprintf(p + strlen(p), sizeof(p) - strlen(p), "/%s", file);
	if (mkfifo(p, 0644) < 0)
		abort();
}

/* ufreq_open + ufreq_read in a child: domains * 100 + values. */
static int open_child(const void *ctx, char *msg, size_t len)
{
	struct ufreq u;
	int n, v;

	(void)ctx;
	(void)len;
	msg[0] = '\0';
	n = ufreq_open(&u, root);
	v = n > 0 ? ufreq_read(&u) : 0;
	ufreq_close(&u);
	return n * 100 + v;
}

/*
 * Issue 39 §7: a FIFO as a frequency file or as uncoreNN/package_id
 * blocked ufreq_open (the daemon's start-up) for ever.  Refused at once
 * and left out; the rest is read.
 */
static void hostile(void)
{
	char msg[64];

	mkroot();
	put("package_00_die_00", "max_freq_khz", "2400000\n");
	fifo("package_00_die_00", "min_freq_khz");
	is_int(bounded_call(open_child, NULL, msg, sizeof(msg), 5), 101,
	    "a FIFO as min_freq_khz: left out at once, max read");
	rmroot();
	mkroot();
	fifo("uncore00", "package_id");
	put("uncore00", "max_freq_khz", "2200000\n");
	put("uncore01", "package_id", "1\n");
	put("uncore01", "max_freq_khz", "2100000\n");
	is_int(bounded_call(open_child, NULL, msg, sizeof(msg), 5), 101,
	    "a FIFO as uncore00/package_id: uncore00 left out at once");
	rmroot();
}

int main(void)
{
	log_init("test_ufreq", LOG_LVL_ERR);
	parse();
	msr_layout();
	tpmi_layout();
	both_layouts();
	tpmi_domains();
	absent();
	hostile();
	return tap_done();
}
