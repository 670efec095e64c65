#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Least privilege: with CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN and no
# CAP_SYS_ADMIN (the unit's bounding set), every command works on an
# xdpong found by its pins: attach, takeover, run, kill -9 and a run that
# takes over without a gap or a lost count, stats, status, detach. Where
# CAP_SYS_ADMIN is still needed (no pins to go by, a program xdpong
# cannot identify), the command says so by name. A command without the
# capabilities it needs names them and exits 1, changing nothing.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24  xdpong  |
#  +---------------------+             | (nsenter: the host's bpffs)  |
#                                      +------------------------------+
. "$(dirname "$0")/../lib/faults.bash"

xdf_require
xdpt_require_cmd setpriv
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_track_pins "$IF_RESP"
xdpt_tmpdir
IN=(nsenter "--net=/run/netns/$NS_RESP")

# caps LIST: in CAPS, the command that runs another with exactly the
# capabilities LIST (setpriv's syntax: -all,+bpf,...), effective, and
# nothing to regain.
caps()
{
	CAPS=(setpriv --inh-caps="$1" --ambient-caps="$1" --bounding-set="$1")
}
caps -all,+bpf,+perfmon,+net_admin
LEAN=("${CAPS[@]}")

# replied: the count, read without CAP_SYS_ADMIN either (CAP_BPF alone).
replied()
{
	"${IN[@]}" setpriv --inh-caps=-all,+bpf --ambient-caps=-all,+bpf \
		--bounding-set=-all,+bpf "$XDPONG" stats "$IF_RESP" --json | jq -r .replied
}

pings()
{
	local n=$1 out

	out=$(ip netns exec "$NS_PING" ping -n -q -c "$n" -i 0.05 -W 1 "$RESP4" 2>&1)
	grep -q " $n received" <<<"$out" ||
		xdpt_fail "$n pings not all answered: $(grep transmitted <<<"$out")"
}

# 1. attach, answered, and found again by stats and status.
xdpt_ok "${IN[@]}" "${LEAN[@]}" "$XDPONG" attach "$IF_RESP" --mode skb
xdpt_assert_match "attached to $IF_RESP in skb mode" "$XDPT_OUT" "attach without CAP_SYS_ADMIN"
id1=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdpt_assert_ne 0 "$id1" "XDP program on $IF_RESP"
pings 5
xdpt_assert_eq 5 "$(replied)" "replied after 5 pings, read with CAP_BPF alone"
xdpt_ok "${IN[@]}" "${LEAN[@]}" "$XDPONG" status "$IF_RESP" --json
xdpt_assert_eq "$id1" "$(jq -r '.interfaces[0].prog_id' <<<"$XDPT_OUT")" "prog_id in status --json"
xdpt_assert_eq false "$(jq -r '.interfaces[0].dispatcher' <<<"$XDPT_OUT")" \
	"dispatcher in status --json"
# With CAP_SYS_ADMIN the same program is found the other way.
xdpt_ok "${IN[@]}" "$XDPONG" status "$IF_RESP" --json
xdpt_assert_eq "$id1" "$(jq -r '.interfaces[0].prog_id' <<<"$XDPT_OUT")" \
	"prog_id seen with CAP_SYS_ADMIN"
ls /run/xdpong/btf/ | grep -q . || xdpt_fail "no BTF kept in /run/xdpong/btf"

# 2. run takes over, is killed, and the next run takes over: no ping
# unanswered, no count lost.
"${IN[@]}" "${LEAN[@]}" "$XDPONG" run "$IF_RESP" >"$XDPT_TMP/run1" 2>&1 &
XDF_RUN_PID=$!
xdf_run_wait_attached "$NS_RESP" "$IF_RESP" 20 "$id1" ||
	{ cat "$XDPT_TMP/run1" >&2; xdpt_fail "run without CAP_SYS_ADMIN did not take over"; }
grep -q "took over from program id $id1 without a gap" "$XDPT_TMP/run1" ||
	{ cat "$XDPT_TMP/run1" >&2; xdpt_fail "run did not take over without a gap"; }
id2=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
pings 5
kill -9 "$XDF_RUN_PID"
wait "$XDF_RUN_PID" 2>/dev/null
pings 5
"${IN[@]}" "${LEAN[@]}" "$XDPONG" run "$IF_RESP" >"$XDPT_TMP/run2" 2>&1 &
XDF_RUN_PID=$!
xdf_run_wait_attached "$NS_RESP" "$IF_RESP" 20 "$id2" ||
	{ cat "$XDPT_TMP/run2" >&2; xdpt_fail "the second run did not take over"; }
