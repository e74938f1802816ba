#!/bin/bash
# formulas_claims.sh - claims of formulas (issue 42 section 2) on the
# simulated hsx (direct) and spr (perf), with a workload that gives each
# event a rate of its own, per socket:
#  - known answers: ratios of two workload rates (exact whatever the
#    multiplexing: the events count in one group), a bandwidth (rate x
#    boxes x 64), with decoys beside them (the complementary formula, the
#    other socket's rates, events of the same unit the formula must not
#    take);
#  - an independent evaluator (tests/tools/formula_eval.py: Python over the catalog of GET
#    /api/v1/formulas and the claim's own event counts, `scaled` per
#    socket, the first box's count for a first_box event, T the claim's
#    time_enabled_s) gives every formula's value: the daemon's must be
#    the same to rounding, in the 201, read, now, renewal and release
#    answers;
#  - uncorectl claim --formula --watch prints the values;
#  - bad input: an unknown name (400 naming it), an ambiguous one (400
#    naming the choices), a formula unavailable here (409 with the
#    catalog's reason), formulas whose events cannot count together (409),
#    formulas not an array, a name listed twice.
# Skipped without python3.
. "${top_srcdir:-.}/tests/lib.sh"

CTL="$top_builddir/uncorectl"
need_python3 "formula claims"
chmod 711 "$T"
S="$T/ctl.sock"

# post BODY: POST /api/v1/claims on the control socket; the body in $T/r,
# the status printed
post() {
	curl -s --unix-socket "$S" -o "$T/r" -w '%{http_code}' \
		-X POST -d "$1" http://uncored/api/v1/claims
}
get() { curl -s --unix-socket "$S" -o "$T/r" -w '%{http_code}' \
		-X "${2:-GET}" "http://uncored$1"; }

# ran ID SECONDS: has claim ID counted for at least SECONDS (its
# time_running_s, read now)?  The known answers need counts over about a
# second; a loaded machine only takes longer to get there.
ran() {
	curl -s --unix-socket "$S" "http://uncored/api/v1/claims/$1/now" |
		python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["time_running_s"] < float(sys.argv[1]))' "$2"
}

# check FILE: the independent evaluator over $T/catalog.json and the claim
# answer in FILE: "fine", or what differs.  Extra arguments NAME=VALUE
# are known answers for socket 0 and 1 (NAME=V0/V1, within 1 %, or
# NAME=V0/V1~TOL: a value over T moves with the timing of the ticks;
# every decoy is further off).
check() {
	python3 "$top_srcdir/tests/tools/formula_eval.py" "$T/catalog.json" "$@"
}

start() { # PLATFORM WORKLOAD ARGS...
	p=$1 wl=$2; shift 2
	PORT=$(pick_port)
	cat >"$T/c.conf" <<'CONF'
[daemon]
interval_ms = 200
[http]
control_group = nogroup
CONF
	start_uncored "$T/$p.log" -c "$T/c.conf" --simulate="$p" --workload "$wl" \
		-l "127.0.0.1:$PORT" -s "$S" "$@"
	ok $? "daemon up on the simulated $p"
	curl -s "http://127.0.0.1:$PORT/api/v1/formulas" >"$T/catalog.json"
}
stop() { kill "$UPID"; wait "$UPID" 2>/dev/null; }

# ---- hsx (direct): the manual's and Intel's formulas ---------------------
# every event of the formulas below its own rate per socket, decoys of
# the same units beside them (shared with formulas_metrics.sh)
cp "$top_srcdir/tests/fixtures/workloads/formulas-hsx.json" "$T/hsx.json"
start hsx "$T/hsx.json"
st=$(post '{"formulas": ["ha/PCT_RD_REQUESTS", "ha/PCT_WR_REQUESTS",
	"numa_reads_addressed_to_local_dram", "memory_bandwidth_total"],
	"events": ["UNC_M_CAS_COUNT.RD"], "ttl_s": 300}')
is "$st" 201 "a claim of four formulas beside an event: 201"
cp "$T/r" "$T/created"
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$T/r")
is "$(python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))
print(len(d["events"]), d["events"][0]["event"], d["events"][-1]["event"],
      len(d["formulas"]))' "$T/r")" "6 UNC_M_CAS_COUNT.RD UNC_M_CAS_COUNT.WR 4" \
	"the event named, then the formulas' five others (CAS RD shared)"
