#!/bin/bash
# bench.sh - the figures doc/performance.md reports, measured in one run
# (every ratio compares figures of the same run):
#   0. bytes and daemon CPU per /metrics scrape without and with gzip
#   1. hardware accesses per sampler tick (from uncored_hw_*_total)
#   2. /metrics at 1, 16 and 64 connections (wrk), with and without gzip:
#      uncored skl and hsx 2 sockets, nginx serving a byte-identical copy
#      of each (sendfile on; gzip_static for the gzip runs), and
#      prometheus-node-exporter with the time collector only and with its
#      default collectors; req/s, p50, p99 and server CPU per 1000 scrapes
#   3. hsx at 1, 2, 4 and 8 sockets, every box: counters, accesses and
#      tick time per tick, /metrics render and send time against nginx,
#      samples?limit=3600 time and RSS before/after/peak, and /metrics
#      latency while that request is in flight
#   4. the daemon's CPU, RSS and threads at the default 1 s interval
#   5. claims: create -> first counts; placement and tick time with
#      0, 10, 100 and 1000 claims
#   6. snbep on 2 simulated sockets (tests/bench/bench_platform.sh)
# Usage: tests/bench/bench.sh [BUILD_DIR] [IDLE_SECONDS] [gzip]
# Needs wrk, nginx and prometheus-node-exporter (Debian packages): the
# dependency step below installs what is missing (as root, with apt-get).
# Servers listen on 127.0.0.1 only and are stopped at the end.
set -u
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$top_srcdir/build}
IDLE=${2:-60}
UNCORED=$B/uncored
DUR=${BENCH_SECONDS:-5}
T=$(mktemp -d /tmp/uncored-bench.XXXXXX)
chmod 755 "$T"		# nginx's workers and the daemon run as nobody
pids=
NGX=
stop_all() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	pids=
	[ -n "$NGX" ] && nginx -p "$T/ngx" -c "$T/ngx/nginx.conf" -s stop 2>/dev/null
	NGX=
}
trap 'stop_all; rm -rf "$T"' EXIT
port() { echo $(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000 )); }
up() { for _ in $(seq 1 150); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done; return 1; }
m() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
# per_tick A B: reads, writes and tick us per tick between two scrapes
# of /metrics, and the active counters
per_tick() {
	awk -v r0="$(m "$1" uncored_hw_reads_total)" -v r1="$(m "$2" uncored_hw_reads_total)" \
	    -v w0="$(m "$1" uncored_hw_writes_total)" -v w1="$(m "$2" uncored_hw_writes_total)" \
	    -v t0="$(m "$1" uncored_ticks_total)" -v t1="$(m "$2" uncored_ticks_total)" \
	    -v s0="$(m "$1" uncored_tick_duration_seconds_sum)" -v s1="$(m "$2" uncored_tick_duration_seconds_sum)" \
	    -v n="$(grep -c '^uncore_event_total' "$2")" \
	    'BEGIN { printf "%.2f %.2f %.1f %d\n", (r1 - r0) / (t1 - t0), (w1 - w0) / (t1 - t0), (s1 - s0) / (t1 - t0) * 1e6, n }'
}

# dependencies of the benchmark only (not of the tests)
need=
for c in wrk:wrk nginx:nginx-light prometheus-node-exporter:prometheus-node-exporter; do
	command -v "${c%%:*}" >/dev/null 2>&1 || need="$need ${c#*:}"
done
if [ -n "$need" ]; then
	echo "bench: installing$need"
	{ apt-get update -qq && apt-get install -y -qq $need; } >"$T/apt.log" 2>&1 ||
		{ echo "bench: cannot install$need (see apt-get)"; exit 1; }
fi
[ -x "$UNCORED" ] || { echo "bench: build first ($UNCORED missing)" >&2; exit 1; }
USER_ARGS=
[ "$(id -u)" = 0 ] && USER_ARGS="--user nobody"
# wrk -c64 from one address: the per-IP and total limits must allow it
printf '[http]\nmax_connections = 256\nmax_per_ip = 256\n' >"$T/http.conf"

echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "kernel: $(uname -r); uncored $("$UNCORED" --version | cut -d' ' -f2); $(nginx -v 2>&1 | sed 's/.*: //'); node_exporter $(prometheus-node-exporter --version 2>&1 | awk 'NR == 1 { print $3 }'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# CPU time in ns of every thread of the given processes (schedstat's
# first field; stat's utime/stime count 10 ms ticks: too coarse)
cpu_ns() {
	local t=0 v f
	for p in "$@"; do
		for f in /proc/$p/task/*/schedstat; do read -r v _ <"$f" 2>/dev/null && t=$((t + v)); done
	done
	echo $t
}
uncored() { # uncored LOG ARGS...: starts a daemon, sets UP
	local log=$1
	shift
	"$UNCORED" $USER_ARGS "$@" >"$log.log" 2>&1 &
	UP=$!; pids="$pids $UP"
}

# 0. gzip: bytes and the daemon's CPU per /metrics scrape, without and
# with "Accept-Encoding: gzip" (one client, back to back).
# `bench.sh BUILD IDLE gzip` runs this section alone.
P=$(port)
uncored "$T/d0" -c /dev/null --simulate -l "127.0.0.1:$P" -s ""
up "http://127.0.0.1:$P/healthz" || { echo "bench: daemon did not start"; cat "$T/d0.log"; exit 1; }
sleep 1.5
for enc in identity gzip; do
	bytes=$(curl -s -H "Accept-Encoding: $enc" "http://127.0.0.1:$P/metrics" | wc -c)
	c0=$(cpu_ns $UP)
	wrk -t1 -c1 -d${DUR}s -H "Accept-Encoding: $enc" "http://127.0.0.1:$P/metrics" >"$T/wrk.$enc" 2>&1
	c1=$(cpu_ns $UP)
	n=$(awk '/requests in/ { print $1 }' "$T/wrk.$enc")
	awk -v e="$enc" -v b="$bytes" -v c="$((c1 - c0))" -v n="$n" \
	    'BEGIN { printf "/metrics Accept-Encoding: %-8s %6d bytes, %5.1f us daemon CPU per scrape (%d scrapes)\n", e, b, c / n / 1e3, n }'
done
stop_all
[ "${3:-}" = gzip ] && exit 0

# 1. accesses per tick at 100 ms (same per tick at any interval)
P=$(port)
uncored "$T/d1" -c /dev/null --simulate -l "127.0.0.1:$P" -s "" -i 100
up "http://127.0.0.1:$P/healthz" || { echo "bench: daemon did not start"; cat "$T/d1.log"; exit 1; }
sleep 1; curl -s "http://127.0.0.1:$P/metrics" >"$T/a"
sleep 5; curl -s "http://127.0.0.1:$P/metrics" >"$T/b"
set -- $(per_tick "$T/a" "$T/b")
echo "per tick: $1 reads, $2 writes for $4 active counters (sim backend); mean tick $3 us"
stop_all

# 2. /metrics against nginx and node_exporter, same run
# nginx: Debian's defaults that matter (worker_processes auto, sendfile
# on), no access log, the page under $T/ngx/www/<name>/metrics
ngx_start() {
	NP=$(port)
	mkdir -p "$T/ngx/logs"
	cat >"$T/ngx/nginx.conf" <<EOF
worker_processes auto;
user nobody nogroup;
pid $T/ngx/nginx.pid;
error_log $T/ngx/error.log;
events { worker_connections 1024; }
http {
	sendfile on; tcp_nopush on; access_log off; gzip_static on;
	types { }
	default_type "text/plain; version=0.0.4; charset=utf-8";
	server { listen 127.0.0.1:$NP; root $T/ngx/www; }
}
EOF
	nginx -p "$T/ngx" -c "$T/ngx/nginx.conf" || return 1
	NGX=1
	for _ in $(seq 1 50); do [ -s "$T/ngx/nginx.pid" ] && break; sleep 0.1; done
	NGXPIDS="$(cat "$T/ngx/nginx.pid") $(pgrep -P "$(cat "$T/ngx/nginx.pid")" | tr '\n' ' ')"
}
# copy NAME URL: the page as nginx serves it, plain and gzip -1 (as the
# daemon compresses)
copy() {
	mkdir -p "$T/ngx/www/$1"
	curl -s "$2" >"$T/ngx/www/$1/metrics"
	gzip -1 -kf "$T/ngx/www/$1/metrics"
	chmod -R a+rX "$T/ngx/www"
}
# run WHO URL CONNS ENC PIDS...: one wrk run; prints a line, sets RPS
run() {
	local who=$1 u=$2 c=$3 enc=$4 t=2 c0 c1 n
	shift 4
	[ "$c" = 1 ] && t=1
	c0=$(cpu_ns "$@")
	h0=$(http_ns "$1")
	wrk -t$t -c$c -d${DUR}s --latency -H "Accept-Encoding: $enc" "$u" >"$T/wrk" 2>&1
	c1=$(cpu_ns "$@")
	h1=$(http_ns "$1")
	n=$(awk '/requests in/ { print $1 }' "$T/wrk")
	RPS=$(awk '/Requests\/sec/ { print $2 }' "$T/wrk")
	printf "%-22s c%-3s %-8s %10s req/s  p50 %-8s p99 %-8s CPU %6.1f ms/1000 scrapes %s\n" \
		"$who" "$c" "$enc" "$RPS" "$(awk '$1 == "50%" { print $2 }' "$T/wrk")" \
		"$(awk '$1 == "99%" { print $2 }' "$T/wrk")" \
		"$(awk -v d=$((c1 - c0)) -v n="$n" 'BEGIN { print d / 1e3 / n }')" \
		"$(awk '/Non-2xx|Socket errors/' "$T/wrk" | tr '\n' ' ')$([ "$h0" ] &&
		   awk -v d=$((h1 - h0)) -v s=$DUR 'BEGIN { printf "(HTTP thread %.0f%% of a core)", d / 1e7 / s }')"
}
# CPU ns of the daemon's HTTP thread, or nothing for other servers
http_ns() {
	local f v
	for f in /proc/$1/task/*; do
		[ "$(cat "$f/comm" 2>/dev/null)" = uncored-http ] && read -r v _ <"$f/schedstat" && echo "$v"
	done
}
P=$(port); P2=$(port); NEP=$(port); NEP2=$(port)
uncored "$T/d2" -c "$T/http.conf" --simulate -l "127.0.0.1:$P" -s ""; SKL=$UP
uncored "$T/d2h" -c "$T/http.conf" --simulate=hsx -l "127.0.0.1:$P2" -s ""; HSX=$UP
# --web.max-requests=0: node_exporter's default (40 in flight) answers
# 503 to part of a 64-connection run
prometheus-node-exporter --collector.disable-defaults --collector.time \
	--web.max-requests=0 --web.listen-address="127.0.0.1:$NEP" >"$T/ne.log" 2>&1 &
NE=$!; pids="$pids $NE"
prometheus-node-exporter --web.max-requests=0 \
	--web.listen-address="127.0.0.1:$NEP2" >"$T/ne2.log" 2>&1 &
NE2=$!; pids="$pids $NE2"
up "http://127.0.0.1:$P/healthz" && up "http://127.0.0.1:$P2/healthz" &&
	up "http://127.0.0.1:$NEP/metrics" && up "http://127.0.0.1:$NEP2/metrics" ||
	{ echo "bench: servers did not start"; exit 1; }
sleep 1.5
copy skl "http://127.0.0.1:$P/metrics"
copy hsx "http://127.0.0.1:$P2/metrics"
ngx_start || { echo "bench: nginx did not start"; cat "$T/ngx/error.log"; exit 1; }
up "http://127.0.0.1:$NP/skl/metrics" || { echo "bench: nginx does not answer"; exit 1; }
echo "/metrics bodies: uncored skl $(wc -c <"$T/ngx/www/skl/metrics") bytes" \
     "(gzip $(wc -c <"$T/ngx/www/skl/metrics.gz")), hsx 2 sockets $(wc -c <"$T/ngx/www/hsx/metrics")" \
     "(gzip $(wc -c <"$T/ngx/www/hsx/metrics.gz")), node_exporter time only" \
     "$(curl -s "http://127.0.0.1:$NEP/metrics" | wc -c), default collectors" \
     "$(curl -s "http://127.0.0.1:$NEP2/metrics" | wc -c); nginx: $(echo $NGXPIDS | wc -w) processes"
for enc in identity gzip; do
	for c in 1 16 64; do
		run "uncored skl" "http://127.0.0.1:$P/metrics" $c $enc $SKL; u=$RPS
		run "nginx (skl copy)" "http://127.0.0.1:$NP/skl/metrics" $c $enc $NGXPIDS; n=$RPS
		run "uncored hsx 2s" "http://127.0.0.1:$P2/metrics" $c $enc $HSX; h=$RPS
		run "nginx (hsx copy)" "http://127.0.0.1:$NP/hsx/metrics" $c $enc $NGXPIDS; nh=$RPS
		run "node_exporter time" "http://127.0.0.1:$NEP/metrics" $c $enc $NE; e=$RPS
		run "node_exporter default" "http://127.0.0.1:$NEP2/metrics" $c $enc $NE2; e2=$RPS
		awk -v u="$u" -v n="$n" -v h="$h" -v nh="$nh" -v e="$e" -v e2="$e2" -v c=$c -v z=$enc \
		    'BEGIN { printf "ratios c%d %s: skl/nginx %.2fx, hsx/nginx %.2fx, skl/node_exporter(time) %.1fx, skl/node_exporter(default) %.1fx\n",
		             c, z, u / n, h / nh, u / e, u / e2 }'
	done
done
stop_all

# 3. hsx at 1, 2, 4 and 8 sockets, every box at its maximum (18 CBos, 8
# iMC channels, 3 QPI ports); 10 ms interval so the 3600-sample ring
# fills in 36 s
for s in 1 2 4 8; do
	cat >"$T/hsx$s.json" <<EOF
{ "platform": "hsx", "sockets": $s, "cbo_count": 18, "imc_channels": 8, "qpi_ports": 3,
  "uclk_hz": 1500000000, "cores": 8,
  "phases": [ { "seconds": 100000, "rates": { "imc:0x04:0x03": 6.25e7, "imc:0x04:0x0c": 3.125e7 } } ] }
EOF
	P=$(port)
	uncored "$T/d3" -c "$T/http.conf" --simulate=hsx --workload "$T/hsx$s.json" -l "127.0.0.1:$P" -s "" -i 10
	up "http://127.0.0.1:$P/healthz" || { echo "bench: hsx daemon did not start"; cat "$T/d3.log"; exit 1; }
	sleep 2; curl -s "http://127.0.0.1:$P/metrics" >"$T/h0"
	sleep 3; curl -s "http://127.0.0.1:$P/metrics" >"$T/h1"
	set -- $(per_tick "$T/h0" "$T/h1")
	awk -v r=$1 -v w=$2 -v t=$3 -v n=$4 -v s=$s \
	    'BEGIN { printf "hsx %d socket%s: %d counters; per tick %.1f reads, %.1f writes; tick %.1f us, %.2f us per counter\n",
	                    s, (s > 1 ? "s" : " "), n, r, w, t, t / n }'
	# render + send (the first scrape after a tick) and send only (the
	# next one), against nginx sending the same bytes: a second daemon
	# at 1 s so that both scrapes fall in one tick; medians of 5
	copy "hsx$s" "http://127.0.0.1:$P/metrics"
	[ -n "$NGX" ] || ngx_start
	PR=$(port)
	MAIN=$UP
	uncored "$T/d3r" -c "$T/http.conf" --simulate=hsx --workload "$T/hsx$s.json" -l "127.0.0.1:$PR" -s ""
	up "http://127.0.0.1:$PR/healthz" || exit 1
	ticks() { curl -s "http://127.0.0.1:$PR/api/v1/status" | sed -n 's/.*"ticks":\([0-9]*\).*/\1/p'; }
	for i in 1 2 3 4 5; do
		t0=$(ticks)
		while [ "$(ticks)" = "$t0" ]; do sleep 0.01; done
		curl -s -o /dev/null -w '%{time_total} ' "http://127.0.0.1:$PR/metrics"
		curl -s -o /dev/null -w '%{time_total} ' "http://127.0.0.1:$PR/metrics"
		curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$NP/hsx$s/metrics"
	done >"$T/rt"
	kill $UP; wait $UP 2>/dev/null
	UP=$MAIN
	med() { cut -d' ' -f"$1" "$T/rt" | sort -n | sed -n 3p; }
	awk -v a="$(med 1)" -v b="$(med 2)" -v c="$(med 3)" -v z="$(wc -c <"$T/ngx/www/hsx$s/metrics")" \
	    'BEGIN { printf "  /metrics %d bytes: render+send %.2f ms, send %.2f ms, nginx %.2f ms (curl time_total, median of 5)\n", z, a * 1e3, b * 1e3, c * 1e3 }'
	# the whole ring, with /metrics scraped meanwhile
	for _ in $(seq 1 900); do
		h=$(curl -s "http://127.0.0.1:$P/api/v1/status" | sed -n 's/.*"ring_head":\([0-9]*\).*/\1/p')
		[ "${h:-0}" -ge 3650 ] && break
		sleep 0.1
	done
	rss0=$(awk '/VmRSS/ { print $2 }' /proc/$UP/status)
	curl -s -o "$T/samples" -w '%{time_total}\n' "http://127.0.0.1:$P/api/v1/samples?limit=3600" >"$T/st" &
	CP=$!
	: >"$T/lat"
	while kill -0 $CP 2>/dev/null; do
		curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$P/metrics" >>"$T/lat"
	done
	wait $CP
	sleep 1
	rss1=$(awk '/VmRSS/ { print $2 }' /proc/$UP/status)
	hwm=$(awk '/VmHWM/ { print $2 }' /proc/$UP/status)
	n=$(wc -l <"$T/lat")
	awk -v t="$(cat "$T/st")" -v b="$(wc -c <"$T/samples")" -v r0="$rss0" -v r1="$rss1" -v h="$hwm" \
	    -v p50="$(sort -n "$T/lat" | sed -n "$(( (n + 1) / 2 ))p")" \
	    -v p99="$(sort -n "$T/lat" | sed -n "$(( (n * 99 + 99) / 100 ))p")" -v n="$n" \
	    'BEGIN { printf "  samples?limit=3600: %.0f MB in %.2f s; RSS %.1f MiB before, %.1f after (%.2fx), peak %.1f; %d concurrent /metrics: p50 %.1f ms, p99 %.1f ms\n",
	             b / 1e6, t, r0 / 1024, r1 / 1024, r1 / r0, h / 1024, n, p50 * 1e3, p99 * 1e3 }'
	stop_all
