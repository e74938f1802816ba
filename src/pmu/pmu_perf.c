/*
 * pmu_perf.c - the perf backend of the PMU layer (see pmu_perf.h).
 *
 * A "kernel box" is one kernel PMU on one CPU: uncore_cha_3 on CPU 28 is
 * socket 1's CHA 3; amd_l3 on CPU 8 is the L3 complex of CPU 8.  Every
 * unit instance of the topology maps to one kernel box (a fixed counter
 * shares its box with the unit it lives in, e.g. an IMC's DCLK counter),
 * and the daemon keeps one event group per kernel box with every event it
 * counts there: the baseline's and the running claims'.  The arbiter above
 * (mux.c, sched.c) never places more events in a unit instance than it
 * has counters, so the kernel never multiplexes the daemon's events
 * against each other; when another perf user makes it multiplex ours,
 * the group's time_running falls behind its time_enabled and the deltas
 * are scaled by enabled/running and flagged (pmu_perf_scaled()).
 * The groups of one tick are read one after another, so each event keeps
 * the time_enabled it gained from one tick's read of its group to the
 * next (pmu_own_window_ns()): the sampler puts its delta over the
 * sample's window by that time, whatever delay came between the reads.
 *
 * The values pmu_read() returns are virtual counters, one per counter
 * register id of the PMU layer's numbering (pmu.h): the sum of the
 * (scaled) deltas read from every group that counted the id since the
 * daemon began, so they stay monotonic when a group is rebuilt for a new
 * set of events (the old group is read once more, then closed) and sum
 * the cores of a core-scope counter (each core is a kernel box of its
 * own).  Groups are read at the freeze (pmu_enable(false): one read(2)
 * per group), free-running ones when first read after it.
 *
 * A kernel PMU can go away under the daemon (a driver unloaded, a PCI
 * function removed): its group's reads fail with ENODEV, or its type can
 * no longer be opened and its directory has left sysfs.  The box is then
 * lost: logged once (box_lose()), its group closed, and pmu_present()
 * false for the unit instances it counted, so the sampler rebuilds its
 * program without them (pmu_changes()) as if they had been missing at
 * start-up, and /api/v1/status lists them (pmu_perf_lost()).
 * pmu_reprobe() (SIGHUP) looks for them again.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "hw/perf_event.h"
#include "hw/perf_sysfs.h"
#include "base/log.h"
#include "base/sfile.h"
#include "pmu.h"
#include "pmu_perf.h"
#include "sched.h"

/* Events of one kernel box: programmable + fixed + free-running of every
 * unit that shares it. */
#define PP_BOX_EV 24u
#define PP_TERMS_MAX 512u

struct pp_box {
	struct pfs_pmu *pmu;	/* pp->pmus' */
	char name[64];		/* its name, for any thread */
	int cpu;
	unsigned socket;
	/* its kernel PMU went away at run time (box_lose()); any thread
	 * reads these, the sampling thread writes them */
	atomic_bool lost;
	atomic_int lost_err;	/* what said so: -ENODEV, -ENOENT */
	/* the open group */
	struct pev_group *g;
	unsigned n;
	uint32_t id[PP_BOX_EV];		/* counter register ids, group order */
	uint64_t cfg[PP_BOX_EV][3];
	uint64_t last[PP_BOX_EV];	/* counts at the last read */
	uint64_t en, run;		/* group times at the last read */
	/* per event, group order: the time_enabled it gained since the
	 * last freeze's read (read-nows and earlier groups of the box that
	 * counted it included), and between the last two freezes' reads:
	 * the time its delta was counted over (0: unknown;
	 * pmu_own_window_ns()) */
	uint64_t acc[PP_BOX_EV], win[PP_BOX_EV];
	uint64_t gen;			/* pp->gen of the last read */
	uint64_t wanted;		/* pp->gen a read-now wants it in */
	int err;			/* the last read's or open's error */
	char why[200];			/* the last failed read's message */
	bool scaled;			/* the last read was scaled */
	/* the set pmu_perf_program() is building */
	unsigned wn;
	uint32_t wid[PP_BOX_EV];
	uint64_t wcfg[PP_BOX_EV][3];
};

/* Per counter register id. */
struct pp_ctr {
	uint64_t virt;		/* what pmu_read() returns */
	int err;		/* the last reading's error, 0 */
	bool scaled;
	bool fr_open;		/* a free-running id wanted in its boxes */
	uint8_t fr_idx;		/* its free-running counter index */
	/* its encoding on fr_pmu, kept: encoding parses the PMU's
	 * format/ and events/ text, and a tick programs every id */
	const struct pfs_pmu *fr_pmu;
	int fr_type;		/* fr_pmu's kernel type then */
	uint64_t fr_cfg[3];
};

/* Where a unit instance or a free-running counter is counted: kernel
 * boxes, by index into pp->box (several: a core-scope counter). */
struct pp_where {
	unsigned first, n;	/* into pp->bref */
};

struct pmu_perf {
	char *sysfs;
	const struct pev_ops *ops;
	void *ctx;
	const struct platform *plat;
	struct pfs_pmu **pmus;
	unsigned npmus;
	struct pp_box *box;
	unsigned nbox, capbox;
	unsigned *bref;			/* box indices of the pp_where's */
	unsigned nbref, capbref;
	/* unit instance -> its kernel box (index + 1; 0: none) */
	unsigned inst_box[PLAT_MAX_SOCKETS][PLAT_MAX_UNITS][PLAT_MAX_INST];
	/* free-running counter of a unit on a socket counted in a PMU of
	 * its own (cstate_core, cstate_pkg): its boxes */
	struct pp_where frbox[PLAT_MAX_SOCKETS][PLAT_MAX_UNITS][PLAT_MAX_CTRS];
	struct pp_ctr *ctr;		/* by counter register id */
	unsigned nctr;
	uint64_t gen;
	struct pmu_perf_stats st;
	struct pfs_cpus online;		/* the machine's online CPUs */
	char missing[512];
	int home;			/* home_cpu(); < -1: not known */
	struct pp_visit visit;		/* read_placed()'s choice */
	atomic_uint_fast64_t changes;	/* boxes lost or found again */
};

/*
 * Where the groups are read from.  read(2) of a group bound to another
 * CPU makes the kernel interrupt that CPU and wait for its answer
 * (perf_event_read() -> smp_call_function_single(): an IPI; only a few
 * client-uncore PMUs may be read from any CPU of their package).  On a
 * VM whose other vCPU sleeps, that wait is the reader's system time,
 * tens of microseconds a group.  So the sampling thread (the one that
 * called pmu_perf_read_local()) settles on the CPU that holds the most
 * groups (an uncore PMU's cpumask CPU, on one socket every group: no
 * IPI at all), reads that CPU's groups first, and the other CPUs' either
 * from there (an IPI each) or by visiting each CPU first, as perf stat
 * does (sched_setaffinity(2) to the one CPU; it then stays where it read
 * last).  Which of the two is cheaper depends on the machine: a move
 * costs two context switches and a cold cache (about 20-35 us on a busy
 * 2-vCPU VM, where an IPI read cost 13-23 us), an IPI to a sleeping
 * vCPU costs the host's wake-up of it.  So the thread times both in CPU
 * time for PP_VISIT_TRIAL ticks each and keeps the cheaper for
 * PP_VISIT_RUN ticks, then tries again (pmu_perf_visit_next()).  A CPU
 * outside the thread's allowed set at that call (CPUAffinity=, a cpuset)
 * is read from where the thread is.  Only against the real kernel: the
 * simulated one has no IPIs and its CPUs are not this machine's.
 */
static _Thread_local struct {
	bool on;
	cpu_set_t allowed;	/* the thread's own set, before any move */
} rl;

/* ---- small helpers ------------------------------------------------------ */

static int fail(char *why, size_t whylen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *why, size_t whylen, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -err;
}

static void append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}


/* ---- discovery ---------------------------------------------------------- */

/* One kernel PMU a pattern matched, with its box number. */
struct pp_found {
	struct pfs_pmu *pmu;
	unsigned box;
};

struct pp_list_ctx {
	const char *pattern;
	char (*names)[64];
	unsigned *boxes;
	unsigned n, cap;
};

static int list_cb(void *arg, const char *name)
{
	struct pp_list_ctx *c = arg;
	unsigned box;

	if (pfs_match(c->pattern, name, &box) != 1 || strlen(name) >= 64)
		return 0;
	if (c->n == c->cap)
		return 0;	/* more boxes than any platform: ignored */
	snprintf(c->names[c->n], 64, "%s", name);
	c->boxes[c->n++] = box;
	return 0;
}

