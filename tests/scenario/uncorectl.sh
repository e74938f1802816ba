#!/bin/sh
# uncorectl.sh - the client against the real daemon on the simulator with
# a workload of known rates: every command as a table and as --json,
# claims from creation to release (by command, by --count, by SIGINT),
# pinned claims (--pinned: refused naming the holders, or running at once),
# rates of a watched claim within 5 %, `top` within 1 %, and the exit
# statuses of the error paths (1 daemon, 2 usage, 3 no daemon).
. "${top_srcdir:-.}/tests/lib.sh"

CTL="$top_builddir/uncorectl"
HITM=UNC_CBO_XSNP_RESPONSE.HITM_XCORE
BACKEND=direct
perf_mode && BACKEND=perf

PORT=$(pick_port)
cat >"$T/wl.json" <<'JSON'
{ "platform": "skl", "cbo_count": 4, "uclk_hz": 800000000,
  "mchbar": "0xfed10001",
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x8f": 2.0e8, "cbo:0x34:0x88": 2.0e7,
      "cbo:0x22:0x48": 3.0e6,
      "arb:0x81:0x01": 5.0e7, "arb:0x80:0x01": 4.0e9,
      "imc:DRAM_DATA_READS": 1.5e8, "imc:DRAM_DATA_WRITES": 5.0e7,
      "imc:DRAM_IA_REQUESTS": 1.0e8, "imc:DRAM_GT_REQUESTS": 6.0e7,
      "imc:DRAM_IO_REQUESTS": 4.0e7 } } ] }
JSON
printf '[daemon]\ninterval_ms = 200\n' >"$T/uncored.conf"
start_uncored "$T/log" -c "$T/uncored.conf" --simulate --workload "$T/wl.json" \
	--sim-state "$T/state" -l "127.0.0.1:$PORT" -s "$T/ctl.sock"
ok $? "daemon starts and answers /healthz"
wait_for "3 samples" 60 ring_has "$PORT" 3

# ctl ARGS...: runs uncorectl on the control socket; stdout in $out,
# stderr in $err, exit status in $rc.
ctl() {
	"$CTL" -s "$T/ctl.sock" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
	cat "$T/err" >>"$T/allerr"
}


# ---- status ------------------------------------------------------------
ctl status
is "$rc" 0 "status: exit 0"
like "$out" "platform           skl (" "status: platform skl"
like "$out" "backend            $BACKEND, simulator" "status: $BACKEND backend on the simulator"
like "$out" "interval           200 ms" "status: interval"
like "$out" "owned by pid $UPID" "status: ownership names the daemon's pid"
ctl --json status
like "$out" '"platform":"skl"' "status --json: the daemon's JSON"
is "$(echo "$out" | wc -l)" 1 "status --json: one line"
ctl status --json
like "$out" '"interval_ms":200' "--json also accepted after the command"

# ---- topology ------------------------------------------------------------
ctl topology
is "$rc" 0 "topology: exit 0"
like "$out" "socket 0 (cpu 0)" "topology: socket header"
ok "$(echo "$out" | grep -Eq '^  cbo +programmable +0-3 +0 +44 +baseline +UNC_CBO_CACHE_LOOKUP.ANY_MESI$'; echo $?)" \
	"topology: the 4 CBos' counter 0 on one row, held by the baseline"
ok "$(echo "$out" | grep -Eq '^  imc +free-running +0 +3 +32 +baseline +DRAM_DATA_READS$'; echo $?)" \
	"topology: free-running counters by name"
ctl --json topology
like "$out" '"holder":"baseline"' "topology --json"

# ---- events --------------------------------------------------------------
ctl events LOOKUP
is "$rc" 0 "events LOOKUP: exit 0"
is "$(echo "$out" | head -1 | tr -s ' ')" "NAME UNIT CODE UMASK CTRS DESCRIPTION" \
	"events: table header"
n=$(echo "$out" | sed 1d | grep -c '^UNC_CBO_CACHE_LOOKUP\.')
ok "$([ "$n" -ge 5 ]; echo $?)" "events LOOKUP lists UNC_CBO_CACHE_LOOKUP.* ($n)"
is "$(echo "$out" | sed 1d | grep -vc '^UNC_CBO_CACHE_LOOKUP\.')" 0 \
	"events LOOKUP lists nothing else"
ok "$(echo "$out" | grep -Eq '^UNC_CBO_CACHE_LOOKUP.ANY_MESI +cbo +0x34 +0x8f +0,1 +LLC lookup'; echo $?)" \
	"events: code, umask and counters of ANY_MESI"
