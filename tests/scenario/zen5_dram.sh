#!/bin/sh
# zen5_dram.sh - AMD Zen 5 (zen5) DRAM both ways, with known answers and
# decoys.  A 6.12 kernel has amd_umc_N: DRAM from umc_cas_cmd.rd/.wr
# (event 0x0a, rdwrmask 1/2) x 64, nothing in turn.  A 6.1 kernel has
# none: DRAM from the data fabric's 24 per-channel beat events
# (0x1f + 0x40 N, umask 0xffe reads and 0xfff writes, each already local
# or remote socket), 6 groups of 4 taking turns.  Decoys: zen4's
# local-only and remote-only umasks (0x7fe, 0xbfe, 0x7ff, 0xbff) and the
# UMC's rdwrmask 3 count other rates, so an encoding taken from the wrong
# generation, or a read sum of local + remote, gives a wrong answer.  The
# total family is read + write on both paths.
. "${top_srcdir:-.}/tests/lib.sh"

# Per socket: channel n (0-11) reads (n+1) x 1e6 beats/s and writes
# (12-n) x 5e5; 78e6 and 39e6 beats/s, x 64 bytes.  Decoys: local reads
# 7e6, remote reads 3e6 per channel (their sum 10e6 is not the channel's
# read rate either), local/remote writes 1e6 each.
rates=$(awk 'BEGIN {
	for (n = 0; n < 12; n++) {
		c = sprintf("0x%x", 31 + 64 * n)
		printf "\"df:%s:0xffe\": %g, \"df:%s:0xfff\": %g, ", c, (n + 1) * 1e6, c, (12 - n) * 5e5
		printf "\"df:%s:0x7fe\": 7e6, \"df:%s:0xbfe\": 3e6, ", c, c
		printf "\"df:%s:0x7ff\": 1e6, \"df:%s:0xbff\": 1e6, ", c, c
	} }')
RD=4.992e9 WR=2.496e9 TOT=7.488e9

# ---- 6.1: no amd_umc_N, the data fabric's 24 events in 6 turns
cat >"$T/df.json" <<JSON
{ "platform": "zen5", "sockets": 2, "perf": { "kernel": "6.1.0" },
  "phases": [ { "seconds": 3600, "rates": { $rates
    "umc:0x0a:0x01": 9.9e9, "umc:0x0a:0x02": 9.9e9,
    "l3:0x04:0xff": 1.0e8, "l3:0x04:0x01": 2.5e7 } } ] }
JSON
PORT=$(pick_port)
U="http://127.0.0.1:$PORT"
start_uncored "$T/df.log" --simulate=zen5 --backend=perf \
	--workload "$T/df.json" -i 200 -l "127.0.0.1:$PORT" -s ""
ok $? "6.1 kernel: the daemon starts"
st=$(curl -s "$U/api/v1/status")
is "$(echo "$st" | jq -c .baseline)" \
	'{"events":30,"groups":7,"events_in_turns":24}' \
	"status: 24 of 30 baseline events take turns in 6 groups (4 of the others: the L3 latency events)"
is "$(echo "$st" | jq -r '[.dram.unit, .dram.kernel_pmu, .dram.events, .dram.in_turns, .dram.read_event] | join(" ")')" \
	"df amd_df 24 true local_or_remote_socket_read_data_beats_dram_0" \
	"status: DRAM through the data fabric, 24 events in turn"
like "$(cat "$T/df.log")" "DRAM from unit df (Data fabric, kernel PMU amd_df)" \
	"the start-up log names the data fabric path"
like "$(cat "$T/df.log")" "the kernel has no PMU for: umc (amd_umc_%u)" \
	"the UMC unit is said to be absent (no amd_umc_N)"
G=$(echo "$st" | jq .baseline.groups)
case $G in
[0-9]*) ;;
*) echo "Bail out! no baseline groups in the status"; tap_done; exit 1 ;;
esac
R=$((G - 1))	# intervals per rotation
wait_for "two rotations" 60 ring_has "$PORT" $((2 * R + 2))
curl -s "$U/metrics" >"$T/df.prom"
name=df
for s in 0 1; do
	near "$(metric "$T/df.prom" uncore_dram_bandwidth_bytes_per_second "socket=\"$s\",direction=\"read\"")" \
		$RD 0.03 "6.1, socket $s: DRAM read bandwidth $RD B/s (not a local + remote sum)"
	near "$(metric "$T/df.prom" uncore_dram_bandwidth_bytes_per_second "socket=\"$s\",direction=\"write\"")" \
		$WR 0.03 "6.1, socket $s: DRAM write bandwidth $WR B/s"
	near "$(metric "$T/df.prom" uncore_dram_total_bandwidth_bytes_per_second "socket=\"$s\"")" \
		$TOT 0.03 "6.1, socket $s: DRAM total bandwidth $TOT B/s"
	near "$(metric "$T/df.prom" uncore_llc_hit_ratio "socket=\"$s\"")" 0.75 0.03 \
		"6.1, socket $s: L3 hit ratio"
