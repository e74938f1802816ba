#!/bin/sh
# vm.sh - issue 30 section 3: in a virtual machine with no uncore PMU,
# the daemon says so, plainly.  On the real machine (no --simulate):
#   - it exits 4 (2 on a CPU it does not support), and the message names
#     the hypervisor from the CPUID vendor signature (compared with what
#     lscpu reads) and says what would work: the bare-metal host or a
#     bare-metal (.metal) cloud instance;
#   - --self-test says the same, with the same status;
#   - --unavailable=serve serves it as uncored_counting_unavailable_info's
#     reason;
#   - the simulator never claims a VM (the simulated machine is not the
#     host).
# Skipped, with the reason, where /proc/cpuinfo has no hypervisor flag or
# the kernel exposes uncore PMUs: the message is not given there.
. "${top_srcdir:-.}/tests/lib.sh"

ADVICE="run uncored on the bare-metal host, or on a bare-metal (.metal) cloud instance"
if [ -z "$(grep -m1 -o -w hypervisor /proc/cpuinfo)" ]; then
	skip "the virtual machine message" "not a virtual machine: /proc/cpuinfo has no hypervisor flag"
	tap_end
fi
pmus=$(ls /sys/bus/event_source/devices 2>/dev/null |
	grep -E '^(uncore_|amd_df|amd_l3)' | tr '\n' ' ')
if [ -n "$pmus" ]; then
	skip "the virtual machine message" "this VM has uncore PMUs: $pmus"
	tap_end
fi

# What the hypervisor is called, by lscpu's own reading of CPUID leaf
# 0x40000000 (its names, mapped onto uncored's), if lscpu knows.
want_hv=
if command -v lscpu >/dev/null 2>&1; then
	case $(LC_ALL=C lscpu | sed -n 's/^Hypervisor vendor:[[:space:]]*//p') in
	KVM) want_hv=KVM ;;
	Microsoft) want_hv=Hyper-V ;;
	VMware) want_hv=VMware ;;
	Xen) want_hv=Xen ;;
	Parallels) want_hv=Parallels ;;
	ACRN) want_hv=ACRN ;;
	bhyve) want_hv=bhyve ;;
	esac
fi

# check WHAT FILE: the message in FILE says it is a VM, names the
# hypervisor and gives the advice.
check() {
	like "$(cat "$2")" "this machine is a virtual machine (the CPUID hypervisor bit is set; hypervisor: " \
		"$1: names the CPUID hypervisor bit"
	if [ -n "$want_hv" ]; then
		like "$(cat "$2")" "hypervisor: $want_hv)" \
			"$1: names the hypervisor $want_hv (as lscpu does)"
	else
		skip "$1: names the hypervisor as lscpu does" "lscpu names no hypervisor uncored knows"
	fi
	like "$(cat "$2")" "$ADVICE" "$1: says what would work"
}

# 1. Start-up: exit with the reason.
PORT=$(pick_port)
"$UNCORED" --foreground -l "127.0.0.1:$PORT" -s '' >"$T/exit.log" 2>&1
st=$?
if grep -q 'unsupported CPU' "$T/exit.log"; then want=2; else want=4; fi
is "$st" "$want" "start-up: exit $want (no way to the counters)"
check "start-up" "$T/exit.log"
msg=$(sed -n 's/^.*uncored: error: //p' "$T/exit.log" | head -1)
reason=${msg%. Use --simulate to run on the simulator}

# 2. --self-test: the same.
"$UNCORED" --self-test >"$T/st.log" 2>&1
is "$?" "$want" "--self-test: exit $want"
check "--self-test" "$T/st.log"
is "$(sed -n 's/^.*uncored: error: //p' "$T/st.log" | head -1)" "$msg" \
	"--self-test: the start-up's message"

# 3. --unavailable=serve: the same reason on /metrics.
"$UNCORED" --foreground --unavailable=serve -l "127.0.0.1:$PORT" -s '' \
	>"$T/serve.log" 2>&1 &
UPID=$!
tap_cleanup_pid "$UPID"
_live() {
	curl -fs -o /dev/null "http://127.0.0.1:$PORT/healthz?live=1" && return 0
	gone "$UPID" && _wf_stop="uncored (pid $UPID) has ended"
	return 1
}
wait_for "/healthz?live=1 on port $PORT" 30 _live
scrape "$PORT" "$T/m"
sed -n 's/^uncored_counting_unavailable_info{reason="\(.*\)"} 1$/\1/p' "$T/m" \
	>"$T/reason"
is "$(cat "$T/reason")" "$reason" \
	"serve: uncored_counting_unavailable_info's reason is the exit message's"
check "serve" "$T/reason"
curl -s "http://127.0.0.1:$PORT/api/v1/status" >"$T/status"
is "$(jq -r .exit_status "$T/status")" "$want" "serve: /api/v1/status exit_status $want"
kill -TERM "$UPID"
wait "$UPID"
is "$?" 0 "serve: SIGTERM, exit 0"

# 4. The simulator is not the host: never a VM.
"$UNCORED" --simulate=skl --self-test >"$T/sim.log" 2>&1
ok "$(! grep -q 'virtual machine' "$T/sim.log"; echo $?)" \
	"--simulate --self-test: no word of a virtual machine"
tap_done
