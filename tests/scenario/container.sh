#!/bin/bash
# container.sh - the container image and the DaemonSet's pod in a real
# runtime (podman with runc) on this machine's real kernel (issue 29):
#   1. contrib/container/build-image.sh builds the image once, from the
#      Debian package, with Debian's tools (mmdebstrap, podman); no shell,
#      package manager or compiler in it; its entry point and config;
#   2. run as doc/running.md says (--cap-drop=ALL --cap-add=PERFMON
#      --read-only --security-opt no-new-privileges, the host's /sys
#      read-only at /host/sys), on the simulated kernel (--simulate=spr
#      --backend=perf): it serves /metrics, and after start-up holds
#      exactly CAP_PERFMON, as uid 0, with no_new_privs, as doc/fleet.md and
#      uncored(8) say;
#   3. on the real kernel, tests/tools/perf-open (uncored's own privilege
#      check, then perf_event_open) in that container opens a CPU-wide
#      msr/tsc/ event with CAP_PERFMON alone, under podman's seccomp
#      profile extended as Docker's is (contrib/container/
#      seccomp-perfmon.sh); without it, both uncored's check (naming
#      CAP_PERFMON) and the kernel refuse;
#   4. doc/running.md's podman line (the image's defaults) on this machine's
#      real kernel, which has no uncore PMU: the daemon keeps serving,
#      uncored_counting_available 0 and the reason, which is the message
#      it exits with under --unavailable=exit; no capability left;
#   5. the DaemonSet's pod template (contrib/kubernetes/daemonset.yaml,
#      extracted into a Pod: podman 4.3 cannot play a DaemonSet) under
#      `podman kube play`: the runtime's reading of its securityContext,
#      hostPath, resources and liveness probe, and its probes answered;
#   6. nothing is left behind: containers, pods, images, volumes, networks
#      and mounts this test made are removed (also on failure: a trap).
# Needs root, podman, runc, catatonit (kube play's pause image),
# mmdebstrap and the Debian mirror apt uses, and the package's build
# dependencies (contrib/quickstart.sh test installs them); skips, saying
# why, only where podman cannot run containers.  Several minutes: it
# builds the Debian package and the image.  Not part of make check's
# default TESTS (distcheck would build the image again): quickstart.sh
# runs it as its own suite, make check TESTS='$(CONTAINER_TESTS)'.
. "${top_srcdir:-.}/tests/lib.sh"

for t in podman runc mmdebstrap dpkg-buildpackage catatonit; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "1..0 # SKIP $t is not installed (contrib/quickstart.sh test installs it)"
		exit 0
	fi
done
if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root: the image is built and run by root's podman"
	exit 0
fi
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3	# python3-yaml is Debian's

# Everything this test makes is named after it, so that it removes only
# its own and runs beside anything else podman holds.
P=uncored-test-$$
NAME=localhost/$P
# The machine's limits are lower than podman's default rlimits (runc then
# refuses to start), and this kernel's cgroup v1 hierarchy needs runc
# (crun refuses it): explicit ulimits and runtime on every run, and for
# kube play, which takes neither flag, the same in a containers.conf.
UL="--ulimit nofile=4096:4096 --ulimit nproc=4096:4096"
RUN="--runtime runc $UL"
LEAST="--cap-drop=ALL --cap-add=PERFMON --read-only --security-opt no-new-privileges -v /sys:/host/sys:ro"
cat >"$T/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF=$T/containers.conf

had_pause=$(podman image exists localhost/podman-pause:"$(podman version -f '{{.Client.Version}}')"-0 && echo yes)
had_kubenet=$(podman network exists podman-default-kube-network && echo yes)

