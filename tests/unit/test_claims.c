/*
 * test_claims.c - the claims table against the simulator, through the
 * functions the HTTP handlers call: what a client may not send (box
 * filter values with reserved bits, labels and names that are not
 * printable UTF-8, malformed modifiers, empty modifiers, trailing bytes,
 * duplicate keys, numbers past 64 bits), the limits counting live
 * claims only, claim ids: never the same in two lifetimes of the table,
 * and another uid's claim answered as one that does not exist, and
 * pinned claims that never starve shared ones: a shared claim that
 * cannot fit beside the pins is refused naming them, a pin that would
 * leave an admitted claim no counters is refused, and a pin holds its
 * counters for at most max_pinned_s (on a manual clock).  Each claimed
 * event answers the derived family it feeds as it is and its scale,
 * from the platform's own table, or none.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "serve/api_claims.h"
#include "sim/hw_sim.h"
#include "base/log.h"
#include "tests/tap.h"

struct rig {
	struct hw hw;
	struct topology topo;
	struct pmu pmu;
	struct claims *c;
};

static struct clock_manual fake;

static void rig_open_cfg(struct rig *r, const char *plat,
			 const struct claims_cfg *cfg)
{
	struct hw_opts o = { .sim_platform = plat };

	memset(r, 0, sizeof(*r));
	if (hw_open(&r->hw, &hw_sim_ops, &o) < 0) {
		printf("Bail out! %s\n", hw_last_error());
		exit(1);
	}
	r->topo.plat = hw_sim_platform(&r->hw);
	if (plat_discover(r->topo.plat, &r->hw, &r->topo,
			  &(struct hw_cpu_map){ .cpus_per_package =
						  SIM_CPUS_PER_SOCKET }) < 0) {
		printf("Bail out! discover: %s\n", hw_last_error());
		exit(1);
	}
	if (pmu_init(&r->pmu, &r->hw, &r->topo) < 0) {
		printf("Bail out! pmu_init: %s\n", hw_last_error());
		exit(1);
	}
	r->c = claims_new(&r->pmu, cfg);
	claims_set_clock(r->c, &fake.src);
}

static void rig_open_iv(struct rig *r, const char *plat, unsigned max_total,
			unsigned interval_ms)
{
	struct claims_cfg cfg = { .max_per_uid = max_total,
				  .max_total = max_total, .default_ttl_s = 60,
				  .max_ttl_s = 3600, .interval_ms = interval_ms };

	rig_open_cfg(r, plat, &cfg);
}

static void rig_open(struct rig *r, const char *plat, unsigned max_total)
{
	rig_open_iv(r, plat, max_total, 1000);
}

static void rig_close(struct rig *r)
{
	claims_free(r->c);
	pmu_free(&r->pmu);
	hw_close(&r->hw);
}

/* POSTs body (len bytes: it may hold a NUL); returns the status and
 * leaves the error message in msg and the claim id in id. */
static int post_uid(struct rig *r, uid_t uid, const char *body, size_t len,
		    char *msg, char *id)
{
	struct claims_reply rep = { 0 };
	struct json_object *v;

	api_claims_create(r->c, uid, 1, body, len, &rep);
	snprintf(msg, 512, "%s", rep.msg);
	if (id)
		id[0] = '\0';
	if (rep.body) {
		if (id && json_object_object_get_ex(rep.body, "id", &v))
			snprintf(id, CLAIM_ID_MAX, "%s", json_object_get_string(v));
		json_object_put(rep.body);
	}
	return rep.status;
}

static int post(struct rig *r, const char *body, size_t len, char *msg,
		char *id)
{
	return post_uid(r, 1000, body, len, msg, id);
}

static int post_s(struct rig *r, const char *body, char *msg)
{
	return post(r, body, strlen(body), msg, NULL);
}

static void release(struct rig *r, const char *id)
{
	struct claims_reply rep = { 0 };

	api_claims_release(r->c, id, 1000, &rep);
	json_object_put(rep.body);
}

