#!/bin/sh
# daemon_faults.sh - injected faults: EIO on one counter (that series is
# marked, the others carry on), a foreign write to the global control
# (detected within a tick, counted, no garbage deltas), a counter reset
# by another agent (not read as a wrap: counted, no delta), a stuck
# counter, and totals that stay monotonic across 44-bit wraps and grow
# exactly at the workload's rates.
# On the perf backend (UNCORED_TEST_BACKEND=perf) the register faults
# have no meaning (the kernel owns the registers and accumulates 64-bit
# counts): the same workload meets the simulated kernel's faults instead
# - failed and short group reads, another perf user multiplexing a CBo,
# the stuck counter - and the same answers are asked of the daemon.
# Every rate is one the hardware can reach (the tables' bounds: skl
# 64 per cycle at 5 GHz per CBo counter, 1e9/s per IMC counter); the CBo
# counters start 6e10 short of 2^44 so that they wrap within the test.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
printf '[daemon]\ninterval_ms = 50\n' >"$T/c.conf"
# mono FILE: notes in $mono whether LLC lookups went down since the last
mono=0 prev=0
mono() {
	_v=$(metric "$1" uncore_llc_lookups_total 'socket="0"')
	awk -v a="$prev" -v b="$_v" 'BEGIN { exit !(b + 0 >= a + 0) }' || mono=1
	prev=$_v
}

# counted_in MA MB: the time the frozen counters counted between the
# ticks of scrapes MA and MB, and how well it is known: the sums of
# counted_s and counted_err_s of the samples after MA's tick up to MB's
# (doc/metrics.md, "The counting window"), as "SECONDS ERR".
counted_in() {
	curl -s "http://127.0.0.1:$PORT/api/v1/samples?limit=3600" >"$T/win.json"
	python3 - "$T/win.json" \
		"$(metric "$1" uncored_last_tick_timestamp_seconds "")" \
		"$(metric "$2" uncored_last_tick_timestamp_seconds "")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a, b = float(sys.argv[2]), float(sys.argv[3])
w = [s for s in d["samples"] if a < s["time"] <= b]
print("%.9f %.9f" % (sum(s["counted_s"] for s in w),
                     sum(s["counted_err_s"] for s in w)))
PY
}

# after_faults METRICS MIN WHAT: across the fault-free window (scrapes
# $T/ma to $T/mb, 100 ticks: 5 s) the totals grow by exactly rate x time,
# within 1 %.  The free-running DRAM counters count all the time.  The
# CBo counters stop while the tick reads them (the global freeze), and
# each tick's count is scaled from the time they counted to its interval
# (mux.c account(): est = delta x since / run, doc/metrics.md "The
# counting window"): their total's rate is over the ticks' timestamps
# too, known to within the counting windows' error, counted_err_s over
# counted_s.  (Dividing by counted_s instead read 1.5 % high under TSan
# at load 20, where ticks held the counters frozen 1.5 % of the time.)
# The invalid samples in METRICS are MIN to 10 (WHAT says which), and the
# stuck DRAM write counter adds nothing.
after_faults() {
	near "$(awk -v r="$(rate uncore_dram_read_bytes_total 'socket="0"' "$T/ma" "$T/mb")" \
		'BEGIN { print r / 64 }')" 9.0e8 0.01 "DRAM reads grow at exactly 9e8/s"
	set -- "$@" $(counted_in "$T/ma" "$T/mb")
	near "$(rate uncore_llc_lookups_total 'socket="0"' "$T/ma" "$T/mb")" \
		1.2e12 "$(awk -v t="$4" -v e="$5" 'BEGIN { print 0.01 + e / t }')" \
		"LLC lookups grow at exactly 1.2e12/s after the faults (over the ticks' timestamps; counted_s $4 s, err $5 s)"
	inv=$(metric "$1" uncored_invalid_samples_total "")
	ok "$(awk -v v="$inv" -v min="$2" 'BEGIN { exit !(v >= min && v <= 10) }'; echo $?)" \
		"invalid samples: $3 ($inv)"
	w1=$(metric "$T/ma" uncore_dram_write_bytes_total 'socket="0"')
	w2=$(metric "$T/mb" uncore_dram_write_bytes_total 'socket="0"')
	is "$w1" "$w2" "stuck DRAM_DATA_WRITES adds nothing"
	bw=$(metric "$1" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="write"')
	is "$bw" "0.0" "and its bandwidth reads 0"
}

# perf_faults: the simulated kernel's faults (sim_kernel.c): 3 reads of
# CBo 1's group fail with EIO, one read of CBo 2's is short, another
# perf user takes CBo 3's counters half the time for 2 s, and the stuck
# DRAM write counter (the kernel reads the same register).
perf_faults() {
	cat >"$T/wl.json" <<'JSON'
{ "platform": "skl", "cbo_count": 4, "uclk_hz": 800000000,
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x8f": 1.2e12, "cbo:0x34:0x88": 1.2e11,
      "imc:DRAM_DATA_READS": 9.0e8, "imc:DRAM_DATA_WRITES": 1.0e8 } } ],
  "faults": [
    { "at": 1.0, "kind": "perf_read_error", "target": "uncore_cbox_1", "errno": "EIO", "count": 3 },
    { "at": 1.5, "kind": "short_read", "target": "uncore_cbox_2" },
    { "at": 0.5, "kind": "perf_contention", "target": "uncore_cbox_3", "running": 0.5, "seconds": 2.0 },
    { "at": 2.5, "kind": "stuck", "target": "imc:DRAM_DATA_WRITES" } ] }
