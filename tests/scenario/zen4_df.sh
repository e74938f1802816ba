#!/bin/sh
# zen4_df.sh - zen4 DRAM through the data fabric where the kernel has no
# amd_umc_N (Linux < 6.7: Debian 12's 6.1).  The 48 data fabric beat
# events (read and write, local and remote requester, coherent stations
# 0-11) take turns on the DF box's 4 counters, 12 groups of 4, one
# interval each, scaled by the time they were out.  With beats unequal
# per station (sampling one station and scaling it would be far off):
# DRAM read and write bytes within 3 % of the workload's over whole
# rotations, the bandwidth gauges within 3 % in /metrics and in every
# sample, samples flagged multiplexed and still valid; the status, the
# start-up log and uncored_dram_source_info naming the data fabric; a
# claim on the DF box taking its turn with them, scaled, without
# spoiling them; and a 6.12 kernel still counting through the UMCs.
. "${top_srcdir:-.}/tests/lib.sh"

# The workload: per socket, coherent station n (0-11) sees local reads
# (n+1) x 1e6 beats/s, remote reads (n+1) x 2e5, local writes
# (12-n) x 5e5, remote writes (12-n) x 1e5 (64 bytes a beat); L3 1e8
# lookups/s, a quarter of them misses.
rates=$(awk 'BEGIN {
	for (n = 0; n < 12; n++) {
		c = sprintf("0x%x", 31 + 64 * n)
		printf "\"df:%s:0x7fe\": %g, \"df:%s:0xbfe\": %g, ", c, (n + 1) * 1e6, c, (n + 1) * 2e5
		printf "\"df:%s:0x7ff\": %g, \"df:%s:0xbff\": %g, ", c, (12 - n) * 5e5, c, (12 - n) * 1e5
	} }')
cat >"$T/df.json" <<JSON
{ "platform": "zen4", "sockets": 2, "perf": { "kernel": "6.1.0" },
  "phases": [ { "seconds": 3600, "rates": { $rates
    "l3:0x04:0xff": 1.0e8, "l3:0x04:0x01": 2.5e7 } } ] }
JSON
# 78 x 1.2e6 read beats, 78 x 6e5 write beats per second, x 64 bytes
RD=5.9904e9 WR=2.9952e9

PORT=$(pick_port)
U="http://127.0.0.1:$PORT"
start_uncored "$T/df.log" --simulate=zen4 --backend=perf \
	--workload "$T/df.json" -i 200 -l "127.0.0.1:$PORT" -s "$T/ctl.sock"
ok $? "6.1 kernel: the daemon starts"

# ---- what takes turns, and where DRAM comes from
st=$(curl -s "$U/api/v1/status")
is "$(echo "$st" | jq -c .baseline)" \
	'{"events":50,"groups":13,"events_in_turns":48}' \
	"status: 48 of 50 baseline events take turns in 12 groups"
is "$(echo "$st" | jq -r '[.dram.unit, .dram.kernel_pmu, .dram.events, .dram.in_turns] | join(" ")')" \
	"df amd_df 48 true" "status: DRAM through the data fabric, 48 events in turn"
like "$(cat "$T/df.log")" "DRAM from unit df (Data fabric, kernel PMU amd_df)" \
	"the start-up log names the data fabric path"
like "$(cat "$T/df.log")" "48 of its 50 events do not fit their counters together" \
	"and says what takes turns"
G=$(echo "$st" | jq .baseline.groups)
case $G in
[0-9]*) ;;
*) echo "Bail out! no baseline groups in the status"; tap_done; exit 1 ;;
esac
R=$((G - 1))	# intervals per rotation

# the gauges have a value once every group has counted: one rotation
wait_for "two rotations" 60 ring_has "$PORT" $((2 * R + 2))
curl -s "$U/metrics" >"$T/df.prom"
name=df
for s in 0 1; do
	near "$(metric "$T/df.prom" uncore_dram_bandwidth_bytes_per_second "socket=\"$s\",direction=\"read\"")" \
		$RD 0.03 "socket $s: DRAM read bandwidth $RD B/s"
	near "$(metric "$T/df.prom" uncore_dram_bandwidth_bytes_per_second "socket=\"$s\",direction=\"write\"")" \
		$WR 0.03 "socket $s: DRAM write bandwidth $WR B/s"
	near "$(metric "$T/df.prom" uncore_llc_hit_ratio "socket=\"$s\"")" 0.75 0.03 \
		"socket $s: L3 hit ratio (counted all the time)"
