#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The network's loss, duplicates and reordering, injected with netem on the
# prober's side of a veth pair, reported exactly by xdpong probe, IPv4 and
# IPv6: the user-space reflector (tests/lib/stamp_reflector.py) logs every
# request in the order it reads them, and answers each at once over a path
# netem does not touch, so its log says what the prober must report:
#   received  = the sequence numbers read, duplicates = the lines more,
#   lost      = sent - received,
#   reordered = first readings of a number below one read before.
# Skips where the kernel has no netem (sch_netem).
. "$(dirname "$0")/../lib/probe.bash"

N=200

xdpt_require_all
xdpt_require_cmd setpriv ethtool tc
modprobe sch_netem 2>/dev/null
xdpt_topo_veth
xdpt_tmpdir
ip netns exec "$NS_PING" ethtool -K "$IF_PING" tx off >/dev/null ||
	xdpt_fail "cannot turn checksum offload off on $IF_PING"
# Neighbour discovery before netem, so that it loses no solicitation.
ip netns exec "$NS_PING" ping -c 1 -W 1 "$RESP4" >/dev/null
ip netns exec "$NS_PING" ping -6 -c 1 -W 1 "$RESP6" >/dev/null
tc -n "$NS_PING" qdisc add dev "$IF_PING" root netem delay 20ms reorder 25% 50% loss 10% \
	duplicate 10% 2>"$XDPT_TMP/tc.err" ||
	xdpt_skip "no netem in Linux $(uname -r): $(cat "$XDPT_TMP/tc.err")"

# expected LOG: "received lost duplicates reordered" from the reflector's log.
expected()
{
	awk -v n="$N" '{ seen[$1]++; if (seen[$1] > 1) { dups++; next }
			 got++; if ($1 < top) reord++; if ($1 + 1 > top) top = $1 + 1 }
		END { printf "%d %d %d %d\n", got, n - got, dups, reord }' "$1"
}

for fam in 4 6; do
	dst=$RESP4
	[ "$fam" = 6 ] && dst=$RESP6
	xdpt_log "IPv$fam: $N probes, 10 ms apart, through netem"
	xpr_reflector "$NS_RESP" "$fam" "$XDPT_TMP/r$fam.log"
	xpr_probe --ns "$NS_PING" -c "$N" -i 0.01 -W 1 --json "$dst"
	got=$(jq -r '.targets[0] | [.received, .lost, .duplicates, .reordered] | map(tostring) |
		join(" ")' <<<"$XDPT_OUT")
	want=$(expected "$XDPT_TMP/r$fam.log")
	xdpt_log "   received lost duplicates reordered: $got"
	xdpt_assert_eq "$want" "$got" "IPv$fam: what the reflector's log says"
	read -r rec lost dups reord <<<"$got"
	[ "$lost" -gt 0 ] && [ "$dups" -gt 0 ] && [ "$reord" -gt 0 ] ||
		xdpt_fail "IPv$fam: netem injected no loss, duplicate or reordering: $got"
	xdpt_assert_eq "$N" "$(jq -r '.targets[0].sent' <<<"$XDPT_OUT")" "IPv$fam: sent"
	xdpt_assert_eq "$N" "$((rec + lost))" "IPv$fam: received + lost"
	kill "$XPR_PID"
	wait "$XPR_PID" 2>/dev/null
done
xdpt_pass
