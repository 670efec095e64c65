/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-source and global rate limits (xdpong(8): --rate-limit,
 * --global-limit), both off unless configured: GCRA on state the CPUs
 * share, whose cells each CPU takes in batches and spends alone.
 * rate_check() is the one entry.
 */
#ifndef XDPONG_BPF_RATELIMIT_H
#define XDPONG_BPF_RATELIMIT_H

#include "state.h"

/*
 * The limits' clock. A clock read costs about as much as the rest of a
 * reply on some machines (kvm-clock), so each CPU reads it at most once per
 * timer tick, and only when it takes cells: while jiffies (an inlined load)
 * has not moved, the time read in this tick stands. It lags by less than
 * a tick (1 to 10 ms), which only delays a cell; before refusing, the
 * limits read the exact time.
 */
struct rl_time {
	__u64 now;
	bool read;  /* now is this packet's time */
	bool exact; /* ... read from the clock, not this tick's */
};

static __always_inline void clock_exact(struct xdpong_rl_cpu *c, struct rl_time *t)
{
	c->clock_jiffies = bpf_jiffies64();
	c->clock_ns = bpf_ktime_get_ns();
	t->now = c->clock_ns;
	t->read = t->exact = true;
}

static __always_inline void clock_tick(struct xdpong_rl_cpu *c, struct rl_time *t)
{
	if (t->read)
		return;
	if (bpf_jiffies64() != c->clock_jiffies) {
		clock_exact(c, t);
		return;
	}
	t->now = c->clock_ns;
	t->read = true;
}

/*
 * Generic cell rate algorithm on a limit's shared state *tat: up to batch
 * cells at once, as many as conform at now (a batch conforms when its
 * last cell would, one by one). 0 when none does, with *retry set to when
 * one will. A refusal only reads *tat: the shared cache line is written
 * once per batch.
 */
static __always_inline __u64 gcra_take(__u64 *tat, __u64 now, __u64 cost, __u64 tolerance,
				       __u32 batch, __u64 *retry)
{
#ifdef XDPONG_NO_CMPXCHG
	/*
	 * The build for kernels without atomic compare-and-exchange (5.12),
	 * whose verifier refuses the instruction even where it is never
	 * reached: the loader refuses the limits there, so this never runs.
	 */
	return 1;
#else
	for (int i = 0; i < 4; i++) {
		__u64 old = *(volatile __u64 *)tat;
		__u64 t = old > now ? old : now, n;

		if (t - now > tolerance) {
			*retry = t - tolerance;
			return 0;
		}
		n = (tolerance - (t - now)) / cost + 1;
		if (n > batch)
			n = batch;
		if (__sync_val_compare_and_swap(tat, old, t + n * cost) == old)
			return n;
	}
	return 0; /* lost the race four times: the limit is being hit */
#endif
}

/* A limit as configured (rodata). */
struct limit {
	__u64 cost, tolerance; /* of the shared state: the burst less what CPUs hold */
	__u32 batch;
};

/*
 * One cell of a limit when this CPU holds none (*cl): a batch from the
 * shared state (*tat). The exact time is read before any refusal. Off the
 * usual path: a CPU takes cells once per batch.
 */
static __always_inline bool cells_take(struct xdpong_rl_cpu *c, struct xdpong_rl_cells *cl,
				       __u64 *tat, const struct limit *lim, struct rl_time *t)
{
	__u64 n;

	clock_tick(c, t);
	if (t->now < cl->retry_ns) {
		if (t->exact)
			return false;
		clock_exact(c, t);
		if (t->now < cl->retry_ns)
			return false;
	}
	n = gcra_take(tat, t->now, lim->cost, lim->tolerance, lim->batch, &cl->retry_ns);
	if (!n && !t->exact) {
		clock_exact(c, t);
		n = gcra_take(tat, t->now, lim->cost, lim->tolerance, lim->batch, &cl->retry_ns);
	}
	if (!n)
		return false;
	cl->cells = n - 1;
	return true;
}

#ifndef XDPONG_NO_CMPXCHG
/* Give back cells a CPU took from a limit's shared state and did not send. */
static __always_inline void gcra_give(__u64 *tat, __u64 ns)
{
	for (int i = 0; i < 4; i++) {
		__u64 old = *(volatile __u64 *)tat;

		if (old < ns || __sync_val_compare_and_swap(tat, old, old - ns) == old)
			return;
	}
}
#endif

/*
 * This CPU's slot for a source: a direct-mapped cache keyed by a hash of
 * the source with a secret seed. A source that takes the slot of another
 * gives what the other held back to its shared state: nothing is lost.
 */
