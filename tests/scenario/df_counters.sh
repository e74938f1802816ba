#!/bin/sh
# df_counters.sh - the data fabric's counter count comes from CPUID as the
# kernel takes it (0x80000022 EBX[15:10] NumDfPmc under PerfMonV2; issue
# 28 section 4), here the simulated CPU's (the workload's "df_counters"),
# and the DRAM events' turns follow it.  On a 6.1 kernel (no amd_umc_N)
# zen4's DRAM is 48 DF beat events: on 4 counters 12 turns, each event
# counted in 1 sample of 12; on 16 counters 3 turns, each counted in 4
# of 12.  zen5's 24 events: 6 turns of 4 (2 of 12 samples), or 2 turns
# of 16 and 8 (6 of 12).  The DRAM figures are right either way (within
# 3 %), from unequal stations (a station standing for another would be
# far off), with decoy encodings at other rates.  A count above 16 is
# cut to the 16 uncored places, said in the log, and zen3, without
# PerfMonV2, has no such key.
. "${top_srcdir:-.}/tests/lib.sh"

# zen4 per socket: station n (0-11) local reads (n+1) x 1e6 beats/s,
# remote reads (n+1) x 2e5, local writes (12-n) x 5e5, remote writes
# (12-n) x 1e5: reads 78 x 1.2e6 x 64 B, writes 78 x 6e5 x 64 B.
z4=$(awk 'BEGIN {
	for (n = 0; n < 12; n++) {
		c = sprintf("0x%x", 31 + 64 * n)
		printf "\"df:%s:0x7fe\": %g, \"df:%s:0xbfe\": %g, ", c, (n + 1) * 1e6, c, (n + 1) * 2e5
		printf "\"df:%s:0x7ff\": %g, \"df:%s:0xbff\": %g, ", c, (12 - n) * 5e5, c, (12 - n) * 1e5
	} }')
Z4RD=5.9904e9 Z4WR=2.9952e9
# zen5 per socket: channel n reads (n+1) x 1e6 (umask 0xffe), writes
# (12-n) x 5e5 (0xfff); decoys: zen4's local/remote umasks at 7e6/3e6.
z5=$(awk 'BEGIN {
	for (n = 0; n < 12; n++) {
		c = sprintf("0x%x", 31 + 64 * n)
		printf "\"df:%s:0xffe\": %g, \"df:%s:0xfff\": %g, ", c, (n + 1) * 1e6, c, (12 - n) * 5e5
		printf "\"df:%s:0x7fe\": 7e6, \"df:%s:0xbfe\": 3e6, ", c, c
	} }')
Z5RD=4.992e9 Z5WR=2.496e9

# wl PLATFORM RATES DF_COUNTERS: a 6.1-kernel workload ("" DF_COUNTERS:
# no key, the part's default)
wl() {
	dc=
	[ -n "$3" ] && dc="\"df_counters\": $3,"
	printf '{ "platform": "%s", "sockets": 2, %s "perf": { "kernel": "6.1.0" },
  "phases": [ { "seconds": 3600, "rates": { %s
    "l3:0x04:0xff": 1.0e8, "l3:0x04:0x01": 2.5e7 } } ] }\n' "$1" "$dc" "$2"
}