JSON
	t_start=$(date +%s.%N)	# before the daemon, so before the simulation
	start_uncored "$T/log" -c "$T/c.conf" --simulate --workload "$T/wl.json" \
		-l "127.0.0.1:$PORT" -s ""
	ok $? "daemon up at 50 ms ticks on the simulated kernel"
	wait_for "a first sample" 30 ring_has "$PORT" 1
	# the simulated machine started before the daemon's first tick
	t0=$(metric_now "$PORT" uncored_last_tick_timestamp_seconds "")
	for i in $(seq 1 12); do
		wait_samples "$PORT" 6
		scrape "$PORT" "$T/m$i"
		mono "$T/m$i"
	done
	wait_for "the 4 failed reads counted" 30 \
		metric_ge "$PORT" uncored_perf_read_errors_total "" 4
	wait_for "a tick 2.6 s after the first (past the last fault)" 30 \
		metric_ge "$PORT" uncored_last_tick_timestamp_seconds "" \
		"$(awk -v t="$t0" 'BEGIN { printf "%.6f", t + 2.6 }')"
	wait_samples "$PORT" 2
	scrape "$PORT" "$T/ma"
	mono "$T/ma"
	wait_samples "$PORT" 100
	scrape "$PORT" "$T/mb"
	mono "$T/mb"
	ok "$mono" "LLC lookups total never decreases across 14 scrapes"
	m=$T/mb
	grep -q 'uncored_series_up{socket="0",unit="cbo",box="1",event="UNC_CBO_CACHE_LOOKUP.ANY_MESI"} 1' "$m"
	ok $? "CBo 1 counter 0 recovered after the failed reads"
	like "$(cat "$T/log")" "reading cbo (uncore_cbox_1 on CPU 0)" \
		"the failed read logged with the unit, its PMU and CPU"
	like "$(grep 'uncore_cbox_1 on CPU 0' "$T/log")" "Input/output error" \
		"and the errno"
	is "$(metric "$m" uncored_perf_read_errors_total "")" 4 \
		"exactly the 3 failed and 1 short reads counted"
	n=$(metric "$m" uncored_perf_multiplexed_reads_total "")
	# The simulation's clock starts when the daemon opens the machine,
	# not at its first tick: on a loaded machine the contention (0.5 to
	# 2.5 s) can be over before the daemon reads at all, and then there
	# was no multiplexing to count.  Asserted when the first sample came
	# within 1.5 s of the start (a second of 50 ms ticks inside it).
	if awk -v a="$t_start" -v b="$t0" 'BEGIN { exit !(b - a < 1.5) }'; then
		ok "$([ "${n:-0}" -gt 0 ]; echo $?)" \
			"the other perf user's multiplexing counted ($n reads)"
	else
		skip "the other perf user's multiplexing counted" \
			"the first sample came $(awk -v a="$t_start" -v b="$t0" 'BEGIN { printf "%.1f", b - a }') s after the start, near the contention's end ($n reads)"
	fi
	is "$(metric "$m" uncored_interference_total "")" 0 \
		"no interference: nothing to compare in perf mode"
	after_faults "$m" 4 "first + 3 failed + 1 short read"
	kill -TERM "$UPID"; wait "$UPID"
	is "$?" 0 "clean stop after faults"
	grep -E '^uncored_(invalid|perf_)' "$m" | sed 's/^/# /'
	tap_end
}
perf_mode && perf_faults

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
start_uncored "$T/log" -c "$T/c.conf" --simulate --workload "$T/wl.json" \
	-l "127.0.0.1:$PORT" -s ""
