#!/bin/sh
# sim_state.sh - the simulator's state file cannot be turned against the
# daemon (issue 20 item 5).  --sim-state and its owner file are opened
# before the privilege drop, as root; a symbolic link at either name made
# root write a file of the link's choosing.  Now the state file is opened
# with O_NOFOLLOW and must be a regular file with one link, the owner
# file is written through a mkstemp() name in the same directory, and a
# directory every user may write without the sticky bit is refused.  The
# perf backend (UNCORED_TEST_BACKEND=perf) keeps its state file the same
# way and has no owner file.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
cd "$T" || exit 1
echo precious >victim
echo precious >victim2

# run_daemon LOG ARGS...: starts the daemon; R is "up" once it serves,
# or its exit status if it ends first (within 30 s)
run_daemon() {
	log=$1; shift
	"$UNCORED" -c /dev/null --simulate -i 100 -l "127.0.0.1:$PORT" -s "" "$@" >"$log" 2>&1 &
	UPID=$!; tap_cleanup_pid $UPID
	wait_for "the daemon to serve or end" 30 sh -c \
		"curl -sf -o /dev/null http://127.0.0.1:$PORT/healthz || ! kill -0 $UPID"
	if kill -0 $UPID 2>/dev/null; then
		R=up
	else
		wait $UPID; R="exit $?"
	fi
}
stop() { kill -TERM $UPID; wait $UPID; }

# a symbolic link as the state file, to an existing file and to none
ln -s "$T/victim" st1
run_daemon log1 --sim-state st1
is "$R" "exit 1" "--sim-state is a symbolic link: refused"
like "$(cat log1)" "it is a symbolic link, which is never followed" "... saying why"
is "$(cat victim)" precious "... and the file it points to is untouched"
ln -s "$T/created" st2
run_daemon log2 --sim-state st2
[ ! -e created ]
ok $? "a dangling link: nothing is created where it points"

# a hard link to another file
ln victim st3
run_daemon log3 --sim-state st3
is "$R" "exit 1" "--sim-state is a second hard link to a file: refused"
like "$(cat log3)" "not a regular file with one link (2 links)" "... saying why"
is "$(cat victim)" precious "... and that file is untouched"

# a link where the owner file's temporary used to be (STATE.owner.tmp)
mkdir priv && chmod 0755 priv
[ "$(id -u)" = 0 ] && chown nobody priv	# the daemon's own directory
ln -s "$T/victim2" priv/st.owner.tmp
run_daemon log4 --sim-state priv/st
is "$R" up "a private directory: the daemon runs"
is "$(cat victim2)" precious "... and a link at STATE.owner.tmp is not written through"
if perf_mode; then
	skip "... the owner file is a regular file naming the daemon" \
		"direct backend only (no owner file in perf mode)"
else
	[ -f priv/st.owner ] && [ ! -L priv/st.owner ] && grep -q "^pid=$UPID$" priv/st.owner
	ok $? "... the owner file is a regular file naming the daemon"
fi
stop
[ -z "$(ls priv | grep -v '^st$\|^st.owner.tmp$\|^st.owner$')" ]
ok $? "... and no temporary file is left behind"

# directories every user may write
mkdir open sticky && chmod 0777 open && chmod 1777 sticky
run_daemon log5 --sim-state open/st
is "$R" "exit 1" \
	"a directory every user may write, without the sticky bit: refused"
like "$(cat log5)" "writable by every user and has no sticky bit" "... saying why"
[ ! -e open/st ]
ok $? "... before anything is created in it"
run_daemon log6 --sim-state sticky/st
is "$R" up "with the sticky bit (as /tmp): accepted"
stop
out=$("$UNCORE_SIM" -s st1 read msr:0x700 2>&1)
is "$?:$(cat victim)" "1:precious" "uncore-sim refuses the link too"
like "$out" "symbolic link" "... saying why"
tap_done
