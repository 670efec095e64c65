// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packet helpers: see packet.h. Written from the RFCs, byte by byte, so
 * that it judges the XDP program instead of repeating it: no word casts,
 * no incremental updates, every checksum summed from scratch.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "packet.h"

/* ---- RFC 1071 Internet checksum ---- */

uint64_t pkt_csum_partial(const void *buf, size_t len, uint64_t sum)
{
	const uint8_t *p = buf;
	size_t i;

	/* RFC 1071 4.1: sum 16-bit words; deferred carries fold later. */
	for (i = 0; i + 1 < len; i += 2)
		sum += pkt_get_be16(p + i);
	if (len & 1)
		sum += (uint16_t)(p[len - 1] << 8); /* odd byte padded with zero */
	return sum;
}

uint16_t pkt_csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint16_t pkt_csum(const void *buf, size_t len)
{
	return (uint16_t)~pkt_csum_fold(pkt_csum_partial(buf, len, 0));
}

uint64_t pkt_csum_pseudo6(const uint8_t src[16], const uint8_t dst[16],
			  uint32_t upper_len, uint8_t nexthdr)
{
	uint64_t sum = 0;

	sum = pkt_csum_partial(src, 16, sum);
	sum = pkt_csum_partial(dst, 16, sum);
	sum += upper_len >> 16;
	sum += upper_len & 0xffff;
	sum += nexthdr; /* three zero bytes, then the next header value */
	return sum;
}

/* Where the IP header starts and which family it is; -1 if not IP. */
static int locate_l3(const uint8_t *frame, size_t len, enum pkt_framing framing,
		     size_t *l3_off)
{
	uint16_t et;

	if (framing == PKT_FRAMING_IP) {
		*l3_off = 0;
		if (len < 1)
			return -1;
		return (frame[0] >> 4) == 6 ? 6 : 4;
	}
	if (len < PKT_ETH_HLEN)
		return -1;
	*l3_off = PKT_ETH_HLEN;
	et = pkt_get_be16(frame + 12);
	if (et == PKT_ETH_P_IP)
		return 4;
	if (et == PKT_ETH_P_IPV6)
		return 6;
	return -1;
}

/*
 * RFC 1071 2(B): the sum is byte-order independent, so the verifier adds
 * little-endian words; a sum path of its own, independent of the builder's.
 */
static uint16_t verify_sum(const uint8_t *p, size_t len, uint32_t sum_swapped)
{
	uint64_t sum = sum_swapped;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] | (uint32_t)p[i + 1] << 8;
	if (len & 1)
		sum += p[len - 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum; /* byte-swapped sum; 0xffff is its own swap */
}

const char *pkt_verify_csums(const uint8_t *frame, size_t len,
			     enum pkt_framing framing)
{
	size_t off, l3_len, hl, tot, plen;
	const uint8_t *ip;
	uint32_t pseudo;
	int family;

	family = locate_l3(frame, len, framing, &off);
	if (family < 0)
		return "not an IP frame";
	ip = frame + off;
	l3_len = len - off;
	if (family == 4) {
		if (l3_len < PKT_IP4_HLEN || (ip[0] >> 4) != 4)
			return "no IPv4 header";
		hl = (size_t)(ip[0] & 15) * 4;
		tot = pkt_get_be16(ip + 2);
		if (hl < PKT_IP4_HLEN || tot < hl + PKT_ICMP_HLEN || tot > l3_len)
			return "IPv4 lengths inconsistent";
		if (verify_sum(ip, hl, 0) != 0xffff)
			return "IPv4 header checksum does not sum to 0xffff";
		if (ip[9] != PKT_PROTO_ICMP)
			return "not ICMP";
		if (verify_sum(ip + hl, tot - hl, 0) != 0xffff)
			return "ICMP checksum does not sum to 0xffff";
		return NULL;
	}
	if (l3_len < PKT_IP6_HLEN || (ip[0] >> 4) != 6)
		return "no IPv6 header";
	plen = pkt_get_be16(ip + 4);
	if (plen < PKT_ICMP_HLEN || PKT_IP6_HLEN + plen > l3_len)
		return "IPv6 payload length inconsistent";
	if (ip[6] != PKT_PROTO_ICMPV6)
		return "not ICMPv6";
	/* Length and next header of the pseudo-header, byte-swapped too. */
	pseudo = (uint32_t)((plen & 0xff) << 8 | plen >> 8) + (PKT_PROTO_ICMPV6 << 8);
	pseudo += verify_sum(ip + 8, 32, 0);
	if (verify_sum(ip + PKT_IP6_HLEN, plen, pseudo) != 0xffff)
		return "ICMPv6 checksum with pseudo-header does not sum to 0xffff";
	return NULL;
}