/* The loaded PMU called name (loading it once). */
static int pmu_get(struct pmu_perf *pp, const char *name, struct pfs_pmu **out,
		   char *why, size_t whylen)
{
	int r;

	for (unsigned i = 0; i < pp->npmus; i++)
		if (strcmp(pp->pmus[i]->name, name) == 0) {
			*out = pp->pmus[i];
			return 0;
		}
	{
		struct pfs_pmu **v = realloc(pp->pmus, (pp->npmus + 1) *
					     sizeof(*v));

		if (!v)
			return fail(why, whylen, ENOMEM, "out of memory");
		pp->pmus = v;
	}
	r = pfs_pmu_load(pp->sysfs, name, out, why, whylen);
	if (r < 0)
		return r;
	pp->pmus[pp->npmus++] = *out;
	return 0;
}

/* Socket index of a package id (t->sock[i].id), or -1. */
static int socket_of_pkg(const struct topology *t, unsigned pkg)
{
	for (unsigned s = 0; s < t->nsockets; s++)
		if (t->sock[s].id == pkg)
			return (int)s;
	return -1;
}

/* The kernel box of (pmu, cpu), made on first use: its index. */
static int box_get(struct pmu_perf *pp, struct pfs_pmu *pmu, int cpu,
		   unsigned socket)
{
	for (unsigned i = 0; i < pp->nbox; i++)
		if (pp->box[i].pmu == pmu && pp->box[i].cpu == cpu)
			return (int)i;
	if (!buf_grow_array((void **)&pp->box, &pp->capbox, pp->nbox + 1,
		  sizeof(*pp->box)))
		return -ENOMEM;
	pp->box[pp->nbox] = (struct pp_box){ .pmu = pmu, .cpu = cpu,
					     .socket = socket };
	snprintf(pp->box[pp->nbox].name, sizeof(pp->box[pp->nbox].name), "%s",
		 pmu->name);
	return (int)pp->nbox++;
}

/*
 * The sockets: every online CPU's package, in package order; each socket's
 * CPU is its lowest.  0 or -errno with why.
 */
static int find_sockets(struct pmu_perf *pp, struct topology *t, char *why,
			size_t whylen)
{
	char path[PATH_MAX], buf[PFS_FILE_MAX], msg[PATH_MAX + 64];
	struct pfs_cpus on = { 0 };
	unsigned pkgs[PLAT_MAX_SOCKETS], cpus[PLAT_MAX_SOCKETS], n = 0;
	ssize_t len;
	int r;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", pp->sysfs);
	len = sfile_read(AT_FDCWD, path, buf, sizeof(buf), msg, sizeof(msg));
	if (len < 0)
		return fail(why, whylen, (int)-len, "cannot read %s (is %s a "
			    "sysfs?)", msg, pp->sysfs);
	if ((r = pfs_cpulist_parse(buf, &on, why, whylen)) < 0)
		return r;
	for (unsigned i = 0; i < on.n; i++) {
		unsigned pkg, die, k;

		r = pfs_cpu_topology(pp->sysfs, on.cpu[i], &pkg, &die, why,
				     whylen);
		if (r < 0)
			goto out;
		for (k = 0; k < n && pkgs[k] != pkg; k++)
			;
		if (k < n)
			continue;
		if (n == PLAT_MAX_SOCKETS) {
			r = fail(why, whylen, E2BIG, "more than %u packages "
				 "under %s/devices/system/cpu",
				 PLAT_MAX_SOCKETS, pp->sysfs);
			goto out;
		}
		/* in package order */
		for (k = n; k > 0 && pkgs[k - 1] > pkg; k--) {
			pkgs[k] = pkgs[k - 1];
			cpus[k] = cpus[k - 1];
		}
		pkgs[k] = pkg;
		cpus[k] = on.cpu[i];
		n++;
	}
	if (!n) {
		r = fail(why, whylen, ENOENT, "no online CPU in %s", path);
		goto out;
	}
	t->nsockets = n;
	for (unsigned s = 0; s < n; s++) {
		t->sock[s].id = pkgs[s];
		t->sock[s].cpu = cpus[s];
	}
	pp->online = on;	/* kept: a PMU without a cpumask counts on any */
	return 0;
out:
	pfs_cpus_free(&on);
	return r;
}

/*
 * Appends to the reference list the boxes of PMU pmu on socket s's CPUs,
 * in CPU order; *where says which.  0 or -errno.
 */
static int boxes_on_socket(struct pmu_perf *pp, const struct topology *t,
			   struct pfs_pmu *pmu, unsigned s,
			   struct pp_where *where, char *why, size_t whylen)
{
	/* a PMU without a cpumask (msr, cstate on old kernels) counts on
	 * any CPU: every online one is a box */
	const struct pfs_cpus *cpus = pmu->cpus.n ? &pmu->cpus : &pp->online;

	where->first = pp->nbref;
	where->n = 0;
	for (unsigned c = 0; c < cpus->n; c++) {
		unsigned pkg, die;
		int b, r;

		r = pfs_cpu_topology(pp->sysfs, cpus->cpu[c], &pkg, &die,
				     why, whylen);
		if (r == -ENODEV && s == 0) {
			/* an offline CPU in a cpumask: that box is left out
			 * (reported once, on the first socket's pass) */
			append(pp->missing, sizeof(pp->missing), "%s%s on CPU "
			       "%u (its cpumask names an offline CPU)",
			       pp->missing[0] ? ", " : "", pmu->name,
			       cpus->cpu[c]);
			continue;
		}
		if (r == -ENODEV)
			continue;
		if (r < 0)
			return r;
		if (socket_of_pkg(t, pkg) != (int)s)
			continue;
		if ((b = box_get(pp, pmu, (int)cpus->cpu[c], s)) < 0 ||
		    !buf_grow_array((void **)&pp->bref, &pp->capbref, pp->nbref + 1,
			  sizeof(*pp->bref)))
			return fail(why, whylen, ENOMEM, "out of memory");
		pp->bref[pp->nbref++] = (unsigned)b;
		where->n++;
	}
	return 0;
}

/* How many of pmu's cpumask CPUs are on socket s (-errno). */
static int cpus_on_socket(const struct pmu_perf *pp, const struct topology *t,
			  const struct pfs_pmu *pmu, unsigned s, char *why,
			  size_t whylen)
{
	int n = 0;

	const struct pfs_cpus *cpus = pmu->cpus.n ? &pmu->cpus : &pp->online;

	for (unsigned c = 0; c < cpus->n; c++) {
		unsigned pkg, die;
		int r = pfs_cpu_topology(pp->sysfs, cpus->cpu[c], &pkg, &die,
					 why, whylen);

		if (r == -ENODEV)
			continue;	/* offline: boxes_on_socket() says so */
		if (r < 0)
			return r;
		n += socket_of_pkg(t, pkg) == (int)s;
	}
	return n;
}

/* Does PMU m have CPUs on another socket than s?  1, 0 or -errno. */
static int on_other_socket(const struct pmu_perf *pp, const struct topology *t,
			   struct pfs_pmu *m, unsigned s, char *why,
			   size_t whylen)
{
	for (unsigned o = 0; o < t->nsockets; o++) {
		int k = o == s ? 0 : cpus_on_socket(pp, t, m, o, why, whylen);

		if (k)
			return k < 0 ? k : 1;
	}
	return 0;
}

/*
 * The box number of socket s's instance 0 among the PMUs matched for a
 * unit: 0 for a PMU that spans the sockets (Intel's uncore_cha_N: socket
 * 1's CHA 3 is uncore_cha_3 on a socket-1 CPU) and on socket 0; for PMUs
 * each on one socket (AMD numbers its UMC PMUs across the sockets:
 * amd_umc_12 is socket 1's first) the lowest box with a CPU on s.  Not
 * the lowest box found on every socket: a PMU the kernel lacks
 * (uncore_qpi_0 of a missing PCI function) leaves its number unused
 * instead of renumbering the others.  UINT_MAX when none; -errno.
 */
static int first_box(const struct pmu_perf *pp, const struct topology *t,
		     struct pfs_pmu *const *pmus, const unsigned *boxes,
		     unsigned n, unsigned s, unsigned *first, char *why,
		     size_t whylen)
{
	*first = UINT_MAX;
	for (unsigned i = 0; i < n; i++) {
		int k = pmus[i] ? cpus_on_socket(pp, t, pmus[i], s, why,
						 whylen) : 0, o = 0;

		if (k > 0 && s > 0)
			o = on_other_socket(pp, t, pmus[i], s, why, whylen);
		if (k < 0 || o < 0)
			return k < 0 ? k : o;
		if (k && (s == 0 || o))
			*first = 0;
		else if (k && boxes[i] < *first)
			*first = boxes[i];
	}
	return 0;
}

/* Records instance inst of unit ui on socket s at box b; a number past
 * the platform table's bound is reported and left out. */
