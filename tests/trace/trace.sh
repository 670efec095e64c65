#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `xdpong trace`: one event per packet with the right addresses, echo ids,
# seqs, sizes, verdicts and reasons, in JSON and text; the .bss flag
# trace_enabled is on only while a trace runs, survives a second trace
# ending, goes off when the reader of the output goes away (| head), is
# cleared by `trace --off` after a SIGKILL, and a trace ends
# with a message when xdpong is detached under it.
#
#   ns ping (static neighbours)          ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  |        fd00:99::1   |             |        fd00:99::2            |
#  | raw-socket echoes   |             | xdpong --mode skb, trace     |
#  +---------------------+             +------------------------------+
#
# The pinger's neighbours are static, so no ARP or neighbour discovery
# reaches the responder while a trace counts packets: every traced packet
# is one this test sent.
. "$(dirname "$0")/../lib/lib.sh"

NOT_LOCAL4=10.99.0.99 # on the link, not the responder's: pass_dst_not_local
ID4=4660              # 0x1234
ID6=17185             # 0x4321

xdpt_require_all
xdpt_require_cmd python3
xdpt_tmpdir
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1

# Echo requests with a chosen id and seq (ping picks its own id).
cat >"$XDPT_TMP/send_echo.py" <<'EOF'
import socket, struct, sys
def csum(b):
    b += b"\0" * (len(b) % 2)
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF
dst, ident, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
bad = "--bad-csum" in sys.argv
payload = bytes((i * 7) & 0xFF for i in range(16))
v6 = ":" in dst
s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_RAW,
                  socket.IPPROTO_ICMPV6 if v6 else socket.IPPROTO_ICMP)
for seq in range(first, first + count):
    if v6:  # the kernel fills in the ICMPv6 checksum
        s.sendto(struct.pack("!BBHHH", 128, 0, 0, ident, seq) + payload, (dst, 0))
        continue
    c = csum(struct.pack("!BBHHH", 8, 0, 0, ident, seq) + payload) ^ (0x5555 if bad else 0)
    s.sendto(struct.pack("!BBHHH", 8, 0, c, ident, seq) + payload, (dst, 0))
EOF
send()
{
	timeout 20 ip netns exec "$NS_PING" python3 "$XDPT_TMP/send_echo.py" "$@" ||
		xdpt_fail "sending echo requests to $1 failed"
}

# Router solicitations go on with backoff for an hour (rtr_solicits -1).
xdpt_sysctl "$NS_PING" "net.ipv6.conf.$IF_PING.router_solicitations" 0
mac=$(ip -n "$NS_RESP" -j link show dev "$IF_RESP" | jq -r '.[0].address')
for dst in "$RESP4" "$RESP6" "$NOT_LOCAL4"; do
	ip -n "$NS_PING" neigh replace "$dst" lladdr "$mac" dev "$IF_PING" nud permanent ||
		xdpt_fail "cannot add a static neighbour for $dst"
done
# And the other way: no neighbour probes from the responder, whose answers
# (ICMPv6 neighbour advertisements) would take the place of a traced echo.
mac=$(ip -n "$NS_PING" -j link show dev "$IF_PING" | jq -r '.[0].address')
for dst in "$PING4" "$PING6"; do
	ip -n "$NS_RESP" neigh replace "$dst" lladdr "$mac" dev "$IF_RESP" nud permanent ||
		xdpt_fail "cannot add a static neighbour for $dst"
done

xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb --latency-sample 1
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
BSS_ID=$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].maps.bss')
PROG_ID=$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].prog_id')
xdpt_assert_match '^[0-9]+$' "$BSS_ID" "id of the .bss map in status --json"

# trace_enabled as the kernel holds it (bpftool prints .bss with BTF names).
trace_flag()
{
	local flag_q='.[0].formatted.value[".bss"][] | select(has("trace_enabled"))'
	flag_q+=' | .trace_enabled'
	bpftool -j map dump id "$BSS_ID" | jq -r "$flag_q"
}

xdpt_wait_quiet "$NS_RESP" "$IF_RESP"

