// SPDX-License-Identifier: GPL-2.0
/* Untrusted text to prefixes, and prefixes back to text and matched. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prefix.h"
#include "parse.h"

int prefix_parse(const char *text, struct prefix *out)
{
	char buf[INET6_ADDRSTRLEN + 8];
	unsigned long long len;
	char *slash;

	if (!text || strlen(text) >= sizeof(buf))
		return -1;
	strcpy(buf, text);
	memset(out, 0, sizeof(*out));
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, out->addr) == 1) {
		out->family = AF_INET;
		out->len = 32;
	} else if (inet_pton(AF_INET6, buf, out->addr) == 1) {
		out->family = AF_INET6;
		out->len = 128;
	} else {
		return -1;
	}
	if (slash) {
		if (parse_u64(slash + 1, 0, out->len, &len))
			return -1;
		out->len = len;
	}
	return 0;
}

void prefix_mask(struct prefix *p)
{
	unsigned int bytes = p->family == AF_INET ? 4 : 16;

	for (unsigned int i = 0; i < bytes; i++) {
		unsigned int bit = i * 8;

		if (bit >= p->len)
			p->addr[i] = 0;
		else if (p->len - bit < 8)
			p->addr[i] &= (__u8)(0xff << (8 - (p->len - bit)));
	}
}

const char *prefix_str(const struct prefix *p, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(p->family, p->addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	snprintf(buf, size, "%s/%u", a, p->len);
	return buf;
}

bool prefix_match(const struct prefix *p, size_t n, int family, const __u8 *addr)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int bits = p[i].len, full = bits / 8;

		if (p[i].family != family || bits > (family == AF_INET ? 32u : 128u))
			continue;
		if (memcmp(p[i].addr, addr, full))
			continue;
		if (bits % 8) {
			__u8 mask = (__u8)(0xff << (8 - bits % 8));

			if ((p[i].addr[full] & mask) != (addr[full] & mask))
				continue;
		}
		return true;
	}
	return false;
}
