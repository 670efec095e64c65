// SPDX-License-Identifier: GPL-2.0
/* XDP_PASS: the cost floor of running any XDP program, and NAPI on a veth. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("xdp")
int bench_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}
