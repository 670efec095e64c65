#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install DESTDIR=... [PREFIX=...]` and what it installs: the binary
# works on its own (the BPF object is inside it) for --version, every
# --help and a real attach, ping and detach; --version, the metrics and the
# man page all say tools/version.sh's version (debian/changelog's); the
# man page renders without a warning and covers every command, option and
# reason; the bash completion parses and completes; the systemd unit
# verifies; `make uninstall` removes it all.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  |        fd00:99::1   |             | installed xdpong, skb mode   |
#  +---------------------+             +------------------------------+
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_require_cmd make install
xdpt_tmpdir
DEST=$XDPT_TMP/dest
PREFIX=/usr/local
export MANWIDTH=80

xdpt_log "1. make install DESTDIR=$DEST (PREFIX $PREFIX)"
xdpt_ok make --no-print-directory -C "$XDPT_REPO" install DESTDIR="$DEST"
BIN=$DEST$PREFIX/sbin/xdpong
MAN=$DEST$PREFIX/share/man/man8/xdpong.8
COMP=$DEST$PREFIX/share/bash-completion/completions/xdpong
UNIT=$DEST$PREFIX/lib/systemd/system/xdpong@.service
SVC=$DEST$PREFIX/lib/systemd/system/xdpong.service
EXAMPLE=$DEST$PREFIX/share/doc/xdpong/examples/xdpong.conf
for f in "$BIN" "$MAN" "$COMP" "$UNIT" "$SVC" "$EXAMPLE"; do
	[ -f "$f" ] || xdpt_fail "not installed: $f (installed: $(cd "$DEST" && find . -type f))"
done
xdpt_assert_eq 755 "$(stat -c %a "$BIN")" "mode of the binary"
for f in "$MAN" "$COMP" "$UNIT" "$SVC" "$EXAMPLE"; do
	xdpt_assert_eq 644 "$(stat -c %a "$f")" "mode of $f"
done
n=$(find "$DEST" -type f | wc -l)
xdpt_assert_eq 6 "$n" "files installed (binary, man page, completion, two units, example config)"
xdpt_assert_match "^ExecStart=$PREFIX/sbin/xdpong run %I " "$(cat "$UNIT")" \
	"ExecStart of the installed unit"
xdpt_assert_no_match '@[A-Z]+@' "$(cat "$UNIT")" "placeholders left in the unit"

xdpt_log "2. the installed binary: --version, --help of every command"
version=$("$XDPT_REPO/tools/version.sh")
xdpt_ok env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$BIN" --version
xdpt_assert_match "^xdpong $version " "$XDPT_OUT" "--version"
xdpt_ok "$BIN" --help
xdpt_assert_match 'Examples:' "$XDPT_OUT" "xdpong --help has examples"
HELP_ALL=$XDPT_OUT
CMDS="attach detach status stats run addr trace"
for cmd in $CMDS; do
	xdpt_assert_match "^  $cmd " "$HELP_ALL" "'$cmd' in xdpong --help"
	xdpt_ok "$BIN" "$cmd" --help
	xdpt_assert_match "^Usage: xdpong $cmd " "$XDPT_OUT" "usage line of $cmd --help"
	xdpt_assert_match "^Examples?:" "$XDPT_OUT" "examples in $cmd --help"
	xdpt_assert_match "^  xdpong $cmd " "$XDPT_OUT" "an example of $cmd in $cmd --help"
	HELP_ALL+=$'\n'$XDPT_OUT
done
xdpt_rc 2 "$BIN" nosuchcommand

xdpt_log "3. attach, ping and detach with the installed binary, from /"
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
XDPONG=$BIN
xdpt_ok --ns "$NS_RESP" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c \
	"cd / && exec '$BIN' attach '$IF_RESP' --mode skb"
xdpt_assert_match "attached to $IF_RESP in skb mode" "$XDPT_OUT" "attach message"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 3
xdpt_ping_all "$NS_PING" -6 "$RESP6" 2
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get rep replied
xdpt_assert_eq 5 "$rep" "replies counted by the installed binary's program"
# The metrics name the version of debian/changelog, as --version does.
xdpt_ok --ns "$NS_RESP" "$BIN" stats "$IF_RESP" --prometheus
xdpt_assert_match "^xdpong_build_info\{version=\"$version\"," "$XDPT_OUT" \
	"xdpong_build_info of the installed binary (tools/version.sh: $version)"
REASONS=$(printf '%s\n' "$XDPT_STATS" | jq -r '.reasons | keys[]')
xdpt_ok --ns "$NS_RESP" "$BIN" detach "$IF_RESP"
xdpt_ping_none "$NS_PING" -4 "$RESP4" 2

