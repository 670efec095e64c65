#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# xdpong shares the interface through libxdp's dispatcher, next to
# xdp-filter and a program loaded with xdp-loader, where the kernel allows
# it; where it does not, it attaches alone and says so.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +--------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24            |
#  +---------------------+             | dispatcher: xdp-filter (10),   |
#                                      |   xdpong (50), chain_tail (60) |
#                                      +--------------------------------+
#
# Whether the kernel runs a dispatcher is asked of xdp-loader, not of
# xdpong: Debian 12's and 13's kernels do (the VM suite), this machine's
# refuses extension programs. Everything through nsenter: libxdp keeps
# the dispatcher's links as pins in the host's bpffs.
# xdpt-timeout: 240
. "$(dirname "$0")/../lib/lib.sh"
unset LIBXDP_SKIP_DISPATCHER # lib.sh's: sharing is what this tests

TAIL_OBJ=$XDPT_REPO/build/tests/chain_tail.bpf.o

xdpt_require_all
xdpt_require_cmd xdp-loader xdp-filter
[ -r "$TAIL_OBJ" ] || xdpt_fail "$TAIL_OBJ is missing: run 'make tests' first"
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
# IPv6 off: no background traffic (router and neighbour solicitations)
# between a counter of xdpong's and one of chain_tail's.
for ns in "$NS_PING" "$NS_RESP"; do
	xdpt_sysctl "$ns" net.ipv6.conf.all.disable_ipv6 1
done
NSE=(nsenter "--net=/run/netns/$NS_RESP")
xdpt_track_pins "$IF_RESP"
xdpt_tmpdir

# The dispatcher's links are pinned in the host's bpffs, where the
# namespace's deletion does not reach: every program goes first.
chain_cleanup()
{
	local rc=$?

	"${NSE[@]}" xdp-loader unload "$IF_RESP" --all >/dev/null 2>&1
	(exit "$rc")
	xdpt_cleanup
}
trap chain_cleanup EXIT

# The programs on IF_RESP in run order, as xdp-loader lists them:
# "xdpfilt_alw_all xdpong chain_tail" (one program alone: its name).
chain_names()
{
	"${NSE[@]}" xdp-loader status "$IF_RESP" |
		awk '$1 == "=>" { printf "%s%s", sep, $3; sep = " " }
		     $1 == iface && $2 != "xdp_dispatcher" && $2 != "<No" { printf "%s", $2 }
		     END { print "" }' iface="$IF_RESP"
}

# The id of the program NAME in the chain.
chain_id()
{
	"${NSE[@]}" xdp-loader status "$IF_RESP" |
		awk '$1 == "=>" && $3 == name { print $4 }
		     $1 == iface && $2 == name { print $4 }' name="$1" iface="$IF_RESP"
}

# The priority of the program NAME in the chain.
chain_prio()
{
	"${NSE[@]}" xdp-loader status "$IF_RESP" | awk '$1 == "=>" && $3 == name { print $2 }' name="$1"
}

# chain_tail's counters (its .bss), into TAIL_ECHO and TAIL_OTHER.
tail_counts()
{
	local id map bss

	id=$(chain_id chain_tail)
	[ -n "$id" ] || xdpt_fail "chain_tail is not on $IF_RESP: $(chain_names)"
	for map in $(bpftool prog show id "$id" -j | jq -r '.map_ids[]?'); do
		bss=$(bpftool map dump id "$map" -j 2>/dev/null |
			jq -r '.[0].formatted.value[".bss"][]? | to_entries[] | "\(.key)=\(.value)"')
		[ -n "$bss" ] && break
	done
	TAIL_ECHO=$(printf '%s\n' "$bss" | sed -n 's/^seen_icmp_echo=//p')
	TAIL_OTHER=$(printf '%s\n' "$bss" | sed -n 's/^seen_other=//p')
	[ -n "$TAIL_ECHO" ] && [ -n "$TAIL_OTHER" ] ||
		xdpt_fail "cannot read chain_tail's counters (program id $id): $bss"
}

