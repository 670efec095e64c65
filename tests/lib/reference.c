// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The reference echo responder: see reference.h. Written from the RFCs,
 * byte by byte, every checksum summed from scratch.
 */
#include <string.h>

#include "reference.h"

static bool ip4_is(const uint8_t *a, uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3)
{
	return a[0] == b0 && a[1] == b1 && a[2] == b2 && a[3] == b3;
}

/* RFC 1812 5.3.7 / Linux ip_route_input: sources no host sends from. */
static bool ip4_src_martian(const uint8_t *a)
{
	return a[0] == 0 || a[0] == 127 || (a[0] & 0xf0) == 0xe0 || ip4_is(a, 255, 255, 255, 255);
}

static bool ip6_is_zero_upto(const uint8_t *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i])
			return false;
	return true;
}

static bool ip6_is_unspecified(const uint8_t *a)
{
	return ip6_is_zero_upto(a, 16);
}

static bool ip6_is_loopback(const uint8_t *a)
{
	return ip6_is_zero_upto(a, 15) && a[15] == 1;
}

#define VERDICT(v, text)             \
	do {                         \
		if (why)             \
			*why = text; \
		return v;            \
	} while (0)

static enum pkt_ref_verdict ref_ipv4(const struct pkt_ref_config *cfg, const uint8_t *ip,
				     size_t l3_len, const char *kernel, uint8_t *reply_ip,
				     const char **why)
{
	size_t hl, tot, icmp_len;
	bool group, local, fragment;
	const uint8_t *icmp;

	if (l3_len < PKT_IP4_HLEN)
		VERDICT(PKT_REF_INVALID, "shorter than an IPv4 header");
	if (ip[0] >> 4 != 4)
		VERDICT(PKT_REF_INVALID, "IP version is not 4");
	hl = (size_t)(ip[0] & 15) * 4;
	if (hl < PKT_IP4_HLEN) /* RFC 791: IHL is at least 5 */
		VERDICT(PKT_REF_INVALID, "IHL below 5");
	tot = pkt_get_be16(ip + 2);
	if (tot < hl || tot > l3_len) /* RFC 1122 3.2.1.1 */
		VERDICT(PKT_REF_INVALID, "total length beyond the frame or below IHL");
	if (pkt_csum_fold(pkt_csum_partial(ip, hl, 0)) != 0xffff)
		VERDICT(PKT_REF_INVALID, "bad IPv4 header checksum");
	if (ip4_src_martian(ip + 12))
		VERDICT(PKT_REF_INVALID, "martian source");
	/* Linux fib_validate_source: our own address as source (accept_local=0). */
	if (prefix_match(cfg->own, cfg->n_own, AF_INET, ip + 12))
		VERDICT(PKT_REF_INVALID, "source is one of our own addresses");
	/* ...or one of our subnet broadcasts (a broadcast route, not unicast) */
	if (prefix_match(cfg->broadcast, cfg->n_broadcast, AF_INET, ip + 12))
		VERDICT(PKT_REF_INVALID, "source is a subnet broadcast address");

	fragment = (pkt_get_be16(ip + 6) & 0x3fff) != 0; /* MF or an offset */
	group = (ip[16] & 0xf0) == 0xe0 || ip4_is(ip + 16, 255, 255, 255, 255) ||
		prefix_match(cfg->broadcast, cfg->n_broadcast, AF_INET, ip + 16);
	local = prefix_match(cfg->local, cfg->n_local, AF_INET, ip + 16);
	if (!kernel && hl > PKT_IP4_HLEN)
		kernel = "IPv4 options";
	if (!kernel && ip[9] != PKT_PROTO_ICMP)
		kernel = "not ICMP";
	if (!kernel && fragment)
		kernel = "fragment";
	if (!kernel && group)
		kernel = "broadcast or multicast destination";
	if (!kernel && !local)
		kernel = "destination not ours";
	if (ip[9] != PKT_PROTO_ICMP || fragment || (!local && !group))
		VERDICT(PKT_REF_KERNEL, kernel);

	/* Delivered to the host's ICMP, which checks length and checksum. */
	icmp = ip + hl;
	icmp_len = tot - hl;
	if (icmp_len < PKT_ICMP_HLEN)
		VERDICT(PKT_REF_INVALID, "ICMP message shorter than its header");
	if (pkt_csum_fold(pkt_csum_partial(icmp, icmp_len, 0)) != 0xffff)
		VERDICT(PKT_REF_INVALID, "bad ICMP checksum");
	if (!kernel && icmp[0] != PKT_ICMP_ECHO)
		kernel = "not an echo request";
	if (!kernel && (ip[12] & 0xf0) == 0xf0)
		kernel = "source in 240.0.0.0/4";
	if (!kernel && cfg->max_icmp_len && icmp_len > cfg->max_icmp_len)
		kernel = "ICMP message longer than the responder verifies";
	if (kernel)
		VERDICT(PKT_REF_KERNEL, kernel);

	/* RFC 792 echo reply: swap addresses, type 0, everything else kept. */
	if (reply_ip) {
		uint8_t *r_icmp = reply_ip + hl;

		memcpy(reply_ip + 12, ip + 16, 4);
		memcpy(reply_ip + 16, ip + 12, 4);
		reply_ip[8] = PKT_REPLY_HOPS;
		pkt_put_be16(reply_ip + 10, 0);
		pkt_put_be16(reply_ip + 10, pkt_csum(reply_ip, hl));
		r_icmp[0] = PKT_ICMP_ECHOREPLY;
		pkt_put_be16(r_icmp + 2, 0);
		pkt_put_be16(r_icmp + 2, pkt_csum(r_icmp, icmp_len));
	}
	VERDICT(PKT_REF_REPLY, "echo request");
}