# ids: every container's id, for the check that no mount is left
ids() { podman ps -a --no-trunc --filter "name=^$P" --format '{{.ID}}' >>"$T/ids"; }
: >"$T/ids"
cleanup() {
	for f in "$T"/pod-*.yaml; do
		[ -f "$f" ] && podman kube down "$f" >/dev/null 2>&1
	done
	for c in $(podman ps -a --filter "name=^$P" --format '{{.Names}}' 2>/dev/null); do
		podman rm -f -t 0 "$c" >/dev/null 2>&1 ||
			podman rm -f -t 0 "$c" >/dev/null 2>&1
	done
	for v in $(podman volume ls --filter "name=^$P" --format '{{.Name}}' 2>/dev/null); do
		podman volume rm -f "$v" >/dev/null 2>&1
	done
	podman rmi -f "$NAME:latest" "$NAME:$version" >/dev/null 2>&1
	[ -n "$had_pause" ] || podman rmi -f \
		localhost/podman-pause:"$(podman version -f '{{.Client.Version}}')"-0 >/dev/null 2>&1
	[ -n "$had_kubenet" ] || podman network rm -f podman-default-kube-network >/dev/null 2>&1
}
trap 'cleanup; _tap_exit' EXIT
version=none

if ! podman info >"$T/info" 2>&1; then
	echo "1..0 # SKIP podman cannot run here: $(tail -1 "$T/info")"
	exit 0
fi
# Can this machine run a container at all?  A one-file image: the static
# perf-open, which prints its usage and exits 3.  Nothing is reported
# before this is decided: a machine that cannot run containers (a
# chroot, a CI runner inside a container) gets a plan of 0 and the
# reason, never a test counted and then a skip.
PO=$top_builddir/tests/tools/perf-open
[ -x "$PO" ] || make -C "$top_builddir" tests/tools/perf-open >"$T/po.out" 2>&1
if [ ! -x "$PO" ]; then
	# not the machine's fault: a build that failed is a failure
	sed 's/^/# /' "$T/po.out" | tail -5
	ok 1 "tests/tools/perf-open is built (static)"
	tap_end
fi
mkdir -p "$T/probe"
cp "$PO" "$T/probe/perf-open"
# --runtime and the image by id: a failed import must not fall through
# to a registry pull of a name nobody publishes.
if ! id=$(tar -C "$T/probe" -cf - perf-open |
	podman import -q - "$NAME-probe:latest" 2>"$T/import.err"); then
	echo "# $(tail -3 "$T/import.err")"
	echo "1..0 # SKIP podman cannot import an image here: $(tail -1 "$T/import.err")"
	exit 0
fi
podman run --rm --pull=never $RUN "$id" /perf-open >"$T/probe.out" 2>&1
st=$?
podman rmi -f "$NAME-probe:latest" >/dev/null 2>&1
if [ "$st" -ne 3 ]; then
	echo "# $(tail -3 "$T/probe.out")"
	echo "1..0 # SKIP podman cannot run a container here (runc: status $st: $(tail -1 "$T/probe.out"))"
	exit 0
fi
ok 0 "tests/tools/perf-open is built (static) and runs in a container"

# ---- 1. the image ----------------------------------------------------------
t0=$(date +%s)
# CONTAINER_TEST_DEB=DIR: use the packages in DIR instead of building them
"$top_srcdir/contrib/container/build-image.sh" --tag "$NAME" --keep "$T/root" \
	${CONTAINER_TEST_DEB:+--deb "$CONTAINER_TEST_DEB"} \
	>"$T/build.out" 2>"$T/build.err"
st=$?
is "$st" 0 "build-image.sh builds the image ($(($(date +%s) - t0)) s)"
if [ "$st" -ne 0 ]; then
	tail -20 "$T/build.err" | sed 's/^/# /'
	tap_done; exit 1
