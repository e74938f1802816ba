#!/bin/sh
# gnr_dram.sh - Xeon 6 (gnr) on the simulated kernel, with known answers
# and decoys, on three kernel generations (the facts sheet "Xeon 6 (GNR/SRF), EPYC Zen 3/Zen 5, Core since Alder Lake, CXL, resctrl" (NEXT-PLATFORMS.md)
# 1.1, 1.5):
#   6.14: every unit; DRAM = CAS reads/writes of both schedulers
#         (SCH0 0x05, SCH1 0x06; umask 0xcf reads, 0xf0 writes) x 64,
#         LLC from the IA TOR inserts, clock UNC_CHA_CLOCKTICKS, UPI data
#         flits x 64/9 per link; sockets with different rates, each summed
#         over its own channels;
#   6.8:  no uncore_upi_N (the kernel's ignore list): UPI absent, the log
#         saying from which kernel; DRAM the same although the kernel's
#         alias cas_count_read is scheduler 0 only;
#   7.0:  the per-scheduler alias set in sysfs, the same answers;
#   6.6:  no GNR table: the generic uncore_type_<t>_<box> PMUs with the
#         generic format; DRAM, clock, UPI as above, no LLC family.
# Decoys: scheduler 0 or 1 alone (the old alias), the .ALL umasks 0xff,
# skx's CAS event 0x04, a umask with a UMaskExt bit, a CHA umask with its
# extension dropped (0x01), the IA_HIT umask, the experimental
# LLC_LOOKUP pair, UPI receive flits: each counts another rate, so a
# wrong encoding or a missing scheduler gives another answer.  And a
# 2-socket x 2-die machine: per-die boxes placed die-major, socket
# families summed over both dies.
. "${top_srcdir:-.}/tests/lib.sh"

# socket 0: SCH0 reads 1.0e8/s, SCH1 6.0e7/s; socket 1: 2.0e8, 4.0e7
# (x 64: 10.24e9 and 15.36e9 B/s); writes 4.0e7 + 2.0e7 on both
# (3.84e9 B/s).  4 channels a socket: channel reads 2.56e9 / 3.84e9.
RD0=10.24e9 RD1=15.36e9 WR=3.84e9
workload() { # KERNEL EXTRA-PERF
	cat <<JSON
{ "platform": "gnr", "sockets": 2, "cha_count": 4, "imc_channels": 4,
  "upi_links": 2, "perf": { "kernel": "$1" ${2:-} },
  "phases": [ { "seconds": 3600, "rates": {
    "s0/imc:0x05:0xcf": 1.0e8, "s0/imc:0x06:0xcf": 6.0e7,
    "s1/imc:0x05:0xcf": 2.0e8, "s1/imc:0x06:0xcf": 4.0e7,
    "imc:0x05:0xf0": 4.0e7, "imc:0x06:0xf0": 2.0e7,
    "imc:0x05:0xff": 9.0e8, "imc:0x06:0xff": 8.0e8, "imc:0x04:0x0f": 7.0e8,
    "imc:0x05:0x1cf": 6.0e8, "imc:0x06:0x1f0": 5.0e8,
    "cha:0x35:0xc001ff01": 2.0e8, "cha:0x35:0xc001fe01": 5.0e7,
    "cha:0x35:0x01": 4.0e8, "cha:0x35:0xc001fd01": 9.0e8,
    "cha:0x34:0x1fc1ff": 7.0e8, "cha:0x34:0x1fc101": 3.0e8,
    "cha:0x01:0x00": 8.0e9,
    "upi:0x02:0x0f": 9.0e7, "upi:0x03:0x0f": 5.0e8, "upi:0x02:0x08": 6.0e8
  } } ] }
JSON
}

# run NAME KERNEL [EXTRA-PERF]: the daemon on that kernel; $T/NAME.prom
# after three samples.
run() {
	workload "$2" "${3:-}" >"$T/$1.json"
	PORT=$(pick_port)
	U="http://127.0.0.1:$PORT"
	start_uncored "$T/$1.log" --simulate=gnr --backend=perf \
		--workload "$T/$1.json" -i 200 -l "127.0.0.1:$PORT" -s ""
	ok $? "$1: the daemon starts on Linux $2"
	wait_for "3 samples" 60 ring_has "$PORT" 3
	curl -s "$U/metrics" >"$T/$1.prom"
	curl -s "$U/api/v1/status" >"$T/$1.status"
}

