/* SPDX-License-Identifier: GPL-2.0 */
/*
 * K-fold programs for the cost harness (cost.c): KFOLD_PROGRAM(name, fn)
 * defines the XDP program `name`, which calls fn(ctx) BENCH_COST_K times
 * through bpf_loop() and returns the last verdict.
 *
 * Why: BPF_PROG_TEST_RUN reports its average in whole nanoseconds, and a
 * floor of a few ns makes a ratio target jump by a large step per ns. The
 * difference of two K-fold programs on the same packet, divided by K, is a
 * program's own time to 1/K ns; the loop's cost (bench_null_k: a body that
 * only returns) is subtracted with it. fn runs on the same packet each
 * time: a replying fn must turn the reply around (turnaround.h), a
 * toggling one must be run an even number of times (K is even).
 * Include after vmlinux.h, bpf_helpers.h and bench.h.
 */
#ifndef XDPONG_BENCH_KFOLD_H
#define XDPONG_BENCH_KFOLD_H

struct kfold_ctx {
	struct xdp_md *xdp;
	__u32 verdict;
};

#define KFOLD_PROGRAM(name, fn)                                              \
	static long name##_step(__u32 i, void *data)                         \
	{                                                                    \
		struct kfold_ctx *k = data;                                  \
                                                                             \
		k->verdict = fn(k->xdp);                                     \
		return 0;                                                    \
	}                                                                    \
                                                                             \
	SEC("xdp")                                                           \
	int name(struct xdp_md *ctx)                                         \
	{                                                                    \
		struct kfold_ctx k = { .xdp = ctx, .verdict = XDP_ABORTED }; \
                                                                             \
		bpf_loop(BENCH_COST_K, name##_step, &k, 0);                  \
		return k.verdict;                                            \
	}

#endif /* XDPONG_BENCH_KFOLD_H */
