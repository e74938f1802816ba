#!/bin/bash
# claims_restart.sh - claim ids across daemon lifetimes under socket
# activation (issue 27 item 1).  A holder keeps one listening control
# socket across two daemon lifetimes and passes it to each as systemd
# does (LISTEN_FDS=1, LISTEN_PID, fd 3), so the pid behind the socket
# (SO_PEERCRED: the holder's) never changes.  Client A (root, through
# libuncored) claims in the first lifetime; client B (uid 2001) claims in
# the second.  B's claim must not be named by A's id: A's read and
# release fail with the "restarted" error (never data), the new daemon
# refuses a request that names the old instance (412), and B's claim
# lives on.
. "${top_srcdir:-.}/tests/lib.sh"

CHECK="$top_builddir/tests/tools/libcheck"
HOLD="$top_builddir/tests/tools/sockhold"
cat >"$T/wl.json" <<'JSON'
{ "platform": "skl", "cbo_count": 2,
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x8f": 2.0e8, "cbo:0x34:0x88": 2.0e7,
      "imc:DRAM_DATA_READS": 1.5e8 } } ] }
JSON
printf '[daemon]\ninterval_ms = 100\n' >"$T/c.conf"
chmod 711 "$T"	# uid 2001 must reach the socket inside
S="$T/ctl.sock"
U=http://x/api/v1
api() { curl -s --unix-socket "$S" "$@"; }
as2001() { setpriv --reuid=2001 --regid=2001 --clear-groups "$@"; }
# code2001 ARGS...: the status of a request as uid 2001; its body on stdout
# goes to $T/body2001 through a pipe (uid 2001 cannot write $T)
code2001() {
	local out
	out=$(as2001 curl -s -w '\n%{http_code}' --unix-socket "$S" "$@")
	printf '%s' "${out%$'\n'*}" >"$T/body2001"
	echo "${out##*$'\n'}"
}
served() { curl -fs -o /dev/null --unix-socket "$S" "$U/status"; }
instance() { api "$U/status" | sed -n 's/.*"instance":"\([0-9a-f]*\)".*/\1/p'; }
started() { [ "$(grep -c '^started ' "$T/hold.out")" -ge "$1" ]; }
stopped() { [ "$(grep -c '^stopped ' "$T/hold.out")" -ge "$1" ]; }
last_pid() { grep '^started ' "$T/hold.out" | tail -1 | cut -d' ' -f2; }

# the holder: the socket is made once, here, with the mode uncored.socket
# would give it for a control group uid 2001 is in
mkfifo "$T/hold.in"
"$HOLD" "$S" 0666 -- "$UNCORED" -c "$T/c.conf" --simulate \
	--workload "$T/wl.json" -l none -s "$S" \
	<"$T/hold.in" >"$T/hold.out" 2>"$T/log" &
tap_cleanup_pid $!
HPID=$!
exec 4>"$T/hold.in"
echo start >&4
wait_for "the first lifetime" 30 started 1
UPID=$(last_pid); tap_cleanup_pid "$UPID"
wait_for "the first lifetime to serve" 30 served
ok $? "first lifetime serves on the passed socket"
like "$(cat "$T/log")" "passed by systemd" "it took the socket from LISTEN_FDS"
inst1=$(instance)
ok "$(echo "$inst1" | grep -Eqx '[0-9a-f]{16}'; echo $?)" \
	"/api/v1/status names the instance ($inst1)"
hdr=$(curl -s -D - -o /dev/null --unix-socket "$S" "$U/status" | tr -d '\r' |
	sed -n 's/^Uncored-Instance: //Ip')
ok "$([ -n "$hdr" ] && [ "$hdr" = "$inst1" ]; echo $?)" \
	"and so does every answer's Uncored-Instance header ($hdr)"

