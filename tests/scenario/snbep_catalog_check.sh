#!/bin/sh
# snbep_catalog_check.sh - the committed snbep event catalog
# (src/plat/events_snbep.c, .h) is exactly what
# contrib/snbep/extract_events.py generates from Intel's Jaketown uncore
# event data, the generator gives the same bytes twice, and it refuses data
# that no longer fits its correction tables.  The data is carried in
# tests/data/ ($UNCORED_SNBEP_DATA names another copy): without it the
# test fails.  Skipped without python3.
. "${top_srcdir:-.}/tests/lib.sh"

DATA="${UNCORED_SNBEP_DATA:-$top_srcdir/tests/data/intel-perfmon-jaketown-uncore.json}"
GEN="$top_srcdir/contrib/snbep/extract_events.py"

need_python3 "snbep catalog matches the data"
need_data "snbep catalog matches the data" "$DATA"

out=$(python3 "$GEN" --data "$DATA" --check 2>&1); rc=$?
ok $rc "events_snbep.c and events_snbep.h match the data (--check)"
[ $rc -eq 0 ] || printf '%s\n' "$out" | head -40 | sed 's/^/#   /'

# Reproducible: two runs into scratch files give the same bytes, and the
# committed ones.
for n in 1 2; do
	python3 "$GEN" --data "$DATA" --write --out-c "$T/run$n.c" \
		--out-h "$T/run$n.h" >/dev/null 2>&1
done
cmp -s "$T/run1.c" "$T/run2.c" && cmp -s "$T/run1.h" "$T/run2.h"
ok $? "two runs write the same bytes"
cmp -s "$T/run1.c" "$top_srcdir/src/plat/events_snbep.c" &&
	cmp -s "$T/run1.h" "$top_srcdir/src/plat/events_snbep.h"
ok $? "and the committed files"

# --check must notice a stale file.
sed 's/\(UNC_M_CAS_COUNT.RD", .unit = "imc",\)/\1 \/* x *\//' \
	"$T/run1.c" >"$T/stale.c"
out=$(python3 "$GEN" --data "$DATA" --check --out-c "$T/stale.c" \
	--out-h "$T/run1.h" 2>&1); rc=$?
is "$rc" 1 "--check fails on a file that differs from the data"
like "$out" "UNC_M_CAS_COUNT.RD" "and the diff shows the entry"

# Data that no longer fits a correction, or breaks a rule, is refused
# with the event and the reason named.  Each case edits one field of one
# event of a copy of the data.
edit() { # edit EVENT KEY VALUE -> $T/data.json
	python3 - "$DATA" "$1" "$2" "$3" >"$T/data.json" <<'EOF'
import json, sys
path, name, key, value = sys.argv[1:]
doc = json.load(open(path))
hits = [e for e in doc["Events"] if e["EventName"] == name]
assert len(hits) == 1, name
hits[0][key] = value
json.dump(doc, sys.stdout, indent=1)
EOF
}
refused() { # refused LIKE DESCRIPTION
	out=$(python3 "$GEN" --data "$T/data.json" --check --out-c "$T/run1.c" \
		--out-h "$T/run1.h" 2>&1); rc=$?
	is "$rc" 1 "$2: refused"
	like "$out" "$1" "$2: the message names it"
}

edit UNC_P_DEMOTIONS_CORE2 Filter "PCUFilter[7:0]"
refused "UNC_P_DEMOTIONS_CORE2: FILTER_FIXES no longer needed" \
	"data that fixed DEMOTIONS_CORE2's filter"
edit UNC_C_TOR_OCCUPANCY.ALL Counter "0,1"
refused "UNC_C_TOR_OCCUPANCY.ALL: counters 0x3 outside the kernel's 0x1" \
	"a counter list beyond the kernel's constraint"
edit UNC_R3_CLOCKTICKS Counter "0,1,3"
refused "counter 3 does not exist" "a counter the R3QPI does not have"
edit UNC_H_REQUESTS.READS EventName UNC_H_REQUESTS.WRITES
refused "UNC_H_REQUESTS.WRITES: listed twice" "a duplicate name"
edit UNC_M_ACT_COUNT Unit "iMC2"
refused "UNC_M_ACT_COUNT: unknown unit 'iMC2'" "an unknown unit"
edit UNC_C_LLC_VICTIMS.NID Filter "CBoFilter[17:10], Foo[3:0]"
refused "unknown filter item 'Foo[3:0]'" "an unknown filter register"
edit UNC_R2_RxR_AK_BOUNCES ExtSel 1
refused "ExtSel 1 on a r2pcie event" "an extension bit the box lacks"

# Another version of the data is refused until the tables are reviewed.
python3 - "$DATA" >"$T/data.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["Header"]["Version"] = "25"
json.dump(doc, sys.stdout, indent=1)
EOF
refused "version '25'" "a new version of the data"

out=$(python3 "$GEN" --data "$DATA" --report 2>&1); rc=$?
is "$rc" 0 "--report runs"
like "$out" "total 509 (of 540 data events)" "--report counts 509 entries"
like "$out" "37 IRP events left out" "and names the left-out IRP events"

tap_done
