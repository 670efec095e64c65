#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# xdpong on a TAP device in native mode: xdp_tun.sh's checks with
# Ethernet frames sent to the TAP's own MAC.
exec bash "$(dirname "$0")/xdp_tun.sh" tap
