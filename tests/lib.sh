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

# A pid is registered with its process's start time (/proc/PID/stat,
# field 22) and killed at exit only if the process holding it then is the
# same one.  A pid the test has already stopped and waited for is free:
# with pid_max 32768 and four suites forking at once it wraps within
# minutes, and a bare `kill PID` at exit would stop another test's daemon
# or child (seen as a daemon ending on its own, "stopping" at SIGTERM).
_tap_start() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
tap_cleanup_pid() { _tap_pids="$_tap_pids $1:$(_tap_start "$1")"; }

_tap_exit() {
	for e in $_tap_pids; do
		p=${e%%:*}
		[ -n "${e#*:}" ] && [ "$(_tap_start "$p")" = "${e#*:}" ] &&
			kill "$p" 2>/dev/null
	done
	for e in $_tap_pids; do wait "${e%%:*}" 2>/dev/null; done
	rm -rf "$T" "$T".uid-*
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

# tap_end: ends the test here, with its plan and status.
tap_end() { tap_done; exit $?; }

# need_python3 WHAT: a test (WHAT) that needs python3 skips without it;
# under CI=true (contrib/quickstart.sh installs it) it fails.
need_python3() {
	command -v python3 >/dev/null 2>&1 && return 0
	if [ "${CI:-}" = true ]; then ok 1 "$1: python3 is installed"
	else skip "$1" "python3 not installed"; fi
	tap_end
}

# need_data WHAT FILE: input the repository carries (tests/data): a test
# without it fails, naming the file.
need_data() {
	[ -r "$2" ] && return 0
	ok 1 "$1: $2 is readable (tests/data/README)"
	tap_end
}

# ---- daemon helpers -------------------------------------------------------
UNCORED="$top_builddir/uncored"
# Started as root, uncored becomes [daemon] user (default "uncored") once
# its devices are open.  A test machine has no such user, so tests run it
# as nobody, and give it the test directory as production gives it
# /run/uncored (daemon_priv.sh checks a directory it may not write in).
#
# uid_tool UID PATH: a path to the build tree's program or script PATH
# that uid UID can run.  PATH itself where UID reaches it; else (a clone
# under /root, 0700: another uid cannot search it) a copy in $T.uid-UID/,
# and for a libtool wrapper (tests/tools/*) its real program with the
# libuncored it links, started with LD_LIBRARY_PATH on the copy.
uid_tool() {
	local d n b
	if setpriv --reuid="$1" --regid=65534 --clear-groups test -r "$2" \
		-a -x "$(dirname "$2")" 2>/dev/null; then
		echo "$2"
		return
	fi
	d=$(dirname "$2") n=$(basename "$2") b="$T.uid-$1"
	mkdir -p "$b" && chmod 755 "$b"
	if [ -x "$d/.libs/$n" ]; then
		cp "$d/.libs/$n" "$b/.$n" &&
		cp -P "$top_builddir"/.libs/libuncored.so* "$b/" &&
		printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s" "$@"\n' \
			"$b" "$b/.$n" >"$b/$n"
	else
		cp "$2" "$b/$n"
	fi
	chmod -R a+rX "$b" && chmod 755 "$b/$n"
	echo "$b/$n"
}

# UNCORED_TEST_BACKEND=perf runs every daemon a test starts through the
# perf backend (on the simulator: the simulated kernel), so the scenario
# suite checks both ways to the counters with the same assertions
# (contrib/quickstart.sh runs it so); a --backend the test gives itself
# comes later on the command line and wins.  A test of what only the
# direct backend has (registers, ownership, interference) calls
# direct_only first.
_wrap=
[ "$(id -u)" = 0 ] && _wrap="--user nobody"
[ -n "${UNCORED_TEST_BACKEND:-}" ] &&
	_wrap="$_wrap --backend=$UNCORED_TEST_BACKEND"
if [ -n "$_wrap" ]; then
	printf '#!/bin/sh\nexec "%s" %s "$@"\n' \
		"$top_builddir/uncored" "$_wrap" >"$T/uncored"
	chmod 755 "$T/uncored"
	[ "$(id -u)" = 0 ] && chown nobody "$T"
	UNCORED="$T/uncored"
fi

# perf_mode: is this run of the suite on the perf backend?
perf_mode() { [ "${UNCORED_TEST_BACKEND:-}" = perf ]; }

# direct_only WHY: the whole test is about the direct backend (WHY says
# what: registers written by another agent, ownership, ...); on the perf
# backend it is skipped, saying so.
direct_only() {
	perf_mode || return 0
	echo "1..0 # SKIP direct backend only: $1"
	exit 0
}
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
# $UPID, and waits (at most 90 s: an ASan daemon on a machine at load 25
# once took over 30) until /healthz answers on $PORT.
start_uncored() {
	log=$1; shift
	"$UNCORED" "$@" >"$log" 2>&1 &
	UPID=$!
	tap_cleanup_pid "$UPID"
	if ! wait_healthy "$PORT"; then
		# why it is not up, for the test's log (the scratch
		# directory holding $log is gone when the test ends)
		tail -8 "$log" 2>/dev/null | sed 's/^/# log: /'
		return 1
	fi
	# /healthz answers as soon as the listeners are open, a moment before
	# the daemon logs its start-up line (platform, sockets, counters): a
	# test reading that line must not race it on a loaded machine.
	wait_for "the start-up line in $log" 30 _announced "$log" || :
}
_announced() {
	has "$1" "counters, interval" && return 0
	has "$1" "nothing can be counted here" && return 0
	gone "$UPID" && _wf_stop="uncored (pid $UPID) has ended"
	return 1
}

# wait_for WHAT SECONDS COMMAND...: runs COMMAND (quietly) until it
# succeeds, at most SECONDS of wall time; on time-out prints "# timed out
# after SECONDS s waiting for WHAT" and returns 1.  Tests wait for the
# state they assert with it, never for a fixed time: a slower or loaded
# machine only waits longer.  A probe that knows the state will never
# come (the daemon has ended) sets _wf_stop to the reason: the wait ends
# at once, saying so.
wait_for() {
	_wf_what=$1 _wf_secs=$2 _wf_stop=; shift 2
	_wf_end=$(( $(date +%s) + _wf_secs ))
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		if [ -n "$_wf_stop" ]; then
			echo "# stopped waiting for $_wf_what: $_wf_stop" >&2
			return 1
		fi
		if [ "$(date +%s)" -ge "$_wf_end" ]; then
			echo "# timed out after $_wf_secs s waiting for $_wf_what" >&2
			return 1
		fi
		sleep 0.1
	done
}

# ---- state probes for wait_for ---------------------------------------------
# Each answers one question about the daemon (or a file, or a process)
# with its exit status, so that `wait_for WHAT SECONDS PROBE ARGS` waits
# for exactly the state the next assertion needs.

# has FILE TEXT [N]: does FILE hold the fixed string TEXT (N times)?
has() { [ "$(grep -cF -- "$2" "$1" 2>/dev/null)" -ge "${3:-1}" ]; }

# gone PID: has process PID ended (an unreaped zombie counts)?
gone() {
	! kill -0 "$1" 2>/dev/null || [ "$(ps -o stat= -p "$1" | cut -c1)" = Z ]
}

# status_num PORT KEY: the integer KEY of the daemon's /api/v1/status
# (ticks, ring_head, interference, invalid_samples, hw_writes, ...), or
# nothing.
status_num() {
	curl -fs "http://127.0.0.1:$1/api/v1/status" |
		sed -n "s/.*\"$2\":\([0-9][0-9]*\).*/\1/p"
}

# ring_head PORT: the sequence number of the newest sample in the
# daemon's ring (/api/v1/status "ring_head"), or nothing.
ring_head() { status_num "$1" ring_head; }

# ring_has PORT N: does the ring hold at least N samples?
ring_has() { status_ge "$1" ring_head "$2"; }

# wait_samples PORT N [SECONDS]: waits (default at most 60 s) until the
# sampler has added N samples to the ring since now: N ticks, each a
# full interval (the time a rate or a periodic check needs), however
# slowly the machine runs.
wait_samples() {
	_ws0=$(ring_head "$1")
	wait_for "$2 more samples after #${_ws0:-none}" "${3:-60}" \
		ring_has "$1" $(( ${_ws0:-0} + $2 ))
}

# metric_now PORT NAME LABELS: the value of NAME{LABELS} on the daemon's
# /metrics page now (see metric for LABELS).
metric_now() {
	curl -fs -o "$T/.metric_now" "http://127.0.0.1:$1/metrics" &&
		metric "$T/.metric_now" "$2" "$3"
}

# metric_is PORT NAME LABELS VALUE: is NAME{LABELS} VALUE now?
metric_is() { [ "$(metric_now "$1" "$2" "$3")" = "$4" ]; }

# metric_ge PORT NAME LABELS MIN: is NAME{LABELS} at least MIN now?
metric_ge() {
	_mg=$(metric_now "$1" "$2" "$3")
	[ -n "$_mg" ] && awk -v a="$_mg" -v b="$4" 'BEGIN { exit !(a >= b) }'
}

# notify_start: gives the daemons started after it a NOTIFY_SOCKET (a
# tests/tools/notify-recv printing every message into $T/notify.msgs), so
# that reload can wait for what the daemon says instead of sleeping.
notify_start() {
	"$top_builddir/tests/tools/notify-recv" "$T/notify" 600 \
		>"$T/notify.msgs" &
	tap_cleanup_pid $!
	wait_for "the notify socket $T/notify" 30 test -S "$T/notify"
	export NOTIFY_SOCKET="$T/notify"
}

# reload: SIGHUP to $UPID, then waits (at most 30 s) until the daemon has
# said RELOADING=1 and then READY=1 again: the reload is over (applied,
# or refused and logged).  A new program starts counting at the next
# tick.  Needs notify_start before start_uncored.
reload() {
	_r0=$(grep -c '^RELOADING=1$' "$T/notify.msgs")
	_n0=$(grep -c '^READY=1$' "$T/notify.msgs")
	kill -HUP "$UPID"
	wait_for "RELOADING=1 then READY=1 after SIGHUP" 30 \
		_reloaded $((_r0 + 1)) $((_n0 + 1))
}
_reloaded() {
	[ "$(grep -c '^RELOADING=1$' "$T/notify.msgs")" -ge "$1" ] &&
		[ "$(grep -c '^READY=1$' "$T/notify.msgs")" -ge "$2" ]
}

# reload_program PORT: reload (the configuration must be accepted), then
# waits until the sampler runs the new program (/api/v1/status
# "program" moves on) and the program's ring holds a sample.
reload_program() {
	_rp=$(status_num "$1" program)
	reload || return 1
	wait_for "the reloaded program's first sample" 30 \
		_program_runs "$1" $(( ${_rp:-0} + 1 ))
}
_program_runs() {
	curl -fs "http://127.0.0.1:$1/api/v1/status" >"$T/.status" &&
		[ "$(sed -n 's/.*"program":\([0-9]*\).*/\1/p' "$T/.status")" -ge "$2" ] &&
		[ "$(sed -n 's/.*"ring_head":\([0-9]*\).*/\1/p' "$T/.status")" -ge 1 ]
}

# status_ge PORT KEY MIN: is /api/v1/status KEY at least MIN?
status_ge() { _sg=$(status_num "$1" "$2"); [ -n "$_sg" ] && [ "$_sg" -ge "$3" ]; }

# wait_healthy PORT: until /healthz answers 200 on PORT (at most 30 s),
# or $UPID has ended.
wait_healthy() {
	wait_for "/healthz on port $1" 90 _healthy "$1"
}
_healthy() {
	curl -fs -o /dev/null "http://127.0.0.1:$1/healthz" && return 0
	gone "$UPID" && _wf_stop="uncored (pid $UPID) has ended"
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

# scrape PORT FILE [CURL ARGS...]: the daemon's /metrics page into FILE.
scrape() {
	_sp=$1 _sf=$2; shift 2
	curl -s "$@" -o "$_sf" "http://127.0.0.1:$_sp/metrics"
}

# rate_window PORT N: $T/m0 once the ring holds 3 samples (a program's
# first sample has no deltas, its second a whole interval), and $T/m1 N
# samples later: two pages N ticks apart for rate.
rate_window() {
	wait_for "3 samples" 60 ring_has "$1" 3
	scrape "$1" "$T/m0"
	wait_samples "$1" "$2"
	scrape "$1" "$T/m1"
}

# rate NAME LABELS [FIRST SECOND]: how fast NAME{LABELS} grew between two
# /metrics pages (default $T/m0 and $T/m1), per second of the daemon's
# own tick timestamps (uncored_last_tick_timestamp_seconds).
rate() {
	_f0=${3:-$T/m0} _f1=${4:-$T/m1}
	awk -v a="$(metric "$_f0" "$1" "$2")" -v b="$(metric "$_f1" "$1" "$2")" \
	    -v x="$(metric "$_f0" uncored_last_tick_timestamp_seconds "")" \
	    -v y="$(metric "$_f1" uncored_last_tick_timestamp_seconds "")" \
	    'BEGIN { print (b - a) / (y - x) }'
}

# summary_mean FAMILY LABELS [FIRST SECOND]: rate(FAMILY_sum) /
# rate(FAMILY_count) between two pages (as rate), "none" without a count:
# a summary's mean over that window (the memory latency families).
summary_mean() {
	awk -v s="$(rate "$1_sum" "$2" "${3:-}" "${4:-}")" \
	    -v c="$(rate "$1_count" "$2" "${3:-}" "${4:-}")" \
	    'BEGIN { if (c > 0) print s / c; else print "none" }'
}

# ctl_code SOCKET [CURL ARGS...] URL: a request on the control socket;
# prints the status code, the body goes to $T/body.
ctl_code() {
	_cs=$1; shift
	curl -s -o "$T/body" -w '%{http_code}' --unix-socket "$_cs" "$@"
}

# json_long_numbers FILE: the numbers of the JSON document in FILE that
# are written with more significant digits than the shortest text that
# reads back as the same double (Python's repr), one per line; nothing
# when every number is shortest (0.6, not 0.59999999999999998).
json_long_numbers() {
	python3 - "$1" <<'PY'
import json, re, sys
def sig(t):
    m = re.sub(r"[eE].*$", "", t).replace("-", "").replace(".", "")
    return len(m.strip("0")) or 1
def check(s):
    if sig(s) > sig(repr(float(s))):
        print(s)
    return float(s)
json.load(open(sys.argv[1]), parse_float=check)
PY
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
