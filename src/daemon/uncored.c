/*
 * uncored.c - main: configuration, start-up, signals, systemd
 * notification, reload and clean shutdown.  The command line is cli.c's,
 * the owner file owner.c's.
 *
 * Start-up is the only place that may end the process.  Its order
 * follows the least-privilege rule: open the hardware and the listeners
 * first, check and take ownership of the PMU, program it, take the first
 * sample, and only then tell systemd READY=1.  SIGTERM/SIGINT leave the
 * PMU idle (every control register written is cleared); SIGHUP reloads
 * the configuration without losing counters where the new one allows.
 *
 * Exit status: 0 clean, 1 error, 2 unsupported CPU, 3 PMU in use by
 * another agent, 4 the kernel forbids programming the PMU (lockdown,
 * msr.allow_writes=off), 64 command-line usage.
 *
 * Least privilege (doc/design.md section 4): started as root, the daemon
 * opens every device handle, the listeners and its files, then becomes
 * [daemon] user with no capability before any thread starts
 * (drop_privileges()); the backend is sealed so no device is opened
 * again.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "serve/api.h"
#include "backend.h"
#include "build-info.h"
#include "core/claims.h"
#include "core/fexport.h"
#include "cli.h"
#include "conf.h"
#include "core/daemon.h"
#include "serve/expo.h"
#include "http/http.h"
#include "base/log.h"
#include "owner.h"
#include "plat/plat_generic.h"
#include "plat/plat_sim.h"
#include "priv.h"
#include "resctrl/resctrl_mon.h"
#include "resctrl/resctrl_own.h"
#include "resctrl/resctrl_priv.h"
#include "core/energy.h"
#include "core/throttle.h"
#include "core/ufreq.h"
#include "pmu/sched.h"
#include "selftest.h"
#include "serve/unavail.h"



/* [sim] platform set in the file runs the daemon on the simulator, as
 * --simulate does; --simulate=P overrides the file's platform. */
static bool simulating(const struct options *o, const struct conf *c)
{
	return o->simulate || c->sim_platform[0];
}

/* The simulator's options from the command line and the file. */
static void sim_opts_of(const struct options *o, const struct conf *c,
			struct hw_opts *ho)
{
	ho->sim_platform = o->sim_platform ? o->sim_platform
			 : (c->sim_platform[0] ? c->sim_platform : NULL);
	ho->sim_workload = o->workload ? o->workload
			 : (c->sim_workload[0] ? c->sim_workload : NULL);
}

static int level_of(const char *s, enum log_level *lvl)
{
	static const struct { const char *n; enum log_level l; } t[] = {
		{ "error", LOG_LVL_ERR }, { "warning", LOG_LVL_WARN },
		{ "notice", LOG_LVL_NOTICE }, { "info", LOG_LVL_INFO },
		{ "debug", LOG_LVL_DEBUG },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(s, t[i].n) == 0) {
			*lvl = t[i].l;
			return 0;
		}
	return -1;
}

/* Loads the config: a missing default file means defaults. */
static int load_conf(const struct options *o, struct conf *c, char *err,
		     size_t len)
{
	if (!o->conf_given && access(o->conf_path, F_OK) != 0 && errno == ENOENT)
		return conf_load(c, NULL, err, len);	/* the defaults */
	return conf_load(c, o->conf_path, err, len);
}

/* Command-line options override the file. */
static void apply_overrides(const struct options *o, struct conf *c)
{
	if (o->nlisten) {
		/* conf_free() frees every listen[] slot: leave none dangling */
		for (unsigned i = 0; i < c->nlisten; i++) {
			free(c->listen[i]);
			c->listen[i] = NULL;
		}
		c->nlisten = 0;
		for (unsigned i = 0; i < o->nlisten; i++)
			if (strcmp(o->listen[i], "none") != 0)
				c->listen[c->nlisten++] = strdup(o->listen[i]);
	}
	if (o->control_socket) {
		free(c->control_socket);
		c->control_socket = strdup(o->control_socket);
	}
	if (o->web_config) {
		free(c->web_config);
		c->web_config = strdup(o->web_config);
	}
	if (o->interval_ms)
		c->interval_ms = o->interval_ms;
	if (o->log_level) {
		free(c->log_level);
		c->log_level = strdup(o->log_level);
	}
	if (o->user) {
		free(c->user);
		c->user = strdup(o->user);
	}
	if (o->backend) {
		free(c->backend);
		c->backend = strdup(o->backend);
	}
	if (o->sysfs) {
		free(c->sysfs);
		c->sysfs = strdup(o->sysfs);
	}
	if (o->resctrl) {
		free(c->resctrl_path);
		c->resctrl_path = strdup(o->resctrl);
		c->resctrl_enabled = true;
	}
	if (o->unavailable) {
		free(c->unavailable);
		c->unavailable = strdup(o->unavailable);
	}
}

/* Resolves the platform's default events of list (NULL: none) into
 * ev[*n..), but those of a unit [baseline] names.  0, or -1 with why. */
static int add_defaults(const struct platform *p, const struct conf *c,
			const char *const *list, struct evspec *ev,
			unsigned max, unsigned *n, char *why, size_t len)
{
	char r[256];

	for (const char *const *d = list; d && *d; d++) {
		bool overridden = false;

		/* resolved first: a default with modifiers (hsx
		 * "UNC_C_LLC_LOOKUP.ANY:filter0=...:split=0/2") is no plain
		 * catalog name, and its unit decides whether a [baseline]
		 * line replaces it */
		if (*n == max ||
		    sched_resolve(p, *d, true, &ev[*n], r, sizeof(r)) < 0) {
			snprintf(why, len, "platform default baseline: %s", r);
			return -1;
		}
		for (unsigned b = 0; b < c->nbaseline; b++)
			overridden |= strcmp(c->baseline[b].unit,
					     p->units[ev[*n].unit]->name) == 0;
		if (!overridden)
			(*n)++;
	}
	return 0;
}

/*
 * The events the daemon counts: the platform default, with each unit
 * named in [baseline] replaced by the events given there ("none": no
 * events of that unit); the defaults kept come first, *ndef of them,
 * their latency events (platform.baseline_latency) from *lat0 and their
 * frequency limit events (platform.baseline_freq) from *fq0.
 * Returns the count, or -1 with "file:line: reason" in why.
 */
static int resolve_baseline(const struct platform *p, const struct conf *c,
			    struct evspec *ev, unsigned max, unsigned *ndef,
			    unsigned *lat0, unsigned *fq0, char *why,
			    size_t len)
{
	unsigned n = 0;
	char r[256];

	for (unsigned b = 0; b < c->nbaseline; b++)
		if (!plat_unit(p, c->baseline[b].unit, NULL)) {
			snprintf(why, len, "%s:%u: [baseline] unknown unit \"%s\" "
				 "on platform %s", c->path ? c->path : "config",
				 c->baseline[b].line, c->baseline[b].unit, p->id);
			return -1;
		}
	/* the platform's defaults, then its latency events (from *lat0)
	 * unless [baseline] memory_latency = no (issue 41 §2) */
	if (add_defaults(p, c, p->baseline, ev, max, &n, why, len) < 0)
		return -1;
	*lat0 = n;
	if (conf_memory_latency(c) != CONF_LATENCY_NO &&
	    add_defaults(p, c, p->baseline_latency, ev, max, &n, why, len) < 0)
		return -1;
	/* then the frequency limit events unless frequency_limits = no
	 * (issue 43 §2) */
	*fq0 = n;
	if (conf_frequency_limits(c) != CONF_LATENCY_NO &&
	    add_defaults(p, c, p->baseline_freq, ev, max, &n, why, len) < 0)
		return -1;
	*ndef = n;
	for (unsigned b = 0; b < c->nbaseline; b++) {
		const struct conf_baseline *cb = &c->baseline[b];

		for (unsigned i = 0; i < cb->nevents; i++) {
			if (n == max) {
				snprintf(why, len, "%s:%u: too many baseline events "
					 "(at most %u)", c->path, cb->line, max);
				return -1;
			}
			if (sched_resolve(p, cb->events[i], c->allow_raw_events,
					  &ev[n], r, sizeof(r)) < 0) {
				snprintf(why, len, "%s:%u: %s", c->path, cb->line, r);
				return -1;
			}
			if (strcmp(p->units[ev[n].unit]->name, cb->unit) != 0) {
				snprintf(why, len, "%s:%u: %s is a %s event, listed "
					 "under %s", c->path, cb->line,
					 cb->events[i], p->units[ev[n].unit]->name,
					 cb->unit);
				return -1;
			}
			for (unsigned k = 0; k < n; k++)
				if (strcmp(ev[k].name, ev[n].name) == 0) {
					snprintf(why, len, "%s:%u: %s listed twice",
						 c->path, cb->line, ev[n].name);
					return -1;
				}
			n++;
		}
	}
	return (int)n;
}