fi
read -r tag _ size _ <"$T/build.out"
version=${tag##*:}
want_version=$(sed -n '1s/^uncored (\([^)-]*\).*/\1/p' "$top_srcdir/debian/changelog")
is "$version" "$want_version" "tagged $NAME:$version, the package's version"
ok "$(podman image exists "$NAME:latest"; echo $?)" "... and $NAME:latest"
mib=$(( (size + 524287) / 1048576 ))
ok "$([ "$mib" -le 40 ]; echo $?)" "the image is $mib MiB ($size bytes; at most 40)"
like "$(cat "$T/build.err")" "mmdebstrap bookworm from" \
	"built with mmdebstrap from the mirror apt uses"
# what is in it: uncored, its libraries, its data, nothing to run but it
execs=$(cd "$T/root" && find . -type f -perm -u+x | grep -v '\.so' | sort | tr '\n' ' ')
is "$execs" "./usr/sbin/uncored " "the only executable file is /usr/sbin/uncored"
found=$(cd "$T/root" && find . \( -name sh -o -name bash -o -name dash \
	-o -name dpkg -o -name 'apt*' -o -name 'gcc*' -o -name cc -o -name ld \
	-o -name busybox -o -name perl \) | tr '\n' ' ')
is "$found" "" "no shell, package manager, compiler or interpreter"
cmp -s "$T/root/etc/uncored/uncored.conf" "$top_srcdir/contrib/container/uncored.conf"
ok $? "its /etc/uncored/uncored.conf is contrib/container/uncored.conf"
is "$(podman image inspect -f '{{json .Config.Entrypoint}}' "$NAME:latest")" \
	'["/usr/sbin/uncored","--foreground","--log-format=text","--control-socket="]' \
	"entry point: uncored in the foreground, logging to stderr"

FLAGS="$RUN $LEAST"
# pid_of CONTAINER: the daemon's pid on the host
pid_of() { podman inspect -f '{{.State.Pid}}' "$1"; }
# status_of PID FIELD: a field of /proc/PID/status
status_of() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" | tr -s '\t' ' '; }
# up URL: does URL answer 200?
up() { curl -fs -o /dev/null "$1"; }

# ---- 2. least privilege, on the simulated kernel ------------------------------
PORT=$(pick_port)
podman run -d --name "$P-sim" $FLAGS -p "127.0.0.1:$PORT:9464" \
	"$NAME:$version" --simulate=spr --backend=perf >/dev/null 2>"$T/sim.err"
ok $? "podman run $LEAST ... --simulate=spr --backend=perf"
ids
wait_for "/healthz of the simulated container" 60 up "http://127.0.0.1:$PORT/healthz"
ok $? "/healthz answers 200"
scrape "$PORT" "$T/sim.m"
like "$(grep '^uncored_build_info' "$T/sim.m")" 'platform="spr",backend="perf",simulated="true"' \
	"/metrics: spr through the perf backend on the simulated kernel"
ok "$([ -n "$(metric "$T/sim.m" uncore_dram_read_bytes_total 'socket="1"')" ]; echo $?)" \
	"... with uncore_dram_read_bytes_total of socket 1"
is "$(metric "$T/sim.m" uncored_counting_available "")" 1 "... uncored_counting_available 1"
pid=$(pid_of "$P-sim")
is "$(status_of "$pid" CapEff)" 0000004000000000 "after start-up CapEff is CAP_PERFMON alone"
is "$(status_of "$pid" CapPrm)" 0000004000000000 "... CapPrm too"
is "$(status_of "$pid" Uid)" "0 0 0 0" "... uid 0 (no CAP_SETUID to switch users)"
is "$(status_of "$pid" NoNewPrivs)" 1 "... NoNewPrivs 1"
is "$(status_of "$pid" Seccomp)" 2 "... under a seccomp filter (podman's default)"
like "$(podman logs "$P-sim" 2>&1)" \
	"staying uid 0, with every capability dropped but CAP_PERFMON" \
	"the daemon says so in its log"
# what the docs say is what was measured
for l in "CapEff: 0000004000000000" "NoNewPrivs: 1"; do
	like "$(cat "$top_srcdir/doc/fleet.md")" "$l" "doc/fleet.md shows $l"
done
like "$(tr '\n' ' ' <"$top_srcdir/doc/uncored.8.in")" \
	"it stays uid 0 with that one capability" "uncored(8) says uid 0 and that one capability"
is "$(podman inspect -f '{{.HostConfig.ReadonlyRootfs}}' "$P-sim")" true "the root is read-only"
rss=$(status_of "$pid" VmHWM)
echo "# resident at most $rss"
podman rm -f -t 5 "$P-sim" >/dev/null 2>&1

# ---- 3. a CPU-wide perf event on the real kernel ------------------------------
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
PROBE="-v $T/probe/perf-open:/perf-open:ro --entrypoint /perf-open"
if [ ! -d /sys/bus/event_source/devices/msr ]; then
	skip "msr/tsc/ with CAP_PERFMON" "this kernel has no msr PMU"
elif [ "$paranoid" -ge 3 ] || [ "$paranoid" -le 0 ]; then
	skip "msr/tsc/ with CAP_PERFMON alone" \
		"kernel.perf_event_paranoid is $paranoid: CAP_PERFMON decides only at 1 or 2"
else
	# podman 4.3's default seccomp profile (containers-common 0.50) lets
	# only CAP_SYS_ADMIN call perf_event_open; Docker's lets CAP_PERFMON
	# too.  contrib/container/seccomp-perfmon.sh makes podman's profile
	# do what Docker's does, and nothing else.
	podman run --rm --name "$P-perf0" $FLAGS $PROBE "$NAME:$version" \
		/host/sys msr 0 >"$T/perf0.out" 2>&1
	echo "# with podman's default seccomp profile (status $?):"
	sed 's/^/#   /' "$T/perf0.out"
	"$top_srcdir/contrib/container/seccomp-perfmon.sh" >"$T/seccomp.json"
	ok $? "seccomp-perfmon.sh makes a profile from podman's default"
	SEC="--security-opt seccomp=$T/seccomp.json"
	podman run --rm --name "$P-perf" $FLAGS $SEC $PROBE "$NAME:$version" \
		/host/sys msr 0 >"$T/perf.out" 2>&1
	is "$?" 0 "with CAP_PERFMON alone, a CPU-wide msr/tsc/ event opens"
	like "$(cat "$T/perf.out")" "uncored: allowed: CAP_PERFMON" "... uncored's check allows it for CAP_PERFMON"
	like "$(cat "$T/perf.out")" "kernel: opened msr/0 on cpu 0" "... and the kernel opens it"
	sed 's/^/# /' "$T/perf.out"
	podman run --rm --name "$P-noperf" $RUN --cap-drop=ALL --read-only \
		--security-opt no-new-privileges $SEC -v /sys:/host/sys:ro $PROBE \
		"$NAME:$version" /host/sys msr 0 >"$T/noperf.out" 2>&1
	is "$?" 1 "without CAP_PERFMON it is refused"
	like "$(cat "$T/noperf.out")" "neither CAP_PERFMON nor CAP_SYS_ADMIN" \
		"... by uncored's check, naming the missing capability"
	like "$(cat "$T/noperf.out")" "Grant CAP_PERFMON" "... and saying what to grant"
	like "$(cat "$T/noperf.out")" "kernel: refused: perf_event_open:" \
		"... and by the kernel"
	# and the kernel itself, with no seccomp filter in the way
	podman run --rm --name "$P-noperf2" $RUN --cap-drop=ALL --read-only \
		--security-opt no-new-privileges --security-opt seccomp=unconfined \
		-v /sys:/host/sys:ro $PROBE "$NAME:$version" /host/sys msr 0 \
		>"$T/noperf2.out" 2>&1
	like "$(cat "$T/noperf2.out")" "kernel: refused: perf_event_open: Permission denied" \
		"... (without seccomp: the kernel's own EACCES)"
fi

# ---- 4. the image's defaults on this machine's real kernel --------------------
pmus=$(ls /sys/bus/event_source/devices | grep -E '^(uncore_|amd_df|amd_l3|amd_umc)' | tr '\n' ' ')
if [ -n "$pmus" ]; then
	skip "the no-PMU mode on the real kernel" "this machine has uncore PMUs: $pmus"
else
	podman run --rm --name "$P-exit" $FLAGS "$NAME:$version" --unavailable=exit \
		>"$T/exit.out" 2>&1
	st=$?
	ok "$([ "$st" -eq 2 ] || [ "$st" -eq 4 ]; echo $?)" \
		"no uncore PMU here: with --unavailable=exit the daemon exits $st"
	msg=$(sed -n 's/^.*uncored: error: //p' "$T/exit.out" | head -1)
	reason=${msg%. Use --simulate to run on the simulator}
	like "$reason" "/host/sys/bus/event_source/devices" "... its message names perf's /sys"
	# doc/running.md's podman line, as written but for the port (a free one
	# on 127.0.0.1), the image's name (this test's) and the profile's
	# path, detached and named.
	line=$(sed -n '/^    podman run /,/localhost\/uncored:latest$/p' "$top_srcdir/doc/running.md" |
		sed 's/\\$//' | tr -s ' \n' '  ')
	like "$line" "seccomp=uncored-seccomp.json" "doc/running.md has a podman line with the seccomp profile"
	"$top_srcdir/contrib/container/seccomp-perfmon.sh" >"$T/uncored-seccomp.json"
	PORT=$(pick_port)
	cmd=$(echo "$line" | sed -e "s|^ *podman run |podman run -d --name $P-node |" \
		-e "s|-p 9464:9464|-p 127.0.0.1:$PORT:9464|" \
		-e "s|seccomp=uncored-seccomp.json|seccomp=$T/uncored-seccomp.json|" \
		-e "s|localhost/uncored:latest *$|$NAME:latest|")
	echo "# $cmd"
	eval "$cmd" >/dev/null 2>"$T/node.err"
	ok $? "doc/running.md's podman line runs the image (its defaults)"
	ids
	wait_for "/healthz?live=1 of the image on the real kernel" 60 up \
		"http://127.0.0.1:$PORT/healthz?live=1"
	ok $? "it keeps serving: /healthz?live=1 answers 200"
	is "$(http_code "http://127.0.0.1:$PORT/healthz")" 503 "/healthz (readiness) 503"
	scrape "$PORT" "$T/node.m"
	is "$(metric "$T/node.m" uncored_counting_available "")" 0 "uncored_counting_available 0"
	got=$(sed -n 's/^uncored_counting_unavailable_info{reason="\(.*\)"} \(.*\)$/\2 \1/p' "$T/node.m")
	is "$got" "1 $reason" "uncored_counting_unavailable_info{reason} 1, the exit message"
	pid=$(pid_of "$P-node")
	is "$(status_of "$pid" CapEff) $(status_of "$pid" Uid) $(status_of "$pid" NoNewPrivs)" \
		"0000000000000000 0 0 0 0 1" "... holding no capability, uid 0, NoNewPrivs 1"
	podman rm -f -t 5 "$P-node" >/dev/null 2>&1
fi

# ---- 5. the DaemonSet's pod under podman kube play ---------------------------
# The pod template as a Pod, changed only where a test must: its name, the
# image this test built, the arguments, the emptyDir's name (podman makes
# it a named volume, which must not meet anyone else's), and the port on
# the host: podman 4.3 publishes a containerPort on every address of the
# host, so it gets a free one on 127.0.0.1 (hostIP, hostPort).
extract() { # extract NAME IMAGE HOSTPORT ARGS...
	"$PY" - "$top_srcdir/contrib/kubernetes/daemonset.yaml" "$@" <<'PYEOF'
import sys, yaml
src, name, image, hostport = sys.argv[1:5]
ds = yaml.safe_load(open(src))
assert ds["kind"] == "DaemonSet", ds["kind"]
t = ds["spec"]["template"]
spec = t["spec"]
for v in spec["volumes"]:
    if "emptyDir" in v:
        old = v["name"]
        v["name"] = name + "-" + old
        for c in spec["containers"]:
            for m in c.get("volumeMounts", []):
                if m["name"] == old:
                    m["name"] = v["name"]
for c in spec["containers"]:
    c["image"] = image
    c["args"] = sys.argv[5:]
    for p in c["ports"]:
        p["hostIP"] = "127.0.0.1"
        p["hostPort"] = int(hostport)
pod = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": name, "labels": t["metadata"]["labels"]},
       "spec": spec}
yaml.safe_dump(pod, sys.stdout, sort_keys=False)
PYEOF
}
for kind in node sim; do
	args=
	[ "$kind" = sim ] && args="--simulate=spr --backend=perf"
	port=$(pick_port)
	eval "port_$kind=$port"
	extract "$P-$kind" "$NAME:$version" "$port" $args >"$T/pod-$kind.yaml"
	ok $? "the DaemonSet's pod template extracted into Pod $P-$kind${args:+ (args $args)}"
	podman kube play "$T/pod-$kind.yaml" >"$T/play-$kind.out" 2>&1
	st=$?
	is "$st" 0 "podman kube play runs it"
	[ "$st" -eq 0 ] || sed 's/^/# /' "$T/play-$kind.out"
