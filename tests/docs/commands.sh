#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every command README.md, docs/*.md and xdpong(8) (man/xdpong.8.rst)
# show a user runs, as written.
# tests/docs/extract_commands.py lists them (fenced blocks, man EXAMPLES).
# Each `xdpong ...` and `bpftool ...` line runs against a namespace pair
# whose responder interface is named eth0, as in the docs, in the state it
# needs (attach and run on a free interface, the rest on an attached one),
# and must exit 0 (or be stopped by the timeout, for the commands that run
# until interrupted) with no usage error. Lines that are not for this test
# must match a rule below that names what runs them instead, so a command
# added to the docs is either run here or explicitly routed elsewhere.
#
#   $NS_PING                                $NS_RESP
#  +-------------------------+  veth pair  +---------------------------+
#  | xp<id> 10.99.0.1        |-------------| eth0 10.99.0.2  <- xdpong  |
#  +-------------------------+             +---------------------------+
#  | veth-c (client side)    |-------------| veth-s (server side)      |
#  +-------------------------+             +---------------------------+
#
# The commands run in a mount namespace of their own with a fresh bpffs at
# /sys/fs/bpf, so their pins (bpftool reads them) never meet this host's.
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_require_prometheus_client
xdpt_tmpdir
REPO=$(cd "$(dirname "$0")/../.." && pwd)

if [ -z "${XDPT_DOCS_INNER:-}" ]; then
	xdpt_topo_veth
	ip -n "$NS_RESP" link set dev "$IF_RESP" down &&
		ip -n "$NS_RESP" link set dev "$IF_RESP" name eth0 &&
		ip -n "$NS_RESP" link set dev eth0 up ||
		xdpt_fail "cannot rename $IF_RESP to eth0"
	ip link add veth-c netns "$NS_PING" type veth peer name veth-s netns "$NS_RESP" ||
		xdpt_fail "cannot create veth-c/veth-s"
	ip -n "$NS_PING" addr add 10.97.0.1/24 dev veth-c
	ip -n "$NS_RESP" addr add 10.97.0.2/24 dev veth-s
	ip -n "$NS_PING" link set veth-c up
	ip -n "$NS_RESP" link set veth-s up
	xdpt_wait 5 ip netns exec "$NS_PING" ping -c 1 -W 1 "$RESP4" ||
		xdpt_fail "no connectivity to eth0"
	# The rest in a private mount namespace; the EXIT trap of this shell
	# still deletes the namespaces.
	XDPT_DOCS_INNER=1 NS_PING=$NS_PING NS_RESP=$NS_RESP XDPT_TMP=$XDPT_TMP \
		unshare --mount --propagation private "$BASH" "$0"
	rc=$?
	[ "$rc" = 0 ] || exit "$rc"
	xdpt_pass
fi

# ---- inside the private mount namespace ----
trap - EXIT # the outer shell owns the namespaces
mount -t bpf bpf /sys/fs/bpf || xdpt_fail "cannot mount a private bpffs"
export PATH="$REPO/build:$PATH"
X() { nsenter "--net=/run/netns/$NS_RESP" "$@"; }

# Paths the docs write to that do not exist here: under the scratch dir.
mkdir -p "$XDPT_TMP/var/lib/node_exporter" "$XDPT_TMP/var/lib/prometheus/node-exporter" \
	"$XDPT_TMP/etc/xdpong"
# The config xdpong(8)'s EXAMPLES name: the installed example (eth0 here;
# eth1 is missing, which run --config waits for).
cp "$REPO/systemd/xdpong.conf.example" "$XDPT_TMP/etc/xdpong/xdpong.conf"

# `promtool check metrics` runs as written where promtool is installed
# (tools/deps.sh installs Debian's prometheus for it); elsewhere the
# Prometheus project's own Python parser reads the same exposition format.
PROMCHECK="promtool check metrics"
if ! command -v promtool >/dev/null 2>&1; then
	PROMCHECK="/usr/bin/python3 -c 'import sys; "
	PROMCHECK+="from prometheus_client.parser import text_string_to_metric_families as p; "
	PROMCHECK+="n = sum(len(f.samples) for f in p(sys.stdin.read())); "
	PROMCHECK+="sys.exit(0 if n > 10 else 1)'"
fi

ensure_detached()
{
	X xdpong detach eth0 >/dev/null 2>&1
	X xdpong detach veth-s >/dev/null 2>&1
	return 0
}
ensure_attached()
{
	X xdpong status eth0 >/dev/null 2>&1 && return 0
	X xdpong attach eth0 --mode skb >/dev/null || xdpt_fail "cannot attach for the next command"
}

# Traffic for the commands that wait for packets (trace --count N).
pings_bg()
{
	timeout 15 ip netns exec "$NS_PING" ping -q -i 0.1 -c 100 "$RESP4" >/dev/null 2>&1 &
}

