// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: lib/prefix.c's prefix_parse, prefix_str and
 * prefix_mask, the parsers of --addr and `xdpong addr` arguments.
 *
 * The input, cut at its first NUL, is the text. Invariants:
 *  - prefix_parse accepts exactly what inet_pton (IPv4 first, then IPv6)
 *    accepts before the first '/', followed by nothing or by '/' and a
 *    decimal length (digits only) no longer than the address; the result
 *    is the address inet_pton wrote and that length. Texts of 54 bytes
 *    or more are refused (prefix_parse's buffer: INET6_ADDRSTRLEN + 8).
 *  - prefix_str(prefix_parse(x)) parses back to the same prefix, and
 *    printing that gives the same text; a short buffer gets a
 *    NUL-terminated head of it.
 *  - prefix_mask keeps the first len bits, zeroes every later bit of the
 *    address, touches nothing else, and a second mask changes nothing.
 * Inputs of 18 bytes or more are also taken as a raw prefix (family,
 * length, 16 address bytes) for prefix_mask and prefix_str alone.
 * The rule: docs/input-rules.md, "Prefixes".
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "fuzz.h"
#include "core/core.h"

#define PREFIX_TEXT_MAX (INET6_ADDRSTRLEN + 8)

/* The reference: inet_pton plus a plain decimal length. */
static bool ref_parse(const char *text, struct prefix *out)
{
	const char *slash = strchr(text, '/');
	size_t alen = slash ? (size_t)(slash - text) : strlen(text);
	char addr[128];
	unsigned long long len = 0;

	memset(out, 0, sizeof(*out));
	if (alen >= sizeof(addr))
		return false;
	memcpy(addr, text, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, out->addr) == 1) {
		out->family = AF_INET;
		out->len = 32;
	} else if (inet_pton(AF_INET6, addr, out->addr) == 1) {
		out->family = AF_INET6;
		out->len = 128;
	} else {
		return false;
	}
	if (!slash)
		return true;
	if (!slash[1])
		return false;
	for (const char *c = slash + 1; *c; c++) {
		if (*c < '0' || *c > '9')
			return false;
		len = len * 10 + (*c - '0');
		if (len > out->len)
			return false;
	}
	out->len = len;
	return true;
}

static bool prefix_same(const struct prefix *a, const struct prefix *b)
{
	return a->family == b->family && a->len == b->len &&
	       !memcmp(a->addr, b->addr, sizeof(a->addr));
}

static bool bit_at(const __u8 *addr, unsigned int i)
{
	return addr[i / 8] >> (7 - i % 8) & 1;
}

static void check_mask(const struct prefix *p)
{
	unsigned int bits = p->family == AF_INET ? 32 : 128;
	struct prefix m = *p, m2;

	prefix_mask(&m);
	FUZZ_CHECK(m.family == p->family && m.len == p->len,
		   "prefix_mask changed family/len: %d/%u -> %d/%u", p->family,
		   p->len, m.family, m.len);
	for (unsigned int i = 0; i < bits; i++) {
		bool want = i < p->len ? bit_at(p->addr, i) : false;

		FUZZ_CHECK(bit_at(m.addr, i) == want,
			   "prefix_mask of len %u: bit %u is %d, expected %d", p->len,
			   i, bit_at(m.addr, i), want);
	}
	FUZZ_CHECK(!memcmp(m.addr + bits / 8, p->addr + bits / 8, 16 - bits / 8),
		   "prefix_mask wrote past the %u address bits", bits);
	m2 = m;
	prefix_mask(&m2);
	FUZZ_CHECK(prefix_same(&m, &m2), "prefix_mask is not idempotent (len %u)",
		   p->len);
}

static void check_str(const struct prefix *p, char *full, size_t cap)
{
	char small[64];
	size_t n;

	FUZZ_CHECK(prefix_str(p, full, cap) == full, "prefix_str returned another buffer");
	n = strnlen(full, cap);
	FUZZ_CHECK(n < cap, "prefix_str left no NUL in %zu bytes", cap);
	/* snprintf semantics: every shorter buffer gets a terminated head. */
	for (size_t size = 1; size <= n + 1 && size <= sizeof(small); size += 7) {
		memset(small, 'X', sizeof(small));
		prefix_str(p, small, size);
		FUZZ_CHECK(strlen(small) == size - 1 && !strncmp(small, full, size - 1),
			   "prefix_str into %zu bytes gave '%s' (full '%s')", size, small,
			   full);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct prefix got, want;
	bool ok, ref;

	ok = prefix_parse(text, &got) == 0;
	ref = strlen(text) < PREFIX_TEXT_MAX && ref_parse(text, &want);
	FUZZ_CHECK(ok == ref, "prefix_parse(\"%s\") %s, the reference %s", text,
		   ok ? "accepted" : "refused", ref ? "accepts" : "refuses");
	if (ok) {
		char buf[INET6_ADDRSTRLEN + 8], again[INET6_ADDRSTRLEN + 8];
		struct prefix back;

		FUZZ_CHECK(prefix_same(&got, &want),
			   "prefix_parse(\"%s\") gave family %d len %u, reference %d len %u",
			   text, got.family, got.len, want.family, want.len);
		check_str(&got, buf, sizeof(buf));
		FUZZ_CHECK(prefix_parse(buf, &back) == 0 && prefix_same(&got, &back),
			   "\"%s\" printed as \"%s\", which does not parse back to it", text,
			   buf);
		prefix_str(&back, again, sizeof(again));
		FUZZ_CHECK(!strcmp(buf, again), "\"%s\" printed twice: \"%s\" then \"%s\"",
			   text, buf, again);
		check_mask(&got);
	}
	free(text);

	if (size >= 18) {
		struct prefix raw = { 0 };
		char buf[INET6_ADDRSTRLEN + 8];

		raw.family = data[0] & 1 ? AF_INET6 : AF_INET;
		raw.len = data[1] % ((raw.family == AF_INET ? 32 : 128) + 1);
		memcpy(raw.addr, data + 2, raw.family == AF_INET ? 4 : 16);
		check_mask(&raw);
		check_str(&raw, buf, sizeof(buf));
	}
	return 0;
}
