#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `xdpong --help`, `xdpong COMMAND --help` for every command the main help
# lists, and `--version`: exit 0, usage on stdout, an Examples section
# whose examples use that command. Needs no root and no namespace.
. "$(dirname "$0")/../lib/lib.sh"

[ -x "$XDPONG" ] || xdpt_fail "$XDPONG is missing: run 'make' first"

# has_examples TEXT CMD: an "Examples:" (or "Example:") header followed by
# at least one indented "xdpong CMD" line.
has_examples()
{
	printf '%s\n' "$1" | awk -v cmd="$2" '
		/^Examples?:$/ { inside = 1; next }
		inside && /^$/ { inside = 0 }
		inside && index($0, "  xdpong " cmd) == 1 { found = 1 }
		END { exit !found }'
}

for opt in --help -h; do
	xdpt_rc 0 "$XDPONG" "$opt"
	xdpt_assert_match '^Usage: xdpong ' "$XDPT_OUT" "xdpong $opt"
	xdpt_assert_eq '' "$XDPT_ERR" "xdpong $opt stderr"
	has_examples "$XDPT_OUT" "" || xdpt_fail "xdpong $opt: no Examples section: $XDPT_OUT"
done
main_help=$XDPT_OUT

# The commands, as the main help lists them ("  attach IFACE ...").
mapfile -t cmds < <(printf '%s\n' "$main_help" |
	awk '/^Commands:$/ { inside = 1; next } inside && /^$/ { exit }
	     inside && /^  [a-z]+( |$)/ { print $1 }' | sort -u)
[ "${#cmds[@]}" -ge 4 ] ||
	xdpt_fail "expected at least 4 commands in 'xdpong --help', found: ${cmds[*]}"
for want in attach detach status stats; do
	printf '%s\n' "${cmds[@]}" | grep -qx "$want" ||
		xdpt_fail "'$want' missing from 'xdpong --help'"
done

for cmd in "${cmds[@]}"; do
	for opt in --help -h; do
		xdpt_rc 0 "$XDPONG" "$cmd" "$opt"
		xdpt_assert_match "^Usage: xdpong $cmd( |$)" "$XDPT_OUT" "xdpong $cmd $opt"
		xdpt_assert_eq '' "$XDPT_ERR" "xdpong $cmd $opt stderr"
		has_examples "$XDPT_OUT" "$cmd" ||
			xdpt_fail "xdpong $cmd $opt: no Examples section with an" \
				"'xdpong $cmd' line: $XDPT_OUT"
	done
	xdpt_log "xdpong $cmd --help: ok"
done

version=$("$XDPT_REPO/tools/version.sh")
for opt in --version -V; do
	xdpt_rc 0 "$XDPONG" "$opt"
	xdpt_assert_match "^xdpong $version( |$)" "$XDPT_OUT" "xdpong $opt"
done
xdpt_pass
