// SPDX-License-Identifier: GPL-2.0
/*
 * The option table and the one parser built from it. xdp-tools declares
 * its options as table rows (lib/util/params.h); this is the same idea,
 * written for xdpong: a row per option, a parser per argument type.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "core.h"

#define ATTACH_RUN (CMD_BIT(CMD_ATTACH) | CMD_BIT(CMD_RUN))
#define ALL_CMDS ((1U << CMD_COUNT) - 1)
#define PROBE CMD_BIT(CMD_PROBE)
#define RATE_MAX 1000000000ULL

/* The table, one option per entry, as written: clang-format would give each field a line. */
/* clang-format off */
const struct opt_def opt_table[] = {
	{ .name = "mode", .short_name = 'm', .arg = ARG_MODE, .metavar = "MODE",
	  .cmds = ATTACH_RUN, .config = CFG_ANY, OPT_FIELD(mode),
	  .help = "auto (default: native, else skb), native, skb" },
	{ .name = "addr", .short_name = 'a', .arg = ARG_PREFIX, .metavar = "PREFIX",
	  .cmds = ATTACH_RUN, .config = CFG_ANY, OPT_FIELD(addrs), OPT_FIELD2(n_addrs),
	  .help = "also answer for PREFIX (repeatable), e.g.\n"
		  "192.0.2.1, 192.0.2.0/24, 2001:db8::/64" },
	{ .name = "no-iface-addrs", .arg = ARG_NONE, .cmds = ATTACH_RUN, .config = CFG_ANY,
	  OPT_FIELD(no_iface_addrs), .group = GROUP_ADDRS,
	  .help = "answer only for --addr prefixes" },
	{ .name = "host-addrs", .arg = ARG_NONE, .cmds = ATTACH_RUN, .config = CFG_ANY,
	  OPT_FIELD(host_addrs), .group = GROUP_ADDRS,
	  .help = "also answer for the host's addresses on other\n"
		  "interfaces (an anycast address on lo, say), as\n"
		  "the kernel does; run follows them" },
	{ .name = "force", .short_name = 'f', .arg = ARG_NONE, .cmds = ATTACH_RUN,
	  OPT_FIELD(force),
	  .help = "replace an XDP program already on IFACE" },
	{ .name = "priority", .arg = ARG_UINT, .metavar = "N", .cmds = ATTACH_RUN,
	  .config = CFG_ANY, OPT_FIELD(priority), .min = 0, .max = 1000000,
	  .help = "run priority in libxdp's dispatcher, lower first\n"
		  "(default 50; xdp-filter runs at 10)" },
	{ .name = "latency-sample", .arg = ARG_UINT, .metavar = "N", .cmds = ATTACH_RUN,
	  .config = CFG_ANY, OPT_FIELD(latency_sample), .min = 0, .max = 1U << 30,
	  .help = "time 1 reply in N for the latency histogram, at most\n"
		  "one a tick per CPU (default 64; 1: every reply; 0: off)" },
	{ .name = "max-prefixes", .arg = ARG_UINT, .metavar = "N", .cmds = ATTACH_RUN,
	  .config = CFG_ANY, OPT_FIELD(max_prefixes), .min = 1, .max = MAX_PREFIXES_MAX,
	  .help = "room for N prefixes per family, IPv4 and IPv6\n"
		  "(default 1024; a takeover keeps the running size)" },
	{ .name = "rate-limit", .arg = ARG_RATE, .metavar = "PPS[:BURST]", .cmds = ATTACH_RUN,
	  .config = CFG_ANY, OPT_FIELD(rate_pps), OPT_FIELD2(rate_burst),
	  .help = "at most PPS replies/s per source (IPv4 /32,\n"
		  "IPv6 /64), bursts of BURST (default PPS)" },
	{ .name = "global-limit", .arg = ARG_RATE, .metavar = "PPS[:BURST]", .cmds = ATTACH_RUN,
	  .config = CFG_ANY, OPT_FIELD(global_pps), OPT_FIELD2(global_burst),
	  .help = "at most PPS replies/s in all (never more; under\n"
		  "contention a few fewer: see xdpong(8))" },
	{ .name = "stamp", .arg = ARG_OPTPORT, .metavar = "[=PORT]", .cmds = ATTACH_RUN,
	  .config = CFG_ANY, OPT_FIELD(stamp_port), .dflt = XDPONG_STAMP_PORT,
	  .help = "also reflect STAMP test packets (RFC 8762) to UDP\n"
		  "port PORT (default 862)" },
	{ .name = "stamp-driver", .arg = ARG_NONE, .cmds = ATTACH_RUN, .config = CFG_ANY,
	  OPT_FIELD(stamp_driver),
	  .help = "STAMP's receive timestamp T2 from the driver, where\n"
		  "it gives one (Linux 6.3; native mode, alone: see\n"
		  "xdpong(8))" },
	{ .name = "interval", .short_name = 'i', .arg = ARG_SECONDS, .metavar = "SECS",
	  .cmds = CMD_BIT(CMD_RUN), .config = CFG_GLOBAL, OPT_FIELD(interval),
	  .help = "print per-second rates every SECS seconds" },
	{ .name = "json", .short_name = 'j', .arg = ARG_NONE,
	  .cmds = CMD_BIT(CMD_RUN) | CMD_BIT(CMD_STATUS) | CMD_BIT(CMD_STATS) |
		  CMD_BIT(CMD_ADDR) | CMD_BIT(CMD_TRACE) | CMD_BIT(CMD_PROBE),
	  OPT_FIELD(json),
	  .help = "JSON output (one object per line where there are several)" },
	{ .name = "metrics-file", .arg = ARG_PATH, .metavar = "PATH", .cmds = CMD_BIT(CMD_RUN),
	  .config = CFG_GLOBAL, OPT_FIELD(metrics_file),
	  .help = "rewrite PATH atomically every --interval (default\n"
		  "15 s, then nothing is printed) in the Prometheus\n"
		  "text format, for node_exporter's textfile\n"
		  "collector; removed on exit" },
	{ .name = "all", .short_name = 'a', .arg = ARG_NONE, .cmds = CMD_BIT(CMD_STATS),
	  OPT_FIELD(all),
	  .help = "list reasons that are still zero too" },
	{ .name = "prometheus", .short_name = 'p', .arg = ARG_NONE, .cmds = CMD_BIT(CMD_STATS),
	  OPT_FIELD(prometheus),
	  .help = "one sample in the Prometheus text format" },
	{ .name = "count", .short_name = 'c', .arg = ARG_UINT, .metavar = "N",
	  .cmds = CMD_BIT(CMD_TRACE), OPT_FIELD(count), .min = 1, .max = ~0ULL,
	  .help = "stop after N packets" },
	{ .name = "off", .arg = ARG_NONE, .cmds = CMD_BIT(CMD_TRACE), OPT_FIELD(off),
	  .help = "turn the events off if no trace is running (after\n"
		  "a trace was killed with SIGKILL)" },
	{ .name = "config", .short_name = 'c', .arg = ARG_PATH, .metavar = "FILE",
	  .cmds = CMD_BIT(CMD_RUN), OPT_FIELD(config),
	  .help = "serve every interface of FILE (see xdpong(8),\n"
		  "CONFIG FILE) instead of IFACE and options" },
	{ .name = "metrics-listen", .arg = ARG_LISTEN, .metavar = "ADDR:PORT",
	  .cmds = CMD_BIT(CMD_RUN), .config = CFG_GLOBAL, OPT_FIELD(metrics_listen),
	  .help = "serve GET /metrics (Prometheus) and /healthz\n"
		  "over HTTP at ADDR:PORT, e.g. 127.0.0.1:9435" },
	/* probe's, as ping and fping spell them */
	{ .name = "count", .short_name = 'c', .arg = ARG_UINT, .metavar = "N",
	  .cmds = PROBE, OPT_FIELD(count), .min = 1, .max = ~0ULL,
	  .help = "send N probes to each target (default: until\n"
		  "interrupted)" },
	{ .name = "interval", .short_name = 'i', .arg = ARG_SECONDS, .metavar = "SECS",
	  .cmds = PROBE, OPT_FIELD(interval),
	  .help = "SECS between two probes to a target (default 1)" },
	{ .name = "size", .short_name = 's', .arg = ARG_UINT, .metavar = "BYTES",
	  .cmds = PROBE, OPT_FIELD(size), .min = 0, .max = 65000,
	  .help = "STAMP: the test packet, 44 (the default) or more;\n"
		  "ICMP: the data after the header (default 56)" },
	{ .name = "timeout", .short_name = 'W', .arg = ARG_SECONDS, .metavar = "SECS",
	  .cmds = PROBE, OPT_FIELD(timeout),
	  .help = "wait SECS for a reply, then count it lost\n"
		  "(default 1)" },
	{ .name = "source", .short_name = 'I', .arg = ARG_SOURCE, .metavar = "IFACE|ADDR",
	  .cmds = PROBE, OPT_FIELD(source),
	  .help = "send from this interface or address" },
	{ .name = "ttl", .short_name = 't', .arg = ARG_UINT, .metavar = "TTL",
	  .cmds = PROBE, OPT_FIELD(ttl), .min = 1, .max = 255,
	  .help = "IP TTL or IPv6 hop limit of the probes" },
	{ .name = "tos", .short_name = 'Q', .arg = ARG_UINT, .metavar = "TOS",
	  .cmds = PROBE, OPT_FIELD(tos), .min = 0, .max = 255,
	  .help = "IP TOS or IPv6 traffic class of the probes" },
	{ .name = "ipv4", .short_name = '4', .arg = ARG_NONE, .cmds = PROBE, OPT_FIELD(ipv4),
	  .help = "only the IPv4 addresses of the targets" },
	{ .name = "ipv6", .short_name = '6', .arg = ARG_NONE, .cmds = PROBE, OPT_FIELD(ipv6),
	  .help = "only the IPv6 addresses of the targets" },
	{ .name = "quiet", .short_name = 'q', .arg = ARG_NONE, .cmds = PROBE, OPT_FIELD(quiet),
	  .help = "no line per reply: only the summary" },
	{ .name = "port", .arg = ARG_UINT, .metavar = "PORT", .cmds = PROBE, OPT_FIELD(port),
	  .min = 1, .max = 65535,
	  .help = "the reflectors' STAMP port (default 862)" },
	{ .name = "icmp", .arg = ARG_NONE, .cmds = PROBE, OPT_FIELD(icmp),
	  .help = "ICMP or ICMPv6 echo instead of STAMP" },
	{ .name = "prometheus", .short_name = 'p', .arg = ARG_NONE, .cmds = PROBE,
	  OPT_FIELD(prometheus),
	  .help = "at the end, the Prometheus text format instead\n"
		  "of the summary" },
	{ .name = "verbose", .short_name = 'v', .arg = ARG_COUNT, .cmds = ALL_CMDS,
	  OPT_FIELD(verbose),
	  .help = "say more (twice: libbpf's and libxdp's debug output)" },
	{ .name = "help", .short_name = 'h', .arg = ARG_HELP, .cmds = ALL_CMDS,
	  .help = "this help" },
};
/* clang-format on */
const int opt_count = sizeof(opt_table) / sizeof(opt_table[0]);
_Static_assert(sizeof(opt_table) / sizeof(opt_table[0]) <= OPTS_MAX, "opt_table has more rows than "
								     "OPTS_MAX (core.h)");

