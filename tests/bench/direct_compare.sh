#!/bin/bash
# direct_compare.sh - the direct backend on the simulator, several builds
# side by side in one run (issue 21, "Performance": direct mode must not
# get slower with the perf backend):
#   1. tests/bench/bench_tick N sim|null at 1, 2, 4 and 8 hsx sockets:
#      ROUNDS rounds, the builds alternating within each, median per
#      build (microseconds per tick and per counter);
#   2. the daemon's tick and /metrics (sim_tick.sh's measure at 2
#      sockets, then wrk -t1 -c1 for WRK_SECONDS on /metrics of
#      --simulate=hsx and --simulate (skl), alternating builds, ROUNDS
#      rounds): tick us from uncored_tick_duration_seconds, req/s and
#      p50/p99, medians per build.
# Each BUILD_DIR must hold uncored and tests/bench/bench_tick (make
# tests/bench/bench_tick).  Optimized builds without sanitizers.
# Usage: tests/bench/direct_compare.sh [-r ROUNDS] [-w WRK_SECONDS] LABEL=BUILD_DIR...
# Daemons listen on 127.0.0.1 only and are stopped at the end.
set -u
R=3 WS=5
while getopts r:w: o; do
	case $o in r) R=$OPTARG ;; w) WS=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: direct_compare.sh [-r ROUNDS] [-w SECONDS] LABEL=BUILD_DIR..."; exit 2; }
T=$(mktemp -d /tmp/uncored-direct-cmp.XXXXXX)
chmod 755 "$T"
UP=
trap '[ -n "$UP" ] && kill $UP 2>/dev/null; rm -rf "$T"' EXIT
U=; [ "$(id -u)" = 0 ] && U="-u nobody"
m() { awk -v n="$2" '$1 == n { print $2; exit }' "$1"; }
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
med() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); load average $(cut -d' ' -f1-3 /proc/loadavg); $R rounds"

# 1. bench_tick
for r in $(seq 1 "$R"); do
	for n in 1 2 4 8; do
		for mode in sim null; do
			for lb in "$@"; do
				l=${lb%%=*} b=${lb#*=}
				"$b/tests/bench/bench_tick" "$n" "$mode" >"$T/out"
				sed -n 's/.*tick \([0-9.]*\) us.*/\1/p' "$T/out" >>"$T/tick.$l.$n.$mode"
				sed -n 's/.*, \([0-9.]*\) us per counter.*/\1/p' "$T/out" >>"$T/tpc.$l.$n.$mode"
			done
		done
	done
done
printf '%-8s %-5s' sockets mode
for lb in "$@"; do printf ' %22s' "${lb%%=*}"; done
echo "   (bench_tick: us per tick, us per counter; median of $R)"
for n in 1 2 4 8; do
	for mode in sim null; do
		printf '%-8s %-5s' "$n" "$mode"
		for lb in "$@"; do
			printf ' %10s (%8s)' "$(med <"$T/tick.${lb%%=*}.$n.$mode")" \
				"$(med <"$T/tpc.${lb%%=*}.$n.$mode")"
		done
		echo
	done
done

# 2. the daemon: tick at 100 ms and /metrics
# daemon BUILD ARGS...: starts uncored on a free port (sets P, UP)
daemon() {
	local b=$1
	shift
	P=$(port)
	"$b/uncored" -c /dev/null -l "127.0.0.1:$P" -s "" $U "$@" >"$T/log" 2>&1 &
	UP=$!
	for _ in $(seq 1 300); do
		curl -sf -o /dev/null "http://127.0.0.1:$P/healthz" && return 0
		kill -0 $UP 2>/dev/null || break
		sleep 0.1
	done
	echo "direct_compare: $b did not start:"; cat "$T/log"; exit 1
}
for r in $(seq 1 "$R"); do
	for lb in "$@"; do
		l=${lb%%=*} b=${lb#*=}
		daemon "$b" --simulate=hsx -i 100
		# five ticks at least between the two reads (a bounded wait)
		curl -s "http://127.0.0.1:$P/metrics" >"$T/a"
		t0=$(m "$T/a" uncored_ticks_total)
		for _ in $(seq 1 100); do
			curl -s "http://127.0.0.1:$P/metrics" >"$T/b"
			[ "$(m "$T/b" uncored_ticks_total)" -ge $((t0 + 20)) ] && break
			sleep 0.1
		done
		awk -v t0="$t0" -v t1="$(m "$T/b" uncored_ticks_total)" \
		    -v s0="$(m "$T/a" uncored_tick_duration_seconds_sum)" \
		    -v s1="$(m "$T/b" uncored_tick_duration_seconds_sum)" \
		    'BEGIN { print (s1 - s0) / (t1 - t0) * 1e6 }' >>"$T/dtick.$l"
		for plat in hsx skl; do
			if [ $plat = skl ]; then
				kill $UP; wait $UP 2>/dev/null
				daemon "$b" --simulate
			fi
			wrk -t1 -c1 -d"${WS}s" --latency "http://127.0.0.1:$P/metrics" >"$T/w" 2>&1
			awk '/Requests\/sec/ { print $2 }' "$T/w" >>"$T/rps.$l.$plat"
			awk '$1 == "50%" { print $2 }' "$T/w" >>"$T/p50.$l.$plat"
			awk '$1 == "99%" { print $2 }' "$T/w" >>"$T/p99.$l.$plat"
		done
		kill $UP; wait $UP 2>/dev/null; UP=
	done
done
# us: wrk's latency ("96.00us", "1.20ms") in microseconds
us() { awk '{ v = $1; if (v ~ /ms$/) v = v * 1000; else if (v ~ /us$/) v = v + 0; else if (v ~ /s$/) v = v * 1e6; print v }'; }
for lb in "$@"; do
	l=${lb%%=*}
	printf '%-10s daemon tick (hsx 2 sockets, 100 ms) %7.1f us;' "$l" "$(med <"$T/dtick.$l")"
	for plat in hsx skl; do
		printf ' %s /metrics %s req/s, p50 %s us, p99 %s us;' "$plat" \
			"$(med <"$T/rps.$l.$plat")" "$(us <"$T/p50.$l.$plat" | med)" \
			"$(us <"$T/p99.$l.$plat" | med)"
	done
	echo
done
