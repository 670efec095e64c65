# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers the fault tests share on top of tests/lib/lib.sh (sourced from here):
# xdpong through nsenter (pins in the host's bpffs), the state of an
# attachment (program, pins, whether the pins are that program's maps),
# background `xdpong run`, a stand-in for systemd's notify socket, the
# flood generator. Source it first thing:
#
#	. "$(dirname "$0")/../lib/faults.bash"
#
# In tests/lib/, with every shared shell helper: the runner runs no test there.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FLOOD=${FLOOD:-$XDPT_REPO/build/tests/faults/flood}
# The files `xdpong attach` pins, one per map (loader/core/pins.c).
XDF_PIN_NAMES="stats latency addr4 addr6 ratelim trace bss rodata carry latcarry txfail active"
XDF_T0=$(date +%s%N)

# Everything xdpt_require_all checks, plus the flood generator if asked.
xdf_require()
{
	xdpt_require_all
	if [ "${1:-}" = flood ]; then
		[ -x "$FLOOD" ] || xdpt_fail "$FLOOD is missing: run 'make tests' first"
	fi
}

# Milliseconds since the test started: for timings in the log.
xdf_ms()
{
	echo $((($(date +%s%N) - XDF_T0) / 1000000))
}

# PASS line with the test's wall time.
xdf_pass()
{
	xdpt_log "took $(xdf_ms) ms"
	xdpt_pass
}

# xdf_x NS ARGS...: xdpong in NS through nsenter (the host's bpffs, so pins
# persist), bounded by 60 s. Sets XDPT_RC/XDPT_OUT/XDPT_ERR like xdpt_run.
xdf_x()
{
	local ns=$1

	shift
	xdpt_run nsenter "--net=/run/netns/$ns" "$XDPONG" "$@"
}

xdf_x_ok()
{
	xdf_x "$@"
	if [ "$XDPT_RC" -ne 0 ]; then
		_xdpt_show_run
		xdpt_fail "'xdpong ${*:2}' in $1 exited $XDPT_RC, expected 0"
	fi
}

xdf_x_rc()
{
	local want=$1

	shift
	xdf_x "$@"
	if [ "$XDPT_RC" -ne "$want" ]; then
		_xdpt_show_run
		xdpt_fail "'xdpong ${*:2}' in $1 exited $XDPT_RC, expected $want"
	fi
}

# xdf_stats NS IFACE: `xdpong stats --json` into XDPT_STATS (via nsenter).
xdf_stats()
{
	xdf_x "$1" stats "$2" --json
	[ "$XDPT_RC" -eq 0 ] ||
		{ _xdpt_show_run; xdpt_fail "'xdpong stats $2 --json' in $1 exited $XDPT_RC"; }
	XDPT_STATS=$XDPT_OUT
	printf '%s\n' "$XDPT_STATS" | jq -e . >/dev/null 2>&1 ||
		xdpt_fail "'xdpong stats $2 --json' printed no valid JSON: $XDPT_STATS"
}

# xdf_counter VAR NS IFACE NAME: one counter, read now.
xdf_counter()
{
	xdf_stats "$2" "$3"
	xdpt_get "$1" "$4"
}

# Number of pin files under the pin directory of IFACE (0 if none).
xdf_pin_count()
{
	local n=0 f

	for f in $XDF_PIN_NAMES; do
		[ -e "$XDPT_PIN_ROOT/$1/$f" ] && n=$((n + 1))
	done
	echo "$n"
}

