#!/bin/sh
# fleet_e2e.sh - the shipped Prometheus rules and Grafana dashboard against a
# real fleet: Debian's Prometheus (127.0.0.1, started and stopped here)
# scrapes six simulated daemons (skl, skl, hsx, snbep, and through the
# perf backend on two sockets skx and zen4 - the latter on a 6.1 kernel,
# DRAM from the data fabric's events in turn) with known workloads and
# evaluates contrib/prometheus/uncored.rules.yml; then
#   - every target is up and the rules are loaded;
#   - the fleet DRAM rules equal the sum of the workloads (TOL, below),
#     the per-daemon DRAM, LLC hit-ratio (1 %) and uncore-clock rules each
#     daemon's workload;
#   - sum(rate()) of every derived counter family the fleet exports equals
#     the sum of the workload rates behind it (TOL): every family has one
#     aggregation level, so no series is counted twice;
#   - every variable and panel query of contrib/grafana/uncored.json returns
#     data, once with every variable at "All" (.*) and once with concrete
#     values (a client holds an exported claim on one daemon, so the claims
#     panels have data); a panel whose metric family does not exist yet (the
#     Xeon panels, if the hsx platform is missing; the local/remote share
#     of reads, which no daemon here counts apart) is skipped with the
#     reason; the memory read latency panels have data on daemon c (hsx:
#     90 ns, 1.8 reads in flight, checked against the rules) and none on
#     a daemon that serves no such family (asked of Prometheus, not of a
#     platform list);
#   - every panel returns data for the snbep daemon alone, but the skl-only
#     ARB and DRAM-request panels and the exported-claim panel;
#   - the rules have their series on both sockets of skx and zen4, and
#     every panel returns data for each of them on socket 1, but those of a
#     family the platform does not have (doc/monitoring.md, "The server
#     panels": zen4 has no uncore clock, no channel family on the data
#     fabric path, no interconnect family; skx has UPI, not QPI; only skx,
#     on the simulated kernel, has intel_uncore_frequency's limits),
#     skipped with the reason;
#   - the energy rules (every daemon has simulated RAPL; zen4 the package
#     domain alone): the fleet's package and DRAM watts, and DRAM joules
#     per byte on daemon c and on daemon e's socket 1; the dashboard's
#     Energy row has data, but the DRAM panels on zen4 (skipped,
#     saying so);
#   - the package's thermal throttling (the kernel's thermal_throttle
#     counters, on the simulated kernel of daemon e: 100 and 40 ms a
#     second) as the frequency-limited panel's share of time;
#   - no alert fires in the healthy fleet, and UncoredDown fires when a
#     daemon stops answering.
#
# The shipped rules use [1m] windows (4 samples at the production 15 s
# scrape interval).  Here Prometheus scrapes and evaluates every second and
# runs on a copy of the rules whose windows are cut to [20s] and whose
# `for:` durations are cut to 0s (rule names and expressions are otherwise
# unchanged), so the test takes seconds, not minutes.  Why 20 s: rate()
# divides by Prometheus's scrape timestamps, and a scrape gets each
# counter as of the daemon's last tick, up to one tick interval I (50 ms
# here) plus the tick's lateness and the answer's delay on a loaded
# machine before or after its timestamp (L: 0.5 s allowed; [5s] windows at
# load 20 were seen off by 0.3 s, 8 %).  The first and last samples of a
# window of W are at least W - 2 S apart (S: the 1 s scrape interval), so
# a rate rule is within
#     TOL = (I + L) / (W - 2 S) = 0.55 / 18 = 3.1 %
# of the workload.  Zen 4's data fabric stations are counted in turn
# (0.6 s a rotation), each station's total moving once a rotation; with
# the stations' traffic even, as here, the sum's lag is the same at every
# tick and drops out.  Ratios of two rates over one window are exact (the
# counters of one scrape are of one tick): 1 %.
#
# FLEET_PLOT=FILE.png (optional, e.g. doc/img/fleet.png) also renders the
# headline queries over FLEET_PLOT_SECONDS (default 120) with
# contrib/render_fleet_plot.sh; the workloads then change phase after 60 s
# and every 30 s after that.
#
# Needs prometheus and jq (to read the dashboard); skips without them.
. "${top_srcdir:-.}/tests/lib.sh"

if ! command -v prometheus >/dev/null 2>&1; then
	skip "fleet end-to-end" "prometheus not installed"
	tap_done; exit
fi
if ! command -v jq >/dev/null 2>&1; then
	skip "fleet end-to-end" "jq not installed (needed to read the dashboard)"
	tap_done; exit
fi
RULES=$top_srcdir/contrib/prometheus/uncored.rules.yml
DASH=$top_srcdir/contrib/grafana/uncored.json
PLOT=${FLEET_PLOT:-}
t0=$(date +%s)

# ---- three daemons with known workloads -------------------------------------
# phase SECONDS READS WRITES LOOKUPS MISSES: one workload phase (DRAM
# transfers of 64 bytes and LLC lookups/misses per second; the IMC request
# and ARB rates follow the DRAM reads).
phase() {
	printf '{ "seconds": %s, "rates": {
	  "cbo:0x34:0x8f": %s, "cbo:0x34:0x88": %s,
	  "imc:DRAM_DATA_READS": %s, "imc:DRAM_DATA_WRITES": %s,
	  "imc:DRAM_IA_REQUESTS": %s, "imc:DRAM_GT_REQUESTS": %s,
	  "imc:DRAM_IO_REQUESTS": %s,
	  "arb:0x81:0x01": %s, "arb:0x80:0x01": %s } }' \
		"$1" "$4" "$5" "$2" "$3" \
		"$(awk -v r="$2" 'BEGIN { print r * 1.2 }')" \
		"$(awk -v r="$2" 'BEGIN { print r * 0.2 }')" \
		"$(awk -v r="$2" 'BEGIN { print r * 0.05 }')" \
		"$(awk -v r="$2" 'BEGIN { print r * 1.3 }')" \
		"$(awk -v r="$2" 'BEGIN { print r * 40 }')"
}
# workload FILE UCLK_HZ PHASE...
workload() {
	f=$1 uclk=$2; shift 2
	{ printf '{ "platform": "skl", "cbo_count": 4, "uclk_hz": %s,\n  "phases": [ ' "$uclk"
	  sep=; for p in "$@"; do printf '%s%s' "$sep" "$p"; sep=",
	    "; done
	  printf ' ] }\n'; } >"$f"
}
# The first phase holds the rates asserted below; with FLEET_PLOT the fleet
# runs long enough to show the phases after it.
if [ -n "$PLOT" ]; then first=60; else first=600; fi
workload "$T/a.json" 900000000 \
	"$(phase $first 2.0e8 1.0e8 1.0e8 2.5e7)" \
	"$(phase 30 3.5e8 2.0e8 2.0e8 9.0e7)" "$(phase 30 5.0e7 2.0e7 6.0e7 6.0e6)"
