#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # the P_* variables come from pkt_info's eval
#
# The seed runbook (ping-respond.md), verbatim: its two commands against
# tools/tun-helper on the original's FIFOs and topology, a wrong reply
# caught before the kernel drops it, and the turnaround in the report.
#
#   ns runbook (IPv6 off, so the TUN carries only what we send)
#  +------------------------------------------------------------------+
#  | ping -W 300 -c 1 172.16.0.2 ---> tun0 172.16.0.1/24 ---fd---+    |
#  | sample pinger (raw socket: the runbook's request, byte for  |    |
#  |   byte; waits for the echo reply)                   tun-helper --fifo
#  +-------------------------------------------------------------|----+
#                                        /tmp/tun_cmd  /tmp/tun_resp
#   this test, the scripted stack, with the runbook's own commands:
#     echo "READ" > /tmp/tun_cmd && timeout 35 cat /tmp/tun_resp
#     (the reply: pong-hex --reply-only, or the runbook's sample)
#     echo "WRITE <hex>" > /tmp/tun_cmd && timeout 5 cat /tmp/tun_resp
#
# /tmp/tun_cmd is one path for the whole machine: a lock (flock) keeps
# two runs of this test apart, and the FIFOs go when the test does.
# Packets are checked here with an RFC 1071 sum in Python, independent of
# the C code; the kernel's side by its counters (tun0's rx packets, IpExt
# InCsumErrors) and by ping.
. "$(dirname "$0")/../lib/lib.sh"

TUN_HELPER=${TUN_HELPER:-$XDPT_REPO/build/tools/tun-helper}
PONG_HEX=${PONG_HEX:-$XDPT_REPO/build/tools/pong-hex}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
LOCK=/tmp/xdpong-tun-fifo.lock
CMD_FIFO=/tmp/tun_cmd
RESP_FIFO=/tmp/tun_resp
FAST_MS=2000 # "returns at once": well under the runbook's 5 s and 35 s

# The runbook's commands, character for character.
RUNBOOK_READ='echo "READ" > /tmp/tun_cmd && timeout 35 cat /tmp/tun_resp'
RUNBOOK_WRITE='echo "WRITE <hex>" > /tmp/tun_cmd && timeout 5 cat /tmp/tun_resp'

# The runbook's printed sample reply, whose IP header checksum 0x60dd is
# wrong (0x615d is right; its ICMP checksum 0x5cf5 is right). The runbook
# prints its first 24 bytes; the rest (ICMP id 0x0c2b, seq 1, ping's 16-byte
# timestamp and 0x10.. pattern) is filled in so that 0x5cf5 holds, and the
# request is the one it answers.
SAMPLE_TAIL=0c2b000140d355650000000041d3000000000000
SAMPLE_TAIL+=101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f3031323334353637
SAMPLE_REQUEST=45000054812840004001615dac100001ac100002080054f5$SAMPLE_TAIL
SAMPLE_REPLY=4500005481284000400160ddac100002ac10000100005cf5$SAMPLE_TAIL
SAMPLE_FIXED=${SAMPLE_REPLY:0:20}615d${SAMPLE_REPLY:24}

HELPER=
HELPER_LOG=

xdpt_require_root
xdpt_require_cmd ip ping timeout flock jq "$PY"
for b in "$TUN_HELPER" "$PONG_HEX"; do
	[ -x "$b" ] || xdpt_fail "$b is missing: run 'make' first"
done
[ -c /dev/net/tun ] || xdpt_skip "no /dev/net/tun"

# ---- Independent packet arithmetic (Python, not the C code) ----

xdpt_tmpdir
cat >"$XDPT_TMP/pkt.py" <<'EOF'
"""pkt.py info HEX: shell assignments describing an IPv4+ICMP packet.
pkt.py ping REQUEST_HEX WAIT_S: send REQUEST as it is (IP_HDRINCL) and wait
for the echo reply from its destination; print "reply HEX" or "timeout"."""
import select, socket, struct, sys, time