static void test_filters(void)
{
	struct rig r;
	char msg[512], body[512];
	static const struct {
		const char *mod, *field;
	} bad[] = {
		/* Table 2-18: tid 5:0, state 23:17, the rest reserved */
		{ "UNC_C_LLC_LOOKUP.ANY:filter0=0xffffffffffffffff", "rsv 16:6" },
		{ "UNC_C_LLC_LOOKUP.ANY:filter0=0x40", "rsv 16:6" },
		{ "UNC_C_LLC_LOOKUP.ANY:filter0=0x100000000", "bits 32:32 (past" },
		/* Table 2-19: nid 15:0, opc 28:20, nc 30, isoc 31 */
		{ "UNC_C_LLC_LOOKUP.ANY:filter1=0x20000000", "rsv 29:29" },
		/* Table 2-67: ADDRMATCH0 bits 5:0 ignored */
		{ "UNC_H_ADDR_OPC_MATCH.ADDR:filter0=0x1", "ig 5:0" },
		/* Table 2-66: ADDRMATCH1 hi_addr 13:0 */
		{ "UNC_H_ADDR_OPC_MATCH.ADDR:filter1=0xffffffff", "ig 31:14" },
		/* Table 2-173: MATCH0 2:0 and 30:18 reserved */
		{ "UNC_Q_CTO_COUNT:filter0=0x4", "rsv 2:0" },
		{ "UNC_Q_CTO_COUNT:filter1=0x10", "rsv 15:4" },
		/* Table 2-160: a 32-bit register of four bands */
		{ "UNC_P_FREQ_BAND0_CYCLES:filter0=0x1ff00000000",
		  "bits 40:32 (past" },
	};
	static const char *const good[] = {
		"UNC_C_LLC_LOOKUP.ANY:filter0=0xfe003f",
		"UNC_C_LLC_LOOKUP.ANY:filter1=0xdff0ffff",
		"UNC_H_ADDR_OPC_MATCH.ADDR:filter0=0xffffffc0:filter1=0x3fff",
		"UNC_Q_CTO_COUNT:filter0=0x8003fff8:filter1=0xf000f",
		"UNC_P_FREQ_BAND0_CYCLES:filter0=0xffffffff",
	};

	log_set_level(LOG_LVL_WARN);
	rig_open(&r, "hsx", 64);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(body, sizeof(body), "{\"events\":[\"%s\"]}", bad[i].mod);
		is_int(post_s(&r, body, msg), 400, "refused: %s", bad[i].mod);
		like(msg, bad[i].field, "names the field");
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char id[CLAIM_ID_MAX];

		snprintf(body, sizeof(body), "{\"events\":[\"%s\"]}", good[i]);
		is_int(post(&r, body, strlen(body), msg, id), 201,
		       "accepted: %s", good[i]);
		release(&r, id);
	}
	rig_close(&r);
}

static void test_text(void)
{
	struct rig r;
	char msg[512];
	static const struct {
		const char *body;
		size_t len;		/* 0: strlen */
		const char *why;
	} bad[] = {
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],\"label\":\"ok\xff\xfe\"}",
		  0, "UTF-8" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],\"label\":\"a\\u009bb\"}",
		  0, "U+009B" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],\"label\":\"a\xc2\x85\"}",
		  0, "U+0085" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],\"label\":\"x\\u202ey\"}",
		  0, "bidirectional" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],\"label\":\"\\u2066\"}",
		  0, "U+2066" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],\"label\":\"a\\u0000b\"}",
		  0, "NUL at byte 1" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],\"label\":\"a\\u001bb\"}",
		  0, "control character 0x1b" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],\"label\":\"\xed\xa0\x80\"}",
		  0, "UTF-8" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],\"label\":\"\xc0\xaf\"}",
		  0, "UTF-8" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\\u0000junk\"]}",
		  0, "events[0] contains a NUL at byte 26" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\xff\"]}", 0, "UTF-8" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I:split=1/2junk\"]}",
		  0, "bad split" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I:split= 1/2\"]}",
		  0, "bad split" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I:split=+1/2\"]}",
		  0, "bad split" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],\"l\xff\":1}",
		  0, "" },
		/* issue 39 finding 12: json-c makes a lone surrogate U+FFFD */
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],\"label\":\"\\ud800\"}",
		  0, "label contains a lone UTF-16 surrogate \\ud800" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],\"label\":\"a\\uDC00b\"}",
		  0, "label contains a lone UTF-16 surrogate \\udc00" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],\"label\":\"\\ud83d\\u0041\"}",
		  0, "label contains a lone UTF-16 surrogate \\ud83d" },
		{ "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\\udbff\"]}",
		  0, "events contains a lone UTF-16 surrogate" },
	};
	char id[CLAIM_ID_MAX];
	const char *ok_label = "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I:split=1/2\"],"
			       "\"label\":\"profiler \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}";

	log_set_level(LOG_LVL_WARN);
	rig_open(&r, "skl", 64);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = bad[i].len ? bad[i].len : strlen(bad[i].body);

		is_int(post(&r, bad[i].body, len, msg, NULL), 400,
		       "refused (%zu): %s", i, bad[i].why);
		/* json-c says "utf-8", the daemon "UTF-8" */
		ok(strcasestr(msg, bad[i].why), "says why: %s", msg);
	}
	is_int(post(&r, ok_label, strlen(ok_label), msg, id), 201,
	       "printable UTF-8 label and a split accepted (%s)", msg);
	release(&r, id);
	{	/* a surrogate pair, U+FFFD itself and an escaped backslash
		   before "ud800" are text, not lone surrogates */
		const char *pair = "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],"
				   "\"label\":\"\\ud83d\\ude00 \\ufffd \\\\ud800\"}";

		is_int(post(&r, pair, strlen(pair), msg, id), 201,
		       "a surrogate pair, U+FFFD and \"\\\\ud800\" accepted (%s)",
		       msg);
	}
	rig_close(&r);
}

