#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The core suite inside Debian 13's own kernel (6.12), booted under QEMU by
# tools/vm/matrix.sh on this machine's userland and build (tests/README.md
# says which tests make the core suite, and why), then probe/netem (the
# machine's own kernel may have no netem, and Debian's kernels all do) and
# probe/oneway (it needs a synchronised clock, which a guest may claim).
# xdpt-timeout: 1500
# xdpt-parallel: yes
exec "$(dirname "$0")/../../tools/vm/matrix.sh" --kernels 6.12 --also "probe/netem probe/oneway"
