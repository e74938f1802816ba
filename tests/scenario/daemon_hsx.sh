#!/bin/bash
# daemon_hsx.sh - the daemon on the simulated Xeon E5/E7 v3 (hsx): every
# baseline metric against a 2-socket workload with known answers (LLC hit
# ratio through the split FILTER0 solution, DRAM per socket and per
# channel, uncore clock, QPI per port, HA locality, PCU C-states and
# frequency bands), a 1-socket machine, a missing QPI port (reported
# unavailable, the rest works), claims on hsx boxes (4 counters,
# counter-0-only occupancy events, shared filters) and a clean release.
# On the perf backend (UNCORED_TEST_BACKEND=perf) the same answers come
# through the simulated kernel; what lives in registers (controls zero
# after a stop, box filters across kill -9) is the direct backend's only.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/xeon.sh"

notify_start
xeon_start hsx
xeon_answers hsx 2.0e9
m=$T/m1
near "$(metric "$m" uncore_dram_bandwidth_bytes_per_second 'socket="1",direction="write"')" 2.0e9 0.01 "s1 DRAM write 2 GB/s"
near "$(metric "$m" uncore_dram_channel_bandwidth_bytes_per_second 'socket="1",channel="3",direction="write"')" 5.0e8 0.01 \
	"s1 channel 3 write gauge 0.5 GB/s"
# the same per instance in each sample (what the live page draws; sed
# finds the last socket's) as the gauge on /metrics of the same tick: the
# sample's "time" is its tick's, the page's uncored_last_tick_timestamp_
# seconds its.  Both come from one curl (one process, one connection),
# retried until they are of one tick.  (Three curls in a row straddled a
# 200 ms tick in 100 tries in a row under the suite's own load; and it
# was once held against the rate over the whole window, at 2 %: one
# tick's rate on a loaded machine is further off than that.)
for try in $(seq 1 100); do
	curl -s -o "$T/smp" "http://127.0.0.1:$PORT/api/v1/samples?limit=1&deltas=0" \
		-o "$T/s1" "http://127.0.0.1:$PORT/metrics"
	smp=$(cat "$T/smp")
	st=$(echo "$smp" | sed -n 's/.*"samples":\[{"seq":[0-9]*,"time":\([0-9.e+]*\),.*/\1/p')
	pt=$(metric "$T/s1" uncored_last_tick_timestamp_seconds "")
	[ -n "$st" ] && [ -n "$pt" ] &&
		awk -v x="$st" -v y="$pt" 'BEGIN { exit !(x - y < 1e-6 && y - x < 1e-6) }' && break
done
near "$(echo "$smp" | sed 's/.*"channel":2,"dram_read_bytes_per_second":\([0-9.e+-]*\).*/\1/')" \
	"$(metric "$T/s1" uncore_dram_channel_bandwidth_bytes_per_second 'socket="1",channel="2",direction="read"')" 1e-6 \
	"samples: s1 channel 2 read as in /metrics (the same tick)"
near "$(echo "$smp" | sed 's/.*"port":1,"qpi_data_bytes_per_second":\([0-9.e+-]*\).*/\1/')" \
	"$(metric "$T/s1" uncore_qpi_data_bandwidth_bytes_per_second 'socket="1",port="1"')" 1e-6 \
	"samples: s1 QPI port 1 data as in /metrics (the same tick)"
rr=$(rate uncore_ha_requests_total 'socket="0",type="read",locality="remote"')
rl=$(rate uncore_ha_requests_total 'socket="0",type="read",locality="local"')
near "$(awk -v r="$rr" -v l="$rl" 'BEGIN { print r / (r + l) }')" 0.25 0.02 "s0 HA reads 25% remote"
# 2.5.4 PCT_RD_REQUESTS: reads 1.25e8/s, writes 6.25e7/s (all local)
near "$(metric "$m" uncore_ha_read_requests_ratio 'socket="0"')" 0.6667 0.01 \
	"s0 HA read share 1.25e8 / (1.25e8 + 6.25e7)"
