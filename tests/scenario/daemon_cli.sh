#!/bin/sh
# daemon_cli.sh - the command line and the configuration do what the man
# pages say: [sim] platform runs the simulator, -n runs start-up's checks
# (and frees what it allocated), platform names are listed where they
# are asked for, --version carries the revision and the build date, a
# reload says which settings it could not apply, log lines have the
# journal's priority prefix only when stderr is the journal, and a user
# other than root is told what to pass for the control socket.
. "${top_srcdir:-.}/tests/lib.sh"
BACKEND=direct
perf_mode && BACKEND=perf

# ---- [sim] platform runs the daemon on the simulator ---------------------
PORT=$(pick_port)
printf '[sim]\nplatform = hsx\n' >"$T/hsx.conf"
start_uncored "$T/hsx.log" -c "$T/hsx.conf" -l "127.0.0.1:$PORT" -s ""
ok $? "[sim] platform = hsx starts without --simulate"
st=$(curl -s "http://127.0.0.1:$PORT/api/v1/status")
like "$st" '"platform":"hsx"' "on the hsx simulator"
like "$st" "\"backend\":\"$BACKEND\",\"simulated\":true" "with the $BACKEND backend on the simulator"

# ---- version and build information ----------------------------------------
ver=$("$UNCORED" --version)
like "$ver" "uncored " "--version: $ver"
rev=$(echo "$ver" | sed -n 's/.*(revision \([^,]*\), built \([^)]*\)).*/\1/p')
date=$(echo "$ver" | sed -n 's/.*(revision \([^,]*\), built \([^)]*\)).*/\2/p')
ok "$([ -n "$rev" ] && [ "$rev" != unknown ]; echo $?)" "--version names the revision ($rev)"
ok "$(echo "$date" | grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$'; echo $?)" \
	"and the build date in ISO 8601 UTC ($date)"
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/m"
like "$(grep '^uncored_build_info' "$T/m")" "revision=\"$rev\"" \
	"uncored_build_info has the same revision"
like "$(grep '^uncored_build_info' "$T/m")" "build_date=\"$date\"" "and build date"
like "$st" "\"revision\":\"$rev\"" "/api/v1/status has the revision"
# The generator: SOURCE_DATE_EPOCH wins; a tree without git (a tarball)
# takes both from src/REVISION.
gen="$top_srcdir/src/build-info.sh"
SOURCE_DATE_EPOCH=86400 sh "$gen" "$top_srcdir" "$T/bi.h"
like "$(cat "$T/bi.h")" 'UNCORED_BUILD_DATE "1970-01-02T00:00:00Z"' \
	"SOURCE_DATE_EPOCH sets the build date"
mkdir -p "$T/tarball/src"
echo "abcdef123456 172800" >"$T/tarball/src/REVISION"
(unset SOURCE_DATE_EPOCH; sh "$gen" "$T/tarball" "$T/bi2.h")
like "$(cat "$T/bi2.h")" 'UNCORED_REVISION "abcdef123456"' "without git: src/REVISION's revision"
like "$(cat "$T/bi2.h")" 'UNCORED_BUILD_DATE "1970-01-03T00:00:00Z"' "and its date"
rm "$T/tarball/src/REVISION"
(unset SOURCE_DATE_EPOCH; sh "$gen" "$T/tarball" "$T/bi3.h")
like "$(cat "$T/bi3.h")" 'UNCORED_REVISION "unknown"' "neither: revision unknown, still builds"

# ---- docs that match the build ------------------------------------------------
# The man pages are generated with the configured paths (as --help shows
# them), and the README and doc/ stand on their own.
conf_path=$("$UNCORED" --help | sed -n 's/.*configuration (default \(.*\))$/\1/p')
like "$(cat "$top_builddir/doc/uncored.8")" ".IR $conf_path ." \
	"uncored(8) names the configured $conf_path"
