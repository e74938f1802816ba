/*
 * uncore-sim.c - drive the simulated uncore by hand.
 *
 * A small tool around the simulator backend: read and write any
 * simulated register (as "another agent" would, when given the same
 * --state file as a running daemon), list the simulated PCI functions,
 * a demo that programs the LLC and clock counters through the platform
 * tables and prints live rates, and the simulated kernel's sysfs tree
 * (src/sim/sim_kernel.h) written to a directory, and the simulated
 * resctrl tree (src/sim/sim_rdt.h) kept up to date in one.  It is the way to look
 * at the simulator without the daemon, and the tests' foreign agent.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw/hw.h"
#include "sim/hw_sim.h"
#include "plat/plat.h"
#include "plat/plat_sim.h"
#include "sim/sim_kernel.h"
#include "sim/sim_rdt.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	char ids[128], demos[128] = "";
	size_t n = 0;

	plat_list(ids, sizeof(ids), false);
	for (const struct platform *const *p = plat_all; *p; p++)
		if ((*p)->sim && (*p)->sim->demo)
			n += (size_t)snprintf(demos + n, n < sizeof(demos) ?
					      sizeof(demos) - n : 0, "%s%s",
					      n ? ", " : "", (*p)->id);
	fprintf(f,
		"usage: uncore-sim [OPTIONS] COMMAND [ARGS]\n"
		"\n"
		"Commands:\n"
		"  read ADDR          print a simulated register\n"
		"  write ADDR VALUE   write a simulated register\n"
		"  scan               list the simulated PCI functions\n"
		"  demo               program LLC lookups/misses and the clock,\n"
		"                     print rates every interval until Ctrl-C\n"
		"  sysfs DIR          write the simulated kernel's tree (what\n"
		"                     --backend=perf reads) into DIR (new or\n"
		"                     empty): DIR/sys and DIR/proc\n"
		"  resctrl DIR        lay out the workload's resctrl tree in DIR\n"
		"                     (new or empty): DIR/sys/fs/resctrl for\n"
		"                     --path.resctrl, DIR/sys for --path.sysfs;\n"
		"                     bring it to the simulated clock every\n"
		"                     interval until Ctrl-C (or --count times)\n"
		"\n"
		"ADDR is msr:0xE01[@CPU], pci:BB:DD.F+0xOFF[/4|/8] or mmio:0xADDR[/4|/8].\n"
		"\n"
		"Options:\n"
		"  -p, --platform P    simulated platform: %s\n"
		"                      (default: the first; demo: %s)\n"
		"  -w, --workload F    workload JSON file (default: built-in)\n"
		"  -s, --state F       shared register state file (as the daemon's\n"
		"                      --sim-state); default: private, from reset\n"
		"  -i, --interval S    demo, resctrl: seconds between samples or\n"
		"                      refreshes (default 1)\n"
		"  -n, --count N       demo, resctrl: stop after N (default: never)\n"
		"  -t, --at S          resctrl: write the tree once, as it is S\n"
		"                      simulated seconds after reset, and exit\n"
		"  -h, --help          this text\n", ids, demos);
}

struct demo_ctr {
	struct hw_addr addr;
	uint8_t width;
	uint64_t last;
};

static int program(struct hw *hw, const struct topology *t,
		   const char *unit, const char *event, unsigned ctr,
		   struct demo_ctr *out, unsigned *n)
{
	const struct platform *p = t->plat;
	const struct event *ev = plat_event(p, event);
	const struct unit_type *u = plat_unit(p, unit, NULL);
	int ui;
	char why[200];
	uint64_t ctl;

	plat_unit(p, unit, &ui);
	if (!ev || !u)
		return fprintf(stderr, "uncore-sim: %s not in catalog\n", event), -1;
	if (plat_encode(u, &(struct event_enc){ ev->code, ev->umask, ev->thresh,
						ev->edge, ev->inv },
			ctr, ev->ctr_mask, &ctl, why, sizeof(why)) < 0)
		return fprintf(stderr, "uncore-sim: %s: %s\n", event, why), -1;
	for (unsigned i = 0; i < t->sock[0].ninst[ui]; i++) {
		struct hw_addr c = plat_ctl_addr(&t->sock[0], u, i, ctr);

		if (hw_write(hw, &c, ctl) < 0)
			return fprintf(stderr, "uncore-sim: %s\n",
				       hw_last_error()), -1;
		out[*n].addr = plat_ctr_addr(&t->sock[0], u, i, ctr);
		out[*n].width = u->width;
		(*n)++;
	}
	return 0;
}

static uint64_t delta(struct hw *hw, struct demo_ctr *c)
{
	uint64_t v = 0, d;

	if (hw_read(hw, &c->addr, &v) < 0)
		return 0;
	d = (v - c->last) & width_mask(c->width);
	c->last = v;
	return d;
}

/* What the demo counts: the lookup and miss counters of every box, the
 * clock, the DRAM read and write counters of socket 0. */
