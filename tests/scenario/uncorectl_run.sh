#!/bin/sh
# uncorectl_run.sh - `uncorectl run` and `uncorectl groups` against the
# daemon on the simulator, with known answers: on hsx (direct backend,
# conf/workloads/hsx-default.json) a `sleep 2` measured with -g MEM gives
# the workload's DRAM rates per socket (8 and 4 GB/s read, 4 and 2 GB/s
# write) and bytes to within 1 % of rate x the time the counts cover, -g
# LLC its hit ratios (0.90 and 0.75, through the split filters); the
# program's exit status comes back (3; 143 for SIGTERM, sent by the
# program itself or forwarded by uncorectl), its stdout stays its own,
# a bad event or unknown group runs nothing (exit 125), --interval gives
# one time line row per interval plus the last partial one, the three
# formats parse, the claim is released however the run ends, with
# --markers the program's own regions report beside the run, and a
# claim that does not count during the run is said to.  On skx
# through the perf backend the same figures come from other events, and
# on spr, zen4 (perf) and skl the figures are the daemon's own DRAM read
# bandwidth and LLC hit ratio.
. "${top_srcdir:-.}/tests/lib.sh"

CTL="$top_builddir/uncorectl"
CHECK="$top_builddir/tests/tools/libcheck"
printf '[daemon]\ninterval_ms = 200\n' >"$T/c.conf"

stop_uncored() { kill "$UPID"; wait "$UPID" 2>/dev/null; }

