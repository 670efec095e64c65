// SPDX-License-Identifier: GPL-2.0
/*
 * tun-stack: a user-space ICMP/ICMPv6 echo responder behind a TUN device,
 * with xdpong's rules and reason counters. The baseline the benchmarks
 * compare xdpong against: one read, the reply made in place, one write.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <json-c/json.h>
#include "cli.h"
#include "xdpong_names.h"
#include "tun.h"
#include "userpong.h"

#define MAX_PREFIXES 64
#define BUF_SIZE 65536 /* the longest IP packet */

static volatile sig_atomic_t stop, dump;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		dump = 1;
	else
		stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: tun-stack --tun NAME [options]\n"
		   "\n"
		   "Answer the ICMP and ICMPv6 echo requests the kernel routes into the TUN\n"
		   "device NAME, in user space, with the rules and reason counters of\n"
		   "xdpong's XDP program: invalid requests are never answered, the rest is\n"
		   "counted and ignored. Creates NAME if it does not exist (it goes away\n"
		   "when tun-stack exits), or attaches to a persistent one.\n"
		   "\n"
		   "It stands for the hosts behind the TUN: by default it answers for the\n"
		   "TUN's peer prefixes ('ip addr add A peer B/LEN': B/LEN) and on-link\n"
		   "prefixes ('ip addr add A/LEN': A/LEN), except the TUN's own address A,\n"
		   "which the kernel keeps; requests from inside those prefixes (but A)\n"
		   "are martian, as xdpong treats its interface's addresses. Address\n"
		   "changes are followed.\n"
		   "\n"
		   "Options:\n"
		   "  -t, --tun NAME         the TUN device (required)\n"
		   "  -a, --addr PREFIX      answer for PREFIX instead (repeatable), e.g.\n"
		   "                         10.9.0.2, 10.9.0.0/24, 2001:db8:9::/64\n"
		   "  -s, --stats[=json]     on exit (SIGINT, SIGTERM) and on SIGUSR1, print\n"
		   "                         the counters by reason, as 'xdpong stats' names\n"
		   "                         them (json: one line, as 'xdpong stats --json')\n"
		   "  -v, --verbose          one line per packet on stderr: reason, addresses\n"
		   "  -h, --help             this help\n"
		   "\n"
		   "Examples:\n"
		   "  ip tuntap add dev tun0 mode tun\n"
		   "  ip addr add 10.9.0.1/24 dev tun0\n"
		   "  ip addr add 2001:db8:9::1/64 dev tun0\n"
		   "  ip link set tun0 up\n"
		   "  tun-stack --tun tun0 --stats &\n"
		   "  ping -c 3 10.9.0.2; ping -6 -c 3 2001:db8:9::2\n"
		   "  kill -INT %%1                     # prints the counters\n"
		   "\n"
		   "  tun-stack -t tun1 -a 198.51.100.7 -v   # create tun1; then configure it\n");
}

struct stack {
	const char *ifname;
	int fd, ifindex, watch;
	bool auto_addrs;
	struct up_addr addrs[MAX_PREFIXES];
	struct up_config cfg;
	unsigned long long count[XDPONG_R_MAX];
	unsigned long long write_errors;
	bool stats, json; /* --stats[=json] */
	int verbose;
};

static void addrs_load(struct stack *s, bool say)
{
	size_t n = 0;
	char buf[64];
	int e;

	e = tun_addrs(s->ifindex, s->addrs, &n, MAX_PREFIXES);
	if (e)
		fprintf(stderr, "tun-stack: cannot read the addresses of %s: %s\n", s->ifname,
			strerror(-e));
	s->cfg.n_addrs = n;
	if (!say)
		return;
	if (!n) {
		fprintf(stderr,
			"tun-stack: %s has no addresses yet; answering for its peer and "
			"on-link prefixes once it has\n",
			s->ifname);
		return;
	}
	fprintf(stderr, "tun-stack: %s:", s->ifname);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %s (%s)", prefix_str(&s->addrs[i].prefix, buf, sizeof(buf)),
			s->addrs[i].origin == UP_ADDR_NOT_OURS      ? "the kernel's" :
			s->addrs[i].origin == XDPONG_ADDR_BROADCAST ? "broadcast" :
								      "ours");
	fprintf(stderr, "\n");
}

/* One line in the shape of `xdpong stats --json`, through json-c. */
static void stats_print_json(const struct stack *s, unsigned long long recv,
			     const unsigned long long out[3])
{
	struct json_object *o = json_object_new_object();
	struct json_object *reasons = json_object_new_object();

	json_object_object_add(o, "iface", json_object_new_string(s->ifname));
	json_object_object_add(o, "received", json_object_new_uint64(recv));
	for (int i = 0; i < 3; i++)
		json_object_object_add(o, outcome_names[i], json_object_new_uint64(out[i]));
	for (int r = 0; r < XDPONG_R_MAX; r++)
		json_object_object_add(reasons, reason_names[r],
				       json_object_new_uint64(s->count[r]));
	json_object_object_add(o, "reasons", reasons);
	json_object_object_add(o, "write_errors", json_object_new_uint64(s->write_errors));
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	fflush(stdout);
}

static void stats_print(const struct stack *s, bool json)
{
	unsigned long long out[3] = { 0 }, recv = 0;

	for (int r = 0; r < XDPONG_R_MAX; r++) {
		out[reason_outcomes[r]] += s->count[r];
		recv += s->count[r];
	}
	if (json) {
		stats_print_json(s, recv, out);
		return;
	}
	printf("tun-stack on %s, counted since start\n", s->ifname);
	printf("  %-22s %14llu\n", "received", recv);
	for (int o = 0; o < 3; o++)
		printf("  %-22s %14llu\n", outcome_names[o], out[o]);
	printf("\n  %-22s %14s  %s\n", "reason", "packets", "meaning");
	for (int r = 0; r < XDPONG_R_MAX; r++)
		if (s->count[r])
			printf("  %-22s %14llu  %s\n", reason_names[r], s->count[r],
			       reason_descs[r]);
	if (s->write_errors)
		printf("  %-22s %14llu  %s\n", "write_errors", s->write_errors,
		       "replies the TUN did not take");
	fflush(stdout);
}

