#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# xdpong shares the interface through libxdp's dispatcher, next to
# xdp-filter and a program loaded with xdp-loader, where the kernel allows
# it; where it does not, it attaches alone and says so. A dispatcher
# detached without libxdp (ip link set dev IFACE xdp off) leaves nothing
# of xdpong behind: not libxdp's pins of it, not xdpong's (step 8), and
# another namespace's interface of the same name and ifindex is left alone.
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
# xdpt-timeout: 600
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

NS_TWIN=
# The dispatcher's links are pinned in the host's bpffs, where the
# namespace's deletion does not reach: every program goes first, and what
# libxdp left of a dispatcher detached without it (step 8) with xdpong's
# detach.
chain_cleanup()
{
	local rc=$? ns

	for ns in "$NS_RESP" $NS_TWIN; do
		nsenter "--net=/run/netns/$ns" xdp-loader unload "$IF_RESP" --all >/dev/null 2>&1
		nsenter "--net=/run/netns/$ns" "$XDPONG" detach "$IF_RESP" >/dev/null 2>&1
	done
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
	"${NSE[@]}" xdp-loader status "$IF_RESP" |
		awk '$1 == "=>" && $3 == name { print $2 }' name="$1"
}

# chain_tail's counters (its .bss), into TAIL_ECHO and TAIL_OTHER.
tail_counts()
{
	local id map bss
	local bss_q='.[0].formatted.value[".bss"][]? | to_entries[] | "\(.key)=\(.value)"'

	id=$(chain_id chain_tail)
	[ -n "$id" ] || xdpt_fail "chain_tail is not on $IF_RESP: $(chain_names)"
	for map in $(bpftool prog show id "$id" -j | jq -r '.map_ids[]?'); do
		bss=$(bpftool map dump id "$map" -j 2>/dev/null | jq -r "$bss_q")
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
	re="$IF_RESP already has an XDP program, chain_tail \(id $tid\), and xdpong cannot share"
	re+=" the interface with it: this kernel refuses the extension programs of libxdp's"
	re+=" dispatcher \(loading one: [^)]*\)\. --force replaces it; a kernel that allows"
	re+=" libxdp's dispatcher"
	xdpt_assert_match "$re" \
		"$XDPT_ERR" "attach over a program on a kernel without the dispatcher"
	xdpt_assert_eq "$tid" "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" \
		"chain_tail after the refused attach"
	xdpt_ok "${NSE[@]}" xdp-loader unload "$IF_RESP" --all

	xdpt_log "alone: attached as before, said once"
	xdpt_ok "${NSE[@]}" "$XDPONG" attach "$IF_RESP" --mode skb
	xdpt_assert_eq 1 "$(printf '%s\n' "$XDPT_ERR" |
		grep -c "attaching alone, so no other XDP program can share $IF_RESP")" \
		"notes that xdpong attaches alone"
	xdpt_assert_match "refuses the extension programs of libxdp's dispatcher" "$XDPT_ERR" \
		"the reason"
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
	re="runs xdpfilt_alw_all \(id [0-9]+\) through libxdp's dispatcher, but xdpong cannot join"
	re+=" it here: this kernel cannot load xdpong as the extension program libxdp's dispatcher"
	re+=" needs \(Invalid argument;"
	xdpt_assert_match "$re" \
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
re="chain: +2 of 3 in libxdp's dispatcher \(program id [0-9]+\), at priority 50:"
re+=" xdpfilt_alw_all \(id [0-9]+, priority 10\), xdpong \(id $kid, priority 50, this one\),"
re+=" chain_tail \(id [0-9]+, priority 60\)"
xdpt_assert_match "$re" \
	"$XDPT_OUT" "status's chain line"
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
chain_q='.interfaces[0].chain | "\(.dispatcher) \(.priority) \(.position) '
chain_q+='\([.programs[] | "\(.name):\(.priority)"] | join(","))"'
xdpt_assert_eq "true 50 2 xdpfilt_alw_all:10,xdpong:50,chain_tail:60" \
	"$(printf '%s\n' "$XDPT_OUT" | jq -r "$chain_q")" \
	"status --json chain"
