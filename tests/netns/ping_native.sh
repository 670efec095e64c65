#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# native (driver) mode on a veth: real ping and ping -6 answered by XDP.
#
#   ns ping                                 ns resp (kernel echo off)
#  +-----------------------+  veth pair  +-------------------------------+
#  | xp<id> 10.99.0.1/24   |-------------| xr<id> 10.99.0.2/24           |
#  |        fd00:99::1     |             |        fd00:99::2             |
#  | xdp_pass (native)     |             | xdpong --mode native: XDP_TX  |
#  +-----------------------+             +-------------------------------+
#
# A veth delivers native XDP_TX frames only to a peer that runs XDP itself,
# so the pinger's side gets tools/xdp_pass.bpf.c in driver mode.
. "$(dirname "$0")/../lib/lib.sh"

COUNT=5

xdpt_require_all
# Native XDP above a page-sized MTU needs a frags-aware program.
[ "${XDPT_MTU:-1500}" -gt 3500 ] && xdpt_require_feature frags "native XDP at MTU $XDPT_MTU"
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_peer_xdp_pass
xdpt_ping_none "$NS_PING" -4 "$RESP4" 2

xdpt_attach "$NS_RESP" "$IF_RESP" --mode native
xdpt_assert_match "attached to $IF_RESP in native mode" "$XDPT_OUT" "attach message"
link=$(ip -n "$NS_RESP" -d link show dev "$IF_RESP")
xdpt_assert_match 'prog/xdp id' "$link" "ip -d link shows a driver-mode XDP program"
xdpt_assert_no_match 'xdpgeneric' "$link" "no generic XDP program"

xdpt_ping_answered native "$COUNT"

# auto mode picks native when the peer has XDP (after a detach: a takeover
# keeps the mode it finds).
xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_attach "$NS_RESP" "$IF_RESP"
xdpt_assert_match "attached to $IF_RESP in native mode" "$XDPT_OUT" "auto mode with an XDP peer"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq 2 "$r4" "reply_echo4 of the new program"
# A plain attach over it takes over in native mode and keeps the count.
xdpt_attach "$NS_RESP" "$IF_RESP"
xdpt_assert_match "attached to $IF_RESP in native mode" "$XDPT_OUT" "takeover in native mode"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq 4 "$r4" "reply_echo4 carried over by the takeover"

xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