/* Item 8: released claims do not count toward max_total, however many
 * come and go between two ticks (no tick runs here at all). */
static void test_churn(void)
{
	struct rig r;
	char msg[512], id[CLAIM_ID_MAX], keep[CLAIM_ID_MAX];
	const char *body = "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"]}";
	int bad = 0;

	rig_open(&r, "skl", 2);
	is_int(post(&r, body, strlen(body), msg, keep), 201, "one kept claim");
	for (unsigned i = 0; i < 12000 && !bad; i++) {
		if (post(&r, body, strlen(body), msg, id) != 201) {
			bad = 1;
			printf("# create %u: %s\n", i, msg);
		} else {
			release(&r, id);
		}
	}
	ok(!bad, "12000 create/release cycles without a tick all get 201");
	is_int(post(&r, body, strlen(body), msg, id), 201, "second live claim");
	is_int(post(&r, body, strlen(body), msg, NULL), 429, "third refused");
	like(msg, "holds 2 claims", "counting the live ones");
	rig_close(&r);
}

/* Item 6: a claim whose counter could wrap twice within the interval
 * is refused (skl IMC: 32 bits at 1e9/s at most: 2147 ms). */
static void test_interval(void)
{
	struct rig r;
	char msg[512], id[CLAIM_ID_MAX];
	const char *imc = "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\","
			  "\"DRAM_DATA_READS\"]}";
	const char *cbo = "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"]}";

	rig_open_iv(&r, "skl", 8, 27000);
	is_int(post_s(&r, imc, msg), 409, "32-bit IMC claim at 27 s: 409");
	like(msg, "events[1]: DRAM_DATA_READS", "naming the event");
	like(msg, "at most 2147 ms", "and its limit");
	is_int(post(&r, cbo, strlen(cbo), msg, id), 201,
	       "a 44-bit CBo claim fits 27 s");
	is_int((int)claims_max_interval_ms(r.c, id), 27487,
	       "the live claims allow 27487 ms");
	ok(strncmp(id, "c1-", 3) == 0, "set by the first claim (%s)", id);
	rig_close(&r);
	rig_open_iv(&r, "skl", 8, 2000);
	is_int(post_s(&r, imc, msg), 201, "the IMC claim fits 2 s");
	rig_close(&r);
}


/* POST /api/v1/claims/ID/renew with body as uid 1000: the status, the
 * error message in msg. */
static int renew_len(struct rig *r, const char *id, const char *body,
		     size_t len, char *msg)
{
	struct claims_reply rep = { 0 };

	api_claims_renew(r->c, id, 1000, body, len, &rep);
	snprintf(msg, 512, "%s", rep.msg);
	json_object_put(rep.body);
	return rep.status;
}

static int renew(struct rig *r, const char *id, const char *body, char *msg)
{
	return renew_len(r, id, body, strlen(body), msg);
}

/* A tick's part in the table: leases expire, pins end. */
static void live(struct rig *r)
{
	struct claim *const *v;

	claims_lock(r->c);
	claims_live(r->c, clock_mono(&fake.src), &v);
	claims_unlock(r->c);
}

/* Issue 27 item 7: what a body may not hold beside a valid object, and
 * what an error says about it. */