void pkt_fix_csums(uint8_t *frame, size_t len, enum pkt_framing framing)
{
	size_t off, l3_len, hl, tot, plen;
	uint8_t *ip, *icmp;
	int family;

	family = locate_l3(frame, len, framing, &off);
	if (family < 0)
		return;
	ip = frame + off;
	l3_len = len - off;
	if (family == 4) {
		if (l3_len < PKT_IP4_HLEN)
			return;
		hl = (size_t)(ip[0] & 15) * 4;
		if (hl < PKT_IP4_HLEN || hl > l3_len)
			return;
		pkt_put_be16(ip + 10, 0);
		pkt_put_be16(ip + 10, pkt_csum(ip, hl));
		tot = pkt_get_be16(ip + 2);
		if (ip[9] != PKT_PROTO_ICMP || tot < hl + 4 || tot > l3_len)
			return;
		icmp = ip + hl;
		pkt_put_be16(icmp + 2, 0);
		pkt_put_be16(icmp + 2, pkt_csum(icmp, tot - hl));
		return;
	}
	if (l3_len < PKT_IP6_HLEN)
		return;
	plen = pkt_get_be16(ip + 4);
	if (ip[6] != PKT_PROTO_ICMPV6 || plen < 4 || PKT_IP6_HLEN + plen > l3_len)
		return;
	icmp = ip + PKT_IP6_HLEN;
	pkt_put_be16(icmp + 2, 0);
	pkt_put_be16(icmp + 2,
		 (uint16_t)~pkt_csum_fold(pkt_csum_pseudo6(ip + 8, ip + 24,
							   (uint32_t)plen,
							   PKT_PROTO_ICMPV6) +
					  pkt_csum_partial(icmp, plen, 0)));
}

/* ---- Frame builder ---- */

void pkt_spec_init(struct pkt_spec *s, int family, enum pkt_framing framing)
{
	static const uint8_t dst_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	static const uint8_t src_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	static const uint8_t src4[4] = { 203, 0, 113, 7 };
	static const uint8_t dst4[4] = { 192, 0, 2, 1 };
	static const uint8_t src6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff,
					  [15] = 7 };
	static const uint8_t dst6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };

	memset(s, 0, sizeof(*s));
	s->framing = framing;
	s->family = family;
	memcpy(s->eth_dst, dst_mac, 6);
	memcpy(s->eth_src, src_mac, 6);
	s->ttl = 64;
	memcpy(s->ip4_src, src4, 4);
	memcpy(s->ip4_dst, dst4, 4);
	memcpy(s->ip6_src, src6, 16);
	memcpy(s->ip6_dst, dst6, 16);
	s->ip_id = 0x1c46;
	if (family == 6) {
		s->proto = PKT_PROTO_ICMPV6;
		s->icmp_type = PKT_ICMPV6_ECHO_REQUEST;
	} else {
		s->frag = 0x4000; /* DF, as ping sets it */
		s->proto = PKT_PROTO_ICMP;
		s->icmp_type = PKT_ICMP_ECHO;
	}
	s->icmp_id = 0x1234;
	s->icmp_seq = 1;
	s->payload_len = 56;
	s->payload_fill = PKT_FILL_COUNT;
}

