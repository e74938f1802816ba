/*
 * backend.c - choosing the way to the counters (see backend.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/capability.h>

#include "backend.h"
#include "core/daemon.h"
#include "core/energy.h"
#include "core/throttle.h"
#include "hw/perf_event.h"
#include "hw/perf_sysfs.h"
#include "hyperv.h"
#include "base/log.h"
#include "plat/plat_generic.h"
#include "pmu/pmu_perf.h"
#include "priv.h"
#include "sim/hw_sim.h"
#include "sim/sim_kernel.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

int backend_parse(const char *s, enum backend_want *out)
{
	static const char *const names[] = { "auto", "direct", "perf" };

	for (unsigned i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum backend_want)i;
			return 0;
		}
	return -1;
}

unsigned backend_kernel_uncore(const char *sysfs, char *buf, size_t len)
{
	char path[4096];
	struct dirent *e;
	unsigned n = 0;
	size_t used = 0;
	DIR *dir;

	if (len)
		buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/bus/event_source/devices", sysfs);
	if (!(dir = opendir(path)))
		return 0;
	while ((e = readdir(dir))) {
		if (strncmp(e->d_name, "uncore_", 7) != 0 &&
		    strncmp(e->d_name, "amd_df", 6) != 0 &&
		    strncmp(e->d_name, "amd_l3", 6) != 0 &&
		    strncmp(e->d_name, "amd_umc_", 8) != 0)
			continue;
		if (used + 1 < len) {
			int w = snprintf(buf + used, len - used, "%s%s",
					 n ? ", " : "", e->d_name);

			used += w > 0 ? (size_t)w : 0;
		}
		n++;
	}
	closedir(dir);
	return n;
}

/* What perf mode must keep after the privilege drop to open events for
 * new claims: nothing where perf_event_paranoid allows every user, else
 * CAP_PERFMON, or CAP_SYS_ADMIN on kernels before 5.8 (no CAP_PERFMON)
 * and at paranoid >= 3. */
static int perf_cap_of(const struct pev_priv *st)
{
	if (st->paranoid <= 0)
		return -1;
	/* Debian's and Ubuntu's kernels let only CAP_SYS_ADMIN past
	 * perf_event_paranoid >= 3 (pev_access(), doc/hardware-notes.md) */
	if (st->paranoid >= 3 || !st->knows_perfmon)
		return CAP_SYS_ADMIN;
	return CAP_PERFMON;
}

/*
 * d->plat as this machine has it (plat_machine()): where the kernel reads
 * a unit's counter count from CPUID (AMD DF: 0x80000022 EBX NumDfPmc),
 * so does the daemon - the host CPU's CPUID, as the kernel reads it at
 * boot (the perf backend has no other word for it: amd_df has no sysfs
 * file with its count), or the simulated CPU's on the simulator (d->hw
 * open there).  Said once in the log.  0, or -ENOMEM with why.
 */
static int machine_plat(struct daemon *d, char *why, size_t whylen)
{
	const struct platform *m;

	if (d->plat_table)
		return 0;
	if (plat_machine(d->plat, hw_cpuid_fn, d->hw.ops ? &d->hw : NULL, &m,
			 d->cpuid_note, sizeof(d->cpuid_note)) < 0) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	if (d->cpuid_note[0])
		log_info("%s counters from the CPU: %s", d->plat->id,
			 d->cpuid_note);
	d->plat_table = d->plat;
	d->plat = m;
	return 0;
}

/*
 * Sets up the perf backend over sysfs/ops: the privilege check first
 * (before anything is opened), then discovery.  0, or -errno with why.
 */
static int open_perf(struct daemon *d, const struct backend_opts *o,
		     const struct pmu_perf_opts *po, const char *procfs,
		     char *why, size_t whylen)
{
	struct pmu_perf *pp;
	struct pev_priv st;
	char msg[1024];
	int r;

	if ((r = pev_access(procfs, msg, sizeof(msg))) < 0) {
		snprintf(why, whylen, "perf: %s", msg);
		return r;
	}
	if (pev_priv_read(procfs, &st, msg, sizeof(msg)) == 0)
		d->perf_cap = perf_cap_of(&st);
	if ((r = machine_plat(d, why, whylen)) < 0)
		return r;
	d->topo.plat = d->plat;
	r = pmu_perf_discover(d->plat, po, &d->topo, &pp, msg, sizeof(msg));
	if (r < 0) {
		snprintf(why, whylen, "perf: %s", msg);
		return r;
	}
	if (pmu_perf_missing(pp)[0])
		snprintf(d->perf_missing, sizeof(d->perf_missing), "%s",
			 pmu_perf_missing(pp));
	if ((r = pmu_init_perf(&d->pmu, &d->hw, &d->topo, pp)) < 0) {
		snprintf(why, whylen, "perf: %s", hw_last_error());
		return r;
	}
	d->backend = "perf";
	(void)o;
	return 0;
}

