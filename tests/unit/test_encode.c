/*
 * test_encode.c - event encodings on skl: the exact control value of every
 * catalog event, placement of edge/inv/threshold, decoding, the refusals
 * of plat_encode(), and strict parsing of raw "unit:ev:umask" strings.
 * Expected values are computed by hand from Table 2-7 (EVT_SEL 7:0,
 * UMASK 15:8, E 18, OVF_EN 20, EN 22, INV 23, THR 28:24).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "plat/plat.h"
#include "plat/plat_skl.h"
#include "tests/tap.h"

#define SENTINEL 0x5A5A5A5A5A5A5A5Aull

static const struct unit_type *unit(const char *name)
{
	const struct unit_type *u = plat_unit(&plat_skl, name, NULL);

	if (!u) {
		printf("Bail out! no unit %s\n", name);
		exit(1);
	}
	return u;
}

/* Every programmable catalog event and its control value with EN. */
static const struct {
	const char *name;
	uint64_t ctl;
} want_ctl[] = {
	{ "UNC_CBO_XSNP_RESPONSE.MISS_XCORE", 0x404122 },
	{ "UNC_CBO_XSNP_RESPONSE.MISS_EVICTION", 0x408122 },
	{ "UNC_CBO_XSNP_RESPONSE.HIT_XCORE", 0x404422 },
	{ "UNC_CBO_XSNP_RESPONSE.HITM_XCORE", 0x404822 },
	{ "UNC_CBO_CACHE_LOOKUP.WRITE_M", 0x402134 },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_M", 0x408134 },
	{ "UNC_CBO_CACHE_LOOKUP.READ_I", 0x401834 },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_I", 0x408834 },
	{ "UNC_CBO_CACHE_LOOKUP.READ_MESI", 0x401F34 },
	{ "UNC_CBO_CACHE_LOOKUP.WRITE_MESI", 0x402F34 },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_MESI", 0x408F34 },
	{ "UNC_CBO_CACHE_LOOKUP.ANY_ES", 0x408634 },
	{ "UNC_CBO_CACHE_LOOKUP.READ_ES", 0x401634 },
	{ "UNC_CBO_CACHE_LOOKUP.WRITE_ES", 0x402634 },
	{ "UNC_ARB_TRK_OCCUPANCY.ALL", 0x400180 },
	{ "UNC_ARB_TRK_REQUESTS.ALL", 0x400181 },
	{ "UNC_ARB_TRK_REQUESTS.WRITES", 0x402081 },
	{ "UNC_ARB_COH_TRK_REQUESTS.ALL", 0x400184 },
	/* THR = 1 (bits 28:24): cycles with occupancy >= 1 */
	{ "UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST", 0x1400180 },
};

static void test_catalog_values(void)
{
	const size_t n = sizeof(want_ctl) / sizeof(want_ctl[0]);
	unsigned nprog = 0;
	size_t i;
	char why[256];

	for (i = 0; i < plat_skl.nevents; i++) {
		const struct event *ev = &plat_skl.events[i];
		const struct unit_type *u = unit(ev->unit);
		size_t k;

		if (u->kind != UNIT_PROG)
			continue;
		nprog++;
		for (k = 0; k < n; k++)
			if (strcmp(want_ctl[k].name, ev->name) == 0)
				break;
		ok(k < n, "%s has an expected value here", ev->name);
	}
	is_int(nprog, n, "19 programmable events in the catalog");

	for (i = 0; i < n; i++) {
		const struct event *ev = plat_event(&plat_skl, want_ctl[i].name);
		const struct unit_type *u;
		struct event_enc e, d;
		unsigned c;

		if (!ok(ev != NULL, "%s in catalog", want_ctl[i].name))
			continue;
		u = unit(ev->unit);
		e = event_enc_of(ev);
		for (c = 0; c < u->nctr; c++) {
			uint64_t ctl = SENTINEL;
			int r;

			if (!((ev->ctr_mask >> c) & 1))
				continue;
			r = plat_encode(u, &e, c, ev->ctr_mask, &ctl, why, sizeof(why));
			is_int(r, 0, "%s encodes on counter %u", ev->name, c);
			is_u64(ctl, want_ctl[i].ctl, "%s on counter %u", ev->name, c);
		}
		d = plat_decode(u, want_ctl[i].ctl);
		ok(d.code == e.code && d.umask == e.umask && d.thresh == e.thresh &&
		   d.edge == e.edge && d.inv == e.inv, "%s decodes back", ev->name);
	}
}

