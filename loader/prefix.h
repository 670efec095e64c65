/* SPDX-License-Identifier: GPL-2.0 */
/* Untrusted text to numbers and prefixes, and prefixes back to text. */
#ifndef XDPONG_PREFIX_H
#define XDPONG_PREFIX_H

#include <stddef.h>
#include <linux/types.h>

struct prefix {
	int family; /* AF_INET or AF_INET6 */
	unsigned int len;
	__u8 addr[16];
};

/* Parse "192.0.2.1", "192.0.2.0/24", "2001:db8::1/64". 0 or -1. */
int prefix_parse(const char *text, struct prefix *out);
/* "192.0.2.0/24" into buf (INET6_ADDRSTRLEN + 4 bytes is enough). */
const char *prefix_str(const struct prefix *p, char *buf, size_t size);
/* Zero the host bits, as the kernel's LPM trie compares only prefix bits. */
void prefix_mask(struct prefix *p);

/* Plain decimal in [min, max]: no sign, no hex, no spaces. 0 or -1. */
int parse_u64(const char *text, unsigned long long min, unsigned long long max,
	      unsigned long long *out);
/* Decimal seconds ("5", "0.25") in [min, max]: no hex, no exponent. 0 or -1. */
int parse_seconds(const char *text, double min, double max, double *out);


/* "127.0.0.1:9435" or "[::1]:9435" (IP literals only: no names to look
 * up at start) into out (NULL: only check). 0 or -1. */
struct sockaddr_storage;
int listen_parse(const char *text, struct sockaddr_storage *out);

#endif /* XDPONG_PREFIX_H */
