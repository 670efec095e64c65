// SPDX-License-Identifier: GPL-2.0
/*
 * pong-hex: one IPv4/IPv6 packet in hex in, its fields, the echo reply and
 * the checksum working out, as a runbook's report would show it. With
 * --reply-only, a hex filter for scripts (tun-helper's processors).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "xdpong_names.h"
#include "hex.h"
#include "userpong.h"
#include "reply_check.h"

#define PKT_MAX 65535
#define TEXT_MAX (8 * PKT_MAX) /* generous: spaces, 0x prefixes, labels */
#define MAX_PREFIXES 32
#define WORDS_SHOWN 24 /* longer messages: the first words, then a count */

/* Exit codes: scripts tell "not a packet" from "no reply due". */
#define EXIT_MALFORMED 1
#define EXIT_USAGE 2
#define EXIT_NO_REPLY 3
#define EXIT_WRONG_REPLY 4 /* --check: the reply fails a check */

static void usage(FILE *f)
{
	fprintf(f, "Usage: pong-hex [options] [HEX...]\n"
		   "       pong-hex --check REQUEST REPLY\n"
		   "\n"
		   "Read one IPv4 or IPv6 packet in hex (the arguments, else stdin; IP\n"
		   "header first, as a TUN gives it), print its fields, decide with\n"
		   "xdpong's rules whether an echo reply is due, and print the reply in hex\n"
		   "with its checksums worked out step by step: the RFC 1071 sum, fold and\n"
		   "complement, and the RFC 1624 incremental update.\n"
		   "\n"
		   "Whitespace, a '0x' before a token and offset labels ending in ':'\n"
		   "are allowed: '4500 0054 ...', '0x45 0x00 ...'; from tcpdump -x output\n"
		   "(one packet) only the hex lines are read.\n"
		   "\n"
		   "With --check, judge a reply someone made for REQUEST, as tun-helper does\n"
		   "on WRITE, with the working shown: the IP version, the lengths, the IPv4\n"
		   "header and ICMP/ICMPv6 checksums, and that it answers REQUEST (addresses\n"
		   "swapped, the same id, sequence and payload). The Verdict line holds the\n"
		   "answer tun-helper gives: OK, or OK WARN <what is wrong>.\n"
		   "\n"
		   "Options:\n"
		   "  -c, --check          REQUEST REPLY: check the reply (two hex arguments)\n"
		   "  -r, --reply-only     print only the reply, as one hex line (a filter\n"
		   "                       for scripts); nothing if no reply is due\n"
		   "  -a, --addr PREFIX    answer only for destinations in PREFIX\n"
		   "                       (repeatable; default: every unicast address)\n"
		   "  -h, --help           this help\n"
		   "\n"
		   "Exit status: 0 a reply is due (and printed), 1 the input is not a\n"
		   "packet (bad hex, truncated, lengths wrong), 2 usage, 3 a well-formed\n"
		   "packet that gets no reply (not an echo request, bad checksum, ...);\n"
		   "with --check: 0 the reply is right, 1 either is not hex, 4 the reply\n"
		   "fails a check.\n"
		   "\n"
		   "Examples:\n"
		   "  pong-hex 4500001c1c46400040010a870a0900010a0900020800f7ff00000000\n"
		   "  tcpdump -n -i tun0 -x -c 1 icmp | pong-hex\n"
		   "  reply=$(pong-hex --reply-only \"$request\") || echo \"no reply ($?)\"\n"
		   "  pong-hex --check \"$request\" \"$reply\"\n");
}

static const char *addr_str(int family, const uint8_t *a, char *buf)
{
	return inet_ntop(family == 4 ? AF_INET : AF_INET6, a, buf, INET6_ADDRSTRLEN);
}

/*
 * Print the 16-bit words of len bytes (the one at skip_off shown as
 * [0000], summed as zero) and return their sum before folding.
 */
