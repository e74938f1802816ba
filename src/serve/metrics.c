/*
 * metrics.c - renders the /metrics page (see metrics.h).
 *
 * The names are a contract with dashboards and recording rules
 * (doc/design.md section 7).  The uncore_* families are the platform's
 * derived-metric table (plat.h, src/plat/derived_*.c) rendered as it
 * stands: a value the program does not count, or a gauge whose interval
 * had an invalid delta, is left out rather than exported as a made-up
 * number.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "metrics.h"
#include "core/fexport.h"
#include "procstat.h"
#include "resctrl/resctrl_mon.h"
#include "core/energy.h"
#include "core/throttle.h"
#include "core/ufreq.h"

static const char *const nums[] = {
	"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12",
	"13", "14", "15", "16", "17", "18", "19", "20", "21", "22", "23",
	"24", "25", "26", "27", "28", "29", "30", "31",
};

const char *metrics_num(unsigned n)
{
	return n < sizeof(nums) / sizeof(nums[0]) ? nums[n] : "?";
}

int metrics_snapshot(const struct program *p, uint64_t *words,
		     struct snap *st)
{
	if (!ring_latest(p->snaps, words))
		return -ENOENT;
	memcpy(st, words, sizeof(*st));
	return 0;
}

void metrics_values(const struct program *p, const uint64_t *words,
		    double *vals)
{
	memcpy(vals, words + SNAP_WORDS + 2 * p->ns, p->nvals * sizeof(double));
}

double metrics_value(const struct program *p, const uint64_t *words,
		     const char *name, const char *json, unsigned s,
		     unsigned inst)
{
	int m = derive_find(p->plat, name, json);
	double v;
	unsigned i;

	if (m < 0 || s >= p->topo->nsockets ||
	    inst >= derive_nper(p->dplan, (size_t)m))
		return NAN;
	i = derive_index(p->dplan, (size_t)m, s, inst);
	memcpy(&v, words + SNAP_WORDS + 2 * p->ns + i, sizeof(v));
	return v;
}

/* The labels of one derived value into l (room for 9 entries):
 * socket, the per-instance label, the fixed labels. */
static void derived_labels(const struct derived_metric *dm, unsigned s,
			   unsigned in, char sb[12], char ib[12],
			   const char **l)
{
	unsigned n = 0;

	snprintf(sb, 12, "%u", s);
	l[n++] = "socket";
	l[n++] = sb;
	if (dm->per) {
		snprintf(ib, 12, "%u", in);
		l[n++] = dm->per;
		l[n++] = ib;
	}
	for (unsigned k = 0; k < 2 * DM_MAX_FIXED && dm->fixed[k]; k++)
		l[n++] = dm->fixed[k];
	l[n] = NULL;
}

/* Every family of the platform's derived-metric table; values without
 * a value (NaN) are left out, and a family with none. */
/* ... and where it writes THROTTLE_FAMILY (the PCU's limits), the
 * thermal_throttle/ seconds of th go in it too: true then. */