static void place(struct pmu_perf *pp, struct topology *t, int ui, unsigned s,
		  unsigned inst, unsigned b, const char *name)
{
	const struct unit_type *u = pp->plat->units[ui];

	if (inst >= u->max_inst || inst >= PLAT_MAX_INST) {
		append(pp->missing, sizeof(pp->missing), "%s%s on socket %u "
		       "(box %u: the platform table allows %u)",
		       pp->missing[0] ? ", " : "", name, s, inst, u->max_inst);
		return;
	}
	if (pp->inst_box[s][ui][inst])
		return;
	pp->inst_box[s][ui][inst] = b + 1;
	if (inst + 1 > t->sock[s].ninst[ui])
		t->sock[s].ninst[ui] = inst + 1;
}

/*
 * Unit ui's instances on every socket, from the kernel PMUs its pattern
 * matches.  With "%u": instance = box number from the socket's first
 * (first_box()), times the dies of the socket, die-major, where one PMU's
 * cpumask names several CPUs of one package.  Without: one instance per
 * cpumask CPU of the socket (amd_l3: per L3 complex), except for a
 * free-running unit, which has one per socket (its core-scope counters
 * read every CPU: find_freerun_pmus()).  0 (the unit may have no PMU:
 * missing), or -errno.
 */
static int find_unit(struct pmu_perf *pp, struct topology *t, int ui,
		     char *why, size_t whylen)
{
	const struct unit_type *u = pp->plat->units[ui];
	char names[PLAT_MAX_INST][64];
	unsigned boxes[PLAT_MAX_INST], first[PLAT_MAX_SOCKETS], span = 1;
	struct pfs_pmu *pmus[PLAT_MAX_INST];
	struct pp_list_ctx lc = { .pattern = u->perf->pmu, .names = names,
				  .boxes = boxes, .cap = PLAT_MAX_INST };
	const struct perf_unit *pu = u->perf;
	bool per_box;
	int r;

	/* the unit's PMU as this kernel names it: its own name, else the
	 * name an older kernel gives it (perf_unit.older: gnr's
	 * uncore_type_<t>_N before 6.8) */
	for (;;) {
		lc.pattern = pu->pmu;
		if ((r = pfs_list(pp->sysfs, list_cb, &lc, why, whylen)) < 0)
			return r;
		if (lc.n || !pu->older)
			break;
		pu = pu->older;
	}
	if (!lc.n)
		pu = u->perf;
	per_box = strstr(pu->pmu, "%u") != NULL;
	if (!lc.n) {
		/* the reason where it is known: the kernel that first
		 * registers the PMU (struct perf_unit.since) */
		append(pp->missing, sizeof(pp->missing), "%s%s (%s)%s%s",
		       pp->missing[0] ? ", " : "", u->name, u->perf->pmu,
		       u->perf->since ? " from Linux " : "",
		       u->perf->since ? u->perf->since : "");
		return 0;
	}
	for (unsigned i = 0; i < lc.n; i++) {
		char msg[512];

		r = pmu_get(pp, names[i], &pmus[i], msg, sizeof(msg));
		if (r == -ENOMEM)
			return fail(why, whylen, ENOMEM, "%s", msg);
		if (r < 0) {
			/* a malformed or vanished PMU: its boxes are left
			 * out, the rest of the unit is served */
			append(pp->missing, sizeof(pp->missing), "%s%s (%s)",
			       pp->missing[0] ? ", " : "", names[i], msg);
			pmus[i] = NULL;
		}
	}
	for (unsigned s = 0; s < t->nsockets; s++) {
		if ((r = first_box(pp, t, pmus, boxes, lc.n, s, &first[s], why,
				   whylen)) < 0)
			return r;
		for (unsigned i = 0; i < lc.n; i++)
			if (first[s] != UINT_MAX && boxes[i] >= first[s] &&
			    boxes[i] - first[s] + 1 > span)
				span = boxes[i] - first[s] + 1;
	}
	for (unsigned i = 0; i < lc.n; i++)
		for (unsigned s = 0; pmus[i] && s < t->nsockets; s++) {
			struct pp_where w;

			if ((r = boxes_on_socket(pp, t, pmus[i], s, &w, why,
						 whylen)) < 0)
				return r;
			for (unsigned k = 0; k < w.n; k++) {
				unsigned b = pp->bref[w.first + k];

				if (per_box)
					place(pp, t, ui, s, k * span + boxes[i] -
					      first[s], b, names[i]);
				else if (u->kind != UNIT_FREERUN || !k)
					place(pp, t, ui, s, k, b, names[i]);
			}
		}
	/* instances below ninst without a box (uncore_cha_5 missing):
	 * absent, and named among the missing */
	for (unsigned s = 0; s < t->nsockets; s++)
		for (unsigned i = 0; i < t->sock[s].ninst[ui]; i++)
			if (!pp->inst_box[s][ui][i]) {
				iset_add(&t->sock[s].absent[ui], i);
				append(pp->missing, sizeof(pp->missing),
				       "%s%s %u on socket %u (no %s box)",
				       pp->missing[0] ? ", " : "", u->name, i,
				       s, pu->pmu);
			}
	return 0;
}

/* A free-running unit's counters that live in PMUs of their own
 * (cstate_core beside cstate_pkg) or are core-scope (every cpumask CPU
 * of the unit's own PMU on the socket): each counter's boxes per socket,
 * and one instance per socket where any is found. */
static int find_freerun_pmus(struct pmu_perf *pp, struct topology *t, int ui,
			     char *why, size_t whylen)
{
	const struct unit_type *u = pp->plat->units[ui];
	bool any = false;
	int r;

	for (unsigned k = 0; k < u->nfreerun && k < PLAT_MAX_CTRS; k++) {
		const struct freerun_ctr *fr = &u->freerun[k];
		const char *name = fr->perf_pmu ? fr->perf_pmu :
				   fr->core_scope && u->perf ? u->perf->pmu :
				   NULL;
		struct pfs_pmu *pmu;

		if (!name || !fr->perf_event)
			continue;
		r = pmu_get(pp, name, &pmu, why, whylen);
		if (r == -ENOENT) {
			append(pp->missing, sizeof(pp->missing), "%s%s (%s)",
			       pp->missing[0] ? ", " : "", fr->name, name);
			continue;
		}
		if (r < 0)
			return r;
		for (unsigned s = 0; s < t->nsockets; s++) {
			struct pp_where *w = &pp->frbox[s][ui][k];

			if ((r = boxes_on_socket(pp, t, pmu, s, w, why,
						 whylen)) < 0)
				return r;
			any |= w->n > 0;
		}
	}
	for (unsigned s = 0; any && s < t->nsockets; s++)
		if (!t->sock[s].ninst[ui])
			t->sock[s].ninst[ui] = 1;
	return 0;
}

int pmu_perf_discover(const struct platform *p, const struct pmu_perf_opts *o,
		      struct topology *t, struct pmu_perf **out, char *why,
		      size_t whylen)
{
	struct pmu_perf *pp = calloc(1, sizeof(*pp));
	unsigned found = 0;
	int r;

	*out = NULL;
	if (!pp || !(pp->sysfs = strdup(o && o->sysfs ? o->sysfs : "/sys"))) {
		free(pp);
		return fail(why, whylen, ENOMEM, "out of memory");
	}
	pp->ops = o && o->ops ? o->ops : &pev_sys_ops;
	pp->ctx = o ? o->ctx : NULL;
	pp->plat = p;
	pp->home = -2;
	memset(t, 0, sizeof(*t));
	t->plat = p;
	if ((r = find_sockets(pp, t, why, whylen)) < 0)
		goto fail;
	for (int ui = 0; p->units[ui] && ui < PLAT_MAX_UNITS; ui++) {
		const struct unit_type *u = p->units[ui];

		if (u->perf && (r = find_unit(pp, t, ui, why, whylen)) < 0)
			goto fail;
		if (u->kind == UNIT_FREERUN &&
		    (r = find_freerun_pmus(pp, t, ui, why, whylen)) < 0)
			goto fail;
		for (unsigned s = 0; s < t->nsockets; s++)
			found += t->sock[s].ninst[ui];
	}
	if (!found) {
		r = fail(why, whylen, ENODEV, "the kernel exposes no uncore PMU "
			 "of the %s platform under %s/bus/event_source/devices "
			 "(expected %s); load its uncore driver (intel_uncore, "
			 "amd_uncore) or use the direct backend", p->id,
			 pp->sysfs, pp->missing);
		goto fail;
	}
	*out = pp;
	return 0;
fail:
	pmu_perf_free(pp);
	return r;
}

void pmu_perf_free(struct pmu_perf *pp)
{
	if (!pp)
		return;
	for (unsigned i = 0; i < pp->nbox; i++)
		pev_group_close(pp->box[i].g);
	for (unsigned i = 0; i < pp->npmus; i++)
		pfs_pmu_free(pp->pmus[i]);
	free(pp->pmus);
	free(pp->box);
	free(pp->bref);
	free(pp->ctr);
	free(pp->sysfs);
	pfs_cpus_free(&pp->online);
	free(pp);
}

