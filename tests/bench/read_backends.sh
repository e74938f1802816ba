#!/bin/bash
# read_backends.sh - uncored_read() round trips of a pinned claim on each
# backend (issue 40, section 5): skl and hsx on the direct backend, skx on
# the perf backend, each on the simulator at a 100 ms interval, quiet and
# then beside LOAD more busy loops (a loaded machine, as the issue measured:
# load 7-11 on 2 cores), in the same run.  Prints p50, p99 and max of
# 10,000 reads, and the daemon's mean tick duration over the reads.
# Usage: tests/bench/read_backends.sh [BUILD_DIR] [LOAD (8)] [READS (10000)]
# (ONLY="hsx-direct ..." runs those; UNCORED=PATH another daemon binary,
# for an A/B of two builds)
set -u
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$top_srcdir/build}
LOAD=${2:-8}
N=${3:-10000}
T=$(mktemp -d /tmp/uncored-readbk.XXXXXX)
chmod 755 "$T"
pid=
burn=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$burn" ] && kill $burn 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
BL="$B/tests/bench/bench_lib"
[ -x "$BL" ] || make -C "$B" tests/bench/bench_lib >/dev/null || exit 1
user=; [ "$(id -u)" = 0 ] && user="--user nobody"

cat >"$T/skx.json" <<'JSON'
{ "platform": "skx", "sockets": 2, "cha_count": 28, "phases": [ { "seconds": 3600, "rates": {
  "imc:0x04:0x03": 1.0e8, "imc:0x04:0x0c": 5.0e7,
  "cha:0x35:0x31:filter0=0x3b00000000": 2.0e8, "cha:0x35:0x21:filter0=0x3b00000000": 4.0e7,
  "cha:0x00:0x00": 6.72e10 } } ] }
JSON

# one NAME WORKLOAD BACKEND EVENT: a daemon, N reads, its tick duration
one() {
	local port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000 ))
	local s="$T/$1.sock" a b
	"${UNCORED:-$B/uncored}" $user --simulate -i 100 --backend="$3" -l "127.0.0.1:$port" \
		-s "$s" --workload "$2" >"$T/$1.log" 2>&1 &
	pid=$!
	# up, and a first sample taken (the claim reads need one)
	for _ in $(seq 1 300); do
		curl -fs "http://127.0.0.1:$port/api/v1/status" | grep -q '"ring_head":[1-9]' && break
		sleep 0.1
	done
	a=$(curl -s "http://127.0.0.1:$port/metrics" | grep '^uncored_tick_duration_seconds_\(sum\|count\)' | awk '{ print $2 }' | tr '\n' ' ')
	printf '%-12s ' "$1"
	"$BL" read "$s" "$N" "$4" | sed 's/uncored_read round trip, //'
	b=$(curl -s "http://127.0.0.1:$port/metrics" | grep '^uncored_tick_duration_seconds_\(sum\|count\)' | awk '{ print $2 }' | tr '\n' ' ')
	echo "$a $b" | awk '{ n = $4 - $2; if (n > 0) printf "             ticks meanwhile: %d, mean duration %.1f us\n", n, ($3 - $1) / n * 1e6 }'
	kill "$pid"; wait "$pid" 2>/dev/null; pid=
}

all() {
	for p in ${ONLY:-skl-direct hsx-direct skx-perf}; do
		case $p in
		skl-direct) one $p "$top_srcdir/conf/workloads/skl-default.json" direct DRAM_DATA_READS ;;
		hsx-direct) one $p "$top_srcdir/conf/workloads/hsx-default.json" direct UNC_M_CAS_COUNT.RD ;;
		skx-perf) one $p "$T/skx.json" perf UNC_M_CAS_COUNT.RD ;;
		esac
	done
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); kernel $(uname -r)"
echo "the machine as it is (load average $(cut -d' ' -f1-3 /proc/loadavg) before)"
all
if [ "$LOAD" -gt 0 ]; then
	for _ in $(seq 1 "$LOAD"); do (while :; do :; done) & burn="$burn $!"; done
	sleep 5
	echo "beside $LOAD more busy loops (load average $(cut -d' ' -f1-3 /proc/loadavg) at the start)"
	all
fi
