/*
 * sim_pmu.c - the simulated kernel's PMUs (sim_pmu.h): built from the
 * platform's kernel PMU facts and the workload's topology, decoded the
 * way the kernel's uncore drivers read a perf_event_attr.config, and
 * written out as the kernel's sysfs tree.
 *
 * Sources for what the tree holds, per file:
 *  - type: perf_pmu_register() assigns it; printed "%d\n" (kernel/events/
 *    core.c type_show).  Ours count up from SPMU_TYPE_BASE.
 *  - cpumask: cpumap_print_to_pagebuf(true, ...), a CPU list and "\n"
 *    (arch/x86/events/intel/uncore.c uncore_get_attr_cpumask, amd/uncore.c
 *    amd_uncore_attr_show_cpumask).
 *  - perf_event_mux_interval_ms: "4\n", the default rotation interval
 *    (kernel/events/core.c, PERF_CPU_HRTIMER).
 *  - format/NAME: the format string and "\n" (the drivers'
 *    DEFINE_UNCORE_FORMAT_ATTR / PMU_FORMAT_ATTR: sprintf(page, fmt "\n")).
 *  - events/NAME, NAME.scale, NAME.unit: the table's string verbatim
 *    ("6.103515625e-5"), without a newline (uncore.c uncore_event_show:
 *    sprintf(buf, "%s", event->config)); the cstate PMUs' with one
 *    (kernel/events/core.c perf_event_sysfs_show: "%s\n").
 *  - alias: where the platform names the PMU's generic discovery name
 *    (perf_unit.older), "uncore_type_<type>_<box id>\n" (arch/x86/
 *    events/intel/uncore.c alias_show()).
 *  - bus/event_source/devices/NAME: a link to ../../../devices/NAME, as
 *    on every Linux system (perf_pmu_register adds the device to the
 *    event_source bus).
 *  - devices/system/cpu/online, cpuN/online ("1\n"; cpu0 has none, as on
 *    x86 without CONFIG_BOOTPARAM_HOTPLUG_CPU0), cpuN/topology/
 *    {physical_package_id,die_id,core_id} ("%d\n").
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/hw_sim.h"
#include "sim/sim_pmu.h"

__attribute__((format(printf, 3, 4)))
static int fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* ---- format fields and terms ----------------------------------------- */

/* A decimal bit number 0..63 at *s; advances *s.  -1 if there is none. */
static int bit_num(const char **s)
{
	int v = 0, n = 0;

	for (; **s >= '0' && **s <= '9' && n < 3; (*s)++, n++)
		v = v * 10 + (**s - '0');
	return n == 0 || v > 63 ? -1 : v;
}

/*
 * "config:0-7,32-35", "config1:17", "config2:0-63" (Documentation/ABI/
 * testing/sysfs-bus-event_source-devices-format): the config word and the
 * bits.  Ranges may come in any order but not overlap.
 */
static int field_parse(const char *text, struct spmu_field *f, char *why,
		       size_t len)
{
	const char *s = text;

	if (strncmp(s, "config", 6) != 0)
		return fail(why, len, "\"%s\" does not start with config, "
			    "config1 or config2", text);
	s += 6;
	f->cfg = 0;
	if (*s == '1' || *s == '2')
		f->cfg = (uint8_t)(*s++ - '0');
	if (*s++ != ':')
		return fail(why, len, "\"%s\": expected ':' after the config "
			    "word", text);
	f->mask = 0;
	for (;;) {
		int lo = bit_num(&s), hi = lo;
		uint64_t m;

		if (lo >= 0 && *s == '-') {
			s++;
			hi = bit_num(&s);
		}
		if (lo < 0 || hi < lo)
			return fail(why, len, "\"%s\": bad bit range (N or N-M, "
				    "0 <= N <= M <= 63)", text);
		m = (hi == 63 ? ~0ull : (1ull << (hi + 1)) - 1) &
		    ~((1ull << lo) - 1);
		if (f->mask & m)
			return fail(why, len, "\"%s\": ranges overlap", text);
		f->mask |= m;
		if (*s == '\0' || *s == '\n')
			break;
		if (*s++ != ',')
			return fail(why, len, "\"%s\": expected ',' between "
				    "ranges", text);
	}
	f->text = text;
	return 0;
}

uint64_t spmu_field_get(const struct spmu_field *f, const uint64_t cfg[3])
{
	uint64_t v = 0, word = cfg[f->cfg];
	unsigned vbit = 0;

	for (unsigned b = 0; b < 64; b++) {
		if (!(f->mask >> b & 1))
			continue;
		if (word >> b & 1)
			v |= 1ull << vbit;
		vbit++;
	}
	return v;
}

/* Places v into field f of cfg (ascending bit order); false if v does
 * not fit the field's width. */
static bool field_put(const struct spmu_field *f, uint64_t v, uint64_t cfg[3])
{
	unsigned vbit = 0;

	for (unsigned b = 0; b < 64; b++) {
		if (!(f->mask >> b & 1))
			continue;
		if (v >> vbit & 1)
			cfg[f->cfg] |= 1ull << b;
		vbit++;
	}
	return vbit >= 64 || v >> vbit == 0;
}