size_t pkt_build(const struct pkt_spec *s, uint8_t *buf, size_t cap)
{
	size_t off = 0, l3, hl, icmp_off, icmp_len, len, i;
	uint64_t sum;
	uint16_t csum;
	uint8_t *ip;

	icmp_len = PKT_ICMP_HLEN + s->payload_len;
	hl = (s->family == 6 ? PKT_IP6_HLEN : PKT_IP4_HLEN) + s->opts_len;
	len = (s->framing == PKT_FRAMING_ETH ? PKT_ETH_HLEN : 0) + hl + icmp_len;
	if (len + s->pad_len > cap || s->pad_to > cap)
		return 0;

	if (s->framing == PKT_FRAMING_ETH) {
		memcpy(buf, s->eth_dst, 6);
		memcpy(buf + 6, s->eth_src, 6);
		pkt_put_be16(buf + 12, s->ethertype ? s->ethertype :
				   s->family == 6 ? PKT_ETH_P_IPV6 : PKT_ETH_P_IP);
		off = PKT_ETH_HLEN;
	}
	l3 = off;
	ip = buf + l3;
	if (s->family == 6) {
		uint32_t w = (uint32_t)((s->version ? s->version : 6) & 15) << 28 |
			     (uint32_t)s->tos << 20 | (s->flow & 0xfffff);

		ip[0] = w >> 24;
		ip[1] = (w >> 16) & 0xff;
		ip[2] = (w >> 8) & 0xff;
		ip[3] = w & 0xff;
		pkt_put_be16(ip + 4, (uint16_t)(s->opts_len + icmp_len + s->len_delta));
		ip[6] = s->proto;
		ip[7] = s->ttl;
		memcpy(ip + 8, s->ip6_src, 16);
		memcpy(ip + 24, s->ip6_dst, 16);
	} else {
		ip[0] = (uint8_t)(((s->version ? s->version : 4) & 15) << 4 |
				  ((s->ihl ? s->ihl : hl / 4) & 15));
		ip[1] = s->tos;
		pkt_put_be16(ip + 2, (uint16_t)(hl + icmp_len + s->len_delta));
		pkt_put_be16(ip + 4, s->ip_id);
		pkt_put_be16(ip + 6, s->frag);
		ip[8] = s->ttl;
		ip[9] = s->proto;
		pkt_put_be16(ip + 10, 0);
		memcpy(ip + 12, s->ip4_src, 4);
		memcpy(ip + 16, s->ip4_dst, 4);
	}
	if (s->opts_len)
		memcpy(ip + hl - s->opts_len, s->opts, s->opts_len);

	icmp_off = l3 + hl;
	buf[icmp_off] = s->icmp_type;
	buf[icmp_off + 1] = s->icmp_code;
	pkt_put_be16(buf + icmp_off + 2, 0);
	pkt_put_be16(buf + icmp_off + 4, s->icmp_id);
	pkt_put_be16(buf + icmp_off + 6, s->icmp_seq);
	for (i = 0; i < s->payload_len; i++)
		buf[icmp_off + PKT_ICMP_HLEN + i] =
			s->payload ? s->payload[i] :
			s->payload_fill == PKT_FILL_COUNT ? (uint8_t)i :
							    (uint8_t)s->payload_fill;

	sum = pkt_csum_partial(buf + icmp_off, icmp_len, 0);
	if (s->family == 6) /* RFC 8200 8.1: ICMPv6 includes the pseudo-header */
		sum += pkt_csum_pseudo6(s->ip6_src, s->ip6_dst, (uint32_t)icmp_len,
					PKT_PROTO_ICMPV6);
	csum = (uint16_t)(~pkt_csum_fold(sum) + s->icmp_csum_delta);
	pkt_put_be16(buf + icmp_off + 2, csum);
	if (s->family == 4) {
		csum = (uint16_t)(pkt_csum(ip, hl) + s->ip_csum_delta);
		pkt_put_be16(ip + 10, csum);
	}

	for (i = 0; i < s->pad_len; i++)
		buf[len++] = s->pad_byte;
	while (len < s->pad_to)
		buf[len++] = s->pad_byte;
	if (s->truncate && s->truncate < len)
		len = s->truncate;
	return len;
}

/* ---- Reference responder ---- */

bool pkt_prefix_match(const struct pkt_prefix *p, size_t n, int family,
		      const uint8_t *addr)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int bits = p[i].len, full = bits / 8;

		if (p[i].family != family || bits > (family == 4 ? 32u : 128u))
			continue;
		if (memcmp(p[i].addr, addr, full))
			continue;
		if (bits % 8) {
			uint8_t mask = (uint8_t)(0xff << (8 - bits % 8));

			if ((p[i].addr[full] & mask) != (addr[full] & mask))
				continue;
		}
		return true;
	}
	return false;
}

int pkt_prefix_parse(const char *text, struct pkt_prefix *p)
{
	char addr[64], *slash, *end;
	unsigned long bits;

	if (strlen(text) >= sizeof(addr))
		return -1;
	strcpy(addr, text);
	slash = strchr(addr, '/');
	if (slash)
		*slash = '\0';
	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET, addr, p->addr) == 1)
		p->family = 4;
	else if (inet_pton(AF_INET6, addr, p->addr) == 1)
		p->family = 6;
	else
		return -1;
	p->len = p->family == 4 ? 32 : 128;
	if (!slash)
		return 0;
	if (!slash[1])
		return -1;
	bits = strtoul(slash + 1, &end, 10);
	if (*end || bits > p->len)
		return -1;
	p->len = (unsigned int)bits;
	return 0;
}

static bool ip4_is(const uint8_t *a, uint8_t b0, uint8_t b1, uint8_t b2,
		   uint8_t b3)
{
	return a[0] == b0 && a[1] == b1 && a[2] == b2 && a[3] == b3;
}