def fold(s):
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def words(b):  # RFC 1071: big-endian 16-bit words, an odd byte padded
    if len(b) % 2:
        b += b"\0"
    return sum(struct.unpack("!%dH" % (len(b) // 2), b))


def info(p):
    hl = (p[0] & 15) * 4
    tot = struct.unpack("!H", p[2:4])[0]
    icmp = p[hl:tot]
    out = dict(
        ip_len=len(p), ip_tot=tot, ip_hl=hl,
        ip_sum="%04x" % fold(words(p[:hl])),
        ip_csum="%04x" % struct.unpack("!H", p[10:12])[0],
        ip_want="%04x" % (~fold(words(p[:10] + b"\0\0" + p[12:hl])) & 0xffff),
        icmp_sum="%04x" % fold(words(icmp)),
        icmp_csum="%04x" % struct.unpack("!H", icmp[2:4])[0],
        icmp_want="%04x" % (~fold(words(icmp[:2] + b"\0\0" + icmp[4:])) & 0xffff),
        src=socket.inet_ntoa(p[12:16]), dst=socket.inet_ntoa(p[16:20]),
        ttl=p[8], proto=p[9], type=icmp[0], code=icmp[1],
        idseq=icmp[4:8].hex(), payload=icmp[8:].hex())
    for k, v in out.items():
        print("P_%s='%s'" % (k, v))


def ping(req, wait):
    rx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    tx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    hl = (req[0] & 15) * 4
    tx.sendto(req, (socket.inet_ntoa(req[16:20]), 0))
    end = time.monotonic() + wait
    while time.monotonic() < end:
        if not select.select([rx], [], [], max(0, end - time.monotonic()))[0]:
            continue
        p = rx.recv(65535)
        h = (p[0] & 15) * 4
        if p[12:16] == req[16:20] and p[h] == 0 and p[h + 4:h + 8] == req[hl + 4:hl + 8]:
            print("reply", p.hex(), flush=True)
            return 0
    print("timeout", flush=True)
    return 1


if sys.argv[1] == "info":
    info(bytes.fromhex(sys.argv[2]))
elif sys.argv[1] == "ping":
    sys.exit(ping(bytes.fromhex(sys.argv[2]), float(sys.argv[3])))
EOF

# pkt_info HEX: P_* variables for the packet.
pkt_info()
{
	local out

	out=$("$PY" "$XDPT_TMP/pkt.py" info "$1") || xdpt_fail "cannot parse packet ${1:0:40}..."
	eval "$out"
}

# check_request HEX: an ICMP echo request 172.16.0.1 -> 172.16.0.2, sums right.
check_request()
{
	pkt_info "$1"
	xdpt_assert_eq "172.16.0.1 172.16.0.2 1 8 0" "$P_src $P_dst $P_proto $P_type $P_code" \
		"READ gave an ICMP echo request 172.16.0.1 -> 172.16.0.2"
	xdpt_assert_eq "ffff ffff" "$P_ip_sum $P_icmp_sum" "the request's IPv4 header and ICMP sums"
	xdpt_assert_eq "$P_ip_len" "$P_ip_tot" "the request's total length is its size"
}

# check_reply REQUEST REPLY: the reply, field by field and summed.
check_reply()
{
	local q_idseq q_payload q_src q_dst

	pkt_info "$1"
	q_idseq=$P_idseq q_payload=$P_payload q_src=$P_src q_dst=$P_dst
	pkt_info "$2"
	xdpt_assert_eq "ffff ffff" "$P_ip_sum $P_icmp_sum" "the reply's IPv4 header and ICMP sums"
	xdpt_assert_eq "$q_dst $q_src" "$P_src $P_dst" \
		"the reply's addresses are the request's, swapped"
	xdpt_assert_eq "0 0 64" "$P_type $P_code $P_ttl" "echo reply, code 0, TTL 64"
	xdpt_assert_eq "$q_idseq" "$P_idseq" "the reply's id and seq"
	xdpt_assert_eq "$q_payload" "$P_payload" "the reply's payload"
}

# ---- The machine-wide FIFOs: one run at a time ----

exec 9>"$LOCK" || xdpt_fail "cannot open $LOCK"
flock -w 100 9 || xdpt_skip "another run holds $LOCK for over 100 s"

# fifo_in_use: a tun-helper holds its lock on /tmp/tun_cmd (flock, as it does).
fifo_in_use()
{
	local busy=1

	[ -p "$CMD_FIFO" ] || return 1
	exec 8<>"$CMD_FIFO" || return 1
	# Our lock only if no helper holds one; closing fd 8 lets it go.
	flock -n 8 || busy=0
	exec 8<&-
	return "$busy"
}

# Leftovers of a run that was killed: FIFOs nobody serves.
remove_idle_fifos()
{
	fifo_in_use && return 1
	rm -f -- "$CMD_FIFO" "$RESP_FIFO"
}

stop_helper()
{
	[ -n "$HELPER" ] || return 0
	kill -TERM "$HELPER" 2>/dev/null
	wait "$HELPER" 2>/dev/null
	HELPER_RC=$?
	HELPER=
}

runbook_cleanup()
{
	stop_helper
	remove_idle_fifos
}
trap 'rc=$?; runbook_cleanup; (exit $rc); xdpt_cleanup' EXIT

if fifo_in_use; then
	xdpt_skip "a tun-helper already serves $CMD_FIFO (not this test's)"
fi
remove_idle_fifos
if [ -e "$CMD_FIFO" ] || [ -e "$RESP_FIFO" ]; then
	xdpt_skip "$CMD_FIFO or $RESP_FIFO exists and is not an idle FIFO: not touching it"
fi

xdpt_ns_new NS runbook
xdpt_sysctl "$NS" net.ipv6.conf.all.disable_ipv6 1
xdpt_sysctl "$NS" net.ipv6.conf.default.disable_ipv6 1

# start_helper TAG [options]: tun-helper --fifo --tun tun0 --addr 172.16.0.1/24.
start_helper()
{
	local tag=$1

	shift
	HELPER_LOG=$XDPT_TMP/helper-$tag.log
	ip netns exec "$NS" timeout -k 5 150 "$TUN_HELPER" --fifo --tun tun0 \
		--addr 172.16.0.1/24 "$@" 2>"$HELPER_LOG" &
	HELPER=$!
	if ! xdpt_wait 5 grep -q ready "$HELPER_LOG"; then
		cat "$HELPER_LOG" >&2
		xdpt_fail "tun-helper ($tag) did not start"
	fi
	[ -p "$CMD_FIFO" ] && [ -p "$RESP_FIFO" ] ||
		xdpt_fail "tun-helper --fifo made no $CMD_FIFO and $RESP_FIFO"
}

now_us()
{
	local t=$EPOCHREALTIME

	echo "${t//[.,]/}"
}

#
# step WHAT CMD: run one runbook command line as written (bash -c), into
# STEP_OUT, STEP_RC, STEP_MS; it must end by itself, at once, with exit 0.
#
step()
{
	local what=$1 t0

	t0=$(now_us)
	STEP_OUT=$(bash -c "$2" 2>"$XDPT_TMP/step.err")
	STEP_RC=$?
	STEP_MS=$((($(now_us) - t0) / 1000))
	xdpt_log "$what: ${STEP_OUT:0:72}$([ ${#STEP_OUT} -gt 72 ] && echo ...)" \
		"(exit $STEP_RC, $STEP_MS ms)"
	xdpt_assert_eq 0 "$STEP_RC" \
		"$what: exit status of '${2:0:60}' ($(cat "$XDPT_TMP/step.err"))"
	[ "$STEP_MS" -lt "$FAST_MS" ] ||
		xdpt_fail "$what: took $STEP_MS ms, expected at once (< $FAST_MS ms)"
	[ "$(printf '%s\n' "$STEP_OUT" | wc -l)" = 1 ] ||
		xdpt_fail "$what: expected one answer line, got: $STEP_OUT"
}

runbook_read()
{
	step "READ" "$RUNBOOK_READ"
}

runbook_write()
{
	step "WRITE" "${RUNBOOK_WRITE/<hex>/$1}"
}

tun_rx()
{
	ip -n "$NS" -s -j link show tun0 | jq '.[0].stats64.rx.packets'
}

csum_errors()
{
	local prog='/^IpExt:/ { if (!n++) split($0, k); else for (i in k)'
	prog+=' if (k[i] == "InCsumErrors") print $i }'
	ip netns exec "$NS" awk "$prog" /proc/net/netstat
}

# ---- 1. The original topology with the defaults: a real ping answered ----

start_helper defaults --report "$XDPT_TMP/report.json"
xdpt_assert_match 'inet 172\.16\.0\.1/24' "$(ip -n "$NS" addr show dev tun0)" \
	"tun0 has 172.16.0.1/24"

timeout 60 ip netns exec "$NS" ping -n -W 300 -c 1 172.16.0.2 >"$XDPT_TMP/ping1" 2>&1 &
PING=$!
t_start=$(now_us)
runbook_read
REQ=$STEP_OUT
check_request "$REQ"
REP=$("$PONG_HEX" --reply-only "$REQ") || xdpt_fail "pong-hex made no reply for $REQ"
check_reply "$REQ" "$REP"
runbook_write "$REP"
xdpt_assert_eq OK "$STEP_OUT" "the right reply's answer"
window_ms=$((($(now_us) - t_start) / 1000))
wait "$PING"
rc=$?
xdpt_assert_eq 0 "$rc" "ping -W 300 -c 1 172.16.0.2 exit status ($(cat "$XDPT_TMP/ping1"))"
xdpt_assert_match '1 received' "$(cat "$XDPT_TMP/ping1")" "ping got its reply"

# ---- 2. The runbook's mistake on a real ping: warned, and the kernel drops it ----

rx0=$(tun_rx) err0=$(csum_errors)
timeout 30 ip netns exec "$NS" ping -n -W 2 -c 1 172.16.0.2 >"$XDPT_TMP/ping2" 2>&1 &
PING=$!
runbook_read
REQ2=$STEP_OUT
check_request "$REQ2"
REP2=$("$PONG_HEX" --reply-only "$REQ2") || xdpt_fail "pong-hex made no reply for $REQ2"
pkt_info "$REP2"
good=$P_ip_csum
# The sample's slip: the header checksum 0x80 too low (0x615d written as 0x60dd).
bad=$(printf '%04x' $(((16#$good - 0x80) & 0xffff)))
runbook_write "${REP2:0:20}$bad${REP2:24}"
xdpt_assert_eq "OK WARN ip checksum $bad, want $good" "$STEP_OUT" \
	"a wrong header checksum, named with the right one"
wait "$PING"
rc=$?
xdpt_assert_eq 1 "$rc" "ping exit status after the wrong reply (a timeout)"
xdpt_assert_match '0 received' "$(cat "$XDPT_TMP/ping2")" "ping got no reply"
xdpt_assert_eq $((rx0 + 1)) "$(tun_rx)" "the wrong reply was written to tun0 (rx packets)"
xdpt_assert_eq $((err0 + 1)) "$(csum_errors)" \
	"the kernel dropped it for its checksum (InCsumErrors)"

# ---- 3. The runbook's own sample, byte for byte ----

pkt_info "$SAMPLE_REPLY"
xdpt_assert_eq "ff7f 60dd 615d" "$P_ip_sum $P_ip_csum $P_ip_want" \
	"the sample reply's header sums to ff7f, not ffff: 60dd is wrong, 615d right"
xdpt_assert_eq "ffff 5cf5" "$P_icmp_sum $P_icmp_csum" "the sample reply's ICMP checksum is right"
check_request "$SAMPLE_REQUEST"
check_reply "$SAMPLE_REQUEST" "$SAMPLE_FIXED"

err0=$(csum_errors)
ip netns exec "$NS" timeout 30 "$PY" "$XDPT_TMP/pkt.py" ping "$SAMPLE_REQUEST" 2 \
	>"$XDPT_TMP/sample1" 2>&1 &
PING=$!
runbook_read
xdpt_assert_eq "$SAMPLE_REQUEST" "$STEP_OUT" "READ gives the sample request byte for byte"
runbook_write "$SAMPLE_REPLY"
xdpt_assert_eq "OK WARN ip checksum 60dd, want 615d" "$STEP_OUT" "the sample reply's answer"
wait "$PING"
rc=$?
xdpt_assert_eq "1 timeout" "$rc $(cat "$XDPT_TMP/sample1")" "the sample request's ping timed out"
xdpt_assert_eq $((err0 + 1)) "$(csum_errors)" "the kernel dropped the sample reply (InCsumErrors)"

ip netns exec "$NS" timeout 30 "$PY" "$XDPT_TMP/pkt.py" ping "$SAMPLE_REQUEST" 5 \
	>"$XDPT_TMP/sample2" 2>&1 &
PING=$!
runbook_read
xdpt_assert_eq "$SAMPLE_REQUEST" "$STEP_OUT" "READ gives the sample request again"
runbook_write "$SAMPLE_FIXED"
xdpt_assert_eq OK "$STEP_OUT" "the corrected sample reply's answer"
wait "$PING"
rc=$?
xdpt_assert_eq "0 reply $SAMPLE_FIXED" "$rc $(cat "$XDPT_TMP/sample2")" \
	"the corrected sample reply reached the pinger as written"

# ---- 4. A late reader and an absent one do not wedge the helper ----

timeout 60 ip netns exec "$NS" ping -n -W 30 -c 1 172.16.0.2 >"$XDPT_TMP/ping4" 2>&1 &
PING=$!
# Nobody reads this answer: it must not go to the next command's reader.
echo "WRITE 00" >"$CMD_FIFO"
sleep 0.3
runbook_read
check_request "$STEP_OUT"
REQ4=$STEP_OUT
# A reader that opens resp half a second after its command still gets the answer.
late="echo \"WRITE $("$PONG_HEX" --reply-only "$REQ4")\" > /tmp/tun_cmd"
late+=" && sleep 0.5 && timeout 5 cat /tmp/tun_resp"
step "WRITE, late reader" "$late"
xdpt_assert_eq OK "$STEP_OUT" "the late reader's answer"
wait "$PING"
rc=$?
xdpt_assert_eq 0 "$rc" "ping after the unread answer ($(cat "$XDPT_TMP/ping4"))"

stop_helper
xdpt_assert_eq 0 "$HELPER_RC" "tun-helper exit status on SIGTERM"
xdpt_log "$(cat "$HELPER_LOG")"
[ ! -e "$CMD_FIFO" ] && [ ! -e "$RESP_FIFO" ] ||
	xdpt_fail "tun-helper left the FIFOs it made"

# ---- The report: per request, read, replied, turnaround, verdict ----

summary=$(cat "$HELPER_LOG")
re='^tun-helper: 5 READ \(5 packets, 0 TIMEOUT\), 6 WRITE \(3 OK, 2 OK WARN, 0 refused\),'
re+=' 1 ERR, 1 answers unread$'
xdpt_assert_match "$re" \
	"$summary" "the exit summary's counts"
re='^ +1  ICMP echo request 172\.16\.0\.1 > 172\.16\.0\.2 id [0-9a-f]{4} seq 1'
re+=' +[0-9:.]+ +[0-9:.]+ +[0-9]+\.[0-9]{3} ms  OK$'
xdpt_assert_match "$re" \
	"$summary" "the exit table's first row: read, replied, turnaround, OK"
R=$XDPT_TMP/report.json
jq -e . "$R" >/dev/null || xdpt_fail "the --report file is not JSON: $(head -c 300 "$R")"
xdpt_assert_eq 5 "$(jq '.requests | length' "$R")" "requests in the report"
xdpt_assert_eq "172.16.0.1 172.16.0.2 OK" \
	"$(jq -r '.requests[0] | "\(.src) \(.dst) \(.verdict)"' "$R")" \
	"the first request in the report"
turn=$(jq '.requests[0].turnaround_ms' "$R")
jq -e --argjson w "$window_ms" \
	'.requests[0].turnaround_ms > 0 and .requests[0].turnaround_ms <= $w' "$R" >/dev/null ||
	xdpt_fail "turnaround $turn ms, expected > 0 and within the $window_ms ms" \
		"from READ to WRITE's answer"
jq -e '.requests[0] | (.read_at < .replied_at) and (.writes | length == 1) and .writes[0].written' \
	"$R" >/dev/null ||
	xdpt_fail "the first request's times and write: $(jq -c '.requests[0]' "$R")"
xdpt_log "turnaround of the first request: $turn ms"
xdpt_assert_eq "OK WARN ip checksum $bad, want $good" \
	"$(jq -r '.requests[1].verdict' "$R")" "the second request's verdict"
jq -e '.requests[1].turnaround_ms > 0' "$R" >/dev/null ||
	xdpt_fail "the wrong reply has no turnaround: $(jq -c '.requests[1]' "$R")"
xdpt_assert_eq "OK WARN ip checksum 60dd, want 615d|OK" \
	"$(jq -r '[.requests[2,3].verdict] | join("|")' "$R")" "the sample requests' verdicts"
xdpt_assert_eq 1 "$(jq '.unmatched_writes | length' "$R")" \
	"writes that answer no request (WRITE 00)"
xdpt_assert_eq "3 2 1" "$(jq -r '.counts | "\(.ok) \(.warn) \(.unread)"' "$R")" \
	"the report's counts"

# ---- 5. --strict: the wrong reply is refused and not written ----

start_helper strict --strict
rx0=$(tun_rx) err0=$(csum_errors)
ip netns exec "$NS" timeout 30 "$PY" "$XDPT_TMP/pkt.py" ping "$SAMPLE_REQUEST" 5 \
	>"$XDPT_TMP/sample3" 2>&1 &
PING=$!
runbook_read
xdpt_assert_eq "$SAMPLE_REQUEST" "$STEP_OUT" "READ gives the sample request (--strict)"
runbook_write "$SAMPLE_REPLY"
xdpt_assert_eq "ERR ip checksum 60dd, want 615d (not written: --strict)" "$STEP_OUT" \
	"the sample reply's answer with --strict"
xdpt_assert_eq "$rx0 $err0" "$(tun_rx) $(csum_errors)" \
	"with --strict the wrong reply was not written (tun0 rx packets, InCsumErrors)"
runbook_write "$SAMPLE_FIXED"
xdpt_assert_eq OK "$STEP_OUT" "the corrected sample reply's answer (--strict)"
xdpt_assert_eq $((rx0 + 1)) "$(tun_rx)" "the corrected reply was written"
wait "$PING"
rc=$?
xdpt_assert_eq "0 reply $SAMPLE_FIXED" "$rc $(cat "$XDPT_TMP/sample3")" \
	"the pinger got the corrected reply (--strict)"
stop_helper
xdpt_log "$(cat "$HELPER_LOG")"
re='^tun-helper: 1 READ \(1 packets, 0 TIMEOUT\), 2 WRITE \(1 OK, 0 OK WARN, 1 refused\),'
re+=' 0 ERR, 0 answers unread$'
xdpt_assert_match "$re" \
	"$(cat "$HELPER_LOG")" "the --strict summary counts one refused"

# ---- 6. pong-hex --check: the same verdict offline, with the working ----

xdpt_rc 4 "$PONG_HEX" --check "$SAMPLE_REQUEST" "$SAMPLE_REPLY"
xdpt_assert_match '^Verdict: OK WARN ip checksum 60dd, want 615d$' "$XDPT_OUT" \
	"pong-hex --check verdict"
xdpt_assert_match 'complement +~0x9ea2 = 0x615d' "$XDPT_OUT" \
	"pong-hex shows the header sum's working"
xdpt_assert_match '=> the reply has 0x60dd: WRONG, want 0x615d' "$XDPT_OUT" \
	"pong-hex names the wrong field"
xdpt_assert_match '=> the reply has 0x5cf5: right' "$XDPT_OUT" \
	"pong-hex: the ICMP checksum is right"
xdpt_assert_match 'ERR ip checksum 60dd, want 615d \(not written: --strict\)' "$XDPT_OUT" \
	"pong-hex gives the --strict answer too"
xdpt_rc 0 "$PONG_HEX" --check "$SAMPLE_REQUEST" "$SAMPLE_FIXED"
xdpt_assert_match '^Verdict: OK$' "$XDPT_OUT" "pong-hex --check on the corrected reply"
xdpt_rc 0 "$PONG_HEX" --check "$REQ" "$REP"
xdpt_assert_match '^Verdict: OK$' "$XDPT_OUT" "pong-hex --check on the real ping's pair"

# docs/experiment.md shows the runbook's commands as they are, and the sample.
for c in "$RUNBOOK_READ" "$RUNBOOK_WRITE" "OK WARN ip checksum 60dd, want 615d"; do
	grep -qF -- "$c" "$XDPT_REPO/docs/experiment.md" ||
		xdpt_fail "docs/experiment.md does not show: $c"
done
xdpt_pass