static __always_inline struct xdpong_rl_slot *source_slot(struct xdpong_rl_cpu *c, __u32 family,
							  __u64 prefix)
{
	__u64 h = ((prefix ^ cfg_rl_seed) + family) * 0x9e3779b97f4a7c15ULL;
	struct xdpong_rl_slot *slot = &c->src[h >> (64 - XDPONG_RL_SLOTS_LOG2)];

	if (slot->addr == prefix && slot->family == family)
		return slot;
#ifndef XDPONG_NO_CMPXCHG
	if (slot->cl.cells) {
		struct xdpong_rl_key old = { .family = slot->family };
		__u64 *tat;

		__builtin_memcpy(old.addr, &slot->addr, 8);
		tat = bpf_map_lookup_elem(&xdpong_ratelim, &old);
		if (tat)
			gcra_give(tat, slot->cl.cells * cfg_rate_cost_ns);
	}
#endif
	slot->addr = prefix;
	slot->family = family;
	slot->cl.cells = 0;
	slot->cl.retry_ns = 0;
	return slot;
}

/* The per-source limit's shared state for a source, and cells from it into *cl. */
static __always_inline bool source_take(struct xdpong_rl_cpu *c, struct xdpong_rl_cells *cl,
					__u32 family, __u64 prefix, struct rl_time *t)
{
	struct limit lim = { .cost = cfg_rate_cost_ns,
			     .tolerance = cfg_rate_tolerance_ns - cfg_rate_held_ns,
			     .batch = cfg_rate_batch };
	struct xdpong_rl_key key = { .family = family };
	__u64 *tat, zero = 0;

	__builtin_memcpy(key.addr, &prefix, 8);
	tat = bpf_map_lookup_elem(&xdpong_ratelim, &key);
	if (!tat) {
		/* 0: idle for ever, a whole burst to take. Another CPU's
		 * insert first is as good as this one. */
		bpf_map_update_elem(&xdpong_ratelim, &key, &zero, BPF_NOEXIST);
		tat = bpf_map_lookup_elem(&xdpong_ratelim, &key);
		if (!tat)
			return false;
	}
	return cells_take(c, cl, tat, &lim, t);
}

/* The per-source limit for one source (IPv4 /32, IPv6 /64), on this CPU. */
static __always_inline bool source_allow(struct xdpong_rl_cpu *c, __u32 family, __u64 prefix,
					 struct rl_time *t)
{
	struct xdpong_rl_cells *cl;

	if (cfg_rate_batch <= 1) { /* no batches: every cell from the shared state */
		struct xdpong_rl_cells one = { 0 };

		return source_take(c, &one, family, prefix, t);
	}
	/* The usual way: a cell this CPU holds. */
	cl = &source_slot(c, family, prefix)->cl;
	if (cl->cells) {
		cl->cells--;
		return true;
	}
	return source_take(c, cl, family, prefix, t);
}

/* The global limit, on this CPU. */
static __always_inline bool global_allow(struct xdpong_rl_cpu *c, struct rl_time *t)
{
	struct limit lim;

	/* The usual way: a cell this CPU holds. */
	if (c->global.cells) {
		c->global.cells--;
		return true;
	}
	lim.cost = cfg_global_cost_ns;
	lim.tolerance = cfg_global_tolerance_ns - cfg_global_held_ns;
	lim.batch = cfg_global_batch;
	return cells_take(c, &c->global, &global_limit.tat_ns, &lim, t);
}

/*
 * Per-source and global limits (both off unless configured). A global
 * function: the verifier checks it once, not once per packet-parsing path.
 * Each limit's state is shared by the CPUs, which take its cells in
 * batches and send them alone (xdpong(8): --rate-limit, --global-limit);
 * a request that a cell this CPU holds pays for reads neither the clock
 * nor the shared state.
 */
__noinline __u32 xdpong_rate_check(__u32 family, __u64 src_prefix)
{
	struct rl_time t = { 0 };
	struct xdpong_rl_cpu *c;
	__u32 zero = 0;

	if (!cfg_rate_cost_ns && !cfg_global_cost_ns)
		return 0;
	c = bpf_map_lookup_elem(&xdpong_rlcpu, &zero);
	if (!c) /* cannot happen (a one-entry array) */
		return cfg_global_cost_ns ? REASON(drop_global_limited) : REASON(drop_rate_limited);
	if (cfg_rate_cost_ns && !source_allow(c, family, src_prefix, &t))
		return REASON(drop_rate_limited);
	if (cfg_global_cost_ns && !global_allow(c, &t))
		return REASON(drop_global_limited);
	return 0;
}

static __always_inline __u32 rate_check(__u32 family, const void *src)
{
	__u64 prefix = 0;

	/* Off (the default): frozen rodata makes the call dead code. */
	if (!cfg_rate_cost_ns && !cfg_global_cost_ns)
		return 0;
	/* IPv4 by /32, IPv6 by /64: one host's worth of addresses. */
	if (family == 4)
		__builtin_memcpy(&prefix, src, 4);
	else
		__builtin_memcpy(&prefix, src, 8);
	return xdpong_rate_check(family, prefix);
}

#endif /* XDPONG_BPF_RATELIMIT_H */
