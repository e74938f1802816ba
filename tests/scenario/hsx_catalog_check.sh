#!/bin/sh
# hsx_catalog_check.sh - the committed hsx event catalog
# (src/plat/events_hsx.c, .h) and its facts file
# (tests/data/hsx-manual-facts.tsv) are exactly what
# contrib/hsx/extract_events.py generates from the Xeon E5/E7 v3 uncore
# manual text, and the generator still accepts the manual with every one
# of its corrections applying.  The manual's text is not the project's to
# carry (tests/data/README): where it is not beside the clone
# (../shared/manuals, or $UNCORED_HSX_MANUAL) this test skips, saying
# so, and test_events_hsx still checks the catalog against the facts
# file, which the repository carries.  Skipped without python3.
. "${top_srcdir:-.}/tests/lib.sh"

MANUAL="${UNCORED_HSX_MANUAL:-$top_srcdir/../shared/manuals/004_e75f66526956f957.txt}"
GEN="$top_srcdir/contrib/hsx/extract_events.py"

need_python3 "hsx catalog matches the manual"
if [ ! -r "$MANUAL" ]; then
	skip "hsx catalog matches the manual" "manual not found at $MANUAL (not redistributable; the catalog is checked against tests/data/hsx-manual-facts.tsv by test_events_hsx)"
	tap_end
fi

out=$(python3 "$GEN" --manual "$MANUAL" --check 2>&1); rc=$?
ok $rc "events_hsx.c, events_hsx.h and hsx-manual-facts.tsv match the manual (--check)"
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
# ... and on a facts file that does
sed 's/^\(UNC_C_LLC_LOOKUP.ANY\tcbo\t0x34\t\)0x11/\10x12/' \
	"$top_srcdir/tests/data/hsx-manual-facts.tsv" >"$T/facts.tsv"
out=$(python3 "$GEN" --manual "$MANUAL" --check --out-facts "$T/facts.tsv" 2>&1); rc=$?
is "$rc" 1 "--check fails on a facts file that differs from the manual"
like "$out" "UNC_C_LLC_LOOKUP.ANY	cbo	0x34	0x12" "and the diff shows the entry"

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
