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
# On the perf backend (UNCORED_TEST_BACKEND=perf) the same answers come
# through the simulated kernel; what lives in registers (a foreign write
# to a control, controls zero after a stop) is the direct backend's only.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/xeon.sh"

xeon_start snbep
xeon_answers snbep 2.4e9
m=$T/m1
near "$(rate uncore_ha_requests_total 'socket="0",type="read",locality="any"')" 1.25e8 0.02 "s0 HA reads 1.25e8/s"
near "$(rate uncore_ha_requests_total 'socket="1",type="write",locality="any"')" 3.125e7 0.02 "s1 HA writes 3.125e7/s"
is "$(grep -c 'locality="local"' "$m")" 0 "no local/remote split on snbep"
near "$(rate uncore_pcu_cstate_residency_cycles_total 'socket="0",state="core_c3"')" 1.0e8 0.02 \
	"s0 core C3 residency 1e8/s"
near "$(rate uncore_pcu_frequency_band_cycles_total 'socket="0",band="0"')" 8.0e8 0.02 \
	"PCU band 0 cycles 8e8/s (the band filter holds the baseline's bands)"
is "$(metric "$m" uncored_hw_errors_total "")" 0 "no hardware errors"
is "$(metric "$m" uncored_interference_total "")" 0 "no interference without a global control to compare"
topo=$(curl -s "http://127.0.0.1:$PORT/api/v1/topology")
like "$topo" '"event":"UNC_C_LLC_LOOKUP.DATA_READ:filter0=0x7c0000:split=0/2"' "CBo counters hold the split lookups"

# Another agent clears a counter control the daemon programmed (CBo 0's
# CTL0 or CTL1 on socket 1, whichever holds a baseline event): seen by
# the control read-back, with no global control to watch.  Before any
# claim: a claim that starts running makes the next tick reprogram every
# control, which can overwrite the foreign value before the read-back
# sees it (a race of the sampler, not of the platform).
foreign_write() {
	reg=
	for r in msr:0xd10@8 msr:0xd11@8; do
		v=$("$UNCORE_SIM" --platform snbep -w "$WL" -s "$T/state" read "$r")
		[ "$v" != 0x0 ] && { reg=$r; break; }
	done
	ok "$([ -n "$reg" ]; echo $?)" "the daemon programmed CBo 0 on socket 1 ($reg)"
	"$UNCORE_SIM" --platform snbep -w "$WL" -s "$T/state" write "${reg:-msr:0xd10@8}" 0x0 >/dev/null
	ok $? "foreign write of $reg"
	wait_for "the interference counted" 30 metric_ge "$PORT" uncored_interference_total "" 1
	n=$(metric_now "$PORT" uncored_interference_total "")
	ok "$([ "${n:-0}" -gt 0 ]; echo $?)" "interference counted ($n)"
	like "$(cat "$T/log")" "changed behind our back" "interference logged"
}
if perf_mode; then
	skip "a foreign write to a counter control is detected" "direct backend only"
else
	foreign_write
fi

# the UBox filter events need a register no source gives: refused
code() { ctl_code "$T/ctl.sock" "$@"; }
U=http://x/api/v1
is "$(code -X POST $U/claims -d '{"events":["UNC_U_FILTER_MATCH.ENABLE"]}')" 400 \
	"UBox FILTER_MATCH.ENABLE (needs UBoxFilter) refused"
like "$(cat "$T/body")" "filter register" "the reason names the missing filter register"
is "$(code -X POST $U/claims -d '{"events":["UNC_C_TOR_OCCUPANCY.ALL","UNC_C_RxR_OCCUPANCY.IRQ"]}')" 409 \
	"two counter-0-only CBo occupancy events: 409"
is "$(code -X POST $U/claims -d '{"events":["UNC_R3_CLOCKTICKS","UNC_Q_CLOCKTICKS"],"ttl_s":30}')" 201 \
	"a claim on the R3QPI and QPI boxes"

perf_mode && perf_groups_before_stop
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
if perf_mode; then
	skip "controls and filters zero after SIGTERM" "direct backend only"
else
	nz=$(sim_nonzero snbep "$WL" "$T/state" msr:0xd10 msr:0xd11 msr:0xd30 msr:0xc30 msr:0xc10 \
		msr:0xc08 msr:0xd14 msr:0xc34 msr:0xd10@8 pci:ff:10.0+0xd8 pci:ff:10.0+0xf0 \
		pci:ff:0e.1+0xd8 pci:df:08.2+0xd8 pci:df:13.5+0xd8)
	is "$nz" "" "CBo, PCU, UBox, iMC, HA, QPI and R3QPI controls and filters zero after SIGTERM"
fi

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
xeon_one_socket snbep "$T/one.json" 2.0e9
is "$(unit_json "$TOPO" cbo | grep -o '"box":[0-9]*' | sort -u | wc -l)" 6 \
	"6 cores: 6 CBos"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
tap_done
