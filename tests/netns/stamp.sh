#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# STAMP reflection (--stamp), skb and native mode, IPv4 and IPv6, checked
# field by field by a Session-Sender written from RFC 8762 and RFC 8972
# (tests/lib/stamp_sender.py, which shares nothing with the program).
#
#   ns ping                                 ns resp (nothing listens on UDP)
#  +-----------------------+  veth pair  +-------------------------------+
#  | xp<id> 10.99.0.1/24   |-------------| xr<id> 10.99.0.2/24           |
#  |        fd00:99::1     |             |        fd00:99::2             |
#  | stamp_sender.py       |             | xdpong --stamp: XDP_TX        |
#  | xdp_pass (native)     |             |                               |
#  +-----------------------+             +-------------------------------+
#
# No socket listens on the responder, so the kernel's answer to a STAMP
# packet is ICMP port unreachable: a reflected packet can only be xdpong's
# (the sender also checks its TTL, 64, and the run's median T3 - T2 under 1 ms). What
# xdpong must not reflect gets the kernel's answer, or none.
# XDPT_STAMP_FULL=0 (the VM matrix's guests) keeps what depends on the
# kernel: reflection in both modes with a TLV, the clock, a bad checksum,
# S under run. It leaves to the host's run what is the program's bytes
# alone (the read through tshark, padding, truncated and too many TLVs, a
# short datagram, an offloaded checksum, a port taken over), each sender
# taking seconds to start under TCG.
# Under TCG (tests/vm) it takes minutes: past the default limit.
# xdpt-timeout: 600
. "$(dirname "$0")/../lib/lib.sh"

SENDER=$XDPT_REPO/tests/lib/stamp_sender.py
N=3
FULL=${XDPT_STAMP_FULL:-1}

xdpt_require_all
xdpt_topo_veth
xdpt_peer_xdp_pass
# Every port unreachable the kernel owes is sent (no ICMP rate limit).
xdpt_sysctl "$NS_RESP" net.ipv4.icmp_ratelimit 0 net.ipv6.icmp.ratelimit 0
# The sender's checksums complete on the wire, as a NIC sends them: a veth
# otherwise leaves UDP's to offload, which xdpong passes (pass_udp_csum).
ip netns exec "$NS_PING" ethtool -K "$IF_PING" tx off >/dev/null ||
	xdpt_fail "cannot turn checksum offload off on $IF_PING"

# send EXPECT [sender options]: stamp_sender.py to the responder, IPv4 and
# IPv6, N packets each; every one must go as EXPECT says. A program from
# attach, which nothing keeps in step, never sets S (NO_S); run's sets it
# exactly while the kernel's clock is synchronised.
NO_S=(--no-s)
send()
{
	local expect=$1 fam dst

	shift
	for fam in 4 6; do
		dst=$RESP4
		[ "$fam" = 6 ] && dst=$RESP6
		xdpt_run --ns "$NS_PING" /usr/bin/python3 "$SENDER" "$dst" --family "$fam" \
			--count "$N" --expect "$expect" "${NO_S[@]}" "$@"
		[ "$XDPT_RC" = 0 ] ||
			xdpt_fail "IPv$fam $* (expect $expect): $XDPT_OUT $XDPT_ERR"
	done
}

