// SPDX-License-Identifier: GPL-2.0
/*
 * tun-helper: the origin experiment's bridge between a TUN device and an
 * external "IP stack" (a program, a script or a language model), one hex
 * packet per line through two FIFOs. See --help and tools/README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "hex.h"
#include "tun.h"

#define MAX_ADDRS 16
#define PKT_MAX 65535
/* "WRITE " + two digits a byte + room for spaces and a CR */
#define LINE_MAX_LEN (2 * PKT_MAX + 4096)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tun-helper --fifo DIR [--tun NAME] [--addr ADDR/LEN]... [--timeout MS]\n"
		"\n"
		"Let an external program be the IP stack behind a TUN device: it asks for\n"
		"packets and writes replies as hex lines through two FIFOs, DIR/cmd (it\n"
		"writes commands) and DIR/resp (it reads one answer line per command).\n"
		"\n"
		"Protocol (one line each way, '\\n'-terminated, hex without spaces):\n"
		"  READ          -> the oldest packet the kernel sent into the TUN, as\n"
		"                   hex (IP header first), or TIMEOUT if none came\n"
		"                   within --timeout\n"
		"  WRITE <hex>   -> OK once the packet is written to the TUN (the kernel\n"
		"                   receives it), or ERR <reason> (bad hex, a packet\n"
		"                   the TUN refuses)\n"
		"  anything else -> ERR <reason>\n"
		"The helper holds both FIFOs open, so a client may open them once or\n"
		"per command; it must read exactly one line from resp per command\n"
		"('read -r line < resp', not 'cat resp', which never sees an end).\n"
		"\n"
		"Options:\n"
		"  -f, --fifo DIR        directory for the FIFOs cmd and resp (made if\n"
		"                        missing; what it made is removed on exit)\n"
		"  -t, --tun NAME        TUN device to create, or attach to if it exists\n"
		"                        (default: the kernel picks tunN)\n"
		"  -a, --addr ADDR/LEN   give the TUN this address and bring it up\n"
		"                        (repeatable; IPv4 or IPv6); every other address\n"
		"                        in ADDR/LEN is then routed into the TUN\n"
		"  -T, --timeout MS      how long READ waits for a packet (default 1000)\n"
		"  -v, --verbose         log every command and answer on stderr\n"
		"  -h, --help            this help\n"
		"\n"
		"Examples:\n"
		"  tun-helper --fifo /tmp/llm --tun llm0 --addr 10.9.0.1/24 &\n"
		"  ping -c 3 10.9.0.2 &\n"
		"  echo READ > /tmp/llm/cmd; read -r pkt < /tmp/llm/resp\n"
		"  echo \"WRITE $(pong-hex --reply-only \"$pkt\")\" > /tmp/llm/cmd\n"
		"  read -r answer < /tmp/llm/resp      # OK\n");
}

struct helper {
	int tun, cmd, resp;
	int timeout_ms;
	int verbose;
	uint8_t pkt[PKT_MAX];
	unsigned long long reads, packets, timeouts, writes, written, errors;
};

/* One answer line; the helper's own write end keeps the FIFO alive. */
static void answer(struct helper *h, const char *fmt, const uint8_t *pkt,
		   size_t len)
{
	static char line[LINE_MAX_LEN];
	size_t n;

	if (pkt) {
		static const char digits[] = "0123456789abcdef";

		for (n = 0; n < len; n++) {
			line[2 * n] = digits[pkt[n] >> 4];
			line[2 * n + 1] = digits[pkt[n] & 15];
		}
		n = 2 * len;
		line[n++] = '\n';
	} else {
		n = (size_t)snprintf(line, sizeof(line), "%s\n", fmt);
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
	}
	if (h->verbose)
		fprintf(stderr, "tun-helper: -> %.*s%s\n", (int)(n - 1 > 72 ? 72 : n - 1),
			line, n - 1 > 72 ? "..." : "");
	for (size_t off = 0; off < n;) {
		ssize_t w = write(h->resp, line + off, n - off);

		if (w < 0) {
			if (errno == EINTR && !stop)
				continue;
			fprintf(stderr, "tun-helper: cannot write to resp: %s\n",
				strerror(errno));
			return;
		}
		off += (size_t)w;
	}
}

