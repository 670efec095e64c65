#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fault: two interfaces of the same name in two namespaces at once.
# Through nsenter both would pin under /sys/fs/bpf/xdpong/<name> of the
# shared bpffs: the second attach (with or without --force) attaches but
# leaves the first one's live pins alone, and says so; its detach leaves
# them too (the pins are for bpftool: every xdpong command finds the maps
# through the attached program). Through
# `ip netns exec` (a private bpffs) the second attach works, and then the
# two have separate maps: pinging one moves only its own counters and
# addresses added to one are not in the other.
#
#                       ns resp1 (kernel echo off)
#   ns ping          +------------------------------+
#  +-------------+   | xs<id> 10.97.1.2/24  xdpong  |  nsenter: host pins
#  | xc1<id> .1  |---+------------------------------+
#  | 10.97.1.1   |
#  | xc2<id> .1  |---+------------------------------+
#  | 10.97.2.1   |   | xs<id> 10.97.2.2/24  xdpong  |  ip netns exec
#  +-------------+   +------------------------------+
#                       ns resp2 (kernel echo off)
#
# IPv6 is off on these links so no background traffic moves a counter.
. "$(dirname "$0")/../lib/faults.bash"

xdf_require
xdpt_ns_new NS_PING ping
xdpt_ns_new NS_R1 resp1
xdpt_ns_new NS_R2 resp2
IF="xs$XDPT_ID"
IF_C1="xc1$XDPT_ID" IF_C2="xc2$XDPT_ID"
xdpt_track_pins "$IF"
for ns in "$NS_PING" "$NS_R1" "$NS_R2"; do
	xdpt_sysctl "$ns" net.ipv6.conf.default.disable_ipv6 1
done
xdf_veth "$NS_PING" "$IF_C1" 10.97.1.1 "$NS_R1" "$IF" 10.97.1.2
xdf_veth "$NS_PING" "$IF_C2" 10.97.2.1 "$NS_R2" "$IF" 10.97.2.2
xdpt_kernel_echo_ignore "$NS_R1" 1
xdpt_kernel_echo_ignore "$NS_R2" 1

xdpt_log "resp1: attach through nsenter (pins in the shared bpffs)"
xdf_x_ok "$NS_R1" attach "$IF"
xdf_assert_state "$NS_R1" "$IF" attached "resp1 after its attach"
R1_ID=$(xdpt_link_prog_id "$NS_R1" "$IF")

xdpt_log "resp2: attach through nsenter attaches, and leaves resp1's pins alone"
R1_PIN=$(bpftool -j map show pinned "$XDPT_PIN_ROOT/$IF/stats" | jq .id)
for force in "" --force; do
	xdf_x_ok "$NS_R2" attach "$IF" $force
	xdpt_assert_match "another live xdpong" "$XDPT_ERR" \
		"'attach $force' in resp2 says why it does not pin"
	xdpt_assert_match "maps not pinned" "$XDPT_ERR" \
		"'attach $force' in resp2 says it does not pin"
	xdpt_assert_ne 0 "$(xdpt_link_prog_id "$NS_R2" "$IF")" "XDP program on resp2's $IF"
	xdpt_assert_eq "$R1_ID" "$(xdpt_link_prog_id "$NS_R1" "$IF")" \
		"resp1's program after resp2's attach"
	xdpt_assert_eq "$R1_PIN" \
		"$(bpftool -j map show pinned "$XDPT_PIN_ROOT/$IF/stats" | jq .id)" \
		"the pinned stats map after resp2's attach $force"
	xdf_assert_state "$NS_R1" "$IF" attached "resp1 after resp2's attach $force"
done
xdpt_ping_all "$NS_PING" -4 10.97.2.2 2
xdpt_log "  said: $XDPT_ERR"
xdpt_log "resp2: detach through nsenter keeps resp1's pins"
xdf_x_ok "$NS_R2" detach "$IF"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_R2" "$IF")" "XDP program on resp2's $IF after its detach"
xdpt_assert_eq "$R1_PIN" "$(bpftool -j map show pinned "$XDPT_PIN_ROOT/$IF/stats" | jq .id)" \
	"the pinned stats map after resp2's detach"
