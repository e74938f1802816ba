#!/bin/sh
# samples_stream.sh - /api/v1/samples is written while it is sent: on 8
# simulated hsx sockets (528 series) a 400-sample request (25 MB) neither holds up
# a concurrent /metrics nor leaves the daemon larger, and its bytes are
# those json-c writes for the same values (tests/tools/jsoncanon), with
# the fields and figures of the workload.
. "${top_srcdir:-.}/tests/lib.sh"

PORT=$(pick_port)
U="http://127.0.0.1:$PORT"
CANON="$top_builddir/tests/tools/jsoncanon"
cat >"$T/w.json" <<'JSON'
{ "platform": "hsx", "sockets": 8, "cbo_count": 18, "imc_channels": 8, "qpi_ports": 3,
  "uclk_hz": 1500000000, "cores": 8,
  "phases": [ { "seconds": 100000, "rates": {
      "imc:0x04:0x03": 6.25e7, "imc:0x04:0x0c": 3.125e7 } } ] }
JSON
printf '[daemon]\nring_capacity = 600\n' >"$T/c.conf"
# (a sanitizer's quarantine would keep what the request freed)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" \
start_uncored "$T/log" -c "$T/c.conf" --simulate=hsx --workload "$T/w.json" \
	-l "127.0.0.1:$PORT" -s "" -i 20
ok $? "daemon up on 8 simulated hsx sockets" || { cat "$T/log"; tap_done; exit 1; }
like "$(cat "$T/log")" "8 sockets" "8 sockets"

# fill the ring (600 samples at 20 ms; more time on a loaded machine)
wait_for "620 samples" 120 ring_has "$PORT" 620
head=$(ring_head "$PORT")
ok "$([ "${head:-0}" -ge 620 ]; echo $?)" "the ring filled (head $head)"
ns=$(curl -s "$U/api/v1/status" | sed -n 's/.*"counters_in_use":\([0-9]*\).*/\1/p')

# the newest 400 samples (25 MB) on one connection, /metrics on another
# meanwhile.  The ring's oldest 200 are slack: the ring overwrites 50
# samples a second, and a sample overwritten before its turn is left
# out, so a loaded machine streaming slowly would otherwise lose some.
rss0=$(awk '/VmRSS/ { print $2 }' "/proc/$UPID/status")
# (read at 25 MB/s at most, so that it lasts about a second however
# fast the machine: long enough for /metrics requests to begin and end
# within it)
curl -s --limit-rate 25M -o "$T/all.json" -w '%{time_total}\n' \
	"$U/api/v1/samples?since=$((head - 400))&limit=400" >"$T/all.t" &
CP=$!
: >"$T/lat"
while kill -0 "$CP" 2>/dev/null; do
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "$U/metrics" >>"$T/lat"
done
wait "$CP"
ok $? "400-sample request answered"
n=$(wc -l <"$T/lat")
worst=$(sort -k2 -n "$T/lat" | tail -1 | cut -d' ' -f2)
echo "# samples: $(wc -c <"$T/all.json") bytes in $(cat "$T/all.t") s;" \
     "$n concurrent /metrics, slowest $worst s"
ok "$([ "$n" -ge 1 ]; echo $?)" "a /metrics ran while the samples were sent ($n)"
is "$(grep -vc '^200 ' "$T/lat")" 0 "... and every one got 200"
# The loop starts a /metrics only while the samples request is open, so
# each but the last was answered before the samples were all sent: they
# did not wait for them.  (How fast: tests/bench, not here.)
ok "$([ "$n" -ge 2 ]; echo $?)" \
	"... $((n - 1)) answered while the samples were still being sent"
rss1=$(awk '/VmRSS/ { print $2 }' "/proc/$UPID/status")
echo "# RSS before $rss0 kB, after $rss1 kB"
ok "$([ "$rss1" -le $((rss0 * 3 / 2 + 4096)) ]; echo $?)" \
	"RSS after the request about what it was ($rss0 -> $rss1 kB)"

