#!/bin/sh
# latency_xsp.sh - uncore_memory_read_latency_seconds on the simulated
# Ice Lake-SP, Sapphire Rapids and Granite Rapids (issue 41), perf
# backend, known answers and decoys.  Intel's
# llc_demand_data_read_miss_latency: CHA TOR occupancy (0x36, counter 0)
# / inserts (0x35) of IA_MISS_DRD, umask 0x01 with UMaskExt 0xC817FE
# (0xc817fe01 in the kernel's umask field); _LOCAL 0xC816FE, _REMOTE
# 0xC8177E, _DDR 0xC81786, _PMM 0xC8178A; the clock of one CHA the mean of
# the CHAs' UNC_CHA_CLOCKTICKS (0x00 on icx, 0x01 from spr), 2 GHz.
#   socket 0: 4 CHAs with uneven rates: inserts 1, 2, 3, 4 e6/s, latency
#             100, 200, 300, 400 cycles: sum then divide 300 cycles =
#             150 ns, 1.5 reads in flight (the mean of per-CHA ratios
#             would say 125 ns);
#   socket 1: even rates, 400 cycles = 200 ns, 4 in flight.
# (A key without @N is the socket's rate, shared by its CHAs.)
# Decoys, each another latency: IA_MISS (every opcode, 0xC001FE), the
# DRd prefetch IA_MISS_DRD_PREF (0xC897FE), SRF's IA_MISS_DRD_OPT
# (0xC827FE), the umask without its extension (0x01), and the other
# platform generation's clock event.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/latency.sh"

DRD=0xc817fe01
workload() { # PLATFORM CLOCK-CODE DECOY-CLOCK-CODE
	cat <<JSON
{ "platform": "$1", "sockets": 2, "cha_count": 4,
  "phases": [ { "seconds": 3600, "rates": {
$(uneven_rates "cha:0x35:$DRD" "cha:0x36:$DRD")
    "cha:0x35:0xc816fe01": 1.2e7, "cha:0x36:0xc816fe01": 2.4e9,
    "cha:0x35:0xc8177e01": 4.0e6, "cha:0x36:0xc8177e01": 1.6e9,
    "cha:0x35:0xc8178601": 1.6e7, "cha:0x36:0xc8178601": 4.0e9,
    "cha:0x35:0xc8178a01": 1.0e6, "cha:0x36:0xc8178a01": 1.0e9,
    "cha:0x35:0xc001fe01": 1.0e8, "cha:0x36:0xc001fe01": 6.0e10,
    "cha:0x35:0xc001ff01": 4.0e8,
    "cha:0x35:0xc897fe01": 3.0e7, "cha:0x36:0xc897fe01": 2.0e10,
    "cha:0x35:0xc827fe01": 5.0e7, "cha:0x36:0xc827fe01": 3.0e10,
    "cha:0x35:0x01": 9.0e8, "cha:0x36:0x01": 5.0e10,
    "cha:$2:0x00": 8.0e9, "cha:$3:0x00": 3.0e9
  } } ] }
JSON
}

# clk PLATFORM: its CHA clock event's code (xPLATFORM: the decoy's)
clk() { case $1 in icx|xspr|xgnr) echo 0x00 ;; *) echo 0x01 ;; esac; }

# run NAME PLATFORM [CONF] [SAMPLES]: the daemon on the platform's
# workload (tests/latency.sh)
run() {
	workload "$2" "$(clk "$2")" "$(clk x"$2")" >"$T/$1.wl.json"
	lat_run "$1" "${3:-}" "${4:-8}" --simulate="$2" --backend=perf \
		--workload "$T/$1.wl.json"
}

