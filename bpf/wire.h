/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bottom of xdpong's program (bpf/): the headers every part includes,
 * the wire's constants, and packet words read and written as stored.
 *
 * The program is bpf/xdpong.bpf.c over these headers, each including the
 * ones it uses, from the bottom up:
 *   wire.h       this: includes, wire constants, packet words
 *   state.h      configuration (rodata), variables (.bss) and maps
 *   csum.h       RFC 1071 and RFC 1624 checksum arithmetic
 *   frame.h      the frame: its length, link layer, message sums
 *   addrs.h      the interface's own addresses
 *   ratelimit.h  the per-source and global rate limits
 *   observe.h    latency sampling and trace events
 *   ntp.h        ns to NTP timestamps without a division (arithmetic only)
 *   echo.h       IPv4 and IPv6 echo, step by step; xdpong_packet()
 *   stamp.h      STAMP reflection over echo.h's IP checks (included by
 *                echo.h between its steps and the handlers that call it)
 *   rxts.h       STAMP's T2 from the driver (included by stamp.h, in the
 *                device-bound build only)
 * Each header defines objects (maps, variables, global functions): one
 * .bpf.c file of an object includes them, once.
 */
#ifndef XDPONG_BPF_WIRE_H
#define XDPONG_BPF_WIRE_H

/*
 * Packet headers are wire formats: their layout is fixed, so their fields
 * need no CO-RE relocation. vmlinux.h marks every struct for one (each
 * field read became three instructions, a relocated offset, a copy and an
 * add); this turns that off. The one kernel struct read, net_device in
 * the tracepoint programs (xdpong.bpf.c), goes through BPF_CORE_READ,
 * which relocates explicitly.
 */
#define BPF_NO_PRESERVE_ACCESS_INDEX
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "xdpong.h"

/* uapi macros that vmlinux.h cannot carry */
#define XP_ETH_P_IP 0x0800
#define XP_ETH_P_IPV6 0x86DD
#define XP_PROTO_ICMP 1
#define XP_PROTO_ICMPV6 58
#define XP_PROTO_UDP 17
#define XP_ICMP_ECHOREPLY 0
#define XP_ICMP_ECHO 8
#define XP_ICMPV6_ECHO_REQUEST 128
#define XP_ICMPV6_ECHO_REPLY 129

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

#endif /* XDPONG_BPF_WIRE_H */