# dram NAME: the DRAM, LLC and clock answers of both sockets
dram() {
	near "$(metric "$T/$1.prom" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" \
		$RD0 0.02 "$1, socket 0: DRAM read $RD0 B/s = (SCH0 + SCH1) x 64"
	near "$(metric "$T/$1.prom" uncore_dram_bandwidth_bytes_per_second 'socket="1",direction="read"')" \
		$RD1 0.02 "$1, socket 1: DRAM read $RD1 B/s, its own channels"
	for s in 0 1; do
		near "$(metric "$T/$1.prom" uncore_dram_bandwidth_bytes_per_second "socket=\"$s\",direction=\"write\"")" \
			$WR 0.02 "$1, socket $s: DRAM write $WR B/s"
		near "$(metric "$T/$1.prom" uncore_llc_hit_ratio "socket=\"$s\"")" 0.75 0.02 \
			"$1, socket $s: LLC hit ratio 0.75 (TOR inserts IA, IA_MISS)"
		near "$(metric "$T/$1.prom" uncore_clock_hertz "socket=\"$s\"")" 2.0e9 0.02 \
			"$1, socket $s: uncore clock 2 GHz (CHA clockticks, mean of 4)"
	done
	near "$(metric "$T/$1.prom" uncore_dram_channel_bandwidth_bytes_per_second 'socket="1",channel="3",direction="read"')" \
		3.84e9 0.02 "$1: socket 1 channel 3 reads both schedulers' share"
}

# ---- 6.14: every unit
run k614 6.14.0
is "$(jq -r '[.dram.unit, .dram.kernel_pmu, .dram.events, .dram.in_turns, .baseline.groups] | join(" ")' "$T/k614.status")" \
	"imc uncore_imc_0 4 false 1" \
	"6.14 status: DRAM from imc, 4 events (2 schedulers x 2), nothing in turn"
dram k614
for s in 0 1; do
	for l in 0 1; do
		near "$(metric "$T/k614.prom" uncore_upi_data_bandwidth_bytes_per_second "socket=\"$s\",port=\"$l\"")" \
			3.2e8 0.02 "6.14, socket $s link $l: UPI data 3.2e8 B/s (4.5e7 flits x 64/9)"
	done
done
is "$(grep -c '^uncore_dram_channel_read_bytes_total{socket="0"' "$T/k614.prom")" 4 \
	"6.14: 4 channels on socket 0"
ok "$(grep -q 'no PMU for' "$T/k614.log"; [ $? -ne 0 ]; echo $?)" \
	"6.14: no unit is missing"
kill "$UPID"; wait "$UPID" 2>/dev/null

# ---- 6.8: no UPI (nor B2UPI, B2HOT, CXL), DRAM the same
run k68 6.8.0
dram k68
like "$(cat "$T/k68.log")" "upi (uncore_upi_%u) from Linux 6.14" \
	"6.8: UPI named absent, with the kernel that has it"
like "$(cat "$T/k68.log")" "b2upi (uncore_b2upi_%u) from Linux 6.14" \
	"6.8: B2UPI named absent too"
ok "$(grep -q '^uncore_upi_data' "$T/k68.prom"; [ $? -ne 0 ]; echo $?)" \
	"6.8: no UPI family"
kill "$UPID"; wait "$UPID" 2>/dev/null

# ---- 7.0: the per-scheduler aliases; uncored's answer does not change
run k70 7.0.0
dram k70
kill "$UPID"; wait "$UPID" 2>/dev/null

# ---- 6.6: no GNR in the kernel's table: the generic discovery names
# (uncore_type_<type>_<box>) and format (8-bit umask).  DRAM, clock and
# UPI are found under those names; the CHA TOR events' UMaskExt does not
# fit, so the LLC family is absent, said so, not mis-counted.
run k66 6.6.0
for s in 0 1; do
	near "$(metric "$T/k66.prom" uncore_clock_hertz "socket=\"$s\"")" 2.0e9 0.02 \
		"6.6, socket $s: uncore clock from uncore_type_0_N"
	near "$(metric "$T/k66.prom" uncore_upi_data_bandwidth_bytes_per_second "socket=\"$s\",port=\"1\"")" \
		3.2e8 0.02 "6.6, socket $s: UPI from uncore_type_8_N (no ignore list)"
	near "$(metric "$T/k66.prom" uncore_dram_bandwidth_bytes_per_second "socket=\"$s\",direction=\"write\"")" \
		$WR 0.02 "6.6, socket $s: DRAM write $WR B/s"
done
near "$(metric "$T/k66.prom" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" \
	$RD0 0.02 "6.6, socket 0: DRAM read $RD0 B/s from uncore_type_6_N"
near "$(metric "$T/k66.prom" uncore_dram_bandwidth_bytes_per_second 'socket="1",direction="read"')" \
	$RD1 0.02 "6.6, socket 1: DRAM read $RD1 B/s"
