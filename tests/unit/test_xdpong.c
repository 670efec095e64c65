// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the XDP program: hand-built frames through the real
 * program with bpf_prog_test_run_opts, one run each, asserting the
 * verdict, the one reason counter that moved, the latency histogram,
 * every output byte and the reply checksums.
 *
 * Adding a case is one line in fixtures[] below (see tests/unit/README):
 *   { "name", INSTANCE, V4(.field = value, ...), REASON(reason), REPLY|SAME },
 * V4()/V6()/RAW() start from a valid echo request to one of our addresses;
 * REPLY means the output must equal pkt_reference_reply(), SAME that it
 * must equal the input.
 *
 * Run as root: build/tests/test_xdpong [-v]. Last line: "N passed, N failed".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpong.h"
#include "xdpong_names.h"
#include "xdpong.skel.h"
#include "../../loader/up/up.h"
#include "hex.h"
#include "packet.h"
#include "reference.h"
#include "xdpong_fixture.h"

/* Fixture rows override the defaults of V4()/V6(): later initializers win. */
#pragma GCC diagnostic ignored "-Woverride-init"

/* A 9216-byte ICMP message and then some: multi-buffer frames (xdp.frags). */
#define MAX_FRAME 12288

/* ---- Addresses: RFC 5737 / RFC 3849 documentation ranges (xf_init()'s table) ---- */
#define OUR_MAC XF_OUR_MAC
#define PEER_MAC { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 }
#define OTHER_MAC { 0x02, 0x00, 0x00, 0x00, 0x00, 0x99 }
#define BCAST_MAC { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
#define MCAST4_MAC { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 }
#define MCAST6_MAC { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 }

#define OURS4 { 192, 0, 2, 1 }     /* interface address, /32 */
#define OPER4 { 198, 51, 100, 77 } /* inside the operator's 198.51.100.0/24 */
#define PEER4 { 203, 0, 113, 7 }
#define A6(...) { __VA_ARGS__ }
#define OURS6 A6(0x20, 0x01, 0x0d, 0xb8, [15] = 1)                /* 2001:db8::1 */
#define OPER6 A6(0x20, 0x01, 0x0d, 0xb8, 0, 1, [14] = 0xab, 0xcd) /* in 2001:db8:1::/64 */
#define PEER6 A6(0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, [15] = 7)    /* 2001:db8:ffff::7 */

/* ---- Program instances: one skeleton per rodata configuration ---- */
enum inst {
	ETH,    /* Ethernet, cfg_check_mac=1, latency sampled 1 in 1 */
	TUN,    /* cfg_framing=XDPONG_FRAMING_IP */
	NOMAC,  /* Ethernet, cfg_check_mac=0, latency sampling off */
	RATE,   /* per-source limit 2 pps, burst 3 */
	GLOBAL, /* global limit 2 pps, burst 3 */
	RATE_TUN,   /* the same two with TUN framing */
	GLOBAL_TUN,
	SAMPLE, /* Ethernet, latency sampled 1 in SAMPLE_N (the tick's bound) */
	SAMPLE3, /* the same, 1 in SAMPLE3_N: not a power of two, a division */
	N_INST
};

#define SAMPLE_N 4
#define SAMPLE3_N 3
#define RATE_PPS 2
#define RATE_COST_NS 500000000ULL /* 1e9 / 2 pps */
#define RATE_BURST 3

struct instance {
	const char *name;
	struct xf_instance xf; /* program, fds, reference config */
	const char *load_error; /* why the skeleton did not load, or NULL */
	bool sampled; /* cfg_latency_sample == 1 */
};

static struct instance insts[N_INST] = {
	[ETH] = { .name = "eth" },
	[TUN] = { .name = "tun" },
	[NOMAC] = { .name = "nomac" },
	[RATE] = { .name = "rate" },
	[GLOBAL] = { .name = "global" },
	[RATE_TUN] = { .name = "rate-tun" },
	[GLOBAL_TUN] = { .name = "global-tun" },
	[SAMPLE] = { .name = "sample" },
	[SAMPLE3] = { .name = "sample-3" },
};

static bool say_all; /* -v */
static char libbpf_last[160]; /* last line of the last verifier log */
static unsigned int n_passed, n_failed;

/* ---- Reasons, from the X-macro (reason_names, reason_outcomes) ---- */

static int verdict_of(enum xdpong_reason r)
{
	switch (reason_outcomes[r]) {
	case XDPONG_REPLIED:
		return XDP_TX;
	case XDPONG_PASSED:
		return XDP_PASS;
	default:
		return XDP_DROP;
	}
}

/* ---- Fixtures ---- */
enum out { SAME, REPLY };

struct fixture {
	const char *name;
	enum inst inst;
	struct pkt_spec spec; /* built with pkt_build(); framing from inst */
	const uint8_t *raw;   /* or these bytes as they are */
	size_t raw_len;
	enum xdpong_reason reason;
	enum out out;
	uint32_t want_csum;   /* CSUM(v): the reply's ICMP checksum must be v */
};

#define CSUM(v) .want_csum = 0x10000u | (v)

/* TTL 57: every reply fixture also checks that TTL/hop limit become 64. */
#define SPEC_COMMON                                                          \
	.eth_dst = OUR_MAC, .eth_src = PEER_MAC, .ttl = 57, .icmp_id = 0x1234, \
	.icmp_seq = 1, .payload_len = 56, .payload_fill = PKT_FILL_COUNT
#define V4(...)                                                             \
	.spec = { SPEC_COMMON, .family = 4, .proto = PKT_PROTO_ICMP,       \
		  .icmp_type = PKT_ICMP_ECHO, .ip4_src = PEER4,            \
		  .ip4_dst = OURS4, .ip_id = 0x1c46, .frag = 0x4000,       \
		  __VA_ARGS__ }, NO_RAW
#define V6(...)                                                             \
	.spec = { SPEC_COMMON, .family = 6, .proto = PKT_PROTO_ICMPV6,     \
		  .icmp_type = PKT_ICMPV6_ECHO_REQUEST, .ip6_src = PEER6,  \
		  .ip6_dst = OURS6, __VA_ARGS__ }, NO_RAW
/* Designated last, so the row's reason and output follow positionally. */
#define NO_RAW .raw = NULL, .raw_len = 0
#define RAW(a) .raw = a, .raw_len = sizeof(a)
#define BYTES(...) ((const uint8_t[]){ __VA_ARGS__ })
#define PAYLOAD(...) .payload = BYTES(__VA_ARGS__), \
	.payload_len = sizeof(BYTES(__VA_ARGS__))

/* Ethernet-framed frames that are not IP. */
static const uint8_t arp_request[] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 0x02, 0x08, 0x06,
	0, 1, 0x08, 0, 6, 4, 0, 1,                   /* Ethernet/IPv4, request */
	0x02, 0, 0, 0, 0, 0x02, 203, 0, 113, 7,      /* sender */
	0, 0, 0, 0, 0, 0, 192, 0, 2, 1,              /* target */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 /* padding to 60 */
};
static const uint8_t arp_reply[] = {
	0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x08, 0x06,
	0, 1, 0x08, 0, 6, 4, 0, 2,
	0x02, 0, 0, 0, 0, 0x02, 203, 0, 113, 7,
	0x02, 0, 0, 0, 0, 0x01, 192, 0, 2, 1,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};
/* An 802.1Q-tagged echo request: the program does not look inside VLANs. */
static const uint8_t vlan_frame[] = {
	0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x81, 0x00, 0x00, 0x64,
	0x08, 0x00, 0x45, 0, 0, 28, 0, 0, 0x40, 0, 64, 1, 0, 0,
	203, 0, 113, 7, 192, 0, 2, 1, 8, 0, 0xf7, 0xff, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};
static const uint8_t lldp_frame[] = {
	0x01, 0x80, 0xc2, 0, 0, 0x0e, 0x02, 0, 0, 0, 0, 0x02, 0x88, 0xcc,
	0x02, 0x07, 0x04, 0x02, 0, 0, 0, 0, 0x02, 0x04, 0x03, 0x05, 0x65, 0x74,
	0x68, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};
/* TUN framing: bytes that start with version nibbles other than 4 and 6. */
static const uint8_t tun_version5[] = {
	0x55, 0, 0, 28, 0, 0, 0x40, 0, 64, 1, 0, 0, 203, 0, 113, 7, 192, 0, 2, 1,
	8, 0, 0xf7, 0xff, 0, 0, 0, 0
};
static const uint8_t tun_version0[] = {
	0x00, 0, 0, 28, 0, 0, 0x40, 0, 64, 1, 0, 0, 203, 0, 113, 7, 192, 0, 2, 1,
	8, 0, 0xf7, 0xff, 0, 0, 0, 0
};
static const uint8_t tun_version15[] = {
	0xf5, 0, 0, 28, 0, 0, 0x40, 0, 64, 1, 0, 0, 203, 0, 113, 7, 192, 0, 2, 1,
	8, 0, 0xf7, 0xff, 0, 0, 0, 0
};

