#!/bin/bash
# bench.sh - the figures doc/performance.md reports, measured in one run:
#   0. bytes and daemon CPU per /metrics scrape without and with gzip
#   1. hardware accesses per sampler tick (from uncored_hw_*_total)
#   2. /metrics throughput and latency with wrk -t2 -c16, uncored against
#      prometheus-node-exporter --collector.disable-defaults
#      --collector.time, same run, same machine
#   3. the daemon's CPU, RSS and threads at the default 1 s interval
# Usage: tests/bench/bench.sh [BUILD_DIR] [IDLE_SECONDS] [gzip]
# Servers listen on 127.0.0.1 only and are stopped at the end.
set -u
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$top_srcdir/build}
IDLE=${2:-60}
UNCORED=$B/uncored
T=$(mktemp -d /tmp/uncored-bench.XXXXXX)
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$T"' EXIT
port() { echo $(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 )); }
up() { for _ in $(seq 1 100); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done; return 1; }
m() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }

[ -x "$UNCORED" ] || { echo "bench: build first ($UNCORED missing)" >&2; exit 1; }
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "kernel: $(uname -r); uncored $("$UNCORED" --version | cut -d' ' -f2)"
echo

# schedstat's first field is the CPU time of all threads in ns (stat's
# utime/stime count 10 ms ticks: too coarse for an idle daemon)
cpu_ns() { local t=0 v; for f in /proc/$UP/task/*/schedstat; do read -r v _ <"$f"; t=$((t + v)); done; echo $t; }

# 0. gzip: bytes and the daemon's CPU per /metrics scrape, without and
# with "Accept-Encoding: gzip" (one client, back to back, 5 s each).
# `bench.sh BUILD IDLE gzip` runs this section alone.
P=$(port)
"$UNCORED" -c /dev/null --simulate -l "127.0.0.1:$P" -s "" >"$T/log0" 2>&1 &
UP=$!; pids="$pids $UP"
up "http://127.0.0.1:$P/healthz" || { echo "bench: daemon did not start"; cat "$T/log0"; exit 1; }
sleep 1.5
for enc in identity gzip; do
	bytes=$(curl -s -H "Accept-Encoding: $enc" "http://127.0.0.1:$P/metrics" | wc -c)
	c0=$(cpu_ns)
	wrk -t1 -c1 -d5s -H "Accept-Encoding: $enc" "http://127.0.0.1:$P/metrics" >"$T/wrk.$enc" 2>&1
	c1=$(cpu_ns)
	n=$(awk '/requests in/ { print $1 }' "$T/wrk.$enc")
	awk -v e="$enc" -v b="$bytes" -v c="$((c1 - c0))" -v n="$n" 	    'BEGIN { printf "/metrics Accept-Encoding: %-8s %6d bytes, %5.1f us daemon CPU per scrape (%d scrapes)\n", e, b, c / n / 1e3, n }'
done
kill $UP; wait $UP 2>/dev/null; pids=
[ "${3:-}" = gzip ] && exit 0

# 1. accesses per tick at 100 ms (same per tick at any interval)
P=$(port)
"$UNCORED" -c /dev/null --simulate -l "127.0.0.1:$P" -s "" -i 100 >"$T/log1" 2>&1 &
pids="$pids $!"
up "http://127.0.0.1:$P/healthz" || { echo "bench: daemon did not start"; cat "$T/log1"; exit 1; }
sleep 1; curl -s "http://127.0.0.1:$P/metrics" >"$T/a"
sleep 5; curl -s "http://127.0.0.1:$P/metrics" >"$T/b"
awk -v r0="$(m "$T/a" uncored_hw_reads_total)" -v r1="$(m "$T/b" uncored_hw_reads_total)" \
    -v w0="$(m "$T/a" uncored_hw_writes_total)" -v w1="$(m "$T/b" uncored_hw_writes_total)" \
    -v t0="$(m "$T/a" uncored_ticks_total)" -v t1="$(m "$T/b" uncored_ticks_total)" \
    -v n="$(grep -c '^uncore_event_total' "$T/b")" \
    -v s="$(m "$T/b" uncored_tick_duration_seconds_sum)" -v c="$(m "$T/b" uncored_tick_duration_seconds_count)" \
    'BEGIN { printf "per tick: %.2f reads, %.2f writes for %d active counters (sim backend); mean tick %.1f us\n",
             (r1 - r0) / (t1 - t0), (w1 - w0) / (t1 - t0), n, s / c * 1e6 }'
kill %1 2>/dev/null; wait 2>/dev/null; pids=

# 2. /metrics throughput against node_exporter
P=$(port); NP=$(port)
"$UNCORED" -c /dev/null --simulate -l "127.0.0.1:$P" -s "" >"$T/log2" 2>&1 &
UP=$!; pids="$pids $UP"
prometheus-node-exporter --collector.disable-defaults --collector.time \
	--web.listen-address="127.0.0.1:$NP" >"$T/ne.log" 2>&1 &
pids="$pids $!"
up "http://127.0.0.1:$P/healthz" && up "http://127.0.0.1:$NP/metrics" || { echo "bench: servers did not start"; exit 1; }
sleep 1.5
echo "/metrics body: uncored $(curl -s "http://127.0.0.1:$P/metrics" | wc -c) bytes," \
     "node_exporter $(curl -s "http://127.0.0.1:$NP/metrics" | wc -c) bytes"
for who in uncored node_exporter; do
	[ $who = uncored ] && u="http://127.0.0.1:$P/metrics" || u="http://127.0.0.1:$NP/metrics"
	wrk -t2 -c16 -d10s --latency "$u" >"$T/wrk.$who" 2>&1
	rps=$(awk '/Requests\/sec/ { print $2 }' "$T/wrk.$who")
	p99=$(awk '$1 == "99%" { print $2 }' "$T/wrk.$who")
	p50=$(awk '$1 == "50%" { print $2 }' "$T/wrk.$who")
	err=$(awk '/Non-2xx|Socket errors/' "$T/wrk.$who" | tr '\n' ' ')
	printf "wrk -t2 -c16 -d10s %-14s %10s req/s  p50 %-8s p99 %-8s %s\n" "$who:" "$rps" "$p50" "$p99" "$err"
	eval "rps_$who=$rps"
done
awk -v a="$rps_uncored" -v b="$rps_node_exporter" 'BEGIN { printf "throughput ratio uncored/node_exporter: %.2fx\n", a / b }'
kill $pids 2>/dev/null; wait 2>/dev/null; pids=

# 3. idle cost at the default 1 s interval, scraped every 15 s
P=$(port)
"$UNCORED" -c /dev/null --simulate -l "127.0.0.1:$P" -s "" >"$T/log3" 2>&1 &
UP=$!; pids="$pids $UP"
up "http://127.0.0.1:$P/healthz" || exit 1
c0=$(cpu_ns)
for _ in $(seq 1 $((IDLE / 15))); do curl -s -o /dev/null "http://127.0.0.1:$P/metrics"; sleep 15; done
sleep $((IDLE % 15))
c1=$(cpu_ns)
rss=$(awk '/VmRSS/ { print $2 }' /proc/$UP/status)
hwm=$(awk '/VmHWM/ { print $2 }' /proc/$UP/status)
thr=$(awk '/Threads/ { print $2 }' /proc/$UP/status)
awk -v c="$((c1 - c0))" -v s="$IDLE" -v r="$rss" -v h="$hwm" -v n="$thr" \
    'BEGIN { printf "idle at 1 s interval over %d s, scraped every 15 s: CPU %.4f%% of one core, RSS %.1f MiB (peak %.1f MiB), %d threads\n",
             s, c / 1e9 / s * 100, r / 1024, h / 1024, n }'

# 4. claims: create -> first counts, and the cost of placement per tick
P=$(port)
printf '[claims]\nmax_per_uid = 64\nmax_total = 64\n' >"$T/claims.conf"
for iv in 1000 100; do
	"$UNCORED" -c "$T/claims.conf" --simulate -l "127.0.0.1:$P" -s "$T/ctl.sock" -i $iv >"$T/log4" 2>&1 &
	UP=$!; pids="$pids $UP"
	up "http://127.0.0.1:$P/healthz" || exit 1
	lat=
	for i in $(seq 1 10); do
		t0=$(date +%s%N)
		id=$(curl -s --unix-socket "$T/ctl.sock" -X POST http://x/api/v1/claims \
			-d '{"events":["UNC_CBO_XSNP_RESPONSE.HITM_XCORE"],"ttl_s":60}' |
			sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
		while ! curl -s --unix-socket "$T/ctl.sock" "http://x/api/v1/claims/$id" |
			grep -q '"count":[1-9]'; do sleep 0.002; done
		t1=$(date +%s%N)
		lat="$lat $(( (t1 - t0) / 1000000 ))"
		curl -s -o /dev/null --unix-socket "$T/ctl.sock" -X DELETE "http://x/api/v1/claims/$id"
	done
	med=$(echo $lat | tr ' ' '\n' | sort -n | sed -n 5p)
	max=$(echo $lat | tr ' ' '\n' | sort -n | tail -1)
	echo "claim create -> first counts at ${iv} ms interval (10 runs, ms):$lat; median $med ms, max $max ms"
	kill $UP; wait $UP 2>/dev/null; pids=
done
"$B/tests/bench/bench_sched" 50
"$UNCORED" -c "$T/claims.conf" --simulate -l "127.0.0.1:$P" -s "$T/ctl.sock" -i 100 >"$T/log5" 2>&1 &
UP=$!; pids="$pids $UP"
up "http://127.0.0.1:$P/healthz" || exit 1
tick() { curl -s "http://127.0.0.1:$P/metrics" >"$T/t"; echo "$(m "$T/t" uncored_tick_duration_seconds_sum) $(m "$T/t" uncored_tick_duration_seconds_count)"; }
sleep 1; set -- $(tick); s0=$1; c0=$2; sleep 3; set -- $(tick); s1=$1; c1=$2
no=$(awk -v a="$s0" -v b="$s1" -v x="$c0" -v y="$c1" 'BEGIN { printf "%.1f", (b - a) / (y - x) * 1e6 }')
evs=$(curl -s "http://127.0.0.1:$P/api/v1/events?unit=cbo" | grep -o '"name":"[^"]*"' | cut -d'"' -f4)
n=0
for i in $(seq 1 50); do
	e=$(echo "$evs" | sed -n "$(( (i - 1) % $(echo "$evs" | wc -l) + 1 ))p")
	curl -s -o /dev/null --unix-socket "$T/ctl.sock" -X POST http://x/api/v1/claims \
		-d "{\"events\":[\"$e\"],\"ttl_s\":60}" && n=$((n + 1))
done
sleep 1; set -- $(tick); s0=$1; c0=$2; sleep 3; set -- $(tick); s1=$1; c1=$2
with=$(awk -v a="$s0" -v b="$s1" -v x="$c0" -v y="$c1" 'BEGIN { printf "%.1f", (b - a) / (y - x) * 1e6 }')
echo "daemon tick (freeze, read, schedule, program, unfreeze) at 100 ms: ${no} us with no claims, ${with} us with $n live claims"

# 5. hsx: 2 simulated sockets with every box (built-in workload)
P=$(port)
"$UNCORED" -c /dev/null --simulate=hsx -l "127.0.0.1:$P" -s "" -i 100 >"$T/log6" 2>&1 &
UP=$!; pids="$pids $UP"
up "http://127.0.0.1:$P/healthz" || { echo "bench: hsx daemon did not start"; cat "$T/log6"; exit 1; }
sleep 2; curl -s "http://127.0.0.1:$P/metrics" >"$T/h0"
sleep 5; curl -s "http://127.0.0.1:$P/metrics" >"$T/h1"
awk -v r0="$(m "$T/h0" uncored_hw_reads_total)" -v r1="$(m "$T/h1" uncored_hw_reads_total)" \
    -v w0="$(m "$T/h0" uncored_hw_writes_total)" -v w1="$(m "$T/h1" uncored_hw_writes_total)" \
    -v t0="$(m "$T/h0" uncored_ticks_total)" -v t1="$(m "$T/h1" uncored_ticks_total)" \
    -v s0="$(m "$T/h0" uncored_tick_duration_seconds_sum)" -v s1="$(m "$T/h1" uncored_tick_duration_seconds_sum)" \
    -v n="$(grep -c '^uncore_event_total' "$T/h1")" \
    'BEGIN { printf "hsx 2 sockets: %d counters; per tick %.2f reads, %.2f writes; mean tick %.1f us (sim backend)\n",
             n, (r1 - r0) / (t1 - t0), (w1 - w0) / (t1 - t0), (s1 - s0) / (t1 - t0) * 1e6 }'
wrk -t2 -c16 -d5s --latency "http://127.0.0.1:$P/metrics" >"$T/wrk.hsx" 2>&1
echo "hsx /metrics: $(wc -c <"$T/h1") bytes, $(grep -vc '^#' "$T/h1") samples;" \
     "wrk -t2 -c16 -d5s $(awk '/Requests\/sec/ { print $2 }' "$T/wrk.hsx") req/s," \
     "p50 $(awk '$1 == "50%" { print $2 }' "$T/wrk.hsx"), p99 $(awk '$1 == "99%" { print $2 }' "$T/wrk.hsx")"
sleep 1
echo "hsx RSS $(awk '/VmRSS/ { printf "%.1f MiB", $2 / 1024 }' /proc/$UP/status) (default ring 3600), $(awk '/Threads/ { print $2 }' /proc/$UP/status) threads"
kill $UP; wait $UP 2>/dev/null; pids=

# ---- 6. snbep: 2 simulated sockets with every box (built-in workload) ----
# (the snbep helper's block: one line from bench_platform.sh)
bash "$top_srcdir/tests/bench/bench_platform.sh" "$B" snbep
# ---- end of the snbep block ----
