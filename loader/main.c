// SPDX-License-Identifier: GPL-2.0
/* xdpong: answer ping in the driver. Subcommand dispatch and shared helpers. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "loader.h"

int verbose;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "xdpong: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	return -1;
}

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && verbose < 2)
		return 0;
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int print_libxdp(enum libxdp_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBXDP_DEBUG && verbose < 2)
		return 0;
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Effective capability bit n, from capget(2); no libcap needed. */
static bool have_cap(const struct __user_cap_data_struct d[2], int n)
{
	return d[n / 32].effective & (1U << (n % 32));
}

int require_root(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { 0 };

	/* Root in a container may lack them: the uid alone says nothing. */
	if (syscall(SYS_capget, &h, d))
		return err("cannot read this process's capabilities: %s", strerror(errno));
	if (!have_cap(d, CAP_NET_ADMIN) || !have_cap(d, CAP_SYS_ADMIN) ||
	    (!have_cap(d, 39 /* CAP_BPF */) && !have_cap(d, CAP_SYS_ADMIN)))
		return err("%s (needs CAP_BPF, CAP_NET_ADMIN and CAP_SYS_ADMIN)",
			   geteuid() ? "must run as root" :
				       "running as root but without the needed capabilities");
	return 0;
}

int iface_lookup(const char *name, struct link_info *li)
{
	int ret;

	if (!name || !*name)
		return err("missing interface name");
	if (strlen(name) >= IF_NAMESIZE)
		return err("interface name '%s' is too long (at most %d characters)",
			   name, IF_NAMESIZE - 1);
	ret = link_get(name, 0, li);
	if (ret == -ENODEV)
		return err("interface '%s' not found in this network namespace (see 'ip link')",
			   name);
	if (ret)
		return err("cannot read interface '%s': %s", name, strerror(-ret));
	return 0;
}

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: xdpong [-v] COMMAND [ARGS]\n"
		"\n"
		"Answer ICMP and ICMPv6 echo requests (ping) in the network driver with XDP.\n"
		"\n"
		"Commands:\n"
		"  attach IFACE [options]     load and attach, fill the address map, pin the maps\n"
		"  detach IFACE               detach and remove the pins; the kernel answers again\n"
		"  status [IFACE] [--json]    what is attached where\n"
		"  stats IFACE [INTERVAL [COUNT]] [--json | --prometheus]\n"
		"                             counters by outcome and reason, latency histogram\n"
		"  run IFACE [options]        attach in the foreground, follow address changes,\n"
		"                             detach on SIGINT/SIGTERM (for systemd)\n"
		"  addr IFACE add|del PREFIX  change the prefixes an attached xdpong answers for\n"
		"  addr IFACE list            list them\n"
		"  trace IFACE [--count N] [--json]\n"
		"                             one line per packet: addresses, echo id/seq,\n"
		"                             verdict and reason, service time\n"
		"\n"
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
		"  xdpong detach eth0\n"
		"\n"
		"Maps are pinned under " PIN_ROOT "/IFACE/ for bpftool. Manual: xdpong(8).\n");
}

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "attach", cmd_attach },
	{ "detach", cmd_detach },
	{ "status", cmd_status },
	{ "stats", cmd_stats },
	{ "run", cmd_run },
	{ "addr", cmd_addr },
	{ "trace", cmd_trace },
};

int main(int argc, char **argv)
{
	int i = 1;

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
			printf("xdpong %s (libbpf %s)\n", XDPONG_VERSION,
			       libbpf_version_string());
			return 0;
		} else {
			err("unknown option '%s'", a);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	libbpf_set_print(print_libbpf);
	libxdp_set_print(print_libxdp);

	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
		if (!strcmp(argv[i], commands[c].name))
			return commands[c].fn(argc - i, argv + i);
	}
	err("unknown command '%s' (try 'xdpong --help')", argv[i]);
	return EXIT_USAGE;
}
