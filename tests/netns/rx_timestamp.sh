#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --stamp-driver: STAMP's T2 from the driver's receive timestamp, through
# xdpong's device-bound build (bpf/rxts.h). A veth has the driver's
# function (bpf_xdp_metadata_rx_timestamp), but no PTP hardware clock and
# no hardware timestamp (it gives 0): so here every T2 must fall back to
# the system clock, per packet, counted, even with an offset to UTC set by
# hand in .bss (as if the NIC had a PHC), and every reply stay right field
# by field (tests/lib/stamp_sender.py, written from RFC 8762 and RFC 8972,
# which also holds T2 to the sender's real time clock, within 1 ms). What
# cannot work is refused with nothing attached (a program already there
# kept).
#
#   ns ping                                 ns resp (nothing listens on UDP)
#  +-----------------------+  veth pair  +-------------------------------+
#  | xp<id> 10.99.0.1/24   |-------------| xr<id> 10.99.0.2/24           |
#  |        fd00:99::1     |             |        fd00:99::2             |
#  | stamp_sender.py       |             | xdpong --stamp --stamp-driver |
#  | xdp_pass (native)     |             |   (native, alone, dev-bound)  |
#  +-----------------------+             +-------------------------------+
. "$(dirname "$0")/../lib/lib.sh"

SENDER=$XDPT_REPO/tests/lib/stamp_sender.py
N=3

xdpt_require_all
xdpt_require_feature rx_timestamp "--stamp-driver"
xdpt_topo_veth
xdpt_peer_xdp_pass
# Checksums complete on the wire (stamp.sh says why).
ip netns exec "$NS_PING" ethtool -K "$IF_PING" tx off >/dev/null ||
	xdpt_fail "cannot turn checksum offload off on $IF_PING"
xdpt_tmpdir

# refused WHAT ERE [attach options]: attach exits 1 saying ERE, and the
# interface keeps no program.
refused()
{
	local what=$1 ere=$2

	shift 2
	xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" attach "$IF_RESP" "$@"
	xdpt_assert_match "$ere" "$XDPT_ERR" "refused: $what"
	xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "nothing attached: $what"
}

xdpt_log "refused: without --stamp, in skb mode"
refused "no --stamp" "--stamp-driver is STAMP's: it needs --stamp" --stamp-driver
refused "skb mode" "--stamp-driver needs native mode" --stamp --stamp-driver --mode skb

xdpt_log "refused: a driver without native XDP (TUN)"
ip -n "$NS_RESP" tuntap add dev "xt$XDPT_ID" mode tun || xdpt_fail "cannot add a TUN device"
ip -n "$NS_RESP" link set "xt$XDPT_ID" up
xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" attach "xt$XDPT_ID" --stamp --stamp-driver
xdpt_assert_match "cannot load xdpong bound to it \(--stamp-driver\): .*no native XDP\)$" \
	"$XDPT_ERR" "refused: TUN"
ip -n "$NS_RESP" link del "xt$XDPT_ID"

xdpt_log "refused: another program there, which it cannot share the interface with"
xdpt_xdp_pass "$NS_RESP" "$IF_RESP" xdpdrv || xdpt_fail "cannot attach xdp_pass to $IF_RESP"
other=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" attach "$IF_RESP" --stamp --stamp-driver
xdpt_assert_match "libxdp's dispatcher cannot run a program bound so. --force replaces it" \
	"$XDPT_ERR" "refused: another program"
xdpt_assert_eq "$other" "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "the other program stays"
ip -n "$NS_RESP" link set dev "$IF_RESP" xdpdrv off

xdpt_log "the config key, per interface"
printf '[interface %s]\nstamp = yes\nstamp-driver = yes\n' "$IF_RESP" >"$XDPT_TMP/ok.conf"
xdpt_ok "$XDPONG" config check "$XDPT_TMP/ok.conf"

xdpt_log "attached device-bound, in native mode"
xdpt_attach "$NS_RESP" "$IF_RESP" --stamp --stamp-driver
xdpt_assert_match "attached to $IF_RESP in native mode" "$XDPT_OUT" "attach message"
xdpt_assert_match "$IF_RESP has no PTP hardware clock" "$XDPT_ERR" "the note on the PHC"
id=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
# The kernel's word that it is bound: it test-runs no device-bound program.
printf '%064d' 0 | xxd -r -p >"$XDPT_TMP/frame"
xdpt_run bpftool prog run id "$id" data_in "$XDPT_TMP/frame"
xdpt_assert_ne 0 "$XDPT_RC" "bpftool prog run refused on program $id"
xdpt_assert_match "Invalid argument" "$XDPT_ERR" "the kernel's reason: device-bound"

