#!/bin/sh
# rules_check.sh - the shipped Prometheus files against promtool:
#   - contrib/prometheus/uncored.rules.yml: `promtool check rules` is clean
#     and every recording rule is named level:metric:operations;
#   - contrib/prometheus/uncored.rules.test.yml: `promtool test rules`
#     passes (exact values for every recording rule, each alert firing and
#     not firing);
#   - contrib/prometheus/prometheus.yml: `promtool check config` is clean;
#   - the dashboard uses only recording rules that exist, its queries and
#     the rules' expressions read only families the daemon serves (name
#     strings of src/; a misspelt one is caught), and doc/monitoring.md
#     explains every rule and alert.
# Each promtool check is paired with a broken input it must reject, so a
# tool that accepts anything cannot pass; the memory latency alert's test
# must fail on the rule with the minimum as the idle level or without its
# 2 GB/s floor (the decoys its runbook names).  The dashboard's queries run
# against a real Prometheus in fleet_e2e.sh.
. "${top_srcdir:-.}/tests/lib.sh"

if ! command -v promtool >/dev/null 2>&1; then
	skip "promtool checks of the shipped rules" "promtool not installed"
	tap_done
	exit
fi
P=$top_srcdir/contrib/prometheus
RULES=$P/uncored.rules.yml

# ---- rules ----------------------------------------------------------------------
out=$(promtool check rules "$RULES" 2>&1); rc=$?
is "$rc" 0 "promtool check rules uncored.rules.yml exits 0"
nrules=$(grep -cE '^ *- (record|alert):' "$RULES")
like "$out" "SUCCESS: $nrules rules found" "promtool finds all $nrules rules, no warnings"
[ "$(printf '%s\n' "$out" | grep -c .)" -eq 2 ]
ok $? "promtool prints nothing but the success line"

bad=$(sed -n 's/^ *- record: *//p' "$RULES" |
	grep -vE '^[a-z][a-z0-9_]*:[a-z][a-z0-9_]*:[a-z][a-z0-9_]*$')
is "$bad" "" "every recording rule is named level:metric:operations"

# negative control: a counter without a range
sed 's/rate(uncore_llc_lookups_total\[1m\])/rate(uncore_llc_lookups_total)/' \
	"$RULES" >"$T/bad.rules.yml"
promtool check rules "$T/bad.rules.yml" >"$T/bad.log" 2>&1
ok $(( $? == 0 )) "promtool check rules rejects rate() of an instant vector"

# ---- unit tests -----------------------------------------------------------------
out=$(promtool test rules "$P/uncored.rules.test.yml" 2>&1); rc=$?
is "$rc" 0 "promtool test rules uncored.rules.test.yml passes"
[ $rc -eq 0 ] || printf '%s\n' "$out" | sed 's/^/#   /' | head -40
like "$out" "SUCCESS" "promtool reports SUCCESS"

# negative controls: a wrong expected hit ratio; an alert rule with a
# longer `for:` than its test expects
cp "$RULES" "$T/uncored.rules.yml"
sed 's/value: 0.925/value: 0.92/' "$P/uncored.rules.test.yml" >"$T/t1.yml"
promtool test rules "$T/t1.yml" >"$T/t1.log" 2>&1
ok $(( $? == 0 )) "promtool test rules fails on a wrong expected value"
sed '/alert: UncoredPMUTakenOver/,/for:/s/for: 1m/for: 5m/' "$RULES" \
	>"$T/uncored.rules.yml"
cp "$P/uncored.rules.test.yml" "$T/t2.yml"
promtool test rules "$T/t2.yml" >"$T/t2.log" 2>&1
ok $(( $? == 0 )) "promtool test rules fails when an alert fires later than tested"

# negative controls of the latency alert's baseline (the runbook says why
# each part is there): the minimum instead of the 5th percentile takes
# one odd minute as the idle level, and without the 2 GB/s floor a socket
# slow while idle fires.
sed 's/quantile_over_time(0.05,/min_over_time(/' "$RULES" >"$T/uncored.rules.yml"
cp "$P/uncored.rules.test.yml" "$T/t3.yml"
promtool test rules "$T/t3.yml" >"$T/t3.log" 2>&1
ok $(( $? == 0 )) "the latency alert's test fails with the minimum as the idle level"
like "$(cat "$T/t3.log")" 'socket="1"' "... on socket 1, at 1.5x its idle latency"
sed 's/ and instance_socket:uncore_dram_bytes:rate1m > 2e9//' "$RULES" >"$T/uncored.rules.yml"
grep -q '2e9' "$T/uncored.rules.yml"
ok $(( $? == 0 )) "(the floor is out of the broken copy)"
promtool test rules "$T/t3.yml" >"$T/t4.log" 2>&1
ok $(( $? == 0 )) "the latency alert's test fails without the 2 GB/s floor"
like "$(cat "$T/t4.log")" 'socket="2"' "... on socket 2, slow at 1 GB/s"

# ---- example configuration ---------------------------------------------------------
out=$(promtool check config "$P/prometheus.yml" 2>&1); rc=$?
is "$rc" 0 "promtool check config prometheus.yml exits 0"
like "$out" "SUCCESS: $nrules rules found" "prometheus.yml loads uncored.rules.yml"
sed 's/scrape_interval: 15s/scrape_interval: 15 seconds/' "$P/prometheus.yml" \
	>"$T/prometheus.yml"
cp "$RULES" "$T/uncored.rules.yml"
promtool check config "$T/prometheus.yml" >"$T/cfg.log" 2>&1
ok $(( $? == 0 )) "promtool check config rejects a malformed duration"