# Daemon a also reads a simulated resctrl tree (uncore-sim resctrl on its
# clock): a CTRL_MON group web and a MON group of the root, db, 4e9 B/s
# together, within the smallest phase's DRAM (4.48e9), so the resctrl
# rules and panels have data.  Bytes/s, total (local): web 1e9 (5e8),
# mon_groups/db 3e9 (1e9), and the root / their sum as the kernel shows
# it: 3e9 (1e9) from its MON group db.
sed -i 's/^  "phases"/  "resctrl": { "groups": [\n    { "name": "web", "mbm_total_bytes": 1.0e9, "mbm_local_bytes": 5.0e8 },\n    { "name": "mon_groups\/db", "mbm_total_bytes": 3.0e9, "mbm_local_bytes": 1.0e9 } ] },\n  "phases"/' "$T/a.json"
printf '[resctrl]\nenabled = yes\ninterval_s = 1\nsimulated = yes\n' >"$T/a.conf"
workload "$T/b.json" 800000000 \
	"$(phase $first 5.0e7 2.5e7 4.0e8 4.0e7)" \
	"$(phase 30 1.0e8 5.0e7 3.0e8 6.0e7)" "$(phase 30 2.5e8 1.0e8 5.0e8 1.5e8)"
# The third daemon is the fleet's Xeon server: the simulated hsx platform
# (one socket, 4 CBos, 2 memory channels, 2 QPI ports), so the per-channel
# DRAM and QPI panels have data.  Its LLC lookups and misses are the same
# event with CBo FILTER0.state 0x3F / 0x01 (the daemon splits the CBos
# between them); DRAM is CAS_COUNT.RD / .WR.
# xeon_phase LOOKUP_KEY MISS_KEY SECONDS READS WRITES LOOKUPS MISSES (per
# socket, per second); QPI data flits are a quarter of the reads, non-data
# a tenth
xeon_phase() {
	printf '{ "seconds": %s, "rates": {%s
	  "%s": %s, "%s": %s,
	  "imc:0x04:0x03": %s, "imc:0x04:0x0c": %s,
	  "qpi:0x00:0x02": %s, "qpi:0x00:0x04": %s } }' \
		"$3" "${XTRA:-}" "$1" "$6" "$2" "$7" "$4" "$5" \
		"$(awk -v r="$4" 'BEGIN { print r * 0.25 }')" \
		"$(awk -v r="$4" 'BEGIN { print r * 0.1 }')"
}
# hsx also has the memory read latency (latency_hsx.sh): DRd misses in
# the TOR under FILTER1 opc 0x182, 2e7 inserts/s and 2.16e9 occupancy/s
# at UCLK 1.2 GHz: 90 ns, 1.8 reads in flight, in every phase (the
# latency alert's idle level is the latency itself: it must not fire).
HSX_LAT='
	  "cbo:0x35:0x03:filter1=0x18200000": 2.0e7, "cbo:0x36:0x03:filter1=0x18200000": 2.16e9,'
hsx_phase() { XTRA=$HSX_LAT xeon_phase cbo:0x34:0x11:filter0=0x7e0000 cbo:0x34:0x11:filter0=0x20000 "$@"; }
{ printf '{ "platform": "hsx", "sockets": 1, "cbo_count": 4, "imc_channels": 2,\n'
  printf '  "qpi_ports": 2, "uclk_hz": 1200000000,\n  "phases": [ '
  printf '%s,\n    %s,\n    %s' "$(hsx_phase $first 1.0e8 5.0e7 2.0e8 1.0e8)" \
	"$(hsx_phase 30 2.0e8 1.5e8 1.5e8 4.5e7)" "$(hsx_phase 30 1.5e8 5.0e7 3.0e8 1.2e8)"
  printf ' ] }\n'; } >"$T/c.json"
# The fourth daemon is an older Xeon: the simulated snbep platform (one
# socket, 4 cores and so 4 CBos, 2 memory channels, 2 QPI ports; no global
# control), so every panel is also checked against a second Xeon.  LLC
# lookups and misses are LLC_LOOKUP.DATA_READ with the box filter's state
# 22:18 at every state / I; DRAM is CAS_COUNT.RD / .WR.
snbep_phase() { xeon_phase cbo:0x34:0x03:filter0=0x7c0000 cbo:0x34:0x03:filter0=0x40000 "$@"; }
{ printf '{ "platform": "snbep", "sockets": 1, "cores": 4, "imc_channels": 2,\n'
  printf '  "qpi_ports": 2, "uclk_hz": 2000000000,\n  "phases": [ '
  printf '%s,\n    %s,\n    %s' "$(snbep_phase $first 5.0e7 2.5e7 2.0e8 4.0e7)" \
	"$(snbep_phase 30 1.0e8 5.0e7 1.5e8 4.5e7)" "$(snbep_phase 30 7.5e7 2.5e7 3.0e8 1.2e8)"
  printf ' ] }\n'; } >"$T/d.json"
