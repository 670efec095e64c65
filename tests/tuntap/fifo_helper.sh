#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The origin experiment's topology with a scripted stack: real ping and
# ping -6 answered through tools/tun-helper's FIFOs by a shell loop that
# builds each reply with tools/pong-hex --reply-only.
#
#   ns fifo (kernel echo off)
#  +--------------------------------------------------------------+
#  | ping 10.77.0.2 ---> th<id> 10.77.0.1/24 ---fd---> tun-helper  |
#  | ping -6 2001:db8:77::2     2001:db8:77::1/64      |  FIFOs    |
#  +----------------------------------------------------|---------+
#                                         DIR/cmd, DIR/resp
#                        processor: READ -> pong-hex --reply-only -> WRITE
#
# ping counts only replies whose checksum is right; on top, one IPv4 and one
# IPv6 pair (request READ, reply WRITTEN) are checked here with an RFC 1071
# sum in shell arithmetic, independent of the C code, and field by field.
. "$(dirname "$0")/../lib/lib.sh"

TUN_HELPER=${TUN_HELPER:-$XDPT_REPO/build/tools/tun-helper}
PONG_HEX=${PONG_HEX:-$XDPT_REPO/build/tools/pong-hex}
SELF=$(readlink -f "$0")
COUNT=5

#
# fifo_answer RESP: the one answer line into ANS, read to resp's end of
# file, each read bounded by 5 s. Stopping at the newline is not enough:
# the helper closes resp just after the line, and a client quick enough to
# send its next command and open resp again before that close sees the
# close as an empty answer (the cause of a run of lost pings in CI, shown
# by delaying the helper's close() under strace). Exit 1 if no line came.
fifo_answer()
{
	local extra

	ANS=
	{
		IFS= read -r -t 5 ANS || return 1
		# 1 is end of file; 0 a second line, >128 a time-out: both wrong.
		IFS= read -r -t 5 extra
		[ $? -eq 1 ] ||
			echo "processor: more than one line, or no end, after '${ANS:0:40}'" >&2
	} <"$1"
}

#
# processor FIFO_DIR OUT_DIR: the scripted stack. One command, one answer
# line; stops when OUT_DIR/stop appears, after 120 s, or if the helper
# stops answering. Request/reply pairs go to OUT_DIR/pairs.
#
processor()
{
	local fifo=$1 out=$2 end=$((SECONDS + 120)) pkt reply

	while [ "$SECONDS" -lt "$end" ] && [ ! -e "$out/stop" ]; do
		echo READ >"$fifo/cmd" || break
		fifo_answer "$fifo/resp" 2>>"$out/processor.log" || {
			echo "processor: no answer to READ" >>"$out/processor.log"
			break
		}
		pkt=$ANS
		case $pkt in
		TIMEOUT) continue ;;
		ERR*)
			echo "processor: READ: $pkt" >>"$out/processor.log"
			continue
			;;
		esac
		if ! reply=$("$PONG_HEX" --reply-only "$pkt" 2>>"$out/processor.log"); then
			echo "processor: no reply due to ${pkt:0:48}..." >>"$out/processor.log"
			continue
		fi
		echo "WRITE $reply" >"$fifo/cmd" || break
		fifo_answer "$fifo/resp" 2>>"$out/processor.log"
		[ "$ANS" = OK ] || echo "processor: WRITE answered '$ANS'" >>"$out/processor.log"
		printf '%s %s\n' "$pkt" "$reply" >>"$out/pairs"
	done
	exit 0
}

