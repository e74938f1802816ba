#!/bin/bash
# formulas_sweep.sh - every formula uncored serves, on every platform with
# a formula catalog, against the tests' own evaluator (issue 42 section 4).
# The simulated machine's workload has "distinct_rates": each event counts
# at a rate of its own, per socket and per box (uncore-sim(1)), so a
# formula that takes a wrong event, box, socket or window gets another
# value.  For each platform tests/tools/formula_sweep.py claims each
# available formula in a claim of its own, waits until every event has
# counted, and compares the daemon's value, read from the last tick and
# now, with the evaluator's (tests/tools/formula_eval.py: Python over the
# catalog's expression and the answer's counts): all must be equal to
# rounding, none null.  A formula the catalog calls available must be
# accepted as a claim: the catalog says "its events can never count
# together" for those a claim would refuse (hsx: 5 of the manual's, whose
# events need two values of one box's filter register, or counter 0
# twice).  hsx runs on the direct backend unless the suite runs on perf;
# the others on perf.  Skipped without python3.
. "${top_srcdir:-.}/tests/lib.sh"

need_python3 "the formula sweep"
SWEEP="$top_srcdir/tests/tools/formula_sweep.py"
chmod 711 "$T"
S="$T/ctl.sock"
cat >"$T/c.conf" <<'CONF'
[daemon]
interval_ms = 100
[http]
control_group = nogroup
[claims]
max_per_uid = 400
max_total = 400
CONF

# sweep PLATFORM MIN-AVAILABLE ARGS...: one daemon, every formula
sweep() {
	p=$1 min=$2; shift 2
	printf '{ "platform": "%s", "sockets": 2, "distinct_rates": true,\n  "phases": [ { "seconds": 3600, "rates": {} } ] }\n' \
		"$p" >"$T/$p.json"
	PORT=$(pick_port)
	start_uncored "$T/$p.log" -c "$T/c.conf" --simulate="$p" \
		--workload "$T/$p.json" -l "127.0.0.1:$PORT" -s "$S" "$@"
	up=$?
	ok $up "$p: daemon up"	# if not, start_uncored printed its log's tail
	python3 "$SWEEP" "$S" 180 >"$T/$p.out" 2>&1
	grep '^#' "$T/$p.out" | head -12
	r=$(tail -1 "$T/$p.out")
	set -- $r
	# available A claimed C refused R counted K checked N differ D null Z
	ok "$([ "${2:-0}" -ge "$min" ]; echo $?)" "$p: ${2:-0} formulas available (at least $min)"
	is "$4/$6" "$2/0" "$p: every available formula accepted as a claim"
	is "${10:-x}" "$2" "$p: every one checked (its events all counted)"
	is "${12:-x}" 0 "$p: the daemon's value is the evaluator's for each"
	is "${14:-x}" 0 "$p: no formula without a value (null)"
	kill "$UPID"; wait "$UPID" 2>/dev/null
}

hsx_backend=
perf_mode || hsx_backend=--backend=direct
sweep hsx 102 $hsx_backend
# (today's counts of available formulas: doc/formulas.md)
for pm in skx:19 icx:39 spr:44 gnr:37 zen3:2 zen4:3 zen5:14; do
	sweep "${pm%:*}" "${pm#*:}" --backend=perf
done
tap_done