# The fifth daemon is a 2-socket Skylake-SP through the perf backend: CAS
# 0x04/0x03 and 0x04/0x0c (6 channels), LLC: the cores' TOR inserts, all
# and missing, with FILTER1 at every opcode, the CHA clock (the workload gives the socket's total over its 4
# CHAs), UPI data flits (x 64/9 bytes, over 3 links), and I/O traffic
# from the IIO free-running counters (4 bytes a count): inbound 2.5 x the
# DRAM reads on stack 0 port 0, outbound 1.25 x on stack 2 port 1 (other
# rates on other stacks, ports and directions: a mix-up shows).  Per
# socket.
xsp_phase() {
	printf '{ "seconds": %s, "rates": {
	  "imc:0x04:0x03": %s, "imc:0x04:0x0c": %s,
	  "cha:0x35:0x31:filter0=0x3b00000000": %s, "cha:0x35:0x21:filter0=0x3b00000000": %s,
	  "cha:0x00:0x00": 9.6e9, "upi:0x02:0x0f": %s,
	  "iio_free:UNC_IIO_BANDWIDTH_IN.PART0_FREERUN@0": %s,
	  "iio_free:UNC_IIO_BANDWIDTH_OUT.PART1_FREERUN@2": %s } }' "$1" "$2" "$3" "$4" "$5" \
		"$(awk -v r="$2" 'BEGIN { print r * 0.9 }')" \
		"$(awk -v r="$2" 'BEGIN { print r * 2.5 }')" \
		"$(awk -v r="$2" 'BEGIN { print r * 1.25 }')"
}
{ printf '{ "platform": "skx", "sockets": 2, "cha_count": 4,\n  "phases": [ '
  printf '%s,\n    %s,\n    %s' "$(xsp_phase $first 1.0e8 5.0e7 2.0e8 4.0e7)" \
	"$(xsp_phase 30 5.0e7 5.0e7 2.0e8 2.0e7)" "$(xsp_phase 30 1.5e8 2.5e7 3.0e8 1.5e8)"
  printf ' ] }\n'; } >"$T/e.json"
# The sixth is a 2-socket EPYC Zen 4 on a 6.1 kernel (no amd_umc_N): DRAM
# from the data fabric's read and write beats at coherent stations 0-11,
# 80 % for the local, 20 % for the remote requester, even over the
# stations; L3 lookups and misses summed over the complexes.  Per socket.
zen4_phase() {
	printf '{ "seconds": %s, "rates": { "l3:0x04:0xff": %s, "l3:0x04:0x01": %s' \
		"$1" "$4" "$5"
	awk -v r="$2" -v w="$3" 'BEGIN { for (n = 0; n < 12; n++) {
		c = sprintf("0x%x", 31 + 64 * n)
		printf ", \"df:%s:0x7fe\": %g, \"df:%s:0xbfe\": %g", c, r * 0.8 / 12, c, r * 0.2 / 12
		printf ", \"df:%s:0x7ff\": %g, \"df:%s:0xbff\": %g", c, w * 0.8 / 12, c, w * 0.2 / 12 } }'
	printf ' } }'
}
{ printf '{ "platform": "zen4", "sockets": 2, "perf": { "kernel": "6.1.0" },\n  "phases": [ '
  printf '%s,\n    %s,\n    %s' "$(zen4_phase $first 1.2e8 6.0e7 1.0e8 2.5e7)" \
	"$(zen4_phase 30 6.0e7 6.0e7 1.0e8 1.0e7)" "$(zen4_phase 30 2.0e8 5.0e7 2.0e8 1.2e8)"
  printf ' ] }\n'; } >"$T/f.json"
# Energy (issue 43): every daemon has RAPL (the simulator's "energy"
# key), watts per socket and domain of its own; zen4, AMD, the package
# domain alone.  Package 40 + 25 + 160 + 95 + (150 + 110) + (90 + 70) =
# 740 W, DRAM 6 + 4 + 20 + 12 + (24 + 12) = 78 W, psys (a only) 55 W.
energy() { sed -i "s|^  \"phases\"|  \"energy\": { \"watts\": { $2 } },\n  \"phases\"|" "$T/$1.json"; }
energy a '"package": 40, "dram": 6, "psys": 55'
energy b '"package": 25, "dram": 4'
energy c '"package": 160, "dram": 20'
energy d '"package": 95, "dram": 12'
energy e '"package": 150, "dram": 24, "s1/package": 110, "s1/dram": 12'
energy f '"package": 90, "s1/package": 70'
# Frequency limits (issue 43 section 2): daemon e's simulated kernel
# keeps the package thermal-throttle counters, 100 ms a second on socket
# 0 and 40 on socket 1 (the other daemons have none: the simulator's
# registers have no kernel, and zen4 is AMD's).
sed -i 's|^  "phases"|  "thermal_throttle": { "ms_per_s": 100, "s1/ms_per_s": 40 },\n  "phases"|' "$T/e.json"
# Known answers of the first phase: bytes/s = transfers x 64.
#            DRAM bytes/s   LLC hit ratio   uncore Hz
#   a        19.2e9         0.75            9e8
#   b         4.8e9         0.9             8e8
#   c         9.6e9         0.5             1.2e9
#   d         4.8e9         0.8             2e9
#   e        9.6e9 a socket  0.8            2.4e9   (read 6.4e9, write 3.2e9;
#                                                    I/O in 1e9, out 5e8)
#   f       11.52e9 a socket 0.75           none    (read 7.68e9, write 3.84e9)
#   fleet    80.64e9 (read 53.76e9, write 26.88e9), hit 1 - 3.35e8/1.5e9
: >"$T/empty.conf"
# start_daemon NAME [ARGS...]: daemon NAME (workload $T/NAME.json, control
# socket $T/NAME.sock, -i 50 unless ARGS say otherwise) on a free port;
# sets PORT and UPID.  pick_port sees only listening sockets, and a port
# can still be the local end of some other connection on this machine, so
# a start that cannot bind is retried.
start_daemon() {
	n=$1; shift
	for _ in 1 2 3 4 5; do
		PORT=$(pick_port)
		c=$T/empty.conf
		[ -f "$T/$n.conf" ] && c=$T/$n.conf
		start_uncored "$T/$n.log" -c "$c" --simulate \
			--workload "$T/$n.json" --sim-state "$T/$n.state" \
			-l "127.0.0.1:$PORT" -s "$T/$n.sock" -i 50 "$@" && return 0
		grep -q 'Address already in use' "$T/$n.log" || return 1
		wait "$UPID" 2>/dev/null
	done
	return 1
}
daemon_up() {
	start_daemon "$@"; rc=$?
	ok "$rc" "daemon $1 up on 127.0.0.1:$PORT"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/$1.log"
}
daemon_up a --path.resctrl "$T/a-rdt/sys/fs/resctrl" --path.sysfs "$T/a-rdt/sys"
A=127.0.0.1:$PORT PID_a=$UPID
"$top_builddir/uncore-sim" -w "$T/a.json" -s "$T/a.state" -i 0.1 resctrl "$T/a-rdt" \
	>"$T/a-rdt.log" 2>&1 &
