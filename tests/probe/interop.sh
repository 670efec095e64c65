#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# xdpong probe across a veth pair, IPv4 and IPv6, against every responder
# it is for:
#  1. a user-space STAMP reflector written from the RFCs
#     (tests/lib/stamp_reflector.py), probed as uid 65534: every probe
#     answered, each read once by the reflector, Ses-Sender TTL 64, T1
#     and T4 the kernel's;
#  2. xdpong's XDP reflector (attach --stamp), native and skb mode: its
#     reply_stamp4 and reply_stamp6 counters move by exactly the probes
#     sent, and no one-way delay is claimed (attach never sets S). Some
#     kernels (Debian 13's 6.12) deliver a reply XDP sent back over a veth
#     without a receive timestamp: the fallback is then said once, and the
#     counts are exact all the same;
#  3. ICMP against the kernel, then against xdpong with the kernel's echo
#     off (its reply_echo4 and reply_echo6 move by exactly the probes).
#
#   ns ping                                 ns resp
#  +-----------------------+  veth pair  +-------------------------------+
#  | xp<id> 10.99.0.1/24   |-------------| xr<id> 10.99.0.2/24           |
#  |        fd00:99::1     |             |        fd00:99::2             |
#  | xdpong probe          |             | stamp_reflector.py, or xdpong |
#  +-----------------------+             +-------------------------------+
. "$(dirname "$0")/../lib/probe.bash"

N=5

xdpt_require_all
xdpt_require_cmd setpriv ethtool
xdpt_topo_veth
xdpt_peer_xdp_pass
xdpt_tmpdir
# The probes' UDP checksums complete on the wire, as a NIC sends them: a
# veth otherwise leaves them to offload, and xdpong passes those
# (pass_udp_csum; xdpong(8), STAMP).
ip netns exec "$NS_PING" ethtool -K "$IF_PING" tx off >/dev/null ||
	xdpt_fail "cannot turn checksum offload off on $IF_PING"

# probe_both WHAT [probe options]: N probes to RESP4 and RESP6, --json, as
# uid 65534; every one answered. FALLBACK=1: T4 may be user space's (said
# once at most).
FALLBACK=0
probe_both()
{
	local what=$1

	shift
	xdpt_run --ns "$NS_PING" "${NOBODY[@]}" "$XDPONG" -v probe -c "$N" -i 0.05 "$@" --json \
		"$RESP4" "$RESP6"
	[ "$XDPT_RC" = 0 ] || xdpt_fail "$what: exit $XDPT_RC: $XDPT_ERR $XDPT_OUT"
	xdpt_assert_eq "$N $N 0 0 0|$N $N 0 0 0" "$(jq -r '.targets | map([.sent, .received,
		.lost, .duplicates, .reordered] | map(tostring) | join(" ")) | join("|")' \
		<<<"$XDPT_OUT")" "$what: sent received lost duplicates reordered"
	if [ "$FALLBACK" = 1 ]; then
		xdpt_assert_no_match 'no transmit timestamp' "$XDPT_ERR" "$what: T1 from the kernel"
		[ "$(grep -c 'no receive timestamp' <<<"$XDPT_ERR")" -le 1 ] ||
			xdpt_fail "$what: the fallback said more than once: $XDPT_ERR"
		return
	fi
	xdpt_assert_no_match 'no (transmit|receive) timestamp' "$XDPT_ERR" \
		"$what: T1 and T4 from the kernel"
}

xdpt_log "1. the user-space reflector, IPv4 and IPv6, as uid 65534"
xpr_reflector "$NS_RESP" 4 "$XDPT_TMP/r4.log"
R4=$XPR_PID
xpr_reflector "$NS_RESP" 6 "$XDPT_TMP/r6.log"
R6=$XPR_PID
probe_both "user-space reflector"
xdpt_assert_eq "$N $N" "$(wc -l <"$XDPT_TMP/r4.log") $(wc -l <"$XDPT_TMP/r6.log")" \
	"requests the reflector read"
xdpt_assert_eq "64" "$(cat "$XDPT_TMP/r4.log" "$XDPT_TMP/r6.log" | awk '{ print $2 }' |
	sort -u)" "the TTL and hop limit the reflector read"
xpr_probe --ns "$NS_PING" -c 2 -i 0.05 "$RESP6"
xdpt_assert_match "^44 bytes from $RESP6: seq=1 ttl=64 rtt=[0-9.]+ ms reflector=" "$XDPT_OUT" \
	"a reply line"
kill "$R4" "$R6"
wait "$R4" "$R6" 2>/dev/null

FALLBACK=1
for mode in native skb; do
	xdpt_log "2. xdpong's XDP reflector (attach --stamp), $mode mode"
	xdpt_attach "$NS_RESP" "$IF_RESP" --mode "$mode" --stamp
	xdpt_stats "$NS_RESP" "$IF_RESP"
	xdpt_get s4 reply_stamp4
	xdpt_get s6 reply_stamp6
	probe_both "xdpong --stamp, $mode"
	xdpt_assert_eq "false false" "$(jq -r '.targets | map(has("forward_ns")) | join(" ")' \
		<<<"$XDPT_OUT")" "no one-way delays: attach's reflector never claims S"
	xdpt_assert_eq "true true" "$(jq -r '.targets | map(.reflector_ns.max < 1000000) |
		join(" ")' <<<"$XDPT_OUT")" "xdpong's residence under 1 ms"
	xdpt_stats "$NS_RESP" "$IF_RESP"
	xdpt_get n4 reply_stamp4
	xdpt_get n6 reply_stamp6
	xdpt_assert_eq "$N $N" "$((n4 - s4)) $((n6 - s6))" "STAMP reflected by xdpong ($mode)"
	xdpt_assert_consistent
	xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
done
FALLBACK=0

xdpt_log "3. ICMP: the kernel, then xdpong alone (native)"
xdpt_sysctl "$NS_PING" net.ipv4.ping_group_range "0 2147483647"
probe_both "ICMP, the kernel" --icmp
xdpt_attach "$NS_RESP" "$IF_RESP" --mode native
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get e4 reply_echo4
xdpt_get e6 reply_echo6
FALLBACK=1
probe_both "ICMP, xdpong" --icmp
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get n4 reply_echo4
xdpt_get n6 reply_echo6
xdpt_assert_eq "$N $N" "$((n4 - e4)) $((n6 - e6))" "echo answered by xdpong"
xdpt_assert_consistent
xdpt_pass