static void test_placement(void)
{
	const struct unit_type *cbo = unit("cbo"), *arb = unit("arb");
	struct event_enc e = { .code = 0x34, .umask = 0x8F };
	struct event_enc d;
	uint64_t ctl;
	unsigned code, umask, bad = 0, mism = 0;
	char why[256];

	e.edge = true;
	ctl = 0;
	is_int(plat_encode(cbo, &e, 0, 0xff, &ctl, why, sizeof(why)), 0, "edge");
	is_u64(ctl, 0x448F34, "E is bit 18");
	e.edge = false;
	e.inv = true;
	plat_encode(cbo, &e, 0, 0xff, &ctl, why, sizeof(why));
	is_u64(ctl, 0xC08F34, "INV is bit 23");
	e.inv = false;
	e.thresh = 1;
	plat_encode(cbo, &e, 1, 0xff, &ctl, why, sizeof(why));
	is_u64(ctl, 0x1408F34, "THR 1 at bit 24");
	e.thresh = 5;
	plat_encode(cbo, &e, 1, 0xff, &ctl, why, sizeof(why));
	is_u64(ctl, 0x5408F34, "THR 5 at bits 28:24");
	e = (struct event_enc){ .code = 0x34, .umask = 0x8F, .thresh = 31,
				.edge = true, .inv = true };
	is_int(plat_encode(arb, &e, 1, 0xff, &ctl, why, sizeof(why)), 0,
	       "everything at once");
	is_u64(ctl, 0x1FC48F34, "THR 31 | INV | EN | E | umask | event");
	d = plat_decode(arb, ctl);
	ok(d.code == 0x34 && d.umask == 0x8F && d.thresh == 31 && d.edge && d.inv,
	   "decode of 0x1FC48F34");
	d = plat_decode(cbo, 0xFFFFFFFFFFFFFFFFull);
	ok(d.code == 0xFF && d.umask == 0xFF && d.thresh == 31 && d.edge && d.inv,
	   "decode ignores reserved bits");
	d = plat_decode(unit("imc"), 0x1FC48F34);
	ok(d.code == 0 && d.umask == 0 && d.thresh == 0 && !d.edge && !d.inv,
	   "decode on a unit without fields gives zeros");

	/* every code/umask: only Table 2-7's writable bits, and it decodes */
	for (code = 0; code < 256; code++)
		for (umask = 0; umask < 256; umask++) {
			struct event_enc x = { .code = (uint8_t)code,
					       .umask = (uint8_t)umask,
					       .thresh = (uint8_t)((code + umask) & 31),
					       .edge = code & 1, .inv = umask & 1 };

			if (plat_encode(cbo, &x, umask & 1, 0x3, &ctl, why,
					sizeof(why)) != 0 ||
			    (ctl & ~0x1FD4FFFFull) != 0 || !(ctl & (1u << 22)))
				bad++;
			d = plat_decode(cbo, ctl);
			if (d.code != x.code || d.umask != x.umask ||
			    d.thresh != x.thresh || d.edge != x.edge || d.inv != x.inv)
				mism++;
		}
	is_int(bad, 0, "65536 encodings: EN set, nothing outside 0x1FD4FFFF");
	is_int(mism, 0, "65536 encodings decode back");
}

