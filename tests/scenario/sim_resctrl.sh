#!/bin/sh
# sim_resctrl.sh - the simulated resctrl tree (`uncore-sim resctrl DIR`,
# issue 31 §3) read by the daemon through --path.resctrl and
# --path.sysfs, with known answers:
#  - per-group bytes: a tree written at simulated time 10 s holds rate x
#    10 s (a CTRL_MON group adds its MON group's); each group has its own
#    rates, so a mix-up of groups, events, or the parent sum shows;
#  - the RMID limit and limbo: a group made with every RMID in use is
#    refused (ENOSPC), one made while the only free RMID is in limbo too
#    (EBUSY), and neither is served;
#  - "Unavailable" and "Unassigned" (AMD ABMC): no series, counted by
#    reason;
#  - domains to sockets: AMD's L3 domain per CCX, two per socket;
#  - another tool's group is served and the daemon changes nothing in
#    the tree (its tasks file included);
#  - live: the tree follows the simulated clock shared through
#    --sim-state; a group removed and re-made restarts from 0 (a counter
#    reset); a directory made by someone else is taken in;
#  - a workload whose groups move more bytes than its DRAM is refused by
#    uncore-sim and uncored alike, naming the group.
. "${top_srcdir:-.}/tests/lib.sh"
SIM="$top_builddir/uncore-sim"

# DRAM on socket 0: (6e7 + 3e7) x 64 = 5.76e9 B/s; the groups 4.9e9.
cat >"$T/w.json" <<'JSON'
{ "platform": "skl",
  "phases": [ { "seconds": 100, "rates": {
      "imc:DRAM_DATA_READS": 6.0e7, "imc:DRAM_DATA_WRITES": 3.0e7 } } ],
  "resctrl": { "num_rmids": 6, "limbo_s": 1,
    "groups": [
      { "name": "web", "mbm_total_bytes": 3.0e9, "mbm_local_bytes": 2.0e9,
        "llc_occupancy": 4194304 },
      { "name": "web/mon_groups/php", "mbm_total_bytes": 1.0e9,
        "mbm_local_bytes": 7.0e8, "llc_occupancy": 1048576 },
      { "name": "db", "mbm_total_bytes": 5.0e8, "mbm_local_bytes": 1.0e8,
        "unavailable": ["mbm_local_bytes"] },
      { "name": "batch", "mbm_total_bytes": 2.0e8, "until": 4 },
      { "name": "limbo", "mbm_total_bytes": 1.0e7, "from": 4.5 },
      { "name": "batch", "mbm_total_bytes": 2.0e8, "from": 5 },
      { "name": "pqos", "mbm_total_bytes": 1.0e8, "owner": "pqos",
        "tasks": [4242, 4243] },
      { "name": "late", "mbm_total_bytes": 1.0e8, "from": 2 } ] } }
JSON

out=$("$SIM" -w "$T/w.json" resctrl "$T/s" --at 10 2>&1); rc=$?
is "$rc" 0 "uncore-sim writes the tree at 10 s ($out)"
R="$T/s/sys/fs/resctrl"
is "$out" "$R
$T/s/sys" "the resctrl and sysfs roots are printed"
is "$(cat "$R/info/L3_MON/num_rmids")" 6 "num_rmids as the workload says"
like "$(cat "$T/s/resctrl.log")" "mkdir late: ENOSPC" \
	"a group made with every RMID in use is refused"
like "$(cat "$T/s/resctrl.log")" "mkdir limbo: EBUSY" \
	"... and one made while the free RMID is in limbo"
like "$(cat "$T/s/resctrl.log")" "5.000 mkdir batch: rmid 4" \
	"the re-made group gets the RMID once its limbo is over"
ok "$([ ! -e "$R/late" ] && [ ! -e "$R/limbo" ]; echo $?)" \
	"refused groups have no directory"
is "$(cat "$R/pqos/tasks" | tr '\n' ' ')" "4242 4243 " "another tool's tasks"

