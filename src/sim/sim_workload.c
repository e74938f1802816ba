/*
 * sim_workload.c - the simulator's workload: parsing the JSON workload file
 * (doc/design.md section 3, "Workload file"), the built-in workload, and the
 * rate arithmetic the simulator uses to advance its counters.
 *
 * Parsing is strict and happens once: the JSON text is checked for syntax
 * (json-c, strict mode, bounded depth), for duplicate object keys (which
 * json-c would silently collapse), and then walked against the format,
 * every value range-checked.  The first problem ends the parse with
 * "NAME: $.json.path: what is wrong (what is accepted)", or
 * "NAME:LINE:COL: ..." for a syntax error.  The result is a set of flat
 * arrays (struct workload) that wl_rates() and wl_integral() read without
 * further allocation, so the simulator can call them under its lock.
 * The parse context and the value parsers every section uses are in
 * sim_wl_parse.c (sim_wl_parse.h), the "faults" array in sim_wl_fault.c.
 *
 * hsx additions (doc/design.md section 3 plus what the hsx model needs):
 *  - topology keys sbox_count, ha_count, imc_channels (<= 8), qpi_ports,
 *    r3qpi_links; a unit without a key of its own that lives in another
 *    unit's PCI functions has that unit's count (imc_fixed follows
 *    imc_channels, qpi_link follows qpi_ports: wl_unit_ninst()).  A
 *    missing count is the unit's maximum; a missing "sockets" is 1.
 *  - "uclk_hz" is what the UBox fixed counter counts, "dclk_hz" (new,
 *    hsx only) what every iMC channel's fixed counter counts (the
 *    simulator's defaults: 2.0 GHz and 1066.67 MHz on hsx).
 *  - rate keys may carry ":ext", the event-select extension bit (QPI and
 *    PCU bit 21, unit_type.ev_ext_bit), which struct event_enc cannot
 *    hold: "qpi:0x00:0x02" (TxL_FLITS_G0.DATA) and "qpi:0x00:0x02:ext"
 *    (TxL_FLITS_G1.HOM_REQ) are different counters.
 *  - ":filter0=" / ":filter1=" (the daemon's modifier grammar,
 *    plat_mod.h: 0x-prefixed hex or decimal) match the values the
 *    simulator derives
 *    from the counter's box filter registers (hw_sim.c, "Filters"): CBo
 *    FILTER0 / FILTER1; PCU: filter0 = PCU_MSR_PMON_BOX_FILTER; HA:
 *    filter0 = ADDRMATCH1 << 32 | ADDRMATCH0, filter1 = OPCODEMATCH; QPI:
 *    filter0 = RX_MATCH1 << 32 | RX_MATCH0, filter1 = RX_MASK1 << 32 |
 *    RX_MASK0.  A key without a filter counts whatever the filters hold.
 *  - free-running counters are keyed by unit and the platform's counter
 *    name: "pcu_cstate:UNC_P_CORE_CC6_CTR", "qpi_link:UNC_Q_LINK_IDLE".
 *  - "cores" (hsx, 1..8, default 8): physical cores per socket.  A
 *    core-scope counter (CC3/CC6) is one MSR per core; its key's rate is
 *    the socket's total split over the cores, "@N" gives core N's own
 *    ("pcu_cstate:UNC_P_CORE_CC6_CTR@2").
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "sim/sim_workload.h"
#include "sim/sim_wl_parse.h"
#include "plat/plat_mod.h"
#include "plat/plat_sim.h"
#include "plat/rapl.h"


/* ---- the top-level keys ---------------------------------------------- */


/* The simulator data of p, or NULL. */
static const struct plat_sim *sim_data(const struct platform *p)
{
	return p ? p->sim : NULL;
}

/* Fills out[] with the keys platform p takes, in the order messages
 * list them; returns how many. */
static unsigned plat_top_keys(const struct platform *p, struct top_key *out)
{
	const struct plat_sim *d = sim_data(p);
	unsigned n = 0;

	out[n++] = (struct top_key){ "platform", TK_PLATFORM, 0, -1, 0 };
	out[n++] = (struct top_key){ "sockets", TK_COUNT,
				     d && d->max_sockets ? d->max_sockets
							 : PLAT_MAX_SOCKETS,
				     -1, offsetof(struct wl_topology, sockets) };
	if (d && d->max_dies)
		out[n++] = (struct top_key){ "dies", TK_COUNT, d->max_dies, -1,
					     offsetof(struct wl_topology, dies) };
	for (size_t i = 0; d && i < d->ncounts && n < TOP_KEYS_MAX - 10; i++) {
		const struct unit_type *u;
		int ui;

		u = plat_unit(p, d->counts[i].unit, &ui);
		if (!u)
			continue;
		out[n++] = (struct top_key){
			d->counts[i].key, TK_COUNT,
			d->counts[i].max ? d->counts[i].max : u->max_inst, ui,
			0 };
	}
	out[n++] = (struct top_key){ "uclk_hz", TK_HZ, 0, -1,
				     offsetof(struct wl_topology, uclk_hz) };
	if (d && d->dclk_unit)
		out[n++] = (struct top_key){ "dclk_hz", TK_HZ, 0, -1,
					     offsetof(struct wl_topology,
						      dclk_hz) };
	if (d && d->mmio_key)
		out[n++] = (struct top_key){ d->mmio_key, TK_MMIO_BAR, 0, -1,
					     0 };
	if (d && d->mmio_dev_key)
		out[n++] = (struct top_key){ d->mmio_dev_key, TK_MMIO_DEV, 0,
					     -1, 0 };
	if (d && d->cores) {
		out[n++] = (struct top_key){ "cores", TK_COUNT, WL_MAX_CORES,
					     -1, offsetof(struct wl_topology,
							  cores) };
		out[n++] = (struct top_key){ "offline_cpus", TK_OFFLINE, 0, -1,
					     0 };
	}
	if (d && d->cpuid_key)
		out[n++] = (struct top_key){ d->cpuid_key->key, TK_CPUID,
					     d->cpuid_key->max, -1, 0 };
	out[n++] = (struct top_key){ "phases", TK_PHASES, 0, -1, 0 };
	out[n++] = (struct top_key){ "distinct_rates", TK_DISTINCT, 0, -1,
				     0 };
	out[n++] = (struct top_key){ "faults", TK_FAULTS, 0, -1, 0 };
	for (unsigned i = 0; p && p->units[i]; i++) {
		if (p->units[i]->perf) {
			out[n++] = (struct top_key){ "perf", TK_PERF, 0, -1,
						     0 };
			break;
		}
	}
	/* Intel's intel_uncore_frequency driver (sim_ufreq.c) */
	if (p && (!p->vendor || strcmp(p->vendor, "GenuineIntel") == 0))
		out[n++] = (struct top_key){ "uncore_freq", TK_UFREQ, 0, -1,
					     0 };
	out[n++] = (struct top_key){ "resctrl", TK_RDT, 0, -1, 0 };
	/* RAPL energy counters (sim_rapl.c) where uncored knows them */
	if (rapl_facts_of(p))
		out[n++] = (struct top_key){ "energy", TK_ENERGY, 0, -1, 0 };
	/* the kernel's therm_throt.c: Intel only (sim_throttle.c) */
	if (p && (!p->vendor || strcmp(p->vendor, "GenuineIntel") == 0))
		out[n++] = (struct top_key){ "thermal_throttle", TK_THROTTLE,
					     0, -1, 0 };
	return n;
}

/* The value a count key sets (0: not given). */
static unsigned *topo_count(struct wl_topology *t, const struct top_key *k)
{
	if (k->unit >= 0)
		return &t->count[k->unit];
	return (unsigned *)(void *)((char *)t + k->off);
}

/* "skl accepts: platform, sockets, ..." */
static void accepted_keys(const struct pctx *c, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < c->nkeys && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
				      c->keys[i].name);
}

/* Is name a key of some platform (for "not a skl key")? */
static bool key_of_any_platform(const char *name)
{
	struct top_key keys[TOP_KEYS_MAX];

	for (unsigned i = 0; plat_all[i]; i++)
		if (wlp_key_in(keys, plat_top_keys(plat_all[i], keys), name))
			return true;
	return false;
}

/* Does u have its instances in the same PCI functions as v (hsx
 * imc_fixed and imc, qpi_link and qpi)? */
static bool same_functions(const struct unit_type *u,
			   const struct unit_type *v)
{
	return u != v && u->space == HW_PCI && v->space == HW_PCI &&
	       u->inst_base && v->inst_base && u->max_inst == v->max_inst &&
	       memcmp(u->inst_base, v->inst_base,
		      u->max_inst * sizeof(*u->inst_base)) == 0;
}

