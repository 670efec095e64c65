/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ICMP and ICMPv6 echo, IPv4 and IPv6 side by side, in the same four
 * steps, each returning a reason or XP_GO_ON (frame.h):
 *   1. the headers (ipv4_headers, ipv6_headers): ICMP or not, first; then
 *      the checks the kernel makes of them;
 *   2. whom it is for (ipv4_for_us, ipv6_for_us): our address, and an
 *      echo request;
 *   3. the checks an answer needs (ipv4_verify, ipv6_verify): the source
 *      and the checksums;
 *   4. the reply (ipv4_reply, ipv6_reply), in place.
 * Between 2 and 3 the request's service time starts; between 3 and 4 the
 * rate limits have their say (handle_ipv4, handle_ipv6). IPv4's first
 * three steps are made of checks of one kind each, true to go on or false
 * with the reason in *why, which the cost bench composes without one kind
 * at a time (tools/bench/leave_out.h). All inlined: one straight path a
 * family.
 *
 * xdpong_packet(), at the end, is the whole program for one frame.
 */
#ifndef XDPONG_BPF_ECHO_H
#define XDPONG_BPF_ECHO_H

#include "frame.h"
#include "addrs.h"
#include "ratelimit.h"
#include "observe.h"

/* What the steps learn of an IPv4 echo request. */
struct v4_req {
	struct iphdr *ip;
	struct icmphdr *icmp;
	const struct xdpong_own_addrs *own;
	__u32 tot;      /* the IP header's total length */
	__u32 icmp_len; /* from the IP header's total length */
	__u8 vihl;      /* the IP header's first byte: version and IHL */
	bool in_frags;  /* the message continues past the first buffer */
	__s64 payload_sum;
};

/* What the steps learn of an ICMPv6 echo request. */
struct v6_req {
	struct ipv6hdr *ip6;
	struct icmp6hdr *icmp6;
	__u32 plen;    /* the IPv6 payload length: the ICMPv6 message's */
	bool in_frags; /* the message continues past the first buffer */
};

/* 1. The headers. */

/* ICMP or not, first: what is not goes to the kernel at once, which
 * validates it as it would without xdpong. */
static __always_inline bool ipv4_icmp(const struct l3_frame *f, struct v4_req *q, __u32 *why)
{
	struct iphdr *ip = f->l3;

	if ((void *)(ip + 1) > f->end)
		return xp_stop(why, headers_cut(f->ctx, f->l3_off + sizeof(*ip)));
	if (ip->protocol != XP_PROTO_ICMP)
		return xp_stop(why, REASON(pass_not_icmp));
	q->ip = ip;
	q->tot = bpf_ntohs(ip->tot_len);
	q->icmp_len = q->tot - sizeof(*ip);
	q->vihl = *(__u8 *)ip;
	return true;
}

/* The link layer, version, header length and total length, as the kernel
 * checks them. The usual header, version 4 and no options (0x45), takes
 * one test where the exact ones take three: the same verdicts. */
static __always_inline bool ipv4_valid(const struct l3_frame *f, const struct v4_req *q, __u32 *why)
{
	__u32 reason = check_l2(f->eth);

	if (reason)
		return xp_stop(why, reason);
	if (q->vihl != 0x45) {
		if (q->vihl >> 4 != 4) /* the version, from the byte read */
			return xp_stop(why, REASON(drop_bad_version));
		if (q->ip->ihl < 5)
			return xp_stop(why, REASON(drop_bad_ihl));
	}
	if (q->tot < (q->vihl & 0xf) * 4)
		return xp_stop(why, REASON(drop_bad_length));
	return true;
}

/* Past the first buffer: in fragments, or past the frame's end. */
static __always_inline bool ipv4_extent(const struct l3_frame *f, struct v4_req *q, __u32 *why)
{
	if (q->tot > f->l3_len) {
		if (q->tot > frame_len(f->ctx) - f->l3_off)
			return xp_stop(why, REASON(drop_bad_length));
		q->in_frags = true;
	}
	return true;
}

/* What the kernel handles itself: options, fragments, group destinations. */
static __always_inline bool ipv4_kernels(const struct v4_req *q, __u32 *why)
{
	struct iphdr *ip = q->ip;
	__u8 d0;

	if (q->vihl != 0x45) /* ihl > 5: ipv4_valid refused the rest */
		return xp_stop(why, REASON(pass_ip_options));
	if (ip->frag_off & bpf_htons(XDPONG_IP_MF_OFFSET))
		return xp_stop(why, REASON(pass_fragment));
	/* 224.0.0.0/4 and 255.255.255.255: echo_ignore_broadcasts is the
	 * kernel's call. Both start at 0xe0 or above, as few unicast do. */
	d0 = ((__u8 *)&ip->daddr)[0];
	if (d0 >= 0xe0 && ((d0 & 0xf0) == 0xe0 || ip->daddr == 0xffffffff))
		return xp_stop(why, REASON(pass_dst_group));
	return true;
}