# the daemon reads it; nothing may change in the tree
(cd "$T/s" && find . -path ./removed -prune -o -print | sort |
	while read -r f; do
		stat -c '%n %i %s %Y' "$f"; [ -f "$f" ] && cat "$f"
	done) >"$T/before" 2>&1
PORT=$(pick_port)
printf '[daemon]\ninterval_ms = 200\n[resctrl]\ninterval_s = 1\nsimulated = yes\n' >"$T/uncored.conf"
start_uncored "$T/log" -c "$T/uncored.conf" --simulate --workload "$T/w.json" \
	--path.resctrl "$R" --path.sysfs "$T/s/sys" \
	-l "127.0.0.1:$PORT" -s "$T/ctl.sock"
ok $? "the daemon starts on the same workload"
wait_for "the tree to be read" 60 metric_is "$PORT" uncore_resctrl_available "" 1
ok $? "uncore_resctrl_available 1"
wait_for "a second pass" 60 metric_ge "$PORT" uncore_resctrl_unreadable_total \
	'reason="unavailable"' 2
scrape "$PORT" "$T/m"
g() { metric "$T/m" uncore_resctrl_memory_bytes_total "group=\"$1\",socket=\"0\",domain=\"0\",scope=\"$2\""; }
o() { metric "$T/m" uncore_resctrl_llc_occupancy_bytes "group=\"$1\",socket=\"0\",domain=\"0\""; }
is "$(g web total)" 40000000000 "web: (3e9 own + 1e9 php) x 10 s"
is "$(g web local)" 27000000000 "web local: (2e9 + 7e8) x 10 s"
is "$(o web)" 5242880 "web occupancy: its own and php's"
is "$(g web/mon_groups/php total)" 10000000000 "php: 1e9 x 10 s"
is "$(g web/mon_groups/php local)" 7000000000 "php local: 7e8 x 10 s"
is "$(o web/mon_groups/php)" 1048576 "php occupancy"
is "$(g db total)" 5000000000 "db: 5e8 x 10 s"
is "$(g db local)" "" "db local reads Unavailable: no series, not 0"
is "$(g batch total)" 1000000000 "batch re-made at 5 s: 2e8 x 5 s, not x 10 s"
is "$(g pqos total)" 1000000000 "another tool's group is served"
is "$(g / total)" 0 "the root group: no traffic of its own"
is "$(g late total)" "" "a refused group is not served"
is "$(g limbo total)" "" "... nor one refused for limbo"
is "$(grep -c '^uncore_resctrl_memory_bytes_total{' "$T/m")" 11 \
	"11 byte series: 6 groups x 2 scopes, less db local"
kill -TERM "$UPID"
wait "$UPID"
is "$?" 0 "clean exit"
(cd "$T/s" && find . -path ./removed -prune -o -print | sort |
	while read -r f; do
		stat -c '%n %i %s %Y' "$f"; [ -f "$f" ] && cat "$f"
	done) >"$T/after" 2>&1
cmp -s "$T/before" "$T/after"
ok $? "the daemon changed nothing in the tree (another tool's group included)"

# AMD: two L3 domains (CCX) per socket, ABMC with 5 counters: the root
# group takes 2, web 2, db 1 (total only), x none.
cat >"$T/amd.json" <<'JSON'
{ "platform": "zen4", "sockets": 2,
  "phases": [ { "seconds": 100, "rates": { "umc:0x0a:0x01": 2.0e8 } } ],
  "resctrl": { "l3_domains": 2, "mbm_assign_mode": "mbm_event",
    "num_mbm_cntrs": 5, "groups": [
      { "name": "web", "mbm_total_bytes": 4.0e9, "mbm_local_bytes": 1.0e9,
        "socket": 1 },
      { "name": "db", "mbm_total_bytes": 2.0e9 },
      { "name": "x", "mbm_total_bytes": 1.0e9 } ] } }