xdpt_log "does this kernel run libxdp's dispatcher? (asked of xdp-loader)"
xdpt_ok "${NSE[@]}" xdp-loader load -m skb "$IF_RESP" "$TAIL_OBJ"
if "${NSE[@]}" xdp-loader status "$IF_RESP" | grep -q xdp_dispatcher; then
	SHARE=1
else
	SHARE=0
fi
xdpt_log "dispatcher: $SHARE ($(uname -r))"

if [ "$SHARE" = 0 ]; then
	xdpt_log "alone: a foreign program is not replaced, and the message says why"
	tid=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
	xdpt_rc 1 "${NSE[@]}" "$XDPONG" attach "$IF_RESP" --mode skb
	xdpt_assert_match "$IF_RESP already has an XDP program, chain_tail \(id $tid\), and xdpong cannot share the interface with it: this kernel refuses the extension programs of libxdp's dispatcher \(loading one: [^)]*\)\. --force replaces it; a kernel that allows libxdp's dispatcher" \
		"$XDPT_ERR" "attach over a program on a kernel without the dispatcher"
	xdpt_assert_eq "$tid" "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "chain_tail after the refused attach"
	xdpt_ok "${NSE[@]}" xdp-loader unload "$IF_RESP" --all

	xdpt_log "alone: attached as before, said once"
	xdpt_ok "${NSE[@]}" "$XDPONG" attach "$IF_RESP" --mode skb
	xdpt_assert_eq 1 "$(printf '%s\n' "$XDPT_ERR" | grep -c "attaching alone, so no other XDP program can share $IF_RESP")" \
		"notes that xdpong attaches alone"
	xdpt_assert_match "refuses the extension programs of libxdp's dispatcher" "$XDPT_ERR" "the reason"
	xdpt_assert_eq xdpong "$(chain_names)" "programs on $IF_RESP"
	xdpt_ping_all "$NS_PING" -4 "$RESP4" 3
	xdpt_stats "$NS_RESP" "$IF_RESP"
	xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
	xdpt_assert_eq 3 "$r4" "reply_echo4 alone"
	xdpt_ok "${NSE[@]}" "$XDPONG" detach "$IF_RESP"
	xdpt_pass
fi

xdpt_ok "${NSE[@]}" xdp-loader unload "$IF_RESP" --all

xdpt_log "1. xdpong joins the dispatcher xdp-filter holds; a third program joins after"
xdpt_ok "${NSE[@]}" xdp-filter load "$IF_RESP" -m skb
xdpt_run "${NSE[@]}" "$XDPONG" attach "$IF_RESP"
# Linux 5.10 runs libxdp's dispatcher, but its verifier cannot check an
# extension whose global functions take the context, as xdpong's do: there
# xdpong must refuse to join, and say why. Debian 12's and 13's must join.
kver=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
if [ "$XDPT_RC" != 0 ] && [ "$kver" -lt 6001 ]; then
	xdpt_assert_match "runs xdpfilt_alw_all \(id [0-9]+\) through libxdp's dispatcher, but xdpong cannot join it here: this kernel cannot load xdpong as the extension program libxdp's dispatcher needs \(Invalid argument;" \
		"$XDPT_ERR" "the refusal on $(uname -r)"
	xdpt_assert_eq xdpfilt_alw_all "$(chain_names)" "programs after the refused attach"
	xdpt_pass
fi
[ "$XDPT_RC" = 0 ] || xdpt_fail "xdpong did not join xdp-filter's dispatcher: $XDPT_ERR"
xdpt_log "$XDPT_ERR"
xdpt_assert_match "attached to $IF_RESP in skb mode" "$XDPT_OUT" "joins in the dispatcher's mode"
xdpt_assert_match "runs in libxdp's dispatcher \(program id [0-9]+\), 2 of 2, at priority 50" \
	"$XDPT_ERR" "position said"
xdpt_assert_no_match "attaching alone" "$XDPT_ERR" "no fallback note"
xdpt_ok "${NSE[@]}" xdp-loader load -m skb "$IF_RESP" "$TAIL_OBJ"
xdpt_assert_eq "xdpfilt_alw_all xdpong chain_tail" "$(chain_names)" "run order"

