// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The reference STAMP Session-Reflector (stamp_reference.h), from RFC 768,
 * RFC 791, RFC 8200, RFC 8762 4.3 and RFC 8972 3 and 4. Field by field,
 * then every checksum computed from scratch.
 */
#include <string.h>

#include "stamp_reference.h"

#define UDP_HLEN 8
#define PROTO_UDP 17

void stamp_ref_ip4_csum_set(uint8_t *ip)
{
	pkt_put_be16(ip + 10, 0);
	pkt_put_be16(ip + 10, pkt_csum(ip, PKT_IP4_HLEN));
}

uint16_t stamp_ref_udp_sum(const uint8_t *ip, const uint8_t *udp)
{
	uint16_t len = pkt_get_be16(udp + 4);
	uint64_t sum;

	if (ip[0] >> 4 == 4) {
		uint8_t tail[4] = { 0, PROTO_UDP, (uint8_t)(len >> 8), (uint8_t)len };

		sum = pkt_csum_partial(ip + 12, 8, 0);
		sum = pkt_csum_partial(tail, 4, sum);
	} else {
		sum = pkt_csum_pseudo6(ip + 8, ip + 24, len, PROTO_UDP);
	}
	return pkt_csum_fold(pkt_csum_partial(udp, len, sum));
}

void stamp_ref_udp_csum_set(const uint8_t *ip, uint8_t *udp)
{
	uint16_t c;

	pkt_put_be16(udp + 6, 0);
	c = (uint16_t)~stamp_ref_udp_sum(ip, udp);
	pkt_put_be16(udp + 6, c ? c : 0xffff);
}

/* Where a frame's parts are, once its headers have been judged. */
struct stamp_frame {
	size_t l3, iph; /* the IP header's offset and length */
	bool v4;
	uint8_t tc;    /* the TOS or traffic class it came with */
	uint8_t hops;  /* the TTL or hop limit it came with */
	size_t ulen;   /* the UDP datagram's length */
	bool udp_csum; /* it has a UDP checksum (IPv4 may have none) */
};

/* The IP header, as RFC 791 and RFC 8200 make it one a reflector reads:
 * NULL if it is, else what is wrong. */
static const char *judge_ip(const struct stamp_ref_config *cfg, const uint8_t *f, size_t len,
			    struct stamp_frame *sf)
{
	const uint8_t *ip;
	size_t ip_len;

	sf->l3 = cfg->framing == PKT_FRAMING_ETH ? PKT_ETH_HLEN : 0;
	if (len < sf->l3 + 1)
		return "no IP header";
	ip = f + sf->l3;
	if (cfg->framing == PKT_FRAMING_ETH &&
	    pkt_get_be16(f + 12) != (ip[0] >> 4 == 4 ? PKT_ETH_P_IP : PKT_ETH_P_IPV6))
		return "not IP, or the version is not the ethertype's";
	sf->v4 = ip[0] >> 4 == 4;
	sf->iph = sf->v4 ? PKT_IP4_HLEN : PKT_IP6_HLEN;
	if ((!sf->v4 && ip[0] >> 4 != 6) || len < sf->l3 + sf->iph + UDP_HLEN)
		return "not IPv4 or IPv6 with a UDP header";
	if (sf->v4) {
		if (ip[0] != 0x45)
			return "IPv4 options";
		if (pkt_get_be16(ip + 6) & 0x3fff)
			return "IPv4 fragment";
		if (pkt_csum(ip, PKT_IP4_HLEN))
			return "IPv4 header checksum";
		ip_len = pkt_get_be16(ip + 2);
		sf->tc = ip[1];
		sf->hops = ip[8];
	} else {
		ip_len = PKT_IP6_HLEN + pkt_get_be16(ip + 4);
		sf->tc = (uint8_t)(pkt_get_be16(ip) >> 4);
		sf->hops = ip[7];
	}
	if (ip[sf->v4 ? 9 : 6] != PROTO_UDP)
		return "not UDP";
	if (ip_len > len - sf->l3 || ip_len < sf->iph + UDP_HLEN)
		return "IP length";
	sf->ulen = ip_len - sf->iph;
	return NULL;
}

/* The UDP header and the STAMP packet: NULL if a reflector answers it. */
static const char *judge_udp(const struct stamp_ref_config *cfg, const uint8_t *f,
			     struct stamp_frame *sf)
{
	const uint8_t *ip = f + sf->l3, *udp = ip + sf->iph;

	if (pkt_get_be16(udp + 2) != cfg->port)
		return "not the STAMP port";
	if (pkt_get_be16(udp + 4) != sf->ulen)
		return "UDP length is not the IP payload's";
	if (sf->ulen < UDP_HLEN + STAMP_REF_BASE)
		return "shorter than the base packet";
	sf->udp_csum = pkt_get_be16(udp + 6) != 0;
	if (!sf->udp_csum && !sf->v4)
		return "IPv6 without a UDP checksum";
	if (sf->udp_csum && stamp_ref_udp_sum(ip, udp) != 0xffff)
		return "UDP checksum";
	return NULL;
}

/* RFC 8972 4.4: DSCP1 kept, DSCP2 and ECN as received, RP 0 (DSCP1 used),
 * Reserved zero. Returns DSCP1. */
static uint8_t answer_cos(uint8_t *value, uint8_t tc)
{
	uint8_t dscp1 = value[0] >> 2;
	uint16_t w = (uint16_t)(dscp1 << 10 | (tc >> 2) << 4 | (tc & 3) << 2);

	pkt_put_be16(value, w);
	pkt_put_be16(value + 2, 0);
	return dscp1;
}

