#!/bin/sh
# freq_limits.sh - uncore_frequency_limited_seconds_total{socket,domain,
# reason} (issue 43 section 2) with known answers from the simulator
# (each backend named; the same in UNCORED_TEST_BACKEND=perf):
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
#  - the PCU's limit cycles on hsx and snbep (domain="core"), on both
#    backends: [baseline] frequency_limits = auto (the default) leaves them
#    out, since the frequency bands hold the PCU's four counters (the
#    reason in /api/v1/status frequency_limits.left_out and the log); with
#    frequency_limits = yes they count (taking turns with the bands):
#    thermal 0.25, power 0.5, prochot_internal 0.1, prochot_external 0.01
#    of each second, os 0 (a decoy: must serve 0), each the PCU cycles
#    over its fixed 800 MHz clock (cycles served as such would be 2e8 a
#    second), over the daemon's own tick times, between pages a whole
#    rotation of the PCU's turns apart: within 5 % (scaled estimates, a
#    late tick on a loaded machine moves them); with four of them in the
#    bands' place ([baseline] pcu = ...) they count without turns: within
#    1 %, and each sample of /api/v1/samples has the same shares of its
#    interval in its frequency_limited; beside the
#    package's thermal_throttle seconds in the same family on perf.
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

# ---- the PCU's limit cycles (hsx, snbep) -------------------------------------
printf '[baseline]\nfrequency_limits = yes\n' >"$T/yes.conf"
printf '[baseline]\npcu = UNC_P_FREQ_MAX_LIMIT_THERMAL_CYCLES UNC_P_FREQ_MAX_POWER_CYCLES UNC_P_FREQ_MAX_OS_CYCLES UNC_P_PROCHOT_INTERNAL_CYCLES\n' >"$T/pcu.conf"
: >"$T/auto.conf"
# ts FILE: the newest tick's time on a page
ts() { metric "$1" uncored_last_tick_timestamp_seconds ""; }
# pcu_rate REASON SOCKET: growth between $T/p0 and $T/p1 per second of ticks
pcu_rate() {
	awk -v a="$(metric "$T/p0" $F "socket=\"$2\",domain=\"core\",reason=\"$1\"")" \
	    -v b="$(metric "$T/p1" $F "socket=\"$2\",domain=\"core\",reason=\"$1\"")" \
	    -v t="$(ts "$T/p0")" -v u="$(ts "$T/p1")" \
	    'BEGIN { if (u > t && a != "" && b != "") printf "%.5f", (b - a) / (u - t) }'
}
# window: what pcu_rate divides, for the messages
window() {
	echo "ticks $(metric "$T/p0" uncored_ticks_total "")..$(metric "$T/p1" uncored_ticks_total "")"
}
# ticks_past SECONDS: a page whose newest tick is SECONDS after $T/p0's
# and a whole number of rotations later: the PCU's 9 events take turns in
# groups (2 or 3, one tick each), and a family's value is as of its
# group's last turn, so two pages at the same point of the rotation
# (ticks apart a multiple of 6) see exactly the counts between
ticks_past() {
	scrape "$PORT" "$T/p.now" || return 1
	awk -v t="$(ts "$T/p0")" -v u="$(ts "$T/p.now")" -v d="$1" \
	    -v a="$(metric "$T/p0" uncored_ticks_total "")" \
	    -v b="$(metric "$T/p.now" uncored_ticks_total "")" \
	    'BEGIN { exit !(u >= t + d && (b - a) % 6 == 0) }' || return 1
	cp "$T/p.now" "$T/p1"
}
for plat in hsx snbep; do
	cat >"$T/$plat-pcu.json" <<JSON
{ "platform": "$plat", "sockets": 2,
  "phases": [ { "seconds": 10, "rates": {
      "pcu:0x04:0x00": 2.0e8, "pcu:0x05:0x00": 4.0e8, "pcu:0x06:0x00": 0,
      "pcu:0x09:0x00": 8.0e7, "pcu:0x0a:0x00": 8.0e6 } } ],
  "thermal_throttle": { "ms_per_s": 100 } }