/* The direct backend over an open d->hw: discovery and the PMU layer.
 * 0, or -errno with why. */
static int open_direct(struct daemon *d, char *why, size_t whylen)
{
	struct hw_cpu_map map;

	hw_cpu_map_of(&d->hw, &map);
	if (machine_plat(d, why, whylen) < 0)
		return -ENOMEM;
	d->topo.plat = d->plat;
	if (plat_discover(d->plat, &d->hw, &d->topo, &map) < 0) {
		snprintf(why, whylen, "discovering the %s uncore: %s",
			 d->plat->id, hw_last_error());
		return -EIO;
	}
	if (d->topo.note[0])	/* served, but not all of it */
		log_warnx("%s uncore: %s", d->plat->id, d->topo.note);
	if (pmu_init(&d->pmu, &d->hw, &d->topo) < 0) {
		snprintf(why, whylen, "setting up the %s PMU: %s", d->plat->id,
			 hw_last_error());
		return -EIO;
	}
	d->backend = "direct";
	return 0;
}

static bool has_direct(const struct platform *p)
{
	return !p->backends || (p->backends & PLAT_BE_DIRECT);
}

static bool has_perf(const struct platform *p)
{
	return p->backends & PLAT_BE_PERF;
}

/* The simulated kernel whose tree exit() removes: a fatal error after
 * start-up (a port in use, a bad TLS file) ends the daemon through
 * exit() without backend_close(), and the tree would stay in $TMPDIR. */
static struct skern *exit_skern;
static bool exit_armed;

static void remove_exit_tree(void)
{
	skern_remove_tree(exit_skern);
}

/*
 * Does the workload simulate a CPU no table knows ("perf": {"cpu_model":
 * N}: the workload platform's PMUs under another model)?  1 (desc says
 * which CPU), 0 (the platform's own CPU, or a model of that same
 * platform), -1 with why: a model another platform's table claims (the
 * simulated kernel would not match the CPU).
 */
static int sim_unknown_cpu(struct daemon *d, char *desc, size_t dlen,
			   char *why, size_t whylen)
{
	const struct workload *w = hw_sim_workload(&d->hw);
	struct plat_cpu cpu = { "GenuineIntel", 0, 0, 0 };
	const struct platform *t;

	if (!w || !w->perf.cpu_model || !d->plat->cpus)
		return 0;
	snprintf(cpu.vendor, sizeof(cpu.vendor), "%s",
		 d->plat->vendor ? d->plat->vendor : "GenuineIntel");
	cpu.family = d->plat->cpus[0].family;
	cpu.model = w->perf.cpu_model;
	snprintf(desc, dlen, "%s family 0x%x model 0x%x", cpu.vendor,
		 cpu.family, cpu.model);
	if (!(t = plat_for_cpu(&cpu)))
		return 1;
	if (t == d->plat)
		return 0;
	snprintf(why, whylen, "%s: perf.cpu_model 0x%x is platform %s's, not "
		 "the workload's %s", w->source, cpu.model, t->id, d->plat->id);
	return -1;
}

/* The simulator: its registers (direct), or the simulated kernel over
 * it (perf). */
