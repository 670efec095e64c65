#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fault: the loader is killed (SIGKILL) mid-attach and mid-run. Afterwards
# `xdpong detach` or `xdpong attach --force` recovers: never anything
# half-configured (either xdpong attached with all its pins, each a map of
# that program, or no program and no pins), and pings are answered by XDP
# after the re-attach (kernel echo is off in the responder).
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +-----------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24         |
#  +---------------------+             | xdpong attach, SIGKILLed    |
#                                      +-----------------------------+
#
# Kill points:
#  A. deterministic: strace injects SIGKILL on entry to the Nth bpf(),
#     sendto() (netlink: the attach is RTM_SETLINK) or mkdir() of an
#     attach: around the program load, the attach, every map pin;
#  B. random delays in the second half of an attach (seed: XDF_SEED);
#  C. `xdpong run`: killed once attached, and at random startup delays;
#     recovered by detach, attach --force, and run --force (a restart).
# Recovery alternates between detach (then a plain attach) and attach
# --force. Every point is tried; the failures are listed at the end.
. "$(dirname "$0")/../lib/faults.bash"

xdf_require
xdpt_require_cmd strace
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_tmpdir
xdpt_track_pins "$IF_RESP"
SEED=${XDF_SEED:-1}
RANDOM=$SEED
NSENTER=(nsenter "--net=/run/netns/$NS_RESP")
FAILURES=()
STATES=()
N_RECOVERED=0

# Remove whatever is there by hand, so one failure does not spoil the rest.
force_clean()
{
	ip -n "$NS_RESP" link set dev "$IF_RESP" xdpgeneric off 2>/dev/null
	ip -n "$NS_RESP" link set dev "$IF_RESP" xdpdrv off 2>/dev/null
	rm -rf -- "${XDPT_PIN_ROOT:?}/$IF_RESP"
}

# problem POINT TEXT: remember a failure and clean up for the next point.
problem()
{
	FAILURES+=("$1: $2")
	printf '  FAILED at %s: %s\n' "$1" "$2" >&2
	_xdpt_show_run
	force_clean
}

# xdp_answers: one ping to the responder is answered (kernel echo is off).
xdp_answers()
{
	timeout -k 2 10 ip netns exec "$NS_PING" ping -n -q -c 1 -W 1 "$RESP4" >/dev/null 2>&1
}

# recover POINT HOW: after a kill, recover with HOW (detach or force) and
# check: whole state, xdpong attached, pings answered by XDP; then detach.
recover()
{
	local point=$1 how=$2 what

	xdf_state "$NS_RESP" "$IF_RESP"
	STATES+=("$point -> $XDF_STATE")
	if [ "$how" = detach ]; then
		xdf_x "$NS_RESP" detach "$IF_RESP"
		if [ "$XDPT_RC" -gt 1 ]; then
			problem "$point" "detach exited $XDPT_RC"
			return
		fi
		xdf_state "$NS_RESP" "$IF_RESP"
		if [ "$XDF_STATE" != none ]; then
			problem "$point" "after detach: $XDF_STATE (expected none)"
			return
		fi
		xdf_x "$NS_RESP" attach "$IF_RESP"
	else
		xdf_x "$NS_RESP" attach --force "$IF_RESP"
	fi
	if [ "$XDPT_RC" -ne 0 ]; then
		what=$([ "$how" = force ] && echo 'attach --force' || echo 'attach after detach')
		problem "$point" "$what exited $XDPT_RC"
		return
	fi
	xdf_state "$NS_RESP" "$IF_RESP"
	if [ "$XDF_STATE" != attached ]; then
		problem "$point" "after the re-attach: $XDF_STATE"
		return
	fi
	if ! xdp_answers; then
		problem "$point" "no ping answered by XDP after the re-attach"
		return
	fi
	xdf_x "$NS_RESP" detach "$IF_RESP"
	xdf_state "$NS_RESP" "$IF_RESP"
	if [ "$XDPT_RC" -ne 0 ] || [ "$XDF_STATE" != none ]; then
		problem "$point" "final detach exited $XDPT_RC, state $XDF_STATE"
		return
	fi
	N_RECOVERED=$((N_RECOVERED + 1))
}

xdpt_log "A. deterministic kill points (strace -e inject)"
TRACE=$XDPT_TMP/trace
timeout -k 5 60 "${NSENTER[@]}" strace -qq -e trace=bpf,sendto,mkdir -o "$TRACE" \
	"$XDPONG" attach "$IF_RESP" >"$XDPT_TMP/traced" 2>&1 ||
	xdpt_fail "traced attach failed: $(cat "$XDPT_TMP/traced")"
xdf_x_ok "$NS_RESP" detach "$IF_RESP"
N_BPF=$(grep -c '^bpf(' "$TRACE")
N_SEND=$(grep -c '^sendto(' "$TRACE")
N_MKDIR=$(grep -c '^mkdir(' "$TRACE")
# bpf() calls before the netlink attach, and the indices of the pins.
B_ATTACH=$(awk '/^bpf\(/ { n++ } /RTM_SETLINK/ { print n; exit }' "$TRACE")
PIN_IDX=$(awk '/^bpf\(/ { n++; if (/BPF_OBJ_PIN/) print n }' "$TRACE")
[ -n "$B_ATTACH" ] && [ -n "$PIN_IDX" ] ||
	xdpt_fail "no RTM_SETLINK or BPF_OBJ_PIN in the traced attach: $(cat "$TRACE")"
xdpt_log "an attach makes $N_BPF bpf(), $N_SEND sendto(), $N_MKDIR mkdir();" \
	"attach after bpf() $B_ATTACH, pins at bpf() $(echo $PIN_IDX)"
