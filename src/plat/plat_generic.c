/*
 * plat_generic.c - platform "generic" (plat_generic.h): built at start-up
 * from the running kernel's uncore PMUs when no table matches the CPU.
 *
 * The kernel is the only source here: each PMU's format/ says where its
 * fields go, its events/ the events it names, with .scale and .unit
 * (Documentation/ABI/testing/sysfs-bus-event_source-devices-{format,
 * events}); perf_sysfs.c reads them.  From them:
 *
 *  - units: one per PMU type, "uncore_imc_%u" for uncore_imc_0..N
 *    (the boxes, as the kernel numbers them, uncore.c
 *    uncore_get_pmu_name()), a plain name for one PMU over its boxes
 *    (uncore_pcu, amd_df, amd_l3).  A "*_free_running_%u" PMU
 *    (uncore_snbep.c, uncore_snb.c: only free-running counters behind
 *    it) is a unit of free-running counters, one per alias; any other is
 *    programmable, with GEN_NCTR counters a box: sysfs does not say how
 *    many the box has, and 2 is the fewest any uncore box the kernel
 *    drives has (client CBo and ARB, snb_uncore_cbox / _arb; IRP on
 *    skx/icx/spr), so the daemon never asks the kernel for a group it
 *    must refuse; more events time-multiplex.
 *  - the catalog: every alias of every unit, named as the perf tool
 *    names it without the box ("uncore_imc/cas_count_read"), its terms
 *    put back through the PMU's format/ when counted.
 *  - the families: DRAM bytes from cas_count_read / cas_count_write on
 *    uncore_imc_N (uncore_snbep.c since snbep_uncore_imc_events), or the
 *    sums of their _sch0 / _sch1 halves (the two sub-channels of a DDR5
 *    channel: gnr_uncore_imc_events), or data_read / data_write of
 *    uncore_imc_free_running_N (icx/tgl/adl_uncore_imc_freerunning
 *    events); bytes = count x .scale in .unit (6.103515625e-5 MiB =
 *    64 B).  The uncore clock from clockticks of the PMU whose clock is
 *    the uncore's (uncore_clock, uncore_cncu, uncore_cbox_N,
 *    uncore_cha_N, uncore_ubox), never of uncore_imc_N or a link PMU
 *    (there it counts the DRAM or link clock).
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errmsg.h"
#include "derived.h"
#include "hw/perf_sysfs.h"
#include "plat/plat_generic.h"
#include "plat/plat_xsp.h"

#define GEN_NCTR 2u		/* programmable counters a box (above) */
#define GEN_MAX_PMUS 512u	/* kernel uncore PMUs looked at */
#define GEN_MAX_TYPES 64u	/* PMU types looked at; PLAT_MAX_UNITS of
				   them become units */
#define GEN_MAX_SRC 8u
#define GEN_MAX_M 8u
#define GEN_FR_MAX_RATE 1.0e12	/* free-running: 64-bit counts, no wrap
				   in any interval the daemon allows */

struct gen_unit {
	struct unit_type u;
	struct perf_unit pu;
	char pattern[64];	/* "uncore_imc_%u" */
	char base[64];		/* "uncore_imc": events' name prefix */
	char name[48];		/* unit name: "imc" */
	char f_thresh[32];
	char source[160];
	struct freerun_ctr *fr;
	struct pfs_pmu *pmu;	/* the first box's files */
	unsigned nbox;
	unsigned maxbox;
	bool kept;		/* a unit of the platform */
};

struct gen_plat {
	struct platform p;	/* first: the platform pointer is ours */
	struct gen_unit gu[GEN_MAX_TYPES];	/* candidates, sysfs order */
	unsigned nunits;
	const struct unit_type *units[PLAT_MAX_UNITS + 1];
	struct event *ev;
	size_t nev;
	struct derived_src src[GEN_MAX_SRC];
	struct derived_metric m[GEN_MAX_M];
	struct derived_table dt;
	const char *baseline[GEN_MAX_SRC + 1];
	struct gen_family fam[PLAT_GENERIC_NFAMILIES];
	char vendor[16];
	char notes[1024];
	char help[GEN_MAX_M][400];
	char **strs;		/* every string allocated, for free */
	size_t nstrs;
};