tap_cleanup_pid $!
wait_for "daemon a's resctrl tree" 60 metric_is "${A#*:}" uncore_resctrl_available "" 1
ok $? "daemon a reads its simulated resctrl tree"
daemon_up b; B=127.0.0.1:$PORT PID_b=$UPID
daemon_up c; C=127.0.0.1:$PORT PID_c=$UPID
daemon_up d; D=127.0.0.1:$PORT PID_d=$UPID
# the perf platforms: zen4's 12 data fabric groups take 0.6 s a rotation,
# 33 in a [20s] window
daemon_up e --backend=perf; E=127.0.0.1:$PORT PID_e=$UPID
daemon_up f --backend=perf; F=127.0.0.1:$PORT PID_f=$UPID

# A client claims an event on daemon a and exports it, so the claims panels
# have data.  DRAM_GT_REQUESTS is free-running: the claim takes no counter
# from the baseline, whose rates are checked below.
curl -s --unix-socket "$T/a.sock" -X POST http://x/api/v1/claims \
	-d '{"events":["DRAM_GT_REQUESTS"],"ttl_s":900,"label":"fleet-test","export":true}' \
	>"$T/claim.json"
claim=$(jq -r '.id // empty' "$T/claim.json")
[ -n "$claim" ]; ok $? "exported claim $claim created on daemon a"

# ---- Prometheus with the shipped rules, windows shortened --------------------
I=0.05 L=0.5 W=20 S=1
TOL=$(awk -v i=$I -v l=$L -v w=$W -v s=$S 'BEGIN { printf "%.4f", (i + l) / (w - 2 * s) }')
# resctrl's values pass through two more stages: the simulated tree is
# synced every RS s by another process, and the daemon reads it every
# RI s; a value is up to RS + RI older than the tick that reports it.
# Under the issue-27 load (clean-clone .ci/run of b069e4e) a 3 % bound
# failed at 6 %.
RS=0.1 RI=1
RTOL=$(awk -v i=$I -v l=$L -v a=$RS -v b=$RI -v w=$W -v s=$S 'BEGIN { printf "%.4f", (i + l + a + b) / (w - 2 * s) }')
# The energy counters move once per read of the daemon's energy thread,
# up to 1 s apart (EI) whatever the tick: a rate over W is within
# (EI + L) / (W - 2 S) = 8.3 % (a unit or scale error is x16 or more).
EI=1
ETOL=$(awk -v e=$EI -v l=$L -v w=$W -v s=$S 'BEGIN { printf "%.4f", (e + l) / (w - 2 * s) }')
# (the latency baseline's group, evaluated every 2 m, every second too)
sed -E -e "s/\\[[0-9]+m\\]/[${W}s]/g" -e 's/for: [0-9]+m/for: 0s/' \
	-e 's/^( +)interval: [0-9]+m$/\1interval: 1s/' "$RULES" >"$T/uncored.rules.yml"
is "$(grep -cE '\[[0-9]+m\]|for: [1-9]|interval: [0-9]+m' "$T/uncored.rules.yml")" 0 \
	"test copy of the rules has every window at ${W}s, every for: and group interval at 0s and 1s"
cat >"$T/prometheus.yml" <<EOF
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [ "$T/uncored.rules.yml" ]
scrape_configs:
  - job_name: uncored
    static_configs: [ { targets: ["$A", "$B", "$C", "$D", "$E", "$F"] } ]
EOF
for _ in 1 2 3 4 5; do
	PP=$(pick_port)
	URL=http://127.0.0.1:$PP
	prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
		--web.listen-address="127.0.0.1:$PP" >"$T/prom.log" 2>&1 &
	PROM=$!; tap_cleanup_pid $PROM
	ready=1
	for _ in $(seq 1 100); do
		curl -fs -o /dev/null "$URL/-/ready" && { ready=0; break; }
		kill -0 $PROM 2>/dev/null || break
		sleep 0.2
	done
	[ $ready -eq 0 ] || ! grep -q 'address already in use' "$T/prom.log" && break
	wait $PROM 2>/dev/null
done
ok "$ready" "Prometheus ready on $URL"
[ "$ready" -eq 0 ] || tail -5 "$T/prom.log" | sed 's/^/#   /'

q() { curl -s "$URL/api/v1/query" --data-urlencode "query=$1"; }
# val EXPR: the value of the first sample of an instant query, or nothing.
val() { q "$1" | jq -r '.data.result[0].value[1] // empty' 2>/dev/null; }

nrules=$(curl -s "$URL/api/v1/rules" | jq '[.data.groups[].rules[]] | length')
is "$nrules" "$(grep -cE '^ *- (record|alert):' "$RULES")" \
	"Prometheus loaded every rule of uncored.rules.yml"

# Wait until every daemon's rules have values, then for the [20s] windows
# to hold only steady-state samples: W + 1 more scrapes of every target
# (at 1 s), counted by Prometheus (TOL: the header).
rules_have_values() { [ "$(val 'count(instance_socket:uncore_dram_bytes:rate1m)')" = 8 ]; }
wait_for "the recording rules' values for all 8 sockets" 60 rules_have_values
# scrapes of the target scraped least, in the last hour
scrapes() { val 'min(count_over_time(up{job="uncored"}[1h]))'; }
scrapes_ge() { _n=$(scrapes); [ -n "$_n" ] && [ "$_n" -ge "$1" ]; }
n0=$(scrapes)
wait_for "$((W + 1)) more scrapes of every daemon" $((W * 4)) scrapes_ge $(( ${n0:-0} + W + 1 ))
tready=$(date +%s)

