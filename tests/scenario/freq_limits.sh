#!/bin/sh
# freq_limits.sh - uncore_frequency_limited_seconds_total{socket,domain,
# reason} (issue 43 section 2) with known answers from the simulator:
#  - the package thermal-throttle counters of the kernel's therm_throt.c
#    (cpuN/thermal_throttle/package_throttle_total_time_ms, _count) in the
#    simulated kernel's tree, from the workload's "thermal_throttle": hsx,
#    2 sockets, socket 0 throttled 250 ms a second, socket 1 not at all
#    (a reason at rate 0 must serve 0), 2 episodes a second on both.
#    Seconds = the growth between two status reads over their read times,
#    0.25 within 1 % (milliseconds served as such would be 250); every CPU
#    of a package shows the package's counters (a reader adding CPUs up
#    would serve 4 x); events 2 a second.
#  - the direct backend on the simulator's registers (no kernel), zen4
#    (AMD: no thermal_throttle/), hsx without "thermal_throttle" (a VM):
#    the family absent, the reason in /api/v1/status and the log.
# Every page passes promtool.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
F=uncore_frequency_limited_seconds_total
E=uncore_frequency_limited_events_total
stop() { kill "$UPID" 2>/dev/null; wait "$UPID" 2>/dev/null; }
promcheck() { # promcheck FILE WHAT
	if command -v promtool >/dev/null 2>&1; then
		is "$(promtool check metrics <"$1" 2>&1)" "" "$2: promtool check metrics reports nothing"
	else
		skip "$2: promtool" "promtool not installed"
	fi
}
thr() { curl -fs "http://127.0.0.1:$PORT/api/v1/status" | jq -c '.thermal_throttle'; }
# sock FILE SOCKET FIELD
sock() { jq -r --argjson s "$2" ".sockets[] | select(.socket == \$s) | .$3" "$1"; }
read_past() { # every socket read SECONDS after the reads in FILE
	thr >"$T/t.now" || return 1
	jq -e --slurpfile a "$1" --argjson d "$2" \
		'[.sockets[].read_s] | min >= ([$a[0].sockets[].read_s] | max) + $d' \
		"$T/t.now" >/dev/null
}
# rate SOCKET FIELD: growth of FIELD between $T/t0 and $T/t1 per second
rate() {
	awk -v a="$(sock "$T/t0" "$1" "$2")" -v t="$(sock "$T/t0" "$1" read_s)" \
	    -v b="$(sock "$T/t1" "$1" "$2")" -v u="$(sock "$T/t1" "$1" read_s)" \
	    'BEGIN { if (u > t) printf "%.5f", (b - a) / (u - t) }'
}

cat >"$T/hsx.json" <<'JSON'
{ "platform": "hsx", "sockets": 2,
  "phases": [ { "seconds": 10, "rates": {} } ],
  "thermal_throttle": { "ms_per_s": 250, "s1/ms_per_s": 0, "count_per_s": 2 } }
JSON

# ---- perf: the simulated kernel's thermal_throttle/ files -------------------
start_uncored "$T/log1" --simulate --workload "$T/hsx.json" --backend=perf \
	-l "127.0.0.1:$PORT" -s "$T/c1.sock" --interval 1000
ok $? "hsx, perf: serves"
wait_for "thermal_throttle read" 30 sh -c "curl -fs http://127.0.0.1:$PORT/api/v1/status | jq -e '.thermal_throttle.sockets[1].read_s' >/dev/null"
thr >"$T/t0"
wait_for "10 s more of reads" 60 read_past "$T/t0" 10
thr >"$T/t1"
is "$(jq -r '.present' "$T/t1")" true "present"
is "$(jq -r '[.sockets[] | "\(.socket)@cpu\(.cpu)"] | join(" ")' "$T/t1")" "0@cpu0 1@cpu8" \
	"one CPU per package, the lowest of each"
r0=$(rate 0 seconds)
near "${r0:-0}" 0.25 0.01 "socket 0: 250 ms a second served as 0.25 s a second, within 1 % (got ${r0:-nothing})"
is "$(sock "$T/t1" 1 seconds)" 0 "socket 1: throttled at rate 0 serves 0"
r1=$(rate 1 events)
near "${r1:-0}" 2 0.1 "events: 2 a second within 10 % (got ${r1:-nothing})"
is "$(jq '[.sockets[].read_errors] | add' "$T/t1")" 0 "no read errors"
scrape "$PORT" "$T/m1"
is "$(grep -c "^$F{" "$T/m1")" 2 "2 series (2 sockets)"
like "$(cat "$T/m1")" "# TYPE $F counter" "$F is a counter"
like "$(grep "^# HELP $F" "$T/m1")" "thermal_throttle/package_throttle_total_time_ms / 1000" \
	"HELP says where the values come from"
v=$(metric "$T/m1" $F 'socket="0",domain="package",reason="thermal"')
ok "$(awk -v v="${v:-0}" 'BEGIN { exit !(v > 0 && v < 100) }'; echo $?)" \
	"socket 0 served in seconds ($v), not milliseconds"
v1=$(metric "$T/m1" $F 'socket="1",domain="package",reason="thermal"')
ok "$(awk -v v="${v1:-x}" 'BEGIN { exit !(v == "0.0" || v == "0") }'; echo $?)" "socket 1 served as 0 (got ${v1:-nothing})"
ok "$([ -n "$(metric "$T/m1" $E 'socket="1",domain="package",reason="thermal"')" ]; echo $?)" \
	"$E served"
like "$(cat "$T/log1")" "thermal_throttle: package throttle counters of 2 packages" "the log says what is read"
like "$(cat /proc/$UPID/task/*/comm | tr '\n' ' ')" "uncored-therma" "the thermal_throttle thread runs"
promcheck "$T/m1" "perf page"
stop

# ---- absent, with the reason ------------------------------------------------
absent() { # absent WHAT LOG REASON
	thr >"$T/ta"
	is "$(jq -r '.present' "$T/ta")" false "$1: not present"
	like "$(jq -r '.absent' "$T/ta")" "$3" "$1: the reason"
	scrape "$PORT" "$T/ma"
	is "$(grep -c "uncore_frequency_limited" "$T/ma")" 0 "$1: no family on the page (absent, not zero)"
	like "$(cat "$2")" "is absent: " "$1: the log says why"
	promcheck "$T/ma" "$1 page"
}
start_uncored "$T/log2" --simulate --workload "$T/hsx.json" --backend=direct \
	-l "127.0.0.1:$PORT" -s "$T/c2.sock" --interval 1000
ok $? "hsx, direct: serves"
absent "direct on the simulator's registers" "$T/log2" "the simulator's registers have no kernel"
stop

cat >"$T/zen4.json" <<'JSON'
{ "platform": "zen4", "sockets": 1, "phases": [ { "seconds": 10, "rates": {} } ] }
JSON
start_uncored "$T/log3" --simulate --workload "$T/zen4.json" --backend=perf \
	-l "127.0.0.1:$PORT" -s "$T/c3.sock" --interval 1000
ok $? "zen4, perf: serves"
absent "zen4 (AMD)" "$T/log3" "/cpu0/thermal_throttle: the kernel's therm_throt.c makes it only on an Intel CPU"
stop

start_uncored "$T/log4" --simulate=hsx --backend=perf \
	-l "127.0.0.1:$PORT" -s "$T/c4.sock" --interval 1000
ok $? "hsx without \"thermal_throttle\" (a VM), perf: serves"
absent "hsx without thermal_throttle" "$T/log4" "/cpu0/thermal_throttle: the kernel's therm_throt.c"
stop

tap_done
