#!/bin/sh
# io_bandwidth.sh - I/O traffic per socket and I/O stack
# (uncore_io_bytes_total{socket,stack,direction}, doc/metrics.md) from the
# kernel's IIO free-running bandwidth counters (uncore_iio_free_running_N)
# on the simulated kernel, with known workloads on skx, icx and spr: each
# stack's value is the sum of its ports' counts x the generation's bytes
# per count (skx 4, icx/spr 32), each direction its own counters.  The
# rates differ per port, stack, socket and direction, so a port left out,
# a stack or socket mixed up, the directions swapped or the wrong bytes
# per count (the 4 bytes kernels before 2025 gave icx/spr: 8x too few)
# give wrong answers.  A kernel without the PMUs: the families absent with
# the reason, the rest served.  Free-running counters: no programmable
# counter is taken.
. "${top_srcdir:-.}/tests/lib.sh"

# io_run NAME PLATFORM WORKLOAD-JSON: the daemon on the simulated kernel,
# -i 200, until 4 samples.
io_run() {
	name=$1 plat=$2
	printf '%s\n' "$3" >"$T/$name.json"
	PORT=$(pick_port)
	start_uncored "$T/$name.log" --simulate="$plat" --backend=perf \
		--workload "$T/$name.json" -i 200 -l "127.0.0.1:$PORT" -s ""
	ok $? "$name: daemon starts"
	wait_for "$name: 4 samples" 60 ring_has "$PORT" 4
	curl -s "http://127.0.0.1:$PORT/metrics" >"$T/$name.prom"
}
stop_uncored() { kill "$UPID"; wait "$UPID" 2>/dev/null; }

# io SOCKET STACK DIRECTION WANT: the stack's bandwidth gauge at 3 %.
io() {
	near "$(metric "$T/$name.prom" uncore_io_bandwidth_bytes_per_second \
		"socket=\"$1\",stack=\"$2\",direction=\"$3\"")" "$4" 0.03 \
		"$name: socket $1 stack $2 $3 $4 B/s"
}
# quiet SOCKET STACK DIRECTION: a stack without traffic reads 0.
quiet() {
	is "$(metric "$T/$name.prom" uncore_io_bandwidth_bytes_per_second \
		"socket=\"$1\",stack=\"$2\",direction=\"$3\"")" 0.0 \
		"$name: socket $1 stack $2 $3 idle"
}

# ---- Skylake-SP: 4 ports each way, 4 bytes a count (bw_in_port0-3,
# bw_out_port0-3; 36-bit counters the kernel extends).
# socket 0 stack 0: in (1+2+3+4)e8 x 4 = 4e9, out 5e7 x 4 = 2e8;
# socket 0 stack 2: in 2.5e8 x 4 = 1e9, out (1+1.5)e8 x 4 = 1e9;
# socket 1 stack 1: in 1e8 x 4 = 4e8, out 0.
io_run skx skx '{ "platform": "skx", "sockets": 2, "cha_count": 4, "iio_stacks": 3,
  "phases": [ { "seconds": 60, "rates": {
  "s0/iio_free:UNC_IIO_BANDWIDTH_IN.PART0_FREERUN@0": 1.0e8,
  "s0/iio_free:UNC_IIO_BANDWIDTH_IN.PART1_FREERUN@0": 2.0e8,
  "s0/iio_free:UNC_IIO_BANDWIDTH_IN.PART2_FREERUN@0": 3.0e8,
  "s0/iio_free:UNC_IIO_BANDWIDTH_IN.PART3_FREERUN@0": 4.0e8,
  "s0/iio_free:UNC_IIO_BANDWIDTH_OUT.PART0_FREERUN@0": 5.0e7,
  "s0/iio_free:UNC_IIO_BANDWIDTH_IN.PART3_FREERUN@2": 2.5e8,
  "s0/iio_free:UNC_IIO_BANDWIDTH_OUT.PART1_FREERUN@2": 1.0e8,
  "s0/iio_free:UNC_IIO_BANDWIDTH_OUT.PART2_FREERUN@2": 1.5e8,
  "s1/iio_free:UNC_IIO_BANDWIDTH_IN.PART0_FREERUN@1": 1.0e8 } } ] }'
io 0 0 in 4.0e9
io 0 0 out 2.0e8
io 0 2 in 1.0e9
io 0 2 out 1.0e9
io 1 1 in 4.0e8
quiet 1 1 out
quiet 0 1 in
quiet 1 0 in
# the counter family grows at the gauge's rate
rate_window "$PORT" 5
near "$(rate uncore_io_bytes_total 'socket="0",stack="0",direction="in"')" 4.0e9 \
	0.03 "skx: uncore_io_bytes_total grows 4e9 B/s on socket 0 stack 0"
