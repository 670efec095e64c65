#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle: an upgrade. The test builds an older xdpong from this tree
# with one more reason in the X-macro (every counter after it moves: the
# stats map has another layout), attaches it with a configured and a
# runtime prefix, and lets the current build take over under two streams
# of 1,000 echo requests a second (the kernel's echo off). Nothing may be
# lost: every request answered, `replied` and `reply_echo4` grow by
# exactly the number sent, although the counters now live in new maps
# (copied by name, and what the old program counted after the copy is in
# the carry map: the takeover is slowed down so that it holds some); the
# runtime prefix stays. The old build's own `stats`
# still reads the new program.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +--------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24            |
#  | 192.0.2.0/24 via .2 |             | old build, then this one       |
#  +---------------------+             +--------------------------------+
. "$(dirname "$0")/../lib/faults.bash"

xdf_require
xdpt_require_cmd strace
xdpt_tmpdir
N=3000

xdpt_log "building the older xdpong (one more reason) in $XDPT_TMP/old"
OLD=$XDPT_TMP/old
mkdir -p "$OLD"
tar -C "$XDPT_REPO" --exclude=./build --exclude=./.git -cf - . | tar -C "$OLD" -xf - ||
	xdpt_fail "cannot copy the tree"
retire='s|^\(\tX(reply_echo6, REPLIED, .*\)$|\1\n\tX(reply_retired, REPLIED, '
retire+='"a reason only the older build has")   \\|'
sed -i "$retire" "$OLD/include/xdpong.h"
grep -q reply_retired "$OLD/include/xdpong.h" || xdpt_fail "the older build's reason was not added"
timeout 150 make -C "$OLD" -j2 build/xdpong >"$XDPT_TMP/old-build.log" 2>&1 ||
	xdpt_fail "building the older xdpong failed: $(tail -n 20 "$XDPT_TMP/old-build.log")"
OLDX=$OLD/build/xdpong

xdf_topo_echo_off 192.0.2.0/24

XDPONG=$OLDX xdf_x_ok "$NS_RESP" attach "$IF_RESP" --mode skb --addr 192.0.2.0/24
XDPONG=$OLDX xdf_x_ok "$NS_RESP" addr "$IF_RESP" add 198.51.100.0/24
XDPONG=$OLDX xdf_x_ok "$NS_RESP" stats "$IF_RESP" --json
xdpt_assert_match '"reply_retired"' "$XDPT_OUT" "the older build's stats name its extra reason"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 5
xdf_x_ok "$NS_RESP" status "$IF_RESP" --json
old_stats=$(jq '.interfaces[0].maps.stats' <<<"$XDPT_OUT")
id1=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdf_counter rep0 "$NS_RESP" "$IF_RESP" replied
xdf_counter e40 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq 5 "$e40" "reply_echo4 under the older build, read by this one"

xdpt_log "the current build takes over, under load"
xdf_streams_start "$N" "$RESP4" 192.0.2.1
xdf_streams_flowing "$NS_RESP" "$IF_RESP"
# Each netlink request of the takeover delayed by 100 ms (strace): the old
# program answers for a second or so after its counters were copied, and
# those counts must reach the carry map.
xdpt_run nsenter "--net=/run/netns/$NS_RESP" strace -qq -f -o /dev/null -e trace=sendto \
	-e inject=sendto:delay_enter=100000 \
	"$XDPONG" attach "$IF_RESP" --mode skb --addr 192.0.2.0/24
[ "$XDPT_RC" = 0 ] || xdpt_fail "the takeover exited $XDPT_RC: $XDPT_ERR"
xdpt_assert_match "took over from program id $id1 without a gap" "$XDPT_ERR" "the upgrade"
xdpt_log "  $(grep 'took over' <<<"$XDPT_ERR")"
xdf_streams_check "upgrade"
xdf_counter rep1 "$NS_RESP" "$IF_RESP" replied
xdf_counter e41 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq $((rep0 + XDF_STREAMS_SENT)) "$rep1" "replied after the upgrade"
xdpt_assert_eq $((e40 + XDF_STREAMS_SENT)) "$e41" "reply_echo4 after the upgrade"
xdpt_assert_no_match "reply_retired" "$XDPT_STATS" "this build's stats"

xdf_x_ok "$NS_RESP" status "$IF_RESP" --json
new_stats=$(jq '.interfaces[0].maps.stats' <<<"$XDPT_OUT")
xdpt_assert_ne "$old_stats" "$new_stats" "the stats map (another layout: a new map)"
origin_q='.interfaces[0].addresses[] | select(.prefix == "198.51.100.0/24") | .origin'
xdpt_assert_eq "operator" "$(jq -r "$origin_q" <<<"$XDPT_OUT")" \
	"runtime prefix after the upgrade"
carry=$(bpftool -j map lookup id "$(jq '.interfaces[0].maps.carry' <<<"$XDPT_OUT")" key 0 0 0 0 |
	jq '.formatted.value.reply_echo4')
xdpt_log "  carried after the copy (counted by the old program during the takeover): $carry"
[ "$carry" -gt 0 ] 2>/dev/null ||
	xdpt_fail "nothing in the carry map: the old program answered nothing after the copy?"

xdpt_log "the older build's stats read the newer program"
XDPONG=$OLDX xdf_x_ok "$NS_RESP" stats "$IF_RESP" --json
xdpt_assert_eq "$e41" "$(jq '.reasons.reply_echo4' <<<"$XDPT_OUT")" \
	"reply_echo4 as the older build reads it"
xdf_x_ok "$NS_RESP" detach "$IF_RESP"
xdf_assert_state "$NS_RESP" "$IF_RESP" none "after detach"
xdf_pass