static void test_refusals(void)
{
	const struct unit_type *cbo = unit("cbo"), *arb = unit("arb"),
			       *imc = unit("imc"), *fx = unit("fixed");
	struct event_enc e = { .code = 0x34, .umask = 0x8F };
	const struct event *occ = plat_event(&plat_skl, "UNC_ARB_TRK_OCCUPANCY.ALL");
	uint64_t ctl = SENTINEL;
	char why[256];

	e.thresh = 32;
	ok(plat_encode(cbo, &e, 0, 0xff, &ctl, why, sizeof(why)) == -EINVAL,
	   "thresh 32 refused");
	like(why, "threshold", "message: threshold");
	e.thresh = 255;
	ok(plat_encode(cbo, &e, 0, 0xff, &ctl, why, sizeof(why)) == -EINVAL,
	   "thresh 255 refused");
	e.thresh = 0;
	is_u64(ctl, SENTINEL, "*ctl untouched on refusal");

	ok(plat_encode(cbo, &e, 2, 0xff, &ctl, why, sizeof(why)) == -EINVAL,
	   "counter 2 on cbo refused");
	like(why, "counters 0 to 1", "message names the range");
	ok(plat_encode(cbo, &e, 7, 0xff, &ctl, why, sizeof(why)) == -EINVAL,
	   "counter 7 on cbo refused");
	ok(plat_encode(cbo, &e, 1000, 0xff, &ctl, why, sizeof(why)) == -EINVAL,
	   "counter 1000 refused");
	ok(plat_encode(cbo, &e, 0, 0, &ctl, why, sizeof(why)) == -EINVAL,
	   "empty valid mask refused");

	{
		struct event_enc o = event_enc_of(occ);

		ok(plat_encode(arb, &o, 1, occ->ctr_mask, &ctl, why, sizeof(why))
		   == -EINVAL, "ARB occupancy on counter 1 refused");
		like(why, "counter 1", "message names the counter");
		ok(plat_encode(arb, &o, 1, 0xff, &ctl, why, sizeof(why)) == 0,
		   "same encoding with no catalog restriction is accepted");
		ok(plat_encode(arb, &o, 0, occ->ctr_mask, &ctl, why, sizeof(why))
		   == 0 && ctl == 0x400180, "ARB occupancy on counter 0: 0x400180");
	}
	ctl = SENTINEL;
	ok(plat_encode(imc, &e, 0, 0xff, &ctl, why, sizeof(why)) == -EINVAL,
	   "encode on imc refused");
	like(why, "imc", "message names the unit");
	ok(plat_encode(fx, &e, 0, 0xff, &ctl, why, sizeof(why)) == -EINVAL,
	   "encode on fixed refused");
	like(why, "fixed", "message names the unit");
	is_u64(ctl, SENTINEL, "*ctl untouched");
	ok(plat_encode(cbo, &e, 2, 0xff, &ctl, NULL, 0) == -EINVAL,
	   "why may be NULL");

	/* The last check bites on its own: a unit whose format puts a bit on
	 * a reserved position of Table 2-7 cannot set it. */
	{
		struct unit_type bent = *cbo;
		struct event_enc x = { .code = 0x34, .umask = 0x8F, .edge = true };

		bent.fmt.edge_bit = 19;		/* reserved in Table 2-7 */
		ok(plat_encode(&bent, &x, 0, 0xff, &ctl, why, sizeof(why)) == -EINVAL,
		   "a reserved bit (19) is never set");
		like(why, "0x80000", "message shows the offending bit");
		x.edge = false;
		ok(plat_encode(&bent, &x, 0, 0xff, &ctl, why, sizeof(why)) == 0 &&
		   ctl == 0x408F34, "without it the encoding passes");

		bent = *cbo;
		bent.fmt.thresh_w = 8;		/* would reach bits 31:29 */
		x.thresh = 0x20;
		ok(plat_encode(&bent, &x, 0, 0xff, &ctl, why, sizeof(why)) == -EINVAL,
		   "a wider threshold cannot reach reserved bit 29");
		bent.fmt.en_bit = 21;		/* reserved */
		x.thresh = 0;
		ok(plat_encode(&bent, &x, 0, 0xff, &ctl, why, sizeof(why)) == -EINVAL,
		   "enable on a reserved bit refused");
		bent = *cbo;
		bent.ctl_layout = NULL;
		ok(plat_encode(&bent, &x, 0, 0xff, &ctl, why, sizeof(why)) == -EINVAL,
		   "no layout to check against: refused");
		bent = *cbo;
		bent.fmt.inv_bit = 0xff;
		x.inv = true;
		ok(plat_encode(&bent, &x, 0, 0xff, &ctl, why, sizeof(why)) == -EINVAL,
		   "inv on a unit without an invert bit refused");
	}
}

