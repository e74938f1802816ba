#!/bin/sh
# page.sh - the live page at / in a real browser (Debian's chromium,
# headless, driven by tests/scenario/page.py over the DevTools protocol):
# a phased workload's values within 2 % on the page, the phase change,
# charts with points, no console error, no request to any other host,
# phone width and dark mode, an invalid sample drawn as a gap with a
# banner, a stuck counter and a stalled sampler (its thread stopped)
# raising the banner.
# Without chromium the test skips, except under CI=true, where it fails.
. "${top_srcdir:-.}/tests/lib.sh"

CHROMIUM=${CHROMIUM:-$(command -v chromium || echo chromium)}
if [ ! -x "$CHROMIUM" ] || ! command -v python3 >/dev/null 2>&1; then
	if [ "${CI:-}" = true ]; then
		ok 1 "chromium and python3 are installed (contrib/quickstart.sh installs them)"
		tap_done
		exit
	fi
	skip "live page in a browser" "chromium or python3 not installed"
	tap_done
	exit
fi

PORT=$(pick_port)
# Phase 0: 9.6 GB/s read, 3.2 write, hit 1 - 4e7/2e8 = 80 %; phase 1:
# 3.2 and 1.6 GB/s, hit 95 %; UCLK 0.8 GHz.  A foreign write to the global
# control at 24 s makes samples invalid; at 27 s the DRAM write counter
# sticks.
cat >"$T/wl.json" <<'JSON'
{ "platform": "skl", "cbo_count": 4, "uclk_hz": 800000000,
  "phases": [
    { "seconds": 6, "rates": {
      "cbo:0x34:0x8f": 2.0e8, "cbo:0x34:0x88": 4.0e7,
      "imc:DRAM_DATA_READS": 1.5e8, "imc:DRAM_DATA_WRITES": 5.0e7 } },
    { "seconds": 6, "rates": {
      "cbo:0x34:0x8f": 2.0e8, "cbo:0x34:0x88": 1.0e7,
      "imc:DRAM_DATA_READS": 5.0e7, "imc:DRAM_DATA_WRITES": 2.5e7 } } ],
  "faults": [
    { "at": 24.0, "kind": "foreign_write", "target": "msr:0xe01", "value": "0x0" },
    { "at": 27.0, "kind": "stuck", "target": "imc:DRAM_DATA_WRITES" } ] }
JSON
PHASES='[{"rd": 9.6, "wr": 3.2, "hit": 80.0, "clk": 0.8},
	 {"rd": 3.2, "wr": 1.6, "hit": 95.0, "clk": 0.8}]'
start_uncored "$T/log" --simulate --workload "$T/wl.json" -i 250 \
	-l "127.0.0.1:$PORT" -s ""
ok $? "daemon starts on the simulator"
URL="http://127.0.0.1:$PORT"
# The page back-fills its charts from the ring: the first sample of a
# program has no deltas, so three points need four samples.
wait_for "the ring to hold 4 samples" 60 ring_has "$PORT" 4
ok $? "the ring holds 4 samples before the browser opens the page"

# What the daemon sends: the page, its policy, its size.
curl -s -D "$T/hdr" -o "$T/index.html" "$URL/"
like "$(cat "$T/hdr")" "Content-Type: text/html; charset=utf-8" "/ is HTML"
like "$(cat "$T/hdr")" "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'" \
	"/ is sent with a strict Content-Security-Policy"
grep -q '<script src="ui/page.js"' "$T/index.html"
ok $? "the script is a relative, same-origin file (no inline script)"
! grep -qi '<script>\|https\?://' "$T/index.html"
ok $? "the page names no other host and has no inline script"
total=0
for f in ui/page.js ui/page.css ui/icon.svg; do
	curl -s -D "$T/h2" -o "$T/asset" "$URL/$f"
	like "$(cat "$T/h2")" "Content-Security-Policy: default-src 'none'" "$f sent with the policy"
	total=$((total + $(wc -c <"$T/asset")))
done
total=$((total + $(wc -c <"$T/index.html")))
ok "$([ "$total" -lt 40960 ]; echo $?)" "the page weighs $total bytes (< 40 KB)"
like "$(curl -s -D - -o /dev/null "$URL/ui/page.js")" "Content-Type: text/javascript" \
	"script content type"
is "$(http_code "$URL/ui/nope.js")" 404 "an unknown page file is 404"

mkdir -p "$T/shots"
python3 "$top_srcdir/tests/scenario/page.py" --url "$URL/" --pid "$UPID" \
	--chromium "$CHROMIUM" --userdir "$T/chromium" --results "$T/results" \
	--screenshot "$T/shots/page.png" --phases "$PHASES"
rc=$?
is "$rc" 0 "the browser driver ran to the end"
if [ -f "$T/results" ]; then
	while read -r st desc; do
		case $st in
		2) skip "${desc%% # *}" "${desc#* # }" ;;
		*) ok "$st" "$desc" ;;
		esac
	done <"$T/results"
fi
kill -0 "$UPID" 2>/dev/null
ok $? "the daemon is still running"

# hsx, two sockets (the answers of tests/scenario/daemon_hsx.sh): per
# memory channel and per QPI port too, through a reverse proxy that mounts
# the daemon under a path
kill "$UPID"
PORT=$(pick_port)
start_uncored "$T/log2" --simulate=hsx --workload "$top_srcdir/conf/workloads/hsx-default.json" \
	-i 500 -l "127.0.0.1:$PORT" -s ""
ok $? "daemon starts on the simulated 2-socket hsx"
# QPI data sent: s0 1 GB/s per port (daemon_hsx.sh), s1 0.5 GB/s per port
HSX='[{"rd": 8, "wr": 4, "hit": 90.0, "clk": 2, "qpi": 2, "channels": 4, "ports": 2},
      {"rd": 4, "wr": 2, "hit": 75.0, "clk": 2, "qpi": 1, "channels": 4, "ports": 2}]'
rm -f "$T/results"
python3 "$top_srcdir/tests/scenario/page.py" --url "http://127.0.0.1:$PORT/" --pid "$UPID" \
	--chromium "$CHROMIUM" --userdir "$T/chromium2" --results "$T/results" \
	--screenshot "$T/shots/page-hsx.png" --hsx "$HSX"
is "$?" 0 "the browser driver ran to the end on hsx"
if [ -f "$T/results" ]; then
	while read -r st desc; do
		ok "$st" "$desc"
	done <"$T/results"
fi
# Keep the screenshots where a person can look at them.
if [ -n "${PAGE_SCREENSHOT_DIR:-}" ]; then
	mkdir -p "$PAGE_SCREENSHOT_DIR" && cp "$T"/shots/*.png "$PAGE_SCREENSHOT_DIR"/
else
	mkdir -p "$top_builddir/tests/scenario" &&
		cp "$T"/shots/*.png "$top_builddir/tests/scenario/" 2>/dev/null
fi
tap_done
