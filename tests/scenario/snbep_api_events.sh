#!/bin/sh
# snbep_api_events.sh - /api/v1/events on `uncored --simulate=snbep` lists
# every event of Intel's Jaketown uncore data that applies to the part
# (the IRP's do not, doc/hardware-notes.md "IRP"), each with the data's
# event code, unit mask, valid counters and extra-select bit, after the
# generator's documented corrections (contrib/snbep/extract_events.py:
# TO_FIXED, EXTSEL_FIXES), and nothing the data does not have but the six
# PCU C-state counters (core C3/C6, package C2/C3/C6/C7).  The data is carried in tests/data/: without it
# the test fails.  Skipped without python3.
. "${top_srcdir:-.}/tests/lib.sh"

DATA="${UNCORED_SNBEP_DATA:-$top_srcdir/tests/data/intel-perfmon-jaketown-uncore.json}"
need_python3 "/api/v1/events matches the Jaketown data"
need_data "/api/v1/events matches the Jaketown data" "$DATA"

PORT=$(pick_port)
start_uncored "$T/log" -c /dev/null --simulate=snbep -l "127.0.0.1:$PORT" -s ""
ok $? "daemon up on the simulated snbep"
curl -s "http://127.0.0.1:$PORT/api/v1/events" >"$T/events.json"
like "$(head -c 40 "$T/events.json")" '"platform":"snbep"' "the catalog of snbep"
out=$(python3 - "$DATA" "$T/events.json" "$top_srcdir/contrib/snbep/extract_events.py" <<'PY' 2>&1
import importlib.util, json, sys
data, api, gen = sys.argv[1:]
spec = importlib.util.spec_from_file_location("gen", gen)
g = importlib.util.module_from_spec(spec)
spec.loader.exec_module(g)
events = {e["name"]: e for e in json.load(open(api))["events"]}
seen, bad = set(), []
for d in json.load(open(data))["Events"]:
    name = d["EventName"]
    if d["Unit"] in g.NOT_APPLICABLE_UNITS:
        if name in events:
            bad.append("%s: listed, but its unit does not apply" % name)
        continue
    seen.add(name)
    e = events.get(name)
    if e is None:
        bad.append("%s: missing" % name)
        continue
    if name in g.TO_FIXED:
        if e["counters"] != []:
            bad.append("%s: a fixed counter lists counters" % name)
        continue
    want_ctrs = sorted(int(c) for c in d["Counter"].split(","))
    ext = g.EXTSEL_FIXES[name][0] if name in g.EXTSEL_FIXES else int(d["ExtSel"] or 0)
    got = (e["code"], e["umask"], e["counters"], bool(e.get("ev_sel_ext")))
    want = (int(d["EventCode"], 16), int(d["UMask"], 16), want_ctrs, bool(ext))
    if got != want:
        bad.append("%s: got code/umask/counters/ext %s, data %s" % (name, got, want))
extra = sorted(set(events) - seen - {x[0] for x in g.EXTRA_COUNTERS})
if extra:
    bad.append("not in the data: %s" % ", ".join(extra))
print("%d checked" % len(seen))
for b in bad[:20]:
    print(b)
sys.exit(1 if bad else 0)
PY
); rc=$?
ok $rc "every applicable Jaketown event listed with its code, umask, counters and ExtSel ($(echo "$out" | head -1))"
[ $rc -eq 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
n=$(grep -o '"name":' "$T/events.json" | wc -l)
is "$n" 509 "509 entries: 540 data events - 37 IRP + 6 PCU C-state counters (2 core, 4 package)"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
tap_done
