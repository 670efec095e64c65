// SPDX-License-Identifier: GPL-2.0
/* Untrusted text to numbers and listen addresses; strict, so typos are errors. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "parse.h"

/*
 * The rules for numbers and prefixes: docs/input-rules.md (checked by
 * tests/fuzz-parsers/fuzz_u64.c; prefixes: prefix.c)).
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
