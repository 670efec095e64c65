/* SPDX-License-Identifier: GPL-2.0 */
/*
 * STAMP reflection (RFC 8762, extended by RFC 8972): a Session-Reflector
 * in stateless, unauthenticated mode (RFC 8762 4.3), for UDP to
 * cfg_stamp_port at the addresses echo answers for. A frame comes here
 * only where echo found no ICMP (frame_handle in echo.h), and
 * only with --stamp: cfg_stamp_port is frozen rodata, 0 by default, and
 * the verifier then removes this whole path.
 *
 * The same four steps as echo, on the same IP checks (echo.h's), each
 * returning a reason or XP_GO_ON: the headers; whom it is for (our
 * address, the port, a base STAMP packet); the checks an answer needs
 * (the source, the IP and UDP checksums); the reply, in place.
 *
 * After the 44-byte base packet, RFC 8972 4 puts TLVs, which a reflector
 * processes in order: xdpong_stamp_tlvs walks at most XDPONG_STAMP_MAX_TLVS
 * of them, once to count them (more: passed, pass_stamp_many_tlvs, the
 * packet unchanged) and once, in the reply, to answer them.
 */
#ifndef XDPONG_BPF_STAMP_H
#define XDPONG_BPF_STAMP_H

#include "frame.h"
#include "ratelimit.h"
#include "addrs.h"
#include "ntp.h"

/*
 * The base packets, unauthenticated (RFC 8762 4.2.1 and 4.3.1, with RFC
 * 8972 3's SSID in the sender's first MBZ octets), as byte offsets in the
 * UDP payload: the reply is written over the request, field by field.
 */
#define XP_STAMP_LEN 44
#define XP_STAMP_SEQ 0            /* Sequence Number: the sender's, kept (stateless) */
#define XP_STAMP_TS 4             /* the sender's Timestamp; the reply's T3 */
#define XP_STAMP_ERR 12           /* the sender's Error Estimate; the reflector's */
#define XP_STAMP_SSID 14          /* RFC 8972 3: kept */
#define XP_STAMP_RX_TS 16         /* Receive Timestamp: T2 */
#define XP_STAMP_S_SEQ 24         /* Session-Sender Sequence Number */
#define XP_STAMP_S_TS 28          /* Session-Sender Timestamp */
#define XP_STAMP_S_ERR 36         /* Session-Sender Error Estimate, then 2 MBZ */
#define XP_STAMP_S_TTL 40         /* Ses-Sender TTL, then 3 MBZ */
#define XP_NTP_UNIX 2208988800ULL /* seconds from 1900 (NTP's era 0) to 1970 */
/* RFC 8972 4: a TLV is a flags octet, a type octet and a 16-bit length of
 * the value that follows. Flags (5.3): U, the reflector did not recognise
 * the type (the sender sets it); M, the TLV is malformed. */
#define XP_TLV_HDR 4
#define XP_TLV_U 0x80
#define XP_TLV_M 0x40
/* Types (RFC 8972 5.2) the reflector recognises, and their values. */
#define XP_TLV_PADDING 1  /* Extra Padding (4.1): returned as received */
#define XP_TLV_TSINFO 3   /* Timestamp Information (4.3): 4 octets */
#define XP_TLV_COS 4      /* Class of Service (4.4): 4 octets */
#define XP_TLV_INFO_LEN 4 /* the value of both of the last two */
/* Timestamp Information's codes (RFC 8972 5.4, 5.5): T2 and T3 come from
 * the kernel's clock, read in software (T2 the NIC's, hardware assisted,
 * where --stamp-driver's build got it from the driver); disciplined (NTP,
 * as adjtimex says, through the Error Estimate's S bit) or free-running. */
#define XP_SYNC_NTP 1
#define XP_SYNC_FREE_RUNNING 5
#define XP_TS_HW_ASSIST 1
#define XP_TS_SW_LOCAL 2
/*
 * The Error Estimate before the loader has written one (RFC 4656 4.1.2):
 * not synchronised (S 0), NTP format (Z 0), scale 32 and multiplier 1,
 * one second: an honest "not known", never a zero multiplier.
 */
