// SPDX-License-Identifier: GPL-2.0
/* xdpong config check: validate a config file, touching nothing. */
#include <stdlib.h>
#include <string.h>
#include "cmd.h"

/* A [probe] section in a line: what, how often, to what, and its options. */
static void print_probe(const struct config_probe *cp)
{
	printf("  probe %s: %s every %g s to %s", cp->name, cp->icmp ? "ICMP" : "STAMP",
	       cp->interval, cp->targets);
	if (cp->family)
		printf(", IPv%c only", cp->family == AF_INET ? '4' : '6');
	if (cp->source[0])
		printf(", from %s", cp->source);
	if (cp->ttl >= 0)
		printf(", ttl %d", cp->ttl);
	if (cp->tos >= 0)
		printf(", tos %d", cp->tos);
	printf("\n");
}

static int config_main(const struct opts *o)
{
	const char *path = o->n_args > 1 ? o->args[1] : CONFIG_DEFAULT;
	struct config *c;
	int ret = 1;

	if (strcmp(o->args[0], "check")) {
		log_error("unknown config command '%s' (expected check)", o->args[0]);
		return EXIT_USAGE;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		log_error("out of memory");
		return 1;
	}
	if (config_load(path, c)) {
		log_error("%s", c->error);
		goto out;
	}
	printf("%s: valid, %d interface%s\n", path, c->n_ifaces, c->n_ifaces == 1 ? "" : "s");
	for (int i = 0; i < c->n_ifaces; i++) {
		const struct opts *io = &c->ifaces[i].o;

		printf("  %-15s mode %s, %d configured prefixes%s%s\n", c->ifaces[i].name,
		       opts_mode_name(io->mode), io->n_addrs,
		       io->no_iface_addrs ? ", not its own addresses" :
		       io->host_addrs     ? ", the host's addresses too" :
					    "",
		       io->rate_pps ? ", per-source limit" : "");
	}
	for (int i = 0; i < c->n_probes; i++)
		print_probe(&c->probes[i]);
	if (c->global.metrics_listen)
		printf("  metrics and health on http://%s/\n", c->global.metrics_listen);
	ret = 0;
out:
	config_free(c);
	free(c);
	return ret;
}

const struct cmd_def cmd_config = {
	.id = CMD_CONFIG,
	.name = "config",
	.synopsis = "check [FILE]",
	.min_args = 1,
	.max_args = 2,
	.summary = "check a config file (default " CONFIG_DEFAULT "), touching nothing",
	.description = "Parse FILE as 'xdpong run --config' would, and say what it would serve,\n"
		       "or what is wrong: the file, the line and the fix. Needs no privileges\n"
		       "and changes nothing. Exits 0 if FILE is valid, 1 if not.",
	.examples = "  xdpong config check\n"
		    "  xdpong config check /etc/xdpong/xdpong.conf.new && systemctl reload "
		    "xdpong\n",
	.run = config_main,
};
