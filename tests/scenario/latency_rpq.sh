#!/bin/sh
# latency_rpq.sh - uncore_dram_read_queue_latency_seconds on the simulated
# Ice Lake-SP (issue 41), perf backend: the memory
# controllers' read pending queue, RPQ occupancy (PCH0 0x80, PCH1 0x81) /
# inserts (0x10, umask 0x01 / 0x02) summed over every channel and both
# pseudo-channels, over one channel's DRAM clock (the free-running DCLK
# of its controller), 1.6 GHz, from a [baseline].
#   socket 0: PCH0 uneven over 4 channels: inserts 1, 2, 3, 4 e6/s at
#             100, 200, 300, 400 cycles; PCH1 1e7/s at 300 cycles: sum
#             then divide 6e9 / 2e7 = 300 cycles = 187.5 ns, 3.75 in the
#             queue (PCH0 alone, as pcm-latency counts it: 187.5 ns too
#             here, but 1e7 reads/s, half the count);
#   socket 1: PCH0 2e7 at 400 cycles, PCH1 as s0: 1.1e10 / 3e7 =
#             366.7 cycles = 229.2 ns (PCH0 alone would say 250 ns).
# Decoys: WPQ occupancy (0x82, 0x83), spr's iMC clock event 0x01/0x01.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/latency.sh"

workload() { # PLATFORM CLOCK-KEY DECOY-CLOCK-KEY [TOPOLOGY]
	cat <<JSON
{ "platform": "$1", "sockets": 2, "imc_channels": 4, ${4:-}
  "phases": [ { "seconds": 3600, "rates": {
$(uneven_rates "imc:0x10:0x01" "imc:0x80:0x00")
    "imc:0x10:0x02": 1.0e7, "imc:0x81:0x00": 3.0e9,
    "imc:0x82:0x00": 7.0e10, "imc:0x83:0x00": 6.0e10,
    $2, $3
  } } ] }
JSON
}

# run NAME PLATFORM CONF: the daemon, $T/NAME.m0 and .m1 a few ticks apart
run() {
	PORT=$(pick_port)
	printf '[daemon]\ninterval_ms = 200\n%s\n' "$3" >"$T/$1.conf"
	start_uncored "$T/$1.log" -c "$T/$1.conf" --simulate="$2" \
		--backend=perf --workload "$T/$1.wl.json" -l "127.0.0.1:$PORT" -s ""
	r=$?
	ok $r "$1: daemon up on the simulated $2"
	[ $r -eq 0 ] || tail -5 "$T/$1.log" | sed 's/^/#   /'
	wait_for "$1: 3 samples" 60 ring_has "$PORT" 3
	scrape "$PORT" "$T/$1.m0"
	wait_samples "$PORT" 12
	scrape "$PORT" "$T/$1.m1"
}

# check NAME: the answers on both sockets
check() {
	F=uncore_dram_read_queue_latency_seconds
	sr0=$(rate ${F}_sum 'socket="0"' "$T/$1.m0" "$T/$1.m1")
	cr0=$(rate ${F}_count 'socket="0"' "$T/$1.m0" "$T/$1.m1")
	like "$(grep "^# TYPE $F " "$T/$1.m1")" summary \
		"$1: $F is a summary"
	near "$(summary_mean $F 'socket="0"' "$T/$1.m0" "$T/$1.m1")" 187.5e-9 0.01 \
		"$1 s0: 300 DCLK cycles = 187.5 ns over both pseudo-channels, every channel"
	near "$cr0" 2.0e7 0.05 "$1 s0: rate(_count) 2e7 reads/s, PCH0 and PCH1"
	near "$sr0" 3.75 0.05 "$1 s0: rate(_sum) 3.75 reads in the queues"
	near "$(summary_mean $F 'socket="1"' "$T/$1.m0" "$T/$1.m1")" 229.1667e-9 0.01 \
		"$1 s1: 366.7 cycles = 229.2 ns (PCH0 alone: 250 ns)"
}

# icx: the free-running DCLK (two controllers of two channels) is the clock
workload icx '"imc_free:UNC_M_FREE_RUNNING.DCLK": 3.2e9' '"imc:0x01:0x01": 5.0e9' \
	'"imc_free_count": 2,' >"$T/icx.wl.json"
run icx icx "[baseline]
imc = UNC_M_RPQ_OCCUPANCY_PCH0 UNC_M_RPQ_INSERTS.PCH0
  UNC_M_RPQ_OCCUPANCY_PCH1 UNC_M_RPQ_INSERTS.PCH1
imc_free = UNC_M_FREE_RUNNING.DATA_READ UNC_M_FREE_RUNNING.DATA_WRITE
  UNC_M_FREE_RUNNING.DCLK"
check icx
kill "$UPID"; wait "$UPID" 2>/dev/null

# the default baseline does not count the RPQ: no family
workload icx '"imc_free:UNC_M_FREE_RUNNING.DCLK": 3.2e9' '"imc:0x01:0x01": 5.0e9' \
	'"imc_free_count": 2,' >"$T/def.wl.json"
run def icx ""
is "$(grep -c '^uncore_dram_read_queue_latency' "$T/def.m1")" 0 \
	"the default baseline: no RPQ family (its events are counted from a [baseline])"
kill "$UPID"; wait "$UPID" 2>/dev/null
tap_end
