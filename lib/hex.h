/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Bytes as hex and back: dumps and diffs for the tests, a parser for the tools. */
#ifndef XDPONG_LIB_HEX_H
#define XDPONG_LIB_HEX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* 16 bytes a line, offset first, each line starting with indent. */
void pkt_hexdump(FILE *f, const char *indent, const uint8_t *buf, size_t len);

/* buf as one line of hex digits, no spaces: for pasting into a fixture. */
void pkt_hexline(FILE *f, const uint8_t *buf, size_t len);

/*
 * Compare got with want. If equal, print nothing and return 0; else print
 * the 16-byte lines that differ as a pair of "got"/"want" lines with the
 * differing bytes marked, plus a length note, and return the number of
 * differing bytes (lengths differing count as one).
 */
size_t pkt_hexdiff(FILE *f, const char *indent, const uint8_t *got, size_t got_len,
		   const uint8_t *want, size_t want_len);

/*
 * Hex text to bytes: whitespace between tokens, a "0x" before a token and
 * tokens ending in ':' (tcpdump -x offsets such as "0x0010:") are allowed;
 * every token must hold whole bytes. Returns the byte count, or -1 with a
 * message in why (e.g. "odd number of hex digits in '450'").
 */
long pkt_hex_parse(const char *text, uint8_t *buf, size_t cap, char *why, size_t why_len);

#endif /* XDPONG_LIB_HEX_H */