static void test_strict(void)
{
#define ANY_I "UNC_CBO_CACHE_LOOKUP.ANY_I"
	static const struct {
		const char *body;
		size_t len;		/* 0: strlen */
		const char *why;
	} bad[] = {
		{ "{\"events\":[\"" ANY_I "\"]}\0", 42,
		  "trailing data after the JSON object at byte 41" },
		{ "{\"events\":[\"" ANY_I "\"]}\r\n\0\0", 45,
		  "trailing data after the JSON object at byte 43" },
		{ "{\"events\":[\"" ANY_I ":::::\"]}", 0,
		  "events[0]: " ANY_I ":::::: an empty field at byte 27" },
		{ "{\"events\":[\"" ANY_I ":\"]}", 0, "an empty field" },
		{ "{\"events\":[\"" ANY_I "::split=1/2\"]}", 0,
		  "an empty field at byte 27" },
		{ "{\"events\":[\"" ANY_I "\"],\"events\":[\"DRAM_DATA_READS\"]}",
		  0, "duplicate key \"events\" at byte 41" },
		{ "{\"events\":[\"" ANY_I "\"],\"ev\\u0065nts\":[\"DRAM_DATA_READS\"]}",
		  0, "duplicate key \"events\" at byte 41" },
		{ "{\"label\":\"a\",\"events\":[\"" ANY_I "\"],\"label\":\"b\"}",
		  0, "duplicate key \"label\"" },
		{ "{\"events\":[\"" ANY_I "\"],\"ttl_s\":99999999999999999999}",
		  0, "ttl_s 99999999999999999999 is out of range (1..3600)" },
		{ "{\"events\":[\"" ANY_I "\"],\"ttl_s\":-99999999999999999999}",
		  0, "ttl_s -99999999999999999999 is out of range (1..3600)" },
		{ "{\"events\":[\"" ANY_I "\"],\"ttl_s\":9223372036854775808}",
		  0, "ttl_s 9223372036854775808 is out of range (1..3600)" },
		{ "{\"events\":[\"" ANY_I "\"],\"ttl_s\":4000}",
		  0, "ttl_s 4000 is out of range (1..3600)" },
		{ "{\"events\":[\"" ANY_I "\"],\"ttl_s\":-9223372036854775808}",
		  0, "ttl_s -9223372036854775808 is out of range (1..3600)" },
	};
	struct rig r;
	char msg[512], id[CLAIM_ID_MAX];
	const char *good = "{\"events\":[\"" ANY_I "\"],\"ttl_s\":3600,"
			   "\"label\":\"a{\\\"x\\\":1,\\\"x\\\":2}\"} \t\r\n";

	log_set_level(LOG_LVL_WARN);
	rig_open(&r, "skl", 64);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = bad[i].len ? bad[i].len : strlen(bad[i].body);

		is_int(post(&r, bad[i].body, len, msg, NULL), 400,
		       "refused (%zu): %s", i, bad[i].why);
		like(msg, bad[i].why, "says what and where");
	}
	is_int(post(&r, good, strlen(good), msg, id), 201,
	       "whitespace after the object, and keys inside a string, are "
	       "fine (%s)", msg);
	is_int(renew(&r, id, "{\"ttl_s\":99999999999999999999}", msg), 400,
	       "a renewal with an overflowing ttl_s: 400");
	like(msg, "ttl_s 99999999999999999999 is out of range (1..3600)",
	     "showing the value sent");
	is_int(renew(&r, id, "{\"ttl_s\":5,\"ttl_s\":6}", msg), 400,
	       "a renewal with ttl_s twice: 400");
	like(msg, "duplicate key \"ttl_s\" at byte 11", "naming it");
	is_int(renew_len(&r, id, "{\"ttl_s\":5}\0", 12, msg), 400,
	       "a renewal with a NUL after the object: 400");
	like(msg, "trailing data after the JSON object at byte 11", "at its "
	     "byte");
	is_int(renew(&r, id, "{\"ttl_s\":5}", msg), 200, "a plain renewal");
	rig_close(&r);

	/* one event under two names: counted twice for nothing */
	rig_open(&r, "hsx", 64);
	is_int(post_s(&r, "{\"events\":[\"UNC_C_LLC_LOOKUP.ANY:filter0=0xfe003f:"
		      "split=0/2\",\"UNC_C_LLC_LOOKUP.ANY:split=0/2:filter0="
		      "0xfe003f\"]}", msg), 400, "the same event with its "
	       "modifiers in another order: 400");
	like(msg, "events[1]: UNC_C_LLC_LOOKUP.ANY:split=0/2:filter0=0xfe003f "
	     "is listed twice (as events[0]", "naming both");
	is_int(post(&r, "{\"events\":[\"UNC_C_LLC_LOOKUP.ANY:filter0=0xfe003f:"
		    "split=0/2\",\"UNC_C_LLC_LOOKUP.ANY:split=1/2:filter0="
		    "0xfe003f\"]}", 112, msg, id), 201, "the other half of the "
	       "boxes is another event (%s)", msg);
	rig_close(&r);
#undef ANY_I
}

#define PIN3 "{\"events\":[\"UNC_C_CLOCKTICKS\",\"UNC_C_LLC_VICTIMS.M_STATE\"," \
	     "\"UNC_C_LLC_VICTIMS.E_STATE\"],\"pinned\":true}"
#define PIN2 "{\"events\":[\"UNC_C_CLOCKTICKS\",\"UNC_C_LLC_VICTIMS.M_STATE\"]," \
	     "\"pinned\":true}"
#define PIN1 "{\"events\":[\"UNC_C_CLOCKTICKS\"],\"pinned\":true}"
#define SH2 "{\"events\":[\"UNC_C_LLC_VICTIMS.I_STATE\"," \
	    "\"UNC_C_LLC_VICTIMS.F_STATE\"]}"
#define SH1 "{\"events\":[\"UNC_C_LLC_VICTIMS.I_STATE\"]}"
/* counters 0 and 1 only (Table 2-20) */
#define SH_LOW "{\"events\":[\"UNC_C_FAST_ASSERTED\"]}"