xdpt_log "every field of every reply, T2 from the system clock"
for fam in 4 6; do
	dst=$RESP4
	[ "$fam" = 6 ] && dst=$RESP6
	xdpt_run --ns "$NS_PING" /usr/bin/python3 "$SENDER" "$dst" --family "$fam" \
		--count "$N" --expect reply --no-s --tlvs
	[ "$XDPT_RC" = 0 ] || xdpt_fail "IPv$fam: $XDPT_OUT $XDPT_ERR"
done
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get r4 reply_stamp4
xdpt_get r6 reply_stamp6
xdpt_assert_eq "$N $N" "$r4 $r6" "reply_stamp4 reply_stamp6"

xdpt_log "status: the clock, the PHC, where the T2s came from"
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
st=$(jq -r '.interfaces[0].stamp | "\(.clock) \(.system_clock) \(.driver.phc)" +
	" \(.driver.phc_in_step) \(.driver.t2_driver) \(.driver.t2_system)"' <<<"$XDPT_OUT")
xdpt_assert_eq "driver tai null false 0 $((2 * N))" "$st" \
	"status --json: stamp clock, PHC, T2 counts"
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP"
xdpt_assert_match "stamp: +UDP port 862, clock driver, else tai" "$XDPT_OUT" "status: stamp line"
xdpt_assert_match "T2: +from the driver, but the NIC has no PTP hardware clock; 0 taken so, \
$((2 * N)) from the system clock" "$XDPT_OUT" "status: T2 line"
xdpt_ok --ns "$NS_RESP" "$XDPONG" stats "$IF_RESP" --prometheus
xdpt_assert_eq "0 $((2 * N))" \
	"$(sed -n "s/^xdpong_stamp_t2_total{device=\"$IF_RESP\",clock=\"\(driver\|system\)\"} //p" \
	<<<"$XDPT_OUT" | paste -sd' ')" "the metrics' T2 counts, driver and system"

# bss_set_u32 NAME VALUE: the running program's .bss variable NAME (a
# __u32, VALUE < 256) set through bpftool, found by its BTF, as no xdpong
# command would set it.
bss_set_u32()
{
	local map btf off

	xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
	map="id $(jq .interfaces[0].maps.bss <<<"$XDPT_OUT")"
	# shellcheck disable=SC2086 # "id N"
	btf=$(bpftool -j map show $map | jq .btf_id)
	off=$(bpftool -j btf dump id "$btf" | jq --arg n "$1" '
		([.types[] | select(.kind == "VAR" and .name == $n) | .id][0]) as $v |
		.types[] | select(.kind == "DATASEC" and .name == ".bss") | .vars[] |
		select(.type_id == $v) | .offset')
	[ -n "$off" ] || xdpt_fail "no .bss variable $1 in BTF $btf"
	# shellcheck disable=SC2046,SC2086 # "id N", one word a byte
	bpftool map update $map key 0 0 0 0 value $(bpftool -j map dump $map |
		jq -r --argjson o "$off" --arg v "$(printf '0x%02x' "$2")" \
			'.[0].value | .[$o] = $v | .[$o + 1:$o + 4] |= map("0x00") | join(" ")') ||
		xdpt_fail "cannot set $1 in map $map"
}

xdpt_log "an offset known, the driver's 0 still falls back to the system clock"
bss_set_u32 stamp_phc_ok 1
xdpt_run --ns "$NS_PING" /usr/bin/python3 "$SENDER" "$RESP4" --count "$N" --expect reply --no-s \
	--tlvs
[ "$XDPT_RC" = 0 ] || xdpt_fail "with an offset: $XDPT_OUT $XDPT_ERR"
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
st=$(jq -r '.interfaces[0].stamp.driver |
	"\(.phc_in_step) \(.phc_offset_ns) \(.t2_driver) \(.t2_system)"' <<<"$XDPT_OUT")
xdpt_assert_eq "true 0 0 $((3 * N))" "$st" "status --json: in step, T2 counts"
xdpt_log "taken over by --stamp-driver again: no offset taken over from the old .bss"
xdpt_attach "$NS_RESP" "$IF_RESP" --stamp --stamp-driver
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
xdpt_assert_eq false "$(jq -r '.interfaces[0].stamp.driver.phc_in_step' <<<"$XDPT_OUT")" \
	"status --json: not in step after the takeover"

xdpt_log "taken over by the usual build: T2 from the clock again"
xdpt_attach "$NS_RESP" "$IF_RESP" --stamp
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
st=$(jq -r '.interfaces[0].stamp | "\(.clock) \(.driver)"' <<<"$XDPT_OUT")
xdpt_assert_eq "tai null" "$st" "status --json after the takeover"
xdpt_ok bpftool prog run id "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" data_in "$XDPT_TMP/frame"
xdpt_run --ns "$NS_PING" /usr/bin/python3 "$SENDER" "$RESP4" --count 1 --expect reply --no-s
[ "$XDPT_RC" = 0 ] || xdpt_fail "after the takeover: $XDPT_OUT $XDPT_ERR"
xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
