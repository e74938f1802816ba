#!/bin/sh
# reload_ring.sh - a SIGHUP keeps the samples (issue 20 item 10).  Every
# SIGHUP emptied the ring, even with an unchanged configuration (head
# fell from 413 to 81), and a client polling since=N got empty answers,
# with no "missed", until the new head passed N.  Now an unchanged
# baseline keeps its ring; a changed one starts a new ring numbered on
# from the old head, and /api/v1/samples and /api/v1/status say where
# the running program's samples start ("program_start").
. "${top_srcdir:-.}/tests/lib.sh"

command -v jq >/dev/null || { skip "reload and the ring" "jq not installed"; tap_done; exit 0; }
PORT=$(pick_port)
printf '[daemon]\ninterval_ms = 100\n' >"$T/c.conf"
notify_start
start_uncored "$T/log" -c "$T/c.conf" --simulate -l "127.0.0.1:$PORT" -s ""
ok $? "daemon up"
U="http://127.0.0.1:$PORT/api/v1"
wait_for "20 samples in the ring" 60 ring_has "$PORT" 20
h0=$(ring_head "$PORT")
first() { curl -s "$U/samples?since=$1&limit=$2&deltas=0" | jq -c "$3"; }
before=$(first $((h0 - 10)) 3 '[.samples[] | [.seq, .time]]')

reload
ok $? "SIGHUP with the configuration unchanged"
# a program the reload hands over is taken at the next tick: wait for two
wait_for "two samples after the reload" 30 ring_has "$PORT" $((h0 + 2))
h1=$(ring_head "$PORT")
[ "$h1" -ge "$h0" ]
ok $? "... the head goes on ($h0 before, ${h1:-none} after)"
is "$(first $((h0 - 10)) 3 '[.samples[] | [.seq, .time]]')" "$before" \
	"... and the samples before the reload are still there (same numbers, same times)"
is "$(curl -s "$U/status" | jq .program_start)" 1 "... program_start stays 1"
like "$(cat "$T/log")" "the baseline is unchanged: its ring is kept" "... and the log says so"

# A changed baseline (another interval): a new ring, numbered on.
wait_for "5 more samples" 30 ring_has "$PORT" $((h1 + 5))
printf '[daemon]\ninterval_ms = 150\n' >"$T/c.conf"
h2=$(ring_head "$PORT")
reload
# the sampler takes the new program at its next tick
started() { ps=$(curl -s "$U/status" | jq .program_start); [ "$ps" -gt 1 ]; }
wait_for "the new program" 30 started
[ "$ps" -gt "$h2" ]
ok $? "a changed baseline: program_start $ps is after the old head $h2"
wait_for "a sample of the new program" 30 ring_has "$PORT" "$ps"
a=$(curl -s "$U/samples?since=$((ps - 1))&limit=1&deltas=0")
is "$(echo "$a" | jq -c '[.program_start, .samples[0].seq, has("missed")]')" \
	"[$ps,$ps,false]" \
	"a client at since=$((ps - 1)) gets the new program's first sample, and program_start says where it starts"
b=$(curl -s "$U/samples?since=$((ps - 6))&limit=3&deltas=0")
is "$(echo "$b" | jq -c '[.missed, .samples[0].seq]')" "[5,$ps]" \
	"a client further back is told what it missed (5) and gets the first of the new program"

# From a long interval to a short one: the short one applies at once,
# not at the end of the long one (a reload from 27 s to 100 ms waited
# for the 27 s tick).  The 32-bit IMC counters would not allow 27 s.
printf '[daemon]\ninterval_ms = 27000\n[baseline]\nimc = none\n' >"$T/c.conf"
reload
slow() { [ "$(curl -s "$U/status" | jq .interval_ms)" = 27000 ]; }
wait_for "the 27 s interval applied" 30 slow
ok $? "a reload to 27 s applies at the next tick"
h3=$(ring_head "$PORT")
printf '[daemon]\ninterval_ms = 100\n[baseline]\nimc = none\n' >"$T/c.conf"
reload
wait_for "5 samples at 100 ms after the reload from 27 s" 20 \
	ring_has "$PORT" $((h3 + 5))
ok $? "back to 100 ms: it applies at once, 5 samples long before the 27 s tick"
kill -TERM $UPID; wait $UPID
is "$?" 0 "daemon stops cleanly"
tap_done