static __always_inline __u32 ipv4_headers(const struct l3_frame *f, struct v4_req *q)
{
	__u32 why;

	if (!ipv4_icmp(f, q, &why) || !ipv4_valid(f, q, &why) || !ipv4_extent(f, q, &why) ||
	    !ipv4_kernels(q, &why))
		return why;
	return XP_GO_ON;
}

/* The link layer, version and payload length, as the kernel checks them;
 * and a group destination. */
static __always_inline __u32 ipv6_valid(const struct l3_frame *f, struct v6_req *q)
{
	struct ipv6hdr *ip6 = q->ip6;
	__u32 reason;

	reason = check_l2(f->eth);
	if (reason)
		return reason;
	if (ip6->version != 6)
		return REASON(drop_bad_version);
	q->plen = bpf_ntohs(ip6->payload_len);
	if (sizeof(*ip6) + q->plen > f->l3_len) {
		/* Past the first buffer: in fragments, or past the frame's end. */
		if (sizeof(*ip6) + q->plen > frame_len(f->ctx) - f->l3_off)
			return REASON(drop_bad_length);
		q->in_frags = true;
	}
	/* A group destination is the kernel's (echo: it answers from a
	 * unicast source). */
	if (ip6->daddr.in6_u.u6_addr8[0] == 0xff)
		return REASON(pass_dst_group);
	return XP_GO_ON;
}

static __always_inline __u32 ipv6_headers(const struct l3_frame *f, struct v6_req *q)
{
	struct ipv6hdr *ip6 = f->l3;

	if ((void *)(ip6 + 1) > f->end)
		return headers_cut(f->ctx, f->l3_off + sizeof(*ip6));
	/* ICMPv6 or not, first, as for IPv4. */
	if (ip6->nexthdr != XP_PROTO_ICMPV6)
		return xdpong_ipv6_ext_header(ip6->nexthdr) ? REASON(pass_ipv6_ext) :
							      REASON(pass_not_icmp);
	q->ip6 = ip6;
	return ipv6_valid(f, q);
}

/* 2. Whom it is for: our address, else the kernel's (ICMP for others is
 * forwarded as it is); and an echo request. */

static __always_inline bool ipv4_dst_ours(struct v4_req *q, __u32 *why)
{
	q->own = own_addrs_get();
	switch (dst4_origin(q->own, q->ip->daddr)) {
	case 0:
		return xp_stop(why, REASON(pass_dst_not_local));
	case XDPONG_ADDR_BROADCAST: /* a subnet broadcast in a unicast frame */
		return xp_stop(why, REASON(pass_dst_group));
	}
	return true;
}

/* An ICMP message at least as long as its header, by the IP header. */
static __always_inline bool ipv4_icmp_len_ok(const struct v4_req *q, __u32 *why)
{
	if (q->icmp_len < sizeof(struct icmphdr))
		return xp_stop(why, REASON(drop_bad_length));
	return true;
}

static __always_inline bool ipv4_echo_request(const struct l3_frame *f, struct v4_req *q,
					      __u32 *why)
{
	struct icmphdr *icmp = (void *)(q->ip + 1);

	if ((void *)(icmp + 1) > f->end) /* the frame holds it: tot says so */
		return xp_stop(why, REASON(pass_split_headers));
	if (icmp->type != XP_ICMP_ECHO)
		return xp_stop(why, REASON(pass_not_echo));
	q->icmp = icmp;
	return true;
}

static __always_inline __u32 ipv4_for_us(const struct l3_frame *f, struct v4_req *q)
{
	__u32 why;

	if (!ipv4_dst_ours(q, &why) || !ipv4_icmp_len_ok(q, &why) || !ipv4_echo_request(f, q, &why))
		return why;
	return XP_GO_ON;
}

static __always_inline __u32 ipv6_for_us(const struct l3_frame *f, struct v6_req *q)
{
	struct ipv6hdr *ip6 = q->ip6;
	struct icmp6hdr *icmp6;

	/* Before the ICMPv6 checks, as for IPv4. */
	if (!addr6_is_local(&ip6->daddr))
		return REASON(pass_dst_not_local);
	if (q->plen < sizeof(*icmp6))
		return REASON(drop_bad_length);
	icmp6 = (void *)(ip6 + 1);
	if ((void *)(icmp6 + 1) > f->end) /* the frame holds it: plen says so */
		return REASON(pass_split_headers);
	if (icmp6->icmp6_type != XP_ICMPV6_ECHO_REQUEST)
		return REASON(pass_not_echo);
	q->icmp6 = icmp6;
	return XP_GO_ON;
}

