/*
 * test_kpmu.c - the kernel PMU facts of every platform that names
 * PLAT_BE_PERF (struct perf_unit, plat.h): they must be what a kernel
 * could have written and what the perf backend can encode with.
 *
 * For each unit: a PMU name, a kernel source, format strings in the
 * kernel's grammar (config[12]:a-b,c), event aliases whose terms name
 * only format fields and fit them, the encoding's fields present and at
 * least as wide as the unit's event-select fields (raw encodings are
 * checked against those widths), every box-filter field mapped to a
 * format field of the same width, the fixed counter's terms, and every
 * free-running counter's kernel event.  Then the aliases the kernel
 * offers for DRAM traffic against the catalog encodings.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hw/hw.h"
#include "plat/plat.h"
#include "tests/tap.h"

/* Bits of a format value "config1:0-7,32" into *bits; 0 or -EINVAL. */
static int fmt_bits(const char *v, unsigned *bits)
{
	const char *p = v;
	char *end;

	*bits = 0;
	if (strncmp(p, "config", 6) != 0)
		return -EINVAL;
	p += 6;
	if (*p == '1' || *p == '2')
		p++;
	if (*p++ != ':')
		return -EINVAL;
	for (;;) {
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p || lo > 63)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			hi = strtoul(++p, &end, 10);
			if (end == p || hi > 63 || hi < lo)
				return -EINVAL;
			p = end;
		}
		*bits += (unsigned)(hi - lo + 1);
		if (*p == '\0')
			return 0;
		if (*p++ != ',')
			return -EINVAL;
	}
}

static const struct perf_fact *fact(const struct perf_fact *f,
				    const char *name)
{
	for (; f && f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

/* Width of format field name of u, 0 if absent or malformed. */
static unsigned field_bits(const struct perf_unit *u, const char *name)
{
	const struct perf_fact *f = fact(u->format, name);
	unsigned b;

	return f && fmt_bits(f->value, &b) == 0 ? b : 0;
}

/* Terms "a=0x1,b=2": every name a format field, every value fitting. */
static int terms_ok(const struct perf_unit *u, const char *terms,
		    char *why, size_t len)
{
	char buf[256], *save = NULL, *t;

	snprintf(buf, sizeof(buf), "%s", terms);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '='), *end;
		unsigned long long v;
		unsigned b;

		if (!eq) {
			snprintf(why, len, "term \"%s\" has no value", t);
			return 0;
		}
		*eq = '\0';
		b = field_bits(u, t);
		v = strtoull(eq + 1, &end, 0);
		if (!b || *end || (b < 64 && v >> b)) {
			snprintf(why, len, "term %s=%s: field %s", t, eq + 1,
				 b ? "too narrow" : "not in format/");
			return 0;
		}
	}
	return 1;
}

static void check_formats(const struct platform *p, const struct unit_type *u,
			  const struct perf_unit *k)
{
	int bad = 0;
	unsigned b;

	for (const struct perf_fact *f = k->format; f && f->name; f++)
		if (fmt_bits(f->value, &b) < 0) {
			printf("# %s %s: format %s = \"%s\"\n", p->id, u->name,
			       f->name, f->value);
			bad++;
		}
	ok(k->format && k->format->name && !bad,
	   "%s %s: %s has format fields in the kernel's grammar", p->id,
	   u->name, k->pmu);
	for (const struct perf_fact *f = k->events; f && f->name; f++) {
		char why[128] = "";

		ok(terms_ok(k, f->value, why, sizeof(why)),
		   "%s %s: alias %s=%s uses format fields %s", p->id, u->name,
		   f->name, f->value, why);
		ok((f->scale == 0) == (f->unit == NULL),
		   "%s %s: alias %s has .scale and .unit together", p->id,
		   u->name, f->name);
	}
}

/* The encoding's fields: present and as wide as the unit's. */
static void check_encoding(const struct platform *p, const struct unit_type *u,
			   const struct perf_unit *k)
{
	const char *ev = k->f_event ? k->f_event : "event";
	const char *um = k->f_umask ? k->f_umask : "umask";
	const char *th = k->f_thresh ? k->f_thresh : "thresh";

	if (u->kind != UNIT_PROG)
		return;
	ok(field_bits(k, ev) >= u->fmt.ev_w,
	   "%s %s: format %s holds the %u-bit event select", p->id, u->name,
	   ev, u->fmt.ev_w);
	if (k->f_occ)
		ok(field_bits(k, k->f_occ) == 2,
		   "%s %s: occupancy select %s is 2 bits", p->id, u->name,
		   k->f_occ);
	else
		ok(field_bits(k, um) >= u->fmt.umask_w,
		   "%s %s: format %s holds the %u-bit umask", p->id, u->name,
		   um, u->fmt.umask_w);
	if (u->fmt.thresh_w)
		ok(field_bits(k, th) >= u->fmt.thresh_w,
		   "%s %s: format %s holds the %u-bit threshold", p->id,
		   u->name, th, u->fmt.thresh_w);
}

