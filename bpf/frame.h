/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The frame: its length across buffers, its link layer, and the sums of
 * the messages in it. The steps of the packet path (echo.h) return a
 * reason (include/xdpong.h), or XP_GO_ON to go on to the next; the checks
 * a step is made of return true to go on, or false with the reason in
 * *why (xp_stop).
 */
#ifndef XDPONG_BPF_FRAME_H
#define XDPONG_BPF_FRAME_H

#include "state.h"
#include "csum.h"

/* What a step of the packet path returns to go on: no reason (yet). */
#define XP_GO_ON XDPONG_R_MAX

/* What a check within a step returns to stop: false, the reason in *why. */
static __always_inline bool xp_stop(__u32 *why, __u32 reason)
{
	*why = reason;
	return false;
}

/* A frame's network layer, as frame_handle (echo.h) found it: the parse
 * state the two families' handlers start from. */
struct l3_frame {
	struct xdp_md *ctx;
	struct ethhdr *eth;    /* NULL: IP framing (TUN), no link header */
	__u32 l3_off;          /* bytes before the IP header */
	__u32 l3_len;          /* bytes from the IP header on, fragments included */
	void *l3;              /* the IP header */
	void *end;             /* the first buffer's end */
	__u64 *t0;             /* set when the packet is timed */
	const __u64 *counters; /* this CPU's reason counters, NULL if none */
};

/* Every buffer of the frame (one, without multi-buffer XDP). */
static __always_inline __u32 frame_len(struct xdp_md *ctx)
{
	if (!cfg_frags)
		return ctx->data_end - ctx->data;
	return bpf_xdp_get_buff_len(ctx);
}

/*
 * The first buffer ends before `need` bytes: a frame shorter than its
 * headers, or a multi-buffer frame whose headers continue in a fragment
 * (a NIC that splits headers from data). The kernel copes with the latter.
 */
static __always_inline __u32 headers_cut(struct xdp_md *ctx, __u32 need)
{
	return frame_len(ctx) >= need ? REASON(pass_split_headers) : REASON(drop_truncated);
}

/*
 * Link-layer rules, checked once the frame is known to be ICMP: a reply
 * never goes to or comes from a group MAC (IEEE 802 group bit), and with
 * cfg_check_mac a frame for another host's MAC is the kernel's (it drops
 * PACKET_OTHERHOST). 0 if the frame may be answered; eth NULL: no link
 * header (TUN).
 */
static __always_inline __u32 check_l2(const struct ethhdr *eth)
{
	if (!eth)
		return 0;
	if ((eth->h_dest[0] | eth->h_source[0]) & 1)
		return REASON(pass_l2_group);
	if (cfg_check_mac) {
		/* Two loads and two compares: the word's first 6 bytes as
		 * stored, whatever the byte order (assembling the frame's
		 * bytes into one word took a load and a shift per byte). */
		__u64 mac = if_mac;
		__u32 m4;
		__u16 m2;

		__builtin_memcpy(&m4, &mac, 4);
		__builtin_memcpy(&m2, (__u8 *)&mac + 4, 2);
		if (ld32(eth->h_dest) != m4 || ld16(eth->h_dest + 4) != m2)
			return REASON(pass_l2_other_host);
	}
	return 0;
}

/* Four loads, then four stores: MACs are 6 bytes at offsets 0 and 6. */
static __always_inline void swap_eth(struct ethhdr *eth)
{
	void *p = eth;
	__u32 dst_lo = ld32(p), src_lo = ld32(p + 6);
	__u16 dst_hi = ld16(p + 4), src_hi = ld16(p + 10);

	st32(p, src_lo);
	st16(p + 4, src_hi);
	st32(p + 6, dst_lo);
	st16(p + 10, dst_hi);
}

/*
 * Unfolded sum of len bytes at offset off of the frame's first buffer, as
 * stored (RFC 1071). Fixed-size chunks keep every access provably inside
 * the buffer; the length comes from the IP header, so padding after the
 * packet is never summed. Returns -1 if the bytes are not all there. A
 * result of 0 means every byte was zero: an unfolded sum of non-negative
 * words cannot wrap to 0. A global function: the verifier checks it once,
 * not once per parsing path (inlined, its chunk loops exceed the 1M
 * budget).
 * Blocks of 128 bytes and more go to bpf_csum_diff(), whose csum_partial()
 * beats BPF word sums once the call is paid for; smaller ones are summed
 * inline, where the call alone would cost more than the sum.
 */
