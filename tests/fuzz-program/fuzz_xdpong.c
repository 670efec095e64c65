// SPDX-License-Identifier: GPL-2.0
/*
 * Seeded fuzzing of the XDP program: random frames, mutated echo requests
 * and mutated STAMP test packets (UDP, TLVs and all; the program has
 * --stamp on port 862), both framings, through the real program with
 * bpf_prog_test_run_opts (repeat=1: repeats reuse the modified packet).
 *
 * Every XDP_TX output must equal pkt_reference_reply() (for UDP,
 * stamp_reference_reply(), T2 and T3 taken from the output) and its
 * checksums must verify; every other verdict must leave the frame
 * unchanged; echo requests the reference answers must be answered, other
 * frames the kernel should see must not be dropped; the counters must add
 * up to the frames pushed, and some STAMP packets must be reflected.
 *
 * Frame i depends only on (seed, i): `--seed S --index I` replays one.
 * Run as root: fuzz_xdpong [--frames N] [--seed S] [--jobs J] [--index I]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
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
#include "hex.h"
#include "packet.h"
#include "reference.h"
#include "stamp_reference.h"
#include "xdpong_fixture.h"

/* Past XF_MAX_LINEAR_FRAME a test run puts the rest in page fragments
 * (multi-buffer XDP); a little past a 9216-byte ICMP message, the longest
 * the program answers. */
#define MAX_FRAME 9600
#define MIN_FRAME 14 /* test runs refuse anything shorter (EINVAL) */
#define STAMP_PORT 862
#define STAMP_ERREST 0x8a17 /* the Error Estimate the programs are given */

/* One loaded program per framing, shared by the worker threads. */
static struct xf_instance insts[2]; /* indexed by enum pkt_framing */

static struct {
	uint64_t seed;
	uint64_t frames;
	unsigned int jobs;
	int64_t index; /* -1: all */
	unsigned int max_print;
	bool verbose;
} opt = { .frames = 100000, .index = -1, .max_print = 20 };

/* What one worker saw, per framing. */
struct tally {
	uint64_t pushed[2];
	uint64_t verdict[2][5]; /* by XDP action, per framing */
	uint64_t tx_family[2];  /* replies that were IPv4, IPv6 */
	uint64_t tx_stamp[2];   /* of the replies, STAMP's, per framing */
	uint64_t ref_class[3];  /* by enum pkt_ref_verdict */
	uint64_t failures;
};

struct worker {
	pthread_t thread;
	unsigned int id;
	struct tally t;
};

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int printed;

/* ---- Random numbers: splitmix64, seeded per frame ---- */
struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static uint32_t below(struct rng *r, uint32_t n)
{
	return (uint32_t)(((rng_next(r) >> 32) * n) >> 32);
}

static bool chance(struct rng *r, unsigned int percent)
{
	return below(r, 100) < percent;
}

static void fill_random(struct rng *r, uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint64_t v = rng_next(r);

		memcpy(p, &v, 8);
		p += 8;
		n -= 8;
	}
	if (n) {
		uint64_t v = rng_next(r);

		memcpy(p, &v, n);
	}
}

/* ---- Frame generation ---- */

static void pick_ip4_src(struct rng *r, uint8_t a[4])
{
	static const uint8_t special[][4] = {
		{ 0, 0, 0, 0 },   { 0, 9, 9, 9 },      { 127, 0, 0, 1 }, { 224, 0, 0, 1 },
		{ 239, 9, 9, 9 }, { 240, 0, 0, 1 },    { 254, 1, 2, 3 }, { 255, 255, 255, 255 },
		{ 192, 0, 2, 1 }, { 198, 51, 100, 9 }, { 10, 0, 0, 1 },  { 192, 0, 2, 2 },
	};

	if (chance(r, 20)) {
		memcpy(a, special[below(r, ARRAY_SIZE(special))], 4);
	} else if (chance(r, 50)) {
		uint8_t p[4] = { 203, 0, 113, (uint8_t)below(r, 256) };

		memcpy(a, p, 4);
	} else {
		fill_random(r, a, 4);
	}
}

static void pick_ip4_dst(struct rng *r, uint8_t a[4])
{
	static const uint8_t special[][4] = {
		{ 255, 255, 255, 255 }, { 224, 0, 0, 1 },    { 239, 1, 2, 3 },
		{ 192, 0, 2, 2 },       { 198, 51, 101, 0 }, { 198, 51, 99, 255 },
		{ 0, 0, 0, 0 },         { 127, 0, 0, 1 },    { 192, 0, 2, 0 },
	};
	unsigned int k = below(r, 100);

	if (k < 40) {
		uint8_t p[4] = { 192, 0, 2, 1 };

		memcpy(a, p, 4);
	} else if (k < 70) {
		uint8_t p[4] = { 198, 51, 100, (uint8_t)below(r, 256) };

		memcpy(a, p, 4);
	} else if (k < 85) {
		memcpy(a, special[below(r, ARRAY_SIZE(special))], 4);
	} else {
		fill_random(r, a, 4);
	}
}

