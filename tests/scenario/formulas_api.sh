#!/bin/sh
# formulas_api.sh - GET /api/v1/formulas and `uncorectl formulas` on the
# simulated hsx (direct, or perf with UNCORED_TEST_BACKEND=perf) and gnr
# (perf): the catalog of the running platform with each entry's
# availability and the reason where it cannot count, the counts
# doc/formulas.md gives, ?q= filtering, qualified names, and the CLI's
# table, names and errors.  Skipped without python3.
. "${top_srcdir:-.}/tests/lib.sh"

CTL="$top_builddir/uncorectl"
need_python3 "/api/v1/formulas"

PORT=$(pick_port)
start_uncored "$T/log" -c /dev/null --simulate=hsx -l "127.0.0.1:$PORT" \
	-s "$T/ctl.sock"
ok $? "daemon up on the simulated hsx"
curl -s "http://127.0.0.1:$PORT/api/v1/formulas" >"$T/f.json"
out=$(python3 - "$T/f.json" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
fs = {f["name"]: f for f in d["formulas"]}
bad = []
def want(cond, msg):
    if not cond:
        bad.append(msg)
want(d["platform"] == "hsx", "platform %s" % d["platform"])
want(len(d["formulas"]) == 124, "%d formulas, want 124" % len(d["formulas"]))
want(d["available"] + d["unavailable"] == 124, "counts do not add up")
# 107 the catalog serves, less 5 whose events can never count together
# (two values of one CBo's filter register, or counter 0 twice)
want(d["available"] == 102, "%d available, want 102" % d["available"])
f = fs.get("LLC_DRD_MISS_PCT")
want(f and not f["available"] and "can never count together" in f["reason"]
     and "cannot place together on cbo" in f["reason"],
     "LLC_DRD_MISS_PCT: %s" % f)
f = fs.get("PCT_REQUESTS_PAGE_HIT")
want(f and f["available"] and f["unit"] == "ratio" and
     f["source"] == "331051-002 2.6.6" and f["per_box"] == "imc",
     "PCT_REQUESTS_PAGE_HIT: %s" % f)
f = fs.get("PCT_CYC_FREQ_CURRENT_LTD")
want(f and not f["available"] and "FREQ_MAX_CURRENT_CYCLES" in f["reason"],
     "PCT_CYC_FREQ_CURRENT_LTD: %s" % f)
f = fs.get("PCT_CYC_FREQ_THERMAL_LTD")
want(f and f["available"] and "FREQ_MAX_CURRENT_CYCLES" in f["note"],
     "PCT_CYC_FREQ_THERMAL_LTD: %s" % f)
want("cbo/CYC_USED_DN" in fs and "r2pcie/CYC_USED_DN" in fs and
     "CYC_USED_DN" not in fs, "shared names are qualified")
f = fs.get("numa_reads_addressed_to_local_dram")
want(f and f["available"] and f["source_unit"] == "percent" and
     f["conversion"] == "percent / 100" and
     f["events"][0]["event"].endswith(":filter1=0x18200000"),
     "numa_reads_addressed_to_local_dram: %s" % f)
f = fs.get("memory_bandwidth_read")
want(f and f["overlaps"].startswith("uncore_dram_bandwidth_bytes_per_second"),
     "memory_bandwidth_read overlaps: %s" % f)
print("\n".join(bad) if bad else "fine")
PY
)
is "$out" "fine" "hsx catalog: counts, availability, reasons, units, names"

q=$(curl -s "http://127.0.0.1:$PORT/api/v1/formulas?q=page_hit")
like "$q" '"name":"PCT_REQUESTS_PAGE_HIT"' "?q= finds by name, ignoring case"
is "$(printf '%s' "$q" | grep -o '"name":' | wc -l | tr -d ' ')" 1 "and only it"
code=$(curl -s -o "$T/e" -w '%{http_code}' \
	"http://127.0.0.1:$PORT/api/v1/formulas?q=$(printf 'x%.0s' $(seq 130))")
is "$code" 400 "an over-long q is a 400"

out=$("$CTL" -s "$T/ctl.sock" formulas page 2>&1); rc=$?
is "$rc" 0 "uncorectl formulas PATTERN"
like "$out" "PCT_REQUESTS_PAGE_EMPTY  ratio" "a table with the unit"
like "$out" "NAME" "and a header"
out=$("$CTL" -s "$T/ctl.sock" formulas CURRENT_LTD 2>&1)
like "$out" "no    it names FREQ_MAX_CURRENT_CYCLES" "a refused one says why"
out=$("$CTL" -s "$T/ctl.sock" formulas --available --names 2>&1)
is "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 102 "--available --names: 102 names"
out=$("$CTL" -s "$T/ctl.sock" formulas no_such_formula 2>&1); rc=$?
like "$out" 'no formula matches "no_such_formula"' "no match is said"
out=$("$CTL" -s "$T/ctl.sock" formulas --json memory_bandwidth_total 2>&1)
like "$out" '"expression":"($0 + $1) * 64 / 1000000 / T * 1000000"' \
	"--json is the daemon's answer"
kill "$UPID"; wait "$UPID" 2>/dev/null

PORT=$(pick_port)
start_uncored "$T/log2" -c /dev/null --simulate=gnr -l "127.0.0.1:$PORT" -s ""
ok $? "daemon up on the simulated gnr (perf)"
curl -s "http://127.0.0.1:$PORT/api/v1/formulas" >"$T/g.json"
out=$(python3 - "$T/g.json" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
if d["backend"] != "perf" or len(d["formulas"]) != 68:
    bad.append("backend %s, %d formulas" % (d["backend"], len(d["formulas"])))
srf = [f for f in d["formulas"] if "SRF/" in f["source"]]
if len(srf) != 28 or any(f["available"] for f in srf):
    bad.append("Sierra Forest's entries: %d, some available" % len(srf))
names = [f["name"] for f in d["formulas"] if f["available"]]
if len(names) != len(set(names)):
    bad.append("a name is served twice")
print("\n".join(bad) if bad else "fine")
PY
)
is "$out" "fine" "gnr: 68 entries, Sierra Forest's refused, no name twice"
tap_done
