#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Jumbo frames: xdpong attaches natively to a veth pair at MTU 9000 (a
# program that is not frags-aware cannot) and answers big pings there;
# then the same in skb (generic) mode.
#
#   ns ping                                 ns resp (kernel echo on)
#  +-----------------------+  veth pair  +-------------------------------+
#  | xp<id> 10.99.0.1/24   |  MTU 9000   | xr<id> 10.99.0.2/24           |
#  |        fd00:99::1     |-------------|        fd00:99::2             |
#  | xdp_pass (native,     |             | xdpong --mode native          |
#  |  frags-aware)         |             |  (xdp.frags)                  |
#  | echo_check.py         |             |                               |
#  +-----------------------+             +-------------------------------+
#
# 1400- and 3000-byte pings fit the first buffer: XDP answers them (the
# replied counter moves by the count, and each reply is exactly the one
# xdpong builds). 8000-byte pings are multi-buffer frames: someone must
# answer them (xdpong does, through bpf_xdp_load_bytes; the kernel would
# too), byte-exact. echo_check.py sends the requests, captures request and
# reply frames on the pinger's veth, and checks them with its own RFC 1071
# checksum routine.
XDPT_MTU=9000
. "$(dirname "$0")/../lib/lib.sh"

COUNT=3
CHECK=$XDPT_REPO/tests/netns/echo_check.py

xdpt_require_all
xdpt_require_feature frags "jumbo frames answered by XDP"
[ -x /usr/bin/python3 ] || xdpt_skip "needs /usr/bin/python3"
xdpt_topo_veth
xdpt_peer_xdp_pass

# check FAMILY DST SIZE [--exact]: COUNT requests, every reply correct.
check()
{
	local fam=$1 dst=$2 size=$3

	shift 3
	xdpt_run --ns "$NS_PING" /usr/bin/python3 "$CHECK" "$IF_PING" "$dst" "$size" \
		--family "$fam" --count "$COUNT" "$@"
	xdpt_log "$XDPT_OUT"
	if [ "$XDPT_RC" -ne 0 ]; then
		_xdpt_show_run
		xdpt_fail "IPv$fam $size-byte pings to $dst: replies missing or wrong"
	fi
}

for mode in native skb; do
	# A program that is not frags-aware cannot attach natively at this
	# MTU: the case this test is about. Then the same in generic mode.
	xdpt_attach "$NS_RESP" "$IF_RESP" --mode "$mode"
	xdpt_assert_match "attached to $IF_RESP in $mode mode" "$XDPT_OUT" \
		"$mode attach at MTU 9000"
	for fam in 4 6; do
		dst=$RESP4
		[ "$fam" = 6 ] && dst=$RESP6
		for size in 1400 3000; do
			xdpt_counter before "$NS_RESP" "$IF_RESP" replied
			check "$fam" "$dst" "$size" --exact
			xdpt_counter after "$NS_RESP" "$IF_RESP" replied
			what="$mode: replied after $COUNT IPv$fam $size-byte pings"
			xdpt_assert_eq "$((before + COUNT))" "$after" "$what (answered by XDP)"
		done
		xdpt_counter before "$NS_RESP" "$IF_RESP" replied
		check "$fam" "$dst" 8000
		xdpt_counter after "$NS_RESP" "$IF_RESP" replied
		xdpt_log "$mode: IPv$fam 8000-byte pings: $((after - before)) of $COUNT" \
			"answered by XDP, the rest by the kernel"
		if [ "$after" = "$((before + COUNT))" ]; then
			# XDP answered the multi-buffer frames: its own replies, exactly.
			check "$fam" "$dst" 8000 --exact
		fi
	done
	xdpt_stats "$NS_RESP" "$IF_RESP"
	xdpt_assert_consistent
	xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
done
xdpt_pass
