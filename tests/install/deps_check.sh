#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A plain `make` on a machine without the build's packages names them and
# says how to get them (tools/deps.sh), instead of stopping at the first
# "bpf/bpf_helpers.h file not found"; where everything is there it says
# nothing. The machine is made to lack them for real, in a private mount
# namespace: a PATH without clang, bpftool and rst2man, and empty tmpfs
# mounts over /usr/include/bpf and /usr/include/xdp (libbpf-dev's and
# libxdp-dev's headers). The host's files are untouched.
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_root
xdpt_require_cmd unshare make
xdpt_tmpdir
REPO=$XDPT_REPO

xdpt_log "1. all there: tools/deps.sh --check is silent, and make says nothing of it"
xdpt_rc 0 "$REPO/tools/deps.sh" --check
xdpt_assert_eq "" "$XDPT_OUT$XDPT_ERR" "output of tools/deps.sh --check"
make --no-print-directory -C "$REPO" -n BUILD="$XDPT_TMP/fresh" >"$XDPT_TMP/out" 2>&1 ||
	xdpt_fail "make -n on a fresh build dir failed: $(tail -n 5 "$XDPT_TMP/out")"
xdpt_assert_no_match 'deps:' "$(cat "$XDPT_TMP/out")" "make -n where everything is there"

xdpt_log "2. a PATH without clang, bpftool and rst2man, no libbpf or libxdp headers"
mkdir "$XDPT_TMP/bin"
for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
	for f in "$d"/*; do
		n=${f##*/}
		case $n in clang | clang-* | bpftool | rst2man) continue ;; esac
		[ -e "$XDPT_TMP/bin/$n" ] || ln -s "$f" "$XDPT_TMP/bin/$n"
	done
done
# without ARGS...: run make ARGS... in that setup, output in $XDPT_TMP/out.
without()
{
	unshare --mount --propagation private bash -c '
		mount -t tmpfs none /usr/include/bpf && mount -t tmpfs none /usr/include/xdp &&
		PATH=$1 && shift && exec make --no-print-directory "$@"' _ "$XDPT_TMP/bin" \
		-C "$REPO" "$@" >"$XDPT_TMP/out" 2>&1
}
without BUILD="$XDPT_TMP/build"
rc=$?
out=$(cat "$XDPT_TMP/out")
xdpt_log "$out"
xdpt_assert_eq 2 "$rc" "exit status of make"
for p in clang bpftool python3-docutils libbpf-dev libxdp-dev; do
	xdpt_assert_match "^deps: to build, install: .*\\b$p\\b" "$out" "the packages named"
done
xdpt_assert_match "^deps: missing bpf/bpf_helpers.h \\(Debian package libbpf-dev\\)$" "$out" \
	"the header named, with its package"
xdpt_assert_match "tools/deps.sh" "$out" "how to get them"
xdpt_assert_no_match "not found|No such file" "$out" "a compiler's error (nothing compiled)"
[ ! -e "$XDPT_TMP/build" ] || xdpt_fail "make built something: $(ls -R "$XDPT_TMP/build")"

xdpt_log "3. the same with DEPS_CHECK=0: the compile error the check stands in front of"
without -j1 DEPS_CHECK=0 BUILD="$XDPT_TMP/build" "$XDPT_TMP/build/xdpong.bpf.o"
rc=$?
xdpt_assert_ne 0 "$rc" "make DEPS_CHECK=0 without the packages"
xdpt_assert_no_match 'deps:' "$(cat "$XDPT_TMP/out")" "make DEPS_CHECK=0"

xdpt_log "4. a built tree pays nothing: with the probed outputs there, no check"
mkdir -p "$XDPT_TMP/built/man"
touch "$XDPT_TMP/built/xdpong.bpf.o" "$XDPT_TMP/built/man/xdpong.8"
without -n BUILD="$XDPT_TMP/built" "$XDPT_TMP/built/man/xdpong.8"
xdpt_assert_no_match 'deps:' "$(cat "$XDPT_TMP/out")" "make in a built tree"
xdpt_pass
