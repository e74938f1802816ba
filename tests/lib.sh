# tests/lib.sh - TAP helpers for the shell scenario tests.
#
# Source it, call the checks, end with `tap_done`.  Each test gets its own
# scratch directory ($T), removed on exit; servers a test starts are
# registered with `tap_cleanup_pid` and killed on exit.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
# A sanitizer report must not pass for the exit status a test expects
# (ASan's default exit status on an error is 1, uncored's own for most
# refusals): make it one no test expects.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86"
T=$(mktemp -d "${TMPDIR:-/tmp}/uncored-test.XXXXXX")
_tap_n=0
_tap_failed=0
_tap_pids=

tap_cleanup_pid() { _tap_pids="$_tap_pids $1"; }

_tap_exit() {
	for p in $_tap_pids; do kill "$p" 2>/dev/null; done
	for p in $_tap_pids; do wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap _tap_exit EXIT

ok() { # ok CONDITION-STATUS DESCRIPTION
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		_tap_failed=$((_tap_failed + 1))
	fi
}

is() { # is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then ok 0 "$3"; else
		ok 1 "$3"; echo "#   got:  '$1'"; echo "#   want: '$2'"; fi
}

like() { # like TEXT SUBSTRING DESCRIPTION
	case $1 in
	*"$2"*) ok 0 "$3" ;;
	*) ok 1 "$3"; echo "#   '$1'" | head -20; echo "#   does not contain '$2'" ;;
	esac
}

near() { # near GOT WANT RELERR DESCRIPTION  (floating point, via awk)
	if awk -v g="$1" -v w="$2" -v e="$3" 'BEGIN { d = g - w; if (d < 0) d = -d;
	    a = w < 0 ? -w : w; exit !(d <= e * a) }'; then ok 0 "$4"
	else ok 1 "$4"; echo "#   got $1, want $2 +- $3 (relative)"; fi
}

skip() { # skip DESCRIPTION REASON
	_tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"
}

tap_done() {
	echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
}

# ---- daemon helpers -------------------------------------------------------
UNCORED="$top_builddir/uncored"
# Started as root, uncored becomes [daemon] user (default "uncored") once
# its devices are open.  A test machine has no such user, so tests run it
# as nobody, and give it the test directory as production gives it
# /run/uncored (daemon_priv.sh checks a directory it may not write in).
if [ "$(id -u)" = 0 ]; then
	printf '#!/bin/sh\nexec "%s" --user nobody "$@"\n' \
		"$top_builddir/uncored" >"$T/uncored"
	chmod 755 "$T/uncored"
	chown nobody "$T"
	UNCORED="$T/uncored"
fi
UNCORE_SIM="$top_builddir/uncore-sim"

# A TCP port nothing uses now: randomised below the kernel's ephemeral
# range (32768+) so outgoing connections cannot hold it, and checked with
# ss in every state.
pick_port() {
	while :; do
		p=$(( 10000 + $(od -An -N2 -tu2 /dev/urandom) % 22000 ))
		ss -Htan "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return; }
	done
}

# start_uncored LOG ARGS...: starts the daemon in the background, sets
# $UPID, and waits (at most 15 s) until /healthz answers on $PORT.
start_uncored() {
	log=$1; shift
	"$UNCORED" "$@" >"$log" 2>&1 &
	UPID=$!
	tap_cleanup_pid "$UPID"
	wait_healthy "$PORT"
}

# notify_start: gives the daemons started after it a NOTIFY_SOCKET (a
# tests/tools/notify-recv printing every message into $T/notify.msgs), so
# that reload can wait for what the daemon says instead of sleeping.
notify_start() {
	"$top_builddir/tests/tools/notify-recv" "$T/notify" 600 \
		>"$T/notify.msgs" &
	tap_cleanup_pid $!
	for _ in $(seq 1 200); do [ -S "$T/notify" ] && break; sleep 0.05; done
	export NOTIFY_SOCKET="$T/notify"
}

# reload: SIGHUP to $UPID, then waits (at most 30 s) until the daemon has
# said RELOADING=1 and then READY=1 again: the reload is over (applied,
# or refused and logged).  A new program starts counting at the next
# tick.  Needs notify_start before start_uncored.
reload() {
	r0=$(grep -c '^RELOADING=1$' "$T/notify.msgs")
	n0=$(grep -c '^READY=1$' "$T/notify.msgs")
	kill -HUP "$UPID"
	for _ in $(seq 1 300); do
		[ "$(grep -c '^RELOADING=1$' "$T/notify.msgs")" -gt "$r0" ] &&
			[ "$(grep -c '^READY=1$' "$T/notify.msgs")" -gt "$n0" ] &&
			return 0
		sleep 0.1
	done
	echo "# no RELOADING=1 then READY=1 within 30 s of SIGHUP" >&2
	return 1
}

# wait_for WHAT SECONDS COMMAND...: runs COMMAND (quietly) until it
# succeeds, at most SECONDS of wall time; on time-out prints "# timed out
# after SECONDS s waiting for WHAT" and returns 1.  Tests wait for the
# state they assert with it, never for a fixed time: a slower or loaded
# machine only waits longer.
wait_for() {
	_wf_what=$1 _wf_secs=$2; shift 2
	_wf_end=$(( $(date +%s) + _wf_secs ))
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		if [ "$(date +%s)" -ge "$_wf_end" ]; then
			echo "# timed out after $_wf_secs s waiting for $_wf_what" >&2
			return 1
		fi
		sleep 0.1
	done
}

# ring_head PORT: the sequence number of the newest sample in the
# daemon's ring (/api/v1/status "ring_head"), or nothing.
ring_head() {
	curl -fs "http://127.0.0.1:$1/api/v1/status" |
		sed -n 's/.*"ring_head":\([0-9]*\).*/\1/p'
}

# ring_has PORT N: does the ring hold at least N samples?
ring_has() {
	_rh=$(ring_head "$1")
	[ -n "$_rh" ] && [ "$_rh" -ge "$2" ]
}

wait_healthy() {
	for _ in $(seq 1 150); do
		curl -fs -o /dev/null "http://127.0.0.1:$1/healthz" && return 0
		kill -0 "$UPID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# metric FILE NAME LABELS: the value of the sample NAME{LABELS} in a
# Prometheus text file (LABELS exactly as rendered, without braces; empty
# for none).
metric() {
	if [ -n "$3" ]; then
		awk -v k="$2{$3}" '$1 == k { print $2; exit }' "$1"
	else
		awk -v k="$2" '$1 == k { print $2; exit }' "$1"
	fi
}

# http_code URL [CURL ARGS...]: prints the status code only.
http_code() {
	u=$1; shift
	curl -s -o /dev/null -w '%{http_code}' "$@" "$u"
}

# si VALUE: a number printed with an SI suffix (3.00M) as a plain number.
si() {
	awk -v v="$1" 'BEGIN { m = 1; s = substr(v, length(v));
		if (s == "k") m = 1e3; else if (s == "M") m = 1e6;
		else if (s == "G") m = 1e9; else if (s == "T") m = 1e12;
		if (m > 1) v = substr(v, 1, length(v) - 1); printf "%.6g\n", v * m }'
}
