// SPDX-License-Identifier: GPL-2.0
/*
 * xdpong: answer ICMP and ICMPv6 echo requests in the driver (XDP_TX).
 *
 * Only echo requests that the kernel would answer are answered; what the
 * kernel would discard is dropped, everything else is passed to the kernel
 * unchanged. Every packet is counted once, by reason (include/xdpong.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "xdpong.h"

/* uapi macros that vmlinux.h cannot carry */
#define XP_ETH_P_IP 0x0800
#define XP_ETH_P_IPV6 0x86DD
#define XP_PROTO_ICMP 1
#define XP_PROTO_ICMPV6 58
#define XP_ICMP_ECHOREPLY 0
#define XP_ICMP_ECHO 8
#define XP_ICMPV6_ECHO_REQUEST 128
#define XP_ICMPV6_ECHO_REPLY 129
#define XP_IP_MF_OFFSET 0x3fff /* More Fragments flag and fragment offset */
#define XP_REPLY_HOPS 64       /* TTL / hop limit of every reply */

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader between open and load (rodata, frozen at load). */
const volatile __u32 cfg_framing = XDPONG_FRAMING_ETH;
const volatile __u32 cfg_latency_sample = 64; /* time 1 packet in N; 0: never */
const volatile __u8 cfg_check_mac = 0;       /* pass frames for other MACs */
const volatile __u64 cfg_rate_cost_ns = 0; /* per source: 1e9/PPS; 0: off */
const volatile __u64 cfg_rate_tolerance_ns = 0;   /* (BURST - 1) * cost */
const volatile __u64 cfg_global_cost_ns = 0;      /* all sources: 1e9/PPS */
const volatile __u64 cfg_global_tolerance_ns = 0; /* (BURST - 1) * cost */
const volatile __u8 cfg_never = 0; /* always 0: see carry_maps_own() */

/* Changed at run time through the .bss map (mmap, one field at a time). */
volatile __u32 trace_enabled = 0; /* `xdpong trace` is reading */
/* The interface's MAC in the first 6 bytes, zero-padded. One aligned 8-byte
 * word, so `xdpong run` can follow a MAC change without a torn read. */
volatile __u64 if_mac = 0;
__u64 trace_lost = 0;             /* events the ring buffer had no room for */
__u64 global_tat_ns = 0;          /* GCRA state of the global limit */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpong_counters);
} xdpong_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpong_latency);
} xdpong_latency SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xdpong_addr4_key);
	__type(value, struct xdpong_addr_info);
} xdpong_addr4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xdpong_addr6_key);
	__type(value, struct xdpong_addr_info);
} xdpong_addr6 SEC(".maps");

/* GCRA theoretical arrival time per source (IPv4 /32, IPv6 /64). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct xdpong_rl_key);
	__type(value, __u64);
} xdpong_ratelim SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} xdpong_trace SEC(".maps");

/*
 * Counts carried over from a program this one replaced whose maps had
 * another layout (an upgrade: loader/takeover.c). Written only by the
 * loader, never here; every reader adds them to the per-CPU counters.
 * Not per-CPU: one writer, and the values only grow at a takeover.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpong_counters);
} xdpong_carry SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpong_latency);
} xdpong_latcarry SEC(".maps");

/*
 * Readers find the maps through the attached program's map ids, which
 * list only the maps its instructions name. This names the carry maps
 * behind a branch on frozen rodata that is never taken: the verifier
 * removes it, so it costs nothing per packet.
 */
static __always_inline void carry_maps_own(void)
{
	__u32 key = 0;

	if (cfg_never) {
		bpf_map_lookup_elem(&xdpong_carry, &key);
		bpf_map_lookup_elem(&xdpong_latcarry, &key);
	}
}

#define R(name) XDPONG_R_##name

/*
 * Fold a one's complement sum kept in 64 bits to 16 (RFC 1071 4.1: adding
 * the halves is the end-around carry). Two folds per halving suffice.
 */
static __always_inline __u16 csum_fold(__u64 sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)sum;
}

/*
 * Unfolded sum of n bytes at p, n a constant multiple of 4, as 32-bit
 * words as stored (RFC 1071 sums in any word size). Inline: a call to
 * bpf_csum_diff() costs more than the summing. Loads go through memcpy,
 * never a cast pointer (clang 14 reused stale bytes through one).
 */