ok $? "daemon up at 50 ms ticks"
# A page every 6 ticks (0.3 s) through the wraps and the faults.
for i in $(seq 1 12); do
	wait_samples "$PORT" 6
	scrape "$PORT" "$T/m$i"
	mono "$T/m$i"
done
# A window after the last fault (the stuck counter at 2.5 s): the reset
# at 2.2 s is counted by a tick at simulated time 2.2 s or later, so a
# tick 0.4 s (the daemon's clock) after that one is past 2.5 s.
wait_for "the counter reset counted" 30 has "$T/log" "cbo 0 on socket 0 counter 0 advanced by"
t_reset=$(metric_now "$PORT" uncored_last_tick_timestamp_seconds "")
wait_for "a tick 0.4 s after the reset was counted" 30 \
	metric_ge "$PORT" uncored_last_tick_timestamp_seconds "" \
	"$(awk -v t="$t_reset" 'BEGIN { printf "%.6f", t + 0.4 }')"
scrape "$PORT" "$T/ma"
mono "$T/ma"
wait_samples "$PORT" 100
scrape "$PORT" "$T/mb"
mono "$T/mb"
ok "$mono" "LLC lookups total never decreases across 14 scrapes"
m=$T/mb
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
# The foreign write of 0 to the global control at 2.0 s is seen when it
# lands while the counters count.  One that lands inside a tick's freeze,
# when the global control is 0 anyway, is undone by the unfreeze and
# changed nothing - on hardware as here, nothing can see it (as
# interference_window.sh allows for).  Under TSan the frozen reads take a
# good part of the 50 ms interval: CI saw it land there.
if has "$T/log" "global control of socket 0 is 0x0"; then
	is "$i" 2 "the foreign write and the counter reset are counted once each"
	ok 0 "interference logged with the value"
else
	is "$i" 1 "the counter reset counted once (the foreign write landed inside a freeze)"
	skip "interference logged with the value" \
		"the foreign write of 0 landed inside a freeze: no effect to see"
fi
like "$(cat "$T/log")" "cbo 0 on socket 0 counter 0 advanced by" \
	"the reset is logged as interference, naming the counter"
like "$(cat "$T/log")" "more than its maximum rate (3.2e+11/s)" "with the bound"
# Across the fault-free window (20 ticks after the last fault) the
# totals must grow by exactly rate x time.
# The invalid samples: at least the first, one for the EIO and one for
# the interference.  The 3 EIO reads and the 2 interference writes 0.2 s
# apart fall in fewer samples when ticks stall (the fresh-root run, TSan
# at load 25: 3 invalid samples, where the bound was 3 + 2), so which
# samples say what is checked in the ring below, not by counting them.
after_faults "$m" 3 "first + EIO + interference"
curl -s "http://127.0.0.1:$PORT/api/v1/samples?limit=3600" >"$T/s.json"
kinds=$(python3 - "$T/s.json" <<'PY2'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [s for s in d["samples"] if not s["valid"]]
print(sum(1 for s in bad if s.get("first")),
      sum(1 for s in bad if not s.get("first") and not s.get("interference")),
      sum(1 for s in bad if s.get("interference")))
PY2
)
set -- $kinds
ok "$([ "${1:-0}" -le 1 ] && [ "${2:-0}" -ge 1 ] && [ "${2:-0}" -le 3 ] && [ "${3:-0}" -ge 1 ]; echo $?)" \
	"the ring's invalid samples: first $1, read errors $2 (1-3 for 3 EIO), interference $3 (at least 1)"
like "$(cat "$T/s.json")" '"interference":true' "the interference sample is flagged in the ring"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop after faults"
grep -E '^uncored_(wraps|invalid|hw_errors|interference)' "$m" | sed 's/^/# /'
tap_done
