/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A time in ns split into the two words of an NTP 64-bit timestamp (RFC
 * 5905 6), without the divisions that the kernel's JIT keeps: STAMP's
 * T2 and T3 (stamp.h). Arithmetic only, on the includer's __u64 and
 * __u32 (vmlinux.h, or <linux/types.h> in the unit test that checks it
 * against the division, tests/unit/test_stamp.c).
 */
#ifndef XDPONG_BPF_NTP_H
#define XDPONG_BPF_NTP_H

#define XP_NS_PER_S 1000000000ULL
/* floor(2^62 / 10^9): 4611686018.427..., so 0 <= 2^62 / 10^9 - K < 0.43 */
#define XP_NTP_FRAC_K 4611686018ULL

/*
 * floor(ns * 2^32 / 10^9), the 32-bit binary fraction of a second of ns
 * < 10^9 ns, exact: x = ns * 2^32 / 10^9 is below 2^32, and ns * K / 2^30
 * = x - ns * (2^62 / 10^9 - K) / 2^30, less than x by under
 * 10^9 * 0.43 / 2^30 < 0.41. So f = floor(ns * K / 2^30) is floor(x) or
 * floor(x) - 1, and it is the latter exactly where (f + 1) * 10^9 <= ns *
 * 2^32 (f + 1 <= x). No product overflows: ns * K < 10^9 * 2^33 < 2^63,
 * (f + 1) * 10^9 <= 2^32 * 10^9 < 2^62, ns << 32 < 2^62.
 *
 * Without a branch: the test is the sign of ns * 2^32 - (f + 1) * 10^9,
 * both terms under 2^62, so bit 63 of their 64-bit difference is set
 * exactly where f is floor(x). Which way it goes depends on the ns's low
 * digits, as a branch predictor cannot guess, and BPF has no conditional
 * move: a branch here was a misprediction on a good share of STAMP
 * replies, twice each (T2, T3).
 */
static __always_inline __u32 ntp_frac(__u64 ns)
{
	__u64 f = (ns * XP_NTP_FRAC_K) >> 30;
	__u64 below = ((ns << 32) - (f + 1) * XP_NS_PER_S) >> 63;

	return (__u32)(f + 1 - below);
}

/* A time in ns, as whole seconds and the ns past them (< 10^9). */
struct ns_split {
	__u64 sec;
	__u64 ns;
};

/*
 * t split, without a division below 2^61 ns (the year 2043 from 1970).
 * a = floor(t / 2^30) < 2^31, and a * K / 2^32 (< 2^64) falls short of
 * t / 10^9 by (t mod 2^30) / 10^9 < 1.074 plus a * (2^62 / 10^9 - K) /
 * 2^32 < 2^31 * 0.43 / 2^32 < 0.22: its floor q is one of the whole
 * seconds floor(t / 10^9) - 2 .. floor(t / 10^9), and t - q * 10^9 < 3 *
 * 10^9 is brought under 10^9 by two conditional carries at most.
 */
static __always_inline struct ns_split ns_split(__u64 t)
{
	struct ns_split s;

	if (t >> 61) {
		s.sec = t / XP_NS_PER_S;
		s.ns = t - s.sec * XP_NS_PER_S;
		return s;
	}
	s.sec = ((t >> 30) * XP_NTP_FRAC_K) >> 32;
	s.ns = t - s.sec * XP_NS_PER_S;
	if (s.ns >= XP_NS_PER_S) {
		s.ns -= XP_NS_PER_S;
		s.sec++;
	}
	if (s.ns >= XP_NS_PER_S) {
		s.ns -= XP_NS_PER_S;
		s.sec++;
	}
	return s;
}

/*
 * later, d = later - t ns after t (split as s): s moved on by d, with a
 * carry into the seconds, where d is under a second (unsigned: a clock
 * stepped back between the reads counts as large); else later split anew.
 */
static __always_inline struct ns_split ns_split_after(struct ns_split s, __u64 t, __u64 later)
{
	__u64 d = later - t;

	if (d >= XP_NS_PER_S)
		return ns_split(later);
	s.ns += d; /* < 2 * 10^9: one carry at most */
	if (s.ns >= XP_NS_PER_S) {
		s.ns -= XP_NS_PER_S;
		s.sec++;
	}
	return s;
}

#endif /* XDPONG_BPF_NTP_H */