__noinline __s64 xdpong_sum_bytes(struct xdp_md *ctx, __u32 off, __u32 len)
{
	void *end = (void *)(long)ctx->data_end;
	void *p = (void *)(long)ctx->data;
	__u64 sum = 0;
	__s64 tail;

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
#define CSUM_HELPER_STEP(n)                                      \
	if (len & (n)) {                                         \
		if (p + (n) > end)                               \
			return -1;                               \
		sum += (__u32)bpf_csum_diff(NULL, 0, p, (n), 0); \
		p += (n);                                        \
	}
	CSUM_HELPER_STEP(256)
	CSUM_HELPER_STEP(128)
#undef CSUM_HELPER_STEP
	tail = sum_under_128(p, end, len & 127);
	return tail < 0 ? -1 : sum + tail;
}

#define XP_FRAG_CHUNK 256 /* bytes copied out at a time: stack, not a map */

/*
 * A length of 1 to max (a power of two) from x, as the verifier sees it
 * whatever the compiler did before: x mod max, or max where that is 0.
 * Helpers that read a length want it above zero (6.1: "invalid
 * zero-sized read"), and a clamp tested earlier proves nothing where the
 * compiler keeps x in another register (clang 19, trace_emit). The
 * barrier makes the compiler forget what it knows of x, so it cannot fold
 * the mask away as redundant.
 */
static __always_inline __u32 len_1_to(__u32 x, const __u32 max)
{
	asm volatile("" : "+r"(x));
	return ((x - 1) & (max - 1)) + 1;
}

/*
 * The same sum for a message that continues past the first buffer of a
 * multi-buffer frame: copied out a chunk at a time (bpf_xdp_load_bytes
 * reads across fragments) and summed by bpf_csum_diff, which wants a
 * multiple of 4 bytes: the last chunk is zero-padded, which RFC 1071's
 * odd-byte rule allows (chunks start at even offsets of the message).
 * A stack buffer rather than a per-CPU map: nothing else can touch it
 * between the copy and the sum.
 */
__noinline __s64 xdpong_sum_frags(struct xdp_md *ctx, __u32 off, __u32 len)
{
	/* 4 spare bytes: the verifier bounds the rounded-up tail by 258. */
	__u8 buf[XP_FRAG_CHUNK + 4];
	__u64 sum = 0;

	/* A global function is verified on its own, reached or not. */
	if (!cfg_frags || len > XDPONG_MAX_ICMP_LEN)
		return -1;
	for (int i = 0; i < XDPONG_MAX_ICMP_LEN / XP_FRAG_CHUNK; i++) {
		if (len < XP_FRAG_CHUNK)
			break;
		if (bpf_xdp_load_bytes(ctx, off, buf, XP_FRAG_CHUNK))
			return -1;
		sum += (__u32)bpf_csum_diff(NULL, 0, (void *)buf, XP_FRAG_CHUNK, 0);
		off += XP_FRAG_CHUNK;
		len -= XP_FRAG_CHUNK;
	}
	/* The rest, 1 to 255 bytes (the loop covers XDPONG_MAX_ICMP_LEN). */
	if (len & (XP_FRAG_CHUNK - 1)) {
		__u32 n = len_1_to(len, XP_FRAG_CHUNK);

		__builtin_memset(buf, 0, sizeof(buf));
		if (bpf_xdp_load_bytes(ctx, off, buf, n))
			return -1;
		sum += (__u32)bpf_csum_diff(NULL, 0, (void *)buf, (n + 3) & ~3, 0);
	}
	return sum;
}

#define XP_PING_DATA 56 /* data bytes of ping's echo requests by default */

/* The unfolded sum of the len bytes of a message at p (offset off). */
static __always_inline __s64 sum_message(struct xdp_md *ctx, void *p, void *end, __u32 off,
					 __u32 len, bool in_frags)
{
	if (in_frags)
		return xdpong_sum_frags(ctx, off, len);
	/* ping's own 56 bytes (Linux, BSD): one bounds check and straight
	 * loads, without the chunk tests of sum_under_128 (the same sum). */
	if (len == XP_PING_DATA) {
		if (p + XP_PING_DATA > end)
			return -1;
		return sum_words(p, XP_PING_DATA);
	}
	if (len < 128)
		return sum_under_128(p, end, len);
	return xdpong_sum_bytes(ctx, off, len);
}

#endif /* XDPONG_BPF_FRAME_H */