static __always_inline __u64 sum_words(const void *p, const int n)
{
	__u64 sum = 0;

#pragma unroll
	for (int i = 0; i < n / 8; i++) {
		__u64 w;

		__builtin_memcpy(&w, p + 8 * i, 8);
		sum += (w & 0xffffffff) + (w >> 32);
	}
	if (n & 4) {
		__u32 w;

		__builtin_memcpy(&w, p + (n & ~7), 4);
		sum += w;
	}
	return sum;
}

/*
 * Unfolded sum of len bytes at offset off of the frame, as stored (RFC
 * 1071). Fixed-size chunks keep every access provably inside the frame;
 * the length comes from the IP header, so padding after the packet is
 * never summed. Returns -1 if the bytes are not all in the frame. A result
 * of 0 means every byte was zero: an unfolded sum of non-negative words
 * cannot wrap to 0. A global function: the verifier checks it once, not
 * once per parsing path (inlined, its chunk loops exceed the 1M budget).
 * Blocks of 128 bytes and more go to bpf_csum_diff(), whose csum_partial()
 * beats BPF word sums once the call is paid for (measured: 1500-byte echo
 * 676 ns all inline); smaller ones are summed inline, where the call alone
 * would cost more than the sum.
 */
__noinline __s64 xdpong_sum_bytes(struct xdp_md *ctx, __u32 off, __u32 len)
{
	void *end = (void *)(long)ctx->data_end;
	void *p = (void *)(long)ctx->data;
	__u64 sum = 0;

	if (off > 256 || len > XDPONG_MAX_ICMP_LEN)
		return -1;
	p += off;
	for (int i = 0; i < XDPONG_MAX_ICMP_LEN / 512; i++) {
		if (len < 512)
			break;
		/* Keeps clang from rewriting the bounds check into a form the
		 * verifier cannot follow. */
		asm volatile("" : "+r"(p));
		if (p + 512 > end)
			return -1;
		sum += (__u32)bpf_csum_diff(NULL, 0, p, 512, 0);
		p += 512;
		len -= 512;
	}
#define CSUM_STEP(n, how)                                         \
	if (len & (n)) {                                          \
		if (p + (n) > end)                                \
			return -1;                                \
		sum += how;                                       \
		p += (n);                                         \
	}
#define CSUM_HELPER(n) (__u32)bpf_csum_diff(NULL, 0, p, (n), 0)
	CSUM_STEP(256, CSUM_HELPER(256))
	CSUM_STEP(128, CSUM_HELPER(128))
#undef CSUM_HELPER
#define CSUM_STEP_INLINE(n) CSUM_STEP(n, sum_words(p, (n)))
	CSUM_STEP_INLINE(64)
	CSUM_STEP_INLINE(32)
	CSUM_STEP_INLINE(16)
	CSUM_STEP_INLINE(8)
	CSUM_STEP_INLINE(4)
#undef CSUM_STEP_INLINE
#undef CSUM_STEP
	if (len & 2) {
		__u16 w;

		if (p + 2 > end)
			return -1;
		__builtin_memcpy(&w, p, 2);
		sum += w;
		p += 2;
	}
	if (len & 1) {
		/* RFC 1071: the odd byte is padded with a zero byte. */
		__u8 pad[2] = { 0, 0 };
		__u16 w;

		if (p + 1 > end)
			return -1;
		pad[0] = *(__u8 *)p;
		__builtin_memcpy(&w, pad, 2);
		sum += w;
	}
	return sum;
}

/*
 * RFC 1624 eqn 3, HC' = ~(~HC + ~m + m'): patch checksum `csum` for the
 * 4-byte-aligned word m changing to m'. Both are passed as 4 bytes as
 * stored in the packet; bytes that do not change must be equal in both.
 * ~m of a 32-bit word is the complement of both of its 16-bit halves.
 */
static __always_inline __u16 csum_replace(__u16 csum, __u8 old[4], __u8 new[4])
{
	__u32 m, m1;

	__builtin_memcpy(&m, old, 4);
	__builtin_memcpy(&m1, new, 4);
	return (__u16)~csum_fold((__u64)(__u16)~csum + (__u32)~m + m1);
}

