#!/bin/sh
# perf_backend.sh - the perf backend (doc/design.md section 3, "perf") on the
# simulated kernel, with known workloads: the headline families of every
# perf platform within 3 % of what the workload plays, with the
# generation's own DRAM encodings (the others play decoy rates that a
# wrong encoding would count); the status, log and build_info naming the
# backend; least privilege (no device open, only CAP_PERFMON left);
# another perf user's multiplexing scaled and flagged; a missing PMU and
# a PMU unloaded under the daemon reported with their families absent
# while the rest serves; refusals with what is missing; and the real
# kernel of this machine, which has no uncore PMU.
. "${top_srcdir:-.}/tests/lib.sh"

# perf_run NAME PLATFORM WORKLOAD-JSON [ARGS...]: starts the daemon on the
# simulated kernel with that workload, -i 200, and waits for 4 samples.
perf_run() {
	name=$1 plat=$2; shift 2
	printf '%s\n' "$1" >"$T/$name.json"; shift
	PORT=$(pick_port)
	start_uncored "$T/$name.log" --simulate="$plat" --backend=perf \
		--workload "$T/$name.json" -i 200 -l "127.0.0.1:$PORT" -s "" "$@"
	ok $? "$name: daemon starts with --backend=perf"
	wait_for "$name: 4 samples" 60 ring_has "$PORT" 4
	curl -s "http://127.0.0.1:$PORT/metrics" >"$T/$name.prom"
}

# bw SOCKET DIRECTION: the DRAM bandwidth gauge of the last scrape.
bw() { metric "$T/$name.prom" uncore_dram_bandwidth_bytes_per_second "socket=\"$1\",direction=\"$2\""; }

# headline RD WR HIT CLK: checks both sockets' DRAM read/write B/s, LLC
# hit ratio and uncore clock (CLK empty: the platform has none) at 3 %.
headline() {
	for s in 0 1; do
		near "$(bw $s read)" "$1" 0.03 "$name: socket $s DRAM read $1 B/s"
		near "$(bw $s write)" "$2" 0.03 "$name: socket $s DRAM write $2 B/s"
		near "$(metric "$T/$name.prom" uncore_llc_hit_ratio "socket=\"$s\"")" \
			"$3" 0.03 "$name: socket $s LLC hit ratio $3"
		if [ -n "$4" ]; then
			near "$(metric "$T/$name.prom" uncore_clock_hertz "socket=\"$s\"")" \
				"$4" 0.03 "$name: socket $s uncore clock $4 Hz"
		fi
	done
}

stop_uncored() { kill "$UPID"; wait "$UPID" 2>/dev/null; }

# ---- Skylake-SP: CAS 0x04/0x03 and 0x04/0x0c; ICX and SPR encodings play
# decoys.  LLC: TOR_INSERTS.IA / .IA_MISS with FILTER1 at every opcode
# (config1 0x3b << 32; hit = 1 - 4/20); the state-filtered LLC_LOOKUP
# and the TOR events without their FILTER1 play decoys.  The CHA clock is each CHA's; the workload gives the socket's
# total over 28 CHAs.
perf_run skx skx '{ "platform": "skx", "sockets": 2, "cha_count": 28, "phases": [ { "seconds": 60, "rates": {
  "imc:0x04:0x03": 1.0e8, "imc:0x04:0x0c": 5.0e7,
  "imc:0x04:0x0f": 3.0e8, "imc:0x04:0x30": 2.0e8, "imc:0x05:0xcf": 4.0e8,
  "cha:0x35:0x31:filter0=0x3b00000000": 2.0e8, "cha:0x35:0x21:filter0=0x3b00000000": 4.0e7,
  "cha:0x34:0x03:filter0=0x1e20000": 9.0e8, "cha:0x34:0x03:filter0=0x20000": 1.0e6,
  "cha:0x35:0x31:filter0=0x0": 9.0e8, "cha:0x35:0x21:filter0=0x0": 1.0e6,
  "cha:0x00:0x00": 6.72e10 } } ] }'