static void pick_ip6_src(struct rng *r, uint8_t a[16])
{
	static const uint8_t special[][16] = {
		{ 0 },
		{ [15] = 1 },
		{ 0xff, 0x02, [15] = 1 },
		{ 0xff, 0x0e, [15] = 9 },
		{ 0xfe, 0x80, [15] = 2 },
		{ 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
		{ [10] = 0xff, 0xff, 192, 0, 2, 9 },
		{ 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 5 },
	};

	memset(a, 0, 16);
	if (chance(r, 15)) {
		memcpy(a, special[below(r, ARRAY_SIZE(special))], 16);
	} else if (chance(r, 60)) {
		a[0] = 0x20;
		a[1] = 0x01;
		a[2] = 0x0d;
		a[3] = 0xb8;
		a[4] = 0xff;
		a[5] = (uint8_t)below(r, 4);
		fill_random(r, a + 8, 8);
	} else {
		fill_random(r, a, 16);
	}
}

static void pick_ip6_dst(struct rng *r, uint8_t a[16])
{
	static const uint8_t special[][16] = {
		{ 0xff, 0x02, [15] = 1 },
		{ 0xff, 0x02, [11] = 1, 0xff, 0, 0, 1 },
		{ 0xff, 0x05, [15] = 2 },
		{ 0x20, 0x01, 0x0d, 0xb8, [15] = 2 },
		{ 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 1, [15] = 1 },
		{ [15] = 1 },
		{ 0 },
	};
	unsigned int k = below(r, 100);

	memset(a, 0, 16);
	if (k < 40) {
		a[0] = 0x20;
		a[1] = 0x01;
		a[2] = 0x0d;
		a[3] = 0xb8;
		a[15] = 1;
	} else if (k < 70) {
		a[0] = 0x20;
		a[1] = 0x01;
		a[2] = 0x0d;
		a[3] = 0xb8;
		a[5] = 1;
		fill_random(r, a + 8, 8);
	} else if (k < 85) {
		memcpy(a, special[below(r, ARRAY_SIZE(special))], 16);
	} else {
		fill_random(r, a, 16);
	}
}

static void pick_mac_dst(struct rng *r, uint8_t m[6])
{
	static const uint8_t special[][6] = {
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 },
		{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 }, { 0x02, 0x00, 0x00, 0x00, 0x00, 0x00 },
		{ 0x03, 0x00, 0x00, 0x00, 0x00, 0x01 },
	};
	unsigned int k = below(r, 100);

	if (k < 88)
		memcpy(m, xf_our_mac, 6);
	else if (k < 95)
		memcpy(m, special[below(r, ARRAY_SIZE(special))], 6);
	else
		fill_random(r, m, 6);
}