done

# 4. idle cost at the default 1 s interval, scraped every 15 s
P=$(port)
uncored "$T/d4" -c /dev/null --simulate -l "127.0.0.1:$P" -s ""
up "http://127.0.0.1:$P/healthz" || exit 1
c0=$(cpu_ns $UP)
sw0=$(awk '/ctxt_switches/ { s += $2 } END { print s }' /proc/$UP/task/*/status)
for _ in $(seq 1 $((IDLE / 15))); do curl -s -o /dev/null "http://127.0.0.1:$P/metrics"; sleep 15; done
sleep $((IDLE % 15))
c1=$(cpu_ns $UP)
sw1=$(awk '/ctxt_switches/ { s += $2 } END { print s }' /proc/$UP/task/*/status)
rss=$(awk '/VmRSS/ { print $2 }' /proc/$UP/status)
hwm=$(awk '/VmHWM/ { print $2 }' /proc/$UP/status)
thr=$(awk '/Threads/ { print $2 }' /proc/$UP/status)
awk -v c="$((c1 - c0))" -v s="$IDLE" -v r="$rss" -v h="$hwm" -v n="$thr" -v w="$((sw1 - sw0))" \
    'BEGIN { printf "idle at 1 s interval over %d s, scraped every 15 s: CPU %.4f%% of one core, %.1f wakeups/s, RSS %.1f MiB (peak %.1f MiB), %d threads\n",
             s, c / 1e9 / s * 100, w / s, r / 1024, h / 1024, n }'
