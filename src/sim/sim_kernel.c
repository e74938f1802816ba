/*
 * sim_kernel.c - the simulated kernel (sim_kernel.h): a sysfs tree of the
 * simulated machine's uncore PMUs (sim_pmu.c) and perf_event_open(2),
 * read(2), ioctl(2) and close(2) on them, counting from the simulator's
 * workload and clock.
 *
 * Opening an event follows the order in which Linux checks it, so that a
 * caller sees the error the kernel would give first:
 *  1. kernel/events/core.c perf_copy_attr(): attr.size below
 *     PERF_ATTR_SIZE_VER0 -> E2BIG; unknown read_format bits -> EINVAL
 *     (PERF_FORMAT_LOST exists from Linux 6.0); sys_perf_event_open():
 *     unknown flags -> EINVAL.
 *  2. Privilege, sys_perf_event_open(): perf_event_paranoid >= 3 (the
 *     Debian/Ubuntu patch's "no perf_event_open for the unprivileged")
 *     or, unless exclude_kernel, > 1 (perf_allow_kernel()) without the
 *     capability -> EACCES.
 *  3. pid != -1 -> EINVAL (uncore PMUs have no task context:
 *     find_get_context() with task_ctx_nr = perf_invalid_context); cpu -1
 *     without a task -> EINVAL (perf_event_alloc()); group_fd that is no
 *     event -> EBADF.
 *  4. The PMU (perf_init_event()): no PMU of that type -> ENOENT; then
 *     PERF_PMU_CAP_NO_EXCLUDE (perf_try_init_event()): any exclude_* bit
 *     -> EINVAL; then the driver's event_init:
 *     Intel, arch/x86/events/intel/uncore.c uncore_pmu_event_init():
 *     sample_period (sampling, or freq, which sets it) -> EINVAL; cpu < 0
 *     or a CPU with no box -> EINVAL; the event moves to the box's CPU
 *     (event->cpu = box->cpu); a group member is checked by
 *     uncore_validate_group(): the leader and its enabled siblings on the
 *     same box plus the new event must fit the box's counters (num_counters
 *     generic, plus the fixed counter where the type has one;
 *     uncore_collect_events(), uncore_assign_events() with each event's
 *     counter constraint) -> EINVAL.  Free-running events never take a
 *     counter.
 *     AMD, arch/x86/events/amd/uncore.c amd_uncore_event_init(): cpu < 0
 *     -> EINVAL; no context on that CPU (a CPU of another socket than an
 *     amd_umc_N's) -> ENODEV; the event moves to the
 *     context's CPU; no group check at open: a group too big for the
 *     counters opens and then never runs (amd_uncore_add() -> EBUSY at
 *     schedule time), so its time_running stays 0.  Sampling is refused
 *     after event_init by PERF_PMU_CAP_NO_INTERRUPT -> EOPNOTSUPP.
 *     Both drivers mask config silently to their event mask (hwc->config =
 *     attr.config & mask).  Here a bit outside every format field is
 *     refused (EINVAL) instead: the real kernel would count a different
 *     event without a word, which is the bug this catches.
 *  5. The group (sys_perf_event_open()): a leader that is itself a
 *     sibling, on another PMU or another CPU -> EINVAL.
 *  6. find_get_context() -> perf_allow_cpu(): a system-wide event with
 *     perf_event_paranoid > 0 and no capability -> EACCES.
 *
 * Counting.  An event counts while it is enabled, its leader is enabled,
 * its group fits its box's counters, and its PMU is there; it counts the
 * workload's rate for what its config decodes to (sim_pmu.c), on its box
 * (a "@N" key counts on box N only, a key without one is split over the
 * unit's boxes), integrated lazily over the simulator's clock as hw_sim.c
 * does: two reads 1 s apart differ by rate x 1 s +- 1.  Fixed counters
 * count the platform's clock as the register model does
 * (hw_sim_clock_hz()).  Counts are 64-bit (the kernel accumulates deltas:
 * no wrap).  time_enabled grows while an event is enabled, time_running
 * while it runs.  An event runs a fraction f of the time, and counts that
 * fraction of the events (a fluid model of the kernel's rotation): f =
 * the product of the running fractions of the workload's perf_contention
 * faults on its PMU, times counters / generic events when the enabled
 * groups on one box want more counters than it has (the kernel then
 * rotates them), 0 for a group that does not fit at all.
 *
 * Reads: PERF_FORMAT_GROUP reads the whole group of the descriptor's
 * event, leader first then siblings in the order they were opened, with
 * the leader's times (perf_read_group()); else one value.  A buffer
 * smaller than the record -> ENOSPC.  PERF_FORMAT_LOST reads 0.
 * ioctl: ENABLE, DISABLE, RESET (count to 0, times kept) on the event,
 * or on its whole group with PERF_IOC_FLAG_GROUP (perf_event_for_each());
 * ID writes the event's id.  Other perf ioctls -> EINVAL, anything else
 * -> ENOTTY.  close: closing a leader makes each sibling a group of its
 * own (perf_group_detach()).
 *
 * Faults (the workload's, sim_workload.h), each on the PMUs its target
 * matches: perf_contention as above from "at" for "seconds" (or for
 * ever); pmu_gone at "at": the PMU stops counting, its directory leaves
 * the tree (at the next call after "at"), opening its type gives ENOENT
 * and every access to its open events ENODEV, except close; with
 * "seconds" it comes back after them as a reloaded driver does: under a
 * new type number, its directory written again, new events counting
 * while those opened before it went stay dead;
 * perf_read_error: the next "count" reads fail with its errno;
 * short_read: the next "count" reads return one u64 less than the record
 * (half of a one-value record).  The simulator's stuck fault on a
 * free-running counter ("imc:DRAM_DATA_READS") stops the events that read
 * it from "at" on, as the hardware counter stops: the kernel reads the
 * same value, times go on.
 *
 * The register model's device_missing fault as the kernel would see it:
 * a missing PCI function is a box the kernel's uncore PCI driver never
 * probed (arch/x86/events/intel/uncore.c uncore_pci_probe()) or lost
 * (uncore_pci_remove()): missing from the start on every socket, its
 * "%u" PMU is never registered (uncore_pci_pmu_register() runs at the
 * first box); missing from the start on one socket, an event opened on a
 * CPU there finds no box (uncore_pmu_event_init() -> EINVAL); gone later,
 * the box's open events stop counting and every access but close gives
 * ENODEV, as pmu_gone does.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/hw_sim.h"
#include "hw/perf_event.h"
#include "sim/sim_kernel.h"
#include "sim/sim_pmu.h"
#include "sim/sim_throttle.h"
#include "sim/sim_ufreq.h"
#include "sim/sim_rapl.h"
#include "plat/plat_sim.h"

#define SK_FORMAT_ALL (PERF_FORMAT_TOTAL_TIME_ENABLED | \
		       PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | \
		       PERF_FORMAT_GROUP)
#define SK_FORMAT_LOST (1u << 4)	/* PERF_FORMAT_LOST, Linux 6.0 */
#define SK_KERNEL_LOST 0x060000u
#define SK_KERNEL_PERFMON 0x050800u	/* CAP_PERFMON: Linux 5.8 */
#define SK_CAP_SYS_ADMIN 21
#define SK_CAP_PERFMON 38
#define SK_MAX_GROUP 64		/* events in one group read */
#define SK_MAX_EVENTS 65536	/* open events (the kernel: RLIMIT_NOFILE) */