/* 3. The checks an answer needs: the source and the checksums, as the
 * kernel checks them. */

/* RFC 1071: a header with a correct checksum sums to 0xffff. */
static __always_inline bool ipv4_header_csum(const struct v4_req *q, __u32 *why)
{
	if (!csum_ok(sum_words(q->ip, sizeof(*q->ip))))
		return xp_stop(why, REASON(drop_bad_ip_csum));
	return true;
}

/* Martian sources (RFC 1812 5.3.7), which the kernel drops, and the
 * reserved 240/4: each starts with 0, 127, or 0xe0 and above (s0). */
static __always_inline bool ipv4_src_valid(const struct v4_req *q, __u8 s0, __u32 *why)
{
	if (s0 == 0 || s0 == 127 || s0 >= 0xe0) {
		/* 240/4 but 255.255.255.255 is reserved; the rest martian. */
		if ((s0 & 0xf0) == 0xf0 && q->ip->saddr != 0xffffffff)
			return xp_stop(why, REASON(pass_src_reserved));
		return xp_stop(why, REASON(drop_martian_src));
	}
	return true;
}

static __always_inline bool ipv4_src_not_own(const struct v4_req *q, __u32 *why)
{
	if (src4_is_own(q->own, q->ip->saddr))
		return xp_stop(why, REASON(drop_martian_src));
	return true;
}

/* A message longer than the sums go is the kernel's. */
static __always_inline bool icmp_len_summable(__u32 len, __u32 *why)
{
	if (len > XDPONG_MAX_ICMP_LEN)
		return xp_stop(why, REASON(pass_too_big));
	return true;
}

/* RFC 792: the ICMP checksum covers the whole message. */
static __always_inline bool ipv4_icmp_csum(const struct l3_frame *f, struct v4_req *q, __u32 *why)
{
	struct icmphdr *icmp = q->icmp;

	q->payload_sum = sum_message(f->ctx, icmp + 1, f->end,
				     f->l3_off + sizeof(*q->ip) + sizeof(*icmp),
				     q->icmp_len - sizeof(*icmp), q->in_frags);
	if (q->payload_sum < 0)
		return xp_stop(why, REASON(drop_truncated));
	if (!csum_ok(q->payload_sum + sum_words(icmp, sizeof(*icmp))))
		return xp_stop(why, REASON(drop_bad_icmp_csum));
	return true;
}

static __always_inline __u32 ipv4_verify(const struct l3_frame *f, struct v4_req *q)
{
	/* Read before the header's sum, as one byte: taken from the word
	 * the sum loads, it cost more instructions than the load. */
	__u8 s0 = ((__u8 *)&q->ip->saddr)[0];
	__u32 why;

	if (!ipv4_header_csum(q, &why) || !ipv4_src_valid(q, s0, &why) ||
	    !ipv4_src_not_own(q, &why) || !icmp_len_summable(q->icmp_len, &why) ||
	    !ipv4_icmp_csum(f, q, &why))
		return why;
	return XP_GO_ON;
}

static __always_inline bool ipv6_is_martian_src(const struct in6_addr *a)
{
	__u32 w0 = a->in6_u.u6_addr32[0], w1 = a->in6_u.u6_addr32[1];
	__u32 w2 = a->in6_u.u6_addr32[2], w3 = a->in6_u.u6_addr32[3];

	if (a->in6_u.u6_addr8[0] == 0xff) /* multicast (RFC 4291 2.7) */
		return true;
	/* unspecified :: and loopback ::1 (RFC 4291 2.5.2, 2.5.3) */
	return (w0 | w1 | w2) == 0 && (w3 == 0 || w3 == bpf_htonl(1));
}

