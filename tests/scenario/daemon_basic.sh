#!/bin/sh
# daemon_basic.sh - the real daemon on the simulator against a workload
# with known answers: derived metrics within 1 %, exposition checked by
# promtool, every read-only route, the control socket, SIGHUP reload and a
# clean SIGTERM that leaves every control register at zero.  On the perf
# backend (UNCORED_TEST_BACKEND=perf) the same answers through the
# simulated kernel: one read(2) per group per tick instead of the
# register reads, and no event left open after SIGTERM.
. "${top_srcdir:-.}/tests/lib.sh"
BACKEND=direct
perf_mode && BACKEND=perf

PORT=$(pick_port)
cat >"$T/wl.json" <<'JSON'
{ "platform": "skl", "cbo_count": 4, "uclk_hz": 800000000,
  "mchbar": "0xfed10001",
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x8f": 2.0e8, "cbo:0x34:0x88": 2.0e7,
      "arb:0x81:0x01": 5.0e7, "arb:0x80:0x01": 4.0e9,
      "imc:DRAM_DATA_READS": 1.5e8, "imc:DRAM_DATA_WRITES": 5.0e7,
      "imc:DRAM_IA_REQUESTS": 1.0e8, "imc:DRAM_GT_REQUESTS": 6.0e7,
      "imc:DRAM_IO_REQUESTS": 4.0e7 } } ] }
JSON
printf '[daemon]\ninterval_ms = 200\n' >"$T/uncored.conf"
notify_start
start_uncored "$T/log" -c "$T/uncored.conf" --simulate --workload "$T/wl.json" \
	--sim-state "$T/state" -l "127.0.0.1:$PORT" -s "$T/ctl.sock"
ok $? "daemon starts and answers /healthz"
wait_for "6 samples" 60 ring_has "$PORT" 6

curl -s -D "$T/hdr" "http://127.0.0.1:$PORT/metrics" >"$T/m"
like "$(cat "$T/hdr")" "Content-Type: text/plain; version=0.0.4; charset=utf-8" \
	"metrics content type is text 0.0.4"
near "$(metric "$T/m" uncore_llc_hit_ratio 'socket="0"')" 0.9 0.01 "LLC hit ratio 0.9"
near "$(metric "$T/m" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" \
	9.6e9 0.01 "DRAM read bandwidth 9.6 GB/s"
near "$(metric "$T/m" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="write"')" \
	3.2e9 0.01 "DRAM write bandwidth 3.2 GB/s"
near "$(metric "$T/m" uncore_clock_hertz 'socket="0"')" 8e8 0.01 "uncore clock 800 MHz"
near "$(metric "$T/m" uncore_arb_occupancy_average 'socket="0"')" 5 0.01 \
	"ARB average occupancy 4e9/8e8 = 5"
ticks=$(metric "$T/m" uncored_ticks_total "")
ok "$([ "${ticks:-0}" -ge 6 ]; echo $?)" "sampler ticked ($ticks ticks)"
# every tick a whole interval: the samples' interval_s (the daemon's own
# measure) are 200 ms, as configured.  Their mean over 10 samples: a tick
# the machine holds up is followed by one that catches up on the timer's
# grid (under load 20 the median of 5 was 0.174 s); 25 % still tells
# 200 ms from the default 1 s or a 100 ms tick.
wait_for "11 samples in the ring" 60 ring_has "$PORT" 11
iv=$(curl -s "http://127.0.0.1:$PORT/api/v1/samples?limit=10&deltas=0" |
	grep -o '"interval_s":[0-9.e+-]*' | sed 's/.*://' |
	awk '{ s += $1; n++ } END { if (n == 10) printf "%.4f", s / n }')
near "$iv" 0.2 0.25 "the sampler ticks every 200 ms (mean interval of 10 samples: $iv s)"
# Totals: lookups per CBo instance, summed over 4 CBos = the socket total.
sum=$(awk '/^uncore_event_total\{.*event="UNC_CBO_CACHE_LOOKUP.ANY_MESI"/ { s += $2 } END { print s }' "$T/m")
is "$sum" "$(metric "$T/m" uncore_llc_lookups_total 'socket="0"')" \
	"llc_lookups_total is the sum of the per-CBo events"
for fam in uncore_llc_lookups_total uncore_llc_misses_total uncore_dram_read_bytes_total \
	uncore_dram_write_bytes_total uncore_dram_requests_total uncore_clock_ticks_total \
	uncore_event_total uncored_build_info uncored_hw_reads_total uncored_hw_writes_total \
	uncored_interference_total uncored_wraps_total uncored_ring_capacity \
	uncored_scrapes_total uncored_tick_duration_seconds process_cpu_seconds_total \
	process_resident_memory_bytes process_open_fds process_start_time_seconds; do
	grep -q "^# TYPE $fam " "$T/m"; ok $? "family $fam has HELP/TYPE"