/*
 * [baseline] memory_latency = auto (issue 41 §2), frequency_limits = auto
 * (issue 43 §2): the extra default events ev[a0..a1) (the latency or the
 * frequency limit events) count where they fit beside their unit's other
 * default events, all on the unit's counters at once (sched_place()); a
 * unit where they do not (the Xeon Scalable CHAs: four counters for the
 * LLC events, the clock and the latency pair, or skx's one FILTER1
 * register; the hsx/snbep PCU, whose four counters the frequency bands
 * hold) keeps its events whole, undivided by turns, and the family is
 * absent, said in the log and in left[unit] ("" elsewhere: /api/v1/status
 * memory_latency.left_out, frequency_limits.left_out).  what names the
 * events, key the [baseline] key.  Returns the count of ev[0..n) kept;
 * *ndef shrinks with it.
 */
static int fit_extra(struct daemon *d, struct evspec *ev, unsigned n,
		     unsigned *ndef, unsigned a0, unsigned a1,
		     const char *what, const char *key, char left[][256])
{
	struct evspec sub[SAMPLER_MAX_EVENTS];
	int ctr[SAMPLER_MAX_EVENTS];
	bool drop[PLAT_MAX_UNITS] = { false };
	unsigned k = 0;

	for (unsigned i = a0; i < a1; i++) {
		int u = ev[i].unit;
		unsigned m = 0, others = 0;
		char why[256];

		if (u < 0 || u >= PLAT_MAX_UNITS || drop[u])
			continue;
		for (unsigned j = 0; j < *ndef; j++)
			if (ev[j].unit == u) {
				sub[m++] = ev[j];
				others += j < a0 || j >= a1;
			}
		if (sched_place(d->plat, sub, m, NULL, ctr, why,
				sizeof(why)) == 0)
			continue;
		drop[u] = true;
		log_msg(LOG_LVL_NOTICE, "not counted: the %s events of the %s "
			"(%s, ...): beside its %u other default events they do "
			"not fit its counters at once (%s), and [baseline] %s = "
			"auto keeps those undivided; %s = yes counts them, the "
			"%s's events then take turns", what,
			d->plat->units[u]->name, ev[i].name, others, why, key,
			key, d->plat->units[u]->name);
		snprintf(left[u], sizeof(left[u]), "%s", why);
	}
	for (unsigned i = 0; i < n; i++) {
		int u = ev[i].unit;

		if (i >= a0 && i < a1 && u >= 0 && u < PLAT_MAX_UNITS &&
		    drop[u])
			continue;
		ev[k++] = ev[i];
	}
	*ndef -= n - k;
	return (int)k;
}

/*
 * Leaves out of the default events ev[0..ndef) those that feed only a
 * derived-metric path this machine does not take (zen4: the data fabric
 * beats where the kernel has amd_umc_N, derive_alt_unchosen()), saying
 * so once per unit.  Returns the count of ev[0..n) kept.
 */
static int drop_unchosen(struct daemon *d, struct evspec *ev, unsigned n,
			 unsigned ndef)
{
	unsigned k = 0, dropped[PLAT_MAX_UNITS] = { 0 };
	char first[PLAT_MAX_UNITS][SCHED_NAME_MAX];

	for (unsigned i = 0; i < n; i++) {
		int u = ev[i].unit;

		if (i < ndef && u >= 0 && u < PLAT_MAX_UNITS &&
		    derive_alt_unchosen(&d->topo, ev[i].name)) {
			if (!dropped[u]++)	/* ev[i] may be overwritten */
				memcpy(first[u], ev[i].name, sizeof(first[u]));
			continue;
		}
		ev[k++] = ev[i];
	}
	for (unsigned u = 0; u < PLAT_MAX_UNITS; u++)
		if (dropped[u])
			log_info("not counted: %u default %s event%s (%s%s): the "
				 "derived metrics they feed take another path "
				 "on this machine", dropped[u],
				 d->plat->units[u]->name,
				 dropped[u] == 1 ? "" : "s", first[u],
				 dropped[u] > 1 ? ", ..." : "");
	return (int)k;
}

/*
 * Leaves out of ev[0..n) the events the backend cannot count (perf: the
 * kernel has no PMU or event for them), saying so once each: their
 * metrics are absent, not zero.  Returns the count kept.
 */
static int drop_unreachable(struct daemon *d, struct evspec *ev, unsigned n)
{
	unsigned k = 0;
	char why[256];

	for (unsigned i = 0; i < n; i++) {
		if (pmu_reachable(&d->pmu, &ev[i], why, sizeof(why)) < 0) {
			log_msg(LOG_LVL_NOTICE, "not counted: %s", why);
			continue;
		}
		ev[k++] = ev[i];
	}
	return (int)k;
}

/* Builds the program for config c; NULL with the reason in why. */
static struct program *build_program(struct daemon *d, const struct conf *c,
				     char *why, size_t len)
{
	struct evspec ev[SAMPLER_MAX_EVENTS];
	struct program *p;
	struct fexport *fx = NULL;
	unsigned max, ndef, lat0, fq0;
	char where[PATH_MAX + 16], left[PLAT_MAX_UNITS][256] = { { 0 } };
	char fleft[PLAT_MAX_UNITS][256] = { { 0 } };
	int n = resolve_baseline(d->plat, c, ev, SAMPLER_MAX_EVENTS, &ndef,
				 &lat0, &fq0, why, len);

	if (n < 0)
		return NULL;
	/* the frequency limit events last: dropping them first leaves the
	 * latency events where they are */
	if (conf_frequency_limits(c) == CONF_LATENCY_AUTO)
		n = fit_extra(d, ev, (unsigned)n, &ndef, fq0, ndef,
			      "frequency limit", "frequency_limits", fleft);
	if (conf_memory_latency(c) == CONF_LATENCY_AUTO)
		n = fit_extra(d, ev, (unsigned)n, &ndef, lat0, fq0,
			      "memory read latency", "memory_latency", left);
	n = drop_unchosen(d, ev, (unsigned)n, ndef);
	/* the exported formulas' events join the baseline after its own,
	 * those it counts already shared (doc/formulas.md) */
	snprintf(where, sizeof(where), "%s:%u", c->path ? c->path : "config",
		 c->formulas_export_line);
	if (fexport_new(d->plat, &d->topo, c->formulas_export, where, &fx, why,
			len) < 0)
		return NULL;
	if ((n = fexport_add_events(fx, ev, (unsigned)n, SAMPLER_MAX_EVENTS,
				    why, len)) < 0) {
		fexport_free(fx);
		return NULL;
	}
	n = drop_unreachable(d, ev, (unsigned)n);
	p = program_new(&d->topo, &d->pmu, ev, (unsigned)n, c->ring_capacity,
			c->interval_ms, why, len);
	if (!p) {
		fexport_free(fx);
		return NULL;
	}
	p->fx = fx;
	memcpy(p->lat_left_out, left, sizeof(left));
	memcpy(p->freq_left_out, fleft, sizeof(fleft));
	p->freq_setting = conf_frequency_limits(c) == CONF_LATENCY_AUTO ? "auto"
			  : conf_frequency_limits(c) == CONF_LATENCY_YES ? "yes"
			  : "no";
	p->lat_setting = conf_memory_latency(c) == CONF_LATENCY_AUTO ? "auto"
			 : conf_memory_latency(c) == CONF_LATENCY_YES ? "yes"
			 : "no";
	max = program_max_interval_ms(p);
	if (c->interval_ms > max) {
		snprintf(why, len, "interval_ms %u is longer than half the "
			 "shortest wrap time of the counters in use: at most "
			 "%u ms", c->interval_ms, max);
		program_put(p);
		return NULL;
	}
	return p;
}