static const struct claims_cfg pin_cfg = {
	.max_per_uid = 8, .max_total = 64, .default_ttl_s = 60,
	.max_ttl_s = 3600, .interval_ms = 1000, .max_pinned_per_box = 7,
	.max_pinned_s = 600,
};

/* The counters claim id was placed on (its plan), "a,b,...". */
static const char *plan_of(struct rig *r, const char *id, char *buf)
{
	struct claims_err e;
	struct claim cl;
	size_t n = 0;

	buf[0] = '\0';
	if (claims_get(r->c, id, 0, &cl, &e) < 0)
		return "(none)";
	for (unsigned i = 0; i < cl.nev; i++)
		n += (size_t)sprintf(buf + n, "%s%d", i ? "," : "", cl.plan[i]);
	claim_clear(&cl);
	return buf;
}

static bool is_pinned(struct rig *r, const char *id)
{
	struct claims_err e;
	struct claim cl;
	bool p;

	if (claims_get(r->c, id, 0, &cl, &e) < 0)
		return false;
	p = cl.pinned;
	claim_clear(&cl);
	return p;
}

/*
 * Issue 27 item 2: hsx CBos have 4 counters, pinned claims may hold 3.
 * A shared claim that cannot fit beside the pins would wait with
 * time_running 0 as long as they are renewed: it is refused at once (409
 * naming the pinned claim, not its owner); a pin that would leave an
 * admitted shared claim no counters is refused; a pin is placed where
 * the shared claims still fit when there is such a place.
 */
static void test_pins_starve(void)
{
	struct rig r;
	char msg[512], want[128], buf[64];
	char pin[CLAIM_ID_MAX], sh[CLAIM_ID_MAX], sh1[CLAIM_ID_MAX],
	     low[CLAIM_ID_MAX], p2[CLAIM_ID_MAX];

	rig_open_cfg(&r, "hsx", &pin_cfg);
	is_int(post_uid(&r, 1000, PIN3, strlen(PIN3), msg, pin), 201,
	       "a pinned 3-event CBo claim");
	is_str(plan_of(&r, pin, buf), "0,1,2", "on counters 0, 1 and 2");
	is_int(post_uid(&r, 2001, SH2, strlen(SH2), msg, sh), 409,
	       "another uid's shared 2-event CBo claim can never run beside "
	       "it: 409, not 201");
	snprintf(want, sizeof(want), "pinned claim %s on cbo counters 0,1,2 "
		 "for at most 600 s more", pin);
	like(msg, want, "naming the pinned claim and its counters");
	like(msg, "max_pinned_s", "and the setting that bounds it");
	ok(!strstr(msg, "1000"), "not its owner's uid (%s)", msg);
	is_int(post_uid(&r, 2001, SH1, strlen(SH1), msg, sh1), 201,
	       "a shared 1-event claim fits the counter left");
	is_int(post_uid(&r, 2001, SH_LOW, strlen(SH_LOW), msg, NULL), 409,
	       "an event of counters 0-1 only, both pinned: 409");
	release(&r, pin);
	is_int(post_uid(&r, 2001, SH2, strlen(SH2), msg, sh), 201,
	       "the pin released: the 2-event claim is admitted");
	is_int(post_uid(&r, 1000, PIN3, strlen(PIN3), msg, NULL), 409,
	       "a pin that would leave it one counter: 409");
	snprintf(want, sizeof(want), "shared claim %s", sh);
	like(msg, want, "naming the claim it would starve");
	is_int(post_uid(&r, 1000, PIN2, strlen(PIN2), msg, p2), 201,
	       "a 2-event pin leaves it two: admitted");
	release(&r, p2);
	release(&r, sh);
	release(&r, sh1);
	is_int(post_uid(&r, 2001, SH_LOW, strlen(SH_LOW), msg, low), 201,
	       "a shared claim of counters 0-1 only");
	is_int(post_uid(&r, 1000, PIN2, strlen(PIN2), msg, p2), 201,
	       "a 2-event pin beside it");
	is_str(plan_of(&r, p2, buf), "2,3", "placed on counters 2 and 3, "
	       "where the shared claim still fits");
	rig_close(&r);
}

/*
 * How long a renewed pin holds its counters: max_pinned_s from its
 * creation, however often it is renewed.  Then it shares them like any
 * other claim (its lease goes on), and the claims it kept out fit.
 */
