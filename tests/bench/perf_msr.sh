#!/bin/bash
# perf_msr.sh - uncored's perf backend on the real kernel against
# `perf stat -a -I 100` counting the same events of the kernel's msr PMU,
# side by side over the same SECONDS (issue 21, "Performance"):
#   1. CPU time (user + system, /usr/bin/time) of three processes run at
#      once: tests/bench/bench_perf_msr (the real sampler at 100 ms over
#      pmu_perf and the real system calls), perf stat with the events
#      ungrouped, and perf stat with them as one group {...};
#      repeated RUNS times (default 5), each run's uncored / grouped perf
#      stat CPU ratio printed and their median: the three share the
#      machine's load in a run, so the ratio holds where single figures
#      move; with BASE=OTHER_BUILD_DIR in the environment, that build's
#      bench_perf_msr runs in the same runs as a fourth process (a
#      before/after comparison under the same load);
#   2. system calls per tick of each, counted by `strace -c -f` in a
#      second, shorter run (strace slows what it traces, so its run is
#      not the one timed).
# The events are those of msr/tsc/, msr/aperf/, msr/mperf/ and msr/smi/
# this kernel offers (a VM often has tsc and smi only).  Needs root or
# CAP_PERFMON (perf_event_paranoid permitting), perf (Debian: linux-perf)
# and strace; says what is missing and exits 77 otherwise.
# Usage: tests/bench/perf_msr.sh BUILD_DIR [SECONDS] [STRACE_SECONDS] [RUNS]
set -u
B=${1:?usage: perf_msr.sh BUILD_DIR [SECONDS] [STRACE_SECONDS] [RUNS]}
S=${2:-60}
SS=${3:-10}
RUNS=${4:-5}
BASE_BENCH=${BASE:+$BASE/tests/bench/bench_perf_msr}
BENCH=$B/tests/bench/bench_perf_msr
T=$(mktemp -d /tmp/uncored-perf-msr.XXXXXX)
trap 'rm -rf "$T"' EXIT
MSR=/sys/bus/event_source/devices/msr

skip() { echo "perf_msr: SKIP: $*"; exit 77; }
[ -x "$BENCH" ] || make -C "$B" tests/bench/bench_perf_msr >/dev/null ||
	{ echo "perf_msr: cannot build $BENCH"; exit 1; }
[ -d "$MSR" ] || skip "this kernel has no msr PMU ($MSR)"
for c in perf strace /usr/bin/time; do
	command -v "$c" >/dev/null || skip "$c is not installed (Debian: linux-perf, strace, time)"
done
aliases= ev=
for a in tsc aperf mperf smi; do
	[ -e "$MSR/events/$a" ] || continue
	aliases="$aliases $a"
	ev="$ev${ev:+,}msr/$a/"
done
[ -n "$ev" ] || skip "the msr PMU offers none of tsc, aperf, mperf, smi"
# the privilege check the daemon makes (pev_access): exit 77 with why
"$BENCH" 0.1 100 $aliases >"$T/probe" 2>&1
case $? in
0) ;;
77) skip "$(cat "$T/probe")" ;;
*) echo "perf_msr: $BENCH failed:"; cat "$T/probe"; exit 1 ;;
esac

echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); kernel $(uname -r); $(perf version); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "events:$aliases (msr/*/ offered by this kernel), interval 100 ms, $S s, all three processes at once"

