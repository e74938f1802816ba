#!/bin/bash
# control_budget.sh - the control socket's budget (issue 27 item 3).
# Before, 16 connections were shared by every local user and a new one
# over them displaced one idle for 0 s or was reset: 64 library readers
# saw about half their reads fail with -ECONNRESET (which uncored.h
# documents as "the daemon restarted, your claims are gone"), another
# user's claims all failed, and 16 Unix readers draining 64 KiB/s locked
# every other client out for as long as their answers lasted.  Now each
# peer uid has a share of the budget (control_max_per_uid, half of
# control_max_connections), an idle connection is displaced only after a
# grace of 1 s, a connection that finds no room gets its request answered
# 503 "busy" (not carried out; libuncored retries it, then returns
# -EAGAIN with the message), and a Unix answer must drain 256 KiB/s.
#   1. budget 16: 64 readers of root (8 fit its share) read 100 times a
#      second while uid 12346 claims and releases and a scraper scrapes:
#      every call succeeds or is busy with a message, none is reset or
#      fails otherwise; uid 12346 is never busy; every scrape is 200
#   2. 16 readers of uid 12346 draining 64 KiB/s: root's requests are
#      all answered, and the slow answers are closed at the write
#      deadline
#   3. the default budget (128, 64 a uid): 64 readers of root are all
#      served, none busy
# and, first, the library against a fake daemon (ctlflood fake): a claim
# answered busy twice is sent again and made; a request the daemon hangs
# up on is -ECONNABORTED unless another instance answers behind the
# socket (a restart: -ECONNRESET)
. "${top_srcdir:-.}/tests/lib.sh"

FLOOD="$top_builddir/tests/tools/ctlflood"
SLOW="$top_srcdir/tests/tools/slowunix.py"
PY=/usr/bin/python3	# one that uid 12346 can run (not a shim in ~root)
PORT=$(pick_port)
S="$T/ctl.sock"
chmod 711 "$T"		# the other uid must reach the socket inside
ALT="setpriv --reuid=12346 --regid=65534 --clear-groups"	# nogroup
cat >"$T/c.conf" <<'CONF'
[daemon]
interval_ms = 20
[http]
control_group = nogroup
control_max_connections = 16
[claims]
max_per_uid = 100
max_total = 200
CONF

# line KIND FILE: ctlflood's summary line of KIND ("reads", "churn")
line() { grep "^$1 ok" "$2"; }
# field KIND NAME FILE: a number of that line
field() { line "$1" "$3" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1) + 0; exit } }'; }

# the library against a fake daemon that answers busy or hangs up
"$FLOOD" fake "$T/fake.sock" >"$T/fake.out" 2>&1
n=0
while IFS= read -r l; do
	case $l in
	"ok "*) ok 0 "library: ${l#ok }"; n=$((n + 1)) ;;
	"not ok "*) ok 1 "library: ${l#not ok }"; n=$((n + 1)) ;;
	*) echo "# $l" ;;
	esac
done <"$T/fake.out"
is "$n" 5 "library: 5 checks ran"

start_uncored "$T/log" -c "$T/c.conf" --simulate -l "127.0.0.1:$PORT" -s "$S"
ok $? "daemon up, control budget 16 (8 a uid)"

# 1. 64 readers of root, one churner of uid 12346, a scraper
"$FLOOD" "$S" 64 6 100 >"$T/a.out" &
A=$!; tap_cleanup_pid $A
$ALT "$(uid_tool 12346 "$FLOOD")" "$S" 0 6 1 1 >"$T/b.out" &
B=$!; tap_cleanup_pid $B
scrapes=0 good=0
while kill -0 $A 2>/dev/null; do
	c=$(http_code "http://127.0.0.1:$PORT/metrics" -m 10)
	scrapes=$((scrapes + 1))
	[ "$c" = 200 ] && good=$((good + 1))
done
wait $A; wait $B
echo "# root:      $(line reads "$T/a.out")"
echo "# uid 12346: $(line churn "$T/b.out")"
grep '^# ' "$T/a.out" "$T/b.out" | head -5
is "$(field reads reset "$T/a.out")/$(field reads other "$T/a.out")/$(field reads silent "$T/a.out")" 0/0/0 \
	"64 readers of one uid over its share: no call reset or failed otherwise, every failure has a message"
