// SPDX-License-Identifier: GPL-2.0
/*
 * Bare reflector: the limit of the XDP_TX path, not a product. Answers an
 * IPv4 ICMP echo request (no options) by swapping MACs and addresses and
 * setting type 0; validates nothing else and counts nothing. Beside it the
 * checking reflector, the same with the checks a correct responder makes.
 */
#define BPF_NO_PRESERVE_ACCESS_INDEX /* packet headers only: as bpf/wire.h */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "bench.h"
#include "turnaround.h"
#include "kfold.h"
#include "../../bpf/csum.h"

char LICENSE[] SEC("license") = "GPL";

/* The responder's MAC as stored (low 6 bytes) and IPv4 address, set from
 * user space once loaded: the checking reflector answers only these. */
__u64 check_mac;
__be32 check_addr4;

/*
 * The bare reflector's turn-around without its one slow step: the type is
 * written as the whole word it is read as (wire.h), not as a byte read back
 * in a word (a store-forwarding stall on x86, README), as xdpong writes it.
 */
static __always_inline void check_turn4(struct ethhdr *eth, struct iphdr *ip, struct icmphdr *icmp)
{
	__u16 old_word = ld16(icmp), new_word = word_with_first_byte(old_word, 0);
	__be32 tmp = ip->saddr;

	ta_swap_mac(eth);
	ip->saddr = ip->daddr;
	ip->daddr = tmp;
	st16(icmp, new_word);
	icmp->checksum = ta_csum_update(icmp->checksum, old_word, new_word);
}

/*
 * The checks that any correct responder makes before it answers, on a
 * request the bare reflector would answer, and nothing else: the header
 * sane (version 4, a total length the frame holds, not a fragment: RFC
 * 791 3.1, RFC 1122 3.2.1; the bare reflector took no options), the frame
 * for us (our MAC: XDP sees what a promiscuous NIC takes in; our address),
 * the IPv4 header and ICMP checksums verified (RFC 1122 3.2.1.2, RFC 792).
 * They sum with xdpong's own checksum code (bpf/csum.h), so that the two
 * differ only in what xdpong does beyond these checks. XDP_TX to answer; a
 * bad checksum is dropped, as the kernel drops it; what they do not check
 * (an ICMP message of 128 bytes or more) is passed.
 */
static __always_inline int checks(struct ethhdr *eth, struct iphdr *ip, struct icmphdr *icmp,
				  void *end)
{
	__u32 tot = bpf_ntohs(ip->tot_len), msg_len = tot - sizeof(*ip);
	__u64 mac = 0;
	__s64 sum;

	__builtin_memcpy(&mac, eth->h_dest, 6);
	if (mac != check_mac || ip->version != 4 || tot < sizeof(*ip) + 8 || msg_len >= 128 ||
	    (void *)ip + tot > end || ip->frag_off & bpf_htons(0x3fff) || ip->daddr != check_addr4)
		return XDP_PASS;
	if (!csum_ok(sum_words(ip, sizeof(*ip))))
		return XDP_DROP;
	sum = sum_under_128(icmp, end, msg_len);
	return sum >= 0 && csum_ok(sum) ? XDP_TX : XDP_DROP;
}

/*
 * The bare reflector, or with checked the checking reflector: the same
 * with checks() first and the turn-around without its slow step. Counts
 * nothing. turn_back: for the cost harnesses (kfold.h), the reply turned
 * back into the request.
 */
static __always_inline int reflect(struct xdp_md *ctx, bool checked, bool turn_back)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct icmphdr *icmp = (void *)(ip + 1);
	int verdict;

	if ((void *)(icmp + 1) > end || eth->h_proto != bpf_htons(TA_ETH_P_IP) || ip->ihl != 5 ||
	    ip->protocol != TA_PROTO_ICMP || icmp->type != 8)
		return XDP_PASS;
	if (checked) {
		verdict = checks(eth, ip, icmp, end);
		if (verdict != XDP_TX)
			return verdict;
		check_turn4(eth, ip, icmp);
	} else {
		ta_turn4(eth, ip, icmp);
	}
	if (turn_back)
		ta_turn_frame(ctx);
	return XDP_TX;
}

/* The responders net.c attaches, bare and checking, and the bare one with
 * the cost harness's turn-around. */
#define REFLECTOR(name, checked, turn_back)              \
	SEC("xdp")                                       \
	int name(struct xdp_md *ctx)                     \
	{                                                \
		return reflect(ctx, checked, turn_back); \
	}

REFLECTOR(bench_reflect, false, false)
REFLECTOR(bench_check, true, false)
REFLECTOR(bench_reflect_cost, false, true)

/* The turn-around alone: subtracted from the cost harnesses' times. */
SEC("xdp")
int bench_turn(struct xdp_md *ctx)
{
	ta_turn_frame(ctx);
	return XDP_TX;
}

