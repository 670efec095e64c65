// SPDX-License-Identifier: GPL-2.0
/*
 * xdpong: answer ICMP and ICMPv6 echo requests in the driver (XDP_TX).
 *
 * Only echo requests that the kernel would answer are answered; what the
 * kernel would discard is dropped, everything else is passed to the kernel
 * unchanged. Every packet is counted once, by reason (include/xdpong.h).
 */
/*
 * Packet headers are wire formats: their layout is fixed, so their fields
 * need no CO-RE relocation. vmlinux.h marks every struct for one (each
 * field read became three instructions, a relocated offset, a copy and an
 * add); this turns that off. The one kernel struct read here, net_device
 * in the tracepoint programs, goes through BPF_CORE_READ, which relocates
 * explicitly.
 */
#define BPF_NO_PRESERVE_ACCESS_INDEX
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "xdpong.h"

/* uapi macros that vmlinux.h cannot carry */
#define XP_ETH_P_IP 0x0800
#define XP_ETH_P_IPV6 0x86DD
#define XP_PROTO_ICMP 1
#define XP_PROTO_ICMPV6 58
#define XP_ICMP_ECHOREPLY 0
#define XP_ICMP_ECHO 8
#define XP_ICMPV6_ECHO_REQUEST 128
#define XP_ICMPV6_ECHO_REPLY 129

char LICENSE[] SEC("license") = "GPL";

/*
 * Parts of the echo path that the cost bench leaves out, one build each,
 * to time them (tools/bench/README.md, cost breakdown): it builds
 * tools/bench/xdpong_cost.bpf.c with -DXDPONG_BENCH_LEAVE_OUT=XP_PART_...
 * The product never defines it: every XP_KEEP() is then a constant 1.
 */
#define XP_PART_CHECKS 0x01   /* header, length and source checks */
#define XP_PART_CSUM 0x02     /* the IPv4 header and ICMP checksums verified */
#define XP_PART_ADDRS 0x04    /* own-address lookups (lists, tries) */
#define XP_PART_COUNTERS 0x08 /* the per-reason counters */
#define XP_PART_LATENCY 0x10  /* latency sampling */
#define XP_PART_GEN 0x20      /* the generation check (xdpong_active) */
#define XP_PART_TRACE 0x40    /* the trace flag */
#define XP_PART_LIMITS 0x80   /* the limits' check (off by default) */
#define XP_PART_ALL 0xff
#ifndef XDPONG_BENCH_LEAVE_OUT
#define XDPONG_BENCH_LEAVE_OUT 0
#endif
#define XP_KEEP(part) (!(XDPONG_BENCH_LEAVE_OUT & (part)))

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
 * tolerance is the limit's less that (loader/ratelimit.c). */
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
 * (loader/probe.c); every use of those helpers is behind it, so the
 * verifier, which knows a frozen rodata value, never walks to a helper
 * the kernel does not have. Every frame is then one buffer.
 */
const volatile __u8 cfg_frags = 1;

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
/* Written by the loader once attached, never read here: this program's id
 * (low half) and the id the interface shows (high half: itself, or its
 * dispatcher). A loader without CAP_SYS_ADMIN finds xdpong by its pins,
 * and tells them live from stale by this word (loader/attachment.c). */
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

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xdpong_addr4_key);
	__type(value, struct xdpong_addr_info);
} xdpong_addr4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xdpong_addr6_key);
	__type(value, struct xdpong_addr_info);
} xdpong_addr6 SEC(".maps");

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

/* Written by the tracepoint programs at the end of this file. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpong_tx_counters);
} xdpong_txfail SEC(".maps");

/*
 * Which xdpong acts while two share one libxdp dispatcher chain, during a
 * takeover inside it (loader/chain.c): 0, every one; else only the one
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

/*
 * Packet words at any byte offset, as stored. Through memcpy, never a cast
 * pointer (clang 14 reused stale bytes through one). The claimed alignment
 * is what makes clang emit one load: the BPF backend splits a memcpy it
 * believes unaligned into one load per byte, which cost the checksum loop
 * most of its time. The load itself may be unaligned: the verifier allows
 * that for packet data where the CPU does it at full speed (x86, arm64;
 * not under BPF_F_STRICT_ALIGNMENT).
 */
static __always_inline __u16 ld16(const void *p)
{
	__u16 v;

	__builtin_memcpy(&v, __builtin_assume_aligned(p, 2), 2);
	return v;
}

static __always_inline __u32 ld32(const void *p)
{
	__u32 v;

	__builtin_memcpy(&v, __builtin_assume_aligned(p, 4), 4);
	return v;
}

static __always_inline __u64 ld64(const void *p)
{
	__u64 v;

	__builtin_memcpy(&v, __builtin_assume_aligned(p, 8), 8);
	return v;
}

static __always_inline void st16(void *p, __u16 v)
{
	__builtin_memcpy(__builtin_assume_aligned(p, 2), &v, 2);
}

static __always_inline void st32(void *p, __u32 v)
{
	__builtin_memcpy(__builtin_assume_aligned(p, 4), &v, 4);
}

static __always_inline void st64(void *p, __u64 v)
{
	__builtin_memcpy(__builtin_assume_aligned(p, 8), &v, 8);
}