const struct spmu_field *spmu_field(const struct spmu *p, const char *name)
{
	for (unsigned i = 0; i < p->nf; i++)
		if (strcmp(p->f[i].name, name) == 0)
			return &p->f[i];
	return NULL;
}

/* One term "name=value" or "name" of length n at t. */
static int encode_term(const struct spmu *p, const char *t, size_t n,
		       uint64_t cfg[3], char *why, size_t len)
{
	char term[80], *eq, *end;
	const struct spmu_field *f;
	uint64_t v = 1;

	if (n == 0 || n >= sizeof(term))
		return fail(why, len, "%s: empty or overlong term", p->name);
	memcpy(term, t, n);
	term[n] = '\0';
	eq = strchr(term, '=');
	if (eq) {
		*eq++ = '\0';
		errno = 0;
		v = strtoull(eq, &end, strncmp(eq, "0x", 2) == 0 ? 16 : 10);
		if (errno || end == eq || *end || *eq == '-' || *eq == '+')
			return fail(why, len, "%s: term \"%s\": \"%s\" is not a "
				    "number", p->name, term, eq);
	}
	f = spmu_field(p, term);
	if (!f)
		return fail(why, len, "%s: no format field \"%s\"", p->name,
			    term);
	if (!field_put(f, v, cfg))
		return fail(why, len, "%s: %s=0x%" PRIx64 " does not fit %s",
			    p->name, term, v, f->text);
	return 0;
}

int spmu_encode(const struct spmu *p, const char *terms, uint64_t cfg[3],
		char *why, size_t len)
{
	const char *t = terms;

	cfg[0] = cfg[1] = cfg[2] = 0;
	for (;;) {
		size_t n = strcspn(t, ",");
		int r = encode_term(p, t, n, cfg, why, len);

		if (r < 0)
			return r;
		if (!t[n])
			return 0;
		t += n + 1;
	}
}

/* ---- building ---------------------------------------------------------- */

static const struct unit_type *unit_of(const struct spmu_set *s, int ui)
{
	return s->plat->units[ui];
}

/* Adds the facts' format fields to p; the same name twice must agree. */
static int add_fields(struct spmu *p, const struct perf_unit *pu, char *why,
		      size_t len)
{
	char err[160];

	for (const struct perf_fact *x = pu->format; x && x->name; x++) {
		const struct spmu_field *old = spmu_field(p, x->name);
		struct spmu_field f = { .name = x->name };

		if (old && strcmp(old->text, x->value) != 0)
			return fail(why, len, "PMU %s: format \"%s\" is \"%s\" "
				    "in one unit's facts and \"%s\" in "
				    "another's", p->name, x->name, old->text,
				    x->value);
		if (old)
			continue;
		if (p->nf == SPMU_MAX_FIELDS)
			return fail(why, len, "PMU %s: more than %d format "
				    "fields", p->name, SPMU_MAX_FIELDS);
		if (!x->value || field_parse(x->value, &f, err, sizeof(err)) < 0)
			return fail(why, len, "PMU %s (%s): format \"%s\": %s",
				    p->name, pu->source ? pu->source : "?",
				    x->name, x->value ? err : "no value");
		p->f[p->nf++] = f;
	}
	return 0;
}

/* Adds the facts' event aliases to p; the same name twice must agree. */
static int add_aliases(struct spmu *p, const struct perf_unit *pu,
		       const struct workload *w, char *why, size_t len)
{
	const struct perf_fact *set = pu->events;
	unsigned since;

	/* the alias set of the workload's kernel (struct perf_unit
	 * events_since: gnr's imc changed it in 2026) */
	if (pu->events_since &&
	    wl_kernel_version(pu->events_since, &since) == 0 &&
	    wl_perf_version(w) < since)
		set = pu->events_before;
	for (const struct perf_fact *x = set; x && x->name; x++) {
		struct spmu_alias *na;
		unsigned i;

		for (i = 0; i < p->na; i++)
			if (strcmp(p->a[i].name, x->name) == 0)
				break;
		if (i < p->na) {
			if (strcmp(p->a[i].value, x->value) != 0)
				return fail(why, len, "PMU %s: event \"%s\" is "
					    "\"%s\" and \"%s\"", p->name,
					    x->name, p->a[i].value, x->value);
			continue;
		}
		if (!x->value || strchr(x->name, '/') || x->name[0] == '.')
			return fail(why, len, "PMU %s: bad event fact \"%s\"",
				    p->name, x->name);
		na = realloc(p->a, (p->na + 1) * sizeof(*p->a));
		if (!na)
			return -ENOMEM;
		p->a = na;
		p->a[p->na++] = (struct spmu_alias){ x->name, x->value,
						     x->scale, x->unit,
						     pu->events_nl };
	}
	return 0;
}

/* The PMU called name, appended if new. */
static struct spmu *pmu_get(struct spmu_set *s, const char *name, int inst)
{
	struct spmu *np;

