#!/bin/bash
# auth_flood.sh - wrong passwords from many addresses just after a start
# (issue 39 finding 9).  Sixteen loops from 127.0.0.2-9 flood a freshly
# started daemon (its verdict cache empty) with new wrong passwords; the
# configured user, from 127.0.0.1, must get 200 while the flood runs.
# It got 503 for 10.7 s and 50.8 s: its one check queued behind the
# flood's, and the bcrypt budget the flood used up answered it 503.  The
# assertions are on order and counts: the user's 200 comes before the
# flood ends, at the first try (an address that has not asked for a
# check lately goes ahead of the flood's), and the flood still gets
# 503s.  Today's code answered it 503 on 3 of 4 tries here.
. "${top_srcdir:-.}/tests/lib.sh"

export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}atexit_sleep_ms=0"
HASH="$top_builddir/tests/tools/bcrypt-hash"
PORT=$(pick_port)
cd "$T" || exit 1
: >empty.conf
URL="http://127.0.0.1:$PORT/metrics"
CTL="http://x/metrics --unix-socket $T/ctl"
ctl_metric() { curl -s $CTL >ctl.prom && metric ctl.prom "$1" "$2"; }

printf 'basic_auth_users:\n  prom: %s\n' "$("$HASH" s3cret 10)" >web.yml
"$UNCORED" -c empty.conf --simulate -i 100 -l "127.0.0.1:$PORT" -s "$T/ctl" \
	--web-config web.yml >log 2>&1 &
UPID=$!; tap_cleanup_pid $UPID
wait_healthy_ctl() { curl -sf -o /dev/null --unix-socket "$T/ctl" http://x/healthz; }
wait_for "the control socket" 30 wait_healthy_ctl

# Finding 10: an unknown user's answer is a known user's wrong
# password's, byte for byte but the date, and costs one check as well.
# (From 127.0.0.10: an address that asked for a check lately no longer
# goes ahead of the flood, and the user's below must.)
answer() { # answer USER:PASS FILE: the answer, its Date header dropped
	curl -s -i --interface 127.0.0.10 -u "$1" "$URL" |
		grep -iv '^date:' >"$2"
}
r0=$(ctl_metric uncored_http_auth_checks_total 'result="refused"')
answer prom:wrong-known known.txt
r1=$(ctl_metric uncored_http_auth_checks_total 'result="refused"')
answer nosuch:wrong-unknown unknown.txt
r2=$(ctl_metric uncored_http_auth_checks_total 'result="refused"')
cmp -s known.txt unknown.txt
ok $? "an unknown user's answer is a known user's wrong password's ($(head -1 known.txt | tr -d '\r'))"
is "$((r1 - r0)):$((r2 - r1))" "1:1" "... each after one bcrypt check"

# flood K: new wrong passwords from 127.0.0.(2 + K % 8) until ./stop,
# 200 a curl (one connection, kept alive: a loop of curls was too slow
# to keep the budget used up on a loaded machine)
flood() {
	local n=0 i src=127.0.0.$((2 + $1 % 8))
	while [ ! -e stop ]; do
		for i in $(seq 1 200); do
			echo "url = \"http://prom:wrong-$1-$n-$i@127.0.0.1:$PORT/metrics\""
			echo "output = /dev/null"
		done >"flood.$1.cfg"
		curl -s -K "flood.$1.cfg" -w '%{http_code}\n' --interface "$src" \
			>>"flood.$1" 2>/dev/null
		n=$((n + 1))
	done
}
F=
for k in $(seq 0 15); do flood "$k" & F="$F $!"; tap_cleanup_pid $!; done
# the flood is at full strength once the budget refuses some of it
busy() { b=$(ctl_metric uncored_http_auth_busy_total ""); [ "${b:-0}" -ge 20 ]; }
wait_for "the flood to use up the bcrypt budget" 60 busy
ok $? "the flood from 127.0.0.2-9 is answered 503 past the budget ($b so far)"

# the configured user, once a second, at most 30 tries while it floods
tries=0 code=
while [ "$tries" -lt 30 ]; do
	tries=$((tries + 1))
	code=$(curl -s -m 60 -o /dev/null -w '%{http_code}' -u prom:s3cret "$URL")
	echo "# try $tries: $code"
	[ "$code" = 200 ] && break
	sleep 1
done
flooding=$(ls flood.? flood.?? 2>/dev/null | wc -l)
kill -0 $F 2>/dev/null; running=$?
touch stop
wait $F
cat flood.? flood.?? >flood.all
sent=$(wc -l <flood.all); f503=$(grep -c '^503$' flood.all); f200=$(grep -c '^200$' flood.all)
echo "# the flood: $sent wrong passwords sent, $f503 answered 503"
is "$code:$tries" 200:1 "the configured user: 200 at its first try (of at most 30, one a second) while 16 loops flood"
is "$running:$flooding" "0:16" "... the 16 flood loops still running when it got its answer"
is "$f200" 0 "... and no wrong password got 200"
[ "$f503" -gt 0 ]
ok $? "... while the flood kept getting 503 ($f503 of $sent)"
is "$(ctl_metric uncored_http_auth_checks_total 'result="accepted"')" 1 \
	"... the user checked once"
kill -TERM $UPID; wait $UPID
tap_done
