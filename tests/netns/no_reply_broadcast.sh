#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Broadcast pings get no reply from XDP: the kernel ignores them too
# (icmp_echo_ignore_broadcasts, RFC 1122 3.2.2.6 leaves it to the host).
#
#   ns ping                                  ns resp (kernel echo ON,
#  +------------------------+  veth pair  +-- echo_ignore_broadcasts=1) --+
#  | xp<id> 10.99.0.1/25    |-------------| xr<id> 10.99.0.2/24            |
#  |  10.99.0.255 via .2    |             | xdpong --mode skb              |
#  +------------------------+             +--------------------------------+
#
# 1. ping -b 10.99.0.255 and 255.255.255.255: broadcast MAC, passed as
#    pass_l2_group before any IP rule is looked at.
# 2. 10.99.0.255 with a unicast MAC: the pinger sees a /25 (so .255 is not
#    its broadcast) and routes it via the responder, for which it is the
#    subnet broadcast: not an address xdpong answers for, pass_dst_not_local.
# Kernel echo stays on, so any reply would have to be wrong.
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 0
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb

reasons()
{
	xdpt_stats "$NS_RESP" "$IF_RESP"
	xdpt_get l2 pass_l2_group
	xdpt_get grp pass_dst_group
	xdpt_get nl pass_dst_not_local
	xdpt_get rep replied
}

reasons
l2_0=$l2 grp_0=$grp nl_0=$nl rep_0=$rep
for dst in "$NET4_BCAST" 255.255.255.255; do
	xdpt_log "ping -b $dst"
	xdpt_ping_none "$NS_PING" -4 "$dst" 3 -b -I "$IF_PING"
done
reasons
xdpt_assert_eq "$rep_0" "$rep" "replied after broadcast pings"
xdpt_assert_ge 6 $((l2 - l2_0 + grp - grp_0 + nl - nl_0)) \
	"pass_l2_group + pass_dst_group + pass_dst_not_local growth after 6 broadcast pings"
xdpt_assert_ge $((l2_0 + 6)) "$l2" "pass_l2_group (broadcast MAC)"

xdpt_log "10.99.0.255 with the responder's unicast MAC"
ip -n "$NS_PING" addr del "$PING4/24" dev "$IF_PING"
ip -n "$NS_PING" addr add "$PING4/25" dev "$IF_PING"
ip -n "$NS_PING" route add "$NET4_BCAST/32" via "$RESP4" dev "$IF_PING" ||
	xdpt_fail "cannot route $NET4_BCAST via $RESP4"
l2_0=$l2 nl_0=$nl
xdpt_ping_none "$NS_PING" -4 "$NET4_BCAST" 3
reasons
xdpt_assert_eq "$rep_0" "$rep" "replied after unicast-MAC broadcast pings"
xdpt_assert_eq $((nl_0 + 3)) "$nl" "pass_dst_not_local after 3 pings to the subnet broadcast"

xdpt_log "unicast pings are still answered, by XDP"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
reasons
xdpt_assert_eq $((rep_0 + 2)) "$rep" "replied for unicast pings"
xdpt_assert_consistent

xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
