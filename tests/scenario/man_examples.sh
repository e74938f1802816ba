#!/bin/bash
# man_examples.sh - the EXAMPLES of the library's man pages compile: every
# whole program (one with a main()) in an EXAMPLES section of
# doc/uncored_*.3 is taken out of its .nf/.fi block, its roff escapes
# undone (\e, \-), and built against include/uncored.h and the built
# libuncored with -Wall -Werror, as the pages say to build them.  uncored_claim_formulas(3)'s then runs
# against the simulated hsx: its formulas' values must print.  A man page
# with an EXAMPLES section and no whole program is fine (a fragment);
# the two pages named below must have one.
. "${top_srcdir:-.}/tests/lib.sh"

command -v cc >/dev/null || { skip "man page examples" "no cc"; tap_done; exit 0; }
LIB="$top_builddir/.libs"
n=0
for man in "$top_srcdir"/doc/uncored_*.3; do
	page=$(basename "$man" .3)
	awk '/^\.SH EXAMPLES/ { ex = 1; next } /^\.SH / { ex = 0 }
	     ex && /^\.nf/ { inb = 1; buf = ""; next }
	     ex && /^\.fi/ { if (buf ~ /int main\(/) printf "%s", buf; inb = 0; next }
	     ex && inb { buf = buf $0 "\n" }' "$man" |
		sed -e 's/\\e/\\/g' -e 's/\\-/-/g' >"$T/$page.c"
	[ -s "$T/$page.c" ] || continue
	n=$((n + 1))
	# as the pages say to build them: cc prog.c $(pkg-config ...), the
	# compiler's default C (usleep() is no C11)
	cc -Wall -Werror ${SAN_CFLAGS:-} -I"$top_srcdir/include" \
		"$T/$page.c" -o "$T/$page" -L"$LIB" -luncored -lm \
		>"$T/$page.log" 2>&1
	ok $? "$page(3)'s example compiles and links"
	[ -x "$T/$page" ] || sed 's/^/# /' "$T/$page.log"
done
for want in uncored_claim uncored_claim_formulas; do
	ok "$([ -s "$T/$want.c" ]; echo $?)" "$want(3) has a whole program in EXAMPLES"
done
ok "$([ "$n" -ge 2 ]; echo $?)" "$n examples built"

# the formulas' example against the simulated hsx
chmod 711 "$T"
PORT=$(pick_port)
start_uncored "$T/log" --simulate=hsx -l "127.0.0.1:$PORT" -s "$T/ctl.sock"
ok $? "daemon up on the simulated hsx"
out=$(UNCORED_SOCKET="$T/ctl.sock" LD_LIBRARY_PATH="$LIB" \
	timeout 30 "$T/uncored_claim_formulas" 2>&1); rc=$?
is "$rc" 0 "uncored_claim_formulas(3)'s example runs"
like "$out" "socket 1 ha/PCT_RD_REQUESTS: 0.71428" "and prints a formula's value and unit (ratio)"
like "$out" "socket 0 memory_bandwidth_total: " "and the bandwidth"
like "$out" " bytes_per_second" "in bytes per second"
kill "$UPID"; wait "$UPID" 2>/dev/null
tap_done