static int open_sim(struct daemon *d, const struct backend_opts *o, char *why,
		    size_t whylen)
{
	struct hw_opts ho = o->sim;
	const struct platform *p = ho.sim_platform ? plat_by_id(ho.sim_platform)
						   : NULL;
	bool perf = o->want == BACKEND_PERF ||
		    (o->want == BACKEND_AUTO && p && !has_direct(p));
	struct pmu_perf_opts po = { 0 };
	char desc[96] = "";
	int r, generic;

	d->simulated = true;
	ho.sim_no_registers = perf;
	r = hw_open(&d->hw, &hw_sim_ops, &ho);
	if (r == -EOPNOTSUPP && o->want == BACKEND_AUTO && !perf) {
		/* the workload names a platform the simulator reaches
		 * through its kernel only */
		perf = ho.sim_no_registers = true;
		r = hw_open(&d->hw, &hw_sim_ops, &ho);
	}
	if (r < 0) {
		snprintf(why, whylen, "%s", hw_last_error());
		return 1;
	}
	d->plat = plat_of_hw(&d->hw);
	generic = sim_unknown_cpu(d, desc, sizeof(desc), why, whylen);
	if (generic < 0)
		return 1;
	if (generic && !perf) {
		snprintf(why, whylen, "the simulated CPU (%s) matches no "
			 "platform table: platform generic is reached through "
			 "the perf backend only (use --backend=perf or auto)",
			 desc);
		return 1;
	}
	if (!perf) {
		if (!has_direct(d->plat)) {
			snprintf(why, whylen, "platform %s is reached through "
				 "the perf backend only: use --backend=perf or "
				 "auto", d->plat->id);
			return 1;
		}
		snprintf(d->backend_why, sizeof(d->backend_why), "%s: the "
			 "simulator's registers", o->want == BACKEND_AUTO ?
			 "auto" : "--backend=direct");
		if (o->sim.sim_state)
			snprintf(d->owner_path, sizeof(d->owner_path),
				 "%s.owner", o->sim.sim_state);
		return open_direct(d, why, whylen) < 0 ? 1 : 0;
	}
	if (!has_perf(d->plat)) {
		snprintf(why, whylen, "platform %s has no kernel PMU facts: the "
			 "perf backend cannot count it (use --backend=direct)",
			 d->plat->id);
		return 1;
	}
	if ((r = skern_open(&d->skern, &d->hw, NULL, why, whylen)) < 0)
		return 1;
	if (!exit_armed && atexit(remove_exit_tree) != 0)
		log_warnx("cannot arrange for the simulated kernel's tree "
			  "to be removed at exit");
	exit_armed = true;
	exit_skern = d->skern;
	po.sysfs = d->sysfs = skern_sysfs(d->skern);
	if (generic) {
		const struct platform *g;
		char gwhy[600];

		if (plat_generic_build(po.sysfs, d->plat->vendor, &g, gwhy,
				       sizeof(gwhy)) < 0) {
			snprintf(why, whylen, "unsupported CPU: %s, and %s", desc,
				 gwhy);
			return BACKEND_EXIT_CPU;
		}
		d->plat = g;
		backend_log_generic(g, desc);
	}
	po.ops = &skern_pev_ops;
	po.ctx = d->skern;
	snprintf(d->backend_why, sizeof(d->backend_why), "%s: the simulated "
		 "kernel's uncore PMUs", o->want == BACKEND_PERF ?
		 "--backend=perf" : "auto, the platform is perf-only");
	if (open_perf(d, o, &po, skern_procfs(d->skern), why, whylen) < 0)
		return BACKEND_EXIT_KERNEL;
	return 0;
}

void backend_log_generic(const struct platform *p, const char *cpu)
{
	const struct gen_family *f = plat_generic_families(p);

	if (!f)
		return;
	log_info("platform generic: %s matches no platform table; counting "
		 "the kernel's uncore PMUs by their own names (%zu events)",
		 cpu, p->nevents);
	for (unsigned i = 0; i < PLAT_GENERIC_NFAMILIES; i++) {
		if (f[i].present)
			log_info("platform generic: %s from %s", f[i].metric,
				 f[i].text);
		else
			log_warnx("platform generic: no %s: %s", f[i].metric,
				  f[i].text);
	}
	if (plat_generic_notes(p)[0])
		log_warnx("platform generic: left out: %s",
			  plat_generic_notes(p));
}

