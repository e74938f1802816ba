/*
 * test_faults.c - the fault matrix (issue 15, keep it found): every
 * simulated fault kind (eio, foreign_write, stuck, device_missing) on a
 * series of every unit kind the baselines use (programmable counters in
 * MSR and PCI space, fixed counters, free-running counters in MSR and
 * MMIO space) on every platform, each in its own simulated machine,
 * checking after every tick the validity flags of the sample and of the
 * struck series, and that no quantity total goes down.
 *
 *   eio            the series is invalid while its reads fail (and for
 *                  the next reading, a new baseline), valid again
 *                  after; no interference
 *   foreign_write  (its control register to 0) interference: counted,
 *                  the sample invalid, the control rewritten (reclaim);
 *                  free-running counters have no control: not applicable
 *   ... (counter)  (its counter register to 0: a reset by another agent)
 *                  interference, that one delta dropped, not read as a
 *                  wrap; free-running counters ignore writes
 *   stuck          the series stays valid and adds 0 (a counter that
 *                  stops cannot be told from an idle one)
 *   device_missing (PCI boxes only) the series is invalid from then on,
 *                  the rest of the machine carries on
 *   delay          (one machine) each of the next `count` accesses to
 *                  the target returns `seconds` late, then none; the
 *                  values are the machine's (tests/scenario/
 *                  counting_window.sh runs the daemon against it)
 *
 * Time is a manual clock shared by the simulator and the sampler: a tick
 * is exactly TICK_MS after the last, however loaded the machine is.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "sim/hw_sim.h"
#include "base/log.h"
#include "serve/metrics.h"
#include "core/sampler.h"
#include "tests/tap.h"

#define TICKS		14
#define TICK_MS		40
#define FAULT_AT_S	0.2

static char dir[] = "/tmp/test_faults_XXXXXX";

/* The simulator's and the sampler's time: moves only by advance_tick(). */
static struct clock_manual fake;

static void advance_tick(void)
{
	clock_manual_advance(&fake, (int64_t)TICK_MS * 1000000);
}

