// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packet helpers: see packet.h. Written from the RFCs, byte by byte, so
 * that it judges the XDP program instead of repeating it: no word casts,
 * no incremental updates, every checksum summed from scratch.
 */
#include <arpa/inet.h>
#include <stdio.h>
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

void pkt_pseudo6_tail(uint8_t tail[8], uint32_t upper_len, uint8_t nexthdr)
{
	tail[0] = (uint8_t)(upper_len >> 24);
	tail[1] = (uint8_t)(upper_len >> 16);
	tail[2] = (uint8_t)(upper_len >> 8);
	tail[3] = (uint8_t)upper_len;
	tail[4] = tail[5] = tail[6] = 0;
	tail[7] = nexthdr;
}

uint64_t pkt_csum_pseudo6(const uint8_t src[16], const uint8_t dst[16], uint32_t upper_len,
			  uint8_t nexthdr)
{
	uint8_t tail[8];
	uint64_t sum;

	pkt_pseudo6_tail(tail, upper_len, nexthdr);
	sum = pkt_csum_partial(src, 16, 0);
	sum = pkt_csum_partial(dst, 16, sum);
	return pkt_csum_partial(tail, 8, sum);
}

uint16_t pkt_icmp6_sum(const uint8_t *ip6, const uint8_t *icmp, size_t len)
{
	return pkt_csum_fold(pkt_csum_pseudo6(ip6 + 8, ip6 + 24, (uint32_t)len, PKT_PROTO_ICMPV6) +
			     pkt_csum_partial(icmp, len, 0));
}

/* Where the IP header starts and which family it is; -1 if not IP. */
static int locate_l3(const uint8_t *frame, size_t len, enum pkt_framing framing, size_t *l3_off)
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

const char *pkt_verify_csums(const uint8_t *frame, size_t len, enum pkt_framing framing)
{
	size_t off, l3_len, hl, tot, plen;
	const uint8_t *ip;
	uint8_t tail[8];
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
	/* The pseudo-header's layout from its helper, summed this path's way. */
	pkt_pseudo6_tail(tail, (uint32_t)plen, PKT_PROTO_ICMPV6);
	pseudo = (uint32_t)verify_sum(ip + 8, 32, 0) + verify_sum(tail, 8, 0);
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
	pkt_put_be16(icmp + 2, (uint16_t)~pkt_icmp6_sum(ip, icmp, plen));
}

/* ---- Frame builder ---- */

void pkt_spec_init(struct pkt_spec *s, int family, enum pkt_framing framing)
{
	static const uint8_t dst_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	static const uint8_t src_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	static const uint8_t src4[4] = { 203, 0, 113, 7 };
	static const uint8_t dst4[4] = { 192, 0, 2, 1 };
	static const uint8_t src6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, [15] = 7 };
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

/* pkt_build's IPv6 header, before any extension headers in s->opts. */
static void put_ip6_header(const struct pkt_spec *s, uint8_t *ip, size_t icmp_len)
{
	uint32_t w = (uint32_t)((s->version ? s->version : 6) & 15) << 28 | (uint32_t)s->tos << 20 |
		     (s->flow & 0xfffff);

	ip[0] = w >> 24;
	ip[1] = (w >> 16) & 0xff;
	ip[2] = (w >> 8) & 0xff;
	ip[3] = w & 0xff;
	pkt_put_be16(ip + 4, (uint16_t)(s->opts_len + icmp_len + s->len_delta));
	ip[6] = s->proto;
	ip[7] = s->ttl;
	memcpy(ip + 8, s->ip6_src, 16);
	memcpy(ip + 24, s->ip6_dst, 16);
}

/* pkt_build's IPv4 header of hl bytes with options; checksum 0 for now. */
static void put_ip4_header(const struct pkt_spec *s, uint8_t *ip, size_t hl, size_t icmp_len)
{
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
		pkt_put_be16(buf + 12, s->ethertype   ? s->ethertype :
				       s->family == 6 ? PKT_ETH_P_IPV6 :
							PKT_ETH_P_IP);
		off = PKT_ETH_HLEN;
	}
	l3 = off;
	ip = buf + l3;
	if (s->family == 6)
		put_ip6_header(s, ip, icmp_len);
	else
		put_ip4_header(s, ip, hl, icmp_len);
	if (s->opts_len)
		memcpy(ip + hl - s->opts_len, s->opts, s->opts_len);

	icmp_off = l3 + hl;
	buf[icmp_off] = s->icmp_type;
	buf[icmp_off + 1] = s->icmp_code;
	pkt_put_be16(buf + icmp_off + 2, 0);
	pkt_put_be16(buf + icmp_off + 4, s->icmp_id);
	pkt_put_be16(buf + icmp_off + 6, s->icmp_seq);
	for (i = 0; i < s->payload_len; i++)
		buf[icmp_off + PKT_ICMP_HLEN + i] = s->payload ? s->payload[i] :
						    s->payload_fill == PKT_FILL_COUNT ?
								 (uint8_t)i :
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