/*
 * Fold a one's complement sum kept in 64 bits to 16 (RFC 1071 4.1: adding
 * the halves is the end-around carry). Two folds per halving suffice.
 */
static __always_inline __u16 csum_fold(__u64 sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)sum;
}

/*
 * Whether an unfolded one's complement sum folds to 0xffff, as the sum of
 * a message with a correct checksum does (RFC 1071). Folding keeps a sum's
 * value modulo 0xffff and turns every nonzero multiple of 0xffff into
 * 0xffff, so the question is whether sum is such a multiple. An odd
 * divisor has an inverse modulo 2^64: a multiple's product with it is the
 * exact quotient, 1 to 2^64 / 0xffff; every other sum's product is larger
 * (the test for a zero remainder in Hacker's Delight, 10-17). One multiply
 * and one compare, where csum_fold takes eight dependent steps. Exact for
 * every 64-bit sum; the unit tests' checksum corners (0x0000 and 0xffff,
 * off by one) and the fuzzer's reference, which folds, hold its verdicts.
 */
#define XP_CSUM_INV 0xfffefffefffeffffULL /* 0xffff * this == 1 (mod 2^64) */
#define XP_CSUM_QMAX 0x1000100010001ULL   /* (2^64 - 1) / 0xffff */
static __always_inline bool csum_ok(__u64 sum)
{
	return sum * XP_CSUM_INV - 1 < XP_CSUM_QMAX;
}

/*
 * Unfolded sum of n bytes at p, n a constant multiple of 4, as 32-bit
 * words as stored (RFC 1071 sums in any word size). One 32-bit load and
 * one add a word: halving 64-bit loads takes more instructions than it
 * saves loads. Two accumulators, so the adds do not wait on each other.
 */
static __always_inline __u64 sum_words(const void *p, const int n)
{
	__u64 a = 0, b = 0;

#pragma unroll
	for (int i = 0; i + 1 < n / 4; i += 2) {
		a += ld32(p + 4 * i);
		b += ld32(p + 4 * i + 4);
	}
	if ((n / 4) & 1)
		a += ld32(p + n - 4);
	return a + b;
}

/*
 * Unfolded sum of len bytes at p, len under 128, as stored (RFC 1071),
 * -1 if they run past end: power-of-two chunks, each bounds-checked, so
 * the verifier can follow every access. Inline where the caller knows the
 * message is short, as most pings are (56 bytes from ping, 32 from
 * Windows): a call would cost a quarter of the sum.
 */
static __always_inline __s64 sum_under_128(void *p, void *end, __u32 len)
{
	__u64 sum = 0;

#define CSUM_STEP(n)                      \
	if (len & (n)) {                  \
		if (p + (n) > end)        \
			return -1;        \
		sum += sum_words(p, (n)); \
		p += (n);                 \
	}
	CSUM_STEP(64)
	CSUM_STEP(32)
	CSUM_STEP(16)
	CSUM_STEP(8)
	CSUM_STEP(4)
#undef CSUM_STEP
	if (len & 2) {
		if (p + 2 > end)
			return -1;
		sum += ld16(p);
		p += 2;
	}
	if (len & 1) {
		/* RFC 1071: the odd byte is padded with a zero byte. */
		__u8 pad[2] = { 0, 0 };

		if (p + 1 > end)
			return -1;
		pad[0] = *(__u8 *)p;
		sum += ld16(pad);
	}
	return sum;
}

/*
 * Unfolded sum of len bytes at offset off of the frame's first buffer, as
 * stored (RFC 1071). Fixed-size chunks keep every access provably inside
 * the buffer; the length comes from the IP header, so padding after the
 * packet is never summed. Returns -1 if the bytes are not all there. A
 * result of 0 means every byte was zero: an unfolded sum of non-negative
 * words cannot wrap to 0. A global function: the verifier checks it once,
 * not once per parsing path (inlined, its chunk loops exceed the 1M
 * budget).
 * Blocks of 128 bytes and more go to bpf_csum_diff(), whose csum_partial()
 * beats BPF word sums once the call is paid for (measured: 1500-byte echo
 * 676 ns all inline); smaller ones are summed inline, where the call alone
 * would cost more than the sum.
 */
__noinline __s64 xdpong_sum_bytes(struct xdp_md *ctx, __u32 off, __u32 len)
{
	void *end = (void *)(long)ctx->data_end;
	void *p = (void *)(long)ctx->data;
	__u64 sum = 0;
	__s64 tail;

	if (off > 256 || len > XDPONG_MAX_ICMP_LEN)
		return -1;
	p += off;
	for (int i = 0; i < XDPONG_MAX_ICMP_LEN / 512; i++) {
		if (len < 512)
			break;
		/* Keeps clang from rewriting the bounds check into a form the
		 * verifier cannot follow. */
		asm volatile("" : "+r"(p));
		if (p + 512 > end)
			return -1;
		sum += (__u32)bpf_csum_diff(NULL, 0, p, 512, 0);
		p += 512;
		len -= 512;
	}
#define CSUM_HELPER_STEP(n)                                      \
	if (len & (n)) {                                         \
		if (p + (n) > end)                               \
			return -1;                               \
		sum += (__u32)bpf_csum_diff(NULL, 0, p, (n), 0); \
		p += (n);                                        \
	}
	CSUM_HELPER_STEP(256)
	CSUM_HELPER_STEP(128)
#undef CSUM_HELPER_STEP
	tail = sum_under_128(p, end, len & 127);
	return tail < 0 ? -1 : sum + tail;
}