static uint64_t show_words(const char *label, const uint8_t *p, size_t len, long skip_off,
			   size_t *shown_words)
{
	size_t words = (len + 1) / 2, i;
	uint64_t sum = 0;

	printf("    %-13s", label);
	for (i = 0; i < words; i++) {
		uint16_t w = i * 2 + 1 < len ? pkt_get_be16(p + i * 2) : (uint16_t)(p[i * 2] << 8);
		bool skip = (long)(i * 2) == skip_off;

		if (!skip)
			sum += w;
		if (i < WORDS_SHOWN) {
			if (i && i % 8 == 0)
				printf("\n    %-13s", "");
			printf(skip ? " [0000]" : " %04x", w);
		}
	}
	if (words > WORDS_SHOWN)
		printf(" ... (%zu more words)", words - WORDS_SHOWN);
	printf("\n");
	if (len & 1)
		printf("    %-13s odd length: the last byte 0x%02x is summed as 0x%02x00 (RFC "
		       "1071)\n",
		       "", p[len - 1], p[len - 1]);
	if (shown_words)
		*shown_words += words;
	return sum;
}

/* Fold with end-around carry, one step a line, then complement. */
static uint16_t show_fold_complement(uint64_t sum, size_t words)
{
	printf("    %-13s 0x%llx (%zu words)\n", "sum", (unsigned long long)sum, words);
	while (sum >> 16) {
		uint64_t next = (sum & 0xffff) + (sum >> 16);

		printf("    %-13s 0x%04llx + 0x%llx = 0x%llx\n", "fold",
		       (unsigned long long)(sum & 0xffff), (unsigned long long)(sum >> 16),
		       (unsigned long long)next);
		sum = next;
	}
	printf("    %-13s ~0x%04x = 0x%04x\n", "complement", (unsigned)sum,
	       (unsigned)(uint16_t)~sum);
	return (uint16_t)~sum;
}

/*
 * RFC 1624 eqn 3 for one changed word, shown; returns HC'. all_zero: the
 * reply's data is all zero, where RFC 1071 asks for 0xffff.
 */
/* RFC 1071 over an ICMP message, its checksum field (bytes 2-3) as 0,
 * shown step by step: the checksum it should carry. */
static uint16_t show_icmp_sum(const uint8_t *icmp, size_t icmp_len)
{
	size_t words = 0;
	uint64_t sum;

	printf("  RFC 1071: sum the whole ICMP message (%zu bytes), checksum field as 0:\n",
	       icmp_len);
	sum = show_words("words", icmp, icmp_len, 2, &words);
	return show_fold_complement(sum, words);
}

static uint16_t show_incremental(const char *what, uint16_t hc, uint16_t m, uint16_t m_new,
				 bool all_zero)
{
	uint64_t sum = (uint16_t)~hc + (uint16_t)~m + (uint64_t)m_new;
	uint16_t folded = pkt_csum_fold(sum), result = up_csum_update16(hc, m, m_new);

	printf("  RFC 1624 eqn 3, HC' = ~(~HC + ~m + m'), for the %s word:\n", what);
	printf("    HC 0x%04x (request), m 0x%04x -> m' 0x%04x\n", hc, m, m_new);
	printf("    ~HC + ~m + m' = 0x%04x + 0x%04x + 0x%04x = 0x%llx", (uint16_t)~hc, (uint16_t)~m,
	       m_new, (unsigned long long)sum);
	if (sum >> 16)
		printf(", folded 0x%04x", folded);
	printf("\n    HC' = ~0x%04x = 0x%04x\n", folded, result);
	if (all_zero && result == 0) {
		printf("    all-zero reply: 0x0000 is the one's complement zero eqn 3 gives,\n"
		       "    but RFC 1071 gives all-zero data the checksum ~0 = 0xffff: "
		       "use 0xffff\n");
		result = 0xffff;
	}
	return result;
}

static void print_hex_lines(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i += 32) {
		printf("  ");
		pkt_hexline(stdout, p + i, len - i < 32 ? len - i : 32);
	}
}

/* "sums to 0xffff (right)" or what the checksum field should hold. */
static void show_check(const char *what, uint64_t sum, uint16_t field)
{
	uint16_t folded = pkt_csum_fold(sum);

	if (folded == 0xffff) {
		printf("  check: %s sums to 0xffff: checksum 0x%04x is right\n", what, field);
		return;
	}
	/* RFC 1624 eqn 1: the right field is ~(sum without the field's value). */
	printf("  check: %s sums to 0x%04x, not 0xffff: checksum 0x%04x is wrong, 0x%04x would be "
	       "right\n",
	       what, folded, field, (uint16_t)~pkt_csum_fold(sum + (uint16_t)~field));
}