bool plat_generic_pmu_name(const char *n)
{
	return strncmp(n, "uncore_", 7) == 0 || strcmp(n, "amd_df") == 0 ||
	       strcmp(n, "amd_l3") == 0 || strncmp(n, "amd_umc_", 8) == 0;
}

__attribute__((format(printf, 2, 3)))
static void note(struct gen_plat *g, const char *fmt, ...)
{
	size_t n = strlen(g->notes);
	va_list ap;

	if (n && n + 2 < sizeof(g->notes)) {
		g->notes[n++] = ';';
		g->notes[n++] = ' ';
		g->notes[n] = '\0';
	}
	va_start(ap, fmt);
	vsnprintf(g->notes + n, sizeof(g->notes) - n, fmt, ap);
	va_end(ap);
}

/* A copy of s the platform owns; NULL when out of memory. */
static char *keep(struct gen_plat *g, const char *s)
{
	char **ns = realloc(g->strs, (g->nstrs + 1) * sizeof(*ns));
	char *c;

	if (!ns)
		return NULL;
	g->strs = ns;
	if (!(c = strdup(s)))
		return NULL;
	return g->strs[g->nstrs++] = c;
}

/*
 * "uncore_imc_12" -> pattern "uncore_imc_%u", box 12; a name without a
 * "_N" tail (N decimal, no leading zero) is its own pattern, box 0.
 */
static void pattern_of(const char *name, char *pat, size_t len,
		       unsigned *box)
{
	const char *us = strrchr(name, '_');
	const char *d = us ? us + 1 : NULL;

	*box = 0;
	if (d && *d && strspn(d, "0123456789") == strlen(d) &&
	    (d[0] != '0' || d[1] == '\0') && strlen(d) < 6) {
		snprintf(pat, len, "%.*s_%%u", (int)(us - name), name);
		*box = (unsigned)strtoul(d, NULL, 10);
		return;
	}
	snprintf(pat, len, "%s", name);
}

struct scan {
	struct gen_plat *g;
	char (*names)[64];
	unsigned n;
};

static int scan_cb(void *ctx, const char *name)
{
	struct scan *s = ctx;

	if (!plat_generic_pmu_name(name) || strlen(name) >= 64)
		return 0;
	if (s->n == GEN_MAX_PMUS) {
		note(s->g, "more than %u uncore PMUs: the rest are not looked "
		     "at", GEN_MAX_PMUS);
		return 1;
	}
	snprintf(s->names[s->n++], 64, "%s", name);
	return 0;
}

/* The unit of pattern pat, appended if new (NULL: no room). */
static struct gen_unit *unit_get(struct gen_plat *g, const char *pat,
				 bool *fresh)
{
	*fresh = false;
	for (unsigned i = 0; i < g->nunits; i++)
		if (strcmp(g->gu[i].pattern, pat) == 0)
			return &g->gu[i];
	if (g->nunits == GEN_MAX_TYPES)
		return NULL;
	*fresh = true;
	memset(&g->gu[g->nunits], 0, sizeof(g->gu[0]));
	snprintf(g->gu[g->nunits].pattern, sizeof(g->gu[0].pattern), "%s",
		 pat);
	return &g->gu[g->nunits++];
}

/* Unit name: the pattern without "uncore_"/"amd_" and "_%u". */
static void unit_name(const char *pat, char *out, size_t len)
{
	const char *s = pat;
	size_t n;

	if (strncmp(s, "uncore_", 7) == 0)
		s += 7;
	else if (strncmp(s, "amd_", 4) == 0)
		s += 4;
	n = strlen(s);
	if (n > 3 && strcmp(s + n - 3, "_%u") == 0)
		n -= 3;
	snprintf(out, len, "%.*s", (int)n, s);
}

/* The width of p's field name, 0 if it has none. */
static unsigned fwidth(const struct pfs_pmu *p, const char *name)
{
	const struct pfs_format *f = pfs_field(p, name);

	return f ? f->width : 0;
}

