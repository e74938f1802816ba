#!/bin/sh
# daemon_faults.sh - injected faults: EIO on one counter (that series is
# marked, the others carry on), a foreign write to the global control
# (detected within a tick, counted, no garbage deltas), a counter reset
# by another agent (not read as a wrap: counted, no delta), a stuck
# counter, and totals that stay monotonic across 44-bit wraps and grow
# exactly at the workload's rates.
# Every rate is one the hardware can reach (the tables' bounds: skl
# 64 per cycle at 5 GHz per CBo counter, 1e9/s per IMC counter); the CBo
# counters start 6e10 short of 2^44 so that they wrap within the test.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
pre=0xff207b8a800
cat >"$T/wl.json" <<JSON
{ "platform": "skl", "cbo_count": 4, "uclk_hz": 800000000,
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x8f": 1.2e12, "cbo:0x34:0x88": 1.2e11,
      "imc:DRAM_DATA_READS": 9.0e8, "imc:DRAM_DATA_WRITES": 1.0e8 } } ],
  "faults": [
    { "at": 0.0, "kind": "foreign_write", "target": "msr:0x706", "value": "$pre" },
    { "at": 0.0, "kind": "foreign_write", "target": "msr:0x716", "value": "$pre" },
    { "at": 0.0, "kind": "foreign_write", "target": "msr:0x726", "value": "$pre" },
    { "at": 0.0, "kind": "foreign_write", "target": "msr:0x736", "value": "$pre" },
    { "at": 1.0, "kind": "eio", "target": "msr:0x716", "count": 3 },
    { "at": 2.0, "kind": "foreign_write", "target": "msr:0xe01", "value": "0x0" },
    { "at": 2.2, "kind": "foreign_write", "target": "msr:0x706", "value": "0x0" },
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
ok "$(awk -v w="$wr" 'BEGIN { exit !(w >= 4) }'; echo $?)" \
	"the four preset CBo counters wrapped ($wr)"
# The 44-bit CBo counters at 3e11/s wrap 0.2 s after the start.  The
# totals must still equal rate x time (less the ticks invalidated by the
# faults).
grep -q 'uncored_series_up{socket="0",unit="cbo",box="1",event="UNC_CBO_CACHE_LOOKUP.ANY_MESI"} 1' "$m"
ok $? "CBo 1 counter 0 recovered after the EIO fault"
like "$(cat "$T/log")" "msr 0x716" "EIO logged with the register"
like "$(cat "$T/log")" "simulated eio fault" "with the cause"
e=$(metric "$m" uncored_hw_errors_total "")
is "$e" 3 "exactly the 3 injected errors counted"
i=$(metric "$m" uncored_interference_total "")
is "$i" 2 "the foreign write and the counter reset are counted once each"
like "$(cat "$T/log")" "global control of socket 0 is 0x0" "interference logged with the value"
like "$(cat "$T/log")" "cbo 0 on socket 0 counter 0 advanced by" \
	"the reset is logged as interference, naming the counter"
like "$(cat "$T/log")" "more than its maximum rate (3.2e+11/s)" "with the bound"
# Across a fault-free window (after the faults at 1-2.5 s) the totals
# must grow by exactly rate x time.
b1=$(metric "$T/m9" uncore_dram_read_bytes_total 'socket="0"')
b2=$(metric "$T/m12" uncore_dram_read_bytes_total 'socket="0"')
t1=$(metric "$T/m9" uncored_last_tick_timestamp_seconds "")
t2=$(metric "$T/m12" uncored_last_tick_timestamp_seconds "")
near "$(awk -v a="$b1" -v b="$b2" -v x="$t1" -v y="$t2" 'BEGIN { print (b - a) / 64 / (y - x) }')" \
	9.0e8 0.01 "DRAM reads grow at exactly 9e8/s"
l1=$(metric "$T/m9" uncore_llc_lookups_total 'socket="0"')
l2=$(metric "$T/m12" uncore_llc_lookups_total 'socket="0"')
near "$(awk -v a="$l1" -v b="$l2" -v x="$t1" -v y="$t2" 'BEGIN { print (b - a) / (y - x) }')" \
	1.2e12 0.01 "LLC lookups grow at exactly 1.2e12/s after the faults"
inv=$(metric "$m" uncored_invalid_samples_total "")
ok "$(awk -v v="$inv" 'BEGIN { exit !(v >= 5 && v <= 10) }'; echo $?)" \
	"invalid samples: first + 3 EIO + 2 interference ($inv)"
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
