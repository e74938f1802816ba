#!/bin/sh
# amd_perf_tool.sh - zen3's and zen5's kernel PMU data against Debian's
# perf (linux-perf), an encoder and an event table uncored shares no code
# or data with.  perf reads the simulated kernel's tree (uncore-sim
# sysfs, bind-mounted over /sys in a user and mount namespace):
#  - zen3 (PERF_CPUID AuthenticAMD-25-1-0: Milan, which Debian 12's perf
#    maps to its amdzen3 tables): every DRAM and L3 event uncored's
#    baseline counts resolves in perf's own tables to the event and umask
#    of uncored's catalog (/api/v1/events), and perf's config from the
#    tree's format/ files is the kernel's layout (event bits 0-7 and 32-35,
#    umask 8-15: dram_channel_data_controller_4 = 0x100003807).
#  - zen5: Debian 12's perf (6.1) has no amdzen5 tables (added to Linux
#    later), so names are checked only where the perf has them; raw terms
#    are, through the
#    tree's PerfMonV2 formats: amd_df event 0x11f umask 0xffe =
#    0x10f00fe1f, amd_umc_0 event 0x0a rdwrmask 1 = 0x10a, amd_l3 with
#    the count-everything terms = 0x300c0000000ff04.
# Skips without perf or where an unprivileged user namespace cannot
# mount (the reason is printed).
. "${top_srcdir:-.}/tests/lib.sh"
SIM="$top_builddir/uncore-sim"

if ! command -v perf >/dev/null 2>&1 || ! perf version >/dev/null 2>&1; then
	skip "Debian's perf against the simulated tree" "perf (linux-perf) not installed"
	tap_done; exit
fi
mkdir -p "$T/empty"
# lib.sh gives $T to nobody (mode 700) when run as root; root in a user
# namespace cannot pass an unmapped owner's directory: let it traverse
chmod a+x "$T"
if ! unshare -rm sh -c "mount --bind '$T/empty' /sys" >"$T/ns.err" 2>&1; then
	sed "s/^/#   /" "$T/ns.err"
	skip "Debian's perf against the simulated tree" \
		"no unprivileged user and mount namespace here (unshare -rm)"
	tap_done; exit
fi
echo "# $(perf version)"

# perf_attr TREE CPUID EVENT: "ALIAS-LINE|CONFIG" as perf builds it
perf_attr() {
	unshare -rm sh -c "mount --bind '$1/sys' /sys &&
		PERF_CPUID=$2 perf stat -vv -a -e '$3' true" >"$T/p.out" 2>&1
	printf '%s|%s\n' "$(sed -n 's/^.* -> \(.*\)$/\1/p' "$T/p.out" | head -1)" \
		"$(awk '$1 == "config" { print $2; exit }' "$T/p.out")"
}

"$SIM" -p zen3 sysfs "$T/zen3" >/dev/null
"$SIM" -p zen5 sysfs "$T/zen5" >/dev/null

# uncored's catalog, from a daemon on the simulated zen3
PORT=$(pick_port)
start_uncored "$T/z3.log" --simulate=zen3 -i 500 -l "127.0.0.1:$PORT" -s ""
ok $? "the daemon runs on the simulated zen3"
for n in 0 1 2 3 4 5 6 7 l3_cache_accesses l3_misses; do
	case $n in [0-7]) ev=dram_channel_data_controller_$n ;; *) ev=$n ;; esac
	cat_enc=$(curl -s "http://127.0.0.1:$PORT/api/v1/events?q=$ev" |
		jq -r --arg e "$ev" '.events[] | select(.name == $e) |
		"\(.unit) \(.code) \(.umask)"')
	got=$(perf_attr "$T/zen3" AuthenticAMD-25-1-0 "$ev")
	alias=${got%%|*} cfg=${got#*|}
	pmu=${alias%%/*}
	pev=$(printf '%s' "$alias" | sed -n 's/.*event=\(0x[0-9a-f]*\).*/\1/p')
	pum=$(printf '%s' "$alias" | sed -n 's/.*umask=\(0x[0-9a-f]*\).*/\1/p')
	set -- $cat_enc
	is "amd_$1 $(($2)) $(($3))" "$pmu $((pev)) $((pum))" \
		"zen3 $ev: perf's amdzen3 table gives uncored's unit, event and umask"
	# the kernel's layout: event bits 0-7 and 32-35, umask bits 8-15
	want=$(printf '0x%x' $(( ($2 & 0xff) | (($2 >> 8) & 0xf) << 32 | $3 << 8 )))
	is "$cfg" "$want" "zen3 $ev: perf's config from the tree's format/ files"
done
kill "$UPID"; wait "$UPID" 2>/dev/null

for x in "amd_df/event=0x11f,umask=0xffe/ 0x10f00fe1f" \
	 "amd_umc_0/event=0x0a,rdwrmask=1/ 0x10a" \
	 "amd_l3/event=0x04,umask=0xff,enallcores=1,enallslices=1,threadmask=0x3/ 0x300c0000000ff04"; do
	got=$(perf_attr "$T/zen5" AuthenticAMD-26-2-0 "${x% *}")
	is "${got#*|}" "${x#* }" "zen5 ${x% *}: perf's config from the tree's PerfMonV2 formats"
done
got=$(perf_attr "$T/zen5" AuthenticAMD-26-2-0 local_or_remote_socket_read_data_beats_dram_4)
if [ -z "${got%%|*}" ]; then
	skip "zen5 event names in this perf" \
		"$(perf version) has no amdzen5 tables (added to Linux after 6.1, which Debian 12 ships)"
else
	is "$got" "amd_df/event=0x11f,umask=0xffe/|0x10f00fe1f" \
		"zen5 local_or_remote_socket_read_data_beats_dram_4: perf's amdzen5 table and config"
fi

tap_done
