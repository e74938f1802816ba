#!/bin/sh
# web_tls.sh - TLS and basic auth from an exporters' web config
# (--web-config): certificates made here with openssl, checked with curl
# (401 + WWW-Authenticate without credentials, 200 with, plain HTTP refused
# on the TLS listener, client certificates when client_auth_type asks) and
# with Debian's real Prometheus scraping over https with basic_auth and
# tls_config (up = 1).  The control socket needs neither.  `-n` checks the
# web config, and a SIGHUP says that a changed one is not applied.
. "${top_srcdir:-.}/tests/lib.sh"

for tool in openssl curl; do
	if ! command -v $tool >/dev/null; then
		skip "TLS and basic auth" "$tool not installed"
		tap_done; exit
	fi
done
HASH="$top_builddir/tests/tools/bcrypt-hash"
PORT=$(pick_port)
cd "$T" || exit 1

# A CA, a server certificate for 127.0.0.1, a client certificate from the
# same CA and a self-signed one from nobody.
mk() { n=$1; shift; openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
	-nodes -subj "/CN=$n" -keyout "$n.key" "$@" 2>/dev/null; }
mk ca -x509 -days 2 -out ca.crt
mk srv -out srv.csr
mk cli -out cli.csr
mk rogue -x509 -days 2 -out rogue.crt
echo "subjectAltName=IP:127.0.0.1,DNS:localhost" >san.ext
openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
	-days 2 -extfile san.ext -out srv.crt 2>/dev/null
openssl x509 -req -in cli.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
	-days 2 -out cli.crt 2>/dev/null
[ -s srv.crt ] && [ -s cli.crt ] && [ -s rogue.crt ]
ok $? "test certificates made with openssl"

# Cost 10: what htpasswd -B users are told to use; one check is timed in
# test_webcfg.
cat >web.yml <<EOF
tls_server_config:
  cert_file: srv.crt
  key_file: srv.key
basic_auth_users:
  prom: $("$HASH" s3cret 10)
EOF
: >empty.conf
args="-c empty.conf --simulate -i 250 -l 127.0.0.1:$PORT -s $T/ctl"

out=$("$UNCORED" $args --web-config web.yml -n 2>&1)
ok $? "-n accepts the web config"
like "$out" "web.yml: web config OK (TLS (min_version TLS12" "-n says what it checked"
sed 's/key_file: srv.key/key_file: cli.key/' web.yml >bad.yml
out=$("$UNCORED" $args --web-config bad.yml -n 2>&1)
is "$?" 1 "-n refuses a key that does not match the certificate"
like "$out" "bad.yml:3: tls_server_config: cannot use cert_file" \
	"... with the file and line of key_file"
printf '[http]\nweb_config = bad.yml\n' >bad.conf
out=$("$UNCORED" -c bad.conf --simulate -s "" -n 2>&1)
is "$?" 1 "-n checks [http] web_config too (relative to the conf file)"
like "$out" "$T/bad.yml:3:" "... naming the web config's line"