struct demo_run {
	const struct platform *p;
	const struct plat_sim_demo *d;
	struct topology t;
	const struct unit_type *fixed, *bytes, *u;
	int ui;
	struct demo_ctr look[PLAT_MAX_INST], miss[PLAT_MAX_INST], clk, rd, wrt;
	unsigned nl, nm;
};

/* Finds the demo's units, discovers socket 0 and programs the counters
 * by hand.  0, or 1 with the reason printed. */
static int demo_setup(struct hw *hw, struct demo_run *x)
{
	const struct plat_sim_demo *d = x->d;
	const struct platform *p = x->p;
	struct hw_addr fc;

	x->fixed = plat_unit(p, d->clock_unit, NULL);
	x->bytes = plat_unit(p, d->bytes_unit, NULL);
	x->u = plat_unit(p, d->unit, &x->ui);
	if (!x->fixed || !x->bytes || !x->u || !p->global_ctl.layout) {
		fprintf(stderr, "uncore-sim: %s: demo data names a unit the "
			"platform lacks\n", p->id);
		return 1;
	}
	x->t.plat = p;
	if (plat_discover(p, hw, &x->t, &(struct hw_cpu_map){
			.cpus_per_package = SIM_CPUS_PER_SOCKET }) < 0) {
		fprintf(stderr, "uncore-sim: %s\n", hw_last_error());
		return 1;
	}
	if (program(hw, &x->t, d->unit, d->lookups, d->ctr_lookups, x->look,
		    &x->nl) ||
	    program(hw, &x->t, d->unit, d->misses, d->ctr_misses, x->miss,
		    &x->nm))
		return 1;
	x->clk = (struct demo_ctr){
		.addr = plat_ctr_addr(&x->t.sock[0], x->fixed, 0, 0),
		.width = x->fixed->width };
	fc = plat_ctl_addr(&x->t.sock[0], x->fixed, 0, 0);
	hw_write(hw, &fc, 1ull << x->fixed->fmt.en_bit);
	for (unsigned i = 0; i < x->bytes->nfreerun; i++) {
		struct demo_ctr fr = {
			.addr = plat_freerun_addr(&x->t.sock[0], x->bytes, 0, i),
			.width = x->bytes->freerun[i].width };

		if (strcmp(x->bytes->freerun[i].name, d->reads) == 0)
			x->rd = fr;
		else if (strcmp(x->bytes->freerun[i].name, d->writes) == 0)
			x->wrt = fr;
	}
	return 0;
}

/* Every counter's delta since the last call: lookups and misses summed
 * over the boxes. */
static void demo_deltas(struct hw *hw, struct demo_run *x, uint64_t *l,
			uint64_t *m)
{
	*l = *m = 0;
	for (unsigned i = 0; i < x->nl; i++)
		*l += delta(hw, &x->look[i]);
	for (unsigned i = 0; i < x->nm; i++)
		*m += delta(hw, &x->miss[i]);
}

/* Leaves the PMU idle: the global control and every control it wrote. */
static void demo_idle(struct hw *hw, struct demo_run *x)
{
	struct hw_addr g = hw_msr(0, x->p->global_ctl.addr), fc;

	hw_write(hw, &g, 0);
	for (unsigned i = 0; i < x->t.sock[0].ninst[x->ui]; i++)
		for (unsigned c = 0; c < x->u->nctr; c++) {
			struct hw_addr a = plat_ctl_addr(&x->t.sock[0], x->u, i, c);

			hw_write(hw, &a, 0);
		}
	fc = plat_ctl_addr(&x->t.sock[0], x->fixed, 0, 0);
	hw_write(hw, &fc, 0);
}

