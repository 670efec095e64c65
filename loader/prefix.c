// SPDX-License-Identifier: GPL-2.0
/* Untrusted text to numbers and prefixes; strict, so typos are errors. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "prefix.h"

/*
 * The rules for numbers and prefixes: docs/input-rules.md (checked by
 * tests/fuzz-parsers/fuzz_u64.c and fuzz_prefix.c).
 * strtoull alone takes signs, spaces and hex: check the digits first.
 */
int parse_u64(const char *text, unsigned long long min, unsigned long long max,
	      unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!text || !*text || strspn(text, "0123456789") != strlen(text))
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_seconds(const char *text, double min, double max, double *out)
{
	size_t ints = strspn(text, "0123456789"), fracs = 0;
	double v;
	char *end;

	if (text[ints] == '.')
		fracs = strspn(text + ints + 1, "0123456789");
	/* "5", "5.", ".5", "0.25"; never "0x10", "1e3", "inf" or " 5". */
	if (!ints && !fracs)
		return -1;
	if (text[ints] && !(text[ints] == '.' && !text[ints + 1 + fracs]))
		return -1;
	errno = 0;
	v = strtod(text, &end);
	if (errno || *end || !(v >= min && v <= max))
		return -1;
	*out = v;
	return 0;
}

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

int listen_parse(const char *text, struct sockaddr_storage *out)
{
	struct sockaddr_storage ss = { 0 };
	char host[INET6_ADDRSTRLEN + 2];
	unsigned long long port;
	const char *colon;
	size_t n;

	if (!text)
		return -1;
	colon = strrchr(text, ':');
	if (!colon || colon == text)
		return -1;
	n = colon - text;
	if (n >= sizeof(host))
		return -1;
	memcpy(host, text, n);
	host[n] = '\0';
	if (parse_u64(colon + 1, 1, 65535, &port))
		return -1;
	if (host[0] == '[') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		if (n < 3 || host[n - 1] != ']')
			return -1;
		host[n - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) != 1)
			return -1;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			return -1;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
	}
	if (out)
		*out = ss;
	return 0;
}