static __always_inline __u32 ipv6_verify(const struct l3_frame *f, struct v6_req *q)
{
	struct ipv6hdr *ip6 = q->ip6;
	struct icmp6hdr *icmp6 = q->icmp6;
	__s64 payload_sum, sum;
	__u32 reason;

	if (ipv6_is_martian_src(&ip6->saddr))
		return REASON(drop_martian_src);
	if (!icmp_len_summable(q->plen, &reason))
		return reason;
	payload_sum = sum_message(f->ctx, icmp6 + 1, f->end,
				  f->l3_off + sizeof(*ip6) + sizeof(*icmp6),
				  q->plen - sizeof(*icmp6), q->in_frags);
	if (payload_sum < 0)
		return REASON(drop_truncated);
	/* RFC 8200 8.1 pseudo-header: addresses, upper-layer length, 58. */
	sum = payload_sum;
	sum += sum_words(&ip6->saddr, 32);
	sum += sum_words(icmp6, sizeof(*icmp6));
	sum += bpf_htonl(q->plen);
	sum += bpf_htonl(XP_PROTO_ICMPV6);
	if (!csum_ok(sum))
		return REASON(drop_bad_icmp_csum);
	return XP_GO_ON;
}

/* 4. The reply. */

/* An IPv4 header turned around: addresses swapped, TTL 64, its checksum
 * patched. The transport's pseudo-header sum does not change. */
static __always_inline void ipv4_turn_around(struct iphdr *ip)
{
	__u16 old, new;
	__be32 tmp;

	tmp = ip->saddr;
	ip->saddr = ip->daddr;
	ip->daddr = tmp;
	old = ld16(&ip->ttl); /* TTL and protocol share a word */
	new = word_with_first_byte(old, XDPONG_REPLY_HOPS);
	st16(&ip->ttl, new);
	ip->check = csum_replace16(ip->check, old, new);
}

/* An IPv6 header turned around: addresses swapped (which leaves the
 * pseudo-header sum unchanged), hop limit 64 (not in it). */
static __always_inline void ipv6_turn_around(struct ipv6hdr *ip6)
{
	__u64 a0, a1, b0, b1;

	a0 = ld64(&ip6->saddr);
	a1 = ld64((void *)&ip6->saddr + 8);
	b0 = ld64(&ip6->daddr);
	b1 = ld64((void *)&ip6->daddr + 8);
	st64(&ip6->saddr, b0);
	st64((void *)&ip6->saddr + 8, b1);
	st64(&ip6->daddr, a0);
	st64((void *)&ip6->daddr + 8, a1);
	ip6->hop_limit = XDPONG_REPLY_HOPS;
}

/* Addresses swapped, TTL 64, type 0; everything else kept. */
static __always_inline __u32 ipv4_reply(struct v4_req *q)
{
	struct icmphdr *icmp = q->icmp;
	__u16 old, new, csum;

	ipv4_turn_around(q->ip);
	old = ld16(icmp); /* type and code */
	new = word_with_first_byte(old, XP_ICMP_ECHOREPLY);
	st16(icmp, new);
	csum = csum_replace16(icmp->checksum, old, new);
	/*
	 * An all-zero reply (code, id, seq and payload zero) sums to +0, so
	 * its checksum is ~0 = 0xffff; eqn 3 yields the other zero, 0x0000,
	 * which receivers reject. Any other reply's 0x0000 is correct.
	 */
	if (csum == 0 && new == 0 && icmp->un.echo.id == 0 && icmp->un.echo.sequence == 0 &&
	    q->payload_sum == 0)
		csum = 0xffff;
	icmp->checksum = csum;
	return REASON(reply_echo4);
}

/* Addresses swapped, hop limit 64, type 129; the rest kept. */
static __always_inline __u32 ipv6_reply(struct v6_req *q)
{
	struct icmp6hdr *icmp6 = q->icmp6;
	__u16 old, new;

	ipv6_turn_around(q->ip6);
	old = ld16(icmp6); /* type and code */
	new = word_with_first_byte(old, XP_ICMPV6_ECHO_REPLY);
	st16(icmp6, new);
	/* The pseudo-header makes the sum non-zero: no all-zero corner. */
	icmp6->icmp6_cksum = csum_replace16(icmp6->icmp6_cksum, old, new);
	return REASON(reply_echo6);
}

/* STAMP, over the steps above: a UDP datagram where no ICMP was. */
#include "stamp.h"

/* Each family's four steps. */

static __always_inline __u32 handle_ipv4(const struct l3_frame *f)
{
	struct v4_req q = {};
	__u32 reason;

	reason = ipv4_headers(f, &q);
	if (reason != XP_GO_ON)
		return reason;
	reason = ipv4_for_us(f, &q);
	if (reason != XP_GO_ON)
		return reason;
	/* An echo request to us: from here on, the work answering it takes. */
	*f->t0 = latency_start(f->counters, REASON(reply_echo4));
	reason = ipv4_verify(f, &q);
	if (reason != XP_GO_ON)
		return reason;
	reason = rate_check(4, &q.ip->saddr);
	if (reason)
		return reason;
	return ipv4_reply(&q);
}

