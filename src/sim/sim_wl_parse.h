/*
 * sim_wl_parse.h - what the workload parser's files share (private to
 * src/sim/sim_workload.c and sim_wl_fault.c): the limits on a workload,
 * the parse context with its JSON path and first error, and the value
 * parsers both use.  Everyone else reads struct workload (sim_workload.h).
 */
#ifndef UNCORED_SIM_WL_PARSE_H
#define UNCORED_SIM_WL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "sim/sim_workload.h"
#include "plat/plat.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Limits on what a workload file may ask for.  They keep a hostile or
 * mistaken file from costing more than a few megabytes of memory. */
#define WL_MAX_BYTES (4u << 20)	/* file size */
#define WL_MAX_DEPTH 8		/* JSON nesting; the format needs 4 */
#define WL_MAX_PHASES 1024
#define WL_MAX_KEYS 1024	/* distinct rate keys over all phases */
#define WL_MAX_FAULTS 1024
#define WL_MAX_KEYLEN 127	/* a rate key or fault target, as written */
#define WL_MAX_RATE 1e15	/* events per second: enough to wrap a 44-bit
				   counter every 18 ms in wrap tests */
#define WL_MAX_PHASE_S 1e7	/* seconds in one phase */
#define WL_MAX_AT 1e9		/* seconds until a fault */
#define WL_MAX_COUNT 1000000000u	/* eio / delay count */
#define WL_MAX_DELAY 10.0	/* seconds one access is delayed */
#define WL_MAX_UCLK 10000000000ull	/* 10 GHz */

enum tk_kind { TK_PLATFORM, TK_COUNT, TK_HZ, TK_MMIO_BAR, TK_MMIO_DEV,
	       TK_PHASES, TK_FAULTS, TK_PERF, TK_OFFLINE,
	       TK_UFREQ, TK_CPUID, TK_RDT, TK_ENERGY,
	       TK_THROTTLE, TK_DISTINCT };

/*
 * A key a workload may have at the top level (doc/design.md section 3).
 * Which keys a platform takes, and their ranges, come from its simulator
 * data (plat_sim.h): its unit count keys ("cbo_count"), the clocks its
 * fixed counters count, its MMIO window's register, "cores" where it has
 * core-scope counters.  A count key names the unit whose instance count
 * it sets, so that "@N" keys are checked against it.
 */
struct top_key {
	const char *name;
	enum tk_kind kind;
	unsigned max;		/* TK_COUNT: 1..max */
	int unit;		/* TK_COUNT: unit index it counts, -1 none */
	size_t off;		/* TK_COUNT without a unit (unsigned), TK_HZ
				   (uint64_t): in struct wl_topology */
};

#define TOP_KEYS_MAX (16 + PLAT_MAX_UNITS)

struct pctx {
	const char *name;		/* file name for messages */
	const struct platform *plat;
	struct top_key keys[TOP_KEYS_MAX];	/* the platform's */
	unsigned nkeys;
	struct workload *w;
	char *err;
	size_t errlen;
	char path[640];			/* JSON path of what is being parsed */
	size_t plen;
	/* A kernel PMU name or glob the simulated kernel has, into out (a
	 * fault's target; sim_workload.c, which knows the PMUs). */
	int (*pmu_pattern)(struct pctx *c, const char *s, char *out,
			   size_t outlen);
};

/* Ends the parse: "NAME: $.path: message" into c->err; returns -EINVAL. */
__attribute__((format(printf, 2, 3)))
int wlp_fail(struct pctx *c, const char *fmt, ...);
/* Ends the parse for want of memory; returns -ENOMEM. */
int wlp_fail_nomem(struct pctx *c);
/* The free-running counter names of u, for messages. */
void wlp_freerun_list(const struct unit_type *u, char *buf, size_t len);
/* A number within lo..hi (lo excluded with lo_open) into *v, or the parse ends naming what. */
int wlp_get_number(struct pctx *c, json_object *o, double lo, bool lo_open,
		      double hi, const char *what, double *v);
/* One value per phase into x[0..nphases): a number (every phase's) or an
 * array of one per phase, each within 0..hi; or the parse ends naming
 * what. */
int wlp_get_per_phase(struct pctx *c, json_object *o, double hi,
		      const char *what, double *x);
/* An integer within lo..hi into *v, or the parse ends naming what. */
int wlp_get_uint(struct pctx *c, json_object *o, uint64_t lo, uint64_t hi,
		    const char *what, uint64_t *v);
/* A register value (number, or "0x" hex string) up to max into *v. */
int wlp_get_value(struct pctx *c, json_object *o, uint64_t max,
		     const char *what, uint64_t *v);
/* "0x..." up to max into *v; 0 or -1. */
int wlp_parse_hex(const char *s, uint64_t max, uint64_t *v);
/* An optional "sN:" prefix of *s into *sock (-1: none), *s past it. */
int wlp_parse_socket_prefix(struct pctx *c, const char **s, int *sock);
/* n hex digits (at most maxd) into *v; 0 or -1. */
int wlp_parse_xdigits(const char *s, size_t n, unsigned maxd, unsigned *v);
/* Appends "[i]" to the JSON path; returns the old length for wlp_path_pop(). */
size_t wlp_path_idx(struct pctx *c, size_t i);
/* Appends ".key" (or ["key"]) to the JSON path; returns the old length. */
size_t wlp_path_key(struct pctx *c, const char *key);
/* Cuts the JSON path back to old. */
void wlp_path_pop(struct pctx *c, size_t old);
/* The JSON type of o, for messages. */
const char *wlp_type_name(const json_object *o);
/* The platform's unit names, for messages. */
void wlp_unit_list(const struct platform *p, char *buf, size_t len);
/* The "faults" array (sim_wl_fault.c). */
int wlp_parse_faults(struct pctx *c, json_object *o);
/* The "uncore_freq" object (sim_ufreq.c). */
int wlp_parse_ufreq(struct pctx *c, json_object *o);
/* The "resctrl" object (sim_wl_rdt.c); after "phases". */
int wlp_parse_rdt(struct pctx *c, json_object *o);
/* The "energy" object (sim_rapl.c). */
int wlp_parse_energy(struct pctx *c, json_object *o);
/* "thermal_throttle" (sim_throttle.c) */
int wlp_parse_throttle(struct pctx *c, json_object *o);
/* A rate key's text into *k (sim_workload.c); 0 or -EINVAL with the
 * problem at c's path. */
int wlp_parse_rate_key(struct pctx *c, const char *text, struct wl_key *k);
/* The phases' "memory_latency" curves (sim_wl_lat.c): lat[p] is phase
 * p's object or NULL; given[k * nphases + p] says phase p gave key k
 * itself (the workload's keys so far, whose rates are in place).  Adds
 * the curves' keys and rates to the workload; 0 or -errno. */
int wlp_lat_expand(struct pctx *c, json_object *const *lat,
		   const bool *given);

/* A message for a position in the text: "NAME:LINE:COL: msg"; -EINVAL. */
__attribute__((format(printf, 5, 6)))
int wlp_fail_at(struct pctx *c, const char *text, size_t len, size_t off,
		   const char *fmt, ...);
/* Appends s to the JSON path (truncated politely when full). */
void wlp_path_add(struct pctx *c, const char *s);
/* 1..4 decimal digits into *v; 0 or -1. */
int wlp_parse_dec(const char *s, size_t n, unsigned *v);
/* Key name in keys[0..n), or NULL. */
const struct top_key *wlp_key_in(const struct top_key *keys, unsigned n,
				    const char *name);

#endif
