/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the benchmark's BPF programs (tools/bench/, the .bpf.c files) and its
 * driver. Includes nothing: the includer provides __u8..__u64.
 */
#ifndef XDPONG_BENCH_H
#define XDPONG_BENCH_H

/* Ethernet + IPv4 + ICMP echo with ping's default 56 data bytes. */
#define BENCH_FRAME_LEN 98
#define BENCH_FRAME_WORDS (BENCH_FRAME_LEN / 8) /* 12 words + a 2-byte tail */

/*
 * A STAMP test packet (RFC 8762 4.2.1, unauthenticated): Ethernet + IPv4 +
 * UDP + the 44-byte base packet, to the STAMP port (RFC 8762 4.1), the
 * generator's other frame (10 words + a 6-byte tail).
 */
#define BENCH_STAMP_PORT 862
#define BENCH_STAMP_LEN 44
#define BENCH_STAMP_FRAME_LEN (14 + 20 + 8 + BENCH_STAMP_LEN)
#define BENCH_STAMP_WORDS (BENCH_STAMP_FRAME_LEN / 8)
/* Where a reply's T3 and T2 are in its base packet (RFC 8762 4.3.1). */
#define BENCH_STAMP_T3 4
#define BENCH_STAMP_T2 16

/*
 * The sink's samples of the residence time T3 - T2 that STAMP replies
 * report: 1 reply in BENCH_RES_EVERY per CPU, in a ring of BENCH_RES_N
 * slots (powers of two), each the time in ns plus 1 (0: an empty slot).
 */
#define BENCH_RES_N 16384
#define BENCH_RES_EVERY 64

/*
 * The cost harness's K-fold programs (kfold.h) run the program under test
 * this many times per test-run iteration, so the kernel's whole-ns average
 * resolves 1/K ns of the program's own time.
 */
#define BENCH_COST_K 16

/*
 * The bytes of ICMP message a 1500-byte IPv4 echo request (1514-byte
 * frame) has beyond the 98-byte frame's 84-byte request: each sums its
 * whole message, so this is what the larger one adds to the checksum pass.
 */
#define BENCH_SUM_EXTRA (1500 - (BENCH_FRAME_LEN - 14))

/* Value of the sink's per-CPU array (one entry, key 0). */
struct bench_sink_counters {
	__u64 replies; /* ICMP and ICMPv6 echo replies, STAMP replies */
	__u64 other;   /* anything else (ARP, stray requests): passed */
};

#endif /* XDPONG_BENCH_H */