#define XP_STAMP_ERR_UNKNOWN 0x2001

/* What the steps learn of a STAMP test packet, beside struct v4_req. */
struct stamp_req {
	__u64 t2; /* T2, UTC ns: read once the datagram is known to be STAMP's */
	struct xdp_md *ctx;
	struct udphdr *udp;
	void *stamp;   /* the base packet, XP_STAMP_LEN bytes, in the first buffer */
	__u32 tlv_off; /* the bytes after it (TLVs): their offset in the frame, */
	__u32 tlv_len; /* and their length, 0 if none; all in the first buffer */
	__u64 mbz_sum; /* the request's bytes 16..43, summed with the checksum */
	__u8 rx_ttl;   /* the TTL or hop limit it came with (byte 40 of the reply) */
	__u8 rx_tc;    /* the TOS or traffic class it came with (DSCP and ECN) */
	__u8 t2_hw;    /* T2 is the driver's (bpf/rxts.h) */
};

/* UTC in ns from the clock cfg_stamp_clock names (frozen rodata: the
 * verifier keeps one call, and never walks to a helper 5.10 lacks). */
static __always_inline __u64 stamp_clock_ns(void)
{
	if (cfg_stamp_clock == XDPONG_STAMP_CLOCK_TAI)
		return bpf_ktime_get_tai_ns() + stamp_clock_off_ns;
	return bpf_ktime_get_ns() + stamp_clock_off_ns;
}

/* T2's clock: the driver's in the device-bound build, else the above. */
#ifdef XDPONG_STAMP_RXTS
#include "rxts.h"
#else
#define stamp_t2_ns(ctx, hw) stamp_clock_ns()
#endif

/* RFC 8762 4.2.1, RFC 5905 6: the 64-bit NTP timestamp of UTC t, as
 * stored (seconds since 1900 modulo 2^32, then the binary fraction). */
static __always_inline __u64 ntp64(struct ns_split t)
{
	__u64 out;
	__u32 w[2];

	w[0] = bpf_htonl((__u32)(t.sec + XP_NTP_UNIX));
	w[1] = bpf_htonl(ntp_frac(t.ns));
	__builtin_memcpy(&out, w, 8);
	return out;
}

/* A 64-bit word's contribution to a one's complement sum, as stored. */
static __always_inline __u64 sum64(__u64 v)
{
	return (v & 0xffffffff) + (v >> 32);
}

/*
 * A byte of the TLVs set to v, its change added to the checksum's sums
 * (RFC 1624, summed): in RFC 1071's sum a byte is the word (v, 0) at an
 * even offset of the datagram, (0, v) at an odd one. The TLVs start at
 * an even offset (8 + 44), so odd is the offset's parity among them.
 */
static __always_inline void tlv_set(__u8 *b, __u8 v, __u32 odd, __u64 *gone, __u64 *came)
{
	*gone += bpf_htons(odd ? *b : (__u16)(*b << 8));
	*came += bpf_htons(odd ? v : (__u16)(v << 8));
	*b = v;
}

/* xdpong_stamp_tlvs: how (the received TOS or traffic class in the low
 * byte), and what it returns besides the checksum's change. */
#define XP_TLVS_WRITE 0x100
#define XP_TLVS_T2_HW 0x200  /* T2 is the driver's: Timestamp Information says so */
#define XP_TLVS_MANY (-1)    /* more than XDPONG_STAMP_MAX_TLVS */
#define XP_TLVS_CUT (-2)     /* not all in the first buffer (never: checked) */
#define XP_TLVS_DSCP 0x10000 /* a Class of Service TLV asks for DSCP1 (<< 17) */

/*
 * The values the reflector fills in, for the TLV at p of a type it
 * recognises, with a value of XP_TLV_INFO_LEN bytes (odd: the parity of
 * its offset; how: xdpong_stamp_tlvs'): Timestamp Information (RFC 8972
 * 4.3) says how T2 and T3 were taken; Class of Service (4.4) keeps DSCP1,
 * reports the DSCP and ECN the request came with (DSCP2, ECN), and RP 0:
 * the reply is sent with DSCP1, which xdpong always permits. Reserved is
 * zeroed (sent by the reflector). Returns XP_TLVS_DSCP | DSCP1 << 17 for
 * Class of Service, else 0.
 */
