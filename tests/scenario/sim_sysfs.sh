#!/bin/sh
# sim_sysfs.sh - `uncore-sim sysfs DIR`: the simulated kernel's tree
# (what --simulate=P --backend=perf reads) written out for every platform
# with kernel PMU facts, laid out as Linux lays it out, shaped by the
# workload's "perf" object; and clear refusals.
. "${top_srcdir:-.}/tests/lib.sh"
SIM="$top_builddir/uncore-sim"

for p in skl hsx snbep skx icx spr zen4 adl mtl zen5 zen3 gnr; do
	out=$("$SIM" -p "$p" sysfs "$T/$p" 2>&1); rc=$?
	is "$rc" 0 "$p: the tree is written"
	is "$out" "$T/$p/sys
$T/$p/proc" "$p: the sysfs and procfs roots are printed"
	bad=0
	for l in "$T/$p"/sys/bus/event_source/devices/*; do
		n=${l##*/}
		[ -L "$l" ] && [ "$(readlink "$l")" = "../../../devices/$n" ] &&
			[ -s "$l/type" ] && [ -s "$l/cpumask" ] &&
			[ -d "$l/format" ] || { bad=1; echo "# $n is incomplete"; }
	done
	is "$bad" 0 "$p: every PMU is a link to devices/ with type, cpumask, format/"
done

is "$(cat "$T/skl/sys/bus/event_source/devices/uncore_imc/events/data_reads")" \
	"event=0x01" "skl: data_reads as the kernel writes it"
# Byte for byte, trailing newline included ($(cat) would drop it): the
# kernel prints an uncore alias, its .scale and .unit verbatim and without
# a newline (uncore.c uncore_event_show, "%s"; the string in
# uncore_snbep.c snbep_uncore_imc_events is "6.103515625e-5"), a cstate
# alias with one (core.c perf_event_sysfs_show, "%s\n"), a format file
# with one.
bytes() { od -An -c "$1" | tr -s ' \n' ' '; }
is "$(bytes "$T/hsx/sys/devices/uncore_imc_0/events/cas_count_read.scale")" \
	"$(printf '6.103515625e-5' | od -An -c | tr -s ' \n' ' ')" \
	"hsx: cas_count_read.scale is the kernel's string, no newline"
is "$(bytes "$T/hsx/sys/devices/uncore_imc_0/events/cas_count_read.unit")" \
	"$(printf 'MiB' | od -An -c | tr -s ' \n' ' ')" "hsx: its .unit"
is "$(bytes "$T/skl/sys/devices/uncore_imc/events/data_writes.scale")" \
	"$(printf '6.103515625e-5' | od -An -c | tr -s ' \n' ' ')" \
	"skl: data_writes.scale as uncore_snb.c writes it"
is "$(bytes "$T/hsx/sys/devices/cstate_core/events/c6-residency")" \
	"$(printf 'event=0x02\n' | od -An -c | tr -s ' \n' ' ')" \
	"hsx: a cstate alias ends in a newline"
is "$(bytes "$T/hsx/sys/devices/uncore_imc_0/format/umask")" \
	"$(printf 'config:8-15\n' | od -An -c | tr -s ' \n' ' ')" \
	"hsx: a format file ends in a newline"
is "$(cat "$T/hsx/sys/devices/uncore_qpi_0/format/event")" "config:0-7,21" \
	"hsx: QPI event field with bit 21"
is "$(cat "$T/skx/sys/devices/uncore_cha_27/cpumask")" "0,8" \
	"skx: a CHA PMU names one CPU per socket"
ok "$([ -d "$T/icx/sys/devices/uncore_imc_free_running_1/events" ]; echo $?)" \
	"icx: free-running IMC PMUs have their aliases"
is "$(cat "$T/zen4/sys/devices/amd_umc_12/cpumask")" "12" \
	"zen4: amd_umc_N count on across the sockets, each on its own"