/* Every buffer of the frame (one, without multi-buffer XDP). */
static __always_inline __u32 frame_len(struct xdp_md *ctx)
{
	if (!cfg_frags)
		return ctx->data_end - ctx->data;
	return bpf_xdp_get_buff_len(ctx);
}

#define XP_FRAG_CHUNK 256 /* bytes copied out at a time: stack, not a map */

/*
 * A length of 1 to max (a power of two) from x, as the verifier sees it
 * whatever the compiler did before: x mod max, or max where that is 0.
 * Helpers that read a length want it above zero (6.1: "invalid
 * zero-sized read"), and a clamp tested earlier proves nothing where the
 * compiler keeps x in another register (clang 19, trace_emit). The
 * barrier makes the compiler forget what it knows of x, so it cannot fold
 * the mask away as redundant.
 */
static __always_inline __u32 len_1_to(__u32 x, const __u32 max)
{
	asm volatile("" : "+r"(x));
	return ((x - 1) & (max - 1)) + 1;
}

/*
 * The same sum for a message that continues past the first buffer of a
 * multi-buffer frame: copied out a chunk at a time (bpf_xdp_load_bytes
 * reads across fragments) and summed by bpf_csum_diff, which wants a
 * multiple of 4 bytes: the last chunk is zero-padded, which RFC 1071's
 * odd-byte rule allows (chunks start at even offsets of the message).
 * A stack buffer rather than a per-CPU map: nothing else can touch it
 * between the copy and the sum.
 */
__noinline __s64 xdpong_sum_frags(struct xdp_md *ctx, __u32 off, __u32 len)
{
	/* 4 spare bytes: the verifier bounds the rounded-up tail by 258. */
	__u8 buf[XP_FRAG_CHUNK + 4];
	__u64 sum = 0;

	/* A global function is verified on its own, reached or not. */
	if (!cfg_frags || len > XDPONG_MAX_ICMP_LEN)
		return -1;
	for (int i = 0; i < XDPONG_MAX_ICMP_LEN / XP_FRAG_CHUNK; i++) {
		if (len < XP_FRAG_CHUNK)
			break;
		if (bpf_xdp_load_bytes(ctx, off, buf, XP_FRAG_CHUNK))
			return -1;
		sum += (__u32)bpf_csum_diff(NULL, 0, (void *)buf, XP_FRAG_CHUNK, 0);
		off += XP_FRAG_CHUNK;
		len -= XP_FRAG_CHUNK;
	}
	/* The rest, 1 to 255 bytes (the loop covers XDPONG_MAX_ICMP_LEN). */
	if (len & (XP_FRAG_CHUNK - 1)) {
		__u32 n = len_1_to(len, XP_FRAG_CHUNK);

		__builtin_memset(buf, 0, sizeof(buf));
		if (bpf_xdp_load_bytes(ctx, off, buf, n))
			return -1;
		sum += (__u32)bpf_csum_diff(NULL, 0, (void *)buf, (n + 3) & ~3, 0);
	}
	return sum;
}

#define XP_PING_DATA 56 /* data bytes of ping's echo requests by default */

/* The unfolded sum of the len bytes of a message at p (offset off). */
static __always_inline __s64 sum_message(struct xdp_md *ctx, void *p, void *end, __u32 off,
					 __u32 len, bool in_frags)
{
	if (in_frags)
		return xdpong_sum_frags(ctx, off, len);
	/* ping's own 56 bytes (Linux, BSD): one bounds check and straight
	 * loads, without the chunk tests of sum_under_128 (the same sum). */
	if (len == XP_PING_DATA) {
		if (p + XP_PING_DATA > end)
			return -1;
		return sum_words(p, XP_PING_DATA);
	}
	if (len < 128)
		return sum_under_128(p, end, len);
	return xdpong_sum_bytes(ctx, off, len);
}

/*
 * RFC 1624 eqn 3, HC' = ~(~HC + ~m + m'): patch checksum `csum` for the
 * 16-bit word m changing to m', all three as stored in the packet.
 */
static __always_inline __u16 csum_replace16(__u16 csum, __u16 m, __u16 m1)
{
	return (__u16)~csum_fold((__u64)(__u16)~csum + (__u16)~m + m1);
}

/* The word as stored with its first byte replaced: no byte store is then
 * read back as part of a wider load (a store-forwarding stall on x86). */
static __always_inline __u16 word_with_first_byte(__u16 w, __u8 first)
{
	__u8 b[2];

	__builtin_memcpy(b, &w, 2);
	b[0] = first;
	__builtin_memcpy(&w, b, 2);
	return w;
}

/* The origin of the longest prefix holding addr, 0 if none. */
static __always_inline __u32 addr4_origin(__be32 addr)
{
	struct xdpong_addr4_key key = { .prefixlen = 32 };
	struct xdpong_addr_info *info;

	__builtin_memcpy(key.addr, &addr, 4);
	info = bpf_map_lookup_elem(&xdpong_addr4, &key);
	return info ? info->origin : 0;
}