/*
 * RFC 8972 4: the n bytes after the base packet at t, answered in place,
 * in order. A sender sets U on each TLV, so a first octet without it is
 * not a TLV: RFC 8762 padding, kept with all after it. Returns -1 for
 * more TLVs than cfg->max_tlvs, else the DSCP1 a Class of Service TLV
 * asks the reply to carry, or 64 for none.
 */
static int answer_tlvs(const struct stamp_ref_config *cfg, uint8_t *t, size_t n, uint8_t tc)
{
	uint8_t sync = cfg->errest & 0x8000 ? STAMP_SYNC_NTP : STAMP_SYNC_FREE_RUNNING;
	unsigned int count = 0;
	int dscp = 64;

	for (size_t at = 0; at < n;) {
		uint8_t *tlv = t + at;
		size_t vlen;

		if (!(tlv[0] & STAMP_TLV_U))
			break;
		if (count++ == cfg->max_tlvs)
			return -1;
		if (n - at < 4 || (vlen = pkt_get_be16(tlv + 2)) > n - at - 4) {
			tlv[0] |= STAMP_TLV_M; /* runs past the packet: the last */
			break;
		}
		if (tlv[1] == STAMP_TLV_EXTRA_PADDING || tlv[1] == STAMP_TLV_TIMESTAMP_INFO ||
		    tlv[1] == STAMP_TLV_COS)
			tlv[0] &= (uint8_t) ~(STAMP_TLV_U | STAMP_TLV_M);
		if ((tlv[1] == STAMP_TLV_TIMESTAMP_INFO || tlv[1] == STAMP_TLV_COS) && vlen != 4) {
			tlv[0] |= STAMP_TLV_M;
		} else if (tlv[1] == STAMP_TLV_TIMESTAMP_INFO) {
			/* Sync Src In, Timestamp In (T2), Sync Src Out,
			 * Timestamp Out (T3): the kernel's clock, in software. */
			const uint8_t info[4] = { sync, STAMP_TS_SW_LOCAL, sync,
						  STAMP_TS_SW_LOCAL };

			memcpy(tlv + 4, info, 4);
		} else if (tlv[1] == STAMP_TLV_COS) {
			dscp = answer_cos(tlv + 4, tc);
		}
		at += 4 + vlen;
	}
	return dscp;
}

/* RFC 8762 4.3.1 (RFC 8972 3): the reflector's base packet over the
 * sender's at s; rs the request's, hops its TTL. */
static void answer_base(const struct stamp_ref_config *cfg, uint8_t *s, const uint8_t *rs,
			const uint8_t *got_s, uint8_t hops)
{
	memcpy(s, rs, 4);            /* Sequence Number: the sender's (stateless) */
	memcpy(s + 4, got_s + 4, 8); /* T3 */
	pkt_put_be16(s + 12, cfg->errest);
	memcpy(s + 14, rs + 14, 2);    /* SSID */
	memcpy(s + 16, got_s + 16, 8); /* T2 */
	memcpy(s + 24, rs, 4);         /* Session-Sender Sequence Number */
	memcpy(s + 28, rs + 4, 8);     /* Session-Sender Timestamp */
	memcpy(s + 36, rs + 12, 2);    /* Session-Sender Error Estimate */
	memset(s + 38, 0, 2);
	s[40] = hops; /* Ses-Sender TTL: as received */
	memset(s + 41, 0, 3);
}

enum stamp_ref_verdict stamp_reference_reply(const struct stamp_ref_config *cfg,
					     const uint8_t *frame, size_t len, const uint8_t *got,
					     uint8_t *reply, const char **why)
{
	struct stamp_frame sf;
	const char *no = judge_ip(cfg, frame, len, &sf);
	size_t alen, a_off, stamp_off;
	uint8_t *ip, *udp;
	int dscp;

	if (!no)
		no = judge_udp(cfg, frame, &sf);
	if (why)
		*why = no ? no : "reflected";
	if (no)
		return STAMP_REF_KERNEL;
	alen = sf.v4 ? 4 : 16;
	a_off = sf.v4 ? 12 : 8;
	stamp_off = sf.l3 + sf.iph + UDP_HLEN;
	memcpy(reply, frame, len);
	ip = reply + sf.l3;
	udp = ip + sf.iph;
	dscp = answer_tlvs(cfg, reply + stamp_off + STAMP_REF_BASE,
			   sf.ulen - UDP_HLEN - STAMP_REF_BASE, sf.tc);
	if (dscp < 0) {
		if (why)
			*why = "more TLVs than the reflector walks";
		return STAMP_REF_KERNEL;
	}
	if (sf.l3) { /* Ethernet: the MACs swapped */
		memcpy(reply, frame + 6, 6);
		memcpy(reply + 6, frame, 6);
	}
	memcpy(ip + a_off, frame + sf.l3 + a_off + alen, alen);
	memcpy(ip + a_off + alen, frame + sf.l3 + a_off, alen);
	ip[sf.v4 ? 8 : 7] = PKT_REPLY_HOPS;
	if (dscp < 64) { /* the DSCP a Class of Service TLV asked for, ECN kept */
		uint8_t tc = (uint8_t)(dscp << 2 | (sf.tc & 3));

		if (sf.v4)
			ip[1] = tc;
		else
			pkt_put_be16(ip, (uint16_t)(0x6000 | tc << 4 | (pkt_get_be16(ip) & 0xf)));
	}
	memcpy(udp, frame + sf.l3 + sf.iph + 2, 2);
	memcpy(udp + 2, frame + sf.l3 + sf.iph, 2);
	answer_base(cfg, reply + stamp_off, frame + stamp_off, got + stamp_off, sf.hops);
	if (sf.v4)
		stamp_ref_ip4_csum_set(ip);
	if (sf.udp_csum)
		stamp_ref_udp_csum_set(ip, udp);
	return STAMP_REF_REPLY;
}