	for (unsigned i = 0; i < s->n; i++)
		if (strcmp(s->p[i].name, name) == 0)
			return &s->p[i];
	np = realloc(s->p, (s->n + 1) * sizeof(*s->p));
	if (!np)
		return NULL;
	s->p = np;
	np = &s->p[s->n++];
	memset(np, 0, sizeof(*np));
	snprintf(np->name, sizeof(np->name), "%s", name);
	np->inst = inst;
	np->prog = np->fixed = -1;
	return np;
}

static bool has_unit(const struct spmu *p, int ui)
{
	for (unsigned i = 0; i < p->nunits; i++)
		if (p->units[i] == ui)
			return true;
	return false;
}

struct collect {
	struct spmu_set *s;
	char *why;
	size_t len;
};

/*
 * A second unit on PMU p: a per-box name and a plain one may meet when
 * the plain one's unit has one instance per socket (skl's fixed counter
 * on uncore_cbox_0): the PMU is that box's.  Else both must agree.
 */
static int merge_inst(struct collect *c, struct spmu *p,
		      const struct wl_pmu *w)
{
	int plain;

	if (p->nunits == 0 || (p->inst == w->inst && p->socket == w->socket))
		return 0;
	plain = p->inst < 0 ? p->units[0] : w->unit;
	if ((p->inst >= 0) == (w->inst >= 0) ||
	    wl_unit_ninst(c->s->wl, plain) > 1)
		return fail(c->why, c->len, "PMU %s is one PMU per box for one "
			    "unit and one over several boxes for another",
			    p->name);
	if (w->inst >= 0) {
		p->inst = w->inst;
		p->socket = w->socket;
	}
	return 0;
}

/* wl_perf_pmus() callback: one (PMU name, unit) pair. */
static int collect_one(void *ctx, const struct wl_pmu *w)
{
	struct collect *c = ctx;
	struct spmu *p = pmu_get(c->s, w->name, w->inst);
	const struct unit_type *u = unit_of(c->s, w->unit);
	int r;

	if (!p)
		return -ENOMEM;
	if (p->nunits == 0)
		p->socket = w->socket;
	if ((r = merge_inst(c, p, w)) < 0)
		return r;
	if (!has_unit(p, w->unit)) {
		if (p->nunits == SPMU_MAX_UNITS)
			return fail(c->why, c->len, "PMU %s: more than %d units",
				    p->name, SPMU_MAX_UNITS);
		p->units[p->nunits++] = w->unit;
	}
	if (u->kind == UNIT_PROG) {
		if (p->prog >= 0 && p->prog != w->unit)
			return fail(c->why, c->len, "PMU %s: two programmable "
				    "units (%s, %s)", p->name,
				    unit_of(c->s, p->prog)->name, u->name);
		p->prog = w->unit;
		/* the kernel's count: CPUID's where it reads one (AMD DF
		 * under PerfMonV2: amd_uncore_df_ctx_scan()), from the
		 * simulated CPU's CPUID; uncored's cap of PLAT_MAX_CTRS
		 * is not the kernel's (NUM_COUNTERS_MAX 64) */
		p->nctr = u->nctr_cpuid
			  ? plat_kernel_nctr(u->nctr_cpuid, u->nctr, wl_cpuid,
					     (void *)c->s->wl, NULL)
			  : u->nctr;
		p->facts = w->facts;
	} else if (!p->facts) {
		p->facts = w->facts;
	}
	/* the later of the units' kernels, compared as versions ("6.14"
	 * is after "6.8", which strcmp() would not say) */
	if (w->facts->since) {
		unsigned a = 0, b = 0;

		wl_kernel_version(w->facts->since, &a);
		if (p->since)
			wl_kernel_version(p->since, &b);
		if (!p->since || a > b)
			p->since = w->facts->since;
	}
	if (w->facts->until)
		p->until = w->facts->until;
	if ((r = add_fields(p, w->facts, c->why, c->len)) < 0 ||
	    (r = add_aliases(p, w->facts, c->s->wl, c->why,
				 c->len)) < 0)
		return r;
	return 0;
}

/* The config that alias-or-terms selects on p. */
static int select_cfg(const struct spmu *p, const char *sel, uint64_t cfg[3],
		      char *why, size_t len)
{
	if (!strchr(sel, '=')) {
		for (unsigned i = 0; i < p->na; i++)
			if (strcmp(p->a[i].name, sel) == 0)
				return spmu_encode(p, p->a[i].value, cfg, why,
						   len);
		return fail(why, len, "PMU %s has no event \"%s\"", p->name,
			    sel);
	}
	return spmu_encode(p, sel, cfg, why, len);
}

/* Does PMU pattern pat (with its "%u") name p? */
static bool names_pmu(const char *pat, const struct spmu *p)
{
	const char *pc = strchr(pat, '%');
	char buf[WL_PMU_NAME_MAX];

	if (!pc)
		return strcmp(pat, p->name) == 0;
	if (p->inst < 0 || pc[1] != 'u')
		return false;
	snprintf(buf, sizeof(buf), "%.*s%d%s", (int)(pc - pat), pat, p->inst,
		 pc + 2);
	return strcmp(buf, p->name) == 0;
}