xdpt_log "   the chain as status, its JSON and the metrics show it (from ip netns exec)"
kid=$(chain_id xdpong)
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP"
xdpt_assert_match "chain: +2 of 3 in libxdp's dispatcher \(program id [0-9]+\), at priority 50: xdpfilt_alw_all \(id [0-9]+, priority 10\), xdpong \(id $kid, priority 50, this one\), chain_tail \(id [0-9]+, priority 60\)" \
	"$XDPT_OUT" "status's chain line"
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
xdpt_assert_eq "true 50 2 xdpfilt_alw_all:10,xdpong:50,chain_tail:60" \
	"$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].chain | "\(.dispatcher) \(.priority) \(.position) \([.programs[] | "\(.name):\(.priority)"] | join(","))"')" \
	"status --json chain"
xdpt_ok --ns "$NS_RESP" "$XDPONG" stats "$IF_RESP" --prometheus
xdpt_assert_match "xdpong_dispatcher\{device=\"$IF_RESP\"\} 1" "$XDPT_OUT" "xdpong_dispatcher"
xdpt_assert_match "xdpong_chain_position\{device=\"$IF_RESP\"\} 2" "$XDPT_OUT" "xdpong_chain_position"
xdpt_assert_match "xdpong_chain_priority\{device=\"$IF_RESP\"\} 50" "$XDPT_OUT" "xdpong_chain_priority"
xdpt_assert_eq 3 "$(printf '%s\n' "$XDPT_OUT" | grep -c '^xdpong_chain_program_info{')" \
	"xdpong_chain_program_info series"

xdpt_log "2. pings are answered by xdpong; what it passes reaches chain_tail, what it answers does not"
# Both counts at a quiet instant: chain_tail's did not move around xdpong's
# (frames xdpong passed before chain_tail joined never reached it).
counts_quiet()
{
	local try

	for try in 1 2 3 4 5 6 7 8 9 10; do
		tail_counts
		local t1=$TAIL_OTHER e1=$TAIL_ECHO
		xdpt_stats "$NS_RESP" "$IF_RESP"
		PASSED=$(printf '%s\n' "$XDPT_STATS" | jq -r .passed)
		tail_counts
		[ "$t1" = "$TAIL_OTHER" ] && [ "$e1" = "$TAIL_ECHO" ] && return 0
		sleep 0.2
	done
	xdpt_fail "chain_tail's counters never stood still"
}
counts_quiet
p0=$PASSED t0=$TAIL_OTHER e0=$TAIL_ECHO
# The pinger asks for the MAC again: an ARP request xdpong passes on.
ip -n "$NS_PING" neigh flush dev "$IF_PING"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 5
xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq 5 "$r4" "reply_echo4 in the chain"
xdpt_assert_consistent
counts_quiet
xdpt_assert_eq "$e0" "$TAIL_ECHO" "echo requests that reached chain_tail"
[ $((PASSED - p0)) -ge 1 ] || xdpt_fail "xdpong passed nothing on (not even the ARP request)"
xdpt_assert_eq $((PASSED - p0)) $((TAIL_OTHER - t0)) "frames xdpong passed = frames chain_tail saw"

xdpt_log "3. xdp-filter's deny rule: that source gets no reply, and xdpong never sees it"
xdpt_ok "${NSE[@]}" xdp-filter ip "$PING4" -m src
# Frames other than ARP (which the filter lets through) xdpong counted.
ip_frames() { printf '%s\n' "$XDPT_STATS" | jq -r '.received - .reasons.pass_not_ip'; }
ip0=$(ip_frames)
xdpt_ping_none "$NS_PING" -4 "$RESP4" 3
xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq 5 "$r4" "reply_echo4 after denied pings"
xdpt_assert_eq "$ip0" "$(ip_frames)" "IP frames xdpong received while the filter denies the pinger"
xdpt_ok "${NSE[@]}" xdp-filter ip "$PING4" -m src --remove
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq 7 "$r4" "reply_echo4 after the rule is removed"

