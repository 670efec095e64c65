#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ping_skb.sh on a veth pair at MTU 9000 (generic XDP).
XDPT_MTU=9000 exec bash "$(dirname "$0")/ping_skb.sh"
