// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Bytes as hex and back: see hex.h. */
#include <ctype.h>
#include <stdbool.h>

#include "hex.h"

void pkt_hexdump(FILE *f, const char *indent, const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i += 16) {
		fprintf(f, "%s%04zx:", indent, i);
		for (size_t j = i; j < i + 16 && j < len; j++)
			fprintf(f, " %02x", buf[j]);
		fputc('\n', f);
	}
}

void pkt_hexline(FILE *f, const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		fprintf(f, "%02x", buf[i]);
	fputc('\n', f);
}

#define HEXDIFF_MAX_LINES 12

/* One byte as " xx", or blanks past the end of buf. */
static void hexbyte(FILE *f, const uint8_t *buf, size_t len, size_t i)
{
	if (i < len)
		fprintf(f, " %02x", buf[i]);
	else
		fputs("   ", f);
}

size_t pkt_hexdiff(FILE *f, const char *indent, const uint8_t *got, size_t got_len,
		   const uint8_t *want, size_t want_len)
{
	size_t n = got_len > want_len ? got_len : want_len;
	size_t ndiff = 0, lines = 0, skipped = 0, last;

	for (size_t i = 0; i < n; i += 16) {
		bool differs = false;

		for (size_t j = i; j < i + 16 && j < n; j++) {
			if (j >= got_len || j >= want_len || got[j] != want[j]) {
				differs = true;
				if (j < got_len && j < want_len)
					ndiff++;
			}
		}
		if (!differs)
			continue;
		if (lines++ >= HEXDIFF_MAX_LINES) {
			skipped++;
			continue;
		}
		fprintf(f, "%s%04zx got: ", indent, i);
		for (size_t j = i; j < i + 16 && j < n; j++)
			hexbyte(f, got, got_len, j);
		fprintf(f, "\n%s    want: ", indent);
		for (size_t j = i; j < i + 16 && j < n; j++)
			hexbyte(f, want, want_len, j);
		fprintf(f, "\n%s          ", indent);
		last = i;
		for (size_t j = i; j < i + 16 && j < n; j++)
			if (j >= got_len || j >= want_len || got[j] != want[j])
				last = j;
		for (size_t j = i; j <= last; j++)
			fputs(j < got_len && j < want_len && got[j] == want[j] ? "   " : " ^^", f);
		fputc('\n', f);
	}
	if (skipped)
		fprintf(f, "%s(%zu more differing lines)\n", indent, skipped);
	if (got_len != want_len) {
		fprintf(f, "%slength: got %zu, want %zu\n", indent, got_len, want_len);
		ndiff++;
	}
	return ndiff;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

long pkt_hex_parse(const char *text, uint8_t *buf, size_t cap, char *why, size_t why_len)
{
	const char *p = text, *tok, *end;
	size_t n = 0;

	while (*p) {
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		tok = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		end = p;
		if (end[-1] == ':') /* an offset label such as tcpdump's "0x0010:" */
			continue;
		if (end - tok >= 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X'))
			tok += 2;
		if (tok == end) {
			snprintf(why, why_len, "'0x' without digits");
			return -1;
		}
		if ((end - tok) % 2) {
			snprintf(why, why_len, "odd number of hex digits in '%.*s'",
				 (int)(end - tok > 40 ? 40 : end - tok), tok);
			return -1;
		}
		for (; tok < end; tok += 2) {
			int hi = hexval(tok[0]), lo = hexval(tok[1]);

			if (hi < 0 || lo < 0) {
				snprintf(why, why_len, "'%c' at offset %zu is not a hex digit",
					 hi < 0 ? tok[0] : tok[1],
					 (size_t)(tok - text) + (hi < 0 ? 0 : 1));
				return -1;
			}
			if (n >= cap) {
				snprintf(why, why_len, "longer than %zu bytes", cap);
				return -1;
			}
			buf[n++] = (uint8_t)(hi << 4 | lo);
		}
	}
	if (!n) {
		snprintf(why, why_len, "no hex digits");
		return -1;
	}
	return (long)n;
}
