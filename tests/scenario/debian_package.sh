#!/bin/sh
# debian_package.sh - debian/ builds the four packages (dpkg-buildpackage
# -b, the unit tests skipped: the rest of the suite runs them), lintian
# finds no error or warning, and each package holds what it should: the
# daemon's unit enabled, the socket unit not, the config as a conffile,
# the uncored system user, modules-load, man pages naming /etc, the rules
# and the dashboard; uncorectl with its completion, on libuncored0 (the
# shared library, with a symbols file), libuncored-dev the header,
# uncored.pc and the man pages of section 3.  About 25 s on 2 cores.
. "${top_srcdir:-.}/tests/lib.sh"

for t in dpkg-buildpackage dh dpkg-checkbuilddeps; do
	if ! command -v "$t" >/dev/null 2>&1; then
		skip "Debian package" "$t is not installed (apt-get install debhelper)"
		tap_done; exit 0
	fi
done

# A copy of the source without build trees (contrib/copy-source.sh: the
# tracked files of a git checkout, or the unpacked tarball of make
# distcheck less its build dirs), with the revision, as a tarball has.
sh "$top_srcdir/contrib/copy-source.sh" "$top_srcdir" "$T/pkg/src"
read -r want_rev _ <"$T/pkg/src/src/REVISION"
cd "$T/pkg/src" || exit 1
if ! dpkg-checkbuilddeps >"$T/deps" 2>&1; then
	skip "Debian package" "build dependencies missing: $(cat "$T/deps")"
	tap_done; exit 0
fi
start=$(date +%s)
DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc -b \
	>"$T/build.log" 2>&1
rc=$?
is "$rc" 0 "dpkg-buildpackage -us -uc -b succeeds ($(($(date +%s) - start)) s)"
[ "$rc" -eq 0 ] || { tail -30 "$T/build.log" | sed 's/^/# /'; tap_done; exit 1; }
cd "$T/pkg" || exit 1
d=$(ls uncored_*.deb); c=$(ls uncorectl_*.deb)
l=$(ls libuncored0_*.deb); v=$(ls libuncored-dev_*.deb)
ok "$([ -f "$d" ] && [ -f "$c" ] && [ -f "$l" ] && [ -f "$v" ]; echo $?)" \
	"four packages: $d $c $l $v"

if command -v lintian >/dev/null 2>&1; then
	lintian ./*.changes >"$T/lintian" 2>&1
	is "$(grep -c '^[EW]: ' "$T/lintian")" 0 "lintian: no error, no warning"
	grep '^[EW]: ' "$T/lintian" | head -20 | sed 's/^/# /'
else
	skip "lintian" "lintian is not installed"
fi

dpkg-deb -c "$d" | awk '{ print $6 }' | sed 's|^\./|/|' >"$T/d.list"
dpkg-deb -c "$c" | awk '{ print $6 }' | sed 's|^\./|/|' >"$T/c.list"
for f in /usr/sbin/uncored /usr/bin/uncore-sim /etc/uncored/uncored.conf \
	 /lib/systemd/system/uncored.service /lib/systemd/system/uncored.socket \
	 /usr/lib/modules-load.d/uncored-msr.conf /usr/lib/sysusers.d/uncored.conf \
	 /usr/share/man/man8/uncored.8.gz /usr/share/man/man5/uncored.conf.5.gz \
	 /usr/share/man/man1/uncore-sim.1.gz \
	 /usr/share/uncored/prometheus/uncored.rules.yml \
	 /usr/share/uncored/grafana/uncored.json \
	 /usr/share/uncored/workloads/skl-default.json \
	 /usr/share/doc/uncored/monitoring.md; do
	ok "$(grep -qx "$f" "$T/d.list"; echo $?)" "uncored ships $f"
done
for f in /usr/bin/uncorectl /usr/share/bash-completion/completions/uncorectl \
	 /usr/share/man/man1/uncorectl.1.gz; do
	ok "$(grep -qx "$f" "$T/c.list"; echo $?)" "uncorectl ships $f"
done
dpkg-deb -c "$l" | awk '{ print $6 }' | sed 's|^\./|/|' >"$T/l.list"
dpkg-deb -c "$v" | awk '{ print $6 }' | sed 's|^\./|/|' >"$T/v.list"
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
# the file name libtool makes of Makefile.am's -version-info C:R:A:
# libuncored.so.(C-A).A.R
vi=$(sed -n 's/^libuncored_la_LDFLAGS = -version-info \([0-9]*:[0-9]*:[0-9]*\).*/\1/p' \
	"$top_srcdir/Makefile.am")