static int demo(struct hw *hw, double interval, long count)
{
	struct demo_run x = { .p = hw_sim_platform(hw) };
	struct hw_addr g = hw_msr(0, x.p->global_ctl.addr);
	struct timespec ts;
	uint64_t l, m;
	double last_t;

	x.d = x.p->sim ? x.p->sim->demo : NULL;
	if (!x.d) {
		fprintf(stderr, "uncore-sim: no demo for %s; run the daemon: "
			"uncored --simulate=%s\n", x.p->id, x.p->id);
		return 1;
	}
	if (demo_setup(hw, &x))
		return 1;
	hw_write(hw, &g, x.p->global_enable);
	demo_deltas(hw, &x, &l, &m);
	delta(hw, &x.clk);
	delta(hw, &x.rd);
	delta(hw, &x.wrt);
	last_t = hw_sim_time(hw);
	printf("%u %s boxes\n%8s %14s %8s %10s %10s %10s\n",
	       x.t.sock[0].ninst[x.ui], x.d->unit, "time_s", "llc_lookups/s",
	       "hit_%", "dram_rd_GB/s", "dram_wr_GB/s", "uclk_GHz");
	fflush(stdout);
	ts.tv_sec = (time_t)interval;
	ts.tv_nsec = (long)((interval - (double)ts.tv_sec) * 1e9);
	for (long k = 0; !stop && (count <= 0 || k < count); k++) {
		double now;

		nanosleep(&ts, NULL);
		/* rates over the time that really passed, not the nominal
		 * interval (a loaded machine oversleeps) */
		now = hw_sim_time(hw);
		interval = now - last_t;
		last_t = now;
		demo_deltas(hw, &x, &l, &m);
		printf("%8.1f %14.4g %8.2f %10.3f %10.3f %10.3f\n",
		       hw_sim_time(hw), (double)l / interval,
		       l ? 100.0 * (1.0 - (double)m / (double)l) : 0.0,
		       (double)delta(hw, &x.rd) * 64 / interval / 1e9,
		       (double)delta(hw, &x.wrt) * 64 / interval / 1e9,
		       (double)delta(hw, &x.clk) / interval / 1e9);
		fflush(stdout);
	}
	demo_idle(hw, &x);
	return 0;
}

static int print_dev(void *ctx, const struct hw_pci_dev *d)
{
	(void)ctx;
	printf("%04x:%02x:%02x.%x %04x:%04x\n", d->domain, d->bus, d->dev,
	       d->fn, d->vendor, d->device);
	return 0;
}

/* sysfs DIR: the simulated kernel's tree, kept in DIR. */
static int write_sysfs(struct hw *hw, const char *dir)
{
	struct skern *k;
	char why[512];

	if (skern_open(&k, hw, dir, why, sizeof(why)) < 0) {
		fprintf(stderr, "uncore-sim: %s\n", why);
		return 1;
	}
	printf("%s\n%s\n", skern_sysfs(k), skern_procfs(k));
	skern_close(k);
	return 0;
}

/* resctrl DIR: the simulated resctrl tree, refreshed from the
 * simulated clock (the --state file's, shared with a daemon) every
 * interval, or written once at time `at` (>= 0). */
static int write_resctrl(struct hw *hw, const char *dir, double interval,
			 long count, double at)
{
	struct srdt *k;
	char why[512];
	int r = 0;

	if (srdt_open(&k, hw_sim_workload(hw), dir, why, sizeof(why)) < 0) {
		fprintf(stderr, "uncore-sim: %s\n", why);
		return 1;
	}
	printf("%s\n%s\n", srdt_root(k), srdt_sysfs(k));
	fflush(stdout);
	if (at >= 0) {
		r = srdt_sync(k, at);
	} else {
		struct timespec ts = { (time_t)interval,
				       (long)((interval - (double)(time_t)interval) * 1e9) };

		for (long n = 0; !stop && (!count || n < count); n++) {
			if ((r = srdt_sync(k, hw_sim_time(hw))) < 0)
				break;
			if (!count || n + 1 < count)
				nanosleep(&ts, NULL);
		}
	}
	if (r < 0)
		fprintf(stderr, "uncore-sim: %s: %s\n", dir, strerror(-r));
	srdt_close(k);
	return r < 0;
}