const struct platform *backend_cpu_platform(const char *sysfs, char *why,
					    size_t len)
{
	struct plat_cpu cpu = { "unknown", 0, 0, 0 };
	const struct platform *p = NULL;
	char names[1024], pmus[512];
	const char *refused;
	unsigned n;

	if (!sysfs)
		sysfs = "/sys";
	if (plat_cpuid(&cpu) == 0 && (p = plat_for_cpu(&cpu)))
		return p;
	n = backend_kernel_uncore(sysfs, pmus, sizeof(pmus));
	refused = plat_refusal(&cpu);
	if (n && !refused) {
		/* a CPU newer than the tables: what its kernel knows */
		char gwhy[600], desc[96];

		if (plat_generic_build(sysfs, cpu.vendor, &p, gwhy,
				       sizeof(gwhy)) == 0) {
			snprintf(desc, sizeof(desc), "%s family 0x%x model 0x%x",
				 cpu.vendor, cpu.family, cpu.model);
			backend_log_generic(p, desc);
			return p;
		}
		log_warnx("platform generic: %s", gwhy);
	}
	snprintf(why, len, "unsupported CPU: %s family %u (0x%x) model %u "
		 "(0x%x) stepping %u%s%s. Supported platforms: %s. The kernel %s "
		 "(%s/bus/event_source/devices%s%s%s)", cpu.vendor, cpu.family,
		 cpu.family, cpu.model, cpu.model, cpu.stepping,
		 refused ? ". " : "", refused ? refused : "",
		 plat_list(names, sizeof(names), true),
		 n ? "exposes uncore PMUs the perf backend could use once the "
		     "platform is known" : "exposes no uncore PMU the perf "
		     "backend could use", sysfs, n ? ": " : "", n ? pmus : "",
		 "");
	return NULL;
}

/* Can the daemon program this machine's PMU itself?  0 and d->hw open,
 * or -1 with the rule that forbids it in why. */
static int try_direct(struct daemon *d, const struct backend_opts *o,
		      char *why, size_t whylen)
{
	static const struct hw_opts none;
	char msg[1024];

	if (!has_direct(d->plat)) {
		snprintf(why, whylen, "the %s platform has no register tables "
			 "(it is reached through the kernel's perf PMUs only)",
			 d->plat->id);
		return -1;
	}
	if (priv_kernel_rules(o->lockdown_path, o->allow_writes_path, msg,
			      sizeof(msg))) {
		snprintf(why, whylen, "%s", msg);
		return -1;
	}
	if (hw_open(&d->hw, &hw_real_ops, &none) < 0) {
		snprintf(why, whylen, "%s", hw_last_error());
		return -1;
	}
	return 0;
}

static int open_real(struct daemon *d, const struct backend_opts *o, char *why,
		     size_t whylen)
{
	const char *sysfs = o->sysfs ? o->sysfs : "/sys";
	const char *procfs = o->procfs ? o->procfs : "/proc";
	struct pmu_perf_opts po = { .sysfs = sysfs };
	char direct_why[1200] = "not tried (--backend=perf)";
	char perf_why[1200] = "not tried (--backend=direct)";

	if (!(d->plat = backend_cpu_platform(sysfs, why, whylen)))
		return BACKEND_EXIT_CPU;
	if (o->want != BACKEND_PERF) {
		if (try_direct(d, o, direct_why, sizeof(direct_why)) == 0) {
			if (mkdir(RUNSTATEDIR "/uncored", 0755) < 0 &&
			    errno != EEXIST)
				log_warn("cannot create " RUNSTATEDIR "/uncored");
			snprintf(d->owner_path, sizeof(d->owner_path), "%s",
				 RUNSTATEDIR "/uncored/owner");
			snprintf(d->backend_why, sizeof(d->backend_why),
				 "%s: the daemon can program the PMU",
				 o->want == BACKEND_AUTO ? "auto"
							 : "--backend=direct");
			return open_direct(d, why, whylen) < 0 ? 1 : 0;
		}
		if (o->want == BACKEND_DIRECT) {
			snprintf(why, whylen, "direct: %s", direct_why);
			return BACKEND_EXIT_KERNEL;
		}
	}
	if (!has_perf(d->plat))
		snprintf(perf_why, sizeof(perf_why), "the %s platform has no "
			 "kernel PMU facts in this build", d->plat->id);
	else if (open_perf(d, o, &po, procfs, perf_why, sizeof(perf_why)) == 0) {
		snprintf(d->backend_why, sizeof(d->backend_why), "%s",
			 o->want == BACKEND_PERF ? "--backend=perf" : "auto");
		if (o->want == BACKEND_AUTO)
			snprintf(d->backend_why + strlen(d->backend_why),
				 sizeof(d->backend_why) - strlen(d->backend_why),
				 ": direct is not possible (%.400s)", direct_why);
		return 0;
	}
	snprintf(why, whylen, "no way to the uncore counters. direct: %s. %s%s",
		 direct_why, strncmp(perf_why, "perf: ", 6) ? "perf: " : "",
		 perf_why);
	return BACKEND_EXIT_KERNEL;
}

