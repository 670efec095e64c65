#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Attaching where xdpong already is:
#  - over an xdpong left by `attach` (no owner): a plain attach takes it
#    over, with or without new options: a new program id, the counters and
#    the operator's runtime prefixes kept, --addr prefixes made equal to the
#    new command line, and the old program gone from the kernel;
#  - over an xdpong a live `xdpong run` owns: refused, naming the run's
#    pid, --force or not; nothing changes.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  +---------------------+             | xdpong, attached again       |
#                                      +------------------------------+
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_tmpdir

xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb --addr 192.0.2.0/24
id=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdpt_ok --ns "$NS_RESP" "$XDPONG" addr "$IF_RESP" add 198.51.100.0/24
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
sent=2

for args in "" "--mode skb" "--addr 203.0.113.0/24" "--mode auto --latency-sample 0"; do
	# shellcheck disable=SC2086 # split on purpose
	xdpt_ok --ns "$NS_RESP" "$XDPONG" attach "$IF_RESP" $args
	xdpt_assert_match "took over from program id $id without a gap" "$XDPT_ERR" "attach $args"
	new=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
	xdpt_assert_ne "$id" "$new" "program id after attach $args"
	bpftool prog show id "$id" >/dev/null 2>&1 &&
		xdpt_fail "old program $id still loaded after attach $args"
	id=$new
	xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
	sent=$((sent + 2))
	xdpt_counter r4 "$NS_RESP" "$IF_RESP" reply_echo4
	xdpt_assert_eq "$sent" "$r4" "reply_echo4 carried over through attach $args"
	xdpt_ok --ns "$NS_RESP" "$XDPONG" addr "$IF_RESP" list --json
	origins_q='[.addresses[] | select(.origin != "iface" and .origin != "broadcast") | '
	origins_q+='"\(.prefix)=\(.origin)"] | sort | join(" ")'
	origins=$(jq -r "$origins_q" <<<"$XDPT_OUT")
	want="198.51.100.0/24=operator"
	[[ $args == *--addr* ]] && want="198.51.100.0/24=operator 203.0.113.0/24=config"
	xdpt_assert_eq "$want" "$origins" "prefixes after attach $args"
done
xdpt_log "taken over 4 times; last program id $id"

# A live run owns the interface: attach and run are refused, naming it.
nsenter "--net=/run/netns/$NS_RESP" "$XDPONG" run "$IF_RESP" --mode skb \
	>"$XDPT_TMP/run.out" 2>&1 &
run_pid=$!
xdpt_wait 10 grep -q "running (pid" "$XDPT_TMP/run.out" ||
	xdpt_fail "run did not start: $(cat "$XDPT_TMP/run.out")"
id=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
for args in "" "--force" "--mode skb --force"; do
	# shellcheck disable=SC2086 # split on purpose
	xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" attach "$IF_RESP" $args
	re="$IF_RESP is owned by 'xdpong run' \(pid $run_pid, running since .*; program id $id\)"
	xdpt_assert_match "$re" \
		"$XDPT_ERR" "attach $args over a live run"
	xdpt_assert_eq "$id" "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" \
		"program id after the refused attach $args"
done
xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" run "$IF_RESP" --mode skb
xdpt_assert_match "owned by another 'xdpong run' \(pid $run_pid\)" "$XDPT_ERR" "a second run"
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP"
xdpt_assert_match "owner: +xdpong run, pid $run_pid, running for" "$XDPT_OUT" \
	"status names the owner"
kill -TERM "$run_pid"
wait "$run_pid"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "program after run's SIGTERM"
xdpt_pass