xdpt_ok --ns "$NS_RESP" "$XDPONG" stats "$IF_RESP" --prometheus
xdpt_assert_match "xdpong_dispatcher\{device=\"$IF_RESP\"\} 1" "$XDPT_OUT" "xdpong_dispatcher"
xdpt_assert_match "xdpong_chain_position\{device=\"$IF_RESP\"\} 2" "$XDPT_OUT" \
	"xdpong_chain_position"
xdpt_assert_match "xdpong_chain_priority\{device=\"$IF_RESP\"\} 50" "$XDPT_OUT" \
	"xdpong_chain_priority"
xdpt_assert_eq 3 "$(printf '%s\n' "$XDPT_OUT" | grep -c '^xdpong_chain_program_info{')" \
	"xdpong_chain_program_info series"

xdpt_log "2. pings are answered by xdpong; what it passes reaches chain_tail," \
	"what it answers does not"
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
kill -0 "$PING_PID" 2>/dev/null ||
	xdpt_fail "the stream ended before the takeovers did: $(tail -3 "$PINGOUT")"
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
	xdpt_fail "reply_echo4 grew by $((r4 - r4_before)) through the takeovers," \
		"for $got replies to $sent pings"
xdpt_assert_consistent
xdpt_assert_eq "xdpfilt_alw_all xdpong chain_tail" "$(chain_names)" "one xdpong left in the chain"

xdpt_log "5. run from a config file: its priority; SIGHUP with another moves xdpong;" \
	"SIGTERM takes it out"
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
xdpt_wait 10 run_at_priority 45 ||
	xdpt_fail "xdpong run --config did not take over at priority 45: $(chain_prio xdpong);" \
		"$(cat "$XDPT_TMP/run2.txt")"
xdpt_assert_ne "$idr" "$(chain_id xdpong)" "xdpong's id after run's takeover"
printf '[interface %s]\npriority = 55\n' "$IF_RESP" >"$CONF"
kill -HUP "$RUN_PID"
xdpt_wait 10 run_at_priority 55 ||
	xdpt_fail "SIGHUP with priority 55 did not move xdpong: $(chain_prio xdpong);" \
		"$(cat "$XDPT_TMP/run2.txt")"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
kill -TERM "$RUN_PID"
wait "$RUN_PID"
xdpt_assert_eq 0 "$?" "run's exit code after SIGTERM"
xdpt_assert_eq "xdpfilt_alw_all chain_tail" "$(chain_names)" \
	"programs left after run's SIGTERM"
xdpt_ok "${NSE[@]}" "$XDPONG" attach "$IF_RESP"
xdpt_assert_eq "xdpfilt_alw_all xdpong chain_tail" "$(chain_names)" "xdpong back in the chain"

xdpt_log "   where it cannot share, a takeover of an xdpong in the chain changes nothing"
idb=$(chain_id xdpong)
xdpt_rc 1 env LIBXDP_SKIP_DISPATCHER=1 "${NSE[@]}" "$XDPONG" attach "$IF_RESP"
re="xdpong runs in libxdp's dispatcher with xdpfilt_alw_all \(id [0-9]+\), chain_tail"
re+=" \(id [0-9]+\), and cannot be taken over inside it here: LIBXDP_SKIP_DISPATCHER=1 is"
re+=" set. Nothing was changed"
xdpt_assert_match "$re" \
	"$XDPT_ERR" "takeover refused"
xdpt_assert_eq "$idb" "$(chain_id xdpong)" "xdpong after the refused takeover"
xdpt_assert_eq "xdpfilt_alw_all xdpong chain_tail" "$(chain_names)" \
	"chain after the refused takeover"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2

xdpt_log "6. detach takes only xdpong out"
xdpt_ok "${NSE[@]}" "$XDPONG" detach "$IF_RESP"
xdpt_assert_eq "xdpfilt_alw_all chain_tail" "$(chain_names)" "programs left after detach"
xdpt_ping_none "$NS_PING" -4 "$RESP4" 2

