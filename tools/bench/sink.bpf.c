// SPDX-License-Identifier: GPL-2.0
/*
 * Sender-side sink: counts ICMP/ICMPv6 echo replies and STAMP replies per
 * CPU and drops them (or passes them to the stack while the RTT prober
 * listens). Everything else is passed. Its presence also gives the
 * sender's veth NAPI, without which the responder's native XDP_TX frames
 * are dropped. While sink_res_on is set it keeps a sample of the residence
 * time T3 - T2 that STAMP replies report.
 */
#define BPF_NO_PRESERVE_ACCESS_INDEX /* packet headers only: as bpf/wire.h */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "bench.h"

#define SINK_ETH_P_IP 0x0800
#define SINK_ETH_P_IPV6 0x86DD
#define SINK_PROTO_UDP 17

char LICENSE[] SEC("license") = "GPL";

/* Set from user space: 1 while the RTT prober needs the replies. */
volatile __u32 sink_pass_replies = 0;
/* Set from user space: sample STAMP replies' T3 - T2 into sink_res_ns. */
volatile __u32 sink_res_on = 0;
/* The samples (bench.h: BENCH_RES_*): ns + 1, 0 where none was kept. */
__u32 sink_res_ns[BENCH_RES_N];

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

/* An IPv4 STAMP reply (RFC 8762 4.3.1): UDP from the STAMP port, a whole
 * base packet. Returns where its UDP payload starts, or NULL. */
static __always_inline void *stamp_reply(void *data, void *end)
{
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);

	if ((void *)(udp + 1) + BENCH_STAMP_LEN > end || eth->h_proto != bpf_htons(SINK_ETH_P_IP) ||
	    ip->ihl != 5 || ip->protocol != SINK_PROTO_UDP ||
	    udp->source != bpf_htons(BENCH_STAMP_PORT))
		return NULL;
	return udp + 1;
}

/* A 64-bit NTP timestamp as stored (RFC 5905 6) in 2^-32 s units. */
static __always_inline __u64 ntp_units(const void *p)
{
	__u32 w[2];

	__builtin_memcpy(w, p, 8);
	return (__u64)bpf_ntohl(w[0]) << 32 | bpf_ntohl(w[1]);
}

/* The reply's T3 - T2 in ns, into the ring slot of the count'th reply on
 * this CPU, 1 reply in BENCH_RES_EVERY (under a second: no overflow). */
static __always_inline void residence_sample(const void *stamp, __u64 count)
{
	__u64 t3 = ntp_units(stamp + BENCH_STAMP_T3), t2 = ntp_units(stamp + BENCH_STAMP_T2),
	      d = t3 - t2;
	__u32 slot = (count / BENCH_RES_EVERY) & (BENCH_RES_N - 1);

	if (count % BENCH_RES_EVERY || t3 < t2 || d >> 32)
		return;
	sink_res_ns[slot] = (__u32)((d * 1000000000) >> 32) + 1;
}

SEC("xdp")
int bench_sink(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct bench_sink_counters *c;
	void *stamp = NULL;
	__u32 key = 0;

	c = bpf_map_lookup_elem(&bench_sink_stats, &key);
	if (!is_echo_reply(data, end)) {
		stamp = stamp_reply(data, end);
		if (!stamp) {
			if (c)
				c->other++;
			return XDP_PASS;
		}
	}
	if (c) {
		c->replies++;
		if (stamp && sink_res_on)
			residence_sample(stamp, c->replies);
	}
	return sink_pass_replies ? XDP_PASS : XDP_DROP;
}