JSON
	for be in direct perf; do
		start_uncored "$T/log.$plat.$be.auto" --simulate --workload "$T/$plat-pcu.json" \
			--backend=$be -c "$T/auto.conf" -l "127.0.0.1:$PORT" -s "$T/c5.sock" --interval 1000
		ok $? "$plat, $be, frequency_limits = auto: serves"
		st=$(curl -fs "http://127.0.0.1:$PORT/api/v1/status" | jq -c '.frequency_limits')
		is "$(echo "$st" | jq -r '.setting, (.left_out | map(.unit) | join(" "))' | tr '\n' ' ')" "auto pcu " \
			"$plat, $be, auto: the PCU's limit events left out"
		like "$(echo "$st" | jq -r '.left_out[0].why')" "FREQ_BAND0" "$plat, $be, auto: because of the bands"
		like "$(cat "$T/log.$plat.$be.auto")" "frequency_limits = yes counts them" "$plat, $be, auto: the log says how to have them"
		scrape "$PORT" "$T/pa"
		is "$(grep -c "^$F{.*domain=\"core\"" "$T/pa")" 0 "$plat, $be, auto: no core series"
		stop

		start_uncored "$T/log.$plat.$be.yes" --simulate --workload "$T/$plat-pcu.json" \
			--backend=$be -c "$T/yes.conf" -l "127.0.0.1:$PORT" -s "$T/c5.sock" --interval 1000
		ok $? "$plat, $be, frequency_limits = yes: serves"
		# past the first rotation: a group's first turn stands for the
		# ticks before it too (its value lags by one tick from then on,
		# the same at both ends)
		wait_for "7 ticks" 60 sh -c "curl -fs http://127.0.0.1:$PORT/metrics | awk '\$1 == \"uncored_ticks_total\" && \$2 >= 7 { f = 1 } END { exit !f }'"
		scrape "$PORT" "$T/p0"
		wait_for "12 s and a whole rotation more of ticks" 90 ticks_past 12
		# taking turns with the bands: scaled estimates, whose error
		# is the ticks' jitter (a late tick on a loaded machine): 5 %
		for want in thermal:0.25 power:0.5 prochot_internal:0.1 prochot_external:0.01; do
			r=$(pcu_rate "${want%%:*}" 1)
			near "${r:-0}" "${want#*:}" 0.05 "$plat, $be: socket 1 ${want%%:*} ${want#*:} s a second within 5 %, taking turns (got ${r:-nothing}, $(window))"
		done
		r=$(pcu_rate thermal 0)
		near "${r:-0}" 0.25 0.05 "$plat, $be: socket 0 thermal 0.25 s a second within 5 % (got ${r:-nothing})"
		v=$(metric "$T/p1" $F 'socket="0",domain="core",reason="os"')
		ok "$(awk -v v="${v:-x}" 'BEGIN { exit !(v == "0.0" || v == "0") }'; echo $?)" \
			"$plat, $be: os at rate 0 serves 0 (got ${v:-nothing})"
		is "$(grep -c "^$F{.*domain=\"core\"" "$T/p1")" 10 "$plat, $be: 5 reasons x 2 sockets"
		if [ $be = perf ]; then
			is "$(grep -c "^$F{.*domain=\"package\"" "$T/p1")" 2 \
				"$plat, perf: the package's thermal_throttle seconds in the same family"
		fi
		is "$(grep -c "^# TYPE $F " "$T/p1")" 1 "$plat, $be: one family"
		promcheck "$T/p1" "$plat, $be, frequency_limits = yes page"
		stop

		# four of them in place of the bands ([baseline] pcu): no turns,
		# the counts exact: 1 %
		start_uncored "$T/log.$plat.$be.pcu" --simulate --workload "$T/$plat-pcu.json" \
			--backend=$be -c "$T/pcu.conf" -l "127.0.0.1:$PORT" -s "$T/c5.sock" --interval 1000
		ok $? "$plat, $be, [baseline] pcu = four limit events: serves"
		wait_for "3 ticks" 60 sh -c "curl -fs http://127.0.0.1:$PORT/metrics | awk '\$1 == \"uncored_ticks_total\" && \$2 >= 3 { f = 1 } END { exit !f }'"
		scrape "$PORT" "$T/p0"
		wait_for "10 s more of ticks" 60 ticks_past 10
		for want in thermal:0.25 power:0.5 prochot_internal:0.1; do
			r=$(pcu_rate "${want%%:*}" 1)
			near "${r:-0}" "${want#*:}" 0.01 "$plat, $be, no turns: socket 1 ${want%%:*} ${want#*:} s a second within 1 % (got ${r:-nothing}, $(window))"
		done
		r=$(pcu_rate os 0)
		is "${r:-nothing}" 0.00000 "$plat, $be, no turns: os at rate 0 grows by 0"
		is "$(grep -c "reason=\"prochot_external\"" "$T/p1")" 0 "$plat, $be, no turns: prochot_external not counted, not served"
		# each sample's frequency_limited: the PCU's seconds of that
		# interval, the same shares of its counted time
		curl -fs "http://127.0.0.1:$PORT/api/v1/samples?deltas=0&limit=4" >"$T/smp"
		got=$(jq -r '[.samples[] | select(.valid and (.first | not)) | .counted_s as $c |
			.sockets[1].frequency_limited[]? | select(.domain == "core") |
			"\(.reason):\(.seconds / $c * 100 | round / 100)"] | unique | join(" ")' "$T/smp")
		is "$got" "os:0 power:0.5 prochot_internal:0.1 thermal:0.25" \
			"$plat, $be, no turns: each sample's frequency_limited has the PCU's seconds of its interval"
		"$top_builddir/tests/tools/jsoncanon" <"$T/smp" | cmp -s - "$T/smp"
		ok $? "$plat, $be: the samples with frequency_limited are byte for byte what json-c writes"
		stop
	done