/* One open event. */
struct sk_event {
	bool used;
	uint64_t id;
	struct spmu *pmu;
	unsigned leader;	/* slot of its group leader (itself) */
	struct spmu_box box;
	uint64_t read_format;
	struct spmu_event what;
	double *rates;		/* per workload phase */
	bool enabled;
	int next;		/* the next sibling of its group (opening
				   order), -1: the last */
	double share;		/* leader: the fraction of the time its
				   group gets the box (reshare()), 0: it
				   does not fit */
	unsigned count_want;	/* leader: generic counters its group
				   wants (reshare()) */
	uint64_t count;
	double frac;		/* events counted, not yet whole */
	double t;		/* seconds: counted up to here */
	uint64_t enabled_ns, running_ns;
	double run_acc;		/* running ns not yet whole */
	double lost_t;		/* its box's PCI function goes missing here
				   (device_missing), INFINITY: never */
	double opened_t;	/* when it was opened */
	bool rapl;		/* an event of the power PMU (sim_rapl.h) */
	enum rapl_dom dom;	/* its domain */
};

/* The workload's perf faults on one PMU (indexes into its faults[]). */
struct sk_pf {
	unsigned *idx;
	unsigned n;
};

struct skern {
	pthread_mutex_t lock;
	struct hw *sim;
	const struct workload *wl;
	struct spmu_set set;
	char *root;		/* the directory holding sys/ and proc/ */
	bool own_root;		/* made by skern_open(): removed at close */
	char sysfs[PATH_MAX], procfs[PATH_MAX];
	struct sk_event *ev;
	unsigned nev, nopen;
	uint64_t next_id;
	unsigned *left;		/* per workload fault: reads still to fail */
	bool *done;		/* per workload fault: pmu_gone applied */
	bool *back;		/* ... and its PMU back ("seconds") */
	struct sk_pf *pf;	/* per PMU (as k->set.p): its faults */
	int power;		/* k->set.p index of the power PMU, -1 */
};

__attribute__((format(printf, 3, 4)))
static int fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* ---- time and faults ---------------------------------------------------- */

static int64_t ns_of(double t)
{
	return (int64_t)llround(t * 1e9);
}

/* Does perf fault f act on PMU p? */
static bool fault_on(const struct wl_fault *f, const struct spmu *p)
{
	return wl_fault_is_perf(f->kind) && fnmatch(f->text, p->name, 0) == 0;
}

/* The faults acting on p (matched once, at skern_open()). */
static const struct sk_pf *faults_of(const struct skern *k,
				     const struct spmu *p)
{
	return &k->pf[p - k->set.p];
}

#define FOR_FAULTS(k, p, f)						  \
	for (unsigned i_ = 0, *x_ = faults_of(k, p)->idx;		  \
	     i_ < faults_of(k, p)->n && ((f) = &(k)->wl->faults[x_[i_]]); \
	     i_++)

/* Has p been unloaded by time t (and not loaded again)? */
static bool gone_at(const struct skern *k, const struct spmu *p, double t)
{
	const struct wl_fault *f;

	FOR_FAULTS(k, p, f)
		if (f->kind == WL_FAULT_PMU_GONE && f->at <= t &&
		    (f->seconds == 0 || t < f->at + f->seconds))
			return true;
	return false;
}

/* Was the PMU of event e unloaded after e was opened, by time t?  Such
 * an event stays dead when the PMU comes back. */
static bool died_at(const struct skern *k, const struct sk_event *e, double t)
{
	const struct wl_fault *f;

	FOR_FAULTS(k, e->pmu, f)
		if (f->kind == WL_FAULT_PMU_GONE && e->opened_t < f->at &&
		    f->at <= t)
			return true;
	return false;
}

/* The fraction of the time another perf user leaves p's events at t. */
static double contention_at(const struct skern *k, const struct spmu *p,
			    double t)
{
	const struct wl_fault *f;
	double frac = 1;

	FOR_FAULTS(k, p, f)
		if (f->kind == WL_FAULT_PERF_CONTENTION && f->at <= t &&
		    (f->seconds == 0 || t < f->at + f->seconds))
			frac *= f->running;
	return frac;
}

/* When the PCI function of box inst of unit index unit on socket sock
 * goes missing (the earliest device_missing fault on it), else
 * INFINITY.  Boxes of MSR or MMIO units never go missing. */
static double box_missing_at(const struct skern *k, int unit, unsigned sock,
			     unsigned inst)
{
	const struct unit_type *u = k->set.plat->units[unit];
	int bus = hw_sim_pci_bus(k->sim, sock);
	double at = INFINITY;
	uint32_t b;

	if (u->space != HW_PCI || bus < 0 || !plat_inst_base(u, inst, &b))
		return INFINITY;
	for (unsigned i = 0; i < k->wl->nfaults; i++) {
		const struct wl_fault *f = &k->wl->faults[i];

		if (f->kind == WL_FAULT_DEVICE_MISSING &&
		    (f->socket < 0 || (unsigned)f->socket == sock) &&
		    f->target.bus == bus && f->target.dev == b >> 3 &&
		    f->target.fn == (b & 7) && f->at < at)
			at = f->at;
	}
	return at;
}

/* Is every box of "%u" PMU p missing from the start, so that the
 * kernel never registered it?  (A plain-name PMU has other boxes.) */
static bool never_probed(const struct skern *k, const struct spmu *p)
{
	int unit = p->prog >= 0 ? p->prog : p->units[0];

	if (p->inst < 0)
		return false;
	for (unsigned s = 0; s < k->set.nsockets; s++)
		if (box_missing_at(k, unit, s, (unsigned)p->inst) > 0)
			return false;
	return true;
}

/* The first time after t and before end at which a fault changes what
 * p's events do, else end. */
static double next_change(const struct skern *k, const struct spmu *p,
			  double t, double end)
{
	const struct wl_fault *f;

	FOR_FAULTS(k, p, f) {
		double b[2] = { f->at, f->seconds > 0 ? f->at + f->seconds : -1 };

		if (f->kind != WL_FAULT_PERF_CONTENTION &&
		    f->kind != WL_FAULT_PMU_GONE)
			continue;
		for (unsigned j = 0; j < 2; j++)
			if (b[j] > t && b[j] < end)
				end = b[j];
	}
	return end;
}

/* Does stuck fault f hit e: a free-running counter it names, on e's
 * socket?  (A stuck programmable counter register names no event: which
 * event the kernel puts on which counter is not modelled.) */
static bool stuck_hits(const struct wl_fault *f, const struct sk_event *e)
{
	return f->kind == WL_FAULT_STUCK && f->target_is_freerun &&
	       e->what.role == SPMU_FREERUN &&
	       e->what.unit == f->freerun_unit &&
	       e->what.fr_idx == f->freerun_idx &&
	       (f->socket < 0 || (unsigned)f->socket == e->box.socket);
}

/* Has e's counter stopped advancing by time t (a stuck fault)? */
static bool stuck_at(const struct skern *k, const struct sk_event *e,
		     double t)
{
	for (unsigned i = 0; i < k->wl->nfaults; i++)
		if (k->wl->faults[i].at <= t &&
		    stuck_hits(&k->wl->faults[i], e))
			return true;
	return false;
}

