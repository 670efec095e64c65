/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rate limits as the program's rodata (bpf/xdpong.bpf.c,
 * xdpong_rate_check; xdpong(8) says what they guarantee). Shared by the
 * loader and the unit tests, which configure the program the same way.
 */
#ifndef XDPONG_RATELIMIT_H
#define XDPONG_RATELIMIT_H

#include <linux/types.h>

struct xdpong_bpf__rodata;

/*
 * Set the per-source (rate_pps, rate_burst) and global (global_pps,
 * global_burst) limits in ro, before load; a pps of 0 leaves that limit
 * off. ncpu: the CPUs that may run the program (possible CPUs). Each
 * limit's shared state is taken in batches of up to limits_batch() cells
 * per CPU, and what the CPUs may hold so is taken off the shared burst,
 * so that all CPUs together stay within pps and burst. Also draws the
 * seed of the per-source slots' hash.
 */
void limits_configure(struct xdpong_bpf__rodata *ro, unsigned long long rate_pps,
		      unsigned long long rate_burst, unsigned long long global_pps,
		      unsigned long long global_burst, int ncpu);

/* One limit's rodata, through pointers to its four variables: for
 * objects other than the product's that compile its program in
 * (tools/bench/xdpong_cost.bpf.c). */
void limits_set_one(unsigned long long pps, unsigned long long burst, int ncpu,
		    volatile __u64 *cost, volatile __u64 *tolerance, volatile __u32 *batch,
		    volatile __u64 *held);

/* A seed for the hash that picks a source's slot on a CPU (cfg_rl_seed). */
__u64 limits_seed(void);

/* Cells a CPU takes at once from a limit of burst on ncpu CPUs:
 * burst / (4 ncpu), from 1 to XDPONG_RL_BATCH_MAX. */
unsigned int limits_batch(unsigned long long burst, int ncpu);

#endif /* XDPONG_RATELIMIT_H */
