#!/bin/sh
# uncore_freq.sh - uncore_clock_limit_hertz{socket,die,limit} and
# uncore_clock_current_hertz{socket,die} from the kernel's
# intel_uncore_frequency tree (issue 30 section 4), on both of the
# kernel's layouts as the simulated kernel writes them:
#  - package_PP_die_DD (the MSR driver): skx, 2 sockets, through the
#    simulated kernel (--backend=perf); every value differs per socket and
#    limit, so a socket or limit mixed up gives a wrong value;
#  - uncoreNN (TPMI, multi-die): 2 sockets x 2 compute dies and an I/O
#    domain each, through the simulated kernel too (and its tree as
#    `uncore-sim sysfs` writes it);
# as root dropping to nobody: current_freq_khz and the uncoreNN id files
# are 0400 root's, so the values after the drop come through the
# descriptors opened before it (a value written into the file later
# shows up; nobody cannot open the file).  Then: no tree -> no family and
# the reason in the log; a malformed file -> named in the log, the other
# values served, the daemon alive (skl's registers with --path.sysfs
# naming an `uncore-sim sysfs` tree).  Every page passes promtool.
. "${top_srcdir:-.}/tests/lib.sh"

SIM="$top_builddir/uncore-sim"
PORT=$(pick_port)
L=uncore_clock_limit_hertz C=uncore_clock_current_hertz
ROOT=
[ "$(id -u)" = 0 ] && ROOT=1	# lib.sh then runs the daemon with --user nobody

promcheck() { # promcheck FILE WHAT
	if command -v promtool >/dev/null 2>&1; then
		out=$(promtool check metrics <"$1" 2>&1)
		is "$out" "" "$2: promtool check metrics reports nothing"
	else
		skip "$2: promtool" "promtool not installed"
	fi
}
count() { grep -c "^$2{" "$1"; }
stop() { kill "$UPID" 2>/dev/null; wait "$UPID" 2>/dev/null; }

# ---- package_PP_die_DD through the simulated kernel -------------------------
cat >"$T/pkg.json" <<'JSON'
{ "platform": "skx", "sockets": 2, "uclk_hz": 1700000000,
  "uncore_freq": { "layout": "package_die",
    "min_khz": [900000, 1000000], "max_khz": [2200000, 2300000],
    "initial_min_khz": [800000, 700000], "initial_max_khz": [2400000, 2500000],
    "current_khz": [1700000, 1600000] },
  "phases": [ { "seconds": 10, "rates": {} } ] }
JSON
start_uncored "$T/log1" --simulate --workload "$T/pkg.json" --backend=perf \
	-l "127.0.0.1:$PORT" -s "$T/ctl1.sock" --interval 200
ok $? "skx, package_die layout, perf backend: serves"
scrape "$PORT" "$T/m1"
for s in 0 1; do
	set -- $( [ $s = 0 ] && echo 900000000 2200000000 800000000 2400000000 1700000000 \
		|| echo 1000000000 2300000000 700000000 2500000000 1600000000)
	is "$(metric "$T/m1" $L "socket=\"$s\",die=\"0\",limit=\"min\"")" "$1" "socket $s min"
	is "$(metric "$T/m1" $L "socket=\"$s\",die=\"0\",limit=\"max\"")" "$2" "socket $s max"
	is "$(metric "$T/m1" $L "socket=\"$s\",die=\"0\",limit=\"initial_min\"")" "$3" "socket $s initial_min"
	is "$(metric "$T/m1" $L "socket=\"$s\",die=\"0\",limit=\"initial_max\"")" "$4" "socket $s initial_max"
	is "$(metric "$T/m1" $C "socket=\"$s\",die=\"0\"")" "$5" "socket $s current"
done
is "$(count "$T/m1" $L)" 8 "8 limit series: 2 sockets x 1 die x 4 limits"
like "$(cat "$T/m1")" "# TYPE $L gauge" "$L is a gauge"
like "$(cat "$T/m1")" "# TYPE $C gauge" "$C is a gauge"
promcheck "$T/m1" "package_die page"
api=$(curl -fs "http://127.0.0.1:$PORT/api/v1/metrics")
is "$(echo "$api" | jq -c '.sockets[1].clock_limits')" \
	'[{"die":0,"min_hz":1000000000,"max_hz":2300000000,"initial_min_hz":700000000,"initial_max_hz":2500000000,"current_hz":1600000000}]' \
	"/api/v1/metrics carries the same values per socket and die"