like "$(curl -s "http://127.0.0.1:$PORT/api/v1/metrics")" '"ha_read_requests_ratio":0.66' \
	"the same in /api/v1/metrics"
b0=$(rate uncore_pcu_frequency_band_cycles_total 'socket="0",band="0"')
b2=$(rate uncore_pcu_frequency_band_cycles_total 'socket="0",band="2"')
near "$(awk -v a="$b2" -v b="$b0" 'BEGIN { print a / b }')" 0.25 0.02 "PCU band 2 cycles 25% of band 0"
is "$(metric "$m" uncore_pcu_frequency_band_cycles_total 'socket="0",band="3"')" 0 "band 3 never reached"
topo=$(curl -s "http://127.0.0.1:$PORT/api/v1/topology")
like "$topo" '"event":"UNC_C_LLC_LOOKUP.ANY:filter0=0x7e0000:split=0/2"' "CBo counters hold the split lookups"
# this workload has 2 QPI ports: discovery's probes of port 2 and R3QPI
# link 2 find nothing, which is no hardware error (issue 15 item 11)
is "$(metric "$m" uncored_hw_errors_total "")" 0 "absent QPI port 2 / R3QPI link 2 are not hardware errors"

# claims on hsx boxes
code() { ctl_code "$T/ctl.sock" "$@"; }
U=http://x/api/v1
is "$(code -X POST $U/claims -d '{"events":["UNC_C_TOR_OCCUPANCY.ALL","UNC_C_RxR_OCCUPANCY.IRQ"]}')" 409 \
	"two counter-0-only CBo occupancy events: 409"
is "$(code -X POST $U/claims -d '{"events":["UNC_C_LLC_LOOKUP.DATA_READ:filter0=0x20000","UNC_C_LLC_LOOKUP.WRITE:filter0=0x7e0000"]}')" 409 \
	"two FILTER0 values in the same CBos: 409"
like "$(cat "$T/body")" "cannot place together on cbo" "the reason names the box"
is "$(code -X POST $U/claims -d '{"events":["UNC_C_LLC_LOOKUP.DATA_READ:filter0=0x20000"],"ttl_s":600}')" 201 \
	"a claim sharing CBo FILTER0 with a different value"
C1=$(sed -n 's/.*"id":"\([^"]*\)".*/\1/p' "$T/body")
is "$(code -X POST $U/claims -d '{"events":["UNC_H_REQUESTS.READS","UNC_H_REQUESTS.WRITES","UNC_H_REQUESTS.INVITOE_LOCAL","UNC_H_REQUESTS.INVITOE_REMOTE"],"ttl_s":30}')" 201 \
	"four HA events: all 4 HA counters"
is "$(code -X POST $U/claims -d '{"events":["UNC_M_CAS_COUNT.RD","UNC_M_CAS_COUNT.WR","UNC_M_ACT_COUNT.RD","UNC_M_PRE_COUNT.PAGE_MISS","UNC_M_RD_CAS_RANK0.BANK0"]}')" 409 \
	"five iMC events on 4 counters: 409"
# The claims' share of the counters once they run beside the baseline:
# over 10 ticks, after 5 to settle.  (Least-served first once weighed the
# baseline's whole life against the claim's first ticks: the claim took
# 0.92-1.00 of the time when the daemon had run long before it, as under
# the suite's load; service is now recent - test_sampler's test_join.)
claim_times() {
	curl -s --unix-socket "$T/ctl.sock" "$U/claims/$C1" >"$T/c1"
	sed -n 's/.*"time_enabled_s":\([0-9.]*\).*"time_running_s":\([0-9.]*\).*/\1 \2/p' "$T/c1"
}
wait_samples "$PORT" 5
t0=$(claim_times)
wait_samples "$PORT" 10
t1=$(claim_times)
c1=$(cat "$T/c1")
# Two groups share the CBo counters, so about half the time; ticks of
# unequal length (overruns on a loaded machine) skew the time ratio, hence
# the wide bounds - a claim that never runs (0) or never yields (1) fails.
# The baseline brings T0 seconds at 100 % from before the claim, so while
# the two even out the claim runs t - t^2/(2t + T0) of its first t
# seconds: more than half, the more so the longer the daemon ran before
# (0.85 seen on a loaded machine, T0 near 30 s).
share=$(echo "$t0 $t1" | awk '{ printf "%.3f", ($4 - $2) / ($3 - $1) }')
ok "$(awk -v r="$share" 'BEGIN { exit !(r > 0.15 && r < 0.95) }'; echo $?)" \
	"the filter claim multiplexes with the baseline (running $share of the time over 10 ticks: $t0 -> $t1)"
