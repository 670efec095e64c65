#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fault: the interface is deleted while xdpong is attached. Nothing
# crashes, `xdpong status IFACE` says it is gone, names the pins left and
# the command that removes them, and exits 1; status changes nothing
# (read-only, as status commands are); detach removes the stale pins;
# `xdpong run` exits 1 and removes its pins itself, whichever end of the
# veth pair is deleted.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +-----------------------------+
#  | xp<id> 10.99.0.1    |-------------| xr<id> 10.99.0.2  <- xdpong |
#  | xa<n><id> 10.98.0.1 |-------------| xb<n><id> 10.98.0.2 (n=2..5)|
#  +---------------------+             +-----------------------------+
#
# Each part uses a fresh pair; xdpong runs through nsenter so its pins
# are in this host's bpffs, where the test can see them go.
. "$(dirname "$0")/../lib/faults.bash"

xdf_require
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_tmpdir

# attach_and_delete IFACE: attach, prove XDP answers, delete the interface.
attach_and_delete()
{
	xdpt_track_pins "$1"
	xdf_x_ok "$NS_RESP" attach "$1"
	xdf_assert_state "$NS_RESP" "$1" attached "after attach to $1"
	xdpt_ping_all "$NS_PING" -4 "$2" 2
	ip -n "$NS_RESP" link del "$1" || xdpt_fail "cannot delete $1"
}

xdpt_log "1. attach, delete, status IFACE: says so, exits 1, leaves the pins"
attach_and_delete "$IF_RESP" "$RESP4"
xdf_x_rc 1 "$NS_RESP" status "$IF_RESP"
re="$IF_RESP is gone \(deleted while xdpong was attached\); its pins remain in"
re+=" $XDPT_PIN_ROOT/$IF_RESP: 'xdpong detach $IF_RESP' removes them"
xdpt_assert_match "$re" \
	"$XDPT_ERR" "status of the deleted $IF_RESP"
[ -e "$XDPT_PIN_ROOT/$IF_RESP/stats" ] || xdpt_fail "status removed the pins of $IF_RESP"
xdf_x_ok "$NS_RESP" status
xdpt_assert_match "$IF_RESP: gone .*'xdpong detach $IF_RESP' removes them" "$XDPT_OUT" \
	"status without IFACE"
xdpt_assert_match "not attached to any interface" "$XDPT_OUT" "status without IFACE"
xdf_x_ok "$NS_RESP" status --json
xdpt_assert_eq "true" "$(jq --arg i "$IF_RESP" '.stale_pins | index($i) != null' <<<"$XDPT_OUT")" \
	"stale_pins in status --json"
[ -e "$XDPT_PIN_ROOT/$IF_RESP/stats" ] || xdpt_fail "status (all) removed the pins of $IF_RESP"
xdf_x_ok "$NS_RESP" detach "$IF_RESP"
xdf_assert_state "$NS_RESP" "$IF_RESP" none "after detach of the deleted $IF_RESP"
xdf_x_rc 1 "$NS_RESP" status "$IF_RESP"
xdpt_assert_match "not found" "$XDPT_ERR" "status of the deleted $IF_RESP after detach"

xdpt_log "2. attach, delete, detach IFACE: removes the stale pins, exits 0"
IF_A="xa2$XDPT_ID" IF_B="xb2$XDPT_ID"
xdf_veth "$NS_PING" "$IF_A" 10.98.0.1 "$NS_RESP" "$IF_B" 10.98.0.2
attach_and_delete "$IF_B" 10.98.0.2
xdf_x_ok "$NS_RESP" detach "$IF_B"
xdpt_assert_match "$IF_B is gone; removed its $(wc -w <<<"$XDF_PIN_NAMES") stale pins" \
	"$XDPT_OUT" "detach of the deleted $IF_B"
xdf_assert_state "$NS_RESP" "$IF_B" none "after detach of the deleted $IF_B"

xdpt_log "3. attach, delete, attach again under the same name: the stale pins are replaced"
IF_A="xa3$XDPT_ID" IF_B="xb3$XDPT_ID"
xdf_veth "$NS_PING" "$IF_A" 10.98.0.1 "$NS_RESP" "$IF_B" 10.98.0.2
attach_and_delete "$IF_B" 10.98.0.2
xdf_veth "$NS_PING" "$IF_A" 10.98.0.1 "$NS_RESP" "$IF_B" 10.98.0.2
xdf_x_ok "$NS_RESP" attach "$IF_B"
xdf_assert_state "$NS_RESP" "$IF_B" attached "after attaching the new $IF_B"
xdpt_ping_all "$NS_PING" -4 10.98.0.2 2
xdf_x_ok "$NS_RESP" detach "$IF_B"
xdf_assert_state "$NS_RESP" "$IF_B" none "after detach of the new $IF_B"
ip -n "$NS_RESP" link del "$IF_B" # the next parts reuse its addresses

# run_and_delete N WHICH: `xdpong run` on a fresh pair, then delete the
# responder's end (WHICH=resp) or the pinger's end (WHICH=peer).
run_and_delete()
{
	local out="$XDPT_TMP/run$1" t

	IF_A="xa$1$XDPT_ID" IF_B="xb$1$XDPT_ID"
	xdf_veth "$NS_PING" "$IF_A" 10.98.0.1 "$NS_RESP" "$IF_B" 10.98.0.2
	xdpt_track_pins "$IF_B"
	xdf_run_bg "$NS_RESP" "$out" "$IF_B"
	xdf_run_wait_attached "$NS_RESP" "$IF_B" 10 ||
		{ cat "$out" >&2; xdpt_fail "run did not attach to $IF_B within 10 s"; }
	xdpt_ping_all "$NS_PING" -4 10.98.0.2 2
	if [ "$2" = resp ]; then
		ip -n "$NS_RESP" link del "$IF_B"
	else
		ip -n "$NS_PING" link del "$IF_A"
	fi
	xdf_wait_exit "$XDF_RUN_PID" 5 ||
		{ cat "$out" >&2; xdpt_fail "run still running 5 s after $IF_B was deleted"; }
	t=$(xdf_ms)
	[ "$XDF_EXIT" = 1 ] || {
		cat "$out" >&2
		xdpt_fail "run exited $XDF_EXIT after $IF_B was deleted, expected 1"
	}
	xdpt_assert_match "$IF_B was deleted" "$(cat "$out")" "run's message"
	xdf_assert_state "$NS_RESP" "$IF_B" none "after run saw $IF_B deleted"
	xdf_x_rc 1 "$NS_RESP" status "$IF_B"
	xdpt_log "run exited 1 and removed its pins (at $t ms)"
}

xdpt_log "4. run, delete its interface: run exits 1 and removes its pins"
run_and_delete 4 resp
xdpt_log "5. run, delete the veth peer (takes the pair): the same"
run_and_delete 5 peer
xdf_pass