headline 6.4e9 3.2e9 0.8 2.4e9
st=$(curl -s "http://127.0.0.1:$PORT/api/v1/status")
like "$st" '"backend":"perf","simulated":true' "status: perf backend on the simulator"
like "$st" '"backend_reason":"--backend=perf' "status: why"
like "$(cat "$T/skx.prom")" 'uncored_build_info{version=' "build_info present"
like "$(grep '^uncored_build_info' "$T/skx.prom")" 'backend="perf",simulated="true"' \
	"build_info names the backend"
like "$(cat "$T/skx.log")" "platform skx (perf backend, simulator), 2 sockets" \
	"the start-up line names the backend"
like "$(cat "$T/skx.log")" "backend perf: --backend=perf" "and why it was chosen"
# one read(2) per group per tick: group reads grow by the groups each tick
g=$(metric "$T/skx.prom" uncored_perf_groups "")
r0=$(metric "$T/skx.prom" uncored_perf_group_reads_total "")
t0=$(metric "$T/skx.prom" uncored_ticks_total "")
wait_for "two more ticks" 30 ring_has "$PORT" $(( $(ring_head "$PORT") + 2 ))
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/skx2.prom"
r1=$(metric "$T/skx2.prom" uncored_perf_group_reads_total "")
t1=$(metric "$T/skx2.prom" uncored_ticks_total "")
is "$(( (r1 - r0) % (t1 - t0) ))/$(( (r1 - r0) / (t1 - t0) ))" "0/$g" \
	"one group read per open group per tick ($g groups)"
# least privilege: no device file, only CAP_PERFMON (38)
if [ "$(id -u)" = 0 ]; then
	capeff=$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$UPID/status")
	is "$capeff" "0000004000000000" "CapEff holds CAP_PERFMON only"
	is "$(sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$UPID/status")" \
		"$(id -u nobody)" "runs as the unprivileged user"
	devs=$(ls -l "/proc/$UPID/fd" 2>/dev/null |
		grep -c '/dev/cpu\|/dev/mem\|/config$\|/resource[0-9]')
	is "$devs" 0 "no device or PCI config file open"
else
	skip "CapEff holds CAP_PERFMON only" "not root"
	skip "runs as the unprivileged user" "not root"
	skip "no device or PCI config file open" "not root"
fi
# A fatal error after start-up (its port in use) ends a daemon through
# exit(): its simulated kernel's tree goes all the same.
mkdir "$T/kt"
TMPDIR="$T/kt" "$UNCORED" --simulate=skx --backend=perf -i 200 \
	-l "127.0.0.1:$PORT" -s "" >"$T/busy.log" 2>&1
is "$?" 1 "a second daemon on the same port: exit 1"
is "$(ls -A "$T/kt")" "" "... and its simulated kernel's tree is gone"
stop_uncored

# ---- Skylake-SP, CHAs at different rates (issue 28 section 5): lookups
# and misses must each be counted on every CHA.  Per socket, CHA 0 sees
# 7e8 lookups/s and 3e8 misses/s, CHAs 1-3 1e8 and 1e7 each: 1e9 and
# 3.3e8, hit ratio 0.67.  Counting either on half the CHAs and doubling
# gives 1.6e9 or 4e8 lookups, 6.2e8 or 4e7 misses, whichever half.  The
# state-filtered LLC_LOOKUP plays the same per-CHA rates, so a daemon
# that still counted it split over the CHAs would read those wrong sums.
skx_cha() { # CHA LOOKUPS MISSES: that CHA's keys, both encodings
	printf '"cha:0x35:0x31:filter0=0x3b00000000@%s": %s, "cha:0x35:0x21:filter0=0x3b00000000@%s": %s, ' \
		"$1" "$2" "$1" "$3"
	printf '"cha:0x34:0x03:filter0=0x1e20000@%s": %s, "cha:0x34:0x03:filter0=0x20000@%s": %s' \
		"$1" "$2" "$1" "$3"
}
perf_run uneven skx "{ \"platform\": \"skx\", \"sockets\": 2, \"cha_count\": 4, \"phases\": [ { \"seconds\": 60, \"rates\": {
  $(skx_cha 0 7.0e8 3.0e8), $(skx_cha 1 1.0e8 1.0e7), $(skx_cha 2 1.0e8 1.0e7), $(skx_cha 3 1.0e8 1.0e7),
  \"imc:0x04:0x03\": 1.0e8, \"cha:0x00:0x00\": 9.6e9 } } ] }"
