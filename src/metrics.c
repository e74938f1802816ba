/*
 * metrics.c - renders the /metrics page (see metrics.h).
 *
 * The names are a contract with dashboards and recording rules
 * (DESIGN.md section 7): counters in base units ending in _total, gauges
 * for the last interval.  A quantity the program does not count, or a
 * gauge whose interval had an invalid delta, is left out rather than
 * exported as a made-up number.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "metrics.h"
#include "procstat.h"

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

/* A quantity's per-socket counter family. */
static void qty_counter(struct prom *w, const struct program *p,
			const struct snap *st, enum plat_qty q,
			const char *name, const char *help)
{
	if (!(st->qty_present >> q & 1))
		return;
	prom_family(w, name, PROM_COUNTER, NULL, help);
	for (unsigned s = 0; s < p->topo->nsockets; s++) {
		const char *l[] = { "socket", metrics_num(s), NULL };

		prom_sample_u64(w, NULL, l, st->qty[s][q]);
	}
}

/* A per-socket gauge family; sockets without a value are left out. */
static void gauge(struct prom *w, const struct program *p,
		  const struct snap *st, enum gauge g, const char *name,
		  const char *help)
{
	bool any = false;

	for (unsigned s = 0; s < p->topo->nsockets; s++)
		any |= !isnan(st->gauge[s][g]);
	if (!any)
		return;
	prom_family(w, name, PROM_GAUGE, NULL, help);
	for (unsigned s = 0; s < p->topo->nsockets; s++) {
		const char *l[] = { "socket", metrics_num(s), NULL };

		if (!isnan(st->gauge[s][g]))
			prom_sample_f64(w, NULL, l, st->gauge[s][g]);
	}
}

/* A family with one sample per series, labelled socket/unit/instance/event. */
static void per_series(struct prom *w, const struct program *p,
		       const uint64_t *val, const char *name,
		       enum prom_type type, const char *help)
{
	prom_family(w, name, type, NULL, help);
	for (unsigned i = 0; i < p->ns; i++) {
		const struct pmu_slot *se = &p->slot[i];
		const char *l[] = {
			"socket", metrics_num(se->socket),
			"unit", p->plat->units[se->unit]->name,
			"instance", metrics_num(se->inst),
			"event", p->ev[p->sev[i]].name, NULL,
		};

		prom_sample_u64(w, NULL, l, val[i]);
	}
}

bool metrics_per_inst(const struct program *p, const uint64_t *val,
		      const uint64_t *invalid, enum plat_qty q,
		      uint64_t out[PLAT_MAX_SOCKETS][PLAT_MAX_INST],
		      struct inst_set seen[PLAT_MAX_SOCKETS],
		      struct inst_set bad[PLAT_MAX_SOCKETS])
{
	if (p->qty_ev[q] < 0)
		return false;
	for (unsigned i = 0; i < p->ns; i++) {
		unsigned sk = p->slot[i].socket, in = p->slot[i].inst;

		if (p->sev[i] != p->qty_ev[q] || in >= PLAT_MAX_INST)
			continue;
		iset_add(&seen[sk], in);
		if (invalid && (invalid[i / 64] >> (i % 64) & 1))
			iset_add(&bad[sk], in);
		else
			out[sk][in] += val[i] * p->qty_scale[q];
	}
	return true;
}

/* A per-socket counter family whose quantities carry a label value. */
struct labelled_q {
	enum plat_qty q;
	const char *const *labels;	/* name/value pairs after socket */
};

static void labelled_counter(struct prom *w, const struct program *p,
			     const struct snap *st, const char *name,
			     const char *help, const struct labelled_q *v,
			     unsigned n)
{
	bool any = false;

	for (unsigned k = 0; k < n; k++)
		any |= st->qty_present >> v[k].q & 1;
	if (!any)
		return;
	prom_family(w, name, PROM_COUNTER, NULL, help);
	for (unsigned s = 0; s < p->topo->nsockets; s++)
		for (unsigned k = 0; k < n; k++) {
			const char *l[8] = { "socket", metrics_num(s) };
			unsigned j = 2;

			if (!(st->qty_present >> v[k].q & 1))
				continue;
			for (const char *const *x = v[k].labels; *x && j < 6; x++)
				l[j++] = *x;
			l[j] = NULL;
			prom_sample_u64(w, NULL, l, st->qty[s][v[k].q]);
		}
}

/* The per-instance series ("channel", "port") of quantity q, added to
 * the current family. */
