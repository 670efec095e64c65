// SPDX-License-Identifier: GPL-2.0
/* Messages on stderr, and libbpf's and libxdp's print callbacks. */
#include <stdarg.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "core.h"

int verbose;

static void vsay(const char *fmt, va_list ap)
{
	fputs("xdpong: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	return -1;
}

void log_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

/* Both libraries' levels: warnings with -v, debug with -vv. */
static int lib_print(int is_debug, const char *fmt, va_list ap)
{
	if (!verbose || (is_debug && verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return lib_print(level == LIBBPF_DEBUG, fmt, ap);
}

static int print_libxdp(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	return lib_print(level == LIBXDP_DEBUG, fmt, ap);
}

void log_setup_libs(void)
{
	libbpf_set_print(print_libbpf);
	libxdp_set_print(print_libxdp);
}