const char *pmu_perf_missing(const struct pmu_perf *pp)
{
	return pp->missing;
}

const char *pmu_perf_sysfs(const struct pmu_perf *pp)
{
	return pp->sysfs;
}

const char *pmu_perf_unit_pmu(const struct pmu_perf *pp, int unit)
{
	for (unsigned s = 0; unit >= 0 && unit < PLAT_MAX_UNITS &&
	     s < PLAT_MAX_SOCKETS; s++)
		for (unsigned i = 0; i < PLAT_MAX_INST; i++)
			if (pp->inst_box[s][unit][i])
				return pp->box[pp->inst_box[s][unit][i] - 1].name;
	return NULL;
}

void pmu_perf_stats(const struct pmu_perf *pp, struct pmu_perf_stats *st)
{
	*st = pp->st;
	st->groups = 0;
	st->visiting = pp->visit.how == PP_VISIT;
	memcpy(st->trial_ns, pp->visit.ns, sizeof(st->trial_ns));
	for (unsigned i = 0; i < pp->nbox; i++) {
		struct pev_stats gs;

		if (!pp->box[i].g)
			continue;
		/* a closed group's calls are in pp->st already (box_close) */
		pev_group_stats(pp->box[i].g, &gs);
		st->syscalls += gs.syscalls;
		st->groups++;
	}
}

/* ---- the PMU layer's calls ----------------------------------------------- */

static int pmu_perf_attach(struct pmu *p)
{
	struct pmu_perf *pp = p->perf;

	pp->ctr = calloc(p->nreg ? p->nreg : 1, sizeof(*pp->ctr));
	if (!pp->ctr)
		return hw_fail(ENOMEM, "out of memory for %u perf counters",
			       p->nreg);
	pp->nctr = p->nreg;
	return 0;
}

static void perf_free(struct pmu *p)
{
	pmu_perf_free(p->perf);
	p->perf = NULL;
}

/* The kernel box of a slot's unit instance, or NULL. */
static struct pp_box *slot_box(const struct pmu_perf *pp,
			       const struct pmu_slot *sl)
{
	unsigned b;

	if (sl->socket >= PLAT_MAX_SOCKETS || sl->unit < 0 ||
	    sl->unit >= PLAT_MAX_UNITS || sl->inst >= PLAT_MAX_INST)
		return NULL;
	b = pp->inst_box[sl->socket][sl->unit][sl->inst];
	return b ? &pp->box[b - 1] : NULL;
}

/* Terms that select an alias name or are terms already, encoded on pmu. */
static int encode_named(const struct pfs_pmu *pmu, const char *ev,
			uint64_t cfg[3], char *why, size_t whylen)
{
	const struct pfs_alias *a = strchr(ev, '=') ? NULL : pfs_alias(pmu, ev);

	memset(cfg, 0, 3 * sizeof(*cfg));
	if (!strchr(ev, '=') && !a)
		return fail(why, whylen, ENOENT, "%s has no event %s (no file "
			    "events/%s)", pmu->name, ev, ev);
	return pfs_encode(pmu, a ? a->terms : ev, cfg, why, whylen);
}

/* The kernel terms of a box filter value: each non-zero field of the
 * unit's filter register f, under the name the kernel's format gives it. */
static int filter_terms(const struct unit_type *u, unsigned f, uint64_t v,
			char *terms, size_t len, char *why, size_t whylen)
{
	const struct reg_layout *l = f < u->nfilters ? u->filters[f].layout
						      : NULL;

	if (!l)
		return fail(why, whylen, EINVAL, "unit %s has no filter %u",
			    u->name, f);
	for (size_t i = 0; i < l->nfields; i++) {
		const struct reg_field *fd = &l->fields[i];
		uint64_t x = (v & field_mask(fd)) >> fd->lo;
		const struct perf_filter_map *m;

		if (!x || fd->acc == ACC_RSV)
			continue;
		for (m = u->perf->filters; m && m->field; m++)
			if (m->filter == f && strcmp(m->field, fd->name) == 0)
				break;
		if (!m || !m->field)
			return fail(why, whylen, EOPNOTSUPP, "the kernel's %s "
				    "PMU has no field for %s.%s (0x%" PRIx64
				    "): not countable through perf",
				    u->perf->pmu, u->filters[f].name,
				    fd->name, x);
		append(terms, len, ",%s=0x%" PRIx64, m->format, x);
	}
	return 0;
}

/* The terms of a programmable event: its encoding under the kernel's
 * field names, the catalog's further terms and its filters. */
static int prog_terms(const struct unit_type *u, const struct evspec *e,
		      char *terms, size_t len, char *why, size_t whylen)
{
	const struct perf_unit *pu = u->perf;
	uint64_t code = e->enc.code;
	int r;

	/* The kernel's "event" field of boxes with an event-select
	 * extension is config:0-7,21 (uncore_snbep.c event_ext): bit 8 of
	 * its value is the extension bit. */
	if (e->ev && e->ev->ev_sel_ext)
		code |= 0x100;
	snprintf(terms, len, "%s=0x%" PRIx64, pu->f_event ? pu->f_event :
		 "event", code);
	if (pu->f_occ) {
		/* hsx/snbep PCU: no umask field; the unit's umask bits 7:6
		 * are the occupancy sub-counter select (plat.h f_occ) */
		if (e->enc.umask & 0x3f)
			return fail(why, whylen, EOPNOTSUPP, "%s: umask 0x%"
				    PRIx64 " has bits the kernel's %s PMU has "
				    "no field for (only occ_sel, bits 7:6)",
				    e->name, e->enc.umask, pu->pmu);
		if (e->enc.umask >> 6)
			append(terms, len, ",%s=%" PRIu64, pu->f_occ,
			       e->enc.umask >> 6);
	} else if (e->enc.umask) {
		append(terms, len, ",%s=0x%" PRIx64, pu->f_umask ? pu->f_umask :
		       "umask", e->enc.umask);
	}
	if (e->enc.edge)
		append(terms, len, ",%s=1", pu->f_edge ? pu->f_edge : "edge");
	if (e->enc.inv)
		append(terms, len, ",%s=1", pu->f_inv ? pu->f_inv : "inv");
	if (e->enc.thresh)
		append(terms, len, ",%s=%u", pu->f_thresh ? pu->f_thresh :
		       "thresh", e->enc.thresh);
	if (e->ev && e->ev->perf_terms)
		append(terms, len, ",%s", e->ev->perf_terms);
	for (unsigned f = 0; f < PLAT_MAX_FILTERS; f++)
		if (e->filt_set >> f & 1 &&
		    (r = filter_terms(u, f, e->filt[f], terms, len, why,
				      whylen)) < 0)
			return r;
	if (strlen(terms) + 1 >= len)
		return fail(why, whylen, E2BIG, "%s: kernel terms too long",
			    e->name);
	return 0;
}

static bool freerun_where(const struct pmu_perf *pp, const struct pmu_slot *sl,
			  struct pp_where *w, unsigned *one);
static unsigned where_box(const struct pmu_perf *pp, const struct pp_where *w,
			  unsigned k, unsigned one);

/*
 * What the kernel is asked to count for event e in slot sl: the kernel
 * PMU, the terms in perf's syntax (format fields, or an alias of its
 * events/ directory) and the config words they encode to through the
 * PMU's format/ files.  pmu_perf_encode() and pmu_perf_attr() share it.
 */
static int attr_of(const struct pmu *p, const struct pmu_slot *sl,
		   const struct evspec *e, const struct pfs_pmu **pmu,
		   char *terms, size_t len, uint64_t cfg[3], char *why,
		   size_t whylen)
{
	const struct pmu_perf *pp = p->perf;
	const struct unit_type *u = p->plat->units[sl->unit];
	const struct pp_box *b = slot_box(pp, sl);
	char msg[256];
	int r;

	memset(cfg, 0, 3 * sizeof(*cfg));
	if (u->kind == UNIT_FREERUN) {
		const struct freerun_ctr *fr = sl->idx < u->nfreerun ?
					       &u->freerun[sl->idx] : NULL;
		struct pp_where w;
		unsigned one = 0;

		if (!fr || !fr->perf_event)
			return fail(why, whylen, EOPNOTSUPP, "%s: the kernel "
				    "has no event for this free-running "
				    "counter", e->name);
		if (!freerun_where(pp, sl, &w, &one))
			return fail(why, whylen, ENODEV, "%s on socket %u: no "
				    "kernel PMU", fr->name, sl->socket);
		b = &pp->box[where_box(pp, &w, 0, one)];
		snprintf(terms, len, "%s", fr->perf_event);
		r = encode_named(b->pmu, fr->perf_event, cfg, msg, sizeof(msg));
	} else if (!b || !u->perf) {
		return fail(why, whylen, ENODEV, "%s: %s %u on socket %u has no "
			    "kernel PMU", e->name, u->name, sl->inst,
			    sl->socket);
	} else if (u->kind == UNIT_FIXED) {
		if (!u->perf->fixed)
			return fail(why, whylen, EOPNOTSUPP, "%s: the kernel "
				    "offers no fixed counter for unit %s",
				    e->name, u->name);
		snprintf(terms, len, "%s", u->perf->fixed);
		r = encode_named(b->pmu, u->perf->fixed, cfg, msg, sizeof(msg));
	} else {
		r = prog_terms(u, e, terms, len, why, whylen);
		if (r < 0)
			return r;
		r = pfs_encode(b->pmu, terms, cfg, msg, sizeof(msg));
	}
	if (r < 0)
		return fail(why, whylen, -r, "%s: %s", e->name, msg);
	*pmu = b->pmu;
	return 0;
}