/* The first time after t and before end at which e's counter sticks,
 * else end. */
static double next_stuck(const struct skern *k, const struct sk_event *e,
			 double t, double end)
{
	for (unsigned i = 0; i < k->wl->nfaults; i++) {
		const struct wl_fault *f = &k->wl->faults[i];

		if (stuck_hits(f, e) && f->at > t && f->at < end)
			end = f->at;
	}
	return end;
}

/* Matches every perf fault against every PMU once.  0 or -ENOMEM. */
static int match_faults(struct skern *k)
{
	k->pf = calloc(k->set.n + 1, sizeof(*k->pf));
	if (!k->pf)
		return -ENOMEM;
	for (unsigned j = 0; j < k->set.n; j++) {
		struct sk_pf *pf = &k->pf[j];

		pf->idx = calloc(k->wl->nfaults + 1, sizeof(*pf->idx));
		if (!pf->idx)
			return -ENOMEM;
		for (unsigned i = 0; i < k->wl->nfaults; i++)
			if (fault_on(&k->wl->faults[i], &k->set.p[j]))
				pf->idx[pf->n++] = i;
	}
	return 0;
}

/* A PMU loaded again: a type number no PMU has, its directory written
 * again (written by whoever calls: the daemon, as the tree's owner). */
static void pmu_back(struct skern *k, struct spmu *p)
{
	uint32_t type = SPMU_TYPE_BASE;
	char why[256];

	for (unsigned j = 0; j < k->set.n; j++)
		if (k->set.p[j].type >= type)
			type = k->set.p[j].type + 1;
	p->type = type;
	p->present = true;
	(void)spmu_add(&k->set, p, k->sysfs, why, sizeof(why));
}

/* Applies the pmu_gone faults whose time has come: the PMU leaves the
 * tree and cannot be opened any more; and, "seconds" later, comes back. */
static void run_faults(struct skern *k, double now)
{
	for (unsigned i = 0; i < k->wl->nfaults; i++) {
		const struct wl_fault *f = &k->wl->faults[i];

		if (f->kind == WL_FAULT_PMU_GONE && k->done[i] && !k->back[i] &&
		    f->seconds > 0 && f->at + f->seconds <= now) {
			k->back[i] = true;
			for (unsigned j = 0; j < k->set.n; j++)
				if (!k->set.p[j].present &&
				    fault_on(f, &k->set.p[j]) &&
				    !gone_at(k, &k->set.p[j], now))
					pmu_back(k, &k->set.p[j]);
			continue;
		}
		if (f->kind != WL_FAULT_PMU_GONE || k->done[i] || f->at > now)
			continue;
		k->done[i] = true;
		for (unsigned j = 0; j < k->set.n; j++) {
			struct spmu *p = &k->set.p[j];

			if (p->present && fault_on(f, p)) {
				p->present = false;
				spmu_remove(p, k->sysfs);
			}
		}
	}
}

static double sk_now(struct skern *k)
{
	double now = hw_sim_time(k->sim);

	run_faults(k, now);
	return now;
}

/* ---- groups and counters ------------------------------------------------- */

static struct sk_event *ev_of(struct skern *k, int fd)
{
	unsigned i;

	if (fd < SKERN_FD_BASE)
		return NULL;
	i = (unsigned)(fd - SKERN_FD_BASE);
	return i < k->nev && k->ev[i].used ? &k->ev[i] : NULL;
}

static unsigned slot_of(const struct skern *k, const struct sk_event *e)
{
	return (unsigned)(e - k->ev);
}

/*
 * The members of e's group, leader first, then its siblings in the
 * order they were opened.  Returns how many (at most SK_MAX_GROUP).
 */
static unsigned group_of(struct skern *k, const struct sk_event *e,
			 struct sk_event **m)
{
	unsigned n = 0;

	for (int i = (int)e->leader; i >= 0 && n < SK_MAX_GROUP;
	     i = k->ev[i].next)
		m[n++] = &k->ev[i];
	return n;
}

/* Appends slot to lead's group. */
static void group_add(struct skern *k, unsigned lead, unsigned slot)
{
	unsigned i = lead;

	while (k->ev[i].next >= 0)
		i = (unsigned)k->ev[i].next;
	k->ev[i].next = (int)slot;
	k->ev[slot].leader = lead;
	k->ev[slot].next = -1;
}

/* Takes slot out of its group; a leader's siblings become groups of
 * their own (perf_group_detach()). */
static void group_remove(struct skern *k, unsigned slot)
{
	struct sk_event *e = &k->ev[slot];
	int i = (int)e->leader;

	if (e->leader == slot) {
		for (int j = e->next, nx; j >= 0; j = nx) {
			nx = k->ev[j].next;
			k->ev[j].leader = (unsigned)j;
			k->ev[j].next = -1;
		}
		return;
	}
	while (k->ev[i].next != (int)slot)
		i = k->ev[i].next;
	k->ev[i].next = e->next;
}

/* Can events with these counter masks (bit i: counter i; 0: any) each
 * have a counter of their own among nctr?  (uncore_assign_events()) */
static bool assignable(const uint16_t *mask, unsigned n, unsigned nctr,
		       uint64_t used)
{
	/* nctr up to 63 (CPUID 0x80000022 EBX NumDfPmc is 6 bits); catalog
	 * masks name at most the first 16 */
	uint64_t all = nctr >= 64 ? ~0ull : (1ull << nctr) - 1;

	if (n == 0)
		return true;
	for (unsigned c = 0; c < nctr && c < 64; c++) {
		uint64_t want = mask[0] ? mask[0] & all : all;

		if ((want >> c & 1) && !(used >> c & 1) &&
		    assignable(mask + 1, n - 1, nctr, used | 1ull << c))
			return true;
	}
	return false;
}

/* Do the group's events fit their box: its generic events on the
 * counters, at most one on the fixed counter?  The leader counts, and
 * the enabled siblings (uncore_collect_events() skips those in state
 * OFF); extra: one more event (the one being opened), or NULL. */
static bool group_fits(struct sk_event **m, unsigned n,
		       const struct sk_event *extra)
{
	uint16_t mask[SK_MAX_GROUP + 1];
	unsigned ng = 0, nfixed = 0;
	const struct spmu *p = extra ? extra->pmu : m[0]->pmu;

	for (unsigned i = 0; i <= n; i++) {
		const struct sk_event *x = i < n ? m[i] : extra;

		if (!x || x->pmu != p || (!x->enabled && x != extra && i > 0))
			continue;
		if (x->what.role == SPMU_FIXED)
			nfixed++;
		else if (x->what.role == SPMU_PROG)
			mask[ng++] = x->what.ctr_mask;
	}
	return nfixed <= (p->fixed >= 0 ? 1u : 0u) && ng <= p->nctr &&
	       assignable(mask, ng, p->nctr, 0);
}

/* Generic counters the enabled group led by lead wants, 0 if it does
 * not fit its box; *fits says which. */
static unsigned group_want(struct skern *k, const struct sk_event *lead,
			   bool *fits)
{
	struct sk_event *m[SK_MAX_GROUP];
	unsigned n = group_of(k, lead, m), g = 0;

	*fits = group_fits(m, n, NULL);
	if (!lead->enabled || !*fits)
		return 0;
	for (unsigned i = 0; i < n; i++)
		if (m[i]->enabled && m[i]->what.role == SPMU_PROG)
			g++;
	return g;
}