/* The ICMP or ICMPv6 header's fields, echo types named. */
static void show_icmp(const char *proto, const uint8_t *icmp, uint8_t request, uint8_t reply)
{
	printf("  %s: type %u%s, code %u, checksum 0x%04x, id 0x%04x (%u), seq 0x%04x (%u)\n",
	       proto, icmp[0],
	       icmp[0] == request ? " (echo request)" :
	       icmp[0] == reply   ? " (echo reply)" :
				    "",
	       icmp[1], pkt_get_be16(icmp + 2), pkt_get_be16(icmp + 4), pkt_get_be16(icmp + 4),
	       pkt_get_be16(icmp + 6), pkt_get_be16(icmp + 6));
}

/* The IP packet of tot bytes (header hl) in a packet of len bytes. */
static void show_sizes(const char *proto, size_t tot, size_t hl, size_t len)
{
	printf("  sizes: IP %zu = header %zu + %s %zu (header 8 + payload %zu)%s\n", tot, hl, proto,
	       tot - hl, tot - hl - PKT_ICMP_HLEN,
	       len > tot ? "; bytes after the IP packet are kept" : "");
}

/*
 * The fields of a packet long enough for its headers; label "Request" or
 * "Reply"; checks: say whether each checksum is right.
 */
static void report_packet(const char *label, const uint8_t *p, size_t len, int family, bool checks)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	printf("%s: %zu bytes, IPv%d\n", label, len, family);
	if (family == 4) {
		size_t hl = (size_t)(p[0] & 15) * 4, tot = pkt_get_be16(p + 2);
		uint16_t frag = pkt_get_be16(p + 6);

		printf("  %s -> %s\n", addr_str(4, p + 12, a), addr_str(4, p + 16, b));
		printf("  IP: version %u, IHL %u (%zu bytes), total length %zu, TTL %u, protocol "
		       "%u%s\n",
		       p[0] >> 4, p[0] & 15, hl, tot, p[8], p[9],
		       p[9] == PKT_PROTO_ICMP ? " (ICMP)" : "");
		printf("      TOS 0x%02x, id 0x%04x, flags %s%s%s, fragment offset %u, header "
		       "checksum 0x%04x\n",
		       p[1], pkt_get_be16(p + 4), frag & 0x4000 ? "DF" : "",
		       frag & 0x2000 ? (frag & 0x4000 ? "+MF" : "MF") : "",
		       frag & 0x6000 ? "" : "none", (frag & 0x1fff) * 8u, pkt_get_be16(p + 10));
		if (p[9] == PKT_PROTO_ICMP && hl >= PKT_IP4_HLEN && tot >= hl + PKT_ICMP_HLEN &&
		    tot <= len) {
			const uint8_t *icmp = p + hl;

			show_icmp("ICMP", icmp, PKT_ICMP_ECHO, PKT_ICMP_ECHOREPLY);
			show_sizes("ICMP", tot, hl, len);
			if (!checks)
				return;
			show_check("the IPv4 header", pkt_csum_partial(p, hl, 0),
				   pkt_get_be16(p + 10));
			show_check("the ICMP message", pkt_csum_partial(icmp, tot - hl, 0),
				   pkt_get_be16(icmp + 2));
		}
		return;
	}
	{
		size_t plen = pkt_get_be16(p + 4);

		printf("  %s -> %s\n", addr_str(6, p + 8, a), addr_str(6, p + 24, b));
		printf("  IPv6: payload length %zu, next header %u%s, hop limit %u, traffic class "
		       "0x%02x, flow 0x%05x\n",
		       plen, p[6], p[6] == PKT_PROTO_ICMPV6 ? " (ICMPv6)" : "", p[7],
		       (unsigned)((p[0] & 15) << 4 | p[1] >> 4),
		       (unsigned)((p[1] & 15) << 16 | p[2] << 8 | p[3]));
		if (p[6] == PKT_PROTO_ICMPV6 && plen >= PKT_ICMP_HLEN &&
		    PKT_IP6_HLEN + plen <= len) {
			const uint8_t *icmp = p + PKT_IP6_HLEN;

			show_icmp("ICMPv6", icmp, PKT_ICMPV6_ECHO_REQUEST, PKT_ICMPV6_ECHO_REPLY);
			show_sizes("ICMPv6", PKT_IP6_HLEN + plen, PKT_IP6_HLEN, len);
			if (checks)
				show_check("the ICMPv6 message with its pseudo-header",
					   pkt_icmp6_sum(p, icmp, plen), pkt_get_be16(icmp + 2));
		}
	}
}