# start_trace NAME ARGS...: `xdpong trace` in the background, ready once it
# has said "tracing" on stderr. TRACE_PID is the timeout around it (to
# wait for), XD_PID xdpong itself (to signal).
start_trace()
{
	local name=$1

	shift
	ip netns exec "$NS_RESP" timeout -k 5 60 "$XDPONG" trace "$IF_RESP" "$@" \
		>"$XDPT_TMP/$name.out" 2>"$XDPT_TMP/$name.err" &
	TRACE_PID=$!
	xdpt_wait 10 grep -q "^xdpong: tracing $IF_RESP" "$XDPT_TMP/$name.err" ||
		xdpt_fail "trace $name did not start: $(cat "$XDPT_TMP/$name.err")"
	XD_PID=$(pgrep -P "$TRACE_PID")
	xdpt_assert_match '^[0-9]+$' "$XD_PID" "pid of trace $name"
}

# wait_trace PID NAME: the trace's exit code into TRACE_RC (bounded by its timeout).
wait_trace()
{
	wait "$1"
	TRACE_RC=$?
	[ "$TRACE_RC" -ne 124 ] ||
		xdpt_fail "trace $2 did not end: $(cat "$XDPT_TMP/$2.err")"
}

xdpt_assert_eq 0 "$(trace_flag)" "trace_enabled before any trace"

xdpt_log "1. --json --count 7: replied (IPv4, IPv6), passed and dropped packets"
start_trace json --json --count 7
xdpt_assert_eq 1 "$(trace_flag)" "trace_enabled while tracing"
send "$RESP4" "$ID4" 1 3
send "$RESP6" "$ID6" 1 2
send "$NOT_LOCAL4" "$ID4" 10 1
send "$RESP4" "$ID4" 11 1 --bad-csum
wait_trace "$TRACE_PID" json
xdpt_assert_eq 0 "$TRACE_RC" "trace --count 7 exit code ($(cat "$XDPT_TMP/json.err"))"
out=$(cat "$XDPT_TMP/json.out")
xdpt_assert_eq 7 "$(printf '%s\n' "$out" | grep -c .)" "lines printed by trace --count 7"
printf '%s\n' "$out" | jq -e . >/dev/null || xdpt_fail "trace --json printed invalid JSON: $out"
# One canonical line per packet, sorted: CPUs may interleave events.
ev_q='[.family, .src, .dst, .id, .seq, .icmp_type,
	.ip_len, .frame_len, .verdict, .reason, (.service_ns != null)]'
ev_q+=' | map(tostring) | join(" ")'
got=$(printf '%s\n' "$out" | jq -r "$ev_q" | sort)
want=$(sort <<EOF
4 $PING4 $RESP4 $ID4 1 8 44 58 replied reply_echo4 true
4 $PING4 $RESP4 $ID4 2 8 44 58 replied reply_echo4 true
4 $PING4 $RESP4 $ID4 3 8 44 58 replied reply_echo4 true
6 $PING6 $RESP6 $ID6 1 128 64 78 replied reply_echo6 true
6 $PING6 $RESP6 $ID6 2 128 64 78 replied reply_echo6 true
4 $PING4 $NOT_LOCAL4 $ID4 10 8 44 58 passed pass_dst_not_local false
4 $PING4 $RESP4 $ID4 11 8 44 58 dropped drop_bad_icmp_csum false
EOF
)
[ "$got" = "$want" ] || xdpt_fail "trace events differ from the packets sent
expected:
$want
found:
$got"
iface=$(printf '%s\n' "$out" | jq -r .iface | sort -u)
xdpt_assert_eq "$IF_RESP" "$iface" "iface of every event"
now=$(date +%s)
printf '%s\n' "$out" | jq -e --argjson now "$now" \
	'(.time > $now - 60) and (.time < $now + 60)' >/dev/null ||
	xdpt_fail "event times are not wall-clock times near $now:" \
		"$(printf '%s\n' "$out" | jq .time)"
xdpt_assert_match "7 packets traced, 0 events lost" "$(cat "$XDPT_TMP/json.err")" \
	"summary on stderr"
xdpt_assert_eq 0 "$(trace_flag)" "trace_enabled after trace --count ends"

