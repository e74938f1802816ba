#!/bin/sh
# latency_skx.sh - uncore_memory_read_latency_seconds on the simulated
# Skylake-SP (issue 41), perf backend, known answers and decoys.  Intel's
# SKX llc_data_read_demand_plus_prefetch_miss_latency: TOR occupancy /
# inserts of IA_MISS (0x36 / 0x35, umask 0x21) under FILTER1 0x40433 (the
# DRd opcode 0x202 << 9 | rem, loc, nm, not_nm), local 0x40432, remote
# 0x40431; FILTER1 is config1 bits 63:32 (filter0= that << 32); the
# clock of one CHA is the mean of the CHAs' UNC_CHA_CLOCKTICKS, 2 GHz.
# (A key without @N is the socket's rate, shared by its CHAs.)
#   socket 0: 4 CHAs with uneven rates: inserts 1, 2, 3, 4 e6/s, latency
#             100, 200, 300, 400 cycles: sum then divide 300 cycles =
#             150 ns, 1.5 reads in flight (the mean of per-CHA ratios
#             would say 125 ns);
#   socket 1: even rates, 400 cycles = 200 ns, 4 in flight.
# Decoys on the neighbouring encodings, each another rate: IA_MISS under
# the LLC events' every-opcode filter (0x3b), the IA umask (0x31, hits
# too) under the DRd filter, CRd's opcode 0x201 (0x40233), the local-only
# and remote-only values in the default run.  The LLC events need FILTER1
# 0x3b: the latency pair takes turns with them, and both stay right.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/latency.sh"

A=filter0=0x4043300000000 L=filter0=0x4043200000000 R=filter0=0x4043100000000
cat >"$T/wl.json" <<JSON
{ "platform": "skx", "sockets": 2, "cha_count": 4,
  "phases": [ { "seconds": 3600, "rates": {
$(uneven_rates "cha:0x35:0x21:$A" "cha:0x36:0x21:$A")
    "cha:0x35:0x21:$L": 1.2e7, "cha:0x36:0x21:$L": 2.4e9,
    "cha:0x35:0x21:$R": 4.0e6, "cha:0x36:0x21:$R": 1.6e9,
    "cha:0x35:0x31:$A": 9.0e8, "cha:0x36:0x31:$A": 5.0e10,
    "cha:0x35:0x21:filter0=0x4023300000000": 7.0e7,
    "cha:0x36:0x21:filter0=0x4023300000000": 3.0e10,
    "cha:0x36:0x21:filter0=0x3b00000000": 6.0e9,
    "cha:0x35:0x31:filter0=0x3b00000000": 4.0e8,
    "cha:0x35:0x21:filter0=0x3b00000000": 1.0e8,
    "cha:0x00:0x00": 8.0e9, "imc:0x04:0x03": 1.0e8
  } } ] }
JSON

# run NAME [CONF] [SAMPLES]: the daemon on the workload (tests/latency.sh)
run() {
	lat_run "$1" "${2:-}" "${3:-8}" --simulate=skx --backend=perf \
		--workload "$T/wl.json"
}

# memory_latency = yes: the pair counts, in turn with the LLC events
run def "[baseline]
memory_latency = yes"
m=$T/def.m1
like "$(grep '^# TYPE uncore_memory_read_latency_seconds ' "$m")" "summary" \
	"uncore_memory_read_latency_seconds is a summary"
near "$(lat def 0 all)" 150e-9 0.01 \
	"s0: 150 ns = sum of occupancy / sum of inserts / 2 GHz (not 125 ns, the mean of per-CHA ratios)"
near "$(rate uncore_memory_read_latency_seconds_sum 'socket="0",target="all"' "$T/def.m0" "$T/def.m1")" 1.5 0.15 \
	"s0: rate(_sum) = 1.5 reads in flight"
near "$(rate uncore_memory_read_latency_seconds_count 'socket="0",target="all"' "$T/def.m0" "$T/def.m1")" 1.0e7 0.15 \
	"s0: rate(_count) = 1e7 reads/s"
near "$(lat def 1 all)" 200e-9 0.01 "s1: 200 ns, its own CHAs"
# (the pair takes turns with the LLC events: each of its turns adds two
# intervals' estimate, so the rates over a few ticks are within a turn)
near "$(rate uncore_memory_read_latency_seconds_sum 'socket="1",target="all"' "$T/def.m0" "$T/def.m1")" 4.0 0.15 \
	"s1: 4 reads in flight"
is "$(grep -c 'target="local"\|target="remote"' "$m")" 0 \
	"the default baseline counts target=\"all\" only"
near "$(jq '.sockets[0].memory_read_latency_all_seconds' "$T/def.json")" 150e-9 0.02 \
	"/api/v1/metrics: the last interval's mean, 150 ns"
