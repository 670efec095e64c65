/* SPDX-License-Identifier: GPL-2.0 */
/* Messages on stderr, and how much libbpf and libxdp may say. */
#ifndef XDPONG_LOG_H
#define XDPONG_LOG_H

/* -v: 1 says more, 2 adds libbpf's and libxdp's debug output. */
extern int verbose;

/*
 * "xdpong: <message>" on stderr. log_error returns -1, so that an error
 * path reads `return log_error(...)`; log_note is for what is not a
 * failure (a fallback taken, a warning) and returns nothing.
 */
int log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Route libbpf's and libxdp's messages through -v. */
void log_setup_libs(void);

#endif /* XDPONG_LOG_H */