done
near "$(metric "$T/m" uncore_dram_requests_total 'socket="0",source="gt"')" \
	"$(awk -v t="$(metric "$T/m" uncore_dram_requests_total 'socket="0",source="ia"')" 'BEGIN { print t * 0.6 }')" \
	0.02 "requests by source: gt/ia = 0.6"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$T/m" 2>&1); rc=$?
	is "$rc:$out" "0:" "promtool check metrics reports nothing"
else
	skip "promtool check metrics" "promtool not installed"
fi

# reads per tick: one per counter + global check + freeze/unfreeze
reads=uncored_hw_reads_total
perf_mode && reads=uncored_perf_group_reads_total
r0=$(metric "$T/m" $reads ""); t0=$(metric "$T/m" uncored_ticks_total "")
wait_samples "$PORT" 10
scrape "$PORT" "$T/m2"
r1=$(metric "$T/m2" $reads ""); t1=$(metric "$T/m2" uncored_ticks_total "")
per=$(awk -v a="$r0" -v b="$r1" -v x="$t0" -v y="$t1" 'BEGIN { printf "%.2f", (b - a) / (y - x) }')
if perf_mode; then
	# one read(2) per group per tick (issue 21 item 3), and no register
	# access at all
	groups=$(metric "$T/m2" uncored_perf_groups "")
	ok "$([ "${groups:-0}" -gt 0 ]; echo $?)" "perf: $groups groups open"
	is "$per" "$groups.00" "perf: one group read per group per tick"
	is "$(metric "$T/m2" uncored_hw_reads_total "")" 0 "perf: no register read"
else
	# 16 counters + 1 global read + the 11 controls of the counters
	# that counted, read back every tick (issue 19: doc/performance.md)
	near "$per" 28 0.08 "hardware reads per tick ~ counters + 1 + their controls"
fi

curl -s -D "$T/hdr" -H 'Accept: application/openmetrics-text; version=1.0.0' \
	"http://127.0.0.1:$PORT/metrics" >"$T/om"
like "$(cat "$T/hdr")" "application/openmetrics-text; version=1.0.0" "OpenMetrics on request"
is "$(tail -1 "$T/om")" "# EOF" "OpenMetrics ends with # EOF"

# JSON routes
st=$(curl -s "http://127.0.0.1:$PORT/api/v1/status")
like "$st" '"platform":"skl"' "status: platform"
like "$st" "\"backend\":\"$BACKEND\",\"simulated\":true" "status: backend"
like "$st" '"interval_ms":200' "status: interval"
like "$st" '"owned":true' "status: ownership"
like "$(curl -s "http://127.0.0.1:$PORT/api/v1/topology")" '"event":"UNC_ARB_TRK_OCCUPANCY.ALL"' \
	"topology shows which event holds each counter"
like "$(curl -s "http://127.0.0.1:$PORT/api/v1/events?unit=arb&q=occupancy")" \
	'"name":"UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST"' "events filtered by unit and q"
is "$(curl -s "http://127.0.0.1:$PORT/api/v1/events?unit=arb" | grep -o '"name":"UNC_CBO' | head -1)" "" \
	"events ?unit=arb has no CBo events"
smp=$(curl -s "http://127.0.0.1:$PORT/api/v1/samples?limit=2")
is "$(echo "$smp" | grep -o '"seq":' | wc -l)" 2 "samples?limit=2 gives two samples"
like "$smp" '"event":"DRAM_DATA_READS","delta":' "samples carry per-event deltas"
head=$(echo "$smp" | sed 's/.*"head":\([0-9]*\).*/\1/')
smp=$(curl -s "http://127.0.0.1:$PORT/api/v1/samples?since=$((head - 1))&limit=1")
is "$(echo "$smp" | grep -o '"seq":[0-9]*' | tr '\n' ' ')" "\"seq\":$head " \
	"samples?since=head-1&limit=1 gives exactly sample head"
# jnum JSON KEY: the (last) number KEY has in JSON
jnum() { echo "$1" | sed "s/.*\"$2\":\([0-9.e+-]*\).*/\1/"; }
am=$(curl -s "http://127.0.0.1:$PORT/api/v1/metrics")
near "$(jnum "$am" llc_hit_ratio)" 0.9 0.01 "api/v1/metrics: hit ratio"
# JSON numbers are the shortest text that reads back (0.6, not
# 0.59999999999999998), as Prometheus' Go exposition writes them
for r in metrics status topology; do
	curl -s -o "$T/$r.json" "http://127.0.0.1:$PORT/api/v1/$r"
	long=$(json_long_numbers "$T/$r.json")
	is "$(echo "$long" | grep -c .)" 0 "api/v1/$r: every number shortest$(echo "$long" | head -3 | tr '\n' ' ')"
done
near "$(jnum "$am" dram_read_bytes_per_second)" 9.6e9 0.01 "api/v1/metrics: DRAM read bandwidth"
like "$(curl -s "http://127.0.0.1:$PORT/healthz")" '"status":"ok"' "healthz ok"
like "$(curl -s "http://127.0.0.1:$PORT/")" '<script src="ui/page.js"' \
	"/ is the live page (tests/scenario/page.sh runs it in a browser)"