static __always_inline __u32 tlv_fill(__u8 *p, __u8 type, __u32 odd, __u32 how, __u64 *gone,
				      __u64 *came)
{
	__u8 *v = p + XP_TLV_HDR, sync, tc = how & 0xff;
	__u32 dscp1;

	if (type == XP_TLV_TSINFO) {
		sync = stamp_errest & 0x8000 ? XP_SYNC_NTP : XP_SYNC_FREE_RUNNING;
		tlv_set(v, sync, odd, gone, came);
		tlv_set(v + 1, how & XP_TLVS_T2_HW ? XP_TS_HW_ASSIST : XP_TS_SW_LOCAL, !odd, gone,
			came);
		tlv_set(v + 2, sync, odd, gone, came);
		tlv_set(v + 3, XP_TS_SW_LOCAL, !odd, gone, came);
		return 0;
	}
	/* DSCP1 (6 bits), DSCP2 (6), ECN (2), RP (2), Reserved (16) */
	dscp1 = v[0] >> 2;
	tlv_set(v, (v[0] & 0xfc) | (tc >> 6), odd, gone, came);
	tlv_set(v + 1, (((tc >> 2) & 0xf) << 4) | ((tc & 3) << 2), !odd, gone, came);
	tlv_set(v + 2, 0, odd, gone, came);
	tlv_set(v + 3, 0, !odd, gone, came);
	return XP_TLVS_DSCP | dscp1 << 17;
}

/*
 * The TLVs after the base packet (RFC 8972 4), len bytes at offset off of
 * the frame, walked in order. Where a TLV would start, a flags octet
 * without U ends them: RFC 8972 has the sender set U on every TLV, so
 * such bytes are not TLVs but RFC 8762's padding (zeros, as a base
 * sender sends it), returned as received with all after them. A TLV
 * whose value runs past the datagram, or whose header does not fit, is
 * malformed: M set, and the walk stops. Otherwise a type the reflector
 * recognises has U cleared (and M, which only the reflector sets): Extra
 * Padding as received, Timestamp Information and Class of Service filled
 * in (tlv_fill), or M set if their length is not 4; any other type is
 * returned as received, U set.
 *
 * Without XP_TLVS_WRITE in how, it only counts: 0, or XP_TLVS_MANY where
 * a TLV starts after XDPONG_STAMP_MAX_TLVS of them (then passed, the
 * packet unchanged). With it, the reply's TLVs are written and it returns
 * the checksum's change (the 16-bit one's complement sum of the new
 * words less the old, to add) with the last Class of Service TLV's
 * XP_TLVS_DSCP bits (tlv_fill). A global function: verified once, on its
 * own, whichever path calls it.
 */
__noinline __s64 xdpong_stamp_tlvs(struct xdp_md *ctx, __u32 off, __u32 len, __u32 how)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u64 gone = 0, came = 0;
	__u32 at = 0, answer = 0;
	void *tlvs;

	if (off > 256 || len > XDPONG_STAMP_MAX_TLV_BYTES)
		return XP_TLVS_CUT;
	tlvs = data + off;
	for (int i = 0; i <= XDPONG_STAMP_MAX_TLVS; i++) {
		__u8 *p, flags, type, now;
		__u32 vlen, cos = 0;

		if (at >= len)
			break;
		p = tlvs + (at & 0x3fff); /* the same: at < len, at most 9216 */
		if ((void *)(p + 1) > end)
			return XP_TLVS_CUT;
		flags = *p;
		if (!(flags & XP_TLV_U))
			break;
		if (i == XDPONG_STAMP_MAX_TLVS)
			return XP_TLVS_MANY;
		vlen = 0xffff; /* a header that does not fit: malformed */
		if (len - at >= XP_TLV_HDR) {
			if ((void *)(p + XP_TLV_HDR) > end)
				return XP_TLVS_CUT;
			vlen = bpf_ntohs(ld16(p + 2));
		}
		if (vlen > len - at - XP_TLV_HDR || len - at < XP_TLV_HDR) {
			if (how & XP_TLVS_WRITE)
				tlv_set(p, flags | XP_TLV_M, at & 1, &gone, &came);
			break;
		}
		type = p[1];
		now = flags & ~(XP_TLV_U | XP_TLV_M);
		if (type == XP_TLV_TSINFO || type == XP_TLV_COS) {
			if (vlen != XP_TLV_INFO_LEN)
				now |= XP_TLV_M;
			else if ((void *)(p + XP_TLV_HDR + XP_TLV_INFO_LEN) > end)
				return XP_TLVS_CUT;
			else if (how & XP_TLVS_WRITE)
				cos = tlv_fill(p, type, at & 1, how, &gone, &came);
			answer = cos ? cos : answer;
		} else if (type != XP_TLV_PADDING) {
			now = flags;
		}
		if ((how & XP_TLVS_WRITE) && now != flags)
			tlv_set(p, now, at & 1, &gone, &came);
		at += XP_TLV_HDR + vlen;
	}
	if (!(how & XP_TLVS_WRITE))
		return 0;
	return answer | csum_fold(came + (__u16)~csum_fold(gone));
}

