#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian package and its units under real systemd, on Debian 13's own
# kernel (6.12): tests/vm/systemd/suite.sh in tools/vm/systemd-guest.sh's
# guest (install, kill -9, restart, reload and upgrade under a ping
# stream, watchdog, stop, the multi-interface unit, remove and purge).
# xdpt-timeout: 1500
# xdpt-parallel: yes
exec "$(dirname "$0")/systemd/host.sh" 6.12
