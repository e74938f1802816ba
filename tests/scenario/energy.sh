#!/bin/sh
# energy.sh - uncore_energy_joules_total{socket,domain} (issue 43 section
# 1) on both backends, with known answers from the simulator's "energy"
# workload key:
#  - hsx, 2 sockets: package 200 W, DRAM 30 W (socket 1: 120 W, 20 W), the
#    power unit MSR reporting 2^-22 J: a 32-bit package counter wraps
#    every 5.12 s, so a 12 s window crosses two wraps wherever it starts
#    (and the direct backend must read every 256 ms: four reads per wrap
#    at 1000 W); the DRAM domain counts its fixed 2^-16 J (the kernel's
#    RAPL_UNIT_QUIRK_INTEL_HSW), so the MSR's unit for it would show
#    1920 W, not 30.  Watts = the counter's growth over the daemon's own
#    read times (/api/v1/status "energy"), within 1 %.
#  - the perf backend, the same workload through the simulated kernel's
#    power PMU (.scale 2^-32, .unit Joules), and as root started the
#    shipped unit's way but with CAP_PERFMON alone: not uid 0, no
#    CAP_SYS_ADMIN in any thread, energy served.
#  - zen4 (AMD; the daemon reaches it on perf only): the package alone.
#  - no "energy" (a VM: no RAPL MSRs, no power PMU): the family absent,
#    the reason in /api/v1/status and the log, on both backends.
# /api/v1/status's read_time is each read on the samples' clock.
# Every page passes promtool.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
F=uncore_energy_joules_total
stop() { kill "$UPID" 2>/dev/null; wait "$UPID" 2>/dev/null; }
promcheck() { # promcheck FILE WHAT
	if command -v promtool >/dev/null 2>&1; then
		is "$(promtool check metrics <"$1" 2>&1)" "" "$2: promtool check metrics reports nothing"
	else
		skip "$2: promtool" "promtool not installed"
	fi
}
energy() { curl -fs "http://127.0.0.1:$PORT/api/v1/status" | jq -c '.energy'; }
# dom FILE SOCKET DOMAIN: "joules read_s" of a status "energy" object
dom() {
	jq -r --argjson s "$2" --arg d "$3" \
		'.domains[] | select(.socket == $s and .domain == $d) | "\(.joules) \(.read_s)"' "$1"
}
# read_past FILE SECONDS: every domain read at least SECONDS after the
# reads in FILE
read_past() {
	energy >"$T/e.now" || return 1
	jq -e --slurpfile a "$1" --argjson d "$2" \
		'[.domains[].read_s] | min >= ([$a[0].domains[].read_s] | max) + $d' \
		"$T/e.now" >/dev/null
}
# watts WHAT SOCKET DOMAIN WANT: the growth between $T/e0 and $T/e1 over
# the read times, within 1 %
watts() {
	set -- "$1" "$2" "$3" "$4" $(dom "$T/e0" "$2" "$3") $(dom "$T/e1" "$2" "$3")
	w=$(awk -v a="$5" -v t="$6" -v b="$7" -v u="$8" 'BEGIN { if (u > t) printf "%.4f", (b - a) / (u - t) }')
	near "${w:-0}" "$4" 0.01 "$1: socket $2 $3: $4 W within 1 % (got ${w:-nothing})"
}
window() { # window: $T/e0 once energy is read, $T/e1 12 s of reads later
	wait_for "energy read" 30 sh -c "curl -fs http://127.0.0.1:$PORT/api/v1/status | jq -e '.energy.domains[0].read_s' >/dev/null"
	energy >"$T/e0"
	wait_for "12 s more of energy reads" 60 read_past "$T/e0" 12
	energy >"$T/e1"
}

cat >"$T/hsx.json" <<'JSON'
{ "platform": "hsx", "sockets": 2,
  "phases": [ { "seconds": 10, "rates": {} } ],
  "energy": { "watts": { "package": 200, "dram": 30, "s1/package": 120, "s1/dram": 20 },
              "initial": { "package": 4294000000, "dram": 4294967000 },
              "unit": 22 } }
JSON

# ---- direct: the RAPL MSRs --------------------------------------------------
start_uncored "$T/log1" --simulate --workload "$T/hsx.json" --backend=direct \
	-l "127.0.0.1:$PORT" -s "$T/c1.sock" --interval 1000
ok $? "hsx, direct: serves"
window
is "$(jq -r '.present, .source, .interval_ms' "$T/e1" | tr '\n' ' ')" "true RAPL MSRs 256 " \
	"direct: present, from the MSRs, read every 256 ms (2^-22 J wraps in 4.3 s at 1000 W)"
