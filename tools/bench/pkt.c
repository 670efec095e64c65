// SPDX-License-Identifier: GPL-2.0
/*
 * Test frames: IPv4/IPv6 echo requests, a UDP datagram, a TCP segment and a
 * STAMP test packet, from lib/'s builder.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include "driver.h"
#include "packet.h"

/* The bench's addresses and MACs on an echo request of family 4 or 6. */
static void spec_init(struct pkt_spec *s, int family, __u16 seq)
{
	static const __u8 src[6] = MAC_SENDER, dst[6] = MAC_RESPONDER;

	pkt_spec_init(s, family, PKT_FRAMING_ETH);
	memcpy(s->eth_dst, dst, 6);
	memcpy(s->eth_src, src, 6);
	s->ttl = 64; /* = xdpong's reply TTL: see cost.c */
	s->ip_id = 0x1234;
	inet_pton(AF_INET, IP4_SENDER, s->ip4_src);
	inet_pton(AF_INET, IP4_RESPONDER, s->ip4_dst);
	inet_pton(AF_INET6, IP6_SENDER, s->ip6_src);
	inet_pton(AF_INET6, IP6_RESPONDER, s->ip6_dst);
	s->icmp_id = ECHO_ID;
	s->icmp_seq = seq;
}

/* pkt_build() with ping's payload pattern (byte i is 0x10 + i); -1 if it does not fit. */
static int build(struct pkt_spec *s, size_t payload_len, __u8 *buf, size_t size)
{
	__u8 *payload = malloc(payload_len ? payload_len : 1);
	size_t len;

	if (!payload)
		return -1;
	for (size_t i = 0; i < payload_len; i++)
		payload[i] = (__u8)(0x10 + i);
	s->payload = payload;
	s->payload_len = payload_len;
	len = pkt_build(s, buf, size);
	free(payload);
	return len ? (int)len : -1;
}

int frame_echo4(__u8 *buf, size_t size, unsigned int ip_len, __u16 seq)
{
	struct pkt_spec s;

	if (ip_len < PKT_IP4_HLEN + PKT_ICMP_HLEN)
		return -1;
	spec_init(&s, 4, seq); /* DF set, as ping sends */
	return build(&s, ip_len - PKT_IP4_HLEN - PKT_ICMP_HLEN, buf, size);
}

int frame_echo6(__u8 *buf, size_t size, unsigned int payload_len, __u16 seq)
{
	struct pkt_spec s;

	spec_init(&s, 6, seq);
	return build(&s, payload_len, buf, size);
}

/*
 * An IPv4 frame of ip_len bytes carrying hdr (a UDP or TCP header) and zero
 * data: the builder writes an ICMP header (8 bytes) and payload, and hdr goes
 * over their start. The IP header checksum is right; the L4 one is not
 * filled (see the callers).
 */
static int frame_l4(__u8 *buf, size_t size, unsigned int ip_len, __u8 proto, const void *hdr,
		    size_t hdr_len)
{
	struct pkt_spec s;
	int len;

	if (ip_len < PKT_IP4_HLEN + hdr_len)
		return -1;
	spec_init(&s, 4, 0);
	s.proto = proto; /* before pkt_build() sums the IP header */
	len = build(&s, ip_len - PKT_IP4_HLEN - PKT_ICMP_HLEN, buf, size);
	if (len > 0)
		memcpy(buf + PKT_ETH_HLEN + PKT_IP4_HLEN, hdr, hdr_len);
	return len;
}

int frame_udp4(__u8 *buf, size_t size, unsigned int ip_len)
{
	struct udphdr udp = {
		.source = htons(40000),
		.dest = htons(9), /* discard (RFC 863) */
		.len = htons(ip_len - PKT_IP4_HLEN),
		.check = 0, /* RFC 768: checksum 0 means none; the kernel accepts it */
	};

	return frame_l4(buf, size, ip_len, IPPROTO_UDP, &udp, sizeof(udp));
}

/* A TCP ACK segment with data: what a busy host receives most. */
int frame_tcp4(__u8 *buf, size_t size, unsigned int ip_len)
{
	struct tcphdr tcp = {
		.source = htons(40000),
		.dest = htons(5201),
		.seq = htonl(1),
		.ack_seq = htonl(1),
		.doff = sizeof(tcp) / 4,
		.ack = 1,
		.window = htons(502),
		.check = 0, /* not filled: xdpong passes TCP without reading it */
	};

	return frame_l4(buf, size, ip_len, IPPROTO_TCP, &tcp, sizeof(tcp));
}

/*
 * A STAMP test packet from a Session-Sender in unauthenticated mode (RFC
 * 8762 4.2.1, RFC 8972 3's SSID), to the STAMP port, with its UDP checksum
 * (RFC 768): a reflector verifies it, and patches it in its reply.
 */
int frame_stamp4(__u8 *buf, size_t size)
{
	const unsigned int udp_len = sizeof(struct udphdr) + BENCH_STAMP_LEN;
	struct udphdr udp = {
		.source = htons(40862),
		.dest = htons(BENCH_STAMP_PORT),
		.len = htons(udp_len),
	};
	int len = frame_l4(buf, size, PKT_IP4_HLEN + udp_len, IPPROTO_UDP, &udp, sizeof(udp));
	__u8 *ip = buf + PKT_ETH_HLEN, *u = ip + PKT_IP4_HLEN, *stamp = u + sizeof(udp);
	__u8 tail[4] = { 0, IPPROTO_UDP, udp_len >> 8, udp_len & 0xff };
	__u16 csum;

	if (len <= 0)
		return -1;
	memset(stamp, 0, BENCH_STAMP_LEN);
	stamp[3] = 1;                     /* Sequence Number 1 */
	pkt_put_be16(stamp + 4, 0xeb00);  /* Timestamp: December 2024 (NTP) */
	pkt_put_be16(stamp + 12, 0x0001); /* Error Estimate: S 0, scale 0, multiplier 1 */
	pkt_put_be16(stamp + 14, 0xbe0c); /* SSID */
	/* The pseudo-header (RFC 768): addresses, zero, protocol, UDP length. */
	csum = ~pkt_csum_fold(pkt_csum_partial(
		u, udp_len, pkt_csum_partial(tail, 4, pkt_csum_partial(ip + 12, 8, 0))));
	pkt_put_be16(u + 6, csum ? csum : 0xffff);
	return len;
}
