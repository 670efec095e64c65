// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of STAMP reflection (--stamp): hand-built STAMP test packets
 * through the real program with bpf_prog_test_run_opts, one run each,
 * asserting the verdict, the one reason counter that moved and, for a
 * reflected packet, every byte of the reply against the reference
 * reflector of tests/lib/stamp_reference.c, written from RFC 8762 and RFC
 * 8972 (it shares nothing with bpf/stamp.h): the timestamps it cannot
 * know are taken from the reply, then held to the clock (T1 <= T2 <= T3
 * <= T4 on the real time clock). A packet not reflected must come out
 * unchanged, and the reference must not reflect it either.
 *
 * Adding a case is one row of cases[]: the request's deviation from a
 * valid 44-byte STAMP packet to 192.0.2.1 or 2001:db8::1, port 862 (the
 * TLVs after it, as bytes), and the reason. Every STAMP reason must be
 * reached by some row.
 *
 * Run as root: build/tests/test_stamp [-v]. Last line: "N passed, N failed".
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/timex.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpong.h"
#include "xdpong_names.h"
#include "xdpong.skel.h"
#include "../../loader/up/up.h"
#include "xdpong_fixture.h"
#include "stamp_reference.h"
#include "../../bpf/ntp.h"

#define PORT 862
#define BASE 44                /* RFC 8762 4.2.1: the unauthenticated base packet */
#define NTP_UNIX 2208988800ULL /* RFC 5905: 1900 to 1970, in seconds */
#define ERREST 0x8a17          /* what .bss tells the program to send: S, scale 10, 23 */
#define ERREST_UNSYNC 0x0a17   /* the same, S clear */
#define MAX_FRAME 256

static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t ours4[4] = { 192, 0, 2, 1 }, peer4[4] = { 203, 0, 113, 7 };
static const uint8_t ours6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t peer6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, [15] = 7 };

/* CSUM_FFFF: the TLVs' last two bytes chosen so that the checksum
 * computes to 0, sent as 0xffff (RFC 768). */
enum csum_kind { CSUM_OK, CSUM_ZERO, CSUM_BAD, CSUM_FFFF };

/* A STAMP request, as a deviation from the valid one (zero: as valid). */
struct req {
	int family;
	int stamp_len;    /* 0: BASE */
	int ulen_delta;   /* added to the UDP length field only */
	int ip_len_delta; /* added to the IPv4 total / IPv6 payload length only */
	uint16_t dport;   /* 0: PORT */
	enum csum_kind csum;
	uint16_t frag;      /* IPv4 flags and offset; 0: DF */
	int ip_csum_delta;  /* IPv4 header checksum */
	const uint8_t *src; /* NULL: the peer */
	const uint8_t *dst; /* NULL: ours */
	uint8_t ttl;        /* 0: 57 */
	uint16_t ssid;
	uint8_t tc;         /* the TOS or traffic class (DSCP, ECN) */
	const uint8_t *tlv; /* bytes after the base packet (stamp_len 0) */
	int tlv_len;
	bool tlv_bad;  /* a byte of them changed after the checksum */
	bool unsynced; /* the program's Error Estimate without S */
};

struct stamp_case {
	const char *name;
	struct req r;
	enum xdpong_reason reason;
};

#define V4(...)                          \
	{                                \
		.family = 4, __VA_ARGS__ \
	}
#define V6(...)                          \
	{                                \
		.family = 6, __VA_ARGS__ \
	}
#define ADDR(...) ((const uint8_t[]){ __VA_ARGS__ })
/* TLVs (RFC 8972 4), as bytes: .tlv and .tlv_len of a request. */
#define TLVS(...) \
	.tlv = (const uint8_t[]){ __VA_ARGS__ }, .tlv_len = sizeof((uint8_t[]){ __VA_ARGS__ })
