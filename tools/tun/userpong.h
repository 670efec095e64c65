/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdpong's echo rules in user space, for tools/tun-stack and tools/pong-hex,
 * and for tests/tuntap, which checks them against the XDP program.
 * Checksums come from lib/packet.h (one helper).
 *
 * Packets here are in IP framing, as a TUN with IFF_NO_PI hands them over:
 * byte 0 is the IP header.
 */
#ifndef XDPONG_USERPONG_H
#define XDPONG_USERPONG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "xdpong.h"
#include "packet.h"

/*
 * An address prefix and who put it there, as in xdpong's LPM maps:
 * XDPONG_ADDR_IFACE (ours; as a source, martian), XDPONG_ADDR_OPERATOR
 * (ours), XDPONG_ADDR_BROADCAST (a subnet broadcast: never answered; as a
 * source, martian), or UP_ADDR_NOT_OURS, a hole in a wider prefix (the
 * TUN's own address, which the kernel keeps).
 */
#define UP_ADDR_NOT_OURS 0x100
struct up_addr {
	struct prefix prefix;
	uint32_t origin;
};

struct up_config {
	const struct up_addr *addrs; /* looked up by longest prefix */
	size_t n_addrs;
	bool any_dst;        /* every unicast destination is ours (pong-hex) */
	size_t max_icmp_len; /* longer ICMP messages are passed; 0: no limit */
};

/*
 * --addr TEXT (ADDR or ADDR/LEN) as xdpong's: one more prefix of ours
 * (XDPONG_ADDR_OPERATOR) in cfg's addrs, of room max. 0, or -1 said on
 * stderr in prog's name.
 */
int up_addr_arg(const char *prog, const char *text, struct up_config *cfg, struct up_addr *addrs,
		size_t max);

/* The origin of the longest prefix holding addr (family 4 or 6); 0 if none. */
uint32_t up_addr_origin(const struct up_config *cfg, int family, const uint8_t *addr);

/*
 * Apply the XDP program's rules, in its order (bpf/echo.h
 * handle_ipv4/handle_ipv6, IP framing), to the len bytes at pkt. For
 * reply_echo4/reply_echo6, pkt has become the reply in place (same
 * length, checksums patched as RFC 1624 eqn 3); otherwise it is unchanged.
 */
enum xdpong_reason up_answer(const struct up_config *cfg, uint8_t *pkt, size_t len);

/* True if the reason means "answered". */
static inline bool up_is_reply(enum xdpong_reason r)
{
	return r < XDPONG_R_FIRST_PASSED;
}

/*
 * RFC 1624 eqn 3, HC' = ~(~HC + ~m + m'): the checksum after the 16-bit
 * word m (host order) becomes m_new. Never yields 0xffff; yields 0x0000
 * both for a sum of 0xffff and for all-zero data, which needs 0xffff
 * (RFC 1071: all-zero data checksums to ~0): the caller decides that.
 */
uint16_t up_csum_update16(uint16_t csum, uint16_t m, uint16_t m_new);

#endif /* XDPONG_USERPONG_H */