is "$(check "$T/r")" fine "the 201's formulas: the evaluator's values"
# ratios of rates of one group are exact whatever the multiplexing; the
# bandwidth (RD + WR) x 64 B (the workload's rates are the socket's,
# spread over its channels)
KNOWN="ha/PCT_RD_REQUESTS=0.75/0.25 ha/PCT_WR_REQUESTS=0.25/0.75
numa_reads_addressed_to_local_dram=0.75/0.2
memory_bandwidth_total=1.12e10/1.728e10"
# (its lease outlives this wait: with 60 s a clean clone's run beside
# stress-ng read it 404 just after the wait, expired; what took the wait
# so long is printed)
t0=$(date +%s)
wait_for "claim $id to count 1.5 s" 60 ran "$id" 1.5
echo "# claim $id counted 1.5 s after $(( $(date +%s) - t0 )) s of wall time"
is "$(get "/api/v1/claims/$id")" 200 "read"
is "$(check "$T/r" $KNOWN)" fine "read: the evaluator's values and the known answers"
is "$(get "/api/v1/claims/$id/now")" 200 "read now"
is "$(check "$T/r" $KNOWN)" fine "now: the evaluator's values and the known answers"
is "$(curl -s --unix-socket "$S" -o "$T/r" -w '%{http_code}' -X POST \
	-d '{"ttl_s": 30}' "http://uncored/api/v1/claims/$id/renew")" 200 "renewal"
is "$(check "$T/r" $KNOWN)" fine "renewal: the evaluator's values and the known answers"
is "$(get "/api/v1/claims/$id" DELETE)" 200 "release"
is "$(check "$T/r" $KNOWN)" fine "release: the evaluator's values and the known answers"

# formulas alone, and one whose events are all the baseline's
st=$(post '{"formulas": ["PCT_REQUESTS_PAGE_MISS"]}')
is "$st" 201 "formulas instead of events: 201"
like "$(cat "$T/r")" '"name":"PCT_REQUESTS_PAGE_MISS","unit":"ratio"' \
	"the formula's name and unit"
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$T/r")
get "/api/v1/claims/$id" DELETE >/dev/null

# uncorectl
out=$("$CTL" -s "$S" claim --formula ha/PCT_RD_REQUESTS --formula \
	memory_bandwidth_total --watch 0.5 --count 2 2>&1); rc=$?
is "$rc" 0 "uncorectl claim --formula --watch"
like "$out" "FORMULA" "a table of the formulas"
ok "$(printf '%s\n' "$out" | grep -Eq '^0 +ha/PCT_RD_REQUESTS +0\.7(5|49[0-9]*) +ratio *$'; echo $?)" \
	"socket 0's ratio"
ok "$(printf '%s\n' "$out" | grep -Eq '^1 +ha/PCT_RD_REQUESTS +0\.2(5|49[0-9]*) +ratio *$'; echo $?)" \
	"socket 1's"
ok "$(printf '%s\n' "$out" | grep -Eq '^0 +memory_bandwidth_total +1\.1[12][0-9]*e\+10 +bytes_per_second *$'; echo $?)" \
	"socket 0's bandwidth"
out=$("$CTL" -s "$S" claim --formula no_such 2>&1); rc=$?
ok "$([ $rc != 0 ]; echo $?)" "uncorectl: an unknown formula fails ($rc)"
like "$out" 'unknown formula "no_such" on hsx' "naming it"

# bad input
is "$(post '{"formulas": ["no_such_formula"]}')" 400 "an unknown name: 400"
like "$(cat "$T/r")" 'formulas[0]: unknown formula \"no_such_formula\" on hsx' \
	"naming it and the platform"
is "$(post '{"formulas": ["PCT_RD_REQUESTS"]}')" 400 "an ambiguous name: 400"
like "$(cat "$T/r")" 'name one of ha/PCT_RD_REQUESTS, imc/PCT_RD_REQUESTS' \
	"naming the choices"
is "$(post '{"formulas": ["imc/PCT_RD_REQUESTS"]}')" 409 \
	"a formula that cannot count here: 409"
like "$(cat "$T/r")" '"code":"formula_unavailable"' "formula_unavailable"
like "$(cat "$T/r")" 'it names WPQ_INSERTS, which the hsx imc event list' \
	"with the catalog's reason"
