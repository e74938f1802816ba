# tests/xeon.sh - what daemon_hsx.sh and daemon_snbep.sh share: the
# two-socket daemon on the platform's default workload, the known answers
# both workloads give (conf/workloads/{hsx,snbep}-default.json have the
# same rates where the platforms have the same units), the check that a
# stop leaves the controls zero, and the one-socket machine with a missing
# QPI port.  Source it after tests/lib.sh.

# xeon_start PLAT: the daemon on 2 simulated PLAT sockets (200 ms ticks,
# state in $T/state, control socket $T/ctl.sock, config $T/c.conf),
# $WL its workload; then $T/m0 and $T/m1, 10 ticks apart (rate_window).
xeon_start() {
	PORT=$(pick_port)
	WL="$top_srcdir/conf/workloads/$1-default.json"
	printf '[daemon]\ninterval_ms = 200\n' >"$T/c.conf"
	start_uncored "$T/log" -c "$T/c.conf" --simulate="$1" --workload "$WL" \
		--sim-state "$T/state" -l "127.0.0.1:$PORT" -s "$T/ctl.sock"
	ok $? "daemon up on 2 simulated $1 sockets"
	_be=direct
	perf_mode && _be=perf
	# (logged once discovery is done, which /healthz may answer before)
	wait_for "the platform line" 30 has "$T/log" "platform $1 ($_be backend, simulator)"
	like "$(cat "$T/log")" "platform $1 ($_be backend, simulator), 2 sockets" \
		"platform, backend and sockets logged"
	rate_window "$PORT" 10
}

# xeon_answers PLAT UCLK_HZ: the figures both default workloads give, on
# $T/m1 and between $T/m0 and $T/m1: LLC (even CBos count lookups, odd
# ones misses, through the split filter solution), DRAM per socket and
# channel, the uncore clock, QPI, core C6, package C2 and C6, the PCU
# bands; promtool has nothing to say; the topology lists the CBos.
xeon_answers() {
	_m=$T/m1
	near "$(metric "$_m" uncore_llc_hit_ratio 'socket="0"')" 0.90 0.01 "s0 LLC hit ratio 0.90 (even CBos lookups, odd misses)"
	near "$(metric "$_m" uncore_llc_hit_ratio 'socket="1"')" 0.75 0.01 "s1 LLC hit ratio 0.75"
	near "$(rate uncore_llc_lookups_total 'socket="0"')" 4.0e8 0.02 "s0 lookups 4e8/s (scaled x2)"
	near "$(rate uncore_llc_misses_total 'socket="1"')" 5.0e7 0.02 "s1 misses 5e7/s"
	near "$(metric "$_m" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" 8.0e9 0.01 "s0 DRAM read 8 GB/s"
	near "$(metric "$_m" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="write"')" 4.0e9 0.01 "s0 DRAM write 4 GB/s"
	near "$(metric "$_m" uncore_dram_bandwidth_bytes_per_second 'socket="1",direction="read"')" 4.0e9 0.01 "s1 DRAM read 4 GB/s"
	for _c in 0 1 2 3; do
		near "$(rate uncore_dram_channel_read_bytes_total "socket=\"0\",channel=\"$_c\"")" 2.0e9 0.02 "s0 channel $_c read 2 GB/s"
	done
	near "$(rate uncore_dram_channel_write_bytes_total 'socket="1",channel="3"')" 5.0e8 0.02 "s1 channel 3 write 0.5 GB/s"
	for _s in 0 1; do
		near "$(metric "$_m" uncore_clock_hertz "socket=\"$_s\"")" "$2" 0.01 "s$_s uncore clock $2 Hz (UBox UCLK)"
	done
	near "$(rate uncore_qpi_data_bytes_total 'socket="0",port="1"')" 1.0e9 0.02 "s0 QPI port 1 data 1 GB/s"
	near "$(rate uncore_qpi_link_bytes_total 'socket="1",port="0"')" 7.5e8 0.02 "s1 QPI port 0 link 0.75 GB/s"
	near "$(rate uncore_pcu_cstate_residency_cycles_total 'socket="1",state="core_c6"')" 2.0e9 0.02 \
		"s1 core C6 residency 2e9/s: the sum over the socket's 8 cores, each read on its own CPU"
	# (snbep: the kernel's cstate.c snb_cstates reads the same MSRs)
	near "$(rate uncore_pcu_cstate_residency_cycles_total 'socket="1",state="package_c6"')" 1.0e8 0.02 \
		"s1 package C6 residency 1e8/s (MSR 0x3F9)"
	near "$(rate uncore_pcu_cstate_residency_cycles_total 'socket="1",state="package_c2"')" 2.5e8 0.02 \
		"s1 package C2 residency 2.5e8/s (MSR 0x60D)"
	_b0=$(rate uncore_pcu_frequency_band_cycles_total 'socket="0",band="0"')
	_b1=$(rate uncore_pcu_frequency_band_cycles_total 'socket="0",band="1"')
	near "$(awk -v a="$_b1" -v b="$_b0" 'BEGIN { print a / b }')" 0.75 0.02 "PCU band 1 cycles 75% of band 0"
	if command -v promtool >/dev/null; then
		_out=$(promtool check metrics <"$_m" 2>&1)
		is "$?:$_out" "0:" "promtool check metrics is silent on $1"
	else
		skip "promtool on $1" "promtool not installed"
	fi
	like "$(curl -s "http://127.0.0.1:$PORT/api/v1/topology")" '"unit":"cbo","description"' \
		"topology lists the CBos"
}

