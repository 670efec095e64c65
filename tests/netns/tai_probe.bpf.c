// SPDX-License-Identifier: GPL-2.0
/*
 * Whether the kernel lets an XDP program read CLOCK_TAI: netns/stamp
 * loads this with bpftool, independently of xdpong's own probe, and holds
 * the clock source status reports to the answer (TAI where it loads,
 * monotonic plus an offset where the verifier refuses the helper).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

__u64 tai_ns = 0;

SEC("xdp")
int tai_probe(struct xdp_md *ctx)
{
	tai_ns = bpf_ktime_get_tai_ns();
	return XDP_PASS;
}