/* IPv6 extension headers carrying ICMPv6 after them (RFC 8200 4). */
#define EXT_HBH BYTES(58, 0, 1, 4, 0, 0, 0, 0)      /* hop-by-hop, PadN */
#define EXT_DSTOPT BYTES(58, 0, 1, 4, 0, 0, 0, 0)   /* destination options */
#define EXT_ROUTING BYTES(58, 0, 0, 0, 0, 0, 0, 0)  /* type 0, 0 segments left */
#define EXT_FRAG BYTES(58, 0, 0, 0, 0, 0, 0x12, 0x34) /* offset 0, last fragment */

/* The order does not matter; names must be unique for the failure lines. */
static const struct fixture fixtures[] = {
	/* Happy paths and payload sizes (RFC 792, RFC 4443 4.2) */
	{ "v4 echo, 56-byte payload", ETH, V4(), REASON(reply_echo4), REPLY },
	{ "v6 echo, 56-byte payload", ETH, V6(), REASON(reply_echo6), REPLY },
	{ "v4 echo, empty payload", ETH, V4(.payload_len = 0), REASON(reply_echo4), REPLY },
	{ "v4 echo, 1-byte payload", ETH, V4(.payload_len = 1), REASON(reply_echo4), REPLY },
	{ "v4 echo, 3-byte payload", ETH, V4(.payload_len = 3), REASON(reply_echo4), REPLY },
	{ "v4 echo, 37-byte payload", ETH, V4(.payload_len = 37), REASON(reply_echo4), REPLY },
	{ "v4 echo, 1471-byte payload", ETH, V4(.payload_len = 1471), REASON(reply_echo4), REPLY },
	{ "v4 echo, 1500-byte IP packet", ETH, V4(.payload_len = 1472), REASON(reply_echo4),
	  REPLY },
	{ "v4 echo, largest linear test frame", ETH,
	  V4(.payload_len = XF_MAX_LINEAR_FRAME - 14 - 28), REASON(reply_echo4), REPLY },
	{ "v6 echo, empty payload", ETH, V6(.payload_len = 0), REASON(reply_echo6), REPLY },
	{ "v6 echo, 1-byte payload", ETH, V6(.payload_len = 1), REASON(reply_echo6), REPLY },
	{ "v6 echo, 37-byte payload", ETH, V6(.payload_len = 37), REASON(reply_echo6), REPLY },
	{ "v6 echo, 1500-byte IP packet", ETH, V6(.payload_len = 1452), REASON(reply_echo6),
	  REPLY },
	{ "v6 echo, largest linear test frame", ETH,
	  V6(.payload_len = XF_MAX_LINEAR_FRAME - 14 - 48), REASON(reply_echo6), REPLY },
	{ "v4 echo, random-looking payload", ETH,
	  V4(PAYLOAD(0xde, 0xad, 0xbe, 0xef, 0x00, 0xff, 0x80, 0x01, 0x7f)),
	  REASON(reply_echo4), REPLY },

	/* Checksum corners: an all-zero reply sums to +0 and carries 0xffff */
	{ "v4 all-zero reply, empty payload", ETH,
	  V4(.icmp_id = 0, .icmp_seq = 0, .payload_len = 0), REASON(reply_echo4), REPLY,
	  CSUM(0xffff) },
	{ "v4 all-zero reply, 32 zero bytes", ETH,
	  V4(.icmp_id = 0, .icmp_seq = 0, .payload_len = 32, .payload_fill = 0),
	  REASON(reply_echo4), REPLY, CSUM(0xffff) },
	{ "v4 all-zero reply, 56 zero bytes (ping's length)", ETH,
	  V4(.icmp_id = 0, .icmp_seq = 0, .payload_len = 56, .payload_fill = 0),
	  REASON(reply_echo4), REPLY, CSUM(0xffff) },
	{ "v4 all-zero reply, 1 zero byte", ETH,
	  V4(.icmp_id = 0, .icmp_seq = 0, .payload_len = 1, .payload_fill = 0),
	  REASON(reply_echo4), REPLY, CSUM(0xffff) },
	{ "v4 all-zero reply in a padded 60-byte frame", ETH,
	  V4(.icmp_id = 0, .icmp_seq = 0, .payload_len = 0, .pad_to = 60,
	     .pad_byte = 0xff),
	  REASON(reply_echo4), REPLY, CSUM(0xffff) },
	{ "v4 zero id/seq/payload but code 1", ETH,
	  V4(.icmp_code = 1, .icmp_id = 0, .icmp_seq = 0, .payload_len = 0),
	  REASON(reply_echo4), REPLY, CSUM(0xfffe) },
	{ "v4 reply checksum 0x0000 when data is not zero", ETH,
	  V4(.icmp_id = 0xffff, .icmp_seq = 0, .payload_len = 0), REASON(reply_echo4),
	  REPLY, CSUM(0x0000) },
	{ "v4 request checksum 0x0000", ETH,
	  V4(.icmp_id = 0, .icmp_seq = 0, PAYLOAD(0xf7, 0xff)), REASON(reply_echo4),
	  REPLY, CSUM(0x0800) },
	{ "v4 request checksum 0xffff (other zero)", ETH,
	  V4(.icmp_id = 0, .icmp_seq = 0, PAYLOAD(0xf7, 0xff), .icmp_csum_delta = -1),
	  REASON(reply_echo4), REPLY, CSUM(0x0800) },
	{ "v6 zero id/seq, empty payload", ETH,
	  V6(.icmp_id = 0, .icmp_seq = 0, .payload_len = 0), REASON(reply_echo6), REPLY },
	{ "v6 zero id/seq, 56 zero bytes (ping's length)", ETH,
	  V6(.icmp_id = 0, .icmp_seq = 0, .payload_len = 56, .payload_fill = 0),
	  REASON(reply_echo6), REPLY },
	{ "v6 zero id/seq, 16 zero bytes", ETH,
	  V6(.icmp_id = 0, .icmp_seq = 0, .payload_len = 16, .payload_fill = 0),
	  REASON(reply_echo6), REPLY },

	/* Fields kept or set */
	{ "v4 echo, code 5 kept", ETH, V4(.icmp_code = 5), REASON(reply_echo4), REPLY },
	{ "v4 echo, code 255 kept", ETH, V4(.icmp_code = 255), REASON(reply_echo4), REPLY },
	{ "v6 echo, code 7 kept", ETH, V6(.icmp_code = 7), REASON(reply_echo6), REPLY },
	{ "v4 TOS, IP id, DF kept", ETH, V4(.tos = 0xb8, .ip_id = 0xbeef),
	  REASON(reply_echo4), REPLY },
	{ "v4 without DF", ETH, V4(.frag = 0), REASON(reply_echo4), REPLY },
	{ "v4 TTL 1 becomes 64", ETH, V4(.ttl = 1), REASON(reply_echo4), REPLY },
	{ "v4 TTL 255 becomes 64", ETH, V4(.ttl = 255), REASON(reply_echo4), REPLY },
	{ "v4 TTL 0 becomes 64", ETH, V4(.ttl = 0), REASON(reply_echo4), REPLY },
	{ "v6 class, flow kept, hop limit 1", ETH,
	  V6(.tos = 0xb8, .flow = 0xabcde, .ttl = 1), REASON(reply_echo6), REPLY },
	{ "v4 max id and seq", ETH, V4(.icmp_id = 0xffff, .icmp_seq = 0xffff),
	  REASON(reply_echo4), REPLY },
	{ "v4 private source", ETH, V4(.ip4_src = { 10, 1, 2, 3 }), REASON(reply_echo4), REPLY },
	{ "v4 source inside the operator /24", ETH,
	  V4(.ip4_src = { 198, 51, 100, 5 }), REASON(reply_echo4), REPLY },
	{ "v6 link-local source", ETH,
	  V6(.ip6_src = A6(0xfe, 0x80, [15] = 2)), REASON(reply_echo6), REPLY },
	{ "v6 v4-mapped source", ETH,
	  V6(.ip6_src = A6([10] = 0xff, 0xff, 192, 0, 2, 99)), REASON(reply_echo6), REPLY },

	/* Padding after the IP packet: not summed, not in lengths, unchanged */
	{ "v4 empty payload padded to 60 with 0xa5", ETH,
	  V4(.payload_len = 0, .pad_to = 60, .pad_byte = 0xa5), REASON(reply_echo4), REPLY },
	{ "v4 1-byte payload padded to 60 with 0x5a", ETH,
	  V4(.payload_len = 1, .pad_to = 60, .pad_byte = 0x5a), REASON(reply_echo4), REPLY },
	{ "v4 10-byte payload padded to 60 with 0x01", ETH,
	  V4(.payload_len = 10, .pad_to = 60, .pad_byte = 0x01), REASON(reply_echo4), REPLY },
	{ "v4 56-byte payload, 7 trailing bytes", ETH,
	  V4(.pad_len = 7, .pad_byte = 0xee), REASON(reply_echo4), REPLY },
	{ "v6 empty payload, 6 padding bytes 0xee", ETH,
	  V6(.payload_len = 0, .pad_len = 6, .pad_byte = 0xee), REASON(reply_echo6), REPLY },
	{ "v6 1-byte payload, 11 padding bytes 0x80", ETH,
	  V6(.payload_len = 1, .pad_len = 11, .pad_byte = 0x80), REASON(reply_echo6), REPLY },
	{ "v4 total length 16 short: tail not summed", ETH,
	  V4(.len_delta = -16), REASON(drop_bad_icmp_csum), SAME },

	/* Operator prefixes (--addr) */
	{ "v4 operator /24 host", ETH, V4(.ip4_dst = OPER4), REASON(reply_echo4), REPLY },
	{ "v4 operator /24 first address", ETH,
	  V4(.ip4_dst = { 198, 51, 100, 0 }), REASON(reply_echo4), REPLY },
	{ "v6 operator /64 host", ETH, V6(.ip6_dst = OPER6), REASON(reply_echo6), REPLY },
	{ "v6 operator /64 last address", ETH,
	  V6(.ip6_dst = A6(0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0xff, 0xff, 0xff,
			   0xff, 0xff, 0xff, 0xff, 0xff)),
	  REASON(reply_echo6), REPLY },

	/* drop_truncated: the frame ends inside a header */
	{ "v4 frame of Ethernet header only", ETH, V4(.truncate = 14), REASON(drop_truncated),
	  SAME },
	{ "v4 cut at 20 bytes", ETH, V4(.truncate = 20), REASON(drop_truncated), SAME },
	{ "v4 cut at 33 bytes", ETH, V4(.truncate = 33), REASON(drop_truncated), SAME },
	{ "v6 frame of Ethernet header only", ETH, V6(.truncate = 14), REASON(drop_truncated),
	  SAME },
	{ "v6 cut at 40 bytes", ETH, V6(.truncate = 40), REASON(drop_truncated), SAME },
	{ "v6 cut at 53 bytes", ETH, V6(.truncate = 53), REASON(drop_truncated), SAME },
	/* drop_bad_length: the IP length runs past the frame end */
	{ "v4 cut at 34 bytes (IP header only)", ETH, V4(.truncate = 34),
	  REASON(drop_bad_length), SAME },
	{ "v4 cut inside the payload", ETH, V4(.truncate = 60), REASON(drop_bad_length), SAME },
	{ "v6 cut at 54 bytes (IP header only)", ETH, V6(.truncate = 54),
	  REASON(drop_bad_length), SAME },
	{ "v6 cut inside the payload", ETH, V6(.truncate = 100), REASON(drop_bad_length), SAME },

	/* drop_bad_version, drop_bad_ihl, drop_bad_length */
	{ "v4 ethertype with version 6", ETH, V4(.version = 6), REASON(drop_bad_version), SAME },
	{ "v4 ethertype with version 5", ETH, V4(.version = 5), REASON(drop_bad_version), SAME },
	{ "v4 ethertype with version 0", ETH, V4(.version = PKT_NIBBLE_0),
	  REASON(drop_bad_version), SAME },
	{ "v4 ethertype with version 15", ETH, V4(.version = 15), REASON(drop_bad_version), SAME },
	{ "v6 ethertype with version 4", ETH, V6(.version = 4), REASON(drop_bad_version), SAME },
	{ "v6 ethertype with version 7", ETH, V6(.version = 7), REASON(drop_bad_version), SAME },
	{ "v4 IHL 4", ETH, V4(.ihl = 4), REASON(drop_bad_ihl), SAME },
	{ "v4 IHL 0", ETH, V4(.ihl = PKT_NIBBLE_0), REASON(drop_bad_ihl), SAME },
	{ "v4 total length one beyond the frame", ETH, V4(.len_delta = 1),
	  REASON(drop_bad_length), SAME },
	{ "v4 total length 0xffff", ETH, V4(.len_delta = 0xffff - 84), REASON(drop_bad_length),
	  SAME },
	{ "v4 total length 19, below IHL", ETH,
	  V4(.payload_len = 0, .len_delta = -9, .pad_to = 60), REASON(drop_bad_length), SAME },
	{ "v4 total length 20, no ICMP header", ETH,
	  V4(.payload_len = 0, .len_delta = -8, .pad_to = 60), REASON(drop_bad_length), SAME },
	{ "v4 total length 27, ICMP header cut", ETH,
	  V4(.payload_len = 0, .len_delta = -1, .pad_to = 60), REASON(drop_bad_length), SAME },
	{ "v6 payload length one beyond the frame", ETH, V6(.len_delta = 1),
	  REASON(drop_bad_length), SAME },
	{ "v6 payload length 7", ETH, V6(.payload_len = 0, .len_delta = -1),
	  REASON(drop_bad_length), SAME },
	{ "v6 payload length 0", ETH, V6(.payload_len = 0, .len_delta = -8),
	  REASON(drop_bad_length), SAME },

	/* Checksums (RFC 1071, RFC 8200 8.1) */
	{ "v4 header checksum off by one", ETH, V4(.ip_csum_delta = 1), REASON(drop_bad_ip_csum),
	  SAME },
	{ "v4 header checksum off by 0x100", ETH, V4(.ip_csum_delta = 0x100),
	  REASON(drop_bad_ip_csum), SAME },
	{ "v4 ICMP checksum off by one", ETH, V4(.icmp_csum_delta = 1),
	  REASON(drop_bad_icmp_csum), SAME },
	{ "v4 ICMP checksum off, odd payload", ETH,
	  V4(.payload_len = 37, .icmp_csum_delta = -0x1000), REASON(drop_bad_icmp_csum), SAME },
	{ "v4 all-zero request with checksum 0", ETH,
	  V4(.icmp_id = 0, .icmp_seq = 0, .payload_len = 0, .icmp_csum_delta = 0x0801),
	  REASON(drop_bad_icmp_csum), SAME },
	{ "v6 ICMPv6 checksum off by one", ETH, V6(.icmp_csum_delta = 1),
	  REASON(drop_bad_icmp_csum), SAME },
	{ "v6 ICMPv6 checksum off, empty payload", ETH,
	  V6(.payload_len = 0, .icmp_csum_delta = 0x4000), REASON(drop_bad_icmp_csum), SAME },

	/* drop_martian_src (RFC 1812 5.3.7, RFC 4291 2.5.2/2.5.3/2.7) */
	{ "v4 source 0.0.0.0", ETH, V4(.ip4_src = { 0, 0, 0, 0 }), REASON(drop_martian_src), SAME },
	{ "v4 source 0.1.2.3", ETH, V4(.ip4_src = { 0, 1, 2, 3 }), REASON(drop_martian_src), SAME },
	{ "v4 source 127.0.0.1", ETH, V4(.ip4_src = { 127, 0, 0, 1 }), REASON(drop_martian_src),
	  SAME },
	{ "v4 source 127.255.255.254", ETH, V4(.ip4_src = { 127, 255, 255, 254 }),
	  REASON(drop_martian_src), SAME },
	{ "v4 source 224.0.0.1", ETH, V4(.ip4_src = { 224, 0, 0, 1 }), REASON(drop_martian_src),
	  SAME },
	{ "v4 source 239.255.255.250", ETH, V4(.ip4_src = { 239, 255, 255, 250 }),
	  REASON(drop_martian_src), SAME },
	{ "v4 source 255.255.255.255", ETH, V4(.ip4_src = { 255, 255, 255, 255 }),
	  REASON(drop_martian_src), SAME },
	{ "v6 source ff02::1", ETH, V6(.ip6_src = A6(0xff, 0x02, [15] = 1)),
	  REASON(drop_martian_src), SAME },
	{ "v6 source ff0e::1", ETH, V6(.ip6_src = A6(0xff, 0x0e, [15] = 1)),
	  REASON(drop_martian_src), SAME },
	{ "v6 source ::", ETH, V6(.ip6_src = A6(0)), REASON(drop_martian_src), SAME },
	{ "v6 source ::1", ETH, V6(.ip6_src = A6([15] = 1)), REASON(drop_martian_src), SAME },
	{ "v4 source is our interface address", ETH, V4(.ip4_src = OURS4),
	  REASON(drop_martian_src), SAME },
	{ "v4 source is our address, to the /24", ETH,
	  V4(.ip4_src = OURS4, .ip4_dst = OPER4), REASON(drop_martian_src), SAME },

	/* pass_not_ip */
	{ "ARP request", ETH, RAW(arp_request), REASON(pass_not_ip), SAME },
	{ "ARP reply to us", ETH, RAW(arp_reply), REASON(pass_not_ip), SAME },
	{ "802.1Q tagged echo", ETH, RAW(vlan_frame), REASON(pass_not_ip), SAME },
	{ "LLDP", ETH, RAW(lldp_frame), REASON(pass_not_ip), SAME },
	{ "v4 echo under ethertype 0x8137", ETH, V4(.ethertype = 0x8137), REASON(pass_not_ip),
	  SAME },
	{ "ethertype only, 14-byte frame", ETH, V4(.ethertype = 0x88b5, .truncate = 14),
	  REASON(pass_not_ip), SAME },

	/* pass_l2_group, pass_l2_other_host */
	{ "v4 to broadcast MAC", ETH, V4(.eth_dst = BCAST_MAC), REASON(pass_l2_group), SAME },
	{ "v4 to multicast MAC", ETH, V4(.eth_dst = MCAST4_MAC), REASON(pass_l2_group), SAME },
	{ "v6 to multicast MAC", ETH, V6(.eth_dst = MCAST6_MAC), REASON(pass_l2_group), SAME },
	{ "v4 from multicast MAC", ETH, V4(.eth_src = MCAST4_MAC), REASON(pass_l2_group), SAME },
	{ "v6 from broadcast MAC", ETH, V6(.eth_src = BCAST_MAC), REASON(pass_l2_group), SAME },
	{ "v4 group MAC beats bad checksum", ETH,
	  V4(.eth_dst = BCAST_MAC, .ip_csum_delta = 1), REASON(pass_l2_group), SAME },
	{ "v4 to another host's MAC", ETH, V4(.eth_dst = OTHER_MAC), REASON(pass_l2_other_host),
	  SAME },
	{ "v6 to another host's MAC", ETH, V6(.eth_dst = OTHER_MAC), REASON(pass_l2_other_host),
	  SAME },
	{ "v4 to MAC differing in the last bit", ETH,
	  V4(.eth_dst = { 0x02, 0, 0, 0, 0, 0x00 }), REASON(pass_l2_other_host), SAME },
	{ "v4 to MAC differing in the first byte", ETH,
	  V4(.eth_dst = { 0x06, 0, 0, 0, 0, 0x01 }), REASON(pass_l2_other_host), SAME },
	/* The check compares bytes 0-3 and 4-5 as two words: each side. */
	{ "v4 to MAC differing in byte 3", ETH,
	  V4(.eth_dst = { 0x02, 0, 0, 0x80, 0, 0x01 }), REASON(pass_l2_other_host), SAME },
	{ "v4 to MAC differing in byte 4", ETH,
	  V4(.eth_dst = { 0x02, 0, 0, 0, 0x01, 0x01 }), REASON(pass_l2_other_host), SAME },

	/* pass_ip_options, pass_ipv6_ext */
	{ "v4 router alert option", ETH,
	  V4(.opts = BYTES(0x94, 0x04, 0, 0), .opts_len = 4), REASON(pass_ip_options), SAME },
	{ "v4 four NOP options", ETH,
	  V4(.opts = BYTES(1, 1, 1, 1), .opts_len = 4), REASON(pass_ip_options), SAME },
	{ "v4 40 bytes of options (IHL 15)", ETH,
	  V4(.opts = BYTES(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
			   1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
			   1, 0),
	     .opts_len = 40),
	  REASON(pass_ip_options), SAME },
	{ "v6 hop-by-hop header", ETH,
	  V6(.proto = 0, .opts = EXT_HBH, .opts_len = 8), REASON(pass_ipv6_ext), SAME },
	{ "v6 fragment header", ETH,
	  V6(.proto = 44, .opts = EXT_FRAG, .opts_len = 8), REASON(pass_ipv6_ext), SAME },
	{ "v6 routing header", ETH,
	  V6(.proto = 43, .opts = EXT_ROUTING, .opts_len = 8), REASON(pass_ipv6_ext), SAME },
	{ "v6 destination options header", ETH,
	  V6(.proto = 60, .opts = EXT_DSTOPT, .opts_len = 8), REASON(pass_ipv6_ext), SAME },

	/* pass_not_icmp */
	{ "v4 UDP", ETH, V4(.proto = 17), REASON(pass_not_icmp), SAME },
	{ "v4 TCP", ETH, V4(.proto = 6), REASON(pass_not_icmp), SAME },
	{ "v4 ICMPv6 number in IPv4", ETH, V4(.proto = 58), REASON(pass_not_icmp), SAME },
	{ "v6 UDP", ETH, V6(.proto = 17), REASON(pass_not_icmp), SAME },
	{ "v6 no next header (59)", ETH, V6(.proto = 59), REASON(pass_not_icmp), SAME },
	{ "v6 ICMP (1) instead of ICMPv6", ETH, V6(.proto = 1), REASON(pass_not_icmp), SAME },

	/* pass_fragment (RFC 791: MF or a non-zero offset) */
	{ "v4 first fragment (MF)", ETH, V4(.frag = 0x2000), REASON(pass_fragment), SAME },
	{ "v4 last fragment (offset 1)", ETH, V4(.frag = 0x0001), REASON(pass_fragment), SAME },
	{ "v4 DF and MF", ETH, V4(.frag = 0x6000), REASON(pass_fragment), SAME },
	{ "v4 largest offset", ETH, V4(.frag = 0x1fff), REASON(pass_fragment), SAME },
	{ "v4 fragment with bad ICMP checksum", ETH,
	  V4(.frag = 0x2000, .icmp_csum_delta = 3), REASON(pass_fragment), SAME },

	/* pass_dst_group */
	{ "v4 to 255.255.255.255", ETH, V4(.ip4_dst = { 255, 255, 255, 255 }),
	  REASON(pass_dst_group), SAME },
	{ "v4 to 224.0.0.1", ETH, V4(.ip4_dst = { 224, 0, 0, 1 }), REASON(pass_dst_group), SAME },
	{ "v4 to 239.1.2.3", ETH, V4(.ip4_dst = { 239, 1, 2, 3 }), REASON(pass_dst_group), SAME },
	{ "v6 to ff02::1", ETH, V6(.ip6_dst = A6(0xff, 0x02, [15] = 1)), REASON(pass_dst_group),
	  SAME },
	{ "v6 to solicited-node group", ETH,
	  V6(.ip6_dst = A6(0xff, 0x02, [11] = 1, 0xff, 0, 0, 1)), REASON(pass_dst_group), SAME },
	/* Classified by next header first: not ICMPv6, so not looked at further. */
	{ "v6 to ff05::2 with extension header", ETH,
	  V6(.ip6_dst = A6(0xff, 0x05, [15] = 2), .proto = 0, .opts = EXT_HBH, .opts_len = 8),
	  REASON(pass_ipv6_ext), SAME },

	/* pass_dst_not_local */
	{ "v4 to 192.0.2.2", ETH, V4(.ip4_dst = { 192, 0, 2, 2 }), REASON(pass_dst_not_local),
	  SAME },
	{ "v4 to just past the /24", ETH, V4(.ip4_dst = { 198, 51, 101, 0 }),
	  REASON(pass_dst_not_local), SAME },
	{ "v4 to 0.0.0.0", ETH, V4(.ip4_dst = { 0, 0, 0, 0 }), REASON(pass_dst_not_local), SAME },
	{ "v4 to a subnet broadcast inside an operator prefix", ETH,
	  V4(.ip4_dst = { 198, 51, 100, 255 }), REASON(pass_dst_group), SAME },
	{ "v4 from a subnet broadcast address is martian", ETH,
	  V4(.ip4_src = { 198, 51, 100, 255 }), REASON(drop_martian_src), SAME },
	{ "v6 to 2001:db8::2", ETH, V6(.ip6_dst = A6(0x20, 0x01, 0x0d, 0xb8, [15] = 2)),
	  REASON(pass_dst_not_local), SAME },
	{ "v6 to just past the /64", ETH,
	  V6(.ip6_dst = A6(0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 1, [15] = 1)),
	  REASON(pass_dst_not_local), SAME },
	{ "v4 not ours with bad ICMP checksum", ETH,
	  V4(.ip4_dst = { 192, 0, 2, 2 }, .icmp_csum_delta = 1), REASON(pass_dst_not_local), SAME },

	/* pass_not_echo */
	{ "v4 echo reply", ETH, V4(.icmp_type = 0), REASON(pass_not_echo), SAME },
	{ "v4 destination unreachable", ETH, V4(.icmp_type = 3, .icmp_code = 1),
	  REASON(pass_not_echo), SAME },
	{ "v4 timestamp request", ETH, V4(.icmp_type = 13), REASON(pass_not_echo), SAME },
	{ "v6 echo reply", ETH, V6(.icmp_type = 129), REASON(pass_not_echo), SAME },
	{ "v6 neighbour solicitation", ETH, V6(.icmp_type = 135, .ttl = 255),
	  REASON(pass_not_echo), SAME },
	{ "v6 neighbour advertisement", ETH, V6(.icmp_type = 136, .ttl = 255),
	  REASON(pass_not_echo), SAME },
	{ "v6 destination unreachable", ETH, V6(.icmp_type = 1), REASON(pass_not_echo), SAME },
	{ "v6 ICMPv4 echo type 8", ETH, V6(.icmp_type = 8), REASON(pass_not_echo), SAME },

	/* pass_src_reserved */
	{ "v4 source 240.0.0.1", ETH, V4(.ip4_src = { 240, 0, 0, 1 }), REASON(pass_src_reserved),
	  SAME },
	{ "v4 source 254.255.255.255", ETH, V4(.ip4_src = { 254, 255, 255, 255 }),
	  REASON(pass_src_reserved), SAME },

	/* cfg_check_mac=0 (and latency sampling off) */
	{ "nomac: v4 to another host's MAC", NOMAC, V4(.eth_dst = OTHER_MAC),
	  REASON(reply_echo4), REPLY },
	{ "nomac: v6 to another host's MAC", NOMAC, V6(.eth_dst = OTHER_MAC),
	  REASON(reply_echo6), REPLY },
	{ "nomac: v4 to broadcast MAC", NOMAC, V4(.eth_dst = BCAST_MAC), REASON(pass_l2_group),
	  SAME },

	/* TUN framing: the IP header is byte 0, the version nibble picks the family */
	{ "tun: v4 echo", TUN, V4(), REASON(reply_echo4), REPLY },
	{ "tun: v6 echo", TUN, V6(), REASON(reply_echo6), REPLY },
	{ "tun: v4 all-zero reply", TUN,
	  V4(.icmp_id = 0, .icmp_seq = 0,
	     .payload_len = 0), REASON(reply_echo4), REPLY, CSUM(0xffff) },
	{ "tun: v4 1-byte payload", TUN, V4(.payload_len = 1), REASON(reply_echo4), REPLY },
	{ "tun: v6 1-byte payload", TUN, V6(.payload_len = 1), REASON(reply_echo6), REPLY },
	{ "tun: v4 1500-byte packet", TUN, V4(.payload_len = 1472), REASON(reply_echo4), REPLY },
	{ "tun: v6 operator prefix", TUN, V6(.ip6_dst = OPER6), REASON(reply_echo6), REPLY },
	{ "tun: v4 with trailing bytes", TUN, V4(.pad_len = 5, .pad_byte = 0x77),
	  REASON(reply_echo4), REPLY },
	{ "tun: version 5", TUN, RAW(tun_version5), REASON(drop_bad_version), SAME },
	{ "tun: version 0", TUN, RAW(tun_version0), REASON(drop_bad_version), SAME },
	{ "tun: version 15", TUN, RAW(tun_version15), REASON(drop_bad_version), SAME },
	{ "tun: v4 cut at 14 bytes", TUN, V4(.truncate = 14), REASON(drop_truncated), SAME },
	{ "tun: v4 cut at 19 bytes", TUN, V4(.truncate = 19), REASON(drop_truncated), SAME },
	{ "tun: v6 cut at 39 bytes", TUN, V6(.truncate = 39), REASON(drop_truncated), SAME },
	{ "tun: v4 bad header checksum", TUN, V4(.ip_csum_delta = 1), REASON(drop_bad_ip_csum),
	  SAME },
	{ "tun: v6 bad checksum", TUN, V6(.icmp_csum_delta = 1), REASON(drop_bad_icmp_csum), SAME },
	{ "tun: v4 source 127.0.0.1", TUN, V4(.ip4_src = { 127, 0, 0, 1 }),
	  REASON(drop_martian_src), SAME },
	{ "tun: v6 not ours", TUN, V6(.ip6_dst = A6(0x20, 0x01, 0x0d, 0xb8, [15] = 2)),
	  REASON(pass_dst_not_local), SAME },
	{ "tun: v4 UDP", TUN, V4(.proto = 17), REASON(pass_not_icmp), SAME },

	/*
	 * Multi-buffer frames (xdp.frags): a test run keeps the first
	 * XF_MAX_LINEAR_FRAME bytes linear and puts the rest in page-sized
	 * fragments, as a driver does with a jumbo frame.
	 */
	{ "frags: v4 echo, one byte past the first buffer", ETH,
	  V4(.payload_len = XF_MAX_LINEAR_FRAME + 1 - 14 - 28), REASON(reply_echo4), REPLY },
	{ "frags: v4 echo, 4000-byte payload", ETH, V4(.payload_len = 4000), REASON(reply_echo4),
	  REPLY },
	{ "frags: v4 echo, 8000-byte ping (MTU 9000)", ETH, V4(.payload_len = 8000),
	  REASON(reply_echo4), REPLY },
	{ "frags: v4 echo, 9000-byte IP packet", ETH, V4(.payload_len = 9000 - 28),
	  REASON(reply_echo4), REPLY },
	{ "frags: v4 echo, odd payload across two fragments", ETH, V4(.payload_len = 8191),
	  REASON(reply_echo4), REPLY },
	{ "frags: v4 echo, longest ICMP message answered", ETH,
	  V4(.payload_len = XDPONG_MAX_ICMP_LEN - 8), REASON(reply_echo4), REPLY },
	{ "frags: v4 echo, one byte longer", ETH,
	  V4(.payload_len = XDPONG_MAX_ICMP_LEN - 7), REASON(pass_too_big), SAME },
	{ "frags: v4 all-zero reply", ETH,
	  V4(.icmp_id = 0, .icmp_seq = 0, .payload_len = 6000, .payload_fill = 0),
	  REASON(reply_echo4), REPLY, CSUM(0xffff) },
	{ "frags: v4 random-looking payload, padding in the fragment", ETH,
	  V4(.payload_len = 5001, .payload_fill = 0xa7, .pad_len = 13, .pad_byte = 0xee),
	  REASON(reply_echo4), REPLY },
	{ "frags: v4 bad ICMP checksum", ETH, V4(.payload_len = 8000, .icmp_csum_delta = 1),
	  REASON(drop_bad_icmp_csum), SAME },
	{ "frags: v4 total length past the last fragment", ETH,
	  V4(.payload_len = 8000, .len_delta = 1), REASON(drop_bad_length), SAME },
	{ "frags: v4 total length short: fragment tail not summed", ETH,
	  V4(.payload_len = 8000, .len_delta = -4000), REASON(drop_bad_icmp_csum), SAME },
	{ "frags: v4 UDP", ETH, V4(.proto = 17, .payload_len = 8000), REASON(pass_not_icmp), SAME },
	{ "frags: v4 IP fragment", ETH, V4(.frag = 0x2000, .payload_len = 8000),
	  REASON(pass_fragment), SAME },
	{ "frags: v4 not ours", ETH, V4(.ip4_dst = { 192, 0, 2, 2 }, .payload_len = 8000),
	  REASON(pass_dst_not_local), SAME },
	{ "frags: v6 echo, 8000-byte ping", ETH, V6(.payload_len = 8000), REASON(reply_echo6),
	  REPLY },
	{ "frags: v6 echo, odd payload", ETH, V6(.payload_len = 7777), REASON(reply_echo6), REPLY },
	{ "frags: v6 echo, longest ICMPv6 message answered", ETH,
	  V6(.payload_len = XDPONG_MAX_ICMP_LEN - 8), REASON(reply_echo6), REPLY },
	{ "frags: v6 echo, one byte longer", ETH,
	  V6(.payload_len = XDPONG_MAX_ICMP_LEN - 7), REASON(pass_too_big), SAME },
	{ "frags: v6 bad checksum", ETH, V6(.payload_len = 8000, .icmp_csum_delta = 1),
	  REASON(drop_bad_icmp_csum), SAME },
	{ "frags: v6 payload length past the last fragment", ETH,
	  V6(.payload_len = 8000, .len_delta = 1), REASON(drop_bad_length), SAME },
	{ "frags: tun: v4 8000-byte ping", TUN, V4(.payload_len = 8000), REASON(reply_echo4),
	  REPLY },
	{ "frags: tun: v6 8000-byte ping", TUN, V6(.payload_len = 8000), REASON(reply_echo6),
	  REPLY },
	{ "frags: nomac: v4 8000-byte ping", NOMAC, V4(.payload_len = 8000),
	  REASON(reply_echo4), REPLY },
};

