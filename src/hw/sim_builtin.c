/*
 * sim_builtin.c - the simulator's built-in workloads (wl_builtin()): what
 * `uncored --simulate` counts without --workload.  Every catalog event of
 * the platform gets a plausible, slowly varying rate, generated from the
 * catalog (so new events get one too), with the headline events
 * consistent with each other.  Split out of sim_workload.c, which parses
 * workload files; both fill the same struct workload.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/sim_workload.h"
#include "sched.h"	/* event modifiers, as the daemon reads them */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the built-in workload ------------------------------------------- */

/*
 * The built-in skl workload: twelve 10-second phases in which the load
 * follows 1 + 0.25 sin and the LLC miss fraction 10% x (1 + 0.2 cos), so
 * every counter moves and the derived metrics (hit ratio, bandwidth)
 * drift slowly.  Each catalog event's rate is a fixed fraction of one of
 * a few per-phase quantities, which keeps the headline events consistent
 * with each other (lookups = reads + writes, the states add up to at most
 * all lookups, misses drive ARB requests and DRAM traffic, ARB cycle
 * counts stay below the uncore clock).  An event this table does not
 * name still gets a small rate of its unit's base quantity.
 */
enum bq { BQ_LOOKUP, BQ_MISS, BQ_ARBREQ, BQ_ARBOCC, BQ_DRAM };

static const struct bi_rate {
	const char *name;	/* catalog event or free-running counter */
	enum bq base;
	double frac;
} skl_bi_rates[] = {
	/* Table 3-1: lookups by request type and state (of all lookups) */
	{ "UNC_CBO_CACHE_LOOKUP.ANY_MESI", BQ_LOOKUP, 1.0 },
	{ "UNC_CBO_CACHE_LOOKUP.READ_MESI", BQ_LOOKUP, 0.7 },
	{ "UNC_CBO_CACHE_LOOKUP.WRITE_MESI", BQ_LOOKUP, 0.3 },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_ES", BQ_LOOKUP, 0.7 },
	{ "UNC_CBO_CACHE_LOOKUP.READ_ES", BQ_LOOKUP, 0.55 },
	{ "UNC_CBO_CACHE_LOOKUP.WRITE_ES", BQ_LOOKUP, 0.15 },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_M", BQ_LOOKUP, 0.15 },
	{ "UNC_CBO_CACHE_LOOKUP.WRITE_M", BQ_LOOKUP, 0.10 },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_I", BQ_MISS, 1.0 },
	{ "UNC_CBO_CACHE_LOOKUP.READ_I", BQ_MISS, 0.7 },
	{ "UNC_CBO_XSNP_RESPONSE.MISS_XCORE", BQ_LOOKUP, 0.02 },
	{ "UNC_CBO_XSNP_RESPONSE.MISS_EVICTION", BQ_MISS, 0.3 },
	{ "UNC_CBO_XSNP_RESPONSE.HIT_XCORE", BQ_LOOKUP, 0.01 },
	{ "UNC_CBO_XSNP_RESPONSE.HITM_XCORE", BQ_LOOKUP, 0.004 },
	/* Table 3-2: requests follow misses; cycle counts use occupancy */
	{ "UNC_ARB_TRK_REQUESTS.ALL", BQ_ARBREQ, 1.0 },
	{ "UNC_ARB_TRK_REQUESTS.WRITES", BQ_ARBREQ, 0.3 },
	{ "UNC_ARB_COH_TRK_REQUESTS.ALL", BQ_ARBREQ, 0.9 },
	{ "UNC_ARB_TRK_OCCUPANCY.ALL", BQ_ARBOCC, 1.0 },
	{ "UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST", BQ_ARBOCC, 0.6 },
	/* Table 3-3: DRAM reads and writes; requests split by source */
	{ "DRAM_DATA_READS", BQ_MISS, 1.2 },
	{ "DRAM_DATA_WRITES", BQ_MISS, 0.4 },
	{ "DRAM_IA_REQUESTS", BQ_DRAM, 0.92 },
	{ "DRAM_GT_REQUESTS", BQ_DRAM, 0.05 },
	{ "DRAM_IO_REQUESTS", BQ_DRAM, 0.03 },
};