#define U STAMP_TLV_U
#define M STAMP_TLV_M
#define PAD STAMP_TLV_EXTRA_PADDING
#define TSI STAMP_TLV_TIMESTAMP_INFO
#define COS STAMP_TLV_COS
/* 9 Extra Padding TLVs without a value: one more than the program walks. */
#define PADS9                                                                                  \
	U, PAD, 0, 0, U, PAD, 0, 0, U, PAD, 0, 0, U, PAD, 0, 0, U, PAD, 0, 0, U, PAD, 0, 0, U, \
		PAD, 0, 0, U, PAD, 0, 0, U, PAD, 0, 0

static const struct stamp_case cases[] = {
	{ "v4 base packet", V4(), REASON(reply_stamp4) },
	{ "v6 base packet", V6(), REASON(reply_stamp6) },
	{ "v4 SSID kept, TTL 1 at byte 40", V4(.ssid = 0xbeef, .ttl = 1), REASON(reply_stamp4) },
	{ "v6 SSID kept, hop limit 255 at byte 40", V6(.ssid = 0x0001, .ttl = 255),
	  REASON(reply_stamp6) },
	{ "v4 no UDP checksum: none in the reply", V4(.csum = CSUM_ZERO), REASON(reply_stamp4) },
	{ "v4 another port", V4(.dport = 863), REASON(pass_not_icmp) },
	{ "v6 another port", V6(.dport = 7), REASON(pass_not_icmp) },
	{ "v4 bad UDP checksum", V4(.csum = CSUM_BAD), REASON(pass_udp_csum) },
	{ "v6 bad UDP checksum", V6(.csum = CSUM_BAD), REASON(pass_udp_csum) },
	{ "v6 zero UDP checksum", V6(.csum = CSUM_ZERO), REASON(pass_udp6_no_csum) },
	{ "v4 40 bytes of STAMP", V4(.stamp_len = 40), REASON(pass_stamp_short) },
	{ "v6 1 byte of STAMP", V6(.stamp_len = 1), REASON(pass_stamp_short) },
	{ "v4 48 bytes: zero padding", V4(.stamp_len = 48), REASON(reply_stamp4) },
	{ "v6 47 bytes: zero padding", V6(.stamp_len = 47), REASON(reply_stamp6) },
	/* RFC 8972 4: TLVs, each type, the flags, and where the walk stops. */
	{ "v4 Extra Padding: returned, U cleared",
	  V4(TLVS(U, PAD, 0, 6, 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02)), REASON(reply_stamp4) },
	{ "v6 Extra Padding with M from the sender: M cleared",
	  V6(TLVS(U | M, PAD, 0, 2, 0xab, 0xcd)), REASON(reply_stamp6) },
	{ "v4 Timestamp Information, clock synchronised (NTP)", V4(TLVS(U, TSI, 0, 4, 0, 0, 0, 0)),
	  REASON(reply_stamp4) },
	{ "v6 Timestamp Information, clock not synchronised (free-running)",
	  V6(.unsynced = true, TLVS(U, TSI, 0, 4, 9, 9, 9, 9)), REASON(reply_stamp6) },
	{ "v4 Class of Service: DSCP1 46 sent, DSCP2 10 ECN 1 reported",
	  V4(.tc = 10 << 2 | 1, TLVS(U, COS, 0, 4, 46 << 2, 0, 0xff, 0xff)), REASON(reply_stamp4) },
	{ "v6 Class of Service: DSCP1 63, DSCP2 33 ECN 3",
	  V6(.tc = 33 << 2 | 3, TLVS(U, COS, 0, 4, 63 << 2, 0xff, 0, 0)), REASON(reply_stamp6) },
	{ "v4 Class of Service without a UDP checksum",
	  V4(.csum = CSUM_ZERO, .tc = 4, TLVS(U, COS, 0, 4, 8 << 2, 0, 0, 0)),
	  REASON(reply_stamp4) },
	{ "v4 Location (unknown here): returned, U left",
	  V4(TLVS(U, STAMP_TLV_LOCATION, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8)), REASON(reply_stamp4) },
	{ "v6 HMAC, Direct Measurement, type 200: returned, U left",
	  V6(TLVS(U, STAMP_TLV_HMAC, 0, 4, 1, 2, 3, 4, U, STAMP_TLV_DIRECT_MEASUREMENT, 0, 0, U | M,
		  200, 0, 1, 0x77)),
	  REASON(reply_stamp6) },
	{ "v4 every type at odd offsets",
	  V4(TLVS(U, PAD, 0, 3, 1, 2, 3, U, TSI, 0, 4, 0, 0, 0, 0, U, COS, 0, 4, 12 << 2, 0, 0, 0,
		  U, 9, 0, 1, 0xee, U, COS, 0, 4, 1 << 2, 0, 0, 0)),
	  REASON(reply_stamp4) },
	{ "v6 every type at odd offsets",
	  V6(.tc = 0x2f, TLVS(U, 77, 0, 1, 5, U, COS, 0, 4, 40 << 2, 3, 3, 3, U, TSI, 0, 4, 1, 1, 1,
			      1, U, PAD, 0, 0)),
	  REASON(reply_stamp6) },
	{ "v4 Timestamp Information of 2 bytes: M", V4(TLVS(U, TSI, 0, 2, 7, 7, U, PAD, 0, 0)),
	  REASON(reply_stamp4) },
	{ "v6 Class of Service of 8 bytes: M, no DSCP1",
	  V6(TLVS(U, COS, 0, 8, 46 << 2, 0, 0, 0, 0, 0, 0, 0)), REASON(reply_stamp6) },
	{ "v4 a TLV past the packet: M, the walk ends",
	  V4(TLVS(U, PAD, 0, 2, 1, 2, U, TSI, 0, 9, 0, 0, 0, 0)), REASON(reply_stamp4) },
	{ "v6 a header that does not fit: M", V6(TLVS(U, COS, 0, 4, 0, 0, 0, 0, U, COS, 0)),
	  REASON(reply_stamp6) },
	{ "v4 one byte after a TLV: M", V4(TLVS(U, PAD, 0, 0, U)), REASON(reply_stamp4) },
	{ "v4 TLVs then zero padding", V4(TLVS(U, TSI, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
	  REASON(reply_stamp4) },
	{ "v6 padding without U, then what looks like a TLV",
	  V6(TLVS(0, 0, 0, 0, U, TSI, 0, 4, 0, 0, 0, 0)), REASON(reply_stamp6) },
	{ "v4 8 TLVs: as many as are walked",
	  V4(TLVS(U, PAD, 0, 0, U, PAD, 0, 0, U, PAD, 0, 0, U, PAD, 0, 0, U, PAD, 0, 0, U, PAD, 0,
		  0, U, PAD, 0, 0, U, TSI, 0, 4, 0, 0, 0, 0)),
	  REASON(reply_stamp4) },
	{ "v4 9 TLVs: the kernel's", V4(TLVS(PADS9)), REASON(pass_stamp_many_tlvs) },
	{ "v6 9 TLVs, the 9th malformed: the kernel's", V6(TLVS(PADS9, U)),
	  REASON(pass_stamp_many_tlvs) },
	{ "v4 9 TLVs, then padding: the kernel's", V4(TLVS(PADS9, 0, 0)),
	  REASON(pass_stamp_many_tlvs) },
	{ "v4 checksum 0xffff, TLVs answered",
	  V4(.csum = CSUM_FFFF, TLVS(U, TSI, 0, 4, 0, 0, 0, 0, U, PAD, 0, 2, 0, 0)),
	  REASON(reply_stamp4) },
	{ "v6 checksum 0xffff, TLVs answered",
	  V6(.csum = CSUM_FFFF, .tc = 0xb8, TLVS(U, COS, 0, 4, 0, 0, 0, 0, U, PAD, 0, 2, 0, 0)),
	  REASON(reply_stamp6) },
	{ "v4 TLV byte changed after the checksum", V4(.tlv_bad = true, TLVS(U, PAD, 0, 2, 1, 2)),
	  REASON(pass_udp_csum) },
	{ "v6 TLV byte changed after the checksum",
	  V6(.tlv_bad = true, TLVS(U, TSI, 0, 4, 0, 0, 0, 0)), REASON(pass_udp_csum) },
	{ "v4 UDP length below the IP payload", V4(.ulen_delta = -4), REASON(pass_udp_len) },
	{ "v6 UDP length below the IP payload", V6(.ulen_delta = -2), REASON(pass_udp_len) },
	{ "v4 UDP length beyond the IP payload", V4(.ulen_delta = 4), REASON(drop_bad_length) },
	{ "v4 UDP length 7", V4(.ulen_delta = -45), REASON(drop_bad_length) },
	{ "v4 IP payload shorter than a UDP header", V4(.ip_len_delta = -46),
	  REASON(drop_bad_length) },
	{ "v4 fragment", V4(.frag = 0x2000), REASON(pass_fragment) },
	{ "v4 bad IP header checksum", V4(.ip_csum_delta = 1), REASON(drop_bad_ip_csum) },
	{ "v4 loopback source", V4(.src = ADDR(127, 0, 0, 1)), REASON(drop_martian_src) },
	{ "v4 own source", V4(.src = ADDR(192, 0, 2, 1)), REASON(drop_martian_src) },
	{ "v4 not our address", V4(.dst = ADDR(192, 0, 2, 99)), REASON(pass_dst_not_local) },
	{ "v4 subnet broadcast", V4(.dst = ADDR(198, 51, 100, 255)), REASON(pass_dst_group) },
	{ "v4 operator prefix", V4(.dst = ADDR(198, 51, 100, 77)), REASON(reply_stamp4) },
	{ "v6 multicast destination", V6(.dst = ADDR(0xff, 0x02, [15] = 1)),
	  REASON(pass_dst_group) },
	{ "v6 loopback source", V6(.src = ADDR([15] = 1)), REASON(drop_martian_src) },
	{ "v6 not our address", V6(.dst = ADDR(0x20, 0x01, 0x0d, 0xb9, [15] = 1)),
	  REASON(pass_dst_not_local) },
};

static bool say_all; /* -v */
static unsigned int n_passed, n_failed;
static struct xf_instance inst;
static bool failed_now;

/* A failed check of the case or check named: said, and remembered. */
#define fail(name, fmt, ...) \
	(printf("FAIL %s: " fmt "\n", (name), ##__VA_ARGS__), failed_now = true)

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* The UDP checksum r asks for, over the datagram at udp (IP header at
 * ip), and its TLVs spoilt afterwards if r says so. */
static void build_udp_csum(const struct req *r, uint8_t *ip, uint8_t *udp)
{
	uint8_t *tlv_end = udp + 8 + BASE + r->tlv_len;

	stamp_ref_udp_csum_set(ip, udp);
	if (r->csum == CSUM_ZERO)
		pkt_put_be16(udp + 6, 0);
	if (r->csum == CSUM_BAD)
		pkt_put_be16(udp + 6,
			     pkt_get_be16(udp + 6) == 0xfffe ? 1 : pkt_get_be16(udp + 6) + 1);
	if (r->csum == CSUM_FFFF) {
		/* The last two bytes (at an even offset) make up the sum's
		 * complement: the sum is then all ones, the checksum 0. */
		pkt_put_be16(tlv_end - 2,
			     pkt_get_be16(udp + 6) == 0xffff ? 0 : pkt_get_be16(udp + 6));
		stamp_ref_udp_csum_set(ip, udp);
	}
	if (r->tlv_bad)
		tlv_end[-1] ^= 0x10;
}

/* The frame r describes; its length. T1 in the Timestamp field. */
static size_t build(const struct req *r, uint8_t *f)
{
	size_t l3 = 14, iph = r->family == 4 ? 20 : 40;
	int slen = r->stamp_len ? r->stamp_len : BASE + r->tlv_len;
	uint8_t *ip = f + l3, *udp = ip + iph, *s = udp + 8;
	struct timespec now;

	memset(f, 0, MAX_FRAME);
	memcpy(f, xf_our_mac, 6);
	memcpy(f + 6, peer_mac, 6);
	pkt_put_be16(f + 12, r->family == 4 ? 0x0800 : 0x86dd);
	/* RFC 8762 4.2.1, RFC 8972 3: seq, T1, error estimate, SSID, MBZ. */
	clock_gettime(CLOCK_REALTIME, &now);
	s[0] = 0x12, s[1] = 0x34, s[2] = 0x56, s[3] = 0x78;
	for (int i = 0; i < 4 && slen >= 12; i++) {
		s[4 + i] = (uint8_t)((now.tv_sec + NTP_UNIX) >> (24 - 8 * i));
		s[8 + i] = (uint8_t)((((uint64_t)now.tv_nsec << 32) / 1000000000) >> (24 - 8 * i));
	}
	if (slen >= 16) {
		pkt_put_be16(s + 12, 0x0102);
		pkt_put_be16(s + 14, r->ssid);
	}
	if (r->tlv_len)
		memcpy(s + BASE, r->tlv, (size_t)r->tlv_len);
	pkt_put_be16(udp, 50000);
	pkt_put_be16(udp + 2, r->dport ? r->dport : PORT);
	pkt_put_be16(udp + 4, (uint16_t)(8 + slen));
	if (r->family == 4) {
		ip[0] = 0x45;
		ip[1] = r->tc;
		pkt_put_be16(ip + 2, (uint16_t)(iph + 8 + slen + r->ip_len_delta));
		pkt_put_be16(ip + 4, 0x1c46);
		pkt_put_be16(ip + 6, r->frag ? r->frag : 0x4000);
		ip[9] = 17;
		memcpy(ip + 12, r->src ? r->src : peer4, 4);
		memcpy(ip + 16, r->dst ? r->dst : ours4, 4);
	} else {
		pkt_put_be16(ip, (uint16_t)(0x6000 | r->tc << 4));
		pkt_put_be16(ip + 4, (uint16_t)(8 + slen + r->ip_len_delta));
		ip[6] = 17;
		memcpy(ip + 8, r->src ? r->src : peer6, 16);
		memcpy(ip + 24, r->dst ? r->dst : ours6, 16);
	}
	ip[r->family == 4 ? 8 : 7] = r->ttl ? r->ttl : 57;
	build_udp_csum(r, ip, udp);
	pkt_put_be16(udp + 4, (uint16_t)(8 + slen + r->ulen_delta));
	if (r->family == 4) {
		stamp_ref_ip4_csum_set(ip);
		pkt_put_be16(ip + 10, (uint16_t)(pkt_get_be16(ip + 10) + r->ip_csum_delta));
	}
	return l3 + iph + 8 + slen;
}

/* Unix time in ns of an NTP 64-bit timestamp (era 0, RFC 5905 6). */
static int64_t ntp_ns(uint64_t ts)
{
	return (int64_t)((ts >> 32) - NTP_UNIX) * 1000000000 +
	       (int64_t)(((ts & 0xffffffff) * 1000000000) >> 32);
}

static int64_t realtime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/*
 * T1 (the request's) <= T2 <= T3 <= T4 (now) on the real time clock, to
 * the tolerance of the offset the test measured; T3 - T2, a duration on
 * one clock, no longer than the run took (T0: just before it), to 1 us of
 * rounding and slew. Not a fixed bound: an emulated guest, or a preempted
 * one, can take milliseconds over a single run.
 */
static void check_times(const char *name, const uint8_t *req, const uint8_t *got, int64_t t0,
			int64_t t4)
{
	bool v4 = pkt_get_be16(req + 12) == 0x0800;
	const uint8_t *s = got + 14 + (v4 ? 20 : 40) + 8;
	int64_t t1 = ntp_ns(get64(req + (s - got) + 4)), t2 = ntp_ns(get64(s + 16));
	int64_t t3 = ntp_ns(get64(s + 4)), slack = 1000000;

	if (!(t1 - slack <= t2 && t2 <= t3 && t3 <= t4 + slack))
		fail(name, "T1 %lld T2 %lld T3 %lld T4 %lld: not in order", (long long)t1,
		     (long long)t2, (long long)t3, (long long)t4);
	if (t3 - t2 > t4 - t0 + 1000)
		fail(name, "T3 - T2 = %lld ns, longer than the run's %lld ns", (long long)(t3 - t2),
		     (long long)(t4 - t0));
}

static int read_counters(__u64 out[XDPONG_R_MAX])
{
	return xf_read_counters(inst.stats_fd, xf_ncpus, out);
}

static void dump(const char *what, const uint8_t *p, size_t len)
{
	printf("  %s:", what);
	for (size_t i = 0; i < len; i++)
		printf("%s%02x", i % 16 ? " " : "\n    ", p[i]);
	printf("\n");
}

/* Refusals for whom a packet is, which the STAMP reference leaves to
 * the echo reference (stamp_reference.h). */
static bool address_reason(enum xdpong_reason r)
{
	return r == REASON(drop_martian_src) || r == REASON(pass_dst_not_local) ||
	       r == REASON(pass_dst_group);
}

/* What the reference reflector does with in (len bytes): the reply in
 * want, T2 and T3 from got; a refusal where the program refused. */
static void check_reference(const struct stamp_case *c, const uint8_t *in, size_t len,
			    const uint8_t *got, uint8_t *want, bool reply)
{
	const struct stamp_ref_config cfg = { .framing = PKT_FRAMING_ETH,
					      .port = PORT,
					      .errest = c->r.unsynced ? ERREST_UNSYNC : ERREST,
					      .max_tlvs = XDPONG_STAMP_MAX_TLVS };
	const char *why;
	enum stamp_ref_verdict v = stamp_reference_reply(&cfg, in, len, got, want, &why);

	if (reply && v != STAMP_REF_REPLY)
		fail(c->name, "reflected; the reference would not: %s", why);
	if (!reply && v == STAMP_REF_REPLY && !address_reason(c->reason))
		fail(c->name, "not reflected; the reference would");
	if (!reply)
		memcpy(want, in, len);
}

/* One case: the verdict, the one counter that moved, the bytes out. */
static void run_case(const struct stamp_case *c)
{
	uint8_t in[MAX_FRAME], out[MAX_FRAME], want[MAX_FRAME];
	__u64 before[XDPONG_R_MAX], after[XDPONG_R_MAX];
	int64_t t0, t4;
	size_t len = build(&c->r, in);
	bool reply = c->reason == REASON(reply_stamp4) || c->reason == REASON(reply_stamp6);
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in, .data_size_in = (__u32)len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);
	int err;

	failed_now = false;
	inst.skel->bss->stamp_errest = c->r.unsynced ? ERREST_UNSYNC : ERREST;
	t0 = realtime_ns();
	err = read_counters(before) || bpf_prog_test_run_opts(inst.prog_fd, &opts) ||
	      read_counters(after);
	t4 = realtime_ns();
	inst.skel->bss->stamp_errest = ERREST;
	if (err) {
		fail(c->name, "test run or counters: %s", strerror(errno));
		n_failed++;
		return;
	}
	if (opts.retval != (reply                              ? XDP_TX :
			    c->reason < XDPONG_R_FIRST_DROPPED ? XDP_PASS :
								 XDP_DROP))
		fail(c->name, "verdict %s", xf_action_name(opts.retval));
	for (int r = 0; r < XDPONG_R_MAX; r++)
		if (after[r] - before[r] != (r == (int)c->reason))
			fail(c->name, "%s moved by %llu", reason_names[r],
			     (unsigned long long)(after[r] - before[r]));
	if (opts.data_size_out != len)
		fail(c->name, "%u bytes out, %zu in", opts.data_size_out, len);
	check_reference(c, in, len, out, want, reply);
	if (reply)
		check_times(c->name, in, out, t0, t4);
	if (!failed_now && memcmp(out, want, len)) {
		fail(c->name, "the bytes out differ from the reference");
		dump("got", out, len);
		dump("want", want, len);
	}
	if (failed_now) {
		n_failed++;
		return;
	}
	n_passed++;
	if (say_all)
		printf("ok   %s\n", c->name);
}

/* Every STAMP reason (and reply_*) reached by some case. */
static void check_covered(const __u64 start[XDPONG_R_MAX])
{
	static const enum xdpong_reason stamp_reasons[] = {
		REASON(reply_stamp4),         REASON(reply_stamp6), REASON(pass_stamp_short),
		REASON(pass_stamp_many_tlvs), REASON(pass_udp_len), REASON(pass_udp6_no_csum),
		REASON(pass_udp_csum),
	};
	__u64 now[XDPONG_R_MAX];

	failed_now = false;
	if (read_counters(now))
		fail("every STAMP reason", "cannot read the counters");
	for (size_t i = 0; i < ARRAY_SIZE(stamp_reasons) && !failed_now; i++)
		if (now[stamp_reasons[i]] == start[stamp_reasons[i]])
			fail("every STAMP reason", "no case gives %s",
			     reason_names[stamp_reasons[i]]);
	failed_now ? n_failed++ : n_passed++;
}

/*
 * The loader's Error Estimate (loader/core/clock.c) against RFC 4656
 * 4.1.2: multiplier * 2^(scale - 32) seconds covers the error (at least 1
 * us, at most an hour) and exceeds it by less than one step of the scale
 * (2^(scale - 32) s), the multiplier is never 0, Z is 0 (NTP format) and
 * S is the synchronisation given.
 */
static void check_errest(void)
{
	static const long long errors_us[] = { 0, 1, 2, 999, 1000, 65535, 16000000, 1LL << 40 };
	const char *name = "Error Estimate encoding";

	failed_now = false;
	for (size_t i = 0; i < ARRAY_SIZE(errors_us); i++) {
		for (int synced = 0; synced < 2; synced++) {
			unsigned int e = stamp_errest(synced, errors_us[i]);
			unsigned int mult = e & 0xff, scale = (e >> 8) & 0x3f;
			/* What the word says and what it had to say, in 2^-32 s. */
			long double said = (long double)mult * powl(2, scale);
			long double err_us = errors_us[i] < 1            ? 1 :
					     errors_us[i] > 3600000000LL ? 3600000000LL :
									   errors_us[i];
			long double need = err_us * 4294967296.0L / 1e6L;

			if (!mult || (e & 0x4000) || !(e & 0x8000) != !synced || said < need ||
			    said >= need + powl(2, scale))
				fail(name, "%lld us, synced %d: word %#06x", errors_us[i], synced,
				     e);
		}
	}
	failed_now ? n_failed++ : n_passed++;
}

/*
 * bpf/ntp.h's split of T2 and T3 against the divisions it replaces
 * (RFC 5905 6: seconds, and floor(ns * 2^32 / 10^9)): the fraction at 0,
 * 999999999, around every ns that is an exact fraction (10^9 / 2^9 =
 * 5^9 apart: (ns << 32) / 10^9 whole there) and every 9973rd ns; the
 * split of T2 at whole seconds up to past 2^61 ns (where it divides),
 * of any ns, and of the last ones; T3 from T2's split on both sides of a
 * second, after 0, 1 ns, just under and
 * over a second, and a clock stepped back (a wrapped difference).
 */
static void check_ntp_split(void)
{
	static const uint64_t sub[] = { 0, 1, 2, 499999999, 500000000, 999999998, 999999999 };
	/* T3 - T2; the last two: a clock stepped back (a wrapped difference) */
	static const uint64_t after[] = {
		0,          1,          2,          999999998,  999999999,
		1000000000, 1000000001, 5000000007, UINT64_MAX, UINT64_MAX - 999999999
	};
	const char *name = "NTP split without division";

	failed_now = false;
	for (uint64_t ns = 0; ns < XP_NS_PER_S; ns += 9973)
		for (uint64_t e = 0; e < 3; e++) {
			uint64_t n[] = { ns + e, ns / 1953125 * 1953125 + e - 1, 999999999 - e };

			for (size_t i = 0; i < ARRAY_SIZE(n); i++) {
				uint64_t want = (n[i] << 32) / XP_NS_PER_S;

				if (n[i] < XP_NS_PER_S && ntp_frac(n[i]) != want)
					fail(name, "fraction of %llu ns: %u",
					     (unsigned long long)n[i], ntp_frac(n[i]));
			}
		}
	for (uint64_t k = 0, x = 1; k < 1000000; k++) {
		/* whole seconds up to past 2^61 ns with the ns above; any ns */
		uint64_t t[] = { (k * 2500 + k % 997) * XP_NS_PER_S + sub[k % 7],
				 (x = x * 6364136223846793005ULL + 1442695040888963407ULL) >> 2,
				 (1ULL << 61) - 1 + k % 3, k ? -k : 0 };

		for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
			struct ns_split got = ns_split(t[i]);

			if (got.sec != t[i] / XP_NS_PER_S || got.ns != t[i] % XP_NS_PER_S)
				fail(name, "split of %llu: %llu s %llu ns",
				     (unsigned long long)t[i], (unsigned long long)got.sec,
				     (unsigned long long)got.ns);
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(sub); i++)
		for (size_t j = 0; j < ARRAY_SIZE(after); j++) {
			uint64_t t = 1764331200ULL * XP_NS_PER_S + sub[i], later = t + after[j];
			struct ns_split got = ns_split_after(ns_split(t), t, later);

			if (got.sec != later / XP_NS_PER_S || got.ns != later % XP_NS_PER_S)
				fail(name, "%llu ns after %llu: %llu s %llu ns",
				     (unsigned long long)after[j], (unsigned long long)t,
				     (unsigned long long)got.sec, (unsigned long long)got.ns);
		}
	failed_now ? n_failed++ : n_passed++;
}

/* The program with STAMP on, on clock, offset to UTC as the test measures it. */
static int setup(enum xdpong_stamp_clock clock)
{
	struct timespec m0, r, m1;
	struct timex tx = { 0 };
	int err;

	err = xf_open(&inst, PKT_FRAMING_ETH, true, 0);
	if (err)
		return err;
	inst.skel->rodata->cfg_stamp_port = PORT;
	inst.skel->rodata->cfg_stamp_clock = clock;
	err = xdpong_bpf__load(inst.skel);
	if (!err)
		err = xf_fill(&inst);
	if (!err)
		err = xf_fill_own(&inst);
	if (err)
		return err;
	if (clock == XDPONG_STAMP_CLOCK_TAI) {
		if (adjtimex(&tx) < 0)
			return -errno;
		inst.skel->bss->stamp_clock_off_ns = -(int64_t)tx.tai * 1000000000;
	} else {
		clock_gettime(CLOCK_MONOTONIC, &m0);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &m1);
		inst.skel->bss->stamp_clock_off_ns =
			((int64_t)r.tv_sec - m0.tv_sec) * 1000000000 + r.tv_nsec - m0.tv_nsec -
			(((int64_t)m1.tv_sec - m0.tv_sec) * 1000000000 + m1.tv_nsec - m0.tv_nsec) /
				2;
	}
	inst.skel->bss->stamp_errest = ERREST;
	return 0;
}

int main(int argc, char **argv)
{
	static const enum xdpong_stamp_clock clocks[] = { XDPONG_STAMP_CLOCK_MONO,
							  XDPONG_STAMP_CLOCK_TAI };
	__u64 start[XDPONG_R_MAX];

	say_all = argc > 1 && !strcmp(argv[1], "-v");
	libbpf_set_print(xf_libbpf_warnings);
	if (xf_init())
		return 1;
	check_errest();
	check_ntp_split();
	for (size_t k = 0; k < ARRAY_SIZE(clocks); k++) {
		int err;

		if (clocks[k] == XDPONG_STAMP_CLOCK_TAI && !feature_have(FEAT_TAI)) {
			printf("skipped the TAI clock: %s\n", feature_why(FEAT_TAI));
			continue;
		}
		err = setup(clocks[k]);
		if (err || read_counters(start)) {
			printf("FAIL load with clock %d: %s\n", clocks[k], strerror(-err));
			n_failed++;
		} else {
			for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
				run_case(&cases[i]);
			check_covered(start);
		}
		xdpong_bpf__destroy(inst.skel);
		inst.skel = NULL;
	}
	printf("%u passed, %u failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}