/* The count key of unit index ui that the workload sets, or NULL. */
static const struct top_key *count_key(const struct pctx *c, int ui)
{
	for (unsigned i = 0; i < c->nkeys; i++)
		if (c->keys[i].kind == TK_COUNT && c->keys[i].unit == ui &&
		    c->w->topo.count[ui])
			return &c->keys[i];
	return NULL;
}

/*
 * Instances of unit u per socket as the workload configures it, and the
 * key that configured it (NULL: the unit's maximum).  A unit without a
 * count key of its own that lives in another unit's PCI functions has
 * that unit's count.
 */
static unsigned unit_ninst(const struct pctx *c, const struct unit_type *u,
			   const char **by)
{
	const struct top_key *k = NULL;

	*by = NULL;
	for (int i = 0; !k && c->plat->units[i]; i++)
		if (c->plat->units[i] == u || same_functions(u, c->plat->units[i]))
			k = count_key(c, i);
	if (k) {
		*by = k->name;
		return c->w->topo.count[k->unit];
	}
	return u->max_inst;
}

/* Sets the context's platform and the keys it takes. */
static void set_platform(struct pctx *c, const struct platform *p)
{
	c->plat = p;
	c->nkeys = plat_top_keys(p, c->keys);
}

int wl_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	const struct workload *w = ctx;
	const struct plat_sim *d = w ? sim_data(w->plat) : NULL;
	const struct plat_sim_cpuid_key *k = d ? d->cpuid_key : NULL;

	(void)sub;
	r[0] = r[1] = r[2] = r[3] = 0;
	for (size_t i = 0; d && d->cpuid && i < d->ncpuid; i++)
		if (d->cpuid[i].leaf == leaf)
			memcpy(r, d->cpuid[i].r, 4 * sizeof(*r));
	if (k && k->leaf == leaf && k->reg < 4 && w->topo.cpuid_val) {
		unsigned wd = (unsigned)(k->hi - k->lo + 1);
		uint32_t m = (wd >= 32 ? ~0u : (1u << wd) - 1) << k->lo;

		r[k->reg] = (r[k->reg] & ~m) |
			    ((uint32_t)w->topo.cpuid_val << k->lo & m);
	}
	return 0;
}

unsigned wl_cores(const struct workload *w)
{
	return w->topo.cores ? w->topo.cores : WL_MAX_CORES;
}

unsigned wl_unit_ninst(const struct workload *w, int unit)
{
	struct pctx c = { .w = (struct workload *)w };
	const char *by;

	if (unit < 0 || unit >= (int)plat_nunits(w->plat))
		return 0;
	set_platform(&c, w->plat);
	return unit_ninst(&c, w->plat->units[unit], &by);
}



/* ---- rate keys ------------------------------------------------------- */

/*
 * Parses a rate key:
 *   [sN/]unit:EVENT:UMASK[:thresh=N][:edge][:inv][:ext][:filter0=0x..]
 *	[:filter1=0x..][@INST]
 *   [sN/]unit:NAME[@INST]		(a free-running counter)
 * The event part goes through plat_parse_raw(), so a key accepts exactly
 * what the daemon's raw event syntax accepts.
 */
/* A rate key's fields: its body split at ':' (empty fields kept, so
 * "cbo::0x8f" is an error), without the socket prefix and "@N". */
struct key_fields {
	char body[WL_MAX_KEYLEN + 1];
	char *tok[16];
	unsigned ntok;
};

/* "[sN/]BODY[@N]": the socket, the instance and the body's fields. */
static int key_split(struct pctx *c, const char *text, struct wl_key *k,
		     struct key_fields *f)
{
	const char *s = text, *at;
	unsigned n;
	char *t;

	if (strlen(text) > WL_MAX_KEYLEN)
		return wlp_fail(c, "rate key too long (at most %d characters)",
			    WL_MAX_KEYLEN);
	if (wlp_parse_socket_prefix(c, &s, &k->socket) < 0)
		return -EINVAL;
	at = strrchr(s, '@');
	snprintf(f->body, sizeof(f->body), "%.*s",
		 (int)(at ? (size_t)(at - s) : strlen(s)), s);
	if (at && wlp_parse_dec(at + 1, strlen(at + 1), &n) < 0)
		return wlp_fail(c, "bad instance \"%s\" (expected @N with N a "
			    "decimal instance number)", at);
	if (at)
		k->inst = (int)n;
	f->ntok = 0;
	f->tok[f->ntok++] = f->body;
	for (t = f->body; (t = strchr(t, ':')) != NULL; ) {
		*t++ = '\0';
		if (f->ntok == ARRAY_SIZE(f->tok))
			return wlp_fail(c, "too many ':' fields");
		f->tok[f->ntok++] = t;
	}
	for (unsigned i = 0; i < f->ntok; i++)
		if (f->tok[i][0] == '\0')
			return wlp_fail(c, "empty field %u (expected unit:EVENT:UMASK"
				    "[:thresh=N][:edge][:inv][@INST] or "
				    "unit:COUNTER)", i + 1);
	return 0;
}

/* "unit:COUNTER": a free-running counter by name. */
static int key_freerun(struct pctx *c, const struct unit_type *u,
		       const char *name, struct wl_key *k)
{
	char list[256];
	unsigned n;

	if (name[0] >= '0' && name[0] <= '9' && u->kind != UNIT_FREERUN)
		return wlp_fail(c, "missing umask (expected %s:EVENT:UMASK, both "
			    "hex, e.g. %s:0x34:0x8f)", u->name, u->name);
	if (u->nfreerun == 0)
		return wlp_fail(c, "%s has no free-running counters (a programmable "
			    "key is %s:EVENT:UMASK, both hex, e.g. %s:0x34:0x8f)",
			    u->name, u->name, u->name);
	for (n = 0; n < u->nfreerun; n++)
		if (strcmp(u->freerun[n].name, name) == 0)
			break;
	if (n == u->nfreerun) {
		wlp_freerun_list(u, list, sizeof(list));
		return wlp_fail(c, "unknown free-running counter \"%s\" of %s "
			    "(accepted: %s)", name, u->name, list);
	}
	k->freerun = true;
	k->freerun_idx = n;
	return 0;
}

/* One modifier past EVENT:UMASK: a filter or the extension (into mods;
 * 1), or part of the raw encoding (appended to raw; 0), or an error. */
static int key_modifier(struct pctx *c, const struct unit_type *u,
			const char *tok, struct plat_mods *mods, char *raw,
			size_t *rn, size_t rawlen)
{
	char why[256];
	/* the modifiers' grammar (plat_mod.h); the rest is the raw
	 * encoding's (plat_parse_raw()) */
	int r = plat_take_modifier(tok, PLAT_MOD_FILTER | PLAT_MOD_EXT, mods,
				   why, sizeof(why));

	if (r < 0)
		return wlp_fail(c, "%s", why);
	if (r == 0) {
		*rn += (size_t)snprintf(raw + *rn, rawlen - *rn, ":%s", tok);
		return 0;
	}
	/* The event-select extension bit (hsx QPI and PCU bit 21) is not
	 * part of struct event_enc, so not given to plat_parse_raw(). */
	if (strcmp(tok, "ext") == 0 && !u->ev_ext_bit)
		return wlp_fail(c, "\"ext\": %s has no event-select extension bit",
			    u->name);
	if (strcmp(tok, "ext") != 0 && !u->nfilters)
		return wlp_fail(c, "\"%.7s\": %s has no box filter registers", tok,
			    u->name);
	if (mods->filt_set & ~3u)
		return wlp_fail(c, "\"%s\": a rate key takes filter0 and filter1 "
			    "(what the simulator derives from a box's filter "
			    "registers)", tok);
	return 1;
}

/* "unit:EVENT:UMASK[:modifiers]": a programmable counter's encoding. */
static int key_encoding(struct pctx *c, const struct unit_type *u,
			const struct key_fields *f, struct wl_key *k)
{
	char raw[WL_MAX_KEYLEN + 1], why[256], list[256];
	const struct unit_type *pu;
	struct plat_mods mods = { 0 };
	size_t rn;
	int r;

	if (u->kind == UNIT_FREERUN) {
		wlp_freerun_list(u, list, sizeof(list));
		return wlp_fail(c, "%s has only free-running counters: write "
			    "%s:NAME with NAME one of %s", u->name, u->name,
			    list);
	}
	rn = (size_t)snprintf(raw, sizeof(raw), "%s:%s:%s", f->tok[0],
			      f->tok[1], f->tok[2]);
	for (unsigned i = 3; i < f->ntok; i++)
		if ((r = key_modifier(c, u, f->tok[i], &mods, raw, &rn,
				      sizeof(raw))) < 0)
			return r;
	k->ext = mods.ext;
	k->has_filter0 = mods.filt_set & 1;
	k->has_filter1 = (mods.filt_set >> 1) & 1;
	k->filter0 = mods.filt[0];
	k->filter1 = mods.filt[1];
	why[0] = '\0';
	if (plat_parse_raw(c->plat, raw, &pu, &k->enc, why, sizeof(why)) < 0)
		return wlp_fail(c, "bad rate key: %s", why[0] ? why : raw);
	if (pu != u)
		return wlp_fail(c, "bad rate key: \"%s\" resolves to unit %s, not %s",
			    raw, pu ? pu->name : "?", u->name);
	return 0;
}

