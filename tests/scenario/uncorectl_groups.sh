#!/bin/sh
# uncorectl_groups.sh - the named groups MEM_LATENCY, MEM (with the read
# latency where the platform counts it), QPI and UPI through `uncorectl
# run` and `uncorectl groups`, with known answers (issue 40 section 3,
# issue 41 section 4): the read latency is Little's law over the run's
# window, sum then divide, from the events of the daemon's own family
# (doc/metrics.md "Memory read latency").
#   hsx (direct): TOR occupancy / inserts of MISS_OPCODE with opc 0x182
#     on 4 CBos, uneven on socket 0 (inserts 1, 2, 3, 4 e6/s at 100, 200,
#     300, 400 cycles; UCLK 2 GHz): 150 ns and 1.5 reads in flight (the
#     mean of per-box ratios would say 125 ns); socket 1 even, 200 ns and
#     4 in flight; summed over sockets 5.5 in flight and 5.5 / 3e7 =
#     183.3 ns (the mean of the sockets' latencies would say 175 ns).
#     Decoys on the unfiltered opcode and RFO's, another latency each.
#     QPI: 1.25e8 data and 2.5e7 non-data flits/s a port, 8 bytes each.
#   skx (perf): the same rates on the CHAs' TOR (IA_MISS with the DRd
#     opcode filter), the clock of one CHA the mean of the CHAs' (a sum
#     would give a quarter of the reads in flight); UPI 9e7 data flits/s,
#     64/9 bytes each.
#   spr (perf): IA_MISS_DRD (UMaskExt 0xC817FE) as above, its default
#     baseline leaving the latency events out: the claim counts them.
#   zen5 (perf): the L3's sampled latency (10 ns a count) over its
#     sampled requests, near and far, summed over 2 CCXs before dividing:
#     (6e7 + 1.2e8 + 3e7) x 10 ns / (1e6 + 6e6 + 1e6) = 262.5 ns (the
#     mean of per-CCX ratios would differ); no reads in flight (sampled).
#   zen4 and skl: MEM counts bytes, its latency figures are absent with
#     the reason (never 0); MEM_LATENCY, QPI and UPI are refused with it.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/latency.sh"

CTL="$top_builddir/uncorectl"
printf '[daemon]\ninterval_ms = 200\n' >"$T/c.conf"

