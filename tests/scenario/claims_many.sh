#!/bin/bash
# claims_many.sh - 300 claims over HTTP on one event, more than the 256
# the sampler used to look at (issue 10): every one is admitted, and every
# one gets counter time - before, c257 and up stayed "waiting" with
# time_enabled_s 0.  One over the limit is refused with 429 and a reason.
. "${top_srcdir:-.}/tests/lib.sh"

N=300
PORT=$(pick_port)
cat >"$T/c.conf" <<CONF
[daemon]
interval_ms = 20
[claims]
max_per_uid = $N
max_total = $N
default_ttl_s = 600
CONF
start_uncored "$T/log" -c "$T/c.conf" --simulate -l "127.0.0.1:$PORT" \
	-s "$T/ctl.sock"
ok $? "daemon up"
U=http://x/api/v1
body='{"events":["UNC_CBO_XSNP_RESPONSE.HITM_XCORE"]}'
for _ in $(seq 1 $N); do
	curl -s -o /dev/null -w '%{http_code}\n' --unix-socket "$T/ctl.sock" \
		-X POST "$U/claims" -d "$body"
done >"$T/codes"
is "$(grep -c '^201$' "$T/codes")" "$N" "all $N claims created (201)"
c=$(curl -s -o "$T/body" -w '%{http_code}' --unix-socket "$T/ctl.sock" \
	-X POST "$U/claims" -d "$body")
is "$c" 429 "claim $((N + 1)) is refused"
like "$(cat "$T/body")" "uid 0 holds $N claims, the limit (max_per_uid)" \
	"with the reason"

# k = N + 1 groups share the two CBo counters (two claims or the baseline
# a tick): each should run within about k/2 ticks.  Wait, with a generous
# bound, until no claim has time_running_s 0 any more.
all_ran() {
	curl -s --unix-socket "$T/ctl.sock" "$U/claims" >"$T/list"
	waiting=$(grep -o '"time_running_s":0\.0[,}]' "$T/list" | wc -l)
	[ "$waiting" -eq 0 ] && [ "$(grep -o '"id":"c' "$T/list" | wc -l)" -eq "$N" ]
}
wait_for "every claim to have run" 120 all_ran
all_ran
is "$waiting" 0 "every one of the $N claims has run (c257 and up included)"
is "$(grep -o '"id":"c[0-9]*-[0-9a-z]*"' "$T/list" | sort -u | wc -l)" "$N" \
	"all $N listed"
C300=$(grep -o '"id":"c300-[0-9a-z]*"' "$T/list" | sed 's/.*"\(c300-[^"]*\)"/\1/')
b=$(curl -s --unix-socket "$T/ctl.sock" "$U/claims/$C300")
like "$b" "\"id\":\"$C300\"" "c300 readable ($C300)"
en=$(echo "$b" | sed -n 's/.*"time_enabled_s":\([^,]*\).*/\1/p')
ok "$(awk -v e="$en" 'BEGIN { exit !(e > 0) }'; echo $?)" \
	"c300's time_enabled_s runs ($en)"
curl -s "http://127.0.0.1:$PORT/metrics" >"$T/m"
is "$(metric "$T/m" uncored_claims '')" "$N" "/metrics: uncored_claims $N"
tap_done