/* 2. Whom it is for, after the IP checks: the port, then the lengths. */
static __always_inline __u32 stamp_udp(const struct l3_frame *f, struct stamp_req *s, void *udp,
				       __u32 udp_off, __u32 ip_payload)
{
	struct udphdr *uh = udp;
	__u32 ulen, tlv_len;
	__s64 walk;

	if (ip_payload < sizeof(*uh))
		return REASON(drop_bad_length);
	if ((void *)(uh + 1) > f->end) /* the frame holds it: the IP length says so */
		return REASON(pass_split_headers);
	if (uh->dest != bpf_htons(cfg_stamp_port))
		return REASON(pass_not_icmp);
	/* T2 (RFC 8762 4.3): as early as the datagram is known to be for
	 * the reflector; not sooner, or every UDP datagram would read the
	 * clock. */
	s->t2 = stamp_t2_ns(f->ctx, &s->t2_hw);
	/* The kernel drops a UDP length past the IP payload or below the
	 * header (short_packet), and trims the payload to a shorter one. */
	ulen = bpf_ntohs(uh->len);
	if (ulen < sizeof(*uh) || ulen > ip_payload)
		return REASON(drop_bad_length);
	if (ulen < ip_payload)
		return REASON(pass_udp_len);
	if (ulen < sizeof(*uh) + XP_STAMP_LEN)
		return REASON(pass_stamp_short);
	tlv_len = ulen - sizeof(*uh) - XP_STAMP_LEN;
	if (tlv_len > XDPONG_STAMP_MAX_TLV_BYTES)
		return REASON(pass_too_big);
	/* All of it in the first buffer, the TLVs too (a multi-buffer frame
	 * that splits them off is the kernel's): the base packet's bound for
	 * the verifier, which learns nothing of it from the second. */
	if ((void *)(uh + 1) + XP_STAMP_LEN > f->end ||
	    (void *)(uh + 1) + XP_STAMP_LEN + tlv_len > f->end)
		return REASON(pass_split_headers);
	s->ctx = f->ctx;
	s->udp = uh;
	s->stamp = uh + 1;
	s->tlv_len = tlv_len;
	s->tlv_off = udp_off + sizeof(*uh) + XP_STAMP_LEN;
	walk = tlv_len ? xdpong_stamp_tlvs(f->ctx, s->tlv_off, tlv_len, 0) : 0;
	if (walk < 0)
		return walk == XP_TLVS_MANY ? REASON(pass_stamp_many_tlvs) :
					      REASON(pass_split_headers);
	return XP_GO_ON;
}

/*
 * 3. The UDP checksum (RFC 768), over the pseudo-header sum psum. One that
 * does not verify is passed, not dropped: a sender that left it to
 * offload (a veth peer, a local container, generic XDP) sends only the
 * pseudo-header's part, and the kernel, which knows that from the skb
 * (CHECKSUM_PARTIAL), accepts it; a wrong one it drops itself. The TLVs
 * after the base packet are summed by frame.h's xdpong_sum_bytes. The
 * words the reply replaces (16..43) are summed apart, kept for its
 * checksum (stamp_reflect).
 */
