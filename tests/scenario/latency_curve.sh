#!/bin/sh
# latency_curve.sh - the simulator knows Little's law (issue 41 section
# 3): a phase's "memory_latency" curve (uncore-sim(1)) makes the
# platform's latency events count reads x latency x the box clock, the
# reads following the phase's DRAM read traffic (bytes / 64), and the
# daemon's uncore_memory_read_latency_seconds gives the curve back:
# rate(_sum) / rate(_count) the curve's latency at the phase's
# bandwidth, rate(_sum) the reads in flight, each within 1 %.
#
# The curve: u = DRAM bytes/s (read + write) / peak; local latency
# idle_ns / (1 - u), remote remote_ns / (1 - u); remote_share of the
# reads go remote; box_reads and box_latency spread them unevenly over
# the boxes, so a mean of per-box ratios is not the answer (it is said
# below each time).  Decoys on the neighbouring encodings are raw rate
# keys of other latencies; on hsx (direct backend) the curve's occupancy
# counts on counter 0 only, so an occupancy placed on another counter
# would read nothing.  A raw key of the phase wins over the curve's on
# its counter (hsx socket 1 remote).
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/latency.sh"

# ---- hsx: 2 sockets of 4 CBos, UCLK 2 GHz -------------------------------
# s0: reads 1e8 CAS/s = 6.4e9 B/s, writes 3.2e9 B/s: u = 9.6e9 / 1.92e10
#     = 0.5: local 160 ns, remote 280 ns; 7.5e7 local + 2.5e7 remote
#     reads/s: all (12 + 7) / 1e8 = 190 ns, 19 in flight (mean of the
#     per-CBo ratios: 158.3 ns);
# s1: reads 3.2e9 B/s: u = 1/6: local 96 ns, remote 168; all 0.75 x 96 +
#     0.25 x 168 = 114 ns, 5e7 reads/s, 5.7 in flight; its remote pair
#     is given raw: 6e9 / 1e7 = 600 cycles = 300 ns.
F=filter1=0x18200000
cat >"$T/hsx.wl.json" <<JSON
{ "platform": "hsx", "sockets": 2, "cbo_count": 4, "imc_channels": 2,
  "qpi_ports": 2, "uclk_hz": 2000000000,
  "phases": [ { "seconds": 3600,
    "memory_latency": { "idle_ns": 80, "peak_bytes_per_second": 1.92e10,
      "remote_ns": 140, "remote_share": 0.25,
      "box_reads": [1, 2, 3, 4], "box_latency": [1, 2, 3, 4] },
    "rates": {
    "s0/imc:0x04:0x03": 1.0e8, "s0/imc:0x04:0x0c": 5.0e7,
    "s1/imc:0x04:0x03": 5.0e7,
    "s1/cbo:0x35:0x83:$F": 1.0e7, "s1/cbo:0x36:0x83:$F": 6.0e9,
    "cbo:0x35:0x03:filter1=0x0": 9.0e8, "cbo:0x36:0x03:filter1=0x0": 5.0e10,
    "cbo:0x35:0x03:filter1=0x18000000": 7.0e7,
    "cbo:0x36:0x03:filter1=0x18000000": 3.0e10,
    "cbo:0x35:0x01:$F": 5.0e8, "cbo:0x36:0x01:$F": 6.0e9,
    "cbo:0x35:0x0a:$F": 6.0e7, "cbo:0x36:0x0a:$F": 7.0e9,
    "cbo:0x35:0x43:$F": 3.0e7, "cbo:0x36:0x43:$F": 4.0e9
  } } ] }
JSON

# (the direct backend unless UNCORED_TEST_BACKEND=perf: counter 0 is
# then the daemon's placement, else the simulated kernel's)
lat_run hsx "" 8 --simulate=hsx --workload "$T/hsx.wl.json"
near "$(lat hsx 0 all)" 190e-9 0.01 \
	"hsx s0: 190 ns, the curve at 9.6 GB/s of 19.2 (not 158 ns, the mean of per-CBo ratios)"