so=$(echo "$vi" | awk -F: '{ printf "libuncored.so.%d.%d.%d", $1 - $3, $3, $2 }')
ok "$(grep -qx "/usr/lib/$ma/$so" "$T/l.list"; echo $?)" \
	"libuncored0 ships /usr/lib/$ma/$so (-version-info $vi)"
for f in /usr/include/uncored.h /usr/lib/$ma/libuncored.so \
	 /usr/lib/$ma/pkgconfig/uncored.pc /usr/share/man/man3/uncored_read.3.gz \
	 /usr/share/man/man3/uncored_counts_value.3.gz; do
	ok "$(grep -qx "$f" "$T/v.list"; echo $?)" "libuncored-dev ships $f"
done
ok "$(! grep -q '\.la$\|\.a$' "$T/l.list" "$T/v.list"; echo $?)" \
	"no libtool archive, no static library"
dpkg-deb -e "$l" "$T/lctl"
like "$(cat "$T/lctl/symbols" 2>/dev/null)" " uncored_read@LIBUNCORED_0 0.1.0" \
	"libuncored0 carries its symbols file"
like "$(dpkg-deb -f "$c" Depends)" "libuncored0" "uncorectl depends on libuncored0"
ok "$(! grep -q uncorectl "$T/d.list"; echo $?)" "the daemon's package holds no client"
ok "$(! grep -q 'sbin/uncored\|uncore-sim' "$T/c.list"; echo $?)" "the client's package holds no daemon"

dpkg-deb -e "$d" "$T/ctl"
is "$(cat "$T/ctl/conffiles")" /etc/uncored/uncored.conf "the configuration is a conffile"
like "$(cat "$T/ctl/postinst")" "deb-systemd-helper enable 'uncored.service'" \
	"postinst enables uncored.service"
# dh_installsystemd --no-enable: the socket is only re-enabled if the
# administrator had enabled it, and never started.
ok "$(grep -q "debian-installed 'uncored.socket'" "$T/ctl/postinst" &&
      ! grep -q "invoke.*'uncored.socket'" "$T/ctl/postinst"; echo $?)" \
	"and leaves uncored.socket disabled (socket activation is opt-in)"
sysusers_line=$(grep -n 'systemd-sysusers' "$T/ctl/postinst" | head -1 | cut -d: -f1)
start_line=$(grep -n "deb-systemd-invoke" "$T/ctl/postinst" | head -1 | cut -d: -f1)
ok "$([ -n "$sysusers_line" ] && [ -n "$start_line" ] &&
      [ "$sysusers_line" -lt "$start_line" ]; echo $?)" \
	"postinst creates the user (systemd-sysusers) before it starts the unit"
like "$(dpkg-deb -f "$d" Depends)" "systemd" "the daemon depends on systemd-sysusers' provider"

dpkg-deb -x "$d" "$T/root"
dpkg-deb -x "$c" "$T/root"
like "$(cat "$T/root/usr/lib/sysusers.d/uncored.conf")" "u uncored " \
	"sysusers.d creates the system user uncored"
man8=$(gzip -dc "$T/root/usr/share/man/man8/uncored.8.gz")
like "$man8" "/etc/uncored/uncored.conf" "uncored(8) names /etc/uncored/uncored.conf"
ok "$(! printf '%s\n' "$man8" | grep -q '/usr/local\|@[a-z]*@'; echo $?)" \
	"and neither /usr/local nor an unreplaced @placeholder@"
like "$(cat "$T/root/lib/systemd/system/uncored.service")" \
	"ExecStart=/usr/sbin/uncored" "the unit runs /usr/sbin/uncored"
ver=$("$T/root/usr/sbin/uncored" --version)
like "$ver" "revision $want_rev," "the packaged daemon names the revision ($ver)"
ch_date=$(dpkg-parsechangelog -l "$T/pkg/src/debian/changelog" -S Timestamp)
like "$ver" "built $(date -u -d "@$ch_date" +%Y-%m-%dT%H:%M:%SZ)" \
	"and the changelog's date (SOURCE_DATE_EPOCH): reproducible"
out=$("$T/root/usr/sbin/uncored" -n --simulate -c "$T/root/etc/uncored/uncored.conf" 2>&1)
is "$?" 0 "the packaged configuration passes uncored -n ($out)"
dpkg-deb -x "$l" "$T/root"
like "$(LD_LIBRARY_PATH="$T/root/usr/lib/$ma" "$T/root/usr/bin/uncorectl" --version)" \
	"uncorectl" "the packaged uncorectl runs, on the packaged libuncored.so.0"
tap_done
