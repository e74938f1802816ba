#!/bin/sh
# resctrl_hostile.sh - the real daemon, started as root and running as
# nobody, its uid-0 helper writing a simulated resctrl tree that a local
# user has prepared (issue 39), with known answers:
#  - a plain tree not named [resctrl] simulated is refused, the log
#    naming the path and the statfs check, and nothing is made in it;
#  - uncored's group name planted as a link to a directory with a
#    root-owned tasks file (a cgroup v1 one), and later the group's tasks
#    swapped for a link to that file: it is never written, the link is
#    removed, the write counted as an error, and the cgroup grouped;
#  - a thread another tool's MON group holds (cadvisor-x's 999, moved
#    into a matching cgroup by its user) stays in that group: its bytes
#    stay cadvisor-x's (7e8 B/s), counted as other_mon_group;
#  - pid 1 in a matching cgroup is never written;
#  - the helper: uid 0, gid 65534, no supplementary group, working
#    directory /, a seccomp filter.
# The helper's answers to malformed requests are tested directly in
# tests/unit/test_resctrl_priv.c.
. "${top_srcdir:-.}/tests/lib.sh"
SIM="$top_builddir/uncore-sim"
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP the helper runs only when uncored starts as root"; exit 0; }
command -v python3 >/dev/null || { echo "1..0 # SKIP python3 (the FNV-1a of a path)"; exit 0; }
chmod 755 "$T"

cat >"$T/w.json" <<'JSON'
{ "platform": "skl",
  "phases": [ { "seconds": 100, "rates": {
      "imc:DRAM_DATA_READS": 6.0e7, "imc:DRAM_DATA_WRITES": 3.0e7 } } ],
  "resctrl": { "num_rmids": 16, "limbo_s": 1,
    "threads": [
      { "tid": 101, "mbm_total_bytes": 1.0e8 },
      { "tid": 999, "mbm_total_bytes": 6.0e8 } ],
    "groups": [
      { "name": "mon_groups/cadvisor-x", "mbm_total_bytes": 1.0e8,
        "owner": "cadvisor", "tasks": [999] } ] } }