is "$(grep -c '^uncore_io_bytes_total{socket="0",' "$T/skx.prom")" 6 \
	"skx: 3 stacks x 2 directions on socket 0"
like "$(grep '^# TYPE uncore_io_bytes_total' "$T/skx.prom")" "counter" \
	"skx: uncore_io_bytes_total is a counter"
stop_uncored

# ---- Ice Lake-SP: 8 ports inbound only (the kernel has no BW_OUT
# counters on icx), 32 bytes a count.
# socket 0 stack 1: (1e8 + 5e7) x 32 = 4.8e9; socket 0 stack 5: 1e7 x 32
# = 3.2e8; socket 1 stack 0: 2e7 x 32 = 6.4e8 (4 bytes would read 6e8,
# 4e7, 8e7).
io_run icx icx '{ "platform": "icx", "sockets": 2, "cha_count": 4, "iio_stacks": 6,
  "phases": [ { "seconds": 60, "rates": {
  "s0/iio_free:UNC_IIO_BANDWIDTH_IN.PART0_FREERUN@1": 1.0e8,
  "s0/iio_free:UNC_IIO_BANDWIDTH_IN.PART7_FREERUN@1": 5.0e7,
  "s0/iio_free:UNC_IIO_BANDWIDTH_IN.PART4_FREERUN@5": 1.0e7,
  "s1/iio_free:UNC_IIO_BANDWIDTH_IN.PART2_FREERUN@0": 2.0e7 } } ] }'
io 0 1 in 4.8e9
io 0 5 in 3.2e8
io 1 0 in 6.4e8
quiet 1 1 in
is "$(grep -c '^uncore_io_bytes_total{.*direction="out"' "$T/icx.prom")" 0 \
	"icx: no outbound series (no counters for it)"
stop_uncored

# ---- Sapphire Rapids: as icx (the kernel dropped bw_out_port*: no fixed
# increment), up to 16 stacks from the discovery table.
# socket 0 stack 11: 3e7 x 32 = 9.6e8; socket 1 stack 3: (2e7 + 1e7 + 5e6)
# x 32 = 1.12e9.
io_run spr spr '{ "platform": "spr", "sockets": 2, "cha_count": 4, "iio_stacks": 12,
  "phases": [ { "seconds": 60, "rates": {
  "s0/iio_free:UNC_IIO_BANDWIDTH_IN.PART6_FREERUN@11": 3.0e7,
  "s1/iio_free:UNC_IIO_BANDWIDTH_IN.PART1_FREERUN@3": 2.0e7,
  "s1/iio_free:UNC_IIO_BANDWIDTH_IN.PART2_FREERUN@3": 1.0e7,
  "s1/iio_free:UNC_IIO_BANDWIDTH_IN.PART5_FREERUN@3": 5.0e6 } } ] }'
io 0 11 in 9.6e8
io 1 3 in 1.12e9
quiet 0 3 in
quiet 1 11 in
is "$(grep -c '^uncore_io_bytes_total{socket="1",' "$T/spr.prom")" 12 \
	"spr: one series per stack on socket 1"
stop_uncored

# ---- a kernel without the IIO free-running PMUs: absent with the reason,
# the rest served
io_run noiio skx '{ "platform": "skx", "sockets": 2, "cha_count": 4,
  "perf": { "missing_pmus": ["uncore_iio_free_running_*"] },
  "phases": [ { "seconds": 60, "rates": {
  "cha:0x35:0x31:filter0=0x3b00000000": 2.0e8, "cha:0x35:0x21:filter0=0x3b00000000": 4.0e7,
  "cha:0x00:0x00": 9.6e9 } } ] }'
like "$(cat "$T/noiio.log")" "uncore_iio_free_running_%u" \
	"noiio: the missing PMU is logged by name"
like "$(curl -s "http://127.0.0.1:$PORT/api/v1/status")" \
	'iio_free (uncore_iio_free_running_%u)' "noiio: and named in the status"
is "$(grep -c '^uncore_io_' "$T/noiio.prom")" 0 "noiio: no I/O family at all"
near "$(metric "$T/noiio.prom" uncore_llc_hit_ratio 'socket="1"')" 0.8 0.03 \
	"noiio: LLC still served"
stop_uncored

tap_done
