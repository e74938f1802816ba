#!/bin/sh
# promtool_check.sh - the exposition writer's output against Prometheus' own
# parsers.  The unit tests render a representative exposition (counters,
# gauges, histograms, info, untyped, escaping, NaN/Inf, uint64 max) and the
# process_* metrics in both formats (PROM_DUMP_DIR); then:
#   - text 0.0.4: `promtool check metrics` must print nothing and exit 0;
#   - OpenMetrics: promtool check metrics only parses 0.0.4 (in 2.42 it
#     rejects the OpenMetrics-only \" escape in HELP), so the files go
#     through Prometheus' OpenMetrics parser via `promtool tsdb
#     create-blocks-from openmetrics` (backfill needs a timestamp on every
#     sample, which is added), and the stored series are read back.
# Each check is paired with a broken input the same tool must reject, so a
# tool that accepts anything cannot pass the test.
. "${top_srcdir:-.}/tests/lib.sh"

if ! command -v promtool >/dev/null 2>&1; then
	skip "promtool checks" "promtool not installed"
	tap_done
	exit
fi

"$top_builddir/tests/unit/test_prom" >"$T/test_prom.log" 2>&1
ok $? "test_prom renders the sample exposition"
"$top_builddir/tests/unit/test_procstat" >"$T/test_procstat.log" 2>&1
ok $? "test_procstat renders the process metrics"
PROM_DUMP_DIR=$T "$top_builddir/tests/unit/test_prom" >/dev/null 2>&1
PROM_DUMP_DIR=$T "$top_builddir/tests/unit/test_procstat" >/dev/null 2>&1

# ---- text format 0.0.4 --------------------------------------------------------
for f in exposition process; do
	out=$(promtool check metrics <"$T/$f-0.0.4.txt" 2>&1); rc=$?
	is "$rc" 0 "0.0.4 $f: promtool check metrics exits 0"
	is "$out" "" "0.0.4 $f: and reports nothing"
done

# negative control: a second HELP line for a family
{ cat "$T/process-0.0.4.txt"; echo "# HELP process_threads again"; } \
	>"$T/bad.txt"
promtool check metrics <"$T/bad.txt" >/dev/null 2>&1
ok $(( $? == 0 )) "0.0.4: promtool rejects a duplicated HELP line"

# ---- OpenMetrics 1.0.0 -----------------------------------------------------------
# backfill FILE DIR: parse FILE as OpenMetrics into a TSDB in DIR, then dump
# its series to DIR.dump.  Exit status of the parse.
backfill() {
	awk '/^#/ { print; next } { print $0 " 1700000000" }' "$1" >"$1.ts"
	promtool tsdb create-blocks-from openmetrics "$1.ts" "$2" \
		>"$2.log" 2>&1 || return 1
	mkdir -p "$2/wal"	# `tsdb dump` opens the directory as a database
	promtool tsdb dump "$2" >"$2.dump" 2>&1
}

for f in exposition process; do
	backfill "$T/$f-om.txt" "$T/db-$f"; rc=$?
	ok $rc "OpenMetrics $f: Prometheus' OpenMetrics parser accepts it"
	[ $rc -eq 0 ] || sed 's/^/#   /' "$T/db-$f.log"
	nsamples=$(grep -vc '^#' "$T/$f-om.txt")
	nseries=$(grep -c '^{' "$T/db-$f.dump")
	is "$nseries" "$nsamples" "OpenMetrics $f: every sample stored"
done

# Values and labels as Prometheus decoded them.
dump=$(cat "$T/db-exposition.dump")
ts=1700000000000
like "$dump" '{__name__="uncore_test_labels", nl="a\nb", path="C:\\dir\\", quote="say \"hi\"", utf8="µs"} 1 '$ts \
	"OpenMetrics: escaped label values decode to the originals"
like "$dump" '{__name__="uncored_tick_duration_seconds_bucket", le="1.0"} 100 '$ts \
	"OpenMetrics: histogram bucket with a canonical le"
like "$dump" '{__name__="uncored_tick_duration_seconds_bucket", le="+Inf", socket="0"} 2 '$ts \
	"OpenMetrics: +Inf bucket"
like "$dump" '{__name__="uncore_llc_lookups_total", socket="1"} 1.8446744073709552e+19 '$ts \
	"OpenMetrics: uint64 max counter"
like "$dump" '{__name__="uncore_llc_hit_ratio", socket="1"} NaN '$ts \
	"OpenMetrics: NaN gauge"
like "$dump" '{__name__="uncore_test_values", case="ninf"} -Inf '$ts \
	"OpenMetrics: -Inf gauge"
like "$dump" '{__name__="uncored_build_info", version="0.1.0"} 1 '$ts \
	"OpenMetrics: info metric"
like "$(cat "$T/db-process.dump")" '{__name__="process_cpu_seconds_total"}' \
	"OpenMetrics: process_cpu_seconds_total stored under its sample name"

# negative controls: no # EOF; a UNIT that is not the name's suffix
grep -v '^# EOF$' "$T/process-om.txt" >"$T/noeof.txt"
backfill "$T/noeof.txt" "$T/db-noeof"
ok $(( $? == 0 )) "OpenMetrics: the parser rejects a missing # EOF"
sed 's/^# UNIT process_cpu_seconds seconds$/# UNIT process_cpu_seconds bytes/' \
	"$T/process-om.txt" >"$T/badunit.txt"
backfill "$T/badunit.txt" "$T/db-badunit"
ok $(( $? == 0 )) "OpenMetrics: the parser rejects a UNIT not in the name"

tap_done
