#!/bin/sh
# daemon_priv.sh - least privilege on the simulator: started as root with
# --user nobody the daemon serves with no capability and a non-zero uid,
# opens nothing but its configuration after READY (strace and
# /proc/PID/fd), copes with a root-owned 0700 directory it can no longer
# write in, and says what to do when the user is missing or is root.
# Without root only the unprivileged run is checked.  On the perf backend
# (UNCORED_TEST_BACKEND=perf) the daemon keeps CAP_PERFMON and nothing
# else (issue 21 item 5), and has no owner file.
. "${top_srcdir:-.}/tests/lib.sh"

BIN="$top_builddir/uncored"
# what the daemon keeps: nothing (direct), CAP_PERFMON (38; perf)
KEEP=0000000000000000 BK= AMB= SIMP=--simulate
if perf_mode; then
	# skx: the uncore-frequency reader (perf backend only) has a thread
	KEEP=0000004000000000 BK=--backend=perf AMB=,+perfmon SIMP=--simulate=skx
fi
PORT=$(pick_port)

field() { awk -v k="$1:" '$1 == k { print $2; exit }' "/proc/$UPID/status"; }
# Field $1 of every thread of the daemon, as "name=value" lines, and the
# distinct values: capabilities and no_new_privs are per thread, so a
# thread started before the drop would keep what the daemon began with.
thread_fields() {
	for t in /proc/$UPID/task/*; do
		printf '%s=%s\n' "$(cat "$t/comm")" \
			"$(awk -v k="$1:" '$1 == k { print $2; exit }' "$t/status")"
	done
}
thread_values() { thread_fields "$1" | sed 's/.*=//' | sort -u | tr '\n' ' ' | sed 's/ $//'; }
# Every thread there: the resctrl reader and the uncore-frequency reader
# have threads of their own (the tree need not exist).
printf '[resctrl]\nenabled = yes\npath = /nonexistent/resctrl\n' >"$T/threads.conf"
# The regular files and devices a process holds open, one per line.
path_fds() { ls -l "/proc/$1/fd" 2>/dev/null | awk '$NF ~ /^\// { print $NF }' | sort -u; }

if [ "$(id -u)" != 0 ]; then
	skip "open, then drop" "needs root"
else
	# A root-owned 0700 directory: nobody may not even look inside.
	R="$T/root"
	mkdir -m 700 "$R"
	chown root:root "$R"
	printf '[daemon]\ninterval_ms = 100\n' >"$R/uncored.conf"
	cat "$T/threads.conf" >>"$R/uncored.conf"
	start_uncored "$T/log" -c "$R/uncored.conf" --simulate --sim-state "$R/state" \
		-l "127.0.0.1:$PORT" -s "$R/ctl.sock" --user nobody
	ok $? "started as root with --user nobody: serves"
	is "$(field Uid)" 65534 "Uid is nobody's"
	is "$(field Gid)" 65534 "Gid is nobody's"
	is "$(field CapEff)" $KEEP "CapEff: no capability (perf: CAP_PERFMON only)"
	is "$(field CapPrm)" $KEEP "CapPrm: none to take back (perf: CAP_PERFMON only)"
	is "$(field CapBnd)" 0000000000000000 "CapBnd: bounding set cleared"
	is "$(field NoNewPrivs)" 1 "no_new_privs set"
	like "$(thread_fields CapEff | tr '\n' ' ')" "uncored-rdt=" "the resctrl thread runs"
	is "$(thread_values CapEff) $(thread_values CapPrm) $(thread_values NoNewPrivs)" \
		"$KEEP $KEEP 1" "every thread: the same capabilities and no_new_privs"
	is "$(awk '$1 == "Groups:" { print NF - 1 }' "/proc/$UPID/status")" 0 \
		"no supplementary group"
	like "$(cat "$T/log")" "running as user nobody (uid 65534" "the drop is logged"

	# After READY: scrapes, the control socket and a reload open no device.
	path_fds "$UPID" >"$T/fds.before"
	SPID=
	if command -v strace >/dev/null; then
		strace -f -qq -e trace=open,openat,openat2,creat -p "$UPID" -o "$T/strace" &
		SPID=$!
		tap_cleanup_pid "$SPID"
		wait_for "strace to attach" 30 grep -q 'TracerPid:.*[1-9]' "/proc/$UPID/status"
	fi
	# three rounds a tick apart: each scrape renders a new page
	for _ in 1 2 3; do
		curl -s -o "$T/m" "http://127.0.0.1:$PORT/metrics"
		curl -s -o /dev/null --unix-socket "$R/ctl.sock" http://x/api/v1/status
		wait_samples "$PORT" 1
	done
	kill -HUP "$UPID"
	wait_for "the reload to fail" 30 has "$T/log" "reload failed"
	curl -s -o "$T/m" "http://127.0.0.1:$PORT/metrics"
	[ -n "$SPID" ] && { kill "$SPID"; wait "$SPID" 2>/dev/null; }
	ok "$([ -s "$T/m" ] && grep -q '^uncore_llc_lookups_total{socket="0"} [1-9]' "$T/m"; echo $?)" \
		"metrics served after the drop"
	if [ -n "$SPID" ]; then
		ok "$(grep -q openat "$T/strace"; echo $?)" "strace saw the reload's open"
		ok "$(! grep -E '"(/dev/|/sys/|'"$R"'/state)' "$T/strace" | grep -v 'uncored.conf'; echo $?)" \
			"after READY no device or state file is opened ($(grep -c open "$T/strace") opens traced)"
	else
		skip "strace: no open after READY" "strace not installed (/proc/PID/fd is checked)"
	fi
	path_fds "$UPID" >"$T/fds.after"
	is "$(comm -13 "$T/fds.before" "$T/fds.after" | tr '\n' ' ')" "" \
		"no new file descriptor on a path after READY"
	like "$(cat "$T/log")" "runs as user nobody since start-up: the file must be readable by it" \
		"a reload the user cannot read says why, and the daemon goes on"
	ok "$(kill -0 "$UPID"; echo $?)" "still running after the failed reload"

	kill -TERM "$UPID"; wait "$UPID"
	is "$?" 0 "SIGTERM: exit 0"
	if perf_mode; then
		skip "owner file in the unwritable directory emptied" "direct backend only (no owner file in perf mode)"
	else
		ok "$([ -e "$R/state.owner" ] && [ ! -s "$R/state.owner" ]; echo $?)" \
			"owner file in the unwritable directory emptied"
		like "$(cat "$T/log")" "emptied (its directory is not writable" "and that is logged"
	fi
	start_uncored "$T/log2" -c "$R/uncored.conf" --simulate --sim-state "$R/state" \
		-l "127.0.0.1:$PORT" -s "$R/ctl.sock" --user nobody
	ok $? "restart on the same state"
	if perf_mode; then
		skip "an emptied owner file is no owner" "direct backend only (no owner file in perf mode)"
	else
		ok "$(! grep -q "did not exit cleanly" "$T/log2"; echo $?)" \
			"an emptied owner file is no owner: no stale-owner recovery"
	fi
	kill -TERM "$UPID"; wait "$UPID"
	like "$(cat "$T/log2")" "directory $R is not writable by user nobody: $R/ctl.sock will stay behind" \
		"a control socket in a directory the user cannot write: said at start-up"

	# The control socket file goes at SIGTERM: in a sticky directory
	# such as /tmp (only the file's owner may remove it there), and in
	# a directory start-up made for it.
	mkdir -m 1777 "$T/sticky"
	for sock in "$T/sticky/ctl.sock" "$T/made/ctl.sock"; do
		start_uncored "$T/log3" -c "$R/uncored.conf" --simulate \
			-l "127.0.0.1:$PORT" -s "$sock" --user nobody
		ok "$([ -S "$sock" ]; echo $?)" "control socket $sock made"
		kill -TERM "$UPID"; wait "$UPID"
		is "$?" 0 "SIGTERM: exit 0"
		ok "$([ ! -e "$sock" ]; echo $?)" "and $sock is removed"
		ok "$(! grep -q "will stay behind" "$T/log3"; echo $?)" \
			"with no warning that it would stay"
	done

	# The default user does not exist on a fresh machine.
	if getent passwd uncored >/dev/null; then
		skip "missing default user" "this machine has a user uncored"
	else
		out=$("$BIN" -c /dev/null --simulate -l none -s "" 2>&1)
		is "$?" 1 "default user uncored missing: exit 1"
		like "$out" 'user "uncored" does not exist' "naming the user"
		like "$out" "useradd --system" "and how to create it"
		like "$out" "--user" "or how to name another"
	fi
	out=$("$BIN" -c /dev/null --simulate -l none -s "" --user root 2>&1)
	is "$?" 1 "--user root: exit 1"
	like "$out" "uid 0" "saying why"
	printf '[daemon]\nuser = no-such-user-here\n' >"$T/u.conf"
	out=$("$BIN" -c "$T/u.conf" --simulate -l none -s "" 2>&1)
	like "$out" 'user "no-such-user-here" does not exist' "[daemon] user is used"
fi

# The shipped unit's way: started as an ordinary user holding ambient
# capabilities (User= with AmbientCapabilities=), it drops them.
N2="$T/amb"
mkdir "$N2"
chown 65534:65534 "$N2" 2>/dev/null
if [ "$(id -u)" = 0 ]; then
	PORT=$(pick_port)
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=+sys_rawio,+sys_admin,+dac_override$AMB \
		--ambient-caps=+sys_rawio,+sys_admin,+dac_override$AMB \
		"$BIN" $BK -c "$T/threads.conf" $SIMP --sim-state "$N2/state" \
		-l "127.0.0.1:$PORT" -s "" >"$T/log5" 2>&1 &
	UPID=$!
	tap_cleanup_pid "$UPID"
	wait_healthy "$PORT"
	ok $? "started as nobody with ambient capabilities: serves"
	is "$(field CapEff)" $KEEP "CapEff: the ambient capabilities are dropped (perf: but CAP_PERFMON)"
	is "$(field CapAmb)" 0000000000000000 "CapAmb: none left"
	is "$(field NoNewPrivs)" 1 "no_new_privs set"
	like "$(thread_fields CapEff | tr '\n' ' ')" "uncored-rdt=" "the resctrl thread runs"
	if perf_mode; then
		like "$(thread_fields CapEff | tr '\n' ' ')" "uncored-ufreq=" \
			"the uncore-frequency thread runs (skx, perf backend)"
	fi
	# the shipped unit's case: capset() is per thread, so the resctrl and
	# uncore-frequency threads, once started before the drop, kept
	# CAP_SYS_RAWIO and CAP_SYS_ADMIN here
	is "$(thread_values CapEff) $(thread_values CapPrm) $(thread_values CapAmb) $(thread_values NoNewPrivs)" \
		"$KEEP $KEEP 0000000000000000 1" "every thread: the ambient capabilities dropped, no_new_privs set"
	if perf_mode; then
		like "$(cat "$T/log5")" "capabilities dropped but CAP_PERFMON; running as uid 65534" "and says so"
	else
		like "$(cat "$T/log5")" "capabilities dropped; running as uid 65534" "and says so"
	fi
	kill -TERM "$UPID"; wait "$UPID"
else
	skip "ambient capabilities" "needs root"
fi

# Not started as root: nothing to drop, everything works.
N="$T/nb"
mkdir "$N"
chown 65534:65534 "$N" 2>/dev/null
PORT=$(pick_port)
if [ "$(id -u)" = 0 ]; then
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
else
	AS=
fi
$AS "$BIN" $BK -c /dev/null --simulate --sim-state "$N/state" -l "127.0.0.1:$PORT" \
	-s "" >"$T/log4" 2>&1 &
UPID=$!
tap_cleanup_pid "$UPID"
wait_healthy "$PORT"
ok $? "started unprivileged: serves"
like "$(cat "$T/log4")" "no privilege to drop" "and says there is nothing to drop"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "SIGTERM: exit 0"
tap_done