# run ARGS...: uncorectl run on $S; stdout in $T/out, stderr in $T/err,
# the exit status in $rc.
run() {
	"$CTL" -s "$S" run "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
# fig FILE NAME SOCKET|all: a figure of a JSON report
fig() {
	if [ "$3" = all ]; then
		jq -r ".figures[] | select(.name == \"$2\") | .all" "$1"
	else
		jq -r ".figures[] | select(.name == \"$2\") | .sockets[$3]" "$1"
	fi
}

# ---- hsx, direct backend -------------------------------------------------
PORT=$(pick_port)
S=$T/hsx.sock
start_uncored "$T/log.hsx" -c "$T/c.conf" --simulate=hsx --backend=direct \
	--workload "$top_srcdir/conf/workloads/hsx-default.json" \
	-l "127.0.0.1:$PORT" -s "$S"
ok $? "hsx: daemon up"
wait_for "3 samples" 60 ring_has "$PORT" 3

"$CTL" -s "$S" groups --names >"$T/out" 2>&1
is "$(cat "$T/out" | tr '\n' ' ')" "MEM LLC MEM_LATENCY QPI " "groups --names: MEM, LLC, MEM_LATENCY and QPI count here"
"$CTL" -s "$S" groups >"$T/out" 2>&1
like "$(cat "$T/out")" "dram_rd  UNC_M_CAS_COUNT.RD x 64" \
	"groups: MEM's reads are hsx's CAS reads, 64 bytes each"

run -g MEM --format json -o "$T/mem.json" -- sleep 2
is "$rc" 0 "MEM: sleep 2 exits 0, and so does run"
is "$(cat "$T/err")" "" "MEM: -o FILE: nothing on stderr"
w=$(jq -r .window_s "$T/mem.json")
ok "$(awk -v w="$w" 'BEGIN { exit !(w >= 2 && w < 3) }'; echo $?)" \
	"MEM: the counts cover the run ($w s)"
near "$(fig "$T/mem.json" dram_read_bandwidth 0)" 8.0e9 0.01 "MEM: s0 read 8 GB/s"
near "$(fig "$T/mem.json" dram_read_bandwidth 1)" 4.0e9 0.01 "MEM: s1 read 4 GB/s"
near "$(fig "$T/mem.json" dram_write_bandwidth 0)" 4.0e9 0.01 "MEM: s0 write 4 GB/s"
near "$(fig "$T/mem.json" dram_write_bandwidth 1)" 2.0e9 0.01 "MEM: s1 write 2 GB/s"
near "$(fig "$T/mem.json" dram_bandwidth all)" 1.8e10 0.01 "MEM: 18 GB/s over both sockets"
near "$(fig "$T/mem.json" dram_read_bytes all)" "$(awk -v w="$w" 'BEGIN { print 1.2e10 * w }')" 0.01 \
	"MEM: bytes read = 12 GB/s x the time the counts cover"
near "$(fig "$T/mem.json" dram_write_bytes 1)" "$(awk -v w="$w" 'BEGIN { print 2.0e9 * w }')" 0.01 \
	"MEM: s1 bytes written = 2 GB/s x the time"
is "$(jq -r '.regions[0].name' "$T/mem.json")" sleep \
	"MEM: the library's region report, one region named after the program"
is "$(jq -r '[.regions[0].events[] | select(.event == "UNC_M_CAS_COUNT.RD")] | length' "$T/mem.json")" 2 \
	"MEM: the region's rows per socket"
near "$(jq -r '.regions[0].metrics[] | select(.name == "uncore_dram_read_bytes" and .socket == 0) | .rate_per_s' "$T/mem.json")" \
	8.0e9 0.01 "MEM: the region's derived read bytes at 8 GB/s on s0"
is "$(jq -r '"\(.exit_status) \(.signal) \(.argv | join(" "))"' "$T/mem.json")" "0 null sleep 2" \
	"MEM: status, signal and argv in the JSON"
"$CTL" -s "$S" claims >"$T/out" 2>&1
like "$(cat "$T/out")" "no claims" "MEM: the claim is released after the run"

run -g LLC --json -- sleep 0.5
is "$rc" 0 "LLC: exit 0"
tail -1 "$T/err" >"$T/llc.json"
near "$(fig "$T/llc.json" llc_hit_ratio 0)" 0.90 0.01 "LLC: s0 hit ratio 0.90 (split filters on alternate CBos)"
near "$(fig "$T/llc.json" llc_hit_ratio 1)" 0.75 0.01 "LLC: s1 hit ratio 0.75"
w=$(jq -r .window_s "$T/llc.json")
near "$(fig "$T/llc.json" llc_lookups 0)" "$(awk -v w="$w" 'BEGIN { print 4.0e8 * w }')" 0.01 \
	"LLC: s0 lookups at 4e8/s, scaled from half the CBos to all"

# the formats
run -g MEM -- sleep 0.3
like "$(cat "$T/err")" "REGION    CALLS THREADS" "table: the library's region table"
like "$(cat "$T/err")" "uncorectl run: sleep exited with status 0 after" "table: how the run ended"
# (the rows' form, and their values at 2 %: a 0.3 s run's rate under
# ASan on a loaded CI machine came out outside 8.00-8.09, a reading's
# time stamp and counts some ms apart; the JSON checks above hold 2 s
# runs to 1 %)
tv() { # tv SOCKET: the table's read GB/s for SOCKET (0, all)
	sed -nE "s/^  dram_read_bandwidth +$1 +([0-9.]+) GB\/s$/\1/p" "$T/err"
}
near "$(tv 0)" 8.0 0.02 "table: read GB/s per socket, in GB/s ($(tv 0))"
near "$(tv all)" 12.0 0.02 "table: and summed over sockets ($(tv all))"
run -g MEM --format csv -- sleep 0.3
like "$(cat "$T/err")" "region,calls,code_s,claim,event,socket,window_s,count,raw,rate_per_s" \
	"csv: the library's region CSV"
# (2 % as the table's above: a 0.3 s run's readings some ms apart under
# ASan on a loaded machine; a clean clone's run beside stress-ng read it
# outside the 0.1 % this check once had)
cv=$(sed -nE 's/^dram_read_bandwidth,bytes_per_second,all,([0-9.e+]+)$/\1/p' "$T/err")
near "${cv:-0}" 1.2e10 0.02 "csv: the figures, summed over sockets as socket all (${cv:-none})"
like "$(sed -n '/^program,/,/^$/p' "$T/err")" "sleep,0,0," "csv: the program's exit status"

# the time line: 4 whole intervals of 0.5 s and the last 0.25 s
run -e UNC_M_CAS_COUNT.RD --interval 0.5 --format csv -- sleep 2.25
is "$rc" 0 "timeline: exit 0"
sed -n '/^t_s,/,$p' "$T/err" >"$T/tl.csv"
# 5 rows for the 2.25 s of sleep, more where the machine made the run
# last longer (6 under ASan in a CI run: over 2.5 s from start to exit):
# a row per 0.5 s of the run's elapsed_s
n=$(sed -n '/^t_s,/,/^$/p' "$T/err" | tail -n +2 | grep -c .)
e=$(sed -n '/^program,/{n;p}' "$T/err" | cut -d, -f4)
ok "$(awk -v n="$n" -v e="$e" 'BEGIN { c = int(e / 0.5); if (c < e / 0.5) c++
	d = n - c; if (d < 0) d = -d; exit !(n >= 5 && e >= 2.25 && d <= 1) }'; echo $?)" \
	"timeline: a row per 0.5 s of the run, 5 for 2.25 s ($n rows, $e s elapsed)"
