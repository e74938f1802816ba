#!/bin/bash
# perf_pmu_gone.sh - a kernel PMU that goes away while the daemon runs
# (issue 27 item 6), on the perf backend over the simulated kernel: spr
# with uncore_imc_1 unloaded at 6 s (the simulated kernel's pmu_gone
# fault).  Before, nothing was logged, /api/v1/status perf.missing_units
# stayed empty, every later sample was invalid and the socket's DRAM
# gauges vanished, SIGHUP did not look again, and one limit for every
# failed read hid all but the first of the run.  Now it goes the way a
# PMU missing at start-up goes: logged once with the unit, the PMU and
# the errno, listed in missing_units, its channel's families absent while
# the socket's DRAM families go on from the other channels, and every
# sample after the one in which it went is valid; a failed read is
# logged per unit and errno; SIGHUP looks for the PMU again - still gone,
# or (a second daemon, whose PMU comes back 3 s later) back and counted.
. "${top_srcdir:-.}/tests/lib.sh"

command -v jq >/dev/null || { echo "1..0 # SKIP needs jq"; exit 77; }

# gone_run NAME SECONDS: an spr daemon whose uncore_imc_1 goes at 6 s,
# for SECONDS (0: for good), with 2 failed reads (EIO) of uncore_cha_0
# at 7 s; per socket 1.6e8 CAS reads/s over 8 channels (10.24 GB/s).
gone_run() {
	name=$1
	back=
	[ "$2" != 0 ] && back=", \"seconds\": $2"
	cat >"$T/$name.json" <<JSON
{ "platform": "spr", "sockets": 2, "phases": [ { "seconds": 600, "rates": {
  "imc:0x05:0xcf": 1.6e8, "imc:0x05:0xf0": 8.0e7, "cha:0x00:0x00": 2.0e9 } } ],
  "faults": [
    { "at": 7, "kind": "perf_read_error", "target": "uncore_cha_0", "errno": "EIO", "count": 2 },
    { "at": 6, "kind": "pmu_gone", "target": "uncore_imc_1"$back } ] }
JSON
	PORT=$(pick_port)
	start_uncored "$T/$name.log" --simulate=spr --backend=perf \
		--workload "$T/$name.json" -i 100 -l "127.0.0.1:$PORT" -s ""
	ok $? "$name: spr daemon up on the simulated kernel"
}
# missing: perf.missing_units of /api/v1/status into $miss
missing() {
	miss=$(curl -fs "http://127.0.0.1:$PORT/api/v1/status" |
		jq -r '.perf.missing_units')
}
has_missing() { missing && case $miss in *"$1"*) return 0 ;; esac; return 1; }

notify_start
gone_run gone 0
# The PMU goes at 6 s of the simulated machine's time: the daemon is
# counting then (its group's reads fail, ENODEV), or about to open the
# group (ENOENT, its directory gone), or - where a loaded machine took
# longer to start it - it finds the PMU missing at start-up: the same
# outcome, found sooner.
wait_for "gone: imc 1 in missing_units" 60 has_missing "imc 1 on socket 0"
ok $? "gone: /api/v1/status perf.missing_units names it: $miss"
runtime=
if grep -q "PMU uncore_imc_1 on CPU 0 went away" "$T/gone.log"; then
	runtime=1
	like "$miss" "uncore_imc_1 on CPU 0 (imc 1 on socket 0: went away at run time, EN" \
		"gone: ... with the unit it counted and the errno"
	if grep -q "went away (reading its group" "$T/gone.log"; then
		like "$(cat "$T/gone.log")" \
			"perf: the kernel's PMU uncore_imc_1 on CPU 0 went away (reading its group: No such device, ENODEV): no longer counting imc 1 on socket 0" \
			"gone: logged with the PMU, the unit and the errno"
	else
		like "$(cat "$T/gone.log")" \
			"perf: the kernel's PMU uncore_imc_1 on CPU 0 went away (opening a group on it: No such file or directory, ENOENT): no longer counting imc 1 on socket 0" \
			"gone: logged with the PMU, the unit and the errno (gone before its group opened)"
	fi
else
	like "$(cat "$T/gone.log")" "the kernel has no PMU for: imc 1 on socket 0 (no uncore_imc_%u box)" \
		"gone: (missing at start-up on this loaded machine) logged as missing"
	skip "gone: ... with the unit it counted and the errno" "missing at start-up"
fi
# Every sample is valid once the failed reads are over (the ENODEV of
# each socket's uncore_imc_1 where its reads found it gone, then the 2
# EIO of uncore_cha_0) and the program without the lost PMU runs: the
# invalid samples stop (ten valid in a row), and the next ten are valid.
nodev=$(grep -c "went away (reading its group" "$T/gone.log")
wait_for "gone: the failed reads" 30 \
	metric_ge "$PORT" uncored_perf_read_errors_total "" $((nodev + 2))
[ -n "$runtime" ] && wait_for "gone: the baseline without it" 30 status_ge "$PORT" program 2
settled() {
	_b=$(status_num "$PORT" invalid_samples)
	wait_samples "$PORT" 10 >/dev/null &&
		[ "$(status_num "$PORT" invalid_samples)" = "$_b" ]
}
wait_for "gone: ten valid samples in a row" 60 settled
h0=$(ring_head "$PORT")
bad0=$(status_num "$PORT" invalid_samples)
wait_samples "$PORT" 10
valid_since() {
	curl -fs "http://127.0.0.1:$PORT/api/v1/samples?since=$1&limit=3600&deltas=0" |
		jq -e '[.samples[] | .valid] | all and length > 0' >/dev/null
}
ok "$(valid_since "$h0"; echo $?)" "gone: every sample since is valid"
is "$(status_num "$PORT" invalid_samples)" "$bad0" \
	"gone: uncored_invalid_samples stays at $bad0 (the first, the failed cha reads, the tick it went)"