static enum pkt_ref_verdict ref_ipv6(const struct pkt_ref_config *cfg, const uint8_t *ip,
				     size_t l3_len, const char *kernel, uint8_t *reply_ip,
				     const char **why)
{
	const uint8_t *src = ip + 8, *dst = ip + 24, *icmp;
	bool group, local;
	size_t plen;

	if (l3_len < PKT_IP6_HLEN)
		VERDICT(PKT_REF_INVALID, "shorter than an IPv6 header");
	if (ip[0] >> 4 != 6)
		VERDICT(PKT_REF_INVALID, "IP version is not 6");
	plen = pkt_get_be16(ip + 4);
	if (PKT_IP6_HLEN + plen > l3_len)
		VERDICT(PKT_REF_INVALID, "payload length beyond the frame");
	/* RFC 4291 2.7 and 2.5.3: never a source, never on the wire. */
	if (src[0] == 0xff)
		VERDICT(PKT_REF_INVALID, "multicast source");
	if (ip6_is_loopback(src) || ip6_is_loopback(dst))
		VERDICT(PKT_REF_INVALID, "loopback address on the wire");

	group = dst[0] == 0xff;
	local = prefix_match(cfg->local, cfg->n_local, AF_INET6, dst);
	if (!kernel && group)
		kernel = "multicast destination";
	if (!kernel && ip[6] != PKT_PROTO_ICMPV6)
		kernel = "extension header or not ICMPv6";
	if (!kernel && !local)
		kernel = "destination not ours";
	if (ip[6] != PKT_PROTO_ICMPV6 || (!local && !group))
		VERDICT(PKT_REF_KERNEL, kernel);

	icmp = ip + PKT_IP6_HLEN;
	if (plen < PKT_ICMP_HLEN)
		VERDICT(PKT_REF_INVALID, "ICMPv6 message shorter than its header");
	if (pkt_icmp6_sum(ip, icmp, plen) != 0xffff)
		VERDICT(PKT_REF_INVALID, "bad ICMPv6 checksum");
	if (icmp[0] == PKT_ICMPV6_ECHO_REQUEST && ip6_is_unspecified(src))
		VERDICT(PKT_REF_INVALID, "echo request from the unspecified address");
	if (!kernel && icmp[0] != PKT_ICMPV6_ECHO_REQUEST)
		kernel = "not an echo request";
	if (!kernel && cfg->max_icmp_len && plen > cfg->max_icmp_len)
		kernel = "ICMPv6 message longer than the responder verifies";
	if (kernel)
		VERDICT(PKT_REF_KERNEL, kernel);

	/* RFC 4443 4.2 echo reply: swap addresses, type 129, data kept. */
	if (reply_ip) {
		uint8_t *r_icmp = reply_ip + PKT_IP6_HLEN;
		uint16_t csum;

		memcpy(reply_ip + 8, dst, 16);
		memcpy(reply_ip + 24, src, 16);
		reply_ip[7] = PKT_REPLY_HOPS;
		r_icmp[0] = PKT_ICMPV6_ECHO_REPLY;
		pkt_put_be16(r_icmp + 2, 0);
		csum = (uint16_t)~pkt_icmp6_sum(reply_ip, r_icmp, plen);
		pkt_put_be16(r_icmp + 2, csum);
	}
	VERDICT(PKT_REF_REPLY, "echo request");
}

enum pkt_ref_verdict pkt_reference_reply(const struct pkt_ref_config *cfg, const uint8_t *frame,
					 size_t len, uint8_t *reply, const char **why)
{
	const char *kernel = NULL;
	enum pkt_ref_verdict v;
	size_t off = 0;
	int family;

	if (cfg->framing == PKT_FRAMING_ETH) {
		uint16_t et;

		if (len < PKT_ETH_HLEN)
			VERDICT(PKT_REF_INVALID, "shorter than an Ethernet header");
		et = pkt_get_be16(frame + 12);
		if (et != PKT_ETH_P_IP && et != PKT_ETH_P_IPV6)
			VERDICT(PKT_REF_KERNEL, "not IPv4 or IPv6");
		/* Group bit (IEEE 802): never answer to or from a group MAC. */
		if ((frame[0] & 1) || (frame[6] & 1))
			kernel = "group MAC address";
		else if (cfg->check_mac && memcmp(frame, cfg->mac, 6))
			kernel = "sent to another host's MAC";
		family = et == PKT_ETH_P_IP ? 4 : 6;
		off = PKT_ETH_HLEN;
	} else {
		if (len < 1)
			VERDICT(PKT_REF_INVALID, "empty");
		family = (frame[0] >> 4) == 6 ? 6 : 4;
	}

	if (reply)
		memcpy(reply, frame, len);
	if (family == 4)
		v = ref_ipv4(cfg, frame + off, len - off, kernel, reply ? reply + off : NULL, why);
	else
		v = ref_ipv6(cfg, frame + off, len - off, kernel, reply ? reply + off : NULL, why);
	if (v == PKT_REF_REPLY && reply && off) {
		memcpy(reply, frame + 6, 6);
		memcpy(reply + 6, frame, 6);
	}
	return v;
}