for s in 0 1; do
	near "$(metric "$m" uncore_llc_hit_ratio "socket=\"$s\"")" 0.75 0.02 \
		"s$s: LLC hit ratio 0.75, in turn with the latency pair (FILTER1 0x3b)"
	near "$(rate uncore_llc_lookups_total "socket=\"$s\"" "$T/def.m0" "$T/def.m1")" 4.0e8 0.15 \
		"s$s: LLC lookups 4e8/s, scaled over its turns"
	near "$(metric "$m" uncore_clock_hertz "socket=\"$s\"")" 2.0e9 0.02 \
		"s$s: the CHA clock 2 GHz, counted with the latency pair"
done
like "$(cat "$T/def.log")" "take turns" "the log says the CHA events take turns"
kill "$UPID"; wait "$UPID" 2>/dev/null

# the default (auto): the pair does not fit beside the LLC events (one
# FILTER1 register), so it is left out, said, and nothing takes turns
run auto
is "$(grep -c '^uncore_memory_read_latency' "$T/auto.m1")" 0 \
	"memory_latency = auto (default): no latency family on skx"
is "$(metric "$T/auto.m1" uncored_baseline_groups "")" 1 \
	"auto: nothing takes turns"
near "$(rate uncore_llc_lookups_total 'socket="0"' "$T/auto.m0" "$T/auto.m1")" 4.0e8 0.01 \
	"auto: LLC lookups 4e8/s, counted all the time"
curl -s "http://127.0.0.1:$PORT/api/v1/status" >"$T/auto.status"
is "$(jq -r '.memory_latency | [.setting, (.left_out | map(.unit) | join(","))] | join(" ")' "$T/auto.status")" \
	"auto cha" "auto: /api/v1/status memory_latency names the CHA as left out"
like "$(jq -r '.memory_latency.left_out[0].why' "$T/auto.status")" "TOR_OCCUPANCY" \
	"auto: ... with why (the events that cannot be placed together)"
like "$(cat "$T/auto.log")" "memory_latency = yes counts them" \
	"auto: the log says what counts them"
kill "$UPID"; wait "$UPID" 2>/dev/null

run nolat "[baseline]
memory_latency = no"
is "$(grep -c '^uncore_memory_read_latency' "$T/nolat.m1")" 0 \
	"memory_latency = no: no latency family"
case $(cat "$T/nolat.log") in *"take turns"*) ok 1 "memory_latency = no: nothing takes turns" ;;
	*) ok 0 "memory_latency = no: nothing takes turns" ;; esac
is "$(curl -s "http://127.0.0.1:$PORT/api/v1/status" | jq -c '.memory_latency')" \
	'{"setting":"no","left_out":[]}' "memory_latency = no: status says so, nothing left out by auto"
kill "$UPID"; wait "$UPID" 2>/dev/null

# local and remote from a [baseline]: one target with the clock
run loc "[baseline]
cha = UNC_CHA_CLOCKTICKS
  UNC_CHA_TOR_OCCUPANCY.IA_MISS:$L UNC_CHA_TOR_INSERTS.IA_MISS:$L"
near "$(lat loc 0 local)" 100e-9 0.01 "local (FILTER1 0x40432): 2.4e9 / 1.2e7 = 200 cycles = 100 ns"
is "$(grep -c 'target="all"\|target="remote"' "$T/loc.m1")" 0 "local only: no other target"
kill "$UPID"; wait "$UPID" 2>/dev/null
# every target at once: three occupancy events on counter 0 take turns,
# each with its own inserts; the clock counts with one of them and the
# others divide by its latest rate
run turns "[baseline]
cha = UNC_CHA_CLOCKTICKS
  UNC_CHA_TOR_OCCUPANCY.IA_MISS:$A UNC_CHA_TOR_INSERTS.IA_MISS:$A
  UNC_CHA_TOR_OCCUPANCY.IA_MISS:$L UNC_CHA_TOR_INSERTS.IA_MISS:$L
  UNC_CHA_TOR_OCCUPANCY.IA_MISS:$R UNC_CHA_TOR_INSERTS.IA_MISS:$R" 15
near "$(lat turns 0 all)" 150e-9 0.02 "all, in turn with them: still 150 ns on s0"
near "$(lat turns 1 local)" 100e-9 0.02 "local in turns: 100 ns"
near "$(lat turns 1 remote)" 200e-9 0.02 "remote in turns: 1.6e9 / 4e6 = 400 cycles = 200 ns"
is "$(metric "$T/turns.m1" uncored_baseline_groups "")" 4 \
	"the events that always count and three groups in turn on the CHAs"
kill "$UPID"; wait "$UPID" 2>/dev/null
tap_end