/* Attaches the free-running counters whose kernel event is on p. */
static int attach_freerun(struct spmu_set *s, struct spmu *p, char *why,
			  size_t len)
{
	for (int ui = 0; s->plat->units[ui]; ui++) {
		const struct unit_type *u = unit_of(s, ui);

		for (unsigned i = 0; i < u->nfreerun; i++) {
			const struct freerun_ctr *fc = &u->freerun[i];
			const char *pat = fc->perf_pmu ? fc->perf_pmu
				: u->perf ? u->perf->pmu : NULL;
			struct spmu_freerun *fr = &p->fr[p->nfr];
			int r;

			if (!fc->perf_event || !pat || !names_pmu(pat, p))
				continue;
			if (p->nfr == SPMU_MAX_FREERUN)
				return fail(why, len, "PMU %s: more than %d "
					    "free-running counters", p->name,
					    SPMU_MAX_FREERUN);
			r = select_cfg(p, fc->perf_event, fr->cfg, why, len);
			if (r < 0)
				return r;
			fr->unit = ui;
			fr->idx = i;
			p->nfr++;
			if (!has_unit(p, ui) && p->nunits < SPMU_MAX_UNITS)
				p->units[p->nunits++] = ui;
		}
	}
	return 0;
}

/* The fixed counter behind p and its config, if any. */
static int attach_fixed(struct spmu_set *s, struct spmu *p, char *why,
			size_t len)
{
	for (unsigned i = 0; i < p->nunits; i++) {
		const struct unit_type *u = unit_of(s, p->units[i]);

		if (u->kind != UNIT_FIXED || !u->perf || !u->perf->fixed)
			continue;
		if (p->fixed >= 0)
			return fail(why, len, "PMU %s: two fixed counters",
				    p->name);
		p->fixed = p->units[i];
		if (select_cfg(p, u->perf->fixed, p->fixed_cfg, why, len) < 0)
			return -EINVAL;
	}
	return 0;
}

/* Every perf->filters entry names a filter register field and a format
 * field that exist. */
static int check_filters(struct spmu_set *s, const struct spmu *p, char *why,
			 size_t len)
{
	const struct unit_type *u;

	if (p->prog < 0 || !(u = unit_of(s, p->prog))->perf->filters)
		return 0;
	for (const struct perf_filter_map *m = u->perf->filters; m->field;
	     m++) {
		if (m->filter >= u->nfilters ||
		    !reg_field(u->filters[m->filter].layout, m->field) ||
		    !m->format || !spmu_field(p, m->format))
			return fail(why, len, "PMU %s: filter map %u/%s -> %s "
				    "names no filter field or no format field",
				    p->name, m->filter, m->field,
				    m->format ? m->format : "(null)");
	}
	return 0;
}

/* Is p registered: not missing in the workload, not newer than its
 * kernel? */
static bool pmu_present(const struct workload *w, const struct spmu *p)
{
	unsigned since;

	for (unsigned i = 0; i < w->perf.nmissing; i++)
		if (fnmatch(w->perf.missing[i], p->name, 0) == 0)
			return false;
	if (p->until && wl_kernel_version(p->until, &since) == 0 &&
	    wl_perf_version(w) >= since)
		return false;
	return !p->since || wl_kernel_version(p->since, &since) < 0 ||
	       wl_perf_version(w) >= since;
}

/* Boxes per socket, core scope, presence and type of every PMU; the CPU
 * numbering that gives each box a CPU of its own. */
static void finish_pmus(struct spmu_set *s)
{
	uint32_t type = SPMU_TYPE_BASE;

	s->cpus_per_socket = SIM_CPUS_PER_SOCKET;
	for (unsigned i = 0; i < s->n; i++) {
		struct spmu *p = &s->p[i];
		bool cores = p->nfr > 0 && p->prog < 0 && p->fixed < 0;

		for (unsigned j = 0; j < p->nfr; j++)
			cores &= unit_of(s, p->fr[j].unit)->freerun[p->fr[j].idx]
					 .core_scope;
		p->core_scope = cores;
		p->nbox = cores ? s->cores : p->inst >= 0 ? 1
			  : wl_unit_ninst(s->wl, p->units[0]);
		/* no more boxes than the driver's table (num_boxes) */
		if (!cores && unit_of(s, p->units[0])->max_inst &&
		    p->nbox > unit_of(s, p->units[0])->max_inst)
			p->nbox = unit_of(s, p->units[0])->max_inst;
		if (p->nbox == 0)
			p->nbox = 1;
		if (p->inst < 0 && !cores && p->nbox > s->cpus_per_socket)
			s->cpus_per_socket = p->nbox;
		p->present = pmu_present(s->wl, p);
		if (p->present)
			p->type = type++;
	}
	/* every die the same number of CPUs */
	s->cpus_per_socket = (s->cpus_per_socket + s->dies - 1) / s->dies *
			     s->dies;
}

/* Boxes of one die of a per-box PMU's unit: the unit's count per socket
 * shared by the dies (wl_perf_pmus() made this many PMUs). */
