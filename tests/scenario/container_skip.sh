#!/bin/sh
# container_skip.sh - container.sh on a machine that cannot run
# containers (a chroot, a CI runner inside a container) skips cleanly:
# a plan of 0 with the reason and no test line before it, so the TAP
# driver never sees "too many tests run" (issue 38).  Each failure of
# podman is played by a stand-in podman on PATH; the real tools are never
# called.
. "${top_srcdir:-.}/tests/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "container.sh skips cleanly" "container.sh needs root before it probes"
	tap_end
fi

mkdir -p "$T/bin"
for t in runc mmdebstrap dpkg-buildpackage catatonit; do
	printf '#!/bin/sh\nexit 0\n' >"$T/bin/$t"
	chmod +x "$T/bin/$t"
done
# podman, failing at the step named by $FAKE_FAIL
cat >"$T/bin/podman" <<'SH'
#!/bin/sh
case $1 in
info) [ "$FAKE_FAIL" = info ] && { echo "cannot set up namespace: operation not permitted" >&2; exit 125; } ;;
import) cat >/dev/null
	[ "$FAKE_FAIL" = import ] && { echo "Error: writing blob: storage driver overlay: not supported" >&2; exit 125; }
	echo sha256:0123 ;;
run) [ "$FAKE_FAIL" = run ] && { echo "Error: runc: container_linux.go: permission denied" >&2; exit 125; } ;;
esac
exit 0
SH
chmod +x "$T/bin/podman"

for step in info import run; do
	FAKE_FAIL=$step PATH="$T/bin:$PATH" top_srcdir=$top_srcdir \
		top_builddir=$top_builddir \
		timeout 60 sh -c 'exec bash "$top_srcdir/tests/scenario/container.sh"' \
		>"$T/out.$step" 2>"$T/err.$step"
	st=$?
	is "$st" 0 "podman failing at $step: container.sh exits 0"
	plan=$(grep -c '^1\.\.' "$T/out.$step")
	tests=$(grep -cE '^(not )?ok ' "$T/out.$step")
	is "$plan/$tests" "1/0" "podman failing at $step: one plan, no test line"
	grep -q '^1\.\.0 # SKIP podman cannot .*: .*[a-z]' "$T/out.$step"
	ok $? "podman failing at $step: the skip says what failed"
	sed 's/^/#   /' "$T/out.$step" | tail -3
done
grep -q 'not supported' "$T/out.import"
ok $? "a failed import names podman's own error"

tap_end
