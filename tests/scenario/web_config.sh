#!/bin/sh
# web_config.sh - the web config neither fails open nor surprises (issue
# 20): a second YAML document is refused by -n and at start, naming its
# line, instead of being dropped with the TLS and basic-auth settings in
# it; a bcrypt cost above 14 is refused, one above 10 and users of
# different costs are warned about; an expired server certificate is
# warned about by -n and at start.  A hash whose salt has bcrypt's
# ignored bits set accepts the right password; the Authorization scheme
# is case-insensitive and a NUL in the credentials is a 401.  A SIGHUP
# that finds the web config and its files unchanged says nothing, even
# when the key is root-only and the daemon no longer root.
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
"$UNCORED" $args --web-config two.yml >two.log 2>&1 &
P2=$!; tap_cleanup_pid $P2
if wait_for "the daemon to refuse two.yml" 30 sh -c "! kill -0 $P2"; then
	wait $P2; rc=$?
else
	rc="still running"; kill $P2; wait $P2
fi
is "$rc" 1 "the daemon does not start with it"
is "$(http_code "http://127.0.0.1:$PORT/metrics")" 000 \
	"... and serves nothing unauthenticated"

# ---- item 2: the cost bound; item 6: users of different costs ----------
# (a cost-10 hash relabelled: refused before any check is made)
printf 'basic_auth_users:\n  prom: %s\n' "$(echo "$H10" | sed 's/^\$2y\$10\$/$2y$15$/')" >c15.yml
out=$("$UNCORED" $args --web-config c15.yml -n 2>&1)
is "$?" 1 "-n refuses bcrypt cost 15"
like "$out" "c15.yml:2: basic_auth_users: prom: bcrypt cost 15 is above 14, the most uncored accepts" \
	"... naming the user, the line and the bound"
printf 'basic_auth_users:\n  prom: %s\n' "$("$HASH" x 12)" >c12.yml
out=$("$UNCORED" $args --web-config c12.yml -n 2>&1)
is "$?" 0 "-n accepts cost 12"
like "$out" "c12.yml:2: basic_auth_users: prom: bcrypt cost 12: each new password takes a check 4 times as long as at cost 10" \
	"... with a warning saying what it costs"
printf 'basic_auth_users:\n  low: %s\n  high: %s\n' "$("$HASH" x 4)" "$("$HASH" y 6)" >mixed.yml
out=$("$UNCORED" $args --web-config mixed.yml -n 2>&1)
is "$?" 0 "-n accepts users of costs 4 and 6"
like "$out" "mixed.yml:2: basic_auth_users: the users' bcrypt costs differ (4 to 6)" \
	"... warning that the response time tells their names from unknown ones"

# ---- item 11: an expired server certificate ----------------------------
if command -v openssl >/dev/null; then
	: >index.txt; echo 01 >serial
	printf '[ca]\ndefault_ca = d\n[d]\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial\ndefault_md = sha256\npolicy = p\n[p]\ncommonName = supplied\n' >ca.cnf
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-subj /CN=127.0.0.1 -keyout old.key -out old.csr 2>/dev/null
	openssl ca -batch -config ca.cnf -selfsign -keyfile old.key -in old.csr \
		-startdate 20200101000000Z -enddate 20200102000000Z -out old.crt >/dev/null 2>&1
	printf 'tls_server_config:\n  cert_file: old.crt\n  key_file: old.key\n' >old.yml
	out=$("$UNCORED" $args --web-config old.yml -n 2>&1)
	is "$?" 0 "-n accepts an expired server certificate (Go's exporters serve it too)"
	like "$out" "old.yml:2: tls_server_config: cert_file ./old.crt expired on 2020-01-02 00:00:00 UTC" \
		"... with a warning naming the file, the line and the date"
	"$UNCORED" $args --web-config old.yml >old.log 2>&1 &
	UPID=$!; tap_cleanup_pid $UPID
	wait_for "the daemon's start-up log" 30 grep -q "serving 127.0.0.1:$PORT" old.log
	like "$(cat old.log)" "expired on 2020-01-02" "... and at start"
	kill -TERM $UPID; wait $UPID
