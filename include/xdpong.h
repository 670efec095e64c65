/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Definitions shared by the XDP program (bpf/) and the user-space side.
 *
 * This header includes nothing: the includer provides __u8..__u64
 * (vmlinux.h in BPF, <linux/types.h> in user space). Only fixed-width
 * types and explicit padding, so both sides agree on every layout.
 */
#ifndef XDPONG_H
#define XDPONG_H

/* What the program did with a packet. Every reason below has exactly one. */
enum xdpong_outcome {
	XDPONG_REPLIED = 0, /* XDP_TX: answered in the driver */
	XDPONG_PASSED = 1,  /* XDP_PASS: the kernel decides, as without xdpong */
	XDPONG_DROPPED = 2, /* XDP_DROP: the kernel would have discarded it too */
};

/*
 * Why. X(name, outcome, description). The list is kept in outcome order
 * (replied, passed, dropped); tests check that order against the outcome
 * column. Appending a reason is one line here; the counters struct, the
 * enum, the name tables (xdpong_names.h) and the JSON/Prometheus names follow.
 */
#define XDPONG_REASONS(X)                                                            \
	X(reply_echo4, REPLIED, "ICMP echo request answered")                        \
	X(reply_echo6, REPLIED, "ICMPv6 echo request answered")                      \
	X(reply_stamp4, REPLIED, "STAMP test packet reflected (IPv4)")               \
	X(reply_stamp6, REPLIED, "STAMP test packet reflected (IPv6)")               \
	X(pass_not_ip, PASSED, "not IPv4/IPv6 (ARP, VLAN, other ethertype)")         \
	X(pass_l2_group, PASSED, "broadcast/multicast MAC source or destination")    \
	X(pass_l2_other_host, PASSED, "destination MAC belongs to another host")     \
	X(pass_ip_options, PASSED, "IPv4 header carries options")                    \
	X(pass_ipv6_ext, PASSED, "IPv6 extension header before the payload")         \
	X(pass_not_icmp, PASSED, "neither ICMP/ICMPv6 nor UDP to the STAMP port")    \
	X(pass_fragment, PASSED, "IPv4 fragment")                                    \
	X(pass_dst_group, PASSED, "broadcast or multicast IP destination")           \
	X(pass_dst_not_local, PASSED, "destination is not an address we answer for") \
	X(pass_not_echo, PASSED, "ICMP message other than echo request")             \
	X(pass_src_reserved, PASSED, "IPv4 source in 240.0.0.0/4: kernel decides")   \
	X(pass_too_big, PASSED, "ICMP/STAMP message longer than the program sums")   \
	X(pass_split_headers, PASSED, "headers continue past the first buffer")      \
	X(pass_stamp_short, PASSED, "under 44 bytes of STAMP to the STAMP port")     \
	X(pass_stamp_many_tlvs, PASSED, "more STAMP TLVs than the program walks")    \
	X(pass_udp_len, PASSED, "UDP length below the IP payload's")                 \
	X(pass_udp6_no_csum, PASSED, "UDP over IPv6 with a zero checksum")           \
	X(pass_udp_csum, PASSED, "UDP checksum does not verify (STAMP)")             \
	X(drop_truncated, DROPPED, "frame shorter than its headers")                 \
	X(drop_bad_version, DROPPED, "IP version does not match the framing")        \
	X(drop_bad_ihl, DROPPED, "IPv4 header length below 5 words")                 \
	X(drop_bad_length, DROPPED, "IP/UDP length beyond the frame or too short")   \
	X(drop_bad_ip_csum, DROPPED, "IPv4 header checksum wrong")                   \
	X(drop_bad_icmp_csum, DROPPED, "ICMP/ICMPv6 checksum wrong")                 \
	X(drop_martian_src, DROPPED, "martian source address")                       \
	X(drop_rate_limited, DROPPED, "over the per-source rate limit")              \
	X(drop_global_limited, DROPPED, "over the global rate limit")

#define XDPONG_X_ENUM(name, outcome, desc) XDPONG_R_##name,
/* One enumerator per reason, then the count, as written. */
/* clang-format off */
enum xdpong_reason {
	XDPONG_REASONS(XDPONG_X_ENUM)
	XDPONG_R_MAX,
};
/* clang-format on */
#undef XDPONG_X_ENUM
/* A reason by its short name: REASON(reply_echo4) is XDPONG_R_reply_echo4. */
#define REASON(name) XDPONG_R_##name

