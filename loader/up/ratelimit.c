// SPDX-License-Identifier: GPL-2.0
/*
 * The rate limits as rodata (up.h). Each limit, per source or global,
 * has one GCRA state shared by the CPUs, from which a CPU takes up to
 * limits_batch() cells (replies) at once and sends them alone: one write
 * to the shared cache line per batch, not per reply. A CPU holds at most
 * batch - 1 cells it has not sent, so the shared state's burst is the
 * limit's less ncpu * (batch - 1): whatever the CPUs hold, the total is
 * what was asked. The batch is a quarter of the burst per CPU at most, so
 * what the CPUs can hold (and a CPU whose traffic moved elsewhere keeps)
 * is under a quarter of the burst.
 */
#include <unistd.h>
#include <sys/random.h>
#include <linux/types.h>
#include "xdpong.h"
#include "up.h"
#include "xdpong.skel.h"

__u64 limits_seed(void)
{
	__u64 seed = 0;

	/* Without it (no entropy yet at early boot, never in practice) the
	 * slots are still right, only guessable. */
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = 0x5851f42d4c957f2dULL ^ (__u64)getpid();
	return seed;
}

unsigned int limits_batch(unsigned long long burst, int ncpu)
{
	unsigned long long k = ncpu > 0 ? burst / (4ULL * (unsigned int)ncpu) : 1;

	if (k < 1)
		return 1;
	return k > XDPONG_RL_BATCH_MAX ? XDPONG_RL_BATCH_MAX : (unsigned int)k;
}

void limits_set_one(unsigned long long pps, unsigned long long burst, int ncpu,
		    volatile __u64 *cost, volatile __u64 *tolerance, volatile __u32 *batch,
		    volatile __u64 *held)
{
	unsigned int k = limits_batch(burst, ncpu);

	*cost = 1000000000ULL / pps;
	*tolerance = (burst - 1) * *cost;
	*batch = k;
	*held = (unsigned long long)(ncpu > 0 ? ncpu : 1) * (k - 1) * *cost;
}

void limits_configure(struct xdpong_bpf__rodata *ro, unsigned long long rate_pps,
		      unsigned long long rate_burst, unsigned long long global_pps,
		      unsigned long long global_burst, int ncpu)
{
	ro->cfg_rl_seed = limits_seed();
	if (rate_pps)
		limits_set_one(rate_pps, rate_burst, ncpu, &ro->cfg_rate_cost_ns,
			       &ro->cfg_rate_tolerance_ns, &ro->cfg_rate_batch,
			       &ro->cfg_rate_held_ns);
	if (global_pps)
		limits_set_one(global_pps, global_burst, ncpu, &ro->cfg_global_cost_ns,
			       &ro->cfg_global_tolerance_ns, &ro->cfg_global_batch,
			       &ro->cfg_global_held_ns);
}