static bool derived_families(struct prom *w, const struct program *p,
			     const double *v, struct throttle_mon *th)
{
	bool open = false;

	const struct derive_plan *dp = p->dplan;
	const struct derived_table *tab = derive_table(dp);

	for (size_t m = 0, e; m < tab->nm; m = e) {
		const struct derived_metric *dm = &tab->m[m];
		enum prom_type pt = dm->type == DM_COUNTER ? PROM_COUNTER :
				    dm->type == DM_GAUGE ? PROM_GAUGE :
				    PROM_SUMMARY;
		bool any = false;

		for (e = m; e < tab->nm && strcmp(tab->m[e].name, dm->name) == 0;
		     e++)
			for (unsigned s = 0; s < p->topo->nsockets; s++)
				for (unsigned in = 0; in < derive_nper(dp, e); in++)
					any |= !isnan(v[derive_index(dp, e, s, in)]);
		if (!any || dm->json_only)
			continue;
		prom_family(w, dm->name, pt, dm->unit, dm->help);
		if (th && strcmp(dm->name, THROTTLE_FAMILY) == 0) {
			throttle_mon_render_seconds(w, th);
			open = true;
		}
		for (unsigned s = 0; s < p->topo->nsockets; s++)
			for (size_t k = m; k < e; k++)
				for (unsigned in = 0; in < derive_nper(dp, k); in++) {
					double x = v[derive_index(dp, k, s, in)];
					const char *l[2 * (2 + DM_MAX_FIXED) + 1];
					char sb[12], ib[12];

					if (isnan(x))
						continue;
					derived_labels(&tab->m[k], s, in, sb, ib, l);
					/* a summary's _sum and _count of one
					 * label set are adjacent entries */
					/* seconds keep their fractions;
					 * counts and bytes are whole */
					if (tab->m[k].type == DM_COUNTER &&
					    !dm_whole(&tab->m[k]))
						prom_sample_f64(w, NULL, l, x);
					else if (tab->m[k].type == DM_COUNTER)
						prom_sample_u64(w, NULL, l,
								(uint64_t)(x + 0.5));
					else if (tab->m[k].type == DM_COUNT)
						prom_sample_u64(w, "_count", l,
								(uint64_t)(x + 0.5));
					else if (tab->m[k].type == DM_SUM)
						prom_sample_f64(w, "_sum", l, x);
					else
						prom_sample_f64(w, NULL, l, x);
				}
	}
	return open;
}

/* A family with one sample per series, labelled socket/unit/box/event
 * ("box", not "instance": that is Prometheus' target label). */
static void per_series(struct prom *w, const struct program *p,
		       const uint64_t *val, const char *name,
		       enum prom_type type, const char *help)
{
	prom_family(w, name, type, NULL, help);
	for (unsigned i = 0; i < p->ns; i++) {
		const struct pmu_slot *se = &p->slot[i];
		char box[12];
		const char *l[] = {
			"socket", metrics_num(se->socket),
			"unit", p->plat->units[se->unit]->name,
			"box", box,
			"event", p->ev[p->sev[i]].name, NULL,
		};

		/* instances go up to PLAT_MAX_INST, past metrics_num() */
		snprintf(box, sizeof(box), "%u", se->inst);
		prom_sample_u64(w, NULL, l, val[i]);
	}
}

static bool uncore_families(struct prom *w, const struct program *p,
			    const double *vals, const uint64_t *totals,
			    const uint64_t *up, struct throttle_mon *th)
{
	bool open = derived_families(w, p, vals, th);

	if (p->ns) {
		per_series(w, p, totals, "uncore_event_total", PROM_COUNTER,
			   "Every baseline event, raw, per unit instance "
			   "(box).");
		per_series(w, p, up, "uncored_series_up", PROM_GAUGE,
			   "1 if the counter's last read succeeded, 0 if it "
			   "failed (its deltas are not counted).");
	}
	return open;
}

/* Where the DRAM families come from (zen4: umc, or df where the kernel
 * has no amd_umc_N), as /api/v1/status "dram" says. */
static void dram_source(struct prom *w, const struct program *p)
{
	struct program_source rd, wr;
	const char *l[] = { "unit", NULL, "turns", NULL, NULL };

	if (!program_dram(p, &rd, &wr))
		return;
	l[1] = rd.unit->name;
	l[3] = rd.turns || wr.turns ? "true" : "false";
	prom_family(w, "uncored_dram_source_info", PROM_INFO, NULL,
		    "The unit the DRAM families count on (zen4: umc through "
		    "amd_umc_N, else df, the data fabric) and whether its "
		    "events take turns on the counters.");
	prom_sample_u64(w, NULL, l, 1);
}

#define SELF(name, type, help, val)                                     \
	do {                                                            \
		prom_family(w, name, type, NULL, help);                 \
		prom_sample_u64(w, NULL, NULL, val);                    \
	} while (0)

