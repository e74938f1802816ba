/*
 * hw_sim.c - the register-accurate simulator backend (doc/design.md section 3).
 *
 * The simulated machine is built from the same platform tables the
 * daemon programs (src/plat/): every control and counter register of
 * every present unit instance, the box-level registers (box control, box
 * status, box filters), the global registers, the platform's read-only
 * configuration registers and its PCI/MMIO plumbing.  Field attributes
 * come from the tables' reg_layouts, so the model enforces what the
 * manual says: reserved bits make an MSR write fault (#GP, which the msr
 * driver reports as EIO), read-only registers refuse writes, write-only
 * bits read 0, RW1C status bits clear on a written 1, counters wrap at
 * their width and set their overflow status bits.  What the unit tables
 * do not say is data too (struct platform.sim, plat_sim.h): registers and
 * functions outside them (skl's MCHBAR host bridge, hsx's UBox
 * bus-mapping function), default clocks, overflow gating.  Nothing here
 * is written for one platform.  The model is built and indexed in
 * sim_model.c (sim_internal.h); this file counts, faults and serves
 * the accesses.
 *
 * Counting.  A counter counts iff the socket is not globally frozen, its
 * box is not frozen and its local enable bit is set (free-running
 * counters always count).  Global freeze: skl's EN bit of the global
 * control must be set; hsx (and any platform whose global control has
 * write-only frz_all/unfrz_all fields) keeps a per-socket latch that
 * frz_all sets and unfrz_all clears, starting unfrozen at reset (the
 * register reads 0 either way; Linux counts on hsx without ever writing
 * it).  A platform without a global control (snbep, whose
 * global_ctl.layout is NULL) has no global registers and no global
 * gating: only the box freeze and the local enable count.  Box control (hsx, Table 2-14 and copies): a write's frz bit is the
 * box's freeze state from then on, rst_ctrl clears the box's control
 * registers, rst_ctrs its counters; all three are write-only and read 0.
 * Where the box control has a frz_en field (snbep, 327043 Table 2-9), a
 * write freezes the box only if it sets frz and frz_en together.
 * The "SW must write 1" bits (unit_type.box_ctl_must1, bits 17:16) are
 * accepted on MSR writes and read 0; whether each box-control write had
 * them is recorded (hw_sim_box_state()) but does not change behaviour.
 * A fixed counter without a box control of its own that lives in another
 * unit's PCI functions (hsx imc_fixed) belongs to that unit's box: the
 * iMC box control freezes and resets the DCLK counter too.
 *
 * Overflow.  A counter that wraps sets its bit in its box's status (ov
 * field bit = counter index; in a box shared with a fixed counter the
 * fixed counter takes bit 0 and the others shift up: hsx iMC, notes "iMC
 * box status bits") and the global status bit plat_global_ovf_bit() - on
 * hsx only while the counter's ov_en is set (2.1.1; CBo and SBo have no
 * ov_en and no global bit), on skl always.  The global freeze an
 * overflow raises on hsx (2.1.1.1) is not modelled, nor the PMI.
 *
 * Filters.  The box filter registers gate the workload's rates: a rate
 * key with :filter0=/:filter1= applies only while the counter's box
 * filters hold exactly that value.  The registers map onto wl_match's
 * filter0/filter1 as box_filters() says: EVF_FILTER0 / EVF_FILTER1
 * registers (hsx CBo FILTER0, FILTER1) are filter0 / filter1 whole; the
 * other filter registers of a unit, in table order, fill filter0 bits
 * 31:0, filter0 63:32, filter1 31:0, filter1 63:32 (hsx PCU: filter0 =
 * PCU_MSR_PMON_BOX_FILTER; HA: filter0 = ADDRMATCH1 << 32 | ADDRMATCH0,
 * filter1 = OPCODEMATCH; QPI: filter0 = RX_MATCH1 << 32 | RX_MATCH0,
 * filter1 = RX_MASK1 << 32 | RX_MASK0, the TX registers gate nothing).
 * A filter write settles the box's counters first, like a control write.
 *
 * PCI.  Each socket's PCI units sit on a bus of their own (0xff - 0x20 x
 * socket when the platform has PCI units); every present function
 * answers its device ID (dword 0 = device << 16 | 0x8086, from the
 * unit's and filter's pci_devid tables), 4 KiB of configuration space
 * (unimplemented offsets read 0 and ignore writes; widths other than 4
 * and 8, unaligned or out-of-range offsets are -EINVAL like the real
 * backend), and an 8-byte access is two dword accesses, low first, so a
 * 48-bit counter reads as two dwords.  An absent function is -ENODEV and
 * not listed by pci_scan; a device_missing fault makes a present one
 * absent from its time on.  hsx: the UBox function 8086:2F1E at dev 16
 * fn 5 holds CPUNODEID (0x40, the socket's node ID) and GIDNIDMAP (0x54,
 * the same on every socket); node IDs are permuted (node of package p =
 * (3p + 2) mod 8), so discovery must use the mapping.  MSRs of socket p
 * are reached on CPUs 8p .. 8p+7.
 *
 * Faults come from the workload (sim_workload.h) and trigger at their
 * time: eio fails accesses, foreign_write stores a value as another
 * agent, device_missing removes a PCI function, stuck stops a counter,
 * delay makes the next accesses to a register return late (a wall-clock
 * sleep after the machine's lock is released, so other processes go on
 * and the simulated machine keeps counting; on an injected clock it
 * moves nothing).
 *
 * Counters advance lazily: each keeps (raw value, fractional carry, time
 * of last update) and, when read or when anything that changes whether or
 * what it counts is written, is brought up to date by integrating the
 * workload's rate for its programmed encoding over the elapsed time.  A
 * counter read twice 1 s apart therefore differs by rate x 1 s, +-1.
 * An access costs the same whatever the machine's size: registers are
 * found through a hash of space and address (index_build()), and a write
 * or status read settles only the counters it acts on (its socket's for
 * the global registers, its box's, or its own: span_of()).
 *
 * All mutable state lives in one flat block: private memory, or a
 * file-backed MAP_SHARED mapping (--sim-state) so that the registers
 * survive a restart or kill -9 of the daemon, and so that a second
 * process (a test playing "another agent") sees and changes the same
 * machine.  Latches with no address (global and box freeze, the box
 * bookkeeping) are registers of kind SR_STATE in the same block.  A
 * process-shared robust mutex guards it.  Each process keeps its own
 * cache of per-counter rates: a control, filter or box-control write
 * re-rates the counters it acts on and bumps a generation number, on
 * which the other processes look every counter's rate up again where its
 * control or filters changed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim/sim_internal.h"
#include "sim/sim_rapl.h"


/* A platform without simulator data: no registers outside the tables,
 * clocks of a typical part. */
