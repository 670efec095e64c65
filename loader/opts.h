/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line, declared once. Every option of every subcommand is one
 * row of opt_table (opts.c): its names, its argument type, the commands that
 * take it, whether a config file may set it, and its help text. The parser,
 * each command's --help and `xdpong options` (main.c; the tests compare it
 * with the man page and the bash completion) all read that table.
 */
#ifndef XDPONG_OPTS_H
#define XDPONG_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "prefix.h"
#include "parse.h"

/* The subcommands, as bits: an option lists the commands that take it. */
enum cmd_id {
	CMD_ATTACH,
	CMD_DETACH,
	CMD_STATUS,
	CMD_STATS,
	CMD_RUN,
	CMD_ADDR,
	CMD_TRACE,
	CMD_CONFIG,
	CMD_COUNT,
};
#define CMD_BIT(c) (1U << (c))

/* What an option's value is; each type has one parser in opts.c, which
 * stores the value where the option's row says (struct opt_def). */
enum opt_arg {
	ARG_NONE,    /* a flag: a bool, set true */
	ARG_COUNT,   /* a flag that counts: an int, one more each time (-vv) */
	ARG_HELP,    /* --help: prints the command's help, stores nothing */
	ARG_MODE,    /* auto | native | skb: an enum opts_mode */
	ARG_PREFIX,  /* ADDR[/LEN], IPv4 or IPv6, repeatable: an array of struct
		      * prefix, and its count (an int) at off2 */
	ARG_UINT,    /* plain decimal, in [min, max]: an unsigned long long */
	ARG_RATE,    /* PPS[:BURST]: two unsigned long longs, BURST at off2 */
	ARG_SECONDS, /* decimal seconds, fractions allowed, in [0.01, 86400]: a double */
	ARG_PATH,    /* a non-empty path: a const char * into the text */
	ARG_LISTEN,  /* ADDR:PORT, [IPV6]:PORT, a local TCP address: the same */
};

/* Where a config file may set an option. */
enum opt_config {
	CFG_NONE,   /* command line only */
	CFG_ANY,    /* [global] or [interface NAME] */
	CFG_GLOBAL, /* [global] only: it is the whole service's */
};

/* Options a config section sets together: an interface's choice of
 * addresses replaces the global one whole (conffile.c). */
enum opt_group {
	GROUP_NONE,
	GROUP_ADDRS, /* --no-iface-addrs, --host-addrs */
};

/*
 * One option, declared once, as xdp-tools declares its parameters: its
 * value lives in struct opts at off (OPT_FIELD), and a new option is a
 * row of opt_table plus its field there.
 */
struct opt_def {
	const char *name; /* long name, and the config file key */
	char short_name;  /* 0: long only */
	enum opt_arg arg;
	const char *metavar;         /* shown in --help: --rate-limit PPS[:BURST] */
	unsigned int cmds;           /* CMD_BIT()s of the commands that take it */
	enum opt_config config;      /* where a config file may set it */
	size_t off, size;            /* the value in struct opts (size 0: none) */
	size_t off2, size2;          /* the second value: ARG_RATE, ARG_PREFIX */
	unsigned long long min, max; /* ARG_UINT */
	enum opt_group group;
	const char *help; /* one or more lines, no trailing newline */
};
#define OPT_FIELD(f) .off = offsetof(struct opts, f), .size = sizeof(((struct opts *)0)->f)
#define OPT_FIELD2(f) .off2 = offsetof(struct opts, f), .size2 = sizeof(((struct opts *)0)->f)

#define OPTS_MAX 32 /* room for opt_table's rows */
extern const struct opt_def opt_table[];
extern const int opt_count;
/* A row's index, for struct opts' seen[]. */
#define opt_index(d) ((int)((d)-opt_table))

#define OPTS_MAX_ADDRS 64
#define OPTS_MAX_ARGS 16

enum opts_mode {
	MODE_AUTO = 0, /* native, else skb */
	MODE_NATIVE,
	MODE_SKB,
};
/* "auto", "native", "skb": --mode's word for it. */
const char *opts_mode_name(enum opts_mode mode);

/* Every option's value, whichever command is parsed. */
struct opts {
	enum cmd_id cmd;
	bool seen[OPTS_MAX]; /* by opt_index(): given on the line or in the file */
	int verbose;
	enum opts_mode mode;
	struct prefix addrs[OPTS_MAX_ADDRS];
	int n_addrs;
	bool no_iface_addrs;
	bool host_addrs;
	bool force;
	unsigned long long latency_sample;
	unsigned long long priority;
	unsigned long long rate_pps, rate_burst;
	unsigned long long global_pps, global_burst;
	double interval;
	bool json;
	const char *metrics_file;
	bool all;
	bool prometheus;
	unsigned long long count;
	bool off;
	const char *config;
	const char *metrics_listen;
	/* Positional arguments, in order, options removed. */
	const char *args[OPTS_MAX_ARGS];
	int n_args;
};

/* A subcommand: its usage, and the function that runs it. */
struct cmd_def {
	enum cmd_id id;
	const char *name;
	const char *synopsis;   /* after "xdpong NAME " */
	int min_args, max_args; /* positional arguments */
	bool iface_arg;         /* the first one names an interface */
	const char *summary;    /* one line, for `xdpong --help` */
	const char *description;
	const char *examples;
	int (*run)(const struct opts *o);
};

/* Defaults before parsing: auto mode, latency sample 64, iface addresses on. */
void opts_init(struct opts *o, enum cmd_id cmd);

/*
 * Parse argv (argv[0] is the command name) into o. Returns 0, a usage
 * error already printed as "xdpong: ..." (OPTS_USAGE), or OPTS_HELP when
 * --help was given (the help is printed; the caller exits 0). Never exits.
 */
#define OPTS_USAGE 2
#define OPTS_HELP 1
int opts_parse(const struct cmd_def *cmd, int argc, char **argv, struct opts *o);

/*
 * Set option d from text, as the command line and a config file do.
 * 0, or -1 with why in errbuf ("expected PPS or PPS:BURST, 1 to 1e9").
 */
int opt_set(const struct opt_def *d, const char *text, struct opts *o, char *errbuf, size_t errlen);

/* Find an option by its long name (a config key), NULL if none. */
const struct opt_def *opt_by_name(const char *name);
/* Was the option of this long name given? */
bool opts_seen(const struct opts *o, const char *name);

/* A command's --help, from the table. */
void cmd_usage(FILE *f, const struct cmd_def *cmd);

/* Options that cannot go together: why, or NULL. */
const char *opts_conflict(const struct opts *o);

#endif /* XDPONG_OPTS_H */
