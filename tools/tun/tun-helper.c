// SPDX-License-Identifier: GPL-2.0
/*
 * tun-helper: the origin experiment's bridge between a TUN device and an
 * external "IP stack" (a program, a script or a language model), one hex
 * packet per line through two FIFOs. It checks every reply before the
 * kernel sees it and reports each request's turnaround. See --help and
 * tools/tun/README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "cli.h"
#include "hex.h"
#include "reply_check.h"
#include "tun.h"
#include "tun_report.h"

#define MAX_ADDRS 16
#define PKT_MAX 65535
/* "WRITE " + two digits a byte + room for spaces and a CR */
#define LINE_MAX_LEN (2 * PKT_MAX + 4096)
/* The original helper's paths (tun_helper.py --fifo) */
#define DEFAULT_CMD "/tmp/tun_cmd"
#define DEFAULT_RESP "/tmp/tun_resp"
#define DEFAULT_TUN "tun0"
#define TABLE_ROWS_MAX 1000 /* exit table; the JSON report lists them all */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* SIGALRM only ends a blocking open() of resp (see resp_open). */
static void on_alarm(int sig)
{
	(void)sig;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: tun-helper [--fifo [DIR]] [--tun NAME] [--addr ADDR/LEN]... [options]\n"
		   "\n"
		   "Let an external program be the IP stack behind a TUN device: it asks for\n"
		   "packets and writes replies as hex lines through two FIFOs, " DEFAULT_CMD "\n"
		   "(it writes commands) and " DEFAULT_RESP " (it reads one answer each), or\n"
		   "DIR/cmd and DIR/resp with --fifo DIR.\n"
		   "\n"
		   "Protocol (one line each way, '\\n'-terminated, hex without spaces):\n"
		   "  READ          -> the oldest packet the kernel sent into the TUN, as\n"
		   "                   hex (IP header first), or TIMEOUT if none came\n"
		   "                   within --timeout\n"
		   "  WRITE <hex>   -> the packet is checked (IP version, lengths, IPv4\n"
		   "                   header and ICMP/ICMPv6 checksums, an echo reply to a\n"
		   "                   request READ before: addresses swapped, same id, seq\n"
		   "                   and payload), then written to the TUN. Answer: OK;\n"
		   "                   OK WARN <what is wrong>, e.g. 'OK WARN ip checksum\n"
		   "                   60dd, want 615d' (written anyway); with --strict\n"
		   "                   ERR <what is wrong> (not written); ERR <reason> for\n"
		   "                   bad hex or a packet the TUN refuses\n"
		   "  anything else -> ERR <reason>\n"
		   "After each answer line the helper closes resp, so 'cat resp' ends\n"
		   "at once. Read each answer to its end (as cat does) before the next\n"
		   "command: a reader that stops at the newline may open resp again\n"
		   "before that close, and get it as an empty answer. An answer nobody\n"
		   "opens resp for within --answer-wait, or before the next command\n"
		   "arrives, is dropped (a READ then takes no packet).\n"
		   "\n"
		   "Options:\n"
		   "  -f, --fifo [DIR]      FIFOs DIR/cmd and DIR/resp (DIR made if missing)\n"
		   "                        instead of " DEFAULT_CMD " and " DEFAULT_RESP ";\n"
		   "                        FIFOs the helper made are removed on exit\n"
		   "  -t, --tun NAME        TUN device to create, or attach to if it exists\n"
		   "                        (default " DEFAULT_TUN ")\n"
		   "  -a, --addr ADDR/LEN   give the TUN this address and bring it up\n"
		   "                        (repeatable; IPv4 or IPv6); every other address\n"
		   "                        in ADDR/LEN is then routed into the TUN\n"
		   "  -T, --timeout MS      how long READ waits for a packet (default 30000,\n"
		   "                        inside the runbook's 'timeout 35 cat')\n"
		   "  -w, --answer-wait MS  how long an answer waits for a reader to open\n"
		   "                        resp (default 5000)\n"
		   "  -s, --strict          refuse a reply that fails a check: ERR, not written\n"
		   "  -r, --report FILE     on exit, write the per-request report as JSON\n"
		   "                        ('-': stdout)\n"
		   "  -v, --verbose         log every command and answer on stderr\n"
		   "  -h, --help            this help\n"
		   "\n"
		   "On exit (SIGINT, SIGTERM) it prints the counters and, per request, when\n"
		   "it was read, when its reply was written, the turnaround and the verdict.\n"
		   "\n"
		   "Examples (the original experiment: tun0 172.16.0.1, the stack is 172.16.0.2):\n"
		   "  tun-helper --fifo --tun tun0 --addr 172.16.0.1/24 &\n"
		   "  ping -W 300 -c 1 172.16.0.2 &\n"
		   "  echo \"READ\" > /tmp/tun_cmd && timeout 35 cat /tmp/tun_resp\n"
		   "  echo \"WRITE <hex>\" > /tmp/tun_cmd && timeout 5 cat /tmp/tun_resp   # OK\n");
}