else
	skip "expired certificate" "openssl not installed"
fi

# ---- items 7, 8, 11: salt bits, a NUL, "basic" --------------------------
# The 22nd salt character (the 29th of the hash) keeps 2 bits of salt;
# setting one of its 4 ignored bits makes another valid-looking hash of
# the same password ('e' -> 'f' in the issue).
H4=$("$HASH" s3cret 4)
c=$(printf '%s' "$H4" | cut -c29)
abc=./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789
i=$(awk -v a="$abc" -v c="$c" 'BEGIN { print index(a, c) - 1 }')
n=$(( (i / 16) * 16 + (i + 1) % 16 ))
H4X=$(printf '%s' "$H4" | cut -c1-28)$(printf '%s' "$abc" | cut -c$((n + 1)))$(printf '%s' "$H4" | cut -c30-)
printf 'basic_auth_users:\n  prom: %s\n' "$H4X" >bits.yml
"$UNCORED" $args --web-config bits.yml >bits.log 2>&1 &
UPID=$!; tap_cleanup_pid $UPID
wait_for "the daemon to answer" 30 sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/healthz)\" = 401 ]"
URL="http://127.0.0.1:$PORT/healthz"
is "$(http_code "$URL" -u prom:s3cret)" 200 \
	"a hash with the salt's ignored bits set ($c -> $(printf '%s' "$H4X" | cut -c29)): the right password gets 200"
is "$(http_code "$URL" -u prom:s3creT)" 401 "... a wrong one 401"
is "$(http_code "$URL" -H 'Authorization: basic cHJvbTpzM2NyZXQ=')" 200 \
	"the scheme in lower case (basic): 200 (RFC 7617: case-insensitive)"
is "$(http_code "$URL" -H 'Authorization: BASIC cHJvbTpzM2NyZXQ=')" 200 \
	"... and in capitals"
is "$(http_code "$URL" -H "Authorization: Basic $(printf 'prom:s3cret\000junk' | base64)")" 401 \
	"prom:s3cret NUL junk: 401 (not taken for prom:s3cret)"
kill -TERM $UPID; wait $UPID

# ---- item 9: SIGHUP with an unchanged web config and a root-only key ---
if [ "$(id -u)" = 0 ] && command -v openssl >/dev/null; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-subj /CN=127.0.0.1 -days 2 -keyout srv.key -out srv.crt 2>/dev/null
	chmod 0600 srv.key		# root's, the recommended mode
	printf 'tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\nbasic_auth_users:\n  prom: %s\n' "$H4" >tls.yml
	notify_start
	"$UNCORED" $args --web-config tls.yml >hup.log 2>&1 &
	UPID=$!; tap_cleanup_pid $UPID
	wait_for "the TLS listener" 30 sh -c "curl -sk -o /dev/null https://127.0.0.1:$PORT/healthz"
	reload && reload
	ok $? "two SIGHUPs with nothing changed"
	if grep -q "web config not re-read\|except 1 setting\|changed: not applied" hup.log; then
		ok 1 "... log no warning"; grep warning hup.log | sed 's/^/#   /'
	else
		ok 0 "... log no warning (the key, root-only, is not read again)"
	fi
	touch srv.key
	reload
	like "$(cat hup.log)" "web config not re-read, the running TLS and basic-auth settings are kept" \
		"a touched root-only key: a SIGHUP says it cannot be read again"
	chgrp nogroup srv.key && chmod 0640 srv.key	# root:<daemon's group> 0640
	warned=$(grep -c warning hup.log)
	reload
	is "$(grep -c warning hup.log)" "$warned" \
		"readable by the daemon's group (0640): re-read, unchanged, no warning"
	kill -TERM $UPID; wait $UPID
else
	skip "SIGHUP with a root-only key" "needs root (the daemon then runs as nobody) and openssl"
fi
tap_done
