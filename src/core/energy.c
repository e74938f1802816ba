/*
 * energy.c - energy per socket and RAPL domain (energy.h): the direct
 * backend's RAPL MSRs or the perf backend's power PMU, read on a thread
 * of its own, rendered from the last read.
 *
 * The read interval.  A 32-bit energy status counter of u joules a count
 * wraps after 2^32 u / P seconds at P watts (rapl_wrap_s()): 2^-14 J
 * (the ESU Xeons report) wraps after 262 s at 1000 W, 2^-16 J (the
 * hsx/skx/icx DRAM unit, AMD's ESU) after 65.5 s.  The direct backend
 * reads every min(ENERGY_INTERVAL_MAX_MS, wrap at RAPL_MAX_WATTS / 4):
 * 1 s for every unit of 2^-22 J or coarser, a read at least four times
 * per wrap for finer ones, so that each wrap is seen and counted once
 * (rapl_acc_add(): the distance modulo 2^32).  This is its own cadence,
 * not the sampler's tick, whose interval the user sets up to minutes.
 * The kernel extends its counters itself (rapl_hrtimer_handle(), every
 * 2^(32 - ESU - 1) x 5 ms), so the perf backend's reads only bound how
 * stale the page is: every second.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/periodic.h"
#include "base/prom.h"
#include "hw/hw.h"
#include "hw/perf_event.h"
#include "hw/perf_sysfs.h"
#include "plat/plat.h"
#include "energy.h"

#define EM_MAX_GROUPS 256	/* CPUs of the power PMU's cpumask */

/* A direct read: one MSR of one socket. */
struct em_msr {
	uint32_t cpu, msr;
	unsigned socket;
	enum rapl_dom dom;
	unsigned di;		/* into d[] */
	struct rapl_acc acc;
};

/* A perf group: the energy events on one CPU of the power PMU. */
struct em_group {
	struct pev_group *g;
	unsigned n;
	unsigned socket;
	enum rapl_dom dom[RAPL_NDOM];
	unsigned di[RAPL_NDOM];
	double scale[RAPL_NDOM];
};