static __always_inline __u32 stamp_udp_csum(struct xdp_md *ctx, struct stamp_req *s, __u64 psum)
{
	__u32 head = sizeof(struct udphdr) + XP_STAMP_RX_TS;
	__s64 tlvs = 0;

	_Static_assert(XP_STAMP_RX_TS % 4 == 0 && XP_STAMP_LEN % 4 == 0, "sum_words");
	if (s->tlv_len) {
		tlvs = xdpong_sum_bytes(ctx, s->tlv_off, s->tlv_len);
		if (tlvs < 0)
			return REASON(pass_too_big);
	}
	s->mbz_sum = sum_words((void *)s->udp + head, XP_STAMP_LEN - XP_STAMP_RX_TS);
	if (!csum_ok(psum + tlvs + sum_words(s->udp, head) + s->mbz_sum))
		return REASON(pass_udp_csum);
	return XP_GO_ON;
}

/* The reply's DSCP set to dscp (a Class of Service TLV's DSCP1), its ECN
 * kept: IPv4's TOS (the header checksum patched), IPv6's traffic class
 * (4 bits in each of the header's first two octets). */
static __always_inline void stamp_set_dscp(void *l3, bool v6, __u8 dscp)
{
	__u16 old = ld16(l3), new;
	__u8 b[2];

	__builtin_memcpy(b, &old, 2);
	if (v6) {
		b[0] = (b[0] & 0xf0) | (dscp >> 2);
		b[1] = (b[1] & 0x3f) | ((dscp & 3) << 6);
	} else {
		b[1] = (dscp << 2) | (b[1] & 3);
	}
	__builtin_memcpy(&new, b, 2);
	st16(l3, new);
	if (!v6)
		((struct iphdr *)l3)->check = csum_replace16(((struct iphdr *)l3)->check, old, new);
}

/*
 * 4. The reflector's fields over the sender's (RFC 8762 4.3.1, RFC 8972
 * 3), in place, and the UDP checksum patched for what changed (RFC 1624
 * eqn 3, summed over the changed words): the sender's Sequence Number,
 * Timestamp and Error Estimate move to 24..37, where they add what they
 * took from 0..13 (the Sequence Number stays at 0 too: stateless mode);
 * what the sender had at 16..43 (MBZ) goes (summed as the checksum was
 * verified: a checksum to patch was verified); T2, T3, the Error Estimate
 * and the TTL come; then the TLVs' answers (xdpong_stamp_tlvs), whose
 * change to the checksum it returns. T3 is read last, after everything
 * else is written.
 */
