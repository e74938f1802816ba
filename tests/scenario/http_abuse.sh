#!/bin/bash
# http_abuse.sh - bad and hostile HTTP: malformed requests, oversized
# bodies and headers, claim routes over TCP, and slow clients holding
# connections while scrapes keep being answered.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
printf '[http]\ntimeout_s = 2\nmax_per_ip = 8\nmax_connections = 16\n' >"$T/c.conf"
start_uncored "$T/log" -c "$T/c.conf" --simulate -l "127.0.0.1:$PORT" -s "$T/ctl.sock" -i 100
ok $? "daemon up"

raw() { # raw REQUEST: sends bytes, prints the status line
	exec 3<>"/dev/tcp/127.0.0.1/$PORT"
	printf '%b' "$1" >&3
	timeout 5 head -1 <&3 | tr -d '\r'
	exec 3<&- 3>&-
}
# libmicrohttpd answers what it can parse with 400 and closes the
# connection on what it cannot: either way nothing is served.
refused() { case $1 in "" | "HTTP/1."[01]" "[45]*) return 0 ;; *) return 1 ;; esac; }
for req in 'GARBAGE\r\n\r\n' 'GET  HTTP/1.1\r\n\r\n' 'GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n' \
	'GET /metrics\x01 HTTP/1.1\r\nHost: x\r\n\r\n' '\x00\x01\x02\x03\r\n\r\n'; do
	st=$(raw "$req")
	refused "$st"; ok $? "malformed request refused: '$req' -> '${st:-connection closed}'"
done
like "$(raw 'GET  HTTP/1.1\r\n\r\n')" "400" "an empty request target: 400"
is "$(http_code "http://127.0.0.1:$PORT/metrics")" 200 "still serving after malformed requests"
big=$(head -c 70000 /dev/zero | tr '\0' a)
is "$(http_code "http://127.0.0.1:$PORT/metrics" -H "X-Big: $big")" 431 \
	"oversized header refused" || true
is "$(http_code "http://127.0.0.1:$PORT/api/v1/status" --data-binary "@/dev/null" -X POST)" 405 \
	"POST to a GET route: 405"
head -c 70000 /dev/zero >"$T/body"
c=$(http_code "http://x/api/v1/status" --unix-socket "$T/ctl.sock" -X POST --data-binary "@$T/body")
ok "$([ "$c" = 413 ] || [ "$c" = 405 ]; echo $?)" "64 KiB+ body refused ($c)"
is "$(http_code "http://127.0.0.1:$PORT/api/v1/status?x=%zz")" 200 "junk query parameters are ignored"
is "$(http_code "http://127.0.0.1:$PORT/api/v1/samples?limit=99999999999999999999")" 400 \
	"overflowing limit: 400"

# Slow clients: hold 6 half-sent requests open; scrapes must still work.
# (Each client holds its connection for 6 s: the client's behaviour,
# not a wait.  The server is to drop them after timeout_s = 2.)
conns() { ss -Htn state established "( sport = :$PORT )" | wc -l; }
conns_are() { [ "$(conns)" -eq "$1" ]; }
conns_ge() { [ "$(conns)" -ge "$1" ]; }
t_open=$(date +%s%N)
i=0
while [ $i -lt 6 ]; do
	( exec 3<>"/dev/tcp/127.0.0.1/$PORT"; printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n' >&3; sleep 6 ) &
	tap_cleanup_pid $!
	i=$((i + 1))
done
wait_for "6 slow connections established" 30 conns_ge 6
t0=$(date +%s%N)
good=0
for _ in 1 2 3 4 5; do
	[ "$(http_code "http://127.0.0.1:$PORT/metrics" -m 2)" = 200 ] && good=$((good + 1))
done
t1=$(date +%s%N)
is "$good" 5 "5/5 scrapes answered while 6 slow clients hold connections"
ok "$([ $(( (t1 - t0) / 1000000 )) -lt 2000 ]; echo $?)" "promptly ($(( (t1 - t0) / 1000000 )) ms for 5)"
wait_for "the slow clients dropped" 30 conns_are 0
held=$(( ($(date +%s%N) - t_open) / 1000000 ))
is "$(conns)" 0 "slow clients are dropped after timeout_s"
# timeout_s is 2: dropped after it, well before the clients' own 6 s
ok "$([ "$held" -ge 2000 ] && [ "$held" -lt 4000 ]; echo $?)" \
	"... 2 s after they connected, not at their own end ($held ms)"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
tap_done
