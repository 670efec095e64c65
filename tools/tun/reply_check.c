// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The reply check shared by tun-helper (on WRITE) and pong-hex --check.
 * See reply_check.h. Checksums come from packet.h (one RFC 1071 helper).
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "packet.h"
#include "reply_check.h"

int rc_parse_echo(const uint8_t *pkt, size_t len, struct rc_echo *e)
{
	const uint8_t *icmp;
	size_t icmp_len;

	if (len < 1)
		return -1;
	if (pkt[0] >> 4 == 4) {
		size_t hl = (size_t)(pkt[0] & 15) * 4, tot;

		if (len < PKT_IP4_HLEN || hl < PKT_IP4_HLEN || pkt[9] != PKT_PROTO_ICMP)
			return -1;
		tot = pkt_get_be16(pkt + 2);
		if (tot > len || tot < hl + PKT_ICMP_HLEN)
			return -1;
		e->family = 4;
		e->src = pkt + 12;
		e->dst = pkt + 16;
		icmp = pkt + hl;
		icmp_len = tot - hl;
	} else if (pkt[0] >> 4 == 6) {
		size_t plen;

		if (len < PKT_IP6_HLEN || pkt[6] != PKT_PROTO_ICMPV6)
			return -1;
		plen = pkt_get_be16(pkt + 4);
		if (PKT_IP6_HLEN + plen > len || plen < PKT_ICMP_HLEN)
			return -1;
		e->family = 6;
		e->src = pkt + 8;
		e->dst = pkt + 24;
		icmp = pkt + PKT_IP6_HLEN;
		icmp_len = plen;
	} else {
		return -1;
	}
	e->type = icmp[0];
	e->code = icmp[1];
	e->id = pkt_get_be16(icmp + 4);
	e->seq = pkt_get_be16(icmp + 6);
	e->payload = icmp + PKT_ICMP_HLEN;
	e->payload_len = icmp_len - PKT_ICMP_HLEN;
	return 0;
}

bool rc_is_echo_request(const uint8_t *pkt, size_t len)
{
	struct rc_echo e;

	return !rc_parse_echo(pkt, len, &e) && !e.code &&
	       e.type == (e.family == 4 ? PKT_ICMP_ECHO : PKT_ICMPV6_ECHO_REQUEST);
}

/* Append one finding, "; " after the previous; a full buffer ends in "...". */
__attribute__((format(printf, 2, 3))) static void finding(struct rc_result *r, const char *fmt, ...)
{
	size_t used = strlen(r->text), room = sizeof(r->text) - used;
	va_list ap;
	int n = 0;

	r->findings++;
	if (used && room > 2)
		n = snprintf(r->text + used, room, "; ");
	if (n < 0 || (size_t)n >= room)
		return;
	va_start(ap, fmt);
	n = vsnprintf(r->text + used + n, room - (size_t)n, fmt, ap);
	va_end(ap);
	if (n < 0 || strlen(r->text) == sizeof(r->text) - 1)
		memcpy(r->text + sizeof(r->text) - 4, "...", 4);
}

/*
 * RFC 1071: the field is right when the sum over every covered word, the
 * field included, folds to 0xffff (both zeros of one's complement pass
 * where the data sums to 0xffff). The value to write is ~fold(sum with the
 * field as 0); all-zero data gives ~0 = 0xffff (pkt_csum_fold(0) is 0).
 * sum_all includes the field, at an even offset.
 */
static bool csum_right(uint64_t sum_all, uint16_t field, uint16_t *want)
{
	*want = (uint16_t)~pkt_csum_fold(sum_all - field);
	return pkt_csum_fold(sum_all) == 0xffff;
}

static const char *addr_str(int family, const uint8_t *a, char *buf)
{
	return inet_ntop(family == 4 ? AF_INET : AF_INET6, a, buf, INET6_ADDRSTRLEN);
}