done
# the counters: the total is the sum of read and write, exactly (one
# evaluator, the same deltas)
a=$(metric "$T/df.prom" uncore_dram_read_bytes_total 'socket="1"')
b=$(metric "$T/df.prom" uncore_dram_write_bytes_total 'socket="1"')
c=$(metric "$T/df.prom" uncore_dram_bytes_total 'socket="1"')
near "$c" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.0f", a + b }')" 1e-9 \
	"uncore_dram_bytes_total is read + write"
is "$(metric "$T/df.prom" uncored_dram_source_info 'unit="df",turns="true"')" 1 \
	"uncored_dram_source_info names df, in turns"
# the samples: 4 DF deltas measured per socket, the 20 others estimated
h=$(ring_head "$PORT")
curl -s "$U/api/v1/samples?since=$((h - R))&limit=$R" >"$T/samples.json"
is "$(jq -c '[.samples[] | [.deltas[] | select(.unit == "df")] |
	[(map(select(.multiplexed | not)) | length),
	 (map(select(.multiplexed and .delta != null)) | length)]] | unique' \
	"$T/samples.json")" '[[8,40]]' \
	"in each sample, 8 DF deltas measured (4 per socket), the 40 others estimated"
jq -r '.samples[].sockets[] | "\(.dram_read_bytes_per_second) \(.dram_bytes_per_second)"' \
	"$T/samples.json" >"$T/bw.txt"
bad=$(awk -v r=$RD -v t=$TOT '{ d = $1 / r - 1; e = $2 / t - 1
	if ($1 == "null" || $2 == "null" || d > 0.03 || d < -0.03 || e > 0.03 || e < -0.03) n++ }
	END { print n + 0 }' "$T/bw.txt")
is "$bad" 0 "every sample of the last rotation: read and total gauges within 3 %"
kill "$UPID"; wait "$UPID" 2>/dev/null

# ---- 6.12: amd_umc_N, CAS reads and writes; rdwrmask 3 is a decoy
printf '%s\n' '{ "platform": "zen5", "sockets": 2, "perf": { "kernel": "6.12.0" },
  "phases": [ { "seconds": 600, "rates": { "l3:0x04:0xff": 1.0e8,
  "l3:0x04:0x01": 2.5e7, "umc:0x0a:0x01": 1.5e8, "umc:0x0a:0x02": 5.0e7,
  "umc:0x0a:0x03": 9.0e8, "df:0x1f:0xffe": 9.0e9 } } ] }' >"$T/umc.json"
PORT=$(pick_port)
U="http://127.0.0.1:$PORT"
start_uncored "$T/umc.log" --simulate=zen5 --backend=perf \
	--workload "$T/umc.json" -i 200 -l "127.0.0.1:$PORT" -s ""
ok $? "6.12 kernel: the daemon starts"
st=$(curl -s "$U/api/v1/status")
is "$(echo "$st" | jq -r '[.dram.unit, .dram.kernel_pmu, .dram.in_turns, .baseline.groups] | join(" ")')" \
	"umc amd_umc_0 false 1" "status: DRAM through the UMCs, nothing in turn"
like "$(cat "$T/umc.log")" "not counted: 24 default df events" \
	"the data fabric events are left out, said once"
wait_for "3 samples" 60 ring_has "$PORT" 3
curl -s "$U/metrics" >"$T/umc.prom"
name=umc
for s in 0 1; do
	near "$(metric "$T/umc.prom" uncore_dram_bandwidth_bytes_per_second "socket=\"$s\",direction=\"read\"")" \
		9.6e9 0.03 "6.12, socket $s: DRAM read 9.6 GB/s from the UMC CAS reads"
	near "$(metric "$T/umc.prom" uncore_dram_bandwidth_bytes_per_second "socket=\"$s\",direction=\"write\"")" \
		3.2e9 0.03 "6.12, socket $s: DRAM write 3.2 GB/s"
	near "$(metric "$T/umc.prom" uncore_dram_total_bandwidth_bytes_per_second "socket=\"$s\"")" \
		12.8e9 0.03 "6.12, socket $s: DRAM total 12.8 GB/s"
done
is "$(grep -c '^uncore_dram_channel_read_bytes_total{socket="1"' "$T/umc.prom")" 12 \
	"12 UMC channels on socket 1"
kill "$UPID"; wait "$UPID" 2>/dev/null

# ---- the default workload: --simulate=zen5 works as it is
PORT=$(pick_port)
start_uncored "$T/def.log" --simulate=zen5 -i 200 -l "127.0.0.1:$PORT" -s ""
ok $? "--simulate=zen5 starts with its default workload"
wait_for "3 samples" 60 ring_has "$PORT" 3
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/def.prom"
ok "$(grep -q '^uncore_dram_bytes_total{socket="1"}' "$T/def.prom"; echo $?)" \
	"default workload: the DRAM total family on socket 1"
kill "$UPID"; wait "$UPID" 2>/dev/null

tap_done
