/*
 * test_model.c - the platform model past the two shipped platforms: a
 * synthetic platform whose unit has 48 instances (more than a 32-bit
 * instance mask holds) and four box filters, driven through topology,
 * event resolution, placement, the PMU slots and programming on an
 * in-memory register file; and the PMU layer's bookkeeping (dense
 * register ids, skipped reprogramming, a written set larger than the old
 * fixed 2048 entries all cleared at release).
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu/pmu.h"
#include "core/sampler.h"
#include "pmu/sched.h"
#include "tests/tap.h"

/* ---- an in-memory register file behind struct hw_ops ------------------ */

#define FAKE_SLOTS (1u << 16)

struct fake_reg {
	bool used;
	enum hw_space space;
	uint32_t cpu;
	uint64_t reg;
	uint16_t domain;
	uint8_t bus, dev, fn;
	uint64_t val;
};

static struct fake_reg *fake;
static unsigned fake_used;

static unsigned fake_hash(const struct hw_addr *a)
{
	uint64_t h = (uint64_t)a->space * 0x9E3779B97F4A7C15ull ^
		     (uint64_t)a->cpu * 0xC2B2AE3D27D4EB4Full ^
		     a->reg * 0x165667B19E3779F9ull ^
		     ((uint64_t)a->bus << 16 | (uint64_t)a->dev << 8 | a->fn);

	return (unsigned)(h ^ h >> 29) & (FAKE_SLOTS - 1);
}

static bool fake_same(const struct fake_reg *r, const struct hw_addr *a)
{
	return r->space == a->space && r->cpu == a->cpu && r->reg == a->reg &&
	       r->domain == a->domain && r->bus == a->bus &&
	       r->dev == a->dev && r->fn == a->fn;
}

/* The slot of a (created if make), or NULL. */
static struct fake_reg *fake_at(const struct hw_addr *a, bool make)
{
	for (unsigned h = fake_hash(a);; h = (h + 1) & (FAKE_SLOTS - 1)) {
		struct fake_reg *r = &fake[h];

		if (r->used && fake_same(r, a))
			return r;
		if (!r->used) {
			if (!make || fake_used + 1 >= FAKE_SLOTS)
				return NULL;
			*r = (struct fake_reg){ .used = true, .space = a->space,
				.cpu = a->cpu, .reg = a->reg, .domain = a->domain,
				.bus = a->bus, .dev = a->dev, .fn = a->fn };
			fake_used++;
			return r;
		}
	}
}

static int fake_open(struct hw *hw, const struct hw_opts *o)
{
	(void)hw;
	(void)o;
	fake = calloc(FAKE_SLOTS, sizeof(*fake));
	fake_used = 0;
	return fake ? 0 : -ENOMEM;
}

static void fake_close(struct hw *hw)
{
	(void)hw;
	free(fake);
	fake = NULL;
}

static int fake_read(struct hw *hw, const struct hw_addr *a, uint64_t *v)
{
	const struct fake_reg *r = fake_at(a, false);

	(void)hw;
	*v = r ? r->val : 0;
	return 0;
}

static int fake_write(struct hw *hw, const struct hw_addr *a, uint64_t v)
{
	struct fake_reg *r = fake_at(a, true);

	(void)hw;
	if (!r)
		return hw_fail(ENOSPC, "fake register file full");
	r->val = v;
	return 0;
}

static const struct hw_ops fake_ops = {
	.name = "fake", .open = fake_open, .close = fake_close,
	.read = fake_read, .write = fake_write,
};

/* Registers of the file holding a non-zero value. */
static unsigned fake_nonzero(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < FAKE_SLOTS; i++)
		n += fake[i].used && fake[i].val;
	return n;
}

static uint64_t fake_val(struct hw_addr a)
{
	uint64_t v;

	fake_read(NULL, &a, &v);
	return v;
}

/* ---- a wide synthetic platform ----------------------------------------- */

#define W_INST 48		/* > 32: a 32-bit instance mask loses 16 */
#define W_ABSENT 40		/* an instance discovery reports missing */
#define W_GCTL 0x700u