static bool same_box(const struct sk_event *a, const struct sk_event *b)
{
	return a->pmu == b->pmu && a->box.socket == b->box.socket &&
	       a->box.inst == b->box.inst;
}

/*
 * The share of the box of ref of each group on it, after a change there
 * (an open, close, enable or disable; every event has been counted up to
 * now): 0 for a group that does not fit, counters / wanted when the
 * enabled groups on the box want more generic counters than it has (the
 * kernel rotates them), else 1.  Between changes it holds, so counting
 * needs no search.
 */
static void reshare(struct skern *k, struct sk_event ref)
{
	unsigned want = 0;

	for (unsigned i = 0; i < k->nev; i++) {
		struct sk_event *e = &k->ev[i];
		bool fits;

		if (e->used && e->leader == i && same_box(e, &ref)) {
			e->count_want = group_want(k, e, &fits);
			e->share = fits ? 1 : 0;
			want += e->count_want;
		}
	}
	if (want <= ref.pmu->nctr)
		return;
	for (unsigned i = 0; i < k->nev; i++) {
		struct sk_event *e = &k->ev[i];

		if (e->used && e->leader == i && same_box(e, &ref) &&
		    e->count_want)
			e->share = (double)ref.pmu->nctr / want;
	}
}

/* Has e's PMU been unloaded, or its box gone missing, by time t? */
static bool ev_gone(const struct skern *k, const struct sk_event *e, double t)
{
	return died_at(k, e, t) || e->lost_t <= t;
}

/* The fraction of the time e runs at t (0: it does not). */
static double running_at(struct skern *k, const struct sk_event *e, double t)
{
	const struct sk_event *lead = &k->ev[e->leader];

	if (!e->enabled || !lead->enabled || lead->share == 0 ||
	    ev_gone(k, e, t))
		return 0;
	return contention_at(k, e->pmu, t) * lead->share;
}

/* Counts e over [a, b], within which nothing changes what it does. */
static void advance(struct skern *k, struct sk_event *e, double a, double b)
{
	double f = running_at(k, e, (a + b) / 2), ev, whole;
	uint64_t dt = (uint64_t)(ns_of(b) - ns_of(a));

	if (e->enabled && !ev_gone(k, e, (a + b) / 2))
		e->enabled_ns += dt;
	if (f <= 0)
		return;
	e->run_acc += f * (double)dt;
	whole = floor(e->run_acc);
	e->running_ns += (uint64_t)whole;
	e->run_acc -= whole;
	if (stuck_at(k, e, (a + b) / 2))
		return;	/* the hardware counter no longer moves */
	if (e->rapl) {
		/* rapl_event_update(): the MSR's delta << (32 - hw_unit) */
		uint64_t d = srapl_count(k->wl, e->box.socket, e->dom, b) -
			     srapl_count(k->wl, e->box.socket, e->dom, a);

		e->count += d << (32 - srapl_unit_bits(k->wl, e->dom));
		return;
	}
	ev = f * wl_integral(k->wl, e->rates, a, b) + e->frac;
	whole = floor(ev);
	e->frac = ev - whole;
	e->count += whole >= 1.8e19 ? UINT64_MAX : (uint64_t)whole;
}

/* Brings e up to time now. */
static void sync_event(struct skern *k, struct sk_event *e, double now)
{
	while (e->t < now) {
		double b = next_stuck(k, e, e->t,
				      next_change(k, e->pmu, e->t, now));

		if (e->lost_t > e->t && e->lost_t < b)
			b = e->lost_t;

		advance(k, e, e->t, b);
		e->t = b;
	}
}

/* Every event of ref's box up to now: before a change there (an open,
 * close, enable or disable) alters what one of them counts - only the
 * groups of that box share its counters (reshare()).  Syncing every
 * event at every change made a turn that rebuilds many boxes' groups
 * quadratic: 0.2 s of simulated kernel a tick on spr. */
static void sync_box(struct skern *k, const struct sk_event *ref, double now)
{
	for (unsigned i = 0; i < k->nev; i++)
		if (k->ev[i].used && same_box(&k->ev[i], ref))
			sync_event(k, &k->ev[i], now);
}

/* ---- perf_event_open ---------------------------------------------------- */

/*
 * The simulated caller's capabilities: the workload's "cap_perfmon" is
 * CAP_PERFMON on a kernel that has it (5.8 and later), CAP_SYS_ADMIN
 * before (perfmon_capable() accepts either; include/linux/capability.h).
 */
static bool cap_sys_admin(const struct skern *k)
{
	return wl_perf_capable(k->wl) && wl_perf_version(k->wl) < SK_KERNEL_PERFMON;
}

static bool perfmon_capable(const struct skern *k)
{
	return wl_perf_capable(k->wl);
}

/* Steps 1-3 of the header's order: the attribute, privilege, pid, cpu. */
static int check_attr(const struct skern *k, const struct perf_event_attr *a,
		      int pid, int cpu, unsigned long flags)
{
	uint64_t formats = SK_FORMAT_ALL;
	bool cap = perfmon_capable(k);
	int paranoid = wl_perf_paranoid(k->wl);

	if (a->size && a->size < PERF_ATTR_SIZE_VER0)
		return hw_fail(E2BIG, "simulated kernel: attr.size %u is below "
			       "PERF_ATTR_SIZE_VER0", a->size);
	if (wl_perf_version(k->wl) >= SK_KERNEL_LOST)
		formats |= SK_FORMAT_LOST;
	if (a->read_format & ~formats)
		return hw_fail(EINVAL, "simulated kernel %s: read_format 0x%llx "
			       "has unknown bits", wl_perf_release(k->wl),
			       (unsigned long long)a->read_format);
	if (flags & ~(unsigned long)(PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT |
				     PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC))
		return hw_fail(EINVAL, "simulated kernel: unknown flags 0x%lx",
			       flags);
	if (paranoid >= 3 && !cap_sys_admin(k))
		return hw_fail(EACCES, "simulated kernel: perf_event_paranoid "
			       "is %d: only CAP_SYS_ADMIN may use perf", paranoid);
	if (!cap && !a->exclude_kernel && paranoid > 1)
		return hw_fail(EACCES, "simulated kernel: perf_event_paranoid "
			       "is %d and the caller lacks CAP_PERFMON",
			       paranoid);
	if (pid != -1)
		return hw_fail(EINVAL, "simulated kernel: pid %d: uncore PMUs "
			       "count system-wide only (pid -1)", pid);
	if (cpu < 0)
		return hw_fail(EINVAL, "simulated kernel: cpu %d: a system-wide "
			       "event needs a CPU", cpu);
	return 0;
}

static bool any_exclude(const struct perf_event_attr *a)
{
	return a->exclude_user || a->exclude_kernel || a->exclude_hv ||
	       a->exclude_idle || a->exclude_host || a->exclude_guest;
}

/*
 * arch/x86/events/rapl.c rapl_pmu_event_init(): no sampling, config
 * bits 7:0 only, a CPU, an event code of a domain the machine has
 * (2 energy-pkg, 3 energy-ram, 5 energy-psys; the cores' and the GPU's
 * are not simulated) -> else EINVAL.
 */
