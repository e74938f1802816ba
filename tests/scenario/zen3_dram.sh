#!/bin/sh
# zen3_dram.sh - AMD Zen 3 (zen3): DRAM only as a total.  The kernel's
# Zen 3 data has no read/write split: the data fabric's 8
# dram_channel_data_controller_N (event 0x07 + 0x40 N, umask 0x38) count
# requests with data (64 B) of both directions; 8 events on 4 counters, 2
# turns.  Known answer: unequal channels, so sampling one for another
# fails; decoys: Zen 4/5 DRAM events (0x1f + 0x40 N) with the low byte of
# their umasks (0xfe, 0xff: Zen 3's umask is 8 bits, and a workload with
# 0xffe is refused, which is checked first), a wrong umask (0x3c) and
# channel 4 without its event bit 8
# (0x07, which is channel 0) at other rates, so an encoding that drops
# the event's high bits (amd_df "config:0-7,32-35,59-60") or takes another
# generation's is seen.  The read and write families are absent and said
# to be; the total family, its gauge, the live page's data and the
# recording rule's input are there.  Then a 6.12 kernel: still no
# amd_umc_N on Zen 3 (no PerfMonV2), the same answer.
. "${top_srcdir:-.}/tests/lib.sh"

# channel n (0-7): (n+1) x 1e6 requests/s per socket -> 36e6 x 64 B
rates=$(awk 'BEGIN {
	for (n = 0; n < 8; n++) {
		c = sprintf("0x%x", 7 + 64 * n)
		printf "\"df:%s:0x38\": %g, \"df:%s:0x3c\": 5e8, ", c, (n + 1) * 1e6, c
	}
	for (n = 0; n < 12; n++) {
		c = sprintf("0x%x", 31 + 64 * n)
		printf "\"df:%s:0xfe\": 4e8, \"df:%s:0xff\": 4e8, ", c, c
	} }')
TOT=2.304e9

# Zen 3's amd_df umask is 8 bits (no PerfMonV2): a Zen 4/5 umask is refused
echo '{ "platform": "zen3", "phases": [ { "seconds": 1, "rates": { "df:0x1f:0xffe": 1 } } ] }' >"$T/bad.json"
out=$("$UNCORED" --simulate=zen3 --workload "$T/bad.json" -n 2>&1)
like "$out" "umask 0xffe does not fit the 8-bit umask field of df" \
	"a Zen 4/5 data fabric umask does not fit zen3's df"

for k in 6.1.0 6.12.0; do
	cat >"$T/wl-$k.json" <<JSON
{ "platform": "zen3", "sockets": 2, "perf": { "kernel": "$k" },
  "phases": [ { "seconds": 3600, "rates": { $rates
    "l3:0x04:0xff": 1.0e8, "l3:0x04:0x01": 2.0e7 } } ] }
JSON
	PORT=$(pick_port)
	U="http://127.0.0.1:$PORT"
	start_uncored "$T/$k.log" --simulate=zen3 --backend=perf \
		--workload "$T/wl-$k.json" -i 200 -l "127.0.0.1:$PORT" -s ""
	ok $? "$k: the daemon starts"
	st=$(curl -s "$U/api/v1/status")
	is "$(echo "$st" | jq -c .baseline)" \
		'{"events":10,"groups":3,"events_in_turns":8}' \
		"$k: status: 8 of 10 baseline events take turns in 2 groups"
	is "$(echo "$st" | jq -r '[.dram.unit, .dram.kernel_pmu, .dram.events, .dram.in_turns, .dram.total_event, (.dram.read_event // "none")] | join(" ")')" \
		"df amd_df 8 true dram_channel_data_controller_0 none" \
		"$k: status: DRAM through the data fabric, a total, no read event"
	like "$(cat "$T/$k.log")" "DRAM from unit df (Data fabric, kernel PMU amd_df): reads and writes together" \
		"$k: the start-up log says the data fabric counts both together"
	wait_for "$k: two rotations" 60 ring_has "$PORT" 6
	curl -s "$U/metrics" >"$T/$k.prom"
	name=$k
	for s in 0 1; do
		near "$(metric "$T/$k.prom" uncore_dram_total_bandwidth_bytes_per_second "socket=\"$s\"")" \
			$TOT 0.03 "$k, socket $s: DRAM total bandwidth $TOT B/s"
		near "$(metric "$T/$k.prom" uncore_llc_hit_ratio "socket=\"$s\"")" 0.8 0.03 \
			"$k, socket $s: L3 hit ratio"
	done
	ok "$(grep -q '^uncore_dram_bytes_total{socket="0"}' "$T/$k.prom"; echo $?)" \
		"$k: uncore_dram_bytes_total is exported"
	ok "$(grep -Eq '^uncore_dram_(read|write)_bytes_total|^uncore_dram_bandwidth_bytes_per_second' "$T/$k.prom"; [ $? -ne 0 ]; echo $?)" \
		"$k: no read, write or direction family (there is no split to give)"
	is "$(metric "$T/$k.prom" uncored_dram_source_info 'unit="df",turns="true"')" 1 \
		"$k: uncored_dram_source_info names df, in turns"
	# the samples the live page draws: dram_bytes_per_second, no read key
	h=$(ring_head "$PORT")
	curl -s "$U/api/v1/samples?since=$((h - 2))&limit=2" >"$T/s.json"
	is "$(jq -c '[.samples[].sockets[] | [has("dram_bytes_per_second"), has("dram_read_bytes_per_second")]] | unique' "$T/s.json")" \
		'[[true,false]]' "$k: samples carry the total gauge and no read gauge"
	kill "$UPID"; wait "$UPID" 2>/dev/null
done

# the default workload
PORT=$(pick_port)
start_uncored "$T/def.log" --simulate=zen3 -i 200 -l "127.0.0.1:$PORT" -s ""
ok $? "--simulate=zen3 starts with its default workload"
wait_for "4 samples" 60 ring_has "$PORT" 4
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/def.prom"
ok "$(grep -q '^uncore_dram_total_bandwidth_bytes_per_second{socket="1"}' "$T/def.prom"; echo $?)" \
	"default workload: the DRAM total gauge on socket 1"
kill "$UPID"; wait "$UPID" 2>/dev/null

tap_done
