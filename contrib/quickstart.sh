#!/bin/sh
# quickstart.sh - set up a Debian 12 machine and run uncored.
#
#   contrib/quickstart.sh demo   install what the demo needs (DEMO_DEPS),
#                                build, and run the daemon on the simulator,
#                                serving on :9464; prints where it really
#                                listens and how to use uncorectl with it
#                                (extra arguments are passed to uncored)
#   contrib/quickstart.sh test   install that and the test tools (TEST_DEPS),
#                                build with ASan/UBSan and run the whole
#                                test suite, and beside it the TSan build
#                                and its tests, make distcheck, the
#                                daemon's scenarios on the perf backend,
#                                and the container image and Kubernetes
#                                pod in podman;
#                                ends with "N passed, N failed, N skipped"
#
# Run as root on a fresh machine (apt-get needs it); as another user it
# only builds, and stops if a dependency is missing.
# QUICKSTART_BUILD=DIR builds (and runs the demo) in DIR instead of build/.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
cmd=${1:-demo}
[ $# -gt 0 ] && shift

# Debian 12 package names, one list per command.
# The demo: what builds the daemon and uncorectl (git names the revision
# in --version), and curl to look at it.
DEMO_DEPS="build-essential autoconf automake libtool pkg-config git
      libmicrohttpd-dev libjson-c-dev libpci-dev libsystemd-dev libinih-dev
      libcap-ng-dev libyaml-dev libgnutls28-dev
      libcrypt-dev zlib1g-dev
      curl"
# The test suite, on top of the demo's: the peers and tools the tests run
# (some of these packages start services when installed, which is why the
# demo does not install them).  clang and libclang-rt-14-dev build the
# fuzz targets (tests/scenario/fuzz.sh); abigail-tools checks libuncored's
# ABI (tests/scenario/lib_abi.sh).
TEST_DEPS="pciutils jq iproute2 util-linux systemd python3 strace openssl
      python3-prometheus-client clang libclang-rt-14-dev
      prometheus wrk prometheus-node-exporter
      debhelper lintian abigail-tools
      chromium
      podman runc catatonit mmdebstrap yamllint python3-yaml
      linux-perf"
# chromium: tests/scenario/page.sh, the live page in a browser.  podman,
# runc, catatonit (kube play's pause image) and mmdebstrap: the container
# suite, tests/scenario/container.sh, which builds the image with
# contrib/container/build-image.sh and runs it and the DaemonSet's pod;
# yamllint and python3-yaml: tests/scenario/kubernetes_check.sh.
# linux-perf: tests/scenario/perf_tool_attrs.sh, perf's encodings of the
# simulated kernel's PMUs against uncored's.

# install_deps PACKAGES...: installs those that are missing.
install_deps() {
	missing=
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "quickstart: missing packages:$missing (run as root to install them)" >&2
		exit 1
	fi
	echo "quickstart: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	# prometheus' postinst starts its own service; that is harmless but
	# not wanted on a build machine.
	apt-get install -y -q --no-install-recommends $missing >&2
}

# build DIR [configure args...]: configure (once) and build in DIR.
build() {
	dir=$1; shift
	[ -x configure ] || autoreconf -fi >&2
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ] || [ configure -nt "$dir/Makefile" ]; then
		(cd "$dir" && "$here/configure" -q "$@" >&2)
	fi
	make -C "$dir" -j"$(nproc)" >&2
}

# Tests that exercise threads; run again under TSan.
TSAN_TESTS="tests/unit/test_ring_threads tests/unit/test_periodic tests/unit/test_http tests/unit/test_expo
	tests/unit/test_sampler tests/unit/test_sim_kernel tests/unit/test_readnow
	tests/unit/test_authq tests/unit/test_resctrl_mon tests/scenario/auth_dos.sh
	tests/scenario/daemon_basic.sh tests/scenario/libuncored.sh
	tests/scenario/daemon_faults.sh tests/scenario/http_abuse.sh
	tests/scenario/claims.sh tests/scenario/resctrl.sh
	tests/scenario/resctrl_cgroups.sh tests/scenario/resctrl_abmc.sh"

# Tests of one suite run at a time: they mostly wait (for a daemon's
# ticks, a browser, Prometheus), so more than the cores.
SUITE_JOBS=${SUITE_JOBS:-$(( $(nproc) + 1 ))}

# suite NAME LOG COMMAND...: runs COMMAND in the background, its output
# in LOG; suite_wait NAME waits for it, prints how long it took and
# returns its exit status.
suite() {
	_n=$1 _l=$2; shift 2
	mkdir -p "$(dirname "$_l")"
	echo "quickstart: $_n suite started (log: $_l)" >&2
	( "$@" ) >"$_l" 2>&1 &
	eval "suite_pid_$_n=\$! suite_t0_$_n=\$(date +%s)"
}
suite_wait() {
	eval "_p=\$suite_pid_$1 _t=\$suite_t0_$1"
	_rc=0
	wait "$_p" || _rc=$?
	echo "quickstart: $1 suite ended (status $_rc) after $(( $(date +%s) - _t )) s" >&2
	return $_rc
}