static int pmu_perf_encode(const struct pmu *p, struct pmu_slot *sl,
		    const struct evspec *e, char *why, size_t whylen)
{
	const struct pfs_pmu *pmu;
	char terms[PP_TERMS_MAX];
	uint64_t cfg[3];
	int r = attr_of(p, sl, e, &pmu, terms, sizeof(terms), cfg, why,
			whylen);

	if (r < 0)
		return r;
	sl->ctl_val = cfg[0];
	sl->cfg1 = cfg[1];
	sl->cfg2 = cfg[2];
	return 0;
}

int pmu_perf_attr(const struct pmu *p, const struct pmu_slot *sl,
		  const struct evspec *e, struct pmu_perf_attr *a, char *why,
		  size_t whylen)
{
	const struct pfs_pmu *pmu;
	int r;

	memset(a, 0, sizeof(*a));
	if (!p->perf)
		return fail(why, whylen, EINVAL, "%s: not the perf backend",
			    e->name);
	r = attr_of(p, sl, e, &pmu, a->terms, sizeof(a->terms), a->config,
		    why, whylen);
	if (r < 0)
		return r;
	snprintf(a->pmu, sizeof(a->pmu), "%s", pmu->name);
	a->type = pmu->type;
	return 0;
}

/* Accounts one group reading of box b into the virtual counters. */
static void account(struct pmu_perf *pp, struct pp_box *b,
		    const uint64_t *v, uint64_t en, uint64_t run)
{
	uint64_t den = en - b->en, drun = run - b->run;

	b->scaled = drun < den;
	if (b->scaled)
		pp->st.scaled++;
	if (b->scaled && !drun)
		b->err = -EAGAIN;	/* the whole group: no data */
	for (unsigned i = 0; i < b->n; i++) {
		struct pp_ctr *c = &pp->ctr[b->id[i]];
		uint64_t d = v[i] - b->last[i];

		b->last[i] = v[i];
		b->acc[i] += den;
		if (b->scaled && !drun) {
			/* never scheduled this interval: no data */
			c->err = -EAGAIN;
			continue;
		}
		if (b->scaled)
			d = (uint64_t)((unsigned __int128)d * den / drun);
		c->virt += d;
		c->scaled = b->scaled;
		c->err = 0;
	}
	b->en = en;
	b->run = run;
}

static void box_lose(struct pmu_perf *pp, struct pp_box *b, int err,
		     const char *what);

/* Reads box b's group once (one read(2)). */
static int box_read(struct pmu_perf *pp, struct pp_box *b)
{
	uint64_t v[PP_BOX_EV], en, run;
	int r;

	b->gen = pp->gen;
	if (!b->g)
		return b->err;
	pp->st.reads++;
	r = pev_group_read(b->g, v, &en, &run);
	if (r < 0) {
		pp->st.read_errors++;
		b->err = r;
		snprintf(b->why, sizeof(b->why), "%s", hw_last_error());
		for (unsigned i = 0; i < b->n; i++)
			pp->ctr[b->id[i]].err = r;
		if (r == -ENODEV)	/* the kernel removed the PMU */
			box_lose(pp, b, r, "reading its group");
		return r;
	}
	b->err = 0;
	account(pp, b, v, en, run);
	return 0;
}

/* Closes box b's group, keeping its system calls (and the closes) in
 * pp->st. */
static void box_drop(struct pmu_perf *pp, struct pp_box *b)
{
	struct pev_stats st;

	if (!b->g)
		return;
	pev_group_stats(b->g, &st);
	pp->st.syscalls += st.syscalls;
	pev_group_close(b->g);
	pp->st.syscalls += b->n;	/* the closes */
	b->g = NULL;
	pp->home = -2;
	b->n = 0;
}

/* The unit instances and free-running counters box b counts, as
 * "imc 1 on socket 0, ..." into buf. */
static void box_units(const struct pmu_perf *pp, const struct pp_box *b,
		      char *buf, size_t len)
{
	unsigned idx = (unsigned)(b - pp->box);

	buf[0] = '\0';
	for (unsigned s = 0; s < PLAT_MAX_SOCKETS; s++)
		for (unsigned u = 0; u < PLAT_MAX_UNITS && pp->plat->units[u];
		     u++) {
			for (unsigned i = 0; i < PLAT_MAX_INST; i++)
				if (pp->inst_box[s][u][i] == idx + 1)
					append(buf, len, "%s%s %u on socket %u",
					       buf[0] ? ", " : "",
					       pp->plat->units[u]->name, i, s);
			for (unsigned k = 0; k < PLAT_MAX_CTRS; k++) {
				const struct pp_where *w = &pp->frbox[s][u][k];

				for (unsigned j = 0; j < w->n; j++)
					if (pp->bref[w->first + j] == idx) {
						append(buf, len, "%s%s on socket "
						       "%u", buf[0] ? ", " : "",
						       pp->plat->units[u]->
						       freerun[k].name, s);
						break;
					}
			}
		}
}

/* The name of the errnos that say a PMU is gone. */
static const char *gone_errno(int err)
{
	return err == -ENODEV ? "ENODEV" : err == -ENOENT ? "ENOENT" : "errno";
}

/*
 * Box b's kernel PMU went away (err, from what): its group is closed,
 * its counters read err from now on, and what it counted is no longer
 * present (pmu_present()) until pmu_reprobe() finds it again.  Logged
 * here, once per loss: later reads of the box make no system call.
 */
static void box_lose(struct pmu_perf *pp, struct pp_box *b, int err,
		     const char *what)
{
	char units[512];

	for (unsigned i = 0; i < b->n; i++)
		pp->ctr[b->id[i]].err = err;
	for (unsigned i = 0; i < b->wn; i++)
		pp->ctr[b->wid[i]].err = err;
	box_drop(pp, b);
	b->err = err;
	atomic_store(&b->lost_err, err);
	atomic_store(&b->lost, true);
	atomic_fetch_add(&pp->changes, 1);
	box_units(pp, b, units, sizeof(units));
	log_warnx("perf: the kernel's PMU %s on CPU %d went away (%s: %s, "
		  "%s): no longer counting %s, whose metrics are absent until "
		  "a SIGHUP finds the PMU again", b->name, b->cpu, what,
		  strerror(-err), gone_errno(err), units[0] ? units : "anything");
}

/* Has box b's PMU left sysfs (its directory is gone)? */
static bool box_pmu_gone(const struct pmu_perf *pp, const struct pp_box *b)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s",
		 pp->sysfs, b->name);
	return access(path, F_OK) < 0 && errno == ENOENT;
}

/* Closes box b's group, reading it once more first so that the events
 * that keep counting lose nothing up to now. */
static void box_close(struct pmu_perf *pp, struct pp_box *b)
{
	if (!b->g)
		return;
	(void)box_read(pp, b);
	box_drop(pp, b);
}

/* The times of b's events (acc, win) into the wanted set's order: an
 * event among the n of the group just closed (b->id, b->cfg) carries its
 * time on, a new one starts from 0. */
static void carry_times(struct pp_box *b, unsigned n)
{
	uint64_t acc[PP_BOX_EV] = { 0 }, win[PP_BOX_EV] = { 0 };

	for (unsigned j = 0; j < b->wn; j++)
		for (unsigned i = 0; i < n; i++)
			if (b->id[i] == b->wid[j] &&
			    memcmp(b->cfg[i], b->wcfg[j], sizeof(b->cfg[i])) == 0) {
				acc[j] = b->acc[i];
				win[j] = b->win[i];
				break;
			}
	memcpy(b->acc, acc, sizeof(acc));
	memcpy(b->win, win, sizeof(win));
}