rate_window "$PORT" 5
for s in 0 1; do
	near "$(rate uncore_llc_lookups_total "socket=\"$s\"")" 1.0e9 0.03 \
		"uneven: socket $s LLC lookups 1e9/s, every CHA counted"
	near "$(rate uncore_llc_misses_total "socket=\"$s\"")" 3.3e8 0.03 \
		"uneven: socket $s LLC misses 3.3e8/s, every CHA counted"
	near "$(metric "$T/m1" uncore_llc_hit_ratio "socket=\"$s\"")" 0.67 0.03 \
		"uneven: socket $s LLC hit ratio 0.67"
done
stop_uncored

# ---- Ice Lake-SP: the free-running IMC byte counters, not a programmable
# counter; CAS 0x04/0x0f and 0x04/0x30 for the channels.
perf_run icx icx '{ "platform": "icx", "sockets": 2, "cha_count": 40, "phases": [ { "seconds": 60, "rates": {
  "imc_free:UNC_M_FREE_RUNNING.DATA_READ": 1.2e8, "imc_free:UNC_M_FREE_RUNNING.DATA_WRITE": 6.0e7,
  "imc:0x04:0x0f": 1.2e8, "imc:0x04:0x30": 6.0e7,
  "imc:0x04:0x03": 9.0e8, "imc:0x04:0x0c": 9.0e8,
  "cha:0x35:0xc001ff01": 3.0e8, "cha:0x35:0xc001fe01": 3.0e7,
  "cha:0x00:0x00": 8.8e10 } } ] }'
headline 7.68e9 3.84e9 0.9 2.2e9
ch=$(grep -c '^uncore_dram_channel_read_bytes_total{socket="1"' "$T/icx.prom")
ok "$([ "$ch" -ge 8 ]; echo $?)" "icx: per-channel DRAM families on socket 1 ($ch channels)"
stop_uncored

# ---- Sapphire Rapids: CAS 0x05/0xcf and 0x05/0xf0 (no free-running byte
# counter); the CHA clock is event 0x01.
perf_run spr spr '{ "platform": "spr", "sockets": 2, "cha_count": 60, "phases": [ { "seconds": 60, "rates": {
  "imc:0x05:0xcf": 9.0e7, "imc:0x05:0xf0": 4.5e7,
  "imc:0x04:0x0f": 9.0e8, "imc:0x04:0x30": 9.0e8, "imc:0x04:0x03": 9.0e8,
  "cha:0x35:0xc001ff01": 4.0e8, "cha:0x35:0xc001fe01": 1.0e8,
  "cha:0x01:0x00": 1.2e11, "cha:0x00:0x00": 9.9e11 } } ] }'
headline 5.76e9 2.88e9 0.75 2.0e9
stop_uncored

# ---- EPYC Zen 4: L3 per complex (amd_l3), DRAM through amd_umc_N (kernel
# 6.7 and later: the simulated kernel's default); no uncore clock family.
perf_run zen4 zen4 '{ "platform": "zen4", "sockets": 2, "phases": [ { "seconds": 60, "rates": {
  "l3:0x04:0xff": 1.0e8, "l3:0x04:0x01": 2.5e7,
  "umc:0x0a:0x01": 1.5e8, "umc:0x0a:0x02": 5.0e7 } } ] }'
headline 9.6e9 3.2e9 0.75 ""
stop_uncored

# ---- the seeds through perf: hsx with its default workload gives
# daemon_hsx.sh's answers (8 and 4 GB/s on socket 0, 90 % hit, 2 GHz)
PORT=$(pick_port)
start_uncored "$T/hsx.log" --simulate=hsx --backend=perf -i 200 \
	--workload "$top_srcdir/conf/workloads/hsx-default.json" \
	-l "127.0.0.1:$PORT" -s ""
