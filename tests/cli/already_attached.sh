#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A second attach without --force is refused and changes nothing; with
# --force it replaces the program (new id, fresh counters) and pings are
# still answered.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  +---------------------+             | xdpong, attached twice       |
#                                      +------------------------------+
. "$(dirname "$0")/../lib.sh"

xdpt_require_all
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1

xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb
id1=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2

for args in "" "--mode skb" "--addr 192.0.2.1" "--mode auto --latency-sample 0"; do
	# shellcheck disable=SC2086 # split on purpose
	xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" attach "$IF_RESP" $args
	xdpt_assert_match "xdpong is already attached to $IF_RESP \(program id $id1, skb mode\); use --force to replace it" \
		"$XDPT_ERR" "attach $args over an attached xdpong"
	xdpt_assert_eq "$id1" "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "program id after the refused attach $args"
done
xdpt_log "$XDPT_ERR"

# Untouched: the same program answers and its counters went on.
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq 4 "$r4" "reply_echo4 of the first program"

xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb --force
id2=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdpt_assert_match '^[1-9][0-9]*$' "$id2" "program id after --force"
xdpt_assert_ne "$id1" "$id2" "program id after --force"
xdpt_assert_match "program id $id2" "$XDPT_OUT" "attach --force names the new id"
xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq 0 "$r4" "reply_echo4 of the new program before any ping"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 3
xdpt_ping_all "$NS_PING" -6 "$RESP6" 3
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get rep replied
xdpt_assert_eq 6 "$rep" "replied by the new program"
xdpt_assert_eq "$id2" "$(printf '%s\n' "$XDPT_STATS" | jq .prog_id)" "stats prog_id"
# The old program is gone from the kernel, not just from the interface.
bpftool prog show id "$id1" >/dev/null 2>&1 && xdpt_fail "old program $id1 still loaded"

xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
