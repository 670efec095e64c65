#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Round trips of one echo request on every path xdpong is compared with,
# RTT_COUNT (default 20) requests 0.2 s apart each, IPv4, 56-byte payload:
#
#   kernel          ping -> veth -> the peer namespace's kernel answers
#   xdpong veth     the same, the kernel's echo off, xdpong skb / native
#   xdpong TAP/TUN  tuntap_echo writes into the device fd, xdpong answers
#                   (native on the TAP, skb on the TUN); timed write->read
#   tun-stack       ping -> TUN -> tools/tun-stack in user space
#   FIFO helper     ping -> TUN -> tools/tun-helper -> FIFOs -> a shell
#                   loop running tools/pong-hex --reply-only per packet
#
# Passes if every path answers every request; prints the medians as a
# table (tools/tun/README.md has one such table, with the machine and date).
. "$(dirname "$0")/../lib/lib.sh"

RTT_COUNT=${RTT_COUNT:-20}
TUNTAP_ECHO=${TUNTAP_ECHO:-$XDPT_REPO/build/tests/tuntap_echo}
TUN_STACK=${TUN_STACK:-$XDPT_REPO/build/tools/tun-stack}
TUN_HELPER=${TUN_HELPER:-$XDPT_REPO/build/tools/tun-helper}
PONG_HEX=${PONG_HEX:-$XDPT_REPO/build/tools/pong-hex}
HERE=$(cd "$(dirname "$0")" && pwd)
ROWS=()

# The median of ping's "time=X ms" values.
ping_median()
{
	printf '%s\n' "$1" | sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) exit 1
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.3f", m }'
}

# row LABEL MEDIAN ANSWERED HOW
row()
{
	ROWS+=("$(printf '| %-34s | %9s ms | %5s | %s |' "$1" "$2" "$3" "$4")")
	xdpt_log "$1: median $2 ms ($3 answered)"
}

# ping_row NS DST LABEL HOW: RTT_COUNT pings, every one answered.
ping_row()
{
	local median

	xdpt_ping_all "$1" -4 "$2" "$RTT_COUNT"
	median=$(ping_median "$XDPT_PING_OUT") || xdpt_fail "$3: no times in ping's output"
	row "$3" "$median" "$XDPT_PING_RECEIVED/$RTT_COUNT" "$4"
}

xdpt_require_all
for b in "$TUNTAP_ECHO" "$TUN_STACK" "$TUN_HELPER" "$PONG_HEX"; do
	[ -x "$b" ] || xdpt_fail "$b is missing: run 'make all tests' first"
done
[ -c /dev/net/tun ] || xdpt_skip "no /dev/net/tun"
xdpt_tmpdir

# Kernel, then xdpong on the same veth pair.
xdpt_topo_veth
ping_row "$NS_PING" "$RESP4" "kernel (veth peer)" "ping"
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb
ping_row "$NS_PING" "$RESP4" "xdpong, veth, skb mode" "ping"
xdpt_peer_xdp_pass
xdpt_attach "$NS_RESP" "$IF_RESP" --mode native --force
ping_row "$NS_PING" "$RESP4" "xdpong, veth, native mode" "ping"
xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"

# xdpong on a TAP (native) and a TUN (skb), timed from the device's fd.
for kind in tap tun; do
	xdpt_ns_new ns "r$kind"
	xdpt_kernel_echo_ignore "$ns" 1
	xdpt_run --ns "$ns" "$TUNTAP_ECHO" "--$kind" "r$kind$XDPT_ID" \
		--local4 192.0.2.1 --local6 2001:db8::1 --rtt "$RTT_COUNT" \
		--setup "$(printf '%q %q __setup' "$HERE/xdp_tun.sh" "$kind")"
	[ "$XDPT_RC" -eq 0 ] || {
		_xdpt_show_run
		xdpt_fail "tuntap_echo --$kind --rtt: not every request answered"
	}
	median=$(printf '%s\n' "$XDPT_OUT" |
		sed -n 's|.*min/median/max [0-9.]*/\([0-9.]*\)/.*|\1|p')
	mode=native
	[ "$kind" = tun ] && mode=skb
	row "xdpong, ${kind^^}, $mode mode" "$median" "$RTT_COUNT/$RTT_COUNT" \
		"tuntap_echo --rtt: write to the fd, read the reply"
done

# tun-stack behind a TUN.
xdpt_ns_new NS_STACK stack
ip netns exec "$NS_STACK" timeout -k 5 150 "$TUN_STACK" --tun "rs$XDPT_ID" \
	2>"$XDPT_TMP/stack.log" &
XDPT_FAIL_LOGS="$XDPT_TMP/stack.log"
xdpt_wait 5 ip -n "$NS_STACK" link show dev "rs$XDPT_ID" ||
	xdpt_fail "tun-stack did not create its TUN"
ip -n "$NS_STACK" addr add 10.78.0.1/24 dev "rs$XDPT_ID"
ip -n "$NS_STACK" link set "rs$XDPT_ID" up
ping_row "$NS_STACK" 10.78.0.2 "tun-stack (user space, TUN)" "ping"

# The FIFO helper with the scripted processor of fifo_helper.sh.
xdpt_ns_new NS_FIFO fifo
ip netns exec "$NS_FIFO" timeout -k 5 150 "$TUN_HELPER" --fifo "$XDPT_TMP/fifo" \
	--tun "rf$XDPT_ID" --addr 10.77.0.1/24 --timeout 200 2>"$XDPT_TMP/helper.log" &
XDPT_FAIL_LOGS="$XDPT_TMP/helper.log"
xdpt_wait 5 test -p "$XDPT_TMP/fifo/resp" || xdpt_fail "tun-helper made no FIFOs"
ip netns exec "$NS_FIFO" timeout -k 5 140 bash "$HERE/fifo_helper.sh" \
	__processor "$XDPT_TMP/fifo" "$XDPT_TMP" &
XDPT_FAIL_LOGS+=" $XDPT_TMP/processor.log"
ping_row "$NS_FIFO" 10.77.0.2 "FIFO helper + scripted processor" \
	"ping; shell loop: READ, pong-hex --reply-only, WRITE"
touch "$XDPT_TMP/stop"

printf '\nMedian round trip of %d echo requests, IPv4, 56-byte payload, 0.2 s apart\n' "$RTT_COUNT"
printf '(%s, %d CPUs, Linux %s):\n\n' "$(date -u +%Y-%m-%d)" "$(nproc)" "$(uname -r)"
printf '| %-34s | %12s | %5s | %s |\n' "path" "median RTT" "ok" "measured with"
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..36})" "$(printf -- '-%.0s' {1..14})" \
	"-------" "------------------------------------------------------"
printf '%s\n' "${ROWS[@]}"
echo
xdpt_pass