# each whole row is one interval, neither none nor two: its width is
# what the reads around it measured, which a loaded machine moves (CI's
# ASan run saw a row outside 0.45-0.6 s); the next check holds each
# row's counts to its own width
ok "$(awk -F, 'NR > 1 && NR < 6 && ($2 < 0.25 || $2 > 0.75) { bad = 1 } END { exit bad }' "$T/tl.csv"; echo $?)" \
	"timeline: the whole rows are one 0.5 s interval each (0.25-0.75 s)"
ok "$(awk -F, 'NR > 1 && NR < 6 { r = $3 / $2; if (r < 1.86e8 || r > 1.89e8) bad = 1 } END { exit bad }' "$T/tl.csv"; echo $?)" \
	"timeline: each row counts 1.875e8 CAS reads/s over both sockets"
# a row per interval of the run: 3 for sleep 1.2, more where the machine
# made it last longer (4 for a run of over 1.5 s beside stress-ng): the
# rows cover the run's elapsed_s, each whole one an interval
run -g MEM --interval 0.5 --json -- sleep 1.2
tail -1 "$T/err" >"$T/tl.json"
ok "$(jq -e '(.timeline | length) as $n | .elapsed_s as $e |
	([.timeline[].interval_s] | add) as $c |
	$n >= 3 and ($n - ($e / 0.5 | ceil) | fabs) <= 1 and ($c - $e | fabs) < 0.1 and
	([.timeline[:-1][].interval_s | select(. < 0.25 or . > 0.75)] | length) == 0' \
	"$T/tl.json" >/dev/null; echo $?)" \
	"timeline: json, a row per 0.5 s of the run ($(jq -c '[(.timeline | length), .elapsed_s]' "$T/tl.json") rows, elapsed s)"

# exit statuses, stdout
run -e UNC_M_CAS_COUNT.RD -- sh -c 'echo hello; exit 3'
is "$rc" 3 "exit 3 passes through"
is "$(cat "$T/out")" hello "the program's stdout is its own"
like "$(cat "$T/err")" "sh exited with status 3" "the report says the status"
run -e UNC_M_CAS_COUNT.RD -- sh -c 'kill -TERM $$'
is "$rc" 143 "killed by SIGTERM: 143"
"$CTL" -s "$S" run -e UNC_M_CAS_COUNT.RD -- sleep 30 >/dev/null 2>"$T/term.err" &
cpid=$!
wait_for "the program under run" 30 pgrep -P "$cpid" sleep
kill -TERM "$cpid"
wait "$cpid"
is "$?" 143 "SIGTERM to uncorectl is forwarded: the program ends, 143"
like "$(cat "$T/term.err")" "sleep was killed by signal 15" "SIGTERM: the report still printed"
"$CTL" -s "$S" claims >"$T/out" 2>&1
like "$(cat "$T/out")" "no claims" "SIGTERM: the claim is released"

# failures before the program runs: nothing is run
run -e NO_SUCH_EVENT -- touch "$T/ran"
is "$rc" 125 "a bad event: exit 125"
like "$(cat "$T/err")" 'unknown event "NO_SUCH_EVENT"' "a bad event: named"
ok "$([ ! -e "$T/ran" ]; echo $?)" "a bad event: the program did not run"
run -g NOPE -- touch "$T/ran"
is "$rc" 125 "an unknown group: exit 125"
like "$(cat "$T/err")" 'no group named "NOPE" (the groups: MEM, LLC' "an unknown group: the groups listed"
ok "$([ ! -e "$T/ran" ]; echo $?)" "an unknown group: the program did not run"
run -e UNC_M_CAS_COUNT.RD -- "$T/no-such-program"
is "$rc" 127 "a program not found: 127"
run -- true
is "$rc" 125 "no events: exit 125 (usage)"
"$CTL" -s "$T/nothing.sock" run -g MEM -- touch "$T/ran" 2>/dev/null
is "$?" 125 "no daemon: exit 125"
# (with events named first: under ASan their list leaked and the exit
# was the leak report's 1)
"$CTL" -s "$T/nothing.sock" run -e UNC_M_CAS_COUNT.RD -- touch "$T/ran" 2>/dev/null
is "$?" 125 "no daemon, events named: exit 125"
run -e UNC_M_CAS_COUNT.RD --format bad -- touch "$T/ran"
is "$rc" 125 "a bad format after events: exit 125 (usage)"
ok "$([ ! -e "$T/ran" ]; echo $?)" "no daemon: the program did not run"

