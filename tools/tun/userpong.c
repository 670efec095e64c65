// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpong's echo rules in user space: see userpong.h. */
#include <stdio.h>
#include <string.h>

#include "userpong.h"

uint16_t up_csum_update16(uint16_t csum, uint16_t m, uint16_t m_new)
{
	uint64_t sum = (uint16_t)~csum + (uint16_t)~m + (uint64_t)m_new;

	return (uint16_t)~pkt_csum_fold(sum);
}

int up_addr_arg(const char *prog, const char *text, struct up_config *cfg, struct up_addr *addrs,
		size_t max)
{
	if (cfg->n_addrs >= max || prefix_parse(text, &addrs[cfg->n_addrs].prefix)) {
		fprintf(stderr,
			"%s: invalid prefix '%s' (expected ADDR or ADDR/LEN, at most %zu)\n", prog,
			text, max);
		return -1;
	}
	addrs[cfg->n_addrs++].origin = XDPONG_ADDR_OPERATOR;
	return 0;
}

uint32_t up_addr_origin(const struct up_config *cfg, int family, const uint8_t *addr)
{
	uint32_t origin = 0;
	int best = -1;

	for (size_t i = 0; i < cfg->n_addrs; i++) {
		const struct up_addr *a = &cfg->addrs[i];

		/* Longest prefix wins, as in the kernel's LPM trie. */
		if ((int)a->prefix.len > best &&
		    prefix_match(&a->prefix, 1, family == 4 ? AF_INET : AF_INET6, addr)) {
			best = (int)a->prefix.len;
			origin = a->origin;
		}
	}
	return origin;
}

/* Is dst ours to answer? If not, *why says which reason the packet gets. */
static bool dst_is_ours(const struct up_config *cfg, int family, const uint8_t *dst,
			enum xdpong_reason *why)
{
	if (cfg->any_dst)
		return true;
	switch (up_addr_origin(cfg, family, dst)) {
	case XDPONG_ADDR_IFACE:
	case XDPONG_ADDR_OPERATOR:
		return true;
	case XDPONG_ADDR_BROADCAST: /* a subnet broadcast in a unicast frame */
		*why = REASON(pass_dst_group);
		return false;
	}
	*why = REASON(pass_dst_not_local);
	return false;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

static enum xdpong_reason answer4(const struct up_config *cfg, uint8_t *ip, size_t len)
{
	static const uint8_t all_ones[4] = { 255, 255, 255, 255 };
	size_t hl, tot, icmp_len;
	enum xdpong_reason r;
	uint16_t csum, m;
	uint8_t *icmp, s0, tmp[4];
	uint32_t origin;

	if (len < PKT_IP4_HLEN)
		return REASON(drop_truncated);
	/* In the XDP program's order: the protocol first, then what an
	 * ICMP message takes, the checksums only for an echo request. */
	if (ip[9] != PKT_PROTO_ICMP)
		return REASON(pass_not_icmp);
	if (ip[0] >> 4 != 4)
		return REASON(drop_bad_version);
	hl = (size_t)(ip[0] & 15) * 4;
	if (hl < PKT_IP4_HLEN)
		return REASON(drop_bad_ihl);
	tot = pkt_get_be16(ip + 2);
	if (tot < hl || tot > len)
		return REASON(drop_bad_length);
	if (hl > PKT_IP4_HLEN)
		return REASON(pass_ip_options);
	if (pkt_get_be16(ip + 6) & XDPONG_IP_MF_OFFSET)
		return REASON(pass_fragment);
	if ((ip[16] & 0xf0) == 0xe0 || !memcmp(ip + 16, all_ones, 4))
		return REASON(pass_dst_group);
	if (!dst_is_ours(cfg, 4, ip + 16, &r))
		return r;
	icmp_len = tot - PKT_IP4_HLEN;
	if (icmp_len < PKT_ICMP_HLEN)
		return REASON(drop_bad_length);
	icmp = ip + PKT_IP4_HLEN;
	if (icmp[0] != PKT_ICMP_ECHO)
		return REASON(pass_not_echo);
	/* RFC 1071: a header with a correct checksum sums to 0xffff. */
	if (pkt_csum_fold(pkt_csum_partial(ip, PKT_IP4_HLEN, 0)) != 0xffff)
		return REASON(drop_bad_ip_csum);
	/* Martian sources (RFC 1812 5.3.7): 0/8, 127/8, 224/4, broadcast. */
	s0 = ip[12];
	if (s0 == 0 || s0 == 127 || (s0 & 0xf0) == 0xe0 || !memcmp(ip + 12, all_ones, 4))
		return REASON(drop_martian_src);
	if ((s0 & 0xf0) == 0xf0)
		return REASON(pass_src_reserved);
	/* Linux drops its own address (accept_local=0) or a subnet broadcast as source. */
	origin = up_addr_origin(cfg, 4, ip + 12);
	if (origin == XDPONG_ADDR_IFACE || origin == XDPONG_ADDR_BROADCAST)
		return REASON(drop_martian_src);
	if (cfg->max_icmp_len && icmp_len > cfg->max_icmp_len)
		return REASON(pass_too_big);
	if (pkt_csum_fold(pkt_csum_partial(icmp, icmp_len, 0)) != 0xffff)
		return REASON(drop_bad_icmp_csum);