/* The perf backend's costs and what it met. */
static void perf_families(struct prom *w, const struct snap *st)
{
	SELF("uncored_perf_groups", PROM_GAUGE,
	     "Event groups open in the kernel (one per kernel box "
	     "counted).", st->perf_groups);
	SELF("uncored_perf_group_reads_total", PROM_COUNTER,
	     "Group reads (one read(2) each).", st->perf_reads);
	SELF("uncored_perf_read_errors_total", PROM_COUNTER,
	     "Group reads that failed (their series count nothing "
	     "that interval).", st->perf_read_errors);
	SELF("uncored_perf_open_errors_total", PROM_COUNTER,
	     "Event groups the kernel refused to open.",
	     st->perf_open_errors);
	SELF("uncored_perf_multiplexed_reads_total", PROM_COUNTER,
	     "Group reads whose group another perf user made the "
	     "kernel multiplex (time_running < time_enabled): their "
	     "deltas are scaled estimates.", st->perf_scaled);
	SELF("uncored_perf_scaled_samples_total", PROM_COUNTER,
	     "Samples with a baseline delta scaled because of such "
	     "multiplexing (flagged \"scaled\" in /api/v1/samples).",
	     st->perf_scaled_samples);
}

/* The baseline's service, its groups and where DRAM comes from. */
static void baseline_families(struct prom *w, const struct program *p,
			      const struct snap *st)
{
	prom_family(w, "uncored_baseline_enabled_seconds_total", PROM_COUNTER,
		    "seconds", "Time the baseline wanted its counters.");
	prom_sample_f64(w, NULL, NULL, (double)st->base_enabled_ns / 1e9);
	prom_family(w, "uncored_baseline_running_seconds_total", PROM_COUNTER,
		    "seconds", "Time the baseline's programmable counters were "
		    "counting (less than enabled while claims are multiplexed in; "
		    "its events in turn, if any, not included).");
	prom_sample_f64(w, NULL, NULL, (double)st->base_running_ns / 1e9);
	prom_family(w, "uncored_baseline_running_ratio", PROM_GAUGE, NULL,
		    "Share of the time the baseline's programmable counters "
		    "were counting (below 1 while claims are multiplexed in).");
	prom_sample_f64(w, NULL, NULL, st->base_enabled_ns
			? (double)st->base_running_ns / (double)st->base_enabled_ns
			: 1.0);
	prom_family(w, "uncored_baseline_groups", PROM_GAUGE, NULL,
		    "Groups the baseline's events are split into: 1, or more "
		    "when some do not fit their unit's counters together and "
		    "take turns, one interval each (zen4's data fabric DRAM "
		    "events).");
	prom_sample_u64(w, NULL, NULL, p->ngroups);
	dram_source(w, p);
}

