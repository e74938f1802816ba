/*
 * cli.c - uncored's command line (see cli.h): getopt_long over the
 * options, each value with a grammar of its own checked as it is read,
 * and the texts of --help and --list-platforms.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "build-info.h"
#include "cli.h"
#include "core/daemon.h"
#include "plat/plat_generic.h"
#include "plat/plat_sim.h"

static void usage(FILE *f)
{
	char plats[128];

	plat_list(plats, sizeof(plats), false);
	fprintf(f,
		"usage: uncored [OPTIONS]\n"
		"\n"
		"Owns the Intel uncore PMU, samples it into a ring buffer and serves\n"
		"Prometheus metrics and a JSON API over HTTP.\n"
		"\n"
		"  -c, --config FILE         configuration (default " DEFAULT_CONF ")\n"
		"      --simulate[=P]        run on the simulator of platform P\n"
		"                            (%s; default: %s, or the\n"
		"                            workload's platform)\n"
		"      --workload FILE       simulator workload (JSON)\n"
		"      --sim-state FILE      keep simulated registers in FILE (shared,\n"
		"                            survives restarts)\n"
		"      --backend=B           how to reach the counters: auto (default;\n"
		"                            direct where the daemon can program the\n"
		"                            PMU, else perf), direct (MSR, PCI, MMIO)\n"
		"                            or perf (the kernel's uncore PMUs);\n"
		"                            replaces [daemon] backend\n"
		"      --path.sysfs DIR      where perf finds the kernel's PMUs and\n"
		"                            intel_uncore_frequency (default /sys);\n"
		"                            replaces [daemon] sysfs\n"
		"      --path.resctrl DIR    read resctrl monitoring groups there\n"
		"                            (per-group memory bandwidth, LLC\n"
		"                            occupancy); sets [resctrl] path and\n"
		"                            enabled\n"
		"      --unavailable=exit|serve  where nothing can be counted\n"
		"                            (unsupported CPU, no uncore PMU, no\n"
		"                            capability): exit 2 or 4 (default), or\n"
		"                            keep serving /metrics with\n"
		"                            uncored_counting_available 0 and the\n"
		"                            reason; replaces [daemon] unavailable\n"
		"  -l, --listen ADDR:PORT    TCP listener (repeatable; \"none\" for none);\n"
		"                            replaces [http] listen\n"
		"  -s, --control-socket PATH Unix control socket (\"\" for none)\n"
		"      --web-config FILE     TLS and basic auth for the TCP listeners\n"
		"                            (exporters' web config YAML; \"\" for none);\n"
		"                            replaces [http] web_config\n"
		"  -i, --interval MS         sampling interval in milliseconds\n"
		"      --log-level LEVEL     error, warning, notice, info or debug\n"
		"      --log-format FORMAT   journal (<N> prefixes), text (time and\n"
		"                            level) or auto (journal when stderr\n"
		"                            is the journal's stream; default)\n"
		"  -u, --user USER           run as USER once the devices are open\n"
		"                            (default uncored; started as root only)\n"
		"  -f, --foreground          stay in the foreground (uncored never\n"
		"                            detaches; accepted for compatibility)\n"
		"  -n, --check-config        validate the configuration and exit 0/1\n"
		"      --list-platforms      the supported platforms: CPUs, backends and\n"
		"                            where each was checked, and \"generic\"\n"
		"                            (a CPU no table knows: the kernel's\n"
		"                            own uncore events); exit\n"
		"      --self-test           check the machine's uncore PMU under a\n"
		"                            known load; prints a table, exits 0/1\n"
		"  -V, --version             print the version\n"
		"  -h, --help                this text\n"
		"\n"
		"Command-line options override the configuration file.\n"
		"Exit status: 0 ok, 1 error, 2 unsupported CPU, 3 PMU in use,\n"
		"4 kernel forbids PMU programming, 64 usage.\n",
		plats, PLAT_SIM_DEFAULT->id);
}

static void print_version(void)
{
	printf("uncored %s (revision %s, built %s)\n", PACKAGE_VERSION,
	       UNCORED_REVISION, UNCORED_BUILD_DATE);
}

/* The CPU models of p as "family 0x19 models 0x10-0x1f, 0xa0-0xaf":
 * consecutive models of one family without steppings as ranges. */
static void print_cpus(const struct platform *p)
{
	const struct cpu_match *c = p->cpus;
	unsigned fam = ~0u;

	printf("%s", p->vendor ? p->vendor : "GenuineIntel");
	while (c->family || c->model) {
		const struct cpu_match *e = c;

		while (!c->step_lo && !c->step_hi && (e + 1)->family == c->family &&
		       (e + 1)->model == e->model + 1 && !(e + 1)->step_lo &&
		       !(e + 1)->step_hi)
			e++;
		if (c->family != fam)
			printf("%s family 0x%x model", fam == ~0u ? "" : ";",
			       c->family);
		else
			printf(",");
		fam = c->family;
		printf(" 0x%02x", c->model);
		if (e != c)
			printf("-0x%02x", e->model);
		if (c->step_lo || c->step_hi)
			printf(" (stepping %u-%u)", c->step_lo, c->step_hi);
		c = e + 1;
	}
}

/* --list-platforms: one paragraph per platform, from its table. */
static void list_platforms(void)
{
	for (unsigned i = 0; plat_all[i]; i++) {
		const struct platform *p = plat_all[i];
		unsigned be = p->backends ? p->backends : PLAT_BE_DIRECT;

		printf("%s\t%s\n\tCPUs: ", p->id, p->name);
		print_cpus(p);
		printf("\n\tbackends: %s%s%s\n\tchecked: %s\n",
		       be & PLAT_BE_DIRECT ? "direct" : "",
		       (be & PLAT_BE_DIRECT) && (be & PLAT_BE_PERF) ? ", " : "",
		       be & PLAT_BE_PERF ? "perf" : "",
		       p->checked ? p->checked : "on the simulator only "
		       "(direct registers and/or the simulated kernel)");
	}
	/* not a table: built from the kernel at start-up (plat_generic.h) */
	fputs(plat_generic_listing, stdout);
}

