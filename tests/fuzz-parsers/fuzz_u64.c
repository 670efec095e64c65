// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: lib/parse.c's parse_u64, behind every number on
 * the command line (--latency-sample, stats COUNT, prefix lengths, rates).
 *
 * Input: 8 bytes min, 8 bytes max (little endian), then the text (cut at
 * its first NUL). Invariant: parse_u64 accepts exactly a non-empty run of
 * decimal digits whose value fits in 64 bits and lies in [min, max], and
 * returns that value.
 * The rule: docs/input-rules.md, "Numbers".
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "core/core.h"

static bool ref_u64(const char *t, unsigned long long min, unsigned long long max,
		    unsigned long long *out)
{
	unsigned long long v = 0;

	if (!*t)
		return false;
	for (; *t; t++) {
		unsigned int d = (unsigned char)*t - '0';

		if (d > 9)
			return false;
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v))
			return false;
	}
	if (v < min || v > max)
		return false;
	*out = v;
	return true;
}

static unsigned long long le64(const uint8_t *p)
{
	unsigned long long v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long long min, max, got = 0, want = 0;
	char *text;
	bool ok, ref;

	if (size < 16)
		return 0;
	min = le64(data);
	max = le64(data + 8);
	/* Small bounds are the interesting ones; the raw bytes are all huge. */
	if (data[0] & 0x80)
		min &= 0xffff;
	if (data[8] & 0x80)
		max &= 0xffff;
	text = fuzz_cstr(data + 16, size - 16);
	ok = parse_u64(text, min, max, &got) == 0;
	ref = ref_u64(text, min, max, &want);
	FUZZ_CHECK(ok == ref, "parse_u64(\"%s\", %llu, %llu) %s, the reference %s",
		   text, min, max, ok ? "accepted" : "refused",
		   ref ? "accepts" : "refuses");
	if (ok)
		FUZZ_CHECK(got == want, "parse_u64(\"%s\") = %llu, expected %llu", text,
			   got, want);
	FUZZ_CHECK(parse_u64(NULL, 0, ~0ULL, &got) == -1, "parse_u64(NULL) accepted");
	free(text);
	return 0;
}