#define BI_PHASES 12
#define BI_PHASE_S 10.0
#define BI_LOOKUPS 1.0e8	/* LLC lookups per second per socket */
#define BI_MISS 0.10		/* of lookups */
#define BI_ARB_PER_MISS 1.2	/* ARB requests per LLC miss */
#define BI_ARB_LAT 30.0		/* UCLK cycles an ARB entry is valid */
#define BI_UCLK 800000000ull

static void bi_base(unsigned p, double q[5])
{
	double a = 2.0 * 3.14159265358979323846 * p / BI_PHASES;
	double lookups = BI_LOOKUPS * (1.0 + 0.25 * sin(a));
	double miss = lookups * BI_MISS * (1.0 + 0.2 * cos(a));

	q[BQ_LOOKUP] = lookups;
	q[BQ_MISS] = miss;
	q[BQ_ARBREQ] = miss * BI_ARB_PER_MISS;
	q[BQ_ARBOCC] = q[BQ_ARBREQ] * BI_ARB_LAT;
	q[BQ_DRAM] = miss * (1.2 + 0.4);	/* DRAM reads + writes */
}

static const struct bi_rate *bi_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(skl_bi_rates); i++)
		if (strcmp(skl_bi_rates[i].name, name) == 0)
			return &skl_bi_rates[i];
	return NULL;
}

/* Adds a key with per-phase rates base[q] * frac unless one like it
 * exists; -ENOMEM on failure. */
static int bi_add(struct workload *w, unsigned cap, const struct wl_key *k,
		  enum bq q, double frac)
{
	for (unsigned i = 0; i < w->nkeys; i++)
		if (wl_key_eq(&w->keys[i], k))
			return 0;
	if (w->nkeys >= cap)
		return -ENOMEM;
	w->keys[w->nkeys] = *k;
	for (unsigned p = 0; p < BI_PHASES; p++) {
		double b[5];

		bi_base(p, b);
		w->rates[(size_t)w->nkeys * BI_PHASES + p] = b[q] * frac;
	}
	w->nkeys++;
	return 0;
}


/*
 * An empty built-in workload of plat with topology *topo and room for cap
 * rate keys over BI_PHASES phases of BI_PHASE_S seconds.  NULL on ENOMEM;
 * the caller frees it with wl_free().
 */
