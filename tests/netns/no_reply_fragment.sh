#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A ping too large for the MTU arrives in fragments: xdpong passes every
# fragment (IPv4: pass_fragment; IPv6: the fragment header is an extension
# header, pass_ipv6_ext) and the kernel reassembles and answers
# (RFC 791 3.2, RFC 8200 4.5). XDP never answers a fragment.
#
#   ns ping                               ns resp
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  |   mtu 1500          |             |   mtu 1500, xdpong skb       |
#  | ping -s 3000        |             |   kernel echo off, then on   |
#  +---------------------+             +------------------------------+
. "$(dirname "$0")/../lib/lib.sh"

COUNT=3
SIZE=3000 # 3008 bytes of ICMP: 3 IPv4 fragments at MTU 1500

xdpt_require_all
xdpt_topo_veth
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb
mtu=$(ip -n "$NS_RESP" -j link show dev "$IF_RESP" | jq '.[0].mtu')
xdpt_assert_eq 1500 "$mtu" "responder MTU"

xdpt_log "kernel echo off: fragments are passed, nobody answers"
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_ping_none "$NS_PING" -4 "$RESP4" "$COUNT" -s "$SIZE"
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get frag pass_fragment
xdpt_get rep replied
xdpt_assert_eq $((3 * COUNT)) "$frag" "pass_fragment after $COUNT pings of 3 fragments"
xdpt_assert_eq 0 "$rep" "replied"

xdpt_log "kernel echo on: the kernel reassembles and answers"
xdpt_kernel_echo_ignore "$NS_RESP" 0
xdpt_ping_all "$NS_PING" -4 "$RESP4" "$COUNT" -s "$SIZE"
xdpt_ping_all "$NS_PING" -6 "$RESP6" "$COUNT" -s "$SIZE"
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get frag pass_fragment
xdpt_get ext pass_ipv6_ext
xdpt_get rep replied
xdpt_assert_eq $((6 * COUNT)) "$frag" "pass_fragment after $((2 * COUNT)) fragmented pings"
xdpt_assert_ge $((3 * COUNT)) "$ext" "pass_ipv6_ext (IPv6 fragment headers)"
xdpt_assert_eq 0 "$rep" "replied: XDP answered no fragment"
xdpt_assert_consistent

xdpt_log "a ping that fits is still answered by XDP"
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2 -s 1400
xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq 2 "$r4" "reply_echo4 for 1400-byte pings"

xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