/* The origin of the longest prefix holding addr, 0 if none. */
static __always_inline __u32 addr4_origin(__be32 addr)
{
	struct xdpong_addr4_key key = { .prefixlen = 32 };
	struct xdpong_addr_info *info;

	__builtin_memcpy(key.addr, &addr, 4);
	info = bpf_map_lookup_elem(&xdpong_addr4, &key);
	return info ? info->origin : 0;
}

static __always_inline bool addr6_is_local(const struct in6_addr *addr)
{
	struct xdpong_addr6_key key = { .prefixlen = 128 };

	__builtin_memcpy(key.addr, addr, 16);
	return bpf_map_lookup_elem(&xdpong_addr6, &key) != NULL;
}

/* Generic cell rate algorithm on *tat: true if a reply is allowed now. */
static __always_inline bool gcra_allow(__u64 *tat, __u64 now, __u64 cost,
				       __u64 tolerance)
{
	for (int i = 0; i < 4; i++) {
		__u64 old = *(volatile __u64 *)tat;
		__u64 t = old > now ? old : now;

		if (t - now > tolerance)
			return false;
		if (__sync_val_compare_and_swap(tat, old, t + cost) == old)
			return true;
	}
	return false; /* lost the race four times: the limit is being hit */
}

/*
 * Per-source and global limits (both off unless configured). A global
 * function: the verifier checks it once, not once per packet-parsing path.
 */
__noinline __u32 xdpong_rate_check(__u32 family, __u64 src_prefix)
{
	__u64 now;

	if (!cfg_rate_cost_ns && !cfg_global_cost_ns)
		return 0;
	now = bpf_ktime_get_ns();
	if (cfg_rate_cost_ns) {
		struct xdpong_rl_key key = { .family = family };
		__u64 *tat, first = now + cfg_rate_cost_ns;

		__builtin_memcpy(key.addr, &src_prefix, 8);
		tat = bpf_map_lookup_elem(&xdpong_ratelim, &key);
		if (!tat) {
			if (!bpf_map_update_elem(&xdpong_ratelim, &key, &first,
						 BPF_NOEXIST))
				goto global;
			tat = bpf_map_lookup_elem(&xdpong_ratelim, &key);
			if (!tat)
				return R(drop_rate_limited);
		}
		if (!gcra_allow(tat, now, cfg_rate_cost_ns,
				cfg_rate_tolerance_ns))
			return R(drop_rate_limited);
	}
global:
	if (cfg_global_cost_ns &&
	    !gcra_allow(&global_tat_ns, now, cfg_global_cost_ns,
			cfg_global_tolerance_ns))
		return R(drop_global_limited);
	return 0;
}

static __always_inline __u32 rate_check(__u32 family, const void *src)
{
	__u64 prefix = 0;

	/* Off (the default): frozen rodata makes the call dead code. */
	if (!cfg_rate_cost_ns && !cfg_global_cost_ns)
		return 0;
	/* IPv4 by /32, IPv6 by /64: one host's worth of addresses. */
	if (family == 4)
		__builtin_memcpy(&prefix, src, 4);
	else
		__builtin_memcpy(&prefix, src, 8);
	return xdpong_rate_check(family, prefix);
}

static __always_inline void swap_eth(struct ethhdr *eth)
{
	__u8 tmp[6];

	__builtin_memcpy(tmp, eth->h_source, 6);
	__builtin_memcpy(eth->h_source, eth->h_dest, 6);
	__builtin_memcpy(eth->h_dest, tmp, 6);
}