# each sample's derived values: what /metrics and /api/v1/metrics show
smp=$(curl -s "http://127.0.0.1:$PORT/api/v1/samples?limit=1&deltas=0")
near "$(jnum "$smp" dram_read_bytes_per_second)" 9.6e9 0.01 "samples: each sample's DRAM read bandwidth"
near "$(jnum "$smp" llc_hit_ratio)" 0.9 0.01 "samples: each sample's LLC hit ratio"
is "$(echo "$smp" | grep -c '"deltas"')" 0 "deltas=0 leaves the per-event deltas out"
am=$(curl -s "http://127.0.0.1:$PORT/api/v1/metrics")
seq=$(jnum "$am" seq)
smp=$(curl -s "http://127.0.0.1:$PORT/api/v1/samples?since=$((seq - 1))&limit=1")
for k in llc_hit_ratio dram_read_bytes_per_second dram_write_bytes_per_second clock_hertz; do
	is "$(jnum "$smp" "$k")" "$(jnum "$am" "$k")" "sample $seq and api/v1/metrics agree on $k"
done
is "$(http_code "http://127.0.0.1:$PORT/api/v1/samples?deltas=2")" 400 "deltas=2: 400"

# errors
is "$(http_code "http://127.0.0.1:$PORT/api/v1/samples?limit=abc")" 400 "bad limit: 400"
like "$(curl -s "http://127.0.0.1:$PORT/api/v1/samples?limit=0")" '"code":"bad_parameter"' \
	"limit=0 rejected with a JSON error"
is "$(http_code "http://127.0.0.1:$PORT/api/v1/samples?since=-1")" 400 "negative since: 400"
is "$(http_code "http://127.0.0.1:$PORT/api/v1/events?unit=nope")" 400 "unknown unit: 400"
is "$(http_code "http://127.0.0.1:$PORT/nope")" 404 "unknown route: 404"
curl -s -D "$T/hdr" -o /dev/null -X POST "http://127.0.0.1:$PORT/metrics"
like "$(cat "$T/hdr")" "405" "POST /metrics: 405"
like "$(cat "$T/hdr")" "Allow: GET, HEAD" "405 carries Allow"

# the control socket serves the same routes
like "$(curl -s --unix-socket "$T/ctl.sock" http://localhost/api/v1/status)" '"platform":"skl"' \
	"control socket answers"
is "$(stat -c %a "$T/ctl.sock")" 660 "control socket mode 0660"

# SIGHUP: a bad config is refused and the daemon keeps running
printf '[daemon]\ninterval_ms = 5\n' >"$T/uncored.conf"
reload
ok $? "SIGHUP: RELOADING=1, then READY=1"
like "$(cat "$T/log")" "uncored.conf:2: interval_ms: 5 is out of range" "bad reload logged with file:line"
like "$(curl -s "http://127.0.0.1:$PORT/api/v1/status")" '"interval_ms":200' "bad reload keeps the old config"
printf '[daemon]\ninterval_ms = 100\n' >"$T/uncored.conf"
reload
# the new program and interval start at the sampler's next tick
new_interval() {
	curl -s "http://127.0.0.1:$PORT/api/v1/status" >"$T/st"
	grep -q '"interval_ms":100' "$T/st"
}
wait_for "the new interval" 30 new_interval
like "$(cat "$T/st")" '"interval_ms":100' "SIGHUP applies a new interval"
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/m3"
ok "$(awk -v a="$(metric "$T/m" uncore_llc_lookups_total 'socket="0"')" \
	-v b="$(metric "$T/m3" uncore_llc_lookups_total 'socket="0"')" 'BEGIN { exit !(b > a) }'; echo $?)" \
	"counters survive the reload"

# SIGTERM: clean exit, PMU idle, ownership file gone
kill -TERM "$UPID"; wait "$UPID"; rc=$?
is "$rc" 0 "SIGTERM: exit status 0"
if perf_mode; then
	# the simulated kernel counts the events still open after the
	# release (the daemon's last line)
	like "$(tail -1 "$T/log")" "the uncore PMU is idle (simulated kernel: 0 perf events open)" \
		"every perf event is closed after SIGTERM"
	skip "owner file removed" "direct backend only (no owner file in perf mode)"
else
	nz=""
	for r in 0xe01 0x394 0x700 0x701 0x710 0x711 0x720 0x721 0x730 0x731 0x3b2 0x3b3; do
		v=$("$UNCORE_SIM" -w "$T/wl.json" -s "$T/state" read "msr:$r")
		[ "$v" = 0x0 ] || nz="$nz $r=$v"
	done
	is "$nz" "" "every control register is zero after SIGTERM"
	ok "$([ ! -e "$T/state.owner" ]; echo $?)" "owner file removed"
fi
ok "$([ ! -e "$T/ctl.sock" ]; echo $?)" "control socket removed"
tap_done