is "$(jq -r .dram.kernel_pmu "$T/k66.status")" uncore_type_6_0 \
	"6.6 status: the IMC is uncore_type_6_0"
ok "$(grep -q '^uncore_llc_' "$T/k66.prom"; [ $? -ne 0 ]; echo $?)" \
	"6.6: no LLC family (not zero)"
like "$(cat "$T/k66.log")" "not counted: UNC_CHA_TOR_INSERTS.IA: the kernel's PMU uncore_type_0_0 cannot take its encoding" \
	"6.6: the LLC events are left out, saying why"
kill "$UPID"; wait "$UPID" 2>/dev/null

# ---- the kernels' trees: which aliases, which units
for k in 6.8.0 7.0.0; do
	workload "$k" >"$T/tree-$k.json"
	"$UNCORE_SIM" -p gnr -w "$T/tree-$k.json" sysfs "$T/tree-$k" >"$T/tree-$k.out" 2>&1
	r=$?
	ok $r "uncore-sim writes the $k tree"
	[ $r -eq 0 ] || sed 's/^/#   /' "$T/tree-$k.out"
done
d68="$T/tree-6.8.0/sys/devices" d70="$T/tree-7.0.0/sys/devices"
is "$(cat "$d68/uncore_imc_0/events/cas_count_read")" "event=0x05,umask=0xcf" \
	"6.8: the alias cas_count_read is scheduler 0 only"
ok "$([ ! -e "$d68/uncore_imc_0/events/cas_count_read_sch1" ]; echo $?)" \
	"6.8: no per-scheduler aliases"
is "$(cat "$d70/uncore_imc_0/events/cas_count_read_sch1")" "event=0x06,umask=0xcf" \
	"7.0: cas_count_read_sch1 is 0x06/0xcf"
is "$(cat "$d70/uncore_imc_0/events/cas_count_write_sch1")" "event=0x06,umask=0xf0" \
	"7.0: cas_count_write_sch1 is 0x06/0xf0"
ok "$([ ! -e "$d70/uncore_imc_0/events/cas_count_read" ]; echo $?)" \
	"7.0: cas_count_read is gone"
ok "$([ ! -e "$d68/uncore_upi_0" ] && [ -e "$d70/uncore_upi_0" ]; echo $?)" \
	"uncore_upi_0 on 7.0, not on 6.8"
is "$(cat "$d70/uncore_cha_0/format/umask")" "config:8-15,32-63" \
	"cha umask_ext5"
is "$(cat "$d70/uncore_imc_0/format/umask")" "config:8-15,32-55" \
	"imc umask_ext4"
is "$(cat "$d70/uncore_pcu/format/umask")" "config:8-15" \
	"pcu: the discovery generic format (one box: uncore_pcu)"
is "$(cat "$d70/uncore_imc_3/alias") $(cat "$d70/uncore_upi_1/alias") $(cat "$d70/uncore_pcu/alias")" \
	"uncore_type_6_3 uncore_type_8_1 uncore_type_4_0" \
	"7.0: each named PMU's alias file has its generic discovery name"

# ---- a gap in the box numbers: uncore_imc_2 missing, the others placed
# by their own numbers and the gap named
run gap 6.14.0 ', "missing_pmus": ["uncore_imc_2"]'
near "$(metric "$T/gap.prom" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" \
	7.68e9 0.02 "gap: socket 0 reads from channels 0, 1, 3 (3 x 2.56e9)"
ok "$(grep -q 'channel="2"' "$T/gap.prom"; [ $? -ne 0 ]; echo $?)" \
	"gap: no channel 2 series"
is "$(grep -c '^uncore_dram_channel_read_bytes_total{socket="0",channel="3"' "$T/gap.prom")" 1 \
	"gap: channel 3 keeps its number"
like "$(cat "$T/gap.log")" "imc 2 on socket 0 (no uncore_imc_%u box)" \
	"gap: the missing box is named"
kill "$UPID"; wait "$UPID" 2>/dev/null

