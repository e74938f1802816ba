/*
 * test_sim_lat.c - a phase's "memory_latency" curve (src/sim/sim_wl_lat.c):
 * the occupancy and insert rates it gives each platform's latency events
 * (Little's law: occupancy / inserts / clock = the curve's latency), per
 * socket, target and box; counter 0 only for the occupancy; the phase's
 * own rate keys winning over the curve's; and the errors, each naming
 * the phase and the key.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/sim_workload.h"
#include "plat/plat.h"
#include "tests/tap.h"

static char err[1024];

static struct workload *parse(const char *json)
{
	struct workload *w = NULL;

	if (wl_parse(json, strlen(json), "lat.json", NULL, &w, err,
		     sizeof(err)) < 0)
		printf("#   %s\n", err);
	return w;
}

/* The rate in phase ph of the counter programmed with the raw encoding
 * "unit:0xEV:0xUMASK" with box filters f0, f1, on socket sock, box inst
 * of ninst, counter ctr. */
static double rate(const struct workload *w, const char *raw, uint64_t f0,
		   uint64_t f1, unsigned sock, unsigned inst, unsigned ninst,
		   unsigned ctr, unsigned ph)
{
	const struct unit_type *u;
	struct wl_match m = { .socket = sock, .inst = inst, .ninst = ninst,
			      .filter0 = f0, .filter1 = f1, .ctr = ctr };
	double r[8] = { 0 };
	char why[128];

	if (plat_parse_raw(w->plat, raw, &u, &m.enc, why, sizeof(why)) < 0 ||
	    !plat_unit(w->plat, u->name, &m.unit) || w->nphases > 8)
		return -1;
	wl_rates(w, &m, r);
	return r[ph];
}

#define HF 0x18200000ull	/* hsx FILTER1 opc 0x182 */

/* hsx: 2 sockets of 2 CBos at 2 GHz; phase 0 the curve at u = 0.5 on
 * socket 0 (6.4e9 B/s read + 3.2e9 written of 1.92e10) and 1/6 on socket
 * 1; phase 1 no curve; phase 2 the curve with socket 1's remote pair
 * given raw. */