static __always_inline __u32 handle_ipv4(struct xdp_md *ctx, __u32 l3_off,
					 struct iphdr *ip, void *end,
					 __u32 l3_len)
{
	struct icmphdr *icmp;
	__u8 old[4], new[4], s0;
	__u32 tot, icmp_len, verdict, origin;
	__s64 payload_sum, hdr_sum;
	__u16 csum;

	if ((void *)(ip + 1) > end)
		return R(drop_truncated);
	if (ip->version != 4)
		return R(drop_bad_version);
	if (ip->ihl < 5)
		return R(drop_bad_ihl);
	tot = bpf_ntohs(ip->tot_len);
	if (tot < ip->ihl * 4 || tot > l3_len)
		return R(drop_bad_length);
	if (ip->ihl > 5)
		return R(pass_ip_options);
	/* RFC 1071: a header with a correct checksum sums to 0xffff. */
	if (csum_fold(sum_words(ip, 20)) != 0xffff)
		return R(drop_bad_ip_csum);
	if (ip->protocol != XP_PROTO_ICMP)
		return R(pass_not_icmp);
	if (ip->frag_off & bpf_htons(XP_IP_MF_OFFSET))
		return R(pass_fragment);
	/* 224.0.0.0/4 and 255.255.255.255: echo_ignore_broadcasts is the kernel's call. */
	if ((((__u8 *)&ip->daddr)[0] & 0xf0) == 0xe0 || ip->daddr == 0xffffffff)
		return R(pass_dst_group);
	switch (addr4_origin(ip->daddr)) {
	case 0:
		return R(pass_dst_not_local);
	case XDPONG_ADDR_BROADCAST: /* a subnet broadcast in a unicast frame */
		return R(pass_dst_group);
	}
	icmp_len = tot - 20;
	if (icmp_len < sizeof(*icmp))
		return R(drop_bad_length);
	icmp = (void *)(ip + 1);
	if ((void *)(icmp + 1) > end)
		return R(drop_truncated);
	if (icmp->type != XP_ICMP_ECHO)
		return R(pass_not_echo);
	/* Martian sources (RFC 1812 5.3.7); the kernel drops these. */
	s0 = ((__u8 *)&ip->saddr)[0];
	if (s0 == 0 || s0 == 127 || (s0 & 0xf0) == 0xe0 ||
	    ip->saddr == 0xffffffff)
		return R(drop_martian_src);
	if ((s0 & 0xf0) == 0xf0)
		return R(pass_src_reserved);
	/* The kernel drops a source that is its own address (accept_local=0)
	 * or a subnet broadcast (fib_validate_source: not RTN_UNICAST).
	 * Operator prefixes are not its addresses: sources there are answered. */
	origin = addr4_origin(ip->saddr);
	if (origin == XDPONG_ADDR_IFACE || origin == XDPONG_ADDR_BROADCAST)
		return R(drop_martian_src);
	if (icmp_len > XDPONG_MAX_ICMP_LEN)
		return R(pass_too_big);
	payload_sum = xdpong_sum_bytes(ctx, l3_off + sizeof(*ip) + sizeof(*icmp),
				       icmp_len - sizeof(*icmp));
	if (payload_sum < 0)
		return R(drop_truncated);
	hdr_sum = sum_words(icmp, sizeof(*icmp));
	if (csum_fold(payload_sum + hdr_sum) != 0xffff)
		return R(drop_bad_icmp_csum);
	verdict = rate_check(4, &ip->saddr);
	if (verdict)
		return verdict;

	/* The reply: addresses swapped, TTL 64, type 0; everything else kept. */
	__be32 tmp = ip->saddr;
	ip->saddr = ip->daddr;
	ip->daddr = tmp;

	old[0] = ip->ttl;
	old[1] = ip->protocol;
	old[2] = old[3] = 0;
	__builtin_memcpy(new, old, 4);
	new[0] = XP_REPLY_HOPS;
	ip->ttl = XP_REPLY_HOPS;
	ip->check = csum_replace(ip->check, old, new);

	old[0] = icmp->type;
	old[1] = icmp->code;
	__builtin_memcpy(new, old, 4);
	new[0] = XP_ICMP_ECHOREPLY;
	icmp->type = XP_ICMP_ECHOREPLY;
	csum = csum_replace(icmp->checksum, old, new);
	/*
	 * An all-zero reply (code, id, seq and payload zero) sums to +0, so
	 * its checksum is ~0 = 0xffff; eqn 3 yields the other zero, 0x0000,
	 * which receivers reject. Any other reply's 0x0000 is correct.
	 */
	if (csum == 0 && icmp->code == 0 && icmp->un.echo.id == 0 &&
	    icmp->un.echo.sequence == 0 && payload_sum == 0)
		csum = 0xffff;
	icmp->checksum = csum;
	return R(reply_echo4);
}