done
is "$(metric "$T/df.prom" uncored_baseline_groups "")" "$G" "uncored_baseline_groups"
is "$(metric "$T/df.prom" uncored_dram_source_info 'unit="df",turns="true"')" 1 \
	"uncored_dram_source_info names df, in turns"

# every one of the last rotation's samples: valid, multiplexed, its own
# gauges right (the rotated-out stations at their last rate), the DF
# deltas present and flagged
h=$(ring_head "$PORT")
curl -s "$U/api/v1/samples?since=$((h - R))&limit=$R" >"$T/samples.json"
is "$(jq '[.samples[] | select(.valid and .multiplexed)] | length' "$T/samples.json")" "$R" \
	"the last $R samples are valid and flagged multiplexed"
jq -r '.samples[].sockets[] | "\(.dram_read_bytes_per_second) \(.dram_write_bytes_per_second)"' \
	"$T/samples.json" >"$T/bw.txt"
bad=$(awk -v r=$RD -v w=$WR '{ d = $1 / r - 1; e = $2 / w - 1
	if ($1 == "null" || d > 0.03 || d < -0.03 || e > 0.03 || e < -0.03) n++ }
	END { print n + 0 }' "$T/bw.txt")
is "$bad" 0 "every one of them has both sockets' DRAM gauges within 3 %"
is "$(jq -c '[.samples[] | [.deltas[] | select(.unit == "df")] |
	[(map(select(.multiplexed | not)) | length),
	 (map(select(.multiplexed and .delta != null)) | length)]] | unique' \
	"$T/samples.json")" '[[8,88]]' \
	"in each, 8 DF deltas measured (4 per socket), the 88 others estimated"

# The counters over three rotations or more.  Each reading of a station
# is scaled to the time since its last reading (its turn and the turns
# of the others), so the counter grows by every station's rate times the
# spans between its readings: with regular ticks that is the rate times
# the time between the two snapshots when they are a whole number of
# rotations apart (doc/metrics.md), but a tick delayed before the first
# snapshot (this machine is shared and loaded) lengthens the span of the
# stations read just after it - +7.9 % seen once on reads over 36
# samples.  So the known answer is the workload's rate of each station
# times the spans between its readings, from the samples' times and the
# deltas the daemon measured (not "multiplexed"); the plain rate over the
# window is printed beside it.
snap() { curl -s "$U/api/v1/metrics" >"$1"; jq .seq "$1"; }
s0=$(snap "$T/m0.json")
later() {
	q=$(snap "$T/m1.tmp")
	[ $((q - s0)) -ge $((3 * R)) ] && mv "$T/m1.tmp" "$T/m1.json"
}
wait_for "a snapshot 3 rotations later" 90 later
s1=$(jq .seq "$T/m1.json")
ok $? "two snapshots $((s1 - s0)) samples apart"
# every station's readings from two rotations before the first snapshot
curl -s "$U/api/v1/samples?since=$((s0 - 2 * R))&limit=$((s1 - s0 + 2 * R))" \
	>"$T/span.json"
# want_bytes SOCKET DIRECTION: the workload's bytes over the readings'
# spans in (s0, s1]
want_bytes() {
	jq --argjson s "$1" --arg d "$2" --argjson s0 "$s0" --argjson s1 "$s1" '
	def rate: capture("(?<who>local|remote)_processor_(?<dir>read|write)_data_beats_cs(?<n>[0-9]+)")
		| (.n | tonumber) as $n
		| if .dir == "read" then ($n + 1) * (if .who == "local" then 1e6 else 2e5 end)
		  else (12 - $n) * (if .who == "local" then 5e5 else 1e5 end) end;
	[.samples[] as $x | $x.deltas[]
	 | select(.unit == "df" and .socket == $s and (.multiplexed | not) and
		  (.event | test("_" + $d + "_")))
	 | {ev: .event, seq: $x.seq, t: $x.time}]
	| group_by(.ev)
	| map(sort_by(.seq) | . as $l | [range(1; length)
	      | select($l[.].seq > $s0 and $l[.].seq <= $s1)
	      | ($l[.].ev | rate) * 64 * ($l[.].t - $l[. - 1].t)])
	| flatten | add' "$T/span.json"
}
for s in 0 1; do
	for d in read write; do
		got=$(jq -n --slurpfile a "$T/m0.json" --slurpfile b "$T/m1.json" \
			"\$b[0].sockets[$s].dram_${d}_bytes_total - \$a[0].sockets[$s].dram_${d}_bytes_total")
		want=$(want_bytes $s $d)
		echo "# socket $s $d: $got bytes, $want over the spans;" \
			"$(jq -n --slurpfile a "$T/m0.json" --slurpfile b "$T/m1.json" \
			"$got / (\$b[0].time - \$a[0].time)") B/s over the window"
		near "$got" "$want" 0.03 \
			"socket $s: DRAM $d bytes over the rotations: the stations' rates over their spans"
	done