ok $? "hsx: daemon starts with --backend=perf"
wait_for "hsx: 4 samples" 60 ring_has "$PORT" 4
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/hsx.prom"
name=hsx
near "$(bw 0 read)" 8e9 0.03 "hsx: socket 0 DRAM read 8 GB/s"
near "$(bw 0 write)" 4e9 0.03 "hsx: socket 0 DRAM write 4 GB/s"
near "$(metric "$T/hsx.prom" uncore_llc_hit_ratio 'socket="0"')" 0.9 0.03 \
	"hsx: socket 0 LLC hit ratio (two filter values, split CBos)"
near "$(metric "$T/hsx.prom" uncore_clock_hertz 'socket="0"')" 2e9 0.03 \
	"hsx: socket 0 uncore clock 2 GHz (the UBox fixed counter)"
stop_uncored

# ---- another perf user: the kernel multiplexes the IMC groups half the
# time; the values are scaled back and flagged
perf_run contention skx '{ "platform": "skx", "sockets": 2, "phases": [ { "seconds": 60, "rates": {
  "imc:0x04:0x03": 1.0e8, "imc:0x04:0x0c": 5.0e7,
  "cha:0x35:0x31:filter0=0x3b00000000": 2.0e8, "cha:0x35:0x21:filter0=0x3b00000000": 4.0e7,
  "cha:0x00:0x00": 6.72e10 } } ],
  "faults": [ { "at": 0, "kind": "perf_contention", "target": "uncore_imc_*", "running": 0.5 } ] }'
near "$(bw 1 read)" 6.4e9 0.03 "contention: scaled DRAM read still 6.4 GB/s"
n=$(metric "$T/contention.prom" uncored_perf_multiplexed_reads_total "")
ok "$([ "${n:-0}" -gt 0 ]; echo $?)" "contention: counted in uncored_perf_multiplexed_reads_total ($n)"
like "$(curl -s "http://127.0.0.1:$PORT/api/v1/samples?since=3&limit=1&deltas=0")" \
	'"scaled":true' "contention: the samples are flagged scaled"
stop_uncored

# ---- a PMU the platform expects and the kernel lacks: reported once,
# its families absent (not zero), the rest served
perf_run missing skx '{ "platform": "skx", "sockets": 2, "perf": { "missing_pmus": ["uncore_imc_*"] },
  "phases": [ { "seconds": 60, "rates": {
  "cha:0x35:0x31:filter0=0x3b00000000": 2.0e8, "cha:0x35:0x21:filter0=0x3b00000000": 4.0e7,
  "cha:0x00:0x00": 6.72e10 } } ] }'
like "$(cat "$T/missing.log")" "the kernel has no PMU for: imc (uncore_imc_%u)" \
	"missing: logged with the PMU name"
like "$(curl -s "http://127.0.0.1:$PORT/api/v1/status")" '"missing_units":"imc (uncore_imc_%u)' \
	"missing: in the status"
is "$(grep -c '^uncore_dram_' "$T/missing.prom")" 0 "missing: no DRAM family at all"
near "$(metric "$T/missing.prom" uncore_llc_hit_ratio 'socket="1"')" 0.8 0.03 \
	"missing: LLC still served"
stop_uncored

# ---- a PMU unloaded under the daemon: counted, named among the missing,
# its series gone, the daemon still serving the rest (perf_pmu_gone.sh
# has the whole story)
perf_run gone skx '{ "platform": "skx", "sockets": 2, "phases": [ { "seconds": 60, "rates": {
  "imc:0x04:0x03": 1.0e8, "cha:0x35:0x31:filter0=0x3b00000000": 2.0e8,
  "cha:0x35:0x21:filter0=0x3b00000000": 4.0e7, "cha:0x00:0x00": 6.72e10 } } ],
  "faults": [ { "at": 1.5, "kind": "pmu_gone", "target": "uncore_imc_0" } ] }'
