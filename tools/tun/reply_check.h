/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Is a packet an external stack wrote a correct echo reply? The one check
 * that tun-helper makes on WRITE and pong-hex --check shows worked out:
 * the IP version, the lengths, the IPv4 header checksum, the ICMP or
 * ICMPv6 checksum, and that it answers an echo request read before (the
 * addresses swapped, the same id, sequence and payload).
 *
 * A checksum counts as right when the kernel would accept it: the RFC 1071
 * sum over the covered bytes, checksum included, folds to 0xffff. Findings
 * are phrased in a runbook's terms, hex without 0x, one clause each:
 * "ip checksum 60dd, want 615d".
 *
 * Packets are in IP framing (byte 0 is the IP header), as on a TUN. Used by
 * tools/tun-helper and tools/pong-hex.
 */
#ifndef XDPONG_REPLY_CHECK_H
#define XDPONG_REPLY_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An echo request the reply may answer, as read from the TUN. */
struct rc_request {
	const uint8_t *pkt;
	size_t len;
	bool answered; /* a reply that passed every check was written for it */
};

/* The echo fields of a well-formed IPv4+ICMP or IPv6+ICMPv6 packet. */
struct rc_echo {
	int family;               /* 4 or 6 */
	const uint8_t *src, *dst; /* into the packet; 4 or 16 bytes */
	uint8_t type, code;
	uint16_t id, seq;
	const uint8_t *payload; /* after the 8-byte echo header */
	size_t payload_len;
};

/*
 * Fill e from pkt if it is a whole IPv4 packet carrying ICMP or an IPv6
 * packet whose next header is ICMPv6, with at least an echo header's 8
 * bytes, lengths as its header says (bytes after the IP packet are not
 * part of it). Any type: the caller looks at e->type. 0, or -1.
 */
int rc_parse_echo(const uint8_t *pkt, size_t len, struct rc_echo *e);

/* True if pkt is an ICMP echo request (type 8) or ICMPv6 one (128), code 0. */
bool rc_is_echo_request(const uint8_t *pkt, size_t len);

#define RC_TEXT_MAX 512

struct rc_result {
	int family;             /* 4 or 6 as the version nibble says; 0 neither */
	unsigned int findings;  /* how many things are wrong; 0 means OK */
	char text[RC_TEXT_MAX]; /* the findings, "; " between them ("" if none) */

	/* The working, for pong-hex --check to show. */
	size_t ip_len;        /* the IP packet's length by its header; 0: none */
	bool ip_csum_checked; /* IPv4 header checksum looked at */
	bool ip_csum_right;   /* ... and the kernel would accept it */
	uint16_t ip_csum, ip_csum_want;
	bool icmp_csum_checked; /* ICMP or ICMPv6 checksum looked at */
	bool icmp_csum_right;
	uint16_t icmp_csum, icmp_csum_want;
	bool echo;    /* an ICMP/ICMPv6 message with an echo header */
	long request; /* reqs[] index it answers (or was meant to: same id and seq), -1 */
	bool exact;   /* addresses swapped and payload equal, too */
};

/*
 * Check pkt (len bytes, as written) against the n requests reqs (oldest
 * first; the newest that fits wins). Always fills r.
 */
void rc_check_reply(const uint8_t *pkt, size_t len, const struct rc_request *reqs, size_t n,
		    struct rc_result *r);

/*
 * The one-line answer tun-helper gives: "OK" with no findings, otherwise
 * "OK WARN <findings>" (the packet is written anyway), or with strict
 * "ERR <findings> (not written: --strict)". Returns buf.
 */
const char *rc_answer(const struct rc_result *r, bool strict, char *buf, size_t size);

#endif /* XDPONG_REPLY_CHECK_H */
