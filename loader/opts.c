// SPDX-License-Identifier: GPL-2.0
/*
 * The option table and the one parser built from it. xdp-tools declares
 * its options as table rows (lib/util/params.h); this is the same idea,
 * written for xdpong: a row per option, a parser per argument type.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "opts.h"

#define ATTACH_RUN (CMD_BIT(CMD_ATTACH) | CMD_BIT(CMD_RUN))
#define ALL_CMDS ((1U << CMD_COUNT) - 1)
#define RATE_MAX 1000000000ULL

const struct opt_def opt_table[OPT_COUNT] = {
	{ OPT_MODE, "mode", 'm', ARG_MODE, "MODE", ATTACH_RUN, CFG_ANY, 0, 0,
	  "auto (default: native, else skb), native, skb" },
	{ OPT_ADDR, "addr", 'a', ARG_PREFIX, "PREFIX", ATTACH_RUN, CFG_ANY, 0, 0,
	  "also answer for PREFIX (repeatable), e.g.\n"
	  "192.0.2.1, 192.0.2.0/24, 2001:db8::/64" },
	{ OPT_NO_IFACE_ADDRS, "no-iface-addrs", 0, ARG_NONE, NULL, ATTACH_RUN, CFG_ANY, 0, 0,
	  "answer only for --addr prefixes" },
	{ OPT_HOST_ADDRS, "host-addrs", 0, ARG_NONE, NULL, ATTACH_RUN, CFG_ANY, 0, 0,
	  "also answer for the host's addresses on other\n"
	  "interfaces (an anycast address on lo, say), as\n"
	  "the kernel does; run follows them" },
	{ OPT_FORCE, "force", 'f', ARG_NONE, NULL, ATTACH_RUN, CFG_NONE, 0, 0,
	  "replace an XDP program already on IFACE" },
	{ OPT_LATENCY_SAMPLE, "latency-sample", 0, ARG_UINT, "N", ATTACH_RUN, CFG_ANY, 0, 1U << 30,
	  "time 1 packet in N for the latency histogram\n"
	  "(default 64; 1: every packet; 0: off)" },
	{ OPT_RATE_LIMIT, "rate-limit", 0, ARG_RATE, "PPS[:BURST]", ATTACH_RUN, CFG_ANY, 0, 0,
	  "at most PPS replies/s per source (IPv4 /32,\n"
	  "IPv6 /64), bursts of BURST (default PPS)" },
	{ OPT_GLOBAL_LIMIT, "global-limit", 0, ARG_RATE, "PPS[:BURST]", ATTACH_RUN, CFG_ANY, 0, 0,
	  "at most PPS replies/s in all (never more; under\n"
	  "contention a few fewer: see xdpong(8))" },
	{ OPT_INTERVAL, "interval", 'i', ARG_SECONDS, "SECS", CMD_BIT(CMD_RUN), CFG_GLOBAL, 0, 0,
	  "print per-second rates every SECS seconds" },
	{ OPT_JSON, "json", 'j', ARG_NONE, NULL,
	  CMD_BIT(CMD_RUN) | CMD_BIT(CMD_STATUS) | CMD_BIT(CMD_STATS) |
		  CMD_BIT(CMD_ADDR) | CMD_BIT(CMD_TRACE),
	  CFG_NONE, 0, 0, "JSON output (one object per line where there are several)" },
	{ OPT_METRICS_FILE, "metrics-file", 0, ARG_PATH, "PATH", CMD_BIT(CMD_RUN), CFG_GLOBAL, 0, 0,
	  "rewrite PATH atomically every --interval (default\n"
	  "15 s, then nothing is printed) in the Prometheus\n"
	  "text format, for node_exporter's textfile\n"
	  "collector; removed on exit" },
	{ OPT_ALL, "all", 'a', ARG_NONE, NULL, CMD_BIT(CMD_STATS), CFG_NONE, 0, 0,
	  "list reasons that are still zero too" },
	{ OPT_PROMETHEUS, "prometheus", 'p', ARG_NONE, NULL, CMD_BIT(CMD_STATS), CFG_NONE, 0, 0,
	  "one sample in the Prometheus text format" },
	{ OPT_COUNT_N, "count", 'c', ARG_UINT, "N", CMD_BIT(CMD_TRACE), CFG_NONE, 1, ~0ULL,
	  "stop after N packets" },
	{ OPT_OFF, "off", 0, ARG_NONE, NULL, CMD_BIT(CMD_TRACE), CFG_NONE, 0, 0,
	  "turn the events off if no trace is running (after\n"
	  "a trace was killed with SIGKILL)" },
	{ OPT_CONFIG, "config", 'c', ARG_PATH, "FILE", CMD_BIT(CMD_RUN), CFG_NONE, 0, 0,
	  "serve every interface of FILE (see xdpong(8),\n"
	  "CONFIG FILE) instead of IFACE and options" },
	{ OPT_METRICS_LISTEN, "metrics-listen", 0, ARG_LISTEN, "ADDR:PORT", CMD_BIT(CMD_RUN),
	  CFG_GLOBAL, 0, 0,
	  "serve GET /metrics (Prometheus) and /healthz\n"
	  "over HTTP at ADDR:PORT, e.g. 127.0.0.1:9435" },
	{ OPT_VERBOSE, "verbose", 'v', ARG_NONE, NULL, ALL_CMDS, CFG_NONE, 0, 0,
	  "say more (twice: libbpf's and libxdp's debug output)" },
	{ OPT_HELP, "help", 'h', ARG_NONE, NULL, ALL_CMDS, CFG_NONE, 0, 0,
	  "this help" },
};

const struct opt_def *opt_by_name(const char *name)
{
	for (int i = 0; i < OPT_COUNT; i++)
		if (!strcmp(opt_table[i].name, name))
			return &opt_table[i];
	return NULL;
}

/* "PPS" or "PPS:BURST"; BURST defaults to PPS (one second's worth).
 * docs/input-rules.md "Options"; checked by tests/fuzz-parsers/fuzz_attach.c. */