is "$(cat "$T/zen4/sys/devices/system/cpu/cpu13/topology/physical_package_id")" \
	"1" "zen4: CPU 13 is on package 1"
is "$(cat "$T/zen3/sys/devices/amd_df/format/event")" "config:0-7,32-35,59-60" \
	"zen3: amd_df without PerfMonV2 (event14)"
is "$(cat "$T/zen3/sys/devices/amd_df/format/umask")" "config:8-15" \
	"zen3: and its 8-bit umask"
ok "$(ls -d "$T"/zen3/sys/devices/amd_umc_* >/dev/null 2>&1; [ $? -ne 0 ]; echo $?)" \
	"zen3: no amd_umc_N (it needs PerfMonV2)"
is "$(cat "$T/zen5/sys/devices/amd_df/format/umask")" "config:8-15,24-27" \
	"zen5: amd_df with PerfMonV2 (umask12)"
is "$(cat "$T/zen5/sys/devices/amd_l3/format/threadmask")" "config:56-57" \
	"zen5: amd_l3 with the family 19h fields"
is "$(cat "$T/gnr/sys/devices/uncore_cha_0/format/umask")" "config:8-15,32-63" \
	"gnr: cha umask_ext5"
is "$(cat "$T/gnr/sys/devices/uncore_imc_0/format/umask")" "config:8-15,32-55" \
	"gnr: imc umask_ext4"
ok "$([ ! -e "$T/gnr/sys/devices/uncore_upi_0" ] &&
	[ -e "$T/gnr/sys/devices/uncore_b2cmi_0" ]; echo $?)" \
	"gnr on the default kernel (6.12): B2CMI, no UPI (6.14)"
is "$(cat "$T/gnr/sys/devices/uncore_imc_0/events/cas_count_read")" \
	"event=0x05,umask=0xcf" "gnr before 2026: cas_count_read is scheduler 0's"
is "$(cat "$T/skx/proc/sys/kernel/perf_event_paranoid")" "2" \
	"the default perf_event_paranoid"

cat >"$T/skx.json" <<'JSON'
{ "platform": "skx", "sockets": 1,
  "perf": { "paranoid": 1, "cap_perfmon": false, "kernel": "5.4.0",
            "missing_pmus": ["uncore_upi_*"] },
  "phases": [ { "seconds": 10, "rates": {} } ] }
JSON
out=$("$SIM" -w "$T/skx.json" sysfs "$T/skx1" 2>&1); rc=$?
is "$rc" 0 "skx with a workload's perf object ($out)"
ok "$([ ! -e "$T/skx1/sys/devices/uncore_upi_0" ]; echo $?)" \
	"missing_pmus: no uncore_upi_0"
is "$(cat "$T/skx1/sys/devices/uncore_cha_0/cpumask")" "0" "one socket"
is "$(cat "$T/skx1/proc/sys/kernel/perf_event_paranoid")" "1" "paranoid 1"
like "$(cat "$T/skx1/proc/self/status")" "CapEff:	0000000000000000" \
	"no capability"
is "$(cat "$T/skx1/proc/sys/kernel/osrelease")" "5.4.0" "the kernel release"

out=$("$SIM" -p skx sysfs "$T/skx" 2>&1); rc=$?
is "$rc" 1 "a directory that is not empty is refused"
like "$out" "is not empty" "saying so"
echo '{ "platform": "skx", "perf": { "missing_pmus": ["uncore_nope"] }, "phases": [ { "seconds": 1, "rates": {} } ] }' >"$T/bad.json"
out=$("$SIM" -w "$T/bad.json" sysfs "$T/bad" 2>&1); rc=$?
is "$rc" 1 "a PMU name the platform lacks is refused"
like "$out" "bad.json: \$.perf.missing_pmus[0]: no PMU of skx matches" \
	"with the file and the JSON path"
out=$("$SIM" -p skx read msr:0x700 2>&1); rc=$?
is "$rc" 1 "skx has no registers to read"
like "$out" "--backend=perf" "and says where to go"
tap_done