/* The addresses as they were before a reply swapped them. */
static void log_packet(const uint8_t *p, size_t len, enum xdpong_reason r)
{
	char a[INET6_ADDRSTRLEN] = "?", b[INET6_ADDRSTRLEN] = "?";
	bool v6 = len >= 1 && p[0] >> 4 == 6;
	const uint8_t *src = p + (v6 ? 8 : 12), *dst = p + (v6 ? 24 : 16);

	if (up_is_reply(r)) { /* already swapped */
		const uint8_t *t = src;

		src = dst;
		dst = t;
	}
	if (len >= (v6 ? PKT_IP6_HLEN : PKT_IP4_HLEN)) {
		inet_ntop(v6 ? AF_INET6 : AF_INET, src, a, sizeof(a));
		inet_ntop(v6 ? AF_INET6 : AF_INET, dst, b, sizeof(b));
	}
	fprintf(stderr, "%-20s %s -> %s, %zu bytes\n", reason_names[r], a, b, len);
}

/* 1. The options. -1 to go on, else main's exit code. */
static int args_parse(int argc, char **argv, struct stack *s)
{
	static const struct option longopts[] = {
		{ "tun", required_argument, NULL, 't' },   { "addr", required_argument, NULL, 'a' },
		{ "stats", optional_argument, NULL, 's' }, { "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },        { 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "t:a:s::vh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			s->ifname = optarg;
			break;
		case 'a':
			/* As xdpong's --addr: ours, and sources there are answered. */
			if (up_addr_arg("tun-stack", optarg, &s->cfg, s->addrs, MAX_PREFIXES))
				return CLI_EXIT_USAGE;
			s->auto_addrs = false;
			break;
		case 's':
			s->stats = true;
			if (optarg && !strcmp(optarg, "json")) {
				s->json = true;
			} else if (optarg && strcmp(optarg, "text")) {
				fprintf(stderr,
					"tun-stack: invalid --stats format '%s' (text or "
					"json)\n",
					optarg);
				return 2;
			}
			break;
		case 'v':
			s->verbose++;
			break;
		default: /* 'h', or a bad option */
			return cli_help(c, usage);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tun-stack: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!s->ifname || !*s->ifname) {
		fprintf(stderr, "tun-stack: missing --tun NAME (see --help)\n");
		return 2;
	}
	return -1;
}

/* 2. The TUN, and its addresses unless --addr gave ours. 0 or -1. */
static int stack_open(struct stack *s, char name[IFNAMSIZ])
{
	/* Before reading the addresses, so no change slips in between. */
	if (s->auto_addrs) {
		s->watch = tun_addr_watch_open();
		if (s->watch < 0) {
			fprintf(stderr, "tun-stack: cannot watch address changes: %s\n",
				strerror(-s->watch));
			return -1;
		}
	}
	s->fd = tun_open(s->ifname, false, name);
	if (s->fd < 0) {
		fprintf(stderr, "tun-stack: cannot open TUN %s: %s%s\n", s->ifname,
			strerror(-s->fd),
			s->fd == -EINVAL ? " (is it a TAP, or multi-queue?)" :
			s->fd == -EPERM  ? " (need CAP_NET_ADMIN, or be its owner)" :
					   "");
		return -1;
	}
	s->ifname = name;
	s->ifindex = (int)if_nametoindex(name);
	if (s->auto_addrs)
		addrs_load(s, true);
	return 0;
}

static void signals_install(void)
{
	struct sigaction sa;

	cli_stop_signals(on_signal); /* a signal ends the read */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* SIGUSR1: the stats, then on */
	sigaction(SIGUSR1, &sa, NULL);
}

/* 3. One packet read, answered and counted at a time, until a signal. 0 or 1. */
static int serve(struct stack *s)
{
	static uint8_t buf[BUF_SIZE];

	while (!stop) {
		enum xdpong_reason r;
		ssize_t n;

		if (dump) {
			dump = 0;
			stats_print(s, s->json);
		}
		n = read(s->fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "tun-stack: read from %s: %s\n", s->ifname,
				strerror(errno));
			return 1;
		}
		r = up_answer(&s->cfg, buf, (size_t)n);
		/* A miss may be an address added since: reload only then. */
		if (r == XDPONG_R_pass_dst_not_local && s->auto_addrs &&
		    tun_addr_changed(s->watch)) {
			addrs_load(s, s->verbose > 0);
			r = up_answer(&s->cfg, buf, (size_t)n);
		}
		s->count[r]++;
		if (up_is_reply(r) && write(s->fd, buf, (size_t)n) != n)
			s->write_errors++;
		if (s->verbose)
			log_packet(buf, (size_t)n, r);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct stack s;
	char name[IFNAMSIZ];
	int ret;

	s.fd = s.watch = -1;
	s.auto_addrs = true;
	ret = args_parse(argc, argv, &s);
	if (ret >= 0)
		return ret;
	s.cfg.addrs = s.addrs;
	if (stack_open(&s, name))
		return 1;
	signals_install();

	ret = serve(&s);
	if (s.stats)
		stats_print(&s, s.json);
	close(s.fd);
	if (s.watch >= 0)
		close(s.watch);
	return ret;
}