static int parse_rate(const char *text, unsigned long long *pps,
		      unsigned long long *burst)
{
	char buf[64], *colon;

	if (strlen(text) >= sizeof(buf))
		return -1;
	strcpy(buf, text);
	colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	if (parse_u64(buf, 1, RATE_MAX, pps))
		return -1;
	if (!colon) {
		*burst = *pps;
		return 0;
	}
	return parse_u64(colon + 1, 1, RATE_MAX, burst);
}

static int parse_mode(const char *text, enum opts_mode *mode)
{
	if (!strcmp(text, "auto"))
		*mode = MODE_AUTO;
	else if (!strcmp(text, "native") || !strcmp(text, "drv"))
		*mode = MODE_NATIVE;
	else if (!strcmp(text, "skb") || !strcmp(text, "generic"))
		*mode = MODE_SKB;
	else
		return -1;
	return 0;
}

int opt_set(const struct opt_def *d, const char *text, struct opts *o,
	    char *errbuf, size_t errlen)
{
	unsigned long long u = 0;
	const char *why = NULL;

	switch (d->arg) {
	case ARG_NONE:
		break;
	case ARG_MODE:
		if (parse_mode(text, &o->mode))
			why = "expected auto, native or skb";
		break;
	case ARG_PREFIX:
		if (o->n_addrs >= OPTS_MAX_ADDRS) {
			snprintf(errbuf, errlen, "too many (at most %d)", OPTS_MAX_ADDRS);
			return -1;
		}
		if (prefix_parse(text, &o->addrs[o->n_addrs])) {
			why = "expected ADDR or ADDR/LEN, IPv4 or IPv6";
			break;
		}
		prefix_mask(&o->addrs[o->n_addrs]);
		o->n_addrs++;
		break;
	case ARG_UINT:
		if (parse_u64(text, d->min, d->max, &u)) {
			if (d->max == ~0ULL)
				snprintf(errbuf, errlen, "expected a whole number from %llu",
					 d->min);
			else
				snprintf(errbuf, errlen, "expected a whole number, %llu to %llu",
					 d->min, d->max);
			return -1;
		}
		break;
	case ARG_RATE:
		if (parse_rate(text, d->id == OPT_RATE_LIMIT ? &o->rate_pps : &o->global_pps,
			       d->id == OPT_RATE_LIMIT ? &o->rate_burst : &o->global_burst))
			why = "expected PPS or PPS:BURST, each 1 to 1000000000";
		break;
	case ARG_SECONDS:
		if (parse_seconds(text, 0.01, 86400, &o->interval))
			why = "expected seconds, 0.01 to 86400";
		break;
	case ARG_PATH:
		if (!*text)
			why = "expected a path";
		break;
	case ARG_LISTEN:
		if (listen_parse(text, NULL))
			why = "expected ADDR:PORT, an IP address of this host and a port 1 to 65535 (e.g. 127.0.0.1:9435, [::1]:9435)";
		break;
	}
	if (why) {
		snprintf(errbuf, errlen, "%s", why);
		return -1;
	}
	o->seen[d->id] = true;
	switch (d->id) {
	case OPT_VERBOSE:
		verbose++;
		break;
	case OPT_NO_IFACE_ADDRS:
		o->no_iface_addrs = true;
		break;
	case OPT_HOST_ADDRS:
		o->host_addrs = true;
		break;
	case OPT_FORCE:
		o->force = true;
		break;
	case OPT_LATENCY_SAMPLE:
		o->latency_sample = u;
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_METRICS_FILE:
		o->metrics_file = text;
		break;
	case OPT_ALL:
		o->all = true;
		break;
	case OPT_PROMETHEUS:
		o->prometheus = true;
		break;
	case OPT_COUNT_N:
		o->count = u;
		break;
	case OPT_OFF:
		o->off = true;
		break;
	case OPT_CONFIG:
		o->config = text;
		break;
	case OPT_METRICS_LISTEN:
		o->metrics_listen = text;
		break;

	default: /* set by its argument parser above */
		break;
	}
	return 0;
}

