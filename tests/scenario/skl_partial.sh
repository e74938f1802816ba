#!/bin/bash
# skl_partial.sh - a client part the daemon can serve only in part (issue
# 19 section 4): a host bridge whose IMC window is not known (Ice Lake U's
# 8086:8a12) keeps the CBos, the ARB and the clock served and leaves the
# IMC out, saying why; a 10-core Comet Lake (MSR_UNC_CBO_CONFIG 11) gets
# the 8 CBos the MSR map covers, and the log says which are not counted.
. "${top_srcdir:-.}/tests/lib.sh"

printf '[daemon]\ninterval_ms = 100\n' >"$T/c.conf"
run() { # run NAME TOPOLOGY: starts the daemon, samples /metrics and topology
	cat >"$T/$1.json" <<JSON
{ "platform": "skl", $2,
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x8f": 1.0e9, "cbo:0x34:0x88": 1.0e8,
      "imc:DRAM_DATA_READS": 1.0e8 } } ] }
JSON
	PORT=$(pick_port)
	start_uncored "$T/log.$1" -c "$T/c.conf" --simulate --workload "$T/$1.json" \
		-l "127.0.0.1:$PORT" -s ""
	ok $? "$1: the daemon starts"
	wait_for "$1: 4 samples" 20 ring_has "$PORT" 4
	curl -s "http://127.0.0.1:$PORT/metrics" >"$T/m.$1"
	curl -s "http://127.0.0.1:$PORT/api/v1/topology" >"$T/t.$1"
}
# available flags of one unit's instances in the topology JSON
avail() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for u in d["sockets"][0]["units"]:
    if u["unit"] == sys.argv[2]:
        print(" ".join(str(i["available"]).lower() for i in u["instance_list"]))' "$1" "$2"
}

run bridge '"cbo_count": 4, "host_bridge": "0x8a12"'
like "$(cat "$T/log.bridge")" "skl uncore: the IMC's DRAM counters are not counted: host bridge 0000:00:00.0 is 8086:8a12" \
	"unknown host bridge: the log says the IMC is left out, and why"
near "$(metric "$T/m.bridge" uncore_llc_hit_ratio 'socket="0"')" 0.9 0.01 \
	"unknown host bridge: the LLC is still served"
ok "$(metric "$T/m.bridge" uncore_clock_hertz 'socket="0"' | grep -q .; echo $?)" \
	"unknown host bridge: the clock is still served"
is "$(grep -c '^uncore_dram' "$T/m.bridge")" 0 "unknown host bridge: no DRAM series"
is "$(avail "$T/t.bridge" imc)" "false" "unknown host bridge: the IMC unavailable in the topology"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "unknown host bridge: clean stop"

run cml '"cbo_count": 10'
like "$(cat "$T/log.cml")" "CBos 8-9 of 10 (MSR_UNC_CBO_CONFIG) are not counted" \
	"10 CBos: the log says which are not counted"
is "$(avail "$T/t.cml" cbo)" "true true true true true true true true false false" \
	"10 CBos: 8 served, 8 and 9 unavailable"
is "$(grep -c '^uncore_event_total{.*unit="cbo".*ANY_MESI' "$T/m.cml")" 8 \
	"10 CBos: 8 series of lookups"
ok "$(metric "$T/m.cml" uncore_dram_read_bytes_total 'socket="0"' | grep -q .; echo $?)" \
	"10 CBos: the IMC served"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "10 CBos: clean stop"
tap_done
