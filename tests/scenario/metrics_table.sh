#!/bin/bash
# metrics_table.sh - the derived metrics are one table per platform
# (src/plat/derived_*.c) that every renderer iterates: on skl and on hsx,
# /api/v1/metrics carries exactly the values /metrics has (same count,
# and the hsx QPI, HA and PCU families; no skl-only ARB gauge on hsx);
# every family keeps one aggregation level (the same label names on
# every sample, so sum() counts nothing twice: per-channel DRAM in its
# own families); no sample carries an "instance" label (Prometheus'
# target label; the unit instance is "box").
. "${top_srcdir:-.}/tests/lib.sh"

# derived FILE: the samples of the derived families (uncore_* but the
# raw per-series and claim families), one per line.
derived() {
	grep -E '^uncore_' "$1" | grep -vE '^uncore_(event|claim_events)_total'
}

# json_values JSON: the numbers and nulls in /api/v1/metrics' sockets,
# minus the socket/channel/port/die indices (die: the uncore clock limits'
# domains, where the kernel has intel_uncore_frequency) and the JSON-only
# gauges (the memory read latency's interval mean and reads in flight).
json_values() {
	echo "$1" | jq '[.sockets[] | .. | objects | to_entries[] |
		select(.key != "socket" and .key != "channel" and .key != "port"
		       and .key != "die")
		| select(.key | test("^memory_read_latency_[a-z]+_seconds$|^memory_reads_in_flight_") | not)
		| select(.value == null or (.value | type) == "number")] | length'
}

for plat in skl hsx; do
	PORT=$(pick_port)
	printf '[daemon]\ninterval_ms = 200\n' >"$T/c.conf"
	start_uncored "$T/log.$plat" -c "$T/c.conf" --simulate=$plat \
		--sim-state "$T/state.$plat" -l "127.0.0.1:$PORT" \
		-s "$T/ctl.$plat.sock"
	ok $? "$plat: daemon up"
	# a sample with deltas (the first has none)
	wait_for "$plat: 3 samples" 60 ring_has "$PORT" 3
	curl -s "http://127.0.0.1:$PORT/metrics" >"$T/m.$plat"
	am=$(curl -s "http://127.0.0.1:$PORT/api/v1/metrics")
	n_prom=$(derived "$T/m.$plat" | wc -l)
	n_json=$(json_values "$am")
	ok "$([ "$n_prom" -gt 10 ] && [ "$n_prom" = "$n_json" ]; echo $?)" \
		"$plat: /api/v1/metrics has as many derived values as /metrics ($n_json, $n_prom)"
	# one aggregation level per family: the label names of every sample
	# of a family are the same
	mixed=$(grep -vE '^#' "$T/m.$plat" | sed -nE 's/^([a-z_:]+)\{(.*)\} .*/\1 \2/p' |
		awk '{ n = split($2, kv, ","); names = "";
		       for (i = 1; i <= n; i++) { split(kv[i], p, "="); names = names p[1] "," }
		       if (($1 in seen) && seen[$1] != names) bad[$1] = 1; seen[$1] = names }
		     END { for (f in bad) printf "%s ", f }')
	is "$mixed" "" "$plat: every family has one aggregation level"
	is "$(grep -vE '^#' "$T/m.$plat" | grep -cE '[{,]instance=')" 0 \
		"$plat: no sample carries an instance label"
	like "$(grep -m1 '^uncore_event_total' "$T/m.$plat")" ',box="0",' \
		"$plat: uncore_event_total names the unit instance box"
	kill "$UPID"; wait "$UPID" 2>/dev/null
done

# hsx: what /metrics has, /api/v1/metrics has (the review found the
# QPI, HA and PCU metrics missing and the skl ARB gauge present)
like "$am" '"ha_requests_read_remote_total":' "hsx: HA requests in /api/v1/metrics"
like "$am" '"pcu_core_c6_cycles_total":' "hsx: PCU C-state residency in /api/v1/metrics"
like "$am" '"pcu_frequency_band3_cycles_total":' "hsx: PCU frequency bands in /api/v1/metrics"
like "$am" '"ports":[{"port":0,"qpi_data_bytes_total":' "hsx: QPI per port in /api/v1/metrics"
like "$am" '"channels":[{"channel":0,"dram_read_bytes_total":' "hsx: DRAM per channel in /api/v1/metrics"
is "$(echo "$am" | grep -c arb_occupancy)" 0 "hsx: no skl-only ARB metric in /api/v1/metrics"
# the socket family is the socket total; the channel family sums to it
sock=$(metric "$T/m.hsx" uncore_dram_read_bytes_total 'socket="0"')
chan=$(awk '/^uncore_dram_channel_read_bytes_total\{socket="0",/ { s += $2 } END { printf "%.0f", s }' "$T/m.hsx")
near "$chan" "$sock" 0.0001 "hsx: the channel family sums to the socket family ($chan, $sock)"
is "$(grep -c '^uncore_dram_read_bytes_total{.*channel=' "$T/m.hsx")" 0 \
	"hsx: no per-channel series in the socket family"
# the table is the only place: no derived metric is named in the
# renderers or the sampler (uncore_event_total, the raw per-series
# family, and uncore_claim_events_total, the claims', are not derived)
named=$(cd "$top_srcdir" && grep -noE '"uncore_[a-z_]+"' src/serve/metrics.c src/serve/api.c src/core/sampler.c |
	grep -vE '"uncore_(event|claim_events)_total"')
is "$named" "" "no derived metric name in metrics.c, api.c or sampler.c"
tap_done
