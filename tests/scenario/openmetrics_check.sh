#!/bin/sh
# openmetrics_check.sh - the daemon's real OpenMetrics exposition (skl and
# hsx simulators): every family whose name ends in a unit carries
# "# UNIT" with that unit (OpenMetrics: the unit is the name's suffix); an
# Accept asking for an OpenMetrics version the daemon does not serve
# (0.0.1, 2.0.0) gets 1.0.0, the version the spec's "Protocol Negotiation"
# says to default to.  The exposition goes through Prometheus'
# OpenMetrics parser (promtool tsdb create-blocks-from openmetrics) and,
# when installed (python3-prometheus-client), the Python client's
# OpenMetrics and text parsers.
. "${top_srcdir:-.}/tests/lib.sh"

PY=/usr/bin/python3
have_pyclient=no
$PY -c 'import prometheus_client.openmetrics.parser' 2>/dev/null && have_pyclient=yes
OM='application/openmetrics-text; version=1.0.0; charset=utf-8'
UNITS='bytes_per_second seconds bytes hertz ratio joules volts amperes celsius meters grams'

: >"$T/empty.conf"
for plat in skl hsx snbep; do
	PORT=$(pick_port)
	start_uncored "$T/log.$plat" -c "$T/empty.conf" --simulate=$plat \
		-l "127.0.0.1:$PORT" -s "" -i 100
	ok $? "$plat: daemon up"
	wait_for "$plat: 5 samples" 60 ring_has "$PORT" 5	# histograms and rates filled
	U="http://127.0.0.1:$PORT/metrics"
	ct() { curl -s -o /dev/null -w '%{content_type}' -H "Accept: $1" "$U"; }
	curl -s -H "Accept: application/openmetrics-text; version=1.0.0" "$U" >"$T/$plat.om"
	curl -s "$U" >"$T/$plat.txt"
	if [ $plat = skl ]; then
		is "$(ct 'application/openmetrics-text; version=1.0.0')" "$OM" \
			"Accept OpenMetrics 1.0.0: served"
		is "$(ct 'application/openmetrics-text; version=2.0.0')" "$OM" \
			"Accept OpenMetrics 2.0.0 only: falls back to 1.0.0"
		is "$(ct 'application/openmetrics-text;version=0.0.1')" "$OM" \
			"Accept OpenMetrics 0.0.1 only: 1.0.0"
		is "$(ct 'application/openmetrics-text;version=2.0.0;q=0.2,text/plain;version=0.0.4;q=0.5')" \
			"text/plain; version=0.0.4; charset=utf-8" \
			"... unless 0.0.4 is preferred"
	fi

	# Every family named with a unit suffix has its UNIT line, and every
	# UNIT line names the family's suffix.
	missing=$(awk -v units="$UNITS" '
		BEGIN { n = split(units, u, " ") }
		$1 == "#" && $2 == "TYPE" && $4 != "info" {
			for (i = 1; i <= n; i++)
				if ($3 ~ ("_" u[i] "$")) { want[$3] = u[i]; break }
		}
		$1 == "#" && $2 == "UNIT" { got[$3] = $4 }
		END { for (f in want) if (got[f] != want[f]) print f }' "$T/$plat.om")
	is "$missing" "" "$plat: every family with a unit suffix has # UNIT"
	bad=$(awk '$1 == "#" && $2 == "UNIT" && $3 !~ ("_" $4 "$") { print $3 }' "$T/$plat.om")
	is "$bad" "" "$plat: every UNIT is its family name's suffix"
	n=$(grep -c '^# UNIT ' "$T/$plat.om")
	[ "$n" -ge 8 ]
	ok $? "$plat: $n families carry a unit"
	like "$(cat "$T/$plat.om")" "# UNIT uncore_dram_read_bytes bytes" \
		"$plat: the DRAM byte counter's unit"

	# Prometheus' own OpenMetrics parser (backfill needs timestamps).
	awk '/^#/ { print; next } { print $0 " 1700000000" }' "$T/$plat.om" >"$T/$plat.ts"
	promtool tsdb create-blocks-from openmetrics "$T/$plat.ts" "$T/db.$plat" \
		>"$T/db.$plat.log" 2>&1
	ok $? "$plat: Prometheus' OpenMetrics parser accepts the exposition"

	if [ $have_pyclient = yes ]; then
		out=$($PY - "$T/$plat.om" "$T/$plat.txt" 2>&1 <<'PYEOF'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
from prometheus_client.parser import text_string_to_metric_families as text
fams = list(om(open(sys.argv[1]).read()))
units = sum(1 for f in fams if f.unit)
plain = list(text(open(sys.argv[2]).read()))
print("om %d families, %d with a unit; text %d families" % (len(fams), units, len(plain)))
PYEOF
		)
		ok $? "$plat: Python client's OpenMetrics and text parsers accept it"
		like "$out" "with a unit" "$plat: $out"
	else
		skip "$plat: Python client parsers" "python3-prometheus-client not installed"
		skip "$plat: Python client parsers (units)" "python3-prometheus-client not installed"
	fi
	kill -TERM "$UPID"; wait "$UPID"
	is "$?" 0 "$plat: daemon stops cleanly"
done

# Negative control: the Python parser refuses a UNIT that is not the
# family's suffix, so the check above could fail.
if [ $have_pyclient = yes ]; then
	printf '# TYPE a_seconds gauge\n# UNIT a_seconds bytes\na_seconds 1\n# EOF\n' |
		$PY -c 'import sys; from prometheus_client.openmetrics.parser import text_string_to_metric_families as om; list(om(sys.stdin.read()))' \
		>/dev/null 2>&1
	is "$?" 1 "the Python parser refuses a unit that is not the suffix"
fi
tap_done