const struct opt_def *opt_by_name(const char *name)
{
	for (int i = 0; i < opt_count; i++)
		if (!strcmp(opt_table[i].name, name))
			return &opt_table[i];
	return NULL;
}

bool opts_seen(const struct opts *o, const char *name)
{
	const struct opt_def *d = opt_by_name(name);

	return d && o->seen[opt_index(d)];
}

/* "PPS" or "PPS:BURST"; BURST defaults to PPS (one second's worth).
 * docs/input-rules.md "Options"; checked by tests/fuzz-parsers/fuzz_attach.c. */
static int parse_rate(const char *text, unsigned long long *pps, unsigned long long *burst)
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

/* --mode's words: the first of each mode is its name (opts_mode_name);
 * drv and generic are ip-link's. */
static const struct {
	const char *word;
	enum opts_mode mode;
} mode_words[] = {
	{ "auto", MODE_AUTO },  { "native", MODE_NATIVE }, { "skb", MODE_SKB },
	{ "drv", MODE_NATIVE }, { "generic", MODE_SKB },
};

const char *opts_mode_name(enum opts_mode mode)
{
	for (size_t i = 0; i < sizeof(mode_words) / sizeof(mode_words[0]); i++)
		if (mode_words[i].mode == mode)
			return mode_words[i].word;
	return "auto";
}

