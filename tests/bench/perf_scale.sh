#!/bin/bash
# perf_scale.sh - an SPR-size machine through the perf backend against hsx
# 2 sockets through the direct backend, two daemons run at once and
# measured in turn (issue 22, "Performance": scrape latency and RSS
# within 2x):
#   spr: --simulate=spr --backend=perf, 2 sockets x 60 CHA + 8 IMC
#        channels each (the rest of the units at the simulator's
#        defaults), the platform's baseline;
#   hsx: --simulate=hsx (direct, the built-in machine: 2 sockets, every
#        box), its baseline;
# both at the default 1 s interval.  Per daemon: counters and groups,
# /metrics bytes and samples, scrape latency (curl time_total over
# ROUNDS scrapes, alternating between the daemons: median and 90th
# percentile; then wrk -t1 -c1 for WRK_SECONDS each: req/s, p50, p99),
# tick time and reads per tick from the daemon's own metrics, RSS
# (VmRSS) and its peak (VmHWM).
# Usage: tests/bench/perf_scale.sh BUILD_DIR [ROUNDS] [WRK_SECONDS]
# The daemons listen on 127.0.0.1 only and are stopped at the end.
set -u
B=${1:?usage: perf_scale.sh BUILD_DIR [ROUNDS] [WRK_SECONDS]}
N=${2:-41}
W=${3:-5}
T=$(mktemp -d /tmp/uncored-perf-scale.XXXXXX)
chmod 755 "$T"
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"' EXIT
m() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
[ -x "$B/uncored" ] || { echo "perf_scale: build first ($B/uncored)"; exit 1; }
make -C "$B" -s tests/bench/bench_perf >/dev/null ||
	{ echo "perf_scale: cannot build bench_perf"; exit 1; }
"$B/tests/bench/bench_perf" --workload spr 2 cha_count=60 imc_channels=8 >"$T/spr.json"
USER_ARGS=
[ "$(id -u)" = 0 ] && USER_ARGS="-u nobody"

# start NAME ARGS...: a daemon on a free port; sets port_NAME, pid_NAME
start() {
	local name=$1 p pid
	shift
	for _ in 1 2 3 4 5; do
		p=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 ))
		"$B/uncored" -c /dev/null -l "127.0.0.1:$p" -s "" $USER_ARGS "$@" \
			>"$T/$name.log" 2>&1 &
		pid=$!
		for _ in $(seq 1 300); do
			curl -fs -o /dev/null "http://127.0.0.1:$p/healthz" && break 2
			kill -0 $pid 2>/dev/null || break
			sleep 0.1
		done
		kill $pid 2>/dev/null; wait $pid 2>/dev/null; pid=
	done
	[ -n "$pid" ] || { echo "perf_scale: $name did not start"; cat "$T/$name.log"; exit 1; }
	pids="$pids $pid"
	eval "port_$name=$p pid_$name=$pid"
}
# ticks NAME: uncored_ticks_total now
ticks() {
	local p
	eval "p=\$port_$1"
	curl -s "http://127.0.0.1:$p/metrics" | awk '$1 == "uncored_ticks_total" { print $2 }'
}
start spr --simulate=spr --backend=perf --workload "$T/spr.json"
start hsx --simulate=hsx
# the measurements start once each has ticked 3 times (a bounded wait)
for d in spr hsx; do
	for _ in $(seq 1 100); do
		[ "$(ticks $d)" -ge 3 ] 2>/dev/null && break
		sleep 0.1
	done
done
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); load average $(cut -d' ' -f1-3 /proc/loadavg)"
for d in spr hsx; do
	eval "p=\$port_$d"
	curl -s "http://127.0.0.1:$p/metrics" >"$T/$d.m0"
done
# scrape latency: ROUNDS scrapes of each, alternating
for _ in $(seq 1 "$N"); do
	for d in spr hsx; do
		eval "p=\$port_$d"
		curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$p/metrics" >>"$T/$d.lat"
	done