# ---- 2 sockets x 2 dies: each per-box PMU names one CPU per die, its
# boxes numbered die-major (die 1's uncore_imc_0 is channel 2); the
# socket families sum both dies, the channel families keep each box.
# Socket 0 channel n reads (n+1) x 1e7 SCH0 lines/s plus 5e6 SCH1;
# socket 1 4e7 + 2e7 evenly.
cat >"$T/dies.json" <<'JSON'
{ "platform": "gnr", "sockets": 2, "dies": 2, "cha_count": 4,
  "imc_channels": 4, "upi_links": 2, "pcu_count": 2,
  "perf": { "kernel": "6.14.0" },
  "phases": [ { "seconds": 3600, "rates": {
    "s0/imc:0x05:0xcf@0": 1.0e7, "s0/imc:0x05:0xcf@1": 2.0e7,
    "s0/imc:0x05:0xcf@2": 3.0e7, "s0/imc:0x05:0xcf@3": 4.0e7,
    "s1/imc:0x05:0xcf": 4.0e7, "imc:0x06:0xcf": 2.0e7,
    "imc:0x05:0xf0": 4.0e7, "imc:0x06:0xf0": 2.0e7,
    "imc:0x05:0xff": 9.0e8, "imc:0x06:0xff": 8.0e8,
    "cha:0x35:0xc001ff01": 2.0e8, "cha:0x35:0xc001fe01": 5.0e7,
    "cha:0x35:0x01": 4.0e8, "cha:0x01:0x00": 8.0e9,
    "upi:0x02:0x0f": 9.0e7, "upi:0x03:0x0f": 5.0e8 } } ] }
JSON
"$UNCORE_SIM" -p gnr -w "$T/dies.json" sysfs "$T/tree-dies" >/dev/null 2>&1
ok $? "uncore-sim writes the 2-die tree"
dd="$T/tree-dies/sys/devices"
is "$(cat "$dd/uncore_imc_0/cpumask") $(ls -d "$dd"/uncore_imc_* | wc -l)" "0,4,8,12 2" \
	"2 dies: uncore_imc_0 and _1 only, each with one CPU per die"
is "$(cat "$dd/system/cpu/cpu4/topology/physical_package_id") $(cat "$dd/system/cpu/cpu4/topology/die_id")" \
	"0 1" "2 dies: CPU 4 is package 0 die 1"
is "$(cat "$dd/uncore_pcu/cpumask")" "0,4,8,12" "2 dies: one PCU a die"
printf '%s\n' '{ "platform": "gnr", "sockets": 2, "dies": 2, "imc_channels": 3,
  "phases": [ { "seconds": 5, "rates": {} } ] }' >"$T/baddies.json"
out=$("$UNCORE_SIM" -p gnr -w "$T/baddies.json" sysfs "$T/tree-bad" 2>&1)
ok "$([ $? -ne 0 ]; echo $?)" "3 channels on 2 dies: refused"
like "$out" "imc_channels: 3 is not a multiple of dies (2)" "and says why"
PORT=$(pick_port)
U="http://127.0.0.1:$PORT"
start_uncored "$T/dies.log" --simulate=gnr --backend=perf \
	--workload "$T/dies.json" -i 200 -l "127.0.0.1:$PORT" -s ""
ok $? "2 dies: the daemon starts"
wait_for "3 samples" 60 ring_has "$PORT" 3
curl -s "$U/metrics" >"$T/dies.prom"
near "$(metric "$T/dies.prom" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" \
	7.68e9 0.02 "2 dies, socket 0: DRAM read 7.68e9 B/s, both dies' channels"
near "$(metric "$T/dies.prom" uncore_dram_bandwidth_bytes_per_second 'socket="1",direction="read"')" \
	3.84e9 0.02 "2 dies, socket 1: DRAM read 3.84e9 B/s"
for n in 0 1 2 3; do
	near "$(metric "$T/dies.prom" uncore_dram_channel_bandwidth_bytes_per_second "socket=\"0\",channel=\"$n\",direction=\"read\"")" \
		"$(awk -v n=$n 'BEGIN { print ((n + 1) * 1e7 + 5e6) * 64 }')" 0.02 \
		"2 dies, socket 0 channel $n (die $((n / 2)) box $((n % 2))): its own reads"