tsan_suite() {
	build build-tsan --enable-werror --enable-sanitizers=thread &&
		make -C build-tsan -k -j"$SUITE_JOBS" check \
			TESTS="$(echo $TSAN_TESTS)" TEST_SUITE_LOG=tsan-suite.log
}
# The scenario tests that start a daemon (Makefile.am DAEMON_TESTS), on
# the perf backend: every daemon they start reads the simulated kernel
# (tests/lib.sh, UNCORED_TEST_BACKEND).  No sanitizers: the perf code
# runs under ASan and UBSan in the asan suite (the unit tests of the perf
# layers, perf_backend.sh, zen4_df.sh), and this suite's question is
# whether every scenario's answer holds through the kernel.
perf_suite() {
	build build-perf --enable-werror &&
		UNCORED_TEST_BACKEND=perf make -C build-perf -k \
			-j"$SUITE_JOBS" check 'TESTS=$(DAEMON_TESTS)' \
			TEST_SUITE_LOG=perf-suite.log
}
# The container image and the DaemonSet's pod in podman (Makefile.am
# CONTAINER_TESTS): once the asan suite has built everything in
# build-asan, so that this make only runs the test.  It builds the Debian
# package and the image once, and removes what it made.
container_suite() {
	make -C build-asan -k check 'TESTS=$(CONTAINER_TESTS)' \
		TEST_SUITE_LOG=container-suite.log
}
distcheck_suite() {
	build build-dist &&
		make -C build-dist -j"$SUITE_JOBS" distcheck VERBOSE=1 \
			DISTCHECK_CONFIGURE_FLAGS=--enable-werror
}

# Sums the counts of an automake test-suite.log into the totals.
PASS=0 FAIL=0 SKIP=0
count() {
	log=$1
	[ -f "$log" ] || { FAIL=$((FAIL + 1)); return; }
	p=$(sed -n 's/^# PASS: *//p' "$log"); f=$(sed -n 's/^# FAIL: *//p' "$log")
	s=$(sed -n 's/^# SKIP: *//p' "$log"); e=$(sed -n 's/^# ERROR: *//p' "$log")
	x=$(sed -n 's/^# XPASS: *//p' "$log")
	PASS=$((PASS + ${p:-0})); FAIL=$((FAIL + ${f:-0} + ${e:-0} + ${x:-0}))
	SKIP=$((SKIP + ${s:-0}))
}

# demo_banner LOG BUILDDIR PID: where the daemon listens (from its own
# log, so -l and -s given on the command line are what is shown) and how
# to reach it with uncorectl, which is in BUILDDIR and not on PATH.
demo_banner() {
	url=
	for l in $(sed -n 's/.*http: serving \([^ ]*\)$/\1/p' "$1"); do
		case $l in
		0.0.0.0:*|\[::\]:*) u="http://localhost:${l##*:}/  (every address: $l)" ;;
		*) u="http://$l/" ;;
		esac
		url="$url
    $u"
	done
	sock=$(sed -n 's/.*http: serving unix:\(.*\) (control)$/\1/p' "$1" | head -1)
	echo
	echo "quickstart: uncored runs on the simulator (pid $3); Ctrl-C stops it."
	echo "  HTTP (the live page at /, /metrics, the JSON API):${url:- none (-l none)}"
	if [ -n "$sock" ]; then
		echo "  Control socket (claims, uncorectl): $sock"
		echo "  uncorectl is in $2, not on PATH.  In another terminal:"
		echo "    export PATH=\"$2:\$PATH\" UNCORED_SOCKET=\"$sock\""
		echo "    uncorectl status"
		echo "    uncorectl events LOOKUP"
		echo "    uncorectl claim UNC_CBO_XSNP_RESPONSE.HITM_XCORE --ttl 60 --watch 1"
		echo "    uncorectl top"
	else
		echo "  No control socket (-s ''): no claims; uncorectl --url http://ADDR:PORT for the rest."
	fi
	echo
}