/* A TAP check that does not apply, with the reason. */
__attribute__((format(printf, 2, 3)))
static void skip_n(int n, const char *fmt, ...)
{
	va_list ap;

	for (int k = 0; k < n; k++) {
		printf("ok %d # SKIP ", ++tap_n);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
}

struct rig {
	struct hw hw;
	struct topology topo;
	struct pmu pmu;
	struct evspec ev[SAMPLER_MAX_EVENTS];
	unsigned nev;
	struct program *p;
	struct sampler *s;
};

static int rig_open(struct rig *r, const char *plat, const char *wl)
{
	struct hw_opts o = { .sim_platform = plat, .sim_workload = wl };
	struct sampler_cfg cfg = { .interval_ms = 100, .ring_capacity = 32,
				   .check_every = 1, .policy = POLICY_RECLAIM };
	char why[256];

	memset(r, 0, sizeof(*r));
	if (hw_open(&r->hw, &hw_sim_ops, &o) < 0) {
		printf("# %s\n", hw_last_error());
		return -1;
	}
	r->topo.plat = hw_sim_platform(&r->hw);
	hw_sim_set_clock(&r->hw, fake.src.mono_ns, fake.src.ctx);
	if (plat_discover(r->topo.plat, &r->hw, &r->topo, &(struct hw_cpu_map){
			  .cpus_per_package = SIM_CPUS_PER_SOCKET }) < 0) {
		printf("# discover: %s\n", hw_last_error());
		return -1;
	}
	if (pmu_init(&r->pmu, &r->hw, &r->topo) < 0) {
		printf("# pmu_init: %s\n", hw_last_error());
		return -1;
	}
	for (const char *const *b = r->topo.plat->baseline; *b; b++)
		if (sched_resolve(r->topo.plat, *b, false, &r->ev[r->nev++], why,
				  sizeof(why)) < 0)
			return -1;
	r->p = program_new(&r->topo, &r->pmu, r->ev, r->nev, 32, 100, why,
			   sizeof(why));
	if (!r->p) {
		printf("# program_new: %s\n", why);
		return -1;
	}
	r->s = sampler_new(&r->pmu, r->p, &cfg, NULL);
	if (!r->s)
		return -1;
	sampler_set_clock(r->s, &fake.src);
	return 0;
}

static void rig_close(struct rig *r)
{
	sampler_free(r->s);
	pmu_release(&r->pmu);
	pmu_free(&r->pmu);
	hw_close(&r->hw);
}

/* The workload syntax of a register. */
static void target_of(const struct hw_addr *a, char *out, size_t len)
{
	switch (a->space) {
	case HW_MSR:
		snprintf(out, len, "msr:0x%" PRIx64, a->reg);
		break;
	case HW_PCI:
		snprintf(out, len, "pci:%02x:%02x.%x+0x%" PRIx64, a->bus, a->dev,
			 a->fn, a->reg);
		break;
	default:
		snprintf(out, len, "mmio:0x%" PRIx64, a->reg);
		break;
	}
}

/* The platform's default workload with one fault added, in a file. */
static const char *workload(const char *plat, const char *fault)
{
	static char path[300];
	char src[300];
	struct json_object *o, *faults;
	FILE *f;

	snprintf(src, sizeof(src), "%s/conf/workloads/%s-default.json",
		 getenv("top_srcdir") ? getenv("top_srcdir") : "..", plat);
	o = json_object_from_file(src);
	if (!o) {
		printf("Bail out! cannot read %s\n", src);
		exit(1);
	}
	json_object_object_del(o, "faults");
	faults = json_object_new_array();
	if (fault)
		json_object_array_add(faults, json_tokener_parse(fault));
	json_object_object_add(o, "faults", faults);
	snprintf(path, sizeof(path), "%s/%s.json", dir, plat);
	f = fopen(path, "w");
	fputs(json_object_to_json_string(o), f);
	fclose(f);
	json_object_put(o);
	return path;
}

enum kind { K_EIO, K_FOREIGN, K_RESET, K_STUCK, K_MISSING, K_N };
static const char *const kind_name[K_N] = { "eio", "foreign_write",
					    "foreign_write(counter)", "stuck",
					    "device_missing" };

/* One cell: fault k on series i (socket 0) of platform plat. */
static void cell(const char *plat, const struct pmu_slot *sl, const char *unit,
		 enum kind k, unsigned *cells)
{
	struct rig r;
	char tgt[96], fault[256], what[160];
	double *last = NULL, *vals;
	unsigned invalid = 0, interfered = 0, unflagged = 0, decreases = 0,
		 tail_invalid = 0;
	uint64_t tail_sum = 0, *w;
	bool last_valid = false;
	struct snap st;
	int idx = -1;

	snprintf(what, sizeof(what), "%s %s %s%s (%s)", plat, kind_name[k],
		 unit, sl->freerun ? " free-running" : "",
		 sl->ctr.space == HW_PCI ? "PCI" : sl->ctr.space == HW_MSR
		 ? "MSR" : "MMIO");
	if ((k == K_FOREIGN || k == K_RESET) && sl->freerun) {
		skip_n(1, "%s: a free-running counter has no control register "
		       "and ignores writes", what);
		return;
	}
	if (k == K_MISSING && sl->ctr.space != HW_PCI) {
		skip_n(1, "%s: only PCI functions can go missing", what);
		return;
	}
	target_of(k == K_FOREIGN ? &sl->ctl : &sl->ctr, tgt, sizeof(tgt));
	if (k == K_MISSING)
		*strchr(tgt, '+') = '\0';
	if (k == K_EIO)
		snprintf(fault, sizeof(fault), "{\"at\":%g,\"kind\":\"eio\","
			 "\"target\":\"%s\",\"count\":2}", FAULT_AT_S, tgt);
	else if (k == K_FOREIGN || k == K_RESET)
		snprintf(fault, sizeof(fault), "{\"at\":%g,\"kind\":"
			 "\"foreign_write\",\"target\":\"%s\",\"value\":\"0x0\"}",
			 FAULT_AT_S, tgt);
	else
		snprintf(fault, sizeof(fault), "{\"at\":%g,\"kind\":\"%s\","
			 "\"target\":\"%s\"}", FAULT_AT_S, kind_name[k], tgt);
	if (rig_open(&r, plat, workload(plat, fault)) < 0) {
		ok(0, "%s: rig", what);
		return;
	}
	for (unsigned j = 0; j < r.p->ns; j++)
		if (memcmp(&r.p->slot[j].ctr, &sl->ctr, sizeof(sl->ctr)) == 0 &&
		    r.p->slot[j].socket == sl->socket)
			idx = (int)j;
	if (idx < 0) {
		ok(0, "%s: series not found", what);
		rig_close(&r);
		return;
	}
	w = calloc(sample_words(r.p->ns), sizeof(uint64_t));
	memset(&st, 0, sizeof(st));
	for (unsigned t = 0; t < TICKS; t++) {
		struct program *cur;
		uint64_t *sw;
		bool bad, hit;

		sampler_tick(r.s);
		cur = sampler_get(r.s);
		ring_read(cur->samples, ring_head(cur->samples), w);
		bad = (w + SW_HDR + cur->ns)[idx / 64] >> (idx % 64) & 1;
		hit = w[SW_FLAGS] & SF_INTERFERENCE;
		if (t >= 1) {	/* the first tick has no deltas */
			invalid += bad;
			interfered += hit;
			/* an invalid series never leaves the sample valid */
			unflagged += bad && (w[SW_FLAGS] & SF_VALID);
		}
		if (t >= TICKS - 4) {
			tail_invalid += bad;
			tail_sum += bad ? 0 : w[SW_HDR + idx];
		}
		last_valid = !bad && !hit;
		sw = calloc(snap_words(cur->ns, cur->nvals), sizeof(uint64_t));
		vals = calloc(cur->nvals + 1, sizeof(double));
		if (!last)	/* one layout per platform and topology */
			last = calloc(cur->nvals + 1, sizeof(double));
		if (metrics_snapshot(cur, sw, &st) == 0) {
			const struct derived_table *tab = r.topo.plat->derived;

			metrics_values(cur, sw, vals);
			/* no derived counter ever goes down */
			for (size_t m = 0; m < tab->nm; m++)
				for (unsigned s = 0; tab->m[m].type == DM_COUNTER &&
				     s < r.topo.nsockets; s++)
					for (unsigned in = 0;
					     in < derive_nper(cur->dplan, m); in++) {
						unsigned i = derive_index(cur->dplan,
									  m, s, in);

						if (isnan(vals[i]))
							continue;
						decreases += vals[i] < last[i];
						last[i] = vals[i];
					}
		}
		free(sw);
		free(vals);
		program_put(cur);
		advance_tick();
	}
	free(w);
	free(last);
	(*cells)++;
	/* 2 failed reads: 1 or 2 invalid deltas, and the read after them
	 * may be a new baseline (a third) */
	ok(!decreases && !unflagged &&
	   ((k == K_EIO && st.hw_errors >= 2 && invalid >= 1 && invalid <= 3 &&
	     last_valid && !interfered) ||
	    (k == K_FOREIGN && st.interference >= 1 && interfered >= 1 &&
	     last_valid) ||
	    /* a reset is no wrap: interference, the delta dropped */
	    (k == K_RESET && st.interference == 1 && interfered == 1 &&
	     invalid == 1 && last_valid) ||
	    (k == K_STUCK && !invalid && !interfered && tail_sum == 0) ||
	    (k == K_MISSING && tail_invalid == 4)),
	   "%s on %s: %u invalid (%u in a valid sample), %u interference, hw errors %" PRIu64
	   ", last 4 ticks: %u invalid, %" PRIu64 " counted; totals down %u",
	   what, tgt, invalid, unflagged, interfered, st.hw_errors, tail_invalid,
	   tail_sum, decreases);
	rig_close(&r);
}

/* Every (kind, space) of series the baseline of plat uses, one each. */
static void matrix(const char *plat, unsigned *cells)
{
	struct rig r;
	struct pmu_slot picked[8];
	const char *unit[8];
	unsigned n = 0;

	if (rig_open(&r, plat, workload(plat, NULL)) < 0) {
		printf("Bail out! %s rig\n", plat);
		exit(1);
	}
	for (unsigned i = 0; i < r.p->ns && n < 8; i++) {
		const struct pmu_slot *sl = &r.p->slot[i];
		const struct unit_type *u = r.topo.plat->units[sl->unit];
		bool seen = false;

		if (sl->socket != 0)
			continue;
		for (unsigned j = 0; j < n; j++)
			seen |= r.topo.plat->units[picked[j].unit]->kind == u->kind &&
				picked[j].ctr.space == sl->ctr.space;
		if (seen)
			continue;
		picked[n] = *sl;
		unit[n++] = u->name;
	}
	rig_close(&r);
	for (unsigned j = 0; j < n; j++)
		for (unsigned k = 0; k < K_N; k++)
			cell(plat, &picked[j], unit[j], (enum kind)k, cells);
}

/*
 * Issue 15 item 4 on hsx: a box that goes missing must not hide a later
 * foreign write to another box from the control check.
 */
static void missing_then_foreign(void)
{
	struct rig r;
	const char *wl;
	char path[300];
	struct json_object *o, *f;
	FILE *fp;
	struct snap st;
	uint64_t *w;

	wl = workload("hsx", "{\"at\":0.1,\"kind\":\"device_missing\","
		      "\"target\":\"pci:ff:14.0\"}");
	o = json_object_from_file(wl);
	json_object_object_get_ex(o, "faults", &f);
	json_object_array_add(f, json_tokener_parse(
		"{\"at\":0.3,\"kind\":\"foreign_write\",\"target\":"
		"\"msr:0xe01\",\"value\":\"0x0\"}"));
	snprintf(path, sizeof(path), "%s/hsx2.json", dir);
	fp = fopen(path, "w");
	fputs(json_object_to_json_string(o), fp);
	fclose(fp);
	json_object_put(o);
	if (rig_open(&r, "hsx", path) < 0) {
		ok(0, "hsx rig");
		return;
	}
	for (unsigned t = 0; t < TICKS; t++) {
		sampler_tick(r.s);
		advance_tick();
	}
	{
		struct program *cur = sampler_get(r.s);

		w = calloc(snap_words(cur->ns, cur->nvals), sizeof(uint64_t));
		metrics_snapshot(cur, w, &st);
		free(w);
		program_put(cur);
	}
	is_u64(st.interference, 1, "hsx: iMC channel 0 missing, then a foreign "
	       "write to CBo 0's control: detected");
	rig_close(&r);
}

/* The delay fault: the next 2 reads of CBo 0's counter take 50 ms more of
 * wall time each, the third does not, and a delayed read still answers
 * the machine's value (the counter keeps counting). */
static double wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void delay_fault(void)
{
	struct hw_opts o = { .sim_platform = "skl" };
	struct hw_addr ctl = hw_msr(0, 0x700), ctr = hw_msr(0, 0x706),
		       g = hw_msr(0, 0xe01);
	double t[4];
	uint64_t v[3];
	struct hw hw;

	o.sim_workload = workload("skl", "{\"at\":0,\"kind\":\"delay\","
				  "\"target\":\"msr:0x706\",\"seconds\":0.05,"
				  "\"count\":2}");
	if (hw_open(&hw, &hw_sim_ops, &o) < 0) {
		ok(0, "delay: %s", hw_last_error());
		return;
	}
	/* CBo 0 counter 0 counts cbo:0x34:0x8f (2.5e7/s in phase 1) */
	hw_write(&hw, &ctl, 0x408f34);
	hw_write(&hw, &g, 1ull << 29);
	t[0] = wall_ms();
	for (int k = 0; k < 3; k++) {
		hw_read(&hw, &ctr, &v[k]);
		t[k + 1] = wall_ms();
	}
	ok(t[1] - t[0] >= 50 && t[2] - t[1] >= 50,
	   "delay: the first two reads take 50 ms more (%.1f, %.1f ms)",
	   t[1] - t[0], t[2] - t[1]);
	ok(t[3] - t[2] < 50, "delay: the third does not (%.1f ms)",
	   t[3] - t[2]);
	ok(v[1] > v[0] && v[2] >= v[1],
	   "delay: the counter counts through the delays (%" PRIu64 ", %"
	   PRIu64 ", %" PRIu64 ")", v[0], v[1], v[2]);
	hw_close(&hw);
}

int main(void)
{
	unsigned cells = 0;
	char cmd[300];

	log_set_level(LOG_LVL_ERR);
	clock_manual_init(&fake, 1000000000000ll);
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	matrix("skl", &cells);
	matrix("hsx", &cells);
	matrix("snbep", &cells);	/* no global control */
	missing_then_foreign();
	delay_fault();
	printf("# %u fault cells run\n", cells);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", dir);
	return tap_done();
}