done
for s in 0 1; do
	near "$(metric "$T/dies.prom" uncore_dram_bandwidth_bytes_per_second "socket=\"$s\",direction=\"write\"")" \
		$WR 0.02 "2 dies, socket $s: DRAM write $WR B/s"
	near "$(metric "$T/dies.prom" uncore_llc_hit_ratio "socket=\"$s\"")" 0.75 0.02 \
		"2 dies, socket $s: LLC hit ratio over both dies' CHAs"
	near "$(metric "$T/dies.prom" uncore_clock_hertz "socket=\"$s\"")" 2.0e9 0.02 \
		"2 dies, socket $s: uncore clock the mean of 4 CHAs on 2 dies"
	near "$(metric "$T/dies.prom" uncore_upi_data_bandwidth_bytes_per_second "socket=\"$s\",port=\"1\"")" \
		3.2e8 0.02 "2 dies, socket $s: UPI link 1 (die 1's uncore_upi_0)"
done
is "$(grep -c '^uncore_llc_lookups_total{' "$T/dies.prom")" 2 \
	"2 dies: the LLC family has one series a socket"
kill "$UPID"; wait "$UPID" 2>/dev/null

# ---- 2 sockets x 2 dies x 64 CHAs (128 a socket, GNR-AP's count):
# every CHA counted.  CHAs 0-63 look up 1e8/s, miss none and tick 1.5e9;
# CHAs 64-127 look up 3e8/s, miss 1e8/s and tick 2.5e9.  Over all 128:
# hit ratio 0.75, clock 2.0 GHz, and lookups 2.56e10/s: per tick of the
# mean CHA clock (uncore_clock_ticks_total) 12.8; the first 64 alone
# would give 1.0, 1.5 GHz and 4.27.
{
	printf '{ "platform": "gnr", "sockets": 2, "dies": 2, "cha_count": 128,\n'
	printf '  "imc_channels": 4, "upi_links": 2, "perf": { "kernel": "6.14.0" },\n'
	printf '  "phases": [ { "seconds": 3600, "rates": {\n'
	printf '    "imc:0x05:0xcf": 1.0e8, "imc:0x05:0xf0": 4.0e7'
	i=0
	while [ $i -lt 128 ]; do
		if [ $i -lt 64 ]; then l=1.0e8 m=0 c=1.5e9; else l=3.0e8 m=1.0e8 c=2.5e9; fi
		printf ',\n    "cha:0x35:0xc001ff01@%d": %s, "cha:0x35:0xc001fe01@%d": %s, "cha:0x01:0x00@%d": %s' \
			$i $l $i $m $i $c
		i=$((i + 1))
	done
	printf ' } } ] }\n'
} >"$T/cha128.json"
PORT=$(pick_port)
U="http://127.0.0.1:$PORT"
start_uncored "$T/cha128.log" --simulate=gnr --backend=perf \
	--workload "$T/cha128.json" -i 200 -l "127.0.0.1:$PORT" -s ""
ok $? "128 CHAs a socket: the daemon starts"
wait_for "3 samples" 60 ring_has "$PORT" 3
curl -s "$U/metrics" >"$T/cha128.prom"
for s in 0 1; do
	near "$(metric "$T/cha128.prom" uncore_llc_hit_ratio "socket=\"$s\"")" 0.75 0.02 \
		"128 CHAs, socket $s: LLC hit ratio over all 128 (64 would give 1.0)"
	near "$(metric "$T/cha128.prom" uncore_clock_hertz "socket=\"$s\"")" 2.0e9 0.02 \
		"128 CHAs, socket $s: uncore clock the mean of 128 (64 would give 1.5 GHz)"
	near "$(awk -v l="$(metric "$T/cha128.prom" uncore_llc_lookups_total "socket=\"$s\"")" \
		-v c="$(metric "$T/cha128.prom" uncore_clock_ticks_total "socket=\"$s\"")" \
		'BEGIN { print (c > 0 ? l / c : 0) }')" 12.8 0.02 \
		"128 CHAs, socket $s: lookups 2.56e10/s, 12.8 a clock tick, summed over 128 (64 would give 4.27)"
done
ok "$(grep -q 'left out' "$T/cha128.log"; [ $? -ne 0 ]; echo $?)" \
	"128 CHAs: no CHA left out"
kill "$UPID"; wait "$UPID" 2>/dev/null
# more CHAs than the platform allows (144, SRF-SP): refused, saying so
printf '%s\n' '{ "platform": "gnr", "sockets": 2, "cha_count": 145,
  "phases": [ { "seconds": 5, "rates": {} } ] }' >"$T/cha145.json"
out=$("$UNCORE_SIM" -p gnr -w "$T/cha145.json" sysfs "$T/tree-cha145" 2>&1)
ok "$([ $? -ne 0 ]; echo $?)" "145 CHAs a socket: refused"
like "$out" "cha_count" "and the error names cha_count"

# ---- the default workload
PORT=$(pick_port)
start_uncored "$T/def.log" --simulate=gnr -i 200 -l "127.0.0.1:$PORT" -s ""
ok $? "--simulate=gnr starts with its default workload"
wait_for "3 samples" 60 ring_has "$PORT" 3
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/def.prom"
ok "$(grep -q '^uncore_dram_bytes_total{socket="1"}' "$T/def.prom"; echo $?)" \
	"default workload: the DRAM total family on socket 1"
kill "$UPID"; wait "$UPID" 2>/dev/null

tap_done