TREE=$(curl -fs "http://127.0.0.1:$PORT/api/v1/status" |
	sed -n 's/.*"sysfs":"\([^"]*\)".*/\1/p' | sed 's,\\/,/,g')
CUR="$TREE/devices/system/cpu/intel_uncore_frequency/package_01_die_00/current_freq_khz"
ok "$([ -f "$CUR" ]; echo $?)" "the simulated kernel's tree is at $TREE"
is "$(stat -c %a "$CUR")" 400 "current_freq_khz is mode 0400"
if [ -n "$ROOT" ]; then
	is "$(stat -c %U "$CUR")" root "and root's, though the tree is nobody's"
	is "$(awk '$1 == "Uid:" { print $2 }' "/proc/$UPID/status")" 65534 \
		"the daemon runs as nobody"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups cat "$CUR" 2>&1)
	like "$out" "Permission denied" "nobody cannot open current_freq_khz"
	# the same file, new contents: only a descriptor kept from before the
	# drop can see them
	printf '1234000\n' >"$CUR"
	wait_for "the new current frequency" 30 metric_is "$PORT" $C \
		'socket="1",die="0"' 1234000000
	ok $? "a new value in the 0400 file is read after the drop (kept fd)"
	printf 'fast\n' >"$CUR"
	wait_for "the bad value to be said" 30 has "$T/log1" "current_freq_khz: bad contents"
	ok $? "a malformed current_freq_khz at run time is said in the log"
	like "$(grep "bad contents" "$T/log1")" "socket 1 die 0 current_freq_khz" \
		"naming socket, die and file"
	scrape "$PORT" "$T/m1b"
	is "$(metric "$T/m1b" $C 'socket="1",die="0"')" "" "its series is left out"
	is "$(metric "$T/m1b" $C 'socket="0",die="0"')" 1700000000 "the other socket's stays"
	ok "$(gone "$UPID"; [ $? -ne 0 ]; echo $?)" "the daemon is alive"
	promcheck "$T/m1b" "page with a malformed file"
else
	skip "open before the drop, read after it" "needs root"
fi
stop

# ---- uncoreNN (TPMI, 2 dies) through the simulated kernel ------------------
cat >"$T/tpmi.json" <<'JSON'
{ "platform": "skx", "sockets": 2,
  "uncore_freq": { "layout": "uncore", "dies": 2, "io_domains": 1,
    "min_khz": [800000, 900000, 1000000, 1100000], "max_khz": 2500000,
    "initial_min_khz": 800000, "initial_max_khz": 2500000,
    "current_khz": [1200000, 1300000, 1400000, 1500000] },
  "phases": [ { "seconds": 10, "rates": {} } ] }
JSON
out=$("$SIM" -w "$T/tpmi.json" sysfs "$T/k2" 2>&1)
ok $? "uncore-sim sysfs writes the uncoreNN tree ($out)"
U="$T/k2/sys/devices/system/cpu/intel_uncore_frequency"
is "$(ls "$U" | tr '\n' ' ')" "uncore00 uncore01 uncore02 uncore03 uncore04 uncore05 " \
	"six uncoreNN, no package entry (the kernel's rule for multi-die packages)"
is "$(stat -c %a "$U/uncore03/package_id")" 400 "package_id is 0400"
is "$(cat "$U/uncore04/die_id")" 1 "die_id of socket 1's second die"
ok "$([ ! -e "$U/uncore02/die_id" ]; echo $?)" "the I/O domain has no die_id"
start_uncored "$T/log2" --simulate --workload "$T/tpmi.json" --backend=perf \
	-l "127.0.0.1:$PORT" -s "$T/ctl2.sock"
