/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A time in ns split into the two words of an NTP 64-bit timestamp (RFC
 * 5905 6), without a division where the kernel's JIT keeps one: STAMP's
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
 */
static __always_inline __u32 ntp_frac(__u64 ns)
{
	__u64 f = (ns * XP_NTP_FRAC_K) >> 30;

	if ((f + 1) * XP_NS_PER_S <= ns << 32)
		f++;
	return (__u32)f;
}

/* A time in ns, as whole seconds and the ns past them (< 10^9). */
struct ns_split {
	__u64 sec;
	__u64 ns;
};

/* t split with one division. */
static __always_inline struct ns_split ns_split(__u64 t)
{
	struct ns_split s = { .sec = t / XP_NS_PER_S };

	s.ns = t - s.sec * XP_NS_PER_S;
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