	/* RFC 792 echo reply: addresses swapped, type 0, TTL 64, rest kept. */
	memcpy(tmp, ip + 12, 4);
	memcpy(ip + 12, ip + 16, 4);
	memcpy(ip + 16, tmp, 4);
	m = pkt_get_be16(ip + 8); /* TTL and protocol share a word */
	ip[8] = XDPONG_REPLY_HOPS;
	pkt_put_be16(ip + 10, up_csum_update16(pkt_get_be16(ip + 10), m, pkt_get_be16(ip + 8)));
	m = pkt_get_be16(icmp);
	icmp[0] = PKT_ICMP_ECHOREPLY;
	csum = up_csum_update16(pkt_get_be16(icmp + 2), m, pkt_get_be16(icmp));
	/* Eqn 3 gives 0x0000 for an all-zero reply; RFC 1071 wants 0xffff. */
	if (csum == 0 && all_zero(icmp, 2) && all_zero(icmp + 4, icmp_len - 4))
		csum = 0xffff;
	pkt_put_be16(icmp + 2, csum);
	return REASON(reply_echo4);
}

static enum xdpong_reason answer6(const struct up_config *cfg, uint8_t *ip, size_t len)
{
	uint8_t *src = ip + 8, *dst = ip + 24, *icmp, tmp[16];
	enum xdpong_reason r;
	size_t plen;
	uint16_t m;

	if (len < PKT_IP6_HLEN)
		return REASON(drop_truncated);
	/* The next header first, as in the XDP program. */
	if (ip[6] != PKT_PROTO_ICMPV6)
		return xdpong_ipv6_ext_header(ip[6]) ? REASON(pass_ipv6_ext) :
						       REASON(pass_not_icmp);
	if (ip[0] >> 4 != 6)
		return REASON(drop_bad_version);
	plen = pkt_get_be16(ip + 4);
	if (PKT_IP6_HLEN + plen > len)
		return REASON(drop_bad_length);
	/* Multicast echo: a kernel answers those from a unicast source. */
	if (dst[0] == 0xff)
		return REASON(pass_dst_group);
	if (!dst_is_ours(cfg, 6, dst, &r))
		return r;
	if (plen < PKT_ICMP_HLEN)
		return REASON(drop_bad_length);
	icmp = ip + PKT_IP6_HLEN;
	if (icmp[0] != PKT_ICMPV6_ECHO_REQUEST)
		return REASON(pass_not_echo);
	/* RFC 4291 2.7, 2.5.2, 2.5.3: multicast, :: and ::1 are no sources. */
	if (src[0] == 0xff || (all_zero(src, 15) && src[15] <= 1))
		return REASON(drop_martian_src);
	if (cfg->max_icmp_len && plen > cfg->max_icmp_len)
		return REASON(pass_too_big);
	/* RFC 8200 8.1: the checksum covers a pseudo-header too. */
	if (pkt_icmp6_sum(ip, icmp, plen) != 0xffff)
		return REASON(drop_bad_icmp_csum);

	/* RFC 4443 4.2: swapping the addresses leaves the pseudo-header sum alone. */
	memcpy(tmp, src, 16);
	memcpy(src, dst, 16);
	memcpy(dst, tmp, 16);
	ip[7] = XDPONG_REPLY_HOPS; /* hop limit: not in the pseudo-header */
	m = pkt_get_be16(icmp);
	icmp[0] = PKT_ICMPV6_ECHO_REPLY;
	/* The pseudo-header's next header (58) keeps the sum off the zero corner. */
	pkt_put_be16(icmp + 2, up_csum_update16(pkt_get_be16(icmp + 2), m, pkt_get_be16(icmp)));
	return REASON(reply_echo6);
}

enum xdpong_reason up_answer(const struct up_config *cfg, uint8_t *pkt, size_t len)
{
	if (len < 1)
		return REASON(drop_truncated);
	/* IP framing: the version nibble says the family, as in the XDP program. */
	if (pkt[0] >> 4 == 6)
		return answer6(cfg, pkt, len);
	return answer4(cfg, pkt, len);
}
