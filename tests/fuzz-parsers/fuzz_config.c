// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: loader/service/conffile.c's config_load, the reader of
 * /etc/xdpong/xdpong.conf (`run --config`, `config check`, SIGHUP).
 * The rule: docs/input-rules.md, "Config files".
 *
 * The input is the file's bytes. The grammar of the values is the other
 * targets' (prefixes, numbers, options); what this one holds the reader
 * to are properties every input must have:
 *  1. config_load gives 0 with no error text, or -1 with one;
 *  2. an error that names a line names one the file has (1 to its number
 *     of lines): a line inih cut in two would be counted twice;
 *  3. lines after the end change nothing before it: appending a comment
 *     line gives the same result and the same error;
 *  4. an accepted file followed by "[global]" and an unknown key is
 *     refused, at that key's line: nothing before it hides an error.
 * Inputs with "include" are skipped: they would read this machine's files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"
#include "service/service.h"

#define MAX_INPUT 16384

static char path[64];
static int fd = -1;

/* The file's content becomes data; config_load reads it by path. */
static void file_set(const char *data, size_t n)
{
	if (fd < 0) {
		fd = memfd_create("xdpong-fuzz.conf", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, n, 0) != (ssize_t)n)
		abort();
}

struct outcome {
	int ret;
	char error[512];
};

static struct outcome *load(const char *data, size_t n)
{
	static struct config c;
	static struct outcome o;

	file_set(data, n);
	o.ret = config_load(path, &c);
	snprintf(o.error, sizeof(o.error), "%s", c.error);
	if (!o.ret)
		config_free(&c);
	return &o;
}

static size_t count_lines(const char *data, size_t n)
{
	size_t lines = 0;

	for (size_t i = 0; i < n; i++)
		lines += data[i] == '\n';
	return lines + (n && data[n - 1] != '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	static const char comment[] = "\n; a comment after the end\n";
	static const char unknown[] = "\n[global]\nno-such-key = 1\n";
	static char buf[MAX_INPUT + 64];
	const char *data = (const char *)in;
	struct outcome first, *o;
	size_t plen, newlines = 0;
	char *end;
	long line;

	if (size > MAX_INPUT || memmem(data, size, "include", 7))
		return 0;
	first = *load(data, size);
	/* 1 */
	FUZZ_CHECK(first.ret == 0 || first.ret == -1, "config_load returned %d", first.ret);
	FUZZ_CHECK(!first.ret == !first.error[0], "returned %d with error \"%s\"", first.ret,
		   first.error);
	/* 2 */
	plen = strlen(path);
	if (first.ret && !strncmp(first.error, path, plen) && first.error[plen] == ':') {
		line = strtol(first.error + plen + 1, &end, 10);
		if (end != first.error + plen + 1 && *end == ':')
			FUZZ_CHECK(line >= 1 && (size_t)line <= count_lines(data, size),
				   "error at line %ld of a file of %zu lines: %s", line,
				   count_lines(data, size), first.error);
	}
	/* 3 */
	memcpy(buf, data, size);
	memcpy(buf + size, comment, sizeof(comment) - 1);
	o = load(buf, size + sizeof(comment) - 1);
	FUZZ_CHECK(o->ret == first.ret && !strcmp(o->error, first.error),
		   "a comment line after the end changed \"%s\" into \"%s\"", first.error,
		   o->error);
	/* 4 */
	if (first.ret)
		return 0;
	for (size_t i = 0; i < size; i++)
		newlines += data[i] == '\n';
	memcpy(buf + size, unknown, sizeof(unknown) - 1);
	o = load(buf, size + sizeof(unknown) - 1);
	snprintf(buf, sizeof(buf), "%s:%zu: unknown key 'no-such-key'", path, newlines + 3);
	FUZZ_CHECK(o->ret == -1 && !strncmp(o->error, buf, strlen(buf)),
		   "accepted file + an unknown key at line %zu: \"%s\"", newlines + 3, o->error);
	return 0;
}
