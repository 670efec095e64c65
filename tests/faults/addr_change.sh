#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fault: the interface's addresses change under xdpong.
#  A. `xdpong run`: an address added to the interface is answered by XDP
#     within 1 s, a removed one is no longer answered within 1 s (kernel
#     echo is off, so only XDP could answer); operator prefixes (`xdpong
#     addr add`) survive every change, even an interface address of the
#     same value coming and going; SIGHUP restores a deleted interface
#     entry; SIGTERM detaches and removes the pins.
#  B. attach-and-exit: `xdpong addr IFACE add|del|list`.
#
#   ns ping                                  ns resp (kernel echo off)
#  +-------------------------+  veth pair  +-----------------------------+
#  | xp<id> 10.99.0.1/24     |-------------| xr<id> 10.99.0.2/24         |
#  |   fd00:99::1/64         |             |   fd00:99::2/64             |
#  | routes to 192.0.2.0/24, |             | + 10.99.0.77, fd00:99::77,  |
#  | 198.51.100.0/24 and     |             |   10.99.0.88 come and go    |
#  | 2001:db8:5::/48 via resp|             | xdpong run / attach         |
#  +-------------------------+             +-----------------------------+
. "$(dirname "$0")/../lib/faults.bash"

xdf_require
xdpt_topo_veth
xdpt_tmpdir
xdpt_track_pins "$IF_RESP"
xdpt_kernel_echo_ignore "$NS_RESP" 1
MAC=$(xdf_mac "$NS_RESP" "$IF_RESP")
ip -n "$NS_PING" route add 192.0.2.0/24 via "$RESP4"
ip -n "$NS_PING" route add 198.51.100.0/24 via "$RESP4"
ip -n "$NS_PING" -6 route add 2001:db8:5::/48 via "$RESP6"
# .88 is not always the kernel's: a static neighbour, so ARP never decides.
ip -n "$NS_PING" neigh replace 10.99.0.88 lladdr "$MAC" dev "$IF_PING"

