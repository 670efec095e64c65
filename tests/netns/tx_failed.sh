#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# "replied" means sent: replies the driver fails to send are counted as
# tx_failed (stats, JSON, Prometheus, status), so that replied - tx_failed
# is what left the interface. The failure is provoked: a veth hands native
# XDP_TX frames only to a peer that runs XDP, so taking the pinger's XDP
# program away makes every reply fail (xdp:xdp_bulk_tx counts them).
#
#   ns ping                                 ns resp (kernel echo off)
#  +-----------------------+  veth pair  +-------------------------------+
#  | xp<id> 10.99.0.1/24   |-------------| xr<id> 10.99.0.2/24           |
#  | xdp_pass (native),    |             | xdpong --mode native          |
#  | then none             |             | (attached through nsenter)    |
#  +-----------------------+             +-------------------------------+
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_require_feature tx_failures "counting XDP_TX failures"
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_peer_xdp_pass
xdpt_track_pins "$IF_RESP"
# The tracepoint links live in pins beside the maps: in this host's bpffs
# through nsenter (an `ip netns exec` bpffs vanishes with the command).
NSENTER=(nsenter "--net=/run/netns/$NS_RESP")

# tx_state: XDPT_STATS, and TXF / COUNTED / REPLIED from it.
tx_state()
{
	xdpt_stats "$NS_RESP" "$IF_RESP"
	xdpt_get TXF tx_failed
	xdpt_get REPLIED replied
	COUNTED=$(printf '%s\n' "$XDPT_STATS" | jq -r .tx_failed_counted)
	xdpt_assert_consistent
}

xdpt_log "1. every reply sent: nothing failed"
xdpt_ok "${NSENTER[@]}" "$XDPONG" attach "$IF_RESP" --mode native
xdpt_ping_all "$NS_PING" -4 "$RESP4" 3
tx_state
xdpt_assert_eq true "$COUNTED" "tx_failed_counted after an attach through nsenter"
xdpt_assert_eq 3 "$REPLIED" "replied after 3 answered pings"
xdpt_assert_eq 0 "$TXF" "tx_failed while the peer runs XDP"

xdpt_log "2. the peer's XDP program removed: every reply fails in the driver"
ip -n "$NS_PING" link set dev "$IF_PING" xdpdrv off ||
	xdpt_fail "cannot remove the XDP program of $IF_PING"
xdpt_ping_none "$NS_PING" -4 "$RESP4" 4
xdpt_ping_none "$NS_PING" -6 "$RESP6" 2
tx_state
xdpt_assert_eq 9 "$REPLIED" "replied counts what the program returned (XDP_TX)"
xdpt_assert_eq 6 "$TXF" "tx_failed: the 6 replies the veth dropped"
xdpt_ok --ns "$NS_RESP" "$XDPONG" stats "$IF_RESP" --prometheus
xdpt_assert_match "^xdpong_tx_failed_total\{device=\"$IF_RESP\"\} 6$" "$XDPT_OUT" \
	"Prometheus counter"
xdpt_assert_match "^xdpong_tx_failed_counted\{device=\"$IF_RESP\"\} 1$" "$XDPT_OUT" \
	"Prometheus gauge"
xdpt_ok --ns "$NS_RESP" "$XDPONG" stats "$IF_RESP"
xdpt_assert_match 'tx_failed +6 +of the replied, not sent by the driver$' "$XDPT_OUT" "stats text"

xdpt_log "3. the peer's XDP back: replies sent, the failures stay counted"
xdpt_peer_xdp_pass
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
tx_state
xdpt_assert_eq 11 "$REPLIED" "replied"
xdpt_assert_eq 6 "$TXF" "tx_failed unchanged by sent replies"

xdpt_log "4. a takeover keeps the count, and the new program counts on"
xdpt_ok "${NSENTER[@]}" "$XDPONG" attach "$IF_RESP"
xdpt_assert_match 'took over' "$XDPT_ERR$XDPT_OUT" "takeover"
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
txmap=$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].maps.txfail')
# The programs behind the links: exactly two use this txfail map.
tp_progs()
{
	bpftool -j prog show | jq -r --argjson m "$txmap" \
		'.[] | select(.type == "tracing" and ((.map_ids // []) | index($m))) | .id'
}
# tp_count N: exactly N such programs. The kernel frees the old program
# after its last link is gone, a grace period later; until then both
# count. Wait for that, not for luck, before a reply fails.
tp_count()
{
	[ "$(tp_progs | wc -l)" = "$1" ]
}
xdpt_wait 5 tp_count 2 ||
	xdpt_assert_eq 2 "$(tp_progs | wc -l)" \
		"tracing programs on txfail map $txmap (the old ones gone)"
ip -n "$NS_PING" link set dev "$IF_PING" xdpdrv off
xdpt_ping_none "$NS_PING" -4 "$RESP4" 1
tx_state
xdpt_assert_eq true "$COUNTED" "counted after the takeover"
xdpt_assert_eq 7 "$TXF" "tx_failed after the takeover (6 kept, 1 new, none twice)"
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
st=$(printf '%s\n' "$XDPT_OUT" | jq -c '.interfaces[0].tx_failures')
xdpt_assert_eq '{"counted":true,"links":2,"tx_failed":7}' "$st" "status --json tx_failures"

xdpt_log "5. detach: the links go with the pins"
xdpt_ok "${NSENTER[@]}" "$XDPONG" detach "$IF_RESP"
xdpt_wait 5 tp_count 0 ||
	xdpt_fail "tracing programs of txfail map $txmap left after detach:" \
		"$(tp_progs | tr '\n' ' ')"

xdpt_log "6. attached from ip netns exec: the count stops with the command, and says so"
xdpt_peer_xdp_pass
xdpt_attach "$NS_RESP" "$IF_RESP" --mode native
# counted_is WORD: tx_failed_counted is WORD. The links go when the
# command's bpffs does, freed by the kernel a moment after it exits.
counted_is()
{
	tx_state
	[ "$COUNTED" = "$1" ]
}
xdpt_wait 5 counted_is false
tx_state
xdpt_assert_eq false "$COUNTED" "tx_failed_counted after an attach from ip netns exec"
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP"
xdpt_assert_match 'tx fail: 0 replies not sent by the driver, NOT being counted' "$XDPT_OUT" \
	"status says the count stands still"
xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
