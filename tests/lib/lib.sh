# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # its variables are the tests' to use
#
# Shared helpers for the namespace and CLI tests. Source it first thing:
#
#	. "$(dirname "$0")/../lib.sh"
#
# A test exits 0 (pass), 1 (fail) or 77 (skip, as automake and the kernel
# selftests' ksft_skip do). Every assertion prints what it expected and what
# it found, then fails the test at once; the EXIT trap always deletes every
# namespace the test made and every pin it left, whatever the outcome.

set -u

XDPT_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
XDPONG=${XDPONG:-$XDPT_REPO/build/xdpong}
XDP_PASS_OBJ=${XDP_PASS_OBJ:-$XDPT_REPO/build/tools/xdp_pass.bpf.o}
XDPT_SKIP=77
XDPT_PIN_ROOT=/sys/fs/bpf/xdpong
# xdpong attached alone, as it is wherever libxdp's dispatcher is refused
# (this machine) or has no bpffs (ip netns exec): the tests' checks of the
# interface's one program, its id and its atomic takeovers hold on every
# kernel. On Debian 12's and 13's kernels xdpong would join a dispatcher
# through nsenter; netns/dispatcher, which tests that, unsets this.
export LIBXDP_SKIP_DISPATCHER=1
XDPT_NAME=$(basename "$0" .sh)${XDPT_MTU:+_mtu$XDPT_MTU}

# Unique per test process: pid, 'x', a random suffix (at most 11 characters,
# so "xa2$XDPT_ID" still fits an interface name).
XDPT_ID=$$x$(printf '%03x' $((RANDOM % 4096)))
# Under tests/run.sh: tell it our id, so it can find what we leave behind.
[ -n "${XDPT_RECORD:-}" ] && echo "$XDPT_ID" >>"$XDPT_RECORD"

XDPT_NAMESPACES=()
XDPT_PIN_DIRS=()
XDPT_TMP=

# Fixed addresses: each test has its own namespaces, so they never clash.
PING4=10.99.0.1
RESP4=10.99.0.2
NET4_BCAST=10.99.0.255
PING6=fd00:99::1
RESP6=fd00:99::2

xdpt_log()
{
	printf '# %s\n' "$*"
}

# XDPT_FAIL_LOGS: files (space-separated) a failure shows, e.g. the logs of
# helpers running in the background.
xdpt_fail()
{
	local f

	printf 'FAIL: %s: %s\n' "$XDPT_NAME" "$*" >&2
	for f in ${XDPT_FAIL_LOGS:-}; do
		[ -s "$f" ] && { printf -- '--- %s\n' "$f"; tail -n 40 "$f"; } >&2
	done
	exit 1
}

xdpt_skip()
{
	printf 'SKIP: %s: %s\n' "$XDPT_NAME" "$*" >&2
	exit "$XDPT_SKIP"
}

xdpt_pass()
{
	printf 'ok: %s\n' "$XDPT_NAME"
	exit 0
}

xdpt_cleanup()
{
	local rc=$? ns pid dir

	trap - EXIT
	set +e
	for ns in "${XDPT_NAMESPACES[@]}"; do
		# Processes this test left running inside (a background ping or
		# stats): only those, by pid.
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill "$pid" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	for dir in "${XDPT_PIN_DIRS[@]}"; do
		[ -d "$dir" ] && rm -rf -- "$dir"
	done
	[ -d "$XDPT_PIN_ROOT" ] && rmdir "$XDPT_PIN_ROOT" 2>/dev/null
	[ -n "$XDPT_TMP" ] && rm -rf -- "$XDPT_TMP"
	exit "$rc"
}
trap xdpt_cleanup EXIT
# A timeout's SIGTERM must still run the cleanup above.
trap 'exit 143' TERM INT HUP

xdpt_require_root()
{
	[ "$(id -u)" -eq 0 ] || xdpt_skip "needs root"
}

xdpt_require_cmd()
{
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || xdpt_skip "needs '$c' (run tools/deps.sh)"
	done
}

# Root, the tools every test uses, and the built binaries.
xdpt_require_all()
{
	xdpt_require_root
	xdpt_require_cmd ip ping jq bpftool nsenter timeout
	[ -x "$XDPONG" ] || xdpt_fail "$XDPONG is missing: run 'make' first"
	[ -r "$XDP_PASS_OBJ" ] || xdpt_fail "$XDP_PASS_OBJ is missing: run 'make' first"
}