static void test_pins_bound(void)
{
	struct rig r;
	char msg[512], pin[CLAIM_ID_MAX], sh[CLAIM_ID_MAX];
	const int64_t s = 1000000000ll;

	rig_open_cfg(&r, "hsx", &pin_cfg);
	is_int(post_uid(&r, 1000, PIN3, strlen(PIN3), msg, pin), 201,
	       "a pinned claim");
	is_int(renew(&r, pin, "{\"ttl_s\":120}", msg), 200, "renewed");
	for (unsigned m = 1; m < 10; m++) {
		clock_manual_advance(&fake, 60 * s);
		live(&r);
		if (renew(&r, pin, "{\"ttl_s\":120}", msg) != 200)
			break;
	}
	clock_manual_advance(&fake, 59 * s);	/* 599 s since its creation */
	live(&r);
	ok(is_pinned(&r, pin), "renewed every minute: pinned at 599 s");
	is_int(post_uid(&r, 2001, SH2, strlen(SH2), msg, NULL), 409,
	       "a 2-event shared claim is refused meanwhile");
	like(msg, "at most 1 s more", "saying when the counters come free");
	clock_manual_advance(&fake, 1 * s);
	live(&r);
	ok(!is_pinned(&r, pin), "at 600 s (max_pinned_s) it is no longer "
	   "pinned");
	is_int(renew(&r, pin, "{}", msg), 200, "its lease goes on: renewed");
	is_int(post_uid(&r, 2001, SH2, strlen(SH2), msg, sh), 201,
	       "the 2-event shared claim is admitted now (%s)", msg);
	is_int(post_uid(&r, 1000, PIN2, strlen(PIN2), msg, NULL), 409,
	       "a new pin of 2 events would leave the former pin's 3 events "
	       "two counters: 409");
	like(msg, pin, "naming it");
	is_int(post_uid(&r, 1000, PIN1, strlen(PIN1), msg, NULL), 201,
	       "a pin of 1 event fits beside both (%s)", msg);
	rig_close(&r);

	/* without a tick in between, the next request sees the end all the
	 * same */
	rig_open_cfg(&r, "hsx", &pin_cfg);
	is_int(post_uid(&r, 1000, PIN3, strlen(PIN3), msg, pin), 201,
	       "a pinned claim");
	clock_manual_advance(&fake, 600 * s);
	is_int(renew(&r, pin, "{\"ttl_s\":60}", msg), 200,
	       "renewed at 600 s");
	is_int(post_uid(&r, 2001, SH2, strlen(SH2), msg, sh), 201,
	       "no tick since: a 2-event claim is admitted all the same");
	ok(!is_pinned(&r, pin), "and the pin reads as ended");
	rig_close(&r);
}

/* Is id "c<n>-" and CLAIM_TAG_LEN characters of [0-9a-z]? */
static bool id_form(const char *id, const char *n)
{
	size_t nl = strlen(n), l = strlen(id);

	if (l != 2 + nl + CLAIM_TAG_LEN || id[0] != 'c' ||
	    strncmp(id + 1, n, nl) != 0 || id[1 + nl] != '-')
		return false;
	for (const char *p = id + 2 + nl; *p; p++)
		if (!isdigit((unsigned char)*p) && !islower((unsigned char)*p))
			return false;
	return true;
}

/* Issue 27 item 1: a daemon that restarts (here: a new table) must not
 * hand out the ids of the last lifetime, or an old client's id names a
 * new client's claim. */
static void test_ids_lifetimes(void)
{
	struct rig a, b;
	char msg[512], ida[CLAIM_ID_MAX], ida2[CLAIM_ID_MAX], idb[CLAIM_ID_MAX];
	const char *body = "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"]}";
	struct claim cl;
	struct claims_err e;

	rig_open(&a, "skl", 8);
	is_int(post(&a, body, strlen(body), msg, ida), 201, "first lifetime's "
	       "first claim");
	is_int(post(&a, body, strlen(body), msg, ida2), 201, "and its second");
	ok(id_form(ida, "1"), "the first id is c1-TAG (%s)", ida);
	ok(id_form(ida2, "2"), "the second c2-TAG (%s)", ida2);
	is_str(ida + 3, ida2 + 3, "one lifetime, one tag");
	rig_close(&a);

	rig_open(&b, "skl", 8);
	is_int(post(&b, body, strlen(body), msg, idb), 201, "second lifetime's "
	       "first claim");
	ok(id_form(idb, "1"), "is c1-TAG too (%s)", idb);
	ok(strcmp(ida, idb) != 0, "but not the first lifetime's id (%s, %s)",
	   ida, idb);
	is_int(claims_get(b.c, ida, 0, &cl, &e), -1, "the old id names no "
	       "claim of the new lifetime, even for root");
	is_int(e.st, CLAIMS_NOT_FOUND, "not found");
	is_int(claims_release(b.c, ida, 1000, &cl, &e), -1, "and releases "
	       "nothing");
	is_int(claims_get(b.c, idb, 1000, &cl, &e), 0, "the new claim lives on");
	claim_clear(&cl);
	rig_close(&b);
}

/* Issue 27 item 1: another uid's claim answers as a missing one (404,
 * the same code and message), not 403 "belongs to uid N". */