static int power_init(struct skern *k, struct sk_event *e,
		      const struct perf_event_attr *a, int cpu)
{
	static const int code_dom[6] = { -1, -1, RAPL_PKG, RAPL_DRAM, -1,
					 RAPL_PSYS };

	if (a->sample_period)
		return hw_fail(EINVAL, "simulated kernel: power does not "
			       "sample");
	if (a->config & ~0xffull || a->config > 5 || code_dom[a->config] < 0 ||
	    !srapl_has(k->wl, (enum rapl_dom)code_dom[a->config]))
		return hw_fail(EINVAL, "simulated kernel: power has no event "
			       "0x%llx on this machine",
			       (unsigned long long)a->config);
	if (spmu_box(&k->set, e->pmu, (unsigned)cpu, &e->box) < 0)
		return hw_fail(EINVAL, "simulated kernel: CPU %d: the machine "
			       "has %u CPUs (perf_event_alloc)", cpu,
			       k->set.nsockets * k->set.cpus_per_socket);
	e->rapl = true;
	e->dom = (enum rapl_dom)code_dom[a->config];
	e->what.role = SPMU_FREERUN;	/* takes no counter of a box */
	e->what.unit = -1;
	return 0;
}

/* Step 4: the driver's event_init for event e of PMU p on cpu. */
static int event_init(struct skern *k, struct sk_event *e,
		      const struct perf_event_attr *a, int cpu)
{
	char why[256];
	int r;

	if (any_exclude(a))
		return hw_fail(EINVAL, "simulated kernel: %s takes no exclude_* "
			       "bits (PERF_PMU_CAP_NO_EXCLUDE)", e->pmu->name);
	if (e->pmu - k->set.p == k->power)
		return power_init(k, e, a, cpu);
	if (!k->set.amd && a->sample_period)
		return hw_fail(EINVAL, "simulated kernel: %s does not sample "
			       "(sample_period/sample_freq must be 0)",
			       e->pmu->name);
	r = spmu_box(&k->set, e->pmu, (unsigned)cpu, &e->box);
	if (r == -ENODEV)
		return hw_fail(ENODEV, "simulated kernel: %s counts socket %d "
			       "only: CPU %d has no context of it "
			       "(amd_uncore_event_init)", e->pmu->name,
			       e->pmu->socket, cpu);
	if (r < 0)
		return hw_fail(EINVAL, "simulated kernel: CPU %d: the machine "
			       "has %u CPUs (perf_event_alloc)", cpu,
			       k->set.nsockets * k->set.cpus_per_socket);
	r = spmu_decode(&k->set, e->pmu, (const uint64_t[3]){ a->config,
			a->config1, a->config2 }, &e->what, why, sizeof(why));
	if (r < 0)
		return hw_fail(-r, "simulated kernel: %s", why);
	if (k->set.amd && a->sample_period)
		return hw_fail(EOPNOTSUPP, "simulated kernel: %s does not sample "
			       "(PERF_PMU_CAP_NO_INTERRUPT)", e->pmu->name);
	return 0;
}

/* Step 5 and the group check of step 4: e joins group_fd's group. */
static int join_group(struct skern *k, struct sk_event *e, int group_fd)
{
	struct sk_event *lead = ev_of(k, group_fd), *m[SK_MAX_GROUP];
	unsigned n;

	if (!lead)
		return hw_fail(EBADF, "simulated kernel: group_fd %d is no "
			       "event", group_fd);
	if (lead->leader != slot_of(k, lead))
		return hw_fail(EINVAL, "simulated kernel: group_fd %d is a "
			       "sibling, not a group leader", group_fd);
	if (lead->pmu != e->pmu || lead->box.cpu != e->box.cpu)
		return hw_fail(EINVAL, "simulated kernel: a group's events "
			       "must be on one PMU and CPU (leader %s on CPU %u, "
			       "event %s on CPU %u)", lead->pmu->name,
			       lead->box.cpu, e->pmu->name, e->box.cpu);
	n = group_of(k, lead, m);
	if (n >= SK_MAX_GROUP)
		return hw_fail(EINVAL, "simulated kernel: group of %u events",
			       n);
	if (!k->set.amd && e->what.role != SPMU_FREERUN &&
	    !group_fits(m, n, e))
		return hw_fail(EINVAL, "simulated kernel: the group does not "
			       "fit a %s box (%u counters%s; "
			       "uncore_validate_group)", e->pmu->name,
			       e->pmu->nctr, e->pmu->fixed >= 0
			       ? " and the fixed counter" : "");
	e->leader = slot_of(k, lead);
	return 0;
}

/* The workload's rates for what e counts, on its box. */
static int event_rates(struct skern *k, struct sk_event *e)
{
	const struct unit_type *u = e->rapl ? NULL
				    : k->set.plat->units[e->what.unit];
	struct wl_match m = { .socket = e->box.socket, .unit = e->what.unit,
			      .inst = e->box.inst,
			      .ninst = e->pmu->inst >= 0
				       ? wl_unit_ninst(k->wl, e->what.unit)
				       : e->pmu->nbox };
	unsigned np = k->wl->nphases;

	e->rates = calloc(np ? np : 1, sizeof(double));
	if (!e->rates)
		return hw_fail(ENOMEM, "simulated kernel: out of memory");
	if (e->rapl)
		return 0;	/* counts from sim_rapl.c */
	if (e->what.role == SPMU_FIXED) {
		for (unsigned i = 0; i < np; i++)
			e->rates[i] = (double)hw_sim_clock_hz(k->sim,
							      e->what.unit);
		return 0;
	}
	if (e->what.role == SPMU_FREERUN) {
		m.freerun = true;
		m.freerun_idx = e->what.fr_idx;
		if (u->freerun[e->what.fr_idx].core_scope)
			m.ninst = wl_cores(k->wl);
	} else if (e->what.nomatch) {
		return 0;
	} else {
		m.enc = e->what.enc;
		m.ext = e->what.ext;
		m.filter0 = e->what.filter0;
		m.filter1 = e->what.filter1;
	}
	wl_rates(k->wl, &m, e->rates);
	return 0;
}

/* A free slot (the lowest, as the kernel hands out the lowest free
 * descriptor), or -EMFILE / -ENOMEM. */
static int new_slot(struct skern *k)
{
	struct sk_event *ne;

	for (unsigned i = 0; i < k->nev; i++)
		if (!k->ev[i].used)
			return (int)i;
	if (k->nev == SK_MAX_EVENTS)
		return hw_fail(EMFILE, "simulated kernel: %d events open",
			       SK_MAX_EVENTS);
	ne = realloc(k->ev, (k->nev + 1) * sizeof(*k->ev));
	if (!ne)
		return hw_fail(ENOMEM, "simulated kernel: out of memory");
	k->ev = ne;
	memset(&k->ev[k->nev], 0, sizeof(*k->ev));
	return (int)k->nev++;
}

/* Where e's box went missing by now (device_missing): the kernel has no
 * box there (uncore_pmu_event_init(): !box -> EINVAL).  Notes when it
 * will.  0 or -EINVAL. */
