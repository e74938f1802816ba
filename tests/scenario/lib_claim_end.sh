#!/bin/bash
# lib_claim_end.sh - a claim made through libuncored ends with the process
# that made it (issue 40 §1): the same marked program run twice in a row
# (tests/tools/libcheck default, markers only, a pinned claim of
# UNCORED_EVENTS on the one CBo counter the baseline leaves) gets its
# claim and measures both times, where the first run's claim used to
# hold the counter for its 60 s lease and the second got -EBUSY and said
# only "nothing measured"; uncored_disconnect() ends the connection's
# claims but for UNCORED_KEEP ones; a marked program killed by SIGKILL
# (no exit handler) has its claim ended by the daemon at its next tick
# (end_with_process); a marked program whose claim failed (an event the
# platform lacks, the counter held by a pinned claim, no daemon) says
# why on stderr, not only "nothing measured".  And the errors of a lost
# daemon, as include/uncored.h lists them: a region ended after the
# daemon was killed is -ENOTCONN, after it restarted -ECONNRESET, and a
# read then -ENOTCONN.
. "${top_srcdir:-.}/tests/lib.sh"

CHECK="$top_builddir/tests/tools/libcheck"
PORT=$(pick_port)
cat >"$T/wl.json" <<'JSON'
{ "platform": "skl", "cbo_count": 2,
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x8f": 2.0e8, "cbo:0x22:0x48": 1.0e7,
      "imc:DRAM_DATA_READS": 1.5e8 } } ] }
JSON
# The baseline keeps one of the two CBo counters free: one pinned claim
# of HITM fits, a second is -EBUSY while the first lives.  The lease is
# the daemon's default, 60 s: a claim left behind holds the counter that
# long.
cat >"$T/c.conf" <<'CONF'
[daemon]
interval_ms = 200
[claims]
default_ttl_s = 60
[baseline]
cbo = UNC_CBO_CACHE_LOOKUP.ANY_MESI
CONF
HITM=UNC_CBO_XSNP_RESPONSE.HITM_XCORE
S="$T/ctl.sock"
U=http://x/api/v1
nclaims() { curl -s --unix-socket "$S" "$U/claims" | jq '.claims | length'; }

# checks NAME FILE: libcheck's "ok ..."/"not ok ..." lines in FILE as checks
checks() {
	local line n=0 end=0
	while IFS= read -r line; do
		case $line in
		"ok "*) ok 0 "$1: ${line#ok }"; n=$((n + 1)) ;;
		"not ok "*) ok 1 "$1: ${line#not ok }"; n=$((n + 1)) ;;
		"Bail out!"*) ok 1 "$1: $line" ;;
		"# libcheck ran to its end") end=1 ;;
		"#"*) echo "$line" ;;
		esac
	done <"$2"
	ok "$([ "$n" -gt 0 ] && [ "$end" = 1 ]; echo $?)" \
		"$1: $n checks ran, and libcheck ran to its end"
}

# marked NAME [VAR=VALUE...]: libcheck default (markers only) with the
# report at exit, a pinned claim of HITM unless VARs say else
marked() {
	local name=$1; shift
	env UNCORED_SOCKET="$S" UNCORED_EVENTS=$HITM UNCORED_PINNED=1 \
		UNCORED_REPORT=1 "$@" "$CHECK" default - \
		>"$T/$name.out" 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
	sed 's/^/#   stderr: /' "$T/$name.err"
}

start_uncored "$T/log" -c "$T/c.conf" --simulate --workload "$T/wl.json" \
	-l "127.0.0.1:$PORT" -s "$S"
ok $? "daemon up"

for run in 1 2; do
	marked "run$run"
	is "$(cat "$T/run$run.rc")" 0 "run $run: the marked program ends well"
	checks "run $run" "$T/run$run.out"
	like "$(cat "$T/run$run.err")" "markers-only        2" \
		"run $run: it measured (the report's row)"
	# ("held by": a refusal's holder; not the report's note that the
	# daemon's ticks were held up, which a loaded machine gives)
	ok "$(! grep -q "nothing measured\|EBUSY\|held by" "$T/run$run.err"; echo $?)" \
		"run $run: no claim refused"
	is "$(nclaims)" 0 "run $run: its claim ended with it (none left)"
done