struct energy_mon {
	bool perf;
	char absent[512];
	unsigned interval_ms;
	/* direct */
	struct hw *hw;
	struct em_msr rd[ENERGY_MAX_DOMS];
	unsigned nrd;
	/* perf */
	struct em_group grp[EM_MAX_GROUPS];
	unsigned ngrp;
	char help[512];		/* where the values come from */
	/* the domains: the thread's copy and the last read's */
	struct energy_dom d[ENERGY_MAX_DOMS];
	unsigned nd;
	struct periodic loop;
	pthread_mutex_t mu;	/* guards pub */
	struct energy_dom pub[ENERGY_MAX_DOMS];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct energy_mon *mon_alloc(bool perf)
{
	struct energy_mon *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->perf = perf;
	m->interval_ms = ENERGY_INTERVAL_MAX_MS;
	pthread_mutex_init(&m->mu, NULL);
	return m;
}

/* The domain entry of (socket, dom), made if new; its index. */
static unsigned dom_index(struct energy_mon *m, unsigned socket,
			  enum rapl_dom dom, double unit_j)
{
	for (unsigned i = 0; i < m->nd; i++)
		if (m->d[i].socket == socket && m->d[i].dom == dom)
			return i;
	m->d[m->nd] = (struct energy_dom){ .socket = socket, .dom = dom,
					   .unit_j = unit_j };
	return m->nd++;
}

static int cmp_dom(const void *a, const void *b)
{
	const struct energy_dom *x = a, *y = b;

	if (x->socket != y->socket)
		return x->socket < y->socket ? -1 : 1;
	return (int)x->dom - (int)y->dom;
}

/* Sorts d[] by socket and domain, and points every read at its entry
 * again. */
static void sort_doms(struct energy_mon *m)
{
	qsort(m->d, m->nd, sizeof(m->d[0]), cmp_dom);
	for (unsigned i = 0; i < m->nrd; i++)
		m->rd[i].di = dom_index(m, m->rd[i].socket, m->rd[i].dom, 0);
	for (unsigned i = 0; i < m->ngrp; i++)
		for (unsigned k = 0; k < m->grp[i].n; k++)
			m->grp[i].di[k] = dom_index(m, m->grp[i].socket,
						    m->grp[i].dom[k], 0);
}

static void publish(struct energy_mon *m)
{
	pthread_mutex_lock(&m->mu);
	memcpy(m->pub, m->d, m->nd * sizeof(m->d[0]));
	pthread_mutex_unlock(&m->mu);
}

/* ---- direct: the RAPL MSRs ----------------------------------------------- */

/* "2^-14 J" */
static const char *pow2_str(double unit_j, char *buf, size_t len)
{
	snprintf(buf, len, "2^-%d J", -ilogb(unit_j));
	return buf;
}

struct energy_mon *energy_mon_new_direct(struct hw *hw,
					 const struct topology *t)
{
	struct energy_mon *m = mon_alloc(false);
	const struct rapl_facts *f = t ? rapl_facts_of(t->plat) : NULL;
	double min_wrap = INFINITY;
	size_t o = 0;
	char u[32];

	if (!m)
		return NULL;
	m->hw = hw;
	if (!f) {
		snprintf(m->absent, sizeof(m->absent), "uncored knows no RAPL "
			 "energy counters of platform %s on the direct backend "
			 "(src/plat/rapl.c; --backend=perf reads the kernel's "
			 "power PMU)", t && t->plat ? t->plat->id : "?");
		return m;
	}
	for (unsigned s = 0; s < t->nsockets; s++) {
		uint32_t cpu = t->sock[s].cpu;
		struct hw_addr a = hw_msr(cpu, f->unit_msr);
		uint64_t unit, v;

		if (hw_probe(hw, &a, &unit) < 0) {
			snprintf(m->absent, sizeof(m->absent), "no RAPL: the "
				 "power unit MSR 0x%" PRIx32 " does not read "
				 "on socket %u (cpu %" PRIu32 "): %s (a virtual "
				 "machine has none)", f->unit_msr, s, cpu,
				 hw_last_error());
			m->nrd = m->nd = 0;
			return m;
		}
		for (int d = 0; d < RAPL_NDOM; d++) {
			struct em_msr *r;
			double uj;

			if (!f->msr[d])
				continue;
			a = hw_msr(cpu, f->msr[d]);
			/* the kernel's perf_msr_probe(): a domain whose MSR
			 * does not read is not there */
			if (hw_probe(hw, &a, &v) < 0)
				continue;
			uj = rapl_unit_j(f, (enum rapl_dom)d, unit);
			r = &m->rd[m->nrd++];
			r->cpu = cpu;
			r->msr = f->msr[d];
			r->socket = t->sock[s].id;
			r->dom = (enum rapl_dom)d;
			r->di = dom_index(m, r->socket, r->dom, uj);
			rapl_acc_add(&r->acc, v);
			m->d[r->di].have = true;
			m->d[r->di].read_ns = mono_ns();
			if (rapl_wrap_s(uj, RAPL_MAX_WATTS) < min_wrap)
				min_wrap = rapl_wrap_s(uj, RAPL_MAX_WATTS);
			if (s == 0)
				o += (size_t)snprintf(m->help + o,
					sizeof(m->help) - o, "%s%s MSR 0x%"
					PRIx32 " x %s%s", o ? ", " : "",
					rapl_dom_label((enum rapl_dom)d),
					f->msr[d], pow2_str(uj, u, sizeof(u)),
					f->fixed[d] != RAPL_UNIT_MSR
					? " (the domain's fixed unit)" : "");
			if (o >= sizeof(m->help))
				o = sizeof(m->help) - 1;
		}
	}
	if (!m->nrd) {
		snprintf(m->absent, sizeof(m->absent), "no RAPL energy status "
			 "MSR of %s reads on this machine", t->plat->id);
		return m;
	}
	/* four reads per wrap at RAPL_MAX_WATTS, at most a second apart */
	if (min_wrap / 4 * 1000 < m->interval_ms)
		m->interval_ms = min_wrap / 4 * 1000 >= 1
				 ? (unsigned)(min_wrap / 4 * 1000) : 1;
	log_info("energy: RAPL MSRs on %u socket%s: %s; the shortest wrap is "
		 "%.3g s at %.0f W, read every %u ms", t->nsockets,
		 t->nsockets == 1 ? "" : "s", m->help, min_wrap,
		 RAPL_MAX_WATTS, m->interval_ms);
	sort_doms(m);
	publish(m);
	return m;
}

/* ---- perf: the kernel's power PMU ---------------------------------------- */

struct energy_mon *energy_mon_new_perf(const char *sysfs,
				       const struct pev_ops *ops, void *ctx)
{
	struct energy_mon *m = mon_alloc(true);
	const struct pfs_alias *al[RAPL_NDOM] = { NULL };
	uint64_t cfg[RAPL_NDOM][3];
	struct pfs_pmu *pmu = NULL;
	enum rapl_dom dom[RAPL_NDOM];
	char why[512], skipped[512] = "";
	size_t o = 0, so = 0;
	unsigned n = 0;
	int r;

	if (!m)
		return NULL;
	if (!sysfs)
		sysfs = "/sys";
	if (!ops)
		ops = &pev_sys_ops;
	r = pfs_pmu_load(sysfs, "power", &pmu, why, sizeof(why));
	if (r == -ENOENT) {
		snprintf(m->absent, sizeof(m->absent), "the kernel has no "
			 "power PMU (%s/bus/event_source/devices/power: "
			 "arch/x86/events/rapl.c does not know this CPU, or a "
			 "virtual machine has no RAPL)", sysfs);
		return m;
	}
	if (r < 0) {
		snprintf(m->absent, sizeof(m->absent), "the kernel's power "
			 "PMU: %.400s", why);
		return m;
	}
	for (int d = 0; d < RAPL_NDOM; d++) {
		const struct pfs_alias *a = pfs_alias(pmu,
					rapl_perf_event((enum rapl_dom)d));
		const char *bad = NULL;

		if (!a)
			continue;
		/* the scale and unit the kernel writes, never assumed */
		if (!a->has_scale)
			bad = "no .scale file";
		else if (strcmp(a->unit, "Joules") != 0)
			bad = "its .unit is not \"Joules\"";
		else if (!(a->scale > 0) || !isfinite(a->scale))
			bad = "its .scale is not a positive number";
		else if (pfs_encode(pmu, a->terms, cfg[n], why,
				    sizeof(why)) < 0)
			bad = why;
		if (bad) {
			so += (size_t)snprintf(skipped + so,
				sizeof(skipped) - so, "%spower/%s/: %s",
				so ? "; " : "", a->name, bad);
			if (so >= sizeof(skipped))
				so = sizeof(skipped) - 1;
			continue;
		}
		al[n] = a;
		dom[n++] = (enum rapl_dom)d;
		o += (size_t)snprintf(m->help + o, sizeof(m->help) - o,
			"%s%s power/%s/ x %s %s", o ? ", " : "",
			rapl_dom_label((enum rapl_dom)d), a->name,
			a->scale_text, a->unit);
		if (o >= sizeof(m->help))
			o = sizeof(m->help) - 1;
	}
	if (!n) {
		snprintf(m->absent, sizeof(m->absent), "the kernel's power PMU "
			 "has no energy-pkg, energy-ram or energy-psys event "
			 "uncored can read%s%s", so ? ": " : "", skipped);
		pfs_pmu_free(pmu);
		return m;
	}
	for (unsigned c = 0; c < pmu->cpus.n && m->ngrp < EM_MAX_GROUPS; c++) {
		unsigned cpu = pmu->cpus.cpu[c], pkg, die;
		struct em_group *g = &m->grp[m->ngrp];

		if ((r = pfs_cpu_topology(sysfs, cpu, &pkg, &die, why,
					  sizeof(why))) < 0) {
			snprintf(m->absent, sizeof(m->absent), "the power "
				 "PMU's cpumask names CPU %u: %.400s", cpu, why);
			break;
		}
		r = pev_group_open(ops, ctx, pmu->type, (int)cpu,
				   (const uint64_t (*)[3])cfg, n, &g->g);
		if (r < 0) {
			snprintf(m->absent, sizeof(m->absent), "the kernel "
				 "refused the power PMU's events on CPU %u: %s",
				 cpu, hw_last_error());
			break;
		}
		g->n = n;
		g->socket = pkg;
		for (unsigned k = 0; k < n; k++) {
			g->dom[k] = dom[k];
			g->scale[k] = al[k]->scale;
			g->di[k] = dom_index(m, pkg, dom[k], al[k]->scale);
		}
		m->ngrp++;
	}
	pfs_pmu_free(pmu);
	if (m->absent[0] || !m->ngrp) {
		for (unsigned i = 0; i < m->ngrp; i++)
			pev_group_close(m->grp[i].g);
		m->ngrp = m->nd = 0;
		if (!m->absent[0])
			snprintf(m->absent, sizeof(m->absent), "the kernel's "
				 "power PMU has an empty cpumask");
		return m;
	}
	sort_doms(m);
	log_info("energy: the kernel's power PMU, %u group%s: %s%s%s",
		 m->ngrp, m->ngrp == 1 ? "" : "s", m->help,
		 so ? "; left out: " : "", skipped);
	energy_mon_read(m);
	return m;
}

/* ---- reading ------------------------------------------------------------- */

static void read_direct(struct energy_mon *m)
{
	for (unsigned i = 0; i < m->nrd; i++) {
		struct em_msr *r = &m->rd[i];
		struct energy_dom *d = &m->d[r->di];
		struct hw_addr a = hw_msr(r->cpu, r->msr);
		uint64_t v;

		if (hw_read(m->hw, &a, &v) < 0) {
			if (d->errors++ == 0)
				log_warnx("energy: reading %s of socket %u: "
					  "%s (the value stays; said once)",
					  rapl_dom_label(d->dom), d->socket,
					  hw_last_error());
			continue;
		}
		rapl_acc_add(&r->acc, v);
		d->joules = (double)r->acc.total * d->unit_j;
		d->have = true;
		d->read_ns = mono_ns();
	}
}

static void read_perf(struct energy_mon *m)
{
	double sum[ENERGY_MAX_DOMS] = { 0 };
	bool bad[ENERGY_MAX_DOMS] = { false };

	for (unsigned i = 0; i < m->ngrp; i++) {
		struct em_group *g = &m->grp[i];
		uint64_t v[RAPL_NDOM];

		if (pev_group_read(g->g, v, NULL, NULL) < 0) {
			for (unsigned k = 0; k < g->n; k++) {
				bad[g->di[k]] = true;
				if (m->d[g->di[k]].errors++ == 0)
					log_warnx("energy: reading the power "
						  "PMU on socket %u: %s (the "
						  "value stays; said once)",
						  g->socket, hw_last_error());
			}
			continue;
		}
		for (unsigned k = 0; k < g->n; k++)
			sum[g->di[k]] += (double)v[k] * g->scale[k];
	}
	for (unsigned i = 0; i < m->nd; i++)
		if (!bad[i]) {
			m->d[i].joules = sum[i];
			m->d[i].have = true;
			m->d[i].read_ns = mono_ns();
		}
}

void energy_mon_read(struct energy_mon *m)
{
	if (m->perf)
		read_perf(m);
	else
		read_direct(m);
	publish(m);
}

static void mon_pass(void *arg)
{
	energy_mon_read(arg);
}

const char *energy_mon_absent(const struct energy_mon *m)
{
	return m->absent;
}

const char *energy_mon_source(const struct energy_mon *m)
{
	return m->perf ? "the kernel's power PMU" : "RAPL MSRs";
}

unsigned energy_mon_interval_ms(const struct energy_mon *m)
{
	return m->interval_ms;
}

int energy_mon_start(struct energy_mon *m)
{
	if (!m->nd)
		return 0;
	return periodic_start(&m->loop, "uncored-energy", m->interval_ms,
			      false, mon_pass, m);
}

void energy_mon_free(struct energy_mon *m)
{
	if (!m)
		return;
	periodic_stop(&m->loop);
	for (unsigned i = 0; i < m->ngrp; i++)
		pev_group_close(m->grp[i].g);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

int energy_mon_snapshot(struct energy_mon *m, struct energy_dom *out, int max)
{
	int n = (int)m->nd < max ? (int)m->nd : max;	/* fixed after new */

	pthread_mutex_lock(&m->mu);
	memcpy(out, m->pub, (size_t)n * sizeof(*out));
	pthread_mutex_unlock(&m->mu);
	return n;
}

void energy_mon_render(struct prom *w, struct energy_mon *m)
{
	char help[768], s[12];
	bool any = false;

	pthread_mutex_lock(&m->mu);
	for (unsigned i = 0; i < m->nd; i++)
		any |= m->pub[i].have;
	if (any) {
		snprintf(help, sizeof(help), "Energy each socket's RAPL domain "
			 "used since uncored started (%s: %s)",
			 energy_mon_source(m), m->help);
		prom_family(w, "uncore_energy_joules_total", PROM_COUNTER,
			    "joules", help);
	}
	for (unsigned i = 0; any && i < m->nd; i++) {
		const struct energy_dom *x = &m->pub[i];
		const char *l[] = { "socket", s, "domain",
				    rapl_dom_label(x->dom), NULL };

		if (!x->have)
			continue;
		snprintf(s, sizeof(s), "%u", x->socket);
		prom_sample_f64(w, NULL, l, x->joules);
	}
	pthread_mutex_unlock(&m->mu);
}
