/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bench's helpers: messages, the clock, the stop flag, namespaces and
 * CPUs. Below every other file of the driver: util.c calls none of them.
 */
#ifndef XDPONG_BENCH_UTIL_H
#define XDPONG_BENCH_UTIL_H

#include <signal.h>

/* Set by SIGINT/SIGTERM: every loop checks it and unwinds to teardown. */
extern volatile sig_atomic_t bench_stop;
extern int bench_verbose;

/* Progress and errors go to stderr; stdout holds the table or the JSON. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "bench: error: ..." and return -1. */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* CLOCK_MONOTONIC in seconds. */
double now_s(void);

/* Move this thread into the network namespace nsfd. 0 or -1 (said). */
int enter_ns(int nsfd);
/* Pin this thread to one CPU. 0 or -1 (said). */
int pin_self_cpu(int cpu);

#endif /* XDPONG_BENCH_UTIL_H */