/* First reason of each outcome: the list above is in outcome order. */
#define XDPONG_R_FIRST_PASSED XDPONG_R_pass_not_ip
#define XDPONG_R_FIRST_DROPPED XDPONG_R_drop_truncated

/*
 * Value of the per-CPU "xdpong_stats" array (one entry, key 0): a packet
 * counter per reason, one named field each so `bpftool map dump` reads
 * like the stats command. The program indexes it as __u64[XDPONG_R_MAX].
 */
#define XDPONG_X_FIELD(name, outcome, desc) __u64 name;
struct xdpong_counters {
	XDPONG_REASONS(XDPONG_X_FIELD)
};
#undef XDPONG_X_FIELD

/*
 * Value of the per-CPU "xdpong_latency" array (one entry, key 0): log2
 * histogram of the program's own service time for replied packets that
 * were sampled. slots[0] counts 0..1 ns, slots[i] counts [2^i, 2^(i+1)) ns.
 */
#define XDPONG_LAT_SLOTS 32
struct xdpong_latency {
	__u64 slots[XDPONG_LAT_SLOTS];
	__u64 sum_ns;
	__u64 count;
	/* Not a statistic, and no longer written: the sampling countdown of
	 * earlier versions, which the reply counters replaced. Kept
	 * so that the value's layout, which a takeover carries from one
	 * version to the next, stays the same. */
	__u64 sample_countdown;
};

/*
 * XDP_TX that the driver did not send (map "xdpong_txfail", per CPU):
 * counted from the kernel's xdp tracepoints for this interface, next to
 * the reply_* reasons, which count what the program returned. What left
 * the NIC is the replies minus tx_failed. Not a reason: the packet was
 * counted once already, as replied.
 */
struct xdpong_tx_counters {
	__u64 tx_failed; /* xdp:xdp_exception (XDP_TX) and xdp:xdp_bulk_tx drops */
};

/*
 * The rules' constants, for the program and for tools/tun/userpong.c, its
 * user-space mirror. (tests/lib/reference.c, the tests' oracle, keeps its own:
 * it must not share a mistake with what it judges.)
 */
#define XDPONG_REPLY_HOPS 64       /* TTL / hop limit of every reply */
#define XDPONG_IP_MF_OFFSET 0x3fff /* IPv4 More Fragments flag and fragment offset */

/*
 * An IPv6 extension header (IANA's list): an echo request behind one goes
 * to the kernel (pass_ipv6_ext). The one definition, for the program and
 * for tools/tun/userpong.c, its user-space mirror.
 */
static inline __attribute__((always_inline)) int xdpong_ipv6_ext_header(__u8 nexthdr)
{
	switch (nexthdr) {
	case 0:   /* hop-by-hop options */
	case 43:  /* routing */
	case 44:  /* fragment */
	case 50:  /* ESP */
	case 51:  /* AH */
	case 60:  /* destination options */
	case 135: /* mobility */
	case 139: /* HIP */
	case 140: /* shim6 */
	case 253: /* experiments (RFC 3692) */
	case 254:
		return 1;
	}
	return 0;
}

/*
 * STAMP (RFC 8762): the Session-Reflector's port unless told another
 * (--stamp=PORT), and the clock T2 and T3 are read from (rodata
 * cfg_stamp_clock, chosen by probing the kernel at load). Either clock
 * plus the .bss offset stamp_clock_off_ns, which the loader keeps, is
 * UTC in nanoseconds since 1970.
 */
#define XDPONG_STAMP_PORT 862
/* RFC 8972 TLVs after the base packet: the most the program walks (more:
 * pass_stamp_many_tlvs), and the longest TLV area it sums. */
#define XDPONG_STAMP_MAX_TLVS 8
#define XDPONG_STAMP_MAX_TLV_BYTES 9216
enum xdpong_stamp_clock {
	XDPONG_STAMP_CLOCK_MONO = 0, /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	XDPONG_STAMP_CLOCK_TAI = 1,  /* bpf_ktime_get_tai_ns(): CLOCK_TAI (6.1) */
};

/* Keys of the LPM tries "xdpong_addr4" / "xdpong_addr6": network order. */
struct xdpong_addr4_key {
	__u32 prefixlen;
	__u8 addr[4];
};

struct xdpong_addr6_key {
	__u32 prefixlen;
	__u8 addr[16];
};

/* Who put an address in the map: the interface, the configuration, or the
 * operator at run time. The program answers for every origin but BROADCAST. */
