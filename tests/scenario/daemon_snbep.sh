#!/bin/bash
# daemon_snbep.sh - the daemon on the simulated Xeon E5-2600 v1 (snbep),
# a platform without a global control: every baseline metric against a
# 2-socket workload with known answers (LLC hit ratio through the split
# box-filter solution, DRAM per socket and per channel, uncore clock, QPI
# per port, HA requests, PCU C-states and frequency bands), the freeze
# done box by box, a foreign write to a counter control detected without
# a global register to watch, a clean release (controls zero, boxes left
# frozen), and a 1-socket machine with a missing QPI port and fewer cores
# (fewer CBos).
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
WL="$top_srcdir/conf/workloads/snbep-default.json"
printf '[daemon]\ninterval_ms = 200\n' >"$T/c.conf"
start_uncored "$T/log" -c "$T/c.conf" --simulate=snbep --workload "$WL" \
	--sim-state "$T/state" -l "127.0.0.1:$PORT" -s "$T/ctl.sock"
ok $? "daemon up on 2 simulated snbep sockets"
like "$(cat "$T/log")" "platform snbep (direct backend, simulator), 2 sockets" "platform and sockets logged"
sleep 1
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/m0"
sleep 2
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/m1"
rate() { # rate NAME LABELS [FIRST SECOND]: per second between two scrapes
	f0=${3:-$T/m0} f1=${4:-$T/m1}
	awk -v a="$(metric "$f0" "$1" "$2")" -v b="$(metric "$f1" "$1" "$2")" \
	    -v x="$(metric "$f0" uncored_last_tick_timestamp_seconds "")" \
	    -v y="$(metric "$f1" uncored_last_tick_timestamp_seconds "")" \
	    'BEGIN { print (b - a) / (y - x) }'
}
m=$T/m1
near "$(metric "$m" uncore_llc_hit_ratio 'socket="0"')" 0.90 0.01 "s0 LLC hit ratio 0.90 (even CBos lookups, odd misses)"
near "$(metric "$m" uncore_llc_hit_ratio 'socket="1"')" 0.75 0.01 "s1 LLC hit ratio 0.75"
near "$(rate uncore_llc_lookups_total 'socket="0"')" 4.0e8 0.02 "s0 lookups 4e8/s (scaled x2)"
near "$(rate uncore_llc_misses_total 'socket="1"')" 5.0e7 0.02 "s1 misses 5e7/s"
near "$(metric "$m" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" 8.0e9 0.01 "s0 DRAM read 8 GB/s"
near "$(metric "$m" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="write"')" 4.0e9 0.01 "s0 DRAM write 4 GB/s"
near "$(metric "$m" uncore_dram_bandwidth_bytes_per_second 'socket="1",direction="read"')" 4.0e9 0.01 "s1 DRAM read 4 GB/s"
for c in 0 1 2 3; do
	near "$(rate uncore_dram_channel_read_bytes_total "socket=\"0\",channel=\"$c\"")" 2.0e9 0.02 "s0 channel $c read 2 GB/s"
done
near "$(rate uncore_dram_channel_write_bytes_total 'socket="1",channel="3"')" 5.0e8 0.02 "s1 channel 3 write 0.5 GB/s"
near "$(metric "$m" uncore_clock_hertz 'socket="0"')" 2.4e9 0.01 "s0 uncore clock 2.4 GHz (UBox UCLK, not frozen by anything)"
near "$(metric "$m" uncore_clock_hertz 'socket="1"')" 2.4e9 0.01 "s1 uncore clock 2.4 GHz"
near "$(rate uncore_qpi_data_bytes_total 'socket="0",port="1"')" 1.0e9 0.02 "s0 QPI port 1 data 1 GB/s"
near "$(rate uncore_qpi_link_bytes_total 'socket="1",port="0"')" 7.5e8 0.02 "s1 QPI port 0 link 0.75 GB/s"
near "$(rate uncore_ha_requests_total 'socket="0",type="read",locality="any"')" 1.25e8 0.02 "s0 HA reads 1.25e8/s"
near "$(rate uncore_ha_requests_total 'socket="1",type="write",locality="any"')" 3.125e7 0.02 "s1 HA writes 3.125e7/s"
is "$(grep -c 'locality="local"' "$m")" 0 "no local/remote split on snbep"
near "$(rate uncore_pcu_cstate_residency_cycles_total 'socket="1",state="core_c6"')" 2.0e9 0.02 \
	"s1 core C6 residency 2e9/s: the sum over the socket's 8 cores"