/* Says which baseline events take turns on the counters, and where the
 * DRAM families come from (zen4: the UMCs, or the data fabric where the
 * kernel has no amd_umc_N; /api/v1/status "dram" says the same). */
static void log_paths(const struct program *p)
{
	struct program_source rd, wr;

	if (p->ngroups > 1)
		log_info("baseline: %u of its %u events do not fit their "
			 "counters together and take turns, %u groups of them "
			 "one interval each (their counts are scaled "
			 "estimates; doc/metrics.md)", p->nev - p->gev[1],
			 p->nev, p->ngroups - 1);
	if (!program_dram(p, &rd, &wr))
		return;
	log_info("DRAM from unit %s (%s%s%s): %s%s%s%s%s (%u events%s)",
		 rd.unit->name, rd.unit->desc,
		 rd.kernel_pmu ? ", kernel PMU " : "",
		 rd.kernel_pmu ? rd.kernel_pmu : "", wr.event ? "" :
		 "reads and writes together: ", rd.event, wr.event ? ", " : "",
		 wr.event ? wr.event : "",
		 rd.nevents + wr.nevents > 2 ? ", ..." : "",
		 rd.nevents + wr.nevents,
		 rd.turns || wr.turns ? ", taking turns on the counters" : "");
}

static struct claims_cfg claims_cfg_of(const struct conf *c)
{
	return (struct claims_cfg){
		.max_per_uid = c->max_per_uid, .max_total = c->max_total,
		.default_ttl_s = c->default_ttl_s, .max_ttl_s = c->max_ttl_s,
		.allow_raw_events = c->allow_raw_events,
		.interval_ms = c->interval_ms,
		.max_pinned_per_box = c->max_pinned_per_box,
		.max_pinned_s = c->max_pinned_s,
	};
}

static struct sampler_cfg sampler_cfg_of(const struct conf *c)
{
	return (struct sampler_cfg){
		.interval_ms = c->interval_ms,
		.ring_capacity = c->ring_capacity,
		.check_every = c->interference_check_ticks,
		.policy = c->interference_policy == CONF_POLICY_YIELD
			  ? POLICY_YIELD : POLICY_RECLAIM,
	};
}

/* ---- start-up ------------------------------------------------------- */

/* With [daemon] unavailable = serve: why nothing can be counted, and the
 * status the daemon would have exited with (start() returns NULL). */
static char unavail_why[4096];
static int unavail_status;

/* Opens the way to the counters (backend.h) and the PMU layer over it;
 * exits with the backend's status and message when there is none, or,
 * with [daemon] unavailable = serve, keeps them in unavail_why and
 * unavail_status and returns -1 when that status says nothing can be
 * counted (2: unsupported CPU; 4: no usable path). */
static int open_backend(struct daemon *d, const struct options *o,
			const struct conf *c)
{
	struct backend_opts bo = { .sysfs = c->sysfs,
				   .simulate = simulating(o, c) };
	char why[4096];
	int r;

	if (backend_parse(c->backend, &bo.want) < 0)
		bo.want = BACKEND_AUTO;	/* conf.c accepts nothing else */
	if (bo.simulate) {
		sim_opts_of(o, c, &bo.sim);
		bo.sim.sim_state = o->sim_state;
		bo.sim.sim_selftest = o->self_test;
	}
	if ((r = backend_open(d, &bo, why, sizeof(why))) != 0) {
		if ((r == BACKEND_EXIT_CPU || r == BACKEND_EXIT_KERNEL) &&
		    strcmp(c->unavailable, "serve") == 0) {
			snprintf(unavail_why, sizeof(unavail_why), "%s", why);
			unavail_status = r;
			return -1;
		}
		if (r == BACKEND_EXIT_CPU)
			log_fatalx(r, "%s. Use --simulate to run on the "
				   "simulator", why);
		log_fatalx(r, "%s", why);
	}
	if (d->perf_missing[0])
		log_warnx("the kernel has no PMU for: %s; their metrics are "
			  "absent", d->perf_missing);
	return 0;
}

/* The baseline program between its creation and the sampler taking it:
 * a fatal exit in between leaves it in use, not leaked (LeakSanitizer). */
static struct program *volatile boot_prog;	/* see main() */

/* ---- self-test ------------------------------------------------------ */

/*
 * The self-test measures each step in one window: events that take turns
 * on the counters (zen4's data fabric DRAM path) cannot all count in it.
 * It checks what counts all the time (group 0), and says what it leaves
 * out; the families of the others are "not counted here" in its table.
 * Returns the program to test (p itself when nothing takes turns).
 */
static struct program *self_test_program(struct daemon *d,
					 const struct conf *c,
					 struct program *p)
{
	struct program *q;
	char why[512];

	if (p->ngroups == 1)
		return p;
	q = program_new(&d->topo, &d->pmu, p->ev, p->gev[1], c->ring_capacity,
			c->interval_ms, why, sizeof(why));
	if (!q)
		log_fatalx(1, "%s", why);
	log_msg(LOG_LVL_NOTICE, "self-test: the %u baseline events that take turns on the "
		"counters (%s, ...) are not checked; the daemon counts them "
		"in turn", p->nev - p->gev[1], p->ev[p->gev[1]].name);
	program_put(p);
	return q;
}

/* uncored --self-test: the checks of selftest.c on this machine (or the
 * simulator), refused while anybody else holds the PMU.  Exit 0 / 1. */
static int self_test(const struct options *o, const struct conf *c)
{
	struct daemon d = { .version = PACKAGE_VERSION };
	struct program *prog;
	char err[1024];
	long opid;
	int busy, r;

	/* the headline families' events without the memory latency ones,
	 * which take turns with the LLC events on the Xeon Scalable CHAs
	 * and would leave those unchecked ("not counted here") */
	struct conf sc = *c;

	sc.memory_latency = (char *)"no";
	sc.frequency_limits = (char *)"no";
	open_backend(&d, o, c);
	prog = build_program(&d, &sc, err, sizeof(err));
	if (!prog)
		log_fatalx(1, "%s", err);
	boot_prog = prog;	/* in use if a refusal below exits */
	prog = boot_prog = self_test_program(&d, c, prog);
	if ((opid = owner_pid(d.owner_path)) > 0 && owner_alive((pid_t)opid))
		log_fatalx(EXIT_BUSY, "the uncore PMU is owned by uncored pid "
			   "%ld (%s): stop it before the self-test", opid,
			   d.owner_path);
	busy = pmu_busy(&d.pmu, err, sizeof(err));
	if (busy < 0)
		log_fatalx(1, "cannot read the uncore PMU: %s", hw_last_error());
	if (busy > 0)
		log_fatalx(EXIT_BUSY, "the uncore PMU is in use by another agent "
			   "(%d register%s counting: %s): stop it before the "
			   "self-test", busy, busy == 1 ? "" : "s", err);
	r = selftest_run(&d.pmu, prog, hw_played(d.pmu.hw),
			 SELFTEST_DEADLINE_S, stdout);
	program_put(prog);
	pmu_free(&d.pmu);
	backend_close(&d);
	return r == 0 ? 0 : 1;
}

/* ---- privileges ---------------------------------------------------- */

static struct priv_target priv_target;
static struct rdt_own *own_groups(const struct conf *conf);

/* The control socket start_http() had the listener create (not one
 * passed by systemd), and its directory if start_http() made it: both
 * go to [daemon] user at the drop so that the socket file can be
 * removed at exit. */
static char ctl_sock[PATH_MAX], ctl_dir[PATH_MAX];
static bool ctl_dir_made;

/* The daemon's own run-time directory, where the owner file and (by
 * default) the control socket live: it must stay writable after the drop
 * so they can be removed at exit. */
