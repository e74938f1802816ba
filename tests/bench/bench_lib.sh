#!/bin/bash
# bench_lib.sh - libuncored's figures (doc/performance.md, "The client
# library"), against the daemon on the skl simulator, 127.0.0.1 only:
#   1. uncored_read() round trip over 10,000 reads of a pinned claim
#   2. claim -> first counts: pinned, and not pinned (a free-running
#      event, and a CBo event the baseline's counters are busy with)
#   3. /metrics scrapes over TCP (20/s) alone, then beside 64 clients
#      each reading 1,000 times a second: scrape p50/p99, reads made
#   4. the sampler's ticks (100 ms) idle and under that load: the
#      largest deviation of a tick's interval from 100 ms, and tick
#      durations (uncored_tick_duration_seconds)
#   (and 16 and 32 clients, to see where it bends)
# Usage: tests/bench/bench_lib.sh [BUILD_DIR] [LOAD_SECONDS (30)]
set -u
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$top_srcdir/build}
SECS=${2:-30}
T=$(mktemp -d /tmp/uncored-benchlib.XXXXXX)
chmod 755 "$T"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
PORT=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000 ))
S="$T/ctl.sock"
BL="$B/tests/bench/bench_lib"
user=; [ "$(id -u)" = 0 ] && user="--user nobody"
# 64 clients, each with its claim and its control-socket connection (the
# control socket's budget, 128 and 64 a uid by default, holds them all;
# the scraper is on TCP, whose max_connections is 64 by default)
printf '[http]\nmax_connections = 200\n[claims]\nmax_per_uid = 100\nmax_total = 200\n' >"$T/c.conf"
"$B/uncored" $user -c "$T/c.conf" --simulate -i 100 -l "127.0.0.1:$PORT" -s "$S" \
	--workload "$top_srcdir/conf/workloads/skl-default.json" >"$T/log" 2>&1 &
pid=$!
for _ in $(seq 1 150); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
echo "kernel: $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg); daemon at a 100 ms interval"
"$BL" read "$S" 10000
"$BL" first "$S" DRAM_DATA_READS 10 pinned
"$BL" first "$S" DRAM_DATA_READS 10
"$BL" first "$S" UNC_CBO_XSNP_RESPONSE.HITM_XCORE 10

# ticks: the intervals of the samples taken over a window
ticks() { # ticks SEQ_FROM SEQ_TO LABEL
	curl -s "http://127.0.0.1:$PORT/api/v1/samples?since=$1&limit=3600&deltas=0" |
	jq -r --argjson to "$2" '.samples[] | select(.seq <= $to) | .interval_s' |
	awk -v l="$3" '{ d = $1 - 0.1; if (d < 0) d = -d; if (d > m) m = d; n++ }
		END { printf "ticks %s: %d intervals, largest deviation from 100 ms %.3f ms\n", l, n, m * 1e3 }'
}
ringhead() { curl -s "http://127.0.0.1:$PORT/api/v1/status" | jq .ring_head; }
hist() { curl -s "http://127.0.0.1:$PORT/metrics" | grep '^uncored_tick_duration_seconds_\(bucket\|sum\|count\)'; }
tickdur() { # tickdur BEFORE AFTER LABEL: mean and share of ticks over 1 ms
	awk -v l="$3" 'FNR == NR { a[$1] = $2; next } { b[$1] = $2 }
		END { n = b["uncored_tick_duration_seconds_count"] - a["uncored_tick_duration_seconds_count"]
		      s = b["uncored_tick_duration_seconds_sum"] - a["uncored_tick_duration_seconds_sum"]
		      k = "uncored_tick_duration_seconds_bucket{le=\"0.001\"}"
		      slow = n - (b[k] - a[k])
		      printf "tick duration %s: %d ticks, mean %.1f us, %d over 1 ms\n", l, n, s / n * 1e6, slow }' "$1" "$2"
}
h0=$(ringhead); hist >"$T/h0"
"$BL" load "$S" "http://127.0.0.1:$PORT" 0 0 "$SECS"
h1=$(ringhead); hist >"$T/h1"
"$BL" load "$S" "http://127.0.0.1:$PORT" 16 1000 "$SECS"
"$BL" load "$S" "http://127.0.0.1:$PORT" 32 1000 "$SECS"
h3=$(ringhead); hist >"$T/h3"
"$BL" load "$S" "http://127.0.0.1:$PORT" 64 1000 "$SECS"
h2=$(ringhead); hist >"$T/h2"
echo "daemon threads: $(awk '/^Threads/ { print $2 }' /proc/$pid/status) ($(cat /proc/$pid/task/*/comm | sort | tr '\n' ' '))"
ticks "$h0" "$h1" "idle (scrapes only)"
ticks "$h3" "$h2" "under 64 x 1000 reads/s"
tickdur "$T/h0" "$T/h1" "idle"
tickdur "$T/h3" "$T/h2" "under 64 x 1000 reads/s"
