#!/bin/sh
# web_config.sh - the web config neither fails open nor surprises (issue
# 20): a second YAML document is refused by -n and at start, naming its
# line, instead of being dropped with the TLS and basic-auth settings in
# it.
. "${top_srcdir:-.}/tests/lib.sh"

HASH="$top_builddir/tests/tools/bcrypt-hash"
PORT=$(pick_port)
cd "$T" || exit 1
: >empty.conf
args="-c empty.conf --simulate -i 100 -l 127.0.0.1:$PORT -s $T/ctl"
H10=$("$HASH" s3cret 10)

# ---- item 4: one document only ------------------------------------------
printf -- '---\n---\nbasic_auth_users:\n  prom: %s\n' "$H10" >two.yml
out=$("$UNCORED" $args --web-config two.yml -n 2>&1)
is "$?" 1 "-n refuses a web config with a second YAML document"
like "$out" "two.yml:2: a second YAML document starts here" \
	"... naming the line where it starts"
"$UNCORED" $args --web-config two.yml >two.log 2>&1
is "$?" 1 "the daemon does not start with it"
is "$(http_code "http://127.0.0.1:$PORT/metrics")" 000 \
	"... and serves nothing unauthenticated"
tap_done
