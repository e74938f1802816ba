#!/bin/bash
# tls_nginx.sh - /metrics against nginx in every serving mode, side by
# side on the same bytes (issue 27, 7b): plain, gzip, TLS and TLS+gzip.
#
# One uncored on the skl simulator (built-in workload, default 1 s
# interval) with two TCP listeners' worth of daemons: one plain, one with
# a web config (tls_server_config, a P-256 certificate made here with
# openssl); nginx (worker_processes auto, sendfile, gzip_static, the same
# certificate, TLS 1.2 and 1.3 as nginx 1.23.4 and later allow by
# default, 1.22's default leaving 1.3 out; session cache and tickets at
# nginx's defaults) serves
# a copy of the TLS daemon's page and its `gzip -1` (as the daemon
# compresses) on a plain and a TLS port.  For each mode, ROUNDS rounds of
# `wrk -t2 -c16 -dSECONDS` alternating uncored, nginx (uncored first in
# odd rounds, nginx first in even ones); each round's uncored/nginx
# requests-per-second ratio and the median of the rounds are printed,
# and each run's server CPU per request (all threads or processes,
# schedstat): on a machine shared with other work the rate moves with
# the load, the CPU a request costs much less.  For uncored, the share
# of each run its one TCP thread (uncored-http) spent on a CPU and
# waiting for one: near 100 % it never slept, and one thread's CPU is
# what bounds the rate (issue 38, doc/performance.md).
# wrk keeps its connections open: one handshake per connection, then
# every request is record encryption of the body.  Servers listen on
# 127.0.0.1 only and are stopped at the end.
# With BASE=OTHER_BUILD_DIR in the environment, that build's daemons
# (plain and TLS) run in the same rounds as a third server, so a change
# is compared with what it changed under the same load.
# Needs wrk, nginx (Debian: nginx-light), openssl and curl.
# Usage: tests/bench/tls_nginx.sh BUILD_DIR [ROUNDS] [SECONDS] [CONNS]
set -u
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:?usage: tls_nginx.sh BUILD_DIR [ROUNDS] [SECONDS] [CONNS]}
ROUNDS=${2:-5}
DUR=${3:-5}
CONNS=${4:-16}
UNCORED=$B/uncored
T=$(mktemp -d /tmp/uncored-tls.XXXXXX)
chmod 755 "$T"		# nginx's workers and the daemon run as nobody
pids=
NGX=
stop_all() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	[ -n "$NGX" ] && nginx -p "$T/ngx" -c "$T/ngx/nginx.conf" -s stop 2>/dev/null
}
trap 'stop_all; rm -rf "$T"' EXIT
port() { echo $(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000 )); }
up() { for _ in $(seq 1 150); do curl -kfs -o /dev/null "$1" && return 0; sleep 0.1; done; return 1; }
for c in wrk nginx openssl curl; do
	command -v $c >/dev/null || { echo "tls_nginx: SKIP: $c is not installed"; exit 77; }
done
[ -x "$UNCORED" ] || { echo "tls_nginx: build first ($UNCORED missing)" >&2; exit 1; }
USER_ARGS=
[ "$(id -u)" = 0 ] && USER_ARGS="--user nobody"

cd "$T" || exit 1
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" -days 2 \
	-keyout srv.key -out srv.crt 2>/dev/null || { echo "tls_nginx: openssl failed"; exit 1; }
chmod a+r srv.key srv.crt
printf 'tls_server_config:\n  cert_file: %s/srv.crt\n  key_file: %s/srv.key\n' "$T" "$T" >web.yml
printf '[http]\nmax_connections = 256\nmax_per_ip = 256\n' >http.conf
P=$(port); PT=$(port); NP=$(port); NPT=$(port)
"$UNCORED" $USER_ARGS -c http.conf --simulate -l "127.0.0.1:$P" -s "" >d.log 2>&1 &
U=$!; pids="$pids $U"
"$UNCORED" $USER_ARGS -c http.conf --simulate -l "127.0.0.1:$PT" -s "" --web-config web.yml >dt.log 2>&1 &
UT=$!; pids="$pids $UT"
if [ -n "${BASE:-}" ]; then
	PB=$(port); PBT=$(port)
	"$BASE/uncored" $USER_ARGS -c http.conf --simulate -l "127.0.0.1:$PB" -s "" >b.log 2>&1 &
	UB=$!; pids="$pids $UB"
	"$BASE/uncored" $USER_ARGS -c http.conf --simulate -l "127.0.0.1:$PBT" -s "" --web-config web.yml >bt.log 2>&1 &
	UBT=$!; pids="$pids $UBT"
	up "http://127.0.0.1:$PB/healthz" && up "https://127.0.0.1:$PBT/healthz" ||
		{ echo "tls_nginx: BASE daemons did not start"; cat b.log bt.log; exit 1; }
fi
up "http://127.0.0.1:$P/healthz" && up "https://127.0.0.1:$PT/healthz" ||
	{ echo "tls_nginx: daemons did not start"; cat d.log dt.log; exit 1; }
sleep 1.5
mkdir -p ngx/logs ngx/www
curl -ks "https://127.0.0.1:$PT/metrics" >ngx/www/metrics
gzip -1 -kf ngx/www/metrics
chmod -R a+rX ngx/www
cat >ngx/nginx.conf <<EOF
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
	server {
		listen 127.0.0.1:$NPT ssl;
		ssl_certificate $T/srv.crt; ssl_certificate_key $T/srv.key;
		ssl_protocols TLSv1.2 TLSv1.3;
		root $T/ngx/www;
	}
}
EOF
nginx -p "$T/ngx" -c "$T/ngx/nginx.conf" || { echo "tls_nginx: nginx did not start"; cat ngx/error.log; exit 1; }
NGX=1
up "http://127.0.0.1:$NP/metrics" && up "https://127.0.0.1:$NPT/metrics" ||
	{ echo "tls_nginx: nginx does not answer"; cat ngx/error.log; exit 1; }
