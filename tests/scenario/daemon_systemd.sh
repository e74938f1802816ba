#!/bin/sh
# daemon_systemd.sh - sd_notify through a test-owned NOTIFY_SOCKET
# (READY=1 after the first sample, STATUS=, WATCHDOG=1 while the sampler
# runs, RELOADING=1 on SIGHUP, STOPPING=1), socket activation through
# LISTEN_FDS, and the shipped unit's hardening as rated by systemd-analyze.
. "${top_srcdir:-.}/tests/lib.sh"
NR="$top_builddir/tests/tools/notify-recv"
BACKEND=direct
perf_mode && BACKEND=perf

PORT=$(pick_port)
"$NR" "$T/notify" 60 -t >"$T/msgs" &
NRPID=$!; tap_cleanup_pid $NRPID
wait_for "the notify socket" 30 test -S "$T/notify"
: >"$T/empty.conf"
NOTIFY_SOCKET="$T/notify" WATCHDOG_USEC=400000 \
	start_uncored "$T/log" -c "$T/empty.conf" --simulate -l "127.0.0.1:$PORT" -s "" -i 100
ok $? "daemon up under a notify socket"
wait_for "6 watchdog pings" 30 has "$T/msgs" WATCHDOG=1 6
n0=$(grep -c '^READY=1$' "$T/msgs")
kill -HUP "$UPID"
wait_for "READY=1 after SIGHUP" 30 has "$T/msgs" READY=1 $((n0 + 1))
like "$(sed -n "/^RELOADING=1\$/,\$p" "$T/msgs")" "READY=1" \
	"SIGHUP: READY=1 again after RELOADING=1"
kill -TERM "$UPID"; wait "$UPID"
wait_for "STOPPING=1" 30 has "$T/msgs" STOPPING=1
msgs=$(grep -v '^T=' "$T/msgs")
like "$msgs" "READY=1" "READY=1 sent"
like "$msgs" "STATUS=platform skl ($BACKEND backend, simulator), 16 counters, interval 100 ms" "STATUS= describes the daemon"
# the gaps between the first 6 pings, by the time they arrived
gaps=$(awk '/^T=/ { t = substr($0, 3) } /^WATCHDOG=1$/ { if (n++) print t - p; p = t; if (n == 6) exit }' "$T/msgs" | sort -n)
near "$(echo "$gaps" | sed -n 3p)" 0.2 0.25 \
	"WATCHDOG=1 sent every half watchdog period (median of 5 gaps $(echo "$gaps" | sed -n 3p) s)"
ok "$(awk -v g="$(echo "$gaps" | tail -1)" 'BEGIN { exit !(g < 0.4) }'; echo $?)" \
	"... never a whole period (0.4 s) without one (longest gap $(echo "$gaps" | tail -1) s)"
like "$msgs" "RELOADING=1" "RELOADING=1 on SIGHUP"
like "$msgs" "STOPPING=1" "STOPPING=1 on SIGTERM"
first=$(grep -n . "$T/msgs" | grep -m1 -E 'READY=1|WATCHDOG' | cut -d: -f2)
is "$first" "READY=1" "READY=1 comes before any watchdog ping"

# Socket activation: LISTEN_FDS with a TCP socket on fd 3.  The shell
# cannot create a listening socket, so let the daemon inherit one from a
# small helper: a first daemon can't, so use systemd-socket-activate.
if command -v systemd-socket-activate >/dev/null; then
	P2=$(pick_port)
	systemd-socket-activate -l "127.0.0.1:$P2" \
		"$UNCORED" -c "$T/empty.conf" --simulate -s "$T/unused.sock" -l none -i 100 \
		>"$T/log2" 2>&1 &
	SA=$!; tap_cleanup_pid $SA
	UPID=$SA; wait_healthy "$P2"
	is "$(http_code "http://127.0.0.1:$P2/healthz")" 200 "serves on the socket systemd passed"
	like "$(cat "$T/log2")" "passed by systemd" "and says so"
	ok "$([ ! -e "$T/unused.sock" ]; echo $?)" "configured listeners are not opened"
	kill -TERM $SA; wait $SA
else
	skip "socket activation" "systemd-socket-activate not installed"
fi

if command -v systemd-analyze >/dev/null; then
	sed 's|@sbindir@|/usr/sbin|' "$top_srcdir/systemd/uncored.service.in" >"$T/uncored.service"
	out=$(systemd-analyze security --offline=yes "$T/uncored.service" 2>&1)
	lvl=$(echo "$out" | sed -n 's/.*Overall exposure level for uncored.service: \([0-9.]*\).*/\1/p')
	ok "$(awk -v l="$lvl" 'BEGIN { exit !(l != "" && l <= 2.5) }'; echo $?)" \
		"systemd-analyze security exposure $lvl <= 2.5"
	like "$(cat "$T/uncored.service")" "DevicePolicy=closed" "DevicePolicy=closed"
	is "$(sed -n 's/^CapabilityBoundingSet=//p' "$T/uncored.service")" \
		"CAP_SYS_RAWIO CAP_SYS_ADMIN CAP_DAC_OVERRIDE CAP_PERFMON" \
		"bounding set: only what opening the devices (direct) and the perf events need"
	like "$(cat "$T/uncored.service")" "User=uncored" "runs as the user uncored"
	like "$(cat "$T/uncored.service")" "ReadWritePaths=/sys/devices" \
		"PCI config files writable (hsx), one unit for every platform"
	out=$(systemd-analyze security --offline=yes "$T/uncored.service" 2>&1)
	for item in 'SET(UID|GID|PCAP)' 'CHOWN|FSETID|SETFCAP' 'User=/DynamicUser='; do
		ok "$(! echo "$out" | grep -F -- "$item" | grep -q '✗'; echo $?)" \
			"systemd-analyze finds no $item exposure"
	done
	v=$(systemd-analyze verify "$T/uncored.service" 2>&1 | grep -v -e 'uncored: No such file' -e 'is not executable' -e 'Command /usr/sbin/uncored' -e "Command 'man " || true)
	is "$v" "" "systemd-analyze verify has no complaints about the unit"
else
	skip "systemd-analyze" "not installed"
fi
if command -v systemd-sysusers >/dev/null; then
	mkdir -p "$T/sr/etc"
	systemd-sysusers --root="$T/sr" "$top_srcdir/systemd/uncored.sysusers" >/dev/null 2>&1
	like "$(cat "$T/sr/etc/passwd" 2>/dev/null)" "uncored:x:" \
		"uncored.sysusers creates the user uncored (in a scratch root)"
else
	skip "sysusers" "systemd-sysusers not installed"
fi
tap_done