# RFC 1071 over hex digits: the folded one's complement sum (0xffff if the
# checksum inside is right). Odd byte counts are padded with a zero byte.
sum16()
{
	local hex=$1 sum=0 i

	[ $((${#hex} % 4)) -eq 2 ] && hex+=00
	for ((i = 0; i < ${#hex}; i += 4)); do
		sum=$((sum + 16#${hex:i:4}))
	done
	while ((sum >> 16)); do
		sum=$(((sum & 0xffff) + (sum >> 16)))
	done
	printf '0x%04x' "$sum"
}

# check_pair REQUEST_HEX REPLY_HEX: the reply, field by field and summed.
check_pair()
{
	local req=$1 rep=$2 hl tot plen

	xdpt_assert_eq "${#req}" "${#rep}" "reply length (hex digits)"
	case ${req:0:1} in
	4)
		hl=$((16#${req:1:1} * 8)) # hex digits: 4-byte words * 2 * 4
		tot=$((16#${req:4:4} * 2))
		xdpt_assert_eq 0xffff "$(sum16 "${rep:0:hl}")" \
			"IPv4 header of the reply sums to 0xffff"
		xdpt_assert_eq 0xffff "$(sum16 "${rep:hl:tot-hl}")" \
			"ICMP message of the reply sums to 0xffff"
		xdpt_assert_eq "${req:24:8}" "${rep:32:8}" "reply destination = request source"
		xdpt_assert_eq "${req:32:8}" "${rep:24:8}" "reply source = request destination"
		xdpt_assert_eq 40 "${rep:16:2}" "reply TTL 64"
		xdpt_assert_eq 08 "${req:hl:2}" "request type 8"
		xdpt_assert_eq 00 "${rep:hl:2}" "reply type 0"
		xdpt_assert_eq "${req:hl+2:2}" "${rep:hl+2:2}" "code kept"
		xdpt_assert_eq "${req:hl+8}" "${rep:hl+8}" "id, seq and payload kept"
		xdpt_assert_eq "${req:2:14}" "${rep:2:14}" "TOS, length, IP id, flags kept"
		;;
	6)
		plen=$((16#${req:8:4}))
		xdpt_assert_eq 0xffff \
			"$(sum16 "${rep:16:64}$(printf '%08x' "$plen")0000003a${rep:80:plen*2}")" \
			"ICMPv6 message of the reply with its pseudo-header sums to 0xffff"
		xdpt_assert_eq "${req:16:32}" "${rep:48:32}" "reply destination = request source"
		xdpt_assert_eq "${req:48:32}" "${rep:16:32}" "reply source = request destination"
		xdpt_assert_eq 40 "${rep:14:2}" "reply hop limit 64"
		xdpt_assert_eq 80 "${req:80:2}" "request type 128"
		xdpt_assert_eq 81 "${rep:80:2}" "reply type 129"
		xdpt_assert_eq "${req:82:2}" "${rep:82:2}" "code kept"
		xdpt_assert_eq "${req:88}" "${rep:88}" "id, seq and payload kept"
		xdpt_assert_eq "${req:0:14}" "${rep:0:14}" \
			"version, class, flow, length, next header kept"
		;;
	*) xdpt_fail "pair is neither IPv4 nor IPv6: ${req:0:40}" ;;
	esac
}

case ${1:-} in
__processor) processor "$2" "$3" ;;
esac

xdpt_require_root
xdpt_require_cmd ip ping timeout
for b in "$TUN_HELPER" "$PONG_HEX"; do
	[ -x "$b" ] || xdpt_fail "$b is missing: run 'make' first"
done
[ -c /dev/net/tun ] || xdpt_skip "no /dev/net/tun"

xdpt_ns_new NS fifo
xdpt_kernel_echo_ignore "$NS" 1
xdpt_tmpdir
DEV="th$XDPT_ID"
FIFO=$XDPT_TMP/fifo

# The helper and the processor run in the namespace: the cleanup ends them.
ip netns exec "$NS" timeout -k 5 150 "$TUN_HELPER" --fifo "$FIFO" --tun "$DEV" \
	--addr 10.77.0.1/24 --addr 2001:db8:77::1/64 --timeout 200 \
	2>"$XDPT_TMP/helper.log" &
HELPER=$!
XDPT_FAIL_LOGS="$XDPT_TMP/helper.log"
xdpt_wait 5 test -p "$FIFO/resp" || {
	cat "$XDPT_TMP/helper.log" >&2
	xdpt_fail "tun-helper made no FIFOs in $FIFO"
}
xdpt_assert_match 'inet 10\.77\.0\.1/24' "$(ip -n "$NS" addr show dev "$DEV")" \
	"tun-helper --addr gave $DEV its address"

ip netns exec "$NS" timeout -k 5 140 bash "$SELF" __processor "$FIFO" "$XDPT_TMP" &
PROCESSOR=$!
XDPT_FAIL_LOGS+=" $XDPT_TMP/processor.log"

xdpt_ping_all "$NS" -4 10.77.0.2 "$COUNT"
xdpt_log "$(printf '%s\n' "$XDPT_PING_OUT" | tail -n 1)"
xdpt_ping_all "$NS" -6 2001:db8:77::2 "$COUNT"
xdpt_log "$(printf '%s\n' "$XDPT_PING_OUT" | tail -n 1)"
# Odd and empty payloads through the same path.
xdpt_ping_all "$NS" -4 10.77.0.2 1 -s 0
xdpt_ping_all "$NS" -4 10.77.0.2 1 -s 7
xdpt_ping_all "$NS" -6 2001:db8:77::2 1 -s 7
# Routed into the TUN but no echo request of ours: ping to a multicast
# group is never answered (the processor gets exit 3 from pong-hex).
xdpt_ping_none "$NS" -6 ff02::1%"$DEV" 1

touch "$XDPT_TMP/stop"
wait "$PROCESSOR"

# Protocol errors answer ERR and write nothing (the summary below). A
# client that keeps resp open holds it read-write (the helper closes its
# end after each answer). It never sees that close, so it goes last: a
# client after it could open resp before the helper's last close and read
# that as an empty answer (tools/tun/README.md).
exec 3<>"$FIFO/cmd" 4<>"$FIFO/resp"
echo "WRITE 45zz" >&3
IFS= read -r -t 5 ans <&4
xdpt_assert_match '^ERR bad hex' "$ans" "WRITE with bad hex"
echo "HELLO" >&3
IFS= read -r -t 5 ans <&4
xdpt_assert_match '^ERR unknown command' "$ans" "unknown command"
echo "WRITE 00" >&3
IFS= read -r -t 5 ans <&4
xdpt_assert_match '^ERR write' "$ans" "WRITE of a packet that is not IP"
exec 3>&- 4<&-

kill -TERM "$HELPER" 2>/dev/null
wait "$HELPER"
xdpt_log "$(cat "$XDPT_TMP/helper.log")"
[ -s "$XDPT_TMP/processor.log" ] && xdpt_log "$(cat "$XDPT_TMP/processor.log")"
xdpt_assert_no_match 'WRITE answered' "$(cat "$XDPT_TMP/processor.log" 2>/dev/null)" \
	"every WRITE was answered OK"

pairs=$(wc -l <"$XDPT_TMP/pairs")
xdpt_assert_eq $((2 * COUNT + 3)) "$pairs" "request/reply pairs through the FIFOs"
n4=0 n6=0
while read -r req rep; do
	check_pair "$req" "$rep"
	case ${req:0:1} in 4) n4=$((n4 + 1)) ;; 6) n6=$((n6 + 1)) ;; esac
done <"$XDPT_TMP/pairs"
xdpt_assert_eq $((COUNT + 2)) "$n4" "IPv4 pairs checked"
xdpt_assert_eq $((COUNT + 1)) "$n6" "IPv6 pairs checked"
re="tun-helper: [0-9]+ READ .*, [0-9]+ WRITE \\($((2 * COUNT + 3)) OK, 0 OK WARN, 0 refused\\),"
re+=" 3 ERR, 0 answers unread"
xdpt_assert_match "$re" "$(cat "$XDPT_TMP/helper.log")" \
	"tun-helper's summary on exit: every pair OK, the 3 errors, nothing unread"
xdpt_pass