void opts_init(struct opts *o, enum cmd_id cmd)
{
	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->mode = MODE_AUTO;
	o->latency_sample = 64;
}

static bool takes(const struct opt_def *d, const struct cmd_def *cmd)
{
	return d->cmds & CMD_BIT(cmd->id);
}

/* The name the user typed, without "=value": "--interval", "-x". */
static const char *typed_name(const char *arg, char *buf, size_t size)
{
	size_t n = strcspn(arg, "=");

	snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), arg);
	return buf;
}

int opts_parse(const struct cmd_def *cmd, int argc, char **argv, struct opts *o)
{
	struct option longopts[OPT_COUNT + 1];
	char shortopts[2 * OPT_COUNT + 3], errbuf[128], name[64];
	int n = 0, s = 0, c, idx;

	opts_init(o, cmd->id);
	/* ':' first: a missing value is ':' and an unknown option is '?'. */
	shortopts[s++] = ':';
	for (int i = 0; i < OPT_COUNT; i++) {
		const struct opt_def *d = &opt_table[i];

		if (!takes(d, cmd))
			continue;
		longopts[n++] = (struct option){
			.name = d->name,
			.has_arg = d->arg == ARG_NONE ? no_argument : required_argument,
			.val = 256 + i,
		};
		if (d->short_name) {
			shortopts[s++] = d->short_name;
			if (d->arg != ARG_NONE)
				shortopts[s++] = ':';
		}
	}
	longopts[n] = (struct option){ 0 };
	shortopts[s] = '\0';

	optind = 0; /* 0: glibc starts over, forgetting a previous parse */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, &idx)) != -1) {
		const struct opt_def *d = NULL;

		if (c == '?' || c == ':') {
			const char *what = optopt && optopt < 256 ?
				(snprintf(name, sizeof(name), "-%c", optopt), name) :
				typed_name(argv[optind - 1], name, sizeof(name));

			if (c == ':')
				log_error("option '%s' needs a value (see 'xdpong %s --help')",
					  what, cmd->name);
			else
				log_error("unknown option '%s' for '%s' (see 'xdpong %s --help')",
					  what, cmd->name, cmd->name);
			return OPTS_USAGE;
		}
		if (c >= 256) {
			d = &opt_table[c - 256];
		} else {
			for (int i = 0; i < OPT_COUNT && !d; i++)
				if (opt_table[i].short_name == c && takes(&opt_table[i], cmd))
					d = &opt_table[i];
		}
		if (!d)
			continue; /* not reached: getopt returns only what we gave it */
		if (d->id == OPT_HELP) {
			cmd_usage(stdout, cmd);
			return OPTS_HELP;
		}
		if (opt_set(d, optarg, o, errbuf, sizeof(errbuf))) {
			log_error("invalid --%s '%s': %s", d->name, optarg, errbuf);
			return OPTS_USAGE;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (o->n_args >= OPTS_MAX_ARGS || o->n_args >= cmd->max_args) {
			log_error("unexpected argument '%s' (usage: xdpong %s %s)", argv[i],
				  cmd->name, cmd->synopsis);
			return OPTS_USAGE;
		}
		o->args[o->n_args++] = argv[i];
	}
	/* An interface name the kernel could never have is a usage error. */
	if (o->n_args && cmd->iface_arg &&
	    (!*o->args[0] || strlen(o->args[0]) >= IF_NAMESIZE)) {
		log_error("invalid interface name '%s': expected 1 to %d characters",
			  o->args[0], IF_NAMESIZE - 1);
		return OPTS_USAGE;
	}
	if (o->n_args < cmd->min_args) {
		log_error("missing %s (usage: xdpong %s %s)",
			  o->n_args ? "argument" : "interface", cmd->name, cmd->synopsis);
		return OPTS_USAGE;
	}
	if (opts_conflict(o)) {
		log_error("%s", opts_conflict(o));
		return OPTS_USAGE;
	}
	return 0;
}