static void chown_rundir(const struct daemon *d, const struct conf *c)
{
	static const char dir[] = RUNSTATEDIR "/uncored";
	size_t n = sizeof(dir) - 1;

	if (strncmp(d->owner_path, dir, n) != 0 &&
	    strncmp(c->control_socket, dir, n) != 0)
		return;
	if (chown(dir, priv_target.uid, priv_target.gid) < 0)
		log_warn("cannot give %s to user %s", dir, priv_target.name);
}

/*
 * The control socket file is removed at exit by the daemon, which by then
 * is [daemon] user: the file becomes that user's (in a sticky directory
 * such as /tmp only the file's owner may remove it), and so does the
 * directory when start-up made it.  A directory that was already there
 * and that the user cannot write keeps the file: say so now, not at exit
 * (the next start replaces a stale socket).
 */
static void chown_control(void)
{
	struct stat st;
	bool writable;

	if (!ctl_sock[0])
		return;
	if (lchown(ctl_sock, priv_target.uid, (gid_t)-1) < 0)
		log_warn("cannot give the control socket %s to user %s",
			 ctl_sock, priv_target.name);
	if (ctl_dir_made && chown(ctl_dir, priv_target.uid, priv_target.gid) < 0)
		log_warn("cannot give %s to user %s", ctl_dir, priv_target.name);
	if (stat(ctl_dir, &st) < 0)
		return;
	writable = (st.st_uid == priv_target.uid && (st.st_mode & S_IWUSR)) ||
		   (st.st_gid == priv_target.gid && (st.st_mode & S_IWGRP)) ||
		   (st.st_mode & S_IWOTH);
	if (!writable)
		log_warnx("the control socket's directory %s is not writable by "
			  "user %s: %s will stay behind at exit (the next start "
			  "replaces it); put the socket in a directory that user "
			  "can write, or let uncored create its directory",
			  ctl_dir, priv_target.name, ctl_sock);
}

/* Called by http_start() once the listeners are open, before any thread
 * starts: seals the backend and becomes [daemon] user. */
static void drop_privileges(void *arg)
{
	struct daemon *d = arg;
	char why[512];

	if (!priv_target.drop && !priv_target.caps_only) {
		log_info("not started as root (uid %u): no privilege to drop",
			 (unsigned)getuid());
		return;
	}
	priv_target.keep_cap = d->perf_cap + 1;
	snprintf(why, sizeof(why), "this device was not opened at start-up and "
		 "uncored has since dropped its privileges (it runs as uid "
		 "%u); restart uncored to use it", priv_target.drop ?
		 (unsigned)priv_target.uid : (unsigned)getuid());
	if (hw_seal(&d->hw, why) < 0)
		log_fatalx(1, "%s", hw_last_error());
	if (priv_target.drop)
		chown_control();
	if (priv_target.drop &&
	    backend_give(d, priv_target.uid, priv_target.gid) < 0)
		log_warn("cannot give the simulated kernel's tree to user %s",
			 priv_target.name);
	if (priv_drop(&priv_target, why, sizeof(why)) < 0)
		log_fatalx(1, "%s", why);
	if (priv_target.root_stays)
		log_warnx("started as root without CAP_SETUID/CAP_SETGID (a "
			  "container?): staying uid 0, with every capability "
			  "dropped%s", d->perf_cap < 0 ? "" : d->perf_cap == 38 ?
			  " but CAP_PERFMON" : " but CAP_SYS_ADMIN");
	else if (priv_target.caps_only)
		log_info("capabilities dropped%s; running as uid %u",
			 d->perf_cap < 0 ? "" : d->perf_cap == 38 ?
			 " but CAP_PERFMON" : " but CAP_SYS_ADMIN",
			 (unsigned)getuid());
	else
		log_info("running as user %s (uid %u, gid %u) with %s",
			 priv_target.name, (unsigned)priv_target.uid,
			 (unsigned)priv_target.gid, d->perf_cap < 0 ?
			 "no capability" : d->perf_cap == 38 ? "only "
			 "CAP_PERFMON (perf backend: events for new claims)" :
			 "only CAP_SYS_ADMIN (perf backend on a kernel before "
			 "5.8: events for new claims)");
}

/*
 * Loads the web config named by c (TLS files included) into *w; an empty
 * web_config leaves *w zeroed (plain HTTP, no auth).  With advise, logs
 * its warnings (costs, certificate dates).  Returns 0 or -1 with the
 * reason in err.
 */
static int load_web(const struct conf *c, struct webcfg *w, char *err,
		    size_t len, bool advise)
{
	memset(w, 0, sizeof(*w));
	if (!c->web_config[0])
		return 0;
	if (webcfg_load(w, c->web_config, err, len) < 0)
		return -1;
	for (unsigned i = 0; advise && i < w->nadvice; i++)
		log_warnx("web config %s", w->advice[i]);
	return 0;
}

static struct http_server *start_http(struct daemon *d, const struct conf *c,
				      struct webcfg *web,
				      const struct http_route *routes,
				      size_t nroutes, void *ctx,
				      void (*before_thread)(void *))
{
	struct http_cfg hc = { 0 };
	int fds[HTTP_MAX_LISTEN];
	int n = sd_listen_fds(1);
	char err[512];
	struct http_server *s;

	if (n > 0) {
		if (n > HTTP_MAX_LISTEN)
			log_fatalx(1, "systemd passed %d sockets; at most %d", n,
				   HTTP_MAX_LISTEN);
		for (int i = 0; i < n; i++)
			fds[i] = SD_LISTEN_FDS_START + i;
		hc.inherited_fds = fds;
		hc.ninherited = (unsigned)n;
		log_info("using %d socket%s passed by systemd; [http] listen and "
			 "control_socket are ignored", n, n == 1 ? "" : "s");
	} else {
		for (unsigned i = 0; i < c->nlisten; i++)
			hc.listen[hc.nlisten++] = c->listen[i];
		hc.control_socket = c->control_socket;
		hc.control_group = c->control_group;
		if (c->control_socket[0]) {
			char dir[PATH_MAX], *slash;

			snprintf(dir, sizeof(dir), "%s", c->control_socket);
			slash = strrchr(dir, '/');
			if (!slash)
				snprintf(dir, sizeof(dir), ".");
			else if (slash != dir)
				*slash = '\0';
			else
				slash[1] = '\0';
			ctl_dir_made = mkdir(dir, 0755) == 0;
			if ((!ctl_dir_made && errno != EEXIST) ||
			    access(dir, W_OK | X_OK) < 0) {
				const char *rt = getenv("XDG_RUNTIME_DIR");

				log_fatalx(1, "cannot create the control socket "
					   "%s: %s: %s. Pass -s PATH for a socket "
					   "in a directory you can write (e.g. -s "
					   "%s/uncored.sock), or -s '' for no "
					   "control socket", c->control_socket,
					   dir, strerror(errno),
					   rt && *rt ? rt : "/tmp");
			}
			snprintf(ctl_sock, sizeof(ctl_sock), "%s",
				 c->control_socket);
			snprintf(ctl_dir, sizeof(ctl_dir), "%s", dir);
		}
	}
	hc.control_mode = 0660;
	hc.timeout_s = c->http_timeout_s;
	hc.max_connections = c->http_max_connections;
	hc.max_per_ip = c->http_max_per_ip;
	hc.control_max_connections = c->http_ctl_max;
	hc.control_max_per_uid = c->http_ctl_per_uid;
	/* none where nothing is counted (serve_unavailable()) */
	hc.instance = d->claims ? claims_instance(d->claims) : NULL;
	hc.before_thread = before_thread;
	hc.before_thread_arg = ctx;
	if (priv_target.drop)
		chown_rundir(d, c);
	if (web->path) {
		char what[160];

		hc.web = web;
		webcfg_describe(web, what, sizeof(what));
		log_info("web config %s: %s on the TCP listeners", web->path,
			 what);
	}
	s = http_start(&hc, routes, nroutes, ctx, err, sizeof(err));
	if (!s)
		log_fatalx(1, "%s", err);
	return s;
}

/* ---- reload --------------------------------------------------------- */

/*
 * The web config is not applied on reload: libmicrohttpd takes the
 * certificate and key when a listener starts, and the users are read by
 * the http thread without a lock.  Say whether the file changed, so an
 * operator knows a restart is needed, and whether it can still be read
 * (after a privilege drop the key may not be).
 */