static const struct reg_field w_ctl_f[] = {
	{ "ev_sel", 0, 7, ACC_RW },
	{ "umask", 8, 15, ACC_RW },
	{ "en", 22, 22, ACC_RW },
};
static const struct reg_layout w_ctl = {
	"W_PMON_CTL", "test", 64, w_ctl_f, sizeof(w_ctl_f) / sizeof(w_ctl_f[0]),
};
static const struct reg_field w_flt_f[] = { { "match", 0, 31, ACC_RW } };
static const struct reg_layout w_flt = { "W_FILTER", "test", 64, w_flt_f, 1 };
static const struct reg_field w_gctl_f[] = { { "en", 29, 29, ACC_RW } };
static const struct reg_layout w_gctl = { "W_GLOBAL", "test", 64, w_gctl_f, 1 };

static const struct unit_filter w_filters[] = {
	{ .name = "F0", .flag = EVF_FILTER0, .off = 0x10, .layout = &w_flt },
	{ .name = "F1", .flag = EVF_FILTER1, .off = 0x11, .layout = &w_flt },
	{ .name = "F2", .flag = EVF_FILTER1, .off = 0x12, .layout = &w_flt },
	{ .name = "F3", .flag = EVF_FILTER1, .off = 0x13, .layout = &w_flt },
};

static const struct unit_type w_cha = {
	.name = "cha", .desc = "a wide box", .source = "test",
	.kind = UNIT_PROG, .space = HW_MSR, .max_inst = W_INST,
	.base = 0x1000, .inst_stride = 0x20,
	.nctr = 4, .width = 48, .ctl_off = 0, .ctl_stride = 1,
	.ctr_off = 8, .ctr_stride = 1, .ctl_layout = &w_ctl,
	.fmt = { .ev_lo = 0, .ev_w = 8, .umask_lo = 8, .umask_w = 8,
		 .inv_bit = 0xff, .edge_bit = 0xff, .en_bit = 22,
		 .ovf_en_bit = 0xff, .rst_bit = 0xff },
	.global_ovf_bit = 0xff, .max_rate = 1e9,
	.filters = w_filters, .nfilters = 4,
};

static const struct unit_type *const w_units[] = { &w_cha, NULL };
static unsigned w_sockets = 1;

static int w_discover(struct hw *hw, struct topology *t)
{
	(void)hw;
	t->nsockets = w_sockets;
	for (unsigned s = 0; s < w_sockets; s++) {
		t->sock[s].id = s;
		t->sock[s].cpu = s * 8;
		t->sock[s].ninst[0] = W_INST;
		iset_add(&t->sock[s].absent[0], W_ABSENT);
	}
	return 0;
}

static int w_enable(struct hw *hw, const struct topology *t, unsigned s,
		    bool on)
{
	struct hw_addr a = hw_msr(t->sock[s].cpu, W_GCTL);

	return hw_write(hw, &a, on ? 1ull << 29 : 0);
}

static const struct plat_ops w_ops = { .discover = w_discover,
				       .global_enable = w_enable };
static const struct cpu_match w_cpus[] = { { 0, 0 } };
static const char *const w_baseline[] = { NULL };

static const struct platform w_plat = {
	.id = "wide", .name = "synthetic wide platform", .manual = "test",
	.cpus = w_cpus, .units = w_units,
	.global_ctl = { .addr = W_GCTL, .layout = &w_gctl },
	.global_enable = 1ull << 29,
	.ops = &w_ops, .baseline = w_baseline,
};

struct rig {
	struct hw hw;
	struct topology topo;
	struct pmu pmu;
};

static void rig_open(struct rig *r, unsigned sockets)
{
	memset(r, 0, sizeof(*r));
	w_sockets = sockets;
	if (hw_open(&r->hw, &fake_ops, NULL) < 0 ||
	    plat_discover(&w_plat, &r->hw, &r->topo, NULL) < 0) {
		printf("Bail out! %s\n", hw_last_error());
		exit(1);
	}
	r->topo.plat = &w_plat;
	if (pmu_init(&r->pmu, &r->hw, &r->topo) < 0) {
		printf("Bail out! pmu_init: %s\n", hw_last_error());
		exit(1);
	}
}