xdpt_log "4. takeovers in the chain under pings at 500/s: attach, run, kill -9, attach"
# The stream runs until the takeovers are done, then is interrupted: every
# sequence number up to the last one sent must have its reply (the last may
# still be in flight at the interrupt).
PINGOUT=$XDPT_TMP/stream.txt
r4_before=$r4
timeout -k 5 150 ip netns exec "$NS_PING" ping -n -i 0.002 -W 1 -c 60000 "$RESP4" \
	>"$PINGOUT" 2>&1 &
PING_PID=$!
sleep 1
id0=$(chain_id xdpong)
xdpt_ok "${NSE[@]}" "$XDPONG" attach "$IF_RESP" --priority 40
xdpt_log "$XDPT_ERR"
xdpt_assert_match "took over from program id $id0" "$XDPT_ERR" "attach took over in the chain"
id1=$(chain_id xdpong)
xdpt_assert_ne "$id0" "$id1" "xdpong's id after the takeover"
xdpt_assert_eq "xdpfilt_alw_all xdpong chain_tail" "$(chain_names)" "run order at priority 40"

# run takes over from the attached one, then dies without a word.
nsenter "--net=/run/netns/$NS_RESP" "$XDPONG" run "$IF_RESP" >"$XDPT_TMP/run.txt" 2>&1 &
RUN_PID=$!
# run_took_over OLD_ID: run lives, and one xdpong, not OLD_ID, is in the chain.
run_took_over()
{
	local id

	kill -0 "$RUN_PID" 2>/dev/null || return 1
	id=$(chain_id xdpong) # two ids while both are in the chain
	[[ $id =~ ^[0-9]+$ ]] && [ "$id" != "$1" ]
}
xdpt_wait 10 run_took_over "$id1" ||
	xdpt_fail "xdpong run did not take over in the chain: $(cat "$XDPT_TMP/run.txt")"
id2=$(chain_id xdpong)
xdpt_assert_eq "xdpfilt_alw_all xdpong chain_tail" "$(chain_names)" "run order after run's takeover"
sleep 0.5
kill -9 "$RUN_PID"
wait "$RUN_PID" 2>/dev/null
xdpt_assert_eq "$id2" "$(chain_id xdpong)" "the killed run's program stays in the chain"