xdf_assert_state "$NS_R1" "$IF" attached "resp1 after resp2's detach"

xdpt_log "resp2: attach through ip netns exec (private bpffs) works"
xdpt_attach "$NS_R2" "$IF"
R2_ID=$(xdpt_link_prog_id "$NS_R2" "$IF")
xdpt_assert_ne "$R1_ID" "$R2_ID" "the two programs"
xdf_assert_state "$NS_R1" "$IF" attached "resp1 after resp2's attach"

xdf_x_ok "$NS_R1" status "$IF" --json
MAPS1=$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].maps[]' | sort)
xdpt_ok --ns "$NS_R2" "$XDPONG" status "$IF" --json
MAPS2=$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].maps[]' | sort)
N_MAPS=$(wc -w <<<"$XDF_PIN_NAMES") # a pin per map
[ "$(printf '%s\n' "$MAPS1" | wc -l)" -eq "$N_MAPS" ] ||
	xdpt_fail "resp1 status lists $(printf '%s\n' "$MAPS1" | wc -l) maps, expected $N_MAPS"
SHARED=$(comm -12 <(printf '%s\n' "$MAPS1") <(printf '%s\n' "$MAPS2"))
[ -z "$SHARED" ] || xdpt_fail "the two attachments share map ids: $SHARED"
# resp1's XDP_TX failure count lives in links pinned beside its maps: the
# other namespace's attach and detach under the same name left them be.
xdf_x_ok "$NS_R1" status "$IF" --json
xdpt_assert_eq true "$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].tx_failures.counted')" \
	"resp1's tx failures still counted after resp2's attach and detach"

# snap VAR NS: the stats JSON of NS's xdpong (ip netns exec works for both).
snap()
{
	xdpt_stats "$2" "$IF"
	printf -v "$1" '%s' "$XDPT_STATS"
}

# moved BEFORE AFTER COUNTER: how much COUNTER moved.
moved()
{
	local a b

	xdpt_get a "$3" "$1"
	xdpt_get b "$3" "$2"
	echo $((b - a))
}

for side in 1 2; do
	if [ "$side" = 1 ]; then
		me=$NS_R1 other=$NS_R2 dst=10.97.1.2
	else
		me=$NS_R2 other=$NS_R1 dst=10.97.2.2
	fi
	xdpt_log "ping resp$side only: its counters move, the other's do not"
	snap me0 "$me"
	snap other0 "$other"
	xdpt_ping_all "$NS_PING" -4 "$dst" 5
	snap me1 "$me"
	snap other1 "$other"
	xdpt_assert_eq 5 "$(moved "$me0" "$me1" reply_echo4)" \
		"resp$side reply_echo4 after 5 pings to it"
	for c in received replied passed dropped; do
		xdpt_assert_eq 0 "$(moved "$other0" "$other1" "$c")" \
			"the other namespace's '$c' while pinging resp$side"
	done
done

xdpt_log "addresses: added to resp1, absent from resp2"
xdf_x_ok "$NS_R1" addr "$IF" add 192.0.2.1
xdf_x_ok "$NS_R1" addr "$IF" list --json
xdpt_assert_match '"192\.0\.2\.1/32"' "$XDPT_OUT" "resp1's address list"
xdpt_ok --ns "$NS_R2" "$XDPONG" addr "$IF" list --json
xdpt_assert_no_match '192\.0\.2\.1' "$XDPT_OUT" "resp2's address list"

xdpt_log "detach resp1: resp2 keeps answering; then detach resp2"
xdf_x_ok "$NS_R1" detach "$IF"
xdf_assert_state "$NS_R1" "$IF" none "resp1 after its detach"
xdpt_assert_eq "$R2_ID" "$(xdpt_link_prog_id "$NS_R2" "$IF")" "resp2's program after resp1's detach"
xdpt_ping_all "$NS_PING" -4 10.97.2.2 2
xdpt_ping_none "$NS_PING" -4 10.97.1.2 2
xdpt_ok --ns "$NS_R2" "$XDPONG" detach "$IF"
xdf_pass