done
ids
C=$P-node-uncored S=$P-sim-uncored
ip_n=127.0.0.1:$port_node ip_s=127.0.0.1:$port_sim
wait_for "the simulated pod's readiness probe" 60 up "http://$ip_s/healthz"
ok $? "sim pod: the readiness probe's GET /healthz answers 200"
wait_for "the node pod's liveness probe" 60 up "http://$ip_n/healthz?live=1"
ok $? "node pod: the liveness probe's GET /healthz?live=1 answers 200"
is "$(http_code "http://$ip_n/healthz")" 503 \
	"node pod: the readiness probe's GET /healthz says 503 (nothing to count)"
ok "$(up "http://$ip_s/healthz?live=1"; echo $?)" "sim pod: liveness 200"
is "$(curl -s "http://$ip_n/metrics" | metric /dev/stdin uncored_counting_available "")" 0 \
	"node pod: uncored_counting_available 0"
is "$(curl -s "http://$ip_s/metrics" | metric /dev/stdin uncored_counting_available "")" 1 \
	"sim pod: uncored_counting_available 1"
# the runtime's reading of the securityContext
for c in "$C" "$S"; do
	pid=$(pid_of "$c")
	is "$(status_of "$pid" CapBnd)" 0000004000000000 \
		"$c: drop ALL, add PERFMON: the bounding set is CAP_PERFMON alone"
	is "$(status_of "$pid" NoNewPrivs) $(status_of "$pid" Seccomp) $(status_of "$pid" Uid)" \
		"1 2 0 0 0 0" "$c: allowPrivilegeEscalation false, seccomp RuntimeDefault, uid 0"
	is "$(podman inspect -f '{{.HostConfig.ReadonlyRootfs}}' "$c")" true \
		"$c: readOnlyRootFilesystem"
	is "$(podman inspect -f '{{range .Mounts}}{{if eq .Destination "/host/sys"}}{{.Source}} rw={{.RW}}{{end}}{{end}}' "$c")" \
		"/sys rw=false" "$c: hostPath /sys read-only at /host/sys"
