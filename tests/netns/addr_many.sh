#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --addr takes as many prefixes as the command line carries; only the
# address maps' size (--max-prefixes) bounds them:
#  - 2,000 IPv4 and 2,000 IPv6 --addr on one attach, without
#    --max-prefixes (maps of 1024): refused, naming the option, nothing
#    attached; with --max-prefixes 1999: a usage error (exit 2);
#  - with --max-prefixes 4096: attached, status --json lists the 2,000 of
#    each family (origin config) and the interface's own, in maps of 4096,
#    and real pings to sampled prefixes are answered, one outside is not;
#  - a takeover with the same list and no --max-prefixes keeps the 4096.
#
#   ns ping                                  ns resp (kernel echo off)
#  +--------------------------+  veth pair  +---------------------------+
#  | xp<id> 10.99.0.1/24      |-------------| xr<id> 10.99.0.2/24       |
#  |        fd00:99::1/64     |             |        fd00:99::2/64      |
#  | 10.0.0.0/8 via .2        |             | xdpong --addr x 4000      |
#  | 2001:db8::/32 via ::2    |             |                           |
#  +--------------------------+             +---------------------------+
# xdpt-timeout: 180
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
CHECK=$XDPT_REPO/build/tests/prefix_check
[ -x "$CHECK" ] || xdpt_fail "$CHECK is missing: make tests"
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
ip -n "$NS_PING" route add 10.0.0.0/8 via "$RESP4" || xdpt_fail "route 10.0.0.0/8"
ip -n "$NS_PING" -6 route add 2001:db8::/32 via "$RESP6" || xdpt_fail "route 2001:db8::/32"

N=2000
# prefix_check's first N of each family, each an --addr of one command line.
ADDRS=()
while read -r p; do
	ADDRS+=(--addr "$p")
done < <("$CHECK" list 4 $N && "$CHECK" list 6 $N)
xdpt_assert_eq $((4 * N)) "${#ADDRS[@]}" "--addr words on the command line"

xdpt_log "$N a family in maps of 1024: refused, nothing attached"
xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" attach "$IF_RESP" --mode skb "${ADDRS[@]}"
re="^xdpong: $IF_RESP: $N IPv4 --addr prefixes, more than the address maps hold \(1024\):"
re+=" raise --max-prefixes\. Nothing was changed$"
xdpt_assert_match "$re" "$XDPT_ERR" "the refusal at the default size"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "program after the refusal"
xdpt_rc 2 --ns "$NS_RESP" "$XDPONG" attach "$IF_RESP" --mode skb --max-prefixes $((N - 1)) \
	"${ADDRS[@]}"
xdpt_assert_eq "xdpong: $N IPv4 --addr prefixes, more than --max-prefixes $((N - 1)) holds" \
	"$XDPT_ERR" "the usage error"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "program after the usage error"

# check_status WHEN: maps of 4096, the N --addr of each family listed as
# config, the interface's own as iface, and nothing else.
check_status()
{
	local fam own n used

	xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
	for fam in 4 6; do
		# A family's entries: IPv6 prefixes hold a ':'.
		own=$(jq --argjson v6 $((fam == 6)) '[.interfaces[0].addresses[] |
			select((.prefix | contains(":")) == ($v6 == 1))] | group_by(.origin) |
			map({(.[0].origin): length}) | add' <<<"$XDPT_OUT")
		xdpt_assert_eq 4096 "$(jq ".interfaces[0].prefixes.ipv$fam.max" <<<"$XDPT_OUT")" \
			"IPv$fam map size $1"
		xdpt_assert_eq $N "$(jq '.config' <<<"$own")" "IPv$fam config prefixes $1"
		n=$(jq '.iface' <<<"$own")
		xdpt_assert_match '^[1-9]' "$n" "the interface's own IPv$fam addresses $1"
		used=$(jq ".interfaces[0].prefixes.ipv$fam.used" <<<"$XDPT_OUT")
		xdpt_assert_eq $((N + n)) "$used" "IPv$fam entries, all config or iface, $1"
	done
}

xdpt_log "$N a family with --max-prefixes 4096: attached, listed and answered"
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb --max-prefixes 4096 "${ADDRS[@]}"
check_status "after attach"
for i in 0 1 999 $((N - 1)); do
	xdpt_ping_all "$NS_PING" -4 "$("$CHECK" inside 4 $i)" 1
	xdpt_ping_all "$NS_PING" -6 "$("$CHECK" inside 6 $i)" 1
done
xdpt_ping_none "$NS_PING" -4 "$("$CHECK" inside 4 $N)" 1
xdpt_ping_none "$NS_PING" -6 "$("$CHECK" inside 6 $N)" 1

xdpt_log "a takeover with the same list and no --max-prefixes keeps the size"
id=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb "${ADDRS[@]}"
xdpt_assert_match "took over from program id $id" "$XDPT_ERR" "took over"
check_status "after the takeover"
xdpt_ping_all "$NS_PING" -4 "$("$CHECK" inside 4 $((N - 1)))" 1
xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
