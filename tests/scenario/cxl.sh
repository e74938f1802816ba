#!/bin/sh
# cxl.sh - CXL memory bandwidth on Sapphire/Emerald Rapids (spr, perf
# backend; issue 31 section 5, doc/metrics.md "CXL memory") on the
# simulated kernel, with known answers:
#   uncore_cxl_write_bytes_total{socket,port}: each CXL port's
#     UNC_CXLCM_TxC_PACK_BUF_INSERTS.MEM_DATA (cxlcm 0x02/0x10) x 64 x 0.5
#     (PCM's CXLBWWrScalingFactor, doc/hardware-notes.md);
#   uncore_cxl_read_bytes_total{socket}: UNC_CHA_TOR_INSERTS.
#     IA_MISS_CXL_ACC (cha 0x35/0x01, UMaskExt 0x10C00182) x 64, summed
#     over the CHAs.
# Decoys at other rates: the RxC MEM_DATA (0x41/0x10) and TxC cache
# (0x02/0x04) events of the same ports, CXLDP M2S_DATA, and the CHA TOR
# variants one field away (IA_HIT_CXL_ACC, IA_MISS_CXL_ACC_LOCAL,
# IA_MISS_DRD_CXL_ACC, IA_MISS), so a wrong encoding, scale, port or
# socket gives another answer.  A Linux 6.10 kernel (before the CXL PMUs,
# commit f8a86a9bb5f7, 6.11): the write family absent with the reason, the
# reads served.  /api/v1/metrics and /metrics agree.  gnr from Linux 6.14:
# reads and writes per port (uncore_cxl_port_read_bytes_total, and the
# read total per socket their sum), absent on 6.12 with the reason.
. "${top_srcdir:-.}/tests/lib.sh"

workload() { # KERNEL
	cat <<JSON
{ "platform": "spr", "sockets": 2, "cha_count": 4, "upi_links": 2,
  "perf": { "kernel": "$1" },
  "phases": [ { "seconds": 3600, "rates": {
    "s0/cxlcm:0x02:0x10@1": 1.0e8, "s0/cxlcm:0x02:0x10@3": 2.0e7,
    "s1/cxlcm:0x02:0x10@0": 3.0e7,
    "cxlcm:0x41:0x10": 7.0e8, "cxlcm:0x02:0x04": 9.0e8,
    "cxldp:0x02:0x20": 6.0e8,
    "s0/cha:0x35:0x10c0018201": 2.0e8, "s1/cha:0x35:0x10c0018201": 4.0e7,
    "cha:0x35:0x10c0018101": 3.0e8, "cha:0x35:0x10c0008201": 1.1e8,
    "cha:0x35:0x10c8178201": 5.0e7, "cha:0x35:0xc001fe01": 6.0e8,
    "cha:0x35:0xc001ff01": 8.0e8, "cha:0x01:0x00": 1.0e10
  } } ] }
JSON
}

# run NAME KERNEL: the daemon on that kernel; $T/m0, $T/m1 two pages 5
# ticks apart, $T/NAME.log, $T/NAME.status.
run() {
	workload "$2" >"$T/$1.json"
	PORT=$(pick_port)
	U="http://127.0.0.1:$PORT"
	start_uncored "$T/$1.log" --simulate=spr --backend=perf \
		--workload "$T/$1.json" -i 200 -l "127.0.0.1:$PORT" -s ""
	ok $? "$1: the daemon starts on Linux $2"
	rate_window "$PORT" 5
	curl -s "$U/api/v1/status" >"$T/$1.status"
}
stop() { kill "$UPID"; wait "$UPID" 2>/dev/null; }

# ---- 6.12: both families
run k612 6.12.0
W=uncore_cxl_write_bytes_total R=uncore_cxl_read_bytes_total
near "$(rate $W 'socket="0",port="1"')" 3.2e9 0.02 \
	"socket 0 port 1: writes 1e8 inserts/s x 64 x 0.5 = 3.2e9 B/s"