static int parse_mode(const char *text, enum opts_mode *mode)
{
	for (size_t i = 0; i < sizeof(mode_words) / sizeof(mode_words[0]); i++) {
		if (!strcmp(text, mode_words[i].word)) {
			*mode = mode_words[i].mode;
			return 0;
		}
	}
	return -1;
}

/* The option's value in o, and its second one. */
#define VALUE(o, d, type) ((type *)((char *)(o) + (d)->off))
#define VALUE2(o, d, type) ((type *)((char *)(o) + (d)->off2))

/* The --addr list's room for n prefixes: 16, then doubled as it fills,
 * so it grows by the capacity n implies and needs no field of its own
 * (a list copied field by field, as conffile.c's merge does, stays whole). */
static size_t addrs_room(int n)
{
	size_t room = 16;

	while (room < (size_t)n)
		room *= 2;
	return room;
}

/* One more --addr: -1 with errbuf set when there is no memory for it;
 * *why set when text is not a prefix. */
static int add_prefix(const struct opt_def *d, const char *text, struct opts *o, const char **why,
		      char *errbuf, size_t errlen)
{
	struct prefix **v = VALUE(o, d, struct prefix *), p;
	int *n = VALUE2(o, d, int);

	if (prefix_parse(text, &p)) {
		*why = "expected ADDR or ADDR/LEN, IPv4 or IPv6";
		return 0;
	}
	prefix_mask(&p);
	if (!*n || (*n >= 16 && addrs_room(*n) == (size_t)*n)) {
		struct prefix *more =
			*n < INT_MAX / 2 ? realloc(*v, addrs_room(*n + 1) * sizeof(p)) : NULL;

		if (!more) {
			snprintf(errbuf, errlen, "out of memory after %d prefixes", *n);
			return -1;
		}
		*v = more;
	}
	(*v)[(*n)++] = p;
	return 0;
}

