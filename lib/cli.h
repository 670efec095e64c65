/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tools (tools/tun, tools/bench) and the test programs (tests/) do alike
 * around their work: stop on a signal, answer --help and a bad option.
 */
#ifndef XDPONG_LIB_CLI_H
#define XDPONG_LIB_CLI_H

#include <stdio.h>

/* Bad usage, as iproute2 and the loader say it (EXIT_USAGE there). */
#define CLI_EXIT_USAGE 2

/*
 * on_stop for SIGINT, SIGTERM and SIGHUP, without SA_RESTART: a signal
 * ends a blocking read or wait (EINTR), so the caller sees its flag.
 */
void cli_stop_signals(void (*on_stop)(int sig));

/*
 * The end of a getopt switch: 'h' prints usage on stdout and is exit
 * code 0; any other option prints it on stderr: CLI_EXIT_USAGE.
 */
int cli_help(int opt, void (*usage)(FILE *f));

#endif /* XDPONG_LIB_CLI_H */