# run PLATFORM RATES DF_COUNTERS PLACED GROUPS PER12 RD WR [LOGTEXT]:
# starts the daemon, checks the count it took (and the log's LOGTEXT),
# the groups, each DF event's share of the last 12 samples (PER12 of them
# measured, the others estimated) and the DRAM gauges; leaves the log in
# $T/$1-$3.log.
run() {
	p=$1 n=${3:-default} placed=$4 groups=$5 per12=$6 rd=$7 wr=$8
	logtext=${9:-"df: $placed counters (CPUID 0x80000022 EBX[15:10] NumDfPmc"}
	tag="$p, df_counters $n"
	wl "$1" "$2" "$3" >"$T/$p-$n.json"
	PORT=$(pick_port)
	U="http://127.0.0.1:$PORT"
	start_uncored "$T/$p-$n.log" --simulate="$p" --backend=perf \
		--workload "$T/$p-$n.json" -i 200 -l "127.0.0.1:$PORT" -s ""
	ok $? "$tag: the daemon starts"
	like "$(cat "$T/$p-$n.log")" "$logtext" \
		"$tag: the log says the count and where it came from"
	is "$(curl -s "$U/api/v1/topology" | jq -c '[.sockets[].units[] | select(.unit == "df") | .instance_list[].counters | length]')" \
		"[$placed,$placed]" "$tag: topology: $placed DF counters per socket"
	st=$(curl -s "$U/api/v1/status")
	is "$(echo "$st" | jq .baseline.groups)" "$groups" \
		"$tag: $((groups - 1)) groups of DF events take turns"
	wait_for "a rotation and 12 samples" 60 ring_has "$PORT" $((groups + 14))
	h=$(ring_head "$PORT")
	curl -s "$U/api/v1/samples?since=$((h - 12))&limit=12" >"$T/$p-$n.samples"
	is "$(jq '.samples | length' "$T/$p-$n.samples")" 12 "$tag: 12 samples"
	is "$(jq '[.samples[] | select(.valid)] | length' "$T/$p-$n.samples")" 12 \
		"$tag: every one valid"
	# each DF event on each socket: in how many of the 12 samples it was
	# measured (not an estimate): the same for all, 12 x counters / events
	is "$(jq -c '[.samples[].deltas[] | select(.unit == "df")]
		| group_by([.socket, .event])
		| map(map(select(.multiplexed | not)) | length) | unique' \
		"$T/$p-$n.samples")" "[$per12]" \
		"$tag: every DF event measured in $per12 of 12 samples"
	is "$(jq '[.samples[].deltas[] | select(.unit == "df")] | group_by([.socket, .event]) | length' \
		"$T/$p-$n.samples")" "$(jq -n "$(echo "$st" | jq .baseline.events_in_turns) * 2")" \
		"$tag: all of them, both sockets"
	curl -s "$U/metrics" >"$T/$p-$n.prom"
	for s in 0 1; do
		near "$(metric "$T/$p-$n.prom" uncore_dram_bandwidth_bytes_per_second "socket=\"$s\",direction=\"read\"")" \
			"$rd" 0.03 "$tag: socket $s DRAM read $rd B/s"
		near "$(metric "$T/$p-$n.prom" uncore_dram_bandwidth_bytes_per_second "socket=\"$s\",direction=\"write\"")" \
			"$wr" 0.03 "$tag: socket $s DRAM write $wr B/s"
	done
	kill "$UPID"; wait "$UPID" 2>/dev/null
}

# zen4: 48 events; 12 turns on 4 (the default), 3 on 16
run zen4 "$z4" "" 4 13 1 $Z4RD $Z4WR
run zen4 "$z4" 16 16 4 4 $Z4RD $Z4WR
# zen5: 24 events; 6 turns on 4, 2 on 16
run zen5 "$z5" 4 4 7 2 $Z5RD $Z5WR
run zen5 "$z5" 16 16 3 6 $Z5RD $Z5WR
# the share of the DRAM figures, side by side (the issue's question)
for f in zen4-default zen4-16 zen5-4 zen5-16; do
	echo "# $f: $(jq '[.samples[].deltas[] | select(.unit == "df")] |
		(map(select(.multiplexed | not)) | length) / length' "$T/$f.samples") of the DF deltas measured"
done

# more than uncored places: 16 of the kernel's 32, said in the log
run zen4 "$z4" 32 16 4 4 $Z4RD $Z4WR \
	"NumDfPmc) says 32 counters; uncored places events on 16 of them"

# zen3 has no PerfMonV2 and no such key: refused, naming it
wl zen3 '"df:0x07:0x38": 1e6,' 16 >"$T/zen3.json"
"$UNCORED" --simulate=zen3 --backend=perf --workload "$T/zen3.json" \
	-l 127.0.0.1:0 -s "" >"$T/zen3.log" 2>&1
ok "$([ $? -ne 0 ]; echo $?)" "zen3 with df_counters: the daemon refuses to start"
like "$(cat "$T/zen3.log")" '"df_counters" is not a zen3 key' \
	"naming the key and the platform"

tap_done
