#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The tree keeps its layout:
# 1. clang-format with the repository's .clang-format (the kernel's style
#    at 100 columns) would change no line of bpf/, loader/, lib/, include/
#    or tools/; and it does flag a misformatted line (so a broken or
#    ignored .clang-format cannot pass this test);
# 2. no line of C, header, shell or Makefile source runs past 100 columns
#    (a tab counts 8);
# 3. no function outside tests/ is longer than 80 lines (kernel layout: a
#    body opens with "{" and closes with "}" at column 0);
# 4. a LICENSE file holds the licence the SPDX tags name.
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_cmd clang-format git
cd "$XDPT_REPO" || xdpt_fail "no repository at $XDPT_REPO"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	xdpt_skip "not a git checkout: the tracked files cannot be listed"
xdpt_tmpdir

mapfile -t FORMATTED < <(git ls-files 'bpf/*.[ch]' 'loader/*.[ch]' 'lib/*.[ch]' \
	'include/*.[ch]' 'tools/*.[ch]')
[ "${#FORMATTED[@]}" -gt 20 ] || xdpt_fail "only ${#FORMATTED[@]} C files found to check"

xdpt_log "1. clang-format $(clang-format --version | grep -o '[0-9][0-9.]*' | head -1)" \
	"on ${#FORMATTED[@]} files"
printf 'int f(int a,int b){return a+b;}\n' > "$XDPT_TMP/bad.c"
cp .clang-format "$XDPT_TMP/"
clang-format --dry-run --Werror "$XDPT_TMP/bad.c" 2>/dev/null &&
	xdpt_fail "clang-format passes a misformatted line: is .clang-format read?"
if ! clang-format --dry-run --Werror "${FORMATTED[@]}" 2> "$XDPT_TMP/fmt.log"; then
	head -40 "$XDPT_TMP/fmt.log" >&2
	xdpt_fail "misformatted lines above: run 'clang-format -i FILE' (the lines" \
		"clang-format would change, $(grep -c 'error:' "$XDPT_TMP/fmt.log") in all)"
fi

xdpt_log "2. no line over 100 columns"
mapfile -t SOURCES < <(git ls-files '*.c' '*.h' '*.sh' '*.mk' Makefile | grep -v '^vmlinux/')
long=$(for f in "${SOURCES[@]}"; do
	expand -t 8 "$f" | awk -v f="$f" 'length > 100 { print f ":" FNR ": " length " columns" }'
done)
[ -z "$long" ] || xdpt_fail "lines over 100 columns:"$'\n'"$long"

xdpt_log "3. no function over 80 lines outside tests/"
mapfile -t CODE < <(git ls-files '*.c' '*.h' | grep -v -e '^vmlinux/' -e '^tests/')
longfn=$(awk '
	/^\{/ { start = FNR; name = prev }
	/^\}/ && start {
		n = FNR - start - 1
		if (n > 80)
			printf "%s:%d: %d lines: %s\n", FILENAME, start, n, name
		start = 0
	}
	!/^\{/ { prev = $0 }' "${CODE[@]}")
[ -z "$longfn" ] || xdpt_fail "functions over 80 lines:"$'\n'"$longfn"

xdpt_log "4. LICENSE"
[ -f LICENSE ] || xdpt_fail "no LICENSE file"
grep -q 'GNU GENERAL PUBLIC LICENSE' LICENSE && grep -q 'Version 2, June 1991' LICENSE ||
	xdpt_fail "LICENSE is not the GPL version 2 the SPDX tags name"
tags=$(git grep -h -o 'SPDX-License-Identifier[:] [^ */]*' -- '*.c' '*.h' '*.sh' | sort -u)
[ "$(printf '%s\n' "$tags" | grep -vc 'GPL-2.0')" -eq 0 ] ||
	xdpt_fail "SPDX tags other than GPL-2.0: $tags"
xdpt_pass
