#!/bin/sh
# client_perf.sh - the Core clients since Alder Lake (adl: Alder Lake,
# Raptor Lake; mtl: Meteor Lake, Arrow Lake) on the simulated kernel,
# with known workloads: DRAM read and write bytes from the two memory
# controllers' free-running counters (uncore_imc_free_running_0/1,
# data_read umask 0x20, data_write umask 0x30, 64 bytes a count), summed
# over both controllers, and the uncore clock from the NCU's fixed
# counter (uncore_clock on adl, uncore_cncu on mtl).  Decoys a wrong
# encoding would count: data_total (umask 0x10) and the programmable CAS
# counts (0x22/0x23) at other rates, the controllers unequal.  No LLC,
# channel or interconnect family; the status and log name the PMUs; the
# direct backend refuses them, naming perf (as for zen4); ARB and IMC
# events are claimable.
. "${top_srcdir:-.}/tests/lib.sh"

# client_run PLATFORM UCLK: the daemon on the simulated kernel with the
# workload below, -i 200, 4 samples, /metrics in $T/PLATFORM.prom.
# Controller 0 reads 1e8 lines/s and writes 2e7, controller 1 reads
# 5e7 and writes 3e7: 9.6e9 B/s read, 3.2e9 B/s written.
client_run() {
	cat >"$T/$1.json" <<JSON
{ "platform": "$1", "uclk_hz": $2, "phases": [ { "seconds": 600, "rates": {
  "imc_free:UNC_M_FREE_RUNNING.DATA_READ@0": 1.0e8,
  "imc_free:UNC_M_FREE_RUNNING.DATA_READ@1": 5.0e7,
  "imc_free:UNC_M_FREE_RUNNING.DATA_WRITE@0": 2.0e7,
  "imc_free:UNC_M_FREE_RUNNING.DATA_WRITE@1": 3.0e7,
  "imc_free:UNC_M_FREE_RUNNING.DATA_TOTAL": 9.0e8,
  "imc:0x22:0x00": 7.0e8, "imc:0x23:0x00": 6.0e8,
  "arb:0x81:0x01": 4.0e7 } } ] }
JSON
	PORT=$(pick_port)
	U="http://127.0.0.1:$PORT"
	start_uncored "$T/$1.log" --simulate="$1" --backend=perf \
		--workload "$T/$1.json" -i 200 -l "127.0.0.1:$PORT" -s "$T/$1.sock"
	ok $? "$1: the daemon starts on the perf backend"
	wait_for "$1: 4 samples" 60 ring_has "$PORT" 4
	curl -s "$U/metrics" >"$T/$1.prom"
}