/* The IPv4 header: version known, lengths, header checksum. False: stop here. */
static bool check_ip4(const uint8_t *pkt, size_t len, struct rc_result *r)
{
	size_t hl = (size_t)(pkt[0] & 15) * 4, tot;
	uint16_t frag;

	if (len < PKT_IP4_HLEN) {
		finding(r, "packet %zu byte%s, shorter than an ipv4 header (20)", len,
			len == 1 ? "" : "s");
		return false;
	}
	if (hl < PKT_IP4_HLEN) {
		finding(r, "ip header length %zu, want at least 20 (ihl %u)", hl, pkt[0] & 15);
		return false;
	}
	if (hl > len) {
		finding(r, "ip header length %zu, packet %zu bytes", hl, len);
		return false;
	}
	tot = pkt_get_be16(pkt + 2);
	r->ip_len = tot;
	r->ip_csum_checked = true;
	r->ip_csum = pkt_get_be16(pkt + 10);
	r->ip_csum_right = csum_right(pkt_csum_partial(pkt, hl, 0), r->ip_csum, &r->ip_csum_want);
	if (!r->ip_csum_right)
		finding(r, "ip checksum %04x, want %04x", r->ip_csum, r->ip_csum_want);
	if (tot != len)
		finding(r, "ip total length %zu, packet %zu bytes", tot, len);
	if (tot > len || tot < hl)
		return false;
	/* RFC 791: MF or an offset makes it a fragment; the kernel waits for the rest. */
	frag = pkt_get_be16(pkt + 6);
	if (frag & 0x3fff)
		finding(r, "ip flags/offset %04x: a fragment, want 0000 or 4000", frag);
	if (pkt[9] != PKT_PROTO_ICMP) {
		finding(r, "ip protocol %u, want 1 (icmp)", pkt[9]);
		return false;
	}
	if (tot - hl < PKT_ICMP_HLEN) {
		finding(r, "icmp message %zu bytes, shorter than an echo header (8)", tot - hl);
		return false;
	}
	r->icmp_csum_checked = true;
	r->icmp_csum = pkt_get_be16(pkt + hl + 2);
	r->icmp_csum_right = csum_right(pkt_csum_partial(pkt + hl, tot - hl, 0), r->icmp_csum,
					&r->icmp_csum_want);
	if (!r->icmp_csum_right)
		finding(r, "icmp checksum %04x, want %04x", r->icmp_csum, r->icmp_csum_want);
	return true;
}

static bool check_ip6(const uint8_t *pkt, size_t len, struct rc_result *r)
{
	size_t plen;
	uint64_t sum;

	if (len < PKT_IP6_HLEN) {
		finding(r, "packet %zu byte%s, shorter than an ipv6 header (40)", len,
			len == 1 ? "" : "s");
		return false;
	}
	plen = pkt_get_be16(pkt + 4);
	r->ip_len = PKT_IP6_HLEN + plen;
	if (r->ip_len != len)
		finding(r, "ipv6 payload length %zu, packet 40+%zu bytes", plen,
			len - PKT_IP6_HLEN);
	if (r->ip_len > len)
		return false;
	if (pkt[6] != PKT_PROTO_ICMPV6) {
		finding(r, "ipv6 next header %u, want 58 (icmpv6)", pkt[6]);
		return false;
	}
	if (plen < PKT_ICMP_HLEN) {
		finding(r, "icmpv6 message %zu bytes, shorter than an echo header (8)", plen);
		return false;
	}
	/* RFC 8200 8.1: the sum covers a pseudo-header with both addresses. */
	sum = pkt_csum_pseudo6(pkt + 8, pkt + 24, (uint32_t)plen, PKT_PROTO_ICMPV6) +
	      pkt_csum_partial(pkt + PKT_IP6_HLEN, plen, 0);
	r->icmp_csum_checked = true;
	r->icmp_csum = pkt_get_be16(pkt + PKT_IP6_HLEN + 2);
	r->icmp_csum_right = csum_right(sum, r->icmp_csum, &r->icmp_csum_want);
	if (!r->icmp_csum_right)
		finding(r, "icmpv6 checksum %04x, want %04x", r->icmp_csum, r->icmp_csum_want);
	return true;
}

/* Addresses swapped and payload the same as the request's. */
static bool answers_exactly(const struct rc_echo *rep, const struct rc_echo *req)
{
	size_t alen = rep->family == 4 ? 4 : 16;

	return !memcmp(rep->src, req->dst, alen) && !memcmp(rep->dst, req->src, alen) &&
	       rep->payload_len == req->payload_len &&
	       !memcmp(rep->payload, req->payload, rep->payload_len);
}