static const struct plat_sim sim_defaults = {
	.uclk_hz = 800000000ull, .dclk_hz = 1066666667ull, .mmio_bar = -1,
};

static int64_t mono_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- counting ------------------------------------------------------- */

static double sim_secs(const struct sim *s, int64_t t_ns)
{
	return (double)(t_ns - s->sh->epoch_ns) / 1e9;
}

/* Does counter c count at all, given the current register values? */
static bool ctr_running(const struct sim *s, const struct sim_ctr *c)
{
	int g;

	if (c->freerun >= 0)
		return true;
	if (s->gfrz[c->socket] >= 0) {
		if (s->regval[s->gfrz[c->socket]] & 1)
			return false;
	} else if ((g = s->gctl[c->socket]) >= 0) {
		if ((s->regval[g] & s->plat->global_enable) !=
		    s->plat->global_enable)
			return false;
	}	/* no global control (snbep): only the box and the counter */
	if (c->box >= 0 && (s->regval[s->boxes[c->box].state] & BOX_FROZEN))
		return false;
	return c->en_bit < 64 && (s->regval[c->ctl] >> c->en_bit) & 1;
}

/* The values box b's filter registers give wl_match (see the header). */
static void box_filters(const struct sim *s, int b, uint64_t *f0,
			uint64_t *f1)
{
	*f0 = *f1 = 0;
	if (b < 0)
		return;
	for (unsigned j = 0; j < s->boxes[b].nfilt; j++) {
		const struct sim_box *bx = &s->boxes[b];
		const struct sim_reg *r = &s->regs[bx->filt[j]];
		uint64_t v = s->regval[bx->filt[j]] & width_mask(r->bits);

		if (bx->filt_dst[j] == 0)
			*f0 |= v << bx->filt_shift[j];
		else if (bx->filt_dst[j] == 1)
			*f1 |= v << bx->filt_shift[j];
	}
}

/*
 * Brings counter i's entry of the private rate cache up to date with the
 * registers: looked up again only if its control or filters changed
 * since its rates were computed.
 */
static void refresh_ctr(struct sim *s, unsigned i)
{
	unsigned np = s->wl->nphases;
	const struct sim_ctr *c = &s->ctrs[i];
	const struct unit_type *u = s->plat->units[c->unit];
	double *r = &s->rates[(size_t)i * np];
	uint64_t *sig = &s->sig[(size_t)i * 3];
	struct wl_match m = { .socket = c->socket, .unit = c->unit,
			      .inst = c->inst,
			      .ninst = s->ninst_part[c->unit] };
	uint64_t ctl = 0, f0 = 0, f1 = 0;

	if (c->freerun < 0 && u->kind != UNIT_FIXED) {
		ctl = s->regval[c->ctl];
		box_filters(s, c->box, &f0, &f1);
	}
	if (s->sig_ok[i] && sig[0] == ctl && sig[1] == f0 &&
	    sig[2] == f1)
		return;
	if (c->freerun >= 0) {
		m.freerun = true;
		m.freerun_idx = (unsigned)c->freerun;
		if (c->core_scope)
			m.ninst = wl_cores(s->wl);
		wl_rates(s->wl, &m, r);
	} else if (u->kind == UNIT_FIXED) {
		for (unsigned p = 0; p < np; p++)
			r[p] = (double)(c->clock == CLK_DCLK
					? s->dclk_hz : s->uclk_hz);
	} else {
		m.enc = plat_decode(u, ctl);
		m.ext = u->ev_ext_bit && u->ev_ext_bit < 64 &&
			((ctl >> u->ev_ext_bit) & 1);
		m.filter0 = f0;
		m.filter1 = f1;
		m.ctr = c->idx;
		wl_rates(s->wl, &m, r);
	}
	sig[0] = ctl;
	sig[1] = f0;
	sig[2] = f1;
	s->sig_ok[i] = 1;
}

/* Every counter (another process may have written anything). */
static void refresh_rates(struct sim *s)
{
	for (unsigned i = 0; i < s->nctrs; i++)
		refresh_ctr(s, i);
	s->rates_gen = s->sh->gen;
}

/* Counter i wrapped: box status and (if enabled) global status. */
static void set_overflow(struct sim *s, unsigned i)
{
	const struct sim_ctr *c = &s->ctrs[i];
	int g;

	if (c->box >= 0 && c->st_bit >= 0 && s->boxes[c->box].status >= 0)
		s->regval[s->boxes[c->box].status] |= 1ull << c->st_bit;
	if (c->gbit >= 64)
		return;
	if (c->oven_bit < 64 &&
	    (c->ctl < 0 || !((s->regval[c->ctl] >> c->oven_bit) & 1)))
		return;
	g = s->gstat[c->socket];
	if (g >= 0)
		s->regval[g] |= 1ull << c->gbit;
}

/* Brings counter i up to time t (never backwards). */
static void sync_ctr(struct sim *s, unsigned i, int64_t t)
{
	const struct sim_ctr *c = &s->ctrs[i];
	struct sim_ctr_state *st = &s->cst[i];
	double ev, whole;
	uint64_t n, total, mask = width_mask(c->width);

	s->work++;
	if (t <= st->t_ns)
		return;
	if (st->stuck || !ctr_running(s, c)) {
		st->t_ns = t;
		return;
	}
	ev = wl_integral(s->wl, &s->rates[(size_t)i * s->wl->nphases],
			 sim_secs(s, st->t_ns), sim_secs(s, t)) + st->frac;
	whole = floor(ev);
	st->frac = ev - whole;
	n = whole >= 1.8e19 ? UINT64_MAX : (uint64_t)whole;
	total = st->value + n;
	if (total > mask || total < st->value || n > mask)
		set_overflow(s, i);
	st->value = total & mask;
	st->t_ns = t;
}

static void sync_all(struct sim *s, int64_t t)
{
	for (unsigned i = 0; i < s->nctrs; i++)
		sync_ctr(s, i, t);
}

/*
 * What a register's access settles: a global register acts on its
 * socket's counters, a box register on its box's, a counter control on
 * its counter.  Settling (and, after a write, re-rating) only those
 * keeps an access's cost independent of the machine's size.
 */
struct sim_span {
	const unsigned *list;	/* NULL: counters lo .. hi-1 */
	unsigned lo, hi;
};

