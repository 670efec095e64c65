// SPDX-License-Identifier: GPL-2.0
/* Test frames: IPv4/IPv6 echo requests and a UDP datagram, checksums from scratch. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_ether.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include "driver.h"

/* RFC 1071: 16-bit one's complement sum, folded, not complemented. */
__u16 csum16(const void *p, size_t len, __u32 start)
{
	const __u8 *b = p;
	__u64 sum = start;

	for (; len > 1; len -= 2, b += 2)
		sum += (__u32)b[0] << 8 | b[1];
	if (len)
		sum += (__u32)b[0] << 8; /* the odd byte, padded with zero */
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)sum;
}

static void put_eth(__u8 *buf, __u16 proto)
{
	static const __u8 src[6] = MAC_SENDER, dst[6] = MAC_RESPONDER;
	struct ethhdr *eth = (struct ethhdr *)buf;

	memcpy(eth->h_dest, dst, 6);
	memcpy(eth->h_source, src, 6);
	eth->h_proto = htons(proto);
}

static void put_ip4(__u8 *buf, unsigned int ip_len, __u8 proto)
{
	struct iphdr ip = {
		.version = 4,
		.ihl = 5,
		.tot_len = htons(ip_len),
		.id = htons(0x1234),
		.frag_off = htons(0x4000), /* DF, as ping sends */
		.ttl = 64,                 /* = xdpong's reply TTL: see cost.c */
		.protocol = proto,
	};

	inet_pton(AF_INET, IP4_SENDER, &ip.saddr);
	inet_pton(AF_INET, IP4_RESPONDER, &ip.daddr);
	ip.check = htons(~csum16(&ip, sizeof(ip), 0) & 0xffff);
	memcpy(buf, &ip, sizeof(ip));
}

static void fill_payload(__u8 *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (__u8)(0x10 + i); /* like ping's pattern */
}

int frame_echo4(__u8 *buf, size_t size, unsigned int ip_len, __u16 seq)
{
	size_t len = ETH_HLEN + ip_len;
	struct icmphdr *icmp;

	if (ip_len < 28 || len > size)
		return -1;
	memset(buf, 0, len);
	put_eth(buf, ETH_P_IP);
	put_ip4(buf + ETH_HLEN, ip_len, IPPROTO_ICMP);
	icmp = (struct icmphdr *)(buf + ETH_HLEN + 20);
	icmp->type = ICMP_ECHO;
	icmp->un.echo.id = htons(ECHO_ID);
	icmp->un.echo.sequence = htons(seq);
	fill_payload((__u8 *)(icmp + 1), ip_len - 28);
	icmp->checksum = htons(~csum16(icmp, ip_len - 20, 0) & 0xffff);
	return (int)len;
}

int frame_echo6(__u8 *buf, size_t size, unsigned int payload_len, __u16 seq)
{
	size_t len = ETH_HLEN + 40 + 8 + payload_len;
	struct ipv6hdr *ip6;
	struct icmp6hdr *icmp6;
	__u32 pseudo = 0;

	if (len > size)
		return -1;
	memset(buf, 0, len);
	put_eth(buf, ETH_P_IPV6);
	ip6 = (struct ipv6hdr *)(buf + ETH_HLEN);
	ip6->version = 6;
	ip6->payload_len = htons(8 + payload_len);
	ip6->nexthdr = IPPROTO_ICMPV6;
	ip6->hop_limit = 64;
	inet_pton(AF_INET6, IP6_SENDER, &ip6->saddr);
	inet_pton(AF_INET6, IP6_RESPONDER, &ip6->daddr);
	icmp6 = (struct icmp6hdr *)(ip6 + 1);
	icmp6->icmp6_type = ICMPV6_ECHO_REQUEST;
	icmp6->icmp6_identifier = htons(ECHO_ID);
	icmp6->icmp6_sequence = htons(seq);
	fill_payload((__u8 *)(icmp6 + 1), payload_len);
	/* RFC 8200 8.1 pseudo-header: addresses, upper-layer length, next header. */
	pseudo = csum16(&ip6->saddr, 32, 0);
	pseudo += 8 + payload_len + IPPROTO_ICMPV6;
	icmp6->icmp6_cksum = htons(~csum16(icmp6, 8 + payload_len, pseudo) & 0xffff);
	return (int)len;
}

int frame_udp4(__u8 *buf, size_t size, unsigned int ip_len)
{
	size_t len = ETH_HLEN + ip_len;
	struct udphdr *udp;

	if (ip_len < 28 || len > size)
		return -1;
	memset(buf, 0, len);
	put_eth(buf, ETH_P_IP);
	put_ip4(buf + ETH_HLEN, ip_len, IPPROTO_UDP);
	udp = (struct udphdr *)(buf + ETH_HLEN + 20);
	udp->source = htons(40000);
	udp->dest = htons(9); /* discard (RFC 863) */
	udp->len = htons(ip_len - 20);
	fill_payload((__u8 *)(udp + 1), ip_len - 28);
	/* RFC 768: checksum 0 means none; the kernel accepts it. */
	return (int)len;
}

void hexdump_frame(const __u8 *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		fprintf(stderr, "%02x%s", p[i], (i % 32 == 31 || i + 1 == len) ? "\n" : "");
}