xdpt_log "7. LIBXDP_SKIP_DISPATCHER=1: xdpong will not join, and says why"
xdpt_rc 1 env LIBXDP_SKIP_DISPATCHER=1 "${NSE[@]}" "$XDPONG" attach "$IF_RESP"
re="runs xdpfilt_alw_all \(id [0-9]+\), chain_tail \(id [0-9]+\) through libxdp's dispatcher,"
re+=" but xdpong cannot join it here: LIBXDP_SKIP_DISPATCHER=1 is set. --force replaces them"
re+=" all"
xdpt_assert_match "$re" \
	"$XDPT_ERR" "attach with the dispatcher switched off"
xdpt_assert_eq "xdpfilt_alw_all chain_tail" "$(chain_names)" "programs after the refused attach"

xdpt_log "8. detached without libxdp (ip link set dev $IF_RESP xdp off):" \
	"nothing of it outlives xdpong"
# libxdp keeps a dispatcher's links, and through them its programs and
# their maps, as pins in LIBXDP_DIR/dispatch-IFINDEX-ID, and removes them
# only when it detaches the dispatcher itself. xdpong alone in the
# dispatcher here, so that its detach leaves no dispatcher at all.
xdpt_ok "${NSE[@]}" xdp-loader unload "$IF_RESP" --all
LIBXDP_DIR=/sys/fs/bpf/xdp
IFX=$(ip -n "$NS_RESP" -j link show dev "$IF_RESP" | jq -r '.[0].ifindex')
PIN_DIR=$XDPT_PIN_ROOT/$IF_RESP

# libxdp's directories of IF_RESP's dispatchers (ifindex IFX), by name.
disp_dirs() { (cd "$LIBXDP_DIR" 2>/dev/null && ls -d "dispatch-$IFX-"* 2>/dev/null) | xargs; }
# `ip link set dev IFACE xdp off` in NS, in whichever mode the dispatcher is.
xdp_off()
{
	ip -n "$1" link set dev "$IF_RESP" xdpgeneric off
	ip -n "$1" link set dev "$IF_RESP" xdpdrv off
	xdpt_assert_eq 0 "$(xdpt_link_prog_id "$1" "$IF_RESP")" \
		"XDP program on $IF_RESP in $1 after xdp off"
}
# The id of the pinned stats map, and of the attached xdpong's (status).
pinned_stats() { bpftool map show pinned "$PIN_DIR/stats" -j 2>/dev/null | jq -r .id; }
attached_stats()
{
	"${NSE[@]}" "$XDPONG" status "$IF_RESP" --json | jq -r '.interfaces[0].maps.stats'
}
# Nothing of xdpong on IF_RESP: no pins, no libxdp directory, no program.
nothing_left() { [ ! -e "$PIN_DIR" ] && [ -z "$(disp_dirs)" ]; }
prog_gone() { ! bpftool prog show id "$1" >/dev/null 2>&1; }
assert_nothing_left()
{
	xdpt_wait 5 nothing_left ||
		xdpt_fail "$1: left $(ls "$PIN_DIR" 2>/dev/null | xargs) in $PIN_DIR," \
			"$(disp_dirs) in $LIBXDP_DIR"
}
# The pins are the attached xdpong's.
assert_pinned()
{
	local id

	id=$(attached_stats)
	[[ $id =~ ^[0-9]+$ ]] || xdpt_fail "$1: no stats map in status: $id"
	xdpt_assert_eq "$id" "$(pinned_stats)" "$1: the pinned stats map is the attached xdpong's"
}
# run (RUN_PID) lives, joined a dispatcher on IF_RESP, and pinned its maps.
run_joined()
{
	kill -0 "$RUN_PID" 2>/dev/null && [ "$(chain_names)" = xdpong ] &&
		[ -n "$(disp_dirs)" ] && [ -e "$PIN_DIR/stats" ] &&
		"${NSE[@]}" xdp-loader status "$IF_RESP" | grep -q xdp_dispatcher
}