static __always_inline __u32 handle_ipv6(const struct l3_frame *f)
{
	struct v6_req q = {};
	__u32 reason;

	reason = ipv6_headers(f, &q);
	if (reason != XP_GO_ON)
		return reason;
	reason = ipv6_for_us(f, &q);
	if (reason != XP_GO_ON)
		return reason;
	/* An echo request to us: from here on, the work answering it takes. */
	*f->t0 = latency_start(f->counters, REASON(reply_echo6));
	reason = ipv6_verify(f, &q);
	if (reason != XP_GO_ON)
		return reason;
	reason = rate_check(6, &q.ip6->saddr);
	if (reason)
		return reason;
	return ipv6_reply(&q);
}

/* A family's handler: handle_ipv4, handle_ipv6. */
typedef __u32 (*l3_handler)(const struct l3_frame *f);

/*
 * The frame's network layer found and handed to its family's handler (and
 * to STAMP's where echo found no ICMP and --stamp is on). The
 * handlers are arguments, so that the cost bench can hand its own for
 * IPv4: constants of always-inlined functions, they are inlined as direct
 * calls would be, one copy for each framing.
 */
static __always_inline __u32 frame_handle(struct xdp_md *ctx, __u64 *t0, const __u64 *counters,
					  l3_handler ipv4, l3_handler ipv6)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 len = ctx->data_end - ctx->data;
	struct ethhdr *eth = data;
	struct l3_frame f;
	__u32 reason;

	if (cfg_framing == XDPONG_FRAMING_IP) {
		/* TUN: no link header; the version nibble says the family. */
		if (data + 1 > end)
			return headers_cut(ctx, 1);
		f = (struct l3_frame){
			.ctx = ctx,
			.l3 = data,
			.end = end,
			.l3_len = len,
			.t0 = t0,
			.counters = counters,
		};
		if ((*(__u8 *)data >> 4) == 6)
			reason = ipv6(&f);
		else
			reason = ipv4(&f);
		if (stamp_wanted(reason))
			return xdpong_stamp(ctx, 0, *(__u8 *)data >> 4);
		return reason;
	}

	if ((void *)(eth + 1) > end)
		return headers_cut(ctx, sizeof(*eth));
	f = (struct l3_frame){ .ctx = ctx,
			       .eth = eth,
			       .l3_off = sizeof(*eth),
			       .l3 = eth + 1,
			       .end = end,
			       .l3_len = len - sizeof(*eth),
			       .t0 = t0,
			       .counters = counters };
	if (eth->h_proto == bpf_htons(XP_ETH_P_IP))
		reason = ipv4(&f);
	else if (eth->h_proto == bpf_htons(XP_ETH_P_IPV6))
		reason = ipv6(&f);
	else
		return REASON(pass_not_ip);
	if (stamp_wanted(reason))
		reason = xdpong_stamp(ctx, sizeof(*eth),
				      eth->h_proto == bpf_htons(XP_ETH_P_IPV6) ? 6 : 4);
	if (reason < XDPONG_R_FIRST_PASSED)
		swap_eth(eth);
	return reason;
}

/* The frame's reason: the reply in place, or why there is none. */
static __always_inline __u32 handle_frame(struct xdp_md *ctx, __u64 *t0, const __u64 *counters)
{
	return frame_handle(ctx, t0, counters, handle_ipv4, handle_ipv6);
}

/* What XDP does with a frame counted under reason. */
static __always_inline int reason_action(__u32 reason)
{
	if (reason < XDPONG_R_FIRST_PASSED)
		return XDP_TX;
	if (reason < XDPONG_R_FIRST_DROPPED)
		return XDP_PASS;
	return XDP_DROP;
}

/*
 * The program, for one frame: answered (XDP_TX), passed to the kernel or
 * dropped, and counted once under the reason why.
 */
static __always_inline int xdpong_packet(struct xdp_md *ctx)
{
	__u64 t0 = 0, service_ns = 0;
	__u32 key = 0, reason;
	__u64 *counters;

	if (stood_down())
		return XDP_PASS;
	carry_maps_own();
	counters = bpf_map_lookup_elem(&xdpong_stats, &key);
	reason = handle_frame(ctx, &t0, counters);
	reason = count_reason(counters, reason);
	if (t0 && reason < XDPONG_R_FIRST_PASSED)
		service_ns = latency_record(t0);
	if (trace_enabled)
		trace_emit(ctx, reason, service_ns);
	return reason_action(reason);
}

#endif /* XDPONG_BPF_ECHO_H */