static struct sim_span span_of(const struct sim *s, const struct sim_reg *r)
{
	switch (r->kind) {
	case SR_GLOBAL_CTL:
	case SR_GLOBAL_STATUS:
		return (struct sim_span){ NULL, s->sock_ctr0[r->socket],
					  s->sock_ctr0[r->socket + 1] };
	case SR_BOX_CTL:
	case SR_BOX_STATUS:
	case SR_FILTER:
		return (struct sim_span){ s->box_ctrs, s->box_ctr0[r->box],
					  s->box_ctr0[r->box + 1] };
	case SR_CTL:
		return (struct sim_span){ NULL, (unsigned)r->ctl_ctr,
					  (unsigned)r->ctl_ctr + 1 };
	default:
		return (struct sim_span){ NULL, 0, 0 };
	}
}

static unsigned span_at(const struct sim_span *sp, unsigned k)
{
	return sp->list ? sp->list[k] : k;
}

static void sync_span(struct sim *s, const struct sim_span *sp, int64_t t)
{
	for (unsigned k = sp->lo; k < sp->hi; k++)
		sync_ctr(s, span_at(sp, k), t);
}

/* After a write that changed what the span's counters count: re-rates
 * them and publishes the change (gen) to other processes' caches. */
static void rerate_span(struct sim *s, const struct sim_span *sp)
{
	bool current = s->rates_gen == s->sh->gen;

	s->sh->gen++;
	for (unsigned k = sp->lo; k < sp->hi; k++)
		refresh_ctr(s, span_at(sp, k));
	if (current)
		s->rates_gen = s->sh->gen;
}

/* ---- faults --------------------------------------------------------- */

static bool fault_hits(const struct sim *s, const struct wl_fault *f,
		       const struct hw_addr *a)
{
	if (wl_fault_is_perf(f->kind))
		return false;	/* the simulated kernel's (sim_kernel.c) */
	if (f->target_is_freerun || f->target.space != a->space)
		return false;
	if (f->socket >= 0 && f->socket != sim_access_socket(s, a))
		return false;
	if (a->space == HW_PCI) {
		if (f->target.bus != a->bus || f->target.dev != a->dev ||
		    f->target.fn != a->fn)
			return false;
		if (f->kind == WL_FAULT_DEVICE_MISSING)
			return true;
	}
	return f->target.reg == a->reg;
}

/* Has a device_missing fault removed the function at a? */
static bool fn_missing(const struct sim *s, const struct hw_addr *a)
{
	for (unsigned k = 0; k < s->sh->next_fault; k++) {
		const struct wl_fault *f = &s->wl->faults[k];

		if (f->kind == WL_FAULT_DEVICE_MISSING && s->sh->missing[k] &&
		    fault_hits(s, f, a))
			return true;
	}
	return false;
}

static int sim_store(struct sim *s, int ri, unsigned half, uint64_t v,
		     unsigned width, int64_t now);

/* Does stuck fault f name counter c's register? */
static bool stuck_hits(const struct sim *s, const struct wl_fault *f,
		       const struct sim_ctr *c)
{
	const struct sim_reg *r = &s->regs[c->reg];

	if (f->target_is_freerun)
		return c->unit == f->freerun_unit &&
		       c->freerun == (int)f->freerun_idx;
	if (r->space != f->target.space)
		return false;
	switch (r->space) {
	case HW_PCI:
		return r->bus == f->target.bus && r->dev == f->target.dev &&
		       r->fn == f->target.fn && r->reg == f->target.reg;
	case HW_MMIO:
		return r->reg == f->target.reg - sim_mmio_base(s);
	default:
		return r->reg == f->target.reg;
	}
}

/* Applies one fault at its own time. */
static void trigger_fault(struct sim *s, unsigned k)
{
	const struct wl_fault *f = &s->wl->faults[k];
	int64_t at = s->sh->epoch_ns + (int64_t)(f->at * 1e9);

	switch (f->kind) {
	case WL_FAULT_EIO:
	case WL_FAULT_DELAY:
		s->sh->hits_left[k] = f->count;
		break;
	case WL_FAULT_DEVICE_MISSING:
		s->sh->missing[k] = 1;
		break;
	case WL_FAULT_FOREIGN_WRITE:
		for (unsigned sock = 0; sock < s->nsockets; sock++) {
			struct hw_addr a = f->target;
			unsigned half;
			int ri;

			if (a.space == HW_MSR)
				a.cpu = sock * SIM_CPUS_PER_SOCKET;
			else if (sock > 0)
				break;	/* PCI and MMIO name one register */
			if (f->socket >= 0 && f->socket != sim_access_socket(s, &a))
				continue;
			ri = sim_find_reg(s, &a, &half);
			if (ri >= 0)
				sim_store(s, ri, half, f->value, a.width, at);
		}
		break;
	case WL_FAULT_PERF_CONTENTION:
	case WL_FAULT_PMU_GONE:
	case WL_FAULT_PERF_READ_ERROR:
	case WL_FAULT_SHORT_READ:
	case WL_FAULT_PERF_READ_DELAY:
		break;	/* the simulated kernel's (src/sim/sim_kernel.c) */
	case WL_FAULT_STUCK:
		for (unsigned i = 0; i < s->nctrs; i++) {
			const struct sim_ctr *c = &s->ctrs[i];

			if (f->socket >= 0 && (unsigned)f->socket != c->socket)
				continue;
			if (stuck_hits(s, f, c)) {
				sync_ctr(s, i, at);
				s->cst[i].stuck = 1;
			}
		}
		break;
	}
}

/* Triggers every fault whose time has come, in order. */
static void run_faults(struct sim *s, int64_t now)
{
	double t = sim_secs(s, now);

	while (s->sh->next_fault < s->wl->nfaults &&
	       s->sh->next_fault < SIM_MAX_FAULTS &&
	       s->wl->faults[s->sh->next_fault].at <= t) {
		unsigned k = s->sh->next_fault;
		int64_t at = s->sh->epoch_ns +
			     (int64_t)(s->wl->faults[k].at * 1e9);

		if (s->rates_gen != s->sh->gen)
			refresh_rates(s);
		sync_all(s, at);
		trigger_fault(s, k);
		s->sh->next_fault++;
	}
}

/* Returns -EIO/-ENODEV if an active fault makes access a fail; adds to
 * *delay_ns what active delay faults make it wait. */