/* A plausible echo request with a few fields off now and then. */
static size_t gen_request(struct rng *r, enum pkt_framing framing, uint8_t *buf, uint8_t *scratch)
{
	static const uint8_t types4[] = { 0, 3, 5, 11, 13, 14, 8, 128 };
	static const uint8_t types6[] = { 129, 133, 134, 135, 136, 1, 2, 3, 4, 8 };
	static const uint8_t ext6[] = { 0, 43, 44, 60, 50, 51, 135, 59, 6, 17, 1 };
	uint8_t opts[40];
	struct pkt_spec s;
	size_t hdrs, max_payload, len;
	unsigned int k;

	pkt_spec_init(&s, chance(r, 50) ? 4 : 6, framing);
	pick_mac_dst(r, s.eth_dst);
	fill_random(r, s.eth_src, 6);
	if (chance(r, 95))
		s.eth_src[0] &= 0xfe; /* unicast */
	if (chance(r, 30))
		s.tos = (uint8_t)below(r, 256);
	s.ttl = (uint8_t)below(r, 256);

	if (s.family == 4) {
		pick_ip4_src(r, s.ip4_src);
		pick_ip4_dst(r, s.ip4_dst);
		s.ip_id = (uint16_t)below(r, 65536);
		k = below(r, 100);
		s.frag = k < 50 ? 0x4000 : k < 85 ? 0 : k < 90 ? 0x2000 : (uint16_t)below(r, 65536);
		if (chance(r, 5)) {
			s.opts_len = 4 * (1 + below(r, 10));
			fill_random(r, opts, s.opts_len);
			s.opts = opts;
		}
		if (chance(r, 8))
			s.proto = (uint8_t)below(r, 256);
		if (chance(r, 15))
			s.icmp_type = chance(r, 80) ? types4[below(r, ARRAY_SIZE(types4))] :
						      (uint8_t)below(r, 256);
	} else {
		pick_ip6_src(r, s.ip6_src);
		pick_ip6_dst(r, s.ip6_dst);
		s.flow = (uint32_t)rng_next(r) & 0xfffff;
		if (chance(r, 6)) {
			s.proto = ext6[below(r, ARRAY_SIZE(ext6))];
			s.opts_len = 8 * (1 + below(r, 3));
			fill_random(r, opts, s.opts_len);
			opts[0] = chance(r, 80) ? PKT_PROTO_ICMPV6 : opts[0];
			opts[1] = (uint8_t)(s.opts_len / 8 - 1);
			s.opts = opts;
		} else if (chance(r, 3)) {
			s.proto = (uint8_t)below(r, 256);
		}
		if (chance(r, 15))
			s.icmp_type = chance(r, 80) ? types6[below(r, ARRAY_SIZE(types6))] :
						      (uint8_t)below(r, 256);
	}
	if (chance(r, 10))
		s.icmp_code = (uint8_t)below(r, 256);
	if (chance(r, 85)) {
		s.icmp_id = (uint16_t)below(r, 65536);
		s.icmp_seq = (uint16_t)below(r, 65536);
	} else {
		s.icmp_id = 0;
		s.icmp_seq = 0;
	}

	hdrs = (framing == PKT_FRAMING_ETH ? PKT_ETH_HLEN : 0) +
	       (s.family == 4 ? PKT_IP4_HLEN : PKT_IP6_HLEN) + s.opts_len + PKT_ICMP_HLEN;
	max_payload = MAX_FRAME - hdrs;
	k = below(r, 100);
	/* 5 in 100 are likely multi-buffer: longer than the linear part. */
	s.payload_len = k < 25 ? below(r, 9) :
			k < 60 ? 9 + below(r, 56) :
			k < 85 ? 65 + below(r, 1436) :
			k < 95 ? below(r, XF_MAX_LINEAR_FRAME - (uint32_t)hdrs + 1) :
				 below(r, (uint32_t)max_payload + 1);
	k = below(r, 100);
	if (k < 10) {
		s.payload_fill = 0;
	} else if (k < 20) {
		s.payload_fill = PKT_FILL_COUNT;
	} else {
		fill_random(r, scratch, s.payload_len);
		s.payload = scratch;
	}

	k = below(r, 100);
	if (k < 15)
		s.pad_to = PKT_ETH_MIN_FRAME;
	else if (k < 25)
		s.pad_len = 1 + below(r, 32);
	s.pad_byte = (uint8_t)below(r, 256);
	if (s.pad_len > max_payload - s.payload_len)
		s.pad_len = 0;

	if (chance(r, 3))
		s.ip_csum_delta = (int)below(r, 65535) + 1;
	if (chance(r, 3))
		s.icmp_csum_delta = (int)below(r, 65535) + 1;
	k = below(r, 100);
	if (k < 3)
		s.len_delta = chance(r, 50) ? 1 : -1;
	else if (k < 5)
		s.len_delta = (int)below(r, 61) - 30;
	if (chance(r, 2))
		s.ihl = (uint8_t)(below(r, 16) | PKT_NIBBLE_0);
	if (chance(r, 2))
		s.version = (uint8_t)(below(r, 16) | PKT_NIBBLE_0);

	len = pkt_build(&s, buf, MAX_FRAME);
	return len ? len : MIN_FRAME;
}

/* RFC 8972 TLVs, mostly well formed: n of them at t, at most cap bytes;
 * their length. */
static size_t gen_tlvs(struct rng *r, uint8_t *t, size_t cap)
{
	static const uint8_t types[] = { 1, 1, 3, 3, 4, 4, 2, 5, 6, 7, 8, 0, 200 };
	unsigned int n = below(r, 12);
	size_t at = 0;

	for (unsigned int i = 0; i < n && at + 4 <= cap; i++) {
		uint8_t type = types[below(r, ARRAY_SIZE(types))];
		size_t vlen = type == 3 || type == 4 ? 4 : below(r, 24);

		if (chance(r, 10))
			vlen = below(r, 40);
		if (at + 4 + vlen > cap)
			vlen = cap - at - 4;
		t[at] = chance(r, 90) ? 0x80 : (uint8_t)below(r, 256);
		t[at + 1] = type;
		fill_random(r, t + at + 4, vlen);
		if (chance(r, 5)) /* runs past the packet */
			vlen += 1 + below(r, 8);
		t[at + 2] = (uint8_t)(vlen >> 8);
		t[at + 3] = (uint8_t)vlen;
		at += 4 + vlen;
	}
	if (at > cap)
		at = cap;
	if (chance(r, 20)) { /* RFC 8762's zero padding after them */
		size_t pad = below(r, 24);

		pad = at + pad > cap ? cap - at : pad;
		memset(t + at, 0, pad);
		at += pad;
	}
	return at;
}

/* The UDP checksum of the frame's datagram set, where the IP header says
 * UDP and the datagram is in the frame; anything else left alone. */
static void fix_udp_csum(uint8_t *f, size_t len, enum pkt_framing framing)
{
	size_t l3 = framing == PKT_FRAMING_ETH ? PKT_ETH_HLEN : 0, iph, ulen;
	uint8_t *ip = f + l3;

	if (len < l3 + PKT_IP6_HLEN + 8)
		return;
	iph = ip[0] >> 4 == 4 ? (size_t)(ip[0] & 15) * 4 : PKT_IP6_HLEN;
	if (ip[iph == PKT_IP6_HLEN ? 6 : 9] != 17 || iph < PKT_IP4_HLEN || len < l3 + iph + 8)
		return;
	ulen = pkt_get_be16(ip + iph + 4);
	if (ulen >= 8 && l3 + iph + ulen <= len && (iph == PKT_IP4_HLEN || iph == PKT_IP6_HLEN))
		stamp_ref_udp_csum_set(ip, ip + iph);
}