# client A claims, then waits for the restart
mkfifo "$T/a.in"
"$CHECK" restart "$S" <"$T/a.in" >"$T/a.out" 2>&1 &
APID=$!; tap_cleanup_pid $APID
exec 5>"$T/a.in"
wait_for "client A's claim" 30 grep -q '^# ready' "$T/a.out"
A=$(sed -n 's/^# ready //p' "$T/a.out")
ok "$(echo "$A" | grep -Eqx 'c1-[0-9a-z]{6}'; echo $?)" "A holds the first claim ($A)"

# the restart through the same socket
echo stop >&4
wait_for "the first lifetime to end" 30 stopped 1
is "$(grep '^stopped ' "$T/hold.out" | head -1)" "stopped 0" "first lifetime ended cleanly"
echo start >&4
wait_for "the second lifetime" 30 started 2
UPID=$(last_pid); tap_cleanup_pid "$UPID"
wait_for "the second lifetime to serve" 30 served
ok $? "second lifetime serves on the same socket"
inst2=$(instance)
ok "$([ -n "$inst2" ] && [ "$inst2" != "$inst1" ]; echo $?)" \
	"with another instance id ($inst2)"

# client B, another uid, claims another event in the new lifetime
is "$(code2001 -X POST "$U/claims" -d '{"events":["UNC_CBO_CACHE_LOOKUP.ANY_I"],"ttl_s":60}')" \
	201 "uid 2001 claims in the second lifetime"
B=$(sed -n 's/.*"id":"\([^"]*\)".*/\1/p' "$T/body2001")
ok "$(echo "$B" | grep -Eqx 'c1-[0-9a-z]{6}'; echo $?)" "the new lifetime's first claim ($B)"
ok "$([ "$B" != "$A" ]; echo $?)" "is not named as A's claim ($A)"

# A reads and releases its old id: an error, never B's counts
echo go >&5
exec 5>&-
wait $APID
checks() {
	local line n=0
	while IFS= read -r line; do
		case $line in
		"ok "*) ok 0 "A: ${line#ok }"; n=$((n + 1)) ;;
		"not ok "*) ok 1 "A: ${line#not ok }"; n=$((n + 1)) ;;
		"#"*) echo "$line" ;;
		esac
	done <"$1"
	ok "$([ "$n" -gt 0 ]; echo $?)" "A: $n checks ran"
}
checks "$T/a.out"

# the id A held names nothing now; a request naming the old instance is
# refused before it acts, whatever id it names
is "$(ctl_code "$S" "$U/claims/$A")" 404 "A's id is unknown to the new lifetime"
is "$(ctl_code "$S" -H "Uncored-Instance: $inst1" -X DELETE "$U/claims/$B")" 412 \
	"a release that names the first instance: 412"
like "$(cat "$T/body")" '"code":"instance_mismatch"' "instance_mismatch"
is "$(code2001 "$U/claims/$B")" 200 "B's claim lives on"
like "$(cat "$T/body2001")" '"event":"UNC_CBO_CACHE_LOOKUP.ANY_I"' "with B's event"
# another uid's claim is as missing as a missing one (no "belongs to")
is "$(code2001 "$U/claims/c1-$(echo "$B" | cut -d- -f2)x")" 404 "a missing id: 404"
missing=$(cat "$T/body2001")
is "$(ctl_code "$S" -X POST "$U/claims" -d '{"events":["DRAM_DATA_READS"]}')" 201 "root claims too"
R=$(sed -n 's/.*"id":"\([^"]*\)".*/\1/p' "$T/body")
is "$(code2001 "$U/claims/$R")" 404 "root's claim to uid 2001: 404"
is "$(sed "s/$R/ID/" "$T/body2001")" "$(echo "$missing" | sed "s/c1-[0-9a-z]*x/ID/")" \
	"the very answer a missing id gets"

echo stop >&4
exec 4>&-
wait $HPID
is "$(grep '^stopped ' "$T/hold.out" | tail -1)" "stopped 0" "second lifetime ended cleanly"
tap_done