/* The reply's checksums from scratch and incrementally; false if any differs. */
static bool report_reply4(const uint8_t *req, const uint8_t *rep, size_t len)
{
	size_t tot = pkt_get_be16(rep + 2), icmp_len = tot - PKT_IP4_HLEN, words = 0;
	const uint8_t *icmp = rep + PKT_IP4_HLEN, *req_icmp = req + PKT_IP4_HLEN;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	uint16_t scratch, incr, got;
	bool ok = true, zero;
	uint64_t sum;

	printf("\nReply: %s -> %s, ICMP type 0 (echo reply), code %u, TTL %u\n",
	       addr_str(4, rep + 12, a), addr_str(4, rep + 16, b), icmp[1], rep[8]);
	printf("  id 0x%04x, seq 0x%04x, payload, TOS, IP id and flags unchanged; %zu bytes\n",
	       pkt_get_be16(icmp + 4), pkt_get_be16(icmp + 6), len);

	printf("\nIPv4 header checksum (the addresses swap, TTL becomes %u)\n", rep[8]);
	printf("  RFC 1071: sum the header's 16-bit words, checksum field as 0:\n");
	sum = show_words("words", rep, PKT_IP4_HLEN, 10, &words);
	scratch = show_fold_complement(sum, words);
	incr = show_incremental("TTL|protocol", pkt_get_be16(req + 10), pkt_get_be16(req + 8),
				pkt_get_be16(rep + 8), false);
	got = pkt_get_be16(rep + 10);
	printf("  => 0x%04x%s\n", got,
	       scratch == got && incr == got ? " (both agree)" : " MISMATCH");
	ok &= scratch == got && incr == got;

	zero = !rep[1] && pkt_csum_partial(icmp + 4, icmp_len - 4, 0) == 0 && !icmp[0];
	printf("\nICMP checksum (type 8 -> 0)\n");
	scratch = show_icmp_sum(icmp, icmp_len);
	if (zero)
		printf("    (all-zero message: the sum is +0, its complement 0xffff)\n");
	incr = show_incremental("type|code", pkt_get_be16(req_icmp + 2), pkt_get_be16(req_icmp),
				pkt_get_be16(icmp), zero);
	got = pkt_get_be16(icmp + 2);
	printf("  => 0x%04x%s\n", got,
	       scratch == got && incr == got ? " (both agree)" : " MISMATCH");
	return ok && scratch == got && incr == got;
}