# ---- targets and recording rules -----------------------------------------------
check_up() { # check_up NAME INSTANCE
	is "$(val "up{job=\"uncored\",instance=\"$2\"}")" 1 "up == 1 for daemon $1 ($2)"
}
check_up a "$A"; check_up b "$B"; check_up c "$C"; check_up d "$D"
check_up e "$E"; check_up f "$F"
near "$(val 'job:uncore_dram_bytes:rate1m')" 80.64e9 "$TOL" \
	"fleet DRAM rule job:uncore_dram_bytes:rate1m = 19.2 + 4.8 + 9.6 + 4.8 + 2 x 9.6 + 2 x 11.52 GB/s"
near "$(val 'job:uncore_dram_read_bytes:rate1m')" 53.76e9 "$TOL" \
	"fleet DRAM read rule = 53.76 GB/s"
near "$(val 'job:uncore_dram_write_bytes:rate1m')" 26.88e9 "$TOL" \
	"fleet DRAM write rule = 26.88 GB/s"
near "$(val 'job:uncore_llc_hit_ratio:ratio_rate1m')" \
	"$(awk 'BEGIN { print 1 - 3.35e8 / 1.5e9 }')" 0.01 \
	"fleet LLC hit-ratio rule = 1 - 3.35e8/1.5e9 (lookup-weighted)"
check_daemon() { # check_daemon INSTANCE NAME DRAM HIT UCLK [SOCKET]: UCLK "": none
	s="instance=\"$1\",socket=\"${6:-0}\"" n="$2${6:+ socket $6}"
	near "$(val "instance_socket:uncore_dram_bytes:rate1m{$s}")" "$3" "$TOL" \
		"daemon $n: DRAM rule = $3 bytes/s"
	near "$(val "instance_socket:uncore_llc_hit_ratio:ratio_rate1m{$s}")" "$4" 0.01 \
		"daemon $n: LLC hit-ratio rule = $4"
	if [ -n "$5" ]; then
		near "$(val "instance_socket:uncore_clock_ticks:rate1m{$s}")" "$5" "$TOL" \
			"daemon $n: uncore clock rule = $5 Hz"
	else
		is "$(val "instance_socket:uncore_clock_ticks:rate1m{$s}")" "" \
			"daemon $n: no uncore clock series (the platform has none)"
	fi
}
check_daemon "$A" a 19.2e9 0.75 9e8
check_daemon "$B" b 4.8e9 0.9 8e8
check_daemon "$C" c 9.6e9 0.5 1.2e9
check_daemon "$D" d 4.8e9 0.8 2e9
for sk in 0 1; do
	check_daemon "$E" e 9.6e9 0.8 2.4e9 $sk
	check_daemon "$F" f 11.52e9 0.75 "" $sk
done
near "$(val "instance_socket:uncore_resctrl_workload_bytes:rate1m{instance=\"$A\",socket=\"0\"}")" 4e9 "$RTOL" \
	"daemon a: the resctrl workload groups (web, db) move 4e9 bytes/s"
near "$(val "instance_socket:uncore_resctrl_workload_bytes:ratio_rate1m{instance=\"$A\",socket=\"0\"}")" \
	"$(awk 'BEGIN { print 4e9 / 19.2e9 }')" "$RTOL" \
	"daemon a: they explain 4e9 / 19.2e9 of the socket's DRAM bytes"