/*
 * An alias's terms as a catalog entry: event and umask into code and
 * umask, every other term kept as perf_terms (encoded through format/
 * when counted).  The terms are first encoded through PMU p's format/
 * (pfs_encode), whose grammar is the kernel's: a term given twice
 * ("event=0x05,umask=0xcf,event=0x06" counted event 0x06 and read 0 B/s),
 * a decimal with a leading zero ("umask=0360": strtoull took it for
 * octal), a value wider than its field or a term no field has are
 * refused there, and code and umask are the values it placed.  -EINVAL
 * (or pfs_encode's -errno) with why: a parameter ("=?"), no event term,
 * an event code over 16 bits, or pfs_encode's reason naming file.
 */
static int alias_enc(const struct pfs_pmu *p, const char *file,
		     const char *terms, struct event *e, char *rest,
		     size_t len, char *why, size_t whylen)
{
	const struct pfs_format *fe = pfs_field(p, "event");
	const struct pfs_format *fu = pfs_field(p, "umask");
	char buf[PFS_FILE_MAX + 1], msg[512], *save = NULL, *t;
	bool has_event = false, has_umask = false;
	uint64_t cfg[PFS_NWORDS], v;
	int r;

	rest[0] = '\0';
	if (strchr(terms, '?')) {
		errmsg(why, whylen, "only events with an event term and no "
			 "parameter are");
		return -EINVAL;
	}
	r = pfs_encode(p, terms, cfg, msg, sizeof(msg));
	if (r < 0) {
		errmsg(why, whylen, "%s: %s", file, msg);
		return r;
	}
	snprintf(buf, sizeof(buf), "%s", terms);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t n, l;

		while (*t == ' ' || *t == '\t')
			t++;
		l = strcspn(t, "= \t");
		if (fe && l == 5 && !strncmp(t, "event", 5)) {
			has_event = true;
			continue;
		}
		if (fu && l == 5 && !strncmp(t, "umask", 5)) {
			has_umask = true;
			continue;
		}
		n = strlen(rest);
		snprintf(rest + n, len - n, "%s%s", n ? "," : "", t);
	}
	if (!has_event) {
		errmsg(why, whylen, "only events with an event term and no "
			 "parameter are");
		return -EINVAL;
	}
	v = pfs_format_get(fe, cfg[fe->word]);
	if (v > 0xffff) {
		errmsg(why, whylen, "%s: event 0x%" PRIx64 " is wider than "
			 "16 bits", file, v);
		return -EINVAL;
	}
	e->code = (uint16_t)v;
	if (has_umask)
		e->umask = pfs_format_get(fu, cfg[fu->word]);
	return 0;
}

/* Bytes one count of alias a is, from its .scale and .unit; 0: not
 * bytes (no .unit the kernel uses for bytes). */
static double alias_bytes(const struct pfs_alias *a)
{
	static const struct { const char *unit; double k; } units[] = {
		{ "MiB", 1048576.0 }, { "KiB", 1024.0 }, { "GiB", 1073741824.0 },
		{ "B", 1.0 }, { "Bytes", 1.0 }, { "bytes", 1.0 },
		{ "MB", 1.0e6 },
	};

	if (!a || !a->has_scale)
		return 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++)
		if (strcmp(a->unit, units[i].unit) == 0)
			return a->scale * units[i].k;
	return 0;
}

/* Adds unit gu's aliases to the catalog (and its free-running
 * counters). */