stop_uncored() { kill "$UPID"; wait "$UPID" 2>/dev/null; }
# up NAME PLATFORM BACKEND [WORKLOAD]: the daemon on socket $S
up() {
	PORT=$(pick_port)
	S=$T/$1.sock
	start_uncored "$T/log.$1" -c "$T/c.conf" --simulate="$2" \
		--backend="$3" ${4:+--workload "$4"} -l "127.0.0.1:$PORT" -s "$S"
	ok $? "$1: daemon up ($2, $3 backend)"
	wait_for "$1: 3 samples" 60 ring_has "$PORT" 3
}
# run ARGS...: uncorectl run on $S; stdout $T/out, stderr $T/err, $rc
run() {
	"$CTL" -s "$S" run "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
# grun NAME GROUP SECONDS: -g GROUP --json over sleep SECONDS into $T/NAME.json
grun() {
	run -g "$2" --json -- sleep "$3"
	tail -1 "$T/err" >"$T/$1.json"
}
# fig FILE NAME SOCKET|all
fig() {
	if [ "$3" = all ]; then
		jq -r ".figures[] | select(.name == \"$2\") | .all" "$1"
	else
		jq -r ".figures[] | select(.name == \"$2\") | .sockets[$3]" "$1"
	fi
}
# latency_checks NAME FILE: the known answers of the rates above
latency_checks() {
	near "$(fig "$2" memory_read_latency 0)" 150e-9 0.01 \
		"$1 s0: 150 ns, sum then divide over uneven boxes (not 125 ns)"
	near "$(fig "$2" memory_read_latency 1)" 200e-9 0.01 "$1 s1: 200 ns"
	near "$(fig "$2" memory_read_latency all)" 183.33e-9 0.01 \
		"$1 both sockets: 183.3 ns, every read over every read (not 175 ns)"
	near "$(fig "$2" memory_reads_in_flight 0)" 1.5 0.01 "$1 s0: 1.5 reads in flight"
	near "$(fig "$2" memory_reads_in_flight 1)" 4.0 0.01 "$1 s1: 4 reads in flight"
	near "$(fig "$2" memory_reads_in_flight all)" 5.5 0.01 "$1: 5.5 in flight over both sockets"
	w=$(jq -r .window_s "$2")
	near "$(fig "$2" memory_reads all)" "$(awk -v w="$w" 'BEGIN { print 3.0e7 * w }')" 0.01 \
		"$1: reads = 3e7/s x the time the counts cover"
}

# ---- hsx, direct backend -------------------------------------------------
F=filter1=0x18200000
cat >"$T/hsx.json" <<JSON
{ "platform": "hsx", "sockets": 2, "cbo_count": 4, "imc_channels": 2,
  "qpi_ports": 2, "uclk_hz": 2000000000,
  "phases": [ { "seconds": 3600, "rates": {
$(uneven_rates "cbo:0x35:0x03:$F" "cbo:0x36:0x03:$F")
    "cbo:0x35:0x03:filter1=0x0": 9.0e8, "cbo:0x36:0x03:filter1=0x0": 5.0e10,
    "cbo:0x35:0x03:filter1=0x18000000": 7.0e7,
    "cbo:0x36:0x03:filter1=0x18000000": 3.0e10,
    "s0/imc:0x04:0x03": 1.25e8, "s1/imc:0x04:0x03": 2.5e8,
    "s0/imc:0x04:0x0c": 6.25e7, "s1/imc:0x04:0x0c": 3.125e7,
    "qpi:0x00:0x02": 2.5e8, "qpi:0x00:0x04": 5.0e7
  } } ] }
JSON
up hsx hsx direct "$T/hsx.json"
"$CTL" -s "$S" groups --names >"$T/out" 2>&1
is "$(tr '\n' ' ' <"$T/out")" "MEM LLC MEM_LATENCY QPI " \
	"hsx: groups --names lists what counts here"
"$CTL" -s "$S" groups >"$T/out" 2>&1
like "$(cat "$T/out")" "lat_occ_all UNC_C_TOR_OCCUPANCY.MISS_OPCODE:filter1=0x18200000" \
	"hsx groups: the latency's occupancy is the daemon family's event"
like "$(sed -n '/^UPI/,$p' "$T/out")" "not here: platform hsx defines no source upi_data" \
	"hsx groups: UPI not here, with the reason"
grun hsx-lat MEM_LATENCY 1
is "$rc" 0 "hsx MEM_LATENCY: exit 0"
latency_checks "hsx MEM_LATENCY" "$T/hsx-lat.json"
grun hsx-mem MEM 1
is "$rc" 0 "hsx MEM: exit 0"
near "$(fig "$T/hsx-mem.json" dram_read_bandwidth 0)" 8.0e9 0.01 "hsx MEM: s0 read 8 GB/s"
near "$(fig "$T/hsx-mem.json" dram_write_bandwidth 1)" 2.0e9 0.01 "hsx MEM: s1 write 2 GB/s"
latency_checks "hsx MEM" "$T/hsx-mem.json"
# the table: GB/s and ns
run -g MEM -- sleep 0.5
tv() { # tv FIGURE SOCKET UNIT: the table's value
	sed -nE "s|^  $1 +$2 +([0-9.]+) $3\$|\1|p" "$T/err"
}
near "$(tv memory_read_latency 0 ns)" 150 0.02 "hsx MEM table: latency in ns ($(tv memory_read_latency 0 ns))"
near "$(tv dram_read_bandwidth 0 GB/s)" 8.0 0.02 "hsx MEM table: bandwidth in GB/s ($(tv dram_read_bandwidth 0 GB/s))"
grun hsx-qpi QPI 1
is "$rc" 0 "hsx QPI: exit 0"
# 2 ports x 1.25e8 flits/s x 8 bytes a socket, non-data 2.5e7 a port
near "$(fig "$T/hsx-qpi.json" qpi_data_bandwidth 0)" 2.0e9 0.01 "hsx QPI: s0 data 2 GB/s (flits x 8)"
near "$(fig "$T/hsx-qpi.json" qpi_link_bandwidth all)" 4.8e9 0.01 "hsx QPI: link 4.8 GB/s over both sockets"
run -g UPI -- touch "$T/ran"
is "$rc" 125 "hsx UPI: refused before the program runs (125)"
like "$(cat "$T/err")" "group UPI cannot count here: platform hsx defines no source upi_data" \
	"hsx UPI: the reason"
ok "$([ ! -e "$T/ran" ]; echo $?)" "hsx UPI: nothing ran"
stop_uncored

# ---- skx, perf backend ---------------------------------------------------
A=filter0=0x4043300000000
cat >"$T/skx.json" <<JSON
{ "platform": "skx", "sockets": 2, "cha_count": 4,
  "phases": [ { "seconds": 3600, "rates": {
$(uneven_rates "cha:0x35:0x21:$A" "cha:0x36:0x21:$A")
    "cha:0x35:0x31:$A": 9.0e8, "cha:0x36:0x31:$A": 5.0e10,
    "cha:0x35:0x21:filter0=0x4023300000000": 7.0e7,
    "cha:0x36:0x21:filter0=0x4023300000000": 3.0e10,
    "cha:0x00:0x00": 8.0e9, "imc:0x04:0x03": 1.0e8,
    "upi:0x02:0x0f": 9.0e7
  } } ] }
JSON
up skx skx perf "$T/skx.json"
"$CTL" -s "$S" groups --names >"$T/out" 2>&1
is "$(tr '\n' ' ' <"$T/out")" "MEM LLC MEM_LATENCY UPI " "skx: groups --names"
grun skx-lat MEM_LATENCY 1
is "$rc" 0 "skx MEM_LATENCY: exit 0"
latency_checks "skx MEM_LATENCY" "$T/skx-lat.json"
grun skx-upi UPI 1
is "$rc" 0 "skx UPI: exit 0"
n=$(curl -s "http://127.0.0.1:$PORT/api/v1/topology" | jq '[.sockets[0].units[] | select(.unit == "upi") | .instances] | add')
# the rate is the socket's, shared by its links: 9e7 x 64/9 bytes a socket
near "$(fig "$T/skx-upi.json" upi_data_bandwidth 0)" 6.4e8 0.01 \
	"skx UPI: s0 9e7 data flits/s x 64/9 = 0.64 GB/s ($n links)"
stop_uncored

# ---- spr, perf backend: IA_MISS_DRD, the clock a mean over CHAs ----------
DRD=0xc817fe01
cat >"$T/spr.json" <<JSON
{ "platform": "spr", "sockets": 2, "cha_count": 4,
  "phases": [ { "seconds": 3600, "rates": {
$(uneven_rates "cha:0x35:$DRD" "cha:0x36:$DRD")
    "cha:0x35:0xc001fe01": 1.0e8, "cha:0x36:0xc001fe01": 6.0e10,
    "cha:0x35:0xc897fe01": 3.0e7, "cha:0x36:0xc897fe01": 2.0e10,
    "cha:0x35:0x01": 9.0e8, "cha:0x36:0x01": 5.0e10,
    "cha:0x01:0x00": 8.0e9, "cha:0x00:0x00": 3.0e9
  } } ] }
JSON
up spr spr perf "$T/spr.json"
grun spr-lat MEM_LATENCY 1
is "$rc" 0 "spr MEM_LATENCY: exit 0 (the default baseline leaves the events to the claim)"
latency_checks "spr MEM_LATENCY" "$T/spr-lat.json"
grun spr-mem MEM 1
is "$rc" 0 "spr MEM: exit 0"
near "$(fig "$T/spr-mem.json" memory_read_latency 0)" 150e-9 0.01 "spr MEM: the latency beside the bytes"
stop_uncored

# ---- zen5, perf backend: the L3's sampled latency --------------------------
cat >"$T/zen5.json" <<'JSON'
{ "platform": "zen5", "sockets": 1, "ccx_count": 2,
  "perf": { "kernel": "6.12.0" },
  "phases": [ { "seconds": 3600, "rates": {
    "l3:0xac:0x01@0": 6.0e7, "l3:0xad:0x01@0": 1.0e6,
    "l3:0xac:0x01@1": 1.2e8, "l3:0xad:0x01@1": 6.0e6,
    "l3:0xac:0x02": 3.0e7, "l3:0xad:0x02": 1.0e6,
    "l3:0xac:0x3f": 9.0e9, "l3:0xad:0x3f": 5.0e7
  } } ] }
JSON
up zen5 zen5 perf "$T/zen5.json"
"$CTL" -s "$S" groups --names >"$T/out" 2>&1
is "$(tr '\n' ' ' <"$T/out")" "MEM LLC MEM_LATENCY " "zen5: groups --names"
grun zen5-lat MEM_LATENCY 1
is "$rc" 0 "zen5 MEM_LATENCY: exit 0"
near "$(fig "$T/zen5-lat.json" memory_read_latency 0)" 262.5e-9 0.01 \
	"zen5: 262.5 ns, near and far over both CCXs, sum then divide (not the 0x3f umask's)"
is "$(jq -c '.figures[] | select(.name == "memory_reads_in_flight") | [.all, .reason]' "$T/zen5-lat.json")" \
	'[null,"platform zen5 defines no source lat_occ_all"]' \
	"zen5: no reads in flight from sampled requests, with the reason"
grun zen5-mem MEM 1
near "$(fig "$T/zen5-mem.json" memory_read_latency all)" 262.5e-9 0.01 "zen5 MEM: the latency too"
stop_uncored

# ---- zen4 and skl: no latency events -------------------------------------
for p in zen4 skl; do
	case $p in zen4) b=perf ;; *) b=direct ;; esac
	up "$p" "$p" "$b"
	"$CTL" -s "$S" groups --names >"$T/out" 2>&1
	is "$(tr '\n' ' ' <"$T/out")" "MEM LLC " "$p: groups --names: MEM and LLC only"
	"$CTL" -s "$S" groups >"$T/out" 2>&1
	like "$(sed -n '/^MEM_LATENCY/,/^$/p' "$T/out")" "not here: platform $p defines no source lat_occ_all" \
		"$p groups: MEM_LATENCY not here, with the reason"
	like "$(sed -n '/^MEM /,/^$/p' "$T/out")" "memory_read_latency    seconds           not here: platform $p defines no source lat_occ_all" \
		"$p groups: MEM's latency figure not counted here"
	grun "$p-mem" MEM 0.5
	is "$rc" 0 "$p MEM: exit 0"
	ok "$(jq -e '.figures[] | select(.name == "dram_read_bandwidth") | .all > 0' "$T/$p-mem.json" >/dev/null; echo $?)" \
		"$p MEM: read bandwidth counted"
	is "$(jq -c '.figures[] | select(.name == "memory_read_latency") | [.all, .sockets[0], .reason]' "$T/$p-mem.json")" \
		"[null,null,\"platform $p defines no source lat_occ_all\"]" \
		"$p MEM: latency null with the reason, never 0"
	run -g MEM -- sleep 0.2
	like "$(cat "$T/err")" "memory_read_latency: not counted here (platform $p defines no source lat_occ_all)" \
		"$p MEM table: the latency's absence said"
	run -g MEM_LATENCY -- touch "$T/ran"
	is "$rc" 125 "$p MEM_LATENCY: refused (125)"
	like "$(cat "$T/err")" "group MEM_LATENCY cannot count here: platform $p defines no source lat_occ_all" \
		"$p MEM_LATENCY: the reason"
	stop_uncored
done
ok "$([ ! -e "$T/ran" ]; echo $?)" "a refused group runs nothing"
tap_end