static int fault_check(struct sim *s, const struct hw_addr *a,
		       int64_t *delay_ns)
{
	char buf[64];

	for (unsigned k = 0; k < s->sh->next_fault; k++) {
		const struct wl_fault *f = &s->wl->faults[k];

		if (!fault_hits(s, f, a))
			continue;
		if (f->kind == WL_FAULT_DELAY && s->sh->hits_left[k] > 0) {
			s->sh->hits_left[k]--;
			*delay_ns += (int64_t)(f->delay_s * 1e9);
			continue;
		}
		if (f->kind == WL_FAULT_DEVICE_MISSING && s->sh->missing[k])
			return hw_fail(ENODEV, "%s: device not present "
				       "(simulated device_missing fault)",
				       hw_addr_str(a, buf, sizeof(buf)));
		if (f->kind == WL_FAULT_EIO && s->sh->hits_left[k] > 0) {
			s->sh->hits_left[k]--;
			return hw_fail(EIO, "%s: I/O error (simulated eio "
				       "fault)", hw_addr_str(a, buf,
							     sizeof(buf)));
		}
	}
	return 0;
}

/* ---- locking and time ----------------------------------------------- */

/* A delay fault: the access returns this much later, on the wall clock
 * (the thread that made it is held up, as a preempted one would be). */
static void sleep_ns(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000),
			       (long)(ns % 1000000000) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void sim_lock(struct sim *s)
{
	int r = pthread_mutex_lock(&s->sh->lock);

	/* A process died holding the lock (kill -9): the state is a set of
	 * independent register values, each written whole, so it is still
	 * consistent enough to continue, as hardware would be. */
	if (r == EOWNERDEAD)
		pthread_mutex_consistent(&s->sh->lock);
}

static void sim_unlock(struct sim *s)
{
	pthread_mutex_unlock(&s->sh->lock);
}

/* Takes the lock and brings the model to now; returns now. */
static int64_t sim_enter(struct sim *s)
{
	int64_t now;

	sim_lock(s);
	now = s->now_ns(s->now_ctx);
	if (s->rates_gen != s->sh->gen)
		refresh_rates(s);
	run_faults(s, now);
	if (s->rates_gen != s->sh->gen)
		refresh_rates(s);
	return now;
}

/* ---- access --------------------------------------------------------- */

static uint64_t reg_read_value(struct sim *s, int ri, int64_t now)
{
	const struct sim_reg *r = &s->regs[ri];

	switch (r->kind) {
	case SR_CTR:
	case SR_FREERUN:
		sync_ctr(s, (unsigned)r->ctr, now);
		return s->cst[r->ctr].value;
	case SR_GLOBAL_STATUS:
	case SR_BOX_STATUS: {
		struct sim_span sp = span_of(s, r);

		sync_span(s, &sp, now);
		return s->regval[ri];
	}
	default:
		/* write-only bits read as zero */
		return s->regval[ri] & ~r->wo;
	}
}

/* Adds n to the 16-bit count at bit sh of a box state, saturating. */
static uint64_t count16(uint64_t st, unsigned sh)
{
	if (((st >> sh) & 0xffff) != 0xffff)
		st += 1ull << sh;
	return st;
}

/*
 * A box-control write (hsx Table 2-14 and copies): records whether it
 * had the must-be-one bits, resets the box's control registers and/or
 * counters, and sets the box's freeze state to the write's frz bit.
 * The caller has settled the counters.
 */
static void box_ctl_write(struct sim *s, int b, uint64_t v)
{
	const struct sim_box *bx = &s->boxes[b];
	uint64_t st = s->regval[bx->state];

	st = count16(st, BOX_SH_WRITES);
	if (bx->must1) {
		if ((v & bx->must1) != bx->must1) {
			st |= BOX_LACKED;
			st = count16(st, BOX_SH_LACKING);
		} else {
			st &= ~BOX_LACKED;
		}
	}
	for (unsigned k = s->box_ctr0[b]; k < s->box_ctr0[b + 1]; k++) {
		unsigned i = s->box_ctrs[k];
		const struct sim_ctr *c = &s->ctrs[i];

		if (c->freerun >= 0)
			continue;
		if ((v & bx->rst_ctrl) && c->ctl >= 0)
			s->regval[c->ctl] = s->regs[c->ctl].reset;
		if (v & bx->rst_ctrs) {
			s->cst[i].value = 0;
			s->cst[i].frac = 0;
		}
	}
	/* snbep (327043 Table 2-9): frz_en is write-only too, so a write
	 * freezes only if it carries both; a read-modify-write that loses
	 * frz_en unfreezes (notes: "Box control (every box but the UBox)") */
	if ((v & bx->frz) && (v & bx->frz_en) == bx->frz_en)
		st |= BOX_FROZEN;
	else
		st &= ~BOX_FROZEN;
	s->regval[bx->state] = st;
}

/*
 * A counter-control write's side effects: the rst bit clears the
 * counter; on a UNIT_Q_CTL_TWICE box an enabling write that does not
 * follow the same value with the enable clear (SBo 2.4.1, R2PCIe,
 * R3QPI errata) is recorded.  old is the stored value before the write.
 */
static void ctl_write(struct sim *s, const struct sim_reg *r, uint64_t old,
		      uint64_t v)
{
	unsigned i = (unsigned)r->ctl_ctr;
	const struct sim_ctr *c = &s->ctrs[i];

	if (c->rst_bit < 64 && ((v >> c->rst_bit) & 1)) {
		s->cst[i].value = 0;
		s->cst[i].frac = 0;
	}
	if (c->box >= 0 && s->boxes[c->box].ctl_twice && c->en_bit < 64 &&
	    ((v >> c->en_bit) & 1)) {
		uint64_t en = 1ull << c->en_bit, want = v & r->rw;

		old &= r->rw;
		if (old != (want & ~en) && old != want) {
			uint64_t *st = &s->regval[s->boxes[c->box].state];

			*st = count16(*st, BOX_SH_TWICE);
		}
	}
}

/*
 * Stores v into register ri at time now, with the register's attribute
 * semantics.  half/width select part of a 64-bit PCI/MMIO register.
 * Returns 0 or -errno.
 */
/*
 * wrmsr faults (#GP) on reserved bits and on read-only MSRs; the msr
 * driver turns that into EIO.  The box control's must-be-one bits are
 * accepted.  0, or -EIO with the message.
 */
static int msr_write_faults(const struct sim_reg *r, uint64_t v)
{
	uint64_t settable = r->rw | r->wo | r->rw1c | r->must1;
	struct hw_addr a = hw_msr(r->socket * SIM_CPUS_PER_SOCKET,
				  (uint32_t)r->reg);
	char buf[64];

	if (v & ~settable & ~r->ro)
		return hw_fail(EIO, "%s: write of 0x%" PRIx64 " sets reserved "
			       "bits 0x%" PRIx64 " (#GP)",
			       hw_addr_str(&a, buf, sizeof(buf)), v,
			       v & ~settable & ~r->ro);
	if (!settable)
		return hw_fail(EIO, "%s: register is read-only (#GP)",
			       hw_addr_str(&a, buf, sizeof(buf)));
	return 0;
}