JSON
CG="$T/cgroup"
threads() { mkdir -p "$CG/$1"; printf "$2" >"$CG/$1/cgroup.threads.new"; mv "$CG/$1/cgroup.threads.new" "$CG/$1/cgroup.threads"; }
mkdir -p "$CG"
fnv() { python3 -c 'import sys
h = 0xcbf29ce484222325
for c in sys.argv[1].encode():
    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
print("uncored-%016x" % h)' "$1"; }
GA=$(fnv system.slice/a.service)

conf() {
	cat <<EOF
[daemon]
interval_ms = 200
[resctrl]
interval_s = 1
cgroups = system.slice/*.service
cgroup_path = $CG
max_groups = 4
EOF
}

# 1. a plain tree, not named simulated: refused
"$SIM" -w "$T/w.json" resctrl "$T/p" --at 1 >/dev/null 2>&1
P="$T/p/sys/fs/resctrl"
conf >"$T/plain.conf"
PORT=$(pick_port)
start_uncored "$T/log1" -c "$T/plain.conf" --simulate --workload "$T/w.json" \
	--path.resctrl "$P" --path.sysfs "$T/p/sys" -l "127.0.0.1:$PORT" -s "" \
	--user nobody
ok $? "the daemon starts on a plain tree not named simulated"
wait_for "the refusal" 30 has "$T/log1" "is not the kernel's resctrl"
ok $? "the helper refuses it"
like "$(grep "not the kernel's resctrl" "$T/log1")" "$P is not the kernel's resctrl (statfs" \
	"the log names the path and the check"
like "$(grep "not the kernel's resctrl" "$T/log1")" "[resctrl] simulated = yes" \
	"and how to name a simulated tree"
is "$(ls "$P/mon_groups" | grep -c '^uncored-')" 0 "nothing made in it"
kill -TERM "$UPID"
wait "$UPID"

# 2. the simulated tree, named so, as a local user left it
R="$T/s/sys/fs/resctrl"
conf >"$T/uncored.conf"
echo "simulated = yes" >>"$T/uncored.conf"
PORT=$(pick_port)
start_uncored "$T/log" -c "$T/uncored.conf" --simulate --workload "$T/w.json" \
	--sim-state "$T/state" --path.resctrl "$R" --path.sysfs "$T/s/sys" \
	-l "127.0.0.1:$PORT" -s "" --user nobody
ok $? "the daemon starts as nobody on the simulated tree"
"$SIM" -w "$T/w.json" -s "$T/state" -i 0.2 resctrl "$T/s" >"$T/sim.out" 2>&1 &
tap_cleanup_pid $!
wait_for "the tree" 30 test -s "$R/mon_groups/cadvisor-x/tasks"
# a.service's group, planted as a link before a.service appears
mkdir -p "$T/v1"
: >"$T/v1/tasks"
chmod 644 "$T/v1/tasks"
ln -s "$T/v1" "$R/mon_groups/$GA"
threads system.slice/a.service '101\n'
grouped() { metric_is "$PORT" uncore_resctrl_cgroups 'state="grouped"' "$1"; }
wait_for "a.service grouped" 60 grouped 1
ok $? "a.service gets its group in the end"
ok "$([ -d "$R/mon_groups/$GA" ] && [ ! -L "$R/mon_groups/$GA" ]; echo $?)" \
	"a directory of its own, the planted link removed"
is "$(cat "$T/v1/tasks")" "" "the root-owned tasks file the link named: never written"
wait_for "101 in a's group" 30 grep -qx 101 "$R/mon_groups/$GA/tasks"
ok $? "a.service's thread is moved"
# the group's tasks swapped for a link to the root-owned file, then a
# new thread: not written through the link, counted as an error
mv "$R/mon_groups/$GA/tasks" "$T/a-tasks"
ln -s "$T/v1/tasks" "$R/mon_groups/$GA/tasks"
e0=$(metric_now "$PORT" uncore_resctrl_task_moves_total 'result="error"')
threads system.slice/a.service '101\n102\n'
wait_for "the refused write" 30 metric_ge "$PORT" uncore_resctrl_task_moves_total 'result="error"' $((e0 + 1))
ok $? "a tasks file that became a link: the write refused, counted as an error"
is "$(cat "$T/v1/tasks")" "" "the file it names: still never written"
rm "$R/mon_groups/$GA/tasks"
mv "$T/a-tasks" "$R/mon_groups/$GA/tasks"
wait_for "102 in a's group" 30 grep -qx 102 "$R/mon_groups/$GA/tasks"
ok $? "the real file back: the thread is moved"

# 3. cadvisor-x's thread, moved by its user into a matching cgroup
mb() { metric "$1" uncore_resctrl_memory_bytes_total "group=\"mon_groups/$2\",socket=\"0\",domain=\"0\",scope=\"total\"${3:-}"; }
threads system.slice/mine.service '999\n'
threads system.slice/a.service '101\n1\n'
wait_for "other_mon_group" 60 metric_ge "$PORT" uncore_resctrl_task_moves_total 'result="other_mon_group"' 1
ok $? "counted: other_mon_group"
GM=$(fnv system.slice/mine.service)
wait_for "mine's group" 30 test -e "$R/mon_groups/$GM/tasks"
wait_samples "$PORT" 10
scrape "$PORT" "$T/m1"
c1=$(mb "$T/m1" cadvisor-x)
a1=$(mb "$T/m1" "$GA" ',cgroup="system.slice/a.service"')
sleep 10
scrape "$PORT" "$T/m2"
c2=$(mb "$T/m2" cadvisor-x)
a2=$(mb "$T/m2" "$GA" ',cgroup="system.slice/a.service"')
# against a.service's group (thread 101 alone, 1e8 B/s) over the same
# two scrapes, not the wall clock's 10 s: 7e8 : 1e8 while cadvisor-x
# keeps 999 (1e8 : 7e8 had the thread been taken)
near "$(awk -v a="$c1" -v b="$c2" -v x="$a1" -v y="$a2" 'BEGIN { print (b - a) / (y - x) }')" 7 0.05 \
	"cadvisor-x keeps its thread's bytes: 7 times a.service's ($c1 .. $c2, $a1 .. $a2)"
is "$(cat "$R/mon_groups/cadvisor-x/tasks" | tr '\n' ' ')" "999 " "its tasks as they were"
is "$(grep -c . "$R/mon_groups/$GM/tasks")" 0 "nothing written to mine.service's group"
ok "$(! grep -qx 1 "$R/mon_groups/$GA/tasks"; echo $?)" "pid 1 never written"
ok "$(metric_ge "$PORT" uncore_resctrl_task_moves_total 'result="denied"' 1; echo $?)" \
	"pid 1: counted as denied"

# 4. the helper's confinement
HPID=$(pgrep -P "$UPID" -x uncored-rdtpriv | head -1)
st() { awk -v k="$2:" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "/proc/$1/status"; }
is "$(st "$UPID" Uid | cut -d' ' -f1)" 65534 "the daemon runs as nobody"
is "$(st "$HPID" Uid)" "0 0 0 0" "the helper: uid 0"
is "$(st "$HPID" Gid)" "65534 65534 65534 65534" "gid 65534, not 0"
is "$(st "$HPID" Groups)" "" "no supplementary group"
is "$(st "$HPID" CapEff) $(st "$HPID" NoNewPrivs) $(st "$HPID" Seccomp)" \
	"0000000000000000 1 2" "no capability, no_new_privs, a seccomp filter"
is "$(readlink "/proc/$HPID/cwd")" / "working directory /"
kill -TERM "$UPID"
wait "$UPID"
is "$?" 0 "SIGTERM: exit 0"
is "$(ls "$R/mon_groups" | grep -c '^uncored-')" 0 "every group of uncored's removed at stop"
tap_done