static bool report_reply6(const uint8_t *req, const uint8_t *rep, size_t len)
{
	size_t plen = pkt_get_be16(rep + 4), words = 0;
	const uint8_t *icmp = rep + PKT_IP6_HLEN, *req_icmp = req + PKT_IP6_HLEN;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	uint8_t pseudo_tail[8];
	uint16_t scratch, incr, got;
	uint64_t sum;

	printf("\nReply: %s -> %s, ICMPv6 type 129 (echo reply), code %u, hop limit %u\n",
	       addr_str(6, rep + 8, a), addr_str(6, rep + 24, b), icmp[1], rep[7]);
	printf("  id 0x%04x, seq 0x%04x, payload, traffic class and flow unchanged; %zu bytes\n",
	       pkt_get_be16(icmp + 4), pkt_get_be16(icmp + 6), len);

	printf("\nICMPv6 checksum (type 128 -> 129; swapping the addresses keeps the\n"
	       "pseudo-header's sum, the hop limit is not in it)\n");
	printf("  RFC 1071 over the RFC 8200 8.1 pseudo-header and the message (%zu bytes),\n"
	       "  checksum field as 0:\n",
	       plen);
	pkt_pseudo6_tail(pseudo_tail, (uint32_t)plen, PKT_PROTO_ICMPV6);
	sum = show_words("source", rep + 8, 16, -1, &words);
	sum += show_words("destination", rep + 24, 16, -1, &words);
	sum += show_words("length, 58", pseudo_tail, 8, -1, &words);
	sum += show_words("message", icmp, plen, 2, &words);
	scratch = show_fold_complement(sum, words);
	incr = show_incremental("type|code", pkt_get_be16(req_icmp + 2), pkt_get_be16(req_icmp),
				pkt_get_be16(icmp), false);
	got = pkt_get_be16(icmp + 2);
	printf("  => 0x%04x%s\n", got,
	       scratch == got && incr == got ? " (both agree)" : " MISMATCH");
	return scratch == got && incr == got;
}

/* ---- --check REQUEST REPLY ---- */

/* "=> 0x60dd: wrong, want 0x615d", after the working; false if the working disagrees. */
static bool show_verdict16(uint16_t worked, uint16_t got, uint16_t want, bool right)
{
	if (right)
		printf("  => the reply has 0x%04x: right\n", got);
	else
		printf("  => the reply has 0x%04x: WRONG, want 0x%04x\n", got, want);
	/* 0x0000 and 0xffff both pass where the data sums to 0xffff. */
	return worked == want;
}

/* The checksum working for the reply, as the check module judged it. */
static bool show_reply_csums(const uint8_t *rep, const struct rc_result *res)
{
	size_t words = 0, hl;
	bool agree = true;
	uint16_t worked;
	uint64_t sum;

	if (res->family == 4 && res->ip_csum_checked) {
		hl = (size_t)(rep[0] & 15) * 4;
		printf("\n  IPv4 header checksum\n");
		printf("  RFC 1071: sum the header's 16-bit words (%zu bytes), checksum field as "
		       "0:\n",
		       hl);
		sum = show_words("words", rep, hl, 10, &words);
		worked = show_fold_complement(sum, words);
		agree &=
			show_verdict16(worked, res->ip_csum, res->ip_csum_want, res->ip_csum_right);
	}
	if (res->family == 4 && res->icmp_csum_checked) {
		const uint8_t *icmp = rep + (rep[0] & 15) * 4;
		size_t icmp_len = res->ip_len - (size_t)(rep[0] & 15) * 4;

		printf("\n  ICMP checksum\n");
		worked = show_icmp_sum(icmp, icmp_len);
		agree &= show_verdict16(worked, res->icmp_csum, res->icmp_csum_want,
					res->icmp_csum_right);
	}
	if (res->family == 6 && res->icmp_csum_checked) {
		size_t plen = res->ip_len - PKT_IP6_HLEN;
		uint8_t tail[8];

		pkt_pseudo6_tail(tail, (uint32_t)plen, PKT_PROTO_ICMPV6);

		printf("\n  ICMPv6 checksum\n");
		printf("  RFC 1071 over the RFC 8200 8.1 pseudo-header and the message (%zu "
		       "bytes),\n"
		       "  checksum field as 0:\n",
		       plen);
		sum = show_words("source", rep + 8, 16, -1, &words);
		sum += show_words("destination", rep + 24, 16, -1, &words);
		sum += show_words("length, 58", tail, 8, -1, &words);
		sum += show_words("message", rep + PKT_IP6_HLEN, plen, 2, &words);
		worked = show_fold_complement(sum, words);
		agree &= show_verdict16(worked, res->icmp_csum, res->icmp_csum_want,
					res->icmp_csum_right);
	}
	return agree;
}

static void compare_row(const char *what, const char *mine, const char *theirs_what,
			const char *theirs, bool ok)
{
	printf("    %-4s %-16s the request's %-4s %-16s %s\n", what, mine, theirs_what, theirs,
	       ok ? "same" : "DIFFERENT");
}

