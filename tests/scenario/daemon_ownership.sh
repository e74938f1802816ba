#!/bin/sh
# daemon_ownership.sh - who owns the PMU: refusal when another agent has
# counters enabled (exit 3 naming the registers), takeover = yes, recovery
# from the daemon's own crash (kill -9), side-by-side simulated daemons,
# unsupported CPU and bad workloads.
. "${top_srcdir:-.}/tests/lib.sh"

cat >"$T/wl.json" <<'JSON'
{ "platform": "skl", "cbo_count": 2,
  "phases": [ { "seconds": 60, "rates": { "cbo:0x34:0x8f": 1.0e8 } } ] }
JSON
: >"$T/empty.conf"
PORT=$(pick_port)
common="-c $T/empty.conf --simulate --workload $T/wl.json --sim-state $T/state -s $T/ctl.sock -i 100"

# Ownership of the PMU is the direct backend's: in perf mode the kernel
# owns it (another perf user shows as multiplexing: perf_backend.sh) and
# the simulated machine under the simulated kernel has no registers for
# another agent to program.
if perf_mode; then
	skip "PMU in use, takeover, second daemon, crash recovery (16 checks)" \
		"direct backend only: the kernel owns the PMU in perf mode"
else
	# Another agent enables CBo 1 counter 0 and the global control.
	"$UNCORE_SIM" -w "$T/wl.json" -s "$T/state" write msr:0x710 0x408f34
	"$UNCORE_SIM" -w "$T/wl.json" -s "$T/state" write msr:0xe01 0x20000000
	out=$("$UNCORED" $common -l "127.0.0.1:$PORT" 2>&1); rc=$?
	is "$rc" 3 "PMU in use: exit status 3"
	like "$out" "msr 0xe01 on cpu 0 = 0x20000000" "message names the global control"
	like "$out" "msr 0x710 on cpu 0 = 0x408f34" "message names the busy event select"
	like "$out" "takeover = yes" "message says how to take over"

	printf '[daemon]\ntakeover = yes\n' >"$T/takeover.conf"
	start_uncored "$T/log1" $common -c "$T/takeover.conf" -l "127.0.0.1:$PORT"
	ok $? "takeover = yes starts anyway"
	like "$(cat "$T/log1")" "taking over the uncore PMU" "takeover is logged"
	like "$(curl -s "http://127.0.0.1:$PORT/api/v1/status")" '"took_over":true' "status reports the takeover"
	is "$("$UNCORE_SIM" -w "$T/wl.json" -s "$T/state" read msr:0x710)" 0x408f34 \
		"after takeover CBo 1 counter 0 holds the baseline encoding"

	# A second daemon on the same (simulated) machine is refused.
	P2=$(pick_port)
	out=$("$UNCORED" $common -s "$T/ctl2.sock" -l "127.0.0.1:$P2" 2>&1); rc=$?
	is "$rc" 3 "a second daemon on the same PMU is refused"
	like "$out" "owned by uncored pid $UPID" "naming the owner's pid"

	# Crash: kill -9 leaves the PMU programmed and a stale owner file.
	kill -9 "$UPID"; wait "$UPID" 2>/dev/null
	is "$("$UNCORE_SIM" -w "$T/wl.json" -s "$T/state" read msr:0xe01)" 0x20000000 \
		"after kill -9 the PMU is still enabled"
	ok "$([ -e "$T/state.owner" ]; echo $?)" "and the owner file is stale"
	start_uncored "$T/log2" $common -l "127.0.0.1:$PORT"
	ok $? "restart after a crash needs no takeover"
	like "$(cat "$T/log2")" "did not exit cleanly" "stale ownership recognised"
	like "$(curl -s "http://127.0.0.1:$PORT/api/v1/status")" '"recovered_stale":true' \
		"status reports the recovery"
	kill -TERM "$UPID"; wait "$UPID"
	is "$?" 0 "clean stop"

fi

# Side by side: two daemons with their own simulated machines.
P3=$(pick_port)
"$UNCORED" -c "$T/empty.conf" --simulate --workload "$T/wl.json" --sim-state "$T/s1" \
	-s "$T/a.sock" -l "127.0.0.1:$PORT" -i 100 >"$T/la" 2>&1 &
A=$!; tap_cleanup_pid $A
"$UNCORED" -c "$T/empty.conf" --simulate --workload "$T/wl.json" --sim-state "$T/s2" \
	-s "$T/b.sock" -l "127.0.0.1:$P3" -i 100 >"$T/lb" 2>&1 &
B=$!; tap_cleanup_pid $B
UPID=$A wait_healthy "$PORT"; ok $? "first side-by-side daemon up"
UPID=$B wait_healthy "$P3"; ok $? "second side-by-side daemon up"
kill -TERM $A $B; wait $A; ra=$?; wait $B; rb=$?
is "$ra:$rb" "0:0" "both stop cleanly"