/* ---- Map reads ---- */
static int read_counters(const struct instance *in, __u64 out[XDPONG_R_MAX])
{
	return xf_read_counters(in->xf.stats_fd, xf_ncpus, out);
}

static int read_latency(const struct instance *in, struct xdpong_latency *out)
{
	return xf_read_latency(in->xf.lat_fd, xf_ncpus, out);
}

/* ---- Reporting ---- */
static bool case_failed;
/*
 * A case this kernel cannot run (loader/core/probe.c: found by trying): the
 * feature it needs, counted and named at the end. Never a version check.
 */
static const char *case_skipped;
static unsigned int n_skipped, skipped_for[FEAT_COUNT];
static bool reason_unseen_ok[XDPONG_R_MAX];

static void fail(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	case_failed = true;
}

static void case_begin(void)
{
	case_failed = false;
	case_skipped = NULL;
}

/* Skip the case when the kernel lacks f; true if it was skipped. */
static bool case_needs(enum feature f)
{
	if (feature_have(f))
		return false;
	if (!case_skipped)
		skipped_for[f]++;
	case_skipped = feature_info[f].name;
	return true;
}

static void case_end(const char *name)
{
	if (case_skipped && !case_failed) {
		n_skipped++;
		if (say_all)
			printf("skip %s (no %s)\n", name, case_skipped);
	} else if (case_failed) {
		n_failed++;
	} else {
		n_passed++;
		if (say_all)
			printf("ok   %s\n", name);
	}
}