/* "@N" names an instance the workload has (a core for a core-scope
 * counter). */
static int key_instance(struct pctx *c, const struct unit_type *u,
			const struct wl_key *k)
{
	const char *by;
	unsigned ninst = unit_ninst(c, u, &by);

	if (k->inst < 0)
		return 0;
	if (k->freerun && u->freerun[k->freerun_idx].core_scope) {
		ninst = wl_cores(c->w);	/* one counter per core */
		by = "cores";
	}
	if ((unsigned)k->inst < ninst)
		return 0;
	if (by)
		return wlp_fail(c, "instance %d out of range (%s is %u: 0..%u)",
			    k->inst, by, ninst, ninst - 1);
	return wlp_fail(c, "instance %d out of range (%s has %u instance%s: "
		    "0..%u)", k->inst, u->name, ninst, ninst == 1 ? "" : "s",
		    ninst - 1);
}

int wlp_parse_rate_key(struct pctx *c, const char *text, struct wl_key *k)
{
	const struct unit_type *u;
	struct key_fields f;
	char list[256];
	int ui, r;

	memset(k, 0, sizeof(*k));
	k->inst = -1;
	snprintf(k->text, sizeof(k->text), "%s", text);
	if ((r = key_split(c, text, k, &f)) < 0)
		return r;
	u = plat_unit(c->plat, f.tok[0], &ui);
	if (!u) {
		wlp_unit_list(c->plat, list, sizeof(list));
		return wlp_fail(c, "unknown unit \"%s\" (%s units: %s)", f.tok[0],
			    c->plat->id, list);
	}
	k->unit = ui;
	if (u->kind == UNIT_FIXED)
		return wlp_fail(c, "%s is a fixed counter that counts the uncore "
			    "clock; set \"uclk_hz\" instead of a rate", u->name);
	if (f.ntok == 1)
		return wlp_fail(c, "incomplete rate key (expected %s:EVENT:UMASK "
			    "in hex, or %s:COUNTER for a free-running counter)",
			    u->name, u->name);
	r = f.ntok == 2 ? key_freerun(c, u, f.tok[1], k)
			: key_encoding(c, u, &f, k);
	return r < 0 ? r : key_instance(c, u, k);
}

bool wl_key_eq(const struct wl_key *a, const struct wl_key *b)
{
	if (a->socket != b->socket || a->inst != b->inst ||
	    a->unit != b->unit || a->freerun != b->freerun)
		return false;
	if (a->freerun)
		return a->freerun_idx == b->freerun_idx;
	return a->enc.code == b->enc.code && a->enc.umask == b->enc.umask &&
	       a->enc.thresh == b->enc.thresh && a->enc.edge == b->enc.edge &&
	       a->enc.inv == b->enc.inv && a->ext == b->ext &&
	       a->has_filter0 == b->has_filter0 &&
	       a->has_filter1 == b->has_filter1 &&
	       (!a->has_filter0 || a->filter0 == b->filter0) &&
	       (!a->has_filter1 || a->filter1 == b->filter1);
}

/* ---- phases ---------------------------------------------------------- */

/* One "rates" entry before the rates matrix can be sized. */
struct rate_ent {
	unsigned key, phase;
	double rate;
};

struct phase_acc {
	struct rate_ent *ents;
	size_t nents, cap;
	unsigned *last_phase;	/* per key: last phase that set it, +1 */
	const char **phase_text;	/* per key: as written in that phase */
	unsigned keycap;
	json_object **lat;	/* per phase: its "memory_latency", or NULL */
};

static int add_key(struct pctx *c, struct phase_acc *a, const struct wl_key *k,
		   unsigned *idx)
{
	struct workload *w = c->w;

	for (unsigned i = 0; i < w->nkeys; i++) {
		if (wl_key_eq(&w->keys[i], k)) {
			*idx = i;
			return 0;
		}
	}
	if (w->nkeys >= WL_MAX_KEYS)
		return wlp_fail(c, "too many distinct rate keys (at most %d over "
			    "all phases)", WL_MAX_KEYS);
	if (w->nkeys == a->keycap) {
		unsigned cap = a->keycap ? a->keycap * 2 : 16;
		struct wl_key *nk = realloc(w->keys, cap * sizeof(*nk));
		unsigned *nl;
		const char **nt;

		if (!nk)
			return wlp_fail_nomem(c);
		w->keys = nk;
		nl = realloc(a->last_phase, cap * sizeof(*nl));
		if (!nl)
			return wlp_fail_nomem(c);
		a->last_phase = nl;
		nt = realloc(a->phase_text, cap * sizeof(*nt));
		if (!nt)
			return wlp_fail_nomem(c);
		a->phase_text = nt;
		a->keycap = cap;
	}
	w->keys[w->nkeys] = *k;
	a->last_phase[w->nkeys] = 0;
	*idx = w->nkeys++;
	return 0;
}

static int parse_rates(struct pctx *c, struct phase_acc *a, json_object *o,
		       unsigned p)
{
	if (!json_object_is_type(o, json_type_object))
		return wlp_fail(c, "must be an object of \"KEY\": events per second "
			    "(e.g. {\"UNIT:0xEVENT:0xUMASK\": 2.0e8}), not %s",
			    wlp_type_name(o));
	json_object_object_foreach(o, key, val) {
		size_t old = wlp_path_key(c, key);
		struct wl_key k;
		unsigned idx = 0;
		double rate;
		int r;

		r = wlp_parse_rate_key(c, key, &k);
		if (r < 0)
			return r;
		r = add_key(c, a, &k, &idx);
		if (r < 0)
			return r;
		if (a->last_phase[idx] == p + 1)
			return wlp_fail(c, "counts the same as \"%s\" in this "
				    "phase (equal once normalised); give each "
				    "counter once per phase",
				    a->phase_text[idx]);
		a->last_phase[idx] = p + 1;
		a->phase_text[idx] = key;
		r = wlp_get_number(c, val, 0, false, WL_MAX_RATE,
			       "events per second per socket", &rate);
		if (r < 0)
			return r;
		if (a->nents == a->cap) {
			size_t cap = a->cap ? a->cap * 2 : 64;
			struct rate_ent *ne = realloc(a->ents, cap * sizeof(*ne));

			if (!ne)
				return wlp_fail_nomem(c);
			a->ents = ne;
			a->cap = cap;
		}
		a->ents[a->nents++] = (struct rate_ent){ idx, p, rate };
		wlp_path_pop(c, old);
	}
	return 0;
}

static int parse_phase(struct pctx *c, struct phase_acc *a, json_object *o,
		       unsigned p)
{
	json_object *secs = NULL, *rates = NULL;
	size_t old;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return wlp_fail(c, "a phase must be an object {\"seconds\": N, "
			    "\"rates\": {...}}, not %s", wlp_type_name(o));
	json_object_object_foreach(o, key, val) {
		if (strcmp(key, "seconds") == 0) {
			secs = val;
		} else if (strcmp(key, "rates") == 0) {
			rates = val;
		} else if (strcmp(key, "memory_latency") == 0) {
			a->lat[p] = val;	/* sim_wl_lat.c, once every
						   phase's rates are known */
		} else {
			wlp_path_key(c, key);
			return wlp_fail(c, "unknown key (a phase accepts: seconds, "
				    "rates, memory_latency)");
		}
	}
	if (!secs)
		return wlp_fail(c, "missing \"seconds\" (the phase's duration, a "
			    "number > 0)");
	if (!rates)
		return wlp_fail(c, "missing \"rates\" (an object of \"KEY\": events "
			    "per second; may be empty)");
	old = wlp_path_key(c, "seconds");
	r = wlp_get_number(c, secs, 0, true, WL_MAX_PHASE_S, "the phase's duration "
		       "in seconds", &c->w->phase_s[p]);
	if (r < 0)
		return r;
	wlp_path_pop(c, old);
	old = wlp_path_key(c, "rates");
	r = parse_rates(c, a, rates, p);
	if (r < 0)
		return r;
	wlp_path_pop(c, old);
	return 0;
}

/* The phases' "memory_latency" curves into rate keys (sim_wl_lat.c),
 * once the phases' own rates are in place. */
