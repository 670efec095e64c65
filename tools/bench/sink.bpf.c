// SPDX-License-Identifier: GPL-2.0
/*
 * Sender-side sink: counts ICMP/ICMPv6 echo replies per CPU and drops them
 * (or passes them to the stack while the RTT prober listens). Everything
 * else is passed. Its presence also gives the sender's veth NAPI, without
 * which the responder's native XDP_TX frames are dropped.
 */
#define BPF_NO_PRESERVE_ACCESS_INDEX /* packet headers only: as bpf/wire.h */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "bench.h"

#define SINK_ETH_P_IP 0x0800
#define SINK_ETH_P_IPV6 0x86DD

char LICENSE[] SEC("license") = "GPL";

/* Set from user space: 1 while the RTT prober needs the replies. */
volatile __u32 sink_pass_replies = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bench_sink_counters);
} bench_sink_stats SEC(".maps");

static __always_inline bool is_echo_reply(void *data, void *end)
{
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > end)
		return false;
	if (eth->h_proto == bpf_htons(SINK_ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);
		struct icmphdr *icmp;

		if ((void *)(ip + 1) > end || ip->protocol != 1)
			return false;
		icmp = (void *)ip + ip->ihl * 4;
		return (void *)(icmp + 1) <= end && icmp->type == 0;
	}
	if (eth->h_proto == bpf_htons(SINK_ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);
		struct icmp6hdr *icmp6 = (void *)(ip6 + 1);

		return (void *)(icmp6 + 1) <= end && ip6->nexthdr == 58 && icmp6->icmp6_type == 129;
	}
	return false;
}

SEC("xdp")
int bench_sink(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct bench_sink_counters *c;
	__u32 key = 0;

	c = bpf_map_lookup_elem(&bench_sink_stats, &key);
	if (!is_echo_reply(data, end)) {
		if (c)
			c->other++;
		return XDP_PASS;
	}
	if (c)
		c->replies++;
	return sink_pass_replies ? XDP_PASS : XDP_DROP;
}