static __always_inline void stamp_reflect(struct stamp_req *s, void *l3, bool v6)
{
	void *p = s->stamp;
	__u64 gone = s->mbz_sum;
	__u32 seq = ld32(p + XP_STAMP_SEQ), ttl_word = 0;
	struct ns_split t2 = ns_split(s->t2);
	__u64 ts = ld64(p + XP_STAMP_TS), t2_ntp = ntp64(t2), t3_ntp, came;
	__u16 err = ld16(p + XP_STAMP_ERR), my_err, csum;
	__u32 e = stamp_errest;

	my_err = bpf_htons(e ? (__u16)e : XP_STAMP_ERR_UNKNOWN);
	__builtin_memcpy(&ttl_word, &s->rx_ttl, 1);
	st64(p + XP_STAMP_RX_TS, t2_ntp);
	st32(p + XP_STAMP_S_SEQ, seq);
	st64(p + XP_STAMP_S_TS, ts);
	st32(p + XP_STAMP_S_ERR, 0); /* the error estimate, then 2 MBZ */
	st16(p + XP_STAMP_S_ERR, err);
	st32(p + XP_STAMP_S_TTL, ttl_word);
	st16(p + XP_STAMP_ERR, my_err);
	came = seq + sum64(t2_ntp) + my_err + ttl_word;
	if (s->tlv_len) {
		__u32 how = XP_TLVS_WRITE | s->rx_tc | (s->t2_hw ? XP_TLVS_T2_HW : 0);
		__s64 a = xdpong_stamp_tlvs(s->ctx, s->tlv_off, s->tlv_len, how);

		if (a > 0) { /* never negative here: the count went through */
			came += (__u16)a;
			if (a & XP_TLVS_DSCP)
				stamp_set_dscp(l3, v6, (a >> 17) & 0x3f);
		}
	}
	/* ~(~HC + m' - m): adding ~fold(m) takes m away (one's complement).
	 * All of it but T3's words, summed before T3 is read, so that only
	 * T3's own conversion and sum come after the read (the barrier: the
	 * compiler would sink the sum past the clock's call, next to its
	 * one use). */
	csum = s->udp->check;
	came += (__u64)(__u16)~csum + (__u16)~csum_fold(gone);
	asm volatile("" : "+r"(came));
	/* T3: as late as the reply allows (RFC 8762 4.3: just before sending),
	 * carried on from T2's split (ntp.h). */
	t3_ntp = ntp64(ns_split_after(t2, s->t2, stamp_clock_ns()));
	st64(p + XP_STAMP_TS, t3_ntp);
	if (!csum) /* IPv4 only (IPv6 passed it): no checksum, none to patch */
		return;
	csum = (__u16)~csum_fold(came + sum64(t3_ntp));
	/* RFC 768: a computed 0 is sent as all ones (0 means no checksum). */
	s->udp->check = csum ? csum : 0xffff;
}

/* The ports swapped: the UDP checksum is unchanged. */
static __always_inline void udp_swap_ports(struct udphdr *uh)
{
	__be16 tmp = uh->source;

	uh->source = uh->dest;
	uh->dest = tmp;
}

/*
 * The rate limits, as for echo; then 4. the reply: the IP header turned
 * around (the TTL or hop limit it came with kept for byte 40), the ports
 * swapped (the UDP checksum is unchanged by both), the reflector's fields.
 */
static __always_inline __u32 stamp_answer(struct stamp_req *s, void *l3, bool v6)
{
	struct ipv6hdr *ip6 = l3;
	struct iphdr *ip = l3;
	__u32 why = v6 ? rate_check(6, &ip6->saddr) : rate_check(4, &ip->saddr);

	if (why)
		return why;
	if (v6) {
		s->rx_ttl = ip6->hop_limit;
		s->rx_tc = (ip6->priority << 4) | (ip6->flow_lbl[0] >> 4);
		ipv6_turn_around(ip6);
	} else {
		s->rx_ttl = ip->ttl;
		s->rx_tc = ip->tos;
		ipv4_turn_around(ip);
	}
	udp_swap_ports(s->udp);
	stamp_reflect(s, l3, v6);
	return v6 ? REASON(reply_stamp6) : REASON(reply_stamp4);
}

/* 1. An IP header of hlen bytes in the first buffer, and UDP in it (the
 * protocol or next header at proto_off). */
static __always_inline __u32 stamp_ip_udp(const struct l3_frame *f, __u32 hlen, __u32 proto_off)
{
	if (f->l3 + hlen > f->end)
		return headers_cut(f->ctx, f->l3_off + hlen);
	if (*(__u8 *)(f->l3 + proto_off) != XP_PROTO_UDP)
		return REASON(pass_not_icmp);
	return XP_GO_ON;
}