/*
 * The checksum half of a reply, two ways, for cost.c's bpf_csum_diff row:
 * the TTL word of the IPv4 header and the type word of the ICMP header
 * change, and both checksums are patched. patch_inline is xdpong's way
 * (RFC 1624 eqn 3 in registers); patch_csum_diff makes one bpf_csum_diff()
 * call per checksum, as Katran and Cilium's XDP code do. Each run toggles
 * (TTL 64 <-> 63, type 8 <-> 0), so every second run restores the request.
 */
static __always_inline __u16 csum_diff_update(__u16 hc, __u16 m, __u16 m_new)
{
	__u32 from = m, to = m_new; /* the word as stored, two zero bytes */
	__s64 sum = bpf_csum_diff(&from, sizeof(from), &to, sizeof(to), (__u16)~hc);

	sum = (sum & 0xffff) + ((sum >> 16) & 0xffff);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

static __always_inline int patch(struct xdp_md *ctx, bool helper)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct icmphdr *icmp = (void *)(ip + 1);
	__u16 old_ip, new_ip, old_icmp, new_icmp;

	if ((void *)(icmp + 1) > end || eth->h_proto != bpf_htons(TA_ETH_P_IP) || ip->ihl != 5 ||
	    ip->protocol != TA_PROTO_ICMP)
		return XDP_PASS;
	__builtin_memcpy(&old_ip, &ip->ttl, 2);
	__builtin_memcpy(&old_icmp, icmp, 2);
	ip->ttl ^= 64 ^ 63;
	icmp->type ^= 8;
	__builtin_memcpy(&new_ip, &ip->ttl, 2);
	__builtin_memcpy(&new_icmp, icmp, 2);
	if (helper) {
		ip->check = csum_diff_update(ip->check, old_ip, new_ip);
		icmp->checksum = csum_diff_update(icmp->checksum, old_icmp, new_icmp);
	} else {
		ip->check = ta_csum_update(ip->check, old_ip, new_ip);
		icmp->checksum = ta_csum_update(icmp->checksum, old_icmp, new_icmp);
	}
	return XDP_TX;
}

SEC("xdp")
int bench_patch_inline(struct xdp_md *ctx)
{
	return patch(ctx, false);
}

SEC("xdp")
int bench_patch_csum_diff(struct xdp_md *ctx)
{
	return patch(ctx, true);
}

/* K-fold versions for cost.c (kfold.h): the loop alone, the turn-around
 * alone, the bare and the checking reflector, and the two checksum
 * patches. */
static __always_inline int body_null(struct xdp_md *ctx)
{
	return XDP_PASS;
}

static __always_inline int body_turn(struct xdp_md *ctx)
{
	ta_turn_frame(ctx);
	return XDP_TX;
}

static __always_inline int body_patch_inline(struct xdp_md *ctx)
{
	return patch(ctx, false);
}

static __always_inline int body_patch_csum_diff(struct xdp_md *ctx)
{
	return patch(ctx, true);
}

KFOLD_PROGRAM(bench_null_k, body_null)
KFOLD_PROGRAM(bench_turn_k, body_turn)
/* kfold.h calls fn(ctx): the reflectors with their turn-arounds. */
#define BARE_TURNED(ctx) reflect(ctx, false, true)
#define CHECK_TURNED(ctx) reflect(ctx, true, true)
KFOLD_PROGRAM(bench_reflect_cost_k, BARE_TURNED)
KFOLD_PROGRAM(bench_check_cost_k, CHECK_TURNED)
KFOLD_PROGRAM(bench_patch_inline_k, body_patch_inline)
KFOLD_PROGRAM(bench_patch_csum_diff_k, body_patch_csum_diff)

/*
 * One read of the clock STAMP's T2 and T3 come from on a 6.1 or later
 * kernel without driver timestamps (bpf/stamp.h): each reply reads it
 * twice. For cost.c's row; kept, so that the read cannot be dropped.
 */
__u64 clock_out;

static __always_inline int body_clock(struct xdp_md *ctx)
{
	clock_out = bpf_ktime_get_tai_ns();
	return XDP_PASS;
}

KFOLD_PROGRAM(bench_clock_k, body_clock)

/*
 * cost.c's vernier for the floor: vernier_n dependent add-and-shift steps,
 * then XDP_PASS. Timed for n = 0, 1, 2, ... the whole-ns readings step up
 * at fractional points of the floor, and a straight line fitted through
 * them gives the floor to a few hundredths of a nanosecond (kfold.h says
 * why whole nanoseconds are not enough).
 */
volatile __u32 vernier_n;

static __always_inline int body_vernier(struct xdp_md *ctx)
{
	__u64 acc = ctx->ingress_ifindex + 1;
	__u32 n = vernier_n;

	for (__u32 i = 0; i < 64; i++) {
		if (i >= n)
			break;
		acc += acc >> 1;
		/* One dependent step each: clang may not fold the chain. */
		asm volatile("" : "+r"(acc));
	}
	return acc ? XDP_PASS : XDP_DROP; /* acc is never 0: always XDP_PASS */
}

SEC("xdp")
int bench_vernier(struct xdp_md *ctx)
{
	return body_vernier(ctx);
}

KFOLD_PROGRAM(bench_vernier_k, body_vernier)