static void self_families(struct prom *w, const struct program *p,
			  const struct snap *st,
			  const struct metrics_info *info)
{
	const char *bl[] = { "version", info->version,
			     "revision", info->revision ? info->revision : "",
			     "build_date", info->build_date ? info->build_date : "",
			     "platform", p->plat->id, "backend", info->backend,
			     "simulated", info->simulated ? "true" : "false",
			     NULL };
	uint64_t cum[TICK_BUCKETS], c = 0;

	prom_family(w, "uncored_build_info", PROM_INFO, NULL,
		    "Version, git revision, build date, platform, backend "
		    "(direct: the daemon programs the registers; perf: the "
		    "kernel's uncore PMUs) and whether it runs on the "
		    "simulator.");
	prom_sample_u64(w, NULL, bl, 1);
	/* 0, with uncored_counting_unavailable_info, only in unavail.c */
	prom_family(w, "uncored_counting_available", PROM_GAUGE, "",
		    "1 when the daemon counts uncore events, 0 when it found "
		    "no way to any uncore counter and only serves the reason "
		    "([daemon] unavailable = serve).");
	prom_sample_u64(w, NULL, NULL, 1);
	SELF("uncored_ticks_total", PROM_COUNTER, "Sampler ticks.", st->ticks);
	SELF("uncored_tick_overruns_total", PROM_COUNTER,
	     "Ticks missed because a tick ran past the next deadline.",
	     st->overruns);
	SELF("uncored_hw_reads_total", PROM_COUNTER,
	     "Hardware register reads (MSR, PCI config, MMIO).", st->hw_reads);
	SELF("uncored_hw_writes_total", PROM_COUNTER,
	     "Hardware register writes.", st->hw_writes);
	SELF("uncored_hw_errors_total", PROM_COUNTER,
	     "Hardware register accesses that failed.", st->hw_errors);
	SELF("uncored_interference_total", PROM_COUNTER,
	     "Times another agent was found to have changed the PMU's "
	     "control registers.", st->interference);
	SELF("uncored_wraps_total", PROM_COUNTER,
	     "Counter wrap-arounds seen while extending to 64 bits.",
	     st->wraps);
	SELF("uncored_invalid_samples_total", PROM_COUNTER,
	     "Samples with at least one delta marked invalid (read error, "
	     "interference, first sample).", st->invalid_samples);
	SELF("uncored_window_uncertain_total", PROM_COUNTER,
	     "Samples whose counting window is uncertain beyond 1 % of "
	     "itself (counted_err_s: half of each of the two writes that "
	     "bound it); their rates stand as the best estimate.",
	     st->window_uncertain);
	SELF("uncored_multiplex_switches_total", PROM_COUNTER,
	     "Times a claim was scheduled onto counters after being off them.",
	     st->switches);
	baseline_families(w, p, st);
	SELF("uncored_pmu_owned", PROM_GAUGE,
	     "1 while the daemon holds the PMU, 0 after yielding it.",
	     st->owned);
	SELF("uncored_ring_capacity", PROM_GAUGE,
	     "Samples the ring buffer holds.", ring_capacity(p->samples));
	SELF("uncored_ring_samples", PROM_GAUGE,
	     "Samples currently in the ring buffer.",
	     ring_head(p->samples) ? ring_head(p->samples) -
				     ring_tail(p->samples) + 1 : 0);
	SELF("uncored_scrapes_total", PROM_COUNTER, "Scrapes of /metrics.",
	     info->scrapes);
	if (!strcmp(info->backend, "perf"))
		perf_families(w, st);
#undef SELF
	prom_family(w, "uncored_interval_seconds", PROM_GAUGE, NULL,
		    "Configured sampling interval.");
	prom_sample_f64(w, NULL, NULL, info->interval_ms / 1000.0);
	prom_family(w, "uncored_last_tick_timestamp_seconds", PROM_GAUGE, NULL,
		    "Wall-clock time of the last sample.");
	prom_sample_f64(w, NULL, NULL, (double)st->t_ns / 1e9);
	for (unsigned b = 0; b < TICK_BUCKETS; b++)
		cum[b] = (c += st->tick_hist[b]);
	prom_family(w, "uncored_tick_duration_seconds", PROM_HISTOGRAM,
		    "seconds",
		    "Time a sampler tick takes (hardware reads included).");
	prom_histogram(w, NULL, tick_bounds_s, cum, TICK_BUCKETS,
		       (double)st->tick_sum_ns / 1e9, st->tick_count);
}

/* The claim families, from the totals the sampler published. */
static void claim_families(struct prom *w, const struct claims_pub *c)
{
	prom_family(w, "uncored_claims", PROM_GAUGE, NULL,
		    "Live counter claims.");
	prom_sample_u64(w, NULL, NULL, c->live);
	prom_family(w, "uncored_claims_created_total", PROM_COUNTER, NULL,
		    "Counter claims created.");
	prom_sample_u64(w, NULL, NULL, c->created);
	prom_family(w, "uncored_claims_expired_total", PROM_COUNTER, NULL,
		    "Counter claims whose lease ran out.");
	prom_sample_u64(w, NULL, NULL, c->expired);
	if (c->n)
		prom_family(w, "uncore_claim_events_total", PROM_COUNTER, NULL,
			    "Events counted for claims with export: true, "
			    "summed per socket (scaled for the time the claim "
			    "was multiplexed out).");
	for (unsigned i = 0; i < c->n; i++) {
		const struct claim_total *r = &c->row[i];
		const char *l[] = { "claim", r->claim, "event", r->event,
				    "socket", metrics_num((unsigned)r->socket),
				    NULL };

		prom_sample_u64(w, NULL, l, r->est);
	}
}