static void rig_close(struct rig *r)
{
	pmu_free(&r->pmu);
	hw_close(&r->hw);
}

static int resolve(const char *text, struct evspec *e)
{
	char why[256];
	int r = sched_resolve(&w_plat, text, true, e, why, sizeof(why));

	if (r < 0)
		printf("# %s\n", why);
	return r;
}

/* ---- bounds ------------------------------------------------------------ */

static void test_bounds(void)
{
	struct unit_type big = w_cha;
	const struct unit_type *units[] = { &big, NULL };
	struct platform p = w_plat;
	char msg[64];

	for (const struct platform *const *q = plat_all; *q; q++)
		is_int(plat_check(*q), 0, "%s fits the build's bounds", (*q)->id);
	is_int(plat_check(&w_plat), 0, "48 instances, 4 filters fit");
	p.units = units;
	big.max_inst = PLAT_MAX_INST + 1;
	is_int(plat_check(&p), -E2BIG, "more instances than PLAT_MAX_INST");
	snprintf(msg, sizeof(msg), "unit cha has %d instances",
		 PLAT_MAX_INST + 1);
	ok(strstr(hw_last_error(), msg) != NULL,
	   "the message names unit and count: %s", hw_last_error());
	big.max_inst = 4;
	big.nfilters = PLAT_MAX_FILTERS + 1;
	is_int(plat_check(&p), -E2BIG, "more filters than PLAT_MAX_FILTERS");
	ok(strstr(hw_last_error(), "filter registers") != NULL, "and says so");
}

/* ---- topology, resolution and placement past 32 instances ------------- */

static void test_topology(void)
{
	struct rig r;
	const struct topo_socket *s;

	rig_open(&r, 1);
	s = &r.topo.sock[0];
	ok(topo_present(s, 0, 0) && topo_present(s, 0, 39) &&
	   topo_present(s, 0, 41) && topo_present(s, 0, 47),
	   "instances 0..47 present");
	ok(!topo_present(s, 0, W_ABSENT), "instance 40 absent");
	ok(!topo_present(s, 0, 48), "no instance 48");
	rig_close(&r);
}

static void test_filters(void)
{
	struct evspec ev[3];
	char why[256];
	int ctr[3];

	is_int(resolve("cha:0x1:0x1:filter3=0x5", &ev[0]), 0, "filter3 parses");
	is_u64(ev[0].filt[3], 5, "filter3 value");
	is_int(ev[0].filt_set, 1 << 3, "only filter3 set");
	is_int(sched_resolve(&w_plat, "cha:0x1:0x1:filter4=0x5", true, &ev[1],
			     why, sizeof(why)), -EINVAL, "filter4 refused");
	ok(strstr(why, "unit cha has no filter4 register") != NULL, "%s", why);
	is_int(sched_resolve(&w_plat, "cha:0x1:0x1:filter3=0x100000000", true,
			     &ev[1], why, sizeof(why)), -EINVAL,
	       "a filter value past the register's fields refused");
	is_int(sched_resolve(&w_plat, "cha:0x1:0x1:filter9=1", true, &ev[1], why,
			     sizeof(why)), -EINVAL, "filter9: beyond any unit");

	/* Both count only on instance 44 (split 44/45) and need different
	 * filter3 values: they cannot share the box.  A 32-bit instance
	 * mask does not see instance 44 at all and lets them through. */
	resolve("cha:0x1:0x1:filter3=0x5:split=44/45", &ev[0]);
	resolve("cha:0x2:0x1:filter3=0x6:split=44/45", &ev[1]);
	is_int(sched_place(&w_plat, ev, 2, NULL, ctr, why, sizeof(why)), -EBUSY,
	       "different filter3 values on instance 44 conflict");
	resolve("cha:0x2:0x1:filter3=0x6:split=43/45", &ev[1]);
	is_int(sched_place(&w_plat, ev, 2, NULL, ctr, why, sizeof(why)), 0,
	       "on instances 44 and 43 they fit: %s", why);
	resolve("cha:0x2:0x1:filter2=0x6:split=44/45", &ev[1]);
	is_int(sched_place(&w_plat, ev, 2, NULL, ctr, why, sizeof(why)), 0,
	       "filter2 and filter3 are different registers");
}

