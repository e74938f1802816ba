#!/bin/sh
# selftest.sh - `uncored --self-test` on the simulator: passes on skl, snbep and
# hsx against the built-in self-test workload (a table of check,
# expected, measured, verdict, each check printed when its step is done;
# exit 0), fails (exit 1, naming the checks) when a counter is stuck,
# refuses at once (exit 1) a workload whose phases cannot play the load,
# and refuses (exit 3) while a running uncored or another agent holds the
# PMU.  With UNCORED_TEST_BACKEND=perf every self-test runs through the
# simulated kernel (issue 21 item 6): the freeze and the read-back are
# n/a there, and nothing holds the PMU (the kernel shares it).
. "${top_srcdir:-.}/tests/lib.sh"

BIN="$top_builddir/uncored"
BK=
perf_mode && BK=--backend=perf

for p in skl hsx snbep; do
	out=$("$BIN" $BK --self-test --simulate=$p -c /dev/null 2>&1)
	is "$?" 0 "$p: self-test passes on the simulator"
	like "$out" "CHECK                      EXPECTED" "$p: prints the table header"
	like "$out" "uncore clock s0" "$p: checks the uncore clock"
	like "$out" "DRAM reads while streaming" "$p: checks DRAM reads against the bytes streamed"
	like "$out" "freeze stops counting" "$p: checks the freeze"
	if perf_mode; then
		like "$out" "perf: no freeze                    n/a" "$p: perf: the freeze is n/a"
		like "$out" "perf: the kernel holds them        n/a" "$p: perf: so is the read-back"
	fi
	is "$(echo "$out" | grep -c ' FAIL$')" 0 "$p: no check fails"
done

# Each check is printed when its step is done, not at the end: the
# streaming check before the chase is measured, the freeze check last.
out=$("$BIN" $BK --self-test --simulate=skl -c /dev/null 2>&1)
order=$(echo "$out" | grep -n -e '^DRAM reads while streaming' -e '^\.\.\. chase window' \
	-e '^freeze stops' -e '^\.\.\. frozen window' | cut -d: -f2 | cut -c1-12 | tr '\n' '|')
if perf_mode; then	# no frozen window to measure
	is "$order" "DRAM reads w|... chase wi|freeze stops|" \
		"each check printed as its step completes"
else
	is "$order" "DRAM reads w|... chase wi|... frozen w|freeze stops|" \
		"each check printed as its step completes"
fi

# A workload that cannot play the self-test's load (issue 19 section 3:
# one phase of an hour printed nothing for 300 s) is refused at once,
# saying what the self-test needs.
misfit() { # misfit NAME PHASES
	printf '{ "platform": "skl", "phases": [ %s ] }\n' "$2" >"$T/$1.json"
	t0=$(date +%s)
	out=$(timeout 60 "$BIN" $BK --self-test --simulate=skl --workload "$T/$1.json" \
		-c /dev/null 2>&1)
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	ok "$([ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$secs" -le 5 ]; echo $?)" \
		"$1: refused at once (exit $rc after $secs s)"
	like "$out" "It needs its first three phases to be quiet, stream (DRAM reads) and pointer chase (LLC misses), 0.5 to 5 s each, in a cycle of at most 20 s" \
		"$1: saying what the self-test needs"
}
P='{ "seconds": 1, "rates": { "imc:DRAM_DATA_READS": 1e6 } }'
misfit hour '{ "seconds": 3600, "rates": { "cbo:0x34:0x8f": 1e7 } }'
like "$out" '$.phases[0].seconds is 3600 (the quiet phase)' "hour: naming the phase"
misfit two "$P, $P"
like "$out" '$.phases has 2 phases' "two: naming the count"
misfit long_tail "$P, $P, $P, { \"seconds\": 3600, \"rates\": {} }"
like "$out" 'its phases repeat every 3603 s' "long_tail: naming the cycle"

# The built-in self-test workload (sim_builtin.c) with DRAM reads stuck.
cat >"$T/stuck.json" <<'JSON'
{ "platform": "skl", "uclk_hz": 800000000, "sockets": 1,
  "phases": [
    { "seconds": 1, "rates": { "cbo:0x34:0x8f": 1e7, "cbo:0x34:0x88": 1e5, "imc:DRAM_DATA_READS": 1e6 } },
    { "seconds": 1, "rates": { "cbo:0x34:0x8f": 2e8, "cbo:0x34:0x88": 1.25e8, "imc:DRAM_DATA_READS": 1.25e8 } },
    { "seconds": 1, "rates": { "cbo:0x34:0x8f": 5e7, "cbo:0x34:0x88": 4e7, "imc:DRAM_DATA_READS": 4e7 } } ],
  "faults": [ { "at": 0, "kind": "stuck", "target": "imc:DRAM_DATA_READS" } ] }
JSON
out=$("$BIN" $BK --self-test --simulate --workload "$T/stuck.json" -c /dev/null 2>&1)
is "$?" 1 "a stuck DRAM counter: exit 1"
like "$out" "DRAM read bytes advance s0 > 0                        0 " \
	"the DRAM counter does not advance"
like "$out" "DRAM reads while streaming" "the streaming check"
ok "$(echo "$out" | grep 'DRAM reads while streaming' | grep -q 'FAIL$'; echo $?)" \
	"fails"
like "$out" "FAIL: 2 checks failed" "and the summary says how many"
# Same workload without the fault passes: the fault is what fails it.
sed 's/"faults": \[.*\]/"faults": []/' "$T/stuck.json" >"$T/ok.json"
"$BIN" $BK --self-test --simulate --workload "$T/ok.json" -c /dev/null >/dev/null 2>&1
is "$?" 0 "the same workload without the fault passes"

# A running uncored owns the PMU: refused.
PORT=$(pick_port)
start_uncored "$T/log" -c /dev/null --simulate --sim-state "$T/state" \
	-l "127.0.0.1:$PORT" -s ""
ok $? "daemon up on a shared simulator state"
out=$("$BIN" $BK --self-test --simulate --sim-state "$T/state" -c /dev/null 2>&1)
rc=$?
if perf_mode; then
	# the kernel shares its PMUs: nothing owns them, nothing to refuse
	is "$rc" 0 "perf: self-test while uncored runs on the same state passes"
	like "$out" "PASS: 0 checks failed" "perf: every check"
else
	is "$rc" 3 "self-test while uncored runs: exit 3"
	like "$out" "owned by uncored pid $UPID" "naming the daemon"
fi
kill -TERM "$UPID"; wait "$UPID"

# Another agent left a counter enabled: refused.
if perf_mode; then
	skip "self-test while another agent counts" "direct backend only (registers)"
else
	"$UNCORE_SIM" -s "$T/state2" write msr:0xe01 0x20000000 >/dev/null
	out=$("$BIN" $BK --self-test --simulate --sim-state "$T/state2" -c /dev/null 2>&1)
	is "$?" 3 "self-test while another agent counts: exit 3"
	like "$out" "in use by another agent" "saying so"
fi
tap_done