static int expand_curves(struct pctx *c, struct phase_acc *a)
{
	unsigned np = c->w->nphases;
	bool *given, any = false;
	int r;

	for (unsigned p = 0; p < np; p++)
		any |= a->lat[p] != NULL;
	if (!any)
		return 0;
	given = calloc((size_t)c->w->nkeys * np + 1, sizeof(*given));
	if (!given)
		return wlp_fail_nomem(c);
	for (size_t i = 0; i < a->nents; i++)
		given[(size_t)a->ents[i].key * np + a->ents[i].phase] = true;
	r = wlp_lat_expand(c, a->lat, given);
	free(given);
	return r;
}

static int parse_phases(struct pctx *c, json_object *o)
{
	struct workload *w = c->w;
	struct phase_acc a = { 0 };
	size_t n;
	int r = 0;

	if (!json_object_is_type(o, json_type_array))
		return wlp_fail(c, "must be an array of phases [{\"seconds\": N, "
			    "\"rates\": {...}}, ...], not %s", wlp_type_name(o));
	n = json_object_array_length(o);
	if (n == 0)
		return wlp_fail(c, "empty: at least one phase is needed");
	if (n > WL_MAX_PHASES)
		return wlp_fail(c, "%zu phases: at most %d", n, WL_MAX_PHASES);
	w->nphases = (unsigned)n;
	w->phase_s = calloc(n, sizeof(*w->phase_s));
	a.lat = calloc(n, sizeof(*a.lat));
	if (!w->phase_s || !a.lat) {
		free(a.lat);
		return wlp_fail_nomem(c);
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		size_t old = wlp_path_idx(c, i);

		r = parse_phase(c, &a, json_object_array_get_idx(o, i),
				(unsigned)i);
		if (r == 0)
			wlp_path_pop(c, old);
	}
	if (r == 0) {
		w->period_s = 0;
		for (unsigned i = 0; i < w->nphases; i++)
			w->period_s += w->phase_s[i];
		w->rates = calloc((size_t)w->nkeys * w->nphases + 1,
				  sizeof(*w->rates));
		if (!w->rates)
			r = wlp_fail_nomem(c);
	}
	for (size_t i = 0; r == 0 && i < a.nents; i++)
		w->rates[(size_t)a.ents[i].key * w->nphases + a.ents[i].phase] =
			a.ents[i].rate;
	if (r == 0)
		r = expand_curves(c, &a);
	free(a.lat);
	free(a.ents);
	free(a.last_phase);
	free(a.phase_text);
	return r;
}

/* ---- the simulated kernel ("perf") ----------------------------------- */

/* Does glob pattern pat match some PMU of the workload (cb of
 * wl_perf_pmus(); ctx: the pattern)? */
static int pmu_glob_hit(void *ctx, const struct wl_pmu *p)
{
	return fnmatch((const char *)ctx, p->name, 0) == 0;
}

/* Appends a PMU's name to a list (deduplicated against the previous
 * name, which is how wl_perf_pmus() repeats them). */
struct pmu_names {
	char *buf;
	size_t len, n;
	unsigned count;
};

/* Is name one of the ", "-separated names in list? */
static bool list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static int pmu_name_add(void *ctx, const struct wl_pmu *p)
{
	struct pmu_names *l = ctx;

	if (list_has(l->buf, p->name))
		return 0;
	if (l->count++ == 12) {
		l->n += (size_t)snprintf(l->buf + l->n, l->len - l->n, ", ...");
		return 1;
	}
	l->n += (size_t)snprintf(l->buf + l->n, l->len - l->n, "%s%s",
				 l->n ? ", " : "", p->name);
	return l->n >= l->len;
}

/*
 * A PMU name or glob ("uncore_imc_*") of the simulated kernel: a fault
 * target or a "missing_pmus" entry.  It must match at least one PMU the
 * platform has in this topology.
 */
static int parse_pmu_pattern(struct pctx *c, const char *s, char *out,
			     size_t outlen)
{
	char list[400] = "";
	struct pmu_names l = { list, sizeof(list), 0, 0 };

	if (!*s || strlen(s) >= outlen ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_*?[]-") !=
	    strlen(s))
		return wlp_fail(c, "bad PMU name \"%s\" (a kernel PMU name as "
			    "sysfs lists it, at most %zu characters of a-z, 0-9 "
			    "and _, or a glob such as \"uncore_*_0\")", s,
			    outlen - 1);
	if (wl_perf_pmus(c->w, pmu_glob_hit, (void *)s) <= 0) {
		wl_perf_pmus(c->w, pmu_name_add, &l);
		return wlp_fail(c, "no PMU of %s matches \"%s\" (%s)", c->plat->id,
			    s, l.count ? list : "the platform has no kernel "
			    "PMU facts");
	}
	snprintf(out, outlen, "%s", s);
	return 0;
}


#define WL_MAX_MISSING 64

/* "missing_pmus": PMU names or globs the simulated kernel lacks. */
static int parse_missing(struct pctx *c, json_object *o)
{
	struct wl_perf *pf = &c->w->perf;
	size_t n;

	if (!json_object_is_type(o, json_type_array))
		return wlp_fail(c, "must be an array of PMU names or globs "
			    "(\"uncore_*_1\"), not %s", wlp_type_name(o));
	n = json_object_array_length(o);
	if (n > WL_MAX_MISSING)
		return wlp_fail(c, "%zu PMUs: at most %d", n, WL_MAX_MISSING);
	pf->missing = calloc(n ? n : 1, sizeof(*pf->missing));
	if (!pf->missing)
		return wlp_fail_nomem(c);
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(o, i);
		size_t old = wlp_path_idx(c, i);
		int r;

		if (!json_object_is_type(e, json_type_string))
			return wlp_fail(c, "must be a PMU name (a string), not %s",
				    wlp_type_name(e));
		r = parse_pmu_pattern(c, json_object_get_string(e),
				      pf->missing[i], WL_PMU_NAME_MAX);
		if (r < 0)
			return r;
		pf->nmissing++;
		wlp_path_pop(c, old);
	}
	return 0;
}

/* "missing_events": events/ alias names or globs the kernel leaves out. */
static int parse_missing_ev(struct pctx *c, json_object *o)
{
	struct wl_perf *pf = &c->w->perf;
	size_t n;

	if (!json_object_is_type(o, json_type_array))
		return wlp_fail(c, "must be an array of event alias names or "
			    "globs (\"*_write\"), not %s", wlp_type_name(o));
	n = json_object_array_length(o);
	if (n > WL_MAX_MISSING)
		return wlp_fail(c, "%zu events: at most %d", n, WL_MAX_MISSING);
	pf->missing_ev = calloc(n ? n : 1, sizeof(*pf->missing_ev));
	if (!pf->missing_ev)
		return wlp_fail_nomem(c);
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(o, i);
		size_t old = wlp_path_idx(c, i);
		const char *v = json_object_is_type(e, json_type_string)
				? json_object_get_string(e) : NULL;

		if (!v || !*v || strlen(v) >= WL_PMU_NAME_MAX ||
		    strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_-.*?[]") !=
		    strlen(v))
			return wlp_fail(c, "must be an event alias name or glob "
				    "(at most %d characters of a-z, 0-9, _, -, "
				    ". and glob characters)",
				    WL_PMU_NAME_MAX - 1);
		snprintf(pf->missing_ev[i], WL_PMU_NAME_MAX, "%s", v);
		pf->nmissing_ev++;
		wlp_path_pop(c, old);
	}
	return 0;
}

bool wl_perf_event_missing(const struct workload *w, const char *name)
{
	for (unsigned i = 0; w && i < w->perf.nmissing_ev; i++)
		if (fnmatch(w->perf.missing_ev[i], name, 0) == 0)
			return true;
	return false;
}