static int add_events(struct gen_plat *g, struct gen_unit *gu)
{
	const struct pfs_pmu *p = gu->pmu;
	bool fr = gu->u.kind == UNIT_FREERUN;
	struct event *ne;

	if (!p->nalias)
		return 0;
	ne = realloc(g->ev, (g->nev + p->nalias) * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	g->ev = ne;
	if (fr && !(gu->fr = calloc(p->nalias, sizeof(*gu->fr))))
		return -ENOMEM;
	for (unsigned i = 0; i < p->nalias; i++) {
		const struct pfs_alias *a = &p->alias[i];
		struct event *e = &g->ev[g->nev];
		char rest[PFS_FILE_MAX + 1], name[160], desc[400], src[200];
		char file[PATH_MAX], why[PATH_MAX + 512];

		memset(e, 0, sizeof(*e));
		snprintf(file, sizeof(file), "%s/events/%s", p->dir, a->name);
		if (alias_enc(p, file, a->terms, e, rest, sizeof(rest), why,
			      sizeof(why)) < 0) {
			note(g, "%s/%s (\"%s\") is not served: %s", gu->base,
			     a->name, a->terms, why);
			continue;
		}
		snprintf(name, sizeof(name), "%s/%s", gu->base, a->name);
		if (a->has_scale)
			snprintf(desc, sizeof(desc), "The kernel's event %s of "
				 "%s (%s); the kernel scales a count by %s%s%s.",
				 a->name, gu->pattern, a->terms, a->scale_text,
				 a->unit[0] ? " " : "", a->unit);
		else
			snprintf(desc, sizeof(desc), "The kernel's event %s of "
				 "%s (%s).", a->name, gu->pattern, a->terms);
		snprintf(src, sizeof(src), "sysfs %s/events/%s", gu->pattern,
			 a->name);
		if (!(e->name = keep(g, name)) || !(e->desc = keep(g, desc)) ||
		    !(e->source = keep(g, src)))
			return -ENOMEM;
		e->unit = gu->name;
		if (a->has_scale) {
			e->kernel_scale = a->scale;
			if (!(e->kernel_unit = keep(g, a->unit)))
				return -ENOMEM;
		}
		if (fr) {
			struct freerun_ctr *c = &gu->fr[gu->u.nfreerun++];

			*e = (struct event){ .name = e->name, .unit = gu->name,
					     .flags = EVF_FREERUN,
					     .desc = e->desc,
					     .source = e->source,
					     .kernel_scale = e->kernel_scale,
					     .kernel_unit = e->kernel_unit };
			c->name = e->name;
			c->width = 64;
			c->access = 8;
			c->desc = e->desc;
			c->max_rate = GEN_FR_MAX_RATE;
			if (!(c->perf_event = keep(g, a->name)))
				return -ENOMEM;
		} else {
			e->ctr_mask = (uint8_t)((1u << GEN_NCTR) - 1);
			if (rest[0] && !(e->perf_terms = keep(g, rest)))
				return -ENOMEM;
		}
		g->nev++;
	}
	return 0;
}

/* Fills unit gu's tables from its first box's files. */
static int unit_fill(struct gen_plat *g, struct gen_unit *gu)
{
	const struct pfs_pmu *p = gu->pmu;
	unsigned evw = fwidth(p, "event"), umw = fwidth(p, "umask");
	static const char *const th[] = { "thresh", "cmask", "threshold" };
	unsigned thw = 0;

	const char *pat = gu->pattern;
	size_t plen = strlen(pat);

	char tmp[sizeof(gu->source)];

	unit_name(pat, gu->name, sizeof(gu->name));
	if (plen > 3 && strcmp(pat + plen - 3, "_%u") == 0)
		plen -= 3;
	memcpy(gu->base, pat, plen);
	gu->base[plen] = '\0';
	snprintf(tmp, sizeof(tmp), "the kernel's %.63s PMU%s (sysfs)", pat,
		 strstr(pat, "%u") ? "s" : "");
	memcpy(gu->source, tmp, sizeof(tmp));
	for (size_t i = 0; i < sizeof(th) / sizeof(*th); i++)
		if ((thw = fwidth(p, th[i]))) {
			snprintf(gu->f_thresh, sizeof(gu->f_thresh), "%s", th[i]);
			break;
		}
	gu->pu = (struct perf_unit){ .pmu = gu->pattern, .source = gu->source,
				     .f_thresh = gu->f_thresh[0] ? gu->f_thresh
								 : NULL };
	gu->u = (struct unit_type){
		.name = gu->name, .desc = gu->source, .source = gu->source,
		.kind = strstr(gu->pattern, "free_running") ? UNIT_FREERUN
							    : UNIT_PROG,
		.max_inst = gu->maxbox < PLAT_MAX_INST ? gu->maxbox
						       : PLAT_MAX_INST,
		.width = 48,
		.fmt = { .inv_bit = XSP_NONE, .edge_bit = XSP_NONE,
			 .en_bit = XSP_NONE, .ovf_en_bit = XSP_NONE,
			 .rst_bit = XSP_NONE },
		.global_ovf_bit = XSP_NONE, .max_rate = XSP_MAX_RATE,
		.perf = &gu->pu,
	};
	if (gu->u.kind == UNIT_PROG) {
		if (!evw) {
			note(g, "%s is not served: its format/ has no event "
			     "field", gu->pattern);
			return 1;
		}
		gu->u.nctr = GEN_NCTR;
		gu->u.fmt.ev_w = (uint8_t)(evw > 16 ? 16 : evw);
		gu->u.fmt.umask_lo = 8;
		gu->u.fmt.umask_w = (uint8_t)(umw > 56 ? 56 : umw);
		gu->u.fmt.thresh_lo = 24;
		gu->u.fmt.thresh_w = (uint8_t)(thw > 8 ? 8 : thw);
		if (pfs_field(p, "edge"))
			gu->u.fmt.edge_bit = 18;
		if (pfs_field(p, "inv"))
			gu->u.fmt.inv_bit = 23;
	} else {
		gu->u.width = 64;
	}
	if (add_events(g, gu) < 0)
		return -ENOMEM;
	if (gu->u.kind == UNIT_FREERUN) {
		if (!gu->u.nfreerun) {
			note(g, "%s is not served: no named free-running "
			     "counter", gu->pattern);
			return 1;
		}
		gu->u.freerun = gu->fr;
	}
	return 0;
}

/* ---- families ---------------------------------------------------------- */

/* The unit of pattern pat (with glob), or NULL. */
static struct gen_unit *unit_by_glob(struct gen_plat *g, const char *glob)
{
	for (unsigned i = 0; i < g->nunits; i++)
		if (fnmatch(glob, g->gu[i].pattern, 0) == 0)
			return &g->gu[i];
	return NULL;
}

static int add_src(struct gen_plat *g, const char *name, struct gen_unit *gu,
		   const char *alias, double k, bool mean)
{
	size_t n = g->dt.nsrc, b;
	char ev[160];

	if (n == GEN_MAX_SRC)
		return -E2BIG;
	snprintf(ev, sizeof(ev), "%s/%s", gu->base, alias);
	if (!(g->src[n].event = keep(g, ev)))
		return -ENOMEM;
	g->src[n].name = name;
	g->src[n].scale = k;
	g->src[n].mean = mean;
	g->dt.nsrc++;
	for (b = 0; g->baseline[b]; b++)
		if (strcmp(g->baseline[b], g->src[n].event) == 0)
			return 0;
	g->baseline[b] = g->src[n].event;
	return 0;
}

/* Does unit gu serve its alias name (in the catalog)? */
static const struct pfs_alias *served(struct gen_plat *g, struct gen_unit *gu,
				      const char *alias)
{
	char ev[160];

	if (!gu)
		return NULL;
	snprintf(ev, sizeof(ev), "%s/%s", gu->base, alias);
	for (size_t i = 0; i < g->nev; i++)
		if (strcmp(g->ev[i].name, ev) == 0)
			return pfs_alias(gu->pmu, alias);
	return NULL;
}

/* DRAM bytes of one direction ("read"/"write"): family f, source src. */
static int dram_family(struct gen_plat *g, struct gen_family *f,
		       const char *dir, const char *src)
{
	struct gen_unit *imc = unit_by_glob(g, "uncore_imc_%u");
	struct gen_unit *fr = unit_by_glob(g, "uncore_imc_free_running*");
	char cas[40], s0[48], s1[48], data[40];
	const struct pfs_alias *a, *a0, *a1;
	double k, k0, k1;
	int r;

	snprintf(cas, sizeof(cas), "cas_count_%s", dir);
	snprintf(s0, sizeof(s0), "%s_sch0", cas);
	snprintf(s1, sizeof(s1), "%s_sch1", cas);
	snprintf(data, sizeof(data), "data_%s", dir);
	if ((a = served(g, imc, cas)) && (k = alias_bytes(a)) > 0) {
		snprintf(f->text, sizeof(f->text), "%s/%s (x %g B: .scale "
			 "%s %s), summed over the boxes", imc->pattern, cas,
			 k, a->scale_text, a->unit);
		f->present = true;
		return add_src(g, src, imc, cas, k, false);
	}
	a0 = served(g, imc, s0);
	a1 = served(g, imc, s1);
	if (a0 && a1 && (k0 = alias_bytes(a0)) > 0 &&
	    (k1 = alias_bytes(a1)) > 0) {
		snprintf(f->text, sizeof(f->text), "%s/%s + %s (x %g B, x %g B: "
			 ".scale %s %s), summed over the boxes", imc->pattern,
			 s0, s1, k0, k1, a0->scale_text, a0->unit);
		f->present = true;
		if ((r = add_src(g, src, imc, s0, k0, false)) < 0)
			return r;
		return add_src(g, src, imc, s1, k1, false);
	}
	if ((a = served(g, fr, data)) && (k = alias_bytes(a)) > 0) {
		snprintf(f->text, sizeof(f->text), "%s/%s (x %g B: .scale "
			 "%s %s), summed over the boxes", fr->pattern, data,
			 k, a->scale_text, a->unit);
		f->present = true;
		return add_src(g, src, fr, data, k, false);
	}
	snprintf(f->text, sizeof(f->text), "the kernel names none of %s, "
		 "%s + %s on uncore_imc_N, nor %s on "
		 "uncore_imc_free_running_N, with a .scale and .unit in bytes%s",
		 cas, s0, s1, data, imc || fr ? "" : " (it has no uncore_imc "
		 "PMU)");
	return 0;
}

static int clock_family(struct gen_plat *g, struct gen_family *f)
{
	static const char *const where[] = {
		"uncore_clock", "uncore_cncu", "uncore_cbox_%u", "uncore_cha_%u",
		"uncore_ubox",
	};

	for (size_t i = 0; i < sizeof(where) / sizeof(*where); i++) {
		struct gen_unit *gu = unit_by_glob(g, where[i]);

		if (!served(g, gu, "clockticks"))
			continue;
		snprintf(f->text, sizeof(f->text), "%s/clockticks%s",
			 gu->pattern, strstr(gu->pattern, "%u") ?
			 ", the mean over the boxes" : "");
		f->present = true;
		return add_src(g, "clock", gu, "clockticks", 1,
			       strstr(gu->pattern, "%u") != NULL);
	}
	snprintf(f->text, sizeof(f->text), "no clockticks on uncore_clock, "
		 "uncore_cncu, uncore_cbox_N, uncore_cha_N or uncore_ubox (a "
		 "clockticks of uncore_imc_N counts the DRAM clock, not the "
		 "uncore's)");
	return 0;
}

static void add_metric(struct gen_plat *g, struct derived_metric m,
		       const char *help)
{
	size_t n = g->dt.nm, l = strlen(help);

	if (l >= sizeof(g->help[n]))
		l = sizeof(g->help[n]) - 1;
	memmove(g->help[n], help, l);
	g->help[n][l] = '\0';
	m.help = g->help[n];
	g->m[n] = m;
	g->dt.nm++;
}

static int families(struct gen_plat *g)
{
	static const struct derived_metric rd[] = {
		DM_DRAM_BYTES("uncore_dram_read_bytes_total", NULL, "", "read",
			      "dram_rd"),
		DM_DRAM_BW("uncore_dram_bandwidth_bytes_per_second", NULL,
			   DM_DRAM_BW_HELP, "read", "dram_rd"),
	}, wr[] = {
		DM_DRAM_BYTES("uncore_dram_write_bytes_total", NULL, "", "write",
			      "dram_wr"),
		DM_DRAM_BW("uncore_dram_bandwidth_bytes_per_second", NULL,
			   DM_DRAM_BW_HELP, "write", "dram_wr"),
	}, ck[] = {
		DM_CLOCK_TICKS(""), DM_CLOCK_HERTZ,
	};
	struct gen_family *f = g->fam;
	char h[400];
	int r;

	f[0] = (struct gen_family){ "dram_read", "uncore_dram_read_bytes_total",
				    false, "" };
	f[1] = (struct gen_family){ "dram_write",
				    "uncore_dram_write_bytes_total", false, "" };
	f[2] = (struct gen_family){ "clock", "uncore_clock_ticks_total", false,
				    "" };
	if ((r = dram_family(g, &f[0], "read", "dram_rd")) < 0 ||
	    (r = dram_family(g, &f[1], "write", "dram_wr")) < 0 ||
	    (r = clock_family(g, &f[2])) < 0)
		return r;
	/* entries of one family adjacent: bytes read, bytes written, then
	 * the bandwidth gauge's directions */
	if (f[0].present) {
		snprintf(h, sizeof(h), "Bytes read from DRAM (platform generic: "
			 "the kernel's %s).", f[0].text);
		add_metric(g, rd[0], h);
	}
	if (f[1].present) {
		snprintf(h, sizeof(h), "Bytes written to DRAM (platform "
			 "generic: the kernel's %s).", f[1].text);
		add_metric(g, wr[0], h);
	}
	if (f[0].present)
		add_metric(g, rd[1], DM_DRAM_BW_HELP);
	if (f[1].present)
		add_metric(g, wr[1], DM_DRAM_BW_HELP);
	if (f[2].present) {
		snprintf(h, sizeof(h), "Uncore clock cycles (platform generic: "
			 "the kernel's %s).", f[2].text);
		add_metric(g, ck[0], h);
		add_metric(g, ck[1], ck[1].help);
	}
	return 0;
}

/* ---- build ------------------------------------------------------------- */

static int build(struct gen_plat *g, const char *sysfs, char *why,
		 size_t whylen)
{
	struct scan s = { g, NULL, 0 };
	unsigned kept = 0;
	int r;

	if (!(s.names = calloc(GEN_MAX_PMUS, sizeof(*s.names))))
		return -ENOMEM;
	r = pfs_list(sysfs, scan_cb, &s, why, whylen);
	if (r < 0) {
		free(s.names);
		return r == -ENOENT ? -ENOENT : r;
	}
	for (unsigned i = 0; i < s.n; i++) {
		char pat[64], msg[512];
		struct gen_unit *gu;
		unsigned box;
		bool fresh;

		pattern_of(s.names[i], pat, sizeof(pat), &box);
		if (!(gu = unit_get(g, pat, &fresh))) {
			note(g, "%s is not served: more than %u PMU types",
			     s.names[i], GEN_MAX_TYPES);
			continue;
		}
		gu->nbox++;
		if (box + 1 > gu->maxbox)
			gu->maxbox = box + 1;
		if (!gu->pmu) {
			r = pfs_pmu_load(sysfs, s.names[i], &gu->pmu, msg,
					 sizeof(msg));
			if (r == -ENOMEM) {
				free(s.names);
				return r;
			}
			if (r < 0)
				note(g, "%s: %s", s.names[i], msg);
		}
	}
	free(s.names);
	/* At most PLAT_MAX_UNITS units: the types with named events first
	 * (a recent server has more types than that, most with format/
	 * only), then the others, each in sysfs order; units[] keeps sysfs
	 * order. */
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < g->nunits; i++) {
			struct gen_unit *gu = &g->gu[i];

			if (!gu->pmu || (pass == 0) != (gu->pmu->nalias > 0))
				continue;
			if (kept == PLAT_MAX_UNITS) {
				note(g, "%s is not served: more than %u PMU "
				     "types%s", gu->pattern, PLAT_MAX_UNITS,
				     gu->pmu->nalias ? "" : " (it names no "
				     "event)");
				continue;
			}
			if (!strstr(gu->pattern, "%u")) {
				/* one PMU over its boxes: as many as its
				 * cpumask names CPUs, across the sockets (a
				 * bound) */
				gu->maxbox = gu->pmu->cpus.n ? gu->pmu->cpus.n
							     : 1;
			}
			if ((r = unit_fill(g, gu)) < 0)
				return r;
			if (r == 0) {
				gu->kept = true;
				kept++;
			}
		}
	kept = 0;
	for (unsigned i = 0; i < g->nunits; i++)
		if (g->gu[i].kept)
			g->units[kept++] = &g->gu[i].u;
	g->units[kept] = NULL;
	if (!kept) {
		snprintf(why, whylen, "the kernel has no uncore PMU the generic "
			 "platform can serve under %s/bus/event_source/devices"
			 "%s%s", sysfs, g->notes[0] ? ": " : "", g->notes);
		return -ENOENT;
	}
	if ((r = families(g)) < 0)
		return r;
	g->dt.src = g->src;
	g->dt.m = g->m;
	return 0;
}

