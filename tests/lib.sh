# tests/lib.sh - TAP helpers for the shell scenario tests.
#
# Source it, call the checks, end with `tap_done`.  Each test gets its own
# scratch directory ($T), removed on exit; servers a test starts are
# registered with `tap_cleanup_pid` and killed on exit.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
T=$(mktemp -d "${TMPDIR:-/tmp}/uncored-test.XXXXXX")
_tap_n=0
_tap_failed=0
_tap_pids=

tap_cleanup_pid() { _tap_pids="$_tap_pids $1"; }

_tap_exit() {
	for p in $_tap_pids; do kill "$p" 2>/dev/null; done
	for p in $_tap_pids; do wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap _tap_exit EXIT

ok() { # ok CONDITION-STATUS DESCRIPTION
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		_tap_failed=$((_tap_failed + 1))
	fi
}

is() { # is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then ok 0 "$3"; else
		ok 1 "$3"; echo "#   got:  '$1'"; echo "#   want: '$2'"; fi
}

like() { # like TEXT SUBSTRING DESCRIPTION
	case $1 in
	*"$2"*) ok 0 "$3" ;;
	*) ok 1 "$3"; echo "#   '$1'" | head -20; echo "#   does not contain '$2'" ;;
	esac
}

near() { # near GOT WANT RELERR DESCRIPTION  (floating point, via awk)
	if awk -v g="$1" -v w="$2" -v e="$3" 'BEGIN { d = g - w; if (d < 0) d = -d;
	    a = w < 0 ? -w : w; exit !(d <= e * a) }'; then ok 0 "$4"
	else ok 1 "$4"; echo "#   got $1, want $2 +- $3 (relative)"; fi
}

skip() { # skip DESCRIPTION REASON
	_tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"
}

tap_done() {
	echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
}
