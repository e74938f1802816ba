#!/bin/sh
# resctrl_abmc.sh - AMD's assignable counters (ABMC, mbm_event mode, Linux
# 6.18) and uncored's own monitoring groups (issue 31 §2), the real
# daemon on the live simulated resctrl tree, with known answers:
#  - every counter taken (the root group and another tool's two), the
#    group uncored makes for a cgroup reads Unassigned: no series, the
#    gauge uncore_resctrl_unassigned_events says 2, and it is logged once;
#    uncored asks for nothing while available_mbm_cntrs says 0;
#  - another tool removes one of its groups: its counters are free, and
#    uncored assigns them to its own group's two events at the next pass
#    ("EVENT:*=e" to mbm_L3_assignments), counted as assigned, logged;
#  - the group then counts from 0 at the assignment (as the kernel resets
#    an assigned counter) at the rate of the cgroup's thread;
#  - the other tool's remaining group keeps its counters and files as
#    they were: uncored never takes a counter from a group not its own.
. "${top_srcdir:-.}/tests/lib.sh"
SIM="$top_builddir/uncore-sim"

# 6 counters: the root group 2, pqos-a 2, pqos-b 2: none left
cat >"$T/w.json" <<'JSON'
{ "platform": "zen4", "sockets": 1,
  "phases": [ { "seconds": 100, "rates": { "umc:0x0a:0x01": 2.0e9 } } ],
  "resctrl": { "l3_domains": 2, "mbm_assign_mode": "mbm_event",
    "num_mbm_cntrs": 6,
    "threads": [
      { "tid": 101, "mbm_total_bytes": 6.0e8, "mbm_local_bytes": 1.5e8 } ],
    "groups": [
      { "name": "mon_groups/pqos-a", "mbm_total_bytes": 1.0e8,
        "owner": "pqos", "tasks": [998] },
      { "name": "mon_groups/pqos-b", "mbm_total_bytes": 1.0e8,
        "owner": "pqos", "tasks": [999] } ] } }
JSON
CG="$T/cgroup"
mkdir -p "$CG/system.slice/a.service"
printf '101\n' >"$CG/system.slice/a.service/cgroup.threads"

