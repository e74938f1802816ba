#!/bin/sh
# hsx_catalog_check.sh - the committed hsx event catalog
# (src/plat/events_hsx.c, .h) is exactly what contrib/hsx/extract_events.py
# generates from the Xeon E5/E7 v3 uncore manual text, and the generator
# still accepts the manual with every one of its corrections applying.
# Skipped when the manual (shared/ beside the repository clone) or python3
# is missing.
. "${top_srcdir:-.}/tests/lib.sh"

MANUAL="$top_srcdir/../shared/manuals/004_e75f66526956f957.txt"
GEN="$top_srcdir/contrib/hsx/extract_events.py"

if ! command -v python3 >/dev/null 2>&1; then
	skip "hsx catalog matches the manual" "python3 not installed"
	tap_done
	exit $?
fi
if [ ! -r "$MANUAL" ]; then
	skip "hsx catalog matches the manual" "manual not found at $MANUAL"
	tap_done
	exit $?
fi

out=$(python3 "$GEN" --manual "$MANUAL" --check 2>&1); rc=$?
ok $rc "events_hsx.c and events_hsx.h match the manual (--check)"
[ $rc -eq 0 ] || printf '%s\n' "$out" | head -40 | sed 's/^/#   /'

# --check must notice a stale file: regenerate into scratch copies, change
# one umask, and expect a diff naming the entry.
cp "$top_srcdir/src/plat/events_hsx.c" "$T/events_hsx.c"
cp "$top_srcdir/src/plat/events_hsx.h" "$T/events_hsx.h"
sed 's/\(UNC_C_LLC_LOOKUP.ANY", .unit = "cbo",\)/\1 \/* x *\//' \
	"$T/events_hsx.c" >"$T/stale.c"
out=$(python3 "$GEN" --manual "$MANUAL" --check --out-c "$T/stale.c" \
	--out-h "$T/events_hsx.h" 2>&1); rc=$?
is "$rc" 1 "--check fails on a file that differs from the manual"
like "$out" "UNC_C_LLC_LOOKUP.ANY" "and the diff shows the entry"

# A manual whose text no longer fits a correction is refused, not
# silently catalogued: change one bit in the scrambled TOR_OCCUPANCY
# sheet (Table 2-41 sheet 2, manual lines 2230-2247) that the script
# replaces with a hand transcription tied to the sheet's digest.
sed '2230,2247s/b10000011/b10000111/' "$MANUAL" >"$T/manual.txt"
out=$(python3 "$GEN" --manual "$T/manual.txt" --check 2>&1); rc=$?
is "$rc" 1 "a changed manual is refused"
like "$out" "TOR_OCCUPANCY" "naming the correction that no longer applies"

out=$(python3 "$GEN" --manual "$MANUAL" --report 2>&1); rc=$?
is "$rc" 0 "--report runs"
like "$out" "total 1146" "--report counts 1146 entries (1145 + package C6)"

tap_done