/* What differs from the request with the same id and seq. */
static void describe_difference(const struct rc_echo *rep, const struct rc_echo *req,
				struct rc_result *r)
{
	size_t alen = rep->family == 4 ? 4 : 16, i;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	if (memcmp(rep->dst, req->src, alen))
		finding(r, "dst %s, want %s (the request's src)",
			addr_str(rep->family, rep->dst, a), addr_str(rep->family, req->src, b));
	if (memcmp(rep->src, req->dst, alen))
		finding(r, "src %s, want %s (the request's dst)",
			addr_str(rep->family, rep->src, a), addr_str(rep->family, req->dst, b));
	if (rep->payload_len != req->payload_len) {
		finding(r, "payload %zu bytes, want %zu (the request's)", rep->payload_len,
			req->payload_len);
		return;
	}
	for (i = 0; i < rep->payload_len && rep->payload[i] == req->payload[i]; i++)
		;
	if (i < rep->payload_len)
		finding(r, "payload byte %zu is %02x, want %02x (the request's)", i,
			rep->payload[i], req->payload[i]);
}

/* Find the request this reply answers, newest first, and say what is off. */
static void match_request(const struct rc_echo *rep, const struct rc_request *reqs, size_t n,
			  struct rc_result *r)
{
	long exact_open = -1, exact_done = -1, same_open = -1, same_done = -1;
	struct rc_echo req;
	size_t candidates = 0;

	for (size_t k = n; k-- > 0;) {
		if (!rc_is_echo_request(reqs[k].pkt, reqs[k].len) ||
		    rc_parse_echo(reqs[k].pkt, reqs[k].len, &req) || req.family != rep->family)
			continue;
		candidates++;
		if (req.id != rep->id || req.seq != rep->seq)
			continue;
		if (answers_exactly(rep, &req)) {
			if (!reqs[k].answered) {
				exact_open = (long)k;
				break;
			}
			if (exact_done < 0)
				exact_done = (long)k;
		} else if (!reqs[k].answered && same_open < 0) {
			same_open = (long)k;
		} else if (same_done < 0) {
			same_done = (long)k;
		}
	}
	r->exact = exact_open >= 0 || exact_done >= 0;
	r->request = exact_open >= 0 ? exact_open :
		     exact_done >= 0 ? exact_done :
		     same_open >= 0  ? same_open :
				       same_done;
	if (exact_open >= 0)
		return;
	if (exact_done >= 0) {
		finding(r, "duplicate: the request id %04x seq %u is answered already", rep->id,
			rep->seq);
		return;
	}
	if (r->request >= 0) {
		rc_parse_echo(reqs[r->request].pkt, reqs[r->request].len, &req);
		describe_difference(rep, &req, r);
		return;
	}
	if (!candidates)
		finding(r, "no outstanding ipv%d echo request", rep->family);
	else
		finding(r, "no outstanding request with id %04x seq %u", rep->id, rep->seq);
}

void rc_check_reply(const uint8_t *pkt, size_t len, const struct rc_request *reqs, size_t n,
		    struct rc_result *r)
{
	struct rc_echo rep;
	bool whole;

	memset(r, 0, sizeof(*r));
	r->request = -1;
	if (!len) {
		finding(r, "empty packet");
		return;
	}
	if (pkt[0] >> 4 != 4 && pkt[0] >> 4 != 6) {
		finding(r, "ip version %u, want 4 or 6", pkt[0] >> 4);
		return;
	}
	r->family = pkt[0] >> 4;
	whole = r->family == 4 ? check_ip4(pkt, len, r) : check_ip6(pkt, len, r);
	if (!whole || rc_parse_echo(pkt, len, &rep))
		return;
	r->echo = true;
	if (rep.type != (r->family == 4 ? PKT_ICMP_ECHOREPLY : PKT_ICMPV6_ECHO_REPLY))
		finding(r, "%s type %u, want %u (echo reply)", r->family == 4 ? "icmp" : "icmpv6",
			rep.type, r->family == 4 ? PKT_ICMP_ECHOREPLY : PKT_ICMPV6_ECHO_REPLY);
	if (rep.code)
		finding(r, "%s code %u, want 0", r->family == 4 ? "icmp" : "icmpv6", rep.code);
	match_request(&rep, reqs, n, r);
}

const char *rc_answer(const struct rc_result *r, bool strict, char *buf, size_t size)
{
	if (!r->findings)
		snprintf(buf, size, "OK");
	else if (strict)
		snprintf(buf, size, "ERR %s (not written: --strict)", r->text);
	else
		snprintf(buf, size, "OK WARN %s", r->text);
	return buf;
}