xdpt_log "4. the man page renders without warnings and covers the CLI"
# Its .TH carries the version make install writes for @VERSION@.
xdpt_assert_match "^\.TH \"?XDPONG\"? 8 \"[^\"]*\" \"xdpong $version\" " \
	"$(sed -n '/^\.TH /p' "$MAN")" \
	"the installed man page's version (tools/version.sh: $version)"
xdpt_assert_no_match '@[A-Z]+@' "$(cat "$MAN")" "placeholders left in the man page"
if ! command -v man >/dev/null 2>&1 || ! command -v groff >/dev/null 2>&1; then
	timeout 300 apt-get install -y -qq man-db groff-base >/dev/null 2>&1
fi
xdpt_require_cmd man groff
man --warnings=w -l "$MAN" >"$XDPT_TMP/man.txt" 2>"$XDPT_TMP/man.err" ||
	xdpt_fail "man -l $MAN failed: $(cat "$XDPT_TMP/man.err")"
[ -s "$XDPT_TMP/man.err" ] && xdpt_fail "man -l $MAN warned: $(cat "$XDPT_TMP/man.err")"
groff -man -ww -z -Tutf8 "$MAN" 2>"$XDPT_TMP/groff.err"
[ -s "$XDPT_TMP/groff.err" ] && xdpt_fail "groff warned: $(cat "$XDPT_TMP/groff.err")"
page=$(sed 's/\xe2\x80\x90/-/g' "$XDPT_TMP/man.txt") # U+2010 hyphen as '-'
for sec in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" FILES \
	"READING THE MAPS WITH BPFTOOL" EXAMPLES SECURITY "SEE ALSO"; do
	xdpt_assert_match "^$sec\$" "$page" "section $sec in the man page"
done
for cmd in $CMDS; do
	xdpt_assert_match "^ +xdpong $cmd " "$page" "$cmd in the man page's SYNOPSIS"