static __always_inline bool ipv6_is_ext_header(__u8 nexthdr)
{
	switch (nexthdr) {
	case 0:   /* hop-by-hop options */
	case 43:  /* routing */
	case 44:  /* fragment */
	case 50:  /* ESP */
	case 51:  /* AH */
	case 60:  /* destination options */
	case 135: /* mobility */
	case 139: /* HIP */
	case 140: /* shim6 */
	case 253: /* experiments (RFC 3692) */
	case 254:
		return true;
	}
	return false;
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

static __always_inline __u32 handle_ipv6(struct xdp_md *ctx, __u32 l3_off,
					 struct ipv6hdr *ip6, void *end,
					 __u32 l3_len)
{
	struct icmp6hdr *icmp6;
	__u8 old[4], new[4];
	__u32 plen, verdict;
	__s64 payload_sum, sum;
	struct in6_addr tmp;

	if ((void *)(ip6 + 1) > end)
		return R(drop_truncated);
	if (ip6->version != 6)
		return R(drop_bad_version);
	plen = bpf_ntohs(ip6->payload_len);
	if (sizeof(*ip6) + plen > l3_len)
		return R(drop_bad_length);
	/* Multicast echo: the kernel answers from a unicast source. */
	if (ip6->daddr.in6_u.u6_addr8[0] == 0xff)
		return R(pass_dst_group);
	if (ip6->nexthdr != XP_PROTO_ICMPV6)
		return ipv6_is_ext_header(ip6->nexthdr) ? R(pass_ipv6_ext) :
							  R(pass_not_icmp);
	if (!addr6_is_local(&ip6->daddr))
		return R(pass_dst_not_local);
	if (plen < sizeof(*icmp6))
		return R(drop_bad_length);
	icmp6 = (void *)(ip6 + 1);
	if ((void *)(icmp6 + 1) > end)
		return R(drop_truncated);
	if (icmp6->icmp6_type != XP_ICMPV6_ECHO_REQUEST)
		return R(pass_not_echo);
	if (ipv6_is_martian_src(&ip6->saddr))
		return R(drop_martian_src);
	if (plen > XDPONG_MAX_ICMP_LEN)
		return R(pass_too_big);
	payload_sum = xdpong_sum_bytes(ctx, l3_off + sizeof(*ip6) + sizeof(*icmp6),
				       plen - sizeof(*icmp6));
	if (payload_sum < 0)
		return R(drop_truncated);
	/* RFC 8200 8.1 pseudo-header: addresses, upper-layer length, 58. */
	sum = payload_sum;
	sum += sum_words(&ip6->saddr, 32);
	sum += sum_words(icmp6, sizeof(*icmp6));
	sum += bpf_htonl(plen);
	sum += bpf_htonl(XP_PROTO_ICMPV6);
	if (csum_fold(sum) != 0xffff)
		return R(drop_bad_icmp_csum);
	verdict = rate_check(6, &ip6->saddr);
	if (verdict)
		return verdict;

	/* Swapping the addresses leaves the pseudo-header sum unchanged. */
	tmp = ip6->saddr;
	ip6->saddr = ip6->daddr;
	ip6->daddr = tmp;
	ip6->hop_limit = XP_REPLY_HOPS; /* not in the pseudo-header */

	old[0] = icmp6->icmp6_type;
	old[1] = icmp6->icmp6_code;
	old[2] = old[3] = 0;
	__builtin_memcpy(new, old, 4);
	new[0] = XP_ICMPV6_ECHO_REPLY;
	icmp6->icmp6_type = XP_ICMPV6_ECHO_REPLY;
	/* The pseudo-header makes the sum non-zero: no all-zero corner. */
	icmp6->icmp6_cksum = csum_replace(icmp6->icmp6_cksum, old, new);
	return R(reply_echo6);
}

static __always_inline __u32 handle_frame(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 len = ctx->data_end - ctx->data;
	struct ethhdr *eth = data;
	__u32 reason;

	if (cfg_framing == XDPONG_FRAMING_IP) {
		/* TUN: no link header; the version nibble says the family. */
		if (data + 1 > end)
			return R(drop_truncated);
		if ((*(__u8 *)data >> 4) == 6)
			return handle_ipv6(ctx, 0, data, end, len);
		return handle_ipv4(ctx, 0, data, end, len);
	}

	if ((void *)(eth + 1) > end)
		return R(drop_truncated);
	if (eth->h_proto != bpf_htons(XP_ETH_P_IP) &&
	    eth->h_proto != bpf_htons(XP_ETH_P_IPV6))
		return R(pass_not_ip);
	/* A reply must never go to, or come from, a group MAC. */
	if ((eth->h_dest[0] & 1) || (eth->h_source[0] & 1))
		return R(pass_l2_group);
	if (cfg_check_mac) {
		__u64 dst = 0;

		__builtin_memcpy(&dst, eth->h_dest, 6);
		if (dst != if_mac) /* the kernel drops PACKET_OTHERHOST */
			return R(pass_l2_other_host);
	}

	if (eth->h_proto == bpf_htons(XP_ETH_P_IP))
		reason = handle_ipv4(ctx, sizeof(*eth), (void *)(eth + 1), end,
				     len - sizeof(*eth));
	else
		reason = handle_ipv6(ctx, sizeof(*eth), (void *)(eth + 1), end,
				     len - sizeof(*eth));
	if (reason < XDPONG_R_FIRST_PASSED)
		swap_eth(eth);
	return reason;
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) { r += 1; }
	return r;
}