static int sim_store(struct sim *s, int ri, unsigned half, uint64_t v,
		     unsigned width, int64_t now)
{
	const struct sim_reg *r = &s->regs[ri];
	struct sim_span sp = span_of(s, r);
	uint64_t old = r->kind == SR_CTR ? s->cst[r->ctr].value : s->regval[ri];
	uint64_t part = width == 8 ? ~0ull : 0xffffffffull << half;
	uint64_t nv;

	v = width == 8 ? v : (v & 0xffffffffull) << half;
	if (r->space == HW_MSR && msr_write_faults(r, v) < 0)
		return -EIO;
	switch (r->kind) {
	case SR_CTR:
		sync_ctr(s, (unsigned)r->ctr, now);
		old = s->cst[r->ctr].value;
		nv = (old & ~(r->rw & part)) | (v & r->rw & part);
		s->cst[r->ctr].value = nv & width_mask(s->ctrs[r->ctr].width);
		s->cst[r->ctr].frac = 0;
		return 0;
	case SR_FREERUN:
	case SR_STATE:
		return 0;	/* read-only: the write is ignored */
	case SR_BOX_CTL:
		/* every defined bit is write-only: nothing is stored */
		sync_span(s, &sp, now);
		box_ctl_write(s, r->box, v & part);
		rerate_span(s, &sp);
		return 0;
	case SR_GLOBAL_CTL:
		/* whether the socket counts changes: settle it first (what
		 * each counter counts does not: no re-rating) */
		sync_span(s, &sp, now);
		if (s->gfrz[r->socket] >= 0) {
			uint64_t *lat = &s->regval[s->gfrz[r->socket]];

			if (v & part & s->gfrz_mask)
				*lat = 1;
			else if (v & part & s->gunfrz_mask)
				*lat = 0;
		}
		break;
	case SR_CTL:
		sync_span(s, &sp, now);
		ctl_write(s, r, old, v);
		break;
	case SR_FILTER:
		/* what the box's counters count changes */
	case SR_GLOBAL_STATUS:
	case SR_BOX_STATUS:
		/* overflows up to now are what a written 1 clears */
		sync_span(s, &sp, now);
		break;
	default:
		break;
	}
	nv = (old & ~(r->rw & part)) | (v & r->rw & part);
	nv &= ~(v & r->rw1c & part);
	s->regval[ri] = nv;
	if (r->kind == SR_CTL || r->kind == SR_FILTER)
		rerate_span(s, &sp);
	return 0;
}

static int unimplemented(const struct sim *s, const struct hw_addr *a,
			 bool write)
{
	char buf[64];

	hw_addr_str(a, buf, sizeof(buf));
	switch (a->space) {
	case HW_MSR:
		if (a->cpu >= s->nsockets * SIM_CPUS_PER_SOCKET)
			return hw_fail(ENXIO, "%s: no such CPU (the simulated "
				       "machine has %u)", buf,
				       s->nsockets * SIM_CPUS_PER_SOCKET);
		return hw_fail(EIO, "%s: MSR not implemented (#GP on %s)", buf,
			       write ? "wrmsr" : "rdmsr");
	case HW_PCI:
		if (!sim_find_fn(s, a))
			return hw_fail(ENODEV, "%s: no such PCI device", buf);
		return 1;	/* unimplemented config offset: reads 0 */
	case HW_MMIO:
		/* Inside the MCHBAR window but no counter: reads 0, writes
		 * are dropped; outside any window nothing answers. */
		if (sim_mmio_base(s) && a->reg >= sim_mmio_base(s) &&
		    a->reg - sim_mmio_base(s) < s->data->mmio_size)
			return 1;
		if (!sim_mmio_base(s) && s->data->mmio_name)
			return hw_fail(EFAULT, "%s: no device decodes this "
				       "address (%s disabled)", buf,
				       s->data->mmio_name);
		return hw_fail(EFAULT, "%s: no device decodes this address",
			       buf);
	}
	return hw_fail(EINVAL, "%s: bad space", buf);
}

/* The checks the real backends make: PCI (hw_pci_check()), and an MSR
 * of an offline CPU, which the msr driver has no device for (ENXIO). */
static int access_check(const struct sim *s, const struct hw_addr *a)
{
	char buf[64];

	if (a->space == HW_MSR && a->cpu < 64 &&
	    (s->wl->topo.offline >> a->cpu & 1))
		return hw_fail(ENXIO, "%s: cpu %" PRIu32 " is offline "
			       "(simulated)", hw_addr_str(a, buf, sizeof(buf)),
			       a->cpu);
	return a->space == HW_PCI ? hw_pci_check(a) : 0;
}

/* One access of the width the register model takes (PCI: a dword). */
static int access_one(struct sim *s, const struct hw_addr *a, bool write,
		      uint64_t *val, int64_t now)
{
	unsigned half;
	int ri, err;

	/* RAPL energy status: package-scope, read-only (sim_rapl.c) */
	if (a->space == HW_MSR && !write && a->reg <= UINT32_MAX &&
	    srapl_msr(s->wl, a->cpu / SIM_CPUS_PER_SOCKET, (uint32_t)a->reg,
		      sim_secs(s, now), val) == 1)
		return 0;
	ri = sim_find_reg(s, a, &half);
	if (ri < 0) {
		err = unimplemented(s, a, write);
		if (err == 1) {
			if (!write)
				*val = 0;	/* unimplemented: reads 0 */
			err = 0;		/* and drops writes */
		}
		return err;
	}
	if (write)
		return sim_store(s, ri, half, *val, a->width, now);
	*val = reg_read_value(s, ri, now) >> half;
	if (a->width != 8)
		*val &= 0xffffffffull;
	return 0;
}

/*
 * An access: PCI configuration space is dwords, so an 8-byte PCI access
 * is two, low dword first (as hw_pcicfg_read/write do); the rest is one.
 */