ok $([ "$(field reads ok "$T/a.out")" -gt 0 ] && [ "$(field reads busy "$T/a.out")" -gt 0 ]; echo $?) \
	"... the calls succeeded ($(field reads ok "$T/a.out")) or were busy ($(field reads busy "$T/a.out"), -EAGAIN)"
# a busy call returns after 8 retries 5 ms to 640 ms apart (at least
# 0.95 s): 64 clients x 6 s allow fewer than 8 each
ok $([ "$(field reads busy "$T/a.out")" -le 512 ]; echo $?) \
	"... each busy call after the library's retries ($(field reads busy "$T/a.out") <= 64 x 8)"
is "$(field churn busy "$T/b.out")/$(field churn reset "$T/b.out")/$(field churn other "$T/b.out")" 0/0/0 \
	"another uid's claims and releases beside them: none busy, reset or failed"
ok $([ "$(field churn ok "$T/b.out")" -gt 0 ]; echo $?) "... $(field churn ok "$T/b.out") made"
is "$good" "$scrapes" "every scrape over TCP meanwhile: 200 ($good of $scrapes)"
busy=$(metric_now "$PORT" uncored_http_control_busy_total "")
ok $([ "${busy:-0}" -gt 0 ]; echo $?) "the daemon counts its busy answers: uncored_http_control_busy_total = $busy"

# 2. slow readers of uid 12346
if [ -x "$PY" ]; then
	wait_for "300 samples in the ring" 60 ring_has "$PORT" 300
	size=$(curl -s --unix-socket "$S" 'http://x/api/v1/samples?since=1&limit=3600&deltas=1' | wc -c)
	echo "# one answer to /api/v1/samples?since=1&limit=3600&deltas=1: $size bytes"
	w0=$(metric_now "$PORT" uncored_http_evictions_total 'reason="write_deadline"')
	$ALT "$PY" "$(uid_tool 12346 "$SLOW")" "$S" 16 '/api/v1/samples?since=1&limit=3600&deltas=1' \
		65536 30 >"$T/slow.out" &
	W=$!; tap_cleanup_pid $W
	writing() {
		n=$(metric_now "$PORT" uncored_http_connections 'listener="control",state="writing"')
		[ "${n:-0}" -ge 8 ]
	}
	wait_for "uid 12346's share of answers in flight" 30 writing
	ok $? "16 slow readers of uid 12346 hold its share: $n answers in flight"
	got=0
	for _ in $(seq 1 20); do
		[ "$(ctl_code "$S" -m 10 http://x/api/v1/status)" = 200 ] && got=$((got + 1))
	done
	is "$got" 20 "root's requests on the control socket meanwhile: 20 of 20 answered"
	wd() {
		w=$(metric_now "$PORT" uncored_http_evictions_total 'reason="write_deadline"')
		[ "${w:-0}" -ge $(( ${w0:-0} + 8 )) ]
	}
	wait_for "8 slow answers closed at their write deadline" 60 wd
	ok $? "answers draining 64 KiB/s are closed at the control socket's write deadline (write_deadline $w0 -> $w)"
	like "$(cat "$T/log")" "under the minimum of 262144 bytes a second" \
		"... and the daemon says why"
	kill $W; wait $W
else
	skip "slow readers of another uid" "no /usr/bin/python3"
fi
kill -TERM $UPID; wait $UPID
is "$?" 0 "daemon stops cleanly"

# 3. the default budget
sed -i '/^control_max_connections/d' "$T/c.conf"
start_uncored "$T/log2" -c "$T/c.conf" --simulate -l "127.0.0.1:$PORT" -s "$S"
ok $? "daemon up with the default control budget (128, 64 a uid)"
"$FLOOD" "$S" 64 5 100 >"$T/d.out"
echo "# root: $(line reads "$T/d.out")"
is "$(field reads busy "$T/d.out")/$(field reads reset "$T/d.out")/$(field reads other "$T/d.out")" 0/0/0 \
	"64 readers of one uid: none busy, reset or failed"
like "$(line reads "$T/d.out")" "clients served 64 of 64" "... every one of them served"
kill -TERM $UPID; wait $UPID
is "$?" 0 "daemon stops cleanly"
tap_done