ctl events --names lookup
is "$(echo "$out" | grep -vc '^UNC_CBO_CACHE_LOOKUP\.[A-Z_]*$')" 0 "events --names: bare names"
is "$(echo "$out" | wc -l)" "$n" "events --names: as many as the table"
ctl --json events LOOKUP
is "$(echo "$out" | grep -o '"name":"' | wc -l)" "$n" "events --json: the same events"
ctl events --unit arb
like "$out" "UNC_ARB_TRK_OCCUPANCY.ALL" "events --unit arb"
is "$(echo "$out" | grep -c '^UNC_CBO')" 0 "events --unit arb: no CBo events"
ctl events --unit nope
is "$rc" 1 "events --unit nope: exit 1"
like "$err" 'unknown unit "nope"' "events --unit nope: the daemon's message"

# ---- claims: create, list, topology, release ------------------------------
ctl claims
is "$rc:$out" "0:no claims" "claims: none yet"
ctl --json claims
is "$out" '{"claims":[]}' "claims --json: empty list"
ctl claim "$HITM" --ttl 30 --label scenario
is "$rc" 0 "claim: exit 0"
id=$out
ok "$(echo "$id" | grep -Eqx 'c[0-9]+-[0-9a-z]{6}'; echo $?)" "claim prints the claim id ($id)"
ctl claims
ok "$(echo "$out" | grep -Eq "^$id +(running|waiting) +0 +[0-9]+ +scenario +30 s .* $HITM\$"; echo $?)" \
	"claims lists it with its label, lease and event"
ctl --json claims
like "$out" "\"id\":\"$id\"" "claims --json lists it"
# The claim shares the CBo counters with the baseline (multiplexed), so
# it holds them only in the ticks it runs: look for it over a few ticks.
holds() { ctl topology; echo "$out" | grep -Eq "^  cbo +programmable +0-3 +[01] +44 +$id +$HITM\$"; }
wait_for "the claim in the topology" 30 holds
ok $? "topology: the claim holds a counter in every CBo when it runs"
counted() { ctl --json claims; echo "$out" | grep -q '"count":[1-9]'; }
wait_for "the claim's first counts" 30 counted
ctl release "$id"
is "$rc" 0 "release: exit 0"
like "$out" "released $id: final counts" "release: says so"
ok "$(echo "$out" | grep -Eq "^0 +$HITM +[01] +[1-9][0-9]* +[1-9][0-9]* +[0-9.]+[kM]?\$"; echo $?)" \
	"release: prints the final counts"
ctl claims
is "$out" "no claims" "release removes the claim"
ctl release "$id"
is "$rc" 1 "release of a released claim: exit 1"
like "$err" "no claim \"$id\"" "release: the daemon's message"
ctl --json claim "$HITM" --ttl 5
like "$out" '"state":' "claim --json: the daemon's claim object"
id=$(echo "$out" | sed 's/^{"id":"\([^"]*\)".*/\1/')
ctl --json release "$id"
like "$out" '"state":"released"' "release --json: the released claim"
# pinned: the default skl baseline holds both CBo counters
ctl claim --pinned "$HITM"
is "$rc" 1 "claim --pinned where the baseline holds every CBo counter: exit 1"
like "$err" "cbo counters 0-1: the baseline's UNC_CBO_CACHE_LOOKUP.ANY_MESI, .ANY_I." \
	"claim --pinned: the daemon's message names what holds the counters"
ctl --json claim --pinned DRAM_DATA_READS --ttl 5
like "$out" '"pinned":true' "claim --pinned: a pinned claim"
like "$out" '"state":"running"' "claim --pinned: running at once, before any tick"
id=$(echo "$out" | sed 's/^{"id":"\([^"]*\)".*/\1/')
ctl release "$id"
is "$rc" 0 "claim --pinned: released"

# ---- top --------------------------------------------------------------------
wait_samples "$PORT" 3	# a whole interval with the baseline back on its counters
ctl top --count 2 --interval 0.3
is "$rc" 0 "top --count 2: exit 0"
is "$(echo "$out" | grep -c '^SOCKET')" 2 "top --count 2: two blocks"
last=$(echo "$out" | awk '$1 == "0" { l = $0 } END { print l }')
near "$(echo "$last" | awk '{ print $4 }')" 90 0.01 "top: LLC hit % is 90"
near "$(echo "$last" | awk '{ print $2 }')" 9.6 0.01 "top: DRAM read 9.6 GB/s"
near "$(echo "$last" | awk '{ print $3 }')" 3.2 0.01 "top: DRAM write 3.2 GB/s"
near "$(echo "$last" | awk '{ print $5 }')" 0.8 0.01 "top: uncore 0.8 GHz"
ctl --json top --count 1
near "$(echo "$out" | sed 's/.*"llc_hit_ratio":\([0-9.e+-]*\).*/\1/')" 0.9 0.01 \
	"top --json: the daemon's metrics"