# own_listed ADDR: IPv4 ADDR is in the program's live exact list of
# interface addresses (.bss own_addrs, beside the trie; include/xdpong.h).
own_listed()
{
	bpftool -j map dump pinned "$XDPT_PIN_ROOT/$IF_RESP/bss" | jq -e --arg a "$1" '
		.[0].formatted.value[".bss"] as $b |
		($b | map(.own_addrs_cur // empty)[0]) as $c |
		($b | map(.own_addrs // empty)[0]) as $l |
		($a | split(".") | map(tonumber)) as $w |
		$c > 0 and ($l[$c - 1] | any(.v4[0:.n4][]; . == $w))' >/dev/null
}

xdpt_log "A. run: follows the interface's addresses"
OUT=$XDPT_TMP/run
xdf_run_bg "$NS_RESP" "$OUT" "$IF_RESP"
xdf_run_wait_attached "$NS_RESP" "$IF_RESP" 10 ||
	{ cat "$OUT" >&2; xdpt_fail "run did not attach within 10 s"; }
xdf_answered "$RESP4" || xdpt_fail "run attached but $RESP4 is not answered"

ip -n "$NS_RESP" addr add 10.99.0.77/24 dev "$IF_RESP"
xdf_within_1s "10.99.0.77 added, answered by XDP" xdf_answered 10.99.0.77
ip -n "$NS_RESP" addr add fd00:99::77/64 dev "$IF_RESP" nodad
xdf_within_1s "fd00:99::77 added, answered by XDP" xdf_answered fd00:99::77 -6
xdf_listed 10.99.0.77/32 iface ||
	xdpt_fail "10.99.0.77/32 not listed as an interface address: $XDPT_OUT"
own_listed 10.99.0.77 || xdpt_fail "10.99.0.77 not in the program's exact address list"
own_listed "$RESP4" || xdpt_fail "$RESP4 not in the program's exact address list"

xdf_counter before "$NS_RESP" "$IF_RESP" pass_dst_not_local
ip -n "$NS_RESP" addr del 10.99.0.77/24 dev "$IF_RESP"
xdf_within_1s "10.99.0.77 removed, no longer answered" xdf_unanswered 10.99.0.77
ip -n "$NS_RESP" addr del fd00:99::77/64 dev "$IF_RESP"
xdf_within_1s "fd00:99::77 removed, no longer answered" xdf_unanswered fd00:99::77 -6
# Still not answered a moment later, and XDP saw the requests as not ours.
xdf_unanswered 10.99.0.77 || xdpt_fail "10.99.0.77 answered again after its removal"
xdf_counter after "$NS_RESP" "$IF_RESP" pass_dst_not_local
xdpt_assert_ge $((before + 2)) "$after" "pass_dst_not_local after pinging removed addresses"
xdf_listed 10.99.0.77/32 iface && xdpt_fail "10.99.0.77/32 still listed after its removal"
own_listed 10.99.0.77 && xdpt_fail "10.99.0.77 still in the program's exact address list"

xdpt_log "A. run: operator prefixes survive interface address changes"
xdf_x_ok "$NS_RESP" addr "$IF_RESP" add 192.0.2.0/24 10.99.0.88/32
xdf_answered 192.0.2.5 || xdpt_fail "operator prefix 192.0.2.0/24 not answered"
xdf_answered 10.99.0.88 || xdpt_fail "operator prefix 10.99.0.88/32 not answered"
# Churn, and an interface address equal to an operator prefix, both ways.
for i in 100 101 102; do
	ip -n "$NS_RESP" addr add "10.99.0.$i/24" dev "$IF_RESP"
done
ip -n "$NS_RESP" addr add 10.99.0.88/24 dev "$IF_RESP"
xdf_within_1s "10.99.0.102 added during churn" xdf_answered 10.99.0.102
for i in 100 101 102; do
	ip -n "$NS_RESP" addr del "10.99.0.$i/24" dev "$IF_RESP"
done
ip -n "$NS_RESP" addr del 10.99.0.88/24 dev "$IF_RESP"
xdf_within_1s "10.99.0.102 removed during churn" xdf_unanswered 10.99.0.102
xdf_listed 192.0.2.0/24 operator || xdpt_fail "operator 192.0.2.0/24 lost: $XDPT_OUT"
xdf_listed 10.99.0.88/32 operator ||
	xdpt_fail "operator 10.99.0.88/32 lost after the same interface address came and went:" \
		"$XDPT_OUT"
xdf_answered 192.0.2.5 || xdpt_fail "192.0.2.0/24 no longer answered after the churn"
xdf_answered 10.99.0.88 ||
	xdpt_fail "10.99.0.88 no longer answered after the interface address of the same value went"

xdpt_log "A. run: SIGHUP rereads the interface's addresses"
xdf_x_ok "$NS_RESP" addr "$IF_RESP" del "$RESP4"
xdf_within_1s "$RESP4 deleted from the map, unanswered" xdf_unanswered "$RESP4"
own_listed "$RESP4" && xdpt_fail "$RESP4 still in the exact list after 'addr del'"
kill -HUP "$XDF_RUN_PID"
xdf_within_1s "$RESP4 back after SIGHUP" xdf_answered "$RESP4"
own_listed "$RESP4" || xdpt_fail "$RESP4 not back in the exact list after SIGHUP"
kill -0 "$XDF_RUN_PID" 2>/dev/null || xdpt_fail "run exited on SIGHUP: $(cat "$OUT")"

xdpt_log "A. run: SIGTERM detaches and removes the pins"
kill -TERM "$XDF_RUN_PID"
xdf_wait_exit "$XDF_RUN_PID" 5 || xdpt_fail "run still running 5 s after SIGTERM"
[ "$XDF_EXIT" = 0 ] || xdpt_fail "run exited $XDF_EXIT on SIGTERM, expected 0: $(cat "$OUT")"
xdf_assert_state "$NS_RESP" "$IF_RESP" none "after run's SIGTERM"

xdpt_log "B. attach-and-exit: xdpong addr add|del|list"
xdf_x_ok "$NS_RESP" attach "$IF_RESP"
xdf_x_ok "$NS_RESP" addr "$IF_RESP" list
xdpt_assert_match "$RESP4/32 +interface address" "$XDPT_OUT" "addr list"
xdf_listed "$RESP4/32" iface || xdpt_fail "addr list --json: $XDPT_OUT"
xdf_unanswered 198.51.100.7 || xdpt_fail "198.51.100.7 answered before it was added"
xdf_x_ok "$NS_RESP" addr "$IF_RESP" add 198.51.100.77/24 2001:db8:5::/48
xdpt_assert_match "answering for 198\.51\.100\.0/24" "$XDPT_OUT" "addr add prints the masked prefix"
xdf_listed 198.51.100.0/24 operator || xdpt_fail "198.51.100.0/24 not listed: $XDPT_OUT"
xdf_listed 2001:db8:5::/48 operator || xdpt_fail "2001:db8:5::/48 not listed: $XDPT_OUT"
xdf_answered 198.51.100.7 || xdpt_fail "198.51.100.7 not answered after addr add"
xdf_answered 2001:db8:5::1 -6 || xdpt_fail "2001:db8:5::1 not answered after addr add"
xdf_x_ok "$NS_RESP" addr "$IF_RESP" del 198.51.100.0/24 2001:db8:5::/48
xdf_unanswered 198.51.100.7 || xdpt_fail "198.51.100.7 still answered after addr del"
xdf_unanswered 2001:db8:5::1 -6 || xdpt_fail "2001:db8:5::1 still answered after addr del"
xdf_listed 198.51.100.0/24 operator && xdpt_fail "198.51.100.0/24 still listed after addr del"
xdf_x_rc 1 "$NS_RESP" addr "$IF_RESP" del 198.51.100.0/24
xdpt_assert_match "not in the address map" "$XDPT_ERR" "deleting a prefix twice"
xdf_x_rc 2 "$NS_RESP" addr "$IF_RESP" add 198.51.100.0/33
xdf_x_rc 2 "$NS_RESP" addr "$IF_RESP" frob 198.51.100.0/24
xdf_answered "$RESP4" || xdpt_fail "$RESP4 no longer answered after the addr commands"
xdf_x_ok "$NS_RESP" detach "$IF_RESP"
xdf_x_rc 1 "$NS_RESP" addr "$IF_RESP" list
xdpt_assert_match "not attached" "$XDPT_ERR" "addr list when detached"
xdf_pass