done
is "$(status_of "$(pid_of "$S")" CapEff)" 0000004000000000 "$S: CapEff CAP_PERFMON alone"
is "$(status_of "$(pid_of "$C")" CapEff)" 0000000000000000 "$C: nothing to count, CapEff empty"
is "$(podman inspect -f '{{.HostConfig.Memory}}' "$C")" $((64 * 1048576)) \
	"resources.limits.memory 64Mi applied"
is "$(podman inspect -f '{{.HostConfig.CpuQuota}}/{{.HostConfig.CpuPeriod}}' "$C")" \
	"20000/100000" "resources.limits.cpu 200m applied"
# podman 4.3 turns an httpGet liveness probe into a healthcheck that runs
# curl inside the container, which an image without a shell or curl
# cannot run (and where no systemd runs it here): what is checked is that
# the probe was read (path, port, timing) and, above, that its request
# is answered, as the kubelet would send it
hc=$(podman inspect -f '{{json .Config.Healthcheck}}' "$C")
like "$hc" "http://localhost:9464/healthz?live=1" "the liveness probe read: GET /healthz?live=1 on 9464"
like "$hc" '"Interval":20000000000' "... every 20 s"

# ---- 6. nothing left behind -------------------------------------------------
cleanup
left=$(podman ps -a --filter "name=^$P" --format '{{.Names}}'; podman pod ps --filter "name=^$P" --format '{{.Name}}'
	podman images --format '{{.Repository}}' | grep -x "$NAME"; podman volume ls --format '{{.Name}}' | grep "^$P")
is "$left" "" "no container, pod, image or volume of this test is left"
n=0
for id in $(sort -u "$T/ids"); do
	grep -q "$id" /proc/self/mountinfo && n=$((n + 1))
done
is "$n/$(sort -u "$T/ids" | grep -c .)" "0/$(sort -u "$T/ids" | grep -c .)" \
	"no mount of its containers either"
tap_done