# The PMU goes at 1.5 s: its group's reads fail from then on - or, where
# a loaded machine took longer than that to start the daemon, its group
# never opens, or discovery finds it missing.  Each ends the same way.
gone_seen() {
	curl -s "http://127.0.0.1:$PORT/metrics" >"$T/gone1.prom" &&
	curl -s "http://127.0.0.1:$PORT/api/v1/status" >"$T/gone1.json" &&
	{ [ "$(metric "$T/gone1.prom" uncored_perf_read_errors_total "")" != 0 ] ||
	  [ "$(metric "$T/gone1.prom" uncored_perf_open_errors_total "")" != 0 ] ||
	  grep -q 'imc 0 on socket 0 (no uncore_imc_%u box)' "$T/gone1.json"; }
}
wait_for "gone: failed reads or opens counted, or the PMU found missing" 30 gone_seen
ok $? "gone: failed group reads (or opens) counted, or the PMU found missing at start-up"
wait_for "gone: uncore_imc_0 among the missing" 30 sh -c \
	"curl -s http://127.0.0.1:$PORT/api/v1/status | grep -q '\"missing_units\":\"[^\"]*imc 0 on socket 0'"
ok $? "gone: /api/v1/status names it among the missing units"
no_imc0() {
	curl -s "http://127.0.0.1:$PORT/metrics" >"$T/gone2.prom" &&
		! grep -q '^uncored_series_up{socket="0",unit="imc",box="0"' "$T/gone2.prom"
}
wait_for "gone: the baseline without it" 30 no_imc0
ok $? "gone: the unloaded box's series are gone from /metrics"
near "$(metric "$T/gone2.prom" uncore_llc_hit_ratio 'socket="1"')" 0.8 0.03 \
	"gone: LLC still served"
is "$(http_code "http://127.0.0.1:$PORT/healthz")" 200 "gone: healthy"
# The simulated kernel's tree is the daemon's own (it runs as nobody when
# started as root): the unloaded PMU leaves it, and the tree goes at exit.
skroot=$(curl -s "http://127.0.0.1:$PORT/api/v1/status" |
	sed -n 's/.*"sysfs":"\([^"]*\)\/sys".*/\1/p')
like "$skroot" "uncored-kernel." "gone: status names the simulated kernel's sysfs"
ok "$([ ! -e "$skroot/sys/bus/event_source/devices/uncore_imc_0" ]; echo $?)" \
	"gone: the unloaded PMU left the simulated sysfs"
stop_uncored
ok "$([ -n "$skroot" ] && [ ! -e "$skroot" ]; echo $?)" \
	"the simulated kernel's tree is removed when the daemon stops"

# ---- a container given only CAP_PERFMON (doc/running.md): root without
# CAP_SETUID cannot switch users; it stays uid 0 with CAP_PERFMON alone
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	PORT=$(pick_port)
	setpriv --bounding-set -all,+perfmon --inh-caps -all \
		"$top_builddir/uncored" --simulate=skx --backend=perf -i 200 \
		-l "127.0.0.1:$PORT" -s "" >"$T/ctr.log" 2>&1 &
	UPID=$!
	tap_cleanup_pid "$UPID"
	wait_healthy "$PORT"
	ok $? "container: starts with only CAP_PERFMON in its bounding set"
	is "$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$UPID/status")" \
		"0000004000000000" "container: CapEff holds CAP_PERFMON only"
	like "$(cat "$T/ctr.log")" "staying uid 0" "container: says it stays uid 0"
	wait_for "container: 3 samples" 30 ring_has "$PORT" 3
	ok $? "container: samples"
	stop_uncored
else
	for d in "starts with only CAP_PERFMON" "CapEff holds CAP_PERFMON only" \
		 "says it stays uid 0" "samples"; do
		skip "container: $d" "needs root and setpriv"
	done
fi

# ---- refusals
printf '%s\n' '{ "platform": "skx", "perf": { "paranoid": 2, "cap_perfmon": false },
  "phases": [ { "seconds": 1, "rates": {} } ] }' >"$T/eacces.json"
"$UNCORED" --simulate=skx --backend=perf --workload "$T/eacces.json" -l none -s "" \
	>"$T/eacces.log" 2>&1
