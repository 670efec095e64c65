// SPDX-License-Identifier: GPL-2.0
/*
 * Bare reflector: the limit of the XDP_TX path, not a product. Answers an
 * IPv4 ICMP echo request (no options) by swapping MACs and addresses and
 * setting type 0; validates nothing else and counts nothing.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "turnaround.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline int reflect(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct icmphdr *icmp = (void *)(ip + 1);

	if ((void *)(icmp + 1) > end || eth->h_proto != bpf_htons(TA_ETH_P_IP) ||
	    ip->ihl != 5 || ip->protocol != TA_PROTO_ICMP || icmp->type != 8)
		return XDP_PASS;
	ta_turn4(eth, ip, icmp);
	return XDP_TX;
}

SEC("xdp")
int bench_reflect(struct xdp_md *ctx)
{
	return reflect(ctx);
}

/* Cost harness: reflect, then turn the reply back into the request. */
SEC("xdp")
int bench_reflect_cost(struct xdp_md *ctx)
{
	int verdict = reflect(ctx);

	if (verdict == XDP_TX)
		ta_turn_frame(ctx);
	return verdict;
}

/* The turn-around alone: subtracted from the cost harnesses' times. */
SEC("xdp")
int bench_turn(struct xdp_md *ctx)
{
	ta_turn_frame(ctx);
	return XDP_TX;
}