static __always_inline bool addr6_in_trie(const struct in6_addr *addr)
{
	struct xdpong_addr6_key key = { .prefixlen = 128 };

	__builtin_memcpy(key.addr, addr, 16);
	return bpf_map_lookup_elem(&xdpong_addr6, &key) != NULL;
}

/* The live copy of the interface's own addresses, NULL if there is none. */
static __always_inline const struct xdpong_own_addrs *own_addrs_get(void)
{
	const struct xdpong_own_addrs *own = NULL;
	__u32 cur = own_addrs_cur, idx;

	/*
	 * clang folds this test into one on cur - 3, in a register the index
	 * is not derived from, and a verifier before 6.18 keeps no bound on
	 * the index (6.12: "unbounded memory access"). So the index is
	 * masked where the verifier sees it, behind a barrier that keeps the
	 * compiler from dropping the mask as redundant.
	 */
	if (cur == 1 || cur == 2) {
		idx = cur - 1;
		asm volatile("" : "+r"(idx));
		own = &own_addrs[idx & 1];
	}
	/*
	 * And the callers must test the pointer itself: clang 19 otherwise
	 * tests cur again in its place, and 5.10's verifier, which cannot
	 * tie the two, follows a NULL own into the lists ("invalid mem
	 * access"). The barrier hides where own came from.
	 */
	asm volatile("" : "+r"(own));
	return own;
}

/*
 * The lists are searched by XDPONG_OWN_MAX comparisons written out, not by
 * a loop: each offset is a constant the verifier sees, whatever the
 * compiler (clang 19 does not unroll a loop with an early exit, and a
 * loop left rolled is a variable index some verifiers cannot bound).
 */
_Static_assert(XDPONG_OWN_MAX == 8, "own-address lists: one OWN_AT per entry");
#define OWN_EACH(AT) AT(0) AT(1) AT(2) AT(3) AT(4) AT(5) AT(6) AT(7)

/* Is addr (network order) one of the n words of list? */
static __always_inline bool in_list4(const __u8 (*list)[4], __u32 n, __u32 addr)
{
#define OWN4_AT(i)                            \
	if (n > (i) && ld32(list[i]) == addr) \
		return true;
	OWN_EACH(OWN4_AT)
#undef OWN4_AT
	return false;
}

/*
 * Who answers for IPv4 address addr: IFACE, BROADCAST, OPERATOR, CONFIG
 * or 0 (nobody). The exact lists first; the trie for operator prefixes
 * and whatever the lists lack.
 */
static __always_inline __u32 dst4_origin(const struct xdpong_own_addrs *own, __u32 addr)
{
	if (own) {
		if (in_list4(own->v4, own->n4, addr))
			return XDPONG_ADDR_IFACE;
		if (in_list4(own->bcast4, own->n_bcast4, addr))
			return XDPONG_ADDR_BROADCAST;
	}
	return addr4_origin(addr);
}

/*
 * The kernel drops a source that is its own address (accept_local=0) or
 * a subnet broadcast (fib_validate_source: not RTN_UNICAST). Operator
 * prefixes are not its addresses: sources there are answered. The lists
 * are complete for IPv4: no trie lookup when they are there.
 */
static __always_inline bool src4_is_own(const struct xdpong_own_addrs *own, __u32 addr)
{
	__u32 origin;

	if (own)
		return in_list4(own->v4, own->n4, addr) ||
		       in_list4(own->bcast4, own->n_bcast4, addr);
	origin = addr4_origin(addr);
	return origin == XDPONG_ADDR_IFACE || origin == XDPONG_ADDR_BROADCAST;
}

static __always_inline bool addr6_is_local(const struct in6_addr *addr)
{
	const struct xdpong_own_addrs *own = own_addrs_get();

	if (own) {
		__u64 a0 = ld64(addr), a1 = ld64((const void *)addr + 8);
		__u32 n = own->n6;

#define OWN6_AT(i)                                                           \
	if (n > (i) && ld64(own->v6[i]) == a0 && ld64(&own->v6[i][8]) == a1) \
		return true;
		OWN_EACH(OWN6_AT)
#undef OWN6_AT
	}
	return addr6_in_trie(addr);
}

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

/* Four loads, then four stores: MACs are 6 bytes at offsets 0 and 6. */
static __always_inline void swap_eth(struct ethhdr *eth)
{
	void *p = eth;
	__u32 dst_lo = ld32(p), src_lo = ld32(p + 6);
	__u16 dst_hi = ld16(p + 4), src_hi = ld16(p + 10);

	st32(p, src_lo);
	st16(p + 4, src_hi);
	st32(p + 6, dst_lo);
	st16(p + 10, dst_hi);
}

/*
 * Link-layer rules, checked once the frame is known to be ICMP: a reply
 * never goes to or comes from a group MAC (IEEE 802 group bit), and with
 * cfg_check_mac a frame for another host's MAC is the kernel's (it drops
 * PACKET_OTHERHOST). 0 if the frame may be answered; eth NULL: no link
 * header (TUN).
 */
static __always_inline __u32 check_l2(const struct ethhdr *eth)
{
	if (!eth)
		return 0;
	if ((eth->h_dest[0] | eth->h_source[0]) & 1)
		return REASON(pass_l2_group);
	if (cfg_check_mac) {
		/* Two loads and two compares: the word's first 6 bytes as
		 * stored, whatever the byte order (assembling the frame's
		 * bytes into one word took a load and a shift per byte). */
		__u64 mac = if_mac;
		__u32 m4;
		__u16 m2;

		__builtin_memcpy(&m4, &mac, 4);
		__builtin_memcpy(&m2, (__u8 *)&mac + 4, 2);
		if (ld32(eth->h_dest) != m4 || ld16(eth->h_dest + 4) != m2)
			return REASON(pass_l2_other_host);
	}
	return 0;
}