is "$?" 4 "no capability, paranoid 2: exit 4"
like "$(cat "$T/eacces.log")" "CAP_PERFMON" "and the message names the capability"
like "$(cat "$T/eacces.log")" "perf_event_paranoid" "and the sysctl"
TMPDIR="$T/kt" "$UNCORED" --simulate=skx --backend=perf --workload "$T/eacces.json" \
	-l none -s "" >/dev/null 2>&1
is "$(ls -A "$T/kt")" "" "a refused start leaves no simulated kernel's tree"

# ---- the real kernel: this machine has no uncore PMU (a VM); perf
# must end promptly, naming perf and where it looked
start=$(date +%s)
"$UNCORED" --backend=perf -l none -s "" >"$T/real.log" 2>&1
rc=$?
ok "$([ "$rc" -ne 0 ] && [ "$rc" -ne 86 ]; echo $?)" "real kernel: --backend=perf exits non-zero ($rc)"
ok "$([ $(( $(date +%s) - start )) -le 10 ]; echo $?)" "real kernel: within seconds"
like "$(cat "$T/real.log")" "perf" "real kernel: the message names perf"
like "$(cat "$T/real.log")" "/sys/bus/event_source/devices" "real kernel: and the sysfs path searched"
"$UNCORED" --backend=perf --path.sysfs "$T/nosuch" -l none -s "" >"$T/real2.log" 2>&1
like "$(cat "$T/real2.log")" "$T/nosuch" "--path.sysfs: the path is the one searched"

# ---- the self-test through the kernel: the same checks, the freeze and
# the control read-back not applicable (the kernel holds the counters)
for p in skl hsx skx icx spr zen4 zen5 zen3 adl mtl gnr; do
	"$UNCORED" --self-test --simulate="$p" --backend=perf >"$T/st-$p.out" 2>&1
	is "$?" 0 "self-test $p on the perf backend passes"
done
like "$(cat "$T/st-hsx.out")" "DRAM reads while streaming" "self-test perf: the DRAM check ran"
like "$(grep '^freeze stops counting' "$T/st-skl.out")" "n/a" "self-test perf: no freeze to check"
like "$(grep '^read-back of controls' "$T/st-skl.out")" "n/a" "self-test perf: no controls to read back"
like "$(cat "$T/st-zen4.out")" "the platform has none" "self-test zen4: no uncore clock, said so"
like "$(grep '^DRAM reads while streaming' "$T/st-zen3.out")" "the platform has none" \
	"self-test zen3: no DRAM read family, said so"

# ---- --list-platforms: every platform, its CPUs, backends and checks
out=$("$top_builddir/uncored" --list-platforms)
is "$?" 0 "--list-platforms exits 0"
for p in skl hsx snbep skx icx spr zen4 zen5 zen3 adl mtl gnr; do
	like "$out" "$p	" "--list-platforms lists $p"
done
like "$out" "AuthenticAMD family 0x19 model 0x10-0x1f, 0xa0-0xaf" \
	"--list-platforms: zen4's CPUs as ranges"
like "$out" "AuthenticAMD family 0x1a model 0x00-0x2f, 0x40-0x4f, 0x60-0x7f" \
	"--list-platforms: zen5's CPUs as ranges"
like "$out" "AuthenticAMD family 0x19 model 0x00-0x0f, 0x20-0x5f" \
	"--list-platforms: zen3's CPUs as ranges"
like "$out" "GenuineIntel family 0x6 model 0xad-0xaf" \
	"--list-platforms: gnr's CPUs (Granite Rapids 06_AD/06_AE, Sierra Forest 06_AF)"
like "$(echo "$out" | sed -n '/^gnr/,/checked/p')" "backends: perf" \
	"--list-platforms: gnr is perf-only"
like "$(echo "$out" | sed -n '/^skx/,/checked/p')" "backends: perf" \
	"--list-platforms: skx is perf-only"
like "$(echo "$out" | sed -n '/^hsx/,/checked/p')" "backends: direct, perf" \
	"--list-platforms: hsx has both"
like "$out" "checked: on the simulator only" "--list-platforms: says where it was checked"

tap_done