# counted NAME PLATFORM: the platform's latency events with
# memory_latency = yes (auto leaves them out: they do not fit beside the
# LLC events and the clock on the CHA's four counters)
counted() {
	run "$1" "$2" "[baseline]
memory_latency = yes"
	m=$T/$1.m1
	like "$(grep '^# TYPE uncore_memory_read_latency_seconds ' "$m")" "summary" \
		"$2: uncore_memory_read_latency_seconds is a summary"
	near "$(lat "$1" 0 all)" 150e-9 0.01 \
		"$2 s0: 150 ns, sum of occupancy / sum of inserts / 2 GHz (not 125 ns)"
	# the pair takes turns with the LLC events: each of its turns adds
	# two intervals' estimate, so a window of a few ticks holds one turn
	# more or less (the ratio above is exact)
	near "$(rate uncore_memory_read_latency_seconds_sum 'socket="0",target="all"' "$T/$1.m0" "$m")" 1.5 0.15 \
		"$2 s0: rate(_sum) = 1.5 reads in flight"
	near "$(rate uncore_memory_read_latency_seconds_count 'socket="0",target="all"' "$T/$1.m0" "$m")" 1.0e7 0.15 \
		"$2 s0: rate(_count) = 1e7 reads/s"
	near "$(lat "$1" 1 all)" 200e-9 0.01 "$2 s1: 200 ns, its own CHAs"
	near "$(jq '.sockets[1].memory_reads_in_flight_all' "$T/$1.json")" 4.0 0.02 \
		"$2 s1: /api/v1/metrics reads in flight 4"
	is "$(grep -c 'target="local"\|target="remote"\|target="dram"' "$m")" 0 \
		"$2: the platform's latency events count target=\"all\" only"
	for s in 0 1; do
		near "$(metric "$m" uncore_llc_hit_ratio "socket=\"$s\"")" 0.75 0.02 \
			"$2 s$s: the LLC hit ratio unchanged beside it"
		near "$(metric "$m" uncore_clock_hertz "socket=\"$s\"")" 2.0e9 0.02 \
			"$2 s$s: the CHA clock 2 GHz"
	done
	kill "$UPID"; wait "$UPID" 2>/dev/null
}

counted icx icx
counted spr spr
counted gnr gnr

# every target of icx from a [baseline]: five occupancy events on counter
# 0 take turns, each with its own inserts (one group), the LLC events
# beside them
run turns icx "[baseline]
cha = UNC_CHA_TOR_INSERTS.IA UNC_CHA_TOR_INSERTS.IA_MISS UNC_CHA_CLOCKTICKS
  UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD UNC_CHA_TOR_INSERTS.IA_MISS_DRD
  UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_LOCAL UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL
  UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_REMOTE UNC_CHA_TOR_INSERTS.IA_MISS_DRD_REMOTE
  UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_DDR UNC_CHA_TOR_INSERTS.IA_MISS_DRD_DDR
  UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_PMM UNC_CHA_TOR_INSERTS.IA_MISS_DRD_PMM" 24
near "$(lat turns 0 all)" 150e-9 0.02 "icx turns: all still 150 ns on s0"
near "$(lat turns 1 local)" 100e-9 0.02 "icx turns: local (0xC816FE) 2.4e9 / 1.2e7 = 200 cycles = 100 ns"
near "$(lat turns 1 remote)" 200e-9 0.02 "icx turns: remote (0xC8177E) 400 cycles = 200 ns"
near "$(lat turns 0 dram)" 125e-9 0.02 "icx turns: dram (0xC81786) 250 cycles = 125 ns"
near "$(lat turns 0 pmem)" 500e-9 0.02 "icx turns: pmem (0xC8178A) 1000 cycles = 500 ns"
near "$(metric "$T/turns.m1" uncore_llc_hit_ratio 'socket="0"')" 0.75 0.02 \
	"icx turns: the LLC hit ratio still 0.75"
kill "$UPID"; wait "$UPID" 2>/dev/null

# the default, auto: the family is absent, said, and nothing takes turns
for p in icx spr gnr; do
	run "auto$p" "$p"
	is "$(grep -c '^uncore_memory_read_latency' "$T/auto$p.m1")" 0 \
		"$p, memory_latency = auto (default): no latency family"
	is "$(metric "$T/auto$p.m1" uncored_baseline_groups "")" 1 \
		"$p, auto: nothing takes turns"
	near "$(rate uncore_llc_lookups_total 'socket="0"' "$T/auto$p.m0" "$T/auto$p.m1")" 4.0e8 0.01 \
		"$p, auto: LLC lookups 4e8/s, counted all the time (exact, no turns)"
	is "$(curl -s "http://127.0.0.1:$PORT/api/v1/status" | jq -r '.memory_latency.left_out[] | .unit + ": " + .why')" \
		"cha: $( [ $p = spr ] && echo 6 || echo 5) cha events but cha has 4 counters" \
		"$p, auto: /api/v1/status says the CHA's pair was left out, and why"
	kill "$UPID"; wait "$UPID" 2>/dev/null
done

# memory_latency = no: the family is absent and nothing takes turns on gnr
run nolat gnr "[baseline]
memory_latency = no"
is "$(grep -c '^uncore_memory_read_latency' "$T/nolat.m1")" 0 \
	"gnr, memory_latency = no: no latency family"
is "$(metric "$T/nolat.m1" uncored_baseline_groups "")" 1 \
	"gnr, memory_latency = no: nothing takes turns"
kill "$UPID"; wait "$UPID" 2>/dev/null
tap_end