# run OUT CMD...: runs CMD and writes "user system" seconds of it and
# its children to OUT (wait4's rusage, microseconds: GNU time prints
# hundredths, too coarse for these)
run() {
	python3 -c 'import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, st, ru = os.wait4(pid, 0)
open(sys.argv[1], "w").write("%.6f %.6f\n" % (ru.ru_utime, ru.ru_stime))
sys.exit(os.waitstatus_to_exitcode(st))' "$@"
}
cpu() { read -r u s <"$1"; awk -v u="$u" -v s="$s" 'BEGIN { printf "%.6f", u + s }'; }
line() {
	read -r u s <"$2"
	awk -v n="$1" -v u="$u" -v s="$s" -v S="$S" \
		'BEGIN { printf "  %-46s CPU %.3f s in %s s (user %.3f, system %.3f): %.1f us per 100 ms, %.4f%% of a core\n",
			 n, u + s, S, u, s, (u + s) * 1e6 / (S * 10), (u + s) / S * 100 }'
}
nev=$(echo $aliases | wc -w)
: >"$T/ratios"
for k in $(seq 1 "$RUNS"); do
	run "$T/t.unc" "$BENCH" "$S" 100 $aliases >"$T/unc" 2>&1 &
	p1=$!
	run "$T/t.ps" perf stat -a -I 100 -e "$ev" -o "$T/ps.out" -- sleep "$S" &
	p2=$!
	run "$T/t.psg" perf stat -a -I 100 -e "{$ev}" -o "$T/psg.out" -- sleep "$S" &
	p3=$!
	p4=
	if [ -n "$BASE_BENCH" ]; then
		run "$T/t.base" "$BASE_BENCH" "$S" 100 $aliases >"$T/base" 2>&1 &
		p4=$!
	fi
	wait $p1 $p2 $p3 $p4
	echo "run $k of $RUNS (load average $(cut -d' ' -f1-3 /proc/loadavg)):"
	grep -v '^#' "$T/unc" | sed 's/^/  /'
	line "uncored perf backend" "$T/t.unc"
	[ -n "$p4" ] && line "uncored perf backend, $BASE" "$T/t.base"
	line "perf stat -a -I 100 -e $ev" "$T/t.ps"
	line "perf stat -a -I 100 -e {$ev}" "$T/t.psg"
	ticks=$(sed -n 's/.* \([0-9]*\) ticks.*/\1/p' "$T/unc")
	echo "  (uncored made $ticks ticks; perf stat printed $(($(grep -c 'msr/' "$T/ps.out") / nev)) and $(($(grep -c 'msr/' "$T/psg.out") / nev)) intervals)"
	r=$(awk -v a="$(cpu "$T/t.unc")" -v g="$(cpu "$T/t.psg")" 'BEGIN { printf "%.3f", a / g }')
	rb=
	[ -n "$p4" ] && rb=$(awk -v a="$(cpu "$T/t.base")" -v g="$(cpu "$T/t.psg")" 'BEGIN { printf "%.3f", a / g }')
	echo "$r $rb" >>"$T/ratios"
	echo "  uncored / grouped perf stat CPU: $r${rb:+ (BASE: $rb)}"
done
med() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "uncored / grouped perf stat CPU over $RUNS side-by-side runs: $(cut -d' ' -f1 "$T/ratios" | tr '\n' ' ')median $(cut -d' ' -f1 "$T/ratios" | med)"
[ -n "$BASE_BENCH" ] &&
	echo "$BASE / grouped perf stat CPU in the same runs: $(cut -d' ' -f2 "$T/ratios" | tr '\n' ' ')median $(cut -d' ' -f2 "$T/ratios" | med)"

echo
# a sanitizer build's leak checker cannot run under ptrace
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
echo "system calls by strace -f -y over $SS s (another run, all three at once; strace slows them):"
strace -f -y -qq -o "$T/s.unc" "$BENCH" "$SS" 100 $aliases >"$T/unc2" 2>&1 &
q1=$!
strace -f -y -qq -o "$T/s.ps" perf stat -a -I 100 -e "$ev" -o "$T/ps2.out" -- sleep "$SS" &
q2=$!
strace -f -y -qq -o "$T/s.psg" perf stat -a -I 100 -e "{$ev}" -o "$T/psg2.out" -- sleep "$SS" &
q3=$!
wait $q1 $q2 $q3
# count FILE: system calls in all, then read(2), ioctl(2) and
# perf_event_open(2) on perf events (strace -y names their fds
# anon_inode:[perf_event]); a call strace split in two is counted once
count() {
	awk '/resumed>/ || /^[0-9]+ +(\+\+\+|---)/ { next }
	     { n++ }
	     /perf_event\]/ && / read\(/ { r++ }
	     /perf_event\]/ && / ioctl\(/ { i++ }
	     / perf_event_open\(/ { o++ }
	     END { printf "%d %d %d %d\n", n, r, i, o }' "$1"
}
t2=$(sed -n 's/.* \([0-9]*\) ticks.*/\1/p' "$T/unc2")
g2=$(sed -n 's/.*series, \([0-9]*\) groups.*/\1/p' "$T/unc2")
for x in "unc:uncored perf backend:$t2" \
	 "ps:perf stat, ungrouped:$(($(grep -c 'msr/' "$T/ps2.out") / nev))" \
	 "psg:perf stat, grouped:$(($(grep -c 'msr/' "$T/psg2.out") / nev))"; do
	f=${x%%:*} rest=${x#*:}
	name=${rest%%:*} k=${rest#*:}
	read -r n r i o <<<"$(count "$T/s.$f")"
	awk -v nm="$name" -v n="$n" -v r="$r" -v i="$i" -v o="$o" -v k="$k" \
		'BEGIN { printf "%-26s %d ticks/intervals: %d system calls in all (%.1f a tick), of them read(2) of a perf event %d (%.2f a tick), ioctl %d, perf_event_open %d\n",
			 nm, k, n, n / k, r, r / k, i, o }'
done
echo "uncored: $g2 groups"
exit 0