JSON
"$SIM" -w "$T/amd.json" resctrl "$T/a" --at 3 >/dev/null 2>&1
ok $? "uncore-sim writes an AMD tree"
A="$T/a/sys/fs/resctrl"
is "$(cat "$A/info/L3_MON/mbm_assign_mode" | head -1)" "[mbm_event]" \
	"mbm_assign_mode shows mbm_event"
is "$(cat "$A/info/L3_MON/num_mbm_cntrs")" "0=5;1=5;2=5;3=5" \
	"num_mbm_cntrs per domain"
is "$(cat "$A/db/mbm_L3_assignments" | tail -1)" \
	"mbm_local_bytes:0=_;1=_;2=_;3=_" "db's local event has no counter"
PORT=$(pick_port)
start_uncored "$T/log2" -c "$T/uncored.conf" --simulate \
	--path.resctrl "$A" --path.sysfs "$T/a/sys" \
	-l "127.0.0.1:$PORT" -s "$T/ctl2.sock"
ok $? "the daemon starts"
wait_for "the AMD tree" 60 metric_ge "$PORT" uncore_resctrl_unreadable_total \
	'reason="unassigned"' 1
scrape "$PORT" "$T/m2"
a() { metric "$T/m2" uncore_resctrl_memory_bytes_total "group=\"$1\",socket=\"$2\",domain=\"$3\",scope=\"$4\""; }
is "$(a web 1 2 total)" 6000000000 "web on socket 1, CCX 2: 4e9 x 3 s / 2"
is "$(a web 1 3 local)" 1500000000 "web on CCX 3: 1e9 x 3 s / 2"
is "$(a web 0 0 total)" 0 "web has no traffic on socket 0"
is "$(a db 0 1 total)" 3000000000 "db on CCX 1 of socket 0: 2e9 x 3 s / 2"
is "$(a db 0 1 local)" "" "db local is Unassigned: no series"
is "$(a x 1 3 total)" "" "x total is Unassigned"
ok "$(metric_ge "$PORT" uncore_resctrl_unreadable_total 'reason="unassigned"' 12; echo $?)" \
	"Unassigned counted (12 in one pass: db local, x total and local, x 4 domains)"
kill -TERM "$UPID"
wait "$UPID"

# live: the tree follows the shared simulated clock
cat >"$T/live.json" <<'JSON'
{ "platform": "skl",
  "phases": [ { "seconds": 100, "rates": {
      "imc:DRAM_DATA_READS": 6.0e7, "imc:DRAM_DATA_WRITES": 3.0e7 } } ],
  "resctrl": { "groups": [
      { "name": "web", "mbm_total_bytes": 3.0e9 },
      { "name": "web/mon_groups/php", "mbm_total_bytes": 1.0e9 },
      { "name": "batch", "mbm_total_bytes": 2.0e8, "until": 8 },
      { "name": "batch", "mbm_total_bytes": 2.0e8, "from": 10 } ] } }
JSON
# the daemon first: its backend decides what the state file holds, and
# uncore-sim takes the clock from it either way
PORT=$(pick_port)
start_uncored "$T/log3" -c "$T/uncored.conf" --simulate --workload "$T/live.json" \
	--sim-state "$T/state" --path.resctrl "$T/l/sys/fs/resctrl" \
	--path.sysfs "$T/l/sys" -l "127.0.0.1:$PORT" -s "$T/ctl3.sock"
ok $? "the daemon starts before the tree"
"$SIM" -w "$T/live.json" -s "$T/state" -i 0.2 resctrl "$T/l" >"$T/sim.out" 2>&1 &
SPID=$!
tap_cleanup_pid "$SPID"
L="$T/l/sys/fs/resctrl"
wait_for "the live tree" 30 test -s "$L/batch/mon_data/mon_L3_00/mbm_total_bytes"
ok $? "uncore-sim shares the daemon's simulated clock"
B='group="batch",socket="0",domain="0",scope="total"'
wait_for "batch to count past 5e8 (2.5 s)" 60 metric_ge "$PORT" \
	uncore_resctrl_memory_bytes_total "$B" 500000001
