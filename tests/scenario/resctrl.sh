#!/bin/sh
# resctrl.sh - the daemon reading a resctrl tree laid out by the test with
# known values (shaped as Documentation/filesystems/resctrl.rst): no tree
# at start is said once and the daemon goes on; the tree appearing is read
# on a later pass; per-group bytes and occupancy as the files hold them;
# "Unavailable" gives no series and is counted; a group removed and made
# again restarts from its new count.  L3 id 97 belongs to no CPU, so
# socket is "" on any machine.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
R="$T/resctrl"
printf '[daemon]\ninterval_ms = 200\n[resctrl]\ninterval_s = 1\nsimulated = yes\n' >"$T/uncored.conf"
start_uncored "$T/log" -c "$T/uncored.conf" --simulate --path.resctrl "$R" \
	-l "127.0.0.1:$PORT" -s "$T/ctl.sock"
ok $? "daemon starts without a resctrl tree"
wait_for "uncore_resctrl_available 0" 30 metric_is "$PORT" uncore_resctrl_available "" 0
ok $? "no tree: uncore_resctrl_available 0"

put() { mkdir -p "$(dirname "$1")" && printf '%s\n' "$2" >"$1"; }
D=mon_data/mon_L3_97
# laid out beside and renamed into place at once, as the kernel's tree is
# there whole when mounted: a pass between two of these files would find
# the root group's and not yet the MON group's (seen on a loaded machine)
S="$T/resctrl.new"
put "$S/info/L3_MON/num_rmids" 64
put "$S/$D/mbm_total_bytes" 123456789
put "$S/$D/mbm_local_bytes" 100000000
put "$S/$D/llc_occupancy" 2097152
put "$S/mon_groups/web/$D/mbm_total_bytes" 5000
put "$S/mon_groups/web/$D/mbm_local_bytes" Unavailable
put "$S/mon_groups/web/$D/llc_occupancy" 65536
mv "$S" "$R"

wait_for "the tree to be read" 60 metric_is "$PORT" uncore_resctrl_available "" 1
ok $? "the tree appears: uncore_resctrl_available 1"
scrape "$PORT" "$T/m"
is "$(metric "$T/m" uncore_resctrl_memory_bytes_total 'group="/",socket="",domain="97",scope="total"')" \
	123456789 "root group total bytes as the kernel gives them"
is "$(metric "$T/m" uncore_resctrl_memory_bytes_total 'group="/",socket="",domain="97",scope="local"')" \
	100000000 "root group local bytes"
is "$(metric "$T/m" uncore_resctrl_llc_occupancy_bytes 'group="mon_groups/web",socket="",domain="97"')" \
	65536 "MON group occupancy"
is "$(metric "$T/m" uncore_resctrl_memory_bytes_total 'group="mon_groups/web",socket="",domain="97",scope="local"')" \
	"" "Unavailable: no series, not 0"
ok "$(metric_ge "$PORT" uncore_resctrl_unreadable_total 'reason="unavailable"' 1; echo $?)" \
	"Unavailable counted"

if command -v promtool >/dev/null 2>&1; then
	grep '^# \(HELP\|TYPE\) uncore_resctrl\|^uncore_resctrl' "$T/m" >"$T/rdt.prom"
	promtool check metrics <"$T/rdt.prom" >"$T/promtool.out" 2>&1
	ok $? "promtool check metrics accepts the resctrl families"
	is "$(cat "$T/promtool.out")" "" "... with no lint"
else
	skip "promtool check metrics" "promtool not installed"
	skip "promtool lint" "promtool not installed"
fi

# Removed and made again: the new group counts from 0.
mv "$R/mon_groups/web" "$T/web.gone"
put "$T/web.new/$D/mbm_total_bytes" 40
put "$T/web.new/$D/llc_occupancy" 0
mv "$T/web.new" "$R/mon_groups/web"
rm -rf "$T/web.gone"
wait_for "the re-made group" 60 metric_is "$PORT" uncore_resctrl_memory_bytes_total \
	'group="mon_groups/web",socket="",domain="97",scope="total"' 40
ok $? "a re-made group is served from its new count (a counter reset)"

is "$(grep -c 'no resctrl tree' "$T/log")" 1 "no tree said once, not per pass"
has "$T/log" "resctrl: tree found"
ok $? "the tree found is logged"
ok "$(gone "$UPID"; echo $((!$?)))" "daemon still running"
kill -TERM "$UPID"
wait "$UPID"
rc=$?
is "$rc" 0 "clean exit with the resctrl thread running"
[ "$rc" = 0 ] || sed 's/^/# /' "$T/log" | head -80	# e.g. a TSan report
tap_end
