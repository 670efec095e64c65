/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cost breakdown's builds (tools/bench/README.md): xdpong's program
 * composed from its own steps and checks (bpf/echo.h) without one part,
 * to time what the part costs. bench.mk compiles xdpong_cost.bpf.c once
 * per part with -DBENCH_LEAVE_OUT=BENCH_PART_...; without it, the harness
 * runs xdpong_packet() itself. Parts are left out of IPv4 only: the
 * breakdown times the 98-byte IPv4 echo, and IPv6 stays the product's.
 * Include after bpf/echo.h.
 */
#ifndef XDPONG_BENCH_LEAVEOUT_H
#define XDPONG_BENCH_LEAVEOUT_H

#define BENCH_PART_CHECKS 0x01   /* header, length and source checks */
#define BENCH_PART_CSUM 0x02     /* the IPv4 header and ICMP checksums verified */
#define BENCH_PART_ADDRS 0x04    /* own-address lookups (lists, tries) */
#define BENCH_PART_COUNTERS 0x08 /* the per-reason counters */
#define BENCH_PART_LATENCY 0x10  /* latency sampling */
#define BENCH_PART_GEN 0x20      /* the generation check (xdpong_active) */
#define BENCH_PART_TRACE 0x40    /* the trace flag */
#define BENCH_PART_LIMITS 0x80   /* the limits' check (off by default) */
#define BENCH_PART_ALL 0xff

#ifdef BENCH_LEAVE_OUT
#define KEEP(part) (!(BENCH_LEAVE_OUT & (part)))

/* One of handle_ipv4's checks, where its part is kept. */
#define CHECK(part, check) (!KEEP(part) || (check))

/* handle_ipv4() without the part: its checks, in its order. */
static __always_inline __u32 bench_ipv4(const struct l3_frame *f)
{
	struct v4_req q = {};
	__u32 why;
	__u8 s0;

	if (!ipv4_icmp(f, &q, &why) || !CHECK(BENCH_PART_CHECKS, ipv4_valid(f, &q, &why)) ||
	    !ipv4_extent(f, &q, &why) || !CHECK(BENCH_PART_CHECKS, ipv4_kernels(&q, &why)) ||
	    !CHECK(BENCH_PART_ADDRS, ipv4_dst_ours(&q, &why)) ||
	    !CHECK(BENCH_PART_CHECKS, ipv4_icmp_len_ok(&q, &why)) ||
	    !ipv4_echo_request(f, &q, &why))
		return why;
	if (KEEP(BENCH_PART_LATENCY))
		*f->t0 = latency_start(f->counters, REASON(reply_echo4));
	s0 = ((__u8 *)&q.ip->saddr)[0];
	if (!CHECK(BENCH_PART_CSUM, ipv4_header_csum(&q, &why)) ||
	    !CHECK(BENCH_PART_CHECKS, ipv4_src_valid(&q, s0, &why)) ||
	    !CHECK(BENCH_PART_ADDRS, ipv4_src_not_own(&q, &why)) ||
	    !icmp_len_summable(q.icmp_len, &why) ||
	    !CHECK(BENCH_PART_CSUM, ipv4_icmp_csum(f, &q, &why)))
		return why;
	why = KEEP(BENCH_PART_LIMITS) ? rate_check(4, &q.ip->saddr) : 0;
	if (why)
		return why;
	return ipv4_reply(&q);
}

/* xdpong_packet() without the part: its steps, in its order. */
static __always_inline int bench_under_test(struct xdp_md *ctx)
{
	__u64 t0 = 0, service_ns = 0;
	__u64 *counters = NULL;
	__u32 key = 0, reason;

	if (KEEP(BENCH_PART_GEN) && stood_down())
		return XDP_PASS;
	carry_maps_own();
	if (KEEP(BENCH_PART_COUNTERS))
		counters = bpf_map_lookup_elem(&xdpong_stats, &key);
	reason = frame_handle(ctx, &t0, counters, bench_ipv4, handle_ipv6);
	reason = count_reason(counters, reason);
	if (t0 && reason < XDPONG_R_FIRST_PASSED)
		service_ns = latency_record(t0);
	if (KEEP(BENCH_PART_TRACE) && trace_enabled)
		trace_emit(ctx, reason, service_ns);
	return reason_action(reason);
}
#else
/* The product as it ships. */
static __always_inline int bench_under_test(struct xdp_md *ctx)
{
	return xdpong_packet(ctx);
}
#endif

#endif /* XDPONG_BENCH_LEAVEOUT_H */