# uncored_disconnect() ends the claims, UNCORED_KEEP's aside
"$CHECK" disconnect "$S" >"$T/disc.out" 2>&1
checks "disconnect" "$T/disc.out"
is "$(nclaims)" 0 "disconnect: no claim left"

# a claim that failed is said, with its error, at exit
marked badevent UNCORED_EVENTS=NO_SUCH_EVENT
like "$(cat "$T/badevent.err")" "NO_SUCH_EVENT" \
	"an event the platform lacks: stderr names it"
like "$(cat "$T/badevent.err")" "EINVAL" "and the error"
like "$(cat "$T/badevent.err")" "nothing measured: the regions' claim failed" \
	"the report at exit says the claim failed"

is "$(ctl_code "$S" -X POST "$U/claims" -d "{\"events\":[\"$HITM\"],\"pinned\":true,\"ttl_s\":60}")" \
	201 "a pinned claim holds the counter"
P=$(jq -r .id "$T/body")
marked busy
like "$(cat "$T/busy.err")" "EBUSY" "the counter held: stderr says EBUSY"
like "$(cat "$T/busy.err")" "nothing measured: the regions' claim failed" \
	"and that the claim failed"
is "$(ctl_code "$S" -X DELETE "$U/claims/$P")" 200 "the pinned claim released"

# A marked program killed by a signal runs no exit handler: the daemon
# ends its claim ("end_with_process", which the library asks for) at the
# tick that finds the process gone, long before the 60 s lease.
UNCORED_SOCKET="$S" UNCORED_EVENTS=$HITM UNCORED_PINNED=1 \
	"$CHECK" lease - 600 >"$T/killed.out" 2>&1 &
kpid=$!
tap_cleanup_pid "$kpid"
wait_for "the killed program's claim" 30 sh -c "[ \"\$(curl -s --unix-socket '$S' '$U/claims' | jq '.claims | length')\" = 1 ]"
ok $? "a marked program holds its claim"
is "$(curl -s --unix-socket "$S" "$U/claims" | jq -r '.claims[0].end_with_process')" true \
	"made with end_with_process"
kill -KILL "$kpid"
wait "$kpid" 2>/dev/null
t0=$(date +%s)
wait_for "the killed program's claim to end" 30 sh -c "[ \"\$(curl -s --unix-socket '$S' '$U/claims' | jq '.claims | length')\" = 0 ]"
ok $? "killed (SIGKILL): its claim ends without it, within $(( $(date +%s) - t0 )) s (the lease: 60 s)"
like "$(cat "$T/log")" "has ended" "the daemon's log says why"
marked afterkill
like "$(cat "$T/afterkill.err")" "markers-only        2" \
	"the same program run after it measures"

# the daemon killed, then restarted, under an open region
for how in killed restarted; do
	want=ENOTCONN
	if [ "$how" = restarted ]; then
		want=ECONNRESET
		start_uncored "$T/log2" -c "$T/c.conf" --simulate \
			--workload "$T/wl.json" -l "127.0.0.1:$PORT" -s "$S"
		ok $? "daemon up again"
	fi
	mkfifo "$T/in-$how"
	"$CHECK" gone "$S" "$want" <"$T/in-$how" >"$T/gone-$how.out" 2>&1 &
	cpid=$!
	tap_cleanup_pid "$cpid"
	exec 3>"$T/in-$how"
	wait_for "the client's claim" 30 grep -q '^# ready' "$T/gone-$how.out"
	kill "$UPID"
	wait "$UPID"
	if [ "$how" = restarted ]; then
		start_uncored "$T/log3" -c "$T/c.conf" --simulate \
			--workload "$T/wl.json" -l "127.0.0.1:$PORT" -s "$S"
		ok $? "daemon restarted"
	fi
	echo go >&3
	exec 3>&-
	wait "$cpid"
	checks "daemon $how" "$T/gone-$how.out"
done

# no daemon at all
kill "$UPID"
wait "$UPID"
marked nodaemon
like "$(cat "$T/nodaemon.err")" "nothing measured: the regions' claim failed" \
	"no daemon: the report at exit says the claim failed"
ok "$(grep -q "ENOENT\|ECONNREFUSED" "$T/nodaemon.err"; echo $?)" \
	"no daemon: with the error"
tap_done
