#!/bin/sh
# copy-source.sh SRCDIR DESTDIR - copies uncored's source tree to DESTDIR
# (made if missing) for a package build, from a tree in any state:
#  - a git checkout: the files git tracks and the untracked ones it does
#    not ignore;
#  - anything else (a release tarball, configured and built in place or
#    not, make distcheck's unpacked tree): every file but the build
#    directories beside the sources (each holds a config.status;
#    build-aux/, which configure needs, is not one of them), autom4te's
#    cache and distcheck's _build and _inst.  A tree configured in place
#    comes along as it is: debian/rules' clean runs its distclean.
# Then writes DESTDIR/src/REVISION (the copy has no .git).
# Used by contrib/container/build-image.sh and tests/scenario/debian_package.sh.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 SRCDIR DESTDIR" >&2; exit 64; }
src=$1 dest=$2
mkdir -p "$dest"
if [ -e "$src/.git" ] && command -v git >/dev/null 2>&1; then
	(cd "$src" && git ls-files -co --exclude-standard -z |
		xargs -0 tar -cf - --no-recursion) | tar -C "$dest" -xf -
else
	ex=
	for d in "$src"/*/config.status; do
		[ -f "$d" ] || continue
		d=${d%/config.status}
		ex="$ex --exclude=./${d##*/}"
	done
	# shellcheck disable=SC2086 # ex: one word an option, no blanks
	tar -C "$src" $ex --exclude=./autom4te.cache --exclude=./_build \
		--exclude=./_inst -cf - . | tar -C "$dest" -xf -
fi
sh "$src/src/build-info.sh" -r "$src" "$dest/src/REVISION"