R="$T/s/sys/fs/resctrl"
PORT=$(pick_port)
cat >"$T/uncored.conf" <<EOF2
[daemon]
interval_ms = 200
[resctrl]
interval_s = 1
# the tree is uncore-sim's, not the kernel's: named so (statfs check)
simulated = yes
cgroups = system.slice/*.service
cgroup_path = $CG
EOF2
AS=
if [ "$(id -u)" = 0 ]; then
	AS="--user nobody"	# the writes go through the helper
	chmod 755 "$T"
fi
start_uncored "$T/log" -c "$T/uncored.conf" --simulate --workload "$T/w.json" \
	--sim-state "$T/state" --path.resctrl "$R" --path.sysfs "$T/s/sys" \
	-l "127.0.0.1:$PORT" -s "$T/ctl.sock" $AS
ok $? "the daemon starts"
"$SIM" -w "$T/w.json" -s "$T/state" -i 0.1 resctrl "$T/s" >"$T/sim.out" 2>&1 &
SPID=$!
tap_cleanup_pid "$SPID"
wait_for "the tree" 30 test -s "$R/mon_groups/pqos-b/tasks"

grouped() { metric_is "$PORT" uncore_resctrl_cgroups 'state="grouped"' 1; }
wait_for "a.service grouped" 60 grouped
ok $? "a.service has a group of uncored's"
G=$(ls "$R/mon_groups" | grep '^uncored-' | head -1)
is "$(cat "$R/info/L3_MON/available_mbm_cntrs")" "0=0;1=0" "no counter left"
wait_for "the gauge" 30 metric_is "$PORT" uncore_resctrl_unassigned_events '' 2
ok $? "uncore_resctrl_unassigned_events 2: its total and local have none"
is "$(head -1 "$R/mon_groups/$G/mon_data/mon_L3_00/mbm_total_bytes")" "Unassigned" \
	"its mbm_total_bytes reads Unassigned"
is "$(curl -fs "http://127.0.0.1:$PORT/metrics" | grep -c "uncore_resctrl_memory_bytes_total{group=\"mon_groups/$G\"")" 0 \
	"no series for it"
wait_for "the log line" 30 has "$T/log" "2 events of uncored's groups without an ABMC counter"
ok $? "logged: 2 events without a counter"
# two resctrl passes more: each reads the group's 2 events x 2 domains
# as Unassigned
u0=$(metric_now "$PORT" uncore_resctrl_unreadable_total 'reason="unassigned"')
wait_for "two passes more" 30 metric_ge "$PORT" uncore_resctrl_unreadable_total \
	'reason="unassigned"' $((${u0:-0} + 8))
is "$(metric_now "$PORT" uncore_resctrl_counter_assignments_total 'result="assigned"')" 0 \
	"nothing asked for while none is free"
is "$(metric_now "$PORT" uncore_resctrl_counter_assignments_total 'result="refused"')" 0 \
	"... so nothing refused"
B0=$(cat "$R/mon_groups/pqos-b/mbm_L3_assignments")

# pqos removes pqos-a: two counters free, and uncored takes them (moved
# away at once, as the kernel's rmdir takes a group's files with it: an
# rm -rf would race the simulator rewriting them)
mv "$R/mon_groups/pqos-a" "$T/pqos-a.removed"
wait_for "the counters assigned" 30 metric_is "$PORT" uncore_resctrl_unassigned_events '' 0
ok $? "uncore_resctrl_unassigned_events 0 once pqos-a's counters are free"
is "$(metric_now "$PORT" uncore_resctrl_counter_assignments_total 'result="assigned"')" 2 \
	"two counters assigned (total, local)"
wait_for "the tree's assignment" 30 sh -c "cat '$R/mon_groups/$G/mbm_L3_assignments' | tr '\n' ' ' | grep -qx 'mbm_total_bytes:0=e;1=e mbm_local_bytes:0=e;1=e '"
ok $? "its mbm_L3_assignments: e in every domain, for both events"
like "$(cat "$T/s/resctrl.log")" "$G: mbm_local_bytes counter assigned" "the simulated kernel took the write"
wait_for "none left" 30 grep -qx '0=0;1=0' "$R/info/L3_MON/available_mbm_cntrs"
ok $? "none left again: never more than were free"
wait_for "the log line" 30 has "$T/log" "every event of uncored's groups has an ABMC counter now"
ok $? "logged: every event has a counter now"

# it counts from the assignment, at the thread's rate
wait_for "its series" 30 sh -c "curl -fs http://127.0.0.1:$PORT/metrics | grep -q 'uncore_resctrl_memory_bytes_total{group=\"mon_groups/$G\".*scope=\"total\"'"
ok $? "its series appear"
v=$(cat "$R/mon_groups/$G/mon_data/mon_L3_00/mbm_total_bytes" "$R/mon_groups/$G/mon_data/mon_L3_01/mbm_total_bytes" | awk '{ s += $1 } END { print s }')
ok "$(awk -v v="$v" 'BEGIN { exit !(v > 0 && v < 6.0e8 * 40) }'; echo $?)" \
	"its bytes count from the assignment, not from the mkdir before it ($v)"
# the group's bytes and rate in /api/v1/metrics, as "BYTES RATE" (empty
# while it has no rate)
grp() {
	curl -fs "http://127.0.0.1:$PORT/api/v1/metrics" |
		python3 -c 'import json,sys
d = json.load(sys.stdin)
for s in d["sockets"]:
    for g in s.get("resctrl_groups", []):
        if g["group"] == "mon_groups/'"$G"'" and g.get("bytes_per_second") is not None:
            print(g["bytes_total"], g["bytes_per_second"])'
}
# a pass later than the one that gave "$1": a new reading
newer() { _g=$(grp); [ -n "$_g" ] && [ "$_g" != "$1" ]; }
# the rate of 5 passes in a row, each waited for, and their median
rates() {
	_last=
	for i in 1 2 3 4 5; do
		wait_for "resctrl pass $i" 30 newer "$_last" || return
		_last=$(grp)
		echo "$_last" | cut -d' ' -f2
	done | sort -g | sed -n 3p
}
wait_for "a rate" 30 newer ""
ok $? "its rate is in /api/v1/metrics"
near "$(rates)" 6.0e8 0.25 "its rate: the thread's 6.0e8 B/s (the median of 5 passes)"

# the other tool's group: untouched
is "$(cat "$R/mon_groups/pqos-b/mbm_L3_assignments")" "$B0" "pqos-b keeps its counters"
is "$(cat "$R/mon_groups/pqos-b/tasks" | tr '\n' ' ')" "999 " "... and its tasks"

[ "$_tap_failed" = 0 ] || sed "s/^/# sim: /" "$T/sim.out"
kill -TERM "$UPID"
wait "$UPID"
is "$?" 0 "SIGTERM: exit 0"
tap_done
