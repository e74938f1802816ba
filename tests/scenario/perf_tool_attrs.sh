#!/bin/sh
# perf_tool_attrs.sh - Debian's perf(1) (linux-perf) computes the same
# perf_event_attr as uncored's perf backend from the same simulated sysfs
# tree (issue 28).  For each platform: `uncore-sim sysfs` writes its
# tree; tests/tools/perf-attrs lists every event uncored may open (the
# baseline's, the derived metrics' sources, the catalog) with the PMU,
# the terms and the type/config/config1/config2 it encodes them to
# (pmu_perf_attr(), the path pmu_encode() takes); then, in a private
# mount namespace with the tree over /sys, `perf stat -vv -a` is given
# the same events and its perf_event_attr dumps are compared:
#   format  PMU/TERMS/ - the encoding through the PMU's format/ files
#           (and events/ aliases), every event uncored encodes;
#   named   perf's own JSON event of the same name (unc_cha_tor_inserts.
#           ia_miss), where perf knows the CPU (PERF_CPUID below): its
#           config words against uncored's catalog entry.
# The tree's PMU types are moved past any a real kernel has (+100000),
# so every open fails (ENOENT) after -vv has printed the attr, and perf
# names the event right after it.  A negative check gives perf a tree
# with one wrong format file: the comparison must report the mismatch.
# The memory read latency events (issue 41) are compared on their own
# too (check_latency), with hsx's opcode filter 0x182 in config1 and a
# negative check of its format file.
#
# Needs root (unshare -m, mount) and perf; a platform perf does not know
# only skips its named checks.  Adding a platform is a line of the table.
. "${top_srcdir:-.}/tests/lib.sh"

# platform  PERF_CPUID (vendor-family-model-stepping, as perf's
#           get_cpuid_str() writes it; perf's mapfile.csv decides which
#           JSON events it knows).  gnr: Debian's perf 6.1 predates
#           Granite Rapids (no graniterapids in its mapfile.csv), so its
#           named comparison skips, saying so; the format comparison runs
#           (on the default 6.12 tree: no uncore_upi_N, so UPI, B2UPI,
#           B2HOT and CXL events are not encoded).
PLATFORMS='
skx	GenuineIntel-6-55-4
icx	GenuineIntel-6-6A-6
spr	GenuineIntel-6-8F-8
zen4	AuthenticAMD-25-11-1
hsx	GenuineIntel-6-3F-2
snbep	GenuineIntel-6-2D-7
skl	GenuineIntel-6-5E-3
adl	GenuineIntel-6-97-2
mtl	GenuineIntel-6-AA-4
zen5	AuthenticAMD-26-2-0
zen3	AuthenticAMD-25-1-1
gnr	GenuineIntel-6-AD-1
'
# Where perf's JSON events are known to differ from the kernel's PMUs
# (uncored encodes through the kernel's format/ files, which the format
# checks above compare): platform, perf event (a shell pattern), why.
# They are listed as comments, not compared.
KNOWN='
skx	unc_cha_tor_*	perf 6.1 skylakex JSON: FILTER1 (opcode, locality) in config1 bits 0-31, where the kernel reads FILTER0; its skx CHA takes FILTER1 from config1:32-63 (filter_opc0 is config1:41-50)
hsx	unc_p_power_state_occupancy.cores_c*	perf 6.1 haswellx JSON: the occupancy select (umask 0x40/0x80/0xc0, the kernel hsx PCU occ_sel config:14-15) is dropped
'
# Config bits the kernel sets itself on an event that leaves them 0, so
# that perf's JSON event (without them) and uncored's (with them) program
# the same counter: platform, mask, why.  Only these bits are cleared in
# uncored's config before the named comparison; every other bit must match.
KERNEL_SETS='
zen3	0x0300c00000000000	the kernel amd_uncore driver (arch/x86/events/amd/uncore.c, l3_thread_slice_mask()) gives a family 19h+ L3 event with no thread mask EnAllSlices, EnAllCores and ThreadMask 0x3 (config:46, 47, 56-57), which uncored writes explicitly
'
TYPE_OFFSET=100000
ATTRS="$top_builddir/tests/tools/perf-attrs"

if ! command -v perf >/dev/null 2>&1; then
	if [ "${CI:-}" = true ]; then ok 1 "perf is installed (Debian: linux-perf)"
	else skip "perf against uncored's encodings" "perf not installed (Debian: linux-perf)"; fi
	tap_end
fi
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	skip "perf against uncored's encodings" "needs root for unshare -m and mount"
	tap_end
fi

