#!/bin/sh
# metrics_shared.sh - /metrics is rendered once per sample and format and
# shared: scrapes within one tick get the very same bytes (plain, gzip,
# HEAD), uncored_scrapes_total on a page counts the scrapes up to the one
# that rendered it, and the next tick brings a new page.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
U="http://127.0.0.1:$PORT"
: >"$T/empty.conf"
# skx: its 48-bit counters allow a 5 s interval (the default platform's
# shortest wrap allows 2.1 s)
start_uncored "$T/log" -c "$T/empty.conf" --simulate=skx -l "127.0.0.1:$PORT" -s "" -i 5000
ok $? "daemon up at a 5 s interval" || { cat "$T/log"; tap_done; exit 1; }
ticks() { curl -s "$U/api/v1/status" | sed -n 's/.*"ticks":\([0-9]*\).*/\1/p'; }

# three scrapes between two reads of the tick count that agree (a tick
# in between spoils the round: try again, 30 rounds at most: on a
# machine at load 25 under ASan six curls took over 2 s ten times
# running, and a clean clone's run beside stress-ng failed all 30 rounds
# at a 2 s interval)
same=1
for _ in $(seq 1 30); do
	t0=$(ticks)
	curl -s -o "$T/a" "$U/metrics"
	curl -s -o "$T/b" "$U/metrics"
	curl -s -H 'Accept-Encoding: gzip' -o "$T/z" "$U/metrics"
	curl -s -I -o "$T/h" "$U/metrics"
	[ "$(ticks)" = "$t0" ] && { same=0; break; }
done
ok "$same" "three scrapes within one tick (tick $t0)"
cmp -s "$T/a" "$T/b"
ok $? "... got the same bytes"
gzip -dc <"$T/z" | cmp -s - "$T/a"
ok $? "... the gzip one inflates to them too"
is "$(sed -n 's/^Content-Length: *//Ip' "$T/h" | tr -d '\r')" "$(wc -c <"$T/a" | tr -d ' ')" \
	"HEAD: the page's Content-Length"
n0=$(metric "$T/a" uncored_scrapes_total "")
ok "$([ -n "$n0" ] && [ "$n0" -ge 1 ]; echo $?)" "the page counts the scrape that rendered it ($n0)"

# after the next tick: a new page, counting the four scrapes above
ticked() { [ "$(ticks)" != "$t0" ]; }
wait_for "the next tick" 30 ticked
curl -s -o "$T/c" "$U/metrics"
n1=$(metric "$T/c" uncored_scrapes_total "")
ok "$([ "$n1" -ge $((n0 + 4)) ]; echo $?)" \
	"the next tick's page counts the scrapes served from the last one ($n0 -> $n1)"
ok "$(! cmp -s "$T/a" "$T/c"; echo $?)" "... and is a new page"
# a later tick's (the next, or on a slow machine one after it)
ta=$(metric "$T/a" uncored_ticks_total "") tc=$(metric "$T/c" uncored_ticks_total "")
ok "$([ "$tc" -ge $((ta + 1)) ] && [ "$tc" -le $((ta + 2)) ]; echo $?)" \
	"... a tick or two on ($ta -> $tc)"
curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' -o "$T/om" "$U/metrics"
is "$(tail -1 "$T/om")" "# EOF" "OpenMetrics is its own page"

kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
tap_done