static const struct cpu_match gen_no_cpus[] = { { 0, 0, 0, 0 } };

const char plat_generic_listing[] =
	PLAT_GENERIC_ID "\tAny CPU no table above matches whose kernel has "
	"uncore PMUs\n"
	"\tCPUs: any, when the kernel lists uncore_*, amd_df, amd_l3 or "
	"amd_umc_* PMUs\n"
	"\tbackends: perf\n"
	"\tevents: the kernel's own (events/ of each PMU, as "
	"\"uncore_imc/cas_count_read\")\n"
	"\tfamilies: DRAM bytes (cas_count_read/_write, their _sch0 + _sch1 "
	"sums, or the free-running data_read/_write, x .scale in .unit); the "
	"uncore clock (clockticks of uncore_clock, uncore_cncu, "
	"uncore_cbox_N, uncore_cha_N or uncore_ubox)\n"
	"\tchecked: on the simulator only (the simulated kernel under CPU "
	"models no table knows)\n";

int plat_generic_build(const char *sysfs, const char *vendor,
		       const struct platform **out, char *why, size_t whylen)
{
	struct gen_plat *g = calloc(1, sizeof(*g));
	int r;

	*out = NULL;
	if (!g)
		return -ENOMEM;
	snprintf(g->vendor, sizeof(g->vendor), "%s",
		 vendor ? vendor : "GenuineIntel");
	r = build(g, sysfs ? sysfs : "/sys", why, whylen);
	if (r < 0) {
		if (r == -ENOMEM)
			snprintf(why, whylen, "out of memory");
		plat_generic_free(&g->p);
		return r;
	}
	g->p = (struct platform){
		.id = PLAT_GENERIC_ID,
		.name = "Any CPU whose kernel has uncore PMUs and no table "
			"matches (the kernel's named events)",
		.manual = "the running kernel's sysfs: format/, events/ "
			  "(.scale, .unit) of each uncore PMU",
		.cpus = gen_no_cpus,
		.units = g->units,
		.events = g->ev,
		.nevents = g->nev,
		.ops = &plat_perf_only_ops,
		.derived = &g->dt,
		.baseline = g->baseline,
		.vendor = g->vendor,
		.backends = PLAT_BE_PERF,
	};
	*out = &g->p;
	return 0;
}