static int box_there(struct skern *k, struct sk_event *e, double now)
{
	if (e->rapl) {
		e->lost_t = INFINITY;
		return 0;
	}
	e->lost_t = box_missing_at(k, e->what.unit, e->box.socket,
				   e->box.inst);
	if (e->lost_t <= now)
		return hw_fail(EINVAL, "simulated kernel: %s has no box on "
			       "socket %u (its PCI function is missing: "
			       "device_missing fault)", e->pmu->name,
			       e->box.socket);
	return 0;
}

/* Steps 3-6 for event e, then its rates.  0 or -errno. */
static int open_checks(struct skern *k, struct sk_event *e,
		       const struct perf_event_attr *a, int cpu, int group_fd,
		       double now)
{
	int r;

	if (group_fd != -1 && !ev_of(k, group_fd))
		return hw_fail(EBADF, "simulated kernel: group_fd %d is no "
			       "event", group_fd);
	e->pmu = spmu_by_type(&k->set, a->type);
	if (!e->pmu)
		return hw_fail(ENOENT, "simulated kernel: no PMU of type %u",
			       a->type);
	if ((r = event_init(k, e, a, cpu)) < 0 || (r = box_there(k, e, now)) < 0)
		return r;
	if (group_fd != -1 && (r = join_group(k, e, group_fd)) < 0)
		return r;
	if (wl_perf_paranoid(k->wl) > 0 && !perfmon_capable(k))
		return hw_fail(EACCES, "simulated kernel: a system-wide event "
			       "needs CAP_PERFMON or perf_event_paranoid <= 0 "
			       "(it is %d)", wl_perf_paranoid(k->wl));
	return event_rates(k, e);
}

static int sk_open(void *ctx, struct perf_event_attr *a, int pid, int cpu,
		   int group_fd, unsigned long flags)
{
	struct skern *k = ctx;
	struct sk_event e = { .used = true };
	double now;
	int r, slot = -1;

	pthread_mutex_lock(&k->lock);
	now = sk_now(k);
	r = check_attr(k, a, pid, cpu, flags);
	if (r == 0)
		r = open_checks(k, &e, a, cpu, group_fd, now);
	if (r == 0 && (slot = new_slot(k)) < 0)
		r = slot;
	if (r < 0) {
		free(e.rates);
		pthread_mutex_unlock(&k->lock);
		return r;
	}
	sync_box(k, &e, now);	/* a new group may change others' share */
	e.id = k->next_id++;
	e.read_format = a->read_format;
	e.enabled = !a->disabled;
	e.t = now;
	e.opened_t = now;
	e.next = -1;
	k->ev[slot] = e;
	if (group_fd == -1)
		k->ev[slot].leader = (unsigned)slot;
	else
		group_add(k, e.leader, (unsigned)slot);
	k->nopen++;
	reshare(k, k->ev[slot]);
	pthread_mutex_unlock(&k->lock);
	return SKERN_FD_BASE + slot;
}

/* ---- read ------------------------------------------------------------------ */

/* The record a read of e returns, in v (u64 words); its length. */
static unsigned record(struct skern *k, struct sk_event *e, uint64_t *v,
		       double now)
{
	struct sk_event *m[SK_MAX_GROUP];
	uint64_t rf = e->read_format;
	unsigned n = 1, w = 0;

	if (rf & PERF_FORMAT_GROUP)
		n = group_of(k, e, m);
	else
		m[0] = e;
	for (unsigned i = 0; i < n; i++)
		sync_event(k, m[i], now);
	if (rf & PERF_FORMAT_GROUP)
		v[w++] = n;
	else
		v[w++] = e->count;
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		v[w++] = m[0]->enabled_ns;
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		v[w++] = m[0]->running_ns;
	for (unsigned i = 0; i < n; i++) {
		if (rf & PERF_FORMAT_GROUP)
			v[w++] = m[i]->count;
		if (rf & PERF_FORMAT_ID)
			v[w++] = m[i]->id;
		if (rf & SK_FORMAT_LOST)
			v[w++] = 0;
		if (!(rf & PERF_FORMAT_GROUP))
			break;
	}
	return w;
}

/* The read fault that hits this read of e, consuming one of its count:
 * its index, or -1. */
static int read_fault(struct skern *k, const struct sk_event *e, double now)
{
	const struct wl_fault *f;

	FOR_FAULTS(k, e->pmu, f) {
		unsigned i = (unsigned)(f - k->wl->faults);

		if ((f->kind == WL_FAULT_PERF_READ_ERROR ||
		     f->kind == WL_FAULT_SHORT_READ ||
		     f->kind == WL_FAULT_PERF_READ_DELAY) && f->at <= now &&
		    k->left[i] > 0) {
			k->left[i]--;
			return (int)i;
		}
	}
	return -1;
}

static long sk_read(void *ctx, int fd, void *buf, size_t len)
{
	struct skern *k = ctx;
	uint64_t v[3 + 3 * SK_MAX_GROUP];
	struct sk_event *e;
	size_t size;
	double now;
	int fi;

	pthread_mutex_lock(&k->lock);
	now = sk_now(k);
	e = ev_of(k, fd);
	if (!e) {
		pthread_mutex_unlock(&k->lock);
		return hw_fail(EBADF, "simulated kernel: fd %d is no event", fd);
	}
	if (ev_gone(k, e, now)) {
		pthread_mutex_unlock(&k->lock);
		if (e->lost_t <= now)
			return hw_fail(ENODEV, "simulated kernel: the %s box on "
				       "socket %u is gone (its PCI function "
				       "went missing: device_missing fault)",
				       e->pmu->name, e->box.socket);
		return hw_fail(ENODEV, "simulated kernel: %s is gone (pmu_gone "
			       "fault)", e->pmu->name);
	}
	fi = read_fault(k, e, now);
	if (fi >= 0 && k->wl->faults[fi].kind == WL_FAULT_PERF_READ_DELAY) {
		/* the reader held before read(2): the values are as of when
		 * it reads, later (the lock is not held while it waits) */
		double d = k->wl->faults[fi].delay_s;
		struct timespec ts = { .tv_sec = (time_t)d,
				       .tv_nsec = (long)((d - (double)(time_t)d) * 1e9) };

		pthread_mutex_unlock(&k->lock);
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		pthread_mutex_lock(&k->lock);
		fi = -1;
		now = sk_now(k);
		e = ev_of(k, fd);
		if (!e || ev_gone(k, e, now)) {
			pthread_mutex_unlock(&k->lock);
			return hw_fail(e ? ENODEV : EBADF, "simulated kernel: "
				       "fd %d went away while its read was "
				       "delayed", fd);
		}
	}
	if (fi >= 0 && k->wl->faults[fi].kind == WL_FAULT_PERF_READ_ERROR) {
		pthread_mutex_unlock(&k->lock);
		return hw_fail(k->wl->faults[fi].err, "simulated kernel: read "
			       "of %s fails (perf_read_error fault)",
			       e->pmu->name);
	}
	size = record(k, e, v, now) * sizeof(uint64_t);
	pthread_mutex_unlock(&k->lock);
	if (len < size)
		return hw_fail(ENOSPC, "simulated kernel: read of %zu bytes, the "
			       "record has %zu", len, size);
	if (fi >= 0)	/* short_read */
		size = size > 8 ? size - 8 : size / 2;
	memcpy(buf, v, size);
	return (long)size;
}

/* ---- ioctl and close --------------------------------------------------- */

