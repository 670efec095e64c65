#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print xdpong's version: the top entry of debian/changelog, the one place
# it is written. The Makefile's VERSION (so `xdpong --version`, the
# metrics' xdpong_build_info and the run's owner record), deploy/build-image.sh's
# image tag and the tests all read it from here; `make deb DEB_VERSION=V`
# builds another version by adding an entry to a copy's changelog.
#
# The first line of a Debian changelog is "xdpong (VERSION) DIST; urgency=U"
# (deb-changelog(5)): sed reads it, so neither the build nor the tests need
# dpkg-dev.
#
# Usage: tools/version.sh
set -eu

changelog=$(dirname "$0")/../debian/changelog
version=$(sed -n '1s/^xdpong (\([^() ]*\)) .*/\1/p' "$changelog" 2>/dev/null || true)
if [ -z "$version" ]; then
	echo "tools/version.sh: no 'xdpong (VERSION) ...' on the first line of $changelog" >&2
	exit 1
fi
printf '%s\n' "$version"
