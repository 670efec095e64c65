#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --max-prefixes: the address maps' size, set at load.
#  - at the default (1024 a family) the 1025th IPv4 prefix is refused,
#    naming the option; status shows 1024 of 1024;
#  - a takeover without the option keeps the size (and the maps: no reply
#    of a 100/s stream lost); one with --max-prefixes 2000 carries every
#    entry into maps of 2000, where the 1025th fits; one with a size too
#    small for the entries is refused and changes nothing;
#  - loaded for 100,000 prefixes a family and filled through `xdpong addr
#    add`, the program answers for every one of them: an echo request
#    into each prefix through the attached program (BPF_PROG_TEST_RUN,
#    tests/netns/prefix_check.c) is XDP_TX, one outside every prefix is
#    XDP_PASS, and real pings to sampled prefixes are answered.
#
#   ns ping                                  ns resp (kernel echo off)
#  +--------------------------+  veth pair  +---------------------------+
#  | xp<id> 10.99.0.1/24      |-------------| xr<id> 10.99.0.2/24       |
#  |        fd00:99::1/64     |             |        fd00:99::2/64      |
#  | 10.0.0.0/8 via .2        |             | xdpong --max-prefixes ... |
#  | 2001:db8::/32 via ::2    |             |                           |
#  +--------------------------+             +---------------------------+
# xdpt-timeout: 300
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
CHECK=$XDPT_REPO/build/tests/prefix_check
[ -x "$CHECK" ] || xdpt_fail "$CHECK is missing: make tests"
# The checker runs the XDP program itself: attached alone, never as the
# extension program of libxdp's dispatcher.
export LIBXDP_SKIP_DISPATCHER=1
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_tmpdir
ip -n "$NS_PING" route add 10.0.0.0/8 via "$RESP4" || xdpt_fail "route 10.0.0.0/8"
ip -n "$NS_PING" -6 route add 2001:db8::/32 via "$RESP6" || xdpt_fail "route 2001:db8::/32"

# room FAMILY FIELD: status --json's prefixes.ipvFAMILY.FIELD (used, max).
room()
{
	xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
	jq -r ".interfaces[0].prefixes.ipv$1.$2" <<<"$XDPT_OUT"
}

# add_list FAMILY N: `xdpong addr add` of prefix_check's first N, as
# many to a call as xargs fits on a command line.
add_list()
{
	"$CHECK" list "$1" "$2" >"$XDPT_TMP/list$1"
	ip netns exec "$NS_RESP" xargs -a "$XDPT_TMP/list$1" "$XDPONG" addr "$IF_RESP" add \
		>/dev/null 2>"$XDPT_TMP/add.err" ||
		xdpt_fail "addr add of $2 IPv$1 prefixes: $(head -n 3 "$XDPT_TMP/add.err")"
}

xdpt_log "default size: 1024 a family, the 1025th refused"
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb
xdpt_assert_eq 1024 "$(room 4 max)" "IPv4 map size at the default"
xdpt_assert_eq 1024 "$(room 6 max)" "IPv6 map size at the default"
used=$(room 4 used)
add_list 4 $((1024 - used))
xdpt_assert_eq 1024 "$(room 4 used)" "IPv4 entries after filling"
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP"
xdpt_assert_match 'prefixes: IPv4 1024 of 1024, IPv6 [0-9]+ of 1024' "$XDPT_OUT" "status text"
xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" addr "$IF_RESP" add 192.0.2.1
xdpt_assert_match 'IPv4 address map is full \(1024 prefixes\).*--max-prefixes' "$XDPT_ERR" \
	"the refusal names the size and the option"

xdpt_log "a takeover without --max-prefixes keeps the size, losing no reply"
id=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdpt_ping "$NS_PING" -4 "$RESP4" 150 -i 0.01 >/dev/null &
ping_pid=$!
sleep 0.5
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb
xdpt_assert_match "took over from program id $id without a gap" "$XDPT_ERR" "took over"
wait "$ping_pid" || true
xdpt_ping "$NS_PING" -4 "$RESP4" 1 # XDPT_PING_* of the stream are the subshell's
xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq 151 "$r4" "replies to the stream and one ping after, across the takeover"
xdpt_assert_ne "$id" "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "a new program"
xdpt_assert_eq 1024 "$(room 4 max)" "IPv4 map size kept"
xdpt_assert_eq 1024 "$(room 4 used)" "IPv4 entries kept"

xdpt_log "a takeover with --max-prefixes 2000: the entries carried, the 1025th fits"
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb --max-prefixes 2000
xdpt_assert_match 'now hold 2000 IPv4 and 2000 IPv6 prefixes \(were 1024 and 1024\)' \
	"$XDPT_ERR" "the resize said"
xdpt_assert_eq 2000 "$(room 4 max)" "IPv4 map size after the resize"
xdpt_assert_eq 2000 "$(room 6 max)" "IPv6 map size after the resize"
xdpt_assert_eq 1024 "$(room 4 used)" "IPv4 entries carried into the new map"
xdpt_ok --ns "$NS_RESP" "$XDPONG" addr "$IF_RESP" add 192.0.2.1
xdpt_assert_eq 1025 "$(room 4 used)" "the 1025th IPv4 prefix"
xdpt_ping_all "$NS_PING" -4 "$("$CHECK" inside 4 7)" 2

xdpt_log "a size the entries do not fit: refused, nothing changed"
id=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" attach "$IF_RESP" --mode skb --max-prefixes 1024
re='answers for 1025 IPv4 prefixes, more than --max-prefixes 1024 holds. Nothing was changed'
xdpt_assert_match "$re" "$XDPT_ERR" "the refusal"
xdpt_assert_eq "$id" "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "program after the refusal"
xdpt_assert_eq 2000 "$(room 4 max)" "IPv4 map size after the refusal"
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb
xdpt_assert_eq 2000 "$(room 4 max)" "a plain takeover keeps 2000"
xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"

N=100000
xdpt_log "loaded for $N prefixes a family, and answering for each"
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb --no-iface-addrs --max-prefixes $N
add_list 4 $N
add_list 6 $N
xdpt_assert_eq $N "$(room 4 used)" "IPv4 entries"
xdpt_assert_eq $N "$(room 6 used)" "IPv6 entries"
xdpt_assert_eq $N "$(room 6 max)" "IPv6 map size"
xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" addr "$IF_RESP" add 2001:db9::/64
xdpt_assert_match "IPv6 address map is full \($N prefixes\)" "$XDPT_ERR" "prefix $((N + 1))"
mac=$(ip -n "$NS_RESP" -j link show dev "$IF_RESP" | jq -r '.[0].address')
id=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdpt_ok "$CHECK" run "$id" "$mac" $N
xdpt_log "$XDPT_OUT"
xdpt_assert_match "IPv4: $N of $N answered \(XDP_TX\), 64 of 64 outside passed" "$XDPT_OUT" \
	"IPv4 verdicts"
xdpt_assert_match "IPv6: $N of $N answered \(XDP_TX\), 64 of 64 outside passed" "$XDPT_OUT" \
	"IPv6 verdicts"
for i in 0 1 4242 $((N - 1)); do
	xdpt_ping_all "$NS_PING" -4 "$("$CHECK" inside 4 $i)" 1
	xdpt_ping_all "$NS_PING" -6 "$("$CHECK" inside 6 $i)" 1
done
xdpt_ping_none "$NS_PING" -4 "$("$CHECK" inside 4 $N)" 1
xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
