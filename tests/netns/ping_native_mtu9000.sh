#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ping_native.sh on a veth pair at MTU 9000: a program that is not
# frags-aware cannot attach natively there; xdpong (xdp.frags) can.
XDPT_MTU=9000 exec bash "$(dirname "$0")/ping_native.sh"