static int sim_access(struct sim *s, const struct hw_addr *a, bool write,
		      uint64_t *val)
{
	int64_t now = sim_enter(s), delay_ns = 0;
	int err = access_check(s, a);

	if (!err)
		err = fault_check(s, a, &delay_ns);
	if (!err && a->space == HW_PCI && a->width == 8) {
		struct hw_addr d = *a;
		uint64_t lo = *val & 0xffffffffull, hi = *val >> 32;

		d.width = 4;
		err = access_one(s, &d, write, &lo, now);
		d.reg += 4;
		if (!err)
			err = access_one(s, &d, write, &hi, now);
		if (!err && !write)
			*val = (lo & 0xffffffffull) | hi << 32;
	} else if (!err) {
		err = access_one(s, a, write, val, now);
	}
	sim_unlock(s);
	if (delay_ns > 0)
		sleep_ns(delay_ns);	/* not holding the machine's lock */
	return err;
}

/* An access to a simulator opened without registers (sim_no_registers):
 * the platform is simulated for the perf backend only. */
static int no_registers(const struct sim *s, const struct hw_addr *a)
{
	char buf[64];

	return hw_fail(ENODEV, "%s: the simulated %s has no registers: it is "
		       "simulated for the perf backend only (--backend=perf)",
		       hw_addr_str(a, buf, sizeof(buf)), s->plat->id);
}

static int sim_read(struct hw *hw, const struct hw_addr *a, uint64_t *val)
{
	uint64_t v = 0;
	int err = ((struct sim *)hw->priv)->no_regs
		  ? no_registers(hw->priv, a) : sim_access(hw->priv, a, false, &v);

	if (!err)
		*val = v;
	return err;
}

static int sim_write(struct hw *hw, const struct hw_addr *a, uint64_t val)
{
	if (((struct sim *)hw->priv)->no_regs)
		return no_registers(hw->priv, a);
	return sim_access(hw->priv, a, true, &val);
}

static int sim_scan(struct hw *hw, int (*cb)(void *, const struct hw_pci_dev *),
		    void *ctx)
{
	struct sim *s = hw->priv;
	int r = 0;

	if (s->no_regs)
		return 0;	/* no PCI functions without registers */
	sim_enter(s);
	for (unsigned i = 0; i < s->nfns && r == 0; i++) {
		const struct sim_fn *f = &s->fns[i];
		struct hw_addr a = hw_pci(0, f->bus, f->dev, f->fn, 0, 4);
		uint64_t id = s->regval[f->idreg];
		struct hw_pci_dev d = { .bus = f->bus, .dev = f->dev,
					.fn = f->fn, .vendor = (uint16_t)id,
					.device = (uint16_t)(id >> 16) };

		if (fn_missing(s, &a))
			continue;
		sim_unlock(s);
		r = cb(ctx, &d);
		sim_lock(s);
	}
	sim_unlock(s);
	return r;
}

/* ---- open/close ----------------------------------------------------- */

static int init_lock(pthread_mutex_t *m)
{
	pthread_mutexattr_t at;
	int r;

	pthread_mutexattr_init(&at);
	pthread_mutexattr_setpshared(&at, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&at, PTHREAD_MUTEX_ROBUST);
	r = pthread_mutex_init(m, &at);
	pthread_mutexattr_destroy(&at);
	return -r;
}

static void reset_state(struct sim *s, int64_t now)
{
	for (unsigned i = 0; i < s->nregs; i++)
		s->regval[i] = s->regs[i].reset;
	for (unsigned i = 0; i < s->nctrs; i++)
		s->cst[i] = (struct sim_ctr_state){ .t_ns = now };
	s->sh->epoch_ns = now;
	s->sh->next_fault = 0;
	s->sh->gen = 1;
}

/*
 * Opens (creating it if need be) the shared state file at path into
 * *fdp.  The daemon opens it before it drops root, so a name another
 * user controls must not lead it elsewhere: the directory may not be
 * writable by every user unless it has the sticky bit (as /tmp has), the
 * file is opened with O_NOFOLLOW (a symbolic link is refused, never
 * followed), and what was opened must be a regular file with one link
 * (a hard link to a file of root's is refused too).  Returns 0 or
 * hw_fail().
 */
static int open_state(const char *path, int *fdp)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat ds, st;
	int fd, r;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
		 slash ? path : ".");
	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	if (stat(dir, &ds) < 0) {
		r = errno;
		return hw_fail(r, "simulator state %s: %s: %s", path, dir,
			       strerror(r));
	}
	if ((ds.st_mode & S_IWOTH) && !(ds.st_mode & S_ISVTX))
		return hw_fail(EPERM, "simulator state %s: its directory %s is "
			       "writable by every user and has no sticky bit, "
			       "so anyone could put a link there: use a "
			       "directory only its owner can write (or one "
			       "with the sticky bit, as /tmp)", path, dir);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		r = errno;
		return hw_fail(r, "cannot open simulator state %s: %s", path,
			       r == ELOOP ? "it is a symbolic link, which is "
			       "never followed" : strerror(r));
	}
	if (fstat(fd, &st) < 0) {
		r = errno;
		close(fd);
		return hw_fail(r, "cannot open simulator state %s: %s", path,
			       strerror(r));
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		return hw_fail(EPERM, "simulator state %s is not a regular file "
			       "with one link (%lu links): refused", path,
			       (unsigned long)st.st_nlink);
	}
	*fdp = fd;
	return 0;
}