enum xdpong_addr_origin {
	XDPONG_ADDR_IFACE = 1,
	XDPONG_ADDR_OPERATOR = 2,
	/* An interface's subnet broadcast: never answered, even inside an
	 * operator prefix (the kernel treats it as broadcast). */
	XDPONG_ADDR_BROADCAST = 3,
	/* From --addr or the config file: made equal to the configuration at
	 * every start, takeover and reload. (OPERATOR is `xdpong addr add` at
	 * run time: kept across restarts and reloads until `xdpong addr del`.) */
	XDPONG_ADDR_CONFIG = 4,
};

struct xdpong_addr_info {
	__u32 origin;
};

/* What each address trie (IPv4, IPv6) holds unless the loader is told
 * otherwise (--max-prefixes, which sizes them before load). */
#define XDPONG_PREFIXES_DEFAULT 1024

/*
 * The interface's own addresses (origin IFACE) and subnet broadcasts
 * (BROADCAST), full length, mirrored from the tries by the loader into
 * the program's .bss ("own_addrs", two copies; "own_addrs_cur" names the
 * live one: 1 or 2, 0 for none). A few compares find them where a trie
 * lookup costs more than every header check together. The tries stay
 * the truth: an address not here is looked up there. The IPv4 lists are
 * complete (an interface with more goes without the copy); IPv6 holds
 * the first XDPONG_OWN_MAX.
 */
#define XDPONG_OWN_MAX 8
struct xdpong_own_addrs {
	__u32 n4;       /* entries in v4 */
	__u32 n_bcast4; /* entries in bcast4 */
	__u32 n6;       /* entries in v6 */
	__u32 pad;
	__u8 v4[XDPONG_OWN_MAX][4]; /* network order, as in the packet */
	__u8 bcast4[XDPONG_OWN_MAX][4];
	__u8 v6[XDPONG_OWN_MAX][16];
};

/* Key of the per-source rate limiter: IPv4 /32, or IPv6 /64 (rest zero). */
struct xdpong_rl_key {
	__u32 family; /* 4 or 6 */
	__u8 addr[16];
};

/*
 * Cells (replies) of a limit a CPU was granted ahead from the limit's
 * shared state and has not sent yet, and the time before which the shared
 * state has none to grant: each CPU's own, written by that CPU alone.
 */
struct xdpong_rl_cells {
	__u64 cells;
	__u64 retry_ns;
};

/*
 * A CPU's cells of one source's limit: a slot of a small direct-mapped
 * cache, indexed by a keyed hash of the source (bpf/ratelimit.h).
 */
struct xdpong_rl_slot {
	__u64 addr;   /* the source's key: IPv4 address or IPv6 /64, as sent */
	__u32 family; /* 4 or 6; 0: empty */
	__u32 pad;
	struct xdpong_rl_cells cl;
};
#define XDPONG_RL_SLOTS_LOG2 8
#define XDPONG_RL_SLOTS (1 << XDPONG_RL_SLOTS_LOG2)

/* One CPU's part of the limits (a per-CPU array). */
struct xdpong_rl_cpu {
	__u64 clock_jiffies; /* jiffies when clock_ns was read */
	__u64 clock_ns;      /* bpf_ktime_get_ns() then */
	struct xdpong_rl_cells global;
	struct xdpong_rl_slot src[XDPONG_RL_SLOTS];
};

/* Cells a CPU takes from a limit's shared state at once, at most (loader/up/ratelimit.c). */
#define XDPONG_RL_BATCH_MAX 256

/* What the frames start with; set before load from the device type. */
enum xdpong_framing {
	XDPONG_FRAMING_ETH = 0, /* Ethernet, TAP: Ethernet header first */
	XDPONG_FRAMING_IP = 1,  /* TUN: the IP header is the first byte */
};

/* Longest ICMP message the program checksums (a 9216-byte jumbo frame's
 * worth); longer ones go to the kernel. */
#define XDPONG_MAX_ICMP_LEN 9216

/* Ring buffer event for `xdpong trace`: the packet's first bytes from L3. */
#define XDPONG_TRACE_SNAP 64
struct xdpong_trace_event {
	__u64 ts_ns;      /* bpf_ktime_get_ns() at the verdict */
	__u32 service_ns; /* echo request seen to verdict; 0 if not timed */
	__u32 frame_len;  /* whole frame, padding included */
	__u16 reason;     /* enum xdpong_reason */
	__u16 snap_len;   /* valid bytes in snap[] */
	__u32 ifindex;
	__u8 snap[XDPONG_TRACE_SNAP]; /* from the IP header; replies already swapped */
};

#endif /* XDPONG_H */
