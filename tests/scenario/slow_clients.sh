#!/bin/bash
# slow_clients.sh - slow clients cannot starve scrapes (issue 15 item 2):
# (a) 300 slow connections from loopback, the scraper's own address,
# reopened as soon as they are closed; (b) 80 connections from 8
# addresses, each trickling one header line more often than the idle
# timeout (the issue's 5 s against 10 s, here 2 s against timeout_s = 10),
# which an idle timeout never ends.  A scrape from the same or another address gets
# its 200 without waiting for a slow client's timeout, and the trickling
# requests are closed by the server (displaced, or at their deadline
# timeout_s after they started).  The slow clients run until the test
# stops them, so no timer of theirs races the server's.  (c) A scrape
# whose request comes late, after slow clients of its address arrived,
# is not displaced: the kernel hands connections over with their first
# bytes (TCP_DEFER_ACCEPT, http_listen.c).
. "${top_srcdir:-.}/tests/lib.sh"

SC="$top_builddir/tests/tools/slowclient"
PORT=$(pick_port)
printf '[http]\ntimeout_s = 10\n' >"$T/c.conf"	# defaults: 64 connections, 16 per IP
start_uncored "$T/log" -c "$T/c.conf" --simulate -l "127.0.0.1:$PORT" -s "" -i 100
ok $? "daemon up"

scrape() { # scrape SOURCE-ADDRESS: "CODE SECONDS CONNECT-SECONDS"
	curl -s -o /dev/null --interface "$1" -m 30 \
		-w '%{http_code} %{time_total} %{time_connect}' \
		"http://127.0.0.1:$PORT/metrics"
}
# fast() LABEL SOURCE: five scrapes, each a 200 sooner than timeout_s
# (10 s): none waited for a slow connection to time out.  On a quiet
# machine each takes milliseconds; the bound is the daemon's own timer,
# not a guess at how fast the machine is, and far enough from a scrape's
# time that a loaded machine's delays do not reach it.
fast() {
	local good=0 worst=0 conn=0 r t all=
	for _ in 1 2 3 4 5; do
		r=$(scrape "$2")
		all="$all${all:+; }$r"
		t=${r#* }; t=${t%% *}
		case $r in 200\ *) awk -v t="$t" 'BEGIN { exit !(t < 10.0) }' && good=$((good + 1)) ;; esac
		awk -v a="$worst" -v b="$t" 'BEGIN { exit !(b > a) }' && worst=$t conn=${r##* }
	done
	is "$good" 5 "$1: 5/5 scrapes 200 within timeout_s (slowest ${worst} s, ${conn} s of it to connect)"
	# (CI saw 4 of 5 from 127.0.0.1 twice, an empty reply: a burst of the
	# slow clients' reconnects displaced the scrape before the server read
	# its request; fixed in http_conn.c, conn_head_queued(), and kept by
	# test_http_conn.  Each scrape's code, seconds and connect seconds:)
	[ "$good" = 5 ] || echo "# scrapes: $all"
}

# held N: do slow clients hold at least N connections to the server?
held() { [ "$(ss -Htn state established "( sport = :$PORT )" | wc -l)" -ge "$1" ]; }

# (a) 300 slow loopback connections, reopened when closed
"$SC" -p "$PORT" -n 300 -a 127.0.0.1 -i 1 -t 120 -r >"$T/a.out" &
A=$!; tap_cleanup_pid $A
wait_for "loopback's 16 connections (max_per_ip) held" 30 held 16
fast "300 slow loopback connections, scrape from 127.0.0.1" 127.0.0.1
fast "300 slow loopback connections, scrape from 127.0.0.20" 127.0.0.20
ok "$(kill -0 $A 2>/dev/null; echo $?)" "... all while the slow connections were held"
kill $A; wait $A

# (b) 80 connections from 8 addresses, one header line every 2 s
"$SC" -p "$PORT" -n 80 -a 127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5,127.0.0.6,127.0.0.7,127.0.0.8,127.0.0.9 \
	-i 2 -t 120 >"$T/b.out" &
B=$!; tap_cleanup_pid $B
wait_for "64 connections (max_connections) held" 30 held 64
fast "80 trickling connections from 8 addresses, scrape from a ninth" 127.0.0.10
fast "80 trickling connections, scrape from one of their addresses" 127.0.0.2
ok "$(kill -0 $B 2>/dev/null; echo $?)" "... all while the trickling connections were held"
# every one of them is closed by the server - displaced by a limit or at
# its deadline (10 s after it started, although it sends a line every
# 2 s) - while the client still runs
none_held() { ! held 1; }
wait_for "the server to close the trickling connections" 60 none_held
ok "$(kill -0 $B 2>/dev/null; echo $?)" "all 80 trickling requests were closed by the server"
kill $B; wait $B

# (c) the race (a) met on a loaded machine, made certain: a scrape that
# connected, and whose request is held back (curl preempted between
# connect() and send()), while 20 slow clients of its address arrive.
# Before TCP_DEFER_ACCEPT the daemon took the connection with nothing
# received, and the 17th slow client displaced it: an empty reply.
late=$(python3 - "$PORT" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
s = socket.create_connection(("127.0.0.1", port))
time.sleep(0.3)
slow = []
for _ in range(20):
    o = socket.create_connection(("127.0.0.1", port))
    o.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    slow.append(o)
time.sleep(0.5)
try:
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    s.settimeout(10)
    print((s.recv(64).split(b"\r\n")[0] or b"an empty reply").decode())
except OSError as e:
    print(e)
PY
)
is "$late" "HTTP/1.1 200 OK" "a scrape whose request came 0.8 s late, after 20 slow clients of its address: 200"
is "$(http_code "http://127.0.0.1:$PORT/api/v1/status")" 200 "still serving"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
tap_done
