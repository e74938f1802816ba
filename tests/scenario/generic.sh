#!/bin/sh
# generic.sh - platform "generic" (issue 30 section 2): a CPU model no
# table knows, whose kernel has uncore PMUs, counted through what the
# kernel names.  Two simulated kernels:
#
#  - "gnr-like": spr's PMU set and aliases (plat_spr.c, the kernel's
#    spr_uncore_imc_events) under CPUID model 0xDD (Clearwater Forest:
#    no table here; Granite Rapids, 0xAD, has its own, gnr).  DRAM bytes from uncore_imc_N/cas_count_read and
#    _write (event=0x05, umask 0xcf / 0xf0) x 64; a decoy at umask 0x0f
#    (another CAS sub-event) at another rate; two sockets.  No uncore
#    clock: spr's kernel writes clockticks only on uncore_imc_N (the
#    DRAM clock), so that family is absent, with its reason.
#  - "lnl-like": adl's PMU set (uncore_snb.c) under model 0xBD (Lunar
#    Lake: no table here), the kernel writing only some aliases: no
#    data_write, no data_total.  DRAM reads from the free-running
#    data_read of both controllers (unequal), the uncore clock from
#    uncore_clock/clockticks; DRAM writes absent with the reason; decoys
#    at data_write and data_total rates.
#
# Each answer would be wrong with a wrong encoding (the decoys), a wrong
# scale (x 64 from .scale 6.103515625e-5 MiB), or a missing box.
. "${top_srcdir:-.}/tests/lib.sh"

metric_of() { metric "$T/$1.prom" "$2" "$3"; }

run() {
	name=$1
	PORT=$(pick_port)
	U="http://127.0.0.1:$PORT"
	start_uncored "$T/$name.log" --simulate --backend=perf \
		--workload "$T/$name.json" -i 200 -l "127.0.0.1:$PORT" \
		-s "$T/$name.sock"
	ok $? "$name: the daemon starts on an unknown CPU"
	wait_for "$name: 4 samples" 60 ring_has "$PORT" 4
	curl -s "$U/metrics" >"$T/$name.prom"
	curl -s "$U/api/v1/status" >"$T/$name.status"
}

# ---- gnr-like: spr's PMUs under model 0xDD ------------------------------
cat >"$T/gnr.json" <<'JSON'
{ "platform": "spr", "sockets": 2,
  "perf": { "cpu_model": 221 },
  "phases": [ { "seconds": 600, "rates": {
    "imc:0x05:0xcf": 1.0e8, "imc:0x05:0xf0": 5.0e7,
    "imc:0x05:0x0f": 7.0e7, "imc:0x01:0x00": 2.0e9 } } ] }
JSON
run gnr
is "$(jq -r .platform "$T/gnr.status")" generic "gnr: status says platform generic"
is "$(jq -r .backend "$T/gnr.status")" perf "gnr: on the perf backend"
like "$(cat "$T/gnr.log")" "platform generic: GenuineIntel family 0x6 model 0xdd matches no platform table" \
	"gnr: the log says generic and names the CPU"
like "$(cat "$T/gnr.log")" "platform generic (perf backend, simulator), 2 sockets" \
	"gnr: the start-up line"
for s in 0 1; do
	near "$(metric_of gnr uncore_dram_bandwidth_bytes_per_second "socket=\"$s\",direction=\"read\"")" \
		6.4e9 0.03 "gnr: socket $s DRAM read 6.4e9 B/s (cas_count_read x 64)"
	near "$(metric_of gnr uncore_dram_bandwidth_bytes_per_second "socket=\"$s\",direction=\"write\"")" \
		3.2e9 0.03 "gnr: socket $s DRAM write 3.2e9 B/s (cas_count_write x 64)"
done
is "$(jq -r '.generic.families[] | select(.family=="dram_read") | .from' "$T/gnr.status")" \
	"uncore_imc_%u/cas_count_read (x 64 B: .scale 6.103515625e-5 MiB), summed over the boxes" \
	"gnr: status: DRAM reads from cas_count_read, with the kernel's scale"
