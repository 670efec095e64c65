// SPDX-License-Identifier: GPL-2.0
/*
 * A program that runs after xdpong in libxdp's dispatcher (priority 60,
 * xdpong's default is 50) and counts what reaches it, by kind: what
 * xdpong passes must arrive here, what it answers must not
 * (tests/netns/dispatcher.sh). It passes everything on.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char LICENSE[] SEC("license") = "GPL";

/* xdp-tools' XDP_RUN_CONFIG, spelled out: values are array sizes. */
struct {
	__uint(priority, 60);
	__uint(XDP_PASS, 1);
} _chain_tail SEC(".xdp_run_config");

__u64 seen_icmp_echo = 0;  /* IPv4 echo requests that reached this program */
__u64 seen_other = 0;      /* everything else */

SEC("xdp")
int chain_tail(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	__u8 *icmp_type;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(0x0800) || ip->protocol != 1 ||
	    ip->ihl != 5) {
		__sync_fetch_and_add(&seen_other, 1);
		return XDP_PASS;
	}
	icmp_type = (void *)(ip + 1);
	if ((void *)(icmp_type + 1) > end || *icmp_type != 8)
		__sync_fetch_and_add(&seen_other, 1);
	else
		__sync_fetch_and_add(&seen_icmp_echo, 1);
	return XDP_PASS;
}
