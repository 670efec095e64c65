/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Packet helpers for tests and user-space tools: RFC 1071 checksums,
 * builders for ICMP/ICMPv6 echo frames with every field settable and
 * address prefixes. tests/lib/reference.h holds the reference echo
 * responder built on them, hex.h the hex dumps and parser.
 *
 * Plain C, no BPF: this code is the independent judge of what the XDP
 * program does, so it shares nothing with bpf/ and must not be derived
 * from it. Multi-byte values in the API are in host order unless the
 * name says otherwise; addresses and MACs are byte arrays as on the wire.
 */
#ifndef XDPONG_LIB_PACKET_H
#define XDPONG_LIB_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "prefix.h" /* the prefixes answered for (tools, tests) */

#define PKT_ETH_HLEN 14
#define PKT_IP4_HLEN 20 /* without options */
#define PKT_IP6_HLEN 40
#define PKT_ICMP_HLEN 8      /* ICMP and ICMPv6 echo header alike */
#define PKT_ETH_MIN_FRAME 60 /* shortest Ethernet frame, FCS excluded */

#define PKT_ETH_P_IP 0x0800
#define PKT_ETH_P_ARP 0x0806
#define PKT_ETH_P_IPV6 0x86dd
#define PKT_PROTO_ICMP 1
#define PKT_PROTO_ICMPV6 58
#define PKT_ICMP_ECHOREPLY 0
#define PKT_ICMP_ECHO 8
#define PKT_ICMPV6_ECHO_REQUEST 128
#define PKT_ICMPV6_ECHO_REPLY 129
#define PKT_REPLY_HOPS 64 /* TTL / hop limit a responder puts in replies */

/* A 16-bit field in network byte order (big-endian) at p. */
static inline uint16_t pkt_get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void pkt_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* What a frame starts with. Values match enum xdpong_framing. */
enum pkt_framing {
	PKT_FRAMING_ETH = 0, /* Ethernet header (TAP, veth, NICs) */
	PKT_FRAMING_IP = 1,  /* IP header at byte 0 (TUN) */
};

/* ---- RFC 1071 Internet checksum ---- */

/*
 * Add len bytes at buf to a running one's complement sum, as 16-bit
 * big-endian words (RFC 1071 section 4.1); an odd last byte is padded
 * with zero. Chain calls only at even offsets. Fold the result with
 * pkt_csum_fold(); the sum is 0 only if every byte summed was zero.
 */
uint64_t pkt_csum_partial(const void *buf, size_t len, uint64_t sum);

/* Fold a running sum to 16 bits with end-around carry (not inverted). */
uint16_t pkt_csum_fold(uint64_t sum);

/* The checksum to store for len bytes: ~fold(sum); all-zero data gives 0xffff. */
uint16_t pkt_csum(const void *buf, size_t len);

/*
 * The IPv6 pseudo-header (RFC 8200 section 8.1) is the source and
 * destination addresses, then these 8 bytes: the upper-layer length as 32
 * bits, three zero bytes and the next header value.
 */
void pkt_pseudo6_tail(uint8_t tail[8], uint32_t upper_len, uint8_t nexthdr);

/* The pseudo-header's running sum: addresses, then pkt_pseudo6_tail(). */
uint64_t pkt_csum_pseudo6(const uint8_t src[16], const uint8_t dst[16], uint32_t upper_len,
			  uint8_t nexthdr);

/*
 * The folded sum of an ICMPv6 message of len bytes at icmp with the
 * pseudo-header of the IPv6 header at ip6 (its addresses): 0xffff if the
 * message's checksum is right; with the checksum field zeroed, its
 * complement is the checksum to store.
 */
uint16_t pkt_icmp6_sum(const uint8_t *ip6, const uint8_t *icmp, size_t len);

/*
 * Check every checksum of an IPv4+ICMP or IPv6+ICMPv6 frame, sizes taken
 * from the IP header: the IPv4 header and the ICMP message must each sum
 * to 0xffff, the ICMPv6 message with its pseudo-header too. Returns NULL
 * if they do, else a short description of what is wrong.
 */