# in_tree SYS PERF_CPUID COMMAND...: COMMAND in a private mount namespace
# where SYS is /sys, with PERF_CPUID set.
in_tree() {
	_sys=$1 _cpuid=$2; shift 2
	unshare -m sh -c 'mount --make-rprivate / && mount --bind "$1" /sys &&
		shift 2 && PERF_CPUID=$0 exec "$@"' "$_cpuid" "$_sys" x "$@" </dev/null
}

# perf_attrs SYS CPUID EVENTS-FILE OUT: perf stat -vv -a with every event
# of EVENTS-FILE (one a line); OUT gets "EVENT TYPE CONFIG CONFIG1
# CONFIG2" (tab-separated, hex, 0x0 where perf printed nothing) for each
# attr perf printed, named by the "EVENT event is not supported by the
# kernel" line that follows it.  $OUT.log keeps perf's output.
perf_attrs() {
	_args=
	while IFS= read -r _e; do _args="$_args -e $_e"; done <"$3"
	# shellcheck disable=SC2086 # one word per event, no blanks in them
	in_tree "$1" "$2" perf stat -vv -a $_args -- true >"$4.log" 2>&1
	awk -v OFS='\t' '
	/^perf_event_attr:/ { open = 1; ty = ""; c = "0x0"; c1 = "0x0"; c2 = "0x0"; next }
	open && $1 == "type" { ty = $2 }
	open && $1 == "config" { c = $2 }
	open && /config1 }/ { c1 = $NF }
	open && /config2 }/ { c2 = $NF }
	/ event is not supported by the kernel\.$/ && ty != "" {
		sub(/ event is not supported by the kernel\.$/, "")
		print $0, ty, c, c1, c2; ty = ""; open = 0 }' "$4.log" >"$4"
}

# compare WANT GOT KIND: each line of WANT ("KEY TYPE CONFIG CONFIG1
# CONFIG2"; TYPE "-": not compared) against every line of GOT with its
# KEY; prints "# ..." for each difference and each key perf gave no attr
# for; its status is the number of them (0: all the same).
compare() {
	awk -F'\t' -v kind="$3" '
	NR == FNR { n[$1]++; ty[$1, n[$1]] = $2; c[$1, n[$1]] = $3 " " $4 " " $5; next }
	{ want[$1] = $2 " " $3 " " $4 " " $5; order[++k] = $1 }
	END {
		for (i = 1; i <= k; i++) {
			e = order[i]; split(want[e], w, " ")
			if (!n[e]) { printf "#   %s %s: perf printed no attr\n", kind, e; bad++; continue }
			for (j = 1; j <= n[e]; j++) {
				if ((w[1] == "-" || ty[e, j] == w[1]) &&
				    c[e, j] == w[2] " " w[3] " " w[4])
					continue
				printf "#   %s %s: uncored type=%s config=%s config1=%s config2=%s, perf type=%s config/1/2=%s\n",
					kind, e, w[1], w[2], w[3], w[4], ty[e, j], c[e, j]
				bad++; break
			}
		}
		exit bad > 250 ? 250 : bad
	}' "$2" "$1"
}

# known_diff P EVENT: is perf's EVENT of platform P in KNOWN?
known_diff() {
	while IFS='	' read -r _kp _ke _kw; do
		[ "$_kp" = "$1" ] || continue
		# shellcheck disable=SC2254 # a pattern
		case $2 in $_ke) return 0 ;; esac
	done <<KNOWN_EOF
$KNOWN
KNOWN_EOF
	return 1
}
known_why() {
	printf '%s\n' "$KNOWN" | awk -F'\t' -v p="$1" '$1 == p { printf "%s%s", s, $3; s = "; " }'
}

# The memory read latency events (issue 41, doc/metrics.md "Memory read
# latency"): the occupancy and inserts of every target the derived
# metrics name, on the platforms that have the family.  They are among
# the format comparison's events; this says so for each platform and
# compares them on their own, so that a latency encoding perf disagrees
# with is named as such.
LAT_PLATFORMS='hsx skx icx spr gnr zen5'
LAT_RE='TOR_(OCCUPANCY|INSERTS)[.][A-Z_]*(OPCODE|DRD[A-Z_]*)(:|$)|TOR_(OCCUPANCY|INSERTS)[.]IA_MISS:filter0=0x404|xi_sampled_latency'

