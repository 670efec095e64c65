/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The reference echo responder: what a correct responder does with a
 * frame, decided from the RFCs and Linux's receive checks. The tests judge
 * the XDP program (and tools/tun/userpong.c) against it, so it shares
 * nothing with bpf/ and must not be derived from it; it builds on
 * lib/packet.h, which is written from the RFCs too.
 */
#ifndef XDPONG_TESTS_REFERENCE_H
#define XDPONG_TESTS_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "packet.h"

/* What the responder under test was configured with. */
struct pkt_ref_config {
	enum pkt_framing framing;
	bool check_mac; /* answer only frames sent to mac */
	uint8_t mac[6];
	const struct prefix *local; /* destinations that are ours */
	size_t n_local;
	/* The host's own IPv4 addresses: Linux drops packets from them */
	const struct prefix *own;
	size_t n_own;
	/* The host's subnet broadcast addresses: Linux treats them as broadcast */
	const struct prefix *broadcast;
	size_t n_broadcast;
	size_t max_icmp_len; /* longer ICMP messages go to the kernel; 0: no limit */
};

/* What a correct responder does with a frame. */
enum pkt_ref_verdict {
	/* Answer with exactly the reply bytes. */
	PKT_REF_REPLY = 0,
	/* Not ours to answer but well formed: hand it to the kernel unchanged. */
	PKT_REF_KERNEL = 1,
	/* Malformed or martian: never answer; passing or dropping are both right. */
	PKT_REF_INVALID = 2,
};

/*
 * Decide, from the RFCs and Linux's receive checks and independently of
 * any responder's code, what a correct echo responder does with frame.
 * On PKT_REF_REPLY writes the reply, len bytes, to reply (may be NULL
 * otherwise; must not overlap frame): link and IP addresses swapped,
 * TTL/hop limit 64, type 0/129, checksums computed from scratch (RFC
 * 1071: an all-zero ICMP message gets 0xffff), everything else,
 * padding after the IP packet included, unchanged. *why (if non-NULL)
 * gets a short reason.
 */
enum pkt_ref_verdict pkt_reference_reply(const struct pkt_ref_config *cfg, const uint8_t *frame,
					 size_t len, uint8_t *reply, const char **why);

#endif /* XDPONG_TESTS_REFERENCE_H */
