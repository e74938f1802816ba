#!/bin/sh
# latency_hsx.sh - uncore_memory_read_latency_seconds on the simulated
# Xeon E5 v3 (issue 41), with known answers and decoys.  Manual 331051
# 2.3.5 AVG_TOR_DRD_MISS_LATENCY = TOR_OCCUPANCY.MISS_OPCODE /
# TOR_INSERTS.MISS_OPCODE with Cn_MSR_PMON_BOX_FILTER1.opc = 0x182; the
# clock of one CBo is UCLK (the UBox fixed counter), per interval.
#   socket 0: 4 CBos with uneven rates: inserts 1, 2, 3, 4 e6/s, latency
#             100, 200, 300, 400 cycles at 2 GHz: sum then divide says
#             300 cycles = 150 ns and 1.5 reads in flight (the mean of
#             per-box ratios would say 125 ns);
#   socket 1: even rates, 400 cycles = 200 ns, 4 in flight.
# Decoys on the neighbouring encodings, each another rate: the unfiltered
# opcode (FILTER1 0), RFO's opcode 0x180, the OPCODE umask (hits too,
# 0x01), MISS_ALL (0x0a), NID_MISS_OPCODE (0x43).  Then local and remote
# (MISS_LOCAL_OPCODE 0x23 / MISS_REMOTE_OPCODE 0x83 under the same
# filter) from a [baseline] that counts all three targets: their
# occupancy events all need counter 0, so the three take turns and each
# target's latency comes from one group's turns only.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/latency.sh"

F=filter1=0x18200000
cat >"$T/wl.json" <<JSON
{ "platform": "hsx", "sockets": 2, "cbo_count": 4, "imc_channels": 2,
  "qpi_ports": 2, "uclk_hz": 2000000000,
  "phases": [ { "seconds": 3600, "rates": {
$(uneven_rates "cbo:0x35:0x03:$F" "cbo:0x36:0x03:$F")
    "cbo:0x35:0x23:$F": 1.2e7, "cbo:0x36:0x23:$F": 2.4e9,
    "cbo:0x35:0x83:$F": 4.0e6, "cbo:0x36:0x83:$F": 1.6e9,
    "cbo:0x35:0x03:filter1=0x0": 9.0e8, "cbo:0x36:0x03:filter1=0x0": 5.0e10,
    "cbo:0x35:0x03:filter1=0x18000000": 7.0e7,
    "cbo:0x36:0x03:filter1=0x18000000": 3.0e10,
    "cbo:0x35:0x01:$F": 5.0e8, "cbo:0x36:0x01:$F": 6.0e9,
    "cbo:0x35:0x0a:$F": 6.0e7, "cbo:0x36:0x0a:$F": 7.0e9,
    "cbo:0x35:0x43:$F": 3.0e7, "cbo:0x36:0x43:$F": 4.0e9,
    "s0/imc:0x04:0x03": 1.25e8, "s1/imc:0x04:0x03": 2.5e8
  } } ] }
JSON

# run NAME [CONF] [SAMPLES]: the daemon on the workload (tests/latency.sh)
run() {
	lat_run "$1" "${2:-}" "${3:-8}" --simulate=hsx --workload "$T/wl.json"
}

run def
m=$T/def.m1
like "$(grep '^# TYPE uncore_memory_read_latency_seconds ' "$m")" "summary" \
	"uncore_memory_read_latency_seconds is a summary"
is "$(grep -c '^uncore_memory_read_latency_seconds{' "$m")" 0 \
	"no quantiles, no bare samples"
near "$(lat def 0 all)" 150e-9 0.01 \
	"s0: 150 ns = sum of occupancy / sum of inserts / 2 GHz (not 125 ns, the mean of per-box ratios)"
near "$(rate uncore_memory_read_latency_seconds_sum 'socket="0",target="all"' "$T/def.m0" "$T/def.m1")" 1.5 0.01 \
	"s0: rate(_sum) = 1.5 reads in flight"
near "$(rate uncore_memory_read_latency_seconds_count 'socket="0",target="all"' "$T/def.m0" "$T/def.m1")" 1.0e7 0.01 \
	"s0: rate(_count) = 1e7 reads/s"
near "$(lat def 1 all)" 200e-9 0.01 "s1: 200 ns, its own CBos"
near "$(rate uncore_memory_read_latency_seconds_sum 'socket="1",target="all"' "$T/def.m0" "$T/def.m1")" 4.0 0.01 \
	"s1: 4 reads in flight"
is "$(grep -c 'target="local"\|target="remote"' "$m")" 0 \
	"the default baseline counts target=\"all\" only (counter 0 holds one occupancy event)"
j=$(cat "$T/def.json")
near "$(echo "$j" | jq '.sockets[0].memory_read_latency_all_seconds')" 150e-9 0.02 \
	"/api/v1/metrics: the last interval's mean, 150 ns"