static struct workload *bi_new(const struct platform *plat,
			       const struct wl_topology *topo, unsigned cap)
{
	struct workload *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->source = strdup("(built-in)");
	w->plat = plat;
	w->topo = *topo;
	w->nphases = BI_PHASES;
	w->phase_s = calloc(BI_PHASES, sizeof(*w->phase_s));
	w->keys = calloc(cap + 1, sizeof(*w->keys));
	w->rates = calloc((size_t)(cap + 1) * BI_PHASES, sizeof(*w->rates));
	if (!w->source || !w->phase_s || !w->keys || !w->rates) {
		wl_free(w);
		return NULL;
	}
	for (unsigned p = 0; p < BI_PHASES; p++)
		w->phase_s[p] = BI_PHASE_S;
	w->period_s = BI_PHASES * BI_PHASE_S;
	return w;
}
static int skl_builtin(const struct platform *plat, struct workload **out)
{
	const struct unit_type *imc;
	struct workload *w;
	unsigned cap;
	int imc_idx, r = 0;

	*out = NULL;
	imc = plat_unit(plat, "imc", &imc_idx);
	cap = (unsigned)plat->nevents + (imc ? imc->nfreerun : 0);

	w = bi_new(plat, &(struct wl_topology){ .sockets = 1, .cbo_count = 4,
						.mchbar = 0xfed10001,
						.has_mchbar = true,
						.uclk_hz = BI_UCLK }, cap);
	if (!w)
		return -ENOMEM;

	for (size_t i = 0; i < plat->nevents && r == 0; i++) {
		const struct event *ev = &plat->events[i];
		const struct bi_rate *br = bi_find(ev->name);
		bool cbo = strcmp(ev->unit, "cbo") == 0;
		struct wl_key k = { .socket = -1, .inst = -1 };
		size_t n;

		if (!cbo && strcmp(ev->unit, "arb") != 0)
			continue;
		if (!plat_unit(plat, ev->unit, &k.unit))
			continue;
		k.enc = event_enc_of(ev);
		n = (size_t)snprintf(k.text, sizeof(k.text), "%s:0x%02x:0x%02x",
				     ev->unit, k.enc.code, k.enc.umask);
		if (k.enc.thresh)
			n += (size_t)snprintf(k.text + n, sizeof(k.text) - n,
					      ":thresh=%u", k.enc.thresh);
		if (k.enc.edge)
			n += (size_t)snprintf(k.text + n, sizeof(k.text) - n,
					      ":edge");
		if (k.enc.inv)
			snprintf(k.text + n, sizeof(k.text) - n, ":inv");
		if (br)
			r = bi_add(w, cap, &k, br->base, br->frac);
		else
			r = bi_add(w, cap, &k, cbo ? BQ_LOOKUP : BQ_ARBREQ,
				   cbo ? 0.01 : 0.1);
	}
	for (unsigned i = 0; imc && i < imc->nfreerun && r == 0; i++) {
		const struct bi_rate *br = bi_find(imc->freerun[i].name);
		struct wl_key k = { .socket = -1, .inst = -1, .unit = imc_idx,
				    .freerun = true, .freerun_idx = i };

		snprintf(k.text, sizeof(k.text), "imc:%s", imc->freerun[i].name);
		r = bi_add(w, cap, &k, br ? br->base : BQ_MISS,
			   br ? br->frac : 0.01);
	}
	if (r < 0) {
		wl_free(w);
		return r;
	}
	*out = w;
	return 0;
}

/* ---- the built-in hsx workload --------------------------------------- */

/*
 * The built-in hsx workload: a two-socket Xeon E5 v3 (18 CBos, 4 SBos, 2
 * HAs, 8 channels, 2 QPI ports and R3QPI links per socket; UCLK 2.0 GHz,
 * DCLK 1066.67 MHz) whose load follows the skl built-in's twelve 10-second
 * phases: LLC lookups 1e9/s per socket x (1 + 0.25 sin), misses 10% of
 * them x (1 + 0.2 cos).  Every rate is a fixed fraction of one of a few
 * per-phase quantities (struct hsx_bi_rule), which keeps the headline
 * events consistent:
 *
 *  - LLC_LOOKUP (every unit mask; an EVF_FILTER0 event) has one key per
 *    box-filter value the platform's headline quantities use (their
 *    events' :filter0= modifiers): with FILTER0.state = 0x3F it counts lookups,
 *    with state = I (0x01) misses; with any other FILTER0 value nothing;
 *  - CAS_COUNT.RD = misses, .WR = 0.4 x misses (per socket, split over the
 *    channels), .ALL their sum; HA REQUESTS.READS/WRITES equal them, 80%
 *    local and 20% remote; the remote 20% cross QPI as data flits (8 per
 *    64-byte line, 8 bytes each), sent and received, split over the ports;
 *  - every *CLOCKTICKS event counts its box's clock in every instance
 *    (UCLK; iMC DCLK; PCU 800 MHz, manual 2.8.7 CLOCKTICKS; QPI 2.4 GHz,
 *    a quarter of 9.6 GT/s), the PCU occupancy events count 12 / 1 / 5
 *    of 18 cores in C0 / C3 / C6 per PCU clock, the frequency-band
 *    events 90 / 60 / 30 / 5% of it (whatever the band filter holds),
 *    and the free-running C-state residency counters fractions of a
 *    2.3 GHz TSC;
 *  - any other event gets a small fraction of its box's clock (struct
 *    hsx_bi_unit), below one per cycle.
 */
enum hq {
	HQ_LOOKUP, HQ_MISS, HQ_DRAM_RD, HQ_DRAM_WR, HQ_DRAM_ALL, HQ_QPI_DATA,
	HQ_UCLK, HQ_DCLK, HQ_PCLK, HQ_QCLK, HQ_TSC, HQ_N
};