/* One member of "perf". */
static int parse_perf_member(struct pctx *c, const char *key, json_object *v)
{
	struct wl_perf *pf = &c->w->perf;
	uint64_t x;
	unsigned ver;
	int r;

	if (strcmp(key, "paranoid") == 0) {
		if (json_object_is_type(v, json_type_int) &&
		    json_object_get_int64(v) == -1) {
			x = 0;
			pf->paranoid = -1;
		} else if ((r = wlp_get_uint(c, v, 0, 4, "kernel.perf_event_paranoid: "
					 "-1..2, 3 and 4 on kernels with the "
					 "Debian/Android patch", &x)) < 0) {
			return r;
		} else {
			pf->paranoid = (int)x;
		}
		pf->has_paranoid = true;
		return 0;
	}
	if (strcmp(key, "cap_perfmon") == 0) {
		if (!json_object_is_type(v, json_type_boolean))
			return wlp_fail(c, "must be true or false (does the daemon "
				    "hold CAP_PERFMON), not %s", wlp_type_name(v));
		pf->no_cap = !json_object_get_boolean(v);
		return 0;
	}
	if (strcmp(key, "missing_pmus") == 0)
		return parse_missing(c, v);
	if (strcmp(key, "missing_events") == 0)
		return parse_missing_ev(c, v);
	if (strcmp(key, "cpu_model") == 0) {
		if ((r = wlp_get_uint(c, v, 1, 255, "a CPUID display model",
				      &x)) < 0)
			return r;
		pf->cpu_model = (unsigned)x;
		return 0;
	}
	if (strcmp(key, "kernel") == 0) {
		const char *k = json_object_is_type(v, json_type_string)
				? json_object_get_string(v) : NULL;

		if (!k || strlen(k) >= sizeof(pf->kernel) ||
		    wl_kernel_version(k, &ver) < 0)
			return wlp_fail(c, "must be a kernel release string such as "
				    "\"6.8.0-45-generic\" (MAJOR.MINOR first, at "
				    "most %zu characters), not %s",
				    sizeof(pf->kernel) - 1,
				    k ? k : wlp_type_name(v));
		snprintf(pf->kernel, sizeof(pf->kernel), "%s", k);
		return 0;
	}
	return wlp_fail(c, "unknown key (\"perf\" accepts: paranoid, cap_perfmon, "
		    "missing_pmus, missing_events, cpu_model, kernel)");
}

/* The "perf" object: what the simulated kernel is like. */
static int parse_perf(struct pctx *c, json_object *o)
{
	if (!json_object_is_type(o, json_type_object))
		return wlp_fail(c, "must be an object {\"paranoid\": N, "
			    "\"cap_perfmon\": bool, \"missing_pmus\": [...], "
			    "\"kernel\": \"X.Y\"}, not %s", wlp_type_name(o));
	json_object_object_foreach(o, key, val) {
		size_t old = wlp_path_key(c, key);
		int r = parse_perf_member(c, key, val);

		if (r < 0)
			return r;
		wlp_path_pop(c, old);
	}
	return 0;
}

/* Up to three decimal digits at *p (a value <= 255); advances *p. */
static int kver_part(const char **p, unsigned *v)
{
	unsigned x = 0, n = 0;

	for (; **p >= '0' && **p <= '9'; (*p)++, n++)
		x = x * 10 + (unsigned)(**p - '0');
	if (n == 0 || n > 3 || x > 255)
		return -EINVAL;
	*v = x;
	return 0;
}

int wl_kernel_version(const char *rel, unsigned *v)
{
	unsigned major, minor, patch = 0;
	const char *p = rel;

	if (kver_part(&p, &major) < 0 || major < 2 || *p++ != '.' ||
	    kver_part(&p, &minor) < 0)
		return -EINVAL;
	if (*p == '.' && (p++, kver_part(&p, &patch) < 0))
		return -EINVAL;
	*v = major << 16 | minor << 8 | patch;
	return 0;
}

int wl_perf_paranoid(const struct workload *w)
{
	return w->perf.has_paranoid ? w->perf.paranoid : 2;
}

bool wl_perf_capable(const struct workload *w)
{
	return !w->perf.no_cap;
}

const char *wl_perf_release(const struct workload *w)
{
	return w->perf.kernel[0] ? w->perf.kernel : WL_PERF_KERNEL;
}

unsigned wl_perf_version(const struct workload *w)
{
	unsigned v = 0;

	wl_kernel_version(wl_perf_release(w), &v);
	return v;
}

/* name = pattern with its one "%u" replaced by inst.  false if the
 * pattern has another '%' or does not fit. */
static bool pmu_expand(const char *pat, unsigned inst, char *name,
		       size_t len)
{
	const char *pc = strchr(pat, '%');
	int n;

	if (!pc) {
		n = snprintf(name, len, "%s", pat);
	} else {
		if (pc[1] != 'u' || strchr(pc + 1, '%'))
			return false;
		n = snprintf(name, len, "%.*s%u%s", (int)(pc - pat), pat, inst,
			     pc + 2);
	}
	return n > 0 && (size_t)n < len;
}

/* Does the platform's uncore belong to AMD's driver (its naming)? */
static bool amd_driver(const struct platform *p)
{
	return p->vendor && strcmp(p->vendor, "AuthenticAMD") == 0;
}

/* One unit's PMU facts pu: the PMU, or one per box for a "%u" name (per
 * box and socket under AMD's driver).  The kernel registers at most the
 * boxes its driver's table has (intel_uncore_type.num_boxes, which the
 * unit's max_inst records): a 10-slice Comet Lake gets uncore_cbox_0..7
 * (uncore_snb.c skl_uncore_cbox, num_boxes 8), as the register model
 * serves 8 CBos of 10. */
static int unit_pmus(const struct workload *w, int ui,
		     const struct perf_unit *pu,
		     int (*cb)(void *, const struct wl_pmu *), void *ctx)
{
	char name[WL_PMU_NAME_MAX];
	struct wl_pmu p = { name, ui, -1, -1, pu };
	bool per_box = strchr(pu->pmu, '%') != NULL;
	bool per_socket = per_box && amd_driver(w->plat);
	unsigned ninst = per_box ? wl_unit_ninst(w, ui) : 1;
	unsigned max = w->plat->units[ui]->max_inst;

	if (max && ninst > max)
		ninst = max;
	unsigned nsock = per_socket ? wl_sockets(w) : 1;
	int r;

	/* several dies: each die has box numbers 0 .. count/dies - 1, one
	 * PMU each (uncore_get_pmu_name(): the discovery table's box id) */
	if (per_box && !per_socket && wl_dies(w) > 1)
		ninst = (ninst + wl_dies(w) - 1) / wl_dies(w);

	for (unsigned n = 0; n < ninst * nsock; n++) {
		if (!pmu_expand(pu->pmu, n, name, sizeof(name)))
			return 0;	/* malformed: skern_open() says so */
		p.inst = per_box ? (int)(n % ninst) : -1;
		p.socket = per_socket ? (int)(n / ninst) : -1;
		if ((r = cb(ctx, &p)) != 0)
			return r;
	}
	return 0;
}

unsigned wl_dies(const struct workload *w)
{
	return w->topo.dies ? w->topo.dies : 1;
}

unsigned wl_sockets(const struct workload *w)
{
	unsigned n = w->topo.sockets ? w->topo.sockets : 1;

	return n < PLAT_MAX_SOCKETS ? n : PLAT_MAX_SOCKETS;
}

int wl_perf_pmus(const struct workload *w,
		 int (*cb)(void *, const struct wl_pmu *), void *ctx)
{
	const struct platform *p = w->plat;
	int r;

	for (int ui = 0; p->units[ui]; ui++) {
		const struct perf_unit *pu = p->units[ui]->perf;
		unsigned since;

		if (!pu || !pu->pmu)
			continue;
		/* the unit as the workload's kernel names it (perf_unit
		 * .older: a kernel before .since) */
		while (pu->older && pu->since &&
		       wl_kernel_version(pu->since, &since) == 0 &&
		       wl_perf_version(w) < since)
			pu = pu->older;
		if ((r = unit_pmus(w, ui, pu, cb, ctx)) != 0)
			return r;
		if (pu->also && pu->also->pmu &&
		    (r = unit_pmus(w, ui, pu->also, cb, ctx)) != 0)
			return r;
	}
	return 0;
}

void wl_filter_slot(const struct unit_type *u, unsigned f, int *dst,
		    unsigned *shift)
{
	unsigned nother = 0;

	*dst = -1;
	*shift = 0;
	if (f >= u->nfilters)
		return;
	if (u->filters[f].flag == EVF_FILTER0 ||
	    u->filters[f].flag == EVF_FILTER1) {
		*dst = u->filters[f].flag == EVF_FILTER0 ? 0 : 1;
		return;
	}
	for (unsigned j = 0; j < f; j++)
		if (u->filters[j].flag != EVF_FILTER0 &&
		    u->filters[j].flag != EVF_FILTER1)
			nother++;
	if (nother / 2 < 2)
		*dst = (int)(nother / 2);
	*shift = 32 * (nother % 2);
}

/* ---- topology -------------------------------------------------------- */

/* "offline_cpus": [CPU, ...], the simulator's CPU numbers (socket s has
 * 8s .. 8s+7, its cores first); checked against "sockets" and "cores"
 * once every key is read (check_offline()). */