scrape "$PORT" "$T/gone.prom"
near "$(metric "$T/gone.prom" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" \
	8.96e9 0.03 "gone: socket 0 DRAM read from the other 7 channels: 8.96 GB/s"
near "$(metric "$T/gone.prom" uncore_dram_bandwidth_bytes_per_second 'socket="1",direction="read"')" \
	8.96e9 0.03 "gone: socket 1 too (its uncore_imc_1 went as well)"
is "$(grep -c 'channel="1"' "$T/gone.prom")" 0 "gone: channel 1's families are absent"
ok "$(grep -q 'uncore_dram_channel_read_bytes_total{socket="0",channel="0"}' "$T/gone.prom"; echo $?)" \
	"gone: channel 0's are served"
is "$(grep -c 'PMU uncore_imc_1 on CPU 0 went away' "$T/gone.log")" \
	"$(grep -c 'went away at run time' <<EOF
$miss
EOF
)" "gone: logged once, not at every tick"
# failed reads are logged per unit and errno: uncore_imc_1's ENODEV
# at 6 s does not hide the EIO of uncore_cha_0 a second later.  Its 2
# failed reads are the next 2 of uncore_cha_0 on either CPU: where 7 s
# falls inside a tick's reads (which take longer the more groups there
# are, and on a loaded machine), CPU 0's group was read before it and
# CPU 8's fails first, CPU 0's a tick later within the same limit; so
# whichever CPU is logged, the EIO must be.
if [ "$nodev" -gt 0 ]; then
	like "$(cat "$T/gone.log")" "reading imc (uncore_imc_1 on CPU 0)" \
		"gone: the failed imc read is logged"
else
	skip "gone: the failed imc read is logged" \
		"the PMU was gone before its first read (a loaded machine)"
fi
like "$(grep 'reading cha (uncore_cha_0 on CPU [0-9]*)' "$T/gone.log")" "Input/output error" \
	"gone: and so is the cha read that failed within the same minute, with its errno"
topo=$(curl -fs "http://127.0.0.1:$PORT/api/v1/topology")
is "$(jq -c '[.sockets[0].units[] | select(.unit == "imc") | .instance_list[1].available]' <<EOF
$topo
EOF
)" "[false]" "gone: /api/v1/topology: imc box 1 unavailable"
# SIGHUP looks for it again: still gone
reload
ok $? "gone: SIGHUP reloads"
if [ -n "$runtime" ]; then
	like "$(cat "$T/gone.log")" "SIGHUP: perf: uncore_imc_1 is still gone" \
		"gone: SIGHUP looked for it again: still gone"
else
	skip "gone: SIGHUP looked for it again: still gone" "missing at start-up"
fi
has_missing "imc 1 on socket 0"
ok $? "gone: still in missing_units"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "gone: clean stop"

# ---- the PMU comes back 3 s later (a driver loaded again, under a new
# type number): SIGHUP finds it, and its channel is counted again
gone_run back 3
wait_for "back: imc 1 in missing_units" 60 has_missing "imc 1 on socket 0"
if [ $? = 0 ] && grep -q "PMU uncore_imc_1 on CPU 0 went away" "$T/back.log"; then
	ok 0 "back: the daemon saw it go"
	skroot=$(curl -fs "http://127.0.0.1:$PORT/api/v1/status" | jq -r '.perf.sysfs')
	wait_for "back: the PMU back in the simulated sysfs" 60 \
		test -e "$skroot/bus/event_source/devices/uncore_imc_1"
	ok $? "back: the simulated kernel loaded it again"
	reload
	like "$(cat "$T/back.log")" "SIGHUP: perf: uncore_imc_1 is back: imc 1 on socket 0, imc 1 on socket 1 counted again" \
		"back: SIGHUP found it"
	wait_for "back: missing_units empty again" 30 sh -c \
		"curl -fs http://127.0.0.1:$PORT/api/v1/status | jq -e '.perf.missing_units == \"\"' >/dev/null"
	ok $? "back: missing_units is empty again"
	chan1() {
		scrape "$PORT" "$T/back.prom" &&
			grep -q 'uncore_dram_channel_bandwidth_bytes_per_second{socket="0",channel="1",direction="read"}' "$T/back.prom"
	}
	wait_for "back: channel 1 served again" 30 chan1
	ok $? "back: channel 1's families are back"
	wait_samples "$PORT" 3
	scrape "$PORT" "$T/back.prom"
	near "$(metric "$T/back.prom" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" \
		1.024e10 0.03 "back: socket 0 DRAM read from all 8 channels: 10.24 GB/s"
else
	for d in "the daemon saw it go" "the simulated kernel loaded it again" \
		 "SIGHUP found it" "missing_units is empty again" \
		 "channel 1's families are back" "socket 0 DRAM read from all 8 channels"; do
		skip "back: $d" "the daemon started after the PMU had gone (a loaded machine)"
	done
fi
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "back: clean stop"
tap_done