near "$(in_flight hsx 0 all)" 19 0.01 "hsx s0: rate(_sum) = 1e8 reads/s x 190 ns = 19 in flight"
near "$(reads_per_s hsx 0 all)" 1.0e8 0.01 "hsx s0: rate(_count) = DRAM reads / 64 = 1e8/s"
near "$(lat hsx 1 all)" 114e-9 0.01 "hsx s1: 114 ns at 3.2 GB/s"
near "$(in_flight hsx 1 all)" 5.7 0.01 "hsx s1: 5.7 in flight"
near "$(rate uncore_dram_read_bytes_total 'socket="0"' "$T/hsx.m0" "$T/hsx.m1")" 6.4e9 0.01 \
	"hsx s0: the daemon's DRAM reads, 6.4 GB/s, are the curve's"
near "$(jq '.sockets[0].memory_read_latency_all_seconds' "$T/hsx.json")" 190e-9 0.01 \
	"hsx s0: /api/v1/metrics, the last interval's mean, 190 ns"
near "$(jq '.sockets[1].memory_reads_in_flight_all' "$T/hsx.json")" 5.7 0.01 \
	"hsx s1: /api/v1/metrics reads in flight 5.7"
lat_stop

# local and remote take turns on counter 0 (a [baseline] with every target)
lat_run hsxt "[baseline]
cbo = UNC_C_TOR_OCCUPANCY.MISS_OPCODE:$F UNC_C_TOR_INSERTS.MISS_OPCODE:$F
  UNC_C_TOR_OCCUPANCY.MISS_LOCAL_OPCODE:$F UNC_C_TOR_INSERTS.MISS_LOCAL_OPCODE:$F
  UNC_C_TOR_OCCUPANCY.MISS_REMOTE_OPCODE:$F UNC_C_TOR_INSERTS.MISS_REMOTE_OPCODE:$F" 15 \
	--simulate=hsx --workload "$T/hsx.wl.json"
near "$(lat hsxt 0 local)" 160e-9 0.01 "hsx s0 local (MISS_LOCAL_OPCODE): 160 ns"
near "$(lat hsxt 0 remote)" 280e-9 0.01 "hsx s0 remote (MISS_REMOTE_OPCODE): 280 ns"
near "$(lat hsxt 1 local)" 96e-9 0.01 "hsx s1 local: 96 ns"
near "$(lat hsxt 1 remote)" 300e-9 0.01 "hsx s1 remote: 300 ns, the phase's own rate keys win over the curve's"
near "$(lat hsxt 0 all)" 190e-9 0.01 "hsx s0 all, in turn with them: 190 ns"
lat_stop

# ---- skx, icx, spr, gnr, perf: 2 sockets of 4 CHAs, 2 GHz -------------
# s0: reads 5e10 B/s of peak 1e11: u = 0.5: local 180 ns, remote 300;
#     7.8125e8 reads/s, 20 % remote: all 144 + 60 = 204 ns, 159.375 in
#     flight (box_reads 4,3,2,1 with box_latency 1,1,2,2: the mean of
#     per-CHA ratios would say 235 ns);
# s1: 2.5e10 B/s: u = 0.25: local 120, remote 200; all 136 ns,
#     3.90625e8 reads/s, 53.125 in flight.
CURVE='"memory_latency": { "idle_ns": 90, "peak_bytes_per_second": 1e11,
      "remote_ns": 150, "remote_share": 0.2,
      "box_reads": [4, 3, 2, 1], "box_latency": [1, 1, 2, 2] }'