static int parse_offline(struct pctx *c, json_object *v)
{
	size_t n;

	if (!json_object_is_type(v, json_type_array))
		return wlp_fail(c, "must be an array of CPU numbers (socket s has "
			    "CPUs %d*s .. %d*s+cores-1), not %s", WL_MAX_CORES,
			    WL_MAX_CORES, wlp_type_name(v));
	n = json_object_array_length(v);
	for (size_t i = 0; i < n; i++) {
		size_t old = wlp_path_idx(c, i);
		uint64_t cpu;
		int r = wlp_get_uint(c, json_object_array_get_idx(v, i), 0,
				 PLAT_MAX_SOCKETS * WL_MAX_CORES - 1,
				 "a simulated CPU number", &cpu);

		if (r < 0)
			return r;
		c->w->topo.offline |= 1ull << cpu;
		wlp_path_pop(c, old);
	}
	return 0;
}

/* Every offline CPU is a core of a socket the workload has, and every
 * socket keeps an online core (its MSRs are reached through one). */
static int check_offline(struct pctx *c)
{
	const struct wl_topology *t = &c->w->topo;
	unsigned sockets = t->sockets ? t->sockets : 1;
	unsigned cores = t->cores ? t->cores : WL_MAX_CORES;
	uint64_t all = (1ull << cores) - 1;

	for (unsigned cpu = 0; cpu < 64; cpu++)
		if ((t->offline >> cpu & 1) &&
		    (cpu / WL_MAX_CORES >= sockets || cpu % WL_MAX_CORES >= cores))
			return wlp_fail(c, "offline_cpus: CPU %u is no core of the "
				    "simulated machine (%u socket%s of %u cores: "
				    "CPUs %d*s .. %d*s+%u)", cpu, sockets,
				    sockets == 1 ? "" : "s", cores, WL_MAX_CORES,
				    WL_MAX_CORES, cores - 1);
	for (unsigned s = 0; s < sockets; s++)
		if ((t->offline >> (s * WL_MAX_CORES) & all) == all)
			return wlp_fail(c, "offline_cpus: every core of socket %u "
				    "is offline (its MSRs are reached through an "
				    "online one)", s);
	return 0;
}

/* With several dies every die has the same boxes: each unit count the
 * workload sets (or its default) is a multiple of "dies". */
static int check_dies(struct pctx *c)
{
	unsigned dies = c->w->topo.dies;
	const char *by;

	if (dies <= 1)
		return 0;
	for (unsigned i = 0; i < c->nkeys; i++) {
		const struct top_key *k = &c->keys[i];
		unsigned n;

		if (k->kind != TK_COUNT || k->unit < 0)
			continue;
		n = unit_ninst(c, c->plat->units[k->unit], &by);
		if (n % dies)
			return wlp_fail(c, "%s: %u is not a multiple of dies (%u): "
				    "every die has the same boxes", k->name, n,
				    dies);
	}
	return 0;
}

static int parse_top_value(struct pctx *c, const struct top_key *k,
			   json_object *v)
{
	const struct plat_sim *d = sim_data(c->plat);
	struct wl_topology *t = &c->w->topo;
	uint64_t x, valid;
	double dbl;
	char what[64];
	int r;

	switch (k->kind) {
	case TK_DISTINCT:
		if (!json_object_is_type(v, json_type_boolean))
			return wlp_fail(c, "must be true or false, not %s",
					wlp_type_name(v));
		c->w->distinct = json_object_get_boolean(v);
		return 0;
	case TK_CPUID:
		snprintf(what, sizeof(what), "%s: 1 to %u", d->cpuid_key->what,
			 k->max);
		r = wlp_get_uint(c, v, 1, k->max, what, &x);
		if (r < 0)
			return r;
		t->cpuid_val = (unsigned)x;
		return 0;
	case TK_COUNT:
		snprintf(what, sizeof(what), "%s allows at most %u", c->plat->id,
			 k->max);
		r = wlp_get_uint(c, v, 1, k->max, what, &x);
		if (r < 0)
			return r;
		*topo_count(t, k) = (unsigned)x;
		return 0;
	case TK_HZ:
		r = wlp_get_number(c, v, 0, true, (double)WL_MAX_UCLK,
			       strcmp(k->name, "dclk_hz") == 0
			       ? "the DRAM clock (DCLK) in Hz, an integer"
			       : "the uncore clock in Hz, an integer", &dbl);
		if (r < 0)
			return r;
		if (dbl != floor(dbl))
			return wlp_fail(c, "%s is not a whole number of Hz",
				    json_object_get_string(v));
		*(uint64_t *)(void *)((char *)t + k->off) = (uint64_t)dbl;
		return 0;
	case TK_MMIO_BAR: {
		const struct plat_sim_reg *bar = &d->regs[d->mmio_bar];

		if (!json_object_is_type(v, json_type_string))
			return wlp_fail(c, "must be a hex string like "
				    "\"0x%" PRIx64 "\" (the raw value of PCI "
				    "0:%x.%x offset 0x%x), not %s", bar->reset,
				    bar->devfn >> 3, bar->devfn & 7, bar->addr,
				    wlp_type_name(v));
		r = wlp_parse_hex(json_object_get_string(v), UINT64_MAX, &x);
		if (r < 0)
			return wlp_fail(c, "bad hex value \"%s\" (expected \"0x\" "
				    "followed by 1 to 16 hex digits, e.g. "
				    "\"0x%" PRIx64 "\")", json_object_get_string(v),
				    bar->reset);
		valid = d->mmio_mask | d->mmio_enable;
		if (x & ~valid)
			return wlp_fail(c, "%s sets reserved bits 0x%" PRIx64 " (%s "
				    "holds the base in bits %d:%d and the "
				    "enable in bit %d)", json_object_get_string(v),
				    x & ~valid, d->mmio_name ? d->mmio_name : k->name,
				    63 - __builtin_clzll(d->mmio_mask),
				    __builtin_ctzll(d->mmio_mask),
				    __builtin_ctzll(d->mmio_enable));
		t->mmio_bar = x;
		t->has_mmio_bar = true;
		return 0;
	}
	case TK_OFFLINE:
		return parse_offline(c, v);
	case TK_MMIO_DEV:
		if (!json_object_is_type(v, json_type_string) ||
		    wlp_parse_hex(json_object_get_string(v), 0xffff, &x) < 0)
			return wlp_fail(c, "must be a hex string \"0x...\" of 1 to 4 "
				    "digits (the PCI device ID of the function "
				    "holding %s), not %s",
				    d->mmio_name ? d->mmio_name : "the MMIO window",
				    json_object_to_json_string(v));
		t->mmio_dev = (uint16_t)x;
		t->has_mmio_dev = true;
		return 0;
	default:
		return 0;
	}
}

/* Resolves the platform from the "platform" key and the caller's. */
static int resolve_platform(struct pctx *c, json_object *root,
			    const struct platform *want)
{
	json_object *v;
	char list[128];
	size_t n = 0, old;
	const char *id;

	list[0] = '\0';
	for (unsigned i = 0; plat_all[i] && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
				      i ? ", " : "", plat_all[i]->id);

	if (!json_object_object_get_ex(root, "platform", &v)) {
		if (!want)
			return wlp_fail(c, "missing \"platform\" (needed when no "
				    "platform is chosen otherwise; supported: "
				    "%s)", list);
		c->plat = want;
		return 0;
	}
	old = wlp_path_key(c, "platform");
	if (!json_object_is_type(v, json_type_string))
		return wlp_fail(c, "must be a string (a platform id; supported: "
			    "%s), not %s", list, wlp_type_name(v));
	id = json_object_get_string(v);
	if (want) {
		if (strcmp(want->id, id) != 0)
			return wlp_fail(c, "workload is for platform \"%s\" but the "
				    "simulator runs \"%s\" (change one or "
				    "remove \"platform\")", id, want->id);
		c->plat = want;
	} else {
		c->plat = plat_by_id(id);
		if (!c->plat)
			return wlp_fail(c, "unknown platform \"%s\" (supported by "
				    "this build: %s)", id, list);
	}
	wlp_path_pop(c, old);
	return 0;
}

/*
 * A unit with one instance per core (snbep's CBos: discovery, like the
 * kernel, counts min(8, cores)): its count defaults to "cores" and may
 * not exceed it.
 */
static int per_core_counts(struct pctx *c)
{
	const struct plat_sim *d = sim_data(c->plat);
	const struct top_key *k = NULL;
	unsigned *n;
	int ui;

	if (!d || !d->per_core_unit || !c->w->topo.cores ||
	    !plat_unit(c->plat, d->per_core_unit, &ui))
		return 0;
	n = &c->w->topo.count[ui];
	for (unsigned i = 0; i < c->nkeys && !k; i++)
		if (c->keys[i].kind == TK_COUNT && c->keys[i].unit == ui)
			k = &c->keys[i];
	if (*n > c->w->topo.cores)
		return wlp_fail(c, "%s %u > cores %u: %s has one %s per core",
			    k ? k->name : "count", *n, c->w->topo.cores,
			    c->plat->id, d->per_core_unit);
	if (!*n)
		*n = c->w->topo.cores;
	return 0;
}

