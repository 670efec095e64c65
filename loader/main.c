// SPDX-License-Identifier: GPL-2.0
/* xdpong: answer ping in the driver. Global options and subcommand dispatch. */
#include <string.h>
#include <bpf/libbpf.h>
#include "cmd/cmd.h"

static const struct cmd_def *const commands[CMD_COUNT] = {
	[CMD_ATTACH] = &cmd_attach, [CMD_DETACH] = &cmd_detach, [CMD_STATUS] = &cmd_status,
	[CMD_STATS] = &cmd_stats,   [CMD_RUN] = &cmd_run,       [CMD_ADDR] = &cmd_addr,
	[CMD_TRACE] = &cmd_trace,   [CMD_CONFIG] = &cmd_config, [CMD_PROBE] = &cmd_probe,
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: xdpong [-v] COMMAND [ARGS]\n"
		   "\n"
		   "Answer ICMP and ICMPv6 echo requests (ping) in the network driver with XDP.\n"
		   "\n"
		   "Commands:\n");
	for (int c = 0; c < CMD_COUNT; c++)
		fprintf(f, "  %-8s %s\n", commands[c]->name, commands[c]->summary);
	fprintf(f, "\n"
		   "Options:\n"
		   "  -v, --verbose              more output (twice: libbpf and libxdp debug)\n"
		   "  -h, --help                 this help; 'xdpong COMMAND --help' for a command\n"
		   "  -V, --version              print the version\n"
		   "\n"
		   "Examples:\n"
		   "  xdpong attach eth0                      answer for eth0's own addresses\n"
		   "  xdpong attach eth0 --addr 192.0.2.0/24  and for an anycast prefix\n"
		   "  xdpong stats eth0 1                     rates every second\n"
		   "  xdpong stats eth0 --prometheus          metrics for Prometheus\n"
		   "  xdpong trace eth0 --count 10            watch the next 10 packets\n"
		   "  xdpong probe 192.0.2.1 -c 10            measure a STAMP reflector's RTT\n"
		   "  xdpong detach eth0\n"
		   "\n"
		   "Maps are pinned under " PIN_ROOT "/IFACE/ for bpftool. Manual: xdpong(8).\n");
}

/* `xdpong options`: the option table, for scripts and the tests that hold
 * --help, xdpong(8) and the bash completion to it. One row per command
 * and option: command, --long, -s (or -), argument type, and where a
 * config file may set it (cli: nowhere, config: any section,
 * config-global: [global] only). */
static void options_dump(FILE *f)
{
	static const char *const arg_names[] = {
		[ARG_NONE] = "none",     [ARG_COUNT] = "none",      [ARG_HELP] = "none",
		[ARG_MODE] = "mode",     [ARG_PREFIX] = "prefix",   [ARG_UINT] = "uint",
		[ARG_RATE] = "rate",     [ARG_SECONDS] = "seconds", [ARG_PATH] = "path",
		[ARG_LISTEN] = "listen", [ARG_OPTPORT] = "port?",   [ARG_SOURCE] = "source",
	};
	static const char *const scopes[] = {
		[CFG_NONE] = "cli",
		[CFG_ANY] = "config",
		[CFG_GLOBAL] = "config-global",
	};

	for (int c = 0; c < CMD_COUNT; c++) {
		for (int i = 0; i < opt_count; i++) {
			const struct opt_def *d = &opt_table[i];
			char s[3] = { '-', d->short_name, 0 };

			if (!(d->cmds & CMD_BIT(commands[c]->id)))
				continue;
			fprintf(f, "%s\t--%s\t%s\t%s\t%s\n", commands[c]->name, d->name,
				d->short_name ? s : "-", arg_names[d->arg], scopes[d->config]);
		}
	}
}

int main(int argc, char **argv)
{
	struct opts o;
	int i = 1, ret;

	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			verbose++;
		} else if (!strcmp(a, "-vv")) {
			verbose += 2;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("xdpong %s (libbpf %s)\n", XDPONG_VERSION, libbpf_version_string());
			return 0;
		} else {
			log_error("unknown option '%s' (try 'xdpong --help')", a);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	log_setup_libs();
	if (!strcmp(argv[i], "options")) {
		options_dump(stdout);
		return 0;
	}
	for (int c = 0; c < CMD_COUNT; c++) {
		if (strcmp(argv[i], commands[c]->name))
			continue;
		ret = opts_parse(commands[c], argc - i, argv + i, &o);
		if (ret) {
			opts_free(&o);
			return ret == OPTS_HELP ? 0 : EXIT_USAGE;
		}
		verbose += o.verbose; /* -v after the command, as before it */
		ret = commands[c]->run(&o);
		opts_free(&o);
		return ret;
	}
	log_error("unknown command '%s' (try 'xdpong --help')", argv[i]);
	return EXIT_USAGE;
}