done

# ---- a claim on the DF box takes its turn with the 12 groups; its count
# is scaled, and the DRAM gauges stay right
S="$T/ctl.sock"
c=$(curl -s -o "$T/claim" -w '%{http_code}' --unix-socket "$S" -X POST \
	http://x/api/v1/claims -d '{"events":["local_processor_read_data_beats_cs11"]}')
is "$c" 201 "a claim on a data fabric event"
id=$(jq -r .id "$T/claim")
h=$(ring_head "$PORT")
wait_for "three more rotations" 90 ring_has "$PORT" $((h + 3 * G))
b=$(curl -s --unix-socket "$S" "http://x/api/v1/claims/$id")
en=$(echo "$b" | jq .time_enabled_s)
run=$(echo "$b" | jq .time_running_s)
ok "$(awk -v e="$en" -v r="$run" 'BEGIN { exit !(r > 0 && r < 0.3 * e) }'; echo $?)" \
	"the claim takes turns with the groups: running $run of $en s"
# its count scaled by enabled/running (13 groups on the DF counters)
near "$(echo "$b" | jq "[.events[0].sockets[].scaled] | add / $en / 2")" 1.2e7 0.05 \
	"its scaled count: the workload's 1.2e7 beats/s per socket"
curl -s "$U/metrics" >"$T/claim.prom"
near "$(metric "$T/claim.prom" uncore_dram_bandwidth_bytes_per_second 'socket="1",direction="read"')" \
	$RD 0.03 "with the claim: socket 1 DRAM read still $RD B/s"
kill "$UPID"; wait "$UPID" 2>/dev/null

# ---- a 6.12 kernel has amd_umc_N: DRAM through the UMCs, nothing in turn
printf '%s\n' '{ "platform": "zen4", "sockets": 2, "perf": { "kernel": "6.12.0" },
  "phases": [ { "seconds": 600, "rates": { "l3:0x04:0xff": 1.0e8,
  "l3:0x04:0x01": 2.5e7, "umc:0x0a:0x01": 1.5e8, "umc:0x0a:0x02": 5.0e7 } } ] }' >"$T/umc.json"
PORT=$(pick_port)
U="http://127.0.0.1:$PORT"
start_uncored "$T/umc.log" --simulate=zen4 --backend=perf \
	--workload "$T/umc.json" -i 200 -l "127.0.0.1:$PORT" -s ""
ok $? "6.12 kernel: the daemon starts"
st=$(curl -s "$U/api/v1/status")
is "$(echo "$st" | jq -r '[.dram.unit, .dram.kernel_pmu, .dram.in_turns, .baseline.groups] | join(" ")')" \
	"umc amd_umc_0 false 1" "status: DRAM through the UMCs, nothing in turn"
like "$(cat "$T/umc.log")" "not counted: 48 default df events" \
	"the data fabric events are left out, said once"
wait_for "3 samples" 60 ring_has "$PORT" 3
curl -s "$U/metrics" >"$T/umc.prom"
near "$(metric "$T/umc.prom" uncore_dram_bandwidth_bytes_per_second 'socket="1",direction="read"')" \
	9.6e9 0.03 "socket 1: DRAM read 9.6 GB/s from the UMC CAS reads"
is "$(metric "$T/umc.prom" uncored_dram_source_info 'unit="umc",turns="false"')" 1 \
	"uncored_dram_source_info names umc"
kill "$UPID"; wait "$UPID" 2>/dev/null

tap_done
