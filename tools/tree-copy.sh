#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Copy the tree as it is now into DEST (made anew): in a git checkout, the
# committed files, then what the working tree changed (modified and new
# files not ignored; deleted ones removed); elsewhere (a copy this script
# made), everything but the build directory EXCLUDE. tools/deb.sh builds
# the package from such a copy, tools/vm/trixie-build.sh the trixie build.
#
# Usage: tools/tree-copy.sh DEST [EXCLUDE]      (from the tree's top)
set -euo pipefail
dest=${1:?usage: tools/tree-copy.sh DEST [EXCLUDE]}
exclude=${2:-build}

rm -rf "$dest"
mkdir -p "$dest"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git archive HEAD | tar -x -C "$dest"
	git ls-files -m -o --exclude-standard -z | while IFS= read -r -d '' f; do
		if [ -e "$f" ]; then
			mkdir -p "$dest/$(dirname "$f")"
			cp -a "$f" "$dest/$f"
		else
			rm -f "$dest/$f"
		fi
	done
else
	tar -c --exclude="./${exclude#./}" -f - . | tar -x -C "$dest"
fi
