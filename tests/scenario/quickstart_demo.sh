#!/bin/sh
# quickstart_demo.sh - `contrib/quickstart.sh demo` as a new user runs it:
# it installs only the demo's packages (the test tools are a separate
# list), prints the address the daemon really listens on and how to reach
# it with uncorectl (not on PATH), the README's uncorectl examples work
# with what it prints, the README's example claim counts on the demo
# workload, and Ctrl-C or SIGTERM stops the daemon, whose last log lines
# are printed once.
. "${top_srcdir:-.}/tests/lib.sh"

QS=$top_srcdir/contrib/quickstart.sh
deps() { # deps NAME: the package list NAME="..." of quickstart.sh
	awk -v n="$1" '$0 ~ "^" n "=\"" { on = 1; sub("^" n "=\"", "") }
		on { if (index($0, "\"")) { sub(/".*/, ""); print; exit } print }' "$QS" |
		tr -s ' \t' '\n' | grep .
}
deps DEMO_DEPS >"$T/demo"; deps TEST_DEPS >"$T/test"
ok "$([ -s "$T/demo" ] && [ -s "$T/test" ]; echo $?)" \
	"quickstart.sh has a demo list ($(wc -l <"$T/demo")) and a test list ($(wc -l <"$T/test"))"
for p in prometheus prometheus-node-exporter wrk; do
	ok "$(! grep -qx "$p" "$T/demo" && grep -qx "$p" "$T/test"; echo $?)" \
		"$p is a test tool, not a demo package"
done
like "$(sed -n '/^demo)/,/;;/p' "$QS")" 'install_deps $DEMO_DEPS' "demo installs DEMO_DEPS only"
like "$(sed -n '/^test)/,/;;/p' "$QS")" 'install_deps $DEMO_DEPS $TEST_DEPS' "test installs both"

missing=
for p in $(cat "$T/demo"); do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	skip "running the demo" "not installed:$missing (the demo would install them)"
	tap_done; exit 0
fi

# start_demo: the demo in this build tree, on a free port ($PORT), with its
# control socket here, output in $T/out and $T/err; sets $QPID and waits
# until it has printed its banner.  Run under make, so keep make's
# jobserver out of its build step.  As on a terminal: its own process
# group (Ctrl-C goes to the group) and SIGINT not ignored (a background
# job of this script would ignore it).
# The old demo's output goes first, here: wait_for must not find its
# banner while the new one has not yet opened (and emptied) the files, or
# the signal below would reach a script that has not set its trap.
start_demo() {
	PORT=$(pick_port)
	: >"$T/out"; : >"$T/err"
	setsid env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL --default-signal=INT \
		QUICKSTART_BUILD="$top_builddir" \
		sh "$QS" demo -l "127.0.0.1:$PORT" -s "$T/ctl.sock" >"$T/out" 2>"$T/err" &
	QPID=$!
	tap_cleanup_pid "$QPID"
	wait_for "the demo's banner" 60 grep -q 'uncorectl top' "$T/err"
}
demo_gone() { [ "$(ps -o stat= -p "$QPID")" = Z ] || ! kill -0 "$QPID"; }
# stop_demo SIGNAL TARGET HOW: stops the demo, then checks its exit
# status, that the daemon stopped cleanly and that its last log lines
# were printed once each (they used to come twice on SIGTERM).
stop_demo() {
	kill "-$1" "$2"
	if ! wait_for "the demo to end after SIG$1" 30 demo_gone; then
		kill -KILL "-$QPID" 2>/dev/null
		tail -5 "$T/err" | sed 's/^/#   /'
	fi
	wait "$QPID"; rc=$?
	is "$rc" 0 "$3 stops the demo, exit 0"
	is "$(grep -c 'the uncore PMU is idle' "$T/err")" 1 \
		"... the daemon stopped cleanly, its last line printed once"
	is "$(grep -c ': stopping$' "$T/err")" 1 "... and \"stopping\" once"
	[ "$rc" -eq 0 ] || tail -5 "$T/err" | sed 's/^/#   /'
}
start_demo
banner=$(cat "$T/err")
like "$banner" "http://127.0.0.1:$PORT/" "the demo prints the address it really listens on"
like "$banner" "Control socket (claims, uncorectl): $T/ctl.sock" "and the control socket"
like "$banner" "uncorectl is in $top_builddir, not on PATH" "and where uncorectl is"
exports=$(printf '%s\n' "$banner" | sed -n 's/^ *\(export PATH=.*\)$/\1/p')
like "$exports" "UNCORED_SOCKET=\"$T/ctl.sock\"" "an export line for the shell"
is "$(http_code "http://127.0.0.1:$PORT/healthz")" 200 "the printed address answers"

# The README's examples, after the printed export line, from another dir.
out=$(cd / && eval "$exports" && uncorectl status 2>&1); rc=$?
is "$rc" 0 "uncorectl status, as printed"
like "$out" "sim" "it reaches the demo's daemon"
like "$out" "(revision $(sed -n 's/.*UNCORED_REVISION "\(.*\)"/\1/p' "$top_builddir/src/build-info.h")," \
	"and shows the daemon's revision"
out=$(cd / && eval "$exports" && uncorectl events LOOKUP 2>&1); rc=$?
is "$rc" 0 "uncorectl events LOOKUP (README)"
like "$out" "UNC_CBO_CACHE_LOOKUP.ANY_MESI" "lists the lookup events"
out=$(cd / && eval "$exports" &&
	uncorectl claim UNC_CBO_XSNP_RESPONSE.HITM_XCORE --ttl 60 --watch 1 --count 3 2>&1); rc=$?
is "$rc" 0 "uncorectl claim UNC_CBO_XSNP_RESPONSE.HITM_XCORE (README)"
# The average rate in the final counts, printed on release.
r=$(echo "$out" | awk '/^released/ { f = 1 } f && $2 == "UNC_CBO_XSNP_RESPONSE.HITM_XCORE" { r = $NF } END { print r }')
near "$(si "$r")" 2e5 0.05 "the demo workload gives it a rate (2e5/s in its first phase)"
[ -n "$r" ] || echo "$out" | sed 's/^/#   /'

# Ctrl-C on a terminal goes to the whole process group.
stop_demo INT "-$QPID" "Ctrl-C"
# systemd, kill or a closed terminal: SIGTERM to the script alone.
start_demo
ok $? "the demo starts again"
stop_demo TERM "$QPID" "SIGTERM to the script"
# systemd's KillMode=control-group: SIGTERM to every process of the group.
start_demo
ok $? "the demo starts a third time"
stop_demo TERM "-$QPID" "SIGTERM to the process group"
tap_done