# capture_start, capture_check N: the STAMP packets on the sender's side
# while send runs, then N replies read through Wireshark's TWAMP-Test
# dissector (Debian 12's tshark has none for STAMP, whose unauthenticated
# packets are TWAMP-Test's layout), every field held to its request by
# tests/lib/stamp_tshark.py.
TSHARK_CHECK=$XDPT_REPO/tests/lib/stamp_tshark.py
capture_start()
{
	command -v tshark >/dev/null || xdpt_fail "tshark missing (tools/deps.sh installs it)"
	rm -f "$XDPT_TMP/stamp.pcap"
	: >"$XDPT_TMP/tshark.err"
	# dumpcap (tshark's capture engine, without its dissectors: a
	# fraction of tshark's start-up, which under TCG takes a minute)
	ip netns exec "$NS_PING" timeout 120 dumpcap -i "$IF_PING" -f "udp port 862" \
		-c "$1" -w "$XDPT_TMP/stamp.pcap" 2>"$XDPT_TMP/tshark.err" &
	CAPTURE_PID=$!
	capturing() { grep -q "Capturing on" "$XDPT_TMP/tshark.err"; }
	xdpt_wait 60 capturing || xdpt_fail "dumpcap did not start: $(cat "$XDPT_TMP/tshark.err")"
}

capture_check()
{
	wait "$CAPTURE_PID" || xdpt_fail "dumpcap: $(cat "$XDPT_TMP/tshark.err")"
	xdpt_run /usr/bin/python3 "$TSHARK_CHECK" "$XDPT_TMP/stamp.pcap" "$RESP4" "$RESP6" \
		--replies "$1"
	[ "$XDPT_RC" = 0 ] || xdpt_fail "the replies through tshark: $XDPT_OUT $XDPT_ERR"
	xdpt_log "$(grep -c 'ok (twamp.test)' <<<"$XDPT_OUT") replies read right as TWAMP-Test"
}

# assert_moved NAME BEFORE BY: counter NAME of XDPT_STATS is BEFORE + BY.
assert_moved()
{
	local now

	xdpt_get now "$1"
	xdpt_assert_eq $(($2 + $3)) "$now" "$1 (was $2)"
}

xdpt_log "the config key: yes (port 862) or a port, per interface"
xdpt_tmpdir
printf '[global]\nstamp = yes\n[interface %s]\nstamp = 4862\n' "$IF_RESP" >"$XDPT_TMP/ok.conf"
xdpt_ok "$XDPONG" config check "$XDPT_TMP/ok.conf"
for bad in 0 65536 no; do
	printf '[interface %s]\nstamp = %s\n' "$IF_RESP" "$bad" >"$XDPT_TMP/bad.conf"
	xdpt_rc 1 "$XDPONG" config check "$XDPT_TMP/bad.conf"
	xdpt_assert_match "invalid value '$bad' for stamp: expected a port" "$XDPT_ERR" \
		"config check refuses stamp = $bad"
done

xdpt_log "--stamp off: the kernel answers (port unreachable)"
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb
send refused
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get r4 reply_stamp4
xdpt_get r6 reply_stamp6
xdpt_assert_eq "0 0" "$r4 $r6" "nothing reflected without --stamp"
xdpt_assert_eq null "$(ip netns exec "$NS_RESP" "$XDPONG" status "$IF_RESP" --json |
	jq -c '.interfaces[0].stamp')" "status --json: stamp null when off"
xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"

for mode in skb native; do
	xdpt_log "$mode mode, --stamp: every field of every reply"
	xdpt_attach "$NS_RESP" "$IF_RESP" --mode "$mode" --stamp
	xdpt_assert_match "attached to $IF_RESP in $mode mode" "$XDPT_OUT" "attach message"
	# requests and replies, IPv4 and IPv6; the mode does not matter to it
	if [ "$mode" = skb ] && [ "$FULL" = 1 ]; then
		capture_start $((4 * N))
		send reply
		capture_check $((2 * N))
	else
		send reply
	fi
	# RFC 8972's TLVs: every type answered as the RFC says, the DSCP and
	# ECN sent with reported
	send reply --tlvs --tos 0x29
	sends=2
	if [ "$FULL" = 1 ]; then
		send reply --size 48 # RFC 8762's zero padding, returned as received
		# a truncated TLV marked, zero padding after TLVs
		send reply --tlvs --tos 0xb8 --truncated
		send reply --tlvs --pads 4 --size 160
		sends=5
	fi
	xdpt_stats "$NS_RESP" "$IF_RESP"
	xdpt_get r4 reply_stamp4
	xdpt_get r6 reply_stamp6
	xdpt_assert_eq "$((sends * N)) $((sends * N))" "$r4 $r6" \
		"reply_stamp4 reply_stamp6 ($mode)"
	xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
