#!/bin/bash
# perf_bench.sh - the perf backend's figures on the simulated kernel, in
# one run (issues 21 and 22, "Performance"):
#   1. every perf-only platform (skx, icx, spr, zen4: 1 and 2 only) and
#      hsx at 1, 2, 4 and 8 sockets, its baseline ticked synchronously
#      (tests/bench/bench_perf): counters, groups, read(2) and system
#      calls per tick (counted outside the backend, and by
#      pmu_perf_stats), tick and per-counter microseconds with the
#      simulated kernel behind the calls ("sim") and without ("null":
#      the daemon's own work);
#   2. an SPR-size machine (2 sockets x 60 CHA + 8 IMC channels) the same
#      way.
# Usage: tests/bench/perf_bench.sh BUILD_DIR
set -u
B=${1:?usage: perf_bench.sh BUILD_DIR}
make -C "$B" -s tests/bench/bench_perf >/dev/null ||
	{ echo "perf_bench: cannot build bench_perf"; exit 1; }
P=$B/tests/bench/bench_perf
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); load average $(cut -d' ' -f1-3 /proc/loadavg)"
for plat in skx icx spr zen4 hsx; do
	for n in 1 2 4 8; do
		# EPYC packages go two to a board at most (the simulator
		# refuses more sockets for zen4)
		if [ $plat = zen4 ] && [ $n -gt 2 ]; then
			echo "zen4 $n sockets: not a machine (EPYC is 1P/2P)"
			continue
		fi
		for mode in sim null; do
			"$P" "$plat" "$n" "$mode" || echo "perf_bench: $plat $n $mode failed"
		done
	done
done
for mode in sim null; do
	echo -n "SPR-size (60 CHA, 8 IMC channels a socket): "
	"$P" spr 2 "$mode" 0 cha_count=60 imc_channels=8
done