#
# xdf_state NS IFACE: what is configured, into XDF_STATE:
#   none      no XDP program on IFACE and no pin directory
#   attached  xdpong on IFACE and all pins there, each one a map of that
#             very program (no pin left from another attach)
#   half:...  anything else, with a description
#
xdf_state()
{
	local ns=$1 ifc=$2 id pins prog maps why

	# A deleted interface has no program.
	id=$(xdpt_link_prog_id "$ns" "$ifc" 2>/dev/null)
	: "${id:=0}"
	pins=$(xdf_pin_count "$ifc")
	if [ "$id" = 0 ]; then
		if [ "$pins" = 0 ] && [ ! -e "$XDPT_PIN_ROOT/$ifc" ]; then
			XDF_STATE=none
		else
			XDF_STATE="half: no program but $pins pins in $XDPT_PIN_ROOT/$ifc"
		fi
		return
	fi
	prog=$(bpftool prog show id "$id" -j 2>/dev/null) || prog=null
	maps=$(bpftool -f map show -j 2>/dev/null) || maps='[]'
	# One jq for all checks: bpftool and jq cost tens of ms per run.
	why=$(jq -rn --argjson prog "$prog" --argjson maps "$maps" \
		--arg dir "$XDPT_PIN_ROOT/$ifc/" --argjson pins "$pins" \
		--argjson all "$(wc -w <<<"$XDF_PIN_NAMES")" '
		if $prog == null or $prog.name != "xdpong" then
			"program \($prog.id // "?") on the interface is \($prog.name // "gone"), not xdpong"
		elif $pins != $all then
			"xdpong (id \($prog.id)) attached but \($pins) of \($all) pins"
		else
			[$maps[] | select(any(.pinned[]?; startswith($dir)))
			 | select(.id as $m | $prog.map_ids | index($m) | not)
			 | .pinned[] | select(startswith($dir))] as $foreign
			| if ($foreign | length) > 0 then
				"pins \($foreign | join(" ")) are not maps of program \($prog.id)"
			else "" end
		end') || why="cannot inspect program $id"
	if [ -n "$why" ]; then
		XDF_STATE="half: $why"
	else
		XDF_STATE=attached
	fi
}

# xdf_assert_state NS IFACE WANT WHAT: WANT is none, attached or "whole"
# (either of the two, never half).
xdf_assert_state()
{
	xdf_state "$1" "$2"
	case $3 in
	whole)
		case $XDF_STATE in
		half*) xdpt_fail "$4: half-configured: $XDF_STATE" ;;
		esac
		;;
	*)
		[ "$XDF_STATE" = "$3" ] || xdpt_fail "$4: expected '$3', found '$XDF_STATE'"
		;;
	esac
}

#
# xdf_run_bg NS OUTFILE ARGS...: `xdpong run ARGS` in the background inside
# NS, stdout and stderr into OUTFILE; its pid in XDF_RUN_PID (nsenter execs
# xdpong, so signals reach it directly). The EXIT trap kills it with the
# namespace's other processes.
#
xdf_run_bg()
{
	local ns=$1 out=$2

	shift 2
	nsenter "--net=/run/netns/$ns" "$XDPONG" run "$@" >"$out" 2>&1 &
	XDF_RUN_PID=$!
}

# xdf_run_wait_attached NS IFACE SECONDS [OLD_ID]: until run has attached
# and pinned (a program other than OLD_ID, if given) and still runs.
xdf_run_wait_attached()
{
	local tries=$(($3 * 20))

	while [ "$tries" -gt 0 ]; do
		kill -0 "$XDF_RUN_PID" 2>/dev/null || return 1
		xdf_state "$1" "$2"
		if [ "$XDF_STATE" = attached ] &&
			[ "$(xdpt_link_prog_id "$1" "$2")" != "${4:-}" ]; then
			kill -0 "$XDF_RUN_PID" 2>/dev/null || return 1
			return 0
		fi
		sleep 0.05
		tries=$((tries - 1))
	done
	return 1
}