static int map_state(struct sim *s, const char *path)
{
	size_t need = sizeof(struct sim_shared) + s->nregs * sizeof(uint64_t) +
		      s->nctrs * sizeof(struct sim_ctr_state);
	uint64_t hash = sim_layout_hash(s);
	bool fresh = true;
	int64_t now = s->now_ns(s->now_ctx);
	int fd = -1, r;
	struct stat st;

	s->shsize = need;
	if (!path) {
		s->sh = calloc(1, need);
		if (!s->sh)
			return hw_fail(ENOMEM, "simulator: out of memory");
	} else {
		if ((r = open_state(path, &fd)) < 0)
			return r;
		if (fstat(fd, &st) < 0) {
			r = errno;
			close(fd);
			return hw_fail(r, "cannot open simulator state %s: %s",
				       path, strerror(r));
		}
		fresh = st.st_size == 0;
		if (!fresh && (size_t)st.st_size != need) {
			close(fd);
			return hw_fail(EINVAL, "simulator state %s was made "
				       "for another machine (size %lld, want "
				       "%zu): remove it to start from reset",
				       path, (long long)st.st_size, need);
		}
		if (fresh && ftruncate(fd, (off_t)need) < 0) {
			r = errno;
			close(fd);
			return hw_fail(r, "cannot size simulator state %s: %s",
				       path, strerror(r));
		}
		s->sh = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_SHARED,
			     fd, 0);
		r = errno;
		close(fd);
		if (s->sh == MAP_FAILED) {
			s->sh = NULL;
			return hw_fail(r, "cannot map simulator state %s: %s",
				       path, strerror(r));
		}
		s->mapped = true;
	}
	s->regval = (uint64_t *)(s->sh + 1);
	s->cst = (struct sim_ctr_state *)(s->regval + s->nregs);
	s->fresh = fresh;
	if (!fresh) {
		if (s->sh->magic != SIM_MAGIC || s->sh->version != SIM_VERSION ||
		    s->sh->layout_hash != hash ||
		    strcmp(s->sh->plat, s->plat->id) != 0)
			return hw_fail(EINVAL, "simulator state %s was made "
				       "for another platform or topology: "
				       "remove it to start from reset", path);
		return 0;
	}
	/* A new file is zero-filled: initialise it, lock first.  (Two
	 * processes creating the same state at the same instant is not a
	 * supported use.) */
	if ((r = init_lock(&s->sh->lock)) < 0)
		return hw_fail(-r, "simulator: cannot create lock");
	s->sh->version = SIM_VERSION;
	s->sh->nregs = s->nregs;
	s->sh->nctrs = s->nctrs;
	s->sh->layout_hash = hash;
	snprintf(s->sh->plat, sizeof(s->sh->plat), "%s", s->plat->id);
	reset_state(s, now);
	__atomic_store_n(&s->sh->magic, SIM_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

static void sim_free(struct sim *s)
{
	if (!s)
		return;
	if (s->sh) {
		if (s->mapped)
			munmap(s->sh, s->shsize);
		else
			free(s->sh);
	}
	wl_free(s->wl);
	free(s->regs);
	free(s->ctrs);
	free(s->boxes);
	free(s->fns);
	free(s->index);
	free(s->box_ctr0);
	free(s->box_ctrs);
	free(s->rates);
	free(s->sig);
	free(s->sig_ok);
	free(s);
}

/*
 * Sockets, instances per unit and clocks: the workload's topology, or
 * one socket and the largest configuration the platform allows; PCI
 * buses 0xff, 0xdf, ... per socket when the platform has PCI units.
 */
static void resolve_topology(struct sim *s)
{
	const struct wl_topology *t = &s->wl->topo;
	bool pci = false;

	s->nsockets = t->sockets ? t->sockets : 1;
	if (s->nsockets > PLAT_MAX_SOCKETS)
		s->nsockets = PLAT_MAX_SOCKETS;
	for (int ui = 0; s->plat->units[ui] && ui < PLAT_MAX_UNITS; ui++) {
		const struct unit_type *u = s->plat->units[ui];

		s->ninst_part[ui] = s->ninst[ui] = wl_unit_ninst(s->wl, ui);
		if (s->ninst[ui] > u->max_inst)
			s->ninst[ui] = u->max_inst;
		pci |= u->space == HW_PCI;
	}
	for (unsigned sock = 0; sock < PLAT_MAX_SOCKETS; sock++)
		s->bus[sock] = pci ? (uint8_t)(0xff - 0x20 * sock) : 0;
	s->uclk_hz = t->uclk_hz ? t->uclk_hz : s->data->uclk_hz;
	s->dclk_hz = t->dclk_hz ? t->dclk_hz : s->data->dclk_hz;
}

/*
 * The register model needs the platform's registers: a perf-only
 * platform (plat_direct_check(): backends without PLAT_BE_DIRECT) is
 * simulated only without one (hw_opts.sim_no_registers, the simulated
 * kernel's way in).
 */
static int check_direct(const struct platform *p, const struct hw_opts *o)
{
	return o->sim_no_registers ? 0 : plat_direct_check(p);
}

static int sim_open(struct hw *hw, const struct hw_opts *o)
{
	struct sim *s = calloc(1, sizeof(*s));
	const struct platform *p = o->sim_plat;
	char err[512];
	int r;

	if (!s)
		return hw_fail(ENOMEM, "simulator: out of memory");
	s->now_ns = mono_ns;
	s->no_regs = o->sim_no_registers;
	if (!p && o->sim_platform) {
		p = plat_by_id(o->sim_platform);
		if (!p) {
			free(s);
			return hw_fail(EINVAL, "simulator: unknown platform "
				       "\"%s\"", o->sim_platform);
		}
	}
	if (o->sim_workload)
		r = wl_load(o->sim_workload, p, &s->wl, err, sizeof(err));
	else if (o->sim_selftest)
		r = wl_builtin_selftest(p ? p : PLAT_SIM_DEFAULT, &s->wl);
	else
		r = wl_builtin(p ? p : PLAT_SIM_DEFAULT, &s->wl);
	if (r < 0) {
		free(s);
		if (o->sim_workload)
			return hw_fail(-r, "%s", err);
		return hw_fail(-r, "simulator: no built-in workload for %s",
			       (p ? p : PLAT_SIM_DEFAULT)->id);
	}
	s->plat = s->wl->plat;
	s->data = s->plat->sim ? s->plat->sim : &sim_defaults;
	if (s->wl->nfaults > SIM_MAX_FAULTS) {
		r = hw_fail(EINVAL, "%s: $.faults: at most %d faults are "
			    "supported", s->wl->source, SIM_MAX_FAULTS);
		sim_free(s);
		return r;
	}
	if ((r = check_direct(s->plat, o)) < 0) {
		sim_free(s);
		return r;
	}
	resolve_topology(s);
	r = s->no_regs ? 0 : sim_build(s);
	if (r == 0) {
		s->rates = calloc((size_t)s->nctrs * s->wl->nphases + 1,
				  sizeof(double));
		s->sig = calloc((size_t)s->nctrs * 3 + 1, sizeof(*s->sig));
		s->sig_ok = calloc((size_t)s->nctrs + 1, 1);
		if (!s->rates || !s->sig || !s->sig_ok)
			r = -ENOMEM;
	}
	if (r < 0) {
		sim_free(s);
		return hw_fail(-r, "simulator: out of memory");
	}
	r = map_state(s, o->sim_state);
	if (r < 0) {
		sim_free(s);
		return r;
	}
	hw->priv = s;
	sim_lock(s);
	refresh_rates(s);
	sim_unlock(s);
	return 0;
}

static void sim_close(struct hw *hw)
{
	sim_free(hw->priv);
}

void hw_sim_set_clock(struct hw *hw, int64_t (*now_ns)(void *), void *ctx)
{
	struct sim *s = hw->priv;
	int64_t now = now_ns(ctx);

	sim_lock(s);
	s->now_ns = now_ns;
	s->now_ctx = ctx;
	/* A machine this open created restarts its workload clock on the new
	 * time base; an existing shared state keeps its epoch, so every
	 * opener must use the same clock. */
	if (s->fresh) {
		s->sh->epoch_ns = now;
		for (unsigned i = 0; i < s->nctrs; i++)
			s->cst[i].t_ns = now;
	}
	sim_unlock(s);
}

const struct platform *hw_sim_platform(const struct hw *hw)
{
	return ((const struct sim *)hw->priv)->plat;
}

const struct workload *hw_sim_workload(const struct hw *hw)
{
	return ((const struct sim *)hw->priv)->wl;
}

unsigned hw_sim_ninst(const struct hw *hw, int unit)
{
	const struct sim *s = hw->priv;

	if (unit < 0 || unit >= PLAT_MAX_UNITS)
		return 0;
	return s->ninst[unit];
}

unsigned hw_sim_cores(const struct hw *hw)
{
	return wl_cores(((const struct sim *)hw->priv)->wl);
}

uint64_t hw_sim_clock_hz(const struct hw *hw, int unit)
{
	const struct sim *s = hw->priv;
	const struct unit_type *u;

	if (unit < 0 || unit >= (int)plat_nunits(s->plat))
		return 0;
	u = s->plat->units[unit];
	if (u->kind == UNIT_FIXED && s->data->dclk_unit &&
	    strcmp(u->name, s->data->dclk_unit) == 0)
		return s->dclk_hz;
	return s->uclk_hz;
}

unsigned hw_sim_nsockets(const struct hw *hw)
{
	return ((const struct sim *)hw->priv)->nsockets;
}

double hw_sim_time(struct hw *hw)
{
	struct sim *s = hw->priv;

	return sim_secs(s, s->now_ns(s->now_ctx));
}

uint64_t hw_sim_work(struct hw *hw)
{
	struct sim *s = hw->priv;
	uint64_t w;

	sim_lock(s);
	w = s->work;
	sim_unlock(s);
	return w;
}

int hw_sim_pci_bus(const struct hw *hw, unsigned sock)
{
	const struct sim *s = hw->priv;

	if (sock >= s->nsockets)
		return -ENOENT;
	return s->bus[sock];
}

int hw_sim_node_id(const struct hw *hw, unsigned sock)
{
	const struct sim *s = hw->priv;

	if (sock >= s->nsockets || !s->data->node_mul)
		return -ENOENT;
	return sim_node_of(s, sock);
}

int hw_sim_global_frozen(struct hw *hw, unsigned sock)
{
	struct sim *s = hw->priv;
	int r;

	if (sock >= s->nsockets || s->gfrz[sock] < 0)
		return -ENOENT;
	sim_lock(s);
	r = (int)(s->regval[s->gfrz[sock]] & 1);
	sim_unlock(s);
	return r;
}

int hw_sim_box_state(struct hw *hw, unsigned sock, int unit, unsigned inst,
		     struct hw_sim_box *out)
{
	struct sim *s = hw->priv;

	for (unsigned b = 0; b < s->nboxes; b++) {
		const struct sim_box *bx = &s->boxes[b];
		uint64_t st;

		if (bx->socket != sock || bx->unit != unit || bx->inst != inst)
			continue;
		sim_lock(s);
		st = s->regval[bx->state];
		sim_unlock(s);
		*out = (struct hw_sim_box){
			.has_ctl = bx->ctl >= 0,
			.frozen = (st & BOX_FROZEN) != 0,
			.last_lacked_must1 = (st & BOX_LACKED) != 0,
			.ctl_writes = (unsigned)((st >> BOX_SH_WRITES) & 0xffff),
			.writes_lacking_must1 =
				(unsigned)((st >> BOX_SH_LACKING) & 0xffff),
			.ctl_twice_violations =
				(unsigned)((st >> BOX_SH_TWICE) & 0xffff),
		};
		return 0;
	}
	return -ENOENT;
}

/* The simulator puts socket s's CPUs at 8s .. 8s+7, its cores first;
 * the workload's offline_cpus are offline; every core counts for the
 * hardware's core count. */
static void sim_cpu_map(const struct hw *hw, struct hw_cpu_map *m)
{
	m->cpus_per_package = SIM_CPUS_PER_SOCKET;
	m->cores_per_package = hw_sim_cores(hw);
	m->offline = hw_sim_workload(hw)->topo.offline;
	m->hw_cores = hw_sim_cores(hw);
}

static int sim_played_phase(const struct hw *hw, unsigned ph,
			    struct hw_played_phase *out)
{
	const struct workload *w = hw_sim_workload(hw);
	double start = 0;

	if (!w || ph >= w->nphases)
		return -ENOENT;
	for (unsigned p = 0; p < ph; p++)
		start += w->phase_s[p];
	*out = (struct hw_played_phase){ .start_s = start,
					  .len_s = w->phase_s[ph],
					  .period_s = w->period_s };
	return 0;
}

/* The workload keys that name this counter, summed (a key for every
 * socket counts once per socket). */
static double sim_played_rate(const struct hw *hw, unsigned ph, int unit,
			      int freerun, uint8_t code, uint8_t umask)
{
	const struct sim *s = hw->priv;
	const struct workload *w = s->wl;
	double sum = 0;

	if (!w || ph >= w->nphases)
		return 0;
	for (unsigned k = 0; k < w->nkeys; k++) {
		const struct wl_key *key = &w->keys[k];

		if (key->unit != unit)
			continue;
		if (freerun >= 0 ? !key->freerun ||
				   key->freerun_idx != (unsigned)freerun
				 : key->freerun || key->enc.code != code ||
				   key->enc.umask != umask)
			continue;
		sum += w->rates[(size_t)k * w->nphases + ph] *
		       (key->socket < 0 ? s->nsockets : 1);
	}
	return sum;
}

/* The simulated CPU's CPUID: its platform's and workload's
 * (wl_cpuid()). */
static int sim_cpuid(const struct hw *hw, uint32_t leaf, uint32_t sub,
		     uint32_t r[4])
{
	const struct sim *s = hw->priv;

	return wl_cpuid(s ? s->wl : NULL, leaf, sub, r);
}

const struct hw_ops hw_sim_ops = {
	.name = "sim",
	.cpuid = sim_cpuid,
	.played_time = hw_sim_time,
	.played_phase = sim_played_phase,
	.played_rate = sim_played_rate,
	.models = hw_sim_platform,
	.cpu_map = sim_cpu_map,
	.open = sim_open,
	.close = sim_close,
	.read = sim_read,
	.write = sim_write,
	.pci_scan = sim_scan,
};