stop_all

# 5. claims: create -> first counts, and the cost of placement per tick
P=$(port)
printf '[claims]\nmax_per_uid = 1000\nmax_total = 1000\n' >"$T/claims.conf"
for iv in 1000 100; do
	uncored "$T/d5" -c "$T/claims.conf" --simulate -l "127.0.0.1:$P" -s "$T/ctl.sock" -i $iv
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
	stop_all
done
for n in 0 10 100 1000; do
	"$B/tests/bench/bench_sched" $n 2>/dev/null || echo "placement (sched_select) with $n claims: not measured (bench_sched refuses $n)"
done
uncored "$T/d6" -c "$T/claims.conf" --simulate -l "127.0.0.1:$P" -s "$T/ctl.sock" -i 100
up "http://127.0.0.1:$P/healthz" || exit 1
tick() { curl -s "http://127.0.0.1:$P/metrics" >"$T/t"; echo "$(m "$T/t" uncored_tick_duration_seconds_sum) $(m "$T/t" uncored_tick_duration_seconds_count)"; }
evs=$(curl -s "http://127.0.0.1:$P/api/v1/events?unit=cbo" | grep -o '"name":"[^"]*"' | cut -d'"' -f4)
nev=$(echo "$evs" | wc -l)
have=0
for want in 0 10 100 1000; do
	while [ $have -lt $want ]; do
		e=$(echo "$evs" | sed -n "$(( have % nev + 1 ))p")
		curl -s -o /dev/null -w '%{http_code}' --unix-socket "$T/ctl.sock" -X POST http://x/api/v1/claims \
			-d "{\"events\":[\"$e\"],\"ttl_s\":600}" | grep -q 201 || break
		have=$((have + 1))
	done
	sleep 1; set -- $(tick); s0=$1; c0=$2; sleep 3; set -- $(tick); s1=$1; c1=$2
	awk -v a="$s0" -v b="$s1" -v x="$c0" -v y="$c1" -v n=$have \
	    'BEGIN { printf "daemon tick at 100 ms with %d live claims: %.1f us\n", n, (b - a) / (y - x) * 1e6 }'
	[ $have -lt $want ] && { echo "  (claims stopped at $have of $want: the daemon refused more)"; break; }
done
stop_all

# ---- 6. snbep: 2 simulated sockets with every box (built-in workload) ----
# (the snbep helper's block: one line from bench_platform.sh)
bash "$top_srcdir/tests/bench/bench_platform.sh" "$B" snbep
# ---- end of the snbep block ----
