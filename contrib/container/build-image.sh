#!/bin/bash
# build-image.sh - the uncored container image, built from the project's
# own Debian package with Debian's tools only (no registry, no base image):
#
#   1. dpkg-buildpackage builds the packages from debian/ (or --deb DIR
#      names a directory that already holds uncored_*.deb);
#   2. mmdebstrap makes a minimal Debian 12 root (variant essential, from
#      the mirror apt uses here) and installs that .deb into it with its
#      dependencies;
#   3. out of that root, only what the daemon needs is copied to the
#      image's root: the package's own files (no man pages, docs or
#      systemd units), the shared libraries uncored is linked with (ldd's
#      closure) and the dynamic loader, /etc/passwd and /etc/group with
#      the package's "uncored" user, and the container's configuration
#      (contrib/container/uncored.conf).  No shell, no package manager, no
#      compiler, no coreutils;
#   4. podman imports that tree as localhost/uncored:VERSION and tags it
#      localhost/uncored:latest.  The entry point is uncored in the
#      foreground, logging to stderr, with the perf backend reading the
#      host's /sys at /host/sys, on :9464, serving the reason where
#      nothing can be counted (uncored.conf(5), unavailable).
#
# Usage (as root: mmdebstrap installs packages, podman stores the image):
#   contrib/container/build-image.sh [--deb DIR] [--tag NAME] [--keep DIR]
#     --deb DIR   use DIR/uncored_*.deb instead of building the packages
#     --tag NAME  image name instead of localhost/uncored
#     --keep DIR  leave the image's root tree in DIR (for inspection)
# Prints the image's name and size on the last line.  Needs: podman,
# mmdebstrap, dpkg-dev and debhelper (the package's build dependencies),
# arch-test is not needed (the host's architecture only).
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
debdir= name=localhost/uncored keep=
while [ $# -gt 0 ]; do
	case $1 in
	--deb) debdir=$2; shift 2 ;;
	--tag) name=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	*) echo "usage: $0 [--deb DIR] [--tag NAME] [--keep DIR]" >&2; exit 64 ;;
	esac
done
for t in podman mmdebstrap dpkg-deb; do
	command -v "$t" >/dev/null ||
		{ echo "build-image: $t is not installed (apt-get install podman mmdebstrap)" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] ||
	{ echo "build-image: run as root (mmdebstrap installs packages into a root tree)" >&2; exit 1; }

T=$(mktemp -d /tmp/uncored-image.XXXXXX)
trap 'rm -rf "$T"' EXIT

say() { echo "build-image: $*" >&2; }

# 1. The package.
if [ -z "$debdir" ]; then
	say "building the Debian packages (dpkg-buildpackage -b)"
	sh "$here/contrib/copy-source.sh" "$here" "$T/pkg/src"
	(cd "$T/pkg/src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
		dpkg-buildpackage -us -uc -b >"$T/pkg/build.log" 2>&1) ||
		{ tail -30 "$T/pkg/build.log" >&2; say "dpkg-buildpackage failed"; exit 1; }
	debdir=$T/pkg
