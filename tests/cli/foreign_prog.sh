#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# An XDP program that is not xdpong (tools/xdp_pass.bpf.c, attached with
# iproute2) is never replaced without --force, and `xdpong detach` never
# removes it. With --force, attach replaces it.
#
#   ns ping                               ns resp (kernel echo on)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  +---------------------+             | xdp_pass (generic / native)  |
#                                      +------------------------------+
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_topo_veth

for how in xdpgeneric xdpdrv; do
	xdpt_log "foreign program attached as $how"
	xdpt_xdp_pass "$NS_RESP" "$IF_RESP" "$how" ||
		xdpt_fail "cannot attach $XDP_PASS_OBJ ($how)"
	fid=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
	xdpt_assert_match '^[1-9][0-9]*$' "$fid" "foreign program id"

	for args in "" "--mode skb" "--mode auto"; do
		# shellcheck disable=SC2086 # split on purpose
		xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" attach "$IF_RESP" $args
		# Why xdpong cannot share (lib.sh switches the dispatcher off;
		# under ip netns exec there is no bpffs for it either), and
		# what the choices are.
		re="$IF_RESP already has an XDP program, [a-z_]+ \(id $fid\), and xdpong cannot"
		re+=" share the interface with it: (LIBXDP_SKIP_DISPATCHER=1 is set|there is no"
		re+=" bpffs at /sys/fs/bpf).*--force replaces it; a kernel that allows libxdp's"
		re+=" dispatcher"
		xdpt_assert_match "$re" \
			"$XDPT_ERR" "attach $args over a foreign program"
		xdpt_assert_eq "$fid" "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" \
			"foreign program id after attach $args"
	done
	xdpt_log "$XDPT_ERR"

	xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
	xdpt_assert_match "$IF_RESP has XDP program id $fid, which is not xdpong; not touching it" \
		"$XDPT_ERR" "detach of a foreign program"
	xdpt_assert_eq "$fid" "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" \
		"foreign program id after detach"
	xdpt_log "$XDPT_ERR"

	xdpt_rc 3 --ns "$NS_RESP" "$XDPONG" status "$IF_RESP"
	xdpt_assert_match "xdpong not attached \(XDP program id $fid is\)" "$XDPT_OUT" \
		"status names the foreign program"
	xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" stats "$IF_RESP"
	xdpt_assert_match "$IF_RESP: xdpong is not attached" "$XDPT_ERR" \
		"stats over a foreign program"

	# The foreign program still does its job: the kernel answers.
	xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
	ip -n "$NS_RESP" link set dev "$IF_RESP" "$how" off
done

xdpt_log "--force replaces a foreign program"
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_xdp_pass "$NS_RESP" "$IF_RESP" xdpgeneric
fid=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb --force
nid=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdpt_assert_ne "$fid" "$nid" "program id after --force"
xdpt_assert_match "^$IF_RESP: xdpong program id $nid" \
	"$(ip netns exec "$NS_RESP" "$XDPONG" status "$IF_RESP")" "status after --force"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq 2 "$r4" "reply_echo4 after replacing the foreign program"

xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
