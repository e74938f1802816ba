#!/bin/bash
# bench_platform.sh - one bench line for a simulated platform's built-in
# machine (called by bench.sh; usable alone):
#   PLATFORM N sockets: counters; hw reads and writes per tick; mean tick;
#   /metrics bytes and samples; RSS and threads
# Usage: tests/bench/bench_platform.sh BUILD_DIR PLATFORM
# The daemon listens on 127.0.0.1 only and is stopped at the end.
set -u
B=$1 PLAT=$2
T=$(mktemp -d /tmp/uncored-bench-plat.XXXXXX)
UP=
trap '[ -n "$UP" ] && kill $UP 2>/dev/null; rm -rf "$T"' EXIT
m() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
for _ in 1 2 3 4 5; do
	P=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 ))
	# (as root the daemon drops to a user: nobody here)
	"$B/uncored" -c /dev/null --simulate="$PLAT" -l "127.0.0.1:$P" -s "" -i 100 \
		$([ "$(id -u)" = 0 ] && echo "-u nobody") >"$T/log" 2>&1 &
	UP=$!
	for _ in $(seq 1 100); do
		curl -fs -o /dev/null "http://127.0.0.1:$P/healthz" && break 2
		kill -0 $UP 2>/dev/null || break
		sleep 0.1
	done
	wait $UP 2>/dev/null; UP=
done
[ -n "$UP" ] || { echo "bench: $PLAT daemon did not start"; cat "$T/log"; exit 1; }
sleep 2; curl -s "http://127.0.0.1:$P/metrics" >"$T/m0"
sleep 5; curl -s "http://127.0.0.1:$P/metrics" >"$T/m1"
socks=$(sed -n 's/.*(direct backend, simulator), \([0-9]*\) socket.*/\1/p' "$T/log")
awk -v r0="$(m "$T/m0" uncored_hw_reads_total)" -v r1="$(m "$T/m1" uncored_hw_reads_total)" \
    -v w0="$(m "$T/m0" uncored_hw_writes_total)" -v w1="$(m "$T/m1" uncored_hw_writes_total)" \
    -v t0="$(m "$T/m0" uncored_ticks_total)" -v t1="$(m "$T/m1" uncored_ticks_total)" \
    -v s0="$(m "$T/m0" uncored_tick_duration_seconds_sum)" -v s1="$(m "$T/m1" uncored_tick_duration_seconds_sum)" \
    -v n="$(grep -c '^uncore_event_total' "$T/m1")" -v p="$PLAT" -v s="$socks" \
    'BEGIN { printf "%s %s sockets: %d counters; per tick %.2f reads, %.2f writes; mean tick %.1f us (sim backend, 100 ms)\n",
             p, s, n, (r1 - r0) / (t1 - t0), (w1 - w0) / (t1 - t0), (s1 - s0) / (t1 - t0) * 1e6 }'
echo "$PLAT /metrics: $(wc -c <"$T/m1") bytes, $(grep -vc '^#' "$T/m1") samples;" \
     "RSS $(awk '/VmRSS/ { printf "%.1f MiB", $2 / 1024 }' /proc/$UP/status) (default ring 3600)," \
     "$(awk '/Threads/ { print $2 }' /proc/$UP/status) threads"
kill $UP; wait $UP 2>/dev/null; UP=