static void test_hsx(void)
{
	struct workload *w = parse(
	    "{\"platform\":\"hsx\",\"sockets\":2,\"cbo_count\":2,"
	    "\"uclk_hz\":2000000000,\"phases\":["
	    "{\"seconds\":1,\"memory_latency\":{\"idle_ns\":80,"
	    "\"peak_bytes_per_second\":1.92e10,\"remote_ns\":140,"
	    "\"remote_share\":0.25,\"box_reads\":[1,3],\"box_latency\":[1,2]},"
	    "\"rates\":{\"s0/imc:0x04:0x03\":1e8,\"s0/imc:0x04:0x0c\":5e7,"
	    "\"s1/imc:0x04:0x03\":5e7}},"
	    "{\"seconds\":1,\"rates\":{\"s0/imc:0x04:0x03\":1e8}},"
	    "{\"seconds\":1,\"memory_latency\":{\"idle_ns\":80,"
	    "\"peak_bytes_per_second\":1.92e10,\"remote_ns\":140,"
	    "\"remote_share\":0.25},"
	    "\"rates\":{\"s0/imc:0x04:0x03\":1e8,\"s0/imc:0x04:0x0c\":5e7,"
	    "\"s1/imc:0x04:0x03\":5e7,"
	    "\"s1/cbo:0x35:0x83:filter1=0x18200000\":1e7,"
	    "\"s1/cbo:0x36:0x83:filter1=0x18200000\":6e9}}]}");
	double ins0, ins1, occ0, occ1;

	ok(w != NULL, "hsx: a workload with curves parses");
	if (!w)
		return;
	/* socket 0, phase 0: 1e8 reads/s, 7.5e7 local at 160 ns, 2.5e7
	 * remote at 280 ns: 1.9e10 read-ns/s = 38e9 cycles/s at 2 GHz,
	 * spread as box_reads 1:3 and box_latency 1:2 (weights 1 and 6) */
	ins0 = rate(w, "cbo:0x35:0x03", 0, HF, 0, 0, 2, 1, 0);
	ins1 = rate(w, "cbo:0x35:0x03", 0, HF, 0, 1, 2, 1, 0);
	occ0 = rate(w, "cbo:0x36:0x03", 0, HF, 0, 0, 2, 0, 0);
	occ1 = rate(w, "cbo:0x36:0x03", 0, HF, 0, 1, 2, 0, 0);
	is_near(ins0 + ins1, 1e8, 1e-9, "hsx s0 inserts: DRAM read bytes / 64");
	is_near(ins1 / ins0, 3, 1e-9, "... box_reads 1:3");
	is_near(occ0 + occ1, 38e9, 1e-9,
		"hsx s0 occupancy: (7.5e7 x 160 + 2.5e7 x 280) ns x 2 GHz");
	is_near(occ1 / occ0, 6, 1e-9, "... reads x box_latency 1:6");
	is_near((occ0 + occ1) / (ins0 + ins1) / 2.0, 190, 1e-9,
		"hsx s0: sum then divide = 190 ns");
	is_near(rate(w, "cbo:0x36:0x23", 0, HF, 0, 0, 2, 0, 0) +
		rate(w, "cbo:0x36:0x23", 0, HF, 0, 1, 2, 0, 0), 7.5e7 * 320, 1e-9,
		"hsx s0 local: 7.5e7 x 160 ns x 2 GHz");
	is_near(rate(w, "cbo:0x35:0x83", 0, HF, 0, 0, 2, 2, 0) +
		rate(w, "cbo:0x35:0x83", 0, HF, 0, 1, 2, 2, 0), 2.5e7, 1e-9,
		"hsx s0 remote inserts: a quarter");
	is_near((rate(w, "cbo:0x36:0x03", 0, HF, 1, 0, 2, 0, 0) +
		 rate(w, "cbo:0x36:0x03", 0, HF, 1, 1, 2, 0, 0)) /
		(rate(w, "cbo:0x35:0x03", 0, HF, 1, 0, 2, 0, 0) +
		 rate(w, "cbo:0x35:0x03", 0, HF, 1, 1, 2, 0, 0)) / 2.0,
		114, 1e-9, "hsx s1 at u = 1/6: 0.75 x 96 + 0.25 x 168 = 114 ns");
	is_near(rate(w, "cbo:0x36:0x03", 0, HF, 1, 0, 2, 0, 0) /
		rate(w, "cbo:0x35:0x03", 0, HF, 1, 0, 2, 0, 0) / 2.0,
		114 * 4 / 7.0, 1e-9, "hsx s1 CBo 0 alone: 65 ns, not the socket's");
	is_near(rate(w, "cbo:0x00:0x00", 0, 0, 0, 1, 2, 3, 0), 2e9, 1e-9,
		"hsx: each CBo's clock ticks at uclk_hz");
	/* counter 0 only */
	is_near(rate(w, "cbo:0x36:0x03", 0, HF, 0, 0, 2, 1, 0), 0, 0.0,
		"hsx: the curve's occupancy on counter 1 counts nothing");
	ok(rate(w, "cbo:0x35:0x03", 0, HF, 0, 0, 2, 3, 0) > 0,
	   "hsx: its inserts count on counter 3");
	/* the neighbouring encodings count nothing of the curve */
	is_near(rate(w, "cbo:0x36:0x03", 0, 0, 0, 0, 2, 0, 0), 0, 0.0,
		"hsx: the unfiltered opcode counts none of it");
	is_near(rate(w, "cbo:0x36:0x01", 0, HF, 0, 0, 2, 0, 0), 0, 0.0,
		"hsx: the OPCODE umask (hits too) counts none of it");
	/* no curve, no latency events */
	is_near(rate(w, "cbo:0x35:0x03", 0, HF, 0, 0, 2, 0, 1), 0, 0.0,
		"hsx: a phase without a curve: no inserts");
	/* phase 2: socket 1's remote pair is the phase's own */
	is_near(rate(w, "cbo:0x36:0x83", 0, HF, 1, 0, 2, 0, 2), 3e9, 1e-9,
		"hsx s1 remote: the phase's own occupancy wins (6e9 over 2 CBos)");
	is_near(rate(w, "cbo:0x35:0x83", 0, HF, 1, 1, 2, 0, 2), 5e6, 1e-9,
		"... and its own inserts");
	ok(rate(w, "cbo:0x35:0x83", 0, HF, 0, 0, 2, 0, 2) > 0,
	   "... socket 0's remote pair is still the curve's");
	is_near(rate(w, "cbo:0x35:0x03", 0, HF, 0, 0, 2, 0, 2), 5e7, 1e-9,
		"... without box_reads the CBos share evenly");
	wl_free(w);
}

