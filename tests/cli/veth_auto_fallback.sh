#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# auto mode (the default) on a veth whose peer runs no native XDP: native
# XDP_TX would be dropped, so attach uses skb mode and says so; pings are
# answered.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  | (no XDP)            |             | xdpong (auto -> skb)         |
#  +---------------------+             +------------------------------+
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1

for args in "" "--mode auto"; do
	# shellcheck disable=SC2086 # split on purpose
	xdpt_ok --ns "$NS_RESP" "$XDPONG" attach "$IF_RESP" $args
	xdpt_assert_match "$IF_RESP: veth peer $IF_PING has no native XDP program.*using skb mode" \
		"$XDPT_ERR" "attach $args says it falls back"
	xdpt_assert_match "attached to $IF_RESP in skb mode" "$XDPT_OUT" "attach $args"
	xdpt_log "$XDPT_ERR"
	xdpt_assert_match 'xdpgeneric' "$(ip -n "$NS_RESP" -d link show dev "$IF_RESP")" \
		"generic XDP on $IF_RESP"
	xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
	xdpt_ping_all "$NS_PING" -6 "$RESP6" 2
	xdpt_counter rep "$NS_RESP" "$IF_RESP" replied
	xdpt_assert_eq 4 "$rep" "replied after attach $args"
	xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
done
xdpt_pass