# --markers: the program's own regions (libcheck's 1 s "long", markers
# only) report the run's events beside the run, on a claim of their own
run -m -g MEM -- "$CHECK" lease - 1
is "$rc" 0 "markers: exit 0"
row=$(grep '^long ' "$T/out" "$T/err" | head -1 | sed 's/^[^:]*://')
echo "# $row"
ok "$(echo "$row" | awk '$5 == "UNC_M_CAS_COUNT.RD" && $9 > 1.24e8 && $9 < 1.26e8 { f = 1 } END { exit !f }'; echo $?)" \
	"markers: the program's region counts CAS reads at 1.25e8/s"
like "$(cat "$T/err")" "libcheck exited with status 0" "markers: and the run's report follows"
stop_uncored

# ---- skx, perf backend: the same figures from the CHA's TOR inserts ------
PORT=$(pick_port)
S=$T/skx.sock
cat >"$T/skx.json" <<'JSON'
{ "platform": "skx", "sockets": 2, "cha_count": 28, "phases": [ { "seconds": 600, "rates": {
  "imc:0x04:0x03": 1.0e8, "imc:0x04:0x0c": 5.0e7,
  "cha:0x35:0x31:filter0=0x3b00000000": 2.0e8, "cha:0x35:0x21:filter0=0x3b00000000": 4.0e7,
  "cha:0x00:0x00": 6.72e10 } } ] }
JSON
start_uncored "$T/log.skx" -c "$T/c.conf" --simulate=skx --backend=perf \
	--workload "$T/skx.json" -l "127.0.0.1:$PORT" -s "$S"
ok $? "skx: daemon up on the perf backend"
wait_for "3 samples" 60 ring_has "$PORT" 3
run -g MEM --json -- sleep 1
is "$rc" 0 "skx MEM: exit 0"
tail -1 "$T/err" >"$T/skx-mem.json"
near "$(fig "$T/skx-mem.json" dram_read_bandwidth 1)" 6.4e9 0.01 "skx MEM: s1 read 6.4 GB/s"
near "$(fig "$T/skx-mem.json" dram_write_bandwidth 0)" 3.2e9 0.01 "skx MEM: s0 write 3.2 GB/s"
run -g LLC --json -- sh -c 'sleep 1; exit 5'
is "$rc" 5 "skx LLC: exit 5 passes through"
tail -1 "$T/err" >"$T/skx-llc.json"
near "$(fig "$T/skx-llc.json" llc_hit_ratio all)" 0.80 0.01 "skx LLC: hit ratio 0.8"
stop_uncored

# ---- spr, zen4 (perf) and skl: the same figures as the daemon's own ------
# On each simulator's default workload, MEM's read GB/s and LLC's hit
# ratio on socket 0 are the daemon's uncore_dram_bandwidth_bytes_per_second
# and uncore_llc_hit_ratio: other events, other names, the same figures.
# The built-in workloads change phase now and then (sim_builtin.c), so
# the daemon's figure is taken before and after the run, and a run
# around which it changed is done again (twice more at most): CI saw
# 0.900 against 0.890 and 12.67 against 11.52 GB/s, a run and an
# interval in different phases.
# Figures that are ratios of counts, so that no clock enters: a rate over
# a 0.5 s run came out several % off the daemon's with the phase
# unchanged (14.36 against 15.36 GB/s on spr here under load; CI once
# zen4 12.67 against 11.52), most likely the skew between a reading's
# counts and its time stamp over so short a window (not measured; left
# open in issue 40), which is no test of "other events, the same
# figures".  MEM: read over write bandwidth.
# same GROUP FIGURE FAMILY LABELS DESCRIPTION (FIGURE rw_ratio, LABELS
# rw: MEM's read/write ratio and the family's on socket 0)
daemon_fig() { # FILE FAMILY LABELS
	if [ "$3" = rw ]; then
		awk -v r="$(metric "$1" "$2" 'socket="0",direction="read"')" \
		    -v w="$(metric "$1" "$2" 'socket="0",direction="write"')" \
		    'BEGIN { if (w > 0) print r / w }'
	else
		metric "$1" "$2" "$3"
	fi
}
run_fig() { # FILE FIGURE
	if [ "$2" = rw_ratio ]; then
		awk -v r="$(fig "$1" dram_read_bandwidth 0)" \
		    -v w="$(fig "$1" dram_write_bandwidth 0)" \
		    'BEGIN { if (w > 0) print r / w }'
	else
		fig "$1" "$2" 0
	fi
}
same() {
	local a b x
	for _ in 1 2 3; do
		scrape "$PORT" "$T/before.prom"
		run -g "$1" --json -- sleep 0.5
		tail -1 "$T/err" >"$T/same.json"
		scrape "$PORT" "$T/after.prom"
		a=$(daemon_fig "$T/before.prom" "$3" "$4")
		b=$(daemon_fig "$T/after.prom" "$3" "$4")
		awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d;
		    exit !(a > 0 && d <= 1e-3 * a) }' && break
		echo "# $5: the workload's phase changed around the run ($a, then $b)"
	done
	x=$(run_fig "$T/same.json" "$2")
	near "$x" "$a" 0.01 "$5"
	case $x in ''|null) sed 's/^/#   stderr: /' "$T/err" | cut -c1-300 ;; esac
}
for p in spr:perf zen4:perf skl:direct; do
	plat=${p%%:*}
	PORT=$(pick_port)
	S=$T/$plat.sock
	start_uncored "$T/log.$plat" -c "$T/c.conf" --simulate="$plat" \
		--backend="${p#*:}" -l "127.0.0.1:$PORT" -s "$S"
	ok $? "$plat: daemon up"
	wait_for "3 samples" 60 ring_has "$PORT" 3
	same MEM rw_ratio uncore_dram_bandwidth_bytes_per_second rw \
		"$plat MEM: s0 read/write ratio as the daemon's own"
	same LLC llc_hit_ratio uncore_llc_hit_ratio 'socket="0"' \
		"$plat LLC: s0 hit ratio as the daemon's own"
	stop_uncored
