#!/bin/sh
# intel_catalog_check.sh - the perf platforms' generated event catalogs
# (src/plat/events_skx.c, events_icx.c, events_spr.c, events_gnr.c from Intel's perfmon
# data; events_zen3.c, events_zen4.c, events_zen5.c from the kernel's AMD
# tables) are exactly what
# contrib/intel-perfmon/extract_events.py and contrib/amd-perf/
# extract_events.py generate, twice alike, and each Intel catalog covers
# at least 95 % of Intel's events for the units it programs.
#
# The data: $UNCORED_DATA_DIR, else tests/data (the repository's copy),
# else ../shared/data beside the clone.  Without any of them this FAILS:
# the coverage of the catalogs is a requirement, not an optional check.
. "${top_srcdir:-.}/tests/lib.sh"

DATA=
for d in "${UNCORED_DATA_DIR:-}" "$top_srcdir/tests/data" \
	 "$top_srcdir/../shared/data"; do
	if [ -n "$d" ] && [ -d "$d/intel-perfmon" ] && [ -d "$d/amd-perf" ]; then
		DATA=$d
		break
	fi
done
INTEL="$top_srcdir/contrib/intel-perfmon/extract_events.py"
AMD="$top_srcdir/contrib/amd-perf/extract_events.py"

if [ -z "$DATA" ]; then
	ok 1 "reference data found (UNCORED_DATA_DIR, tests/data or" \
		"../shared/data with intel-perfmon/ and amd-perf/)"
	tap_done
	exit $?
fi
if ! command -v python3 >/dev/null 2>&1; then
	ok 1 "python3 installed (the generators need it)"
	tap_done
	exit $?
fi

for p in skx icx spr adl mtl gnr; do
	out=$(python3 "$INTEL" "$p" --data "$DATA" --check 2>&1); rc=$?
	ok $rc "events_$p.c and .h match Intel's data (--check)"
	[ $rc -eq 0 ] || printf '%s\n' "$out" | head -20 | sed 's/^/#   /'
	out=$(python3 "$INTEL" "$p" --data "$DATA" --coverage 2>&1); rc=$?
	ok $rc "$p covers at least 95 % of Intel's events of its units"
	printf '%s\n' "$out" | grep -v '^  left out' | sed 's/^/#   /'
done
for p in zen3 zen4 zen5; do
	out=$(python3 "$AMD" "$p" --data "$DATA" --check 2>&1); rc=$?
	ok $rc "events_$p.c and .h match the kernel's amd$p tables (--check)"
	[ $rc -eq 0 ] || printf '%s\n' "$out" | head -20 | sed 's/^/#   /'
	out=$(python3 "$AMD" "$p" --data "$DATA" --coverage 2>&1); rc=$?
	ok $rc "$p covers at least 95 % of the kernel's uncore events of its units"
	printf '%s\n' "$out" | sed 's/^/#   /'
done

# The coverage check can fail: drop CHA from a copy of the ICX data's
# mapping by renaming every CHA event's unit to one icx does not program.
mkdir -p "$T/data/intel-perfmon/ICX/events"
python3 - "$DATA/intel-perfmon/ICX/events/icelakex_uncore.json" \
	>"$T/data/intel-perfmon/ICX/events/icelakex_uncore.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["Events"] = [e for e in doc["Events"] if e["Unit"] != "CHA" or
                 e["EventName"] == "UNC_CHA_CLOCKTICKS"] + \
    [dict(e, UMaskExt="0xffffffffff") for e in doc["Events"]
     if e["Unit"] == "CHA" and e["EventName"] != "UNC_CHA_CLOCKTICKS"]
json.dump(doc, sys.stdout)
PY
out=$(python3 "$INTEL" icx --data "$T/data" --coverage 2>&1); rc=$?
is "$rc" 1 "--coverage fails when CHA umasks no longer fit the kernel's field"
like "$out" "coverage below 95" "and says so"

# gnr's encodings uncored relies on, as Intel's GNR V1.20 data has them
# (NEXT-PLATFORMS.md 1.4): both command schedulers' CAS counts, the CHA
# TOR inserts (all from the experimental file, misses) and the clocks.
# "code umask" of one catalog entry of events_gnr.c.
gnr_enc() {
	grep -F -A1 ".name = \"$1\"," "$top_srcdir/src/plat/events_gnr.c" |
		sed -n 's/.*\.code = \(0x[0-9a-f]*\), \.umask = \(0x[0-9a-f]*\),.*/\1 \2/p'
}
is "$(gnr_enc UNC_M_CAS_COUNT_SCH0.RD)" "0x05 0xcf" "gnr SCH0.RD 0x05/0xcf"
is "$(gnr_enc UNC_M_CAS_COUNT_SCH1.RD)" "0x06 0xcf" "gnr SCH1.RD 0x06/0xcf"
is "$(gnr_enc UNC_M_CAS_COUNT_SCH0.WR)" "0x05 0xf0" "gnr SCH0.WR 0x05/0xf0"
is "$(gnr_enc UNC_M_CAS_COUNT_SCH1.WR)" "0x06 0xf0" "gnr SCH1.WR 0x06/0xf0"
is "$(gnr_enc UNC_CHA_TOR_INSERTS.IA)" "0x35 0xc001ff01" \
	"gnr TOR_INSERTS.IA 0x35, UMaskExt 0xC001FF over umask 0x01"
is "$(gnr_enc UNC_CHA_TOR_INSERTS.IA_MISS)" "0x35 0xc001fe01" \
	"gnr TOR_INSERTS.IA_MISS 0x35, UMaskExt 0xC001FE over umask 0x01"
is "$(gnr_enc UNC_CHA_CLOCKTICKS)" "0x01 0x00" "gnr CHA clock 0x01/0x00"
is "$(gnr_enc UNC_UPI_TxL_FLITS.ALL_DATA)" "0x02 0x0f" \
	"gnr UPI data flits 0x02/0x0f"

# Twice alike: writing into a scratch copy of the tree gives the same bytes.
mkdir -p "$T/tree/contrib" "$T/tree/src/plat"
cp -r "$top_srcdir/contrib/hsx" "$top_srcdir/contrib/intel-perfmon" \
	"$top_srcdir/contrib/amd-perf" "$T/tree/contrib/"
for n in 1 2; do
	python3 "$T/tree/contrib/intel-perfmon/extract_events.py" all \
		--data "$DATA" --write >/dev/null 2>&1
	python3 "$T/tree/contrib/amd-perf/extract_events.py" \
		--data "$DATA" --write >/dev/null 2>&1
	cat "$T"/tree/src/plat/events_*.c "$T"/tree/src/plat/events_*.h \
		>"$T/run$n"
done
cmp -s "$T/run1" "$T/run2"
ok $? "two runs write the same bytes"

tap_done