int opts_addrs_of(const struct opts *o, int family)
{
	int n = 0;

	for (int i = 0; i < o->n_addrs; i++)
		n += o->addrs[i].family == family;
	return n;
}

int opts_own_addrs(struct opts *o)
{
	struct prefix *v;

	if (!o->n_addrs) {
		o->addrs = NULL;
		return 0;
	}
	v = malloc(addrs_room(o->n_addrs) * sizeof(*v));
	if (!v) {
		o->addrs = NULL;
		o->n_addrs = 0;
		return -ENOMEM;
	}
	memcpy(v, o->addrs, o->n_addrs * sizeof(*v));
	o->addrs = v;
	return 0;
}

void opts_free(struct opts *o)
{
	free(o->addrs);
	o->addrs = NULL;
	o->n_addrs = 0;
}

/* -I: an IP address, or a name an interface could have. */
static bool source_valid(const char *text)
{
	unsigned char a[16];

	if (inet_pton(AF_INET, text, a) == 1 || inet_pton(AF_INET6, text, a) == 1)
		return true;
	return *text && strlen(text) < IF_NAMESIZE && !strpbrk(text, "/ \t\n:");
}

/* What is wrong with the text of a path, a source or a listen address;
 * NULL if nothing. */
static const char *text_why(enum opt_arg arg, const char *text)
{
	if (arg == ARG_PATH && !*text)
		return "expected a path";
	if (arg == ARG_SOURCE && !source_valid(text))
		return "expected an interface name (1 to 15 characters) or an IP address";
	if (arg == ARG_LISTEN && listen_parse(text, NULL))
		return "expected ADDR:PORT, an IP address of this host and a port 1 to "
		       "65535 (e.g. 127.0.0.1:9435, [::1]:9435)";
	return NULL;
}