near "$(rate uncore_pcu_cstate_residency_cycles_total 'socket="0",state="core_c3"')" 1.0e8 0.02 \
	"s0 core C3 residency 1e8/s"
near "$(rate uncore_pcu_cstate_residency_cycles_total 'socket="1",state="package_c6"')" 1.0e8 0.02 \
	"s1 package C6 residency 1e8/s (MSR 0x3F9, kernel cstate.c snb_cstates)"
near "$(rate uncore_pcu_cstate_residency_cycles_total 'socket="1",state="package_c2"')" 2.5e8 0.02 \
	"s1 package C2 residency 2.5e8/s (MSR 0x60D)"
b0=$(rate uncore_pcu_frequency_band_cycles_total 'socket="0",band="0"')
b1=$(rate uncore_pcu_frequency_band_cycles_total 'socket="0",band="1"')
near "$b0" 8.0e8 0.02 "PCU band 0 cycles 8e8/s (the band filter holds the baseline's bands)"
near "$(awk -v a="$b1" -v b="$b0" 'BEGIN { print a / b }')" 0.75 0.02 "PCU band 1 cycles 75% of band 0"
is "$(metric "$m" uncored_hw_errors_total "")" 0 "no hardware errors"
is "$(metric "$m" uncored_interference_total "")" 0 "no interference without a global control to compare"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$m" 2>&1); rc=$?
	is "$rc:$out" "0:" "promtool check metrics is silent on snbep"
else
	skip "promtool on snbep" "promtool not installed"
fi
topo=$(curl -s "http://127.0.0.1:$PORT/api/v1/topology")
like "$topo" '"unit":"cbo","description"' "topology lists the CBos"
like "$topo" '"event":"UNC_C_LLC_LOOKUP.DATA_READ:filter0=0x7c0000:split=0/2"' "CBo counters hold the split lookups"

# Another agent clears a counter control the daemon programmed (CBo 0's
# CTL0 or CTL1 on socket 1, whichever holds a baseline event): seen by
# the control read-back, with no global control to watch.  Before any
# claim: a claim that starts running makes the next tick reprogram every
# control, which can overwrite the foreign value before the read-back
# sees it (a race of the sampler, not of the platform).
reg=
for r in msr:0xd10@8 msr:0xd11@8; do
	v=$("$UNCORE_SIM" --platform snbep -w "$WL" -s "$T/state" read "$r")
	[ "$v" != 0x0 ] && { reg=$r; break; }
done
ok "$([ -n "$reg" ]; echo $?)" "the daemon programmed CBo 0 on socket 1 ($reg)"
"$UNCORE_SIM" --platform snbep -w "$WL" -s "$T/state" write "${reg:-msr:0xd10@8}" 0x0 >/dev/null
ok $? "foreign write of $reg"
for i in $(seq 1 100); do
	n=$(curl -s "http://127.0.0.1:$PORT/metrics" | grep '^uncored_interference_total' | awk '{ print $2 }')
	[ "${n:-0}" -gt 0 ] && break
	sleep 0.1
done
ok "$([ "${n:-0}" -gt 0 ]; echo $?)" "interference counted ($n)"
like "$(cat "$T/log")" "changed behind our back" "interference logged"

# the UBox filter events need a register no source gives: refused
S="$T/ctl.sock"
code() { curl -s -o "$T/body" -w '%{http_code}' --unix-socket "$S" "$@"; }
U=http://x/api/v1
is "$(code -X POST $U/claims -d '{"events":["UNC_U_FILTER_MATCH.ENABLE"]}')" 400 \
	"UBox FILTER_MATCH.ENABLE (needs UBoxFilter) refused"