static void test_other_uid(void)
{
	struct rig r;
	struct claims_reply mine = { 0 }, other = { 0 }, none = { 0 };
	char msg[512], id[CLAIM_ID_MAX], want[600];
	const char *body = "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"]}";
	const char *missing = "c999-zzzzzz";
	static const char *const ops[] = { "get", "now", "renew", "release" };

	rig_open(&r, "skl", 8);
	is_int(post(&r, body, strlen(body), msg, id), 201, "uid 1000 claims");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct claims_reply *rp[2] = { &other, &none };
		const char *ids[2] = { id, missing };

		for (int k = 0; k < 2; k++) {
			memset(rp[k], 0, sizeof(*rp[k]));
			if (i == 0)
				api_claims_get(r.c, ids[k], 2001, rp[k]);
			else if (i == 1)
				api_claims_now(r.c, ids[k], 2001, rp[k]);
			else if (i == 2)
				api_claims_renew(r.c, ids[k], 2001, "", 0, rp[k]);
			else
				api_claims_release(r.c, ids[k], 2001, rp[k]);
		}
		is_int(other.status, 404, "%s of uid 1000's claim by uid 2001: "
		       "404", ops[i]);
		is_int(none.status, 404, "%s of a missing claim: 404", ops[i]);
		is_str(other.code, none.code, "%s: the same code", ops[i]);
		snprintf(want, sizeof(want), "no claim \"%s\"", id);
		is_str(other.msg, want, "%s: the message a missing id gets",
		       ops[i]);
		ok(!strstr(other.msg, "1000"), "%s: the owner is not named",
		   ops[i]);
		ok(!other.body, "%s: no body", ops[i]);
		json_object_put(other.body);
		json_object_put(none.body);
	}
	api_claims_get(r.c, id, 1000, &mine);
	is_int(mine.status, 200, "the owner still reads it");
	json_object_put(mine.body);
	memset(&mine, 0, sizeof(mine));
	api_claims_get(r.c, id, 0, &mine);
	is_int(mine.status, 200, "and root");
	json_object_put(mine.body);
	rig_close(&r);
}

/* Issue 40 §1: a claim made with "end_with_process" ends at the tick
 * that finds its creator's process gone, not at its lease; one without
 * it, or whose process lives, stays. */
static void test_end_with_process(void)
{
	struct rig r;
	struct claims_reply rp = { 0 };
	const char *with = "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],"
			   "\"end_with_process\":true}";
	const char *without = "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"]}";
	const char *bodies[3] = { with, without, with };
	char ids[3][CLAIM_ID_MAX];
	pid_t dead = fork(), pids[3];
	struct json_object *v;

	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);		/* reaped: no such process now */
	pids[0] = dead;
	pids[1] = dead;
	pids[2] = getpid();
	rig_open(&r, "skl", 8);
	for (int i = 0; i < 3; i++) {
		memset(&rp, 0, sizeof(rp));
		api_claims_create(r.c, 1000, pids[i], bodies[i], strlen(bodies[i]),
				  &rp);
		ids[i][0] = '\0';
		if (rp.body && json_object_object_get_ex(rp.body, "id", &v))
			snprintf(ids[i], CLAIM_ID_MAX, "%s", json_object_get_string(v));
		if (i == 0)
			ok(rp.body && json_object_object_get_ex(rp.body,
				"end_with_process", &v) && json_object_get_boolean(v),
			   "the answer says end_with_process");
		is_int(rp.status, 201, "claim %d made", i);
		json_object_put(rp.body);
	}
	live(&r);
	for (int i = 0; i < 3; i++) {
		static const char *const what[3] = {
			"end_with_process, its process gone: ended at the tick",
			"its process gone, without end_with_process: stays",
			"end_with_process, its process alive: stays" };

		memset(&rp, 0, sizeof(rp));
		api_claims_get(r.c, ids[i], 1000, &rp);
		is_int(rp.status, i == 0 ? 404 : 200, "%s", what[i]);
		json_object_put(rp.body);
	}
	rig_close(&r);
}

/* The processes of end_with_process claims are looked at once a second
 * (CLAIMS_ALIVE_EVERY_NS), not at every tick: a claim whose process ends
 * just after a look stays until the next one, a second later, and not
 * longer. */