/* A STAMP test packet (RFC 8762 4.2.1, RFC 8972 TLVs) with a few fields
 * off now and then, to our addresses mostly. */
static size_t gen_stamp(struct rng *r, enum pkt_framing framing, uint8_t *f)
{
	size_t l3 = framing == PKT_FRAMING_ETH ? PKT_ETH_HLEN : 0, iph, slen;
	bool v4 = chance(r, 50);
	uint8_t *ip = f + l3, *udp, *stamp;
	unsigned int k = below(r, 100);

	iph = v4 ? PKT_IP4_HLEN : PKT_IP6_HLEN;
	udp = ip + iph;
	stamp = udp + 8;
	memset(f, 0, l3 + iph + 8);
	if (framing == PKT_FRAMING_ETH) {
		pick_mac_dst(r, f);
		fill_random(r, f + 6, 6);
		f[6] &= 0xfe;
		pkt_put_be16(f + 12, v4 ? PKT_ETH_P_IP : PKT_ETH_P_IPV6);
	}
	slen = k < 10 ? below(r, STAMP_REF_BASE) : STAMP_REF_BASE;
	fill_random(r, stamp, slen);
	if (slen == STAMP_REF_BASE && k >= 20)
		slen += gen_tlvs(r, stamp + slen, (size_t)(k < 97 ? 200 : 1500));
	pkt_put_be16(udp, (uint16_t)below(r, 65536));
	pkt_put_be16(udp + 2, chance(r, 90) ? STAMP_PORT : (uint16_t)below(r, 65536));
	pkt_put_be16(udp + 4, (uint16_t)(8 + slen));
	if (v4) {
		ip[0] = 0x45;
		ip[1] = (uint8_t)below(r, 256);
		pkt_put_be16(ip + 2, (uint16_t)(iph + 8 + slen));
		pkt_put_be16(ip + 6, chance(r, 90) ? 0x4000 : (uint16_t)below(r, 65536));
		ip[8] = (uint8_t)below(r, 256);
		ip[9] = 17;
		pick_ip4_src(r, ip + 12);
		pick_ip4_dst(r, ip + 16);
	} else {
		pkt_put_be16(ip, (uint16_t)(0x6000 | below(r, 4096)));
		pkt_put_be16(ip + 4, (uint16_t)(8 + slen));
		ip[6] = 17;
		ip[7] = (uint8_t)below(r, 256);
		pick_ip6_src(r, ip + 8);
		pick_ip6_dst(r, ip + 24);
	}
	stamp_ref_udp_csum_set(ip, udp);
	if (v4 && chance(r, 10))
		pkt_put_be16(udp + 6, 0); /* none */
	else if (chance(r, 3))
		udp[6 + below(r, 2)] ^= (uint8_t)(1 + below(r, 255));
	if (v4)
		stamp_ref_ip4_csum_set(ip);
	return l3 + iph + 8 + slen;
}

/* Offset of the IP header, -1 if the frame is too short for one. */
static long l3_offset(size_t len, enum pkt_framing framing)
{
	if (framing == PKT_FRAMING_IP)
		return 0;
	if (len < PKT_ETH_HLEN)
		return -1;
	return PKT_ETH_HLEN;
}

/* One mutation of the kinds a broken or hostile sender produces. */
static size_t mutate(struct rng *r, uint8_t *f, size_t len, enum pkt_framing framing)
{
	long l3 = l3_offset(len, framing);
	unsigned int k = below(r, 100);
	size_t pos;

	if (k < 30) { /* bit flip, mostly in the headers */
		pos = chance(r, 70) && len > 80 ? below(r, 80) : below(r, (uint32_t)len);
		f[pos] ^= (uint8_t)(1u << below(r, 8));
	} else if (k < 40) { /* random byte */
		f[below(r, (uint32_t)len)] = (uint8_t)below(r, 256);
	} else if (k < 55) { /* truncation at any length */
		len = MIN_FRAME + below(r, (uint32_t)(len - MIN_FRAME + 1));
	} else if (k < 70 && l3 >= 0 && (size_t)l3 + 6 <= len) { /* length off by one */
		uint8_t *ip = f + l3;
		size_t at = (ip[0] >> 4) == 6 ? 4 : 2;
		uint16_t v = (uint16_t)(ip[at] << 8 | ip[at + 1]);

		v = (uint16_t)(v + (chance(r, 50) ? 1 : -1));
		ip[at] = v >> 8;
		ip[at + 1] = v & 0xff;
	} else if (k < 78 && l3 >= 0 && (size_t)l3 < len) { /* IHL nibble */
		f[l3] = (uint8_t)((f[l3] & 0xf0) | below(r, 16));
	} else if (k < 86 && l3 >= 0 && (size_t)l3 < len) { /* version nibble */
		f[l3] = (uint8_t)((f[l3] & 0x0f) | below(r, 16) << 4);
	} else if (k < 94) { /* padding appended */
		size_t add = 1 + below(r, 64);

		if (len + add > MAX_FRAME)
			add = MAX_FRAME - len;
		fill_random(r, f + len, add);
		len += add;
	} else if (framing == PKT_FRAMING_ETH && len >= PKT_ETH_HLEN) { /* ethertype */
		uint16_t et = chance(r, 50) ? (f[12] == 0x08 ? 0x86dd : 0x0800) :
					      (uint16_t)below(r, 65536);

		f[12] = et >> 8;
		f[13] = et & 0xff;
	}
	return len;
}

