#!/bin/bash
# claims_pinned.sh - pinned claims never starve shared ones, against the
# real daemon on the hsx simulator (4 counters a CBo, pinned claims may
# hold 3): a shared claim that could never count beside a pin is refused
# at once with 409 naming the pin (not its owner), the pin ends after
# [claims] max_pinned_s however often it is renewed, and then the claim
# it kept out is admitted and counts while the former pin counts on.
# Also what a request body may not carry (curl on the control socket):
# a NUL after the object, a key twice, empty modifier fields, a ttl_s
# past 64 bits (refused showing the value sent).
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
cat >"$T/c.conf" <<'CONF'
[daemon]
interval_ms = 100
[http]
control_group = nogroup
[claims]
max_pinned_s = 3
[baseline]
# counter 0 of every CBo back from the latency family (issue 41 §2): the
# default baseline leaves a pin 2 of the 4, this test needs 3
memory_latency = no
CONF
chmod 711 "$T"	# the unprivileged client must reach the socket inside
start_uncored "$T/log" -c "$T/c.conf" --simulate=hsx \
	-l "127.0.0.1:$PORT" -s "$T/ctl.sock"
ok $? "daemon up"
S="$T/ctl.sock"
U=http://x/api/v1
api() { curl -s --unix-socket "$S" "$@"; }                 # as root
code() { ctl_code "$S" "$@"; }
ncode() { # as uid 65534, which cannot write $T: body and code via stdout
	local out
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		curl -s -w '\n%{http_code}' --unix-socket "$S" "$@")
	printf '%s' "${out%$'\n'*}" >"$T/body"
	echo "${out##*$'\n'}"
}
id_of() { sed -n 's/^{"id":"\([^"]*\)".*/\1/p' "$T/body"; }
PIN3='{"events":["UNC_C_CLOCKTICKS","UNC_C_LLC_VICTIMS.M_STATE","UNC_C_LLC_VICTIMS.E_STATE"],"pinned":true,"ttl_s":60}'
SH2='{"events":["UNC_C_LLC_VICTIMS.I_STATE","UNC_C_LLC_VICTIMS.F_STATE"]}'
SH1='{"events":["UNC_C_LLC_VICTIMS.I_STATE"]}'

is "$(code -X POST $U/claims -d "$PIN3")" 201 "root pins 3 CBo events"
pin=$(id_of)
like "$(cat "$T/body")" '"pinned":true,"pinned_until":"' \
	"its answer says until when at the latest"
is "$(ncode -X POST $U/claims -d "$SH2")" 409 \
	"another uid's 2-event shared claim can never run beside it: 409"
b=$(cat "$T/body")
like "$b" '"code":"counters_held"' "counters_held"
like "$b" "pinned claim $pin on cbo counters" "naming the pin and its counters"
like "$b" "max_pinned_s" "and what bounds it"
case $b in *uid*) ok 1 "the pin's owner is not named ($b)" ;;
	   *) ok 0 "the pin's owner is not named" ;; esac
is "$(ncode -X POST $U/claims -d "$SH1")" 201 \
	"a 1-event shared claim fits beside it"

# renewed all the while, the pin still ends 3 s after its creation
pin_ended() {
	api -X POST "$U/claims/$pin/renew" -o /dev/null
	api "$U/claims/$pin" | grep -q '"pinned":false'
}
wait_for "the pin of $pin to end (max_pinned_s = 3)" 60 pin_ended
ok $? "renewed every probe, its pin ended"
like "$(api "$U/claims/$pin")" '"state":"' "and the claim lives on"
is "$(ncode -X POST $U/claims -d "$SH2")" 201 \
	"the 2-event shared claim is admitted now"
