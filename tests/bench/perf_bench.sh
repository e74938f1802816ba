#!/bin/bash
# perf_bench.sh - the perf backend's figures on the simulated kernel, in
# one run (issues 21 and 22, "Performance"):
#   1. every perf-only platform (skx, icx, spr, zen4: 1 and 2 sockets
#      only) and hsx at 1, 2, 4 and 8 sockets, its baseline ticked
#      synchronously (tests/bench/bench_perf): counters, groups, read(2)
#      and system calls per tick (counted outside the backend; bench_perf
#      checks them against pmu_perf_stats), tick and per-counter
#      microseconds with the simulated kernel behind the calls ("sim")
#      and without ("null": the daemon's own work);
#   2. an SPR-size machine (2 sockets x 60 CHA + 8 IMC channels) the same
#      way.
# Every configuration runs ROUNDS times, the rounds one after the other
# (a busy moment then hits one round, not one configuration): the
# tables give the median.
# Usage: tests/bench/perf_bench.sh BUILD_DIR [ROUNDS]
set -u
B=${1:?usage: perf_bench.sh BUILD_DIR [ROUNDS]}
R=${2:-3}
make -C "$B" -s tests/bench/bench_perf >/dev/null ||
	{ echo "perf_bench: cannot build bench_perf"; exit 1; }
P=$B/tests/bench/bench_perf
T=$(mktemp -d /tmp/uncored-perf-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); load average $(cut -d' ' -f1-3 /proc/loadavg); $R rounds"
# configs: "PLATFORM SOCKETS [KEY=COUNT ...]"; EPYC packages go two to a
# board at most (the simulator refuses more sockets for zen4)
configs() {
	for plat in skx icx spr zen4 hsx; do
		for n in 1 2 4 8; do
			[ $plat = zen4 ] && [ $n -gt 2 ] && continue
			echo "$plat $n"
		done
	done
	echo "spr 2 cha_count=60 imc_channels=8"
}
for r in $(seq 1 "$R"); do
	configs | while read -r plat n keys; do
		for mode in sim null; do
			# shellcheck disable=SC2086
			"$P" "$plat" "$n" "$mode" 0 $keys >"$T/out" 2>&1 ||
				{ echo "perf_bench: $plat $n $mode: $(cat "$T/out")"; continue; }
			echo "$plat $n ${keys:+spr-size} $mode $(sed -n 's/.*: \([0-9]*\) counters in \([0-9]*\) groups; per tick \([0-9.]*\) read(2), \([0-9.]*\) system calls.*tick \([0-9.]*\) us, \([0-9.]*\) us per counter/\1 \2 \3 \4 \5 \6/p' "$T/out")" >>"$T/all"
		done
	done
done
echo "platform sockets: counters, groups; read(2) and system calls a tick; tick us (us per counter), simulated kernel | daemon only (median of $R)"
configs | while read -r plat n keys; do
	k="$plat $n ${keys:+spr-size}"
	awk -v k="$k" '
		{ key = $1 " " $2 " " ($3 == "spr-size" ? "spr-size" : "") }
		key != k { next }
		{ o = ($3 == "spr-size") ? 1 : 0; m = $(3 + o)
		  c = $(4 + o); g = $(5 + o); rd = $(6 + o); sc = $(7 + o)
		  t[m, ++n[m]] = $(8 + o) }
		function med(m,   i, j, x, a) {
			for (i = 1; i <= n[m]; i++) a[i] = t[m, i]
			for (i = 2; i <= n[m]; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
			return a[int((n[m] + 1) / 2)]
		}
		END { if (!n["sim"]) exit
		      s = med("sim"); z = med("null")
		      printf "%-13s %d counters, %3d groups; %6.2f read(2), %6.2f calls; %7.1f us (%.3f) | %7.1f us (%.3f)\n",
			     k, c, g, rd, sc, s, s / c, z, z / c }' "$T/all"
done