done
for d in spr hsx; do
	eval "p=\$port_$d"
	wrk -t1 -c1 -d"${W}s" --latency "http://127.0.0.1:$p/metrics" >"$T/$d.wrk" 2>&1
done
for d in spr hsx; do
	eval "p=\$port_$d pid=\$pid_$d"
	curl -s "http://127.0.0.1:$p/metrics" >"$T/$d.m1"
	sort -n "$T/$d.lat" | awk -v d="$d" '{ v[NR] = $1 } END {
		printf "%s %s\n", v[int((NR + 1) / 2)] * 1000, v[int(NR * 0.9 + 0.5)] * 1000 }' >"$T/$d.q"
	read -r p50 p90 <"$T/$d.q"
	rss=$(awk '/VmRSS/ { print $2 }' /proc/$pid/status)
	hwm=$(awk '/VmHWM/ { print $2 }' /proc/$pid/status)
	echo "$d $p50 $p90 $rss $hwm" >>"$T/summary"
	awk -v d="$d" -v t0="$(m "$T/$d.m0" uncored_ticks_total)" -v t1="$(m "$T/$d.m1" uncored_ticks_total)" \
	    -v s0="$(m "$T/$d.m0" uncored_tick_duration_seconds_sum)" -v s1="$(m "$T/$d.m1" uncored_tick_duration_seconds_sum)" \
	    -v g0="$(m "$T/$d.m0" uncored_perf_group_reads_total)" -v g1="$(m "$T/$d.m1" uncored_perf_group_reads_total)" \
	    -v r0="$(m "$T/$d.m0" uncored_hw_reads_total)" -v r1="$(m "$T/$d.m1" uncored_hw_reads_total)" \
	    -v grp="$(m "$T/$d.m1" uncored_perf_groups)" -v n="$(grep -c '^uncore_event_total' "$T/$d.m1")" \
	    -v bytes="$(wc -c <"$T/$d.m1")" -v smp="$(grep -vc '^#' "$T/$d.m1")" \
	    -v p50="$p50" -v p90="$p90" -v rss="$rss" -v hwm="$hwm" -v k="$N" \
	    -v be="$(sed -n 's/.*backend[ =:]*\(direct\|perf\).*/\1/p' "$T/$d.log" | head -1)" \
	    'BEGIN { dt = t1 - t0; if (dt < 1) dt = 1
		g = ""; rd = sprintf("%.1f register reads", (r1 - r0) / dt)
		if (grp != "") { g = sprintf(" in %d groups", grp); rd = sprintf("%.1f group reads", (g1 - g0) / dt) }
		printf "%s (%s): %d counters%s; /metrics %d bytes, %d samples; curl p50 %.2f ms, p90 %.2f ms (%d scrapes); tick %.1f us, %s a tick; RSS %.1f MiB (peak %.1f)\n",
		  d, be, n, g, bytes, smp, p50, p90, k, (s1 - s0) / dt * 1e6, rd, rss / 1024, hwm / 1024 }'
	awk '/Requests\/sec/ { r = $2 } $1 == "50%" { a = $2 } $1 == "99%" { b = $2 }
		/Non-2xx/ { e = ", " $0 }
		END { printf "  wrk -t1 -c1: %s req/s, p50 %s, p99 %s%s\n", r, a, b, e }' "$T/$d.wrk"
done
awk '{ v[$1, "p50"] = $2; v[$1, "p90"] = $3; v[$1, "rss"] = $4; v[$1, "hwm"] = $5 }
	END { printf "spr/hsx: scrape p50 %.2fx, p90 %.2fx; RSS %.2fx, peak %.2fx (target: each <= 2x)\n",
		v["spr", "p50"] / v["hsx", "p50"], v["spr", "p90"] / v["hsx", "p90"],
		v["spr", "rss"] / v["hsx", "rss"], v["spr", "hwm"] / v["hsx", "hwm"] }' "$T/summary"