# A scratch directory in XDPT_TMP, removed on exit. Not in a subshell.
xdpt_tmpdir()
{
	[ -n "$XDPT_TMP" ] && return 0
	XDPT_TMP=$(mktemp -d "/tmp/xdpt-$XDPT_NAME.XXXXXX") ||
		xdpt_fail "cannot create a scratch directory"
}

# xdpt_ns_new VAR TAG: make namespace xdpt-TAG-<id>, loopback up, name in VAR.
xdpt_ns_new()
{
	local var=$1 name="xdpt-$2-$XDPT_ID"

	ip netns add "$name" || xdpt_fail "cannot create namespace $name"
	XDPT_NAMESPACES+=("$name")
	ip -n "$name" link set lo up
	printf -v "$var" '%s' "$name"
}

# Remember a pin directory made through nsenter (host mount namespace).
xdpt_track_pins()
{
	XDPT_PIN_DIRS+=("$XDPT_PIN_ROOT/$1")
}

# xdpt_sysctl NS KEY VALUE [KEY VALUE...]: set per-namespace sysctls through
# /proc/sys, all in one process (each costs tenths of a second in an
# emulated guest).
xdpt_sysctl()
{
	local ns=$1 script=

	shift
	while [ "$#" -ge 2 ]; do
		script+="echo '$2' > /proc/sys/${1//.//} && "
		shift 2
	done
	ip netns exec "$ns" sh -c "${script}:" || xdpt_fail "cannot set sysctls in $ns: $script"
}

# Kernel echo on (0) or off (1) in NS, for IPv4 and IPv6.
xdpt_kernel_echo_ignore()
{
	xdpt_sysctl "$1" net.ipv4.icmp_echo_ignore_all "$2" net.ipv6.icmp.echo_ignore_all "$2"
}