struct helper {
	int tun, cmd;
	int carry_fd; /* resp, opened by the reader of a newer command (resp_open) */
	const char *tun_name, *cmd_path, *resp_path;
	int timeout_ms, answer_wait_ms;
	int verbose;
	bool strict;
	uint8_t pkt[PKT_MAX];
	struct tun_report *log;
	struct timespec started;
	unsigned long long reads, packets, timeouts, writes, ok, warned, refused, errors, unread;
};

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

static bool command_waiting(const struct helper *h)
{
	struct pollfd p = { .fd = h->cmd, .events = POLLIN };

	return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

/*
 * Open resp for writing one answer; -1 if nobody opened it to read within
 * --answer-wait, or a newer command came first.
 *
 * The helper must not hold resp open between answers (the reader would
 * never see an end), and a writer's open either blocks until a reader comes
 * (forever if none does) or, with O_NONBLOCK, fails with ENXIO at once.
 * Linux gives a writer no event when a reader arrives, so: a blocking open, ended
 * every 50 ms by an interval timer (repeating, so a tick that fires just
 * before open() is followed by another) to look at the clock and at cmd.
 * A reader that is already waiting is found by the first, non-blocking try.
 *
 * One command, one answer: a client sends its next command only after
 * reading the answer. So if a command is waiting once a reader has come,
 * that reader ran "echo CMD > cmd && cat resp" for the newer command, and
 * this answer is stale: it is dropped, and the open resp is kept for the
 * newer command's answer (closing it would end that reader's cat empty).
 */
static int resp_open(struct helper *h)
{
	struct itimerval tick = { { 0, 50000 }, { 0, 50000 } }, off = { 0 };
	struct timespec start, now;
	int fd = h->carry_fd, e;
	struct stat st;

	h->carry_fd = -1;
	if (fd >= 0)
		return fd;
	fd = open(h->resp_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ENXIO) {
		clock_gettime(CLOCK_MONOTONIC, &start);
		setitimer(ITIMER_REAL, &tick, NULL);
		for (;;) {
			fd = open(h->resp_path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
			if (fd >= 0 || errno != EINTR)
				break;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (stop || ms_between(&start, &now) >= h->answer_wait_ms ||
			    command_waiting(h)) {
				errno = ENXIO;
				break;
			}
		}
		e = errno;
		setitimer(ITIMER_REAL, &off, NULL);
		errno = e;
	}
	if (fd < 0) {
		if (errno != ENXIO)
			fprintf(stderr, "tun-helper: cannot open %s: %s\n", h->resp_path,
				strerror(errno));
		h->unread++;
		return -1;
	}
	/* Someone may have put a plain file there: answers go to a FIFO only. */
	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode)) {
		fprintf(stderr, "tun-helper: %s is no longer a FIFO\n", h->resp_path);
		close(fd);
		h->unread++;
		return -1;
	}
	/* Writes never block: a reader that stops reading cannot wedge us. */
	fcntl(fd, F_SETFL, O_WRONLY | O_NONBLOCK);
	fcntl(fd, F_SETPIPE_SZ, 1 << 18); /* a whole hex packet, if allowed */
	if (command_waiting(h)) {
		h->carry_fd = fd;
		h->unread++;
		return -1;
	}
	return fd;
}

/* Write one answer line to an open resp within --answer-wait, then close it. */
static void resp_send(struct helper *h, int fd, const char *line, size_t n)
{
	struct timespec start, now;
	size_t off = 0;

	if (h->verbose)
		fprintf(stderr, "tun-helper: -> %.*s%s\n", (int)(n - 1 > 72 ? 72 : n - 1), line,
			n - 1 > 72 ? "..." : "");
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (off < n) {
		ssize_t w = write(fd, line + off, n - off);
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		int left;

		if (w >= 0) {
			off += (size_t)w;
			continue;
		}
		if (errno != EAGAIN && errno != EINTR)
			break; /* EPIPE: the reader left */
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = h->answer_wait_ms - (int)ms_between(&start, &now);
		if (stop || left <= 0 || (poll(&p, 1, left) < 0 && errno != EINTR))
			break;
	}
	if (off < n) {
		h->unread++;
		fprintf(stderr, "tun-helper: answer not read in full (%zu of %zu bytes)\n", off, n);
	}
	close(fd);
}