done

# Taking turns on the perf backend with every PCU read held 100 ms (a
# sampler preempted among its reads, as a loaded machine holds it): a
# turn's new kernel group counts from its open, after the tick's reads,
# and its running total must be scaled from the time it counted, not the
# interval.  Before, every reason read 0.80 of its rate here (0.93 in a
# clean clone's run beside stress-ng, unflagged).
sed 's/"thermal_throttle"/"faults": [ { "at": 0, "kind": "perf_read_delay", "target": "uncore_pcu", "seconds": 0.1, "count": 100000000 } ],\n  "thermal_throttle"/' \
	"$T/snbep-pcu.json" >"$T/snbep-delay.json"
start_uncored "$T/log.delay" --simulate --workload "$T/snbep-delay.json" \
	--backend=perf -c "$T/yes.conf" -l "127.0.0.1:$PORT" -s "$T/c5.sock" --interval 1000
ok $? "snbep, perf, PCU reads held 100 ms: serves"
wait_for "7 ticks" 60 sh -c "curl -fs http://127.0.0.1:$PORT/metrics | awk '\$1 == \"uncored_ticks_total\" && \$2 >= 7 { f = 1 } END { exit !f }'"
scrape "$PORT" "$T/p0"
wait_for "12 s and a whole rotation more of ticks" 90 ticks_past 12
for want in thermal:0.25 power:0.5 prochot_internal:0.1; do
	for s in 0 1; do
		r=$(pcu_rate "${want%%:*}" $s)
		near "${r:-0}" "${want#*:}" 0.05 "snbep, perf, reads held 100 ms: socket $s ${want%%:*} ${want#*:} s a second within 5 %, taking turns (got ${r:-nothing}, $(window))"
	done
done
stop

tap_done