int opt_set(const struct opt_def *d, const char *text, struct opts *o, char *errbuf, size_t errlen)
{
	unsigned long long u = 0, u2 = 0;
	double secs = 0;
	const char *why = NULL;

	/* Parsed into locals, stored only when valid: a refused value
	 * leaves o as it was. */
	switch (d->arg) {
	case ARG_NONE:
		*VALUE(o, d, bool) = true;
		break;
	case ARG_COUNT:
		(*VALUE(o, d, int))++;
		break;
	case ARG_HELP:
		break;
	case ARG_MODE: /* parse_mode stores only a valid mode */
		if (parse_mode(text, VALUE(o, d, enum opts_mode)))
			why = "expected auto, native or skb";
		break;
	case ARG_PREFIX:
		if (add_prefix(d, text, o, &why, errbuf, errlen))
			return -1;
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
		*VALUE(o, d, unsigned long long) = u;
		break;
	case ARG_RATE:
		if (parse_rate(text, &u, &u2)) {
			why = "expected PPS or PPS:BURST, each 1 to 1000000000";
			break;
		}
		*VALUE(o, d, unsigned long long) = u;
		*VALUE2(o, d, unsigned long long) = u2;
		break;
	case ARG_SECONDS:
		if (parse_seconds(text, 0.01, 86400, &secs))
			why = "expected seconds, 0.01 to 86400";
		else
			*VALUE(o, d, double) = secs;
		break;
	case ARG_PATH:
	case ARG_SOURCE:
	case ARG_LISTEN:
		why = text_why(d->arg, text);
		if (!why)
			*VALUE(o, d, const char *) = text;
		break;
	case ARG_OPTPORT:
		/* --stamp alone, or yes in a config file: the default. */
		if (!text || !strcmp(text, "yes") || !strcmp(text, "true"))
			u = d->dflt;
		else if (parse_u64(text, 1, 65535, &u))
			why = "expected a port, 1 to 65535 (or none: the default)";
		if (!why)
			*VALUE(o, d, unsigned long long) = u;
		break;
	}
	if (why) {
		snprintf(errbuf, errlen, "%s", why);
		return -1;
	}
	o->seen[opt_index(d)] = true;
	return 0;
}