/* ENABLE / DISABLE / RESET on e, or its whole group. */
static void apply(struct skern *k, struct sk_event *e, unsigned long req,
		  bool group)
{
	struct sk_event *m[SK_MAX_GROUP];
	unsigned n = 1;

	if (group)
		n = group_of(k, e, m);
	else
		m[0] = e;
	for (unsigned i = 0; i < n; i++) {
		if (req == PERF_EVENT_IOC_ENABLE)
			m[i]->enabled = true;
		else if (req == PERF_EVENT_IOC_DISABLE)
			m[i]->enabled = false;
		else {
			m[i]->count = 0;
			m[i]->frac = 0;
		}
	}
}

static int sk_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
	struct skern *k = ctx;
	struct sk_event *e;
	double now;
	int r = 0;

	pthread_mutex_lock(&k->lock);
	now = sk_now(k);
	e = ev_of(k, fd);
	if (!e)
		r = hw_fail(EBADF, "simulated kernel: fd %d is no event", fd);
	else if (ev_gone(k, e, now))
		r = hw_fail(ENODEV, "simulated kernel: %s is gone",
			    e->pmu->name);
	else if (req == PERF_EVENT_IOC_ID && !arg)
		r = hw_fail(EFAULT, "simulated kernel: PERF_EVENT_IOC_ID "
			    "without a pointer");
	else if (req == PERF_EVENT_IOC_ID)
		memcpy((void *)arg, &e->id, sizeof(e->id));
	else if (req == PERF_EVENT_IOC_ENABLE ||
		 req == PERF_EVENT_IOC_DISABLE || req == PERF_EVENT_IOC_RESET) {
		sync_box(k, e, now);
		apply(k, e, req, (arg & PERF_IOC_FLAG_GROUP) != 0);
		reshare(k, *e);
	} else if (_IOC_TYPE(req) == '$')
		r = hw_fail(EINVAL, "simulated kernel: perf ioctl 0x%lx is not "
			    "for counting uncore events", req);
	else
		r = hw_fail(ENOTTY, "simulated kernel: ioctl 0x%lx is no perf "
			    "ioctl", req);
	pthread_mutex_unlock(&k->lock);
	return r;
}

static int sk_close(void *ctx, int fd)
{
	struct skern *k = ctx;
	struct sk_event *e, box;
	unsigned slot;

	pthread_mutex_lock(&k->lock);
	e = ev_of(k, fd);
	if (!e) {
		pthread_mutex_unlock(&k->lock);
		return hw_fail(EBADF, "simulated kernel: fd %d is no event", fd);
	}
	sync_box(k, e, sk_now(k));
	slot = slot_of(k, e);
	group_remove(k, slot);
	box = *e;
	free(e->rates);
	memset(e, 0, sizeof(*e));
	k->nopen--;
	reshare(k, box);
	pthread_mutex_unlock(&k->lock);
	return 0;
}

const struct pev_ops skern_pev_ops = {
	.name = "simulated kernel",
	.open = sk_open,
	.read = sk_read,
	.ioctl = sk_ioctl,
	.close = sk_close,
};

/* ---- open and close ------------------------------------------------------- */

/* The uncore clock the register model counts: the workload's uclk_hz,
 * else the platform's (hw_sim.c). */
static uint64_t sim_uclk_hz(const struct workload *w)
{
	if (w->topo.uclk_hz)
		return w->topo.uclk_hz;
	return w->plat && w->plat->sim ? w->plat->sim->uclk_hz : 0;
}

/* Is dir empty (or absent: then created)?  0 or -errno with why. */
static int empty_dir(const char *dir, char *why, size_t len)
{
	struct stat st;

	if (mkdir(dir, 0755) == 0)
		return 0;
	if (errno != EEXIST || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		int e = errno == EEXIST ? ENOTDIR : errno;

		fail(why, len, "cannot use %s as the simulated kernel's "
		     "directory: %s", dir, strerror(e));
		return -e;
	}
	if (rmdir(dir) == 0 && mkdir(dir, 0755) == 0)
		return 0;	/* it was empty */
	fail(why, len, "%s is not empty: the simulated kernel writes its tree "
	     "into an empty or new directory", dir);
	return -ENOTEMPTY;
}

/* The root directory and sys/, proc/ in it. */
static int make_root(struct skern *k, const char *dir, char *why, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	char buf[PATH_MAX];
	int r;

	if (dir) {
		if ((r = empty_dir(dir, why, len)) < 0)
			return r;
		k->root = strdup(dir);
	} else {
		snprintf(buf, sizeof(buf), "%s/uncored-kernel.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(buf)) {
			r = errno;
			fail(why, len, "cannot create %s: %s", buf, strerror(r));
			return -r;
		}
		k->root = strdup(buf);
		k->own_root = true;
	}
	if (!k->root)
		return fail(why, len, "out of memory"), -ENOMEM;
	if ((size_t)snprintf(k->sysfs, sizeof(k->sysfs), "%s/sys", k->root) >=
	    sizeof(k->sysfs) ||
	    (size_t)snprintf(k->procfs, sizeof(k->procfs), "%s/proc", k->root) >=
	    sizeof(k->procfs))
		return fail(why, len, "%s: path too long", k->root),
		       -ENAMETOOLONG;
	if (mkdir(k->sysfs, 0755) < 0 || mkdir(k->procfs, 0755) < 0) {
		r = errno;
		fail(why, len, "cannot create %s/{sys,proc}: %s", k->root,
		     strerror(r));
		return -r;
	}
	return 0;
}

/* Writes text to the new file path. */
static int put_file(const char *path, const char *text, char *why,
		    size_t len)
{
	FILE *f = fopen(path, "wxe");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		int e = errno ? errno : EIO;

		fail(why, len, "cannot write %s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

/*
 * PROCFS: sys/kernel/perf_event_paranoid, osrelease, cap_last_cap (40
 * from Linux 5.9, 39 in 5.8, 37 before: CAP_CHECKPOINT_RESTORE,
 * CAP_BPF/CAP_PERFMON, CAP_AUDIT_READ) and self/status with the caller's
 * CapEff, which is what a privilege check reads (pev_access()).
 */
static int write_procfs(struct skern *k, char *why, size_t len)
{
	static const char *const dirs[] = { "sys", "sys/kernel", "self" };
	unsigned v = wl_perf_version(k->wl), last = v >= 0x050900u ? 40
		     : v >= SK_KERNEL_PERFMON ? 39 : 37;
	uint64_t eff = cap_sys_admin(k) ? 1ull << SK_CAP_SYS_ADMIN
		       : perfmon_capable(k) ? 1ull << SK_CAP_PERFMON : 0;
	char path[PATH_MAX + 64], text[160];
	int r;

	for (unsigned i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", k->procfs, dirs[i]);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return fail(why, len, "cannot create %s: %s", path,
				    strerror(errno)), -EIO;
	}
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid",
		 k->procfs);
	snprintf(text, sizeof(text), "%d\n", wl_perf_paranoid(k->wl));
	if ((r = put_file(path, text, why, len)) < 0)
		return r;
	snprintf(path, sizeof(path), "%s/sys/kernel/osrelease", k->procfs);
	snprintf(text, sizeof(text), "%s\n", wl_perf_release(k->wl));
	if ((r = put_file(path, text, why, len)) < 0)
		return r;
	snprintf(path, sizeof(path), "%s/sys/kernel/cap_last_cap", k->procfs);
	snprintf(text, sizeof(text), "%u\n", last);
	if ((r = put_file(path, text, why, len)) < 0)
		return r;
	snprintf(path, sizeof(path), "%s/self/status", k->procfs);
	snprintf(text, sizeof(text), "Name:\tuncored\nCapInh:\t%016" PRIx64
		 "\nCapPrm:\t%016" PRIx64 "\nCapEff:\t%016" PRIx64 "\n",
		 (uint64_t)0, eff, eff);
	return put_file(path, text, why, len);
}