grep -q "took over from program id $id2 without a gap" "$XDPT_TMP/run2" ||
	{ cat "$XDPT_TMP/run2" >&2; xdpt_fail "the second run did not take over without a gap"; }
pings 5
xdpt_assert_eq 20 "$(replied)" "replied after 20 pings across two takeovers and a kill -9"
kill -TERM "$XDF_RUN_PID"
xdf_wait_exit "$XDF_RUN_PID" 10 || xdpt_fail "run did not exit on SIGTERM"
xdpt_assert_eq 0 "$XDF_EXIT" "run's exit code on SIGTERM"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "XDP program after SIGTERM"
[ ! -e "$XDPT_PIN_ROOT/$IF_RESP" ] ||
	xdpt_fail "pins left after SIGTERM: $(ls "$XDPT_PIN_ROOT/$IF_RESP")"
ino=$(stat -L -c %i "/run/netns/$NS_RESP")
ifindex=$(ip -n "$NS_RESP" -j link show dev "$IF_RESP" | jq -r '.[0].ifindex')
! ls /run/xdpong/btf/ 2>/dev/null | grep -q "^$ino-$ifindex-" ||
	xdpt_fail "BTF kept after the detach: $(ls /run/xdpong/btf)"

# 3. attach, then detach without CAP_SYS_ADMIN.
caps -all,+bpf,+net_admin
DETACH=("${CAPS[@]}")
xdpt_ok "${IN[@]}" "${LEAN[@]}" "$XDPONG" attach "$IF_RESP" --mode skb
xdpt_ok "${IN[@]}" "${DETACH[@]}" "$XDPONG" detach "$IF_RESP"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "XDP program after detach"

# 4. Where CAP_SYS_ADMIN is needed, said by name. Under ip netns exec
# (no bpffs: no pins to go by) attach refuses, and changes nothing.
xdpt_rc 1 --ns "$NS_RESP" "${LEAN[@]}" "$XDPONG" attach "$IF_RESP" --mode skb
xdpt_assert_match "no bpffs at /sys/fs/bpf .*without CAP_SYS_ADMIN" "$XDPT_ERR" \
	"attach under ip netns exec"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "XDP program after the refusal"
# A program without xdpong's pins: it cannot be told from a stranger.
xdpt_xdp_pass "$NS_RESP" "$IF_RESP" xdpgeneric
other=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdpt_rc 1 "${IN[@]}" "${LEAN[@]}" "$XDPONG" status "$IF_RESP"
xdpt_assert_match "program id $other is attached, and there are no xdpong pins .*CAP_SYS_ADMIN" \
	"$XDPT_ERR" "status of a program without pins"
xdpt_rc 1 "${IN[@]}" "${LEAN[@]}" "$XDPONG" attach "$IF_RESP" --mode skb
xdpt_assert_match "needs CAP_SYS_ADMIN" "$XDPT_ERR" "attach next to a program it cannot identify"
xdpt_assert_eq "$other" "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" \
	"the other program after the refusal"
ip -n "$NS_RESP" link set dev "$IF_RESP" xdpgeneric off

# 5. Without what a command needs: one line naming it, exit 1, nothing done.
check_refused()
{
	local c=$1 want=$2

	shift 2
	caps "$c"
	xdpt_rc 1 "${IN[@]}" "${CAPS[@]}" "$XDPONG" "$@"
	xdpt_assert_match \
		"^xdpong: running as root but without the needed capabilities: missing $want \(" \
		"$XDPT_ERR" "xdpong $* with $c"
	xdpt_assert_eq 1 "$(wc -l <<<"$XDPT_ERR")" "lines of the refusal of xdpong $*"
}
check_refused -all,+bpf,+net_admin "CAP_PERFMON" attach "$IF_RESP" --mode skb
check_refused -all,+bpf "CAP_PERFMON and CAP_NET_ADMIN" run "$IF_RESP"
check_refused -all "CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN" attach "$IF_RESP"
check_refused -all,+net_admin "CAP_BPF" detach "$IF_RESP"
check_refused -all,+bpf "CAP_NET_ADMIN" detach "$IF_RESP"
check_refused -all,+net_admin "CAP_BPF" status "$IF_RESP"
check_refused -all "CAP_BPF" stats "$IF_RESP"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "XDP program after the refusals"
xdpt_pass
