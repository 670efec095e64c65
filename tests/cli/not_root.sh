#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Without root every command that touches BPF refuses at once, exit 1,
# saying why; help still works. Runs as the existing user `nobody`
# (runuser, from util-linux), inside a namespace of its own.
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_require_cmd runuser setpriv
id nobody >/dev/null 2>&1 || xdpt_skip "no user 'nobody'"
xdpt_ns_new NS noroot
# nobody must be able to reach the binary: else a copy it can run.
if ! runuser -u nobody -- test -x "$XDPONG"; then
	xdpt_tmpdir
	chmod 755 "$XDPT_TMP"
	cp "$XDPONG" "$XDPT_TMP/xdpong"
	XDPONG=$XDPT_TMP/xdpong
fi

for args in "attach lo" "attach lo --mode skb --force" "detach lo" "status" "status lo" \
		"stats lo" "stats lo 1 1 --json"; do
	# shellcheck disable=SC2086 # split on purpose
	xdpt_rc 1 --ns "$NS" runuser -u nobody -- "$XDPONG" $args
	case $args in
	attach*)
		want='CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN \(loading and attaching need CAP_BPF,'
		want+=' CAP_PERFMON and CAP_NET_ADMIN'
		;;
	detach*) want='CAP_BPF and CAP_NET_ADMIN \(detaching needs CAP_BPF and CAP_NET_ADMIN' ;;
	*) want="CAP_BPF \\(reading xdpong's maps needs CAP_BPF" ;;
	esac
	xdpt_assert_match \
		"^xdpong: must run as root: missing $want; see xdpong\\(8\\), SECURITY\\)\$" \
		"$XDPT_ERR" "xdpong $args as nobody"
	xdpt_assert_eq '' "$XDPT_OUT" "stdout of xdpong $args as nobody"
done
xdpt_log "as nobody: $XDPT_ERR"

# setpriv too (no PAM session), same answer.
xdpt_rc 1 --ns "$NS" setpriv --reuid=nobody --regid=nogroup --clear-groups "$XDPONG" attach lo
xdpt_assert_match 'must run as root' "$XDPT_ERR" "xdpong attach lo through setpriv"

xdpt_rc 0 --ns "$NS" runuser -u nobody -- "$XDPONG" attach --help
xdpt_assert_match '^Usage: xdpong attach' "$XDPT_OUT" "help as nobody"

# Root without capabilities (empty bounding set): refused, nothing attached.
xdpt_rc 1 --ns "$NS" setpriv --bounding-set=-all "$XDPONG" attach lo --mode skb
xdpt_assert_match 'not permitted|root|CAP_' "$XDPT_ERR" "attach as root without capabilities"
xdpt_log "root without capabilities: $XDPT_ERR"

# Root with some of them: tests/security/no_sys_admin.sh.
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS" lo)" "XDP program on lo"
xdpt_pass
