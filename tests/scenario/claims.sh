#!/bin/bash
# claims.sh - counter claims against the real daemon on the simulator:
# create/read/renew/release, multiplexing with the baseline and scaling
# accuracy against known rates, export to /metrics, topology holders,
# owners (root and an unprivileged uid through setpriv), limits, lease
# expiry, claims surviving SIGHUP, and bad requests.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
cat >"$T/wl.json" <<'JSON'
{ "platform": "skl", "cbo_count": 4,
  "phases": [ { "seconds": 600, "rates": {
      "cbo:0x34:0x8f": 2.0e8, "cbo:0x34:0x88": 2.0e7,
      "cbo:0x22:0x48": 1.0e7, "cbo:0x34:0x18": 4.0e6,
      "arb:0x81:0x01": 5.0e7 } } ] }
JSON
cat >"$T/c.conf" <<'CONF'
[daemon]
interval_ms = 100
[http]
control_group = nogroup
[claims]
max_per_uid = 2
max_total = 3
default_ttl_s = 600
max_ttl_s = 3600
CONF
chmod 711 "$T"	# the unprivileged client must reach the socket inside
notify_start
start_uncored "$T/log" -c "$T/c.conf" --simulate --workload "$T/wl.json" \
	-l "127.0.0.1:$PORT" -s "$T/ctl.sock"
ok $? "daemon up"
S="$T/ctl.sock"
api() { curl -s --unix-socket "$S" "$@"; }                 # as root
code() { ctl_code "$S" "$@"; }
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
ncode() { # as uid 65534, which cannot write $T: body and code via stdout
	local out
	out=$(as_nobody curl -s -w '\n%{http_code}' --unix-socket "$S" "$@")
	printf '%s' "${out%$'\n'*}" >"$T/body"
	echo "${out##*$'\n'}"
}
jget() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" | head -1; }
U=http://x/api/v1

# create: HITM competes with the baseline for the two CBo counters
c=$(code -X POST $U/claims -d '{"events":["UNC_CBO_XSNP_RESPONSE.HITM_XCORE"],"label":"prof","export":true}')
is "$c" 201 "create: 201"
b=$(cat "$T/body")
C1=$(printf '%s' "$b" | sed -n 's/.*"id":"\(c1-[0-9a-z]\{6\}\)".*/\1/p')
ok "$([ -n "$C1" ]; echo $?)" "first claim is c1-TAG, a tag of this start ($C1)"
like "$b" '"expires_at":"' "with an expiry"
like "$b" '"counters":[{"event":"UNC_CBO_XSNP_RESPONSE.HITM_XCORE","unit":"cbo","counter":' \
	"and its planned counter"
like "$b" '"uid":0' "owned by the peer uid (root)"
# 60 ticks (6 s) of the claim multiplexed with the baseline: the
# assertions are on what the daemon measured over them
scrape "$PORT" "$T/m0"
wait_samples "$PORT" 60
scrape "$PORT" "$T/m1"
b=$(api $U/claims/$C1)
echo "$b" >"$T/c1.json"
like "$b" '"instances":[{"box":0,"count":' "per-box counts, named box as on /metrics"
long=$(json_long_numbers "$T/c1.json")
is "$(echo "$long" | grep -c .)" 0 "a claim's numbers are written shortest$(echo "$long" | head -3 | tr '\n' ' ')"
en=$(echo "$b" | jget time_enabled_s); run=$(echo "$b" | jget time_running_s)
sc=$(echo "$b" | jget scaled)
ok "$(awk -v e="$en" -v r="$run" 'BEGIN { exit !(r > 0.35 * e && r < 0.65 * e) }'; echo $?)" \
	"multiplexed with the baseline: running $run of $en s"
near "$(awk -v s="$sc" -v e="$en" 'BEGIN { print s / e }')" 1.0e7 0.05 \
	"scaled count / time_enabled = the workload's 1e7/s"
near "$(rate uncore_llc_lookups_total 'socket="0"')" 2.0e8 0.05 \
	"baseline LLC lookups keep their rate (scaled) while the claim runs"
