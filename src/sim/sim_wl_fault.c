/*
 * sim_wl_fault.c - the "faults" of a workload file (doc/design.md section 3,
 * "Workload file"; sim_workload.h, struct wl_fault): each fault's kind,
 * time, target (a register, a PCI function, a named free-running counter,
 * or a kernel PMU of the simulated kernel) and numbers, checked against
 * the platform, with the parse's JSON path in every message.
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_wl_parse.h"
#include "plat/plat_mod.h"
#include "plat/plat_sim.h"

/* ---- faults ---------------------------------------------------------- */

static const char *const fault_kinds[] = {
	[WL_FAULT_EIO] = "eio",
	[WL_FAULT_FOREIGN_WRITE] = "foreign_write",
	[WL_FAULT_DEVICE_MISSING] = "device_missing",
	[WL_FAULT_STUCK] = "stuck",
	[WL_FAULT_DELAY] = "delay",
	[WL_FAULT_PERF_CONTENTION] = "perf_contention",
	[WL_FAULT_PMU_GONE] = "pmu_gone",
	[WL_FAULT_PERF_READ_ERROR] = "perf_read_error",
	[WL_FAULT_SHORT_READ] = "short_read",
	[WL_FAULT_PERF_READ_DELAY] = "perf_read_delay",
};

static const char *target_forms(enum wl_fault_kind k)
{
	switch (k) {
	case WL_FAULT_DEVICE_MISSING:
		return "[sN/]pci:BB:DD.F";
	case WL_FAULT_STUCK:
		return "[sN/]msr:0xADDR, [sN/]pci:BB:DD.F+0xOFF, mmio:0xADDR "
		       "or [sN/]unit:COUNTER";
	case WL_FAULT_PERF_CONTENTION:
	case WL_FAULT_PMU_GONE:
	case WL_FAULT_PERF_READ_ERROR:
	case WL_FAULT_SHORT_READ:
	case WL_FAULT_PERF_READ_DELAY:
		return "a kernel PMU name as sysfs lists it, or a glob such "
		       "as \"uncore_*\"";
	default:
		return "[sN/]msr:0xADDR, [sN/]pci:BB:DD.F+0xOFF or mmio:0xADDR";
	}
}

/* "BB:DD.F" (lspci style, hex) with an optional "+0xOFF". */
static int parse_pci(struct pctx *c, const char *s, struct wl_fault *f)
{
	const char *colon = strchr(s, ':'), *dot = colon ? strchr(colon, '.')
						       : NULL;
	const char *plus = dot ? strchr(dot, '+') : NULL;
	const char *end = plus ? plus : s + strlen(s);
	unsigned bus, dev, fn;
	uint64_t off = 0;

	if (!colon || !dot ||
	    wlp_parse_xdigits(s, (size_t)(colon - s), 2, &bus) < 0 ||
	    wlp_parse_xdigits(colon + 1, (size_t)(dot - colon - 1), 2, &dev) < 0 ||
	    wlp_parse_xdigits(dot + 1, (size_t)(end - dot - 1), 1, &fn) < 0)
		return wlp_fail(c, "bad PCI address \"pci:%s\" (expected pci:BB:DD.F "
			    "in hex, e.g. pci:ff:10.1%s)", s,
			    f->kind == WL_FAULT_DEVICE_MISSING ? ""
				: ", with +0xOFF for a register");
	if (dev > 0x1f || fn > 7)
		return wlp_fail(c, "bad PCI address \"pci:%s\": device is 00..1f "
			    "and function 0..7", s);
	if (f->kind == WL_FAULT_DEVICE_MISSING) {
		if (plus)
			return wlp_fail(c, "device_missing takes a PCI function "
				    "pci:BB:DD.F, without +0xOFF");
	} else {
		int r;

		if (!plus)
			return wlp_fail(c, "kind %s needs a register: "
				    "pci:BB:DD.F+0xOFF", fault_kinds[f->kind]);
		r = wlp_parse_hex(plus + 1, 0xffc, &off);
		if (r == -1)
			return wlp_fail(c, "bad PCI register offset \"%s\" (expected "
				    "+0x followed by hex digits)", plus + 1);
		if (r == -2 || off % 4)
			return wlp_fail(c, "PCI register offset %s out of range (a "
				    "4-byte register: 0x0..0xffc, a multiple "
				    "of 4)", plus + 1);
	}
	f->target = hw_pci(0, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn,
			   (uint16_t)off, 4);
	return 0;
}