/* Field by field against the request: what tun-helper's matching looks at. */
static void show_match(const uint8_t *req, size_t req_len, const uint8_t *rep, size_t rep_len)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	struct rc_echo q, r;
	size_t alen;

	printf("\n  Does it answer the request?\n");
	if (!rc_is_echo_request(req, req_len) || rc_parse_echo(req, req_len, &q)) {
		printf("    the request is not an ICMP/ICMPv6 echo request: nothing to answer\n");
		return;
	}
	if (rc_parse_echo(rep, rep_len, &r)) {
		printf("    the reply is not a whole ICMP/ICMPv6 message: nothing to compare\n");
		return;
	}
	if (r.family != q.family) {
		printf("    the reply is IPv%d, the request IPv%d\n", r.family, q.family);
		return;
	}
	alen = r.family == 4 ? 4 : 16;
	printf("    type %u, code %u: %s\n", r.type, r.code,
	       r.type == (r.family == 4 ? PKT_ICMP_ECHOREPLY : PKT_ICMPV6_ECHO_REPLY) && !r.code ?
		       "an echo reply" :
		       "NOT an echo reply");
	compare_row("src", addr_str(r.family, r.src, a), "dst", addr_str(q.family, q.dst, b),
		    !memcmp(r.src, q.dst, alen));
	compare_row("dst", addr_str(r.family, r.dst, a), "src", addr_str(q.family, q.src, b),
		    !memcmp(r.dst, q.src, alen));
	snprintf(a, sizeof(a), "0x%04x", r.id);
	snprintf(b, sizeof(b), "0x%04x", q.id);
	compare_row("id", a, "id", b, r.id == q.id);
	snprintf(a, sizeof(a), "%u", r.seq);
	snprintf(b, sizeof(b), "%u", q.seq);
	compare_row("seq", a, "seq", b, r.seq == q.seq);
	printf("    payload %zu bytes, the request's %zu: %s\n", r.payload_len, q.payload_len,
	       r.payload_len == q.payload_len && !memcmp(r.payload, q.payload, r.payload_len) ?
		       "same bytes" :
		       "DIFFERENT");
}

static int check_main(const char *req_text, const char *rep_text)
{
	static uint8_t req[PKT_MAX], rep[PKT_MAX];
	struct rc_request one;
	struct rc_result res;
	char why[160], line[RC_TEXT_MAX + 64];
	long req_len, rep_len;
	bool agree;

	req_len = pkt_hex_parse(req_text, req, sizeof(req), why, sizeof(why));
	if (req_len < 0) {
		fprintf(stderr, "pong-hex: REQUEST is not a hex packet: %s\n", why);
		return EXIT_MALFORMED;
	}
	rep_len = pkt_hex_parse(rep_text, rep, sizeof(rep), why, sizeof(why));
	if (rep_len < 0) {
		fprintf(stderr, "pong-hex: REPLY is not a hex packet: %s\n", why);
		return EXIT_MALFORMED;
	}
	one = (struct rc_request){ .pkt = req, .len = (size_t)req_len };
	rc_check_reply(rep, (size_t)rep_len, &one, 1, &res);

	if (req_len && (req[0] >> 4 == 4 ? req_len >= PKT_IP4_HLEN && (req[0] & 15) >= 5 &&
						   (size_t)(req[0] & 15) * 4 <= (size_t)req_len :
					   req[0] >> 4 == 6 && req_len >= PKT_IP6_HLEN))
		report_packet("Request", req, (size_t)req_len, req[0] >> 4, true);
	else
		printf("Request: %ld bytes, not an IPv4 or IPv6 packet\n", req_len);
	printf("\n");
	if (res.ip_len)
		report_packet("Reply", rep, (size_t)rep_len, res.family, false);
	else
		printf("Reply: %ld bytes\n", rep_len);

	printf("\nChecks (tun-helper's, on WRITE)\n");
	if (!res.family) {
		printf("  IP version %u: neither 4 nor 6\n", rep_len ? rep[0] >> 4 : 0);
	} else {
		printf("  IP version %d: right\n", res.family);
		if (res.ip_len)
			printf("  lengths: the IP header says %zu bytes, %ld given: %s\n",
			       res.ip_len, rep_len,
			       res.ip_len == (size_t)rep_len ? "right" : "WRONG");
	}
	agree = show_reply_csums(rep, &res);
	if (res.echo)
		show_match(req, (size_t)req_len, rep, (size_t)rep_len);

	printf("\nVerdict: %s\n", rc_answer(&res, false, line, sizeof(line)));
	if (res.findings) {
		printf("  (tun-helper writes it anyway; with --strict it answers\n"
		       "  %s)\n",
		       rc_answer(&res, true, line, sizeof(line)));
		if (res.ip_csum_checked && !res.ip_csum_right)
			printf("  The kernel drops an IPv4 packet with a wrong header checksum "
			       "without a\n"
			       "  word (its InCsumErrors counter goes up): the ping times out.\n");
	}
	if (!agree) {
		fprintf(stderr, "pong-hex: internal error: the working shown disagrees with the "
				"check\n");
		return EXIT_MALFORMED;
	}
	return res.findings ? EXIT_WRONG_REPLY : 0;
}