static unsigned per_die(const struct spmu_set *s, const struct spmu *p)
{
	unsigned n = wl_unit_ninst(s->wl, p->units[0]);
	unsigned max = unit_of(s, p->units[0])->max_inst;

	if (max && n > max)
		n = max;
	return (n + s->dies - 1) / s->dies;
}

int spmu_build(struct spmu_set *s, const struct workload *w,
	       unsigned nsockets, unsigned cores, char *why, size_t len)
{
	struct collect c = { s, why, len };
	int r;

	memset(s, 0, sizeof(*s));
	s->plat = w->plat;
	s->wl = w;
	s->nsockets = nsockets ? nsockets : 1;
	s->dies = wl_dies(w);
	s->cores = cores ? cores : 1;
	s->amd = w->plat->vendor && strcmp(w->plat->vendor,
					    "AuthenticAMD") == 0;
	r = wl_perf_pmus(w, collect_one, &c);
	if (r == 0 && s->n == 0)
		r = -ENOENT, fail(why, len, "%s has no kernel PMU facts (no "
				  "unit has struct perf_unit): it cannot be "
				  "simulated for the perf backend", w->plat->id);
	for (unsigned i = 0; r == 0 && i < s->n; i++) {
		if ((r = attach_freerun(s, &s->p[i], why, len)) == 0 &&
		    (r = attach_fixed(s, &s->p[i], why, len)) == 0)
			r = check_filters(s, &s->p[i], why, len);
	}
	if (r < 0) {
		if (r == -ENOMEM)
			fail(why, len, "out of memory");
		spmu_free(s);
		return r;
	}
	finish_pmus(s);
	return 0;
}

void spmu_free(struct spmu_set *s)
{
	for (unsigned i = 0; s->p && i < s->n; i++)
		free(s->p[i].a);
	free(s->p);
	s->p = NULL;
	s->n = 0;
}

struct spmu *spmu_by_type(const struct spmu_set *s, uint32_t t)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->p[i].present && s->p[i].type == t)
			return &s->p[i];
	return NULL;
}

struct spmu *spmu_by_name(const struct spmu_set *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->p[i].present && strcmp(s->p[i].name, name) == 0)
			return &s->p[i];
	return NULL;
}

/* ---- boxes ------------------------------------------------------------- */

int spmu_box(const struct spmu_set *s, const struct spmu *p, unsigned cpu,
	     struct spmu_box *b)
{
	unsigned cps = s->cpus_per_socket, local, g;

	if (cpu >= s->nsockets * cps)
		return -EINVAL;
	b->socket = cpu / cps;
	local = cpu % cps;
	if (p->socket >= 0 && b->socket != (unsigned)p->socket)
		return -ENODEV;
	if (p->inst >= 0 && s->dies > 1 && !s->amd) {
		/* box p->inst of the CPU's die: die-major instances */
		unsigned die = local / (cps / s->dies);

		b->inst = die * per_die(s, p) + (unsigned)p->inst;
		b->cpu = b->socket * cps + die * (cps / s->dies);
	} else if (p->inst >= 0) {
		b->inst = (unsigned)p->inst;
		b->cpu = b->socket * cps;
	} else if (p->core_scope) {
		b->inst = local % s->cores;
		b->cpu = b->socket * cps + b->inst;
	} else {
		g = cps / p->nbox;
		b->inst = local / g < p->nbox ? local / g : p->nbox - 1;
		b->cpu = b->socket * cps + b->inst * g;
	}
	return 0;
}

char *spmu_cpumask(const struct spmu_set *s, const struct spmu *p, char *buf,
		   size_t len)
{
	unsigned cps = s->cpus_per_socket, n = 0, total;
	unsigned *cpu;
	size_t o = 0;

	buf[0] = '\0';
	if (p->inst >= 0 && s->dies > 1 && !s->amd) {
		/* one CPU per die of every socket */
		for (unsigned sock = 0; sock < s->nsockets; sock++)
			for (unsigned d = 0; d < s->dies && o < len; d++)
				o += (size_t)snprintf(buf + o, len - o, "%s%u",
						      o ? "," : "",
						      sock * cps +
						      d * (cps / s->dies));
		return buf;
	}
	total = s->nsockets * (p->inst >= 0 ? 1 : p->nbox);
	cpu = calloc(total, sizeof(*cpu));
	if (!cpu)
		return buf;
	for (unsigned sock = 0; sock < s->nsockets; sock++) {
		if (p->socket >= 0 && sock != (unsigned)p->socket)
			continue;
		for (unsigned i = 0; i < (p->inst >= 0 ? 1 : p->nbox); i++) {
			struct spmu_box b;
			unsigned g = p->core_scope || p->inst >= 0 ? 1
				     : cps / p->nbox;

			spmu_box(s, p, sock * cps + i * g, &b);
			cpu[n++] = b.cpu;
		}
	}
	for (unsigned i = 0; i < n && o < len; ) {
		unsigned j = i;

		while (j + 1 < n && cpu[j + 1] == cpu[j] + 1)
			j++;
		o += (size_t)snprintf(buf + o, len - o, j > i ? "%s%u-%u"
				      : "%s%u", o ? "," : "", cpu[i], cpu[j]);
		i = j + 1;
	}
	free(cpu);
	return buf;
}

