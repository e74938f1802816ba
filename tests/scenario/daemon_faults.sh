#!/bin/sh
# daemon_faults.sh - injected faults: EIO on one counter (that series is
# marked, the others carry on), a foreign write to the global control
# (detected within a tick, counted, no garbage deltas), a stuck counter,
# and totals that stay monotonic and exact across many 32- and 44-bit
# wraps at high rates.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
cat >"$T/wl.json" <<'JSON'
{ "platform": "skl", "cbo_count": 4, "uclk_hz": 800000000,
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x8f": 4.0e14, "cbo:0x34:0x88": 4.0e13,
      "imc:DRAM_DATA_READS": 4.0e10, "imc:DRAM_DATA_WRITES": 1.0e9 } } ],
  "faults": [
    { "at": 1.0, "kind": "eio", "target": "msr:0x716", "count": 3 },
    { "at": 2.0, "kind": "foreign_write", "target": "msr:0xe01", "value": "0x0" },
    { "at": 2.5, "kind": "stuck", "target": "imc:DRAM_DATA_WRITES" } ] }
JSON
printf '[daemon]\ninterval_ms = 50\n' >"$T/c.conf"
start_uncored "$T/log" -c "$T/c.conf" --simulate --workload "$T/wl.json" \
	-l "127.0.0.1:$PORT" -s ""
ok $? "daemon up at 50 ms ticks"
prev=0; mono=0; n=0
for i in $(seq 1 12); do
	curl -s "http://127.0.0.1:$PORT/metrics" >"$T/m$i"
	v=$(metric "$T/m$i" uncore_llc_lookups_total 'socket="0"')
	awk -v a="$prev" -v b="$v" 'BEGIN { exit !(b + 0 >= a + 0) }' || mono=1
	prev=$v
	sleep 0.3
done
ok "$mono" "LLC lookups total never decreases across 12 scrapes"
m=$T/m12
wr=$(metric "$m" uncored_wraps_total "")
ok "$(awk -v w="$wr" 'BEGIN { exit !(w >= 100) }'; echo $?)" \
	"many counter wraps seen ($wr)"
# 44-bit CBo counters at 1e14/s per CBo wrap every 0.18 s; the 32-bit IMC
# counter at 4e10/s every 0.11 s.  The totals must still equal rate x time
# (less the ticks invalidated by the faults).
grep -q 'uncored_series_up{socket="0",unit="cbo",instance="1",event="UNC_CBO_CACHE_LOOKUP.ANY_MESI"} 1' "$m"
ok $? "CBo 1 counter 0 recovered after the EIO fault"
like "$(cat "$T/log")" "msr 0x716" "EIO logged with the register"
like "$(cat "$T/log")" "simulated eio fault" "with the cause"
e=$(metric "$m" uncored_hw_errors_total "")
is "$e" 3 "exactly the 3 injected errors counted"
i=$(metric "$m" uncored_interference_total "")
is "$i" 1 "the foreign write is counted once"
like "$(cat "$T/log")" "global control of socket 0 is 0x0" "interference logged with the value"
# Across a fault-free window (after the faults at 1-2.5 s) the total
# must grow by exactly rate x time although the 32-bit IMC counter wraps
# every 0.11 s and the 44-bit CBo counters every 0.18 s.
b1=$(metric "$T/m9" uncore_dram_read_bytes_total 'socket="0"')
b2=$(metric "$T/m12" uncore_dram_read_bytes_total 'socket="0"')
t1=$(metric "$T/m9" uncored_last_tick_timestamp_seconds "")
t2=$(metric "$T/m12" uncored_last_tick_timestamp_seconds "")
near "$(awk -v a="$b1" -v b="$b2" -v x="$t1" -v y="$t2" 'BEGIN { print (b - a) / 64 / (y - x) }')" \
	4.0e10 0.01 "DRAM reads grow at exactly 4e10/s across 32-bit wraps"
l1=$(metric "$T/m9" uncore_llc_lookups_total 'socket="0"')
l2=$(metric "$T/m12" uncore_llc_lookups_total 'socket="0"')
near "$(awk -v a="$l1" -v b="$l2" -v x="$t1" -v y="$t2" 'BEGIN { print (b - a) / (y - x) }')" \
	4.0e14 0.01 "LLC lookups grow at exactly 4e14/s across 44-bit wraps"
inv=$(metric "$m" uncored_invalid_samples_total "")
ok "$(awk -v v="$inv" 'BEGIN { exit !(v >= 4 && v <= 8) }'; echo $?)" \
	"invalid samples: first + 3 EIO + interference ($inv)"
w1=$(metric "$T/m10" uncore_dram_write_bytes_total 'socket="0"')
w2=$(metric "$T/m12" uncore_dram_write_bytes_total 'socket="0"')
is "$w1" "$w2" "stuck DRAM_DATA_WRITES adds nothing"
bw=$(metric "$m" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="write"')
is "$bw" "0.0" "and its bandwidth reads 0"
curl -s "http://127.0.0.1:$PORT/api/v1/samples?limit=3600" >"$T/s.json"
like "$(cat "$T/s.json")" '"interference":true' "the interference sample is flagged in the ring"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop after faults"
grep -E '^uncored_(wraps|invalid|hw_errors|interference)' "$m" | sed 's/^/# /'
tap_done