near "$(metric "$T/m1" uncore_llc_hit_ratio 'socket="0"')" 0.9 0.01 "hit ratio still produced"
rr=$(metric "$T/m1" uncored_baseline_running_ratio "")
ok "$(awk -v r="$rr" 'BEGIN { exit !(r < 0.8) }'; echo $?)" "baseline running ratio below 1 ($rr)"
e1=$(metric "$T/m1" uncore_claim_events_total 'claim="'"$C1"'",event="UNC_CBO_XSNP_RESPONSE.HITM_XCORE",socket="0"')
ok "$([ -n "$e1" ] && [ "$e1" -gt 0 ]; echo $?)" "exported claim on /metrics ($e1)"
holds_c1() { api $U/topology | grep -q "\"holder\":\"$C1\""; }
wait_for "c1 in the topology" 30 holds_c1
ok $? "topology shows c1 holding a counter"

# an ARB claim fits beside the baseline's ARB events? no: ARB has 2
# counters, both used by the baseline -> it multiplexes too; a raw
# encoding is refused (allow_raw_events = no)
c=$(code -X POST $U/claims -d '{"events":["cbo:0x34:0x18"]}')
is "$c" 403 "raw encoding refused when allow_raw_events = no"
like "$(cat "$T/body")" '"code":"raw_events_disabled"' "with its code"
c=$(code -X POST $U/claims -d '{"events":["UNC_ARB_TRK_OCCUPANCY.ALL","UNC_ARB_TRK_OCCUPANCY.CYCLES_WITH_ANY_REQUEST"]}')
is "$c" 409 "two counter-0-only events: 409"
like "$(cat "$T/body")" "counters 0" "the reason names the constraint"

# renew (the leases here outlast every step that needs the claim, on
# however loaded a machine: expiry has a claim of its own below)
c=$(code -X POST $U/claims/$C1/renew -d '{"ttl_s":900}')
is "$c" 200 "renew with a new ttl"
like "$(cat "$T/body")" '"ttl_s":900' "ttl updated"
is "$(code -X POST $U/claims/$C1/renew)" 200 "renew with no body keeps the ttl"
is "$(code -X POST $U/claims/$C1/renew -d '{"ttl_s":3601}')" 400 "renew beyond max_ttl_s: 400"
is "$(code -X POST $U/claims/$C1/renew -d '{"ttl_s":0}')" 400 "renew with 0: 400"

# owners: nobody (uid 65534) against root's claim and its own
# (to another uid, root's claim does not exist: 404 as for a missing id)
is "$(ncode $U/claims/$C1)" 404 "another uid cannot read c1"
is "$(cat "$T/body")" "{\"error\":{\"code\":\"not_found\",\"message\":\"no claim \\\"$C1\\\"\"}}" \
	"the answer of a missing id, naming no owner"
is "$(ncode -X DELETE $U/claims/$C1)" 404 "another uid cannot release c1"
is "$(ncode -X POST $U/claims/$C1/renew)" 404 "another uid cannot renew c1"
is "$(ncode -X POST $U/claims -d '{"events":["UNC_CBO_CACHE_LOOKUP.READ_I"]}')" 201 \
	"nobody creates c2"
like "$(cat "$T/body")" '"uid":65534' "c2 belongs to uid 65534"
C2=$(sed -n 's/.*"id":"\(c2-[0-9a-z]\{6\}\)".*/\1/p' "$T/body")
is "${C2#c2-}" "${C1#c1-}" "c2 has c1's tag ($C2)"
is "$(code $U/claims/$C2)" 200 "root may read another uid's claim"
like "$(as_nobody curl -s --unix-socket "$S" $U/claims)" '"id":"'"$C2"'"' "nobody lists its claim"
is "$(as_nobody curl -s --unix-socket "$S" $U/claims | grep -c "\"id\":\"$C1\"")" 0 \
	"nobody's list does not show root's claim"