static struct gen_plat *gen_of(const struct platform *p)
{
	return p && p->id && strcmp(p->id, PLAT_GENERIC_ID) == 0 &&
	       p->derived ? (struct gen_plat *)p : NULL;
}

void plat_generic_free(const struct platform *p)
{
	struct gen_plat *g = (struct gen_plat *)p;

	if (!g)
		return;
	for (unsigned i = 0; i < g->nunits; i++) {
		pfs_pmu_free(g->gu[i].pmu);
		free(g->gu[i].fr);
	}
	for (size_t i = 0; i < g->nstrs; i++)
		free(g->strs[i]);
	free(g->strs);
	free(g->ev);
	free(g);
}

bool plat_is_generic(const struct platform *p)
{
	return gen_of(p) != NULL;
}

const struct gen_family *plat_generic_families(const struct platform *p)
{
	struct gen_plat *g = gen_of(p);

	return g ? g->fam : NULL;
}

const char *plat_generic_notes(const struct platform *p)
{
	struct gen_plat *g = gen_of(p);

	return g ? g->notes : "";
}

const char *plat_generic_unit_pmu(const struct platform *p, unsigned unit)
{
	struct gen_plat *g = gen_of(p);

	return g && unit < PLAT_MAX_UNITS && g->units[unit]
	       ? g->units[unit]->perf->pmu : NULL;
}