const char *pkt_verify_csums(const uint8_t *frame, size_t len, enum pkt_framing framing);

/*
 * Recompute the IPv4 header checksum (over IHL words) and the ICMP or
 * ICMPv6 checksum (over the length the IP header gives) where those lie
 * inside the frame; anything else is left alone. For fuzzing past the
 * checksum checks after a mutation.
 */
void pkt_fix_csums(uint8_t *frame, size_t len, enum pkt_framing framing);

/* ---- Frame builder ---- */

/* A payload byte pattern: byte i is i % 256 when payload == NULL. */
#define PKT_FILL_COUNT (-1)

/* For version and ihl: write a zero nibble (0 itself means "the default"). */
#define PKT_NIBBLE_0 0x10

/*
 * Every field of an echo frame. pkt_spec_init() fills a valid request
 * (ICMP echo from 203.0.113.7 to 192.0.2.1, or ICMPv6 from
 * 2001:db8:ffff::7 to 2001:db8::1, 56 payload bytes); change any field,
 * including to wrong values, then call pkt_build().
 */
struct pkt_spec {
	enum pkt_framing framing;
	int family; /* 4 or 6: which header follows */

	/* Ethernet (PKT_FRAMING_ETH only) */
	uint8_t eth_dst[6];
	uint8_t eth_src[6];
	uint16_t ethertype; /* 0: IPv4 or IPv6 as family says */

	/* IP, both families */
	uint8_t version; /* version nibble; 0: family, PKT_NIBBLE_0: 0 */
	uint8_t tos;     /* IPv4 TOS / IPv6 traffic class */
	uint8_t ttl;     /* IPv4 TTL / IPv6 hop limit */
	uint8_t proto;   /* IPv4 protocol / IPv6 next header */
	int len_delta;   /* added to the true IPv4 total / IPv6 payload length */
	/* IPv4 options / IPv6 extension headers, placed before the ICMP message */
	const uint8_t *opts;
	size_t opts_len;

	/* IPv4 */
	uint8_t ip4_src[4];
	uint8_t ip4_dst[4];
	uint8_t ihl; /* IHL nibble; 0: (20 + opts_len) / 4, PKT_NIBBLE_0: 0 */
	uint16_t ip_id;
	uint16_t frag;     /* flags and fragment offset: 0x4000 DF, 0x2000 MF */
	int ip_csum_delta; /* added to the true header checksum; 0: correct */

	/* IPv6 */
	uint8_t ip6_src[16];
	uint8_t ip6_dst[16];
	uint32_t flow; /* 20-bit flow label */

	/* ICMP / ICMPv6 */
	uint8_t icmp_type;
	uint8_t icmp_code;
	uint16_t icmp_id;
	uint16_t icmp_seq;
	int icmp_csum_delta;    /* added to the true checksum; 0: correct */
	const uint8_t *payload; /* NULL: payload_fill */
	size_t payload_len;
	int payload_fill; /* each byte this value, or PKT_FILL_COUNT */

	/* After the IP packet: link-layer padding, not counted in IP lengths */
	size_t pad_len; /* bytes appended */
	size_t pad_to;  /* or appended until the frame is this long (60) */
	uint8_t pad_byte;

	size_t truncate; /* non-zero: cut the frame to this many bytes */
};

/* Fill s with a valid echo request of the family (4 or 6) and framing. */
void pkt_spec_init(struct pkt_spec *s, int family, enum pkt_framing framing);

/*
 * Write the frame s describes to buf. Checksums cover the bytes actually
 * written (header with options, whole ICMP message) before the deltas
 * are applied; IHL and length fields may lie, checksums stay true to
 * the bytes unless a delta says otherwise. Returns the frame length, or
 * 0 if it does not fit in cap.
 */
size_t pkt_build(const struct pkt_spec *s, uint8_t *buf, size_t cap);

#endif /* XDPONG_LIB_PACKET_H */