# limits: max_per_uid = 2, max_total = 3
is "$(ncode -X POST $U/claims -d '{"events":["UNC_CBO_CACHE_LOOKUP.ANY_ES"]}')" 201 "nobody's second claim"
is "$(ncode -X POST $U/claims -d '{"events":["UNC_CBO_CACHE_LOOKUP.WRITE_M"]}')" 429 \
	"third claim of one uid: 429"
like "$(cat "$T/body")" "max_per_uid" "429 names the limit"
is "$(code -X POST $U/claims -d '{"events":["UNC_CBO_CACHE_LOOKUP.WRITE_M"]}')" 429 \
	"fourth claim in total: 429"
like "$(cat "$T/body")" "max_total" "naming max_total"

# lease expiry, on a claim of its own with a 1 s lease (nobody gives c2
# back to make room for it).  The sampler checks the leases at every tick
# (100 ms): once the lease has ended, the claim is gone after the next
# two ticks, the second of which began after the end, however late the
# ticks run.  (A tick that finds the claims lock held by a request for
# over 200 us leaves the table to the next: the ticks are counted on
# /metrics, which never takes that lock, unlike /api/v1/status.)
is "$(ncode -X DELETE $U/claims/$C2)" 200 "nobody releases c2"
t_sh0=$(date +%s.%N)	# the lease ends 1 s after this at the earliest
is "$(ncode -X POST $U/claims -d '{"events":["UNC_CBO_CACHE_LOOKUP.READ_I"],"ttl_s":1}')" 201 \
	"nobody makes a claim with a 1 s lease"
t_sh1=$(date +%s.%N)	# ... and 1 s after this at the latest
SH=$(sed -n 's/.*"id":"\(c[0-9]*-[0-9a-z]*\)".*/\1/p' "$T/body")
past() { awk -v t="$1" -v now="$(date +%s.%N)" 'BEGIN { exit !(now >= t) }'; }
wait_for "the 1 s lease to end" 30 past "$(awk -v t="$t_sh1" 'BEGIN { printf "%.3f", t + 1 }')"
tk=$(metric_now "$PORT" uncored_ticks_total "")
wait_for "two more ticks after #$tk" 30 metric_ge "$PORT" uncored_ticks_total "" $((tk + 2))
is "$(code $U/claims/$SH)" 404 "an expired claim is gone two ticks after its lease ended"
like "$(cat "$T/log")" "claim $SH (uid 65534" "expiry logged"
# not before the lease ended: the daemon's own time of the expiry (its
# log line's, to the millisecond it truncates to) against the wall clock
# before the claim was asked for
t_exp=$(sed -n "s/^\([^ ]*\) uncored: info: claim $SH (uid 65534.*expired\$/\1/p" "$T/log" | head -1)
life=$(awk -v a="$t_sh0" -v b="$(date -d "$t_exp" +%s.%N 2>/dev/null)" 'BEGIN { printf "%.3f", b - a }')
ok "$(awk -v l="$life" 'BEGIN { exit !(l >= 0.999) }'; echo $?)" \
	"... not before its 1 s lease ended (expired $life s after it was asked for)"

# SIGHUP keeps claims
reload
is "$(code $U/claims/$C1)" 200 "claims survive SIGHUP"
# ... and refuses an interval the live claims' counters cannot keep up
# with (the baseline without its 32-bit IMC counters would allow 27 s)
cp "$T/c.conf" "$T/c.orig"
printf '[baseline]\nimc = none\n' >>"$T/c.conf"
sed -i 's/^interval_ms = 100/interval_ms = 27000/' "$T/c.conf"
is "$(code -X POST $U/claims -d '{"events":["DRAM_DATA_READS"]}')" 201 \
	"a claim on a 32-bit IMC counter"
imc_id=$(sed -n 's/.*"id":"\(c[0-9]*-[0-9a-z]*\)".*/\1/p' "$T/body")
reload
if perf_mode; then
	# the kernel's counts are 64-bit: nothing to refuse (the sampler
	# takes the interval at its next tick); then back to 100 ms
	iv_is() { [ "$(api $U/status | jq -r .interval_ms)" = "$1" ]; }
	wait_for "the 27 s interval applied" 30 iv_is 27000
	ok $? "perf: SIGHUP to 27 s with a DRAM claim applies (no wrap bound)"
	cp "$T/c.orig" "$T/c.conf"
	reload
	wait_for "the 100 ms interval applied" 20 iv_is 100
	ok $? "... and back to 100 ms"