static void check_filters(const struct platform *p, const struct unit_type *u,
			  const struct perf_unit *k)
{
	for (const struct perf_filter_map *m = k->filters; m && m->field;
	     m++) {
		const struct reg_field *f = m->filter < u->nfilters ?
			reg_field(u->filters[m->filter].layout, m->field) :
			NULL;

		ok(f && field_bits(k, m->format) ==
			(unsigned)(f->hi - f->lo + 1),
		   "%s %s: filter %u field %s is format %s, same width", p->id,
		   u->name, m->filter, m->field, m->format);
	}
}

static void check_freerun(const struct platform *p, const struct unit_type *u,
			  const struct perf_unit *k)
{
	for (unsigned i = 0; i < u->nfreerun; i++) {
		const struct freerun_ctr *c = &u->freerun[i];
		const struct perf_unit *on = k;
		char why[128] = "";

		if (!c->perf_event)
			continue;
		if (c->perf_pmu && strcmp(c->perf_pmu, k->pmu) != 0)
			on = k->also && strcmp(k->also->pmu, c->perf_pmu) == 0 ?
			     k->also : NULL;
		ok(on && (fact(on->events, c->perf_event) ||
			  terms_ok(on, c->perf_event, why, sizeof(why))),
		   "%s %s: %s is event %s of %s %s", p->id, u->name, c->name,
		   c->perf_event, c->perf_pmu ? c->perf_pmu : k->pmu, why);
	}
}

static void check_unit(const struct platform *p, const struct unit_type *u)
{
	const struct perf_unit *k = u->perf;

	ok(k->pmu && *k->pmu && k->source &&
	   strstr(k->source, "arch/x86/events/") == k->source,
	   "%s %s: PMU %s cites its kernel source", p->id, u->name,
	   k->pmu ? k->pmu : "(none)");
	check_formats(p, u, k);
	check_encoding(p, u, k);
	check_filters(p, u, k);
	check_freerun(p, u, k);
	if (k->also)
		check_formats(p, u, k->also);
	if (u->kind == UNIT_FIXED) {
		char why[128] = "";

		ok(k->fixed && (fact(k->events, k->fixed) ||
				terms_ok(k, k->fixed, why, sizeof(why))),
		   "%s %s: the fixed counter is selected by %s %s", p->id,
		   u->name, k->fixed ? k->fixed : "(nothing)", why);
	}
}

static void test_platforms(void)
{
	for (const struct platform *const *p = plat_all; *p; p++) {
		unsigned with = 0;

		if (!((*p)->backends & PLAT_BE_PERF))
			continue;
		for (unsigned i = 0; (*p)->units[i]; i++) {
			if (!(*p)->units[i]->perf)
				continue;
			with++;
			check_unit(*p, (*p)->units[i]);
		}
		ok(with > 0, "%s: perf backend with %u kernel PMUs", (*p)->id,
		   with);
		for (size_t e = 0; e < (*p)->nevents; e++) {
			const struct event *ev = &(*p)->events[e];
			const struct unit_type *u = plat_unit(*p, ev->unit, NULL);
			char why[128] = "";

			if (ev->perf_terms && (!u || !u->perf ||
			    !terms_ok(u->perf, ev->perf_terms, why,
				      sizeof(why))))
				ok(0, "%s %s: perf terms %s %s", (*p)->id,
				   ev->name, ev->perf_terms, why);
		}
	}
}

/* The kernel's DRAM aliases equal the catalog's CAS encodings. */
static void alias_is(const char *plat, const char *unit, const char *alias,
		     const char *event)
{
	const struct platform *p = plat_by_id(plat);
	const struct unit_type *u = p ? plat_unit(p, unit, NULL) : NULL;
	const struct perf_fact *f = u && u->perf ? fact(u->perf->events, alias)
						 : NULL;
	const struct event *ev = p ? plat_event(p, event) : NULL;
	char want[64];

	if (ev)
		snprintf(want, sizeof(want), "event=0x%02x,umask=0x%02llx",
			 ev->code, (unsigned long long)ev->umask);
	ok(f && ev && strcmp(f->value, want) == 0,
	   "%s %s/%s/ is %s (%s)", plat, u && u->perf ? u->perf->pmu : unit,
	   alias, event, f ? f->value : "no alias");
}

