// SPDX-License-Identifier: GPL-2.0
/* The tools' and test programs' common edges: see cli.h. */
#include <signal.h>
#include <string.h>
#include "cli.h"

void cli_stop_signals(void (*on_stop)(int sig))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int cli_help(int opt, void (*usage)(FILE *f))
{
	usage(opt == 'h' ? stdout : stderr);
	return opt == 'h' ? 0 : CLI_EXIT_USAGE;
}
