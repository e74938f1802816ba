#!/bin/sh
# copy_source.sh - contrib/copy-source.sh, which build-image.sh and
# debian_package.sh copy the sources with, from a tree that is no git
# checkout (a release tarball configured and built in place): build-aux/
# comes along (configure and debian/rules' clean need it: issue 38, a
# pattern ./build* once dropped it and dpkg-buildpackage failed in
# clean), the build directories beside the sources do not, and the copy
# gets src/REVISION.
. "${top_srcdir:-.}/tests/lib.sh"

R=$T/rel
mkdir -p "$R/src" "$R/build-aux" "$R/build" "$R/build-asan" "$R/obj" \
	"$R/_build" "$R/autom4te.cache" "$R/debian" "$R/buildtools"
cp "$top_srcdir/src/build-info.sh" "$R/src/"
printf 'r1234567 2026-01-01\n' >"$R/src/REVISION"
: >"$R/build-aux/install-sh"
: >"$R/build-aux/ltmain.sh"
: >"$R/build/config.status"
: >"$R/build-asan/config.status"
: >"$R/obj/config.status"	# a build dir by any name
: >"$R/buildtools/keep.sh"	# a source dir whose name starts with build
: >"$R/config.status"		# configured in place: kept
: >"$R/Makefile"
: >"$R/debian/rules"

sh "$top_srcdir/contrib/copy-source.sh" "$R" "$T/out" 2>"$T/err"
ok $? "copy-source.sh ran"
got=$(cd "$T/out" && find . -type f | sort | tr '\n' ' ')
is "$got" "./Makefile ./build-aux/install-sh ./build-aux/ltmain.sh ./buildtools/keep.sh ./config.status ./debian/rules ./src/REVISION ./src/build-info.sh " \
	"build-aux/ and sources kept, build directories, _build and autom4te.cache left out"
grep -q . "$T/out/src/REVISION"
ok $? "the copy has src/REVISION"

sh "$top_srcdir/contrib/copy-source.sh" "$R" 2>"$T/err"
is "$?" 64 "a missing argument is a usage error"

tap_end