static int parse_target(struct pctx *c, const char *text, struct wl_fault *f)
{
	const char *s = text;
	uint64_t v;
	int r;

	snprintf(f->text, sizeof(f->text), "%s", text);
	if (strlen(text) > WL_MAX_KEYLEN)
		return wlp_fail(c, "target too long (at most %d characters)",
			    WL_MAX_KEYLEN);
	if (wlp_parse_socket_prefix(c, &s, &f->socket) < 0)
		return -EINVAL;

	if (strncmp(s, "msr:", 4) == 0) {
		if (f->kind == WL_FAULT_DEVICE_MISSING)
			return wlp_fail(c, "device_missing takes a PCI function "
				    "(%s), not an MSR", target_forms(f->kind));
		r = wlp_parse_hex(s + 4, UINT32_MAX, &v);
		if (r < 0)
			return wlp_fail(c, "bad MSR address \"%s\" (expected "
				    "msr:0xADDR, 0x0..0xffffffff)", s + 4);
		f->target = hw_msr(0, (uint32_t)v);
		return 0;
	}
	if (strncmp(s, "pci:", 4) == 0)
		return parse_pci(c, s + 4, f);
	if (strncmp(s, "mmio:", 5) == 0) {
		if (f->socket >= 0)
			return wlp_fail(c, "an mmio address is physical: no socket "
				    "prefix (write mmio:0xADDR)");
		if (f->kind == WL_FAULT_DEVICE_MISSING)
			return wlp_fail(c, "device_missing takes a PCI function "
				    "(%s), not an MMIO address",
				    target_forms(f->kind));
		r = wlp_parse_hex(s + 5, UINT64_MAX, &v);
		if (r < 0 || v % 4)
			return wlp_fail(c, "bad MMIO address \"%s\" (expected "
				    "mmio:0xADDR, a multiple of 4)", s + 5);
		f->target = hw_mmio(v, 4);
		return 0;
	}
	if (f->kind == WL_FAULT_STUCK && strchr(s, ':')) {
		const char *colon = strchr(s, ':');
		const struct unit_type *u;
		char uname[64], list[256];
		int ui;

		snprintf(uname, sizeof(uname), "%.*s", (int)(colon - s), s);
		u = plat_unit(c->plat, uname, &ui);
		if (!u) {
			wlp_unit_list(c->plat, list, sizeof(list));
			return wlp_fail(c, "bad target \"%s\": \"%s\" is neither "
				    "msr, pci, mmio nor a unit (%s units: %s)",
				    text, uname, c->plat->id, list);
		}
		for (unsigned i = 0; i < u->nfreerun; i++) {
			if (strcmp(u->freerun[i].name, colon + 1) == 0) {
				f->target = (struct hw_addr){ .space = u->space };
				f->target_is_freerun = true;
				f->freerun_unit = ui;
				f->freerun_idx = i;
				return 0;
			}
		}
		if (u->nfreerun == 0)
			return wlp_fail(c, "%s has no free-running counters; stop a "
				    "programmable counter by its register "
				    "(msr:0xADDR)", u->name);
		wlp_freerun_list(u, list, sizeof(list));
		return wlp_fail(c, "unknown free-running counter \"%s\" of %s "
			    "(accepted: %s)", colon + 1, u->name, list);
	}
	return wlp_fail(c, "bad target \"%s\" (kind %s accepts %s)", text,
		    fault_kinds[f->kind], target_forms(f->kind));
}

/*
 * The members a fault object may have, and the kinds that take each
 * (bit k = enum wl_fault_kind k): "at", "kind" and "target" every kind,
 * the others as below; a member marked required must be there for the
 * kinds that take it.
 */
#define FK(k) (1u << (k))
#define FK_PERF (FK(WL_FAULT_PERF_CONTENTION) | FK(WL_FAULT_PMU_GONE) | \
		 FK(WL_FAULT_PERF_READ_ERROR) | FK(WL_FAULT_SHORT_READ) | \
		 FK(WL_FAULT_PERF_READ_DELAY))