/* ---- decoding ---------------------------------------------------------- */

/* Every set bit of cfg lies in one of p's format fields. */
static int check_bits(const struct spmu *p, const uint64_t cfg[3], char *why,
		      size_t len)
{
	static const char *const word[3] = { "config", "config1", "config2" };

	for (unsigned w = 0; w < 3; w++) {
		uint64_t covered = 0;

		for (unsigned i = 0; i < p->nf; i++)
			if (p->f[i].cfg == w)
				covered |= p->f[i].mask;
		if (cfg[w] & ~covered)
			return fail(why, len, "%s=0x%" PRIx64 " sets bits 0x%"
				    PRIx64 " that no format field of %s has",
				    word[w], cfg[w], cfg[w] & ~covered,
				    p->name);
	}
	return 0;
}

/* The value of the field called name (NULL: dflt) in cfg, 0 if p has no
 * such field. */
static uint64_t named(const struct spmu *p, const char *name,
		      const char *dflt, const uint64_t cfg[3])
{
	const struct spmu_field *f = spmu_field(p, name ? name : dflt);

	return f ? spmu_field_get(f, cfg) : 0;
}

/* The box filter registers the config's filter fields program, in
 * wl_match's filter0 / filter1 (hw_sim.c "Filters"). */
static void decode_filters(const struct unit_type *u, const struct spmu *p,
			   const uint64_t cfg[3], struct spmu_event *e)
{
	uint64_t reg[PLAT_MAX_FILTERS] = { 0 };

	for (const struct perf_filter_map *m = u->perf->filters; m && m->field;
	     m++) {
		const struct reg_field *rf =
			reg_field(u->filters[m->filter].layout, m->field);
		uint64_t v = named(p, m->format, NULL, cfg);

		reg[m->filter] |= (v << rf->lo) & field_mask(rf);
	}
	for (unsigned f = 0; f < u->nfilters && f < PLAT_MAX_FILTERS; f++) {
		int dst;
		unsigned shift;
		uint64_t v = reg[f] & width_mask(u->filters[f].layout->bits);

		wl_filter_slot(u, f, &dst, &shift);
		if (dst == 0)
			e->filter0 |= v << shift;
		else if (dst == 1)
			e->filter1 |= v << shift;
	}
}

/* The programmable unit's event in cfg. */
static void decode_prog(const struct spmu_set *s, const struct spmu *p,
			const uint64_t cfg[3], struct spmu_event *e)
{
	const struct unit_type *u = unit_of(s, p->prog);
	const struct perf_unit *pu = u->perf;
	uint64_t ev = named(p, pu->f_event, "event", cfg);
	uint64_t thresh = named(p, pu->f_thresh, "thresh", cfg);
	const struct event *cat;

	e->role = SPMU_PROG;
	e->unit = p->prog;
	e->enc.code = (uint16_t)(ev & width_mask(u->fmt.ev_w));
	e->ext = u->ev_ext_bit && u->fmt.ev_w < 64 &&
		 ((ev >> u->fmt.ev_w) & 1);
	e->nomatch = (ev >> u->fmt.ev_w) > (u->ev_ext_bit ? 1u : 0u) ||
		     thresh > 0xff;
	e->enc.umask = named(p, pu->f_umask, "umask", cfg);
	if (pu->f_occ)	/* hsx/snbep PCU: umask bits 7:6 are occ_sel */
		e->enc.umask |= named(p, pu->f_occ, NULL, cfg) << 6;
	e->enc.edge = named(p, pu->f_edge, "edge", cfg) != 0;
	e->enc.inv = named(p, pu->f_inv, "inv", cfg) != 0;
	e->enc.thresh = (uint8_t)thresh;
	decode_filters(u, p, cfg, e);
	cat = plat_event_by_enc(s->plat, u->name, &e->enc);
	e->ctr_mask = cat && cat->ctr_mask ? cat->ctr_mask : 0;
}

int spmu_decode(const struct spmu_set *s, const struct spmu *p,
		const uint64_t cfg[3], struct spmu_event *e, char *why,
		size_t len)
{
	int r;

	memset(e, 0, sizeof(*e));
	if ((r = check_bits(p, cfg, why, len)) < 0)
		return r;
	if (p->fixed >= 0 && memcmp(cfg, p->fixed_cfg, sizeof(p->fixed_cfg))
	    == 0) {
		e->role = SPMU_FIXED;
		e->unit = p->fixed;
		return 0;
	}
	for (unsigned i = 0; i < p->nfr; i++) {
		if (memcmp(cfg, p->fr[i].cfg, sizeof(p->fr[i].cfg)) == 0) {
			e->role = SPMU_FREERUN;
			e->unit = p->fr[i].unit;
			e->fr_idx = p->fr[i].idx;
			return 0;
		}
	}
	if (p->prog < 0)
		return fail(why, len, "config=0x%" PRIx64 " selects none of %s's "
			    "counters (its events/ name them)", cfg[0],
			    p->name);
	decode_prog(s, p, cfg, e);
	return 0;
}

/* ---- the tree ----------------------------------------------------------- */

