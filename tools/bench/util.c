// SPDX-License-Identifier: GPL-2.0
/* The bench's helpers: see util.h. */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "util.h"

volatile sig_atomic_t bench_stop;
int bench_verbose;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("bench: ", fmt, ap);
	va_end(ap);
}

void dbg(const char *fmt, ...)
{
	va_list ap;

	if (!bench_verbose)
		return;
	va_start(ap, fmt);
	vmsg("bench: ", fmt, ap);
	va_end(ap);
}

int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("bench: error: ", fmt, ap);
	va_end(ap);
	return -1;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int enter_ns(int nsfd)
{
	if (setns(nsfd, CLONE_NEWNET))
		return fail("setns: %s", strerror(errno));
	return 0;
}

int pin_self_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return fail("cannot pin to CPU %d: %s", cpu, strerror(errno));
	return 0;
}