# the bytes are json-c's, and the content is the workload's
"$CANON" <"$T/all.json" >"$T/all.c"
ok $? "the answer parses (json-c)"
cmp -s "$T/all.json" "$T/all.c"
ok $? "... and is byte for byte what json-c writes for those values"
long=$(json_long_numbers "$T/all.json")
is "$(echo "$long" | grep -c .)" 0 \
	"every number is written shortest (0.6, not 0.59999999999999998)$(echo "$long" | head -3 | tr '\n' ' ')"
python3 - "$T/all.json" "$ns" >"$T/py" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); ns = int(sys.argv[2])
s = d["samples"]
print("keys", list(d) == ["head", "tail", "program_start", "samples"])
print("count", len(s) == 400)
print("seq", all(b["seq"] == a["seq"] + 1 for a, b in zip(s, s[1:])) and s[-1]["seq"] <= d["head"])
want = ["seq", "time", "interval_s", "counted_s", "counted_err_s", "valid", "sockets", "deltas"]
print("fields", all([k for k in x if k not in ("interference", "first", "multiplexed", "window_uncertain")] == want for x in s))
print("deltas", all(len(x["deltas"]) == ns for x in s))
print("delta fields", all(list(e) == ["socket", "unit", "box", "event", "delta", "valid"] for x in s for e in x["deltas"]))
print("sockets", all([o["socket"] for o in x["sockets"]] == list(range(8)) for x in s))
ok = [x for x in s if x["valid"]]
# each socket's rate is the sum of its 8 channels'; writes are half the
# reads on every channel (6.25e7 vs 3.125e7 CAS per second)
print("read rate", len(ok) > 0 and all(o["dram_read_bytes_per_second"] > 0 and abs(sum(ch["dram_read_bytes_per_second"] for ch in o["channels"]) / o["dram_read_bytes_per_second"] - 1) < 1e-9 for x in ok for o in x["sockets"]))
c = [ch for x in ok for o in x["sockets"] for ch in o["channels"]]
print("channels", len(c) == 8 * 8 * len(ok) and all(abs(ch["dram_write_bytes_per_second"] * 2 / ch["dram_read_bytes_per_second"] - 1) < 0.01 for ch in c))
PY
for k in keys count seq fields deltas "delta fields" sockets "read rate" channels; do
	is "$(sed -n "s/^$k //p" "$T/py")" True "samples JSON: $k"
done

# a fixed range twice: gzip-encoded and plain are the same samples (the
# head and tail around them move on between the two requests)
head=$(curl -s "$U/api/v1/status" | sed -n 's/.*"ring_head":\([0-9]*\).*/\1/p')
since=$(( head - 100 ))
curl -s -H 'Accept-Encoding: gzip' -D "$T/z.h" -o "$T/z.gz" "$U/api/v1/samples?since=$since&limit=5"
curl -s -o "$T/p.json" "$U/api/v1/samples?since=$since&limit=5"
like "$(cat "$T/z.h")" "Content-Encoding: gzip" "samples with Accept-Encoding: gzip are compressed"
strip() { sed 's/^{"head":[0-9]*,"tail":[0-9]*,//'; }
gzip -dc <"$T/z.gz" | strip >"$T/z.json"
strip <"$T/p.json" >"$T/p2.json"
ok "$([ -s "$T/p2.json" ] && cmp -s "$T/z.json" "$T/p2.json"; echo $?)" \
	"... to the same bytes as the plain answer"
is "$(http_code "$U/api/v1/samples?limit=3" -I)" 200 "HEAD /api/v1/samples: 200"
is "$(curl -s "$U/api/v1/samples?limit=0" | sed -n 's/.*"code":"\([a-z_]*\)".*/\1/p')" \
	bad_parameter "limit=0 is still a 400 with its JSON error"

kill -TERM "$UPID"; wait "$UPID"
is "$?" 0 "clean stop"
tap_done
