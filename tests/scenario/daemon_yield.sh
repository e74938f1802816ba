#!/bin/sh
# daemon_yield.sh - interference_policy = yield: on interference the daemon
# stops writing the PMU (pmu_owned 0, no more hardware writes), keeps
# serving the free-running IMC counters, stays away while another agent
# has counters enabled, and takes the PMU back once it is idle again.
. "${top_srcdir:-.}/tests/lib.sh"
direct_only "yielding to another agent's register programming (in perf mode the kernel arbitrates the PMU)"

PORT=$(pick_port)
cat >"$T/wl.json" <<'JSON'
{ "platform": "skl", "cbo_count": 4,
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x8f": 1.0e8, "cbo:0x34:0x88": 1.0e7,
      "imc:DRAM_DATA_READS": 1.0e8 } } ] }
JSON
printf '[daemon]\ninterval_ms = 100\ninterference_policy = yield\ninterference_check_ticks = 5\n' >"$T/c.conf"
SIM() { "$UNCORE_SIM" -w "$T/wl.json" -s "$T/state" "$@"; }
start_uncored "$T/log" -c "$T/c.conf" --simulate --workload "$T/wl.json" \
	--sim-state "$T/state" -l "127.0.0.1:$PORT" -s ""
ok $? "daemon up with interference_policy = yield"
wait_for "2 samples" 60 ring_has "$PORT" 2
# Another agent takes the PMU: programs CBo 0 counter 0 its own way and
# keeps the global enable on.  The full check every 5 ticks finds it.
SIM write msr:0x700 0x402234
wait_for "the daemon to yield the PMU" 30 metric_is "$PORT" uncored_pmu_owned "" 0
scrape "$PORT" "$T/a"
is "$(metric "$T/a" uncored_interference_total "")" 1 \
	"a changed event select is found by the periodic full check"
is "$(metric "$T/a" uncored_pmu_owned "")" 0 "yielded: uncored_pmu_owned 0"
like "$(cat "$T/log")" "msr 0x700 on cpu 0 = 0x402234" "the changed register is logged"
w0=$(metric "$T/a" uncored_hw_writes_total "")
wait_samples "$PORT" 10	# a second of ticks while yielded
scrape "$PORT" "$T/b"
is "$(metric "$T/b" uncored_hw_writes_total "")" "$w0" "no hardware writes while yielded"
is "$(SIM read msr:0x700)" 0x402234 "the other agent's programming is left alone"
r0=$(metric "$T/a" uncore_dram_read_bytes_total 'socket="0"')
r1=$(metric "$T/b" uncore_dram_read_bytes_total 'socket="0"')
ok "$(awk -v a="$r0" -v b="$r1" 'BEGIN { exit !(b > a) }'; echo $?)" \
	"free-running DRAM counters keep counting while yielded"
grep -q '^uncore_llc_hit_ratio' "$T/b"
ok "$((! $?))" "no LLC gauge from counters the daemon does not hold"
# The other agent finishes: clears its registers.
SIM write msr:0x700 0
SIM write msr:0xe01 0
wait_for "the daemon to reclaim the PMU" 30 metric_is "$PORT" uncored_pmu_owned "" 1
scrape "$PORT" "$T/c"
is "$(metric "$T/c" uncored_pmu_owned "")" 1 "idle again: the daemon reclaims the PMU"
like "$(cat "$T/log")" "idle again: reclaiming it" "reclaim logged"
wait_samples "$PORT" 3	# a whole interval with the baseline programmed again
scrape "$PORT" "$T/d"
near "$(metric "$T/d" uncore_llc_hit_ratio 'socket="0"')" 0.9 0.01 "LLC hit ratio is back"
is "$(SIM read msr:0xe01)" 0x20000000 "global control re-enabled"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
tap_done