enum fault_member { FM_AT, FM_KIND, FM_TARGET, FM_COUNT, FM_VALUE,
		    FM_RUNNING, FM_SECONDS, FM_ERRNO, FM_N };
static const struct {
	const char *name;
	unsigned kinds, required;
	const char *help;	/* for the list of accepted members */
} fault_members[FM_N] = {
	[FM_AT] = { "at", ~0u, ~0u, NULL },
	[FM_KIND] = { "kind", ~0u, ~0u, NULL },
	[FM_TARGET] = { "target", ~0u, ~0u, NULL },
	[FM_COUNT] = { "count", FK(WL_FAULT_EIO) | FK(WL_FAULT_DELAY) |
		       FK(WL_FAULT_PERF_READ_ERROR) | FK(WL_FAULT_SHORT_READ) |
		       FK(WL_FAULT_PERF_READ_DELAY), 0,
		       "eio, delay, perf_read_error, short_read, "
		       "perf_read_delay" },
	[FM_VALUE] = { "value", FK(WL_FAULT_FOREIGN_WRITE),
		       FK(WL_FAULT_FOREIGN_WRITE), "foreign_write" },
	[FM_RUNNING] = { "running", FK(WL_FAULT_PERF_CONTENTION),
			 FK(WL_FAULT_PERF_CONTENTION), "perf_contention" },
	[FM_SECONDS] = { "seconds", FK(WL_FAULT_PERF_CONTENTION) |
			 FK(WL_FAULT_PMU_GONE) | FK(WL_FAULT_DELAY) |
			 FK(WL_FAULT_PERF_READ_DELAY),
			 FK(WL_FAULT_DELAY) | FK(WL_FAULT_PERF_READ_DELAY),
			 "perf_contention, pmu_gone, delay, perf_read_delay" },
	[FM_ERRNO] = { "errno", FK(WL_FAULT_PERF_READ_ERROR),
		       FK(WL_FAULT_PERF_READ_ERROR), "perf_read_error" },
};

/* What a missing required member should be, for the message. */
static const char *member_want(enum fault_member m)
{
	switch (m) {
	case FM_VALUE:
		return "the value the other agent writes: a hex string "
		       "\"0x...\" or an integer >= 0";
	case FM_RUNNING:
		return "the fraction of the time the target's events still "
		       "run, 0 <= running < 1";
	case FM_ERRNO:
		return "the error reads fail with: \"EIO\", \"EINTR\" or "
		       "\"ENOSPC\"";
	case FM_SECONDS:
		return "how much later each delayed access returns, > 0 and "
		       "<= 10";
	default:
		return "";
	}
}

/* "eio, foreign_write, ..." */
static void kind_list(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < ARRAY_SIZE(fault_kinds) && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? ", " : "",
				      fault_kinds[k]);
}

/* Sorts a fault object's members into m[]; unknown ones are errors. */
static int fault_collect(struct pctx *c, json_object *o, json_object **m)
{
	char list[320];
	size_t n = 0;

	json_object_object_foreach(o, key, val) {
		unsigned i;

		for (i = 0; i < FM_N; i++)
			if (strcmp(key, fault_members[i].name) == 0)
				break;
		if (i < FM_N) {
			m[i] = val;
			continue;
		}
		wlp_path_key(c, key);
		for (i = 0; i < FM_N && n < sizeof(list); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n,
					      "%s%s%s%s%s", i ? ", " : "",
					      fault_members[i].name,
					      fault_members[i].help ? " (" : "",
					      fault_members[i].help
					      ? fault_members[i].help : "",
					      fault_members[i].help ? ")" : "");
		return wlp_fail(c, "unknown key (a fault accepts: %s)", list);
	}
	return 0;
}

/* The "kind" member: one of fault_kinds[]. */
static int fault_kind(struct pctx *c, json_object *kind,
		      enum wl_fault_kind *out)
{
	char list[256];
	size_t old;
	unsigned k;