#
# xdf_notify_standin SOCK LOG [CMD...]: a stand-in for systemd at the
# notify socket SOCK, in the background (its pid in XDF_STANDIN_PID): one
# line per message in LOG, "<monotonic seconds> <message, newlines as |>",
# after a first line "listening" (waited for here). At READY=1 it runs CMD,
# if given, and logs "<seconds> at-ready rc=N". It ends at STOPPING=1, or
# after 30 s without a message.
#
xdf_notify_standin()
{
	local sock=$1 log=$2

	shift 2
	/usr/bin/python3 - "$sock" "$log" "$@" <<'PY' &
import socket, subprocess, sys, time
path, log, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(30)
with open(log, "w", buffering=1) as f:
    f.write("listening\n")
    try:
        while True:
            msg = s.recv(4096).decode()
            f.write("%.3f %s\n" % (time.monotonic(), msg.replace("\n", "|")))
            lines = msg.split("\n")
            if cmd and "READY=1" in lines:
                rc = subprocess.call(cmd, stdout=subprocess.DEVNULL)
                f.write("%.3f at-ready rc=%d\n" % (time.monotonic(), rc))
            if "STOPPING=1" in lines:
                break
    except socket.timeout:
        f.write("timeout\n")
PY
	XDF_STANDIN_PID=$!
	xdpt_wait 5 grep -q listening "$log" || xdpt_fail "the notify stand-in did not start"
}