static void inst_samples(struct prom *w, const struct program *p,
			 const uint64_t *totals, enum plat_qty q)
{
	uint64_t v[PLAT_MAX_SOCKETS][PLAT_MAX_INST] = { { 0 } };
	struct inst_set seen[PLAT_MAX_SOCKETS] = { { { 0 } } };
	const char *label = NULL;

	for (size_t k = 0; k < p->plat->nqty; k++)
		if (p->plat->qty[k].q == q)
			label = p->plat->qty[k].inst_label;
	if (!label || !metrics_per_inst(p, totals, NULL, q, v, seen, NULL))
		return;
	for (unsigned s = 0; s < p->topo->nsockets; s++)
		for (unsigned i = 0; i < PLAT_MAX_INST; i++) {
			const char *l[] = { "socket", metrics_num(s), label,
					    metrics_num(i), NULL };

			if (iset_has(&seen[s], i))
				prom_sample_u64(w, NULL, l, v[s][i]);
		}
}

static void uncore_families(struct prom *w, const struct program *p,
			    const struct snap *st, const uint64_t *totals,
			    const uint64_t *up)
{
	unsigned ns = p->topo->nsockets;

	qty_counter(w, p, st, Q_LLC_LOOKUPS, "uncore_llc_lookups_total",
		    "LLC lookups, summed over the LLC slices.");
	qty_counter(w, p, st, Q_LLC_MISSES, "uncore_llc_misses_total",
		    "LLC lookups that missed (found the line invalid).");
	gauge(w, p, st, G_LLC_HIT_RATIO, "uncore_llc_hit_ratio",
	      "1 - misses/lookups over the last sampling interval.");
	qty_counter(w, p, st, Q_DRAM_READ_BYTES, "uncore_dram_read_bytes_total",
		    "Bytes read from DRAM (64 per transfer); per socket, and "
		    "per memory channel where the platform has them.");
	inst_samples(w, p, totals, Q_DRAM_READ_BYTES);
	qty_counter(w, p, st, Q_DRAM_WRITE_BYTES,
		    "uncore_dram_write_bytes_total",
		    "Bytes written to DRAM (64 per transfer); per socket, and "
		    "per memory channel where the platform has them.");
	inst_samples(w, p, totals, Q_DRAM_WRITE_BYTES);
	if (!isnan(st->gauge[0][G_DRAM_READ_BPS]) ||
	    !isnan(st->gauge[0][G_DRAM_WRITE_BPS])) {
		prom_family(w, "uncore_dram_bandwidth_bytes_per_second",
			    PROM_GAUGE, NULL,
			    "DRAM bandwidth over the last sampling interval.");
		for (unsigned s = 0; s < ns; s++) {
			const char *r[] = { "socket", metrics_num(s),
					    "direction", "read", NULL };
			const char *wr[] = { "socket", metrics_num(s),
					     "direction", "write", NULL };

			if (!isnan(st->gauge[s][G_DRAM_READ_BPS]))
				prom_sample_f64(w, NULL, r,
						st->gauge[s][G_DRAM_READ_BPS]);
			if (!isnan(st->gauge[s][G_DRAM_WRITE_BPS]))
				prom_sample_f64(w, NULL, wr,
						st->gauge[s][G_DRAM_WRITE_BPS]);
		}
	}
	if (st->qty_present & ((1ull << Q_DRAM_REQ_IA) | (1ull << Q_DRAM_REQ_GT) |
			       (1ull << Q_DRAM_REQ_IO))) {
		static const struct { enum plat_qty q; const char *src; } rq[] = {
			{ Q_DRAM_REQ_IA, "ia" }, { Q_DRAM_REQ_GT, "gt" },
			{ Q_DRAM_REQ_IO, "io" },
		};

		prom_family(w, "uncore_dram_requests_total", PROM_COUNTER, NULL,
			    "Requests entering the memory controller, by "
			    "source (IA cores, GT graphics, IO).");
		for (unsigned s = 0; s < ns; s++)
			for (unsigned k = 0; k < 3; k++) {
				const char *l[] = { "socket", metrics_num(s),
						    "source", rq[k].src, NULL };

				if (st->qty_present >> rq[k].q & 1)
					prom_sample_u64(w, NULL, l,
							st->qty[s][rq[k].q]);
			}
	}
	qty_counter(w, p, st, Q_CLOCK_TICKS, "uncore_clock_ticks_total",
		    "Uncore clock (UCLK) cycles, from the fixed counter.");
	gauge(w, p, st, G_CLOCK_HZ, "uncore_clock_hertz",
	      "Uncore clock frequency over the last sampling interval.");
	qty_counter(w, p, st, Q_ARB_REQUESTS, "uncore_arb_requests_total",
		    "Requests allocated in the ARB tracker (coherent and "
		    "non-coherent).");
	qty_counter(w, p, st, Q_ARB_OCCUPANCY,
		    "uncore_arb_occupancy_cycles_total",
		    "Sum over cycles of the ARB tracker entries outstanding.");
	gauge(w, p, st, G_ARB_OCCUPANCY_AVG, "uncore_arb_occupancy_average",
	      "Average outstanding ARB requests per uncore cycle over the "
	      "last sampling interval.");

	/* hsx: QPI, HA, PCU */
	if (st->qty_present >> Q_QPI_DATA_BYTES & 1) {
		uint64_t d[PLAT_MAX_SOCKETS][PLAT_MAX_INST] = { { 0 } };
		uint64_t n[PLAT_MAX_SOCKETS][PLAT_MAX_INST] = { { 0 } };
		struct inst_set seen[PLAT_MAX_SOCKETS] = { { { 0 } } };
		struct inst_set nseen[PLAT_MAX_SOCKETS] = { { { 0 } } };
		bool nd = metrics_per_inst(p, totals, NULL, Q_QPI_NONDATA_BYTES, n,
					   nseen, NULL);

		metrics_per_inst(p, totals, NULL, Q_QPI_DATA_BYTES, d, seen, NULL);
		prom_family(w, "uncore_qpi_data_bytes_total", PROM_COUNTER, NULL,
			    "QPI data sent, per port: data flits x 8 bytes "
			    "(manual 2.9.5 QPI_DATA_BW).");
		for (unsigned s = 0; s < p->topo->nsockets; s++)
			for (unsigned i = 0; i < PLAT_MAX_INST; i++) {
				const char *l[] = { "socket", metrics_num(s), "port",
						    metrics_num(i), NULL };

				if (iset_has(&seen[s], i))
					prom_sample_u64(w, NULL, l, d[s][i]);
			}
		if (nd) {
			prom_family(w, "uncore_qpi_link_bytes_total", PROM_COUNTER,
				    NULL, "QPI link traffic sent, per port: data "
				    "and non-data flits x 8 bytes (QPI_LINK_BW).");
			for (unsigned s = 0; s < p->topo->nsockets; s++)
				for (unsigned i = 0; i < PLAT_MAX_INST; i++) {
					const char *l[] = { "socket", metrics_num(s),
							    "port", metrics_num(i), NULL };

					if (iset_has(&seen[s], i))
						prom_sample_u64(w, NULL, l,
								d[s][i] + n[s][i]);
				}
		}
	}
	{
		static const char *const rl[] = { "type", "read", "locality", "local", NULL };
		static const char *const rr[] = { "type", "read", "locality", "remote", NULL };
		static const char *const wl[] = { "type", "write", "locality", "local", NULL };
		static const char *const wr[] = { "type", "write", "locality", "remote", NULL };
		/* snbep counts requests without their locality */
		static const char *const ra[] = { "type", "read", "locality", "any", NULL };
		static const char *const wa[] = { "type", "write", "locality", "any", NULL };
		static const struct labelled_q ha[] = {
			{ Q_HA_READS_LOCAL, rl }, { Q_HA_READS_REMOTE, rr },
			{ Q_HA_WRITES_LOCAL, wl }, { Q_HA_WRITES_REMOTE, wr },
			{ Q_HA_READS, ra }, { Q_HA_WRITES, wa },
		};
		static const char *const c3[] = { "state", "core_c3", NULL };
		static const char *const c6[] = { "state", "core_c6", NULL };
		static const char *const p3[] = { "state", "package_c3", NULL };
		static const char *const p2[] = { "state", "package_c2", NULL };
		static const char *const p6[] = { "state", "package_c6", NULL };
		static const struct labelled_q cs[] = {
			{ Q_PCU_CORE_C3, c3 }, { Q_PCU_CORE_C6, c6 },
			{ Q_PCU_PKG_C3, p3 }, { Q_PCU_PKG_C2, p2 },
			{ Q_PCU_PKG_C6, p6 },
		};
		static const char *const b0[] = { "band", "0", NULL };
		static const char *const b1[] = { "band", "1", NULL };
		static const char *const b2[] = { "band", "2", NULL };
		static const char *const b3[] = { "band", "3", NULL };
		static const struct labelled_q fb[] = {
			{ Q_PCU_BAND0, b0 }, { Q_PCU_BAND1, b1 },
			{ Q_PCU_BAND2, b2 }, { Q_PCU_BAND3, b3 },
		};

		labelled_counter(w, p, st, "uncore_ha_requests_total",
				 "Home agent requests by type and by locality "
				 "(from this socket or a remote one; \"any\" where "
				 "the platform does not tell them apart).", ha, 6);
		labelled_counter(w, p, st, "uncore_pcu_cstate_residency_cycles_total",
				 "Cycles the package (package_*) was in the C-state, "
				 "or the socket's cores (core_*) were, summed over "
				 "its cores (PCU free-running counters).", cs, 5);
		labelled_counter(w, p, st, "uncore_pcu_frequency_band_cycles_total",
				 "Cycles the uncore frequency was at or above the "
				 "band's threshold (bands 1.2, 2.0, 2.8, 3.6 GHz "
				 "in the default baseline).", fb, 4);
	}

	if (p->ns) {
		per_series(w, p, totals, "uncore_event_total", PROM_COUNTER,
			   "Every baseline event, raw, per unit instance.");
		per_series(w, p, up, "uncored_series_up", PROM_GAUGE,
			   "1 if the counter's last read succeeded, 0 if it "
			   "failed (its deltas are not counted).");
	}
}