ok $? "skx, uncore layout, perf backend: serves"
scrape "$PORT" "$T/m2"
i=0
for s in 0 1; do
	for d in 0 1; do
		min=$(( (8 + i) * 100000000 )) cur=$(( (12 + i) * 100000000 ))
		is "$(metric "$T/m2" $L "socket=\"$s\",die=\"$d\",limit=\"min\"")" $min \
			"uncoreNN socket $s die $d min"
		is "$(metric "$T/m2" $C "socket=\"$s\",die=\"$d\"")" $cur \
			"uncoreNN socket $s die $d current"
		i=$(( i + 1 ))
	done
done
is "$(metric "$T/m2" $L 'socket="1",die="0",limit="max"')" 2500000000 "max"
is "$(count "$T/m2" $L)" 16 "16 limit series: 2 sockets x 2 dies x 4, no I/O domain"
is "$(count "$T/m2" $C)" 4 "4 current series"
like "$(cat "$T/log2")" "package 0 power domain 2 has no die (an I/O die): left out" \
	"the I/O domain left out, said"
promcheck "$T/m2" "uncoreNN page"
stop

# ---- no tree --------------------------------------------------------------
start_uncored "$T/log3" --simulate=hsx --backend=perf -l "127.0.0.1:$PORT" \
	-s "$T/ctl3.sock"
ok $? "hsx (no driver) on the simulated kernel: serves"
scrape "$PORT" "$T/m3"
is "$(count "$T/m3" $L)$(count "$T/m3" $C)" 00 "no limit or current family"
ok "$(grep -q "^# TYPE $L" "$T/m3"; [ $? -ne 0 ]; echo $?)" "not even its TYPE line"
like "$(cat "$T/log3")" "no intel_uncore_frequency in" "the log says there is no tree"
like "$(cat "$T/log3")" "uncore clock limits are not exported" "and what follows"
stop

start_uncored "$T/log4" --simulate=skl --backend=direct -l "127.0.0.1:$PORT" \
	-s "$T/ctl4.sock"
ok $? "skl registers without --path.sysfs: serves"
scrape "$PORT" "$T/m4"
is "$(count "$T/m4" $L)" 0 "no limits: the host's tree is not read beside simulated registers"
like "$(cat "$T/log4")" "the simulator's registers have no kernel" "saying why"
stop

# ---- malformed files at start, skl registers with --path.sysfs ------------
cat >"$T/skl.json" <<'JSON'
{ "platform": "skl", "uclk_hz": 1000000000,
  "uncore_freq": { "min_khz": 900000, "initial_min_khz": 700000 },
  "phases": [ { "seconds": 10, "rates": {} } ] }
JSON
out=$("$SIM" -w "$T/skl.json" sysfs "$T/k5" 2>&1)
ok $? "an skl tree ($out)"
P5="$T/k5/sys/devices/system/cpu/intel_uncore_frequency/package_00_die_00"
printf 'lots\n' >"$P5/max_freq_khz"
printf '' >"$P5/initial_max_freq_khz"
start_uncored "$T/log5" --simulate --workload "$T/skl.json" --backend=direct \
	--path.sysfs "$T/k5/sys" -l "127.0.0.1:$PORT" -s "$T/ctl5.sock"
ok $? "malformed max and empty initial_max: the daemon serves"
scrape "$PORT" "$T/m5"
like "$(cat "$T/log5")" "socket 0 die 0 max_freq_khz: bad contents, skipped" \
	"the malformed file is named"
like "$(cat "$T/log5")" "socket 0 die 0 initial_max_freq_khz: bad contents, skipped" \
	"the empty one too"
is "$(metric "$T/m5" $L 'socket="0",die="0",limit="max"')" "" "no value for it"
is "$(metric "$T/m5" $L 'socket="0",die="0",limit="min"')" 900000000 \
	"the workload's min beside it"
is "$(metric "$T/m5" $L 'socket="0",die="0",limit="initial_min"')" 700000000 \
	"and its initial_min"
is "$(metric "$T/m5" $C 'socket="0",die="0"')" 1000000000 \
	"current: the simulator's uncore clock (uclk_hz)"
is "$(count "$T/m5" $L)" 2 "2 of 4 limit series"
promcheck "$T/m5" "page with malformed files"
stop

tap_done
