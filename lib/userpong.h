/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdpong's echo rules in user space, for tools/tun-stack and tools/pong-hex,
 * plus the small TUN, netlink and hex helpers tun-stack, tun-helper and the
 * TUN/TAP tests share. Checksums come from lib/packet.h (one helper).
 *
 * Packets here are in IP framing, as a TUN with IFF_NO_PI hands them over:
 * byte 0 is the IP header.
 */
#ifndef XDPONG_USERPONG_H
#define XDPONG_USERPONG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <net/if.h>
#include <linux/types.h>
#include "xdpong.h"
#include "packet.h"

/* Reason names, descriptions and outcomes, from include/xdpong.h's X-macro. */
extern const char *const up_reason_names[XDPONG_R_MAX];
extern const char *const up_reason_descs[XDPONG_R_MAX];
extern const int up_reason_outcomes[XDPONG_R_MAX]; /* enum xdpong_outcome */
extern const char *const up_outcome_names[3];

/*
 * An address prefix and who put it there, as in xdpong's LPM maps:
 * XDPONG_ADDR_IFACE (ours; as a source, martian), XDPONG_ADDR_OPERATOR
 * (ours), XDPONG_ADDR_BROADCAST (a subnet broadcast: never answered; as a
 * source, martian), or UP_ADDR_NOT_OURS, a hole in a wider prefix (the
 * TUN's own address, which the kernel keeps).
 */
#define UP_ADDR_NOT_OURS 0x100
struct up_addr {
	struct pkt_prefix prefix;
	uint32_t origin;
};

struct up_config {
	const struct up_addr *addrs; /* looked up by longest prefix */
	size_t n_addrs;
	bool any_dst;        /* every unicast destination is ours (pong-hex) */
	size_t max_icmp_len; /* longer ICMP messages are passed; 0: no limit */
};

/* The origin of the longest prefix holding addr (family 4 or 6); 0 if none. */
uint32_t up_addr_origin(const struct up_config *cfg, int family, const uint8_t *addr);

/*
 * Apply the XDP program's rules, in its order (bpf/xdpong.bpf.c
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

/*
 * Hex text to bytes: whitespace between tokens, a "0x" before a token and
 * tokens ending in ':' (tcpdump -x offsets such as "0x0010:") are allowed;
 * every token must hold whole bytes. Returns the byte count, or -1 with a
 * message in why (e.g. "odd number of hex digits in '450'").
 */
long up_hex_parse(const char *text, uint8_t *buf, size_t cap, char *why,
		  size_t why_len);

/* bytes as lowercase hex digits, no spaces, no newline */
void up_hex_write(FILE *f, const uint8_t *buf, size_t len);

/*
 * Open /dev/net/tun and create, or attach to, the device name (NULL or ""
 * lets the kernel pick) as a TUN (tap false: IFF_TUN) or TAP, IFF_NO_PI.
 * The chosen name goes to actual (IFNAMSIZ bytes) if not NULL. Returns the
 * fd, or -errno.
 */
int up_tun_open(const char *name, bool tap, char *actual);

/* Set IFF_UP on ifname. 0 or -errno. */
int up_link_up(const char *ifname);

/* Add addr/len to ifindex (RTM_NEWADDR; IPv6 without DAD). 0 or -errno. */
int up_addr_add(int ifindex, const struct pkt_prefix *p);

/*
 * The destinations a user-space stack behind the TUN ifindex stands for:
 * for each address, its peer prefix (ip addr add A peer B/LEN: B/LEN) or
 * on-link prefix (A/LEN) as XDPONG_ADDR_IFACE, A itself as
 * UP_ADDR_NOT_OURS (packets to A stay in the kernel), a broadcast address
 * as XDPONG_ADDR_BROADCAST. At most cap entries into out. 0 or -errno.
 */
int up_tun_addrs(int ifindex, struct up_addr *out, size_t *n, size_t cap);

/*
 * A netlink socket subscribed to address changes, non-blocking: poll it,
 * or call up_addr_changed() to learn whether anything changed since.
 */
int up_addr_watch_open(void);
/* Drain the watch socket; true if any address change (or overflow) was queued. */
bool up_addr_changed(int fd);

/* "192.0.2.0/24" into buf (64 bytes is enough). */
const char *up_prefix_str(const struct pkt_prefix *p, char *buf, size_t size);

/* "iface", "operator", "broadcast", "not ours" */
const char *up_origin_name(uint32_t origin);

#endif /* XDPONG_USERPONG_H */