xdpt_log "8a. run under a watchdog notices, and removes libxdp's directory and its pins" \
	"before systemd kills it"
# WATCHDOG_USEC is what run reads of systemd's watchdog (without
# NOTIFY_SOCKET its messages go nowhere): a check every 0.2 s.
WATCHDOG_USEC=400000 "${NSE[@]}" "$XDPONG" run "$IF_RESP" >"$XDPT_TMP/run8.txt" 2>&1 &
RUN_PID=$!
xdpt_wait 20 run_joined || xdpt_fail "run did not join a dispatcher: $(cat "$XDPT_TMP/run8.txt")"
kid=$(chain_id xdpong)
ddir=$(disp_dirs)
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
xdp_off "$NS_RESP"
xdpt_wait 10 grep -q "removed the pins of program id $kid" "$XDPT_TMP/run8.txt" ||
	xdpt_fail "run did not release what the detach left: $(cat "$XDPT_TMP/run8.txt")"
xdpt_assert_match "no longer attached; not telling the watchdog" "$(cat "$XDPT_TMP/run8.txt")" \
	"run stops petting the watchdog"
re="removed $LIBXDP_DIR/$ddir, libxdp's pins of dispatcher id [0-9]+: it was detached"
re+=" without libxdp, and they kept xdpong program id $kid and its maps alive"
xdpt_assert_match "$re" \
	"$(cat "$XDPT_TMP/run8.txt")" "run says what of libxdp's it removed"
assert_nothing_left "after run noticed the detach"
# systemd's kill at the watchdog's timeout (SIGABRT: no cleanup either).
kill -9 "$RUN_PID"
wait "$RUN_PID" 2>/dev/null
xdpt_wait 10 prog_gone "$kid" || xdpt_fail "program id $kid outlived its run"
xdpt_log "    the restarted run pins its maps; SIGTERM leaves nothing"
"${NSE[@]}" "$XDPONG" run "$IF_RESP" >"$XDPT_TMP/run9.txt" 2>&1 &
RUN_PID=$!
xdpt_wait 20 run_joined ||
	xdpt_fail "the new run did not join a dispatcher: $(cat "$XDPT_TMP/run9.txt")"
xdpt_assert_no_match "not pinned" "$(cat "$XDPT_TMP/run9.txt")" "the new run's note on pins"
assert_pinned "the new run"
kid=$(chain_id xdpong)
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
kill -TERM "$RUN_PID"
wait "$RUN_PID"
xdpt_assert_eq 0 "$?" "run's exit code after SIGTERM"
assert_nothing_left "after the new run's SIGTERM"
xdpt_wait 10 prog_gone "$kid" || xdpt_fail "program id $kid outlived its run's SIGTERM"

xdpt_log "8b. kill -9, then the detach: the next attach removes the leftovers and pins its maps"
"${NSE[@]}" "$XDPONG" run "$IF_RESP" >"$XDPT_TMP/run10.txt" 2>&1 &
RUN_PID=$!
xdpt_wait 20 run_joined || xdpt_fail "run did not join a dispatcher: $(cat "$XDPT_TMP/run10.txt")"
kid=$(chain_id xdpong)
kill -9 "$RUN_PID"
wait "$RUN_PID" 2>/dev/null
xdp_off "$NS_RESP"
ddir=$(disp_dirs)
# What the bug was: libxdp's directory keeps the program, which keeps
# xdpong's pins in use.
[ -n "$ddir" ] && [ -e "$PIN_DIR/stats" ] && ! prog_gone "$kid" ||
	xdpt_fail "kill -9 and the detach left '$ddir' and $(ls "$PIN_DIR" 2>/dev/null | xargs)"
xdpt_ok "${NSE[@]}" "$XDPONG" attach "$IF_RESP"
xdpt_log "$XDPT_ERR"
re="removed $LIBXDP_DIR/$ddir, libxdp's pins of dispatcher id [0-9]+: it was detached"
re+=" without libxdp, and they kept xdpong program id $kid"
xdpt_assert_match "$re" \
	"$XDPT_ERR" "attach says what of libxdp's it removed"