near "$(rate $W 'socket="0",port="3"')" 6.4e8 0.02 \
	"socket 0 port 3: 2e7 x 32 = 6.4e8 B/s (a port past the UPI links)"
near "$(rate $W 'socket="1",port="0"')" 9.6e8 0.02 \
	"socket 1 port 0: 3e7 x 32 = 9.6e8 B/s, its own socket's"
for sp in '0 0' '0 2' '1 1' '1 2' '1 3'; do
	set -- $sp
	is "$(rate $W "socket=\"$1\",port=\"$2\"")" 0 \
		"socket $1 port $2: no writes (RxC, cache and CXLDP not counted)"
done
is "$(grep -c "^$W{" "$T/m1")" 8 "one write series per port, 4 a socket"
near "$(rate $R 'socket="0"')" 1.28e10 0.02 \
	"socket 0: reads 2e8 TOR inserts/s x 64 = 1.28e10 B/s (not the decoys)"
near "$(rate $R 'socket="1"')" 2.56e9 0.02 \
	"socket 1: reads 4e7 x 64 = 2.56e9 B/s"
is "$(grep -c "^$R{" "$T/m1")" 2 "one read series per socket, no port"
like "$(grep "^# TYPE $W" "$T/m1")" counter "writes: a counter"
like "$(grep "^# TYPE $R" "$T/m1")" counter "reads: a counter"
near "$(metric "$T/m1" uncore_llc_hit_ratio 'socket="0"')" 0.25 0.02 \
	"the LLC family unchanged beside the CXL read event (1 - 6e8/8e8)"

# /api/v1/metrics and /metrics agree: a page and the JSON of one tick
# (the JSON's "time" is its tick's, the page's
# uncored_last_tick_timestamp_seconds its; retried until one of the
# pages around the JSON is of its tick)
agree=1 quiet=0
for try in $(seq 1 100); do
	scrape "$PORT" "$T/a0"
	curl -s "$U/api/v1/metrics" >"$T/api.json"
	scrape "$PORT" "$T/a1"
	# the page taken in the JSON's tick: before it or after it (two
	# requests within one tick, not three: under the suite's own load
	# three straddled a 200 ms tick in 100 tries in a row)
	page=
	jt=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["time"])' "$T/api.json" 2>/dev/null)
	for a in a0 a1; do
		pt=$(metric "$T/$a" uncored_last_tick_timestamp_seconds "")
		[ -n "$jt" ] && [ -n "$pt" ] &&
			awk -v x="$jt" -v y="$pt" 'BEGIN { exit !(x - y < 1e-6 && y - x < 1e-6) }' &&
			{ page=$T/$a; break; }
	done
	[ -n "$page" ] || continue
	quiet=1
	agree=$(python3 - "$T/api.json" "$page" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
prom = {}
for line in open(sys.argv[2]):
    if line.startswith("uncore_cxl_"):
        k, v = line.rsplit(" ", 1)
        prom[k] = int(float(v))
api = {}
for s in j["sockets"]:
    api['uncore_cxl_read_bytes_total{socket="%d"}' % s["socket"]] = \
        s["cxl_read_bytes_total"]
    for p in s.get("ports", []):
        if "cxl_write_bytes_total" in p:
            api['uncore_cxl_write_bytes_total{socket="%d",port="%d"}' %
                (s["socket"], p["port"])] = p["cxl_write_bytes_total"]
print(0 if api == prom and len(api) == 10 else 1)
PY
)
	break
done
[ "$quiet" = 1 ] || echo "# no page and JSON within one tick in 100 tries"
is "$agree" 0 "/api/v1/metrics and /metrics: the same 10 CXL series, same values"
stop

# ---- 6.10: no uncore_cxlcm_N yet; reads need none
run k610 6.10.0
is "$(grep -c "^$W" "$T/m1")" 0 "6.10: no write family"
like "$(cat "$T/k610.log")" "cxlcm (uncore_cxlcm_%u) from Linux 6.11" \
	"6.10: the log names the missing PMU and the kernel that has it"
like "$(cat "$T/k610.status")" "cxlcm (uncore_cxlcm_%u) from Linux 6.11" \
	"6.10: and so does /api/v1/status"
near "$(rate $R 'socket="0"')" 1.28e10 0.02 \
	"6.10: reads still 1.28e10 B/s on socket 0 (CHA, no CXL PMU needed)"
ok "$(curl -s "$U/api/v1/metrics" | grep -q cxl_write; [ $? -ne 0 ]; echo $?)" \
	"6.10: no cxl_write in /api/v1/metrics"
stop

# ---- gnr (Linux 6.14+): per port both ways, x 64 (no 0.5: PCM's
# pcm-memory on GNR/SRF).  Reads CXLCM RxC MEM_DATA 0x41/0x10, writes
# CXLDP TxC AGF M2S_DATA 0x02/0x20; decoys: CXLCM TxC MEM_DATA (spr's
# write event) and CXLDP 0x02/0x10 at other rates.
gnr_workload() { # KERNEL
	cat <<JSON
{ "platform": "gnr", "sockets": 2, "cha_count": 4, "imc_channels": 4,
  "upi_links": 2, "perf": { "kernel": "$1" },
  "phases": [ { "seconds": 3600, "rates": {
    "s0/cxlcm:0x41:0x10@2": 1.0e8, "s1/cxlcm:0x41:0x10@0": 3.0e7,
    "s0/cxldp:0x02:0x20@2": 5.0e7, "s1/cxldp:0x02:0x20@3": 2.0e7,
    "cxlcm:0x02:0x10": 9.0e8, "cxldp:0x02:0x10": 8.0e8,
    "cxlcm:0x41:0x04": 7.0e8
  } } ] }
JSON
}
gnr_run() { # NAME KERNEL
	gnr_workload "$2" >"$T/$1.json"
	PORT=$(pick_port)
	U="http://127.0.0.1:$PORT"
	start_uncored "$T/$1.log" --simulate=gnr --backend=perf \
		--workload "$T/$1.json" -i 200 -l "127.0.0.1:$PORT" -s ""
	ok $? "$1: the daemon starts on Linux $2"
	rate_window "$PORT" 5
}
gnr_run g614 6.14.0
PR=uncore_cxl_port_read_bytes_total
near "$(rate $PR 'socket="0",port="2"')" 6.4e9 0.02 \
	"gnr socket 0 port 2: reads 1e8 RxC MEM_DATA/s x 64 = 6.4e9 B/s"
near "$(rate $PR 'socket="1",port="0"')" 1.92e9 0.02 \
	"gnr socket 1 port 0: reads 3e7 x 64 = 1.92e9 B/s"
is "$(rate $PR 'socket="0",port="0"')" 0 "gnr socket 0 port 0: no reads"
near "$(rate $R 'socket="0"')" 6.4e9 0.02 \
	"gnr socket 0: the read total is its ports' sum"
near "$(rate $R 'socket="1"')" 1.92e9 0.02 "gnr socket 1: read total"
near "$(rate $W 'socket="0",port="2"')" 3.2e9 0.02 \
	"gnr socket 0 port 2: writes 5e7 M2S_DATA/s x 64 = 3.2e9 B/s"
near "$(rate $W 'socket="1",port="3"')" 1.28e9 0.02 \
	"gnr socket 1 port 3: writes 2e7 x 64 = 1.28e9 B/s"
is "$(rate $W 'socket="1",port="0"')" 0 "gnr socket 1 port 0: no writes"
stop

gnr_run g612 6.12.0
is "$(grep -c '^uncore_cxl_' "$T/m1")" 0 "gnr 6.12: no CXL family"
like "$(cat "$T/g612.log")" "cxlcm (uncore_cxlcm_%u) from Linux 6.14" \
	"gnr 6.12: the log names the missing PMU and its kernel"
stop

tap_done