# the two groups pass through the same chain at the same moments: their
# ratio keeps the daemon's bound, so a wrong attribution between them
# (+10 % on the sum) cannot hide in the wider one
near "$(val "sum(rate(uncore_resctrl_memory_bytes_total{instance=\"$A\",group=\"web\",scope=\"total\"}[${W}s])) / sum(rate(uncore_resctrl_memory_bytes_total{instance=\"$A\",group=\"mon_groups/db\",scope=\"total\"}[${W}s]))")" \
	"$(awk 'BEGIN { print 1 / 3 }')" "$TOL" "daemon a: web moves a third of db's bytes (1e9 / 3e9)"
near "$(val "rate(uncore_claim_events_total{instance=\"$A\",claim=\"$claim\",event=\"DRAM_GT_REQUESTS\"}[${W}s])")" \
	4e7 "$TOL" "daemon a: the exported claim counts its workload's 4e7 GT requests/s"

# the memory read latency rules on daemon c (hsx): a ratio of two rates
# of one window, 1 %; the reads in flight a rate (TOL)
near "$(val "instance_socket:uncore_memory_read_latency_seconds:mean_rate1m{instance=\"$C\",socket=\"0\"}")" \
	90e-9 0.01 "daemon c: read latency rule = 90 ns (2.16e9 occupancy / 2e7 inserts / 1.2 GHz)"
near "$(val "instance_socket:uncore_memory_reads_in_flight:rate1m{instance=\"$C\",socket=\"0\"}")" \
	1.8 "$TOL" "daemon c: 1.8 reads in flight"
near "$(val "instance_socket:uncore_memory_read_latency_seconds:mean_rate1m_q05_1d{instance=\"$C\",socket=\"0\"}")" \
	90e-9 0.01 "daemon c: its idle level (the 5th percentile) is its steady 90 ns"

# the energy rules: watts per domain over the fleet, and DRAM joules
# per byte on daemon c (20 W over 9.6e9 B/s) and e's socket 1 (12 W over
# 9.6e9 B/s: another socket's figure would be twice it)
near "$(val 'sum(instance_socket_domain:uncore_energy_joules:rate1m{domain="package"})')" 740 "$ETOL" \
	"fleet package power = 740 W, the sum of the daemons' RAPL watts"
near "$(val 'sum(instance_socket_domain:uncore_energy_joules:rate1m{domain="dram"})')" 78 "$ETOL" \
	"fleet DRAM power = 78 W (zen4 has no DRAM domain)"
is "$(val "count(instance_socket_domain:uncore_energy_joules:rate1m{instance=\"$F\",domain=\"dram\"})")" "" \
	"daemon f (zen4): no DRAM energy series"
near "$(val "instance_socket:uncore_dram_joules_per_byte:ratio_rate1m{instance=\"$C\",socket=\"0\"}")" \
	"$(awk 'BEGIN { print 20 / 9.6e9 }')" "$ETOL" "daemon c: DRAM joules per byte = 20 W / 9.6e9 B/s"
near "$(val "instance_socket:uncore_dram_joules_per_byte:ratio_rate1m{instance=\"$E\",socket=\"1\"}")" \
	"$(awk 'BEGIN { print 12 / 9.6e9 }')" "$ETOL" "daemon e socket 1: DRAM joules per byte = 12 W / 9.6e9 B/s"
# the package thermal throttling, read every second as energy is: its
# share of time per socket of daemon e (a ms read as s would be x1000)
near "$(val "rate(uncore_frequency_limited_seconds_total{instance=\"$E\",socket=\"0\",domain=\"package\",reason=\"thermal\"}[${W}s])")" \
	0.1 "$ETOL" "daemon e socket 0: throttled 0.1 of the time (100 ms a second)"
near "$(val "rate(uncore_frequency_limited_seconds_total{instance=\"$E\",socket=\"1\",domain=\"package\",reason=\"thermal\"}[${W}s])")" \
	0.04 "$ETOL" "... socket 1: 0.04 (40 ms a second)"

# sum() of every derived counter family = the sum of its workload rates
# (first phase; a and b are skl, c the 1-socket hsx, d the 1-socket
# snbep, e the 2-socket skx, f the 2-socket zen4).  A family the fleet
# exports without a line here fails: add its expected rate.
fam_expect() {
	case $1 in
	uncore_llc_lookups_total) echo 1.5e9 ;;	# 1e8 + 4e8 + 2e8 + 2e8 + 2 x 2e8 + 2 x 1e8
	uncore_llc_misses_total) echo 3.35e8 ;;	# 2.5e7 + 4e7 + 1e8 + 4e7 + 2 x 4e7 + 2 x 2.5e7
	uncore_dram_read_bytes_total) echo 53.76e9 ;;	# (2e8 + 5e7 + 1e8 + 5e7 + 2 x 1e8 + 2 x 1.2e8) x 64
	uncore_dram_write_bytes_total) echo 26.88e9 ;;	# (1e8 + 2.5e7 + 5e7 + 2.5e7 + 2 x 5e7 + 2 x 6e7) x 64
	uncore_dram_bytes_total) echo 80.64e9 ;;	# read + write (every platform here has both)
	uncore_dram_channel_read_bytes_total) echo 22.4e9 ;;	# c, d, e: (1e8 + 5e7 + 2 x 1e8) x 64
	uncore_dram_channel_write_bytes_total) echo 11.2e9 ;;	# c, d, e: (5e7 + 2.5e7 + 2 x 5e7) x 64
	uncore_dram_requests_total) echo 3.625e8 ;;	# reads x (1.2 + 0.2 + 0.05)
	uncore_clock_ticks_total) echo 9.7e9 ;;		# 9e8 + 8e8 + 1.2e9 + 2e9 + 2 x 2.4e9
	uncore_upi_data_bytes_total) echo 1.28e9 ;;	# e: 2 x 9e7 data flits x 64/9
	uncore_io_bytes_total) echo 3e9 ;;	# e: 2 x (2.5e8 in + 1.25e8 out) counts x 4 bytes
	uncore_arb_requests_total) echo 3.25e8 ;;	# reads x 1.3
	uncore_arb_occupancy_cycles_total) echo 1e10 ;;	# reads x 40
	uncore_qpi_data_bytes_total) echo 3e8 ;;	# c, d: (2.5e7 + 1.25e7) data flits x 8
	uncore_qpi_link_bytes_total) echo 4.2e8 ;;	# c, d: (3.5e7 + 1.75e7) flits x 8
	uncore_ha_requests_total | uncore_pcu_*) echo 0 ;;	# c, d: no rate given
	uncore_resctrl_memory_bytes_total) echo 9.5e9 ;;	# a: total / 3e9 + web 1e9 + db 3e9, local 1e9 + 5e8 + 1e9
	uncore_resctrl_unreadable_total) echo 0 ;;	# a: every value a number
	uncore_energy_joules_total) echo 873 ;;	# W: package 740 + DRAM 78 + psys 55
	uncore_frequency_limited_seconds_total) echo 0.14 ;;	# e: thermal 0.1 + 0.04 s/s
	uncore_frequency_limited_events_total) echo 0 ;;	# e: no episodes given
	*) return 1 ;;
	esac
}
fams=$(q 'group by (__name__) ({__name__=~"uncore_.+_total"})' |
	jq -r '.data.result[].metric.__name__' | sort |
	grep -vxE 'uncore_(event|claim_events)_total')
[ "$(echo "$fams" | wc -w)" -ge 14 ]
ok $? "the fleet exports $(echo "$fams" | wc -w) derived counter families"
for f in $fams; do
	if want=$(fam_expect "$f"); then
		tol=$TOL
		case $f in uncore_resctrl_*) tol=$RTOL ;; uncore_energy_* | uncore_frequency_*) tol=$ETOL ;; esac
		near "$(val "sum(rate($f[${W}s]))")" "$want" "$tol" \
			"sum(rate($f)) over the fleet = $want, the sum of its workload rates"
	else
		ok 1 "counter family $f has an expected workload rate in this test"
	fi
