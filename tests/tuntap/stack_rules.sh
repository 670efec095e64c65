#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tun-stack and pong-hex follow the XDP program's rules: the same frames
# (echo requests of many sizes to our and other addresses, most with random
# header mutations, most of those with their checksums fixed up after)
# through the real program (bpf_prog_test_run, TUN framing) and through
# tools/tun/userpong.c must get the same reason and the same reply bytes.
# FRAMES and SEED may be set; the seed is printed to reproduce a failure.
. "$(dirname "$0")/../lib/lib.sh"

TUNTAP_ECHO=${TUNTAP_ECHO:-$XDPT_REPO/build/tests/tuntap_echo}
FRAMES=${FRAMES:-20000}
SEED=${SEED:-1}

xdpt_require_root
[ -x "$TUNTAP_ECHO" ] || xdpt_fail "$TUNTAP_ECHO is missing: run 'make tests' first"
xdpt_ok timeout -k 5 120 "$TUNTAP_ECHO" --compare-xdp --frames "$FRAMES" --seed "$SEED"
xdpt_log "$XDPT_OUT"
xdpt_assert_match ' 0 differ' "$XDPT_OUT" "XDP and user-space reasons and replies"
for r in reply_echo4 reply_echo6 pass_dst_not_local drop_bad_icmp_csum drop_bad_ip_csum \
	drop_bad_length pass_not_echo drop_martian_src pass_dst_group; do
	xdpt_assert_match " $r=[0-9]+" "$XDPT_OUT" "frames that got $r were compared"
done
xdpt_pass
