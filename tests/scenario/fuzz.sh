#!/bin/bash
# fuzz.sh - the parsers under libFuzzer for a fixed number of cases: the
# configuration (conf_load), simulator workloads (wl_parse), claim
# bodies (claims_create/renew on the simulated hsx), raw HTTP
# requests (the http module on a control socket), the exporters' web
# config (webcfg_load; one YAML document only), the perf backend's
# sysfs texts (format/ fields, cpulists, event terms) and what libuncored
# reads from a daemon (HTTP responses and their JSON, src/lib/lproto.c).  The targets are
# tests/fuzz/fuzz_*.c, built by tests/fuzz/fuzz.mk with clang and
# libFuzzer (Debian: clang, libclang-rt-14-dev) under ASan/UBSan, from
# the seed corpus in tests/fuzz/corpus/; a fixed seed makes a run
# repeatable.  FUZZ_RUNS scales the case counts (default 1).
. "${top_srcdir:-.}/tests/lib.sh"

if ! command -v clang >/dev/null ||
   ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
	skip "fuzz targets" "clang with libFuzzer (clang, libclang-rt-14-dev) not installed"
	tap_done
	exit 0
fi
B="$top_builddir/fuzz"
make -s -f "$top_srcdir/tests/fuzz/fuzz.mk" SRC="$top_srcdir" BUILD="$top_builddir" \
	B="$B" -j2 >"$T/build.log" 2>&1
rc=$?
ok $rc "fuzz targets built with clang -fsanitize=fuzzer,address,undefined"
[ "$rc" = 0 ] || tail -30 "$T/build.log" | sed 's/^/# /'
scale=${FUZZ_RUNS:-1}
for t in conf:20000 workload:20000 claim:20000 http:1500 perf_format:20000 \
	 response:20000 webcfg:20000; do
	name=${t%%:*}; runs=$(( ${t#*:} * scale ))
	mkdir -p "$T/new-$name"
	# new inputs go to the scratch directory; the seeds are only read
	"$B/fuzz_$name" -runs="$runs" -seed=1 -max_len=4096 -timeout=40 \
		"$T/new-$name" "$top_srcdir/tests/fuzz/corpus/$name" >"$T/$name.log" 2>&1
	rc=$?
	done_n=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$T/$name.log")
	seeds=$(ls "$top_srcdir/tests/fuzz/corpus/$name" | wc -l)
	is "$rc:$done_n" "0:$runs" "fuzz_$name: $runs cases from $seeds seeds, no crash, leak or sanitizer report"
	[ "$rc" = 0 ] || tail -30 "$T/$name.log" | sed 's/^/# /'
done
tap_done
