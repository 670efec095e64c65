#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# skb (generic) mode: real ping and ping -6 answered by XDP alone.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  |        fd00:99::1   |             |        fd00:99::2            |
#  +---------------------+             |  xdpong --mode skb: XDP_TX   |
#                                      +------------------------------+
#
# The responder's kernel ignores every echo request (icmp echo_ignore_all),
# so an answer can only come from xdpong; its counters must show exactly
# the answered pings.
. "$(dirname "$0")/../lib/lib.sh"

COUNT=5

xdpt_require_all
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_log "kernel echo off in $NS_RESP: nothing answers without xdpong"
xdpt_ping_none "$NS_PING" -4 "$RESP4" 2
xdpt_ping_none "$NS_PING" -6 "$RESP6" 2

xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb
xdpt_assert_match "attached to $IF_RESP in skb mode" "$XDPT_OUT" "attach message"
xdpt_assert_match 'xdpgeneric' "$(ip -n "$NS_RESP" -d link show dev "$IF_RESP")" \
	"ip -d link shows a generic XDP program"

xdpt_ping_answered skb "$COUNT"
xdpt_get rep replied
xdpt_assert_eq $((2 * COUNT)) "$rep" "replied"

xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