/* Malformed: the reasons that mean "this is not a whole IP packet". */
static bool is_malformed(enum xdpong_reason r)
{
	return r == XDPONG_R_drop_truncated || r == XDPONG_R_drop_bad_version ||
	       r == XDPONG_R_drop_bad_ihl || r == XDPONG_R_drop_bad_length;
}

static const char *malformed_detail(const uint8_t *p, size_t len, char *buf, size_t size)
{
	bool v6 = len && p[0] >> 4 == 6;

	if (len < (v6 ? PKT_IP6_HLEN : PKT_IP4_HLEN))
		snprintf(buf, size, "%zu bytes: shorter than an IPv%d header (%d bytes)", len,
			 v6 ? 6 : 4, v6 ? PKT_IP6_HLEN : PKT_IP4_HLEN);
	else if (!v6 && p[0] >> 4 != 4)
		snprintf(buf, size, "IP version %u (first byte 0x%02x): neither 4 nor 6", p[0] >> 4,
			 p[0]);
	else if (!v6 && (p[0] & 15) < 5)
		snprintf(buf, size, "IPv4 header length %u words: below 5", p[0] & 15);
	else if (!v6)
		snprintf(buf, size, "IPv4 total length %u with header %u and %zu bytes given",
			 pkt_get_be16(p + 2), (p[0] & 15) * 4, len);
	else
		snprintf(buf, size,
			 "IPv6 payload length %u: 40 + %u bytes beyond the %zu given, "
			 "or below an ICMPv6 header",
			 pkt_get_be16(p + 4), pkt_get_be16(p + 4), len);
	return buf;
}

/* A tcpdump -x hex line: blanks, then an offset label such as "0x0010:". */
static bool is_tcpdump_hex_line(const char *line)
{
	const char *p = line;

	if (*p != ' ' && *p != '\t')
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	if (p[0] != '0' || p[1] != 'x')
		return false;
	for (p += 2; isxdigit((unsigned char)*p); p++)
		;
	return *p == ':';
}

/*
 * tcpdump -x output has summary lines between the hex: if any line looks
 * like tcpdump's hex, keep only those (in place).
 */
static void keep_tcpdump_hex(char *text)
{
	char *in = text, *out = text, *l = text;
	bool found = false;

	while (l && *l && !found) {
		found = is_tcpdump_hex_line(l);
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	if (!found)
		return;
	while (*in) {
		char *nl = strchr(in, '\n');
		size_t n = nl ? (size_t)(nl - in + 1) : strlen(in);

		if (is_tcpdump_hex_line(in)) {
			memmove(out, in, n);
			out += n;
		}
		in += n;
	}
	*out = '\0';
}

static char *read_all(FILE *f)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);

	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (got == 0)
			break;
		if (n == cap) {
			char *nb;

			if (cap >= TEXT_MAX) {
				free(buf);
				return NULL;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* The command line. */
struct opts {
	bool reply_only, check;
	struct up_addr ours[MAX_PREFIXES];
	struct up_config cfg;
};

/* 1. The options. -1 to go on, else main's exit code. */
static int args_parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "reply-only", no_argument, NULL, 'r' },
		{ "addr", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "cra:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->check = true;
			break;
		case 'r':
			o->reply_only = true;
			break;
		case 'a':
			if (up_addr_arg("pong-hex", optarg, &o->cfg, o->ours, MAX_PREFIXES))
				return EXIT_USAGE;
			o->cfg.any_dst = false;
			break;
		default: /* 'h', or a bad option */
			return cli_help(c, usage);
		}
	}
	return -1;
}