#define HSX_BI_LOOKUPS 1.0e9	/* LLC lookups per second per socket */
#define HSX_BI_MISS 0.10	/* of lookups */
#define HSX_BI_WR 0.4		/* DRAM writes per read */
#define HSX_BI_REMOTE 0.2	/* of HA requests */
#define HSX_BI_FLITS 8.0	/* QPI data flits per 64-byte line */
#define HSX_BI_UCLK 2000000000ull
#define HSX_BI_DCLK 1066666667ull
#define HSX_BI_PCLK 8.0e8	/* manual 2.8.7 CLOCKTICKS: fixed 800 MHz */
#define HSX_BI_QCLK 2.4e9	/* 9.6 GT/s / 4 (2.9.6 CLOCKTICKS) */
#define HSX_BI_TSC 2.3e9

static const struct hsx_bi_rule {
	const char *name;	/* catalog event or free-running counter */
	enum hq base;
	double frac;
	bool per_inst;		/* frac x base in every instance */
} hsx_bi_rules[] = {
	/* CBo (2.3.6): LLC_LOOKUP by request type, of lookups / misses
	 * according to FILTER0 (see above); victims follow misses */
	{ "UNC_C_LLC_LOOKUP.ANY", HQ_LOOKUP, 1.0, false },
	{ "UNC_C_LLC_LOOKUP.DATA_READ", HQ_LOOKUP, 0.6, false },
	{ "UNC_C_LLC_LOOKUP.WRITE", HQ_LOOKUP, 0.25, false },
	{ "UNC_C_LLC_LOOKUP.REMOTE_SNOOP", HQ_LOOKUP, 0.1, false },
	{ "UNC_C_LLC_LOOKUP.READ", HQ_LOOKUP, 0.65, false },
	{ "UNC_C_LLC_LOOKUP.NID", HQ_LOOKUP, 0.05, false },
	{ "UNC_C_LLC_VICTIMS.M_STATE", HQ_MISS, 0.25, false },
	{ "UNC_C_LLC_VICTIMS.E_STATE", HQ_MISS, 0.4, false },
	{ "UNC_C_LLC_VICTIMS.I_STATE", HQ_MISS, 0.1, false },
	{ "UNC_C_LLC_VICTIMS.F_STATE", HQ_MISS, 0.2, false },
	{ "UNC_C_LLC_VICTIMS.MISS", HQ_MISS, 0.05, false },
	/* HA (2.5.6): requests = DRAM traffic, local and remote */
	{ "UNC_H_REQUESTS.READS", HQ_DRAM_RD, 1.0, false },
	{ "UNC_H_REQUESTS.READS_LOCAL", HQ_DRAM_RD, 1.0 - HSX_BI_REMOTE, false },
	{ "UNC_H_REQUESTS.READS_REMOTE", HQ_DRAM_RD, HSX_BI_REMOTE, false },
	{ "UNC_H_REQUESTS.WRITES", HQ_DRAM_WR, 1.0, false },
	{ "UNC_H_REQUESTS.WRITES_LOCAL", HQ_DRAM_WR, 1.0 - HSX_BI_REMOTE, false },
	{ "UNC_H_REQUESTS.WRITES_REMOTE", HQ_DRAM_WR, HSX_BI_REMOTE, false },
	{ "UNC_H_IMC_READS.NORMAL", HQ_DRAM_RD, 1.0, false },
	{ "UNC_H_IMC_WRITES.ALL", HQ_DRAM_WR, 1.0, false },
	{ "UNC_H_IMC_WRITES.FULL", HQ_DRAM_WR, 0.95, false },
	{ "UNC_H_IMC_WRITES.PARTIAL", HQ_DRAM_WR, 0.05, false },
	/* iMC (2.6.7): CAS commands = DRAM lines */
	{ "UNC_M_CAS_COUNT.RD", HQ_DRAM_RD, 1.0, false },
	{ "UNC_M_CAS_COUNT.WR", HQ_DRAM_WR, 1.0, false },
	{ "UNC_M_CAS_COUNT.ALL", HQ_DRAM_ALL, 1.0, false },
	{ "UNC_M_CAS_COUNT.RD_REG", HQ_DRAM_RD, 0.95, false },
	{ "UNC_M_CAS_COUNT.RD_UNDERFILL", HQ_DRAM_RD, 0.05, false },
	{ "UNC_M_CAS_COUNT.RD_RMM", HQ_DRAM_RD, 0.95, false },
	{ "UNC_M_CAS_COUNT.RD_WMM", HQ_DRAM_RD, 0.05, false },
	{ "UNC_M_CAS_COUNT.WR_WMM", HQ_DRAM_WR, 0.9, false },
	{ "UNC_M_CAS_COUNT.WR_RMM", HQ_DRAM_WR, 0.1, false },
	{ "UNC_M_ACT_COUNT.RD", HQ_DRAM_RD, 0.3, false },
	{ "UNC_M_ACT_COUNT.WR", HQ_DRAM_WR, 0.3, false },
	{ "UNC_M_ACT_COUNT.BYP", HQ_DRAM_RD, 0.01, false },
	{ "UNC_M_PRE_COUNT.PAGE_MISS", HQ_DRAM_ALL, 0.25, false },
	{ "UNC_M_PRE_COUNT.PAGE_CLOSE", HQ_DRAM_ALL, 0.05, false },
	{ "UNC_M_PRE_COUNT.RD", HQ_DRAM_RD, 0.3, false },
	{ "UNC_M_PRE_COUNT.WR", HQ_DRAM_WR, 0.3, false },
	/* QPI (2.9.6): data flits of the remote traffic, both directions */
	{ "UNC_Q_TxL_FLITS_G0.DATA", HQ_QPI_DATA, 1.0, false },
	{ "UNC_Q_TxL_FLITS_G0.NON_DATA", HQ_QPI_DATA, 0.6, false },
	{ "UNC_Q_TxL_FLITS_G1.DRS_DATA", HQ_QPI_DATA, 1.0, false },
	{ "UNC_Q_TxL_FLITS_G1.DRS_NONDATA", HQ_QPI_DATA, 0.125, false },
	{ "UNC_Q_TxL_FLITS_G1.DRS", HQ_QPI_DATA, 1.125, false },
	{ "UNC_Q_RxL_FLITS_G1.DRS_DATA", HQ_QPI_DATA, 1.0, false },
	{ "UNC_Q_RxL_FLITS_G1.DRS_NONDATA", HQ_QPI_DATA, 0.125, false },
	{ "UNC_Q_RxL_FLITS_G1.DRS", HQ_QPI_DATA, 1.125, false },
	{ "UNC_Q_LINK_IDLE", HQ_QCLK, 0.6, true },
	{ "UNC_Q_LINK_LLR", HQ_QCLK, 1e-6, true },
	/* PCU (2.8.7): cores per C-state (12 + 1 + 5 = 18), bands */
	{ "UNC_P_POWER_STATE_OCCUPANCY.CORES_C0", HQ_PCLK, 12.0, true },
	{ "UNC_P_POWER_STATE_OCCUPANCY.CORES_C3", HQ_PCLK, 1.0, true },
	{ "UNC_P_POWER_STATE_OCCUPANCY.CORES_C6", HQ_PCLK, 5.0, true },
	/* cycles above each band (whatever the PCU filter holds) */
	{ "UNC_P_FREQ_BAND0_CYCLES", HQ_PCLK, 0.9, true },
	{ "UNC_P_FREQ_BAND1_CYCLES", HQ_PCLK, 0.6, true },
	{ "UNC_P_FREQ_BAND2_CYCLES", HQ_PCLK, 0.3, true },
	{ "UNC_P_FREQ_BAND3_CYCLES", HQ_PCLK, 0.05, true },
	{ "UNC_P_CORE_CC6_CTR", HQ_TSC, 0.30, true },
	{ "UNC_P_CORE_CC3_CTR", HQ_TSC, 0.05, true },
	{ "UNC_P_CORE_PC2_CTR", HQ_TSC, 0.10, true },
	{ "UNC_P_CORE_PC3_CTR", HQ_TSC, 0.02, true },
};