xdpt_log "2. text output, one line"
start_trace text --count 1
send "$RESP4" "$ID4" 21 1
wait_trace "$TRACE_PID" text
xdpt_assert_eq 0 "$TRACE_RC" "trace --count 1 exit code"
line=$(cat "$XDPT_TMP/text.out")
re="^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} $PING4 -> $RESP4 ICMP echo id $ID4 seq 21 len 44"
re+=" frame 58 replied reply_echo4 [0-9]+ ns$"
xdpt_assert_match "$re" \
	"$line" "text trace line"
xdpt_assert_eq 0 "$(trace_flag)" "trace_enabled after the text trace"

xdpt_log "3. two traces at once: the first to end leaves tracing on for the other"
start_trace a
pid_a=$TRACE_PID xd_a=$XD_PID
start_trace b
pid_b=$TRACE_PID
xdpt_assert_match "another trace is running" "$(cat "$XDPT_TMP/b.err")" \
	"warning of the second trace"
kill -INT "$XD_PID"
wait_trace "$pid_b" b
xdpt_assert_eq 0 "$TRACE_RC" "trace b exit code after SIGINT"
xdpt_assert_eq 1 "$(trace_flag)" "trace_enabled while trace a still runs"
send "$RESP4" "$ID4" 31 1
xdpt_wait 5 grep -q "seq 31 " "$XDPT_TMP/a.out" ||
	xdpt_fail "trace a saw no packet after trace b ended: $(cat "$XDPT_TMP/a.out")"
kill -TERM "$xd_a"
wait_trace "$pid_a" a
xdpt_assert_eq 0 "$TRACE_RC" "trace a exit code after SIGTERM"
xdpt_assert_eq 0 "$(trace_flag)" "trace_enabled after the last trace ended"

xdpt_log "4. SIGKILL leaves tracing on; trace --off clears it"
start_trace killed
kill -KILL "$XD_PID"
wait "$TRACE_PID" 2>/dev/null
xdpt_assert_eq 1 "$(trace_flag)" "trace_enabled after a trace was killed"
xdpt_ok --ns "$NS_RESP" "$XDPONG" trace "$IF_RESP" --off
xdpt_assert_eq 0 "$(trace_flag)" "trace_enabled after trace --off"
[ -e "/run/xdpong/trace-$PROG_ID.lock" ] &&
	xdpt_fail "lock file /run/xdpong/trace-$PROG_ID.lock left after the last trace"

xdpt_log "5. a reader that goes away (| head -n 1): the trace ends, tracing goes off"
( ip netns exec "$NS_RESP" timeout -k 5 30 "$XDPONG" trace "$IF_RESP" 2>"$XDPT_TMP/head.err" |
	head -n 1 >"$XDPT_TMP/head.out" ) &
hpid=$!
xdpt_wait 10 grep -q "^xdpong: tracing $IF_RESP" "$XDPT_TMP/head.err" ||
	xdpt_fail "trace | head did not start: $(cat "$XDPT_TMP/head.err")"
send "$RESP4" "$ID4" 41 1
xdpt_wait 5 grep -q "seq 41 " "$XDPT_TMP/head.out" || xdpt_fail "head saw no trace line"
# The next line finds the pipe closed: one more packet until trace has
# noticed (an event; 40 tries, 20 s, only bound it).
for seq in $(seq 42 81); do
	[ "$(trace_flag)" = 0 ] && break
	send "$RESP4" "$ID4" "$seq" 1
	sleep 0.5
done
wait "$hpid"
xdpt_assert_eq 0 "$(trace_flag)" "trace_enabled after the reader of the trace went away"

xdpt_log "6. detach under a running trace: it ends with status 1 and says why"
start_trace detached
xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
wait_trace "$TRACE_PID" detached
xdpt_assert_eq 1 "$TRACE_RC" "trace exit code after detach"
xdpt_assert_match "no longer attached to $IF_RESP" "$(cat "$XDPT_TMP/detached.err")" \
	"message after detach"

xdpt_log "7. trace where xdpong is not attached"
xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" trace "$IF_RESP" --count 1
xdpt_assert_match "$IF_RESP: xdpong is not attached \(attach it with 'xdpong attach $IF_RESP'\)" \
	"$XDPT_ERR" "error message"
xdpt_rc 2 --ns "$NS_RESP" "$XDPONG" trace "$IF_RESP" --count 0
xdpt_pass