static void test_busy(void)
{
	struct sched_busy *b = calloc(1, sizeof(*b));
	struct evspec ev[2];
	int c0 = 0, ctr[1];
	char why[256];

	/* instance 47 holds counter 0: a new event on every instance
	 * (47 included) must go elsewhere; one on instance 46 need not */
	resolve("cha:0x1:0x1:split=47/48", &ev[0]);
	sched_occupy(&w_plat, ev, 1, &c0, b);
	ok(iset_has(&b->ctr[0][0], 47) && !iset_has(&b->ctr[0][0], 46),
	   "busy set holds instance 47");
	resolve("cha:0x2:0x1", &ev[1]);
	is_int(sched_place_busy(&w_plat, &ev[1], 1, b, ctr, why, sizeof(why)),
	       0, "placed around it");
	ok(ctr[0] != 0, "not on counter 0 (got %d)", ctr[0]);
	ok(ctr[0] > 0 && ctr[0] < PLAT_MAX_CTRS &&
	   iset_empty(&b->ctr[0][ctr[0]]) && !iset_has(&b->ctr[0][0], 46),
	   "and the busy sets are left as they were");
	resolve("cha:0x2:0x1:split=46/48", &ev[1]);
	sched_place_busy(&w_plat, &ev[1], 1, b, ctr, why, sizeof(why));
	is_int(ctr[0], 0, "instance 46 may use counter 0");
	free(b);
}

/* program_new and pmu_program over two sockets of 47 present boxes. */
static void test_program(void)
{
	struct rig r;
	struct evspec ev[1];
	struct program *p;
	struct pmu_slot *want;
	char why[256];
	unsigned n, on47 = 0;

	rig_open(&r, 2);
	resolve("cha:0x34:0x11:filter1=0x7", &ev[0]);
	p = program_new(&r.topo, &r.pmu, ev, 1, 4, 1000, why, sizeof(why));
	ok(p != NULL, "program over 48-instance units: %s", p ? "" : why);
	if (!p) {
		rig_close(&r);
		return;
	}
	is_int(p->ns, 2 * (W_INST - 1), "one series per present box");
	for (unsigned k = 0; k < p->ns; k++)
		on47 += p->slot[k].inst == 47;
	is_int(on47, 2, "instance 47 counted on both sockets");
	want = calloc(CONTROLS_PER_SERIES * (size_t)p->ns, sizeof(*want));
	n = program_controls(p, want);
	is_int(n, 2 * p->ns, "a control and a filter per series");
	is_int(pmu_program(&r.pmu, want, n, false), 0, "programmed");
	ok(fake_val(plat_ctl_addr(&r.topo.sock[1], &w_cha, 47, 0)) ==
	   (0x34 | 0x11 << 8 | 1ull << 22), "socket 1 box 47 counter 0 set");
	is_u64(fake_val(plat_filter_addr(&r.topo.sock[1], &w_cha, 47, 1)), 7,
	       "and its filter1");
	is_u64(fake_val(plat_ctl_addr(&r.topo.sock[0], &w_cha, W_ABSENT, 0)), 0,
	       "the absent box untouched");
	is_int(pmu_release(&r.pmu), 0, "released");
	is_int(fake_nonzero(), 0, "every register written is 0 again");
	free(want);
	program_put(p);
	rig_close(&r);
}


/* ---- register ids and the written set --------------------------------- */

static bool same_addr(const struct hw_addr *a, const struct hw_addr *b)
{
	return a->space == b->space && a->width == b->width &&
	       a->cpu == b->cpu && a->reg == b->reg && a->bus == b->bus &&
	       a->dev == b->dev && a->fn == b->fn && a->domain == b->domain;
}