static unsigned reload_web(const struct conf *nc, const struct webcfg *cur)
{
	struct webcfg w;
	char err[1024];
	unsigned changed;

	/* Nothing to say when no file changed: stat() alone tells, where a
	   root-only key could not be read again after the drop. */
	if (cur->path && webcfg_unchanged(cur, nc->web_config))
		return 0;
	if (load_web(nc, &w, err, sizeof(err), false) < 0) {
		log_warnx("reload: web config not re-read, the running TLS and "
			  "basic-auth settings are kept: %s", err);
		return 1;
	}
	changed = (w.path == NULL) != (cur->path == NULL) ||
		  (w.path && strcmp(w.path, cur->path) != 0) ||
		  !webcfg_same(&w, cur);
	if (changed)
		log_warnx("reload: web config %s changed: not applied: restart "
			  "uncored to apply it", w.path ? w.path : cur->path);
	webcfg_free(&w);
	return changed;
}

static void join_listen(const struct conf *c, char *buf, size_t len)
{
	size_t n = 0;

	snprintf(buf, len, "%s", c->nlisten ? "" : "none");
	for (unsigned i = 0; i < c->nlisten && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "",
				      c->listen[i]);
}

static void swap_str(char **a, char **b)
{
	char *t = *a;

	*a = *b;
	*b = t;
}

/*
 * A reload cannot change what start-up alone sets up: the listeners and
 * their limits, the simulator, takeover.  Logs each such setting that
 * nc changes, with the running and the new value, and puts the running
 * value back into nc (so the next reload compares with what runs).
 * Returns how many were not applied.
 */
static unsigned keep_restart_only(struct conf *nc, struct conf *cur)
{
	static const struct {
		const char *name;
		size_t off;
	} strs[] = {
		{ "[http] control_socket", offsetof(struct conf, control_socket) },
		{ "[http] control_group", offsetof(struct conf, control_group) },
		{ "[sim] platform", offsetof(struct conf, sim_platform) },
		{ "[sim] workload", offsetof(struct conf, sim_workload) },
		{ "[daemon] user", offsetof(struct conf, user) },
		{ "[daemon] backend", offsetof(struct conf, backend) },
		{ "[daemon] sysfs", offsetof(struct conf, sysfs) },
		{ "[resctrl] path", offsetof(struct conf, resctrl_path) },
		{ "[resctrl] cgroups", offsetof(struct conf, resctrl_cgroups) },
		{ "[resctrl] cgroup_path",
		  offsetof(struct conf, resctrl_cgroup_path) },
	}, uints[] = {
		{ "[resctrl] interval_s",
		  offsetof(struct conf, resctrl_interval_s) },
		{ "[resctrl] max_groups",
		  offsetof(struct conf, resctrl_max_groups) },
		{ "[http] timeout_s", offsetof(struct conf, http_timeout_s) },
		{ "[http] max_connections",
		  offsetof(struct conf, http_max_connections) },
		{ "[http] max_per_ip", offsetof(struct conf, http_max_per_ip) },
		{ "[http] control_max_connections",
		  offsetof(struct conf, http_ctl_max) },
		{ "[http] control_max_per_uid",
		  offsetof(struct conf, http_ctl_per_uid) },
	};
	static const char later[] = "not applied: restart uncored to apply it";
	char run[CONF_MAX_LISTEN * 64], want[sizeof(run)];
	unsigned n = 0, nlisten;

	join_listen(cur, run, sizeof(run));
	join_listen(nc, want, sizeof(want));
	if (strcmp(run, want) != 0) {
		log_warnx("reload: [http] listen changed from \"%s\" to \"%s\": "
			  "%s", run, want, later);
		for (unsigned i = 0; i < CONF_MAX_LISTEN; i++)
			swap_str(&nc->listen[i], &cur->listen[i]);
		nlisten = nc->nlisten;
		nc->nlisten = cur->nlisten;
		cur->nlisten = nlisten;
		n++;
	}
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		char **a = (char **)((char *)cur + strs[i].off);
		char **b = (char **)((char *)nc + strs[i].off);

		if (strcmp(*a, *b) == 0)
			continue;
		log_warnx("reload: %s changed from \"%s\" to \"%s\": %s",
			  strs[i].name, *a, *b, later);
		swap_str(a, b);
		n++;
	}
	for (size_t i = 0; i < sizeof(uints) / sizeof(uints[0]); i++) {
		unsigned *a = (unsigned *)((char *)cur + uints[i].off);
		unsigned *b = (unsigned *)((char *)nc + uints[i].off);

		if (*a == *b)
			continue;
		log_warnx("reload: %s changed from %u to %u: %s", uints[i].name,
			  *a, *b, later);
		*b = *a;
		n++;
	}
	if (nc->resctrl_enabled != cur->resctrl_enabled) {
		log_warnx("reload: [resctrl] enabled changed to %s: %s",
			  nc->resctrl_enabled ? "yes" : "no", later);
		nc->resctrl_enabled = cur->resctrl_enabled;
		n++;
	}
	if (nc->takeover != cur->takeover) {
		log_warnx("reload: [daemon] takeover changed to %s: it applies "
			  "at start only", nc->takeover ? "yes" : "no");
		nc->takeover = cur->takeover;
		n++;
	}
	return n;
}

/* Can p run on the devices opened at start-up?  0, or -1 with the first
 * that would need opening in why. */
static int program_reachable(struct daemon *d, const struct program *p,
			     char *why, size_t len)
{
	struct pmu_slot *want = calloc(CONTROLS_PER_SERIES * (size_t)p->ns + 1,
					 sizeof(*want));
	unsigned n;
	int r = 0;

	if (!want) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	n = program_controls(p, want);
	for (unsigned k = 0; r == 0 && k < n; k++)
		r = hw_reachable(&d->hw, &want[k].ctl);
	for (unsigned k = 0; r == 0 && k < p->ns; k++) {
		const struct topo_socket *ts = &p->topo->sock[p->slot[k].socket];
		struct hw_addr a = p->slot[k].ctr;

		r = hw_reachable(&d->hw, &a);
		for (unsigned c = 0; r == 0 && p->slot[k].core_scope &&
		     c < ts->ncores; c++) {
			a.cpu = ts->core_cpu[c];
			r = hw_reachable(&d->hw, &a);
		}
	}
	free(want);
	if (r < 0)
		snprintf(why, len, "%s", hw_last_error());
	return r < 0 ? -1 : 0;
}

/*
 * Hands the reloaded program p and settings to the sampler.  A program
 * that counts what the running one counts is dropped, so the ring and
 * its samples stay; a new one starts a ring whose sequence numbers go on
 * from the old head (its first sample is "program_start" in the API).
 */
static void swap_program(struct daemon *d, struct program *p,
			 const struct conf *nc)
{
	struct sampler_cfg sc = sampler_cfg_of(nc);
	struct program *run = sampler_get(d->sampler);

	if (run && program_same(run, p)) {
		program_put(p);
		p = NULL;
		log_info("reload: the baseline is unchanged: its ring is kept "
			 "(newest sample %llu)", (unsigned long long)
			 ring_head(run->samples));
	} else if (run) {
		log_info("reload: a new baseline: its samples start after "
			 "sequence number %llu", (unsigned long long)
			 ring_head(run->samples));
	}
	program_put(run);
	sampler_swap(d->sampler, p, &sc);
}

