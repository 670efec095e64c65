/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the program keeps: its configuration, frozen at load (rodata), the
 * variables the loader changes while it runs (.bss), and its maps. The
 * loader reaches them by these names through the skeleton.
 */
#ifndef XDPONG_BPF_STATE_H
#define XDPONG_BPF_STATE_H

#include "wire.h"

/* Set by the loader between open and load (rodata, frozen at load). */
const volatile __u32 cfg_framing = XDPONG_FRAMING_ETH;
const volatile __u32 cfg_latency_sample = 64;     /* time 1 packet in N; 0: never */
const volatile __u8 cfg_check_mac = 0;            /* pass frames for other MACs */
const volatile __u64 cfg_rate_cost_ns = 0;        /* per source: 1e9/PPS; 0: off */
const volatile __u64 cfg_rate_tolerance_ns = 0;   /* (BURST - 1) * cost */
const volatile __u64 cfg_global_cost_ns = 0;      /* all sources: 1e9/PPS */
const volatile __u64 cfg_global_tolerance_ns = 0; /* (BURST - 1) * cost */
/* Cells a CPU takes from a limit's shared state at once (1: one per
 * reply), and what all CPUs may hold so, in ns of cost: the shared state's
 * tolerance is the limit's less that (loader/up/ratelimit.c). */
const volatile __u32 cfg_rate_batch = 1;
const volatile __u64 cfg_rate_held_ns = 0;
const volatile __u32 cfg_global_batch = 1;
const volatile __u64 cfg_global_held_ns = 0;
/* Keys the hash that picks a source's slot on a CPU (drawn at load), so
 * that no one can aim sources at one slot. */
const volatile __u64 cfg_rl_seed = 0;
const volatile __u8 cfg_never = 0; /* always 0: see carry_maps_own() */
/* The interface this program serves, for the XDP_TX failure count (an
 * ifindex is only unique within its network namespace). */
const volatile __u32 cfg_ifindex = 0;
const volatile __u32 cfg_netns_ino = 0;
/* This load's generation, nonzero and unique (the loader draws it): see
 * xdpong_active. */
const volatile __u64 cfg_gen = 0;
/*
 * Multi-buffer XDP (5.18: the frags flag, bpf_xdp_load_bytes,
 * bpf_xdp_get_buff_len). The loader clears it where the kernel lacks them
 * (loader/core/probe.c); every use of those helpers is behind it, so the
 * verifier, which knows a frozen rodata value, never walks to a helper
 * the kernel does not have. Every frame is then one buffer.
 */
const volatile __u8 cfg_frags = 1;
/*
 * STAMP reflection (stamp.h): the UDP port, 0 for off (the default: the
 * verifier, which knows the frozen value, then removes the whole path,
 * so that no packet runs it), and the clock it reads (enum
 * xdpong_stamp_clock; TAI only where the kernel has the helper, probed).
 */
const volatile __u16 cfg_stamp_port = 0;
const volatile __u8 cfg_stamp_clock = XDPONG_STAMP_CLOCK_MONO;
/* --stamp-driver: this is the device-bound build that takes T2 from the
 * driver (bpf/rxts.h), and the NIC's PTP hardware clock (/dev/ptpN), -1
 * if it has none. Only status reads them; the program knows by its build. */
const volatile __u8 cfg_stamp_driver = 0;
const volatile __s32 cfg_stamp_phc = -1;

/* Changed at run time through the .bss map (mmap, one field at a time). */
volatile __u32 trace_enabled = 0; /* `xdpong trace` is reading */
/* The interface's MAC in the first 6 bytes, zero-padded. One aligned 8-byte
 * word, so `xdpong run` can follow a MAC change without a torn read. */
volatile __u64 if_mac = 0;
/* The interface's own addresses, exact (include/xdpong.h): the loader
 * writes the copy not in use, then switches own_addrs_cur. */
struct xdpong_own_addrs own_addrs[2];
volatile __u32 own_addrs_cur = 0; /* 1, 2: own_addrs[cur - 1]; 0: none */
__u64 trace_lost = 0;             /* events the ring buffer had no room for */
/*
 * STAMP's clock (written by the loader, which keeps it in step): added to
 * cfg_stamp_clock's reading it gives UTC, ns since 1970 (the TAI offset
 * taken away, or the real time clock's lead over the monotonic one); and
 * the reflector's Error Estimate (RFC 4656 4.1.2: S, Z, scale and
 * multiplier, as a host-order word), 0 until the loader writes it.
 */
volatile __s64 stamp_clock_off_ns = 0;
volatile __u32 stamp_errest = 0;
/*
 * With --stamp-driver (bpf/rxts.h): added to a receive timestamp of the
 * NIC's clock it gives UTC, ns since 1970; used only while stamp_phc_ok
 * is nonzero (the loader has read the NIC's clock against the system's).
 */
