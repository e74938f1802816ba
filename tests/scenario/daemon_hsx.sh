#!/bin/bash
# daemon_hsx.sh - the daemon on the simulated Xeon E5/E7 v3 (hsx): every
# baseline metric against a 2-socket workload with known answers (LLC hit
# ratio through the split FILTER0 solution, DRAM per socket and per
# channel, uncore clock, QPI per port, HA locality, PCU C-states and
# frequency bands), a 1-socket machine, a missing QPI port (reported
# unavailable, the rest works), claims on hsx boxes (4 counters,
# counter-0-only occupancy events, shared filters) and a clean release.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
WL="$top_srcdir/conf/workloads/hsx-default.json"
printf '[daemon]\ninterval_ms = 200\n' >"$T/c.conf"
notify_start
start_uncored "$T/log" -c "$T/c.conf" --simulate=hsx --workload "$WL" \
	--sim-state "$T/state" -l "127.0.0.1:$PORT" -s "$T/ctl.sock"
ok $? "daemon up on 2 simulated hsx sockets"
like "$(cat "$T/log")" "platform hsx (direct backend, simulator), 2 sockets" "platform and sockets logged"
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
near "$(metric "$m" uncore_dram_bandwidth_bytes_per_second 'socket="1",direction="write"')" 2.0e9 0.01 "s1 DRAM write 2 GB/s"
for c in 0 1 2 3; do
	near "$(rate uncore_dram_channel_read_bytes_total "socket=\"0\",channel=\"$c\"")" 2.0e9 0.02 "s0 channel $c read 2 GB/s"
done
near "$(rate uncore_dram_channel_write_bytes_total 'socket="1",channel="3"')" 5.0e8 0.02 "s1 channel 3 write 0.5 GB/s"
near "$(metric "$m" uncore_dram_channel_bandwidth_bytes_per_second 'socket="1",channel="3",direction="write"')" 5.0e8 0.01 \
	"s1 channel 3 write gauge 0.5 GB/s"
# the same per instance in each sample (what the live page draws; sed
# finds the last socket's)
smp=$(curl -s "http://127.0.0.1:$PORT/api/v1/samples?limit=1&deltas=0")
near "$(echo "$smp" | sed 's/.*"channel":2,"dram_read_bytes_per_second":\([0-9.e+-]*\).*/\1/')" \
	"$(rate uncore_dram_channel_read_bytes_total 'socket="1",channel="2"')" 0.02 \
	"samples: s1 channel 2 read as in /metrics"
near "$(echo "$smp" | sed 's/.*"port":1,"qpi_data_bytes_per_second":\([0-9.e+-]*\).*/\1/')" \
	"$(rate uncore_qpi_data_bytes_total 'socket="1",port="1"')" 0.02 \
	"samples: s1 QPI port 1 data as in /metrics"
near "$(metric "$m" uncore_clock_hertz 'socket="0"')" 2.0e9 0.01 "s0 uncore clock 2 GHz (UBox UCLK)"
near "$(metric "$m" uncore_clock_hertz 'socket="1"')" 2.0e9 0.01 "s1 uncore clock 2 GHz"
near "$(rate uncore_qpi_data_bytes_total 'socket="0",port="1"')" 1.0e9 0.02 "s0 QPI port 1 data 1 GB/s"
near "$(rate uncore_qpi_link_bytes_total 'socket="1",port="0"')" 7.5e8 0.02 "s1 QPI port 0 link 0.75 GB/s"
rr=$(rate uncore_ha_requests_total 'socket="0",type="read",locality="remote"')
rl=$(rate uncore_ha_requests_total 'socket="0",type="read",locality="local"')
near "$(awk -v r="$rr" -v l="$rl" 'BEGIN { print r / (r + l) }')" 0.25 0.02 "s0 HA reads 25% remote"
# 2.5.4 PCT_RD_REQUESTS: reads 1.25e8/s, writes 6.25e7/s (all local)
near "$(metric "$m" uncore_ha_read_requests_ratio 'socket="0"')" 0.6667 0.01 \
	"s0 HA read share 1.25e8 / (1.25e8 + 6.25e7)"
like "$(curl -s "http://127.0.0.1:$PORT/api/v1/metrics")" '"ha_read_requests_ratio":0.66' \
	"the same in /api/v1/metrics"
near "$(rate uncore_pcu_cstate_residency_cycles_total 'socket="1",state="core_c6"')" 2.0e9 0.02 \
	"s1 core C6 residency 2e9/s: the sum over the socket's 8 cores, each read on its own CPU"
