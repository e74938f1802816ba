#!/bin/sh
# sim_tick.sh - the daemon's tick on the hsx simulator at 1, 2, 4 and 8
# sockets (every box at its maximum, the default baseline): counters,
# reads and writes per tick, mean tick and microseconds per counter, from
# the daemon's own uncored_tick_duration_seconds at a 100 ms interval.
#   sim_tick.sh BUILDDIR [SECONDS]
set -u
B=${1:?usage: sim_tick.sh BUILDDIR [SECONDS]}
D=${2:-5}
T=$(mktemp -d)
chmod 755 "$T"
# as root the daemon drops to a user: nobody, as the tests do
U=; [ "$(id -u)" = 0 ] && U="--user nobody"
trap 'kill $UP 2>/dev/null; rm -rf "$T"' EXIT INT TERM
UP=
m() { awk -v n="$2" '$1 == n { print $2; exit }' "$1"; }
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
for n in 1 2 4 8; do
	printf '{"platform": "hsx", "sockets": %s, "phases": [{"seconds": 10, "rates": {}}]}\n' "$n" >"$T/w$n.json"
	P=$(port)
	"$B/uncored" -c /dev/null --simulate=hsx --workload "$T/w$n.json" \
		-l "127.0.0.1:$P" -s "" -i 100 $U >"$T/log" 2>&1 &
	UP=$!
	k=0
	until curl -sf -o /dev/null "http://127.0.0.1:$P/healthz"; do
		k=$((k + 1)); [ $k -lt 300 ] || { echo "sim_tick: daemon did not start"; cat "$T/log"; exit 1; }
		sleep 0.1
	done
	sleep 1; curl -s "http://127.0.0.1:$P/metrics" >"$T/a"
	sleep "$D"; curl -s "http://127.0.0.1:$P/metrics" >"$T/b"
	awk -v r0="$(m "$T/a" uncored_hw_reads_total)" -v r1="$(m "$T/b" uncored_hw_reads_total)" \
	    -v w0="$(m "$T/a" uncored_hw_writes_total)" -v w1="$(m "$T/b" uncored_hw_writes_total)" \
	    -v t0="$(m "$T/a" uncored_ticks_total)" -v t1="$(m "$T/b" uncored_ticks_total)" \
	    -v s0="$(m "$T/a" uncored_tick_duration_seconds_sum)" -v s1="$(m "$T/b" uncored_tick_duration_seconds_sum)" \
	    -v c="$(grep -c '^uncore_event_total' "$T/b")" -v n="$n" \
	    'BEGIN { us = (s1 - s0) / (t1 - t0) * 1e6;
		     printf "hsx %d socket%s: %4d counters; per tick %6.1f reads, %6.1f writes; tick %7.1f us, %.2f us/counter\n",
			    n, (n > 1 ? "s" : " "), c, (r1 - r0) / (t1 - t0), (w1 - w0) / (t1 - t0), us, us / c }'
	kill $UP; wait $UP 2>/dev/null; UP=
done