/*
 * The power PMU of arch/x86/events/rapl.c where the workload gives the
 * machine RAPL counters ("energy"): one PMU over every package, its
 * cpumask one CPU per socket, format event = config:0-7, and for each
 * domain events/energy-* ("event=0x02"), .unit "Joules" and .scale
 * "2.3283064365386962890625e-10" (2^-32: the kernel counts in 2^-32 J
 * whatever the hardware's unit), as the kernel's RAPL_EVENT_ATTR_STR()
 * write them (perf_event_sysfs_show(): "%s\n").  Its type follows the
 * uncore PMUs'.  0 or -ENOMEM.
 */
static int add_power(struct skern *k, char *why, size_t len)
{
	static const char *const value[RAPL_NDOM] = { "event=0x02",
						      "event=0x03",
						      "event=0x05" };
	struct spmu *np, *p;
	uint32_t type = SPMU_TYPE_BASE;
	unsigned na = 0;

	k->power = -1;
	for (int d = 0; d < RAPL_NDOM; d++)
		na += srapl_has(k->wl, (enum rapl_dom)d);
	if (!na)
		return 0;
	for (unsigned i = 0; i < k->set.n; i++)
		if (k->set.p[i].type >= type)
			type = k->set.p[i].type + 1;
	np = realloc(k->set.p, (k->set.n + 1) * sizeof(*np));
	if (!np)
		return fail(why, len, "out of memory"), -ENOMEM;
	k->set.p = np;
	p = &np[k->set.n];
	memset(p, 0, sizeof(*p));
	p->a = calloc(na, sizeof(*p->a));
	if (!p->a)
		return fail(why, len, "out of memory"), -ENOMEM;
	k->power = (int)k->set.n++;
	snprintf(p->name, sizeof(p->name), "power");
	p->type = type;
	p->inst = -1;
	p->socket = -1;
	p->nbox = 1;
	p->present = true;
	p->prog = -1;
	p->fixed = -1;
	p->nunits = 0;
	p->f[0] = (struct spmu_field){ "event", "config:0-7", 0, 0xff };
	p->nf = 1;
	for (int d = 0; d < RAPL_NDOM; d++)
		if (srapl_has(k->wl, (enum rapl_dom)d))
			p->a[p->na++] = (struct spmu_alias){
				rapl_perf_event((enum rapl_dom)d), value[d],
				"2.3283064365386962890625e-10", "Joules",
				true };
	return 0;
}

int skern_open(struct skern **out, struct hw *sim, const char *dir,
	       char *why, size_t len)
{
	struct skern *k = calloc(1, sizeof(*k));
	int r;

	*out = NULL;
	if (!k)
		return fail(why, len, "out of memory"), -ENOMEM;
	pthread_mutex_init(&k->lock, NULL);
	k->sim = sim;
	k->wl = hw_sim_workload(sim);
	k->next_id = 1;
	k->power = -1;
	k->left = calloc(k->wl->nfaults + 1, sizeof(*k->left));
	k->done = calloc(k->wl->nfaults + 1, sizeof(*k->done));
	k->back = calloc(k->wl->nfaults + 1, sizeof(*k->back));
	if (!k->left || !k->done || !k->back) {
		skern_close(k);
		return fail(why, len, "out of memory"), -ENOMEM;
	}
	for (unsigned i = 0; i < k->wl->nfaults; i++)
		k->left[i] = k->wl->faults[i].count;
	r = spmu_build(&k->set, k->wl, hw_sim_nsockets(sim), hw_sim_cores(sim),
		       why, len);
	for (unsigned i = 0; r == 0 && i < k->set.n; i++)
		if (never_probed(k, &k->set.p[i]))
			k->set.p[i].present = false;
	if (r == 0)
		r = add_power(k, why, len);
	if (r == 0 && match_faults(k) < 0)
		r = (fail(why, len, "out of memory"), -ENOMEM);
	if (r == 0)
		r = make_root(k, dir, why, len);
	if (r == 0)
		r = spmu_write_tree(&k->set, k->sysfs, why, len);
	if (r == 0)
		r = sufreq_write(k->wl, hw_sim_nsockets(sim),
				 sim_uclk_hz(k->wl), k->sysfs, why, len);
	if (r == 0)
		r = sthr_write(k->wl, k->set.nsockets, k->set.cpus_per_socket,
			       k->sysfs, hw_sim_time(sim), why, len);
	if (r == 0)
		r = write_procfs(k, why, len);
	if (r < 0) {
		skern_close(k);
		return r;
	}
	run_faults(k, hw_sim_time(sim));
	*out = k;
	return 0;
}

void skern_close(struct skern *k)
{
	if (!k)
		return;
	for (unsigned i = 0; i < k->nev; i++)
		free(k->ev[i].rates);
	free(k->ev);
	if (k->own_root && k->root)
		spmu_rmtree(k->root);
	free(k->root);
	for (unsigned i = 0; k->pf && i < k->set.n; i++)
		free(k->pf[i].idx);
	free(k->pf);
	spmu_free(&k->set);
	free(k->left);
	free(k->done);
	free(k->back);
	pthread_mutex_destroy(&k->lock);
	free(k);
}

void skern_remove_tree(struct skern *k)
{
	if (k && k->own_root && k->root)
		spmu_rmtree(k->root);
}

int skern_give(struct skern *k, uid_t uid, gid_t gid)
{
	int r = spmu_chowntree(k->root, uid, gid);

	/* intel_uncore_frequency's 0400 files stay the caller's (root's),
	 * as on Linux: only what was opened before the drop reads them */
	return r < 0 ? r : sufreq_keep_private(k->sysfs, getuid(), getgid());
}

const char *skern_sysfs(const struct skern *k)
{
	return k->sysfs;
}

const char *skern_procfs(const struct skern *k)
{
	return k->procfs;
}

bool skern_capable(const struct skern *k)
{
	return wl_perf_capable(k->wl);
}

unsigned skern_nevents(struct skern *k)
{
	unsigned n;

	pthread_mutex_lock(&k->lock);
	n = k->nopen;
	pthread_mutex_unlock(&k->lock);
	return n;
}

int skern_sync_files(struct skern *k, char *why, size_t len)
{
	int r;

	pthread_mutex_lock(&k->lock);
	r = sthr_write(k->wl, k->set.nsockets, k->set.cpus_per_socket,
		       k->sysfs, sk_now(k), why, len);
	pthread_mutex_unlock(&k->lock);
	return r;
}

void skern_sync(struct skern *k)
{
	pthread_mutex_lock(&k->lock);
	sk_now(k);
	pthread_mutex_unlock(&k->lock);
}