done
# the I/O directions apart (daemon e: in 2 x 2.5e8 x 4, out 2 x 1.25e8 x 4)
near "$(val "sum(rate(uncore_io_bytes_total{direction=\"in\"}[${W}s]))")" 2e9 "$TOL" \
	"I/O traffic in over the fleet = 2e9 B/s (daemon e, stack 0)"
near "$(val "sum(rate(uncore_io_bytes_total{direction=\"out\",stack=\"2\"}[${W}s]))")" 1e9 "$TOL" \
	"I/O traffic out over the fleet = 1e9 B/s (daemon e, stack 2)"

# ---- the dashboard ------------------------------------------------------------------
jq -e . "$DASH" >/dev/null 2>&1
ok $? "dashboard is valid JSON"

# subst EXPR JOB INSTANCE SOCKET: the expression as Grafana would send it.
subst() {
	printf '%s\n' "$1" | sed -e 's/\$__rate_interval/5s/g' -e 's/\$__interval/1s/g' \
		-e 's/\$__range/5s/g' \
		-e "s/\\\$job/$2/g; s/\\\${job}/$2/g" \
		-e "s/\\\$instance/$3/g; s/\\\${instance}/$3/g" \
		-e "s/\\\$socket/$4/g; s/\\\${socket}/$4/g"
}
# future EXPR: if EXPR reads a metric family that no daemon exports yet,
# print why (and the panel is skipped); fails if it should have data.
future() {
	case $1 in
	*uncore_dram_channel_*)
		probe='count({__name__=~"uncore_dram_channel_.+"})'
		why="per-channel DRAM families (uncore_dram_channel_*) come with the hsx platform" ;;
	*uncore_qpi_*)
		probe='count({__name__=~"uncore_qpi_.+"})'
		why="QPI families (uncore_qpi_*_bytes_total{port}) come with the hsx platform" ;;
	*uncore_memory_reads:ratio_rate1m*)
		probe='count(uncore_memory_read_latency_seconds_count{target="remote"})'
		why="no daemon here counts local and remote reads apart (hsx does only with a [baseline] of them)" ;;
	*) return 1 ;;
	esac
	[ -z "$(val "$probe")" ] && echo "$why"
}

# no_family PASS TITLE EXPR: why the daemon of pass PASS (snbep, skx,
# zen4) has no series for that panel query; fails when it should have.
no_family() {
	case $1:$2 in
	snbep:* | skx:* | zen4:*)
		case $2 in
		"DRAM requests by source" | "ARB queue")
			echo "skl-only family (the IMC request and ARB counters)"; return ;;
		"Exported claim events")
			echo "the exported claim is daemon a's"; return ;;
		esac ;;
	esac
	# the latency panels: decided by what the daemon serves, not by a
	# list of platforms (issue 41 adds them platform by platform)
	case $3 in *uncore_memory_read*|*uncore_memory_reads*)
		if [ -z "$(val "count(uncore_memory_read_latency_seconds_count{instance=~\"$4\"})")" ]; then
			echo "the daemon serves no uncore_memory_read_latency_seconds (its platform has no such events in uncored yet)"; return
		fi ;;
	esac
	case $1:$3 in snbep:*uncore_memory_reads:ratio* | skx:*uncore_memory_reads:ratio* | zen4:*uncore_memory_reads:ratio*)
		if [ -z "$(val "count(uncore_memory_read_latency_seconds_count{instance=~\"$4\",target=\"remote\"})")" ]; then
			echo "the daemon counts no local and remote reads apart"; return
		fi ;;
	esac
	case $1:$3 in
	snbep:*uncore_clock_limit_* | snbep:*uncore_clock_current_*)
		echo "snbep has no intel_uncore_frequency (the kernel's driver does not match Sandy Bridge-EP)" ;;
	zen4:*uncore_clock_limit_* | zen4:*uncore_clock_current_*)
		echo "zen4 has no intel_uncore_frequency (an Intel driver)" ;;
	snbep:*uncore_resctrl* | skx:*uncore_resctrl* | zen4:*uncore_resctrl*)
		echo "only daemon a reads a (simulated) resctrl tree" ;;
	snbep:*uncore_upi_*) echo "snbep has QPI ports, not UPI links" ;;
	snbep:*uncore_io_* | zen4:*uncore_io_*)
		echo "no I/O traffic family: IIO free-running counters on skx, icx and spr only" ;;
	skx:*uncore_qpi_*) echo "skx has UPI links, not QPI ports" ;;
	zen4:*uncore_clock_*) echo "zen4 has no uncore clock family (no fabric clock event in the kernel's AMD PMUs)" ;;
	zen4:*uncore_dram_channel_*) echo "zen4 on a 6.1 kernel: DRAM from the data fabric, no per-channel family (per UMC on Linux 6.7+)" ;;
	zen4:*uncore_qpi_* | zen4:*uncore_upi_*) echo "zen4's xGMI links have no family" ;;
	zen4:*domain=\"dram\"* | zen4:*uncore_dram_joules_per_byte*)
		echo "AMD's RAPL has the package domain only: no DRAM energy" ;;
	snbep:*uncore_frequency_limited_*)
		echo "the kernel's thermal_throttle counters are not in the simulated registers' machine, and the PCU's reasons need [baseline] frequency_limits = yes on snbep" ;;
	zen4:*uncore_frequency_limited_*)
		echo "AMD has no thermal_throttle counters" ;;
	*) return 1 ;;
	esac
}

# Variables: label_values(SELECTOR, LABEL) through the label-values API.
jq -r '.templating.list[] | select(.type == "query") | [.name, .definition] | @tsv' \
	"$DASH" >"$T/vars"
is "$(wc -l <"$T/vars")" 3 "dashboard has the job, instance and socket variables"
while IFS='	' read -r name def; do
	sel=$(printf '%s\n' "$def" | sed -n 's/^label_values(\(.*\), *\([A-Za-z_]*\))$/\1/p')
	lab=$(printf '%s\n' "$def" | sed -n 's/^label_values(\(.*\), *\([A-Za-z_]*\))$/\2/p')
	sel=$(subst "$sel" '.*' '.*' '.*')
	got=$(curl -s -G "$URL/api/v1/label/$lab/values" --data-urlencode "match[]=$sel" |
		jq -r '.data | join(" ")')
	case $name in
	job) want=uncored ;;
	instance) want=$(printf '%s\n' "$A" "$B" "$C" "$D" "$E" "$F" | sort | tr '\n' ' ' | sed 's/ $//') ;;
	socket) want="0 1" ;;
	*) want="?" ;;
	esac
	is "$got" "$want" "variable \$$name: $def"