/* The reasons of enum http_evict, as label values. */
static const char *const evict_reasons[HTTP_EVICT_N] = {
	[HTTP_EVICT_REQUEST_DEADLINE] = "request_deadline",
	[HTTP_EVICT_DISPLACED] = "displaced",
	[HTTP_EVICT_WRITE_DEADLINE] = "write_deadline",
	[HTTP_EVICT_REFUSED] = "refused",
};

/* The HTTP server's families: connections, evictions, basic-auth checks. */
static void http_families(struct prom *w, const struct http_stats *h)
{
	const char *acc[] = { "result", "accepted", NULL };
	const char *ref[] = { "result", "refused", NULL };
	static const char *const kind[2] = { "tcp", "control" };

	prom_family(w, "uncored_http_connections", PROM_GAUGE, NULL,
		    "HTTP connections open when the page was rendered, on the "
		    "TCP listeners and on the control socket (each has its own "
		    "budget), by state: reading a request or idle, writing an "
		    "answer, or stalled (an answer without progress for a "
		    "second).");
	for (unsigned i = 0; i < 2; i++) {
		const char *r[] = { "listener", kind[i], "state", "reading",
				    NULL };
		const char *wr[] = { "listener", kind[i], "state", "writing",
				     NULL };
		const char *st[] = { "listener", kind[i], "state", "stalled",
				     NULL };

		prom_sample_u64(w, NULL, r, h->reading[i]);
		prom_sample_u64(w, NULL, wr, h->writing[i]);
		prom_sample_u64(w, NULL, st, h->stalled[i]);
	}
	prom_family(w, "uncored_http_evictions_total", PROM_COUNTER, NULL,
		    "Connections the daemon closed itself: request_deadline "
		    "(request incomplete after timeout_s), displaced (the "
		    "oldest incomplete, idle or stalled one at a connection "
		    "limit), write_deadline (answer drained too slowly), "
		    "refused (a new one at a limit with nothing to displace).");
	for (unsigned r = 0; r < HTTP_EVICT_N; r++) {
		const char *l[] = { "reason", evict_reasons[r], NULL };

		prom_sample_u64(w, NULL, l, h->evicted[r]);
	}
	prom_family(w, "uncored_http_control_busy_total", PROM_COUNTER, NULL,
		    "Requests on the control socket answered 503 busy, not "
		    "carried out: their connection was over the control "
		    "budget or its uid's share, with none to displace.");
	prom_sample_u64(w, NULL, NULL, h->busy);

	prom_family(w, "uncored_http_auth_checks_total", PROM_COUNTER, NULL,
		    "bcrypt checks of basic-auth credentials the daemon did "
		    "not remember, by verdict.");
	prom_sample_u64(w, NULL, acc, h->auth_accepted);
	prom_sample_u64(w, NULL, ref, h->auth_refused);
	prom_family(w, "uncored_http_auth_cpu_seconds_total", PROM_COUNTER,
		    "seconds", "CPU time the bcrypt checks took.");
	prom_sample_f64(w, NULL, NULL, (double)h->auth_cpu_ns / 1e9);
	prom_family(w, "uncored_http_auth_busy_total", PROM_COUNTER, NULL,
		    "New basic-auth credentials answered 503 without a check "
		    "(over the bcrypt budget, or the queue full).");
	prom_sample_u64(w, NULL, NULL, h->auth_busy);
	prom_family(w, "uncored_http_auth_pending", PROM_GAUGE, NULL,
		    "bcrypt checks waiting or running when the page was "
		    "rendered.");
	prom_sample_u64(w, NULL, NULL, h->auth_pending);
}