static void do_read(struct helper *h)
{
	struct pollfd p = { .fd = h->tun, .events = POLLIN };
	ssize_t n;
	int r;

	h->reads++;
	do {
		r = poll(&p, 1, h->timeout_ms);
	} while (r < 0 && errno == EINTR && !stop);
	if (r <= 0) {
		h->timeouts++;
		answer(h, "TIMEOUT", NULL, 0);
		return;
	}
	n = read(h->tun, h->pkt, sizeof(h->pkt));
	if (n <= 0) {
		char msg[128];

		h->errors++;
		snprintf(msg, sizeof(msg), "ERR read: %s",
			 n < 0 ? strerror(errno) : "empty packet");
		answer(h, msg, NULL, 0);
		return;
	}
	h->packets++;
	answer(h, NULL, h->pkt, (size_t)n);
}

static void do_write(struct helper *h, const char *hex)
{
	char why[128], msg[192];
	long n;

	h->writes++;
	n = pkt_hex_parse(hex, h->pkt, sizeof(h->pkt), why, sizeof(why));
	if (n < 0) {
		h->errors++;
		snprintf(msg, sizeof(msg), "ERR bad hex: %s", why);
		answer(h, msg, NULL, 0);
		return;
	}
	if (write(h->tun, h->pkt, (size_t)n) != n) {
		h->errors++;
		snprintf(msg, sizeof(msg), "ERR write: %s%s", strerror(errno),
			 errno == EINVAL ? " (not an IPv4 or IPv6 packet?)" : "");
		answer(h, msg, NULL, 0);
		return;
	}
	h->written++;
	answer(h, "OK", NULL, 0);
}

static void do_command(struct helper *h, char *line)
{
	size_t len = strlen(line);
	char msg[128];

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
		       line[len - 1] == '\t'))
		line[--len] = '\0';
	while (*line == ' ' || *line == '\t')
		line++;
	if (h->verbose)
		fprintf(stderr, "tun-helper: <- %.72s%s\n", line,
			strlen(line) > 72 ? "..." : "");
	if (!*line)
		return; /* blank lines are no command and get no answer */
	if (!strcmp(line, "READ")) {
		do_read(h);
	} else if (!strncmp(line, "WRITE", 5) && (line[5] == ' ' || line[5] == '\t')) {
		do_write(h, line + 6);
	} else if (!strcmp(line, "WRITE")) {
		h->errors++;
		answer(h, "ERR WRITE needs a packet: WRITE <hex>", NULL, 0);
	} else {
		h->errors++;
		snprintf(msg, sizeof(msg), "ERR unknown command '%.32s' (READ or WRITE <hex>)",
			 line);
		answer(h, msg, NULL, 0);
	}
}