/*
 * Run one frame through the instance and check everything: verdict,
 * exactly one counter +1, latency, output length and bytes, checksums.
 * want_csum: CSUM() of the reply's ICMP checksum, or 0.
 */
static void run_frame(const char *name, enum inst i, const uint8_t *in,
		      size_t in_len, enum xdpong_reason want, uint32_t want_csum)
{
	struct instance *it = &insts[i];
	static uint8_t out[MAX_FRAME * 2], ref[MAX_FRAME * 2];
	__u64 before[XDPONG_R_MAX], after[XDPONG_R_MAX];
	struct xdpong_latency lat0, lat1;
	enum pkt_ref_verdict rv;
	const char *why = "";
	bool reply = reason_outcomes[want] == XDPONG_REPLIED;
	bool limited = want == REASON(drop_rate_limited) || want == REASON(drop_global_limited);
	int err;

	if (in_len > XF_MAX_LINEAR_FRAME && case_needs(FEAT_FRAGS))
		return;
	if (limited && case_needs(FEAT_CMPXCHG))
		return;
	if (it->load_error) {
		fail(name, "instance %s did not load", it->name);
		return;
	}
	if (read_counters(it, before) || read_latency(it, &lat0)) {
		fail(name, "cannot read maps: %s", strerror(errno));
		return;
	}
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in,
		    .data_size_in = (__u32)in_len, .data_out = out,
		    .data_size_out = sizeof(out), .repeat = 1);
	err = bpf_prog_test_run_opts(it->xf.prog_fd, &opts);
	if (err) {
		fail(name, "bpf_prog_test_run_opts: %s", strerror(-err));
		return;
	}
	if (read_counters(it, after) || read_latency(it, &lat1)) {
		fail(name, "cannot read maps: %s", strerror(errno));
		return;
	}

	if ((int)opts.retval != verdict_of(want))
		fail(name, "verdict %s, want %s", xf_action_name(opts.retval),
		     xf_action_name(verdict_of(want)));
	for (int r = 0; r < XDPONG_R_MAX; r++) {
		__u64 d = after[r] - before[r], want_d = r == (int)want;

		if (d != want_d)
			fail(name, "counter %s moved by %lld, want %llu (reason %s)",
			     reason_names[r], (long long)d,
			     (unsigned long long)want_d, reason_names[want]);
	}

	/* Latency: one sample per reply when sampling 1 in 1, nothing otherwise. */
	if (reply && it->sampled) {
		unsigned int moved = 0;

		for (int s = 0; s < XDPONG_LAT_SLOTS; s++)
			moved += (unsigned int)(lat1.slots[s] - lat0.slots[s]);
		if (lat1.count != lat0.count + 1 || moved != 1 ||
		    lat1.sum_ns < lat0.sum_ns)
			fail(name, "latency: count +%llu, slots +%u, want +1 each",
			     (unsigned long long)(lat1.count - lat0.count), moved);
	} else if (memcmp(lat0.slots, lat1.slots, sizeof(lat0.slots)) ||
		   lat0.count != lat1.count || lat0.sum_ns != lat1.sum_ns) {
		fail(name, "latency histogram moved for a packet not sampled");
	}

	if (opts.data_size_out != in_len)
		fail(name, "data_size_out %u, want %zu", opts.data_size_out, in_len);

	rv = pkt_reference_reply(&it->xf.ref, in, in_len, ref, &why);
	if (reply) {
		const char *bad;

		if (rv != PKT_REF_REPLY) {
			fail(name, "fixture wants a reply, reference says no (%s)", why);
			memcpy(ref, in, in_len);
		}
		if (memcmp(out, ref, in_len) || opts.data_size_out != in_len) {
			fail(name, "reply differs from the reference reply:");
			pkt_hexdiff(stdout, "    ", out, opts.data_size_out, ref, in_len);
		}
		bad = pkt_verify_csums(out, opts.data_size_out, it->xf.ref.framing);
		if (bad)
			fail(name, "reply checksums: %s", bad);
		if (want_csum) {
			size_t l3 = it->xf.ref.framing == PKT_FRAMING_ETH ? 14 : 0;
			size_t off = l3 + ((out[l3] >> 4) == 6 ? 40 : 20);
			unsigned int got = (unsigned int)out[off + 2] << 8 | out[off + 3];

			if (got != (want_csum & 0xffff))
				fail(name, "reply ICMP checksum 0x%04x, want 0x%04x",
				     got, want_csum & 0xffff);
		}
	} else {
		if (rv == PKT_REF_REPLY && !limited)
			fail(name, "fixture wants %s, the reference would reply",
			     reason_names[want]);
		if (memcmp(out, in, in_len) || opts.data_size_out != in_len) {
			fail(name, "output differs from the input:");
			pkt_hexdiff(stdout, "    ", out, opts.data_size_out, in, in_len);
		}
	}
	if (case_failed && say_all) {
		printf("    input: ");
		pkt_hexline(stdout, in, in_len);
	}
}