near "$(echo "$j" | jq '.sockets[1].memory_reads_in_flight_all')" 4.0 0.02 \
	"/api/v1/metrics: reads in flight, 4"
ok "$(echo "$j" | jq -e '.sockets[0].memory_read_latency_all_seconds_sum > 0 and .sockets[0].memory_read_latency_all_seconds_count > 0' >/dev/null; echo $?)" \
	"/api/v1/metrics carries _sum and _count"
is "$(grep -c '^uncore_memory_read_latency_mean_seconds\|^uncore_memory_reads_in_flight' "$m")" 0 \
	"the interval mean is JSON only (Prometheus takes rate(_sum)/rate(_count))"
# counter 0 of every CBo holds the occupancy
t=$(jq -c '[.sockets[].units[] | select(.unit == "cbo") | .instance_list[] | .counters[0].event] | unique' "$T/def.topo" 2>/dev/null)
is "$t" '["UNC_C_TOR_OCCUPANCY.MISS_OPCODE:filter1=0x18200000"]' \
	"counter 0 of every CBo holds TOR_OCCUPANCY.MISS_OPCODE with opc 0x182"
# issue 41 §2: the latency families are never silently displaced: a
# pinned claim that needs counter 0 is refused, naming the holder
PINOCC='{"events":["UNC_C_TOR_OCCUPANCY.ALL"],"pinned":true}'
PIN3='{"events":["UNC_C_CLOCKTICKS","UNC_C_LLC_VICTIMS.M_STATE","UNC_C_LLC_VICTIMS.E_STATE"],"pinned":true}'
is "$(ctl_code "$T/def.sock" -X POST http://x/api/v1/claims -d "$PINOCC")" 409 \
	"a pinned claim of a counter-0 event: 409 beside the latency family"
like "$(cat "$T/body")" "TOR_OCCUPANCY.MISS_OPCODE" "the refusal names the baseline's occupancy event on counter 0"
is "$(ctl_code "$T/def.sock" -X POST http://x/api/v1/claims -d "$PIN3")" 409 \
	"a pinned claim of 3 CBo events: 409 (the family holds 2 of the 4 counters)"
kill "$UPID"; wait "$UPID" 2>/dev/null

# [baseline] memory_latency = no gives counter 0 back
run nolat "[baseline]
memory_latency = no"
is "$(grep -c '^uncore_memory_read_latency' "$T/nolat.m1")" 0 \
	"memory_latency = no: no latency family"
t=$(jq -c '[.sockets[].units[] | select(.unit == "cbo") | .instance_list[] | .counters[0].event] | unique' "$T/nolat.topo" 2>/dev/null)
case $t in *TOR_OCCUPANCY*) ok 1 "counter 0 of the CBos is free of the occupancy ($t)" ;;
	   *) ok 0 "counter 0 of the CBos is free of the occupancy" ;; esac
is "$(ctl_code "$T/nolat.sock" -X POST http://x/api/v1/claims -d "$PIN3")" 201 \
	"and a pinned claim of 3 CBo events is admitted"
# (counter 0 itself still holds the baseline's split LLC lookups here:
# a pinned counter-0 event is refused naming them, not the family)
is "$(ctl_code "$T/nolat.sock" -X POST http://x/api/v1/claims -d "$PINOCC")" 409 \
	"a pinned counter-0 event: still 409 (3 pinned of 4 taken now)"
kill "$UPID"; wait "$UPID" 2>/dev/null

# every target: the occupancy events take turns on counter 0
# (a [baseline] list takes modifiers, and continuation lines)
run turns "[baseline]
cbo = UNC_C_TOR_OCCUPANCY.MISS_OPCODE:$F UNC_C_TOR_INSERTS.MISS_OPCODE:$F
  UNC_C_TOR_OCCUPANCY.MISS_LOCAL_OPCODE:$F UNC_C_TOR_INSERTS.MISS_LOCAL_OPCODE:$F
  UNC_C_TOR_OCCUPANCY.MISS_REMOTE_OPCODE:$F UNC_C_TOR_INSERTS.MISS_REMOTE_OPCODE:$F" 15
# local: 2.4e9 / 1.2e7 = 200 cycles = 100 ns; remote 1.6e9 / 4e6 = 400 = 200 ns
near "$(lat turns 0 local)" 100e-9 0.02 "local (MISS_LOCAL_OPCODE): 100 ns"
near "$(lat turns 0 remote)" 200e-9 0.02 "remote (MISS_REMOTE_OPCODE): 200 ns"
near "$(lat turns 1 all)" 200e-9 0.02 "all, in turn with them: still 200 ns on s1"
is "$(metric "$T/turns.m1" uncored_baseline_groups "")" 4 \
	"the events that always count, and three groups taking turns on the CBos"
like "$(cat "$T/turns.log")" "6 of its 25 events do not fit their counters together and take turns, 3 groups" \
	"the log says the six TOR events take turns"
kill "$UPID"; wait "$UPID" 2>/dev/null
tap_end
