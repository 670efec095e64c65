#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `xdpong status` and `xdpong status IFACE --json` report the program id
# and mode the kernel reports (ip -j link, bpftool net), in skb and native
# mode, and the chain of programs on the interface: xdpong alone, under
# `ip netns exec` (no bpffs for libxdp's dispatcher).
#
#   ns ping                               ns resp
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  | xdp_pass (native,   |             | xdpong skb, then native      |
#  |  second half)       |             |                              |
#  +---------------------+             +------------------------------+
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_topo_veth

xdpt_ok --ns "$NS_RESP" "$XDPONG" status
xdpt_assert_match 'not attached to any interface' "$XDPT_OUT" "status before attach"
xdpt_rc 3 --ns "$NS_RESP" "$XDPONG" status "$IF_RESP"
xdpt_assert_match "$IF_RESP: xdpong not attached" "$XDPT_OUT" "status IFACE before attach"
xdpt_rc 3 --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
xdpt_assert_eq false "$(printf '%s\n' "$XDPT_OUT" | jq '.interfaces[0].attached')" \
	"JSON attached before attach"

# check_status MODE BPFTOOL_MODE: status agrees with the kernel.
check_status()
{
	local mode=$1 netmode=$2 kid nid jid chain_q want

	kid=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
	xdpt_assert_match '^[1-9][0-9]*$' "$kid" "program id from ip -j link"
	xdpt_ok --ns "$NS_RESP" bpftool -j net
	nid=$(printf '%s\n' "$XDPT_OUT" |
		jq --arg d "$IF_RESP" '.[0].xdp[] | select(.devname == $d) | .id')
	xdpt_assert_eq "$kid" "$nid" "program id from bpftool net"
	xdpt_assert_eq "$netmode" "$(printf '%s\n' "$XDPT_OUT" |
		jq -r --arg d "$IF_RESP" '.[0].xdp[] | select(.devname == $d) | .mode')" \
		"bpftool net mode"

	xdpt_ok --ns "$NS_RESP" "$XDPONG" status
	xdpt_assert_match "^$IF_RESP: xdpong program id $kid, $mode mode" "$XDPT_OUT" \
		"status (all interfaces)"
	xdpt_assert_match "$RESP4/32 +interface address" "$XDPT_OUT" "status lists the IPv4 address"
	xdpt_assert_match "$RESP6/128 +interface address" "$XDPT_OUT" \
		"status lists the IPv6 address"
	# Under ip netns exec there is no bpffs for libxdp: xdpong runs alone.
	xdpt_assert_match '^  chain: +alone \(no libxdp dispatcher\)$' "$XDPT_OUT" \
		"status chain line"

	xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
	printf '%s\n' "$XDPT_OUT" | jq -e . >/dev/null ||
		xdpt_fail "status --json is not JSON: $XDPT_OUT"
	jid=$(printf '%s\n' "$XDPT_OUT" | jq '.interfaces[0].prog_id')
	xdpt_assert_eq "$kid" "$jid" "status --json prog_id"
	xdpt_assert_eq "$mode" "$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].mode')" \
		"status --json mode"
	xdpt_assert_eq true "$(printf '%s\n' "$XDPT_OUT" | jq '.interfaces[0].attached')" \
		"status --json attached"
	xdpt_assert_eq "$IF_RESP" "$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].iface')" \
		"status --json iface"
	chain_q='.interfaces[0].chain | '
	chain_q+='"\(.dispatcher) \(.dispatcher_id) \(.priority) \(.position)"'
	xdpt_assert_eq "false null null 1" "$(printf '%s\n' "$XDPT_OUT" | jq -r "$chain_q")" \
		"status --json chain: alone, first"
	want="[{\"id\":$kid,\"name\":\"xdpong\",\"priority\":null,"
	want+="\"xdpong\":true,\"pass_continues\":false}]"
	xdpt_assert_eq "$want" \
		"$(printf '%s\n' "$XDPT_OUT" | jq -c '.interfaces[0].chain.programs')" \
		"status --json chain.programs: xdpong alone"
	# The stats map id it reports is the one the program uses.
	sid=$(printf '%s\n' "$XDPT_OUT" | jq '.interfaces[0].maps.stats')
	xdpt_ok --ns "$NS_RESP" bpftool -j prog show id "$kid"
	printf '%s\n' "$XDPT_OUT" |
		jq -e --argjson s "$sid" '.map_ids | index($s) != null' >/dev/null ||
		xdpt_fail "stats map id $sid is not among the program's maps: $XDPT_OUT"
}

xdpt_log "skb mode"
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb
check_status skb generic

xdpt_log "native mode"
xdpt_peer_xdp_pass
xdpt_attach "$NS_RESP" "$IF_RESP" --mode native --force
check_status native driver

# Through nsenter the pins are visible and status names them.
xdpt_track_pins "$IF_RESP"
xdpt_ok nsenter "--net=/run/netns/$NS_RESP" "$XDPONG" attach "$IF_RESP" --force
xdpt_ok nsenter "--net=/run/netns/$NS_RESP" "$XDPONG" status "$IF_RESP" --json
xdpt_assert_eq "$XDPT_PIN_ROOT/$IF_RESP" \
	"$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].pin_dir')" "pin_dir through nsenter"
# The chain agrees with the rest, alone or (a takeover of one attached
# alone stays alone) in a dispatcher: xdpong is the entry at its position.
printf '%s\n' "$XDPT_OUT" | jq -e '.interfaces[0] as $i | $i.chain.dispatcher == $i.dispatcher and
	($i.chain.programs[$i.chain.position - 1] | .id == $i.prog_id and .xdpong)' >/dev/null ||
	xdpt_fail "status --json chain disagrees with prog_id or dispatcher: $XDPT_OUT"
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
xdpt_assert_eq null "$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].pin_dir')" \
	"pin_dir in a fresh ip netns exec"
xdpt_ok nsenter "--net=/run/netns/$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
