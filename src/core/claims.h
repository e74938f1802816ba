/*
 * claims.h - counter claims: groups of events other tools ask the daemon
 * to count, with leases, limits and owners (doc/design.md section 5).
 *
 * Plain data: no HTTP and no JSON here (the claim routes are in
 * api_claims.c).  The table is shared between the HTTP thread (create,
 * read, renew, release) and the sampler under one mutex that nobody
 * holds across hardware access: at the start of a tick the sampler
 * expires leases and takes the live claims' events (claims_live()), it
 * counts them in its own groups (mux.h) without the lock, and at the end
 * it writes each claim's results back (claims_by_seq()).
 */
#ifndef UNCORED_CLAIMS_H
#define UNCORED_CLAIMS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/clock.h"
#include "plat/formula.h"
#include "pmu/pmu.h"
#include "pmu/sched.h"

/* Events a claim counts: those it names (at most CLAIM_REQ_EVENTS) and
 * those of its formulas not already named. */
#define CLAIM_MAX_EVENTS 16
#define CLAIM_REQ_EVENTS 8
/* Formulas a claim may ask for (each's events join the claim's). */
#define CLAIM_MAX_FORMULAS 8
/* Events one formula of a claim may need. */
#define CLAIM_FORMULA_EVENTS 16
#define CLAIM_FORMULA_NAME_MAX 96
/*
 * A claim id is "c<n>-<tag>": n counts the claims of this table from 1,
 * and tag is CLAIM_TAG_LEN characters of [0-9a-z] drawn at random when
 * the table is made (each start of the daemon), so an id never names a
 * claim of another daemon lifetime (an old client's "c1" is not the new
 * daemon's).  At most CLAIM_ID_MAX - 1 characters: past n = 9999999 a
 * new tag is drawn and n starts at 1 again.
 */
#define CLAIM_ID_MAX 16
#define CLAIM_TAG_LEN 6
#define CLAIM_N_MAX 9999999u
/* The table's instance id: 16 hex digits, random, new with each table
 * (each start of the daemon).  Every answer carries it (the
 * Uncored-Instance header) and /api/v1/status shows it: a client that
 * sees it change knows the claims it made are gone, whatever pid now
 * answers on the socket (systemd's, under socket activation). */
#define CLAIMS_INSTANCE_MAX 17
#define CLAIM_LABEL_MAX 64

struct claims_cfg {
	unsigned max_per_uid, max_total;
	unsigned default_ttl_s, max_ttl_s;
	bool allow_raw_events;
	unsigned interval_ms;	/* the sampling interval: a claim whose
				   counters could wrap twice within it is
				   refused */
	unsigned max_pinned_per_box;	/* counters of one box pinned claims
					   may hold (at most all but one) */
	unsigned max_pinned_s;	/* how long a pinned claim keeps counters
				   of its own, from its creation, however
				   often renewed; then it shares them
				   (0: for its lease, as in tests that do
				   not ask) */
};

/* A formula of a claim: the catalog entry, the name the client used (or
 * its qualified one), and where each of its events is in the claim's. */
struct claim_formula {
	const struct formula *f;
	char name[CLAIM_FORMULA_NAME_MAX];
	uint8_t ev[CLAIM_FORMULA_EVENTS];	/* index into struct claim.ev */
	unsigned nev;
};

/* One series of a claim (an event on one unit instance), as the sampler
 * last published it. */
struct claim_series {
	uint8_t socket, inst;
	int8_t unit;
	uint8_t idx;		/* counter index (when running) */
	uint8_t ev;		/* index into the claim's events */
	bool freerun;
	uint64_t raw;		/* measured counts */
	uint64_t est;		/* scaled for the time multiplexed out */
	int64_t run_adj;	/* how much longer it counted than the claim's
				   running time says (struct gseries) */
};

