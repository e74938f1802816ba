#!/bin/bash
# latency_cost.sh - what the memory read latency families cost (issue 41
# section 5): the tick with `[baseline] memory_latency = no` against
# `yes`, on hsx (2 sockets, direct backend), spr (2 sockets, perf) and
# gnr with 128 CHAs a socket (2 sockets, perf), each pair run A B A B on
# the simulator.  Per run: the mean tick (wall), the daemon's CPU per
# tick (every thread's run time: robust to a loaded machine, which the
# wall time is not; on the perf platforms it includes the simulated
# kernel, which runs in the daemon's process), the hardware reads
# (direct) or
# perf group reads per tick, the baseline's groups, /metrics samples
# (and how many are the latency families'), RSS.
# Usage: tests/bench/latency_cost.sh BUILD_DIR [SECONDS]
# The daemons listen on 127.0.0.1 only and are stopped at the end.
set -u
B=$1 SECS=${2:-10}
T=$(mktemp -d /tmp/uncored-bench-lat.XXXXXX)
UP=
trap '[ -n "$UP" ] && kill $UP 2>/dev/null; rm -rf "$T"' EXIT

m() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
# cpu PID: the nanoseconds its threads have run (schedstat: finer than
# /proc's clock ticks, which a 100 us tick would round away)
cpu() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%.0f", s }'; }

cat >"$T/gnr128.json" <<'JSON'
{ "platform": "gnr", "sockets": 2, "cha_count": 128,
  "phases": [ { "seconds": 3600, "rates": {
      "cha:0x00:0x00": 2.0e9, "cha:0x35:0x01": 2.0e7,
      "cha:0x36:0x01": 2.0e9, "imc:0x05:0xcf": 1.0e8 } } ] }
JSON

# one PLAT MODE ARGS...: a daemon with memory_latency = MODE, one line
one() {
	local plat=$1 mode=$2 p ok=
	shift 2
	printf '[baseline]\nmemory_latency = %s\n' "$mode" >"$T/c.conf"
	for _ in 1 2 3 4 5; do
		p=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 ))
		"$B/uncored" -c "$T/c.conf" --simulate="$plat" "$@" \
			-l "127.0.0.1:$p" -s "" -i 100 \
			$([ "$(id -u)" = 0 ] && echo "-u nobody") >"$T/log" 2>&1 &
		UP=$!
		for _ in $(seq 1 300); do
			curl -fs -o /dev/null "http://127.0.0.1:$p/healthz" && { ok=1; break 2; }
			kill -0 $UP 2>/dev/null || break
			sleep 0.1
		done
		kill $UP 2>/dev/null; wait $UP 2>/dev/null; UP=
	done
	[ -n "$ok" ] || { echo "bench: $plat daemon did not start"; cat "$T/log"; exit 1; }
	# past start-up: 20 ticks (every turn group has counted), at most 60 s
	for i in $(seq 1 600); do
		curl -s "http://127.0.0.1:$p/metrics" >"$T/m0"
		[ "$(m "$T/m0" uncored_ticks_total)" -ge 20 ] 2>/dev/null && break
		[ "$i" = 600 ] && { echo "bench: $plat: not 20 ticks in 60 s"; exit 1; }
		sleep 0.1
	done
	c0=$(cpu $UP)
	sleep "$SECS"	# the measured window itself
	curl -s "http://127.0.0.1:$p/metrics" >"$T/m1"; c1=$(cpu $UP)
	rss=$(awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' /proc/$UP/status)
	kill $UP; wait $UP 2>/dev/null; UP=
	awk -v p="$plat" -v mode="$mode" -v c0="$c0" -v c1="$c1" \
	    -v t0="$(m "$T/m0" uncored_ticks_total)" -v t1="$(m "$T/m1" uncored_ticks_total)" \
	    -v s0="$(m "$T/m0" uncored_tick_duration_seconds_sum)" \
	    -v s1="$(m "$T/m1" uncored_tick_duration_seconds_sum)" \
	    -v r0="$(m "$T/m0" uncored_hw_reads_total)" -v r1="$(m "$T/m1" uncored_hw_reads_total)" \
	    -v g0="$(m "$T/m0" uncored_perf_group_reads_total)" \
	    -v g1="$(m "$T/m1" uncored_perf_group_reads_total)" \
	    -v groups="$(m "$T/m1" uncored_baseline_groups)" \
	    -v n="$(grep -vc '^#' "$T/m1")" \
	    -v lat="$(grep -c '^uncore_memory_read_latency_seconds\|^uncore_dram_read_queue_latency_seconds' "$T/m1")" \
	    -v rss="$rss" \
	    'BEGIN { t = t1 - t0
		 printf "%-4s memory_latency=%-3s tick %7.1f us, CPU %7.1f us/tick; per tick %7.1f hw reads, %6.1f perf group reads; %s baseline groups; /metrics %6d samples (%d latency); RSS %s MiB\n",
			p, mode, (s1 - s0) / t * 1e6, (c1 - c0) / t / 1e3,
			(r1 - r0) / t, (g1 - g0) / t, groups, n, lat, rss }'
}

echo "# latency_cost.sh: ${SECS} s a run, A B A B; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in 1 2; do
	for mode in no yes; do one hsx "$mode"; done
	for mode in no yes; do one spr "$mode"; done
	for mode in no yes; do one gnr "$mode" --workload "$T/gnr128.json"; done
done