/*
 * The formulas of [formulas] export, one gauge family each, over the
 * newest sample's interval: per socket, or per box (labels socket and
 * box) for a box chapter's formula of one unit (doc/formulas.md).  A value without a value (NaN)
 * is left out, and a family with none.
 */
static void formula_families(struct prom *w, const struct program *p)
{
	const struct fexport *fx = p->fx;
	uint64_t *sample;
	double *val, *box;

	if (!fx || !fx->n)
		return;
	sample = calloc(sample_words(p->ns), sizeof(*sample));
	val = calloc(p->topo->nsockets, sizeof(*val));
	box = calloc((size_t)p->topo->nsockets * PLAT_MAX_INST, sizeof(*box));
	if (!sample || !val || !box || !ring_latest(p->samples, sample)) {
		free(sample);
		free(val);
		free(box);
		return;
	}
	for (unsigned i = 0; i < fx->n; i++) {
		const struct fexport_item *it = &fx->it[i];
		bool any = false, per_box = it->unit_of_boxes >= 0;

		fexport_values(fx, i, p, sample, val, box);
		for (unsigned s = 0; s < p->topo->nsockets; s++)
			any |= isfinite(val[s]);
		if (!any)
			continue;
		prom_family(w, it->family, PROM_GAUGE, it->unit, it->help);
		for (unsigned s = 0; s < p->topo->nsockets; s++) {
			char bb[12];
			const char *l[] = { "socket", metrics_num(s), "box", bb,
					    NULL };

			if (!per_box && isfinite(val[s])) {
				l[2] = NULL;
				prom_sample_f64(w, NULL, l, val[s]);
				l[2] = "box";
			}
			for (unsigned b = 0; per_box && b < PLAT_MAX_INST; b++) {
				double x = box[s * PLAT_MAX_INST + b];

				if (!isfinite(x))
					continue;
				snprintf(bb, sizeof(bb), "%u", b);
				prom_sample_f64(w, NULL, l, x);
			}
		}
	}
	free(sample);
	free(val);
	free(box);
}

int metrics_render(struct buf *b, enum prom_fmt fmt, const struct program *p,
		   const struct metrics_info *info)
{
	uint64_t *words = calloc(snap_words(p->ns, p->nvals), sizeof(uint64_t));
	double *vals = calloc(p->nvals + 1, sizeof(double));
	struct snap st;
	struct procstat ps;
	struct prom w;
	bool open;
	int r;

	if (!words || !vals) {
		free(words);
		free(vals);
		return -ENOMEM;
	}
	prom_begin(&w, b, fmt);
	if (metrics_snapshot(p, words, &st) < 0) {
		memset(&st, 0, sizeof(st));
		memset(words, 0, snap_words(p->ns, p->nvals) * sizeof(uint64_t));
		for (unsigned i = 0; i < p->nvals; i++)
			vals[i] = NAN;
	} else {
		metrics_values(p, words, vals);
	}
	open = uncore_families(&w, p, vals, words + SNAP_WORDS,
			       words + SNAP_WORDS + p->ns, info->throttle);
	formula_families(&w, p);
	self_families(&w, p, &st, info);
	if (info->claims)
		claim_families(&w, info->claims);
	if (info->http)
		http_families(&w, info->http);
	if (info->resctrl)
		rdt_mon_render(&w, info->resctrl);
	if (info->ufreq)
		ufreq_mon_render(&w, info->ufreq);
	if (info->energy)
		energy_mon_render(&w, info->energy);
	if (info->throttle)
		throttle_mon_render(&w, info->throttle, open);
	procstat_read(&ps);	/* renders whatever could be read */
	procstat_render(&w, &ps);
	r = prom_end(&w);
	free(words);
	free(vals);
	if (b->oom)
		return -ENOMEM;
	if (r == -EINVAL)	/* a refused name: a bug, but the rest is valid */
		log_warnx("/metrics: a family or sample was refused by the "
			  "exposition writer");
	return r == -EINVAL ? 0 : r;
}