/* path = fmt...; false (and why) if it does not fit. */
__attribute__((format(printf, 4, 5)))
static bool mkpath(char *path, char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX) {
		fail(why, len, "path too long under the simulated sysfs");
		return false;
	}
	return true;
}

static int mkdir_at(const char *path, char *why, size_t len)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		int e = errno;

		fail(why, len, "cannot create %s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

/* Writes content to the new file path (read-only, as sysfs shows). */
static int put(const char *path, const char *content, char *why, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
		      O_NOFOLLOW, 0444);
	size_t n = strlen(content), done = 0;
	int e = 0;

	if (fd < 0) {
		e = errno;
		fail(why, len, "cannot create %s: %s", path, strerror(e));
		return -e;
	}
	while (done < n) {
		ssize_t w = write(fd, content + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			e = w < 0 ? errno : EIO;
			break;
		}
		done += (size_t)w;
	}
	if (close(fd) < 0 && !e)
		e = errno;
	if (e) {
		fail(why, len, "cannot write %s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

/* put() of dir/name. */
static int put_in(const char *dir, const char *name, const char *content,
		  char *why, size_t len)
{
	char path[PATH_MAX];

	if (!mkpath(path, why, len, "%s/%s", dir, name))
		return -ENAMETOOLONG;
	return put(path, content, why, len);
}

/* mkdir of dir/name; its path in out. */
static int mkdir_in(const char *dir, const char *name, char *out, char *why,
		    size_t len)
{
	if (!mkpath(out, why, len, "%s/%s", dir, name))
		return -ENAMETOOLONG;
	return mkdir_at(out, why, len);
}

/* events/NAME and its .scale / .unit files, their strings verbatim as the
 * kernel's tables hold them ("6.103515625e-5", never re-printed through a
 * double): no newline as uncore_event_show() prints them ("%s"), one as
 * perf_event_sysfs_show() does ("%s\n", the cstate PMUs). */
static int write_alias(const char *dir, const struct spmu_alias *a, char *why,
		       size_t len)
{
	const char *nl = a->nl ? "\n" : "";
	char name[PATH_MAX], text[256];
	int r;

	snprintf(text, sizeof(text), "%s%s", a->value, nl);
	if ((r = put_in(dir, a->name, text, why, len)) < 0)
		return r;
	if (a->scale) {
		snprintf(name, sizeof(name), "%s.scale", a->name);
		snprintf(text, sizeof(text), "%s%s", a->scale, nl);
		if ((r = put_in(dir, name, text, why, len)) < 0)
			return r;
	}
	if (a->unit) {
		snprintf(name, sizeof(name), "%s.unit", a->name);
		snprintf(text, sizeof(text), "%s%s", a->unit, nl);
		if ((r = put_in(dir, name, text, why, len)) < 0)
			return r;
	}
	return 0;
}

/* format/ and events/ of p under dir. */
static int write_facts(const struct spmu_set *s, const struct spmu *p,
		       const char *dir, char *why, size_t len)
{
	char sub[PATH_MAX], line[96];
	int r;

	if ((r = mkdir_in(dir, "format", sub, why, len)) < 0)
		return r;
	for (unsigned i = 0; i < p->nf; i++) {
		snprintf(line, sizeof(line), "%s\n", p->f[i].text);
		if ((r = put_in(sub, p->f[i].name, line, why, len)) < 0)
			return r;
	}
	if (p->na == 0)
		return 0;
	if ((r = mkdir_in(dir, "events", sub, why, len)) < 0)
		return r;
	for (unsigned i = 0; i < p->na; i++)
		if (!wl_perf_event_missing(s->wl, p->a[i].name) &&
		    (r = write_alias(sub, &p->a[i], why, len)) < 0)
			return r;
	return 0;
}

/* devices/NAME and its link under bus/event_source/devices. */
static int write_pmu(const struct spmu_set *s, const struct spmu *p,
		     const char *sysfs, char *why, size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX], text[1024];
	int r;

	if (!mkpath(path, why, len, "%s/devices", sysfs))
		return -ENAMETOOLONG;
	if ((r = mkdir_in(path, p->name, dir, why, len)) < 0)
		return r;
	snprintf(text, sizeof(text), "%u\n", p->type);
	if ((r = put_in(dir, "type", text, why, len)) < 0)
		return r;
	spmu_cpumask(s, p, text, sizeof(text) - 1);
	strcat(text, "\n");
	if ((r = put_in(dir, "cpumask", text, why, len)) < 0 ||
	    (r = put_in(dir, "perf_event_mux_interval_ms", "4\n", why,
			len)) < 0 ||
	    (r = write_facts(s, p, dir, why, len)) < 0)
		return r;
	/* a named discovery type's generic name (uncore.c alias_show():
	 * uncore_get_alias_name(), "uncore_type_<type>_<box id>"): the name
	 * its older facts give (perf_unit.older with .until) */
	if (p->facts && p->facts->older && p->facts->older->until) {
		const char *pat = p->facts->older->pmu, *pc = strchr(pat, '%');

		if (pc && pc[1] == 'u') {
			snprintf(text, sizeof(text), "%.*s%d%s\n",
				 (int)(pc - pat), pat, p->inst >= 0 ? p->inst : 0,
				 pc + 2);
			if ((r = put_in(dir, "alias", text, why, len)) < 0)
				return r;
		}
	}
	if (!mkpath(path, why, len, "%s/bus/event_source/devices/%s", sysfs,
		    p->name) ||
	    !mkpath(dir, why, len, "../../../devices/%s", p->name))
		return -ENAMETOOLONG;
	if (symlink(dir, path) < 0) {
		r = errno;
		fail(why, len, "cannot link %s: %s", path, strerror(r));
		return -r;
	}
	return 0;
}

/* One CPU's directory: online (not for cpu0) and topology. */
static int write_cpu(const struct spmu_set *s, const char *root, unsigned cpu,
		     char *why, size_t len)
{
	static const char *const name[3] = { "physical_package_id", "die_id",
					     "core_id" };
	unsigned cps = s->cpus_per_socket;
	unsigned val[3] = { cpu / cps, (cpu % cps) / (cps / s->dies),
			    (cpu % cps) % s->cores };
	char dir[PATH_MAX], topo[PATH_MAX], num[16];
	int r;

	snprintf(num, sizeof(num), "cpu%u", cpu);
	if ((r = mkdir_in(root, num, dir, why, len)) < 0)
		return r;
	if (cpu > 0 && (r = put_in(dir, "online", "1\n", why, len)) < 0)
		return r;
	if ((r = mkdir_in(dir, "topology", topo, why, len)) < 0)
		return r;
	for (unsigned i = 0; i < 3; i++) {
		snprintf(num, sizeof(num), "%u\n", val[i]);
		if ((r = put_in(topo, name[i], num, why, len)) < 0)
			return r;
	}
	return 0;
}

/* Creates sysfs/a, sysfs/a/b, ... for "a/b/...". */
static int mkdirs(const char *sysfs, const char *rel, char *why, size_t len)
{
	char path[PATH_MAX];
	const char *p = rel;
	int r;

	do {
		p = strchr(p + 1, '/');
		if (!mkpath(path, why, len, "%s/%.*s", sysfs,
			    (int)(p ? (size_t)(p - rel) : strlen(rel)), rel))
			return -ENAMETOOLONG;
		if ((r = mkdir_at(path, why, len)) < 0)
			return r;
	} while (p);
	return 0;
}

int spmu_write_tree(const struct spmu_set *s, const char *sysfs, char *why,
		    size_t len)
{
	unsigned ncpu = s->nsockets * s->cpus_per_socket;
	char root[PATH_MAX], text[32];
	int r;

	if ((r = mkdirs(sysfs, "bus/event_source/devices", why, len)) < 0 ||
	    (r = mkdirs(sysfs, "devices/system/cpu", why, len)) < 0)
		return r;
	for (unsigned i = 0; i < s->n; i++)
		if (s->p[i].present &&
		    (r = write_pmu(s, &s->p[i], sysfs, why, len)) < 0)
			return r;
	if (!mkpath(root, why, len, "%s/devices/system/cpu", sysfs))
		return -ENAMETOOLONG;
	if (ncpu > 1)
		snprintf(text, sizeof(text), "0-%u\n", ncpu - 1);
	else
		snprintf(text, sizeof(text), "0\n");
	if ((r = put_in(root, "online", text, why, len)) < 0)
		return r;
	for (unsigned c = 0; c < ncpu; c++)
		if ((r = write_cpu(s, root, c, why, len)) < 0)
			return r;
	return 0;
}

/* nftw() callback: removes one entry (children first: FTW_DEPTH). */
static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) < 0 ? -1 : 0;
	return unlink(path) < 0 ? -1 : 0;
}