static void test_parse_ok(void)
{
	const struct unit_type *u = NULL;
	struct event_enc e;
	char why[256] = "";
	const struct event *ev;

	is_int(plat_parse_raw(&plat_skl, "cbo:0x34:0x8f", &u, &e, why, sizeof(why)),
	       0, "cbo:0x34:0x8f");
	ok(u == unit("cbo") && e.code == 0x34 && e.umask == 0x8F &&
	   e.thresh == 0 && !e.edge && !e.inv, "fields");
	ev = plat_event_by_enc(&plat_skl, "cbo", &e);
	ok(ev && strcmp(ev->name, "UNC_CBO_CACHE_LOOKUP.ANY_MESI") == 0,
	   "is UNC_CBO_CACHE_LOOKUP.ANY_MESI");

	is_int(plat_parse_raw(&plat_skl, "arb:0x80:0x01:thresh=1", &u, &e, why,
			      sizeof(why)), 0, "arb:0x80:0x01:thresh=1");
	ev = plat_event_by_enc(&plat_skl, "arb", &e);
	ok(u == unit("arb") && ev &&
	   strcmp(ev->name, "UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST") == 0,
	   "is CYCLES_WITH_ANY_REQUEST");
	is_int(plat_parse_raw(&plat_skl, "arb:128:1", &u, &e, why, sizeof(why)),
	       0, "decimal arb:128:1");
	ev = plat_event_by_enc(&plat_skl, "arb", &e);
	ok(e.code == 0x80 && e.umask == 1 && ev &&
	   strcmp(ev->name, "UNC_ARB_TRK_OCCUPANCY.ALL") == 0,
	   "is UNC_ARB_TRK_OCCUPANCY.ALL");
	e.thresh = 2;
	ok(plat_event_by_enc(&plat_skl, "arb", &e) == NULL,
	   "thresh 2 is no catalog event");
	ok(plat_event_by_enc(&plat_skl, "nope", &e) == NULL, "unknown unit");
	e = (struct event_enc){ .code = 0x34, .umask = 0x8F };
	ok(plat_event_by_enc(&plat_skl, "arb", &e) == NULL,
	   "a CBo encoding is no ARB event");
	ok(plat_event_by_enc(&plat_skl, "imc", &e) == NULL,
	   "nothing found by encoding in imc");

	is_int(plat_parse_raw(&plat_skl, "cbo:0X22:0X48:edge:inv:thresh=0x1f", &u,
			      &e, why, sizeof(why)), 0, "all modifiers");
	ok(e.code == 0x22 && e.umask == 0x48 && e.thresh == 31 && e.edge && e.inv,
	   "0x22/0x48 thresh 31 edge inv");
	is_int(plat_parse_raw(&plat_skl, "cbo:0xff:255:thresh=31", &u, &e, why,
			      sizeof(why)), 0, "largest values");
	ok(e.code == 0xFF && e.umask == 0xFF && e.thresh == 31, "0xff/0xff/31");
	is_int(plat_parse_raw(&plat_skl, "cbo:0x0034:0x008f", &u, &e, why,
			      sizeof(why)), 0, "leading zeros");
	ok(e.code == 0x34 && e.umask == 0x8F, "0x0034 = 0x34");
}

