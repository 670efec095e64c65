// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest XDP program: pass every frame to the kernel. Tests attach it
 * to the pinger's veth so native XDP_TX frames from xdpong are received
 * there (a veth drops them unless its peer runs XDP), and as a "foreign"
 * program that xdpong must not replace without --force.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}