# the workers are up once it answers
NGXPIDS="$(cat ngx/nginx.pid) $(pgrep -P "$(cat ngx/nginx.pid)" | tr '\n' ' ')"

echo "machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); kernel $(uname -r)"
echo "uncored $("$UNCORED" --version | cut -d' ' -f2), $(nginx -v 2>&1 | sed 's/.*: //'), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "page: $(wc -c <ngx/www/metrics) bytes, gzip $(wc -c <ngx/www/metrics.gz); TLS: $(curl -kvs -o /dev/null "https://127.0.0.1:$PT/healthz" 2>&1 | sed -n 's/^\* SSL connection using //p') (uncored), $(curl -kvs -o /dev/null "https://127.0.0.1:$NPT/metrics" 2>&1 | sed -n 's/^\* SSL connection using //p') (nginx)"
echo "wrk -t2 -c$CONNS -d${DUR}s, $ROUNDS rounds alternating; req/s; nginx processes: $NGXPIDS"

# CPU time in ns of every thread of the given processes (schedstat)
cpu_ns() {
	local t=0 v f
	for p in "$@"; do
		for f in /proc/$p/task/*/schedstat; do read -r v _ <"$f" 2>/dev/null && t=$((t + v)); done
	done
	echo $t
}
# "RUN WAIT" ns of the uncored-http thread of the given processes (none:
# "0 0"): time on a CPU, and runnable but waiting for one (schedstat)
http_ns() {
	local f c r=0 w=0 a b
	for p in "$@"; do
		for f in /proc/$p/task/*; do
			read -r c <"$f/comm" 2>/dev/null || continue
			[ "$c" = uncored-http ] || continue
			read -r a b _ <"$f/schedstat" && r=$((r + a)) w=$((w + b))
		done
	done
	echo "$r $w"
}
# rps URL ENC PIDS...: one wrk run's requests per second (0 on errors);
# adds the servers' CPU us per request to the file cpu, and the share of
# the run's wall time the uncored-http thread ran and waited for a CPU
# to the file busy ("run+wait%"; 100 % is a thread that never slept, the
# most one thread can serve: issue 38)
rps() {
	local u=$1 e=$2 c0 c1 h0 h1 t0 t1
	shift 2
	c0=$(cpu_ns "$@") h0=$(http_ns "$@") t0=$(date +%s%N)
	wrk -t2 -c"$CONNS" -d"${DUR}s" -H "Accept-Encoding: $e" "$u" >wrk.out 2>&1
	c1=$(cpu_ns "$@") h1=$(http_ns "$@") t1=$(date +%s%N)
	echo "$h0 $h1" | awk -v t=$((t1 - t0)) '$3 > $1 { printf "%.0f+%.0f%%\n", 100 * ($3 - $1) / t, 100 * ($4 - $2) / t }' >>busy
	if grep -q 'Non-2xx\|Socket errors' wrk.out; then
		grep 'Non-2xx\|Socket errors' wrk.out >&2
	fi
	awk -v d=$((c1 - c0)) '/requests in/ { printf "%.1f\n", d / 1e3 / $1 }' wrk.out >>cpu
	awk '/Requests\/sec/ { print $2 }' wrk.out
}
med() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for mode in plain gzip tls tls+gzip; do
	case $mode in
	plain|gzip) u=http://127.0.0.1:$P/metrics n=http://127.0.0.1:$NP/metrics up=$U
		    ub=http://127.0.0.1:${PB:-}/metrics upb=${UB:-} ;;
	tls*) u=https://127.0.0.1:$PT/metrics n=https://127.0.0.1:$NPT/metrics up=$UT
	      ub=https://127.0.0.1:${PBT:-}/metrics upb=${UBT:-} ;;
	esac
	e=identity
	case $mode in *gzip) e=gzip ;; esac
	: >ratios; : >ratios.b
	line= lineb= cu= cn= cb= bu=
	for r in $(seq 1 "$ROUNDS"); do
		# uncored, nginx (and BASE) in turn, who starts rotating
		order="u n${BASE:+ b}"
		for _ in $(seq 2 "$r"); do order="${order#* } ${order%% *}"; done
		for who in $order; do
			: >cpu; : >busy
			case $who in
			u) a=$(rps "$u" $e $up); cu="$cu $(cat cpu)"; bu="$bu $(cat busy)" ;;
			n) b=$(rps "$n" $e $NGXPIDS); cn="$cn $(cat cpu)" ;;
			b) c=$(rps "$ub" $e $upb); cb="$cb $(cat cpu)" ;;
			esac
		done
		x=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
		echo "$x" >>ratios
		line="$line $a/$b=${x}x"
		if [ -n "${BASE:-}" ]; then
			x=$(awk -v a="$c" -v b="$b" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
			echo "$x" >>ratios.b
			lineb="$lineb ${x}x"
		fi
	done
	printf "%-9s uncored/nginx req/s:%s; median %sx\n" "$mode" "$line" "$(med <ratios)"
	[ -n "${BASE:-}" ] &&
		printf "%-9s BASE/nginx in the same rounds:%s; median %sx\n" "$mode" "$lineb" "$(med <ratios.b)"
	printf "%-9s server CPU us per request: uncored%s; nginx%s%s\n" "$mode" "$cu" "$cn" "${BASE:+; BASE$cb}"
	printf "%-9s uncored-http thread, running+waiting for a CPU, %% of each run:%s\n" "$mode" "$bu"
done
exit 0