xsp_workload() { # PLATFORM DRAM-READ-KEYS DECOYS
	cat <<JSON
{ "platform": "$1", "sockets": 2, "cha_count": 4, "uclk_hz": 2000000000,
  "phases": [ { "seconds": 3600, $CURVE,
    "rates": { $2, $3 } } ] }
JSON
}
# the DRAM reads, CAS commands per second (64 bytes each), per socket
cas() { # KEY [KEY2]: s0 7.8125e8, s1 3.90625e8, over the keys given
	if [ $# -eq 1 ]; then
		echo "\"s0/$1\": 7.8125e8, \"s1/$1\": 3.90625e8"
	else
		echo "\"s0/$1\": 3.90625e8, \"s1/$1\": 1.953125e8, \"s0/$2\": 3.90625e8, \"s1/$2\": 1.953125e8"
	fi
}
XSP_DECOYS='"cha:0x35:0xc001fe01": 1.0e8, "cha:0x36:0xc001fe01": 6.0e10,
    "cha:0x35:0xc897fe01": 3.0e7, "cha:0x36:0xc897fe01": 2.0e10,
    "cha:0x35:0xc827fe01": 5.0e7, "cha:0x36:0xc827fe01": 3.0e10,
    "cha:0x35:0xc8178a01": 1.0e6, "cha:0x36:0xc8178a01": 1.0e9,
    "cha:0x35:0x01": 9.0e8, "cha:0x36:0x01": 5.0e10'
A=filter0=0x4043300000000 L=filter0=0x4043200000000 R=filter0=0x4043100000000
SKX_DECOYS="\"cha:0x35:0x31:$A\": 9.0e8, \"cha:0x36:0x31:$A\": 5.0e10,
    \"cha:0x35:0x21:filter0=0x4023300000000\": 7.0e7,
    \"cha:0x36:0x21:filter0=0x4023300000000\": 3.0e10,
    \"cha:0x35:0x21:filter0=0x3b00000000\": 1.0e8,
    \"cha:0x36:0x21:filter0=0x3b00000000\": 6.0e9"
xsp_workload skx "$(cas imc:0x04:0x03)" "$SKX_DECOYS" >"$T/skx.wl.json"
xsp_workload icx "$(cas imc:0x04:0x0f)" "$XSP_DECOYS, \"cha:0x01:0x00\": 3.0e9" >"$T/icx.wl.json"
xsp_workload spr "$(cas imc:0x05:0xcf)" "$XSP_DECOYS, \"cha:0x00:0x00\": 3.0e9" >"$T/spr.wl.json"
xsp_workload gnr "$(cas imc:0x05:0xcf imc:0x06:0xcf)" "$XSP_DECOYS, \"cha:0x00:0x00\": 3.0e9" >"$T/gnr.wl.json"

# check NAME PLATFORM: target all on both sockets
check_all() {
	near "$(lat "$1" 0 all)" 204e-9 0.01 \
		"$2 s0: 204 ns, the curve at 50 GB/s of 100 (not 235 ns, the mean of per-CHA ratios)"
	near "$(in_flight "$1" 0 all)" 159.375 0.01 "$2 s0: rate(_sum) = 7.8125e8 reads/s x 204 ns = 159.4 in flight"
	near "$(reads_per_s "$1" 0 all)" 7.8125e8 0.01 "$2 s0: rate(_count) = DRAM reads / 64"
	near "$(lat "$1" 1 all)" 136e-9 0.01 "$2 s1: 136 ns at 25 GB/s"
	near "$(in_flight "$1" 1 all)" 53.125 0.01 "$2 s1: 53.1 in flight"
	near "$(jq '.sockets[0].memory_reads_in_flight_all' "$T/$1.json")" 159.375 0.01 \
		"$2 s0: /api/v1/metrics reads in flight 159.4"
}

# the pair and the clock alone on the CHAs: nothing takes turns
for p in icx spr gnr; do
	lat_run "$p" "[baseline]
cha = UNC_CHA_CLOCKTICKS UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD UNC_CHA_TOR_INSERTS.IA_MISS_DRD" 8 \
		--simulate="$p" --backend=perf --workload "$T/$p.wl.json"
	check_all "$p" "$p"
	lat_stop
done
lat_run skx "[baseline]
cha = UNC_CHA_CLOCKTICKS UNC_CHA_TOR_OCCUPANCY.IA_MISS:$A UNC_CHA_TOR_INSERTS.IA_MISS:$A" 8 \
	--simulate=skx --backend=perf --workload "$T/skx.wl.json"
check_all skx skx
lat_stop

# local, remote (and icx's dram) take turns on counter 0
lat_run skxt "[baseline]
cha = UNC_CHA_CLOCKTICKS
  UNC_CHA_TOR_OCCUPANCY.IA_MISS:$L UNC_CHA_TOR_INSERTS.IA_MISS:$L
  UNC_CHA_TOR_OCCUPANCY.IA_MISS:$R UNC_CHA_TOR_INSERTS.IA_MISS:$R" 15 \
	--simulate=skx --backend=perf --workload "$T/skx.wl.json"
near "$(lat skxt 0 local)" 180e-9 0.01 "skx s0 local (FILTER1 0x40432): 180 ns"
near "$(lat skxt 0 remote)" 300e-9 0.01 "skx s0 remote (FILTER1 0x40431): 300 ns"
near "$(lat skxt 1 remote)" 200e-9 0.01 "skx s1 remote: 200 ns"
lat_stop
lat_run icxt "[baseline]
cha = UNC_CHA_CLOCKTICKS
  UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_LOCAL UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL
  UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_REMOTE UNC_CHA_TOR_INSERTS.IA_MISS_DRD_REMOTE
  UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_DDR UNC_CHA_TOR_INSERTS.IA_MISS_DRD_DDR" 15 \
	--simulate=icx --backend=perf --workload "$T/icx.wl.json"
near "$(lat icxt 1 local)" 120e-9 0.01 "icx s1 local (0xC816FE): 120 ns"
near "$(lat icxt 1 remote)" 200e-9 0.01 "icx s1 remote (0xC8177E): 200 ns"
near "$(lat icxt 0 dram)" 204e-9 0.01 "icx s0 dram (0xC81786): every read of the curve, 204 ns"
lat_stop

# ---- zen5, perf: 1 socket of 2 CCXs -----------------------------------
# reads 2e10 B/s of peak 8e10: u = 0.25: local (dram_near) 133.3 ns,
# remote (dram_far) 240 ns, half each of 3.125e8 reads/s: all 186.7 ns,
# 58.33 in flight (box_reads 1,3 with box_latency 2,1: the mean of the
# per-CCX ratios would say 224 ns).  The simulated L3 samples every read.
cat >"$T/zen5.wl.json" <<JSON
{ "platform": "zen5", "sockets": 1, "ccx_count": 2,
  "phases": [ { "seconds": 3600,
    "memory_latency": { "idle_ns": 100, "peak_bytes_per_second": 8e10,
      "remote_ns": 180, "remote_share": 0.5,
      "box_reads": [1, 3], "box_latency": [2, 1] },
    "rates": { "umc:0x0a:0x01": 3.125e8,
      "l3:0xac:0x3f": 9.0e9, "l3:0xad:0x3f": 5.0e7,
      "l3:0xac:0x04": 5.0e9, "l3:0xad:0x04": 3.0e7 } } ] }
JSON
lat_run zen5 "" 8 --simulate=zen5 --backend=perf --workload "$T/zen5.wl.json"
near "$(lat zen5 0 local)" 133.333e-9 0.01 "zen5 local (dram_near): 133.3 ns"
near "$(lat zen5 0 remote)" 240e-9 0.01 "zen5 remote (dram_far): 240 ns"
near "$(lat zen5 0 all)" 186.667e-9 0.01 "zen5 all: 186.7 ns (not 224 ns, the mean of per-CCX ratios)"
near "$(in_flight zen5 0 all)" 58.333 0.01 "zen5: rate(_sum) = 3.125e8 x 186.7 ns = 58.3 in flight"
near "$(in_flight zen5 0 remote)" 37.5 0.01 "zen5: 37.5 remote reads in flight"
lat_stop
tap_end