struct claim {
	uint64_t seq;		/* its place in the table, from 1 (the
				   sampler's key; not the id's n) */
	char id[CLAIM_ID_MAX];
	uid_t uid;
	pid_t pid;
	char label[CLAIM_LABEL_MAX];
	bool export;
	bool pinned;		/* on counters of its own (until
				   max_pinned_s after its creation) */
	bool end_with_process;	/* ends at the tick that finds process pid
				   gone, before its lease (a client killed
				   runs no exit handler to release it) */
	unsigned ttl_s;
	struct evspec ev[CLAIM_MAX_EVENTS];
	unsigned nev;
	unsigned nreq;		/* ev[0..nreq) were asked for, the rest
				   are its formulas' */
	struct claim_formula form[CLAIM_MAX_FORMULAS];
	unsigned nform;
	int plan[CLAIM_MAX_EVENTS];	/* the placement found at creation */
	uint64_t created_mono, expires_mono;	/* CLOCK_MONOTONIC ns */
	double created_real;			/* CLOCK_REALTIME s */
	double expires_real;	/* in a copy: when the lease ends */
	double pinned_until_real;	/* in a copy of a pinned claim: when
					   its pin ends at the latest (0:
					   with its lease) */
	/* the sampler's results after its last tick */
	bool running;		/* counts in the current interval */
	int ctr[CLAIM_MAX_EVENTS];	/* counter per event, -1: none */
	/* struct group's: running is the time its counters that the
	 * freeze stops counted (each tick's frozen time left out), give
	 * or take running_err; live_running the wall time it ran */
	uint64_t enabled_ns, running_ns, live_running_ns, running_err_ns;
	/* a read-now's instant, give or take this much (0: a tick's) */
	uint64_t read_err_ns;
	struct claim_series *ser;	/* the series, in mux_slots() order */
	unsigned ns;
	bool gone;		/* released or expired; freed when unused */
};

/* Why a request failed (the API maps it to a status and a code). */
enum claims_status {
	CLAIMS_OK,
	CLAIMS_BAD_REQUEST,	/* a value out of range */
	CLAIMS_UNKNOWN_EVENT,
	CLAIMS_UNKNOWN_FORMULA,	/* no formula of that name here */
	CLAIMS_FORMULA_UNAVAILABLE,	/* in the catalog, cannot count here */
	CLAIMS_RAW_DISABLED,	/* a raw encoding, not allowed */
	CLAIMS_NOT_FOUND,	/* no such claim, or another uid's: the
				   two answer alike, so ids and their
				   owners stay private */
	CLAIMS_INTERVAL,	/* its counters could wrap within a tick */
	CLAIMS_UNSCHEDULABLE,	/* its events can never count together */
	CLAIMS_LIMIT,		/* max_per_uid or max_total reached */
	CLAIMS_NOMEM,
	CLAIMS_HELD,		/* its counters are held: by the baseline or
				   pinned claims (a pinned claim), by pinned
				   claims (a shared one), or an admitted
				   claim needs them (a pinned one) */
	CLAIMS_UNAVAILABLE,	/* the sampler cannot answer yet */
};

struct claims_err {
	enum claims_status st;
	char msg[512];		/* the HTTP error's size: cut after a
				   whole word if longer (fail()) */
};

/* A new claim as the client asked for it (strings already checked to be
 * printable text). */
struct claim_req {
	const char *events[CLAIM_REQ_EVENTS];
	unsigned nev;
	const char *formulas[CLAIM_MAX_FORMULAS];	/* catalog names
							   (core/formula.h) */
	unsigned nform;
	bool have_ttl;
	int64_t ttl_s;
	const char *label;	/* NULL: none */
	bool export;
	bool pinned;
	bool end_with_process;	/* ignored when the peer's pid is unknown
				   (0: another pid namespace) */
};

/*
 * What a pinned claim is placed around, beside the table's own pinned
 * claims: the baseline's counters (never taken), and, to prefer
 * counters nobody counts on now, every counter counting in the current
 * interval.  holder names the baseline event on a unit's counter ("":
 * none) for a refusal.
 */
struct claims_around {
	struct sched_busy base;		/* the baseline's counters */
	struct sched_busy now;		/* base and the current interval's */
	char holder[PLAT_MAX_UNITS][PLAT_MAX_CTRS][SCHED_NAME_MAX];
};

/*
 * What the table asks of the sampler that counts its claims (set once
 * before serving with claims_set_hooks(); without hooks, as in tests of
 * the table alone, pinned claims are placed around each other only and
 * start at the next tick, and reads give the last tick's counts).
 * Called without the table's lock.
 *   around: fills a; 0 or -errno (-EAGAIN: no baseline yet).
 *   start_now: starts new claim seq now if the counters of its
 *     placement are free in the current interval (else the next tick
 *     places it).
 *   read_now: overwrites the counts and times of cl (a copy) with a
 *     reading taken now; 0 or -errno.
 */
struct claims_hooks {
	int (*around)(void *arg, struct claims_around *a);
	void (*start_now)(void *arg, uint64_t seq);
	int (*read_now)(void *arg, struct claim *cl);
};