is "$(jq -r '.generic.families[] | select(.family=="clock") | .present' "$T/gnr.status")" false \
	"gnr: no uncore clock family"
like "$(jq -r '.generic.families[] | select(.family=="clock") | .absent' "$T/gnr.status")" \
	"counts the DRAM clock" "gnr: and why (imc clockticks is the DRAM clock)"
is "$(grep -c '^uncore_clock_hertz' "$T/gnr.prom")" 0 "gnr: /metrics has no measured clock family (the kernel's limits, uncore_clock_limit_hertz, are another's)"
if command -v promtool >/dev/null 2>&1; then
	out=$(promtool check metrics <"$T/gnr.prom" 2>&1)
	is "$?" 0 "gnr: promtool check metrics reports nothing ($out)"
else
	skip "gnr: promtool check metrics" "promtool not installed"
fi
like "$(grep '^# HELP uncore_dram_read_bytes_total' "$T/gnr.prom")" "cas_count_read" \
	"gnr: the family's HELP names its kernel event"
is "$(curl -s "$U/api/v1/events?q=cas_count" | jq -r '[.events[].name] | join(" ")')" \
	"uncore_imc/cas_count_read uncore_imc/cas_count_write" \
	"gnr: the catalog holds the kernel's named events"
# a claim by kernel name counts what the workload plays on every box
c=$(curl -s -o "$T/gnr.claim" -w '%{http_code}' --unix-socket "$T/gnr.sock" \
	-X POST http://x/api/v1/claims -d '{"events":["uncore_imc/clockticks"]}')
is "$c" 201 "gnr: a claim on uncore_imc/clockticks"
id=$(jq -r .id "$T/gnr.claim")
claim_counted() {
	curl -s --unix-socket "$T/gnr.sock" "http://x/api/v1/claims/$id" >"$T/gnr.read"
	[ "$(jq '.time_enabled_s > 5' "$T/gnr.read")" = true ]
}
# 25 ticks or more: a tick's worth of window is within the tolerance
wait_for "gnr: the claim counts for 5 s" 60 claim_counted
# two counters a box (sysfs does not say how many; plat_generic.c): the
# claim's third event on each iMC box time-multiplexes with the baseline's
# two CAS events, and its scaled count is the estimate
r=$(jq '(.events[0].sockets[0].scaled / .time_enabled_s)' "$T/gnr.read")
near "$r" 2.0e9 0.05 "gnr: uncore_imc/clockticks counts the DRAM clock 2e9/s on socket 0 (scaled)"
ok "$(jq '.time_running_s < .time_enabled_s' "$T/gnr.read" | grep -q true; echo $?)" \
	"gnr: and it was multiplexed (running < enabled)"
kill "$UPID"; wait "$UPID" 2>/dev/null

# ---- lnl-like: adl's PMUs under model 0xBD, only some aliases -----------
cat >"$T/lnl.json" <<'JSON'
{ "platform": "adl", "uclk_hz": 2000000000,
  "perf": { "cpu_model": 189, "missing_events": ["data_write", "data_total"] },
  "phases": [ { "seconds": 600, "rates": {
    "imc_free:UNC_M_FREE_RUNNING.DATA_READ@0": 1.0e8,
    "imc_free:UNC_M_FREE_RUNNING.DATA_READ@1": 5.0e7,
    "imc_free:UNC_M_FREE_RUNNING.DATA_WRITE": 3.0e7,
    "imc_free:UNC_M_FREE_RUNNING.DATA_TOTAL": 9.0e8 } } ] }
JSON
run lnl
is "$(jq -r .platform "$T/lnl.status")" generic "lnl: platform generic"
near "$(metric_of lnl uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" \
	9.6e9 0.03 "lnl: DRAM read 9.6e9 B/s, both controllers' data_read x 64"
near "$(metric_of lnl uncore_clock_hertz 'socket="0"')" 2.0e9 0.03 \
	"lnl: uncore clock 2e9 Hz from uncore_clock/clockticks"
is "$(grep -c '^uncore_dram_write_bytes_total\|direction="write"' "$T/lnl.prom")" 0 \
	"lnl: no DRAM write family"
is "$(jq -r '.generic.families[] | select(.family=="dram_write") | .present' "$T/lnl.status")" false \
	"lnl: status: DRAM writes absent"
like "$(jq -r '.generic.families[] | select(.family=="dram_write") | .absent' "$T/lnl.status")" \
	"nor data_write on uncore_imc_free_running_N" "lnl: with the kernel names looked for"
like "$(cat "$T/lnl.log")" "no uncore_dram_write_bytes_total: the kernel names none of cas_count_write" \
	"lnl: the log says so too"
is "$(jq -r '.generic.families[] | select(.family=="clock") | .from' "$T/lnl.status")" \
	"uncore_clock/clockticks" "lnl: the clock's kernel event"
c=$(curl -s -o "$T/lnl.claim" -w '%{http_code}' --unix-socket "$T/lnl.sock" \
	-X POST http://x/api/v1/claims -d '{"events":["uncore_imc_free_running/data_write"]}')
is "$c" 400 "lnl: an alias the kernel does not write is no event"
# a claim by kernel name, with the kernel's .scale and .unit applied:
# (1e8 + 5e7) lines/s x 6.103515625e-5 MiB = 9155.2734375 MiB/s
c=$(curl -s -o "$T/lnl.claim" -w '%{http_code}' --unix-socket "$T/lnl.sock" \
	-X POST http://x/api/v1/claims -d '{"events":["uncore_imc_free_running/data_read"]}')
is "$c" 201 "lnl: a claim on uncore_imc_free_running/data_read"
id=$(jq -r .id "$T/lnl.claim")
lnl_counted() {
	curl -s --unix-socket "$T/lnl.sock" "http://x/api/v1/claims/$id" >"$T/lnl.read"
	[ "$(jq '.time_enabled_s > 5' "$T/lnl.read")" = true ]
}
wait_for "lnl: the claim counts for 5 s" 60 lnl_counted
is "$(jq -r '.events[0].kernel | "\(.scale) \(.unit)"' "$T/lnl.read")" \
	"6.103515625e-05 MiB" "lnl: the claim carries the kernel's scale and unit"
near "$(jq '.events[0].sockets[0].value / .time_enabled_s' "$T/lnl.read")" \
	9155.2734375 0.05 "lnl: its value is MiB: 9155 MiB/s read"
near "$(jq '.events[0].sockets[0].value / .events[0].sockets[0].estimate' "$T/lnl.read")" \
	6.103515625e-5 0.000001 "lnl: value = estimate x scale"
is "$(curl -s "$U/api/v1/events?q=data_read" | jq -r '.events[0] | "\(.name) \(.kernel_unit)"')" \
	"uncore_imc_free_running/data_read MiB" "lnl: the catalog gives the kernel's unit"
kill "$UPID"; wait "$UPID" 2>/dev/null

# ---- refusals and listings -----------------------------------------------
cat >"$T/bad.json" <<'JSON'
{ "platform": "spr", "perf": { "cpu_model": 106 },
  "phases": [ { "seconds": 1, "rates": {} } ] }
JSON
out=$("$UNCORED" --simulate --backend=perf --workload "$T/bad.json" -u nobody \
	-l 127.0.0.1:0 -s "" 2>&1)
ok "$([ $? -ne 0 ]; echo $?)" "a model of another table (icx 0x6A) under spr's PMUs is refused"
like "$out" "perf.cpu_model 0x6a is platform icx's, not the workload's spr" "saying why"
out=$("$UNCORED" --simulate --backend=direct --workload "$T/gnr.json" -u nobody \
	-l 127.0.0.1:0 -s "" 2>&1)
like "$out" "run with --backend=perf" "--backend=direct on an unknown CPU names perf"
out=$("$UNCORED" --list-platforms)
like "$(echo "$out" | sed -n '/^generic/,/checked/p')" "backends: perf" \
	"--list-platforms lists generic, perf only"
tap_done