/* Makes box b count its wanted set, if that is not what it counts. */
static int box_apply(struct pmu_perf *pp, struct pp_box *b)
{
	unsigned had;
	int r;

	if (b->g && b->wn == b->n &&
	    memcmp(b->wid, b->id, b->n * sizeof(*b->id)) == 0 &&
	    memcmp(b->wcfg, b->cfg, b->n * sizeof(*b->cfg)) == 0)
		return 0;
	if (atomic_load(&b->lost)) {
		/* gone: nothing to open until pmu_reprobe() finds it (a
		 * program built since counts nothing here) */
		for (unsigned i = 0; i < b->wn; i++)
			pp->ctr[b->wid[i]].err = b->err;
		return 0;
	}
	if (b->g)
		pp->st.reopens++;
	had = b->g ? b->n : 0;	/* box_close() forgets how many */
	box_close(pp, b);
	if (atomic_load(&b->lost))	/* the last read found it gone */
		return box_apply(pp, b);
	b->err = 0;	/* an old failure is not this set's */
	if (!b->wn)
		return 0;
	r = pev_group_open(pp->ops, pp->ctx, b->pmu->type, b->cpu,
			   (const uint64_t (*)[3])b->wcfg, b->wn, &b->g);
	if (r < 0) {
		pp->st.open_errors++;
		b->err = r;
		for (unsigned i = 0; i < b->wn; i++)
			pp->ctr[b->wid[i]].err = r;
		if ((r == -ENOENT || r == -ENODEV) && box_pmu_gone(pp, b)) {
			box_lose(pp, b, r, "opening a group on it");
			return 0;
		}
		return r;
	}
	carry_times(b, had);
	pp->home = -2;
	b->n = b->wn;
	memcpy(b->id, b->wid, b->n * sizeof(*b->id));
	memcpy(b->cfg, b->wcfg, b->n * sizeof(*b->cfg));
	memset(b->last, 0, sizeof(b->last));
	b->en = b->run = 0;
	b->err = 0;
	b->gen = pp->gen;	/* counts from zero now: nothing to read */
	for (unsigned i = 0; i < b->n; i++)
		pp->ctr[b->id[i]].err = 0;
	return 0;
}

/* Adds (id, cfg) to box b's wanted set; -E2BIG if full.  A counter
 * several groups share (a claim counting the baseline's event on the
 * baseline's counter, an iMC's fixed DCLK counter many claims read) is
 * one event of the kernel's group: opened twice, the second would need a
 * counter of its own, and the kernel refuses a second fixed event (and
 * the simulated one said so: "a group larger than the box's counters").
 * The same counter for two different events is a placement error. */
static int want(struct pp_box *b, uint32_t id, const uint64_t cfg[3])
{
	for (unsigned i = 0; i < b->wn; i++) {
		if (b->wid[i] != id)
			continue;
		if (memcmp(b->wcfg[i], cfg, sizeof(b->wcfg[i])) == 0)
			return 0;
		return hw_fail(EBUSY, "%s cpu %d: one counter wanted for two "
			       "events (config 0x%" PRIx64 " and 0x%" PRIx64 ")",
			       b->pmu->name, b->cpu, b->wcfg[i][0], cfg[0]);
	}
	if (b->wn == PP_BOX_EV)
		return hw_fail(E2BIG, "more than %u events on %s cpu %d",
			       PP_BOX_EV, b->pmu->name, b->cpu);
	b->wid[b->wn] = id;
	memcpy(b->wcfg[b->wn++], cfg, 3 * sizeof(*cfg));
	return 0;
}

/* The boxes counting free-running counter id of slot sl (its own PMU's
 * boxes, else the unit instance's box): *w, or false. */
static bool freerun_where(const struct pmu_perf *pp, const struct pmu_slot *sl,
			  struct pp_where *w, unsigned *one)
{
	if (sl->idx < PLAT_MAX_CTRS && sl->socket < PLAT_MAX_SOCKETS &&
	    sl->unit >= 0 && sl->unit < PLAT_MAX_UNITS &&
	    pp->frbox[sl->socket][sl->unit][sl->idx].n) {
		*w = pp->frbox[sl->socket][sl->unit][sl->idx];
		return true;
	}
	if (!slot_box(pp, sl))
		return false;
	*one = (unsigned)(slot_box(pp, sl) - pp->box);
	*w = (struct pp_where){ .first = UINT_MAX, .n = 1 };
	return true;
}

static unsigned where_box(const struct pmu_perf *pp, const struct pp_where *w,
			  unsigned k, unsigned one)
{
	return w->first == UINT_MAX ? one : pp->bref[w->first + k];
}

/* The free-running counters already read keep their place in their
 * boxes' wanted sets. */
static int want_freerun(struct pmu *p, const struct pmu_slot *sl)
{
	struct pmu_perf *pp = p->perf;
	const struct unit_type *u = p->plat->units[sl->unit];
	const struct freerun_ctr *fr = &u->freerun[sl->idx];
	struct pp_where w;
	unsigned one = 0;
	char why[256];
	int r;

	if (!fr->perf_event)
		return hw_fail(EOPNOTSUPP, "%s: the kernel has no event for "
			       "this free-running counter", fr->name);
	if (!freerun_where(pp, sl, &w, &one))
		return hw_fail(ENODEV, "%s on socket %u: no kernel PMU",
			       fr->name, sl->socket);
	for (unsigned k = 0; k < w.n; k++) {
		struct pp_box *b = &pp->box[where_box(pp, &w, k, one)];
		struct pp_ctr *c = &pp->ctr[sl->ctr_id];

		if (c->fr_pmu != b->pmu || c->fr_type != (int)b->pmu->type) {
			if ((r = encode_named(b->pmu, fr->perf_event, c->fr_cfg,
					      why, sizeof(why))) < 0) {
				c->fr_pmu = NULL;
				return hw_fail(-r, "%s: %s", fr->name, why);
			}
			c->fr_pmu = b->pmu;
			c->fr_type = (int)b->pmu->type;
		}
		if ((r = want(b, sl->ctr_id, c->fr_cfg)) < 0)
			return r;
	}
	return 0;
}

static int pmu_perf_program(struct pmu *p, const struct pmu_slot *s, unsigned n,
		     bool force)
{
	struct pmu_perf *pp = p->perf;
	int first = 0, r;

	(void)force;	/* nothing to rewrite: the kernel holds the state */
	for (unsigned i = 0; i < pp->nbox; i++)
		pp->box[i].wn = 0;
	/* free-running counters read so far stay open */
	p->pass++;
	for (unsigned id = 1; id < pp->nctr; id++)
		if (pp->ctr[id].fr_open) {
			const struct pmu_reg *g = &p->reg[id];
			struct pmu_slot sl;

			pmu_slot(p, &sl, g->socket, g->unit, g->inst,
				 pp->ctr[id].fr_idx);
			if ((r = want_freerun(p, &sl)) < 0 && !first)
				first = r;
		}
	for (unsigned i = 0; i < n; i++) {
		struct pp_box *b;
		uint64_t cfg[3] = { s[i].ctl_val, s[i].cfg1, s[i].cfg2 };

		if (s[i].freerun || s[i].filter)
			continue;
		if (!(b = slot_box(pp, &s[i]))) {
			if (!first)
				first = hw_fail(ENODEV, "%s %u on socket %u has "
						"no kernel PMU",
						p->plat->units[s[i].unit]->name,
						s[i].inst, s[i].socket);
			continue;
		}
		if ((r = want(b, s[i].ctr_id, cfg)) < 0 && !first)
			first = r;
	}
	for (unsigned i = 0; i < pp->nbox; i++)
		if ((r = box_apply(pp, &pp->box[i])) < 0 && !first)
			first = r;
	return first;
}

void pmu_perf_read_local(bool on)
{
	rl.on = on && sched_getaffinity(0, sizeof(rl.allowed),
					&rl.allowed) == 0;
}

/* The position of v's next tick in its cycle: PP_VISIT_TRIAL ticks from
 * here, PP_VISIT_TRIAL visiting, PP_VISIT_RUN of the cheaper. */
static unsigned visit_phase(const struct pp_visit *v)
{
	unsigned pos = v->step % (2 * PP_VISIT_TRIAL + PP_VISIT_RUN);

	return pos < PP_VISIT_TRIAL ? 0 : pos < 2 * PP_VISIT_TRIAL ? 1 : 2;
}

enum pp_how pmu_perf_visit_next(struct pp_visit *v)
{
	unsigned pos = v->step % (2 * PP_VISIT_TRIAL + PP_VISIT_RUN);

	if (pos == 0)
		memset(v->ns, 0, sizeof(v->ns));
	if (pos == 2 * PP_VISIT_TRIAL)	/* ties: no moves */
		v->how = v->ns[PP_VISIT] < v->ns[PP_FROM_HERE] ? PP_VISIT
							       : PP_FROM_HERE;
	v->phase = visit_phase(v);
	v->step++;
	return v->phase == 2 ? v->how : (enum pp_how)v->phase;
}

bool pmu_perf_visit_measuring(const struct pp_visit *v)
{
	return v->phase < 2;
}

void pmu_perf_visit_cost(struct pp_visit *v, enum pp_how how, uint64_t ns)
{
	if (v->phase < 2 && how == (enum pp_how)v->phase)
		v->ns[how] += ns;
}

