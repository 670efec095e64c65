// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest XDP program: pass every frame to the kernel. Tests attach it
 * to the pinger's veth so native XDP_TX frames from xdpong are received
 * there (a veth drops them unless its peer runs XDP), and as a "foreign"
 * program that xdpong must not replace without --force. Frags-aware, so it
 * attaches natively at any MTU (a veth at MTU 9000 refuses others); load
 * it with `ip link set ... obj xdp_pass.bpf.o sec xdp.frags`, or on a
 * kernel without multi-buffer XDP (before 5.18), which refuses the frags
 * flag, `sec xdp` (tests/lib/lib.sh xdpt_xdp_pass tries both).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("xdp.frags")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("xdp")
int xdp_pass_single(struct xdp_md *ctx)
{
	return XDP_PASS;
}
