#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The units' sandbox cannot creep back: `systemd-analyze security
# --offline=true` rates xdpong@.service and xdpong.service, as `make
# install` writes them, at MAX_EXPOSURE (2.5) or below, and the
# two units have the same sandbox, line for line (xdpong.service points to
# xdpong@.service's comments for the reasons). That the units verify is
# install/install.sh's; that the sandbox lets the service work, under real
# systemd, is the systemd guest's (tests/vm/systemd/suite.sh), which also
# checks the figure online.
. "$(dirname "$0")/../lib/lib.sh"

MAX_EXPOSURE=2.5

systemd-analyze --help 2>/dev/null | grep -q -- '--offline=' ||
	xdpt_skip "systemd-analyze without --offline (systemd 250 or later has it):" \
		"the units cannot be rated here"
xdpt_require_cmd make
xdpt_tmpdir
DEST=$XDPT_TMP/dest

xdpt_log "1. make install DESTDIR=$DEST PREFIX=/usr"
xdpt_ok make --no-print-directory -C "$XDPT_REPO" install DESTDIR="$DEST" PREFIX=/usr
UNITDIR=$DEST/usr/lib/systemd/system

xdpt_log "2. systemd-analyze security --offline=true, at most $MAX_EXPOSURE"
for u in xdpong@.service xdpong.service; do
	[ -f "$UNITDIR/$u" ] || xdpt_fail "make install wrote no $UNITDIR/$u"
	# An instance, as systemctl would start it.
	name=${u/@./@eth0.}
	cp "$UNITDIR/$u" "$XDPT_TMP/$name"
	xdpt_run systemd-analyze security --offline=true --no-pager "$XDPT_TMP/$name"
	level=$(sed -n 's/^.*Overall exposure level for [^:]*: \([0-9.]*\) .*$/\1/p' <<<"$XDPT_OUT")
	[ -n "$level" ] ||
		xdpt_fail "no overall exposure level for $u (exit $XDPT_RC): $XDPT_OUT $XDPT_ERR"
	awk -v l="$level" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(l <= m) }' ||
		xdpt_fail "$u is rated $level, above $MAX_EXPOSURE; what counts against it:
$(grep -E ' [0-9]\.[0-9]$' <<<"$XDPT_OUT")"
	echo "$u: overall exposure $level (at most $MAX_EXPOSURE)"
done

xdpt_log "3. both units have the same sandbox"
# From NoNewPrivileges= to the end of [Service], without the comments.
sandbox()
{
	sed -n '/^NoNewPrivileges=/,/^\[/{/^[A-Za-z]/p}' "$1"
}
[ -n "$(sandbox "$UNITDIR/xdpong@.service")" ] || xdpt_fail "no sandbox found in xdpong@.service"
diff <(sandbox "$UNITDIR/xdpong@.service") <(sandbox "$UNITDIR/xdpong.service") >"$XDPT_TMP/diff" ||
	xdpt_fail "the units' sandboxes differ (< xdpong@.service, > xdpong.service):
$(cat "$XDPT_TMP/diff")"
xdpt_pass