near "$(rate uncore_pcu_cstate_residency_cycles_total 'socket="1",state="package_c6"')" 1.0e8 0.02 \
	"s1 package C6 residency 1e8/s (MSR 0x3F9)"
near "$(rate uncore_pcu_cstate_residency_cycles_total 'socket="1",state="package_c2"')" 2.5e8 0.02 \
	"s1 package C2 residency 2.5e8/s"
b0=$(rate uncore_pcu_frequency_band_cycles_total 'socket="0",band="0"')
b1=$(rate uncore_pcu_frequency_band_cycles_total 'socket="0",band="1"')
b2=$(rate uncore_pcu_frequency_band_cycles_total 'socket="0",band="2"')
near "$(awk -v a="$b1" -v b="$b0" 'BEGIN { print a / b }')" 0.75 0.02 "PCU band 1 cycles 75% of band 0"
near "$(awk -v a="$b2" -v b="$b0" 'BEGIN { print a / b }')" 0.25 0.02 "PCU band 2 cycles 25% of band 0"
is "$(metric "$m" uncore_pcu_frequency_band_cycles_total 'socket="0",band="3"')" 0 "band 3 never reached"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$m" 2>&1); rc=$?
	is "$rc:$out" "0:" "promtool check metrics is silent on hsx"
else
	skip "promtool on hsx" "promtool not installed"
fi
topo=$(curl -s "http://127.0.0.1:$PORT/api/v1/topology")
like "$topo" '"unit":"cbo","description"' "topology lists the CBos"
like "$topo" '"event":"UNC_C_LLC_LOOKUP.ANY:filter0=0x7e0000:split=0/2"' "CBo counters hold the split lookups"
# this workload has 2 QPI ports: discovery's probes of port 2 and R3QPI
# link 2 find nothing, which is no hardware error (issue 15 item 11)
is "$(metric "$m" uncored_hw_errors_total "")" 0 "absent QPI port 2 / R3QPI link 2 are not hardware errors"
# a reload to [baseline] cbo = none drops the LLC families (the hsx
# defaults carry modifiers, so they were not recognised as CBo events)
printf '[daemon]\ninterval_ms = 200\n[baseline]\ncbo = none\n' >"$T/c.conf"
reload
for i in $(seq 1 50); do
	curl -s "http://127.0.0.1:$PORT/metrics" >"$T/m2"
	grep -q '^uncore_llc_lookups_total' "$T/m2" || break
	sleep 0.1
done
is "$(grep '^uncore_llc' "$T/m2")" "" "after a reload to cbo = none no uncore_llc_* series is left"
printf '[daemon]\ninterval_ms = 200\n' >"$T/c.conf"
reload
for i in $(seq 1 50); do
	curl -s "http://127.0.0.1:$PORT/metrics" | grep -q '^uncore_llc_hit_ratio' && break
	sleep 0.1
done

# claims on hsx boxes
S="$T/ctl.sock"
code() { curl -s -o "$T/body" -w '%{http_code}' --unix-socket "$S" "$@"; }
U=http://x/api/v1
is "$(code -X POST $U/claims -d '{"events":["UNC_C_TOR_OCCUPANCY.ALL","UNC_C_RxR_OCCUPANCY.IRQ"]}')" 409 \
	"two counter-0-only CBo occupancy events: 409"
is "$(code -X POST $U/claims -d '{"events":["UNC_C_LLC_LOOKUP.DATA_READ:filter0=0x20000","UNC_C_LLC_LOOKUP.WRITE:filter0=0x7e0000"]}')" 409 \
	"two FILTER0 values in the same CBos: 409"
like "$(cat "$T/body")" "cannot place together on cbo" "the reason names the box"
is "$(code -X POST $U/claims -d '{"events":["UNC_C_LLC_LOOKUP.DATA_READ:filter0=0x20000"],"ttl_s":30}')" 201 \
	"a claim sharing CBo FILTER0 with a different value"
is "$(code -X POST $U/claims -d '{"events":["UNC_H_REQUESTS.READS","UNC_H_REQUESTS.WRITES","UNC_H_REQUESTS.INVITOE_LOCAL","UNC_H_REQUESTS.INVITOE_REMOTE"],"ttl_s":30}')" 201 \
	"four HA events: all 4 HA counters"
is "$(code -X POST $U/claims -d '{"events":["UNC_M_CAS_COUNT.RD","UNC_M_CAS_COUNT.WR","UNC_M_ACT_COUNT.RD","UNC_M_PRE_COUNT.PAGE_MISS","UNC_M_RD_CAS_RANK0.BANK0"]}')" 409 \
	"five iMC events on 4 counters: 409"
