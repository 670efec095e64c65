#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --host-addrs: answer for the host's addresses on other interfaces too (an
# anycast address on lo), as the kernel does, and follow them.
#  A. Without it, an address on lo is the kernel's business: passed
#     (pass_dst_not_local) and, kernel echo being off, unanswered.
#  B. attach --host-addrs: lo's anycast addresses and the addresses of
#     another interface that is up are answered by XDP, byte-exact
#     (echo_check.py --exact); loopback (127.0.0.1, ::1) and the other
#     interface's link-scope addresses (IPv6 link-local, an IPv4 one given
#     scope link) are not taken.
#  C. run --host-addrs follows them: an address added to lo is answered
#     within 1 s and a removed one no longer; the other interface going down
#     takes its addresses away (IPv4 and IPv6), coming up brings the IPv4
#     one back (the kernel drops static IPv6 addresses on down).
#  D. --host-addrs with --no-iface-addrs is refused, on the command line and
#     in a config file (both in one section); an interface section's
#     choice replaces the global one.
# Not tested here (no vrf module): addresses of an interface in another
# VRF are left out.
#
#   ns ping                                 ns resp (kernel echo off)
#  +------------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24    |-------------| xr<id> 10.99.0.2/24          |
#  |   fd00:99::1/64        |             |   fd00:99::2/64              |
#  | routes to 192.0.2.0/24,|             | lo: 192.0.2.53/32,           |
#  | 198.51.100.0/24 and    |             |     2001:db8:53::53/128      |
#  | 2001:db8:53::/64,      |             | xa<id> 198.51.100.1/24,      |
#  | 2001:db8:54::/64 via   |             |   2001:db8:54::1/64,         |
#  | resp                   |             |   169.254.7.7/16 scope link  |
#  |                        |             |   (a second veth, xb<id>)    |
#  +------------------------+             +------------------------------+
. "$(dirname "$0")/../lib/faults.bash"

CHECK=$XDPT_REPO/tests/netns/echo_check.py
ANY4=192.0.2.53
ANY6=2001:db8:53::53
OTHER4=198.51.100.1
OTHER6=2001:db8:54::1
LINK4=169.254.7.7
IF_A=xa$XDPT_ID
IF_B=xb$XDPT_ID

xdf_require
[ -x /usr/bin/python3 ] || xdpt_skip "needs /usr/bin/python3"
xdpt_topo_veth
xdpt_tmpdir
xdpt_track_pins "$IF_RESP"
xdpt_kernel_echo_ignore "$NS_RESP" 1
ip -n "$NS_RESP" link set lo up
ip -n "$NS_RESP" addr add "$ANY4/32" dev lo
ip -n "$NS_RESP" addr add "$ANY6/128" dev lo
ip -n "$NS_RESP" link add "$IF_A" type veth peer name "$IF_B" ||
	xdpt_fail "cannot create the second veth pair"
ip -n "$NS_RESP" addr add "$OTHER4/24" dev "$IF_A"
ip -n "$NS_RESP" addr add "$OTHER6/64" dev "$IF_A" nodad
ip -n "$NS_RESP" addr add "$LINK4/16" dev "$IF_A" scope link
# No duplicate address detection: the link-local address is usable (and
# so would be taken, were it not left out) as soon as it exists.
xdpt_sysctl "$NS_RESP" "net.ipv6.conf.$IF_A.accept_dad" 0
ip -n "$NS_RESP" link set "$IF_A" up
ip -n "$NS_RESP" link set "$IF_B" up
ip -n "$NS_PING" route add 192.0.2.0/24 via "$RESP4"
ip -n "$NS_PING" route add 198.51.100.0/24 via "$RESP4"
ip -n "$NS_PING" -6 route add 2001:db8:53::/64 via "$RESP6"
ip -n "$NS_PING" -6 route add 2001:db8:54::/64 via "$RESP6"

# exact FAMILY DST: two requests, each reply the one xdpong builds, checked
# byte by byte by the test's own RFC 1071 routine.
exact()
{
	xdpt_run --ns "$NS_PING" /usr/bin/python3 "$CHECK" "$IF_PING" "$2" 56 \
		--family "$1" --count 2 --exact
	if [ "$XDPT_RC" -ne 0 ]; then
		_xdpt_show_run
		xdpt_fail "IPv$1 pings to $2: replies missing or not xdpong's"
	fi
}

xdpt_log "A. without --host-addrs, lo's addresses are the kernel's"
xdf_x_ok "$NS_RESP" attach "$IF_RESP" --mode skb
xdf_answered "$RESP4" || xdpt_fail "$RESP4 (the interface's own) not answered"
xdf_counter before "$NS_RESP" "$IF_RESP" pass_dst_not_local
xdf_unanswered "$ANY4" || xdpt_fail "$ANY4 on lo answered without --host-addrs (kernel echo is off)"
xdf_counter after "$NS_RESP" "$IF_RESP" pass_dst_not_local
xdpt_assert_ge $((before + 1)) "$after" "pass_dst_not_local after pinging lo's $ANY4"
xdf_listed "$ANY4/32" && xdpt_fail "$ANY4/32 listed without --host-addrs: $XDPT_OUT"
xdf_x_ok "$NS_RESP" detach "$IF_RESP"