# check_latency P DIR SYS
check_latency() {
	case " $LAT_PLATFORMS " in *" $1 "*) ;; *) return ;; esac
	awk -F'\t' -v OFS='\t' -v re="$LAT_RE" '$1 == "baseline" && $3 != "-" && $2 ~ re {
		print $3 "/" $4 "/", $5, $6, $7, $8 }' "$2/uncored" | sort -u >"$2/want.lat"
	_nl=$(wc -l <"$2/want.lat")
	compare "$2/want.lat" "$2/got.format" latency
	ok "$([ $? -eq 0 ] && [ "$_nl" -gt 0 ]; echo $?)" \
		"$1: latency: perf computes uncored's encodings of all $_nl memory read latency events ($(awk -F'\t' -v re="$LAT_RE" '$1 == "baseline" && $2 ~ re { sub(/:.*/, "", $2); print $2 }' "$2/uncored" | sort -u | tr '\n' ' '))"
	[ "$1" = hsx ] || return
	# hsx: the DRd opcode 0x182 in the CBo's FILTER1, which the kernel
	# takes from config1 where format/filter_opc says (config1:52-60)
	_ev="uncore_cbox_0/event=0x36,umask=0x3,filter_opc=0x182/"
	is "$(cat "$3/devices/uncore_cbox_0/format/filter_opc")" "config1:52-60" \
		"hsx: the simulated kernel's filter_opc is config1:52-60"
	is "$(awk -F'\t' -v e="$_ev" '$1 == e { print $4; exit }' "$2/got.format")" \
		0x1820000000000000 \
		"hsx: perf puts TOR_OCCUPANCY.MISS_OPCODE's filter_opc=0x182 in config1 (0x182 << 52)"
	is "$(awk -F'\t' -v e="$_ev" '$1 == e { print $4; exit }' "$2/want.lat")" \
		0x1820000000000000 "hsx: ... as uncored's perf backend does"
}