sleep 2
c1=$(curl -s --unix-socket "$S" $U/claims/c1)
en=$(echo "$c1" | sed -n 's/.*"time_enabled_s":\([0-9.]*\).*/\1/p')
run=$(echo "$c1" | sed -n 's/.*"time_running_s":\([0-9.]*\).*/\1/p')
# Two groups share the CBo counters, so about half the time; ticks of
# unequal length (overruns on a loaded machine) skew the time ratio, hence
# the wide bounds - a claim that never runs (0) or never yields (1) fails.
ok "$(awk -v e="$en" -v r="$run" 'BEGIN { exit !(r > 0.15 * e && r < 0.85 * e) }'; echo $?)" \
	"the filter claim multiplexes with the baseline (running $run of $en s)"
sc=$(echo "$c1" | grep -o '"socket":0,"count":[0-9]*,"scaled":[0-9.e+]*' | sed 's/.*"scaled"://')
ok "$([ -n "$sc" ]; echo $?)" "the filter claim has a scaled count ($sc)"
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/m2"
near "$(metric "$T/m2" uncore_llc_hit_ratio 'socket="0"')" 0.90 0.01 "hit ratio unchanged while the claim runs"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
nz=""
for r in msr:0xe01 msr:0xe02 msr:0xe11 msr:0x711 msr:0x705; do
	v=$("$UNCORE_SIM" --platform hsx -w "$WL" -s "$T/state" read "$r")
	[ "$v" = 0x0 ] || nz="$nz $r=$v"
done
v=$("$UNCORE_SIM" --platform hsx -w "$WL" -s "$T/state" read pci:ff:14.0+0xd8)
[ "$v" = 0x0 ] || nz="$nz imc0-ctl0=$v"
is "$nz" "" "CBo, PCU, UBox and iMC control registers zero after SIGTERM"

# Box filters after a crash (issue 15 item 7): a claim's HA address
# match (Tables 2-66/2-67, HA0 D18:F1 +0x40/+0x44) and CBo FILTER1
# survive kill -9; the next start clears them with the controls, and a
# release clears what the claim set.
hafilt() {
	for r in pci:ff:12.1+0x40 pci:ff:12.1+0x44 msr:0xe06; do
		printf '%s=%s ' "$r" "$("$UNCORE_SIM" --platform hsx -w "$WL" -s "$T/st2" read "$r")"
	done
}
# (2 s ticks: the claim multiplexes with the baseline, and its filters
# stay as programmed for a whole tick)
printf '[daemon]\ninterval_ms = 2000\n' >"$T/c2.conf"
start_uncored "$T/log4" -c "$T/c2.conf" --simulate=hsx --workload "$WL" \
	--sim-state "$T/st2" -l "127.0.0.1:$PORT" -s "$T/ctl2.sock"
ok $? "daemon up for the filter recovery check"
S2=$T/ctl2.sock
is "$(curl -s -o "$T/body" -w '%{http_code}' --unix-socket "$S2" -X POST $U/claims \
	-d '{"events":["UNC_H_ADDR_OPC_MATCH.ADDR:filter0=0x12340:filter1=0x5","UNC_C_LLC_LOOKUP.ANY:filter1=0x3"]}')" 201 \
	"a claim with HA address-match and CBo FILTER1 values"
want="pci:ff:12.1+0x40=0x12340 pci:ff:12.1+0x44=0x5 msr:0xe06=0x3 "
for i in $(seq 1 100); do
	[ "$(hafilt)" = "$want" ] && break
	sleep 0.1
done
kill -9 "$UPID"; wait "$UPID" 2>/dev/null
is "$(hafilt)" "$want" "the filters are programmed when the daemon is killed"
start_uncored "$T/log5" -c "$T/c.conf" --simulate=hsx --workload "$WL" \
	--sim-state "$T/st2" -l "127.0.0.1:$PORT" -s "$T/ctl2.sock"
ok $? "restart after kill -9"
like "$(cat "$T/log5")" "did not exit cleanly" "stale ownership recognised"
is "$(hafilt)" "pci:ff:12.1+0x40=0x0 pci:ff:12.1+0x44=0x0 msr:0xe06=0x0 " \
	"recovery cleared the box filters the crashed daemon's claim set"
is "$(curl -s -o "$T/body" -w '%{http_code}' --unix-socket "$S2" -X POST $U/claims \
	-d '{"events":["UNC_H_ADDR_OPC_MATCH.ADDR:filter0=0x12340:filter1=0x5"]}')" 201 \
	"a new claim with HA filters"
