#!/bin/sh
# sim_cli.sh - the uncore-sim tool end to end: register reads and writes
# against the simulator, a shared state file between two invocations, the
# demo's rates against a workload with known answers, and clear errors.
. "${top_srcdir:-.}/tests/lib.sh"
SIM="$top_builddir/uncore-sim"

cat >"$T/wl.json" <<'JSON'
{ "platform": "skl", "cbo_count": 4, "uclk_hz": 800000000,
  "mchbar": "0xfed10001",
  "phases": [ { "seconds": 60, "rates": {
      "cbo:0x34:0x8f": 2.0e8, "cbo:0x34:0x88": 2.0e7,
      "imc:DRAM_DATA_READS": 1.5e8, "imc:DRAM_DATA_WRITES": 5.0e7 } } ] }
JSON

out=$("$SIM" -w "$T/wl.json" read msr:0x396 2>&1)
is "$out" "0x5" "CBO_CONFIG reads cbo_count + 1"
out=$("$SIM" -w "$T/wl.json" read pci:00:00.0+0x48/8 2>&1)
is "$out" "0xfed10001" "MCHBAR in the host bridge"
out=$("$SIM" -w "$T/wl.json" write msr:0x396 1 2>&1); rc=$?
is "$rc" 1 "writing a read-only MSR fails"
like "$out" "read-only" "and says so"
out=$("$SIM" -w "$T/wl.json" write msr:0x700 0x200000 2>&1); rc=$?
is "$rc" 1 "writing a reserved bit fails"
like "$out" "reserved bits 0x200000" "and names the bits"
out=$("$SIM" -w "$T/wl.json" read bogus:1 2>&1); rc=$?
is "$rc" 2 "bad address is a usage error"
like "$out" "bad register address" "with a message"
out=$("$SIM" -w "$T/nope.json" read msr:0xe01 2>&1); rc=$?
is "$rc" 1 "missing workload fails"
like "$out" "nope.json" "naming the file"
out=$("$SIM" scan 2>&1)
like "$out" "0000:00:00.0 8086:191f" "scan lists the host bridge"

# Shared state: one invocation writes, the next reads it back.
"$SIM" -w "$T/wl.json" -s "$T/state" write msr:0x700 0x408f34
out=$("$SIM" -w "$T/wl.json" -s "$T/state" read msr:0x700)
is "$out" "0x408f34" "registers persist in the state file"

# Demo: 2 samples at 0.5 s; hit ratio 90 %, DRAM 9.6 / 3.2 GB/s, 0.8 GHz.
out=$("$SIM" -w "$T/wl.json" demo -i 0.5 -n 2 2>&1)
line=$(echo "$out" | tail -1)
set -- $line
near "$2" 2.0e8 0.02 "demo: LLC lookups per second"
near "$3" 90 0.01 "demo: hit ratio"
near "$4" 9.6 0.02 "demo: DRAM read GB/s"
near "$5" 3.2 0.02 "demo: DRAM write GB/s"
near "$6" 0.8 0.02 "demo: uncore clock GHz"
tap_done