static size_t build_fixture(const struct fixture *f, uint8_t *buf, size_t cap)
{
	struct pkt_spec s = f->spec;

	if (f->raw) {
		if (f->raw_len > cap)
			return 0;
		memcpy(buf, f->raw, f->raw_len);
		return f->raw_len;
	}
	s.framing = insts[f->inst].xf.ref.framing;
	return pkt_build(&s, buf, cap);
}

/* prefix: prepended to the name ("" for none). */
static void run_fixture(const struct fixture *f, const char *prefix)
{
	static uint8_t frame[MAX_FRAME];
	char name[160];
	size_t len;

	snprintf(name, sizeof(name), "%s%s", prefix, f->name);
	case_begin();
	len = build_fixture(f, frame, sizeof(frame));
	if (!len)
		fail(name, "fixture does not build");
	else if ((f->out == REPLY) != (reason_outcomes[f->reason] == XDPONG_REPLIED))
		fail(name, "fixture row: output %s contradicts reason %s",
		     f->out == REPLY ? "REPLY" : "SAME", reason_names[f->reason]);
	else
		run_frame(name, f->inst, frame, len, f->reason, f->want_csum);
	case_end(name);
}

/*
 * Every payload length whose frame ends within 8 bytes of a buffer
 * boundary of a test run: the end of the linear part and of the first
 * page fragment. Odd and even tails across the split, summed by the
 * multi-buffer path.
 */
