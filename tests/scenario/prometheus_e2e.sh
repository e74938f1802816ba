#!/bin/sh
# prometheus_e2e.sh - Debian's real Prometheus server scrapes the daemon
# (both on 127.0.0.1, started and stopped here) and its answers match the
# workload: up, the hit-ratio gauge, and DRAM bandwidth via rate().
. "${top_srcdir:-.}/tests/lib.sh"

if ! command -v prometheus >/dev/null; then
	skip "prometheus end-to-end" "prometheus not installed"
	tap_done; exit
fi
PORT=$(pick_port)
PP=$(pick_port)
cat >"$T/wl.json" <<'JSON'
{ "platform": "skl", "cbo_count": 4, "uclk_hz": 900000000,
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x8f": 1.0e8, "cbo:0x34:0x88": 2.5e7,
      "imc:DRAM_DATA_READS": 2.0e8, "imc:DRAM_DATA_WRITES": 1.0e8 } } ] }
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
# then four more scrapes (at 1 s), counted by Prometheus: the [4s]
# windows hold only samples of the running daemon
scrapes_ge() { _n=$(val 'count_over_time(up{job="uncored"}[1h])'); [ -n "$_n" ] && [ "$_n" -ge "$1" ]; }
n0=$(val 'count_over_time(up{job="uncored"}[1h])')
wait_for "4 more scrapes" 60 scrapes_ge $(( ${n0:-0} + 4 ))
is "$(val 'up{job="uncored"}')" 1 "Prometheus sees the target up"
near "$(val 'uncore_llc_hit_ratio{socket="0"}')" 0.75 0.01 "hit ratio gauge via Prometheus"
near "$(val 'rate(uncore_dram_read_bytes_total{socket="0"}[4s])')" 1.28e10 0.02 \
	"DRAM read GB/s via rate() = 12.8e9"
near "$(val 'rate(uncore_clock_ticks_total[4s])')" 9e8 0.02 "uncore clock via rate()"
near "$(val '1 - rate(uncore_llc_misses_total[4s]) / rate(uncore_llc_lookups_total[4s])')" 0.75 0.01 \
	"hit ratio computed from the counters"
is "$(val 'count(uncore_event_total)')" 16 "every baseline series ingested"
like "$(q 'scrape_samples_scraped{job="uncored"}')" '"value"' "scrape statistics present"
kill -TERM $PROM; wait $PROM
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "daemon stops cleanly"
tap_done