static void test_ids(void)
{
	struct rig r;
	struct pmu_slot a, b, f;
	bool all = true;

	rig_open(&r, 2);
	is_int(r.pmu.nreg, 1 + 2 * W_INST * (4 + 4 + 4),
	       "one id per control, counter and filter of every box");
	pmu_slot(&r.pmu, &a, 1, 0, 47, 3);
	pmu_slot(&r.pmu, &b, 0, 0, 47, 3);
	ok(a.ctl_id != PMU_NO_REG && a.ctr_id != PMU_NO_REG &&
	   a.ctl_id != b.ctl_id && a.ctr_id != b.ctr_id &&
	   a.ctl_id != a.ctr_id, "distinct ids per socket and kind");
	ok(same_addr(&r.pmu.reg[a.ctl_id].a, &a.ctl) &&
	   same_addr(&r.pmu.reg[a.ctr_id].a, &a.ctr),
	   "an id names the slot's registers");
	pmu_filter_slot(&r.pmu, &f, &a, 3, 9);
	ok(f.filter && f.ctl_val == 9 && f.ctl_id != PMU_NO_REG &&
	   same_addr(&r.pmu.reg[f.ctl_id].a, &f.ctl) &&
	   r.pmu.reg[f.ctl_id].kind == PMU_REG_FLT, "filter 3 of box 47");
	pmu_slot(&r.pmu, &a, 0, 0, W_INST, 0);
	is_int(a.ctl_id, PMU_NO_REG, "no id past the last instance");
	for (unsigned k = 1; k < r.pmu.nreg; k++)
		all &= r.pmu.reg[k].present == (r.pmu.reg[k].inst != W_ABSENT);
	ok(all, "only the absent box's registers are marked absent");
	/* a slot without an id is never written: release could not
	 * clear it */
	memset(&a, 0, sizeof(a));
	a.ctl = hw_msr(0, 0x1234);
	a.ctl_val = 1;
	is_int(pmu_program(&r.pmu, &a, 1, false), -EINVAL,
	       "a register without an id refused");
	is_u64(fake_val(hw_msr(0, 0x1234)), 0, "and not written");
	rig_close(&r);
}

/* Four events, each with its own filter, on every counter of every box
 * of 8 sockets: 3008 registers written (more than the 2048 the written
 * set used to hold), every one 0 again after release. */
static void test_written(void)
{
	static const char *const names[] = {
		"cha:0x1:0x1:filter0=0x1", "cha:0x2:0x1:filter1=0x2",
		"cha:0x3:0x1:filter2=0x3", "cha:0x4:0x1:filter3=0x4",
	};
	struct rig r;
	struct evspec ev[4];
	struct program *p;
	struct pmu_slot *want;
	char why[256];
	unsigned n;

	rig_open(&r, PLAT_MAX_SOCKETS);
	for (unsigned i = 0; i < 4; i++)
		resolve(names[i], &ev[i]);
	p = program_new(&r.topo, &r.pmu, ev, 4, 4, 1000, why, sizeof(why));
	ok(p != NULL, "program: %s", p ? "" : why);
	if (!p) {
		rig_close(&r);
		return;
	}
	want = calloc(CONTROLS_PER_SERIES * (size_t)p->ns, sizeof(*want));
	n = program_controls(p, want);
	is_int(n, PLAT_MAX_SOCKETS * (W_INST - 1) * 8, "3008 writes wanted");
	is_int(pmu_program(&r.pmu, want, n, false), 0, "all written");
	is_int(pmu_enable(&r.pmu, true), 0, "enabled");
	is_int(r.pmu.nwritten, n, "every one in the written set");
	is_int(fake_nonzero(), n + PLAT_MAX_SOCKETS,
	       "and set in the registers (with the global controls)");
	is_int(pmu_release(&r.pmu), 0, "released");
	is_int(fake_nonzero(), 0, "every register this daemon wrote is 0");
	free(want);
	program_put(p);
	rig_close(&r);
}

/* pmu_program() with nothing changed writes nothing; one changed control
 * is one write. */