ok $? "batch counts"
before=$(metric_now "$PORT" uncore_resctrl_memory_bytes_total "$B")
below() { # below PORT NAME LABELS MAX: is NAME{LABELS} served and < MAX?
	_b=$(metric_now "$1" "$2" "$3")
	[ -n "$_b" ] && [ "$_b" -lt "$4" ]
}
wait_for "batch re-made (below 4e8 after 10 s)" 60 \
	below "$PORT" uncore_resctrl_memory_bytes_total "$B" 400000000
ok $? "a re-made group restarts from 0 (was $before): a counter reset"
# web's file and php's are written by one sync, at one simulated time;
# a resctrl pass of the daemon on a loaded machine can read them across
# a sync (seen: web 0.4 s ahead), so the exact answer is asked of the
# passes until one read both within a sync: a CTRL_MON group that did
# not add its MON group's bytes would never give it.
for try in $(seq 1 30); do
	scrape "$PORT" "$T/l1"
	w=$(metric "$T/l1" uncore_resctrl_memory_bytes_total 'group="web",socket="0",domain="0",scope="total"')
	p=$(metric "$T/l1" uncore_resctrl_memory_bytes_total 'group="web/mon_groups/php",socket="0",domain="0",scope="total"')
	awk -v w="$w" -v p="$p" 'BEGIN { d = w - 4 * p; exit !(p > 0 && (d < 0 ? -d : d) <= 1e-9 * w) }' && break
	# the next pass: web's bytes read anew
	wait_for "a resctrl pass after try $try" 30 sh -c \
		"[ \"\$(curl -fs http://127.0.0.1:$PORT/metrics | grep '^uncore_resctrl_memory_bytes_total{group=\"web\",socket=\"0\",domain=\"0\",scope=\"total\"}' | cut -d' ' -f2)\" != '$w' ]"
done
near "$w" "$(awk -v p="$p" 'BEGIN { printf "%.0f", 4 * p }')" 1e-9 \
	"web = 4 x php at the same simulated time (own 3e9 + php 1e9)"
ok "$(awk -v p="$p" 'BEGIN { exit !(p >= 1e10) }'; echo $?)" \
	"php counted at least 10 s at 1e9 B/s ($p)"
like "$(cat "$T/l/resctrl.log")" "rmdir batch" "the removal is logged"
mkdir "$L/mine"
wait_for "a group made by someone else" 60 metric_is "$PORT" \
	uncore_resctrl_memory_bytes_total \
	'group="mine",socket="0",domain="0",scope="total"' 0
ok $? "a directory made by another tool is taken in, counting 0"
kill -TERM "$UPID"
wait "$UPID"
is "$?" 0 "clean exit"
kill -TERM "$SPID"
wait "$SPID"
is "$?" 0 "uncore-sim ends on SIGTERM"

# more bytes than DRAM: refused, naming the group
sed 's/"mbm_total_bytes": 1.0e8, "owner"/"mbm_total_bytes": 2.0e9, "owner"/' \
	"$T/w.json" >"$T/over.json"
out=$("$SIM" -w "$T/over.json" resctrl "$T/o" --at 1 2>&1); rc=$?
is "$rc" 1 "uncore-sim refuses groups beyond the socket's DRAM bandwidth"
like "$out" 'over.json: $.resctrl.groups[6]: group "pqos": the groups alive at 0 s move 6.7e+09 bytes/s on socket 0' \
	"naming the file, the group entry and the sum"
like "$out" "DRAM bandwidth in that phase, 5.76e+09 bytes/s" "and the bound"
out=$("$UNCORED" --simulate --workload "$T/over.json" -n 2>&1); rc=$?
ok "$([ "$rc" -ne 0 ]; echo $?)" "uncored -n refuses it too ($rc)"
like "$out" 'group "pqos"' "with the same message"
tap_done