static void sweep_frags(enum inst i, int family)
{
	static uint8_t frame[MAX_FRAME];
	size_t l3 = insts[i].xf.ref.framing == PKT_FRAMING_ETH ? 14 : 0;
	size_t hdrs = l3 + (family == 4 ? 20 : 40) + 8;
	static const size_t edges[] = { XF_MAX_LINEAR_FRAME, XF_MAX_LINEAR_FRAME + 4096 };
	struct pkt_spec s;
	char name[96];
	size_t len;

	for (size_t e = 0; e < ARRAY_SIZE(edges); e++) {
		for (size_t end = edges[e] - 8; end <= edges[e] + 8; end++) {
			pkt_spec_init(&s, family, insts[i].xf.ref.framing);
			s.payload_len = end - hdrs;
			s.icmp_seq = (uint16_t)end;
			len = pkt_build(&s, frame, sizeof(frame));
			snprintf(name, sizeof(name), "%s: v%d frags, %zu-byte frame",
				 insts[i].name, family, len);
			case_begin();
			run_frame(name, i, frame, len,
				  family == 4 ? REASON(reply_echo4) : REASON(reply_echo6), 0);
			case_end(name);
		}
	}
}

/*
 * Truncation at every length: a frame cut inside the IP header is
 * drop_truncated, one cut after the header but before the IP length is
 * drop_bad_length. Frames below 14 bytes cannot be test-run (EINVAL).
 */
static void sweep_truncation(enum inst i, int family)
{
	static uint8_t frame[MAX_FRAME];
	size_t l3 = insts[i].xf.ref.framing == PKT_FRAMING_ETH ? 14 : 0;
	size_t hdr = l3 + (family == 4 ? 20 : 40);
	struct pkt_spec s;
	size_t full;
	char name[96];

	pkt_spec_init(&s, family, insts[i].xf.ref.framing);
	s.payload_len = 37;
	full = pkt_build(&s, frame, sizeof(frame));
	for (size_t cut = 14; cut < full; cut++) {
		snprintf(name, sizeof(name), "%s: v%d cut at %zu of %zu bytes",
			 insts[i].name, family, cut, full);
		case_begin();
		run_frame(name, i, frame, cut,
			  cut < hdr ? REASON(drop_truncated) : REASON(drop_bad_length), 0);
		case_end(name);
	}
}

/* Every payload length from 0 to 80, plain and padded to 60 bytes. */
static void sweep_payload(enum inst i, int family, size_t pad_to)
{
	static uint8_t frame[MAX_FRAME];
	struct pkt_spec s;
	char name[96];
	size_t len;

	for (size_t n = 0; n <= 80; n++) {
		pkt_spec_init(&s, family, insts[i].xf.ref.framing);
		s.payload_len = n;
		s.icmp_seq = (uint16_t)n;
		s.pad_to = pad_to;
		s.pad_byte = (uint8_t)(0x11 * (n % 15 + 1));
		len = pkt_build(&s, frame, sizeof(frame));
		snprintf(name, sizeof(name), "%s: v%d payload %zu%s", insts[i].name,
			 family, n, pad_to ? " padded" : "");
		case_begin();
		run_frame(name, i, frame, len,
			  family == 4 ? REASON(reply_echo4) : REASON(reply_echo6), 0);
		case_end(name);
	}
}

static size_t build_from(enum inst i, int family, const uint8_t *src,
			 uint8_t *frame)
{
	struct pkt_spec s;

	pkt_spec_init(&s, family, insts[i].xf.ref.framing);
	if (family == 4)
		memcpy(s.ip4_src, src, 4);
	else
		memcpy(s.ip6_src, src, 16);
	return pkt_build(&s, frame, MAX_FRAME);
}