sh=$(id_of)
runs() { # runs ID: time_running_s of claim ID is above 0
	api "$U/claims/$1" | grep -q '"time_running_s":0\.[0-9]*[1-9]\|"time_running_s":[1-9]'
}
ran_before=$(api "$U/claims/$pin" | sed -n 's/.*"time_running_s":\([0-9.]*\).*/\1/p')
wait_for "claim $sh to count" 60 runs "$sh"
ok $? "and counts"
grew() { # grew: the former pin's time_running_s went past ran_before
	r=$(api "$U/claims/$pin" | sed -n 's/.*"time_running_s":\([0-9.]*\).*/\1/p')
	awk -v a="$r" -v b="$ran_before" 'BEGIN { exit !(a > b) }'
}
wait_for "the former pin to count on" 60 grew
ok $? "the former pin counts on beside it"
grep -q "claim $pin .* was pinned for 3 s, the limit (max_pinned_s)" "$T/log"
ok $? "the daemon logged the end of the pin"

# issue 40: a refusal is never cut inside a word, and says what is free
# and what holds the rest; a filter register that keeps a pin out while
# counters are free is named
is "$(code -X POST $U/claims -d '{"events":["UNC_M_CAS_COUNT.RD","UNC_M_CAS_COUNT.WR","UNC_H_REQUESTS.READS"],"pinned":true}')" \
	409 "a pin of IMC and HA events where the baseline holds the HA: 409"
b=$(cat "$T/body")
like "$b" "ha counters 0-3: the baseline's UNC_H_REQUESTS.READS_LOCAL, .READS_REMOTE, .WRITES_LOCAL, .WRITES_REMOTE; imc counters 0-1: the baseline's UNC_M_CAS_COUNT.RD, .WR; imc counters 2-3: free." \
	"naming every holder and the free counters"
like "$b" "shares them, multiplexed)\"" "and the message ends whole ($b)"
is "$(code -X POST $U/claims -d '{"events":["UNC_C_LLC_LOOKUP.ANY:filter0=0x20000"],"pinned":true}')" \
	409 "a pin of LLC_LOOKUP with a FILTER0 value the baseline's even CBos lack: 409"
b=$(cat "$T/body")
like "$b" "needs cbo register Cn_MSR_PMON_BOX_FILTER0 at 0x20000, where the baseline has 0x7e0000" \
	"names the filter register as the reason"
like "$b" 'cbo counters 1-3: free"}}' \
	"while a counter is free, said to the end, whole"
# the same event without the split is the LLC misses family's, whole
is "$(code -X POST $U/claims -d '{"events":["UNC_C_LLC_LOOKUP.ANY:filter0=0x20000"],"ttl_s":5}')" \
	201 "a shared claim of it: 201"
like "$(cat "$T/body")" '"derived":{"family":"uncore_llc_misses","scale":1' \
	"gives the LLC misses family, scale 1"
code -X DELETE "$U/claims/$(id_of)" >/dev/null


# item 7: what a body may not carry
printf '%s\0' "$SH1" >"$T/nul.json"
is "$(code -X POST $U/claims --data-binary @"$T/nul.json")" 400 \
	"a NUL after the JSON object: 400"
like "$(cat "$T/body")" "trailing data after the JSON object at byte 40" \
	"at its byte"
is "$(code -X POST $U/claims -d '{"events":["UNC_C_LLC_VICTIMS.I_STATE"],"events":["UNC_C_CLOCKTICKS"]}')" \
	400 "\"events\" twice: 400"
like "$(cat "$T/body")" 'duplicate key \"events\" at byte 40' "naming it"
is "$(code -X POST $U/claims -d '{"events":["UNC_C_LLC_VICTIMS.I_STATE:::::"]}')" \
	400 "empty modifier fields: 400"
like "$(cat "$T/body")" "an empty field at byte 26" "at their byte"
is "$(code -X POST $U/claims -d '{"events":["UNC_C_CLOCKTICKS"],"ttl_s":99999999999999999999}')" \
	400 "ttl_s past 64 bits: 400"
like "$(cat "$T/body")" "ttl_s 99999999999999999999 is out of range" \
	"showing the value sent"
tap_end
