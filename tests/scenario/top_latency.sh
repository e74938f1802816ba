#!/bin/sh
# top_latency.sh - `uncorectl top` shows the memory read latency beside
# DRAM GB/s where the daemon serves uncore_memory_read_latency_seconds
# (issue 41 §4), and leaves the column out where it does not.  hsx, 2
# sockets, 4 CBos, UCLK 2 GHz (latency_hsx.sh): socket 0 has 2e7 DRd
# misses/s in the TOR (FILTER1 opc 0x182) and 4.8e9 occupancy/s, 2.4 in
# flight: 4.8e9 / 2e7 / 2 GHz = 120 ns; socket 1 has no such reads (a
# dash, never 0), only decoys on the neighbouring encodings (the
# unfiltered opcode, RFO's 0x180) that a wrong encoding would count.
. "${top_srcdir:-.}/tests/lib.sh"

CTL="$top_builddir/uncorectl"
F=filter1=0x18200000
cat >"$T/wl.json" <<JSON
{ "platform": "hsx", "sockets": 2, "cbo_count": 4, "imc_channels": 2,
  "qpi_ports": 2, "uclk_hz": 2000000000,
  "phases": [ { "seconds": 3600, "rates": {
    "s0/cbo:0x35:0x03:$F": 2.0e7, "s0/cbo:0x36:0x03:$F": 4.8e9,
    "s1/cbo:0x35:0x03:filter1=0x0": 9.0e7, "s1/cbo:0x36:0x03:filter1=0x0": 5.0e10,
    "s1/cbo:0x35:0x03:filter1=0x18000000": 7.0e6,
    "s1/cbo:0x36:0x03:filter1=0x18000000": 3.0e9,
    "s0/imc:0x04:0x03": 1.25e8, "s0/imc:0x04:0x0c": 6.25e7,
    "s1/imc:0x04:0x03": 6.25e7 } } ] }
JSON

# top NAME [CONF]: a daemon on the workload, `uncorectl top --count 2`
# into $T/NAME.top (the daemon stopped after)
top() {
	PORT=$(pick_port)
	printf '[daemon]\ninterval_ms = 200\n%s\n' "${2:-}" >"$T/$1.conf"
	start_uncored "$T/$1.log" -c "$T/$1.conf" --simulate=hsx \
		--workload "$T/wl.json" -l "127.0.0.1:$PORT" -s ""
	ok $? "$1: daemon up"
	wait_for "$1: 3 samples" 60 ring_has "$PORT" 3
	curl -s "http://127.0.0.1:$PORT/api/v1/metrics" >"$T/$1.json"
	"$CTL" --url "http://127.0.0.1:$PORT" top --count 2 --interval 0.3 \
		>"$T/$1.top" 2>"$T/$1.err"
	is "$?" 0 "$1: top --count 2 exits 0"
	kill "$UPID"; wait "$UPID" 2>/dev/null
}

# row FILE SOCKET: the last block's row of that socket
row() { awk -v s="$2" '$1 == s { l = $0 } END { print l }' "$1"; }

top def
if ! grep -q memory_read_latency_all_seconds "$T/def.json"; then
	skip "top's read latency column" \
		"the daemon serves no uncore_memory_read_latency_seconds on hsx here ($(perf_mode && echo perf || echo direct) backend)"
	tap_done
	exit
fi
is "$(grep -m1 '^SOCKET' "$T/def.top" | tr -s ' ')" \
	"SOCKET DRAM READ GB/s DRAM WRITE GB/s READ LATENCY ns LLC HIT % UNCORE GHz" \
	"the read latency column comes beside the GB/s"
r0=$(row "$T/def.top" 0) r1=$(row "$T/def.top" 1)
near "$(echo "$r0" | awk '{ print $4 }')" 120 0.01 \
	"s0: 120 ns (4.8e9 occupancy / 2e7 inserts / 2 GHz)"
near "$(echo "$r0" | awk '{ print $2 }')" 8.0 0.01 "s0: DRAM read 8 GB/s beside it"
is "$(echo "$r1" | awk '{ print $4 }')" "-" \
	"s1: no demand reads missed the LLC: a dash, not 0 (the decoy encodings not counted)"
near "$(echo "$r1" | awk '{ print $6 }')" 2.0 0.01 "s1: the columns after it in place (uncore 2 GHz)"
near "$(jq '.sockets[0].memory_read_latency_all_seconds' "$T/def.json")" 120e-9 0.01 \
	"the API says the same 120 ns"

# [baseline] memory_latency = no: no family, no column
top nolat "[baseline]
memory_latency = no"
is "$(grep -m1 '^SOCKET' "$T/nolat.top" | tr -s ' ')" \
	"SOCKET DRAM READ GB/s DRAM WRITE GB/s LLC HIT % UNCORE GHz" \
	"memory_latency = no: no read latency column"
near "$(row "$T/nolat.top" 0 | awk '{ print $5 }')" 2.0 0.01 \
	"memory_latency = no: the uncore clock is the fifth column again"
ok "$(! grep -E 'Sanitizer|runtime error' "$T/def.err" "$T/nolat.err" >&2; echo $?)" \
	"no sanitizer reports from uncorectl"
tap_done