size_t backend_vm_note(const char *sysfs, char *buf, size_t len)
{
	char hv[96], pmus[8];

	if (len)
		buf[0] = '\0';
	if (backend_kernel_uncore(sysfs ? sysfs : "/sys", pmus, sizeof(pmus)) ||
	    !hv_detect(hv, sizeof(hv)))
		return 0;
	snprintf(buf, len, "this machine is a virtual machine (the CPUID "
		 "hypervisor bit is set; hypervisor: %s), and a hypervisor "
		 "rarely gives its guests an uncore PMU (Linux registers no "
		 "Intel uncore PMU under one): run uncored on the bare-metal host, "
		 "or on a bare-metal (.metal) cloud instance", hv);
	return strlen(buf);
}

int backend_open(struct daemon *d, const struct backend_opts *o, char *why,
		 size_t whylen)
{
	int r;

	d->perf_cap = -1;
	d->sysfs = o->sysfs ? o->sysfs : "/sys";
	r = o->simulate ? open_sim(d, o, why, whylen)
			: open_real(d, o, why, whylen);
	if (r != 0)
		backend_close(d);	/* a refusal leaves nothing behind:
					   the simulated kernel's tree */
	if (!o->simulate && (r == BACKEND_EXIT_CPU || r == BACKEND_EXIT_KERNEL)) {
		/* the likely cause, where no uncore PMU exists: a VM (never
		 * said of the simulator: it is not the host) */
		char vm[400];
		size_t n = strlen(why);

		if (backend_vm_note(o->sysfs, vm, sizeof(vm)) && n + 3 < whylen)
			snprintf(why + n, whylen - n, ". Likely cause: %s", vm);
	}
	return r;
}

int backend_give(struct daemon *d, uid_t uid, gid_t gid)
{
	return d->skern ? skern_give(d->skern, uid, gid) : 0;
}

void backend_close(struct daemon *d)
{
	/* the machine's copy first (machine_plat()), so that d->plat is the
	 * platform itself again - and then, if it was built for this CPU
	 * (generic), it goes too, leaving nothing that points at it */
	if (d->plat_table) {
		if (d->topo.plat == d->plat)
			d->topo.plat = d->plat_table;
		plat_machine_free(d->plat, d->plat_table);
		d->plat = d->plat_table;
		d->plat_table = NULL;
	}
	if (plat_is_generic(d->plat)) {
		if (d->topo.plat == d->plat)
			d->topo.plat = NULL;
		plat_generic_free(d->plat);
		d->plat = NULL;
	}
	if (exit_skern == d->skern)
		exit_skern = NULL;
	skern_close(d->skern);
	d->skern = NULL;
	if (d->hw.ops)
		hw_close(&d->hw);
}

struct energy_mon *backend_energy(struct daemon *d)
{
	if (strcmp(d->backend, "perf") == 0)
		return energy_mon_new_perf(d->sysfs,
					   d->skern ? &skern_pev_ops : NULL,
					   d->skern);
	return energy_mon_new_direct(&d->hw, &d->topo);
}

/* The simulated kernel's thermal_throttle/ files to its clock before a
 * read; a failure is said once (the files keep their last values). */
static void throttle_refresh(void *ctx)
{
	static bool said;
	char why[512];

	if (skern_sync_files(ctx, why, sizeof(why)) < 0 && !said) {
		said = true;
		log_warnx("simulated kernel: %s (said once)", why);
	}
}

struct throttle_mon *backend_throttle(struct daemon *d,
				      const char *conf_sysfs)
{
	if (d->simulated && !d->skern &&
	    (!conf_sysfs || strcmp(conf_sysfs, "/sys") == 0))
		return throttle_mon_new_absent("the simulator's registers "
			"have no kernel, so no thermal_throttle/ files "
			"(--backend=perf has them, or --path.sysfs with a tree "
			"from `uncore-sim sysfs DIR`)");
	return throttle_mon_new(d->sysfs ? d->sysfs : "/sys",
				d->skern ? throttle_refresh : NULL, d->skern);
}

int backend_sim_events(const struct daemon *d)
{
	return d->skern ? (int)skern_nevents(d->skern) : -1;
}
