// SPDX-License-Identifier: GPL-2.0
/*
 * Cost harness for xdpong: the product's program, compiled from
 * bpf/xdpong.bpf.c unchanged, inlined into a wrapper that turns each reply
 * back into the request. BPF_PROG_TEST_RUN with a repeat count does not
 * restore the packet, so without this every run after the first would time
 * the "not an echo request" path. The turn-around's own cost is measured
 * separately (reflect.bpf.c, bench_turn) and subtracted. What xdpong
 * passes is not turned around: it is left as it was.
 */
/*
 * The product's entry point becomes an inlined static function: no
 * section of its own (a second section attribute is ignored by clang 19,
 * which keeps the first: libbpf then refuses a static program).
 */
#define XDPONG_PROG_SEC
#define XDPONG_NO_TX_WATCH
#define xdpong static __always_inline xdpong_under_test
#include "../../bpf/xdpong.bpf.c"
#undef xdpong

#include "bench.h"
#include "turnaround.h"
#include "kfold.h"

static __always_inline int xdpong_turned(struct xdp_md *ctx)
{
	int verdict = xdpong_under_test(ctx);

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
