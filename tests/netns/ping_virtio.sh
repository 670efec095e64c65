#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# native (driver) mode on virtio_net, the NIC of most cloud VMs: real ping
# and ping -6 answered by XDP on a real driver's XDP_TX. Needs the two
# cabled virtio-net NICs of a tools/vm guest (tools/vm/run.sh --nics, as
# the kernel matrix runs it); skips elsewhere.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  QEMU socket  +-----------------------------+
#  | eth1 10.99.0.1/24   |   (a cable)   | eth0 10.99.0.2/24           |
#  |      fd00:99::1     |---------------|      fd00:99::2             |
#  +---------------------+               | xdpong --mode native: XDP_TX|
#                                        +-----------------------------+
. "$(dirname "$0")/../lib/lib.sh"

COUNT=5

xdpt_require_all
xdpt_topo_nics
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_ping_none "$NS_PING" -4 "$RESP4" 2

xdpt_attach "$NS_RESP" "$IF_RESP" --mode native
xdpt_assert_match "attached to $IF_RESP in native mode" "$XDPT_OUT" "attach message"
xdpt_assert_match 'prog/xdp id' "$(ip -n "$NS_RESP" -d link show dev "$IF_RESP")" \
	"ip -d link shows a driver-mode XDP program"

xdpt_ping_answered native "$COUNT"

xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_assert_no_match 'prog/xdp' "$(ip -n "$NS_RESP" -d link show dev "$IF_RESP")" \
	"no XDP program after detach"
xdpt_pass