like "$(cat "$top_builddir/doc/uncored.conf.5")" "$conf_path" "and uncored.conf(5)"
left=$(grep -l '@[a-z]*@' "$top_builddir"/doc/*.[158] 2>/dev/null)
is "$left" "" "no @placeholder@ is left in the generated man pages"
refs=$(cd "$top_srcdir" && grep -l 'DESIGN\.md' README doc/*.md doc/*.in 2>/dev/null)
is "$refs" "" "README and doc/ do not send the reader to DESIGN.md (not shipped)"
# The package ships every page the README and doc/README.md point to.
missing=$(cd "$top_srcdir" && for f in README doc/*.md; do
	grep -qx "$f" debian/uncored.docs || printf '%s ' "$f"; done)
is "$missing" "" "debian/uncored.docs installs README and every doc/*.md"

# ---- the platform list ----------------------------------------------------
help=$("$UNCORED" --help)
like "$help" "skl, hsx, snbep, skx, icx, spr, zen4, adl, mtl, zen5, zen3, gnr" "--help lists every platform for --simulate"
out=$("$UNCORED" --simulate=hsw 2>&1); rc=$?
is "$rc" 64 "--simulate=hsw is a usage error"
like "$out" "unknown platform (supported: skl, hsx, snbep, skx, icx, spr, zen4, adl, mtl, zen5, zen3, gnr)" "with the list"
printf '[sim]\n# Haswell\nplatform = hsw\n' >"$T/hsw.conf"
out=$("$UNCORED" -n -c "$T/hsw.conf" 2>&1); rc=$?
is "$rc" 1 "-n: [sim] platform = hsw is refused"
like "$out" "hsw.conf:3: platform: unknown platform \"hsw\" (supported: skl, hsx, snbep, skx, icx, spr, zen4, adl, mtl, zen5, zen3, gnr)" \
	"with file:line and the list"

# ---- -n runs start-up's checks ----------------------------------------------
printf '[daemon]\ninterval_ms = 3000\n' >"$T/slow.conf"
out=$("$UNCORED" -n -c "$T/slow.conf" --simulate 2>&1); rc=$?
if perf_mode; then
	# the kernel extends every counter to 64 bits: no wrap limit
	is "$rc" 0 "-n: interval_ms = 3000 on skl is accepted on perf (64-bit counts)"
	like "$out" "configuration OK (platform skl, perf backend, simulator)" \
		"saying so"
else
	is "$rc" 1 "-n: interval_ms = 3000 on skl (IMC wrap) is refused"
	like "$out" "at most 2147 ms" "with the limit start-up gives"
	out=$("$UNCORED" -c "$T/slow.conf" --simulate -l none -s "" 2>&1); rc=$?
	is "$rc" 1 "(start-up refuses it the same way)"
fi
echo '{ "platform": "skl", "phases": [] }' >"$T/nophase.json"
printf '[sim]\nplatform = skl\nworkload = nophase.json\n' >"$T/nophase.conf"
out=$("$UNCORED" -n -c "$T/nophase.conf" 2>&1); rc=$?
is "$rc" 1 "-n: a workload with \"phases\": [] is refused"
like "$out" "nophase.json: \$.phases" "naming the file and the JSON path"
printf '[http]\ncontrol_group = no-such-group-xyz\n' >"$T/grp.conf"
out=$("$UNCORED" -n --simulate -c "$T/grp.conf" 2>&1); rc=$?
is "$rc" 1 "-n: an unknown control_group is refused"
like "$out" "no-such-group-xyz" "naming it"
printf '[daemon]\ninterval_ms = 2000\n[sim]\nplatform = skl\n' >"$T/good.conf"
out=$("$UNCORED" -n -c "$T/good.conf" 2>&1); rc=$?
is "$rc" 0 "-n accepts a config that starts"
like "$out" "configuration OK (platform skl, $BACKEND backend, simulator)" "and says on what"
# Every failing path frees what it allocated (LeakSanitizer, in a
# sanitizer build, prints a report and fails the exit status).
printf '[daemon]\nlog_level = debug\n[http]\nlisten = 127.0.0.1:1\ncontrol_group = x-none\n' >"$T/l1.conf"
printf '[baseline]\ncbo = UNC_NOPE\n[sim]\nworkload = nophase.json\n' >"$T/l2.conf"
printf '[baseline]\ncbo = UNC_CBO_CACHE_LOOKUP.ANY_I\n[daemon]\ninterval_ms = 60000\n' >"$T/l3.conf"
printf '[sim]\nplatform = hsx\n[baseline]\ncbo = UNC_CBO_CACHE_LOOKUP.ANY_I\n' >"$T/l4.conf"
printf '[http]\nlisten = 127.0.0.1:1\nlisten = bad\n' >"$T/l5.conf"
leaks=0
for f in l1 l2 l3 l4 l5 hsw slow nophase grp; do
	for extra in "" --simulate "--log-level=bogus"; do
		out=$("$UNCORED" -n $extra -c "$T/$f.conf" 2>&1)
		case $out in *LeakSanitizer*|*AddressSanitizer*)
			leaks=$((leaks + 1)); echo "# $f.conf $extra: $out" | head -5 ;;
		esac
	done
done
is "$leaks" 0 "-n frees what it allocated on every error path"

# ---- logs -------------------------------------------------------------------
log=$(cat "$T/hsx.log")
ok "$(head -1 "$T/hsx.log" | grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+[+-][0-9]{4} uncored: (error|warning|notice|info|debug): '; echo $?)" \
	"to a file: time, program and level word ($(head -1 "$T/hsx.log"))"
case $log in *"<6>"*) ok 1 "no priority prefix outside the journal" ;;
*) ok 0 "no priority prefix outside the journal" ;; esac
# The log lines below are start-up's refusal of the interval (the
# direct backend's IMC wrap limit; the perf backend has none).
SLOW="-c $T/slow.conf --simulate --backend=direct -l none -s"
: >"$T/j.log"
js=$(stat -c '%d:%i' "$T/j.log")
JOURNAL_STREAM=$js "$UNCORED" --simulate=hsw -n 2>>"$T/j.log" >/dev/null
JOURNAL_STREAM=$js "$UNCORED" $SLOW "" 2>>"$T/j.log"
like "$(cat "$T/j.log")" "<3>interval_ms 3000" \
	"stderr is the journal stream: <N> priority prefix"
JOURNAL_STREAM=1:2 "$UNCORED" $SLOW "" 2>"$T/j2.log"
ok "$(grep -q 'uncored: error: interval_ms 3000' "$T/j2.log"; echo $?)" \
	"JOURNAL_STREAM naming another stream: plain lines"
"$UNCORED" --log-format=journal $SLOW "" 2>"$T/j3.log"
is "$(head -c 17 "$T/j3.log")" "<3>interval_ms 30" "--log-format=journal forces the prefixes"
JOURNAL_STREAM=$js "$UNCORED" --log-format=text $SLOW "" 2>>"$T/j.log"
like "$(tail -1 "$T/j.log")" "uncored: error: interval_ms 3000" "--log-format=text forces time and level"
out=$("$UNCORED" --log-format=json 2>&1); rc=$?
is "$rc" 64 "--log-format=json is a usage error"

# ---- reload: listeners are not changed by SIGHUP, and it says so -------------
kill "$UPID"; wait "$UPID" 2>/dev/null
P2=$(pick_port)
printf '[http]\nlisten = 127.0.0.1:%s\n' "$PORT" >"$T/r.conf"
notify_start
start_uncored "$T/r.log" -c "$T/r.conf" --simulate -s ""
ok $? "daemon with listen in the file"
printf '[http]\nlisten = 127.0.0.1:%s\n[daemon]\ninterval_ms = 500\n' "$P2" >"$T/r.conf"
reload
like "$(cat "$T/r.log")" "[http] listen changed from \"127.0.0.1:$PORT\" to \"127.0.0.1:$P2\": not applied" \
	"SIGHUP changing listen logs what was not applied"
like "$(cat "$T/r.log")" "configuration reloaded, except 1 setting that needs a restart" \
	"and the reload says so"
is "$(http_code "http://127.0.0.1:$PORT/healthz")" 200 "the old listener still serves"
# The sampler takes the new interval at its next tick.
status_has() { curl -s "http://127.0.0.1:$PORT/api/v1/status" >"$T/st" && has "$T/st" "$1"; }
wait_for "interval 500 ms in the status" 30 status_has '"interval_ms":500'
like "$(cat "$T/st")" '"interval_ms":500' "the rest of the file was applied (interval 500 ms)"
# Back to the running address: compared with what runs, nothing changes.
printf '[http]\nlisten = 127.0.0.1:%s\n' "$PORT" >"$T/r.conf"
reload
is "$(grep -c 'listen changed' "$T/r.log")" 1 \
	"a reload back to the running listen logs no change"
is "$(grep 'configuration reloaded' "$T/r.log" | tail -1 | sed 's/.*info: //')" \
	"configuration reloaded" "and a plain \"configuration reloaded\""

# ---- a user other than root is told what to pass --------------------------
P3=$(pick_port)
asuser=
BIN=$top_builddir/uncored
if [ "$(id -u)" -eq 0 ]; then
	# the binary itself, copied where nobody can run it (the build tree
	# may be under a directory nobody cannot enter, e.g. /root)
	cp "$BIN" "$T/uncored-bin" && chmod 0755 "$T/uncored-bin" &&
		BIN=$T/uncored-bin
	if command -v runuser >/dev/null && id nobody >/dev/null 2>&1 &&
	   runuser -u nobody -- test -x "$BIN" 2>/dev/null; then
		asuser="runuser -u nobody --"
		# another daemon run (as --user nobody, default socket) may
		# have left /run/uncored owned by nobody: then nobody can
		# create the socket and there is nothing to check here
		if runuser -u nobody -- test -w /run/uncored 2>/dev/null ||
		   runuser -u nobody -- test -w /run 2>/dev/null; then
			asuser=none
		fi
	fi
elif [ -w /run ] || [ -w /run/uncored ]; then
	asuser=none
else
	asuser=env
fi
case $asuser in
"") skip "non-root: the control socket message" "cannot run as another user than root here" ;;
none) skip "non-root: the control socket message" "the user can write /run or /run/uncored" ;;
*)
	# bounded: were the socket creatable after all, the daemon would run
	out=$(cd / && timeout 30 $asuser "$BIN" --simulate -c /dev/null -l "127.0.0.1:$P3" 2>&1); rc=$?
	is "$rc" 1 "not root: the default control socket cannot be created"
	like "$out" "Pass -s PATH" "the message says what to pass"
	like "$out" "-s ''" "including -s '' for none"
	;;
esac
tap_done
