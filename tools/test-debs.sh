#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The two packages the tests install: the tree's version and a newer build
# of the same tree (VERSION+vmtest1, for upgrades), built with `make deb`
# once per state of the tree and reused by every test that asks
# (tests/install/deb.sh, tests/vm/systemd/host.sh on each kernel): two
# package builds where there were six.
#
# Usage: tools/test-debs.sh      (from anywhere)
# Prints the directory that holds xdpong_VERSION_*.deb and
# xdpong_VERSION+vmtest1_*.deb with their .changes (build/vm-systemd/debs),
# keyed by a hash of the committed tree, its uncommitted changes and the
# files git does not know yet. Exit 1, with the build's tail, if a build fails.
set -u
cd "$(dirname "$0")/.." || exit 1

DEBS=build/vm-systemd/debs
OLD=$(tools/version.sh) || { echo "test-debs.sh: no version (tools/version.sh)" >&2; exit 1; }
NEW=$OLD+vmtest1
key=$({
	git rev-parse HEAD^{tree}
	git diff HEAD
	git ls-files -o --exclude-standard -z | xargs -0 -r sha256sum
} 2>/dev/null | sha256sum | cut -c1-16)
mkdir -p build/vm-systemd || exit 1
# Another test may be building them now: one builds, the other waits.
exec 9>build/vm-systemd/.lock
flock -w 900 9 || { echo "test-debs.sh: another run holds build/vm-systemd/.lock" >&2; exit 1; }
if [ "$(cat "$DEBS/key" 2>/dev/null)" != "$key" ] ||
	! ls "$DEBS"/xdpong_"$OLD"_*.deb "$DEBS"/xdpong_"$NEW"_*.deb >/dev/null 2>&1; then
	rm -rf "$DEBS"
	mkdir -p "$DEBS" || exit 1
	for v in "$OLD" "$NEW"; do
		make --no-print-directory -s deb DEB_VERSION="$v" DEB_OUT="$DEBS" \
			BUILD=build/vm-systemd/build >"$DEBS/make-$v.log" 2>&1 || {
			tail -n 30 "$DEBS/make-$v.log" >&2
			echo "test-debs.sh: make deb DEB_VERSION=$v failed" >&2
			exit 1
		}
	done
	echo "$key" >"$DEBS/key"
	echo "test-debs.sh: built $(cd "$DEBS" && ls xdpong_*.deb | tr '\n' ' ')" >&2
else
	echo "test-debs.sh: reused (same tree): $(cd "$DEBS" && ls xdpong_*.deb | tr '\n' ' ')" >&2
fi
echo "$PWD/$DEBS"