id=$(sed -n 's/.*"id":"\(c[0-9]*\)".*/\1/p' "$T/body")
for i in $(seq 1 50); do
	case $(hafilt) in *"+0x40=0x12340 "*) break ;; esac
	sleep 0.1
done
curl -s -o /dev/null --unix-socket "$S2" -X DELETE "$U/claims/$id"
for i in $(seq 1 50); do
	case $(hafilt) in *"+0x40=0x0 "*) break ;; esac
	sleep 0.1
done
is "$(hafilt)" "pci:ff:12.1+0x40=0x0 pci:ff:12.1+0x44=0x0 msr:0xe06=0x0 " \
	"release clears the claim's filters"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"

# one socket, and a QPI port whose PCI function is missing (a hole:
# port 1 is there)
cat >"$T/one.json" <<'JSON'
{ "platform": "hsx", "sockets": 1, "cbo_count": 8, "imc_channels": 2, "qpi_ports": 2,
  "uclk_hz": 1500000000, "cores": 6,
  "phases": [ { "seconds": 600, "rates": {
      "pcu_cstate:UNC_P_CORE_CC6_CTR@5": 1.5e9, "pcu_cstate:UNC_P_CORE_CC6_CTR@0": 5.0e8,
      "cbo:0x34:0x11:filter0=0x7e0000": 1.6e8, "cbo:0x34:0x11:filter0=0x20000": 4.0e7,
      "imc:0x04:0x03": 6.25e7, "imc:0x04:0x0c": 3.125e7,
      "qpi:0x00:0x02": 1.25e8 } } ],
  "faults": [ { "at": 0, "kind": "device_missing", "target": "pci:ff:08.2" },
              { "at": 1.0, "kind": "device_missing", "target": "pci:ff:12.1" } ] }
JSON
P2=$(pick_port)
PORT=$P2 start_uncored "$T/log2" -c "$T/c.conf" --simulate=hsx --workload "$T/one.json" \
	-l "127.0.0.1:$P2" -s ""
ok $? "1 socket with QPI port 0 missing: daemon up"
sleep 1.5
curl -s "http://127.0.0.1:$P2/metrics" >"$T/m3"
sleep 1
curl -s "http://127.0.0.1:$P2/metrics" >"$T/m4"
near "$(rate uncore_pcu_cstate_residency_cycles_total 'socket="0",state="core_c6"' "$T/m3" "$T/m4")" \
	2.0e9 0.02 "6 cores, C6 on core 5 (1.5e9/s) and core 0 (5e8/s): the socket sums 2e9/s"
near "$(metric "$T/m3" uncore_llc_hit_ratio 'socket="0"')" 0.75 0.01 "1 socket: hit ratio 0.75"
near "$(metric "$T/m3" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" 4.0e9 0.01 \
	"1 socket: DRAM read 4 GB/s over 2 channels"
near "$(metric "$T/m3" uncore_clock_hertz 'socket="0"')" 1.5e9 0.01 "1 socket: 1.5 GHz"
is "$(grep -c 'socket="1"' "$T/m3")" 0 "no second socket"
is "$(grep -c '^uncore_qpi_data_bytes_total{socket="0",port="0"}' "$T/m3")" 0 "missing QPI port 0 exports nothing"
near "$(metric "$T/m3" uncore_qpi_data_bytes_total 'socket="0",port="1"' | awk '{ print ($1 > 0) }')" 1 0 \
	"QPI port 1 still counts"
topo=$(curl -s "http://127.0.0.1:$P2/api/v1/topology")
like "$topo" '"unit":"qpi"' "topology has the QPI unit"
qpi=$(echo "$topo" | grep -o '"unit":"qpi",.*' | sed 's/"unit":"qpi_link".*//')
like "$qpi" '"instance":0,"available":false' "QPI port 0 reported unavailable"
like "$qpi" '"instance":1,"available":true' "QPI port 1 available"
# HA 0 (pci ff:12.1) went missing at 1 s: unavailable, and its failing
# reads are logged once, not on every tick
sleep 1
ha=$(curl -s "http://127.0.0.1:$P2/api/v1/topology" | grep -o '"unit":"ha",.*' | sed 's/"unit":"imc".*//')
like "$ha" '"instance":0,"available":false' "a box gone missing at run time is reported unavailable"
like "$ha" '"instance":1,"available":true' "its sibling still available"
n=$(grep -c 'device_missing' "$T/log2")
ok "$([ "$n" -ge 1 ] && [ "$n" -le 3 ]; echo $?)" "the missing box is logged once, not every tick ($n lines in ~1.5 s at 5 ticks/s)"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
tap_done