# the three TOR occupancies each need CBo counter 0: one at a time fits,
# two in one claim never do
is "$(post '{"formulas": ["AVG_TOR_DRD_LATENCY", "AVG_TOR_DRD_MISS_LATENCY"]}')" \
	409 "formulas whose events cannot count together: 409"
like "$(cat "$T/r")" '"code":"cannot_schedule"' "cannot_schedule"
like "$(cat "$T/r")" 'ask for the formulas in claims of their own' "saying what to do"
is "$(post '{"formulas": "memory_bandwidth_total"}')" 400 "formulas not an array: 400"
is "$(post '{"formulas": ["MEM_BW_TOTAL", "MEM_BW_TOTAL"]}')" 400 "a name twice: 400"
like "$(cat "$T/r")" 'MEM_BW_TOTAL is listed twice' "saying so"
is "$(post '{"formulas": []}')" 400 "no formula: 400"
is "$(post '{"formulas": [3]}')" 400 "a name not a string: 400"
stop

# ---- spr (perf): Intel's formulas, one with a first_box event -------------
cp "$top_srcdir/tests/fixtures/workloads/formulas-spr.json" "$T/spr.json"
start spr "$T/spr.json" --backend=perf
st=$(post '{"formulas": ["numa_reads_addressed_to_local_dram",
	"numa_reads_addressed_to_remote_dram"], "ttl_s": 60}')
is "$st" 201 "spr: a claim of two formulas of the same four events: 201"
[ "$st" = 201 ] || sed "s/^/# /" "$T/r"
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$T/r")
# (its lease outlives this wait: with 60 s a clean clone's run beside
# stress-ng read it 404 just after the wait, expired; what took the wait
# so long is printed)
t0=$(date +%s)
wait_for "claim $id to count 1.5 s" 60 ran "$id" 1.5
echo "# claim $id counted 1.5 s after $(( $(date +%s) - t0 )) s of wall time"
is "$(get "/api/v1/claims/$id/now")" 200 "spr: read now"
is "$(check "$T/r" numa_reads_addressed_to_local_dram=0.8/0.3 \
	numa_reads_addressed_to_remote_dram=0.2/0.7)" fine \
	"spr: the evaluator's values and the known answers"
get "/api/v1/claims/$id" DELETE >/dev/null
# a first_box event (the CHA clockticks of the socket's first CHA)
st=$(post '{"formulas": ["Info_System_MEM_Read_Latency"]}')
is "$st" 201 "spr: a formula with a first_box event"
[ "$st" = 201 ] || sed "s/^/# /" "$T/r"
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$T/r")
# (its lease outlives this wait: with 60 s a clean clone's run beside
# stress-ng read it 404 just after the wait, expired; what took the wait
# so long is printed)
t0=$(date +%s)
wait_for "claim $id to count 1.5 s" 60 ran "$id" 1.5
echo "# claim $id counted 1.5 s after $(( $(date +%s) - t0 )) s of wall time"
is "$(get "/api/v1/claims/$id")" 200 "spr: read"
# 80 cycles per read at the first CHA's clock: the workload's 2e9/s are
# the socket's, 5e8/s a CHA's (the sum of the four would give 4e-8 s);
# within 5 %: a clock over T moves with a loaded machine's timing
is "$(check "$T/r" Info_System_MEM_Read_Latency=1.6e-7/1.6e-7~0.05)" fine \
	"spr: the evaluator's value and the known answer (80 cycles at 0.5 GHz)"
get "/api/v1/claims/$id" DELETE >/dev/null
# together they need 7 CHA counters of 4
is "$(post '{"formulas": ["numa_reads_addressed_to_local_dram",
	"Info_System_MEM_Read_Latency"]}')" 409 "spr: 6 CHA events in one claim: 409"
like "$(cat "$T/r")" 'cha has 4 counters' "saying why"
st=$(post '{"formulas": ["memory_bandwidth_read", "memory_bandwidth_write"]}')
is "$st" 201 "spr: memory bandwidth formulas"
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$T/r")
wait_for "claim $id to count 1 s" 60 ran "$id" 1
is "$(get "/api/v1/claims/$id")" 200 "spr: read"
is "$(check "$T/r")" fine "spr: the evaluator's values"
stop
tap_done
