#!/bin/sh
# http_gzip.sh - /metrics and the JSON routes are gzip-compressed when the
# request accepts gzip (as Prometheus' "Accept-Encoding: gzip" does), with
# "Vary: Accept-Encoding"; "gzip;q=0" and no header get the plain body.
# The compressed bodies are inflated with gzip(1) and must parse.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
U="http://127.0.0.1:$PORT"
: >"$T/empty.conf"
start_uncored "$T/log" -c "$T/empty.conf" --simulate -l "127.0.0.1:$PORT" -s "" -i 100
ok $? "daemon up"

get() { # get PATH ACCEPT-ENCODING NAME: headers in NAME.h, body in NAME
	curl -s -D "$T/$3.h" -o "$T/$3" -H "Accept-Encoding: $2" "$U$1"
}
hdr() { sed -n "s/^$1: *//Ip" "$T/$2.h" | tr -d '\r'; }

get /metrics gzip mz
is "$(hdr Content-Encoding mz)" gzip "/metrics with Accept-Encoding: gzip is gzip"
is "$(hdr Vary mz)" Accept-Encoding "... with Vary: Accept-Encoding"
gzip -dc <"$T/mz" >"$T/mz.txt"
ok $? "... and inflates with gzip -d"
like "$(head -1 "$T/mz.txt")" "# HELP " "... to the exposition"
like "$(cat "$T/mz.txt")" "uncored_build_info" "... whole"
get /metrics identity mp
is "$(hdr Content-Encoding mp)" "" "Accept-Encoding: identity: not compressed"
is "$(hdr Vary mp)" Accept-Encoding "... Vary still sent (caches must key on it)"
plain=$(wc -c <"$T/mp"); zipped=$(wc -c <"$T/mz")
[ $((zipped * 3)) -lt "$plain" ]
ok $? "gzip is less than a third of the body ($zipped vs $plain bytes)"
is "$(grep -c '^uncore_event_total' "$T/mz.txt")" "$(grep -c '^uncore_event_total' "$T/mp")" \
	"same series either way"

get /metrics "gzip;q=0, *" mq
is "$(hdr Content-Encoding mq)" "" "gzip;q=0 is honoured even with *"
like "$(head -1 "$T/mq")" "# HELP " "... plain body"
curl -s -D "$T/mn.h" -o "$T/mn" "$U/metrics"
is "$(hdr Content-Encoding mn)" "" "no Accept-Encoding: not compressed"
get /metrics "deflate, *;q=0.5" ms
is "$(hdr Content-Encoding ms)" gzip "*;q=0.5 accepts gzip"

get /api/v1/events "gzip" ez
is "$(hdr Content-Encoding ez)" gzip "/api/v1/events is gzip too"
gzip -dc <"$T/ez" | jq -e '.events | length > 10' >/dev/null
ok $? "... and inflates to the JSON catalog"
get /api/v1/samples?limit=5 "br;q=1, gzip;q=0.5" sz
is "$(hdr Content-Encoding sz)" gzip "/api/v1/samples: gzip among other codings"
gzip -dc <"$T/sz" | jq -e '.samples | length >= 1' >/dev/null
ok $? "... valid JSON"
get /healthz gzip hz
is "$(hdr Content-Encoding hz)" "" "a body under 256 bytes is sent as it is"
kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "daemon stops cleanly"
tap_done