done <"$T/vars"

is "$(jq -r '[.templating.list[] | select(.type == "datasource") | .query] | join(",")' "$DASH")" \
	prometheus "dashboard has a Prometheus data-source variable"
is "$(jq -r '[.. | objects | .datasource? | objects | select(.type == "prometheus") | .uid] | unique | join(",")' "$DASH")" \
	'${datasource}' "every panel and query uses the data-source variable"

# Panels: every target, with the variables at All and at concrete values
# (daemon a, the one with the exported claim, and daemon c, the Xeon, for
# the server panels; socket 0).
jq -r '[.panels[] | ., (.panels // [])[]] | .[] | select(.targets != null) |
	.title as $t | .targets[] | [$t, .refId, .expr] | @tsv' "$DASH" >"$T/targets"
ntargets=$(wc -l <"$T/targets")
[ "$ntargets" -ge 20 ]; ok $? "dashboard has $ntargets panel queries"
for pass in all concrete snbep skx zen4; do
	case $pass in
	all) vj='.*' vi='.*' vs='.*' ;;
	concrete) vj=uncored vi=$A vs=0 ;;
	snbep) vj=uncored vi=$D vs=0 ;;
	skx) vj=uncored vi=$E vs=1 ;;
	zen4) vj=uncored vi=$F vs=1 ;;
	esac
	while IFS='	' read -r title ref expr; do
		vii=$vi
		# every panel at daemon d (snbep), e (skx) or f (zen4) has
		# data, but those whose family it cannot have (doc/monitoring.md,
		# "The server panels"): skl's ARB and DRAM request counters,
		# the exported claim (on daemon a), and per platform the rest,
		# which have none, as documented
		# the server panels (memory channels, QPI, UPI) show a Xeon: at
		# concrete values they look at daemon c, the hsx one, for
		# channels and QPI, and e, the skx one, for UPI and I/O traffic
		case $pass:$expr in concrete:*uncore_dram_channel_* | concrete:*uncore_qpi_*) vii=$C ;; esac
		# and for the read latency, daemon c too (hsx)
		case $pass:$expr in concrete:*uncore_memory_read*) vii=$C ;; esac
		case $pass:$expr in concrete:*uncore_upi_* | concrete:*uncore_io_*) vii=$E ;; esac
		# the uncore clock limits come from the kernel's
		# intel_uncore_frequency: of these daemons only e, skx on the
		# simulated kernel, has one (the simulator's registers have no
		# kernel)
		case $pass:$expr in
		concrete:*uncore_clock_limit_* | concrete:*uncore_clock_current_*) vii=$E ;;
		esac
		# and the package thermal throttling from its thermal_throttle
		case $pass:$expr in concrete:*uncore_frequency_limited_*) vii=$E ;; esac
		none=$(no_family "$pass" "$title" "$expr" "$vii")
		e=$(subst "$expr" "$vj" "$vii" "$vs")
		desc="panel \"$title\" query $ref ($pass) returns data"
		case $e in *'$'*)
			ok 1 "$desc"; echo "#   unsubstituted variable in: $e"; continue ;;
		esac
		r=$(q "$e")
		st=$(printf '%s' "$r" | jq -r '.status' 2>/dev/null)
		n=$(printf '%s' "$r" | jq -r '.data.result | length' 2>/dev/null)
		if [ -n "$none" ]; then
			is "$st ${n:-?}" "success 0" \
				"panel \"$title\" query $ref ($pass) has no series: $none"
		elif [ "$st" != success ]; then
			ok 1 "$desc"; echo "#   $e"; echo "#   $r" | head -c 400; echo
		elif [ "${n:-0}" -gt 0 ]; then
			ok 0 "$desc"
		elif why=$(future "$e"); then
			skip "$desc" "$why"
		else
			ok 1 "$desc"; echo "#   empty result: $e"
		fi
	done <"$T/targets"
done

# ---- alerts -------------------------------------------------------------------------
is "$(q 'ALERTS{alertstate="firing",alertname=~"Uncored.*",alertname!="UncoredTickOverruns"}' |
	jq -r '[.data.result[].metric.alertname] | join(",")')" "" \
	"no uncored alert fires in a healthy fleet"

if [ -n "$PLOT" ]; then
	# (not a wait for the daemons: the plot shows this much history)
	end=$((tready + ${FLEET_PLOT_SECONDS:-120}))
	while [ "$(date +%s)" -lt "$end" ]; do sleep 1; done
	sh "$top_srcdir/contrib/render_fleet_plot.sh" "$URL" "$tready" "$end" "$PLOT" \
		"$A=skl-a" "$B=skl-b" "$C=hsx-c" "$D=snbep-d" "$E=skx-e" "$F=zen4-f" \
		>"$T/plot.log" 2>&1
	ok $? "rendered $PLOT"; sed 's/^/#   /' "$T/plot.log"
fi

# A daemon that stops answering: scrapes time out after 1 s, up drops to 0
# and UncoredDown (for: cut to 0s) fires for that instance only.
kill -STOP "$PID_c"
down_fired() {
	fired=$(q 'ALERTS{alertname="UncoredDown",alertstate="firing"}' |
		jq -r '[.data.result[].metric.instance] | join(",")')
	[ -n "$fired" ]
}
wait_for "UncoredDown to fire" 30 down_fired
kill -CONT "$PID_c"
is "$fired" "$C" "UncoredDown fires for the daemon that stopped answering"

kill -TERM $PROM; wait $PROM
is "$?" 0 "Prometheus stops cleanly"
stop_daemon() { # stop_daemon NAME PID
	kill -TERM "$2"; wait "$2"
	is "$?" 0 "daemon $1 stops cleanly"
}
stop_daemon a "$PID_a"; stop_daemon b "$PID_b"; stop_daemon c "$PID_c"
stop_daemon d "$PID_d"; stop_daemon e "$PID_e"; stop_daemon f "$PID_f"
echo "# fleet_e2e took $(( $(date +%s) - t0 )) s"
tap_done