/* Random bytes, sometimes dressed as IP to our MAC so they go deeper. */
static size_t gen_random(struct rng *r, enum pkt_framing framing, uint8_t *f)
{
	size_t len = chance(r, 80) ? MIN_FRAME + below(r, 200) :
				     MIN_FRAME + below(r, MAX_FRAME - MIN_FRAME + 1);
	long l3;

	fill_random(r, f, len);
	l3 = framing == PKT_FRAMING_ETH ? PKT_ETH_HLEN : 0;
	if (chance(r, 60)) {
		bool v6 = chance(r, 50);

		if (framing == PKT_FRAMING_ETH) {
			memcpy(f, xf_our_mac, 6);
			f[6] &= 0xfe;
			f[12] = v6 ? 0x86 : 0x08;
			f[13] = v6 ? 0xdd : 0x00;
		}
		if ((size_t)l3 < len)
			f[l3] = v6 ? (uint8_t)(0x60 | (f[l3] & 15)) : 0x45;
		if (chance(r, 50))
			pkt_fix_csums(f, len, framing);
	}
	return len;
}

/* Frame index i of the run: a function of (seed, i) only. */
static size_t gen_frame(uint64_t index, uint8_t *f, uint8_t *scratch, enum pkt_framing *framing)
{
	struct rng r = { .s = opt.seed ^ (index * 0xd1342543de82ef95ULL) };
	size_t len;

	rng_next(&r);
	*framing = chance(&r, 75) ? PKT_FRAMING_ETH : PKT_FRAMING_IP;
	if (chance(&r, 8))
		return gen_random(&r, *framing, f);
	if (chance(&r, 25))
		len = gen_stamp(&r, *framing, f);
	else
		len = gen_request(&r, *framing, f, scratch);
	if (chance(&r, 45)) {
		unsigned int n = 1 + below(&r, 4);

		for (unsigned int m = 0; m < n; m++)
			len = mutate(&r, f, len, *framing);
		if (chance(&r, 50)) {
			pkt_fix_csums(f, len, *framing);
			fix_udp_csum(f, len, *framing);
		}
	}
	return len;
}

/* ---- Checking ---- */

static void report(uint64_t index, enum pkt_framing framing, const uint8_t *in, size_t len,
		   const uint8_t *out, size_t out_len, const uint8_t *want, size_t want_len,
		   const char *fmt, ...) __attribute__((format(printf, 9, 10)));

static void report(uint64_t index, enum pkt_framing framing, const uint8_t *in, size_t len,
		   const uint8_t *out, size_t out_len, const uint8_t *want, size_t want_len,
		   const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&print_lock);
	if (printed++ < opt.max_print || opt.index >= 0) {
		printf("FAIL seed %" PRIu64 " index %" PRIu64 " (%s, %zu bytes): ", opt.seed, index,
		       framing == PKT_FRAMING_ETH ? "eth" : "tun", len);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n  frame: ");
		pkt_hexline(stdout, in, len);
		if (out && want)
			pkt_hexdiff(stdout, "  ", out, out_len, want, want_len);
		printf("  replay: fuzz_xdpong --seed %" PRIu64 " --index %" PRIu64 "\n", opt.seed,
		       index);
	}
	pthread_mutex_unlock(&print_lock);
}

static const char *const class_names[] = { "reply", "kernel", "invalid" };

/* An IPv4 or IPv6 header with UDP next, first thing in the frame. */
static bool is_udp(const uint8_t *f, size_t len, enum pkt_framing framing)
{
	size_t l3 = framing == PKT_FRAMING_ETH ? PKT_ETH_HLEN : 0;

	if (len < l3 + 1 || len < l3 + (f[l3] >> 4 == 4 ? PKT_IP4_HLEN : PKT_IP6_HLEN))
		return false;
	return f[l3] >> 4 == 4 ? f[l3 + 9] == 17 : f[l3 + 6] == 17;
}

/* A STAMP reply: the reference's, T2 and T3 taken from it, with its IP
 * and UDP checksums right. */
static void check_stamp_reply(struct tally *t, uint64_t index, enum pkt_framing framing,
			      const uint8_t *in, size_t len, const uint8_t *out, size_t out_len,
			      uint8_t *ref)
{
	const struct stamp_ref_config cfg = { .framing = framing,
					      .port = STAMP_PORT,
					      .errest = STAMP_ERREST,
					      .max_tlvs = XDPONG_STAMP_MAX_TLVS };
	size_t l3 = framing == PKT_FRAMING_ETH ? PKT_ETH_HLEN : 0;
	const uint8_t *ip = out + l3;
	bool v4 = ip[0] >> 4 == 4;
	const char *why;

	if (out_len != len ||
	    stamp_reference_reply(&cfg, in, len, out, ref, &why) != STAMP_REF_REPLY) {
		t->failures++;
		report(index, framing, in, len, out, out_len, in, len,
		       "XDP_TX of UDP, but the STAMP reference would not reflect it (%s)",
		       out_len != len ? "length" : why);
		return;
	}
	t->tx_family[!v4]++;
	t->tx_stamp[framing]++;
	if (memcmp(out, ref, len)) {
		t->failures++;
		report(index, framing, in, len, out, out_len, ref, len,
		       "STAMP reply differs from the reference reply");
	} else if ((v4 && pkt_csum(ip, PKT_IP4_HLEN)) ||
		   ((!v4 || pkt_get_be16(ip + PKT_IP4_HLEN + 6)) &&
		    stamp_ref_udp_sum(ip, ip + (v4 ? PKT_IP4_HLEN : PKT_IP6_HLEN)) != 0xffff)) {
		t->failures++;
		report(index, framing, in, len, NULL, 0, NULL, 0, "STAMP reply checksums");
	}
}

