/*
 * fuzz_claim.c - libFuzzer target: claim request bodies (create, renew)
 * against the claims table on the simulated hsx (box filters, splits,
 * raw encodings allowed).  Whatever is accepted must list as valid
 * UTF-8 JSON, and every claim is released again.
 */
#include "config.h"

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/api_claims.h"
#include "sim/hw_sim.h"
#include "base/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hw hw;
static struct topology topo;
static struct pmu pmu;
static struct claims *tbl[2];	/* raw events allowed, and not */

static void setup(void)
{
	struct hw_opts o = { .sim_platform = "hsx" };

	log_init("fuzz", LOG_LVL_ERR);
	if (hw_open(&hw, &hw_sim_ops, &o) < 0)
		abort();
	topo.plat = hw_sim_platform(&hw);
	if (plat_discover(topo.plat, &hw, &topo, &(struct hw_cpu_map){
			  .cpus_per_package = SIM_CPUS_PER_SOCKET }) < 0)
		abort();
	if (pmu_init(&pmu, &hw, &topo) < 0)
		abort();
	for (int i = 0; i < 2; i++)
		tbl[i] = claims_new(&pmu, &(struct claims_cfg){
			.max_per_uid = 4, .max_total = 8, .default_ttl_s = 60,
			.max_ttl_s = 3600, .allow_raw_events = i == 0,
			.interval_ms = 1000 });
}

/* The JSON of r's body, re-parsed with UTF-8 validation. */
static void check_json(struct json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	struct json_tokener *t = json_tokener_new();
	struct json_object *back;

	json_tokener_set_flags(t, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	back = json_tokener_parse_ex(t, s, (int)strlen(s));
	if (!back || json_tokener_get_error(t) != json_tokener_success) {
		fprintf(stderr, "invalid JSON out: %s\n", s);
		abort();
	}
	json_object_put(back);
	json_tokener_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!tbl[0])
		setup();
	for (int i = 0; i < 2; i++) {
		struct claims_reply r = { 0 }, l = { 0 }, x = { 0 };
		char id[CLAIM_ID_MAX] = "";
		struct json_object *v;

		api_claims_create(tbl[i], 1000, 1, (const char *)data, size, &r);
		if (r.status == 201) {
			if (!r.body || !json_object_object_get_ex(r.body, "id", &v))
				abort();
			snprintf(id, sizeof(id), "%s", json_object_get_string(v));
			check_json(r.body);
		} else if (r.status < 400 || !r.code[0] || !r.msg[0]) {
			fprintf(stderr, "status %d without an error\n", r.status);
			abort();
		}
		json_object_put(r.body);
		api_claims_list(tbl[i], 0, &l);
		if (l.body)
			check_json(l.body);
		json_object_put(l.body);
		if (id[0]) {
			/* the body again, as a renewal */
			api_claims_renew(tbl[i], id, 1000, (const char *)data, size, &x);
			json_object_put(x.body);
			memset(&x, 0, sizeof(x));
			api_claims_release(tbl[i], id, 1000, &x);
			if (x.status != 200)
				abort();
			json_object_put(x.body);
		}
	}
	return 0;
}