static void reload(struct daemon *d, const struct options *o, struct conf *cur,
		   const struct webcfg *web)
{
	struct conf nc;
	struct program *p;
	char err[1024];
	enum log_level lvl;
	unsigned kept;

	log_info("SIGHUP: reloading %s", o->conf_path);
	sd_notify(0, "RELOADING=1");
	{
		/* perf: the kernel PMUs that went away, looked for again
		   whatever the configuration says */
		char msg[1024];
		int n = sampler_reprobe(d->sampler, msg, sizeof(msg));

		if (n < 0)
			log_warnx("SIGHUP: cannot look for the lost PMUs: %s",
				  strerror(-n));
		else if (msg[0])
			log_msg(n ? LOG_LVL_INFO : LOG_LVL_WARN,
				"SIGHUP: perf: %s", msg);
	}
	if (load_conf(o, &nc, err, sizeof(err)) < 0) {
		log_err("reload failed, keeping the running configuration: %s%s%s%s",
			err, priv_target.drop ? " (uncored runs as user " : "",
			priv_target.drop ? priv_target.name : "",
			priv_target.drop ? " since start-up: the file must be "
			"readable by it)" : "");
		goto out;
	}
	apply_overrides(o, &nc);
	p = build_program(d, &nc, err, sizeof(err));
	if (!p) {
		log_err("reload failed, keeping the running configuration: %s", err);
		conf_free(&nc);
		goto out;
	}
	if (program_reachable(d, p, err, sizeof(err)) < 0) {
		log_err("reload failed, keeping the running configuration: the "
			"new baseline needs a device uncored did not open at "
			"start-up: %s", err);
		program_put(p);
		conf_free(&nc);
		goto out;
	}
	{
		char id[CLAIM_ID_MAX];
		unsigned max = claims_max_interval_ms(d->claims, id);

		if (nc.interval_ms > max) {
			log_err("reload failed, keeping the running "
				"configuration: interval_ms %u is longer than "
				"live claim %s allows (%u ms: its counters could "
				"wrap twice); release it first", nc.interval_ms,
				id, max);
			program_put(p);
			conf_free(&nc);
			goto out;
		}
	}
	kept = keep_restart_only(&nc, cur);
	kept += reload_web(&nc, web);
	swap_program(d, p, &nc);
	if (level_of(nc.log_level, &lvl) == 0)
		log_set_level(lvl);
	d->allow_raw_events = nc.allow_raw_events;
	{
		struct claims_cfg cc = claims_cfg_of(&nc);

		claims_set_cfg(d->claims, &cc);	/* live claims are kept */
	}
	conf_free(cur);
	*cur = nc;
	if (kept)
		log_warnx("configuration reloaded, except %u setting%s that "
			  "need%s a restart (above)", kept, kept == 1 ? "" : "s",
			  kept == 1 ? "s" : "");
	else
		log_info("configuration reloaded");
out:
	sd_notify(0, "READY=1");
}

/* ---- -n ------------------------------------------------------------- */

/*
 * uncored -n: every check start-up makes on the configuration, without
 * touching the PMU, the listeners or the run directory: the platform
 * (the CPU, or the simulator's platform and workload file), the
 * baseline against it, the interval against the counters' wrap time,
 * the control socket's group.  On hardware the platform's simulated
 * model (its largest configuration) stands in for the machine, so -n
 * needs no privilege.  Frees what it allocates.  Returns the exit
 * status: 0 valid, 1 not.
 */
static int check_config(const struct options *o, const struct conf *c)
{
	struct daemon d = { 0 };
	struct backend_opts bo = { .simulate = true };
	struct program *p;
	char why[4096];
	int status = 1;
	gid_t gid;

	if (backend_parse(c->backend, &bo.want) < 0)
		bo.want = BACKEND_AUTO;
	if (simulating(o, c)) {
		sim_opts_of(o, c, &bo.sim);
	} else {
		const struct platform *hp = backend_cpu_platform(c->sysfs, why,
								 sizeof(why));

		if (!hp && strcmp(c->unavailable, "serve") == 0) {
			/* start-up serves the reason: nothing else to check
			 * against a platform */
			printf("%s: configuration OK, but nothing can be "
			       "counted here: %s. Start-up would serve that "
			       "reason ([daemon] unavailable = serve); to check "
			       "the rest for another machine, add "
			       "--simulate=PLATFORM\n",
			       c->path ? c->path : "defaults", why);
			return 0;
		}
		if (!hp) {
			fprintf(stderr, "uncored: %s (start-up would exit %d). To "
				"check a configuration for another machine, add "
				"--simulate=PLATFORM\n", why, EXIT_CPU);
			return 1;
		}
		if (plat_is_generic(hp)) {
			/* built from this kernel's PMUs: nothing to simulate
			 * it with; the configuration's keys are checked */
			printf("%s: configuration OK (platform generic: the "
			       "CPU matches no table, its kernel's uncore PMUs "
			       "would be counted by their own names)\n",
			       c->path ? c->path : "defaults");
			plat_generic_free(hp);
			return 0;
		}
		bo.sim.sim_platform = hp->id;
	}
	if (c->control_group[0] && http_lookup_group(c->control_group, &gid) < 0) {
		fprintf(stderr, "uncored: %s: [http] control_group: unknown group "
			"\"%s\"\n", c->path ? c->path : "defaults",
			c->control_group);
		return 1;
	}
	if (backend_open(&d, &bo, why, sizeof(why)) != 0) {
		fprintf(stderr, "uncored: %s\n", why);
		goto out;
	}
	p = build_program(&d, c, why, sizeof(why));
	if (!p) {
		fprintf(stderr, "uncored: %s\n", why);
		goto out;
	}
	program_put(p);
	printf("%s: configuration OK (platform %s, %s backend%s)\n",
	       c->path ? c->path : "defaults", d.plat->id, d.backend,
	       simulating(o, c) ? ", simulator" : "");
	status = 0;
out:
	pmu_free(&d.pmu);
	backend_close(&d);
	return status;
}

/* ---- main ----------------------------------------------------------- */

/*
 * Reads the configuration the command line names and applies the
 * command line over it, then the web config (its TLS files while they are
 * readable, as root).  0, or the exit status with the message printed.
 */
static int configure(const struct options *o, struct conf *conf,
		     struct webcfg *web)
{
	enum log_level lvl = LOG_LVL_INFO;
	char err[1024];

	if (load_conf(o, conf, err, sizeof(err)) < 0) {
		fprintf(stderr, "uncored: %s\n", err);
		return 1;
	}
	apply_overrides(o, conf);
	if (level_of(conf->log_level, &lvl) < 0) {
		fprintf(stderr, "uncored: --log-level: \"%s\" is not one of error, "
			"warning, notice, info, debug\n", conf->log_level);
		conf_free(conf);
		return EXIT_USAGE;
	}
	log_set_level(lvl);
	if ((o->workload || o->sim_state) && !simulating(o, conf)) {
		fprintf(stderr, "uncored: --workload and --sim-state need "
			"--simulate (or [sim] platform)\n");
		conf_free(conf);
		return EXIT_USAGE;
	}
	if (load_web(conf, web, err, sizeof(err), true) < 0) {
		fprintf(stderr, "uncored: %s\n", err);
		conf_free(conf);
		return 1;
	}
	return 0;
}

/* uncored -n: the checks, and the web config's summary.  Exit status. */
static int check_only(const struct options *o, struct conf *conf,
		      struct webcfg *web)
{
	int status = check_config(o, conf);

	if (status == 0 && web->path) {
		char what[160];

		webcfg_describe(web, what, sizeof(what));
		printf("%s: web config OK (%s)\n", web->path, what);
	}
	webcfg_free(web);
	conf_free(conf);
	return status;
}

/* Signals are handled synchronously through a signalfd; they are blocked
 * before any thread starts so every thread inherits the mask.  The fd. */
static int signals_fd(void)
{
	sigset_t mask;
	int sfd;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0)
		log_fatalx(1, "signalfd: %s", strerror(errno));
	return sfd;
}

/*
 * Start-up in the least-privilege order: the backend and the PMU layer,
 * the baseline program, ownership, the claims and the sampler, the first
 * reading, the listeners (which drop privileges), then the sampler
 * thread.  Exits on failure; returns the baseline program (the
 * sampler's, valid until a reload replaces it), or NULL where nothing can
 * be counted and [daemon] unavailable = serve (open_backend()).
 */
/* intel_uncore_frequency where the daemon's kernel is: the real one's
 * (--path.sysfs, default /sys), the simulated kernel's tree, or, on the
 * simulator's registers, only a tree --path.sysfs ([daemon] sysfs) names
 * other than /sys (`uncore-sim sysfs DIR`): never the host's limits
 * beside simulated counts. */
