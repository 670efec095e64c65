#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build xdpong's Debian package (debian/) from the tree as it is now: the
# committed files plus the working tree's changes (as
# tools/vm/trixie-build.sh copies them) go to BUILD/deb/src/xdpong-VERSION/,
# where `dpkg-buildpackage -b -us -uc` builds it; the .deb, .buildinfo and
# .changes (and xdpong-dbgsym's .deb) end up in DEB_OUT. Nothing is written
# outside the tree (unless DEB_OUT is). The build's log is
# BUILD/deb/src/xdpong_VERSION.log.
#
# Usage: tools/deb.sh            (make deb [DEB_VERSION=V] [DEB_OUT=DIR])
#   DEB_VERSION  build the same tree as version V (default: debian/changelog's,
#                tools/version.sh): the copy's changelog gets an entry for V
#                on top, so `xdpong --version` says V. A test can install a
#                newer build over a running one with it.
#   DEB_OUT      where the .deb, .buildinfo and .changes go (default BUILD/deb)
#   BUILD        the build directory (default build)
# Needs dpkg-dev, debhelper and the Build-Depends of debian/control
# (tools/deps.sh installs them). Prints one line: the version, the time
# and the files.
set -euo pipefail
cd "$(dirname "$0")/.."

die()
{
	echo "deb: $*" >&2
	exit 1
}

BUILD=${BUILD:-build}
base=$(tools/version.sh)
version=${DEB_VERSION:-$base}
# A native package's version: no revision (no '-'), no epoch here.
[[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]] ||
	die "DEB_VERSION '$version': a native version is digits first," \
		"then letters, digits and . + ~"
command -v dpkg-buildpackage >/dev/null || die "no dpkg-buildpackage: run tools/deps.sh (as root)"
mkdir -p "$BUILD/deb/src" "${DEB_OUT:=$BUILD/deb}"
out=$(cd "$DEB_OUT" && pwd)
srcdir=$BUILD/deb/src/xdpong-$version
log=$BUILD/deb/src/xdpong_$version.log

# One build at a time in BUILD/deb: another would remove this one's copy.
exec 9>"$BUILD/deb/.lock"
flock -w 900 9 || die "another make deb has held $BUILD/deb/.lock for 15 minutes"

# The tree as it is now (committed files and the working tree's changes;
# outside a git checkout, all of it but BUILD).
tools/tree-copy.sh "$srcdir" "$BUILD"

if [ "$version" != "$base" ]; then
	# A changelog entry by hand (deb-changelog(5)), in the top entry's
	# distribution and name: the copy's tools/version.sh then says V.
	top=$(head -n 1 debian/changelog)
	dist=$(sed -n '1s/^[^ ]* ([^)]*) \([^;]*\);.*/\1/p' debian/changelog)
	who=$(sed -n 's/^ -- \(.*>\)  .*/\1/p' debian/changelog | head -n 1)
	[ -n "$dist" ] && [ -n "$who" ] || die "cannot read the top entry of debian/changelog: $top"
	{
		printf 'xdpong (%s) %s; urgency=medium\n\n' "$version" "$dist"
		printf '  * Built by make deb DEB_VERSION=%s from the tree of %s.\n\n' \
			"$version" "$base"
		printf ' -- %s  %s\n\n' "$who" "$(date -R)"
		cat debian/changelog
	} >"$srcdir/debian/changelog"
	[ "$(cd "$srcdir" && tools/version.sh)" = "$version" ] ||
		die "the copy's version is not $version"
fi

start=$(date +%s)
# -J: as many jobs as debhelper may run (DEB_BUILD_OPTIONS=parallel=N wins).
# The copy's make must not see this make's variables: BUILD (its clean
# would remove that directory, this copy included) and the rest of what
# the Makefile reads, from the environment or from MAKEFLAGS.
if ! (cd "$srcdir" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u BUILD \
	-u PREFIX -u DESTDIR -u SBINDIR -u MANDIR -u BASHCOMPDIR -u UNITDIR -u EXAMPLEDIR \
	-u V -u CC -u CLANG -u BPFTOOL dpkg-buildpackage -b -us -uc -Jauto) >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	die "dpkg-buildpackage failed (the whole log: $log)"
fi
# The package, its automatic debug symbols (xdpong-dbgsym), .buildinfo and
# .changes: together, as the .changes names them.
shopt -s nullglob
files=()
for f in "$BUILD/deb/src"/xdpong{,-dbgsym}_"$version"_*.{deb,buildinfo,changes}; do
	mv -f "$f" "$out/"
	files+=("$out/$(basename "$f")")
done
for ext in deb buildinfo changes; do
	[ -e "$out/xdpong_${version}_amd64.$ext" ] ||
		die "no xdpong_${version}_amd64.$ext (log: $log)"
done
echo "deb: xdpong $version in $(($(date +%s) - start)) s: ${files[*]}"
