#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The option table (loader/core/opts.c, printed by `xdpong options`) is the one
# source of every option; this holds the rest to it, so that an option can
# never be advertised and then rejected again:
#  1. parsing: every option the table gives a command gets past that
#     command's parser (with a sample value of its type), and options the
#     table does not give it are refused with exit 2, naming the option;
#  2. `xdpong CMD --help` lists exactly the table's options for CMD;
#  3. xdpong(8) (man/xdpong.8.rst): the OPTIONS subsections list exactly the table's options
#     for the commands they name (plus the global -v and -h);
#  4. bash completion offers exactly the table's options after "xdpong CMD -".
# Needs no root: every command fails (not root, no interface) after parsing.
. "$(dirname "$0")/../lib/lib.sh"

[ -x "$XDPONG" ] || xdpt_fail "$XDPONG is missing: run 'make' first"
xdpt_tmpdir
REPO=$(cd "$(dirname "$0")/../.." && pwd)
MAN=$REPO/man/xdpong.8.rst
COMPLETION=$REPO/completion/xdpong.bash

xdpt_rc 0 "$XDPONG" options
TABLE=$XDPT_OUT
[ "$(printf '%s\n' "$TABLE" | wc -l)" -ge 20 ] || xdpt_fail "short option table: $TABLE"
mapfile -t CMDS < <(cut -f1 <<<"$TABLE" | uniq)
xdpt_assert_eq "attach detach status stats run addr trace config probe" "${CMDS[*]}" \
	"commands in the table"
ALL_OPTS=$(cut -f2 <<<"$TABLE" | sort -u)

# table_opts CMD: the table's long options for CMD, sorted.
table_opts() { awk -F'\t' -v c="$1" '$1 == c { print $2 }' <<<"$TABLE" | sort; }

# sample TYPE: a valid value of each argument type.
sample()
{
	case $1 in
	mode) echo skb ;;
	prefix) echo 192.0.2.0/24 ;;
	uint) echo 5 ;;
	rate) echo 100:20 ;;
	seconds) echo 0.5 ;;
	path) echo /tmp/xdpt-nonexistent-dir/metrics.prom ;;
	listen) echo 127.0.0.1:29999 ;; # parsed, maybe bound: either way not a usage error
	port\?) echo 4862 ;;                 # joined by "=": an optional value
	source) echo lo ;;
	*) xdpt_fail "no sample for argument type '$1'" ;;
	esac
}

# The positional words each command takes: IFACE and more, or none.
positionals()
{
	case $1 in
	addr) echo xdpt-noif0 list ;;
	config) echo check /tmp/xdpt-nonexistent.conf ;;
	# one probe to nothing that answers, its wait short
	probe) echo 127.0.0.1 -c 1 -W 0.01 ;;
	*) echo xdpt-noif0 ;;
	esac
}

xdpt_log "1. parsing follows the table"
while IFS=$'\t' read -r cmd long short type _; do
	[ "$long" = --help ] && continue
	value=()
	[ "$type" = none ] || value=("$(sample "$type")")
	# a STAMP test packet is 44 bytes or more
	[ "$cmd $long" = "probe --size" ] && value=(64)
	# shellcheck disable=SC2046 # positionals prints words to split
	for spelling in "$long" "$short"; do
		[ "$spelling" = - ] && continue
		args=("$cmd" $(positionals "$cmd") "$spelling" "${value[@]}")
		# An optional value follows "=", and the option alone is valid too.
		if [ "$type" = "port?" ]; then
			args=("$cmd" $(positionals "$cmd") "$spelling=${value[0]}")
			"$XDPONG" "$cmd" $(positionals "$cmd") "$spelling" >/dev/null \
				2>"$XDPT_TMP/err" </dev/null
			[ "$?" != 2 ] ||
				xdpt_fail "'xdpong $cmd $spelling' exited 2: $(cat "$XDPT_TMP/err")"
		fi
		# --config replaces IFACE
		[ "$cmd $long" = "run --config" ] && args=(run "$spelling" "${value[@]}")
		# run --json needs --interval; trace --off takes no --json
		[ "$cmd $long" = "run --json" ] && args+=(--interval 1)
		"$XDPONG" "${args[@]}" >/dev/null 2>"$XDPT_TMP/err" </dev/null
		rc=$?
		err=$(cat "$XDPT_TMP/err")
		[ "$rc" != 2 ] || xdpt_fail "'xdpong ${args[*]}' exited 2 (usage): $err"
		xdpt_assert_no_match 'unknown option|invalid --' "$err" "xdpong ${args[*]}"
	done
