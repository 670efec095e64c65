// SPDX-License-Identifier: GPL-2.0
/*
 * Cost harness for xdpong: the product's program for one frame,
 * xdpong_packet() from bpf/echo.h, compiled with the product's flags, in a
 * wrapper that turns each reply back into the request. BPF_PROG_TEST_RUN
 * with a repeat count does not restore the packet, so without this every
 * run after the first would time the "not an echo request" path. The
 * turn-around's own cost is measured separately (reflect.bpf.c,
 * bench_turn) and subtracted. What xdpong passes is not turned around: it
 * is left as it was. Built with -DBENCH_LEAVE_OUT, it runs the program
 * without one part instead (leave_out.h).
 */
#include "../../bpf/echo.h"
#include "bench.h"
#include "turnaround.h"
#include "kfold.h"
#include "leave_out.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline int xdpong_turned(struct xdp_md *ctx)
{
	int verdict = bench_under_test(ctx);

	if (verdict == XDP_TX)
		ta_turn_frame(ctx);
	return verdict;
}

SEC("xdp")
int bench_xdpong_cost(struct xdp_md *ctx)
{
	return xdpong_turned(ctx);
}

/* K times per test-run iteration (kfold.h), for the sub-ns figures. */
KFOLD_PROGRAM(bench_xdpong_cost_k, xdpong_turned)

/*
 * One checksum pass as xdpong makes it (sum_message: the path the
 * 1500-byte echo takes) over the bytes a 1500-byte request adds beyond a
 * 98-byte one: BENCH_SUM_EXTRA bytes from where the 98-byte request's
 * message ends, at the same alignment. Run on the 1514-byte frame, which
 * it leaves as it is; the sum is kept so no part of it can be dropped.
 */
__s64 bench_sum_out;

static __always_inline int body_sum_extra(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__s64 sum = sum_message(ctx, data + BENCH_FRAME_LEN, end, BENCH_FRAME_LEN, BENCH_SUM_EXTRA,
				false);

	bench_sum_out = sum;
	return sum < 0 ? XDP_DROP : XDP_PASS;
}

KFOLD_PROGRAM(bench_sum_extra_k, body_sum_extra)

/*
 * The STAMP row: the 86-byte STAMP test packet (bench.h) through the
 * harness loaded with --stamp's port. Its reply cannot be turned back by
 * arithmetic (T2 and T3 overwrite the sender's Timestamp), so the request,
 * which cost.c saves in bench_stamp_req, is copied back over the frame
 * after each reply; the copy alone (bench_stamp_restore_k) is timed on the
 * same packet and subtracted, as the echo's turn-around is.
 */
__u64 bench_stamp_req[BENCH_STAMP_WORDS + 1];

static __always_inline int stamp_restore(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u64 *words = data;

	_Static_assert(BENCH_STAMP_FRAME_LEN == BENCH_STAMP_WORDS * 8 + 6, "stamp_restore");
	if (data + BENCH_STAMP_FRAME_LEN > end)
		return XDP_ABORTED;
	for (int i = 0; i < BENCH_STAMP_WORDS; i++)
		words[i] = bench_stamp_req[i];
	__builtin_memcpy(data + BENCH_STAMP_WORDS * 8, &bench_stamp_req[BENCH_STAMP_WORDS], 6);
	return XDP_TX;
}

static __always_inline int xdpong_stamp_turned(struct xdp_md *ctx)
{
	int verdict = bench_under_test(ctx);

	if (verdict == XDP_TX)
		stamp_restore(ctx);
	return verdict;
}

KFOLD_PROGRAM(bench_xdpong_stamp_k, xdpong_stamp_turned)
KFOLD_PROGRAM(bench_stamp_restore_k, stamp_restore)