sc=$(jq -r '.events[0].sockets[0].scaled // empty' "$T/c1")
ok "$(awk -v s="$sc" 'BEGIN { exit !(s + 0 > 0) }'; echo $?)" "the filter claim has a scaled count ($sc)"
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/m2"
near "$(metric "$T/m2" uncore_llc_hit_ratio 'socket="0"')" 0.90 0.01 "hit ratio unchanged while the claim runs"
# a reload to [baseline] cbo = none drops the LLC families (the hsx
# defaults carry modifiers, so they were not recognised as CBo events)
printf '[daemon]\ninterval_ms = 200\n[baseline]\ncbo = none\n' >"$T/c.conf"
reload_program "$PORT"
scrape "$PORT" "$T/m2"
is "$(grep '^uncore_llc' "$T/m2")" "" "after a reload to cbo = none no uncore_llc_* series is left"
printf '[daemon]\ninterval_ms = 200\n' >"$T/c.conf"
reload_program "$PORT"
ok $? "a reload back to the default baseline runs a new program"
perf_mode && perf_groups_before_stop
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
if perf_mode; then
	skip "control registers zero after SIGTERM" "direct backend only"
else
	# pci:ff:14.0+0xd8: iMC 0 channel 0 control 0
	is "$(sim_nonzero hsx "$WL" "$T/state" msr:0xe01 msr:0xe02 msr:0xe11 msr:0x711 msr:0x705 pci:ff:14.0+0xd8)" "" \
		"CBo, PCU, UBox and iMC control registers zero after SIGTERM"
fi

# Box filters after a crash (issue 15 item 7): a claim's HA address
# match (Tables 2-66/2-67, HA0 D18:F1 +0x40/+0x44) and CBo FILTER1
# survive kill -9; the next start clears them with the controls, and a
# release clears what the claim set.  (Registers and ownership: the
# direct backend's only; in perf mode the kernel holds the filters in
# the events' config1/config2 and drops them with the events.)
filter_recovery() {
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
hafilt_is() { [ "$(hafilt)" = "$1" ]; }
# The daemon is looked at stopped (SIGSTOP), and killed stopped once its
# registers hold the claim's filters: the three registers are read by
# three uncore-sim runs, which under load (ASan, load 20) took longer
# than the claim's 2 s turn, so a look at a running daemon never saw all
# three at once (10 x 30 s in a clean clone's loaded run).
stopped_with_filters() {
	kill -STOP "$UPID"
	hafilt_is "$want" && return 0
	kill -CONT "$UPID"	# its timer's expirations tick at once
	return 1
}
wait_for "the claim's filters programmed" 120 stopped_with_filters
kill -9 "$UPID"; wait "$UPID" 2>/dev/null
is "$(hafilt)" "$want" "the filters are programmed when the daemon is killed"
start_uncored "$T/log5" -c "$T/c.conf" --simulate=hsx --workload "$WL" \
	--sim-state "$T/st2" -l "127.0.0.1:$PORT" -s "$T/ctl2.sock"
ok $? "restart after kill -9"
like "$(cat "$T/log5")" "did not exit cleanly" "stale ownership recognised"
# (CBo FILTER1 then holds the baseline's own value, the memory read
# latency's opcode match 0x182 << 20: the claim's 0x3 is gone)
is "$(hafilt)" "pci:ff:12.1+0x40=0x0 pci:ff:12.1+0x44=0x0 msr:0xe06=0x18200000 " \
	"recovery cleared the box filters the crashed daemon's claim set"
is "$(curl -s -o "$T/body" -w '%{http_code}' --unix-socket "$S2" -X POST $U/claims \
	-d '{"events":["UNC_H_ADDR_OPC_MATCH.ADDR:filter0=0x12340:filter1=0x5"]}')" 201 \
	"a new claim with HA filters"
id=$(sed -n 's/.*"id":"\(c[0-9]*-[0-9a-z]*\)".*/\1/p' "$T/body")
hafilt_has() { case $(hafilt) in *"$1"*) return 0 ;; esac; return 1; }
wait_for "the new claim's HA match programmed" 30 hafilt_has "+0x40=0x12340 "
curl -s -o /dev/null --unix-socket "$S2" -X DELETE "$U/claims/$id"
clear="pci:ff:12.1+0x40=0x0 pci:ff:12.1+0x44=0x0 msr:0xe06=0x18200000 "
wait_for "the released claim's filters cleared" 30 hafilt_is "$clear"
is "$(hafilt)" "$clear" "release clears the claim's filters"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
}
if perf_mode; then
	skip "box filters survive kill -9, recovery and release clear them" \
		"direct backend only"