static unsigned parse_uint(const char *opt, const char *s, unsigned min,
			   unsigned max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *s == '-' || *end || errno || v < min || v > max) {
		fprintf(stderr, "uncored: %s: \"%s\" is not an integer in "
			"%u..%u\n", opt, s, min, max);
		exit(EXIT_USAGE);
	}
	return (unsigned)v;
}

enum { OPT_SIM = 256, OPT_WL, OPT_STATE, OPT_LOG, OPT_LOGFMT, OPT_SELFTEST,
       OPT_WEB, OPT_BACKEND, OPT_SYSFS, OPT_LIST, OPT_UNAVAIL,
       OPT_RESCTRL };

/* "uncored: ...", and exit status 64. */
static void usage_exit(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
static void usage_exit(const char *fmt, ...)
{
	va_list ap;

	fputs("uncored: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

/* The value of an option that has a grammar of its own, checked. */
static const char *checked(int c, const char *arg)
{
	enum backend_want w;
	char plats[256];

	if (c == OPT_SIM && arg && !plat_by_id(arg))
		usage_exit("--simulate=%s: unknown platform (supported: %s)",
			   arg, plat_list(plats, sizeof(plats), false));
	if (c == OPT_BACKEND && backend_parse(arg, &w) < 0)
		usage_exit("--backend: \"%s\" is not one of auto, direct, perf",
			   arg);
	if (c == OPT_UNAVAIL && strcmp(arg, "exit") != 0 &&
	    strcmp(arg, "serve") != 0)
		usage_exit("--unavailable: \"%s\" is not one of exit, serve",
			   arg);
	if (c == OPT_SYSFS && arg[0] != '/')
		usage_exit("--path.sysfs: \"%s\" is not an absolute path", arg);
	if (c == OPT_RESCTRL && arg[0] != '/')
		usage_exit("--path.resctrl: \"%s\" is not an absolute path",
			   arg);
	if (c == OPT_LOGFMT && strcmp(arg, "auto") != 0 &&
	    strcmp(arg, "journal") != 0 && strcmp(arg, "text") != 0)
		usage_exit("--log-format: \"%s\" is not one of auto, journal, "
			   "text", arg);
	return arg;
}

/* One option c (getopt_long's answer) into o. */
static void take_option(struct options *o, int c)
{
	switch (c) {
	case 'c': o->conf_path = optarg; o->conf_given = true; break;
	case OPT_SIM:
		o->simulate = true;
		o->sim_platform = checked(c, optarg);
		break;
	case OPT_WL: o->workload = optarg; break;
	case OPT_STATE: o->sim_state = optarg; break;
	case OPT_BACKEND: o->backend = checked(c, optarg); break;
	case OPT_SYSFS: o->sysfs = checked(c, optarg); break;
	case OPT_RESCTRL: o->resctrl = checked(c, optarg); break;
	case OPT_UNAVAIL: o->unavailable = checked(c, optarg); break;
	case OPT_LIST: list_platforms(); exit(0);
	case 'l':
		if (o->nlisten == CONF_MAX_LISTEN)
			usage_exit("at most %d --listen", CONF_MAX_LISTEN);
		o->listen[o->nlisten++] = optarg;
		break;
	case 's': o->control_socket = optarg; break;
	case OPT_WEB: o->web_config = optarg; break;
	case 'i': o->interval_ms = parse_uint("--interval", optarg, 10, 60000); break;
	case OPT_LOG: o->log_level = optarg; break;
	case OPT_LOGFMT: o->log_format = checked(c, optarg); break;
	case 'u': o->user = optarg; break;
	case 'f': o->foreground = true; break;
	case 'n': o->check_only = true; break;
	case OPT_SELFTEST: o->self_test = true; break;
	case 'V': print_version(); exit(0);
	case 'h': usage(stdout); exit(0);
	default: usage(stderr); exit(EXIT_USAGE);
	}
}

void cli_parse(int argc, char **argv, struct options *o)
{
	static const struct option lopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "simulate", optional_argument, NULL, OPT_SIM },
		{ "workload", required_argument, NULL, OPT_WL },
		{ "sim-state", required_argument, NULL, OPT_STATE },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "path.sysfs", required_argument, NULL, OPT_SYSFS },
		{ "path.resctrl", required_argument, NULL, OPT_RESCTRL },
		{ "unavailable", required_argument, NULL, OPT_UNAVAIL },
		{ "list-platforms", no_argument, NULL, OPT_LIST },
		{ "listen", required_argument, NULL, 'l' },
		{ "control-socket", required_argument, NULL, 's' },
		{ "web-config", required_argument, NULL, OPT_WEB },
		{ "interval", required_argument, NULL, 'i' },
		{ "log-level", required_argument, NULL, OPT_LOG },
		{ "log-format", required_argument, NULL, OPT_LOGFMT },
		{ "user", required_argument, NULL, 'u' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "check-config", no_argument, NULL, 'n' },
		{ "self-test", no_argument, NULL, OPT_SELFTEST },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->conf_path = DEFAULT_CONF;
	while ((c = getopt_long(argc, argv, "c:l:s:i:u:fnVh", lopts, NULL)) != -1)
		take_option(o, c);
	if (optind < argc) {
		fprintf(stderr, "uncored: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		exit(EXIT_USAGE);
	}
}
