#!/bin/sh
# formulas_catalog_check.sh - the committed formula catalog
# (src/plat/formulas_*.c) is exactly what contrib/formulas/gen_formulas.py
# makes of tests/data (the manual's tables in hsx-manual-metrics.tsv,
# Intel's metric files, AMD's recommended metrics) and the event catalogs;
# its counts per source and platform are the ones doc/formulas.md states;
# bad input is refused naming the file and the place.  Where the hsx manual
# is beside the clone, the TSV is also what extract_manual_metrics.py
# makes of it.  Skipped without python3.
. "${top_srcdir:-.}/tests/lib.sh"

GEN="$top_srcdir/contrib/formulas/gen_formulas.py"
EXT="$top_srcdir/contrib/formulas/extract_manual_metrics.py"
MANUAL="${UNCORED_HSX_MANUAL:-$top_srcdir/../shared/manuals/004_e75f66526956f957.txt}"

need_python3 "formula catalog matches its sources"

out=$(python3 "$GEN" --check 2>&1); rc=$?
ok $rc "formulas_*.c match what gen_formulas.py generates (--check)"
[ $rc -eq 0 ] || printf '%s\n' "$out" | head -20 | sed 's/^/#   /'

# The counts doc/formulas.md gives, per source and platform.
rep=$(python3 "$GEN" --report 2>&1)
for line in \
	"hsx   331051-002                                        90 served  17 refused" \
	"hsx   Intel HSX/metrics/haswellx_metrics.json           17 served   0 refused" \
	"skx   Intel SKX/metrics/skylakex_metrics.json           25 served   0 refused" \
	"icx   Intel ICX/metrics/icelakex_metrics.json           39 served   0 refused" \
	"spr   Intel SPR/metrics/sapphirerapids_metrics.json     44 served   0 refused" \
	"gnr   Intel GNR/metrics/graniterapids_metrics.json      40 served   0 refused" \
	"gnr   Intel SRF/metrics/sierraforest_metrics.json        0 served  28 refused" \
	"zen3  AMD amdzen3/recommended.json                       3 served   0 refused" \
	"zen4  AMD amdzen4/recommended.json                      12 served   0 refused" \
	"zen5  AMD amdzen5/recommended.json                      14 served   0 refused"; do
	like "$rep" "$line" "report: $(echo "$line" | tr -s ' ')"
done
like "$rep" "refused hsx PCT_CYC_FREQ_CURRENT_LTD: it names FREQ_MAX_CURRENT_CYCLES" \
	"the current-limit row is refused, naming the missing event"

# A stale table is noticed.
mkdir -p "$T/top/src/plat" "$T/top/contrib/formulas"
mkdir -p "$T/top/tests" && cp -r "$top_srcdir/tests/data" "$T/top/tests/data"
cp "$top_srcdir"/src/plat/events_*.c "$top_srcdir"/src/plat/formulas_*.c \
	"$T/top/src/plat/"
cp "$GEN" "$T/top/contrib/formulas/"
sed -i 's/"PCT_REQUESTS_PAGE_HIT"/"PCT_REQUESTS_PAGE_HlT"/' \
	"$T/top/src/plat/formulas_hsx.c"
out=$(python3 "$T/top/contrib/formulas/gen_formulas.py" --check 2>&1); rc=$?
is "$rc" 1 "--check fails on an edited table"
like "$out" "PCT_REQUESTS_PAGE_HlT" "and the diff shows the entry"

# Bad input: a malformed metric file, named with line and column.
f="$T/top/tests/data/intel-perfmon/SKX/metrics/skylakex_metrics.json"
printf '{\n  "Header": {},\n  "Metrics": [ {"MetricName": "x",, } ]\n}\n' >"$f"
out=$(python3 "$T/top/contrib/formulas/gen_formulas.py" --check 2>&1); rc=$?
is "$rc" 1 "a malformed metric file is refused"
like "$out" "skylakex_metrics.json:3:" "naming the file, line and column"
cp "$top_srcdir/tests/data/intel-perfmon/SKX/metrics/skylakex_metrics.json" "$f"

# ... a formula that does not parse, naming it and the offset
f="$T/top/tests/data/intel-perfmon/ICX/metrics/icelakex_metrics.json"
python3 - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["Metrics"]:
    if m["MetricName"] == "memory_bandwidth_read":
        m["Formula"] = "(a * 64 / ) / DURATIONTIMEINSECONDS"
json.dump(d, open(sys.argv[1], "w"))
PY
out=$(python3 "$T/top/contrib/formulas/gen_formulas.py" --check 2>&1); rc=$?
is "$rc" 1 "a formula that does not parse is refused"
like "$out" "memory_bandwidth_read: expected a number, a name or \"(\" at offset" \
	"naming the metric and the offset"
cp "$top_srcdir/tests/data/intel-perfmon/ICX/metrics/icelakex_metrics.json" "$f"

# ... a TSV row without its fields, naming the line
printf 'section\tbox\tname\tdefinition\tequation\n2.3.5\tcbo\tX\n' >"$T/bad.tsv"
out=$(python3 "$T/top/contrib/formulas/gen_formulas.py" --check \
	--manual-tsv "$T/bad.tsv" 2>&1); rc=$?
is "$rc" 1 "a TSV row without its five fields is refused"
like "$out" "bad.tsv:2: expected section, box, name" "naming the file and line"

if [ -r "$MANUAL" ]; then
	out=$(python3 "$EXT" --manual "$MANUAL" --check 2>&1); rc=$?
	ok $rc "hsx-manual-metrics.tsv is what the manual's tables hold"
	[ $rc -eq 0 ] || printf '%s\n' "$out" | head -20 | sed 's/^/#   /'
else
	skip "hsx-manual-metrics.tsv is what the manual's tables hold" \
		"manual not found at $MANUAL (not redistributable)"
fi

tap_done