# wait_tls URL ARGS...: until the TLS listener answers (any status).
wait_tls() {
	for _ in $(seq 1 150); do
		c=$(curl -s -o /dev/null -w '%{http_code}' --cacert ca.crt "$@")
		[ "$c" != 000 ] && return 0
		kill -0 "$UPID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
URL="https://127.0.0.1:$PORT"
"$UNCORED" $args --web-config web.yml >log 2>&1 &
UPID=$!; tap_cleanup_pid $UPID
wait_tls "$URL/healthz"
ok $? "daemon serves TLS"
hdrs=$(curl -s -D - -o body --cacert ca.crt "$URL/metrics")
like "$hdrs" "HTTP/1.1 401" "no credentials: 401"
like "$hdrs" 'WWW-Authenticate: Basic realm="uncored"' "... with WWW-Authenticate"
like "$(cat body)" '"code":"unauthorized"' "... and a JSON error"
# New credentials may get 503 with Retry-After when bcrypt checks have
# used their budget (a quarter of one CPU); Prometheus then tries again
# at its next scrape, and so do these probes (curl --retry honours
# Retry-After), a bounded number of times.
RETRY="--retry 5 --retry-max-time 30"
is "$(http_code "$URL/metrics" --cacert ca.crt $RETRY -u prom:wrong)" 401 \
	"wrong password: 401"
is "$(http_code "$URL/metrics" --cacert ca.crt $RETRY -u nobody:s3cret)" 401 \
	"unknown user: 401"
is "$(http_code "$URL/metrics" --cacert ca.crt $RETRY -u prom:s3cret)" 200 \
	"right password: 200"
curl -s --cacert ca.crt -u prom:s3cret "$URL/metrics" >m.txt
like "$(cat m.txt)" "uncored_build_info" "metrics over https"
# An answer's header goes out with its body (MSG_MORE on the header's
# record): on one kept-alive connection a HEAD, whose header has no body
# to wait for, must not be held, nor the answers after it.
set -- -s --cacert ca.crt -u prom:s3cret --max-time 20 -o /dev/null \
	-w '%{http_code} %{size_download}\n'
out=$(curl "$@" "$URL/metrics" --next "$@" -I "$URL/metrics" \
	--next "$@" -H 'Accept-Encoding: gzip' "$URL/metrics" \
	--next "$@" "$URL/api/v1/status" 2>&1 | tr '\n' ' ')
echo "$out" | grep -Eq '^200 [1-9][0-9]* 200 0 200 [1-9][0-9]* 200 [1-9][0-9]* $'
ok $? "GET, HEAD, gzip GET and JSON on one TLS connection, none held ($out)"
# A flood of new passwords: bcrypt may use a quarter of one CPU, so past
# a burst they get 503 at once (how many depends on how fast the machine
# runs the checks: auth_dos.sh checks the budget itself), and known
# credentials (cached) are still served.  One curl, one connection, 30
# different passwords.
set -- -s -o /dev/null -w '%{http_code}\n' --cacert ca.crt
flood="curl $*"
for i in $(seq 1 30); do
	flood="$flood -u prom:wrong$i $URL/healthz --next $*"
done
codes=$($flood -u prom:s3cret "$URL/healthz")
n401=$(echo "$codes" | grep -c '^401$'); n503=$(echo "$codes" | grep -c '^503$')
[ "$n401" -ge 1 ] && [ $((n401 + n503)) -eq 30 ]
ok $? "30 new wrong passwords at once: $n401 checked (401), $n503 refused unchecked (503)"
is "$(echo "$codes" | tail -1)" 200 "... and the known credentials still pass (cached)"
is "$(http_code "http://127.0.0.1:$PORT/metrics" -u prom:s3cret)" 000 \
	"plain HTTP on the TLS listener is refused"
is "$(http_code http://x/healthz --unix-socket "$T/ctl")" 200 \
	"control socket: no TLS, no credentials"
like "$(cat log)" "serving 127.0.0.1:$PORT (TLS)" "the log names the TLS listener"

if command -v prometheus >/dev/null; then
	PP=$(pick_port)
	cat >prometheus.yml <<EOF
global: { scrape_interval: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: uncored
    scheme: https
    basic_auth: { username: prom, password: s3cret }
    tls_config: { ca_file: $T/ca.crt }
    static_configs: [ { targets: ["127.0.0.1:$PORT"] } ]
EOF
	prometheus --config.file=prometheus.yml --storage.tsdb.path=tsdb \
		--web.listen-address="127.0.0.1:$PP" >prom.log 2>&1 &
	PROM=$!; tap_cleanup_pid $PROM
	up=
	for _ in $(seq 1 150); do
		up=$(curl -s "http://127.0.0.1:$PP/api/v1/query" \
			--data-urlencode 'query=up{job="uncored"}' |
			sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p')
		[ "$up" = 1 ] && break
		sleep 0.2
	done
	is "$up" 1 "Prometheus scrapes over https with basic_auth: up = 1"
	kill -TERM $PROM; wait $PROM
else
	skip "Prometheus over https" "prometheus not installed"
fi

# After the privilege drop the daemon (nobody here, uncored in
# production) cannot read a root-only key again: a SIGHUP says the running
# TLS settings are kept, and why.
cat >>web.yml <<EOF
  other: $("$HASH" x 4)
EOF
kill -HUP $UPID
wait_for "the reload" 30 has log "configuration reloaded"
like "$(cat log)" "web config not re-read, the running TLS and basic-auth settings are kept: web.yml:3" \
	"SIGHUP: an unreadable key keeps the running web config, naming file and line"
# Readable by the daemon's user, the changed web config is read, and is
# reported as not applied (it applies at start only).
chmod 0644 srv.key
kill -HUP $UPID
wait_for "the second reload" 30 has log "configuration reloaded" 2
like "$(cat log)" "web config web.yml changed: not applied" \
	"SIGHUP: a changed web config is reported as not applied"
is "$(http_code "$URL/healthz" --cacert ca.crt $RETRY -u prom:s3cret)" 200 \
	"... and the running one still serves"
kill -TERM $UPID; wait $UPID
is "$?" 0 "daemon stops cleanly"

# Client certificates.
cat >mtls.yml <<EOF
tls_server_config:
  cert_file: srv.crt
  key_file: srv.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
EOF
"$UNCORED" $args --web-config mtls.yml >log2 2>&1 &
UPID=$!; tap_cleanup_pid $UPID
wait_tls "$URL/healthz" --cert cli.crt --key cli.key
ok $? "daemon serves TLS with client certificates"
is "$(http_code "$URL/healthz" --cacert ca.crt --cert cli.crt --key cli.key)" \
	200 "RequireAndVerifyClientCert: a certificate from client_ca_file: 200"
is "$(http_code "$URL/healthz" --cacert ca.crt)" 000 \
	"... no client certificate: refused"
is "$(http_code "$URL/healthz" --cacert ca.crt --cert rogue.crt --key rogue.key)" \
	000 "... a certificate from another CA: refused"
kill -TERM $UPID; wait $UPID
sed 's/RequireAndVerifyClientCert/VerifyClientCertIfGiven/' mtls.yml >opt.yml
"$UNCORED" $args --web-config opt.yml >log3 2>&1 &
UPID=$!; tap_cleanup_pid $UPID
wait_tls "$URL/healthz"
is "$(http_code "$URL/healthz" --cacert ca.crt)" 200 \
	"VerifyClientCertIfGiven: no certificate: 200"
is "$(http_code "$URL/healthz" --cacert ca.crt --cert rogue.crt --key rogue.key)" \
	403 "... a certificate from another CA: 403"
kill -TERM $UPID; wait $UPID

# min_version: TLS13 refuses a TLS 1.2 client.
printf 'tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n  min_version: TLS13\n' >v13.yml
"$UNCORED" $args --web-config v13.yml >log4 2>&1 &
UPID=$!; tap_cleanup_pid $UPID
wait_tls "$URL/healthz"
is "$(http_code "$URL/healthz" --cacert ca.crt --tlsv1.3)" 200 "min_version TLS13: a TLS 1.3 client: 200"
is "$(http_code "$URL/healthz" --cacert ca.crt --tls-max 1.2)" 000 "... a TLS 1.2 client is refused"
kill -TERM $UPID; wait $UPID
tap_done