/* read ADDR / write ADDR VALUE. */
static int read_write(struct hw *hw, bool write, char **arg)
{
	struct hw_addr a;
	uint64_t v = 0;
	char why[256], *end = NULL;

	if (write) {
		errno = 0;
		v = strtoull(arg[1], &end, 0);
	}
	if (hw_addr_parse(arg[0], &a, why, sizeof(why)) < 0) {
		fprintf(stderr, "uncore-sim: %s\n", why);
		return 2;
	}
	if (write && (errno || *end || end == arg[1] || arg[1][0] == '-')) {
		fprintf(stderr, "uncore-sim: bad value \"%s\": expected a 64-bit "
			"number\n", arg[1]);
		return 2;
	}
	if (write ? hw_write(hw, &a, v) < 0 : hw_read(hw, &a, &v) < 0) {
		fprintf(stderr, "uncore-sim: %s\n", hw_last_error());
		return 1;
	}
	if (!write)
		printf("0x%" PRIx64 "\n", v);
	return 0;
}

struct cli {
	struct hw_opts o;
	double interval;
	long count;
	double at;
};

/* The options; -1 to go on, else the exit status. */
static int parse_opts(int argc, char **argv, struct cli *c)
{
	static const struct option lopts[] = {
		{ "platform", required_argument, NULL, 'p' },
		{ "workload", required_argument, NULL, 'w' },
		{ "state", required_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "at", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int ch;

	while ((ch = getopt_long(argc, argv, "p:w:s:i:n:t:h", lopts, NULL)) != -1) {
		switch (ch) {
		case 'p': c->o.sim_platform = optarg; break;
		case 'w': c->o.sim_workload = optarg; break;
		case 's': c->o.sim_state = optarg; break;
		case 'i':
			c->interval = strtod(optarg, &end);
			if (*end || !(c->interval >= 0.01 &&
				      c->interval <= 3600)) {
				fprintf(stderr, "uncore-sim: --interval: %s is not "
					"a number of seconds in 0.01..3600\n", optarg);
				return 2;
			}
			break;
		case 'n':
			c->count = strtol(optarg, &end, 10);
			if (*end || c->count < 1) {
				fprintf(stderr, "uncore-sim: --count: %s is not a "
					"positive integer\n", optarg);
				return 2;
			}
			break;
		case 't':
			c->at = strtod(optarg, &end);
			if (*end || end == optarg || !(c->at >= 0 && c->at <= 1e9)) {
				fprintf(stderr, "uncore-sim: --at: %s is not a number "
					"of seconds in 0..1e9\n", optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct cli c = { .interval = 1, .at = -1 };
	struct hw hw;
	const char *cmd;
	int rc, nargs;

	if ((rc = parse_opts(argc, argv, &c)) >= 0)
		return rc;
	cmd = argv[optind++];
	nargs = argc - optind;
	/* the tree needs no registers, and a perf-only platform has none */
	c.o.sim_no_registers = strcmp(cmd, "sysfs") == 0;
	rc = hw_open(&hw, &hw_sim_ops, &c.o);
	if ((rc == -EOPNOTSUPP || (rc == -EINVAL && c.o.sim_state)) &&
	    strcmp(cmd, "resctrl") == 0) {
		/* the tree needs the workload and its clock, not registers:
		 * a perf-only platform has none, and a --state file made by
		 * a daemon on the perf backend holds none */
		c.o.sim_no_registers = true;
		rc = hw_open(&hw, &hw_sim_ops, &c.o);
	}
	if (rc < 0) {
		fprintf(stderr, "uncore-sim: %s\n", hw_last_error());
		return 1;
	}
	if (strcmp(cmd, "read") == 0 && nargs == 1) {
		rc = read_write(&hw, false, argv + optind);
	} else if (strcmp(cmd, "write") == 0 && nargs == 2) {
		rc = read_write(&hw, true, argv + optind);
	} else if (strcmp(cmd, "scan") == 0 && nargs == 0) {
		rc = hw_pci_scan(&hw, print_dev, NULL) < 0;
	} else if (strcmp(cmd, "demo") == 0 && nargs == 0) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		rc = demo(&hw, c.interval, c.count);
	} else if (strcmp(cmd, "sysfs") == 0 && nargs == 1) {
		rc = write_sysfs(&hw, argv[optind]);
	} else if (strcmp(cmd, "resctrl") == 0 && nargs == 1) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		rc = write_resctrl(&hw, argv[optind], c.interval, c.count, c.at);
	} else {
		usage(stderr);
		rc = 2;
	}
	hw_close(&hw);
	return rc;
}
