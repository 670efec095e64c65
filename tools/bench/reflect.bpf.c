// SPDX-License-Identifier: GPL-2.0
/*
 * Bare reflector: the limit of the XDP_TX path, not a product. Answers an
 * IPv4 ICMP echo request (no options) by swapping MACs and addresses and
 * setting type 0; validates nothing else and counts nothing.
 */
#define BPF_NO_PRESERVE_ACCESS_INDEX /* packet headers only: as bpf/wire.h */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "bench.h"
#include "turnaround.h"
#include "kfold.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline int reflect(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct icmphdr *icmp = (void *)(ip + 1);

	if ((void *)(icmp + 1) > end || eth->h_proto != bpf_htons(TA_ETH_P_IP) || ip->ihl != 5 ||
	    ip->protocol != TA_PROTO_ICMP || icmp->type != 8)
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
 * alone, the bare reflector, and the two checksum patches. */
static __always_inline int body_null(struct xdp_md *ctx)
{
	return XDP_PASS;
}

static __always_inline int body_turn(struct xdp_md *ctx)
{
	ta_turn_frame(ctx);
	return XDP_TX;
}

static __always_inline int body_reflect_cost(struct xdp_md *ctx)
{
	int verdict = reflect(ctx);

	if (verdict == XDP_TX)
		ta_turn_frame(ctx);
	return verdict;
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
KFOLD_PROGRAM(bench_reflect_cost_k, body_reflect_cost)
KFOLD_PROGRAM(bench_patch_inline_k, body_patch_inline)
KFOLD_PROGRAM(bench_patch_csum_diff_k, body_patch_csum_diff)

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