volatile __s64 stamp_phc_off_ns = 0;
volatile __u32 stamp_phc_ok = 0;
/* Written by the loader once attached, never read here: this program's id
 * (low half) and the id the interface shows (high half: itself, or its
 * dispatcher). A loader without CAP_SYS_ADMIN finds xdpong by its pins,
 * and tells them live from stale by this word (loader/core/attachment.c). */
volatile __u64 self_ids = 0;
/*
 * GCRA state of the global limit, shared by the CPUs, which write it once
 * per batch of cells: alone on its cache line, so that those writes do
 * not take the variables above, read for every packet, out of the other
 * CPUs' caches.
 */
struct {
	__u64 tat_ns;
	__u64 pad[7];
} global_limit __attribute__((aligned(64))) = {};
/*
 * With --stamp-driver, the T2s taken from the driver's timestamp and
 * those from the system clock (the driver gave none, or no offset to UTC
 * is known): alone on their cache line, as global_limit is, and written
 * only by that build.
 */
struct {
	__u64 driver;
	__u64 system;
	__u64 pad[6];
} stamp_t2_count __attribute__((aligned(64))) = {};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpong_counters);
} xdpong_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpong_latency);
} xdpong_latency SEC(".maps");

/*
 * The tick each CPU last timed an echo in (latency_start). Not pinned and
 * not carried at a takeover, as xdpong_rlcpu: a new program's CPUs may
 * time one echo sooner, never more than one a tick after that.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} xdpong_samptick SEC(".maps");

/* The addresses and prefixes answered for, one trie a family, each with
 * its origin (include/xdpong.h): the longest prefix holding an address.
 * The loader sets their size before load (--max-prefixes). */
#define XP_ADDR_TRIE(key_type)                                \
	struct {                                              \
		__uint(type, BPF_MAP_TYPE_LPM_TRIE);          \
		__uint(max_entries, XDPONG_PREFIXES_DEFAULT); \
		__uint(map_flags, BPF_F_NO_PREALLOC);         \
		__type(key, key_type);                        \
		__type(value, struct xdpong_addr_info);       \
	}
XP_ADDR_TRIE(struct xdpong_addr4_key) xdpong_addr4 SEC(".maps");
XP_ADDR_TRIE(struct xdpong_addr6_key) xdpong_addr6 SEC(".maps");
#undef XP_ADDR_TRIE

/* GCRA theoretical arrival time per source (IPv4 /32, IPv6 /64), shared
 * by the CPUs, which take cells from it in batches (xdpong_rlcpu). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct xdpong_rl_key);
	__type(value, __u64);
} xdpong_ratelim SEC(".maps");

/*
 * The limits' per-CPU state: each CPU's clock and the cells it holds, of
 * the global limit and of up to XDPONG_RL_SLOTS sources. Not pinned, and
 * not carried over at a takeover: the new program's CPUs start holding no
 * cells, which can only answer less, never more.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpong_rl_cpu);
} xdpong_rlcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} xdpong_trace SEC(".maps");

/*
 * Counts carried over from a program this one replaced whose maps had
 * another layout (an upgrade: loader/takeover.c). Written only by the
 * loader, never here; every reader adds them to the per-CPU counters.
 * Not per-CPU: one writer, and the values only grow at a takeover.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpong_counters);
} xdpong_carry SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpong_latency);
} xdpong_latcarry SEC(".maps");

/* Written by the tracepoint programs (bpf/xdpong.bpf.c). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpong_tx_counters);
} xdpong_txfail SEC(".maps");

/*
 * Which xdpong acts while two share one libxdp dispatcher chain, during a
 * takeover inside it (loader/up/chain.c): 0, every one; else only the one
 * whose cfg_gen it holds. Another passes every frame on, uncounted, so no
 * frame is answered or counted twice. Shared by the two (reused at the
 * takeover: its layout never changes), written only by the loader.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} xdpong_active SEC(".maps");

/* Whether this program steps aside for another in the chain. */
static __always_inline bool stood_down(void)
{
	__u32 key = 0;
	__u64 *active = bpf_map_lookup_elem(&xdpong_active, &key);

	return active && *active && *active != cfg_gen;
}

/*
 * Readers find the maps through the attached program's map ids, which
 * list only the maps its instructions name. This names the carry maps
 * and the XDP_TX failure count
 * behind a branch on frozen rodata that is never taken: the verifier
 * removes it, so it costs nothing per packet.
 */
static __always_inline void carry_maps_own(void)
{
	__u32 key = 0;

	if (cfg_never) {
		bpf_map_lookup_elem(&xdpong_carry, &key);
		bpf_map_lookup_elem(&xdpong_latcarry, &key);
		bpf_map_lookup_elem(&xdpong_txfail, &key);
	}
}

#endif /* XDPONG_BPF_STATE_H */