void opts_init(struct opts *o, enum cmd_id cmd)
{
	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->mode = MODE_AUTO;
	o->latency_sample = 64;
	o->priority = 50;
	o->max_prefixes = MAX_PREFIXES_DEFAULT;
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

/* getopt_long's tables for cmd's options; a long option's val is 256 +
 * its row. */
static void getopt_tables(const struct cmd_def *cmd, struct option *longopts, char *shortopts)
{
	int n = 0, s = 0;

	/* ':' first: a missing value is ':' and an unknown option is '?'. */
	shortopts[s++] = ':';
	for (int i = 0; i < opt_count; i++) {
		const struct opt_def *d = &opt_table[i];

		if (!takes(d, cmd))
			continue;
		longopts[n++] = (struct option){
			.name = d->name,
			.has_arg = d->arg == ARG_NONE || d->arg == ARG_COUNT || d->arg == ARG_HELP ?
					   no_argument :
				   d->arg == ARG_OPTPORT ? optional_argument :
							   required_argument,
			.val = 256 + i,
		};
		if (d->short_name) {
			shortopts[s++] = d->short_name;
			if (longopts[n - 1].has_arg)
				shortopts[s++] = ':';
		}
	}
	longopts[n] = (struct option){ 0 };
	shortopts[s] = '\0';
}

/* The positional arguments, after the options: their number, and an
 * interface name the kernel could have. 0, or OPTS_USAGE (said). */
static int take_args(const struct cmd_def *cmd, int argc, char **argv, struct opts *o)
{
	/* getopt_long has put them last, in order. */
	o->args = argv + optind;
	o->n_args = argc - optind;
	if (o->n_args > cmd->max_args) {
		log_error("unexpected argument '%s' (usage: xdpong %s %s)", o->args[cmd->max_args],
			  cmd->name, cmd->synopsis);
		return OPTS_USAGE;
	}
	/* An interface name the kernel could never have is a usage error. */
	if (o->n_args && cmd->iface_arg && (!*o->args[0] || strlen(o->args[0]) >= IF_NAMESIZE)) {
		log_error("invalid interface name '%s': expected 1 to %d characters", o->args[0],
			  IF_NAMESIZE - 1);
		return OPTS_USAGE;
	}
	if (o->n_args < cmd->min_args) {
		log_error("missing %s (usage: xdpong %s %s)",
			  !o->n_args && cmd->iface_arg ? "interface" : "argument", cmd->name,
			  cmd->synopsis);
		return OPTS_USAGE;
	}
	return 0;
}

int opts_parse(const struct cmd_def *cmd, int argc, char **argv, struct opts *o)
{
	struct option longopts[OPTS_MAX + 1];
	char shortopts[2 * OPTS_MAX + 3], errbuf[128], name[64];
	int c, idx;

	opts_init(o, cmd->id);
	getopt_tables(cmd, longopts, shortopts);

	optind = 0; /* 0: glibc starts over, forgetting a previous parse */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, &idx)) != -1) {
		const struct opt_def *d = NULL;

		if (c == '?' || c == ':') {
			const char *what =
				optopt && optopt < 256 ?
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
			for (int i = 0; i < opt_count && !d; i++)
				if (opt_table[i].short_name == c && takes(&opt_table[i], cmd))
					d = &opt_table[i];
		}
		if (!d)
			continue; /* not reached: getopt returns only what we gave it */
		if (d->arg == ARG_HELP) {
			cmd_usage(stdout, cmd);
			return OPTS_HELP;
		}
		if (opt_set(d, optarg, o, errbuf, sizeof(errbuf))) {
			log_error("invalid --%s '%s': %s", d->name, optarg ? optarg : "", errbuf);
			return OPTS_USAGE;
		}
	}
	if (take_args(cmd, argc, argv, o))
		return OPTS_USAGE;
	if (opts_conflict(o, errbuf, sizeof(errbuf))) {
		log_error("%s", errbuf);
		return OPTS_USAGE;
	}
	return 0;
}

const char *opts_conflict(const struct opts *o, char *buf, size_t size)
{
	static const int fam[2] = { AF_INET, AF_INET6 };

	if (o->no_iface_addrs && o->host_addrs) {
		snprintf(buf, size,
			 "--host-addrs and --no-iface-addrs contradict each other: "
			 "the host's addresses include the interface's");
		return buf;
	}
	/* Without --max-prefixes the size is known only at load (a takeover
	 * keeps the running one): load.c checks it there. */
	for (int f = 0; f < 2 && opts_seen(o, "max-prefixes"); f++) {
		int n = opts_addrs_of(o, fam[f]);

		if ((unsigned long long)n > o->max_prefixes) {
			snprintf(buf, size,
				 "%d IPv%c --addr prefixes, more than --max-prefixes %llu holds", n,
				 f ? '6' : '4', o->max_prefixes);
			return buf;
		}
	}
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
	/* An optional value is written on: "--stamp[=PORT]" (getopt takes
	 * it only after "=", never as the next word). */
	if (d->metavar)
		snprintf(head + n, sizeof(head) - n, "%s%s", d->arg == ARG_OPTPORT ? "" : " ",
			 d->metavar);
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
	for (int i = 0; i < opt_count; i++)
		if (takes(&opt_table[i], cmd))
			print_opt(f, &opt_table[i]);
	fprintf(f, "\nExamples:\n%s", cmd->examples);
}