S_ATTACH=$(awk '/^sendto\(/ { n++; if (/RTM_SETLINK/) { print n; exit } }' "$TRACE")
# Before the load, just before and after the attach, around and at every
# pin, and the two mkdir() of the pin directories.
POINTS=("bpf:1" "bpf:$B_ATTACH" "bpf:$((B_ATTACH + 1))" "sendto:$S_ATTACH"
	"mkdir:$((N_MKDIR - 1))" "mkdir:$N_MKDIR")
# The netlink call after the attach, if the attach makes one.
[ "$N_SEND" -gt "$S_ATTACH" ] && POINTS+=("sendto:$((S_ATTACH + 1))")
FIRST_PIN=${PIN_IDX%%$'\n'*}
POINTS+=("bpf:$((FIRST_PIN - 1))")
for i in $PIN_IDX; do
	POINTS+=("bpf:$i")
done
k=0
for p in "${POINTS[@]}"; do
	sc=${p%%:*} n=${p#*:}
	# The braces keep bash's "Killed" notice out of the log.
	{ timeout -k 5 60 "${NSENTER[@]}" strace -qq -o /dev/null -e trace="$sc" \
		-e inject="$sc:signal=SIGKILL:when=$n" \
		"$XDPONG" attach "$IF_RESP" >/dev/null 2>&1; } 2>/dev/null
	rc=$?
	[ "$rc" -eq 137 ] || problem "$p" "attach under strace exited $rc, expected 137 (killed)"
	k=$((k + 1))
	recover "$p" "$([ $((k % 2)) -eq 0 ] && echo force || echo detach)"
done

# The random kills aim at the second half of an attach, where the load,
# the attach and the pins are; the deterministic points cover the start.
t0=$(date +%s%N)
xdf_x_ok "$NS_RESP" attach "$IF_RESP"
T_ATTACH=$((($(date +%s%N) - t0) / 1000000))
xdf_x_ok "$NS_RESP" detach "$IF_RESP"
xdpt_log "B. random kill delays in [$((T_ATTACH / 2)), $((T_ATTACH * 11 / 10))] ms" \
	"during attach (seed $SEED)"
for k in 1 2 3 4; do
	ms=$((T_ATTACH / 2 + RANDOM % (T_ATTACH * 6 / 10 + 1)))
	"${NSENTER[@]}" "$XDPONG" attach "$IF_RESP" >/dev/null 2>&1 &
	pid=$!
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	recover "delay:${ms}ms" "$([ $((k % 2)) -eq 0 ] && echo force || echo detach)"
done

xdpt_log "C. xdpong run killed"
for how in detach force run; do
	out=$XDPT_TMP/run-$how
	xdf_run_bg "$NS_RESP" "$out" "$IF_RESP"
	if ! xdf_run_wait_attached "$NS_RESP" "$IF_RESP" 10; then
		problem "run($how)" "run did not attach within 10 s: $(cat "$out")"
		continue
	fi
	xdp_answers || problem "run($how)" "run attached but no ping answered"
	kill -KILL "$XDF_RUN_PID"
	wait "$XDF_RUN_PID" 2>/dev/null
	xdf_state "$NS_RESP" "$IF_RESP"
	# run had attached and pinned: a SIGKILL leaves it exactly so.
	[ "$XDF_STATE" = attached ] ||
		problem "run($how)" "after SIGKILL of a running run: $XDF_STATE"
	if [ "$how" != run ]; then
		recover "run-killed($how)" "$how"
		continue
	fi
	# A restart (systemd Restart=): run --force takes over, then SIGTERM.
	old_id=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
	xdf_run_bg "$NS_RESP" "$out.2" "$IF_RESP" --force
	if ! xdf_run_wait_attached "$NS_RESP" "$IF_RESP" 10 "$old_id"; then
		problem "run-killed(run --force)" \
			"the restarted run did not attach: $(cat "$out.2")"
		continue
	fi
	xdp_answers || problem "run-killed(run --force)" "no ping answered after the restart"
	kill -TERM "$XDF_RUN_PID"
	xdf_wait_exit "$XDF_RUN_PID" 5
	[ "$XDF_EXIT" = 0 ] ||
		problem "run-killed(run --force)" \
			"restarted run exited $XDF_EXIT on SIGTERM: $(cat "$out.2")"
	xdf_state "$NS_RESP" "$IF_RESP"
	[ "$XDF_STATE" = none ] || problem "run-killed(run --force)" "after SIGTERM: $XDF_STATE"
	[ "$XDF_STATE" = none ] && N_RECOVERED=$((N_RECOVERED + 1))
done
for k in 1 2; do
	ms=$((T_ATTACH / 2 + RANDOM % (T_ATTACH * 6 / 10 + 1)))
	xdf_run_bg "$NS_RESP" /dev/null "$IF_RESP"
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	kill -KILL "$XDF_RUN_PID" 2>/dev/null
	wait "$XDF_RUN_PID" 2>/dev/null
	recover "run-delay:${ms}ms" "$([ $((k % 2)) -eq 0 ] && echo force || echo detach)"
done

xdpt_log "states right after the kill:"
printf '%s\n' "${STATES[@]}" | sed 's/^/#   /'
if [ "${#FAILURES[@]}" -gt 0 ]; then
	printf '  %s\n' "${FAILURES[@]}" >&2
	xdpt_fail "${#FAILURES[@]} kill points not recovered ($N_RECOVERED recovered)"
fi
xdpt_log "$N_RECOVERED kill points recovered"
xdf_pass