done

xdpt_log "status: the port and the clock the kernel gives"
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb --stamp
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
st=$XDPT_OUT
# The clock as the kernel says, asked apart from xdpong: does the verifier
# let an XDP program call bpf_ktime_get_tai_ns (Linux 6.1 and later)?
clock=monotonic+offset
pin=/sys/fs/bpf/xdpt_tai_probe_$$
if bpftool prog load "$XDPT_REPO/build/tests/tai_probe.bpf.o" "$pin" type xdp 2>/dev/null; then
	clock=tai
	rm -f "$pin"
fi
xdpt_log "the kernel's verifier says: $clock"
tai=false
[ "$clock" = tai ] && tai=true
xdpt_assert_eq "$tai" "$(jq -r '.kernel.features.tai_clock.available' <<<"$st")" \
	"status --json: tai_clock feature"
xdpt_assert_eq "862 $clock" "$(jq -r '.interfaces[0].stamp | "\(.port) \(.clock)"' <<<"$st")" \
	"status --json: stamp port and clock"
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP"
xdpt_assert_match "stamp: +UDP port 862, clock ${clock//+/\\+}" "$XDPT_OUT" "status: stamp line"

xdpt_log "not reflected: wrong or offloaded checksum, short, 9 TLVs (the kernel's)"
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get bad0 pass_udp_csum
xdpt_get short0 pass_stamp_short
xdpt_get many0 pass_stamp_many_tlvs
xdpt_get rep0 replied
send none --bad-csum
if [ "$FULL" = 1 ]; then
	send refused --size 40
	send refused --tlvs --pads 5
	# A checksum left to offload: incomplete on the wire, which the kernel
	# accepts (CHECKSUM_PARTIAL) and xdpong cannot tell from a wrong one.
	ip netns exec "$NS_PING" ethtool -K "$IF_PING" tx on >/dev/null
	send refused
	ip netns exec "$NS_PING" ethtool -K "$IF_PING" tx off >/dev/null
fi
xdpt_stats "$NS_RESP" "$IF_RESP"
assert_moved pass_udp_csum "$bad0" $(((1 + FULL) * 2 * N))
assert_moved pass_stamp_short "$short0" $((FULL * 2 * N))
assert_moved pass_stamp_many_tlvs "$many0" $((FULL * 2 * N))
assert_moved replied "$rep0" 0

if [ "$FULL" = 1 ]; then
	xdpt_log "--stamp=PORT over the running program: a takeover, counts kept"
	xdpt_get r4 reply_stamp4
	xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb --stamp=4862
	send reply --port 4862
	send refused --port 862
	xdpt_stats "$NS_RESP" "$IF_RESP"
	assert_moved reply_stamp4 "$r4" "$N"
fi
xdpt_assert_consistent
xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"

xdpt_log "run --stamp: S as the kernel's clock says"
nsenter "--net=/run/netns/$NS_RESP" timeout -k 5 60 "$XDPONG" run "$IF_RESP" --mode skb \
	--stamp >"$XDPT_TMP/run.out" 2>&1 &
RUN_PID=$!
attached() { ip netns exec "$NS_RESP" "$XDPONG" status "$IF_RESP" >/dev/null 2>&1; }
xdpt_wait 10 attached || xdpt_fail "run did not attach: $(cat "$XDPT_TMP/run.out")"
NO_S=()
send reply
kill -TERM "$(pgrep -P "$RUN_PID" xdpong || echo "$RUN_PID")"
wait "$RUN_PID" || xdpt_fail "run did not end cleanly: $(cat "$XDPT_TMP/run.out")"
xdpt_pass