static void run_one(struct tally *t, uint64_t index, uint8_t *in, uint8_t *out, uint8_t *ref,
		    uint8_t *scratch)
{
	enum pkt_framing framing;
	struct xf_instance *it;
	enum pkt_ref_verdict rv;
	const char *why = "", *bad;
	size_t len;
	int err;

	len = gen_frame(index, in, scratch, &framing);
	it = &insts[framing];
	rv = pkt_reference_reply(&it->ref, in, len, ref, &why);
	t->ref_class[rv]++;

	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = (__u32)len,
		    .data_out = out, .data_size_out = MAX_FRAME * 2, .repeat = 1);
	err = bpf_prog_test_run_opts(it->prog_fd, &o);
	if (err) {
		t->failures++;
		report(index, framing, in, len, NULL, 0, NULL, 0, "bpf_prog_test_run_opts: %s",
		       strerror(-err));
		return;
	}
	t->pushed[framing]++;
	t->verdict[framing][o.retval < 5 ? o.retval : 0]++;
	if (opt.verbose) {
		printf("index %" PRIu64 " (%s, %zu bytes): %s, reference %s (%s)\n  frame: ", index,
		       framing == PKT_FRAMING_ETH ? "eth" : "tun", len, xf_action_name(o.retval),
		       class_names[rv], why);
		pkt_hexline(stdout, in, len);
	}

	if (o.retval == XDP_TX && is_udp(in, len, framing)) {
		check_stamp_reply(t, index, framing, in, len, out, o.data_size_out, ref);
		return;
	}
	if (o.retval == XDP_TX) {
		if (rv != PKT_REF_REPLY) {
			t->failures++;
			report(index, framing, in, len, out, o.data_size_out, in, len,
			       "XDP_TX, but the reference would not reply (%s)", why);
			return;
		}
		t->tx_family[((framing == PKT_FRAMING_ETH ? in[12] == 0x86 : in[0] >> 4 == 6))]++;
		if (o.data_size_out != len || memcmp(out, ref, len)) {
			t->failures++;
			report(index, framing, in, len, out, o.data_size_out, ref, len,
			       "reply differs from the reference reply");
			return;
		}
		bad = pkt_verify_csums(out, len, framing);
		if (bad) {
			t->failures++;
			report(index, framing, in, len, NULL, 0, NULL, 0, "reply checksums: %s",
			       bad);
		}
		return;
	}
	if (o.retval != XDP_PASS && o.retval != XDP_DROP) {
		t->failures++;
		report(index, framing, in, len, NULL, 0, NULL, 0, "verdict %s",
		       xf_action_name(o.retval));
	} else if (rv == PKT_REF_REPLY) {
		t->failures++;
		report(index, framing, in, len, NULL, 0, NULL, 0,
		       "%s for an echo request the reference answers", xf_action_name(o.retval));
	} else if (rv == PKT_REF_KERNEL && o.retval == XDP_DROP && !is_udp(in, len, framing)) {
		/* (UDP: STAMP's checks drop what echo's would, the
		 * addresses and the UDP length, which the echo reference
		 * does not judge for UDP.) */
		t->failures++;
		report(index, framing, in, len, NULL, 0, NULL, 0,
		       "XDP_DROP for a frame the kernel should see (%s)", why);
	}
	if (o.data_size_out != len || memcmp(out, in, len)) {
		t->failures++;
		report(index, framing, in, len, out, o.data_size_out, in, len,
		       "%s changed the frame", xf_action_name(o.retval));
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint8_t *in = malloc(MAX_FRAME * 2), *out = malloc(MAX_FRAME * 2);
	uint8_t *ref = malloc(MAX_FRAME * 2), *scratch = malloc(MAX_FRAME);

	if (!in || !out || !ref || !scratch) {
		w->t.failures++;
		fprintf(stderr, "out of memory\n");
	} else {
		for (uint64_t i = w->id; i < opt.frames; i += opt.jobs)
			run_one(&w->t, i, in, out, ref, scratch);
	}
	free(in);
	free(out);
	free(ref);
	free(scratch);
	return NULL;
}

/* ---- Setup and the counter check ---- */