done

# ---- a program shorter than the daemon's interval --------------------------
# A shared claim may wait for the daemon's next tick to join the counters
# (seen on spr's perf backend: a claim "waiting", enabled but not
# running, for the first runs after a start): run starts the program only
# once its claim runs.  Here a 0.5 s program under a 4 s interval is
# measured, all of it, three times, on skx's constant workload above
# (known answers: a default workload's phases would not stay put for a
# comparison with a 4 s interval).  This does not make a claim wait on
# demand: the waiting case was seen by hand on spr, 2 of 3 null figures
# before run_wait_counting(), 0 of 6 after; CI saw null for a 0.5 s
# program on a loaded machine.
# skx_every MS NAME: a daemon on skx's perf backend and the workload
# above, ticking every MS ms; PORT and S are its
skx_every() {
	printf '[daemon]\ninterval_ms = %s\n' "$1" >"$T/$2.conf"
	PORT=$(pick_port)
	S=$T/$2.sock
	start_uncored "$T/log.$2" -c "$T/$2.conf" --simulate=skx --backend=perf \
		--workload "$T/skx.json" -l "127.0.0.1:$PORT" -s "$S"
	ok $? "$(($1 / 1000)) s interval: daemon up on skx's perf backend"
}
skx_every 4000 slow
for i in 1 2 3; do
	run -g MEM --json -- sleep 0.5
	tail -1 "$T/err" >"$T/short.json"
	is "$rc" 0 "a 0.5 s program under a 4 s interval ($i of 3): run exits 0"
	w=$(jq -r .window_s "$T/short.json")
	ok "$(awk -v w="$w" 'BEGIN { exit !(w >= 0.5 && w < 2) }'; echo $?)" \
		"... the counts cover the program ($w s), not an interval"
	x=$(fig "$T/short.json" dram_read_bandwidth 1)
	near "$x" 6.4e9 0.01 "... and its figures are there: s1 read 6.4 GB/s"
	case $x in ''|null) sed 's/^/#   stderr: /' "$T/err" | cut -c1-300 ;; esac
done
stop_uncored

# ---- a claim that does not count during the run ----------------------------
# Under a 30 s interval skx's MEM waits for its turn at the next tick (its
# TOR occupancy needs CHA counter 0, which the baseline holds): run waits
# 10 s for it to count, says so, runs the program, and says the claim
# did not count during the run; the figures are null, not a made-up
# zero (CI saw null for a 0.5 s program on a loaded machine, unsaid).
skx_every 30000 vslow
run -g MEM --json -- true
is "$rc" 0 "a claim that never counts: the program's status, 0"
like "$(cat "$T/err")" "was not counting yet after 10 s (it waits for the daemon's next tick" \
	"... run says it waited 10 s for the claim to count"
like "$(cat "$T/err")" "UNC_M_CAS_COUNT.RD did not count during the run" \
	"... and that the claim did not count during the run"
tail -1 "$T/err" >"$T/never.json"
is "$(fig "$T/never.json" dram_read_bandwidth 0)" null "... its figures are null"
stop_uncored
tap_done