/* icx (UMaskExt), zen5 (10 ns a count, any counter) and the cap */
static void test_other(void)
{
	struct workload *w = parse(
	    "{\"platform\":\"icx\",\"sockets\":1,\"cha_count\":2,"
	    "\"uclk_hz\":2000000000,\"phases\":["
	    "{\"seconds\":1,\"memory_latency\":{\"idle_ns\":90,"
	    "\"peak_bytes_per_second\":1e11,\"max_ns\":300},"
	    "\"rates\":{\"imc:0x04:0x0f\":1.5e9}}]}");

	ok(w != NULL, "icx: a curve without remote reads");
	if (w) {
		/* 9.6e10 of 1e11: 90 / 0.04 = 2250 ns, capped at 300 */
		is_near(rate(w, "cha:0x36:0xc817fe01", 0, 0, 0, 0, 2, 0, 0) * 2 /
			(rate(w, "cha:0x35:0xc817fe01", 0, 0, 0, 0, 2, 0, 0) * 2) /
			2.0, 300, 1e-9, "icx: the latency stops at max_ns");
		is_near(rate(w, "cha:0x35:0xc8178601", 0, 0, 0, 1, 2, 0, 0), 7.5e8,
			1e-9, "icx: _DDR counts every read of the curve");
		is_near(rate(w, "cha:0x35:0xc8177e01", 0, 0, 0, 1, 2, 0, 0), 0, 0.0,
			"icx: no remote reads");
		is_near(rate(w, "cha:0x35:0xc001fe01", 0, 0, 0, 1, 2, 0, 0), 0, 0.0,
			"icx: IA_MISS (every opcode) counts none of it");
		is_near(rate(w, "cha:0x00:0x00", 0, 0, 0, 1, 2, 1, 0), 2e9, 1e-9,
			"icx: UNC_CHA_CLOCKTICKS 0x00 at uclk_hz");
		wl_free(w);
	}
	w = parse("{\"platform\":\"zen5\",\"sockets\":1,\"ccx_count\":2,"
		  "\"phases\":[{\"seconds\":1,\"memory_latency\":{"
		  "\"idle_ns\":100,\"peak_bytes_per_second\":8e10,"
		  "\"remote_ns\":180,\"remote_share\":0.5},"
		  "\"rates\":{\"umc:0x0a:0x01\":3.125e8}}]}");
	ok(w != NULL, "zen5: a curve");
	if (w) {
		/* 2e10 of 8e10: remote 240 ns = 24 counts a read */
		is_near(rate(w, "l3:0xac:0x02", 0, 0, 0, 0, 2, 3, 0) /
			rate(w, "l3:0xad:0x02", 0, 0, 0, 0, 2, 3, 0), 24, 1e-9,
			"zen5 dram_far: 240 ns = 24 counts of 10 ns, on any counter");
		is_near(rate(w, "l3:0xad:0x01", 0, 0, 0, 0, 2, 0, 0) * 2,
			1.5625e8, 1e-9, "zen5 dram_near: half the reads");
		wl_free(w);
	}
}

#define HSX_PH(lat) "{\"platform\":\"hsx\",\"cbo_count\":2,\"phases\":[" \
	"{\"seconds\":1,\"rates\":{}},{\"seconds\":1,\"memory_latency\":" \
	lat ",\"rates\":{\"imc:0x04:0x03\":1e8}}]}"

