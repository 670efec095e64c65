# SPDX-License-Identifier: GPL-2.0
# The Debian package (debian/), included by the Makefile:
#   make deb                          build/deb/xdpong_VERSION_amd64.deb
#   make deb DEB_VERSION=0.1.1        the same tree as version 0.1.1
#   make deb DEB_OUT=/tmp/debs        the .deb, .buildinfo, .changes there
# tools/deb.sh builds it with dpkg-buildpackage in a copy of the tree
# (build/deb/src/); tests/install/deb.sh checks it, lintian included.

.PHONY: deb

deb:
	$(Q)BUILD="$(BUILD)" DEB_VERSION="$(DEB_VERSION)" DEB_OUT="$(DEB_OUT)" tools/deb.sh