/* mkfifo, or accept an existing FIFO. 1 if made here, 0 if reused, -1. */
static int fifo_make(const char *path)
{
	struct stat st;

	if (!mkfifo(path, 0600))
		return 1;
	if (errno == EEXIST && !stat(path, &st) && S_ISFIFO(st.st_mode))
		return 0;
	fprintf(stderr, "tun-helper: cannot make FIFO %s: %s\n", path,
		errno == EEXIST ? "exists and is not a FIFO" : strerror(errno));
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fifo", required_argument, NULL, 'f' },
		{ "tun", required_argument, NULL, 't' },
		{ "addr", required_argument, NULL, 'a' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct helper h;
	static char line[LINE_MAX_LEN];
	struct pkt_prefix addrs[MAX_ADDRS];
	const char *dir = NULL, *tun_name = NULL;
	char cmd_path[4096], resp_path[4096], name[IFNAMSIZ], *end;
	int c, n_addrs = 0, made_cmd = -1, made_resp = -1, ret = 1;
	size_t used = 0;
	bool discarding = false, made_dir = false;
	struct sigaction sa;
	long v;

	h.timeout_ms = 1000;
	h.tun = h.cmd = h.resp = -1;
	while ((c = getopt_long(argc, argv, "f:t:a:T:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			dir = optarg;
			break;
		case 't':
			tun_name = optarg;
			break;
		case 'a':
			if (n_addrs >= MAX_ADDRS || !strchr(optarg, '/') ||
			    pkt_prefix_parse(optarg, &addrs[n_addrs])) {
				fprintf(stderr, "tun-helper: invalid --addr '%s' (expected ADDR/LEN, e.g. 10.9.0.1/24)\n",
					optarg);
				return 2;
			}
			n_addrs++;
			break;
		case 'T':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 0 || v > 3600000) {
				fprintf(stderr, "tun-helper: invalid --timeout '%s' (milliseconds, 0 to 3600000)\n",
					optarg);
				return 2;
			}
			h.timeout_ms = (int)v;
			break;
		case 'v':
			h.verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tun-helper: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!dir || !*dir) {
		fprintf(stderr, "tun-helper: missing --fifo DIR (see --help)\n");
		return 2;
	}
	if (strlen(dir) > sizeof(cmd_path) - 8) {
		fprintf(stderr, "tun-helper: --fifo path too long\n");
		return 2;
	}
	snprintf(cmd_path, sizeof(cmd_path), "%s/cmd", dir);
	snprintf(resp_path, sizeof(resp_path), "%s/resp", dir);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: a signal ends the wait */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	h.tun = tun_open(tun_name, false, name);
	if (h.tun < 0) {
		fprintf(stderr, "tun-helper: cannot open TUN %s: %s\n",
			tun_name ? tun_name : "(new)", strerror(-h.tun));
		goto out;
	}
	for (int i = 0; i < n_addrs; i++) {
		char buf[64];
		int e = tun_addr_add((int)if_nametoindex(name), &addrs[i]);

		if (e && e != -EEXIST) {
			fprintf(stderr, "tun-helper: cannot add %s to %s: %s\n",
				pkt_prefix_str(&addrs[i], buf, sizeof(buf)), name,
				strerror(-e));
			goto out;
		}
	}
	if (n_addrs) {
		int e = tun_link_up(name);

		if (e) {
			fprintf(stderr, "tun-helper: cannot bring %s up: %s\n", name,
				strerror(-e));
			goto out;
		}
	}

	if (!mkdir(dir, 0700)) {
		made_dir = true;
	} else if (errno != EEXIST) {
		fprintf(stderr, "tun-helper: cannot make %s: %s\n", dir, strerror(errno));
		goto out;
	}
	made_cmd = fifo_make(cmd_path);
	made_resp = made_cmd < 0 ? -1 : fifo_make(resp_path);
	if (made_cmd < 0 || made_resp < 0)
		goto out;
	/* Read-write: never blocks on open, never sees EOF between clients. */
	h.cmd = open(cmd_path, O_RDWR | O_CLOEXEC);
	h.resp = open(resp_path, O_RDWR | O_CLOEXEC);
	if (h.cmd < 0 || h.resp < 0) {
		fprintf(stderr, "tun-helper: cannot open the FIFOs in %s: %s\n", dir,
			strerror(errno));
		goto out;
	}
	fcntl(h.resp, F_SETPIPE_SZ, 1 << 18); /* a whole hex packet, if allowed */
	fprintf(stderr, "tun-helper: %s ready; commands to %s, answers from %s (READ timeout %d ms)\n",
		name, cmd_path, resp_path, h.timeout_ms);

	ret = 0;
	while (!stop) {
		ssize_t n = read(h.cmd, line + used, sizeof(line) - 1 - used);
		char *start, *nl;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "tun-helper: read from %s: %s\n", cmd_path,
				strerror(errno));
			ret = 1;
			break;
		}
		used += (size_t)n;
		line[used] = '\0';
		start = line;
		while (!stop && (nl = memchr(start, '\n', used - (size_t)(start - line)))) {
			*nl = '\0';
			if (discarding)
				discarding = false;
			else
				do_command(&h, start);
			start = nl + 1;
		}
		used -= (size_t)(start - line);
		memmove(line, start, used);
		if (used == sizeof(line) - 1) { /* no newline in sight */
			/* One answer per line: the rest of it is dropped silently. */
			if (!discarding) {
				h.errors++;
				answer(&h, "ERR line too long", NULL, 0);
			}
			used = 0;
			discarding = true;
		}
	}
	fprintf(stderr, "tun-helper: %llu READ (%llu packets, %llu TIMEOUT), %llu WRITE (%llu OK), %llu ERR\n",
		h.reads, h.packets, h.timeouts, h.writes, h.written, h.errors);
out:
	if (h.cmd >= 0)
		close(h.cmd);
	if (h.resp >= 0)
		close(h.resp);
	if (made_cmd == 1)
		unlink(cmd_path);
	if (made_resp == 1)
		unlink(resp_path);
	if (made_dir)
		rmdir(dir); /* only if empty: nothing of the client's is lost */
	if (h.tun >= 0)
		close(h.tun);
	return ret;
}