static void self_families(struct prom *w, const struct program *p,
			  const struct snap *st,
			  const struct metrics_info *info)
{
	const char *bl[] = { "version", info->version,
			     "revision", info->revision ? info->revision : "",
			     "build_date", info->build_date ? info->build_date : "",
			     "platform", p->plat->id, "backend", info->backend,
			     NULL };
	uint64_t cum[TICK_BUCKETS], c = 0;

	prom_family(w, "uncored_build_info", PROM_INFO, NULL,
		    "Version, git revision, build date, platform and hardware "
		    "backend of this daemon.");
	prom_sample_u64(w, NULL, bl, 1);
#define SELF(name, type, help, val)                                     \
	do {                                                            \
		prom_family(w, name, type, NULL, help);                 \
		prom_sample_u64(w, NULL, NULL, val);                    \
	} while (0)
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
	SELF("uncored_multiplex_switches_total", PROM_COUNTER,
	     "Times a claim was scheduled onto counters after being off them.",
	     st->switches);
	prom_family(w, "uncored_baseline_enabled_seconds_total", PROM_COUNTER,
		    "seconds", "Time the baseline wanted its counters.");
	prom_sample_f64(w, NULL, NULL, (double)st->base_enabled_ns / 1e9);
	prom_family(w, "uncored_baseline_running_seconds_total", PROM_COUNTER,
		    "seconds", "Time the baseline's programmable counters were "
		    "counting (less than enabled while claims are multiplexed in).");
	prom_sample_f64(w, NULL, NULL, (double)st->base_running_ns / 1e9);
	prom_family(w, "uncored_baseline_running_ratio", PROM_GAUGE, NULL,
		    "Share of the time the baseline's programmable counters "
		    "were counting (below 1 while claims are multiplexed in).");
	prom_sample_f64(w, NULL, NULL, st->base_enabled_ns
			? (double)st->base_running_ns / (double)st->base_enabled_ns
			: 1.0);
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

int metrics_render(struct buf *b, enum prom_fmt fmt, const struct program *p,
		   const struct metrics_info *info)
{
	uint64_t *words = calloc(snap_words(p->ns), sizeof(uint64_t));
	struct snap st;
	struct procstat ps;
	struct prom w;
	int r;

	if (!words)
		return -ENOMEM;
	prom_begin(&w, b, fmt);
	if (metrics_snapshot(p, words, &st) < 0) {
		memset(&st, 0, sizeof(st));
		for (unsigned s = 0; s < PLAT_MAX_SOCKETS; s++)
			for (unsigned g = 0; g < G_COUNT; g++)
				st.gauge[s][g] = NAN;
		memset(words, 0, snap_words(p->ns) * sizeof(uint64_t));
	}
	uncore_families(&w, p, &st, words + SNAP_WORDS,
			words + SNAP_WORDS + p->ns);
	self_families(&w, p, &st, info);
	if (info->claims)
		claim_families(&w, info->claims);
	procstat_read(&ps);	/* renders whatever could be read */
	procstat_render(&w, &ps);
	r = prom_end(&w);
	free(words);
	if (b->oom)
		return -ENOMEM;
	if (r == -EINVAL)	/* a refused name: a bug, but the rest is valid */
		log_warnx("/metrics: a family or sample was refused by the "
			  "exposition writer");
	return r == -EINVAL ? 0 : r;
}