# Listener already in use.
nc_port=$(pick_port)
"$UNCORED" -c "$T/empty.conf" --simulate -s "" -l "127.0.0.1:$nc_port" -i 100 >"$T/lc" 2>&1 &
C=$!; tap_cleanup_pid $C
UPID=$C wait_healthy "$nc_port"
out=$("$UNCORED" -c "$T/empty.conf" --simulate -s "" -l "127.0.0.1:$nc_port" 2>&1); rc=$?
is "$rc" 1 "port in use: exit 1"
like "$out" "127.0.0.1:$nc_port" "naming the address"
kill -TERM $C; wait $C

# Bad workload and bad options.
echo '{"platform":"skl","phases":[{"seconds":0,"rates":{}}]}' >"$T/bad.json"
out=$("$UNCORED" -c "$T/empty.conf" --simulate --workload "$T/bad.json" -s "" -l none 2>&1); rc=$?
is "$rc" 1 "bad workload: exit 1"
like "$out" "bad.json: \$.phases[0].seconds" "message names the file and JSON path"
out=$("$UNCORED" --interval 5 2>&1); rc=$?
is "$rc" 64 "out-of-range --interval is a usage error"
like "$out" "10..60000" "with the accepted range"
out=$("$UNCORED" --bogus 2>&1); rc=$?
is "$rc" 64 "unknown option: usage error"
printf '[daemon]\ninterval_ms = 5000\n' >"$T/slow.conf"
if perf_mode; then
	# the kernel extends every count to 64 bits: no wrap bound
	out=$("$UNCORED" -n -c "$T/slow.conf" --simulate 2>&1); rc=$?
	is "$rc" 0 "perf: an interval beyond the IMC's half wrap time is fine"
	like "$out" "configuration OK (platform skl, perf backend" \
		"-n says it checked it on the perf backend"
else
	out=$("$UNCORED" -c "$T/slow.conf" --simulate -s "" -l none 2>&1); rc=$?
	is "$rc" 1 "interval beyond half the IMC wrap time is refused"
	like "$out" "at most 2147 ms" "with the limit"
	out=$("$UNCORED" -n -c "$T/slow.conf" --simulate 2>&1); rc=$?
	is "$rc" 1 "uncored -n refuses it too (it runs start-up's checks)"
	like "$out" "at most 2147 ms" "-n gives the same limit"
fi
printf '[daemon]\ninterval_ms = 2000\n' >"$T/fast.conf"
out=$("$UNCORED" -n -c "$T/fast.conf" --simulate 2>&1); rc=$?
is "$rc" 0 "uncored -n accepts a valid file"
printf '[daemon]\nintervall_ms = 100\n' >"$T/typo.conf"
out=$("$UNCORED" -n -c "$T/typo.conf" 2>&1); rc=$?
is "$rc" 1 "uncored -n rejects an unknown key"
like "$out" "typo.conf:2:" "with file:line"
printf '[baseline]\ncbo = UNC_NOPE\n' >"$T/ev.conf"
out=$("$UNCORED" -n -c "$T/ev.conf" --simulate 2>&1); rc=$?
is "$rc" 1 "uncored -n rejects an unknown baseline event"
like "$out" "ev.conf:2: unknown event \"UNC_NOPE\"" "with file:line"
out=$("$UNCORED" -c "$T/empty.conf" -s "" -l none 2>&1); rc=$?
# a supported CPU starts or names its platform instead (e.g. a Zen 5 Turin
# in a VM: "the zen5 platform has no register tables ... no uncore PMU")
sup=$(printf '%s\n' "$out" | sed -n 's/.*the \([a-z0-9]*\) platform .*/\1/p' | head -1)
if grep -q GenuineIntel /proc/cpuinfo && grep -Eq 'model[[:space:]]+: (78|94)$' /proc/cpuinfo; then
	skip "unsupported CPU exits 2" "this machine is a supported Skylake client"
elif [ -n "$sup" ] && [ "$rc" != 2 ]; then
	skip "unsupported CPU exits 2" "this machine's CPU is supported ($sup, exit $rc)"
else
	is "$rc" 2 "unsupported CPU: exit status 2"
	like "$out" "--simulate" "message suggests --simulate"
	vendor=$(sed -n 's/^vendor_id[[:space:]]*: *//p' /proc/cpuinfo | head -1)
	fam=$(sed -n 's/^cpu family[[:space:]]*: *//p' /proc/cpuinfo | head -1)
	model=$(sed -n 's/^model[[:space:]]*: *//p' /proc/cpuinfo | head -1)
	like "$out" "unsupported CPU: $vendor family $fam " \
		"message names the vendor and family ($vendor $fam)"
	like "$out" "model $model " "and the model ($model)"
	like "$out" "skl (" "and lists the platforms (skl"
	like "$out" "hsx (" "... hsx)"
fi
tap_done
