#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# xdp_tap.sh at MTU 9000: the frags-aware program attaches natively
# to a TAP with jumbo frames and answers MTU-sized (9000-byte) requests.
XDPT_MTU=9000 exec bash "$(dirname "$0")/xdp_tun.sh" tap