static void test_unchanged(void)
{
	struct rig r;
	struct evspec ev[2];
	struct program *p;
	struct pmu_slot *want;
	char why[256];
	unsigned n;
	uint64_t w0;

	rig_open(&r, 2);
	resolve("cha:0x1:0x1:filter0=0x1", &ev[0]);
	resolve("cha:0x2:0x1", &ev[1]);
	p = program_new(&r.topo, &r.pmu, ev, 2, 4, 1000, why, sizeof(why));
	if (!p) {
		ok(0, "program: %s", why);
		rig_close(&r);
		return;
	}
	want = calloc(CONTROLS_PER_SERIES * (size_t)p->ns, sizeof(*want));
	n = program_controls(p, want);
	w0 = atomic_load(&r.hw.nwrites);
	pmu_program(&r.pmu, want, n, false);
	is_u64(atomic_load(&r.hw.nwrites) - w0, n, "first time: %u writes", n);
	w0 = atomic_load(&r.hw.nwrites);
	pmu_program(&r.pmu, want, n, false);
	is_u64(atomic_load(&r.hw.nwrites) - w0, 0, "same list: no write");
	want[5].ctl_val ^= 1ull << 8;	/* another umask */
	w0 = atomic_load(&r.hw.nwrites);
	pmu_program(&r.pmu, want, n, false);
	is_u64(atomic_load(&r.hw.nwrites) - w0, 1, "one change: one write");
	w0 = atomic_load(&r.hw.nwrites);
	pmu_program(&r.pmu, want, n - 1, false);
	is_u64(atomic_load(&r.hw.nwrites) - w0, 1,
	       "one slot dropped: its control cleared");
	ok(fake_val(want[n - 1].ctl) == 0, "the dropped control is 0");
	w0 = atomic_load(&r.hw.nwrites);
	pmu_program(&r.pmu, want, n - 1, true);
	is_u64(atomic_load(&r.hw.nwrites) - w0, n - 1, "force rewrites all");
	pmu_release(&r.pmu);
	free(want);
	program_put(p);
	rig_close(&r);
}

/* The sampler's tick over 2 x 47 boxes: after the first tick (which
 * programs), a tick writes only the global freeze and unfreeze of each
 * socket and reads each counter once. */
static void test_tick(void)
{
	struct sampler_cfg cfg = { .interval_ms = 1000, .ring_capacity = 4,
				   .check_every = 0 };
	struct rig r;
	struct evspec ev[2];
	struct program *p;
	struct sampler *sm;
	char why[256];
	uint64_t w0, r0;

	rig_open(&r, 2);
	resolve("cha:0x1:0x1:filter0=0x1", &ev[0]);
	resolve("cha:0x2:0x1", &ev[1]);
	p = program_new(&r.topo, &r.pmu, ev, 2, 4, 1000, why, sizeof(why));
	sm = p ? sampler_new(&r.pmu, p, &cfg, NULL) : NULL;
	if (!sm) {
		ok(0, "sampler: %s", why);
		rig_close(&r);
		return;
	}
	sampler_tick(sm);
	sampler_tick(sm);
	w0 = atomic_load(&r.hw.nwrites);
	r0 = atomic_load(&r.hw.nreads);
	sampler_tick(sm);
	is_u64(atomic_load(&r.hw.nwrites) - w0, 2 * 2,
	       "a tick writes the 2 sockets' freeze and unfreeze only");
	/* the counters, the global controls, and (issue 19) the controls
	 * and filters of the counters that counted, read back every tick */
	is_u64(atomic_load(&r.hw.nreads) - r0,
	       2 * (W_INST - 1) * 2 + 2 + 2 * (W_INST - 1) * 2 +
	       2 * (W_INST - 1),
	       "and reads 188 counters once, 2 global controls, 188 controls "
	       "and 94 filters");
	sampler_free(sm);
	pmu_release(&r.pmu);
	rig_close(&r);
}

int main(void)
{
	test_bounds();
	test_topology();
	test_filters();
	test_busy();
	test_program();
	test_ids();
	test_written();
	test_unchanged();
	test_tick();
	return tap_done();
}