static struct ufreq_mon *ufreq_mon_new_for(const struct daemon *d,
					   const struct conf *conf)
{
	if (d->simulated && !d->skern &&
	    (!conf->sysfs || strcmp(conf->sysfs, "/sys") == 0)) {
		log_info("intel_uncore_frequency: the simulator's registers "
			 "have no kernel: uncore clock limits are not exported "
			 "(--backend=perf has them, or --path.sysfs with a tree "
			 "from `uncore-sim sysfs DIR`)");
		return NULL;
	}
	return ufreq_mon_new(d->sysfs ? d->sysfs : "/sys");
}

static const struct program *start(struct daemon *d, const struct options *o,
				   struct conf *conf, struct webcfg *web)
{
	struct program *prog;
	struct sampler_cfg scfg;
	struct claims_cfg cc;
	struct timespec ts;
	char err[1024];

	d->pid = getpid();
	d->start_mono_ns = daemon_mono_ns();
	clock_gettime(CLOCK_REALTIME, &ts);
	d->start_time_s = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	if (open_backend(d, o, conf) < 0)
		return NULL;
	prog = build_program(d, conf, err, sizeof(err));
	if (!prog)
		log_fatalx(1, "%s", err);
	/* Held until the sampler takes it; owner_take() may exit, and
	 * what it still holds then is in use, not leaked. */
	boot_prog = prog;
	owner_take(d, conf->takeover);
	if (pmu_reset_boxes(&d->pmu) < 0)
		log_warnx("resetting the uncore boxes: %s", hw_last_error());
	d->allow_raw_events = conf->allow_raw_events;
	scfg = sampler_cfg_of(conf);
	cc = claims_cfg_of(conf);
	d->claims = claims_new(&d->pmu, &cc);
	d->sampler = d->claims ? sampler_new(&d->pmu, prog, &scfg, d->claims)
			       : NULL;
	d->expo = expo_new();
	if (!d->sampler || !d->expo)
		log_fatalx(1, "out of memory");
	sampler_hook_claims(d->sampler);	/* read-now, pinned claims */
	sampler_tick(d->sampler);	/* programs the PMU, first reading */
	/* resctrl on its own thread and interval: its reads never delay the
	 * tick (doc/resctrl.md).  A failure here costs only these families.
	 * Made before the HTTP server, whose thread reads d->resctrl. */
	if (conf->resctrl_enabled) {
		d->resctrl = rdt_mon_new(conf->resctrl_path, conf->sysfs);
		if (!d->resctrl)
			log_warnx("resctrl: out of memory: per-group memory "
				  "bandwidth is off");
		else if (conf->resctrl_cgroups[0])
			rdt_mon_set_own(d->resctrl, own_groups(conf));
	}
	/* intel_uncore_frequency: opened here, before the privilege drop
	 * (current_freq_khz, package_id are 0400), read once a second on
	 * its own thread (doc/metrics.md "Uncore clock limits"). */
	d->ufreq = ufreq_mon_new_for(d, conf);
	/* energy: the RAPL MSRs or the power PMU's events opened here, before
	 * the privilege drop, read on its own thread (core/energy.h) */
	d->energy = backend_energy(d);
	if (!d->energy)
		log_warnx("energy: out of memory: no uncore_energy_joules_total");
	else if (energy_mon_absent(d->energy)[0])
		log_info("energy: uncore_energy_joules_total is absent: %s",
			 energy_mon_absent(d->energy));
	/* the package thermal-throttle counters (core/throttle.h): 0444
	 * files, read once a second on their own thread */
	d->throttle = backend_throttle(d, conf->sysfs);
	if (!d->throttle)
		log_warnx("thermal_throttle: out of memory: no "
			  "uncore_frequency_limited_seconds_total from it");
	else if (throttle_mon_absent(d->throttle)[0])
		log_info("thermal_throttle: uncore_frequency_limited_seconds_"
			 "total{domain=\"package\",reason=\"thermal\"} is "
			 "absent: %s", throttle_mon_absent(d->throttle));
	d->http = start_http(d, conf, web, api_routes, api_nroutes, d,
			     drop_privileges);
	/*
	 * Their threads start only now, after drop_privileges(): capabilities
	 * and no_new_privs are per thread, so a thread started before the
	 * drop would keep every capability the daemon was started with (as
	 * the resctrl and uncore-frequency threads did under the shipped
	 * unit's AmbientCapabilities; tests/scenario/daemon_priv.sh looks at
	 * every thread).
	 */
	if (d->resctrl &&
	    rdt_mon_start(d->resctrl, conf->resctrl_interval_s * 1000) < 0)
		log_warnx("resctrl: cannot start its thread: per-group memory "
			  "bandwidth is read once, at start-up, only");
	if (d->ufreq && ufreq_mon_start(d->ufreq, 1000) < 0)
		log_warnx("intel_uncore_frequency: cannot start its thread: "
			  "uncore clock limits are read once, at start-up, "
			  "only");
	if (d->throttle && throttle_mon_start(d->throttle, 1000) < 0)
		log_warnx("thermal_throttle: cannot start its thread: the "
			  "counters stay at their first read");
	if (d->energy && energy_mon_start(d->energy) < 0)
		log_warnx("energy: cannot start its thread: "
			  "uncore_energy_joules_total stays at its first read");
	if (sampler_start(d->sampler) < 0)
		log_fatalx(1, "cannot start the sampler thread: %s",
			   strerror(errno));
	return prog;
}

/* The start-up line, the backend's reason, the paths the baseline took,
 * READY=1 with STATUS=. */
static void announce(const struct daemon *d, const struct conf *conf,
		     const struct program *prog)
{
	log_info("uncored %s (revision %s): platform %s (%s backend%s), %u "
		 "socket%s, %u counters, interval %u ms", PACKAGE_VERSION,
		 UNCORED_REVISION, d->plat->id, d->backend,
		 d->simulated ? ", simulator" : "", d->topo.nsockets,
		 d->topo.nsockets == 1 ? "" : "s", prog->ns, conf->interval_ms);
	log_info("backend %s: %s", d->backend, d->backend_why);
	log_paths(prog);
	sd_notifyf(0, "READY=1\nSTATUS=platform %s (%s backend%s), %u counters, "
		   "interval %u ms", d->plat->id, d->backend,
		   d->simulated ? ", simulator" : "", prog->ns,
		   conf->interval_ms);
}

/* Says which signal stops the daemon and who sent it: an operator (or a
 * test) finding a daemon stopped learns by whom, from the log alone. */
static void log_stop_signal(const struct signalfd_siginfo *si)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (si->ssi_code != SI_USER && si->ssi_code != SI_QUEUE) {
		/* the kernel's own (a terminal's ^C), no sender */
		log_info("%s: stopping", strsignal((int)si->ssi_signo));
		return;
	}
	snprintf(path, sizeof(path), "/proc/%u/comm", (unsigned)si->ssi_pid);
	if ((f = fopen(path, "re"))) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	log_info("%s (from pid %u \"%s\", uid %u): stopping",
		 strsignal((int)si->ssi_signo), (unsigned)si->ssi_pid,
		 comm[0] ? comm : "?", (unsigned)si->ssi_uid);
}

/*
 * Until SIGTERM or SIGINT: SIGHUP reloads, and the systemd watchdog is
 * petted only while the sampler ticks (within sampler_stall_ns()).
 */
static void serve(struct daemon *d, const struct options *o,
		  struct conf *conf, struct webcfg *web, int sfd)
{
	uint64_t wd_usec = 0;
	bool stop = false;

	if (sd_watchdog_enabled(0, &wd_usec) <= 0)
		wd_usec = 0;
	while (!stop) {
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };
		int timeout = wd_usec ? (int)(wd_usec / 2000) : -1;
		struct signalfd_siginfo si;
		int r = poll(&pfd, 1, timeout);

		if (r < 0 && errno != EINTR)
			log_fatalx(1, "poll: %s", strerror(errno));
		if (wd_usec) {
			uint64_t last = sampler_last_tick(d->sampler);

			if (last && daemon_mono_ns() - last <=
					    sampler_stall_ns(d->sampler))
				sd_notify(0, "WATCHDOG=1");
		}
		if (r <= 0 || !(pfd.revents & POLLIN) ||
		    read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGHUP) {
			reload(d, o, conf, web);
		} else if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
			log_stop_signal(&si);
			stop = true;
		}
	}
}