/* Each box's clock, and the fraction of it an event without a rule
 * counts in every instance. */
static const struct hsx_bi_unit {
	const char *unit;
	enum hq clock;
	double frac;
} hsx_bi_units[] = {
	{ "ubox", HQ_UCLK, 0.001 }, { "cbo", HQ_UCLK, 0.01 },
	{ "sbox", HQ_UCLK, 0.01 }, { "ha", HQ_UCLK, 0.01 },
	{ "imc", HQ_DCLK, 0.01 }, { "irp", HQ_UCLK, 0.005 },
	{ "pcu", HQ_PCLK, 0.01 }, { "pcu_cstate", HQ_TSC, 0.01 },
	{ "qpi", HQ_QCLK, 0.01 }, { "qpi_link", HQ_QCLK, 0.001 },
	{ "r2pcie", HQ_UCLK, 0.01 }, { "r3qpi", HQ_UCLK, 0.01 },
};

static void hsx_bi_base(unsigned p, double q[HQ_N])
{
	double a = 2.0 * 3.14159265358979323846 * p / BI_PHASES;
	double lookups = HSX_BI_LOOKUPS * (1.0 + 0.25 * sin(a));
	double miss = lookups * HSX_BI_MISS * (1.0 + 0.2 * cos(a));

	q[HQ_LOOKUP] = lookups;
	q[HQ_MISS] = miss;
	q[HQ_DRAM_RD] = miss;
	q[HQ_DRAM_WR] = miss * HSX_BI_WR;
	q[HQ_DRAM_ALL] = q[HQ_DRAM_RD] + q[HQ_DRAM_WR];
	q[HQ_QPI_DATA] = q[HQ_DRAM_ALL] * HSX_BI_REMOTE * HSX_BI_FLITS;
	q[HQ_UCLK] = (double)HSX_BI_UCLK;
	q[HQ_DCLK] = (double)HSX_BI_DCLK;
	q[HQ_PCLK] = HSX_BI_PCLK;
	q[HQ_QCLK] = HSX_BI_QCLK;
	q[HQ_TSC] = HSX_BI_TSC;
}