static void test_end_with_process_once_a_second(void)
{
	struct rig r;
	struct claims_reply rp = { 0 };
	const char *body = "{\"events\":[\"UNC_CBO_CACHE_LOOKUP.ANY_I\"],"
			   "\"end_with_process\":true}";
	char id[CLAIM_ID_MAX] = "";
	pid_t child = fork();
	struct json_object *v;

	if (child == 0) {
		pause();
		_exit(0);
	}
	rig_open(&r, "skl", 8);
	api_claims_create(r.c, 1000, child, body, strlen(body), &rp);
	if (rp.body && json_object_object_get_ex(rp.body, "id", &v))
		snprintf(id, sizeof(id), "%s", json_object_get_string(v));
	is_int(rp.status, 201, "claim of a running process made");
	json_object_put(rp.body);
	live(&r);			/* a look: the process runs */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);	/* reaped: no such process now */
	clock_manual_advance(&fake, 100000000);
	live(&r);			/* 0.1 s on: no look */
	memset(&rp, 0, sizeof(rp));
	api_claims_get(r.c, id, 1000, &rp);
	is_int(rp.status, 200, "0.1 s after a look, a claim whose process "
	       "ended stays (no kill(pid, 0) at every tick)");
	json_object_put(rp.body);
	clock_manual_advance(&fake, 800000000);
	live(&r);			/* 0.9 s on: still none */
	memset(&rp, 0, sizeof(rp));
	api_claims_get(r.c, id, 1000, &rp);
	is_int(rp.status, 200, "... and 0.9 s after it");
	json_object_put(rp.body);
	clock_manual_advance(&fake, 100000000);
	live(&r);			/* 1 s on: the next look */
	memset(&rp, 0, sizeof(rp));
	api_claims_get(r.c, id, 1000, &rp);
	is_int(rp.status, 404, "1 s after it, the next look ends it");
	json_object_put(rp.body);
	rig_close(&r);
}

/* The "derived" member of event i of an answer's "events", as
 * "family scale" ("-" for null, "absent" without the member). */
static const char *derived_of(struct json_object *body, size_t i, char *buf,
			      size_t len)
{
	struct json_object *evs, *d, *f, *k;

	if (!json_object_object_get_ex(body, "events", &evs) ||
	    !json_object_object_get_ex(json_object_array_get_idx(evs, i),
				       "derived", &d))
		return "absent";
	if (!d)
		return "-";
	if (!json_object_object_get_ex(d, "family", &f) ||
	    !json_object_object_get_ex(d, "scale", &k))
		return "incomplete";
	snprintf(buf, len, "%s %g", json_object_get_string(f),
		 json_object_get_double(k));
	return buf;
}

/*
 * A claim answers, per event, the derived family it feeds as it is and
 * its scale, as the platform's table defines its sources: a DRAM read
 * event is 64 bytes a count on each platform, whatever the event is
 * called there; an event no family takes as it is answers null.  In the
 * 201 of the create and in the read-now answer that libuncored parses.
 */
static void test_derived(void)
{
	static const struct {
		const char *plat, *ev, *want;
	} cases[] = {
		{ "skl", "DRAM_DATA_READS", "uncore_dram_read_bytes 64" },
		{ "skl", "DRAM_DATA_WRITES", "uncore_dram_write_bytes 64" },
		{ "skl", "UNC_CBO_CACHE_LOOKUP.ANY_MESI", "uncore_llc_lookups 1" },
		{ "skl", "UNC_CBO_XSNP_RESPONSE.HITM_XCORE", "-" },
		{ "hsx", "UNC_M_CAS_COUNT.RD", "uncore_dram_read_bytes 64" },
		{ "hsx", "UNC_M_CAS_COUNT.WR", "uncore_dram_write_bytes 64" },
		/* the sources of hsx's LLC families are this event with
		 * a filter and a :split: claimed bare, it feeds neither
		 * as it is */
		{ "hsx", "UNC_C_LLC_LOOKUP.ANY", "-" },
		{ "snbep", "UNC_M_CAS_COUNT.RD", "uncore_dram_read_bytes 64" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct claims_reply rep = { 0 }, now = { 0 };
		struct json_object *v;
		char body[200], buf[160], id[CLAIM_ID_MAX] = "";
		struct rig r;

		rig_open(&r, cases[i].plat, 8);
		snprintf(body, sizeof(body), "{\"events\":[\"%s\"]}",
			 cases[i].ev);
		api_claims_create(r.c, 1000, 1, body, strlen(body), &rep);
		is_int(rep.status, 201, "%s: claim %s (%s)", cases[i].plat,
		       cases[i].ev, rep.msg);
		if (rep.body && json_object_object_get_ex(rep.body, "id", &v))
			snprintf(id, sizeof(id), "%s", json_object_get_string(v));
		is_str(derived_of(rep.body, 0, buf, sizeof(buf)), cases[i].want,
		       "%s: the 201 of %s says what it feeds", cases[i].plat,
		       cases[i].ev);
		api_claims_now(r.c, id, 1000, &now);
		is_str(derived_of(now.body, 0, buf, sizeof(buf)), cases[i].want,
		       "%s: and so does its reading now", cases[i].plat);
		json_object_put(rep.body);
		json_object_put(now.body);
		rig_close(&r);
	}
}

int main(void)
{
	clock_manual_init(&fake, 1000000000000ll);
	test_filters();
	test_text();
	test_churn();
	test_interval();
	test_strict();
	test_pins_starve();
	test_pins_bound();
	test_ids_lifetimes();
	test_other_uid();
	test_end_with_process();
	test_end_with_process_once_a_second();
	test_derived();
	return tap_done();
}