/* Open resp, send one line (no newline in text), close. */
static void answer(struct helper *h, const char *text)
{
	static char line[1024];
	int fd, n;

	n = snprintf(line, sizeof(line), "%s\n", text);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = (int)sizeof(line) - 1, line[n - 1] = '\n';
	fd = resp_open(h);
	if (fd < 0) {
		fprintf(stderr, "tun-helper: answer '%.60s' dropped: nobody read it%s\n", text,
			h->carry_fd >= 0 ? " before the next command" : "");
		return;
	}
	resp_send(h, fd, line, (size_t)n);
}

static void do_read(struct helper *h)
{
	static const char digits[] = "0123456789abcdef";
	static char line[2 * PKT_MAX + 2];
	struct pollfd p[2];
	ssize_t n;
	int fd, r;

	h->reads++;
	/* The reader first: a READ nobody waits for takes no packet. */
	fd = resp_open(h);
	if (fd < 0) {
		fprintf(stderr, "tun-helper: READ dropped: nobody read %s%s; no packet taken\n",
			h->resp_path, h->carry_fd >= 0 ? " before the next command" : "");
		return;
	}
	p[0] = (struct pollfd){ .fd = h->tun, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = fd }; /* POLLERR: the reader left */
	do {
		r = poll(p, 2, h->timeout_ms);
	} while (r < 0 && errno == EINTR && !stop);
	if (r > 0 && (p[1].revents & (POLLERR | POLLHUP))) {
		h->unread++;
		fprintf(stderr, "tun-helper: the reader of READ's answer left; no packet taken\n");
		close(fd);
		return;
	}
	if (r <= 0) {
		h->timeouts++;
		resp_send(h, fd, "TIMEOUT\n", 8);
		return;
	}
	n = read(h->tun, h->pkt, sizeof(h->pkt));
	if (n <= 0) {
		int len;

		h->errors++;
		len = snprintf(line, sizeof(line), "ERR read: %s\n",
			       n < 0 ? strerror(errno) : "empty packet");
		resp_send(h, fd, line, (size_t)len);
		return;
	}
	h->packets++;
	tr_read(h->log, h->pkt, (size_t)n);
	for (ssize_t i = 0; i < n; i++) {
		line[2 * i] = digits[h->pkt[i] >> 4];
		line[2 * i + 1] = digits[h->pkt[i] & 15];
	}
	line[2 * n] = '\n';
	resp_send(h, fd, line, (size_t)(2 * n + 1));
}

static void do_write(struct helper *h, const char *hex)
{
	static struct rc_request window[TR_MATCH_WINDOW];
	static size_t window_req[TR_MATCH_WINDOW]; /* what tr_write calls them */
	char why[128], ans[RC_TEXT_MAX + 128];
	struct rc_result res;
	size_t n_window;
	long n, k;

	h->writes++;
	n = pkt_hex_parse(hex, h->pkt, sizeof(h->pkt), why, sizeof(why));
	if (n < 0) {
		h->errors++;
		snprintf(ans, sizeof(ans), "ERR bad hex: %s", why);
		answer(h, ans);
		return;
	}
	n_window = tr_window(h->log, window, window_req);
	rc_check_reply(h->pkt, (size_t)n, window, n_window, &res);
	k = res.request >= 0 ? (long)window_req[res.request] : -1;
	rc_answer(&res, h->strict, ans, sizeof(ans));
	if (res.findings && h->strict) {
		h->refused++;
		tr_write(h->log, k, &res, (size_t)n, false, ans);
		answer(h, ans);
		return;
	}
	if (write(h->tun, h->pkt, (size_t)n) != n) {
		int e = errno;

		h->errors++;
		snprintf(ans, sizeof(ans), "ERR write: %s%s%s%s", strerror(e),
			 e == EINVAL ? " (not an IPv4 or IPv6 packet?)" : "",
			 res.findings ? "; " : "", res.text);
		tr_write(h->log, k, &res, (size_t)n, false, ans);
		answer(h, ans);
		return;
	}
	if (res.findings)
		h->warned++;
	else
		h->ok++;
	tr_write(h->log, k, &res, (size_t)n, true, ans);
	answer(h, ans);
}