# xdf_wait_exit PID SECONDS: wait for PID (a child) to end; its exit code in
# XDF_EXIT, or 1 and XDF_EXIT=timeout if it is still running.
xdf_wait_exit()
{
	local tries=$(($2 * 20))

	while [ "$tries" -gt 0 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.05
		tries=$((tries - 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		XDF_EXIT=timeout
		return 1
	fi
	wait "$1"
	XDF_EXIT=$?
	return 0
}

# MAC address of IFACE in NS.
xdf_mac()
{
	ip -n "$1" -j link show dev "$2" | jq -r '.[0].address'
}

# xdf_ping_once NS DST [opts]: one ping, 0.2 s to answer; 0 if answered.
xdf_ping_once()
{
	timeout -k 2 5 ip netns exec "$1" ping -n -q -c 1 -W 0.2 "${@:3}" "$2" >/dev/null 2>&1
}

# xdf_answered DST [-6]: one ping from NS_PING to DST answered.
xdf_answered()
{
	xdf_ping_once "$NS_PING" "$1" ${2:+"$2"}
}

# xdf_unanswered DST [-6]: one ping from NS_PING to DST not answered.
xdf_unanswered()
{
	! xdf_ping_once "$NS_PING" "$1" ${2:+"$2"}
}

# xdf_within_1s WHAT CMD...: CMD must succeed within 1000 ms (logged).
xdf_within_1s()
{
	local what=$1 ms

	shift
	ms=$(xdf_until_ms 1000 "$@") || xdpt_fail "$what: not within 1 s ($ms ms)"
	xdpt_log "  $what: $ms ms"
}

# xdf_listed PREFIX [ORIGIN]: `xdpong addr IF_RESP list --json` in NS_RESP
# has PREFIX (with ORIGIN, if given).
xdf_listed()
{
	xdf_x_ok "$NS_RESP" addr "$IF_RESP" list --json
	printf '%s\n' "$XDPT_OUT" | jq -e --arg p "$1" --arg o "${2:-}" \
		'any(.addresses[]; .prefix == $p and ($o == "" or .origin == $o))' >/dev/null
}

#
# xdf_until_ms MS CMD...: run CMD until it succeeds, for at most MS
# milliseconds; prints how many milliseconds it took, returns 1 on timeout.
#
xdf_until_ms()
{
	local limit=$1 t0 now

	shift
	t0=$(date +%s%N)
	while :; do
		if "$@"; then
			now=$(date +%s%N)
			echo $(((now - t0) / 1000000))
			return 0
		fi
		now=$(date +%s%N)
		if [ $(((now - t0) / 1000000)) -ge "$limit" ]; then
			echo $(((now - t0) / 1000000))
			return 1
		fi
		sleep 0.02
	done
}

# xdf_kv KEY LINE: the value of KEY in flood's key=value summary line.
xdf_kv()
{
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

#
# xdf_veth NS_A IF_A ADDR_A NS_B IF_B ADDR_B: another veth pair, up, with
# an IPv4 /24 address on each end (no IPv6 DAD to wait for).
#
xdf_veth()
{
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4" ||
		xdpt_fail "cannot create the veth pair $2/$5"
	xdpt_sysctl "$1" "net.ipv6.conf.$2.accept_dad" 0
	xdpt_sysctl "$4" "net.ipv6.conf.$5.accept_dad" 0
	ip -n "$1" addr add "$3/24" dev "$2" &&
		ip -n "$4" addr add "$6/24" dev "$5" &&
		ip -n "$1" link set "$2" up &&
		ip -n "$4" link set "$5" up ||
		xdpt_fail "cannot configure the veth pair $2/$5"
}

#
# Ping streams through a lifecycle event (tests/faults/lifecycle_*.sh):
# xdf_streams_start N DST...: one ping per destination from $NS_PING at
# 1000 requests a second, N requests each, in the background.
# xdf_streams_check WHAT: wait for them; every request must have had its
# reply (none lost), and XDF_STREAMS_SENT is the total sent.
#
xdf_streams_start()
{
	local n=$1 d i=0

	shift
	XDF_STREAM_PIDS=()
	XDF_STREAM_DSTS=("$@")
	for d in "$@"; do
		timeout -k 5 60 ip netns exec "$NS_PING" ping -n -q -i 0.001 -W 2 -c "$n" "$d" \
			>"$XDPT_TMP/stream$i" 2>&1 &
		XDF_STREAM_PIDS+=($!)
		i=$((i + 1))
	done
}

# xdf_streams_flowing NS IFACE: until xdpong on IFACE has answered 100
# more requests than when called (bounded: 10 s): the streams are running,
# so what comes next happens under load wherever the scheduler put their
# start. A sleep would only hope so.
xdf_streams_flowing()
{
	local base now tries=100

	xdf_counter base "$1" "$2" replied
	while [ "$tries" -gt 0 ]; do
		xdf_counter now "$1" "$2" replied
		[ "$now" -ge $((base + 100)) ] && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	xdpt_fail "the streams did not get going: $((now - base)) replies in 10 s"
}

xdf_streams_check()
{
	local i=0 d line tx rx

	XDF_STREAMS_SENT=0
	for d in "${XDF_STREAM_DSTS[@]}"; do
		wait "${XDF_STREAM_PIDS[$i]}"
		line=$(grep 'packets transmitted' "$XDPT_TMP/stream$i")
		tx=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' <<<"$line")
		rx=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$line")
		[ -n "$tx" ] && [ "$tx" -gt 0 ] ||
			xdpt_fail "$1: stream to $d: no ping summary: $(cat "$XDPT_TMP/stream$i")"
		[ "$rx" = "$tx" ] || xdpt_fail "$1: stream to $d lost $((tx - rx)) of $tx replies"
		xdpt_log "$1: stream to $d: $rx of $tx answered"
		XDF_STREAMS_SENT=$((XDF_STREAMS_SENT + tx))
		i=$((i + 1))
	done
}

# xdf_run_pid NS IFACE: the pid of the live `xdpong run` owning IFACE, from
# `xdpong status --json` (empty if none).
xdf_owner_pid()
{
	xdf_x "$1" status "$2" --json
	printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].owner.pid // empty' 2>/dev/null
}

# xdf_topo_echo_off [PREFIX]: the lifecycle tests' topology (xdpt_topo_veth),
# the responder's kernel echo off (only xdpong answers), a scratch dir,
# IFACE's pins tracked; with PREFIX, the ping side routes it to the
# responder (an operator prefix that no address of the host covers).
xdf_topo_echo_off()
{
	xdpt_topo_veth
	xdpt_kernel_echo_ignore "$NS_RESP" 1
	xdpt_tmpdir
	xdpt_track_pins "$IF_RESP"
	if [ -n "${1:-}" ]; then
		ip -n "$NS_PING" route add "$1" via "$RESP4" || xdpt_fail "cannot route $1"
	fi
}