xdpt_ok "${NSE[@]}" "$XDPONG" attach "$IF_RESP"
xdpt_assert_match "took over from program id $id2" "$XDPT_ERR" "attach after kill -9 took over"
sleep 1
kill -0 "$PING_PID" 2>/dev/null || xdpt_fail "the stream ended before the takeovers did: $(tail -3 "$PINGOUT")"
kill -INT "$PING_PID"
wait "$PING_PID"
sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$PINGOUT")
got=$(sed -n 's/^[0-9]* packets transmitted, \([0-9]*\) received.*/\1/p' "$PINGOUT")
missing=$(awk -v n="$sent" '/icmp_seq=/ { sub(/.*icmp_seq=/, ""); seen[$1 + 0] = 1 }
	END { for (i = 1; i < n; i++) if (!(i in seen)) m = m " " i; print m }' "$PINGOUT")
xdpt_log "stream: $got of $sent answered"
[ "${sent:-0}" -ge 1500 ] || xdpt_fail "the stream sent only ${sent:-0} pings"
xdpt_assert_eq "" "$missing" "pings of the stream not answered (icmp_seq)"
xdpt_assert_eq 0 "$(grep -c 'DUP!' "$PINGOUT")" "pings of the stream answered twice"
xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
# Each answered once: the last, if in flight at the interrupt, may be
# counted by xdpong and not by ping.
[ $((r4 - r4_before)) = "$got" ] || [ $((r4 - r4_before)) = "$sent" ] ||
	xdpt_fail "reply_echo4 grew by $((r4 - r4_before)) through the takeovers, for $got replies to $sent pings"
xdpt_assert_consistent
xdpt_assert_eq "xdpfilt_alw_all xdpong chain_tail" "$(chain_names)" "one xdpong left in the chain"

xdpt_log "5. run from a config file: its priority; SIGHUP with another moves xdpong; SIGTERM takes it out"
idr=$(chain_id xdpong)
CONF=$XDPT_TMP/xdpong.conf
printf '[interface %s]\npriority = 45\n' "$IF_RESP" >"$CONF"
nsenter "--net=/run/netns/$NS_RESP" "$XDPONG" run --config "$CONF" >"$XDPT_TMP/run2.txt" 2>&1 &
RUN_PID=$!
# run_at_priority PRIO: run lives, and its xdpong runs at PRIO, the chain in order.
run_at_priority()
{
	kill -0 "$RUN_PID" 2>/dev/null && [ "$(chain_prio xdpong)" = "$1" ] &&
		[ "$(chain_names)" = "xdpfilt_alw_all xdpong chain_tail" ]
}
xdpt_wait 10 run_at_priority 45 || xdpt_fail "xdpong run --config did not take over at priority 45: $(chain_prio xdpong); $(cat "$XDPT_TMP/run2.txt")"
xdpt_assert_ne "$idr" "$(chain_id xdpong)" "xdpong's id after run's takeover"
printf '[interface %s]\npriority = 55\n' "$IF_RESP" >"$CONF"
kill -HUP "$RUN_PID"
xdpt_wait 10 run_at_priority 55 || xdpt_fail "SIGHUP with priority 55 did not move xdpong: $(chain_prio xdpong); $(cat "$XDPT_TMP/run2.txt")"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
kill -TERM "$RUN_PID"
wait "$RUN_PID"
xdpt_assert_eq 0 "$?" "run's exit code after SIGTERM"
xdpt_assert_eq "xdpfilt_alw_all chain_tail" "$(chain_names)" "programs left after run's SIGTERM"
xdpt_ok "${NSE[@]}" "$XDPONG" attach "$IF_RESP"
xdpt_assert_eq "xdpfilt_alw_all xdpong chain_tail" "$(chain_names)" "xdpong back in the chain"

xdpt_log "   where it cannot share, a takeover of an xdpong in the chain changes nothing"
idb=$(chain_id xdpong)
xdpt_rc 1 env LIBXDP_SKIP_DISPATCHER=1 "${NSE[@]}" "$XDPONG" attach "$IF_RESP"
xdpt_assert_match "xdpong runs in libxdp's dispatcher with xdpfilt_alw_all \(id [0-9]+\), chain_tail \(id [0-9]+\), and cannot be taken over inside it here: LIBXDP_SKIP_DISPATCHER=1 is set. Nothing was changed" \
	"$XDPT_ERR" "takeover refused"
xdpt_assert_eq "$idb" "$(chain_id xdpong)" "xdpong after the refused takeover"
xdpt_assert_eq "xdpfilt_alw_all xdpong chain_tail" "$(chain_names)" "chain after the refused takeover"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2

xdpt_log "6. detach takes only xdpong out"
xdpt_ok "${NSE[@]}" "$XDPONG" detach "$IF_RESP"
xdpt_assert_eq "xdpfilt_alw_all chain_tail" "$(chain_names)" "programs left after detach"
xdpt_ping_none "$NS_PING" -4 "$RESP4" 2

xdpt_log "7. LIBXDP_SKIP_DISPATCHER=1: xdpong will not join, and says why"
xdpt_rc 1 env LIBXDP_SKIP_DISPATCHER=1 "${NSE[@]}" "$XDPONG" attach "$IF_RESP"
xdpt_assert_match "runs xdpfilt_alw_all \(id [0-9]+\), chain_tail \(id [0-9]+\) through libxdp's dispatcher, but xdpong cannot join it here: LIBXDP_SKIP_DISPATCHER=1 is set. --force replaces them all" \
	"$XDPT_ERR" "attach with the dispatcher switched off"
xdpt_assert_eq "xdpfilt_alw_all chain_tail" "$(chain_names)" "programs after the refused attach"
xdpt_pass
