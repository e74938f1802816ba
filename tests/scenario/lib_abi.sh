#!/bin/bash
# lib_abi.sh - libuncored's ABI against the one checked in: abidiff
# (abigail-tools) compares the built libuncored.so.0 with
# src/lib/libuncored.abi, counting every change it reports, the
# "harmless" ones too (a parameter's type changed to one of the same
# size is one), so that no change to the library's interface goes in
# unseen.  A change meant to be made: `make abi-dump`, a new version node
# in src/lib/libuncored.map for added functions, and the same in
# debian/libuncored0.symbols - which must list exactly the exported
# symbols - and libtool's -version-info in Makefile.am (the rules are
# beside it): the soname stays libuncored.so.0, the file is named by the
# version, and each node of the map after the first came with an age.
. "${top_srcdir:-.}/tests/lib.sh"

lib=$(readlink -f "$top_builddir/.libs/libuncored.so.0")
ok "$([ -f "$lib" ]; echo $?)" "the built library ($lib)"
exported=$(nm -D --defined-only --with-symbol-versions "$lib" |
	awk '$2 == "T" { print $3 } $2 == "A" { print $3 "@" $3 }' |
	sed 's/@@/@/' | sort)
listed=$(sed -n 's/^ \([^ ]*\) .*/\1/p' "$top_srcdir/debian/libuncored0.symbols" | sort)
is "$exported" "$listed" "debian/libuncored0.symbols lists exactly the exported symbols"
read -r cur rev age <<<"$(sed -n 's/.*-version-info \([0-9]*\):\([0-9]*\):\([0-9]*\).*/\1 \2 \3/p' "$top_srcdir/Makefile.am")"
is "$(readelf -d "$lib" | sed -n 's/.*soname: \[\(.*\)\]/\1/p')" libuncored.so.0 \
	"soname libuncored.so.0: no interface removed or changed (-version-info $cur:$rev:$age)"
is "${lib##*/}" "libuncored.so.$((cur - age)).$age.$rev" \
	"the built file is named by -version-info $cur:$rev:$age"
nodes=$(grep -c '^LIBUNCORED_[0-9.]* {' "$top_srcdir/src/lib/libuncored.map")
is "$age" "$((nodes - 1))" "an age for each version node of libuncored.map after the first ($nodes nodes): added functions came with current + 1, age + 1"
if ! command -v abidiff >/dev/null; then
	if [ "${CI:-}" = true ]; then
		ok 1 "abidiff is installed (apt-get install abigail-tools)"
	else
		skip "ABI check" "abidiff is not installed (apt-get install abigail-tools)"
	fi
	tap_done; exit 0
fi
abidiff --harmless --headers-dir2 "$top_srcdir/include" \
	"$top_srcdir/src/lib/libuncored.abi" "$lib" >"$T/diff" 2>&1
rc=$?
sed 's/^/# /' "$T/diff" | head -40
is "$rc" 0 "abidiff: no ABI change against src/lib/libuncored.abi"
changes=$(sed -n 's/^\(Functions\|Variables\) changes summary: \([0-9]*\) Removed, \([0-9]*\) Changed.*, \([0-9]*\) Added.*/\2 \3 \4/p' "$T/diff" |
	awk '{ s += $1 + $2 + $3 } END { print s + 0 }')
is "$changes" 0 "and no change at all, harmless or added (if meant: make abi-dump)"
tap_done