/* 2. The hex text: the n arguments joined by spaces, else all of stdin. */
static int input_read(int n, char **args, char **text)
{
	if (n > 0) {
		size_t total = 0;

		for (int i = 0; i < n; i++)
			total += strlen(args[i]) + 1;
		*text = malloc(total + 1);
		if (!*text)
			return EXIT_MALFORMED;
		(*text)[0] = '\0';
		for (int i = 0; i < n; i++) {
			strcat(*text, args[i]);
			strcat(*text, " ");
		}
		return 0;
	}
	if (isatty(STDIN_FILENO))
		fprintf(stderr, "pong-hex: reading hex from stdin (see --help)\n");
	*text = read_all(stdin);
	if (!*text) {
		fprintf(stderr, "pong-hex: input too long (more than %d characters)\n", TEXT_MAX);
		return EXIT_MALFORMED;
	}
	return 0;
}

/* 3. xdpong's verdict on req and, if one is due, the reply with its working. */
static int reply_main(const struct opts *o, const uint8_t *req, size_t len)
{
	static uint8_t rep[PKT_MAX];
	int family = req[0] >> 4 == 6 ? 6 : 4;
	enum xdpong_reason r;
	char why[160];
	bool ok;

	memcpy(rep, req, len);
	r = up_answer(&o->cfg, rep, len);
	if (is_malformed(r)) {
		fprintf(stderr, "pong-hex: malformed packet: %s (%s)\n",
			malformed_detail(req, len, why, sizeof(why)), reason_names[r]);
		return EXIT_MALFORMED;
	}
	if (o->reply_only) {
		if (!up_is_reply(r))
			return EXIT_NO_REPLY;
		pkt_hexline(stdout, rep, len);
		return fflush(stdout) ? EXIT_MALFORMED : 0;
	}

	report_packet("Request", req, len, family, true);
	printf("\nVerdict: %s (%s)\n", reason_names[r], reason_descs[r]);
	if (!up_is_reply(r)) {
		printf("No reply is due: xdpong would %s it.\n",
		       reason_outcomes[r] == XDPONG_PASSED ? "pass it to the kernel, and a "
							     "user-space stack ignore" :
							     "drop");
		return EXIT_NO_REPLY;
	}
	ok = family == 4 ? report_reply4(req, rep, len) : report_reply6(req, rep, len);
	printf("\nReply (%zu bytes):\n", len);
	print_hex_lines(rep, len);
	if (!ok) {
		fprintf(stderr, "pong-hex: internal error: the checksum workings disagree with the "
				"reply\n");
		return EXIT_MALFORMED;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct opts o = { .cfg = { .any_dst = true, .addrs = o.ours } };
	static uint8_t req[PKT_MAX];
	char why[160], *text;
	long len;
	int ret;

	ret = args_parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (o.check) {
		if (argc - optind != 2 || o.reply_only || o.cfg.n_addrs) {
			fprintf(stderr, "pong-hex: --check takes REQUEST and REPLY, two hex "
					"arguments (quote each), and no other option\n");
			return EXIT_USAGE;
		}
		return check_main(argv[optind], argv[optind + 1]);
	}
	ret = input_read(argc - optind, argv + optind, &text);
	if (ret)
		return ret;
	keep_tcpdump_hex(text);
	len = pkt_hex_parse(text, req, sizeof(req), why, sizeof(why));
	free(text);
	if (len < 0) {
		fprintf(stderr, "pong-hex: not a hex packet: %s\n", why);
		return EXIT_MALFORMED;
	}
	return reply_main(&o, req, (size_t)len);
}