static void rate_case(enum inst i, const char *name, int family,
		      const uint8_t *src, enum xdpong_reason want)
{
	static uint8_t frame[MAX_FRAME];
	char full[128];
	size_t len = build_from(i, family, src, frame);

	snprintf(full, sizeof(full), "%s: %s", insts[i].name, name);
	case_begin();
	run_frame(full, i, frame, len, want, 0);
	case_end(full);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * GCRA with cost 1/2 s and tolerance 2 costs: three requests at once pass,
 * the fourth is over; a sleep of a bit more than one cost frees one slot.
 */
static void test_rate_limits(enum inst rate, enum inst global)
{
	static const uint8_t a[4] = PEER4, b[4] = { 203, 0, 113, 8 };
	static const uint8_t c[4] = { 203, 0, 113, 9 }, d[4] = { 203, 0, 113, 10 };
	static const uint8_t a6[16] = PEER6;
	static const uint8_t a6_same64[16] = A6(0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff,
						[8] = 0xaa, [15] = 8);
	static const uint8_t a6_next64[16] = A6(0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff,
						0, 1, [15] = 7);
	char name[64];

	for (int n = 1; n <= RATE_BURST; n++) {
		snprintf(name, sizeof(name), "v4 source A request %d of burst", n);
		rate_case(rate, name, 4, a, REASON(reply_echo4));
	}
	rate_case(rate, "v4 source A over the burst", 4, a, REASON(drop_rate_limited));
	rate_case(rate, "v4 source A still over", 4, a, REASON(drop_rate_limited));
	rate_case(rate, "v4 source B has its own bucket", 4, b, REASON(reply_echo4));
	for (int n = 1; n <= RATE_BURST; n++) {
		snprintf(name, sizeof(name), "v6 source A request %d of burst", n);
		rate_case(rate, name, 6, a6, REASON(reply_echo6));
	}
	rate_case(rate, "v6 same /64 shares the bucket", 6, a6_same64,
		  REASON(drop_rate_limited));
	rate_case(rate, "v6 next /64 has its own bucket", 6, a6_next64,
		  REASON(reply_echo6));
	rate_case(rate, "v4 source B in burst after A's drops", 4, b, REASON(reply_echo4));

	rate_case(global, "v4 source A", 4, a, REASON(reply_echo4));
	rate_case(global, "v4 source B", 4, b, REASON(reply_echo4));
	rate_case(global, "v6 source A", 6, a6, REASON(reply_echo6));
	rate_case(global, "v4 source C over the global burst", 4, c,
		  REASON(drop_global_limited));
	rate_case(global, "v6 source over the global burst", 6, a6_next64,
		  REASON(drop_global_limited));

	sleep_ms((long)(RATE_COST_NS / 1000000) + 60);
	rate_case(rate, "v4 source A after one interval", 4, a, REASON(reply_echo4));
	rate_case(global, "v4 source D after one interval", 4, d, REASON(reply_echo4));
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One test run of frame through instance i: the verdict, -1 if it failed. */
static long run_verdict(enum inst i, const uint8_t *frame, size_t len)
{
	static uint8_t out[MAX_FRAME];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);

	return bpf_prog_test_run_opts(insts[i].xf.prog_fd, &opts) ? -1 : (long)opts.retval;
}

/* Replies the SAMPLE instance answered and timed, -1 if the maps cannot be read. */
static int sample_echoes(int n, long gap_ms, __u64 *timed)
{
	static const uint8_t src[4] = PEER4;
	static uint8_t frame[MAX_FRAME];
	struct xdpong_latency before, after;
	size_t len = build_from(SAMPLE, 4, src, frame);

	if (read_latency(&insts[SAMPLE], &before))
		return -1;
	for (int k = 0; k < n; k++) {
		if (run_verdict(SAMPLE, frame, len) != XDP_TX)
			return -1;
		if (gap_ms)
			sleep_ms(gap_ms);
	}
	if (read_latency(&insts[SAMPLE], &after))
		return -1;
	*timed = after.count - before.count;
	return 0;
}

/*
 * Latency sampling 1 in SAMPLE_N: below a timer tick's worth of echoes
 * every SAMPLE_N-th is timed; faster, at most one per tick (and CPU).
 * Ticks are 1 to 10 ms (HZ 100 to 1000): echoes 25 ms apart are in
 * different ticks, and a burst of B ms touches at most B + 2 of them.
 */
static void test_latency_sampling(void)
{
	const char *slow = "sample: 8 echoes 25 ms apart, 1 in 4 timed";
	const char *burst = "sample: 400 echoes at once, at most one timed per tick";
	__u64 timed;
	double t0, ms;

	case_begin();
	if (!insts[SAMPLE].xf.skel)
		fail(slow, "not loaded");
	else if (sample_echoes(8, 25, &timed))
		fail(slow, "test run failed or not answered");
	else if (timed != 8 / SAMPLE_N)
		fail(slow, "%llu timed, want %d", (unsigned long long)timed, 8 / SAMPLE_N);
	case_end(slow);

	case_begin();
	t0 = now_ms();
	if (!insts[SAMPLE].xf.skel || sample_echoes(400, 0, &timed)) {
		fail(burst, "test run failed or not answered");
	} else {
		ms = now_ms() - t0;
		/* A burst of B ms touches at most B + 2 ticks of 1 ms or more,
		 * and its first echo is timed; 1 in 4 alone times 100, in the 1
		 * to 5 ms a burst takes here. */
		if (timed < 1 || timed > (__u64)ms + 2)
			fail(burst, "%llu timed in %.1f ms", (unsigned long long)timed, ms);
	}
	case_end(burst);
}

/* One frame through instance i: -1 unless its verdict is want; *timed:
 * whether the latency histogram counted it. */
static int sample_one(enum inst i, const uint8_t *frame, size_t len, __u32 want, bool *timed)
{
	struct xdpong_latency before, after;

	if (read_latency(&insts[i], &before) || run_verdict(i, frame, len) != want ||
	    read_latency(&insts[i], &after))
		return -1;
	*timed = after.count != before.count;
	return 0;
}

/* An answered echo through instance i, sampled 1 in n, and its check: it
 * is timed exactly when it finds the count of IPv4 replies at a multiple
 * of n. 0, or -1 with the failure reported. */
static int sample_check(const char *name, enum inst i, int n, const uint8_t *frame, size_t len)
{
	__u64 c[XDPONG_R_MAX];
	bool timed, want;

	if (read_counters(&insts[i], c)) {
		fail(name, "cannot read the counters");
		return -1;
	}
	want = c[REASON(reply_echo4)] % n == 0;
	sleep_ms(25);
	if (sample_one(i, frame, len, XDP_TX, &timed)) {
		fail(name, "echo not answered");
		return -1;
	}
	if (timed != want) {
		fail(name, "the echo after %llu replies %s, want %s",
		     (unsigned long long)c[REASON(reply_echo4)], timed ? "timed" : "not timed",
		     want ? "timed" : "not timed");
		return -1;
	}
	return 0;
}

/*
 * Sampling follows the replies: an answered request is timed exactly when
 * it finds the CPU's count of IPv4 replies at a multiple of n, whatever
 * came before. Where the request at a multiple is dropped (a bad
 * checksum), the count has not moved, so the next one is timed. Requests
 * 25 ms apart, each in a tick of its own (the tick's bound is the burst
 * case's). The fixture keeps this process on one CPU. A countdown fails
 * here whatever its phase: out of step with the count, on the way to the
 * multiple; in step, after the drop, which it counts and the count does
 * not. n = 4 takes the mask, 3 the division.
 */
static void test_latency_handoff(enum inst i, int n)
{
	static const uint8_t src[4] = PEER4;
	static uint8_t good[MAX_FRAME], bad[MAX_FRAME];
	size_t good_len = build_from(i, 4, src, good), bad_len;
	__u64 c[XDPONG_R_MAX];
	struct pkt_spec s;
	char name[128];
	bool timed;
	int k;

	snprintf(name, sizeof(name), "%s: 1 in %d timed by the reply count; a drop hands it on",
		 insts[i].name, n);
	pkt_spec_init(&s, 4, insts[i].xf.ref.framing);
	memcpy(s.ip4_src, src, 4);
	s.icmp_csum_delta = 1;
	bad_len = pkt_build(&s, bad, MAX_FRAME);

	case_begin();
	if (!insts[i].xf.skel) {
		fail(name, "not loaded");
		goto out;
	}
	/* Up to the next multiple (at most n - 1 replies), each checked. */
	for (k = 0; k < n; k++) {
		if (read_counters(&insts[i], c)) {
			fail(name, "cannot read the counters");
			goto out;
		}
		if (c[REASON(reply_echo4)] % n == 0)
			break;
		if (sample_check(name, i, n, good, good_len))
			goto out;
	}
	sleep_ms(25);
	if (sample_one(i, bad, bad_len, XDP_DROP, &timed)) {
		fail(name, "bad checksum not dropped");
		goto out;
	}
	/* The first finds the count still at the multiple, then the n-th. */
	for (k = 0; k <= n; k++)
		if (sample_check(name, i, n, good, good_len))
			goto out;
out:
	case_end(name);
}

/* The X-macro is in outcome order, matching XDPONG_R_FIRST_PASSED/DROPPED. */
static void test_reason_order(void)
{
	const char *name = "reasons: replied < passed < dropped";
	int first_passed = -1, first_dropped = -1;

	case_begin();
	for (int r = 1; r < XDPONG_R_MAX; r++)
		if (reason_outcomes[r] < reason_outcomes[r - 1])
			fail(name, "%s (outcome %d) after %s (outcome %d)",
			     reason_names[r], reason_outcomes[r],
			     reason_names[r - 1], reason_outcomes[r - 1]);
	for (int r = XDPONG_R_MAX - 1; r >= 0; r--) {
		if (reason_outcomes[r] == XDPONG_PASSED)
			first_passed = r;
		if (reason_outcomes[r] == XDPONG_DROPPED)
			first_dropped = r;
	}
	if (reason_outcomes[0] != XDPONG_REPLIED)
		fail(name, "first reason %s is not a reply", reason_names[0]);
	if (first_passed != XDPONG_R_FIRST_PASSED)
		fail(name, "first passed reason is %d, XDPONG_R_FIRST_PASSED is %d",
		     first_passed, XDPONG_R_FIRST_PASSED);
	if (first_dropped != XDPONG_R_FIRST_DROPPED)
		fail(name, "first dropped reason is %d, XDPONG_R_FIRST_DROPPED is %d",
		     first_dropped, XDPONG_R_FIRST_DROPPED);
	if (sizeof(struct xdpong_counters) != XDPONG_R_MAX * sizeof(__u64))
		fail(name, "struct xdpong_counters is not one __u64 per reason");
	case_end(name);
}

/* Every reason except pass_split_headers must have moved by now. */
static void test_reasons_covered(const __u64 start[N_INST][XDPONG_R_MAX])
{
	const char *name = "every reason exercised";
	__u64 total[XDPONG_R_MAX] = { 0 }, now[XDPONG_R_MAX];

	case_begin();
	for (int i = 0; i < N_INST; i++) {
		if (insts[i].load_error)
			continue;
		if (read_counters(&insts[i], now)) {
			fail(name, "cannot read counters");
			break;
		}
		for (int r = 0; r < XDPONG_R_MAX; r++)
			total[r] += now[r] - start[i][r];
	}
	for (int r = 0; r < XDPONG_R_MAX; r++) {
		/* Needs headers split across buffers: a test run keeps the
		 * first 3520 bytes linear, so only a real NIC can do that. */
		if (r == REASON(pass_split_headers) || reason_unseen_ok[r])
			continue;
		if (!total[r])
			fail(name, "no fixture gives %s", reason_names[r]);
	}
	case_end(name);
}

static int setup_instance(enum inst i)
{
	struct instance *in = &insts[i];
	struct xdpong_bpf *skel;
	bool tun = i == TUN || i == RATE_TUN || i == GLOBAL_TUN;
	int err, every;

	in->sampled = i != NOMAC && i != SAMPLE && i != SAMPLE3;
	every = in->sampled ? 1 : i == SAMPLE ? SAMPLE_N : i == SAMPLE3 ? SAMPLE3_N : 0;
	err = xf_open(&in->xf, tun ? PKT_FRAMING_IP : PKT_FRAMING_ETH, i != NOMAC && !tun, every);
	if (err) {
		fprintf(stderr, "%s: cannot open the skeleton: %s\n", in->name,
			strerror(-err));
		return -1;
	}
	skel = in->xf.skel;
	/* As the loader sets them (a burst of 3 takes cells one at a time). */
	if (i == RATE || i == RATE_TUN)
		limits_configure(skel->rodata, RATE_PPS, RATE_BURST, 0, 0, xf_ncpus);
	if (i == GLOBAL || i == GLOBAL_TUN)
		limits_configure(skel->rodata, 0, 0, RATE_PPS, RATE_BURST, xf_ncpus);
	err = xdpong_bpf__load(skel);
	if (err) {
		/* A program that does not load is a failure of its cases, not of the run. */
		char msg[256];

		snprintf(msg, sizeof(msg), "%s (verifier: %s)", strerror(-err),
			 libbpf_last[0] ? libbpf_last : "see -v");
		in->load_error = strdup(msg);
		xdpong_bpf__destroy(skel);
		in->xf.skel = NULL;
		return 0;
	}
	/* NOMAC and TUN find addresses in the tries alone, the rest in the
	 * exact lists first, as attached by the loader. */
	if (xf_fill(&in->xf) || (i != NOMAC && !tun && xf_fill_own(&in->xf))) {
		fprintf(stderr, "%s: cannot fill the address maps: %s\n", in->name,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *msg, *tail, *line;

	if (level != LIBBPF_WARN)
		return 0;
	if (say_all)
		return vfprintf(stderr, fmt, ap);
	/* Keep the verifier's last line for the failure of a program that did not load. */
	if (vasprintf(&msg, fmt, ap) < 0)
		return 0;
	tail = strstr(msg, "\n-- END PROG LOAD LOG --");
	if (tail) {
		*tail = '\0';
		line = strrchr(msg, '\n');
		snprintf(libbpf_last, sizeof(libbpf_last), "%s", line ? line + 1 : msg);
	}
	free(msg);
	return 0;
}

int main(int argc, char **argv)
{
	__u64 start[N_INST][XDPONG_R_MAX];
	int ret = 1, cpu;

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-v") || !strcmp(argv[a], "--verbose")) {
			say_all = true;
		} else {
			fprintf(stderr, "usage: %s [-v]\n", argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(quiet_print);
	if (xf_init())
		return 1;
	/* The rate limits keep state per CPU: every case runs on one. */
	if (xf_usable_cpus(&cpu, 1) != 1 || xf_pin_cpu(cpu)) {
		fprintf(stderr, "cannot pin to a CPU: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < N_INST; i++) {
		char name[64];

		if (setup_instance(i))
			goto out;
		snprintf(name, sizeof(name), "load instance %s", insts[i].name);
		case_begin();
		if (insts[i].load_error)
			fail(name, "xdpong_bpf__load: %s", insts[i].load_error);
		else if (read_counters(&insts[i], start[i]))
			fail(name, "cannot read xdpong_stats");
		case_end(name);
	}

	test_reason_order();
	for (size_t f = 0; f < ARRAY_SIZE(fixtures); f++)
		run_fixture(&fixtures[f], "");
	sweep_frags(ETH, 4);
	sweep_frags(ETH, 6);
	sweep_frags(TUN, 4);
	sweep_frags(TUN, 6);
	/* The Ethernet rows again with the exact address lists off: the
	 * program then finds every address in the tries alone. */
	if (insts[ETH].xf.skel) {
		insts[ETH].xf.skel->bss->own_addrs_cur = 0;
		for (size_t f = 0; f < ARRAY_SIZE(fixtures); f++)
			if (fixtures[f].inst == ETH)
				run_fixture(&fixtures[f], "tries: ");
		insts[ETH].xf.skel->bss->own_addrs_cur = 1;
	}
	sweep_truncation(ETH, 4);
	sweep_truncation(ETH, 6);
	sweep_truncation(TUN, 4);
	sweep_truncation(TUN, 6);
	sweep_payload(ETH, 4, 0);
	sweep_payload(ETH, 6, 0);
	sweep_payload(ETH, 4, PKT_ETH_MIN_FRAME);
	sweep_payload(TUN, 4, 0);
	sweep_payload(TUN, 6, 0);
	test_rate_limits(RATE, GLOBAL);
	test_rate_limits(RATE_TUN, GLOBAL_TUN);
	test_latency_sampling();
	test_latency_handoff(SAMPLE, SAMPLE_N);
	test_latency_handoff(SAMPLE3, SAMPLE3_N);
	/* Reasons only skipped cases reach. */
	reason_unseen_ok[REASON(drop_rate_limited)] = !feature_have(FEAT_CMPXCHG);
	reason_unseen_ok[REASON(drop_global_limited)] = !feature_have(FEAT_CMPXCHG);
	reason_unseen_ok[REASON(pass_too_big)] = !feature_have(FEAT_FRAGS);
	/* STAMP's, with --stamp only: test_stamp.c reaches every one. */
	for (int r = REASON(reply_stamp4); r <= REASON(reply_stamp6); r++)
		reason_unseen_ok[r] = true;
	for (int r = REASON(pass_stamp_short); r <= REASON(pass_udp_csum); r++)
		reason_unseen_ok[r] = true;
	test_reasons_covered((const __u64(*)[XDPONG_R_MAX])start);

	for (int f = 0; f < FEAT_COUNT; f++)
		if (skipped_for[f])
			printf("skipped %u cases: %s: %s\n", skipped_for[f], feature_info[f].what,
			       feature_why(f));
	if (n_skipped)
		printf("%u passed, %u failed, %u skipped\n", n_passed, n_failed, n_skipped);
	else
		printf("%u passed, %u failed\n", n_passed, n_failed);
	ret = n_failed ? 1 : 0;
out:
	for (int i = 0; i < N_INST; i++)
		xdpong_bpf__destroy(insts[i].xf.skel);
	return ret;
}