done
# Every long option that some --help prints is documented.
for opt in $(printf '%s\n' "$HELP_ALL" | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	printf '%s\n' "$page" | grep -qF -- "$opt" ||
		xdpt_fail "option $opt (from --help) missing from the man page"
done
for reason in $REASONS; do
	xdpt_assert_match "^ +$reason( |$)" "$page" "reason $reason in the man page"
done
for pin in stats latency addr4 addr6 ratelim trace bss rodata carry latcarry txfail active; do
	xdpt_assert_match "^ +$pin( |$)" "$page" "pinned map $pin in FILES"
done
xdpt_assert_match "skeleton" "$page" "the man page says the BPF object is in the binary"

xdpt_log "5. bash completion"
bash -n "$COMP" || xdpt_fail "bash -n $COMP failed"
comp()
{
	bash -c '
		[ -r /usr/share/bash-completion/bash_completion ] &&
			. /usr/share/bash-completion/bash_completion
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_xdpong xdpong "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP" "$@" | sort | tr '\n' ' '
}
xdpt_assert_eq "trace " "$(comp xdpong tr)" "completion of 'xdpong tr'"
xdpt_assert_eq "addr attach config detach probe run stats status trace " "$(comp xdpong '')" \
	"completion of the commands"
xdpt_assert_eq "auto native skb " "$(comp xdpong attach lo --mode '')" "completion of --mode"
xdpt_assert_eq "--prometheus " "$(comp xdpong stats lo --pr)" "completion of --pr for stats"
xdpt_assert_eq "--metrics-file --metrics-listen " "$(comp xdpong run lo --met)" \
	"completion of --met for run"
xdpt_assert_eq "check " "$(comp xdpong config "")" "completion of config verbs"
xdpt_assert_eq "add del list " "$(comp xdpong addr lo '')" "completion of addr verbs"
xdpt_assert_match "(^| )lo " "$(comp xdpong trace '')" "interfaces completed"

xdpt_log "6. the systemd unit"
if command -v systemd-analyze >/dev/null 2>&1; then
	# As an instance, with ExecStart pointing into DESTDIR so it exists.
	mkdir -p "$XDPT_TMP/unit"
	sed "s|$PREFIX/sbin/xdpong|$BIN|" "$UNIT" >"$XDPT_TMP/unit/xdpong@lo.service"
	MANPATH=$DEST$PREFIX/share/man systemd-analyze verify \
		"$XDPT_TMP/unit/xdpong@lo.service" >"$XDPT_TMP/verify" 2>&1 ||
		xdpt_fail "systemd-analyze verify: $(cat "$XDPT_TMP/verify")"
	[ -s "$XDPT_TMP/verify" ] &&
		xdpt_fail "systemd-analyze verify warned: $(cat "$XDPT_TMP/verify")"
else
	xdpt_log "no systemd-analyze: unit not verified"
fi
if command -v systemd-analyze >/dev/null 2>&1; then
	sed "s|$PREFIX/sbin/xdpong|$BIN|" "$SVC" >"$XDPT_TMP/unit/xdpong.service"
	MANPATH=$DEST$PREFIX/share/man systemd-analyze verify \
		"$XDPT_TMP/unit/xdpong.service" >"$XDPT_TMP/verify" 2>&1 ||
		xdpt_fail "systemd-analyze verify xdpong.service: $(cat "$XDPT_TMP/verify")"
	[ -s "$XDPT_TMP/verify" ] &&
		xdpt_fail "systemd-analyze verify warned: $(cat "$XDPT_TMP/verify")"
fi
# The restart semantics of RUNNING AS A SERVICE, in both units.
for u in "$UNIT" "$SVC"; do
	for key in "Type=notify" "Restart=always" "KillSignal=SIGTERM" "RestartKillSignal=SIGUSR1" \
		"Documentation=man:xdpong(8)"; do
		grep -qxF "$key" "$u" || xdpt_fail "$key missing from $u"
	done
	grep -q '^WatchdogSec=[1-9]' "$u" || xdpt_fail "no WatchdogSec in $u"
	xdpt_assert_eq "CAP_BPF CAP_PERFMON CAP_NET_ADMIN" \
		"$(sed -n 's/^CapabilityBoundingSet=//p' "$u")" "CapabilityBoundingSet of $u"
done
grep -qxF "BindsTo=sys-subsystem-net-devices-%i.device" "$UNIT" ||
	xdpt_fail "BindsTo missing from $UNIT"
# Global and per-interface options both reach ExecStart (neither file hides the other).
xdpt_assert_match '^ExecStart=.* run %I \$XDPONG_OPTS \$XDPONG_IFACE_OPTS$' "$(cat "$UNIT")" \
	"options of $UNIT"
xdpt_assert_match "^ExecStart=$PREFIX/sbin/xdpong run --config /etc/xdpong/xdpong.conf$" \
	"$(cat "$SVC")" "ExecStart of $SVC"
xdpt_ok "$BIN" config check "$EXAMPLE"
xdpt_log "the example config: $XDPT_OUT"
# The unit's capabilities are exactly what xdpong checks for: with that
# bounding set the loader's own check passes, and without any one of them
# it names the one that is missing (loader/core/privs.c, xdpong(8) SECURITY).
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
xdpt_assert_eq "CAP_BPF CAP_PERFMON CAP_NET_ADMIN" "$caps" "CapabilityBoundingSet"
set_of()
{
	local c out=-all

	for c in "$@"; do out+=",+$(tr 'A-Z' 'a-z' <<<"${c#CAP_}")"; done
	echo "$out"
}
# shellcheck disable=SC2086 # a list of capabilities
xdpt_ok setpriv --bounding-set="$(set_of $caps)" "$XDPT_REPO/build/xdpong" status
for cap in $caps; do
	# shellcheck disable=SC2086
	rest=$(set_of $(tr ' ' '\n' <<<"$caps" | grep -vx "$cap"))
	# attach needs them all; the check comes before the interface's lookup.
	xdpt_rc 1 setpriv --bounding-set="$rest" --inh-caps="$rest" --ambient-caps="$rest" \
		"$XDPT_REPO/build/xdpong" attach xdpt-none
	xdpt_assert_match "missing $cap " "$XDPT_ERR" "xdpong attach without $cap"
done

xdpt_log "7. PREFIX=/usr, then make uninstall"
xdpt_ok make --no-print-directory -C "$XDPT_REPO" install DESTDIR="$DEST" PREFIX=/usr
[ -x "$DEST/usr/sbin/xdpong" ] || xdpt_fail "PREFIX=/usr: no $DEST/usr/sbin/xdpong"
xdpt_assert_match "^ExecStart=/usr/sbin/xdpong run %I " \
	"$(cat "$DEST/usr/lib/systemd/system/xdpong@.service")" "ExecStart with PREFIX=/usr"
xdpt_ok make --no-print-directory -C "$XDPT_REPO" uninstall DESTDIR="$DEST" PREFIX=/usr
xdpt_ok make --no-print-directory -C "$XDPT_REPO" uninstall DESTDIR="$DEST"
left=$(find "$DEST" -type f)
xdpt_assert_eq "" "$left" "files left after make uninstall"
xdpt_pass