/* RFC 1812 5.3.7 / Linux ip_route_input: sources no host sends from. */
static bool ip4_src_martian(const uint8_t *a)
{
	return a[0] == 0 || a[0] == 127 || (a[0] & 0xf0) == 0xe0 ||
	       ip4_is(a, 255, 255, 255, 255);
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

static enum pkt_ref_verdict ref_ipv4(const struct pkt_ref_config *cfg,
				     const uint8_t *ip, size_t l3_len,
				     const char *kernel, uint8_t *reply_ip,
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
	if (pkt_prefix_match(cfg->own, cfg->n_own, 4, ip + 12))
		VERDICT(PKT_REF_INVALID, "source is one of our own addresses");
	/* ...or one of our subnet broadcasts (a broadcast route, not unicast) */
	if (pkt_prefix_match(cfg->broadcast, cfg->n_broadcast, 4, ip + 12))
		VERDICT(PKT_REF_INVALID, "source is a subnet broadcast address");

	fragment = (pkt_get_be16(ip + 6) & 0x3fff) != 0; /* MF or an offset */
	group = (ip[16] & 0xf0) == 0xe0 || ip4_is(ip + 16, 255, 255, 255, 255) ||
		pkt_prefix_match(cfg->broadcast, cfg->n_broadcast, 4, ip + 16);
	local = pkt_prefix_match(cfg->local, cfg->n_local, 4, ip + 16);
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

static enum pkt_ref_verdict ref_ipv6(const struct pkt_ref_config *cfg,
				     const uint8_t *ip, size_t l3_len,
				     const char *kernel, uint8_t *reply_ip,
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
	local = pkt_prefix_match(cfg->local, cfg->n_local, 6, dst);
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
	if (pkt_csum_fold(pkt_csum_pseudo6(src, dst, (uint32_t)plen,
					   PKT_PROTO_ICMPV6) +
			  pkt_csum_partial(icmp, plen, 0)) != 0xffff)
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
		csum = (uint16_t)~pkt_csum_fold(
			pkt_csum_pseudo6(reply_ip + 8, reply_ip + 24,
					 (uint32_t)plen, PKT_PROTO_ICMPV6) +
			pkt_csum_partial(r_icmp, plen, 0));
		pkt_put_be16(r_icmp + 2, csum);
	}
	VERDICT(PKT_REF_REPLY, "echo request");
}

enum pkt_ref_verdict pkt_reference_reply(const struct pkt_ref_config *cfg,
					 const uint8_t *frame, size_t len,
					 uint8_t *reply, const char **why)
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
		v = ref_ipv4(cfg, frame + off, len - off, kernel,
			     reply ? reply + off : NULL, why);
	else
		v = ref_ipv6(cfg, frame + off, len - off, kernel,
			     reply ? reply + off : NULL, why);
	if (v == PKT_REF_REPLY && reply && off) {
		memcpy(reply, frame + 6, 6);
		memcpy(reply + 6, frame, 6);
	}
	return v;
}

/* ---- Hex dumps ---- */

void pkt_hexdump(FILE *f, const char *indent, const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i += 16) {
		fprintf(f, "%s%04zx:", indent, i);
		for (size_t j = i; j < i + 16 && j < len; j++)
			fprintf(f, " %02x", buf[j]);
		fputc('\n', f);
	}
}

void pkt_hexline(FILE *f, const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		fprintf(f, "%02x", buf[i]);
	fputc('\n', f);
}

#define HEXDIFF_MAX_LINES 12

/* One byte as " xx", or blanks past the end of buf. */
static void hexbyte(FILE *f, const uint8_t *buf, size_t len, size_t i)
{
	if (i < len)
		fprintf(f, " %02x", buf[i]);
	else
		fputs("   ", f);
}

size_t pkt_hexdiff(FILE *f, const char *indent, const uint8_t *got,
		   size_t got_len, const uint8_t *want, size_t want_len)
{
	size_t n = got_len > want_len ? got_len : want_len;
	size_t ndiff = 0, lines = 0, skipped = 0, last;

	for (size_t i = 0; i < n; i += 16) {
		bool differs = false;

		for (size_t j = i; j < i + 16 && j < n; j++) {
			if (j >= got_len || j >= want_len || got[j] != want[j]) {
				differs = true;
				if (j < got_len && j < want_len)
					ndiff++;
			}
		}
		if (!differs)
			continue;
		if (lines++ >= HEXDIFF_MAX_LINES) {
			skipped++;
			continue;
		}
		fprintf(f, "%s%04zx got: ", indent, i);
		for (size_t j = i; j < i + 16 && j < n; j++)
			hexbyte(f, got, got_len, j);
		fprintf(f, "\n%s    want: ", indent);
		for (size_t j = i; j < i + 16 && j < n; j++)
			hexbyte(f, want, want_len, j);
		fprintf(f, "\n%s          ", indent);
		last = i;
		for (size_t j = i; j < i + 16 && j < n; j++)
			if (j >= got_len || j >= want_len || got[j] != want[j])
				last = j;
		for (size_t j = i; j <= last; j++)
			fputs(j < got_len && j < want_len && got[j] == want[j] ?
				      "   " : " ^^", f);
		fputc('\n', f);
	}
	if (skipped)
		fprintf(f, "%s(%zu more differing lines)\n", indent, skipped);
	if (got_len != want_len) {
		fprintf(f, "%slength: got %zu, want %zu\n", indent, got_len,
			want_len);
		ndiff++;
	}
	return ndiff;
}