static const struct {
	const char *json, *want;
} bad[] = {
	{ HSX_PH("{\"idle_ns\":-80,\"peak_bytes_per_second\":1e11}"),
	  "lat.json: $.phases[1].memory_latency.idle_ns: -80 out of range: "
	  "must be > 0" },
	{ HSX_PH("{\"idle_ns\":80,\"peak_bytes_per_second\":0}"),
	  "lat.json: $.phases[1].memory_latency.peak_bytes_per_second: 0 out "
	  "of range: must be > 0" },
	{ HSX_PH("{\"idle_ns\":80,\"peak_bytes_per_second\":1e11,"
		 "\"idle\":80}"),
	  "lat.json: $.phases[1].memory_latency.idle: unknown key "
	  "(\"memory_latency\" accepts: idle_ns, peak_bytes_per_second," },
	{ HSX_PH("{\"peak_bytes_per_second\":1e11}"),
	  "lat.json: $.phases[1].memory_latency: missing \"idle_ns\"" },
	{ HSX_PH("{\"idle_ns\":80}"),
	  "lat.json: $.phases[1].memory_latency: missing "
	  "\"peak_bytes_per_second\"" },
	{ HSX_PH("{\"idle_ns\":80,\"peak_bytes_per_second\":1e11,"
		 "\"remote_ns\":140}"),
	  "lat.json: $.phases[1].memory_latency: remote_ns without "
	  "\"remote_share\"" },
	{ HSX_PH("{\"idle_ns\":80,\"peak_bytes_per_second\":1e11,"
		 "\"remote_share\":1.5,\"remote_ns\":140}"),
	  "lat.json: $.phases[1].memory_latency.remote_share: 1.5 out of "
	  "range: at most 1" },
	{ HSX_PH("{\"idle_ns\":80,\"peak_bytes_per_second\":1e11,"
		 "\"max_ns\":40}"),
	  "lat.json: $.phases[1].memory_latency: max_ns 40 < idle_ns 80" },
	{ HSX_PH("{\"idle_ns\":80,\"peak_bytes_per_second\":1e11,"
		 "\"box_reads\":[1,2,3]}"),
	  "lat.json: $.phases[1].memory_latency.box_reads: 3 values: the "
	  "socket has 2 cbo boxes" },
	{ HSX_PH("{\"idle_ns\":80,\"peak_bytes_per_second\":1e11,"
		 "\"box_latency\":[1,0]}"),
	  "lat.json: $.phases[1].memory_latency.box_latency[1]: 0 out of "
	  "range: must be > 0" },
	{ HSX_PH("{\"idle_ns\":80,\"peak_bytes_per_second\":1e11,"
		 "\"box_reads\":[0,0]}"),
	  "lat.json: $.phases[1].memory_latency: box_reads: every box takes "
	  "0 reads" },
	{ HSX_PH("[80]"),
	  "lat.json: $.phases[1].memory_latency: must be an object" },
	{ "{\"platform\":\"skl\",\"phases\":[{\"seconds\":1,\"memory_latency\":"
	  "{\"idle_ns\":80,\"peak_bytes_per_second\":1e11},\"rates\":{}}]}",
	  "lat.json: $.phases[0].memory_latency: the simulator has no memory "
	  "latency events of skl (it has them of hsx, skx, icx, spr, zen5, "
	  "gnr;" },
	{ "{\"platform\":\"hsx\",\"phases\":[{\"seconds\":1,\"latency\":{},"
	  "\"rates\":{}}]}",
	  "lat.json: $.phases[0].latency: unknown key (a phase accepts: "
	  "seconds, rates, memory_latency)" },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct workload *w = (struct workload *)1;
		int r = wl_parse(bad[i].json, strlen(bad[i].json), "lat.json",
				 NULL, &w, err, sizeof(err));

		ok(r == -EINVAL && w == NULL &&
		   strncmp(err, bad[i].want, strlen(bad[i].want)) == 0,
		   "bad %zu: %s", i, err);
		if (strncmp(err, bad[i].want, strlen(bad[i].want)) != 0)
			printf("#   want \"%s...\"\n", bad[i].want);
	}
}

int main(void)
{
	test_hsx();
	test_other();
	test_bad();
	return tap_done();
}
