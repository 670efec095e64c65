/* SPDX-License-Identifier: GPL-2.0 */
/* Untrusted text to numbers and listen addresses (docs/input-rules.md). */
#ifndef XDPONG_PARSE_H
#define XDPONG_PARSE_H

/* Plain decimal in [min, max]: no sign, no hex, no spaces. 0 or -1. */
int parse_u64(const char *text, unsigned long long min, unsigned long long max,
	      unsigned long long *out);
/* Decimal seconds ("5", "0.25") in [min, max]: no hex, no exponent. 0 or -1. */
int parse_seconds(const char *text, double min, double max, double *out);

/* "127.0.0.1:9435" or "[::1]:9435" (IP literals only: no names to look
 * up at start) into out (NULL: only check). 0 or -1. */
struct sockaddr_storage;
int listen_parse(const char *text, struct sockaddr_storage *out);

#endif /* XDPONG_PARSE_H */