# xdpt_wait SECONDS CMD...: run CMD every 0.1 s until it succeeds; 1 on timeout.
xdpt_wait()
{
	local tries=$(($1 * 10))

	shift
	while [ "$tries" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

# xdpt_wait_quiet NS IFACE: wait until no packet reaches xdpong on IFACE for
# a whole second (xdpt_wait 20 tries of it); fail the test if none is quiet.
xdpt_wait_quiet()
{
	xdpt_wait 20 _xdpt_quiet "$1" "$2" ||
		xdpt_fail "packets keep reaching $2 with nothing sending"
}

_xdpt_received()
{
	ip netns exec "$1" "$XDPONG" stats "$2" --json | jq -r .received
}

_xdpt_quiet()
{
	local a b

	a=$(_xdpt_received "$1" "$2") && sleep 1 && b=$(_xdpt_received "$1" "$2") &&
		[ -n "$a" ] && [ "$a" = "$b" ]
}

# xdpt_require_prometheus_client: PY=Debian's python3 (the package installs for
# it, whatever python3 is first in PATH) with prometheus_client, installed if
# missing; skip otherwise.
xdpt_require_prometheus_client()
{
	PY=/usr/bin/python3
	[ -x "$PY" ] || xdpt_skip "needs Debian's python3 (/usr/bin/python3)"
	"$PY" -c 'import prometheus_client' 2>/dev/null ||
		timeout 300 apt-get install -y -qq python3-prometheus-client >/dev/null 2>&1
	"$PY" -c 'import prometheus_client' 2>/dev/null ||
		xdpt_skip "needs python3-prometheus-client (run tools/deps.sh)"
}

_xdpt_no_tentative()
{
	! ip -n "$1" -6 addr show dev "$2" tentative | grep -q inet6
}

#
# xdpt_topo_veth: the two-namespace topology most tests use.
#
#   $NS_PING                                 $NS_RESP
#  +--------------------------+  veth pair  +--------------------------+
#  | $IF_PING                 |-------------| $IF_RESP  <- xdpong here |
#  | 10.99.0.1/24             |             | 10.99.0.2/24             |
#  | fd00:99::1/64 (nodad)    |             | fd00:99::2/64 (nodad)    |
#  +--------------------------+             +--------------------------+
#
# Interface names carry the test id: pins made through nsenter live in the
# host's /sys/fs/bpf/xdpong/IFACE and must not collide with another run.
# XDPT_MTU (environment): the pair's MTU, e.g. 9000 for jumbo frames
# (tests/netns/*_mtu9000.sh); unset: the veth default, 1500.
#
xdpt_topo_veth()
{
	xdpt_ns_new NS_PING ping
	xdpt_ns_new NS_RESP resp
	IF_PING="xp$XDPT_ID"
	IF_RESP="xr$XDPT_ID"
	ip link add "$IF_PING" ${XDPT_MTU:+mtu "$XDPT_MTU"} netns "$NS_PING" type veth \
		peer name "$IF_RESP" ${XDPT_MTU:+mtu "$XDPT_MTU"} netns "$NS_RESP" ||
		xdpt_fail "cannot create the veth pair"
	if [ -n "${XDPT_MTU:-}" ]; then
		xdpt_assert_eq "$XDPT_MTU" \
			"$(ip -n "$NS_RESP" -j link show dev "$IF_RESP" | jq '.[0].mtu')" \
			"MTU of $IF_RESP"
	fi
	_xdpt_topo_addrs
}

# xdpt_topo_nics: xdpt_topo_veth's topology on the two cabled virtio-net
# NICs of a tools/vm guest (run.sh --nics: $XDPONG_VM_NICS), the first as
# IF_RESP, the second as IF_PING; skips where there are none. Deleting the
# namespaces gives the NICs back to the host's.
xdpt_topo_nics()
{
	local nics

	read -r -a nics <<<"${XDPONG_VM_NICS:-}"
	[ "${#nics[@]}" -ge 2 ] ||
		xdpt_skip "no cabled NIC pair here" \
			"(tools/vm/run.sh --nics provides virtio-net ones)"
	xdpt_ns_new NS_PING ping
	xdpt_ns_new NS_RESP resp
	IF_RESP=${nics[0]} IF_PING=${nics[1]}
	ip link set "$IF_RESP" netns "$NS_RESP" && ip link set "$IF_PING" netns "$NS_PING" ||
		xdpt_fail "cannot move $IF_RESP and $IF_PING into the namespaces"
	_xdpt_topo_addrs
}

# The addresses of both ends (IF_PING, IF_RESP in NS_PING, NS_RESP), up.
_xdpt_topo_addrs()
{
	# No duplicate address detection: addresses are usable at once, and
	# xdpong skips tentative ones.
	# Broadcast pings must not be answered by either kernel.
	xdpt_sysctl "$NS_PING" "net.ipv6.conf.$IF_PING.accept_dad" 0 \
		net.ipv4.icmp_echo_ignore_broadcasts 1
	xdpt_sysctl "$NS_RESP" "net.ipv6.conf.$IF_RESP.accept_dad" 0 \
		net.ipv4.icmp_echo_ignore_broadcasts 1
	ip -n "$NS_PING" addr add "$PING4/24" dev "$IF_PING"
	ip -n "$NS_PING" addr add "$PING6/64" dev "$IF_PING" nodad
	ip -n "$NS_RESP" addr add "$RESP4/24" dev "$IF_RESP"
	ip -n "$NS_RESP" addr add "$RESP6/64" dev "$IF_RESP" nodad
	ip -n "$NS_PING" link set "$IF_PING" up
	ip -n "$NS_RESP" link set "$IF_RESP" up
	if ! xdpt_wait 5 _xdpt_no_tentative "$NS_PING" "$IF_PING" ||
		! xdpt_wait 5 _xdpt_no_tentative "$NS_RESP" "$IF_RESP"; then
		xdpt_fail "IPv6 addresses still tentative after 5 s"
	fi
	xdpt_wait 5 ip netns exec "$NS_PING" ping -c 1 -W 1 "$RESP4" ||
		xdpt_fail "no IPv4 connectivity between $IF_PING and $IF_RESP before attaching"
	xdpt_wait 5 ip netns exec "$NS_PING" ping -6 -c 1 -W 1 "$RESP6" ||
		xdpt_fail "no IPv6 connectivity between $IF_PING and $IF_RESP before attaching"
}

# Attach xdp_pass natively to the pinger's veth: native XDP_TX from the
# responder reaches the pinger only when its veth runs an XDP program.
xdpt_peer_xdp_pass()
{
	xdpt_xdp_pass "$NS_PING" "$IF_PING" xdpdrv ||
		xdpt_fail "cannot attach $XDP_PASS_OBJ to $IF_PING"
}

# xdpt_require_feature NAME WHY: skip (saying what the kernel lacks) unless
# the running kernel has xdpong's feature NAME, as `xdpong status --json`
# reports it (found by trying: loader/core/probe.c). NAME: frags, rate_limits.
xdpt_require_feature()
{
	local k

	k=$("$XDPONG" status --json 2>/dev/null | jq -c ".kernel.features.$1") ||
		xdpt_fail "'xdpong status --json' gave no kernel features"
	[ "$(printf '%s' "$k" | jq -r .available)" = true ] ||
		xdpt_skip "$2: Linux $(uname -r) lacks $(printf '%s' "$k" |
			jq -r '.what + " (" + .since + ")"')"
}

# xdpt_xdp_pass NS IFACE xdpdrv|xdpgeneric: attach tools/xdp_pass.bpf.c, its
# frags-aware program, or where the kernel refuses the frags flag (before
# 5.18) its single-buffer one. Status of `ip link set`.
xdpt_xdp_pass()
{
	ip -n "$1" link set dev "$2" "$3" obj "$XDP_PASS_OBJ" sec xdp.frags 2>/dev/null ||
		ip -n "$1" link set dev "$2" "$3" obj "$XDP_PASS_OBJ" sec xdp
}

#
# xdpt_run [--ns NS] CMD...: run CMD (bounded by 60 s), inside NS with
# `ip netns exec` if given. Sets XDPT_RC, XDPT_OUT, XDPT_ERR. Never fails.
#
xdpt_run()
{
	local dir

	xdpt_tmpdir
	dir=$XDPT_TMP
	if [ "$1" = --ns ]; then
		local ns=$2

		shift 2
		set -- ip netns exec "$ns" "$@"
	fi
	timeout -k 5 60 "$@" >"$dir/out" 2>"$dir/err"
	XDPT_RC=$?
	# $(<FILE) is $(cat FILE) without starting cat: a process costs
	# tenths of a second in an emulated guest.
	XDPT_OUT=$(<"$dir/out")
	XDPT_ERR=$(<"$dir/err")
}

# Show the last command's output: on failures and with V=1.
_xdpt_show_run()
{
	[ -n "$XDPT_OUT" ] && printf '  stdout: %s\n' "$XDPT_OUT" | sed '2,$s/^/          /' >&2
	[ -n "$XDPT_ERR" ] && printf '  stderr: %s\n' "$XDPT_ERR" | sed '2,$s/^/          /' >&2
	return 0
}

# xdpt_ok [--ns NS] CMD...: run CMD, fail the test unless it exits 0.
xdpt_ok()
{
	xdpt_run "$@"
	if [ "$XDPT_RC" -ne 0 ]; then
		_xdpt_show_run
		xdpt_fail "'$*' exited $XDPT_RC, expected 0"
	fi
}

# xdpt_rc WANT [--ns NS] CMD...: run CMD and fail unless it exits WANT.
xdpt_rc()
{
	local want=$1

	shift
	xdpt_run "$@"
	if [ "$XDPT_RC" -ne "$want" ]; then
		_xdpt_show_run
		xdpt_fail "'$*' exited $XDPT_RC, expected $want"
	fi
}

xdpt_assert_eq()
{
	[ "$2" = "$1" ] || xdpt_fail "$3: expected '$1', found '$2'"
}

xdpt_assert_ne()
{
	[ "$2" != "$1" ] || xdpt_fail "$3: expected something other than '$1'"
}

xdpt_assert_ge()
{
	[ "$2" -ge "$1" ] 2>/dev/null || xdpt_fail "$3: expected >= $1, found '$2'"
}

# xdpt_assert_match ERE TEXT WHAT
xdpt_assert_match()
{
	printf '%s\n' "$2" | grep -Eq -- "$1" ||
		xdpt_fail "$3: expected text matching /$1/, found: $2"
}

xdpt_assert_no_match()
{
	if printf '%s\n' "$2" | grep -Eq -- "$1"; then
		xdpt_fail "$3: expected no text matching /$1/, found: $2"
	fi
}

#
# xdpt_ping NS [-6|-4] DST COUNT [ping options]: COUNT pings 0.2 s apart.
# Sets XDPT_PING_SENT and XDPT_PING_RECEIVED; returns ping's exit code.
#
xdpt_ping()
{
	local ns=$1 fam=$2 dst=$3 count=$4 out

	shift 4
	out=$(timeout -k 5 $((count + 20)) ip netns exec "$ns" \
		ping "$fam" -n -c "$count" -i 0.2 -W 1 "$@" "$dst" 2>&1)
	local rc=$?
	local re=$'(^|\n)([0-9]+) packets transmitted, ([0-9]+) received'
	XDPT_PING_OUT=$out
	XDPT_PING_SENT=0 XDPT_PING_RECEIVED=0
	if [[ $out =~ $re ]]; then
		XDPT_PING_SENT=${BASH_REMATCH[2]} XDPT_PING_RECEIVED=${BASH_REMATCH[3]}
	fi
	return "$rc"
}

# xdpt_ping_all NS FAM DST COUNT [opts]: every ping must be answered.
xdpt_ping_all()
{
	xdpt_ping "$@"
	if [ "$XDPT_PING_RECEIVED" != "$4" ] || [ "$XDPT_PING_SENT" != "$4" ]; then
		printf '%s\n' "$XDPT_PING_OUT" >&2
		xdpt_fail "ping $2 $3: expected $4 of $4 answered," \
			"found $XDPT_PING_RECEIVED of $XDPT_PING_SENT"
	fi
}

# xdpt_ping_answered MODE COUNT: COUNT pings and COUNT pings -6 from NS_PING
# to RESP4 and RESP6, every one answered, and xdpong on IF_RESP in NS_RESP
# says so: attached in MODE, exactly COUNT replies of each family, and its
# counters consistent. XDPT_STATS holds its stats after.
xdpt_ping_answered()
{
	local r4 r6

	xdpt_ping_all "$NS_PING" -4 "$RESP4" "$2"
	xdpt_ping_all "$NS_PING" -6 "$RESP6" "$2"
	xdpt_stats "$NS_RESP" "$IF_RESP"
	xdpt_assert_eq "$1" "$(printf '%s\n' "$XDPT_STATS" | jq -r .mode)" "stats mode"
	xdpt_get r4 reply_echo4
	xdpt_get r6 reply_echo6
	xdpt_assert_eq "$2" "$r4" "reply_echo4 after $2 IPv4 pings"
	xdpt_assert_eq "$2" "$r6" "reply_echo6 after $2 IPv6 pings"
	xdpt_assert_consistent
}

# xdpt_ping_none NS FAM DST COUNT [opts]: no ping may be answered.
xdpt_ping_none()
{
	xdpt_ping "$@"
	if [ "$XDPT_PING_RECEIVED" != 0 ] || [ "$XDPT_PING_SENT" != "$4" ]; then
		printf '%s\n' "$XDPT_PING_OUT" >&2
		xdpt_fail "ping $2 $3: expected 0 of $4 answered," \
			"found $XDPT_PING_RECEIVED of $XDPT_PING_SENT"
	fi
}

# xdpt_stats NS IFACE: `xdpong stats IFACE --json` from a fresh `ip netns
# exec`, into XDPT_STATS.
xdpt_stats()
{
	XDPT_STATS=$(timeout -k 5 30 ip netns exec "$1" "$XDPONG" stats "$2" --json) ||
		xdpt_fail "'xdpong stats $2 --json' in $1 failed"
	_xdpt_counters "$XDPT_STATS" ||
		xdpt_fail "'xdpong stats $2 --json' printed no valid JSON: $XDPT_STATS"
}

#
# _xdpt_counters JSON: the stats JSON's top-level scalars into _XDPT_TOP and
# its reasons into _XDPT_REASONS, with one jq for all of them (a process
# costs tenths of a second in an emulated guest, and a test reads dozens
# of counters); kept for the next call with the same JSON. False if JSON
# is not an object.
#
declare -gA _XDPT_TOP=() _XDPT_REASONS=()
_XDPT_COUNTERS_OF=
_xdpt_counters()
{
	local lines kind k v

	[ "$1" = "$_XDPT_COUNTERS_OF" ] && [ -n "$1" ] && return 0
	lines=$(printf '%s\n' "$1" | jq -er 'def s: if type == "object" or type == "array"
			then "-" else tostring end;
		(to_entries[] | "t\t\(.key)\t\(.value | s)"),
		(.reasons // {} | to_entries[] | "r\t\(.key)\t\(.value | s)")' 2>/dev/null) ||
		return 1
	_XDPT_TOP=()
	_XDPT_REASONS=()
	while IFS=$'\t' read -r kind k v; do
		if [ "$kind" = t ]; then _XDPT_TOP[$k]=$v; else _XDPT_REASONS[$k]=$v; fi
	done <<<"$lines"
	_XDPT_COUNTERS_OF=$1
}

#
# xdpt_get VAR NAME [JSON]: counter NAME from XDPT_STATS (or JSON) into VAR;
# top level for received/replied/passed/dropped, else a reason under
# .reasons. Fails the test unless it is an integer. Sets, never prints, so
# a failure is not lost in a $(...) subshell.
#
xdpt_get()
{
	local v=

	_xdpt_counters "${3:-$XDPT_STATS}" || xdpt_fail "no stats JSON to read '$2' from"
	if [ -n "${_XDPT_TOP[$2]+set}" ]; then
		v=${_XDPT_TOP[$2]}
	elif [ -n "${_XDPT_REASONS[$2]+set}" ]; then
		v=${_XDPT_REASONS[$2]}
	fi
	case $v in
	'' | *[!0-9]*) xdpt_fail "no integer counter '$2' in the stats JSON: ${v:-null}" ;;
	esac
	printf -v "$1" '%s' "$v"
}

# xdpt_counter VAR NS IFACE NAME: one counter, read now.
xdpt_counter()
{
	xdpt_stats "$2" "$3"
	xdpt_get "$1" "$4"
}

# xdpt_still NS IFACE CMD...: CMD between two reads of the stats; true if
# received did not move, so that what CMD read and XDPT_STATS (the second
# read) are of one moment. Under xdpt_wait: until they are (a router
# solicitation may arrive at any time).
xdpt_still()
{
	local ns=$1 ifc=$2 before after

	shift 2
	xdpt_counter before "$ns" "$ifc" received
	"$@" || return 1
	xdpt_counter after "$ns" "$ifc" received
	[ "$before" = "$after" ]
}

#
# received = replied + passed + dropped, each outcome the sum of its
# reasons: every packet counted exactly once (include/xdpong.h).
#
xdpt_assert_consistent()
{
	local j=$XDPT_STATS recv rep pas drp sum_r sum_p sum_d k v

	xdpt_get recv received "$j"
	xdpt_get rep replied "$j"
	xdpt_get pas passed "$j"
	xdpt_get drp dropped "$j"
	xdpt_assert_eq "$recv" $((rep + pas + drp)) "replied + passed + dropped (received is $recv)"
	sum_r=0 sum_p=0 sum_d=0
	for k in "${!_XDPT_REASONS[@]}"; do
		v=${_XDPT_REASONS[$k]}
		case $v in '' | *[!0-9]*) xdpt_fail "reason $k is not a count: $v" ;; esac
		case $k in
		reply_*) sum_r=$((sum_r + v)) ;;
		pass_*) sum_p=$((sum_p + v)) ;;
		drop_*) sum_d=$((sum_d + v)) ;;
		esac
	done
	xdpt_assert_eq "$rep" "$sum_r" "replied vs sum of reply_* reasons"
	xdpt_assert_eq "$pas" "$sum_p" "passed vs sum of pass_* reasons"
	xdpt_assert_eq "$drp" "$sum_d" "dropped vs sum of drop_* reasons"
}

# The XDP program id on IFACE in NS as the kernel reports it (0: none).
xdpt_link_prog_id()
{
	ip -n "$1" -j -d link show dev "$2" | jq -r '.[0].xdp.prog.id // 0'
}

# xdpt_attach NS IFACE [options]: `xdpong attach` from `ip netns exec`.
xdpt_attach()
{
	local ns=$1

	shift
	xdpt_ok --ns "$ns" "$XDPONG" attach "$@"
	xdpt_log "$XDPT_OUT"
}
