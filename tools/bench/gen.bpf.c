// SPDX-License-Identifier: GPL-2.0
/*
 * Live-frames generator, run by BPF_PROG_TEST_RUN with
 * BPF_F_TEST_XDP_LIVE_FRAMES on the sender's veth: every XDP_TX is a real
 * transmission to the responder. One syscall per trial, ended by a signal;
 * pacing happens here, by dropping the frames that are not due yet (one
 * generator at a time: the schedule is shared).
 */
#define BPF_NO_PRESERVE_ACCESS_INDEX /* packet headers only: as bpf/wire.h */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bench.h"

char LICENSE[] SEC("license") = "GPL";

/* A late generator catches up by at most this many frames (a quarter of
 * the veth ring), then restarts its schedule. */
#define GEN_MAX_CATCH_UP 64

/* The request, rewritten into every frame: pages come back as the
 * responder and the sink left them (often holding a reply). The echo
 * request, or with gen_stamp set the shorter STAMP test packet, whose
 * last 6 bytes are the first 6 of gen_frame_tail6. */
__u64 gen_frame[BENCH_FRAME_WORDS] = {};
__u16 gen_frame_tail = 0;
__u8 gen_frame_tail6[6] = {};
__u32 gen_stamp = 0;
__u64 gen_interval_ns = 0; /* 0: send every frame the loop offers */
__u64 gen_next_ns = 0;

/* Frames sent, per CPU: one generator per CPU in the multi-queue layout. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} gen_sent SEC(".maps");

SEC("xdp")
int bench_gen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u64 *words = data, *sent;
	__u32 key = 0;

	if (gen_interval_ns) {
		__u64 now = bpf_ktime_get_ns();

		if (now < gen_next_ns)
			return XDP_DROP;
		if (now - gen_next_ns > GEN_MAX_CATCH_UP * gen_interval_ns)
			gen_next_ns = now;
		gen_next_ns += gen_interval_ns;
	}
	if (gen_stamp) {
		if (data + BENCH_STAMP_FRAME_LEN > end)
			return XDP_ABORTED;
		for (int i = 0; i < BENCH_STAMP_WORDS; i++)
			words[i] = gen_frame[i];
		__builtin_memcpy(data + BENCH_STAMP_WORDS * 8, gen_frame_tail6, 6);
	} else {
		if (data + BENCH_FRAME_LEN > end)
			return XDP_ABORTED;
		for (int i = 0; i < BENCH_FRAME_WORDS; i++)
			words[i] = gen_frame[i];
		*(__u16 *)(data + BENCH_FRAME_WORDS * 8) = gen_frame_tail;
	}
	sent = bpf_map_lookup_elem(&gen_sent, &key);
	if (sent)
		(*sent)++;
	return XDP_TX;
}