# route WHERE SECTION CMD: say which test runs a line that is not run
# here, or fail. Prints the reason.
route()
{
	local where=$1 cmd=$3

	case $where in
	"$REPO/docs/experiment.md:"*)
		echo "tests/tuntap: the experiment's runbook"
		return 0
		;;
	"$REPO/man/xdpong.8.rst:"*)
		if [ "$2" = "SHARING AN INTERFACE" ]; then
			echo "tests/netns/dispatcher.sh: xdp-filter, xdpong and xdp-loader" \
				"on one veth, through nsenter"
			return 0
		fi
		;;
	esac
	case $cmd in
	"make test") echo ".ci/run: this is the suite itself" ;;
	"make demo") echo "run below: tools/demo.sh" ;;
	"make install" | "man xdpong") echo "tests/install/install.sh" ;;
	"make deb"*) echo "tests/install/deb.sh" ;;
	"apt install ./build/deb/"*)
		echo "tests/vm/systemd_6.1 and systemd_6.12 install it with apt in a systemd" \
			"guest; tests/install/deb.sh with dpkg --root"
		;;
	"make vmtest"*) echo "tests/vm/linux_*.sh: the same matrix, one kernel each" ;;
	systemctl* | journalctl* | "echo 'XDPONG_"*)
		echo "no systemd here (PID 1 is not systemd): tests/vm/systemd_6.1 and" \
			"systemd_6.12 run the units under systemd in a guest"
		;;
	[0-9][0-9]:[0-9][0-9]:*) echo "sample output, not a command" ;;
	*) return 1 ;;
	esac
}

ran=0 routed=0
while IFS=$'\t' read -r where sec cmd; do
	case $cmd in
	"xdpong probe "* | "ip netns exec "*" xdpong probe "*)
		# Its targets are reflectors of their own, with faults to report.
		xdpt_log "$where: routed (tests/probe/*.sh: against reflectors in" \
			"namespaces): $cmd"
		routed=$((routed + 1))
		continue
		;;
	xdpong\ * | bpftool\ * | "ip netns exec client xdpong "* | \
		"ip netns exec server xdpong "*) ;;
	*)
		why=$(route "$where" "$sec" "$cmd") ||
			xdpt_fail "$where: documented command not run by any test: $cmd" \
				"(run it in tests/docs/commands.sh or route it)"
		xdpt_log "$where: routed ($why): $cmd"
		routed=$((routed + 1))
		continue
		;;
	esac
	run=$cmd
	run=${run//\/var\/lib\//$XDPT_TMP/var/lib/}
	run=${run//\/etc\/xdpong\//$XDPT_TMP/etc/xdpong/}
	run=${run//| promtool check metrics/| $PROMCHECK}
	ns=$NS_RESP
	case $run in
	"ip netns exec client "*)
		ns=$NS_PING
		run=${run#ip netns exec client }
		;;
	"ip netns exec server "*) run=${run#ip netns exec server } ;;
	esac
	verb=$(awk '{ print $2 }' <<<"$run")
	[ "${run%% *}" = bpftool ] && verb=bpftool
	limit=20
	case $verb in
	attach)
		# The native pair: the client side must answer for nothing first.
		if [[ $cmd == *veth-c* ]]; then
			ensure_detached
		elif [[ $cmd != *veth-s* ]]; then
			ensure_detached
		fi
		;;
	run) ensure_detached; limit=3 ;;
	trace) ensure_attached; pings_bg; limit=5 ;;
	*) ensure_attached ;;
	esac
	[[ $verb == stats && $run == *" 1" ]] && limit=3 # until interrupted
	timeout -s INT "$limit" nsenter "--net=/run/netns/$ns" bash -c "$run" \
		>"$XDPT_TMP/out" 2>"$XDPT_TMP/err" </dev/null
	rc=$?
	if [ "$rc" = 124 ] &&
		{ [ "$verb" = run ] || [ "$verb" = trace ] || [ "$limit" = 3 ]; }; then
		rc=0 # runs until interrupted: stopped by the timeout, as a user would
	fi
	if [ "$rc" != 0 ] || grep -Eq 'unknown option|invalid |usage:|Usage:' "$XDPT_TMP/err"; then
		xdpt_fail "$where: '$cmd' exited $rc: $(cat "$XDPT_TMP/err")" \
			"$(head -c 600 "$XDPT_TMP/out")"
	fi
	xdpt_log "$where: ran: $cmd"
	ran=$((ran + 1))
done < <(/usr/bin/python3 "$REPO/tests/docs/extract_commands.py" "$REPO/README.md" \
	"$REPO"/docs/*.md "$REPO/man/xdpong.8.rst")
ensure_detached
nsenter "--net=/run/netns/$NS_PING" xdpong detach veth-c >/dev/null 2>&1

# The bpftool jq recipe gives a number: the replies counted on eth0.
X xdpong attach eth0 --mode skb >/dev/null || xdpt_fail "attach for the jq recipe"
ip netns exec "$NS_PING" ping -c 3 -i 0.2 "$RESP4" >/dev/null
n=$(bpftool -j map dump pinned /sys/fs/bpf/xdpong/eth0/stats |
	jq '[.[0].formatted.values[].value.reply_echo4] | add')
xdpt_assert_match '^[0-9]+$' "$n" "the README's jq recipe"

# make demo, past its deps and build steps (this suite already has both).
timeout 120 "$REPO/tools/demo.sh" >"$XDPT_TMP/demo" 2>&1 ||
	xdpt_fail "tools/demo.sh (make demo) failed: $(tail -n 20 "$XDPT_TMP/demo")"
xdpt_log "tools/demo.sh: $(grep -c . "$XDPT_TMP/demo") lines of output"
[ "$ran" -ge 20 ] || xdpt_fail "only $ran commands ran"
xdpt_log "$ran documented commands ran, $routed routed to other tests"
exit 0