static void test_parse_bad(void)
{
	static const struct { const char *s, *msg; } bad[] = {
		{ "", "expected" },
		{ "cbo", "expected" },
		{ "cbo:0x34", "expected" },
		{ "cbo:zz:1", "not a number" },
		{ "nope:0x1:0x1", "unknown unit" },
		{ "CBO:0x34:0x8f", "unknown unit" },
		{ "cbo:0x34:0x8f:bogus", "unknown modifier" },
		{ "cbo:0x34:0x8fzz", "not a number" },
		{ "cbo:0x34:0x8f ", "not a number" },
		{ " cbo:0x34:0x8f", "unknown unit" },
		{ "cbo:0x34:0x8f:", "unknown modifier" },
		{ "cbo::0x8f", "not a number" },
		{ "cbo:0x:0x8f", "not a number" },
		{ "cbo:-1:0x8f", "not a number" },
		{ "cbo:+52:0x8f", "not a number" },
		{ "cbo: 0x34:0x8f", "not a number" },
		{ "cbo:0x34:0x8f:thresh=", "not a number" },
		{ "cbo:0x34:0x8f:thresh=-1", "not a number" },
		{ "cbo:0x34:0x8f:thresh=1x", "not a number" },
		{ "cbo:99999999999999999999999:0x1", "not a number" },
		{ "cbo:0x100:0x1", "does not fit" },
		{ "cbo:256:0x1", "does not fit" },
		{ "cbo:0x34:0x100", "does not fit" },
		{ "cbo:0x34:0x8f:thresh=32", "does not fit" },
		{ "cbo:0x34:0x8f:thresh=0x20", "does not fit" },
		{ "cbo:0x34:0x8f:edge:edge", "twice" },
		{ "cbo:0x34:0x8f:inv:inv", "twice" },
		{ "cbo:0x34:0x8f:thresh=1:thresh=1", "twice" },
		{ "cbo:0x34:0x8f:EDGE", "unknown modifier" },
		{ "cbo:0x34:0x8f:edge=1", "unknown modifier" },
		{ "cbo:0x34:0x8f@2", "not a number" },
		{ "imc:0x1:0x1", "no event select" },
		{ "fixed:0x0:0x1", "no event select" },
		{ "imc:DRAM_DATA_READS", "expected" },
		{ "cbo:0x34:0x8f:edge:inv:thresh=1:edge:inv:x", "too many" },
	};
	const struct unit_type *u = (const void *)&bad;
	struct event_enc e = { .code = 0x11, .umask = 0x22, .thresh = 3 };
	char why[256], longs[300], small[16];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		ok(plat_parse_raw(&plat_skl, bad[i].s, &u, &e, why, sizeof(why))
		   == -EINVAL, "\"%s\" rejected", bad[i].s);
		like(why, bad[i].msg, "  with a message about it");
	}
	ok(u == (const void *)&bad && e.code == 0x11 && e.umask == 0x22 &&
	   e.thresh == 3, "outputs untouched on failure");

	memset(longs, 'a', sizeof(longs) - 1);
	longs[sizeof(longs) - 1] = '\0';
	ok(plat_parse_raw(&plat_skl, longs, &u, &e, why, sizeof(why)) == -EINVAL,
	   "300-character string rejected");
	like(why, "longer", "message: too long");

	ok(plat_parse_raw(&plat_skl, "nope:1:1", &u, &e, NULL, 0) == -EINVAL,
	   "why may be NULL");
	ok(plat_parse_raw(&plat_skl, "nope:1:1", &u, &e, small, sizeof(small))
	   == -EINVAL && strlen(small) == sizeof(small) - 1,
	   "a short why buffer is truncated and terminated");

	ok(plat_parse_raw(&plat_skl, "nope:0x1:0x1", &u, &e, why, sizeof(why)) < 0,
	   "unknown unit once more");
	like(why, "cbo, arb", "message lists the programmable units");
}

int main(void)
{
	test_catalog_values();
	test_placement();
	test_refusals();
	test_parse_ok();
	test_parse_bad();
	return tap_done();
}