else
	like "$(cat "$T/log")" "interval_ms 27000 is longer than live claim $imc_id allows (2147 ms" \
		"SIGHUP to 27 s refused while it lives"
fi
code -X DELETE "$U/claims/$imc_id" >/dev/null
cp "$T/c.orig" "$T/c.conf"

# bad input
is "$(code -X POST $U/claims -d '{"events":')" 400 "truncated JSON: 400"
like "$(cat "$T/body")" '"code":"bad_json"' "bad_json"
is "$(code -X POST $U/claims -d "$(printf '%.0s[' $(seq 1 50))")" 400 "deeply nested JSON: 400"
is "$(code -X POST $U/claims -d '[1,2]')" 400 "not an object: 400"
is "$(code -X POST $U/claims -d '{"events":"UNC_CLOCK.SOCKET"}')" 400 "events not an array: 400"
is "$(code -X POST $U/claims -d '{"events":[]}')" 400 "no events: 400"
is "$(code -X POST $U/claims -d '{"events":[42]}')" 400 "event not a string: 400"
is "$(code -X POST $U/claims -d '{"events":["UNC_NOPE"]}')" 400 "unknown event: 400"
like "$(cat "$T/body")" '"code":"unknown_event"' "unknown_event"
is "$(code -X POST $U/claims -d '{"events":["UNC_CLOCK.SOCKET"],"ttl_s":-5}')" 400 "negative ttl: 400"
is "$(code -X POST $U/claims -d '{"events":["UNC_CLOCK.SOCKET"],"ttl_s":99999999999999}')" 400 "huge ttl: 400"
is "$(code -X POST $U/claims -d '{"events":["UNC_CLOCK.SOCKET"],"ttl_s":"5"}')" 400 "ttl as a string: 400"
is "$(code -X POST $U/claims -d '{"events":["UNC_CLOCK.SOCKET"],"export":1}')" 400 "export not a boolean: 400"
is "$(code -X POST $U/claims -d '{"events":["UNC_CLOCK.SOCKET"],"colour":"red"}')" 400 "unknown key: 400"
is "$(code -X POST $U/claims -d '{"events":["UNC_CLOCK.SOCKET","UNC_CLOCK.SOCKET"]}')" 400 "duplicate event: 400"
head -c 70000 /dev/zero | tr '\0' ' ' >"$T/big"
is "$(code -X POST $U/claims --data-binary "@$T/big")" 413 "body over 64 KiB: 413"
is "$(http_code "http://127.0.0.1:$PORT/api/v1/claims" -X POST -d '{"events":["UNC_CLOCK.SOCKET"]}')" 403 \
	"claim routes over TCP: 403"
is "$(http_code "http://127.0.0.1:$PORT/api/v1/claims/$C1")" 403 "reading a claim over TCP: 403"
is "$(code -X PUT $U/claims/$C1)" 405 "PUT on a claim: 405"
is "$(code $U/claims/c999)" 404 "unknown claim: 404"
is "$(code -X DELETE $U/claims/c999)" 404 "releasing an unknown claim: 404"

# release
c=$(code -X DELETE $U/claims/$C1)
is "$c" 200 "release: 200"
like "$(cat "$T/body")" '"state":"released"' "final state released"
like "$(cat "$T/body")" '"count":' "with the final counts"
is "$(code $U/claims/$C1)" 404 "a released claim is gone"
wait_samples "$PORT" 2	# pages rendered after the release
scrape "$PORT" "$T/m2"
is "$(grep -c "claim=\"$C1\"" "$T/m2")" 0 "released claims leave /metrics"
is "$(metric "$T/m2" uncored_claims "")" 1 "one claim left (nobody's)"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop with a live claim"
nz=$(api $U/status 2>/dev/null)
is "$nz" "" "daemon gone"
tap_done