like "$(cat "$T/body")" "filter register" "the reason names the missing filter register"
is "$(code -X POST $U/claims -d '{"events":["UNC_C_TOR_OCCUPANCY.ALL","UNC_C_RxR_OCCUPANCY.IRQ"]}')" 409 \
	"two counter-0-only CBo occupancy events: 409"
is "$(code -X POST $U/claims -d '{"events":["UNC_R3_CLOCKTICKS","UNC_Q_CLOCKTICKS"],"ttl_s":30}')" 201 \
	"a claim on the R3QPI and QPI boxes"

kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
nz=""
for r in msr:0xd10 msr:0xd11 msr:0xd30 msr:0xc30 msr:0xc10 msr:0xc08 msr:0xd14 msr:0xc34 msr:0xd10@8; do
	v=$("$UNCORE_SIM" --platform snbep -w "$WL" -s "$T/state" read "$r")
	[ "$v" = 0x0 ] || nz="$nz $r=$v"
done
for r in pci:ff:10.0+0xd8 pci:ff:10.0+0xf0 pci:ff:0e.1+0xd8 pci:df:08.2+0xd8 pci:df:13.5+0xd8; do
	v=$("$UNCORE_SIM" --platform snbep -w "$WL" -s "$T/state" read "$r")
	[ "$v" = 0x0 ] || nz="$nz $r=$v"
done
is "$nz" "" "CBo, PCU, UBox, iMC, HA, QPI and R3QPI controls and filters zero after SIGTERM"

# one socket, 6 cores (so 6 CBos, the kernel's min(8, cores)), two
# channels, QPI port 0's function missing
cat >"$T/one.json" <<'JSON'
{ "platform": "snbep", "sockets": 1, "cores": 6, "imc_channels": 2,
  "uclk_hz": 2000000000,
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x03:filter0=0x7c0000": 1.2e8, "cbo:0x34:0x03:filter0=0x40000": 3.0e7,
      "imc:0x04:0x03": 6.25e7, "imc:0x04:0x0c": 3.125e7,
      "qpi:0x00:0x02": 1.25e8 } } ],
  "faults": [ { "at": 0, "kind": "device_missing", "target": "pci:ff:08.2" } ] }
JSON
P2=$(pick_port)
PORT=$P2 start_uncored "$T/log2" -c "$T/c.conf" --simulate=snbep --workload "$T/one.json" \
	-l "127.0.0.1:$P2" -s ""
ok $? "1 socket with QPI port 0 missing: daemon up"
sleep 1.5
curl -s "http://127.0.0.1:$P2/metrics" >"$T/m3"
topo=$(curl -s "http://127.0.0.1:$P2/api/v1/topology")
near "$(metric "$T/m3" uncore_llc_hit_ratio 'socket="0"')" 0.75 0.01 "1 socket: hit ratio 0.75"
near "$(metric "$T/m3" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" 4.0e9 0.01 \
	"1 socket: DRAM read 4 GB/s over 2 channels"
near "$(metric "$T/m3" uncore_clock_hertz 'socket="0"')" 2.0e9 0.01 "1 socket: 2 GHz"
is "$(grep -c 'socket="1"' "$T/m3")" 0 "no second socket"
is "$(echo "$topo" | grep -o '"unit":"cbo".*' | sed 's/"unit":"ha".*//' | grep -o '"instance":[0-9]*' | sort -u | wc -l)" 6 \
	"6 cores: 6 CBos"
is "$(grep -c '^uncore_qpi_data_bytes_total{socket="0",port="0"}' "$T/m3")" 0 "missing QPI port 0 exports nothing"
near "$(metric "$T/m3" uncore_qpi_data_bytes_total 'socket="0",port="1"' | awk '{ print ($1 > 0) }')" 1 0 \
	"QPI port 1 still counts"
qpi=$(echo "$topo" | grep -o '"unit":"qpi",.*' | sed 's/"unit":"r2pcie".*//')
like "$qpi" '"instance":0,"available":false' "QPI port 0 reported unavailable"
like "$qpi" '"instance":1,"available":true' "QPI port 1 available"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
tap_done