B=${QUICKSTART_BUILD:-build}
case $B in /*) ;; *) B=$here/$B ;; esac

case $cmd in
demo)
	install_deps $DEMO_DEPS
	build "$B"
	log=$B/uncored-demo.log
	: >"$log"	# here, not in the child: the wait below reads it at once
	# As root the daemon opens its devices, then runs as an unprivileged
	# user (uncored(8), PRIVILEGES): "uncored" where the package or make
	# install created it, else nobody - the demo creates no user.
	user=
	if [ "$(id -u)" -eq 0 ] && ! getent passwd uncored >/dev/null; then
		user="--user nobody"
		echo "quickstart: no user \"uncored\" here (the package or" \
			"make install creates it): the demo runs as nobody" >&2
	fi
	"$B/uncored" --foreground -c conf/uncored.conf $user \
		--simulate --workload conf/workloads/skl-default.json \
		--control-socket "$B/uncored.sock" "$@" 2>"$log" &
	pid=$!
	# A background job of a script ignores Ctrl-C: pass it on.
	trap 'kill -TERM $pid 2>/dev/null || :' INT TERM
	i=0
	until grep -q ': platform ' "$log"; do
		if ! kill -0 "$pid" 2>/dev/null || [ $i -ge 300 ]; then
			cat "$log" >&2
			kill -TERM "$pid" 2>/dev/null || :
			echo "quickstart: uncored did not start (log: $log)" >&2
			exit 1
		fi
		i=$((i + 1)); sleep 0.1
	done
	shown=$(wc -l <"$log")	# whole lines; tail goes on from the next
	head -n "$shown" "$log" >&2
	demo_banner "$log" "$B" "$pid" >&2
	# The daemon's log as it goes, until it stops, each line once.  tail
	# ignores Ctrl-C and SIGTERM (to the script or its whole group): the
	# trap above stops the daemon, and tail prints its last words and
	# ends when it is gone.  A trapped signal interrupts wait (status >
	# 128) before the daemon has ended: wait again.
	(trap '' INT TERM; exec tail -n +"$((shown + 1))" -s 0.2 -f --pid="$pid" "$log" >&2) &
	tpid=$!
	status=0
	wait "$pid" || status=$?
	while [ "$status" -gt 128 ] && kill -0 "$pid" 2>/dev/null; do
		status=0
		wait "$pid" || status=$?
	done
	wait "$tpid" || :
	exit $status
	;;
test)
	install_deps $DEMO_DEPS $TEST_DEPS
	[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >&2
	t0=$(date +%s)
	# The four suites share nothing but the sources, and their tests
	# mostly wait for daemons to tick: they run side by side, each in
	# its own build directory, each writing its own log.
	# 1. the whole suite under ASan + UBSan, warnings are errors
	build build-asan --enable-werror --enable-sanitizers
	suite asan build-asan/suite.out \
		make -C build-asan -k -j"$SUITE_JOBS" check
	# 2. the threaded parts (ring, HTTP server, sampler, the daemon)
	#    under ThreadSanitizer
	suite tsan build-tsan/suite.out tsan_suite
	# 3. make distcheck: the tarball builds and passes on its own
	suite distcheck build-dist/distcheck.log distcheck_suite
	# 4. the daemon's scenarios again, on the perf backend
	suite perf build-perf/suite.out perf_suite
	status=0
	suite_wait asan || status=1
	# 5. the container image and the pod, after the asan suite: it runs
	#    in build-asan, whose programs that suite has built
	suite container build-asan/container.out container_suite
	suite_wait tsan || status=1
	suite_wait perf || status=1
	suite_wait container || status=1
	if suite_wait distcheck; then
		PASS=$((PASS + 1)); echo "PASS: make distcheck" >&2
	else
		FAIL=$((FAIL + 1)); status=1
		tail -40 build-dist/distcheck.log >&2
		# VERBOSE=1 put the failed tests' logs in it: distcheck
		# removes its tree, and with it every other copy
		grep -B2 -A6 '^not ok\|^Bail' build-dist/distcheck.log |
			head -60 >&2
		echo "FAIL: make distcheck (build-dist/distcheck.log)" >&2
	fi
	count build-asan/test-suite.log
	count build-tsan/tsan-suite.log
	count build-perf/perf-suite.log
	count build-asan/container-suite.log
	[ "$FAIL" -eq 0 ] || status=1
	if [ "$status" -ne 0 ]; then
		for f in build-asan/tests/*/*.log build-tsan/tests/*/*.log \
			build-perf/tests/*/*.log; do
			grep -q '^\(FAIL\|ERROR\|not ok\)' "$f" 2>/dev/null &&
				{ echo "---- $f" >&2; grep -B2 -A6 '^not ok\|^Bail\|ERROR\|WARNING: ThreadSanitizer' "$f" | head -60 >&2; }
		done
	fi
	echo "quickstart: the test suites took $(( $(date +%s) - t0 )) s" >&2
	echo "$PASS passed, $FAIL failed, $SKIP skipped"
	exit $status
	;;
*)
	echo "usage: $0 demo|test" >&2
	exit 2
	;;
esac