# perf_groups_before_stop: on the perf backend, the daemon's status
# names the backend and the event groups it holds open; there are no
# registers to find zero after the stop (the kernel closes a process's
# events when it ends; the simulated kernel lives in the daemon, and
# test_pmu_perf checks that pmu_release() closes every event).
perf_groups_before_stop() {
	curl -s "http://127.0.0.1:$PORT/api/v1/status" >"$T/st.json"
	like "$(cat "$T/st.json")" '"backend":"perf"' "status: the perf backend runs"
	_g=$(sed -n 's/.*"perf":{[^}]*"groups":\([0-9]*\).*/\1/p' "$T/st.json")
	ok "$([ "${_g:-0}" -gt 0 ]; echo $?)" "status: $_g event groups open while it runs"
}

# sim_nonzero PLAT WORKLOAD STATE REGISTER...: the registers of the
# simulated machine in STATE that do not read 0x0, as " reg=value".
sim_nonzero() {
	_p=$1 _w=$2 _st=$3; shift 3
	for _r; do
		_v=$("$UNCORE_SIM" --platform "$_p" -w "$_w" -s "$_st" read "$_r")
		[ "$_v" = 0x0 ] || printf ' %s=%s' "$_r" "$_v"
	done
}

# unit_json TOPOLOGY UNIT: the text of socket 0's UNIT in a topology
# answer, up to the next unit.
unit_json() {
	printf '%s\n' "$1" | awk -v u="\"unit\":\"$2\"," '{
		i = index($0, u); if (!i) exit
		r = substr($0, i + length(u)); j = index(r, "\"unit\":\"")
		print (j ? substr(r, 1, j - 1) : r) }'
}

# xeon_one_socket PLAT WORKLOAD UCLK_HZ: a second daemon (port $P2, log
# $T/log2) on a one-socket workload with two channels of 6.25e7 reads
# each (4 GB/s), a 0.75 hit ratio, QPI port 1 only (port 0's function
# missing); $T/m3 once the ring has a whole interval, $TOPO its topology.
xeon_one_socket() {
	P2=$(pick_port)
	PORT=$P2 start_uncored "$T/log2" -c "$T/c.conf" --simulate="$1" --workload "$2" \
		-l "127.0.0.1:$P2" -s ""
	ok $? "1 socket with QPI port 0 missing: daemon up"
	wait_for "3 samples" 60 ring_has "$P2" 3
	scrape "$P2" "$T/m3"
	TOPO=$(curl -s "http://127.0.0.1:$P2/api/v1/topology")
	near "$(metric "$T/m3" uncore_llc_hit_ratio 'socket="0"')" 0.75 0.01 "1 socket: hit ratio 0.75"
	near "$(metric "$T/m3" uncore_dram_bandwidth_bytes_per_second 'socket="0",direction="read"')" 4.0e9 0.01 \
		"1 socket: DRAM read 4 GB/s over 2 channels"
	near "$(metric "$T/m3" uncore_clock_hertz 'socket="0"')" "$3" 0.01 "1 socket: $3 Hz"
	is "$(grep -c 'socket="1"' "$T/m3")" 0 "no second socket"
	is "$(grep -c '^uncore_qpi_data_bytes_total{socket="0",port="0"}' "$T/m3")" 0 \
		"missing QPI port 0 exports nothing"
	near "$(metric "$T/m3" uncore_qpi_data_bytes_total 'socket="0",port="1"' | awk '{ print ($1 > 0) }')" 1 0 \
		"QPI port 1 still counts"
	_q=$(unit_json "$TOPO" qpi)
	like "$_q" '"box":0,"available":false' "QPI port 0 reported unavailable"
	like "$_q" '"box":1,"available":true' "QPI port 1 available"
}