/*
 * The first buffer ends before `need` bytes: a frame shorter than its
 * headers, or a multi-buffer frame whose headers continue in a fragment
 * (a NIC that splits headers from data). The kernel copes with the latter.
 */
static __always_inline __u32 headers_cut(struct xdp_md *ctx, __u32 need)
{
	return frame_len(ctx) >= need ? REASON(pass_split_headers) : REASON(drop_truncated);
}

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
 * most once a tick. No per-packet state of its
 * own: a countdown in the latency map cost a lookup, a load and a store on
 * every echo (timing 1 in 64 read 1.07x the program time of timing off;
 * 1.00x to 1.03x without it, cost bench). A timed packet reads the
 * clock twice, about 60 ns under kvm-clock, which at 1 in 64 added 1 ns
 * to every echo; bounded by the tick, the reads cost at most HZ pairs a
 * second per CPU, whatever the rate, and below HZ * n echoes a second
 * every n-th reply is still timed. The tick (bpf_jiffies64(), an inlined
 * load) is read only by the request the count picks. n is frozen rodata:
 * the verifier keeps the mask or the division, never both.
 */
static __always_inline __u64 latency_start(const __u64 *counters, __u32 replied)
{
	const __u32 n = cfg_latency_sample;
	__u64 *last, tick, done;
	__u32 key = 0;

	if (!n || !XP_KEEP(XP_PART_LATENCY))
		return 0;
	if (n > 1) {
		/* No counters (only a cost-bench build leaves them out):
		 * every request is a candidate, and the tick bounds it. */
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

/* A frame's network layer, as handle_frame found it: the parse state the
 * two families' handlers start from. */
struct l3_frame {
	struct xdp_md *ctx;
	struct ethhdr *eth;    /* NULL: IP framing (TUN), no link header */
	__u32 l3_off;          /* bytes before the IP header */
	__u32 l3_len;          /* bytes from the IP header on, fragments included */
	void *l3;              /* the IP header */
	void *end;             /* the first buffer's end */
	__u64 *t0;             /* set when the packet is timed */
	const __u64 *counters; /* this CPU's reason counters, NULL if none */
};

/*
 * IPv4 echo, in four steps that each return a reason, or XP_GO_ON to go
 * on to the next: the headers (ipv4_headers), whom it is for
 * (ipv4_for_us), the checks an answer needs (ipv4_verify), the reply
 * (ipv4_reply). All inlined: one straight path, as one function.
 */
#define XP_GO_ON XDPONG_R_MAX

/* What the steps learn of an IPv4 echo request. */
struct v4_req {
	struct iphdr *ip;
	struct icmphdr *icmp;
	const struct xdpong_own_addrs *own;
	__u32 icmp_len; /* from the IP header's total length */
	bool in_frags;  /* the message continues past the first buffer */
	__s64 payload_sum;
};

/* The IP header: protocol, then the checks the kernel makes of it. */
static __always_inline __u32 ipv4_headers(const struct l3_frame *f, struct v4_req *q)
{
	struct iphdr *ip = f->l3;
	__u32 tot, reason;
	__u8 vihl, d0;

	if ((void *)(ip + 1) > f->end)
		return headers_cut(f->ctx, f->l3_off + sizeof(*ip));
	/* Classify first: what is not ICMP goes to the kernel at once, which
	 * validates it as it would without xdpong. */
	if (ip->protocol != XP_PROTO_ICMP)
		return REASON(pass_not_icmp);
	q->ip = ip;
	tot = bpf_ntohs(ip->tot_len);
	q->icmp_len = tot - sizeof(*ip);
	/* The usual header, version 4 and no options (0x45), takes one test
	 * where the exact ones below take three: the same verdicts. */
	vihl = *(__u8 *)ip;
	if (XP_KEEP(XP_PART_CHECKS)) {
		reason = check_l2(f->eth);
		if (reason)
			return reason;
		if (vihl != 0x45) {
			if (ip->version != 4)
				return REASON(drop_bad_version);
			if (ip->ihl < 5)
				return REASON(drop_bad_ihl);
		}
		if (tot < (vihl & 0xf) * 4)
			return REASON(drop_bad_length);
	}
	if (tot > f->l3_len) {
		/* Past the first buffer: in fragments, or past the frame's end. */
		if (tot > frame_len(f->ctx) - f->l3_off)
			return REASON(drop_bad_length);
		q->in_frags = true;
	}
	if (!XP_KEEP(XP_PART_CHECKS))
		return XP_GO_ON;
	if (vihl != 0x45)
		return REASON(pass_ip_options); /* ihl > 5: the rest are refused above */
	if (ip->frag_off & bpf_htons(XDPONG_IP_MF_OFFSET))
		return REASON(pass_fragment);
	/* 224.0.0.0/4 and 255.255.255.255: echo_ignore_broadcasts is the
	 * kernel's call. Both start at 0xe0 or above, as few unicast do. */
	d0 = ((__u8 *)&ip->daddr)[0];
	if (d0 >= 0xe0 && ((d0 & 0xf0) == 0xe0 || ip->daddr == 0xffffffff))
		return REASON(pass_dst_group);
	return XP_GO_ON;
}

/* Our address, and an echo request: else the kernel's (ICMP for others
 * is forwarded as it is). */
static __always_inline __u32 ipv4_for_us(const struct l3_frame *f, struct v4_req *q)
{
	struct iphdr *ip = q->ip;
	struct icmphdr *icmp;

	if (XP_KEEP(XP_PART_ADDRS)) {
		q->own = own_addrs_get();
		switch (dst4_origin(q->own, ip->daddr)) {
		case 0:
			return REASON(pass_dst_not_local);
		case XDPONG_ADDR_BROADCAST: /* a subnet broadcast in a unicast frame */
			return REASON(pass_dst_group);
		}
	}
	if (XP_KEEP(XP_PART_CHECKS) && q->icmp_len < sizeof(*icmp))
		return REASON(drop_bad_length);
	icmp = (void *)(ip + 1);
	if ((void *)(icmp + 1) > f->end)
		return REASON(pass_split_headers); /* the frame holds it: tot says so */
	if (icmp->type != XP_ICMP_ECHO)
		return REASON(pass_not_echo);
	q->icmp = icmp;
	return XP_GO_ON;
}

/* An echo request to us: its checksums and source, as the kernel checks. */
static __always_inline __u32 ipv4_verify(const struct l3_frame *f, struct v4_req *q)
{
	struct iphdr *ip = q->ip;
	struct icmphdr *icmp = q->icmp;
	__u8 s0 = ((__u8 *)&ip->saddr)[0];

	/* RFC 1071: a header with a correct checksum sums to 0xffff. */
	if (XP_KEEP(XP_PART_CSUM) && !csum_ok(sum_words(ip, sizeof(*ip))))
		return REASON(drop_bad_ip_csum);
	/* Martian sources (RFC 1812 5.3.7), which the kernel drops, and the
	 * reserved 240/4: each starts with 0, 127, or 0xe0 and above. */
	if (XP_KEEP(XP_PART_CHECKS) && (s0 == 0 || s0 == 127 || s0 >= 0xe0)) {
		/* 240/4 but 255.255.255.255 is reserved; the rest martian. */
		if ((s0 & 0xf0) == 0xf0 && ip->saddr != 0xffffffff)
			return REASON(pass_src_reserved);
		return REASON(drop_martian_src);
	}
	if (XP_KEEP(XP_PART_ADDRS) && src4_is_own(q->own, ip->saddr))
		return REASON(drop_martian_src);
	if (q->icmp_len > XDPONG_MAX_ICMP_LEN)
		return REASON(pass_too_big);
	if (!XP_KEEP(XP_PART_CSUM))
		return XP_GO_ON;
	q->payload_sum = sum_message(f->ctx, icmp + 1, f->end,
				     f->l3_off + sizeof(*ip) + sizeof(*icmp),
				     q->icmp_len - sizeof(*icmp), q->in_frags);
	if (q->payload_sum < 0)
		return REASON(drop_truncated);
	if (!csum_ok(q->payload_sum + sum_words(icmp, sizeof(*icmp))))
		return REASON(drop_bad_icmp_csum);
	return XP_GO_ON;
}

/* The reply: addresses swapped, TTL 64, type 0; everything else kept. */
static __always_inline __u32 ipv4_reply(struct v4_req *q)
{
	struct iphdr *ip = q->ip;
	struct icmphdr *icmp = q->icmp;
	__u16 old, new, csum;
	__be32 tmp;

	tmp = ip->saddr;
	ip->saddr = ip->daddr;
	ip->daddr = tmp;
	old = ld16(&ip->ttl); /* TTL and protocol share a word */
	new = word_with_first_byte(old, XDPONG_REPLY_HOPS);
	st16(&ip->ttl, new);
	ip->check = csum_replace16(ip->check, old, new);

	old = ld16(icmp); /* type and code */
	new = word_with_first_byte(old, XP_ICMP_ECHOREPLY);
	st16(icmp, new);
	csum = csum_replace16(icmp->checksum, old, new);
	/*
	 * An all-zero reply (code, id, seq and payload zero) sums to +0, so
	 * its checksum is ~0 = 0xffff; eqn 3 yields the other zero, 0x0000,
	 * which receivers reject. Any other reply's 0x0000 is correct.
	 */
	if (csum == 0 && new == 0 && icmp->un.echo.id == 0 && icmp->un.echo.sequence == 0 &&
	    q->payload_sum == 0)
		csum = 0xffff;
	icmp->checksum = csum;
	return REASON(reply_echo4);
}

static __always_inline __u32 handle_ipv4(const struct l3_frame *f)
{
	struct v4_req q = {};
	__u32 reason;

	reason = ipv4_headers(f, &q);
	if (reason != XP_GO_ON)
		return reason;
	reason = ipv4_for_us(f, &q);
	if (reason != XP_GO_ON)
		return reason;
	/* An echo request to us: from here on, the work answering it takes. */
	*f->t0 = latency_start(f->counters, REASON(reply_echo4));
	reason = ipv4_verify(f, &q);
	if (reason != XP_GO_ON)
		return reason;
	reason = XP_KEEP(XP_PART_LIMITS) ? rate_check(4, &q.ip->saddr) : 0;
	if (reason)
		return reason;
	return ipv4_reply(&q);
}

static __always_inline bool ipv6_is_martian_src(const struct in6_addr *a)
{
	__u32 w0 = a->in6_u.u6_addr32[0], w1 = a->in6_u.u6_addr32[1];
	__u32 w2 = a->in6_u.u6_addr32[2], w3 = a->in6_u.u6_addr32[3];

	if (a->in6_u.u6_addr8[0] == 0xff) /* multicast (RFC 4291 2.7) */
		return true;
	/* unspecified :: and loopback ::1 (RFC 4291 2.5.2, 2.5.3) */
	return (w0 | w1 | w2) == 0 && (w3 == 0 || w3 == bpf_htonl(1));
}

/* The reply: addresses swapped, hop limit 64, type 129; the rest kept. */
static __always_inline __u32 ipv6_reply(struct ipv6hdr *ip6, struct icmp6hdr *icmp6)
{
	__u64 a0, a1, b0, b1;
	__u16 old, new;

	/* Swapping the addresses leaves the pseudo-header sum unchanged. */
	a0 = ld64(&ip6->saddr);
	a1 = ld64((void *)&ip6->saddr + 8);
	b0 = ld64(&ip6->daddr);
	b1 = ld64((void *)&ip6->daddr + 8);
	st64(&ip6->saddr, b0);
	st64((void *)&ip6->saddr + 8, b1);
	st64(&ip6->daddr, a0);
	st64((void *)&ip6->daddr + 8, a1);
	ip6->hop_limit = XDPONG_REPLY_HOPS; /* not in the pseudo-header */

	old = ld16(icmp6); /* type and code */
	new = word_with_first_byte(old, XP_ICMPV6_ECHO_REPLY);
	st16(icmp6, new);
	/* The pseudo-header makes the sum non-zero: no all-zero corner. */
	icmp6->icmp6_cksum = csum_replace16(icmp6->icmp6_cksum, old, new);
	return REASON(reply_echo6);
}

static __always_inline __u32 handle_ipv6(const struct l3_frame *f)
{
	struct xdp_md *ctx = f->ctx;
	struct ethhdr *eth = f->eth;
	__u32 l3_off = f->l3_off, l3_len = f->l3_len;
	struct ipv6hdr *ip6 = f->l3;
	void *end = f->end;
	__u64 *t0 = f->t0;
	struct icmp6hdr *icmp6;
	__u32 plen, reason;
	__s64 payload_sum, sum;
	bool in_frags = false;

	if ((void *)(ip6 + 1) > end)
		return headers_cut(ctx, l3_off + sizeof(*ip6));
	/* Classify first, as for IPv4. */
	if (ip6->nexthdr != XP_PROTO_ICMPV6)
		return xdpong_ipv6_ext_header(ip6->nexthdr) ? REASON(pass_ipv6_ext) :
							      REASON(pass_not_icmp);
	reason = check_l2(eth);
	if (reason)
		return reason;
	if (ip6->version != 6)
		return REASON(drop_bad_version);
	plen = bpf_ntohs(ip6->payload_len);
	if (sizeof(*ip6) + plen > l3_len) {
		if (sizeof(*ip6) + plen > frame_len(ctx) - l3_off)
			return REASON(drop_bad_length);
		in_frags = true;
	}
	/* Multicast echo: the kernel answers from a unicast source. */
	if (ip6->daddr.in6_u.u6_addr8[0] == 0xff)
		return REASON(pass_dst_group);
	/* Before the ICMPv6 checks: ICMPv6 for others is forwarded as it is. */
	if (!addr6_is_local(&ip6->daddr))
		return REASON(pass_dst_not_local);
	if (plen < sizeof(*icmp6))
		return REASON(drop_bad_length);
	icmp6 = (void *)(ip6 + 1);
	if ((void *)(icmp6 + 1) > end)
		return REASON(pass_split_headers); /* the frame holds it: plen says so */
	if (icmp6->icmp6_type != XP_ICMPV6_ECHO_REQUEST)
		return REASON(pass_not_echo);

	/* An echo request to us: from here on, the work answering it takes. */
	*t0 = latency_start(f->counters, REASON(reply_echo6));
	if (ipv6_is_martian_src(&ip6->saddr))
		return REASON(drop_martian_src);
	if (plen > XDPONG_MAX_ICMP_LEN)
		return REASON(pass_too_big);
	payload_sum = sum_message(ctx, icmp6 + 1, end, l3_off + sizeof(*ip6) + sizeof(*icmp6),
				  plen - sizeof(*icmp6), in_frags);
	if (payload_sum < 0)
		return REASON(drop_truncated);
	/* RFC 8200 8.1 pseudo-header: addresses, upper-layer length, 58. */
	sum = payload_sum;
	sum += sum_words(&ip6->saddr, 32);
	sum += sum_words(icmp6, sizeof(*icmp6));
	sum += bpf_htonl(plen);
	sum += bpf_htonl(XP_PROTO_ICMPV6);
	if (!csum_ok(sum))
		return REASON(drop_bad_icmp_csum);
	reason = XP_KEEP(XP_PART_LIMITS) ? rate_check(6, &ip6->saddr) : 0;
	if (reason)
		return reason;
	return ipv6_reply(ip6, icmp6);
}

static __always_inline __u32 handle_frame(struct xdp_md *ctx, __u64 *t0, const __u64 *counters)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 len = ctx->data_end - ctx->data;
	struct ethhdr *eth = data;
	struct l3_frame f;
	__u32 reason;

	if (cfg_framing == XDPONG_FRAMING_IP) {
		/* TUN: no link header; the version nibble says the family. */
		if (data + 1 > end)
			return headers_cut(ctx, 1);
		f = (struct l3_frame){
			.ctx = ctx,
			.l3 = data,
			.end = end,
			.l3_len = len,
			.t0 = t0,
			.counters = counters,
		};
		if ((*(__u8 *)data >> 4) == 6)
			return handle_ipv6(&f);
		return handle_ipv4(&f);
	}

	if ((void *)(eth + 1) > end)
		return headers_cut(ctx, sizeof(*eth));
	f = (struct l3_frame){ .ctx = ctx,
			       .eth = eth,
			       .l3_off = sizeof(*eth),
			       .l3 = eth + 1,
			       .end = end,
			       .l3_len = len - sizeof(*eth),
			       .t0 = t0,
			       .counters = counters };
	if (eth->h_proto == bpf_htons(XP_ETH_P_IP))
		reason = handle_ipv4(&f);
	else if (eth->h_proto == bpf_htons(XP_ETH_P_IPV6))
		reason = handle_ipv6(&f);
	else
		return REASON(pass_not_ip);
	if (reason < XDPONG_R_FIRST_PASSED)
		swap_eth(eth);
	return reason;
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1) {
		r += 1;
	}
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

/*
 * Frags-aware (multi-buffer XDP): it attaches natively where the MTU
 * exceeds a page (jumbo frames). Headers are read from the first buffer;
 * an echo request longer than it is summed with bpf_xdp_load_bytes and
 * answered in place, its fragments untouched.
 */
/*
 * Plain "xdp": the loader adds BPF_F_XDP_HAS_FRAGS where the kernel has it
 * (probe.h). libbpf 1.1 would add it at load time for "xdp.frags",
 * and a kernel before 5.18 refuses the flag. tools/bench/xdpong_cost.bpf.c
 * inlines this program: it empties this.
 */
#ifndef XDPONG_PROG_SEC
#define XDPONG_PROG_SEC SEC("xdp")
#endif
XDPONG_PROG_SEC
int xdpong(struct xdp_md *ctx)
{
	__u64 t0 = 0, service_ns = 0;
	__u32 key = 0, reason;
	__u64 *counters;

	if (XP_KEEP(XP_PART_GEN) && stood_down())
		return XDP_PASS;
	carry_maps_own();
	counters = XP_KEEP(XP_PART_COUNTERS) ? bpf_map_lookup_elem(&xdpong_stats, &key) : NULL;
	reason = handle_frame(ctx, &t0, counters);

	/* The one exit: every packet is counted exactly once. */
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
	if (t0 && reason < XDPONG_R_FIRST_PASSED)
		service_ns = latency_record(t0);
	if (XP_KEEP(XP_PART_TRACE) && trace_enabled)
		trace_emit(ctx, reason, service_ns);

	if (reason < XDPONG_R_FIRST_PASSED)
		return XDP_TX;
	if (reason < XDPONG_R_FIRST_DROPPED)
		return XDP_PASS;
	return XDP_DROP;
}

#ifndef XDPONG_NO_TX_WATCH
/*
 * XDP_TX is a request: the driver may still fail to send the frame (a
 * veth whose peer runs no XDP program, a full TX ring). The kernel says
 * so in two tracepoints, which these count for this interface only. The
 * loader attaches them next to the XDP program (loader/txwatch.c).
 * tools/bench/xdpong_cost.bpf.c leaves them out.
 */
static __always_inline bool tx_dev_ours(const struct net_device *dev)
{
	return cfg_ifindex && BPF_CORE_READ(dev, ifindex) == (int)cfg_ifindex &&
	       BPF_CORE_READ(dev, nd_net.net, ns.inum) == cfg_netns_ino && !stood_down();
}

static __always_inline void tx_failed_add(__u64 n)
{
	struct xdpong_tx_counters *c;
	__u32 key = 0;

	c = bpf_map_lookup_elem(&xdpong_txfail, &key);
	if (c)
		c->tx_failed += n;
}

/* Any driver: an XDP_TX it could not even queue (generic XDP, virtio_net,
 * veth, mlx5 and others call it with the action). */
SEC("tp_btf/xdp_exception")
int BPF_PROG(xdpong_tx_exception, const struct net_device *dev, const struct bpf_prog *xdp,
	     __u32 act)
{
	if (act == XDP_TX && tx_dev_ours(dev))
		tx_failed_add(1);
	return 0;
}

/* veth: XDP_TX frames are queued, then handed to the peer in bulk at the
 * end of the poll; those the peer refused are "drops" here. */
SEC("tp_btf/xdp_bulk_tx")
int BPF_PROG(xdpong_tx_bulk, const struct net_device *dev, int sent, int drops, int err)
{
	if (drops > 0 && tx_dev_ours(dev))
		tx_failed_add((__u64)drops);
	return 0;
}
#endif