fi
deb=$(ls "$debdir"/uncored_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { say "no uncored_*.deb in $debdir"; exit 1; }
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
version=$(dpkg-deb -f "$deb" Version)
version=${version%-*}	# the upstream version: 0.1.0-1 -> 0.1.0

# 2. A minimal Debian root with the package installed, from the mirror
# and suite apt uses on this machine (deb822 or one-line sources).
mirror= suite=
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	mirror=$(awk '/^URIs:/ { print $2; exit }' "$f")
	suite=$(awk '/^Suites:/ { print $2; exit }' "$f")
	[ -n "$mirror" ] && break
done
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
	read -r mirror suite < <(awk '$1 == "deb" && $2 !~ /^\[/ { print $2, $3; exit }' \
		/etc/apt/sources.list)
fi
[ -n "$mirror" ] || { say "no Debian mirror in /etc/apt/sources.list*"; exit 1; }
suite=${suite:-bookworm}
say "mmdebstrap $suite from $mirror, with $(basename "$deb")"
# The .deb is given by path; the hook makes it visible inside the root.
mmdebstrap --variant=essential --mode=root --format=directory \
	--hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
	--include="$deb" --dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	"$suite" "$T/root" "$mirror" >"$T/mmdebstrap.log" 2>&1 ||
	{ tail -30 "$T/mmdebstrap.log" >&2; say "mmdebstrap failed"; exit 1; }

# 3. The image's root: only what the daemon needs.
R=$T/root O=$T/image
mkdir -p "$O"
# merged /usr, as in the Debian root
for l in bin sbin lib lib64; do
	[ -L "$R/$l" ] && cp -a "$R/$l" "$O/$l"
done
# copy PATH (inside R) to the same place in O, its directories too,
# through merged /usr (/lib64/x -> /usr/lib64/x: O has the same links)
put() {
	_d=$(chroot "$R" realpath "$(dirname "$1")")
	(cd "$R" && cp -a --parents ".${_d%/}/$(basename "$1")" "$O")
}
# The package's files, less what only a systemd host or a reader uses.
chroot "$R" dpkg-query -L uncored | while read -r f; do
	case $f in
	/usr/share/doc/*|/usr/share/man/*|/lib/systemd/*|/usr/lib/systemd/*|\
	/usr/lib/modules-load.d/*|/usr/share/lintian/*|/usr/bin/uncore-sim) continue ;;
	esac
	if [ -f "$R$f" ] || [ -L "$R$f" ]; then put "$f"; fi
done
# The shared libraries (resolved through merged /usr) and the loader;
# libgcc_s, which glibc loads by itself for thread cancellation.
{
	chroot "$R" ldd /usr/sbin/uncored |
		sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p'
	chroot "$R" sh -c 'ls /usr/lib/*/libgcc_s.so.1'
} | sort -u | while read -r lib; do
	real=$(chroot "$R" realpath "$lib")
	put "$real"
	# the soname link where the loader looks for it
	[ "$real" = "$lib" ] || [ -e "$O$lib" ] || put "$lib"
done
# Users: root, and the package's user (created the way sysusers would,
# with a fixed system id: the image has no systemd to run it).
mkdir -p "$O/etc" "$O/tmp" "$O/run" "$O/host/sys"
chmod 1777 "$O/tmp"
cat >"$O/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/usr/sbin/nologin
uncored:x:999:999:uncore performance-monitoring daemon:/:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >"$O/etc/group" <<'EOF'
root:x:0:
uncored:x:999:
nogroup:x:65534:
EOF
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$O/etc/nsswitch.conf"
install -m 0644 "$here/contrib/container/uncored.conf" "$O/etc/uncored/uncored.conf"
# What would make it more than the daemon: none may be there.
for x in /bin/sh /usr/bin/sh /usr/bin/bash /usr/bin/dpkg /usr/bin/apt \
	 /usr/bin/gcc /usr/bin/cc /usr/bin/busybox /usr/bin/ls; do
	if [ -e "$O$x" ]; then say "$x is in the image's root"; exit 1; fi
done
[ -z "$keep" ] || { rm -rf "$keep"; cp -a "$O" "$keep"; }

# 4. The image.
tag=$name:$version
say "podman import -> $tag, $name:latest"
tar -C "$O" --numeric-owner --sort=name -cf - . |
	podman import \
		--change 'ENTRYPOINT ["/usr/sbin/uncored", "--foreground", "--log-format=text", "--control-socket="]' \
		--change 'CMD []' \
		--change 'EXPOSE 9464/tcp' \
		--change 'STOPSIGNAL SIGTERM' \
		--change "LABEL org.opencontainers.image.title=uncored" \
		--change "LABEL org.opencontainers.image.version=$version" \
		--change "LABEL org.opencontainers.image.description=uncore performance-monitoring daemon (perf backend, host /sys at /host/sys)" \
		--message "uncored $version from $(basename "$deb")" \
		- "$tag" >/dev/null
podman tag "$tag" "$name:latest"
size=$(podman image inspect --format '{{.Size}}' "$tag")
echo "$tag $name:latest $size bytes ($(( (size + 524287) / 1048576 )) MiB)"