static int setup_instance(enum pkt_framing framing)
{
	struct xf_instance *in = &insts[framing];
	int err;

	err = xf_open(in, framing, framing == PKT_FRAMING_ETH, 1);
	if (err)
		return err;
	in->skel->rodata->cfg_stamp_port = STAMP_PORT;
	err = xdpong_bpf__load(in->skel);
	if (err) {
		xdpong_bpf__destroy(in->skel);
		in->skel = NULL;
		return err;
	}
	/* Ethernet finds our addresses in the exact lists first, TUN in the
	 * tries alone: both ways are fuzzed. */
	in->skel->bss->stamp_errest = STAMP_ERREST;
	err = xf_fill(in);
	if (!err && framing == PKT_FRAMING_ETH)
		err = xf_fill_own(in);
	return err;
}

/*
 * received = replied + passed + dropped, per outcome equal to the
 * verdicts seen, replies per family, one latency sample per echo reply
 * (STAMP replies carry their own T3 - T2), STAMP replies counted as such.
 */
static uint64_t check_counters(const struct tally *t)
{
	uint64_t bad = 0;

	for (int f = 0; f < 2; f++) {
		const char *fname = f == PKT_FRAMING_ETH ? "eth" : "tun";
		__u64 c[XDPONG_R_MAX], by_outcome[3] = { 0 }, received = 0, lat;
		struct xdpong_latency l;

		if (xf_read_counters(insts[f].stats_fd, xf_ncpus, c) ||
		    xf_read_latency(insts[f].lat_fd, xf_ncpus, &l)) {
			printf("FAIL %s: cannot read the maps\n", fname);
			return 1;
		}
		lat = l.count;
		for (int r = 0; r < XDPONG_R_MAX; r++) {
			received += c[r];
			by_outcome[reason_outcomes[r]] += c[r];
		}
		printf("%s counters: received %llu = replied %llu + passed %llu + dropped %llu\n",
		       fname, (unsigned long long)received,
		       (unsigned long long)by_outcome[XDPONG_REPLIED],
		       (unsigned long long)by_outcome[XDPONG_PASSED],
		       (unsigned long long)by_outcome[XDPONG_DROPPED]);
		for (int r = 0; r < XDPONG_R_MAX; r++)
			if (c[r])
				printf("  %-20s %llu\n", reason_names[r], (unsigned long long)c[r]);
		if (received != t->pushed[f]) {
			printf("FAIL %s: counters received %llu, frames pushed %" PRIu64 "\n",
			       fname, (unsigned long long)received, t->pushed[f]);
			bad++;
		}
		if (by_outcome[XDPONG_REPLIED] != t->verdict[f][XDP_TX] ||
		    by_outcome[XDPONG_PASSED] != t->verdict[f][XDP_PASS] ||
		    by_outcome[XDPONG_DROPPED] != t->verdict[f][XDP_DROP]) {
			printf("FAIL %s: counters by outcome %llu/%llu/%llu, "
			       "verdicts TX/PASS/DROP %" PRIu64 "/%" PRIu64 "/%" PRIu64 "\n",
			       fname, (unsigned long long)by_outcome[XDPONG_REPLIED],
			       (unsigned long long)by_outcome[XDPONG_PASSED],
			       (unsigned long long)by_outcome[XDPONG_DROPPED],
			       t->verdict[f][XDP_TX], t->verdict[f][XDP_PASS],
			       t->verdict[f][XDP_DROP]);
			bad++;
		}
		if (lat != t->verdict[f][XDP_TX] - t->tx_stamp[f]) {
			printf("FAIL %s: latency samples %llu, echo replies %" PRIu64 "\n", fname,
			       (unsigned long long)lat, t->verdict[f][XDP_TX] - t->tx_stamp[f]);
			bad++;
		}
		if (c[REASON(reply_stamp4)] + c[REASON(reply_stamp6)] != t->tx_stamp[f]) {
			printf("FAIL %s: reply_stamp4 + reply_stamp6 %llu, STAMP replies %" PRIu64
			       "\n",
			       fname,
			       (unsigned long long)(c[REASON(reply_stamp4)] +
						    c[REASON(reply_stamp6)]),
			       t->tx_stamp[f]);
			bad++;
		}
	}
	return bad;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--frames N] [--seed S] [--jobs J] [--index I] [--max-print N] [-v]\n"
		"  --frames N     frames to push (default 100000)\n"
		"  --seed S       seed (default: from the clock; printed)\n"
		"  --jobs J       threads (default: online CPUs)\n"
		"  --index I      replay only frame I of the seed, verbosely\n"
		"  --max-print N  failures printed in full (default 20)\n",
		prog);
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && *s && !*end;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = { { "frames", required_argument, NULL, 'n' },
						  { "seed", required_argument, NULL, 's' },
						  { "jobs", required_argument, NULL, 'j' },
						  { "index", required_argument, NULL, 'i' },
						  { "max-print", required_argument, NULL, 'm' },
						  { "verbose", no_argument, NULL, 'v' },
						  { "help", no_argument, NULL, 'h' },
						  {} };
	struct timespec t0, t1;
	struct worker *workers;
	struct tally total = { 0 };
	bool seeded = false;
	uint64_t v, bad;
	double secs;
	long cpus;
	int c, err;

	while ((c = getopt_long(argc, argv, "n:s:j:i:m:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!parse_u64(optarg, &opt.frames))
				goto bad_arg;
			break;
		case 's':
			if (!parse_u64(optarg, &opt.seed))
				goto bad_arg;
			seeded = true;
			break;
		case 'j':
			if (!parse_u64(optarg, &v) || !v || v > 64)
				goto bad_arg;
			opt.jobs = (unsigned int)v;
			break;
		case 'i':
			if (!parse_u64(optarg, &v) || v > INT64_MAX)
				goto bad_arg;
			opt.index = (int64_t)v;
			break;
		case 'm':
			if (!parse_u64(optarg, &v) || v > UINT32_MAX)
				goto bad_arg;
			opt.max_print = (unsigned int)v;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'h':
			usage(argv[0]);
			return 0;
		default:
			goto bad_arg;
		}
	}
	if (optind != argc) {
bad_arg:
		usage(argv[0]);
		return 2;
	}
	if (!seeded) {
		clock_gettime(CLOCK_REALTIME, &t0);
		opt.seed = (uint64_t)t0.tv_sec * 1000003u ^ (uint64_t)t0.tv_nsec ^
			   (uint64_t)getpid() << 32;
	}
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (!opt.jobs)
		opt.jobs = cpus > 0 ? (unsigned int)cpus : 1;
	if (opt.index >= 0) {
		opt.verbose = true;
		opt.jobs = 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(xf_libbpf_warnings);
	if (xf_init())
		return 1;
	for (int f = 0; f < 2; f++) {
		err = setup_instance(f);
		if (err) {
			fprintf(stderr, "cannot load the %s program: %s\n",
				f == PKT_FRAMING_ETH ? "eth" : "tun", strerror(-err));
			return 1;
		}
	}

	printf("seed %" PRIu64 "\n", opt.seed);
	if (opt.index >= 0) {
		uint8_t *in = malloc(MAX_FRAME * 2), *out = malloc(MAX_FRAME * 2);
		uint8_t *ref = malloc(MAX_FRAME * 2), *scratch = malloc(MAX_FRAME);

		if (!in || !out || !ref || !scratch)
			return 1;
		run_one(&total, (uint64_t)opt.index, in, out, ref, scratch);
		printf("%" PRIu64 " failures\n", total.failures);
		return total.failures ? 1 : 0;
	}

	printf("frames %" PRIu64 ", jobs %u\n", opt.frames, opt.jobs);
	workers = calloc(opt.jobs, sizeof(*workers));
	if (!workers)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int j = 0; j < opt.jobs; j++) {
		workers[j].id = j;
		if (pthread_create(&workers[j].thread, NULL, worker_main, &workers[j])) {
			fprintf(stderr, "cannot start a thread\n");
			return 1;
		}
	}
	for (unsigned int j = 0; j < opt.jobs; j++) {
		const struct tally *t = &workers[j].t;

		pthread_join(workers[j].thread, NULL);
		for (int f = 0; f < 2; f++) {
			total.pushed[f] += t->pushed[f];
			total.tx_family[f] += t->tx_family[f];
			total.tx_stamp[f] += t->tx_stamp[f];
			for (int a = 0; a < 5; a++)
				total.verdict[f][a] += t->verdict[f][a];
		}
		for (int k = 0; k < 3; k++)
			total.ref_class[k] += t->ref_class[k];
		total.failures += t->failures;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	printf("%" PRIu64 " frames in %.2f s: %.0f frames/s\n", total.pushed[0] + total.pushed[1],
	       secs, (double)(total.pushed[0] + total.pushed[1]) / (secs > 0 ? secs : 1));
	printf("verdicts: XDP_TX %" PRIu64 " (IPv4 %" PRIu64 ", IPv6 %" PRIu64
	       "), XDP_PASS %" PRIu64 ", XDP_DROP %" PRIu64 "\n",
	       total.verdict[0][XDP_TX] + total.verdict[1][XDP_TX], total.tx_family[0],
	       total.tx_family[1], total.verdict[0][XDP_PASS] + total.verdict[1][XDP_PASS],
	       total.verdict[0][XDP_DROP] + total.verdict[1][XDP_DROP]);
	printf("reference: reply %" PRIu64 ", kernel %" PRIu64 ", invalid %" PRIu64 "\n",
	       total.ref_class[PKT_REF_REPLY], total.ref_class[PKT_REF_KERNEL],
	       total.ref_class[PKT_REF_INVALID]);
	printf("STAMP reflected: %" PRIu64 "\n", total.tx_stamp[0] + total.tx_stamp[1]);
	bad = check_counters(&total);
	/* A quarter of the frames are STAMP packets, a good part of them
	 * answerable: a run of a thousand that reflects none has lost them. */
	if (opt.index < 0 && opt.frames >= 1000 && !(total.tx_stamp[0] + total.tx_stamp[1])) {
		printf("FAIL no STAMP packet reflected\n");
		bad++;
	}
	printf("%" PRIu64 " failures%s\n", total.failures + bad,
	       total.failures > opt.max_print ? " (the first ones printed)" : "");
	for (int f = 0; f < 2; f++)
		xdpong_bpf__destroy(insts[f].skel);
	free(workers);
	return total.failures + bad ? 1 : 0;
}