/* One of the sections parsed after the topology, at $.name. */
static int parse_section(struct pctx *c, const char *name, json_object *o,
			 int (*parse)(struct pctx *, json_object *))
{
	int r;

	if (!o)
		return 0;
	wlp_path_key(c, name);
	r = parse(c, o);
	if (r < 0)
		return r;
	wlp_path_pop(c, 1);
	return 0;
}

static int parse_root(struct pctx *c, json_object *root,
		      const struct platform *want)
{
	json_object *phases = NULL, *faults = NULL, *perf = NULL;
	json_object *ufreq = NULL, *rdt = NULL, *energy = NULL;
	json_object *throttle = NULL;
	char list[256];
	int r;

	r = resolve_platform(c, root, want);
	if (r < 0)
		return r;
	c->w->plat = c->plat;
	set_platform(c, c->plat);

	/* Topology first, whatever the key order: rate keys and targets are
	 * checked against it. */
	json_object_object_foreach(root, key, val) {
		const struct top_key *k = wlp_key_in(c->keys, c->nkeys, key);
		size_t old = wlp_path_key(c, key);

		if (!k) {
			accepted_keys(c, list, sizeof(list));
			if (key_of_any_platform(key))
				return wlp_fail(c, "\"%s\" is not a %s key (%s "
					    "accepts: %s)", key, c->plat->id,
					    c->plat->id, list);
			return wlp_fail(c, "unknown key (%s accepts: %s)",
				    c->plat->id, list);
		}
		if (k->kind == TK_PHASES)
			phases = val;
		else if (k->kind == TK_FAULTS)
			faults = val;
		else if (k->kind == TK_PERF)
			perf = val;
		else if (k->kind == TK_UFREQ)
			ufreq = val;
		else if (k->kind == TK_RDT)
			rdt = val;
		else if (k->kind == TK_ENERGY)
			energy = val;
		else if (k->kind == TK_THROTTLE)
			throttle = val;
		r = parse_top_value(c, k, val);
		if (r < 0)
			return r;
		wlp_path_pop(c, old);
	}
	if ((r = per_core_counts(c)) < 0 || (r = check_offline(c)) < 0 ||
	    (r = check_dies(c)) < 0)
		return r;
	if (!phases)
		return wlp_fail(c, "missing \"phases\" (an array of {\"seconds\": N, "
			    "\"rates\": {...}})");
	if ((r = parse_section(c, "phases", phases, parse_phases)) < 0 ||
	    (r = parse_section(c, "perf", perf, parse_perf)) < 0 ||
	    (r = parse_section(c, "uncore_freq", ufreq, wlp_parse_ufreq)) < 0 ||
	    (r = parse_section(c, "resctrl", rdt, wlp_parse_rdt)) < 0 ||
	    (r = parse_section(c, "energy", energy, wlp_parse_energy)) < 0 ||
	    (r = parse_section(c, "thermal_throttle", throttle,
			       wlp_parse_throttle)) < 0)
		return r;
	return parse_section(c, "faults", faults, wlp_parse_faults);
}

/* ---- duplicate keys -------------------------------------------------- */

/*
 * json-c keeps the last of two equal keys in an object without a word,
 * which would make a workload silently differ from what it says.  This
 * walks the (already validated) text once more and reports the first
 * duplicate with its JSON path.  Keys are compared after unescaping.
 */
struct dframe {
	bool obj, want_key;
	size_t idx;
	json_object *seen;	/* object used as a set of keys */
	char *key;
};

static char *dup_key_text(const char *s, size_t n)
{
	json_object *o;
	char *r;

	if (!memchr(s + 1, '\\', n - 2)) {
		r = malloc(n - 1);
		if (r) {
			memcpy(r, s + 1, n - 2);
			r[n - 2] = '\0';
		}
		return r;
	}
	o = json_tokener_parse(s);	/* s.. is a valid string token */
	r = o && json_object_is_type(o, json_type_string)
	    ? strdup(json_object_get_string(o)) : NULL;
	json_object_put(o);
	return r;
}

/* The key text[i..j] (quotes included) of the object st[top]: recorded,
 * or a duplicate-key error at its JSON path. */
static int dup_key(struct pctx *c, const char *text, size_t len,
		   struct dframe *st, int top, size_t i, size_t j)
{
	struct dframe *f = &st[top];
	char *tmp = strndup(text + i, j + 1 - i);
	char *key = tmp ? dup_key_text(tmp, j + 1 - i) : NULL;

	free(tmp);
	if (!key)
		return wlp_fail_nomem(c);
	free(f->key);
	f->key = key;
	f->want_key = false;
	if (!json_object_object_get_ex(f->seen, key, NULL)) {
		json_object_object_add(f->seen, key, NULL);
		return 0;
	}
	c->plen = 0;
	c->path[0] = '\0';
	wlp_path_add(c, "$");
	for (int d = 0; d < top; d++) {
		if (st[d].obj)
			wlp_path_key(c, st[d].key);
		else
			wlp_path_idx(c, st[d].idx);
	}
	wlp_path_key(c, key);
	return wlp_fail_at(c, text, len, i, "%s: duplicate key (an object names "
		       "each key once; json-c would keep only the last)",
		       c->path);
}

/* An object or array opens at text[i]: a new frame. */
static int dup_open(struct pctx *c, const char *text, size_t len, size_t i,
		    struct dframe *st, int *top, int max)
{
	struct dframe *f;

	if (*top + 1 >= max)
		return wlp_fail_at(c, text, len, i, "JSON nesting too deep");
	f = &st[++*top];
	memset(f, 0, sizeof(*f));
	f->obj = text[i] == '{';
	f->want_key = f->obj;
	if (f->obj && !(f->seen = json_object_new_object()))
		return wlp_fail_nomem(c);
	return 0;
}

static int check_dup_keys(struct pctx *c, const char *text, size_t len)
{
	struct dframe st[WL_MAX_DEPTH + 2];
	int top = -1, r = 0;

	for (size_t i = 0; i < len && r == 0; i++) {
		struct dframe *f = top >= 0 ? &st[top] : NULL;
		size_t j;

		switch (text[i]) {
		case '"':
			for (j = i + 1; j < len && text[j] != '"'; j++)
				if (text[j] == '\\')
					j++;
			if (f && f->obj && f->want_key)
				r = dup_key(c, text, len, st, top, i, j);
			i = j;
			break;
		case '\'':
			/* json-c accepts 'key' even in strict mode */
			r = wlp_fail_at(c, text, len, i, "single-quoted strings are "
				    "not JSON; use double quotes");
			break;
		case '{':
		case '[':
			r = dup_open(c, text, len, i, st, &top,
				     (int)ARRAY_SIZE(st));
			break;
		case '}':
		case ']':
			if (f) {
				json_object_put(f->seen);
				free(f->key);
				top--;
			}
			break;
		case ',':
			if (f && f->obj)
				f->want_key = true;
			else if (f)
				f->idx++;
			break;
		}
	}
	for (; top >= 0; top--) {
		json_object_put(st[top].seen);
		free(st[top].key);
	}
	return r;
}

/* ---- entry points ---------------------------------------------------- */

void wl_free(struct workload *w)
{
	if (!w)
		return;
	free(w->source);
	free(w->phase_s);
	free(w->keys);
	free(w->rates);
	free(w->faults);
	free(w->perf.missing);
	free(w->perf.missing_ev);
	free(w->energy.watts);
	free(w->throttle.ms);
	free(w->throttle.count);
	free(w->rdt.groups);
	free(w->rdt.rates);
	free(w->rdt.threads);
	free(w->rdt.trates);
	free(w);
}

/* Offset of the first non-whitespace character at or after i, or len. */
static size_t skip_ws(const char *text, size_t len, size_t i)
{
	while (i < len && (text[i] == ' ' || text[i] == '\t' ||
			   text[i] == '\n' || text[i] == '\r'))
		i++;
	return i;
}

/* What kind of JSON value the text starts with, or NULL if it is blank. */
static const char *json_kind_of_text(const char *text, size_t len)
{
	size_t i = skip_ws(text, len, 0);

	if (i == len)
		return NULL;
	switch (text[i]) {
	case '{': return "an object";
	case '[': return "an array";
	case '"': return "a string";
	case 't': case 'f': return "a boolean";
	case 'n': return "null";
	default: return "a number";
	}
}

/* Why the tokener stopped without a value: an error at its position. */
static int syntax_error(struct pctx *c, const char *text, size_t len,
			enum json_tokener_error jerr, size_t end)
{
	const char *kind = json_kind_of_text(text, len);