static const struct hsx_bi_rule *hsx_bi_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(hsx_bi_rules); i++)
		if (strcmp(hsx_bi_rules[i].name, name) == 0)
			return &hsx_bi_rules[i];
	return NULL;
}

static const struct hsx_bi_unit *hsx_bi_unit_of(const char *unit)
{
	for (size_t i = 0; i < ARRAY_SIZE(hsx_bi_units); i++)
		if (strcmp(hsx_bi_units[i].unit, unit) == 0)
			return &hsx_bi_units[i];
	return &hsx_bi_units[1];	/* a UCLK box */
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The key as a workload file would write it. */
static void key_text(struct wl_key *k, const char *unit)
{
	size_t n, len = sizeof(k->text);

	n = (size_t)snprintf(k->text, len, "%s:0x%02x:0x%02x", unit,
			     k->enc.code, k->enc.umask);
	if (k->enc.thresh && n < len)
		n += (size_t)snprintf(k->text + n, len - n, ":thresh=%u",
				      k->enc.thresh);
	if (k->enc.edge && n < len)
		n += (size_t)snprintf(k->text + n, len - n, ":edge");
	if (k->enc.inv && n < len)
		n += (size_t)snprintf(k->text + n, len - n, ":inv");
	if (k->ext && n < len)
		n += (size_t)snprintf(k->text + n, len - n, ":ext");
	if (k->has_filter0 && n < len)
		snprintf(k->text + n, len - n, ":filter0=0x%" PRIx64, k->filter0);
}

/* Adds k with per-phase rates base[q] x scale unless an equal key
 * exists; -ENOMEM when full. */
static int hsx_bi_add(struct workload *w, unsigned cap, const struct wl_key *k,
		      enum hq q, double scale)
{
	for (unsigned i = 0; i < w->nkeys; i++)
		if (wl_key_eq(&w->keys[i], k))
			return 0;
	if (w->nkeys >= cap)
		return -ENOMEM;
	w->keys[w->nkeys] = *k;
	for (unsigned p = 0; p < BI_PHASES; p++) {
		double b[HQ_N];

		hsx_bi_base(p, b);
		w->rates[(size_t)w->nkeys * BI_PHASES + p] = b[q] * scale;
	}
	w->nkeys++;
	return 0;
}

/* The base quantity a derived-metric source's filtered key counts (the
 * sources are named in src/plat/derived_hsx.c). */
static bool hsx_bi_qty_base(const char *src, enum hq *base)
{
	if (strcmp(src, "lookups") == 0)
		*base = HQ_LOOKUP;
	else if (strcmp(src, "misses") == 0)
		*base = HQ_MISS;
	else
		return false;
	return true;
}

/* The keys of one programmable catalog event. */
static int hsx_bi_event(struct workload *w, unsigned cap,
			const struct event *ev)
{
	const struct platform *p = w->plat;
	const struct hsx_bi_rule *rule = hsx_bi_find(ev->name);
	const struct hsx_bi_unit *bu = hsx_bi_unit_of(ev->unit);
	struct wl_key k = { .socket = -1, .inst = -1 };
	const struct unit_type *u = plat_unit(p, ev->unit, &k.unit);
	unsigned ninst;
	int r = 0;

	if (!u || u->kind != UNIT_PROG)
		return 0;
	ninst = wl_unit_ninst(w, k.unit);
	k.enc = event_enc_of(ev);
	k.ext = ev->ev_sel_ext && u->ev_ext_bit;
	if (ev->flags & EVF_FILTER0) {
		/* One key per FILTER0 value a headline quantity uses: the
		 * value is read from the quantity's event as the daemon will
		 * count it (its :filter0= modifier), so the two cannot drift
		 * apart. */
		const struct derived_table *dt = p->derived;

		for (size_t i = 0; i < dt->nsrc && r == 0; i++) {
			struct evspec qe;
			char why[160];
			enum hq base;

			if (sched_resolve(p, dt->src[i].event, true, &qe, why,
					  sizeof(why)) < 0 ||
			    !(qe.filt_set & 1) ||
			    !hsx_bi_qty_base(dt->src[i].name, &base))
				continue;
			k.has_filter0 = true;
			k.filter0 = qe.filt[0];
			key_text(&k, ev->unit);
			r = hsx_bi_add(w, cap, &k, base, rule ? rule->frac : 0.01);
		}
		return r;
	}
	key_text(&k, ev->unit);
	if (rule)
		return hsx_bi_add(w, cap, &k, rule->base,
				  rule->frac * (rule->per_inst ? ninst : 1));
	if (ends_with(ev->name, "CLOCKTICKS"))
		return hsx_bi_add(w, cap, &k, bu->clock, ninst);
	return hsx_bi_add(w, cap, &k, bu->clock, bu->frac * ninst);
}

static int hsx_builtin(const struct platform *plat, struct workload **out)
{
	struct workload *w;
	unsigned cap = 16;
	int r = 0;

	*out = NULL;
	for (size_t i = 0; i < plat->nevents; i++)
		cap += 1 + (plat->events[i].flags & EVF_FILTER0 ?
			    (unsigned)plat->derived->nsrc : 0);
	for (unsigned ui = 0; plat->units[ui]; ui++)
		cap += plat->units[ui]->nfreerun;

	w = bi_new(plat, &(struct wl_topology){ .sockets = 2, .cbo_count = 18,
						.sbox_count = 4, .ha_count = 2,
						.imc_channels = 8, .qpi_ports = 2,
						.r3qpi_links = 2,
						.uclk_hz = HSX_BI_UCLK,
						.dclk_hz = HSX_BI_DCLK }, cap);
	if (!w)
		return -ENOMEM;

	for (size_t i = 0; i < plat->nevents && r == 0; i++)
		r = hsx_bi_event(w, cap, &plat->events[i]);
	for (int ui = 0; plat->units[ui] && r == 0; ui++) {
		const struct unit_type *u = plat->units[ui];
		const struct hsx_bi_unit *bu = hsx_bi_unit_of(u->name);
		unsigned ninst = wl_unit_ninst(w, ui);

		for (unsigned i = 0; i < u->nfreerun && r == 0; i++) {
			const struct hsx_bi_rule *rule =
				hsx_bi_find(u->freerun[i].name);
			struct wl_key k = { .socket = -1, .inst = -1, .unit = ui,
					    .freerun = true, .freerun_idx = i };

			snprintf(k.text, sizeof(k.text), "%s:%s", u->name,
				 u->freerun[i].name);
			if (rule)
				r = hsx_bi_add(w, cap, &k, rule->base, rule->frac *
					       (rule->per_inst ? ninst : 1));
			else
				r = hsx_bi_add(w, cap, &k, bu->clock,
					       bu->frac * ninst);
		}
	}
	if (r < 0) {
		wl_free(w);
		return r;
	}
	*out = w;
	return 0;
}

int wl_builtin(const struct platform *plat, struct workload **out)
{
	*out = NULL;
	if (!plat)
		return -ENOTSUP;
	if (strcmp(plat->id, "skl") == 0)
		return skl_builtin(plat, out);
	/* The hsx built-in gives rates to the catalog's events: a platform
	 * without a catalog (a test's stand-in) has none. */
	if (strcmp(plat->id, "hsx") == 0 && plat->nevents)
		return hsx_builtin(plat, out);
	return -ENOTSUP;
}

/* ---- the self-test workload ----------------------------------------------- */

/*
 * What `uncored --self-test --simulate` runs against (selftest.c): three
 * phases of WL_ST_PHASE_S seconds, repeating - quiet, stream (8 GB/s of
 * DRAM reads, most lookups missing), pointer chase (misses 400x the quiet
 * rate) - on the headline events of the platform's baseline, on the
 * machine of the default built-in workload.  Per socket: LLC lookups, LLC
 * misses, DRAM read lines (64 bytes each).
 */
static const double st_rates[3][3] = {
	{ 1.0e7, 1.0e5, 1.0e6 },	/* quiet */
	{ 2.0e8, 1.25e8, 1.25e8 },	/* stream */
	{ 5.0e7, 4.0e7, 4.0e7 },	/* chase */
};

int wl_builtin_selftest(const struct platform *plat, struct workload **out)
{
	const char *keys[3], *head;
	char text[2048], err[512];
	struct workload *def;
	size_t n;
	int r;

	if (strcmp(plat->id, "skl") == 0) {
		head = "\"platform\": \"skl\"";
		keys[0] = "cbo:0x34:0x8f";
		keys[1] = "cbo:0x34:0x88";
		keys[2] = "imc:DRAM_DATA_READS";
	} else if (strcmp(plat->id, "hsx") == 0) {
		head = "\"platform\": \"hsx\"";
		keys[0] = "cbo:0x34:0x11:filter0=0x7e0000";
		keys[1] = "cbo:0x34:0x11:filter0=0x20000";
		keys[2] = "imc:0x04:0x03";
	} else {
		return -ENOENT;
	}
	n = (size_t)snprintf(text, sizeof(text), "{ %s, \"phases\": [", head);
	for (unsigned p = 0; p < 3; p++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "%s { \"seconds\": %g, \"rates\": { "
				      "\"%s\": %g, \"%s\": %g, \"%s\": %g } }",
				      p ? "," : "", WL_ST_PHASE_S, keys[0],
				      st_rates[p][0], keys[1], st_rates[p][1],
				      keys[2], st_rates[p][2]);
	n += (size_t)snprintf(text + n, sizeof(text) - n, " ] }");
	r = wl_parse(text, n, "(built-in self-test)", plat, out, err,
		     sizeof(err));
	/* The default built-in's machine, so that a state file shared with
	 * a daemon on the default workload has the same layout. */
	if (r == 0 && wl_builtin(plat, &def) == 0) {
		(*out)->topo = def->topo;
		wl_free(def);
	}
	return r;
}