static void do_command(struct helper *h, char *line)
{
	size_t len = strlen(line);
	char msg[128];

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		line[--len] = '\0';
	while (*line == ' ' || *line == '\t')
		line++;
	if (h->verbose)
		fprintf(stderr, "tun-helper: <- %.72s%s\n", line, strlen(line) > 72 ? "..." : "");
	if (!*line)
		return; /* blank lines are no command and get no answer */
	if (!strcmp(line, "READ")) {
		do_read(h);
	} else if (!strncmp(line, "WRITE", 5) && (line[5] == ' ' || line[5] == '\t')) {
		do_write(h, line + 6);
	} else if (!strcmp(line, "WRITE")) {
		h->errors++;
		answer(h, "ERR WRITE needs a packet: WRITE <hex>");
	} else {
		h->errors++;
		snprintf(msg, sizeof(msg), "ERR unknown command '%.32s' (READ or WRITE <hex>)",
			 line);
		answer(h, msg);
	}
}

/* ---- The report: the exit table and --report JSON ---- */

static void print_summary(const struct helper *h)
{
	fprintf(stderr,
		"tun-helper: %llu READ (%llu packets, %llu TIMEOUT), %llu WRITE (%llu OK, "
		"%llu OK WARN, %llu refused), %llu ERR, %llu answers unread\n",
		h->reads, h->packets, h->timeouts, h->writes, h->ok, h->warned, h->refused,
		h->errors, h->unread);
	tr_print(h->log, stderr, TABLE_ROWS_MAX);
}

static int write_report(const struct helper *h, const char *path)
{
	json_object *root = json_object_new_object(), *counts = json_object_new_object();
	int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, ret = 0;
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	json_object_object_add(root, "tun", json_object_new_string(h->tun_name));
	json_object_object_add(root, "cmd", json_object_new_string(h->cmd_path));
	json_object_object_add(root, "resp", json_object_new_string(h->resp_path));
	json_object_object_add(root, "strict", json_object_new_boolean(h->strict));
	json_object_object_add(root, "started_at", tr_json_time(&h->started));
	json_object_object_add(root, "ended_at", tr_json_time(&now));
#define COUNT(name, v) json_object_object_add(counts, name, json_object_new_uint64(v))
	COUNT("read", h->reads);
	COUNT("packets", h->packets);
	COUNT("timeouts", h->timeouts);
	COUNT("write", h->writes);
	COUNT("ok", h->ok);
	COUNT("warn", h->warned);
	COUNT("refused", h->refused);
	COUNT("errors", h->errors);
	COUNT("unread", h->unread);
#undef COUNT
	json_object_object_add(root, "counts", counts);
	tr_json(h->log, root);

	if (!strcmp(path, "-")) {
		puts(json_object_to_json_string_ext(root, flags));
	} else if (json_object_to_file_ext(path, root, flags)) {
		fprintf(stderr, "tun-helper: cannot write the report to %s: %s\n", path,
			json_util_get_last_err());
		ret = -1;
	}
	json_object_put(root);
	return ret;
}

/* ---- Setup ---- */

/* mkfifo, or accept an existing FIFO of ours. 1 if made here, 0 if reused, -1. */
static int fifo_make(const char *path)
{
	struct stat st;

	if (!mkfifo(path, 0600))
		return 1;
	if (errno == EEXIST && !lstat(path, &st) && S_ISFIFO(st.st_mode)) {
		if (st.st_uid == geteuid())
			return 0;
		fprintf(stderr,
			"tun-helper: %s belongs to uid %u, not us: remove it or use --fifo "
			"DIR\n",
			path, (unsigned)st.st_uid);
		return -1;
	}
	if (errno == EEXIST)
		fprintf(stderr,
			"tun-helper: %s exists and is not a FIFO (a command written before "
			"the helper started makes a plain file): remove it\n",
			path);
	else
		fprintf(stderr, "tun-helper: cannot make FIFO %s: %s\n", path, strerror(errno));
	return -1;
}