/* A clean stop: listeners closed, the sampler stopped, the PMU left idle
 * (every control written cleared; perf: every event closed, which the
 * simulated kernel counts and the last line says), the owner file
 * removed. */
static void shut_down(struct daemon *d, struct conf *conf, struct webcfg *web)
{
	int left;

	sd_notify(0, "STOPPING=1");
	http_stop(d->http);
	expo_free(d->expo);
	rdt_mon_free(d->resctrl);
	ufreq_mon_free(d->ufreq);
	throttle_mon_free(d->throttle);	/* before the simulated kernel */
	d->throttle = NULL;
	energy_mon_free(d->energy);	/* its events close before the count */
	d->energy = NULL;
	d->resctrl = NULL;
	sampler_stop(d->sampler);
	if (pmu_release(&d->pmu) < 0)
		log_warnx("leaving the PMU idle: %s", hw_last_error());
	left = backend_sim_events(d);
	owner_release(d->owner_path);
	sampler_free(d->sampler);
	claims_free(d->claims);
	pmu_free(&d->pmu);
	backend_close(d);
	webcfg_free(web);
	conf_free(conf);
	if (left < 0)
		log_info("stopped; the uncore PMU is idle");
	else
		log_info("stopped; the uncore PMU is idle (simulated kernel: "
			 "%d perf events open)", left);
}

/*
 * uncored's own MON groups for [resctrl] cgroups (doc/resctrl.md "Groups
 * per cgroup").  Moving another user's thread needs euid 0 - the kernel
 * checks the uid, not a capability - so when the daemon is about to
 * become [daemon] user, a helper that keeps uid 0 and nothing else does
 * the writes (resctrl_priv.h).  Forked here, before any thread starts.
 */
static struct rdt_own *own_groups(const struct conf *conf)
{
	struct rdt_own_cfg oc = {
		.patterns = conf->resctrl_cgroups,
		.cgroup_root = conf->resctrl_cgroup_path,
		.resctrl_root = conf->resctrl_path,
		.max_groups = conf->resctrl_max_groups,
	};
	/* what the writer - the helper, when there is one - is allowed,
	 * fixed now (it trusts nothing the daemon says later) */
	struct rdt_writer_cfg wc = {
		.resctrl_root = conf->resctrl_path,
		.cgroup_root = conf->resctrl_cgroup_path,
		.patterns = conf->resctrl_cgroups,
		.max_groups = conf->resctrl_max_groups,
		.simulated = conf->resctrl_simulated,
	};
	struct rdt_writer *w;
	struct rdt_own *o;
	char why[600];
	pid_t pid;

	if (priv_target.drop) {
		w = rdt_helper_start(&wc, &pid, why, sizeof why);
		if (!w) {
			log_warnx("resctrl: cannot start the helper that makes "
				  "groups as uid 0: %s; no group per cgroup", why);
			return NULL;
		}
		log_info("resctrl: groups per cgroup are made by helper process "
			 "%d (uid 0, no capability)", (int)pid);
	} else {
		if (geteuid() != 0)
			log_warnx("resctrl: running as uid %u, uncored can move "
				  "only that user's threads into its groups (the "
				  "kernel asks for uid 0 to move another's): start "
				  "it as root, it becomes [daemon] user by itself",
				  (unsigned)geteuid());
		w = rdt_writer_open(&wc, why, sizeof why);
		if (!w) {
			log_warnx("resctrl: %s; no group per cgroup", why);
			return NULL;
		}
	}
	if (!(o = rdt_own_new(&oc, w)))
		log_warnx("resctrl: out of memory: no group per cgroup");
	return o;
}

/* ---- nothing to count ([daemon] unavailable = serve) ----------------- */

/* Called by http_start() before any thread starts: the daemon needs no
 * capability at all now, so it keeps none (and becomes [daemon] user
 * where it can). */
static void drop_all(void *arg)
{
	char why[512];

	(void)arg;
	if (!priv_target.drop && !priv_target.caps_only)
		return;
	priv_target.keep_cap = 0;
	if (priv_target.drop)
		chown_control();	/* removable at exit, as drop_privileges() */
	if (priv_drop(&priv_target, why, sizeof(why)) < 0)
		log_fatalx(1, "%s", why);
	if (priv_target.drop)
		log_info("running as user %s (uid %u, gid %u) with no "
			 "capability", priv_target.name,
			 (unsigned)priv_target.uid, (unsigned)priv_target.gid);
	else
		log_info("every capability dropped; running as uid %u",
			 (unsigned)getuid());
}

/*
 * Serves the reason nothing can be counted (unavail.h) until SIGTERM or
 * SIGINT; a reload changes nothing (restart to look again).  Returns the
 * exit status, 0.
 */
static int serve_unavailable(struct daemon *d, struct conf *conf,
			     struct webcfg *web, int sfd)
{
	static struct unavail u;
	struct timespec ts;
	uint64_t wd_usec = 0;
	bool stop = false;

	clock_gettime(CLOCK_REALTIME, &ts);
	u.version = PACKAGE_VERSION;
	u.revision = UNCORED_REVISION;
	u.build_date = UNCORED_BUILD_DATE;
	u.reason = unavail_why;
	u.exit_status = unavail_status;
	u.start_time_s = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	log_warnx("nothing can be counted here: %s. Serving /metrics with "
		  "uncored_counting_available 0 and the reason ([daemon] "
		  "unavailable = serve; without it uncored exits %d)",
		  unavail_why, unavail_status);
	d->http = start_http(d, conf, web, unavail_routes, unavail_nroutes, &u,
			     drop_all);
	sd_notifyf(0, "READY=1\nSTATUS=counting unavailable: %.200s",
		   unavail_why);
	if (sd_watchdog_enabled(0, &wd_usec) <= 0)
		wd_usec = 0;
	while (!stop) {
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };
		struct signalfd_siginfo si;
		int r = poll(&pfd, 1, wd_usec ? (int)(wd_usec / 2000) : -1);

		if (r < 0 && errno != EINTR)
			log_fatalx(1, "poll: %s", strerror(errno));
		if (wd_usec)
			sd_notify(0, "WATCHDOG=1");
		if (r <= 0 || !(pfd.revents & POLLIN) ||
		    read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGHUP)
			log_warnx("SIGHUP: nothing is counted, nothing to "
				  "reload; restart uncored to look for the "
				  "counters again");
		else if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
			log_stop_signal(&si);
			stop = true;
		}
	}
	sd_notify(0, "STOPPING=1");
	http_stop(d->http);
	webcfg_free(web);
	conf_free(conf);
	log_info("stopped");
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	struct conf conf;
	struct daemon d = { .version = PACKAGE_VERSION,
			    .revision = UNCORED_REVISION,
			    .build_date = UNCORED_BUILD_DATE };
	struct webcfg web;
	char err[1024];
	const struct program *prog;
	int rc, sfd;

	cli_parse(argc, argv, &o);
	log_init("uncored", LOG_LVL_INFO);
	if (o.log_format && strcmp(o.log_format, "auto") != 0)
		log_set_journal(strcmp(o.log_format, "journal") == 0);
	if ((rc = configure(&o, &conf, &web)) != 0)
		return rc;
	if (o.self_test) {
		rc = self_test(&o, &conf);
		conf_free(&conf);
		return rc;
	}
	if (!o.check_only && priv_resolve(conf.user, &priv_target, err,
					  sizeof(err)) < 0) {
		fprintf(stderr, "uncored: %s\n", err);
		conf_free(&conf);
		return 1;
	}
	if (o.check_only)
		return check_only(&o, &conf, &web);
	sfd = signals_fd();
	prog = start(&d, &o, &conf, &web);
	if (!prog) {
		rc = serve_unavailable(&d, &conf, &web, sfd);
		close(sfd);
		return rc;
	}
	announce(&d, &conf, prog);
	serve(&d, &o, &conf, &web, sfd);
	shut_down(&d, &conf, &web);
	close(sfd);
	return 0;
}
