/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rate limits as the program's rodata (bpf/xdpong.bpf.c,
 * xdpong_rate_check; xdpong(8) says what they guarantee). Shared by the
 * loader and the unit tests, which configure the program the same way.
 */
#ifndef XDPONG_LIMITS_H
#define XDPONG_LIMITS_H

struct xdpong_bpf__rodata;

/*
 * Set the per-source (rate_pps, rate_burst) and global (global_pps,
 * global_burst) limits in ro, before load; a pps of 0 leaves that limit
 * off. ncpu: the CPUs that may run the program (possible CPUs). Each
 * limit's shared state is taken in batches of up to limits_batch() cells
 * per CPU, and what the CPUs may hold so is taken off the shared burst,
 * so that all CPUs together stay within pps and burst.
 */
void limits_configure(struct xdpong_bpf__rodata *ro, unsigned long long rate_pps,
		      unsigned long long rate_burst, unsigned long long global_pps,
		      unsigned long long global_burst, int ncpu);

/* Cells a CPU takes at once from a limit of burst on ncpu CPUs:
 * burst / (4 ncpu), from 1 to XDPONG_RL_BATCH_MAX. */
unsigned int limits_batch(unsigned long long burst, int ncpu);

#endif /* XDPONG_LIMITS_H */