const char *opts_conflict(const struct opts *o)
{
	if (o->no_iface_addrs && o->host_addrs)
		return "--host-addrs and --no-iface-addrs contradict each other: the host's addresses include the interface's";
	return NULL;
}

static void print_opt(FILE *f, const struct opt_def *d)
{
	const char *line = d->help;
	char head[64];
	int n;

	if (d->short_name)
		n = snprintf(head, sizeof(head), "-%c, --%s", d->short_name, d->name);
	else
		n = snprintf(head, sizeof(head), "    --%s", d->name);
	if (d->metavar)
		snprintf(head + n, sizeof(head) - n, " %s", d->metavar);
	/* Help in a column of its own; a long head gets a line to itself. */
	if (strlen(head) < 25)
		fprintf(f, "  %-25s", head);
	else
		fprintf(f, "  %s\n  %-25s", head, "");
	for (;;) {
		size_t len = strcspn(line, "\n");

		fprintf(f, "%.*s\n", (int)len, line);
		if (!line[len])
			break;
		line += len + 1;
		fprintf(f, "  %-25s", "");
	}
}

void cmd_usage(FILE *f, const struct cmd_def *cmd)
{
	fprintf(f, "Usage: xdpong %s %s\n\n%s\n\nOptions:\n", cmd->name, cmd->synopsis,
		cmd->description);
	for (int i = 0; i < OPT_COUNT; i++)
		if (takes(&opt_table[i], cmd))
			print_opt(f, &opt_table[i]);
	fprintf(f, "\nExamples:\n%s", cmd->examples);
}