/* Moves the calling thread to cpu; true if it runs there now. */
static bool move_to(struct pmu_perf *pp, int cpu)
{
	cpu_set_t one;

	if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &rl.allowed))
		return false;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		return false;
	pp->st.moves++;
	return true;
}

static uint64_t thread_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Reads the open groups not read this tick that live on cpu (-1: all of
 * them) from wherever the thread is; the CPU of the first group left
 * unread, or -1. */
static int read_on(struct pmu_perf *pp, int cpu, int *first)
{
	int next = -1, r;

	for (unsigned i = 0; i < pp->nbox; i++) {
		struct pp_box *b = &pp->box[i];

		if (!b->g || b->gen == pp->gen)
			continue;
		if (cpu >= 0 && b->cpu != cpu) {
			if (next < 0)
				next = b->cpu;
			continue;
		}
		if ((r = box_read(pp, b)) < 0) {
			if (!*first)
				*first = r;
			continue;	/* the next read's delta spans both */
		}
		/* the tick's read: the events' times since the last one */
		memcpy(b->win, b->acc, sizeof(b->win));
		memset(b->acc, 0, sizeof(b->acc));
	}
	return next;
}

/* The CPU with the most open groups, where the thread reads from when it
 * does not visit (cached until a group opens or closes). */
static int home_cpu(struct pmu_perf *pp)
{
	int best = -1;
	unsigned most = 0;

	if (pp->home >= -1)
		return pp->home;
	for (unsigned i = 0; i < pp->nbox; i++) {
		unsigned n = 0;

		if (!pp->box[i].g)
			continue;
		for (unsigned j = 0; j < pp->nbox; j++)
			n += pp->box[j].g && pp->box[j].cpu == pp->box[i].cpu;
		if (n > most) {
			most = n;
			best = pp->box[i].cpu;
		}
		if (most * 2 > pp->nbox)
			break;
	}
	return pp->home = best;
}

/* The sampling thread's tick reads on the real kernel (rl above): the
 * groups of the CPU it is on first, then those of the other CPUs either
 * from its home CPU or by visiting each, whichever cost its CPU time
 * less in the last trial (pmu_perf_visit_next()). */
static void read_placed(struct pmu_perf *pp, int *first)
{
	enum pp_how how = pmu_perf_visit_next(&pp->visit);
	bool measure = pmu_perf_visit_measuring(&pp->visit);
	int here = sched_getcpu(), next;
	uint64_t t0 = 0;

	if (how == PP_FROM_HERE) {
		int home = home_cpu(pp);

		if (home >= 0 && home != here && move_to(pp, home))
			here = home;
	}
	next = read_on(pp, here, first);
	if (measure)
		t0 = thread_ns();
	while (how == PP_VISIT && next >= 0 && move_to(pp, next))
		next = read_on(pp, next, first);
	(void)read_on(pp, -1, first);	/* what is left: from here */
	if (measure)
		pmu_perf_visit_cost(&pp->visit, how, thread_ns() - t0);
}

/* Reads every open group once: one read(2) each. */
static int pmu_perf_snapshot(struct pmu *p)
{
	struct pmu_perf *pp = p->perf;
	int first = 0;

	pp->gen++;
	for (unsigned i = 0; i < pp->nbox; i++)
		memset(pp->box[i].win, 0, sizeof(pp->box[i].win));
	if (rl.on && pp->ops == &pev_sys_ops)
		read_placed(pp, &first);
	else
		(void)read_on(pp, -1, &first);
	return first;
}

/* The time_enabled s's event gained between the last two freezes in the
 * boxes counting it (their mean for a counter summed over several), or
 * so_far: since the last freeze; 0: unknown. */
static uint64_t pmu_perf_own_window(const struct pmu *p,
				    const struct pmu_slot *s, bool so_far)
{
	const struct pmu_perf *pp = p->perf;
	struct pp_where w;
	unsigned one = 0;
	uint64_t sum = 0;

	if (s->freerun) {
		if (!freerun_where(pp, s, &w, &one))
			return 0;
	} else {
		if (!slot_box(pp, s))
			return 0;
		one = (unsigned)(slot_box(pp, s) - pp->box);
		w = (struct pp_where){ .first = UINT_MAX, .n = 1 };
	}
	for (unsigned k = 0; k < w.n; k++) {
		const struct pp_box *b = &pp->box[where_box(pp, &w, k, one)];
		uint64_t x = 0;

		for (unsigned i = 0; i < b->n && !x; i++)
			if (b->id[i] == s->ctr_id)
				x = so_far ? b->acc[i] : b->win[i];
		if (!x)
			return 0;
		sum += x;
	}
	return w.n ? sum / w.n : 0;
}

/* The error of a counter read: what failed (unit, its PMU and CPU where
 * the failing group is known) and why (the group read's own message:
 * the kernel's errno, the simulated kernel's fault).  Returns err. */
static int read_error(const struct pmu *p, const struct pmu_slot *s, int err,
		      const struct pp_box *b)
{
	const char *unit = p->plat->units[s->unit]->name;

	if (err == -EAGAIN)
		return hw_fail(EAGAIN, "reading %s: the kernel did not schedule "
			       "the group this interval (another perf user "
			       "holds the counters)", unit);
	if (!b || b->err != err || !b->why[0])
		return hw_fail(-err, "reading %s: %s", unit, strerror(-err));
	return hw_fail(-err, "reading %s (%s on CPU %d): %s", unit,
		       b->pmu->name, b->cpu, b->why);
}

static int pmu_perf_read(struct pmu *p, const struct pmu_slot *s, uint64_t *raw)
{
	struct pmu_perf *pp = p->perf;
	const struct pp_box *eb = NULL;
	struct pp_ctr *c;
	struct pp_where w;
	unsigned one = 0;
	int r, err;

	if (s->ctr_id == PMU_NO_REG || s->ctr_id >= pp->nctr)
		return hw_fail(EINVAL, "not a counter of this PMU");
	c = &pp->ctr[s->ctr_id];
	if (s->freerun && !c->fr_open) {
		/* first read: open it where it counts (from zero) */
		for (unsigned i = 0; i < pp->nbox; i++) {
			struct pp_box *b = &pp->box[i];

			b->wn = b->n;
			memcpy(b->wid, b->id, b->n * sizeof(*b->id));
			memcpy(b->wcfg, b->cfg, b->n * sizeof(*b->cfg));
		}
		if ((r = want_freerun(p, s)) < 0)
			return r;
		c->fr_open = true;
		c->fr_idx = s->idx;
		for (unsigned i = 0; i < pp->nbox; i++)
			if ((r = box_apply(pp, &pp->box[i])) < 0)
				return r;
	}
	if (s->freerun) {
		if (!freerun_where(pp, s, &w, &one))
			return hw_fail(ENODEV, "no kernel PMU");
	} else {
		struct pp_box *b = slot_box(pp, s);

		if (!b)
			return hw_fail(ENODEV, "%s %u on socket %u has no "
				       "kernel PMU",
				       p->plat->units[s->unit]->name, s->inst,
				       s->socket);
		one = (unsigned)(b - pp->box);
		w = (struct pp_where){ .first = UINT_MAX, .n = 1 };
	}
	/* A counter summed over several boxes (core scope) is down while
	 * any of them is: the others' sum is not a value. */
	err = c->err;
	for (unsigned k = 0; k < w.n; k++) {
		struct pp_box *b = &pp->box[where_box(pp, &w, k, one)];

		if (b->gen != pp->gen)
			(void)box_read(pp, b);
		if (b->err < 0 && !eb && (!err || err == b->err)) {
			err = b->err;
			eb = b;
		}
	}
	if (err < 0)
		return read_error(p, s, err, eb);
	*raw = c->virt;
	return 0;
}

/* Reads now the groups slots s[0..n) count in, each once, and no other:
 * a claim's read-now between ticks (pmu_read_now()).  They are read in
 * the order a tick reads them (read_on()), so that a claim that starts
 * with such a read has every counter's window as long as its box's next
 * tick makes it, however long each read takes. */
static int perf_read_now(struct pmu *p, const struct pmu_slot *s, unsigned n)
{
	struct pmu_perf *pp = p->perf;
	int first = 0;

	pp->gen++;	/* every box read below is read afresh */
	for (unsigned k = 0; k < n; k++) {
		struct pp_where w;
		unsigned one = 0;

		if (s[k].freerun ? !freerun_where(pp, &s[k], &w, &one)
				 : !slot_box(pp, &s[k]))
			continue;	/* pmu_read() says why */
		if (!s[k].freerun) {
			one = (unsigned)(slot_box(pp, &s[k]) - pp->box);
			w = (struct pp_where){ .first = UINT_MAX, .n = 1 };
		}
		for (unsigned b = 0; b < w.n; b++)
			pp->box[where_box(pp, &w, b, one)].wanted = pp->gen;
	}
	for (unsigned i = 0; i < pp->nbox; i++) {
		struct pp_box *x = &pp->box[i];
		int r;

		if (x->wanted == pp->gen && x->gen != pp->gen &&
		    (r = box_read(pp, x)) < 0 && !first)
			first = r;
	}
	return first;
}