# ---- dashboard and documentation agree with the rules ---------------------------------
if command -v jq >/dev/null 2>&1; then
	jq -r '.. | .expr? // empty' "$top_srcdir/contrib/grafana/uncored.json" |
		grep -oE '[a-z_]+:[a-z_]+:[a-z0-9_]+' | sort -u >"$T/used"
	missing=
	while read -r r; do
		grep -qE "^ *- record: $r\$" "$RULES" || missing="$missing $r"
	done <"$T/used"
	is "$missing" "" "the dashboard uses $(wc -l <"$T/used") recording rules, all defined"
else
	skip "the dashboard uses only defined recording rules" "jq not installed"
fi
# Every panel query parses: each, with its variables as Grafana fills
# them, is a recording rule of a file promtool checks (this promtool has
# no PromQL parser of its own); the new rows of a change are covered as
# the old ones.  A query broken on purpose must be rejected.
# dash_rules SED: the dashboard's queries as recording rules, SED
# applied to each first
dash_rules() {
	printf 'groups:\n  - name: dashboard\n    rules:\n'
	jq -r '[.panels[] | ., (.panels // [])[]] | .[] | select(.targets != null) |
		.id as $i | .targets[] | "\($i)\t\(.refId)\t\(.expr)"' \
		"$top_srcdir/contrib/grafana/uncored.json" |
	while IFS='	' read -r id ref expr; do
		e=$(printf '%s\n' "$expr" | sed -e 's/\$__rate_interval/1m/g' \
			-e 's/\$__interval/15s/g; s/\$__range/1h/g' \
			-e 's/\${\{0,1\}\(job\|instance\|socket\)}\{0,1\}/.*/g' -e "$1")
		printf '      - record: dashboard:panel_%s:%s\n        expr: %s\n' \
			"$id" "$ref" "$(printf '%s' "$e" | jq -Rs .)"
	done
}
if command -v jq >/dev/null 2>&1; then
	dash_rules '' >"$T/dash.rules.yml"
	n=$(grep -c 'record:' "$T/dash.rules.yml")
	out=$(promtool check rules "$T/dash.rules.yml" 2>&1)
	like "$out" "SUCCESS: $n rules found" "every one of the dashboard's $n panel queries parses"
	[ $? -eq 0 ] || printf '%s\n' "$out" | sed 's/^/#   /' | head -20
	dash_rules 's/rate(uncore_frequency_limited_seconds_total\(.*\)\[1m\])/rate(uncore_frequency_limited_seconds_total\1)/' \
		>"$T/dash-bad.rules.yml"
	promtool check rules "$T/dash-bad.rules.yml" >"$T/dash-bad.log" 2>&1
	ok $(( $? == 0 )) "... and a panel query with rate() of an instant vector does not"
else
	skip "the dashboard's panel queries parse" "jq not installed"
fi
# Every metric name the dashboard's queries and the rules' expressions
# read (recording rules aside) is a family the daemon serves: a name
# string of src/ (the families' tables and writers), _sum, _count and
# _bucket being a summary's or histogram's series.
# unserved FILE...: the names the files read that src/ does not serve
unserved() {
	sed -e 's/#.*//' -e 's/[a-z_]*:[a-z0-9_]*:[a-z0-9_]*//g' "$@" |
		grep -vE '^ *(summary|description|runbook_url): ' |
		grep -oE '\b(uncore|uncored|process)_[a-z0-9_]+' | sort -u |
		while read -r f; do
			b=$(echo "$f" | sed -E 's/_(sum|count|bucket)$//')
			grep -rqF -- "\"$b\"" "$top_srcdir/src" || printf ' %s' "$f"
		done
}
if command -v jq >/dev/null 2>&1; then
	jq -r '.. | .expr? // empty' "$top_srcdir/contrib/grafana/uncored.json" >"$T/exprs"
	n=$(sed 's/[a-z_]*:[a-z0-9_]*:[a-z0-9_]*//g' "$T/exprs" |
		grep -oE '\b(uncore|uncored|process)_[a-z0-9_]+' | sort -u | wc -l)
	all=$(unserved "$T/exprs")
	is "$all" "" \
		"the dashboard reads $n metric names, every one a served family"
	# decoy: a name one letter off is caught
	sed 's/uncore_qpi_data_bytes_total/uncore_qpi_data_byte_total/' \
		"$T/exprs" >"$T/exprs2"
	is "$(unserved "$T/exprs2")" " uncore_qpi_data_byte_total" \
		"... and a misspelt one is not"
else
	skip "the dashboard reads only served families" "jq not installed"
fi
is "$(unserved "$RULES")" "" "the rules read only served families"

undoc=
for r in $(sed -n 's/^ *- \(record\|alert\): *//p' "$RULES"); do
	grep -qF -- "$r" "$top_srcdir/doc/monitoring.md" || undoc="$undoc $r"
done
is "$undoc" "" "doc/monitoring.md explains every rule and alert"

# Every alert links its runbook: an anchor of doc/monitoring.md.
nalerts=$(grep -cE '^ *- alert:' "$RULES")
nurls=$(grep -cE '^ *runbook_url: "file:///usr/share/doc/uncored/monitoring.md#[a-z]+"$' "$RULES")
is "$nurls" "$nalerts" "each of the $nalerts alerts has a runbook_url"
noanchor=
for a in $(sed -n 's/^ *- alert: *//p' "$RULES"); do
	lc=$(echo "$a" | tr 'A-Z' 'a-z')
	grep -q "runbook_url: \".*#$lc\"" "$RULES" || noanchor="$noanchor $a(url)"
	grep -q "<a id=\"$lc\"></a>" "$top_srcdir/doc/monitoring.md" ||
		noanchor="$noanchor $a(anchor)"
done
is "$noanchor" "" "each runbook_url names the alert's anchor, and doc/monitoring.md has it"

tap_done