xdpt_assert_no_match "not pinned" "$XDPT_ERR" "attach's note on pins"
xdpt_assert_match "maps pinned in $PIN_DIR" "$XDPT_OUT" "attach pinned its maps"
assert_pinned "the attach after kill -9 and the detach"
xdpt_assert_ne "$ddir" "$(disp_dirs)" "libxdp's directory after the attach (the new dispatcher's)"
xdpt_wait 10 prog_gone "$kid" || xdpt_fail "program id $kid outlived libxdp's directory"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq 2 "$r4" "reply_echo4 of the new program (counters start afresh)"
xdpt_ok "${NSE[@]}" "$XDPONG" detach "$IF_RESP"
assert_nothing_left "after detach"

xdpt_log "8c. attach, then the detach: 'xdpong detach' (the package's removal)" \
	"removes the leftovers"
xdpt_ok "${NSE[@]}" "$XDPONG" attach "$IF_RESP"
kid=$(chain_id xdpong)
xdp_off "$NS_RESP"
ddir=$(disp_dirs)
[ -n "$ddir" ] || xdpt_fail "the detach left no libxdp directory: nothing to test"
xdpt_rc 1 "${NSE[@]}" "$XDPONG" detach "$IF_RESP"
xdpt_assert_match "xdpong is not attached here" "$XDPT_ERR" "detach says it is not attached"
re="removed $LIBXDP_DIR/$ddir, libxdp's pins of dispatcher id [0-9]+: it was detached"
re+=" without libxdp, and they kept xdpong program id $kid"
xdpt_assert_match "$re" \
	"$XDPT_ERR" "detach says what of libxdp's it removed"
assert_nothing_left "after detach"
xdpt_wait 10 prog_gone "$kid" || xdpt_fail "program id $kid outlived detach"

xdpt_log "8d. another namespace's interface of the same name and ifindex (nsenter: one bpffs)" \
	"is left alone"
xdpt_ns_new NS_TWIN twin
NST=(nsenter "--net=/run/netns/$NS_TWIN")
ip -n "$NS_TWIN" link add name "$IF_RESP" index "$IFX" type dummy ||
	xdpt_fail "cannot create a dummy $IF_RESP with ifindex $IFX in $NS_TWIN"
ip -n "$NS_TWIN" link set dev "$IF_RESP" up
xdpt_ok "${NSE[@]}" "$XDPONG" attach "$IF_RESP"
kid=$(chain_id xdpong)
ddir=$(disp_dirs)
pin=$(pinned_stats)
xdpt_ok "${NST[@]}" "$XDPONG" attach "$IF_RESP" --mode skb
xdpt_assert_match "another live xdpong" "$XDPT_ERR" \
	"the twin's attach leaves resp's pins, and says so"
xdpt_assert_no_match "removed" "$XDPT_ERR" "the twin's attach removes nothing"
twin=$(disp_dirs | tr ' ' '\n' | grep -vx "$ddir")
[ -n "$twin" ] || xdpt_fail "the twin did not join a dispatcher of its own: $(disp_dirs)"
xdp_off "$NS_TWIN"
xdpt_rc 1 "${NST[@]}" "$XDPONG" detach "$IF_RESP"
xdpt_assert_match "removed $LIBXDP_DIR/$twin," "$XDPT_ERR" \
	"the twin's detach removes its own leftovers"
xdpt_assert_eq "$ddir" "$(disp_dirs)" "libxdp's directories of ifindex $IFX after the twin's detach"
xdpt_assert_eq "$pin" "$(pinned_stats)" "resp's pinned stats map after the twin's attach and detach"
xdpt_assert_eq "$kid" "$(chain_id xdpong)" "resp's xdpong after the twin's attach and detach"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
xdpt_ok "${NSE[@]}" "$XDPONG" detach "$IF_RESP"
assert_nothing_left "after resp's detach"
xdpt_pass
