/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The smallest possible echo turn-around, shared by the bare reflector and
 * the cost harnesses: swap MACs and addresses, toggle the ICMP type between
 * request and reply, patch the checksum. Toggling (not 8 -> 0 only) lets a
 * repeated BPF_PROG_TEST_RUN turn a reply back into the original request.
 * Include after vmlinux.h and bpf_helpers.h/bpf_endian.h.
 */
#ifndef XDPONG_BENCH_TURNAROUND_H
#define XDPONG_BENCH_TURNAROUND_H

#define TA_ETH_P_IP 0x0800
#define TA_ETH_P_IPV6 0x86DD
#define TA_PROTO_ICMP 1
#define TA_PROTO_ICMPV6 58

/* RFC 1624 eqn 3, HC' = ~(~HC + ~m + m'), for one 16-bit word as stored. */
static __always_inline __u16 ta_csum_update(__u16 hc, __u16 m, __u16 m_new)
{
	__u32 sum = (__u16)~hc + (__u16)~m + m_new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

static __always_inline void ta_swap_mac(struct ethhdr *eth)
{
	__u8 tmp[6];

	__builtin_memcpy(tmp, eth->h_source, 6);
	__builtin_memcpy(eth->h_source, eth->h_dest, 6);
	__builtin_memcpy(eth->h_dest, tmp, 6);
}

/* Echo request <-> reply in place: type ^ 8 (RFC 792). Checks nothing. */
static __always_inline void ta_turn4(struct ethhdr *eth, struct iphdr *ip, struct icmphdr *icmp)
{
	__u16 old_word, new_word;
	__be32 tmp = ip->saddr;

	ta_swap_mac(eth);
	/* The IPv4 header sum does not depend on the order of its words. */
	ip->saddr = ip->daddr;
	ip->daddr = tmp;
	__builtin_memcpy(&old_word, icmp, 2);
	icmp->type ^= 8;
	__builtin_memcpy(&new_word, icmp, 2);
	icmp->checksum = ta_csum_update(icmp->checksum, old_word, new_word);
}

/* ICMPv6 echo request 128 <-> reply 129 (RFC 4443 4.1, 4.2). */
static __always_inline void ta_turn6(struct ethhdr *eth, struct ipv6hdr *ip6,
				     struct icmp6hdr *icmp6)
{
	__u16 old_word, new_word;
	struct in6_addr tmp = ip6->saddr;

	ta_swap_mac(eth);
	/* The pseudo-header sum does not depend on the address order. */
	ip6->saddr = ip6->daddr;
	ip6->daddr = tmp;
	__builtin_memcpy(&old_word, icmp6, 2);
	icmp6->icmp6_type ^= 1;
	__builtin_memcpy(&new_word, icmp6, 2);
	icmp6->icmp6_cksum = ta_csum_update(icmp6->icmp6_cksum, old_word, new_word);
}

/*
 * Turn the frame in ctx around, IPv4 or IPv6 without options or extension
 * headers. Returns 0, or -1 if it is not such an ICMP/ICMPv6 frame.
 */
static __always_inline int ta_turn_frame(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > end)
		return -1;
	if (eth->h_proto == bpf_htons(TA_ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);
		struct icmphdr *icmp = (void *)(ip + 1);

		if ((void *)(icmp + 1) > end || ip->ihl != 5 || ip->protocol != TA_PROTO_ICMP)
			return -1;
		ta_turn4(eth, ip, icmp);
		return 0;
	}
	if (eth->h_proto == bpf_htons(TA_ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);
		struct icmp6hdr *icmp6 = (void *)(ip6 + 1);

		if ((void *)(icmp6 + 1) > end || ip6->nexthdr != TA_PROTO_ICMPV6)
			return -1;
		ta_turn6(eth, ip6, icmp6);
		return 0;
	}
	return -1;
}

#endif /* XDPONG_BENCH_TURNAROUND_H */