static void test_aliases(void)
{
	alias_is("hsx", "imc", "cas_count_read", "UNC_M_CAS_COUNT.RD");
	alias_is("hsx", "imc", "cas_count_write", "UNC_M_CAS_COUNT.WR");
	alias_is("snbep", "imc", "cas_count_read", "UNC_M_CAS_COUNT.RD");
	alias_is("snbep", "imc", "cas_count_write", "UNC_M_CAS_COUNT.WR");
	/* the generation trap: skx 0x04/0x03, 0x04/0x0c; icx 0x04/0x0f,
	 * 0x04/0x30; spr 0x05/0xcf, 0x05/0xf0 - kernel and Intel agree */
	alias_is("skx", "imc", "cas_count_read", "UNC_M_CAS_COUNT.RD");
	alias_is("skx", "imc", "cas_count_write", "UNC_M_CAS_COUNT.WR");
	alias_is("icx", "imc", "cas_count_read", "UNC_M_CAS_COUNT.RD");
	alias_is("icx", "imc", "cas_count_write", "UNC_M_CAS_COUNT.WR");
	alias_is("spr", "imc", "cas_count_read", "UNC_M_CAS_COUNT.RD");
	alias_is("spr", "imc", "cas_count_write", "UNC_M_CAS_COUNT.WR");
	/* gnr from 2026 (gnr_uncore_imc_events): one alias per scheduler,
	 * each Intel's SCH0/SCH1 event */
	alias_is("gnr", "imc", "cas_count_read_sch0", "UNC_M_CAS_COUNT_SCH0.RD");
	alias_is("gnr", "imc", "cas_count_read_sch1", "UNC_M_CAS_COUNT_SCH1.RD");
	alias_is("gnr", "imc", "cas_count_write_sch0", "UNC_M_CAS_COUNT_SCH0.WR");
	alias_is("gnr", "imc", "cas_count_write_sch1", "UNC_M_CAS_COUNT_SCH1.WR");
	/* ... and before it spr's names, which are scheduler 0 only: the
	 * trap uncored avoids by never encoding from alias names */
	{
		const struct unit_type *u = plat_unit(&plat_gnr, "imc", NULL);
		const struct perf_unit *k = u ? u->perf : NULL;
		const struct perf_fact *f = k ? fact(k->events_before,
						     "cas_count_read") : NULL;

		ok(k && k->events_since && f &&
		   strcmp(f->value, "event=0x05,umask=0xcf") == 0,
		   "gnr imc before %s: cas_count_read is %s (SCH0.RD only)",
		   k && k->events_since ? k->events_since : "?",
		   f ? f->value : "no alias");
		ok(k && !fact(k->events, "cas_count_read"),
		   "gnr imc from then: no cas_count_read");
	}
}

/* Every entry of a perf platform's catalog fits its unit. */
static void test_catalogs(void)
{
	for (const struct platform *const *p = plat_all; *p; p++) {
		unsigned bad = 0, dup = 0;

		if ((*p)->backends & PLAT_BE_DIRECT || !(*p)->backends)
			continue;
		for (size_t e = 0; e < (*p)->nevents; e++) {
			const struct event *ev = &(*p)->events[e];
			const struct unit_type *u = plat_unit(*p, ev->unit, NULL);

			for (size_t f = e + 1; f < (*p)->nevents; f++)
				dup += !strcmp(ev->name, (*p)->events[f].name);
			if (!u || !u->perf) {
				printf("# %s: unit %s\n", ev->name, ev->unit);
				bad++;
			} else if (u->kind == UNIT_PROG &&
				   (ev->code >> u->fmt.ev_w ||
				    (u->fmt.umask_w < 64 &&
				     ev->umask >> u->fmt.umask_w) ||
				    !ev->ctr_mask ||
				    ev->ctr_mask >> plat_unit_nctr_max(u))) {
				printf("# %s: 0x%x/0x%llx ctr 0x%x on %s\n",
				       ev->name, ev->code,
				       (unsigned long long)ev->umask,
				       ev->ctr_mask, u->name);
				bad++;
			}
		}
		ok(!bad && !dup, "%s: %zu catalog events fit their units' "
		   "kernel fields and counters, no name twice", (*p)->id,
		   (*p)->nevents);
	}
}