# check_platform P CPUID
check_platform() {
	p=$1 cpuid=$2 d="$T/$1"
	mkdir -p "$d"
	if ! "$UNCORE_SIM" -p "$p" sysfs "$d/tree" >"$d/sim.out" 2>&1; then
		ok 1 "$p: uncore-sim writes the simulated sysfs tree"
		sed 's/^/#   /' "$d/sim.out"
		return
	fi
	sys="$d/tree/sys"
	for f in "$sys"/bus/event_source/devices/*/type; do
		echo $(( $(cat "$f") + TYPE_OFFSET )) >"$f"
	done
	"$ATTRS" "$p" "$sys" >"$d/uncored" 2>"$d/attrs.err"
	ok $? "$p: perf-attrs lists uncored's encodings$(sed 's/^/ /' "$d/attrs.err")"
	# format: PMU/TERMS/ of every event uncored encodes
	awk -F'\t' -v OFS='\t' '$3 != "-" { print $3 "/" $4 "/", $5, $6, $7, $8 }' \
		"$d/uncored" | sort -u >"$d/want.format"
	cut -f1 "$d/want.format" >"$d/ev.format"
	nf=$(wc -l <"$d/want.format")
	ne=$(awk -F'\t' '$3 != "-"' "$d/uncored" | wc -l)
	nu=$(awk -F'\t' '$3 == "-"' "$d/uncored" | wc -l)
	perf_attrs "$sys" "$cpuid" "$d/ev.format" "$d/got.format"
	like "$(head -3 "$d/got.format.log")" "Using CPUID $cpuid" \
		"$p: perf runs in the tree with PERF_CPUID=$cpuid"
	is "$(grep -c '^perf_event_attr:' "$d/got.format.log")" \
		"$(grep -c 'event is not supported by the kernel\.$' "$d/got.format.log")" \
		"$p: every open failed (no such PMU type here), each after -vv printed its attr"
	compare "$d/want.format" "$d/got.format" format
	ok $? "$p: format: perf computes uncored's type, config, config1, config2 for all $nf distinct PMU/terms of $ne events ($nu the perf backend cannot encode, not compared)"
	check_latency "$p" "$d" "$sys"
	# named: perf's JSON events of the catalog's names, where perf knows them
	in_tree "$sys" "$cpuid" perf list --raw-dump >"$d/perf.list" 2>/dev/null
	tr ' ' '\n' <"$d/perf.list" | grep -v '^$' | sort -u >"$d/perf.names"
	# a catalog event whose filter value the user gives (its filter
	# dependency and no config1 of its own) is not the same event as
	# perf's, which has a default value: counted, not compared
	awk -F'\t' -v OFS='\t' '$1 == "catalog" && $3 != "-" && $2 !~ /:/ {
		print tolower($2), "-", $6, $7, $8, ($9 != "-" && $7 == "0x0") }' \
		"$d/uncored" | sort -u |
		awk -F'\t' 'NR == FNR { known[$1] = 1; next } known[$1]' \
			"$d/perf.names" - >"$d/named.all"
	nfilt=$(awk -F'\t' '$6 == 1' "$d/named.all" | wc -l)
	: >"$d/want.named"
	: >"$d/want.known"
	awk -F'\t' -v OFS='\t' '$6 == 0 { print $1, $2, $3, $4, $5 }' "$d/named.all" |
	while IFS= read -r l; do
		if known_diff "$p" "${l%%	*}"; then echo "$l" >>"$d/want.known"
		else echo "$l" >>"$d/want.named"; fi
	done
	ksets=$(printf '%s\n' "$KERNEL_SETS" | awk -F'\t' -v p="$p" '$1 == p { print $2 }')
	if [ -n "$ksets" ]; then
		while IFS='	' read -r n t c c1 c2; do
			printf '%s\t%s\t0x%x\t%s\t%s\n' "$n" "$t" $(( c & ~ksets )) "$c1" "$c2"
		done <"$d/want.named" >"$d/want.named.k" && mv "$d/want.named.k" "$d/want.named"
		echo "# $p: config bits $ksets not compared in named events: $(printf '%s\n' "$KERNEL_SETS" | awk -F'\t' -v p="$p" '$1 == p { print $3 }')"
	fi
	nn=$(wc -l <"$d/want.named")
	nk=$(wc -l <"$d/want.known")
	if [ "$nn" -eq 0 ]; then
		skip "$p: named: perf's JSON events against uncored's catalog" \
			"perf $(perf --version | cut -d' ' -f3) knows no uncore event of $p's catalog for $cpuid"
		return
	fi
	cat "$d/want.named" "$d/want.known" | cut -f1 >"$d/ev.named"
	perf_attrs "$sys" "$cpuid" "$d/ev.named" "$d/got.named"
	compare "$d/want.named" "$d/got.named" named
	ok $? "$p: named: perf's JSON events have uncored's config, config1, config2 for all $nn catalog events it knows ($nk known to differ, $nfilt whose filter the user gives: not compared)"
	if [ "$nk" -gt 0 ]; then
		echo "# $p: known differences of perf's JSON ($(known_why "$p")):"
		compare "$d/want.known" "$d/got.named" known
	fi
}

while read -r p cpuid; do
	[ -n "$p" ] && check_platform "$p" "$cpuid"
done <<EOF
$PLATFORMS
EOF

# ---- the comparison catches a wrong encoding: perf given skx's tree with
# uncore_imc_0's umask moved a bit up must disagree on every imc event
# that has a umask, and on no other
d="$T/neg"
mkdir -p "$d"
cp -a "$T/skx/tree" "$d/tree"
fmt="$d/tree/sys/devices/uncore_imc_0/format/umask"
is "$(cat "$fmt")" "config:8-15" "negative: skx's imc umask is config:8-15"
echo "config:9-16" >"$fmt"
perf_attrs "$d/tree/sys" GenuineIntel-6-55-4 "$T/skx/ev.format" "$d/got"
compare "$T/skx/want.format" "$d/got" format >"$d/diff"
ok "$([ $? -gt 0 ]; echo $?)" "negative: a wrong format file gives a mismatch"
want=$(grep '^uncore_imc_0/.*umask=' "$T/skx/want.format" | cut -f1 | sort)
is "$(sed -n 's/^#   format \([^ ]*\): uncored.*/\1/p' "$d/diff" | sort)" "$want" \
	"negative: exactly the $(echo "$want" | wc -l) uncore_imc_0 events with a umask"

# ---- and a wrong place for hsx's opcode filter: perf given the tree with
# uncore_cbox_0's filter_opc moved a bit up disagrees on every latency
# event of that box (each carries filter_opc=0x182)
d="$T/neglat"
mkdir -p "$d"
cp -a "$T/hsx/tree" "$d/tree"
echo "config1:53-61" >"$d/tree/sys/devices/uncore_cbox_0/format/filter_opc"
grep '^uncore_cbox_0/' "$T/hsx/want.lat" >"$d/want"
cut -f1 "$d/want" >"$d/ev"
perf_attrs "$d/tree/sys" GenuineIntel-6-3F-2 "$d/ev" "$d/got"
compare "$d/want" "$d/got" latency >"$d/diff"
is "$(grep -c '^#   latency uncore_cbox_0/' "$d/diff")" "$(wc -l <"$d/want")" \
	"negative: filter_opc at config1:53-61: all $(wc -l <"$d/want") latency events of uncore_cbox_0 mismatch"
tap_done
