/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The reference STAMP Session-Reflector: what a stateless, unauthenticated
 * reflector (RFC 8762 4.3, with RFC 8972's SSID and TLVs) sends back for
 * a test packet. The tests judge the XDP program's replies against it, so
 * it is written from the RFCs alone, shares nothing with bpf/ and must not
 * be derived from it; it builds on lib/packet.h, written from the RFCs too.
 *
 * What only the reflector under test can know, its T2 and T3, is taken
 * from its reply; the tests hold those to the clock themselves.
 */
#ifndef XDPONG_TESTS_STAMP_REFERENCE_H
#define XDPONG_TESTS_STAMP_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "packet.h"

#define STAMP_REF_BASE 44 /* RFC 8762 4.2.1: the unauthenticated base packet */

/* RFC 8972 4, 5.2 and 5.3: TLV flags and the types of the registry. */
#define STAMP_TLV_U \
	0x80             /* Unrecognized: the sender sets it, a reflector
			  * clears it for the types it knows */
#define STAMP_TLV_M 0x40 /* Malformed: set by the reflector */
#define STAMP_TLV_I 0x20 /* Integrity (HMAC) */
enum stamp_tlv_type {
	STAMP_TLV_EXTRA_PADDING = 1,
	STAMP_TLV_LOCATION = 2,
	STAMP_TLV_TIMESTAMP_INFO = 3,
	STAMP_TLV_COS = 4,
	STAMP_TLV_DIRECT_MEASUREMENT = 5,
	STAMP_TLV_ACCESS_REPORT = 6,
	STAMP_TLV_FOLLOW_UP = 7,
	STAMP_TLV_HMAC = 8,
};
/* RFC 8972 5.4 and 5.5: synchronisation sources and timestamping methods. */
#define STAMP_SYNC_NTP 1
#define STAMP_SYNC_FREE_RUNNING 5
#define STAMP_TS_SW_LOCAL 2

/* What the reflector under test was configured with. */
struct stamp_ref_config {
	enum pkt_framing framing;
	uint16_t port;         /* the reflector's UDP port */
	uint16_t errest;       /* the Error Estimate word it sends (S: synchronised) */
	unsigned int max_tlvs; /* the most TLVs it walks; more go to the kernel */
};

enum stamp_ref_verdict {
	STAMP_REF_REPLY = 0,  /* reflected, exactly as the reply written */
	STAMP_REF_KERNEL = 1, /* not a test packet it answers: unchanged */
};

/* Set the IPv4 header checksum of the 20-byte header at ip (RFC 791). */
void stamp_ref_ip4_csum_set(uint8_t *ip);

/*
 * The folded one's complement sum of the UDP datagram at udp (its length
 * from its header) with the pseudo-header of the IP header at ip (RFC 768,
 * RFC 8200 8.1): 0xffff if its checksum is right.
 */
uint16_t stamp_ref_udp_sum(const uint8_t *ip, const uint8_t *udp);

/* Set the UDP checksum of the datagram at udp, as RFC 768 says: a
 * computed 0 is sent as 0xffff. */
void stamp_ref_udp_csum_set(const uint8_t *ip, uint8_t *udp);

/*
 * What a reflector does with frame (len bytes), from the RFCs: on
 * STAMP_REF_REPLY the reply, len bytes, in reply (not overlapping frame),
 * with T2 and T3 copied from got (the reply under test, same offsets).
 * Judges the STAMP packet and its IP and UDP headers (version, no options
 * or fragments, lengths, checksums, port, size, the number of TLVs), not
 * the addresses: whose they are is the echo reference's (reference.h).
 * *why (if not NULL) gets a short reason.
 */
enum stamp_ref_verdict stamp_reference_reply(const struct stamp_ref_config *cfg,
					     const uint8_t *frame, size_t len, const uint8_t *got,
					     uint8_t *reply, const char **why);

#endif /* XDPONG_TESTS_STAMP_REFERENCE_H */
