#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The loader keeps its floors (loader/core/core.h says what each owns):
# core, up, service, cmd, then main.c at the top.
# 1. no loader file includes a header of a floor above its own, and only a
#    floor's own files include its inner headers (up/bringup.h): the others
#    include its floor header (core/core.h, up/up.h, service/service.h,
#    cmd/cmd.h); tests/ and tools/ reach the loader through those alone.
#    It is first shown to catch an upward include planted in a scratch
#    copy of the tree, so a check that reads nothing cannot pass;
# 2. where the loader is built, no object calls a floor above its own and
#    no files call each other in a circle (the symbols each object defines
#    and uses), likewise shown first to catch a planted circle.
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_cmd git python3
cd "$XDPT_REPO" || xdpt_fail "no repository at $XDPT_REPO"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	xdpt_skip "not a git checkout: the tracked files cannot be listed"
xdpt_tmpdir

# Includes: ROOT, then the files to read (relative to ROOT). Prints one line
# per violation; exit 1 if any.
check_includes() {
	python3 - "$@" <<'EOF'
import os, re, sys
root, files = sys.argv[1], sys.argv[2:]
floors = ["core", "up", "service", "cmd"]
def floor(path):  # loader/FLOOR/x or loader/x (the top)
    parts = path.split("/")
    if parts[0] != "loader":
        return None
    return floors.index(parts[1]) if len(parts) == 3 and parts[1] in floors else len(floors)
def resolve(f, name):
    for d in (os.path.dirname(f), "loader"):
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(root, p)):
            return p
    return None
bad = 0
for f in files:
    for n, line in enumerate(open(os.path.join(root, f), errors="replace"), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        h = m and resolve(f, m.group(1))
        if not h or not h.startswith("loader/") or not h.endswith(".h"):
            continue
        why = None
        own = h.split("/")[1]
        if floor(f) is not None and floor(h) > floor(f):
            why = "a floor above"
        elif not h == "loader/%s/%s.h" % (own, own) and os.path.dirname(h) != os.path.dirname(f):
            why = "another floor's inner header"
        if why:
            print("%s:%d: includes %s, %s" % (f, n, h, why))
            bad = 1
sys.exit(bad)
EOF
}

# Objects: the edges "FILE DEFINER" of every symbol a loader object uses
# from another, on stdin. Prints upward calls and circles; exit 1 if any.
check_calls() {
	python3 -c '
import sys
floors = ["core", "up", "service", "cmd"]
floor = lambda f: floors.index(f.split("/")[0]) if "/" in f else len(floors)
g, bad = {}, 0
for line in sys.stdin:
    a, b = line.split()
    if a == b:
        continue
    g.setdefault(a, set()).add(b)
    if floor(b) > floor(a):
        print("%s calls %s, a floor above" % (a, b))
        bad = 1
state = {}
def visit(v, path):
    global bad
    state[v] = 1
    for w in sorted(g.get(v, ())):
        if state.get(w) == 1:
            print("circle: " + " -> ".join(path[path.index(w):] + [w]))
            bad = 1
        elif w not in state:
            visit(w, path + [w])
    state[v] = 2
for v in sorted(g):
    if v not in state:
        visit(v, [v])
sys.exit(bad)'
}

mapfile -t SOURCES < <(git ls-files 'loader/*.[ch]' 'tests/*.[ch]' 'tools/*.[ch]')
[ "${#SOURCES[@]}" -gt 40 ] || xdpt_fail "only ${#SOURCES[@]} C files found to check"
floors=$(git ls-files 'loader/*/*.h' | grep -c -E '^loader/(core|up|service|cmd)/')
[ "$floors" -ge 4 ] || xdpt_fail "the floor headers are not where this test looks: $floors"

xdpt_log "1. includes of ${#SOURCES[@]} files hold to the floors"
mkdir -p "$XDPT_TMP/tree"
git ls-files -z 'loader/*.[ch]' | xargs -0 cp --parents -t "$XDPT_TMP/tree"
printf '#include "../up/up.h"\n' >> "$XDPT_TMP/tree/loader/core/log.c"
check_includes "$XDPT_TMP/tree" loader/core/log.c > "$XDPT_TMP/planted.log" &&
	xdpt_fail "an upward include planted in core/log.c passes"
grep -q 'core/log.c:.*loader/up/up.h, a floor above' "$XDPT_TMP/planted.log" ||
	xdpt_fail "the planted include was not named: $(cat "$XDPT_TMP/planted.log")"
check_includes "$XDPT_REPO" "${SOURCES[@]}" > "$XDPT_TMP/includes.log" ||
	xdpt_fail "includes across the loader's floors:"$'\n'"$(cat "$XDPT_TMP/includes.log")"

xdpt_log "2. calls between the loader's files: none upward, no circle"
printf 'core/a core/b\ncore/b core/c\ncore/c core/a\n' | check_calls > "$XDPT_TMP/circle.log" &&
	xdpt_fail "a planted circle passes"
grep -q 'circle: core/a -> core/b -> core/c -> core/a' "$XDPT_TMP/circle.log" ||
	xdpt_fail "the planted circle was not named: $(cat "$XDPT_TMP/circle.log")"
objdir=$XDPT_REPO/build/loader
mapfile -t OBJS < <(cd "$objdir" 2>/dev/null && git -C "$XDPT_REPO" ls-files 'loader/*.c' |
	sed -e 's|^loader/||' -e 's|\.c$|.o|' | while read -r o; do [ -f "$o" ] && echo "$o"; done)
if [ "${#OBJS[@]}" -eq 0 ]; then
	xdpt_log "   (the loader is not built in $objdir: the calls are not checked)"
else
	xdpt_require_cmd nm
	# Two nm runs over every object ("FILE.o: ADDR T sym", "FILE.o:  U sym").
	(cd "$objdir" && nm -A -g --defined-only "${OBJS[@]}" | sed 's/\.o:/ D /' &&
		nm -A -u "${OBJS[@]}" | sed 's/\.o:/ U /') |
		awk '$2 == "D" && NF == 5 { def[$5] = $1; next }
		$2 == "U" { use[$1 " " $NF] = 1 }
		END { for (k in use) { split(k, p, " ")
			if (p[2] in def) print p[1], def[p[2]] } }' > "$XDPT_TMP/edges"
	# main calls every command: a pipeline that reads nothing cannot pass.
	[ "$(grep -c '^main cmd/' "$XDPT_TMP/edges")" -ge 8 ] ||
		xdpt_fail "the calls were not read from $objdir: $(wc -l < "$XDPT_TMP/edges") found"
	check_calls < "$XDPT_TMP/edges" > "$XDPT_TMP/calls.log" ||
		xdpt_fail "calls across the loader's floors:"$'\n'"$(cat "$XDPT_TMP/calls.log")"
	xdpt_log "   $(wc -l < "$XDPT_TMP/edges") file-to-file calls read from ${#OBJS[@]} objects"
fi
xdpt_pass
