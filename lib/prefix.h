/* SPDX-License-Identifier: GPL-2.0 */
/* Address prefixes: the loader's, the tools' and the tests' one kind. */
#ifndef XDPONG_PREFIX_H
#define XDPONG_PREFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h> /* AF_INET, AF_INET6 */
#include <linux/types.h>

struct prefix {
	int family; /* AF_INET or AF_INET6 (not the IP header's 4 or 6) */
	unsigned int len;
	__u8 addr[16]; /* network order */
};

/* Parse "192.0.2.1", "192.0.2.0/24", "2001:db8::1/64". 0 or -1. */
int prefix_parse(const char *text, struct prefix *out);
/* "192.0.2.0/24" into buf (INET6_ADDRSTRLEN + 4 bytes is enough). */
const char *prefix_str(const struct prefix *p, char *buf, size_t size);
/* Zero the host bits, as the kernel's LPM trie compares only prefix bits. */
void prefix_mask(struct prefix *p);

/* Whether addr (family AF_INET or AF_INET6, network order) lies in one
 * of the n prefixes. */
bool prefix_match(const struct prefix *p, size_t n, int family, const __u8 *addr);

#endif /* XDPONG_PREFIX_H */
