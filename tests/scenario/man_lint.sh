#!/bin/sh
# man_lint.sh - every man page in doc/ formats without a warning, checked
# the way lintian's groff-message check formats it (lintian's
# checks/documentation/manual.pm: man --warnings -E UTF-8 -l -Tutf8 -Z
# with MANWIDTH=80), at 80 columns and at the narrower and wider widths a
# terminal may have.  lintian runs only in debian_package.sh, on a built
# package; this finds the same warnings in seconds, and on every width
# (a CSV header that cannot be adjusted at 80 columns, seen in CI).
# A page that is only a .so link to another is formatted through it.
. "${top_srcdir:-.}/tests/lib.sh"

if ! command -v man >/dev/null 2>&1 || ! command -v groff >/dev/null 2>&1; then
	skip "man pages format without warnings" "man or groff not installed"
	tap_done
	exit $?
fi

n=0
for page in "$top_srcdir"/doc/*.[1-8]; do
	n=$((n + 1))
	name=$(basename "$page")
	# a .so page: format its target, as man would from the installed tree
	src=$page
	if head -1 "$page" | grep -q '^\.so '; then
		src="$top_srcdir/doc/$(basename "$(head -1 "$page" | cut -d' ' -f2)")"
		is "$([ -f "$src" ]; echo $?)" 0 "$name: .so names an existing page ($(basename "$src"))"
		continue
	fi
	warn=
	for w in 60 80 120; do
		out=$(cd "$T" && LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=$w \
			man --warnings -E UTF-8 -l -Tutf8 -Z "$src" 2>&1 >/dev/null)
		[ -n "$out" ] && warn="$warn
width $w: $out"
	done
	is "$warn" "" "$name formats without a warning at 60, 80 and 120 columns"
done
ok "$([ "$n" -ge 10 ]; echo $?)" "$n man pages checked"
tap_done
