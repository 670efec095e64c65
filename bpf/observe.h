/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the program reports of the packets it handles: the count of each
 * reason (xdpong_stats), the service time of sampled replies
 * (xdpong_latency) and, while `xdpong trace` reads, an event per packet
 * (xdpong_trace).
 */
#ifndef XDPONG_BPF_OBSERVE_H
#define XDPONG_BPF_OBSERVE_H

#include "frame.h"

/*
 * Latency sampling, 1 reply in n = cfg_latency_sample and, where n is
 * more than 1, at most one per timer tick on each CPU: the clock read if
 * this echo request is timed, else 0. The request that finds this CPU's
 * count of replies of its family (`replied`, a counter the program keeps
 * anyway) at a multiple of n is timed; where it is not answered, the count
 * has not moved and the next request is, if it comes in a later tick: a
 * timed request takes its tick, answered or not, so that a stream of
 * requests that are never answered (bad checksums), each of which finds
 * the count at the multiple, reads the tick every time but the clock at
 * most once a tick. No per-packet state of its own: a countdown in the
 * latency map would cost a lookup, a load and a store on every echo. A
 * timed packet reads the clock twice, which under kvm-clock costs about as
 * much as the rest of a reply; bounded by the tick, the reads cost at most
 * HZ pairs a second per CPU, whatever the rate, and below HZ * n echoes a
 * second every n-th reply is still timed. The tick (bpf_jiffies64(), an inlined
 * load) is read only by the request the count picks. n is frozen rodata:
 * the verifier keeps the mask or the division, never both.
 */
static __always_inline __u64 latency_start(const __u64 *counters, __u32 replied)
{
	const __u32 n = cfg_latency_sample;
	__u64 *last, tick, done;
	__u32 key = 0;

	if (!n)
		return 0;
	if (n > 1) {
		/* No counters (a lookup that cannot fail, but may): every
		 * request is a candidate, and the tick bounds it. */
		done = counters ? counters[replied] : 0;
		if (!(n & (n - 1)) ? (done & (n - 1)) : (done % n))
			return 0;
		last = bpf_map_lookup_elem(&xdpong_samptick, &key);
		tick = bpf_jiffies64();
		if (!last || *last == tick)
			return 0;
		*last = tick;
	}
	return bpf_ktime_get_ns();
}

/*
 * The packet into this CPU's counters, under its reason: the one exit,
 * every packet counted exactly once. Returns the reason it counted.
 */
static __always_inline __u32 count_reason(__u64 *counters, __u32 reason)
{
	if (counters) {
		/* The bound (it cannot be exceeded) is checked on the very
		 * register that indexes: checked before the lookup, clang 14
		 * kept reason on the stack and reloaded it unchecked, which
		 * the verifier refused. */
		barrier_var(reason);
		if (reason >= XDPONG_R_MAX)
			reason = REASON(drop_truncated);
		counters[reason]++;
	}
	return reason;
}

/* The highest bit set in v (0 for 0 and 1), in halving steps. */
static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

#define LOG2_STEP(n)       \
	if (v >> (n)) {    \
		v >>= (n); \
		r += (n);  \
	}
	LOG2_STEP(32)
	LOG2_STEP(16)
	LOG2_STEP(8)
	LOG2_STEP(4)
	LOG2_STEP(2)
	LOG2_STEP(1)
#undef LOG2_STEP
	return r;
}

/* Time since t0 into the histogram; returns it. */
static __always_inline __u64 latency_record(__u64 t0)
{
	struct xdpong_latency *lat;
	__u64 service_ns;
	__u32 key = 0, slot;

	lat = bpf_map_lookup_elem(&xdpong_latency, &key);
	if (!lat)
		return 0;
	service_ns = bpf_ktime_get_ns() - t0;
	slot = log2_u64(service_ns);
	if (slot >= XDPONG_LAT_SLOTS)
		slot = XDPONG_LAT_SLOTS - 1;
	lat->slots[slot]++;
	lat->sum_ns += service_ns;
	lat->count++;
	return service_ns;
}

/*
 * Without bpf_xdp_load_bytes: the first XDPONG_TRACE_SNAP bytes from l3_off
 * in whole 8-byte words, copied straight from the (one-buffer) frame.
 * Each word is checked on its own: no variable offset for the verifier.
 */
static __always_inline __u32 snap_words(struct xdp_md *ctx, __u32 l3_off, __u8 *dst)
{
	void *p = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u32 n = 0;

	_Static_assert(XDPONG_TRACE_SNAP == 64, "one SNAP_WORD per 8 bytes");
	if (l3_off)
		p += sizeof(struct ethhdr);
#define SNAP_WORD(i)                                                     \
	do {                                                             \
		if (p + 8 * (i) + 8 <= end) {                            \
			__builtin_memcpy(dst + 8 * (i), p + 8 * (i), 8); \
			n = 8 * (i) + 8;                                 \
		}                                                        \
	} while (0)
	SNAP_WORD(0);
	SNAP_WORD(1);
	SNAP_WORD(2);
	SNAP_WORD(3);
	SNAP_WORD(4);
	SNAP_WORD(5);
	SNAP_WORD(6);
	SNAP_WORD(7);
#undef SNAP_WORD
	return n;
}

static __always_inline void trace_emit(struct xdp_md *ctx, __u32 reason, __u64 service_ns)
{
	__u32 l3_off = cfg_framing == XDPONG_FRAMING_IP ? 0 : sizeof(struct ethhdr);
	__u32 len = frame_len(ctx);
	struct xdpong_trace_event *ev;
	__u32 snap = 0;

	ev = bpf_ringbuf_reserve(&xdpong_trace, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&trace_lost, 1);
		return;
	}
	_Static_assert(!(XDPONG_TRACE_SNAP & (XDPONG_TRACE_SNAP - 1)), "a power of two");
	if (len > l3_off)
		snap = len - l3_off > XDPONG_TRACE_SNAP ? XDPONG_TRACE_SNAP : len - l3_off;
	if (snap && cfg_frags) {
		snap = len_1_to(snap, XDPONG_TRACE_SNAP); /* the same value */
		if (bpf_xdp_load_bytes(ctx, l3_off, ev->snap, snap))
			snap = 0;
	} else if (snap) {
		snap = snap_words(ctx, l3_off, ev->snap);
	}
	ev->ts_ns = bpf_ktime_get_ns();
	ev->service_ns = service_ns > 0xffffffff ? 0xffffffff : service_ns;
	ev->frame_len = len;
	ev->reason = reason;
	ev->snap_len = snap;
	ev->ifindex = ctx->ingress_ifindex;
	bpf_ringbuf_submit(ev, 0);
}

#endif /* XDPONG_BPF_OBSERVE_H */
