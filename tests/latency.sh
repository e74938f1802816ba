# tests/latency.sh - what the memory read latency tests share (issue 41):
# a daemon on a workload with two pages a few ticks apart, and the
# summary's mean, reads in flight and reads per second between them.
# Source it after tests/lib.sh.

# lat_run NAME CONF SAMPLES DAEMON-ARGS...: the daemon (200 ms ticks, the
# [daemon] section then CONF in $T/NAME.conf, control socket
# $T/NAME.sock, log $T/NAME.log) with DAEMON-ARGS (--simulate=,
# --workload, --backend=); $T/NAME.m0 and $T/NAME.m1 SAMPLES ticks apart,
# then /api/v1/metrics in $T/NAME.json and /api/v1/topology in
# $T/NAME.topo.  $PORT and $UPID are the daemon's.
lat_run() {
	_ln=$1 _lc=$2 _ls=$3
	shift 3
	PORT=$(pick_port)
	printf '[daemon]\ninterval_ms = 200\n%s\n' "$_lc" >"$T/$_ln.conf"
	start_uncored "$T/$_ln.log" -c "$T/$_ln.conf" "$@" \
		-l "127.0.0.1:$PORT" -s "$T/$_ln.sock"
	_lr=$?
	ok $_lr "$_ln: daemon up"
	[ $_lr -eq 0 ] || tail -5 "$T/$_ln.log" | sed 's/^/#   /'
	wait_for "$_ln: 3 samples" 60 ring_has "$PORT" 3
	scrape "$PORT" "$T/$_ln.m0"
	wait_samples "$PORT" "$_ls"
	scrape "$PORT" "$T/$_ln.m1"
	curl -s "http://127.0.0.1:$PORT/api/v1/metrics" >"$T/$_ln.json"
	curl -s "http://127.0.0.1:$PORT/api/v1/topology" >"$T/$_ln.topo"
}

# lat NAME SOCKET TARGET: rate(_sum) / rate(_count) of
# uncore_memory_read_latency_seconds between NAME's pages ("none"
# without reads)
lat() {
	summary_mean uncore_memory_read_latency_seconds \
		"socket=\"$2\",target=\"$3\"" "$T/$1.m0" "$T/$1.m1"
}

# in_flight NAME SOCKET TARGET: rate(_sum), the reads in flight
in_flight() {
	rate uncore_memory_read_latency_seconds_sum \
		"socket=\"$2\",target=\"$3\"" "$T/$1.m0" "$T/$1.m1"
}

# reads_per_s NAME SOCKET TARGET: rate(_count)
reads_per_s() {
	rate uncore_memory_read_latency_seconds_count \
		"socket=\"$2\",target=\"$3\"" "$T/$1.m0" "$T/$1.m1"
}

# lat_stop: the daemon lat_run started
lat_stop() {
	kill "$UPID"
	wait "$UPID" 2>/dev/null
}

# uneven_rates INS OCC: the rate keys of the uneven known answer the
# latency tests share, one line each ending in a comma, INS and OCC the
# inserts' and the occupancy's key after "sN/" (cha:0x35:0xc817fe01):
# socket 0's four boxes take 1, 2, 3, 4 e6 inserts/s at 100, 200, 300,
# 400 cycles each, cycles of the clock the caller's workload gives the
# boxes (the CHA's, or the iMC's for the RPQ); at 2 GHz: 150 ns and 1.5
# in flight, sum then divide (a mean of per-box ratios would say 125 ns);
# socket 1 even, 2e7/s at 400 cycles (200 ns, 4 in flight); both,
# 5.5 / 3e7 = 183.3 ns.
uneven_rates() {
	cat <<JSON
    "s0/$1@0": 1.0e6, "s0/$2@0": 1.0e8,
    "s0/$1@1": 2.0e6, "s0/$2@1": 4.0e8,
    "s0/$1@2": 3.0e6, "s0/$2@2": 9.0e8,
    "s0/$1@3": 4.0e6, "s0/$2@3": 1.6e9,
    "s1/$1": 2.0e7, "s1/$2": 8.0e9,
JSON
}
