#!/bin/bash
# example.sh - contrib/examples/regions.c, the 45-line program of the README
# and doc/library.md, built by make check against libuncored and
# run against the daemon on the simulator: its report has the streaming
# loop's and the pointer chase's regions, with the simulated DRAM read
# rate within 30 %.
. "${top_srcdir:-.}/tests/lib.sh"

EX="$top_builddir/contrib/examples/regions"
PORT=$(pick_port)
cat >"$T/wl.json" <<'JSON'
{ "platform": "skl", "cbo_count": 4,
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x8f": 2.0e8, "cbo:0x34:0x88": 2.0e7,
      "imc:DRAM_DATA_READS": 1.5e8 } } ] }
JSON
start_uncored "$T/log" --simulate --workload "$T/wl.json" -i 100 \
	-l "127.0.0.1:$PORT" -s "$T/ctl.sock"
ok $? "daemon up"
UNCORED_SOCKET="$T/ctl.sock" "$EX" >"$T/out" 2>"$T/err"
is "$?" 0 "the example runs ($(head -c 200 "$T/err"))"
sed 's/^/# /' "$T/out"
like "$(cat "$T/out")" "per socket" "its report says uncore counts are per socket"
for r in stream chase; do
	ok "$(grep -Eq "^$r +1 +1 +[0-9.]+ +DRAM_DATA_READS +0 " "$T/out"; echo $?)" \
		"region $r: one call by one thread, its DRAM reads"
done
rate=$(awk '$1 == "stream" { print $9 }' "$T/out")
near "$rate" 1.5e8 0.3 "the streaming loop's DRAM reads at the simulated 1.5e8/s"
like "$(cat "$T/out")" "UNC_CBO_CACHE_LOOKUP.ANY_I" "and the chase's LLC misses event"
tap_done
