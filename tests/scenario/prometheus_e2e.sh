#!/bin/sh
# prometheus_e2e.sh - Debian's real Prometheus server scrapes the daemon
# (both on 127.0.0.1, started and stopped here) and its answers match the
# workload: up, the hit-ratio gauge, and DRAM bandwidth via rate().
# UNCORED_TEST_DRAM_RATE (2.0e8 transfers/s) plays another DRAM read rate
# against the same expectations: the rate checks must then fail.
. "${top_srcdir:-.}/tests/lib.sh"

if ! command -v prometheus >/dev/null; then
	skip "prometheus end-to-end" "prometheus not installed"
	tap_done; exit
fi
PORT=$(pick_port)
PP=$(pick_port)
cat >"$T/wl.json" <<JSON
{ "platform": "skl", "cbo_count": 4, "uclk_hz": 900000000,
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x8f": 1.0e8, "cbo:0x34:0x88": 2.5e7,
      "imc:DRAM_DATA_READS": ${UNCORED_TEST_DRAM_RATE:-2.0e8}, "imc:DRAM_DATA_WRITES": 1.0e8 } } ] }
JSON
: >"$T/empty.conf"
start_uncored "$T/log" -c "$T/empty.conf" --simulate --workload "$T/wl.json" \
	-l "127.0.0.1:$PORT" -s "" -i 250
ok $? "daemon up"
cat >"$T/prometheus.yml" <<EOF2
global: { scrape_interval: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: uncored
    static_configs: [ { targets: ["127.0.0.1:$PORT"] } ]
EOF2
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
	--web.listen-address="127.0.0.1:$PP" >"$T/prom.log" 2>&1 &
PROM=$!; tap_cleanup_pid $PROM
q() { curl -s "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1"; }
val() { q "$1" | sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p'; }
ingested() { [ "$(val 'count(uncore_llc_hit_ratio)')" = 1 ] && [ -n "$(val 'rate(uncore_dram_read_bytes_total[4s])')" ]; }
wait_for "Prometheus to have a rate" 60 ingested
# What rate() can be held to.  Prometheus divides by its own scrape
# timestamps; a scrape gets each counter as of the daemon's last tick,
# between one tick interval I (plus the tick's lateness on a loaded
# machine) before the scrape's timestamp and the answer's delay after it.
# So the increase between the first and last sample of a window is the
# workload's over a span that differs from theirs by up to I + L (L: the
# lateness and answer delay allowed for, 0.5 s: a [4s] window on a
# machine at load 20 was seen off by 0.2-0.3 s).  Those two samples are
# at least W - 2S apart (S: the scrape interval), so
#     tol = (I + L) / (W - 2 S) = (0.25 + 0.5) / (30 - 2) = 2.7 %
# at W = 30 s; at [4s] it would be 37 %, which proves nothing.  What the
# daemon itself guarantees is exact: every counter of a scrape is as of
# the same tick, so a ratio of two rates over one window has no timing
# error (dram/clock below: the clock counts 9e8/s, DRAM reads 1.28e10
# bytes/s; 1 %: the counting window excludes the few microseconds a tick
# the PMU is frozen, and the daemon's own rates (api/v1/samples) are held
# to 2 % in the other tests).
I=0.25 L=0.5 W=30 S=1
TOL=$(awk -v i=$I -v l=$L -v w=$W -v s=$S 'BEGIN { printf "%.4f", (i + l) / (w - 2 * s) }')
# then W more scrapes (at 1 s), counted by Prometheus: the [${W}s]
# windows hold only samples of the running daemon
scrapes_ge() { _n=$(val 'count_over_time(up{job="uncored"}[1h])'); [ -n "$_n" ] && [ "$_n" -ge "$1" ]; }
n0=$(val 'count_over_time(up{job="uncored"}[1h])')
wait_for "$W more scrapes" $((W * 3)) scrapes_ge $(( ${n0:-0} + W ))
is "$(val 'up{job="uncored"}')" 1 "Prometheus sees the target up"
near "$(val 'uncore_llc_hit_ratio{socket="0"}')" 0.75 0.01 "hit ratio gauge via Prometheus"
near "$(val "sum(rate(uncore_dram_read_bytes_total{socket=\"0\"}[${W}s])) / sum(rate(uncore_clock_ticks_total{socket=\"0\"}[${W}s])) * 9e8")" \
	1.28e10 0.01 "DRAM read rate over the clock's (the same ticks) x 9e8 Hz = 12.8e9 bytes/s"
near "$(val "rate(uncore_dram_read_bytes_total{socket=\"0\"}[${W}s])")" 1.28e10 "$TOL" \
	"DRAM read GB/s via rate() = 12.8e9 (+- $TOL: I = ${I} s, W = ${W} s)"
near "$(val "rate(uncore_clock_ticks_total[${W}s])")" 9e8 "$TOL" "uncore clock via rate()"
near "$(val "1 - rate(uncore_llc_misses_total[${W}s]) / rate(uncore_llc_lookups_total[${W}s])")" 0.75 0.01 \
	"hit ratio computed from the counters"
is "$(val 'count(uncore_event_total)')" 16 "every baseline series ingested"
like "$(q 'scrape_samples_scraped{job="uncored"}')" '"value"' "scrape statistics present"
kill -TERM $PROM; wait $PROM
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "daemon stops cleanly"
tap_done