	kind_list(list, sizeof(list));
	if (!kind)
		return wlp_fail(c, "missing \"kind\" (%s)", list);
	old = wlp_path_key(c, "kind");
	if (!json_object_is_type(kind, json_type_string))
		return wlp_fail(c, "must be a string (%s), not %s", list,
			    wlp_type_name(kind));
	for (k = 0; k < ARRAY_SIZE(fault_kinds); k++)
		if (strcmp(fault_kinds[k], json_object_get_string(kind)) == 0)
			break;
	if (k == ARRAY_SIZE(fault_kinds))
		return wlp_fail(c, "unknown fault kind \"%s\" (accepted: %s)",
			    json_object_get_string(kind), list);
	wlp_path_pop(c, old);
	*out = (enum wl_fault_kind)k;
	return 0;
}

/* Every member the kind takes, and only those. */
static int fault_check_members(struct pctx *c, json_object **m,
			       const struct wl_fault *f)
{
	unsigned bit = FK(f->kind);

	for (unsigned i = FM_COUNT; i < FM_N; i++) {
		if (m[i] && !(fault_members[i].kinds & bit)) {
			wlp_path_key(c, fault_members[i].name);
			return wlp_fail(c, "not allowed for kind \"%s\" (only %s "
				    "take%s a %s)", fault_kinds[f->kind],
				    fault_members[i].help,
				    strchr(fault_members[i].help, ',') ? "" : "s",
				    fault_members[i].name);
		}
		if (!m[i] && (fault_members[i].required & bit))
			return wlp_fail(c, "missing \"%s\" (%s)",
				    fault_members[i].name, member_want(i));
	}
	if (!m[FM_AT])
		return wlp_fail(c, "missing \"at\" (seconds since the simulation "
			    "started, >= 0)");
	if (!m[FM_TARGET])
		return wlp_fail(c, "missing \"target\" (for %s: %s)",
			    fault_kinds[f->kind], target_forms(f->kind));
	return 0;
}

/* The perf faults' own members (running, seconds, errno) and the delay
 * fault's seconds. */
static int parse_perf_fault(struct pctx *c, json_object **m,
			    struct wl_fault *f)
{
	static const struct { const char *name; int err; } errs[] = {
		{ "EIO", EIO }, { "EINTR", EINTR }, { "ENOSPC", ENOSPC },
	};
	size_t old;
	int r;

	if (m[FM_RUNNING]) {
		old = wlp_path_key(c, "running");
		r = wlp_get_number(c, m[FM_RUNNING], 0, false, 0.999999,
			       "the fraction of the time the events run, "
			       "below 1", &f->running);
		if (r < 0)
			return r;
		wlp_path_pop(c, old);
	}
	if (m[FM_SECONDS] && (f->kind == WL_FAULT_DELAY ||
			      f->kind == WL_FAULT_PERF_READ_DELAY)) {
		old = wlp_path_key(c, "seconds");
		r = wlp_get_number(c, m[FM_SECONDS], 0, true, WL_MAX_DELAY,
			       "seconds each access is delayed", &f->delay_s);
		if (r < 0)
			return r;
		wlp_path_pop(c, old);
	} else if (m[FM_SECONDS]) {
		old = wlp_path_key(c, "seconds");
		r = wlp_get_number(c, m[FM_SECONDS], 0, true, WL_MAX_AT,
			       f->kind == WL_FAULT_PMU_GONE
			       ? "how long the PMU stays gone"
			       : "how long the contention lasts", &f->seconds);
		if (r < 0)
			return r;
		wlp_path_pop(c, old);
	}
	if (m[FM_ERRNO]) {
		const char *e = json_object_is_type(m[FM_ERRNO],
						    json_type_string)
				? json_object_get_string(m[FM_ERRNO]) : NULL;

		old = wlp_path_key(c, "errno");
		for (size_t i = 0; e && i < ARRAY_SIZE(errs); i++)
			if (strcmp(e, errs[i].name) == 0)
				f->err = errs[i].err;
		if (!f->err)
			return wlp_fail(c, "must be \"EIO\", \"EINTR\" or \"ENOSPC\" "
				    "(what the kernel's read(2) of a perf event "
				    "can fail with), not %s",
				    e ? e : wlp_type_name(m[FM_ERRNO]));
		wlp_path_pop(c, old);
	}
	return 0;
}

/* "count" and "value": the register faults' numbers (and count for
 * the perf read faults). */