xdpt_log "B. attach --host-addrs: the host's addresses, byte-exact"
xdf_x_ok "$NS_RESP" attach "$IF_RESP" --mode skb --host-addrs
xdf_counter before "$NS_RESP" "$IF_RESP" replied
exact 4 "$ANY4"
exact 6 "$ANY6"
exact 4 "$OTHER4"
exact 6 "$OTHER6"
xdf_counter after "$NS_RESP" "$IF_RESP" replied
xdpt_assert_eq $((before + 8)) "$after" "replied after 8 pings to lo's and $IF_A's addresses"
for p in "$ANY4/32" "$ANY6/128" "$OTHER4/32" "$OTHER6/128" "$RESP4/32"; do
	xdf_listed "$p" || xdpt_fail "$p not listed with --host-addrs: $XDPT_OUT"
done
for p in 127.0.0.1/32 ::1/128; do
	xdf_listed "$p" && xdpt_fail "loopback $p listed with --host-addrs: $XDPT_OUT"
done
xdf_listed "$LINK4/32" && xdpt_fail "$IF_A's link-scope $LINK4 listed: it is left to the kernel"
link_local()
{
	ip -n "$NS_RESP" -j -6 addr show dev "$IF_A" |
		jq -e -r '[.[0].addr_info[] | select(.scope == "link")][0].local // empty'
}
xdpt_wait 5 link_local >/dev/null || xdpt_fail "$IF_A has no IPv6 link-local address after 5 s"
ll=$(link_local)
xdf_x_ok "$NS_RESP" attach "$IF_RESP" --mode skb --host-addrs # reread: $ll is there now
xdf_listed "$ll/128" && xdpt_fail "$IF_A's link-local $ll listed: it belongs to its link"
xdf_stats "$NS_RESP" "$IF_RESP"
xdpt_assert_consistent
xdf_x_ok "$NS_RESP" detach "$IF_RESP"

xdpt_log "C. run --host-addrs follows the host's addresses and links"
OUT=$XDPT_TMP/run
xdf_run_bg "$NS_RESP" "$OUT" "$IF_RESP" --mode skb --host-addrs
xdf_run_wait_attached "$NS_RESP" "$IF_RESP" 10 ||
	{ cat "$OUT" >&2; xdpt_fail "run did not attach within 10 s"; }
xdf_answered "$ANY4" || xdpt_fail "run --host-addrs: $ANY4 not answered"
xdf_unanswered 192.0.2.54 || xdpt_fail "192.0.2.54 answered before it was added"
ip -n "$NS_RESP" addr add 192.0.2.54/32 dev lo
xdf_within_1s "192.0.2.54 added to lo, answered by XDP" xdf_answered 192.0.2.54
ip -n "$NS_RESP" addr del 192.0.2.54/32 dev lo
xdf_within_1s "192.0.2.54 removed from lo, no longer answered" xdf_unanswered 192.0.2.54
ip -n "$NS_RESP" link set "$IF_A" down
xdf_within_1s "$IF_A down, $OTHER4 no longer answered" xdf_unanswered "$OTHER4"
xdf_within_1s "$IF_A down, $OTHER6 no longer answered" xdf_unanswered "$OTHER6" -6
xdf_listed "$OTHER4/32" && xdpt_fail "$OTHER4/32 still listed while $IF_A is down"
ip -n "$NS_RESP" link set "$IF_A" up
xdf_within_1s "$IF_A up, $OTHER4 answered again" xdf_answered "$OTHER4"
xdf_answered "$RESP4" || xdpt_fail "$RESP4 no longer answered after the changes"
kill -TERM "$XDF_RUN_PID"
xdf_wait_exit "$XDF_RUN_PID" 5 || xdpt_fail "run still running 5 s after SIGTERM"
[ "$XDF_EXIT" = 0 ] || xdpt_fail "run exited $XDF_EXIT on SIGTERM, expected 0: $(cat "$OUT")"

xdpt_log "D. --host-addrs with --no-iface-addrs is refused"
xdf_x_rc 2 "$NS_RESP" attach "$IF_RESP" --host-addrs --no-iface-addrs
xdpt_assert_match "contradict" "$XDPT_ERR" "attach --host-addrs --no-iface-addrs"
xdf_assert_state "$NS_RESP" "$IF_RESP" none "after the refused attach"
printf '[interface %s]\nno-iface-addrs = yes\nhost-addrs = yes\n' "$IF_RESP" \
	>"$XDPT_TMP/both.conf"
xdf_x_rc 1 "$NS_RESP" config check "$XDPT_TMP/both.conf"
xdpt_assert_match "\[interface $IF_RESP\]: .*contradict" "$XDPT_ERR" \
	"config check with both keys in a section"
printf '[global]\nhost-addrs = yes\nno-iface-addrs = yes\n[interface %s]\n' "$IF_RESP" \
	>"$XDPT_TMP/global.conf"
xdf_x_rc 1 "$NS_RESP" config check "$XDPT_TMP/global.conf"
xdpt_assert_match "\[global\]: .*contradict" "$XDPT_ERR" "config check with both keys in [global]"
printf '[interface %s]\nhost-addrs = yes\n' "$IF_RESP" >"$XDPT_TMP/host.conf"
xdf_x_ok "$NS_RESP" config check "$XDPT_TMP/host.conf"
xdpt_assert_match "the host's addresses too" "$XDPT_OUT" "config check with host-addrs"
printf '[global]\nhost-addrs = yes\n[interface %s]\nno-iface-addrs = yes\n[interface %s]\n' \
	"$IF_RESP" "$IF_A" >"$XDPT_TMP/override.conf"
xdf_x_ok "$NS_RESP" config check "$XDPT_TMP/override.conf"
xdpt_assert_match "$IF_RESP .*not its own addresses" "$XDPT_OUT" \
	"an interface's no-iface-addrs replaces the global host-addrs"
xdpt_assert_match "$IF_A .*the host's addresses too" "$XDPT_OUT" \
	"an interface without either key keeps the global host-addrs"
xdf_pass
