/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internet checksum arithmetic (RFC 1071, RFC 1624) on words as stored:
 * a one's complement sum is the same in either byte order (RFC 1071
 * 2(B)), so nothing here swaps bytes. Sums are kept unfolded in 64 bits
 * (RFC 1071 2(C): the carries are added back once, at the end): the
 * message sums of frame.h add to them, and only the end folds or tests.
 */
#ifndef XDPONG_BPF_CSUM_H
#define XDPONG_BPF_CSUM_H

#include "wire.h"

/*
 * Fold a one's complement sum kept in 64 bits to 16 (RFC 1071 4.1,
 * "sum = (sum & 0xffff) + (sum >> 16)": adding the halves is the
 * end-around carry). Two folds per halving suffice. Corners: 0 folds to
 * 0 (+0), a nonzero multiple of 0xffff to 0xffff (-0), never to 0.
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
 * Whether an unfolded one's complement sum folds to 0xffff, as the sum of
 * a message with a correct checksum does (RFC 1071 1, step (3): the sum
 * over the message and its checksum is all ones). Folding keeps a sum's
 * value modulo 0xffff and turns every nonzero multiple of 0xffff into
 * 0xffff, so the question is whether sum is such a multiple. An odd
 * divisor has an inverse modulo 2^64: a multiple's product with it is the
 * exact quotient, 1 to 2^64 / 0xffff; every other sum's product is larger
 * (the test for a zero remainder in Hacker's Delight, 10-17). One multiply
 * and one compare, where csum_fold takes eight dependent steps. Exact for
 * every 64-bit sum; the unit tests' checksum corners (0x0000 and 0xffff,
 * off by one) and the fuzzer's reference, which folds, hold its verdicts.
 * Corner: a sum of 0 (every byte zero, the checksum too) is not correct.
 */
#define XP_CSUM_INV 0xfffefffefffeffffULL /* 0xffff * this == 1 (mod 2^64) */
#define XP_CSUM_QMAX 0x1000100010001ULL   /* (2^64 - 1) / 0xffff */
static __always_inline bool csum_ok(__u64 sum)
{
	return sum * XP_CSUM_INV - 1 < XP_CSUM_QMAX;
}

/*
 * Unfolded sum of n bytes at p, n a constant multiple of 4, as 32-bit
 * words as stored (RFC 1071 2(C): the sum may be taken in wider words,
 * then folded; 2(B): in the order stored). One 32-bit load and
 * one add a word: halving 64-bit loads takes more instructions than it
 * saves loads. Two accumulators, so the adds do not wait on each other.
 */
static __always_inline __u64 sum_words(const void *p, const int n)
{
	__u64 a = 0, b = 0;

#pragma unroll
	for (int i = 0; i + 1 < n / 4; i += 2) {
		a += ld32(p + 4 * i);
		b += ld32(p + 4 * i + 4);
	}
	if ((n / 4) & 1)
		a += ld32(p + n - 4);
	return a + b;
}

/*
 * Unfolded sum of len bytes at p, len under 128, as stored (RFC 1071),
 * -1 if they run past end: power-of-two chunks, each bounds-checked, so
 * the verifier can follow every access. Inline where the caller knows the
 * message is short, as most pings are (56 bytes from ping, 32 from
 * Windows): a call would cost a good part of the sum. Corner: an odd
 * length, whose last byte is summed as a word with a zero byte after it.
 */
static __always_inline __s64 sum_under_128(void *p, void *end, __u32 len)
{
	__u64 sum = 0;

#define CSUM_STEP(n)                      \
	if (len & (n)) {                  \
		if (p + (n) > end)        \
			return -1;        \
		sum += sum_words(p, (n)); \
		p += (n);                 \
	}
	CSUM_STEP(64)
	CSUM_STEP(32)
	CSUM_STEP(16)
	CSUM_STEP(8)
	CSUM_STEP(4)
#undef CSUM_STEP
	if (len & 2) {
		if (p + 2 > end)
			return -1;
		sum += ld16(p);
		p += 2;
	}
	if (len & 1) {
		/* RFC 1071 4.1: the odd byte is padded with a zero byte. */
		__u8 pad[2] = { 0, 0 };

		if (p + 1 > end)
			return -1;
		pad[0] = *(__u8 *)p;
		sum += ld16(pad);
	}
	return sum;
}

/*
 * RFC 1624 eqn 3, HC' = ~(~HC + ~m + m'): patch checksum `csum` for the
 * 16-bit word m changing to m', all three as stored in the packet. Corner:
 * a message all zero sums to +0, so its checksum is ~(+0) = 0xffff, where
 * eqn 3 yields the other zero, 0x0000; the caller knows whether its
 * message can be all zero (ipv4_reply).
 */
static __always_inline __u16 csum_replace16(__u16 csum, __u16 m, __u16 m1)
{
	return (__u16)~csum_fold((__u64)(__u16)~csum + (__u16)~m + m1);
}

#endif /* XDPONG_BPF_CSUM_H */