/* CPU matching by vendor, family, model and stepping. */
static void test_cpus(void)
{
	struct plat_cpu c = { "GenuineIntel", 6, 0x55, 4 };

	ok(plat_for_cpu(&c) == &plat_skx, "6/0x55 stepping 4 (Skylake-SP) "
	   "is skx");
	c.stepping = 7;
	ok(plat_for_cpu(&c) == &plat_skx, "stepping 7 (Cascade Lake) is skx");
	c.stepping = 11;
	ok(plat_for_cpu(&c) == &plat_skx, "stepping 11 (Cooper Lake) is skx");
	c.stepping = 8;
	ok(plat_for_cpu(&c) == NULL, "stepping 8: no such part, no platform");
	c = (struct plat_cpu){ "GenuineIntel", 6, 0x6C, 1 };
	ok(plat_for_cpu(&c) == &plat_icx, "6/0x6C is icx");
	c.model = 0xCF;
	ok(plat_for_cpu(&c) == &plat_spr, "6/0xCF (Emerald Rapids) is spr");
	c.model = 0xAD;
	ok(plat_for_cpu(&c) == &plat_gnr, "6/0xAD (Granite Rapids-X) is gnr");
	c.model = 0xAE;
	ok(plat_for_cpu(&c) == &plat_gnr, "6/0xAE (Granite Rapids-D) is gnr");
	c.model = 0xAF;
	ok(plat_for_cpu(&c) == &plat_gnr, "6/0xAF (Sierra Forest) is gnr");
	c.model = 0xB6;
	ok(plat_for_cpu(&c) == NULL, "6/0xB6 (Grand Ridge): none (no data)");
	c = (struct plat_cpu){ "AuthenticAMD", 0x19, 0x11, 1 };
	ok(plat_for_cpu(&c) == &plat_zen4, "AMD 0x19/0x11 (Genoa) is zen4");
	c.model = 0xA0;
	ok(plat_for_cpu(&c) == &plat_zen4, "AMD 0x19/0xA0 (Bergamo) is zen4");
	c.model = 0x01;
	ok(plat_for_cpu(&c) == &plat_zen3, "AMD 0x19/0x01 (Milan) is zen3");
	c.model = 0x21;
	ok(plat_for_cpu(&c) == &plat_zen3, "AMD 0x19/0x21 (Ryzen 5000) is zen3");
	c.model = 0x61;
	ok(plat_for_cpu(&c) == NULL, "AMD 0x19/0x61 (Raphael, a Zen 4 "
	   "client): none");
	c = (struct plat_cpu){ "AuthenticAMD", 0x1a, 0x02, 1 };
	ok(plat_for_cpu(&c) == &plat_zen5, "AMD 0x1a/0x02 (Turin) is zen5");
	c.model = 0x11;
	ok(plat_for_cpu(&c) == &plat_zen5, "AMD 0x1a/0x11 (Turin dense) is zen5");
	c.model = 0x44;
	ok(plat_for_cpu(&c) == &plat_zen5, "AMD 0x1a/0x44 (Ryzen 9000) is zen5");
	c.model = 0x50;
	ok(plat_for_cpu(&c) == NULL, "AMD 0x1a/0x50 (Zen 6): none");
	ok(plat_refusal(&c) == NULL, "... and no reason known for it");
	c = (struct plat_cpu){ "AuthenticAMD", 0x17, 0x31, 0 };
	ok(plat_for_cpu(&c) == NULL, "AMD 0x17/0x31 (Rome, Zen 2): none");
	ok(plat_refusal(&c) &&
	   strstr(plat_refusal(&c), "amdzen2/data-fabric.json is not") == NULL &&
	   strstr(plat_refusal(&c), "(amdzen2/data-fabric.json) is not in the "
		  "reference data"),
	   "and the refusal says its data fabric events cannot be cited");
	ok(plat_refusal(&c) &&
	   strstr(plat_refusal(&c), "slicemask config:48-51"),
	   "and that its amd_l3 fields differ");
	memcpy(c.vendor, "GenuineIntel", 13);
	c.model = 0x11;
	ok(plat_for_cpu(&c) == NULL, "an Intel CPU never matches zen4");
}

/* The direct paths refuse a perf-only platform, naming the perf backend. */
static void test_direct_refused(void)
{
	struct topology t;

	for (const struct platform *const *p = plat_all; *p; p++) {
		bool perf_only = !((*p)->backends & PLAT_BE_DIRECT) &&
				 (*p)->backends;
		int r = plat_direct_check(*p);

		if (!perf_only) {
			is_int(r, 0, "%s: the direct backend serves it",
			       (*p)->id);
			continue;
		}
		is_int(r, -ENOTSUP, "%s: the direct backend refuses it",
		       (*p)->id);
		ok(strstr(hw_last_error(), "perf backend only") &&
		   strstr(hw_last_error(), (*p)->id),
		   "and says so: %s", hw_last_error());
		is_int(plat_discover(*p, NULL, &t, NULL), -ENOTSUP,
		       "%s: discovery refuses it before touching hardware",
		       (*p)->id);
	}
}

int main(void)
{
	test_platforms();
	test_aliases();
	test_catalogs();
	test_cpus();
	test_direct_refused();
	return tap_done();
}