	if (jerr == json_tokener_continue) {
		if (!kind)
			return wlp_fail_at(c, text, len, len, "empty input "
				       "(expected a JSON object)");
		if (text[skip_ws(text, len, 0)] != '{')
			return wlp_fail(c, "the workload must be a JSON object "
				    "{...}, not %s", kind);
		return wlp_fail_at(c, text, len, len, "unexpected end of input "
			       "(an object, array or string is not closed)");
	}
	if (jerr == json_tokener_error_depth)
		return wlp_fail_at(c, text, len, end, "JSON nesting too deep (at "
			       "most %d levels)", WL_MAX_DEPTH);
	if (end < len && (unsigned char)text[end] >= 0x20 &&
	    (unsigned char)text[end] < 0x7f)
		return wlp_fail_at(c, text, len, end, "JSON syntax error at '%c': "
			       "%s", text[end], json_tokener_error_desc(jerr));
	return wlp_fail_at(c, text, len, end, "JSON syntax error: %s",
		       json_tokener_error_desc(jerr));
}

/* The JSON text as one object: strict, UTF-8, no trailing characters,
 * no duplicate keys.  0 and *root (the caller's), or -errno. */
static int parse_json(struct pctx *c, const char *text, size_t len,
		      json_object **root)
{
	const char *nul = memchr(text, '\0', len);
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	size_t end;
	int r;

	if (nul)
		return wlp_fail_at(c, text, len, (size_t)(nul - text),
			       "NUL byte in the JSON text");
	tok = json_tokener_new_ex(WL_MAX_DEPTH);
	if (!tok)
		return wlp_fail_nomem(c);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
#ifdef JSON_TOKENER_VALIDATE_UTF8
			       JSON_TOKENER_VALIDATE_UTF8 |
#endif
			       JSON_TOKENER_ALLOW_TRAILING_CHARS);
	*root = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!*root)
		return syntax_error(c, text, len, jerr, end);
	end = skip_ws(text, len, end);
	if (end < len)
		r = wlp_fail_at(c, text, len, end, "trailing characters after the "
			    "JSON object");
	else if (!json_object_is_type(*root, json_type_object))
		r = wlp_fail(c, "the workload must be a JSON object {...}, not %s",
			 wlp_type_name(*root));
	else
		r = check_dup_keys(c, text, len);
	if (r < 0) {
		json_object_put(*root);
		*root = NULL;
	}
	return r;
}

int wl_parse(const char *text, size_t len, const char *name,
	     const struct platform *plat, struct workload **out,
	     char *err, size_t errlen)
{
	struct pctx c = { .name = name ? name : "(workload)", .err = err,
			  .pmu_pattern = parse_pmu_pattern,
			  .errlen = errlen };
	json_object *root;
	int r;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!text) {
		text = "";
		len = 0;
	}
	snprintf(c.path, sizeof(c.path), "$");
	c.plen = 1;
	if (len > WL_MAX_BYTES) {
		snprintf(err, errlen, "%s: too large (%zu bytes; at most %u)",
			 c.name, len, WL_MAX_BYTES);
		return -EINVAL;
	}
	if ((r = parse_json(&c, text, len, &root)) < 0)
		return r;
	c.w = calloc(1, sizeof(*c.w));
	if (!c.w || !(c.w->source = strdup(c.name))) {
		json_object_put(root);
		wl_free(c.w);
		return wlp_fail_nomem(&c);
	}
	snprintf(c.path, sizeof(c.path), "$");
	c.plen = 1;
	r = parse_root(&c, root, plat);
	json_object_put(root);
	if (r < 0) {
		wl_free(c.w);
		return r;
	}
	*out = c.w;
	return 0;
}

int wl_load(const char *path, const struct platform *plat,
	    struct workload **out, char *err, size_t errlen)
{
	char *buf;
	size_t n = 0;
	int fd, r;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "%s: cannot open workload: %s", path,
			 strerror(-r));
		return r;
	}
	/* Read at most one byte more than allowed, to notice a larger file
	 * whatever its type (pipe, /proc file) or fstat says. */
	buf = malloc(WL_MAX_BYTES + 2);
	if (!buf) {
		close(fd);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t got = read(fd, buf + n, WL_MAX_BYTES + 1 - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			snprintf(err, errlen, "%s: cannot read workload: %s",
				 path, strerror(-r));
			free(buf);
			close(fd);
			return r;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > WL_MAX_BYTES) {
			snprintf(err, errlen, "%s: workload file too large (more "
				 "than %u bytes): %s", path, WL_MAX_BYTES,
				 strerror(EFBIG));
			free(buf);
			close(fd);
			return -EFBIG;
		}
	}
	close(fd);
	buf[n] = '\0';
	r = wl_parse(buf, n, path, plat, out, err, errlen);
	free(buf);
	return r;
}

/* ---- rates ----------------------------------------------------------- */

static bool key_matches(const struct wl_key *k, const struct wl_match *m)
{
	if (k->socket >= 0 && (unsigned)k->socket != m->socket)
		return false;
	if (k->unit != m->unit || k->freerun != m->freerun)
		return false;
	if (k->freerun)
		return k->freerun_idx == m->freerun_idx;
	if (k->enc.code != m->enc.code || k->enc.umask != m->enc.umask ||
	    k->enc.thresh != m->enc.thresh || k->enc.edge != m->enc.edge ||
	    k->enc.inv != m->enc.inv || k->ext != m->ext)
		return false;
	if (k->has_filter0 && k->filter0 != m->filter0)
		return false;
	if (k->has_filter1 && k->filter1 != m->filter1)
		return false;
	return !k->ctr0_only || m->ctr == 0;
}

/*
 * The rate of an event no key names in a "distinct_rates" workload: from
 * a hash (FNV-1a) of everything that tells two counts apart - socket,
 * unit, box, encoding, filters - 1e5 to 1e8 a second in steps of 1e5, so
 * that a formula taking a wrong event, box or socket gets another value
 * (the formula sweep, tests/scenario/formulas_sweep.sh).
 */
static double distinct_rate(const struct wl_match *m)
{
	uint64_t f[] = { m->socket, (uint64_t)m->unit, m->inst, m->freerun,
			 m->freerun_idx, m->enc.code, m->enc.umask,
			 m->enc.thresh, m->enc.edge, m->enc.inv, m->ext,
			 m->filter0, m->filter1 };
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		for (unsigned b = 0; b < 64; b += 8) {
			h ^= (f[i] >> b) & 0xff;
			h *= 1099511628211ull;
		}
	}
	return 1e5 * (double)(1 + h % 1000);
}

void wl_rates(const struct workload *w, const struct wl_match *m,
	      double *rates)
{
	unsigned np = w->nphases, ninst = m->ninst ? m->ninst : 1;
	bool named = false;

	for (unsigned p = 0; p < np; p++)
		rates[p] = 0;
	for (unsigned k = 0; k < w->nkeys; k++) {
		const struct wl_key *key = &w->keys[k];
		double share;

		if (!key_matches(key, m))
			continue;
		named = true;
		if (key->inst < 0)
			share = 1.0 / ninst;
		else if ((unsigned)key->inst == m->inst)
			share = 1.0;
		else
			continue;
		for (unsigned p = 0; p < np; p++)
			rates[p] += w->rates[(size_t)k * np + p] * share;
	}
	if (w->distinct && !named) {
		double r = distinct_rate(m);

		for (unsigned p = 0; p < np; p++)
			rates[p] = r;
	}
}

/* Events from the start of a period to offset r (0 <= r <= period). */
static double period_prefix(const struct workload *w, const double *rates,
			    double r)
{
	double sum = 0;

	for (unsigned p = 0; p < w->nphases && r > 0; p++) {
		double d = w->phase_s[p] < r ? w->phase_s[p] : r;

		sum += rates[p] * d;
		r -= w->phase_s[p];
	}
	return sum;
}

/* Splits t into whole periods k and an offset r in [0, period). */
static void period_split(const struct workload *w, double t, double *k,
			 double *r)
{
	*k = floor(t / w->period_s);
	*r = t - *k * w->period_s;
	if (*r >= w->period_s) {
		*k += 1;
		*r -= w->period_s;
	}
	if (*r < 0)
		*r = 0;
}

double wl_integral(const struct workload *w, const double *rates,
		   double t0, double t1)
{
	double k0, r0, k1, r1, total;

	if (!(t1 > t0) || w->nphases == 0 || !(w->period_s > 0))
		return 0;
	period_split(w, t0, &k0, &r0);
	period_split(w, t1, &k1, &r1);
	if (k0 == k1)
		return period_prefix(w, rates, r1) - period_prefix(w, rates, r0);
	total = period_prefix(w, rates, w->period_s);
	return (total - period_prefix(w, rates, r0)) +
	       (k1 - k0 - 1) * total + period_prefix(w, rates, r1);
}
