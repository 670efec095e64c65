#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# An IPv4 echo request with options (ping -R: record route, RFC 791 3.1)
# is left to the kernel, which must echo the options back (RFC 1122
# 3.2.2.6); XDP passes it as pass_ip_options and never answers it.
#
#   ns ping                               ns resp
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  | ping -R             |             | xdpong skb                   |
#  +---------------------+             | kernel echo off, then on     |
#                                      +------------------------------+
. "$(dirname "$0")/../lib/lib.sh"

COUNT=3

xdpt_require_all
xdpt_topo_veth
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb

xdpt_log "kernel echo off: XDP does not answer pings with options"
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_ping_none "$NS_PING" -4 "$RESP4" "$COUNT" -R
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get opt pass_ip_options
xdpt_get rep replied
xdpt_assert_eq "$COUNT" "$opt" "pass_ip_options after $COUNT ping -R"
xdpt_assert_eq 0 "$rep" "replied"

xdpt_log "kernel echo on: the kernel answers, with the recorded route"
xdpt_kernel_echo_ignore "$NS_RESP" 0
xdpt_ping_all "$NS_PING" -4 "$RESP4" "$COUNT" -R
xdpt_assert_match '^RR:' "$XDPT_PING_OUT" "ping -R prints the recorded route"
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get opt pass_ip_options
xdpt_get rep replied
xdpt_assert_eq $((2 * COUNT)) "$opt" "pass_ip_options"
xdpt_assert_eq 0 "$rep" "replied: XDP answered no packet with options"
xdpt_assert_consistent

xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
