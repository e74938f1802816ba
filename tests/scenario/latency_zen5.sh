#!/bin/sh
# latency_zen5.sh - uncore_memory_read_latency_seconds on the simulated
# EPYC Zen 5 (issue 41): the L3's sampled latency (amd_l3 0xAC, 10 ns a
# count: Linux amdzen5 recommended.json l3_read_miss_latency) over its
# sampled requests (0xAD), dram_near (umask 0x01) = target local,
# dram_far (0x02) = remote, all = both, summed over the CCXs first.
#   socket 0, CCX 0: local 6e7 counts/s over 1e6 requests/s (600 ns),
#   CCX 1: 1.2e8 over 6e6 (200 ns): sum then divide 1.8 / 7e6 = 257 ns
#   (the mean of per-CCX ratios would say 400 ns); remote 3e7 over 1e6
#   (300 ns); all (1.8 + 0.3) s/s over 8e6 = 262.5 ns.
# Decoys: umask 0x3f (fills from other CCXs' caches too) and near_cache
# 0x04, each another latency.
. "${top_srcdir:-.}/tests/lib.sh"

cat >"$T/wl.json" <<JSON
{ "platform": "zen5", "sockets": 1, "ccx_count": 2,
  "perf": { "kernel": "6.12.0" },
  "phases": [ { "seconds": 3600, "rates": {
    "l3:0xac:0x01@0": 6.0e7, "l3:0xad:0x01@0": 1.0e6,
    "l3:0xac:0x01@1": 1.2e8, "l3:0xad:0x01@1": 6.0e6,
    "l3:0xac:0x02": 3.0e7, "l3:0xad:0x02": 1.0e6,
    "l3:0xac:0x3f": 9.0e9, "l3:0xad:0x3f": 5.0e7,
    "l3:0xac:0x04": 5.0e9, "l3:0xad:0x04": 3.0e7,
    "l3:0x04:0xff": 1.0e8, "l3:0x04:0x01": 2.5e7
  } } ] }
JSON
PORT=$(pick_port)
start_uncored "$T/log" --simulate=zen5 --backend=perf --workload "$T/wl.json" \
	-i 200 -l "127.0.0.1:$PORT" -s ""
ok $? "daemon up on the simulated zen5"
rate_window "$PORT" 8
lat() {
	_l="socket=\"0\",target=\"$1\""
	awk -v s="$(rate uncore_memory_read_latency_seconds_sum "$_l")" \
	    -v c="$(rate uncore_memory_read_latency_seconds_count "$_l")" \
	    'BEGIN { if (c > 0) print s / c; else print "none" }'
}
near "$(lat local)" 257.142857e-9 0.01 "local (dram_near): 257 ns, summed over the CCXs then divided (not 400 ns)"
near "$(lat remote)" 300e-9 0.01 "remote (dram_far): 300 ns"
near "$(lat all)" 262.5e-9 0.01 "all: both DRAM targets, 262.5 ns (not the 0x3f umask's)"
near "$(rate uncore_memory_read_latency_seconds_count 'socket="0",target="all"')" 8.0e6 0.01 \
	"_count: the sampled requests, 8e6/s"
near "$(curl -s "http://127.0.0.1:$PORT/api/v1/metrics" | jq '.sockets[0].memory_read_latency_remote_seconds')" 300e-9 0.02 \
	"/api/v1/metrics: the last interval's remote mean"
near "$(metric "$T/m1" uncore_llc_hit_ratio 'socket="0"')" 0.75 0.01 "the LLC families unchanged"
kill "$UPID"; wait "$UPID" 2>/dev/null
tap_end