static int parse_ms(const char *opt, const char *arg, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v < 0 || v > 3600000) {
		fprintf(stderr, "tun-helper: invalid %s '%s' (milliseconds, 0 to 3600000)\n", opt,
			arg);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* ---- main's phases ---- */

/* What main's phases share besides the helper: the command line, and what
 * setup made, so that the teardown removes that and nothing else. */
struct run {
	struct prefix addrs[MAX_ADDRS];
	int n_addrs;
	const char *dir, *report;
	char cmd_path[4096], resp_path[4096], name[IFNAMSIZ];
	int made_cmd, made_resp; /* fifo_make's answer: 1 made here */
	bool made_dir;
};

/* 1. The options. -1 to go on, else main's exit code. */
static int args_parse(int argc, char **argv, struct helper *h, struct run *r)
{
	static const struct option longopts[] = {
		{ "fifo", optional_argument, NULL, 'f' },
		{ "tun", required_argument, NULL, 't' },
		{ "addr", required_argument, NULL, 'a' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "answer-wait", required_argument, NULL, 'w' },
		{ "strict", no_argument, NULL, 's' },
		{ "report", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool fifo_opt = false;
	int c;

	while ((c = getopt_long(argc, argv, "f::t:a:T:w:sr:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			fifo_opt = true;
			r->dir = optarg; /* --fifo=DIR; --fifo DIR is picked up below */
			break;
		case 't':
			h->tun_name = optarg;
			break;
		case 'a':
			if (r->n_addrs >= MAX_ADDRS || !strchr(optarg, '/') ||
			    prefix_parse(optarg, &r->addrs[r->n_addrs])) {
				fprintf(stderr,
					"tun-helper: invalid --addr '%s' (expected "
					"ADDR/LEN, e.g. 172.16.0.1/24)\n",
					optarg);
				return 2;
			}
			r->n_addrs++;
			break;
		case 'T':
			if (parse_ms("--timeout", optarg, &h->timeout_ms))
				return 2;
			break;
		case 'w':
			if (parse_ms("--answer-wait", optarg, &h->answer_wait_ms))
				return 2;
			break;
		case 's':
			h->strict = true;
			break;
		case 'r':
			r->report = optarg;
			break;
		case 'v':
			h->verbose++;
			break;
		default: /* 'h', or a bad option */
			return cli_help(c, usage);
		}
	}
	/* An optional argument only binds as --fifo=DIR: take "--fifo DIR" too. */
	if (fifo_opt && !r->dir && optind < argc)
		r->dir = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "tun-helper: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return -1;
}

/* 2. The TUN name and the FIFOs' paths. 0, or 2 (usage). */
static int args_check(struct helper *h, struct run *r)
{
	if (!*h->tun_name || strlen(h->tun_name) >= IFNAMSIZ) {
		fprintf(stderr, "tun-helper: invalid --tun '%s' (1 to %d characters)\n",
			h->tun_name, IFNAMSIZ - 1);
		return 2;
	}
	if (r->dir) {
		if (!*r->dir || strlen(r->dir) > sizeof(r->cmd_path) - 8) {
			fprintf(stderr, "tun-helper: invalid --fifo directory '%s'\n", r->dir);
			return 2;
		}
		snprintf(r->cmd_path, sizeof(r->cmd_path), "%s/cmd", r->dir);
		snprintf(r->resp_path, sizeof(r->resp_path), "%s/resp", r->dir);
	} else {
		snprintf(r->cmd_path, sizeof(r->cmd_path), "%s", DEFAULT_CMD);
		snprintf(r->resp_path, sizeof(r->resp_path), "%s", DEFAULT_RESP);
	}
	h->cmd_path = r->cmd_path;
	h->resp_path = r->resp_path;
	return 0;
}

static void signals_install(void)
{
	struct sigaction sa;

	cli_stop_signals(on_signal); /* a signal ends the wait */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* 3. The TUN, with its addresses and up if --addr gave any. 0 or -1. */
static int tun_setup(struct helper *h, struct run *r)
{
	h->tun = tun_open(h->tun_name, false, r->name);
	if (h->tun < 0) {
		fprintf(stderr, "tun-helper: cannot open TUN %s: %s%s\n", h->tun_name,
			strerror(-h->tun), h->tun == -EBUSY ? " (another program holds it)" : "");
		return -1;
	}
	h->tun_name = r->name;
	for (int i = 0; i < r->n_addrs; i++) {
		char buf[64];
		int e = tun_addr_add((int)if_nametoindex(r->name), &r->addrs[i]);

		if (e && e != -EEXIST) {
			fprintf(stderr, "tun-helper: cannot add %s to %s: %s\n",
				prefix_str(&r->addrs[i], buf, sizeof(buf)), r->name, strerror(-e));
			return -1;
		}
	}
	if (r->n_addrs) {
		int e = tun_link_up(r->name);

		if (e) {
			fprintf(stderr, "tun-helper: cannot bring %s up: %s\n", r->name,
				strerror(-e));
			return -1;
		}
	}
	return 0;
}

/* 4. The FIFOs (and --fifo's directory), cmd open and ours alone. 0 or -1. */
static int fifos_setup(struct helper *h, struct run *r)
{
	if (r->dir && !mkdir(r->dir, 0700)) {
		r->made_dir = true;
	} else if (r->dir && errno != EEXIST) {
		fprintf(stderr, "tun-helper: cannot make %s: %s\n", r->dir, strerror(errno));
		return -1;
	}
	r->made_cmd = fifo_make(r->cmd_path);
	r->made_resp = r->made_cmd < 0 ? -1 : fifo_make(r->resp_path);
	if (r->made_cmd < 0 || r->made_resp < 0)
		return -1;
	/* Read-write: never blocks on open, never sees EOF between clients. */
	h->cmd = open(r->cmd_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (h->cmd < 0) {
		fprintf(stderr, "tun-helper: cannot open %s: %s\n", r->cmd_path, strerror(errno));
		return -1;
	}
	/* Two helpers reading one cmd FIFO would split the commands between them. */
	if (flock(h->cmd, LOCK_EX | LOCK_NB)) {
		fprintf(stderr,
			"tun-helper: another tun-helper serves %s (use --fifo DIR for a "
			"second one)\n",
			r->cmd_path);
		r->made_cmd = r->made_resp = 0; /* theirs now: leave them */
		return -1;
	}
	return 0;
}

/* 5. Commands, one a line, until a signal. 0, or 1 if cmd failed. */
static int serve(struct helper *h)
{
	static char line[LINE_MAX_LEN];
	bool discarding = false;
	size_t used = 0;

	while (!stop) {
		ssize_t n = read(h->cmd, line + used, sizeof(line) - 1 - used);
		char *start, *nl;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "tun-helper: read from %s: %s\n", h->cmd_path,
				strerror(errno));
			return 1;
		}
		used += (size_t)n;
		line[used] = '\0';
		start = line;
		while (!stop && (nl = memchr(start, '\n', used - (size_t)(start - line)))) {
			*nl = '\0';
			if (discarding)
				discarding = false;
			else
				do_command(h, start);
			start = nl + 1;
		}
		used -= (size_t)(start - line);
		memmove(line, start, used);
		if (used == sizeof(line) - 1) { /* no newline in sight */
			/* One answer per line: the rest of it is dropped silently. */
			if (!discarding) {
				h->errors++;
				answer(h, "ERR line too long");
			}
			used = 0;
			discarding = true;
		}
	}
	return 0;
}

/* 6. Undo what setup made, and only that. */
static void teardown(struct helper *h, const struct run *r)
{
	if (h->cmd >= 0)
		close(h->cmd);
	if (h->carry_fd >= 0)
		close(h->carry_fd);
	if (r->made_cmd == 1)
		unlink(r->cmd_path);
	if (r->made_resp == 1)
		unlink(r->resp_path);
	if (r->made_dir)
		rmdir(r->dir); /* only if empty: nothing of the client's is lost */
	if (h->tun >= 0)
		close(h->tun);
	tr_free(h->log);
}

int main(int argc, char **argv)
{
	static struct helper h;
	static struct run r;
	int ret;

	h.timeout_ms = 30000;
	h.answer_wait_ms = 5000;
	h.tun_name = DEFAULT_TUN;
	h.tun = h.cmd = h.carry_fd = -1;
	ret = args_parse(argc, argv, &h, &r);
	if (ret >= 0)
		return ret;
	if (args_check(&h, &r))
		return 2;
	signals_install();

	h.log = tr_new();
	if (!h.log) {
		fprintf(stderr, "tun-helper: out of memory\n");
		return 1;
	}
	if (tun_setup(&h, &r) || fifos_setup(&h, &r)) {
		teardown(&h, &r);
		return 1;
	}
	clock_gettime(CLOCK_REALTIME, &h.started);
	fprintf(stderr,
		"tun-helper: %s ready; commands to %s, answers from %s (READ timeout %d "
		"ms%s)\n",
		r.name, r.cmd_path, r.resp_path, h.timeout_ms, h.strict ? ", --strict" : "");

	ret = serve(&h);
	print_summary(&h);
	if (r.report && write_report(&h, r.report))
		ret = 1;
	teardown(&h, &r);
	return ret;
}
