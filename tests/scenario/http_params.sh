#!/bin/sh
# http_params.sh - what a URL may carry (issue 20 item 11): a numeric
# query parameter is digits only (limit=%205 and limit=+5 decode to
# " 5", which strtoull() took), an encoded NUL anywhere in the request
# target is refused (limit=5%00x reached the handler as "5"), and bytes
# that are not UTF-8, echoed in an error message, come out as U+FFFD so
# that the JSON body stays valid JSON.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
start_uncored "$T/log" -c /dev/null --simulate -i 100 -l "127.0.0.1:$PORT" -s ""
ok $? "daemon up"
wait_for "a sample in the ring" 30 ring_has "$PORT" 1
U="http://127.0.0.1:$PORT"

is "$(http_code "$U/api/v1/samples?limit=5")" 200 "limit=5: 200"
for q in 'limit=%205' 'limit=+5' 'limit=5%00x' 'limit=%2B5' 'limit=5%20'; do
	is "$(http_code "$U/api/v1/samples?$q")" 400 "$q: 400"
done
like "$(curl -s "$U/api/v1/samples?limit=5%00x")" "encoded NUL (%00)" \
	"... an encoded NUL is named as the reason"

# valid_json FILE: is FILE strict UTF-8 JSON?
valid_json() {
	python3 -c 'import json, sys
json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))' "$1"
}
if command -v python3 >/dev/null; then
	for path in '/nosuch%ff%fe' '/api/v1/events?unit=%c0%af' \
		    '/api/v1/events?q=%ed%a0%80' '/api/v1/samples?limit=%f4%90%80%80'; do
		code=$(curl -s -o "$T/body" -w '%{http_code}' "$U$path")
		valid_json "$T/body"
		ok $? "$path: $code, and its JSON body is valid UTF-8 JSON"
	done
	like "$(curl -s "$U/nosuch%ff")" '"no such resource: /nosuch\ufffd"' \
		"... the byte that is not UTF-8 shown as U+FFFD"
	like "$(curl -s "$U/nosuch%c3%a9")" 'no such resource: /nosuch'"$(printf '\303\251')" \
		"... and well-formed UTF-8 kept as it is"
else
	skip "JSON error bodies are UTF-8" "python3 not installed"
fi
kill -TERM $UPID; wait $UPID
tap_done