static int parse_fault_numbers(struct pctx *c, json_object **m,
			       struct wl_fault *f)
{
	size_t old;
	int r;

	f->count = 1;
	if (m[FM_COUNT]) {
		uint64_t v;

		old = wlp_path_key(c, "count");
		r = wlp_get_uint(c, m[FM_COUNT], 1, WL_MAX_COUNT,
			     f->kind == WL_FAULT_PERF_READ_DELAY ? "reads delayed"
			     : wl_fault_is_perf(f->kind) ? "reads that fail"
			     : f->kind == WL_FAULT_DELAY ? "accesses delayed"
			     : "accesses that fail", &v);
		if (r < 0)
			return r;
		f->count = (unsigned)v;
		wlp_path_pop(c, old);
	}
	if (m[FM_VALUE]) {
		uint64_t max = f->target.width >= 8 ? UINT64_MAX
						    : width_mask(8u * f->target.width);

		old = wlp_path_key(c, "value");
		r = wlp_get_value(c, m[FM_VALUE], max, f->target.width >= 8
			      ? "a 64-bit register" : "a 32-bit register",
			      &f->value);
		if (r < 0)
			return r;
		wlp_path_pop(c, old);
	}
	return 0;
}

static int parse_fault(struct pctx *c, json_object *o, struct wl_fault *f)
{
	json_object *m[FM_N] = { NULL };
	const char *t;
	size_t old;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return wlp_fail(c, "a fault must be an object {\"at\": s, \"kind\": "
			    "..., \"target\": ...}, not %s", wlp_type_name(o));
	if ((r = fault_collect(c, o, m)) < 0 ||
	    (r = fault_kind(c, m[FM_KIND], &f->kind)) < 0 ||
	    (r = fault_check_members(c, m, f)) < 0)
		return r;

	old = wlp_path_key(c, "at");
	r = wlp_get_number(c, m[FM_AT], 0, false, WL_MAX_AT,
		       "seconds since the simulation started", &f->at);
	if (r < 0)
		return r;
	wlp_path_pop(c, old);

	old = wlp_path_key(c, "target");
	if (!json_object_is_type(m[FM_TARGET], json_type_string))
		return wlp_fail(c, "must be a string (for %s: %s), not %s",
			    fault_kinds[f->kind], target_forms(f->kind),
			    wlp_type_name(m[FM_TARGET]));
	t = json_object_get_string(m[FM_TARGET]);
	if (wl_fault_is_perf(f->kind)) {
		f->socket = -1;
		r = c->pmu_pattern(c, t, f->text, sizeof(f->text));
	} else {
		r = parse_target(c, t, f);
	}
	if (r < 0)
		return r;
	wlp_path_pop(c, old);
	if ((r = parse_fault_numbers(c, m, f)) < 0)
		return r;
	return parse_perf_fault(c, m, f);
}

int wlp_parse_faults(struct pctx *c, json_object *o)
{
	struct workload *w = c->w;
	size_t n;

	if (!json_object_is_type(o, json_type_array))
		return wlp_fail(c, "must be an array of faults, not %s",
			    wlp_type_name(o));
	n = json_object_array_length(o);
	if (n > WL_MAX_FAULTS)
		return wlp_fail(c, "%zu faults: at most %d", n, WL_MAX_FAULTS);
	if (n == 0)
		return 0;
	w->faults = calloc(n, sizeof(*w->faults));
	if (!w->faults)
		return wlp_fail_nomem(c);
	for (size_t i = 0; i < n; i++) {
		size_t old = wlp_path_idx(c, i);
		int r = parse_fault(c, json_object_array_get_idx(o, i),
				    &w->faults[i]);

		if (r < 0)
			return r;
		w->nfaults++;
		wlp_path_pop(c, old);
	}
	/* Stable insertion sort by time: faults at the same time keep the
	 * order they were written in. */
	for (unsigned i = 1; i < w->nfaults; i++) {
		struct wl_fault f = w->faults[i];
		unsigned j = i;

		for (; j > 0 && w->faults[j - 1].at > f.at; j--)
			w->faults[j] = w->faults[j - 1];
		w->faults[j] = f;
	}
	return 0;
}