else
	filter_recovery
fi

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
              { "at": 3.0, "kind": "device_missing", "target": "pci:ff:12.1" } ] }
JSON
t_one=$(date +%s.%N)	# the simulation of one.json starts after this
xeon_one_socket hsx "$T/one.json" 1.5e9
wait_samples "$P2" 5
scrape "$P2" "$T/m4"
near "$(rate uncore_pcu_cstate_residency_cycles_total 'socket="0",state="core_c6"' "$T/m3" "$T/m4")" \
	2.0e9 0.02 "6 cores, C6 on core 5 (1.5e9/s) and core 0 (5e8/s): the socket sums 2e9/s"
# HA 0 (pci ff:12.1) goes missing 3 s into the simulation: unavailable,
# and its failing reads are logged once, not on every tick
ha_gone() {
	unit_json "$(curl -s "http://127.0.0.1:$P2/api/v1/topology")" ha >"$T/ha"
	has "$T/ha" '"box":0,"available":false'
}
wait_for "HA 0 reported unavailable" 30 ha_gone
like "$(cat "$T/ha")" '"box":0,"available":false' "a box gone missing at run time is reported unavailable"
like "$(cat "$T/ha")" '"box":1,"available":true' "its sibling still available"
wait_samples "$P2" 8
# (perf: the kernel's ENODEV, logged naming the box's PMU)
if perf_mode; then n=$(grep -c 'uncore_ha_0 on CPU 0' "$T/log2")
else n=$(grep -c 'device_missing' "$T/log2"); fi
# The simulation's clock starts when the daemon opens the machine, not
# when it has looked at it: on a loaded machine the 3 s can pass before
# discovery, and then HA 0 was never there (as QPI port 0) - nothing
# failed at run time to log.  The daemon logs its platform line once
# discovery is done: if that came within 3 s of the daemon's start
# (which is before the simulation's), HA 0 went missing at run time.
t_plat=$(sed -n 's/^\([^ ]*\) uncored: info: uncored .*: platform hsx .*/\1/p' "$T/log2" | head -1)
if awk -v a="$t_one" -v b="$(date -d "$t_plat" +%s.%N 2>/dev/null)" \
	'BEGIN { exit !(b != "" && b + 0.001 - a < 3.0) }'; then
	ok "$([ "$n" -ge 1 ] && [ "$n" -le 3 ]; echo $?)" \
		"the missing box is logged once, not every tick ($n lines, 8 ticks after it went)"
else
	skip "the missing box is logged once, not every tick" \
		"the daemon's discovery ended over 3 s after its start (at $t_plat): HA 0 may have gone before ($n lines)"
fi
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
tap_done