static __always_inline void trace_emit(struct xdp_md *ctx, __u32 reason,
				       __u64 service_ns)
{
	__u32 l3_off = cfg_framing == XDPONG_FRAMING_IP ? 0 : sizeof(struct ethhdr);
	__u32 len = ctx->data_end - ctx->data;
	struct xdpong_trace_event *ev;
	__u32 snap = 0;

	ev = bpf_ringbuf_reserve(&xdpong_trace, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&trace_lost, 1);
		return;
	}
	if (len > l3_off)
		snap = len - l3_off;
	if (snap > XDPONG_TRACE_SNAP)
		snap = XDPONG_TRACE_SNAP;
	if (snap < 1 || bpf_xdp_load_bytes(ctx, l3_off, ev->snap, snap))
		snap = 0;
	ev->ts_ns = bpf_ktime_get_ns();
	ev->service_ns = service_ns > 0xffffffff ? 0xffffffff : service_ns;
	ev->frame_len = len;
	ev->reason = reason;
	ev->snap_len = snap;
	ev->ifindex = ctx->ingress_ifindex;
	bpf_ringbuf_submit(ev, 0);
}

SEC("xdp")
int xdpong(struct xdp_md *ctx)
{
	struct xdpong_counters *counters;
	struct xdpong_latency *lat;
	__u64 t0 = 0, service_ns = 0;
	__u32 key = 0, reason;

	carry_maps_own();
	lat = bpf_map_lookup_elem(&xdpong_latency, &key);
	if (lat && cfg_latency_sample) {
		/* Sample 1 packet in N: two clock reads cost more than a reply. */
		if (lat->sample_countdown == 0) {
			t0 = bpf_ktime_get_ns();
			lat->sample_countdown = cfg_latency_sample - 1;
		} else {
			lat->sample_countdown--;
		}
	}

	reason = handle_frame(ctx);

	/* The one exit: every packet is counted exactly once. */
	counters = bpf_map_lookup_elem(&xdpong_stats, &key);
	if (counters) {
		/* The bound (it cannot be exceeded) is checked on the very
		 * register that indexes: checked before the lookup, clang 14
		 * kept reason on the stack and reloaded it unchecked, which
		 * the verifier refused. */
		barrier_var(reason);
		if (reason >= XDPONG_R_MAX)
			reason = R(drop_truncated);
		((__u64 *)counters)[reason]++;
	}

	if (t0 && reason < XDPONG_R_FIRST_PASSED && lat) {
		__u32 slot;

		service_ns = bpf_ktime_get_ns() - t0;
		slot = log2_u64(service_ns);
		if (slot >= XDPONG_LAT_SLOTS)
			slot = XDPONG_LAT_SLOTS - 1;
		lat->slots[slot]++;
		lat->sum_ns += service_ns;
		lat->count++;
	}
	if (trace_enabled)
		trace_emit(ctx, reason, service_ns);

	if (reason < XDPONG_R_FIRST_PASSED)
		return XDP_TX;
	if (reason < XDPONG_R_FIRST_DROPPED)
		return XDP_PASS;
	return XDP_DROP;
}