int spmu_rmtree(const char *path)
{
	if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) < 0)
		return errno == ENOENT ? 0 : -errno;
	return 0;
}

/* nftw() has no argument for its callback: the owner chown_entry()
 * gives each entry to (set by spmu_chowntree(), on one thread at start-up). */
static uid_t chown_uid;
static gid_t chown_gid;

static int chown_entry(const char *path, const struct stat *st, int flag,
		       struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return lchown(path, chown_uid, chown_gid) < 0 ? -1 : 0;
}

int spmu_chowntree(const char *path, uid_t uid, gid_t gid)
{
	chown_uid = uid;
	chown_gid = gid;
	return nftw(path, chown_entry, 16, FTW_PHYS) < 0 ? -errno : 0;
}

int spmu_add(const struct spmu_set *s, const struct spmu *p,
	     const char *sysfs, char *why, size_t len)
{
	return write_pmu(s, p, sysfs, why, len);
}

int spmu_remove(const struct spmu *p, const char *sysfs)
{
	char path[PATH_MAX];
	int r;

	if (!mkpath(path, NULL, 0, "%s/bus/event_source/devices/%s", sysfs,
		    p->name))
		return -ENAMETOOLONG;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	if (!mkpath(path, NULL, 0, "%s/devices/%s", sysfs, p->name))
		return -ENAMETOOLONG;
	r = spmu_rmtree(path);
	return r;
}