struct claims *claims_new(const struct pmu *pmu, const struct claims_cfg *cfg);
void claims_free(struct claims *c);
/* The clock leases run on (default clock_system; clk must outlive c):
 * the sampler's, as it expires leases at its tick's time. */
void claims_set_clock(struct claims *c, const struct clock_src *clk);
/* New limits (SIGHUP); live claims are kept. */
void claims_set_cfg(struct claims *c, const struct claims_cfg *cfg);
/* The limits in force. */
struct claims_cfg claims_cfg(struct claims *c);
/* The sampler's side (h and arg must outlive c; NULL: none). */
void claims_set_hooks(struct claims *c, const struct claims_hooks *h,
		      void *arg);
/* The longest interval (ms) the live claims' counters allow, and the id
 * of the claim that sets it in id (CLAIM_ID_MAX bytes; "" if none). */
unsigned claims_max_interval_ms(struct claims *c, char *id);
/* The instance id (CLAIMS_INSTANCE_MAX above); lives as long as c. */
const char *claims_instance(const struct claims *c);
/* The PMU (platform and topology) the claims count on. */
const struct pmu *claims_pmu(const struct claims *c);

/*
 * The requests.  Each returns 0 and fills *out with a copy of the claim
 * (its series malloc'd: the caller frees them with claim_clear()), or -1
 * with e filled.  Only the owner or root (uid 0) may touch a claim;
 * to anyone else it does not exist (CLAIMS_NOT_FOUND, the same message
 * as for an id nobody holds).
 *
 * claims_create() keeps every admitted claim counting some of the time:
 * a shared claim is admitted only if it fits beside the counters and box
 * filter values the pinned claims hold (else CLAIMS_HELD, naming them
 * and when they end), a pinned one only where every admitted shared
 * claim still fits (else CLAIMS_HELD, naming one it would starve).  A
 * pin ends max_pinned_s after its creation, renewed or not: the claim
 * then shares its counters like any other.
 */
int claims_create(struct claims *c, uid_t uid, pid_t pid,
		  const struct claim_req *rq, struct claim *out,
		  struct claims_err *e);
int claims_get(struct claims *c, const char *id, uid_t uid,
	       struct claim *out, struct claims_err *e);
/* Renews for the claim's lease, or for ttl_s when have_ttl. */
int claims_renew(struct claims *c, const char *id, uid_t uid, bool have_ttl,
		 int64_t ttl_s, struct claim *out, struct claims_err *e);
/* Releases: out holds the final counts, read now. */
int claims_release(struct claims *c, const char *id, uid_t uid,
		   struct claim *out, struct claims_err *e);
/* claims_get(), with the counts and times read at this moment (the
 * read_now hook). */
int claims_read_now(struct claims *c, const char *id, uid_t uid,
		    struct claim *out, struct claims_err *e);
/* Copies of uid's live claims (root: all) into a malloc'd *v (free with
 * claims_list_free()).  Their number, or -1 on ENOMEM. */
int claims_list(struct claims *c, uid_t uid, struct claim **v);
void claims_list_free(struct claim *v, int n);
/* Frees what a copy owns. */
void claim_clear(struct claim *cl);

/* The number of live claims. */
unsigned claims_count(struct claims *c);
/* The id of the claim holding a counter in the current interval, copied
 * into buf; NULL if none. */
const char *claims_holder(struct claims *c, unsigned socket, int unit,
			  unsigned inst, unsigned idx, char *buf, size_t len);

/* ---- sampler side ---- */
void claims_lock(struct claims *c);
void claims_unlock(struct claims *c);
/* Takes the lock if it comes free within ns (trying, and yielding the
 * CPU, meanwhile): true, or false without it.  For the tick, which must
 * not wait long for a request thread that was preempted holding it. */
bool claims_lock_within(struct claims *c, uint64_t ns);
/* Under the lock: expires leases, ends the claims whose process has
 * ended (end_with_process) and ends pins (max_pinned_s) due by now_mono,
 * and points *v at the live claims (ascending seq), valid until the lock
 * is dropped.  Their number. */
unsigned claims_live(struct claims *c, uint64_t now_mono,
		     struct claim *const **v);
/* Under the lock: the live claim seq, or NULL. */
struct claim *claims_by_seq(struct claims *c, uint64_t seq);
/* Under the lock: claims live now, created and expired so far. */
void claims_totals(const struct claims *c, uint64_t *live,
		   uint64_t *created, uint64_t *expired);

#endif