done <<<"$TABLE"
for cmd in "${CMDS[@]}"; do
	mine=$(table_opts "$cmd")
	for long in $(comm -23 <(printf '%s\n' "$ALL_OPTS") <(printf '%s\n' "$mine")); do
		# shellcheck disable=SC2046
		xdpt_rc 2 "$XDPONG" "$cmd" $(positionals "$cmd") "$long"
		xdpt_assert_match "unknown option '$long' for '$cmd'" "$XDPT_ERR" \
			"xdpong $cmd $long"
	done
done

xdpt_log "2. --help lists exactly the table's options"
for cmd in "${CMDS[@]}"; do
	xdpt_rc 0 "$XDPONG" "$cmd" --help
	listed=$(printf '%s\n' "$XDPT_OUT" |
		awk '/^Options:$/ { inside = 1; next } inside && /^$/ { exit }
		     inside { for (i = 1; i <= NF; i++) {
				sub(/\[=[A-Z]+\]$/, "", $i) # an optional value: --stamp[=PORT]
				if ($i ~ /^--[a-z][a-z0-9-]*,?$/) {
					sub(/,$/, "", $i); print $i } } }' |
		sort -u)
	xdpt_assert_eq "$(table_opts "$cmd" | tr '\n' ' ')" \
		"$(printf '%s\n' "$listed" | tr '\n' ' ')" \
		"options in 'xdpong $cmd --help'"
done

xdpt_log "3. xdpong(8) OPTIONS lists exactly the table's options per command"
# One line per option in each OPTIONS subsection: "<heading>\t--long".
# The source is reStructuredText: a section title is the line above a
# line of "=" (a subsection's, of "-"); an option is a definition-list
# term at column 0, "**-m**, **--mode** *mode*".
MAN_OPTS=$(awk '
	NR > 1 && /^=+$/ { opts = (prev == "OPTIONS") }
	NR > 1 && opts && /^-+$/ && prev != "" { heading = prev }
	opts && prev ~ /^\*\*-/ && /^   [^ ]/ {
		n = split(prev, w, / +/)
		for (i = 1; i <= n; i++) {
			gsub(/[*,]/, "", w[i])
			sub(/\\$/, "", w[i]) # "**--stamp**\ [**=**\ *port*]"
			if (w[i] ~ /^--[a-z][a-z0-9-]*$/) print heading "\t" w[i]
		}
	}
	{ prev = $0 }' "$MAN")
[ -n "$MAN_OPTS" ] || xdpt_fail "no options found in $MAN"
for cmd in "${CMDS[@]}"; do
	# A subsection serves the commands its heading names ("status and addr");
	# "run" also takes every option of "attach and run".
	got=$(awk -F'\t' -v c="$cmd" '
		{ n = split($1, w, /[ ,]+/); hit = 0
		  for (i = 1; i <= n; i++) if (w[i] == c) hit = 1
		  if ($1 == "Global options") hit = 1
		  if (hit) print $2 }' <<<"$MAN_OPTS" | grep -vx -- '--version' |
		sort -u)
	xdpt_assert_eq "$(table_opts "$cmd" | tr '\n' ' ')" \
		"$(printf '%s\n' "$got" | tr '\n' ' ')" \
		"options of '$cmd' in xdpong(8) OPTIONS"
done

xdpt_log "4. bash completion offers exactly the table's options"
for cmd in "${CMDS[@]}"; do
	offered=$(bash --norc --noprofile -c '
		. "$1"
		COMP_WORDS=(xdpong "$2" -)
		COMP_CWORD=2
		_xdpong
		printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$cmd" | sort -u)
	xdpt_assert_eq "$(table_opts "$cmd" | tr '\n' ' ')" \
		"$(printf '%s\n' "$offered" | tr '\n' ' ')" \
		"completion of 'xdpong $cmd -'"
done
xdpt_pass