static __always_inline __u32 stamp_ipv4(const struct l3_frame *f)
{
	struct stamp_req s = {};
	struct v4_req q = {};
	struct iphdr *ip = f->l3;
	__u32 why;

	/* 1. The headers, as echo checks them (ipv4_icmp's for UDP). */
	why = stamp_ip_udp(f, sizeof(*ip), offsetof(struct iphdr, protocol));
	if (why != XP_GO_ON)
		return why;
	q.ip = ip;
	q.tot = bpf_ntohs(ip->tot_len);
	q.icmp_len = q.tot - sizeof(*ip); /* here: the UDP datagram's */
	q.vihl = *(__u8 *)ip;
	if (!ipv4_valid(f, &q, &why) || !ipv4_extent(f, &q, &why) || !ipv4_kernels(&q, &why))
		return why;
	/* 2. Whom it is for. */
	if (!ipv4_dst_ours(&q, &why))
		return why;
	why = stamp_udp(f, &s, ip + 1, f->l3_off + sizeof(*ip), q.icmp_len);
	if (why != XP_GO_ON)
		return why;
	/* 3. The source and the checksums; a zero UDP checksum is none
	 * (RFC 768), which the kernel takes unchecked. */
	if (!ipv4_header_csum(&q, &why) || !ipv4_src_valid(&q, ((__u8 *)&ip->saddr)[0], &why) ||
	    !ipv4_src_not_own(&q, &why))
		return why;
	if (s.udp->check) {
		why = stamp_udp_csum(f->ctx, &s,
				     sum_words(&ip->saddr, 8) + bpf_htonl((XP_PROTO_UDP << 16) |
									  (q.icmp_len & 0xffff)));
		if (why != XP_GO_ON)
			return why;
	}
	return stamp_answer(&s, ip, false);
}

static __always_inline __u32 stamp_ipv6(const struct l3_frame *f)
{
	struct ipv6hdr *ip6 = f->l3;
	struct stamp_req s = {};
	struct v6_req q = {};
	__u32 why;

	/* 1. The headers, as echo checks them (ipv6_headers' for UDP). */
	why = stamp_ip_udp(f, sizeof(*ip6), offsetof(struct ipv6hdr, nexthdr));
	if (why != XP_GO_ON)
		return why;
	q.ip6 = ip6;
	why = ipv6_valid(f, &q);
	if (why != XP_GO_ON)
		return why;
	/* 2. Whom it is for. */
	if (!addr6_is_local(&ip6->daddr))
		return REASON(pass_dst_not_local);
	why = stamp_udp(f, &s, ip6 + 1, f->l3_off + sizeof(*ip6), q.plen);
	if (why != XP_GO_ON)
		return why;
	/* 3. The source and the checksum. RFC 8200 8.1 makes it mandatory;
	 * the kernel drops a zero one unless the socket opted in (RFC 6936,
	 * UDP_NO_CHECK6_RX): its call. */
	if (ipv6_is_martian_src(&ip6->saddr))
		return REASON(drop_martian_src);
	if (!s.udp->check)
		return REASON(pass_udp6_no_csum);
	why = stamp_udp_csum(f->ctx, &s,
			     sum_words(&ip6->saddr, 32) + bpf_htonl(q.plen) +
				     bpf_htonl(XP_PROTO_UDP));
	if (why != XP_GO_ON)
		return why;
	return stamp_answer(&s, ip6, true);
}

/*
 * The STAMP path for a frame whose network layer starts l3_off bytes in
 * (0: TUN, or an Ethernet header), of family 4 or 6. A global function,
 * called only where echo found no ICMP, from frame_handle, where its
 * arguments are at hand: the verifier checks it once, on its own, and the
 * echo path keeps nothing alive for it (inlined, or called from inside a
 * family's handler, it held parse state in registers, spilled on the echo
 * path even with STAMP off). Not timed by latency sampling: a reply says its own T3 - T2.
 */
__noinline __u32 xdpong_stamp(struct xdp_md *ctx, __u32 l3_off, __u32 family)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u64 untimed = 0;
	struct l3_frame f = { .ctx = ctx, .end = end, .t0 = &untimed };

	if (!cfg_stamp_port) /* verified reached or not: nothing without --stamp */
		return REASON(pass_not_icmp);
	if (l3_off) {
		if (data + sizeof(struct ethhdr) > end)
			return REASON(drop_truncated);
		f.eth = data;
		f.l3_off = sizeof(struct ethhdr);
	}
	f.l3 = data + f.l3_off;
	f.l3_len = (__u32)(end - data) - f.l3_off;
	return family == 6 ? stamp_ipv6(&f) : stamp_ipv4(&f);
}

/* A frame echo passed as not ICMP, which --stamp may want. */
static __always_inline bool stamp_wanted(__u32 reason)
{
	return cfg_stamp_port && reason == REASON(pass_not_icmp);
}

#endif /* XDPONG_BPF_STAMP_H */