static bool pmu_perf_scaled(const struct pmu *p, const struct pmu_slot *s)
{
	return s->ctr_id != PMU_NO_REG && s->ctr_id < p->perf->nctr &&
	       p->perf->ctr[s->ctr_id].scaled;
}

static int pmu_perf_release(struct pmu *p)
{
	struct pmu_perf *pp = p->perf;

	for (unsigned i = 0; i < pp->nbox; i++)
		box_drop(pp, &pp->box[i]);
	for (unsigned id = 0; id < pp->nctr; id++)
		pp->ctr[id].fr_open = false;
	return 0;
}

static int pmu_perf_reachable(const struct pmu *p, const struct evspec *e, char *why,
		       size_t whylen)
{
	const struct pmu_perf *pp = p->perf;
	const struct unit_type *u = p->plat->units[e->unit];
	bool any = false;

	if (u->kind == UNIT_FREERUN && e->freerun >= 0) {
		const struct freerun_ctr *fr = &u->freerun[e->freerun];

		if (!fr->perf_event)
			return fail(why, whylen, EOPNOTSUPP, "%s: the kernel "
				    "has no event for this free-running "
				    "counter", e->name);
		for (unsigned s = 0; s < p->topo->nsockets; s++)
			any |= (e->freerun < (int)PLAT_MAX_CTRS &&
				pp->frbox[s][e->unit][e->freerun].n) ||
			       (!fr->perf_pmu && p->topo->sock[s].ninst[e->unit]);
	} else {
		if (!u->perf || (u->kind == UNIT_FIXED && !u->perf->fixed))
			return fail(why, whylen, EOPNOTSUPP, "%s: unit %s has "
				    "no kernel PMU in this build", e->name,
				    u->name);
		for (unsigned s = 0; s < p->topo->nsockets; s++)
			any |= p->topo->sock[s].ninst[e->unit] > 0;
	}
	if (!any)
		return fail(why, whylen, ENODEV, "%s: the kernel has no PMU "
			    "for unit %s (%s)", e->name, u->name,
			    u->perf ? u->perf->pmu : "none");
	/* a programmable event whose encoding the PMU's format/ cannot
	 * hold (gnr before 6.8: the generic format's 8-bit umask, the CHA
	 * TOR events' UMaskExt) is not counted rather than mis-counted */
	if (u->kind == UNIT_PROG && e->unit < PLAT_MAX_UNITS) {
		const struct pp_box *b = NULL;
		char terms[PP_TERMS_MAX], msg[256];
		uint64_t cfg[3];

		for (unsigned s = 0; !b && s < p->topo->nsockets; s++)
			for (unsigned i = 0; !b && i < PLAT_MAX_INST; i++)
				if (pp->inst_box[s][e->unit][i])
					b = &pp->box[pp->inst_box[s][e->unit][i]
						     - 1];
		if (b && prog_terms(u, e, terms, sizeof(terms), msg,
				    sizeof(msg)) == 0 &&
		    pfs_encode(b->pmu, terms, cfg, msg, sizeof(msg)) < 0)
			return fail(why, whylen, EOPNOTSUPP, "%s: the kernel's "
				    "PMU %s cannot take its encoding: %s",
				    e->name, b->name, msg);
	}
	return 0;
}

/* The perf backend's slot: the kernel extends every counter to 64 bits;
 * no register address. */
static void perf_slot(const struct pmu *p, struct pmu_slot *s)
{
	const struct unit_type *u = p->plat->units[s->unit];

	s->freerun = u->kind == UNIT_FREERUN;
	s->width = 64;
	if (!s->freerun)
		s->ctl_id = pmu_reg_id(p, s->socket, s->unit, s->inst, s->idx,
				       PMU_REG_CTL);
}

/* The kernel programs a box filter from the event's config1: a filter
 * slot has no register of its own. */
static void perf_filter(const struct pmu *p, struct pmu_slot *fs, unsigned f)
{
	(void)p;
	(void)f;
	fs->ctl_id = PMU_NO_REG;
}

/* Nothing stops the kernel's counters: the "freeze" is the moment every
 * group is read, once, and the window is the time from one such read to
 * the next. */
static int perf_enable(struct pmu *p, bool on, enum pmu_window *w)
{
	p->owns = true;
	if (on)
		return 0;
	*w = PMU_WINDOW_READS;
	return pmu_perf_snapshot(p);
}

static bool perf_lost(const struct pmu *p, unsigned s, int u, unsigned in)
{
	const struct pmu_perf *pp = p->perf;
	unsigned b;

	if (s >= PLAT_MAX_SOCKETS || u < 0 || u >= PLAT_MAX_UNITS ||
	    in >= PLAT_MAX_INST || !(b = pp->inst_box[s][u][in]))
		return false;
	return atomic_load(&pp->box[b - 1].lost);
}

static uint64_t perf_changes(const struct pmu *p)
{
	return atomic_load(&p->perf->changes);
}

/*
 * Looks for the lost boxes' PMUs again: a PMU whose directory is back is
 * read afresh for its type number (a reloaded driver registers under a
 * new one; its formats and events are the driver's, the same), and its
 * boxes count again from the next program.  The sampling thread only:
 * it alone opens groups, the one use of the type; the PMU's formats,
 * which request threads encode claims with, stay where they are.
 * Returns how many boxes came back; msg names each PMU looked for.
 */
static int perf_reprobe(struct pmu *p, char *msg, size_t len)
{
	struct pmu_perf *pp = p->perf;
	int found = 0;

	for (unsigned j = 0; j < pp->npmus; j++) {
		struct pfs_pmu *old = pp->pmus[j], *np;
		char why[256], units[512] = "";
		bool any = false;
		int r;

		for (unsigned i = 0; i < pp->nbox; i++)
			if (pp->box[i].pmu == old && atomic_load(&pp->box[i].lost))
				any = true;
		if (!any)
			continue;
		r = pfs_pmu_load(pp->sysfs, old->name, &np, why, sizeof(why));
		if (r < 0) {
			append(msg, len, "%s%s is still gone (%s)",
			       msg[0] ? "; " : "", old->name, why);
			continue;
		}
		old->type = np->type;
		for (unsigned i = 0; i < pp->nbox; i++) {
			struct pp_box *b = &pp->box[i];

			if (b->pmu != old || !atomic_load(&b->lost))
				continue;
			if (units[0])
				append(units, sizeof(units), ", ");
			box_units(pp, b, units + strlen(units),
				  sizeof(units) - strlen(units));
			b->err = 0;
			atomic_store(&b->lost_err, 0);
			atomic_store(&b->lost, false);
			found++;
		}
		pfs_pmu_free(np);
		append(msg, len, "%s%s is back: %s counted again",
		       msg[0] ? "; " : "", old->name, units);
	}
	if (found)
		atomic_fetch_add(&pp->changes, 1);
	return found;
}

void pmu_perf_lost(const struct pmu_perf *pp, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; pp && i < pp->nbox; i++) {
		const struct pp_box *b = &pp->box[i];
		char units[256];
		int err;

		if (!atomic_load(&b->lost))
			continue;
		err = atomic_load(&b->lost_err);
		box_units(pp, b, units, sizeof(units));
		append(buf, len, "%s%s on CPU %d (%s: went away at run time, "
		       "%s)", buf[0] ? ", " : "", b->name, b->cpu,
		       units[0] ? units : "no unit", gone_errno(err));
	}
}

static const struct pmu_ops pmu_perf_ops = {
	.name = "perf",
	.free = perf_free,
	.slot = perf_slot,
	.filter = perf_filter,
	.encode = pmu_perf_encode,
	.read = pmu_perf_read,
	.clear_all = pmu_perf_release,
	.apply = pmu_perf_program,
	.enable = perf_enable,
	.release = pmu_perf_release,
	.scaled = pmu_perf_scaled,
	.reachable = pmu_perf_reachable,
	.snapshot = pmu_perf_snapshot,
	.read_now = perf_read_now,
	.own_window = pmu_perf_own_window,
	.lost = perf_lost,
	.changes = perf_changes,
	.reprobe = perf_reprobe,
};

int pmu_init_perf(struct pmu *p, struct hw *hw, const struct topology *t,
		  struct pmu_perf *pp)
{
	int r = pmu_number(p, hw, t, false);

	if (r < 0) {
		pmu_perf_free(pp);
		return r;
	}
	p->perf = pp;
	p->ops = &pmu_perf_ops;
	if ((r = pmu_perf_attach(p)) < 0)
		pmu_free(p);
	return r;
}