watts direct 0 package 200
watts direct 0 dram 30
watts direct 1 package 120
watts direct 1 dram 20
# read_time: each read on the samples' clock (the live page takes the
# DRAM bytes of the samples between two reads by it): beside the newest
# sample's time, not CLOCK_MONOTONIC's read_s
energy >"$T/e2"
st=$(curl -fs "http://127.0.0.1:$PORT/api/v1/samples?deltas=0&limit=1" | jq '.samples[-1].time')
ok "$(jq -e --argjson t "${st:-0}" '[.domains[] | .read_time - $t | if . < 0 then -. else . end] |
	max < 2.5' "$T/e2" >/dev/null; echo $?)" \
	"direct: read_time is on the samples' clock (within 2.5 s of the newest sample's time)"
is "$(jq -r '[.domains[] | select(.domain == "dram") | .unit_joules] | unique | .[]' "$T/e1")" \
	1.52587890625e-05 "direct: DRAM counts 2^-16 J (the fixed unit, not the MSR's 2^-22)"
is "$(jq '[.domains[].read_errors] | add' "$T/e1")" 0 "direct: no read errors"
scrape "$PORT" "$T/m1"
is "$(grep -c "^$F{" "$T/m1")" 4 "direct: 4 series (2 sockets x package, dram)"
like "$(cat "$T/m1")" "# TYPE $F counter" "$F is a counter"
like "$(grep "^# HELP $F" "$T/m1")" "dram MSR 0x619 x 2^-16 J (the domain's fixed unit)" \
	"HELP says where the values come from"
ok "$([ -n "$(metric "$T/m1" $F 'socket="1",domain="dram"')" ]; echo $?)" "socket 1's DRAM served"
like "$(cat "$T/log1")" "read every 256 ms" "the log says the read interval"
promcheck "$T/m1" "direct page"
stop

# ---- perf: the power PMU, CAP_PERFMON --------------------------------------
start_uncored "$T/log2" --simulate --workload "$T/hsx.json" --backend=perf \
	-l "127.0.0.1:$PORT" -s "$T/c2.sock" --interval 1000
ok $? "hsx, perf: serves"
window
is "$(jq -r '.present, .source' "$T/e1" | tr '\n' ' ')" "true the kernel's power PMU " \
	"perf: present, from the power PMU"
watts perf 0 package 200
watts perf 0 dram 30
watts perf 1 package 120
watts perf 1 dram 20
is "$(jq -r '[.domains[].unit_joules] | unique | .[]' "$T/e1")" 2.3283064365386963e-10 \
	"perf: each count is the .scale the kernel wrote (2^-32 J)"
scrape "$PORT" "$T/m2"
like "$(grep "^# HELP $F" "$T/m2")" "power/energy-ram/ x 2.3283064365386962890625e-10 Joules" \
	"HELP names the event, its .scale and .unit as the kernel wrote them"
promcheck "$T/m2" "perf page"
stop

field() { awk -v k="$1:" '$1 == k { print $2; exit }' "/proc/$UPID/status"; }
if [ "$(id -u)" = 0 ]; then
	# the shipped unit's way (User= and AmbientCapabilities=), with
	# CAP_PERFMON alone
	# (a config of its own: the build's default one may be where the
	# user cannot read it, e.g. distcheck's _inst under a 0700 /root, and
	# a config that cannot be read is an error, not the defaults)
	mkdir "$T/amb" && : >"$T/amb/uncored.conf" && chown -R 65534:65534 "$T/amb"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=+perfmon --ambient-caps=+perfmon \
		"$(uid_tool 65534 "$top_builddir/uncored")" -c "$T/amb/uncored.conf" \
		--backend=perf --simulate --workload "$T/hsx.json" \
		--sim-state "$T/amb/state" -l "127.0.0.1:$PORT" -s "" --interval 1000 \
		>"$T/log3" 2>&1 &
	UPID=$!
	tap_cleanup_pid "$UPID"
	wait_healthy "$PORT"
	ok $? "perf, started as nobody with CAP_PERFMON alone: serves"
	window
	is "$(field Uid) $(field CapEff)" "65534 0000004000000000" "uid 65534, CapEff CAP_PERFMON only"
	caps=$(for t in /proc/$UPID/task/*; do
		awk '$1 == "CapEff:" { print $2 }' "$t/status"; done | sort -u | tr '\n' ' ')
	is "$caps" "0000004000000000 " "every thread: CAP_PERFMON only (no CAP_SYS_ADMIN)"
	like "$(cat /proc/$UPID/task/*/comm | tr '\n' ' ')" "uncored-energy" "the energy thread runs"
	watts "CAP_PERFMON only" 0 package 200
	watts "CAP_PERFMON only" 1 dram 20
	stop
else
	skip "perf with CAP_PERFMON alone" "needs root (setpriv)"
fi

# ---- zen4: AMD (perf only: uncored drives its uncore through the kernel) ---
cat >"$T/zen4.json" <<'JSON'
{ "platform": "zen4", "sockets": 1,
  "phases": [ { "seconds": 10, "rates": {} } ],
  "energy": { "watts": { "package": 150 }, "unit": 16 } }
JSON
start_uncored "$T/log4" --simulate --workload "$T/zen4.json" --backend=perf \
	-l "127.0.0.1:$PORT" -s "$T/c4.sock" --interval 1000
ok $? "zen4, perf: serves"
window
is "$(jq -r '[.domains[] | "\(.socket)/\(.domain)"] | join(" ")' "$T/e1")" "0/package" \
	"zen4: the package only (AMD's power PMU has energy-pkg alone)"
watts zen4 0 package 150
stop

# ---- no RAPL: absent, with the reason ----------------------------------------
for be in direct perf; do
	start_uncored "$T/log5$be" --simulate=hsx --backend=$be \
		-l "127.0.0.1:$PORT" -s "$T/c5.sock" --interval 1000
	ok $? "hsx without \"energy\", $be: serves"
	energy >"$T/e5"
	is "$(jq -r '.present' "$T/e5")" false "$be: energy not present"
	if [ $be = direct ]; then
		like "$(jq -r '.absent' "$T/e5")" "power unit MSR 0x606 does not read" "direct: the reason names the MSR"
	else
		like "$(jq -r '.absent' "$T/e5")" "the kernel has no power PMU" "perf: the reason names the PMU"
	fi
	scrape "$PORT" "$T/m5"
	is "$(grep -c "$F" "$T/m5")" 0 "$be: no $F on the page (absent, not zero)"
	like "$(cat "$T/log5$be")" "uncore_energy_joules_total is absent:" "$be: the log says why"
	promcheck "$T/m5" "$be page without energy"
	stop
done

tap_done