client_check() {
	p=$1 clk=$2 clkpmu=$3
	near "$(metric "$T/$p.prom" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" \
		9.6e9 0.03 "$p: DRAM read 9.6e9 B/s, both controllers' data_read x 64"
	near "$(metric "$T/$p.prom" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="write"')" \
		3.2e9 0.03 "$p: DRAM write 3.2e9 B/s, both controllers' data_write x 64"
	near "$(metric "$T/$p.prom" uncore_clock_hertz 'socket="0"')" "$clk" 0.03 \
		"$p: uncore clock $clk Hz"
	is "$(grep -c '^uncore_llc_\|^uncore_dram_channel_\|^uncore_upi_\|^uncore_qpi_' "$T/$p.prom")" 0 \
		"$p: no LLC, channel or interconnect family"
	is "$(grep -c '^uncore_dram_read_bytes_total{' "$T/$p.prom")" 1 "$p: one socket"
	st=$(curl -s "$U/api/v1/status")
	is "$(echo "$st" | jq -r '[.dram.unit, .dram.kernel_pmu] | join(" ")')" \
		"imc_free uncore_imc_free_running_0" "$p: status: DRAM from the free-running PMUs"
	like "$(cat "$T/$p.log")" "platform $p (perf backend, simulator), 1 socket" \
		"$p: the start-up line"
	# an ARB event is claimable and counts what the workload plays
	c=$(curl -s -o "$T/$p.claim" -w '%{http_code}' --unix-socket "$T/$p.sock" \
		-X POST http://x/api/v1/claims -d '{"events":["UNC_ARB_TRK_REQUESTS.ALL"]}')
	if [ "$p" = adl ]; then
		is "$c" 201 "$p: a claim on UNC_ARB_TRK_REQUESTS.ALL"
	else
		# not in Intel's MTL/ARL data: refused as unknown
		is "$c" 400 "$p: UNC_ARB_TRK_REQUESTS.ALL is not an mtl event"
	fi
	kill "$UPID"; wait "$UPID" 2>/dev/null
}

client_run adl 2800000000
client_check adl 2.8e9 uncore_clock
client_run mtl 2400000000
client_check mtl 2.4e9 uncore_cncu

# the simulated kernel's tree: the PMUs named as uncore_snb.c names them,
# the free-running events and scale as the kernel writes them
SIM="$top_builddir/uncore-sim"
for p in adl mtl; do
	"$SIM" -p $p sysfs "$T/k-$p" >/dev/null 2>&1
	ok $? "$p: uncore-sim writes the simulated kernel's tree"
	d="$T/k-$p/sys/bus/event_source/devices"
	is "$(cat "$d/uncore_imc_free_running_1/events/data_read") $(cat "$d/uncore_imc_free_running_1/events/data_write")" \
		"event=0xff,umask=0x20 event=0xff,umask=0x30" "$p: data_read, data_write"
	is "$(cat "$d/uncore_imc_free_running_0/events/data_read.scale") $(cat "$d/uncore_imc_free_running_0/events/data_read.unit")" \
		"6.103515625e-5 MiB" "$p: 64 bytes a count, the scale as the kernel writes it"
	is "$(cat "$d/uncore_imc_1/format/chmask")" "config:8-11" "$p: iMC chmask field"
done
is "$(ls "$T/k-adl/sys/bus/event_source/devices" | grep -c '^uncore_clock$\|^uncore_arb_1$')" 2 \
	"adl: uncore_clock and uncore_arb_0/1"
is "$(cat "$T/k-adl/sys/bus/event_source/devices/uncore_arb_0/format/cmask")" "config:24-28" \
	"adl: ARB threshold is cmask 24-28"
is "$(ls "$T/k-mtl/sys/bus/event_source/devices" | grep -c '^uncore_cncu$\|^uncore_clock$\|^uncore_hac_cbox_1$')" 2 \
	"mtl: uncore_cncu (no uncore_clock), uncore_hac_cbox_0/1"
is "$(cat "$T/k-mtl/sys/bus/event_source/devices/uncore_arb_0/format/threshold")" "config:24-29" \
	"mtl: ARB threshold 24-29"

# the direct backend: perf only, said so (as zen4)
for p in adl mtl; do
	out=$("$UNCORED" --simulate=$p --backend=direct -u nobody -l 127.0.0.1:0 \
		-s "" 2>&1)
	rc=$?
	ok "$([ "$rc" -ne 0 ]; echo $?)" "$p: --backend=direct refused (exit $rc)"
	like "$out" "perf backend" "$p: the refusal names the perf backend"
done

# the self-test: DRAM follows the load; no LLC, said so
for p in adl mtl; do
	"$UNCORED" --self-test --simulate=$p --backend=perf -u nobody >"$T/st-$p.out" 2>&1
	is "$?" 0 "$p: the self-test passes on the perf backend"
done
like "$(cat "$T/st-adl.out")" "the platform has none" "adl self-test: no LLC family, said so"

# --list-platforms: the CPU models of each (Intel's mapfile.csv)
out=$("$UNCORED" --list-platforms)
like "$(echo "$out" | sed -n '/^adl/,/checked/p')" "model 0x97, 0x9a, 0xb7, 0xba, 0xbf, 0xbe" \
	"--list-platforms: adl's CPUs"
like "$(echo "$out" | sed -n '/^mtl/,/checked/p')" "model 0xaa, 0xac, 0xb5, 0xc5-0xc6" \
	"--list-platforms: mtl's CPUs"
like "$(echo "$out" | sed -n '/^mtl/,/checked/p')" "backends: perf" "--list-platforms: mtl is perf-only"

tap_done