# ---- claim --watch: rates ----------------------------------------------------
ctl claim "$HITM" DRAM_DATA_READS --watch 0.3 --count 6
is "$rc" 0 "claim --watch --count 6: exit 0"
is "$(echo "$out" | grep -c "^claim c[0-9]*-[0-9a-z]* \"uncorectl\" \(running\|waiting\)")" 6 \
	"claim --watch: six refreshes"
rate() { # rate EVENT: the rate in the last refresh before the release
	echo "$out" | awk -v e="$1" '/^released/ { exit } $2 == e { r = $NF } END { print r }'
}
near "$(si "$(rate "$HITM")")" 3e6 0.05 "claim --watch: $HITM rate 3e6/s"
near "$(si "$(rate DRAM_DATA_READS)")" 1.5e8 0.05 "claim --watch: DRAM_DATA_READS rate 1.5e8/s"
like "$out" "final counts" "claim --watch: final counts after --count"
ctl claims
is "$out" "no claims" "claim --watch --count releases the claim"
ctl --json claim "$HITM" --watch 0.2 --count 2
is "$(echo "$out" | grep -c '^{"id":"c')" 4 \
	"claim --watch --json: one object per line (create, 2 refreshes, release)"
like "$(echo "$out" | tail -1)" '"state":"released"' "claim --watch --json: ends released"

# ---- claim --watch: Ctrl-C releases ---------------------------------------------
"$CTL" -s "$T/ctl.sock" claim "$HITM" --watch 0.2 >"$T/w.out" 2>&1 &
wp=$!
# until the daemon has counted for it (the final counts are checked)
wait_for "the watched claim's first counts" 30 counted
ctl claims
like "$out" "$HITM" "the watched claim is live"
kill -INT "$wp"
wait "$wp"
is "$?" 0 "claim --watch: exit 0 on SIGINT"
like "$(cat "$T/w.out")" "final counts" "claim --watch: final counts on SIGINT"
ok "$(sed -n '/final counts/,$p' "$T/w.out" | grep -Eq "^0 +$HITM +[01] +[1-9]"; echo $?)" \
	"claim --watch: the final counts are not zero"
ctl claims
is "$out" "no claims" "SIGINT released the claim"
"$CTL" -s "$T/ctl.sock" claim "$HITM" --watch 0.2 >"$T/w.out" 2>>"$T/allerr" &
wp=$!
live() { ctl claims; [ "$out" != "no claims" ]; }
wait_for "the watched claim" 30 live
kill -TERM "$wp"
wait "$wp"
is "$?" 0 "claim --watch: exit 0 on SIGTERM"
ctl claims
is "$out" "no claims" "SIGTERM released the claim"
"$CTL" -s "$T/ctl.sock" claim "$HITM" --watch 0.1 2>>"$T/allerr" | head -2 >/dev/null
ctl claims
is "$out" "no claims" "a closed output pipe ends the watch and releases the claim"

# ---- errors -----------------------------------------------------------------------
ctl claim NOPE
is "$rc" 1 "unknown event: exit 1"
like "$err" 'unknown event "NOPE"' "unknown event: the daemon's message"
"$CTL" -s "$T/missing.sock" status >"$T/out" 2>"$T/err"
is "$?" 3 "missing socket: exit 3"
like "$(cat "$T/err")" "control socket $T/missing.sock does not exist; is the daemon running" \
	"missing socket: names it and suggests checking the daemon"
"$CTL" --url "http://127.0.0.1:$PORT" status >"$T/out" 2>"$T/err"
like "$(cat "$T/out")" "skl (" "--url: read-only commands over TCP"
"$CTL" --url "http://127.0.0.1:$PORT" claim "$HITM" >"$T/out" 2>"$T/err"
is "$?" 1 "--url: claim refused over TCP: exit 1"
like "$(cat "$T/err")" "only served on the control socket" "--url: the daemon's 403 message"
for args in "frob" "claim" "claim $HITM --watch abc" "top --interval x" "status extra" \
	"events --bogus" "release" "claim $HITM --count 3"; do
	# shellcheck disable=SC2086
	ctl $args
	is "$rc" 2 "usage error '$args': exit 2"
done
like "$err" "usage: uncorectl claim" "a usage error shows the command's usage"
ctl --help
is "$rc" 0 "--help: exit 0"
like "$out" "release   release a claim" "--help lists the commands"
ctl claim --help
like "$out" "--watch S" "claim --help describes its options"

ok "$(! grep -E 'Sanitizer|runtime error' "$T/allerr" >&2; echo $?)" \
	"no sanitizer reports from uncorectl"

# ---- stop ----------------------------------------------------------------------------
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "daemon stops cleanly"
"$CTL" -s "$T/ctl.sock" status >"$T/out" 2>"$T/err"
is "$?" 3 "no daemon: exit 3"
tap_done
