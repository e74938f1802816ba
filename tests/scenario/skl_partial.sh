#!/bin/bash
# skl_partial.sh - a client part the daemon can serve only in part (issue
# 19 section 4): a host bridge whose IMC window is not known (Ice Lake U's
# 8086:8a12) keeps the CBos, the ARB and the clock served and leaves the
# IMC out, saying why; a 10-core Comet Lake (MSR_UNC_CBO_CONFIG 11) gets
# the 8 CBos the MSR map covers, and the log says which are not counted.
# On the perf backend (UNCORED_TEST_BACKEND=perf) the kernel, not the
# daemon, finds the IMC window: its uncore_snb.c lists 8086:8a12 (ICL_U2,
# desktop_imc_pci_ids), so the IMC is served through uncore_imc; of 10
# CBos the simulated kernel registers uncore_cbox_0..9 (the real one
# stops at skl_uncore_cbox's num_boxes, 8) and the daemon counts the 8
# its table allows, naming the two it leaves out.
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
if perf_mode; then
	near "$(metric "$T/m.bridge" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" \
		6.4e9 0.02 "host bridge 8a12 on the perf backend: the kernel's uncore_imc counts DRAM reads"
else
	like "$(cat "$T/log.bridge")" "skl uncore: the IMC's DRAM counters are not counted: host bridge 0000:00:00.0 is 8086:8a12" \
		"unknown host bridge: the log says the IMC is left out, and why"
fi
near "$(metric "$T/m.bridge" uncore_llc_hit_ratio 'socket="0"')" 0.9 0.01 \
	"unknown host bridge: the LLC is still served"
ok "$(metric "$T/m.bridge" uncore_clock_hertz 'socket="0"' | grep -q .; echo $?)" \
	"unknown host bridge: the clock is still served"
if perf_mode; then
	is "$(avail "$T/t.bridge" imc)" "true" "host bridge 8a12 on the perf backend: the IMC available"
else
	is "$(grep -c '^uncore_dram' "$T/m.bridge")" 0 "unknown host bridge: no DRAM series"
	is "$(avail "$T/t.bridge" imc)" "false" "unknown host bridge: the IMC unavailable in the topology"
fi
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "unknown host bridge: clean stop"

run cml '"cbo_count": 10'
if perf_mode; then
	# the kernel registers skl_uncore_cbox's num_boxes, 8: nothing of
	# CBos 8 and 9 to count or to name
	is "$(grep -c 'uncore_cbox_[89]' "$T/log.cml")" 0 \
		"10 CBos on the perf backend: the kernel has no uncore_cbox_8, _9"
	is "$(avail "$T/t.cml" cbo)" "true true true true true true true true" \
		"10 CBos on the perf backend: the 8 the kernel has served"
else
	like "$(cat "$T/log.cml")" "CBos 8-9 of 10 (MSR_UNC_CBO_CONFIG) are not counted" \
		"10 CBos: the log says which are not counted"
	is "$(avail "$T/t.cml" cbo)" "true true true true true true true true false false" \
		"10 CBos: 8 served, 8 and 9 unavailable"
fi
is "$(grep -c '^uncore_event_total{.*unit="cbo".*ANY_MESI' "$T/m.cml")" 8 \
	"10 CBos: 8 series of lookups"
ok "$(metric "$T/m.cml" uncore_dram_read_bytes_total 'socket="0"' | grep -q .; echo $?)" \
	"10 CBos: the IMC served"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "10 CBos: clean stop"
tap_done
